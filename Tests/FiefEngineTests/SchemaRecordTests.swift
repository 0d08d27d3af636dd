import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// The sealed schema record (format 8, `SchemaRecord`): a flipped bit in
/// the stored schema is damage, never a schema that reads other columns;
/// a format-7 file (record without a seal) is read as it is by a read-only
/// open and verify, and upgraded by a writable open and by copy.
final class SchemaRecordTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string), prop("age", .int)]),
        ("Box", [prop("label", .string),
                 Property(name: "ints", type: .int, collection: .map),
                 Property(name: "pets", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map)]),
    ])

    private func makeFile(_ path: String) throws {
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        try db.write {
            let dogs = try (0..<4).map { try db.create("Dog", [("name", .string("d\($0)")), ("age", .int(Int64($0 + 1)))]) }
            for b in 0..<3 {
                let box = try db.create("Box", [("label", .string("b\(b)"))])
                try db.mapSet("Box", box, "ints", "a", .int(Int64(b)))
                try db.mapSet("Box", box, "pets", "p", .link(db.cls("Dog"), dogs[b]))
            }
        }
    }

    private func readAll(_ path: String, readOnly: Bool = true) throws -> [String] {
        let db = try DB.open(path, nil, readOnly: readOnly)
        defer { db.realm.close() }
        var out: [String] = []
        for dog in try db.keys("Dog") { out.append("dog \(dog) \(try db.get("Dog", dog, "name")) \(try db.get("Dog", dog, "age"))") }
        for box in try db.keys("Box") {
            out.append("box \(box) \(try db.get("Box", box, "label"))")
            for map in ["ints", "pets"] {
                let r = CollectionRef(.map, table: db.cls("Box"), owner: box, property: db.pkey("Box", map))
                for i in 0..<(try db.realm.map(r).count()) {
                    let (k, v) = try db.realm.map(r).entry(at: i)
                    out.append("  \(map).\(String(decoding: k, as: UTF8.self)) = \(TV(v))")
                }
            }
        }
        return out
    }

    private func schemaRecord(_ path: String) -> [UInt8] {
        var bytes: [UInt8] = []
        withRawLMDB(path, database: "meta", readOnly: true) { txn, dbi in
            var name = Array("schema".utf8)
            name.withUnsafeMutableBytes { raw in
                var key = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                var value = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &key, &value), 0)
                bytes = Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
            }
        }
        return bytes
    }

    private func setSchemaRecord(_ path: String, _ bytes: [UInt8]) {
        withRawLMDB(path, database: "meta") { txn, dbi in
            var name = Array("schema".utf8)
            var value = bytes
            name.withUnsafeMutableBytes { raw in
                value.withUnsafeMutableBytes { v in
                    var key = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                    var data = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &key, &data, 0), 0)
                }
            }
        }
    }

    private func problems(_ path: String) throws -> [String] {
        var found: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { found.append(text) } }
        return found
    }

    /// Whether the record ends with the seal of the bytes before it.
    private func isSealed(_ record: [UInt8]) -> Bool {
        guard record.count > EntrySeal.bytes else { return false }
        return record.withUnsafeBytes { raw in
            SchemaRecord.key.withUnsafeBytes { EntrySeal.open(raw, table: 0, database: SchemaRecord.database, key: $0) != nil }
        }
    }

    func testEveryFlippedBitInTheSchemaRecordIsDamage() throws {
        let dir = tempDir()
        let path = dir.file()
        try makeFile(path)
        let record = schemaRecord(path)
        XCTAssertTrue(isSealed(record))
        let pristine = dir.file("pristine.fief")
        try FileManager.default.copyItem(atPath: path, toPath: pristine)
        // Bits all over the record (the property keys and types among them, and the seal).
        for bit in stride(from: 0, to: record.count * 8, by: 11) {
            var flipped = record
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            setSchemaRecord(path, flipped)
            for readOnly in [true, false] {
                let error = expectError(.fileCorrupt) { try DB.open(path, nil, readOnly: readOnly) }
                XCTAssertTrue(error?.message.contains("schema") ?? false, error?.message ?? "bit \(bit)")
            }
            XCTAssertFalse(try problems(path).isEmpty, "bit \(bit)")
            expectError(.fileCorrupt) { try FileCopy.copy(from: path, to: dir.file("copy-\(bit).fief")) { _, _ in } }
        }
        setSchemaRecord(path, record)
        XCTAssertEqual(try readAll(path), try readAll(pristine))
    }

    /// A format-7 file: its record has no seal.  A read-only open and
    /// verify read it as it is; copy and a writable open make it format 9
    /// (the newest), whose record is sealed.
    func testFormat7FileIsReadAndUpgraded() throws {
        let dir = tempDir()
        let path = dir.file()
        try makeFile(path)
        let expected = try readAll(path)
        Format6Tests.setFormat(path, 7)
        XCTAssertFalse(isSealed(schemaRecord(path)))
        XCTAssertEqual(try readAll(path), expected)
        let (count, infos) = try Format6Tests.verify(path)
        XCTAssertEqual(count, 0)
        XCTAssertTrue(infos.contains { $0.contains("file format 7") }, "\(infos)")
        // A copy is of the newest format.
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(Format6Tests.storedFormat(copy), MetaKeys.formatValue)
        XCTAssertTrue(isSealed(schemaRecord(copy)))
        XCTAssertEqual(try problems(copy), [])
        XCTAssertEqual(try readAll(copy), expected)
        // The upgrade, by a writable open.
        XCTAssertEqual(try readAll(path, readOnly: false), expected)
        XCTAssertEqual(Format6Tests.storedFormat(path), MetaKeys.formatValue)
        XCTAssertTrue(isSealed(schemaRecord(path)))
        XCTAssertEqual(try problems(path), [])
        XCTAssertEqual(try readAll(path), expected)
    }
}
