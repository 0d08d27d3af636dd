import XCTest
@testable import FiefEngine

// Map, object and sectioned change sets (docs/design.md, "Change sets").
// The sectioned cases follow realm-core's sectioned results notification
// scenario (test/object-store/sectioned_results.cpp), restated as our own
// table and run through the whole pipeline: the results' keys at each
// version, `calculate`, `finalize`, then the sections.

final class ChangeSetKindsTests: XCTestCase {
    // MARK: Maps

    enum MapOp {
        case insert(String), modify(String), remove(String), clear([String]), merge(MapChangeBuilder)
    }

    func testMapChanges() {
        // (name, operations, deletions, insertions, modifications, cleared)
        let table: [(String, [MapOp], [String], [String], [String], Bool)] = [
            ("one of each", [.insert("b"), .modify("a"), .remove("c")], ["c"], ["b"], ["a"], false),
            ("inserted then removed: nothing", [.insert("a"), .remove("a")], [], [], [], false),
            ("inserted then set: inserted", [.insert("a"), .modify("a")], [], ["a"], [], false),
            ("set then removed: deleted", [.modify("a"), .remove("a")], ["a"], [], [], false),
            ("removed then added: deleted and inserted", [.remove("a"), .insert("a")], ["a"], ["a"], [], false),
            ("removed, added, set: deleted and inserted", [.remove("a"), .insert("a"), .modify("a")],
             ["a"], ["a"], [], false),
            ("removed, added, removed: deleted", [.remove("a"), .insert("a"), .remove("a")], ["a"], [], [], false),
            ("set twice: modified once", [.modify("a"), .modify("a")], [], [], ["a"], false),
            ("clear: the keys before deleted, new ones vanish", [.insert("n"), .modify("a"), .clear(["a", "b", "n"])],
             ["a", "b"], [], [], true),
            ("clear then insert: not cleared", [.clear(["a"]), .insert("b")], ["a"], ["b"], [], false),
            ("keys in byte order", [.insert("b"), .insert("B"), .insert("é"), .insert("a")], [],
             ["B", "a", "b", "é"], [], false),
            ("merged versions (r set, then removed and added again)", [.insert("a"), .modify("r"), .merge({
                var next = MapChangeBuilder()
                next.remove("a")
                next.remove("r")
                next.insert("r")
                next.insert("z")
                return next
            }())], ["r"], ["r", "z"], [], false),
        ]
        for (name, ops, deletions, insertions, modifications, cleared) in table {
            var builder = MapChangeBuilder()
            for op in ops {
                switch op {
                case .insert(let key): builder.insert(key)
                case .modify(let key): builder.modify(key)
                case .remove(let key): builder.remove(key)
                case .clear(let keys): builder.clear(keysBefore: keys)
                case .merge(let next): builder.merge(next)
                }
            }
            let changes = builder.finalize()
            XCTAssertEqual(changes.deletions, deletions, name)
            XCTAssertEqual(changes.insertions, insertions, name)
            XCTAssertEqual(changes.modifications, modifications, name)
            XCTAssertEqual(changes.cleared, cleared, name)
        }
        XCTAssertTrue(MapChangeBuilder().finalize().isEmpty)
        var root = MapChangeBuilder()
        root.rootDeleted = true
        var merged = MapChangeBuilder()
        merged.modify("a")
        merged.merge(root)
        XCTAssertTrue(merged.finalize().rootDeleted)
        XCTAssertFalse(merged.finalize().isEmpty)
    }

