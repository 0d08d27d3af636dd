import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Maps of values filled in one write transaction are kept in memory and
/// stored sorted (`EntryTable`): whatever reads or writes them in the same
/// transaction sees exactly what a map written key by key would show, and
/// the stored result is the same.
final class MapBufferTests: XCTestCase {
    private let schema = makeSchema([
        ("Person", [prop("name", .string),
                    Property(name: "scores", type: .int, collection: .map),
                    Property(name: "notes", type: .string, flags: .nullable, collection: .map),
                    Property(name: "weights", type: .double, collection: .map)]),
    ])

    /// A fixed order of keys that is not their sorted order.
    private func keys(_ n: Int) -> [String] {
        (0..<n).map { String(format: "%c%c-%05d", 97 + ($0 * 7) % 26, 97 + ($0 * 11) % 26, $0) }
    }

    func testAFilledMapReadsBackInTheTransactionAndAfterCommit() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let ks = keys(3000)
        var a: Int64 = 0, b: Int64 = 0
        try db.write {
            a = try db.create("Person", [("name", .string("a"))])
            b = try db.create("Person", [("name", .string("b"))])
        }
        try db.write {
            // Owner b first: its keys go past the end, then a's (before b's) do not.
            for (i, k) in ks.enumerated() { try db.mapSet("Person", b, "scores", k, .int(Int64(i))) }
            for (i, k) in ks.enumerated() { try db.mapSet("Person", a, "scores", k, .int(Int64(-i))) }
            // Set again: replaced; the same value: nothing changes.
            try db.mapSet("Person", a, "scores", ks[5], .int(500))
            try db.mapSet("Person", a, "scores", ks[6], .int(-6))
            XCTAssertEqual(try db.realm.map(db.ref("Person", a, "scores")).count(), 3000)
            XCTAssertEqual(try db.mapGet("Person", a, "scores", ks[5]), .int(500))
            XCTAssertEqual(try db.mapGet("Person", a, "scores", "nope"), nil)
            // Entries in key order, in the transaction.
            let entries = try db.map("Person", b, "scores")
            XCTAssertEqual(entries.map(\.0), ks.sorted())
            // Written after a read: goes straight to the database.
            try db.mapSet("Person", b, "scores", "zzz", .int(1))
            XCTAssertTrue(try db.mapRemove("Person", a, "scores", ks[7]))
            XCTAssertFalse(try db.mapRemove("Person", a, "scores", ks[7]))
            XCTAssertEqual(try db.realm.map(db.ref("Person", a, "scores")).count(), 2999)
        }
        XCTAssertEqual(try db.realm.map(db.ref("Person", b, "scores")).count(), 3001)
        let stored = try db.map("Person", a, "scores")
        var expected: [(String, TV)] = ks.enumerated().filter { $0.offset != 7 }.map { ($0.element, .int($0.offset == 5 ? 500 : Int64(-$0.offset))) }
        expected.sort { $0.0 < $1.0 }
        XCTAssertEqual(stored.map(\.0), expected.map(\.0))
        XCTAssertEqual(stored.map(\.1), expected.map(\.1))
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }

    func testBufferedKeysAreClearedRemovedAndCancelled() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var p: Int64 = 0
        try db.write { p = try db.create("Person", [("name", .string("p"))]) }
        // Cancelled: nothing stored.
        try db.realm.beginWrite()
        for k in keys(100) { try db.mapSet("Person", p, "notes", k, .string(k)) }
        try db.mapSet("Person", p, "notes", "null", .null)
        try db.mapSet("Person", p, "notes", "", .string("empty key"))
        try db.mapSet("Person", p, "notes", "", .string("empty key, again"))
        XCTAssertEqual(try db.mapGet("Person", p, "notes", "null"), .null)
        XCTAssertEqual(try db.map("Person", p, "notes").first?.1, .string("empty key, again"))
        db.realm.cancelWrite()
        XCTAssertEqual(try db.realm.map(db.ref("Person", p, "notes")).count(), 0)
        XCTAssertEqual(try db.map("Person", p, "notes").count, 0)
        // Cleared in the transaction that filled it.
        try db.write {
            for k in keys(100) { try db.mapSet("Person", p, "notes", k, .string(k)) }
            try db.realm.map(db.ref("Person", p, "notes")).removeAll()
            XCTAssertEqual(try db.realm.map(db.ref("Person", p, "notes")).count(), 0)
            for k in keys(10) { try db.mapSet("Person", p, "weights", k, .double(-0.0)) }
            // 0.0 is the same value as -0.0: the stored -0.0 stays, as for a stored key.
            try db.mapSet("Person", p, "weights", keys(10)[0], .double(0.0))
        }
        XCTAssertEqual(try db.map("Person", p, "notes").count, 0)
        XCTAssertEqual(try db.mapGet("Person", p, "weights", keys(10)[0]).map { "\($0)" }, "\(TV.double(-0.0))")
        // The owner deleted in the transaction that filled its map.
        var q: Int64 = 0
        try db.write {
            q = try db.create("Person", [("name", .string("q"))])
            for k in keys(50) { try db.mapSet("Person", q, "scores", k, .int(1)) }
            try db.delete("Person", q)
        }
        XCTAssertEqual(try db.count("Person"), 1)
        // Every object of the class deleted.
        try db.write {
            for k in keys(50) { try db.mapSet("Person", p, "scores", k, .int(2)) }
            try db.realm.deleteAll(table: db.cls("Person"))
        }
        XCTAssertEqual(try db.count("Person"), 0)
        db.realm.close()
        XCTAssertEqual(try FileCheck.verify(path: dir.file()) { _, _ in }, 0)
    }
}
