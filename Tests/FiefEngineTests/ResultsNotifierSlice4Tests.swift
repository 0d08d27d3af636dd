import XCTest
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// Issue 22, slice 4, as more cases of `ResultsNotifierTests` (its
/// fixture): `Realm.commitWrite(withoutNotifying:)` (realm-core's skip
/// version, as RealmSwift's `write(withoutNotifying:)` uses it: the skipped
/// notifiers' next change set leaves out that commit and keeps the commits
/// before and after it; the other notifiers are told everything); a second
/// notifier's initial call; rows handed to sorted results; sorted results
/// brought up to date from one changed object.
extension ResultsNotifierTests {
    private func skipUpd(del: [Int] = [], ins: [Int] = [], mod: [Int] = []) -> Seen {
        .update(del: del, ins: ins, mod: mod, modNew: mod)
    }

    /// A second results notifier on the fixture's realm, recording into `seen`.
    final class SkipOther: @unchecked Sendable {
        var seen: [Seen] = []
        var notifier: ResultsNotifier?
    }

    private func observeOther(_ f: Fixture, _ results: ObjectResults) throws -> SkipOther {
        let other = SkipOther()
        other.notifier = try f.db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
            try f.db.realm.addResultsNotifier(results, keyPaths: nil) { change in
                switch change {
                case .initial: other.seen.append(.initial(count: results.rows.count))
                case .update(let c):
                    other.seen.append(.update(del: c.deletions.indices, ins: c.insertions.indices,
                                              mod: c.modifications.indices, modNew: c.modificationsNew.indices))
                case .error(let error): other.seen.append(.error(error.code))
                }
            }
        }
        return other
    }

    /// Write `body` and commit it without notifying `notifiers`.
    private func writeSkipping(_ db: DB, _ notifiers: [Notifier], _ body: () throws -> Void) throws {
        try db.realm.beginWrite()
        try body()
        try db.realm.commitWrite(withoutNotifying: notifiers)
    }

    /// Deliver until both notifiers reached the newest version.
    private func settle(_ f: Fixture, _ other: SkipOther) throws {
        let target = try Snapshot(environment: f.db.realm.environment).version
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, f.notifier!.reachedVersion < target || other.notifier!.reachedVersion < target {
            let fd = try f.db.realm.lock.withLock { () throws(FiefError) -> Int32 in try f.db.realm.notificationChannel().eventFD }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 200)
            try f.db.realm.deliverNotifications(.pending)
        }
        try f.db.realm.deliverNotifications(.pending)
    }

    func testWithoutNotifyingSkippedNotifierMissesOnlyThatCommit() throws {
        let f = try Fixture(self)
        let db = f.db
        let results = try db.results("Person")
        let other = try observeOther(f, results)
        try f.observe(results)
        try settle(f, other)
        XCTAssertEqual(f.seen, [.initial(count: 5)])
        XCTAssertEqual(other.seen, [.initial(count: 5)])

        // Skipped: an insertion.  The other notifier is told; this one not.
        try writeSkipping(db, [f.notifier!]) { try db.create("Person", [("name", .string("new")), ("age", .int(5))]) }
        try settle(f, other)
        XCTAssertEqual(f.seen, [.initial(count: 5)])
        XCTAssertEqual(other.seen.last, skipUpd(ins: [5]))

        // A later commit: told, with indices after the skipped insertion.
        try db.write { try db.delete("Person", f.people[1]) }
        try settle(f, other)
        XCTAssertEqual(f.seen.last, skipUpd(del: [1]))
        XCTAssertEqual(other.seen.last, skipUpd(del: [1]))
        XCTAssertEqual(f.rowsInCallback.last, try db.results("Person").allKeys())
    }

    func testWithoutNotifyingCommitsBeforeTheSkippedOneAreStillTold() throws {
        let f = try Fixture(self)
        let db = f.db
        let results = try db.results("Person")
        let other = try observeOther(f, results)
        try f.observe(results)
        try settle(f, other)
        // Not delivered before the skipped commit: the rename is told, the
        // insertion not.
        try db.write { try db.set("Person", f.people[0], "name", .string("renamed")) }
        try writeSkipping(db, [f.notifier!]) { try db.create("Person", [("age", .int(7))]) }
        try settle(f, other)
        XCTAssertEqual(Array(f.seen.dropFirst()), [skipUpd(mod: [0])])
        // The other one: both (one call, or two if the worker ran between).
        let told = Array(other.seen.dropFirst())
        XCTAssertTrue(told == [skipUpd(ins: [5], mod: [0])] || told == [skipUpd(mod: [0]), skipUpd(ins: [5])], "\(told)")
    }

    func testWithoutNotifyingSkippingEveryNotifierAndRealmObservers() throws {
        let f = try Fixture(self)
        let db = f.db
        let results = try db.query("Person", "age >= 20")
        let other = try observeOther(f, results)
        try f.observe(results)
        try settle(f, other)
        var realmCalls = 0
        let observer = try db.realm.lock.withLock { () throws(FiefError) -> RealmObserver in
            try db.realm.addRealmObserver { _ in realmCalls += 1 }
        }
        try writeSkipping(db, [f.notifier!, other.notifier!, observer]) { try db.set("Person", f.people[0], "age", .int(90)) }
        try settle(f, other)
        XCTAssertEqual(f.seen.count, 1)
        XCTAssertEqual(other.seen.count, 1)
        // Realm-level observers are told of every commit.
        XCTAssertGreaterThan(realmCalls, 0)
        try db.write { try db.set("Person", f.people[4], "age", .int(1)) }
        try settle(f, other)
        // Rows now, in key order: p0, p2, p3, p4; p4 left.
        XCTAssertEqual(f.seen.last, skipUpd(del: [3]))
        XCTAssertEqual(other.seen.last, skipUpd(del: [3]))
        observer.release()
    }

    func testWithoutNotifyingObjectNotifierSkipsTheCommit() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Dog"))
        var told: [[UInt32]] = []
        let notifier = try db.realm.lock.withLock { () throws(FiefError) -> ObjectNotifier in
            try db.realm.addObjectNotifier(table: db.cls("Person"), key: f.people[0], keyPaths: nil) { note in
                told.append(note.changedProperties)
            }
        }
        try writeSkipping(db, [notifier]) { try db.set("Person", f.people[0], "name", .string("quiet")) }
        try f.deliver(expectingCall: false)
        try db.realm.deliverNotifications(.pending)
        XCTAssertEqual(told, [])
        try db.write { try db.set("Person", f.people[0], "age", .int(77)) }
        let deadline = Date().addingTimeInterval(60)
        while told.isEmpty && Date() < deadline {
            let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 200)
            try db.realm.deliverNotifications(.pending)
        }
        XCTAssertEqual(told, [[db.pkey("Person", "age")]])
        notifier.release()
    }

    func testWithoutNotifyingFailedCommitSkipsNothing() throws {
        let f = try Fixture(self)
        let db = f.db
        let results = try db.results("Person")
        let other = try observeOther(f, results)
        try f.observe(results)
        try settle(f, other)
        // Not in a write: an error, and later commits are told as usual.
        XCTAssertThrowsError(try db.realm.commitWrite(withoutNotifying: [f.notifier!])) { error in
            XCTAssertEqual((error as? FiefError)?.code, .notInTransaction)
        }
        _ = try db.write { try db.create("Person", [("age", .int(3))]) }
        try settle(f, other)
        XCTAssertEqual(f.seen.last, skipUpd(ins: [5]))
    }

    func testASecondNotifierGetsItsInitialWithoutACommit() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"))
        let other = try observeOther(f, try db.results("Dog"))
        let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
        let deadline = Date().addingTimeInterval(60)
        while other.seen.isEmpty && Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 200)
            try db.realm.deliverNotifications(.pending)
        }
        XCTAssertEqual(other.seen, [.initial(count: 5)])
        other.notifier?.release()
    }

    /// Rows handed to sorted results (clusters made without sorting the
    /// keys): counts and aggregates read from them agree with a fresh
    /// evaluation, and reading them evaluates nothing.
    func testSortedRowsHandedOverAggregateAsAFreshEvaluation() throws {
        let f = try Fixture(self)
        let db = f.db
        let sorted = try db.query("Person", "age >= 10").sorted(by: [("name", true)])
        let age = db.pkey("Person", "age")
        var sums: [(Value, Value)] = []
        var counts: [(Int, Int)] = []
        let notifier = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
            try db.realm.addResultsNotifier(sorted, keyPaths: nil) { _ in
                let stamp = sorted.evaluatedStamp
                let fresh = try! db.query("Person", "age >= 10")
                sums.append((try! sorted.aggregate(.sum, property: age), try! fresh.aggregate(.sum, property: age)))
                counts.append((try! sorted.count(), try! fresh.count()))
                XCTAssertEqual(sorted.evaluatedStamp, stamp, "reading the handed rows evaluated them again")
            }
        }
        let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
        func deliver(until calls: Int) throws {
            let deadline = Date().addingTimeInterval(60)
            while counts.count < calls && Date() < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 200)
                try db.realm.deliverNotifications(.pending)
            }
            XCTAssertEqual(counts.count, calls, "no callback came")
        }
        try deliver(until: 1)
        try db.write { for i in 0..<300 { try db.create("Person", [("name", .string("n\(299 - i)")), ("age", .int(Int64(i)))]) } }
        try deliver(until: 2)
        try db.write { try db.set("Person", f.people[2], "name", .string("zz")) }
        try deliver(until: 3)
        for (got, expected) in counts { XCTAssertEqual(got, expected) }
        for (got, expected) in sums { XCTAssertEqual(TV(got), TV(expected)) }
        notifier.release()
    }

    /// Sorted results brought up to date from one changed object (no new
    /// evaluation): random single-object commits (create, delete, rename,
    /// age, an unread column), each delivered; the rows handed over equal a
    /// fresh evaluation, the change set takes the old rows to the new, and
    /// one object changing moves at most one row.
    func testOneObjectChangesOfSortedResultsAgainstAFreshEvaluation() throws {
        let f = try Fixture(self)
        let db = f.db
        var random = SeededRandom(seed: 22)
        for (query, sort) in [("age >= 10", [("name", true)]), ("TRUEPREDICATE", [("age", false), ("name", true)])] {
            let sorted = try db.query("Person", query).sorted(by: sort)
            var previous: [Int64] = []
            var calls = 0
            var failures: [String] = []
            let notifier = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
                try db.realm.addResultsNotifier(sorted, keyPaths: nil) { change in
                    calls += 1
                    let now = (try? sorted.allKeys()) ?? []
                    let fresh = (try? db.query("Person", query).sorted(by: sort).allKeys()) ?? []
                    if now != fresh { failures.append("rows \(now) != fresh \(fresh)") }
                    if case .update(let c) = change {
                        if applyChangeSet(c, to: previous, new: now) != now { failures.append("\(c) does not take \(previous) to \(now)") }
                        if c.deletions.count > 1 || c.insertions.count > 1 { failures.append("one object moved more rows: \(c)") }
                    }
                    previous = now
                }
            }
            func settle() throws { try db.settle(notifier) }
            try settle()
            var people = try db.results("Person").allKeys()
            for step in 0..<120 {
                let pick = people.isEmpty ? nil : people[Int(random.next() % UInt64(people.count))]
                let name = String(UnicodeScalar(UInt8(97 + random.next() % 26))) + "\(step)"
                switch (random.next() % 5, pick) {
                case (0, _), (_, nil):
                    let made = try db.write { try db.create("Person", [("name", .string(name)), ("age", .int(Int64(random.next() % 40)))]) }
                    people.append(made)
                case (1, let key?):
                    try db.write { try db.delete("Person", key) }
                    people.removeAll { $0 == key }
                case (2, let key?):
                    try db.write { try db.set("Person", key, "name", .string(name)) }
                case (3, let key?):
                    try db.write { try db.set("Person", key, "age", .int(Int64(random.next() % 40))) }
                case (_, let key?):
                    try db.write { try db.set("Person", key, "dog", .null) }
                }
                try settle()
            }
            XCTAssertEqual(failures, [], query)
            XCTAssertGreaterThan(calls, 20, query)
            notifier.release()
        }
    }
}
