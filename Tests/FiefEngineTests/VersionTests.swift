import XCTest
@testable import FiefStorage
@testable import FiefEngine
import Foundation

/// Versions, snapshots, frozen realms, live results.
final class VersionTests: XCTestCase {

    static let schema = makeSchema([("A", [prop("v", .int), prop("s", .string, .nullable)])])

    func testVersionIncrementsByOnePerCommit() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Self.schema)
        let start = try db.realm.version()
        for n in 1...5 {
            try db.realm.beginWrite()
            XCTAssertEqual(try db.realm.version(), start + UInt64(n), "inside a write: the version the commit makes")
            if n % 2 == 0 { _ = try db.create("A", [("v", .int(Int64(n)))]) }
            try db.realm.commitWrite()
            XCTAssertEqual(try db.realm.version(), start + UInt64(n))
        }
        try db.realm.beginWrite()
        _ = try db.create("A", [("v", .int(0))])
        db.realm.cancelWrite()
        XCTAssertEqual(try db.realm.version(), start + 5)
        XCTAssertEqual(try DB.open(dir.file(), nil).realm.version(), start + 5)
    }

    func testSecondRealmSeesCommitsOnlyAfterRefresh() throws {
        let dir = tempDir()
        let a = try DB.open(dir.file(), Self.schema)
        let b = try DB.open(dir.file(), nil)
        let bAll = try b.results("A")
        let bBig = try b.query("A", "v > 10")
        XCTAssertEqual(try bAll.count(), 0)
        let version = try b.realm.version()
        try a.write { _ = try a.createMany("A", ["v"], (0..<20).map { [.int(Int64($0))] }) }
        XCTAssertEqual(try b.realm.version(), version)
        XCTAssertEqual(try bAll.count(), 0)
        XCTAssertEqual(try bBig.count(), 0)
        XCTAssertFalse(try b.exists("A", 3))
        XCTAssertTrue(try b.realm.refresh())
        XCTAssertEqual(try b.realm.version(), version + 1)
        XCTAssertEqual(try bAll.count(), 20)
        XCTAssertEqual(try bBig.allKeys(), Array(11..<20))
        XCTAssertFalse(try b.realm.refresh(), "nothing new")
        // Updates and deletes, too.
        try a.write {
            try a.set("A", 15, "v", .int(0))
            try a.delete("A", 19)
        }
        XCTAssertEqual(try bBig.allKeys(), Array(11..<20))
        XCTAssertEqual(try b.get("A", 15, "v"), .int(15))
        XCTAssertTrue(try b.realm.refresh())
        XCTAssertEqual(try bBig.allKeys(), [11, 12, 13, 14, 16, 17, 18])
        XCTAssertEqual(try b.get("A", 15, "v"), .int(0))
        // invalidate: the next read starts at the newest version.
        try a.write { _ = try a.create("A", [("v", .int(100))]) }
        try b.realm.invalidate()
        XCTAssertEqual(try bBig.count(), 8)
        XCTAssertEqual(try b.realm.version(), try a.realm.version())
        // A write transaction starts from the newest version.
        try a.write { _ = try a.create("A", [("v", .int(101))]) }
        try b.realm.beginWrite()
        XCTAssertEqual(try bBig.count(), 9)
        b.realm.cancelWrite()
    }

    func testFreezePinsAVersion() throws {
        let dir = tempDir()
        let live = try DB.open(dir.file(), Self.schema)
        try live.write { _ = try live.createMany("A", ["v", "s"], (0..<300).map { [.int(Int64($0)), .string("s\($0)")] }) }
        let frozenRealm = try live.realm.freeze()
        let frozen = DB(frozenRealm)
        XCTAssertTrue(frozenRealm.isFrozen)
        XCTAssertTrue(try frozenRealm.freeze() === frozenRealm)
        let v1 = try frozenRealm.version()
        let frozenResults = try frozen.query("A", "v >= 150")
        XCTAssertEqual(try frozenResults.count(), 150)
        try live.write {
            _ = try live.create("A", [("v", .int(1000))])
            try live.set("A", 0, "s", .string("changed"))
            for k in Int64(150)..<200 { try live.delete("A", k) }
        }
        XCTAssertEqual(try live.realm.version(), v1 + 1)
        XCTAssertEqual(try frozenRealm.version(), v1)
        XCTAssertEqual(try frozen.count("A"), 300)
        XCTAssertEqual(try frozenResults.count(), 150)
        XCTAssertEqual(try frozen.get("A", 0, "s"), .string("s0"))
        XCTAssertEqual(try frozen.get("A", 160, "v"), .int(160))
        XCTAssertEqual(try live.count("A"), 251)
        XCTAssertFalse(try frozenRealm.refresh())
        expectError(.frozen) { try frozenRealm.beginWrite() }
        // Frozen results stay, and can be sorted and filtered further.
        XCTAssertEqual(try frozenResults.sorted(by: [("v", false)]).key(at: 0), 299)
        // thaw: a live realm at the newest version.
        let thawed = DB(try frozenRealm.thaw())
        XCTAssertFalse(thawed.realm.isFrozen)
        XCTAssertEqual(try thawed.realm.version(), v1 + 1)
        XCTAssertEqual(try thawed.count("A"), 251)
        XCTAssertTrue(try live.realm.thaw() === live.realm)
        try thawed.write { _ = try thawed.create("A", [("v", .int(2000))]) }
        XCTAssertEqual(try frozen.count("A"), 300)
        XCTAssertEqual(try live.realm.version(), v1 + 1, "the live realm has not refreshed")
        XCTAssertTrue(try live.realm.refresh())
        XCTAssertEqual(try live.count("A"), 252)
        // Inside a write: frozen at the version the write began from.
        let before = try live.realm.version()
        try live.realm.beginWrite()
        let created = try live.create("A", [("v", .int(3000))])
        try live.set("A", 0, "s", .string("in the write"))
        let frozenInWrite = DB(try live.realm.freeze())
        XCTAssertEqual(try frozenInWrite.realm.version(), before)
        XCTAssertEqual(try frozenInWrite.count("A"), 252)
        XCTAssertEqual(try frozenInWrite.get("A", 0, "s"), .string("changed"))
        XCTAssertEqual(try frozenInWrite.keys("A", "v == 3000"), [])
        XCTAssertFalse(try frozenInWrite.exists("A", created))
        XCTAssertTrue(try live.exists("A", created))
        try live.realm.commitWrite()
        XCTAssertEqual(try frozenInWrite.count("A"), 252, "a frozen realm keeps its version after the commit")
        XCTAssertEqual(try live.count("A"), 253)
        // A frozen realm outlives the realm it came from.
        live.realm.close()
        thawed.realm.close()
        XCTAssertEqual(try frozen.count("A"), 300)
        XCTAssertEqual(try frozen.get("A", 299, "s"), .string("s299"))
        expectError(.closed) { try live.realm.freeze() }
    }

    /// A write that changed the schema freezes as any write does: at the
    /// version it began from, with the schema of that version (without the
    /// classes and properties it added).
    func testFreezeInAWriteThatChangedTheSchema() throws {
        let live = try DB.open(tempDir().file(), Schema(classes: [ObjectClass(name: "A", properties: [prop("v", .int)])]))
        try live.write { _ = try live.createMany("A", ["v"], [[.int(1)], [.int(2)]]) }
        let before = try live.realm.version()
        try live.realm.beginWrite()
        try live.realm.updateSchema(Schema(classes: [
            ObjectClass(name: "A", properties: [prop("v", .int), prop("w", .string, .nullable)]),
            ObjectClass(name: "B", properties: [prop("x", .int)]),
        ]))
        _ = try live.create("B", [("x", .int(7))])
        try live.set("A", 0, "w", .string("new"))
        let frozen = DB(try live.realm.freeze())
        XCTAssertEqual(try frozen.realm.version(), before)
        XCTAssertEqual(frozen.realm.schema.classes.map(\.name), ["A"])
        XCTAssertEqual(frozen.realm.schema.classes[0].properties.map(\.name), ["v"])
        XCTAssertEqual(try frozen.keys("A", "v > 1").count, 1)
        expectError(.queryInvalid) { try frozen.query("A", "w == 'new'") }
        try live.realm.commitWrite()
        XCTAssertEqual(try frozen.count("A"), 2)
        XCTAssertEqual(try live.keys("B", "x == 7").count, 1)
        let after = DB(try live.realm.freeze())
        XCTAssertEqual(try after.keys("A", "w == 'new'").count, 1)
        // Cancelled: the frozen realm is unaffected.
        try live.realm.beginWrite()
        try live.realm.updateSchema(Schema(classes: [ObjectClass(name: "C", properties: [prop("y", .int)])]))
        let frozenBeforeCancel = DB(try live.realm.freeze())
        live.realm.cancelWrite()
        XCTAssertEqual(frozenBeforeCancel.realm.schema.classes.map(\.name).sorted(), ["A", "B"])
        XCTAssertEqual(try frozenBeforeCancel.count("B"), 1)
    }

    func testFreezeAfterAnotherRealmCommitted() throws {
        let dir = tempDir()
        let a = try DB.open(dir.file(), Self.schema)
        let b = try DB.open(dir.file(), nil)
        try a.write { _ = try a.createMany("A", ["v"], (0..<600).map { [.int(Int64($0))] }) }
        XCTAssertTrue(try b.realm.refresh())
        let seen = try b.realm.version()
        XCTAssertEqual(try b.count("A"), 600)
        // Another realm commits; b has not refreshed, so its frozen copy is at b's version.
        try a.write {
            for k in Int64(0)..<600 { try a.set("A", k, "v", .int(-1)) }
            _ = try a.create("A", [("v", .int(7))])
        }
        let frozen = DB(try b.realm.freeze())
        XCTAssertEqual(try frozen.realm.version(), seen)
        XCTAssertEqual(try frozen.count("A"), 600)
        XCTAssertEqual(try frozen.keys("A", "v == -1"), [])
        // The frozen realm and b share b's snapshot: read both at once from two threads.
        XCTAssertTrue(try b.realm.currentSnapshot() === frozen.realm.snapshot)
        XCTAssertTrue(frozen.realm.snapshot!.isShared)
        let failures = Failures()
        let done = DispatchSemaphore(value: 0)
        let frozenRealm = frozen.realm
        Thread {
            do {
                let f = DB(frozenRealm)
                for round in 0..<20 {
                    for k in Int64(0)..<600 where k % 7 == Int64(round % 7) {
                        if try f.get("A", k, "v") != .int(k) { failures.add("frozen \(k)") }
                    }
                    if try f.query("A", "v >= 300").count() != 300 { failures.add("frozen count") }
                }
            } catch { failures.add("\(error)") }
            done.signal()
        }.start()
        for round in 0..<20 {
            for k in Int64(0)..<600 where k % 5 == Int64(round % 5) {
                XCTAssertEqual(try b.get("A", k, "v"), .int(k))
            }
        }
        done.wait()
        XCTAssertEqual(failures.all, [])
        XCTAssertTrue(try b.realm.refresh())
        XCTAssertEqual(try b.keys("A", "v == -1").count, 600)
        XCTAssertEqual(try frozen.count("A"), 600)
        XCTAssertEqual(try frozen.get("A", 5, "v"), .int(5))
        XCTAssertEqual(try frozen.realm.version(), seen)
        // Frozen realms can be read from another thread while the live one writes.
        let frozenAgain = DB(try b.realm.freeze())
        try b.realm.beginWrite()
        try b.set("A", 1, "v", .int(42))
        let reader = DispatchSemaphore(value: 0)
        let value = Box<TV>(.null)
        let again = frozenAgain.realm
        Thread {
            value.value = (try? DB(again).get("A", 1, "v")) ?? .string("error")
            reader.signal()
        }.start()
        reader.wait()
        XCTAssertEqual(value.value, .int(-1))
        try b.realm.commitWrite()
    }

    func testResultsFollowWritesAndRefresh() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Self.schema)
        let all = try db.results("A")
        let named = try db.query("A", "s BEGINSWITH 'x'")
        let sorted = try db.results("A").sorted(by: [("v", false)])
        XCTAssertEqual(try all.count(), 0)
        try db.realm.beginWrite()
        let k0 = try db.create("A", [("v", .int(1)), ("s", .string("xa"))])
        XCTAssertEqual(try all.count(), 1)
        XCTAssertEqual(try named.allKeys(), [k0])
        let k1 = try db.create("A", [("v", .int(5)), ("s", .string("yb"))])
        XCTAssertEqual(try sorted.allKeys(), [k1, k0])
        try db.set("A", k1, "s", .string("xb"))
        XCTAssertEqual(try named.allKeys(), [k0, k1])
        try db.set("A", k0, "v", .int(9))
        XCTAssertEqual(try sorted.allKeys(), [k0, k1])
        try db.delete("A", k0)
        XCTAssertEqual(try named.allKeys(), [k1])
        XCTAssertEqual(try sorted.allKeys(), [k1])
        try db.realm.commitWrite()
        XCTAssertEqual(try named.allKeys(), [k1])
        // Results.deleteAll with a filter deletes only matches.
        try db.write {
            _ = try db.createMany("A", ["v", "s"], [[.int(1), .string("xc")], [.int(2), .string("zz")]])
            try named.deleteAll()
            XCTAssertEqual(try named.count(), 0)
        }
        XCTAssertEqual(try all.count(), 1)
        XCTAssertEqual(try db.get("A", try all.key(at: 0), "s"), .string("zz"))
        // Refresh with another realm's commits.
        let other = try DB.open(dir.file(), nil)
        try other.write { _ = try other.create("A", [("s", .string("xq"))]) }
        XCTAssertEqual(try named.count(), 0)
        XCTAssertTrue(try db.realm.refresh())
        XCTAssertEqual(try named.count(), 1)
        // Results moved to another realm of the same file.
        let moved = try named.resolved(in: other.realm)
        XCTAssertEqual(try moved.count(), 1)
        db.realm.close()
        XCTAssertFalse(named.isValid)
        expectError(.closed) { try named.count() }
    }
}

/// Failures collected from other threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); if items.count < 20 { items.append(s) }; lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
