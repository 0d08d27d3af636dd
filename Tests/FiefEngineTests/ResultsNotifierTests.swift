import XCTest
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// Results notifiers (issue 22, slice 2): realm-core's results
/// notification cases (object-store results tests) as tables of steps,
/// each a write and the change set the next delivery reports (or none),
/// run against real files, the real worker thread and real deliveries.
final class ResultsNotifierTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Person", properties: [
            prop("name", .string),
            prop("age", .int),
            Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
            Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
            Property(name: "dogSet", type: .link, linkTarget: "Dog", collection: .set),
            Property(name: "dogMap", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
        ]),
        ObjectClass(name: "Dog", properties: [
            prop("name", .string),
            prop("age", .int),
            Property(name: "toy", type: .link, flags: .nullable, linkTarget: "Toy"),
        ]),
        ObjectClass(name: "Toy", properties: [prop("label", .string)]),
    ])

    /// What one delivery reported.
    enum Seen: Equatable, CustomStringConvertible {
        case initial(count: Int)
        case update(del: [Int], ins: [Int], mod: [Int], modNew: [Int])
        case error(FiefError.Code)

        var description: String {
            switch self {
            case .initial(let n): return "initial(\(n))"
            case .update(let d, let i, let m, let mn): return "update(del: \(d), ins: \(i), mod: \(m), modNew: \(mn))"
            case .error(let code): return "error(\(code))"
            }
        }
    }

    /// A realm with people (ages 0, 10, ... 40, each with a dog of the same
    /// age) and an observed results; `seen` collects the callbacks.
    final class Fixture {
        let dir: TempDir
        let db: DB
        var people: [Int64] = []
        var dogs: [Int64] = []
        var seen: [Seen] = []
        var notifier: ResultsNotifier?
        /// Rows read inside the callbacks, and whether reading them evaluated.
        var rowsInCallback: [[Int64]] = []
        var evaluatedInCallback = false

        init(_ test: ResultsNotifierTests) throws {
            dir = test.tempDir()
            db = try DB.open(dir.file(), test.schema)
            try db.write {
                for i in 0..<5 {
                    let dog = try db.create("Dog", [("name", .string("d\(i)")), ("age", .int(Int64(i * 10)))])
                    dogs.append(dog)
                    people.append(try db.create("Person", [("name", .string("p\(i)")), ("age", .int(Int64(i * 10))),
                                                            ("dog", .link(db.cls("Dog"), dog))]))
                }
            }
        }

        /// Observe `results`, then deliver the initial call.
        func observe(_ results: ObjectResults, keyPaths: [String]? = nil, initial: Bool = true) throws {
            notifier = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
                try db.realm.addResultsNotifier(results, keyPaths: keyPaths) { [unowned self] change in
                    switch change {
                    case .initial: seen.append(.initial(count: results.rows.count))
                    case .update(let c):
                        seen.append(.update(del: c.deletions.indices, ins: c.insertions.indices,
                                            mod: c.modifications.indices, modNew: c.modificationsNew.indices))
                    case .error(let error): seen.append(.error(error.code))
                    }
                    let stamp = results.evaluatedStamp
                    rowsInCallback.append((try? results.allKeys()) ?? [])
                    if results.evaluatedStamp != stamp { evaluatedInCallback = true }
                }
            }
            if initial { try deliver(expectingCall: true) }
        }

        /// Deliver until the notifier has run to the newest version and, if
        /// `expectingCall`, a callback came; waits on the realm's fd.
        func deliver(expectingCall: Bool) throws {
            let before = seen.count
            let target = try Snapshot(environment: db.realm.environment).version
            let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if notifier!.isReleased { break }
                if expectingCall ? seen.count > before : notifier!.reachedVersion >= target { break }
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 200)
                try db.realm.deliverNotifications(.pending)
            }
            try db.realm.deliverNotifications(.pending)
            if expectingCall { XCTAssertGreaterThan(seen.count, before, "no callback came") }
        }

        /// Write `body`, deliver, and return what the delivery reported (nil: nothing).
        func step(_ body: () throws -> Void, expect: Seen?, file: StaticString = #filePath, line: UInt = #line) throws {
            try db.write(body)
            let before = seen.count
            try deliver(expectingCall: expect != nil)
            let got = Array(seen[before...])
            XCTAssertEqual(got, expect.map { [$0] } ?? [], file: file, line: line)
        }
    }

    private func upd(del: [Int] = [], ins: [Int] = [], mod: [Int] = [], modNew: [Int]? = nil) -> Seen {
        .update(del: del, ins: ins, mod: mod, modNew: modNew ?? mod)
    }

    // MARK: Class results and filters

    func testInitialAndClassChanges() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"))
        XCTAssertEqual(f.seen, [.initial(count: 5)])
        try f.step({ try db.create("Person", [("name", .string("new")), ("age", .int(5))]) }, expect: upd(ins: [5]))
        try f.step({ try db.delete("Person", f.people[1]) }, expect: upd(del: [1]))
        try f.step({ try db.set("Person", f.people[2], "name", .string("renamed")) }, expect: upd(mod: [1]))
        // Another class's object nobody links to: nothing.
        try f.step({ try db.create("Toy", [("label", .string("ball"))]) }, expect: nil)
        try f.step({ try db.realm.deleteAll(table: db.cls("Person")) }, expect: upd(del: [0, 1, 2, 3, 4]))
        XCTAssertEqual(f.rowsInCallback.last, [])
        XCTAssertFalse(f.evaluatedInCallback, "the callback's reads evaluated the results again")
    }

    func testFilterEnterLeaveModify() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.query("Person", "age >= 20"))
        XCTAssertEqual(f.seen, [.initial(count: 3)])
        // Inserted outside the filter, then inside.
        try f.step({ try db.create("Person", [("age", .int(1))]) }, expect: nil)
        try f.step({ try db.create("Person", [("age", .int(99))]) }, expect: upd(ins: [3]))
        // Modified in the filter, leaving it, entering it.
        try f.step({ try db.set("Person", f.people[3], "name", .string("x")) }, expect: upd(mod: [1]))
        try f.step({ try db.set("Person", f.people[2], "age", .int(3)) }, expect: upd(del: [0]))
        try f.step({ try db.set("Person", f.people[1], "age", .int(50)) }, expect: upd(ins: [0]))
        // Modified outside the filter: nothing.
        try f.step({ try db.set("Person", f.people[0], "name", .string("y")) }, expect: nil)
        // Deleted inside.
        try f.step({ try db.delete("Person", f.people[4]) }, expect: upd(del: [2]))
        XCTAssertEqual(f.rowsInCallback.last, [f.people[1], f.people[3], try db.keys("Person", "age == 99")[0]])
        XCTAssertFalse(f.evaluatedInCallback)
    }

    func testChainedFilters() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.query("Person", "age >= 10").filtered("age < 40", arguments: []))
        XCTAssertEqual(f.seen, [.initial(count: 3)])
        try f.step({ try db.set("Person", f.people[4], "age", .int(35)) }, expect: upd(ins: [3]))
        try f.step({ try db.set("Person", f.people[1], "age", .int(5)) }, expect: upd(del: [0]))
    }

    // MARK: Links

    func testLinkedObjectsMoveRowsInAndOut() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.query("Person", "dog.age > 25"))
        XCTAssertEqual(f.seen, [.initial(count: 2)])
        // The dog's age decides: the person enters and leaves with it.
        try f.step({ try db.set("Dog", f.dogs[0], "age", .int(100)) }, expect: upd(ins: [0]))
        try f.step({ try db.set("Dog", f.dogs[3], "age", .int(1)) }, expect: upd(del: [1]))
        // Deleting a linked dog nulls the link: its person leaves.
        try f.step({ try db.delete("Dog", f.dogs[4]) }, expect: upd(del: [1]))
        // A linked object's other column: a modification (default key paths).
        try f.step({ try db.set("Dog", f.dogs[0], "name", .string("rex")) }, expect: upd(mod: [0]))
    }

    func testDefaultKeyPathsReachLinksToDepth() throws {
        let f = try Fixture(self)
        let db = f.db
        var toy: Int64 = 0
        try db.write {
            toy = try db.create("Toy", [("label", .string("ball"))])
            try db.set("Dog", f.dogs[2], "toy", .link(db.cls("Toy"), toy))
        }
        try f.observe(try db.results("Person"))
        // Two links away: person 2's dog's toy.
        try f.step({ try db.set("Toy", toy, "label", .string("bone")) }, expect: upd(mod: [2]))
        // A dog through the list.
        try f.step({ try db.append("Person", f.people[0], "dogs", [.link(db.cls("Dog"), f.dogs[4])]) }, expect: upd(mod: [0]))
        try f.step({ try db.set("Dog", f.dogs[4], "name", .string("z")) }, expect: upd(mod: [0, 4]))
    }

    func testKeyPathFilters() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"), keyPaths: ["name"])
        try f.step({ try db.set("Person", f.people[0], "age", .int(7)) }, expect: nil)
        try f.step({ try db.set("Dog", f.dogs[0], "name", .string("q")) }, expect: nil)
        try f.step({ try db.set("Person", f.people[1], "name", .string("q")) }, expect: upd(mod: [1]))
        // Insertions and deletions are reported whatever the key paths.
        try f.step({ try db.delete("Person", f.people[4]) }, expect: upd(del: [4]))
    }

    func testKeyPathThroughLink() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"), keyPaths: ["dog.name"])
        try f.step({ try db.set("Dog", f.dogs[1], "age", .int(77)) }, expect: nil)
        try f.step({ try db.set("Dog", f.dogs[1], "name", .string("w")) }, expect: upd(mod: [1]))
        // The link itself is on the path.
        try f.step({ try db.set("Person", f.people[2], "dog", .null) }, expect: upd(mod: [2]))
        try f.step({ try db.set("Person", f.people[2], "name", .string("n")) }, expect: nil)
    }

    func testKeyPathCollectionAndWildcards() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"), keyPaths: ["dogs"])
        // The list's own changes count; its dogs' values do not.
        try f.step({ try db.append("Person", f.people[3], "dogs", [.link(db.cls("Dog"), f.dogs[0])]) }, expect: upd(mod: [3]))
        try f.step({ try db.set("Dog", f.dogs[0], "name", .string("v")) }, expect: nil)

        let g = try Fixture(self)
        try g.observe(try g.db.results("Person"), keyPaths: ["*"])
        try g.step({ try g.db.set("Person", g.people[0], "age", .int(3)) }, expect: upd(mod: [0]))
        try g.step({ try g.db.set("Dog", g.dogs[0], "name", .string("v")) }, expect: nil)

        let h = try Fixture(self)
        try h.db.write { try h.db.append("Person", h.people[1], "dogs", [.link(h.db.cls("Dog"), h.dogs[2])]) }
        try h.observe(try h.db.results("Person"), keyPaths: ["dogs.*"])
        try h.step({ try h.db.set("Dog", h.dogs[2], "age", .int(8)) }, expect: upd(mod: [1]))
        try h.step({ try h.db.set("Person", h.people[1], "name", .string("v")) }, expect: nil)
    }

    func testBadKeyPathsAreNamed() throws {
        let f = try Fixture(self)
        let db = f.db
        let results = try db.results("Person")
        func register(_ paths: [String]) throws {
            _ = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
                try db.realm.addResultsNotifier(results, keyPaths: paths) { _ in }
            }
        }
        XCTAssertNotNil(expectError(.noSuchProperty, "'nope'") { try register(["nope"]) })
        XCTAssertNotNil(expectError(.noSuchProperty, "'dog.nme'") { try register(["dog.nme"]) })
        XCTAssertNotNil(expectError(.invalidArgument, "not a link") { try register(["name.x"]) })
        XCTAssertNotNil(expectError(.invalidArgument, "empty") { try register(["dog..name"]) })
    }

    func testKeyPathThroughLinkingObjects() throws {
        let clubSchema = Schema(classes: [
            ObjectClass(name: "Member", properties: [prop("name", .string)],
                        linkingObjects: [LinkingObjectsProperty(name: "clubs", originClass: "Club", originProperty: "members")]),
            ObjectClass(name: "Club", properties: [prop("name", .string), prop("fee", .int),
                                                   Property(name: "members", type: .link, linkTarget: "Member", collection: .list)]),
        ])
        let dir = tempDir()
        let db = try DB.open(dir.file(), clubSchema)
        var ann: Int64 = 0, bob: Int64 = 0, club: Int64 = 0
        try db.write {
            ann = try db.create("Member", [("name", .string("Ann"))])
            bob = try db.create("Member", [("name", .string("Bob"))])
            club = try db.create("Club", [("name", .string("chess"))])
            try db.append("Club", club, "members", [.link(db.cls("Member"), bob)])
        }
        var seen: [[Int]] = []
        let results = try db.results("Member")
        let notifier = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
            try db.realm.addResultsNotifier(results, keyPaths: ["clubs.name"]) { change in
                if case .update(let c) = change { seen.append(c.modificationsNew.indices) } else { seen.append([-1]) }
            }
        }
        let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
        func deliver(calls: Int) throws {
            let deadline = Date().addingTimeInterval(60)
            while seen.count < calls && Date() < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 200)
                try db.realm.deliverNotifications(.pending)
            }
            XCTAssertEqual(seen.count, calls)
        }
        try deliver(calls: 1)
        // The club's fee is not watched; its name is, through the linking objects.
        try db.write { try db.set("Club", club, "fee", .int(5)) }
        try db.write { try db.set("Club", club, "name", .string("go")) }
        try deliver(calls: 2)
        XCTAssertEqual(seen.last, [1])
        // Ann joins: her linking objects changed (the records name her,
        // `linkingObjects`), Bob's did not though the club's list was written.
        try db.write { try db.append("Club", club, "members", [.link(db.cls("Member"), ann)]) }
        try deliver(calls: 3)
        XCTAssertEqual(seen.last, [0])
        // Bob leaves: he lost a linking object (no longer reached from the
        // club at the new version, yet modified).
        try db.write { try db.removeElement("Club", club, "members", 0) }
        try deliver(calls: 4)
        XCTAssertEqual(seen.last, [1])
        // The club is deleted: Ann loses it.
        try db.write { try db.delete("Club", club) }
        try deliver(calls: 5)
        XCTAssertEqual(seen.last, [0])
        notifier.release()
    }

    // MARK: Ordering stages

    func testSortedResultsReorder() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person").sorted(by: [("age", false)]))
        XCTAssertEqual(f.rowsInCallback.last, f.people.reversed())
        // Person 0 (last) becomes the oldest: first.  Rows that keep their
        // relative order stay; the moved one is deleted and inserted.
        try f.step({ try db.set("Person", f.people[0], "age", .int(100)) }, expect: upd(del: [4], ins: [0]))
        XCTAssertEqual(f.rowsInCallback.last, [f.people[0], f.people[4], f.people[3], f.people[2], f.people[1]])
        // A modification that keeps the place.
        try f.step({ try db.set("Person", f.people[3], "name", .string("m")) }, expect: upd(mod: [2]))
        try f.step({ try db.create("Person", [("age", .int(25))]) }, expect: upd(ins: [3]))
        XCTAssertFalse(f.evaluatedInCallback)
    }

    func testDistinctAndLimit() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person").sorted(by: [("age", true)]).limited(to: 2))
        XCTAssertEqual(f.seen, [.initial(count: 2)])
        // A younger person pushes the second out.
        try f.step({ try db.create("Person", [("age", .int(-1))]) }, expect: upd(del: [1], ins: [0]))
        // An older one changes nothing.
        try f.step({ try db.create("Person", [("age", .int(1000))]) }, expect: nil)

        let g = try Fixture(self)
        try g.observe(try g.db.results("Person").distinct(by: ["age"]))
        XCTAssertEqual(g.seen, [.initial(count: 5)])
        // A duplicate age: not a new row.
        try g.step({ try g.db.create("Person", [("age", .int(10))]) }, expect: nil)
        // Removing the first of a pair: the other takes its row (a different object).
        try g.step({ try g.db.delete("Person", g.people[1]) }, expect: upd(del: [1], ins: [4]))
    }

    // MARK: Coalescing, initial, lists, threads

    func testCommitsBeforeADeliveryCoalesce() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"))
        try db.write { try db.create("Person", [("age", .int(1))]) }
        try db.write { try db.set("Person", f.people[0], "name", .string("a")) }
        try db.write { try db.delete("Person", f.people[2]) }
        try f.deliver(expectingCall: true)
        // Wait for the rest, if the worker ran between the commits.
        try f.deliver(expectingCall: false)
        // One update when the worker ran once for the three commits.
        if f.seen.count == 2 {
            XCTAssertEqual(f.seen.last, upd(del: [2], ins: [4], mod: [0]))
        }
        XCTAssertEqual(f.rowsInCallback.last, try db.results("Person").allKeys())
    }

    func testWritesBeforeTheFirstDeliveryAreInitial() throws {
        let f = try Fixture(self)
        let db = f.db
        let results = try db.results("Person")
        try f.observe(results, initial: false)
        try db.write { try db.create("Person", [("age", .int(1))]) }
        try f.deliver(expectingCall: true)
        try f.deliver(expectingCall: false)
        XCTAssertEqual(f.seen, [.initial(count: 6)])
        XCTAssertEqual(f.rowsInCallback.first?.count, 6)
    }

    func testListResults() throws {
        let f = try Fixture(self)
        let db = f.db
        let owner = f.people[0], dog = db.cls("Dog")
        try db.write { try db.append("Person", owner, "dogs", [.link(dog, f.dogs[1]), .link(dog, f.dogs[2])]) }
        let list = try ObjectResults(realm: db.realm, list: db.pkey("Person", "dogs"), of: owner, in: db.cls("Person"))
        try f.observe(list)
        XCTAssertEqual(f.seen, [.initial(count: 2)])
        try f.step({ try db.append("Person", owner, "dogs", [.link(dog, f.dogs[3])]) }, expect: upd(ins: [2]))
        try f.step({ try db.set("Dog", f.dogs[2], "name", .string("k")) }, expect: upd(mod: [1]))
        try f.step({ try db.delete("Dog", f.dogs[1]) }, expect: upd(del: [0]))
        // The owner goes: every row goes.
        try f.step({ try db.delete("Person", owner) }, expect: upd(del: [0, 1]))
        // Registering on the list of a deleted owner: refused.
        XCTAssertNotNil(expectError(.invalidatedObject) {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addResultsNotifier(list, keyPaths: nil) { _ in } }
        })
    }

    func testSetAndMapResults() throws {
        let f = try Fixture(self)
        let db = f.db
        let owner = f.people[0], dog = db.cls("Dog")
        _ = try db.write { try db.setInsert("Person", owner, "dogSet", .link(dog, f.dogs[2])) }
        let set = try ObjectResults(realm: db.realm, list: db.pkey("Person", "dogSet"), of: owner, in: db.cls("Person"))
        try f.observe(set)
        XCTAssertEqual(f.seen, [.initial(count: 1)])
        try f.step({ _ = try db.setInsert("Person", owner, "dogSet", .link(dog, f.dogs[1])) }, expect: upd(ins: [0]))
        try f.step({ _ = try db.setRemove("Person", owner, "dogSet", .link(dog, f.dogs[2])) }, expect: upd(del: [1]))

        let g = try Fixture(self)
        let map = try ObjectResults(realm: g.db.realm, list: g.db.pkey("Person", "dogMap"), of: g.people[0], in: g.db.cls("Person"))
        try g.observe(map)
        try g.step({ try g.db.mapSet("Person", g.people[0], "dogMap", "a", .link(g.db.cls("Dog"), g.dogs[3])) }, expect: upd(ins: [0]))
        try g.step({ try g.db.set("Dog", g.dogs[3], "name", .string("m")) }, expect: upd(mod: [0]))
    }

    func testLinkingObjectsResults() throws {
        let f = try Fixture(self)
        let db = f.db
        let owners = try ObjectResults(realm: db.realm, linkingTo: f.dogs[1], of: db.cls("Dog"), originClass: db.cls("Person"), property: db.pkey("Person", "dog"))
        try f.observe(owners)
        XCTAssertEqual(f.seen, [.initial(count: 1)])
        try f.step({ try db.set("Person", f.people[3], "dog", .link(db.cls("Dog"), f.dogs[1])) }, expect: upd(ins: [1]))
        try f.step({ try db.set("Person", f.people[1], "dog", .null) }, expect: upd(del: [0]))
    }

    func testOtherThreadCommitsAreDelivered() throws {
        let f = try Fixture(self)
        try f.observe(try f.db.query("Person", "age > 100"))
        let path = f.dir.file(), schema = self.schema
        let thread = Thread {
            guard let other = try? DB.open(path, schema) else { return }
            _ = try? other.write { try other.create("Person", [("age", .int(101))]) }
        }
        thread.start()
        try f.deliver(expectingCall: true)
        XCTAssertEqual(f.seen.last, upd(ins: [0]))
    }

    func testReleaseStopsAndRegistrationRules() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(try db.results("Person"))
        f.notifier!.release()
        f.notifier!.release()
        try f.step({ try db.create("Person", [("age", .int(1))]) }, expect: nil)
        XCTAssertEqual(f.seen.count, 1)
        // Released, it left the channel, and the last notifier took the worker with it.
        XCTAssertFalse(try db.realm.notificationChannel().hasNotifiers)
        XCTAssertFalse(db.realm.notificationCenter!.hasWorker)
        // Inside a write, frozen: refused.
        let results = try db.results("Person")
        try db.realm.beginWrite()
        XCTAssertNotNil(expectError(.alreadyInTransaction) {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addResultsNotifier(results, keyPaths: nil) { _ in } }
        })
        db.realm.cancelWrite()
        let frozen = try db.realm.freeze()
        let frozenResults = try results.resolved(in: frozen)
        XCTAssertNotNil(expectError(.frozen) {
            try frozen.lock.withLock { () throws(FiefError) in _ = try frozen.addResultsNotifier(frozenResults, keyPaths: nil) { _ in } }
        })
    }
}
