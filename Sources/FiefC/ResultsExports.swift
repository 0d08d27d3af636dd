import CFief
import FiefEngine

@inline(__always)
func withResults<R>(_ handle: OpaquePointer?, _ body: (Results) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .results, as: Results.self) { (results) throws(FiefError) -> R in
        try withLockedResults(results, body)
    }
}

@inline(__always)
private func withLockedResults<R>(_ results: Results, _ body: (Results) throws(FiefError) -> R) throws(FiefError) -> R {
    let lock = results.realm.lock
    return try lock.withLock { () throws(FiefError) -> R in
        if !results.isValid {
            if results.realm.isClosed { throw FiefError(.closed, "the realm was closed") }
            throw FiefError(.invalidatedResults, "the results' class no longer exists")
        }
        return try body(results)
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
            arguments.append(QueryArgument(values: try ValueBridge.engineValues(values, "args[\(i)].values"), isList: arg.is_list))
        }
        let filtered = try withResults(handle) { (results) throws(FiefError) in try results.filtered(text, arguments: arguments) }
        return HandleTable.make(filtered, .results)
    }
}

@_cdecl("fief_results_sort")
public func exportResultsSort(_ handle: OpaquePointer?, _ keys: UnsafePointer<fief_sort_descriptor_t>?, _ count: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let keys = try CArgs.array(keys, count, "keys", count: "num_keys")
        var names: [(String, Bool)] = []
        names.reserveCapacity(keys.count)
        for key in keys { names.append((try cString(key.key_path, "keys[\(names.count)].key_path"), key.ascending)) }
        let sorted = try withResults(handle) { (results) throws(FiefError) in try results.sorted(by: names) }
        return HandleTable.make(sorted, .results)
    }
}

@_cdecl("fief_results_count")
public func exportResultsCount(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_count")
        out.pointee = try withResults(handle) { (results) throws(FiefError) in try results.count() }
        return true
    }
}

@_cdecl("fief_results_get_class_key")
public func exportResultsGetClassKey(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let results = try HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self)
        try store(out, results.tableKey, "out_class_key")
        return true
    }
}

@_cdecl("fief_results_get_object")
public func exportResultsGetObject(_ handle: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let index = try CArgs.index(index, "index")
        let (realm, table, key) = try withResults(handle) { (results) throws(FiefError) in
            (results.realm, results.tableKey, try results.key(at: index))
        }
        return HandleTable.makeObject(realm, table: table, key: key)
    }
}

@_cdecl("fief_results_get_key")
public func exportResultsGetKey(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<Int64>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_key")
        let index = try CArgs.index(index, "index")
        out.pointee = try withResults(handle) { (results) throws(FiefError) in try results.key(at: index) }
        return true
    }
}

@_cdecl("fief_results_get_values")
public func exportResultsGetValues(_ handle: OpaquePointer?, _ index: Int, _ properties: UnsafePointer<UInt32>?, _ count: Int, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try CArgs.outArray(out, count, "out_values", count: "num_values")
        let keys = try CArgs.array(properties, count, "properties", count: "num_values")
        let index = try CArgs.index(index, "index")
        try withResults(handle) { (results) throws(FiefError) in
            try withValueBuffer(keys.count) { (buffer) throws(FiefError) in
                try results.values(at: index, properties: keys, into: buffer)
                for i in 0..<keys.count { out[i] = ValueBridge.cValue(buffer[i]) }
            }
        }
        return true
    }
}

@_cdecl("fief_results_index_of")
public func exportResultsIndexOf(_ handle: OpaquePointer?, _ object: OpaquePointer?, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let found = try require(outFound, "out_found")
        let indexOut = try require(outIndex, "out_index")
        let box = try HandleTable.object(UnsafeRawPointer(object))
        let index = try withResults(handle) { (results) throws(FiefError) -> Int? in
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
        try withResults(handle) { (results) throws(FiefError) in try results.deleteAll() }
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
        let results = try HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self)
        return HandleTable.make(RealmBox(results.realm), .realm)
    }
}

@_cdecl("fief_results_resolve_in")
public func exportResultsResolveIn(_ handle: OpaquePointer?, _ target: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try HandleTable.resolve(UnsafeRawPointer(handle), .results, as: Results.self)
        let resolved = try withRealm(target) { (realm) throws(FiefError) in try results.resolved(in: realm) }
        return HandleTable.make(resolved, .results)
    }
}
