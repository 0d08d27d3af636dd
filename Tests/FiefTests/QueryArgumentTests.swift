// Query arguments as RealmSwift takes them: a Realm collection (Results,
// List, MutableSet, LinkingObjects, AnyRealmCollection) or a Swift Set for
// `IN %@` and `ANY ... IN %@`; an unmanaged object, which equals no object
// of the realm; NSPredicate's `@allKeys` / `@allValues` in map queries
// (realm-swift's QueryTests / MapTests, in our words).

import Fief
import Foundation
import XCTest

final class QueryArgumentTests: FiefTestCase {
    private func personWithDogs(_ realm: Realm, named names: [String]) throws -> Person {
        let person = Person()
        person.id = 1
        try realm.write {
            realm.add(person)
            for dog in realm.objects(Dog.self) where names.contains(dog.name) { person.dogs.append(dog) }
        }
        return person
    }

    /// Toys: "ball" for Rex and Spot (tan), "bone" for Fido; Bella and
    /// Wolfie have none.
    private func dogsWithToys(_ realm: Realm) throws -> (ball: DogToy, bone: DogToy) {
        try addDogs(realm)
        let ball = DogToy(), bone = DogToy()
        ball.name = "ball"
        bone.name = "bone"
        try realm.write {
            realm.add([ball, bone])
            for dog in realm.objects(Dog.self) {
                switch dog.name {
                case "Rex", "Spot": dog.favoriteToy = ball
                case "Fido": dog.favoriteToy = bone
                default: break
                }
            }
        }
        return (ball, bone)
    }

    func testResultsAsTheArgumentOfIn() throws {
        let realm = try Realm()
        _ = try dogsWithToys(realm)
        let dogs = realm.objects(Dog.self)
        let toys = realm.objects(DogToy.self)
        XCTAssertEqual(Set(dogs.filter("favoriteToy IN %@", toys.filter("name == 'ball'")).map(\.name)), ["Rex", "Spot"])
        XCTAssertEqual(Set(dogs.filter("favoriteToy IN %@", toys).map(\.name)), ["Rex", "Spot", "Fido"])
        XCTAssertEqual(Set(dogs.filter("NOT favoriteToy IN %@", toys.filter("name == 'ball'")).map(\.name)), ["Fido", "Bella", "Wolfie"])
        XCTAssertEqual(dogs.filter("favoriteToy IN %@", toys.filter("FALSEPREDICATE")).count, 0, "an empty collection matches nothing")
        let people = realm.objects(Person.self)
        _ = try personWithDogs(realm, named: ["Rex", "Fido"])
        XCTAssertEqual(people.filter("ANY dogs IN %@", dogs.filter("color == 'tan'")).count, 1)
        XCTAssertEqual(people.filter("ANY dogs IN %@", dogs.filter("color == 'grey'")).count, 0)
        // Results of values.
        let ages = realm.objects(Person.self).first!.dogs.sorted(byKeyPath: "age").map(\.age)
        XCTAssertEqual(dogs.filter("age IN %@", ages).count, 3, "an array")
    }

