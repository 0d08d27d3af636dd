import Fief
import Foundation
import XCTest

/// `let x = RealmProperty<T?>()` and `let x = RealmOptional<T>()` members,
/// stored as optional columns named as the `let`.
final class RealmPropertyTests: FiefTestCase {
    func testSchemaAndUnmanagedValues() throws {
        let dog = LegacyDog()
        XCTAssertNil(dog.age.value)
        XCTAssertNil(dog.weight.value)
        dog.age.value = 3
        dog.weight.value = 12.5
        XCTAssertEqual(dog.age.value, 3)
        XCTAssertEqual(dog.weight.value, 12.5)
        XCTAssertEqual(RealmOptional<Int>(4).value, 4)

        let realm = try Realm(configuration: fileConfiguration(objectTypes: [LegacyDog.self]))
        let schema = try XCTUnwrap(realm.schema["LegacyDog"])
        XCTAssertEqual(schema.properties.map(\.name), ["name", "age", "weight", "vaccinated", "nickname"])
        XCTAssertEqual(schema["age"]?.type, .int)
        XCTAssertEqual(schema["age"]?.isOptional, true)
        XCTAssertEqual(schema["weight"]?.type, .double)
        XCTAssertEqual(schema["vaccinated"]?.type, .bool)
    }

    func testManagedValuesGoThroughTheFile() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [LegacyDog.self]))
        let dog = LegacyDog()
        dog.name = "Rex"
        dog.age.value = 3
        dog.vaccinated.value = true
        try realm.write { realm.add(dog) }
        // The same row through another instance.
        let read = try XCTUnwrap(realm.objects(LegacyDog.self).first)
        XCTAssertFalse(read === dog)
        XCTAssertEqual(read.age.value, 3)
        XCTAssertEqual(read.vaccinated.value, true)
        XCTAssertNil(read.weight.value)
        try realm.write {
            read.age.value = 4
            read.weight.value = 30
            read.nickname.value = "R"
        }
        XCTAssertEqual(dog.age.value, 4)
        XCTAssertEqual(dog.weight.value, 30)
        XCTAssertEqual(dog.nickname.value, "R")
        XCTAssertEqual(realm.objects(LegacyDog.self).filter("age > 3 AND weight == 30").count, 1)
        try realm.write { read.age.value = nil }
        XCTAssertNil(dog.age.value)
        XCTAssertEqual(realm.objects(LegacyDog.self).filter("age == nil").count, 1)
        // Frozen copies read the row too.
        XCTAssertEqual(dog.freeze().weight.value, 30)
    }

    func testByNameAndFromValues() throws {
        let dog = LegacyDog(value: ["name": "Ace", "age": 2, "weight": 7.5])
        XCTAssertEqual(dog.age.value, 2)
        XCTAssertEqual(dog.weight.value, 7.5)
        XCTAssertEqual(dog["age"] as? Int, 2)
        dog["vaccinated"] = false
        XCTAssertEqual(dog.vaccinated.value, false)
        let realm = try Realm()
        try realm.write {
            realm.add(dog)
            realm.create(LegacyDog.self, value: ["name": "Bo", "age": 9])
        }
        let bo = try XCTUnwrap(realm.objects(LegacyDog.self).filter("name == 'Bo'").first)
        XCTAssertEqual(bo.age.value, 9)
        XCTAssertNil(bo.weight.value)
        XCTAssertEqual(realm.dynamicObjects("LegacyDog").filter("name == 'Ace'").first?["weight"] as? Double, 7.5)
        XCTAssertTrue(bo.description.contains("age = 9"), bo.description)
    }
}
