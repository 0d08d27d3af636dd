#if canImport(Glibc)
import Glibc
#endif

/// One sort key of a Results.
public struct SortKey {
    public var property: UInt32
    public var ascending: Bool
    public init(property: UInt32, ascending: Bool) {
        self.property = property
        self.ascending = ascending
    }
}

/// A lazy, live view of the objects of one class: all of them, or those
/// matching every filter, optionally sorted.  It evaluates when first read
/// and again whenever its realm's `stamp` moves (a new snapshot or a write).
public final class Results: @unchecked Sendable {
    public let realm: Realm
    public let tableKey: UInt32
    let filters: [CompiledQuery]
    let sortKeys: [SortKey]
    @exclusivity(unchecked) private var keys: [Int64] = []
    /// The matches of the last scan, per cluster (in key order), and their count.
    @exclusivity(unchecked) private var matchedClusters: [(Int64, Bitmap)] = []
    @exclusivity(unchecked) private var matchedCount = 0
    /// Whether `keys` was built from `matchedClusters` (and sorted).
    @exclusivity(unchecked) private var keysMaterialized = false
    @exclusivity(unchecked) private var evaluatedStamp: UInt64 = 0
    /// The columns the filters and sort keys read: a write to another
    /// column leaves these results as they are.
    private let dependentColumns: [UInt32]
    /// Set for linking objects: only the objects whose link `property`
    /// points to the object `target` of class `targetClass`.
    let linking: (targetClass: UInt32, target: Int64, property: UInt32)?
    /// Set for the objects of a list of links: the list (its owner's class,
    /// property and owner), whose elements these results are, in list order.
    let list: ListID?

    public init(realm: Realm, tableKey: UInt32) throws(FiefError) {
        try realm.checkReadable()
        let table = try realm.table(tableKey)
        if table.objectClass.isEmbedded {
            throw FiefError(.invalidArgument, "class '\(table.objectClass.name)' is embedded: its objects are reached through their parents, not listed on their own")
        }
        self.realm = realm
        self.tableKey = tableKey
        self.filters = []
        self.sortKeys = []
        self.dependentColumns = []
        self.linking = nil
        self.list = nil
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
        self.realm = realm
        self.tableKey = column.linkTarget
        self.filters = []
        self.sortKeys = []
        self.dependentColumns = []
        self.linking = nil
        self.list = ListID(table: ownerClass, column: property, owner: owner)
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
        self.realm = realm
        self.tableKey = originClass
        self.filters = []
        self.sortKeys = []
        self.dependentColumns = [property]
        self.linking = (targetClass, objectKey, property)
        self.list = nil
    }

    private init(realm: Realm, tableKey: UInt32, filters: [CompiledQuery], sortKeys: [SortKey],
                 linking: (targetClass: UInt32, target: Int64, property: UInt32)?, list: ListID?) {
        self.realm = realm
        self.tableKey = tableKey
        self.filters = filters
        self.sortKeys = sortKeys
        self.linking = linking
        self.list = list
        var columns = Set(sortKeys.map(\.property))
        for query in filters { query.root.collectColumns(into: &columns) }
        if let linking { columns.insert(linking.property) }
        self.dependentColumns = columns.sorted()
    }

    @inline(__always)
    private var isFresh: Bool {
        guard realm.isUnchanged(since: evaluatedStamp, table: tableKey, columns: dependentColumns) else { return false }
        if let list { return realm.isUnchanged(since: evaluatedStamp, table: list.table, columns: [list.column]) }
        return true
    }

    /// The objects of these results matching `predicate` (Realm's query language).
    public func filtered(_ predicate: String, arguments: [QueryArgument]) throws(FiefError) -> Results {
        try realm.checkReadable()
        let table = try realm.table(tableKey)
        let expression: ParsedQuery
        do {
            expression = try QueryParser.parseQuery(predicate)
        } catch {
            throw FiefError(.querySyntax, "invalid predicate: \(error.message)")
        }
        let query = try QueryCompiler.compile(expression, table: table, arguments: arguments)
        return Results(realm: realm, tableKey: tableKey, filters: filters + [query], sortKeys: sortKeys, linking: linking, list: list)
    }