    func testListsSetsAndLinkingObjectsAsTheArgumentOfIn() throws {
        let realm = try Realm()
        let (ball, _) = try dogsWithToys(realm)
        let dogs = realm.objects(Dog.self)
        let person = try personWithDogs(realm, named: ["Rex", "Bella"])
        let people = realm.objects(Person.self)
        XCTAssertEqual(people.filter("ANY dogs IN %@", person.dogs).count, 1)
        XCTAssertEqual(people.filter("ANY dogs IN %@", AnyRealmCollection(person.dogs)).count, 1)
        XCTAssertEqual(people.filter("ANY dogs IN %@", ball.dogs).count, 1, "linking objects")
        XCTAssertEqual(people.filter("ANY dogs IN %@", AnyRealmCollection(dogs.filter("age == 3"))).count, 0)

        let kennel = Kennel(id: 1, name: "K")
        try realm.write {
            realm.add(kennel)
            kennel.dogs.insert(dogs.filter("name == 'Rex'").first!)
            kennel.tags.insert(objectsIn: ["Rex", "Wolfie"])
        }
        XCTAssertEqual(people.filter("ANY dogs IN %@", kennel.dogs).count, 1, "a set of objects")
        XCTAssertEqual(Set(dogs.filter("name IN %@", kennel.tags).map(\.name)), ["Rex", "Wolfie"], "a set of strings")
        XCTAssertEqual(Set(dogs.filter("name IN %@", Set(["Fido", "Nobody"])).map(\.name)), ["Fido"], "a Swift Set")
        XCTAssertEqual(Set(dogs.filter("ANY %@ == name", kennel.tags).map(\.name)), ["Rex", "Wolfie"])

        // A list of values, managed and not.
        let holder = ListHolder()
        try realm.write {
            realm.add(holder)
            holder.ints.append(objectsIn: [1, 7])
        }
        XCTAssertEqual(Set(dogs.filter("age IN %@", holder.ints).map(\.name)), ["Fido", "Bella", "Wolfie"])
        XCTAssertEqual(Set(dogs.filter("age IN %@", holder.ints.filter("self > 5")).map(\.name)), ["Wolfie"], "results of values")
        XCTAssertEqual(dogs.filter("age IN %@", List<Int>()).count, 0, "an unmanaged empty list")
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [3, 10])
        XCTAssertEqual(Set(dogs.filter("age IN %@", unmanaged).map(\.name)), ["Spot", "Rex"], "an unmanaged list")
    }

    func testAnUnmanagedObjectMatchesNothing() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let toy = DogToy()
        try realm.write {
            realm.add(toy)
            dogs[0].favoriteToy = toy
        }
        let stranger = DogToy()
        let all = realm.objects(Dog.self)
        XCTAssertEqual(all.filter("favoriteToy == %@", stranger).count, 0)
        XCTAssertEqual(all.filter("favoriteToy != %@", stranger).count, 5)
        XCTAssertEqual(all.filter("favoriteToy == %@", toy).count, 1)
        XCTAssertEqual(all.filter("favoriteToy IN %@", [stranger, toy]).count, 1)
        let person = try personWithDogs(realm, named: ["Rex"])
        XCTAssertEqual(realm.objects(Person.self).filter("ANY dogs == %@", Dog()).count, 0)
        XCTAssertEqual(realm.objects(Person.self).filter("ANY dogs == %@", person.dogs[0]).count, 1)
        XCTAssertEqual(realm.objects(Person.self).filter("ANY dogs != %@", Dog()).count, 1)
        XCTAssertEqual(realm.objects(Person.self).filter("ANY dogs IN %@", [Dog(), Dog()]).count, 0)
        // A deleted object matches nothing too.
        let gone = DogToy()
        try realm.write {
            realm.add(gone)
            dogs[1].favoriteToy = gone
        }
        try realm.write { realm.delete(gone) }
        XCTAssertEqual(all.filter("favoriteToy == %@", gone).count, 0)
    }

    func testAllKeysAndAllValuesInMapQueries() throws {
        let realm = try Realm()
        let first = ScalarMaps()
        first.id = 1
        first.ints["aKey"] = 1
        first.ints["other"] = 5
        let second = ScalarMaps()
        second.id = 2
        second.ints["AKEY"] = 7
        try realm.write {
            realm.add(first)
            realm.add(second)
            realm.add(ScalarMaps(value: ["id": 3]))
        }
        let maps = realm.objects(ScalarMaps.self)
        XCTAssertEqual(maps.filter("ANY ints.@allKeys == 'aKey'").map(\.id), [1])
        XCTAssertEqual(Set(maps.filter("ANY ints.@allKeys ==[c] 'akey'").map(\.id)), [1, 2])
        XCTAssertEqual(Set(maps.filter("ANY ints.@allKeys != 'aKey'").map(\.id)), [1, 2])
        XCTAssertEqual(maps.filter("ANY ints.@allValues > %@", 6).map(\.id), [2])
        XCTAssertEqual(maps.filter("ALL ints.@allValues < %d", 6).count, 2, "the empty map too")
        XCTAssertEqual(maps.filter("ANY %K == 'other'", "ints.@allKeys").map(\.id), [1], "in a key-path argument")
        // The same as @keys / @values.
        XCTAssertEqual(maps.filter("ANY ints.@keys ==[c] 'akey'").count, maps.filter("ANY ints.@allKeys ==[c] 'akey'").count)
        XCTAssertEqual(maps.filter("ANY ints.@values > 6").count, maps.filter("ANY ints.@allValues > 6").count)
    }
}

