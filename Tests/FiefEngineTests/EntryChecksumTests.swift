import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Entry checksums (format 7, `EntrySeal`): a flipped bit anywhere in a
/// stored map entry or nested-collection entry (element, dictionary value,
/// header, id counter) is damage: every read returns the original value or
/// fails with FIEF_ERR_FILE_CORRUPT, verify reports it, copy leaves it out
/// and says so, and the copy verifies clean and reads back whole (no value
/// holding a nested collection the copy lacks).
final class EntryChecksumTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Box", [prop("label", .string),
                 prop("anyValue", .mixed),
                 Property(name: "items", type: .mixed, collection: .list),
                 Property(name: "ints", type: .int, collection: .map),
                 Property(name: "pets", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
                 Property(name: "props", type: .mixed, collection: .map)]),
    ])

    private func makeFile(_ path: String) throws {
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        let dogClass = db.cls("Dog")
        try db.write {
            let dogs = try (0..<3).map { try db.create("Dog", [("name", .string("d\($0)"))]) }
            for b in 0..<3 {
                let box = try db.create("Box", [("label", .string("b\(b)")), ("anyValue", .nestedDict(0))])
                for (i, key) in ["a", "b", "c"].enumerated() { try db.mapSet("Box", box, "ints", key, .int(Int64(b * 10 + i))) }
                try db.mapSet("Box", box, "pets", "x", .link(dogClass, dogs[0]))
                try db.mapSet("Box", box, "pets", "y", .link(dogClass, dogs[(b + 1) % 3]))
                try db.mapSet("Box", box, "props", "s", .string("text \(b)"))
                try db.mapSet("Box", box, "props", "n", .int(Int64(b)))
                try db.mapSet("Box", box, "props", "d", .link(dogClass, dogs[2]))
                try db.mapSet("Box", box, "props", "l", .nestedList(0))
                try db.mapSet("Box", box, "props", "m", .nestedDict(0))
                try db.append("Box", box, "items", [.int(1), .nestedList(0)])
                let props = ref(db, box, "props")
                guard case .nestedList(let l)? = try mapGet(db, props, "l"), case .nestedDictionary(let m)? = try mapGet(db, props, "m") else {
                    return XCTFail("no nested values")
                }
                let list = nested(db, box, "props", l)
                try append(db, list, [.int(1), .string("two"), .nestedDict(0)])
                guard case .nestedDictionary(let inner) = try db.realm.list(list).value(at: 2) else { return XCTFail("no dictionary") }
                try put(db, nested(db, box, "props", inner), "k", .int(3))
                try put(db, nested(db, box, "props", inner), "dog", .link(dogClass, dogs[1]))
                try put(db, nested(db, box, "props", m), "z", .nestedList(0))
                guard case .nestedList(let z)? = try nestedGet(db, nested(db, box, "props", m), "z") else { return XCTFail("no list") }
                try append(db, nested(db, box, "props", z), [.bool(true), .double(2.5)])
                guard case .nestedDictionary(let top) = try db.realm.slotValue(try db.realm.table(db.cls("Box")),
                                                                             try db.realm.table(db.cls("Box")).column(db.pkey("Box", "anyValue")), box) else {
                    return XCTFail("no dictionary")
                }
                try put(db, nested(db, box, "anyValue", top), "v", .string("x"))
                try put(db, nested(db, box, "anyValue", top), "inner", .nestedList(0))
                guard case .nestedList(let innerList)? = try nestedGet(db, nested(db, box, "anyValue", top), "inner") else { return XCTFail("no list") }
                try append(db, nested(db, box, "anyValue", innerList), [.int(1), .int(2)])
                guard case .nestedList(let itemList) = try db.realm.list(CollectionRef(.list, table: db.cls("Box"), owner: box, property: db.pkey("Box", "items"))).value(at: 1) else {
                    return XCTFail("no list in the list")
                }
                try append(db, nested(db, box, "items", itemList), [.string("a")])
            }
        }
    }

    // MARK: Helpers

    private func ref(_ db: DB, _ owner: Int64, _ property: String) -> CollectionRef {
        CollectionRef(.map, table: db.cls("Box"), owner: owner, property: db.pkey("Box", property))
    }

    private func nested(_ db: DB, _ owner: Int64, _ property: String, _ id: Int64) -> CollectionRef {
        CollectionRef(nested: .list, table: db.cls("Box"), owner: owner, property: db.pkey("Box", property), id: id)
    }

    private func mapGet(_ db: DB, _ r: CollectionRef, _ key: String) throws -> Value? {
        try Array(key.utf8).withUnsafeBytes { try db.realm.map(r).value(forKey: $0) }
    }

    private func nestedGet(_ db: DB, _ r: CollectionRef, _ key: String) throws -> Value? {
        try Array(key.utf8).withUnsafeBytes { try db.realm.map(r).value(forKey: $0) }
    }

    private func append(_ db: DB, _ r: CollectionRef, _ values: [TV]) throws {
        try TV.withValues(values) { try db.realm.list(r).append(UnsafeBufferPointer($0)) }
    }

    private func put(_ db: DB, _ r: CollectionRef, _ key: String, _ value: TV) throws {
        try TV.withValues([value]) { v in try Array(key.utf8).withUnsafeBytes { try db.realm.map(r).set(v[0], forKey: $0) } }
    }

    /// Every value the boxes hold, by path ("box.props.l[2].k"); a read
    /// that fails records "error <code>" at the path it failed on and reads
    /// nothing below it.
    private func readAll(_ path: String) throws -> [String: String] {
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        var out: [String: String] = [:]
        func attempt(_ at: String, _ body: () throws -> Void) {
            do { try body() } catch let error as FiefError { out[at] = "error \(error.code.rawValue)" } catch { out[at] = "error \(error)" }
        }
        func value(_ at: String, _ v: Value, _ owner: Int64, _ property: String) {
            switch v {
            case .nestedList(let id):
                attempt(at) {
                    let r = nested(db, owner, property, id)
                    let n = try db.realm.nestedCount(r)
                    out[at] = "list \(n)"
                    var values = [Value](repeating: .null, count: n)
                    try values.withUnsafeMutableBufferPointer { try db.realm.list(r).values(from: 0, into: $0) }
                    for (i, e) in values.enumerated() { value("\(at)[\(i)]", e, owner, property) }
                }
            case .nestedDictionary(let id):
                attempt(at) {
                    let r = nested(db, owner, property, id)
                    let n = try db.realm.nestedCount(r)
                    out[at] = "dictionary \(n)"
                    var keys = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: n)
                    var values = [Value](repeating: .null, count: n)
                    try keys.withUnsafeMutableBufferPointer { k in
                        try values.withUnsafeMutableBufferPointer { v in try db.realm.map(r).entries(from: 0, count: n, keys: k.baseAddress, values: v.baseAddress) }
                    }
                    for i in 0..<n {
                        let key = String(decoding: keys[i], as: UTF8.self)
                        value("\(at).\(key)", values[i], owner, property)
                        // The same key looked up alone.
                        attempt("\(at).\(key)#get") { out["\(at).\(key)#get"] = try nestedGet(db, r, key).map { "\(TV($0))" } ?? "missing" }
                    }
                }
            default:
                out[at] = "\(TV(v))"
            }
        }
        for box in try db.keys("Box") {
            attempt("\(box).anyValue") { value("\(box).anyValue", try db.realm.slotValue(try db.realm.table(db.cls("Box")),
                                                                                       try db.realm.table(db.cls("Box")).column(db.pkey("Box", "anyValue")), box), box, "anyValue") }
            attempt("\(box).items") {
                let items = try db.list("Box", box, "items")
                for (i, item) in items.enumerated() {
                    if case .nestedList(let id) = item { value("\(box).items[\(i)]", .nestedList(id), box, "items") } else { out["\(box).items[\(i)]"] = "\(item)" }
                }
            }
            for map in ["ints", "pets", "props"] {
                attempt("\(box).\(map)") {
                    let r = ref(db, box, map)
                    for i in 0..<(try db.realm.map(r).count()) {
                        let (k, v) = try db.realm.map(r).entry(at: i)
                        let key = String(decoding: k, as: UTF8.self)
                        value("\(box).\(map).\(key)", v, box, map)
                        attempt("\(box).\(map).\(key)#get") { out["\(box).\(map).\(key)#get"] = try mapGet(db, r, key).map { "\(TV($0))" } ?? "missing" }
                    }
                }
            }
            // Through the query engine too (a walk of the map's entries).
            attempt("\(box).query") { out["\(box).query"] = "\(try db.keys("Box", "ANY props.@values == 'text 0'"))" }
        }
        return out
    }

    private func verify(_ path: String) throws -> [String] {
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        return problems
    }

    /// Every stored entry of the map and nested databases: (database, key).
    private func storedEntries(_ path: String, _ databases: [String]) -> [(String, [UInt8])] {
        var found: [(String, [UInt8])] = []
        for name in databases {
            withRawLMDB(path, database: name, readOnly: true) { txn, dbi in
                var cursor: OpaquePointer?
                XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
                var k = MDB_val(), v = MDB_val()
                var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
                while rc == 0 {
                    found.append((name, Array(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size))))
                    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
                }
                mdb_cursor_close(cursor)
            }
        }
        return found
    }

    private func databases(_ path: String) throws -> [String] {
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        let box = db.cls("Box")
        return ["ints", "pets", "props"].map { Table.mapName(box, db.pkey("Box", $0)) } + [Table.nestedName(box)]
    }

    /// Rewrite the value of `key` in `database` through `change`.
    private func rewrite(_ path: String, _ database: String, _ key: [UInt8], _ change: ([UInt8]) -> [UInt8]) {
        withRawLMDB(path, database: database) { txn, dbi in
            var key = key
            key.withUnsafeMutableBytes { kb in
                var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress), v = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                var changed = change(Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)))
                changed.withUnsafeMutableBytes { vb in
                    var nv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &k, &nv, 0), 0)
                }
            }
        }
    }

    // MARK: Tests

    func testEveryFlippedBitInAnEntryIsDamageThatCopyLeavesOut() throws {
        let dir = tempDir()
        let original = dir.file("original.fief")
        try makeFile(original)
        XCTAssertEqual(try verify(original), [])
        let expected = try readAll(original)
        XCTAssertFalse(expected.values.contains { $0.hasPrefix("error") }, "\(expected)")
        XCTAssertGreaterThan(expected.count, 60)
        let names = try databases(original)
        let entries = storedEntries(original, names)
        XCTAssertGreaterThan(entries.count, 50)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        var rng = SeededRandom(seed: 0x19_07)
        var detected = 0
        for round in 0..<240 {
            let path = dir.file("damaged\(round).fief"), copy = dir.file("copy\(round).fief")
            try bytes.write(to: URL(fileURLWithPath: path))
            let (database, key) = entries[Int(rng.next() % UInt64(entries.count))]
            var bit = 0
            rewrite(path, database, key) { value in
                var value = value
                bit = Int(rng.next() % UInt64(value.count * 8))
                value[bit / 8] ^= UInt8(1 << (bit % 8))
                return value
            }
            let label = "round \(round): \(database) key \(key) bit \(bit)"
            let isCounter = database.hasSuffix(".n") && key == [UInt8](repeating: 0xFF, count: 8)
            // Reads: the original value, or FIEF_ERR_FILE_CORRUPT.
            let read = try readAll(path)
            var errors = 0
            for (at, got) in read {
                if got.hasPrefix("error") {
                    XCTAssertEqual(got, "error \(FiefError.Code.fileCorrupt.rawValue)", "\(label): \(at)")
                    errors += 1
                } else {
                    XCTAssertEqual(got, expected[at], "\(label): \(at) reads back otherwise")
                }
            }
            for (at, want) in expected where read[at] == nil {
                XCTAssertTrue(read.contains { $0.value.hasPrefix("error") && at.hasPrefix($0.key) }, "\(label): \(at) (\(want)) is missing without an error")
            }
            if !isCounter {
                XCTAssertGreaterThan(errors, 0, "\(label): the damage went unnoticed")
            }
            if errors > 0 { detected += 1 }
            // Verify reports it.
            let problems = try verify(path)
            XCTAssertFalse(problems.isEmpty, "\(label): verify found nothing")
            XCTAssertTrue(problems.contains { $0.contains("fails its checksum") || $0.contains("is damaged") }, "\(label): \(problems)")
            // Copy leaves it out and says so; the copy verifies and reads back whole.
            var copyProblems: [String] = []
            let n = try FileCopy.copy(from: path, to: copy) { kind, text in if kind == .problem { copyProblems.append(text) } }
            XCTAssertGreaterThan(n, 0, "\(label): copy reported nothing")
            XCTAssertEqual(n, copyProblems.count)
            XCTAssertEqual(try verify(copy), [], "\(label): the copy does not verify; copy said \(copyProblems)")
            let salvaged = try readAll(copy)
            // A list that lost an element holds the rest one place on: values are
            // compared by their path without list positions.
            func pattern(_ at: String) -> String { at.replacingOccurrences(of: #"\[[0-9]+\]"#, with: "[]", options: .regularExpression) }
            var byPattern: [String: Set<String>] = [:]
            for (at, value) in expected { byPattern[pattern(at), default: []].insert(value) }
            for (at, got) in salvaged {
                XCTAssertFalse(got.hasPrefix("error"), "\(label): \(at) in the copy: \(got); copy said \(copyProblems)")
                if !got.hasPrefix("error"), got != expected[at] {
                    // Only what was damaged changes: a value left out, or nulled.
                    XCTAssertTrue(got == "\(TV.null)" || got == "missing" || got.hasPrefix("list ") || got.hasPrefix("dictionary ") || at.hasSuffix(".query")
                                  || byPattern[pattern(at)]?.contains(got) == true,
                                  "\(label): \(at) in the copy is \(got), not \(expected[at] ?? "absent")")
                }
            }
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: copy)
        }
        XCTAssertGreaterThan(detected, 200)
    }

    /// A link in a map of mixed values or a nested collection to a class
    /// that does not exist is damage, even under a sound checksum.
    func testLinkToAClassThatDoesNotExistIsDamage() throws {
        let dir = tempDir()
        let path = dir.file()
        try makeFile(path)
        let names = try databases(path)
        let (box, props) = try { () throws -> (UInt32, UInt32) in
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("Box"), db.pkey("Box", "props"))
        }()
        var bogus: [UInt8] = []
        MixedCoding.encode(.link(classKey: 999, objectKey: 0), into: &bogus)
        // Map value "d" of the first box, and the nested value "dog", sealed anew.
        var owner: [UInt8] = []
        SetStore.appendBigEndian(0, &owner)
        let mapKey = owner + Array("d".utf8)
        rewrite(path, names[2], mapKey) { _ in bogus.withUnsafeBytes { v in mapKey.withUnsafeBytes { EntrySeal.sealed(v, table: box, database: props, key: $0) } } }
        let read = try readAll(path)
        XCTAssertEqual(read["0.props"], "error \(FiefError.Code.fileCorrupt.rawValue)", "\(read.filter { $0.key.hasPrefix("0.props") })")
        XCTAssertEqual(read["0.query"], "error \(FiefError.Code.fileCorrupt.rawValue)")
        XCTAssertFalse(try verify(path).isEmpty)
        for (_, key) in storedEntries(path, [names[3]]) where key.count > 8 {
            let suffix = Array(key[8...])
            if suffix == Array("dog".utf8) {
                rewrite(path, names[3], key) { _ in bogus.withUnsafeBytes { v in key.withUnsafeBytes { EntrySeal.sealed(v, table: box, database: EntrySeal.nested, key: $0) } } }
            }
        }
        let again = try readAll(path)
        XCTAssertTrue(again.contains { $0.key.hasPrefix("1.props.l[2]") && $0.value == "error \(FiefError.Code.fileCorrupt.rawValue)" },
                      "\(again.filter { $0.key.hasPrefix("1.props.l") })")
        let copy = dir.file("copy.fief")
        XCTAssertGreaterThan(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try verify(copy), [])
        XCTAssertFalse(try readAll(copy).values.contains { $0.hasPrefix("error") })
    }

    /// A format-6 file (entries without checksums): a read-only open
    /// refuses it while its maps and nested collections hold entries, a
    /// writable open seals every entry (format 7), after which it reads
    /// as before and verifies clean.
    func testFormat6EntriesAreSealedByTheUpgrade() throws {
        let dir = tempDir()
        let path = dir.file()
        try makeFile(path)
        let expected = try readAll(path)
        let names = try databases(path)
        for (database, key) in storedEntries(path, names) { rewrite(path, database, key) { Array($0.dropLast(EntrySeal.bytes)) } }
        Format6Tests.setFormat(path, 6)
        XCTAssertEqual(try verify(path), [], "a format-6 file's entries have no checksums")
        let error = expectError(.fileFormat) { try DB.open(path, nil, readOnly: true) }
        XCTAssertTrue(error?.message.contains("no checksums") ?? false, error?.message ?? "")
        // A copy of it is format 7, whole.
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try verify(copy), [])
        XCTAssertEqual(try readAll(copy), expected)
        // The upgrade.
        try DB.open(path, nil).realm.close()
        XCTAssertEqual(Format6Tests.storedFormat(path), MetaKeys.formatValue)
        XCTAssertEqual(try verify(path), [])
        XCTAssertEqual(try readAll(path), expected)
    }

    /// A map value or nested value that links to a deleted object is damage
    /// (deleting an object nulls every such value): an older copy of the
    /// entry's page (a lost write) brings the link back with a checksum that
    /// passes.  Reads fail with FIEF_ERR_FILE_CORRUPT, verify reports it, and
    /// copy stores null.
    func testStaleLinkToADeletedObjectIsDamage() throws {
        let dir = tempDir()
        let path = dir.file()
        try makeFile(path)
        let names = try databases(path)
        var key: [UInt8] = []
        SetStore.appendBigEndian(0, &key)
        key += Array("x".utf8)
        var before: [UInt8] = []
        rewrite(path, names[1], key) { before = $0; return $0 }
        do {
            let db = try DB.open(path, nil)
            defer { db.realm.close() }
            try db.write { try db.delete("Dog", 0) }
        }
        let deleted = try readAll(path)
        XCTAssertFalse(deleted.values.contains { $0.hasPrefix("error") })
        XCTAssertEqual(try verify(path), [])
        // The entry as it was before the deletion (its seal is sound).
        rewrite(path, names[1], key) { _ in before }
        let read = try readAll(path)
        XCTAssertEqual(read["0.pets"], "error \(FiefError.Code.fileCorrupt.rawValue)", "\(read.filter { $0.key.hasPrefix("0.pets") })")
        XCTAssertFalse(try verify(path).isEmpty)
        let copy = dir.file("copy.fief")
        XCTAssertGreaterThan(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try verify(copy), [])
        XCTAssertEqual(try readAll(copy), deleted)
    }
}