    /// These results sorted by `keys` (the first most significant); ties
    /// keep the previous order, so earlier sorts act as later keys.
    public func sorted(by names: [(String, Bool)]) throws(FiefError) -> Results {
        try realm.checkReadable()
        let table = try realm.table(tableKey)
        var keys: [SortKey] = []
        for (name, ascending) in names {
            guard let property = table.property(named: name) else {
                if name.contains(".") {
                    throw FiefError(.queryInvalid, "cannot sort by '\(name)': key paths through links are not supported for class '\(table.objectClass.name)'")
                }
                throw FiefError(.queryInvalid, "cannot sort by '\(name)': class '\(table.objectClass.name)' has no such property")
            }
            if property.collection != .none {
                throw FiefError(.queryInvalid, "cannot sort by '\(name)': it is a \(property.collection.name)")
            }
            if property.type == .link {
                throw FiefError(.queryInvalid, "cannot sort by '\(name)': it is a link; sort by a property of the objects themselves")
            }
            if property.type == .mixed {
                throw FiefError(.queryInvalid, "cannot sort by '\(name)': sorting by mixed values is not supported yet")
            }
            keys.append(SortKey(property: property.key, ascending: ascending))
        }
        let merged = keys + sortKeys.filter { old in !keys.contains { $0.property == old.property } }
        return Results(realm: realm, tableKey: tableKey, filters: filters, sortKeys: merged, linking: linking, list: list)
    }

    /// The same query in another realm of the same file.
    public func resolved(in target: Realm) throws(FiefError) -> Results {
        guard target.environment === realm.environment else {
            throw FiefError(.invalidArgument, "the target realm is another file")
        }
        try target.checkReadable()
        _ = try target.table(tableKey)
        return Results(realm: target, tableKey: tableKey, filters: filters, sortKeys: sortKeys, linking: linking, list: list)
    }

    /// Whether the realm is open and the class exists.
    public var isValid: Bool { !realm.isClosed && realm.hasTable(tableKey) }

    // MARK: Reading

