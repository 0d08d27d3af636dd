import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// `self` over results of objects (RealmSwift's `SELF == %@`, `SELF IN
/// %@`): the object tested compared with objects given with the query, by
/// identity; and a count of a graph query followed by its iteration (the
/// scan that counted serves the iteration, never a stale one).
final class SelfObjectQueryTests: XCTestCase {
    private func dogsAndPeople() throws -> (DB, dogs: [Int64], people: [Int64]) {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string, .indexed)]),
            ObjectClass(name: "Dog", properties: [prop("id", .int, .primaryKey), prop("age", .int),
                                                  Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ]))
        let (dogs, people) = try db.write { () -> ([Int64], [Int64]) in
            let people = try db.createMany("Person", ["name"], (0..<40).map { [.string("p\($0 % 10)")] })
            let dogs = try db.createMany("Dog", ["id", "age"], (0..<700).map { [.int(Int64($0)), .int(Int64($0 % 9))] })
            let person = db.cls("Person")
            for (i, key) in dogs.enumerated() where i % 6 != 0 { try db.set("Dog", key, "owner", .link(person, people[(i * 13) % people.count])) }
            return (dogs, people)
        }
        return (db, dogs, people)
    }

    private func keys(_ db: DB, _ predicate: String, _ args: [TV], list: Bool = false) throws -> [Int64] {
        try TV.withValues(args) { values in
            try db.results("Dog").filtered(predicate, arguments: list ? [QueryArgument(values: Array(values), isList: true)]
                                                                       : values.map { QueryArgument(values: [$0], isList: false) })
        }.allKeys()
    }

    private func error(_ db: DB, _ predicate: String, _ args: [TV]) -> FiefError? {
        do {
            _ = try keys(db, predicate, args)
            return nil
        } catch let error as FiefError {
            return error
        } catch {
            return FiefError(.internal, "\(error)")
        }
    }

    func testSelfEqualsAnObjectArgumentMatchesThatObjectOnly() throws {
        let (db, dogs, _) = try dogsAndPeople()
        let dog = db.cls("Dog")
        for i in [0, 1, 255, 256, 699] {
            XCTAssertEqual(try keys(db, "self == $0", [.link(dog, dogs[i])]), [dogs[i]])
            XCTAssertEqual(try keys(db, "SELF == $0", [.link(dog, dogs[i])]), [dogs[i]])
            XCTAssertEqual(try keys(db, "$0 == self", [.link(dog, dogs[i])]), [dogs[i]])
            XCTAssertEqual(try keys(db, "self != $0", [.link(dog, dogs[i])]), dogs.filter { $0 != dogs[i] })
            XCTAssertEqual(try keys(db, "NOT (self == $0)", [.link(dog, dogs[i])]), dogs.filter { $0 != dogs[i] })
            XCTAssertEqual(try keys(db, "self == $0 AND age == $1", [.link(dog, dogs[i]), .int(Int64(i % 9))]), [dogs[i]])
            XCTAssertEqual(try keys(db, "self == $0 AND age != $1", [.link(dog, dogs[i]), .int(Int64(i % 9))]), [])
        }
        // obj('Dog', pk) names the same object.
        XCTAssertEqual(try keys(db, "self == obj('Dog', 42)", []), [dogs[42]])
        XCTAssertEqual(try keys(db, "self == obj('Dog', 100000)", []), [])
        // Null equals no object.
        XCTAssertEqual(try keys(db, "self == $0", [.null]), [])
        XCTAssertEqual(try keys(db, "self != nil", []), dogs)
        // A deleted object is no longer matched.
        try db.write { try db.delete("Dog", dogs[3]) }
        XCTAssertEqual(try keys(db, "self == $0", [.link(dog, dogs[3])]), [])
        XCTAssertEqual(try keys(db, "self != $0", [.link(dog, dogs[3])]), dogs.filter { $0 != dogs[3] })
    }

    func testSelfInAListOfObjects() throws {
        let (db, dogs, _) = try dogsAndPeople()
        let dog = db.cls("Dog")
        let chosen = [dogs[600], dogs[5], dogs[300], dogs[5]]
        let expected = Set(chosen).sorted()
        XCTAssertEqual(try keys(db, "self IN $0", chosen.map { .link(dog, $0) }, list: true), expected)
        XCTAssertEqual(try keys(db, "self == ANY $0", chosen.map { .link(dog, $0) }, list: true), expected)
        XCTAssertEqual(try keys(db, "self == NONE $0", chosen.map { .link(dog, $0) }, list: true), dogs.filter { !expected.contains($0) })
        XCTAssertEqual(try keys(db, "self IN $0", [.link(dog, dogs[1]), .null], list: true), [dogs[1]])
        XCTAssertEqual(try keys(db, "self IN $0", [], list: true), [])
        XCTAssertEqual(try keys(db, "self IN {obj('Dog', 7), obj('Dog', 9), $0}", [.link(dog, dogs[8])]), [dogs[7], dogs[8], dogs[9]])
        // Through a count too.
        let results = try TV.withValues(chosen.map { .link(dog, $0) }) { values in
            try db.results("Dog").filtered("self IN $0", arguments: [QueryArgument(values: Array(values), isList: true)])
        }
        XCTAssertEqual(try results.count(), 3)
    }

    func testSelfComparedWithAnythingButObjectsOfItsClassIsRefused() throws {
        let (db, dogs, people) = try dogsAndPeople()
        let person = db.cls("Person"), dog = db.cls("Dog")
        XCTAssertEqual(error(db, "self == $0", [.link(person, people[0])])?.code, .queryArgument)
        XCTAssertEqual(error(db, "self == $0", [.link(person, people[0])])?.message,
                       "'self' is an object of class 'Dog', compared with objects of that class (or null); argument 0 is an object of class 'Person'")
        XCTAssertEqual(error(db, "self == $0", [.int(1)])?.code, .queryArgument)
        XCTAssertEqual(error(db, "self == 5", [])?.code, .queryInvalid)
        XCTAssertEqual(error(db, "self == obj('Person', 1)", [])?.code, .queryInvalid)
        XCTAssertEqual(error(db, "self > $0", [.link(dog, dogs[0])])?.code, .queryInvalid)
        XCTAssertEqual(error(db, "self == age", [])?.code, .queryInvalid)
        XCTAssertEqual(error(db, "self == ALL {obj('Dog', 1)}", [])?.code, .queryInvalid)
        XCTAssertEqual(error(db, "self != {obj('Dog', 1)}", [])?.code, .queryInvalid)
        XCTAssertEqual(error(db, "self == $1", [.link(dog, dogs[0])])?.code, .queryArgument)
    }

    func testCountThenIterationOfAGraphQueryAgreeWithAFreshEvaluation() throws {
        let (db, dogs, people) = try dogsAndPeople()
        let person = db.cls("Person")
        for (predicate, args) in [("owner.name == $0", [TV.string("p3")]), ("owner.name == $0", [TV.string("none")]),
                                  ("owner.name BEGINSWITH $0", [TV.string("p1")])] {
            let counted = try TV.withValues(args) { values in
                try db.results("Dog").filtered(predicate, arguments: values.map { QueryArgument(values: [$0], isList: false) })
            }
            let n = try counted.count()
            let expected = try keys(db, predicate, args)
            XCTAssertEqual(n, expected.count, predicate)
            XCTAssertEqual(try counted.allKeys(), expected, predicate)
            XCTAssertEqual(try counted.count(), expected.count, predicate)
        }
        // A change between the count and the iteration: the iteration sees it.
        let results = try TV.withValues([.string("p3")]) { values in
            try db.results("Dog").filtered("owner.name == $0", arguments: [QueryArgument(values: [values[0]], isList: false)])
        }
        let before = try results.count()
        let target = people[0]
        try db.write {
            try db.set("Person", target, "name", .string("p3"))
            try db.set("Dog", dogs[0], "owner", .link(person, target))
        }
        let after = try keys(db, "owner.name == $0", [.string("p3")])
        XCTAssertGreaterThan(after.count, before)
        XCTAssertEqual(try results.allKeys(), after)
        XCTAssertEqual(try results.count(), after.count)
    }
}
