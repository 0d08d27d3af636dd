import XCTest
import CLMDB
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// Object notifiers, as tables made from realm-core's object notification
/// cases and RealmSwift's ObjectTests: operations by another realm (or the
/// observing one), then what the callback is told: deleted, or the changed
/// properties with old and new values.
final class ObjectNotifierTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string), prop("age", .int)]),
        ("Person", [prop("name", .string), prop("age", .int),
                    Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
                    Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "labels", type: .string, collection: .set),
                    Property(name: "scores", type: .int, collection: .map)]),
    ])

    /// What one callback was told, owned.
    struct Told: Equatable, CustomStringConvertible {
        var deleted = false
        /// Per changed property (by name): old and new value (nil: none given).
        var changes: [String: [TV?]] = [:]
        var description: String { deleted ? "deleted" : "\(changes.sorted { $0.key < $1.key })" }
    }

    final class Recorder: @unchecked Sendable {
        var told: [Told] = []
    }

    /// The world of one case: the observer's realm, a writer realm on the
    /// same file, Ann (age 30) with dog Rex (age 3) and dogs [Rex, Fido].
    struct World {
        let observer: DB
        let writer: DB
        let ann: Int64, rex: Int64, fido: Int64, bob: Int64
    }

    private func makeWorld() throws -> World {
        let path = tempDir().file()
        let observer = try DB.open(path, schema)
        let writer = try DB.open(path, schema)
        var ann: Int64 = 0, rex: Int64 = 0, fido: Int64 = 0, bob: Int64 = 0
        let dog = observer.cls("Dog")
        try observer.write {
            rex = try observer.create("Dog", [("name", .string("Rex")), ("age", .int(3))])
            fido = try observer.create("Dog", [("name", .string("Fido")), ("age", .int(5))])
            ann = try observer.create("Person", [("name", .string("Ann")), ("age", .int(30)), ("dog", .link(dog, rex))])
            bob = try observer.create("Person", [("name", .string("Bob")), ("age", .int(40))])
            try append(observer, ann, "dogs", .link(dog, rex))
            try append(observer, ann, "dogs", .link(dog, fido))
        }
        _ = try writer.realm.refresh()
        return World(observer: observer, writer: writer, ann: ann, rex: rex, fido: fido, bob: bob)
    }

    private func append(_ db: DB, _ person: Int64, _ property: String, _ value: TV) throws {
        let ref = try db.realm.collection(.list, table: db.cls("Person"), owner: person, property: db.pkey("Person", property))
        try TV.withValues([value]) { v in try db.realm.list(ref).append(v[0]) }
    }

    private func listSet(_ db: DB, _ person: Int64, _ property: String, _ index: Int, _ value: TV) throws {
        let ref = try db.realm.collection(.list, table: db.cls("Person"), owner: person, property: db.pkey("Person", property))
        try TV.withValues([value]) { v in try db.realm.list(ref).set(v[0], at: index) }
    }

    private func observe(_ db: DB, _ className: String, _ key: Int64, _ keyPaths: [String]?, _ recorder: Recorder) throws -> ObjectNotifier {
        let realm = db.realm
        let objectClass = realm.schema.objectClass(key: db.cls(className))!
        return try realm.lock.withLock { () throws(FiefError) -> ObjectNotifier in
            try realm.addObjectNotifier(table: db.cls(className), key: key, keyPaths: keyPaths) { note in
                var told = Told(deleted: note.isDeleted)
                for property in note.changedProperties {
                    let name = objectClass.property(key: property)!.name
                    let old = try! note.oldValue(property).map(TV.init)
                    let new = try! note.newValue(property).map(TV.init)
                    told.changes[name] = [old, new]
                }
                recorder.told.append(told)
            }
        }
    }

    /// Deliver to `db` as the host does (wait on its fd, bounded, then
    /// deliver) until it reads `writer`'s version.
    private func deliver(_ db: DB, upTo writer: DB, file: StaticString = #filePath, line: UInt = #line) throws {
        func version(_ realm: Realm) throws -> UInt64 {
            try realm.lock.withLock { () throws(FiefError) -> UInt64 in try realm.currentSnapshot().version }
        }
        let target = try version(writer.realm)
        let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
        var rounds = 0
        while try version(db.realm) < target {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 10_000) == 1, rounds < 100 else {
                XCTFail("no delivery became pending", file: file, line: line)
                return
            }
            rounds += 1
            try db.realm.deliverNotifications(.pending)
        }
    }

    /// One case: the key paths, what the writer does, what the observer is told.
    struct Case {
        let name: String
        var keyPaths: [String]? = nil
        let write: (World) throws -> Void
        let expected: [Told]
    }

    private func told(_ changes: [String: [TV?]]) -> Told { Told(deleted: false, changes: changes) }

    func testRemoteChangesTable() throws {
        let cases: [Case] = [
            Case(name: "one property", write: { w in try w.writer.set("Person", w.ann, "age", .int(31)) },
                 expected: [told(["age": [.int(30), .int(31)]])]),
            Case(name: "several properties", write: { w in
                try w.writer.set("Person", w.ann, "age", .int(31))
                try w.writer.set("Person", w.ann, "name", .string("Anne"))
            }, expected: [told(["age": [.int(30), .int(31)], "name": [.string("Ann"), .string("Anne")]])]),
            Case(name: "set to the same value is still a change", write: { w in try w.writer.set("Person", w.ann, "age", .int(30)) },
                 expected: [told(["age": [.int(30), .int(30)]])]),
            Case(name: "another object of the class", write: { w in try w.writer.set("Person", w.bob, "age", .int(41)) },
                 expected: []),
            Case(name: "a link property", write: { w in try w.writer.set("Person", w.ann, "dog", .link(w.writer.cls("Dog"), w.fido)) },
                 expected: [told(["dog": [.link(w0Dog, 0), .link(w0Dog, 1)]])]),
            Case(name: "a linked object's property, no key paths", write: { w in try w.writer.set("Dog", w.rex, "age", .int(4)) },
                 expected: []),
            Case(name: "a list property's elements", write: { w in try self.append(w.writer, w.ann, "tags", .string("x")) },
                 expected: [told(["tags": [nil, nil]])]),
            Case(name: "a list element inserted and removed in one write: no change", write: { w in
                try self.append(w.writer, w.ann, "tags", .string("x"))
                let ref = try w.writer.realm.collection(.list, table: w.writer.cls("Person"), owner: w.ann, property: w.writer.pkey("Person", "tags"))
                try w.writer.realm.list(ref).remove(at: 0)
            }, expected: []),
            Case(name: "a list's elements moved", write: { w in
                let ref = try w.writer.realm.collection(.list, table: w.writer.cls("Person"), owner: w.ann, property: w.writer.pkey("Person", "dogs"))
                try w.writer.realm.list(ref).move(from: 0, to: 1)
            }, expected: [told(["dogs": [nil, nil]])]),
            Case(name: "a set property's elements", write: { w in
                let ref = try w.writer.realm.collection(.set, table: w.writer.cls("Person"), owner: w.ann, property: w.writer.pkey("Person", "labels"))
                _ = try TV.withValues([.string("x")]) { v in try w.writer.realm.set(ref).insert(v[0]) }
            }, expected: [told(["labels": [nil, nil]])]),
            Case(name: "a map property's entries", write: { w in
                let ref = try w.writer.realm.collection(.map, table: w.writer.cls("Person"), owner: w.ann, property: w.writer.pkey("Person", "scores"))
                try TV.withValues([.int(1)]) { v in try Array("k".utf8).withUnsafeBytes { k in try w.writer.realm.map(ref).set(v[0], forKey: k) } }
            }, expected: [told(["scores": [nil, nil]])]),
            Case(name: "a list element replaced", write: { w in try self.listSet(w.writer, w.ann, "dogs", 0, .link(w.writer.cls("Dog"), w.fido)) },
                 expected: [told(["dogs": [nil, nil]])]),
            Case(name: "deleted", write: { w in try w.writer.delete("Person", w.ann) },
                 expected: [Told(deleted: true)]),
            Case(name: "filtered: observed", keyPaths: ["age"], write: { w in
                try w.writer.set("Person", w.ann, "age", .int(31))
                try w.writer.set("Person", w.ann, "name", .string("Anne"))
            }, expected: [told(["age": [.int(30), .int(31)]])]),
            Case(name: "filtered: not observed", keyPaths: ["age"], write: { w in try w.writer.set("Person", w.ann, "name", .string("Anne")) },
                 expected: []),
            Case(name: "filtered: deleted is always told", keyPaths: ["age"], write: { w in try w.writer.delete("Person", w.ann) },
                 expected: [Told(deleted: true)]),
            Case(name: "through a link", keyPaths: ["dog.age"], write: { w in try w.writer.set("Dog", w.rex, "age", .int(4)) },
                 expected: [told(["dog": [.link(w0Dog, 0), .link(w0Dog, 0)]])]),
            Case(name: "through a link, other property", keyPaths: ["dog.age"], write: { w in try w.writer.set("Dog", w.rex, "name", .string("R")) },
                 expected: []),
            Case(name: "through a link, the link itself", keyPaths: ["dog.age"], write: { w in try w.writer.set("Person", w.ann, "dog", .null) },
                 expected: [told(["dog": [.link(w0Dog, 0), .null]])]),
            Case(name: "through a list", keyPaths: ["dogs.name"], write: { w in try w.writer.set("Dog", w.fido, "name", .string("F")) },
                 expected: [told(["dogs": [nil, nil]])]),
            Case(name: "through a list, an element deleted", keyPaths: ["dogs.name"], write: { w in try w.writer.delete("Dog", w.fido) },
                 expected: [told(["dogs": [nil, nil]])]),
            Case(name: "through a link, the target deleted", keyPaths: ["dog.age"], write: { w in try w.writer.delete("Dog", w.rex) },
                 expected: [told(["dog": [.link(w0Dog, 0), .null]])]),
            Case(name: "no key paths, a linked object deleted", write: { w in try w.writer.delete("Dog", w.rex) },
                 expected: [told(["dog": [.link(w0Dog, 0), .null], "dogs": [nil, nil]])]),
            Case(name: "the list only", keyPaths: ["dogs"], write: { w in try w.writer.set("Dog", w.fido, "name", .string("F")) },
                 expected: []),
            Case(name: "the list only, appended", keyPaths: ["dogs"], write: { w in try self.append(w.writer, w.ann, "dogs", .link(w.writer.cls("Dog"), w.rex)) },
                 expected: [told(["dogs": [nil, nil]])]),
            Case(name: "star: own properties", keyPaths: ["*"], write: { w in
                try w.writer.set("Person", w.ann, "name", .string("Anne"))
                try w.writer.set("Dog", w.rex, "age", .int(4))
            }, expected: [told(["name": [.string("Ann"), .string("Anne")]])]),
            Case(name: "list star", keyPaths: ["dogs.*"], write: { w in try w.writer.set("Dog", w.fido, "age", .int(6)) },
                 expected: [told(["dogs": [nil, nil]])]),
            Case(name: "list star, object not in the list", keyPaths: ["dogs.*"], write: { w in
                let other = try w.writer.create("Dog", [("name", .string("Max"))])
                try w.writer.set("Dog", other, "age", .int(1))
            }, expected: []),
        ]
        for c in cases {
            let world = try makeWorld()
            XCTAssertEqual(world.observer.cls("Dog"), w0Dog)
            let recorder = Recorder()
            let notifier = try observe(world.observer, "Person", world.ann, c.keyPaths, recorder)
            try world.writer.write { try c.write(world) }
            try deliver(world.observer, upTo: world.writer)
            // Then one write nobody observes, so "nothing told" is not just "not yet".
            if !c.expected.contains(where: \.deleted) {
                try world.writer.write { _ = try world.writer.create("Person", [("name", .string("Zed"))]) }
                try deliver(world.observer, upTo: world.writer)
            }
            XCTAssertEqual(recorder.told, c.expected, c.name)
            notifier.release()
        }
    }

    /// Dog's class key in every world (the first class made).
    private var w0Dog: UInt32 { 1 }

    func testCoalescedCommitsAreOneChangeWithTheFirstOldValue() throws {
        let world = try makeWorld()
        let recorder = Recorder()
        let notifier = try observe(world.observer, "Person", world.ann, nil, recorder)
        // Autorefresh off: the commits pile up until the realm refreshes.
        try world.observer.realm.lock.withLock { () throws(FiefError) in try world.observer.realm.setAutorefresh(false) }
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(31)) }
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(32)) }
        try world.writer.write { try world.writer.set("Person", world.ann, "name", .string("Anne")) }
        _ = try world.observer.realm.lock.withLock { () throws(FiefError) in try world.observer.realm.refresh() }
        try world.observer.realm.deliverNotifications(.afterChange)
        XCTAssertEqual(recorder.told, []) // never inside the refresh
        // At the next delivery (once the worker ran to the refreshed
        // version: on a busy machine it may not have yet).
        let fd = try world.observer.realm.lock.withLock { () throws(FiefError) -> Int32 in try world.observer.realm.notificationChannel().eventFD }
        let deadline = Date().addingTimeInterval(60)
        repeat {
            try world.observer.realm.deliverNotifications(.pending)
            if !recorder.told.isEmpty { break }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 200)
        } while Date() < deadline
        XCTAssertEqual(recorder.told, [told(["age": [.int(30), .int(32)], "name": [.string("Ann"), .string("Anne")]])])
        notifier.release()
    }

    func testDeletedIsToldOnceThenSilent() throws {
        let world = try makeWorld()
        let recorder = Recorder()
        let notifier = try observe(world.observer, "Person", world.ann, nil, recorder)
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(31)) }
        try world.writer.write { try world.writer.delete("Person", world.ann) }
        try deliver(world.observer, upTo: world.writer)
        XCTAssertEqual(recorder.told, [Told(deleted: true)])
        XCTAssertTrue(notifier.isReleased)
        try world.writer.write { _ = try world.writer.create("Person", [("name", .string("Zed"))]) }
        _ = try world.observer.realm.lock.withLock { () throws(FiefError) in try world.observer.realm.refresh() }
        try world.observer.realm.deliverNotifications(.afterChange)
        XCTAssertEqual(recorder.told.count, 1)
    }

    func testOwnCommitGivesNoOldValue() throws {
        let world = try makeWorld()
        let recorder = Recorder()
        let notifier = try observe(world.observer, "Person", world.ann, nil, recorder)
        try world.observer.write { try world.observer.set("Person", world.ann, "age", .int(31)) }
        // What the C layer does after a commit: nothing is told inside it.
        try world.observer.realm.deliverNotifications(.afterChange)
        XCTAssertEqual(recorder.told, [])
        // The host's next delivery, once the worker ran (the fd says).
        let fd = try world.observer.realm.lock.withLock { () throws(FiefError) -> Int32 in try world.observer.realm.notificationChannel().eventFD }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 10_000), 1, "no delivery became pending")
        try world.observer.realm.deliverNotifications(.pending)
        XCTAssertEqual(recorder.told, [told(["age": [nil, .int(31)]])])
        // The worker's run of the same version tells nothing more.
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(32)) }
        try deliver(world.observer, upTo: world.writer)
        XCTAssertEqual(recorder.told.last, told(["age": [.int(31), .int(32)]]))
        XCTAssertEqual(recorder.told.count, 2)
        notifier.release()
    }

    func testReleasedNotifierIsNotCalled() throws {
        let world = try makeWorld()
        let recorder = Recorder()
        let notifier = try observe(world.observer, "Person", world.ann, nil, recorder)
        let other = try observe(world.observer, "Person", world.bob, nil, Recorder())
        notifier.release()
        notifier.release()
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(31)) }
        try world.writer.write { try world.writer.set("Person", world.bob, "age", .int(31)) }
        try deliver(world.observer, upTo: world.writer)
        XCTAssertEqual(recorder.told, [])
        other.release()
    }

    /// An observed object that does not change pins no version: the change
    /// records of other commits are trimmed as without an observer.
    func testAnUnchangedObservedObjectPinsNothing() throws {
        let world = try makeWorld()
        let notifier = try observe(world.observer, "Person", world.bob, nil, Recorder())
        for i in 0..<50 {
            try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(Int64(i))) }
        }
        try deliver(world.observer, upTo: world.writer)
        // Let the worker run to the newest version (the observer now reads it).
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(99)) }
        try deliver(world.observer, upTo: world.writer)
        try world.writer.write { try world.writer.set("Person", world.ann, "age", .int(100)) }
        let realm = world.writer.realm
        let entries = try realm.lock.withLock { () throws(FiefError) -> Int in
            let snapshot = try realm.currentSnapshot()
            guard let dbi = try realm.environment.existingDatabase(History.database) else { return -1 }
            var stat = MDB_stat()
            XCTAssertEqual(mdb_stat(snapshot.txn, dbi, &stat), 0)
            return stat.ms_entries
        }
        // The records since the oldest snapshot still read (the notifier's
        // newest, the realms'): a few, not the 52 commits'.
        XCTAssertLessThanOrEqual(entries, 3)
        notifier.release()
    }

    /// Seeded random writes by another realm, deliveries at random points:
    /// every call matches a model of what was written since the last one
    /// (the properties written, in the filter; old values as delivered
    /// last, new values as now; a deletion once, then nothing).  The
    /// environment variable FIEF_ON_SEED picks another seed.
    func testRandomWritesMatchAModel() throws {
        let path = tempDir().file()
        let observer = try DB.open(path, schema)
        let writer = try DB.open(path, schema)
        var random = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["FIEF_ON_SEED"] ?? "22")!)
        var people: [Int64] = []
        var model: [Int64: (name: String, age: Int64)] = [:]
        try observer.write {
            for i in 0..<5 {
                let key = try observer.create("Person", [("name", .string("p\(i)")), ("age", .int(Int64(i)))])
                people.append(key)
                model[key] = ("p\(i)", Int64(i))
            }
        }
        _ = try writer.realm.lock.withLock { () throws(FiefError) in try writer.realm.refresh() }
        struct Watch {
            let key: Int64
            let filter: Set<String>?
            let recorder = Recorder()
            var shown: (name: String, age: Int64)
            var written: Set<String> = []
            var deleted = false
            var deletionTold = false
            var notifier: ObjectNotifier?
        }
        var watches: [Watch] = []
        for (i, key) in people.enumerated() {
            for filter in [nil, ["age"]] as [[String]?] {
                var watch = Watch(key: key, filter: filter.map(Set.init), shown: model[key]!)
                watch.notifier = try observe(observer, "Person", key, filter, watch.recorder)
                watches.append(watch)
                _ = i
            }
        }
        for round in 0..<300 {
            try writer.write {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let live = people.filter { model[$0] != nil }
                    guard let key = live.randomElement(using: &random) else { return }
                    let op = Int.random(in: 0..<20, using: &random)
                    var wrote: String
                    if op == 0 && live.count > 2 {
                        try writer.delete("Person", key)
                        model[key] = nil
                        for w in watches.indices where watches[w].key == key { watches[w].deleted = true }
                        continue
                    } else if op < 8 {
                        let age = Int64.random(in: 0..<5, using: &random)
                        try writer.set("Person", key, "age", .int(age))
                        model[key]!.age = age
                        wrote = "age"
                    } else if op < 15 {
                        let name = "n\(Int.random(in: 0..<5, using: &random))"
                        try writer.set("Person", key, "name", .string(name))
                        model[key]!.name = name
                        wrote = "name"
                    } else {
                        try append(writer, key, "tags", .string("t\(round)"))
                        wrote = "tags"
                    }
                    for w in watches.indices where watches[w].key == key { watches[w].written.insert(wrote) }
                }
            }
            guard Int.random(in: 0..<3, using: &random) == 0 || round == 299 else { continue }
            let before = watches.map { $0.recorder.told.count }
            try deliver(observer, upTo: writer)
            for w in watches.indices {
                var watch = watches[w]
                let calls = Array(watch.recorder.told[before[w]...])
                var expected: [Told] = []
                if watch.deleted {
                    if !watch.deletionTold { expected = [Told(deleted: true)] }
                    watch.deletionTold = true
                } else {
                    let props = watch.written.filter { watch.filter?.contains($0) ?? true }
                    if !props.isEmpty {
                        var changes: [String: [TV?]] = [:]
                        let now = model[watch.key]!
                        for p in props {
                            switch p {
                            case "age": changes[p] = [.int(watch.shown.age), .int(now.age)]
                            case "name": changes[p] = [.string(watch.shown.name), .string(now.name)]
                            default: changes[p] = [nil, nil]
                            }
                        }
                        expected = [told(changes)]
                    }
                    watch.shown = now(model, watch.key)
                }
                watch.written = []
                XCTAssertEqual(calls, expected, "round \(round), person \(watch.key), filter \(String(describing: watch.filter))")
                watches[w] = watch
            }
        }
        for watch in watches { watch.notifier?.release() }
    }

    private func now(_ model: [Int64: (name: String, age: Int64)], _ key: Int64) -> (name: String, age: Int64) { model[key]! }

    /// A map entry's value set again, and a set element removed, are
    /// changes of the property too.
    func testMapValueAndSetRemovalAreChanges() throws {
        let world = try makeWorld()
        let w = world.writer
        let map = try w.realm.collection(.map, table: w.cls("Person"), owner: world.ann, property: w.pkey("Person", "scores"))
        let set = try w.realm.collection(.set, table: w.cls("Person"), owner: world.ann, property: w.pkey("Person", "labels"))
        func setScore(_ value: Int64) throws {
            try TV.withValues([.int(value)]) { v in try Array("k".utf8).withUnsafeBytes { k in try w.realm.map(map).set(v[0], forKey: k) } }
        }
        try w.write {
            try setScore(1)
            _ = try TV.withValues([.string("x")]) { v in try w.realm.set(set).insert(v[0]) }
        }
        let observer = world.observer.realm
        _ = try observer.lock.withLock { () throws(FiefError) in try observer.refresh() }
        let recorder = Recorder()
        let notifier = try observe(world.observer, "Person", world.ann, nil, recorder)
        try w.write { try setScore(2) }
        try deliver(world.observer, upTo: w)
        try w.write { _ = try TV.withValues([.string("x")]) { v in try w.realm.set(set).remove(v[0]) } }
        try deliver(world.observer, upTo: w)
        XCTAssertEqual(recorder.told, [told(["scores": [nil, nil]]), told(["labels": [nil, nil]])])
        notifier.release()
    }

    func testRegistrationErrors() throws {
        let world = try makeWorld()
        let realm = world.observer.realm
        func register(_ key: Int64, _ paths: [String]?, on target: Realm? = nil) throws {
            let r = target ?? realm
            _ = try r.lock.withLock { () throws(FiefError) in
                try r.addObjectNotifier(table: world.observer.cls("Person"), key: key, keyPaths: paths) { _ in }
            }.release()
        }
        var error = expectError(.noSuchProperty) { try register(world.ann, ["nope"]) }
        XCTAssertEqual(error?.message, "Invalid property name: property 'nope' not found in object of type 'Person' (key path 'nope')")
        error = expectError(.noSuchProperty) { try register(world.ann, ["dogs.alsoNot"]) }
        XCTAssertEqual(error?.message, "Invalid property name: property 'alsoNot' not found in object of type 'Dog' (key path 'dogs.alsoNot')")
        // One resolver with results notifiers: a step past a value, an
        // empty step and `*` before the end are invalid arguments.
        error = expectError(.invalidArgument) { try register(world.ann, ["age.x"]) }
        XCTAssertTrue(error?.message.contains("'Person.age' is not a link") ?? false)
        _ = expectError(.invalidArgument) { try register(world.ann, [""]) }
        _ = expectError(.invalidArgument) { try register(world.ann, ["*.name"]) }
        try world.writer.write { try world.writer.delete("Person", world.bob) }
        _ = try realm.lock.withLock { () throws(FiefError) in try realm.refresh() }
        _ = expectError(.invalidatedObject) { try register(world.bob, nil) }
        let frozen = try realm.lock.withLock { () throws(FiefError) in try realm.freeze() }
        _ = expectError(.frozen) { try register(world.ann, nil, on: frozen) }
        try realm.beginWrite()
        _ = expectError(.alreadyInTransaction) { try register(world.ann, nil) }
        realm.cancelWrite()
        XCTAssertNoThrow(try register(world.ann, ["dogs.*", "dog.name", "*"]))
    }
}
