import Fief
import Foundation
import XCTest

/// `SELF == %@`, `SELF != %@` and `SELF IN %@` with objects on managed
/// results: the object itself, compared by identity (Fief answers what
/// RealmSwift's query builder refuses; see Fief.swift's list of differences).
final class SelfObjectFilterTests: FiefTestCase {
    func testSelfComparesObjectsByIdentity() throws {
        let realm = try Realm(configuration: fileConfiguration())
        let dogs = try addDogs(realm)
        let all = realm.objects(Dog.self)

        let one = all.filter("SELF == %@", dogs[2])
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(one.first?.name, dogs[2].name)

        XCTAssertEqual(Set(all.filter("SELF != %@", dogs[0]).map(\.name)),
                       Set(dogs.dropFirst().map(\.name)))
        XCTAssertEqual(Set(all.filter("SELF IN %@", [dogs[1], dogs[4]]).map(\.name)),
                       [dogs[1].name, dogs[4].name])
        // Combined with another condition, and live after a delete.
        XCTAssertEqual(all.filter("SELF IN %@ AND age > 5", [dogs[0], dogs[1], dogs[4]]).count, 2)
        let rex = all.filter("SELF == %@", dogs[0])
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(rex.count, 0)
    }
}
