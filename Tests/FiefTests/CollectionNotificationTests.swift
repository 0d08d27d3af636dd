import Fief
import Foundation
import XCTest

/// `List.observe`, `MutableSet.observe` and `Map.observe` as RealmSwift's
/// tests check them: `.initial` on the run loop after registration (with
/// writes made before it), then `.update` with positions (lists, sets) or
/// keys (maps); key paths; the owner's deletion; `AnyRealmCollection` over
/// a list; the Map page's observe example.  Waits are expectations with
/// generous bounds.
final class CollectionNotificationTests: FiefTestCase {
    fileprivate enum Seen: Equatable {
        case initial(Int)
        case update(Int, deletions: [Int], insertions: [Int], modifications: [Int])
        case keys(Int, deletions: [String], insertions: [String], modifications: [String])
        case error
    }

    private final class Recorder: @unchecked Sendable {
        var changes: [Seen] = []
        var waiting: XCTestExpectation?
        var token: NotificationToken?

        func add(_ seen: Seen) {
            changes.append(seen)
            waiting?.fulfill()
        }
    }

    /// The count is -1 for a collection whose owner was deleted (reading it would trap, as in RealmSwift).
    private func seen<C: RealmCollection>(_ change: RealmCollectionChange<C>) -> Seen {
        switch change {
        case .initial(let c): return .initial(c.count)
        case .update(let c, let d, let i, let m): return .update(c.isInvalidated ? -1 : c.count, deletions: d, insertions: i, modifications: m)
        case .error: return .error
        }
    }

    private func next(_ recorder: Recorder, file: StaticString = #filePath, line: UInt = #line) -> Seen? {
        let before = recorder.changes.count
        let fired = expectation(description: "a change")
        recorder.waiting = fired
        wait(for: [fired], timeout: 30)
        recorder.waiting = nil
        return recorder.changes.count > before ? recorder.changes[before] : nil
    }

    func testListOfObjects() throws {
        let realm = try Realm()
        let person = Person(id: 1, name: "Ann")
        try realm.write {
            realm.add(person)
            for i in 0..<3 { person.dogs.append(Dog(name: "d\(i)", age: i)) }
        }
        let recorder = Recorder()
        recorder.token = person.dogs.observe { [unowned self] in recorder.add(self.seen($0)) }
        XCTAssertTrue(recorder.changes.isEmpty)
        XCTAssertEqual(next(recorder), .initial(3))
        try realm.write { person.dogs.append(Dog(name: "d3", age: 3)) }
        XCTAssertEqual(next(recorder), .update(4, deletions: [], insertions: [3], modifications: []))
        try realm.write { person.dogs[1].age = 10 }
        XCTAssertEqual(next(recorder), .update(4, deletions: [], insertions: [], modifications: [1]))
        try realm.write { person.dogs.move(from: 0, to: 2) }
        XCTAssertEqual(next(recorder), .update(4, deletions: [0], insertions: [2], modifications: []))
        try realm.write { person.dogs.remove(at: 3) }
        XCTAssertEqual(next(recorder), .update(3, deletions: [3], insertions: [], modifications: []))
        try realm.write { realm.delete(person.dogs[0]) }
        XCTAssertEqual(next(recorder), .update(2, deletions: [0], insertions: [], modifications: []))
        // The owner deleted: every element deleted.
        try realm.write { realm.delete(person) }
        XCTAssertEqual(next(recorder)?.isUpdateDeleting(2), true)
        recorder.token?.invalidate()
    }

