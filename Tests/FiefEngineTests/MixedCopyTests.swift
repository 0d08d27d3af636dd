import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// `fief copy` of mixed values: a sound file is copied exactly (values of
/// every type, links to two classes in a mixed property, list, set and map,
/// with their backlinks); a damaged one keeps what can be read, with links
/// to lost objects nulled (property, map value) or left out (list, set).
final class MixedCopyTests: XCTestCase {
    private let schema: Schema = {
        var s = makeSchema([
            ("Dog", [prop("name", .string)]),
            ("Cat", [prop("name", .string)]),
            ("Note", [prop("text", .string)]),
            ("Box", [prop("label", .string),
                     prop("anyValue", .mixed),
                     Property(name: "items", type: .mixed, collection: .list),
                     Property(name: "bag", type: .mixed, collection: .set),
                     Property(name: "props", type: .mixed, collection: .map),
                     Property(name: "note", type: .link, flags: .nullable, linkTarget: "Note")]),
        ])
        s.classes[2].isEmbedded = true
        return s
    }()

    private let long = String(repeating: "w", count: 600)

    private var samples: [TV] {
        [.null, .int(-7), .bool(true), .string("héllo"), .string(long), .binary([0, 1, 2]), .binary([]), .timestamp(-5, -3),
         .float(1.5), .double(2.25), .decimal(Decimal128Bits(low: 15, high: UInt64(6176 - 1) << 49)),
         .oid(bytes: Array(1...12)), .uuid(bytes: Array(1...16))]
    }

    private struct Keys {
        var boxes: [Int64] = [], main: Int64 = 0, other: Int64 = 0
        var dogs: [Int64] = [], cats: [Int64] = []
        var dog: UInt32 = 0, cat: UInt32 = 0
    }

    /// Boxes holding every sample in `anyValue`, boxes linking to dogs and
    /// cats there, and a main box whose list, set and map hold every sample
    /// and links to both classes (a dog twice in the list); Dog 2 deleted
    /// (which nulled or removed what linked to it).
    private func makeFile(_ path: String) throws -> Keys {
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        var k = Keys()
        k.dog = db.cls("Dog")
        k.cat = db.cls("Cat")
        try db.write {
            k.dogs = try (0..<3).map { try db.create("Dog", [("name", .string("d\($0)"))]) }
            k.cats = try (0..<2).map { try db.create("Cat", [("name", .string("c\($0)"))]) }
            k.boxes = try samples.map { try db.create("Box", [("label", .string("sample")), ("anyValue", $0)]) }
            for d in k.dogs { k.boxes.append(try db.create("Box", [("label", .string("dog")), ("anyValue", .link(k.dog, d))])) }
            for c in k.cats { k.boxes.append(try db.create("Box", [("label", .string("cat")), ("anyValue", .link(k.cat, c))])) }
            k.main = try db.create("Box", [("label", .string("main"))])
            k.other = try db.create("Box", [("label", .string("other"))])
            k.boxes += [k.main, k.other]
            let links: [TV] = [.link(k.dog, k.dogs[0]), .link(k.cat, k.cats[0]), .link(k.dog, k.dogs[1]), .link(k.dog, k.dogs[2]),
                               .link(k.cat, k.cats[1]), .link(k.dog, k.dogs[0])]
            try db.append("Box", k.main, "items", samples + links)
            // More than one segment.
            try db.append("Box", k.main, "items", (0..<300).map { .int(Int64($0)) })
            try db.append("Box", k.main, "items", [.link(k.cat, k.cats[1])])
            try db.append("Box", k.other, "items", [.link(k.dog, k.dogs[1]), .link(k.dog, k.dogs[2])])
            for v in samples + links + [.int(2), .double(2), .string("2")] { try db.setInsert("Box", k.main, "bag", v) }
            try db.setInsert("Box", k.other, "bag", .link(k.dog, k.dogs[1]))
            for (i, v) in samples.enumerated() { try db.mapSet("Box", k.main, "props", "k\(i < 10 ? "0" : "")\(i)", v) }
            for (i, v) in links.enumerated() { try db.mapSet("Box", k.main, "props", "pet\(i)", v) }
            try db.mapSet("Box", k.other, "props", "only", .link(k.dog, k.dogs[1]))
            let note = try db.realm.createEmbedded(table: db.cls("Box"), key: k.main, property: db.pkey("Box", "note"))
            try db.set("Note", note.objectKey, "text", .string("hi"))
        }
        try db.write { try db.delete("Dog", k.dogs[2]) }
        return k
    }

