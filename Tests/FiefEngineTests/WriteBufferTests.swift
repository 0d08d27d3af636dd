import XCTest
@testable import FiefStorage
import Foundation
import CLMDB
@testable import FiefEngine

/// The write buffer (issue 21 item 5): backlink changes are buffered in the
/// write transaction and written at commit in key order.  Every test runs
/// on real files: what one transaction leaves equals what many small ones
/// leave, reads inside the transaction see the buffered changes, a cancel
/// drops them, a small budget settles early with the same result, and
/// `fief verify` finds every file clean.
final class WriteBufferTests: XCTestCase {
    static func schema() -> Schema {
        makeSchema([
            ("Person", [prop("name", .string),
                        Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
                        Property(name: "pets", type: .link, linkTarget: "Dog", collection: .set),
                        Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Person")]),
            ("Dog", [prop("name", .string), Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
    }

    /// People and dogs, created in one transaction.
    private func populate(_ db: DB, people: Int, dogs: Int) throws -> (people: [Int64], dogs: [Int64]) {
        try db.write {
            let p = try db.createMany("Person", ["name"], (0..<people).map { [.string("p\($0)")] })
            let d = try db.createMany("Dog", ["name"], (0..<dogs).map { [.string("d\($0)")] })
            return (p, d)
        }
    }

    /// One random operation that changes links (list appends and removals,
    /// set inserts, to-one links set and nulled).
    private func randomChange(_ db: DB, _ rng: inout SeededRandom, people: [Int64], dogs: [Int64]) throws {
        let person = people[Int(rng.next() % UInt64(people.count))]
        let dog = dogs[Int(rng.next() % UInt64(dogs.count))]
        switch rng.next() % 6 {
        case 0, 1: try db.append("Person", person, "dogs", [.link(db.cls("Dog"), dog)])
        case 2:
            let n = try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: person, property: db.pkey("Person", "dogs"))).count()
            if n > 0 { try db.removeElement("Person", person, "dogs", Int(rng.next() % UInt64(n))) }
        case 3: try db.set("Dog", dog, "owner", rng.next() % 4 == 0 ? .null : .link(db.cls("Person"), person))
        case 4:
            let other = people[Int(rng.next() % UInt64(people.count))]
            try db.set("Person", person, "friend", .link(db.cls("Person"), other))
        default:
            _ = try db.setInsert("Person", person, "pets", .link(db.cls("Dog"), dog))
        }
    }

    /// Every stored backlink record of `className`, in order (a read snapshot).
    private func records(_ db: DB, _ className: String) throws -> [[Int64]] {
        guard let dbi = try db.realm.table(db.cls(className)).backlinks else { return [] }
        var all: [[Int64]] = []
        try db.realm.withReadTransaction { (txn) throws(FiefError) in
            try Backlinks.forEachRecord(txn, dbi) { (t, c, p, o, n) throws(FiefError) in all.append([t, Int64(c), Int64(p), o, Int64(n)]) }
        }
        return all
    }

    /// The raw entries (key and value bytes) of the backlinks database of
    /// `classKey` in the closed file at `path`.
    private func rawBacklinks(_ path: String, _ classKey: UInt32) -> [[UInt8]] {
        var entries: [[UInt8]] = []
        withRawLMDB(path, database: Table.backlinksName(classKey), readOnly: true) { txn, dbi in
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                entries.append(Array(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)) + [0xFF]
                               + Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)))
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
        }
        return entries
    }

    private func verifyClean(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        XCTAssertEqual(problems, [], file: file, line: line)
    }

    /// The same random link changes in one transaction and in one
    /// transaction each leave the same backlink records, and both files
    /// verify clean.
    func testOneTransactionLeavesWhatManySmallOnesLeave() throws {
        let dir = tempDir()
        var dumps: [[[Int64]]] = []
        for (n, transactionSize) in [2000, 1].enumerated() {
            let path = dir.file("t\(n).fief")
            let db = try DB.open(path, Self.schema())
            let (people, dogs) = try populate(db, people: 40, dogs: 300)
            var rng = SeededRandom(seed: 21)
            var done = 0
            while done < 2000 {
                try db.write {
                    for _ in 0..<transactionSize { try randomChange(db, &rng, people: people, dogs: dogs) }
                }
                done += transactionSize
            }
            dumps.append(try records(db, "Dog") + [[-1]] + (try records(db, "Person")))
            db.realm.close()
            try verifyClean(path)
        }
        XCTAssertEqual(dumps[0], dumps[1])
        XCTAssertGreaterThan(dumps[0].count, 100)
    }

    /// Links appended in the targets' key order in one transaction or in
    /// one transaction per list leave the same bytes (the runs are filled
    /// the same way).  (Changes in no order leave the same records, as
    /// `testOneTransactionLeavesWhatManySmallOnesLeave` checks, but the
    /// runs may be cut in other places.)
    func testAppendedLinksLeaveTheSameBytes() throws {
        let dir = tempDir()
        var raw: [[[UInt8]]] = []
        for (n, perTransaction) in [500, 1].enumerated() {
            let path = dir.file("a\(n).fief")
            var dogClass: UInt32 = 0
            do {
                let db = try DB.open(path, Self.schema())
                dogClass = db.cls("Dog")
                let (people, dogs) = try populate(db, people: 500, dogs: 5000)
                var p = 0
                while p < people.count {
                    try db.write {
                        for q in p..<min(p + perTransaction, people.count) {
                            try db.append("Person", people[q], "dogs", (0..<10).map { .link(db.cls("Dog"), dogs[q * 10 + $0]) })
                        }
                    }
                    p += perTransaction
                }
                db.realm.close()
            }
            try verifyClean(path)
            raw.append(rawBacklinks(path, dogClass))
        }
        XCTAssert(raw[0] == raw[1], "the backlinks differ: \(raw[0].count) and \(raw[1].count) runs")
        XCTAssertGreaterThan(raw[0].count, 10)
    }

    /// Links added and taken away in the same transaction leave nothing.
    func testLinksAddedThenRemovedLeaveNothing() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema())
        let (people, dogs) = try populate(db, people: 10, dogs: 100)
        try db.write {
            for (i, dog) in dogs.enumerated() {
                try db.append("Person", people[i % 10], "dogs", [.link(db.cls("Dog"), dog)])
                try db.set("Dog", dog, "owner", .link(db.cls("Person"), people[i % 10]))
            }
            for (i, dog) in dogs.enumerated() {
                try db.removeElement("Person", people[i % 10], "dogs", 0)
                try db.set("Dog", dog, "owner", .null)
            }
        }
        XCTAssertEqual(try records(db, "Dog"), [])
        XCTAssertEqual(try records(db, "Person"), [])
        db.realm.close()
        XCTAssertEqual(rawBacklinks(path, try DB.open(path, nil, readOnly: true).cls("Dog")), [])
        try verifyClean(path)
    }

    /// Targets deleted after being linked in the same transaction: their
    /// links go from the lists and the to-one links, and nothing is left
    /// of their records; their referrers' other links stay.
    func testDeletingTargetsLinkedInTheSameTransaction() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema())
        let (people, dogs) = try populate(db, people: 10, dogs: 100)
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        try db.write {
            for (i, dog) in dogs.enumerated() {
                try db.append("Person", people[i % 10], "dogs", [.link(dogClass, dog), .link(dogClass, dogs[(i + 1) % 100])])
                try db.set("Dog", dog, "owner", .link(personClass, people[i % 10]))
            }
            // Every third dog goes, then the first person.
            for dog in dogs where dog % 3 == 0 { try db.delete("Dog", dog) }
            try db.delete("Person", people[0])
            // Inside the transaction: what the buffer and LMDB say together.
            for p in people.dropFirst() {
                let listed = try db.list("Person", p, "dogs")
                XCTAssertFalse(listed.contains { if case .link(_, let k) = $0 { return k % 3 == 0 } else { return false } })
                let owned = try db.realm.linkingObjects(to: p, of: personClass, originClass: dogClass, property: db.pkey("Dog", "owner"))
                XCTAssertEqual(owned, dogs.enumerated().filter { $0.offset % 10 == Int(p - people[0]) && $0.element % 3 != 0 }.map(\.element))
            }
            for dog in dogs where dog % 3 != 0 {
                let owner = try db.get("Dog", dog, "owner")
                if dogs.firstIndex(of: dog)! % 10 == 0 { XCTAssertEqual(owner, .null) } else { XCTAssertNotEqual(owner, .null) }
            }
        }
        for record in try records(db, "Dog") { XCTAssertNotEqual(record[0] % 3, 0) }
        for record in try records(db, "Person") { XCTAssertNotEqual(record[0], people[0]) }
        // Each remaining dog is listed by the lists that hold it, as often.
        for dog in dogs where dog % 3 != 0 {
            let listedBy = try db.realm.linkingObjects(to: dog, of: dogClass, originClass: personClass, property: db.pkey("Person", "dogs"))
            let expected = try people.dropFirst().filter { try db.list("Person", $0, "dogs").contains(.link(dogClass, dog)) }
            XCTAssertEqual(listedBy, Array(expected))
        }
        db.realm.close()
        try verifyClean(path)
    }

    /// Linking objects and their counts, and queries through `@links`,
    /// read inside the write transaction see the buffered changes.
    func testReadsInsideTheTransactionSeeBufferedChanges() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema())
        let (people, dogs) = try populate(db, people: 20, dogs: 200)
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        let owner = db.pkey("Dog", "owner"), listed = db.pkey("Person", "dogs")
        try db.write {
            for (i, dog) in dogs.enumerated() where i % 4 != 0 { try db.set("Dog", dog, "owner", .link(personClass, people[i % 7])) }
        }
        try db.write {
            // Buffered: some owners change, some dogs are listed.
            for (i, dog) in dogs.enumerated() where i % 5 == 0 { try db.set("Dog", dog, "owner", .link(personClass, people[19])) }
            for (i, dog) in dogs.enumerated() where i % 3 == 0 { try db.append("Person", people[i % 11], "dogs", [.link(dogClass, dog)]) }
            func expectedOwner(_ i: Int) -> Int64? { i % 5 == 0 ? people[19] : (i % 4 != 0 ? people[i % 7] : nil) }
            for p in people {
                let owned = dogs.enumerated().filter { expectedOwner($0.offset) == p }.map(\.element)
                XCTAssertEqual(try db.realm.linkingObjects(to: p, of: personClass, originClass: dogClass, property: owner), owned)
                XCTAssertEqual(try db.realm.linkingObjectCount(to: p, of: personClass, originClass: dogClass, property: owner), owned.count)
            }
            for (i, dog) in dogs.enumerated() {
                let by = i % 3 == 0 ? [people[i % 11]] : []
                XCTAssertEqual(try db.realm.linkingObjects(to: dog, of: dogClass, originClass: personClass, property: listed), by)
            }
            // Queries over @links in the transaction.
            let many = people.filter { p in dogs.indices.filter { expectedOwner($0) == p }.count > 10 }
            XCTAssertEqual(try db.keys("Person", "@links.Dog.owner.@count > 10").sorted(), many)
            XCTAssertEqual(try db.keys("Dog", "@links.Person.dogs.@count == 1").sorted(), dogs.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
            XCTAssertEqual(try db.keys("Dog", "ANY @links.Person.dogs.name == 'p3'").sorted(),
                           dogs.enumerated().filter { $0.offset % 3 == 0 && $0.offset % 11 == 3 }.map(\.element))
        }
        db.realm.close()
        try verifyClean(path)
    }

    /// A cancelled transaction's buffered changes are gone: the records
    /// are those of the last commit.
    func testCancelDropsTheBuffer() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema())
        let (people, dogs) = try populate(db, people: 10, dogs: 100)
        try db.write { for (i, dog) in dogs.enumerated() { try db.set("Dog", dog, "owner", .link(db.cls("Person"), people[i % 10])) } }
        let before = (try records(db, "Person"), try records(db, "Dog"))
        try db.realm.beginWrite()
        for (i, dog) in dogs.enumerated() {
            try db.set("Dog", dog, "owner", .link(db.cls("Person"), people[(i + 3) % 10]))
            try db.append("Person", people[i % 10], "dogs", [.link(db.cls("Dog"), dog)])
        }
        try db.delete("Person", people[4])
        db.realm.cancelWrite()
        XCTAssertEqual(try records(db, "Person"), before.0)
        XCTAssertEqual(try records(db, "Dog"), before.1)
        // A transaction after it starts from the commit.
        try db.write { try db.append("Person", people[0], "dogs", [.link(db.cls("Dog"), dogs[0])]) }
        XCTAssertEqual(try records(db, "Dog").count, 1)
        db.realm.close()
        try verifyClean(path)
    }

    /// A budget of a few kilobytes settles the buffer many times in one
    /// transaction; the result is what the default budget leaves.
    func testASmallBudgetSettlesEarlyWithTheSameResult() throws {
        let dir = tempDir()
        var dumps: [[[Int64]]] = []
        let saved = WriteBuffer.defaultBudget
        defer { WriteBuffer.defaultBudget = saved }
        for (n, budget) in [saved, 4096].enumerated() {
            WriteBuffer.defaultBudget = budget
            let path = dir.file("b\(n).fief")
            let db = try DB.open(path, Self.schema())
            let (people, dogs) = try populate(db, people: 60, dogs: 600)
            var rng = SeededRandom(seed: 5)
            try db.write {
                for _ in 0..<6000 { try randomChange(db, &rng, people: people, dogs: dogs) }
                XCTAssertLessThanOrEqual(db.realm.write!.buffer.bytes, max(budget, 1024 * 64) + 1024 * 64)
                for p in people.prefix(5) { try db.delete("Person", p) }
            }
            dumps.append(try records(db, "Dog") + [[-1]] + (try records(db, "Person")))
            db.realm.close()
            try verifyClean(path)
        }
        XCTAssertEqual(dumps[0], dumps[1])
    }

    /// Deleting every person drops the pair (Person, dogs) from the dogs'
    /// backlinks without loading a list, every dog's owner becomes null,
    /// and people made and linked after it in the same transaction keep
    /// their records.
    func testDeletingEveryOwnerDropsThePair() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema())
        let (people, dogs) = try populate(db, people: 30, dogs: 600)
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        try db.write {
            for (i, p) in people.enumerated() {
                try db.append("Person", p, "dogs", (0..<20).map { .link(dogClass, dogs[(i * 20 + $0 * 7) % 600]) })
            }
            for (i, dog) in dogs.enumerated() { try db.set("Dog", dog, "owner", .link(personClass, people[i % 30])) }
        }
        // Another pair of the same class (the set pets) goes by its own path.
        try db.write {
            for (i, p) in people.enumerated() { _ = try db.setInsert("Person", p, "pets", .link(dogClass, dogs[i])) }
        }
        var newcomer: Int64 = 0
        try db.write {
            try db.realm.deleteAll(table: personClass)
            newcomer = try db.create("Person", [("name", .string("late"))])
            try db.append("Person", newcomer, "dogs", [.link(dogClass, dogs[1]), .link(dogClass, dogs[1])])
            XCTAssertEqual(try db.realm.linkingObjects(to: dogs[1], of: dogClass, originClass: personClass, property: db.pkey("Person", "dogs")), [newcomer])
            XCTAssertEqual(try db.keys("Dog", "@links.Person.dogs.@count > 0"), [dogs[1]])
        }
        let left = try records(db, "Dog")
        XCTAssertEqual(left, [[dogs[1], Int64(personClass), Int64(db.pkey("Person", "dogs")), newcomer, 2]])
        XCTAssertEqual(try records(db, "Person"), [])
        for dog in dogs { XCTAssertEqual(try db.get("Dog", dog, "owner"), .null) }
        db.realm.close()
        try verifyClean(path)
    }

    /// Dogs deleted while listed in lists the transaction has not loaded:
    /// loading one of those lists applies only its own removals; the
    /// others are applied at commit; every list and size is right.
    func testLinkRemovalsFromListsNotLoadedArePerList() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema())
        let (people, dogs) = try populate(db, people: 12, dogs: 120)
        let dogClass = db.cls("Dog")
        var expected: [Int64: [TV]] = [:]
        try db.write {
            for (i, p) in people.enumerated() {
                let listed = (0..<30).map { dogs[(i * 13 + $0 * 7) % 120] }
                try db.append("Person", p, "dogs", listed.map { .link(dogClass, $0) })
                expected[p] = listed.filter { $0 % 4 != 1 }.map { .link(dogClass, $0) }
            }
        }
        try db.write {
            for dog in dogs where dog % 4 == 1 { try db.delete("Dog", dog) }
            // One list read in the transaction: its removals only.
            XCTAssertEqual(try db.list("Person", people[5], "dogs"), expected[people[5]])
            XCTAssertEqual(db.realm.write!.buffer.takeLinkRemovals(of: WriteBuffer.ListKey(table: db.cls("Person"), column: db.pkey("Person", "dogs"), owner: people[5])).count, 0)
            XCTAssertTrue(db.realm.write!.buffer.hasLinkRemovals)
            XCTAssertEqual(try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: people[6], property: db.pkey("Person", "dogs"))).count(), expected[people[6]]!.count)
        }
        for p in people { XCTAssertEqual(try db.list("Person", p, "dogs"), expected[p]) }
        db.realm.close()
        try verifyClean(path)
    }

    /// `DeltaTable.sorted()` against a model: each key's changes summed,
    /// zeros left out, in key order; with small keys (the radix sort),
    /// large ones (the comparison sort) and keys already in order.
    func testDeltaTableSortsAndSumsLikeAModel() {
        var rng = SeededRandom(seed: 99)
        for (limit, inOrder) in [(UInt64(300), false), (UInt64.max, false), (UInt64(1) << 40, true)] {
            let table = DeltaTable()
            var model: [[UInt64]: Int32] = [:]
            for i in 0..<20_000 {
                let a = inOrder ? UInt64(i / 4) : rng.next() % limit
                let b = inOrder ? 1 : rng.next() % 3, c = inOrder ? UInt64(i % 4) : rng.next() % 5
                let change: Int32 = rng.next() % 3 == 0 ? -1 : 1
                table.add(a, b, c, change)
                model[[a, b, c], default: 0] += change
            }
            let expected = model.filter { $0.value != 0 }.sorted { ($0.key[0], $0.key[1], $0.key[2]) < ($1.key[0], $1.key[1], $1.key[2]) }
            let got = table.sorted()
            XCTAssertEqual(got.map { [$0.a, $0.b, $0.c] }, expected.map(\.key))
            XCTAssertEqual(got.map(\.change), expected.map(\.value))
            // One `a`'s deltas, summed, as the merged reads take them.
            let some = expected.first!.key[0]
            XCTAssertEqual(table.sorted(a: some).map { [$0.a, $0.b, $0.c] }, expected.filter { $0.key[0] == some }.map(\.key))
        }
    }
}
