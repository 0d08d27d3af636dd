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

// MARK: - The CRUD-Read guide's `where {}` examples

extension CRUDGuide {
    /// The guide's club with a URL (a custom persisted type), stored as "GuideClub".
    class Club: Object {
        override class func _realmObjectName() -> String? { "GuideClub" }
        @Persisted var name = ""
        @Persisted var url = URL(string: "https://example.com")!
    }

    /// Every `where {}` example of the guide, as written (the guide's Dog and
    /// DogToy are CRUDGuide's; Person is the tests' own, which has the
    /// guide's `dogs` and `address`), except the geospatial ones, which need
    /// GeoCircle, GeoBox and GeoPolygon.  All are compiled;
    /// `testCrudReadWhereExamplesRun` runs those on the queried objects' own
    /// properties, which the library evaluates now (`runAll: false`); the
    /// others (through links, over collections) wait for the query engine.
    static func whereExamples(runAll: Bool) {
        let realm = try! Realm()
        // Access all dogs in the realm
        let dogs = realm.objects(Dog.self)
        // Query by age
        let puppies = dogs.where {
            $0.age < 2
        }
        // Query by person
        let dogsWithoutFavoriteToy = dogs.where {
            $0.favoriteToy == nil
        }
        print("Puppies: \(puppies.count), without a favorite toy: \(dogsWithoutFavoriteToy.count)")

        let dogToys = realm.objects(DogToy.self)
        // Get specific user by ObjectId id
        let specificToy = dogToys.where {
            $0.id == ObjectId("11223344556677889900aabb")
        }
        print("Toys with that id: \(specificToy.count)")

        let tanDogs = realm.objects(Dog.self).where {
            $0.color == "tan"
        }
        let tanDogsWithBNames = tanDogs.where {
            $0.name.starts(with: "B")
        }
        print("Tan dogs whose names start with B: \(tanDogsWithBNames.map(\.name))")

        let akcClub = realm.objects(Club.self).where {
            $0.name == "American Kennel Club"
        }.first!
        // You can use type-safe expressions to check for equality
        XCTAssert(akcClub.url == URL(string: "https://akc.org")!)

        guard runAll else { return }
        // Query by person's name
        let dogsWhoLikeTennisBalls = dogs.where {
            $0.favoriteToy.name == "Tennis ball"
        }
        print(dogsWhoLikeTennisBalls.count)

        // Get all contacts in Los Angeles, sorted by street address
        let losAngelesPeople = realm.objects(Person.self)
            .where {
                $0.address.city == "Los Angeles"
            }
            .sorted(byKeyPath: "address.street")
        print("Los Angeles Person: \(losAngelesPeople)")

        // Find dogs who have favorite parks
        let dogsWithFavoriteParks = dogs.where {
            $0.favoriteParksByCity.count >= 1
        }
        print(dogsWithFavoriteParks.count)

        // Find dogs who have visited New York
        let newYorkDogs = realm.objects(Dog.self).where {
            $0.citiesVisited.contains("New York")
        }
        print(newYorkDogs.count)

        let people = realm.objects(Person.self)
        // People whose dogs' average age is 5
        _ = people.where {
            $0.dogs.age.avg == 5
        }
        // People with older dogs
        _ = people.where {
            $0.dogs.age.min > 5
        }
        // People with younger dogs
        _ = people.where {
            $0.dogs.age.max < 2
        }
        // People with many dogs
        _ = people.where {
            $0.dogs.count > 2
        }
        // People whose dogs' ages combined > 10 years
        _ = people.where {
            $0.dogs.age.sum > 10
        }
    }
}

final class SeedWhereExamplesTests: FiefTestCase {
    func testCrudReadWhereExamplesRun() throws {
        let realm = try Realm()
        try realm.write {
            let toy = realm.create(CRUDGuide.DogToy.self, value: ["id": ObjectId("11223344556677889900aabb"), "name": "Tennis ball"])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Bella", "age": 1, "color": "tan", "favoriteToy": toy])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Rex", "age": 4, "color": "tan"])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Fido", "age": 1, "color": "black"])
            realm.create(CRUDGuide.Club.self, value: ["name": "American Kennel Club", "url": URL(string: "https://akc.org")!])
        }
        CRUDGuide.whereExamples(runAll: false)
        let dogs = realm.objects(CRUDGuide.Dog.self)
        XCTAssertEqual(dogs.where { $0.age < 2 }.map(\.name), ["Bella", "Fido"])
        XCTAssertEqual(dogs.where { $0.favoriteToy == nil }.map(\.name), ["Rex", "Fido"])
        XCTAssertEqual(realm.objects(CRUDGuide.DogToy.self).where { $0.id == ObjectId("11223344556677889900aabb") }.first?.name, "Tennis ball")
        XCTAssertEqual(dogs.where { $0.color == "tan" }.where { $0.name.starts(with: "B") }.map(\.name), ["Bella"])
    }
}
