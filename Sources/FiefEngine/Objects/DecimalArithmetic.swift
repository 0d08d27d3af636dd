/// Decimal128 arithmetic the engine needs for aggregates and queries: exact
/// comparison (min, max), addition (sum), division by a count (average),
/// and multiplication and division (query arithmetic), in the BID
/// encoding values are stored in.  Results are rounded half to even to 34
/// significant digits, as IEEE 754-2008 decimal128 does.  (The overlay has
/// its own, fuller Decimal128 type: it is built on the C ABI only.)
enum DecimalArithmetic {
    static let exponentBias = 6176
    static let minExponent = -6176
    static let maxExponent = 6111
    static let coefficientLimit: UInt128 = {
        var value: UInt128 = 1
        for _ in 0..<34 { value *= 10 }
        return value
    }()

    enum Kind: Equatable {
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
        case infinity(negative: Bool)
        case nan
    }

    static func kind(_ d: Decimal128Bits) -> Kind {
        let negative = d.high >> 63 == 1
        let combination = (d.high >> 58) & 0x1F
        if combination == 0b11111 { return .nan }
        if combination == 0b11110 { return .infinity(negative: negative) }
        var coefficient: UInt128
        let biased: UInt64
        if (d.high >> 61) & 0b11 == 0b11 {
            // The second form only encodes coefficients above 10^34: non-canonical, read as 0.
            biased = (d.high >> 47) & 0x3FFF
            coefficient = 0
        } else {
            biased = (d.high >> 49) & 0x3FFF
            coefficient = UInt128(d.high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(d.low)
            if coefficient >= coefficientLimit { coefficient = 0 }
        }
        return .finite(negative: negative, coefficient: coefficient, exponent: Int(biased) - exponentBias)
    }

    static func isNaN(_ d: Decimal128Bits) -> Bool { (d.high >> 58) & 0x1F == 0b11111 }

    static let nan = Decimal128Bits(low: 0, high: 0b11111 << 58)

    static func infinity(negative: Bool) -> Decimal128Bits {
        Decimal128Bits(low: 0, high: (negative ? 1 << 63 : 0) | (0b11110 << 58))
    }

    /// The exact integer `value`.
    static func from(_ value: Int64) -> Decimal128Bits {
        finite(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// `coefficient × 10^exponent` encoded, rounded to 34 digits, the
    /// exponent clamped (overflow gives an infinity, underflow zero).
    static func finite(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128Bits {
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

    // MARK: Comparison

    /// The number of decimal digits of `value` (1 for 0).
    static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 { count += 1; rest /= 10 }
        return count
    }

    /// -1, 0 or 1 (numeric order: 1.0 equals 1.00, zeros of either sign are
    /// equal); nil when either side is NaN.
    static func compare(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Int? {
        if a == b && !isNaN(a) { return 0 }
        let ka = kind(a), kb = kind(b)
        if ka == .nan || kb == .nan { return nil }
        // (sign -1/0/1, infinite, digits-adjusted exponent, coefficient scaled to 34 digits)
        func parts(_ k: Kind) -> (sign: Int, infinite: Bool, exponent: Int, coefficient: UInt128) {
            switch k {
            case .nan: return (0, false, 0, 0)
            case .infinity(let negative): return (negative ? -1 : 1, true, 0, 0)
            case let .finite(negative, coefficient, exponent):
                if coefficient == 0 { return (0, false, 0, 0) }
                let digits = digitCount(coefficient)
                var scaled = coefficient
                for _ in digits..<34 { scaled *= 10 }
                return (negative ? -1 : 1, false, exponent + digits - 1, scaled)
            }
        }
        let pa = parts(ka), pb = parts(kb)
        if pa.sign != pb.sign { return pa.sign < pb.sign ? -1 : 1 }
        if pa.sign == 0 { return 0 }
        let magnitude: Int
        if pa.infinite || pb.infinite {
            magnitude = pa.infinite == pb.infinite ? 0 : (pa.infinite ? 1 : -1)
        } else if pa.exponent != pb.exponent {
            magnitude = pa.exponent < pb.exponent ? -1 : 1
        } else {
            magnitude = pa.coefficient == pb.coefficient ? 0 : (pa.coefficient < pb.coefficient ? -1 : 1)
        }
        return pa.sign < 0 ? -magnitude : magnitude
    }

    // MARK: Addition and division

    /// `a + b`, rounded; NaN if either is NaN or for Inf + -Inf.
    static func add(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
        switch (kind(a), kind(b)) {
        case (.nan, _), (_, .nan):
            return nan
        case let (.infinity(x), .infinity(y)):
            return x == y ? a : nan
        case (.infinity, _):
            return a
        case (_, .infinity):
            return b
        case let (.finite(sa, ca, ea), .finite(sb, cb, eb)):
            return addFinite(sa, ca, ea, sb, cb, eb)
        }
    }

    private static func addFinite(_ sa: Bool, _ ca: UInt128, _ ea: Int, _ sb: Bool, _ cb: UInt128, _ eb: Int) -> Decimal128Bits {
        if ca == 0 && cb == 0 { return finite(negative: sa && sb, coefficient: 0, exponent: Swift.min(ea, eb)) }
        if ca == 0 { return finite(negative: sb, coefficient: cb, exponent: eb) }
        if cb == 0 && ea <= eb { return finite(negative: sa, coefficient: ca, exponent: ea) }
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
        if s1 == s2 { return rounded(large.adding(small), exponent: exponent, sticky: false, negative: s1) }
        if large == small { return finite(negative: false, coefficient: 0, exponent: exponent) }
        return large > small
            ? rounded(large.subtracting(small), exponent: exponent, sticky: false, negative: s1)
            : rounded(small.subtracting(large), exponent: exponent, sticky: false, negative: s2)
    }

    // MARK: Multiplication and division

    /// The sign of `d` flipped (NaN stays NaN).
    static func negated(_ d: Decimal128Bits) -> Decimal128Bits {
        Decimal128Bits(low: d.low, high: d.high ^ (1 << 63))
    }

    /// `a × b` as IEEE 754-2008 decimal128 gives it: the exact product
    /// rounded half to even to 34 digits, its exponent the sum of the
    /// operands' where the product is exact (`1.5 × 2.0` is `3.00`); an
    /// overflow gives an infinity, an underflow a rounded subnormal or
    /// zero.  NaN if either is NaN and for an infinity times zero; the
    /// sign of a zero or infinite result is the operands' signs combined.
    static func multiply(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
        switch (kind(a), kind(b)) {
        case (.nan, _), (_, .nan):
            return nan
        case let (.infinity(x), .infinity(y)):
            return infinity(negative: x != y)
        case let (.infinity(x), .finite(y, c, _)), let (.finite(y, c, _), .infinity(x)):
            return c == 0 ? nan : infinity(negative: x != y)
        case let (.finite(sa, ca, ea), .finite(sb, cb, eb)):
            let product = ca.multipliedFullWidth(by: cb)
            return rounded(Wide(high: product.high, low: product.low), exponent: ea + eb, sticky: false, negative: sa != sb)
        }
    }

    /// `a ÷ b` as IEEE 754-2008 decimal128 gives it: an exact quotient with
    /// the exponent nearest `a`'s minus `b`'s (`6 ÷ 2` is `3`, `1 ÷ 4` is
    /// `0.25`), any other rounded half to even to 34 digits (`1 ÷ 3` is
    /// `0.3333333333333333333333333333333333`).  A non-zero number divided
    /// by zero is an infinity (of the operands' signs combined); 0 ÷ 0,
    /// ∞ ÷ ∞ and anything with NaN are NaN; a number divided by an
    /// infinity is zero.
    static func divide(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
        switch (kind(a), kind(b)) {
        case (.nan, _), (_, .nan), (.infinity, .infinity):
            return nan
        case let (.infinity(x), .finite(y, _, _)):
            return infinity(negative: x != y)
        case let (.finite(x, _, _), .infinity(y)):
            return finite(negative: x != y, coefficient: 0, exponent: minExponent)
        case let (.finite(sa, ca, ea), .finite(sb, cb, eb)):
            let negative = sa != sb
            if cb == 0 { return ca == 0 ? nan : infinity(negative: negative) }
            return quotient(ca, cb, negative: negative, preferredExponent: ea - eb)
        }
    }

    /// `a / n` for a count `n` > 0, rounded (an exact quotient keeps `a`'s
    /// exponent where it can).
    static func divide(_ a: Decimal128Bits, by n: Int) -> Decimal128Bits {
        switch kind(a) {
        case .nan, .infinity: return a
        case let .finite(negative, ca, ea):
            return quotient(ca, UInt128(n), negative: negative, preferredExponent: ea)
        }
    }

    /// The coefficient `ca` divided by `cb` (> 0), with the sign `negative`,
    /// rounded to 34 digits; an exact quotient drops trailing zeros while its
    /// exponent is below `preferredExponent` (IEEE 754-2008's ideal exponent).
    private static func quotient(_ ca: UInt128, _ cb: UInt128, negative: Bool, preferredExponent: Int) -> Decimal128Bits {
        if ca == 0 { return finite(negative: negative, coefficient: 0, exponent: preferredExponent) }
        // Scale the dividend so that the quotient has at least 35 digits.
        let scale = Swift.max(35 + digitCount(cb) - digitCount(ca), 0)
        let (quotient, remainder) = Wide(ca).timesPowerOfTen(scale).divided(by: cb)
        var q = quotient
        var exponent = preferredExponent - scale
        if remainder == 0 {
            while exponent < preferredExponent {
                let (shorter, digit) = q.divided(by: 10)
                guard digit == 0 else { break }
                q = shorter
                exponent += 1
            }
        }
        return rounded(q, exponent: exponent, sticky: remainder != 0, negative: negative)
    }

    /// `coefficient × 10^exponent` rounded half to even to 34 digits;
    /// `sticky`: the exact value is a little above `coefficient`.
    private static func rounded(_ coefficient: Wide, exponent: Int, sticky: Bool, negative: Bool) -> Decimal128Bits {
        var c = coefficient
        var exponent = exponent
        var sticky = sticky
        var roundDigit: UInt128 = 0
        let limit = Wide(coefficientLimit)
        // Digits go past 34, and below the smallest exponent (a subnormal
        // result), in one rounding.
        while c >= limit || (exponent < minExponent && c != Wide(0)) {
            if roundDigit != 0 { sticky = true }
            let (shorter, digit) = c.divided(by: 10)
            roundDigit = digit
            c = shorter
            exponent += 1
        }
        if exponent < minExponent {
            // Nothing is left above the smallest exponent: less than half its unit.
            return finite(negative: negative, coefficient: 0, exponent: minExponent)
        }
        var result = c.low
        if roundDigit > 5 || (roundDigit == 5 && (sticky || result % 2 == 1)) {
            result += 1
            if result == coefficientLimit {
                result /= 10
                exponent += 1
            }
        }
        return finite(negative: negative, coefficient: result, exponent: exponent)
    }

    /// An unsigned 256-bit integer for exact intermediate results.
    private struct Wide: Comparable {
        var high: UInt128
        var low: UInt128

        init(high: UInt128, low: UInt128) { self.high = high; self.low = low }
        init(_ value: UInt128) { self.init(high: 0, low: value) }

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

        func subtracting(_ other: Wide) -> Wide {
            let (low, borrow) = low.subtractingReportingOverflow(other.low)
            return Wide(high: high &- other.high &- (borrow ? 1 : 0), low: low)
        }

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

extension DecimalArithmetic {
    /// The decimal a text spells, exactly (rounded half to even past 34
    /// digits): an optional sign, digits with an optional point, an
    /// optional exponent (`-12.5`, `+8.1E-8`, `.5`, `10.`), or `inf`,
    /// `infinity`, `nan` in any case; surrounding spaces allowed.  nil for
    /// anything else.
    static func parse<Bytes: Collection>(_ text: Bytes) -> Decimal128Bits? where Bytes.Element == UInt8 {
        var bytes = Array(text)
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        var i = 0
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        let word = String(decoding: bytes[i...], as: UTF8.self).lowercased()
        if word == "inf" || word == "infinity" { return infinity(negative: negative) }
        if word == "nan" { return nan }
        var coefficient: UInt128 = 0
        var exponent = 0
        var digits = 0
        var dropped = false
        var sawPoint = false
        var droppedNonZero = false
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if b >= 0x30 && b <= 0x39 {
                digits += 1
                if coefficient < 1_000_000_000_000_000_000_000_000_000_000_000_000 / 10 {
                    coefficient = coefficient * 10 + UInt128(b - 0x30)
                    if sawPoint { exponent -= 1 }
                } else {
                    // Beyond 37 digits: the digit only moves the exponent.
                    dropped = true
                    if b != 0x30 { droppedNonZero = true }
                    if !sawPoint { exponent += 1 }
                }
            } else {
                break
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        if i < bytes.count {
            guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return nil }
            i += 1
            var exponentNegative = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var written = 0
            var exponentDigits = 0
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                if written < 100_000 { written = written * 10 + Int(bytes[i] - 0x30) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0, i == bytes.count else { return nil }
            exponent += exponentNegative ? -written : written
        }
        if dropped && droppedNonZero {
            // A sticky digit so that rounding at 34 digits sees the dropped tail.
            coefficient = coefficient * 10 + 1
            exponent -= 1
        }
        return finite(negative: negative, coefficient: coefficient, exponent: exponent)
    }
}
