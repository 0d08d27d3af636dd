import CFief
import Foundation

// Realm notifications (RealmSwift's `Realm.observe`, `NotificationToken`,
// `autorefresh`), over fief.h's "Notifications" section.
//
// Delivery (how RealmSwift's "on the next cycle of the run loop" is kept):
// the first `observe` on a realm sets its wake-up (fief_realm_set_wakeup) to
// schedule fief_realm_deliver_notifications where the observer registered:
// on the main thread through DispatchQueue.main; on another thread through
// that thread's RunLoop (as RealmSwift, such a thread must run its run loop
// to get notifications; a thread that does not still gets them from its
// own commits, refreshes and writes, which call back at once).  The realm's
// own commit, `refresh()` and `beginWrite()` call `.didChange` synchronously,
// as RealmSwift's do.

/// A token for a registered notification block (RealmSwift's
/// `NotificationToken`): `invalidate()` stops the notifications (also from
/// inside the block, and from another thread); so does releasing the token.
public class NotificationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: OpaquePointer?

    init(handle: OpaquePointer?) {
        self.handle = handle
    }

    /// Stops the notifications this token was returned for (fief_release);
    /// calling it again does nothing.
    public func invalidate() {
        let taken: OpaquePointer? = lock.withLock {
            let current = handle
            handle = nil
            return current
        }
        if let taken { _ = fief_release(UnsafeRawPointer(taken)) }
    }

    deinit { invalidate() }

    /// The token's handle, nil once invalidated (write(withoutNotifying:)).
    var currentHandle: OpaquePointer? { lock.withLock { handle } }
}

extension Realm {
    /// What a realm notification block is told.
    public enum Notification: String, Sendable {
        /// The realm's data changed: a write was committed (here, or elsewhere
        /// and the realm refreshed).
        case didChange = "RLMRealmDidChangeNotification"
        /// Another writer committed and the realm does not refresh by itself
        /// (`autorefresh` is false): call `refresh()` to see it.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// A realm notification block: the notification and the realm.
    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void

    /// Calls `block` whenever the realm changes (fief_realm_add_notification_callback):
    /// `.didChange` at once after this realm's own commit, `refresh()` or
    /// `beginWrite()` moved its version, and on the registering thread's
    /// run loop after another thread or process committed (the realm then
    /// refreshes first, with `autorefresh`); `.refreshRequired` there
    /// instead when `autorefresh` is false.  Keep the token and invalidate
    /// it to stop.  Traps for frozen and read-only realms, as RealmSwift does.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        core.scheduleDeliveries()
        let box = Unmanaged.passRetained(ObserverBox(block: block, realm: self)).toOpaque()
        guard let token = fief_realm_add_notification_callback(core.handle.raw, { userdata, notification in
            let box = Unmanaged<ObserverBox>.fromOpaque(userdata!).takeUnretainedValue()
            box.block(notification == FIEF_REALM_REFRESH_REQUIRED ? .refreshRequired : .didChange, box.realm)
        }, box, { userdata in
            Unmanaged<ObserverBox>.fromOpaque(userdata!).release()
        }) else {
            Unmanaged<ObserverBox>.fromOpaque(box).release()
            let error = CError.last()
            switch error.code {
            case FIEF_ERR_FROZEN:
                fiefTrap("Frozen Realms do not change and do not have change notifications.", error)
            case FIEF_ERR_READ_ONLY:
                fiefTrap("Read-only Realms do not change and do not have change notifications.", error)
            default:
                fiefTrap("Cannot add a notification block", error)
            }
        }
        return NotificationToken(handle: token)
    }

    /// Whether the realm moves to the newest version by itself when another
    /// thread or process commits (fief_realm_set_autorefresh); default true.
    /// False on a frozen realm; setting it true there traps, as RealmSwift does.
    public var autorefresh: Bool {
        get {
            var on = false
            _ = fief_realm_get_autorefresh(core.handle.raw, &on)
            return on
        }
        nonmutating set {
            if !fief_realm_set_autorefresh(core.handle.raw, newValue) {
                let error = CError.last()
                if error.code == FIEF_ERR_FROZEN { fiefTrap("Auto-refresh cannot be enabled for frozen Realms.", error) }
                // Read-only realms never change: nothing to turn off.
            }
        }
    }
}

/// A notification block and the realm it is given (the C callback's userdata).
private final class ObserverBox: @unchecked Sendable {
    let block: Realm.NotificationBlock
    let realm: Realm

    init(block: @escaping Realm.NotificationBlock, realm: Realm) {
        self.block = block
        self.realm = realm
    }
}

