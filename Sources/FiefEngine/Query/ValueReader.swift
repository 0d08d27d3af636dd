import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Forward

/// Object keys gathered at one step of a path, reused from object to
/// object (no allocation once it has grown).
final class KeyBuffer {
    var keys: [Int64] = []
}

/// Reads a value expression for objects of the class tested, following
/// its steps in place: the last chunk read at every to-one step is kept,
/// collections are walked in their segments and entries, backlinks with
/// one cursor.
final class ValueReader {
    private let realm: Realm
    private let expression: ValueExpression
    private let hops: [GraphHop]
    /// Per step: the table it leaves from, the last link chunk read (to-one
    /// steps), the walker of its collection of links, the backlinks it reads.
    private let hopTables: [Table]
    private var hopClusters: [Int64]
    private var hopChunks: [ChunkReader]
    private var hopWalkers: [CollectionWalker?]
    private var hopScanners: [BacklinkScanner?]
    private let hopBackTables: [Table?]
    private let buffers: [KeyBuffer]
    private let lastTable: Table
    private var lastCluster: Int64 = -1
    private var lastChunk: ColumnChunk?
    /// The collection the value reads (elements, aggregates).
    private var walker: CollectionWalker?
    /// Aggregates of a property of the objects one more step reaches: their
    /// class, its last chunk read, and the objects of the object at hand.
    private var targetTable: Table?
    private var targetCluster: Int64 = -1
    private var targetChunk: ColumnChunk?
    private let targetKeys = KeyBuffer()
    private var backlinkScanner: BacklinkScanner?
    /// A SUBQUERY's matching objects (of the class its steps reach).
    private var subqueryMatches = ObjectSet()
    /// Arithmetic: a reader per value term (in the term's order), the one
    /// that gives many values (if any), and the values read for one object.
    private var termReaders: [ValueReader] = []
    private var manyTerm: Int?
    private var termValues: [Value] = []

    /// A reader of `expression`; `scan` computes what it needs once (the
    /// objects matching a SUBQUERY's predicate).
    init(_ realm: Realm, _ expression: ValueExpression, scan: QueryScan) throws(FiefError) {
        self.realm = realm
        self.expression = expression
        hops = expression.hops
        var tables: [Table] = []
        var walkers: [CollectionWalker?] = []
        var backTables: [Table?] = []
        for hop in expression.hops {
            let table = try realm.table(hop.from)
            tables.append(table)
            switch hop.kind {
            case .list, .set, .map, .mapEntry, .listElement: walkers.append(try CollectionWalker(realm, table, property: hop.property))
            case .link, .backlinks: walkers.append(nil)
            }
            backTables.append(hop.kind == .backlinks ? table : nil)
        }
        hopTables = tables
        hopWalkers = walkers
        hopBackTables = backTables
        hopScanners = [BacklinkScanner?](repeating: nil, count: hops.count)
        hopClusters = [Int64](repeating: -1, count: hops.count)
        hopChunks = [ChunkReader](repeating: ChunkReader(nil), count: hops.count)
        buffers = hops.map { _ in KeyBuffer() }
        lastTable = try realm.table(expression.lastClass)
        switch expression.value {
        case .elements(let property), .mapEntry(let property, _), .listElement(let property, _), .mapKeys(let property):
            walker = try CollectionWalker(realm, lastTable, property: property.key)
        case .aggregate(_, let property, let through):
            if let through {
                targetTable = try realm.table(through.to)
                if through.kind != .backlinks { walker = try CollectionWalker(realm, lastTable, property: through.property) }
            } else {
                walker = try CollectionWalker(realm, lastTable, property: property.key)
            }
        case .subqueryCount(let query):
            subqueryMatches = try scan.matchingObjects(query)
        case .arithmetic(let term):
            var expressions: [ValueExpression] = []
            term.forEachValue { expressions.append($0) }
            for (i, expression) in expressions.enumerated() {
                termReaders.append(try ValueReader(realm, expression, scan: scan))
                if expression.isMany { manyTerm = i }
            }
            termValues = [Value](repeating: .null, count: expressions.count)
        default:
            break
        }
    }

    /// The value as the expression gives it: with `@type`, its type's code
    /// (the declared type's for a property that is not mixed).
    @inline(__always)
    private func typed(_ value: Value) -> Value {
        guard let declared = expression.typeOf else { return value }
        if declared != .mixed && declared != .link { return .int(Int64(declared.rawValue)) }
        return .int(QueryBinder.typeCode(value))
    }

    /// The one value for object `key` (an expression that is not many-valued):
    /// what a null link on the way leaves (null; 0 for a size) where one is null.
    func value(_ key: Int64) throws(FiefError) -> Value {
        typed(try untypedValue(key))
    }

