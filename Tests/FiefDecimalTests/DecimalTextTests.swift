import XCTest
import FiefDecimal

/// FiefDecimal's text and conversions, the parts that the engine, the
/// overlay and the tool each had in a copy of their own: RealmSwift's
/// written form, the exact scientific form the tool's JSON uses, the
/// lenient and the exact parse, and the two ways realm-core turns a double
/// into a decimal.
final class DecimalTextTests: XCTestCase {
    private func d(_ text: String) -> Decimal128Bits { DecimalArithmetic.parse(Array(text.utf8))! }

    private func bits(negative: Bool = false, _ coefficient: UInt128, _ exponent: Int) -> Decimal128Bits {
        DecimalArithmetic.finite(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    /// RealmSwift's `Decimal128.stringValue` rules (the overlay's description).
    func testRealmText() {
        let cases: [(Decimal128Bits, String)] = [
            (bits(125, -1), "12.5"),
            (bits(1250, -2), "12.5"),
            (bits(10, -1), "1"),
            (bits(1, 3), "1E3"),
            (bits(5, -3), "5E-3"),
            (bits(15, -11), "1.5E-10"),
            (bits(negative: true, 42, 0), "-42"),
            (bits(0, 0), "0"),
            (bits(0, -6176), "0E-6176"),
            (bits(1_234_567_890_123_456_789_012, -2), "+1234567890123456789012E-2"),
            (bits(negative: true, 1_234_567_890_123_456_789_012, 3), "-1234567890123456789012E+3"),
            (DecimalArithmetic.nan, "NaN"),
            (DecimalArithmetic.negated(DecimalArithmetic.nan), "-NaN"),
            (DecimalArithmetic.infinity(negative: false), "Inf"),
            (DecimalArithmetic.infinity(negative: true), "-Inf"),
        ]
        for (value, text) in cases {
            XCTAssertEqual(DecimalArithmetic.realmText(value), text)
        }
    }

    /// The tool's JSON form: exact both ways, so the bits survive a round trip.
    func testScientificTextRoundTripsExactly() throws {
        let cases: [(String, String)] = [
            ("1.50", "1.50"), ("-0", "-0"), ("120000", "120000"), ("1.2E+5", "1.2E+5"),
            ("1E-7", "1E-7"), ("0.000001", "0.000001"), ("0.0000001", "1E-7"), ("12E3", "1.2E+4"),
            ("NaN", "NaN"), ("inf", "Infinity"), ("-Infinity", "-Infinity"),
            ("9999999999999999999999999999999999E6111", "9.999999999999999999999999999999999E+6144"),
            ("1E-6176", "1E-6176"), ("10E-6177", "1E-6176"), ("1234567890123456789012345678901234000", "1.234567890123456789012345678901234E+36"),
        ]
        for (input, written) in cases {
            let value = try DecimalArithmetic.parseExactly(input).get()
            XCTAssertEqual(DecimalArithmetic.scientificText(value), written, input)
            let again = try DecimalArithmetic.parseExactly(written).get()
            XCTAssertEqual(again, value, written)
        }
    }

    func testExactParseRefusesWhatItWouldRound() {
        func reason(_ text: String) -> String? {
            if case let .failure(error) = DecimalArithmetic.parseExactly(text) { return error.description }
            return nil
        }
        XCTAssertEqual(reason("12345678901234567890123456789012345"), "more than 34 significant digits")
        XCTAssertNil(reason("12345678901234567890123456789012340"))
        XCTAssertEqual(reason("1E7000"), "exponent out of decimal128's range")
        XCTAssertEqual(reason("15E-6177"), "exponent out of decimal128's range")
        XCTAssertNil(reason("10E-6177"))
        XCTAssertEqual(reason("abc"), "not a decimal number")
        XCTAssertEqual(reason(" 1"), "not a decimal number")
        XCTAssertEqual(reason("1e"), "not a decimal number")
        XCTAssertEqual(reason(""), "not a decimal number")
    }

    /// The lenient parse rounds where the exact one refuses, and agrees
    /// with it bit for bit where both take a text.
    func testLenientParse() throws {
        for text in ["1.50", "-0", "7", "1E-7", "+8.1E-8", ".5", "10.", "0E-6176", "123456789012345678901234567890.1234"] {
            XCTAssertEqual(DecimalArithmetic.parse(Array(text.utf8)), try DecimalArithmetic.parseExactly(text).get(), text)
        }
        XCTAssertEqual(d("12345678901234567890123456789012345"), bits(1_234_567_890_123_456_789_012_345_678_901_234, 1))
        XCTAssertEqual(d("12345678901234567890123456789012355"), bits(1_234_567_890_123_456_789_012_345_678_901_236, 1))
        XCTAssertEqual(d("  -2.5\t"), bits(negative: true, 25, -1))
        XCTAssertEqual(d("1E99999"), DecimalArithmetic.infinity(negative: false))
        XCTAssertEqual(d("1E-99999"), bits(0, -6176))
        XCTAssertEqual(d("-INFINITY"), DecimalArithmetic.infinity(negative: true))
        XCTAssertTrue(DecimalArithmetic.isNaN(d("nan")))
        for bad in ["", "-", ".", "1..2", "1e", "1e+", "1x", "x1", "1 2", "0x10"] {
            XCTAssertNil(DecimalArithmetic.parse(Array(bad.utf8)), bad)
        }
    }

    /// realm-core's `Decimal128(double)` (RealmSwift's `Decimal128(_: Double)`)
    /// against the conversion of its mixed arithmetic.
    func testDoubleConversions() {
        XCTAssertEqual(DecimalArithmetic.fromDoubleAsConstructed(0.1), bits(1_000_000_000_000_000, -16))
        XCTAssertEqual(DecimalArithmetic.realmText(DecimalArithmetic.fromDoubleAsConstructed(0.1)), "1E-1")
        XCTAssertEqual(DecimalArithmetic.fromDoubleAsConstructed(0.5), bits(5, -1))
        XCTAssertEqual(DecimalArithmetic.fromDoubleAsConstructed(42), bits(42, 0))
        XCTAssertEqual(DecimalArithmetic.compare(DecimalArithmetic.fromDoubleAsConstructed(0.1 + 0.2), d("0.3")), 0)
        XCTAssertEqual(DecimalArithmetic.fromDoubleAsConstructed(-0.0), bits(negative: true, 0, 0))
        XCTAssertEqual(DecimalArithmetic.fromDoubleAsConstructed(-.infinity), DecimalArithmetic.infinity(negative: true))
        XCTAssertTrue(DecimalArithmetic.isNaN(DecimalArithmetic.fromDoubleAsConstructed(.nan)))

        XCTAssertEqual(DecimalArithmetic.from(0.1, digits: 15), bits(1, -1))
        XCTAssertEqual(DecimalArithmetic.from(2.5, digits: 15), bits(25, -1))
        XCTAssertEqual(DecimalArithmetic.from(Double(Float(0.1)), digits: 7), bits(1, -1))
        XCTAssertEqual(DecimalArithmetic.from(1e300, digits: 15), bits(1, 300))

        XCTAssertEqual(DecimalArithmetic.nearestDouble(d("0.1")), 0.1)
        XCTAssertEqual(DecimalArithmetic.nearestDouble(d("-1.5E-10")), -1.5e-10)
        XCTAssertEqual(DecimalArithmetic.toDouble(d("125")), 125)
        XCTAssertEqual(DecimalArithmetic.toDouble(d("-1E2")), -100)
        XCTAssertEqual(DecimalArithmetic.nearestDouble(DecimalArithmetic.infinity(negative: true)), -.infinity)
    }
}
