import FiefStorage
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

/// How one live realm is woken and what it delivers (docs/design.md, "Who
/// computes, who delivers"): its notifiers, an eventfd readable while a
/// delivery is pending, and an optional wake-up callback the worker calls.
/// Made by the realm on first use; the realm's state here (`autorefresh`,
/// the versions delivered, `isDelivering`) is read and written under the
/// realm's lock, the rest under the channel's own.
public final class DeliveryChannel: @unchecked Sendable {
    let center: NotificationCenter
    /// Readable while a delivery is pending (reset by the delivery).
    public let eventFD: Int32
    private let lock = NotifyLock()
    private var notifiers: [Notifier] = []
    private var wakeup: (() -> Void)?
    private var pending = false
    private var isClosed = false
    /// The newest version the worker found, and the newest this channel
    /// knows the realm read (the worker wakes the realm for newer ones only).
    private var readyVersion: UInt64 = 0
    private var knownVersion: UInt64

    // Under the realm's lock:
    /// Whether a delivery moves the realm to the ready version (RealmSwift's `autorefresh`).
    var autorefresh = true
    /// The version the realm's realm-level callbacks were last told about.
    var deliveredVersion: UInt64
    /// The ready version a `.refreshRequired` was last sent for.
    var refreshRequiredVersion: UInt64 = 0
    /// Set while a delivery round calls back (a nested delivery returns at once).
    var isDelivering = false
    /// The versions this realm made by its own commits, the newest last (a
    /// few): object notifiers give no old values for them, as RealmSwift.
    private(set) var ownCommits: [UInt64] = []

    /// The realm committed `version` itself.  Under the realm's lock.
    func noteOwnCommit(_ version: UInt64) {
        if ownCommits.count == 32 { ownCommits.removeFirst() }
        ownCommits.append(version)
    }

    /// Whether the realm made any of versions `after + 1 ... through` itself
    /// (true when that is older than what is remembered).  Under the realm's lock.
    func madeOwnCommit(after: UInt64, through: UInt64) -> Bool {
        if let first = ownCommits.first, ownCommits.count == 32, after < first { return true }
        return ownCommits.contains { $0 > after && $0 <= through }
    }

    init(center: NotificationCenter, version: UInt64) throws(FiefError) {
        self.center = center
        knownVersion = version
        deliveredVersion = version
        eventFD = fief_eventfd_new()
        if eventFD < 0 { throw FiefError(.internal, "cannot make an eventfd for notifications: \(String(cString: strerror(errno)))") }
    }

    deinit {
        Glibc.close(eventFD)
        lock.destroy()
    }

    /// Whether any notifier is registered.
    var hasNotifiers: Bool { lock.locked { !notifiers.isEmpty } }

    func add(_ notifier: Notifier) {
        let first = lock.locked { () -> Bool in
            if isClosed { return false }
            notifiers.append(notifier)
            return notifiers.count == 1
        }
        // A notifier added beside others: the worker runs it now (its
        // `initial` must not wait for the next commit).
        if first { center.register(self) } else { center.wakeWorker() }
    }

    func remove(_ notifier: Notifier) {
        let last = lock.locked { () -> Bool in
            guard let index = notifiers.firstIndex(where: { $0 === notifier }) else { return false }
            notifiers.remove(at: index)
            return notifiers.isEmpty
        }
        if last { center.unregister(self) }
    }

    /// The realm closed or went: no more runs or wake-ups.  The notifiers
    /// stay released by their owners (none is called again).
    func close() {
        let (dropped, hadNotifiers) = lock.locked { () -> ([Notifier], Bool) in
            isClosed = true
            let list = notifiers
            notifiers = []
            let wake = wakeup
            wakeup = nil
            _ = wake
            return (list, !list.isEmpty)
        }
        if hadNotifiers { center.unregister(self) }
        _ = dropped
    }

    /// Set (or clear) the wake-up callback; the one it replaces is dropped
    /// on this thread, outside the channel's lock.
    func setWakeup(_ callback: (() -> Void)?) {
        var old = callback
        lock.locked { swap(&old, &wakeup) }
        _ = old
    }

    /// The notifiers, for one delivery round.
    func currentNotifiers() -> [Notifier] { lock.locked { notifiers } }

    /// The realm read `version` (a delivery, refresh or commit told it).
    func noteReached(_ version: UInt64) {
        lock.locked { if version > knownVersion { knownVersion = version } }
    }

    /// On the worker: run every notifier to `snapshot`, and if the realm
    /// has something new, mark the delivery pending and wake the realm.
    func workerReached(_ snapshot: Snapshot) {
        var changed = false
        for notifier in currentNotifiers() where notifier.run(to: snapshot) { changed = true }
        let wake = lock.locked { () -> (() -> Void)? in
            if isClosed { return nil }
            if snapshot.version > knownVersion {
                knownVersion = snapshot.version
                changed = true
            }
            guard changed else { return nil }
            if snapshot.version > readyVersion { readyVersion = snapshot.version }
            if !pending {
                pending = true
                var one: UInt64 = 1
                _ = write(eventFD, &one, 8)
            }
            return wakeup
        }
        wake?()
    }

    /// Take the pending delivery: the fd is no longer readable.  Returns
    /// the ready version.
    func takeReady() -> UInt64 {
        lock.locked { () -> UInt64 in
            if pending {
                pending = false
                var count: UInt64 = 0
                _ = read(eventFD, &count, 8)
            }
            return readyVersion
        }
    }
}

/// A mutex for the notification machinery's own state (never held while
/// calling out: callbacks, the realm's lock, LMDB).  Its owner frees it.
struct NotifyLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    func destroy() {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