    func testListKeyPathsAndAnyRealmCollection() throws {
        let realm = try Realm()
        let person = Person(id: 1, name: "Ann")
        try realm.write {
            realm.add(person)
            person.dogs.append(Dog(name: "a", age: 1))
        }
        let recorder = Recorder()
        recorder.token = person.dogs.observe(keyPaths: [\Dog.name]) { [unowned self] in recorder.add(self.seen($0)) }
        XCTAssertEqual(next(recorder), .initial(1))
        try realm.write { person.dogs[0].age = 5 }  // not watched
        try realm.write { person.dogs[0].name = "b" }
        XCTAssertEqual(next(recorder), .update(1, deletions: [], insertions: [], modifications: [0]))
        XCTAssertEqual(recorder.changes.count, 2)
        recorder.token?.invalidate()

        // A list of values through AnyRealmCollection.
        let values = try Realm().objects(NotifiedCollections.self)
        let holder = NotifiedCollections()
        try realm.write { realm.add(holder); holder.numbers.append(objectsIn: [1, 2]) }
        XCTAssertEqual(values.count, 1)
        let any = AnyRealmCollection(holder.numbers)
        let second = Recorder()
        second.token = any.observe { [unowned self] in second.add(self.seen($0)) }
        XCTAssertEqual(next(second), .initial(2))
        try realm.write { holder.numbers[0] = 5 }
        XCTAssertEqual(next(second), .update(2, deletions: [], insertions: [], modifications: [0]))
        try realm.write { holder.numbers.removeAll() }
        XCTAssertEqual(next(second), .update(0, deletions: [0, 1], insertions: [], modifications: []))
        second.token?.invalidate()
    }

