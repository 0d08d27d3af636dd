/// Decimal128 comparison and arithmetic: exact comparison, addition,
/// multiplication and division as IEEE 754-2008 decimal128 defines them
/// (what realm-core gets from the BID library), and division by a count
/// for averages.
extension DecimalArithmetic {
    /// -1, 0 or 1 (numeric order: 1.0 equals 1.00, zeros of either sign are
    /// equal); nil when either side is NaN.
    public static func compare(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Int? {
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

    // MARK: Addition and subtraction

    /// `a + b`, rounded; NaN if either is NaN or for Inf + -Inf.
    public static func add(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
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

    /// `a - b` (`a + -b`).
    public static func subtract(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
        add(a, negated(b))
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

    /// The sign of `d` flipped (NaN stays NaN).
    public static func negated(_ d: Decimal128Bits) -> Decimal128Bits {
        Decimal128Bits(low: d.low, high: d.high ^ (1 << 63))
    }

    // MARK: Multiplication and division

    /// `a × b` as IEEE 754-2008 decimal128 gives it: the exact product
    /// rounded half to even to 34 digits, its exponent the sum of the
    /// operands' where the product is exact (`1.5 × 2.0` is `3.00`); an
    /// overflow gives an infinity, an underflow a rounded subnormal or
    /// zero.  NaN if either is NaN and for an infinity times zero; the
    /// sign of a zero or infinite result is the operands' signs combined.
    public static func multiply(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
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
    public static func divide(_ a: Decimal128Bits, _ b: Decimal128Bits) -> Decimal128Bits {
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
    public static func divide(_ a: Decimal128Bits, by n: Int) -> Decimal128Bits {
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
