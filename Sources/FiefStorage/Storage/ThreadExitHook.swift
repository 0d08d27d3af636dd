import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Cancels, on their own thread, the write transactions of a thread that
/// exits without ending them.
///
/// LMDB's writer lock is a robust mutex owned by the thread that began the
/// write transaction.  If that thread exits with the transaction open, the
/// next writer of this process finds the owner dead while LMDB still counts
/// the transaction as running, and LMDB then refuses every transaction of
/// the environment (MDB_PANIC).  So `beginWrite` registers its realm (an
/// `ExitCancellable`: the hook knows no more of it) in a list kept per
/// thread; the list's thread-specific-data destructor runs on the exiting
/// thread, before the kernel releases the thread's robust
/// mutexes, and cancels there every transaction the thread still has open,
/// which releases the writer lock the proper way.
///
/// The list holds each realm's `ExitToken`, not the realm: the hook never
/// keeps a realm open, and a weak reference would give every realm a side
/// table (each retain and release of it slower, on every call).  Commit and
/// cancel on the owning thread remove the entry; an entry left behind by a
/// transaction ended elsewhere (a realm released on another thread) is
/// harmless: at exit the realm is gone or no longer writing for this thread.
public enum ThreadExitHook {
    /// One thread's realms with a write transaction it began.
    public final class Registrations {
        public var entries: [ExitToken] = []
    }

    /// nil if the process ran out of thread-specific keys: then a thread
    /// that exits inside a write leaves the environment unusable until it
    /// is reopened (see `Environment.beginTransaction`).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // The thread is exiting: its value is already cleared, so
            // `unregister` (called by the cancel) finds no list.
            let registrations = Unmanaged<Registrations>.fromOpaque(pointer).takeRetainedValue()
            for token in registrations.entries { token.cancelWriteOfExitingThread() }
        }
        return rc == 0 ? key : nil
    }()

    /// Note that the calling thread began a write transaction on the owner
    /// of `token`.
    public static func register(_ token: ExitToken) {
        guard let key else { return }
        let registrations: Registrations
        if let pointer = pthread_getspecific(key) {
            registrations = Unmanaged<Registrations>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            let made = Registrations()
            let pointer = Unmanaged.passRetained(made).toOpaque()
            guard pthread_setspecific(key, pointer) == 0 else {
                Unmanaged<Registrations>.fromOpaque(pointer).release()
                return
            }
            registrations = made
        }
        if !registrations.entries.contains(where: { $0 === token }) {
            registrations.entries.removeAll { !$0.isAlive }
            registrations.entries.append(token)
        }
    }

    /// Note that the calling thread ended its write transaction on the owner
    /// of `token`.
    public static func unregister(_ token: ExitToken) {
        guard let key, let pointer = pthread_getspecific(key) else { return }
        let registrations = Unmanaged<Registrations>.fromOpaque(pointer).takeUnretainedValue()
        if let index = registrations.entries.firstIndex(where: { $0 === token }) {
            registrations.entries.remove(at: index)
        }
    }
}

/// What `ThreadExitHook` cancels: the owner of write transactions (the
/// engine's realm), called on the exiting thread that began one.
package protocol ExitCancellable: AnyObject {
    func cancelWriteOfExitingThread()
}

/// A realm as `ThreadExitHook` holds it: the realm without a reference
/// count, cleared (under the token's lock) when the realm goes away, so an
/// exiting thread never reaches a realm that is gone.
public final class ExitToken: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private unowned(unsafe) var realm: (any ExitCancellable)?

    package init(_ realm: any ExitCancellable) { self.realm = realm }

    public var isAlive: Bool { lock.withLock { _ in realm != nil } }

    /// Called by the realm's deinit: the hook must not reach it any more.
    public func clear() { lock.withLock { _ in realm = nil } }

    public func cancelWriteOfExitingThread() {
        lock.withLock { _ in realm?.cancelWriteOfExitingThread() }
    }
}
