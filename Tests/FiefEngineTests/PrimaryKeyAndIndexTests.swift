import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Primary keys of every allowed type, upserts, all-or-nothing batches, and
/// secondary indexes checked against unindexed scans.
final class PrimaryKeyTests: XCTestCase {

    struct PKCase {
        let type: PropertyType
        let nullable: Bool
        let make: (Int) -> TV
    }

    static var cases: [PKCase] { [
        PKCase(type: .int, nullable: false) { .int(Int64($0) * 1_000_003 - 5_000_000) },
        PKCase(type: .int, nullable: true) { $0 == 0 ? .null : .int(Int64($0) - 3) },
        PKCase(type: .string, nullable: false) { $0 == 0 ? .string("") : .string("key-\($0)-" + String(repeating: "x", count: $0 % 7)) },
        PKCase(type: .string, nullable: true) { $0 == 0 ? .null : .string("k\($0)") },
        PKCase(type: .objectId, nullable: false) { .oid(ObjectIdBytes(high: UInt64($0) &* 0x9E37_79B9_7F4A_7C15, low: UInt32($0))) },
        PKCase(type: .uuid, nullable: false) { .uuid(UUIDBytes(high: UInt64($0) << 40, low: UInt64($0) &* 31)) },
        PKCase(type: .uuid, nullable: true) { $0 == 0 ? .null : .uuid(UUIDBytes(high: 1, low: UInt64($0))) },
    ] }

    func testPrimaryKeysOfEveryType() throws {
        let dir = tempDir()
        for (n, c) in Self.cases.enumerated() {
            let label = "\(c.nullable ? "optional " : "")\(c.type.name)"
            let path = dir.file("pk\(n).fief")
            let schema = makeSchema([("P", [prop("id", c.type, c.nullable ? [.primaryKey, .nullable] : .primaryKey), prop("v", .int), prop("s", .string)])])
            var keys: [Int: Int64] = [:]
            do {
                let db = try DB.open(path, schema)
                try db.write {
                    for i in 0..<300 { keys[i] = try db.create("P", [("id", c.make(i)), ("v", .int(Int64(i)))]) }
                    // Found inside the transaction.
                    XCTAssertEqual(try db.find("P", c.make(17)), keys[17], label)
                }
                for i in 0..<300 { XCTAssertEqual(try db.find("P", c.make(i)), keys[i], "\(label) \(i)") }
                XCTAssertNil(try db.find("P", c.make(300)), label)
                // Queries on the primary key (served by the primary-key table).
                XCTAssertEqual(try db.keys("P", "id == $0", [c.make(5)]), [keys[5]!], label)
                XCTAssertEqual(try db.keys("P", "id == $0 AND v == 5", [c.make(5)]), [keys[5]!], label)
                XCTAssertEqual(try db.keys("P", "id == $0 AND v == 6", [c.make(5)]), [], label)
                XCTAssertEqual(try db.keys("P", "id == $0", [c.make(301)]), [], label)
                if !c.nullable { XCTAssertEqual(try db.keys("P", "id == nil"), [], label) }
                XCTAssertEqual(try db.keys("P", "id != $0", [c.make(5)]).count, 299, label)

                // Duplicates are refused, and the transaction goes on.
                try db.realm.beginWrite()
                let e = expectError(.duplicatePrimaryKey, label) { try db.create("P", [("id", c.make(3)), ("v", .int(-1))]) }
                XCTAssertNotNil(e)
                XCTAssertEqual(try db.count("P"), 300)
                let extra = try db.create("P", [("id", c.make(1000)), ("v", .int(1000))])
                // A missing primary key is refused.
                expectError(.missingPrimaryKey) { try db.create("P", [("v", .int(1))]) }
                if !c.nullable { expectError(.nullNotAllowed) { try db.create("P", [("id", .null)]) } }
                try db.realm.commitWrite()
                XCTAssertEqual(try db.find("P", c.make(1000)), extra)
                XCTAssertEqual(try db.get("P", keys[3]!, "v"), .int(3))

                // Changing a primary key is refused; setting the same value is fine.
                try db.realm.beginWrite()
                expectError(.primaryKeyChange, label) { try db.set("P", keys[4]!, "id", c.make(4000)) }
                expectError(.primaryKeyChange, label) { try db.setMany("P", keys[4]!, [("v", .int(9)), ("id", c.make(4001))]) }
                try db.set("P", keys[4]!, "id", c.make(4))
                XCTAssertEqual(try db.get("P", keys[4]!, "v"), .int(4), "setValues is all or nothing")
                db.realm.cancelWrite()

                // Deleting frees the key for a new object (with a new object key).
                try db.write { try db.delete("P", keys[7]!) }
                XCTAssertNil(try db.find("P", c.make(7)))
                let again = try db.write { try db.create("P", [("id", c.make(7)), ("v", .int(77))]) }
                XCTAssertGreaterThan(again, extra)
                db.realm.close()
            }
            // The primary-key table survives reopening.
            let db = try DB.open(path, schema)
            XCTAssertEqual(try db.find("P", c.make(299)), keys[299], label)
            XCTAssertEqual(try db.get("P", try XCTUnwrap(try db.find("P", c.make(7))), "v"), .int(77), label)
        }
    }

