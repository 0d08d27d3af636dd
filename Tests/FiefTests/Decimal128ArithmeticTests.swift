import Fief
import Foundation
import XCTest

/// Decimal128's RealmSwift surface beyond parsing: NSNumber and exact
/// integer initializers, Numeric arithmetic, min/max, and values computed
/// with it stored in and queried from a realm file.
final class Decimal128ArithmeticTests: FiefTestCase {
    private func d(_ text: String) -> Decimal128 { Decimal128(string: text) }

    func testAdditionAndSubtraction() {
        XCTAssertEqual((d("1.10") + d("2.205")).stringValue, "3.305")
        XCTAssertEqual((d("0.1") + d("0.2")).stringValue, "3E-1")
        XCTAssertEqual((d("5") - d("7.5")).stringValue, "-2.5")
        XCTAssertEqual((d("1.5") - d("1.5")).stringValue, "0E-1")
        XCTAssertFalse((d("1.5") - d("1.5")).isSignMinus)
        XCTAssertEqual((d("1E+3") + d("1")).stringValue, "1001")
        // Beyond 34 digits the sum rounds half to even. (A coefficient beyond 64 bits is written
        // whole, signed, with a signed exponent, as RealmSwift writes it.)
        XCTAssertEqual((d("9999999999999999999999999999999999") + d("1")).stringValue, "+1000000000000000000000000000000000E+1")
        XCTAssertEqual((d("1") + d("1E-50")).stringValue, "+1000000000000000000000000000000000E-33")
        XCTAssertEqual((d("1") - d("1E-50")).stringValue, "+1000000000000000000000000000000000E-33")
        XCTAssertEqual((d("1") - d("6E-35")).stringValue, "+9999999999999999999999999999999999E-34")
        XCTAssertEqual((d("0E+100") + d("5E-100")).stringValue, "5E-100")
        XCTAssertTrue((d("Inf") + d("-Inf")).isNaN)
        XCTAssertEqual(d("Inf") + d("1"), d("Inf"))
        XCTAssertTrue((d("NaN") + d("1")).isNaN)
    }

    func testMultiplicationAndDivision() {
        XCTAssertEqual((d("1.5") * d("-4")).stringValue, "-6")
        XCTAssertEqual((d("12345678901234567890") * d("98765432109876543210")).stringValue,
                       "+1219326311370217952237463801111264E+6")
        XCTAssertEqual((d("1") / d("4")).stringValue, "2.5E-1")
        XCTAssertEqual((d("10") / d("5")).stringValue, "2")
        XCTAssertEqual((d("1") / d("3")).stringValue, "+3333333333333333333333333333333333E-34")
        XCTAssertEqual((d("2") / d("3")).stringValue, "+6666666666666666666666666666666667E-34")
        XCTAssertEqual((d("-1") / d("0")), d("-Inf"))
        XCTAssertTrue((d("0") / d("0")).isNaN)
        XCTAssertTrue((d("Inf") * d("0")).isNaN)
        XCTAssertEqual((d("7") / d("Inf")), d("0"))
    }

    func testCompoundAssignmentAndNumericGenerics() {
        var total: Decimal128 = 0
        total += 10
        total -= d("0.5")
        total *= 3
        total /= 2
        XCTAssertEqual(total.stringValue, "14.25")
        func sum<T: Numeric>(_ values: [T]) -> T { values.reduce(.zero, +) }
        XCTAssertEqual(sum([d("0.1"), d("0.2"), d("0.3")]), d("0.6"))
        func absolute<T: SignedNumeric & Comparable>(_ value: T) -> T { value < .zero ? -value : value }
        XCTAssertEqual(absolute(d("-2.5")), d("2.5"))
        var negated = d("3")
        negated.negate()
        XCTAssertEqual(negated, -3)
        XCTAssertEqual(d("-3").magnitude, 3)
        XCTAssertEqual(d("1").distance(to: d("3.5")), d("2.5"))
        XCTAssertEqual(d("1").advanced(by: d("0.5")), d("1.5"))
    }

    func testInitializers() {
        XCTAssertEqual(Decimal128(number: NSNumber(value: 42)).stringValue, "42")
        XCTAssertEqual(Decimal128(number: NSNumber(value: 2.5)).stringValue, "2.5")
        // A Float converts through its Double, as RealmSwift's NSNumber does: 15-16 digits of it.
        XCTAssertEqual(Decimal128(number: NSNumber(value: Float(0.1))).stringValue, "1.000000014901161E-1")
        XCTAssertEqual(Decimal128(number: NSNumber(value: UInt64.max)).stringValue, "18446744073709551615")
        XCTAssertEqual(Decimal128(value: "12.5"), d("12.5"))
        XCTAssertEqual(Decimal128(value: 7 as Int8), 7)
        XCTAssertEqual(Decimal128(value: NSNumber(value: 3)), 3)
        XCTAssertEqual(Decimal128(exactly: 100 as Int8), 100)
        let big = UInt128(1) << 120                       // 40 digits, not all zeros at the end
        XCTAssertNil(Decimal128(exactly: big))
        var tens: UInt128 = 1
        for _ in 0..<37 { tens *= 10 }
        XCTAssertEqual(Decimal128(exactly: tens), d("1E+37"))
        XCTAssertTrue(Decimal128.min < Decimal128.max)
        XCTAssertEqual(Decimal128.max.stringValue, "+9999999999999999999999999999999999E+6111")
        XCTAssertEqual(Decimal128.zero, 0)
        XCTAssertEqual(d("12.5").decimalValue, Decimal(string: "12.5"))
        XCTAssertFalse(d("1").isSignaling)
        XCTAssertTrue(d("NaN").isSignalingNaN)
    }

    /// Values computed with the arithmetic round-trip through a realm file
    /// and compare numerically in queries and aggregates.
    func testComputedValuesInARealm() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write {
            for text in ["0.1", "0.2", "0.3"] {
                let object = AllTypes()
                object.decimal = d(text) * 10 / 10 + 0
                realm.add(object)
            }
        }
        let objects = realm.objects(AllTypes.self)
        XCTAssertEqual(objects.sum(ofProperty: "decimal") as Decimal128, d("0.6"))
        XCTAssertEqual(objects.average(ofProperty: "decimal") as Decimal128?, d("0.2"))
        XCTAssertEqual(objects.filter("decimal == %@", d("0.1") + d("0.2")).count, 1)
        XCTAssertEqual(objects.filter("decimal > %@", d("0.15")).count, 2)
    }
}