    private func untypedValue(_ key: Int64) throws(FiefError) -> Value {
        if expression.sumsOverSteps {
            // The sum over every object reached (each as often as reached).
            var total: Int64 = 0
            var failure: FiefError?
            _ = try walk(0, key) { value in
                if case .int(let n) = value { total += n } else { failure = FiefError(.internal, "a backlink count is an int") }
                return true
            }
            if let failure { throw failure }
            return .int(total)
        }
        var key = key
        for step in 0..<hops.count {
            guard let target = try link(step, key) else { return expression.valueOfNullObject }
            key = target
        }
        return try single(key)
    }

    /// Call `visit` with each value for object `key`, until it returns
    /// false; returns whether every value was visited.  Strings and
    /// binaries are views, valid during the call.
    @discardableResult
    func forEach(_ key: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        try walk(0, key, visit)
    }

    private func walk(_ level: Int, _ key: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if level == hops.count {
            switch expression.value {
            case .arithmetic(let term) where manyTerm != nil:
                // One result per value of the many-valued term, the others read once.
                let many = manyTerm!
                for i in 0..<termReaders.count where i != many { termValues[i] = try termReaders[i].value(key) }
                return try termReaders[many].forEach(key) { value in
                    termValues[many] = value
                    return visit(typed(term.evaluate { termValues[$0] }))
                }
            case .arithmetic(let term) where term.listCount != nil:
                // A list of values given with the query: one result per element.
                for i in 0..<termReaders.count { termValues[i] = try termReaders[i].value(key) }
                for element in 0..<term.listCount! {
                    if !visit(typed(term.evaluate(element: element) { termValues[$0] })) { return false }
                }
                return true
            case .elements(let property):
                if expression.measure == .lengths {
                    return try walker!.forEach(owner: key) { value in
                        switch value {
                        case .string(let bytes), .binary(let bytes): return visit(.int(Int64(bytes.count)))
                        case .null where property.type != .mixed: return visit(.int(0))
                        default: return true
                        }
                    }
                }
                if expression.typeOf != nil { return try walker!.forEach(owner: key) { value in visit(typed(value)) } }
                return try walker!.forEach(owner: key, visit)
            case .mapKeys: return try walker!.forEachKey(owner: key) { value in visit(typed(value)) }
            default: return visit(typed(try single(key)))
            }
        }
        switch hops[level].kind {
        case .link, .mapEntry, .listElement:
            // A null link (a missing key, a position past the end) behind a to-many step reads nothing.
            guard let target = try link(level, key) else { return true }
            return try walk(level + 1, target, visit)
        case .list, .set, .map:
            let buffer = buffers[level]
            buffer.keys.removeAll(keepingCapacity: true)
            try hopWalkers[level]!.forEach(owner: key) { value in
                if case .link(_, let target) = value { buffer.keys.append(target) }
                return true
            }
            for target in buffer.keys where !(try walk(level + 1, target, visit)) { return false }
            return true
        case .backlinks:
            let buffer = buffers[level]
            buffer.keys.removeAll(keepingCapacity: true)
            let hop = hops[level]
            guard let dbi = hopBackTables[level]!.backlinks else { return true }
            try realm.withReadTransaction { (txn) throws(FiefError) in
                if hopScanners[level] == nil { hopScanners[level] = try BacklinkScanner(realm, txn, dbi) }
                try hopScanners[level]!.forEachRecord(of: key, originClass: hop.to, property: hop.property) { (_, origin, count) in
                    // An object linking twice (a list listing it twice) is reached twice.
                    for _ in 0..<count { buffer.keys.append(origin) }
                }
            }
            for origin in buffer.keys where !(try walk(level + 1, origin, visit)) { return false }
            return true
        }
    }

    /// The target of to-one step `step` for object `key` (nil: null).
    @inline(__always)
    private func link(_ step: Int, _ key: Int64) throws(FiefError) -> Int64? {
        switch hops[step].kind {
        case .mapEntry(let mapKey):
            guard case .link(_, let target)? = try hopWalkers[step]!.value(owner: key, key: mapKey) else { return nil }
            return target
        case .listElement(let index):
            guard case .link(_, let target)? = try hopWalkers[step]!.element(owner: key, at: index) else { return nil }
            return target
        default:
            break
        }
        let cluster = ClusterLayout.cluster(of: key)
        if cluster != hopClusters[step] {
            // Link columns are fixed-width: dirty or not, their chunks read through a plain reader.
            hopChunks[step] = try realm.chunk(hopTables[step], column: hops[step].property, cluster: cluster).reader
            hopClusters[step] = cluster
        }
        guard case .int(let target) = hopChunks[step].value(ClusterLayout.slot(of: key), type: .link, nullable: true) else { return nil }
        return target
    }

    /// The chunk of `column` of the last class for object `key`.
    @inline(__always)
    private func lastColumn(_ column: UInt32, _ key: Int64) throws(FiefError) -> ColumnChunk {
        let cluster = ClusterLayout.cluster(of: key)
        if cluster != lastCluster || lastChunk == nil {
            lastChunk = try realm.chunk(lastTable, column: column, cluster: cluster)
            lastCluster = cluster
        }
        return lastChunk!
    }

