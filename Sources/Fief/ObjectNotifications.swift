import CFief
import Foundation

// Object notifications (RealmSwift's `Object.observe`, `ObjectChange`,
// `PropertyChange`), over fief.h's object callbacks.
//
// Without a queue, the block is called where the object's realm delivers
// (the registering thread's run loop, or the main queue; see
// Notifications.swift).  With a queue, the object is resolved in a live realm
// of its own, not cached for any thread, whose deliveries are scheduled on
// that queue: the block gets that realm's object, as RealmSwift gives one
// confined to the queue.  One realm per registration, not per queue: a
// shared one would have to be refreshed by the registering thread (to find
// an object committed since its last delivery) while the queue may be
// reading it in another block; a thawed realm shares the file's environment,
// so each costs a handle and a read snapshot, no file open.

/// A property that changed in an object notification.
public struct PropertyChange: @unchecked Sendable {
    /// The name of the property which changed.
    public let name: String
    /// The value before the change; nil when the change was made by the
    /// observing realm itself, and for collection properties (as RealmSwift).
    /// A link gives the object linked to before, read at the new version.
    public let oldValue: Any?
    /// The value after the change; nil for collection properties.
    public let newValue: Any?
}

/// What an object notification block is told.
public enum ObjectChange<T> {
    /// Never delivered: kept for RealmSwift source compatibility.
    case error(_ error: NSError)
    /// One or more properties of the object changed.
    case change(_: T, _: [PropertyChange])
    /// The object was deleted from the realm (the block is not called again).
    case deleted
}

extension ObjectBase {
    /// Calls `block` after each commit that deletes the object or writes any
    /// of its properties (fief_object_add_notification_callback), several
    /// commits coalesced into one call.  With `keyPaths`, only changes of
    /// the properties they name, through links and lists too (`"dog.name"`
    /// reports `dog` when the linked dog's name changes); without, the
    /// object's own properties (a change inside a linked object is not one).
    /// With `queue`, the block runs on it with the object read in a realm
    /// confined to it; without, on the registering thread's run loop (or the
    /// main queue).  Traps, as RealmSwift does, for an unmanaged, frozen or
    /// deleted object, inside a write transaction, and for a key path that
    /// names nothing.
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil,
                                       on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        _fiefObserve(keyPaths: keyPaths, on: queue, block)
    }

    /// As `observe(keyPaths:on:_:)`, with the key paths given as Swift key paths.
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>],
                                       on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        _fiefObserve(keyPaths: keyPaths.map(_name(for:)), on: queue, block)
    }

    func _fiefObserve<T>(keyPaths: [String]?, on queue: DispatchQueue?, _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let managed = _fiefManaged else {
            preconditionFailure("Only objects which are managed by a Realm support change notifications")
        }
        if managed.core.isFrozen {
            preconditionFailure("Frozen Objects do not change and cannot be observed.")
        }
        let core: RealmCore
        let observed: ObjectBase
        if let queue {
            guard let own = managed.core.uncachedLiveCore() else {
                fiefTrap("Cannot open a realm to deliver on the queue", CError.last())
            }
            guard let raw = fief_object_get(own.handle.raw, managed.binding.classKey, managed.objectKey) else {
                fiefTrap("Object has been deleted or invalidated.", CError.last())
            }
            own.deliverOn(queue)
            core = own
            observed = own.makeObject(type(of: self), handle: raw, binding: managed.binding)
        } else {
            managed.core.scheduleDeliveries()
            core = managed.core
            observed = self
        }
        guard let object = observed as? T else {
            preconditionFailure("Cannot observe a '\(managed.binding.info.className)' object as \(T.self)")
        }
        let binding = managed.binding
        let realm = Realm(core: core)
        let box = ObjectObserverBox(object: observed) { changes in
            var deleted = false
            _ = fief_object_changes_is_deleted(changes, &deleted)
            if deleted {
                block(.deleted)
                return
            }
            var count = 0
            _ = fief_object_changes_get_count(changes, &count)
            var keys = [fief_property_key_t](repeating: 0, count: count)
            _ = fief_object_changes_get_properties(changes, &keys, count, nil)
            var properties: [PropertyChange] = []
            for key in keys {
                // Columns the model does not declare are not reported.
                guard let index = binding.propertyKeys.firstIndex(of: key) else { continue }
                let info = binding.info.properties[index]
                var value = fief_value_t()
                var has = false
                let old = fief_object_changes_get_old_value(changes, key, &value, &has) && has
                    ? propertyChangeValue(value, info, core: core, realm: realm) : nil
                let new = fief_object_changes_get_new_value(changes, key, &value, &has) && has
                    ? propertyChangeValue(value, info, core: core, realm: realm) : nil
                properties.append(PropertyChange(name: info.name, oldValue: old, newValue: new))
            }
            if !properties.isEmpty { block(.change(object, properties)) }
        }
        let userdata = Unmanaged.passRetained(box).toOpaque()
        let token: OpaquePointer? = (keyPaths ?? []).withCStrings { paths in
            fief_object_add_notification_callback(observed._fiefManaged!.handle.raw, paths.baseAddress, paths.count, { userdata, changes in
                Unmanaged<ObjectObserverBox>.fromOpaque(userdata!).takeUnretainedValue().deliver(changes)
            }, userdata, { userdata in
                Unmanaged<ObjectObserverBox>.fromOpaque(userdata!).release()
            })
        }
        guard let token else {
            Unmanaged<ObjectObserverBox>.fromOpaque(userdata).release()
            let error = CError.last()
            switch error.code {
            case FIEF_ERR_NO_SUCH_PROPERTY: preconditionFailure(error.message)
            case FIEF_ERR_INVALIDATED_OBJECT: preconditionFailure("Object has been deleted or invalidated.")
            case FIEF_ERR_ALREADY_IN_TRANSACTION: preconditionFailure("Cannot register notification blocks from within write transactions.")
            case FIEF_ERR_FROZEN: preconditionFailure("Frozen Objects do not change and cannot be observed.")
            default: fiefTrap("Cannot add an object notification block", error)
            }
        }
        return NotificationToken(handle: token)
    }
}

