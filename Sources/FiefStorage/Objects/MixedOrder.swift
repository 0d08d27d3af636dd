#if canImport(Glibc)
import Glibc
#endif

/// Realm's order of mixed values, for sorting results of mixed values,
/// filtering them, finding one and taking their min and max:
///
/// * types in groups, in this order: null, bool, numbers (int, float,
///   double and decimal128 together), string, binary, timestamp, object id,
///   uuid, link, nested list, nested dictionary (as realm-core's
///   `Mixed::compare` ranks them);
/// * within a group: false before true; numbers by their exact value
///   across types (`1`, `1.0` and decimal `1` are equal; a NaN is below
///   every other number and equal to every NaN); strings and binaries by
///   their bytes (a prefix first); timestamps by seconds, then nanoseconds;
///   object ids and uuids by their bytes; links by class key, then object
///   key; every nested list equal to every other, and so for dictionaries.
///
/// Values of different groups are never equal (`true` is not `1`, `"1"` is
/// not `1`).  The order is total, so a sort by it is well defined.
public enum MixedOrder {
    /// The value's group: its place in the order of types.
    @inlinable @inline(__always)
    public static func rank(_ v: Value) -> Int {
        switch v {
        case .null: return 0
        case .bool: return 1
        case .int, .float, .double, .decimal128: return 2
        case .string: return 3
        case .binary: return 4
        case .timestamp: return 5
        case .objectId: return 6
        case .uuid: return 7
        case .link: return 8
        case .nestedList: return 9
        case .nestedDictionary: return 10
        }
    }

