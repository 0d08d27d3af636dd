import CFief
import Fief
import Foundation
import XCTest

// Models with custom stored names (RealmSwift's `propertiesMapping()`),
// after RealmSwift's ModernCustomObject tests: the Swift name is what code
// uses, the stored name is what the file holds.

class MappedPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var age = 0
    @Persisted var best: MappedPerson?
    @Persisted var pets: List<MappedPet>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var address: MappedAddress?
    @Persisted var nickname = ""

    override class func propertiesMapping() -> [String: String] {
        ["id": "_id", "firstName": "first_name", "age": "custom_age", "best": "custom_best", "pets": "custom_pets",
         "tags": "custom_tags", "scores": "custom_scores", "address": "custom_address"]
    }
}

class MappedPet: Object {
    @Persisted var petName = ""
    @Persisted var owner: MappedPerson?
    @Persisted(originProperty: "pets") var keepers: LinkingObjects<MappedPerson>

    override class func propertiesMapping() -> [String: String] {
        ["petName": "pet_name", "owner": "custom_owner"]
    }
}

class MappedAddress: EmbeddedObject {
    @Persisted var city = ""

    override class func propertiesMapping() -> [String: String] { ["city": "custom_city"] }
}

/// `propertiesMapping()` (issue 20, item 4).
final class PropertiesMappingTests: FiefTestCase {
    private var configuration: Realm.Configuration {
        fileConfiguration(objectTypes: [MappedPerson.self, MappedPet.self, MappedAddress.self])
    }

    /// Ann (30, pets Tom and Kit, best friend Bob, city Oslo) and Bob (25).
    private func addPeople(_ realm: Realm) throws {
        try realm.write {
            let bob = realm.create(MappedPerson.self, value: ["id": 2, "firstName": "Bob", "age": 25])
            let ann = MappedPerson(value: ["id": 1, "firstName": "Ann", "age": 30, "tags": ["a", "b"], "scores": ["x": 5],
                                           "address": ["city": "Oslo"], "nickname": "A"])
            ann.best = bob
            ann.pets.append(objectsIn: [MappedPet(value: ["petName": "Tom"]), MappedPet(value: ["petName": "Kit"])])
            realm.add(ann)
            ann.pets.forEach { $0.owner = ann }
        }
    }

    /// The names of class `className`'s properties as the file stores them,
    /// read through the C API (no Swift class involved).
    private func storedNames(_ className: String) throws -> [String] {
        let config = try XCTUnwrap(fief_config_new())
        defer { fief_release(UnsafeRawPointer(config)) }
        XCTAssertTrue(fief_config_set_path(config, configuration.fileURL!.path))
        let realm = try XCTUnwrap(fief_realm_open(config))
        defer { fief_release(UnsafeRawPointer(realm)) }
        let schema = try XCTUnwrap(fief_realm_get_schema(realm))
        defer { fief_release(UnsafeRawPointer(schema)) }
        var cls = fief_class_info_t()
        var classIndex = 0
        var found = false
        XCTAssertTrue(fief_schema_find_class(schema, className, &cls, &classIndex, &found))
        XCTAssertTrue(found)
        return (0..<cls.num_properties).compactMap { i in
            var property = fief_property_info_t()
            guard fief_schema_get_property(schema, classIndex, i, &property), let name = property.name else { return nil }
            return String(cString: name)
        }
    }

    func testTheSchemaShowsSwiftNamesAndTheFileHoldsStoredNames() throws {
        let realm = try Realm(configuration: configuration)
        let person = try XCTUnwrap(realm.schema["MappedPerson"])
        XCTAssertEqual(person.properties.map(\.name), ["id", "firstName", "age", "best", "pets", "tags", "scores", "address", "nickname"])
        XCTAssertEqual(person["firstName"]?.columnName, "first_name")
        XCTAssertEqual(person["id"]?.columnName, "_id")
        XCTAssertEqual(person["nickname"]?.columnName, "nickname")
        XCTAssertEqual(person.primaryKeyProperty?.name, "id")
        XCTAssertEqual(realm.schema["MappedAddress"]?["city"]?.columnName, "custom_city")
        XCTAssertEqual(try storedNames("MappedPerson"),
                       ["_id", "first_name", "custom_age", "custom_best", "custom_pets", "custom_tags", "custom_scores", "custom_address", "nickname"])
        XCTAssertTrue(try storedNames("MappedPet").starts(with: ["pet_name", "custom_owner"]))
        XCTAssertEqual(try storedNames("MappedAddress"), ["custom_city"])
    }

