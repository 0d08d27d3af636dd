// The key-path recorder: Swift key paths of model classes turned into the
// paths Realm's query language names them by (RealmSwift's `_name(for:)`),
// as sorts, projections, key-path observation and `where {}` use them.

import Fief
import Foundation
import XCTest

/// An embedded object a custom persistable type is stored as.
class CoordinatesObject: EmbeddedObject {
    @Persisted var latitude = 0.0
    @Persisted var longitude = 0.0
}

/// A custom persistable type that keeps the object it is stored as, so
/// key paths can read through `persistableValue` to its properties.
struct Coordinates: CustomPersistable, Hashable {
    typealias PersistedType = CoordinatesObject
    let object: CoordinatesObject
    init(persistedValue: CoordinatesObject) { object = persistedValue }
    var persistableValue: CoordinatesObject { object }
    var latitude: Double { object.latitude }
}

class Venue: Object {
    @Persisted var name = ""
    @Persisted var coordinates: Coordinates?
}

final class KeyPathTests: FiefTestCase {
    func testScalarPropertiesAreTheirNames() {
        XCTAssertEqual(_name(for: \Dog.name), "name")
        XCTAssertEqual(_name(for: \Dog.age), "age")
        XCTAssertEqual(_name(for: \AllTypes.optUUID), "optUUID")
        XCTAssertEqual(_name(for: \Person.id), "id")
    }

    func testToOneLinksAndEmbeddedObjectsAreFollowed() {
        XCTAssertEqual(_name(for: \Dog.favoriteToy), "favoriteToy")
        XCTAssertEqual(_name(for: \Dog.favoriteToy?.name), "favoriteToy.name")
        XCTAssertEqual(_name(for: \Dog.favoriteToy?.id), "favoriteToy.id")
        XCTAssertEqual(_name(for: \Person.address?.city), "address.city")
        XCTAssertEqual(_name(for: \Buddy.buddy?.buddy?.buddy?.name), "buddy.buddy.buddy.name")
    }

    func testListsOfObjectsRecordTheirElementsProperties() {
        XCTAssertEqual(_name(for: \Person.dogs), "dogs")
        XCTAssertEqual(_name(for: \Person.dogs[0].name), "dogs.name")
        XCTAssertEqual(_name(for: \Person.dogs.first?.favoriteToy?.name), "dogs.favoriteToy.name")
        XCTAssertEqual(_name(for: \DogClub.regionalOfficeAddresses[0].city), "regionalOfficeAddresses.city")
        XCTAssertEqual(_name(for: \DogClub.members[0].dogs[0].age), "members.dogs.age")
        XCTAssertEqual(_name(for: \Friend.friends[0].friends[0].name), "friends.friends.name")
        // A list of values is a leaf.
        XCTAssertEqual(_name(for: \ScalarLists.ints), "ints")
        XCTAssertEqual(_name(for: \ScalarLists.ints.count), "ints")
    }

    func testSetsMapsAndLinkingObjects() {
        XCTAssertEqual(_name(for: \Kennel.dogs), "dogs")
        XCTAssertEqual(_name(for: \Kennel.dogs.first?.age), "dogs.age")
        XCTAssertEqual(_name(for: \Kennel.dogsByName), "dogsByName")
        XCTAssertEqual(_name(for: \Kennel.offices), "offices")
        // Through a map subscript: the key is no part of the path (as in RealmSwift).
        XCTAssertEqual(_name(for: \Kennel.dogsByName["rex"]??.name), "dogsByName.name")
        XCTAssertEqual(_name(for: \Kennel.dogsByName["a"]??.favoriteToy?.name), "dogsByName.favoriteToy.name")
        XCTAssertEqual(_name(for: \Kennel.offices["hq"]??.city), "offices.city")
        XCTAssertEqual(_name(for: \Person.clubs), "clubs")
        XCTAssertEqual(_name(for: \DogToy.dogs), "dogs")
        XCTAssertEqual(_name(for: \DogToy.dogs.count), "dogs")
        // Through the linking objects, as through a list.
        XCTAssertEqual(_name(for: \Person.clubs.first?.name), "clubs.name")
        XCTAssertEqual(_name(for: \DogToy.dogs[0].favoriteToy?.name), "dogs.favoriteToy.name")
    }

    func testEnumsAndCustomPersistableTypes() {
        XCTAssertEqual(_name(for: \Profile.mood), "mood")
        XCTAssertEqual(_name(for: \Profile.mood.rawValue), "mood")
        XCTAssertEqual(_name(for: \Profile.optLevel), "optLevel")
        XCTAssertEqual(_name(for: \Profile.homepage.host), "homepage")
        XCTAssertEqual(_name(for: \Profile.temperature.degrees), "temperature")
        // Through the object a custom type is stored as, when it keeps it.
        XCTAssertEqual(_name(for: \Venue.coordinates?.persistableValue.latitude), "coordinates.latitude")
        XCTAssertEqual(_name(for: \Venue.coordinates?.latitude), "coordinates.latitude")
        // Point copies its object's values: only the property itself is read.
        XCTAssertEqual(_name(for: \Shape.origin), "origin")
        XCTAssertEqual(_name(for: \Shape.origin?.x), "origin")
        XCTAssertEqual(_name(for: \Shape.origin?.persistableValue.y), "origin")
    }

    func testComputedPropertiesRecordWhatTheyRead() {
        XCTAssertEqual(_name(for: \Dog.firstLetter), "name")
        XCTAssertEqual(_name(for: \CRUDGuide.Dog.firstLetter), "name")
    }

    func testInheritedProperties() {
        XCTAssertEqual(_name(for: \Cat.species), "species")
        XCTAssertEqual(_name(for: \Cat.lives), "lives")
        XCTAssertEqual(_name(for: \Animal.tag), "tag")
    }

    func testRecordingLeavesNoTraceOnObjects() throws {
        _ = _name(for: \Dog.favoriteToy?.name)
        let dog = Dog()
        XCTAssertNil(dog.favoriteToy)
        XCTAssertEqual(dog.name, "")
        let realm = try Realm()
        try realm.write { realm.add(dog) }
        XCTAssertEqual(realm.objects(DogToy.self).count, 0)
    }

    func testSortDescriptorsAndKeyPathSortsUseTheRecorder() throws {
        XCTAssertEqual(SortDescriptor(keyPath: \Dog.favoriteToy?.name).keyPath, "favoriteToy.name")
        XCTAssertEqual(SortDescriptor(keyPath: \Person.address?.city, ascending: false).keyPath, "address.city")
        let realm = try Realm()
        try addDogs(realm)
        XCTAssertEqual(realm.objects(Dog.self).sorted(by: \.name, ascending: false).map(\.name), ["Wolfie", "Spot", "Rex", "Fido", "Bella"])
        XCTAssertEqual(realm.objects(Dog.self).sorted(by: \.firstLetter).first?.name, "Bella")
    }

    func testAKeyPathThatReadsNoPersistedPropertyTraps() {
        assertTraps("keyPathOfPlainProperty",
                         message: "A key path of 'Animal' (")
        assertTraps("sortByPlainProperty", message: "reads no persisted property")
    }

    static let trapScenarios: [String: @Sendable () -> Void] = [
        "keyPathOfPlainProperty": { _ = _name(for: \Animal.notPersisted) },
        "sortByPlainProperty": { _ = SortDescriptor(keyPath: \Cat.notPersisted) },
    ]
}
