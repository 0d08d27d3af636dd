import XCTest
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// List, set and map notifiers (issue 22, slice 3): realm-core's list,
/// set and dictionary notification cases (object-store tests) as tables
/// of steps, each a write and the change set the next delivery reports,
/// against real files, the real worker thread and real deliveries; and a
/// seeded random test applying every delivered change set to the old list.
final class CollectionNotifierTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Person", properties: [
            prop("name", .string),
            Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
            Property(name: "others", type: .link, linkTarget: "Dog", collection: .list),
            Property(name: "nums", type: .int, collection: .list),
            Property(name: "dogSet", type: .link, linkTarget: "Dog", collection: .set),
            Property(name: "intSet", type: .int, collection: .set),
            Property(name: "dogMap", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
            Property(name: "scores", type: .int, collection: .map),
            prop("any", .mixed),
            Property(name: "mixeds", type: .mixed, collection: .list),
        ]),
        ObjectClass(name: "Dog", properties: [prop("name", .string), prop("age", .int)]),
    ])

    /// What one delivery reported.
    enum Seen: Equatable, CustomStringConvertible {
        case initial
        case update(del: [Int], ins: [Int], mod: [Int], modNew: [Int], moves: [Int], rootDeleted: Bool, cleared: Bool)
        case keys(del: [String], ins: [String], mod: [String], rootDeleted: Bool)
        case error(FiefError.Code)

        var description: String {
            switch self {
            case .initial: return "initial"
            case .update(let d, let i, let m, let mn, let mv, let r, let c):
                return "update(del: \(d), ins: \(i), mod: \(m), modNew: \(mn), moves: \(mv)\(r ? ", rootDeleted" : "")\(c ? ", cleared" : ""))"
            case .keys(let d, let i, let m, let r): return "keys(del: \(d), ins: \(i), mod: \(m)\(r ? ", rootDeleted" : ""))"
            case .error(let code): return "error(\(code))"
            }
        }
    }

    final class Fixture {
        let dir: TempDir
        let db: DB
        var person: Int64 = 0
        var other: Int64 = 0
        var dogs: [Int64] = []
        var seen: [Seen] = []
        var changeSets: [IndexChangeSet] = []
        var notifier: CollectionNotifier?

        /// Ten dogs; the person's `dogs` list holds them in order, `nums`
        /// holds 0...9.
        init(_ test: CollectionNotifierTests) throws {
            dir = test.tempDir()
            db = try DB.open(dir.file(), test.schema)
            try db.write {
                for i in 0..<10 { dogs.append(try db.create("Dog", [("name", .string("d\(i)")), ("age", .int(Int64(i)))])) }
                person = try db.create("Person", [("name", .string("p"))])
                other = try db.create("Person", [("name", .string("q"))])
                try db.append("Person", person, "dogs", dogs.map { .link(db.cls("Dog"), $0) })
                try db.append("Person", other, "dogs", dogs.map { .link(db.cls("Dog"), $0) })
                try db.append("Person", person, "nums", (0..<10).map { .int(Int64($0)) })
            }
        }

        func ref(_ kind: CollectionRef.Kind, _ name: String, owner: Int64? = nil) -> CollectionRef {
            CollectionRef(kind, table: db.cls("Person"), owner: owner ?? person, property: db.pkey("Person", name))
        }

        func link(_ i: Int) -> TV { .link(db.cls("Dog"), dogs[i]) }

        func observe(_ ref: CollectionRef, keyPaths: [String]? = nil) throws {
            notifier = try db.realm.lock.withLock { () throws(FiefError) -> CollectionNotifier in
                try db.realm.addCollectionNotifier(ref, keyPaths: keyPaths) { [unowned self] change in
                    switch change {
                    case .initial: seen.append(.initial)
                    case .update(let c, let keys):
                        changeSets.append(c)
                        if let keys {
                            seen.append(.keys(del: keys.deletions, ins: keys.insertions, mod: keys.modifications, rootDeleted: keys.rootDeleted))
                        } else {
                            seen.append(.update(del: c.deletions.indices, ins: c.insertions.indices, mod: c.modifications.indices,
                                                modNew: c.modificationsNew.indices, moves: c.moves.flatMap { [$0.from, $0.to] },
                                                rootDeleted: c.rootDeleted, cleared: c.cleared))
                        }
                    case .error(let error): seen.append(.error(error.code))
                    }
                }
            }
            try deliver(expectingCall: true)
            XCTAssertEqual(seen, [.initial])
        }

        /// Deliver until the notifier has run to the newest version and, if
        /// `expectingCall`, a callback came; waits on the realm's fd.
        /// Observe results of values (filtered or sorted): as `observe`.
        func observeValues(_ results: ValueResults) throws {
            notifier = try db.realm.lock.withLock { () throws(FiefError) -> CollectionNotifier in
                try db.realm.addValueResultsNotifier(results, keyPaths: nil) { [unowned self] change in
                    switch change {
                    case .initial: seen.append(.initial)
                    case .update(let c):
                        changeSets.append(c)
                        seen.append(.update(del: c.deletions.indices, ins: c.insertions.indices, mod: c.modifications.indices,
                                            modNew: c.modificationsNew.indices, moves: c.moves.flatMap { [$0.from, $0.to] },
                                            rootDeleted: c.rootDeleted, cleared: c.cleared))
                    case .error(let error): seen.append(.error(error.code))
                    }
                }
            }
            try deliver(expectingCall: true)
            XCTAssertEqual(seen, [.initial])
        }

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

        func step(_ body: () throws -> Void, expect: Seen?, file: StaticString = #filePath, line: UInt = #line) throws {
            try db.write(body)
            let before = seen.count
            try deliver(expectingCall: expect != nil)
            XCTAssertEqual(Array(seen[before...]), expect.map { [$0] } ?? [], file: file, line: line)
        }

        var dogsList: ListAccess { db.realm.list(ref(.list, "dogs")) }
    }

    private func upd(del: [Int] = [], ins: [Int] = [], mod: [Int] = [], modNew: [Int]? = nil, moves: [Int] = [],
                     rootDeleted: Bool = false, cleared: Bool = false) -> Seen {
        .update(del: del, ins: ins, mod: mod, modNew: modNew ?? mod, moves: moves, rootDeleted: rootDeleted, cleared: cleared)
    }

    // MARK: Lists of objects (realm-core's list.cpp cases)

    func testListOperationsTable() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(f.ref(.list, "dogs"))
        let all = Array(0..<10)
        let cases: [(String, () throws -> Void, Seen?)] = [
            ("remove one", { try f.dogsList.remove(at: 5) }, upd(del: [5])),
            ("another list changed", { try db.realm.list(f.ref(.list, "dogs", owner: f.other)).remove(at: 5) }, nil),
            ("append", { try db.append("Person", f.person, "dogs", [f.link(5)]) }, upd(ins: [9])),
            ("insert at 0", { try db.insert("Person", f.person, "dogs", 0, f.link(1)) }, upd(ins: [0])),
            ("set", { try db.setElement("Person", f.person, "dogs", 3, f.link(9)) }, upd(mod: [3])),
            ("move", { try f.dogsList.move(from: 5, to: 8) }, upd(del: [5], ins: [8], moves: [5, 8])),
            ("swap", { try f.dogsList.swapAt(1, 2) }, upd(del: [1], ins: [2], moves: [1, 2])),
            ("target modified", { try db.set("Dog", f.dogs[7], "age", .int(70)) }, upd(mod: [6])),
            ("target deleted", { try db.delete("Dog", f.dogs[0]) }, upd(del: [2])),
            ("remove all", { try f.dogsList.removeAll() }, upd(del: all, cleared: true)),
            ("refill", { try db.append("Person", f.person, "dogs", [f.link(1), f.link(2)]) }, upd(ins: [0, 1])),
            ("owner deleted", { try db.delete("Person", f.person) }, upd(del: [0, 1], rootDeleted: true)),
            ("then silent", { _ = try db.create("Dog", [("name", .string("x"))]) }, nil),
        ]
        for (name, body, expected) in cases {
            let before = f.seen.count
            try f.step(body, expect: expected)
            if f.seen.count > before, let last = f.seen.last, last != expected { XCTFail("case '\(name)'") }
        }
    }

    func testListCasesInOneWrite() throws {
        // Operations of one write, coalesced as realm-core's builder does.
        let cases: [(String, (Fixture) throws -> Void, (CollectionNotifierTests) -> Seen)] = [
            ("clear then add: not cleared", { f in
                try f.dogsList.removeAll()
                try f.db.append("Person", f.person, "dogs", [f.link(5)])
            }, { $0.upd(del: Array(0..<10), ins: [0]) }),
            ("remove every element one by one: not cleared", { f in
                for _ in 0..<10 { try f.dogsList.remove(at: 0) }
            }, { $0.upd(del: Array(0..<10)) }),
            ("add a row then modify its target: the old row modified", { f in
                try f.db.append("Person", f.person, "dogs", [f.link(5)])
                try f.db.set("Dog", f.dogs[5], "age", .int(50))
            }, { $0.upd(ins: [10], mod: [5], modNew: [5]) }),
            ("modify then move: a move, no modification", { f in
                try f.db.set("Dog", f.dogs[5], "age", .int(50))
                try f.dogsList.move(from: 5, to: 8)
            }, { $0.upd(del: [5], ins: [8], moves: [5, 8]) }),
            ("insert then erase: nothing", { f in
                try f.db.insert("Person", f.person, "dogs", 3, f.link(1))
                try f.dogsList.remove(at: 3)
            }, { _ in .initial }),
            ("replace all (remove all, append)", { f in
                try f.dogsList.removeAll()
                try f.db.append("Person", f.person, "dogs", [f.link(0), f.link(1), f.link(2)])
            }, { $0.upd(del: Array(0..<10), ins: [0, 1, 2]) }),
        ]
        for (name, body, expected) in cases {
            let f = try Fixture(self)
            try f.observe(f.ref(.list, "dogs"))
            let want = expected(self)
            try f.step({ try body(f) }, expect: want == .initial ? nil : want)
            if f.seen.count > 1, f.seen.last != want { XCTFail("case '\(name)'") }
        }
    }

    /// A commit made without notifying the list's notifier (RealmSwift's
    /// `write(withoutNotifying:)`): silent, and the next change set counts
    /// positions from the list after it.
    func testCommitWithoutNotifyingSkipsTheList() throws {
        let f = try Fixture(self)
        try f.observe(f.ref(.list, "dogs"))
        try f.db.realm.beginWrite()
        try f.dogsList.remove(at: 0)
        try f.dogsList.remove(at: 0)
        try f.db.realm.commitWrite(withoutNotifying: [f.notifier!])
        try f.deliver(expectingCall: false)
        XCTAssertEqual(f.seen, [.initial], "the skipped commit was reported")
        try f.step({ try f.dogsList.remove(at: 7) }, expect: upd(del: [7]))
        // A map's notifier skipped the same way.
        let m = try Fixture(self)
        try m.db.write { try m.db.mapSet("Person", m.person, "scores", "a", .int(1)) }
        try m.observe(m.ref(.map, "scores"))
        try m.db.realm.beginWrite()
        try m.db.mapSet("Person", m.person, "scores", "b", .int(2))
        try m.db.realm.commitWrite(withoutNotifying: [m.notifier!])
        try m.deliver(expectingCall: false)
        XCTAssertEqual(m.seen, [.initial])
        try m.step({ try m.db.mapSet("Person", m.person, "scores", "c", .int(3)) },
                   expect: .keys(del: [], ins: ["c"], mod: [], rootDeleted: false))
    }

    func testTargetListedTwiceIsModifiedTwiceAndDeletedTwice() throws {
        let f = try Fixture(self)
        try f.db.write { try f.db.append("Person", f.person, "dogs", [f.link(5)]) }
        try f.observe(f.ref(.list, "dogs"))
        try f.step({ try f.db.set("Dog", f.dogs[5], "age", .int(55)) }, expect: upd(mod: [5, 10]))
        try f.step({ try f.db.delete("Dog", f.dogs[5]) }, expect: upd(del: [5, 10]))
    }

    func testTargetDeletedFromAListNotLoaded() throws {
        // The other person's list is not loaded by the write that deletes
        // the dog: its removal is learnt in the commit's walk.
        let f = try Fixture(self)
        try f.observe(f.ref(.list, "dogs", owner: f.other))
        try f.step({ try f.db.delete("Dog", f.dogs[3]) }, expect: upd(del: [3]))
        try f.step({
            try f.db.delete("Dog", f.dogs[6])
            try f.db.delete("Dog", f.dogs[8])
        }, expect: upd(del: [5, 7]))
    }

    func testTargetClassEmptied() throws {
        let f = try Fixture(self)
        try f.observe(f.ref(.list, "dogs"))
        try f.step({ try f.db.realm.deleteAll(table: f.db.cls("Dog")) }, expect: upd(del: Array(0..<10)))
        XCTAssertEqual(try f.dogsList.count(), 0)
    }

    func testCommitsBeforeADeliveryCoalesce() throws {
        let f = try Fixture(self)
        try f.observe(f.ref(.list, "dogs"))
        try f.db.write { try f.db.append("Person", f.person, "dogs", [f.link(1)]) }
        try f.db.write { try f.dogsList.remove(at: 0) }
        try f.db.write { try f.dogsList.move(from: 0, to: 3) }
        try f.deliver(expectingCall: true)
        XCTAssertEqual(f.seen.last, upd(del: [0, 1], ins: [3, 9], moves: [1, 3]))
    }

    func testKeyPathFilterOnAList() throws {
        let f = try Fixture(self)
        try f.observe(f.ref(.list, "dogs"), keyPaths: ["name"])
        try f.step({ try f.db.set("Dog", f.dogs[2], "age", .int(20)) }, expect: nil)
        try f.step({ try f.db.set("Dog", f.dogs[2], "name", .string("n")) }, expect: upd(mod: [2]))
    }

    // MARK: Lists of values

    func testListOfValues() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(f.ref(.list, "nums"))
        let nums = db.realm.list(f.ref(.list, "nums"))
        try f.step({ try db.append("Person", f.person, "nums", [.int(10)]) }, expect: upd(ins: [10]))
        try f.step({ try db.setElement("Person", f.person, "nums", 0, .int(-1)) }, expect: upd(mod: [0]))
        // The same value again writes nothing.
        try f.step({ try db.setElement("Person", f.person, "nums", 0, .int(-1)) }, expect: nil)
        try f.step({ try nums.remove(at: 2) }, expect: upd(del: [2]))
        try f.step({ try db.set("Person", f.person, "name", .string("x")) }, expect: nil)
        XCTAssertNotNil(expectError(.invalidArgument, "holds values") {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addCollectionNotifier(f.ref(.list, "nums"), keyPaths: ["x"]) { _ in } }
        })
    }

    // MARK: Sets and maps (realm-core's set.cpp and dictionary.cpp cases)

    func testSetOfValues() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write { for v in [10, 20, 30] { try db.setInsert("Person", f.person, "intSet", .int(Int64(v))) } }
        try f.observe(f.ref(.set, "intSet"))
        try f.step({ try db.setInsert("Person", f.person, "intSet", .int(15)) }, expect: upd(ins: [1]))
        try f.step({ try db.setInsert("Person", f.person, "intSet", .int(15)) }, expect: nil)
        try f.step({ try db.setRemove("Person", f.person, "intSet", .int(10)) }, expect: upd(del: [0]))
        try f.step({ try db.realm.set(f.ref(.set, "intSet")).removeAll() }, expect: upd(del: [0, 1, 2], cleared: true))
        try f.step({ try db.set("Person", f.person, "name", .string("x")) }, expect: nil)
        try f.step({ try db.delete("Person", f.person) }, expect: upd(rootDeleted: true))
    }

    func testSetOfObjects() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write { for i in [1, 3, 5] { try db.setInsert("Person", f.person, "dogSet", f.link(i)) } }
        try f.observe(f.ref(.set, "dogSet"))
        try f.step({ try db.setInsert("Person", f.person, "dogSet", f.link(4)) }, expect: upd(ins: [2]))
        try f.step({ try db.set("Dog", f.dogs[5], "name", .string("m")) }, expect: upd(mod: [3]))
        try f.step({ try db.delete("Dog", f.dogs[1]) }, expect: upd(del: [0]))
        try f.step({ try db.delete("Person", f.person) }, expect: upd(del: [0, 1, 2], rootDeleted: true))
    }

    func testSetAndMapTargetsDeleted() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write {
            for i in [1, 3] { try db.setInsert("Person", f.person, "dogSet", f.link(i)) }
            try db.mapSet("Person", f.person, "dogMap", "k", f.link(3))
        }
        try f.observe(f.ref(.set, "dogSet"))
        let g = f.notifier
        var mapSeen: [Seen] = []
        let mapNotifier = try db.realm.lock.withLock { () throws(FiefError) -> CollectionNotifier in
            try db.realm.addCollectionNotifier(f.ref(.map, "dogMap")) { change in
                switch change {
                case .initial: mapSeen.append(.initial)
                case .update(_, let keys?):
                    mapSeen.append(.keys(del: keys.deletions, ins: keys.insertions, mod: keys.modifications, rootDeleted: keys.rootDeleted))
                case .update(_, nil): XCTFail("a map's update without keys")
                case .error(let error): mapSeen.append(.error(error.code))
                }
            }
        }
        /// Deliver until the map's callback was called `count` times (bounded).
        func deliverMap(until count: Int) throws {
            let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
            let deadline = Date().addingTimeInterval(60)
            while mapSeen.count < count && Date() < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 200)
                try db.realm.deliverNotifications(.pending)
            }
        }
        // The map's initial call first (a change before it would be part of it).
        try deliverMap(until: 1)
        try f.step({ try db.realm.deleteAll(table: db.cls("Dog")) }, expect: upd(del: [0, 1]))
        // The map's value became null: its key modified.
        try deliverMap(until: 2)
        XCTAssertEqual(mapSeen, [.initial, .keys(del: [], ins: [], mod: ["k"], rootDeleted: false)])
        g?.release()
        mapNotifier.release()
    }

    func testMapKeys() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write {
            try db.mapSet("Person", f.person, "scores", "a", .int(1))
            try db.mapSet("Person", f.person, "scores", "c", .int(3))
        }
        try f.observe(f.ref(.map, "scores"))
        try f.step({ try db.mapSet("Person", f.person, "scores", "b", .int(2)) }, expect: .keys(del: [], ins: ["b"], mod: [], rootDeleted: false))
        XCTAssertEqual(f.changeSets.last?.insertions.indices, [1])
        try f.step({ try db.mapSet("Person", f.person, "scores", "a", .int(10)) }, expect: .keys(del: [], ins: [], mod: ["a"], rootDeleted: false))
        XCTAssertEqual(f.changeSets.last?.modifications.indices, [0])
        try f.step({ try db.mapRemove("Person", f.person, "scores", "c") }, expect: .keys(del: ["c"], ins: [], mod: [], rootDeleted: false))
        XCTAssertEqual(f.changeSets.last?.deletions.indices, [2])
        try f.step({
            try db.mapSet("Person", f.person, "scores", "d", .int(4))
            try db.mapSet("Person", f.person, "scores", "b", .int(20))
        }, expect: .keys(del: [], ins: ["d"], mod: ["b"], rootDeleted: false))
        try f.step({ try db.realm.map(f.ref(.map, "scores")).removeAll() }, expect: .keys(del: ["a", "b", "d"], ins: [], mod: [], rootDeleted: false))
        try f.step({ try db.mapSet("Person", f.person, "scores", "z", .int(4)) }, expect: .keys(del: [], ins: ["z"], mod: [], rootDeleted: false))
        try f.step({ try db.delete("Person", f.person) }, expect: .keys(del: ["z"], ins: [], mod: [], rootDeleted: true))
        try f.step({ _ = try db.create("Dog", [("name", .string("x"))]) }, expect: nil)
    }

    func testMapOfObjects() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write { try db.mapSet("Person", f.person, "dogMap", "k", f.link(2)) }
        try f.observe(f.ref(.map, "dogMap"))
        try f.step({ try db.set("Dog", f.dogs[2], "age", .int(3)) }, expect: .keys(del: [], ins: [], mod: ["k"], rootDeleted: false))
        try f.step({ try db.set("Dog", f.dogs[4], "age", .int(3)) }, expect: nil)
    }

    // MARK: Registration

    func testRegistrationRules() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.realm.lock.withLock { () throws(FiefError) in try db.realm.beginWrite() }
        XCTAssertNotNil(expectError(.alreadyInTransaction) {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addCollectionNotifier(f.ref(.list, "dogs")) { _ in } }
        })
        try db.realm.lock.withLock { () throws(FiefError) in db.realm.cancelWrite() }
        XCTAssertNotNil(expectError(.noSuchProperty, "nope") {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addCollectionNotifier(f.ref(.list, "dogs"), keyPaths: ["nope"]) { _ in } }
        })
        try db.write { try db.delete("Person", f.other) }
        XCTAssertNotNil(expectError(.invalidatedObject) {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addCollectionNotifier(f.ref(.list, "dogs", owner: f.other)) { _ in } }
        })
    }

    // MARK: Collections nested in mixed values (realm-core's "nested List"
    // and "nested dictionary in mixed" cases)

    /// The nested collection mixed property `any` of `owner` holds.
    private func nestedRef(_ f: Fixture, _ kind: NestedKind, owner: Int64? = nil, property: String = "any") throws -> CollectionRef {
        let owner = owner ?? f.person
        let id = try f.db.realm.propertyNestedID(table: f.db.cls("Person"), key: owner, property: f.db.pkey("Person", property), kind)
        return CollectionRef(nested: kind, table: f.db.cls("Person"), owner: owner, property: f.db.pkey("Person", property), id: id)
    }

    private func child(_ f: Fixture, _ parent: CollectionRef, at index: Int) throws -> CollectionRef {
        switch try f.db.realm.list(parent).value(at: index) {
        case .nestedList(let id): return parent.nestedChild(.list, id)
        case .nestedDictionary(let id): return parent.nestedChild(.dictionary, id)
        default: throw FiefError(.invalidArgument, "no collection at \(index)")
        }
    }

    private func put(_ f: Fixture, _ ref: CollectionRef, _ key: String, _ value: Value) throws {
        try Array(key.utf8).withUnsafeBytes { try f.db.realm.map(ref).set(value, forKey: $0) }
    }

    func testNestedListTable() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write { try db.set("Person", f.person, "any", .nestedList(0)) }
        let top = try nestedRef(f, .list)
        try db.write {
            try TV.withValues([.int(1), .int(2), .nestedDict(0), .string("x")]) { try db.realm.list(top).append(UnsafeBufferPointer($0)) }
            try put(f, try child(f, top, at: 2), "list", .nestedList(0))
        }
        let inner = try child(f, top, at: 2)
        guard case .nestedList(let deepID)? = try Array("list".utf8).withUnsafeBytes({ try db.realm.map(inner).value(forKey: $0) }) else {
            return XCTFail("no list in the dictionary")
        }
        let deep = inner.nestedChild(.list, deepID)
        try f.observe(top)
        let steps: [(String, () throws -> Void, Seen?)] = [
            ("append", { try db.realm.list(top).append(.int(8)) }, upd(ins: [4])),
            ("set", { try db.realm.list(top).set(.int(10), at: 0) }, upd(mod: [0])),
            ("insert", { try db.realm.list(top).insert(.int(7), at: 1) }, upd(ins: [1])),
            ("remove", { try db.realm.list(top).remove(at: 1) }, upd(del: [1])),
            ("insert two levels down", { try db.realm.list(deep).append(.int(42)) }, upd(mod: [2])),
            ("set two levels down", { try db.realm.list(deep).set(.int(5), at: 0) }, upd(mod: [2])),
            ("clear two levels down", { try db.realm.list(deep).removeAll() }, upd(mod: [2])),
            ("erase a key one level down", { _ = try Array("list".utf8).withUnsafeBytes { try db.realm.map(inner).remove($0) } }, upd(mod: [2])),
            ("insert a collection and fill it", {
                try db.realm.list(top).insert(.nestedDictionary(0), at: 1)
                try self.put(f, try self.child(f, top, at: 1), "v", .int(42))
            }, upd(ins: [1])),
            ("move", { try db.realm.list(top).move(from: 0, to: 4) }, upd(del: [0], ins: [4], moves: [0, 4])),
            ("another object's nested list", {
                try db.set("Person", f.other, "any", .nestedList(0))
                try db.realm.list(try self.nestedRef(f, .list, owner: f.other)).append(.int(1))
            }, nil),
            ("another property of the owner", { try db.set("Person", f.person, "name", .string("z")) }, nil),
            ("the value holding it replaced", { try db.set("Person", f.person, "any", .int(42)) }, upd(del: [0, 1, 2, 3, 4, 5], rootDeleted: true)),
            ("a new nested list in its place", { try db.set("Person", f.person, "any", .nestedList(0)) }, nil),
        ]
        for (name, body, expect) in steps {
            try db.write(body)
            let before = f.seen.count
            try f.deliver(expectingCall: expect != nil)
            XCTAssertEqual(Array(f.seen[before...]), expect.map { [$0] } ?? [], name)
        }
        // Registration needs the nested collection to be there.
        XCTAssertNotNil(expectError(.invalidatedObject) {
            try db.realm.lock.withLock { () throws(FiefError) in _ = try db.realm.addCollectionNotifier(top) { _ in } }
        })
    }

    func testNestedDictionaryAndListInIt() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write { try db.set("Person", f.person, "any", .nestedDict(0)) }
        let dictionary = try nestedRef(f, .dictionary)
        try f.observe(dictionary)
        try f.step({
            try self.put(f, dictionary, "list", .nestedList(0))
            try self.put(f, dictionary, "dictionary", .nestedDictionary(0))
        }, expect: .keys(del: [], ins: ["dictionary", "list"], mod: [], rootDeleted: false))
        XCTAssertEqual(f.changeSets.last?.insertions.indices, [0, 1])
        guard case .nestedList(let listID)? = try Array("list".utf8).withUnsafeBytes({ try db.realm.map(dictionary).value(forKey: $0) }) else {
            return XCTFail("no nested list")
        }
        let list = dictionary.nestedChild(.list, listID)
        // A second notifier, on the list in the dictionary.
        var listSeen: [String] = []
        let listNotifier = try db.realm.lock.withLock { () throws(FiefError) -> CollectionNotifier in
            try db.realm.addCollectionNotifier(list) { change in
                switch change {
                case .initial: listSeen.append("initial")
                case .update(let c, _): listSeen.append("del \(c.deletions.indices) ins \(c.insertions.indices) mod \(c.modifications.indices)\(c.rootDeleted ? " root" : "")")
                case .error(let error): listSeen.append("error \(error.code)")
                }
            }
        }
        defer { listNotifier.release() }
        func deliverList(until count: Int) throws {
            let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
            let deadline = Date().addingTimeInterval(60)
            while listSeen.count < count && Date() < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 200)
                try db.realm.deliverNotifications(.pending)
            }
        }
        try deliverList(until: 1)
        try f.step({
            try db.realm.list(list).append(.int(5))
            try db.realm.list(list).append(.int(6))
        }, expect: .keys(del: [], ins: [], mod: ["list"], rootDeleted: false))
        try deliverList(until: 2)
        try f.step({ try self.put(f, dictionary, "a", .int(1)) }, expect: .keys(del: [], ins: ["a"], mod: [], rootDeleted: false))
        try f.step({ try self.put(f, dictionary, "a", .int(2)) }, expect: .keys(del: [], ins: [], mod: ["a"], rootDeleted: false))
        try f.step({ _ = try Array("a".utf8).withUnsafeBytes { try db.realm.map(dictionary).remove($0) } },
                   expect: .keys(del: ["a"], ins: [], mod: [], rootDeleted: false))
        // The list replaced by a value: the list's notifier hears its root
        // deleted, the dictionary a modified key.
        try f.step({ try self.put(f, dictionary, "list", .int(42)) }, expect: .keys(del: [], ins: [], mod: ["list"], rootDeleted: false))
        try deliverList(until: 3)
        XCTAssertEqual(listSeen, ["initial", "del [] ins [0, 1] mod []", "del [0, 1] ins [] mod [] root"])
        try f.step({ try db.delete("Person", f.person) }, expect: .keys(del: ["dictionary", "list"], ins: [], mod: [], rootDeleted: true))
    }

    func testNestedListInAListOfMixedValues() throws {
        let f = try Fixture(self)
        let db = f.db
        let mixeds = f.ref(.list, "mixeds")
        try db.write {
            try db.realm.list(mixeds).append(.int(0))
            try db.realm.list(mixeds).append(.nestedList(0))
        }
        let nested = try child(f, mixeds, at: 1)
        try f.observe(nested)
        try f.step({ try TV.withValues([.string("a")]) { try db.realm.list(nested).append(UnsafeBufferPointer($0)) } }, expect: upd(ins: [0]))
        try f.step({ try db.realm.list(mixeds).set(.int(1), at: 0) }, expect: nil)
        try f.step({ try db.realm.list(mixeds).remove(at: 0) }, expect: nil)
        try f.step({ try db.realm.list(mixeds).set(.int(3), at: 0) }, expect: upd(del: [0], rootDeleted: true))
    }

    // MARK: Filtered and sorted results of values

    /// Results of `nums` (0...9) `self > 4`, sorted descending, observed:
    /// each write and the change of the results' rows.
    func testFilteredSortedResultsOfAListOfValues() throws {
        let f = try Fixture(self)
        let db = f.db
        let nums = f.ref(.list, "nums")
        let results = try ValueResults(realm: db.realm, list: nums.property, of: f.person, in: nums.table)
            .filtered("self > 4", arguments: []).sorted(ascending: false)
        try f.observeValues(results)
        func values() throws -> [Int64] {
            try db.realm.lock.withLock { () throws(FiefError) -> [Int64] in
                try (0..<results.count()).map { i throws(FiefError) -> Int64 in
                    if case .int(let v) = try results.value(at: i) { return v }
                    return -1
                }
            }
        }
        let list = db.realm.list(nums)
        let steps: [(String, () throws -> Void, Seen?, [Int64])] = [
            ("append, first when sorted", { try list.append(.int(20)) }, upd(ins: [0]), [20, 9, 8, 7, 6, 5]),
            ("set: moves to the front", { try list.set(.int(70), at: 7) }, upd(del: [3], ins: [0]), [70, 20, 9, 8, 6, 5]),
            ("set: stays in place", { try list.set(.int(10), at: 9) }, upd(mod: [2]), [70, 20, 10, 8, 6, 5]),
            ("remove an element not in the results", { try list.remove(at: 0) }, nil, [70, 20, 10, 8, 6, 5]),
            ("insert an element not in the results", { try list.insert(.int(3), at: 0) }, nil, [70, 20, 10, 8, 6, 5]),
            ("set: enters the results", { try list.set(.int(100), at: 0) }, upd(ins: [0]), [100, 70, 20, 10, 8, 6, 5]),
            ("set: leaves the results", { try list.set(.int(1), at: 5) }, upd(del: [6]), [100, 70, 20, 10, 8, 6]),
            ("move", { try list.move(from: 0, to: 3) }, nil, [100, 70, 20, 10, 8, 6]),
            ("another list", { try db.append("Person", f.other, "nums", [.int(50)]) }, nil, [100, 70, 20, 10, 8, 6]),
            ("remove all", { try list.removeAll() }, upd(del: [0, 1, 2, 3, 4, 5]), []),
            ("owner deleted: the last call, nothing left to delete", { try db.delete("Person", f.person) }, upd(rootDeleted: true), []),
            ("silent after", { _ = try db.create("Person", [("name", .string("r"))]) }, nil, []),
        ]
        for (name, body, expect, after) in steps {
            try db.write(body)
            let before = f.seen.count
            try f.deliver(expectingCall: expect != nil)
            XCTAssertEqual(Array(f.seen[before...]), expect.map { [$0] } ?? [], name)
            if !after.isEmpty { XCTAssertEqual(try values(), after, name) }
        }
    }

    /// Results of a set's and of a nested list's values, filtered.
    func testFilteredResultsOfASetAndOfANestedList() throws {
        let f = try Fixture(self)
        let db = f.db
        try db.write {
            for i in [1, 5, 9] { _ = try db.realm.set(f.ref(.set, "intSet")).insert(.int(Int64(i))) }
        }
        let set = try ValueResults(realm: db.realm, list: db.pkey("Person", "intSet"), of: f.person, in: db.cls("Person"))
            .filtered("self >= 5", arguments: [])
        try f.observeValues(set)
        try f.step({ _ = try db.realm.set(f.ref(.set, "intSet")).insert(.int(7)) }, expect: upd(ins: [1]))
        try f.step({ _ = try db.realm.set(f.ref(.set, "intSet")).insert(.int(2)) }, expect: nil)
        try f.step({ _ = try db.realm.set(f.ref(.set, "intSet")).remove(.int(5)) }, expect: upd(del: [0]))
        f.notifier?.release()

        try db.write { try db.set("Person", f.person, "any", .nestedList(0)) }
        let top = try nestedRef(f, .list)
        try db.write { for i in [3, 1, 2] { try db.realm.list(top).append(.int(Int64(i))) } }
        let nested = try ValueResults(realm: db.realm, nested: top).sorted(ascending: true)
        f.seen = []
        try f.observeValues(nested)
        try f.step({ try db.realm.list(top).append(.int(0)) }, expect: upd(ins: [0]))
        // An element set in place keeps its sorted row: a modification.
        try f.step({ try db.realm.list(top).set(.int(4), at: 0) }, expect: upd(mod: [3]))
        // One that moves in the order: a deletion and an insertion.
        try f.step({ try db.realm.list(top).set(.int(5), at: 3) }, expect: upd(del: [0], ins: [3]))
        try f.step({ try db.set("Person", f.person, "any", .int(1)) }, expect: upd(del: [0, 1, 2, 3], rootDeleted: true))
    }

    // MARK: Random

    /// Random operations in random commits; every change set delivered,
    /// applied to the list as it was, gives the list as it is.
    func testRandomListChangeSetsApplyToTheOldList() throws {
        let f = try Fixture(self)
        let db = f.db
        try f.observe(f.ref(.list, "nums"))
        let nums = db.realm.list(f.ref(.list, "nums"))
        func current() throws -> [Int64] {
            try db.list("Person", f.person, "nums").map { if case .int(let v) = $0 { return v } else { return -1 } }
        }
        var rng = SeededRandom(seed: 0xC0FFEE)
        var old = try current()
        var next: Int64 = 100
        for round in 0..<60 {
            let commits = Int(rng.next() % 3) + 1
            for _ in 0..<commits {
                try db.write {
                    for _ in 0..<Int(rng.next() % 6) + 1 {
                        let count = try nums.count()
                        let op = count == 0 ? 0 : Int(rng.next() % 7)
                        next += 1
                        switch op {
                        case 0: try db.insert("Person", f.person, "nums", Int(rng.next() % UInt64(count + 1)), .int(next))
                        case 1: try nums.remove(at: Int(rng.next() % UInt64(count)))
                        case 2: try db.setElement("Person", f.person, "nums", Int(rng.next() % UInt64(count)), .int(next))
                        case 3: try nums.move(from: Int(rng.next() % UInt64(count)), to: Int(rng.next() % UInt64(count)))
                        case 4: try nums.swapAt(Int(rng.next() % UInt64(count)), Int(rng.next() % UInt64(count)))
                        case 5: if rng.next() % 8 == 0 { try nums.removeAll() } else { try db.append("Person", f.person, "nums", [.int(next)]) }
                        default: try db.append("Person", f.person, "nums", [.int(next), .int(next + 1000)])
                        }
                    }
                }
            }
            let before = f.changeSets.count
            try f.deliver(expectingCall: false)
            let new = try current()
            if f.changeSets.count == before {
                XCTAssertEqual(old, new, "round \(round): no change set, yet the list changed")
                continue
            }
            let change = f.changeSets.last!
            var rebuilt: [Int64?] = []
            for (i, v) in old.enumerated() where !change.deletions.contains(i) { rebuilt.append(v) }
            for i in change.insertions.indices { rebuilt.insert(nil, at: i) }
            XCTAssertEqual(rebuilt.count, new.count, "round \(round)")
            guard rebuilt.count == new.count else { break }
            for i in 0..<new.count where rebuilt[i] != nil && !change.modificationsNew.contains(i) {
                XCTAssertEqual(rebuilt[i], new[i], "round \(round), position \(i): \(change)")
            }
            old = new
        }
    }
}
