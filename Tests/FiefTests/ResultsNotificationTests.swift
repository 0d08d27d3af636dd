import Fief
import Foundation
import XCTest

/// `Results.observe` as RealmSwift's ResultsTests check it: `.initial` on
/// the run loop after registration (with writes made before it), then
/// `.update` with deletions, insertions and modifications; key paths;
/// another thread's commit; `LinkingObjects` and `AnyRealmCollection`;
/// delivery on a queue.  Waits are expectations with generous bounds.
final class ResultsNotificationTests: FiefTestCase {
    /// A change as plain values, for comparing.
    private enum Seen: Equatable {
        case initial(Int)
        case update(Int, deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }

    private func seen<C: Collection>(_ change: RealmCollectionChange<C>) -> Seen {
        switch change {
        case .initial(let c): return .initial(c.count)
        case .update(let c, let d, let i, let m): return .update(c.count, deletions: d, insertions: i, modifications: m)
        case .error: return .error
        }
    }

    /// Observe `results`, recording each change; `next` waits for the next one.
    private final class Recorder: @unchecked Sendable {
        var changes: [Seen] = []
        var waiting: XCTestExpectation?
        var token: NotificationToken?
    }

    private func record<T>(_ results: Results<T>, keyPaths: [String]? = nil) -> Recorder {
        let recorder = Recorder()
        recorder.token = results.observe(keyPaths: keyPaths) { [unowned self] change in
            recorder.changes.append(self.seen(change))
            recorder.waiting?.fulfill()
        }
        return recorder
    }

    private func next(_ recorder: Recorder, file: StaticString = #filePath, line: UInt = #line) -> Seen? {
        let before = recorder.changes.count
        let fired = expectation(description: "a change")
        recorder.waiting = fired
        wait(for: [fired], timeout: 30)
        recorder.waiting = nil
        return recorder.changes.count > before ? recorder.changes[before] : nil
    }

