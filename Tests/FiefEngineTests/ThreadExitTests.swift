import XCTest
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// A thread that ends while its write transaction is open.
final class ThreadExitTests: XCTestCase {
    static let schema = makeSchema([("Item", [prop("id", .int, .primaryKey), prop("value", .int)])])

    func testThreadEndingInsideAWriteCancelsIt() throws {
        // A thread that ended inside a write left LMDB's writer lock to a dead owner: every later write of the file failed (MDB_PANIC).
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema)
        try db.write { _ = try db.create("Item", [("id", .int(1)), ("value", .int(10))]) }
        let version = try db.realm.version()
        let other = try DB.open(path, nil)
        let wrote = Box<Bool>(false)
        runPOSIXThread {
            do {
                try other.realm.beginWrite()
                try other.create("Item", [("id", .int(2)), ("value", .int(20))])
                try other.set("Item", 0, "value", .int(99))
                wrote.value = true
            } catch {}
            // Returns with the transaction open.
        }
        XCTAssertTrue(wrote.value)
        XCTAssertFalse(other.realm.isInWriteTransaction)
        XCTAssertEqual(try other.realm.version(), version)

        // Another realm of the file, on this thread.
        try db.write { _ = try db.create("Item", [("id", .int(3)), ("value", .int(30))]) }
        // The same realm, on this thread.
        try other.write { _ = try other.create("Item", [("id", .int(4)), ("value", .int(40))]) }
        // Another thread, which ends after committing: nothing happens at its end.
        let committed = Box<Bool>(false)
        runPOSIXThread {
            do {
                try db.write { _ = try db.create("Item", [("id", .int(5)), ("value", .int(50))]) }
                committed.value = true
            } catch {}
        }
        XCTAssertTrue(committed.value)

        // Nothing of the abandoned transaction was kept.
        _ = try db.realm.refresh()
        XCTAssertEqual(try db.realm.version(), version + 3)
        XCTAssertNil(try db.find("Item", .int(2)))
        XCTAssertEqual(try db.get("Item", 0, "value"), .int(10))
        XCTAssertEqual(try db.count("Item"), 4)
    }

    func testThreadEndingInsideWritesOnTwoFilesCancelsBoth() throws {
        // A thread that ended writing two files left both files' writer locks to a dead owner.
        let dir = tempDir()
        let first = try DB.open(dir.file("one.fief"), Self.schema)
        let second = try DB.open(dir.file("two.fief"), Self.schema)
        runPOSIXThread {
            do {
                try first.realm.beginWrite()
                try first.create("Item", [("id", .int(1)), ("value", .int(1))])
                try second.realm.beginWrite()
                try second.create("Item", [("id", .int(1)), ("value", .int(1))])
            } catch {}
        }
        XCTAssertFalse(first.realm.isInWriteTransaction)
        XCTAssertFalse(second.realm.isInWriteTransaction)
        try first.write { _ = try first.create("Item", [("id", .int(2)), ("value", .int(2))]) }
        try second.write { _ = try second.create("Item", [("id", .int(2)), ("value", .int(2))]) }
        XCTAssertEqual(try first.count("Item"), 1)
        XCTAssertEqual(try second.count("Item"), 1)
    }
}

/// The body of a thread started by `runPOSIXThread`.
private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Run `body` on a new POSIX thread and return once the thread has ended
/// (its thread-specific destructors included).
func runPOSIXThread(_ body: @escaping () -> Void) {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let rc = pthread_create(&thread, nil, { context in
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    precondition(rc == 0, "pthread_create failed")
    pthread_join(thread, nil)
}