/// An embedded object with a link and a map of links.
class ScratchEmbeddedPet: EmbeddedObject {
    @Persisted var name = ""
    @Persisted var dog: Dog?
    @Persisted var dogs: Map<String, Dog?>
}

/// An object with a map of links and a link to its class.
class ScratchOwner: Object {
    @Persisted var name = ""
    @Persisted var pets: Map<String, Dog?>
    @Persisted var next: ScratchOwner?
}

/// `index(matching:)` on an unmanaged List, which RealmSwift evaluates in
/// memory (realm-swift's PrimitiveListTests / ListTests testIndexMatching).
final class UnmanagedIndexMatchingTests: FiefTestCase {
    func testValues() {
        let ints = List<Int>()
        ints.append(objectsIn: [5, 3, 8, 3])
        XCTAssertEqual(ints.index(matching: "self == %@", 3), 1)
        XCTAssertEqual(ints.index(matching: "self > %d", 6), 2)
        XCTAssertEqual(ints.index(matching: "self < 0"), nil)
        XCTAssertEqual(List<Int>().index(matching: "self == 1"), nil)
        let strings = List<String>()
        strings.append(objectsIn: ["apple", "Banana", "cherry"])
        XCTAssertEqual(strings.index(matching: "self BEGINSWITH[c] %@", "b"), 1)
        XCTAssertEqual(strings.index(matching: "self IN %@", ["cherry", "apple"]), 0)
        let optionals = List<Double?>()
        optionals.append(objectsIn: [1.5, nil, 2.5])
        XCTAssertEqual(optionals.index(matching: "self == nil"), 1)
        XCTAssertEqual(optionals.index(matching: "self >= %f", 2.0), 2)
        let dates = List<Date>()
        dates.append(objectsIn: [Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 20)])
        XCTAssertEqual(dates.index(matching: "self > %@", Date(timeIntervalSince1970: 15)), 1)
        XCTAssertEqual(Array(ints), [5, 3, 8, 3], "the list is unchanged")
    }

    func testObjects() throws {
        let dogs = List<Dog>()
        dogs.append(objectsIn: [Dog(name: "Rex", age: 10, color: "tan"), Dog(name: "Fido", age: 1, color: "black"),
                                Dog(name: "Spot", age: 3, color: "tan")])
        XCTAssertEqual(dogs.index(matching: "color == 'tan' AND age < %d", 5), 2)
        XCTAssertEqual(dogs.index(matching: "name == %@", "Fido"), 1)
        XCTAssertEqual(dogs.index(matching: "age > 100"), nil)
        XCTAssertTrue(dogs.allSatisfy { $0.realm == nil }, "the elements stay unmanaged")
        // Through links, and with a primary key.
        let person = Person()
        person.id = 7
        person.dogs.append(objectsIn: [Dog(name: "A", age: 1, color: ""), Dog(name: "B", age: 2, color: "")])
        let people = List<Person>()
        people.append(objectsIn: [Person(), person])
        people[0].id = 6
        XCTAssertEqual(people.index(matching: "ANY dogs.name == 'B'"), 1)
        XCTAssertEqual(people.index(matching: "dogs.@count == 0"), 0)
        // Nothing was added to the default realm.
        XCTAssertEqual(try Realm().objects(Dog.self).count, 0)
    }

    func testEmbeddedObjects() throws {
        // RealmSwift evaluates the predicate on each unmanaged element,
        // embedded objects as any other (RLMArray's indexOfObjectWithPredicate:).
        let nodes = List<CopyNode>()
        nodes.append(objectsIn: [CopyNode(value: ["value": 1, "leaf": ["value": 10]]),
                                 CopyNode(value: ["value": 2, "leaves": [["value": 20], ["value": 21]]]),
                                 CopyNode(value: ["value": 3])])
        XCTAssertEqual(nodes.index(matching: "value == %@", 2), 1)
        XCTAssertEqual(nodes.index(matching: "leaf.value == 10"), 0)
        XCTAssertEqual(nodes.index(matching: "ANY leaves.value == %d", 21), 1)
        XCTAssertEqual(nodes.index(matching: "leaf == nil AND leaves.@count == 0"), 2)
        XCTAssertNil(nodes.index(matching: "value > 5"))
        XCTAssertEqual(nodes.index(matching: { $0.value >= 2 }), 1)
        XCTAssertNil(nodes.index(matching: { $0.value > 5 }))
        XCTAssertNil(List<CopyNode>().index(matching: "value == 1"))
        XCTAssertTrue(nodes.allSatisfy { $0.realm == nil && $0.leaf?.realm == nil }, "the elements stay unmanaged")
        XCTAssertEqual(nodes.map(\.value), [1, 2, 3])
    }

    func testEmbeddedObjectsWithLinksAndMapsOfLinks() throws {
        let first = ScratchEmbeddedPet(value: ["name": "first", "dog": Dog(name: "Rex", age: 9)])
        let second = ScratchEmbeddedPet(value: ["name": "second"])
        second.dogs["a"] = Dog(name: "Fido", age: 2)
        second.dogs["b"] = .some(nil)
        XCTAssertEqual(second.dogs.count, 2)
        let pets = List<ScratchEmbeddedPet>()
        pets.append(objectsIn: [first, second])
        XCTAssertEqual(pets.index(matching: "dog.name == 'Rex'"), 0)
        XCTAssertEqual(pets.index(matching: "dogs['a'].age == 2"), 1)
        XCTAssertEqual(pets.index(matching: "dogs.@count == 2"), 1)
        XCTAssertEqual(pets.index(matching: "ANY dogs.@values.name == %@", "Fido"), 1)
        XCTAssertNil(pets.index(matching: "dog.age > 10"))
        XCTAssertNil(first.dog?.realm)
        XCTAssertEqual(try Realm().objects(Dog.self).count, 0, "nothing was added to the default realm")
    }

    func testObjectsWithMapsOfLinksAndCycles() throws {
        let ann = ScratchOwner(value: ["name": "Ann"]), bob = ScratchOwner(value: ["name": "Bob"])
        ann.pets["x"] = Dog(name: "Rex", age: 3)
        bob.next = bob
        ann.next = bob
        let owners = List<ScratchOwner>()
        owners.append(objectsIn: [ann, bob])
        XCTAssertEqual(owners.index(matching: "pets['x'].name == 'Rex'"), 0)
        XCTAssertEqual(owners.index(matching: "pets.@count == 0"), 1)
        // The cycle is copied as it is: Bob's next's next is Bob.
        XCTAssertEqual(owners.index(matching: "next.next.next.name == 'Bob' AND name == 'Bob'"), 1)
        XCTAssertEqual(owners.index(matching: "next.next.name == 'Bob'"), 0)
        XCTAssertEqual(owners.index(matching: { $0.next.name == "Bob" }), 0)
        XCTAssertTrue(bob.next === bob && ann.realm == nil)
    }

    func testSelfComparesTheObjects() throws {
        // NSPredicate's `SELF == %@` / `SELF IN %@` on RealmSwift's unmanaged
        // lists: isEqual: (the same instance; the same row for managed
        // objects with a primary key).
        let rex = Dog(name: "Rex", age: 1), fido = Dog(name: "Fido", age: 2)
        let dogs = List<Dog>()
        dogs.append(objectsIn: [rex, fido, rex])
        XCTAssertEqual(dogs.index(matching: "SELF == %@", fido), 1)
        XCTAssertEqual(dogs.index(matching: "self = $0", rex), 0)
        XCTAssertNil(dogs.index(matching: "SELF == %@", Dog(name: "Fido", age: 2)), "an equal copy is another object")
        XCTAssertEqual(dogs.index(matching: "SELF IN %@", [Dog(), fido]), 1)
        XCTAssertNil(dogs.index(matching: "SELF IN %@", [Dog]()))
        let realm = try Realm()
        let keyed = try realm.write { realm.create(Person.self, value: ["id": 5, "name": "Ann"]) }
        let people = List<Person>()
        people.append(objectsIn: [Person(), keyed])
        XCTAssertEqual(people.index(matching: "SELF == %@", realm.object(ofType: Person.self, forPrimaryKey: 5)!), 1)
        let nodes = List<CopyNode>()
        let node = CopyNode(value: ["value": 1])
        nodes.append(objectsIn: [CopyNode(), node])
        XCTAssertEqual(nodes.index(matching: "SELF == %@", node), 1)
    }

    func testABadPredicateTraps() {
        assertTraps("UnmanagedIndexMatching.badPredicate", message: "Invalid predicate")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "UnmanagedIndexMatching.badPredicate": { _ in
            let ints = List<Int>()
            ints.append(1)
            _ = ints.index(matching: "self ==")
        },
    ]
}
