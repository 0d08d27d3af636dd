import CLMDB

// Evaluating graph nodes (QueryBinder.swift), a cluster of the class tested
// at a time, as the rest of a query is evaluated.
//
// Backward (`GraphNode.reach`): once per evaluation of a query, the
// predicate over the class a path ends at is evaluated columnar over that
// class (through an index when it has an indexed equality), and the
// matching objects are carried back along the path, one hop at a time,
// through the backlinks of the objects reached: a link is recorded on its
// target's side (`Backlinks`), so the objects linking to a set of targets
// are one cursor walk over those targets' records, in key order.  The cost
// is the scan of the class reached plus the matches and their referrers,
// never a pass over the objects tested.  Each cluster of the class tested
// then reads its mask of reached objects (and, where a null link on the
// path matches too, the null bits of its link column).
//
// Forward (`GraphNode.compare`): per object, each operand's links are
// followed in place (object key → cluster and slot; the last chunk read at
// every step is kept, so neighbours share their reads) and the values
// compared.  Nothing is allocated per object.

/// Objects of one class: a 256-bit mask per cluster.
struct ObjectSet {
    private(set) var clusters: [Int64: Bitmap] = [:]

    var isEmpty: Bool { clusters.isEmpty }

    @inline(__always)
    mutating func insert(_ key: Int64) {
        QueryEvaluator.set(&clusters[ClusterLayout.cluster(of: key), default: Bitmap(repeating: 0)], ClusterLayout.slot(of: key))
    }

    /// Add the objects `bits` of `cluster`.
    @inline(__always)
    mutating func insert(cluster: Int64, _ bits: Bitmap) {
        if bits == Bitmap(repeating: 0) { return }
        clusters[cluster, default: Bitmap(repeating: 0)] |= bits
    }

    /// The objects of `cluster` in the set.
    @inline(__always)
    func bits(_ cluster: Int64) -> Bitmap { clusters[cluster] ?? Bitmap(repeating: 0) }

    /// Every object, in key order.
    func forEach(_ body: (Int64) throws(FiefError) -> Void) throws(FiefError) {
        for cluster in clusters.keys.sorted() {
            let base = cluster << ClusterLayout.shift
            let bits = clusters[cluster]!
            for word in 0..<4 {
                var w = bits[word]
                while w != 0 {
                    try body(base | Int64(word << 6 | w.trailingZeroBitCount))
                    w &= w - 1
                }
            }
        }
    }
}

/// What one evaluation of a query (one scan of results) keeps between
/// clusters: the objects each backward node reaches, computed on its
/// first cluster, and each forward operand's reader.  Made per scan, so
/// results evaluated again (after a change) start afresh, and realms
/// sharing a compiled query never share one.
final class QueryScan {
    let realm: Realm
    private var reached: [ObjectIdentifier: ObjectSet] = [:]
    private var readers: [ObjectIdentifier: (ValueReader, ValueReader)] = [:]

    init(realm: Realm) { self.realm = realm }