    func testObjectsKVCAndReopeningGoThroughTheStoredNames() throws {
        let realm = try Realm(configuration: configuration)
        try addPeople(realm)
        let ann = try XCTUnwrap(Realm(configuration: configuration).object(ofType: MappedPerson.self, forPrimaryKey: 1))
        XCTAssertEqual(ann.firstName, "Ann")
        XCTAssertEqual(ann.best?.firstName, "Bob")
        XCTAssertEqual(ann.pets.map(\.petName), ["Tom", "Kit"])
        XCTAssertEqual(ann.address?.city, "Oslo")
        XCTAssertEqual(ann.scores["x"], 5)
        XCTAssertEqual(ann["firstName"] as? String, "Ann")
        try realm.write { ann["age"] = 31 }
        XCTAssertEqual(ann.age, 31)
        XCTAssertEqual(ann.pets.first?.keepers.first?.firstName, "Ann")
        let dynamic = try XCTUnwrap(realm.dynamicObjects("MappedPerson").filter("firstName == 'Ann'").first)
        XCTAssertEqual(dynamic["firstName"] as? String, "Ann")
        XCTAssertEqual(dynamic.objectSchema["firstName"]?.columnName, "first_name")
    }

    func testQueriesSortsAndDistinctAcceptSwiftAndStoredNames() throws {
        let realm = try Realm(configuration: configuration)
        try addPeople(realm)
        let people = realm.objects(MappedPerson.self)
        XCTAssertEqual(people.filter("firstName == 'Ann'").count, 1)
        XCTAssertEqual(people.filter("first_name == 'Ann'").count, 1)
        XCTAssertEqual(people.filter("age > %@ AND firstName BEGINSWITH 'B'", 20).map(\.id), [2])
        XCTAssertEqual(people.filter("best.firstName == 'Bob'").map(\.id), [1])
        XCTAssertEqual(people.filter("ANY pets.petName == 'Kit'").map(\.id), [1])
        XCTAssertEqual(people.filter("pets.@count == 2").map(\.id), [1])
        XCTAssertEqual(people.filter("address.city == 'Oslo'").map(\.id), [1])
        XCTAssertEqual(people.filter("'a' IN tags").map(\.id), [1])
        XCTAssertEqual(people.filter("scores['x'] == 5").map(\.id), [1])
        XCTAssertEqual(people.filter("firstName == 'firstName'").count, 0)
        XCTAssertEqual(people.where { $0.firstName == "Ann" && $0.best.age == 25 }.map(\.id), [1])
        XCTAssertEqual(realm.objects(MappedPet.self).filter("owner.firstName == 'Ann'").count, 2)
        XCTAssertEqual(realm.objects(MappedPet.self).filter("ANY keepers.firstName == 'Ann'").count, 2)
        XCTAssertEqual(people.sorted(byKeyPath: "firstName", ascending: false).map(\.firstName), ["Bob", "Ann"])
        XCTAssertEqual(people.sorted(by: \.age).map(\.firstName), ["Bob", "Ann"])
        XCTAssertEqual(people.distinct(by: ["nickname"]).count, 2)
        XCTAssertEqual(people.max(ofProperty: "age") as Int?, 30)
        XCTAssertEqual(_name(for: \MappedPerson.best?.firstName), "best.firstName")
    }

    func testKeyPathArgumentsAreMappedToStoredNames() throws {
        let realm = try Realm(configuration: configuration)
        try addPeople(realm)
        let people = realm.objects(MappedPerson.self)
        XCTAssertEqual(people.filter("%K == %@", "firstName", "Ann").map(\.id), [1])
        XCTAssertEqual(people.filter("%K == %@", "first_name", "Ann").map(\.id), [1])
        // `%K` counts among the arguments as `%@` and numbers do; quotes hide it.
        XCTAssertEqual(people.filter("age > %d AND %K == %@ AND nickname != '%K'", 20, "best.firstName", "Bob").map(\.id), [1])
        XCTAssertEqual(people.filter("ANY %K == %@", "pets.petName", "Kit").map(\.id), [1])
        XCTAssertEqual(people.filter("%K.@count == 2", "pets").map(\.id), [1])
        XCTAssertEqual(people.filter("%K == %@", "address.city", "Oslo").map(\.id), [1])
        XCTAssertEqual(people.filter("$K1 == $0", "Bob", "firstName").map(\.id), [2])
        XCTAssertEqual(realm.objects(MappedPet.self).filter("%K == %@", "owner.firstName", "Ann").count, 2)
        // A string compared with `%@` stays as it is.
        XCTAssertEqual(people.filter("nickname == %@ OR %K == %@", "firstName", "age", 25).map(\.id), [2])
    }
}

