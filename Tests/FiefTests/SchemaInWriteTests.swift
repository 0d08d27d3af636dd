import Fief
import Foundation
import XCTest

// Model classes each used for the first time inside a write transaction of
// one test below: the overlay adds a class to a realm's schema when it is
// first used, so the write changes the schema.  (Each is used by one test
// only: once a class is known, later realms of the process get it at open.)
class KennelFirstUsedInWrite: Object {
    @Persisted var name = ""
}

class LeashFirstUsedInWrite: Object {
    @Persisted var length = 0
}

class CollarFirstUsedInWrite: Object {
    @Persisted var color = ""
}

class TagFirstUsedInWrite: Object {
    @Persisted var text = ""
}

/// Freezing inside a write transaction that added a class to the schema:
/// the frozen realm is the version the write began from, as any freeze in
/// a write is (RealmSwift's rule), and nothing traps.
final class SchemaInWriteTests: FiefTestCase {
    func testFreezeTheRealmInAWriteThatAddedAClass() throws {
        let realm = try Realm()
        try addDogs(realm)
        realm.beginWrite()
        realm.add(KennelFirstUsedInWrite(value: ["name": "North"]))
        realm.add(Dog(value: ["name": "Inside", "age": 4]))
        let frozen = realm.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertEqual(frozen.objects(Dog.self).count, 5, "the version the write began from")
        XCTAssertEqual(frozen.objects(Dog.self).filter("name == 'Inside'").count, 0)
        XCTAssertEqual(realm.objects(KennelFirstUsedInWrite.self).count, 1)
        try realm.commitWrite()
        XCTAssertEqual(frozen.objects(Dog.self).count, 5)
        XCTAssertEqual(realm.objects(KennelFirstUsedInWrite.self).first?.name, "North")
        XCTAssertEqual(realm.freeze().objects(KennelFirstUsedInWrite.self).count, 1)
    }

    func testFreezeAnObjectInAWriteThatAddedAClass() throws {
        let realm = try Realm()
        let rex = try addDogs(realm)[0]
        try realm.write {
            realm.add(LeashFirstUsedInWrite(value: ["length": 2]))
            rex.age = 11
            let frozenRex = rex.freeze()
            XCTAssertTrue(frozenRex.isFrozen)
            XCTAssertEqual(frozenRex.name, "Rex")
            XCTAssertEqual(frozenRex.age, 10, "the version the write began from")
            let frozenDogs = realm.objects(Dog.self).freeze()
            XCTAssertEqual(frozenDogs.count, 5)
        }
        XCTAssertEqual(realm.objects(LeashFirstUsedInWrite.self).first?.length, 2)
        XCTAssertEqual(rex.age, 11)
    }

    func testCancelledWriteThatAddedAClassAfterAFreeze() throws {
        let realm = try Realm()
        try addDogs(realm)
        realm.beginWrite()
        realm.add(CollarFirstUsedInWrite(value: ["color": "red"]))
        let frozen = realm.freeze()
        realm.cancelWrite()
        XCTAssertEqual(frozen.objects(Dog.self).count, 5)
        // The class comes back with the next write that uses it.
        try realm.write { realm.add(CollarFirstUsedInWrite(value: ["color": "blue"])) }
        XCTAssertEqual(realm.objects(CollarFirstUsedInWrite.self).first?.color, "blue")
    }

    func testFreezeResultsInAWriteThatAddedAClass() throws {
        let realm = try Realm()
        try addDogs(realm)
        try realm.write {
            realm.add(TagFirstUsedInWrite(value: ["text": "a"]))
            let frozen = realm.objects(Dog.self).filter("age > 2").freeze()
            XCTAssertTrue(frozen.isFrozen)
            XCTAssertEqual(frozen.count, 3)
            XCTAssertEqual(realm.objects(TagFirstUsedInWrite.self).filter("text == 'a'").count, 1)
        }
        XCTAssertEqual(realm.objects(TagFirstUsedInWrite.self).count, 1)
        XCTAssertEqual(realm.freeze().objects(TagFirstUsedInWrite.self).first?.text, "a")
    }
}
