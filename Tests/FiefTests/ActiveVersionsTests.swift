import Fief
import Foundation
import XCTest

/// `Realm.Configuration.maximumNumberOfActiveVersions`: frozen realms hold
/// versions; past the limit `write` throws RealmSwift's message and writes
/// nothing; once they are released, writes go on.
final class ActiveVersionsTests: FiefTestCase {
    func testFrozenRealmsPassTheLimit() throws {
        var config = fileConfiguration(objectTypes: [Dog.self, DogToy.self])
        config.maximumNumberOfActiveVersions = 3
        XCTAssertEqual(config.maximumNumberOfActiveVersions, 3)
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(Dog(name: "Rex", age: 1, color: "tan")) }
        // RealmSwift's case: a version pinned, two writes, the third fails.
        var frozen: Realm? = realm.freeze()
        XCTAssertEqual(frozen?.objects(Dog.self).count, 1)
        try realm.write { realm.objects(Dog.self)[0].age = 2 }
        try realm.write { realm.objects(Dog.self)[0].age = 3 }
        XCTAssertThrowsError(try realm.write { realm.objects(Dog.self)[0].age = 4 }) { error in
            XCTAssertEqual((error as? Realm.Error)?.localizedDescription,
                           "Number of active versions (4) in the Realm exceeded the limit of 3")
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self)[0].age, 3)
        // Released: the write goes on.
        frozen = nil
        try realm.write { realm.objects(Dog.self)[0].age = 5 }
        XCTAssertEqual(realm.objects(Dog.self)[0].age, 5)
    }

    func testNoLimitByDefault() throws {
        let config = fileConfiguration(objectTypes: [Dog.self, DogToy.self])
        XCTAssertNil(config.maximumNumberOfActiveVersions)
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(Dog(name: "Rex", age: 1, color: "tan")) }
        let frozen = realm.freeze()
        for age in 0..<10 { try realm.write { realm.objects(Dog.self)[0].age = age } }
        XCTAssertEqual(frozen.objects(Dog.self)[0].age, 1)
    }
}
