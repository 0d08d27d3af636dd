import CFief
import FiefEngine
import FiefStorage

// Object notifications (fief.h, "Notifications", object callbacks):
// registration on an object handle, and the readers of the change handle a
// callback is given (valid during the callback only).

/// An object change handle's object: what the callback is told, with the
/// two versions its values are read from.
final class ObjectChangesBox {
    let notification: ObjectNotification
    init(_ notification: ObjectNotification) { self.notification = notification }
}

@_cdecl("fief_object_add_notification_callback")
public func exportObjectAddNotificationCallback(_ handle: OpaquePointer?, _ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int,
                                               _ callback: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void)?,
                                               _ userdata: UnsafeMutableRawPointer?,
                                               _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let callback = try require(callback, "callback")
        let object = try HandleTable.object(UnsafeRawPointer(handle))
        var paths: [String]?
        if count > 0 {
            let pointers = try CArgs.array(keyPaths, count, "key_paths", count: "num_key_paths")
            var list: [String] = []
            for pointer in pointers { list.append(try cString(pointer, "key_paths[\(list.count)]")) }
            paths = list
        }
        let realm = object.realm
        let notifier = try realm.lock.withLock { () throws(FiefError) -> ObjectNotifier in
            try realm.checkOpenForC()
            // The userdata is taken only once registration succeeds: on
            // failure the caller keeps it (free_userdata is not called).
            let host = HostUserdata(userdata, freeUserdata)
            do throws(FiefError) {
                return try realm.addObjectNotifier(table: object.table, key: object.key, keyPaths: paths) { note in
                    guard let changes = HandleTable.make(ObjectChangesBox(note), .objectChanges) else { return }
                    callback(host.userdata, changes)
                    _ = HandleTable.release(UnsafeRawPointer(changes))
                }
            } catch {
                host.giveBack()
                throw error
            }
        }
        guard let token = HandleTable.make(NotificationTokenBox(realm: realm, notifier: notifier), .notificationToken) else {
            notifier.release()
            throw FiefError(.outOfMemory, "too many live handles")
        }
        return token
    }
}

/// `body` with the notification behind a change handle.
private func withObjectChanges<R>(_ handle: OpaquePointer?, _ body: (ObjectNotification) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .objectChanges, as: ObjectChangesBox.self) { (box) throws(FiefError) -> R in
        try body(box.notification)
    }
}

@_cdecl("fief_object_changes_is_deleted")
public func exportObjectChangesIsDeleted(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let deleted = try withObjectChanges(handle) { (note) throws(FiefError) -> Bool in note.isDeleted }
        try store(out, deleted, "out_deleted")
        return true
    }
}

@_cdecl("fief_object_changes_get_count")
public func exportObjectChangesGetCount(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let count = try withObjectChanges(handle) { (note) throws(FiefError) -> Int in note.changedProperties.count }
        try store(out, count, "out_count")
        return true
    }
}

@_cdecl("fief_object_changes_get_properties")
public func exportObjectChangesGetProperties(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?, _ capacity: Int,
                                             _ outCount: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let properties = try withObjectChanges(handle) { (note) throws(FiefError) -> [UInt32] in note.changedProperties }
        let buffer = try CArgs.outArray(out, capacity, "out_properties", count: "capacity")
        let written = min(buffer.count, properties.count)
        for i in 0..<written { buffer[i] = properties[i] }
        outCount?.pointee = written
        return true
    }
}

@_cdecl("fief_object_changes_get_old_value")
public func exportObjectChangesGetOldValue(_ handle: OpaquePointer?, _ property: UInt32, _ out: UnsafeMutablePointer<fief_value_t>?,
                                           _ outHasValue: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let hasValue = try require(outHasValue, "out_has_value")
        let value = try withObjectChanges(handle) { (note) throws(FiefError) -> Value? in try note.oldValue(property) }
        out.pointee = ValueBridge.cValue(value ?? .null)
        hasValue.pointee = value != nil
        return true
    }
}

@_cdecl("fief_object_changes_get_new_value")
public func exportObjectChangesGetNewValue(_ handle: OpaquePointer?, _ property: UInt32, _ out: UnsafeMutablePointer<fief_value_t>?,
                                           _ outHasValue: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let hasValue = try require(outHasValue, "out_has_value")
        let value = try withObjectChanges(handle) { (note) throws(FiefError) -> Value? in try note.newValue(property) }
        out.pointee = ValueBridge.cValue(value ?? .null)
        hasValue.pointee = value != nil
        return true
    }
}
