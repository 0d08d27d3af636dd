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
/// the environment (MDB_PANIC).  So `beginWrite` registers its realm in a
/// list kept per thread; the list's thread-specific-data destructor runs on
/// the exiting thread, before the kernel releases the thread's robust
/// mutexes, and cancels there every transaction the thread still has open,
/// which releases the writer lock the proper way.
///
/// The list holds realms weakly (the hook never keeps a realm open).  Commit
/// and cancel on the owning thread remove the entry; an entry left behind
/// by a transaction ended elsewhere (a realm released on another thread) is
/// harmless: at exit the realm is gone or no longer writing for this thread.
enum ThreadExitHook {
    struct Entry {
        weak var realm: Realm?
        let identity: ObjectIdentifier
    }

    /// One thread's realms with a write transaction it began.
    final class Registrations {
        var entries: [Entry] = []
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
            for entry in registrations.entries {
                entry.realm?.cancelWriteOfExitingThread()
            }
        }
        return rc == 0 ? key : nil
    }()

    /// Note that the calling thread began a write transaction on `realm`.
    static func register(_ realm: Realm) {
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
        let identity = ObjectIdentifier(realm)
        if !registrations.entries.isEmpty {
            registrations.entries.removeAll { $0.identity == identity || $0.realm == nil }
        }
        registrations.entries.append(Entry(realm: realm, identity: identity))
    }

    /// Note that the calling thread ended its write transaction on `realm`.
    static func unregister(_ realm: Realm) {
        guard let key, let pointer = pthread_getspecific(key) else { return }
        let registrations = Unmanaged<Registrations>.fromOpaque(pointer).takeUnretainedValue()
        let identity = ObjectIdentifier(realm)
        if let index = registrations.entries.firstIndex(where: { $0.identity == identity }) {
            registrations.entries.remove(at: index)
        }
    }
}