    public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        if !isFresh { try scanMatches() }
        return matchedCount
    }

    public func key(at index: Int) throws(FiefError) -> Int64 {
        try evaluate()
        guard index >= 0, index < keys.count else {
            throw FiefError(.indexOutOfBounds, "index \(index) is out of bounds (the results hold \(keys.count) objects)")
        }
        return keys[index]
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
        if sortKeys.isEmpty && list == nil {
            // Unsorted results are in key order.
            var low = 0, high = keys.count
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low < keys.count && keys[low] == key ? low : nil
        }
        return keys.firstIndex(of: key)
    }

    /// Every key, in order (a copy).
    public func allKeys() throws(FiefError) -> [Int64] {
        try evaluate()
        return keys
    }

    /// Delete every object of these results.
    public func deleteAll() throws(FiefError) {
        _ = try realm.requireWrite()
        let table = try realm.table(tableKey)
        if filters.isEmpty && linking == nil && list == nil {
            try realm.deleteAll(table: tableKey)
            return
        }
        try evaluate()
        let doomed = Set(keys).sorted()
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
        if list == nil {
            for (cluster, bits) in matchedClusters { try body(cluster, bits) }
            return
        }
        var cluster: Int64 = -1
        var mask = Bitmap(repeating: 0)
        for key in keys {
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

    // MARK: Evaluation

    /// Make `keys` hold the current matches, in order.
    private func evaluate() throws(FiefError) {
        try realm.checkReadable()
        if !isFresh { try scanMatches() }
        if keysMaterialized { return }
        if list != nil {
            // `keys` holds the list's matching elements, in list order.
            if !sortKeys.isEmpty { try sortKeysInPlace() }
            keysMaterialized = true
            return
        }
        keys.removeAll(keepingCapacity: true)
        keys.reserveCapacity(matchedCount)
        for (cluster, bits) in matchedClusters {
            let base = cluster << ClusterLayout.shift
            QueryEvaluator.forEachSlot(bits) { slot in keys.append(base | Int64(slot)) }
        }
        if !sortKeys.isEmpty { try sortKeysInPlace() }
        keysMaterialized = true
    }

    /// Run the query: remember which objects of each cluster match.
    private func scanMatches() throws(FiefError) {
        if let list {
            try scanList(list)
            return
        }
        matchedClusters.removeAll(keepingCapacity: true)
        matchedCount = try scan { cluster, bits in matchedClusters.append((cluster, bits)) }
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
            for (cluster, mask) in masks {
                _ = try visitCluster(table, cluster, mask) { (c, bits) in matched[c] = bits }
            }
            elements = elements.filter { key in
                guard let bits = matched[ClusterLayout.cluster(of: key)] else { return false }
                let slot = ClusterLayout.slot(of: key)
                return bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
            }
        }
        keys = elements
        matchedClusters.removeAll()
        matchedCount = elements.count
        keysMaterialized = false
        evaluatedStamp = realm.stamp
    }

    /// Visit each cluster's matching objects; returns how many matched.
    private func scan(_ visit: (Int64, Bitmap) -> Void) throws(FiefError) -> Int {
        let table = try realm.table(tableKey)
        var total = 0
        // Linking objects are the target's backlinks; an indexed equality
        // narrows the scan to a few clusters.
        var candidates: [Int64]?
        if let linking {
            candidates = try realm.linkingObjects(to: linking.target, of: linking.targetClass, originClass: tableKey, property: linking.property)
        } else {
            for query in filters {
                if let found = try realm.indexCandidates(query, table) { candidates = found; break }
            }
        }
        if let candidates {
            var i = 0
            while i < candidates.count {
                let cluster = ClusterLayout.cluster(of: candidates[i])
                var mask = Bitmap(repeating: 0)
                while i < candidates.count && ClusterLayout.cluster(of: candidates[i]) == cluster {
                    QueryEvaluator.set(&mask, ClusterLayout.slot(of: candidates[i]))
                    i += 1
                }
                let presence = try realm.chunk(table, column: 0, cluster: cluster).reader
                mask &= Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
                total += try visitCluster(table, cluster, mask, visit)
            }
            return total
        }
        for (cluster, live) in try realm.clusters(table) {
            total += try visitCluster(table, cluster, live, visit)
        }
        return total
    }

    @inline(__always)
    private func visitCluster(_ table: Table, _ cluster: Int64, _ mask: Bitmap, _ visit: (Int64, Bitmap) -> Void) throws(FiefError) -> Int {
        var bits = mask
        for query in filters {
            if bits == Bitmap(repeating: 0) { break }
            bits = try realm.evaluate(query.root, table, cluster: cluster, mask: bits)
        }
        if bits == Bitmap(repeating: 0) { return 0 }
        visit(cluster, bits)
        return bits[0].nonzeroBitCount + bits[1].nonzeroBitCount + bits[2].nonzeroBitCount + bits[3].nonzeroBitCount
    }

    /// Sort `keys` by the sort keys; stable (ties keep key order).
    private func sortKeysInPlace() throws(FiefError) {
        let table = try realm.table(tableKey)
        let n = keys.count
        var columns: [SortColumn] = []
        for sortKey in sortKeys {
            let property = try table.property(sortKey.property)
            columns.append(try SortColumn(realm: realm, table: table, property: property, keys: keys, ascending: sortKey.ascending))
        }
        var order = UnsafeMutableBufferPointer<Int32>.allocate(capacity: n)
        defer { order.deallocate() }
        for i in 0..<n { order[i] = Int32(i) }
        if columns.count == 1 {
            let column = columns[0]
            column.radixSort(order)
        } else {
            columns.withUnsafeBufferPointer { columns in
                order.sort { a, b in
                    for column in columns {
                        let c = column.compare(Int(a), Int(b))
                        if c != 0 { return column.ascending ? c < 0 : c > 0 }
                    }
                    return a < b
                }
            }
        }
        let old = keys
        for i in 0..<n { keys[i] = old[Int(order[i])] }
    }
}

