#if canImport(Glibc)
import Glibc
#endif

/// Decimal128 values from and to binary floating point, by the rules of
/// the places that convert: realm-core's mixed arithmetic
/// (`from(_:digits:)`), realm-core's `Decimal128(double)` constructor that
/// RealmSwift's `Decimal128(_: Double)` is (`fromDoubleAsConstructed`), the
/// engine's fast approximation (`toDouble`) and the nearest double
/// (`nearestDouble`).
extension DecimalArithmetic {
    /// A binary float as realm-core turns one into a decimal128 when it adds
    /// mixed numbers: rounded (half to even) to `digits` significant digits,
    /// 15 for a double and 7 for a float; trailing zeros dropped, so 0.1
    /// becomes 0.1 and 2.5 stays 2.5.  Infinities stay infinite, NaN is NaN.
    public static func from(_ d: Double, digits: Int) -> Decimal128Bits {
        if d.isNaN { return nan }
        if d.isInfinite { return infinity(negative: d < 0) }
        if d == 0 { return zero }
        if let (negative, coefficient, exponent) = parts(of: d, digits: digits) {
            return finite(negative: negative, coefficient: UInt128(coefficient), exponent: exponent)
        }
        return printed(d, digits: digits)
    }

    /// `from(d, digits:)` as sign, coefficient and exponent, in 64-bit
    /// arithmetic, for the finite, non-zero doubles most values are (an
    /// integer below 2^63, or a number between about 10^-12 and
    /// 10^digits); nil for the others (`from` takes them the long way).
    @inlinable
    public static func parts(of d: Double, digits: Int) -> (negative: Bool, coefficient: UInt64, exponent: Int)? {
        guard digits <= 18, d.isFinite, d != 0 else { return nil }
        let negative = d < 0
        let a = Swift.abs(d)
        var limit: UInt64 = 1
        for _ in 0..<digits { limit *= 10 }
        if a == a.rounded() && a < 0x1p63 {
            // An integer: rounded to `digits` digits if it has more.
            var n = UInt64(a), exponent = 0
            if n >= limit {
                var divisor: UInt64 = 10
                exponent = 1
                while n / divisor >= limit { divisor *= 10; exponent += 1 }
                let rest = n % divisor, half = divisor / 2
                n /= divisor
                if rest > half || (rest == half && n & 1 == 1) { n += 1 }
                if n == limit { n /= 10; exponent += 1 }
            }
            while n % 10 == 0 { n /= 10; exponent += 1 }
            return (negative, n, exponent)
        }
        let bits = a.bitPattern
        let biased = Int((bits >> 52) & 0x7FF)
        guard biased != 0 else { return nil }
        let m = (bits & ((1 << 52) - 1)) | (1 << 52)
        let e = biased - 1075
        var k = digits - 1 - Int(log10(a).rounded(.down))
        for _ in 0..<3 {
            guard let n = scaledRounded64(m, e, k) else { return nil }
            if n >= limit { k -= 1; continue }
            if n < limit / 10 { k += 1; continue }
            var coefficient = n, exponent = -k
            while coefficient % 10 == 0 { coefficient /= 10; exponent += 1 }
            return (negative, coefficient, exponent)
        }
        return nil
    }

    /// m × 2^e × 10^k rounded half to even, for 0 ≤ k ≤ 27 and e + k < 0
    /// (m × 5^k over a power of two, in 128 bits), when it fits 64 bits.
    @inlinable
    static func scaledRounded64(_ m: UInt64, _ e: Int, _ k: Int) -> UInt64? {
        guard k >= 0, k <= 27, e + k < 0 else { return nil }
        var five: UInt64 = 1
        for _ in 0..<k { five &*= 5 }
        let (high, low) = m.multipliedFullWidth(by: five)
        let shift = -(e + k)
        guard shift < 120 else { return nil }
        var quotient: UInt64
        var above: Bool, tie: Bool   // the dropped bits against one half
        if shift < 64 {
            guard high >> shift == 0 else { return nil }
            quotient = shift == 0 ? low : (low >> UInt64(shift)) | (high << UInt64(64 - shift))
            let mask: UInt64 = (1 << UInt64(shift)) - 1
            let rest = low & mask, half: UInt64 = 1 << UInt64(shift - 1)
            above = rest > half
            tie = rest == half
        } else {
            let s = shift - 64
            quotient = high >> UInt64(s)
            let restHigh = s == 0 ? 0 : high & ((1 << UInt64(s)) - 1)
            if s == 0 {
                above = low > 1 << 63
                tie = low == 1 << 63
            } else {
                let halfHigh: UInt64 = 1 << UInt64(s - 1)
                above = restHigh > halfHigh || (restHigh == halfHigh && low > 0)
                tie = restHigh == halfHigh && low == 0
            }
        }
        if above || (tie && quotient & 1 == 1) { quotient += 1 }
        return quotient
    }

