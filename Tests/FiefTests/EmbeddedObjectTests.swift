import Fief
import Foundation
import XCTest

/// Embedded objects behind a to-one link: created in place when assigned,
/// owned by their parent, deleted with it or when replaced.
final class EmbeddedObjectTests: FiefTestCase {
    private func address(_ street: String, _ city: String? = nil) -> Address {
        let address = Address()
        address.street = street
        address.city = city
        return address
    }

    func testAssigningAndAddingCreateInPlace() throws {
        let realm = try Realm()
        let ann = Person(id: 1, name: "Ann")
        ann.address = address("Main St", "Porto")
        XCTAssertEqual(ann.address?.street, "Main St")   // unmanaged: in memory
        try realm.write { realm.add(ann) }
        XCTAssertNotNil(ann.address?.realm)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.address?.city, "Porto")

        let bob = Person(id: 2, name: "Bob")
        let home = address("Elm St")
        try realm.write {
            realm.add(bob)
            bob.address = home
        }
        XCTAssertNotNil(home.realm, "the assigned object itself becomes managed")
        try realm.write { home.city = "Lisbon" }
        XCTAssertEqual(bob.address?.city, "Lisbon")
    }

    func testReplacedClearedAndDeletedWithTheParent() throws {
        let realm = try Realm()
        let ann = Person(id: 1, name: "Ann")
        ann.address = address("First")
        try realm.write { realm.add(ann) }
        let first = ann.address!
        try realm.write { ann.address = address("Second") }
        XCTAssertTrue(first.isInvalidated)
        XCTAssertEqual(ann.address?.street, "Second")
        let second = ann.address!
        try realm.write { ann.address = nil }
        XCTAssertTrue(second.isInvalidated)
        try realm.write { ann.address = address("Third") }
        let third = ann.address!
        try realm.write { realm.delete(ann) }
        XCTAssertTrue(third.isInvalidated)
    }

    func testCreateWithNestedValues() throws {
        let realm = try Realm()
        let person = try realm.write {
            realm.create(Person.self, value: ["id": 7, "name": "Cy", "address": ["street": "Oak", "city": "Faro"]])
        }
        XCTAssertEqual(person.address?.street, "Oak")
        XCTAssertEqual(person.address?.city, "Faro")
        let copy = try realm.write {
            realm.create(Person.self, value: ["id": 8, "name": "Di", "address": address("Pine")])
        }
        XCTAssertEqual(copy.address?.street, "Pine")
    }
}
