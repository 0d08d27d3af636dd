import Fief
import Foundation
import XCTest

/// ObjectId and Decimal128, which the overlay implements itself (no realm needed).
final class ObjectIdTests: XCTestCase {
    func testStringRoundTrip() throws {
        let id = try ObjectId(string: "11223344556677889900aabb")
        XCTAssertEqual(id.stringValue, "11223344556677889900aabb")
        XCTAssertEqual(ObjectId("11223344556677889900AABB"), id)
        XCTAssertEqual(id.description, "11223344556677889900aabb")
        XCTAssertEqual(id.timestamp, Date(timeIntervalSince1970: 0x11223344))
    }

    func testInvalidStringsThrow() {
        XCTAssertThrowsError(try ObjectId(string: "1234"))
        XCTAssertThrowsError(try ObjectId(string: "11223344556677889900aabz"))
        XCTAssertThrowsError(try ObjectId(string: ""))
    }

    func testGenerateIsUniqueAndTimestamped() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let ids = (0..<1000).map { _ in ObjectId.generate() }
        XCTAssertEqual(Set(ids).count, 1000)
        XCTAssertGreaterThanOrEqual(ids[0].timestamp.timeIntervalSince1970, before)
        XCTAssertEqual(ObjectId(), try ObjectId(string: "000000000000000000000000"))
    }

    func testOrdering() throws {
        let a = try ObjectId(string: "000000000000000000000001")
        let b = try ObjectId(string: "000000000000000000000002")
        let c = try ObjectId(string: "010000000000000000000000")
        XCTAssertLessThan(a, b)
        XCTAssertLessThan(b, c)
        XCTAssertEqual([c, a, b].sorted(), [a, b, c])
    }

    func testTimestampInitializer() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let id = ObjectId(timestamp: date, machineId: 1, processId: 2)
        XCTAssertEqual(id.timestamp, date)
    }

    func testCodable() throws {
        let id = ObjectId.generate()
        let data = try JSONEncoder().encode([id])
        XCTAssertEqual(try JSONDecoder().decode([ObjectId].self, from: data), [id])
    }
}

final class Decimal128Tests: XCTestCase {
    func testParsingAndFormatting() throws {
        XCTAssertEqual(Decimal128(string: "0").stringValue, "0")
        XCTAssertEqual(Decimal128(string: "12.50").stringValue, "12.5")
        XCTAssertEqual(Decimal128(string: "-0.001").stringValue, "-1E-3")
        XCTAssertEqual(Decimal128(string: "1e3").stringValue, "1E3")
        XCTAssertEqual(Decimal128(string: "1.5E-10").stringValue, "1.5E-10")
        XCTAssertEqual(Decimal128(string: "123456789012345678901234567890.1234").stringValue,
                       "+1234567890123456789012345678901234E-4")
        XCTAssertTrue(Decimal128(string: "NaN").isNaN)
        XCTAssertTrue(Decimal128(string: "-Inf").isInfinite)
        // Not a number: NaN, as in RealmSwift.
        XCTAssertTrue(Decimal128(string: "abc").isNaN)
        XCTAssertTrue(Decimal128(string: "1.2.3").isNaN)
    }

    func testRoundsBeyond34Digits() throws {
        // Half to even: ...34.5 stays ...34, ...35.5 becomes ...36.
        let value = Decimal128(string: "1234567890123456789012345678901234.5")
        XCTAssertEqual(value.stringValue, "+1234567890123456789012345678901234E+0")
        let up = Decimal128(string: "1234567890123456789012345678901235.5")
        XCTAssertEqual(up.stringValue, "+1234567890123456789012345678901236E+0")
        let big = Decimal128(string: "12345678901234567890123456789012345678")
        XCTAssertEqual(big.stringValue, "+1234567890123456789012345678901235E+4")
    }

    func testInitializers() {
        XCTAssertEqual(Decimal128(42).stringValue, "42")
        XCTAssertEqual(Decimal128(-7).stringValue, "-7")
        XCTAssertEqual(Decimal128(0.1).stringValue, "1E-1")
        XCTAssertEqual(Decimal128(Decimal(string: "3.14159")!).stringValue, "3.14159")
        let literal: Decimal128 = 5
        XCTAssertEqual(literal, Decimal128(5))
        let floatLiteral: Decimal128 = 2.5
        XCTAssertEqual(floatLiteral.stringValue, "2.5")
        let stringLiteral: Decimal128 = "19.99"
        XCTAssertEqual(stringLiteral.doubleValue, 19.99)
    }

    func testComparisonIsNumeric() throws {
        XCTAssertEqual(Decimal128(string: "1.0"), Decimal128(string: "1"))
        XCTAssertEqual(Decimal128(string: "1.0").hashValue, Decimal128(string: "1.00").hashValue)
        XCTAssertEqual(Decimal128(string: "0"), Decimal128(string: "-0.000"))
        XCTAssertLessThan(Decimal128(string: "-5"), Decimal128(string: "-4.99"))
        XCTAssertLessThan(Decimal128(string: "0.999"), Decimal128(1))
        XCTAssertLessThan(Decimal128(string: "1E+2"), Decimal128(string: "101"))
        XCTAssertLessThan(Decimal128(1000), Decimal128(string: "Inf"))
        XCTAssertFalse(Decimal128(string: "NaN") < Decimal128(1))
        XCTAssertEqual([Decimal128(3), Decimal128(-1), Decimal128(2)].sorted(), [Decimal128(-1), Decimal128(2), Decimal128(3)])
        XCTAssertEqual(-Decimal128(3), Decimal128(-3))
    }
}
