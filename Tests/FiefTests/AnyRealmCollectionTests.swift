import Fief
import Foundation
import XCTest

/// `AnyRealmCollection` over results and linking objects, and generic code
/// written against `RealmCollection`.
final class AnyRealmCollectionTests: FiefTestCase {
    /// Generic code over any Realm collection of dogs.
    private func namesOfAdults<C: RealmCollection>(_ dogs: C) -> [String] where C.Element == Dog {
        dogs.filter("age >= 3").sorted(byKeyPath: "name").map(\.name)
    }

    func testWrapsResults() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try addDogs(realm)
        let results = realm.objects(Dog.self)
        let any = AnyRealmCollection(results)
        XCTAssertEqual(any.count, 5)
        XCTAssertEqual(any.realm, realm)
        XCTAssertFalse(any.isFrozen)
        XCTAssertEqual(Set(any.map(\.name)), ["Rex", "Fido", "Spot", "Bella", "Wolfie"])
        XCTAssertEqual(any[0].name, results[0].name)
        XCTAssertEqual(any.first?.name, results.first?.name)
        XCTAssertEqual(any.last?.name, results.last?.name)
        XCTAssertEqual(any.index(of: results[2]), 2)
        XCTAssertEqual(any.filter("color == 'tan'").count, 2)
        XCTAssertEqual(any.sorted(byKeyPath: "age", ascending: false).first?.name, "Rex")
        XCTAssertEqual(any.sorted(by: [SortDescriptor(keyPath: "age"), "name"]).map(\.name).prefix(2), ["Bella", "Fido"])
        XCTAssertEqual(any.min(ofProperty: "age") as Int?, 1)
        XCTAssertEqual(any.max(ofProperty: "age") as Int?, 10)
        XCTAssertEqual(any.sum(ofProperty: "age") as Int, 22)
        XCTAssertEqual(any.average(ofProperty: "age") as Double?, 4.4)
        XCTAssertEqual(namesOfAdults(any), ["Rex", "Spot", "Wolfie"])
        XCTAssertEqual(namesOfAdults(results), namesOfAdults(any))
        XCTAssertTrue(any.description.hasPrefix("AnyRealmCollection<Dog>"), any.description)
        XCTAssertEqual(any, AnyRealmCollection(results))
        XCTAssertNotEqual(any, AnyRealmCollection(results.filter("age > 1")))

        // Live, as the results are.
        try realm.write { realm.add(Dog(name: "Zed", age: 4)) }
        XCTAssertEqual(any.count, 6)
        XCTAssertEqual(namesOfAdults(any), ["Rex", "Spot", "Wolfie", "Zed"])

        let frozen = any.freeze()
        XCTAssertTrue(frozen.isFrozen)
        try realm.write { realm.add(Dog(name: "Late", age: 2)) }
        XCTAssertEqual(frozen.count, 6)
        XCTAssertEqual(frozen.thaw()?.count, 7)
    }

    func testWrapsLinkingObjectsAndMixesKinds() throws {
        let realm = try Realm(configuration: fileConfiguration())
        let toy = DogToy()
        toy.name = "Ball"
        try realm.write {
            for (name, age) in [("Rex", 10), ("Spot", 3), ("Fido", 1)] {
                let dog = Dog(name: name, age: age)
                dog.favoriteToy = toy
                realm.add(dog)
            }
            realm.add(Dog(name: "Loner", age: 5))
        }
        func collection(of toy: DogToy?) -> AnyRealmCollection<Dog> {
            toy.map { AnyRealmCollection($0.dogs) } ?? AnyRealmCollection(realm.objects(Dog.self))
        }
        let playing = collection(of: toy)
        let everyone = collection(of: nil)
        XCTAssertEqual(playing.count, 3)
        XCTAssertEqual(everyone.count, 4)
        XCTAssertEqual(namesOfAdults(playing), ["Rex", "Spot"])
        XCTAssertEqual(playing.sum(ofProperty: "age") as Int, 14)
        XCTAssertNotEqual(playing, everyone)
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(
            AnyRealmCollection(realm.objects(CodableDog.self)))) as? [Any]
        XCTAssertEqual(encoded?.count, 0)
    }
}