    /// The slow way, for the magnitudes `parts(of:digits:)` leaves out (from
    /// 10^digits up but for integers below 2^63, below about 10^-12): the C
    /// library prints the double's exact value rounded.
    private static func printed(_ d: Double, digits: Int) -> Decimal128Bits {
        guard let printed = printedDigits(d, precision: digits - 1) else { return nan }
        var (coefficient, exponent) = (printed.coefficient, printed.exponent)
        while coefficient != 0 && coefficient % 10 == 0 { coefficient /= 10; exponent += 1 }
        return finite(negative: printed.negative, coefficient: coefficient, exponent: exponent)
    }

    /// A finite double as the C library prints it with `%.<precision>e`
    /// (its exact binary value rounded half to even to `precision + 1`
    /// digits): the sign, the digits and the exponent of the last one; nil
    /// if printing fails.
    private static func printedDigits(_ d: Double, precision: Int) -> (negative: Bool, coefficient: UInt128, exponent: Int)? {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([Int32(precision), d]) { args in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, 64, "%.*e", args) }
        }
        guard written > 0 && written < 64 else { return nil }
        // "-d.ddddde±xx"
        var coefficient: UInt128 = 0, exponent = 0, negative = false, afterPoint = 0, seenPoint = false
        var i = 0
        while i < Int(written) {
            let ch = UInt8(bitPattern: buffer[i])
            if ch == UInt8(ascii: "-") { negative = true }
            else if ch == UInt8(ascii: ".") { seenPoint = true }
            else if ch >= UInt8(ascii: "0") && ch <= UInt8(ascii: "9") {
                coefficient = coefficient * 10 + UInt128(ch - UInt8(ascii: "0"))
                if seenPoint { afterPoint += 1 }
            } else if ch == UInt8(ascii: "e") {
                var sign = 1, value = 0
                i += 1
                while i < Int(written) {
                    let c = UInt8(bitPattern: buffer[i])
                    if c == UInt8(ascii: "-") { sign = -1 }
                    else if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") { value = value * 10 + Int(c - UInt8(ascii: "0")) }
                    i += 1
                }
                exponent = sign * value
            }
            i += 1
        }
        return (negative, coefficient, exponent - afterPoint)
    }

    // MARK: realm-core's Decimal128(double)

    /// A double as realm-core's `Decimal128(double)` constructor (RealmSwift's
    /// `Decimal128(_: Double)`) converts it: exactly when its exact decimal
    /// value has at most 15 significant digits (`0.5`, `2.5`, `42.0`),
    /// otherwise rounded to 15 significant digits (16 where realm-core's
    /// estimate of the decade is one low) with trailing zeros kept, so 0.1
    /// is 0.1000000000000000 (written `"1E-1"`) and 0.1 + 0.2 is 0.3.  A
    /// zero keeps its sign; infinities stay infinite, NaN is NaN.
    public static func fromDoubleAsConstructed(_ value: Double) -> Decimal128Bits {
        if value.isNaN { return nan }
        if value.isInfinite { return infinity(negative: value < 0) }
        if value == 0 { return finite(negative: value.sign == .minus, coefficient: 0, exponent: 0) }
        if let exact = exactWithFifteenDigits(value) {
            return finite(negative: value < 0, coefficient: exact.coefficient, exponent: exact.exponent)
        }
        let rounded = roundedToFifteenDigits(value.magnitude)
        return finite(negative: value < 0, coefficient: rounded.coefficient, exponent: rounded.exponent)
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
            guard let p = printedDigits(magnitude, precision: precision) else { return (0, -precision) }
            return (p.coefficient, p.exponent)
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

    // MARK: To binary floating point

    /// `d` as a double computed in double arithmetic (coefficient × 10^exponent:
    /// close, not always the nearest).  The engine's sort keys and the keys
    /// of numbers in sets of mixed values are made of it, so it must not
    /// change.  The second encoding form (non-canonical) reads as zero.
    public static func toDouble(_ d: Decimal128Bits) -> Double {
        let negative = d.high >> 63 == 1
        let combination = (d.high >> 58) & 0x1F
        if combination == 0x1F { return .nan }
        if combination == 0x1E { return negative ? -.infinity : .infinity }
        var exponent: Int
        var coefficientHigh: UInt64
        if (d.high >> 61) & 3 == 3 {
            // Large-coefficient form: not canonical for decimal128 (value is zero).
            exponent = Int((d.high >> 47) & 0x3FFF) - 6176
            coefficientHigh = 0
            return negative ? -0.0 : 0.0 * Double(exponent)
        } else {
            exponent = Int((d.high >> 49) & 0x3FFF) - 6176
            coefficientHigh = d.high & 0x1_FFFF_FFFF_FFFF
        }
        let coefficient = Double(coefficientHigh) * 18446744073709551616.0 + Double(d.low)
        let value = coefficient * pow(10.0, Double(exponent))
        return negative ? -value : value
    }

    /// The double nearest `d` (RealmSwift's `Decimal128.doubleValue`).
    public static func nearestDouble(_ d: Decimal128Bits) -> Double {
        switch kind(d) {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite: return Double(realmText(d)) ?? .nan
        }
    }
}
