import XCTest
import CLMDB
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// What the change records say beyond objects' own columns, seen through
/// the notifiers (issue 22): writes inside collections nested in a mixed
/// value are writes of the owner's mixed property; linking objects gained
/// or lost are named per target; results whose query can no longer be
/// evaluated (a property they read removed by another realm's migration)
/// deliver `.error` once and are then silent.
final class NotifierRecordsTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Dog", properties: [prop("name", .string), prop("age", .int)],
                    linkingObjects: [LinkingObjectsProperty(name: "owners", originClass: "Person", originProperty: "dogs")]),
        ObjectClass(name: "Box", properties: [prop("label", .string), prop("anyValue", .mixed),
                                              Property(name: "items", type: .mixed, collection: .list)]),
        ObjectClass(name: "Person", properties: [prop("name", .string), prop("age", .int),
                                                 Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list)]),
    ])

    /// Calls told, owned.
    final class Recorder: @unchecked Sendable {
        var objects: [[String]] = []
        var results: [String] = []
        var message = ""
    }

    private func version(_ db: DB) throws -> UInt64 {
        try db.realm.lock.withLock { () throws(FiefError) -> UInt64 in try db.realm.currentSnapshot().version }
    }

    /// Deliver to `db` as a host does (wait on its fd, bounded) until it
    /// reads `target` and `done()` holds.
    private func deliver(_ db: DB, upTo target: UInt64, until done: () -> Bool = { true },
                         file: StaticString = #filePath, line: UInt = #line) throws {
        let fd = try db.realm.lock.withLock { () throws(FiefError) -> Int32 in try db.realm.notificationChannel().eventFD }
        for _ in 0..<200 {
            if try version(db) >= target && done() { return }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 200)
            try db.realm.deliverNotifications(.pending)
        }
        XCTFail("no delivery reached version \(target)", file: file, line: line)
    }

    private func observeObject(_ db: DB, _ className: String, _ key: Int64, _ keyPaths: [String]?, _ recorder: Recorder) throws -> ObjectNotifier {
        let realm = db.realm
        let objectClass = realm.schema.objectClass(key: db.cls(className))!
        return try realm.lock.withLock { () throws(FiefError) -> ObjectNotifier in
            try realm.addObjectNotifier(table: db.cls(className), key: key, keyPaths: keyPaths) { note in
                recorder.objects.append(note.isDeleted ? ["deleted"] : note.changedProperties.map { objectClass.property(key: $0)!.name })
            }
        }
    }

    private func observeResults(_ db: DB, _ results: ObjectResults, _ keyPaths: [String]?, _ recorder: Recorder) throws -> ResultsNotifier {
        try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
            try db.realm.addResultsNotifier(results, keyPaths: keyPaths) { change in
                switch change {
                case .initial: recorder.results.append("initial")
                case .update(let c):
                    recorder.results.append("del \(c.deletions.indices) ins \(c.insertions.indices) mod \(c.modificationsNew.indices)")
                case .error(let e):
                    recorder.results.append("error \(e.code)")
                    recorder.message = e.message
                }
            }
        }
    }

    // MARK: Nested collections

    /// Every write inside a list or dictionary nested in a mixed value
    /// (appends, sets, removals, moves, clears, at any depth) is a write of
    /// the owner's mixed property: the object notifier with that key path,
    /// the default one and results see it; other key paths do not.
    func testNestedWritesAreWritesOfTheOwnersMixedProperty() throws {
        let path = tempDir().file()
        let observer = try DB.open(path, schema)
        let writer = try DB.open(path, schema)
        let box = try observer.write { try observer.create("Box", [("label", .string("a")), ("anyValue", .nestedList(0))]) }
        let other = try observer.write { try observer.create("Box", [("label", .string("b"))]) }
        _ = try writer.realm.lock.withLock { () throws(FiefError) in try writer.realm.refresh() }
        guard case .nestedList(let top) = try writer.get("Box", box, "anyValue") else { return XCTFail("not a nested list") }
        let boxClass = writer.cls("Box"), anyValue = writer.pkey("Box", "anyValue")
        let list = CollectionRef(nested: .list, table: boxClass, owner: box, property: anyValue, id: top)
        func listOp(_ body: (CollectionRef) throws -> Void) throws { try writer.write { try body(list) } }

        let own = Recorder(), byPath = Recorder(), byLabel = Recorder(), rows = Recorder()
        let notifiers: [any Notifier] = [
            try observeObject(observer, "Box", box, nil, own),
            try observeObject(observer, "Box", box, ["anyValue"], byPath),
            try observeObject(observer, "Box", box, ["label"], byLabel),
            try observeResults(observer, try observer.results("Box"), nil, rows),
        ]
        try deliver(observer, upTo: try version(writer), until: { rows.results.count == 1 })
        var expectedRows = ["initial"]
        // Each operation in its own commit, delivered before the next.
        let operations: [(String, () throws -> Void)] = [
            ("append", { try listOp { ref in try TV.withValues([.int(1), .nestedDict(0)]) { v in try writer.realm.list(ref).append(UnsafeBufferPointer(v)) } } }),
            ("set", { try listOp { ref in try TV.withValues([.int(2)]) { v in try writer.realm.list(ref).set(v[0], at: 0) } } }),
            ("dictionary inside", { try listOp { ref in
                guard case .nestedDict(let inner) = TV(try writer.realm.list(ref).value(at: 1)) else { return XCTFail("no dictionary") }
                let dict = CollectionRef(nested: .dictionary, table: boxClass, owner: box, property: anyValue, id: inner)
                try TV.withValues([.string("x")]) { v in try Array("k".utf8).withUnsafeBytes { try writer.realm.map(dict).set(v[0], forKey: $0) } }
            } }),
            ("move", { try listOp { try writer.realm.list($0).move(from: 0, to: 1) } }),
            ("remove", { try listOp { try writer.realm.list($0).remove(at: 0) } }),
            ("clear", { try listOp { try writer.realm.list($0).removeAll() } }),
        ]
        for (name, operation) in operations {
            let before = (own.objects.count, byPath.objects.count)
            try operation()
            expectedRows.append("del [] ins [] mod [0]")
            try deliver(observer, upTo: try version(writer), until: { rows.results.count == expectedRows.count && own.objects.count > before.0 && byPath.objects.count > before.1 })
            XCTAssertEqual(own.objects.last, ["anyValue"], name)
            XCTAssertEqual(byPath.objects.last, ["anyValue"], name)
        }
        XCTAssertEqual(own.objects.count, operations.count)
        XCTAssertEqual(byPath.objects.count, operations.count)
        XCTAssertEqual(byLabel.objects, [])
        XCTAssertEqual(rows.results, expectedRows)
        // Another box's label: no call for this one.
        try writer.write { try writer.set("Box", other, "label", .string("c")) }
        try writer.write { try writer.set("Box", box, "label", .string("d")) }
        try deliver(observer, upTo: try version(writer), until: { byLabel.objects.count == 1 })
        XCTAssertEqual(byLabel.objects, [["label"]])
        XCTAssertEqual(byPath.objects.count, operations.count)
        for notifier in notifiers { notifier.release() }
    }

    /// A nested collection written in the transaction that creates its
    /// owner records the owner as inserted only; one written and then its
    /// owner deleted records the deletion only.
    func testNestedWritesOfObjectsMadeOrDeletedInTheSameCommitAreNotModifications() throws {
        let db = try DB.open(tempDir().file(), schema)
        let base = try version(db)
        var box: Int64 = 0, gone: Int64 = 0
        try db.write {
            box = try db.create("Box", [("anyValue", .nestedList(0))])
            gone = try db.create("Box", [("anyValue", .nestedList(0))])
            guard case .nestedList(let id) = try db.get("Box", box, "anyValue") else { return XCTFail("not a nested list") }
            let ref = CollectionRef(nested: .list, table: db.cls("Box"), owner: box, property: db.pkey("Box", "anyValue"), id: id)
            try TV.withValues([.int(1)]) { try db.realm.list(ref).append(UnsafeBufferPointer($0)) }
        }
        let after = try version(db)
        // Each commit's record read right after it (no reader pins older ones).
        let changes = try db.realm.lock.withLock { () throws(FiefError) in try db.realm.currentSnapshot().changes(since: base) }
        let boxes = try XCTUnwrap(changes?[db.cls("Box")])
        XCTAssertTrue(boxes.inserted.contains(box))
        XCTAssertTrue(boxes.modified.isEmpty)
        try db.write {
            guard case .nestedList(let id) = try db.get("Box", gone, "anyValue") else { return XCTFail("not a nested list") }
            let ref = CollectionRef(nested: .list, table: db.cls("Box"), owner: gone, property: db.pkey("Box", "anyValue"), id: id)
            try TV.withValues([.int(1)]) { try db.realm.list(ref).append(UnsafeBufferPointer($0)) }
            try db.delete("Box", gone)
        }
        let later = try db.realm.lock.withLock { () throws(FiefError) in try db.realm.currentSnapshot().changes(since: after) }
        let second = try XCTUnwrap(later?[db.cls("Box")])
        XCTAssertTrue(second.deleted.contains(gone))
        XCTAssertTrue(second.modified.isEmpty)
    }

    // MARK: Errors

    /// Another realm's migration removes the property the query reads:
    /// the results cannot be evaluated any more, so the callback is told
    /// `.error` once and never called again; an object notifier of the
    /// class goes on (the class is still there).
    func testResultsWhoseQueryCannotBeEvaluatedDeliverErrorOnce() throws {
        let path = tempDir().file()
        let observer = try DB.open(path, schema)
        let rex = try observer.write { () -> Int64 in
            for age in 1...4 { _ = try observer.create("Dog", [("name", .string("d\(age)")), ("age", .int(Int64(age)))]) }
            return try observer.create("Dog", [("name", .string("rex")), ("age", .int(9))])
        }
        let rows = Recorder(), all = Recorder(), dog = Recorder()
        let filtered = try observeResults(observer, try observer.query("Dog", "age > 2"), nil, rows)
        let every = try observeResults(observer, try observer.results("Dog"), nil, all)
        let object = try observeObject(observer, "Dog", rex, ["name"], dog)
        try deliver(observer, upTo: try version(observer), until: { rows.results.count == 1 && all.results.count == 1 })
        var migrated = schema
        let dogIndex = migrated.classes.firstIndex { $0.name == "Dog" }!
        migrated.classes[dogIndex].properties.removeAll { $0.name == "age" }
        let other = try DB.open(path, migrated, version: 1)
        try deliver(observer, upTo: try version(other), until: { rows.results.count == 2 })
        XCTAssertEqual(rows.results.count, 2)
        XCTAssertEqual(rows.results.last, "error invalidatedResults")
        XCTAssertEqual(rows.message, "property 'Dog.age', which these results read, was removed or changed by a schema change")
        // Later commits: the failed results are silent, the others go on.
        try other.write { try other.set("Dog", rex, "name", .string("max")) }
        try deliver(observer, upTo: try version(other), until: { all.results.count >= 2 && dog.objects.count == 1 })
        XCTAssertEqual(rows.results.count, 2)
        XCTAssertEqual(all.results.last, "del [] ins [] mod [4]")
        XCTAssertEqual(dog.objects, [["name"]])
        for notifier in [filtered, every] as [any Notifier] + [object] { notifier.release() }
    }

    // MARK: Key paths through linking objects (one resolver)

    /// The object notifier resolves key paths as results do: a linking-
    /// objects step in the middle (`dogs.owners.name`: Ann's dogs' owners'
    /// names) reports the first column of the path; one at the start names
    /// no column of the object and is refused.
    func testObjectKeyPathsThroughLinkingObjects() throws {
        let path = tempDir().file()
        let observer = try DB.open(path, schema)
        let writer = try DB.open(path, schema)
        let dog = observer.cls("Dog")
        var ann: Int64 = 0, bob: Int64 = 0, cy: Int64 = 0, rex: Int64 = 0
        try observer.write {
            rex = try observer.create("Dog", [("name", .string("Rex"))])
            let fido = try observer.create("Dog", [("name", .string("Fido"))])
            ann = try observer.create("Person", [("name", .string("Ann"))])
            bob = try observer.create("Person", [("name", .string("Bob"))])
            cy = try observer.create("Person", [("name", .string("Cy"))])
            for (person, target) in [(ann, rex), (bob, rex), (cy, fido)] {
                let ref = try observer.realm.collection(.list, table: observer.cls("Person"), owner: person, property: observer.pkey("Person", "dogs"))
                try TV.withValues([.link(dog, target)]) { v in try observer.realm.list(ref).append(v[0]) }
            }
        }
        _ = try writer.realm.lock.withLock { () throws(FiefError) in try writer.realm.refresh() }
        let told = Recorder()
        let notifier = try observeObject(observer, "Person", ann, ["dogs.owners.name"], told)
        // Cy owns Fido, not Rex: nothing.  Bob co-owns Rex: Ann's dogs.
        try writer.write { try writer.set("Person", cy, "name", .string("C")) }
        try writer.write { try writer.set("Person", bob, "age", .int(3)) }
        try deliver(observer, upTo: try version(writer))
        XCTAssertEqual(told.objects, [])
        try writer.write { try writer.set("Person", bob, "name", .string("B")) }
        try deliver(observer, upTo: try version(writer), until: { told.objects.count == 1 })
        XCTAssertEqual(told.objects, [["dogs"]])
        notifier.release()
        XCTAssertNotNil(expectError(.invalidArgument, "linking-objects") {
            _ = try self.observeObject(observer, "Dog", rex, ["owners.name"], told)
        })
        let error = expectError(.noSuchProperty) { _ = try self.observeObject(observer, "Person", ann, ["dogs.owners.nope"], told) }
        XCTAssertEqual(error?.message, "Invalid property name: property 'nope' not found in object of type 'Person' (key path 'dogs.owners.nope')")
    }
}
