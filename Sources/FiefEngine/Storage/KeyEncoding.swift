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
enum KeyEncoding {
    static let maxKeyBytes = 480

    static func encode(_ value: Value, into out: inout [UInt8]) {
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
            // Never a key (mixed properties are neither indexed nor primary keys).
            out.append(2)
            appendBigEndian(UInt64(bitPattern: id), &out)
        }
    }

    /// Whether an encoded string key was cut (so matches must be re-checked).
    static func isTruncated(_ value: Value) -> Bool {
        switch value {
        case .string(let bytes), .binary(let bytes): return bytes.count >= maxKeyBytes - 1
        default: return false
        }
    }

    private static func appendBigEndian(_ v: UInt64, _ out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }
}
