import XCTest
@testable import FiefStorage
@testable import FiefEngine
import Foundation

final class MiscEngineTests: XCTestCase {

    func testConcurrentOpensOfANewFile() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("A", [prop("id", .int, .primaryKey), prop("who", .string)])])
        let failures = Failures()
        var done: [DispatchSemaphore] = []
        for t in 0..<4 {
            let finished = DispatchSemaphore(value: 0)
            done.append(finished)
            Thread {
                do {
                    let db = try DB.open(path, schema)
                    try db.write { _ = try db.create("A", [("id", .int(Int64(t))), ("who", .string("thread \(t)"))]) }
                } catch { failures.add("\(t): \(error)") }
                finished.signal()
            }.start()
        }
        for d in done { d.wait() }
        XCTAssertEqual(failures.all, [])
        let db = try DB.open(path, nil)
        XCTAssertEqual(db.realm.schema.classes.count, 1)
        XCTAssertEqual(try db.count("A"), 4)
        XCTAssertEqual(try db.realm.version(), 4)
        for t in 0..<4 {
            XCTAssertEqual(try db.get("A", try XCTUnwrap(try db.find("A", .int(Int64(t)))), "who"), .string("thread \(t)"))
        }
    }

    func testInMemoryRealms() throws {
        let identifier = "engine-tests-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        var config = RealmConfiguration()
        config.inMemoryIdentifier = identifier
        config.schema = makeSchema([("A", [prop("v", .int)])])
        var filePath = ""
        do {
            let a = DB(try Realm.open(config))
            filePath = a.realm.path
            try a.write { _ = try a.create("A", [("v", .int(3))]) }
            var again = config
            again.schema = nil
            let b = DB(try Realm.open(again))
            XCTAssertEqual(try b.count("A"), 1)
        }
        // Gone once every realm is released.
        XCTAssertNotEqual(access(filePath, F_OK), 0)
        let fresh = DB(try Realm.open(config))
        XCTAssertEqual(try fresh.count("A"), 0)
        config.inMemoryIdentifier = ""
        expectError(.invalidArgument) { try Realm.open(config) }
        config.inMemoryIdentifier = nil
        expectError(.invalidArgument) { try Realm.open(config) }
    }

    func testDeleteFiles() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try DB.open(path, makeSchema([("A", [prop("v", .int)])]))
            expectError(.fileLocked) { try Realm.deleteFiles(path: path) }
            db.realm.close()
            // Closed but not released: still open in this process.
            expectError(.fileLocked) { try Realm.deleteFiles(path: path) }
        }
        XCTAssertTrue(try Realm.deleteFiles(path: path))
        XCTAssertNotEqual(access(path, F_OK), 0)
        XCTAssertNotEqual(access(path + "-lock", F_OK), 0)
        XCTAssertFalse(try Realm.deleteFiles(path: path))
    }

    func testWritableOpenWhileOpenReadOnly() throws {
        let dir = tempDir()
        let path = dir.file()
        do { _ = try DB.open(path, makeSchema([("A", [prop("v", .int)])])) }
        do {
            let ro = try DB.open(path, nil, readOnly: true)
            // The process has one environment per file, opened read-only: a
            // writable open must fail up front, not give a read-only realm.
            expectError(.fileLocked) { try DB.open(path, nil) }
            XCTAssertEqual(try ro.count("A"), 0)
        }
        let rw = try DB.open(path, nil)
        XCTAssertFalse(rw.realm.isReadOnly)
        try rw.write { _ = try rw.create("A", [("v", .int(1))]) }
        // The other way round works: read-only realms share the writable environment.
        let ro = try DB.open(path, nil, readOnly: true)
        XCTAssertTrue(ro.realm.isReadOnly)
        XCTAssertEqual(try ro.count("A"), 1)
        expectError(.readOnly) { try ro.realm.beginWrite() }
    }

    func testValueChecks() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("A", [prop("id", .string, .primaryKey), prop("s", .string), prop("t", .timestamp), prop("f", .float)])]))
        try db.realm.beginWrite()
        // Primary-key strings have a length limit; other strings do not.
        expectError(.invalidArgument) { try db.create("A", [("id", .string(String(repeating: "k", count: 600)))]) }
        let k = try db.create("A", [("id", .string(String(repeating: "k", count: 400))), ("s", .string(String(repeating: "s", count: 200_000)))])
        XCTAssertEqual(try db.find("A", .string(String(repeating: "k", count: 400))), k)
        XCTAssertNil(try db.find("A", .string(String(repeating: "k", count: 600))))
        // Invalid UTF-8 is refused.
        let bad: [UInt8] = [0x61, 0xC3, 0x28]
        try bad.withUnsafeBytes { raw in
            expectError(.invalidUTF8) { try db.realm.setValue(table: db.cls("A"), key: k, property: db.pkey("A", "s"), value: .string(raw)) }
        }
        // Timestamps: nanoseconds below a second, with the sign of the seconds.
        expectError(.invalidArgument) { try db.set("A", k, "t", .timestamp(1, -5)) }
        expectError(.invalidArgument) { try db.set("A", k, "t", .timestamp(0, 1_000_000_000)) }
        try db.set("A", k, "t", .timestamp(-1, -999_999_999))
        try db.set("A", k, "t", .timestamp(0, -5))
        // Doubles narrow into floats.
        try db.set("A", k, "f", .double(0.1))
        XCTAssertEqual(try db.get("A", k, "f"), .float(0.1))
        expectError(.typeMismatch) { try db.set("A", k, "f", .string("0.1")) }
        try db.realm.commitWrite()
        XCTAssertEqual(try db.get("A", k, "t"), .timestamp(0, -5))
        XCTAssertEqual(try db.get("A", k, "s"), .string(String(repeating: "s", count: 200_000)))
    }
}

/// The chunk checksum is the same value with SSE4.2 and with the portable
/// table (a file written on one machine is read on another).
final class ChecksumTests: XCTestCase {
    func testHardwareAndPortableChecksumsAgree() {
        var state: UInt64 = 12345
        for length in Array(0...200) + [1057, 2593, 4096, 65_537] {
            var bytes = [UInt8](repeating: 0, count: length)
            for i in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
            }
            bytes.withUnsafeBytes { body in
                let portable = ChunkCheck.checksum(table: 7, key: UInt64(length), body, hardware: 0)
                XCTAssertEqual(ChunkCheck.checksum(table: 7, key: UInt64(length), body, hardware: ChunkCheck.hardware), portable, "length \(length)")
                XCTAssertNotEqual(ChunkCheck.checksum(table: 8, key: UInt64(length), body, hardware: 0), portable, "the class key counts")
                if length > 0 {
                    var flipped = bytes
                    flipped[length / 2] ^= 0x10
                    flipped.withUnsafeBytes { XCTAssertNotEqual(ChunkCheck.checksum(table: 7, key: UInt64(length), $0, hardware: 0), portable) }
                }
            }
        }
    }
}
