import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Set entries carry `EntrySeal`'s checksum (format 10): a flipped bit in
/// a stored entry's key (one element turned into another) is damage that
/// reads, point reads and queries report (FIEF_ERR_FILE_CORRUPT), verify
/// reports, and copy leaves out; a format-9 file (set entries unsealed) is
/// sealed by the upgrade and reads as before.
final class SetSealTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Person", [prop("name", .string),
                    Property(name: "tags", type: .string, collection: .set),
                    Property(name: "nums", type: .mixed, collection: .set),
                    Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .set)]),
    ])
    private static let long = String(repeating: "long text ", count: 60)

    private func makeFile(_ path: String) throws {
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        try db.write {
            let dogs = try (0..<3).map { try db.create("Dog", [("name", .string("d\($0)"))]) }
            for p in 0..<3 {
                let person = try db.create("Person", [("name", .string("p\(p)"))])
                for tag in ["lake", "river", "sea", Self.long + "\(p)"] { try db.setInsert("Person", person, "tags", .string(tag)) }
                for n: TV in [.int(Int64(p)), .double(2.5), .string("s\(p)"), .link(db.cls("Dog"), dogs[p])] {
                    try db.setInsert("Person", person, "nums", n)
                }
                try db.setInsert("Person", person, "dogs", .link(db.cls("Dog"), dogs[(p + 1) % 3]))
            }
        }
    }

    /// Every set of every person, as text (an error as its code).
    private func readAll(_ path: String) throws -> [String: String] {
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        var out: [String: String] = [:]
        for p in Int64(0)..<3 {
            for name in ["tags", "nums", "dogs"] {
                do { out["\(p).\(name)"] = "\(try db.set("Person", p, name))" } catch let error as FiefError {
                    out["\(p).\(name)"] = "error \(error.code.rawValue)"
                }
            }
        }
        return out
    }

    private func verify(_ path: String) throws -> [String] {
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        return problems
    }

    private func setDatabase(_ path: String, _ name: String) throws -> String {
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        return Table.setName(db.cls("Person"), db.pkey("Person", name))
    }

    /// Every stored (key, value) of a database.
    private func stored(_ path: String, _ database: String) -> [([UInt8], [UInt8])] {
        var found: [([UInt8], [UInt8])] = []
        withRawLMDB(path, database: database, readOnly: true) { txn, dbi in
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                found.append((Array(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)),
                              Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))))
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
        }
        return found
    }

    /// Move the entry under `key` to `newKey`, its value unchanged.
    private func rekey(_ path: String, _ database: String, _ key: [UInt8], _ newKey: [UInt8], _ value: [UInt8]) {
        withRawLMDB(path, database: database) { txn, dbi in
            var key = key, newKey = newKey, value = value
            key.withUnsafeMutableBytes { kb in
                var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress)
                XCTAssertEqual(mdb_del(txn, dbi, &k, nil), 0)
            }
            newKey.withUnsafeMutableBytes { kb in
                value.withUnsafeMutableBytes { vb in
                    var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress), v = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &k, &v, 0), 0)
                }
            }
        }
    }

    func testFlippedBitInASetKeyIsDamage() throws {
        let dir = tempDir()
        let original = dir.file("original.fief")
        try makeFile(original)
        XCTAssertEqual(try verify(original), [])
        let expected = try readAll(original)
        XCTAssertFalse(expected.values.contains { $0.hasPrefix("error") }, "\(expected)")
        let tags = try setDatabase(original, "tags")
        // Every stored set entry ends with its checksum.
        let db = try DB.open(original, nil, readOnly: true)
        let (person, tagsKey, numsKey) = (db.cls("Person"), db.pkey("Person", "tags"), db.pkey("Person", "nums"))
        db.realm.close()
        for (name, property) in [(tags, tagsKey), (try setDatabase(original, "nums"), numsKey)] {
            for (k, v) in stored(original, name) {
                XCTAssertNotNil(v.withUnsafeBytes { vb in k.withUnsafeBytes { EntrySeal.open(vb, table: person, database: property, key: $0) } }, "\(name) \(k)")
            }
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        // Person 0's "river" turned into "siver" (the example damage), and
        // its long (cut) tag with one bit of its hash flipped.
        let entries = stored(original, tags)
        var owner0: [UInt8] = []
        SetStore.appendBigEndian(0, &owner0)
        guard let river = entries.first(where: { $0.0 == owner0 + [SetStore.Class.string.rawValue] + Array("river".utf8) }),
              let long = entries.first(where: { $0.0.starts(with: owner0) && $0.0.count > SetStore.cutBytes }) else {
            return XCTFail("entries not found")
        }
        for (round, (key, value, flipAt)) in [(river.0, river.1, SetStore.ownerBytes + 1), (long.0, long.1, long.0.count - 1)].enumerated() {
            let path = dir.file("damaged\(round).fief"), copy = dir.file("copy\(round).fief")
            try bytes.write(to: URL(fileURLWithPath: path))
            var flipped = key
            flipped[flipAt] ^= 1
            rekey(path, tags, key, flipped, value)
            let label = "round \(round)"
            // The set reads as damage (never another element); the others read as before.
            let read = try readAll(path)
            XCTAssertEqual(read["0.tags"], "error \(FiefError.Code.fileCorrupt.rawValue)", label)
            for (at, want) in expected where at != "0.tags" { XCTAssertEqual(read[at], want, "\(label): \(at)") }
            let damaged = try DB.open(path, nil, readOnly: true)
            let error = expectError(.fileCorrupt) { try damaged.set("Person", 0, "tags") }
            XCTAssertTrue(error?.message.contains("an entry of set 'Person.tags' of object 0 fails its checksum") ?? false, error?.message ?? "")
            if round == 0 {
                // A point read of the changed element, and a query over the set's elements.
                expectError(.fileCorrupt, label) { try damaged.setContains("Person", 0, "tags", .string("siver")) }
                expectError(.fileCorrupt, label) { try damaged.keys("Person", "ANY tags == 'siver'") }
                XCTAssertTrue(try damaged.setContains("Person", 1, "tags", .string("river")))
            }
            damaged.realm.close()
            if round == 0 {
                // A write that meets the entry fails too (a fresh copy of the
                // damaged file: this process holds the other open read-only).
                let other = dir.file("writable\(round).fief")
                try Data(contentsOf: URL(fileURLWithPath: path)).write(to: URL(fileURLWithPath: other))
                let writable = try DB.open(other, nil)
                expectError(.fileCorrupt, label) { try writable.write { try writable.setRemove("Person", 0, "tags", .string("siver")) } }
                writable.realm.close()
            }
            // Verify reports it.
            let problems = try verify(path)
            XCTAssertTrue(problems.contains { $0.contains("set 'tags' of object 0: an entry fails its checksum") }, "\(label): \(problems)")
            // Copy leaves it out and says so; the copy verifies and reads the rest.
            var copyProblems: [String] = []
            let n = try FileCopy.copy(from: path, to: copy) { kind, text in if kind == .problem { copyProblems.append(text) } }
            XCTAssertGreaterThan(n, 0, label)
            XCTAssertTrue(copyProblems.contains { $0.contains("an entry fails its checksum: left out") }, "\(label): \(copyProblems)")
            XCTAssertEqual(try verify(copy), [], "\(label): copy said \(copyProblems)")
            let salvaged = try readAll(copy)
            for (at, want) in expected where at != "0.tags" { XCTAssertEqual(salvaged[at], want, "\(label): \(at) in the copy") }
            let copied = try DB.open(copy, nil, readOnly: true)
            let left = try copied.set("Person", 0, "tags")
            XCTAssertEqual(left.count, 3, "\(label): \(left)")
            XCTAssertFalse(left.contains(.string("siver")))
            copied.realm.close()
            // The copy's entries are sealed.
            for (k, v) in stored(copy, tags) {
                XCTAssertNotNil(v.withUnsafeBytes { vb in k.withUnsafeBytes { EntrySeal.open(vb, table: person, database: tagsKey, key: $0) } }, label)
            }
        }
    }

    /// A format-9 file (set entries without checksums): verify and copy
    /// read its sets unsealed, a read-only open refuses it while its sets
    /// hold entries, and a writable open seals every set entry (format 10),
    /// after which it reads as before and verifies clean.
    func testFormat9SetsAreSealedByTheUpgrade() throws {
        let dir = tempDir()
        let path = dir.file()
        try makeFile(path)
        let expected = try readAll(path)
        let names = try ["tags", "nums", "dogs"].map { try setDatabase(path, $0) }
        let sealed = names.map { stored(path, $0) }
        Format6Tests.setFormat(path, 9)
        XCTAssertEqual(Format6Tests.storedFormat(path), 9)
        for (name, entries) in zip(names, sealed) {
            XCTAssertEqual(stored(path, name).map { $0.1 }, entries.map { Array($0.1.dropLast(EntrySeal.bytes)) }, name)
        }
        XCTAssertEqual(try verify(path), [], "a format-9 file's set entries have no checksums")
        let error = expectError(.fileFormat) { try DB.open(path, nil, readOnly: true) }
        XCTAssertTrue(error?.message.contains("file format 9, whose sets (Person.tags, Person.nums, Person.dogs) have no checksums") ?? false, error?.message ?? "")
        // A copy of it is the current format, whole and sealed.
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(Format6Tests.storedFormat(copy), MetaKeys.formatValue)
        XCTAssertEqual(try verify(copy), [])
        XCTAssertEqual(try readAll(copy), expected)
        for (name, entries) in zip(names, sealed) { XCTAssertEqual(stored(copy, name).map { $0.1 }, entries.map { $0.1 }, name) }
        // The upgrade.
        try DB.open(path, nil).realm.close()
        XCTAssertEqual(Format6Tests.storedFormat(path), MetaKeys.formatValue)
        XCTAssertEqual(try verify(path), [])
        XCTAssertEqual(try readAll(path), expected)
        for (name, entries) in zip(names, sealed) {
            XCTAssertEqual(stored(path, name).map { $0.0 }, entries.map { $0.0 }, name)
            XCTAssertEqual(stored(path, name).map { $0.1 }, entries.map { $0.1 }, name)
        }
        let db = try DB.open(path, nil)
        defer { db.realm.close() }
        XCTAssertTrue(try db.setContains("Person", 2, "tags", .string(Self.long + "2")))
        XCTAssertEqual(try db.keys("Person", "ANY tags == 'river'").count, 3)
        try db.write { XCTAssertTrue(try db.setRemove("Person", 1, "nums", .double(2.5))) }
        XCTAssertEqual(try db.set("Person", 1, "nums").count, 3)
    }
}
