import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Results of objects (see `Results`): the objects of one class, of a
/// list, set or map of links, or linking objects; all of them, or those
/// matching every filter, then ordered by the stages.  Its rows are object
/// keys, in order, once `keysMaterialized`.  It evaluates when first read
/// and again whenever something it reads may have changed (the realm's
/// stamps).
public final class ObjectResults: Results, @unchecked Sendable {
    public let tableKey: UInt32
    /// The matches of the last scan, per cluster (in key order), and their count.
    @exclusivity(unchecked) private var matchedClusters: [(Int64, Bitmap)] = []
    @exclusivity(unchecked) private var matchedCount = 0
    /// Whether `rows` was built from `matchedClusters` (and the stages applied).
    @exclusivity(unchecked) private var keysMaterialized = false
    /// The columns of the class the filters and stages read: a write to
    /// another column leaves these results as they are.
    let dependentColumns: [UInt32]
    /// The columns of other classes the filters and stages read, through
    /// links, collections and backlinks (key paths such as "owner.name"):
    /// each class with its columns (its creates and deletes count too).
    let linkedColumns: [(table: UInt32, columns: [UInt32])]
    /// Set for linking objects: only the objects whose link `property`
    /// points to the object `target` of class `targetClass`.
    let linking: (targetClass: UInt32, target: Int64, property: UInt32)?
    /// Set for the objects of a list of links: the list (its owner's class,
    /// property and owner), whose elements these results are, in list order.
    let list: ListID?
    /// A count made without the matches (`QueryScan.countMatches`), and
    /// the stamp it was made at (0: none).
    @exclusivity(unchecked) private var countedStamp: UInt64 = 0
    @exclusivity(unchecked) private var counted = 0
    /// The scan that made `counted`: what it found on the way (the objects
    /// the filter's path reaches) serves the evaluation that follows, when
    /// nothing changed since (a count, then the iteration: the filter is
    /// evaluated once).
    @exclusivity(unchecked) private var countingScan: QueryScan?

    public init(realm: Realm, tableKey: UInt32) throws(FiefError) {
        try realm.checkReadable()
        let table = try realm.table(tableKey)
        if table.objectClass.isEmbedded {
            throw FiefError(.invalidArgument, "class '\(table.objectClass.name)' is embedded: its objects are reached through their parents, not listed on their own")
        }
        self.tableKey = tableKey
        self.dependentColumns = []
        self.linkedColumns = []
        self.linking = nil
        self.list = nil
        super.init(realm: realm, filters: [], stages: [], holdsObjects: true, sourceClass: self.tableKey)
    }

    /// The objects of list, set or map `property` of object `owner` of
    /// class `ownerClass` (of links), live: they follow every change to the
    /// collection and to the objects.  A list's in list order (an object
    /// listed twice is there twice), a set's in its order (object key), a
    /// map's values in key order (null values left out).
    public init(realm: Realm, list property: UInt32, of owner: Int64, in ownerClass: UInt32) throws(FiefError) {
        try realm.checkReadable()
        let table = try realm.table(ownerClass)
        let column = try table.column(property)
        guard column.collection != .none else {
            throw FiefError(.invalidArgument, "'\(table.objectClass.name).\((try? table.property(property).name) ?? "")' is not a list, set or map")
        }
        guard column.elementType == .link else {
            throw FiefError(.invalidArgument, "'\(table.objectClass.name).\((try? table.property(property).name) ?? "")' is a \(column.collection.name) of values, not of objects: read its values instead")
        }
        try realm.requireLive(table, owner)
        self.tableKey = column.linkTarget
        self.dependentColumns = []
        self.linkedColumns = []
        self.linking = nil
        self.list = ListID(table: ownerClass, column: property, owner: owner)
        super.init(realm: realm, filters: [], stages: [], holdsObjects: true, sourceClass: self.tableKey)
    }