/// One sort key's values for every row, extracted once before sorting,
/// kept in plain buffers so comparisons touch no reference counts.
final class SortColumn {
    let ascending: Bool
    private let count: Int
    /// 0: integers (`ints`, then `lows`), 1: doubles, 2: bytes (`prefixes`, then `strings`).
    private let kind: Int
    private let hasLows: Bool
    private let nulls: UnsafeMutablePointer<Bool>
    private let ints: UnsafeMutablePointer<Int64>
    private let lows: UnsafeMutablePointer<UInt64>
    private let doubles: UnsafeMutablePointer<Double>
    private let strings: UnsafeMutablePointer<UnsafeRawBufferPointer>
    private let prefixes: UnsafeMutablePointer<UInt64>

    /// Room for `count` rows of values of `type`, set with `set(_:_:)`.
    init(type: PropertyType, count n: Int, ascending: Bool) {
        self.ascending = ascending
        count = n
        switch type {
        case .string, .binary: kind = 2
        case .float, .double, .decimal128: kind = 1
        default: kind = 0
        }
        hasLows = type == .objectId || type == .uuid || type == .timestamp
        nulls = .allocate(capacity: max(n, 1))
        ints = .allocate(capacity: kind == 0 ? max(n, 1) : 1)
        lows = .allocate(capacity: hasLows ? max(n, 1) : 1)
        doubles = .allocate(capacity: kind == 1 ? max(n, 1) : 1)
        strings = .allocate(capacity: kind == 2 ? max(n, 1) : 1)
        prefixes = .allocate(capacity: kind == 2 ? max(n, 1) : 1)
    }

    /// The values of `property` of the objects `keys`, read from their chunks.
    convenience init(realm: Realm, table: Table, property: Property, keys: [Int64], ascending: Bool) throws(FiefError) {
        let n = keys.count
        self.init(type: property.type, count: n, ascending: ascending)
        var currentCluster: Int64 = -1
        var chunk: ColumnChunk? = nil
        for row in 0..<n {
            let key = keys[row]
            let cluster = ClusterLayout.cluster(of: key)
            if cluster != currentCluster {
                chunk = try realm.chunk(table, column: property.key, cluster: cluster)
                currentCluster = cluster
            }
            set(row, chunk!.value(ClusterLayout.slot(of: key), type: property.type, nullable: property.isNullable))
        }
    }

