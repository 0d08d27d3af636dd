import Fief
import Foundation
import XCTest

/// Decimal128 converts and prints as RealmSwift's does (RealmSwift's Decimal128 tests, in our
/// words): doubles to 15 significant digits, text with the point moved as far as the exponent
/// allows and trailing zeros dropped, NaN for null and for text that is not a number.
final class Decimal128RealmSwiftTests: XCTestCase {
    func testSumsAndDifferencesPrintWithoutTrailingZeros() {
        let a: Decimal128 = "1.234567", b: Decimal128 = "9.876543"
        XCTAssertEqual((a + b).description, "11.11111")
        XCTAssertEqual(a.description, "1.234567")
        XCTAssertEqual(b.description, "9.876543")
        let c: Decimal128 = "2.5", d: Decimal128 = "3.5"
        XCTAssertEqual((c - d).description, "-1")
        XCTAssertEqual(c.description, "2.5")
        XCTAssertEqual(Decimal128(string: "2.5").stringValue, "2.5")
        XCTAssertEqual((Decimal128(number: 2.5) - Decimal128(string: "5.5")).stringValue, "-3")
        XCTAssertEqual((Decimal128(number: 1.5) * Decimal128(string: "2.5")).stringValue, "3.75")
        XCTAssertEqual((Decimal128(number: 3.14159) + Decimal128(string: "3.14159")).stringValue, "6.28318")
    }

    func testDoublesConvertToFifteenSignificantDigits() {
        XCTAssertEqual(Decimal128(number: 3.14159).stringValue, "3.14159")
        XCTAssertEqual(Decimal128(number: 3.14159).doubleValue, 3.14159)
        XCTAssertEqual(Decimal128(number: 123456789).stringValue, "123456789")
        XCTAssertEqual(Decimal128(value: 3.14159).doubleValue, 3.14159)
        XCTAssertEqual(Decimal128(value: "123.456").stringValue, "123.456")
        // Exact values with few digits stay exact.
        XCTAssertEqual(Decimal128(10.5).stringValue, "10.5")
        XCTAssertEqual(Decimal128(0.5).stringValue, "5E-1")
        XCTAssertEqual(Decimal128(100.0).stringValue, "100")
        // Others round to 15 significant digits (the last bits of the Double go).
        XCTAssertEqual(Decimal128(12345.6789).stringValue, "12345.6789")
        XCTAssertEqual(Decimal128(9.99999999999999).stringValue, "9.99999999999999")
        XCTAssertEqual(Decimal128(3.141592653589793238).stringValue, "3.14159265358979")
        XCTAssertEqual(Decimal128(0.1 + 0.2), Decimal128(string: "0.3"))
        XCTAssertEqual(Decimal128(0.1 / 1000 / 1000 / 1000 / 1000 / 1000 / 1000).stringValue, "1E-19")
        XCTAssertEqual(Decimal128(0.01 * 1000 * 1000 * 1000 * 1000 * 1000 * 1000).stringValue, "1E16")
        XCTAssertEqual(Decimal128(1.797e308).stringValue, "1.797E308")
        XCTAssertEqual(Decimal128(-2.5e-300).stringValue, "-2.5E-300")
        XCTAssertEqual(Decimal128(1234567890123456789.0).stringValue, "1.23456789012346E18")
        let pi: Decimal128 = "3.141592653589793238"
        XCTAssertEqual(pi.stringValue, "3.141592653589793238")
        // Literals convert the same way.
        let d1: Decimal128 = 3.144444, d2: Decimal128 = 3.144444
        XCTAssertEqual(d1 + d2, 6.288888)
        let quotient: Decimal128 = Decimal128(number: 0.21) / "0.7"
        XCTAssertEqual(quotient, 0.3)
        XCTAssertEqual(quotient.stringValue, "3E-1")
        XCTAssertEqual(quotient.doubleValue, 0.3)
        XCTAssertEqual(("0.21" as Decimal128) * ("0.7" as Decimal128), 0.147)
        XCTAssertEqual((7 as Decimal128) * (3.5 as Decimal128), 24.5)
    }

