import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// String and binary chunks too large for one LMDB page are stored in parts
/// that each fit a page (file format 3): read back whole, rewritten as
/// values change, deleted with their objects, and checked for damage.
final class ChunkPartTests: XCTestCase {
    private let schema = makeSchema([("A", [prop("id", .int, [.primaryKey]), prop("s", .string, [.nullable]), prop("b", .binary)])])

    /// The data database of class `classKey`, opened with LMDB itself (the
    /// realm closed): its keys with their value sizes, and its overflow pages.
    private func stored(_ path: String, classKey: UInt32) -> (chunks: [(key: UInt64, size: Int)], overflowPages: Int, pageSize: Int) {
        var chunks: [(key: UInt64, size: Int)] = []
        var stat = MDB_stat()
        withRawLMDB(path, database: Table.dataName(classKey), flags: MDB_INTEGERKEY, readOnly: true) { txn, dbi in
            XCTAssertEqual(mdb_stat(txn, dbi, &stat), 0)
            var cursor: OpaquePointer?
            XCTAssertEqual(mdb_cursor_open(txn, dbi, &cursor), 0)
            defer { mdb_cursor_close(cursor) }
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                chunks.append((k.mv_data.loadUnaligned(as: UInt64.self), v.mv_size))
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
        }
        return (chunks, Int(stat.ms_overflow_pages), Int(stat.ms_psize))
    }

    /// Change the data database of class `classKey` with LMDB itself.
    private func alter(_ path: String, classKey: UInt32, _ body: (OpaquePointer, MDB_dbi) -> Void) {
        withRawLMDB(path, database: Table.dataName(classKey), flags: MDB_INTEGERKEY, body)
    }

    private func name(_ i: Int) -> TV { i % 9 == 4 ? .null : .string("name-\(String(repeating: "x", count: i % 7))-\(i)") }
    private func blob(_ i: Int) -> TV { .binary((0..<(i % 5)).map { UInt8(truncatingIfNeeded: $0 &+ i) }) }

    private func fill(_ db: DB, count: Int) throws {
        try db.write {
            _ = try db.createMany("A", ["id", "s", "b"], (0..<count).map { [.int(Int64($0)), name($0), blob($0)] })
        }
    }

    private func parts(_ chunks: [(key: UInt64, size: Int)], column: UInt32) -> [(key: UInt64, size: Int)] {
        chunks.filter { ClusterLayout.column(ofChunkKey: $0.key) == column }
    }

