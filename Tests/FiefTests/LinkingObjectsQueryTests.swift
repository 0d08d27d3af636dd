import Fief
import Foundation
import XCTest

/// Queries naming linking-objects properties (the CRUD-Read page's
/// "Inverse relationship": `Person.clubs`, `@Persisted(originProperty:
/// "members")`, and `DogToy.dogs`, from `Dog.favoriteToy`): the schema the
/// overlay builds declares them to the C layer, so `filter` and `where`
/// name them as RealmSwift does.
final class LinkingObjectsQueryTests: FiefTestCase {
    /// Ann and Bob in Pooch Pals, Ann in Barkers, Cy in no club.
    private func addClubs(_ realm: Realm) throws -> (ann: Person, bob: Person, cy: Person, pals: DogClub, barkers: DogClub) {
        let ann = Person(id: 1, name: "Ann"), bob = Person(id: 2, name: "Bob"), cy = Person(id: 3, name: "Cy")
        let pals = DogClub(name: "Pooch Pals", addresses: []), barkers = DogClub(name: "Barkers", addresses: [])
        try realm.write {
            realm.add([ann, bob, cy])
            realm.add([pals, barkers])
            pals.members.append(objectsIn: [ann, bob])
            barkers.members.append(ann)
        }
        return (ann, bob, cy, pals, barkers)
    }

    private func names(_ results: Results<Person>) -> [String] { results.map(\.name).sorted() }

    func testFilterNamesLinkingObjects() throws {
        let realm = try Realm(configuration: fileConfiguration())
        let (ann, _, _, pals, barkers) = try addClubs(realm)
        let people = realm.objects(Person.self)
        XCTAssertEqual(names(people.filter("ANY clubs.name == %@", "Pooch Pals")), ["Ann", "Bob"])
        XCTAssertEqual(names(people.filter("clubs.name == %@", "Barkers")), ["Ann"])
        XCTAssertEqual(names(people.filter("clubs.@count > 1")), ["Ann"])
        XCTAssertEqual(names(people.filter("clubs.@count == 0")), ["Cy"])
        XCTAssertEqual(names(people.filter("NONE clubs.name BEGINSWITH 'B'")), ["Bob", "Cy"])
        XCTAssertEqual(names(people.filter("SUBQUERY(clubs, $c, $c.name BEGINSWITH 'P').@count > 0")), ["Ann", "Bob"])
        XCTAssertEqual(names(people.filter("%@ IN clubs", barkers)), ["Ann"])
        XCTAssertEqual(names(people.filter("ANY clubs.members.name == 'Bob' AND name != 'Bob'")), ["Ann"])
        // The same objects as @links.
        XCTAssertEqual(names(people.filter("ANY clubs.name == %@", "Pooch Pals")),
                       names(people.filter("ANY @links.DogClub.members.name == %@", "Pooch Pals")))
        // As a key-path argument (`%K`, `$K0`), as RealmSwift resolves it.
        XCTAssertEqual(names(people.filter("ANY %K == %@", "clubs.name", "Barkers")), ["Ann"])
        XCTAssertEqual(names(people.filter("%K.@count == 0", "clubs")), ["Cy"])
        XCTAssertEqual(names(people.filter("ANY $K0 == $1", "clubs.members.name", "Bob")), ["Ann", "Bob"])
        // Live: a later write shows.
        let inTwo = people.filter("clubs.@count == 2")
        XCTAssertEqual(names(inTwo), ["Ann"])
        try realm.write { barkers.members.append(realm.object(ofType: Person.self, forPrimaryKey: 2)!) }
        XCTAssertEqual(names(inTwo), ["Ann", "Bob"])
        // Through a link to the class: the clubs of a club's members.
        XCTAssertEqual(realm.objects(DogClub.self).filter("ANY members.clubs.name == 'Barkers'").map(\.name).sorted(),
                       ["Barkers", "Pooch Pals"])
        // Reading them still gives the live linking objects.
        XCTAssertEqual(Set(ann.clubs.map(\.name)), ["Pooch Pals", "Barkers"])
        XCTAssertEqual(pals.members.count, 2)
    }

