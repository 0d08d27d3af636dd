import Fief
import Foundation
import XCTest

/// The stringly typed API: classes and properties by name, as migrations
/// and generic tools use them.
final class DynamicAPITests: FiefTestCase {
    func testReadTypedObjectsDynamically() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write {
            let toy = DogToy()
            toy.name = "Ball"
            let dog = Dog(name: "Rex", age: 3, color: "tan")
            dog.favoriteToy = toy
            realm.add(dog)
            realm.add(Dog(name: "Fido", age: 1))
        }
        let dogs = realm.dynamicObjects("Dog")
        XCTAssertEqual(dogs.count, 2)
        let rex = try XCTUnwrap(dogs.filter("name == %@", "Rex").first)
        XCTAssertEqual(rex["age"] as? Int, 3)
        XCTAssertEqual(rex.color as? String, "tan")
        XCTAssertEqual(rex.objectSchema.className, "Dog")
        XCTAssertTrue(rex.description.hasPrefix("Dog {"), rex.description)
        let toy = try XCTUnwrap(rex["favoriteToy"] as? DynamicObject)
        XCTAssertEqual(toy["name"] as? String, "Ball")
        XCTAssertEqual(toy.objectSchema.className, "DogToy")
        XCTAssertNil(dogs.filter("name == 'Fido'").first?["favoriteToy"])
        XCTAssertEqual(dogs.sorted(byKeyPath: "age").map { $0["name"] as? String }, ["Fido", "Rex"])
        XCTAssertEqual(dogs.max(ofProperty: "age") as Int?, 3)

        try realm.write {
            rex["age"] = 4
            rex.color = "brown"
        }
        XCTAssertEqual(realm.objects(Dog.self).filter("name == 'Rex'").first?.age, 4)
        XCTAssertEqual(realm.objects(Dog.self).filter("name == 'Rex'").first?.color, "brown")
    }

    func testCreateAndLookUpByPrimaryKey() throws {
        let realm = try Realm(configuration: fileConfiguration())
        _ = realm.objects(Person.self)                      // puts Person in the file
        try realm.write {
            let person = realm.dynamicCreate("Person", value: ["id": 1, "name": "Ann"])
            XCTAssertEqual(person["city"] as Any? as? String, nil)
            realm.dynamicCreate("Person", value: [2, "Bo", "Oslo"])
            realm.dynamicCreate("Person", value: ["id": 1, "city": "Bergen"], update: .modified)
        }
        let ann = try XCTUnwrap(realm.dynamicObject(ofType: "Person", forPrimaryKey: 1))
        XCTAssertEqual(ann["name"] as? String, "Ann")
        XCTAssertEqual(ann["city"] as? String, "Bergen")
        XCTAssertNil(realm.dynamicObject(ofType: "Person", forPrimaryKey: 3))
        // The typed API sees the same rows.
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 2)?.city, "Oslo")
    }

    func testLinksByName() throws {
        let realm = try Realm(configuration: fileConfiguration())
        _ = realm.objects(Dog.self)
        try realm.write {
            let toy = realm.dynamicCreate("DogToy", value: ["name": "Rope"])
            realm.dynamicCreate("Dog", value: ["name": "Rex", "favoriteToy": toy])
            realm.dynamicCreate("Dog", value: ["name": "Spot", "favoriteToy": ["name": "Frisbee"]])
        }
        XCTAssertEqual(realm.objects(DogToy.self).count, 2)
        let spot = try XCTUnwrap(realm.objects(Dog.self).filter("name == 'Spot'").first)
        XCTAssertEqual(spot.favoriteToy?.name, "Frisbee")
        let rope = try XCTUnwrap(realm.dynamicObjects("DogToy").filter("name == 'Rope'").first)
        XCTAssertEqual(realm.dynamicObjects("Dog").filter("favoriteToy == %@", rope).count, 1)
        let rex = try XCTUnwrap(realm.dynamicObjects("Dog").filter("name == 'Rex'").first)
        try realm.write { rex["favoriteToy"] = nil }
        XCTAssertNil(realm.objects(Dog.self).filter("name == 'Rex'").first?.favoriteToy)
    }

    /// A file written by another program: classes this one does not declare.
    func testClassesThisProgramDoesNotDeclare() throws {
        let configuration = fileConfiguration("foreign.realm")
        do {
            // Write with a class named "Gadget"; then read it by name only.
            let realm = try Realm(configuration: Realm.Configuration(fileURL: configuration.fileURL, objectTypes: [Gizmo.self]))
            try realm.write { realm.create(Gizmo.self, value: ["serial": "g-1", "weight": 2.5]) }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: configuration.fileURL, readOnly: true))
        let gadget = try XCTUnwrap(realm.dynamicObjects("Gadget").first)
        XCTAssertEqual(gadget["serial"] as? String, "g-1")
        XCTAssertEqual(gadget["weight"] as? Double, 2.5)
        XCTAssertNil(gadget["note"])
    }

    func testMisuseTraps() {
        assertTraps("unknownClass", message: "Object type 'Unicorn' is not managed by the Realm")
        assertTraps("unknownProperty", message: "Property 'wings' does not exist on class 'Dog'")
        assertTraps("objectsOfObject", message: "Object type 'Object' is not managed by the Realm")
        assertTraps("objectsOfDynamicObject", message: "Object type 'DynamicObject' is not managed by the Realm")
        assertTraps("addDynamicObject", message: "Object type 'DynamicObject' is not managed by the Realm")
        assertTraps("notInObjectTypes", message: "Object type 'Dog' is not managed by the Realm")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "unknownClass": { _ in _ = try Realm().dynamicObjects("Unicorn") },
        "unknownProperty": { test in
            let realm = try Realm()
            try test.addDogs(realm)
            _ = realm.dynamicObjects("Dog").first?["wings"]
        },
        "objectsOfObject": { _ in _ = try Realm().objects(Object.self) },
        "objectsOfDynamicObject": { _ in _ = try Realm().objects(DynamicObject.self) },
        "addDynamicObject": { _ in
            let realm = try Realm()
            try realm.write { realm.add(DynamicObject()) }
        },
        "notInObjectTypes": { test in
            _ = try Realm(configuration: test.fileConfiguration(objectTypes: [DogToy.self])).objects(Dog.self)
        },
    ]
}

/// Stored as "Gadget"; only the foreign-file test uses it.
class Gizmo: Object {
    override class func _realmObjectName() -> String? { "Gadget" }
    @Persisted var serial = ""
    @Persisted var weight = 0.0
    @Persisted var note: String?
}
