import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// File format 6 (design.md, "Format history"): numbers Realm calls equal
/// are one element of a set of mixed values (decimal 2^70 and the double
/// 2^70 too), and files of format 5 are upgraded by a writable open (their
/// full-text indexes rebuilt, their sets' numbers moved to format 6's keys
/// and merged), read as they are by a read-only open unless they hold
/// either, and refused with directions then.  Format-5 files are the
/// fixture the format-5 library wrote (Tests/CAPI/format5_data.h), or files
/// this library wrote with the one difference format 5 would have stored
/// put back with raw LMDB.  (The C side, crash safety of the upgrade and
/// `fief copy`: Tests/CAPI/test_format5_upgrade.c.)
final class Format6Tests: XCTestCase {
    static let twoTo70 = 1180591620717411303424.0

    /// Decimal128 `coefficient` × 10^`exponent`.
    static func dec(_ coefficient: UInt128, _ exponent: Int, negative: Bool = false) -> Decimal128Bits {
        Decimal128Bits(low: UInt64(truncatingIfNeeded: coefficient),
                       high: (negative ? 1 << 63 : 0) | UInt64(exponent + 6176) << 49 | UInt64(truncatingIfNeeded: coefficient >> 64))
    }

    static let bagSchema = makeSchema([("Bag", [prop("id", .int, .primaryKey),
                                                Property(name: "values", type: .mixed, flags: .nullable, collection: .set),
                                                Property(name: "list", type: .mixed, flags: .nullable, collection: .list)])])

