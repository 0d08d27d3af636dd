import XCTest
@testable import FiefEngine

// The change-set algebra (docs/design.md, "Change sets") as tables: the
// operations, then the change set expected.  The cases are realm-core's
// (test/object-store/collection_change_indices.cpp), restated as our own
// tables; the random tests check every change set against an oracle that
// applies it to the old collection.

/// A builder as realm-core's tests write one: deletions, insertions,
/// modifications and moves, each move's ends added to the deletions and
/// insertions.
func changeBuilder(_ deletions: [Int] = [], _ insertions: [Int] = [], _ modifications: [Int] = [],
             _ moves: [(Int, Int)] = [], rootDeleted: Bool = false, cleared: Bool = false) -> ChangeBuilder {
    ChangeBuilder(deletions: IndexRangeSet(deletions), insertions: IndexRangeSet(insertions),
                  modifications: IndexRangeSet(modifications), moves: moves.map { IndexMove(from: $0.0, to: $0.1) },
                  rootDeleted: rootDeleted, cleared: cleared)
}

/// A builder whose moves are set alone (their ends not added).
func rawBuilder(moves: [(Int, Int)] = [], deletions: [Int] = [], insertions: [Int] = [],
             modifications: [Int] = []) -> ChangeBuilder {
    var b = ChangeBuilder()
    b.moves = moves.map { IndexMove(from: $0.0, to: $0.1) }
    b.deletions = IndexRangeSet(deletions)
    b.insertions = IndexRangeSet(insertions)
    b.modifications = IndexRangeSet(modifications)
    return b
}

/// One operation on a builder.
enum BuilderOp {
    case insert(Int)
    case erase(Int)
    case modify(Int)
    case modifyColumn(Int, UInt32)
    case move(Int, Int)
    case swap(Int, Int)
    case clear(Int)
    case cleanUp
    case merge(ChangeBuilder)

    func apply(to b: inout ChangeBuilder) {
        switch self {
        case .insert(let i): b.insert(at: i)
        case .erase(let i): b.erase(at: i)
        case .modify(let i): b.modify(at: i)
        case .modifyColumn(let i, let column): b.modify(at: i, column: column)
        case .move(let from, let to): b.move(from: from, to: to)
        case .swap(let a, let c): b.swap(a, c)
        case .clear(let size): b.clear(oldSize: size)
        case .cleanUp: b.cleanUpStaleMoves()
        case .merge(let next): b.merge(next)
        }
    }
}

/// What a table row expects of the builder (nil: not checked).
struct ExpectedChanges {
    var deletions: [Int]? = nil
    var insertions: [Int]? = nil
    var modifications: [Int]? = nil
    var moves: [(Int, Int)]? = nil
    var columns: [UInt32: [Int]]? = nil
    var isEmpty: Bool? = nil
    var cleared: Bool? = nil
}

func checkBuilder(_ b: ChangeBuilder, _ e: ExpectedChanges, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
    if let d = e.deletions { XCTAssertEqual(b.deletions.indices, d, "\(name): deletions", file: file, line: line) }
    if let i = e.insertions { XCTAssertEqual(b.insertions.indices, i, "\(name): insertions", file: file, line: line) }
    if let m = e.modifications {
        XCTAssertEqual(b.modifications.indices, m, "\(name): modifications", file: file, line: line)
    }
    if let moves = e.moves {
        XCTAssertEqual(b.moves, moves.map { IndexMove(from: $0.0, to: $0.1) }, "\(name): moves", file: file, line: line)
    }
    if let columns = e.columns {
        for (column, positions) in columns {
            XCTAssertEqual(b.columns[column]?.indices ?? [], positions, "\(name): column \(column)", file: file, line: line)
        }
    }
    if let empty = e.isEmpty { XCTAssertEqual(b.isEmpty, empty, "\(name): isEmpty (\(b))", file: file, line: line) }
    if let cleared = e.cleared { XCTAssertEqual(b.cleared, cleared, "\(name): cleared", file: file, line: line) }
}

final class ChangeSetTests: XCTestCase {
    // MARK: Builder operations

