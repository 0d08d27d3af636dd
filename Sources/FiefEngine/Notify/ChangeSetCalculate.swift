// The change set of results from their key lists at two versions
// (docs/design.md, "Change sets"): keys matched, modified survivors
// marked, and, when the order is not key order, the survivors that keep
// their relative order chosen by a longest common subsequence.

extension ChangeBuilder {
    /// The change from results holding the object keys `old` to results
    /// holding `new`.
    ///
    /// A key in both is the same row, unless `deleted` says its object was
    /// deleted since `old` (its key may since name a new object): then the
    /// old row is a deletion.  Rows in both whose object `modified` says
    /// changed are modifications (positions in `new`).  When the results
    /// are in key order (`inKeyOrder`: ascending keys, no repeats, as a
    /// class's objects or an unsorted query), rows never move.  Otherwise
    /// the rows in both that keep their relative order are the longest
    /// common subsequence of the two lists, preferring, among equally long
    /// ones, fewer modified rows, then rows earlier in `old`; the other
    /// rows in both are reported as deleted and inserted (as realm-core
    /// does, without `moves`).  Keys may repeat (results of a list).
    ///
    /// Costs O(n) with no allocation beyond the result when the lists are
    /// equal, only differ at their ends or are in key order, else
    /// O(n log n).
    public static func calculate(old: [Int64], new: [Int64], inKeyOrder: Bool, uniqueKeys: Bool = false,
                                 deleted: ((Int64) -> Bool)? = nil,
                                 modified: (Int64) -> Bool) -> ChangeBuilder {
        var changes = ChangeBuilder()
        // The common head: rows that stay where they were.
        var head = 0
        let headEnd = min(old.count, new.count)
        if let deleted {
            while head < headEnd && old[head] == new[head] && !deleted(old[head]) { head += 1 }
        } else {
            while head < headEnd && old[head] == new[head] { head += 1 }
        }
        for index in 0..<head where modified(new[index]) { changes.modifications.add(index) }
        if head == old.count {
            changes.insertions.add(head..<new.count)
            return changes
        }
        if head == new.count && deleted == nil {
            changes.deletions.add(head..<old.count)
            return changes
        }
        if inKeyOrder {
            calculateInKeyOrder(old: old, new: new, from: head, deleted: deleted, modified: modified, into: &changes)
            return changes
        }
        // With unique keys (`uniqueKeys`: not a list's), the common tail
        // likewise (a row moved in sorted results leaves only the rows
        // between its two places to match): every longest common
        // subsequence of unique keys ends with it.
        var tail = 0
        let room = uniqueKeys ? min(old.count, new.count) - head : 0
        while tail < room && old[old.count - 1 - tail] == new[new.count - 1 - tail]
            && !(deleted?(old[old.count - 1 - tail]) ?? false) {
            tail += 1
        }
        let oldEnd = old.count - tail, newEnd = new.count - tail
        for index in newEnd..<new.count where modified(new[index]) { changes.modifications.add(index) }
        if head == oldEnd {
            changes.insertions.add(head..<newEnd)
            return changes
        }
        if head == newEnd && deleted == nil {
            changes.deletions.add(head..<oldEnd)
            return changes
        }
        calculateInAnyOrder(old: old, new: new, from: head, oldEnd: oldEnd, newEnd: newEnd, deleted: deleted,
                            modified: modified, into: &changes)
        return changes
    }

    /// Both lists ascending from `start`: one merge.
    private static func calculateInKeyOrder(old: [Int64], new: [Int64], from start: Int,
                                            deleted: ((Int64) -> Bool)?, modified: (Int64) -> Bool,
                                            into changes: inout ChangeBuilder) {
        var i = start, j = start
        while i < old.count && j < new.count {
            let oldKey = old[i], newKey = new[j]
            if oldKey == newKey {
                if let deleted, deleted(oldKey) {
                    changes.deletions.add(i)
                    changes.insertions.add(j)
                } else if modified(newKey) {
                    changes.modifications.add(j)
                }
                i += 1
                j += 1
            } else if oldKey < newKey {
                changes.deletions.add(i)
                i += 1
            } else {
                changes.insertions.add(j)
                j += 1
            }
        }
        changes.deletions.add(i..<old.count)
        changes.insertions.add(j..<new.count)
    }

