import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Query arithmetic on decimals (FiefDecimal's DecimalArithmeticTests
/// test the decimal128 operations themselves).
final class QueryDecimalArithmeticTests: XCTestCase {
    /// Query arithmetic: an int or a double meeting a decimal becomes one
    /// (a double through its 15 significant digits, as realm-core converts it).
    func testMixedOperandsBecomeDecimals() throws {
        func d(_ s: String) -> Decimal128Bits { DecimalArithmetic.parse(Array(s.utf8))! }
        func check(_ x: Value, _ op: QueryArithmeticOperator, _ y: Value, _ expected: String, line: UInt = #line) {
            guard case .decimal128(let got) = ArithmeticTerm.apply(x, op, y) else {
                return XCTFail("not a decimal: \(ArithmeticTerm.apply(x, op, y))", line: line)
            }
            XCTAssertEqual(DecimalArithmetic.compare(got, d(expected)), 0, "\(x) \(op) \(y)", line: line)
        }
        check(.decimal128(d("10")), .divide, .int(4), "2.5")
        check(.int(1), .divide, .decimal128(d("3")), "0.3333333333333333333333333333333333")
        check(.decimal128(d("100")), .multiply, .double(1.2), "120.0")
        check(.double(0.1), .multiply, .decimal128(d("3")), "0.3")
        check(.decimal128(d("5")), .divide, .int(0), "Infinity")
        check(.decimal128(d("-5")), .divide, .double(0), "-Infinity")
        check(.float(0.5), .multiply, .decimal128(d("3")), "1.5")
        guard case .decimal128(let nan) = ArithmeticTerm.apply(.decimal128(d("0")), .divide, .int(0)) else { return XCTFail("0 / 0") }
        XCTAssertTrue(DecimalArithmetic.isNaN(nan))
        for other in [Value.null, .bool(true)] {
            guard case .null = ArithmeticTerm.apply(.decimal128(d("5")), .multiply, other) else { return XCTFail("\(other)") }
            guard case .null = ArithmeticTerm.apply(other, .divide, .decimal128(d("5"))) else { return XCTFail("\(other)") }
        }
    }
}
