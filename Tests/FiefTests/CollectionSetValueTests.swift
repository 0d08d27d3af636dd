import Fief
import Foundation
import XCTest

/// `setValue(_:forKey:)` on collections of objects: Results, List,
/// MutableSet, LinkingObjects and AnyRealmCollection, managed (one
/// fief_results_set_value call) and unmanaged (object by object), with the
/// conversions of key-value coding, and RealmSwift's traps.
final class CollectionSetValueTests: FiefTestCase {
    func testResultsSetEveryObjectThroughTheFile() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write {
            for i in 0..<600 { realm.add(Dog(name: "d\(i)", age: i % 10, color: "tan")) }
        }
        let dogs = realm.objects(Dog.self)
        try realm.write {
            dogs.setValue(NSNumber(value: 12), forKey: "age")
            dogs.setValue("black" as NSString, forKey: "color")
        }
        XCTAssertEqual(dogs.filter("age == 12").count, 600)
        XCTAssertEqual(dogs.filter("color == 'black'").count, 600)
        XCTAssertEqual(Set(dogs.map(\.name)).count, 600, "other properties untouched")
        // Reopened: written to the file.
        let reopened = try Realm(configuration: fileConfiguration())
        XCTAssertEqual(reopened.objects(Dog.self).filter("age == 12 AND color == 'black'").count, 600)
    }

    func testFilteredResultsSetWhatTheyHeldAndLiveResultsFollow() throws {
        let realm = try Realm()
        try addDogs(realm)
        let young = realm.objects(Dog.self).filter("age < 5")
        let byAge = realm.objects(Dog.self).sorted(byKeyPath: "age")
        XCTAssertEqual(young.count, 3)
        XCTAssertEqual(byAge.first?.name, "Fido")
        try realm.write { young.setValue(20, forKey: "age") }
        XCTAssertEqual(young.count, 0)
        XCTAssertEqual(realm.objects(Dog.self).filter("age == 20").map(\.name).sorted(), ["Bella", "Fido", "Spot"])
        XCTAssertEqual(byAge.map(\.name), ["Wolfie", "Rex", "Fido", "Spot", "Bella"])
        // Empty results: nothing to set, nothing checked (as RealmSwift).
        try realm.write { young.setValue("anything", forKey: "noSuchProperty") }
    }

    func testValuesConvertAsKeyValueCodingConverts() throws {
        let realm = try Realm()
        try realm.write {
            realm.add([AllTypes(), AllTypes()])
            realm.add([Person(id: 1, name: "Ann"), Person(id: 2, name: "Bob")])
        }
        let all = realm.objects(AllTypes.self)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let uuid = UUID()
        try realm.write {
            all.setValue(NSNumber(value: 3), forKey: "double")
            all.setValue(7, forKey: "int8")
            all.setValue(NSNumber(value: true), forKey: "bool")
            all.setValue(date as NSDate, forKey: "date")
            all.setValue(Data([1, 2, 3]), forKey: "data")
            all.setValue(uuid, forKey: "optUUID")
            all.setValue(Decimal128(number: 2.5), forKey: "decimal")
            all.setValue(NSNull(), forKey: "optString")
            realm.objects(Person.self).setValue(nil, forKey: "city")
        }
        for object in all {
            XCTAssertEqual(object.double, 3)
            XCTAssertEqual(object.int8, 7)
            XCTAssertTrue(object.bool)
            XCTAssertEqual(object.date, date)
            XCTAssertEqual(object.data, Data([1, 2, 3]))
            XCTAssertEqual(object.optUUID, uuid)
            XCTAssertEqual(object.decimal, Decimal128(number: 2.5))
            XCTAssertNil(object.optString)
        }
        XCTAssertEqual(realm.objects(Person.self).filter("city == nil").count, 2)
    }

    func testLinksToOneObjectOrOneEachFromADictionary() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        // An unmanaged object is added once; every dog links to it.
        let toy = DogToy()
        toy.name = "Ball"
        try realm.write { dogs.setValue(toy, forKey: "favoriteToy") }
        XCTAssertNotNil(toy.realm)
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)
        XCTAssertEqual(toy.dogs.count, 5)
        // A dictionary describes a new object for each dog, as in RealmSwift.
        try realm.write { dogs.setValue(["name": "Rope"], forKey: "favoriteToy") }
        XCTAssertEqual(realm.objects(DogToy.self).filter("name == 'Rope'").count, 5)
        XCTAssertEqual(toy.dogs.count, 0)
        try realm.write { dogs.setValue(nil, forKey: "favoriteToy") }
        XCTAssertEqual(dogs.filter("favoriteToy != nil").count, 0)
    }

    func testMixedValues() throws {
        let realm = try Realm()
        try realm.write { for id in 1...3 { realm.add(MixedHolder(id: id)) } }
        let holders = realm.objects(MixedHolder.self)
        try realm.write { holders.setValue(AnyRealmValue.string("text"), forKey: "value") }
        XCTAssertEqual(holders.map(\.value), [.string("text"), .string("text"), .string("text")])
        try realm.write { holders.setValue(5, forKey: "value") }
        XCTAssertEqual(holders.map(\.value), [.int(5), .int(5), .int(5)])
        let cat = MixedCat(name: "Tom")
        try realm.write { holders.setValue(AnyRealmValue.object(cat), forKey: "value") }
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        XCTAssertEqual(holders.compactMap { $0.value.object(MixedCat.self)?.name }, ["Tom", "Tom", "Tom"])
        // A nested list: each object gets its own copy.
        try realm.write { holders.setValue(AnyRealmValue.fromArray([.int(1), .string("two")]), forKey: "value") }
        for holder in holders {
            XCTAssertEqual(holder.value.listValue.map { Array($0) }, [.int(1), .string("two")])
        }
        try realm.write { holders.first!.value.listValue!.append(.int(3)) }
        XCTAssertEqual(holders.map { $0.value.listValue?.count }, [3, 2, 2])
        try realm.write { holders.setValue(nil, forKey: "value") }
        XCTAssertEqual(holders.map(\.value), [.none, .none, .none])
    }

    func testEmbeddedObjectsAndCollectionProperties() throws {
        let realm = try Realm()
        try realm.write {
            let ann = Person(id: 1, name: "Ann")
            ann.address = Address()
            let bob = Person(id: 2, name: "Bob")
            bob.address = Address()
            realm.add([ann, bob])
        }
        let people = realm.objects(Person.self)
        let addresses = people.compactMap(\.address)
        XCTAssertEqual(addresses.count, 2)
        try realm.write { people.setValue(nil, forKey: "address") }
        XCTAssertTrue(addresses.allSatisfy(\.isInvalidated), "embedded objects go with their link")
        XCTAssertEqual(people.filter("address != nil").count, 0)
        // One object: an unmanaged embedded object is created in place.
        let city = Address()
        city.city = "Oslo"
        try realm.write { people.filter("id == 1").setValue(city, forKey: "address") }
        XCTAssertEqual(people.filter("id == 1").first?.address?.city, "Oslo")
        // A list property: each object gets its own list of the objects.
        let dogs = try addDogs(realm)
        try realm.write { people.setValue(Array(dogs.prefix(2)), forKey: "dogs") }
        XCTAssertEqual(people.map { $0.dogs.map(\.name) }, [["Rex", "Fido"], ["Rex", "Fido"]])
        try realm.write { people.first!.dogs.removeAll() }
        XCTAssertEqual(people.map(\.dogs.count), [0, 2])
    }

    func testListsSetsLinkingObjectsAndAnyRealmCollection() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let toy = DogToy()
        let person = Person(id: 1, name: "Ann")
        let kennel = Kennel(id: 1, name: "K")
        try realm.write {
            realm.add([person])
            person.dogs.append(objectsIn: [dogs[0], dogs[1], dogs[0]])
            realm.add(kennel)
            kennel.dogs.insert(objectsIn: [dogs[2], dogs[3]])
            realm.add(toy)
            dogs[4].favoriteToy = toy
        }
        try realm.write { person.dogs.setValue("listed", forKey: "color") }
        try realm.write { kennel.dogs.setValue("kennelled", forKey: "color") }
        try realm.write { toy.dogs.setValue("loved", forKey: "color") }
        XCTAssertEqual(realm.objects(Dog.self).map(\.color), ["listed", "listed", "kennelled", "kennelled", "loved"])
        let any = AnyRealmCollection(realm.objects(Dog.self).filter("age < 5"))
        try realm.write { any.setValue(100, forKey: "age") }
        XCTAssertEqual(realm.objects(Dog.self).map(\.age), [10, 100, 100, 100, 7])
        try realm.write { AnyRealmCollection(person.dogs).setValue(1, forKey: "age") }
        XCTAssertEqual(realm.objects(Dog.self).map(\.age), [1, 1, 100, 100, 7])
        // Through the RealmCollection protocol, as generic code calls it.
        func setAges<C: RealmCollection>(_ collection: C, to age: Int) { collection.setValue(age, forKey: "age") }
        try realm.write { setAges(toy.dogs, to: 2) }
        XCTAssertEqual(realm.objects(Dog.self).map(\.age), [1, 1, 100, 100, 2])
        // The linking objects of an unmanaged object: none, nothing changes.
        try realm.write { DogToy().dogs.setValue(5, forKey: "age") }
        XCTAssertEqual(realm.objects(Dog.self).filter("age == 5").count, 0)
    }

    func testUnmanagedCollectionsSetEachObject() {
        let list = List<Dog>()
        list.append(objectsIn: [Dog(name: "A", age: 1), Dog(name: "B", age: 2)])
        list.setValue(9, forKey: "age")
        XCTAssertEqual(list.map(\.age), [9, 9])
        let any = AnyRealmCollection(list)
        any.setValue("grey", forKey: "color")
        XCTAssertEqual(list.map(\.color), ["grey", "grey"])
        let set = MutableSet<Dog>()
        set.insert(Dog(name: "C", age: 3))
        set.setValue(NSNumber(value: 4), forKey: "age")
        XCTAssertEqual(set.map(\.age), [4])
    }

    func testErrorsTrap() {
        assertTraps("resultsSetValueOutsideWrite", message: "outside of a write transaction")
        assertTraps("resultsSetValueUnknownKey", message: "Property 'nope' does not exist on class 'Dog'")
        assertTraps("resultsSetValuePrimaryKey", message: "Primary key can't be changed after an object is inserted")
        assertTraps("resultsSetValueWrongType", message: "Invalid value 'x' of type 'String' for 'int' property 'Dog.age'")
        assertTraps("resultsSetValueNullForNonOptional", message: "for 'int' property 'Dog.age'")
        assertTraps("resultsSetValueFrozen", message: "Attempting to modify a frozen object")
        assertTraps("listSetValueOutsideWrite", message: "outside of a write transaction")
        assertTraps("resultsSetValueTwoParentsForOneEmbeddedObject", message: "Cannot set a link to an existing managed embedded object")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "resultsSetValueOutsideWrite": { test in
            let realm = try Realm()
            try test.addDogs(realm)
            realm.objects(Dog.self).setValue(1, forKey: "age")
        },
        "resultsSetValueUnknownKey": { test in
            let realm = try Realm()
            try test.addDogs(realm)
            try realm.write { realm.objects(Dog.self).setValue(1, forKey: "nope") }
        },
        "resultsSetValuePrimaryKey": { _ in
            let realm = try Realm()
            try realm.write { realm.add(Person(id: 1, name: "Ann")) }
            try realm.write { realm.objects(Person.self).setValue(1, forKey: "id") }
        },
        "resultsSetValueWrongType": { test in
            let realm = try Realm()
            try test.addDogs(realm)
            try realm.write { realm.objects(Dog.self).setValue("x", forKey: "age") }
        },
        "resultsSetValueNullForNonOptional": { test in
            let realm = try Realm()
            try test.addDogs(realm)
            try realm.write { realm.objects(Dog.self).setValue(nil, forKey: "age") }
        },
        "resultsSetValueFrozen": { test in
            let realm = try Realm()
            try test.addDogs(realm)
            let frozen = realm.objects(Dog.self).freeze()
            try realm.write { frozen.setValue(1, forKey: "age") }
        },
        "listSetValueOutsideWrite": { test in
            let realm = try Realm()
            let dogs = try test.addDogs(realm)
            let person = Person(id: 1, name: "Ann")
            try realm.write {
                realm.add(person)
                person.dogs.append(dogs[0])
            }
            person.dogs.setValue(1, forKey: "age")
        },
        "resultsSetValueTwoParentsForOneEmbeddedObject": { _ in
            let realm = try Realm()
            try realm.write { realm.add([Person(id: 1, name: "Ann"), Person(id: 2, name: "Bob")]) }
            try realm.write { realm.objects(Person.self).setValue(Address(), forKey: "address") }
        },
    ]
}