    /// A row of one list: its key and its position; ordered by key, then
    /// position.
    private struct Row: Comparable {
        var key: Int64
        var index: Int

        static func < (a: Row, b: Row) -> Bool { a.key < b.key || (a.key == b.key && a.index < b.index) }
    }

    /// Any order: match rows by key, then keep the longest common
    /// subsequence of the matched rows in place.
    private static func calculateInAnyOrder(old: [Int64], new: [Int64], from start: Int, oldEnd: Int, newEnd: Int,
                                            deleted: ((Int64) -> Bool)?, modified: (Int64) -> Bool,
                                            into changes: inout ChangeBuilder) {
        // Rows by key, then position; the rows of deleted objects left out.
        var oldRows: [Row] = []
        oldRows.reserveCapacity(oldEnd - start)
        for index in start..<oldEnd {
            if let deleted, deleted(old[index]) {
                changes.deletions.add(index)
            } else {
                oldRows.append(Row(key: old[index], index: index))
            }
        }
        var newRows: [Row] = []
        newRows.reserveCapacity(newEnd - start)
        for index in start..<newEnd { newRows.append(Row(key: new[index], index: index)) }
        oldRows.sort()
        newRows.sort()

        // Per key, its first occurrences in each list survive, as many as
        // the list with fewer has; the rest are deleted or inserted.  Each
        // old survivor may stay in place as any new survivor of its key:
        // `sameKey[old position - start]`, a range of `newRows`.
        var sameKey = [(start: Int32, end: Int32)](repeating: (-1, -1), count: oldEnd - start)
        var newSurvives = [Bool](repeating: false, count: newEnd - start)
        var i = 0, j = 0
        while i < oldRows.count && j < newRows.count {
            let key = oldRows[i].key
            if key < newRows[j].key {
                changes.deletions.add(oldRows[i].index)
                i += 1
                continue
            }
            if key > newRows[j].key {
                changes.insertions.add(newRows[j].index)
                j += 1
                continue
            }
            var oldEnd = i + 1, newEnd = j + 1
            while oldEnd < oldRows.count && oldRows[oldEnd].key == key { oldEnd += 1 }
            while newEnd < newRows.count && newRows[newEnd].key == key { newEnd += 1 }
            let survivors = min(oldEnd - i, newEnd - j)
            for k in 0..<survivors {
                sameKey[oldRows[i + k].index - start] = (Int32(j), Int32(j + survivors))
                newSurvives[newRows[j + k].index - start] = true
            }
            for k in (i + survivors)..<oldEnd { changes.deletions.add(oldRows[k].index) }
            for k in (j + survivors)..<newEnd { changes.insertions.add(newRows[k].index) }
            i = oldEnd
            j = newEnd
        }
        while i < oldRows.count { changes.deletions.add(oldRows[i].index); i += 1 }
        while j < newRows.count { changes.insertions.add(newRows[j].index); j += 1 }
        oldRows = []

        // Survivors in list order: their places among the survivors.
        var newOrder: [Int] = []  // positions in `new`
        var placeInNew = [Int32](repeating: -1, count: newEnd - start)
        for index in start..<newEnd where newSurvives[index - start] {
            placeInNew[index - start] = Int32(newOrder.count)
            newOrder.append(index)
        }
        if newOrder.isEmpty { return }
        var oldOrder: [Int] = []  // positions in `old`
        oldOrder.reserveCapacity(newOrder.count)
        for index in start..<oldEnd where sameKey[index - start].start >= 0 { oldOrder.append(index) }

        var modifiedNew = [Bool](repeating: false, count: newOrder.count)
        for (place, index) in newOrder.enumerated() where modified(new[index]) {
            modifiedNew[place] = true
            changes.modifications.add(index)
        }

        // Already in the same relative order (only insertions and deletions
        // around them): nothing moved.
        var sameOrder = true
        for place in 0..<oldOrder.count where old[oldOrder[place]] != new[newOrder[place]] {
            sameOrder = false
            break
        }
        if sameOrder { return }

        // The candidates of each old place: the new places of its key.
        var candidateStart = [Int](repeating: 0, count: oldOrder.count + 1)
        var candidates: [Int] = []
        candidates.reserveCapacity(oldOrder.count)
        for (place, index) in oldOrder.enumerated() {
            candidateStart[place] = candidates.count
            let range = sameKey[index - start]
            for r in Int(range.start)..<Int(range.end) {
                candidates.append(Int(placeInNew[newRows[r].index - start]))
            }
            // Ascending new places (a key's rows are sorted by position).
        }
        candidateStart[oldOrder.count] = candidates.count
        newRows = []
        sameKey = []

        let kept = longestCommonSubsequence(candidates: candidates, candidateStart: candidateStart,
                                            modifiedNew: modifiedNew)
        var next = 0
        for (place, index) in oldOrder.enumerated() {
            if next < kept.count && kept[next].old == place { next += 1 } else { changes.deletions.add(index) }
        }
        next = 0
        for (place, index) in newOrder.enumerated() {
            if next < kept.count && kept[next].new == place { next += 1 } else { changes.insertions.add(index) }
        }
    }

