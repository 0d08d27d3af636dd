import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

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
    /// Whether `sortedRows` can bring these results up to date.
    var updatesSortedRows: Bool { sortKeysOfOwnColumns != nil }

    private var sortKeysOfOwnColumns: [(path: ResolvedKeyPath, ascending: Bool)]? {
        guard list == nil, linking == nil, linkedColumns.isEmpty, !filters.contains(where: { $0.readsGraph }),
              stages.count == 1, case .sort(let sortKeys) = stages[0],
              sortKeys.allSatisfy({ $0.path.links.isEmpty && $0.path.table == tableKey && $0.path.mapKey == nil && $0.path.type != .mixed })
        else { return nil }
        return sortKeys
    }

    /// The rows now and the change from `old` (these results' rows at an
    /// older version) when only the objects of the class that `own` (the
    /// class's merged records since) touched may have changed (created,
    /// deleted, written) and nothing else these results read: `old`
    /// without the touched rows, then each touched object that matches the
    /// filters now where the sort puts it (filtered again only if it was
    /// created or a column the filters read was written).  Nil
    /// when the results are not of that shape (`sortKeysOfOwnColumns`) or
    /// when more objects were touched than there are rows (measured: with
    /// 50,000 of 79,000 rows touched it still took 4.6 ms where the
    /// general path took 34 ms; docs/design.md).
    ///
    /// `oldPlaces`: the touched rows' places in `old` and their index by
    /// rank, as `placesAndRanks` gives them, when the caller found them
    /// (`oldPlaces(of:in:orderKeys:)`, a few objects, at the old version);
    /// else found here.
    ///
    /// `orderKeys` are the rows' order keys (`SortColumn.orderKey` of the
    /// first sort key, one per row of `old`), kept by the caller from one
    /// update to the next: a row compared with a touched object is read
    /// only when their order keys tie.  Nil (or not one per row): made from
    /// `old` here.  On return, the new rows' order keys.
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
    /// O(t log t) to sort them and O(t log(n / t)) comparisons of order
    /// keys to place them.  Under the realm's lock.
    func sortedRows(from old: [Int64], orderKeys: inout [UInt64]?, changes own: ObjectChanges,
                    oldPlaces: (places: [Int], indexOfRank: [Int32])? = nil,
                    modified: (Int64) throws(FiefError) -> Bool,
                    alsoModified: KeySet = KeySet(),
                    clusters: inout [(Int64, Bitmap)]?) throws(FiefError) -> (rows: [Int64], changes: ChangeBuilder)? {
        guard let sortKeys = sortKeysOfOwnColumns else { return nil }
        let touched = own.touchedObjects, deleted = own.deleted
        let touchedCount = touched.count
        guard touchedCount <= old.count + 4 else { return nil }
        let table = try realm.table(tableKey)
        var readers = sortKeys.map { SortValueReader(realm: realm, table: table, path: $0.path) }
        var oldKeys: [UInt64]
        if let kept = orderKeys, kept.count == old.count {
            oldKeys = kept
            orderKeys = nil  // held here alone: a single move is made in place
        } else {
            guard let made = try Self.orderKeys(of: old, type: sortKeys[0].path.type, ascending: sortKeys[0].ascending, reader: &readers[0])
            else { return nil }
            oldKeys = made
        }

        // The old places of the touched rows, ascending, and the place in
        // `removed` of each touched object that was a row, by its rank
        // among the touched (-1: it was not a row).
        guard let (removed, removedOfRank) = oldPlaces ?? Self.placesAndRanks(of: touched, count: touchedCount, in: old) else { return nil }

        // The touched objects that are rows now, in key order, with their
        // ranks.  Only those created (or their key used again) or written
        // in a column the filters read are filtered again; any other
        // matches now exactly when it was a row (and was not deleted).
        var refilter = own.inserted
        var filterColumns: [UInt32] = []
        for query in filters { query.root.collectOwnColumns(into: &filterColumns) }
        for column in filterColumns { if let written = own.modified[column] { refilter.formUnion(written) } }
        let matched = try matching(refilter)
        var unchanged = touched
        unchanged.subtract(refilter)
        unchanged.subtract(deleted)
        var survivors: [Int64] = [], survivorRanks: [Int32] = []
        survivors.reserveCapacity(touchedCount)
        survivorRanks.reserveCapacity(touchedCount)
        var nextMatched = 0, unchangedIndex = 0, rank = 0
        for (index, cluster) in touched.clusters.enumerated() {
            while unchangedIndex < unchanged.clusters.count && unchanged.clusters[unchangedIndex] < cluster { unchangedIndex += 1 }
            let kept = unchangedIndex < unchanged.clusters.count && unchanged.clusters[unchangedIndex] == cluster
                ? unchanged.slots[unchangedIndex] : Bitmap(repeating: 0)
            let base = cluster << ClusterLayout.shift
            forEachSlot(touched.slots[index]) { slot in
                let key = base | Int64(slot)
                if nextMatched < matched.count && matched[nextMatched] == key {
                    nextMatched += 1
                    survivors.append(key)
                    survivorRanks.append(Int32(rank))
                } else if kept[slot >> 6] & (1 << UInt64(slot & 63)) != 0 && removedOfRank[rank] >= 0 {
                    survivors.append(key)
                    survivorRanks.append(Int32(rank))
                }
                rank += 1
            }
        }

        // Their values and order keys, one more row (the last) for the row
        // compared with; then their order (ties in key order, as a sort of
        // the rows does).
        let s = survivors.count
        var columns: [SortColumn] = []
        for (c, sortKey) in sortKeys.enumerated() {
            let column = SortColumn(type: sortKey.path.type, count: s + 1, ascending: sortKey.ascending)
            for row in 0..<s { column.set(row, try readers[c].value(survivors[row])) }
            columns.append(column)
        }
        var survivorKeys = [UInt64](repeating: 0, count: s)
        for row in 0..<s { survivorKeys[row] = columns[0].orderKey(row) }
        var order = [Int32](repeating: 0, count: s)
        for i in 0..<s { order[i] = Int32(i) }
        order.withUnsafeMutableBufferPointer { SortColumn.sort($0, by: columns) }

        // Whether the row of object `key` with order key `orderKey` sorts
        // before survivor `row`: by order keys, by values when they tie,
        // by object keys when those do.
        let probe = s
        func precedes(_ key: Int64, _ orderKey: UInt64, _ row: Int) throws(FiefError) -> Bool {
            let other = survivorKeys[row]
            if orderKey != other { return orderKey < other }
            for c in 0..<columns.count {
                columns[c].set(probe, try readers[c].value(key))
                let order = columns[c].compare(probe, row)
                if order != 0 { return columns[c].ascending ? order < 0 : order > 0 }
            }
            return key < survivors[row]
        }

        // places[t]: how many untouched rows precede the tth survivor in
        // sort order.  The old rows' order keys ascend (they are in sort
        // order), so each survivor's place is found by a galloping search
        // from the last one's, and the untouched rows tying with it by
        // order key are compared value by value.
        let keptCount = old.count - removed.count
        var gaps = [Int](repeating: 0, count: removed.count)  // untouched rows before each removed one
        for (rank, place) in removed.enumerated() { gaps[rank] = place - rank }
        var places = [Int](repeating: 0, count: s)
        try oldKeys.withUnsafeBufferPointer { (keys) throws(FiefError) in
            try removed.withUnsafeBufferPointer { (removed) throws(FiefError) in
                var place = 0, removedBefore = 0
                for t in 0..<s {
                    let row = Int(order[t]), rowKey = survivorKeys[row]
                    place = Self.firstPlace(notBelow: rowKey, in: keys, from: place)
                    while removedBefore < removed.count && removed[removedBefore] < place { removedBefore += 1 }
                    // The rows with the same order key: in place while they precede it.
                    while place < keys.count && keys[place] == rowKey {
                        if removedBefore < removed.count && removed[removedBefore] == place {
                            removedBefore += 1
                        } else if try !precedes(old[place], rowKey, row) {
                            break
                        }
                        place += 1
                    }
                    places[t] = place - removedBefore
                }
            }
        }

        // The new rows and their order keys: the untouched rows in runs,
        // each survivor between.  The keys of a single object moved,
        // created or deleted are shifted in place.
        let total = keptCount + s
        let keysInPlace = removed.count <= 1 && s <= 1
        var newKeys: [UInt64] = []
        // `MergeCopy.slack` more than the rows: a short run is copied as a whole block.
        let rows = [Int64](unsafeUninitializedCapacity: total + MergeCopy.slack) { rowsOut, rowsMade in
            if keysInPlace {
                Self.merge(old, keys: nil, removed: removed, places: places, order: order, survivors: survivors,
                           survivorKeys: survivorKeys, into: rowsOut.baseAddress!, keysInto: nil)
            } else {
                newKeys = [UInt64](unsafeUninitializedCapacity: total + MergeCopy.slack) { keysOut, keysMade in
                    Self.merge(old, keys: oldKeys, removed: removed, places: places, order: order, survivors: survivors,
                               survivorKeys: survivorKeys, into: rowsOut.baseAddress!, keysInto: keysOut.baseAddress!)
                    keysMade = total
                }
            }
            rowsMade = total
        }
        if keysInPlace {
            newKeys = oldKeys
            oldKeys = []
            if removed.count == 1 && s == 1 {
                let from = removed[0], to = places[0], key = survivorKeys[Int(order[0])]
                newKeys.withUnsafeMutableBufferPointer { keys in
                    let base = keys.baseAddress!
                    if to < from {
                        memmove(base + to + 1, base + to, (from - to) * MemoryLayout<UInt64>.stride)
                    } else if to > from {
                        memmove(base + from, base + from + 1, (to - from) * MemoryLayout<UInt64>.stride)
                    }
                    base[to] = key
                }
            } else if removed.count == 1 {
                newKeys.remove(at: removed[0])
            } else if s == 1 {
                newKeys.insert(survivorKeys[Int(order[0])], at: places[0])
            }
        }

        // Touched rows in both (a survivor that was a row and was not
        // deleted since: its key may name a new object), in new order,
        // those whose gap is the same (as many untouched rows precede
        // them): old places to keep increasing (a longest increasing
        // subsequence).
        var candidates: [(old: Int, new: Int)] = []
        for t in 0..<s {
            let row = Int(order[t])
            let index = Int(removedOfRank[Int(survivorRanks[row])])
            if index >= 0 && gaps[index] == places[t] && (deleted.isEmpty || !deleted.contains(survivors[row])) {
                candidates.append((removed[index], places[t] + t))
            }
        }
        let staying = Self.longestIncreasing(candidates)

        var changes = ChangeBuilder()
        changes.deletions.reserveCapacity(removed.count - staying.count)
        changes.insertions.reserveCapacity(s - staying.count)
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
            for index in Self.placesAndRanks(of: alsoModified, count: alsoModified.count, in: rows)?.places ?? [] {
                changes.modifications.add(index)
            }
        }
        if clusters != nil { Self.update(&clusters!, clearing: touched, setting: survivors) }
        orderKeys = newKeys
        return (rows, changes)
    }

    /// The places in `rows` (these results' rows at the realm's version,
    /// sorted, with their order keys `orderKeys`) of the objects of
    /// `touched`, and their index by rank (as `placesAndRanks`): each
    /// object's sort value read at this version, its order key searched
    /// for among the rows' (O(log n) and the rows tying with it), where
    /// `placesAndRanks` passes over every row.  For a few objects, before
    /// the worker moves to the version that changed them; nil when the
    /// results are not of the shape `sortedRows` serves or more than 4
    /// objects were touched.  Under the realm's lock.
    func oldPlaces(of touched: KeySet, in rows: [Int64], orderKeys: [UInt64]) throws(FiefError) -> (places: [Int], indexOfRank: [Int32])? {
        guard let sortKeys = sortKeysOfOwnColumns, orderKeys.count == rows.count else { return nil }
        let count = touched.count
        guard count <= 4 else { return nil }
        let table = try realm.table(tableKey)
        var reader = SortValueReader(realm: realm, table: table, path: sortKeys[0].path)
        let column = SortColumn(type: sortKeys[0].path.type, count: 1, ascending: sortKeys[0].ascending)
        var found: [(place: Int, rank: Int)] = []
        var rank = 0
        try orderKeys.withUnsafeBufferPointer { (keys) throws(FiefError) in
            for (index, cluster) in touched.clusters.enumerated() {
                let presence = try realm.chunk(table, column: ClusterLayout.presenceColumn, cluster: cluster).reader
                let present = Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
                let base = cluster << ClusterLayout.shift
                for slot in 0..<ClusterLayout.slots where touched.slots[index][slot >> 6] & (1 << UInt64(slot & 63)) != 0 {
                    defer { rank += 1 }
                    // Not an object at this version: not a row.
                    guard present[slot >> 6] & (1 << UInt64(slot & 63)) != 0 else { continue }
                    let key = base | Int64(slot)
                    column.set(0, try reader.value(key))
                    let orderKey = column.orderKey(0)
                    var place = Self.firstPlace(notBelow: orderKey, in: keys, from: 0)
                    while place < keys.count && keys[place] == orderKey {
                        if rows[place] == key {
                            found.append((place, rank))
                            break
                        }
                        place += 1
                    }
                }
            }
        }
        return Self.placesAndRanks(found, count: count)
    }

    /// The places of `found` (rows found, each with its object's rank among
    /// `count` keys) ascending, and each rank's index among them.
    private static func placesAndRanks(_ found: [(place: Int, rank: Int)], count: Int) -> (places: [Int], indexOfRank: [Int32]) {
        let sorted = found.sorted { $0.place < $1.place }
        var indexOfRank = [Int32](repeating: -1, count: count)
        for (index, item) in sorted.enumerated() { indexOfRank[item.rank] = Int32(index) }
        return (sorted.map(\.place), indexOfRank)
    }

    /// Writes the new rows (and their order keys when `keysOut` is given)
    /// to `rowsOut`: the rows of `old` but those at `removed` (ascending),
    /// with survivor `order[t]` after the first `places[t]` of those kept.
    /// The outputs have room for `MergeCopy.slack` more: a run of kept rows
    /// is copied in whole blocks, the last one past the run's end (the next
    /// row or survivor overwrites what it put there).  With many touched
    /// rows the runs are short (10,000 of 79,000: five rows on average): a
    /// copy of a fixed size costs no branch on the run's length.
    static func merge(_ old: [Int64], keys oldKeys: [UInt64]?, removed: [Int], places: [Int], order: [Int32],
                              survivors: [Int64], survivorKeys: [UInt64],
                              into rowsOut: UnsafeMutablePointer<Int64>, keysInto keysOut: UnsafeMutablePointer<UInt64>?) {
        old.withUnsafeBufferPointer { oldRows in
            (oldKeys ?? []).withUnsafeBufferPointer { oldOrder in
                removed.withUnsafeBufferPointer { removed in
                    let n = oldRows.count, s = order.count
                    var out = 0, oldPlace = 0, removedRank = 0, kept = 0
                    for t in 0...s {
                        // The kept rows before survivor t (after the last: all).
                        let target = t < s ? places[t] : n - removed.count
                        while kept < target {
                            let runEnd = removedRank < removed.count ? removed[removedRank] : n
                            if oldPlace == runEnd {
                                oldPlace += 1
                                removedRank += 1
                                continue
                            }
                            let count = min(runEnd - oldPlace, target - kept)
                            MergeCopy.copy(oldRows.baseAddress! + oldPlace, to: rowsOut + out, count: count, available: n - oldPlace)
                            if let keysOut {
                                MergeCopy.copy(oldOrder.baseAddress! + oldPlace, to: keysOut + out, count: count, available: n - oldPlace)
                            }
                            out += count
                            oldPlace += count
                            kept += count
                        }
                        if t < s {
                            let row = Int(order[t])
                            rowsOut[out] = survivors[row]
                            keysOut?[out] = survivorKeys[row]
                            out += 1
                        }
                    }
                }
            }
        }
    }

    /// The first place at or after `first` in `keys` (ascending) whose key
    /// is not below `key` (`keys.count` if none): the next 8 keys counted
    /// without a branch (many touched rows: the place is near, and a count
    /// mispredicts less than a search or a scan), then steps doubling and
    /// a binary search in the last step, so that t searches over n keys,
    /// each from the last one's place, cost O(t log(n / t)).  (Measured
    /// against four blocks of 8 counted before the steps: 2-5 % slower.)
    @inline(__always)
    static func firstPlace(notBelow key: UInt64, in keys: UnsafeBufferPointer<UInt64>, from first: Int) -> Int {
        var start = first
        if first + 8 <= keys.count {
            // The keys ascend: as many of the next 8 are below as the place is past `first`.
            var below = 0
            for i in 0..<8 { below &+= keys[first + i] < key ? 1 : 0 }
            if below < 8 { return first + below }
            start = first + 8
        } else {
            while start < keys.count && keys[start] < key { start += 1 }
            return start
        }
        var low = start, step = 1, high = start
        while high < keys.count && keys[high] < key {
            low = high + 1
            high = start + step
            step <<= 1
        }
        high = min(high, keys.count)
        while low < high {
            let mid = (low + high) >> 1
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The objects of `keys` that exist and match the filters now, in key order.
    private func matching(_ keys: KeySet) throws(FiefError) -> [Int64] {
        let table = try realm.table(tableKey)
        var found: [Int64] = []
        for (index, cluster) in keys.clusters.enumerated() {
            let presence = try realm.chunk(table, column: ClusterLayout.presenceColumn, cluster: cluster).reader
            let mask = keys.slots[index] & Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
            if mask == Bitmap(repeating: 0) { continue }
            _ = try visitCluster(table, cluster, mask, nil) { cluster, bits in
                let base = cluster << ClusterLayout.shift
                forEachSlot(bits) { slot in found.append(base | Int64(slot)) }
            }
        }
        return found
    }

    /// The order keys (`SortColumn.orderKey`) of `rows`' values of one sort
    /// key, read through `reader`; nil if they do not ascend (the rows are
    /// not in that key's order: the update cannot place rows among them).
    private static func orderKeys(of rows: [Int64], type: PropertyType, ascending: Bool, reader: inout SortValueReader) throws(FiefError) -> [UInt64]? {
        let column = SortColumn(type: type, count: 1, ascending: ascending)
        var keys = [UInt64](repeating: 0, count: rows.count)
        var previous: UInt64 = 0
        for (index, key) in rows.enumerated() {
            column.set(0, try reader.value(key))
            let orderKey = column.orderKey(0)
            if orderKey < previous { return nil }
            keys[index] = orderKey
            previous = orderKey
        }
        return keys
    }

    /// `clusters` (cluster masks in cluster order, as `adoptRows` keeps
    /// them) with the keys of `clearing` out and then the keys `setting`
    /// (ascending) in: one pass over the masks and the keys, where making
    /// them again reads every row.
    static func update(_ clusters: inout [(Int64, Bitmap)], clearing: KeySet, setting: [Int64]) {
        let empty = Bitmap(repeating: 0)
        var emptied = false
        var i = 0
        for (index, cluster) in clearing.clusters.enumerated() {
            while i < clusters.count && clusters[i].0 < cluster { i += 1 }
            guard i < clusters.count, clusters[i].0 == cluster else { continue }
            clusters[i].1 &= ~clearing.slots[index]
            if clusters[i].1 == empty { emptied = true }
        }
        var added: [(Int64, Bitmap)] = []
        i = 0
        var k = 0
        while k < setting.count {
            let cluster = ClusterLayout.cluster(of: setting[k])
            var bits = empty
            while k < setting.count && ClusterLayout.cluster(of: setting[k]) == cluster {
                let slot = ClusterLayout.slot(of: setting[k])
                bits[slot >> 6] |= 1 << UInt64(slot & 63)
                k += 1
            }
            while i < clusters.count && clusters[i].0 < cluster { i += 1 }
            if i < clusters.count && clusters[i].0 == cluster { clusters[i].1 |= bits } else { added.append((cluster, bits)) }
        }
        if !added.isEmpty {
            clusters += added
            clusters.sort { $0.0 < $1.0 }
        }
        if emptied { clusters.removeAll { $0.1 == empty } }
    }

    /// The places in `rows` (each object once) of the keys of `keys`
    /// (`count` of them), ascending, and for each key by its rank (its
    /// place in key order) the index of its place among them (-1: not a
    /// row); nil when more rows than keys are found (the rows hold an
    /// object twice: not a class's objects).  Many keys: one pass over the
    /// rows, each looked up in a table of the clusters the keys span,
    /// without a branch on whether it is one (a tenth of them, anywhere: a
    /// branch mispredicts on each); the ranks from the same table, the
    /// keys before each cluster beside it.
    static func placesAndRanks(of keys: KeySet, count: Int, in rows: [Int64]) -> (places: [Int], indexOfRank: [Int32])? {
        var indexOfRank = [Int32](repeating: -1, count: count)
        guard let low = keys.clusters.first, let high = keys.clusters.last else { return ([], indexOfRank) }
        if count <= 4 {
            // A few: a scan for each.
            var found: [(place: Int, rank: Int)] = []
            rows.withUnsafeBufferPointer { rows in
                var rank = 0
                for (index, cluster) in keys.clusters.enumerated() {
                    forEachSlot(keys.slots[index]) { slot in
                        if let place = Self.place(of: cluster << ClusterLayout.shift | Int64(slot), in: rows) { found.append((place, rank)) }
                        rank += 1
                    }
                }
            }
            return placesAndRanks(found, count: count)
        }
        if high - low > Int64(keys.clusters.count) * 64 + 4096 {
            // Clusters far apart: each row asked.
            let ranks = KeyRanks(keys)
            var places: [Int] = []
            for (place, key) in rows.enumerated() where keys.contains(key) {
                indexOfRank[ranks.rank(of: key)] = Int32(places.count)
                places.append(place)
            }
            return (places, indexOfRank)
        }
        // The masks as plain words, four a cluster, then four zero words
        // for rows of clusters outside (a SIMD lane picked by a computed
        // index costs more than a load); the keys before each cluster.
        let clusterCount = Int(high - low + 1)
        var words = [UInt64](repeating: 0, count: clusterCount * 4 + 4)
        var before = [Int32](repeating: 0, count: clusterCount)
        var total: Int32 = 0
        for (index, cluster) in keys.clusters.enumerated() {
            let slots = keys.slots[index], first = Int(cluster - low) * 4
            before[Int(cluster - low)] = total
            for w in 0..<4 {
                words[first + w] = slots[w]
                total += Int32(slots[w].nonzeroBitCount)
            }
        }
        let places = words.withUnsafeBufferPointer { words in
            rows.withUnsafeBufferPointer { rows in
                [Int](unsafeUninitializedCapacity: count + 64) { out, made in
                    var found = 0
                    let outside = clusterCount * 4
                    var place = 0
                    // In blocks of 64 rows, each adding at most 64 places:
                    // room for them is checked once a block.
                    while place < rows.count && found <= count {
                        let end = min(place + 64, rows.count)
                        while place < end {
                            let key = rows[place]
                            let c = ClusterLayout.cluster(of: key) &- low
                            let slot = ClusterLayout.slot(of: key)
                            let inside = UInt64(bitPattern: c) < UInt64(clusterCount)
                            let word = words[inside ? Int(c) << 2 | slot >> 6 : outside]
                            out[found] = place
                            found &+= Int((word >> UInt64(slot & 63)) & 1)
                            place += 1
                        }
                    }
                    made = min(found, count + 1)
                }
            }
        }
        // More places than keys: the rows hold an object twice (not the
        // rows of a class's objects).
        if places.count > count { return nil }
        words.withUnsafeBufferPointer { words in
            rows.withUnsafeBufferPointer { rows in
                for (index, place) in places.enumerated() {
                    let key = rows[place]
                    let c = Int(ClusterLayout.cluster(of: key) - low), slot = ClusterLayout.slot(of: key)
                    let word = slot >> 6
                    var rank = Int(before[c])
                    for w in 0..<word { rank += words[c << 2 | w].nonzeroBitCount }
                    rank += (words[c << 2 | word] & ((1 << UInt64(slot & 63)) - 1)).nonzeroBitCount
                    indexOfRank[rank] = Int32(index)
                }
            }
        }
        return (places, indexOfRank)
    }

    /// The place of `key` in `rows`, compared eight at a time; nil if absent.
    static func place(of key: Int64, in rows: UnsafeBufferPointer<Int64>) -> Int? {
        var i = 0
        if let base = UnsafeRawPointer(rows.baseAddress) {
            let wanted = SIMD8<Int64>(repeating: key)
            while i + 8 <= rows.count {
                if any(base.loadUnaligned(fromByteOffset: i * 8, as: SIMD8<Int64>.self) .== wanted) { break }
                i += 8
            }
        }
        while i < rows.count {
            if rows[i] == key { return i }
            i += 1
        }
        return nil
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
        if index >= chunks.count {
            // Keys come mostly in ascending order: room for twice as many clusters at once.
            chunks.append(contentsOf: repeatElement(nil, count: min(max(index + 1, 2 * chunks.count), Int(Self.directClusters)) - chunks.count))
        }
        if let chunk = chunks[index] { return chunk.value(slot, type: type, nullable: nullable) }
        let chunk = try realm.chunk(table, column: column, cluster: cluster)
        chunks[index] = chunk
        return chunk.value(slot, type: type, nullable: nullable)
    }
}

/// The rank of each key of a key set among its keys (its place in key
/// order): the keys before each cluster, and the slots below the key's in
/// its own.  The clusters are found in a table by cluster number when they
/// span few numbers (most sets: keys are made in order), else by a binary
/// search.
struct KeyRanks {
    private let keys: KeySet
    private let before: [Int]
    /// The place in `keys.clusters` of each cluster number from the first
    /// (-1: none), when they span few numbers; else empty.
    private let placeOfCluster: [Int32]

    init(_ keys: KeySet) {
        self.keys = keys
        var before: [Int] = []
        before.reserveCapacity(keys.clusters.count)
        var total = 0
        for slots in keys.slots {
            before.append(total)
            total += slots[0].nonzeroBitCount + slots[1].nonzeroBitCount + slots[2].nonzeroBitCount + slots[3].nonzeroBitCount
        }
        self.before = before
        var table: [Int32] = []
        if let low = keys.clusters.first, let high = keys.clusters.last, high - low < Int64(keys.clusters.count) * 8 + 1024 {
            table = [Int32](repeating: -1, count: Int(high - low + 1))
            for (place, cluster) in keys.clusters.enumerated() { table[Int(cluster - low)] = Int32(place) }
        }
        placeOfCluster = table
    }

    /// The rank of `key`, which the set holds.
    func rank(of key: Int64) -> Int {
        let cluster = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
        let place: Int
        if !placeOfCluster.isEmpty {
            place = Int(placeOfCluster[Int(cluster - keys.clusters[0])])
        } else {
            var low = 0, high = keys.clusters.count
            while low < high {
                let mid = (low + high) >> 1
                if keys.clusters[mid] < cluster { low = mid + 1 } else { high = mid }
            }
            place = low
        }
        let slots = keys.slots[place], word = slot >> 6
        var rank = before[place]
        for w in 0..<word { rank += slots[w].nonzeroBitCount }
        return rank + (slots[word] & ((1 << UInt64(slot & 63)) - 1)).nonzeroBitCount
    }
}

/// Copies of short runs of 8-byte values in fixed-size blocks.
enum MergeCopy {
    /// How far past its end a copy may write: the destination has this much room more.
    static let slack = 16

    /// Copies `count` values from `source` (which has `available` from
    /// there) to `target`: up to 16 as one block of 16 (written whole:
    /// `target` has room), else with `memcpy`.
    @inline(__always)
    static func copy<T: FixedWidthInteger>(_ source: UnsafePointer<T>, to target: UnsafeMutablePointer<T>, count: Int, available: Int) {
        if count <= slack && available >= slack {
            let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
            to.storeBytes(of: from.loadUnaligned(as: SIMD8<UInt64>.self), as: SIMD8<UInt64>.self)
            (to + 64).storeBytes(of: from.loadUnaligned(fromByteOffset: 64, as: SIMD8<UInt64>.self), as: SIMD8<UInt64>.self)
        } else {
            target.initialize(from: source, count: count)
        }
    }
}