    /// (name, start, operations, expected).
    let operationTable: [(String, ChangeBuilder, [BuilderOp], ExpectedChanges)] = [
        // insert
        ("insert adds the insertions", ChangeBuilder(), [.insert(5), .insert(8)], ExpectedChanges(insertions: [5, 8])),
        ("insert shifts earlier insertions and modifications", ChangeBuilder(),
         [.insert(5), .modifyColumn(8, 1), .insert(1)],
         ExpectedChanges(insertions: [1, 6], modifications: [9], columns: [1: [9]])),
        ("insert leaves deletions", ChangeBuilder(), [.erase(8), .erase(3), .insert(5)],
         ExpectedChanges(deletions: [3, 8], insertions: [5])),
        ("insert shifts move destinations at or after it", rawBuilder(moves: [(10, 5), (10, 2), (3, 10)]),
         [.insert(4)], ExpectedChanges(moves: [(10, 6), (10, 2), (3, 11)])),
        // modify
        ("modify marks the row", ChangeBuilder(), [.modify(5)], ExpectedChanges(modifications: [5], columns: [:])),
        ("modify marks inserted rows too", ChangeBuilder(), [.insert(5), .modify(5)], ExpectedChanges(modifications: [5])),
        ("modify is idempotent", ChangeBuilder(), [.modify(5), .modify(5), .modify(5), .modify(5)],
         ExpectedChanges(modifications: [5])),
        ("modify marks the column", ChangeBuilder(), [.modifyColumn(5, 2), .modifyColumn(4, 2), .modifyColumn(3, 1)],
         ExpectedChanges(modifications: [3, 4, 5], columns: [1: [3], 2: [4, 5]])),
        // erase
        ("erase adds the deletion", ChangeBuilder(), [.erase(5)], ExpectedChanges(deletions: [5])),
        ("erase is shifted by earlier deletions", ChangeBuilder(), [.erase(5), .erase(6)], ExpectedChanges(deletions: [5, 7])),
        ("erase is shifted by earlier insertions", ChangeBuilder(), [.insert(5), .erase(6)], ExpectedChanges(deletions: [5])),
        ("erase of an inserted row cancels it", ChangeBuilder(), [.insert(5), .erase(5)],
         ExpectedChanges(deletions: [], insertions: [])),
        ("erase drops the modification", ChangeBuilder(), [.modifyColumn(5, 0), .erase(5)],
         ExpectedChanges(deletions: [5], modifications: [], columns: [0: []])),
        ("erase shifts later modifications", ChangeBuilder(), [.modifyColumn(5, 0), .erase(4)],
         ExpectedChanges(deletions: [4], modifications: [4], columns: [0: [4]])),
        ("erase drops the moves to it", rawBuilder(moves: [(10, 5)]), [.erase(5)], ExpectedChanges(moves: [])),
        ("erase shifts move destinations after it", rawBuilder(moves: [(10, 5), (10, 2), (3, 10)]), [.erase(4)],
         ExpectedChanges(moves: [(10, 4), (10, 2), (3, 9)])),
        // clear
        ("clear drops insertions", rawBuilder(insertions: [1, 2, 3]), [.clear(0)], ExpectedChanges(insertions: [])),
        ("clear drops modifications", rawBuilder(modifications: [1, 2, 3]), [.clear(0)], ExpectedChanges(modifications: [])),
        ("clear drops moves", rawBuilder(moves: [(1, 3)]), [.clear(0)], ExpectedChanges(moves: [])),
        ("clear deletes the rows there were before any change", rawBuilder(insertions: [1, 2, 3]), [.clear(5)],
         ExpectedChanges(deletions: [0, 1], cleared: true)),
        ("clear counts earlier deletions", rawBuilder(deletions: [1, 2, 3]), [.clear(5)],
         ExpectedChanges(deletions: [0, 1, 2, 3, 4, 5, 6, 7])),
        ("insert after clear is not cleared", ChangeBuilder(), [.clear(3), .insert(0)],
         ExpectedChanges(deletions: [0, 1, 2], insertions: [0], cleared: false)),
        // move
        ("move adds the move", ChangeBuilder(), [.move(5, 6)], ExpectedChanges(moves: [(5, 6)])),
        ("move chains with the move to its source", ChangeBuilder(), [.move(5, 6), .move(6, 7)],
         ExpectedChanges(moves: [(5, 7)])),
        ("moves shift each other", ChangeBuilder(), [.move(5, 10), .move(6, 12)], ExpectedChanges(moves: [(5, 9), (7, 12)])),
        ("moves shift each other, then one back", ChangeBuilder(), [.move(5, 10), .move(6, 12), .move(10, 0)],
         ExpectedChanges(moves: [(5, 10), (7, 12), (11, 0)])),
        ("move of an inserted row is an insertion", ChangeBuilder(), [.insert(5), .move(5, 10)],
         ExpectedChanges(insertions: [10], moves: [])),
        ("move shifts insertions and modifications", ChangeBuilder(), [.insert(5), .modifyColumn(6, 0), .move(10, 0)],
         ExpectedChanges(insertions: [0, 6], modifications: [7], moves: [(9, 0)], columns: [0: [7]])),
        ("move carries the modification", ChangeBuilder(), [.modifyColumn(5, 0), .move(5, 10)],
         ExpectedChanges(modifications: [10], columns: [0: [10]])),
        ("move carries the modification, then shifts it", ChangeBuilder(),
         [.modifyColumn(5, 0), .move(5, 10), .move(6, 12)], ExpectedChanges(modifications: [9], columns: [0: [9]])),
        ("move bumps a move to the same place", ChangeBuilder(), [.move(5, 10), .move(7, 10)],
         ExpectedChanges(moves: [(5, 9), (8, 10)])),
        ("move bumps a move to the same place, from above", ChangeBuilder(), [.move(5, 10), .move(15, 10)],
         ExpectedChanges(moves: [(5, 11), (15, 10)])),
        ("a swap of neighbours done twice is nothing", ChangeBuilder(), [.move(7, 8), .move(7, 8), .cleanUp],
         ExpectedChanges(isEmpty: true)),
        ("move to itself is nothing", ChangeBuilder(), [.move(3, 3)], ExpectedChanges(isEmpty: true)),
        // swap (realm-core's log handler: two moves)
        ("swap of neighbours is one move", ChangeBuilder(), [.swap(3, 4)], ExpectedChanges(moves: [(3, 4)])),
        ("swap of distant rows is two moves", ChangeBuilder(), [.swap(6, 2)],
         ExpectedChanges(deletions: [2, 6], insertions: [2, 6], moves: [(2, 6), (6, 2)])),
        ("swap done twice is nothing", ChangeBuilder(), [.swap(2, 6), .swap(2, 6), .cleanUp], ExpectedChanges(isEmpty: true)),
    ]