    func testRealmCoreFormattingRules() {
        XCTAssertEqual(Decimal128(string: "0").stringValue, "0")
        XCTAssertEqual(Decimal128(string: "0.000").stringValue, "0E-3")
        XCTAssertEqual(Decimal128(string: "3.1416").stringValue, "3.1416")
        XCTAssertEqual(Decimal128(string: "3.1416e-4").stringValue, "3.1416E-4")
        XCTAssertEqual(Decimal128(string: "-3.1416e-4").stringValue, "-3.1416E-4")
        XCTAssertEqual(Decimal128(string: "10e2").stringValue, "1E3")
        XCTAssertEqual(Decimal128(string: "1e-00021").stringValue, "1E-21")
        XCTAssertEqual(Decimal128(string: "10.100e2").stringValue, "1010")
        XCTAssertEqual(Decimal128(string: ".00000001").stringValue, "1E-8")
        XCTAssertEqual(Decimal128(string: ".00000001000000000").stringValue, "1E-8")
        XCTAssertEqual(Decimal128(string: "1.14142E27").stringValue, "1.14142E27")
        XCTAssertEqual(Decimal128(string: "+Infinity").stringValue, "Inf")
        XCTAssertEqual(Decimal128(string: "-INF").stringValue, "-Inf")
        XCTAssertEqual(Decimal128(string: "9.99e6144").stringValue, "+9990000000000000000000000000000000E+6111")
        XCTAssertEqual(Decimal128(string: "1.701e38").stringValue, "1.701E38")
        XCTAssertEqual(Decimal128(string: "123.4500").description, "123.45")
        XCTAssertEqual(Decimal128(string: "-1.0").description, "-1")
    }

    func testNullAndTextThatIsNotANumberAreNaN() {
        let null = Decimal128(value: NSNull())
        XCTAssertTrue(null.isNaN)
        XCTAssertTrue(null.isSignaling)
        XCTAssertTrue(null.isSignalingNaN)
        XCTAssertTrue(Decimal128(value: Optional<Int>.none as Any).isNaN)
        XCTAssertTrue(Decimal128(string: "1.2.3").isNaN)
        XCTAssertTrue(Decimal128(value: "not a number").isNaN)
        let literal: Decimal128 = "0.0Q1"
        XCTAssertTrue(literal.isNaN)
        XCTAssertEqual(Decimal128(string: ":").stringValue, "NaN")
        XCTAssertEqual(Decimal128().doubleValue, 0)
    }

    func testDecodingFollowsRealmSwift() throws {
        struct Box: Decodable { var value: Decimal128 }
        func decode(_ json: String) throws -> Decimal128 {
            let box = try JSONDecoder().decode(Box.self, from: Data("{\"value\": \(json)}".utf8))
            return box.value
        }
        XCTAssertEqual(try decode("\"12.50\"").stringValue, "12.5")
        XCTAssertTrue(try decode("\"twelve\"").isNaN)
        XCTAssertEqual(try decode("9007199254740993").stringValue, "9007199254740993")
        XCTAssertEqual(try decode("2.5").stringValue, "2.5")
        XCTAssertThrowsError(try decode("true"))
        let encoded = try JSONEncoder().encode(["value": Decimal128(string: "1.50")])
        XCTAssertEqual(String(decoding: encoded, as: UTF8.self), "{\"value\":\"1.5\"}")
    }

    func testMagnitudeNegateAdvanceDistance() {
        var negative: Decimal128 = -123.321
        XCTAssertEqual(negative.magnitude, 123.321)
        negative.negate()
        XCTAssertEqual(negative, 123.321)
        XCTAssertEqual((-123.321 as Decimal128).advanced(by: -123.321), -246.642)
        XCTAssertEqual((-150.0 as Decimal128).advanced(by: 300.0), 150.0)
        XCTAssertEqual((10.0 as Decimal128).distance(to: 5.0), -5.0)
        XCTAssertEqual((10.0 as Decimal128).distance(to: 15.0), 5.0)
        XCTAssertGreaterThan(Decimal128.max, Decimal128.min)
    }

    /// Stored and read back, a decimal keeps its value and prints the same.
    func testStoredDecimalsPrintAsBefore() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "decimal-\(UUID())"))
        let values: [Decimal128] = ["11.11111", "-1.0", "0.000", "1E+3", 0.1, "123456789012345678901234567890.1234"]
        try realm.write {
            for value in values { realm.create(AllTypes.self).decimal = value }
        }
        XCTAssertEqual(realm.objects(AllTypes.self).map(\.decimal.stringValue),
                       ["11.11111", "-1", "0E-3", "1E3", "1E-1", "+1234567890123456789012345678901234E-4"])
    }
}
