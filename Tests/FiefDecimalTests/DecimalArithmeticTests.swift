import XCTest
import FiefDecimal

/// Decimal128 multiplication and division as IEEE 754-2008 decimal128
/// defines them (what realm-core's Decimal128 gets from bid128_mul and
/// bid128_div): 34 digits, round half to even, exact results with the
/// preferred exponent, overflow to an infinity, gradual underflow to zero.
/// The expected values were computed independently with Python's `decimal`
/// module in the decimal128 context (prec 34, Emax 6144, Emin -6143,
/// clamp 1, ROUND_HALF_EVEN) and checked by hand where short.
final class DecimalArithmeticTests: XCTestCase {
    private static let cases: [(String, String, String, String)] = [
        ("1", "/", "3", "0.3333333333333333333333333333333333"),
        ("2", "/", "3", "0.6666666666666666666666666666666667"),
        ("-2", "/", "3", "-0.6666666666666666666666666666666667"),
        ("6", "/", "2", "3"),
        ("1", "/", "4", "0.25"),
        ("1E2", "/", "4", "25"),
        ("1.00", "/", "3", "0.3333333333333333333333333333333333"),
        ("1E20", "*", "1E20", "1E+40"),
        ("100000000000000000000", "*", "100000000000000000000", "1.000000000000000000000000000000000E+40"),
        ("1.5", "*", "2.0", "3.00"),
        ("1E-4000", "*", "1E-4000", "0E-6176"),
        ("1E-3100", "*", "1E-3100", "0E-6176"),
        ("1E4000", "*", "1E4000", "Infinity"),
        ("-1E4000", "*", "1E4000", "-Infinity"),
        ("9.999999999999999999999999999999999E6144", "*", "10", "Infinity"),
        ("1234567890123456789", "*", "987654321987654321", "1.219326312467611632360920590112635E+36"),
        ("99999999999999999", "*", "99999999999999999", "9999999999999999800000000000000001"),
        ("9999999999999999999999999999999999", "*", "9999999999999999999999999999999999", "9.999999999999999999999999999999998E+67"),
        ("-0", "*", "5", "-0"),
        ("0", "*", "-5", "-0"),
        ("-3", "*", "-4", "12"),
        ("1", "/", "0", "Infinity"),
        ("-1", "/", "0", "-Infinity"),
        ("1", "/", "-0", "-Infinity"),
        ("0", "/", "0", "NaN"),
        ("0", "/", "-7", "-0"),
        ("inf", "*", "0", "NaN"),
        ("inf", "*", "-2", "-Infinity"),
        ("inf", "/", "inf", "NaN"),
        ("5", "/", "inf", "0E-6176"),
        ("-inf", "/", "3", "-Infinity"),
        ("nan", "*", "1", "NaN"),
        ("2", "/", "nan", "NaN"),
        ("1E-6176", "/", "2", "0E-6176"),
        ("3E-6176", "/", "2", "2E-6176"),
        ("1E-6170", "/", "3", "3.33333E-6171"),
        ("1E6111", "*", "1E10", "1.0000000000E+6121"),
        ("123.456", "/", "0.001", "123456"),
        ("0.1", "*", "0.1", "0.01"),
        ("1.23E-10", "*", "0", "0E-12"),
        ("7", "/", "7", "1"),
        ("22", "/", "7", "3.142857142857142857142857142857143"),
        ("1", "/", "7E-6176", "Infinity"),
        ("12", "/", "1E-2", "1.2E+3"),
    ]

    func testMultiplicationAndDivisionTable() throws {
        for (a, op, b, expected) in Self.cases {
            let x = try XCTUnwrap(DecimalArithmetic.parse(Array(a.utf8)), a)
            let y = try XCTUnwrap(DecimalArithmetic.parse(Array(b.utf8)), b)
            let want = try XCTUnwrap(DecimalArithmetic.parse(Array(expected.utf8)), expected)
            let got = op == "*" ? DecimalArithmetic.multiply(x, y) : DecimalArithmetic.divide(x, y)
            // The encoding itself: coefficient, exponent and sign (so 3.00 is not 3, -0 not 0).
            XCTAssertEqual(DecimalArithmetic.kind(got), DecimalArithmetic.kind(want), "\(a) \(op) \(b)")
        }
    }

    /// Multiplying back: (a / b) * b and the identity rules hold where exact.
    func testProductsAndQuotientsAgree() throws {
        func d(_ s: String) -> Decimal128Bits { DecimalArithmetic.parse(Array(s.utf8))! }
        for (a, b) in [("7", "8"), ("1.25", "-0.5"), ("123456789012345678", "1000000"), ("-9.75", "3.9")] {
            let q = DecimalArithmetic.divide(d(a), d(b))
            XCTAssertEqual(DecimalArithmetic.compare(DecimalArithmetic.multiply(q, d(b)), d(a)), 0, "\(a) / \(b) * \(b)")
            XCTAssertEqual(DecimalArithmetic.compare(DecimalArithmetic.multiply(d(a), d(b)), DecimalArithmetic.multiply(d(b), d(a))), 0)
        }
        // Addition keeps working with the one-pass rounding (subnormals included).
        XCTAssertEqual(DecimalArithmetic.kind(DecimalArithmetic.add(d("1E-6176"), d("2E-6176"))), DecimalArithmetic.kind(d("3E-6176")))
        XCTAssertEqual(DecimalArithmetic.kind(DecimalArithmetic.add(d("0.1"), d("0.2"))), DecimalArithmetic.kind(d("0.3")))
    }
}