    /// -1, 0 or 1: `a` before, with or after `b`.
    public static func compare(_ a: Value, _ b: Value) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.bool(let x), .bool(let y)):
            return x == y ? 0 : (x ? 1 : -1)
        case (.string(let x), .string(let y)), (.binary(let x), .binary(let y)):
            return bytes(x, y)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)):
            if s1 != s2 { return s1 < s2 ? -1 : 1 }
            return n1 == n2 ? 0 : (n1 < n2 ? -1 : 1)
        case (.objectId(let x), .objectId(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.uuid(let x), .uuid(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.link(let c1, let k1), .link(let c2, let k2)):
            if c1 != c2 { return c1 < c2 ? -1 : 1 }
            return k1 == k2 ? 0 : (k1 < k2 ? -1 : 1)
        case (.int(let x), .int(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.null, .null), (.nestedList, .nestedList), (.nestedDictionary, .nestedDictionary):
            // Nested collections of one kind are equal (as realm-core compares them).
            return 0
        default:
            return compareNumbers(a, b)
        }
    }

    /// How far a sort key (`sortKey`) orders two values of one group.
    public enum KeyKind: UInt8 {
        /// The key says nothing: compare the values.
        case none
        /// Different keys order the values; equal keys need the values.
        case prefix
        /// The key orders the values, and equal keys mean equal values.
        case exact
    }

    /// A 64-bit key that orders the values of one group (`rank`) as
    /// `compare` does, as far as its kind says: numbers that are doubles
    /// exactly (floats, doubles, ints up to 2^53) by their ordered bits, a
    /// NaN first; strings and binaries by their first eight bytes;
    /// timestamps by seconds; object ids, uuids and links by their first word.
    @inlinable @inline(__always)
    public static func sortKey(_ v: Value) -> (key: UInt64, kind: KeyKind) {
        switch v {
        case .null, .nestedList, .nestedDictionary: return (0, .exact)
        case .bool(let b): return (b ? 1 : 0, .exact)
        case .int(let i):
            return i.magnitude <= 1 << 53 ? (SetStore.orderedBits(Double(i)), .exact) : (0, .none)
        case .float(let f): return (SetStore.orderedBits(Double(f)), .exact)
        case .double(let d): return (SetStore.orderedBits(d), .exact)
        case .decimal128: return (0, .none)
        case .string(let bytes), .binary(let bytes):
            var prefix: UInt64 = 0
            if bytes.count >= 8 {
                prefix = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
            } else {
                for i in 0..<8 { prefix = prefix << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
            }
            return (prefix, .prefix)
        case .timestamp(let seconds, _): return (UInt64(bitPattern: seconds) ^ (1 << 63), .prefix)
        case .objectId(let id): return (id.high, .prefix)
        case .uuid(let id): return (id.high, .prefix)
        case .link(let classKey, let objectKey): return (UInt64(classKey) << 32 | (UInt64(bitPattern: objectKey) ^ (1 << 63)) >> 32, .prefix)
        }
    }

    /// Whether `a` and `b` are equal as Realm compares mixed values.
    @inlinable @inline(__always)
    public static func equal(_ a: Value, _ b: Value) -> Bool { rank(a) == rank(b) && compare(a, b) == 0 }

    /// Whether `v` is a number that has no order (a float, double or decimal NaN).
    @inlinable @inline(__always)
    public static func isNaN(_ v: Value) -> Bool {
        switch v {
        case .float(let f): return f.isNaN
        case .double(let d): return d.isNaN
        case .decimal128(let d): return DecimalArithmetic.isNaN(d)
        default: return false
        }
    }

    @inlinable @inline(__always)
    public static func bytes(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let n = Swift.min(x.count, y.count)
        if n > 0 {
            let c = memcmp(x.baseAddress!, y.baseAddress!, n)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    // MARK: Numbers

    /// A number as one of three exact kinds (a float is its double).
    private enum Number {
        case int(Int64)
        case double(Double)
        case decimal(Decimal128Bits)

        public init?(_ v: Value) {
            switch v {
            case .int(let i): self = .int(i)
            case .float(let f): self = .double(Double(f))
            case .double(let d): self = .double(d)
            case .decimal128(let d): self = .decimal(d)
            default: return nil
            }
        }

        public var isNaN: Bool {
            switch self {
            case .int: return false
            case .double(let d): return d.isNaN
            case .decimal(let d): return DecimalArithmetic.isNaN(d)
            }
        }
    }

    /// Two numbers (of any kinds) by exact value; NaN below everything else.
    public static func compareNumbers(_ a: Value, _ b: Value) -> Int {
        guard let x = Number(a), let y = Number(b) else { return 0 }
        let xNaN = x.isNaN, yNaN = y.isNaN
        if xNaN || yNaN { return xNaN == yNaN ? 0 : (xNaN ? -1 : 1) }
        switch (x, y) {
        case (.int(let i), .int(let j)): return i == j ? 0 : (i < j ? -1 : 1)
        case (.double(let d), .double(let e)): return d == e ? 0 : (d < e ? -1 : 1)
        case (.int(let i), .double(let d)): return compare(i, d)
        case (.double(let d), .int(let i)): return -compare(i, d)
        case (.decimal(let p), .decimal(let q)): return DecimalArithmetic.compare(p, q) ?? 0
        case (.int(let i), .decimal(let q)): return DecimalArithmetic.compare(DecimalArithmetic.from(i), q) ?? 0
        case (.decimal(let p), .int(let i)): return DecimalArithmetic.compare(p, DecimalArithmetic.from(i)) ?? 0
        case (.double(let d), .decimal(let q)): return compare(d, q)
        case (.decimal(let p), .double(let d)): return -compare(d, p)
        }
    }

    /// An int and a double (not NaN), exactly.
    public static func compare(_ i: Int64, _ d: Double) -> Int {
        if d >= 0x1p63 { return -1 }
        if d < -0x1p63 { return 1 }
        // Here trunc(d) fits an Int64, and |d - trunc(d)| < 1.
        let t = d.rounded(.towardZero)
        let ti = Int64(t)
        if i != ti { return i < ti ? -1 : 1 }
        let fraction = d - t
        return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
    }

    /// A double and a decimal (neither NaN), exactly.
    public static func compare(_ d: Double, _ x: Decimal128Bits) -> Int {
        let (negative, exponent, coefficient, _) = DecimalOrder.parts(x)
        guard let c = coefficient else {
            // x is an infinity.
            if d.isInfinite && (d < 0) == negative { return 0 }
            return negative ? 1 : -1
        }
        if d.isInfinite { return d < 0 ? -1 : 1 }
        if c == 0 { return d == 0 ? 0 : (d < 0 ? -1 : 1) }
        if d == 0 { return negative ? 1 : -1 }
        if (d < 0) != negative { return d < 0 ? -1 : 1 }
        // Same sign: most pairs are told apart by the nearest double.
        let approximate = DecimalArithmetic.toDouble(x)
        let scale = Swift.max(Swift.abs(approximate), Swift.abs(d))
        if scale > 0x1p-900 && scale < 0x1p900 && Swift.abs(approximate - d) > scale * 0x1p-30 {
            return d < approximate ? -1 : 1
        }
        let magnitude = compareMagnitudes(Swift.abs(d), c, exponent)
        return negative ? -magnitude : magnitude
    }

    /// |d| against c × 10^q (both non-zero and finite), exactly.
    private static func compareMagnitudes(_ d: Double, _ c: UInt128, _ q: Int) -> Int {
        // The decimal lies in [10^adjusted, 10^(adjusted+1)); every finite,
        // non-zero double in [4.9e-324, 1.8e308].
        let adjusted = q + DecimalArithmetic.digitCount(c) - 1
        if adjusted >= 309 { return -1 }
        if adjusted <= -325 { return 1 }
        let bits = d.bitPattern
        let biased = Int((bits >> 52) & 0x7FF)
        let fraction = bits & ((1 << 52) - 1)
        let m = biased == 0 ? fraction : fraction | (1 << 52)
        let e = (biased == 0 ? 1 : biased) - 1075
        // Compare m × 2^e with c × 10^q as integers.
        var left = BigNatural(UInt128(m)), right = BigNatural(c)
        if e >= 0 { left.shiftLeft(e) } else { right.shiftLeft(-e) }
        if q >= 0 { right.multiplyByPowerOfTen(q) } else { left.multiplyByPowerOfTen(-q) }
        return BigNatural.compare(left, right)
    }
}

/// A natural number of any size (little-endian 32-bit limbs): just what
/// exact comparisons of doubles and decimals need.
public struct BigNatural {
    public private(set) var limbs: [UInt32]

    public init(_ value: UInt128) {
        limbs = []
        var v = value
        while v != 0 {
            limbs.append(UInt32(truncatingIfNeeded: v))
            v >>= 32
        }
    }

    public mutating func multiply(by k: UInt32) {
        var carry: UInt64 = 0
        for i in 0..<limbs.count {
            let p = UInt64(limbs[i]) * UInt64(k) + carry
            limbs[i] = UInt32(truncatingIfNeeded: p)
            carry = p >> 32
        }
        if carry != 0 { limbs.append(UInt32(carry)) }
    }

    public mutating func multiplyByPowerOfTen(_ n: Int) {
        var n = n
        while n >= 9 { multiply(by: 1_000_000_000); n -= 9 }
        var k: UInt32 = 1
        for _ in 0..<n { k *= 10 }
        if k > 1 { multiply(by: k) }
    }

    public mutating func shiftLeft(_ bits: Int) {
        guard !limbs.isEmpty, bits > 0 else { return }
        let whole = bits / 32, part = UInt32(bits % 32)
        if part > 0 {
            var carry: UInt32 = 0
            for i in 0..<limbs.count {
                let v = limbs[i]
                limbs[i] = v << part | carry
                carry = v >> (32 - part)
            }
            if carry != 0 { limbs.append(carry) }
        }
        if whole > 0 { limbs.insert(contentsOf: repeatElement(0, count: whole), at: 0) }
    }

    public static func compare(_ a: BigNatural, _ b: BigNatural) -> Int {
        var na = a.limbs.count, nb = b.limbs.count
        while na > 0 && a.limbs[na - 1] == 0 { na -= 1 }
        while nb > 0 && b.limbs[nb - 1] == 0 { nb -= 1 }
        if na != nb { return na < nb ? -1 : 1 }
        var i = na - 1
        while i >= 0 {
            if a.limbs[i] != b.limbs[i] { return a.limbs[i] < b.limbs[i] ? -1 : 1 }
            i -= 1
        }
        return 0
    }
}
