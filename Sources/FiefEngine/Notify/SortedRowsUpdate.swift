import FiefStorage

// Sorted results brought up to date from the objects a commit touched
// (docs/design.md, "Sorted results from the changed rows"): the old rows
// stay in their order; only the touched objects are filtered again and put
// back by binary search on the sort key, and the change set comes from
// their places, without running the query nor matching every row.

extension ObjectResults {
    /// The sort keys when these results are a class's objects filtered by
    /// their own columns (no links, collections or backlinks: another
    /// object's write could change a match) and sorted by their own
    /// non-mixed properties, with no other stage (no distinct, no limit),
    /// not from a list or linking objects; else nil.
    private var sortKeysOfOwnColumns: [(path: ResolvedKeyPath, ascending: Bool)]? {
        guard list == nil, linking == nil, linkedColumns.isEmpty, !filters.contains(where: { $0.readsGraph }),
              stages.count == 1, case .sort(let sortKeys) = stages[0],
              sortKeys.allSatisfy({ $0.path.links.isEmpty && $0.path.table == tableKey && $0.path.mapKey == nil && $0.path.type != .mixed })
        else { return nil }
        return sortKeys
    }

    /// The rows now and the change from `old` (these results' rows at an
    /// older version) when only the objects `touched` of the class may have
    /// changed since (created, deleted, written) and nothing else these
    /// results read: `old` without the touched rows, then each touched
    /// object that matches the filters now where the sort puts it.  Nil
    /// when the results are not of that shape (`sortKeysOfOwnColumns`) or
    /// when more than a quarter of the rows were touched (sorting them all
    /// again is as cheap).
    ///
    /// The change set is the one `ChangeBuilder.calculate` gives when the
    /// untouched rows are all kept in place: a touched object still a row,
    /// not deleted since (`deleted`: its key may name a new object), keeps
    /// its place when as many untouched rows precede it before and after
    /// and, among those, the most that keep their relative order (a longest
    /// increasing subsequence); it is a modification there if `modified`
    /// says so.  Every other touched row is a deletion (old index) and an
    /// insertion (new index).  Rows untouched are modifications when their
    /// object is in `alsoModified` (modified through links).
    ///
    /// Costs O(n) copying for the new rows plus, for t touched objects,
    /// O(t log n) comparisons, each reading one value in place.
    /// Under the realm's lock.
    func sortedRows(from old: [Int64], touching touched: KeySet, deleted: KeySet,
                    modified: (Int64) throws(FiefError) -> Bool,
                    alsoModified: KeySet = KeySet(),
                    clusters: inout [(Int64, Bitmap)]?) throws(FiefError) -> (rows: [Int64], changes: ChangeBuilder)? {
        guard let sortKeys = sortKeysOfOwnColumns else { return nil }
        let touchedCount = touched.count
        guard touchedCount * 4 <= old.count + 4 else { return nil }
        let table = try realm.table(tableKey)

        // The old places of the touched rows, ascending.
        let removed = Self.places(of: touched, count: touchedCount, in: old)

        // The touched objects that exist and match now, in key order.
        var survivors: [Int64] = []
        survivors.reserveCapacity(touchedCount)
        for (index, cluster) in touched.clusters.enumerated() {
            let presence = try realm.chunk(table, column: ClusterLayout.presenceColumn, cluster: cluster).reader
            let mask = touched.slots[index] & Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
            if mask == Bitmap(repeating: 0) { continue }
            _ = try visitCluster(table, cluster, mask, nil) { cluster, bits in
                let base = cluster << ClusterLayout.shift
                forEachSlot(bits) { slot in survivors.append(base | Int64(slot)) }
            }
        }

        // Their values, one more row (the last) for the row compared with.
        let s = survivors.count
        var readers: [SortValueReader] = []
        var columns: [SortColumn] = []
        for sortKey in sortKeys {
            var reader = SortValueReader(realm: realm, table: table, path: sortKey.path)
            let column = SortColumn(type: sortKey.path.type, count: s + 1, ascending: sortKey.ascending)
            for row in 0..<s { column.set(row, try reader.value(survivors[row])) }
            readers.append(reader)
            columns.append(column)
        }
        // In sort order (ties in key order, as a sort of the rows does).
        var order = [Int32](repeating: 0, count: s)
        for i in 0..<s { order[i] = Int32(i) }
        order.withUnsafeMutableBufferPointer { SortColumn.sort($0, by: columns) }

        // The untouched rows are `old` without `removed`: the kth of them is
        // old[k + (how many removed places p have p - their rank <= k)].
        var gaps = [Int](repeating: 0, count: removed.count)  // untouched rows before each removed one
        for (rank, place) in removed.enumerated() { gaps[rank] = place - rank }
        let keptCount = old.count - removed.count
        func kept(_ k: Int) -> Int64 {
            var low = 0, high = gaps.count
            while low < high {
                let mid = (low + high) >> 1
                if gaps[mid] <= k { low = mid + 1 } else { high = mid }
            }
            return old[k + low]
        }
        // Whether untouched row `k` sorts before survivor `row`.
        let probe = s
        func keptPrecedes(_ k: Int, _ row: Int) throws(FiefError) -> Bool {
            let key = kept(k)
            for c in 0..<columns.count {
                columns[c].set(probe, try readers[c].value(key))
                let order = columns[c].compare(probe, row)
                if order != 0 { return columns[c].ascending ? order < 0 : order > 0 }
            }
            return key < survivors[row]
        }
        // places[t]: how many untouched rows precede the tth survivor in
        // sort order; found for the middle one, then each half within its
        // side's range of untouched rows.
        var places = [Int](repeating: 0, count: s)
        var pending: [(low: Int, high: Int, keptLow: Int, keptHigh: Int)] = s > 0 ? [(0, s, 0, keptCount)] : []
        while let range = pending.popLast() {
            let mid = (range.low + range.high) >> 1
            var low = range.keptLow, high = range.keptHigh
            while low < high {
                let k = (low + high) >> 1
                if try keptPrecedes(k, Int(order[mid])) { low = k + 1 } else { high = k }
            }
            places[mid] = low
            if range.low < mid { pending.append((range.low, mid, range.keptLow, low)) }
            if mid + 1 < range.high { pending.append((mid + 1, range.high, low, range.keptHigh)) }
        }

        // The new rows: the untouched rows in runs, each survivor between.
        var rows: [Int64] = []
        rows.reserveCapacity(keptCount + s)
        var oldPlace = 0, removedRank = 0, keptDone = 0
        func copyKept(upTo end: Int) {
            while keptDone < end {
                let runEnd = removedRank < removed.count ? removed[removedRank] : old.count
                if oldPlace == runEnd {
                    oldPlace += 1
                    removedRank += 1
                    continue
                }
                let n = min(runEnd - oldPlace, end - keptDone)
                rows.append(contentsOf: old[oldPlace..<(oldPlace + n)])
                oldPlace += n
                keptDone += n
            }
        }
        for t in 0..<s {
            copyKept(upTo: places[t])
            rows.append(survivors[Int(order[t])])
        }
        copyKept(upTo: keptCount)

        // Touched rows in both, by key: (old place, untouched rows before it).
        var oldTouched: [(key: Int64, place: Int, gap: Int)] = []
        oldTouched.reserveCapacity(removed.count)
        for (rank, place) in removed.enumerated() where !deleted.contains(old[place]) {
            oldTouched.append((old[place], place, gaps[rank]))
        }
        oldTouched.sort { $0.key < $1.key }
        // stayCandidate[row]: survivor `row` (key order) in `oldTouched`,
        // when it was a row (-1: it was not); it may stay if as many
        // untouched rows precede it now as before.
        var stayCandidate = [Int](repeating: -1, count: s)
        var i = 0
        for row in 0..<s {
            while i < oldTouched.count && oldTouched[i].key < survivors[row] { i += 1 }
            if i < oldTouched.count && oldTouched[i].key == survivors[row] { stayCandidate[row] = i }
        }
        // In new order, those whose gap is the same: old places to keep
        // increasing (a longest increasing subsequence).
        var candidates: [(old: Int, new: Int)] = []
        for t in 0..<s {
            let row = Int(order[t])
            let c = stayCandidate[row]
            if c >= 0 && oldTouched[c].gap == places[t] { candidates.append((oldTouched[c].place, places[t] + t)) }
        }
        let staying = Self.longestIncreasing(candidates)

        var changes = ChangeBuilder()
        var next = 0
        for place in removed {
            if next < staying.count && staying[next].old == place { next += 1 } else { changes.deletions.add(place) }
        }
        next = 0
        for t in 0..<s {
            let index = places[t] + t
            if next < staying.count && staying[next].new == index {
                next += 1
                if try modified(rows[index]) { changes.modifications.add(index) }
            } else {
                changes.insertions.add(index)
            }
        }
        if !alsoModified.isEmpty {
            for index in Self.places(of: alsoModified, count: alsoModified.count, in: rows) { changes.modifications.add(index) }
        }
        if clusters != nil { Self.update(&clusters!, clearing: removed.lazy.map { old[$0] }, setting: survivors) }
        return (rows, changes)
    }

