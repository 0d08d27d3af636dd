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

// MARK: - Class projections: the Projection page and the CRUD-Read guide

/// The Projection page's example, as written, with two changes Swift
/// itself requires (the page's code does not compile with RealmSwift
/// either): `\Person.address.city` is `\Person.address?.city`, since
/// `address` is optional; and the "Querying" snippet's
/// `realm.object(PersonProjection.self)` is `realm.objects(...)`, with
/// `realm.create` inside a write transaction.  The classes are stored as
/// "ProjectionPerson" and "ProjectionAddress" (the tests have their own
/// Person and Address).
enum ProjectionPage {
    public class Person: Object {
        override class func _realmObjectName() -> String? { "ProjectionPerson" }
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var address: Address?
        @Persisted var friends: List<Person>
        @Persisted var reviews: List<String>
    }

    public class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "ProjectionAddress" }
        @Persisted var city: String = ""
        @Persisted var country = ""
    }

    class PersonProjection: Projection<Person> {
        @Projected(\Person.firstName) var firstName
        @Projected(\Person.lastName.localizedUppercase)
        var lastNameCaps
        @Projected(\Person.address?.city) var homeCity
        @Projected(\Person.friends.projectTo.firstName)
        var friendsFirstName: ProjectedCollection<String>
    }

    /// "Querying": all projections of a type, and one made from an object.
    static func queryingExample(_ realm: Realm) throws -> (Results<PersonProjection>, PersonProjection) {
        let projections = realm.objects(PersonProjection.self)
        let personObject = try realm.write { realm.create(Person.self) }
        let singleProjection = PersonProjection(projecting: personObject)
        return (projections, singleProjection)
    }

    /// The members the page lists, with their declared types.
    static func members(_ projection: PersonProjection) -> [String] {
        let realm: Realm? = projection.realm
        let isInvalidated: Bool = projection.isInvalidated
        let isFrozen: Bool = projection.isFrozen
        let frozen: PersonProjection = projection.freeze()
        let thawed: PersonProjection? = frozen.thaw()
        let root: Person = projection.rootObject
        return ["\(realm != nil)", "\(isInvalidated)", "\(isFrozen)", "\(frozen.isFrozen)", "\(thawed?.isFrozen == false)", root.firstName]
    }
}

/// The class projection the CRUD-Read guide's "Query Class Projections"
/// example reads (defined on the guide's model page, over the same Person
/// and Address as the Projection page).
enum ProjectionGuide {
    typealias Person = ProjectionPage.Person

    class PersonProjection: Projection<Person> {
        @Projected(\Person.firstName) var firstName // Passthrough from original object
        @Projected(\Person.address?.city) var homeCity // Rename and access embedded object property through keypath
        @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String> // Collection mapping
    }

    /// The guide's example, as written; returns what it prints.
    static func queryClassProjections(_ realm: Realm) -> [String] {
        var printed: [String] = []
        func print(_ value: Any?) { printed.append(String(describing: value)) }
        // Retrieve all class projections of the given type `PersonProjection`
        let people = realm.objects(PersonProjection.self)
        // Use projection data in your view
        print(people.first?.firstName)
        print(people.first?.homeCity)
        print(people.first?.firstFriendsName)
        return printed
    }
}

extension SeedCompileTests {
    func testProjectionPageExamplesRun() throws {
        let realm = try Realm(configuration: fileConfiguration())
        let (projections, single) = try ProjectionPage.queryingExample(realm)
        XCTAssertEqual(projections.count, 1)
        XCTAssertEqual(projections.first, single)
        XCTAssertEqual(single.firstName, "")
        XCTAssertEqual(single.lastNameCaps, "")
        XCTAssertNil(single.homeCity)
        XCTAssertEqual(Array(single.friendsFirstName), [])

        let person = single.rootObject
        try realm.write {
            person.firstName = "Arya"
            person.lastName = "Stark"
            person.address = ProjectionPage.Address(value: ["city": "Winterfell", "country": "The North"])
            person.friends.append(ProjectionPage.Person(value: ["firstName": "Gendry"]))
            person.reviews.append("brave")
        }
        // Passthrough, key-path resolution (computed, embedded) and collection mapping.
        XCTAssertEqual(single.firstName, "Arya")
        XCTAssertEqual(single.lastNameCaps, "STARK")
        XCTAssertEqual(single.homeCity, "Winterfell")
        XCTAssertEqual(Array(single.friendsFirstName), ["Gendry"])
        // Exclusion: `reviews` is not projected; the root still has it.
        XCTAssertEqual(Array(single.rootObject.reviews), ["brave"])
        XCTAssertEqual(realm.objects(ProjectionPage.PersonProjection.self).count, 2, "Arya and her friend")
        XCTAssertEqual(ProjectionPage.members(single), ["true", "false", "false", "true", "true", "Arya"])
    }

