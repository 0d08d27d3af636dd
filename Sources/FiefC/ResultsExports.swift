import CFief
import FiefEngine
import FiefStorage

// A fief_results_t holds one `Results`: of objects or of values (made from
// a list, set or map of values).  Calls that need one element kind ask the
// results for it (`objects(for:)`, `values(for:)`), which refuse the other
// kind with FIEF_ERR_INVALID_ARGUMENT.

/// Run `body` with the results behind `handle`, under its realm's lock.
@inline(__always)
func withResults<R>(_ handle: OpaquePointer?, _ body: (Results) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .results, as: Results.self) { (results) throws(FiefError) -> R in
        try withLockedResults(results.realm, results.isValid, { () throws(FiefError) -> R in try body(results) })
    }
}

/// Make a handle for results.
func makeResultsHandle(_ results: Results) -> OpaquePointer? {
    HandleTable.make(results, .results)
}

@inline(__always)
private func withLockedResults<R>(_ realm: Realm, _ isValid: @autoclosure () -> Bool, _ body: () throws(FiefError) -> R) throws(FiefError) -> R {
    try realm.lock.withLock { () throws(FiefError) -> R in
        if !isValid() {
            if realm.isClosed { throw FiefError(.closed, "the realm was closed") }
            throw FiefError(.invalidatedResults, "the results' class no longer exists")
        }
        return try body()
    }
}

@_cdecl("fief_results_filter")
public func exportResultsFilter(_ handle: OpaquePointer?, _ predicate: UnsafePointer<CChar>?, _ args: UnsafePointer<fief_query_arg_t>?, _ numArgs: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let text = try cString(predicate, "predicate")
        let cArgs = try CArgs.array(args, numArgs, "args", count: "num_args")
        var arguments: [QueryArgument] = []
        arguments.reserveCapacity(cArgs.count)
        for i in 0..<cArgs.count {
            let arg = cArgs[i]
            let values = try CArgs.array(arg.values, arg.count, "args[\(i)].values", count: "args[\(i)].count")
            if !arg.is_list && values.count != 1 {
                throw FiefError(.queryArgument, "args[\(i)] is not a list, so it needs exactly one value (args[\(i)].count is \(values.count))")
            }
            if let shape = try GeoShapeBridge.shapeArgument(values, isList: arg.is_list, "args[\(i)]") {
                arguments.append(QueryArgument(geoShape: shape))
                continue
            }
            arguments.append(QueryArgument(values: try ValueBridge.engineValues(values, "args[\(i)].values"), isList: arg.is_list))
        }
        let filtered = try withResults(handle) { (results) throws(FiefError) -> Results in try results.filtered(text, arguments: arguments) }
        return makeResultsHandle(filtered)
    }
}

@_cdecl("fief_results_sort")
public func exportResultsSort(_ handle: OpaquePointer?, _ keys: UnsafePointer<fief_sort_descriptor_t>?, _ count: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let keys = try CArgs.array(keys, count, "keys", count: "num_keys")
        var names: [(String, Bool)] = []
        names.reserveCapacity(keys.count)
        for key in keys { names.append((try cString(key.key_path, "keys[\(names.count)].key_path"), key.ascending)) }
        let sorted = try withResults(handle) { (results) throws(FiefError) -> Results in try results.sorted(by: names) }
        return makeResultsHandle(sorted)
    }
}

@_cdecl("fief_results_distinct")
public func exportResultsDistinct(_ handle: OpaquePointer?, _ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let pointers = try CArgs.array(keyPaths, count, "key_paths", count: "num_key_paths")
        var paths: [String] = []
        paths.reserveCapacity(pointers.count)
        for pointer in pointers { paths.append(try cString(pointer, "key_paths[\(paths.count)]")) }
        let distinct = try withResults(handle) { (results) throws(FiefError) -> Results in try results.distinct(by: paths) }
        return makeResultsHandle(distinct)
    }
}

@_cdecl("fief_results_limit")
public func exportResultsLimit(_ handle: OpaquePointer?, _ count: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        // A size_t: past Int.max it is no limit at all.
        let limit = count < 0 ? Int.max : count
        let limited = try withResults(handle) { (results) throws(FiefError) -> Results in try results.limited(to: limit) }
        return makeResultsHandle(limited)
    }
}

@_cdecl("fief_results_count")
public func exportResultsCount(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_count")
        out.pointee = try withResults(handle) { (results) throws(FiefError) -> Int in try results.count() }
        return true
    }
}

@_cdecl("fief_results_get_class_key")
public func exportResultsGetClassKey(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let results = try HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self)
        let objects = try results.objects(for: "fief_results_get_class_key", instead: "see fief_results_get_element_type")
        try store(out, objects.tableKey, "out_class_key")
        return true
    }
}

@_cdecl("fief_results_get_element_type")
public func exportResultsGetElementType(_ handle: OpaquePointer?, _ outType: UnsafeMutablePointer<Int32>?, _ outNullable: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outType = try require(outType, "out_type")
        let element = try withResults(handle) { (results) throws(FiefError) in results.elementType }
        outType.pointee = Int32(element.type.rawValue)
        outNullable?.pointee = element.isNullable
        return true
    }
}

