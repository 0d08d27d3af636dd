#if canImport(Glibc)
import Glibc
#endif

/// A plain mutex.  `withLock` takes a typed-throwing body so callers keep
/// `FiefError` without casts.
public final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    public func withLock<R>(_ body: () throws(FiefError) -> R) throws(FiefError) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
