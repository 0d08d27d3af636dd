// The index sets change sets are made of: sorted, disjoint ranges of
// collection positions (docs/design.md, "Change sets").  Pure Swift: no
// storage, no Foundation (Foundation's IndexSet is not used so that the
// engine's hot paths stay free of it and this file builds on its own).

/// A set of non-negative collection positions kept as sorted ranges.
///
/// Neighbouring ranges never touch (`[0..<2, 3..<5]`, never `[0..<2,
/// 2..<5]`), so a run of positions is one range whatever order it was
/// added in, and equal sets compare equal.  Besides the set operations it
/// has the shifting operations a change set needs when positions move
/// under it: `insert(at:)` and `erase(at:)` move the members after a
/// position, `shift`/`unshift` translate one position between the spaces
/// with and without the members.  Most change sets are one range or
/// none: then every operation is O(1).
public struct IndexRangeSet: Equatable, Sendable, Sequence, CustomStringConvertible {
    /// The ranges, ascending, non-empty, not touching.
    public private(set) var ranges: [Range<Int>]

    /// The empty set.
    public init() { ranges = [] }

    /// The positions `0..<count`.
    public init(count: Int) { ranges = count > 0 ? [0..<count] : [] }

    /// The set of `indices` (any order, repeats allowed).
    public init<S: Sequence>(_ indices: S) where S.Element == Int {
        ranges = []
        for index in indices { add(index) }
    }

    /// The set made of `ranges` (any order; empty ranges ignored).
    public init(ranges: [Range<Int>]) {
        self.ranges = []
        for range in ranges { add(range) }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// The number of members.
    public var count: Int {
        var total = 0
        for range in ranges { total += range.count }
        return total
    }

    /// The smallest member, if any.
    public var first: Int? { ranges.first?.lowerBound }
    /// The largest member, if any.
    public var last: Int? { ranges.last.map { $0.upperBound - 1 } }

    public var description: String {
        "[" + ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)...\($0.upperBound - 1)" }
            .joined(separator: ", ") + "]"
    }

    /// The members, ascending.
    public var indices: [Int] { Array(self) }

    /// Iterates the members, ascending.
    public struct Iterator: IteratorProtocol {
        fileprivate let ranges: [Range<Int>]
        /// The range being walked, and the member it gives next.
        fileprivate var rangeIndex = 0
        fileprivate var upcoming: Int

        public mutating func next() -> Int? {
            guard rangeIndex < ranges.count else { return nil }
            let member = upcoming
            upcoming += 1
            if upcoming == ranges[rangeIndex].upperBound {
                rangeIndex += 1
                if rangeIndex < ranges.count { upcoming = ranges[rangeIndex].lowerBound }
            }
            return member
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(ranges: ranges, upcoming: ranges.first?.lowerBound ?? 0)
    }

    public var underestimatedCount: Int { count }

    // MARK: Queries

    /// The position in `ranges` of the first range whose end is above
    /// `index` (the range holding it, or the first range after it).
    @inline(__always)
    private func rangeIndex(notBelow index: Int) -> Int {
        if ranges.count <= 1 { return ranges.isEmpty || ranges[0].upperBound > index ? 0 : 1 }
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether `index` is a member.
    public func contains(_ index: Int) -> Bool {
        let at = rangeIndex(notBelow: index)
        return at < ranges.count && ranges[at].lowerBound <= index
    }

    /// The number of members in `bounds`.
    public func count(in bounds: Range<Int>) -> Int {
        guard !bounds.isEmpty else { return 0 }
        var total = 0
        var at = rangeIndex(notBelow: bounds.lowerBound)
        while at < ranges.count && ranges[at].lowerBound < bounds.upperBound {
            total += ranges[at].clamped(to: bounds).count
            at += 1
        }
        return total
    }

    /// The number of members below `index`.
    public func count(below index: Int) -> Int { count(in: 0..<Swift.max(index, 0)) }

    /// `index`, a position in the space without the members, translated
    /// to the space with them: moved up past every member at or before
    /// it.  `IndexRangeSet([1, 2]).shift(1)` is 3.
    public func shift(_ index: Int) -> Int {
        var shifted = index
        for range in ranges {
            if range.lowerBound > shifted { break }
            shifted += range.count
        }
        return shifted
    }

    /// `index`, a position that is not a member, translated to the space
    /// without the members: moved down by the members below it.
    public func unshift(_ index: Int) -> Int { index - count(below: index) }

    // MARK: Adding and removing members (no shifting)

    /// Makes room for `count` ranges (members added in ascending order
    /// make one range each at most).
    public mutating func reserveCapacity(_ count: Int) { ranges.reserveCapacity(count) }

    /// Adds `index`.
    public mutating func add(_ index: Int) { add(index..<(index + 1)) }

    /// Adds every position of `range`.
    public mutating func add(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        // Appending after the last range: the common case when building.
        if let last = ranges.last, last.upperBound <= range.lowerBound {
            if last.upperBound == range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
            } else {
                ranges.append(range)
            }
            return
        }
        // The ranges touching or overlapping `range` are merged into one.
        var first = rangeIndex(notBelow: range.lowerBound)
        if first > 0 && ranges[first - 1].upperBound == range.lowerBound { first -= 1 }
        var end = first
        var merged = range
        while end < ranges.count && ranges[end].lowerBound <= merged.upperBound {
            merged = Swift.min(merged.lowerBound, ranges[end].lowerBound)..<Swift.max(merged.upperBound, ranges[end].upperBound)
            end += 1
        }
        ranges.replaceSubrange(first..<end, with: CollectionOfOne(merged))
    }