    func testUpsertPolicies() throws {
        let dir = tempDir()
        let schema = makeSchema([("P", [prop("id", .string, .primaryKey), prop("a", .int), prop("b", .string), prop("c", .double, [.nullable]), prop("i", .int, .indexed)])])
        let db = try DB.open(dir.file(), schema)
        let k = try db.write { try db.create("P", [("id", .string("x")), ("a", .int(1)), ("b", .string("one")), ("c", .double(1.5)), ("i", .int(10))]) }
        let table = try db.realm.table(db.cls("P"))
        let aColumn = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: db.pkey("P", "a"), cluster: 0))
        let bColumn = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: db.pkey("P", "b"), cluster: 0))

        // .modified with equal values writes nothing; with one different value only that column.
        try db.realm.beginWrite()
        let same = try db.create("P", [("id", .string("x")), ("a", .int(1)), ("b", .string("one"))], policy: .modified)
        XCTAssertEqual(same, k)
        XCTAssertNil(db.realm.write!.dirty[aColumn])
        XCTAssertNil(db.realm.write!.dirty[bColumn])
        _ = try db.create("P", [("id", .string("x")), ("a", .int(2)), ("b", .string("one"))], policy: .modified)
        XCTAssertNotNil(db.realm.write!.dirty[aColumn])
        XCTAssertNil(db.realm.write!.dirty[bColumn])
        XCTAssertEqual(try db.get("P", k, "a"), .int(2))
        db.realm.cancelWrite()

        // .all writes every given column, even unchanged ones.
        try db.realm.beginWrite()
        _ = try db.create("P", [("id", .string("x")), ("a", .int(1)), ("b", .string("one"))], policy: .all)
        XCTAssertNotNil(db.realm.write!.dirty[aColumn])
        XCTAssertNotNil(db.realm.write!.dirty[bColumn])
        db.realm.cancelWrite()

        // Values end up right with both policies; properties not given stay.
        try db.write {
            XCTAssertEqual(try db.create("P", [("id", .string("x")), ("b", .string("uno")), ("i", .int(11))], policy: .modified), k)
            XCTAssertEqual(try db.create("P", [("id", .string("y")), ("a", .int(5))], policy: .modified), k + 1)
            XCTAssertEqual(try db.create("P", [("id", .string("x")), ("c", .null)], policy: .all), k)
        }
        XCTAssertEqual(try db.get("P", k, "a"), .int(1))
        XCTAssertEqual(try db.get("P", k, "b"), .string("uno"))
        XCTAssertEqual(try db.get("P", k, "c"), .null)
        XCTAssertEqual(try db.get("P", k + 1, "a"), .int(5))
        XCTAssertEqual(try db.count("P"), 2)
        // The index followed the upsert.
        XCTAssertEqual(try db.keys("P", "i == 11"), [k])
        XCTAssertEqual(try db.keys("P", "i == 10"), [])
        // A batch that upserts the same key twice keeps the last values.
        try db.write {
            _ = try db.createMany("P", ["id", "a"], [[.string("z"), .int(1)], [.string("z"), .int(2)], [.string("x"), .int(3)]], policy: .modified)
        }
        XCTAssertEqual(try db.get("P", try XCTUnwrap(try db.find("P", .string("z"))), "a"), .int(2))
        XCTAssertEqual(try db.get("P", k, "a"), .int(3))
        XCTAssertEqual(try db.count("P"), 3)
    }

    func testBatchIsAllOrNothing() throws {
        let dir = tempDir()
        let schema = makeSchema([("P", [prop("id", .int, .primaryKey), prop("s", .string, .indexed), prop("v", .int)])])
        let db = try DB.open(dir.file(), schema)
        try db.write { _ = try db.createMany("P", ["id", "s", "v"], (0..<10).map { [.int(Int64($0)), .string("old"), .int(0)] }) }
        try db.realm.beginWrite()
        // 600 rows (crossing clusters), a duplicate of an existing key in the middle.
        var rows: [[TV]] = (0..<600).map { [.int(Int64(1000 + $0)), .string("batch"), .int(1)] }
        rows[400][0] = .int(5)
        let error = expectError(.duplicatePrimaryKey) { try db.createMany("P", ["id", "s", "v"], rows) }
        XCTAssertTrue(error?.message.contains("row 400") ?? false, error?.message ?? "")
        XCTAssertEqual(try db.count("P"), 10)
        XCTAssertNil(try db.find("P", .int(1000)))
        XCTAssertNil(try db.find("P", .int(1399)))
        XCTAssertEqual(try db.keys("P", "s == 'batch'"), [])
        XCTAssertEqual(try db.keys("P", "v == 1"), [])
        // A duplicate inside the batch itself.
        expectError(.duplicatePrimaryKey) { try db.createMany("P", ["id", "s", "v"], [[.int(50), .string("b2"), .int(2)], [.int(51), .string("b2"), .int(2)], [.int(50), .string("b2"), .int(2)]]) }
        XCTAssertNil(try db.find("P", .int(50)))
        XCTAssertEqual(try db.keys("P", "s == 'b2'"), [])
        // A bad value anywhere in a batch fails before anything is written.
        expectError(.typeMismatch) { try db.createMany("P", ["id", "s", "v"], [[.int(60), .string("b3"), .int(3)], [.int(61), .int(3), .int(3)]]) }
        XCTAssertNil(try db.find("P", .int(60)))
        // The transaction is still usable.
        XCTAssertFalse(db.realm.write!.failure != nil)
        let ok = try db.createMany("P", ["id", "s", "v"], [[.int(50), .string("good"), .int(4)], [.int(51), .string("good"), .int(4)]])
        try db.realm.commitWrite()
        XCTAssertEqual(try db.count("P"), 12)
        XCTAssertEqual(try db.keys("P", "s == 'good'"), ok)
        XCTAssertEqual(try db.find("P", .int(51)), ok[1])
        XCTAssertEqual(try db.keys("P", "s == 'old'").count, 10)
        XCTAssertEqual(try db.keys("P"), Array(0..<10) + ok)
    }
}

