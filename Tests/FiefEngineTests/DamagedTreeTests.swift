import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Damage that every entry's own check passes: a page of a tree found in
/// another page's place (a lost write), an entry lost behind its owner's
/// size column, a set element under another element's key, and a copy
/// that nulls a value in a column stored in parts.  Each is
/// FIEF_ERR_FILE_CORRUPT for whatever reads it (never another value),
/// a problem for verify, and a copy that verifies clean.
final class DamagedTreeTests: XCTestCase {
    private func problems(_ path: String) throws -> [String] {
        var found: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { found.append(text) } }
        return found
    }

    private func readBytes(_ path: String) -> [UInt8] {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
    }

    /// The first leaf page (LMDB's flags: a leaf) holding `needle`.
    private func page(holding needle: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(needle.utf8)
        return (0...(bytes.count - pattern.count)).first {
            bytes[$0 / 4096 * 4096 + 10] == 2 && bytes[$0 / 4096 * 4096 + 11] == 0 && bytes[$0..<($0 + pattern.count)].elementsEqual(pattern)
        }.map { $0 / 4096 }
    }

    /// The content of the leaf holding "zzz-needle" written over the leaf
    /// holding "aaa-needle" (its page number kept): LMDB would look for
    /// "aaa-needle" there and not find it.  The page check finds the keys out
    /// of their place: the class fails, its copy verifies and keeps the rest.
    func testAPageFoundInAnotherPagesPlaceIsDamage() throws {
        let dir = tempDir()
        let made = dir.file("made.fief"), path = dir.file("compact.fief")
        var owner: Int64 = 0
        let all = (0..<2000).map { $0 == 100 ? "aaa-needle" : $0 == 1900 ? "zzz-needle" : "element \($0) " + String(repeating: "p", count: $0 % 20) }
        do {
            let db = try DB.open(made, makeSchema([("A", [prop("n", .int), Property(name: "s", type: .string, collection: .set)])]))
            owner = try db.write { () throws -> Int64 in
                let o = try db.create("A", [("n", .int(7))])
                for e in all { try db.setInsert("A", o, "s", .string(e)) }
                return o
            }
            XCTAssertTrue(try db.setContains("A", owner, "s", .string("aaa-needle")))
            db.realm.close()
        }
        XCTAssertEqual(try FileCopy.copy(from: made, to: path) { _, _ in }, 0)
        var bytes = readBytes(path)
        guard let lost = page(holding: "aaa-needle", in: bytes), let stale = page(holding: "zzz-needle", in: bytes) else { return XCTFail("pages not found") }
        XCTAssertNotEqual(lost, stale)
        for i in 8..<4096 { bytes[lost * 4096 + i] = bytes[stale * 4096 + i] }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))

        let found = try problems(path)
        XCTAssertTrue(found.contains { $0.contains(".s") && $0.contains("out of order or out of place") }, "\(found)")
        let db = try DB.open(path, nil, readOnly: true)
        expectError(.fileCorrupt) { try db.setContains("A", owner, "s", .string("aaa-needle")) }
        expectError(.fileCorrupt) { try db.set("A", owner, "s").count }
        // A class one of whose trees is damaged fails every use (`PageCheck`).
        expectError(.fileCorrupt) { try db.get("A", owner, "n") }
        db.realm.close()

        let salvaged = dir.file("salvaged.fief")
        XCTAssertGreaterThan(try FileCopy.copy(from: path, to: salvaged) { _, _ in }, 0)
        try assertVerifies(salvaged)
        let copy = try DB.open(salvaged, nil, readOnly: true)
        let kept = try copy.set("A", owner, "s")
        XCTAssertFalse(kept.contains(.string("aaa-needle")))
        XCTAssertEqual(try copy.get("A", owner, "n"), .int(7))
        XCTAssertEqual(kept, all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { TV.string($0) }.filter { kept.contains($0) })
        copy.realm.close()
    }

    /// A leaf holding one entry fewer than it did (an older copy of it, its
    /// keys in their place): the tree's record counts more entries than its
    /// pages hold, so the page check finds it (seed 23 case 689 of the graph
    /// damage test: an empty leaf in the place of a backlinks tree's root).
    func testALeafHoldingFewerEntriesThanItsTreeCountsIsDamage() throws {
        let dir = tempDir()
        let made = dir.file("made.fief"), path = dir.file("compact.fief")
        var owner: Int64 = 0
        let all = (0..<2000).map { $0 == 100 ? "aaa-needle" : "element \($0) " + String(repeating: "p", count: $0 % 20) }
        do {
            let db = try DB.open(made, makeSchema([("A", [prop("n", .int), Property(name: "s", type: .string, collection: .set)])]))
            owner = try db.write { () throws -> Int64 in
                let o = try db.create("A", [("n", .int(7))])
                for e in all { try db.setInsert("A", o, "s", .string(e)) }
                return o
            }
            db.realm.close()
        }
        XCTAssertEqual(try FileCopy.copy(from: made, to: path) { _, _ in }, 0)
        var bytes = readBytes(path)
        guard let leaf = page(holding: "aaa-needle", in: bytes) else { return XCTFail("page not found") }
        // The page's node count (from its lower bound) one less: its last entry gone.
        let lower = Int(bytes[leaf * 4096 + 12]) | Int(bytes[leaf * 4096 + 13]) << 8
        bytes[leaf * 4096 + 12] = UInt8((lower - 2) & 0xff)
        bytes[leaf * 4096 + 13] = UInt8((lower - 2) >> 8)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))

        let found = try problems(path)
        XCTAssertTrue(found.contains { $0.contains(".s") && $0.contains("entries, its pages hold") }, "\(found)")
        let db = try DB.open(path, nil, readOnly: true)
        expectError(.fileCorrupt) { try db.set("A", owner, "s").count }
        expectError(.fileCorrupt) { try db.get("A", owner, "n") }
        db.realm.close()
        let salvaged = dir.file("salvaged.fief")
        XCTAssertGreaterThan(try FileCopy.copy(from: path, to: salvaged) { _, _ in }, 0)
        try assertVerifies(salvaged)
    }

    /// An entry of a set and of a map gone while the owner's size column
    /// still counts it: a query's walk over them fails, as the collection's
    /// own reads do, instead of answering without it.
    func testAnEntryLostBehindTheSizeColumnFailsQueries() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("n", .int), Property(name: "tags", type: .string, collection: .set),
                                        Property(name: "scores", type: .int, collection: .map)])])
        var owners: [Int64] = []
        do {
            let db = try DB.open(path, schema)
            try db.write {
                for i in 0..<3 {
                    let o = try db.create("A", [("n", .int(Int64(i)))])
                    for t in ["ember", "river", "stone"] { try db.setInsert("A", o, "tags", .string(t)) }
                    for (k, v) in [("a", 5), ("b", 950), ("c", 7)] { try db.mapSet("A", o, "scores", k, .int(Int64(v))) }
                    owners.append(o)
                }
            }
            XCTAssertEqual(try db.keys("A", "ANY tags == 'river'").count, 3)
            XCTAssertEqual(try db.keys("A", "ANY scores > 900").count, 3)
            db.realm.close()
        }
        let (cls, tags, scores) = try { () throws -> (UInt32, UInt32, UInt32) in
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("A"), db.pkey("A", "tags"), db.pkey("A", "scores"))
        }()
        // Owner 1 loses "river" from its set and "b" from its map.
        var setKey: [UInt8] = []
        TV.withValues([.string("river")]) { v in _ = SetStore.encode(v[0], owner: owners[1], into: &setKey) }
        var mapKey: [UInt8] = []
        Array("b".utf8).withUnsafeBytes { MapStore.encode(owner: owners[1], key: $0, into: &mapKey) }
        for (name, key) in [(Table.setName(cls, tags), setKey), (Table.mapName(cls, scores), mapKey)] {
            withRawLMDB(path, database: name) { txn, dbi in
                var key = key
                key.withUnsafeMutableBytes { kb in
                    var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress)
                    XCTAssertEqual(mdb_del(txn, dbi, &k, nil), 0)
                }
            }
        }
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        expectError(.fileCorrupt) { try db.keys("A", "ANY tags == 'river'") }
        expectError(.fileCorrupt) { try db.keys("A", "ANY scores > 900") }
        expectError(.fileCorrupt) { try db.set("A", owners[1], "tags") }
        XCTAssertEqual(try db.set("A", owners[0], "tags"), [.string("ember"), .string("river"), .string("stone")])
        let found = try problems(path).joined(separator: "\n")
        XCTAssertTrue(found.contains("tags") && found.contains("scores"), found)
    }

    /// A set of mixed values whose entry for 2.5 is found under the key of
    /// 3.5 (a flipped bit in a key): reading the element fails instead of
    /// giving 2.5 where the set's order and lookups have 3.5.
    func testASetElementUnderAnotherElementsKeyIsDamage() throws {
        let dir = tempDir()
        let path = dir.file()
        var owner: Int64 = 0
        do {
            let db = try DB.open(path, makeSchema([("A", [Property(name: "m", type: .mixed, collection: .set)])]))
            owner = try db.write { () throws -> Int64 in
                let o = try db.create("A", [])
                for v: TV in [.int(1), .double(2.5), .string("x")] { try db.setInsert("A", o, "m", v) }
                return o
            }
            db.realm.close()
        }
        let (cls, m) = try { () throws -> (UInt32, UInt32) in
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("A"), db.pkey("A", "m"))
        }()
        var from: [UInt8] = [], to: [UInt8] = []
        TV.withValues([.double(2.5), .double(3.5)]) { v in
            SetStore.encode(v[0], owner: owner, mixed: true, into: &from)
            SetStore.encode(v[1], owner: owner, mixed: true, into: &to)
        }
        withRawLMDB(path, database: Table.setName(cls, m)) { txn, dbi in
            from.withUnsafeMutableBytes { fb in
                to.withUnsafeMutableBytes { tb in
                    var k = MDB_val(mv_size: fb.count, mv_data: fb.baseAddress), v = MDB_val()
                    XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                    // Sealed again under its new key (format 10): the seal holds, the key is not its value's.
                    let body = EntrySeal.open(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), table: cls, database: m, key: UnsafeRawBufferPointer(fb))!
                    var data = EntrySeal.sealed(body, table: cls, database: m, key: UnsafeRawBufferPointer(tb))
                    XCTAssertEqual(mdb_del(txn, dbi, &k, nil), 0)
                    data.withUnsafeMutableBytes { db in
                        var nk = MDB_val(mv_size: tb.count, mv_data: tb.baseAddress), nv = MDB_val(mv_size: db.count, mv_data: db.baseAddress)
                        XCTAssertEqual(mdb_put(txn, dbi, &nk, &nv, 0), 0)
                    }
                }
            }
        }
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        XCTAssertEqual(try db.realm.set(db.ref("A", owner, "m")).count(), 3)
        XCTAssertEqual(TV(try db.realm.set(db.ref("A", owner, "m")).value(at: 0)), .int(1))
        expectError(.fileCorrupt) { try db.realm.set(db.ref("A", owner, "m")).value(at: 1) }
        expectError(.fileCorrupt) { try db.keys("A", "ANY m == 2.5") }
        let found = try problems(path)
        XCTAssertTrue(found.contains { $0.contains("not stored under its key") }, "\(found)")
    }

    /// A copy that nulls a mixed value (its nested collection is lost) in
    /// a column stored in parts: the nulled chunk is cut anew, and the old
    /// parts go, so the copy verifies clean.
    func testACopyNullingAValueOfAChunkInPartsVerifies() throws {
        let dir = tempDir()
        let path = dir.file()
        var keys: [Int64] = []
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("mix", .mixed, .nullable)])]))
            try db.write {
                for i in 0..<256 {
                    let value: TV = i == 3 ? .nestedDict(0) : .string(String(repeating: "v", count: 20 + i % 7))
                    keys.append(try db.create("A", [("mix", value)]))
                }
            }
            db.realm.close()
        }
        let cls = try { () throws -> UInt32 in
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            guard case .nestedDict = try db.get("A", keys[3], "mix") else { XCTFail("no dictionary"); return 0 }
            return db.cls("A")
        }()
        // The nested dictionary's header goes: the value holding it is lost.
        withRawLMDB(path, database: Table.nestedName(cls)) { txn, dbi in
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            var start = NestedStore.headerBit.bigEndian
            withUnsafeMutableBytes(of: &start) { sb in
                var k = MDB_val(mv_size: 8, mv_data: sb.baseAddress), v = MDB_val()
                XCTAssertEqual(mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE), 0)
                XCTAssertEqual(mdb_cursor_del(cursor, 0), 0)
            }
            mdb_cursor_close(cursor)
        }
        XCTAssertFalse(try problems(path).isEmpty)
        let copy = dir.file("copy.fief")
        XCTAssertGreaterThan(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        try assertVerifies(copy)
        let db = try DB.open(copy, nil, readOnly: true)
        defer { db.realm.close() }
        XCTAssertEqual(try db.get("A", keys[3], "mix"), .null)
        XCTAssertEqual(try db.get("A", keys[200], "mix"), .string(String(repeating: "v", count: 20 + 200 % 7)))
    }
    /// A run of another class's backlinks found in this class's (a page of
    /// `c<Dog>.b` in place of one of `c<Person>.b`: every run's checksum
    /// passes, its key lies in the bounds): linking objects read through it
    /// fail, since its (class, property) pairs cannot link to a person.
    func testABacklinkRunOfAnotherClassIsDamage() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([
            ("Person", [Property(name: "pet", type: .link, flags: .nullable, linkTarget: "Dog")]),
            ("Dog", [Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
        var people: [Int64] = []
        do {
            let db = try DB.open(path, schema)
            try db.write {
                for _ in 0..<3 {
                    let person = try db.create("Person", [])
                    let dog = try db.create("Dog", [("owner", .link(db.cls("Person"), person))])
                    try db.set("Person", person, "pet", .link(db.cls("Dog"), dog))
                    people.append(person)
                }
            }
            XCTAssertEqual(try db.realm.linkingObjects(to: people[0], of: db.cls("Person"), originClass: db.cls("Dog"), property: db.pkey("Dog", "owner")).count, 1)
            db.realm.close()
        }
        let (person, dog, owner) = try { () throws -> (UInt32, UInt32, UInt32) in
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("Person"), db.cls("Dog"), db.pkey("Dog", "owner"))
        }()
        // Person's backlinks replaced by Dog's runs, as they are stored.
        var runs: [([UInt8], [UInt8])] = []
        withRawLMDB(path, database: Table.backlinksName(dog), readOnly: true) { txn, dbi in
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                runs.append((Array(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)), Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))))
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
        }
        XCTAssertFalse(runs.isEmpty)
        withRawLMDB(path, database: Table.backlinksName(person)) { txn, dbi in
            XCTAssertEqual(mdb_drop(txn, dbi, 0), 0)
            for (key, value) in runs {
                var key = key, value = value
                key.withUnsafeMutableBytes { kb in
                    value.withUnsafeMutableBytes { vb in
                        var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress), v = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                        XCTAssertEqual(mdb_put(txn, dbi, &k, &v, 0), 0)
                    }
                }
            }
        }
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        expectError(.fileCorrupt) { try db.realm.linkingObjects(to: people[0], of: person, originClass: dog, property: owner) }
        XCTAssertFalse(try problems(path).isEmpty)
    }
}
