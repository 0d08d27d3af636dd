#if canImport(Glibc)
import Glibc
#endif

/// A plain mutex, as a value: copying it costs no reference counting (it is
/// taken on every call of the C ABI).  Its owner frees it with `destroy()`.
public struct Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    /// Free the mutex; only its owner's deinit calls this, once.
    public func destroy() {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable @inline(__always)
    public func withLock<R>(_ body: () throws(FiefError) -> R) throws(FiefError) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