    /// The objects of class `originClass` whose link `property` points to
    /// object `objectKey` of class `targetClass` (linking objects, through
    /// the target's backlinks), live.
    public init(realm: Realm, linkingTo objectKey: Int64, of targetClass: UInt32, originClass: UInt32, property: UInt32) throws(FiefError) {
        try realm.checkReadable()
        let origin = try realm.table(originClass)
        let target = try realm.table(targetClass)
        let column = try origin.column(property)
        // A mixed property (or collection) may link to any class but an embedded one.
        let linksHere = column.elementType == .link && column.linkTarget == targetClass
        guard linksHere || (column.elementType == .mixed && !target.objectClass.isEmbedded) else {
            throw FiefError(.invalidArgument, "'\(origin.objectClass.name).\((try? origin.property(property))?.name ?? "#\(property)")' is not a link to class '\(target.objectClass.name)'")
        }
        try realm.requireLive(target, objectKey)
        self.tableKey = originClass
        self.dependentColumns = [property]
        self.linkedColumns = []
        self.linking = (targetClass, objectKey, property)
        self.list = nil
        super.init(realm: realm, filters: [], stages: [], holdsObjects: true, sourceClass: self.tableKey)
    }

    private init(realm: Realm, tableKey: UInt32, filters: [CompiledQuery], stages: [OrderingStage],
                 linking: (targetClass: UInt32, target: Int64, property: UInt32)?, list: ListID?) {
        self.tableKey = tableKey
        self.linking = linking
        self.list = list
        (self.dependentColumns, self.linkedColumns) = ObjectResults.columnsRead(tableKey: tableKey, filters: filters, stages: stages, linking: linking)
        super.init(realm: realm, filters: filters, stages: stages, holdsObjects: true, sourceClass: tableKey)
    }

    /// The columns `filters` and `stages` read: of the class itself, and
    /// of other classes (through links, collections and backlinks).
    private static func columnsRead(tableKey: UInt32, filters: [CompiledQuery], stages: [OrderingStage],
                                    linking: (targetClass: UInt32, target: Int64, property: UInt32)?) -> ([UInt32], [(table: UInt32, columns: [UInt32])]) {
        if stages.isEmpty && linking == nil && filters.count == 1, let known = filters[0].knownColumns {
            return (known.own, known.linked)
        }
        if stages.isEmpty && !filters.contains(where: { $0.root.readsGraph }) {
            // Filters on the class's own values only: no dictionary.
            var own: [UInt32] = []
            for query in filters { query.root.collectOwnColumns(into: &own) }
            if let linking { own.append(linking.property) }
            own.sort()
            var kept = 0
            for column in own where kept == 0 || own[kept - 1] != column {
                own[kept] = column
                kept += 1
            }
            own.removeLast(own.count - kept)
            return (own, [])
        }
        var columns: [UInt32: Set<UInt32>] = [:]
        for stage in stages {
            switch stage {
            case .sort(let keys): ResolvedKeyPath.collectColumns(keys.map(\.path), into: &columns)
            case .distinct(let paths): ResolvedKeyPath.collectColumns(paths, into: &columns)
            case .limit: break
            }
        }
        for query in filters { query.root.collectColumns(table: tableKey, into: &columns) }
        var own = columns.removeValue(forKey: tableKey) ?? []
        if let linking { own.insert(linking.property) }
        return (own.sorted(), columns.keys.sorted().map { ($0, columns[$0]!.sorted()) })
    }

    // MARK: Element kind

    override public var elementType: (type: PropertyType, isNullable: Bool) { (.link, false) }

    override func with(filters: [CompiledQuery], stages: [OrderingStage], realm: Realm) -> Results {
        ObjectResults(realm: realm, tableKey: tableKey, filters: filters, stages: stages, linking: linking, list: list)
    }

    override func compileFilter(_ predicate: String, _ arguments: [QueryArgument]) throws(FiefError) -> (CompiledQuery, [QueryOrderingStage]) {
        let table = try realm.table(tableKey)
        return try realm.queryCache.compile(predicate, table: table, realm: realm, arguments: arguments)
    }

    override func resolve(_ stage: ResultsStage) throws(FiefError) -> OrderingStage {
        try OrderingStage.resolve(stage, from: try realm.table(tableKey), in: realm)
    }

    override func sortColumn(_ path: ResolvedKeyPath, ascending: Bool, rows: UnsafeBufferPointer<Int64>, rowsAscend: Bool) throws(FiefError) -> SortColumn {
        try SortColumn(realm: realm, path: path, keys: rows, ascending: ascending)
    }

    override public func aggregate(_ operation: AggregateOperation, property: UInt32) throws(FiefError) -> Value {
        try aggregateObjects(operation, property: property)
    }

    override func evaluateRows() throws(FiefError) { try evaluate() }

    @inline(__always)
    private var isFresh: Bool { isUnchanged(since: evaluatedStamp) }

    /// Whether nothing these results read changed since `stamp`.
    @inline(__always)
    private func isUnchanged(since stamp: UInt64) -> Bool {
        guard realm.isUnchanged(since: stamp, table: tableKey, columns: dependentColumns) else { return false }
        if let list, !realm.isUnchanged(since: stamp, table: list.table, columns: [list.column]) { return false }
        for linked in linkedColumns where !realm.isUnchanged(since: stamp, table: linked.table, columns: linked.columns) {
            return false
        }
        return true
    }

    // MARK: Reading

    override public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        if !isFresh {
            if let n = try countWithoutMatches() { return n }
            try scanMatches()
        }
        if !narrows { return matchedCount }
        // Limits alone need no keys: the smallest one caps the count.
        if !stages.contains(where: { if case .distinct = $0 { return true }; return false }) {
            var count = matchedCount
            for case .limit(let n) in stages { count = min(count, n) }
            return count
        }
        try evaluate()
        return rows.count
    }

