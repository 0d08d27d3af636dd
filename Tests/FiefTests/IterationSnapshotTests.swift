// Enumerating a live collection while the loop changes it: RealmSwift
// enumerates the elements there when the loop began (a snapshot inside a
// write transaction), so appending ends after the original elements and
// deleting each element deletes them all (realm-swift's ListTests,
// RealmCollectionTypeTests "testFastEnumerationWithMutation").

import Fief
import Foundation
import XCTest

final class IterationSnapshotTests: FiefTestCase {
    private func personWithDogs(_ realm: Realm) throws -> Person {
        let person = Person()
        person.id = 1
        let dogs = try addDogs(realm)
        try realm.write {
            realm.add(person)
            person.dogs.append(objectsIn: dogs)
        }
        return person
    }

    func testAppendingToAManagedListWhileIteratingEndsAfterTheOriginalElements() throws {
        let realm = try Realm()
        let person = try personWithDogs(realm)
        var seen: [String] = []
        try realm.write {
            for dog in person.dogs {
                seen.append(dog.name)
                person.dogs.append(Dog(name: dog.name + "2", age: dog.age, color: ""))
            }
        }
        XCTAssertEqual(seen, ["Rex", "Fido", "Spot", "Bella", "Wolfie"])
        XCTAssertEqual(person.dogs.count, 10)
        XCTAssertEqual(person.dogs.last?.name, "Wolfie2")
    }

    func testAppendingToAManagedListOfValuesWhileIterating() throws {
        let realm = try Realm()
        let object = ListHolder()
        try realm.write {
            realm.add(object)
            object.ints.append(objectsIn: 0..<300)  // more than one batch
        }
        var seen = 0
        try realm.write {
            for value in object.ints {
                XCTAssertEqual(value, seen)
                seen += 1
                object.ints.append(value + 1000)
            }
        }
        XCTAssertEqual(seen, 300)
        XCTAssertEqual(object.ints.count, 600)
    }

    func testRemovingFromAManagedListWhileIteratingVisitsEveryOriginalElement() throws {
        let realm = try Realm()
        let object = ListHolder()
        try realm.write {
            realm.add(object)
            object.ints.append(objectsIn: [1, 2, 3, 4])
        }
        var seen: [Int] = []
        try realm.write {
            for value in object.ints {
                seen.append(value)
                object.ints.remove(at: 0)
            }
        }
        XCTAssertEqual(seen, [1, 2, 3, 4])
        XCTAssertEqual(object.ints.count, 0)
    }

    func testAppendingToAnUnmanagedListWhileIterating() {
        let list = List<Int>()
        list.append(objectsIn: [1, 2, 3])
        var seen: [Int] = []
        for value in list {
            seen.append(value)
            list.append(value * 10)
        }
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertEqual(Array(list), [1, 2, 3, 10, 20, 30])
    }

    func testInsertingIntoASetWhileIterating() throws {
        let realm = try Realm()
        let object = ListHolder()
        try realm.write {
            realm.add(object)
            object.intSet.insert(objectsIn: [1, 2, 3])
        }
        var seen: [Int] = []
        try realm.write {
            for value in object.intSet {
                seen.append(value)
                object.intSet.insert(value + 100)
            }
        }
        XCTAssertEqual(seen.sorted(), [1, 2, 3])
        XCTAssertEqual(object.intSet.count, 6)
    }

    func testDeletingEachObjectWhileIteratingAListDeletesThemAll() throws {
        let realm = try Realm()
        let person = try personWithDogs(realm)
        var visited = 0
        try realm.write {
            for dog in person.dogs {
                visited += 1
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, 5)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertEqual(person.dogs.count, 0)
    }

    func testDeletingEachObjectWhileIteratingLinkingObjectsDeletesThemAll() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let toy = DogToy()
        try realm.write {
            realm.add(toy)
            for dog in dogs { dog.favoriteToy = toy }
        }
        XCTAssertEqual(toy.dogs.count, 5)
        var visited = 0
        try realm.write {
            for dog in toy.dogs {
                visited += 1
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, 5)
        XCTAssertEqual(toy.dogs.count, 0)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
    }

    func testDeletingEachObjectWhileIteratingAnyRealmCollectionDeletesThemAll() throws {
        let realm = try Realm()
        // Over results.
        try addDogs(realm)
        var visited = 0
        try realm.write {
            for dog in AnyRealmCollection(realm.objects(Dog.self)) {
                visited += 1
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, 5)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        // Over a list.
        let person = try personWithDogs(realm)
        visited = 0
        try realm.write {
            for dog in AnyRealmCollection(person.dogs) {
                visited += 1
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, 5)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        // Over linking objects, filtered results of them.
        let dogs = try addDogs(realm)
        let toy = DogToy()
        try realm.write {
            realm.add(toy)
            for dog in dogs { dog.favoriteToy = toy }
        }
        visited = 0
        try realm.write {
            for dog in AnyRealmCollection(toy.dogs) {
                visited += 1
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, 5)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
    }

    func testDeletingEachObjectWhileIteratingFilteredResultsDeletesThemAll() throws {
        let realm = try Realm()
        try addDogs(realm)
        let tan = realm.objects(Dog.self).filter("color == 'tan'")
        var visited = 0
        try realm.write {
            for dog in tan {
                visited += 1
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, 2)
        XCTAssertEqual(realm.objects(Dog.self).count, 3)
    }

    func testIteratorsAreRealmSwiftsType() throws {
        let realm = try Realm()
        let person = try personWithDogs(realm)
        // RealmCollection's Iterator is RLMIterator, as in RealmSwift.
        func iterate<C: RealmCollection>(_ collection: C) -> Int {
            var iterator: RLMIterator<C.Element> = collection.makeIterator()
            var n = 0
            while iterator.next() != nil { n += 1 }
            return n
        }
        XCTAssertEqual(iterate(person.dogs), 5)
        XCTAssertEqual(iterate(realm.objects(Dog.self)), 5)
        XCTAssertEqual(iterate(AnyRealmCollection(person.dogs)), 5)
        XCTAssertEqual(iterate(DogToy().dogs), 0)
    }
}

/// A list and a set of values to change while iterating.
class ListHolder: Object {
    @Persisted var ints: List<Int>
    @Persisted var intSet: MutableSet<Int>
}
