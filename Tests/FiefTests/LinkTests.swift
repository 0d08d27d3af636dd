import Fief
import Foundation
import XCTest

/// To-one links in the overlay: `@Persisted var favoriteToy: DogToy?`, as
/// the CRUD-Read guide declares it.
final class LinkTests: FiefTestCase {
    func testAddingAnObjectAddsWhatItLinksTo() throws {
        let realm = try Realm()
        let toy = DogToy()
        toy.name = "Tennis ball"
        let dog = Dog(name: "Rex", age: 3)
        dog.favoriteToy = toy
        XCTAssertEqual(dog.favoriteToy?.name, "Tennis ball")   // unmanaged: held in memory
        try realm.write { realm.add(dog) }
        XCTAssertNotNil(toy.realm)
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)
        XCTAssertEqual(dog.favoriteToy?.name, "Tennis ball")
        XCTAssertEqual(realm.objects(Dog.self).first?.favoriteToy?.name, "Tennis ball")
        // Following the link gives the same row.
        try realm.write { dog.favoriteToy?.name = "Frisbee" }
        XCTAssertEqual(toy.name, "Frisbee")
    }

    func testSetClearQueryAndDeleteTheTarget() throws {
        let realm = try Realm()
        try addDogs(realm)
        let rex = realm.objects(Dog.self).filter("name == 'Rex'").first!
        let ball = DogToy()
        ball.name = "Ball"
        try realm.write {
            rex.favoriteToy = ball          // an unmanaged object is added
        }
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)
        let dogsWithoutFavoriteToy = realm.objects(Dog.self).filter("favoriteToy == nil")
        XCTAssertEqual(dogsWithoutFavoriteToy.count, 4)
        XCTAssertEqual(realm.objects(Dog.self).filter("favoriteToy == %@", ball).map(\.name), ["Rex"])

        try realm.write { realm.delete(ball) }
        XCTAssertNil(rex.favoriteToy)
        XCTAssertEqual(dogsWithoutFavoriteToy.count, 5)

        try realm.write {
            rex.favoriteToy = DogToy()
            rex.favoriteToy = nil
        }
        XCTAssertNil(rex.favoriteToy)
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)   // the toy stays; only the link went
    }

    func testCreateWithNestedValuesAndCycles() throws {
        let realm = try Realm()
        let dog = try realm.write {
            realm.create(Dog.self, value: ["name": "Spot", "favoriteToy": ["name": "Rope"]])
        }
        XCTAssertEqual(realm.objects(DogToy.self).map(\.name), ["Rope"])
        XCTAssertEqual(dog.favoriteToy?.name, "Rope")

        let ann = Buddy(), bob = Buddy()
        ann.name = "Ann"
        bob.name = "Bob"
        ann.buddy = bob
        bob.buddy = ann
        let solo = Buddy()
        solo.name = "Solo"
        solo.buddy = solo
        try realm.write {
            realm.add(ann)
            realm.add(solo)
        }
        XCTAssertEqual(realm.objects(Buddy.self).count, 3)
        // Objects linking to each other describe each other five levels deep.
        let described = ann.description
        XCTAssertEqual(described.components(separatedBy: "Buddy {").count - 1, 5, described)
        XCTAssertTrue(described.contains("buddy = <Maximum depth exceeded>;"), described)
        XCTAssertTrue(solo.description.contains("<Maximum depth exceeded>"))
        XCTAssertTrue(realm.objects(Buddy.self).description.contains("<Maximum depth exceeded>"))
        XCTAssertEqual(ann.description, described)
        XCTAssertEqual(ann.buddy?.name, "Bob")
        XCTAssertEqual(ann.buddy?.buddy?.name, "Ann")
        XCTAssertEqual(solo.buddy?.buddy?.name, "Solo")
        try realm.write { realm.delete(bob) }
        XCTAssertNil(ann.buddy)
    }

    func testLinksPersistAcrossReopening() throws {
        let configuration = fileConfiguration()
        do {
            let realm = try Realm(configuration: configuration)
            let toy = DogToy()
            toy.name = "Bone"
            let dog = Dog(name: "Rex", age: 1)
            dog.favoriteToy = toy
            try realm.write { realm.add(dog) }
        }
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(realm.objects(Dog.self).first?.favoriteToy?.name, "Bone")
        XCTAssertTrue(realm.objects(Dog.self).first!.description.contains("favoriteToy"))
    }

    func testLinkingObjects() throws {
        let realm = try Realm()
        let ball = DogToy()
        ball.name = "Ball"
        XCTAssertEqual(ball.dogs.count, 0)   // unmanaged: empty
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        try realm.write {
            for dog in dogs where dog.age < 5 { dog.favoriteToy = ball }
        }
        XCTAssertEqual(Set(ball.dogs.map(\.name)), ["Fido", "Spot", "Bella"])
        XCTAssertEqual(ball.dogs.filter("color == 'tan'").map(\.name), ["Spot"])
        XCTAssertEqual(ball.dogs.sorted(byKeyPath: "name").map(\.name), ["Bella", "Fido", "Spot"])
        XCTAssertEqual(ball.dogs.max(ofProperty: "age") as Int?, 3)
        let live = ball.dogs
        try realm.write { realm.delete(dogs.filter("name == 'Fido'")) }
        XCTAssertEqual(live.count, 2)
        XCTAssertTrue(live.description.hasPrefix("LinkingObjects<Dog>"), live.description)
    }
}
