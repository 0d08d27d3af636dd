import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Backlinks stored in runs (file format 5), driven directly against LMDB
/// and checked against a plain model after every step: adds and removes in
/// random order (runs splice, split and shrink), counts that outgrow their
/// width, many origin properties, origins far apart, whole targets taken,
/// a property's records dropped; a damaged run refused.  (The upgrade of a
/// format-4 file: Tests/CAPI/test_format_upgrade.c.)
final class BacklinkRunTests: XCTestCase {
    struct Link: Hashable, Comparable {
        var target: Int64, originClass: UInt32, property: UInt32, origin: Int64
        static func < (a: Link, b: Link) -> Bool {
            (UInt64(bitPattern: a.target), a.originClass, a.property, UInt64(bitPattern: a.origin))
                < (UInt64(bitPattern: b.target), b.originClass, b.property, UInt64(bitPattern: b.origin))
        }
    }

    private func check(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ model: [Link: UInt32], file: StaticString = #filePath, line: UInt = #line) throws {
        var all: [(Link, UInt32)] = []
        try Backlinks.forEachRecord(txn, dbi) { (t, c, p, o, n) throws(FiefError) in all.append((Link(target: t, originClass: c, property: p, origin: o), n)) }
        let expected = model.sorted { $0.key < $1.key }
        XCTAssertEqual(all.map(\.0), expected.map(\.key), file: file, line: line)
        XCTAssertEqual(all.map(\.1), expected.map(\.value), file: file, line: line)
        XCTAssertEqual(try Backlinks.recordCount(txn, dbi), model.count, file: file, line: line)
        // Per target and per (target, class, property), through forEach.
        let targets = Set(model.keys.map(\.target))
        for target in targets.prefix(50) {
            var got: [Link] = []
            try Backlinks.forEach(txn, dbi, target: target) { (c, p, o, _) throws(FiefError) in got.append(Link(target: target, originClass: c, property: p, origin: o)) }
            XCTAssertEqual(got, expected.map(\.key).filter { $0.target == target }, file: file, line: line)
            if let first = got.first {
                var some: [Link] = []
                try Backlinks.forEach(txn, dbi, target: target, originClass: first.originClass, property: first.property) { (c, p, o, _) throws(FiefError) in
                    some.append(Link(target: target, originClass: c, property: p, origin: o))
                }
                XCTAssertEqual(some, got.filter { $0.originClass == first.originClass && $0.property == first.property }, file: file, line: line)
            }
        }
    }