/// Key paths through linking objects and inside subqueries, mapped as
/// RealmSwift maps every key path: property by property, through the class
/// each step reaches (its query builder resolves linking objects to their
/// origin property's stored name, and a subquery's variable to the class of
/// the collection it ranges over).
final class PropertiesMappingPathTests: FiefTestCase {
    private var configuration: Realm.Configuration {
        fileConfiguration(objectTypes: [MappedPerson.self, MappedPet.self, MappedAddress.self])
    }

    /// Ann (pets Tom and Kit, best friend Bob), Bob (pet Rex), Cy (no pets).
    private func addPeople(_ realm: Realm) throws {
        try realm.write {
            let bob = realm.create(MappedPerson.self, value: ["id": 2, "firstName": "Bob", "age": 25,
                                                            "pets": [["petName": "Rex"]]])
            realm.create(MappedPerson.self, value: ["id": 3, "firstName": "Cy", "age": 40])
            realm.create(MappedPerson.self, value: ["id": 1, "firstName": "Ann", "age": 30, "best": bob,
                                                   "pets": [["petName": "Tom"], ["petName": "Kit"]]])
        }
    }

    func testKeyPathArgumentsThroughLinkingObjectsAreMapped() throws {
        let realm = try Realm(configuration: configuration)
        try addPeople(realm)
        let pets = realm.objects(MappedPet.self)
        XCTAssertEqual(pets.filter("ANY %K == %@", "keepers.firstName", "Ann").map(\.petName).sorted(), ["Kit", "Tom"])
        XCTAssertEqual(pets.filter("ANY %K > %d", "keepers.age", 26).map(\.petName).sorted(), ["Kit", "Tom"])
        XCTAssertEqual(pets.filter("%K.@count == 1", "keepers").count, 3)
        XCTAssertEqual(pets.filter("ANY %K == %@", "keepers.best.firstName", "Bob").map(\.petName).sorted(), ["Kit", "Tom"])
        // Through a link to a class whose linking objects are then followed.
        let people = realm.objects(MappedPerson.self)
        XCTAssertEqual(people.filter("ANY %K == %@", "pets.keepers.firstName", "Bob").map(\.id), [2])
        XCTAssertEqual(people.sorted(byKeyPath: "id").filter("ANY pets.keepers.age == %@", 30).map(\.id), [1])
    }

    func testSubqueryVariablePathsAreMapped() throws {
        let realm = try Realm(configuration: configuration)
        try addPeople(realm)
        let people = realm.objects(MappedPerson.self)
        XCTAssertEqual(people.filter("SUBQUERY(pets, $p, $p.petName == 'Kit').@count > 0").map(\.id), [1])
        XCTAssertEqual(people.filter("SUBQUERY(pets, $p, $p.petName BEGINSWITH %@ AND $p.owner == nil).@count == 1", "R").map(\.id), [2])
        XCTAssertEqual(people.filter("subquery( pets , $pet , $pet.petName != 'Rex' ).@count == 2").map(\.id), [1])
        // The variable reaches on: through linking objects, and a nested subquery.
        XCTAssertEqual(people.filter("SUBQUERY(pets, $p, ANY $p.keepers.best.firstName == 'Bob').@count == 2").map(\.id), [1])
        XCTAssertEqual(people.filter("SUBQUERY(pets, $p, SUBQUERY($p.keepers, $k, $k.age >= 30).@count > 0).@count > 0").map(\.id), [1])
        // Through a link before the collection, and beside other mapped names.
        XCTAssertEqual(people.filter("firstName == 'Ann' AND SUBQUERY(best.pets, $p, $p.petName == 'Rex').@count == 1").map(\.id), [1])
        // A string that looks like a variable path stays as it is.
        XCTAssertEqual(people.filter("SUBQUERY(pets, $p, $p.petName == '$p.petName').@count == 0").count, 3)
        let pets = realm.objects(MappedPet.self)
        XCTAssertEqual(pets.filter("SUBQUERY(keepers, $k, $k.firstName == 'Bob').@count == 1").map(\.petName), ["Rex"])
    }
}
