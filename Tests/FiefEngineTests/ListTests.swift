import XCTest
@testable import FiefStorage
import Foundation
import CLMDB
@testable import FiefEngine

/// List helpers on the test database wrapper.
extension DB {
    func list(_ className: String, _ key: Int64, _ name: String) throws -> [TV] {
        let table = cls(className), p = pkey(className, name)
        let n = try realm.list(CollectionRef(.list, table: table, owner: key, property: p)).count()
        var out = [Value](repeating: .null, count: n)
        try out.withUnsafeMutableBufferPointer { try realm.list(CollectionRef(.list, table: table, owner: key, property: p)).values(from: 0, into: $0) }
        // Element by element agrees with the range read.
        for i in 0..<n { XCTAssertEqual(TV(try realm.list(CollectionRef(.list, table: table, owner: key, property: p)).value(at: i)), TV(out[i])) }
        return out.map(TV.init)
    }

    func append(_ className: String, _ key: Int64, _ name: String, _ values: [TV]) throws {
        let table = cls(className), p = pkey(className, name)
        try TV.withValues(values) { v in try realm.list(CollectionRef(.list, table: table, owner: key, property: p)).append(UnsafeBufferPointer(v)) }
    }

    func insert(_ className: String, _ key: Int64, _ name: String, _ index: Int, _ value: TV) throws {
        let table = cls(className), p = pkey(className, name)
        try TV.withValues([value]) { v in try realm.list(CollectionRef(.list, table: table, owner: key, property: p)).insert(v[0], at: index) }
    }

    func setElement(_ className: String, _ key: Int64, _ name: String, _ index: Int, _ value: TV) throws {
        let table = cls(className), p = pkey(className, name)
        try TV.withValues([value]) { v in try realm.list(CollectionRef(.list, table: table, owner: key, property: p)).set(v[0], at: index) }
    }

    func removeElement(_ className: String, _ key: Int64, _ name: String, _ index: Int) throws {
        try realm.list(CollectionRef(.list, table: cls(className), owner: key, property: pkey(className, name))).remove(at: index)
    }
}