    func testInitialThenUpdates() throws {
        let realm = try Realm()
        try realm.write {
            for i in 0..<3 { realm.add(Dog(name: "d\(i)", age: i, color: "tan")) }
        }
        let results = realm.objects(Dog.self).filter("age >= 1")
        let recorder = record(results)
        XCTAssertTrue(recorder.changes.isEmpty) // asynchronous, as RealmSwift
        XCTAssertEqual(next(recorder), .initial(2))
        try realm.write { realm.add(Dog(name: "new", age: 5, color: "red")) }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [2], modifications: []))
        try realm.write { results[0].color = "blue" }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [], modifications: [0]))
        try realm.write { results[1].age = 0 } // leaves the filter
        XCTAssertEqual(next(recorder), .update(2, deletions: [1], insertions: [], modifications: []))
        try realm.write { realm.delete(results[0]) }
        XCTAssertEqual(next(recorder), .update(1, deletions: [0], insertions: [], modifications: []))
        recorder.token?.invalidate()
    }

    func testWriteBeforeTheFirstDeliveryIsInInitial() throws {
        let realm = try Realm()
        let results = realm.objects(Dog.self)
        let recorder = record(results)
        try realm.write { realm.add(Dog(name: "Rex", age: 1, color: "tan")) }
        XCTAssertEqual(next(recorder), .initial(1))
        recorder.token?.invalidate()
    }

    func testSortedResultsAndKeyPaths() throws {
        let realm = try Realm()
        try realm.write {
            for i in 0..<3 { realm.add(Dog(name: "d\(i)", age: i, color: "tan")) }
        }
        let sorted = realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false)
        let recorder = record(sorted, keyPaths: ["age"])
        XCTAssertEqual(next(recorder), .initial(3))
        // Not a watched property: no call; the next change comes alone.
        try realm.write { sorted[0].color = "red" }
        try realm.write { sorted[2].age = 10 } // the youngest becomes the oldest
        XCTAssertEqual(next(recorder), .update(3, deletions: [2], insertions: [0], modifications: []))
        recorder.token?.invalidate()

        let typed = realm.objects(Dog.self)
        var calls: [Seen] = []
        let initial = expectation(description: "initial")
        let update = expectation(description: "update")
        let token = typed.observe(keyPaths: [\Dog.name]) { change in
            calls.append(self.seen(change))
            if calls.count == 1 { initial.fulfill() } else { update.fulfill() }
        }
        wait(for: [initial], timeout: 30)
        try realm.write { typed[0].age = 99 }
        try realm.write { typed[1].name = "renamed" }
        wait(for: [update], timeout: 30)
        XCTAssertEqual(calls.last, .update(3, deletions: [], insertions: [], modifications: [1]))
        token.invalidate()
    }

    func testAnotherThreadsCommit() throws {
        let configuration = fileConfiguration()
        let realm = try Realm(configuration: configuration)
        let results = realm.objects(Dog.self)
        let recorder = record(results)
        XCTAssertEqual(next(recorder), .initial(0))
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.add(Dog(name: "Rex", age: 3, color: "tan")) }
            done.signal()
        }.start()
        done.wait()
        XCTAssertEqual(next(recorder), .update(1, deletions: [], insertions: [0], modifications: []))
        XCTAssertEqual(results.first?.name, "Rex")
        recorder.token?.invalidate()
    }

    func testLinkingObjectsAnyRealmCollectionAndQueue() throws {
        let realm = try Realm()
        let toy = DogToy()
        try realm.write { realm.add(toy) }
        let initial = expectation(description: "initial")
        let update = expectation(description: "update")
        var seenLinking: [Seen] = []
        let token = toy.dogs.observe { change in
            switch change {
            case .initial(let dogs): seenLinking.append(.initial(dogs.count)); initial.fulfill()
            case .update(let dogs, let d, let i, let m):
                seenLinking.append(.update(dogs.count, deletions: d, insertions: i, modifications: m)); update.fulfill()
            case .error: XCTFail("error")
            }
        }
        wait(for: [initial], timeout: 30)
        try realm.write {
            let dog = Dog(name: "Rex", age: 1, color: "tan")
            dog.favoriteToy = toy
            realm.add(dog)
        }
        wait(for: [update], timeout: 30)
        XCTAssertEqual(seenLinking, [.initial(0), .update(1, deletions: [], insertions: [0], modifications: [])])
        token.invalidate()

        let any = AnyRealmCollection(realm.objects(Dog.self))
        let anyInitial = expectation(description: "any initial")
        let anyToken = any.observe { change in
            if case .initial(let c) = change, c.count == 1 { anyInitial.fulfill() }
        }
        wait(for: [anyInitial], timeout: 30)
        anyToken.invalidate()

        let queue = DispatchQueue(label: "results notifications")
        let onQueue = expectation(description: "on the queue")
        let queued = realm.objects(Dog.self).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if case .initial = change { onQueue.fulfill() }
        }
        wait(for: [onQueue], timeout: 30)
        queued.invalidate()
    }

    func testInvalidateInsideTheBlockStopsIt() throws {
        let realm = try Realm()
        var calls = 0
        var token: NotificationToken?
        let initial = expectation(description: "initial")
        token = realm.objects(Dog.self).observe { _ in
            calls += 1
            token?.invalidate()
            initial.fulfill()
        }
        wait(for: [initial], timeout: 30)
        try realm.write { realm.add(Dog(name: "a", age: 1, color: "")) }
        // A realm-level block delivered at the same time shows the round ran.
        let round = expectation(description: "round")
        let realmToken = realm.observe { _, _ in round.fulfill() }
        try realm.write { realm.add(Dog(name: "b", age: 1, color: "")) }
        wait(for: [round], timeout: 30)
        realmToken.invalidate()
        XCTAssertEqual(calls, 1)
    }

    func testMisuseTrapsAsRealmSwift() {
        assertTraps("observeResultsInWrite", message: "Cannot register notification blocks from within write transactions.")
        assertTraps("observeFrozenResults", message: "Frozen Realms do not change and do not have change notifications.")
        assertTraps("observeUnknownKeyPath", message: "'nope'")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "observeResultsInWrite": { _ in
            let realm = try Realm()
            realm.beginWrite()
            _ = realm.objects(Dog.self).observe { _ in }
        },
        "observeFrozenResults": { _ in
            _ = try Realm().objects(Dog.self).freeze().observe { _ in }
        },
        "observeUnknownKeyPath": { _ in
            _ = try Realm().objects(Dog.self).observe(keyPaths: ["nope"]) { _ in }
        },
    ]

    /// A key path through linking objects (`dogs`, the dogs whose favorite
    /// toy it is) reports exactly the toys that gained or lost a dog: the
    /// one a dog left too (no dog links it any more), and one a new dog
    /// links; a dog's other values are not on the path.
    func testLinkingObjectsKeyPathIsExact() throws {
        let realm = try Realm()
        let toys = (0..<3).map { i -> DogToy in
            let toy = DogToy()
            toy.name = "t\(i)"
            return toy
        }
        let rex = Dog(name: "Rex", age: 1, color: "tan")
        rex.favoriteToy = toys[0]
        try realm.write {
            for toy in toys { realm.add(toy) }
            realm.add(rex)
        }
        let recorder = record(realm.objects(DogToy.self), keyPaths: ["dogs"])
        XCTAssertEqual(next(recorder), .initial(3))
        try realm.write { rex.favoriteToy = toys[1] }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [], modifications: [0, 1]))
        try realm.write { rex.age = 2 }
        try realm.write {
            let max = Dog(name: "Max", age: 3, color: "red")
            max.favoriteToy = toys[2]
            realm.add(max)
        }
        XCTAssertEqual(next(recorder), .update(3, deletions: [], insertions: [], modifications: [2]))
        recorder.token?.invalidate()
    }
}
