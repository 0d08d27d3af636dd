import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Objects, clusters, values of every type, durability.
final class StorageTests: XCTestCase {

    static let allTypes: [PropertyType] = [.int, .bool, .string, .binary, .timestamp, .float, .double, .decimal128, .objectId, .uuid]

    /// A class with one required and one optional property of every type, plus a marker int.
    static func everyTypeSchema() -> Schema {
        var props = [prop("marker", .int)]
        for t in allTypes {
            props.append(prop("r_\(t.name)", t))
            props.append(prop("o_\(t.name)", t, .nullable))
        }
        return makeSchema([("All", props)])
    }

    static func zero(_ t: PropertyType) -> TV {
        switch t {
        case .int: return .int(0)
        case .bool: return .bool(false)
        case .string: return .string("")
        case .binary: return .binary([])
        case .timestamp: return .timestamp(0, 0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .decimal128: return .decimal(DecimalArithmetic.zero)
        case .objectId: return .oid(ObjectIdBytes(high: 0, low: 0))
        case .uuid: return .uuid(UUIDBytes(high: 0, low: 0))
        case .link, .mixed: return .null
        }
    }

    static func sample(_ t: PropertyType, _ n: Int) -> TV {
        switch t {
        case .int: return .int(Int64(n) * 7 - 3)
        case .bool: return .bool(n % 2 == 1)
        case .string: return .string("s\(n)")
        case .binary: return .binary([UInt8(n & 255), 1, 2])
        case .timestamp: return .timestamp(Int64(n) * 1000, Int32(n))
        case .float: return .float(Float(n) + 0.5)
        case .double: return .double(Double(n) * 1.25)
        case .decimal128: return .decimal(Decimal128Bits(low: UInt64(n), high: 0x3040_0000_0000_0000))
        case .objectId: return .oid(ObjectIdBytes(high: UInt64(n) << 32, low: UInt32(n)))
        case .uuid: return .uuid(UUIDBytes(high: UInt64(n), low: ~UInt64(n)))
        case .link, .mixed: fatalError("allTypes holds scalar types only")
        }
    }

    // MARK: Clusters

    func testObjectsAcrossClusterBoundaries() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("Item", [prop("n", .int), prop("s", .string), prop("o", .double, .nullable)])])
        var expected: [Int64: Int64] = [:]
        do {
            let db = try DB.open(path, schema)
            let keys = try db.write { () -> [Int64] in
                try db.createMany("Item", ["n", "s", "o"], (0..<700).map { [.int(Int64($0) * 3), .string("item \($0)"), $0 % 5 == 0 ? .null : .double(Double($0))] })
            }
            XCTAssertEqual(keys, (0..<700).map { Int64($0) })
            for k in keys { expected[k] = k * 3 }
            XCTAssertEqual(try db.count("Item"), 700)
            // Delete a few in the middle, and all of cluster 1 (keys 256..<512).
            try db.write {
                for k in Int64(100)..<110 { try db.delete("Item", k); expected[k] = nil }
                for k in Int64(256)..<512 { try db.delete("Item", k); expected[k] = nil }
                // Inside the write transaction the deletes are visible already.
                XCTAssertEqual(try db.count("Item"), 700 - 10 - 256)
                XCTAssertFalse(try db.exists("Item", 300))
            }
            try checkItems(db, expected)
            // The emptied cluster's chunks are gone from the file.
            let table = try db.realm.table(db.cls("Item"))
            let snapshot = try db.realm.currentSnapshot()
            for column: UInt32 in [0, 1, 2, 3] {
                XCTAssertNil(try LMDB.get(snapshot.txn, table.data, integerKey: ClusterLayout.chunkKey(column: column, cluster: 1)), "column \(column)")
                XCTAssertNotNil(try LMDB.get(snapshot.txn, table.data, integerKey: ClusterLayout.chunkKey(column: column, cluster: 2)), "column \(column)")
            }
            // New objects keep going after the highest key ever used.
            let more = try db.write { try db.createMany("Item", ["n", "s"], [[.int(1), .string("a")], [.int(2), .string("b")]]) }
            XCTAssertEqual(more, [700, 701])
            expected[700] = 1
            expected[701] = 2
            db.realm.close()
        }
        // Reopen from disk.
        let db = try DB.open(path, schema)
        try checkItems(db, expected)
        XCTAssertEqual(try db.get("Item", 5, "o"), .null)
        XCTAssertEqual(try db.get("Item", 6, "o"), .double(6))
        XCTAssertEqual(try db.get("Item", 600, "s"), .string("item 600"))
        expectError(.invalidatedObject) { try db.get("Item", 300, "n") }
    }

    private func checkItems(_ db: DB, _ expected: [Int64: Int64], file: StaticString = #filePath, line: UInt = #line) throws {
        let keys = try db.keys("Item")
        XCTAssertEqual(keys, expected.keys.sorted(), file: file, line: line)
        XCTAssertEqual(try db.count("Item"), expected.count, file: file, line: line)
        for k in keys {
            XCTAssertEqual(try db.get("Item", k, "n"), .int(expected[k]!), "key \(k)", file: file, line: line)
        }
        // Iteration by query across clusters agrees with the values.
        let big = try db.keys("Item", "n >= 1500")
        XCTAssertEqual(big, expected.filter { $0.value >= 1500 }.keys.sorted(), file: file, line: line)
    }

    func testObjectKeysNeverReused() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("v", .int)])])
        do {
            let db = try DB.open(path, schema)
            let first = try db.write { try db.createMany("A", ["v"], [[.int(1)], [.int(2)], [.int(3)]]) }
            XCTAssertEqual(first, [0, 1, 2])
            try db.write { try db.delete("A", 2) }
            XCTAssertEqual(try db.write { try db.create("A", [("v", .int(4))]) }, 3)
            // Delete everything (whole table) and create again.
            try db.write { try db.realm.deleteAll(table: db.cls("A")) }
            XCTAssertEqual(try db.count("A"), 0)
            XCTAssertEqual(try db.write { try db.create("A", [("v", .int(5))]) }, 4)
            // Deleted inside the same transaction it was created in.
            try db.write {
                let k = try db.create("A", [("v", .int(6))])
                XCTAssertEqual(k, 5)
                try db.delete("A", k)
            }
            db.realm.close()
        }
        let db = try DB.open(path, schema)
        XCTAssertEqual(try db.keys("A"), [4])
        XCTAssertEqual(try db.write { try db.create("A", [("v", .int(7))]) }, 6)
        XCTAssertEqual(try db.get("A", 6, "v"), .int(7))
        XCTAssertFalse(try db.exists("A", 2))
        XCTAssertFalse(try db.exists("A", 5))
    }

    // MARK: Values

    func testDefaultsOfEveryType() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Self.everyTypeSchema())
        func checkDefaults(_ key: Int64, _ when: String) throws {
            for t in Self.allTypes {
                XCTAssertEqual(try db.get("All", key, "r_\(t.name)"), Self.zero(t), "r_\(t.name) \(when)")
                XCTAssertEqual(try db.get("All", key, "o_\(t.name)"), .null, "o_\(t.name) \(when)")
            }
        }
        // 1: the first object of a class (no chunks exist).
        try db.realm.beginWrite()
        let k0 = try db.create("All", [("marker", .int(1))])
        try checkDefaults(k0, "in a fresh write")
        try db.realm.commitWrite()
        try checkDefaults(k0, "committed")
        // 2: an object next to one whose every column has values (chunks exist).
        try db.realm.beginWrite()
        var full: [(String, TV)] = [("marker", .int(2))]
        for t in Self.allTypes { full += [("r_\(t.name)", Self.sample(t, 3)), ("o_\(t.name)", Self.sample(t, 4))] }
        let k1 = try db.create("All", full)
        let k2 = try db.create("All", [("marker", .int(3))])
        try checkDefaults(k2, "next to a full object, dirty")
        try db.realm.commitWrite()
        try checkDefaults(k2, "next to a full object, committed")
        // 3: created in a later transaction into the committed chunks.
        let k3 = try db.write { try db.create("All", [("marker", .int(4))]) }
        try checkDefaults(k3, "into committed chunks")
        for (name, value) in full { XCTAssertEqual(try db.get("All", k1, name), value, name) }
        // Query semantics agree with the stored defaults.
        XCTAssertEqual(try db.keys("All", "o_int == nil"), [k0, k2, k3])
        XCTAssertEqual(try db.keys("All", "o_string == nil"), [k0, k2, k3])
        XCTAssertEqual(try db.keys("All", "o_string != nil"), [k1])
        XCTAssertEqual(try db.keys("All", "r_string == ''"), [k0, k2, k3])
        XCTAssertEqual(try db.keys("All", "o_timestamp == nil AND o_double == nil AND o_uuid == nil"), [k0, k2, k3])
    }

    func testEveryTypeRoundTripsAndNullables() throws {
        let dir = tempDir()
        let path = dir.file()
        var values: [(String, TV)] = [("marker", .int(9))]
        for t in Self.allTypes { values += [("r_\(t.name)", Self.sample(t, 11)), ("o_\(t.name)", Self.sample(t, 12))] }
        let key: Int64
        do {
            let db = try DB.open(path, Self.everyTypeSchema())
            key = try db.write { try db.create("All", values) }
            for (n, v) in values { XCTAssertEqual(try db.get("All", key, n), v, n) }
            // Set optionals to null, then back, in separate transactions.
            try db.write { for t in Self.allTypes { try db.set("All", key, "o_\(t.name)", .null) } }
            for t in Self.allTypes { XCTAssertEqual(try db.get("All", key, "o_\(t.name)"), .null) }
            try db.write {
                for t in Self.allTypes {
                    try db.set("All", key, "o_\(t.name)", Self.sample(t, 13))
                    XCTAssertEqual(try db.get("All", key, "o_\(t.name)"), Self.sample(t, 13), "dirty \(t.name)")
                }
            }
            // Null into a required property is refused and changes nothing.
            try db.realm.beginWrite()
            expectError(.nullNotAllowed) { try db.set("All", key, "r_string", .null) }
            expectError(.typeMismatch) { try db.set("All", key, "r_int", .string("x")) }
            // Int into double and float converts.
            try db.set("All", key, "r_double", .int(5))
            try db.set("All", key, "o_float", .int(-2))
            try db.realm.commitWrite()
            db.realm.close()
        }
        let db = try DB.open(path, Self.everyTypeSchema())
        XCTAssertEqual(try db.get("All", key, "r_double"), .double(5))
        XCTAssertEqual(try db.get("All", key, "o_float"), .float(-2))
        XCTAssertEqual(try db.get("All", key, "r_string"), Self.sample(.string, 11))
        for t in Self.allTypes where t != .float {
            XCTAssertEqual(try db.get("All", key, "o_\(t.name)"), Self.sample(t, 13), t.name)
        }
    }

    func testStringsAndBinariesOfManySizes() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("B", [prop("s", .string), prop("os", .string, .nullable), prop("b", .binary), prop("ob", .binary, .nullable), prop("tag", .int)])])
        let sizes = [0, 1, 1000, 100 * 1024, 7, 255, 0, 100 * 1024 + 3]
        func text(_ size: Int, _ seed: Int) -> String {
            String((0..<size).map { i in Character(Unicode.Scalar(UInt8(97 + (i * 7 + seed) % 26))) })
        }
        func bytes(_ size: Int, _ seed: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 * 31 + seed) } }
        var expected: [Int64: [TV]] = [:]
        func check(_ db: DB, _ when: String) throws {
            for (k, vals) in expected {
                XCTAssertEqual(try db.get("B", k, "s"), vals[0], "s \(k) \(when)")
                XCTAssertEqual(try db.get("B", k, "os"), vals[1], "os \(k) \(when)")
                XCTAssertEqual(try db.get("B", k, "b"), vals[2], "b \(k) \(when)")
                XCTAssertEqual(try db.get("B", k, "ob"), vals[3], "ob \(k) \(when)")
            }
        }
        do {
            let db = try DB.open(path, schema)
            try db.realm.beginWrite()
            for (i, size) in sizes.enumerated() {
                let row: [TV] = [.string(text(size, i)), i % 3 == 0 ? .null : .string(text(size, i + 1)), .binary(bytes(size, i)), i % 2 == 0 ? .binary(bytes(size, i + 5)) : .null]
                let k = try db.create("B", [("s", row[0]), ("os", row[1]), ("b", row[2]), ("ob", row[3]), ("tag", .int(Int64(i)))])
                expected[k] = row
            }
            try check(db, "dirty")
            try db.realm.commitWrite()
            try check(db, "committed")
            // Change sizes of neighbours in a committed chunk: grow, shrink, empty, null, non-null empty.
            try db.realm.beginWrite()
            let keys = expected.keys.sorted()
            for (n, k) in keys.enumerated() {
                let size = sizes[(n + 3) % sizes.count]
                var row = expected[k]!
                if n % 2 == 0 {
                    row[0] = .string(text(size, n + 40))
                    row[2] = .binary(bytes(size, n + 41))
                }
                row[1] = n % 3 == 1 ? .null : .string("")
                row[3] = n % 3 == 2 ? .binary([]) : .null
                try db.setMany("B", k, [("s", row[0]), ("os", row[1]), ("b", row[2]), ("ob", row[3])])
                expected[k] = row
            }
            try check(db, "dirty after update")
            // Queries inside the transaction see dirty strings.
            let empties = expected.filter { $0.value[1] == .string("") }.keys.sorted()
            XCTAssertEqual(try db.keys("B", "os == ''"), empties)
            XCTAssertEqual(try db.keys("B", "os == nil"), expected.filter { $0.value[1] == .null }.keys.sorted())
            try db.realm.commitWrite()
            try check(db, "committed after update")
            XCTAssertEqual(try db.keys("B", "os == ''"), empties)
            db.realm.close()
        }
        let db = try DB.open(path, schema)
        try check(db, "reopened")
    }

    // MARK: Transactions

    func testReadingInsideAndAfterWrite() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("v", .int), prop("s", .string)])])
        let db = try DB.open(path, schema)
        let other = try DB.open(path, nil)
        try db.realm.beginWrite()
        let k = try db.create("A", [("v", .int(1)), ("s", .string("one"))])
        XCTAssertEqual(try db.get("A", k, "v"), .int(1))
        XCTAssertEqual(try db.count("A"), 1)
        try db.set("A", k, "s", .string("uno"))
        XCTAssertEqual(try db.get("A", k, "s"), .string("uno"))
        // Another realm sees nothing yet, even after refreshing.
        XCTAssertEqual(try other.count("A"), 0)
        _ = try other.realm.refresh()
        XCTAssertEqual(try other.count("A"), 0)
        XCTAssertFalse(try other.exists("A", k))
        try db.realm.commitWrite()
        XCTAssertEqual(try db.get("A", k, "s"), .string("uno"))
        XCTAssertEqual(try db.count("A"), 1)
        XCTAssertTrue(try other.realm.refresh())
        XCTAssertEqual(try other.get("A", k, "s"), .string("uno"))
    }

    func testCancelLeavesNothing() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("id", .int, .primaryKey), prop("v", .int), prop("s", .string, .indexed)])])
        let db = try DB.open(path, schema)
        try db.write { _ = try db.createMany("A", ["id", "v", "s"], (0..<300).map { [.int(Int64($0)), .int(Int64($0)), .string("x\($0 % 5)")] }) }
        let version = try db.realm.version()
        try db.realm.beginWrite()
        _ = try db.createMany("A", ["id", "v", "s"], (300..<600).map { [.int(Int64($0)), .int(1), .string("new")] })
        for k in Int64(0)..<50 { try db.delete("A", k) }
        for k in Int64(50)..<100 { try db.set("A", k, "v", .int(-1)); try db.set("A", k, "s", .string("changed")) }
        XCTAssertEqual(try db.count("A"), 550)
        db.realm.cancelWrite()
        XCTAssertFalse(db.realm.isInWriteTransaction)
        XCTAssertEqual(try db.realm.version(), version)
        XCTAssertEqual(try db.count("A"), 300)
        XCTAssertEqual(try db.keys("A", "v == -1"), [])
        XCTAssertEqual(try db.keys("A", "s == 'changed'"), [])
        XCTAssertEqual(try db.keys("A", "s == 'new'"), [])
        XCTAssertEqual(try db.keys("A", "s == 'x1'").count, 60)
        XCTAssertNil(try db.find("A", .int(400)))
        XCTAssertEqual(try db.find("A", .int(10)), 10)
        for k in Int64(0)..<100 { XCTAssertEqual(try db.get("A", k, "v"), .int(k)) }
        // The primary keys of the cancelled objects are free again.
        try db.write { _ = try db.create("A", [("id", .int(400)), ("v", .int(4))]) }
        XCTAssertNotNil(try db.find("A", .int(400)))
        // A realm released in the middle of a write cancels it (and frees the writer lock).
        do {
            let scratch = try DB.open(path, nil)
            try scratch.realm.beginWrite()
            _ = try scratch.create("A", [("id", .int(9999))])
        }
        try db.write { XCTAssertNil(try db.find("A", .int(9999))) }
    }

    func testCommitDurabilityAcrossReopen() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("id", .string, .primaryKey), prop("v", .double), prop("i", .int, .indexed)])])
        for round in 0..<3 {
            let db = try DB.open(path, schema)
            XCTAssertEqual(try db.count("A"), round * 100)
            XCTAssertEqual(try db.realm.version(), UInt64(round))
            try db.write {
                _ = try db.createMany("A", ["id", "v", "i"], (0..<100).map { [.string("r\(round)-\($0)"), .double(Double($0) / 2), .int(Int64($0 % 10))] })
            }
            db.realm.close()
            expectError(.closed) { try db.count("A") }
        }
        XCTAssertFalse(EnvironmentRegistry.isOpen(path: path))
        let db = try DB.open(path, schema)
        XCTAssertEqual(try db.count("A"), 300)
        XCTAssertEqual(try db.realm.version(), 3)
        let k = try XCTUnwrap(try db.find("A", .string("r1-7")))
        XCTAssertEqual(try db.get("A", k, "v"), .double(3.5))
        XCTAssertEqual(try db.keys("A", "i == 3").count, 30)
        // Writing after reopening works too (handles opened in read transactions stay valid).
        _ = try db.realm.refresh()
        try db.write { try db.set("A", k, "v", .double(-1)) }
        XCTAssertEqual(try db.get("A", k, "v"), .double(-1))
    }

    func testMisuseErrors() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("A", [prop("v", .int)])]))
        expectError(.notInTransaction) { try db.create("A", [("v", .int(1))]) }
        expectError(.notInTransaction) { try db.realm.commitWrite() }
        try db.realm.beginWrite()
        expectError(.alreadyInTransaction) { try db.realm.beginWrite() }
        expectError(.alreadyInTransaction) { try db.realm.refresh() }
        let k = try db.create("A", [("v", .int(1))])
        try db.realm.commitWrite()
        expectError(.notInTransaction) { try db.set("A", k, "v", .int(2)) }
        expectError(.notInTransaction) { try db.delete("A", k) }
        try db.realm.beginWrite()
        expectError(.noSuchProperty) { try db.realm.setValue(table: db.cls("A"), key: k, property: 99, value: .int(1)) }
        expectError(.invalidatedObject) { try db.set("A", 12345, "v", .int(2)) }
        db.realm.cancelWrite()
        expectError(.noSuchClass) { try ObjectResults(realm: db.realm, tableKey: 777) }
    }
}