    /// Row `row`'s value (a string or binary view must outlive the sort).
    @inline(__always)
    func set(_ row: Int, _ value: Value) {
        nulls[row] = false
        switch value {
        case .null:
            nulls[row] = true
            if hasLows { lows[row] = 0 }
            switch kind {
            case 0: ints[row] = 0
            case 1: doubles[row] = 0
            default: strings[row] = UnsafeRawBufferPointer(start: nil, count: 0); prefixes[row] = 0
            }
        case .int(let i), .link(_, let i): ints[row] = i
        case .bool(let b): ints[row] = b ? 1 : 0
        case .timestamp(let s, let ns):
            // Seconds, then nanoseconds (biased to sort as unsigned) when seconds tie.
            ints[row] = s
            lows[row] = UInt64(bitPattern: Int64(ns)) ^ (1 << 63)
        case .objectId(let id):
            ints[row] = Int64(bitPattern: id.high ^ (1 << 63))
            lows[row] = UInt64(id.low)
        case .uuid(let id):
            ints[row] = Int64(bitPattern: id.high ^ (1 << 63))
            lows[row] = id.low
        case .float(let f): doubles[row] = Double(f)
        case .double(let d): doubles[row] = d
        case .decimal128(let d): doubles[row] = Decimal128Math.toDouble(d)
        case .string(let bytes), .binary(let bytes):
            strings[row] = bytes
            var prefix: UInt64 = 0
            if bytes.count >= 8 {
                prefix = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
            } else {
                for i in 0..<8 { prefix = prefix << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
            }
            prefixes[row] = prefix
        case .nestedList(let id), .nestedDictionary(let id):
            // Sorts on mixed values are refused before they get here.
            ints[row] = id
        }
    }

    deinit {
        nulls.deallocate()
        ints.deallocate()
        lows.deallocate()
        doubles.deallocate()
        strings.deallocate()
        prefixes.deallocate()
    }

    /// The row's value as an unsigned 64-bit number in ascending order (for
    /// strings: their first eight bytes); rows with equal numbers may still
    /// differ (see `compare`).
    @inline(__always)
    private func radixKey(_ row: Int) -> UInt64 {
        switch kind {
        case 0: return UInt64(bitPattern: ints[row]) ^ (1 << 63)
        case 1:
            let d = doubles[row]
            let bits = d == 0 ? 0 : d.bitPattern   // -0.0 sorts with 0.0
            return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        default: return prefixes[row]
        }
    }

    /// Sort `order` (row numbers, initially 0..<n) by this column alone,
    /// stably: nulls first ascending (last descending), then an LSD radix
    /// sort on `radixKey`, then runs of equal radix keys by `compare`.
    func radixSort(_ order: UnsafeMutableBufferPointer<Int32>) {
        let n = order.count
        if n < 2 { return }
        // Nulls apart, keeping their order.
        var nonNull: [Int32] = []
        var nullRows: [Int32] = []
        nonNull.reserveCapacity(n)
        for i in 0..<n {
            let row = order[i]
            if nulls[Int(row)] { nullRows.append(row) } else { nonNull.append(row) }
        }
        let m = nonNull.count
        let keys = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(m, 1))
        let keys2 = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(m, 1))
        let rows2 = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(m, 1))
        defer { keys.deallocate(); keys2.deallocate(); rows2.deallocate() }
        let rows = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(m, 1))
        defer { rows.deallocate() }
        for i in 0..<m {
            let row = Int(nonNull[i])
            rows[i] = nonNull[i]
            let key = radixKey(row)
            keys[i] = ascending ? key : ~key
        }
        var sourceKeys = keys, sourceRows = rows
        var targetKeys = keys2, targetRows = rows2
        var counts = [Int](repeating: 0, count: 256)
        for pass in 0..<8 {
            let shift = UInt64(pass * 8)
            for b in 0..<256 { counts[b] = 0 }
            for i in 0..<m { counts[Int((sourceKeys[i] >> shift) & 0xFF)] += 1 }
            if counts.contains(m) { continue }  // every key has the same byte here
            var total = 0
            for b in 0..<256 { let c = counts[b]; counts[b] = total; total += c }
            for i in 0..<m {
                let b = Int((sourceKeys[i] >> shift) & 0xFF)
                let at = counts[b]
                counts[b] = at + 1
                targetKeys[at] = sourceKeys[i]
                targetRows[at] = sourceRows[i]
            }
            swap(&sourceKeys, &targetKeys)
            swap(&sourceRows, &targetRows)
        }
        // Equal radix keys: finish with the full comparison, stably.
        var start = 0
        while start < m {
            var end = start + 1
            while end < m && sourceKeys[end] == sourceKeys[start] { end += 1 }
            if end - start > 1 {
                var run = UnsafeMutableBufferPointer(rebasing: sourceRows[start..<end])
                let up = ascending
                run.sort { a, b in
                    let c = compare(Int(a), Int(b))
                    return c != 0 ? (up ? c < 0 : c > 0) : a < b
                }
            }
            start = end
        }
        var out = 0
        if ascending { for row in nullRows { order[out] = row; out += 1 } }
        for i in 0..<m { order[out] = sourceRows[i]; out += 1 }
        if !ascending { for row in nullRows { order[out] = row; out += 1 } }
    }

    /// -1, 0 or 1: row a before, with, or after row b (ascending; nulls first).
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        let na = nulls[a], nb = nulls[b]
        if na || nb { return na == nb ? 0 : (na ? -1 : 1) }
        switch kind {
        case 0:
            let x = ints[a], y = ints[b]
            if x == y {
                if !hasLows { return 0 }
                return lows[a] == lows[b] ? 0 : (lows[a] < lows[b] ? -1 : 1)
            }
            return x < y ? -1 : 1
        case 1:
            let x = doubles[a], y = doubles[b]
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            let pa = prefixes[a], pb = prefixes[b]
            if pa != pb { return pa < pb ? -1 : 1 }
            let x = strings[a], y = strings[b]
            if x.count <= 8 && y.count <= 8 { return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1) }
            let n = min(x.count, y.count)
            let c = n <= 8 ? 0 : Int(memcmp(x.baseAddress! + 8, y.baseAddress! + 8, n - 8))
            if c != 0 { return c < 0 ? -1 : 1 }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        }
    }
}
