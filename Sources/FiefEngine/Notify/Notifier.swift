import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// What a realm-level callback is told (RealmSwift's `Realm.Notification`).
public enum RealmChange: Int32, Sendable {
    /// The realm's version moved on: a delivery advanced it, or the realm
    /// refreshed, began a write, or committed.
    case didChange = 1
    /// A newer version is ready but the realm does not refresh by itself
    /// (autorefresh is off): call `refresh` to read it.
    case refreshRequired = 2
}

/// What one delivery round hands every notifier of a realm.
public struct Delivery: Sendable {
    /// The version the realm reads now.
    public let version: UInt64
    /// What realm-level callbacks are told this round, if anything.
    public let realmChange: RealmChange?
    /// What made the round: collection notifiers deliver at the host's
    /// deliveries and before a write (but an `initial` waits for the host's
    /// delivery, so it shows the write), never inside the realm's own
    /// commit or refresh (`.afterChange`), where RealmSwift calls only the
    /// realm-level callbacks.
    public var kind: Realm.DeliveryKind = .pending
}

/// Something a realm observes (docs/design.md, "Notifiers").  The center's
/// worker calls `run(to:)` with one snapshot per run, for every notifier of
/// the file; the realm's delivery (`Realm.deliverNotifications`) then calls
/// `deliver` on the host's thread, outside the realm's lock.  Realm-level
/// observers are the first kind; results, object and collection notifiers
/// come next and compute their change sets in `run(to:)`.
public protocol Notifier: AnyObject, Sendable {
    /// On the worker: bring what this notifier observes up to `snapshot`.
    /// Returns whether it has something to deliver.
    func run(to snapshot: Snapshot) -> Bool
    /// On the delivering thread: call back with what the last run found.
    func deliver(_ delivery: Delivery)
    /// Stop for good: never called back again (from any thread, also from
    /// inside its own callback).  Idempotent.
    func release()
    /// Whether a run found something that waits for a delivery even when
    /// the realm's version did not move (a first `initial` call).
    var hasPendingDelivery: Bool { get }
    /// Leave out of the next change sets the commit `skip` is about to
    /// make (`Realm.commitWrite(withoutNotifying:)`).  Any thread.
    func skip(_ skip: CommitSkip)
}

extension Notifier {
    public var hasPendingDelivery: Bool { false }
}

/// A notifier's callback and the recursive mutex it runs under: a release
/// from another thread waits for a call in progress to end, and no call
/// begins after `release` returns; a release from inside the call (on the
/// same thread) just marks it.  What the callback captured goes outside the
/// mutex, unless a call still holds it (then at the end of that call).
final class CallbackSlot<Change>: @unchecked Sendable {
    private var callback: ((Change) -> Void)?
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ callback: @escaping (Change) -> Void) {
        self.callback = callback
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    var isReleased: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return callback == nil
    }

    /// Run `body` with the callback under the mutex, if not released (the
    /// callback is kept for the call: a release inside it only marks it).
    func withCallback(_ body: ((Change) -> Void) -> Void) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let callback { body(callback) }
    }

    /// Drop the callback; whether this was the release that dropped it.
    func release() -> Bool {
        pthread_mutex_lock(mutex)
        let dropped = callback
        callback = nil
        pthread_mutex_unlock(mutex)
        return dropped != nil
    }
}

/// A realm-level callback (RealmSwift's `Realm.observe`): told when the
/// realm's version moves on, or that a refresh is required.  The worker has
/// nothing to compute for it (the channel compares versions); the callback
/// runs in a `CallbackSlot`.
public final class RealmObserver: Notifier, @unchecked Sendable {
    /// Realm-level observers are told of every commit (RealmSwift skips
    /// only collection and object notifications).
    public func skip(_ skip: CommitSkip) {}

    private let channel: DeliveryChannel
    private let slot: CallbackSlot<RealmChange>

    init(channel: DeliveryChannel, callback: @escaping (RealmChange) -> Void) {
        self.channel = channel
        slot = CallbackSlot(callback)
    }

    public var isReleased: Bool { slot.isReleased }

    public func run(to snapshot: Snapshot) -> Bool { false }

    public func deliver(_ delivery: Delivery) {
        guard let change = delivery.realmChange else { return }
        slot.withCallback { $0(change) }
    }

    public func release() {
        if slot.release() { channel.remove(self) }
    }
}