    /// The objects of `cluster` (among `mask`) of `table` that `node` matches.
    func evaluate(_ node: GraphNode, _ table: Table, cluster: Int64, mask: Bitmap) throws(FiefError) -> Bitmap {
        switch node.kind {
        case .reach(let reach):
            var bits = try reachedObjects(node, reach).bits(cluster)
            if reach.nullLinksMatch, let first = reach.hops.first {
                bits |= try nullLinks(table, column: first.property, cluster: cluster)
            }
            return reach.complement ? mask & ~bits : mask & bits
        case .compare(let a, let op, let b, let options):
            let (ra, rb) = try readers(node, a, b)
            let mixed = a.last.type == .mixed || b.last.type == .mixed
            var bits = Bitmap(repeating: 0)
            var failure: FiefError?
            QueryEvaluator.forEachSlot(mask) { slot in
                if failure != nil { return }
                let key = cluster << ClusterLayout.shift | Int64(slot)
                do throws(FiefError) {
                    let va = try ra.value(key), vb = try rb.value(key)
                    let match = mixed ? QueryEvaluator.compareMixed(va, op, vb, options) : QueryEvaluator.compareValues(va, op, vb, options)
                    if match { QueryEvaluator.set(&bits, slot) }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            return bits
        }
    }

    private func readers(_ node: GraphNode, _ a: ValuePath, _ b: ValuePath) throws(FiefError) -> (ValueReader, ValueReader) {
        if let known = readers[ObjectIdentifier(node)] { return known }
        let made = (try ValueReader(realm, a), try ValueReader(realm, b))
        readers[ObjectIdentifier(node)] = made
        return made
    }

    // MARK: Backward

    /// The objects of the class tested whose path reaches an object
    /// matching `reach.target` (or, with `nullLinksMatch`, crosses a null
    /// link after its first), computed once per scan.
    private func reachedObjects(_ node: GraphNode, _ reach: PathReach) throws(FiefError) -> ObjectSet {
        if let known = reached[ObjectIdentifier(node)] { return known }
        var objects = try matchingObjects(reach.target)
        for i in stride(from: reach.hops.count - 1, through: 0, by: -1) {
            objects = try linking(to: objects, through: reach.hops[i])
            if reach.nullLinksMatch && i > 0 {
                // Objects of this class whose next link is null read null.
                let hop = reach.hops[i]
                let table = try realm.table(hop.from)
                for (cluster, live) in try realm.clusters(table) {
                    objects.insert(cluster: cluster, try nullLinks(table, column: hop.property, cluster: cluster) & live)
                }
            }
        }
        reached[ObjectIdentifier(node)] = objects
        return objects
    }

    /// The objects of `query`'s class that match it: through an index
    /// when it has an indexed equality, else by a scan of every cluster.
    func matchingObjects(_ query: CompiledQuery) throws(FiefError) -> ObjectSet {
        let table = try realm.table(query.tableKey)
        var objects = ObjectSet()
        if let candidates = try realm.indexCandidates(query, table) {
            var i = 0
            while i < candidates.count {
                let cluster = ClusterLayout.cluster(of: candidates[i])
                var mask = Bitmap(repeating: 0)
                while i < candidates.count && ClusterLayout.cluster(of: candidates[i]) == cluster {
                    QueryEvaluator.set(&mask, ClusterLayout.slot(of: candidates[i]))
                    i += 1
                }
                let presence = try realm.chunk(table, column: ClusterLayout.presenceColumn, cluster: cluster).reader
                mask &= Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
                if mask != Bitmap(repeating: 0) {
                    objects.insert(cluster: cluster, try realm.evaluate(query.root, table, cluster: cluster, mask: mask, scan: self))
                }
            }
            return objects
        }
        for (cluster, live) in try realm.clusters(table) {
            objects.insert(cluster: cluster, try realm.evaluate(query.root, table, cluster: cluster, mask: live, scan: self))
        }
        return objects
    }

    /// The objects of `hop.from` whose link reaches one of `targets` (of
    /// `hop.to`): the targets' backlinks through the hop's property.
    private func linking(to targets: ObjectSet, through hop: GraphHop) throws(FiefError) -> ObjectSet {
        var origins = ObjectSet()
        if targets.isEmpty { return origins }
        guard let dbi = try realm.table(hop.to).backlinks else { return origins }
        try realm.withReadTransaction { (txn) throws(FiefError) in
            var scanner = try BacklinkScanner(txn, dbi)
            try targets.forEach { (target) throws(FiefError) in
                try scanner.forEachOrigin(of: target, originClass: hop.from, property: hop.property) { (origin, _) in
                    origins.insert(origin)
                }
            }
        }
        return origins
    }

    /// The objects of `cluster` of `table` whose link `column` is null
    /// (whether they exist or not).
    private func nullLinks(_ table: Table, column: UInt32, cluster: Int64) throws(FiefError) -> Bitmap {
        let reader = try realm.chunk(table, column: column, cluster: cluster).reader
        // A missing chunk reads as all null (a property added after the cluster was written).
        guard reader.base != nil else { return Bitmap(repeating: ~0) }
        return Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
    }
}

// MARK: - Forward

/// Reads one operand's value for objects of the class tested, following
/// its links in place; keeps the last chunk read at every step.
final class ValueReader {
    private let realm: Realm
    private let path: ValuePath
    private let hopTables: [Table]
    private let lastTable: Table
    private var hopClusters: [Int64]
    private var hopChunks: [ChunkReader]
    private var lastCluster: Int64 = -1
    private var lastChunk: ColumnChunk?

    init(_ realm: Realm, _ path: ValuePath) throws(FiefError) {
        self.realm = realm
        self.path = path
        var tables: [Table] = []
        for hop in path.hops { tables.append(try realm.table(hop.from)) }
        hopTables = tables
        lastTable = try realm.table(path.lastClass)
        hopClusters = [Int64](repeating: -1, count: path.hops.count)
        hopChunks = [ChunkReader](repeating: ChunkReader(nil), count: path.hops.count)
    }

    /// The value for object `key`: null where a link on the way is null; a
    /// view into the chunk for strings and binaries (valid until the next read).
    func value(_ key: Int64) throws(FiefError) -> Value {
        var key = key
        for step in 0..<path.hops.count {
            let cluster = ClusterLayout.cluster(of: key)
            if cluster != hopClusters[step] {
                // Link columns are fixed-width: dirty or not, their chunks read through a plain reader.
                hopChunks[step] = try realm.chunk(hopTables[step], column: path.hops[step].property, cluster: cluster).reader
                hopClusters[step] = cluster
            }
            guard case .int(let target) = hopChunks[step].value(ClusterLayout.slot(of: key), type: .link, nullable: true) else {
                return .null
            }
            key = target
        }
        let cluster = ClusterLayout.cluster(of: key)
        if cluster != lastCluster || lastChunk == nil {
            lastChunk = try realm.chunk(lastTable, column: path.last.key, cluster: cluster)
            lastCluster = cluster
        }
        guard let value = QueryEvaluator.slotValue(lastChunk!, ClusterLayout.slot(of: key), path.last) else {
            throw realm.damagedChunk(lastTable, column: path.last.key, cluster: cluster, "holds a mixed value that cannot be read")
        }
        if path.last.type == .link, case .int(let target) = value {
            return .link(classKey: path.lastLinkTarget, objectKey: target)
        }
        return value
    }
}

// MARK: - Backlinks of many targets

/// Reads the backlink records of many targets of one class, asked in
/// ascending key order, with one cursor: a target whose records lie in the
/// run read last needs no seek.
struct BacklinkScanner {
    private let cursor: LMDBCursor
    private var run: Backlinks.Run?

    init(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        cursor = try LMDBCursor(txn, dbi)
    }

    /// Call `body` with each origin object (and its link count) of class
    /// `originClass` linking to `target` through `property`.
    mutating func forEachOrigin(of target: Int64, originClass: UInt32, property: UInt32,
                                _ body: (Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        let wanted = Backlinks.Record(target: target, originClass: originClass, property: property, origin: 0)
        var index: Int
        if let run, !run.record(run.count - 1).precedes(wanted), !wanted.precedes(run.record(0)) {
            index = run.lowerBound(wanted)
        } else {
            var key = (UInt64(0), UInt64(0), UInt64(0))
            let found = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                wanted.writeKey(raw.baseAddress!)
                return try cursor.seek(UnsafeRawBufferPointer(raw))
            }
            guard let found else { run = nil; return }
            guard let read = Backlinks.Run(found.value, key: found.key) else { throw Backlinks.damaged() }
            run = read
            index = read.lowerBound(wanted)
        }
        while let current = run {
            while index < current.count {
                guard current.target(index) == wanted.target, current.pair(index) == wanted.pair else { return }
                try body(Int64(bitPattern: current.origin(index)), current.count(index))
                index += 1
            }
            // The records may go on in the next run.
            guard let next = try cursor.next() else { run = nil; return }
            guard let read = Backlinks.Run(next.value, key: next.key) else { throw Backlinks.damaged() }
            run = read
            index = 0
        }
    }
}
