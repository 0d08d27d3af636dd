import CFief
import FiefEngine
import FiefStorage

// Lists: a handle names (realm, owner class, owner object, property); every
// call translates its arguments and calls the engine under the realm's lock.

/// What a collection handle names.  The realm is borrowed from the handle's
/// slot: use it within the call only.
struct CollectionBox {
    unowned(unsafe) var realm: Realm
    let table: UInt32
    let key: Int64
    let property: UInt32
    /// A nested list or dictionary's id (in a mixed value of `property`), or 0.
    var nested: Int64 = 0

    /// The nested collection the handle names, if it names one.
    var nestedRef: NestedRef? {
        nested == 0 ? nil : NestedRef(table: table, owner: key, property: property, id: nested)
    }
}

@inline(__always)
func withList<R>(_ handle: OpaquePointer?, _ body: (CollectionBox) throws(FiefError) -> R) throws(FiefError) -> R {
    let box = try HandleTable.collection(UnsafeRawPointer(handle), .list)
    return try box.realm.lock.withLock { () throws(FiefError) -> R in try body(box) }
}

@_cdecl("fief_object_get_list")
public func exportObjectGetList(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let (box, nested) = try withObject(handle) { (box) throws(FiefError) -> (ObjectBox, Int64) in
            if try box.realm.propertyIsMixed(table: box.table, property: property) {
                let id = try box.realm.propertyNestedID(table: box.table, key: box.key, property: property, .list)
                try box.realm.requireStoredNested(NestedRef(table: box.table, owner: box.key, property: property, id: id))
                return (box, id)
            }
            _ = try box.realm.listCount(table: box.table, key: box.key, property: property)
            return (box, 0)
        }
        return HandleTable.makeCollection(box.realm, .list, table: box.table, key: box.key, property: property, nested: nested)
    }
}

@_cdecl("fief_list_is_valid")
public func exportListIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let box = try? HandleTable.collection(UnsafeRawPointer(handle), .list) else { return false }
    return (try? box.realm.lock.withLock { () throws(FiefError) -> Bool in try box.exists() }) ?? false
}

@_cdecl("fief_list_count")
public func exportListSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withList(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedCount(nested) }
            return try box.realm.listCount(table: box.table, key: box.key, property: box.property)
        }
        return true
    }
}

@_cdecl("fief_list_get")
public func exportListGet(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let index = try CArgs.index(index, "index")
        out.pointee = try withList(handle) { (box) throws(FiefError) in ValueBridge.cValue(try box.listValue(index)) }
        return true
    }
}

@_cdecl("fief_list_get_range")
public func exportListGetRange(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let out = try CArgs.outArray(out, count, "out_values", count: "count")
        try withList(handle) { (box) throws(FiefError) in
            // A large count is checked against the size before its buffer is
            // made; a small one by the read itself (the same error), which
            // saves a size lookup per call.
            if out.count > CArgs.smallBuffer {
                let size = if let nested = box.nestedRef { try box.realm.nestedCount(nested) }
                           else { try box.realm.listCount(table: box.table, key: box.key, property: box.property) }
                try CArgs.range(start: start, count: out.count, within: size, "elements", of: box.nestedRef == nil ? "the list" : "the nested list")
            }
            try withValueBuffer(out.count) { (buffer) throws(FiefError) in
                if let nested = box.nestedRef {
                    try box.realm.nestedListValues(nested, start: start, into: buffer)
                } else {
                    try box.realm.listValues(table: box.table, key: box.key, property: box.property, start: start, into: buffer)
                }
                for i in 0..<buffer.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_list_index_of")
public func exportListFind(_ handle: OpaquePointer?, _ value: fief_value_t, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outIndex = try require(outIndex, "out_index")
        let outFound = try require(outFound, "out_found")
        let wanted = try ValueBridge.engineValue(value, "value")
        let found = try withList(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedListFind(nested, value: wanted) }
            return try box.realm.listFind(table: box.table, key: box.key, property: box.property, value: wanted)
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
            if let nested = box.nestedRef { return try box.realm.nestedListSet(nested, index: index, value: element) }
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
            if let nested = box.nestedRef { return try box.realm.nestedListInsert(nested, index: index, value: element) }
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
                try withUnsafePointer(to: &one) { (p) throws(FiefError) in try box.listAppend(UnsafeBufferPointer(start: p, count: 1)) }
                return
            }
            let converted = try ValueBridge.engineValues(cValues, "values")
            try converted.withUnsafeBufferPointer { (buffer) throws(FiefError) in try box.listAppend(buffer) }
        }
        return true
    }
}