    func testOperations() {
        for (name, start, ops, expected) in operationTable {
            var b = start
            for op in ops { op.apply(to: &b) }
            checkBuilder(b, expected, name)
        }
    }

    // MARK: Merge

    /// (name, start, operations (merges), expected).
    let mergeTable: [(String, ChangeBuilder, [BuilderOp], ExpectedChanges)] = [
        ("merging nothing keeps everything", changeBuilder([1, 2, 3], [4, 5], [6, 7], [(8, 9)]), [.merge(ChangeBuilder())],
         ExpectedChanges(deletions: [1, 2, 3, 8], insertions: [4, 5, 9], modifications: [6, 7], moves: [(8, 9)])),
        ("merging into nothing takes the set", ChangeBuilder(), [.merge(changeBuilder([1, 2, 3], [4, 5], [6, 7], [(8, 9)]))],
         ExpectedChanges(deletions: [1, 2, 3, 8], insertions: [4, 5, 9], modifications: [6, 7], moves: [(8, 9)])),
        ("cleared kept by an empty merge", changeBuilder([1, 2, 3], cleared: true), [.merge(ChangeBuilder())],
         ExpectedChanges(cleared: true)),
        ("not cleared kept by an empty merge", changeBuilder([1, 2, 3], [4, 5], [6, 7], [(8, 9)]), [.merge(ChangeBuilder())],
         ExpectedChanges(cleared: false)),
        ("cleared taken into nothing", ChangeBuilder(), [.merge(changeBuilder([1, 2, 3], cleared: true))],
         ExpectedChanges(cleared: true)),
        ("not cleared taken into nothing", ChangeBuilder(), [.merge(changeBuilder([1, 2, 3], [4, 5], [6, 7], [(8, 9)]))],
         ExpectedChanges(cleared: false)),
        ("cleared by the later set", changeBuilder([1, 2, 3], [4, 5], [6, 7], [(8, 9)]),
         [.merge(changeBuilder([1, 2, 3], cleared: true))], ExpectedChanges(cleared: true)),
        ("cleared undone by later insertions", changeBuilder([1, 2, 3], cleared: true), [.merge(changeBuilder([], [1, 2, 3]))],
         ExpectedChanges(cleared: false)),
        ("cleared again", changeBuilder([1, 2, 3], cleared: true), [.merge(changeBuilder([1, 2, 3], [1, 2, 3], cleared: true))],
         ExpectedChanges(cleared: true)),
        ("never cleared", changeBuilder([1, 2, 3], [4, 5]), [.merge(changeBuilder([], [1, 2, 3]))], ExpectedChanges(cleared: false)),
        ("deletions shifted by earlier deletions (below)", changeBuilder([5]), [.merge(changeBuilder([3]))],
         ExpectedChanges(deletions: [3, 5])),
        ("deletions shifted by earlier deletions (just below)", changeBuilder([5]), [.merge(changeBuilder([4]))],
         ExpectedChanges(deletions: [4, 5])),
        ("deletions shifted by earlier deletions (same)", changeBuilder([5]), [.merge(changeBuilder([5]))],
         ExpectedChanges(deletions: [5, 6])),
        ("deletions shifted by earlier deletions (above)", changeBuilder([5]), [.merge(changeBuilder([6]))],
         ExpectedChanges(deletions: [5, 7])),
        ("deletions shifted by earlier insertions (below)", changeBuilder([], [5]), [.merge(changeBuilder([4]))],
         ExpectedChanges(deletions: [4])),
        ("deletions shifted by earlier insertions (above)", changeBuilder([], [5]), [.merge(changeBuilder([6]))],
         ExpectedChanges(deletions: [5])),
        ("insertions shifted by later deletions", changeBuilder([], [2, 3]), [.merge(changeBuilder([1]))],
         ExpectedChanges(insertions: [1, 2])),
        ("insertions deleted later vanish", changeBuilder([], [1, 2]), [.merge(changeBuilder([2]))], ExpectedChanges(insertions: [1])),
        ("modifications deleted later vanish", changeBuilder([], [], [2, 3]), [.merge(changeBuilder([2]))],
         ExpectedChanges(modifications: [2])),
        ("modifications shifted by later deletions", changeBuilder([], [], [2, 3]), [.merge(changeBuilder([1]))],
         ExpectedChanges(modifications: [1, 2])),
        ("moves to rows deleted later vanish", changeBuilder([], [], [], [(2, 3)]), [.merge(changeBuilder([3]))],
         ExpectedChanges(moves: [])),
        ("move destinations shifted by later deletions", changeBuilder([], [], [], [(2, 5)]), [.merge(changeBuilder([3]))],
         ExpectedChanges(moves: [(2, 4)])),
        ("later insertions leave earlier deletions", changeBuilder([1, 3]), [.merge(changeBuilder([], [1, 2, 3]))],
         ExpectedChanges(deletions: [1, 3], insertions: [1, 2, 3])),
        ("insertions shifted by later insertions", changeBuilder([], [1, 5]), [.merge(changeBuilder([], [1, 4]))],
         ExpectedChanges(insertions: [1, 2, 4, 7])),
        ("modifications shifted by later insertions", changeBuilder([], [], [1, 5]), [.merge(changeBuilder([], [1, 4]))],
         ExpectedChanges(insertions: [1, 4], modifications: [2, 7])),
        ("move destinations shifted by later insertions", changeBuilder([], [], [], [(2, 5)]), [.merge(changeBuilder([], [3]))],
         ExpectedChanges(moves: [(2, 6)])),
        ("later modifications leave earlier deletions", changeBuilder([1, 2, 3]), [.merge(changeBuilder([], [], [2]))],
         ExpectedChanges(deletions: [1, 2, 3], modifications: [2])),
        ("modifications of inserted rows kept", changeBuilder([], [2]), [.merge(changeBuilder([], [], [1, 2, 3]))],
         ExpectedChanges(insertions: [2], modifications: [1, 2, 3])),
        ("modifications unioned", changeBuilder([], [], [2]), [.merge(changeBuilder([], [], [1, 2, 3]))],
         ExpectedChanges(modifications: [1, 2, 3])),
        ("modifications of moved rows", changeBuilder([], [], [], [(1, 2)]), [.merge(changeBuilder([], [], [2, 3]))],
         ExpectedChanges(modifications: [2, 3])),
        ("later move sources shifted by an earlier deletion", changeBuilder([1]), [.merge(changeBuilder([], [], [], [(2, 3)]))],
         ExpectedChanges(moves: [(3, 3)])),
        ("later move sources shifted by an earlier insertion", changeBuilder([], [1]),
         [.merge(changeBuilder([], [], [], [(2, 3)]))], ExpectedChanges(moves: [(1, 3)])),
        ("later move sources shifted by both", changeBuilder([2], [4]), [.merge(changeBuilder([], [], [], [(5, 10)]))],
         ExpectedChanges(moves: [(5, 10)])),
        ("a modified row moved later is modified where it went", changeBuilder([], [], [1]),
         [.merge(changeBuilder([], [], [], [(1, 3)]))], ExpectedChanges(modifications: [3], moves: [(1, 3)])),
        ("a modified row moved twice", changeBuilder([], [], [1]),
         [.merge(changeBuilder([], [], [], [(1, 3)])), .merge(changeBuilder([], [], [], [(3, 5)]))],
         ExpectedChanges(modifications: [5], moves: [(1, 5)])),
        ("an inserted row moved later stays an insertion", changeBuilder([], [1]),
         [.merge(changeBuilder([], [], [], [(1, 3)]))], ExpectedChanges(insertions: [3], moves: [])),
        ("a moved row moved again", changeBuilder([], [], [], [(1, 3)]), [.merge(changeBuilder([], [], [], [(3, 5)]))],
         ExpectedChanges(moves: [(1, 5)])),
        ("later moves shift earlier destinations (below)", changeBuilder([], [], [], [(1, 3)]),
         [.merge(changeBuilder([], [], [], [(2, 5)]))], ExpectedChanges(moves: [(1, 2), (3, 5)])),
        ("later moves shift earlier destinations (above)", changeBuilder([], [], [], [(1, 10)]),
         [.merge(changeBuilder([], [], [], [(2, 5)]))], ExpectedChanges(moves: [(1, 10), (3, 5)])),
        ("later moves shift earlier destinations (backwards)", changeBuilder([], [], [], [(5, 10)]),
         [.merge(changeBuilder([], [], [], [(12, 2)]))], ExpectedChanges(moves: [(5, 11), (12, 2)])),
        ("later moves shift earlier insertions", changeBuilder([], [5]), [.merge(changeBuilder([], [], [], [(2, 6)]))],
         ExpectedChanges(insertions: [4, 6])),
        ("later moves shift earlier modifications", changeBuilder([], [], [5]), [.merge(changeBuilder([], [], [], [(2, 6)]))],
         ExpectedChanges(modifications: [4])),
        ("later moves shifted by earlier deletions (forward)", changeBuilder([5]), [.merge(changeBuilder([], [], [], [(2, 6)]))],
         ExpectedChanges(moves: [(2, 6)])),
        ("later moves shifted by earlier deletions (backward)", changeBuilder([5]), [.merge(changeBuilder([], [], [], [(6, 2)]))],
         ExpectedChanges(moves: [(7, 2)])),
        ("leapfrogging rows come back to nothing", changeBuilder([1], [0], [], [(1, 0)]),
         [.merge(changeBuilder([1], [0], [], [(1, 0)]))], ExpectedChanges(isEmpty: true)),
        ("modify, move, move back: modified", changeBuilder([], [], [1]),
         [.merge(changeBuilder([1], [2], [], [(1, 2)])), .merge(changeBuilder([1]))],
         ExpectedChanges(deletions: [2], insertions: [], modifications: [1], moves: [])),
        ("a moved row modified as it stops being a move", changeBuilder([1, 2], [0, 1], [], [(1, 0), (2, 1)]),
         [.merge(changeBuilder([0, 2], [1], [0]))],
         ExpectedChanges(deletions: [0, 1], insertions: [1], modifications: [0], moves: [])),
        ("a moved row modified before it stops being a move", changeBuilder([1, 2], [0, 1], [], [(1, 0), (2, 1)]),
         [.merge(changeBuilder([], [], [1])), .merge(changeBuilder([0, 2], [0], [], [(2, 0)])), .merge(changeBuilder([0], [1]))],
         ExpectedChanges(deletions: [0, 1], insertions: [1], modifications: [0], moves: [])),
    ]

