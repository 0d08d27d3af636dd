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

    /// The shortest decimal that reads back as `value` (Swift's `description`
    /// of the Double), so `Decimal128(0.1)` is exactly 0.1.
    public init(_ value: Double) {
        if value.isNaN {
            self.init(kind: .nan)
        } else if value.isInfinite {
            self.init(kind: .infinity(negative: value < 0))
        } else {
            self = Decimal128.parse("\(value)") ?? Decimal128()
        }
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

    /// Parses a decimal string (`"-12.5"`, `"1e-3"`, `"NaN"`, `"Inf"`);
    /// more than 34 digits are rounded half to even.
    /// - Throws: `Realm.Error` (`.fail`) if `string` is not a number.
    public init(string: String) throws {
        guard let parsed = Decimal128.parse(string) else {
            throw Realm.Error(code: .fail, message: "'\(string)' is not a valid Decimal128")
        }
        self = parsed
    }

    /// Parses a string literal; traps if it is not a number.
    public init(stringLiteral value: String) {
        guard let parsed = Decimal128.parse(value) else {
            preconditionFailure("'\(value)' is not a valid Decimal128")
        }
        self = parsed
    }

    /// The value of a number (`Int`, `Double`, `Decimal`, `String`, `Decimal128`);
    /// throws for anything else.
    public init(value: Any) throws {
        switch fiefUnwrap(value) {
        case let v as Decimal128: self = v
        case let v as Int: self.init(v)
        case let v as Int64: self.init(v)
        case let v as Int32: self.init(v)
        case let v as Double: self.init(v)
        case let v as Float: self.init(Double(v))
        case let v as Decimal: self.init(v)
        case let v as String: try self.init(string: v)
        default: throw Realm.Error(code: .fail, message: "Cannot convert \(value) to Decimal128")
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

    /// The value as text: plain notation when the exponent is small
    /// (`"12.50"`, `"0.001"`), scientific otherwise (`"1.5E+40"`); `"NaN"`,
    /// `"Inf"`, `"-Inf"` for the special values.
    public var stringValue: String {
        switch kind {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Inf" : "Inf"
        case let .finite(negative, coefficient, exponent):
            let digits = String(coefficient)
            let adjusted = exponent + digits.count - 1
            var text: String
            if exponent <= 0 && adjusted >= -6 {
                if exponent == 0 {
                    text = digits
                } else {
                    let point = digits.count + exponent
                    if point > 0 {
                        let index = digits.index(digits.startIndex, offsetBy: point)
                        text = digits[..<index] + "." + digits[index...]
                    } else {
                        text = "0." + String(repeating: "0", count: -point) + digits
                    }
                }
            } else {
                text = String(digits.first!)
                if digits.count > 1 { text += "." + digits.dropFirst() }
                text += "E" + (adjusted >= 0 ? "+" : "-") + String(abs(adjusted))
            }
            return negative ? "-" + text : text
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
        if let text = try? container.decode(String.self) {
            try self.init(string: text)
        } else {
            self.init(try container.decode(Double.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
