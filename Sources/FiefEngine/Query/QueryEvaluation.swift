import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// Evaluating a compiled query in a realm: the clusters of a class, the
// index plan of a filter (the keys an index gives for an equality), and a
// node evaluated over one cluster at a time, as a 256-bit match mask.

// MARK: - Evaluating

extension Realm {
    /// The clusters of `table` that hold objects, in key order, with their
    /// presence bitmaps, as this realm sees them now.
    func clusters(_ table: Table) throws(FiefError) -> [(cluster: Int64, live: Bitmap)] {
        try checkReadable()
        var result: [(cluster: Int64, live: Bitmap)] = []
        let end = ClusterLayout.columnStart(1)
        var objects = 0
        func collect(_ txn: OpaquePointer, _ bounds: MapBounds, _ tables: ChunkPartTables) throws(FiefError) {
            let cursor = try LMDBCursor(txn, table.data)
            var entry = try cursor.seek(integerKey: 0)
            while let (key, value) = entry, key < end {
                let reader = try checkedChunk(value, table, ChunkID(table: table.key, key: key), bounds, cursor: { () throws(FiefError) in try LMDBCursor(txn, table.data) }, tables: tables)
                let live = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
                objects += live[0].nonzeroBitCount + live[1].nonzeroBitCount + live[2].nonzeroBitCount + live[3].nonzeroBitCount
                result.append((ClusterLayout.cluster(ofChunkKey: key), live))
                entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
            }
        }
        if let write {
            try collect(write.txn, write.bounds, write.partTables)
            if let touched = write.classes[table.key]?.touchedClusters, !touched.isEmpty {
                var merged: [Int64: Bitmap] = [:]
                for (cluster, live) in result { merged[cluster] = live }
                for cluster in touched {
                    let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: 0, cluster: cluster))
                    if let dirty = write.dirty[id] {
                        let r = dirty.reader
                        merged[cluster] = Bitmap(r.bitmapWord(0), r.bitmapWord(1), r.bitmapWord(2), r.bitmapWord(3))
                    }
                }
                result = merged.map { ($0.key, $0.value) }.sorted { $0.cluster < $1.cluster }
            }
        } else {
            let snapshot = try currentSnapshot()
            var counted: UInt64 = 0
            func collectAndCount() throws(FiefError) {
                try collect(snapshot.txn, snapshot.bounds, snapshot.partTables)
                if let meta = environment.openedDatabase(MetaKeys.database) {
                    counted = try MetaKeys.readUInt64(snapshot.txn, meta, MetaKeys.objectCount(table.key)) ?? 0
                }
            }
            if snapshot.isShared {
                try snapshot.lock.withLock { () throws(FiefError) in try collectAndCount() }
            } else {
                try collectAndCount()
            }
            // A cluster whose presence chunk went missing (a damaged tree)
            // shows as objects missing from the count.
            if counted != UInt64(objects) {
                throw FiefError(.fileCorrupt, "'\(environment.path)' is damaged: class '\(table.objectClass.name)' should hold \(counted) objects, but \(objects) are stored", path: environment.path)
            }
        }
        return result.filter { $0.live != Bitmap(repeating: 0) }
    }

    /// The keys of objects that may match `query` (in ascending order),
    /// when an index decides: an equality on the primary key or an indexed
    /// property, alone or in an AND; an OR (`IN {...}`, `IN $0`: the binder
    /// unrolls them so) of such equalities, each answered by its index (an
    /// element that cannot match gives none); a full-text search (its
    /// matches, kept by `scan`); nil when the query needs a scan.
    func indexCandidates(_ query: CompiledQuery, _ table: Table, scan: QueryScan? = nil) throws(FiefError) -> [Int64]? {
        try indexPlan(query, table, scan: scan)?.keys
    }

    /// `indexCandidates`, and whether the keys are exactly the matches (the
    /// query is such equalities alone, each key complete: no string cut in
    /// the index, no NaN), so that they need no evaluation.
    func indexPlan(_ query: CompiledQuery, _ table: Table, scan: QueryScan? = nil) throws(FiefError) -> (keys: [Int64], exact: Bool)? {
        func candidates(_ node: QueryNode) throws(FiefError) -> (keys: [Int64], exact: Bool)? {
            switch node {
            case .and(let children):
                for child in children { if let found = try candidates(child) { return (found.keys, false) } }
                return nil
            case .or(let children):
                var union: [Int64] = []
                var parts = 0
                var exact = true
                for child in children {
                    guard let found = try candidates(child) else { return nil }
                    if !found.keys.isEmpty { parts += 1 }
                    exact = exact && found.exact
                    union.append(contentsOf: found.keys)
                }
                if parts > 1 {
                    union.sort()
                    var kept = 0
                    for key in union where kept == 0 || union[kept - 1] != key {
                        union[kept] = key
                        kept += 1
                    }
                    union.removeLast(union.count - kept)
                }
                return (union, exact)
            case .constant(false):
                return ([], true)
            case .compare(let property, .equal, let constant, let options) where options.isEmpty || Self.isExactUnderFolding(constant):
                let value = QueryEvaluator.valueOf(constant)
                if property.isPrimaryKey {
                    if case .null = value, !property.isNullable { return ([], true) }
                    guard let value = try? value.coerced(for: property, className: "") else { return nil }
                    return (try lookupPrimaryKey(table, value).map { [$0] } ?? [], true)
                }
                guard let dbi = table.indexDatabases[property.key] else { return nil }
                return try withExtendedLifetime(constant) { () throws(FiefError) -> (keys: [Int64], exact: Bool)? in
                    if property.type == .mixed {
                        // Realm's equality of mixed values is equality of their index
                        // keys, but for a NaN (equal to nothing) and cut strings.
                        return (try indexLookup(dbi, value, of: property), !MixedOrder.isNaN(value) && !KeyEncoding.isCut(mixed: value))
                    }
                    guard let coerced = try? value.coerced(for: property, className: "") else { return nil }
                    return (try indexLookup(dbi, coerced, of: property), !KeyEncoding.isTruncated(coerced))
                }
            case .fullText(let predicate):
                if let scan { return (try scan.fullTextMatches(predicate, table).keys(), false) }
                return (try fullTextMatches(predicate, table).keys(), false)
            default:
                return nil
            }
        }
        return try candidates(query.root)
    }

    /// Whether `[c]`/`[d]` equality with `constant` is byte equality: a
    /// string of ASCII characters that are no letters (digits,
    /// punctuation, spaces).  Folding maps letters to letters and leaves
    /// the rest as it is, and no character outside ASCII folds to one of
    /// these, so only the string itself equals it folded; any other string
    /// constant needs the scan.
    static func isExactUnderFolding(_ constant: QueryConstant) -> Bool {
        guard case .bytes(let bytes, true) = constant else { return false }
        return bytes.allSatisfy { $0 < 0x80 && !(($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) }
    }

    private func indexLookup(_ dbi: MDB_dbi, _ value: Value, of property: Property) throws(FiefError) -> [Int64] {
        var bytes: [UInt8] = []
        // Room for most keys at once (an int, a short string).
        bytes.reserveCapacity(48)
        guard KeyEncoding.encodeIndexKey(value, of: property, into: &bytes) else { return [] }
        // The duplicates of a key come in the order of their bytes, not of
        // the object keys: sorted after, unless they already are.
        func scan(_ cursor: LMDBCursor) throws(FiefError) -> [Int64] {
            var keys: [Int64] = []
            keys.reserveCapacity(16)
            var ascending = true
            try bytes.withBytes { (wanted) throws(FiefError) in
                var entry = try cursor.seek(wanted)
                while let (key, value) = entry, key.count == wanted.count,
                      key.count == 0 || memcmp(key.baseAddress!, wanted.baseAddress!, key.count) == 0 {
                    let object = Int64(bitPattern: value.loadUnaligned(as: UInt64.self))
                    if let last = keys.last, last > object { ascending = false }
                    keys.append(object)
                    entry = try cursor.move(MDB_NEXT_DUP)
                }
            }
            if !ascending { keys.sort() }
            return keys
        }
        if let write { return try scan(try LMDBCursor(write.txn, dbi)) }
        // In a snapshot, through its cursor on the index (kept, as for chunks).
        let snapshot = try currentSnapshot()
        if snapshot.isShared {
            return try snapshot.lock.withLock { () throws(FiefError) in try scan(try snapshot.cursor(dbi)) }
        }
        return try scan(try snapshot.cursor(dbi))
    }

    /// The objects of `cluster` (among `mask`) that match `node`; `scan`
    /// keeps what graph nodes compute once per evaluation of a query (nil
    /// when the node has none: see `QueryNode.readsGraph`).
    func evaluate(_ node: QueryNode, _ table: Table, cluster: Int64, mask: Bitmap, scan: QueryScan?) throws(FiefError) -> Bitmap {
        switch node {
        case .constant(let b): return b ? mask : Bitmap(repeating: 0)
        case .and(let children):
            var bits = mask
            for child in children {
                bits &= try evaluate(child, table, cluster: cluster, mask: bits, scan: scan)
                if bits == Bitmap(repeating: 0) { break }
            }
            return bits
        case .or(let children):
            var bits = Bitmap(repeating: 0)
            for child in children {
                bits |= try evaluate(child, table, cluster: cluster, mask: mask & ~bits, scan: scan)
            }
            return bits & mask
        case .not(let inner):
            return mask & ~(try evaluate(inner, table, cluster: cluster, mask: mask, scan: scan))
        case .graph(let graph):
            guard let scan else { throw FiefError(.internal, "a query through links was evaluated without its scan") }
            return try scan.evaluate(graph, table, cluster: cluster, mask: mask)
        case .fullText(let predicate):
            guard let scan else { throw FiefError(.internal, "a full-text search was evaluated without its scan") }
            return try scan.fullTextMatches(predicate, table).bits(cluster: cluster) & mask
        case .compare(let property, let op, let constant, let options):
            let chunk = try self.chunk(table, column: property.key, cluster: cluster)
            if property.type == .mixed {
                var bits = Bitmap(repeating: 0)
                var damaged = false
                withExtendedLifetime(constant) {
                    let c = QueryEvaluator.valueOf(constant)
                    forEachSlot(mask) { slot in
                        guard let v = QueryEvaluator.slotValue(chunk, slot, property) else { damaged = true; return }
                        if QueryEvaluator.compareMixed(v, op, c, options) { QueryEvaluator.set(&bits, slot) }
                    }
                }
                if damaged { throw damagedMixed(table, property) }
                return bits
            }
            return QueryEvaluator.compareColumn(chunk, property, op, constant, options, mask: mask)
        case .compareProperties(let a, let op, let b, let options):
            let ca = try chunk(table, column: a.key, cluster: cluster)
            let cb = try chunk(table, column: b.key, cluster: cluster)
            let mixed = a.type == .mixed || b.type == .mixed
            var bits = Bitmap(repeating: 0)
            var damaged = false
            forEachSlot(mask) { slot in
                guard let va = QueryEvaluator.slotValue(ca, slot, a), let vb = QueryEvaluator.slotValue(cb, slot, b) else { damaged = true; return }
                let match = mixed ? QueryEvaluator.compareMixed(va, op, vb, options) : QueryEvaluator.compareValues(va, op, vb, options)
                if match { QueryEvaluator.set(&bits, slot) }
            }
            if damaged { throw damagedMixed(table, a.type == .mixed ? a : b) }
            return bits
        case .constantMatches(let constant, let op, let p, let options):
            let chunk = try self.chunk(table, column: p.key, cluster: cluster)
            var bits = Bitmap(repeating: 0)
            var damaged = false
            withExtendedLifetime(constant) {
                let c = QueryEvaluator.valueOf(constant)
                forEachSlot(mask) { slot in
                    guard let v = QueryEvaluator.slotValue(chunk, slot, p) else { damaged = true; return }
                    if QueryEvaluator.constant(c, op, matches: v, options) { QueryEvaluator.set(&bits, slot) }
                }
            }
            if damaged { throw damagedMixed(table, p) }
            return bits
        }
    }

    /// The error for a mixed value whose stored coding does not decode.
    private func damagedMixed(_ table: Table, _ property: Property) -> FiefError {
        FiefError(.fileCorrupt, "'\(environment.path)' is damaged: a value of mixed property '\(table.objectClass.name).\(property.name)' does not decode", path: environment.path)
    }
}