    /// Random map operations against the two maps they lead between.
    func testMapChangesAgainstTheMaps() {
        var random = SeededRandom(seed: 11)
        let universe = ["a", "b", "c", "d", "e", "f"]
        for trial in 0..<2000 {
            let first = Set(universe.filter { _ in Bool.random(using: &random) })
            var map = first
            var modified = Set<String>()
            var merged = MapChangeBuilder()
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                var builder = MapChangeBuilder()
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let key = universe.randomElement(using: &random)!
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0:
                        builder.clear(keysBefore: map)
                        map.removeAll()
                    case 1...4:
                        if map.contains(key) {
                            builder.modify(key)
                            modified.insert(key)
                        } else {
                            builder.insert(key)
                            map.insert(key)
                        }
                    default:
                        if map.contains(key) {
                            builder.remove(key)
                            map.remove(key)
                        }
                    }
                }
                merged.merge(builder)
            }
            let changes = merged.finalize()
            // Applying the change set to the first keys gives the last.
            var applied = first.subtracting(changes.deletions)
            XCTAssertTrue(applied.isDisjoint(with: changes.insertions), "trial \(trial): \(changes)")
            applied.formUnion(changes.insertions)
            XCTAssertEqual(applied, map, "trial \(trial): \(changes)")
            XCTAssertTrue(Set(changes.deletions).isSubset(of: first), "trial \(trial)")
            // Modifications: keys there throughout that were set.
            for key in changes.modifications {
                XCTAssertTrue(first.contains(key) && map.contains(key) && modified.contains(key), "trial \(trial)")
            }
            for key in first.intersection(map) where modified.contains(key) {
                XCTAssertTrue(changes.modifications.contains(key) || changes.deletions.contains(key), "trial \(trial)")
            }
        }
    }

    // MARK: Objects

    func testObjectChanges() {
        var changes = ObjectChangeSet()
        XCTAssertTrue(changes.isEmpty)
        changes.modify(5)
        changes.modify(2)
        changes.modify(5)
        XCTAssertEqual(changes.changedProperties, [2, 5])
        XCTAssertFalse(changes.isDeleted)

        var later = ObjectChangeSet()
        later.modify(3)
        changes.merge(later)
        XCTAssertEqual(changes.changedProperties, [2, 3, 5])

        var deleted = ObjectChangeSet()
        deleted.delete()
        changes.merge(deleted)
        XCTAssertTrue(changes.isDeleted)
        XCTAssertEqual(changes.changedProperties, [])
        changes.modify(7)
        XCTAssertEqual(changes.changedProperties, [], "a deleted object reports no property")
        XCTAssertEqual(ObjectChangeSet(changedProperties: [4, 1, 4]).changedProperties, [1, 4])
    }

    // MARK: Results (realm-core's results.cpp notification cases)

    /// A class of objects (key -> value) and results of those with
    /// 0 < value < 10, in key order or sorted by value descending; each
    /// transaction's change set calculated from the key lists and merged,
    /// as a results notifier does.
    struct ResultsModel {
        var values: [Int64: Int64]
        let sorted: Bool
        var pending = ChangeBuilder()

        init(sorted: Bool) {
            self.sorted = sorted
            values = [:]
            for (i, key) in [3, 4, 7, 9, 10, 21, 24, 34, 42, 50].enumerated() { values[Int64(key)] = Int64(i * 2) }
        }

        var keys: [Int64] {
            let matching = values.keys.filter { values[$0]! > 0 && values[$0]! < 10 }
            return sorted ? matching.sorted { (values[$0]!, $0) > (values[$1]!, $1) } : matching.sorted()
        }

        /// One transaction: values set (creating objects), objects removed.
        mutating func write(set: [(Int64, Int64)] = [], remove: [Int64] = [], clear: Bool = false) {
            let old = keys
            var modified = Set<Int64>(), deleted = Set<Int64>()
            if clear {
                deleted = Set(values.keys)
                values.removeAll()
            }
            for key in remove {
                values[key] = nil
                deleted.insert(key)
            }
            for (key, value) in set {
                if values[key] != nil { modified.insert(key) }
                values[key] = value
            }
            pending.merge(ChangeBuilder.calculate(old: old, new: keys, inKeyOrder: !sorted,
                                                  deleted: deleted.isEmpty ? nil : { deleted.contains($0) },
                                                  modified: { modified.contains($0) }))
        }

        /// The change set delivered: the merged transactions since the last.
        mutating func deliver() -> IndexChangeSet {
            defer { pending = ChangeBuilder() }
            return pending.finalize()
        }
    }

    func testResultsNotifications() {
        // (name, sorted, transactions, deletions, insertions, modifications, modificationsNew)
        typealias Write = (inout ResultsModel) -> Void
        let table: [(String, Bool, [Write], [Int], [Int], [Int], [Int])] = [
            ("unsorted: non-matching rows deleted: nothing", false, [{ $0.write(remove: [3, 24]) }], [], [], [], []),
            ("unsorted: a matching row modified, still matching", false, [{ $0.write(set: [(4, 3)]) }],
             [], [], [0], [0]),
            ("unsorted: a row modified to no longer match", false, [{ $0.write(set: [(7, 0)]) }], [1], [], [], []),
            ("unsorted: a row modified to match: inserted, not modified", false, [{ $0.write(set: [(34, 3)]) }],
             [], [4], [], []),
            ("unsorted: a matching row deleted", false, [{ $0.write(remove: [9]) }], [2], [], [], []),
            ("unsorted: inserted, then modified next time: inserted", false,
             [{ $0.write(set: [(53, 6)]) }, { $0.write(set: [(53, 7)]) }], [], [4], [], []),
            ("unsorted: modifications in positions before and after", false,
             [{ $0.write(set: [(7, 0), (9, 6)]) }], [1], [], [2], [1]),
            ("unsorted: inserted, then removed next time: nothing", false,
             [{ $0.write(set: [(53, 5)]) }, { $0.write(remove: [53]) }], [], [], [], []),
            ("unsorted: a non-matching row added first: nothing", false, [{ $0.write(set: [(1, 0)]) }],
             [], [], [], []),
            ("unsorted: a matching row added first", false, [{ $0.write(set: [(0, 5)]) }], [], [0], [], []),
            ("sorted: a matching row modified in place", true, [{ $0.write(set: [(4, 3)]) }], [], [], [3], [3]),
            ("sorted: a row modified to no longer match", true, [{ $0.write(set: [(7, 0)]) }], [2], [], [], []),
            ("sorted: a row modified to match", true, [{ $0.write(set: [(34, 3)]) }], [], [3], [], []),
            ("sorted: a matching row deleted", true, [{ $0.write(remove: [9]) }], [1], [], [], []),
            ("sorted: cleared", true, [{ $0.write(clear: true) }], [0, 1, 2, 3], [], [], []),
            ("sorted: a row modified to move: deleted and inserted", true, [{ $0.write(set: [(7, 9)]) }],
             [2], [0], [], []),
            ("sorted: clear, insert, clear", true,
             [{ $0.write(clear: true) }, { $0.write(set: [(60, 3), (61, 4), (62, 5)]) }, { $0.write(clear: true) }],
             [0, 1, 2, 3], [], [], []),
        ]
        for (name, sorted, writes, deletions, insertions, modifications, modificationsNew) in table {
            var model = ResultsModel(sorted: sorted)
            for write in writes { write(&model) }
            let changes = model.deliver()
            XCTAssertEqual(changes.deletions.indices, deletions, name)
            XCTAssertEqual(changes.insertions.indices, insertions, name)
            XCTAssertEqual(changes.modifications.indices, modifications, name)
            XCTAssertEqual(changes.modificationsNew.indices, modificationsNew, name)
            XCTAssertTrue(changes.moves.isEmpty, name)
        }

        // Delivered one transaction at a time.
        var model = ResultsModel(sorted: true)
        model.write(clear: true)
        XCTAssertEqual(model.deliver().deletions.count, 4)
        model.write(set: [(57, 3), (58, 4), (59, 5)])
        var changes = model.deliver()
        XCTAssertEqual(changes.insertions.indices, [0, 1, 2])
        XCTAssertTrue(changes.deletions.isEmpty)
        model.write(clear: true)
        changes = model.deliver()
        XCTAssertEqual(changes.deletions.indices, [0, 1, 2])
        XCTAssertTrue(changes.insertions.isEmpty && changes.modifications.isEmpty)

        // A matching row stays while the others go and one comes.
        model = ResultsModel(sorted: true)
        model.write(clear: true)
        model.write(set: [(100, 15), (101, 5)])
        _ = model.deliver()
        model.write(set: [(102, 3)], remove: [100])
        changes = model.deliver()
        XCTAssertTrue(changes.deletions.isEmpty)
        XCTAssertEqual(changes.insertions.indices, [1])
    }

    // MARK: Sections

    /// Objects by key with a name; results sorted by name (ties in key
    /// order), sectioned by the name's first letter.
    struct Named {
        var names: [Int64: String] = [:]
        var nextKey: Int64 = 0

        var sortedKeys: [Int64] {
            names.keys.sorted { (names[$0]!, $0) < (names[$1]!, $1) }
        }

        func layout(_ keys: [Int64]) -> SectionLayout<Character> {
            SectionLayout(keyOfRow: keys.map { names[$0]!.first! })
        }
    }

    /// Expected per-section positions: section -> items (absent: none).
    func assertSections(_ actual: [IndexRangeSet], _ expected: [[Int]], _ what: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.map(\.indices), expected, what, file: file, line: line)
    }

    func testSectionedResultsScenario() {
        var db = Named()
        var keysOf: [String: Int64] = [:]
        func create(_ name: String, as label: String) {
            db.names[db.nextKey] = name
            keysOf[label] = db.nextKey
            db.nextKey += 1
        }
        for name in ["banana", "apricot", "apple", "orange", "apples"] { create(name, as: name) }

        /// One transaction: names set (creating objects for new labels),
        /// objects deleted; the sectioned change set it gives.
        func step(set: [(String, String)] = [], delete: [String] = [], clear: Bool = false) -> SectionChangeSet {
            let oldKeys = db.sortedKeys
            let oldLayout = db.layout(oldKeys)
            var modified = Set<Int64>(), deleted = Set<Int64>()
            if clear {
                deleted = Set(db.names.keys)
                db.names.removeAll()
            }
            for label in delete {
                deleted.insert(keysOf[label]!)
                db.names[keysOf[label]!] = nil
            }
            for (label, name) in set {
                if let key = keysOf[label], db.names[key] != nil {
                    db.names[key] = name
                    modified.insert(key)
                } else {
                    create(name, as: label)
                }
            }
            let newKeys = db.sortedKeys
            let changes = ChangeBuilder.calculate(old: oldKeys, new: newKeys, inKeyOrder: false,
                                                  deleted: { deleted.contains($0) },
                                                  modified: { modified.contains($0) }).finalize()
            return SectionChangeSet(changes: changes, old: oldLayout, new: db.layout(newKeys))
        }

        // Insertions.
        var c = step(set: [("o1", "safari"), ("o2", "mail"), ("o3", "czar"), ("o4", "stocks"), ("o5", "cake"),
                           ("o6", "any")])
        XCTAssertEqual(c.sectionsDeleted.indices, [])
        XCTAssertEqual(c.sectionsInserted.indices, [2, 3, 5])
        assertSections(c.insertions, [[0], [], [0, 1], [0], [], [0, 1]], "insertions")
        assertSections(c.modifications, [], "insertions: modifications")
        assertSections(c.deletions, [], "insertions: deletions")

        // A modification in place.
        c = step(set: [("o4", "stocksss")])
        XCTAssertTrue(c.sectionsInserted.isEmpty && c.sectionsDeleted.isEmpty)
        assertSections(c.modifications, [[], [], [], [], [], [1]], "modification")
        assertSections(c.insertions, [], "modification: insertions")
        assertSections(c.deletions, [], "modification: deletions")

        // Deletions, one emptying its section.
        c = step(delete: ["o2", "o3"])
        XCTAssertTrue(c.sectionsInserted.isEmpty)
        XCTAssertEqual(c.sectionsDeleted.count, 1)
        assertSections(c.deletions, [[], [], [1]], "deletions")
        assertSections(c.insertions, [], "deletions: insertions")
        assertSections(c.modifications, [], "deletions: modifications")

        // Rows moving from one section to a new one.
        c = step(set: [("o1", "elephant"), ("o4", "erie")])
        XCTAssertEqual(c.sectionsDeleted.indices, [4])
        XCTAssertEqual(c.sectionsInserted.indices, [3])
        assertSections(c.deletions, [[], [], [], [0]], "to a new section: deletions")
        assertSections(c.insertions, [[], [], [], [0, 1], [0]], "to a new section: insertions")
        assertSections(c.modifications, [], "to a new section: modifications")

        // Rows moving to an existing section.
        c = step(set: [("o1", "asimov"), ("o4", "animal")])
        XCTAssertTrue(c.sectionsInserted.isEmpty)
        XCTAssertEqual(c.sectionsDeleted.indices, [3])
        assertSections(c.deletions, [], "to an existing section: deletions")
        assertSections(c.insertions, [[0, 5]], "to an existing section: insertions")
        assertSections(c.modifications, [], "to an existing section: modifications")

        // Everything removed: only the sections are reported.
        c = step(clear: true)
        XCTAssertTrue(c.sectionsInserted.isEmpty)
        XCTAssertEqual(c.sectionsDeleted.indices, [0, 1, 2, 3])
        assertSections(c.deletions, [], "clear: deletions")
        assertSections(c.insertions, [], "clear: insertions")
        assertSections(c.modifications, [], "clear: modifications")
        keysOf = [:]

        c = step(set: [("o1", "any"), ("o2", "any"), ("o3", "any"), ("o4", "beans"), ("o5", "duck"), ("o6", "goat"),
                       ("o7", "zebra")])
        XCTAssertTrue(c.sectionsDeleted.isEmpty)
        XCTAssertEqual(c.sectionsInserted.indices, [0, 1, 2, 3, 4])
        assertSections(c.insertions, [[0, 1, 2], [0], [0], [0], [0]], "refill: insertions")
        assertSections(c.deletions, [], "refill: deletions")
        assertSections(c.modifications, [], "refill: modifications")

        c = step(set: [("o1", "banana"), ("o2", "melon"), ("o3", "calendar"), ("o4", "apricot"), ("o5", "duck"),
                       ("o6", "duck"), ("o7", "apple")])
        XCTAssertEqual(c.sectionsInserted.indices, [2, 4])
        XCTAssertEqual(c.sectionsDeleted.indices, [3, 4])
        assertSections(c.insertions, [[0, 1], [0], [0], [1], [0]], "shuffle 1: insertions")
        assertSections(c.deletions, [[0, 1, 2], [0]], "shuffle 1: deletions")
        assertSections(c.modifications, [[], [], [0]], "shuffle 1: modifications")

        c = step(set: [("o1", "any"), ("o2", "apple"), ("o3", "apricot"), ("o4", "cake"), ("o5", "duck"),
                       ("o6", "duck"), ("o7", "melon")])
        XCTAssertTrue(c.sectionsInserted.isEmpty)
        XCTAssertEqual(c.sectionsDeleted.indices, [1])
        assertSections(c.insertions, [[0, 1, 2], [0], [], [0]], "shuffle 2: insertions")
        assertSections(c.deletions, [[0, 1], [], [0], [], [0]], "shuffle 2: deletions")
        assertSections(c.modifications, [[], [], [], [0, 1]], "shuffle 2: modifications")

        c = step(set: [("o1", "calender"), ("o2", "apricot"), ("o3", "goat"), ("o4", "zebra"), ("o5", "goat"),
                       ("o6", "fire"), ("o7", "calender")])
        XCTAssertEqual(c.sectionsInserted.indices, [2, 3, 4])
        XCTAssertEqual(c.sectionsDeleted.indices, [2, 3])
        assertSections(c.insertions, [[0], [1], [0], [0, 1], [0]], "shuffle 3: insertions")
        assertSections(c.modifications, [[], [0]], "shuffle 3: modifications")
        assertSections(c.deletions, [[0, 1, 2]], "shuffle 3: deletions")
    }

    /// RealmSwift's SectionedResultsTests (observe, and observe on one
    /// section): objects sorted by string, sectioned by first letter.
    func testSectionedResultsOfRealmSwift() {
        var db = Named()
        var keyOf: [String: Int64] = [:]
        for label in ["banana", "box", "apple", "chalk"] {
            db.names[db.nextKey] = label
            keyOf[label] = db.nextKey
            db.nextKey += 1
        }
        func step(set: [(String, String)] = [], delete: [String] = [], only: Character? = nil,
                  apply: Bool = true) -> SectionChangeSet {
            var after = db
            var modified = Set<Int64>(), deleted = Set<Int64>()
            for label in delete {
                deleted.insert(keyOf[label]!)
                after.names[keyOf[label]!] = nil
            }
            for (label, name) in set {
                if let key = keyOf[label] {
                    after.names[key] = name
                    modified.insert(key)
                } else {
                    after.names[after.nextKey] = name
                    after.nextKey += 1
                }
            }
            let oldKeys = db.sortedKeys, newKeys = after.sortedKeys
            let changes = ChangeBuilder.calculate(old: oldKeys, new: newKeys, inKeyOrder: false,
                                                  deleted: { deleted.contains($0) },
                                                  modified: { modified.contains($0) }).finalize()
            let result = SectionChangeSet(changes: changes, old: db.layout(oldKeys), new: after.layout(newKeys),
                                          onlySection: only)
            if apply { db = after }
            return result
        }
        func paths(_ perSection: [IndexRangeSet]) -> [[Int]] {
            SectionChangeSet.indexPaths(perSection).map { [$0.section, $0.item] }
        }

        // observe: apple and banana deleted, box renamed bog, zebra added.
        var c = step(set: [("box", "bog"), ("zebra", "zebra")], delete: ["banana", "apple"])
        XCTAssertEqual(c.sectionsDeleted.indices, [0])
        XCTAssertEqual(c.sectionsInserted.indices, [2])
        XCTAssertEqual(paths(c.deletions), [[1, 0], [1, 1]])
        XCTAssertEqual(paths(c.insertions), [[0, 0], [2, 0]])
        XCTAssertEqual(paths(c.modifications), [])
        c = step(set: [("box", "bogg")])
        XCTAssertTrue(c.sectionsDeleted.isEmpty && c.sectionsInserted.isEmpty)
        XCTAssertEqual(paths(c.deletions), [])
        XCTAssertEqual(paths(c.insertions), [])
        XCTAssertEqual(paths(c.modifications), [[0, 0]])

        // observe on a section: "a" and "b" observed.
        db = Named()
        keyOf = [:]
        for label in ["banana", "box", "apple", "chalk"] {
            db.names[db.nextKey] = label
            keyOf[label] = db.nextKey
            db.nextKey += 1
        }
        c = step(delete: ["banana", "apple"], only: "a", apply: false)
        XCTAssertEqual(c.sectionsDeleted.indices, [0])
        XCTAssertTrue(c.sectionsInserted.isEmpty && paths(c.deletions).isEmpty && paths(c.insertions).isEmpty)
        c = step(delete: ["banana", "apple"], only: "b")
        XCTAssertTrue(c.sectionsDeleted.isEmpty && c.sectionsInserted.isEmpty)
        XCTAssertEqual(paths(c.deletions), [[1, 0]])
        XCTAssertEqual(paths(c.insertions), [])
        XCTAssertEqual(paths(c.modifications), [])

        // box renamed bog and bag added: "a" sees nothing, "b" its row moved.
        XCTAssertTrue(step(set: [("box", "bog"), ("bag", "bag")], only: "a", apply: false).isEmpty)
        c = step(set: [("box", "bog"), ("bag", "bag")], only: "b")
        XCTAssertTrue(c.sectionsDeleted.isEmpty && c.sectionsInserted.isEmpty)
        XCTAssertEqual(paths(c.deletions), [[0, 0]])
        XCTAssertEqual(paths(c.insertions), [[0, 0], [0, 1]])
        XCTAssertEqual(paths(c.modifications), [])

        // app added: "a" is back.
        c = step(set: [("app", "app")], only: "a")
        XCTAssertEqual(c.sectionsInserted.indices, [0])
        XCTAssertEqual(paths(c.insertions), [[0, 0]])
    }

    /// One section observed: only its own changes, positions within it.
    func testSectionFilter() {
        let oldKeys: [Character] = ["a", "a", "b", "c"]
        let newKeys: [Character] = ["a", "b", "b", "d"]
        let old = SectionLayout(keyOfRow: oldKeys), new = SectionLayout(keyOfRow: newKeys)
        // Row 1 ("a") deleted, a "b" row inserted at 2, "c" gone, "d" added.
        let changes = IndexChangeSet(deletions: IndexRangeSet([1, 3]), insertions: IndexRangeSet([2, 3]),
                                     modifications: IndexRangeSet([2]), modificationsNew: IndexRangeSet([1]))
        let a = SectionChangeSet(changes: changes, old: old, new: new, onlySection: "a")
        assertSections(a.deletions, [[1]], "a: deletions")
        assertSections(a.insertions, [], "a: insertions")
        XCTAssertTrue(a.sectionsInserted.isEmpty && a.sectionsDeleted.isEmpty)
        let b = SectionChangeSet(changes: changes, old: old, new: new, onlySection: "b")
        assertSections(b.insertions, [[], [1]], "b: insertions")
        assertSections(b.modifications, [[], [0]], "b: modifications")
        let c = SectionChangeSet(changes: changes, old: old, new: new, onlySection: "c")
        XCTAssertEqual(c.sectionsDeleted.indices, [2])
        assertSections(c.deletions, [], "c: rows of a removed section not reported")
        let d = SectionChangeSet(changes: changes, old: old, new: new, onlySection: "d")
        XCTAssertEqual(d.sectionsInserted.indices, [2])
        assertSections(d.insertions, [[], [], [0]], "d: insertions")
        let z = SectionChangeSet(changes: changes, old: old, new: new, onlySection: "z")
        XCTAssertTrue(z.isEmpty)
    }
}
