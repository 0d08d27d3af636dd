import CFief
import FiefDecimal
import Foundation

/// A 128-bit IEEE 754-2008 decimal floating-point number (34 significant
/// digits, exponents -6176...6111), stored in the binary-integer-decimal
/// (BID) encoding of `fief_decimal128_t` (`FIEF_TYPE_DECIMAL128`).
///
///     let price: Decimal128 = "19.99"
///     let cents = Decimal128(1999)
///
/// Equality and ordering are numeric (`1.0 == 1.00`); NaN equals NaN so the
/// type can be hashed, but is neither less nor greater than anything.  The
/// arithmetic, parsing and text are FiefDecimal's, the one decimal128
/// implementation the engine uses too.
public struct Decimal128: Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, Codable {
    /// The BID encoding.
    var bits: Decimal128Bits

    init(bits: Decimal128Bits) {
        self.bits = bits
    }

    // MARK: Initializers

    /// Zero.
    public init() {
        self.init(sign: false, coefficient: 0, exponent: 0)
    }

    /// The exact value of an integer.
    public init<T: BinaryInteger>(_ value: T) {
        let negative = value < 0
        let magnitude = UInt128(value.magnitude)
        self.init(sign: negative, coefficient: magnitude, exponent: 0)
    }

    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// The value of a Double as RealmSwift (realm-core) converts it: exactly when its exact
    /// decimal value has at most 15 significant digits (`0.5`, `2.5`, `42.0`), otherwise rounded
    /// to 15 significant digits (16 where realm-core's estimate of the decade is one low), so
    /// `Decimal128(0.1)` is 0.1000000000000000 (written `"1E-1"`) and `Decimal128(0.1 + 0.2)` is
    /// 0.3.
    public init(_ value: Double) {
        self.init(bits: DecimalArithmetic.fromDoubleAsConstructed(value))
    }

    /// A double as realm-core's arithmetic on mixed values turns it into a decimal: rounded
    /// half to even to `digits` significant digits (15 for a double, 7 for a float), trailing
    /// zeros dropped (`DecimalArithmetic.from(_:digits:)`).
    init(_ value: Double, roundedToDigits digits: Int) {
        self.init(bits: DecimalArithmetic.from(value, digits: digits))
    }

    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// The value of a Foundation `Decimal`.
    public init(_ value: Decimal) {
        if value.isNaN {
            self.init(kind: .nan)
        } else {
            self = Decimal128.parse(value.description) ?? Decimal128()
        }
    }

    /// Parses a decimal string (`"-12.5"`, `"1e-3"`, `"NaN"`, `"Inf"`); more than 34 digits are
    /// rounded half to even. A string that is not a number gives NaN, as in RealmSwift.
    public init(string: String) {
        self = Decimal128.parse(string) ?? Decimal128(kind: .nan)
    }

    /// Parses a string literal (see `init(string:)`: NaN if it is not a number).
    public init(stringLiteral value: String) {
        self.init(string: value)
    }

    /// The value of a number: any integer type, `Float`, `Double`, `Decimal`, `NSNumber`, a
    /// `String` (NaN if it is not a number, as `init(string:)`), or a `Decimal128`
    /// (RealmSwift's `init(value:)`); `nil` and `NSNull` give NaN, as in RealmSwift. Traps, as
    /// RealmSwift does, for any other type.
    public init(value: Any) {
        let unwrapped = fiefUnwrap(value)
        if unwrapped == nil || unwrapped is NSNull {
            self.init(kind: .nan)
            return
        }
        if let string = unwrapped as? String {
            self.init(string: string)
            return
        }
        guard let converted = Decimal128(fiefConverting: value) else {
            preconditionFailure("Cannot convert value '\(value)' of type '\(type(of: value))' to Decimal128")
        }
        self = converted
    }

