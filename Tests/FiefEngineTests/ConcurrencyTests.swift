import XCTest
@testable import FiefStorage
@testable import FiefEngine
import Foundation

/// Real threads on separate Realm instances of one file.
final class ConcurrencyTests: XCTestCase {

    static let schema = makeSchema([("Account", [prop("id", .int, .primaryKey), prop("balance", .int, .indexed), prop("note", .string)])])

    /// Start `body` on a new thread; the returned semaphore is signalled when it ends.
    @discardableResult
    func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread { body(); done.signal() }.start()
        return done
    }

    func testWriterAndReadersKeepTheInvariant() throws {
        let dir = tempDir()
        let path = dir.file()
        let accounts = 300   // two clusters
        let total = Int64(accounts) * 100
        do {
            let db = try DB.open(path, Self.schema)
            try db.write { _ = try db.createMany("Account", ["id", "balance", "note"], (0..<accounts).map { [.int(Int64($0)), .int(100), .string("")] }) }
        }
        let failures = Failures()
        let deadline = Date().addingTimeInterval(1.8)
        let commits = Box<Int>(0)
        let checks = Box<[Int]>([0, 0, 0])
        var threads: [DispatchSemaphore] = []
        // The writer: transfers between random accounts, several per transaction.
        threads.append(spawn {
            do {
                let db = try DB.open(path, nil)
                var rng = SeededRandom(seed: 1)
                var n = 0
                while Date() < deadline {
                    try db.realm.beginWrite()
                    for _ in 0..<Int.random(in: 1...4, using: &rng) {
                        let a = Int64.random(in: 0..<Int64(accounts), using: &rng)
                        let b = Int64.random(in: 0..<Int64(accounts), using: &rng)
                        guard case .int(let x) = try db.get("Account", a, "balance") else { failures.add("balance type"); return }
                        let amount = min(x, Int64.random(in: 0...40, using: &rng))
                        try db.set("Account", a, "balance", .int(x - amount))
                        guard case .int(let y) = try db.get("Account", b, "balance") else { failures.add("balance type"); return }
                        try db.set("Account", b, "balance", .int(y + amount))
                        try db.set("Account", a, "note", .string("sent \(amount) in \(n)"))
                    }
                    if n % 10 == 9 {
                        // Sometimes cancel instead: nothing of it may show.
                        try db.set("Account", 0, "balance", .int(1_000_000))
                        db.realm.cancelWrite()
                    } else {
                        try db.realm.commitWrite()
                    }
                    n += 1
                }
                commits.value = n
            } catch { failures.add("writer: \(error)") }
        })
        // Readers: refresh and check the sum, through values and through queries.
        for r in 0..<3 {
            threads.append(spawn {
                do {
                    let db = try DB.open(path, nil)
                    let all = try db.results("Account")
                    let rich = try db.query("Account", "balance >= 100")
                    let poor = try db.query("Account", "balance < 100")
                    var lastVersion: UInt64 = 0
                    var count = 0
                    while Date() < deadline {
                        _ = try db.realm.refresh()
                        let version = try db.realm.version()
                        if version < lastVersion { failures.add("version went back: \(version) < \(lastVersion)") }
                        lastVersion = version
                        var sum: Int64 = 0
                        for k in try all.allKeys() {
                            guard case .int(let v) = try db.get("Account", k, "balance") else { failures.add("type"); return }
                            if v < 0 || v >= 1_000_000 { failures.add("balance \(v) of \(k)") }
                            sum += v
                        }
                        if sum != total { failures.add("reader \(r): sum \(sum) at version \(version)") }
                        if try rich.count() + poor.count() != accounts { failures.add("reader \(r): counts") }
                        if try db.query("Account", "balance == 100").count() != db.keys("Account").filter({ (try? db.get("Account", $0, "balance")) == .int(100) }).count {
                            failures.add("reader \(r): indexed query disagrees at version \(version)")
                        }
                        count += 1
                    }
                    checks.value[r] = count
                } catch { failures.add("reader \(r): \(error)") }
            })
        }
        for t in threads { t.wait() }
        XCTAssertEqual(failures.all, [])
        XCTAssertGreaterThan(commits.value, 20)
        for c in checks.value { XCTAssertGreaterThan(c, 3) }
        let db = try DB.open(path, nil)
        var sum: Int64 = 0
        for k in try db.keys("Account") { if case .int(let v) = try db.get("Account", k, "balance") { sum += v } }
        XCTAssertEqual(sum, total)
        XCTAssertEqual(try db.realm.version(), UInt64(commits.value - commits.value / 10) + 1)
    }

    func testWritesFromTwoThreadsSerialise() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, Self.schema)
        let first = try DB.open(path, nil)
        let second = try DB.open(path, nil)
        let events = Events()
        let firstBegan = DispatchSemaphore(value: 0)
        let t1 = spawn {
            do {
                try first.realm.beginWrite()
                events.add("1 began")
                firstBegan.signal()
                Thread.sleep(forTimeInterval: 0.3)
                _ = try first.create("Account", [("id", .int(1)), ("balance", .int(10))])
                events.add("1 commits")
                try first.realm.commitWrite()
            } catch { events.add("1 failed: \(error)") }
        }
        firstBegan.wait()
        let t2 = spawn {
            do {
                let start = Date()
                try second.realm.beginWrite()
                events.add("2 began after \(Date().timeIntervalSince(start) >= 0.2 ? "waiting" : "no wait")")
                // The second transaction starts from the first one's commit.
                if try second.find("Account", .int(1)) == nil { events.add("2 does not see 1") }
                _ = try second.create("Account", [("id", .int(2)), ("balance", .int(20))])
                try second.realm.commitWrite()
            } catch { events.add("2 failed: \(error)") }
        }
        t1.wait()
        t2.wait()
        XCTAssertEqual(events.all, ["1 began", "1 commits", "2 began after waiting"])
        _ = try db.realm.refresh()
        XCTAssertEqual(try db.count("Account"), 2)
        XCTAssertEqual(try db.realm.version(), 2)
    }

    func testSameThreadSecondRealmGetsAlreadyInTransaction() throws {
        let dir = tempDir()
        let path = dir.file()
        let a = try DB.open(path, Self.schema)
        let b = try DB.open(path, nil)
        try a.realm.beginWrite()
        let error = expectError(.alreadyInTransaction) { try b.realm.beginWrite() }
        XCTAssertTrue(error?.message.contains("another realm") ?? false, error?.message ?? "")
        XCTAssertFalse(b.realm.isInWriteTransaction)
        // Opening with a schema change would need the write lock too.
        expectError(.alreadyInTransaction) { try DB.open(path, makeSchema([("New", [prop("x", .int)])])) }
        _ = try a.create("Account", [("id", .int(1))])
        try a.realm.commitWrite()
        // Once the first is done, the second can write.
        try b.write { _ = try b.create("Account", [("id", .int(2))]) }
        XCTAssertEqual(try b.count("Account"), 2)
    }

    func testWriteTransactionBelongsToItsThread() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Self.schema)
        try db.write { _ = try db.create("Account", [("id", .int(1)), ("balance", .int(5))]) }
        try db.realm.beginWrite()
        try db.set("Account", 0, "balance", .int(6))
        let codes = Box<[FiefError.Code]>([])
        spawn {
            func code(_ body: () throws -> Void) -> FiefError.Code? {
                do { try body(); return nil } catch let e as FiefError { return e.code } catch { return .internal }
            }
            var found: [FiefError.Code] = []
            found.append(code { _ = try db.get("Account", 0, "balance") } ?? .internal)
            found.append(code { try db.set("Account", 0, "balance", .int(7)) } ?? .internal)
            found.append(code { try db.realm.commitWrite() } ?? .internal)
            found.append(code { _ = try db.count("Account") } ?? .internal)
            codes.value = found
        }.wait()
        XCTAssertEqual(codes.value, [.wrongThread, .wrongThread, .wrongThread, .wrongThread])
        XCTAssertEqual(try db.get("Account", 0, "balance"), .int(6))
        try db.realm.commitWrite()
        XCTAssertEqual(try db.get("Account", 0, "balance"), .int(6))
    }
}

/// An ordered log written from several threads.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
