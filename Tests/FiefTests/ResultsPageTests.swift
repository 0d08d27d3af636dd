// RealmSwift's Results page (seeds/004_723658df9907dfc3.txt), API by API, in
// the page's order, each used as the page declares it and checked against
// what the page says it does.  The page's APIs taking an NSPredicate
// (`index(matching: NSPredicate)`, `filter(_: NSPredicate)`) have no
// counterpart: Foundation on Linux cannot build an NSPredicate from a
// format; their string forms (`index(matching:_:)`, `filter(_:_:)`) are
// tested instead.  `observe` runs the page's own example below (the change
// cases in full are ResultsNotificationTests'); `objectWillChange` is a
// Combine publisher and Linux has no Combine.

import Fief
import Foundation
import XCTest

final class ResultsPageTests: FiefTestCase {
    private func dogs() throws -> (Realm, Results<Dog>) {
        let realm = try Realm()
        try addDogs(realm)   // Rex 10 tan, Fido 1 black, Spot 3 tan, Bella 1 brown, Wolfie 7 grey
        return (realm, realm.objects(Dog.self))
    }

    /// "A human-readable description of the objects represented by the results."
    func testDescription() throws {
        let (_, dogs) = try dogs()
        let text = dogs.filter("age == 1").description
        XCTAssertTrue(text.hasPrefix("Results<Dog> <0x"), text)
        XCTAssertTrue(text.contains("[0] Dog {"), text)
        XCTAssertTrue(text.contains("name = Fido;"), text)
        XCTAssertTrue(text.contains("[1] Dog {"), text)
        XCTAssertFalse(text.contains("[2]"), text)
    }

    /// "The type of the objects described by the results."
    func testElementType() {
        XCTAssertTrue(Results<Dog>.ElementType.self == Dog.self)
        XCTAssertTrue(Results<Int>.ElementType.self == Int.self)
    }

    /// "The Realm which manages this results.  Note that this property will never return nil."
    func testRealm() throws {
        let (realm, dogs) = try dogs()
        XCTAssertEqual(dogs.realm, realm)
        XCTAssertEqual(dogs.filter("age > 2").realm, realm)
    }

    /// "Indicates if the results are no longer valid.  The results becomes
    /// invalid if invalidate() is called on the containing realm.  An
    /// invalidated results can be accessed, but will always be empty."
    func testIsInvalidated() throws {
        let (realm, dogs) = try dogs()
        XCTAssertFalse(dogs.isInvalidated)
        realm.invalidate()
        XCTAssertTrue(dogs.isInvalidated)
        XCTAssertEqual(dogs.count, 0)
        XCTAssertNil(dogs.first)
    }