    func testRandomChangesMatchAModel() throws {
        let dir = tempDir()
        let path = dir.file()
        var rng = SystemRandomNumberGenerator()
        var seed: UInt64 = 0x5eed
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        _ = rng
        var model: [Link: UInt32] = [:]
        withRawLMDB(path, database: "c1.b") { txn, dbi in
            do {
                for step in 0..<6000 {
                    // Targets cluster in a few ranges; origins near and far; a few properties.
                    let target = Int64(next(4) * 1_000_000 + next(400))
                    let link = Link(target: target, originClass: UInt32(1 + next(3)), property: UInt32(1 + next(4)),
                                    origin: next(10) == 0 ? Int64(next(1 << 30)) << 8 : Int64(next(5000)))
                    if next(3) == 0, let existing = model.keys.randomElement() {
                        try Backlinks.remove(txn, dbi, target: existing.target, originClass: existing.originClass,
                                             property: existing.property, origin: existing.origin)
                        model[existing]! -= 1
                        if model[existing] == 0 { model[existing] = nil }
                    } else {
                        // Some links are counted many times (counts of 2, 3 and more bytes).
                        let times = next(50) == 0 ? 300 : 1
                        for _ in 0..<times {
                            try Backlinks.add(txn, dbi, target: link.target, originClass: link.originClass, property: link.property, origin: link.origin)
                        }
                        model[link, default: 0] += UInt32(times)
                    }
                    // Removing what is not there changes nothing.
                    try Backlinks.remove(txn, dbi, target: 7_777_777, originClass: 1, property: 1, origin: 1)
                    if step % 1000 == 999 { try check(txn, dbi, model) }
                }
                // Targets appended in order, as new objects come.
                for t in 0..<2000 {
                    let link = Link(target: 9_000_000 + Int64(t), originClass: 2, property: 1, origin: Int64(t % 7))
                    try Backlinks.add(txn, dbi, target: link.target, originClass: 2, property: 1, origin: link.origin)
                    model[link] = 1
                }
                try check(txn, dbi, model)
                // Whole targets taken (an object deleted).
                let cursor = try LMDBCursor(txn, dbi)
                for target in Set(model.keys.map(\.target)).sorted().enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) {
                    var taken: [(UInt32, UInt32, Int64, UInt32)] = []
                    try Backlinks.take(cursor, target: target, into: &taken)
                    let expected = model.filter { $0.key.target == target }.sorted { $0.key < $1.key }
                    XCTAssertEqual(taken.map { Link(target: target, originClass: $0.0, property: $0.1, origin: $0.2) }, expected.map(\.key))
                    XCTAssertEqual(taken.map(\.3), expected.map(\.value))
                    for (link, _) in expected { model[link] = nil }
                }
                try check(txn, dbi, model)
                // A property's records dropped.
                let removed = try Backlinks.removeAll(txn, dbi, originClass: 2, property: 3)
                XCTAssertEqual(removed, model.keys.filter { $0.originClass == 2 && $0.property == 3 }.count)
                model = model.filter { !($0.key.originClass == 2 && $0.key.property == 3) }
                try check(txn, dbi, model)
                // Runs stay within their limit and reasonably full.
                var stat = MDB_stat()
                XCTAssertEqual(mdb_stat(txn, dbi, &stat), 0)
                XCTAssertEqual(stat.ms_overflow_pages, 0)
                XCTAssertLessThan(Int(stat.ms_entries) * 20, model.count, "runs should hold many records each")
            } catch {
                XCTFail("\(error)")
            }
        }
    }

    func testVerifyReportsADamagedRunAndReadsRefuseIt() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([
            ("Dog", [prop("name", .string)]),
            ("Person", [prop("name", .string), Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list)]),
        ])
        var dogClass: UInt32 = 0
        var dogs: [Int64] = []
        do {
            let db = try DB.open(path, schema)
            dogClass = db.cls("Dog")
            try db.write {
                for i in 0..<300 { dogs.append(try db.create("Dog", [("name", .string("d\(i)"))])) }
                for i in 0..<300 {
                    let p = try db.create("Person", [("name", .string("p\(i)"))])
                    try db.append("Person", p, "dogs", [.link(dogClass, dogs[i]), .link(dogClass, dogs[(i * 7) % 300])])
                }
            }
            db.realm.close()
        }
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)
        // One byte of the first run flipped (its checksum no longer holds).
        withRawLMDB(path, database: Table.backlinksName(dogClass)) { txn, dbi in
            do {
                let cursor = try LMDBCursor(txn, dbi)
                guard let (k, v) = try cursor.move(MDB_FIRST) else { return XCTFail("no run") }
                var bytes = Array(v)
                bytes[Backlinks.headerBytes + 12] ^= 0x01
                let key = Array(k)
                try key.withBytes { (kb) throws(FiefError) in try bytes.withBytes { (vb) throws(FiefError) in _ = try LMDB.put(txn, dbi, kb, vb) } }
            } catch {
                XCTFail("\(error)")
            }
        }
        var problems: [String] = []
        XCTAssertGreaterThan(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 0)
        XCTAssertTrue(problems.contains { $0.contains("damaged") || $0.contains("cannot be read") }, "\(problems)")
        // Reads of the damaged run fail with FIEF_ERR_FILE_CORRUPT; no crash, no wrong answer.
        let db = try DB.open(path, schema)
        expectError(.fileCorrupt) {
            _ = try ObjectResults(realm: db.realm, linkingTo: dogs[0], of: dogClass, originClass: db.cls("Person"), property: db.pkey("Person", "dogs")).count()
        }
        db.realm.close()
    }

    func testADamagedRunIsAnError() throws {
        let dir = tempDir()
        let path = dir.file()
        withRawLMDB(path, database: "c1.b") { txn, dbi in
            do {
                for o in 0..<50 { try Backlinks.add(txn, dbi, target: 5, originClass: 1, property: 2, origin: Int64(o)) }
                // Flip a byte of the stored run (a copy put back).
                let cursor = try LMDBCursor(txn, dbi)
                guard let (k, v) = try cursor.move(MDB_FIRST) else { return XCTFail("no run") }
                var bytes = Array(v)
                bytes[bytes.count / 2] ^= 0x40
                let key = Array(k)
                try key.withBytes { (kb) throws(FiefError) in try bytes.withBytes { (vb) throws(FiefError) in _ = try LMDB.put(txn, dbi, kb, vb) } }
                XCTAssertThrowsError(try Backlinks.forEach(txn, dbi, target: 5) { (_, _, _, _) throws(FiefError) in }) {
                    XCTAssertEqual(($0 as? FiefError)?.code, .fileCorrupt)
                }
                XCTAssertThrowsError(try Backlinks.add(txn, dbi, target: 5, originClass: 1, property: 2, origin: 1000))
                XCTAssertThrowsError(try Backlinks.recordCount(txn, dbi))
            } catch {
                XCTFail("\(error)")
            }
        }
    }
}
