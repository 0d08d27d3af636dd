import CFief
import Foundation

/// A 128-bit IEEE 754-2008 decimal floating-point number (34 significant
/// digits, exponents -6176...6111), stored in the binary-integer-decimal
/// (BID) encoding of `fief_decimal128_t` (`FIEF_TYPE_DECIMAL128`).
///
///     let price: Decimal128 = "19.99"
///     let cents = Decimal128(1999)
///
/// Equality and ordering are numeric (`1.0 == 1.00`); NaN equals NaN so the
/// type can be hashed, but is neither less nor greater than anything.
public struct Decimal128: Sendable, Hashable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, Codable {
    /// Low 64 bits of the BID encoding.
    var low: UInt64
    /// High 64 bits: sign, combination field, exponent and coefficient top bits.
    var high: UInt64

    private static let exponentBias = 6176
    private static let minExponent = -6176
    private static let maxExponent = 6111
    private static let maxDigits = 34
    private static let coefficientLimit: UInt128 = {
        var value: UInt128 = 1
        for _ in 0..<34 { value *= 10 }
        return value
    }()

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
        if value.isNaN {
            self.init(kind: .nan)
        } else if value.isInfinite {
            self.init(kind: .infinity(negative: value < 0))
        } else if value == 0 {
            self.init(sign: value.sign == .minus, coefficient: 0, exponent: 0)
        } else if let exact = Decimal128.exactWithFifteenDigits(value) {
            self.init(sign: value < 0, coefficient: exact.coefficient, exponent: exact.exponent)
        } else {
            let rounded = Decimal128.roundedToFifteenDigits(value.magnitude)
            self.init(sign: value < 0, coefficient: rounded.coefficient, exponent: rounded.exponent)
        }
    }

    private static let largestFifteenDigitCoefficient: UInt128 = 999_999_999_999_999

    /// `value`'s exact decimal value when its coefficient has at most 15 digits: an integer
    /// with exponent 0, or `m / 2^a` written as `m * 5^a` with exponent `-a`.
    private static func exactWithFifteenDigits(_ value: Double) -> (coefficient: UInt128, exponent: Int)? {
        let magnitude = value.magnitude
        var mantissa = UInt64(magnitude.significand * 0x1p52)
        var binaryExponent = Int(magnitude.exponent) - 52
        let zeros = mantissa.trailingZeroBitCount
        mantissa >>= zeros
        binaryExponent += zeros
        if binaryExponent >= 0 {
            guard binaryExponent <= 50 else { return nil }
            let integer = UInt128(mantissa) << binaryExponent
            return integer <= largestFifteenDigitCoefficient ? (integer, 0) : nil
        }
        let fractionBits = -binaryExponent
        // 5^22 alone passes 15 digits.
        guard fractionBits <= 21 else { return nil }
        var coefficient = UInt128(mantissa)
        for _ in 0..<fractionBits { coefficient *= 5 }
        return coefficient <= largestFifteenDigitCoefficient ? (coefficient, -fractionBits) : nil
    }

    /// `magnitude` rounded (half to even, from its exact binary value) to the decimal exponent
    /// realm-core quantizes to: 14 below the decade estimated from the binary exponent.
    private static func roundedToFifteenDigits(_ magnitude: Double) -> (coefficient: UInt128, exponent: Int) {
        let binaryExponent = Int(magnitude.exponent)
        var decade = binaryExponent * 30103 / 100_000
        if binaryExponent < 0 { decade -= 1 }
        let target = decade - 14
        // Digits and the exponent of their last one, printed at `precision` digits after the point.
        func printed(_ precision: Int) -> (digits: UInt128, exponent: Int) {
            let text = String(format: "%.\(precision)e", magnitude)
            let parts = text.split(separator: "e")
            let digits = UInt128(parts[0].replacingOccurrences(of: ".", with: "")) ?? 0
            return (digits, (Int(parts[1]) ?? 0) - precision)
        }
        // The decade estimate is exact or one low; with one low, 16 digits reach the target.
        let fifteen = printed(14)
        if fifteen.exponent == target { return (fifteen.digits, target) }
        let sixteen = printed(15)
        if sixteen.exponent == target { return (sixteen.digits, target) }
        // Fifteen digits rounded up to the next power of ten.
        var coefficient = fifteen.digits
        for _ in 0..<(fifteen.exponent - target) { coefficient *= 10 }
        return (coefficient, target)
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
        low = raw.w.0
        high = raw.w.1
    }

    var fiefValue: fief_decimal128_t {
        var raw = fief_decimal128_t()
        raw.w = (low, high)
        return raw
    }

    // MARK: Decoded form

    enum Kind: Equatable {
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
        case infinity(negative: Bool)
        case nan
    }

    init(kind: Kind) {
        let (low, high) = Decimal128.encode(kind)
        self.init(low: low, high: high)
    }

    private static func encode(_ kind: Kind) -> (UInt64, UInt64) {
        switch kind {
        case let .finite(negative, coefficient, exponent):
            return encodeFinite(sign: negative, coefficient: coefficient, exponent: exponent)
        case let .infinity(negative):
            return (0, (negative ? 1 << 63 : 0) | (0b11110 << 58))
        case .nan:
            return (0, 0b11111 << 58)
        }
    }

    /// Encodes a finite value, rounding the coefficient to 34 digits and
    /// clamping the exponent (overflow gives infinity, underflow zero).
    init(sign: Bool, coefficient: UInt128, exponent: Int) {
        let (low, high) = Decimal128.encodeFinite(sign: sign, coefficient: coefficient, exponent: exponent)
        self.init(low: low, high: high)
    }

    private static func encodeFinite(sign: Bool, coefficient: UInt128, exponent: Int) -> (UInt64, UInt64) {
        var coefficient = coefficient
        var exponent = exponent
        var roundDigit: UInt128 = 0
        var sticky = false
        func dropDigit() {
            if roundDigit != 0 { sticky = true }
            roundDigit = coefficient % 10
            coefficient /= 10
            exponent += 1
        }
        while coefficient >= Decimal128.coefficientLimit { dropDigit() }
        while exponent < Decimal128.minExponent && (coefficient > 0 || roundDigit > 0) { dropDigit() }
        if exponent < Decimal128.minExponent { exponent = Decimal128.minExponent }
        // Round half to even.
        if roundDigit > 5 || (roundDigit == 5 && (sticky || coefficient % 2 == 1)) {
            coefficient += 1
            if coefficient >= Decimal128.coefficientLimit {
                coefficient /= 10
                exponent += 1
            }
        }
        while exponent > Decimal128.maxExponent && coefficient > 0 && coefficient * 10 < Decimal128.coefficientLimit {
            coefficient *= 10
            exponent -= 1
        }
        if exponent > Decimal128.maxExponent {
            if coefficient == 0 {
                exponent = Decimal128.maxExponent
            } else {
                return encode(.infinity(negative: sign))
            }
        }
        let biased = UInt64(exponent + Decimal128.exponentBias)
        let high = (sign ? 1 << 63 : 0) | (biased << 49) | UInt64(truncatingIfNeeded: coefficient >> 64)
        return (UInt64(truncatingIfNeeded: coefficient), high)
    }

    var kind: Kind {
        let negative = high >> 63 == 1
        let combination = (high >> 58) & 0x1F
        if combination == 0b11111 { return .nan }
        if combination == 0b11110 { return .infinity(negative: negative) }
        var coefficient: UInt128
        let biased: UInt64
        if (high >> 61) & 0b11 == 0b11 {
            // The second form only encodes coefficients above 10^34: non-canonical, read as 0.
            biased = (high >> 47) & 0x3FFF
            coefficient = 0
        } else {
            biased = (high >> 49) & 0x3FFF
            coefficient = UInt128(high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(low)
            if coefficient >= Decimal128.coefficientLimit { coefficient = 0 }
        }
        return .finite(negative: negative, coefficient: coefficient, exponent: Int(biased) - Decimal128.exponentBias)
    }

    // MARK: Properties

    /// Whether the value is NaN.
    public var isNaN: Bool { kind == .nan }

    /// Whether the value is positive or negative infinity.
    public var isInfinite: Bool {
        if case .infinity = kind { return true }
        return false
    }

    /// Whether the sign bit is set.
    public var isSignMinus: Bool { high >> 63 == 1 }

    /// The value as text, as RealmSwift writes it: the coefficient's digits with the decimal
    /// point moved left as far as the exponent allows (but not past the first digit), an
    /// `E<exponent>` for what is left (`"12.5"`, `"1E3"`, `"5E-3"`, `"1.5E-10"`), then trailing
    /// zeros after the point dropped (`"1.0"` is `"1"`, `"12.50"` is `"12.5"`). A coefficient
    /// beyond 64 bits is written whole with signed exponent (`"+1234567890123456789012E-2"`),
    /// as realm-core does. `"NaN"`, `"Inf"`, `"-Inf"` for the special values.
    public var stringValue: String {
        switch kind {
        case .nan: return isSignMinus ? "-NaN" : "NaN"
        case .infinity(let negative): return negative ? "-Inf" : "Inf"
        case let .finite(negative, coefficient, exponent):
            let digits = String(coefficient)
            if coefficient > UInt128(UInt64.max) {
                return (negative ? "-" : "+") + digits + "E" + (exponent < 0 ? "-" : "+") + String(exponent.magnitude)
            }
            var leading = digits.count
            var remaining = exponent
            while leading > 1 && remaining != 0 {
                leading -= 1
                remaining += 1
            }
            var integerPart = String(digits.prefix(leading))
            var fraction = String(digits.dropFirst(leading))
            while fraction.last == "0" { fraction.removeLast() }
            if negative { integerPart = "-" + integerPart }
            let mantissa = fraction.isEmpty ? integerPart : integerPart + "." + fraction
            return remaining == 0 ? mantissa : mantissa + "E" + String(remaining)
        }
    }

    public var description: String { stringValue }

    /// The nearest Double.
    public var doubleValue: Double {
        switch kind {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite: return Double(stringValue) ?? .nan
        }
    }

    // MARK: Parsing

    static func parse(_ text: String) -> Decimal128? {
        var chars = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        if let first = chars.first, first == "-" || first == "+" {
            negative = first == "-"
            chars = chars.dropFirst()
        }
        switch chars.lowercased() {
        case "nan": return Decimal128(kind: .nan)
        case "inf", "infinity": return Decimal128(kind: .infinity(negative: negative))
        default: break
        }
        var coefficient: UInt128 = 0
        var significant = 0
        var exponent = 0
        var sawDigit = false
        var sawPoint = false
        var roundDigit: UInt128 = 0
        var sticky = false
        var dropped = false
        var iterator = chars.makeIterator()
        var pending: Character? = nil
        while let c = iterator.next() {
            if c == "." {
                if sawPoint { return nil }
                sawPoint = true
                continue
            }
            guard let digit = c.wholeNumberValue, c.isASCII else {
                pending = c
                break
            }
            sawDigit = true
            if significant < maxDigits {
                if coefficient != 0 || digit != 0 {
                    coefficient = coefficient * 10 + UInt128(digit)
                    significant += 1
                }
                if sawPoint { exponent -= 1 }
            } else {
                // Beyond 34 digits: remember the first dropped digit and whether any other is non-zero.
                if !dropped {
                    roundDigit = UInt128(digit)
                    dropped = true
                } else if digit != 0 {
                    sticky = true
                }
                if !sawPoint { exponent += 1 }
            }
        }
        guard sawDigit else { return nil }
        if let marker = pending {
            guard marker == "e" || marker == "E" else { return nil }
            var rest = String(iterator.map { $0 })
            var expNegative = false
            if let first = rest.first, first == "-" || first == "+" {
                expNegative = first == "-"
                rest.removeFirst()
            }
            guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let value = Int(rest.prefix(9)) ?? 0
            exponent += expNegative ? -value : value
        }
        if dropped && (roundDigit > 5 || (roundDigit == 5 && (sticky || coefficient % 2 == 1))) {
            coefficient += 1
        }
        return Decimal128(sign: negative, coefficient: coefficient, exponent: exponent)
    }

    // MARK: Comparison

    /// The coefficient scaled to 34 digits and the adjusted exponent, for
    /// comparing magnitudes; nil for zero.
    private static func normalized(_ coefficient: UInt128, _ exponent: Int) -> (UInt128, Int)? {
        guard coefficient != 0 else { return nil }
        var c = coefficient
        var digits = 0
        var probe = coefficient
        while probe > 0 { probe /= 10; digits += 1 }
        for _ in digits..<maxDigits { c *= 10 }
        return (c, exponent + digits - 1)
    }

    /// -1, 0 or 1; nil when either side is NaN.
    private static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        let a = lhs.kind, b = rhs.kind
        if a == .nan || b == .nan { return nil }
        func parts(_ k: Kind) -> (negative: Bool, infinite: Bool, magnitude: (UInt128, Int)?) {
            switch k {
            case .nan: return (false, false, nil)
            case .infinity(let n): return (n, true, nil)
            case let .finite(n, c, e): return (n, false, normalized(c, e))
            }
        }
        let pa = parts(a), pb = parts(b)
        let aZero = !pa.infinite && pa.magnitude == nil
        let bZero = !pb.infinite && pb.magnitude == nil
        if aZero && bZero { return 0 }
        // Signs: a zero has no sign for comparison.
        let aSign = aZero ? 0 : (pa.negative ? -1 : 1)
        let bSign = bZero ? 0 : (pb.negative ? -1 : 1)
        if aSign != bSign { return aSign < bSign ? -1 : 1 }
        // Same non-zero sign: compare magnitudes.
        var magnitudeOrder: Int
        if pa.infinite || pb.infinite {
            magnitudeOrder = pa.infinite == pb.infinite ? 0 : (pa.infinite ? 1 : -1)
        } else {
            let (ca, ea) = pa.magnitude!, (cb, eb) = pb.magnitude!
            if ea != eb {
                magnitudeOrder = ea < eb ? -1 : 1
            } else {
                magnitudeOrder = ca == cb ? 0 : (ca < cb ? -1 : 1)
            }
        }
        return aSign < 0 ? -magnitudeOrder : magnitudeOrder
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
        Decimal128(low: value.low, high: value.high ^ (1 << 63))
    }

    private init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The magnitude.
    public var magnitude: Decimal128 { Decimal128(low: low, high: high & ~(1 << 63)) }

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
        while coefficient >= Decimal128.coefficientLimit {
            guard coefficient % 10 == 0 else { return nil }
            coefficient /= 10
            exponent += 1
        }
        self.init(sign: source < 0, coefficient: coefficient, exponent: exponent)
    }

    /// The largest finite Decimal128: 34 nines, exponent 6111.
    public static var max: Decimal128 {
        Decimal128(sign: false, coefficient: coefficientLimit - 1, exponent: maxExponent)
    }

    /// The smallest (most negative) finite Decimal128.
    public static var min: Decimal128 { -max }

    /// The sum, rounded half to even to 34 significant digits (exact when it
    /// fits).  NaN if either side is NaN or for `Inf + -Inf`.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.kind, rhs.kind) {
        case (.nan, _), (_, .nan):
            return Decimal128(kind: .nan)
        case let (.infinity(a), .infinity(b)):
            return a == b ? lhs : Decimal128(kind: .nan)
        case (.infinity, _):
            return lhs
        case (_, .infinity):
            return rhs
        case let (.finite(sa, ca, ea), .finite(sb, cb, eb)):
            return add(sa, ca, ea, sb, cb, eb)
        }
    }

    /// The difference (`lhs + -rhs`).
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        lhs + -rhs
    }

    /// The product, rounded half to even to 34 significant digits.  NaN if
    /// either side is NaN, or for infinity times zero.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let negative = lhs.isSignMinus != rhs.isSignMinus
        switch (lhs.kind, rhs.kind) {
        case (.nan, _), (_, .nan):
            return Decimal128(kind: .nan)
        case let (.infinity, .finite(_, c, _)), let (.finite(_, c, _), .infinity):
            return c == 0 ? Decimal128(kind: .nan) : Decimal128(kind: .infinity(negative: negative))
        case (.infinity, .infinity):
            return Decimal128(kind: .infinity(negative: negative))
        case let (.finite(_, ca, ea), .finite(_, cb, eb)):
            let product = ca.multipliedFullWidth(by: cb)
            return rounded(Wide(high: product.high, low: product.low), exponent: ea + eb, sticky: false, negative: negative)
        }
    }

    /// The quotient, rounded half to even to 34 significant digits (an exact
    /// quotient keeps the exponent `lhs`'s minus `rhs`'s where it can).
    /// Division of a non-zero number by zero gives an infinity, `0 / 0` and
    /// `Inf / Inf` give NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        let negative = lhs.isSignMinus != rhs.isSignMinus
        switch (lhs.kind, rhs.kind) {
        case (.nan, _), (_, .nan), (.infinity, .infinity):
            return Decimal128(kind: .nan)
        case (.infinity, .finite):
            return Decimal128(kind: .infinity(negative: negative))
        case (.finite, .infinity):
            return Decimal128(sign: negative, coefficient: 0, exponent: 0)
        case let (.finite(_, ca, ea), .finite(_, cb, eb)):
            if cb == 0 {
                return ca == 0 ? Decimal128(kind: .nan) : Decimal128(kind: .infinity(negative: negative))
            }
            if ca == 0 { return Decimal128(sign: negative, coefficient: 0, exponent: ea - eb) }
            // Scale the dividend so that the quotient has at least 35 digits.
            let scale = 35 + digitCount(cb) - digitCount(ca)
            let (quotient, remainder) = Wide(ca).timesPowerOfTen(scale).divided(by: cb)
            var q = quotient
            var exponent = ea - eb - scale
            if remainder == 0 {
                // Exact: drop trailing zeros down to the preferred exponent.
                while exponent < ea - eb {
                    let (shorter, digit) = q.divided(by: 10)
                    guard digit == 0 else { break }
                    q = shorter
                    exponent += 1
                }
            }
            return rounded(q, exponent: exponent, sticky: remainder != 0, negative: negative)
        }
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

    // MARK: Arithmetic helpers

    /// The number of decimal digits of `value` (1 for 0).
    private static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    private static func add(_ sa: Bool, _ ca: UInt128, _ ea: Int, _ sb: Bool, _ cb: UInt128, _ eb: Int) -> Decimal128 {
        if ca == 0 && cb == 0 {
            return Decimal128(sign: sa && sb, coefficient: 0, exponent: Swift.min(ea, eb))
        }
        if ca == 0 { return Decimal128(sign: sb, coefficient: cb, exponent: eb) }
        if cb == 0 && ea <= eb { return Decimal128(sign: sa, coefficient: ca, exponent: ea) }
        // (s1, c1, e1) has the larger exponent; it is scaled down to the other's.
        let ((s1, c1, e1), (s2, c2, e2)) = ea >= eb ? ((sa, ca, ea), (sb, cb, eb)) : ((sb, cb, eb), (sa, ca, ea))
        var shift = e1 - e2
        var small = Wide(c2)
        var exponent = e2
        if shift > 40 {
            // The smaller operand lies wholly below the rounding digit of the
            // larger one scaled by 10^40: only whether it is non-zero counts.
            small = Wide(c2 == 0 ? 0 : 1)
            shift = 40
            exponent = e1 - 40
        }
        let large = Wide(c1).timesPowerOfTen(shift)
        if s1 == s2 {
            return rounded(large.adding(small), exponent: exponent, sticky: false, negative: s1)
        }
        if large == small { return Decimal128(sign: false, coefficient: 0, exponent: exponent) }
        return large > small
            ? rounded(large.subtracting(small), exponent: exponent, sticky: false, negative: s1)
            : rounded(small.subtracting(large), exponent: exponent, sticky: false, negative: s2)
    }

    /// `coefficient × 10^exponent` rounded half to even to 34 digits;
    /// `sticky` says the exact value is a little above `coefficient`.
    private static func rounded(_ coefficient: Wide, exponent: Int, sticky: Bool, negative: Bool) -> Decimal128 {
        var c = coefficient
        var exponent = exponent
        var sticky = sticky
        var roundDigit: UInt128 = 0
        let limit = Wide(coefficientLimit)
        while c >= limit {
            if roundDigit != 0 { sticky = true }
            let (shorter, digit) = c.divided(by: 10)
            roundDigit = digit
            c = shorter
            exponent += 1
        }
        var result = c.low
        if roundDigit > 5 || (roundDigit == 5 && (sticky || result % 2 == 1)) {
            result += 1
            if result == coefficientLimit {
                result /= 10
                exponent += 1
            }
        }
        return Decimal128(sign: negative, coefficient: result, exponent: exponent)
    }

    /// An unsigned 256-bit integer: the exact intermediate results of
    /// Decimal128 arithmetic (products of two 34-digit coefficients,
    /// dividends scaled for 35 quotient digits).
    private struct Wide: Comparable {
        var high: UInt128
        var low: UInt128

        init(high: UInt128, low: UInt128) {
            self.high = high
            self.low = low
        }

        init(_ value: UInt128) {
            self.init(high: 0, low: value)
        }

        /// `self × 10^power`; the caller keeps the result below 2^256.
        func timesPowerOfTen(_ power: Int) -> Wide {
            var result = self
            for _ in 0..<Swift.max(power, 0) {
                let low = result.low.multipliedFullWidth(by: 10)
                result = Wide(high: result.high &* 10 &+ low.high, low: low.low)
            }
            return result
        }

        func adding(_ other: Wide) -> Wide {
            let (low, carry) = low.addingReportingOverflow(other.low)
            return Wide(high: high &+ other.high &+ (carry ? 1 : 0), low: low)
        }

        /// `self - other`, for `other <= self`.
        func subtracting(_ other: Wide) -> Wide {
            let (low, borrow) = low.subtractingReportingOverflow(other.low)
            return Wide(high: high &- other.high &- (borrow ? 1 : 0), low: low)
        }

        /// The quotient and remainder of division by a non-zero `divisor`.
        func divided(by divisor: UInt128) -> (quotient: Wide, remainder: UInt128) {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: divisor)
            let (lowQuotient, remainder) = divisor.dividingFullWidth((high: highRemainder, low: low))
            return (Wide(high: highQuotient, low: lowQuotient), remainder)
        }

        static func < (lhs: Wide, rhs: Wide) -> Bool {
            lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
        }
    }
}
