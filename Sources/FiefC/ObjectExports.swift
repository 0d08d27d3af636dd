import CFief
import FiefEngine
import FiefStorage

/// What an object handle names: a realm, a class and an object key.
struct ObjectBox {
    let realm: Realm
    let table: UInt32
    let key: Int64
}

/// Run `body` with the object behind `handle`, under its realm's lock.  The
/// box is made inside the handle's borrow: a call takes no reference.
@inline(__always)
func withObject<R>(_ handle: OpaquePointer?, _ body: (ObjectBox) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.withObject(UnsafeRawPointer(handle)) { (box) throws(FiefError) -> R in
        try box.realm.lock.withLock { () throws(FiefError) -> R in try body(box) }
    }
}

/// Run `body` with scratch space for `count` engine values (on the stack when small).
@inline(__always)
func withValueBuffer(_ count: Int, _ body: (UnsafeMutableBufferPointer<Value>) throws(FiefError) -> Void) throws(FiefError) {
    try typed {
        try withUnsafeTemporaryAllocation(of: Value.self, capacity: max(count, 1)) { buffer in
            let values = UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
            values.initialize(repeating: .null)
            defer { values.deinitialize() }
            try body(values)
        }
    }
}

func updatePolicy(_ raw: Int32) throws(FiefError) -> UpdatePolicy {
    guard let policy = UpdatePolicy(rawValue: raw) else { throw FiefError(.invalidArgument, "unknown update policy \(raw)") }
    return policy
}

@_cdecl("fief_object_create")
public func exportObjectCreate(_ realmHandle: OpaquePointer?, _ classKey: UInt32, _ properties: UnsafePointer<UInt32>?, _ values: UnsafePointer<fief_value_t>?, _ count: Int, _ policy: Int32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let (realm, key) = try withRealm(realmHandle) { (realm) throws(FiefError) -> (Realm, Int64) in
            let cValues = try CArgs.array(values, count, "values", count: "num_values")
            let keys = try CArgs.array(properties, count, "properties", count: "num_values")
            var key: Int64 = -1
            // Values go straight from the caller's array into the chunks.
            try realm.createObjects(table: classKey, properties: keys, rows: 1, policy: try updatePolicy(policy), keys: &key) { (_, column) throws(FiefError) in
                try ValueBridge.engineValue(cValues[column], "values[\(column)]")
            }
            return (realm, key)
        }
        return HandleTable.makeObject(realm, table: classKey, key: key)
    }
}

@_cdecl("fief_object_create_many")
public func exportObjectCreateMany(_ realmHandle: OpaquePointer?, _ classKey: UInt32, _ properties: UnsafePointer<UInt32>?, _ numProperties: Int, _ values: UnsafePointer<fief_value_t>?, _ numObjects: Int, _ policy: Int32, _ outKeys: UnsafeMutablePointer<Int64>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(realmHandle) { (realm) throws(FiefError) in
            let keys = try CArgs.array(properties, numProperties, "properties", count: "num_properties")
            let rows = try CArgs.count(numObjects, of: fief_object_key_t.self, "num_objects")
            let (total, overflow) = rows.multipliedReportingOverflow(by: keys.count)
            guard !overflow, total <= Int.max / MemoryLayout<fief_value_t>.stride else {
                throw FiefError(.invalidArgument, "num_objects x num_properties (\(rows) x \(keys.count)) is more than an array of fief_value_t can hold")
            }
            let cValues = try CArgs.array(values, total, "values", count: "num_objects x num_properties")
            let width = keys.count
            try realm.createObjects(table: classKey, properties: keys, rows: rows, policy: try updatePolicy(policy), keys: outKeys) { (row, column) throws(FiefError) in
                try ValueBridge.engineValue(cValues[row * width + column], "values[\(row * width + column)]")
            }
        }
        return true
    }
}

@_cdecl("fief_object_find_by_primary_key")
public func exportObjectFind(_ realmHandle: OpaquePointer?, _ classKey: UInt32, _ primaryKey: fief_value_t, _ outFound: UnsafeMutablePointer<Bool>?) -> OpaquePointer? {
    let result: OpaquePointer?? = guarded(nil) { () throws(FiefError) -> OpaquePointer?? in
        let (realm, key) = try withRealm(realmHandle) { (realm) throws(FiefError) -> (Realm, Int64?) in
            (realm, try realm.find(table: classKey, primaryKey: try ValueBridge.engineValue(primaryKey, "primary_key")))
        }
        guard let key else { return .some(nil) }
        return .some(HandleTable.makeObject(realm, table: classKey, key: key))
    }
    switch result {
    case .none:
        outFound?.pointee = true   // failed: the error is set
        return nil
    case .some(let handle):
        outFound?.pointee = handle != nil
        return handle
    }
}

@_cdecl("fief_object_get")
public func exportObjectGet(_ realmHandle: OpaquePointer?, _ classKey: UInt32, _ key: Int64) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let realm = try withRealm(realmHandle) { (realm) throws(FiefError) -> Realm in
            guard try realm.objectExists(table: classKey, key: key) else {
                if !realm.schema.classes.contains(where: { $0.key == classKey }) {
                    throw FiefError(.noSuchClass, "the realm has no class with key \(classKey)")
                }
                throw FiefError(.noSuchObject, "there is no object with key \(key) in class \(classKey)")
            }
            return realm
        }
        return HandleTable.makeObject(realm, table: classKey, key: key)
    }
}

