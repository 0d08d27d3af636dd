import Fief
import Foundation
import XCTest

/// NSPredicate's printf-style format specifiers in string predicates:
/// `%d`, `%i`, `%ld`, `%lld`, `%u`, `%f`, `%lf` ... beside `%@` and `%K`,
/// as RealmSwift's users write them (`filter("age > %d", 3)`).
final class PredicateFormatTests: FiefTestCase {
    func testWholeNumberSpecifiersTakeIntegers() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(Set(dogs.filter("age > %d", 3).map(\.name)), ["Rex", "Wolfie"])
        XCTAssertEqual(Set(dogs.filter("age == %i", 1).map(\.name)), ["Fido", "Bella"])
        XCTAssertEqual(dogs.filter("age >= %ld", 7).count, 2)
        XCTAssertEqual(dogs.filter("age < %lld", Int64(3)).count, 2)
        XCTAssertEqual(dogs.filter("age <= %u", UInt32(3)).count, 3)
        XCTAssertEqual(dogs.filter("age == %lu", UInt(10)).first?.name, "Rex")
        XCTAssertEqual(dogs.filter("age == %hd", Int16(7)).first?.name, "Wolfie")
        XCTAssertEqual(dogs.filter("age == %x", 10).first?.name, "Rex", "%x takes the number, not its hex text")
        XCTAssertEqual(dogs.filter("age == %qd", 3).first?.name, "Spot")
        XCTAssertEqual(dogs.filter("age == %3d", 3).first?.name, "Spot", "a width is ignored")
    }

    func testSizedIntegerPropertiesAsRealmSwiftsTestsWriteThem() throws {
        let realm = try Realm()
        try realm.write {
            for i in 0..<3 {
                let object = AllTypes()
                object.int8 = Int8(i)
                object.int16 = Int16(i)
                object.int32 = Int32(i)
                object.int64 = Int64(i)
                realm.add(object)
            }
        }
        let all = realm.objects(AllTypes.self)
        for i in 0..<4 {
            let expected = i < 3 ? 1 : 0
            XCTAssertEqual(all.filter("int8 = %d", Int8(i)).count, expected)
            XCTAssertEqual(all.filter("int16 = %d", Int16(i)).count, expected)
            XCTAssertEqual(all.filter("int32 = %d", Int32(i)).count, expected)
            XCTAssertEqual(all.filter("int64 = %d", Int64(i)).count, expected)
        }
        // Length modifiers never narrow the value.
        try realm.write { all[0].int64 = 1 << 40 }
        XCTAssertEqual(all.filter("int64 == %d", Int64(1) << 40).count, 1)
    }

    func testFloatingPointSpecifiersTakeDoubles() throws {
        let realm = try Realm()
        try realm.write {
            for (f, d) in [(Float(1.7), 0.25), (Float(0.5), 0.5), (Float(-2), 0.75)] {
                let object = AllTypes()
                object.float = f
                object.double = d
                realm.add(object)
            }
        }
        let all = realm.objects(AllTypes.self)
        XCTAssertEqual(all.filter("double >= %f", 0.5).count, 2)
        XCTAssertEqual(all.filter("double < %lf", 0.5).count, 1)
        XCTAssertEqual(all.filter("double == %g", 0.75).count, 1)
        XCTAssertEqual(all.filter("double == %e", 0.25).count, 1)
        XCTAssertEqual(all.filter("float = %f", Float(1.7)).count, 1)
        XCTAssertEqual(all.filter("float > %f", 1).count, 1, "an integer argument to %f is a double")
        XCTAssertEqual(all.filter("float > %d", 1).count, 1)
        XCTAssertEqual(all.filter("double >= %.2f", 0.5).count, 2, "a precision is ignored")
    }

    func testIntegerSpecifierTruncatesAFloatingPointArgument() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.filter("age == %d", 3.9).first?.name, "Spot")
        XCTAssertEqual(dogs.filter("age == %d", Float(7.2)).first?.name, "Wolfie")
        XCTAssertEqual(dogs.filter("age == %d", true).count, 2, "true is 1")
    }

    func testMixedWithObjectAndKeyPathSpecifiers() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.filter("%K == %@", "name", "Rex").first?.age, 10)
        XCTAssertEqual(dogs.filter("%K > %d AND color == %@", "age", 2, "tan").map(\.name).sorted(), ["Rex", "Spot"])
        XCTAssertEqual(dogs.filter("age BETWEEN {%d, %d} AND name BEGINSWITH %@", 2, 8, "W").first?.name, "Wolfie")
        XCTAssertEqual(dogs.filter("age == %d OR age == %f", 10, 3.0).count, 2)
        XCTAssertEqual(dogs.filter("age == $1 OR age == %d", 1, 10).count, 3, "%d takes argument 0 as %@ would")
        // Quoted, a specifier is literal text.
        try realm.write { realm.add(Dog(name: "%d", age: 4, color: "")) }
        XCTAssertEqual(dogs.filter("name == '%d' AND age == %d", 4).count, 1)
        // Chained on a filtered collection and on a list's results.
        XCTAssertEqual(dogs.filter("age > %d", 1).filter("age < %u", 8).count, 3)
    }

    func testListsAndValueCollectionsTakeSpecifiersToo() throws {
        let realm = try Realm()
        let person = Person()
        person.id = 1
        let dogs = try addDogs(realm)
        try realm.write {
            realm.add(person)
            person.dogs.append(objectsIn: dogs)
        }
        XCTAssertEqual(person.dogs.filter("age >= %d", 7).count, 2)
        XCTAssertEqual(realm.objects(Person.self).filter("ANY dogs.age == %ld", 3).count, 1)
        XCTAssertEqual(realm.objects(Person.self).filter("dogs.@count == %d", 5).count, 1)
    }

    func testUnsupportedSpecifiersAndWrongArgumentsTrap() {
        assertTraps("PredicateFormat.stringForInteger", message: "'%d' takes a whole number")
        assertTraps("PredicateFormat.nullForDouble", message: "'%f' takes a number")
        assertTraps("PredicateFormat.cString", message: "'%s' is not supported in a predicate")
        assertTraps("PredicateFormat.literalPercent", message: "'%%'")
        assertTraps("PredicateFormat.unknown", message: "a format specifier is %@, %K, or a number")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "PredicateFormat.stringForInteger": { _ in _ = try Realm().objects(Dog.self).filter("age > %d", "3") },
        "PredicateFormat.nullForDouble": { _ in _ = try Realm().objects(Dog.self).filter("age > %f", Optional<Int>.none as Any) },
        "PredicateFormat.cString": { _ in _ = try Realm().objects(Dog.self).filter("name == %s", "Rex") },
        "PredicateFormat.literalPercent": { _ in _ = try Realm().objects(Dog.self).filter("age %% 2 == 0") },
        "PredicateFormat.unknown": { _ in _ = try Realm().objects(Dog.self).filter("age == %y", 2) },
    ]
}