    func testMerge() {
        for (name, start, ops, expected) in mergeTable {
            var b = start
            for op in ops { op.apply(to: &b) }
            checkBuilder(b, expected, name)
        }
    }

    func testMergeColumns() {
        var start = changeBuilder([], [], [1, 2, 3])
        start.columns = [0: IndexRangeSet([1]), 1: IndexRangeSet([2, 3])]

        // Kept by merging nothing, and when merged into nothing.
        var b = start
        b.merge(ChangeBuilder())
        checkBuilder(b, ExpectedChanges(columns: [0: [1], 1: [2, 3]]), "columns kept by an empty merge")
        var empty = ChangeBuilder()
        empty.merge(b)
        checkBuilder(empty, ExpectedChanges(columns: [0: [1], 1: [2, 3]]), "columns taken into nothing")

        // Unioned with the later columns.
        var later = changeBuilder([], [], [0, 4])
        later.columns = [0: IndexRangeSet([1, 2]), 2: IndexRangeSet([4])]
        b = start
        b.merge(later)
        checkBuilder(b, ExpectedChanges(columns: [0: [1, 2], 1: [2, 3], 2: [4]]), "columns unioned")

        // Dropped by later deletions, shifted by later insertions.
        b = start
        b.merge(changeBuilder([2]))
        checkBuilder(b, ExpectedChanges(columns: [0: [1], 1: [2]]), "columns dropped by deletions")
        b = start
        b.merge(changeBuilder([], [3]))
        checkBuilder(b, ExpectedChanges(columns: [0: [1], 1: [2, 4]]), "columns shifted by insertions")
    }

