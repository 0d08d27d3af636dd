// Change sets of ordered collections and the builder that makes them from
// the operations a transaction recorded (docs/design.md, "Change sets").
// Realm's semantics (its CollectionChangeSet and change builder); pure
// Swift, no storage.

/// An element that moved: its position before the change and after it.
public struct IndexMove: Equatable, Sendable, CustomStringConvertible {
    /// Its position in the collection before the change.
    public var from: Int
    /// Its position in the collection after the change.
    public var to: Int

    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }

    public var description: String { "\(from)->\(to)" }
}

/// What changed in an ordered collection (results, list, set) between two
/// versions, as Realm reports it.
///
/// Applying it to the old collection gives the new one: remove the
/// `deletions` (old positions), then insert the `insertions` (new
/// positions) in ascending order.  Elements present in both and changed
/// are in `modifications` (their old positions) and `modificationsNew`
/// (the same elements' new positions); an inserted element is never also
/// modified.  A move is reported as both a deletion and an insertion, and
/// also in `moves` when it is known to be one.
public struct IndexChangeSet: Equatable, Sendable, CustomStringConvertible {
    /// Positions, in the old collection, of the elements removed.
    public var deletions: IndexRangeSet
    /// Positions, in the new collection, of the elements added.
    public var insertions: IndexRangeSet
    /// Positions, in the old collection, of the elements changed.
    public var modifications: IndexRangeSet
    /// Positions, in the new collection, of the same changed elements.
    public var modificationsNew: IndexRangeSet
    /// Elements moved; each `from` is also in `deletions`, each `to` in
    /// `insertions`.
    public var moves: [IndexMove]
    /// The object owning the collection was deleted (every old element is
    /// then deleted).
    public var rootDeleted: Bool
    /// The collection was cleared (`removeAll`) by the last change.
    public var cleared: Bool

    public init(deletions: IndexRangeSet = IndexRangeSet(), insertions: IndexRangeSet = IndexRangeSet(),
                modifications: IndexRangeSet = IndexRangeSet(), modificationsNew: IndexRangeSet = IndexRangeSet(),
                moves: [IndexMove] = [], rootDeleted: Bool = false, cleared: Bool = false) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
        self.modificationsNew = modificationsNew
        self.moves = moves
        self.rootDeleted = rootDeleted
        self.cleared = cleared
    }

    /// Nothing changed: no position and neither flag.
    public var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && modificationsNew.isEmpty
            && moves.isEmpty && !rootDeleted && !cleared
    }

    public var description: String {
        var parts: [String] = []
        if !deletions.isEmpty { parts.append("deletions: \(deletions)") }
        if !insertions.isEmpty { parts.append("insertions: \(insertions)") }
        if !modifications.isEmpty { parts.append("modifications: \(modifications)") }
        if !modificationsNew.isEmpty { parts.append("modificationsNew: \(modificationsNew)") }
        if !moves.isEmpty { parts.append("moves: \(moves)") }
        if rootDeleted { parts.append("rootDeleted") }
        if cleared { parts.append("cleared") }
        return "IndexChangeSet(" + parts.joined(separator: ", ") + ")"
    }
}

/// Builds an `IndexChangeSet` one operation at a time, and composes the
/// change sets of successive versions.
///
/// While building, `modifications` and `columns` hold positions in the
/// collection as it is now (after the operations so far); `finalize()`
/// turns them into old and new positions.  A list's operations come in as
/// `insert`, `erase`, `modify`, `move`, `swap` and `clear`, each at the
/// positions the collection had when it was made; `merge` appends the
/// change set of the next version (computed with its own builder or by
/// `calculate`), so a notifier that skipped versions reports one change
/// set: an element inserted then erased is not reported, moves chain,
/// positions shift.
public struct ChangeBuilder: Equatable, Sendable, CustomStringConvertible {
    /// Positions, in the collection before the first change, removed.
    public var deletions = IndexRangeSet()
    /// Positions, in the collection now, added.
    public var insertions = IndexRangeSet()
    /// Positions, in the collection now, changed (inserted ones included
    /// until `finalize`).
    public var modifications = IndexRangeSet()
    /// Moves from a position before the first change to one now.
    public var moves: [IndexMove] = []
    /// Per column (property key), the positions now whose column changed.
    public var columns: [UInt32: IndexRangeSet] = [:]
    public var rootDeleted = false
    public var cleared = false

    /// An empty builder.
    public init() {}