    /// The value of an `NSNumber`: an integral number exactly, a floating-point one (`Float`
    /// too) as its Double converts (see `init(_: Double)`), an `NSDecimalNumber` as its
    /// decimal value.
    public init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self.init(decimal.decimalValue)
            return
        }
        switch String(cString: number.objCType) {
        case "f", "d": self.init(number.doubleValue)
        case "Q", "L", "I", "S", "C": self.init(number.uint64Value)
        default: self.init(number.int64Value)
        }
    }

    /// `value` as a Decimal128 if it is a number or a string holding one
    /// (see `init(value:)`); nil otherwise.
    init?(fiefConverting value: Any) {
        switch fiefUnwrap(value) {
        case let v as Decimal128: self = v
        case let v as Int: self.init(v)
        case let v as Int8: self.init(v)
        case let v as Int16: self.init(v)
        case let v as Int32: self.init(v)
        case let v as Int64: self.init(v)
        case let v as UInt: self.init(v)
        case let v as UInt8: self.init(v)
        case let v as UInt16: self.init(v)
        case let v as UInt32: self.init(v)
        case let v as UInt64: self.init(v)
        case let v as Double: self.init(v)
        case let v as Float: self.init(Double(v))
        case let v as Decimal: self.init(v)
        case let v as String:
            guard let parsed = Decimal128.parse(v) else { return nil }
            self = parsed
        case let v as NSNumber: self.init(number: v)
        default: return nil
        }
    }

    init(fiefValue raw: fief_decimal128_t) {
        bits = Decimal128Bits(low: raw.w.0, high: raw.w.1)
    }

    var fiefValue: fief_decimal128_t {
        var raw = fief_decimal128_t()
        raw.w = (bits.low, bits.high)
        return raw
    }

    // MARK: Decoded form

    typealias Kind = DecimalArithmetic.Kind

    init(kind: Kind) {
        self.init(bits: DecimalArithmetic.encode(kind))
    }

    /// `coefficient × 10^exponent`, rounded to 34 digits and the exponent
    /// clamped (overflow gives infinity, underflow zero).
    init(sign: Bool, coefficient: UInt128, exponent: Int) {
        self.init(bits: DecimalArithmetic.finite(negative: sign, coefficient: coefficient, exponent: exponent))
    }

    var kind: Kind { DecimalArithmetic.kind(bits) }

    // MARK: Properties

    /// Whether the value is NaN.
    public var isNaN: Bool { kind == .nan }

    /// Whether the value is positive or negative infinity.
    public var isInfinite: Bool {
        if case .infinity = kind { return true }
        return false
    }

    /// Whether the sign bit is set.
    public var isSignMinus: Bool { DecimalArithmetic.isSignMinus(bits) }

    /// The value as text, as RealmSwift writes it: the coefficient's digits with the decimal
    /// point moved left as far as the exponent allows (but not past the first digit), an
    /// `E<exponent>` for what is left (`"12.5"`, `"1E3"`, `"5E-3"`, `"1.5E-10"`), then trailing
    /// zeros after the point dropped (`"1.0"` is `"1"`, `"12.50"` is `"12.5"`). A coefficient
    /// beyond 64 bits is written whole with signed exponent (`"+1234567890123456789012E-2"`),
    /// as realm-core does. `"NaN"`, `"Inf"`, `"-Inf"` for the special values.
    public var stringValue: String { DecimalArithmetic.realmText(bits) }

    public var description: String { stringValue }

    /// The nearest Double.
    public var doubleValue: Double { DecimalArithmetic.nearestDouble(bits) }

    // MARK: Parsing

    /// The decimal `text` spells (surrounding spaces allowed; more than 34 digits rounded half
    /// to even), or nil if it is not a number (see `DecimalArithmetic.parse`).
    static func parse(_ text: String) -> Decimal128? {
        DecimalArithmetic.parse(text.trimmingCharacters(in: .whitespaces).utf8).map(Decimal128.init(bits:))
    }

    // MARK: Comparison

    /// The coefficient scaled to 34 digits and the adjusted exponent, for
    /// hashing magnitudes; nil for zero.
    private static func normalized(_ coefficient: UInt128, _ exponent: Int) -> (UInt128, Int)? {
        guard coefficient != 0 else { return nil }
        let digits = DecimalArithmetic.digitCount(coefficient)
        var c = coefficient
        for _ in digits..<DecimalArithmetic.maxDigits { c *= 10 }
        return (c, exponent + digits - 1)
    }

    /// -1, 0 or 1; nil when either side is NaN.
    private static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        DecimalArithmetic.compare(lhs.bits, rhs.bits)
    }

    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN && rhs.isNaN { return true }
        return compare(lhs, rhs) == 0
    }

    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == -1
    }

    public func hash(into hasher: inout Hasher) {
        switch kind {
        case .nan: hasher.combine(2)
        case .infinity(let negative): hasher.combine(3); hasher.combine(negative)
        case let .finite(negative, coefficient, exponent):
            if let (c, e) = Decimal128.normalized(coefficient, exponent) {
                hasher.combine(1)
                hasher.combine(negative)
                hasher.combine(c)
                hasher.combine(e)
            } else {
                hasher.combine(0)
            }
        }
    }

    // MARK: Arithmetic

    /// The negated value.
    public static prefix func - (value: Decimal128) -> Decimal128 {
        Decimal128(bits: DecimalArithmetic.negated(value.bits))
    }

    /// The magnitude.
    public var magnitude: Decimal128 {
        Decimal128(bits: Decimal128Bits(low: bits.low, high: bits.high & ~(1 << 63)))
    }

    // MARK: Codable

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        // As RealmSwift: a string (NaN if it is not a number), an integer, or a double.
        if let text = try? container.decode(String.self) {
            self.init(string: text)
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else {
            self.init(try container.decode(Double.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

// MARK: - Numeric

extension Decimal128: SignedNumeric {
    /// The type of `magnitude`: Decimal128 itself.
    public typealias Magnitude = Decimal128

    /// Zero (`AdditiveArithmetic`).
    public static var zero: Decimal128 { Decimal128() }

    /// The value of `source` if a Decimal128 holds it exactly (at most 34
    /// significant digits), else nil.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard var coefficient = UInt128(exactly: source.magnitude) else { return nil }
        var exponent = 0
        while coefficient >= DecimalArithmetic.coefficientLimit {
            guard coefficient % 10 == 0 else { return nil }
            coefficient /= 10
            exponent += 1
        }
        self.init(sign: source < 0, coefficient: coefficient, exponent: exponent)
    }

    /// The largest finite Decimal128: 34 nines, exponent 6111.
    public static var max: Decimal128 {
        Decimal128(sign: false, coefficient: DecimalArithmetic.coefficientLimit - 1, exponent: DecimalArithmetic.maxExponent)
    }

    /// The smallest (most negative) finite Decimal128.
    public static var min: Decimal128 { -max }

    /// The sum, rounded half to even to 34 significant digits (exact when it
    /// fits).  NaN if either side is NaN or for `Inf + -Inf`.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        Decimal128(bits: DecimalArithmetic.add(lhs.bits, rhs.bits))
    }

    /// The difference (`lhs + -rhs`).
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        Decimal128(bits: DecimalArithmetic.subtract(lhs.bits, rhs.bits))
    }

    /// The product, rounded half to even to 34 significant digits (the
    /// exponents' sum where exact: `1.5 * 2.0` is `3.00`).  NaN if either
    /// side is NaN, or for infinity times zero.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        Decimal128(bits: DecimalArithmetic.multiply(lhs.bits, rhs.bits))
    }

    /// The quotient, rounded half to even to 34 significant digits (an exact
    /// quotient keeps the exponent `lhs`'s minus `rhs`'s where it can).
    /// Division of a non-zero number by zero gives an infinity, `0 / 0` and
    /// `Inf / Inf` give NaN, a number divided by an infinity is zero.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        Decimal128(bits: DecimalArithmetic.divide(lhs.bits, rhs.bits))
    }

    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// Flips the sign in place.
    public mutating func negate() { self = -self }

    /// `other - self` (RealmSwift's Strideable-style helper).
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }

    /// The type of `distance(to:)`.
    public typealias Stride = Decimal128

    /// Whether the value is NaN (Fief has no signaling NaNs, so the same as `isNaN`).
    public var isSignaling: Bool { isNaN }

    /// Whether the value is NaN (see `isSignaling`).
    public var isSignalingNaN: Bool { isNaN }

    /// Whether the value is finite and zero (of either sign).
    public var isZero: Bool {
        if case .finite(_, 0, _) = kind { return true }
        return false
    }

    /// The value as a Foundation `Decimal` (38 digits, exponents -128...127:
    /// may round or overflow); NaN for NaN and the infinities.
    public var decimalValue: Decimal {
        switch kind {
        case .nan, .infinity: return .nan
        case .finite: return Decimal(string: stringValue, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
        }
    }
}