@_cdecl("fief_results_get_object")
public func exportResultsGetObject(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let index = try CArgs.index(index, "index")
        let (realm, table, key) = try withResults(handle) { (held) throws(FiefError) in
            let results = try held.objects(for: "fief_results_get_object")
            return (results.realm, results.tableKey, try results.key(at: index))
        }
        return HandleTable.makeObject(realm, table: table, key: key)
    }
}

@_cdecl("fief_results_get_key")
public func exportResultsGetKey(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<Int64>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_key")
        let index = try CArgs.index(index, "index")
        out.pointee = try withResults(handle) { (held) throws(FiefError) in try held.objects(for: "fief_results_get_key").key(at: index) }
        return true
    }
}

@_cdecl("fief_results_get_keys")
public func exportResultsGetKeys(_ handle: OpaquePointer?, _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<Int64>?, _ outCount: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let start = try CArgs.index(start, "start")
        let out = try CArgs.outArray(out, count, "out_keys", count: "count")
        let written = try withResults(handle) { (held) throws(FiefError) -> Int in
            let results = try held.objects(for: "fief_results_get_keys")
            if outCount == nil {
                // Without out_count the range must lie within the results.
                try CArgs.range(start: start, count: out.count, within: try results.count(), "keys", of: "the results")
            }
            return try results.copyKeys(from: start, into: out)
        }
        outCount?.pointee = written
        return true
    }
}

@_cdecl("fief_results_get_values")
public func exportResultsGetValues(_ handle: OpaquePointer?, _ index: Int, _ properties: UnsafePointer<UInt32>?, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try CArgs.outArray(out, count, "out_values", count: "num_values")
        let keys = try CArgs.array(properties, count, "properties", count: "num_values")
        let index = try CArgs.index(index, "index")
        try withResults(handle) { (held) throws(FiefError) in
            let results = try held.objects(for: "fief_results_get_values")
            try withValueBuffer(keys.count) { (buffer) throws(FiefError) in
                try results.values(at: index, properties: keys, into: buffer)
                for i in 0..<keys.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_results_index_of_object")
public func exportResultsIndexOf(_ handle: OpaquePointer?, _ object: OpaquePointer?, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let found = try require(outFound, "out_found")
        let indexOut = try require(outIndex, "out_index")
        let box = try HandleTable.object(UnsafeRawPointer(object))
        let index = try withResults(handle) { (held) throws(FiefError) -> Int? in
            let results = try held.objects(for: "fief_results_index_of_object")
            guard box.table == results.tableKey, box.realm.path == results.realm.path else { return nil }
            return try results.index(of: box.key)
        }
        found.pointee = index != nil
        if let index { indexOut.pointee = index }
        return true
    }
}

@_cdecl("fief_results_delete_all")
public func exportResultsDeleteAll(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withResults(handle) { (held) throws(FiefError) in try held.objects(for: "fief_results_delete_all").deleteAll() }
        return true
    }
}

@_cdecl("fief_results_get_value")
public func exportResultsGetValue(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let index = try CArgs.index(index, "index")
        out.pointee = try withResults(handle) { (held) throws(FiefError) in
            ValueBridge.cValue(try held.values(for: "fief_results_get_value").value(at: index))
        }
        return true
    }
}

@_cdecl("fief_results_index_of_value")
public func exportResultsFind(_ handle: OpaquePointer?, _ value: fief_value_t, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let outIndex = try require(outIndex, "out_index")
        let outFound = try require(outFound, "out_found")
        let wanted = try ValueBridge.engineValue(value, "value")
        let found = try withResults(handle) { (held) throws(FiefError) in try held.values(for: "fief_results_index_of_value").index(of: wanted) }
        outFound.pointee = found != nil
        outIndex.pointee = found ?? 0
        return true
    }
}

@_cdecl("fief_results_is_valid")
public func exportResultsIsValid(_ handle: OpaquePointer?) -> Bool {
    guard let results = try? HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self) else { return false }
    return (try? results.realm.lock.withLock { () throws(FiefError) -> Bool in results.isValid }) ?? false
}

@_cdecl("fief_results_get_realm")
public func exportResultsGetRealm(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let realm = try HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self).realm
        return HandleTable.make(RealmBox(realm), .realm)
    }
}

@_cdecl("fief_results_resolve_in")
public func exportResultsResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self)
        try requireOpen(results.realm)
        let resolved = try withRealm(target) { (realm) throws(FiefError) in try results.resolved(in: realm) }
        return makeResultsHandle(resolved)
    }
}

@_cdecl("fief_results_get_description")
public func exportResultsGetDescription(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    guarded(nil) { () throws(FiefError) -> UnsafePointer<CChar>? in
        let text = try withResults(handle) { (results) throws(FiefError) -> String in try results.queryDescription() }
        return try HandleTable.keepText(text, with: UnsafeRawPointer(handle))
    }
}