    /// A builder holding the given changes; each move's `from` is added to
    /// the deletions and its `to` to the insertions.
    public init(deletions: IndexRangeSet = IndexRangeSet(), insertions: IndexRangeSet = IndexRangeSet(),
                modifications: IndexRangeSet = IndexRangeSet(), moves: [IndexMove] = [],
                rootDeleted: Bool = false, cleared: Bool = false) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
        self.moves = moves
        self.rootDeleted = rootDeleted
        self.cleared = cleared
        for move in moves {
            self.deletions.add(move.from)
            self.insertions.add(move.to)
        }
    }

    /// Nothing recorded: no position and neither flag.
    public var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && moves.isEmpty
            && !rootDeleted && !cleared
    }

    public var description: String {
        "ChangeBuilder(deletions: \(deletions), insertions: \(insertions), modifications: \(modifications), "
            + "moves: \(moves)\(rootDeleted ? ", rootDeleted" : "")\(cleared ? ", cleared" : ""))"
    }

    /// Applies `body` to the modifications and to each column's positions.
    @inline(__always)
    private mutating func forEachModificationSet(_ body: (inout IndexRangeSet) -> Void) {
        body(&modifications)
        if columns.isEmpty { return }
        for key in Array(columns.keys) { body(&columns[key]!) }
    }

    // MARK: Operations, in the positions of the collection as it is

    /// `count` elements inserted at `index`.
    public mutating func insert(at index: Int, count: Int = 1) {
        guard count > 0 else { return }
        forEachModificationSet { $0.shiftForInsert(at: index, count: count) }
        insertions.insert(at: index, count: count)
        for i in moves.indices where moves[i].to >= index { moves[i].to += count }
        cleared = false
    }

    /// The element at `index` changed; `column`, the property key of the
    /// column written, if known.
    public mutating func modify(at index: Int, column: UInt32? = nil) {
        modifications.add(index)
        if let column { columns[column, default: IndexRangeSet()].add(index) }
    }

    /// The element at `index` removed.
    public mutating func erase(at index: Int) {
        forEachModificationSet { $0.erase(at: index) }
        // An element inserted by this change set just goes; any other is
        // a deletion at its position before the first change.
        if let unshifted = insertions.eraseOrUnshift(index) { deletions.addShifted(unshifted) }
        var i = 0
        while i < moves.count {
            if moves[i].to == index {
                moves.remove(at: i)
                continue
            }
            if moves[i].to > index { moves[i].to -= 1 }
            i += 1
        }
    }

    /// Every element removed; `oldSize` is the collection's size just
    /// before the clear.
    public mutating func clear(oldSize: Int) {
        // The size before the first change: the clear deletes all of it.
        let originalSize = oldSize + deletions.count - insertions.count
        modifications.removeAll()
        insertions.removeAll()
        moves.removeAll()
        columns.removeAll()
        deletions = IndexRangeSet(count: originalSize)
        cleared = true
    }

    /// The object owning the collection deleted: every element the
    /// collection had before the first change is deleted, and nothing else
    /// is reported.  `originalSize` is that size (the notifier's).
    public mutating func deleteRoot(originalSize: Int) {
        self = ChangeBuilder(deletions: IndexRangeSet(count: originalSize), rootDeleted: true)
    }

    /// The element at `from` moved to `to` (its position after the move).
    public mutating func move(from: Int, to: Int) {
        guard from != to else { return }
        var chained = false
        for i in moves.indices {
            if moves[i].to == from {
                // A -> B then B -> C is A -> C.
                moves[i].to = to
                chained = true
                insertions.erase(at: from)
                insertions.insert(at: to)
                continue
            }
            // Elements the moved one passes over shift by one.
            if moves[i].to >= to && moves[i].to < from {
                moves[i].to += 1
            } else if moves[i].to <= to && moves[i].to > from {
                moves[i].to -= 1
            }
        }
        if !chained {
            let unshifted = insertions.eraseOrUnshift(from)
            insertions.insert(at: to)
            // An element inserted by this change set moving is still just
            // an insertion.
            if let unshifted {
                let original = deletions.addShifted(unshifted)
                moves.append(IndexMove(from: original, to: to))
            }
        }
        forEachModificationSet { positions in
            let wasModified = positions.contains(from)
            positions.erase(at: from)
            if wasModified {
                positions.insert(at: to)
            } else {
                positions.shiftForInsert(at: to)
            }
        }
    }

    /// The elements at `first` and `second` exchanged, as two moves.
    public mutating func swap(_ first: Int, _ second: Int) {
        guard first != second else { return }
        let low = min(first, second), high = max(first, second)
        move(from: low, to: high)
        if low + 1 != high { move(from: high - 1, to: low) }
    }

    /// Drops the moves that leave their element where it was (a move and
    /// its reverse, or moves that others' insertions and deletions
    /// cancel), with their deletion and insertion.
    public mutating func cleanUpStaleMoves() {
        var i = 0
        while i < moves.count {
            let move = moves[i]
            if move.from - deletions.count(below: move.from) == move.to - insertions.count(below: move.to) {
                deletions.remove(move.from)
                insertions.remove(move.to)
                moves.remove(at: i)
                continue
            }
            i += 1
        }
    }

    // MARK: Composing versions

    /// Appends `next`, the changes of the following version: this builder
    /// then holds the changes from its first version to `next`'s last.
    public mutating func merge(_ next: ChangeBuilder) {
        if next.isEmpty { return }
        if isEmpty {
            self = next
            return
        }
        var next = next
        // The modification sets of both sides, paired: the modifications,
        // then each column either side has.
        var columnKeys = Set(columns.keys)
        columnKeys.formUnion(next.columns.keys)
        let columnOrder = Array(columnKeys)
        func forEachPair(_ body: (inout IndexRangeSet, inout IndexRangeSet) -> Void) {
            body(&modifications, &next.modifications)
            for key in columnOrder {
                var mine = columns[key] ?? IndexRangeSet(), theirs = next.columns[key] ?? IndexRangeSet()
                body(&mine, &theirs)
                columns[key] = mine
                next.columns[key] = theirs
            }
        }

        // Earlier moves: chained with a later move of the same element,
        // dropped if the element is deleted, else their destination shifted.
        if !next.moves.isEmpty || !next.deletions.isEmpty || !next.insertions.isEmpty {
            var kept: [IndexMove] = []
            kept.reserveCapacity(moves.count)
            for var move in moves {
                if let later = next.moves.firstIndex(where: { $0.from == move.to }) {
                    let chainedTo = next.moves[later].to
                    forEachPair { mine, theirs in
                        if mine.contains(move.to) { theirs.add(chainedTo) }
                    }
                    move.to = chainedTo
                    next.moves[later] = next.moves[next.moves.count - 1]
                    next.moves.removeLast()
                    kept.append(move)
                    continue
                }
                if next.deletions.contains(move.to) { continue }
                move.to = next.insertions.shift(next.deletions.unshift(move.to))
                kept.append(move)
            }
            moves = kept
        }
        // A later move of an element this change set inserted stays an
        // insertion (the move's deletion removes the insertion below).
        if !insertions.isEmpty && !next.moves.isEmpty {
            next.moves.removeAll { insertions.contains($0.from) }
        }
        // An element modified here and moved later is modified where it went.
        if !modifications.isEmpty && !next.moves.isEmpty {
            for move in next.moves {
                forEachPair { mine, theirs in
                    if mine.contains(move.from) { theirs.add(move.to) }
                }
            }
        }
        // Later moves start from positions before this change set.
        if !deletions.isEmpty || !insertions.isEmpty {
            for i in next.moves.indices {
                next.moves[i].from = deletions.shift(insertions.unshift(next.moves[i].from))
            }
        }
        moves.append(contentsOf: next.moves)

        // Later deletions of elements this change set inserted cancel out;
        // the others are deletions of positions before this change set.
        deletions.addShifted(by: insertions, next.deletions)
        insertions.erase(at: next.deletions)
        insertions.insert(at: next.insertions)

        cleanUpStaleMoves()

        let laterDeletions = next.deletions, laterInsertions = next.insertions
        forEachPair { mine, theirs in
            mine.erase(at: laterDeletions)
            mine.shiftForInsert(at: laterInsertions)
            mine.add(theirs)
        }
        if next.rootDeleted { rootDeleted = true }
        cleared = next.cleared
        assert(movesAreConsistent, "merge left a move without its deletion or insertion: \(self)")
    }

    /// Every move's ends are a deletion and an insertion (checked in debug
    /// builds, as the tests run).
    var movesAreConsistent: Bool {
        moves.allSatisfy { deletions.contains($0.from) && insertions.contains($0.to) }
    }

    /// The change set: modifications in old and in new positions, inserted
    /// elements not counted as modified.
    public func finalize() -> IndexChangeSet {
        var builder = self
        builder.cleanUpStaleMoves()
        assert(builder.movesAreConsistent, "a move without its deletion or insertion: \(builder)")
        var modificationsOld = builder.modifications
        modificationsOld.erase(at: builder.insertions)
        modificationsOld.shiftForInsert(at: builder.deletions)
        var modificationsNew = builder.modifications
        modificationsNew.remove(builder.insertions)
        return IndexChangeSet(deletions: builder.deletions, insertions: builder.insertions,
                              modifications: modificationsOld, modificationsNew: modificationsNew,
                              moves: builder.moves, rootDeleted: builder.rootDeleted, cleared: builder.cleared)
    }
}