    /// `clusters` (cluster masks in cluster order, as `adoptRows` keeps
    /// them), the rows `clearing` out and `setting` in: O(t log c) for t
    /// rows over c clusters, where making them again reads every row.
    static func update(_ clusters: inout [(Int64, Bitmap)], clearing: some Sequence<Int64>, setting: [Int64]) {
        func place(of cluster: Int64) -> Int {
            var low = 0, high = clusters.count
            while low < high {
                let mid = (low + high) >> 1
                if clusters[mid].0 < cluster { low = mid + 1 } else { high = mid }
            }
            return low
        }
        var emptied = false
        for key in clearing {
            let cluster = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
            let i = place(of: cluster)
            guard i < clusters.count, clusters[i].0 == cluster else { continue }
            clusters[i].1[slot >> 6] &= ~(1 << UInt64(slot & 63))
            if clusters[i].1 == Bitmap(repeating: 0) { emptied = true }
        }
        for key in setting {
            let cluster = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
            let i = place(of: cluster)
            if i == clusters.count || clusters[i].0 != cluster { clusters.insert((cluster, Bitmap(repeating: 0)), at: i) }
            clusters[i].1[slot >> 6] |= 1 << UInt64(slot & 63)
        }
        if emptied { clusters.removeAll { $0.1 == Bitmap(repeating: 0) } }
    }

