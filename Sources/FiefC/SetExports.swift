import CFief
import FiefEngine
import FiefStorage

// Sets: a handle names a set property of an object (`CollectionRef`); every
// call translates its arguments, takes the set's accessor and makes one
// call under the realm's lock.

@inline(__always)
func withSet<R>(_ handle: OpaquePointer?, _ body: (SetAccess) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.withSet(UnsafeRawPointer(handle)) { (set) throws(FiefError) -> R in
        try set.realm.lock.withLock { () throws(FiefError) -> R in try body(set) }
    }
}

/// The set behind `other`, which must be of the same realm as `set`.
private func otherSet(_ set: SetAccess, _ other: OpaquePointer?) throws(FiefError) -> CollectionRef {
    let second = try HandleTable.set(UnsafeRawPointer(other))
    guard second.realm === set.realm else {
        throw FiefError(.invalidArgument, "the other set belongs to another realm: resolve it in this one first (fief_set_resolve_in)")
    }
    return second.ref
}

@_cdecl("fief_object_get_set")
public func exportObjectGetSet(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let (box, ref) = try withObject(handle) { (box) throws(FiefError) -> (ObjectBox, CollectionRef) in
            (box, try box.realm.collection(.set, table: box.table, owner: box.key, property: property))
        }
        return HandleTable.makeCollection(box.realm, ref)
    }
}

@_cdecl("fief_set_is_valid")
public func exportSetIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let set = try? HandleTable.set(UnsafeRawPointer(handle)) else { return false }
    return (try? set.realm.lock.withLock { () throws(FiefError) -> Bool in try set.realm.collectionExists(set.ref) }) ?? false
}

@_cdecl("fief_set_count")
public func exportSetSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withSet(handle) { (set) throws(FiefError) in try set.count() }
        return true
    }
}

@_cdecl("fief_set_get")
public func exportSetGet(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let index = try CArgs.index(index, "index")
        out.pointee = try withSet(handle) { (set) throws(FiefError) in ValueBridge.cValue(try set.value(at: index)) }
        return true
    }
}

@_cdecl("fief_set_get_range")
public func exportSetGetRange(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let out = try CArgs.outArray(out, count, "out_values", count: "count")
        try withSet(handle) { (set) throws(FiefError) in
            try set.checkRange(start: start, count: out.count)
            try withValueBuffer(out.count) { (buffer) throws(FiefError) in
                try set.values(from: start, into: buffer)
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
        let found = try withSet(handle) { (set) throws(FiefError) in try set.firstIndex(of: wanted) }
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
        out.pointee = try withSet(handle) { (set) throws(FiefError) in try set.contains(wanted) }
        return true
    }
}

@_cdecl("fief_set_insert")
public func exportSetInsert(_ handle: OpaquePointer?, _ value: fief_value_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let element = try ValueBridge.engineValue(value, "value")
        let inserted = try withSet(handle) { (set) throws(FiefError) in try set.insert(element) }
        out?.pointee = inserted
        return true
    }
}

@_cdecl("fief_set_remove")
public func exportSetRemove(_ handle: OpaquePointer?, _ value: fief_value_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let element = try ValueBridge.engineValue(value, "value")
        let removed = try withSet(handle) { (set) throws(FiefError) in try set.remove(element) }
        out?.pointee = removed
        return true
    }
}

@_cdecl("fief_set_clear")
public func exportSetClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (set) throws(FiefError) in try set.removeAll() }
        return true
    }
}

@_cdecl("fief_set_intersects")
public func exportSetIntersects(_ handle: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_result")
        out.pointee = try withSet(handle) { (set) throws(FiefError) in try set.intersects(try otherSet(set, other)) }
        return true
    }
}

@_cdecl("fief_set_is_subset_of")
public func exportSetIsSubsetOf(_ handle: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_result")
        out.pointee = try withSet(handle) { (set) throws(FiefError) in try set.isSubset(of: try otherSet(set, other)) }
        return true
    }
}

@_cdecl("fief_set_is_superset_of")
public func exportSetIsSupersetOf(_ handle: OpaquePointer?, _ other: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_result")
        out.pointee = try withSet(handle) { (set) throws(FiefError) in try set.isSuperset(of: try otherSet(set, other)) }
        return true
    }
}

@_cdecl("fief_set_form_union")
public func exportSetFormUnion(_ handle: OpaquePointer?, _ other: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (set) throws(FiefError) in try set.formUnion(try otherSet(set, other)) }
        return true
    }
}

@_cdecl("fief_set_form_intersection")
public func exportSetFormIntersection(_ handle: OpaquePointer?, _ other: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (set) throws(FiefError) in try set.formIntersection(try otherSet(set, other)) }
        return true
    }
}

@_cdecl("fief_set_subtract")
public func exportSetSubtract(_ handle: OpaquePointer?, _ other: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSet(handle) { (set) throws(FiefError) in try set.subtract(try otherSet(set, other)) }
        return true
    }
}

@_cdecl("fief_set_resolve_in")
public func exportSetResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_set")
        let set = try HandleTable.set(UnsafeRawPointer(handle))
        out.pointee = try resolveCollection(set.realm, set.ref, in: target)
        return true
    }
}

/// Collection `ref` of `realm` in realm `target` (same file): a new handle,
/// or nil when it does not exist in the target's version.
func resolveCollection(_ realm: Realm, _ ref: CollectionRef, in target: OpaquePointer?) throws(FiefError) -> OpaquePointer? {
    try requireOpen(realm)
    let exists = try withRealm(target) { (there) throws(FiefError) -> Realm? in
        try there.checkOpenForC()
        guard there.path == realm.path else { throw FiefError(.invalidArgument, "the target realm is another file") }
        return try there.collectionExists(ref) ? there : nil
    }
    return try exists.map { (there) throws(FiefError) -> OpaquePointer in
        guard let made = HandleTable.makeCollection(there, ref) else {
            throw FiefError(.outOfMemory, "too many live handles")
        }
        return made
    }
}

@_cdecl("fief_set_to_results")
public func exportSetToResults(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withSet(handle) { (set) throws(FiefError) in try collectionResults(set.realm, set.ref) }
        return makeResultsHandle(results)
    }
}