    public func key(at index: Int) throws(FiefError) -> Int64 {
        try evaluate()
        guard index >= 0, index < rows.count else {
            throw FiefError(.indexOutOfBounds, "index \(index) is out of bounds (the results hold \(rows.count) objects)")
        }
        return rows[index]
    }

    /// Read properties of the object at `index` into `out`, without checking
    /// again that it exists (fresh results hold only live objects).
    public func values(at index: Int, properties: UnsafeBufferPointer<UInt32>, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        let key = try key(at: index)
        let table = try realm.table(tableKey)
        for i in 0..<properties.count {
            out[i] = try realm.slotValue(table, try table.column(properties[i]), key)
        }
    }

    public func index(of key: Int64) throws(FiefError) -> Int? {
        try evaluate()
        if list == nil && !stages.contains(where: { if case .sort = $0 { return true }; return false }) {
            // Unsorted results are in key order (distinct and limit keep it).
            var low = 0, high = rows.count
            while low < high {
                let mid = (low + high) / 2
                if rows[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low < rows.count && rows[low] == key ? low : nil
        }
        return rows.firstIndex(of: key)
    }

    /// The keys from position `start` on, as many as `out` holds or the
    /// results have, into `out`; returns how many were written (0 when
    /// `start` is the count).  A `start` past the count is out of bounds.
    public func copyKeys(from start: Int, into out: UnsafeMutableBufferPointer<Int64>) throws(FiefError) -> Int {
        try evaluate()
        guard start >= 0, start <= rows.count else {
            throw FiefError(.indexOutOfBounds, "start \(start) is out of bounds (the results hold \(rows.count) objects)")
        }
        let n = min(out.count, rows.count - start)
        for i in 0..<n { out[i] = rows[start + i] }
        return n
    }

    /// Every key, in order (a copy).
    public func allKeys() throws(FiefError) -> [Int64] {
        try evaluate()
        return rows
    }

    /// Delete every object of these results.
    public func deleteAll() throws(FiefError) {
        _ = try realm.requireWrite()
        let table = try realm.table(tableKey)
        if filters.isEmpty && linking == nil && list == nil && !narrows {
            try realm.deleteAll(table: tableKey)
            return
        }
        try evaluate()
        let doomed = Set(rows).sorted()
        for key in doomed where try realm.isLive(table, key) {
            try realm.deleteObject(table: tableKey, key: key)
        }
    }

    /// Visit the matching objects cluster by cluster, in no particular
    /// order, each as often as it is in the results (an object listed twice
    /// in a list is visited twice): what aggregates read.
    func forEachMatch(_ body: (Int64, Bitmap) throws(FiefError) -> Void) throws(FiefError) {
        try realm.checkReadable()
        if !isFresh { try scanMatches() }
        if narrows {
            // Distinct and limit choose among the matches: by their keys.
            try evaluate()
        } else if list == nil {
            for (cluster, bits) in matchedClusters { try body(cluster, bits) }
            return
        }
        var cluster: Int64 = -1
        var mask = Bitmap(repeating: 0)
        for key in rows {
            let c = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
            let bit: UInt64 = 1 << UInt64(slot & 63)
            if c != cluster || mask[slot >> 6] & bit != 0 {
                if cluster >= 0 { try body(cluster, mask) }
                cluster = c
                mask = Bitmap(repeating: 0)
            }
            mask[slot >> 6] |= bit
        }
        if cluster >= 0 { try body(cluster, mask) }
    }

    // MARK: Rows from a notifier

    /// Whether the rows are in key order (no sort, not a list's elements).
    var rowsInKeyOrder: Bool {
        list == nil && !stages.contains { if case .sort = $0 { return true }; return false }
    }

    /// Take `keys`, the rows a notifier's worker evaluated at the version
    /// the realm reads now (checked by the caller): reading them evaluates
    /// nothing until something they read changes.
    /// `clusters`: the rows' cluster masks when the worker kept them up to
    /// date (then they are not made again from the rows).
    func adoptRows(_ keys: [Int64], clusters: [(Int64, Bitmap)]? = nil) {
        // The same rows as held (a change set of modifications only): the
        // clusters they make are those already held.
        let given = list == nil ? clusters : nil
        let same = given == nil && keysMaterialized && rows == keys
        rows = keys
        if let given {
            matchedClusters = given
        } else if !same {
            matchedClusters.removeAll(keepingCapacity: true)
        }
        if given != nil {
            // Done: the worker's masks.
        } else if list == nil && !same && !rowsInKeyOrder && ObjectResults.clustersWithoutSorting(keys, into: &matchedClusters) {
            // Done: sorted rows' clusters, without sorting their keys.
        } else if list == nil && !same {
            // What aggregates and counts read: the rows by cluster, in key order.
            let ascending = rowsInKeyOrder ? keys : keys.sorted()
            var cluster: Int64 = -1
            var mask = Bitmap(repeating: 0)
            for key in ascending {
                let c = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
                if c != cluster {
                    if cluster >= 0 { matchedClusters.append((cluster, mask)) }
                    cluster = c
                    mask = Bitmap(repeating: 0)
                }
                mask[slot >> 6] |= 1 << UInt64(slot & 63)
            }
            if cluster >= 0 { matchedClusters.append((cluster, mask)) }
        }
        matchedCount = keys.count
        keysMaterialized = true
        lastOrderKeys = nil
        countedStamp = 0
        countingScan = nil
        evaluatedStamp = realm.stamp
    }

    /// The clusters of `keys` (any order) with their slots, in cluster
    /// order, into `clusters`, by one pass over a table of the clusters
    /// they span, when that table is small (keys of one class are dense);
    /// false, doing nothing, otherwise.
    static func clustersWithoutSorting(_ keys: [Int64], into clusters: inout [(Int64, Bitmap)]) -> Bool {
        guard !keys.isEmpty else { return true }
        var low = Int64.max, high = Int64.min
        for key in keys {
            let c = ClusterLayout.cluster(of: key)
            if c < low { low = c }
            if c > high { high = c }
        }
        guard low >= 0, high - low < Int64(keys.count) * 4 + 64 else { return false }
        let empty = Bitmap(repeating: 0)
        var masks = [Bitmap](repeating: empty, count: Int(high - low + 1))
        for key in keys {
            let slot = ClusterLayout.slot(of: key)
            masks[Int(ClusterLayout.cluster(of: key) - low)][slot >> 6] |= 1 << UInt64(slot & 63)
        }
        for (index, mask) in masks.enumerated() where mask != empty { clusters.append((low + Int64(index), mask)) }
        return true
    }

    // MARK: Evaluation
    // MARK: Evaluation

    /// Make `rows` hold the current matches, in order.
    private func evaluate() throws(FiefError) {
        try realm.checkReadable()
        if !isFresh { try scanMatches() }
        if keysMaterialized { return }
        if list != nil {
            // `rows` holds the list's matching elements, in list order.
            try applyStages()
            keysMaterialized = true
            return
        }
        rows.removeAll(keepingCapacity: true)
        rows.reserveCapacity(matchedCount)
        for (cluster, bits) in matchedClusters {
            let base = cluster << ClusterLayout.shift
            forEachSlot(bits) { slot in rows.append(base | Int64(slot)) }
        }
        try applyStages()
        keysMaterialized = true
    }

    /// The count of the matches made without finding them, when the one
    /// filter allows it (a path of to-one links deciding it alone: see
    /// `QueryScan.countMatches`) and no stage narrows, or for linking
    /// objects with neither filter nor narrowing stage; kept until something
    /// the results read changes.  Nil otherwise: the matches are found.
    private func countWithoutMatches() throws(FiefError) -> Int? {
        if let linking, list == nil, filters.isEmpty, !narrows {
            // Linking objects alone: the target's backlink records through
            // the property, counted in place (each names one live origin).
            if countedStamp != 0 && isUnchanged(since: countedStamp) { return counted }
            let n = try realm.linkingObjectCount(to: linking.target, of: linking.targetClass, originClass: tableKey, property: linking.property)
            counted = n
            countedStamp = realm.stamp
            return n
        }
        guard list == nil, linking == nil, filters.count == 1, case .graph = filters[0].root, !narrows else { return nil }
        if countedStamp != 0 && isUnchanged(since: countedStamp) { return counted }
        let scan = QueryScan(realm: realm)
        guard let n = try scan.countMatches(filters[0].root) else { return nil }
        counted = n
        countedStamp = realm.stamp
        countingScan = scan
        return n
    }

    /// Run the query: remember which objects of each cluster match.
    private func scanMatches() throws(FiefError) {
        if let list {
            try scanList(list)
            return
        }
        matchedClusters.removeAll(keepingCapacity: true)
        matchedCount = try scan(expecting: { matchedClusters.reserveCapacity($0) }) { cluster, bits in matchedClusters.append((cluster, bits)) }
        keysMaterialized = false
        evaluatedStamp = realm.stamp
    }

    /// The elements of `list` that every filter matches, in list order (an
    /// object listed twice is there twice).
    private func scanList(_ list: ListID) throws(FiefError) {
        var elements = try realm.linkedKeys(list)
        if !filters.isEmpty {
            let table = try realm.table(tableKey)
            // Each cluster the list reaches, evaluated once for the elements in it.
            var masks: [Int64: Bitmap] = [:]
            for key in elements { QueryEvaluator.set(&masks[ClusterLayout.cluster(of: key), default: Bitmap(repeating: 0)], ClusterLayout.slot(of: key)) }
            var matched: [Int64: Bitmap] = [:]
            let scan = makeScan()
            for (cluster, mask) in masks {
                _ = try visitCluster(table, cluster, mask, scan) { (c, bits) in matched[c] = bits }
            }
            elements = elements.filter { key in
                guard let bits = matched[ClusterLayout.cluster(of: key)] else { return false }
                let slot = ClusterLayout.slot(of: key)
                return bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
            }
        }
        rows = elements
        matchedClusters.removeAll()
        matchedCount = elements.count
        keysMaterialized = false
        evaluatedStamp = realm.stamp
    }

    /// What one evaluation of the filters keeps between clusters, when
    /// they read through links (nil otherwise): the scan that counted them
    /// (`countWithoutMatches`) when nothing changed since, used once.
    private func makeScan() -> QueryScan? {
        if let kept = countingScan {
            countingScan = nil
            if isUnchanged(since: countedStamp) { return kept }
        }
        return filters.contains { $0.readsGraph } ? QueryScan(realm: realm) : nil
    }

    /// Visit each cluster's matching objects; returns how many matched.
    /// `expecting` hears, when it is known beforehand, at most how many
    /// clusters will be visited.
    private func scan(expecting: (Int) -> Void = { _ in }, _ visit: (Int64, Bitmap) -> Void) throws(FiefError) -> Int {
        let table = try realm.table(tableKey)
        let scan = makeScan()
        var total = 0
        // Linking objects are the target's backlinks; an indexed equality
        // narrows the scan to a few clusters.
        var candidates: [Int64]?
        if linking == nil, filters.count == 1, case .fullText(let predicate) = filters[0].root, let scan {
            // A full-text search alone: its objects are the matches (the
            // index holds live objects only), without reading a chunk.
            var total = 0
            try scan.fullTextMatches(predicate, table).forEachCluster { (cluster, bits) in
                visit(cluster, bits)
                total += bits[0].nonzeroBitCount + bits[1].nonzeroBitCount + bits[2].nonzeroBitCount + bits[3].nonzeroBitCount
            }
            return total
        }
        if let linking {
            candidates = try realm.linkingObjects(to: linking.target, of: linking.targetClass, originClass: tableKey, property: linking.property)
        } else {
            for query in filters {
                guard let plan = try realm.indexPlan(query, table, scan: scan) else { continue }
                if plan.exact && filters.count == 1 {
                    // The index's answer is the answer: no chunk is read.
                    if let first = plan.keys.first, let last = plan.keys.last {
                        expecting(min(plan.keys.count, Int(ClusterLayout.cluster(of: last) - ClusterLayout.cluster(of: first)) + 1))
                    }
                    return Self.visitKeys(plan.keys, visit)
                }
                candidates = plan.keys
                break
            }
        }
        if candidates == nil, let scan {
            // A path through links that decides the filter: the objects it
            // reaches back (computed once per scan, kept for the filter).
            // When it is the only filter, the objects reached are the
            // matches (they exist: reached through links and backlinks,
            // which deleted objects leave).
            for query in filters {
                guard let reached = try scan.candidates(query.root) else { continue }
                let exact = filters.count == 1 && QueryScan.isReach(query.root)
                try reached.forEachCluster { (cluster, bits) throws(FiefError) in
                    if exact {
                        visit(cluster, bits)
                        total += bits[0].nonzeroBitCount + bits[1].nonzeroBitCount + bits[2].nonzeroBitCount + bits[3].nonzeroBitCount
                        return
                    }
                    let presence = try realm.chunk(table, column: 0, cluster: cluster).reader
                    let mask = bits & Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
                    if mask != Bitmap(repeating: 0) { total += try visitCluster(table, cluster, mask, scan, visit) }
                }
                return total
            }
        }
        if let candidates {
            for (cluster, keys) in SortedKeyClusters(candidates) {
                var mask = keys
                let presence = try realm.chunk(table, column: 0, cluster: cluster).reader
                mask &= Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
                total += try visitCluster(table, cluster, mask, scan, visit)
            }
            return total
        }
        for (cluster, live) in try realm.clusters(table) {
            total += try visitCluster(table, cluster, live, scan, visit)
        }
        return total
    }

    /// Visit `keys` (ascending) a cluster at a time; returns their number.
    private static func visitKeys(_ keys: [Int64], _ visit: (Int64, Bitmap) -> Void) -> Int {
        for (cluster, mask) in SortedKeyClusters(keys) { visit(cluster, mask) }
        return keys.count
    }

    @inline(__always)
    func visitCluster(_ table: Table, _ cluster: Int64, _ mask: Bitmap, _ scan: QueryScan?, _ visit: (Int64, Bitmap) -> Void) throws(FiefError) -> Int {
        var bits = mask
        for query in filters {
            if bits == Bitmap(repeating: 0) { break }
            bits = try realm.evaluate(query.root, table, cluster: cluster, mask: bits, scan: scan)
        }
        if bits == Bitmap(repeating: 0) { return 0 }
        visit(cluster, bits)
        return bits[0].nonzeroBitCount + bits[1].nonzeroBitCount + bits[2].nonzeroBitCount + bits[3].nonzeroBitCount
    }
}