final class IndexTests: XCTestCase {

    /// Two identical classes, one with every indexable property indexed;
    /// random inserts, updates and deletes applied to both; every equality
    /// query must give the same keys.
    func testIndexedEqualityMatchesScan() throws {
        let dir = tempDir()
        func props(_ indexed: Bool) -> [Property] {
            let ix: PropertyFlags = indexed ? [.indexed] : []
            return [
                prop("i", .int, ix), prop("oi", .int, ix.union(.nullable)),
                prop("s", .string, ix), prop("os", .string, ix.union(.nullable)),
                prop("b", .bool, ix), prop("ob", .bool, ix.union(.nullable)),
                prop("t", .timestamp, ix), prop("o", .objectId, ix.union(.nullable)),
                prop("u", .uuid, ix), prop("d", .double),
            ]
        }
        let db = try DB.open(dir.file(), makeSchema([("Indexed", props(true)), ("Plain", props(false))]))
        var rng = SeededRandom(seed: 42)
        func value(_ name: String) -> TV {
            let r = Int.random(in: 0..<6, using: &rng)
            switch name {
            case "i": return .int(Int64(r) - 2)
            case "oi": return r == 0 ? .null : .int(Int64(r))
            case "s": return .string(["", "a", "b", "abc", "abd", String(repeating: "long", count: 150) + "\(r % 2)"][r])
            case "os": return r < 2 ? .null : .string(["x", "y", "zz", "x"][r - 2])
            case "b": return .bool(r % 2 == 0)
            case "ob": return r < 2 ? .null : .bool(r % 2 == 0)
            case "t": return .timestamp(Int64(r % 3) - 1, r % 3 == 2 ? Int32(r % 2) * 5 : 0)
            case "o": return r == 0 ? .null : .oid(ObjectIdBytes(high: UInt64(r % 3), low: UInt32(r)))
            case "u": return .uuid(UUIDBytes(high: UInt64(r % 2), low: UInt64(r % 3)))
            default: return .double(Double(r))
            }
        }
        let names = ["i", "oi", "s", "os", "b", "ob", "t", "o", "u", "d"]
        var live: [Int64] = []
        func compareAll(_ when: String) throws {
            var probes = 0
            for name in names where name != "d" {
                var seen: [TV] = [.null]
                for _ in 0..<8 { seen.append(value(name)) }
                for v in seen {
                    if v == .null && !["oi", "os", "ob", "o"].contains(name) { continue }
                    let indexed = try db.keys("Indexed", "\(name) == $0", [v])
                    let plain = try db.keys("Plain", "\(name) == $0", [v])
                    XCTAssertEqual(indexed, plain, "\(name) == \(v) \(when)")
                    // The indexed side really used the index.
                    let q = try db.query("Indexed", "\(name) == $0", [v])
                    XCTAssertNotNil(try db.realm.indexCandidates(q.filters[0], db.realm.table(db.cls("Indexed"))), name)
                    // Combined with another condition.
                    XCTAssertEqual(try db.keys("Indexed", "\(name) == $0 AND d >= 2", [v]), try db.keys("Plain", "\(name) == $0 AND d >= 2", [v]), "\(name) \(when)")
                    probes += 1
                }
            }
            XCTAssertGreaterThan(probes, 50)
        }
        for round in 0..<6 {
            try db.realm.beginWrite()
            for _ in 0..<150 {
                let op = Int.random(in: 0..<10, using: &rng)
                if op < 5 || live.isEmpty {
                    // Insert with a random subset of properties (the rest default).
                    let chosen = names.filter { _ in Bool.random(using: &rng) }
                    let row = chosen.map { value($0) }
                    let a = try db.createMany("Indexed", chosen, [row])[0]
                    let b = try db.createMany("Plain", chosen, [row])[0]
                    XCTAssertEqual(a, b)
                    live.append(a)
                } else if op < 8 {
                    let k = live[Int.random(in: 0..<live.count, using: &rng)]
                    let name = names[Int.random(in: 0..<names.count, using: &rng)]
                    let v = value(name)
                    if Bool.random(using: &rng) {
                        try db.set("Indexed", k, name, v)
                        try db.set("Plain", k, name, v)
                    } else {
                        let other = names[Int.random(in: 0..<names.count, using: &rng)]
                        let values = other == name ? [(name, v)] : [(name, v), (other, value(other))]
                        try db.setMany("Indexed", k, values)
                        try db.setMany("Plain", k, values)
                    }
                } else {
                    let i = Int.random(in: 0..<live.count, using: &rng)
                    try db.delete("Indexed", live[i])
                    try db.delete("Plain", live[i])
                    live.remove(at: i)
                }
            }
            try compareAll("in write \(round)")
            if round == 3 {
                db.realm.cancelWrite()
                live = try db.keys("Plain")
            } else {
                try db.realm.commitWrite()
            }
            try compareAll("after round \(round)")
        }
        XCTAssertEqual(try db.keys("Indexed"), try db.keys("Plain"))
        // Index entries match the data exactly: one entry per live object per index.
        let table = try db.realm.table(db.cls("Indexed"))
        let snapshot = try db.realm.currentSnapshot()
        for (_, dbi) in table.indexDatabases {
            var stat = MDB_stat()
            XCTAssertEqual(mdb_stat(snapshot.txn, dbi, &stat), 0)
            XCTAssertEqual(stat.ms_entries, live.count)
        }
    }
}

