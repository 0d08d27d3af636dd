import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Where scalar queries must answer as realm-core does: constants converted
/// to the property's type, null in every operator, the constant-first
/// string operators, numbers compared exactly across types.  The expected
/// counts come from realm-core's own parser tests (test_parser.cpp) where
/// it has the case.
final class QuerySemanticsTests: XCTestCase {
    private func count(_ db: DB, _ className: String, _ predicate: String, _ args: [TV] = [], file: StaticString = #filePath, line: UInt = #line) -> Int {
        do {
            return try db.query(className, predicate, args).count()
        } catch {
            XCTFail("\(predicate): \(error)", file: file, line: line)
            return -1
        }
    }

    private static func decimal(_ text: String) -> TV {
        .decimal(DecimalArithmetic.parse(Array(text.utf8))!)
    }

    // MARK: Constants converted to the property's type

    func testADoubleAgainstAFloatPropertyIsReadAsAFloat() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("F", [prop("f", .float), prop("of", .float, .nullable)])]))
        try db.write {
            _ = try db.createMany("F", ["f", "of"], [[.float(0.1), .float(0.1)], [.float(2.5), .null], [.float(1e-3), .float(-7.7)]])
        }
        // 0.1 is no float: realm-core makes the constant a float first.
        XCTAssertEqual(count(db, "F", "f == 0.1"), 1)
        XCTAssertEqual(count(db, "F", "of == 0.1"), 1)
        XCTAssertEqual(count(db, "F", "f != 0.1"), 2)
        XCTAssertEqual(count(db, "F", "f <= 0.1"), 2)
        XCTAssertEqual(count(db, "F", "f > 0.1"), 1)
        XCTAssertEqual(count(db, "F", "0.001 == f"), 1)
        XCTAssertEqual(count(db, "F", "of == -7.7"), 1)
        XCTAssertEqual(count(db, "F", "f == $0", [.double(0.1)]), 1)
        XCTAssertEqual(count(db, "F", "f == 0.1 OR f == 2.5"), 2)
        // A float argument is a float already.
        XCTAssertEqual(count(db, "F", "f == $0", [.float(0.1)]), 1)
    }

    func testADoubleAgainstAnIntPropertyIsAnIntWhenItIsOne() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("I", [prop("i", .int)])]))
        try db.write { _ = try db.createMany("I", ["i"], [[.int(2)], [.int(3)], [.int(Int64.max)]]) }
        XCTAssertEqual(count(db, "I", "i == 2.0"), 1)
        XCTAssertEqual(count(db, "I", "i == 2.5"), 0)
        XCTAssertEqual(count(db, "I", "i > 2.5"), 2)
        XCTAssertEqual(count(db, "I", "i < 3.5"), 2)
        // Exact across types: Int64.max is not the double 2^63.
        XCTAssertEqual(count(db, "I", "i == $0", [.double(9_223_372_036_854_775_807.0)]), 0)
        XCTAssertEqual(count(db, "I", "i < $0", [.double(9_223_372_036_854_775_807.0)]), 3)
        XCTAssertEqual(count(db, "I", "i < $0", [.decimal(DecimalArithmetic.from(Int64.max))]), 2)
        expectError(.queryInvalid) { try db.query("I", "i > inf") }
        expectError(.queryArgument) { try db.query("I", "i > $0", [.double(.infinity)]) }
    }

    func testDecimalsCompareExactly() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("D", [prop("d", .decimal128)])]))
        try db.write {
            _ = try db.createMany("D", ["d"], [[Self.decimal("0.1")], [Self.decimal("3.141592653589793238")], [Self.decimal("12")]])
        }
        // A double argument becomes the decimal realm-core makes of it (15 digits).
        XCTAssertEqual(count(db, "D", "d == $0", [.double(0.1)]), 1)
        XCTAssertEqual(count(db, "D", "d == $0", [.int(12)]), 1)
        XCTAssertEqual(count(db, "D", "d == $0", [Self.decimal("3.141592653589793238")]), 1)
        // 3.141592653589793 (a double's digits) is not the stored decimal.
        XCTAssertEqual(count(db, "D", "d == $0", [Self.decimal("3.141592653589793")]), 0)
        XCTAssertEqual(count(db, "D", "d > $0", [Self.decimal("3.141592653589793")]), 2)
    }

    func testANumericStringAgainstANumericPropertyIsItsNumber() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("N", [prop("i", .int), prop("d", .double), prop("f", .float), prop("m", .decimal128)])]))
        try db.write {
            _ = try db.createMany("N", ["i", "d", "f", "m"], [
                [.int(0), .double(0.5), .float(0.1), Self.decimal("1.25")],
                [.int(1), .double(1.5), .float(2), Self.decimal("2")],
                [.int(2), .double(-3), .float(-1), Self.decimal("-8.1E-8")],
            ])
        }
        // realm-core's "a == '0' or a == '1' or a == '2'".
        XCTAssertEqual(count(db, "N", "i == '0' or i == '1' or i == '2'"), 3)
        XCTAssertEqual(count(db, "N", "i > '0'"), 2)
        XCTAssertEqual(count(db, "N", "i == ' 1'"), 1)
        XCTAssertEqual(count(db, "N", "d == '1.5'"), 1)
        XCTAssertEqual(count(db, "N", "d < '-1e0'"), 1)
        XCTAssertEqual(count(db, "N", "f == '0.1'"), 1)
        XCTAssertEqual(count(db, "N", "m == '1.25'"), 1)
        XCTAssertEqual(count(db, "N", "m == '+8.1E-8'"), 0)
        XCTAssertEqual(count(db, "N", "m == '-8.1E-8'"), 1)
        XCTAssertEqual(count(db, "N", "i == $0", [.string("2")]), 1)
        // Text that spells no number stays a string, and a string is no int.
        expectError(.queryInvalid) { try db.query("N", "i == 'two'") }
        expectError(.queryInvalid) { try db.query("N", "m == 'x1'") }
        expectError(.queryArgument) { try db.query("N", "d == $0", [.string("abc")]) }
    }

    // MARK: Null

    /// realm-core's Parser_StringOperations null cases, on a nullable string.
    func testNullAsAStringPattern() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("P", [prop("name", .string, .nullable)])]))
        try db.write { _ = try db.createMany("P", ["name"], [[.string("Billy")], [.string("Bob")], [.string("")], [.null]]) }
        let everyRow = 4
        let cases: [(String, Int)] = [
            ("name == NULL", 1), ("NULL == name", 1), ("name != NULL", 3), ("name ==[c] NULL", 1), ("NULL !=[c] name", 3),
            ("name CONTAINS NULL", everyRow), ("name CONTAINS[c] NULL", everyRow),
            ("name BEGINSWITH NULL", everyRow), ("name BEGINSWITH[c] NULL", everyRow),
            ("name ENDSWITH NULL", everyRow), ("name ENDSWITH[c] NULL", everyRow),
            ("name LIKE NULL", 1), ("name LIKE[c] NULL", 1),
            ("NULL CONTAINS name", 0), ("NULL CONTAINS[c] name", 0),
            ("NULL BEGINSWITH name", 0), ("NULL BEGINSWITH[c] name", 0),
            ("NULL ENDSWITH name", 0), ("NULL ENDSWITH[c] name", 0),
            ("NULL LIKE name", 1), ("NULL LIKE[c] name", 1),
            ("name CONTAINS $0", 4),
        ]
        for (predicate, expected) in cases {
            XCTAssertEqual(count(db, "P", predicate, predicate.contains("$0") ? [.null] : []), expected, predicate)
        }
    }

    /// realm-core's Parser_Binary null cases: as for strings, except that
    /// CONTAINS[c] NULL matches the non-null values only.
    func testNullAsABinaryPattern() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("B", [prop("data", .binary, .nullable)])]))
        try db.write {
            _ = try db.createMany("B", ["data"], [[.binary(Array("knife".utf8))], [.binary(Array("plate".utf8))], [.binary(Array("fork".utf8))], [.null], [.null]])
        }
        let cases: [(String, Int)] = [
            ("data CONTAINS NULL", 5), ("data BEGINSWITH NULL", 5), ("data ENDSWITH NULL", 5), ("data LIKE NULL", 2),
            ("data CONTAINS[c] NULL", 3), ("data BEGINSWITH[c] NULL", 5), ("data ENDSWITH[c] NULL", 5), ("data LIKE[c] NULL", 2),
            ("NULL CONTAINS data", 0), ("NULL BEGINSWITH data", 0), ("NULL ENDSWITH data", 0), ("NULL LIKE data", 2),
            ("NULL CONTAINS[c] data", 0), ("NULL BEGINSWITH[c] data", 0), ("NULL ENDSWITH[c] data", 0), ("NULL LIKE[c] data", 2),
        ]
        for (predicate, expected) in cases {
            XCTAssertEqual(count(db, "B", predicate), expected, predicate)
        }
    }

    /// Null against <, <=, >, >=: null equals null, so <= and >= match the
    /// nulls, and < and > match nothing; a literal and an argument alike.
    func testNullAgainstTheOrderingOperators() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("O", [
            prop("i", .int, .nullable), prop("s", .string, .nullable), prop("u", .uuid, .nullable), prop("n", .int), prop("b", .bool, .nullable),
        ])]))
        try db.write {
            _ = try db.createMany("O", ["i", "s", "u", "n"], [
                [.int(5), .string("a"), .uuid(UUIDBytes(high: 1, low: 2)), .int(1)],
                [.null, .null, .null, .int(2)],
                [.int(-1), .string(""), .null, .int(3)],
            ])
        }
        let cases: [(String, Int)] = [
            ("i > null", 0), ("i < null", 0), ("i >= null", 1), ("i <= null", 1), ("null < i", 0), ("null >= i", 1),
            ("s > nil", 0), ("s <= nil", 1), ("u > null", 0), ("u >= null", 2), ("u <= $0", 2),
            ("n >= null", 0), ("n < null", 0), ("i > $0", 0), ("i >= $0", 1),
        ]
        for (predicate, expected) in cases {
            XCTAssertEqual(count(db, "O", predicate, predicate.contains("$0") ? [.null] : []), expected, predicate)
        }
        // Bools have no order, null or not.
        expectError(.queryInvalid) { try db.query("O", "b > null") }
    }

    // MARK: The constant first

    /// `'abc' CONTAINS name`: the constant is searched for the value; as in
    /// realm-core, a null value is contained in every constant and begins,
    /// ends or is like none.
    func testAConstantFirstIsSearchedForTheValue() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("S", [prop("s", .string, .nullable), prop("b", .binary)])]))
        try db.write {
            _ = try db.createMany("S", ["s", "b"], [
                [.string("ell"), .binary([1, 2])], [.string("Hel"), .binary([3])], [.string("xyz"), .binary([])], [.null, .binary([2, 3])], [.string(""), .binary([9])],
            ])
        }
        let cases: [(String, Int)] = [
            ("'hello' CONTAINS s", 3), ("'hello' CONTAINS[c] s", 4), ("'hello' BEGINSWITH s", 1), ("'hello' BEGINSWITH[c] s", 2),
            ("'hello' ENDSWITH s", 1), ("'hello' LIKE s", 0), ("'hello' LIKE 'h*o'", 5), ("'Hello' LIKE[c] s", 0),
            ("bin(B64\"AQID\") CONTAINS b", 4), ("bin(B64\"AQID\") BEGINSWITH b", 2),
        ]
        for (predicate, expected) in cases {
            XCTAssertEqual(count(db, "S", predicate), expected, predicate)
        }
        // A string searched for a binary, or a number for a string, is refused.
        expectError(.queryInvalid) { try db.query("S", "'abc' CONTAINS b") }
        expectError(.queryInvalid) { try db.query("S", "5 CONTAINS s") }
    }

    func testDecimalText() {
        XCTAssertEqual(DecimalArithmetic.parse(Array("1.50".utf8)).map { DecimalArithmetic.compare($0, DecimalArithmetic.from(Int64(3))) }, -1)
        XCTAssertNotNil(DecimalArithmetic.parse(Array("+8.1E-8".utf8)))
        XCTAssertNotNil(DecimalArithmetic.parse(Array(" 10. ".utf8)))
        XCTAssertNotNil(DecimalArithmetic.parse(Array(".5".utf8)))
        XCTAssertNil(DecimalArithmetic.parse(Array("1e".utf8)))
        XCTAssertNil(DecimalArithmetic.parse(Array("1.2.3".utf8)))
        XCTAssertNil(DecimalArithmetic.parse(Array("".utf8)))
        XCTAssertNil(DecimalArithmetic.parse(Array("x".utf8)))
        XCTAssertTrue(DecimalArithmetic.isNaN(DecimalArithmetic.parse(Array("NaN".utf8))!))
        // 40 digits round to 34, half to even, with the tail seen.
        let long = DecimalArithmetic.parse(Array("1234567890123456789012345678901234500000001".utf8))!
        let rounded = DecimalArithmetic.parse(Array("1234567890123456789012345678901235e9".utf8))!
        XCTAssertEqual(DecimalArithmetic.compare(long, rounded), 0)
        XCTAssertEqual(DecimalArithmetic.compare(DecimalArithmetic.parse(Array("0.1".utf8))!, DecimalArithmetic.from(0.1, digits: 15)), 0)
    }
}

