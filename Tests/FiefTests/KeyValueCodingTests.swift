import Fief
import Foundation
import XCTest

/// Objects by property name: `value(forKey:)`, `setValue(_:forKey:)`,
/// `subscript(key:)` on managed and unmanaged objects, and `init(value:)`.
final class KeyValueCodingTests: FiefTestCase {
    func testUnmanagedGetAndSet() {
        let dog = Dog(name: "Rex", age: 3)
        XCTAssertEqual(dog["name"] as? String, "Rex")
        dog["name"] = "Max"
        dog.setValue(NSNumber(value: 4), forKey: "age")
        dog["color"] = "tan" as NSString
        XCTAssertEqual(dog.name, "Max")
        XCTAssertEqual(dog.age, 4)
        XCTAssertEqual(dog.color, "tan")
        XCTAssertEqual(dog.value(forKey: "age") as? Int, 4)
        XCTAssertNil(dog["favoriteToy"])
        dog["favoriteToy"] = ["name": "Ball"]
        XCTAssertEqual(dog.favoriteToy?.name, "Ball")
        let person = Person()
        person["city"] = "Oslo"
        XCTAssertEqual(person.city, "Oslo")
        person["city"] = nil
        XCTAssertNil(person.city)
        person.setValue(NSNull(), forKey: "city")
        XCTAssertNil(person.city)
    }

    func testManagedGetAndSetGoThroughTheFile() throws {
        let realm = try Realm(configuration: fileConfiguration())
        let dog = Dog(name: "Rex", age: 3)
        try realm.write { realm.add(dog) }
        try realm.write {
            dog["age"] = 5
            dog.setValue("black", forKey: "color")
            dog["favoriteToy"] = ["name": "Rope"]
        }
        let read = try XCTUnwrap(realm.objects(Dog.self).first)
        XCTAssertEqual(read.age, 5)
        XCTAssertEqual(read["color"] as? String, "black")
        let toy = try XCTUnwrap(read["favoriteToy"] as? DogToy)
        XCTAssertEqual(toy.name, "Rope")
        XCTAssertNotNil(toy.realm)
        // Linking objects by key.
        let dogs = try XCTUnwrap(toy["dogs"] as? LinkingObjects<Dog>)
        XCTAssertEqual(dogs.count, 1)
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)
        try realm.write { read["favoriteToy"] = nil }
        XCTAssertNil(dog.favoriteToy)
    }

    func testEmbeddedObjectKeyValueCoding() throws {
        let realm = try Realm()
        let person = Person(id: 1, name: "Ann")
        person["address"] = ["city": "Bergen"]
        XCTAssertEqual(person.address?.city, "Bergen")
        try realm.write { realm.add(person) }
        let address = try XCTUnwrap(person.address)
        XCTAssertEqual(address["city"] as? String, "Bergen")
        try realm.write { address["street"] = "Bryggen 1" }
        XCTAssertEqual(realm.objects(Person.self).first?.address?.street, "Bryggen 1")
    }

    func testInitWithValue() throws {
        let fromDictionary = Dog(value: ["name": "Rex", "age": 3, "favoriteToy": ["name": "Ball"]])
        XCTAssertEqual(fromDictionary.name, "Rex")
        XCTAssertEqual(fromDictionary.age, 3)
        XCTAssertEqual(fromDictionary.color, "")
        XCTAssertEqual(fromDictionary.favoriteToy?.name, "Ball")
        let fromArray = Person(value: [7, "Bo", "Oslo", ["street": "Karl Johans gate"]])
        XCTAssertEqual(fromArray.id, 7)
        XCTAssertEqual(fromArray.city, "Oslo")
        XCTAssertEqual(fromArray.address?.street, "Karl Johans gate")
        let copy = Dog(value: fromDictionary)
        XCTAssertEqual(copy.name, "Rex")
        XCTAssertTrue(copy.favoriteToy === fromDictionary.favoriteToy)
        let all = AllTypes(value: ["int8": 8, "optDecimal": 1.5, "float": 2.5, "date": Date(timeIntervalSince1970: 9)])
        XCTAssertEqual(all.int8, 8)
        XCTAssertEqual(all.optDecimal, Decimal128(1.5))
        XCTAssertEqual(all.float, 2.5)
        XCTAssertEqual(all.date, Date(timeIntervalSince1970: 9))

        // And the unmanaged objects go into a realm like any other.
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write { realm.add([fromDictionary, copy]) }
        XCTAssertEqual(realm.objects(Dog.self).filter { $0.favoriteToy?.name == "Ball" }.count, 2)
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)
        // A managed object as the value copies its values into an unmanaged one.
        let detached = Dog(value: try XCTUnwrap(realm.objects(Dog.self).first))
        XCTAssertNil(detached.realm)
        XCTAssertEqual(detached.name, "Rex")
    }

    func testErrorsTrap() {
        assertTraps("getUnknownUnmanaged", message: "Property 'nope' does not exist on class 'Dog'")
        assertTraps("getUnknownManaged", message: "Property 'nope' does not exist on class 'Dog'")
        assertTraps("setUnknown", message: "Property 'nope' does not exist on class 'Dog'")
        assertTraps("setWrongType", message: "Invalid value 'old' of type 'String' for 'int' property 'Dog.age'")
        assertTraps("setManagedWrongType", message: "Invalid value 'true' of type 'Bool' for 'string' property 'Dog.name'")
        assertTraps("setOutsideWrite", message: "outside of a write transaction")
        assertTraps("initWithUnknownKey", message: "Invalid property name 'nope' for class 'Dog'")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "getUnknownUnmanaged": { _ in _ = Dog()["nope"] },
        "getUnknownManaged": { _ in
            let realm = try Realm()
            let dog = Dog()
            try realm.write { realm.add(dog) }
            _ = dog.value(forKey: "nope")
        },
        "setUnknown": { _ in Dog().setValue(1, forKey: "nope") },
        "setWrongType": { _ in Dog()["age"] = "old" },
        "setManagedWrongType": { _ in
            let realm = try Realm()
            let dog = Dog()
            try realm.write {
                realm.add(dog)
                dog["name"] = true
            }
        },
        "setOutsideWrite": { _ in
            let realm = try Realm()
            let dog = Dog()
            try realm.write { realm.add(dog) }
            dog["age"] = 3
        },
        "initWithUnknownKey": { _ in _ = Dog(value: ["nope": 1]) },
    ]
}
