import CFief
import FiefEngine
import FiefStorage

// Lists: a handle names a list (`CollectionRef`: a list property of an
// object, or a list nested in a mixed value); every call translates its
// arguments, takes the list's accessor and makes one call under the
// realm's lock.

@inline(__always)
func withList<R>(_ handle: OpaquePointer?, _ body: (ListAccess) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.withList(UnsafeRawPointer(handle)) { (list) throws(FiefError) -> R in
        try list.realm.lock.withLock { () throws(FiefError) -> R in try body(list) }
    }
}

@_cdecl("fief_object_get_list")
public func exportObjectGetList(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let (box, ref) = try withObject(handle) { (box) throws(FiefError) -> (ObjectBox, CollectionRef) in
            (box, try box.realm.collection(.list, table: box.table, owner: box.key, property: property))
        }
        return HandleTable.makeCollection(box.realm, ref)
    }
}

@_cdecl("fief_list_is_valid")
public func exportListIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let list = try? HandleTable.list(UnsafeRawPointer(handle)) else { return false }
    return (try? list.realm.lock.withLock { () throws(FiefError) -> Bool in try list.realm.collectionExists(list.ref) }) ?? false
}

@_cdecl("fief_list_count")
public func exportListSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withList(handle) { (list) throws(FiefError) in try list.count() }
        return true
    }
}

@_cdecl("fief_list_get")
public func exportListGet(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let index = try CArgs.index(index, "index")
        out.pointee = try withList(handle) { (list) throws(FiefError) in ValueBridge.cValue(try list.value(at: index)) }
        return true
    }
}

@_cdecl("fief_list_get_range")
public func exportListGetRange(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let out = try CArgs.outArray(out, count, "out_values", count: "count")
        try withList(handle) { (list) throws(FiefError) in
            // A large count is checked against the size before its buffer is
            // made; a small one by the read itself (the same error).
            if out.count > CArgs.smallBuffer { try list.checkRange(start: start, count: out.count) }
            try withValueBuffer(out.count) { (buffer) throws(FiefError) in
                try list.values(from: start, into: buffer)
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
        let found = try withList(handle) { (list) throws(FiefError) in try list.firstIndex(of: wanted) }
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
        try withList(handle) { (list) throws(FiefError) in try list.set(element, at: index) }
        return true
    }
}

@_cdecl("fief_list_insert")
public func exportListInsert(_ handle: OpaquePointer?, _ index: Int, _ value: fief_value_t) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        let element = try ValueBridge.engineValue(value, "value")
        try withList(handle) { (list) throws(FiefError) in try list.insert(element, at: index) }
        return true
    }
}

@_cdecl("fief_list_append")
public func exportListAppend(_ handle: OpaquePointer?, _ values: UnsafePointer<fief_value_t>?, _ count: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let cValues = try CArgs.array(values, count, "values", count: "count")
        try withList(handle) { (list) throws(FiefError) in
            if cValues.count == 1 {
                // The common case: no buffer, and no closure holding the accessor.
                return try list.append(try ValueBridge.engineValue(cValues[0], "values[0]"))
            }
            // Converted into a temporary buffer (no array).
            try withValueBuffer(cValues.count) { (buffer) throws(FiefError) in
                for i in 0..<cValues.count { buffer[i] = try ValueBridge.engineValue(cValues[i], "values[\(i)]") }
                try list.append(UnsafeBufferPointer(buffer))
            }
        }
        return true
    }
}

@_cdecl("fief_list_remove")
public func exportListRemove(_ handle: OpaquePointer?, _ index: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        try withList(handle) { (list) throws(FiefError) in try list.remove(at: index) }
        return true
    }
}

@_cdecl("fief_list_move")
public func exportListMove(_ handle: OpaquePointer?, _ from: Int, _ to: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let from = try CArgs.index(from, "from"), to = try CArgs.index(to, "to")
        try withList(handle) { (list) throws(FiefError) in try list.move(from: from, to: to) }
        return true
    }
}

@_cdecl("fief_list_swap")
public func exportListSwap(_ handle: OpaquePointer?, _ i: Int, _ j: Int) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let i = try CArgs.index(i, "i"), j = try CArgs.index(j, "j")
        try withList(handle) { (list) throws(FiefError) in try list.swapAt(i, j) }
        return true
    }
}

@_cdecl("fief_list_clear")
public func exportListClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withList(handle) { (list) throws(FiefError) in try list.removeAll() }
        return true
    }
}

@_cdecl("fief_list_delete_all_objects")
public func exportListRemoveAll(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withList(handle) { (list) throws(FiefError) in try list.deleteAllObjects() }
        return true
    }
}

@_cdecl("fief_list_insert_embedded")
public func exportListInsertEmbedded(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let index = try CArgs.index(index, "index")
        let (realm, created) = try withList(handle) { (list) throws(FiefError) in (list.realm, try list.insertEmbedded(at: index)) }
        return HandleTable.makeObject(realm, table: created.classKey, key: created.objectKey)
    }
}

@_cdecl("fief_list_resolve_in")
public func exportListResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_list")
        let list = try HandleTable.list(UnsafeRawPointer(handle))
        out.pointee = try resolveCollection(list.realm, list.ref, in: target)
        return true
    }
}

@_cdecl("fief_list_to_results")
public func exportListToResults(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withList(handle) { (list) throws(FiefError) in try collectionResults(list.realm, list.ref) }
        return makeResultsHandle(results)
    }
}

/// A list, set or map as live results: of its objects, or of its values.
func collectionResults(_ realm: Realm, _ ref: CollectionRef) throws(FiefError) -> Results {
    if ref.isNested { return try ValueResults(realm: realm, nested: ref) }
    if try realm.collectionHoldsObjects(ref) {
        return try ObjectResults(realm: realm, list: ref.property, of: ref.owner, in: ref.table)
    }
    return try ValueResults(realm: realm, list: ref.property, of: ref.owner, in: ref.table)
}

/// A new handle to the nested `kind` `id` held in collection `ref` of `realm`.
func nestedHandle(_ realm: Realm, _ ref: CollectionRef, _ kind: NestedKind, _ id: Int64) throws(FiefError) -> OpaquePointer? {
    let child = ref.nestedChild(kind, id)
    try realm.requireStoredNested(child)
    return HandleTable.makeCollection(realm, child)
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
        let (list, id) = try withList(handle) { (list) throws(FiefError) -> (ListAccess, Int64) in
            (list, try Realm.nestedID(in: try list.value(at: index), kind, "element \(index)"))
        }
        return try nestedHandle(list.realm, list.ref, kind, id)
    }
}