    func testFinalize() {
        // Modifications in old and new positions; inserted rows not modified.
        var b = ChangeBuilder()
        b.modify(at: 4)        // old 4
        b.insert(at: 0)        // old 4 now at 5
        b.modify(at: 0)        // the inserted row
        b.erase(at: 2)         // old 1; old 4 now at 4
        let set = b.finalize()
        XCTAssertEqual(set.deletions.indices, [1])
        XCTAssertEqual(set.insertions.indices, [0])
        XCTAssertEqual(set.modifications.indices, [4])
        XCTAssertEqual(set.modificationsNew.indices, [4])
        XCTAssertFalse(set.isEmpty)
        XCTAssertTrue(ChangeBuilder().finalize().isEmpty)

        // Flags alone make a change set non-empty.
        XCTAssertFalse(IndexChangeSet(rootDeleted: true).isEmpty)
        XCTAssertFalse(IndexChangeSet(cleared: true).isEmpty)

        // A moved, modified row is a move, not a modification.
        b = ChangeBuilder()
        b.modify(at: 1)
        b.move(from: 1, to: 3)
        let moved = b.finalize()
        XCTAssertEqual(moved.moves, [IndexMove(from: 1, to: 3)])
        XCTAssertEqual(moved.deletions.indices, [1])
        XCTAssertEqual(moved.insertions.indices, [3])
        XCTAssertTrue(moved.modifications.isEmpty)
        XCTAssertTrue(moved.modificationsNew.isEmpty)
    }

    // MARK: List notifications (realm-core's list.cpp, builder level)