    /// "The number of objects in the results."
    func testCount() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.count, 5)
        XCTAssertEqual(dogs.filter("color == 'tan'").count, 2)
    }

    /// "Returns the index of the given object in the results, or nil if the object is not present."
    func testIndexOf() throws {
        let (realm, dogs) = try dogs()
        let spot = dogs.filter("name == 'Spot'").first!
        XCTAssertEqual(dogs.index(of: spot), 2)
        XCTAssertEqual(dogs.sorted(byKeyPath: "name").index(of: spot), 3)
        XCTAssertNil(dogs.filter("age < 2").index(of: spot))
        XCTAssertNil(dogs.index(of: Dog(name: "Unmanaged", age: 1)))
        _ = realm
    }

    /// "Returns the index of the first object matching the predicate, or nil
    /// if no objects match."  (The page's NSPredicate form, written as a
    /// predicate format and as a type-safe query.)
    func testIndexMatching() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.index(matching: "color == %@", "tan"), 0)
        XCTAssertEqual(dogs.index(matching: "age < 5 AND color != 'black'"), 2)
        XCTAssertNil(dogs.index(matching: "age > 100"))
        XCTAssertEqual(dogs.sorted(byKeyPath: "name").index(matching: "age == 1"), 0)   // Bella first by name
        XCTAssertEqual(dogs.index(matching: { $0.name == "Wolfie" }), 4)
        XCTAssertEqual(dogs.index(matching: { $0.age == 1 && $0.color == "brown" }), 3)
        XCTAssertNil(dogs.index(matching: { $0.name.starts(with: "Z") }))
        XCTAssertEqual(dogs.sorted(byKeyPath: "age", ascending: false).index(matching: { $0.color == "tan" }), 0)
        // %K takes a key path, as RealmSwift's NSPredicate formats do.
        XCTAssertEqual(dogs.index(matching: "%K == %@", "name", "Spot"), 2)
    }

    /// "Returns the object at the given index."
    func testSubscript() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs[0].name, "Rex")
        XCTAssertEqual(dogs[4].name, "Wolfie")
        XCTAssertEqual(dogs.sorted(byKeyPath: "age")[4].name, "Rex")
    }

    /// "Returns the first object in the results, or nil if the results are empty."
    /// "Returns the last object in the results, or nil if the results are empty."
    func testFirstAndLast() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.first?.name, "Rex")
        XCTAssertEqual(dogs.last?.name, "Wolfie")
        XCTAssertNil(dogs.filter("age > 100").first)
        XCTAssertNil(dogs.filter("age > 100").last)
    }

    /// "Returns an Array containing the results of invoking valueForKey(_:)
    /// with key on each of the results."  And the same for key paths.
    func testValueForKeyAndKeyPath() throws {
        let (realm, dogs) = try dogs()
        let names = dogs.value(forKey: "name") as? [Any?]
        XCTAssertEqual(names?.map { $0 as? String }, ["Rex", "Fido", "Spot", "Bella", "Wolfie"])
        let ages = dogs.filter("color == 'tan'").value(forKeyPath: "age") as? [Any?]
        XCTAssertEqual(ages?.map { $0 as? Int }, [10, 3])
        try realm.write {
            let toy = DogToy()
            toy.name = "Ball"
            dogs[1].favoriteToy = toy
        }
        let toys = dogs.value(forKeyPath: "favoriteToy.name") as? [Any?]
        XCTAssertEqual(toys?.map { $0 as? String }, [nil, "Ball", nil, nil, nil])
    }

    /// "Invokes setValue(_:forKey:) on each of the objects represented by
    /// the results using the specified value and key.  Warning: This method
    /// may only be called during a write transaction."
    func testSetValueForKey() throws {
        let (realm, dogs) = try dogs()
        try realm.write {
            dogs.filter("color == 'tan'").setValue("sand", forKey: "color")
        }
        XCTAssertEqual(dogs.map(\.color), ["sand", "black", "sand", "brown", "grey"])
    }

    /// "Returns a Results containing all objects matching the given
    /// predicate in the collection."  (The page's NSPredicate form, as a
    /// predicate format.)
    func testFilter() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.filter("age > %@", 2).map(\.name), ["Rex", "Spot", "Wolfie"])
        XCTAssertEqual(dogs.filter("age > 2").filter("color == 'tan'").map(\.name), ["Rex", "Spot"])
        XCTAssertEqual(dogs.filter("%K BEGINSWITH %@", "name", "S").map(\.name), ["Spot"])
    }

    /// "Returns a Results containing the objects represented by the results,
    /// but sorted. ... students.sorted(byKeyPath: "age", ascending: true)"
    func testSortedByKeyPath() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.sorted(byKeyPath: "age", ascending: true).map(\.age), [1, 1, 3, 7, 10])
        XCTAssertEqual(dogs.sorted(byKeyPath: "name").map(\.name), ["Bella", "Fido", "Rex", "Spot", "Wolfie"])
        XCTAssertEqual(dogs.sorted(byKeyPath: "name", ascending: false).first?.name, "Wolfie")
    }

    /// "Returns a Results containing the objects represented by the results, but sorted." (by SortDescriptors)
    func testSortedBySortDescriptors() throws {
        let (_, dogs) = try dogs()
        let sorted = dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: true), SortDescriptor(keyPath: "name", ascending: false)])
        XCTAssertEqual(sorted.map(\.name), ["Fido", "Bella", "Spot", "Wolfie", "Rex"])
    }

    /// "Returns a Results containing distinct objects based on the specified key paths."
    func testDistinctByKeyPaths() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.distinct(by: ["color"]).map(\.name), ["Rex", "Fido", "Bella", "Wolfie"])
        XCTAssertEqual(dogs.distinct(by: ["age", "color"]).count, 5)
    }

    /// "Returns the minimum (lowest) value of the given property among all
    /// the results, or nil if the results are empty."  Likewise max, sum
    /// and average (sum of no results is 0).
    func testAggregates() throws {
        let (_, dogs) = try dogs()
        let youngest: Int? = dogs.min(ofProperty: "age")
        let oldest: Int? = dogs.max(ofProperty: "age")
        let total: Int = dogs.sum(ofProperty: "age")
        let mean: Double? = dogs.average(ofProperty: "age")
        XCTAssertEqual(youngest, 1)
        XCTAssertEqual(oldest, 10)
        XCTAssertEqual(total, 22)
        XCTAssertEqual(mean, 4.4)
        let none = dogs.filter("age > 100")
        XCTAssertNil(none.min(ofProperty: "age") as Int?)
        XCTAssertNil(none.max(ofProperty: "age") as Int?)
        XCTAssertEqual(none.sum(ofProperty: "age") as Int, 0)
        XCTAssertNil(none.average(ofProperty: "age") as Double?)
    }

    /// Sequence and Collection support: startIndex, endIndex, index(after:), index(before:).
    func testCollectionSupport() throws {
        let (_, dogs) = try dogs()
        XCTAssertEqual(dogs.startIndex, 0)
        XCTAssertEqual(dogs.endIndex, 5)
        XCTAssertEqual(dogs.index(after: 2), 3)
        XCTAssertEqual(dogs.index(before: 2), 1)
        let empty = dogs.filter("FALSEPREDICATE")
        XCTAssertEqual(empty.startIndex, empty.endIndex)
        XCTAssertEqual(Array(dogs.map(\.name)[dogs.index(after: dogs.startIndex)...].prefix(2)), ["Fido", "Spot"])
        var seen: [String] = []
        for dog in dogs { seen.append(dog.name) }
        XCTAssertEqual(seen, ["Rex", "Fido", "Spot", "Bella", "Wolfie"])
    }

    /// "Available where Element: Encodable."
    func testEncodable() throws {
        let realm = try Realm()
        try realm.write {
            realm.add(CodablePoint(value: ["x": 1, "y": 2]))
            realm.add(CodablePoint(value: ["x": 3, "y": 4]))
        }
        let data = try JSONEncoder().encode(realm.objects(CodablePoint.self).sorted(byKeyPath: "x"))
        let decoded = try JSONSerialization.jsonObject(with: data) as? [[String: Int]]
        XCTAssertEqual(decoded ?? [], [["x": 1, "y": 2], ["x": 3, "y": 4]])
    }

    /// Frozen objects: freeze, isFrozen, thaw.
    func testFreezeAndThaw() throws {
        let (realm, dogs) = try dogs()
        let frozen = dogs.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(dogs.isFrozen)
        try realm.write { realm.add(Dog(name: "Ace", age: 2)) }
        XCTAssertEqual(frozen.count, 5)
        XCTAssertEqual(frozen.thaw()?.count, 6)
    }
}