    /// Adds every member of `other`.
    public mutating func add(_ other: IndexRangeSet) {
        if isEmpty { self = other; return }
        for range in other.ranges { add(range) }
    }

    /// Removes `index` if it is a member.
    public mutating func remove(_ index: Int) { remove(index..<(index + 1)) }

    /// Removes every position of `range`.
    public mutating func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let first = rangeIndex(notBelow: range.lowerBound)
        var end = first
        var kept: [Range<Int>] = []
        while end < ranges.count && ranges[end].lowerBound < range.upperBound {
            let current = ranges[end]
            if current.lowerBound < range.lowerBound { kept.append(current.lowerBound..<range.lowerBound) }
            if current.upperBound > range.upperBound { kept.append(range.upperBound..<current.upperBound) }
            end += 1
        }
        if first == end { return }
        ranges.replaceSubrange(first..<end, with: kept)
    }

    /// Removes every member of `other`: one pass over both (the ranges
    /// left are cut from this set's, so they stay apart).
    public mutating func remove(_ other: IndexRangeSet) {
        if isEmpty || other.isEmpty { return }
        var left: [Range<Int>] = []
        left.reserveCapacity(ranges.count)
        var next = 0  // the first of `other`'s ranges that may overlap the current one
        for range in ranges {
            var rest = range
            while next < other.ranges.count && other.ranges[next].upperBound <= rest.lowerBound { next += 1 }
            var cut = next
            while !rest.isEmpty && cut < other.ranges.count && other.ranges[cut].lowerBound < rest.upperBound {
                let removed = other.ranges[cut]
                if removed.lowerBound > rest.lowerBound { left.append(rest.lowerBound..<removed.lowerBound) }
                rest = Swift.min(Swift.max(removed.upperBound, rest.lowerBound), rest.upperBound)..<rest.upperBound
                if !rest.isEmpty { cut += 1 }
            }
            if !rest.isEmpty { left.append(rest) }
            next = cut
        }
        ranges = left
    }

    /// Removes every member.
    public mutating func removeAll() { ranges.removeAll() }

    // MARK: Shifting operations (positions move under the set)

    /// Makes room for `count` new positions at `index`: members at or
    /// after it move up by `count`; nothing is added.
    public mutating func shiftForInsert(at index: Int, count: Int = 1) {
        guard count > 0, let last = ranges.last, last.upperBound > index else { return }
        var at = rangeIndex(notBelow: index)
        if ranges[at].lowerBound < index {
            // The range holding `index` splits there.
            let split = ranges[at]
            ranges[at] = split.lowerBound..<index
            ranges.insert((index + count)..<(split.upperBound + count), at: at + 1)
            at += 2
        }
        while at < ranges.count {
            ranges[at] = (ranges[at].lowerBound + count)..<(ranges[at].upperBound + count)
            at += 1
        }
    }

