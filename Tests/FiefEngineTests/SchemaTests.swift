import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

final class SchemaTests: XCTestCase {

    func testAdditiveChangesWithoutVersionBump() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("a", .int)])]))
            try db.write { _ = try db.createMany("A", ["a"], (0..<300).map { [.int(Int64($0))] }) }
            db.realm.close()
        }
        let grown = makeSchema([
            ("A", [prop("a", .int), prop("n", .int, .nullable), prop("s", .string), prop("os", .string, .nullable), prop("x", .int, .indexed), prop("t", .timestamp)]),
            ("B", [prop("id", .string, .primaryKey), prop("v", .double)]),
        ])
        do {
            let db = try DB.open(path, grown)
            XCTAssertEqual(try db.count("A"), 300)
            XCTAssertEqual(try db.count("B"), 0)
            XCTAssertEqual(try db.get("A", 7, "a"), .int(7))
            XCTAssertEqual(try db.get("A", 7, "n"), .null)
            XCTAssertEqual(try db.get("A", 7, "s"), .string(""))
            XCTAssertEqual(try db.get("A", 7, "os"), .null)
            XCTAssertEqual(try db.get("A", 7, "x"), .int(0))
            XCTAssertEqual(try db.get("A", 7, "t"), .timestamp(0, 0))
            // The index of a new property already covers the old objects (value 0).
            XCTAssertEqual(try db.keys("A", "x == 0").count, 300)
            // Setting the new property on one old object leaves its neighbours null.
            try db.write {
                try db.set("A", 0, "n", .int(5))
                try db.set("A", 1, "os", .string("one"))
                try db.set("A", 2, "x", .int(2))
                _ = try db.create("B", [("id", .string("b")), ("v", .double(1))])
            }
            XCTAssertEqual(try db.get("A", 3, "n"), .null)
            XCTAssertEqual(try db.get("A", 3, "os"), .null)
            XCTAssertEqual(try db.keys("A", "n == nil").count, 299)
            XCTAssertEqual(try db.keys("A", "os == nil").count, 299)
            XCTAssertEqual(try db.keys("A", "x == 0").count, 299)
            XCTAssertEqual(try db.keys("A", "x == 2"), [2])
            db.realm.close()
        }
        // Opening with a subset of the classes (or none) keeps the others.
        let db = try DB.open(path, makeSchema([("B", [prop("id", .string, .primaryKey), prop("v", .double)])]))
        XCTAssertEqual(db.realm.schema.classes.map(\.name).sorted(), ["A", "B"])
        XCTAssertEqual(try db.get("A", 0, "n"), .int(5))
        let again = try DB.open(path, nil)
        XCTAssertEqual(try again.count("B"), 1)
    }

    func testIndexAndPrimaryKeyAddedLater() throws {
        let dir = tempDir()
        let path = dir.file()
        let plain = makeSchema([("A", [prop("s", .string), prop("i", .int), prop("u", .int)])])
        do {
            let db = try DB.open(path, plain)
            try db.write { _ = try db.createMany("A", ["s", "i", "u"], (0..<700).map { [.string("v\($0 % 13)"), .int(Int64($0 % 5)), .int(Int64($0) * 2)] }) }
            try db.write { for k in Int64(100)..<400 { try db.delete("A", k) } }
            db.realm.close()
        }
        let live = Array(0..<100) + Array(400..<700)
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("s", .string, .indexed), prop("i", .int, .indexed), prop("u", .int)])]))
            let table = try db.realm.table(db.cls("A"))
            XCTAssertEqual(table.indexDatabases.count, 2)
            for v in 0..<13 {
                let q = try db.query("A", "s == $0", [.string("v\(v)")])
                XCTAssertNotNil(try db.realm.indexCandidates(q.filters[0], table))
                XCTAssertEqual(try q.allKeys(), live.filter { $0 % 13 == v }.map(Int64.init))
            }
            XCTAssertEqual(try db.keys("A", "i == 3"), live.filter { $0 % 5 == 3 }.map(Int64.init))
            // The built index is maintained by later writes.
            try db.write { try db.set("A", 0, "s", .string("v5")) }
            XCTAssertEqual(try db.keys("A", "s == 'v5'").first, 0)
            db.realm.close()
        }
        // Dropping the index again is also additive.
        do {
            let db = try DB.open(path, plain)
            XCTAssertTrue(try db.realm.table(db.cls("A")).indexDatabases.isEmpty)
            XCTAssertEqual(try db.keys("A", "s == 'v5'").first, 0)
            db.realm.close()
        }
        // A new primary key needs a version bump, and unique values.
        let keyed = makeSchema([("A", [prop("s", .string), prop("i", .int, .primaryKey), prop("u", .int)])])
        expectError(.schemaMismatch) { try DB.open(path, keyed) }
        expectError(.schemaMismatch) { try DB.open(path, keyed, version: 1) }
        let unique = makeSchema([("A", [prop("s", .string), prop("i", .int), prop("u", .int, .primaryKey)])])
        let db = try DB.open(path, unique, version: 1)
        XCTAssertEqual(try db.find("A", .int(800)), 400)
        XCTAssertNil(try db.find("A", .int(202)))
        XCTAssertEqual(try db.find("A", .int(2)), 1)
        try db.realm.beginWrite()
        expectError(.duplicatePrimaryKey) { try db.create("A", [("u", .int(10))]) }
        db.realm.cancelWrite()
    }

    func testMismatchWithoutVersionBump() throws {
        let dir = tempDir()
        let path = dir.file()
        let original = makeSchema([("A", [prop("id", .int, .primaryKey), prop("a", .int), prop("b", .string, .nullable)])])
        do {
            let db = try DB.open(path, original, version: 2)
            try db.write { _ = try db.create("A", [("id", .int(1)), ("a", .int(10)), ("b", .string("x"))]) }
            db.realm.close()
        }
        let changes: [Schema] = [
            makeSchema([("A", [prop("id", .int, .primaryKey), prop("a", .string), prop("b", .string, .nullable)])]),
            makeSchema([("A", [prop("id", .int, .primaryKey), prop("a", .int, .nullable), prop("b", .string, .nullable)])]),
            makeSchema([("A", [prop("id", .int, .primaryKey), prop("a", .int)])]),
            makeSchema([("A", [prop("id", .int), prop("a", .int), prop("b", .string, .nullable)])]),
            makeSchema([("A", [prop("id", .string, .primaryKey), prop("a", .int), prop("b", .string, .nullable)])]),
        ]
        for (n, schema) in changes.enumerated() {
            let error = expectError(.schemaMismatch, "change \(n)") { try DB.open(path, schema, version: 2) }
            XCTAssertFalse(error?.message.isEmpty ?? true)
        }
        // A lower version is refused even with the same schema.
        expectError(.schemaVersion) { try DB.open(path, original, version: 1) }
        // Nothing changed in the file.
        let db = try DB.open(path, original, version: 2)
        XCTAssertEqual(try db.get("A", 0, "b"), .string("x"))
        XCTAssertEqual(try db.find("A", .int(1)), 0)
        XCTAssertEqual(db.realm.schema.objectClass(named: "A")?.properties.count, 3)
        // An invalid schema is refused before touching the file.
        expectError(.invalidSchema) { try DB.open(path, makeSchema([("A", [prop("x", .double, .primaryKey)])])) }
        expectError(.invalidSchema) { try DB.open(path, makeSchema([("A", [prop("x", .int), prop("x", .int)])])) }
        expectError(.invalidSchema) { try DB.open(path, makeSchema([("A", [prop("x", .float, .indexed)])])) }
    }

    func testRemovalAndTypeChangeWithHigherVersionDropData() throws {
        let dir = tempDir()
        let path = dir.file()
        var oldKeys: [String: UInt32] = [:]
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("a", .int), prop("b", .string, .indexed), prop("c", .int)])]))
            try db.write { _ = try db.createMany("A", ["a", "b", "c"], (0..<300).map { [.int(Int64($0)), .string("b\($0)"), .int(Int64(-$0))] }) }
            for n in ["a", "b", "c"] { oldKeys[n] = db.pkey("A", n) }
            db.realm.close()
        }
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("a", .string), prop("c", .int)])]), version: 1)
            XCTAssertEqual(try db.count("A"), 300)
            XCTAssertEqual(try db.get("A", 299, "a"), .string(""))
            XCTAssertEqual(try db.get("A", 299, "c"), .int(-299))
            XCTAssertNil(db.realm.schema.objectClass(named: "A")?.property(named: "b"))
            XCTAssertNotEqual(db.pkey("A", "a"), oldKeys["a"])
            XCTAssertEqual(db.pkey("A", "c"), oldKeys["c"])
            // The old columns' chunks are gone from the file.
            let table = try db.realm.table(db.cls("A"))
            let txn = try db.realm.currentSnapshot().txn
            for cluster in Int64(0)...1 {
                XCTAssertNil(try LMDB.get(txn, table.data, integerKey: ClusterLayout.chunkKey(column: oldKeys["a"]!, cluster: cluster)))
                XCTAssertNil(try LMDB.get(txn, table.data, integerKey: ClusterLayout.chunkKey(column: oldKeys["b"]!, cluster: cluster)))
                XCTAssertNotNil(try LMDB.get(txn, table.data, integerKey: ClusterLayout.chunkKey(column: oldKeys["c"]!, cluster: cluster)))
            }
            try db.write { try db.set("A", 3, "a", .string("three")) }
            db.realm.close()
        }
        // Bringing 'b' back gives defaults, not the old data.
        let db = try DB.open(path, makeSchema([("A", [prop("a", .string), prop("c", .int), prop("b", .string, .indexed)])]), version: 2)
        XCTAssertEqual(try db.get("A", 5, "b"), .string(""))
        XCTAssertEqual(try db.keys("A", "b == 'b5'"), [])
        XCTAssertEqual(try db.keys("A", "b == ''").count, 300)
        XCTAssertEqual(try db.get("A", 3, "a"), .string("three"))
    }

    func testDeleteIfMigrationNeeded() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("a", .int)])]))
            try db.write { _ = try db.create("A", [("a", .int(1))]) }
            db.realm.close()
        }
        let changed = makeSchema([("A", [prop("a", .string)]), ("B", [prop("b", .int)])])
        // Not needed: nothing is deleted.
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("a", .int)])]), deleteIfMigrationNeeded: true)
            XCTAssertEqual(try db.count("A"), 1)
            // Needed, but another realm of this process holds the file.
            expectError(.fileLocked) { try DB.open(path, changed, deleteIfMigrationNeeded: true) }
            XCTAssertEqual(try db.count("A"), 1)
            db.realm.close()
        }
        let db = try DB.open(path, changed, deleteIfMigrationNeeded: true)
        XCTAssertEqual(try db.count("A"), 0)
        XCTAssertEqual(try db.realm.version(), 0)
        try db.write { _ = try db.create("A", [("a", .string("fresh"))]) }
        XCTAssertEqual(try db.get("A", 0, "a"), .string("fresh"))
    }

    // MARK: Files that are not Fief files

    private func writeFile(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private func overwrite(_ path: String, at offset: Int, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        close(fd)
    }

    /// Write raw key/values into an LMDB file (named database `database`, or the main one).
    private func rawLMDB(_ path: String, database: String?, _ entries: [(String, [UInt8])]) throws {
        withRawLMDB(path, database: database) { txn, dbi in
            for (key, value) in entries {
                var k = Array(key.utf8)
                var v = value
                k.withUnsafeMutableBytes { kb in
                    v.withUnsafeMutableBytes { vb in
                        var mk = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress)
                        var mv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                        XCTAssertEqual(mdb_put(txn, dbi, &mk, &mv, 0), 0)
                    }
                }
            }
        }
    }

    private func expectNotFief(_ path: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for readOnly in [false, true] {
            do {
                _ = try DB.open(path, makeSchema([("A", [prop("a", .int)])]), readOnly: readOnly)
                XCTFail("\(label) opened (readOnly \(readOnly))", file: file, line: line)
            } catch let error as FiefError {
                XCTAssertEqual(error.code, .fileNotFief, "\(label) readOnly \(readOnly): \(error.message)", file: file, line: line)
            } catch {
                XCTFail("\(error)", file: file, line: line)
            }
            XCTAssertFalse(EnvironmentRegistry.isOpen(path: path), file: file, line: line)
        }
    }

    func testFilesThatAreNotFief() throws {
        let dir = tempDir()
        var rng = SeededRandom(seed: 99)
        // Random bytes.
        let random = dir.file("random.fief")
        writeFile(random, (0..<65536).map { _ in UInt8.random(in: 0...255, using: &rng) })
        expectNotFief(random, "random bytes")
        // A text file.
        let text = dir.file("text.fief")
        writeFile(text, Array(String(repeating: "not a database\n", count: 1000).utf8))
        expectNotFief(text, "text")
        // Another program's LMDB file.
        let foreign = dir.file("foreign.fief")
        try rawLMDB(foreign, database: nil, [("hello", [1, 2, 3])])
        expectNotFief(foreign, "foreign LMDB")
        let foreignMeta = dir.file("foreignmeta.fief")
        try rawLMDB(foreignMeta, database: nil, [("meta", [1, 2, 3])])
        expectNotFief(foreignMeta, "a plain 'meta' key")
        // An LMDB file with a 'meta' database that Fief did not write.
        let fakeMeta = dir.file("fakemeta.fief")
        try rawLMDB(fakeMeta, database: "meta", [("magic", Array("NOPE".utf8))])
        expectNotFief(fakeMeta, "wrong magic")
        // A Fief file whose stored schema is damaged.
        let damagedSchema = dir.file("schema.fief")
        do {
            let db = try DB.open(damagedSchema, makeSchema([("A", [prop("a", .int)])]))
            try db.write { _ = try db.create("A", [("a", .int(1))]) }
            db.realm.close()
        }
        // Sealed (format 8), but not a schema: not a Fief file.
        let garbage: [UInt8] = [5, 0, 0, 0, 200, 0, 0, 0, 65]
        let sealed = SchemaRecord.key.withUnsafeBytes { key in
            garbage.withUnsafeBytes { EntrySeal.sealed($0, table: 0, database: SchemaRecord.database, key: key) }
        }
        try rawLMDB(damagedSchema, database: "meta", [("schema", sealed)])
        expectNotFief(damagedSchema, "damaged schema")
        // Not sealed: the record fails its checksum, damage.
        try rawLMDB(damagedSchema, database: "meta", [("schema", garbage)])
        for readOnly in [false, true] {
            expectError(.fileCorrupt) { try DB.open(damagedSchema, nil, readOnly: readOnly) }
        }
        // Damaged meta values.
        let damagedVersion = dir.file("version.fief")
        do { _ = try DB.open(damagedVersion, makeSchema([("A", [prop("a", .int)])])) }
        try rawLMDB(damagedVersion, database: "meta", [("version", [1, 2, 3])])
        expectNotFief(damagedVersion, "damaged version")
        // A newer file format.
        let newer = dir.file("newer.fief")
        do { _ = try DB.open(newer, makeSchema([("A", [prop("a", .int)])])) }
        try rawLMDB(newer, database: "meta", [("format", [11, 0, 0, 0, 0, 0, 0, 0])])
        expectError(.fileFormat) { try DB.open(newer, nil) }
        // A Fief file whose header pages are overwritten.
        let damaged = dir.file("damaged.fief")
        do {
            let db = try DB.open(damaged, makeSchema([("A", [prop("a", .int), prop("s", .string)])]))
            try db.write { _ = try db.createMany("A", ["a", "s"], (0..<500).map { [.int(Int64($0)), .string("s\($0)")] }) }
            db.realm.close()
        }
        overwrite(damaged, at: 0, (0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) })
        expectNotFief(damaged, "damaged header")
        // An empty file: a read-only open cannot make it a realm.
        let empty = dir.file("empty.fief")
        writeFile(empty, [])
        do {
            _ = try DB.open(empty, nil, readOnly: true)
            XCTFail("empty file opened read-only")
        } catch let error as FiefError {
            XCTAssertEqual(error.code, .fileNotFief, "\(error)")
        }
        // A directory.
        XCTAssertThrowsError(try DB.open(dir.path, nil))
    }

    func testReadOnlyOpens() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("a", .int), prop("s", .string, .indexed)])])
        expectError(.fileNotFound) { try DB.open(path, schema, readOnly: true) }
        XCTAssertEqual(access(path, F_OK), -1, "a failed read-only open creates nothing")
        do {
            let db = try DB.open(path, schema)
            try db.write { _ = try db.createMany("A", ["a", "s"], (0..<10).map { [.int(Int64($0)), .string("s\($0 % 2)")] }) }
            db.realm.close()
        }
        do {
            let ro = try DB.open(path, schema, readOnly: true)
            XCTAssertTrue(ro.realm.isReadOnly)
            XCTAssertEqual(try ro.count("A"), 10)
            XCTAssertEqual(try ro.keys("A", "s == 's1'"), [1, 3, 5, 7, 9])
            expectError(.readOnly) { try ro.realm.beginWrite() }
            expectError(.readOnly) { try ro.set("A", 0, "a", .int(1)) }
            XCTAssertEqual(try ro.realm.refresh(), false)
            // The file's schema is used as it is; a different one cannot be applied.
            let other = try DB.open(path, nil, readOnly: true)
            XCTAssertEqual(other.realm.schema.classes.count, 1)
            expectError(.readOnly) { try DB.open(path, makeSchema([("A", [prop("a", .int), prop("s", .string, .indexed), prop("n", .int)])]), readOnly: true) }
        }
        XCTAssertFalse(EnvironmentRegistry.isOpen(path: path))
        // Read-only next to a writable realm of the same file sees its commits after refresh.
        let rw = try DB.open(path, schema)
        let ro2 = try DB.open(path, nil, readOnly: true)
        expectError(.readOnly) { try ro2.realm.beginWrite() }
        try rw.write { _ = try rw.create("A", [("a", .int(99))]) }
        XCTAssertEqual(try ro2.count("A"), 10)
        XCTAssertTrue(try ro2.realm.refresh())
        XCTAssertEqual(try ro2.count("A"), 11)
    }
}