    func testWhereNamesLinkingObjects() throws {
        let realm = try Realm()
        let (_, _, _, pals, _) = try addClubs(realm)
        let people = realm.objects(Person.self)
        XCTAssertEqual(names(people.where { $0.clubs.name == "Pooch Pals" }), ["Ann", "Bob"])
        XCTAssertEqual(names(people.where { $0.clubs.count > 1 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.clubs.count == 0 || $0.name == "Bob" }), ["Bob", "Cy"])
        XCTAssertEqual(names(people.where { ($0.clubs.name.starts(with: "B")).count > 0 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.clubs.contains(pals) }), ["Ann", "Bob"])
        XCTAssertEqual(names(people.where { !$0.clubs.containsAny(in: [pals]) }), ["Cy"])
        XCTAssertEqual(names(people.where { $0.clubs.members.name == "Bob" && $0.name != "Bob" }), ["Ann"])
    }

    /// Aggregates through linking objects: the dogs whose favorite toy a toy is.
    func testAggregatesThroughLinkingObjects() throws {
        let realm = try Realm()
        let ball = DogToy(), rope = DogToy(), bone = DogToy()
        ball.name = "ball"
        rope.name = "rope"
        bone.name = "bone"
        let dogs = [Dog(name: "Rex", age: 10), Dog(name: "Fido", age: 1), Dog(name: "Spot", age: 3)]
        try realm.write {
            realm.add([ball, rope, bone])
            dogs[0].favoriteToy = ball
            dogs[1].favoriteToy = ball
            dogs[2].favoriteToy = rope
            realm.add(dogs)
        }
        let toys = realm.objects(DogToy.self)
        func toyNames(_ results: Results<DogToy>) -> [String] { results.map(\.name).sorted() }
        XCTAssertEqual(toyNames(toys.filter("dogs.@avg.age > 5")), ["ball"])
        XCTAssertEqual(toyNames(toys.filter("dogs.@sum.age == 3")), ["rope"])
        XCTAssertEqual(toyNames(toys.filter("dogs.@min.age < 2")), ["ball"])
        XCTAssertEqual(toyNames(toys.filter("dogs.@max.age >= 3")), ["ball", "rope"])
        XCTAssertEqual(toyNames(toys.filter("dogs.@count == 0")), ["bone"])
        XCTAssertEqual(toyNames(toys.where { $0.dogs.age.avg > 5 }), ["ball"])
        XCTAssertEqual(toyNames(toys.where { $0.dogs.age.max == 3 }), ["rope"])
        XCTAssertEqual(toyNames(toys.where { $0.dogs.count == 2 }), ["ball"])
        XCTAssertEqual(toyNames(toys.where { $0.dogs.name == "Spot" }), ["rope"])
        XCTAssertEqual(realm.objects(Dog.self).filter("favoriteToy.dogs.@count == 2").map(\.name).sorted(), ["Fido", "Rex"])
    }

    /// Linking objects are computed: the schema lists them as RealmSwift
    /// does (not among `properties`), the file does not store them, and a
    /// realm reopened with the same models needs no migration.
    func testLinkingObjectsAreNotStored() throws {
        let configuration = fileConfiguration(objectTypes: [Person.self, DogClub.self, Dog.self, DogToy.self, Address.self])
        do {
            let realm = try Realm(configuration: configuration)
            _ = try addClubs(realm)
            XCTAssertNil(realm.schema["Person"]?["clubs"])
            XCTAssertEqual(realm.schema["Person"]?.properties.map(\.name), ["id", "name", "city", "address", "dogs"])
        }
        let again = try Realm(configuration: configuration)
        XCTAssertEqual(names(again.objects(Person.self).filter("clubs.@count > 0")), ["Ann", "Bob"])
        // Without DogClub in the realm, Person's clubs cannot be declared (nor queried).
        var partial = fileConfiguration("partial.realm", objectTypes: [Person.self, Dog.self, DogToy.self, Address.self])
        partial.schemaVersion = 0
        let lone = try Realm(configuration: partial)
        try lone.write { lone.add(Person(id: 1, name: "Ann")) }
        XCTAssertEqual(lone.objects(Person.self).count, 1)
        XCTAssertEqual(lone.objects(DogToy.self).filter("dogs.@count == 0").count, 0)
    }
}
