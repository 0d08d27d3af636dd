import CFief
import FiefEngine

// Lists: a handle names (realm, owner class, owner object, property); every
// call translates its arguments and calls the engine under the realm's lock.

/// What a collection handle names.  The realm is borrowed from the handle's
/// slot: use it within the call only.
struct CollectionBox {
    unowned(unsafe) let realm: Realm
    let table: UInt32
    let key: Int64
    let property: UInt32
}

@inline(__always)
func withList<R>(_ handle: OpaquePointer?, _ body: (CollectionBox) throws(FiefError) -> R) throws(FiefError) -> R {
    let box = try HandleTable.collection(UnsafeRawPointer(handle), .list)
    return try box.realm.lock.withLock { () throws(FiefError) -> R in try body(box) }
}

@_cdecl("fief_object_get_list")
public func exportObjectGetList(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let box = try withObject(handle) { (box) throws(FiefError) -> ObjectBox in
            _ = try box.realm.listCount(table: box.table, key: box.key, property: property)
            return box
        }
        return HandleTable.makeCollection(box.realm, .list, table: box.table, key: box.key, property: property)
    }
}

@_cdecl("fief_list_is_valid")
public func exportListIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let box = try? HandleTable.collection(UnsafeRawPointer(handle), .list) else { return false }
    return (try? box.realm.lock.withLock { () throws(FiefError) -> Bool in
        try box.realm.objectExists(table: box.table, key: box.key)
    }) ?? false
}

@_cdecl("fief_list_size")
public func exportListSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withList(handle) { (box) throws(FiefError) in
            try box.realm.listCount(table: box.table, key: box.key, property: box.property)
        }
        return true
    }
}

@_cdecl("fief_list_get")
public func exportListGet(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let index = try CArgs.index(index, "index")
        out.pointee = try withList(handle) { (box) throws(FiefError) in
            ValueBridge.cValue(try box.realm.listValue(table: box.table, key: box.key, property: box.property, index: index))
        }
        return true
    }
}

@_cdecl("fief_list_get_range")
public func exportListGetRange(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let out = try CArgs.outArray(out, count, "out_values", count: "count")
        try withList(handle) { (box) throws(FiefError) in
            try withValueBuffer(out.count) { (buffer) throws(FiefError) in
                try box.realm.listValues(table: box.table, key: box.key, property: box.property, start: start, into: buffer)
                for i in 0..<buffer.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_list_find")
public func exportListFind(_ handle: OpaquePointer?, _ value: fief_value_t, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outIndex = try require(outIndex, "out_index")
        let outFound = try require(outFound, "out_found")
        let wanted = try ValueBridge.engineValue(value, "value")
        let found = try withList(handle) { (box) throws(FiefError) in
            try box.realm.listFind(table: box.table, key: box.key, property: box.property, value: wanted)
        }
        outFound.pointee = found != nil
        outIndex.pointee = found ?? 0
        return true
    }
}

@_cdecl("fief_list_set")
public func exportListSet(_ handle: OpaquePointer?, _ index: Int, _ value: fief_value_t) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        let element = try ValueBridge.engineValue(value, "value")
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listSet(table: box.table, key: box.key, property: box.property, index: index, value: element)
        }
        return true
    }
}

@_cdecl("fief_list_insert")
public func exportListInsert(_ handle: OpaquePointer?, _ index: Int, _ value: fief_value_t) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        let element = try ValueBridge.engineValue(value, "value")
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listInsert(table: box.table, key: box.key, property: box.property, index: index, value: element)
        }
        return true
    }
}

@_cdecl("fief_list_append")
public func exportListAppend(_ handle: OpaquePointer?, _ values: UnsafePointer<fief_value_t>?, _ count: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let cValues = try CArgs.array(values, count, "values", count: "count")
        try withList(handle) { (box) throws(FiefError) in
            if cValues.count == 1 {
                // The common case, without an array.
                var one = try ValueBridge.engineValue(cValues[0], "values[0]")
                try withUnsafePointer(to: &one) { (p) throws(FiefError) in
                    try box.realm.listAppend(table: box.table, key: box.key, property: box.property, values: UnsafeBufferPointer(start: p, count: 1))
                }
                return
            }
            let converted = try ValueBridge.engineValues(cValues, "values")
            try converted.withUnsafeBufferPointer { (buffer) throws(FiefError) in
                try box.realm.listAppend(table: box.table, key: box.key, property: box.property, values: buffer)
            }
        }
        return true
    }
}

@_cdecl("fief_list_remove")
public func exportListRemove(_ handle: OpaquePointer?, _ index: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listRemove(table: box.table, key: box.key, property: box.property, index: index)
        }
        return true
    }
}

@_cdecl("fief_list_move")
public func exportListMove(_ handle: OpaquePointer?, _ from: Int, _ to: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let from = try CArgs.index(from, "from"), to = try CArgs.index(to, "to")
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listMove(table: box.table, key: box.key, property: box.property, from: from, to: to)
        }
        return true
    }
}

@_cdecl("fief_list_swap")
public func exportListSwap(_ handle: OpaquePointer?, _ i: Int, _ j: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let i = try CArgs.index(i, "i"), j = try CArgs.index(j, "j")
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listSwap(table: box.table, key: box.key, property: box.property, i, j)
        }
        return true
    }
}

@_cdecl("fief_list_clear")
public func exportListClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listClear(table: box.table, key: box.key, property: box.property)
        }
        return true
    }
}

@_cdecl("fief_list_remove_all")
public func exportListRemoveAll(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withList(handle) { (box) throws(FiefError) in
            try box.realm.listClear(table: box.table, key: box.key, property: box.property, deleteObjects: true)
        }
        return true
    }
}

@_cdecl("fief_list_insert_embedded")
public func exportListInsertEmbedded(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let index = try CArgs.index(index, "index")
        let (realm, created) = try withList(handle) { (box) throws(FiefError) in
            (box.realm, try box.realm.listInsertEmbedded(table: box.table, key: box.key, property: box.property, index: index))
        }
        return HandleTable.makeObject(realm, table: created.classKey, key: created.objectKey)
    }
}

@_cdecl("fief_list_resolve_in")
public func exportListResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_list")
        let box = try HandleTable.collection(UnsafeRawPointer(handle), .list)
        out.pointee = try resolveCollection(box, .list, in: target)
        return true
    }
}

@_cdecl("fief_list_to_results")
public func exportListToResults(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withList(handle) { (box) throws(FiefError) in try collectionResults(box) }
        return makeResultsHandle(results)
    }
}

/// A list, set or map as live results: of its objects, or of its values.
func collectionResults(_ box: CollectionBox) throws(FiefError) -> AnyResults {
    if try box.realm.collectionHoldsObjects(table: box.table, property: box.property) {
        return .objects(try Results(realm: box.realm, list: box.property, of: box.key, in: box.table))
    }
    return .values(try ValueResults(realm: box.realm, list: box.property, of: box.key, in: box.table))
}