    func testMutableSet() throws {
        let realm = try Realm()
        let holder = NotifiedCollections()
        try realm.write { realm.add(holder); holder.tags.insert(objectsIn: ["b", "d"]) }
        let recorder = Recorder()
        recorder.token = holder.tags.observe { [unowned self] in recorder.add(self.seen($0)) }
        XCTAssertEqual(next(recorder), .initial(2))
        try realm.write { holder.tags.insert("c") }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [1], modifications: []))
        try realm.write { holder.tags.remove("b") }
        XCTAssertEqual(next(recorder), .update(2, deletions: [0], insertions: [], modifications: []))
        recorder.token?.invalidate()
    }

    func testMapKeys() throws {
        let realm = try Realm()
        let myObject = MapPageObject()
        try realm.write { realm.add(myObject); myObject.stringMap["a"] = "1" }
        let recorder = Recorder()
        recorder.token = myObject.stringMap.observe { change in
            switch change {
            case .initial(let map): recorder.add(.initial(map.count))
            case .update(let map, let d, let i, let m): recorder.add(.keys(map.count, deletions: d, insertions: i, modifications: m))
            case .error: recorder.add(.error)
            }
        }
        XCTAssertEqual(next(recorder), .initial(1))
        try realm.write {
            myObject.stringMap["b"] = "2"
            myObject.stringMap["a"] = "one"
        }
        XCTAssertEqual(next(recorder), .keys(2, deletions: [], insertions: ["b"], modifications: ["a"]))
        try realm.write { myObject.stringMap.removeObject(for: "a") }
        XCTAssertEqual(next(recorder), .keys(1, deletions: ["a"], insertions: [], modifications: []))
        recorder.token?.invalidate()
    }

    /// The Map page's observe example: a write right after registering is
    /// in the initial notification, which prints the count and the value;
    /// `.update` is not hit.
    func testMapPageObserveExample() throws {
        let realm = try Realm()
        let myObject = MapPageObject()
        try realm.write { realm.add(myObject) }
        let myStringMap = myObject.stringMap
        print("myStringMap.count: \(myStringMap.count)") // => 0
        var printed: [String] = []
        var updates = 0
        let fired = expectation(description: "initial")
        let token = myStringMap.observe { changes in
            switch changes {
            case .initial(let myStringMap):
                // Will print "myStringMap.count: 1"
                printed.append("myStringMap.count: \(myStringMap.count)")
                printed.append("Dog Name: \(String(describing: myStringMap["nameOfDog"]))") // => "Rex"
                print(printed.joined(separator: "\n"))
                fired.fulfill()
            case .update:
                // Will not be hit in this example
                updates += 1
            case .error:
                break
            }
        }
        try! realm.write {
            myStringMap["nameOfDog"] = "Rex"
        }
        wait(for: [fired], timeout: 30)
        XCTAssertEqual(printed, ["myStringMap.count: 1", "Dog Name: Optional(\"Rex\")"])
        XCTAssertEqual(updates, 0)
        token.invalidate()
    }

    /// Lists and dictionaries nested in an `AnyRealmValue` observe as
    /// realm-core's nested collections: their own changes, a write inside a
    /// collection they hold a modification of that element, and the value
    /// holding them replaced every element deleted.
    func testCollectionsNestedInAnyRealmValue() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        try realm.write {
            realm.add(holder)
            holder.value = .fromArray([.int(1), .int(2), .fromDictionary(["k": .int(5)])])
        }
        guard case .list(let nested) = holder.value, case .dictionary(let inner) = nested[2] else { return XCTFail("not nested") }
        let recorder = Recorder()
        recorder.token = nested.observe { [unowned self] in recorder.add(self.seen($0)) }
        XCTAssertEqual(next(recorder), .initial(3))
        let keys = Recorder()
        keys.token = inner.observe { change in
            switch change {
            case .initial(let map): keys.add(.initial(map.count))
            case .update(_, let d, let i, let m): keys.add(.keys(0, deletions: d, insertions: i, modifications: m))
            case .error: keys.add(.error)
            }
        }
        XCTAssertEqual(next(keys), .initial(1))
        try realm.write { nested.append(.string("x")) }
        XCTAssertEqual(next(recorder), .update(4, deletions: [], insertions: [3], modifications: []))
        try realm.write { nested[0] = .int(10) }
        XCTAssertEqual(next(recorder), .update(4, deletions: [], insertions: [], modifications: [0]))
        try realm.write { inner["k"] = .int(6) }
        XCTAssertEqual(next(recorder), .update(4, deletions: [], insertions: [], modifications: [2]))
        XCTAssertEqual(keys.changes.last, .keys(0, deletions: [], insertions: [], modifications: ["k"]))
        try realm.write { holder.value = .int(7) }
        XCTAssertEqual(next(recorder)?.isUpdateDeleting(4), true)
        XCTAssertEqual(keys.changes.last, .keys(0, deletions: ["k"], insertions: [], modifications: []))
        recorder.token?.invalidate()
        keys.token?.invalidate()
    }

    /// Filtered and sorted results of a list of values observe the change
    /// of their rows (RealmSwift: `list.filter(...).sorted(...).observe`).
    func testFilteredAndSortedResultsOfValues() throws {
        let realm = try Realm()
        let holder = NotifiedCollections()
        try realm.write { realm.add(holder); holder.numbers.append(objectsIn: [5, 1, 4]) }
        let recorder = Recorder()
        recorder.token = holder.numbers.filter("self > 2").sorted(ascending: true).observe { [unowned self] in recorder.add(self.seen($0)) }
        XCTAssertEqual(next(recorder), .initial(2))
        try realm.write { holder.numbers.append(3) }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [0], modifications: []))
        try realm.write { holder.numbers[0] = 6 }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [], modifications: [2]))
        try realm.write { holder.numbers[2] = 1 }
        XCTAssertEqual(next(recorder), .update(2, deletions: [1], insertions: [], modifications: []))
        recorder.token?.invalidate()
    }

    func testMisuseTrapsAsRealmSwift() {
        assertTraps("observeListInWrite", message: "Cannot register notification blocks from within write transactions.")
        assertTraps("observeFrozenList", message: "Frozen Realms do not change and do not have change notifications.")
        assertTraps("observeUnmanagedList", message: "This method may only be called on RLMArray instances retrieved from an RLMRealm")
        assertTraps("observeMapUnknownKeyPath", message: "'nope'")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "observeListInWrite": { _ in
            let realm = try Realm()
            let person = Person(id: 1, name: "Ann")
            realm.beginWrite()
            realm.add(person)
            _ = person.dogs.observe { _ in }
        },
        "observeFrozenList": { _ in
            let realm = try Realm()
            let person = Person(id: 1, name: "Ann")
            try realm.write { realm.add(person) }
            _ = person.dogs.freeze().observe { _ in }
        },
        "observeUnmanagedList": { _ in
            _ = Person().dogs.observe { _ in }
        },
        "observeMapUnknownKeyPath": { _ in
            let realm = try Realm()
            let object = MapPageObject()
            try realm.write { realm.add(object) }
            _ = object.mapOfDogs.observe(keyPaths: ["nope"]) { _ in }
        },
    ]
}

/// A list of values and a set of strings, for collection notifications.
class NotifiedCollections: Object {
    @Persisted var numbers: List<Int>
    @Persisted var tags: MutableSet<String>
}

private extension CollectionNotificationTests.Seen {
    /// An update with every one of `count` old elements deleted.
    func isUpdateDeleting(_ count: Int) -> Bool {
        if case .update(_, let deletions, _, _) = self { return deletions == Array(0..<count) }
        return false
    }
}
