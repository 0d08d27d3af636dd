import Fief
import Foundation
import XCTest

/// `SectionedResults.observe` and `ResultsSection.observe` (RealmSwift's
/// SectionedResultsTests cases, as tables of writes and the change they
/// give), and `write(withoutNotifying:)`.  Waits are expectations with
/// generous bounds.
final class SectionedResultsNotificationTests: FiefTestCase {
    /// A change as plain values: index paths as [section, item].
    private enum Seen: Equatable {
        case initial(Int)
        case update(Int, deletions: [[Int]], insertions: [[Int]], modifications: [[Int]], sectionsToInsert: [Int], sectionsToDelete: [Int])
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

    private func seen<C: Collection>(_ change: SectionedResultsChange<C>) -> Seen {
        func plain(_ paths: [IndexPath]) -> [[Int]] { paths.map { [$0[0], $0[1]] } }
        switch change {
        case .initial(let c): return .initial(c.count)
        case .update(let c, let d, let i, let m, let si, let sd):
            return .update(c.count, deletions: plain(d), insertions: plain(i), modifications: plain(m),
                           sectionsToInsert: Array(si), sectionsToDelete: Array(sd))
        }
    }

    private func upd(_ count: Int, del: [[Int]] = [], ins: [[Int]] = [], mod: [[Int]] = [], secIns: [Int] = [], secDel: [Int] = []) -> Seen {
        .update(count, deletions: del, insertions: ins, modifications: mod, sectionsToInsert: secIns, sectionsToDelete: secDel)
    }

    private func next(_ recorder: Recorder, file: StaticString = #filePath, line: UInt = #line) -> Seen? {
        let before = recorder.changes.count
        let fired = expectation(description: "a change")
        recorder.waiting = fired
        wait(for: [fired], timeout: 30)
        recorder.waiting = nil
        return recorder.changes.count > before ? recorder.changes[before] : nil
    }

    /// Dogs a and b (tan) and c (red), sectioned by color, then by name.
    private func dogsByColor(_ realm: Realm) throws -> SectionedResults<String, Dog> {
        try realm.write {
            for (name, color) in [("a", "tan"), ("b", "tan"), ("c", "red")] { realm.add(Dog(name: name, age: 0, color: color)) }
        }
        return realm.objects(Dog.self).sectioned(by: \.color, sortDescriptors: [SortDescriptor(keyPath: "color"), SortDescriptor(keyPath: "name")])
    }

    private func dog(_ realm: Realm, _ name: String) -> Dog { realm.objects(Dog.self).filter("name == %@", name).first! }

    func testSectionsAndRowsChange() throws {
        let realm = try Realm()
        let sections = try dogsByColor(realm)
        let recorder = Recorder()
        recorder.token = sections.observe { [unowned self] change in recorder.add(self.seen(change)) }
        XCTAssertEqual(next(recorder), .initial(2)) // red [c], tan [a, b]
        let steps: [(String, () -> Void, Seen)] = [
            ("a row into a section", { realm.add(Dog(name: "d", age: 0, color: "tan")) }, upd(2, ins: [[1, 2]])),
            ("a row changed in place", { self.dog(realm, "a").age = 9 }, upd(2, mod: [[1, 0]])),
            ("a new section first", { realm.add(Dog(name: "e", age: 0, color: "black")) }, upd(3, ins: [[0, 0]], secIns: [0])),
            // red emptied: deleted as a whole (c not listed there); c into tan.
            ("a row changes section", { self.dog(realm, "c").color = "tan" }, upd(2, ins: [[1, 2]], secDel: [1])),
            ("a row leaves", { realm.delete(self.dog(realm, "b")) }, upd(2, del: [[1, 1]])),
        ]
        for (name, write, expected) in steps {
            try realm.write(write)
            XCTAssertEqual(next(recorder), expected, name)
        }
        XCTAssertEqual(sections.allKeys, ["black", "tan"])
        recorder.token?.invalidate()
    }

    func testOneSectionsChangesAlone() throws {
        let realm = try Realm()
        let sections = try dogsByColor(realm)
        let tan = sections[1]
        XCTAssertEqual(tan.key, "tan")
        let recorder = Recorder()
        recorder.token = tan.observe(keyPaths: [\Dog.age]) { [unowned self] change in recorder.add(self.seen(change)) }
        XCTAssertEqual(next(recorder), .initial(2))
        try realm.write { realm.add(Dog(name: "d", age: 0, color: "tan")) }
        XCTAssertEqual(next(recorder), upd(3, ins: [[1, 2]]))
        // Another section's change, then a name (not watched): no call; then an age.
        try realm.write { dog(realm, "c").age = 5 }
        try realm.write { dog(realm, "a").name = "a2" }
        try realm.write { dog(realm, "b").age = 1 }
        XCTAssertEqual(next(recorder), upd(3, mod: [[1, 1]]))
        XCTAssertEqual(recorder.changes.count, 3)
        recorder.token?.invalidate()
    }

    func testWriteWithoutNotifying() throws {
        let realm = try Realm()
        let dogs = realm.objects(Dog.self)
        var skippedCalls: [RealmCollectionChange<Results<Dog>>] = []
        var told: [[Int]] = []
        let skippedInitial = expectation(description: "skipped initial")
        let skipped = dogs.observe { change in
            skippedCalls.append(change)
            if skippedCalls.count == 1 { skippedInitial.fulfill() }
        }
        let recorder = Recorder()
        recorder.token = dogs.observe { change in
            if case .update(_, _, let insertions, _) = change { told.append(insertions) }
            recorder.waiting?.fulfill()
        }
        _ = next(recorder)
        wait(for: [skippedInitial], timeout: 30)
        try realm.write(withoutNotifying: [skipped]) { realm.add(Dog(name: "quiet", age: 1, color: "tan")) }
        _ = next(recorder)
        XCTAssertEqual(told, [[0]])
        XCTAssertEqual(skippedCalls.count, 1)
        // The next commit (begun and committed by hand) is told to both;
        // the skipped one's change set has it alone.
        let skippedUpdate = expectation(description: "skipped update")
        skipped.invalidate()
        var skippedInsertions: [[Int]] = []
        let skippedAgain = dogs.observe { change in
            if case .update(_, let deletions, let insertions, _) = change {
                skippedInsertions.append(deletions + insertions)
                skippedUpdate.fulfill()
            }
        }
        let initialAgain = Recorder()
        initialAgain.token = dogs.observe { _ in initialAgain.waiting?.fulfill() }
        _ = next(initialAgain)
        realm.beginWrite()
        realm.add(Dog(name: "skipped", age: 2, color: "red"))
        try realm.commitWrite(withoutNotifying: [skippedAgain])
        _ = next(recorder)
        XCTAssertEqual(told.last, [1])
        try realm.write { realm.add(Dog(name: "told", age: 3, color: "red")) }
        wait(for: [skippedUpdate], timeout: 30)
        XCTAssertEqual(skippedInsertions, [[2]])
        skippedAgain.invalidate()
        initialAgain.token?.invalidate()
        recorder.token?.invalidate()
    }
}