    /// Everything the boxes hold, as read, and the links each dog and cat has.
    private func contents(_ path: String, _ k: Keys) throws -> [String] {
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        var out: [String] = []
        for box in k.boxes {
            out.append("\(box).anyValue: \(try db.get("Box", box, "anyValue"))")
            out.append("\(box).items: \(try db.list("Box", box, "items"))")
            out.append("\(box).bag: \(try db.set("Box", box, "bag"))")
            out.append("\(box).props: \(try db.map("Box", box, "props").map { "\($0.0)=\($0.1)" })")
        }
        for d in k.dogs.prefix(2) where try db.exists("Dog", d) { out.append("dog \(d): \(try db.backlinkCount("Dog", d)) links") }
        for c in k.cats { out.append("cat \(c): \(try db.backlinkCount("Cat", c)) links") }
        return out
    }

    private func copy(_ path: String, _ to: String) throws -> (Int, [String]) {
        var problems: [String] = []
        let n = try FileCopy.copy(from: path, to: to) { kind, text in if kind == .problem { problems.append(text) } }
        return (n, problems)
    }

    func testSoundMixedValuesAreCopiedExactly() throws {
        let dir = tempDir()
        let path = dir.file()
        let k = try makeFile(path)
        try assertVerifies(path)
        let expected = try contents(path, k)
        // What the file holds, as made.
        XCTAssertTrue(expected.contains("dog \(k.dogs[0]): 6 links"), expected.joined(separator: "\n"))
        XCTAssertTrue(expected.contains("dog \(k.dogs[1]): 7 links"), expected.joined(separator: "\n"))
        XCTAssertTrue(expected.contains("cat \(k.cats[1]): 5 links"), expected.joined(separator: "\n"))
        XCTAssertTrue(expected.contains("\(k.boxes[samples.count + 2]).anyValue: null"), "Dog 2's box")

        let copied = dir.file("copy.fief")
        var lines: [String] = []
        XCTAssertEqual(try FileCopy.copy(from: path, to: copied) { _, text in lines.append(text) }, 0, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("class 'Box': set 'bag': 2 sets, \(samples.count + 6) entries copied"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("class 'Box': map 'props': 2 maps, \(samples.count + 7) entries copied"), lines.joined(separator: "\n"))
        try assertVerifies(copied)
        XCTAssertEqual(try contents(copied, k), expected)

        // A copy of the copy is the same file, byte for byte.
        let again = dir.file("again.fief")
        XCTAssertEqual(try FileCopy.copy(from: copied, to: again) { _, _ in }, 0)
        XCTAssertEqual(try bytes(again), try bytes(copied))

        // The copy is written again like any file: deleting a cat and a dog
        // reaches every mixed value that linked to them.
        let db = try DB.open(copied, schema)
        try db.write {
            try db.delete("Cat", k.cats[1])
            try db.delete("Dog", k.dogs[0])
            try db.set("Box", k.boxes[1], "anyValue", .link(k.cat, k.cats[0]))
        }
        XCTAssertEqual(try db.get("Box", k.boxes[samples.count + 4], "anyValue"), .null)
        XCTAssertEqual(try db.list("Box", k.main, "items").filter { if case .link = $0 { return true } else { return false } },
                       [.link(k.cat, k.cats[0]), .link(k.dog, k.dogs[1])])
        XCTAssertEqual(try db.set("Box", k.main, "bag").suffix(2), [.link(k.dog, k.dogs[1]), .link(k.cat, k.cats[0])])
        XCTAssertEqual(try db.mapGet("Box", k.main, "props", "pet4"), .null)
        XCTAssertEqual(try db.backlinkCount("Cat", k.cats[0]), 5)
        db.realm.close()
        try assertVerifies(copied)
    }

    private func bytes(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw FiefError(.fileIO, "cannot read \(path)") }
        defer { fclose(file) }
        var out: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 1 << 16)
        while case let n = fread(&buffer, 1, buffer.count, file), n > 0 { out += buffer[0..<n] }
        return out
    }

    /// Damage to the dogs' list of objects: every dog is lost; what linked
    /// to one is nulled (property, map value) or left out (list, set), the
    /// sizes count what is left, and the cats keep their links.
    func testLinksToLostObjectsAreNulledOrLeftOut() throws {
        let dir = tempDir()
        let original = dir.file("original.fief")
        let k = try makeFile(original)
        let expected = try contents(original, k)
        let path = dir.file("lost.fief")
        XCTAssertEqual(try FileCopy.copy(from: original, to: path) { _, _ in }, 0)
        withRawLMDB(path, database: Table.dataName(k.dog)) { txn, dbi in
            var key = ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: 0)
            withUnsafeMutableBytes(of: &key) { kb in
                var k = MDB_val(mv_size: 8, mv_data: kb.baseAddress), v = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                var bytes = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                bytes[0] ^= 0x01
                bytes.withUnsafeMutableBytes { vb in
                    var nv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &k, &nv, 0), 0)
                }
            }
        }
        let salvaged = dir.file("lost-copy.fief")
        let (n, problems) = try copy(path, salvaged)
        let all = problems.joined(separator: "\n")
        XCTAssertEqual(n, problems.count, all)
        XCTAssertTrue(problems.contains("class 'Dog': objects 0...255 lost: their list is damaged"), all)
        let dogBox = k.boxes[samples.count]
        XCTAssertTrue(problems.contains("class 'Box': the mixed value 'anyValue' of object \(dogBox) is Dog object \(k.dogs[0]), which was lost: copied as null"), all)
        XCTAssertTrue(problems.contains("class 'Box': list 'items' of object \(k.main) held Dog object \(k.dogs[0]), which was lost: left out"), all)
        XCTAssertTrue(problems.contains("class 'Box': set 'bag' of object \(k.main): it held Dog object \(k.dogs[1]), which was lost: left out"), all)
        XCTAssertTrue(problems.contains("class 'Box': map 'props' of object \(k.main): the value of key 'pet0' is Dog object \(k.dogs[0]), which was lost: copied as null"), all)
        XCTAssertFalse(problems.contains { $0.contains("sizes did not match") || $0.contains("damaged: left out") }, all)
        // 1 for the dogs; 2 boxes' values; 3 list elements of Main, 1 of Other; 2 set elements of Main, 1 of Other; 3 map values of Main, 1 of Other.
        XCTAssertEqual(n, 1 + 2 + 4 + 3 + 4, all)
        try assertVerifies(salvaged)

        // Everything but the dogs' links as it was.
        let got = try contents(salvaged, k)
        func isDog(_ line: String) -> Bool { line.contains("link(\(k.dog):") }
        var want = expected.filter { !$0.hasPrefix("dog ") }
        for (i, line) in want.enumerated() where isDog(line) {
            var fixed = line
            if line.contains(".anyValue: ") || line.contains(".props: ") {
                for d in k.dogs { fixed = fixed.replacingOccurrences(of: "\(TV.link(k.dog, d))", with: "null") }
            } else {
                for d in k.dogs { fixed = fixed.replacingOccurrences(of: ", \(TV.link(k.dog, d))", with: "").replacingOccurrences(of: "\(TV.link(k.dog, d)), ", with: "").replacingOccurrences(of: "\(TV.link(k.dog, d))", with: "") }
            }
            want[i] = fixed
        }
        XCTAssertEqual(got, want)
        XCTAssertFalse(got.contains(where: isDog))
        let db = try DB.open(salvaged, nil, readOnly: true)
        XCTAssertEqual(try db.count("Dog"), 0)
        XCTAssertEqual(try db.realm.list(CollectionRef(.list, table: db.cls("Box"), owner: k.main, property: db.pkey("Box", "items"))).count(), samples.count + 3 + 300)
        XCTAssertEqual(try db.list("Box", k.other, "items"), [])
        XCTAssertEqual(try db.set("Box", k.other, "bag"), [])
        XCTAssertEqual(try db.map("Box", k.other, "props").map { "\($0.0)=\($0.1)" }, ["only=null"])
        XCTAssertEqual(try db.backlinkCount("Cat", k.cats[1]), 5)
        db.realm.close()
    }

    /// Mixed entries that cannot be read, and a damaged page of a mixed
    /// list's tree: left out (list and set elements, map entries) or
    /// copied as null (a property), sizes made to count what was copied.
    func testDamagedMixedValuesAreSalvaged() throws {
        let dir = tempDir()
        let original = dir.file("original.fief")
        let k = try makeFile(original)
        let expected = try contents(original, k)
        let (box, items, bag, props, anyValue) = try { () throws -> (UInt32, UInt32, UInt32, UInt32, UInt32) in
            let db = try DB.open(original, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("Box"), db.pkey("Box", "items"), db.pkey("Box", "bag"), db.pkey("Box", "props"), db.pkey("Box", "anyValue"))
        }()
        let path = dir.file("garbage.fief")
        XCTAssertEqual(try FileCopy.copy(from: original, to: path) { _, _ in }, 0)
        // A segment appended to Other's list: a sound segment whose second
        // element is no mixed value.
        withRawLMDB(path, database: Table.listName(box, items)) { txn, dbi in
            var scratch: [UInt8] = []
            let good: [UInt8] = [UInt8(PropertyType.bool.rawValue), 1], bad: [UInt8] = [0xEE, 0xEE]
            good.withUnsafeBytes { g in
                bad.withUnsafeBytes { b in
                    do {
                        try ListStore.put([.binary(g), .binary(b)], txn, dbi, table: box, column: items, owner: k.other,
                                          position: UInt64.max - 1, type: .binary, nullable: true, scratch: &scratch)
                    } catch {
                        XCTFail("\(error)")
                    }
                }
            }
        }
        // A set entry whose key is not its value's, and one that is no value;
        // map values that are no values.
        withRawLMDB(path, database: Table.setName(box, bag)) { txn, dbi in
            // Sealed (format 10): their checksums hold, their contents do not.
            func sealed(_ full: [UInt8], _ value: [UInt8]) -> [UInt8] {
                value.withUnsafeBytes { v in full.withUnsafeBytes { EntrySeal.sealed(v, table: box, database: bag, key: $0) } }
            }
            var key: [UInt8] = [], value: [UInt8] = []
            SetStore.encode(.int(99), owner: k.other, mixed: true, into: &key)
            MixedCoding.encode(.int(98), into: &value)
            put(txn, dbi, key, sealed(key, value))
            Array("zz".utf8).withUnsafeBytes { _ = SetStore.encode(.string($0), owner: k.other, mixed: true, into: &key) }
            put(txn, dbi, key, sealed(key, [0xEE]))
        }
        withRawLMDB(path, database: Table.mapName(box, props)) { txn, dbi in
            var key: [UInt8] = []
            MapStore.encode(owner: k.other, key: UnsafeRawBufferPointer(start: nil, count: 0), into: &key)
            // Sealed (format 7): their checksums hold, their values do not.
            func sealed(_ full: [UInt8], _ value: [UInt8]) -> [UInt8] {
                value.withUnsafeBytes { v in full.withUnsafeBytes { EntrySeal.sealed(v, table: box, database: props, key: $0) } }
            }
            put(txn, dbi, key + Array("junk".utf8), sealed(key + Array("junk".utf8), [UInt8(PropertyType.int.rawValue), 1, 2]))
            var link: [UInt8] = []
            MixedCoding.encode(.link(classKey: 999, objectKey: 0), into: &link)
            put(txn, dbi, key + Array("nowhere".utf8), sealed(key + Array("nowhere".utf8), link))
        }
        // A mixed property value that is no value, in a sound chunk.
        withRawLMDB(path, database: Table.dataName(box)) { txn, dbi in
            let tables = ChunkPartTables()
            do {
                let stored = try ChunkParts.read(txn, dbi, table: box, column: anyValue, cluster: 0, type: .binary, bounds: nil, tables: tables)!
                let chunk = DirtyChunk(type: .mixed, from: stored)
                [0xEE, 0xEE].withUnsafeBytes { chunk.set(ClusterLayout.slot(of: k.boxes[1]), .binary($0)) }
                var lastKey: UInt64? = .max
                try ChunkParts.store(chunk, txn, dbi, table: box, column: anyValue, cluster: 0,
                                     limit: ChunkParts.partLimit(pageSize: 4096), lastKey: &lastKey)
            } catch {
                XCTFail("\(error)")
            }
        }
        var verified: [String] = []
        XCTAssertGreaterThan(try FileCheck.verify(path: path) { kind, text in if kind == .problem { verified.append(text) } }, 0)
        XCTAssertTrue(verified.contains { $0.contains("mixed 'anyValue' of object \(k.boxes[1]) cannot be read") }, "\(verified)")
        XCTAssertTrue(verified.contains { $0.contains("a mixed element cannot be read") }, "\(verified)")

        let salvaged = dir.file("garbage-copy.fief")
        var (n, problems) = try copy(path, salvaged)
        var all = problems.joined(separator: "\n")
        XCTAssertEqual(problems.sorted(), [
            "class 'Box': list 'items' of object \(k.other) held a mixed value that cannot be read: left out",
            "class 'Box': map 'props' of object \(k.other): an entry is damaged: left out",
            "class 'Box': map 'props' of object \(k.other): an entry is damaged: left out",
            "class 'Box': set 'bag' of object \(k.other): an entry is damaged: left out",
            "class 'Box': set 'bag' of object \(k.other): an entry is damaged: left out",
            "class 'Box': the mixed value 'anyValue' of object \(k.boxes[1]) cannot be read: copied as null",
        ], all)
        XCTAssertEqual(n, 6)
        try assertVerifies(salvaged)
        let got = try contents(salvaged, k)
        var want = expected
        want[4] = "\(k.boxes[1]).anyValue: null"
        let otherItems = want.firstIndex { $0.hasPrefix("\(k.other).items: ") }!
        want[otherItems] = "\(k.other).items: \([TV.link(k.dog, k.dogs[1]), .bool(true)])"
        XCTAssertEqual(got, want)

        // A damaged page of a tree of mixed lists (strings and links): the
        // lists keep the segments the sound pages hold, their links get
        // their backlinks.
        let made = dir.file("made.fief"), paged = dir.file("paged.fief")
        var keys: [Int64] = []
        do {
            let db = try DB.open(made, schema)
            try db.write {
                let dog = try db.create("Dog", [("name", .string("rex"))])
                for i in 0..<30 {
                    let b = try db.create("Box", [("label", .string("b\(i)"))])
                    keys.append(b)
                    try db.append("Box", b, "items", (0..<200).map { j -> TV in
                        j % 50 == 0 ? .link(db.cls("Dog"), dog) : .string(i == 15 && j == 7 ? "needle" : "element \(j) of \(i)")
                    })
                }
            }
            db.realm.close()
        }
        XCTAssertEqual(try FileCopy.copy(from: made, to: paged) { _, _ in }, 0)
        damagePage(holding: "needle", in: paged)
        (n, problems) = try copy(paged, dir.file("paged-copy.fief"))
        all = problems.joined(separator: "\n")
        XCTAssertEqual(n, 1, all)
        XCTAssertTrue(problems[0].hasPrefix("class 'Box': list 'items': its pages are damaged"), all)
        try assertVerifies(dir.file("paged-copy.fief"))
        let db = try DB.open(dir.file("paged-copy.fief"), nil, readOnly: true)
        var elements = 0, links = 0
        for b in keys {
            let list = try db.list("Box", b, "items")
            elements += list.count
            links += list.filter { if case .link = $0 { return true } else { return false } }.count
            XCTAssertFalse(list.contains(.string("needle")), "box \(b) \(list.count)")
        }
        XCTAssertTrue(elements > 5_000 && elements < 6_000, "\(elements) of 6,000 elements kept")
        XCTAssertEqual(try db.backlinkCount("Dog", 0), links)
        XCTAssertGreaterThan(links, 100)
        db.realm.close()
    }

    private func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8], line: UInt = #line) {
        var key = key, value = value
        key.withUnsafeMutableBytes { kb in
            value.withUnsafeMutableBytes { vb in
                var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress), v = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                XCTAssertEqual(mdb_put(txn, dbi, &k, &v, 0), 0, line: line)
            }
        }
    }
}