    /// A list of ten rows: operations per transaction (each merged into
    /// the notifier's builder), then the finalized change set.
    func testListNotifications() {
        // (name, transactions, deletions, insertions, modifications (old), moves, cleared)
        let table: [(String, [[BuilderOp]], [Int], [Int], [Int], [(Int, Int)], Bool)] = [
            ("remove one", [[.erase(5)]], [5], [], [], [], false),
            ("remove all", [[.clear(10)]], Array(0..<10), [], [], [], true),
            ("remove all, then add", [[.clear(10), .insert(0)]], Array(0..<10), [0], [], [], false),
            ("remove each", [Array(repeating: BuilderOp.erase(0), count: 10)], Array(0..<10), [], [], [], false),
            // The added row's target is modified: it shows at 5 and at 10.
            ("add, then modify its target", [[.insert(10), .modify(5), .modify(10)]], [], [10], [5], [], false),
            ("modify, then move", [[.modify(5), .move(5, 8)]], [5], [8], [], [(5, 8)], false),
            ("moved, then moved back next time", [[.modify(5), .modify(1), .move(5, 8), .move(1, 2)], [.move(8, 5)]],
             [1], [2], [5], [(1, 2)], false),
            ("cleared, then cleared again next time", [[.clear(10)], [.insert(0)], [.clear(1)]],
             Array(0..<10), [], [], [], true),
        ]
        for (name, transactions, deletions, insertions, modifications, moves, cleared) in table {
            var notifier = ChangeBuilder()
            for ops in transactions {
                var transaction = ChangeBuilder()
                for op in ops { op.apply(to: &transaction) }
                transaction.cleanUpStaleMoves()
                notifier.merge(transaction)
            }
            let changes = notifier.finalize()
            XCTAssertEqual(changes.deletions.indices, deletions, name)
            XCTAssertEqual(changes.insertions.indices, insertions, name)
            XCTAssertEqual(changes.modifications.indices, modifications, name)
            XCTAssertEqual(changes.moves, moves.map { IndexMove(from: $0.0, to: $0.1) }, name)
            XCTAssertEqual(changes.cleared, cleared, name)
        }
    }

