/// FiefDecimal: Fief's one implementation of IEEE 754-2008 decimal128 in
/// the binary-integer-decimal (BID) encoding that Fief stores and that
/// `fief_decimal128_t` carries.  The engine, the overlay and the tool all
/// build on it (docs/design.md, "Code layout"); it depends on nothing but
/// the Swift standard library and the C library.
///
/// A value is the plain bits (`Decimal128Bits`); the operations on them are
/// in `DecimalArithmetic`: decoding and encoding (this file), comparison and
/// arithmetic (DecimalArithmetic.swift), text both ways (DecimalText.swift)
/// and conversions from and to binary floating point
/// (DecimalConversions.swift).

/// A decimal128 in BID encoding: `low` and `high` 64-bit words.  Equality
/// and hashing are of the bits (`1.0` and `1.00` differ); numeric order is
/// `DecimalArithmetic.compare`.
public struct Decimal128Bits: Hashable, Sendable {
    public var low: UInt64
    public var high: UInt64
    public init(low: UInt64, high: UInt64) { self.low = low; self.high = high }
}

/// Decimal128 operations on `Decimal128Bits`.  Results are rounded half to
/// even to 34 significant digits, as IEEE 754-2008 decimal128 does.
public enum DecimalArithmetic {
    public static let exponentBias = 6176
    public static let minExponent = -6176
    public static let maxExponent = 6111
    /// Significant digits of a decimal128.
    public static let maxDigits = 34
    /// 10^34: every canonical coefficient is below it.  (A literal, so
    /// that reading it needs no lazy initialisation.)
    public static let coefficientLimit: UInt128 = 10_000_000_000_000_000_000_000_000_000_000_000

    /// A decoded decimal128.  A finite value is `coefficient × 10^exponent`.
    public enum Kind: Equatable, Sendable {
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
        case infinity(negative: Bool)
        case nan
    }

    /// `d` decoded.  A non-canonical coefficient (10^34 or more, or the
    /// second encoding form, which only holds such coefficients) reads as
    /// zero, as IEEE 754-2008 says.
    /// (Inlinable: the engine's sums and keys decode every value.)
    @inlinable
    public static func kind(_ d: Decimal128Bits) -> Kind {
        let negative = d.high >> 63 == 1
        let combination = (d.high >> 58) & 0x1F
        if combination == 0b11111 { return .nan }
        if combination == 0b11110 { return .infinity(negative: negative) }
        var coefficient: UInt128
        let biased: UInt64
        if (d.high >> 61) & 0b11 == 0b11 {
            biased = (d.high >> 47) & 0x3FFF
            coefficient = 0
        } else {
            biased = (d.high >> 49) & 0x3FFF
            coefficient = UInt128(d.high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(d.low)
            if coefficient >= coefficientLimit { coefficient = 0 }
        }
        return .finite(negative: negative, coefficient: coefficient, exponent: Int(biased) - exponentBias)
    }

    @inlinable
    public static func isNaN(_ d: Decimal128Bits) -> Bool { (d.high >> 58) & 0x1F == 0b11111 }

    /// Whether the sign bit is set (of a NaN too).
    @inlinable
    public static func isSignMinus(_ d: Decimal128Bits) -> Bool { d.high >> 63 == 1 }

    /// The quiet NaN (positive, no payload).
    public static let nan = Decimal128Bits(low: 0, high: 0b11111 << 58)

    /// +0 with exponent 0.
    public static let zero = Decimal128Bits(low: 0, high: 0x3040_0000_0000_0000)

    public static func infinity(negative: Bool) -> Decimal128Bits {
        Decimal128Bits(low: 0, high: (negative ? 1 << 63 : 0) | (0b11110 << 58))
    }

    /// `kind` encoded (a finite one as `finite(negative:coefficient:exponent:)` does).
    public static func encode(_ kind: Kind) -> Decimal128Bits {
        switch kind {
        case let .finite(negative, coefficient, exponent):
            return finite(negative: negative, coefficient: coefficient, exponent: exponent)
        case let .infinity(negative):
            return infinity(negative: negative)
        case .nan:
            return nan
        }
    }

    /// The exact integer `value`.
    public static func from(_ value: Int64) -> Decimal128Bits {
        finite(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// `coefficient × 10^exponent` encoded, rounded half to even to 34
    /// digits, the exponent clamped (overflow gives an infinity, underflow
    /// a subnormal or zero).
    public static func finite(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128Bits {
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
        while coefficient >= coefficientLimit { dropDigit() }
        while exponent < minExponent && (coefficient > 0 || roundDigit > 0) { dropDigit() }
        if exponent < minExponent { exponent = minExponent }
        if roundDigit > 5 || (roundDigit == 5 && (sticky || coefficient % 2 == 1)) {
            coefficient += 1
            if coefficient >= coefficientLimit {
                coefficient /= 10
                exponent += 1
            }
        }
        while exponent > maxExponent && coefficient > 0 && coefficient * 10 < coefficientLimit {
            coefficient *= 10
            exponent -= 1
        }
        if exponent > maxExponent {
            if coefficient != 0 { return infinity(negative: negative) }
            exponent = maxExponent
        }
        let biased = UInt64(exponent + exponentBias)
        let high = (negative ? 1 << 63 : 0) | (biased << 49) | UInt64(truncatingIfNeeded: coefficient >> 64)
        return Decimal128Bits(low: UInt64(truncatingIfNeeded: coefficient), high: high)
    }

    /// The number of decimal digits of `value` (1 for 0).
    public static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 { count += 1; rest /= 10 }
        return count
    }
}
