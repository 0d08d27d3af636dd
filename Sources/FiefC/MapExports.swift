import CFief
import FiefEngine
import FiefStorage

// Maps: string keys to values; a handle names (realm, owner class, owner
// object, property).  Keys cross the interface as fief_string_t views.

@inline(__always)
func withMap<R>(_ handle: OpaquePointer?, _ body: (CollectionBox) throws(FiefError) -> R) throws(FiefError) -> R {
    let box = try HandleTable.collection(UnsafeRawPointer(handle), .map)
    return try box.realm.lock.withLock { () throws(FiefError) -> R in try body(box) }
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
        let (box, nested) = try withObject(handle) { (box) throws(FiefError) -> (ObjectBox, Int64) in
            if try box.realm.propertyIsMixed(table: box.table, property: property) {
                let id = try box.realm.propertyNestedID(table: box.table, key: box.key, property: property, .dictionary)
                try box.realm.requireStoredNested(NestedRef(table: box.table, owner: box.key, property: property, id: id))
                return (box, id)
            }
            _ = try box.realm.mapCount(CollectionRef(table: box.table, owner: box.key, property: property))
            return (box, 0)
        }
        return HandleTable.makeCollection(box.realm, .map, table: box.table, key: box.key, property: property, nested: nested)
    }
}

@_cdecl("fief_map_is_valid")
public func exportMapIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let box = try? HandleTable.collection(UnsafeRawPointer(handle), .map) else { return false }
    return (try? box.realm.lock.withLock { () throws(FiefError) -> Bool in try box.exists() }) ?? false
}

@_cdecl("fief_map_count")
public func exportMapSize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_size")
        out.pointee = try withMap(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedCount(nested) }
            return try box.realm.mapCount(box.ref)
        }
        return true
    }
}

@_cdecl("fief_map_get")
public func exportMapGet(_ handle: OpaquePointer?, _ key: fief_string_t, _ out: UnsafeMutablePointer<fief_value_t>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let outFound = try require(outFound, "out_found")
        let key = try mapKey(key)
        let value = try withMap(handle) { (box) throws(FiefError) in try box.mapValue(key) }
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
        out.pointee = try withMap(handle) { (box) throws(FiefError) in try box.mapValue(key) != nil }
        return true
    }
}

@_cdecl("fief_map_index_of_key")
public func exportMapFindKey(_ handle: OpaquePointer?, _ key: fief_string_t, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outIndex = try require(outIndex, "out_index")
        let outFound = try require(outFound, "out_found")
        let key = try mapKey(key)
        let found = try withMap(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedMapIndex(nested, key: key) }
            return try box.realm.mapIndex(box.ref, key: key)
        }
        outFound.pointee = found != nil
        outIndex.pointee = found ?? 0
        return true
    }
}

@_cdecl("fief_map_get_entry")
public func exportMapGetEntry(_ handle: OpaquePointer?, _ index: Int, _ outKey: UnsafeMutablePointer<fief_string_t>?, _ outValue: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let index = try CArgs.index(index, "index")
        var key = UnsafeRawBufferPointer(start: nil, count: 0)
        var value = Value.null
        try withMap(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef {
                try box.realm.nestedMapEntries(nested, start: index, count: 1, keys: &key, values: &value)
            } else {
                (key, value) = try box.realm.mapEntry(box.ref, index: index)
            }
        }
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
        try withMap(handle) { (box) throws(FiefError) in
            let size = if let nested = box.nestedRef { try box.realm.nestedCount(nested) } else { try box.realm.mapCount(box.ref) }
            try CArgs.range(start: start, count: n, within: size, "entries", of: box.nestedRef == nil ? "the map" : "the nested dictionary")
            try withValueBuffer(outValues == nil ? 0 : n) { (values) throws(FiefError) in
                let keys = UnsafeMutableBufferPointer<UnsafeRawBufferPointer>.allocate(capacity: outKeys == nil ? 0 : n)
                defer { keys.deallocate() }
                if let nested = box.nestedRef {
                    try box.realm.nestedMapEntries(nested, start: start, count: n, keys: outKeys == nil ? nil : keys.baseAddress,
                                                   values: outValues == nil ? nil : values.baseAddress)
                } else {
                    try box.realm.mapEntries(box.ref, start: start, count: n, keys: outKeys == nil ? nil : keys.baseAddress,
                                             values: outValues == nil ? nil : values.baseAddress)
                }
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
        try withMap(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedMapSet(nested, key: key, value: element) }
            try box.realm.mapSet(box.ref, key: key, value: element)
        }
        return true
    }
}

@_cdecl("fief_map_remove")
public func exportMapRemove(_ handle: OpaquePointer?, _ key: fief_string_t, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let key = try mapKey(key)
        let removed = try withMap(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedMapRemove(nested, key: key) }
            return try box.realm.mapRemove(box.ref, key: key)
        }
        out?.pointee = removed
        return true
    }
}

@_cdecl("fief_map_clear")
public func exportMapClear(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withMap(handle) { (box) throws(FiefError) in
            if let nested = box.nestedRef { return try box.realm.nestedClear(nested) }
            try box.realm.mapClear(box.ref)
        }
        return true
    }
}

@_cdecl("fief_map_insert_embedded")
public func exportMapInsertEmbedded(_ handle: OpaquePointer?, _ key: fief_string_t) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let key = try mapKey(key)
        let (realm, created) = try withMap(handle) { (box) throws(FiefError) in
            if box.nested != 0 { throw FiefError(.invalidArgument, "a nested dictionary holds mixed values, which are never embedded objects") }
            return (box.realm, try box.realm.mapInsertEmbedded(box.ref, key: key))
        }
        return HandleTable.makeObject(realm, table: created.classKey, key: created.objectKey)
    }
}

@_cdecl("fief_map_resolve_in")
public func exportMapResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_map")
        let box = try HandleTable.collection(UnsafeRawPointer(handle), .map)
        out.pointee = try resolveCollection(box, .map, in: target)
        return true
    }
}

@_cdecl("fief_map_to_results")
public func exportMapToResults(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withMap(handle) { (box) throws(FiefError) in try collectionResults(box) }
        return makeResultsHandle(results)
    }
}

extension CollectionBox {
    /// The value of `key` in the map (nested or not), nil without the key.
    func mapValue(_ key: UnsafeRawBufferPointer) throws(FiefError) -> Value? {
        if let nested = nestedRef { return try realm.nestedMapValue(nested, key: key) }
        return try realm.mapValue(ref, key: key)
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
        let (box, id) = try withMap(handle) { (box) throws(FiefError) -> (CollectionBox, Int64) in
            guard let value = try box.mapValue(key) else {
                throw FiefError(.invalidArgument, "the map has no key '\(String(decoding: key, as: UTF8.self))'")
            }
            return (box, try Realm.nestedID(in: value, kind, "key '\(String(decoding: key, as: UTF8.self))'"))
        }
        return try box.nestedHandle(kind, id)
    }
}