    /// The value at the end of the steps, for object `key` of the last class.
    private func single(_ key: Int64) throws(FiefError) -> Value {
        let slot = ClusterLayout.slot(of: key)
        switch expression.value {
        case .property(let property, let linkTarget):
            let chunk = try lastColumn(property.key, key)
            guard let value = QueryEvaluator.slotValue(chunk, slot, property) else {
                throw realm.damagedChunk(lastTable, column: property.key, cluster: ClusterLayout.cluster(of: key), "holds a mixed value that cannot be read")
            }
            if property.type == .link, case .int(let target) = value { return .link(classKey: linkTarget, objectKey: target) }
            return value
        case .object:
            return .link(classKey: expression.lastClass, objectKey: key)
        case .count(let property):
            return try lastColumn(property.key, key).value(slot, type: .int, nullable: false)
        case .linkCount(let property):
            return .int(try lastColumn(property.key, key).value(slot, type: .link, nullable: true).isNull ? 0 : 1)
        case .length(let property):
            let value = try lastColumn(property.key, key).value(slot, type: property.type, nullable: property.isNullable)
            switch value {
            case .string(let bytes), .binary(let bytes): return .int(Int64(bytes.count))
            default: return .int(0)
            }
        case .backlinkCount(let pair):
            guard let dbi = lastTable.backlinks else { return .int(0) }
            var total: Int64 = 0
            try realm.withReadTransaction { (txn) throws(FiefError) in
                if backlinkScanner == nil { backlinkScanner = try BacklinkScanner(realm, txn, dbi) }
                if let pair {
                    try backlinkScanner!.forEachRecord(of: key, originClass: pair.originClass, property: pair.property) { (_, _, count) in total += Int64(count) }
                } else {
                    try backlinkScanner!.forEachRecord(of: key) { (_, _, count) in total += Int64(count) }
                }
            }
            return .int(total)
        case .aggregate(let operation, let property, let through):
            guard let through, let targetTable else {
                var aggregator = Aggregator(operation, property.type)
                try walker!.forEach(owner: key) { value in aggregator.add(value); return true }
                return aggregator.result()
            }
            // The objects first (the walk may hold the snapshot's lock), then their values.
            let target = property
            targetKeys.keys.removeAll(keepingCapacity: true)
            if through.kind == .backlinks {
                guard let dbi = lastTable.backlinks else { return Aggregator(operation, target.type).result() }
                try realm.withReadTransaction { (txn) throws(FiefError) in
                    if backlinkScanner == nil { backlinkScanner = try BacklinkScanner(realm, txn, dbi) }
                    try backlinkScanner!.forEachRecord(of: key, originClass: through.to, property: through.property) { (_, origin, count) in
                        // A list listing the object twice counts twice.
                        for _ in 0..<count { targetKeys.keys.append(origin) }
                    }
                }
            } else {
                try walker!.forEach(owner: key) { value in
                    if case .link(_, let object) = value { targetKeys.keys.append(object) }
                    return true
                }
            }
            var aggregator = Aggregator(operation, target.type)
            for object in targetKeys.keys {
                let cluster = ClusterLayout.cluster(of: object)
                if cluster != targetCluster || targetChunk == nil {
                    targetChunk = try realm.chunk(targetTable, column: target.key, cluster: cluster)
                    targetCluster = cluster
                }
                guard let value = QueryEvaluator.slotValue(targetChunk!, ClusterLayout.slot(of: object), target) else {
                    throw realm.damagedChunk(targetTable, column: target.key, cluster: cluster, "holds a mixed value that cannot be read")
                }
                aggregator.add(value)
            }
            return aggregator.result()
        case .subqueryCount:
            return .int(subqueryMatches.contains(key) ? 1 : 0)
        case .arithmetic(let term):
            for i in 0..<termReaders.count { termValues[i] = try termReaders[i].value(key) }
            return term.evaluate { termValues[$0] }
        case .mapEntry(let property, let mapKey):
            let value = try walker!.value(owner: key, key: mapKey) ?? .null
            return expression.measure == .size ? try size(of: value, owner: key, property) : value
        case .listElement(let property, let index):
            let value = try walker!.element(owner: key, at: index) ?? .null
            return expression.measure == .size ? try size(of: value, owner: key, property) : value
        case .elements, .mapKeys:
            throw FiefError(.internal, "a collection's elements are many values")
        case .nested:
            throw FiefError(.internal, "a nested path is read by a NestedReader")
        }
    }
}

extension ValueReader {
    /// The size of `value`, an element of collection `property` of object
    /// `owner` (see `ValueMeasure.size`).
    fileprivate func size(of value: Value, owner: Int64, _ property: Property) throws(FiefError) -> Value {
        switch value {
        case .string(let bytes), .binary(let bytes): return .int(Int64(bytes.count))
        case .nestedList(let id), .nestedDictionary(let id):
            return .int(Int64(try realm.storedNestedCount(CollectionRef(nested: .list, table: expression.lastClass, owner: owner, property: property.key, id: id))))
        default: return .null
        }
    }
}