/// Integer primary keys stored as runs (`PrimaryKeyRuns`): against a model
/// dictionary through ascending batches, single creates that extend the last
/// run, deletes at a run's start, end and middle, re-creates, random ids,
/// both ends of Int64 and the sign boundary.
final class PrimaryKeyRunTests: XCTestCase {
    func testRunsAgainstAModel() throws {
        let dir = tempDir()
        let schema = makeSchema([("R", [prop("id", .int, .primaryKey), prop("v", .int)])])
        let db = try DB.open(dir.file("runs.fief"), schema)
        var model: [Int64: Int64] = [:]   // id -> object key
        func check(_ label: String) throws {
            for (id, key) in model { XCTAssertEqual(try db.find("R", .int(id)), key, "\(label): id \(id)") }
            for probe in [Int64(-1), 0, 5_000, 5_001, 10_000_000, .min, .max] where model[probe] == nil {
                XCTAssertNil(try db.find("R", .int(probe)), "\(label): id \(probe)")
            }
            XCTAssertEqual(try db.count("R"), model.count, label)
        }
        // One ascending batch, then single creates continuing it.
        try db.write {
            let keys = try db.createMany("R", ["id", "v"], (1...1000).map { [.int(Int64($0)), .int(0)] })
            for (i, key) in keys.enumerated() { model[Int64(i + 1)] = key }
            for id in Int64(1001)...1200 { model[id] = try db.create("R", [("id", .int(id))]) }
            expectError(.duplicatePrimaryKey) { try db.create("R", [("id", .int(600))]) }
            expectError(.duplicatePrimaryKey) { try db.create("R", [("id", .int(1200))]) }
        }
        try check("ascending")
        // Deletes at a run's start, end, middle; then the ids come back on new objects.
        try db.write {
            for id: Int64 in [1, 1200, 500, 501, 700] {
                try db.delete("R", model[id]!)
                model[id] = nil
            }
        }
        try check("after deletes")
        try db.write {
            for id: Int64 in [500, 1, 1200] { model[id] = try db.create("R", [("id", .int(id))]) }
            // A batch whose ids collide in its middle is refused whole.
            expectError(.duplicatePrimaryKey) { _ = try db.createMany("R", ["id"], [[.int(699)], [.int(700)], [.int(701)]]) }
            model[700] = try db.create("R", [("id", .int(700))])
        }
        try check("re-created")
        // Random ids, the ends of Int64, the sign boundary, out of order.
        var rng = SeededRandom(seed: 99)
        try db.write {
            for id in [Int64.max, .min, -1, -2, Int64.max - 1, Int64.min + 1] { model[id] = try db.create("R", [("id", .int(id))]) }
            for _ in 0..<300 {
                let id = Int64(bitPattern: rng.next()) % 1_000_000_000
                if model[id] == nil { model[id] = try db.create("R", [("id", .int(id))]) }
            }
        }
        try check("random")
        // Deleting everything but a few, across runs.
        try db.write {
            for (id, key) in model where id % 3 != 0 {
                try db.delete("R", key)
                model[id] = nil
            }
        }
        try check("thinned")
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file("runs.fief")) { _, _ in }, 0)
    }

    func testAscendingIdsTakeOneEntry() throws {
        let dir = tempDir()
        let path = dir.file("one.fief")
        let db = try DB.open(path, makeSchema([("R", [prop("id", .int, .primaryKey)])]))
        try db.write { _ = try db.createMany("R", ["id"], (1...100_000).map { [.int(Int64($0))] }) }
        try db.write { for id in Int64(100_001)...100_500 { _ = try db.create("R", [("id", .int(id))]) } }
        db.realm.close()
        // The primary-key table holds one run: check through LMDB.
        var env: OpaquePointer?
        mdb_env_create(&env)
        mdb_env_set_maxdbs(env, 64)
        mdb_env_set_mapsize(env, 1 << 36)
        XCTAssertEqual(mdb_env_open(env, path, UInt32(MDB_NOSUBDIR | MDB_RDONLY), 0o644), 0)
        defer { mdb_env_close(env) }
        var txn: OpaquePointer?
        XCTAssertEqual(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), 0)
        defer { mdb_txn_abort(txn) }
        var dbi: MDB_dbi = 0
        XCTAssertEqual(mdb_dbi_open(txn, "c1.pk1", 0, &dbi), 0)
        var stat = MDB_stat()
        XCTAssertEqual(mdb_stat(txn, dbi, &stat), 0)
        XCTAssertEqual(stat.ms_entries, 1)
    }
}