/// Lists: every operation against an in-memory model, segments cut and
/// renumbered, links with counted backlinks, deleted targets leaving every
/// list, embedded elements, and the errors that change nothing.
final class ListTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string), prop("age", .int)]),
        ("Toy", [prop("label", .string)]),
        ("Person", [prop("name", .string),
                    Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
                    Property(name: "scores", type: .int, collection: .list),
                    Property(name: "tags", type: .string, flags: .nullable, collection: .list),
                    Property(name: "toys", type: .link, linkTarget: "Toy", collection: .list)]),
    ])

    private func backlinkCount(_ db: DB, _ className: String, _ target: Int64) throws -> Int {
        let realm = db.realm
        let table = try realm.table(db.cls(className))
        guard let dbi = table.backlinks else { return 0 }
        var total = 0
        let read: (OpaquePointer) throws -> Void = { txn in
            try Backlinks.forEach(txn, dbi, target: target) { (_, _, _, count) throws(FiefError) in total += Int(count) }
        }
        if let write = realm.write { try Backlinks.settle(write, dbi); try read(write.txn) } else { try read(try realm.currentSnapshot().txn) }
        return total
    }

    /// A realm another realm committed after, frozen: the frozen realm shares
    /// the live one's snapshot, whose lock `listState` held while loading
    /// the list asked for it again (a deadlock on one thread).
    func testListsOfARealmBehindTheNewestCommitAndItsFrozenCopy() throws {
        let dir = tempDir()
        let live = try DB.open(dir.file(), schema)
        let other = try DB.open(dir.file(), schema)
        var owner: Int64 = 0
        try live.write {
            let dog = try live.create("Dog", [("name", .string("Rex"))])
            owner = try live.create("Person", [("name", .string("Ann"))])
            try live.append("Person", owner, "scores", [.int(7), .int(8)])
            try live.append("Person", owner, "dogs", [.link(live.cls("Dog"), dog)])
        }
        for name in ["scores", "dogs"] {
            for throughFrozen in [false, true] {
                _ = try live.realm.refresh()
                XCTAssertGreaterThanOrEqual(try live.count("Person"), 1)   // the live realm reads its snapshot
                try other.write { _ = try other.create("Person", [("name", .string("Bob"))]) }
                let frozen = DB(try live.realm.freeze())
                let reader = throughFrozen ? frozen : live
                // Read on another thread, so a deadlock fails the test instead of hanging it.
                let done = DispatchSemaphore(value: 0)
                let read = Box<Result<[TV], Error>?>(nil)
                let ownerKey = owner
                Thread {
                    read.value = Result { try reader.list("Person", ownerKey, name) }
                    done.signal()
                }.start()
                guard done.wait(timeout: .now() + 20) == .success else {
                    XCTFail("reading '\(name)' through the \(throughFrozen ? "frozen" : "live") realm never returned")
                    return
                }
                XCTAssertEqual(try read.value?.get().count, name == "scores" ? 2 : 1)
                XCTAssertEqual(try (throughFrozen ? live : frozen).list("Person", owner, name).count, name == "scores" ? 2 : 1)
            }
        }
    }

    func testSchemaRulesForLists() throws {
        func refused(_ property: Property, _ fragment: String, line: UInt = #line) {
            let schema = makeSchema([("A", [property])])
            let error = expectError(.invalidSchema, line: line) { try schema.validate() }
            XCTAssertTrue(error?.message.contains(fragment) ?? false, "\(error?.message ?? "")", line: line)
        }
        refused(Property(name: "l", type: .int, flags: .primaryKey, collection: .list), "cannot be a primary key")
        refused(Property(name: "l", type: .int, flags: .indexed, collection: .list), "cannot be indexed")
        refused(Property(name: "l", type: .link, flags: .nullable, linkTarget: "A", collection: .list), "cannot hold null")
        refused(Property(name: "l", type: .link, collection: .list), "has no target class")
        XCTAssertNoThrow(try schema.validate())
    }

    func testEveryOperationMatchesAModel() throws {
        let dir = tempDir()
        let path = dir.file()
        var owner: Int64 = 0
        var model: [Int64] = []
        var rng = SeededRandom(seed: 42)
        do {
            let db = try DB.open(path, schema)
            try db.write { owner = try db.create("Person", [("name", .string("Ann"))]) }
            XCTAssertEqual(try db.list("Person", owner, "scores"), [])
            // Several transactions of random operations, checked after each.
            for round in 0..<30 {
                try db.write {
                    for _ in 0..<200 {
                        let op = rng.next() % 10
                        let v = Int64(rng.next() % 1000) - 500
                        switch op {
                        case 0...3:
                            try db.append("Person", owner, "scores", [.int(v)])
                            model.append(v)
                        case 4, 5:
                            let i = Int(rng.next() % UInt64(model.count + 1))
                            try db.insert("Person", owner, "scores", i, .int(v))
                            model.insert(v, at: i)
                        case 6 where !model.isEmpty:
                            let i = Int(rng.next() % UInt64(model.count))
                            try db.setElement("Person", owner, "scores", i, .int(v))
                            model[i] = v
                        case 7 where !model.isEmpty:
                            let i = Int(rng.next() % UInt64(model.count))
                            try db.removeElement("Person", owner, "scores", i)
                            model.remove(at: i)
                        case 8 where model.count > 1:
                            let a = Int(rng.next() % UInt64(model.count)), b = Int(rng.next() % UInt64(model.count))
                            try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: owner, property: db.pkey("Person", "scores"))).move(from: a, to: b)
                            model.insert(model.remove(at: a), at: b)
                        case 9 where model.count > 1:
                            let a = Int(rng.next() % UInt64(model.count)), b = Int(rng.next() % UInt64(model.count))
                            try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: owner, property: db.pkey("Person", "scores"))).swapAt(a, b)
                            model.swapAt(a, b)
                        default:
                            try db.append("Person", owner, "scores", [.int(v), .int(v + 1)])
                            model += [v, v + 1]
                        }
                    }
                    // Inside the transaction the list is already the model.
                    XCTAssertEqual(try db.list("Person", owner, "scores"), model.map { .int($0) })
                }
                XCTAssertEqual(try db.list("Person", owner, "scores"), model.map { .int($0) }, "round \(round)")
                XCTAssertEqual(try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: owner, property: db.pkey("Person", "scores"))).count(), model.count)
            }
            // Find.
            if let first = model.first {
                let found = try TV.withValues([.int(first)]) { v in
                    try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: owner, property: db.pkey("Person", "scores"))).firstIndex(of: v[0])
                }
                XCTAssertEqual(found, model.firstIndex(of: first))
            }
            db.realm.close()
        }
        let db = try DB.open(path, nil, readOnly: true)
        XCTAssertEqual(try db.list("Person", owner, "scores"), model.map { .int($0) })
        // Segments hold at most 256 elements, in order of position.
        let table = try db.realm.table(db.cls("Person"))
        let dbi = try table.listDatabase(db.pkey("Person", "scores"))
        var counts: [Int] = []
        try ListStore.withSeek(try db.realm.currentSnapshot().txn, dbi, owner: owner, position: 0) { (cursor, first) throws(FiefError) in
            var entry = first
            while let (_, v) = entry { counts.append(Int(v.load(as: UInt8.self)) + 1); entry = try cursor.next() }
        }
        XCTAssertEqual(counts.reduce(0, +), model.count)
        XCTAssertTrue(counts.allSatisfy { $0 <= 256 })
    }

    func testLargeListsAndStrings() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var owner: Int64 = 0
        let n = 20_000
        try db.write {
            owner = try db.create("Person", [("name", .string("Ann"))])
            for i in 0..<n { try db.append("Person", owner, "scores", [.int(Int64(i))]) }
        }
        // One append in a later transaction, then a read of the whole list.
        try db.write { try db.append("Person", owner, "scores", [.int(-1)]) }
        let all = try db.list("Person", owner, "scores")
        XCTAssertEqual(all.count, n + 1)
        XCTAssertEqual(all.first, .int(0))
        XCTAssertEqual(all[n - 1], .int(Int64(n - 1)))
        XCTAssertEqual(all.last, .int(-1))
        // Insert at the front many times: positions before the first segment.
        try db.write { for i in 0..<600 { try db.insert("Person", owner, "scores", 0, .int(Int64(-10 - i))) } }
        XCTAssertEqual(try db.list("Person", owner, "scores").prefix(2), [.int(-609), .int(-608)])
        // Strings, some null and some long: segments cut by bytes.
        let long = String(repeating: "x", count: 3000)
        var model: [TV] = []
        try db.write {
            for i in 0..<300 {
                let v: TV = i % 7 == 0 ? .null : i % 50 == 1 ? .string(long + "\(i)") : .string("tag \(i)")
                try db.append("Person", owner, "tags", [v])
                model.append(v)
            }
        }
        XCTAssertEqual(try db.list("Person", owner, "tags"), model)
        try db.write {
            try db.setElement("Person", owner, "tags", 3, .string("changed"))
            try db.removeElement("Person", owner, "tags", 0)
        }
        model[3] = .string("changed")
        model.remove(at: 0)
        XCTAssertEqual(try db.list("Person", owner, "tags"), model)
    }

    func testLinksInListsKeepBacklinksAndLeaveWhenDeleted() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dog = db.cls("Dog")
        var ann: Int64 = 0, bob: Int64 = 0, rex: Int64 = 0, max: Int64 = 0
        try db.write {
            rex = try db.create("Dog", [("name", .string("Rex"))])
            max = try db.create("Dog", [("name", .string("Max"))])
            ann = try db.create("Person", [("name", .string("Ann"))])
            bob = try db.create("Person", [("name", .string("Bob"))])
            try db.append("Person", ann, "dogs", [.link(dog, rex), .link(dog, max), .link(dog, rex)])
            try db.append("Person", bob, "dogs", [.link(dog, rex)])
        }
        XCTAssertEqual(try backlinkCount(db, "Dog", rex), 3)
        XCTAssertEqual(try backlinkCount(db, "Dog", max), 1)
        // Linking objects through a list: each origin once.
        let linking = try ObjectResults(realm: db.realm, linkingTo: rex, of: dog, originClass: db.cls("Person"), property: db.pkey("Person", "dogs"))
        XCTAssertEqual(try linking.allKeys(), [ann, bob])
        // Replacing and removing elements keeps the counts.
        try db.write {
            try db.setElement("Person", ann, "dogs", 2, .link(dog, max))
            XCTAssertEqual(try backlinkCount(db, "Dog", rex), 2)
            XCTAssertEqual(try backlinkCount(db, "Dog", max), 2)
            try db.removeElement("Person", bob, "dogs", 0)
        }
        XCTAssertEqual(try backlinkCount(db, "Dog", rex), 1)
        // Deleting a dog removes it from every list that held it.
        try db.write { try db.delete("Dog", max) }
        XCTAssertEqual(try db.list("Person", ann, "dogs"), [.link(dog, rex)])
        XCTAssertEqual(try backlinkCount(db, "Dog", max), 0)
        // Deleting the owner releases its elements.
        try db.write { try db.delete("Person", ann) }
        XCTAssertEqual(try backlinkCount(db, "Dog", rex), 0)
        XCTAssertTrue(try db.exists("Dog", rex))
        // Clear with delete: the objects go.
        try db.write {
            try db.append("Person", bob, "dogs", [.link(dog, rex), .link(dog, rex)])
            try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: bob, property: db.pkey("Person", "dogs"))).deleteAllObjects()
        }
        XCTAssertFalse(try db.exists("Dog", rex))
        XCTAssertEqual(try db.list("Person", bob, "dogs"), [])
        // Deleting every dog empties the lists too.
        try db.write {
            let a = try db.create("Dog", [("name", .string("A"))])
            try db.append("Person", bob, "dogs", [.link(dog, a), .link(dog, a)])
            try db.realm.deleteAll(table: dog)
        }
        XCTAssertEqual(try db.list("Person", bob, "dogs"), [])
    }

    func testEmbeddedElements() throws {
        var s = schema
        s.classes[1].isEmbedded = true   // Toy
        let dir = tempDir()
        let db = try DB.open(dir.file(), s)
        let toy = db.cls("Toy"), person = db.cls("Person"), toys = db.pkey("Person", "toys")
        var ann: Int64 = 0
        var made: [Int64] = []
        try db.write {
            ann = try db.create("Person", [("name", .string("Ann"))])
            for i in 0..<3 {
                let (cls, key) = try db.realm.list(CollectionRef(.list, table: person, owner: ann, property: toys)).insertEmbedded(at: i)
                XCTAssertEqual(cls, toy)
                try db.set("Toy", key, "label", .string("toy \(i)"))
                made.append(key)
            }
        }
        XCTAssertEqual(try db.list("Person", ann, "toys"), made.map { .link(toy, $0) })
        // An embedded object is never linked on its own.
        try db.write {
            expectError(.invalidArgument) { try db.append("Person", ann, "toys", [.link(toy, made[0])]) }
            // Removing an element deletes its object.
            try db.removeElement("Person", ann, "toys", 1)
        }
        XCTAssertFalse(try db.exists("Toy", made[1]))
        try db.write { try db.delete("Person", ann) }
        XCTAssertFalse(try db.exists("Toy", made[0]))
        XCTAssertFalse(try db.exists("Toy", made[2]))
    }

    func testBadInputChangesNothing() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dog = db.cls("Dog"), toy = db.cls("Toy")
        var ann: Int64 = 0, rex: Int64 = 0, gone: Int64 = 0, ball: Int64 = 0
        try db.write {
            ann = try db.create("Person", [("name", .string("Ann"))])
            rex = try db.create("Dog", [("name", .string("Rex"))])
            gone = try db.create("Dog", [("name", .string("Gone"))])
            ball = try db.create("Toy", [("label", .string("ball"))])
            try db.append("Person", ann, "scores", [.int(1), .int(2)])
        }
        try db.write { try db.delete("Dog", gone) }
        // Outside a transaction.
        expectError(.notInTransaction) { try db.append("Person", ann, "scores", [.int(3)]) }
        try db.write {
            expectError(.typeMismatch) { try db.append("Person", ann, "scores", [.string("x")]) }
            expectError(.nullNotAllowed) { try db.append("Person", ann, "scores", [.null]) }
            // A bulk append with one bad value appends nothing.
            expectError(.typeMismatch) { try db.append("Person", ann, "scores", [.int(3), .string("x")]) }
            expectError(.indexOutOfBounds) { try db.insert("Person", ann, "scores", 3, .int(0)) }
            expectError(.indexOutOfBounds) { try db.setElement("Person", ann, "scores", 2, .int(0)) }
            expectError(.indexOutOfBounds) { try db.removeElement("Person", ann, "scores", -1) }
            expectError(.noSuchObject) { try db.append("Person", ann, "dogs", [.link(dog, gone)]) }
            expectError(.typeMismatch) { try db.append("Person", ann, "dogs", [.link(toy, ball)]) }
            expectError(.nullNotAllowed) { try db.append("Person", ann, "dogs", [.null]) }
            expectError(.typeMismatch) { try db.append("Person", ann, "tags", [.binary([0xFF])]) }
            expectError(.invalidArgument) { try db.append("Person", ann, "name", [.string("x")]) }
            // A list is not a value.
            expectError(.typeMismatch) { try db.get("Person", ann, "scores") }
            expectError(.typeMismatch) { try db.set("Person", ann, "scores", .int(1)) }
        }
        XCTAssertEqual(try db.list("Person", ann, "scores"), [.int(1), .int(2)])
        XCTAssertEqual(try db.list("Person", ann, "dogs"), [])
        _ = rex
        // Lists are queried element by element, never sorted by.
        XCTAssertEqual(try db.keys("Person", "scores == 1"), [ann])
        expectError(.queryInvalid) { try db.results("Person").sorted(by: [("scores", true)]) }
    }

    func testCancelledChangesLeaveNothing() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var ann: Int64 = 0
        try db.write {
            ann = try db.create("Person", [("name", .string("Ann"))])
            try db.append("Person", ann, "scores", [.int(1)])
        }
        try db.realm.beginWrite()
        try db.append("Person", ann, "scores", [.int(2), .int(3)])
        try db.removeElement("Person", ann, "scores", 0)
        db.realm.cancelWrite()
        XCTAssertEqual(try db.list("Person", ann, "scores"), [.int(1)])
    }
    func testVerifyAndCopyKeepLists() throws {
        let dir = tempDir()
        let path = dir.file()
        let dog: UInt32
        var ann: Int64 = 0, bob: Int64 = 0, dogs: [Int64] = []
        var scores: [TV] = []
        do {
            let db = try DB.open(path, schema)
            dog = db.cls("Dog")
            try db.write {
                for i in 0..<5 { dogs.append(try db.create("Dog", [("name", .string("d\(i)"))])) }
                ann = try db.create("Person", [("name", .string("Ann"))])
                bob = try db.create("Person", [("name", .string("Bob"))])
                scores = (0..<700).map { .int(Int64($0 * 3)) }
                try db.append("Person", ann, "scores", scores)
                try db.append("Person", ann, "tags", [.string("a"), .null, .string(String(repeating: "q", count: 2000))])
                try db.append("Person", ann, "dogs", [.link(dog, dogs[0]), .link(dog, dogs[1]), .link(dog, dogs[0])])
                try db.append("Person", bob, "dogs", [.link(dog, dogs[2])])
            }
            db.realm.close()
        }
        var lines: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { _, line in lines.append(line) }, 0, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains("list 'scores': 1 lists, 700 elements") }, lines.joined(separator: "\n"))
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try FileCheck.verify(path: copy) { _, _ in }, 0)
        do {
            let db = try DB.open(copy, nil, readOnly: true)
            XCTAssertEqual(try db.list("Person", ann, "scores"), scores)
            XCTAssertEqual(try db.list("Person", ann, "dogs"), [.link(dog, dogs[0]), .link(dog, dogs[1]), .link(dog, dogs[0])])
            XCTAssertEqual(try backlinkCount(db, "Dog", dogs[0]), 2)
            XCTAssertEqual(try db.list("Person", ann, "tags").count, 3)
            db.realm.close()
        }
        // A damaged segment: reported by verify, reads fail clearly, and a
        // copy keeps the rest of the list with its size right.
        let classKey = try DB.open(path, nil, readOnly: true).cls("Person")
        let column = try DB.open(path, nil, readOnly: true).pkey("Person", "scores")
        withRawLMDB(path, database: Table.listName(classKey, column)) { txn, dbi in
            var cursor: OpaquePointer?
            mdb_cursor_open(txn, dbi, &cursor)
            var k = MDB_val(), v = MDB_val()
            XCTAssertEqual(mdb_cursor_get(cursor, &k, &v, MDB_FIRST), 0)
            var bytes = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
            bytes[20] ^= 0xFF
            bytes.withUnsafeMutableBytes { raw in
                var nv = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                XCTAssertEqual(mdb_cursor_put(cursor, &k, &nv, UInt32(MDB_CURRENT)), 0)
            }
            mdb_cursor_close(cursor)
        }
        lines = []
        XCTAssertGreaterThan(try FileCheck.verify(path: path) { _, line in lines.append(line) }, 0)
        XCTAssertTrue(lines.contains { $0.contains("list 'scores' of object \(ann): a segment is damaged") }, lines.joined(separator: "\n"))
        do {
            let db = try DB.open(path, nil, readOnly: true)
            let error = expectError(.fileCorrupt) { try db.list("Person", ann, "scores") }
            XCTAssertTrue(error?.message.contains("'Person.scores' of object \(ann) is damaged") ?? false, error?.message ?? "")
            db.realm.close()
        }
        let salvaged = dir.file("salvaged.fief")
        XCTAssertGreaterThan(try FileCopy.copy(from: path, to: salvaged) { _, _ in }, 0)
        XCTAssertEqual(try FileCheck.verify(path: salvaged) { _, _ in }, 0)
        let db = try DB.open(salvaged, nil, readOnly: true)
        XCTAssertEqual(try db.list("Person", ann, "scores"), Array(scores[256...]))
    }
    /// Lists a copy cannot read whole: a page of the list tree damaged (the
    /// sound pages' segments are copied), every segment of one list gone,
    /// the whole list database gone.  Sizes count what was copied.
    func testCopySalvagesListTreesAndFixesSizes() throws {
        let dir = tempDir()
        let made = dir.file("made.fief"), original = dir.file("original.fief")
        var owners: [Int64] = []
        do {
            let db = try DB.open(made, schema)
            try db.write {
                for i in 0..<40 {
                    let o = try db.create("Person", [("name", .string("p\(i)"))])
                    owners.append(o)
                    try db.append("Person", o, "tags", (0..<300).map { .string(i == 20 && $0 == 5 ? "needle" : "element \($0) of \(i)") })
                    try db.append("Person", o, "scores", [.int(Int64(i))])
                }
            }
            db.realm.close()
        }
        XCTAssertEqual(try FileCopy.copy(from: made, to: original) { _, _ in }, 0)
        let (classKey, tags, scores) = try { () throws -> (UInt32, UInt32, UInt32) in
            let db = try DB.open(original, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("Person"), db.pkey("Person", "tags"), db.pkey("Person", "scores"))
        }()
        func sizesAgree(_ path: String, line: UInt = #line) throws -> Int {
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            var elements = 0
            for o in owners { elements += try db.list("Person", o, "tags").count }
            XCTAssertEqual(try db.list("Person", owners[3], "scores"), [.int(3)], line: line)
            return elements
        }

        // A damaged page of the tags' tree.
        let paged = dir.file("paged.fief")
        XCTAssertEqual(try FileCopy.copy(from: original, to: paged) { _, _ in }, 0)
        damagePage(holding: "needle", in: paged)
        var problems: [String] = []
        XCTAssertEqual(try FileCopy.copy(from: paged, to: dir.file("paged-copy.fief")) { kind, text in if kind == .problem { problems.append(text) } }, 1)
        XCTAssertTrue(problems[0].hasPrefix("class 'Person': list 'tags': its pages are damaged"), "\(problems)")
        try assertVerifies(dir.file("paged-copy.fief"))
        let kept = try sizesAgree(dir.file("paged-copy.fief"))
        XCTAssertTrue(kept > 10_000 && kept < 12_000, "\(kept) of 12,000 elements kept")

        // Every segment of one list deleted: verify sees its size; the copy fixes it.
        let emptied = dir.file("emptied.fief")
        XCTAssertEqual(try FileCopy.copy(from: original, to: emptied) { _, _ in }, 0)
        withRawLMDB(emptied, database: Table.listName(classKey, scores)) { txn, dbi in
            var key = (UInt64(0), UInt64(0))
            withUnsafeMutableBytes(of: &key) { kb in
                ListStore.key(kb.baseAddress!, owner: owners[7], position: 0)
                var k = MDB_val(mv_size: 16, mv_data: kb.baseAddress), v = MDB_val()
                var cursor: OpaquePointer?
                mdb_cursor_open(txn, dbi, &cursor)
                XCTAssertEqual(mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE), 0)
                XCTAssertEqual(mdb_cursor_del(cursor, 0), 0)
                mdb_cursor_close(cursor)
            }
        }
        problems = []
        XCTAssertEqual(try FileCheck.verify(path: emptied) { kind, text in if kind == .problem { problems.append(text) } }, 1)
        XCTAssertEqual(problems, ["class 'Person': list 'scores' of object \(owners[7]) holds no elements, but its size says 1"])
        problems = []
        XCTAssertEqual(try FileCopy.copy(from: emptied, to: dir.file("emptied-copy.fief")) { kind, text in if kind == .problem { problems.append(text) } }, 1)
        XCTAssertEqual(problems, ["class 'Person': list 'scores': 1 sizes did not match what is stored (object \(owners[7])'s said 1, 0 found): copied as what is stored"])
        try assertVerifies(dir.file("emptied-copy.fief"))
        XCTAssertEqual(try sizesAgree(dir.file("emptied-copy.fief")), 12_000)

        // The whole tags database dropped: every list copied empty.
        let dropped = dir.file("dropped.fief")
        XCTAssertEqual(try FileCopy.copy(from: original, to: dropped) { _, _ in }, 0)
        withRawLMDB(dropped, database: Table.listName(classKey, tags)) { txn, dbi in XCTAssertEqual(mdb_drop(txn, dbi, 1), 0) }
        problems = []
        XCTAssertEqual(try FileCopy.copy(from: dropped, to: dir.file("dropped-copy.fief")) { kind, text in if kind == .problem { problems.append(text) } }, 1)
        XCTAssertEqual(problems, ["class 'Person': list 'tags': its elements are missing: its lists are copied empty"])
        try assertVerifies(dir.file("dropped-copy.fief"))
        XCTAssertEqual(try sizesAgree(dir.file("dropped-copy.fief")), 0)
    }

    func testListsAsLiveResults() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dog = db.cls("Dog"), person = db.cls("Person"), dogsKey = db.pkey("Person", "dogs")
        var ann: Int64 = 0, d: [Int64] = []
        try db.write {
            for (name, age) in [("Rex", 5), ("Max", 2), ("Bo", 9), ("Al", 2)] {
                d.append(try db.create("Dog", [("name", .string(name)), ("age", .int(Int64(age)))]))
            }
            ann = try db.create("Person", [("name", .string("Ann"))])
            try db.append("Person", ann, "dogs", [.link(dog, d[2]), .link(dog, d[0]), .link(dog, d[1]), .link(dog, d[0])])
        }
        let all = try ObjectResults(realm: db.realm, list: dogsKey, of: ann, in: person)
        XCTAssertEqual(try all.allKeys(), [d[2], d[0], d[1], d[0]])
        let young = try all.filtered("age < 6", arguments: [])
        XCTAssertEqual(try young.allKeys(), [d[0], d[1], d[0]])
        XCTAssertEqual(try young.count(), 3)
        let byAge = try all.sorted(by: [("age", true)])
        XCTAssertEqual(try byAge.allKeys(), [d[1], d[0], d[0], d[2]])
        XCTAssertEqual(try all.index(of: d[1]), 2)
        // Live: a list change and an object change both show.
        try db.write {
            try db.append("Person", ann, "dogs", [.link(dog, d[3])])
            try db.set("Dog", d[2], "age", .int(1))
        }
        XCTAssertEqual(try young.allKeys(), [d[2], d[0], d[1], d[0], d[3]])
        XCTAssertEqual(try byAge.allKeys(), [d[2], d[1], d[3], d[0], d[0]])
        // Deleting through the results deletes each object once, and the list empties.
        try db.write { try young.filtered("age == 5", arguments: []).deleteAll() }
        XCTAssertEqual(try all.allKeys(), [d[2], d[1], d[3]])
        XCTAssertEqual(try db.count("Dog"), 3)
        // A list of values is not a list of objects.
        expectError(.invalidArgument) { try ObjectResults(realm: db.realm, list: db.pkey("Person", "scores"), of: ann, in: person) }
    }
    func testDeleteEverythingWithListsBothWays() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, schema)
            let dog = db.cls("Dog")
            try db.write {
                let rex = try db.create("Dog", [("name", .string("Rex"))])
                let ann = try db.create("Person", [("name", .string("Ann"))])
                try db.append("Person", ann, "dogs", [.link(dog, rex), .link(dog, rex)])
                try db.append("Person", ann, "scores", [.int(1)])
            }
            try db.write { try db.realm.deleteAll() }
            XCTAssertEqual(try db.count("Person"), 0)
            XCTAssertEqual(try db.count("Dog"), 0)
            // And again with data made in the same transaction as the delete.
            try db.write {
                let rex = try db.create("Dog", [("name", .string("Rex"))])
                let ann = try db.create("Person", [("name", .string("Ann"))])
                try db.append("Person", ann, "dogs", [.link(dog, rex)])
                try db.realm.deleteAll()
                let bob = try db.create("Person", [("name", .string("Bob"))])
                let max = try db.create("Dog", [("name", .string("Max"))])
                try db.append("Person", bob, "dogs", [.link(dog, max)])
            }
            XCTAssertEqual(try db.count("Person"), 1)
            db.realm.close()
        }
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)
    }

    private func problems(_ path: String) throws -> [String] {
        var found: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { found.append(text) } }
        return found
    }

    /// Deleting listed objects: lists this transaction has not loaded lose
    /// them at commit; reading, changing or deleting such a list first, in
    /// the same transaction, sees it without them.  Checked against a model,
    /// with `fief verify` after every transaction.
    func testDeletingListedObjectsMatchesAModel() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, schema)
        let dog = db.cls("Dog"), person = db.cls("Person"), dogsKey = db.pkey("Person", "dogs")
        var rng = SeededRandom(seed: 42)
        var alive: [Int64] = [], people: [Int64] = []
        var model: [Int64: [Int64]] = [:]
        try db.write {
            for i in 0..<300 { alive.append(try db.create("Dog", [("name", .string("d\(i)"))])) }
            for i in 0..<80 {
                let owner = try db.create("Person", [("name", .string("p\(i)"))])
                // The first list has several segments.
                let n = i == 0 ? 900 : Int(rng.next() % 14)
                let listed = (0..<n).map { _ in alive[Int(rng.next() % UInt64(alive.count))] }
                try db.append("Person", owner, "dogs", listed.map { .link(dog, $0) })
                people.append(owner)
                model[owner] = listed
            }
        }
        func expected(_ owner: Int64) -> [TV] { model[owner]!.map { .link(dog, $0) } }
        for round in 0..<10 {
            try db.write {
                for _ in 0..<30 {
                    let owner = people[Int(rng.next() % UInt64(people.count))]
                    switch rng.next() % 8 {
                    case 0, 1, 2, 3:
                        guard !alive.isEmpty else { break }
                        let victim = alive.remove(at: Int(rng.next() % UInt64(alive.count)))
                        try db.delete("Dog", victim)
                        for (key, listed) in model { model[key] = listed.filter { $0 != victim } }
                    case 4:
                        guard model[owner] != nil else { break }
                        XCTAssertEqual(try db.realm.list(CollectionRef(.list, table: person, owner: owner, property: dogsKey)).count(), model[owner]!.count)
                    case 5:
                        guard model[owner] != nil else { break }
                        XCTAssertEqual(try db.list("Person", owner, "dogs"), expected(owner))
                    case 6:
                        guard model[owner] != nil, !alive.isEmpty else { break }
                        let added = alive[Int(rng.next() % UInt64(alive.count))]
                        try db.append("Person", owner, "dogs", [.link(dog, added)])
                        model[owner]!.append(added)
                    default:
                        guard model[owner] != nil, round % 3 == 2 else { break }
                        try db.delete("Person", owner)
                        model[owner] = nil
                    }
                }
            }
            for owner in people where model[owner] != nil {
                XCTAssertEqual(try db.list("Person", owner, "dogs"), expected(owner), "round \(round), owner \(owner)")
            }
            XCTAssertEqual(try problems(path), [], "round \(round)")
        }
        // A cancelled transaction changes nothing.
        let listedOwner = people.first { !(model[$0]?.isEmpty ?? true) }!
        let before = try db.list("Person", listedOwner, "dogs")
        try db.realm.beginWrite()
        try db.delete("Dog", model[listedOwner]![0])
        db.realm.cancelWrite()
        XCTAssertEqual(try db.list("Person", listedOwner, "dogs"), before)
        // A list emptied by deletions whose owner then goes, in one transaction, leaves nothing stored.
        var rex: Int64 = 0, ann: Int64 = 0
        try db.write {
            rex = try db.create("Dog", [("name", .string("Rex"))])
            ann = try db.create("Person", [("name", .string("Ann"))])
            try db.append("Person", ann, "dogs", [.link(dog, rex), .link(dog, rex)])
        }
        try db.write {
            try db.delete("Dog", rex)
            XCTAssertEqual(try db.realm.list(CollectionRef(.list, table: person, owner: ann, property: dogsKey)).count(), 0)
            try db.delete("Person", ann)
        }
        XCTAssertEqual(try problems(path), [])
        db.realm.close()
    }

    /// `fief copy` of a file that lost its lists: every list whose elements
    /// are gone is copied empty (its size 0), so the copy reads and verifies.
    func testCopyOfAFileWhoseListsAreMissing() throws {
        let dir = tempDir()
        let path = dir.file()
        var rex: Int64 = 0, ann: Int64 = 0, bob: Int64 = 0
        var person: UInt32 = 0, dogsKey: UInt32 = 0, scoresKey: UInt32 = 0
        do {
            let db = try DB.open(path, schema)
            let dog = db.cls("Dog")
            person = db.cls("Person")
            dogsKey = db.pkey("Person", "dogs")
            scoresKey = db.pkey("Person", "scores")
            try db.write {
                rex = try db.create("Dog", [("name", .string("Rex"))])
                ann = try db.create("Person", [("name", .string("Ann"))])
                bob = try db.create("Person", [("name", .string("Bob"))])
                try db.append("Person", ann, "dogs", [.link(dog, rex), .link(dog, rex)])
                try db.append("Person", bob, "dogs", [.link(dog, rex)])
                try db.append("Person", ann, "scores", [.int(1), .int(2), .int(3)])
                try db.append("Person", bob, "scores", [.int(4)])
            }
            db.realm.close()
        }
        // The database of the lists 'dogs' is dropped with LMDB itself.
        withRawLMDB(path, database: Table.listName(person, dogsKey)) { txn, dbi in
            XCTAssertEqual(mdb_drop(txn, dbi, 1), 0)
        }
        XCTAssertTrue(try problems(path).contains { $0.contains("list 'dogs': its elements are missing") })
        let copy = dir.file("copy.fief")
        var reported: [String] = []
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { kind, text in if kind == .problem { reported.append(text) } }, 1)
        XCTAssertTrue(reported.contains { $0.contains("list 'dogs': its elements are missing: its lists are copied empty") }, "\(reported)")
        XCTAssertEqual(try problems(copy), [])
        do {
            let db = try DB.open(copy, nil, readOnly: true)
            XCTAssertEqual(try db.list("Person", ann, "dogs"), [])
            XCTAssertEqual(try db.list("Person", bob, "dogs"), [])
            XCTAssertEqual(try db.list("Person", ann, "scores"), [.int(1), .int(2), .int(3)])
            XCTAssertEqual(try backlinkCount(db, "Dog", rex), 0)
            db.realm.close()
        }
        // One list's segments deleted, its database kept: verify names the
        // list, and the copy holds it empty too.
        withRawLMDB(path, database: Table.listName(person, scoresKey)) { txn, dbi in
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                let owner = Int64(bitPattern: UInt64(bigEndian: k.mv_data.loadUnaligned(as: UInt64.self)))
                if owner == bob { XCTAssertEqual(mdb_cursor_del(cursor, 0), 0); rc = mdb_cursor_get(cursor, &k, &v, MDB_GET_CURRENT) }
                else { rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT) }
            }
            mdb_cursor_close(cursor)
        }
        XCTAssertTrue(try problems(path).contains { $0.contains("list 'scores' of object \(bob) holds no elements, but its size says 1") })
        let copy2 = dir.file("copy2.fief")
        reported = []
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy2) { kind, text in if kind == .problem { reported.append(text) } }, 2)
        XCTAssertTrue(reported.contains { $0.contains("list 'scores': 1 sizes did not match what is stored") }, "\(reported)")
        XCTAssertEqual(try problems(copy2), [])
        let db = try DB.open(copy2, schema)
        XCTAssertEqual(try db.list("Person", bob, "scores"), [])
        XCTAssertEqual(try db.list("Person", ann, "scores"), [.int(1), .int(2), .int(3)])
        // The copy's lists take new elements.
        try db.write { try db.append("Person", bob, "dogs", [.link(db.cls("Dog"), rex)]) }
        XCTAssertEqual(try backlinkCount(db, "Dog", rex), 1)
        db.realm.close()
        XCTAssertEqual(try problems(copy2), [])
    }
}