@_cdecl("fief_list_remove")
public func exportListRemove(_ handle: OpaquePointer?, _ index: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        try withList(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedListRemove(nested, index: index) }
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
            if let nested = box.nestedRef { return try box.realm.nestedListMove(nested, from: from, to: to) }
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
            if let nested = box.nestedRef { return try box.realm.nestedListSwap(nested, i, j) }
            try box.realm.listSwap(table: box.table, key: box.key, property: box.property, i, j)
        }
        return true
    }
}

@_cdecl("fief_list_clear")
public func exportListClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withList(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedClear(nested) }
            try box.realm.listClear(table: box.table, key: box.key, property: box.property)
        }
        return true
    }
}

@_cdecl("fief_list_delete_all_objects")
public func exportListRemoveAll(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withList(handle) { (box) throws(FiefError) in
            if box.nested != 0 { throw FiefError(.invalidArgument, "a nested list holds mixed values, not objects: there is nothing to delete (clear it instead)") }
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
            if box.nested != 0 { throw FiefError(.invalidArgument, "a nested list holds mixed values, which are never embedded objects") }
            return (box.realm, try box.realm.listInsertEmbedded(table: box.table, key: box.key, property: box.property, index: index))
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
func collectionResults(_ box: CollectionBox) throws(FiefError) -> Results {
    if let nested = box.nestedRef { return try ValueResults(realm: box.realm, nested: nested) }
    if try box.realm.collectionHoldsObjects(table: box.table, property: box.property) {
        return try ObjectResults(realm: box.realm, list: box.property, of: box.key, in: box.table)
    }
    return try ValueResults(realm: box.realm, list: box.property, of: box.key, in: box.table)
}

extension CollectionBox {
    /// A new handle to the nested `kind` `id` in this collection (a list or map handle).
    func nestedHandle(_ kind: NestedKind, _ id: Int64) throws(FiefError) -> OpaquePointer? {
        try realm.requireStoredNested(NestedRef(table: table, owner: key, property: property, id: id))
        return HandleTable.makeCollection(realm, kind == .list ? .list : .map, table: table, key: key, property: property, nested: id)
    }

    /// Whether the collection still exists: its owner, and the nested collection if it is one.
    func exists() throws(FiefError) -> Bool {
        if let nested = nestedRef { return try realm.nestedExists(nested) }
        return try realm.objectExists(table: table, key: key)
    }

    /// Element `index` of the list (nested or not).
    func listValue(_ index: Int) throws(FiefError) -> Value {
        if let nested = nestedRef { return try realm.nestedListValue(nested, index: index) }
        return try realm.listValue(table: table, key: key, property: property, index: index)
    }

    func listAppend(_ values: UnsafeBufferPointer<Value>) throws(FiefError) {
        if let nested = nestedRef { return try realm.nestedListAppend(nested, values: values) }
        try realm.listAppend(table: table, key: key, property: property, values: values)
    }
}

// MARK: Nested collections

@_cdecl("fief_list_get_list")
public func exportListGetList(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    nestedFromList(handle, index, .list)
}

@_cdecl("fief_list_get_map")
public func exportListGetMap(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    nestedFromList(handle, index, .dictionary)
}

private func nestedFromList(_ handle: OpaquePointer?, _ index: Int, _ kind: NestedKind) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let index = try CArgs.index(index, "index")
        let (box, id) = try withList(handle) { (box) throws(FiefError) -> (CollectionBox, Int64) in
            (box, try Realm.nestedID(in: try box.listValue(index), kind, "element \(index)"))
        }
        return try box.nestedHandle(kind, id)
    }
}