@_cdecl("fief_object_is_valid")
public func exportObjectIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let box = try? HandleTable.object(UnsafeRawPointer(handle)) else { return false }
    return (try? box.realm.lock.withLock { () throws(FiefError) -> Bool in
        try box.realm.objectExists(table: box.table, key: box.key)
    }) ?? false
}

@_cdecl("fief_object_get_key")
public func exportObjectGetKey(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.object(UnsafeRawPointer(handle))
        try store(out, box.key, "out_key")
        return true
    }
}

@_cdecl("fief_object_get_class_key")
public func exportObjectGetClassKey(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.object(UnsafeRawPointer(handle))
        try store(out, box.table, "out_class_key")
        return true
    }
}

@_cdecl("fief_object_get_realm")
public func exportObjectGetRealm(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let box = try HandleTable.object(UnsafeRawPointer(handle))
        return HandleTable.make(RealmBox(box.realm), .realm)
    }
}

@_cdecl("fief_object_get_value")
public func exportObjectGetValue(_ handle: OpaquePointer?, _ property: UInt32, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        try withObject(handle) { (box) throws(FiefError) in
            out.pointee = ValueBridge.cValue(try box.realm.value(table: box.table, key: box.key, property: property))
        }
        return true
    }
}

@_cdecl("fief_object_get_values_by_key")
public func exportObjectGetValuesByKey(_ realmHandle: OpaquePointer?, _ classKey: UInt32, _ key: Int64, _ properties: UnsafePointer<UInt32>?,
                                       _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try CArgs.outArray(out, count, "out_values", count: "num_values")
        let keys = try CArgs.array(properties, count, "properties", count: "num_values")
        try withRealm(realmHandle) { (realm) throws(FiefError) in
            try withValueBuffer(keys.count) { (buffer) throws(FiefError) in
                do throws(FiefError) {
                    try realm.values(table: classKey, key: key, properties: keys, into: buffer)
                } catch {
                    // As fief_object_get: a key that names no object is not an invalidated handle.
                    if error.code == .invalidatedObject {
                        throw FiefError(.noSuchObject, "there is no object with key \(key) in class \(classKey)")
                    }
                    throw error
                }
                for i in 0..<keys.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_object_get_values")
public func exportObjectGetValues(_ handle: OpaquePointer?, _ properties: UnsafePointer<UInt32>?, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try CArgs.outArray(out, count, "out_values", count: "num_values")
        let keys = try CArgs.array(properties, count, "properties", count: "num_values")
        try withObject(handle) { (box) throws(FiefError) in
            try withValueBuffer(keys.count) { (buffer) throws(FiefError) in
                try box.realm.values(table: box.table, key: box.key, properties: keys, into: buffer)
                for i in 0..<keys.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_object_set_value")
public func exportObjectSetValue(_ handle: OpaquePointer?, _ property: UInt32, _ value: fief_value_t) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withObject(handle) { (box) throws(FiefError) in
            try box.realm.setValue(table: box.table, key: box.key, property: property, value: try ValueBridge.engineValue(value, "value"))
        }
        return true
    }
}

@_cdecl("fief_object_set_values")
public func exportObjectSetValues(_ handle: OpaquePointer?, _ properties: UnsafePointer<UInt32>?, _ values: UnsafePointer<fief_value_t>?, _ count: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let cValues = try CArgs.array(values, count, "values", count: "num_values")
        let keys = try CArgs.array(properties, count, "properties", count: "num_values")
        var converted = try ValueBridge.engineValues(cValues, "values")
        try withObject(handle) { (box) throws(FiefError) in
            try converted.withUnsafeMutableBufferPointer { (buffer) throws(FiefError) in
                try box.realm.setValues(table: box.table, key: box.key, properties: keys, values: buffer)
            }
        }
        return true
    }
}

@_cdecl("fief_object_delete")
public func exportObjectDelete(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withObject(handle) { (box) throws(FiefError) in try box.realm.deleteObject(table: box.table, key: box.key) }
        return true
    }
}

@_cdecl("fief_object_resolve_in")
public func exportObjectResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_object")
        let box = try HandleTable.object(UnsafeRawPointer(handle))
        try requireOpen(box.realm)
        let exists = try withRealm(target) { (realm) throws(FiefError) -> Realm? in
            try realm.checkOpenForC()
            guard realm.path == box.realm.path else { throw FiefError(.invalidArgument, "the target realm is another file") }
            return try realm.objectExists(table: box.table, key: box.key) ? realm : nil
        }
        out.pointee = try exists.map { (realm) throws(FiefError) -> OpaquePointer in
            guard let made = HandleTable.makeObject(realm, table: box.table, key: box.key) else {
                throw FiefError(.outOfMemory, "too many live handles")
            }
            return made
        }
        return true
    }
}