    func testCrudReadQueryClassProjectionsRuns() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write {
            let jon = realm.create(ProjectionPage.Person.self, value: ["firstName": "Jon", "lastName": "Snow",
                                                                        "address": ["city": "Winterfell", "country": "The North"]])
            jon.friends.append(realm.create(ProjectionPage.Person.self, value: ["firstName": "Samwell", "lastName": "Tarly"]))
        }
        let printed = ProjectionGuide.queryClassProjections(realm)
        XCTAssertEqual(printed[0], "Optional(\"Jon\")")
        XCTAssertEqual(printed[1], "Optional(\"Winterfell\")")
        XCTAssertEqual(printed[2], "Optional(ProjectedCollection<String> {\n\t[0] Samwell\n})")
    }
}

// MARK: - The CRUD-Read guide's sectioned results

extension CRUDGuide {
    /// The guide's first sectioned-results example, as written: sections by
    /// the computed `firstLetter`.
    static func sectionedByKeyPathExample() -> SectionedResults<String, Dog> {
        let realm = try! Realm()
        var dogsByFirstLetter: SectionedResults<String, Dog>
        dogsByFirstLetter = realm.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
        return dogsByFirstLetter
    }

    /// The guide's second example, as written (count, keys, a section by
    /// index); returns what it prints.
    static func sectionedResultsMembersExample() -> (sectionCount: Int, sectionKeys: [String], sectionKey: String, firstDogName: String?) {
        let realm = try! Realm()
        var dogsByFirstLetter: SectionedResults<String, Dog>
        dogsByFirstLetter = realm.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
        // You can get a count of the sections in the SectionedResults
        let sectionCount = dogsByFirstLetter.count
        // Get an array containing all section keys for objects that match the query.
        let sectionKeys = dogsByFirstLetter.allKeys
        // This example realm contains 4 dogs, "Rex", "Wolfie", "Fido", "Spot".
        // Prints ["F", "R", "S", "W"]
        print(sectionKeys)
        // Get a specific key by index position
        let sectionKey = dogsByFirstLetter[0].key
        // Prints "Key for index 0: F"
        print("Key for index 0: \(sectionKey)")
        // You can access Results Sections by the index of the key you want in SectionedResults.
        // "F" is the key at index position 0. When we access this Results Section, we get dogs whose name begins with "F".
        let dogsByF = dogsByFirstLetter[0]
        // Prints "Fido"
        print(dogsByF.first?.name)
        return (sectionCount, sectionKeys, sectionKey, dogsByF.first?.name)
    }

    /// The guide's third example, as written: sections by a callback.
    static func sectionedByCallbackExample() -> [String] {
        let realm = try! Realm()
        let results = realm.objects(Dog.self)
        let sectionedResults = results.sectioned(by: { String($0.name.first!) },
                                                 sortDescriptors: [SortDescriptor.init(keyPath: "name", ascending: true)])
        let sectionKeys = sectionedResults.allKeys
        return sectionKeys
    }
}

extension SeedCompileTests {
    /// The guide's realm: "Rex", "Wolfie", "Fido", "Spot", in a file.
    private func addTheGuidesDogs() throws -> Realm {
        Realm.Configuration.defaultConfiguration = fileConfiguration()
        let realm = try Realm()
        try realm.write {
            for name in ["Rex", "Wolfie", "Fido", "Spot"] {
                realm.create(CRUDGuide.Dog.self, value: ["name": name])
            }
        }
        return realm
    }

