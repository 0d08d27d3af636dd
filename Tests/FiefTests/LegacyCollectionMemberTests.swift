import Fief
import Foundation
import XCTest

// Models in the legacy style RealmSwift still accepts: collections and
// optional numbers declared with `let`, next to `@Persisted` properties.

class LegacyKennelDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

class LegacyKennel: Object {
    @Persisted(primaryKey: true) var name = ""
    let dogs = List<LegacyKennelDog>()
    let tags = MutableSet<String>()
    let scores = Map<String, Int>()
    let rating = RealmProperty<Int?>()
}

/// A subclass's legacy members come after its superclass's.
class LegacyShowKennel: LegacyKennel {
    let judges = List<String>()
}

/// `let` List, MutableSet and Map members (issue 20, item 3): persisted as
/// properties named as the `let`, of the collection's kind; the instance an
/// object holds shows the realm's collection once the object is managed.
final class LegacyCollectionMemberTests: FiefTestCase {
    private var configuration: Realm.Configuration {
        fileConfiguration(objectTypes: [LegacyKennel.self, LegacyKennelDog.self, LegacyShowKennel.self])
    }

    func testSchemaNamesAndKinds() throws {
        let realm = try Realm(configuration: configuration)
        let schema = try XCTUnwrap(realm.schema["LegacyKennel"])
        XCTAssertEqual(schema.properties.map(\.name), ["name", "dogs", "tags", "scores", "rating"])
        XCTAssertTrue(try XCTUnwrap(schema["dogs"]).isArray)
        XCTAssertEqual(schema["dogs"]?.type, .object)
        XCTAssertEqual(schema["dogs"]?.objectClassName, "LegacyKennelDog")
        XCTAssertEqual(schema["dogs"]?.isOptional, false)
        XCTAssertTrue(try XCTUnwrap(schema["tags"]).isSet)
        XCTAssertEqual(schema["tags"]?.type, .string)
        XCTAssertTrue(try XCTUnwrap(schema["scores"]).isMap)
        XCTAssertEqual(schema["scores"]?.type, .int)
        XCTAssertEqual(schema["rating"]?.type, .int)
        XCTAssertEqual(schema["rating"]?.isOptional, true)
        XCTAssertEqual(realm.schema["LegacyShowKennel"]?.properties.map(\.name),
                       ["name", "dogs", "tags", "scores", "rating", "judges"])
    }

    func testTheHeldInstancesBecomeLive() throws {
        let realm = try Realm(configuration: configuration)
        let kennel = LegacyKennel()
        kennel.name = "North"
        let dogs = kennel.dogs
        kennel.dogs.append(LegacyKennelDog(value: ["name": "Rex", "age": 3]))
        kennel.tags.insert("quiet")
        kennel.scores["agility"] = 7
        kennel.rating.value = 4
        XCTAssertNil(kennel.dogs.realm)
        try realm.write { realm.add(kennel) }
        // The same instance, now live.
        XCTAssertTrue(dogs === kennel.dogs)
        XCTAssertNotNil(kennel.dogs.realm)
        XCTAssertNotNil(kennel.tags.realm)
        XCTAssertNotNil(kennel.scores.realm)
        try realm.write {
            kennel.dogs.append(LegacyKennelDog(value: ["name": "Fido", "age": 1]))
            kennel.tags.insert("clean")
            kennel.scores["obedience"] = 9
        }
        let read = try XCTUnwrap(Realm(configuration: configuration).object(ofType: LegacyKennel.self, forPrimaryKey: "North"))
        XCTAssertFalse(read === kennel)
        XCTAssertEqual(read.dogs.map(\.name), ["Rex", "Fido"])
        XCTAssertEqual(Set(read.tags), ["quiet", "clean"])
        XCTAssertEqual(read.scores["agility"], 7)
        XCTAssertEqual(read.scores["obedience"], 9)
        XCTAssertEqual(read.rating.value, 4)
        // Another instance of the row sees writes through the first.
        try realm.write { kennel.dogs.removeAll() }
        XCTAssertEqual(read.dogs.count, 0)
    }

    func testValuesByNameQueriesAndTheDynamicAPI() throws {
        let realm = try Realm(configuration: configuration)
        let kennel = LegacyKennel(value: ["name": "South", "dogs": [["name": "Bo", "age": 5], ["name": "Al", "age": 2]],
                                          "tags": ["big"], "scores": ["speed": 3], "rating": 2])
        XCTAssertEqual(kennel.dogs.count, 2)
        XCTAssertEqual(kennel.scores["speed"], 3)
        try realm.write {
            realm.add(kennel)
            realm.create(LegacyKennel.self, value: ["name": "East", "tags": ["small", "big"]])
            realm.create(LegacyShowKennel.self, value: ["name": "Show", "judges": ["Ann", "Ben"]])
        }
        XCTAssertEqual(realm.objects(LegacyKennel.self).filter("ANY dogs.age > 4").map(\.name), ["South"])
        XCTAssertEqual(realm.objects(LegacyKennel.self).filter("tags.@count == 2").map(\.name), ["East"])
        XCTAssertEqual(realm.objects(LegacyKennel.self).filter("scores['speed'] == 3").count, 1)
        XCTAssertEqual(realm.objects(LegacyShowKennel.self).first?.judges.map { $0 }, ["Ann", "Ben"])
        XCTAssertEqual((kennel["dogs"] as? List<LegacyKennelDog>)?.count, 2)
        let dynamic = try XCTUnwrap(realm.dynamicObjects("LegacyKennel").filter("name == 'South'").first)
        XCTAssertEqual((dynamic["dogs"] as? List<DynamicObject>)?.count, 2)
        XCTAssertEqual((dynamic["tags"] as? MutableSet<String>)?.contains("big"), true)
        // By name on an unmanaged object.
        let unmanaged = LegacyKennel()
        unmanaged["tags"] = ["a", "b"]
        unmanaged.setValue(["x": 1], forKey: "scores")
        XCTAssertEqual(unmanaged.tags.count, 2)
        XCTAssertEqual(unmanaged.scores["x"], 1)
    }

    func testKeyPathsEndingAtALegacyMemberNameIt() throws {
        XCTAssertEqual(_name(for: \LegacyKennel.dogs), "dogs")
        XCTAssertEqual(_name(for: \LegacyKennel.tags), "tags")
        XCTAssertEqual(_name(for: \LegacyKennel.scores), "scores")
        XCTAssertEqual(_name(for: \LegacyKennel.rating), "rating")
        XCTAssertEqual(_name(for: \LegacyShowKennel.judges), "judges")
        XCTAssertEqual(_name(for: \LegacyDog.age), "age")
        let realm = try Realm(configuration: configuration)
        try realm.write {
            realm.create(LegacyKennel.self, value: ["name": "A", "rating": 3])
            realm.create(LegacyKennel.self, value: ["name": "B", "rating": 1])
        }
        XCTAssertEqual(realm.objects(LegacyKennel.self).sorted(by: [SortDescriptor(keyPath: \LegacyKennel.rating)]).map(\.name), ["B", "A"])
    }
}
