import CFief
import FiefEngine
import FiefStorage

// Sets: a handle names (realm, owner class, owner object, property), like a
// list handle; every call translates its arguments and calls the engine
// under the realm's lock.

@inline(__always)
func withSet<R>(_ handle: OpaquePointer?, _ body: (CollectionBox) throws(FiefError) -> R) throws(FiefError) -> R {
    let box = try HandleTable.collection(UnsafeRawPointer(handle), .set)
    return try box.realm.lock.withLock { () throws(FiefError) -> R in try body(box) }
}

extension CollectionBox {
    var ref: CollectionRef { CollectionRef(table: table, owner: key, property: property) }
}

/// The set behind `other`, which must be of the same realm as `box`.
private func otherSet(_ box: CollectionBox, _ other: OpaquePointer?) throws(FiefError) -> CollectionRef {
    let second = try HandleTable.collection(UnsafeRawPointer(other), .set)
    guard second.realm === box.realm else {
        throw FiefError(.invalidArgument, "the other set belongs to another realm: resolve it in this one first (fief_set_resolve_in)")
    }
    return second.ref
}

@_cdecl("fief_object_get_set")
public func exportObjectGetSet(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let box = try withObject(handle) { (box) throws(FiefError) -> ObjectBox in
            _ = try box.realm.setCount(CollectionRef(table: box.table, owner: box.key, property: property))
            return box
        }
        return HandleTable.makeCollection(box.realm, .set, table: box.table, key: box.key, property: property)
    }
}

@_cdecl("fief_set_is_valid")
public func exportSetIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let box = try? HandleTable.collection(UnsafeRawPointer(handle), .set) else { return false }
    return (try? box.realm.lock.withLock { () throws(FiefError) -> Bool in
        try box.realm.objectExists(table: box.table, key: box.key)
    }) ?? false
}

@_cdecl("fief_set_count")
public func exportSetSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withSet(handle) { (box) throws(FiefError) in try box.realm.setCount(box.ref) }
        return true
    }
}

@_cdecl("fief_set_get")
public func exportSetGet(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let index = try CArgs.index(index, "index")
        out.pointee = try withSet(handle) { (box) throws(FiefError) in
            ValueBridge.cValue(try box.realm.setValue(box.ref, index: index))
        }
        return true
    }
}

@_cdecl("fief_set_get_range")
public func exportSetGetRange(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let out = try CArgs.outArray(out, count, "out_values", count: "count")
        try withSet(handle) { (box) throws(FiefError) in
            try CArgs.range(start: start, count: out.count, within: try box.realm.setCount(box.ref), "elements", of: "the set")
            try withValueBuffer(out.count) { (buffer) throws(FiefError) in
                try box.realm.setValues(box.ref, start: start, into: buffer)
                for i in 0..<buffer.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_set_index_of")
public func exportSetFind(_ handle: OpaquePointer?, _ value: fief_value_t, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outIndex = try require(outIndex, "out_index")
        let outFound = try require(outFound, "out_found")
        let wanted = try ValueBridge.engineValue(value, "value")
        let found = try withSet(handle) { (box) throws(FiefError) in try box.realm.setIndex(box.ref, of: wanted) }
        outFound.pointee = found != nil
        outIndex.pointee = found ?? 0
        return true
    }
}

@_cdecl("fief_set_contains")
public func exportSetContains(_ handle: OpaquePointer?, _ value: fief_value_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_contains")
        let wanted = try ValueBridge.engineValue(value, "value")
        out.pointee = try withSet(handle) { (box) throws(FiefError) in try box.realm.setContains(box.ref, wanted) }
        return true
    }
}

@_cdecl("fief_set_insert")
public func exportSetInsert(_ handle: OpaquePointer?, _ value: fief_value_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let element = try ValueBridge.engineValue(value, "value")
        let inserted = try withSet(handle) { (box) throws(FiefError) in try box.realm.setInsert(box.ref, element) }
        out?.pointee = inserted
        return true
    }
}

@_cdecl("fief_set_remove")
public func exportSetRemove(_ handle: OpaquePointer?, _ value: fief_value_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let element = try ValueBridge.engineValue(value, "value")
        let removed = try withSet(handle) { (box) throws(FiefError) in try box.realm.setRemove(box.ref, element) }
        out?.pointee = removed
        return true
    }
}

@_cdecl("fief_set_clear")
public func exportSetClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (box) throws(FiefError) in try box.realm.setClear(box.ref) }
        return true
    }
}

@_cdecl("fief_set_intersects")
public func exportSetIntersects(_ handle: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_result")
        out.pointee = try withSet(handle) { (box) throws(FiefError) in try box.realm.setIntersects(box.ref, try otherSet(box, other)) }
        return true
    }
}

@_cdecl("fief_set_is_subset_of")
public func exportSetIsSubsetOf(_ handle: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_result")
        out.pointee = try withSet(handle) { (box) throws(FiefError) in try box.realm.setIsSubset(box.ref, of: try otherSet(box, other)) }
        return true
    }
}

@_cdecl("fief_set_is_superset_of")
public func exportSetIsSupersetOf(_ handle: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_result")
        out.pointee = try withSet(handle) { (box) throws(FiefError) in try box.realm.setIsSubset(try otherSet(box, other), of: box.ref) }
        return true
    }
}

@_cdecl("fief_set_form_union")
public func exportSetFormUnion(_ handle: OpaquePointer?, _ other: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (box) throws(FiefError) in try box.realm.setFormUnion(box.ref, try otherSet(box, other)) }
        return true
    }
}

@_cdecl("fief_set_form_intersection")
public func exportSetFormIntersection(_ handle: OpaquePointer?, _ other: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (box) throws(FiefError) in try box.realm.setFormIntersection(box.ref, try otherSet(box, other)) }
        return true
    }
}

@_cdecl("fief_set_subtract")
public func exportSetSubtract(_ handle: OpaquePointer?, _ other: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (box) throws(FiefError) in try box.realm.setSubtract(box.ref, try otherSet(box, other)) }
        return true
    }
}

@_cdecl("fief_set_resolve_in")
public func exportSetResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_set")
        let box = try HandleTable.collection(UnsafeRawPointer(handle), .set)
        out.pointee = try resolveCollection(box, .set, in: target)
        return true
    }
}

/// The collection of `box` in realm `target` (same file): a new handle, or
/// nil when the owner does not exist in the target's version.
func resolveCollection(_ box: CollectionBox, _ kind: HandleKind, in target: OpaquePointer?) throws(FiefError) -> OpaquePointer? {
    try requireOpen(box.realm)
    let exists = try withRealm(target) { (realm) throws(FiefError) -> Realm? in
        try realm.checkOpenForC()
        guard realm.path == box.realm.path else { throw FiefError(.invalidArgument, "the target realm is another file") }
        var there = box
        there.realm = realm
        return try there.exists() ? realm : nil
    }
    return try exists.map { (realm) throws(FiefError) -> OpaquePointer in
        guard let made = HandleTable.makeCollection(realm, kind, table: box.table, key: box.key, property: box.property, nested: box.nested) else {
            throw FiefError(.outOfMemory, "too many live handles")
        }
        return made
    }
}

@_cdecl("fief_set_to_results")
public func exportSetToResults(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withSet(handle) { (box) throws(FiefError) in try collectionResults(box) }
        return makeResultsHandle(results)
    }
}
