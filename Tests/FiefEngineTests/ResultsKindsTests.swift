import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// One results kind: results of objects and of values chained and read
/// through the shared `Results` API give the same answers for the ages of
/// four objects and a list of the same numbers; each kind's rows are what
/// `currentRows` reports; the checked downcasts refuse the other kind.
final class ResultsKindsTests: XCTestCase {
    private let schema = makeSchema([
        ("Player", [prop("age", .int), Property(name: "scores", type: .int, collection: .list)]),
    ])
    private let numbers: [Int64] = [5, 3, 9, 3]

    /// The players (as results of objects) and the first one's scores (as results of values).
    private func both(_ db: DB) throws -> [Results] {
        let players = try db.write { try numbers.map { try db.create("Player", [("age", .int($0))]) } }
        try db.write { try db.append("Player", players[0], "scores", numbers.map { .int($0) }) }
        let values = try ValueResults(realm: db.realm, list: db.pkey("Player", "scores"), of: players[0], in: db.cls("Player"))
        return [try db.results("Player"), values]
    }

    /// The ints `results` hold: the ages of objects, or the values.
    private func ints(_ db: DB, _ results: Results) throws -> [Int64] {
        try (0..<results.count()).map { i in
            let value: TV
            if results.holdsObjects {
                value = try db.get("Player", try results.objects(for: "test").key(at: i), "age")
            } else {
                value = TV(try results.values(for: "test").value(at: i))
            }
            guard case .int(let n) = value else { XCTFail("\(value)"); return -1 }
            return n
        }
    }

    func testSameChainsSameAnswers() throws {
        let db = try DB.open(tempDir().file(), schema)
        for results in try both(db) {
            let key = results.holdsObjects ? "age" : "self"
            XCTAssertEqual(try ints(db, results), numbers)
            XCTAssertEqual(try ints(db, try results.filtered("\(key) > 3", arguments: [])), [5, 9])
            XCTAssertEqual(try ints(db, try results.sorted(by: [(key, false)])), [9, 5, 3, 3])
            XCTAssertEqual(try ints(db, try results.sorted(by: [(key, false)]).sorted(by: [(key, true)])), [3, 3, 5, 9])
            XCTAssertEqual(try ints(db, try results.distinct(by: [key])), [5, 3, 9])
            XCTAssertEqual(try ints(db, try results.limited(to: 2).sorted(by: [(key, true)])), [3, 5])
            XCTAssertEqual(try ints(db, try results.sorted(by: [(key, true)]).limited(to: 2)), [3, 3])
            expectError(.queryInvalid, "filter after limit") { try results.limited(to: 1).filtered("\(key) > 3", arguments: []) }
            expectError(.invalidArgument, "negative limit") { try results.limited(to: -1) }
            let staged = try results.filtered("\(key) >= 3 SORT(\(key) DESC)", arguments: []).distinct(by: [key]).limited(to: 2)
            XCTAssertEqual(try ints(db, staged), [9, 5])
            XCTAssertEqual(try staged.queryDescription(), "\(key) >= 3 SORT(\(key) DESC) DISTINCT(\(key)) LIMIT(2)")
            let property = results.holdsObjects ? db.pkey("Player", "age") : 0
            XCTAssertEqual(TV(try results.aggregate(.sum, property: property)), .int(20))
            XCTAssertEqual(TV(try results.filtered("\(key) > 3", arguments: []).aggregate(.max, property: property)), .int(9))
            XCTAssertTrue(results.isValid)
            XCTAssertEqual(results.elementType.type, results.holdsObjects ? .link : .int)
        }
    }

    func testCurrentRowsAreKeysOrPositions() throws {
        let db = try DB.open(tempDir().file(), schema)
        let kinds = try both(db)
        let keys = try db.results("Player").allKeys()
        let objects = try kinds[0].sorted(by: [("age", true)])
        let values = try kinds[1].sorted(by: [("self", true)])
        // Ages 3, 3, 5, 9: objects 1, 3, 0, 2 (ties in order); positions likewise.
        XCTAssertEqual(try objects.currentRows().rows, [keys[1], keys[3], keys[0], keys[2]])
        XCTAssertEqual(try values.currentRows().rows, [1, 3, 0, 2])
        XCTAssertEqual(try kinds[1].currentRows().rows, [0, 1, 2, 3])
        let before = try values.currentRows().stamp
        try db.write { try db.append("Player", keys[0], "scores", [.int(4)]) }
        let after = try values.currentRows()
        XCTAssertGreaterThan(after.stamp, before)
        XCTAssertEqual(after.rows, [1, 3, 4, 0, 2])
    }

    func testCallsForOneKindRefuseTheOther() throws {
        let db = try DB.open(tempDir().file(), schema)
        let kinds = try both(db)
        let refused = expectError(.invalidArgument) { try kinds[1].objects(for: "fief_results_get_key") }
        XCTAssertEqual(refused?.message, "fief_results_get_key needs results of objects, but these results hold values (made from a list, set or map of values): read them with fief_results_get_value")
        let refusedValues = expectError(.invalidArgument) { try kinds[0].values(for: "fief_results_get_value") }
        XCTAssertEqual(refusedValues?.message, "fief_results_get_value needs results of values (made from a list, set or map of values), but these results hold objects: read them with fief_results_get_object or fief_results_get_values")
        XCTAssertNoThrow(try kinds[0].objects(for: "x"))
        XCTAssertNoThrow(try kinds[1].values(for: "x"))
        expectError(.queryInvalid) { try kinds[1].sorted(by: [("age", true)]) }
        expectError(.queryInvalid) { try kinds[1].distinct(by: ["self", "self"]) }
        expectError(.queryInvalid) { try kinds[0].sorted(by: [("self", true)]) }
    }
}
