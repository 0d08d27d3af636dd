import Fief
import Foundation
import XCTest

/// Object notifications as RealmSwift's ObjectTests check them: local and
/// remote changes (old values only for the remote ones), key paths as
/// strings and as Swift key paths, a list property, a linked object through
/// a key path, deletion, delivery on a queue, and the traps.  Timeouts are
/// liveness bounds.
final class ObjectNotificationTests: FiefTestCase {
    /// Collects what a block was told, as (name, old, new) per property.
    final class Told: @unchecked Sendable {
        var changes: [[String]] = []
        var deleted = 0
        var onChange: (() -> Void)?

        func record<T>(_ change: ObjectChange<T>) {
            switch change {
            case .change(_, let properties):
                changes.append(properties.map { "\($0.name) \(Told.text($0.oldValue)) \(Told.text($0.newValue))" })
            case .deleted:
                deleted += 1
            case .error:
                XCTFail("no error is ever delivered")
            }
            onChange?()
        }

        static func text(_ value: Any?) -> String {
            guard let value else { return "nil" }
            if let dog = value as? Dog { return "Dog(\(dog.name))" }
            return "\(value)"
        }
    }

    /// Commits `body` on another thread's realm of `configuration`, and waits for it.
    private func writeElsewhere(_ configuration: Realm.Configuration, _ body: @escaping @Sendable (Realm) -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { body(other) }
            done.signal()
        }.start()
        done.wait()
    }

    func testModifyObservedObjectLocallyGivesNoOldValue() throws {
        let realm = try Realm()
        let dog = Dog(name: "Rex", age: 1)
        try realm.write { realm.add(dog) }
        let told = Told()
        let fired = expectation(description: "change")
        told.onChange = { fired.fulfill() }
        let token = dog.observe { (change: ObjectChange<Dog>) in told.record(change) }
        try realm.write { dog.age = 2 }
        XCTAssertEqual(told.changes, []) // never inside the commit: the run loop's next delivery
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(told.changes, [["age nil 2"]])
        token.invalidate()
        // A later commit: the invalidated block is not told (a second
        // observer, told in the same delivery, says it happened).
        let sentinel = Told()
        let round = expectation(description: "round")
        sentinel.onChange = { round.fulfill() }
        let sentinelToken = dog.observe { (change: ObjectChange<Dog>) in sentinel.record(change) }
        try realm.write { dog.age = 3 }
        wait(for: [round], timeout: 10)
        XCTAssertEqual(told.changes.count, 1)
        sentinelToken.invalidate()
    }

    func testModifyObservedObjectRemotelyGivesOldValues() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        let dog = Dog(name: "Rex", age: 1)
        try realm.write { realm.add(dog) }
        let told = Told()
        let fired = expectation(description: "change")
        told.onChange = { fired.fulfill() }
        let token = dog.observe { (change: ObjectChange<Dog>) in told.record(change) }
        writeElsewhere(configuration) { other in
            let rex = other.objects(Dog.self).first!
            rex.age = 2
            rex.name = "Max"
        }
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(told.changes, [["name Rex Max", "age 1 2"]])
        XCTAssertEqual(dog.age, 2) // the realm refreshed before the call
        token.invalidate()
    }

    func testKeyPathsFilterAsStringsAndSwiftKeyPaths() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        let dog = Dog(name: "Rex", age: 1, color: "tan")
        try realm.write { realm.add(dog) }
        let byName = Told(), byKeyPath = Told()
        let fired = expectation(description: "both told")
        fired.expectedFulfillmentCount = 2
        byName.onChange = { fired.fulfill() }
        byKeyPath.onChange = { fired.fulfill() }
        let t1 = dog.observe(keyPaths: ["color"]) { (change: ObjectChange<Dog>) in byName.record(change) }
        let t2 = dog.observe(keyPaths: [\Dog.color, \Dog.name]) { change in byKeyPath.record(change) }
        // Not observed by either: age.  Then color, which both observe.
        writeElsewhere(configuration) { other in other.objects(Dog.self).first!.age = 5 }
        writeElsewhere(configuration) { other in other.objects(Dog.self).first!.color = "black" }
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(byName.changes, [["color tan black"]])
        XCTAssertEqual(byKeyPath.changes, [["color tan black"]])
        t1.invalidate()
        t2.invalidate()
    }

    func testListPropertyAndKeyPathsThroughIt() throws {
        let realm = try Realm()
        let person = Person(id: 1, name: "Ann")
        let rex = Dog(name: "Rex", age: 1)
        try realm.write {
            realm.add(person)
            person.dogs.append(rex)
        }
        let all = Told(), list = Told(), throughList = Told()
        let t1 = person.observe { (change: ObjectChange<Person>) in all.record(change) }
        let t2 = person.observe(keyPaths: ["dogs"]) { (change: ObjectChange<Person>) in list.record(change) }
        let t3 = person.observe(keyPaths: ["dogs.age"]) { (change: ObjectChange<Person>) in throughList.record(change) }
        // A dog of the list changes: only "dogs.age" is told (object
        // notifications are shallow by default, and "dogs" is the list itself).
        var fired = expectation(description: "dogs.age")
        throughList.onChange = { fired.fulfill() }
        try realm.write { rex.age = 2 }
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(all.changes, [])
        XCTAssertEqual(list.changes, [])
        XCTAssertEqual(throughList.changes, [["dogs nil nil"]])
        // The list changes: all three.
        fired = expectation(description: "all three")
        fired.expectedFulfillmentCount = 3
        for told in [all, list, throughList] { told.onChange = { fired.fulfill() } }
        try realm.write { person.dogs.append(Dog(name: "Fido", age: 3)) }
        wait(for: [fired], timeout: 10)
        // A property of a dog not named: nobody (an observer of the dog's
        // name, told in the same delivery, says it happened).
        for told in [all, list, throughList] { told.onChange = nil }
        let sentinel = Told()
        fired = expectation(description: "round")
        sentinel.onChange = { fired.fulfill() }
        let t4 = rex.observe(keyPaths: ["name"]) { (change: ObjectChange<Dog>) in sentinel.record(change) }
        try realm.write { rex.name = "Max" }
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(all.changes, [["dogs nil nil"]])
        XCTAssertEqual(list.changes, [["dogs nil nil"]])
        XCTAssertEqual(throughList.changes, [["dogs nil nil"], ["dogs nil nil"]])
        for token in [t1, t2, t3, t4] { token.invalidate() }
    }

    func testDeleteObservedObject() throws {
        let realm = try Realm()
        let dog = Dog(name: "Rex", age: 1)
        let other = Dog(name: "Fido", age: 1)
        try realm.write { realm.add([dog, other]) }
        let plain = Told(), filtered = Told()
        let fired = expectation(description: "both told")
        fired.expectedFulfillmentCount = 2
        plain.onChange = { fired.fulfill() }
        filtered.onChange = { fired.fulfill() }
        let t1 = dog.observe { (change: ObjectChange<Dog>) in plain.record(change) }
        let t2 = other.observe(keyPaths: ["age"]) { (change: ObjectChange<Dog>) in filtered.record(change) }
        try realm.write {
            realm.delete(dog)
            realm.delete(other)
        }
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(plain.deleted, 1)
        XCTAssertEqual(filtered.deleted, 1)
        XCTAssertEqual(plain.changes.count + filtered.changes.count, 0)
        t1.invalidate()
        t2.invalidate()
    }

    func testLinkPropertyGivesObjects() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        let dog = Dog(name: "Rex", age: 1)
        try realm.write {
            realm.add(dog)
            dog.favoriteToy = DogToy(value: ["name": "Ball"])
        }
        let told = Told()
        let fired = expectation(description: "change")
        told.onChange = { fired.fulfill() }
        let token = dog.observe(keyPaths: ["favoriteToy.name"]) { (change: ObjectChange<Dog>) in
            if case .change(let object, let properties) = change {
                XCTAssertEqual(object, dog)
                XCTAssertEqual((properties.first?.newValue as? DogToy)?.name, "Bone")
                XCTAssertEqual((properties.first?.oldValue as? DogToy)?.name, "Bone") // the same toy, read now
            }
            told.record(change)
        }
        writeElsewhere(configuration) { other in other.objects(DogToy.self).first!.name = "Bone" }
        wait(for: [fired], timeout: 10)
        XCTAssertEqual(told.changes.count, 1)
        token.invalidate()
    }

    func testObserveOnQueueGivesOldValues() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        let dog = Dog(name: "Rex", age: 1)
        try realm.write { realm.add(dog) }
        let queue = DispatchQueue(label: "object-observer")
        let told = Told()
        let done = DispatchSemaphore(value: 0)
        final class Seen: @unchecked Sendable { var onQueue = false; var sameObject = true }
        let seen = Seen()
        let token = dog.observe(keyPaths: ["age"], on: queue) { (change: ObjectChange<Dog>) in
            dispatchPrecondition(condition: .onQueue(queue))
            seen.onQueue = true
            if case .change(let object, _) = change { seen.sameObject = object === dog }
            told.record(change)
            done.signal()
        }
        try realm.write { dog.age = 2 }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        queue.sync {}
        XCTAssertTrue(seen.onQueue)
        XCTAssertFalse(seen.sameObject) // the queue's own object
        XCTAssertEqual(told.changes, [["age 1 2"]]) // another realm made the commit
        token.invalidate()
        queue.sync {}
    }

    func testProjectionObserveReportsProjectedNames() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        let citizen = Citizen()
        citizen.firstName = "Jane"
        citizen.lastName = "doe"
        try realm.write { realm.add(citizen) }
        let card = CitizenCard(projecting: citizen)
        let told = Told(), named = Told()
        let fired = expectation(description: "firstName told")
        named.onChange = { fired.fulfill() }
        let t1 = card.observe { (change: ObjectChange<CitizenCard>) in
            if case .change(let projection, _) = change { XCTAssertTrue(projection === card) }
            told.record(change)
        }
        let t2 = card.observe(keyPaths: [\CitizenCard.firstName]) { change in named.record(change) }
        writeElsewhere(configuration) { other in other.objects(Citizen.self).first!.lastName = "smith" }
        writeElsewhere(configuration) { other in other.objects(Citizen.self).first!.firstName = "Joan" }
        wait(for: [fired], timeout: 10)
        // Told in the same rounds as the filtered one (one or two calls, as the commits coalesce).
        XCTAssertEqual(told.changes.flatMap { $0 }.sorted(), ["firstName Jane Joan", "lastNameCaps DOE SMITH"])
        XCTAssertEqual(named.changes, [["firstName Jane Joan"]])
        t1.invalidate()
        t2.invalidate()
    }

    func testTraps() {
        assertTraps("observeUnmanagedObject", message: "managed")
        assertTraps("observeInvalidKeyPath", message: "property 'notAProperty' not found in object of type 'Dog'")
        assertTraps("observeInvalidNestedKeyPath", message: "property 'alsoNot' not found in object of type 'Dog'")
        assertTraps("observeInWrite", message: "Cannot register notification blocks from within write transactions.")
        assertTraps("observeFrozenObject", message: "Frozen Objects do not change and cannot be observed.")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "observeUnmanagedObject": { _ in _ = Dog().observe { (_: ObjectChange<Dog>) in } },
        "observeInvalidKeyPath": { _ in
            let realm = try Realm()
            let dog = Dog()
            try realm.write { realm.add(dog) }
            _ = dog.observe(keyPaths: ["notAProperty"]) { (_: ObjectChange<Dog>) in }
        },
        "observeInvalidNestedKeyPath": { _ in
            let realm = try Realm()
            let person = Person(id: 1, name: "Ann")
            try realm.write { realm.add(person) }
            _ = person.observe(keyPaths: ["dogs.alsoNot"]) { (_: ObjectChange<Person>) in }
        },
        "observeInWrite": { _ in
            let realm = try Realm()
            let dog = Dog()
            try realm.write { realm.add(dog) }
            realm.beginWrite()
            _ = dog.observe { (_: ObjectChange<Dog>) in }
        },
        "observeFrozenObject": { _ in
            let realm = try Realm()
            let dog = Dog()
            try realm.write { realm.add(dog) }
            _ = dog.freeze().observe { (_: ObjectChange<Dog>) in }
        },
    ]
}