    func testCrudReadSectionedExamplesGiveThePagesAnswers() throws {
        let realm = try addTheGuidesDogs()
        let dogsByFirstLetter = CRUDGuide.sectionedByKeyPathExample()
        XCTAssertEqual(dogsByFirstLetter.allKeys, ["F", "R", "S", "W"])
        XCTAssertEqual(dogsByFirstLetter.map { $0.map(\.name) }, [["Fido"], ["Rex"], ["Spot"], ["Wolfie"]])

        let members = CRUDGuide.sectionedResultsMembersExample()
        XCTAssertEqual(members.sectionCount, 4)
        XCTAssertEqual(members.sectionKeys, ["F", "R", "S", "W"])
        XCTAssertEqual(members.sectionKey, "F")
        XCTAssertEqual(members.firstDogName, "Fido")

        XCTAssertEqual(CRUDGuide.sectionedByCallbackExample(), ["F", "R", "S", "W"])

        // "These collections are live": the sections follow a write.
        try realm.write { realm.create(CRUDGuide.Dog.self, value: ["name": "Fluffy"]) }
        XCTAssertEqual(dogsByFirstLetter[0].map(\.name), ["Fido", "Fluffy"])
        XCTAssertEqual(CRUDGuide.sectionedResultsMembersExample().sectionCount, 4)
    }
}

// MARK: - The CRUD-Read guide's query, sort, aggregate and chaining examples, with answers

