import CFief
import FiefEngine
import FiefStorage

// Maps: string keys to values; a handle names a map (`CollectionRef`: a map
// property of an object, or a dictionary nested in a mixed value); every
// call translates its arguments, takes the map's accessor and makes one
// call under the realm's lock.  Keys cross the interface as fief_string_t
// views.

@inline(__always)
func withMap<R>(_ handle: OpaquePointer?, _ body: (MapAccess) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.withMap(UnsafeRawPointer(handle)) { (map) throws(FiefError) -> R in
        try map.realm.lock.withLock { () throws(FiefError) -> R in try body(map) }
    }
}

/// A map key passed in: a view of the caller's memory for the call.
@inline(__always)
private func mapKey(_ key: fief_string_t) throws(FiefError) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(try CArgs.array(key.data, key.size, "key.data", count: "key.size"))
}

@inline(__always)
private func cString(_ bytes: UnsafeRawBufferPointer) -> fief_string_t {
    fief_string_t(data: bytes.baseAddress?.assumingMemoryBound(to: CChar.self), size: bytes.count)
}

@_cdecl("fief_object_get_map")
public func exportObjectGetMap(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let (box, ref) = try withObject(handle) { (box) throws(FiefError) -> (ObjectBox, CollectionRef) in
            (box, try box.realm.collection(.map, table: box.table, owner: box.key, property: property))
        }
        return HandleTable.makeCollection(box.realm, ref)
    }
}

@_cdecl("fief_map_is_valid")
public func exportMapIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let map = try? HandleTable.map(UnsafeRawPointer(handle)) else { return false }
    return (try? map.realm.lock.withLock { () throws(FiefError) -> Bool in try map.realm.collectionExists(map.ref) }) ?? false
}

@_cdecl("fief_map_count")
public func exportMapSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withMap(handle) { (map) throws(FiefError) in try map.count() }
        return true
    }
}

@_cdecl("fief_map_get")
public func exportMapGet(_ handle: OpaquePointer?, _ key: fief_string_t, _ out: UnsafeMutablePointer<fief_value_t>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let outFound = try require(outFound, "out_found")
        let key = try mapKey(key)
        let value = try withMap(handle) { (map) throws(FiefError) in try map.value(forKey: key) }
        outFound.pointee = value != nil
        out.pointee = ValueBridge.cValue(value ?? .null)
        return true
    }
}

@_cdecl("fief_map_contains_key")
public func exportMapContainsKey(_ handle: OpaquePointer?, _ key: fief_string_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_contains")
        let key = try mapKey(key)
        out.pointee = try withMap(handle) { (map) throws(FiefError) in try map.value(forKey: key) != nil }
        return true
    }
}

@_cdecl("fief_map_index_of_key")
public func exportMapFindKey(_ handle: OpaquePointer?, _ key: fief_string_t, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outIndex = try require(outIndex, "out_index")
        let outFound = try require(outFound, "out_found")
        let key = try mapKey(key)
        let found = try withMap(handle) { (map) throws(FiefError) in try map.index(ofKey: key) }
        outFound.pointee = found != nil
        outIndex.pointee = found ?? 0
        return true
    }
}

@_cdecl("fief_map_get_entry")
public func exportMapGetEntry(_ handle: OpaquePointer?, _ index: Int, _ outKey: UnsafeMutablePointer<fief_string_t>?, _ outValue: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        let (key, value) = try withMap(handle) { (map) throws(FiefError) in try map.entry(at: index) }
        outKey?.pointee = cString(key)
        outValue?.pointee = ValueBridge.cValue(value)
        return true
    }
}

@_cdecl("fief_map_get_entries")
public func exportMapGetEntries(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ outKeys: UnsafeMutablePointer<fief_string_t>?,
                                _ outValues: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let n = try CArgs.count(count, of: fief_value_t.self, "count")
        if n > 0 && outKeys == nil && outValues == nil {
            throw FiefError(.invalidArgument, "out_keys and out_values are both NULL but count is \(n)")
        }
        try withMap(handle) { (map) throws(FiefError) in
            try map.checkRange(start: start, count: n)
            try withValueBuffer(outValues == nil ? 0 : n) { (values) throws(FiefError) in
                let keys = UnsafeMutableBufferPointer<UnsafeRawBufferPointer>.allocate(capacity: outKeys == nil ? 0 : n)
                defer { keys.deallocate() }
                try map.entries(from: start, count: n, keys: outKeys == nil ? nil : keys.baseAddress,
                                values: outValues == nil ? nil : values.baseAddress)
                if let outKeys { for i in 0..<n { outKeys[i] = cString(keys[i]) } }
                if let outValues { for i in 0..<n { outValues[i] = ValueBridge.cValue(values[i]) } }
            }
        }
        return true
    }
}

@_cdecl("fief_map_set")
public func exportMapSet(_ handle: OpaquePointer?, _ key: fief_string_t, _ value: fief_value_t) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let key = try mapKey(key)
        let element = try ValueBridge.engineValue(value, "value")
        try withMap(handle) { (map) throws(FiefError) in try map.set(element, forKey: key) }
        return true
    }
}

@_cdecl("fief_map_remove")
public func exportMapRemove(_ handle: OpaquePointer?, _ key: fief_string_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let key = try mapKey(key)
        let removed = try withMap(handle) { (map) throws(FiefError) in try map.remove(key) }
        out?.pointee = removed
        return true
    }
}

@_cdecl("fief_map_clear")
public func exportMapClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withMap(handle) { (map) throws(FiefError) in try map.removeAll() }
        return true
    }
}

@_cdecl("fief_map_insert_embedded")
public func exportMapInsertEmbedded(_ handle: OpaquePointer?, _ key: fief_string_t) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let key = try mapKey(key)
        let (realm, created) = try withMap(handle) { (map) throws(FiefError) in (map.realm, try map.insertEmbedded(forKey: key)) }
        return HandleTable.makeObject(realm, table: created.classKey, key: created.objectKey)
    }
}

@_cdecl("fief_map_resolve_in")
public func exportMapResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_map")
        let map = try HandleTable.map(UnsafeRawPointer(handle))
        out.pointee = try resolveCollection(map.realm, map.ref, in: target)
        return true
    }
}

@_cdecl("fief_map_to_results")
public func exportMapToResults(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withMap(handle) { (map) throws(FiefError) in try collectionResults(map.realm, map.ref) }
        return makeResultsHandle(results)
    }
}

// MARK: Nested collections

@_cdecl("fief_map_get_list")
public func exportMapGetList(_ handle: OpaquePointer?, _ key: fief_string_t) -> OpaquePointer? {
    nestedFromMap(handle, key, .list)
}

@_cdecl("fief_map_get_map")
public func exportMapGetMap(_ handle: OpaquePointer?, _ key: fief_string_t) -> OpaquePointer? {
    nestedFromMap(handle, key, .dictionary)
}

private func nestedFromMap(_ handle: OpaquePointer?, _ key: fief_string_t, _ kind: NestedKind) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let key = try mapKey(key)
        let (map, id) = try withMap(handle) { (map) throws(FiefError) -> (MapAccess, Int64) in
            guard let value = try map.value(forKey: key) else {
                throw FiefError(.invalidArgument, "the map has no key '\(String(decoding: key, as: UTF8.self))'")
            }
            return (map, try Realm.nestedID(in: value, kind, "key '\(String(decoding: key, as: UTF8.self))'"))
        }
        return try nestedHandle(map.realm, map.ref, kind, id)
    }
}