    /// Results over a list (realm-core's list.cpp, sorted and filtered):
    /// the rows' keys diffed.
    func testResultsOfAList() {
        func calc(_ old: [Int64], _ new: [Int64]) -> IndexChangeSet {
            ChangeBuilder.calculate(old: old, new: new, inKeyOrder: false, modified: { _ in false }).finalize()
        }
        let filtered: [Int64] = [0, 1, 2, 3, 4, 5, 6, 7, 8]
        var c = calc(filtered, filtered + [5, 5, 5])
        XCTAssertEqual(c.insertions.indices, [9, 10, 11], "filtered: duplicates added")
        c = calc(filtered, [0, 2, 1, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(c.deletions.indices, [2], "filtered: swap")
        XCTAssertEqual(c.insertions.indices, [1], "filtered: swap")
        c = calc([0, 2, 1, 3, 4, 5, 6, 7, 8], [0, 2, 1, 3, 4, 8, 6, 7, 5])
        XCTAssertEqual(c.deletions.indices, [5, 8], "filtered: distant swap")
        XCTAssertEqual(c.insertions.indices, [5, 8], "filtered: distant swap")
        c = calc(filtered, [0, 1, 2, 5, 3, 4, 6, 7, 8])
        XCTAssertEqual(c.deletions.indices, [5], "filtered: move")
        XCTAssertEqual(c.insertions.indices, [3], "filtered: move")
        // Sorted by value, descending.
        let sorted: [Int64] = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
        c = calc(sorted, [9, 8, 7, 6, 5, 5, 5, 5, 4, 3, 2, 1, 0])
        XCTAssertEqual(c.insertions.indices, [5, 6, 7], "sorted: duplicates added")
        c = calc(sorted, [5, 9, 8, 7, 6, 4, 3, 2, 1, 0])
        XCTAssertEqual(c.deletions.indices, [4], "sorted: a row's sort value changed")
        XCTAssertEqual(c.insertions.indices, [0], "sorted: a row's sort value changed")
    }

    /// The owner deleted: every original row deleted, nothing else; a
    /// later empty change keeps it, later changes of others cannot follow.
    func testRootDeleted() {
        var b = ChangeBuilder()
        b.insert(at: 2)
        b.modify(at: 0)
        b.move(from: 4, to: 1)
        b.deleteRoot(originalSize: 10)
        var changes = b.finalize()
        XCTAssertEqual(changes.deletions.indices, Array(0..<10))
        XCTAssertTrue(changes.insertions.isEmpty && changes.modifications.isEmpty && changes.moves.isEmpty)
        XCTAssertTrue(changes.rootDeleted)
        XCTAssertFalse(changes.cleared)

        // Merged after earlier versions' changes: still every original row.
        var earlier = changeBuilder([1], [3])
        var gone = ChangeBuilder()
        gone.deleteRoot(originalSize: 10)  // the size after `earlier`
        earlier.merge(gone)
        changes = earlier.finalize()
        XCTAssertEqual(changes.deletions.indices, Array(0..<10))
        XCTAssertTrue(changes.insertions.isEmpty)
        XCTAssertTrue(changes.rootDeleted)
    }

    // MARK: calculate

    let none: (Int64) -> Bool = { _ in false }
    let all: (Int64) -> Bool = { _ in true }

    /// Key order: realm-core's "table order" cases.
    func testCalculateInKeyOrder() {
        func calc(_ old: [Int64], _ new: [Int64], _ modified: (Int64) -> Bool) -> ChangeBuilder {
            ChangeBuilder.calculate(old: old, new: new, inKeyOrder: true, modified: modified)
        }
        XCTAssertTrue(calc([1, 2, 3], [1, 2, 3], none).isEmpty, "identical")
        checkBuilder(calc([], [1, 2, 3], all), ExpectedChanges(insertions: [0, 1, 2]), "all inserted")
        checkBuilder(calc([1, 2, 3], [], all), ExpectedChanges(deletions: [0, 1, 2]), "all deleted")
        checkBuilder(calc([-1, 1, 2, 3, -1], [1, 2, 3], all), ExpectedChanges(deletions: [0, 4]), "blanked rows deleted")
        checkBuilder(calc([1, 2, 3], [1, 2, 3], all), ExpectedChanges(modifications: [0, 1, 2]), "modified rows")
        checkBuilder(calc([1, 2, 3], [1, 2, 3], none), ExpectedChanges(modifications: []), "unmodified rows")
        checkBuilder(calc([2, 3], [1, 2, 3], all), ExpectedChanges(insertions: [0]), "inserted first")
        checkBuilder(calc([1, 3], [1, 2, 3], all), ExpectedChanges(insertions: [1]), "inserted middle")
        checkBuilder(calc([1, 2], [1, 2, 3], all), ExpectedChanges(insertions: [2]), "inserted last")
        checkBuilder(calc([1, 2, 3], [1, 2], all), ExpectedChanges(deletions: [2]), "deleted last")
        checkBuilder(calc([1, 2, 3], [1, 3], all), ExpectedChanges(deletions: [1]), "deleted middle")
        checkBuilder(calc([1, 2, 3], [2, 3], all), ExpectedChanges(deletions: [0]), "deleted first")
        checkBuilder(calc([1, 2, 3], [1, 3, 4], all), ExpectedChanges(deletions: [1], insertions: [2], moves: []),
              "deleted and inserted")
        checkBuilder(calc([3], [3, 5], all), ExpectedChanges(modifications: [0]), "new rows not modified")
    }

    /// Any order: realm-core's "sorted" cases.
    func testCalculateInAnyOrder() {
        func calc(_ old: [Int64], _ new: [Int64], _ modified: (Int64) -> Bool) -> ChangeBuilder {
            ChangeBuilder.calculate(old: old, new: new, inKeyOrder: false, modified: modified)
        }
        XCTAssertTrue(calc([1, 2, 3], [1, 2, 3], none).isEmpty, "identical")
        checkBuilder(calc([], [1, 2, 3], all), ExpectedChanges(insertions: [0, 1, 2]), "all inserted")
        checkBuilder(calc([1, 2, 3], [], all), ExpectedChanges(deletions: [0, 1, 2]), "all deleted")
        checkBuilder(calc([-1, 1, 2, 3, -1], [1, 2, 3], all), ExpectedChanges(deletions: [0, 4]), "blanked rows deleted")
        checkBuilder(calc([1, 2, 3], [1, 2, 3], all), ExpectedChanges(modifications: [0, 1, 2]), "modified rows")
        checkBuilder(calc([1, 2, 3], [1, 2, 3], none), ExpectedChanges(modifications: []), "unmodified rows")
        checkBuilder(calc([2, 3], [1, 2, 3], all), ExpectedChanges(insertions: [0]), "inserted first")
        checkBuilder(calc([1, 3], [1, 2, 3], all), ExpectedChanges(insertions: [1]), "inserted middle")
        checkBuilder(calc([1, 2], [1, 2, 3], all), ExpectedChanges(insertions: [2]), "inserted last")
        checkBuilder(calc([1, 2, 3], [1, 2], all), ExpectedChanges(deletions: [2]), "deleted last")
        checkBuilder(calc([1, 2, 3], [1, 3], all), ExpectedChanges(deletions: [1]), "deleted middle")
        checkBuilder(calc([1, 2, 3], [2, 3], all), ExpectedChanges(deletions: [0]), "deleted first")
        checkBuilder(calc([1, 2, 3], [1, 3, 4], all), ExpectedChanges(deletions: [1], insertions: [2], moves: []),
              "deleted and inserted")
        checkBuilder(calc([3, 5], [5, 3], all), ExpectedChanges(deletions: [1], insertions: [0], modifications: [0, 1]),
              "moved rows modified")
        checkBuilder(calc([3], [3, 5], all), ExpectedChanges(modifications: [0]), "new rows not modified")

        // Every reordering of three rows: (old, new, insertions, deletions).
        let reorderings: [([Int64], [Int64], [Int], [Int])] = [
            ([1, 2, 3], [1, 2, 3], [], []), ([1, 2, 3], [1, 3, 2], [1], [2]), ([1, 2, 3], [2, 1, 3], [0], [1]),
            ([1, 2, 3], [2, 3, 1], [2], [0]), ([1, 2, 3], [3, 1, 2], [0], [2]), ([1, 2, 3], [3, 2, 1], [0, 1], [1, 2]),
            ([1, 3, 2], [1, 2, 3], [1], [2]), ([1, 3, 2], [1, 3, 2], [], []), ([1, 3, 2], [2, 1, 3], [0], [2]),
            ([1, 3, 2], [2, 3, 1], [0, 1], [1, 2]), ([1, 3, 2], [3, 1, 2], [0], [1]), ([1, 3, 2], [3, 2, 1], [2], [0]),
            ([2, 1, 3], [1, 2, 3], [0], [1]), ([2, 1, 3], [1, 3, 2], [2], [0]), ([2, 1, 3], [2, 1, 3], [], []),
            ([2, 1, 3], [2, 3, 1], [1], [2]), ([2, 1, 3], [3, 1, 2], [0, 1], [1, 2]), ([2, 1, 3], [3, 2, 1], [0], [2]),
            ([2, 3, 1], [1, 2, 3], [0], [2]), ([2, 3, 1], [1, 3, 2], [0, 1], [1, 2]), ([2, 3, 1], [2, 1, 3], [1], [2]),
            ([2, 3, 1], [2, 3, 1], [], []), ([2, 3, 1], [3, 1, 2], [2], [0]), ([2, 3, 1], [3, 2, 1], [0], [1]),
            ([3, 1, 2], [1, 2, 3], [2], [0]), ([3, 1, 2], [1, 3, 2], [0], [1]), ([3, 1, 2], [2, 1, 3], [0, 1], [1, 2]),
            ([3, 1, 2], [2, 3, 1], [0], [2]), ([3, 1, 2], [3, 1, 2], [], []), ([3, 1, 2], [3, 2, 1], [1], [2]),
            ([3, 2, 1], [1, 2, 3], [0, 1], [1, 2]), ([3, 2, 1], [1, 3, 2], [0], [2]), ([3, 2, 1], [2, 1, 3], [2], [0]),
            ([3, 2, 1], [2, 3, 1], [0], [1]), ([3, 2, 1], [3, 1, 2], [1], [2]), ([3, 2, 1], [3, 2, 1], [], []),
        ]
        for (old, new, insertions, deletions) in reorderings {
            checkBuilder(calc(old, new, none), ExpectedChanges(deletions: deletions, insertions: insertions), "\(old) -> \(new)")
        }

        // Ties: the modified row is the one that moves...
        checkBuilder(calc([1, 2, 3], [1, 3, 2], { $0 == 2 }), ExpectedChanges(deletions: [1], insertions: [2]), "2 modified moves")
        checkBuilder(calc([1, 2, 3], [1, 3, 2], { $0 == 3 }), ExpectedChanges(deletions: [2], insertions: [1]), "3 modified moves")
        // ...but a longer subsequence wins over moving only modified rows.
        checkBuilder(calc([1, 2, 3], [2, 3, 1], { $0 == 2 }), ExpectedChanges(deletions: [0], insertions: [2]), "smaller diff")

        // Repeated keys (results of a list).
        checkBuilder(calc([1, 1, 2, 2, 3, 3], [1, 2, 3, 1, 2, 3], all), ExpectedChanges(deletions: [3, 5], insertions: [1, 2]),
              "repeats")
        checkBuilder(calc([3, 2, 1, 1, 2, 3], [1, 1, 2, 2, 3, 3], all), ExpectedChanges(deletions: [0, 1], insertions: [3, 5]),
              "repeats: the last option deleted")
        checkBuilder(calc([1, 1, 1, 1, 2, 3], [1, 2, 3, 1], all), ExpectedChanges(deletions: [1, 2, 3], insertions: [3]),
              "fewer repeats")
        checkBuilder(calc([1, 2, 3, 1], [1, 1, 1, 1, 2, 3], all), ExpectedChanges(deletions: [3], insertions: [1, 2, 3]),
              "more repeats")
        checkBuilder(calc([10, 1, 2, 11, 3, 4, 5, 12, 6, 7, 13], [13, 1, 2, 12, 3, 4, 5, 11, 6, 7, 10], all),
              ExpectedChanges(deletions: [0, 3, 7, 10], insertions: [0, 3, 7, 10]), "blocks between moved rows")

        // Insert, move, delete of a modified row merge to nothing.
        let four: (Int64) -> Bool = { $0 == 4 }
        for insertAt in 0..<4 {
            for moveTo in 0..<4 where moveTo != insertAt {
                var afterInsert: [Int64] = [1, 2, 3]
                afterInsert.insert(4, at: insertAt)
                var afterMove: [Int64] = [1, 2, 3]
                afterMove.insert(4, at: moveTo)
                var b = calc([1, 2, 3], afterInsert, four)
                b.merge(calc(afterInsert, afterMove, four))
                b.merge(calc(afterMove, [1, 2, 3], four))
                XCTAssertTrue(b.isEmpty, "insert at \(insertAt), move to \(moveTo): \(b)")
            }
        }
    }

    /// Keys of deleted objects are blanked: a reused key is a new row.
    func testCalculateDeletedKeys() {
        for inKeyOrder in [true, false] {
            let b = ChangeBuilder.calculate(old: [1, 2, 3], new: [1, 2, 3], inKeyOrder: inKeyOrder,
                                            deleted: { $0 == 2 }, modified: all)
            checkBuilder(b, ExpectedChanges(deletions: [1], insertions: [1], modifications: [0, 2]), "reused key, \(inKeyOrder)")
            let gone = ChangeBuilder.calculate(old: [1, 2, 3], new: [1, 3], inKeyOrder: inKeyOrder,
                                               deleted: { $0 == 2 }, modified: none)
            checkBuilder(gone, ExpectedChanges(deletions: [1], insertions: []), "deleted key, \(inKeyOrder)")
        }
    }
}
