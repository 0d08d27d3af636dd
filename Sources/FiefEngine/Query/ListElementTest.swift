import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Lists of values against a constant

/// `ANY scores > 5` (or ALL, NONE; any comparison of one constant) over a
/// list of scalar values of the objects tested, a cluster at a time,
/// straight from the list's segments in the snapshot: one cursor walk over
/// the cluster's lists (their keys start with the owner), each segment of
/// an owner in the mask checked and its elements compared in place (ints
/// as stored integers against an int constant, other types as views), no
/// value reader, no per-object closure, until an element decides the
/// owner.  An owner without segments has an empty list: ANY is false, ALL
/// and NONE true.  The comparison is `QueryEvaluator.compareValues`, as
/// for every other element; a null element answers what null does.  In a
/// write transaction (lists then read through the transaction's state)
/// the value reader answers instead.
final class ListElementTest {
    private let realm: Realm
    private let table: Table
    private let column: Column
    private let dbi: MDB_dbi
    private let storedType: PropertyType
    private let op: QueryOperator
    private let options: QueryStringOptions
    /// Kept alive for `constantValue`, which may view its bytes.
    private let constant: QueryConstant
    private let constantValue: Value
    /// An int constant, for elements stored as ints.
    private let intConstant: Int64?
    /// What a null element answers.
    private let nullMatches: Bool
    private var cursor: LMDBCursor?
    private var cursorSnapshot: Snapshot?

    /// The test for `predicate` over the elements `expression` reads, when
    /// it is one comparison with a constant of a list of values of a type
    /// other than mixed, of the class tested itself, compared as they are
    /// (not their `@type` nor a measure such as `.length`); nil otherwise.
    init?(_ realm: Realm, _ table: Table, _ expression: ValueExpression, _ predicate: QueryNode) throws(FiefError) {
        guard expression.hops.isEmpty, expression.typeOf == nil, expression.measure == nil, expression.lastClass == table.key,
              case .elements(let property) = expression.value,
              case .compare(_, let op, let constant, let options) = predicate else { return nil }
        let column = try table.column(property.key)
        guard column.collection == .list else { return nil }
        switch column.elementType {
        case .int, .bool, .float, .double, .string, .binary, .timestamp, .objectId, .uuid, .decimal128: break
        case .mixed, .link: return nil
        }
        self.realm = realm
        self.table = table
        self.column = column
        dbi = try table.listDatabase(property.key)
        storedType = column.elementType
        self.op = op
        self.options = options
        self.constant = constant
        constantValue = QueryEvaluator.valueOf(constant)
        if column.elementType == .int, case .int(let c) = constant { intConstant = c } else { intConstant = nil }
        nullMatches = QueryEvaluator.compareValues(.null, op, constantValue, options)
    }

    /// The objects of `mask` in `cluster` whose list `quantifier` matches;
    /// nil in a write transaction.
    func evaluate(cluster: Int64, mask: Bitmap, quantifier: QueryQuantifier) throws(FiefError) -> Bitmap? {
        if realm.write != nil { return nil }
        let snapshot = try realm.currentSnapshot()
        // ANY, NONE: owners with an element that matches; ALL: with one that does not.
        let seeking = quantifier != .all
        let found = try withExtendedLifetime(constant) { () throws(FiefError) -> Bitmap in
            try snapshot.withTransaction { (txn) throws(FiefError) -> Bitmap in
                if cursor == nil || cursorSnapshot !== snapshot {
                    cursor = try LMDBCursor(txn, dbi)
                    cursorSnapshot = snapshot
                }
                let cursor = cursor!
                var key = (UInt64(0), UInt64(0))
                var entry = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                    ListStore.key(raw.baseAddress!, owner: cluster << ClusterLayout.shift, position: 0)
                    return try cursor.seek(UnsafeRawBufferPointer(raw))
                }
                var found = Bitmap(repeating: 0)
                while let (k, v) = entry, let decoded = ListStore.decodeKey(k), ClusterLayout.cluster(of: decoded.owner) == cluster {
                    let slot = ClusterLayout.slot(of: decoded.owner)
                    let bit: UInt64 = 1 << UInt64(slot & 63)
                    if mask[slot >> 6] & bit != 0 && found[slot >> 6] & bit == 0 {
                        guard snapshot.bounds.contains(v),
                              let reader = SegmentReader(v, type: storedType, table: table.key,
                                                         key: ListStore.checkKey(column: column.key, owner: decoded.owner, position: decoded.position)) else {
                            throw realm.damagedEntry(table, column, decoded.owner, "a stored segment")
                        }
                        if has(reader, matching: seeking) { found[slot >> 6] |= bit }
                    }
                    entry = try cursor.next()
                }
                return found
            }
        }
        return quantifier == .any ? found : mask & ~found
    }

    /// Whether `segment` has an element whose comparison is `matching`.
    @inline(__always)
    private func has(_ segment: SegmentReader, matching: Bool) -> Bool {
        if let c = intConstant {
            for i in 0..<segment.count {
                let match: Bool
                if segment.isNull(i) {
                    match = nullMatches
                } else {
                    let x = segment.int(i)
                    switch op {
                    case .equal: match = x == c
                    case .notEqual: match = x != c
                    case .less: match = x < c
                    case .lessOrEqual: match = x <= c
                    case .greater: match = x > c
                    case .greaterOrEqual: match = x >= c
                    default: match = QueryEvaluator.compareValues(.int(x), op, constantValue, options)
                    }
                }
                if match == matching { return true }
            }
            return false
        }
        for i in 0..<segment.count {
            let match = segment.isNull(i) ? nullMatches : QueryEvaluator.compareValues(segment.value(i), op, constantValue, options)
            if match == matching { return true }
        }
        return false
    }
}
