import CLMDB

/// Maps: each map property of a class has a database `c<class>.m<prop>`
/// with one entry per key (see design.md, "Links and collections"):
///
///     key    owner object (8, big-endian) + the map key (UTF-8, at most
///            `maxKeyBytes`): LMDB keeps an owner's entries together, in
///            key order (bytewise UTF-8, Realm's order)
///     value  the value as a tagged value (`MixedCoding`)
///
/// The owner's column holds the map's size.
public enum MapStore {
    public static let maxKeyBytes = 480
    public static let invalidUTF8 = "a map key must be valid UTF-8"

    /// Why `key` cannot be a map key (nil when it can): keys are valid
    /// UTF-8 of at most 480 bytes, contain no `.` and do not start with `$`
    /// (the query language uses both in key paths).
    public static func keyProblem(_ key: UnsafeRawBufferPointer) -> String? {
        if !UTF8Check.isValid(key) { return invalidUTF8 }
        if key.count > maxKeyBytes { return "a map key has at most \(maxKeyBytes) bytes, not \(key.count)" }
        if key.first == UInt8(ascii: "$") { return "a map key cannot start with '$': '\(String(decoding: key, as: UTF8.self))'" }
        if key.contains(UInt8(ascii: ".")) { return "a map key cannot contain '.': '\(String(decoding: key, as: UTF8.self))'" }
        return nil
    }

    /// Store `value` under `key` if the database has no such key (nil),
    /// else write nothing and return the stored value (a view): one LMDB
    /// search either way (MDB_NOOVERWRITE).
    public static func insert(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FiefError) -> UnsafeRawBufferPointer? {
        var k = LMDB.val(key)
        var v = LMDB.val(value)
        let rc = mdb_put(txn, dbi, &k, &v, UInt32(MDB_NOOVERWRITE))
        if rc == MDB_KEYEXIST { return LMDB.bytes(v) }
        try LMDB.check(rc, "writing a map")
        return nil
    }

    /// `body` given the stored key of `key` in the map of `owner`, made in
    /// a temporary buffer (on the stack: a map key has at most
    /// `maxKeyBytes`), so a lookup allocates nothing.
    @inlinable @inline(__always)
    public static func withStoredKey<R>(owner: Int64, key: UnsafeRawBufferPointer,
                                 _ body: (UnsafeRawBufferPointer) throws(FiefError) -> R) throws(FiefError) -> R {
        try typed {
            try withUnsafeTemporaryAllocation(byteCount: 8 + key.count, alignment: 8) { (out) throws -> R in
                out.storeBytes(of: UInt64(bitPattern: owner).bigEndian, as: UInt64.self)
                if let base = key.baseAddress, !key.isEmpty { (out.baseAddress! + 8).copyMemory(from: base, byteCount: key.count) }
                return try body(UnsafeRawBufferPointer(out))
            }
        }
    }

    /// The stored key of `key` in the map of `owner`, in `out`.
    public static func encode(owner: Int64, key: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        SetStore.appendBigEndian(UInt64(bitPattern: owner), &out)
        out.append(contentsOf: key)
    }
}

/// A value of any type as bytes: a tag byte (0 null, else the
/// `PropertyType` raw value, 12 a nested list, 13 a nested dictionary) and
/// the payload, little-endian:
///   int 8, bool 1, string and binary their bytes, timestamp 8 + 4, float 4,
///   double 8, decimal128 16 (low, high), object id 12 and uuid 16 (as
///   stored in chunks), link 4 (class) + 8 (object), nested collection 8
///   (its id).
/// Map values and mixed values use it.
public enum MixedCoding {
    public static let nestedListTag: UInt8 = 12
    public static let nestedDictionaryTag: UInt8 = 13

    public static func encode(_ value: Value, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        guard let type = value.type else { out.append(0); return }
        switch value {
        case .nestedList(let id): out.append(nestedListTag); le(id); return
        case .nestedDictionary(let id): out.append(nestedDictionaryTag); le(id); return
        default: out.append(UInt8(type.rawValue))
        }
        switch value {
        case .null: break
        case .int(let i): le(i)
        case .bool(let b): out.append(b ? 1 : 0)
        case .string(let bytes), .binary(let bytes): out.append(contentsOf: bytes)
        case .timestamp(let s, let ns): le(s); le(ns)
        case .float(let f): le(f.bitPattern)
        case .double(let d): le(d.bitPattern)
        case .decimal128(let d): le(d.low); le(d.high)
        case .objectId(let id): le(id.high); le(id.low)
        case .uuid(let id): le(id.high); le(id.low)
        case .link(let classKey, let objectKey): le(classKey); le(objectKey)
        case .nestedList, .nestedDictionary: break
        }
    }

    /// The value of stored bytes (strings and binaries are views into
    /// `raw`); nil if they are not a valid value.
    @inlinable
    public static func decode(_ raw: UnsafeRawBufferPointer) -> Value? {
        guard let tag = raw.first else { return nil }
        if tag == 0 { return raw.count == 1 ? .null : nil }
        if tag == nestedListTag || tag == nestedDictionaryTag {
            guard raw.count == 9 else { return nil }
            let id = Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
            guard id > 0 && id < NestedStore.maxID else { return nil }
            return tag == nestedListTag ? .nestedList(id) : .nestedDictionary(id)
        }
        guard let type = PropertyType(rawValue: Int32(tag)) else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: raw[1...])
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: body.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: body.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        switch type {
        case .int: return body.count == 8 ? .int(Int64(bitPattern: u64(0))) : nil
        case .bool: return body.count == 1 && body[0] <= 1 ? .bool(body[0] == 1) : nil
        case .string: return UTF8Check.isValid(body) ? .string(body) : nil
        case .binary: return .binary(body)
        case .timestamp:
            guard body.count == 12 else { return nil }
            let s = Int64(bitPattern: u64(0)), ns = Int32(bitPattern: u32(8))
            return Value.isValidTimestamp(seconds: s, nanoseconds: ns) ? .timestamp(seconds: s, nanoseconds: ns) : nil
        case .float: return body.count == 4 ? .float(Float(bitPattern: u32(0))) : nil
        case .double: return body.count == 8 ? .double(Double(bitPattern: u64(0))) : nil
        case .decimal128: return body.count == 16 ? .decimal128(Decimal128Bits(low: u64(0), high: u64(8))) : nil
        case .objectId: return body.count == 12 ? .objectId(ObjectIdBytes(high: u64(0), low: u32(8))) : nil
        case .uuid: return body.count == 16 ? .uuid(UUIDBytes(high: u64(0), low: u64(8))) : nil
        case .link: return body.count == 12 ? .link(classKey: u32(0), objectKey: Int64(bitPattern: u64(4))) : nil
        case .mixed: return nil
        }
    }
}
