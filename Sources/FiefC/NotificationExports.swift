import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// Notifications (fief.h, "Notifications"): realm-level callbacks, the
// notification fd, the wake-up callback and the host's delivery.

/// A host's callback data: `free` runs once, on the thread that drops the
/// last reference (the token's release, the replaced wake-up, or the end of
/// the delivery round that was calling it).
final class HostUserdata: @unchecked Sendable {
    let userdata: UnsafeMutableRawPointer?
    private(set) var free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

    init(_ userdata: UnsafeMutableRawPointer?, _ free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
        self.userdata = userdata
        self.free = free
    }

    deinit { free?(userdata) }

    /// The registration failed: the caller keeps `userdata`.
    func giveBack() { free = nil }
}

/// A notification token handle's object: the notifier, and the realm it
/// keeps alive.  Releasing the handle releases the notifier.
final class NotificationTokenBox {
    let realm: Realm
    let notifier: Notifier

    init(realm: Realm, notifier: Notifier) {
        self.realm = realm
        self.notifier = notifier
    }

    deinit { notifier.release() }
}

/// The realm behind a realm handle, retained: a delivery calls back, and a
/// callback may release the handle it was called through.
private func retainedRealm(_ handle: OpaquePointer?) throws(FiefError) -> Realm {
    try HandleTable.resolve(UnsafeRawPointer(handle), .realm, as: RealmBox.self).realm
}

/// After a commit, refresh or write begun through `handle`: tell the
/// realm's callbacks if its version moved (RealmSwift calls them there).
/// What the call itself did stands whatever this finds.
func notifyAfterChange(_ handle: OpaquePointer?) {
    guard let realm = try? retainedRealm(handle) else { return }
    _ = try? realm.deliverNotifications(.afterChange)
}

/// Before a write begins through `handle`: move to the newest version and
/// tell the callbacks (RealmSwift's `beginWrite`).
func deliverBeforeWrite(_ handle: OpaquePointer?) throws(FiefError) {
    guard let realm = try? retainedRealm(handle) else { return }
    try realm.deliverNotifications(.beforeWrite)
}

@_cdecl("fief_realm_add_notification_callback")
public func exportRealmAddNotificationCallback(_ handle: OpaquePointer?,
                                              _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
                                              _ userdata: UnsafeMutableRawPointer?,
                                              _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let callback = try require(callback, "callback")
        let realm = try retainedRealm(handle)
        let notifier = try realm.lock.withLock { () throws(FiefError) -> RealmObserver in
            try realm.checkOpenForC()
            // Made only once everything is checked: on failure the caller
            // keeps `userdata` (free_userdata is not called).
            if realm.isFrozen { throw FiefError(.frozen, "a frozen realm does not change and has no notifications") }
            if realm.isReadOnly { throw FiefError(.readOnly, "a read-only realm does not change and has no notifications") }
            let host = HostUserdata(userdata, freeUserdata)
            do throws(FiefError) {
                return try realm.addRealmObserver { change in callback(host.userdata, change.rawValue) }
            } catch {
                host.giveBack()
                throw error
            }
        }
        guard let token = HandleTable.make(NotificationTokenBox(realm: realm, notifier: notifier), .notificationToken) else {
            throw FiefError(.outOfMemory, "too many live handles")
        }
        return token
    }
}

@_cdecl("fief_realm_get_notification_fd")
public func exportRealmGetNotificationFD(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let fd = try withRealm(handle) { (realm) throws(FiefError) -> Int32 in try realm.notificationChannel().eventFD }
        try store(out, fd, "out_fd")
        return true
    }
}

@_cdecl("fief_realm_set_wakeup")
public func exportRealmSetWakeup(_ handle: OpaquePointer?,
                                 _ callback: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                 _ userdata: UnsafeMutableRawPointer?,
                                 _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in
            // Fails first (closed, frozen, read-only), before taking `userdata`.
            _ = try realm.notificationChannel()
            guard let callback else {
                try realm.setNotificationWakeup(nil)
                return
            }
            let host = HostUserdata(userdata, freeUserdata)
            try realm.setNotificationWakeup { callback(host.userdata) }
        }
        return true
    }
}

@_cdecl("fief_realm_deliver_notifications")
public func exportRealmDeliverNotifications(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let realm = try retainedRealm(handle)
        let delivered = try realm.deliverNotifications(.pending)
        out?.pointee = delivered
        return true
    }
}

@_cdecl("fief_realm_set_autorefresh")
public func exportRealmSetAutorefresh(_ handle: OpaquePointer?, _ on: Bool) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.setAutorefresh(on) }
        return true
    }
}

@_cdecl("fief_realm_get_autorefresh")
public func exportRealmGetAutorefresh(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let on = try withRealm(handle) { (realm) throws(FiefError) -> Bool in
            try realm.checkOpenForC()
            return realm.autorefresh
        }
        try store(out, on, "out_autorefresh")
        return true
    }
}