    /// The fixture written by the format-5 library, copied to `dir`.
    static func format5Fixture(in dir: TempDir, _ name: String = "format5.fief") throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CAPI/data/format5_fulltext_sets.fief")
        let path = dir.file(name)
        try FileManager.default.copyItem(atPath: source.path, toPath: path)
        return path
    }

    /// `meta/format` of the file at `path` (no realm may have it open).
    static func storedFormat(_ path: String) -> UInt64 {
        var format: UInt64 = 0
        withRawLMDB(path, database: "meta", readOnly: true) { txn, dbi in
            var name = Array("format".utf8)
            name.withUnsafeMutableBytes { raw in
                var key = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                var value = MDB_val()
                if mdb_get(txn, dbi, &key, &value) == 0, value.mv_size == 8 {
                    format = value.mv_data.loadUnaligned(as: UInt64.self)
                }
            }
        }
        return format
    }

    /// Set `meta/format` to `format`; marking a file of format 8 or later
    /// older drops the seal its schema record ends with (older formats
    /// store the record without one: `SchemaRecord`), and marking one of
    /// format 10 or later older drops the seal of every set entry (format
    /// 10 added them).
    static func setFormat(_ path: String, _ format: UInt64) {
        let current = storedFormat(path)
        if current >= 10 && format < 10 { unsealSets(path) }
        withRawLMDB(path, database: "meta") { txn, dbi in
            if SchemaRecord.isSealed(current) && !SchemaRecord.isSealed(format) {
                var name = Array("schema".utf8)
                name.withUnsafeMutableBytes { raw in
                    var key = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                    var value = MDB_val()
                    XCTAssertEqual(mdb_get(txn, dbi, &key, &value), 0)
                    var unsealed = Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size).dropLast(EntrySeal.bytes))
                    unsealed.withUnsafeMutableBytes { u in
                        var data = MDB_val(mv_size: u.count, mv_data: u.baseAddress)
                        XCTAssertEqual(mdb_put(txn, dbi, &key, &data, 0), 0)
                    }
                }
            }
            var name = Array("format".utf8)
            var value = format
            name.withUnsafeMutableBytes { raw in
                withUnsafeMutableBytes(of: &value) { v in
                    var key = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                    var data = MDB_val(mv_size: 8, mv_data: v.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &key, &data, 0), 0)
                }
            }
        }
    }

    /// Drop the checksum every set entry ends with (`EntrySeal`), as a file
    /// of format 9 or older stores them.
    static func unsealSets(_ path: String) {
        withRawLMDB(path, database: nil) { txn, main in
            var names: [String] = []
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, main, &cursor), 0)
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                let name = String(decoding: UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size), as: UTF8.self)
                if name.wholeMatch(of: /c[0-9]+\.s[0-9]+/) != nil { names.append(name) }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
            for name in names {
                var dbi: MDB_dbi = 0
                XCTAssertEqual(mdb_dbi_open(txn, name, 0, &dbi), 0)
                var entries: [([UInt8], [UInt8])] = []
                var c: OpaquePointer?
                XCTAssertEqual(mdb_cursor_open(txn, dbi, &c), 0)
                rc = mdb_cursor_get(c, &k, &v, MDB_FIRST)
                while rc == 0 {
                    let value = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                    XCTAssertGreaterThanOrEqual(value.count, EntrySeal.bytes)
                    entries.append((Array(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)), Array(value.dropLast(EntrySeal.bytes))))
                    rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)
                }
                mdb_cursor_close(c)
                for (key, value) in entries {
                    var key = key, value = value
                    key.withUnsafeMutableBytes { kb in
                        value.withUnsafeMutableBytes { vb in
                            var mk = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress), mv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                            XCTAssertEqual(mdb_put(txn, dbi, &mk, &mv, 0), 0)
                        }
                    }
                }
            }
        }
    }

    static func verify(_ path: String) throws -> (problems: Int, infos: [String]) {
        var infos: [String] = []
        var problems: [String] = []
        let count = try FileCheck.verify(path: path) { kind, line in
            if kind == .problem { problems.append(line) } else { infos.append(line) }
        }
        XCTAssertEqual(problems, [])
        return (count, infos)
    }

    // MARK: Equal numbers are one element

    /// Pairs of numbers Realm calls equal: each pair is one element of a
    /// set of mixed values (the second insert adds nothing, either finds
    /// and removes the element), and one value of a list's `find`.
    func testEqualNumbersAreOneElementOfASetOfMixedValues() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Self.bagSchema)
        func dec(_ coefficient: UInt128, _ exponent: Int, negative: Bool = false) -> Decimal128Bits {
            Self.dec(coefficient, exponent, negative: negative)
        }
        let equal: [(TV, TV)] = [
            (.decimal(dec(1 << 70, 0)), .double(Self.twoTo70)),
            (.double(Self.twoTo70), .decimal(dec(1 << 70, 0))),
            (.decimal(dec((1 << 70) * 10, -1)), .float(Float(Self.twoTo70))),          // 2^70 with a trailing zero
            (.decimal(dec(1 << 63, 0)), .double(0x1p63)),
            (.decimal(dec(1 << 64, 0, negative: true)), .double(-0x1p64)),
            (.decimal(dec(1, 20)), .double(1e20)),
            (.decimal(dec(1, 22)), .double(1e22)),                                       // 10^22: a double exactly
            (.decimal(dec(1 << 63, 0, negative: true)), .int(.min)),                     // int64's least: an int
            (.decimal(dec(1, 0)), .double(1)),
        ]
        let unequal: [(TV, TV)] = [
            (.decimal(dec((1 << 70) + 1, 0)), .double(Self.twoTo70)),                    // no double is 2^70 + 1
            (.decimal(dec(1, 23)), .double(1e23)),                                       // 10^23 is no double
            (.decimal(dec(1 << 63, 0)), .int(.max)),
        ]
        try db.write {
            for (i, (a, b)) in (equal + unequal).enumerated() {
                let isEqual = i < equal.count
                let bag = try db.create("Bag", [("id", .int(Int64(i)))])
                XCTAssertTrue(try db.setInsert("Bag", bag, "values", a), "\(a)")
                XCTAssertEqual(try db.setInsert("Bag", bag, "values", b), !isEqual, "\(a) and \(b)")
                XCTAssertEqual(try db.set("Bag", bag, "values").count, isEqual ? 1 : 2)
                XCTAssertTrue(try db.setContains("Bag", bag, "values", b))
                try TV.withValues([a]) { v in
                    try db.realm.list(CollectionRef(.list, table: db.cls("Bag"), owner: bag, property: db.pkey("Bag", "list"))).insert(v[0], at: 0)
                }
                let found = try TV.withValues([b]) { v in
                    try db.realm.list(CollectionRef(.list, table: db.cls("Bag"), owner: bag, property: db.pkey("Bag", "list"))).firstIndex(of: v[0])
                }
                XCTAssertEqual(found, isEqual ? 0 : nil, "\(a) and \(b) in a list")
                XCTAssertTrue(try db.setRemove("Bag", bag, "values", b))
                XCTAssertEqual(try db.set("Bag", bag, "values").count, isEqual ? 0 : 1)
            }
        }
        // Distinct over mixed values agrees (it compares values, not keys).
        try db.write {
            let a = try db.create("Bag", [("id", .int(100))])
            let b = try db.create("Bag", [("id", .int(101))])
            try db.setInsert("Bag", a, "values", .decimal(dec(1 << 70, 0)))
            try db.setInsert("Bag", b, "values", .double(Self.twoTo70))
        }
        XCTAssertEqual(try db.query("Bag", "ANY values == $0", [.decimal(dec(1 << 70, 0))]).count(), 2)
        db.realm.close()
        XCTAssertEqual(try Self.verify(dir.file()).problems, 0)
    }

    /// Over many numbers near and beyond int64's range, as ints, floats,
    /// doubles and decimals: two have one set key exactly when Realm's
    /// equality (`MixedOrder.equal`) calls them equal.
    func testSetKeysAreEqualExactlyWhenTheNumbersAre() {
        var rng = SeededRandom(seed: 6)
        var values: [Value] = []
        for _ in 0..<100 {
            let power = Int.random(in: 0...90, using: &rng)
            let mantissa = UInt128(UInt64.random(in: 1...(1 << 20), using: &rng))
            let magnitude = Double(UInt64(mantissa)) * pow(2.0, Double(power))
            let negative = Bool.random(using: &rng)
            let d = negative ? -magnitude : magnitude
            values.append(.double(d))
            values.append(.float(Float(d)))
            if magnitude < 0x1p63 { values.append(.int(Int64(d))) }
            // The same number as a decimal when its integer fits 113 bits.
            if power <= 90 {
                let integer = mantissa << UInt128(power)
                values.append(.decimal128(Self.dec(integer, 0, negative: negative)))
                values.append(.decimal128(Self.dec(integer + 1, 0, negative: negative)))
                if integer < UInt128(1) << 100 {
                    values.append(.decimal128(Self.dec(integer * 100, -2, negative: negative)))
                }
            }
            let tens = Int.random(in: 15...25, using: &rng)
            values.append(.decimal128(Self.dec(UInt128(mantissa), tens, negative: negative)))
            values.append(.double((negative ? -1 : 1) * Double(UInt64(mantissa)) * pow(10.0, Double(tens))))
        }
        let keys = values.map(SetStore.mixedKey)
        var mismatches = 0, equalPairs = 0
        for i in values.indices {
            for j in values.indices {
                let equal = MixedOrder.equal(values[i], values[j])
                if equal && i != j { equalPairs += 1 }
                guard (keys[i] == keys[j]) != equal else { continue }
                mismatches += 1
                if mismatches < 5 { XCTFail("\(TV(values[i])) and \(TV(values[j])): keys \(equal ? "differ" : "equal"), values \(equal ? "equal" : "differ")") }
            }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(equalPairs, values.count)   // many equal numbers of different types
    }

    // MARK: Format 5

    /// A set of mixed values as format 5 stored it (the decimal 2^70 under
    /// its format-5 key; no full-text index): a read-only open says which
    /// set and how to upgrade; verify finds no damage and counts it; a
    /// writable open moves it and makes the file format 6.
    func testFormat5SetKeysAreMovedByTheUpgrade() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, Self.bagSchema)
            try db.write {
                let bag = try db.create("Bag", [("id", .int(1))])
                try db.setInsert("Bag", bag, "values", .decimal(Self.dec(1 << 70, 0)))
                try db.setInsert("Bag", bag, "values", .int(7))
                let other = try db.create("Bag", [("id", .int(2))])
                try db.setInsert("Bag", other, "values", .double(0.5))
            }
            db.realm.close()
        }
        XCTAssertEqual(Self.storedFormat(path), MetaKeys.formatValue)
        // As format 5 stored it: the decimal's entry under its format-5 key.
        let decimal = Value.decimal128(Self.dec(1 << 70, 0))
        withRawLMDB(path, database: "c1.s2") { txn, dbi in
            var canonical = SetStore.mixedKey(decimal)
            canonical.replaceSubrange(0..<8, with: withUnsafeBytes(of: Int64(0).bigEndian, Array.init))
            let old = SetStore.format5MixedKey(decimal, owner: 0)!
            XCTAssertNotEqual(old, canonical)
            var stored: [UInt8] = []
            canonical.withUnsafeMutableBytes { raw in
                var key = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
                var value = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &key, &value), 0)
                stored = Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
                XCTAssertEqual(mdb_del(txn, dbi, &key, nil), 0)
            }
            var oldKey = old
            oldKey.withUnsafeMutableBytes { k in
                stored.withUnsafeMutableBytes { v in
                    var key = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                    var value = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &key, &value, 0), 0)
                }
            }
        }
        Self.setFormat(path, 5)
        let refused = expectError(.fileFormat) { try DB.open(path, nil, readOnly: true) }
        XCTAssertTrue(refused?.message.contains("file format 5") ?? false, refused?.message ?? "")
        XCTAssertTrue(refused?.message.contains("1 number in sets of mixed values (Bag.values)") ?? false, refused?.message ?? "")
        XCTAssertTrue(refused?.message.contains("fief copy") ?? false, refused?.message ?? "")
        XCTAssertFalse(refused?.message.contains("full-text") ?? true, refused?.message ?? "")
        let before = try Self.verify(path)
        XCTAssertEqual(before.problems, 0)
        XCTAssertTrue(before.infos.contains { $0.contains("1 number keyed in format 5's form (0 of them beside an equal number") }, "\(before.infos)")
        // Format 5 says the decimal is not there (a format-6 lookup); the upgrade finds it.
        do {
            let db = try DB.open(path, Self.bagSchema)
            XCTAssertEqual(try db.set("Bag", 0, "values").count, 2)
            XCTAssertTrue(try db.setContains("Bag", 0, "values", .double(Self.twoTo70)))
            XCTAssertTrue(try db.setContains("Bag", 0, "values", .decimal(Self.dec(1 << 70, 0))))
            try db.write { XCTAssertFalse(try db.setInsert("Bag", 0, "values", .double(Self.twoTo70))) }
            db.realm.close()
        }
        XCTAssertEqual(Self.storedFormat(path), MetaKeys.formatValue)
        let after = try Self.verify(path)
        XCTAssertEqual(after.problems, 0)
        XCTAssertFalse(after.infos.contains { $0.contains("format 5's form") })
        let db = try DB.open(path, nil, readOnly: true)
        XCTAssertEqual(try db.set("Bag", 0, "values").count, 2)
    }

    /// A format-6 file whose set holds an element under another key than
    /// its value's is damaged (verify says so); in format 5 the same entry
    /// is format 5's key, counted, not a problem.
    func testVerifyOfFormat6ReportsAMisKeyedElement() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, Self.bagSchema)
            try db.write {
                let bag = try db.create("Bag", [("id", .int(1))])
                try db.setInsert("Bag", bag, "values", .decimal(Self.dec(1 << 64, 0)))
            }
            db.realm.close()
        }
        // Format 6 to 9 (set entries without checksums: moved below as they are).
        Self.setFormat(path, 9)
        let decimal = Value.decimal128(Self.dec(1 << 64, 0))
        withRawLMDB(path, database: "c1.s2") { txn, dbi in
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            var key = MDB_val(), value = MDB_val()
            XCTAssertEqual(mdb_cursor_get(cursor, &key, &value, MDB_FIRST), 0)
            var stored = Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
            XCTAssertEqual(mdb_cursor_del(cursor, 0), 0)
            mdb_cursor_close(cursor)
            var old = SetStore.format5MixedKey(decimal, owner: 0)!
            old.withUnsafeMutableBytes { k in
                stored.withUnsafeMutableBytes { v in
                    var key = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
                    var value = MDB_val(mv_size: v.count, mv_data: v.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &key, &value, 0), 0)
                }
            }
        }
        var problems: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, line in if kind == .problem { problems.append(line) } }, 1)
        XCTAssertTrue(problems.first?.contains("an element is not stored under its key") ?? false, "\(problems)")
        Self.setFormat(path, 5)
        XCTAssertEqual(try Self.verify(path).problems, 0)
    }

    /// The format-5 fixture: refused read-only (naming the full-text index
    /// and the sets), verified without problems, and upgraded by a writable
    /// open that also changes the schema (a property added, full-text
    /// indexed, and a class): every full-text index then matches its texts
    /// (verify checks each entry), queries agree with the texts, the sets
    /// hold Realm's one element per number, and the file is format 6.
    func testFormat5FixtureUpgradedWithASchemaChange() throws {
        let dir = tempDir()
        let path = try Self.format5Fixture(in: dir)
        let refused = expectError(.fileFormat) { try DB.open(path, nil, readOnly: true) }
        let message = refused?.message ?? ""
        XCTAssertTrue(message.contains("full-text indexes (Doc.text)"), message)
        XCTAssertTrue(message.contains("6 numbers in sets of mixed values (Bag.values)"), message)
        XCTAssertTrue(message.contains("open it once writable"), message)
        let before = try Self.verify(path)
        XCTAssertEqual(before.problems, 0)
        XCTAssertTrue(before.infos.contains { $0.contains("full-text index of 'text'") && $0.contains("stale") }, "\(before.infos)")

        let schema = makeSchema([
            ("Doc", [prop("id", .int, .primaryKey), prop("text", .string, [.nullable, .fullTextIndexed]),
                     prop("title", .string, [.nullable, .fullTextIndexed])]),
            ("Bag", [prop("id", .int, .primaryKey), Property(name: "values", type: .mixed, flags: .nullable, collection: .set)]),
            ("Note", [prop("text", .string, .fullTextIndexed)]),
        ])
        let db = try DB.open(path, schema)
        XCTAssertEqual(try db.count("Doc"), 1186)
        // Every word: the documents whose text holds it.
        let texts = try db.results("Doc").allKeys().map { key -> Set<String> in
            guard case .string(let text) = try db.get("Doc", key, "text") else { return [] }
            return Set(text.split(separator: " ").map(String.init))
        }
        for word in ["alpha", "bravo", "golf", "nectar", "papa"] {
            XCTAssertEqual(try db.query("Doc", "text TEXT $0", [.string(word)]).count(), texts.filter { $0.contains(word) }.count, word)
        }
        XCTAssertEqual(try db.query("Doc", "title TEXT 'alpha'").count(), 0)
        // The sets: sizes and members as format 6 counts them.
        let sizes = try (0..<6).map { try db.set("Bag", Int64($0), "values").count }
        XCTAssertEqual(sizes, [1, 1, 1, 4, 4, 1])
        XCTAssertEqual(try db.set("Bag", 0, "values"), [.double(Self.twoTo70)])
        XCTAssertEqual(try db.set("Bag", 2, "values"), [.decimal(Self.dec(1 << 70, 0))])
        try db.write {
            try db.set("Doc", 0, "title", .string("alpha omega"))
            _ = try db.create("Note", [("text", .string("alpha"))])
        }
        XCTAssertEqual(try db.query("Doc", "title TEXT 'omega'").count(), 1)
        db.realm.close()
        XCTAssertEqual(Self.storedFormat(path), MetaKeys.formatValue)
        let after = try Self.verify(path)
        XCTAssertEqual(after.problems, 0)
        XCTAssertTrue(after.infos.contains { $0.hasPrefix("format 10,") }, "\(after.infos)")
        // Read-only now.
        let reader = try DB.open(path, nil, readOnly: true)
        XCTAssertEqual(try reader.query("Note", "text TEXT 'alpha'").count(), 1)
    }

    /// A format-5 file written by this library's layout with neither
    /// full-text indexes nor numbers format 6 keys otherwise is read as it
    /// is by a read-only open (nothing written), and a newer format is
    /// refused by every open, verify and copy.
    func testPlainFormat5IsRefusedReadOnlyAndFormat11IsRefused() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, Self.bagSchema)
            try db.write {
                let bag = try db.create("Bag", [("id", .int(1))])
                for v: TV in [.int(1), .double(1e30), .decimal(Self.dec((1 << 70) + 1, 0)), .string("x")] {
                    try db.setInsert("Bag", bag, "values", v)
                }
            }
            db.realm.close()
        }
        Self.setFormat(path, 5)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Its set entries have no checksums (format 10 adds them): a
        // read-only open says how to upgrade it, the file unchanged.
        let refused = expectError(.fileFormat) { try DB.open(path, nil, readOnly: true) }
        XCTAssertTrue(refused?.message.contains("whose sets, maps and nested collections (Bag.values) have no checksums") ?? false, refused?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)
        XCTAssertEqual(Self.storedFormat(path), 5)

        Self.setFormat(path, 11)
        for readOnly in [true, false] {
            let error = expectError(.fileFormat) { try DB.open(path, nil, readOnly: readOnly) }
            XCTAssertTrue(error?.message.contains("file format 11; this library reads format 10 and upgrades formats 1 to 9") ?? false,
                          error?.message ?? "")
        }
        var problems: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, line in if kind == .problem { problems.append(line) } }, 1)
        XCTAssertEqual(problems, ["unknown file format 11"])
        _ = expectError(.fileFormat) { try FileCopy.copy(from: path, to: dir.file("copy.fief")) { _, _ in } }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("copy.fief")))
    }
}
