import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Set and map entries wait in the write buffer's entry tables (`EntryTable`,
/// one per collection: key → put or delete, the last change winning) and
/// are written at commit, sorted.  Whatever reads them in the same
/// transaction sees what a collection written entry by entry would show;
/// what a commit leaves is the same; nothing reaches the file before the
/// commit (or a settle), and a cancel leaves nothing.
final class EntryBufferTests: XCTestCase {
    private let schema = makeSchema([
        ("Person", [prop("name", .string),
                    Property(name: "tags", type: .string, flags: .nullable, collection: .set),
                    Property(name: "ints", type: .int, collection: .set),
                    Property(name: "friends", type: .link, linkTarget: "Dog", collection: .set),
                    Property(name: "scores", type: .int, collection: .map),
                    Property(name: "pets", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
                    Property(name: "anything", type: .mixed, flags: .nullable, collection: .map)]),
        ("Dog", [prop("name", .string)]),
    ])

    /// The entries LMDB holds for `owner`'s set or map, as the realm's
    /// current transaction sees them (the write transaction's inside one).
    private func stored(_ db: DB, _ owner: Int64, _ property: String) throws -> Int {
        let table = try db.realm.table(db.cls("Person"))
        let column = try table.column(db.pkey("Person", property))
        let dbi = column.collection == .set ? try table.setDatabase(column.key) : try table.mapDatabase(column.key)
        return try db.realm.withReadTransaction { (txn) throws(FiefError) -> Int in
            try SetStore.entries(txn, dbi, owner: owner).count
        }
    }

    private func pending(_ db: DB) -> Int { db.realm.write?.buffer.entries.tables.count ?? 0 }

    func testSetReadsTheTableThenLMDBAndCommitsInOrder() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        try db.write {
            for t in ["b", "c", "d"] { XCTAssertTrue(try db.setInsert("Person", a, "tags", .string(t))) }
        }
        try db.write {
            // Changes buffered: nothing in LMDB's entries changes yet.
            XCTAssertTrue(try db.setInsert("Person", a, "tags", .string("a")))
            XCTAssertFalse(try db.setInsert("Person", a, "tags", .string("a")))
            XCTAssertFalse(try db.setInsert("Person", a, "tags", .string("b")))      // stored before
            XCTAssertTrue(try db.setRemove("Person", a, "tags", .string("c")))       // only in LMDB
            XCTAssertFalse(try db.setRemove("Person", a, "tags", .string("c")))
            XCTAssertTrue(try db.setInsert("Person", a, "tags", .null))
            XCTAssertTrue(try db.setRemove("Person", a, "tags", .null))              // put, then deleted
            XCTAssertFalse(try db.setRemove("Person", a, "tags", .string("zz")))     // never there
            XCTAssertEqual(try stored(db, a, "tags"), 3)
            XCTAssertEqual(pending(db), 1)
            // Point reads: the table, then LMDB.
            XCTAssertTrue(try db.setContains("Person", a, "tags", .string("a")))
            XCTAssertTrue(try db.setContains("Person", a, "tags", .string("b")))
            XCTAssertFalse(try db.setContains("Person", a, "tags", .string("c")))
            XCTAssertFalse(try db.setContains("Person", a, "tags", .null))
            XCTAssertEqual(try db.realm.set(db.ref("Person", a, "tags")).count(), 3)
            // Queries on the set in the transaction.
            XCTAssertEqual(try db.keys("Person", "ANY tags == 'a'"), [a])
            XCTAssertEqual(try db.keys("Person", "ANY tags == 'c'"), [])
            XCTAssertEqual(try db.keys("Person", "tags.@count == 3"), [a])
            // A range read: in order, with every change.
            XCTAssertEqual(try db.set("Person", a, "tags"), [.string("a"), .string("b"), .string("d")])
            XCTAssertEqual(try TV.withValues([.string("d")]) { v in try db.realm.set(db.ref("Person", a, "tags")).firstIndex(of: v[0]) }, 2)
            // Results of the set's values: sorted both ways, filtered.
            try db.setInsert("Person", a, "ints", .int(5))
            try db.setInsert("Person", a, "ints", .int(-2))
            let values = try ValueResults(realm: db.realm, list: db.pkey("Person", "ints"), of: a, in: db.cls("Person"))
            func all(_ r: ValueResults) throws -> [TV] { try (0..<r.count()).map { TV(try r.value(at: $0)) } }
            XCTAssertEqual(try all(try values.sorted(ascending: false)), [.int(5), .int(-2)])
            try db.setInsert("Person", a, "ints", .int(0))
            XCTAssertEqual(try all(try values.sorted(ascending: true)), [.int(-2), .int(0), .int(5)])
            let positive = try TV.withValues([.int(0)]) { v in try values.filtered("self > $0", arguments: [QueryArgument(values: [v[0]], isList: false)]) }
            XCTAssertEqual(try all(positive), [.int(5)])
            // Changed again after a range read (which wrote the table).
            XCTAssertTrue(try db.setInsert("Person", a, "tags", .string("e")))
            XCTAssertEqual(try db.set("Person", a, "tags"), [.string("a"), .string("b"), .string("d"), .string("e")])
        }
        XCTAssertEqual(try db.set("Person", a, "tags"), [.string("a"), .string("b"), .string("d"), .string("e")])
        XCTAssertEqual(try stored(db, a, "tags"), 4)
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }

    func testMapReadsTheTableThenLMDBLastChangeWins() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        try db.write {
            try db.mapSet("Person", a, "scores", "x", .int(1))
            try db.mapSet("Person", a, "scores", "y", .int(2))
        }
        try db.write {
            try db.mapSet("Person", a, "scores", "x", .int(10))       // stored: replaced
            try db.mapSet("Person", a, "scores", "z", .int(3))
            try db.mapSet("Person", a, "scores", "z", .int(30))       // last wins
            XCTAssertTrue(try db.mapRemove("Person", a, "scores", "y")) // only in LMDB
            XCTAssertFalse(try db.mapRemove("Person", a, "scores", "y"))
            try db.mapSet("Person", a, "scores", "w", .int(4))
            XCTAssertTrue(try db.mapRemove("Person", a, "scores", "w")) // put, then deleted
            try db.mapSet("Person", a, "scores", "y", .int(20))       // deleted, then put again
            XCTAssertEqual(try stored(db, a, "scores"), 2)
            XCTAssertEqual(try db.mapGet("Person", a, "scores", "x"), .int(10))
            XCTAssertEqual(try db.mapGet("Person", a, "scores", "y"), .int(20))
            XCTAssertEqual(try db.mapGet("Person", a, "scores", "z"), .int(30))
            XCTAssertNil(try db.mapGet("Person", a, "scores", "w"))
            XCTAssertEqual(try db.realm.map(db.ref("Person", a, "scores")).count(), 3)
            XCTAssertEqual(try db.keys("Person", "scores.@count == 3"), [a])
            XCTAssertEqual(try db.keys("Person", "ANY scores.@keys == 'z'"), [a])
            XCTAssertEqual(try db.keys("Person", "ANY scores.@keys == 'w'"), [])
            XCTAssertEqual(try db.keys("Person", "ANY scores.@values == 30"), [a])
            XCTAssertEqual(try db.keys("Person", "scores['x'] == 10"), [a])
            XCTAssertEqual(try db.map("Person", a, "scores").map(\.0), ["x", "y", "z"])
            XCTAssertEqual(try db.map("Person", a, "scores").map(\.1), [.int(10), .int(20), .int(30)])
        }
        XCTAssertEqual(try db.map("Person", a, "scores").map(\.1), [.int(10), .int(20), .int(30)])
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }

    func testCancelLeavesNothing() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        try db.write {
            try db.setInsert("Person", a, "ints", .int(1))
            try db.mapSet("Person", a, "scores", "k", .int(1))
        }
        try db.realm.beginWrite()
        try db.setInsert("Person", a, "ints", .int(2))
        try db.setRemove("Person", a, "ints", .int(1))
        try db.mapSet("Person", a, "scores", "k", .int(5))
        try db.mapSet("Person", a, "scores", "j", .int(6))
        XCTAssertEqual(pending(db), 2)
        db.realm.cancelWrite()
        XCTAssertEqual(try db.set("Person", a, "ints"), [.int(1)])
        XCTAssertEqual(try db.map("Person", a, "scores").map(\.1), [.int(1)])
        // The next transaction starts with no table.
        try db.write {
            XCTAssertEqual(pending(db), 0)
            XCTAssertTrue(try db.setContains("Person", a, "ints", .int(1)))
        }
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }

    /// Deleting the owner takes its buffered entries too, and the links
    /// they held lose their backlinks; so does deleting every object of
    /// the class.
    func testOwnerDeletedAndDeleteAllTakeBufferedEntries() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var a: Int64 = 0, b: Int64 = 0, c: Int64 = 0, d1: Int64 = 0, d2: Int64 = 0
        try db.write {
            a = try db.create("Person", [("name", .string("a"))])
            b = try db.create("Person", [("name", .string("b"))])
            c = try db.create("Person", [("name", .string("c"))])
            d1 = try db.create("Dog", [("name", .string("d1"))])
            d2 = try db.create("Dog", [("name", .string("d2"))])
            try db.setInsert("Person", a, "ints", .int(1))
            try db.setInsert("Person", a, "friends", .link(db.cls("Dog"), d1))
        }
        try db.write {
            try db.setInsert("Person", a, "ints", .int(2))
            try db.setInsert("Person", a, "friends", .link(db.cls("Dog"), d2))
            try db.mapSet("Person", a, "scores", "k", .int(1))
            try db.mapSet("Person", a, "pets", "p", .link(db.cls("Dog"), d2))
            try db.setInsert("Person", b, "tags", .string("kept"))
            try db.delete("Person", a)
            XCTAssertEqual(try db.backlinkCount("Dog", d2), 0)
            XCTAssertEqual(try stored(db, a, "ints"), 0)
            XCTAssertEqual(try stored(db, a, "friends"), 0)
        }
        XCTAssertEqual(try stored(db, a, "ints"), 0)
        XCTAssertEqual(try stored(db, a, "scores"), 0)
        XCTAssertEqual(try stored(db, a, "pets"), 0)
        XCTAssertEqual(try db.backlinkCount("Dog", d1), 0)
        XCTAssertEqual(try db.backlinkCount("Dog", d2), 0)
        XCTAssertEqual(try db.set("Person", b, "tags"), [.string("kept")])
        try db.write {
            try db.setInsert("Person", c, "friends", .link(db.cls("Dog"), d1))
            try db.mapSet("Person", c, "pets", "p", .link(db.cls("Dog"), d1))
            try db.setInsert("Person", b, "ints", .int(7))
            try db.realm.deleteAll(table: db.cls("Person"))
            XCTAssertEqual(pending(db), 0)
            // Created again in the same transaction: buffered anew.
            let e = try db.create("Person", [("name", .string("e"))])
            try db.setInsert("Person", e, "ints", .int(9))
            XCTAssertEqual(try db.set("Person", e, "ints"), [.int(9)])
        }
        XCTAssertEqual(try db.backlinkCount("Dog", d1), 0)
        XCTAssertEqual(try db.count("Person"), 1)
        XCTAssertEqual(try db.keys("Person", "ANY ints == 9").count, 1)
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }

    /// A link target deleted while a set or map holding it is buffered:
    /// the element goes, the map value becomes null.
    func testTargetDeletedLeavesBufferedCollections() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var a: Int64 = 0, d: Int64 = 0
        try db.write {
            a = try db.create("Person", [("name", .string("a"))])
            d = try db.create("Dog", [("name", .string("d"))])
        }
        try db.write {
            try db.setInsert("Person", a, "friends", .link(db.cls("Dog"), d))
            try db.mapSet("Person", a, "pets", "p", .link(db.cls("Dog"), d))
            try db.delete("Dog", d)
            XCTAssertEqual(try db.realm.set(db.ref("Person", a, "friends")).count(), 0)
            XCTAssertEqual(try db.mapGet("Person", a, "pets", "p"), .null)
        }
        XCTAssertEqual(try db.set("Person", a, "friends"), [])
        XCTAssertEqual(try db.map("Person", a, "pets").map(\.1), [.null])
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }

    /// A schema change inside the transaction writes the tables first.
    func testSchemaChangeInTheTransaction() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        var bigger = schema
        bigger.classes.append(ObjectClass(name: "Cat", properties: [prop("name", .string)]))
        try db.write {
            try db.setInsert("Person", a, "ints", .int(3))
            try db.mapSet("Person", a, "scores", "k", .int(3))
            try db.realm.updateSchema(bigger)
            XCTAssertEqual(pending(db), 0)
            XCTAssertEqual(try stored(db, a, "ints"), 1)
            try db.setInsert("Person", a, "ints", .int(4))
            XCTAssertEqual(try db.set("Person", a, "ints"), [.int(3), .int(4)])
        }
        XCTAssertEqual(try db.set("Person", a, "ints"), [.int(3), .int(4)])
        XCTAssertEqual(try db.map("Person", a, "scores").map(\.1), [.int(3)])
    }

    /// A frozen realm of the version before reads it while the writer buffers.
    func testOlderSnapshotsReadTheirVersion() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        try db.write { try db.setInsert("Person", a, "ints", .int(1)) }
        let frozen = DB(try db.realm.freeze())
        try db.write {
            try db.setInsert("Person", a, "ints", .int(2))
            try db.setRemove("Person", a, "ints", .int(1))
            try db.mapSet("Person", a, "scores", "k", .int(1))
            XCTAssertEqual(try frozen.set("Person", a, "ints"), [.int(1)])
            XCTAssertTrue(try frozen.setContains("Person", a, "ints", .int(1)))
            XCTAssertNil(try frozen.mapGet("Person", a, "scores", "k"))
        }
        XCTAssertEqual(try frozen.set("Person", a, "ints"), [.int(1)])
        XCTAssertEqual(try db.set("Person", a, "ints"), [.int(2)])
        frozen.realm.close()
    }

    /// A budget of a few kilobytes settles tables many times in one
    /// transaction; the result is what the default budget leaves.
    func testTinyBudgetSettlesWithTheSameResult() throws {
        let saved = WriteBuffer.defaultBudget
        defer { WriteBuffer.defaultBudget = saved }
        var results: [[[TV]]] = []
        for budget in [saved, 4096] {
            WriteBuffer.defaultBudget = budget
            let dir = tempDir()
            let db = try DB.open(dir.file(), schema)
            var owners: [Int64] = []
            try db.write {
                for i in 0..<40 { owners.append(try db.create("Person", [("name", .string("p\(i)"))])) }
            }
            try db.write {
                for round in 0..<3 {
                    for (i, o) in owners.enumerated() {
                        for j in 0..<60 {
                            let v = Int64((j * 37 + i * 11 + round * 5) % 97)
                            if (j + round) % 4 == 3 { try db.setRemove("Person", o, "ints", .int(v)) } else { try db.setInsert("Person", o, "ints", .int(v)) }
                            try db.mapSet("Person", o, "scores", "k\(v)", .int(Int64(j + round)))
                        }
                    }
                }
                XCTAssertLessThanOrEqual(db.realm.write!.buffer.entries.totalBytes, max(budget, 1 << 20) + (1 << 20))
                if budget == 4096 { XCTAssertGreaterThan(try stored(db, owners[0], "ints"), 0, "settled before commit") }
            }
            results.append(try owners.map { (o) throws -> [TV] in
                let keys: [TV] = try db.map("Person", o, "scores").map { TV.string($0.0) }
                return try db.set("Person", o, "ints") + keys
            })
            db.realm.close()
            XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
        }
        XCTAssertEqual(results[0], results[1])
    }

    /// Random changes to sets and maps against a model, with commits and
    /// cancels, compared after every transaction (and read inside it).
    func testRandomOperationsAgainstAModel() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var rng = SeededRandom(seed: 22)
        var owners: [Int64] = []
        try db.write { for i in 0..<6 { owners.append(try db.create("Person", [("name", .string("p\(i)"))])) } }
        var sets: [Int64: Set<Int64>] = [:]
        var maps: [Int64: [String: Int64]] = [:]
        for round in 0..<60 {
            var s = sets, m = maps
            try db.realm.beginWrite()
            for _ in 0..<Int(rng.next() % 40) {
                let o = owners[Int(rng.next() % UInt64(owners.count))]
                let v = Int64(rng.next() % 24)
                switch rng.next() % 8 {
                case 0, 1:
                    XCTAssertEqual(try db.setInsert("Person", o, "ints", .int(v)), s[o, default: []].insert(v).inserted)
                case 2:
                    XCTAssertEqual(try db.setRemove("Person", o, "ints", .int(v)), s[o, default: []].remove(v) != nil)
                case 3:
                    XCTAssertEqual(try db.setContains("Person", o, "ints", .int(v)), s[o, default: []].contains(v))
                case 4, 5:
                    try db.mapSet("Person", o, "scores", "k\(v)", .int(Int64(round)))
                    m[o, default: [:]]["k\(v)"] = Int64(round)
                case 6:
                    XCTAssertEqual(try db.mapRemove("Person", o, "scores", "k\(v)"), m[o, default: [:]].removeValue(forKey: "k\(v)") != nil)
                default:
                    XCTAssertEqual(try db.mapGet("Person", o, "scores", "k\(v)"), m[o]?["k\(v)"].map { .int($0) })
                }
            }
            let o = owners[round % owners.count]
            XCTAssertEqual(try db.realm.set(db.ref("Person", o, "ints")).count(), s[o]?.count ?? 0)
            if round % 3 == 0 { XCTAssertEqual(try db.set("Person", o, "ints"), (s[o] ?? []).sorted().map { .int($0) }) }
            if round % 5 == 4 {
                db.realm.cancelWrite()
            } else {
                try db.realm.commitWrite()
                sets = s
                maps = m
            }
            for o in owners {
                XCTAssertEqual(try db.set("Person", o, "ints"), (sets[o] ?? []).sorted().map { .int($0) }, "round \(round)")
                let expected = (maps[o] ?? [:]).sorted { $0.key < $1.key }
                let got = try db.map("Person", o, "scores")
                XCTAssertEqual(got.map(\.0), expected.map(\.key), "round \(round)")
                XCTAssertEqual(got.map(\.1), expected.map { .int($0.value) }, "round \(round)")
            }
        }
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }
}