    /// The places in `rows` of the keys of `keys` (`count` of them), ascending.
    private static func places(of keys: KeySet, count: Int, in rows: [Int64]) -> [Int] {
        var places: [Int] = []
        if count <= 4 {
            // A few: a scan for each.
            for (index, cluster) in keys.clusters.enumerated() {
                forEachSlot(keys.slots[index]) { slot in
                    if let place = rows.firstIndex(of: cluster << ClusterLayout.shift | Int64(slot)) { places.append(place) }
                }
            }
            places.sort()
            return places
        }
        // Many: one pass, each row looked up in a table of the clusters
        // the keys span.
        places.reserveCapacity(count)
        let low = keys.clusters.first!, high = keys.clusters.last!
        if high - low > Int64(keys.clusters.count) * 64 + 4096 {
            for (place, key) in rows.enumerated() where keys.contains(key) { places.append(place) }
            return places
        }
        var masks = [Bitmap](repeating: Bitmap(repeating: 0), count: Int(high - low + 1))
        for (index, cluster) in keys.clusters.enumerated() { masks[Int(cluster - low)] = keys.slots[index] }
        masks.withUnsafeBufferPointer { masks in
            for (place, key) in rows.enumerated() {
                let c = ClusterLayout.cluster(of: key) - low
                guard c >= 0 && c < masks.count else { continue }
                let slot = ClusterLayout.slot(of: key)
                if masks[Int(c)][slot >> 6] & (1 << UInt64(slot & 63)) != 0 { places.append(place) }
            }
        }
        return places
    }

    /// A longest subsequence of `pairs` (ascending in `new`) ascending in
    /// `old` too; among the longest, the one ending earliest at each length.
    private static func longestIncreasing(_ pairs: [(old: Int, new: Int)]) -> [(old: Int, new: Int)] {
        if pairs.count < 2 { return pairs }
        var tails: [Int] = []  // tails[l]: the pair ending the best chain of length l + 1
        var previous = [Int](repeating: -1, count: pairs.count)
        for (i, pair) in pairs.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) >> 1
                if pairs[tails[mid]].old < pair.old { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var chain: [(old: Int, new: Int)] = []
        var i = tails.last!
        while i >= 0 {
            chain.append(pairs[i])
            i = previous[i]
        }
        return chain.reversed()
    }
}

/// One sort key's value of any object of a class, read in place; keeps the
/// chunks it read by cluster (a binary search probes rows all over the
/// class: the realm's chunk lookup hashes, an array of clusters does not).
struct SortValueReader {
    private let realm: Realm
    private let table: Table
    private let column: UInt32
    private let type: PropertyType
    private let nullable: Bool
    /// Chunks by cluster number, for clusters below `directClusters`.
    private var chunks: [ColumnChunk?] = []
    private static let directClusters: Int64 = 1 << 16

    init(realm: Realm, table: Table, path: ResolvedKeyPath) {
        self.realm = realm
        self.table = table
        column = path.column
        type = path.type.chunkType
        nullable = path.isNullable
    }

    mutating func value(_ key: Int64) throws(FiefError) -> Value {
        let cluster = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
        guard cluster >= 0 && cluster < Self.directClusters else {
            return try realm.chunk(table, column: column, cluster: cluster).value(slot, type: type, nullable: nullable)
        }
        let index = Int(cluster)
        if index >= chunks.count { chunks.append(contentsOf: repeatElement(nil, count: index + 1 - chunks.count)) }
        if let chunk = chunks[index] { return chunk.value(slot, type: type, nullable: nullable) }
        let chunk = try realm.chunk(table, column: column, cluster: cluster)
        chunks[index] = chunk
        return chunk.value(slot, type: type, nullable: nullable)
    }
}