extension ResultsPageTests {
    /// `index(matching:)`, as a predicate format and as a query, on every
    /// collection RealmSwift has it on: List, MutableSet, LinkingObjects,
    /// AnyRealmCollection, and generic code over RealmCollection.
    func testIndexMatchingOnEveryCollection() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let person = Person(id: 1, name: "Ann")
        let kennel = Kennel()
        let toy = DogToy()
        toy.name = "Ball"
        try realm.write {
            person.dogs.append(objectsIn: [dogs[2], dogs[0], dogs[3]])   // Spot, Rex, Bella
            realm.add(person)
            kennel.dogs.insert(objectsIn: [dogs[1], dogs[4]])
            realm.add(kennel)
            dogs[4].favoriteToy = toy
            dogs[2].favoriteToy = toy
        }
        XCTAssertEqual(person.dogs.index(matching: "age > 5"), 1)
        XCTAssertEqual(person.dogs.index(matching: { $0.age > 5 }), 1)
        XCTAssertEqual(person.dogs.index(matching: { $0.color == "brown" }), 2)
        XCTAssertNil(person.dogs.index(matching: { $0.name == "Fido" }))
        let wolfieInSet = kennel.dogs.index(matching: { $0.name == "Wolfie" })
        XCTAssertNotNil(wolfieInSet)
        XCTAssertEqual(wolfieInSet.map { kennel.dogs[$0].name }, "Wolfie")
        XCTAssertEqual(kennel.dogs.index(matching: "name == 'Wolfie'"), wolfieInSet)
        XCTAssertEqual(toy.dogs.index(matching: { $0.name == "Wolfie" }).map { toy.dogs[$0].name }, "Wolfie")
        XCTAssertEqual(toy.dogs.index(matching: "name == %@", "Spot").map { toy.dogs[$0].name }, "Spot")
        let any = AnyRealmCollection(person.dogs)
        XCTAssertEqual(any.index(matching: { $0.name == "Bella" }), 2)
        XCTAssertEqual(any.index(matching: "name == 'Rex'"), 1)
        func generic<C: RealmCollection>(_ collection: C) -> Int? where C.Element == Dog {
            collection.index(matching: { $0.age == 3 })
        }
        XCTAssertEqual(generic(person.dogs), 0)
        XCTAssertEqual(generic(realm.objects(Dog.self)), 2)
        // Values: `self` in the query.
        let scores = realm.objects(Dog.self).sorted(byKeyPath: "age").value(forKey: "age") as? [Any?]
        XCTAssertEqual(scores?.compactMap { $0 as? Int }, [1, 1, 3, 7, 10])
    }

    /// "observe(on:_:)": the page's example.  A write made right after
    /// `observe` and before the run loop delivers is part of `.initial`
    /// ("dogs.count: 1"); `.update` is not hit.
    func testObserveThePagesExample() throws {
        let realm = try Realm()
        let person = Person(id: 1, name: "Ann")
        try realm.write { realm.add(person) }
        var printed: [String] = []
        let dogs = realm.objects(Dog.self)
        printed.append("dogs.count: \(dogs.count)") // => 0
        let token = dogs.observe { changes in
            switch changes {
            case .initial(let dogs):
                // Will print "dogs.count: 1"
                printed.append("dogs.count: \(dogs.count)")
            case .update:
                // Will not be hit in this example
                printed.append("update")
            case .error:
                printed.append("error")
            }
        }
        try! realm.write {
            let dog = Dog()
            dog.name = "Rex"
            person.dogs.append(dog)
        }
        // End of the run loop's execution context: let it deliver.
        let deadline = Date().addingTimeInterval(30)
        while printed.count < 2 && Date() < deadline {
            RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
        }
        RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.1))
        XCTAssertEqual(printed, ["dogs.count: 0", "dogs.count: 1"])
        token.invalidate()
    }
}

/// A class encoded by its properties (for `Results: Encodable`).
final class CodablePoint: Object, Encodable {
    @Persisted var x = 0
    @Persisted var y = 0

    enum CodingKeys: String, CodingKey { case x, y }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
    }
}