    /// Makes room at each member of `positions`, taken as positions in the
    /// space after all of them are inserted (as if inserted one by one,
    /// ascending): each member `m` moves to `positions.shift(m)`.
    public mutating func shiftForInsert(at positions: IndexRangeSet) {
        if isEmpty || positions.isEmpty { return }
        if positions.ranges.count == 1 {
            shiftForInsert(at: positions.ranges[0].lowerBound, count: positions.ranges[0].count)
            return
        }
        var result = IndexRangeSet()
        let inserted = positions.ranges
        var next = 0, added = 0
        for range in ranges {
            var start = range.lowerBound
            while start < range.upperBound {
                while next < inserted.count && inserted[next].lowerBound <= start + added {
                    added += inserted[next].count
                    next += 1
                }
                let end = next < inserted.count ? Swift.min(range.upperBound, inserted[next].lowerBound - added) : range.upperBound
                result.add((start + added)..<(end + added))
                start = end
            }
        }
        self = result
    }

    /// Inserts `count` new members at `index`, moving members at or after
    /// it up by `count`.
    public mutating func insert(at index: Int, count: Int = 1) {
        guard count > 0 else { return }
        shiftForInsert(at: index, count: count)
        add(index..<(index + count))
    }

    /// Inserts a member at each member of `positions`, taken as positions
    /// in the space after all of them are inserted.
    public mutating func insert(at positions: IndexRangeSet) {
        if positions.isEmpty { return }
        shiftForInsert(at: positions)
        add(positions)
    }

    /// Removes position `index` from the space: the member there (if any)
    /// goes and members after it move down by one.
    public mutating func erase(at index: Int) {
        guard let last = ranges.last, last.upperBound > index else { return }
        var at = rangeIndex(notBelow: index)
        let current = ranges[at]
        if current.lowerBound <= index {
            if current.count == 1 {
                ranges.remove(at: at)
            } else {
                ranges[at] = current.lowerBound..<(current.upperBound - 1)
                at += 1
            }
        }
        while at < ranges.count {
            ranges[at] = (ranges[at].lowerBound - 1)..<(ranges[at].upperBound - 1)
            at += 1
        }
        // Removing a position that was not a member makes the ranges
        // either side of it touch.
        let join = rangeIndex(notBelow: index)
        if join > 0 && join < ranges.count && ranges[join - 1].upperBound == ranges[join].lowerBound {
            ranges[join - 1] = ranges[join - 1].lowerBound..<ranges[join].upperBound
            ranges.remove(at: join)
        }
    }

    /// Removes each member of `positions` from the space, positions taken
    /// in the space before any is removed: members that are positions go,
    /// the others move down by the positions below them.
    public mutating func erase(at positions: IndexRangeSet) {
        if isEmpty || positions.isEmpty { return }
        var result = IndexRangeSet()
        let erased = positions.ranges
        var next = 0, removed = 0
        for range in ranges {
            var start = range.lowerBound
            while start < range.upperBound {
                while next < erased.count && erased[next].upperBound <= start {
                    removed += erased[next].count
                    next += 1
                }
                if next < erased.count && erased[next].lowerBound <= start {
                    start = erased[next].upperBound
                    continue
                }
                let end = next < erased.count ? Swift.min(range.upperBound, erased[next].lowerBound) : range.upperBound
                result.add((start - removed)..<(end - removed))
                start = end
            }
        }
        self = result
    }

    /// Removes position `index` from the space as `erase(at:)` does and
    /// returns `nil` if it was a member, or else `index` translated to the
    /// space without the members (`unshift`).
    public mutating func eraseOrUnshift(_ index: Int) -> Int? {
        let wasMember = contains(index)
        let unshifted = index - count(below: index)
        erase(at: index)
        return wasMember ? nil : unshifted
    }

    /// Adds `index`, a position in the space without the members, at its
    /// place in the space with them (`shift`), and returns that place.
    @discardableResult
    public mutating func addShifted(_ index: Int) -> Int {
        let shifted = shift(index)
        add(shifted)
        return shifted
    }

    /// Adds each member of `values`, positions of a later space that
    /// `shiftedBy`'s members were inserted into: a value that is one of
    /// them is skipped, the others are moved down past them and then
    /// shifted past this set's members as it was before the call.
    public mutating func addShifted(by shiftedBy: IndexRangeSet, _ values: IndexRangeSet) {
        if values.isEmpty { return }
        let before = self
        for value in values where !shiftedBy.contains(value) {
            add(before.shift(value - shiftedBy.count(below: value)))
        }
    }
}