    /// The longest common subsequence of two lists given as candidates:
    /// for each place in the old list, the places in the new list holding
    /// the same key (`candidates[candidateStart[p]..<candidateStart[p + 1]]`,
    /// ascending).  Returned as pairs of places, ascending.
    ///
    /// Among the longest, the one keeping the fewest modified rows, then
    /// the one whose places in the old list, then in the new, come first
    /// (lexicographically).  Hunt and Szymanski's reduction: a chain of
    /// candidates increasing in both places is a common subsequence; the
    /// best chain from each candidate is found from the last old place
    /// back with a Fenwick tree of maxima over new places, then the chain
    /// is read forward.  O((n + r) log n) for r candidates (r = n when no
    /// key repeats).
    private static func longestCommonSubsequence(candidates: [Int], candidateStart: [Int],
                                                 modifiedNew: [Bool]) -> [(old: Int, new: Int)] {
        let count = modifiedNew.count
        let oldCount = candidateStart.count - 1
        // A kept row weighs `unit`, less one if it is modified: length
        // first, fewer modified rows second.
        let unit = count + 1
        func weight(_ newPlace: Int) -> Int { modifiedNew[newPlace] ? unit - 1 : unit }

        // best[c]: the weight of the best chain starting with candidate c.
        var best = [Int](repeating: 0, count: candidates.count)
        // A Fenwick tree of maxima over reversed new places (place p at
        // count - p): its prefixes are the places above a given one.
        var tree = [Int](repeating: 0, count: count + 1)
        var oldPlace = oldCount - 1
        while oldPlace >= 0 {
            let range = candidateStart[oldPlace]..<candidateStart[oldPlace + 1]
            for c in range {
                var position = count - 1 - candidates[c]
                var above = 0
                while position > 0 {
                    if tree[position] > above { above = tree[position] }
                    position &= position - 1
                }
                best[c] = weight(candidates[c]) + above
            }
            // Recorded after all of this place's candidates are scored: a
            // chain holds an old place once.
            for c in range {
                var position = count - candidates[c]
                while position <= count {
                    if tree[position] < best[c] { tree[position] = best[c] }
                    position += position & -position
                }
            }
            oldPlace -= 1
        }

        // Read the chain forward: at each old place, the first new place
        // still reaching the remaining weight.
        var remaining = 0
        for value in best where value > remaining { remaining = value }
        var chain: [(old: Int, new: Int)] = []
        var lastNew = -1
        for place in 0..<oldCount where remaining > 0 {
            for c in candidateStart[place]..<candidateStart[place + 1]
            where candidates[c] > lastNew && best[c] == remaining {
                chain.append((place, candidates[c]))
                remaining -= weight(candidates[c])
                lastNew = candidates[c]
                break
            }
        }
        return chain
    }
}