/// Where a realm's deliveries run: the main queue, or one thread's run loop.
final class DeliveryScheduler: @unchecked Sendable {
    private weak var core: RealmCore?
    private let runLoop: RunLoop?

    init(core: RealmCore) {
        self.core = core
        runLoop = Thread.isMainThread ? nil : RunLoop.current
    }

    /// On the worker thread: schedule one delivery, no more.
    func schedule() {
        if let runLoop {
            // A timer wakes the run loop from any thread (CFRunLoopAddTimer is thread-safe).
            let timer = Timer(timeInterval: 0, repeats: false) { [weak self] _ in self?.deliver() }
            runLoop.add(timer, forMode: .default)
        } else {
            DispatchQueue.main.async { [weak self] in self?.deliver() }
        }
    }

    private func deliver() {
        guard let core else { return }
        _ = fief_realm_deliver_notifications(core.handle.raw, nil)
    }
}

extension RealmCore {
    /// Set the realm's wake-up to deliver where this thread runs, once
    /// (the first `observe` decides, as the thread a RealmSwift realm is
    /// confined to).
    func scheduleDeliveries() {
        guard claimDeliveryScheduling() else { return }
        let scheduler = Unmanaged.passRetained(DeliveryScheduler(core: self)).toOpaque()
        if !fief_realm_set_wakeup(handle.raw, { userdata in
            Unmanaged<DeliveryScheduler>.fromOpaque(userdata!).takeUnretainedValue().schedule()
        }, scheduler, { userdata in
            Unmanaged<DeliveryScheduler>.fromOpaque(userdata!).release()
        }) {
            // Frozen or read-only: observe reports it.
            Unmanaged<DeliveryScheduler>.fromOpaque(scheduler).release()
        }
    }
}

// MARK: Results notifications (fief_results_add_notification_callback)

/// How a collection changed (RealmSwift's `RealmCollectionChange`): the
/// first call is `.initial` with the collection; later ones `.update` with
/// the rows deleted (indices before the change), inserted and modified
/// (indices after); `.error` when it cannot be observed any more.
@frozen public enum RealmCollectionChange<CollectionType> {
    case initial(CollectionType)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(Error)
}

/// A results block, type-erased for the C callback's userdata: told the
/// change handle during the call.
final class CollectionObserverBox: @unchecked Sendable {
    let call: (OpaquePointer?) -> Void

    init(call: @escaping (OpaquePointer?) -> Void) { self.call = call }
}

/// The change set behind `changes` as RealmSwift's enum (read during the C call).
func collectionChange<Collection>(_ changes: OpaquePointer?, _ collection: Collection) -> RealmCollectionChange<Collection> {
    var failed = false
    var error = fief_error_t()
    if fief_collection_changes_get_error(changes, &failed, &error), failed {
        let cError = CError(code: error.code, categories: error.categories,
                            message: error.message.map { String(cString: $0) } ?? "",
                            path: error.path.map { String(cString: $0) })
        return .error(Realm.Error(cError))
    }
    var initial = false
    _ = fief_collection_changes_get_flags(changes, &initial, nil, nil)
    if initial { return .initial(collection) }
    var counts = (0, 0, 0)
    _ = fief_collection_changes_get_counts(changes, &counts.0, &counts.1, &counts.2, nil)
    var deletions = [Int](repeating: 0, count: counts.0)
    var insertions = [Int](repeating: 0, count: counts.1)
    var modifications = [Int](repeating: 0, count: counts.2)
    let capacity = max(counts.0, counts.1, counts.2)
    deletions.withUnsafeMutableBufferPointer { d in
        insertions.withUnsafeMutableBufferPointer { i in
            modifications.withUnsafeMutableBufferPointer { m in
                _ = fief_collection_changes_get_indices(changes, capacity, d.baseAddress, i.baseAddress, nil, m.baseAddress, nil, nil)
            }
        }
    }
    return .update(collection, deletions: deletions, insertions: insertions, modifications: modifications)
}

extension RealmCore {
    /// Register `block` for the results `handle` (the overlay's one path for
    /// every results-backed collection): deliveries where this thread runs
    /// (see `scheduleDeliveries`), or, with `queue`, handed to it.  Traps
    /// where RealmSwift throws or traps: inside a write transaction, on
    /// frozen collections, for a key path that names no property.
    func observeResults<Collection>(_ handle: CHandle, _ collection: Collection, keyPaths: [String]?, queue: DispatchQueue?,
                                    _ block: @escaping (RealmCollectionChange<Collection>) -> Void) -> NotificationToken {
        addCollectionCallback(handle, keyPaths: keyPaths) { changes in
            handOver(collectionChange(changes, collection), to: queue, block)
        }
    }