/// A changed property's value as `PropertyChange` gives it: as the
/// property's Swift type stores it (`value(forKey:)`'s form); a link to an
/// object deleted since gives nil.
private func propertyChangeValue(_ value: fief_value_t, _ info: PropertyInfo, core: RealmCore, realm: Realm) -> Any? {
    if value.type == FIEF_TYPE_NULL { return nil }
    if value.type == FIEF_TYPE_LINK {
        guard let raw = fief_object_get(core.handle.raw, value.u.link.class_key, value.u.link.object_key) else { return nil }
        _ = fief_release(UnsafeRawPointer(raw))
    }
    guard let typed = info.valueType._fiefRead(value, in: realm) else { return nil }
    return typed._fiefStored
}

/// An object block and the object it is given (the C callback's userdata).
private final class ObjectObserverBox: @unchecked Sendable {
    let object: ObjectBase
    let deliver: (OpaquePointer?) -> Void

    init(object: ObjectBase, deliver: @escaping (OpaquePointer?) -> Void) {
        self.object = object
        self.deliver = deliver
    }
}

/// Schedules a realm's deliveries on a dispatch queue.
private final class QueueDelivery: @unchecked Sendable {
    private weak var core: RealmCore?
    private let queue: DispatchQueue

    init(core: RealmCore, queue: DispatchQueue) {
        self.core = core
        self.queue = queue
    }

    /// On the worker thread: one delivery on the queue.
    func schedule() {
        queue.async { [weak self] in
            guard let core = self?.core else { return }
            _ = fief_realm_deliver_notifications(core.handle.raw, nil)
        }
    }
}

extension RealmCore {
    /// Deliver this realm's notifications on `queue` (its wake-up schedules them there).
    func deliverOn(_ queue: DispatchQueue) {
        let scheduler = Unmanaged.passRetained(QueueDelivery(core: self, queue: queue)).toOpaque()
        if !fief_realm_set_wakeup(handle.raw, { userdata in
            Unmanaged<QueueDelivery>.fromOpaque(userdata!).takeUnretainedValue().schedule()
        }, scheduler, { userdata in
            Unmanaged<QueueDelivery>.fromOpaque(userdata!).release()
        }) {
            Unmanaged<QueueDelivery>.fromOpaque(scheduler).release()
        }
    }
}

extension Array where Element == String {
    /// `body` with the strings as C strings, valid during the call.
    fileprivate func withCStrings<R>(_ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer(body)
    }
}
