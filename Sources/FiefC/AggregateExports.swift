import CFief
import FiefEngine
import FiefStorage

// Aggregates: min, max, sum and average over results and lists.  Each
// export translates its arguments and calls the engine under the realm's lock.

@inline(__always)
private func operation(_ raw: Int32) throws(FiefError) -> AggregateOperation {
    guard let op = AggregateOperation(rawValue: raw) else {
        throw FiefError(.invalidArgument, "op is \(raw): not one of FIEF_AGGREGATE_MIN, _MAX, _SUM or _AVERAGE")
    }
    return op
}

@_cdecl("fief_results_aggregate")
public func exportResultsAggregate(_ handle: OpaquePointer?, _ property: UInt32, _ op: Int32, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let op = try operation(op)
        out.pointee = try withResults(handle) { (results) throws(FiefError) in ValueBridge.cValue(try results.aggregate(op, property: property)) }
        return true
    }
}

@_cdecl("fief_list_aggregate")
public func exportListAggregate(_ handle: OpaquePointer?, _ property: UInt32, _ op: Int32, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let op = try operation(op)
        out.pointee = try withList(handle) { (list) throws(FiefError) in try collectionAggregate(list.realm, list.ref, property, op) }
        return true
    }
}

@_cdecl("fief_set_aggregate")
public func exportSetAggregate(_ handle: OpaquePointer?, _ property: UInt32, _ op: Int32, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let op = try operation(op)
        out.pointee = try withSet(handle) { (set) throws(FiefError) in try collectionAggregate(set.realm, set.ref, property, op) }
        return true
    }
}

@_cdecl("fief_map_aggregate")
public func exportMapAggregate(_ handle: OpaquePointer?, _ property: UInt32, _ op: Int32, _ out: UnsafeMutablePointer<fief_value_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let out = try require(out, "out_value")
        let op = try operation(op)
        out.pointee = try withMap(handle) { (map) throws(FiefError) in try collectionAggregate(map.realm, map.ref, property, op) }
        return true
    }
}

/// An aggregate over a collection's values, or over `property` of its objects.
private func collectionAggregate(_ realm: Realm, _ ref: CollectionRef, _ property: UInt32, _ op: AggregateOperation) throws(FiefError) -> fief_value_t {
    ValueBridge.cValue(try collectionResults(realm, ref).aggregate(op, property: property))
}