extension SeedCompileTests {
    /// Every query example of the CRUD-Read page (as query strings and as
    /// `where {}` closures, through links, maps and sets included), its
    /// sorts, aggregates and chained queries, on data chosen so that each
    /// answer is known: the page's examples run as written, and give these.
    func testCrudReadQueryExamplesGiveTheirAnswers() throws {
        let realm = try Realm()
        try realm.write {
            let ball = realm.create(CRUDGuide.DogToy.self, value: ["id": ObjectId("11223344556677889900aabb"), "name": "Tennis ball"])
            let bone = realm.create(CRUDGuide.DogToy.self, value: ["id": ObjectId("aabbccddeeff001122334455"), "name": "Bone"])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Bella", "age": 1, "color": "tan", "favoriteToy": ball,
                                                     "citiesVisited": ["New York", "Boston"], "favoriteParksByCity": ["New York": "Central Park"]])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Rex", "age": 4, "color": "tan", "favoriteToy": bone])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Fido", "age": 1, "color": "black", "citiesVisited": ["Boston"]])
            realm.create(CRUDGuide.Dog.self, value: ["name": "Biscuit", "age": 6, "color": "tan", "favoriteToy": ball])
            // People and their dogs (the page's Person and Dog) for the aggregates.
            func person(_ id: Int, _ name: String, _ city: String, _ street: String, _ ages: [Int]) {
                let address = Address()
                address.city = city
                address.street = street
                let p = Person(id: id, name: name)
                p.address = address
                p.dogs.append(objectsIn: ages.enumerated().map { Dog(name: "\(name)'s dog \($0.offset)", age: $0.element) })
                realm.add(p)
            }
            person(1, "Ann", "Los Angeles", "Sunset Blvd", [5, 5])        // avg 5, min 5, max 5, sum 10
            person(2, "Bob", "Los Angeles", "Abbot Kinney", [1, 1, 0])     // max < 2, 3 dogs
            person(3, "Cy", "Boston", "Beacon St", [6, 7, 9])              // min > 5, 3 dogs, sum 22
        }
        let dogs = realm.objects(CRUDGuide.Dog.self)
        func names<S: Sequence>(_ s: S) -> [String] where S.Element == CRUDGuide.Dog { s.map(\.name) }

        // Filter (query strings).
        let puppies = dogs.filter("age < 2")
        XCTAssertEqual(names(puppies), ["Bella", "Fido"])
        let dogsWithoutFavoriteToy = dogs.filter("favoriteToy == nil")
        XCTAssertEqual(names(dogsWithoutFavoriteToy), ["Fido"])
        let dogsWhoLikeTennisBalls = dogs.filter("favoriteToy.name == 'Tennis ball'")
        XCTAssertEqual(names(dogsWhoLikeTennisBalls), ["Bella", "Biscuit"])
        let dogToys = realm.objects(CRUDGuide.DogToy.self)
        let specificToy = dogToys.filter("id = %@", ObjectId("11223344556677889900aabb")).first
        XCTAssertEqual(specificToy?.name, "Tennis ball")

        // The same with where {}: through the link, the map and the set too.
        XCTAssertEqual(names(dogs.where { $0.age < 2 }), ["Bella", "Fido"])
        XCTAssertEqual(names(dogs.where { $0.favoriteToy == nil }), ["Fido"])
        XCTAssertEqual(names(dogs.where { $0.favoriteToy.name == "Tennis ball" }), ["Bella", "Biscuit"])
        XCTAssertEqual(names(dogs.where { $0.favoriteParksByCity.count >= 1 }), ["Bella"])
        XCTAssertEqual(names(dogs.where { $0.citiesVisited.contains("New York") }), ["Bella"])
        XCTAssertEqual(dogToys.where { $0.id == ObjectId("11223344556677889900aabb") }.first?.name, "Tennis ball")

        // Through an embedded object, sorted by a key path through it.
        let losAngelesPeople = realm.objects(Person.self)
            .filter("address.city = %@", "Los Angeles")
            .sorted(byKeyPath: "address.street")
        XCTAssertEqual(losAngelesPeople.map(\.name), ["Bob", "Ann"])
        XCTAssertEqual(realm.objects(Person.self).where { $0.address.city == "Los Angeles" }.sorted(byKeyPath: "address.street").map(\.name),
                       ["Bob", "Ann"])

        // Sort.
        XCTAssertEqual(names(dogs.sorted(by: \.name)), ["Bella", "Biscuit", "Fido", "Rex"])
        XCTAssertEqual(names(dogs.sorted(byKeyPath: "name", ascending: false)), ["Rex", "Fido", "Biscuit", "Bella"])
        // Nulls (no toy) last ascending, as in Realm; ties keep their order.
        XCTAssertEqual(names(dogs.sorted(byKeyPath: "favoriteToy.name")), ["Rex", "Bella", "Biscuit", "Fido"])

        // Aggregates over the dogs of each person.
        let people = realm.objects(Person.self)
        XCTAssertEqual(people.filter("dogs.@avg.age == 5").map(\.name), ["Ann"])
        XCTAssertEqual(people.filter("dogs.@min.age > 5").map(\.name), ["Cy"])
        XCTAssertEqual(people.filter("dogs.@max.age < 2").map(\.name), ["Bob"])
        XCTAssertEqual(people.filter("dogs.@count > 2").map(\.name), ["Bob", "Cy"])
        XCTAssertEqual(people.filter("dogs.@sum.age > 10").map(\.name), ["Cy"])
        XCTAssertEqual(people.where { $0.dogs.age.avg == 5 }.map(\.name), ["Ann"])
        XCTAssertEqual(people.where { $0.dogs.age.min > 5 }.map(\.name), ["Cy"])
        XCTAssertEqual(people.where { $0.dogs.age.max < 2 }.map(\.name), ["Bob"])
        XCTAssertEqual(people.where { $0.dogs.count > 2 }.map(\.name), ["Bob", "Cy"])
        XCTAssertEqual(people.where { $0.dogs.age.sum > 10 }.map(\.name), ["Cy"])

        // Chain queries.
        let tanDogs = realm.objects(CRUDGuide.Dog.self).filter("color = 'tan'")
        let tanDogsWithBNames = tanDogs.filter("name BEGINSWITH 'B'")
        XCTAssertEqual(names(tanDogsWithBNames), ["Bella", "Biscuit"])
        XCTAssertEqual(names(realm.objects(CRUDGuide.Dog.self).where { $0.color == "tan" }.where { $0.name.starts(with: "B") }), ["Bella", "Biscuit"])

        // The page's where {} examples, all of them now (runAll: true), on this data.
        try realm.write { realm.create(CRUDGuide.Club.self, value: ["name": "American Kennel Club", "url": URL(string: "https://akc.org")!]) }
        CRUDGuide.whereExamples(runAll: true)
        let akcByUrl = realm.objects(CRUDGuide.Club.self).filter("url == 'https://akc.org'").first!
        XCTAssertEqual(akcByUrl.name, "American Kennel Club")
    }
}
