#if canImport(Glibc)
import Glibc
#endif

/// Keys of the primary-key and search-index databases.
///
/// A value becomes bytes whose order is the value's order (so later range
/// scans can use the index): a tag byte (0 = null, 1 = value) then
///   int        8 bytes big-endian with the sign bit flipped
///   bool       1 byte
///   string     the UTF-8 bytes, cut at `maxKeyBytes` (lookups re-check the
///              stored value when a key was cut)
///   timestamp  8 bytes like int, then 4 bytes nanoseconds + 2^31, big-endian
///   object id, uuid  their bytes
/// Non-optional int primary keys use MDB_INTEGERKEY instead: the 8 native
/// bytes of the integer (order is not needed for equality lookups).
///
/// Indexes of mixed properties use `encodeMixed`: one key for the values
/// Realm calls equal (see there).
public enum KeyEncoding {
    public static let maxKeyBytes = 480

    /// The index key of a value of `property` (decoded: a mixed value as
    /// itself); false when the value has no entry (a mixed property holding
    /// a nested list or dictionary).
    public static func encodeIndexKey(_ value: Value, of property: Property, into out: inout [UInt8]) -> Bool {
        if property.type == .mixed { return encodeMixed(value, into: &out) }
        encode(value, into: &out)
        return true
    }

    /// The index key of a mixed value: the canonical key a set of mixed
    /// values gives it (`SetStore.mixedKey`, without the owner), so values
    /// equal as Realm compares them (`MixedOrder.equal`) get equal keys and
    /// others different ones: a type group byte, then numbers of every type
    /// in one form (`MixedNumber`: an int when the value is an integer in
    /// int64's range, else a double when it is one exactly (decimal 2^70 is
    /// the double 2^70), else a decimal
    /// with its trailing zeros dropped, so 1, 1.0f, 1.0 and decimal 1.00 are
    /// one key; every NaN one key), strings and binaries apart (cut past
    /// 440 bytes, with a hash), links by class and object.  An equality
    /// lookup is then exact, and answers are checked against the values
    /// anyway (cut strings).  Nested lists and dictionaries are not
    /// indexed: false.
    public static func encodeMixed(_ value: Value, into out: inout [UInt8]) -> Bool {
        switch value {
        case .nestedList, .nestedDictionary:
            out.removeAll(keepingCapacity: true)
            return false
        default:
            SetStore.encode(value, owner: 0, mixed: true, into: &out)
            out.removeFirst(SetStore.ownerBytes)
            return true
        }
    }

    /// The double a finite integer decimal outside int64's range is
    /// exactly, if it is one (`MixedNumber.canonical` keys such a decimal as
    /// that double); nil otherwise.
    public static func integralDouble(_ d: Decimal128Bits) -> Double? {
        let (negative, exponent, coefficient, _) = DecimalOrder.parts(d)
        guard var c = coefficient, c != 0 else { return nil }
        var e = exponent
        while c % 10 == 0 { c /= 10; e += 1 }
        guard e >= 0, e <= 22 else { return nil }
        // c × 10^e = (odd part of c) × 5^e × 2^(twos of c + e): a double
        // exactly when the odd part times 5^e fits 53 bits.
        let twos = c.trailingZeroBitCount
        var odd = c >> UInt128(twos)
        for _ in 0..<e {
            let (m, overflow) = odd.multipliedReportingOverflow(by: 5)
            if overflow { return nil }
            odd = m
        }
        guard odd < UInt128(1) << 53 else { return nil }
        let magnitude = Double(UInt64(odd)) * pow(2.0, Double(twos + e))
        // Inside int64's range the decimal is keyed as an int already.
        guard magnitude >= 0x1p63 else { return nil }
        return negative ? -magnitude : magnitude
    }

    public static func encode(_ value: Value, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        switch value {
        case .null:
            out.append(0)
        case .int(let i):
            out.append(1)
            appendBigEndian(UInt64(bitPattern: i) ^ (1 << 63), &out)
        case .bool(let b):
            out.append(1)
            out.append(b ? 1 : 0)
        case .string(let bytes), .binary(let bytes):
            out.append(1)
            out.append(contentsOf: bytes.prefix(maxKeyBytes - 1))
        case .timestamp(let s, let ns):
            out.append(1)
            appendBigEndian(UInt64(bitPattern: s) ^ (1 << 63), &out)
            let n = UInt32(bitPattern: ns) ^ (1 << 31)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> UInt32(shift))) }
        case .objectId(let id):
            out.append(1)
            appendBigEndian(id.high, &out)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: id.low >> UInt32(shift))) }
        case .uuid(let id):
            out.append(1)
            appendBigEndian(id.high, &out)
            appendBigEndian(id.low, &out)
        case .float(let f):
            out.append(1)
            appendBigEndian(UInt64(f.bitPattern), &out)
        case .double(let d):
            out.append(1)
            appendBigEndian(d.bitPattern, &out)
        case .decimal128(let d):
            out.append(1)
            appendBigEndian(d.high, &out)
            appendBigEndian(d.low, &out)
        case .link(let classKey, let objectKey):
            out.append(1)
            appendBigEndian(UInt64(classKey), &out)
            appendBigEndian(UInt64(bitPattern: objectKey), &out)
        case .nestedList(let id), .nestedDictionary(let id):
            // Never a key (mixed values are indexed by `encodeMixed`, which gives these none).
            out.append(2)
            appendBigEndian(UInt64(bitPattern: id), &out)
        }
    }

    /// Whether a mixed value's index key holds only part of it (a string
    /// or binary past `SetStore.cutBytes`, with a hash).
    public static func isCut(mixed value: Value) -> Bool {
        switch value {
        case .string(let bytes), .binary(let bytes): return bytes.count > SetStore.cutBytes
        default: return false
        }
    }

    /// Whether an encoded string key was cut (so matches must be re-checked).
    public static func isTruncated(_ value: Value) -> Bool {
        switch value {
        case .string(let bytes), .binary(let bytes): return bytes.count >= maxKeyBytes - 1
        default: return false
        }
    }

    private static func appendBigEndian(_ v: UInt64, _ out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }
}
