// RealmSwift code from the seed pages (CRUD - Read, Results, protocols),
// restricted to scalar properties: it must compile unchanged with
// `import Fief` in place of `import RealmSwift`.  The functions are compiled,
// and the one test runs the parts that need no relationships.

import Fief
import Foundation
import XCTest

// From the protocols page: these are the public protocol names code refers to.
func acceptsCollectionValue<T: RealmCollectionValue>(_: T.Type) {}
func acceptsFetchable<T: RealmFetchable>(_: T.Type) {}
func acceptsMinMax<T: MinMaxType>(_: T.Type) {}
func acceptsAddable<T: AddableType>(_: T.Type) {}
func acceptsSortable<T: SortableType>(_: T.Type) {}
func acceptsCollection<C: RealmCollection>(_ collection: C) -> Int { collection.count }
func acceptsThreadConfined<T: ThreadConfined>(_ value: T) -> Bool { value.isFrozen }

private func protocolConformances() {
    acceptsCollectionValue(Int.self)
    acceptsCollectionValue(String?.self)
    acceptsCollectionValue(ObjectId.self)
    acceptsCollectionValue(Decimal128.self)
    acceptsCollectionValue(Dog.self)
    acceptsFetchable(Dog.self)
    acceptsMinMax(Date.self)
    acceptsMinMax(Int?.self)
    acceptsAddable(Decimal128.self)
    acceptsSortable(String.self)
}

/// "Find a specific object by primary key" and "Query all objects of a given type".
private func crudReadExamples() throws {
    let realm = try! Realm()
    let specificPerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
    _ = specificPerson

    // Access all dogs in the realm
    let dogs = realm.objects(Dog.self)
    // Filter by age
    let puppies = dogs.filter("age < 2")
    _ = puppies
    let dogToys = realm.objects(DogToy.self)
    // Get specific toy by ObjectId id
    let specificToy = dogToys.filter("id = %@", ObjectId("11223344556677889900aabb")).first
    _ = specificToy

    // Sort
    let dogsSorted = dogs.sorted(byKeyPath: "name", ascending: false)
    let dogsSortedByKeyPath = dogs.sorted(by: \.name)
    _ = (dogsSorted, dogsSortedByKeyPath)

    // Chain queries
    let tanDogs = realm.objects(Dog.self).filter("color = 'tan'")
    let tanDogsWithBNames = tanDogs.filter("name BEGINSWITH 'B'")
    _ = tanDogsWithBNames

    // Sort descriptors
    let descriptors = [SortDescriptor.init(keyPath: "name", ascending: true)]
    _ = dogs.sorted(by: descriptors)

    // Establish an object and add it
    let dog = Dog()
    dog.name = "Rex"
    dog.age = 10
    let person = Person()
    person.id = 12345
    try! realm.write {
        realm.add(person)
        realm.add(dog)
    }
    // Later, query the specific person
    let samePerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
    print("Person: \(samePerson!.name)")

    let losAngelesPeople = realm.objects(Person.self)
        .filter("city = %@", "Los Angeles")
        .sorted(byKeyPath: "name")
    print("Los Angeles Person: \(losAngelesPeople)")
}

/// Members of the Results page.
private func resultsPageExamples(_ realm: Realm) {
    let dogs = realm.objects(Dog.self)
    print("dogs.count: \(dogs.count)")
    let _: String = dogs.description
    let _: Realm? = dogs.realm
    let _: Bool = dogs.isInvalidated
    let _: Int? = dogs.index(of: Dog())
    let _: Dog? = dogs.first
    let _: Dog? = dogs.last
    let _: Dog = dogs[0]
    let _: Results<Dog> = dogs.sorted(byKeyPath: "age", ascending: true)
    let _: Results<Dog> = dogs.sorted(by: [SortDescriptor(keyPath: "age")])
    let _: Int? = dogs.min(ofProperty: "age")
    let _: Int? = dogs.max(ofProperty: "age")
    let _: Int = dogs.sum(ofProperty: "age")
    let _: Double? = dogs.average(ofProperty: "age")
    realm.beginWrite()
    dogs.setValue(3, forKey: "age")
    try? realm.commitWrite()
    let _: Int = dogs.startIndex
    let _: Int = dogs.endIndex
    let _: Int = dogs.index(after: 0)
    let _: Int = dogs.index(before: 1)
    let _: Results<Dog> = dogs.freeze()
    let _: Results<Dog>? = dogs.thaw()
    let _: Bool = dogs.isFrozen
    _ = acceptsCollection(dogs)
    _ = acceptsThreadConfined(dogs)
    _ = acceptsThreadConfined(Dog())
    typealias E = Results<Dog>.ElementType
    for dog in dogs {
        print(dog.name)
    }
}

/// Configuration and lifecycle code as RealmSwift apps write it.
private func configurationExamples() throws {
    var config = Realm.Configuration.defaultConfiguration
    config.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("other.realm")
    config.schemaVersion = 1
    config.deleteRealmIfMigrationNeeded = true
    config.objectTypes = [Dog.self, Person.self, DogToy.self]
    Realm.Configuration.defaultConfiguration = config
    let realm = try Realm(configuration: config)
    let inMemory = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "MyInMemoryRealm"))
    let readOnly = Realm.Configuration(fileURL: config.fileURL, readOnly: true)
    _ = (inMemory, readOnly)
    realm.beginWrite()
    realm.create(Person.self, value: ["id": 1, "name": "Jane"], update: .modified)
    realm.add([Dog(), Dog()])
    try realm.commitWrite()
    realm.refresh()
    let frozenRealm = realm.freeze()
    let frozenDog = frozenRealm.objects(Dog.self).first?.freeze()
    _ = frozenDog?.thaw()
    realm.invalidate()
    _ = try Realm.deleteFiles(for: config)
    do {
        _ = try Realm(fileURL: URL(fileURLWithPath: "/nonexistent/x.realm"))
    } catch let error as Realm.Error where error.code == .fileAccess {
        print(error.localizedDescription)
    } catch Realm.Error.filePermissionDenied {
        print("denied")
    }
}

final class SeedCompileTests: FiefTestCase {
    func testSeedExamplesRun() throws {
        protocolConformances()
        // Keep the in-memory realm alive across the example (it vanishes with its last handle).
        let realm = try Realm()
        try crudReadExamples()
        XCTAssertEqual(realm.objects(Person.self).count, 1)
        XCTAssertEqual(realm.objects(Dog.self).filter("age < 2").count, 0)
        XCTAssertEqual(realm.objects(Dog.self).sorted(by: \.name).first?.name, "Rex")
        resultsPageExamples(realm)
    }

    /// Compile-only: referenced so the compiler keeps it, never run.
    func testConfigurationExamplesCompile() {
        let examples: () throws -> Void = configurationExamples
        XCTAssertNotNil(examples as Any)
    }
}
