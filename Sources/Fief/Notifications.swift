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