extension QuerySemanticsTests {
    /// A mixed property of objects filters as mixed elements do: numbers by
    /// value across types, each type apart from the others, links by
    /// identity; null as a string pattern as realm-core's QueryValue rules
    /// give it (CONTAINS null finds the non-null values).
    func testMixedPropertiesOfObjects() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([
            ("Dog", [prop("name", .string)]),
            ("H", [prop("n", .int), prop("anyValue", .mixed)]),
        ]))
        let (rex, _) = try db.write { () -> (Int64, Int64) in
            let rex = try db.create("Dog", [("name", .string("Rex"))])
            let fido = try db.create("Dog", [("name", .string("Fido"))])
            let values: [TV] = [.int(1), .double(1), .string("1"), .bool(true), .null, .string("apple"), .binary(Array("apple".utf8)),
                                .link(db.cls("Dog"), rex), .link(db.cls("Dog"), fido), .float(2.5)]
            for (i, v) in values.enumerated() { _ = try db.create("H", [("n", .int(Int64(i))), ("anyValue", v)]) }
            return (rex, fido)
        }
        let cases: [(String, [TV], Int)] = [
            ("anyValue == 1", [], 2), ("anyValue == '1'", [], 1), ("anyValue == true", [], 1), ("anyValue == nil", [], 1),
            ("anyValue != nil", [], 9), ("anyValue > 1", [], 1), ("anyValue >= 1", [], 3), ("anyValue BEGINSWITH 'ap'", [], 1),
            ("anyValue == $0", [.binary(Array("apple".utf8))], 1), ("anyValue == $0", [.link(db.cls("Dog"), rex)], 1),
            ("anyValue != $0", [.link(db.cls("Dog"), rex)], 9), ("anyValue == n", [], 1), ("n == anyValue", [], 1),
            ("anyValue CONTAINS nil", [], 9), ("anyValue LIKE nil", [], 1), ("anyValue BEGINSWITH nil", [], 0),
            ("'pineapple' CONTAINS anyValue", [], 2), ("anyValue <= nil", [], 1),
        ]
        for (predicate, args, expected) in cases {
            XCTAssertEqual(count(db, "H", predicate, args), expected, predicate)
        }
        expectError(.queryInvalid) { try db.query("H", "anyValue > true") }
        expectError(.queryInvalid) { try db.query("H", "anyValue CONTAINS 1") }
    }
}