    /// Register `call` for the collection `handle` through `register`
    /// (results by default: fief_results_add_notification_callback; lists,
    /// sets and maps give theirs), told the C change handle during each
    /// delivery.  Traps where RealmSwift does: inside a write transaction,
    /// on frozen collections, for an unknown key path, for a collection
    /// whose object was deleted (`invalidated`'s message, `kind` naming it).
    func addCollectionCallback(_ handle: CHandle, keyPaths: [String]?, kind: String = "collection",
                               register: CollectionRegistration = { fief_results_add_notification_callback($0, $1, $2, $3, $4, $5) },
                               _ call: @escaping (OpaquePointer?) -> Void) -> NotificationToken {
        if !isFrozen { scheduleDeliveries() }
        let box = Unmanaged.passRetained(CollectionObserverBox(call: call)).toOpaque()
        let callback: fief_collection_changes_fn = { userdata, changes in
            Unmanaged<CollectionObserverBox>.fromOpaque(userdata!).takeUnretainedValue().call(changes)
        }
        let paths = keyPaths ?? []
        let token = withCStrings(paths) { pointers in
            register(handle.raw, keyPaths == nil ? nil : pointers, paths.count, callback, box) { userdata in
                Unmanaged<CollectionObserverBox>.fromOpaque(userdata!).release()
            }
        }
        guard let token else {
            Unmanaged<CollectionObserverBox>.fromOpaque(box).release()
            let error = CError.last()
            switch error.code {
            case FIEF_ERR_FROZEN:
                fiefTrap("Frozen Realms do not change and do not have change notifications.", error)
            case FIEF_ERR_ALREADY_IN_TRANSACTION:
                fiefTrap("Cannot register notification blocks from within write transactions.", error)
            case FIEF_ERR_READ_ONLY:
                fiefTrap("Read-only Realms do not change and do not have change notifications.", error)
            case FIEF_ERR_INVALIDATED_OBJECT:
                fiefTrap("Access to invalidated \(kind) object", error)
            default:
                fiefTrap("Cannot observe the \(kind): \(error.message)", error)
            }
        }
        return NotificationToken(handle: token)
    }
}

/// The C registration of one kind of collection
/// (fief_results_/_list_/_set_/_map_add_notification_callback).
typealias CollectionRegistration = @Sendable (OpaquePointer?, UnsafePointer<UnsafePointer<CChar>?>?, Int,
                                              fief_collection_changes_fn?, UnsafeMutableRawPointer?, fief_free_fn?) -> OpaquePointer?

/// Call `block` with `change` here, or hand it to `queue` (RealmSwift
/// hands queued deliveries to the queue as they are).
func handOver<Change>(_ change: Change, to queue: DispatchQueue?, _ block: @escaping (Change) -> Void) {
    if let queue {
        let call = QueuedCall { block(change) }
        queue.async { call.run() }
    } else {
        block(change)
    }
}

/// A delivery handed to a queue (the block and its change are the
/// caller's: RealmSwift does not require them to be Sendable).
struct QueuedCall: @unchecked Sendable {
    let run: () -> Void
}

/// Run `body` with `strings` as an array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}

extension Results {
    /// Calls `block` with `.initial(results)` at the next delivery, then
    /// `.update` whenever a commit changes them (RealmSwift's
    /// `Results.observe`): on the registering thread's run loop (the main
    /// queue on the main thread), or on `queue`.  `keyPaths` limit what
    /// counts as a modification (nil: every property of the objects and of
    /// the objects their links reach, to a depth of 4).  The results hold
    /// the delivered rows when the block runs.  Traps inside a write
    /// transaction and for frozen results, as RealmSwift does.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        core.observeResults(handle, self, keyPaths: keyPaths, queue: queue, block)
    }
}

extension Results where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` with key paths of the element type (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension LinkingObjects {
    /// Linking objects are results: see `Results.observe(keyPaths:on:_:)`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects>) -> Void) -> NotificationToken {
        guard let results else { preconditionFailure("Cannot observe the linking objects of an unmanaged object") }
        return results.core.observeResults(results.handle, self, keyPaths: keyPaths, queue: queue, block)
    }
}

extension AnyRealmCollection {
    /// Observe the results behind the collection (see
    /// `Results.observe(keyPaths:on:_:)`); traps for an unmanaged one.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection>) -> Void) -> NotificationToken {
        // A list or set observes itself (its values too); anything else its results.
        if let notifying = box.notifying { return notifying.fiefObserve(self, keyPaths: keyPaths, queue: queue, block) }
        let results = box.results("observe")
        return results.core.observeResults(results.handle, self, keyPaths: keyPaths, queue: queue, block)
    }
}