    func testLargeStringChunksAreStoredInPartsThatFitPages() throws {
        let dir = tempDir()
        let path = dir.file()
        let count = 700
        var classKey: UInt32 = 0, s: UInt32 = 0, b: UInt32 = 0
        do {
            let db = try DB.open(path, schema)
            classKey = db.cls("A"); s = db.pkey("A", "s"); b = db.pkey("A", "b")
            try fill(db, count: count)
            // Read back inside the same realm, by key, by query and sorted.
            for i in 0..<count {
                XCTAssertEqual(try db.get("A", Int64(i), "s"), name(i), "object \(i)")
                XCTAssertEqual(try db.get("A", Int64(i), "b"), blob(i), "object \(i)")
            }
            let prefixed = (0..<count).filter { if case .string(let v) = name($0) { return v.hasPrefix("name-xxx-") } else { return false } }
            XCTAssertEqual(try db.keys("A", "s BEGINSWITH 'name-xxx-'"), prefixed.map(Int64.init))
            XCTAssertEqual(try db.keys("A", "s == 'name-x-694'"), [694])
            XCTAssertEqual(try db.count("A"), count)
            db.realm.close()
        }
        let (chunks, overflow, pageSize) = stored(path, classKey: classKey)
        let limit = ChunkParts.partLimit(pageSize: pageSize)
        let strings = parts(chunks, column: s)
        XCTAssertGreaterThan(strings.count, 3, "every full cluster's names take two parts")
        XCTAssertTrue(strings.contains { ClusterLayout.lastSlot(ofChunkKey: $0.key) != 255 })
        XCTAssertTrue(chunks.allSatisfy { $0.size <= limit }, "every chunk and part fits a page")
        XCTAssertEqual(overflow, 0)
        XCTAssertEqual(parts(chunks, column: b).count, 3, "small binaries stay whole")
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)
        // A reopened realm (a read snapshot) reads the parts.
        let db = try DB.open(path, nil, readOnly: true)
        for i in stride(from: 0, to: count, by: 7) { XCTAssertEqual(try db.get("A", Int64(i), "s"), name(i)) }
        XCTAssertEqual(try db.keys("A", "s ENDSWITH '-255' OR s ENDSWITH '-257'"), [255, 257])
        let sorted = try db.results("A").sorted(by: [("s", true)])
        var previous = ""
        for index in 0..<(try sorted.count()) {
            if case .string(let v) = try db.get("A", try sorted.key(at: index), "s") {
                XCTAssertLessThanOrEqual(previous, v)
                previous = v
            }
        }
    }

    func testPartsFollowEveryChange() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, schema)
        let classKey = db.cls("A"), s = db.pkey("A", "s")
        try fill(db, count: 256)
        // One long value: a part of its own (LMDB gives it overflow pages).
        let long = String(repeating: "long value ", count: 600)
        try db.write { try db.set("A", 100, "s", .string(long)) }
        XCTAssertEqual(try db.get("A", 100, "s"), .string(long))
        XCTAssertEqual(try db.get("A", 99, "s"), name(99))
        XCTAssertEqual(try db.get("A", 101, "s"), name(101))
        // A cancelled change leaves the parts as they were.
        try db.realm.beginWrite()
        for i in 0..<256 { try db.set("A", Int64(i), "s", .string("short")) }
        db.realm.cancelWrite()
        XCTAssertEqual(try db.get("A", 100, "s"), .string(long))
        XCTAssertEqual(try db.get("A", 200, "s"), name(200))
        db.realm.close()
        var chunks = parts(stored(path, classKey: classKey).chunks, column: s)
        XCTAssertGreaterThanOrEqual(chunks.count, 3)
        XCTAssertTrue(chunks.contains { $0.size > 6000 }, "the long value's part")

        // Values that shrink: the chunk is whole again, its old parts gone.
        do {
            let db = try DB.open(path, schema)
            try db.write { for i in 0..<256 { try db.set("A", Int64(i), "s", .string("v\(i % 10)")) } }
            XCTAssertEqual(try db.get("A", 100, "s"), .string("v0"))
            db.realm.close()
        }
        chunks = parts(stored(path, classKey: classKey).chunks, column: s)
        XCTAssertEqual(chunks.map(\.key), [ClusterLayout.chunkKey(column: s, cluster: 0)])
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)

        // Values that grow again, inside one transaction that also reads them.
        do {
            let db = try DB.open(path, schema)
            try db.write {
                for i in 0..<256 { try db.set("A", Int64(i), "s", .string(String(repeating: "g", count: 20) + "\(i)")) }
                XCTAssertEqual(try db.get("A", 7, "s"), .string(String(repeating: "g", count: 20) + "7"))
            }
            XCTAssertEqual(try db.keys("A", "s ENDSWITH 'g255'"), [255])
            db.realm.close()
        }
        chunks = parts(stored(path, classKey: classKey).chunks, column: s)
        XCTAssertGreaterThanOrEqual(chunks.count, 3)
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)

        // Deleting every object of the cluster deletes every part.
        do {
            let db = try DB.open(path, schema)
            try db.write { for i in 0..<256 { try db.delete("A", Int64(i)) } }
            XCTAssertEqual(try db.count("A"), 0)
            db.realm.close()
        }
        XCTAssertEqual(stored(path, classKey: classKey).chunks.count, 0)
    }

    func testDamagedOrMissingPartsAreReportedNotRead() throws {
        let dir = tempDir()
        var classKey: UInt32 = 0, s: UInt32 = 0
        let original = dir.file("original.fief")
        do {
            let db = try DB.open(original, schema)
            classKey = db.cls("A"); s = db.pkey("A", "s")
            try fill(db, count: 600)
            db.realm.close()
        }
        let leading = parts(stored(original, classKey: classKey).chunks, column: s).first { ClusterLayout.lastSlot(ofChunkKey: $0.key) != 255 }!
        let cluster = ClusterLayout.cluster(ofChunkKey: leading.key)
        let damagedObject = cluster << 8

        for damage in ["missing", "flipped"] {
            let path = dir.file("\(damage).fief")
            XCTAssertEqual(try FileCopy.copy(from: original, to: path) { _, _ in }, 0)
            alter(path, classKey: classKey) { txn, dbi in
                var key = leading.key
                withUnsafeMutableBytes(of: &key) { kb in
                    var k = MDB_val(mv_size: 8, mv_data: kb.baseAddress)
                    if damage == "missing" {
                        XCTAssertEqual(mdb_del(txn, dbi, &k, nil), 0)
                    } else {
                        var v = MDB_val()
                        XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                        var bytes = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                        bytes[bytes.count / 2] ^= 0x10
                        bytes.withUnsafeMutableBytes { vb in
                            var nv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                            XCTAssertEqual(mdb_put(txn, dbi, &k, &nv, 0), 0)
                        }
                    }
                }
            }
            do {
                let db = try DB.open(path, nil, readOnly: true)
                let error = expectError(.fileCorrupt) { try db.get("A", damagedObject, "s") }
                XCTAssertTrue(error?.message.contains("property 's'") ?? false, error?.message ?? "")
                expectError(.fileCorrupt) { try db.keys("A", "s BEGINSWITH 'name'") }
                // The rest of the cluster and the other clusters stay readable.
                XCTAssertEqual(try db.get("A", damagedObject, "b"), blob(Int(damagedObject)))
                let other = cluster == 0 ? 300 : 3
                XCTAssertEqual(try db.get("A", Int64(other), "s"), name(other))
                db.realm.close()
            }
            var problems: [String] = []
            XCTAssertGreaterThan(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 0)
            XCTAssertTrue(problems.contains { $0.contains("property 's'") && $0.contains("damaged") }, "\(problems)")
            // A copy keeps everything else, the damaged chunk as nulls.
            let copy = dir.file("\(damage)-copy.fief")
            XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 1)
            XCTAssertEqual(try FileCheck.verify(path: copy) { _, _ in }, 0)
            let db = try DB.open(copy, nil, readOnly: true)
            XCTAssertEqual(try db.count("A"), 600)
            XCTAssertEqual(try db.get("A", damagedObject + 1, "s"), .null)
            XCTAssertEqual(try db.get("A", damagedObject + 1, "b"), blob(Int(damagedObject) + 1))
            let other = cluster == 0 ? 300 : 3
            XCTAssertEqual(try db.get("A", Int64(other), "s"), name(other))
        }
    }
}
