import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// Sets: each set property of a class has a database `c<class>.s<prop>`
/// with one entry per element (see design.md, "Links and collections"):
///
///     key    owner object (8, big-endian) + the element in the ordered
///            encoding below: LMDB keeps an owner's elements together, in
///            the elements' order
///     value  empty; for a string or binary longer than `cutBytes`, whose
///            key holds only its first `cutBytes` bytes and a hash, the
///            whole element; for a set of mixed values, the value coded;
///            then `EntrySeal`'s checksum over the whole key and that
///            (format 10: a flipped bit in the key is damage, not another
///            element)
///
/// So insert (LMDB says whether the key is new), remove and contains are
/// one B-tree operation each, and two sets are merged as sorted runs.  The
/// owner's column holds the set's size.
///
/// The ordered encoding: a class byte (null 0x00, bool 0x10, number 0x20,
/// string 0x30, binary 0x40, timestamp 0x50, object id 0x60, uuid 0x70,
/// link 0x80), then
///   bool       1 byte
///   int        8 bytes big-endian, sign bit flipped
///   float      4 bytes, double 8 bytes: the IEEE bits made to sort as
///              numbers (negative: all bits flipped, else the sign bit);
///              -0 is stored as 0, every NaN as one NaN, first
///   decimal    a canonical form, so 1.0 and 1.00 are one element: a sign
///              class (NaN 0, -inf 1, negative 2, zero 3, positive 4, +inf
///              5), then for non-zero finite values the adjusted exponent
///              (2 bytes, biased by 2^15) and the coefficient scaled to 34
///              digits (16 bytes), both big-endian and flipped if negative
///   string, binary  the bytes (cut as above)
///   timestamp  seconds as an int, then nanoseconds + 2^31 (4 bytes)
///   object id  12 bytes, uuid 16 bytes, as stored
///   link       the target's object key as an int (the class is the set's)
public enum SetStore {
    public static let ownerBytes = 8
    /// Strings and binaries longer than this keep this many bytes and an
    /// 8-byte hash in their key (LMDB keys are at most 511 bytes).
    public static let cutBytes = 440
    public static let hashBytes = 8

    /// Whether `a` and `b` hold the same bytes.
    public static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    public enum Class: UInt8 {
        case null = 0x00, bool = 0x10, number = 0x20, string = 0x30, binary = 0x40
        case timestamp = 0x50, objectId = 0x60, uuid = 0x70, link = 0x80
    }

    /// The key of `value` in the set of `owner`, in `out`; true when a
    /// string or binary was cut (its entry then stores it whole).  `mixed`:
    /// the set holds mixed values (numbers of every type in one canonical
    /// form, links with their class; each entry stores its value coded).
    @discardableResult
    public static func encode(_ value: Value, owner: Int64, mixed: Bool = false, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        appendBigEndian(UInt64(bitPattern: owner), &out)
        if mixed {
            switch value {
            case .int, .float, .double, .decimal128:
                out.append(Class.number.rawValue)
                MixedNumber.encode(value, into: &out)
                return false
            case .link(let classKey, let objectKey):
                out.append(Class.link.rawValue)
                appendBigEndian32(classKey, &out)
                appendBigEndian(UInt64(bitPattern: objectKey) ^ (1 << 63), &out)
                return false
            default:
                break
            }
        }
        return encodeElement(value, into: &out)
    }

    /// What an entry stores beside its key: for a mixed set the value as
    /// added (coded); else a cut string or binary whole; else nothing.
    public static func entryData(_ value: Value, mixed: Bool) -> [UInt8] {
        if mixed {
            var out: [UInt8] = []
            MixedCoding.encode(value, into: &out)
            return out
        }
        switch value {
        case .string(let bytes), .binary(let bytes): return Array(bytes)
        default: return []
        }
    }

    /// The canonical key of a mixed value without an owner: two mixed
    /// values are equal as Realm compares them (numbers by value across
    /// types) when their keys are.
    public static func mixedKey(_ value: Value) -> [UInt8] {
        var out: [UInt8] = []
        encode(value, owner: 0, mixed: true, into: &out)
        return out
    }

    /// The key file format 5 gave `value` in the set of `owner` of mixed
    /// values, when it differs from this format's: an integer decimal
    /// outside int64's range that is a double exactly (decimal 2^70), which
    /// format 5 keyed as a decimal, apart from the equal double (number
    /// class, the nearest double, kind 2, the decimal); nil for every other
    /// value (keyed alike by both formats).
    public static func format5MixedKey(_ value: Value, owner: Int64) -> [UInt8]? {
        guard case .decimal128(let d) = value, KeyEncoding.integralDouble(d) != nil, case .double = MixedNumber.canonical(value) else { return nil }
        var out: [UInt8] = []
        appendBigEndian(UInt64(bitPattern: owner), &out)
        out.append(Class.number.rawValue)
        appendBigEndian(orderedBits(DecimalArithmetic.toDouble(d)), &out)
        out.append(MixedNumber.Kind.decimal.rawValue)
        DecimalOrder.encode(d, into: &out)
        return out
    }

    /// Every entry of a database of sets of mixed values whose key is not
    /// the one this format gives its value (format 5's keys of integer
    /// decimals that are doubles exactly: `format5MixedKey`), with the key
    /// this format gives it.  Only entries keyed as decimals can be such
    /// (their values are decoded; every other entry is passed by its key).
    /// `sealed`: the values carry `EntrySeal`'s checksum (class, property),
    /// passed to `body` without it; nil: they carry none (format 9 or
    /// older).  `body` must not change the database.
    public static func forEachMisKeyedMixedEntry(_ txn: OpaquePointer, _ dbi: MDB_dbi, sealed: (table: UInt32, database: UInt32)?,
                                           _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ canonicalKey: [UInt8]) throws(FiefError) -> Void) throws(FiefError) {
        let kindAt = ownerBytes + 1 + 8
        var scratch: [UInt8] = []
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        while let (key, stored) = entry {
            if key.count > kindAt, key[ownerBytes] == Class.number.rawValue, key[kindAt] == MixedNumber.Kind.decimal.rawValue,
               let owner = owner(of: key),
               let value = sealed == nil ? stored : EntrySeal.open(stored, table: sealed!.table, database: sealed!.database, key: key),
               let decoded = MixedCoding.decode(value) {
                encode(decoded, owner: owner, mixed: true, into: &scratch)
                if !scratch.withUnsafeBytes({ sameBytes($0, key) }) { try body(key, value, scratch) }
            }
            entry = try cursor.next()
        }
    }

    /// The prefix of every key of `owner`'s set.
    public static func ownerKey(_ owner: Int64) -> UInt64 { UInt64(bitPattern: owner).bigEndian }

    private static func encodeElement(_ value: Value, into out: inout [UInt8]) -> Bool {
        switch value {
        case .null:
            out.append(Class.null.rawValue)
        case .bool(let b):
            out.append(Class.bool.rawValue)
            out.append(b ? 1 : 0)
        case .int(let i):
            out.append(Class.number.rawValue)
            appendBigEndian(UInt64(bitPattern: i) ^ (1 << 63), &out)
        case .float(let f):
            out.append(Class.number.rawValue)
            appendBigEndian32(orderedBits(f), &out)
        case .double(let d):
            out.append(Class.number.rawValue)
            appendBigEndian(orderedBits(d), &out)
        case .decimal128(let d):
            out.append(Class.number.rawValue)
            DecimalOrder.encode(d, into: &out)
        case .string(let bytes), .binary(let bytes):
            if case .string = value { out.append(Class.string.rawValue) } else { out.append(Class.binary.rawValue) }
            if bytes.count > cutBytes {
                out.append(contentsOf: bytes.prefix(cutBytes))
                appendBigEndian(hash(bytes), &out)
                return true
            }
            out.append(contentsOf: bytes)
        case .timestamp(let s, let ns):
            out.append(Class.timestamp.rawValue)
            appendBigEndian(UInt64(bitPattern: s) ^ (1 << 63), &out)
            appendBigEndian32(UInt32(bitPattern: ns) ^ (1 << 31), &out)
        case .objectId(let id):
            out.append(Class.objectId.rawValue)
            appendBigEndian(id.high, &out)
            appendBigEndian32(id.low, &out)
        case .uuid(let id):
            out.append(Class.uuid.rawValue)
            appendBigEndian(id.high, &out)
            appendBigEndian(id.low, &out)
        case .link(_, let objectKey):
            out.append(Class.link.rawValue)
            appendBigEndian(UInt64(bitPattern: objectKey) ^ (1 << 63), &out)
        case .nestedList(let id), .nestedDictionary(let id):
            // Never stored (sets refuse them); a key equal to no element's.
            out.append(0xFF)
            appendBigEndian(UInt64(bitPattern: id), &out)
        }
        return false
    }

    /// The element of a stored entry (`key` without its owner, `data` the
    /// entry's value), for a set of `type` (`linkTarget` for links); nil if
    /// the bytes are not a valid element.  Strings and binaries are views
    /// into `key` or `data`.
    public static func decode(_ key: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer, type: PropertyType, linkTarget: UInt32) -> Value? {
        guard let first = key.first, let kind = Class(rawValue: first) else { return nil }
        if type == .mixed {
            // The entry holds the value as it was added (its key is canonical).
            guard let value = MixedCoding.decode(data) else { return nil }
            if kind == .null { return value.isNull ? value : nil }
            return value
        }
        let body = UnsafeRawBufferPointer(rebasing: key[1...])
        func u64(_ at: Int) -> UInt64 { UInt64(bigEndian: body.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        func u32(_ at: Int) -> UInt32 { UInt32(bigEndian: body.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        switch (kind, type) {
        case (.null, _):
            return body.isEmpty ? .null : nil
        case (.bool, .bool):
            return body.count == 1 && body[0] <= 1 ? .bool(body[0] == 1) : nil
        case (.number, .int):
            return body.count == 8 ? .int(Int64(bitPattern: u64(0) ^ (1 << 63))) : nil
        case (.number, .float):
            guard body.count == 4 else { return nil }
            return .float(fromOrderedBits(u32(0)))
        case (.number, .double):
            return body.count == 8 ? .double(fromOrderedBits(u64(0))) : nil
        case (.number, .decimal128):
            return DecimalOrder.decode(body).map { .decimal128($0) }
        case (.string, .string), (.binary, .binary):
            let whole: UnsafeRawBufferPointer
            if data.isEmpty {
                guard body.count <= cutBytes else { return nil }
                whole = body
            } else {
                guard body.count == cutBytes + hashBytes, data.count > cutBytes,
                      memcmp(data.baseAddress!, body.baseAddress!, cutBytes) == 0, hash(data) == u64(cutBytes) else { return nil }
                whole = data
            }
            if type == .string { return UTF8Check.isValid(whole) ? .string(whole) : nil }
            return .binary(whole)
        case (.timestamp, .timestamp):
            guard body.count == 12 else { return nil }
            let s = Int64(bitPattern: u64(0) ^ (1 << 63)), ns = Int32(bitPattern: u32(8) ^ (1 << 31))
            return Value.isValidTimestamp(seconds: s, nanoseconds: ns) ? .timestamp(seconds: s, nanoseconds: ns) : nil
        case (.objectId, .objectId):
            return body.count == 12 ? .objectId(ObjectIdBytes(high: u64(0), low: u32(8))) : nil
        case (.uuid, .uuid):
            return body.count == 16 ? .uuid(UUIDBytes(high: u64(0), low: u64(8))) : nil
        case (.link, .link):
            return body.count == 8 ? .link(classKey: linkTarget, objectKey: Int64(bitPattern: u64(0) ^ (1 << 63))) : nil
        default:
            return nil
        }
    }

    /// The element of a stored entry, as `decode` gives it, when the entry
    /// is stored under that element's one key (its canonical key, for a
    /// set of mixed values, whose entry also holds the value); nil
    /// otherwise.  A key changed in place (a flipped bit) or an entry under
    /// another element's key is damage, never another element: the reads
    /// of sets check it (`fief verify` and `fief copy` do the same).
    @inlinable
    public static func storedElement(_ key: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer, type: PropertyType, linkTarget: UInt32) -> Value? {
        guard let value = decode(key, data, type: type, linkTarget: linkTarget) else { return nil }
        var own: [UInt8] = []
        encode(value, owner: 0, mixed: type == .mixed, into: &own)
        return own.withUnsafeBytes { sameBytes(UnsafeRawBufferPointer(rebasing: $0[ownerBytes...]), key) } ? value : nil
    }

    /// A double's bits made to sort as numbers (0 is NaN, which sorts first).
    public static func orderedBits(_ d: Double) -> UInt64 {
        if d.isNaN { return 0 }
        let bits = (d == 0 ? 0.0 : d).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    public static func orderedBits(_ f: Float) -> UInt32 {
        if f.isNaN { return 0 }
        let bits = (f == 0 ? 0 : f).bitPattern
        return bits & (1 << 31) != 0 ? ~bits : bits | (1 << 31)
    }

    public static func fromOrderedBits(_ ordered: UInt32) -> Float {
        if ordered == 0 { return .nan }
        return Float(bitPattern: ordered & (1 << 31) != 0 ? ordered & ~(1 << 31) : ~ordered)
    }

    public static func fromOrderedBits(_ ordered: UInt64) -> Double {
        if ordered == 0 { return .nan }
        return Double(bitPattern: ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered)
    }

    /// FNV-1a, 64 bits: the tail of a cut key.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    @inlinable @inline(__always)
    public static func appendBigEndian(_ v: UInt64, _ out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    @inlinable @inline(__always)
    public static func appendBigEndian32(_ v: UInt32, _ out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    /// Run `body` with a cursor placed on the first element of `owner` (nil
    /// when the set is empty); `body` walks on with `next(owner:)`.
    public static func withFirst<T>(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64,
                             _ body: (LMDBCursor, (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?) throws(FiefError) -> T) throws(FiefError) -> T {
        var prefix = ownerKey(owner)
        return try withUnsafeBytes(of: &prefix) { (raw) throws(FiefError) -> T in
            let cursor = try LMDBCursor(txn, dbi)
            let found = try cursor.seek(raw)
            return try body(cursor, found.flatMap { belongs($0.key, to: owner) ? $0 : nil })
        }
    }

    /// Whether a stored key is one of `owner`'s (prefix) and has an element.
    @inlinable @inline(__always)
    public static func belongs(_ key: UnsafeRawBufferPointer, to owner: Int64) -> Bool {
        key.count >= ownerBytes && key.loadUnaligned(as: UInt64.self) == ownerKey(owner)
    }

    /// The owner of a stored key.
    @inlinable @inline(__always)
    public static func owner(of key: UnsafeRawBufferPointer) -> Int64? {
        key.count >= ownerBytes ? Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))) : nil
    }

    /// Every entry of `owner` (key without the owner, and value), in order.
    public static func entries(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64) throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        var entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
        try withFirst(txn, dbi, owner: owner) { (cursor, first) throws(FiefError) in
            var entry = first
            while let (k, v) = entry, belongs(k, to: owner) {
                entries.append((UnsafeRawBufferPointer(rebasing: k[ownerBytes...]), v))
                entry = try cursor.next()
            }
        }
        return entries
    }

    /// Delete every entry of `owner`.
    public static func deleteAll(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64) throws(FiefError) {
        var prefix = ownerKey(owner)
        try withUnsafeBytes(of: &prefix) { (raw) throws(FiefError) in
            let cursor = try LMDBCursor(txn, dbi)
            // Sought again after each delete (see `Backlinks.removeAll`).
            while let (k, _) = try cursor.seek(raw), belongs(k, to: owner) { try cursor.deleteCurrent() }
        }
    }
}

/// Decimal128 values as order-preserving bytes (see `SetStore`).
public enum DecimalOrder {
    public static let digits = 34
    public static let bias = 6176

    private static let powers: [UInt128] = {
        var p: [UInt128] = [1]
        for _ in 0..<38 { p.append(p.last! * 10) }
        return p
    }()

    /// Sign, exponent and coefficient of a BID128 value (nil coefficient:
    /// NaN or infinity), as `DecimalArithmetic.kind` decodes it.
    @inlinable @inline(__always)
    public static func parts(_ d: Decimal128Bits) -> (negative: Bool, exponent: Int, coefficient: UInt128?, isNaN: Bool) {
        switch DecimalArithmetic.kind(d) {
        case .nan: return (DecimalArithmetic.isSignMinus(d), 0, nil, true)
        case .infinity(let negative): return (negative, 0, nil, false)
        case let .finite(negative, coefficient, exponent): return (negative, exponent, coefficient, false)
        }
    }

    public static func encode(_ d: Decimal128Bits, into out: inout [UInt8]) {
        let (negative, exponent, coefficient, isNaN) = parts(d)
        guard let coefficient else {
            out.append(isNaN ? 0 : negative ? 1 : 5)
            return
        }
        if coefficient == 0 { out.append(3); return }
        var c = coefficient
        var n = 1
        while n < digits && c >= powers[n] { n += 1 }
        let adjusted = exponent + n - 1
        c *= powers[digits - n]
        let flip: UInt8 = negative ? 0xFF : 0
        out.append(negative ? 2 : 4)
        let e = UInt16(truncatingIfNeeded: adjusted + 0x8000)
        out.append(UInt8(e >> 8) ^ flip)
        out.append(UInt8(truncatingIfNeeded: e) ^ flip)
        for shift in stride(from: 120, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: c >> UInt128(shift)) ^ flip) }
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Decimal128Bits? {
        guard let kind = bytes.first else { return nil }
        switch kind {
        case 0: return bytes.count == 1 ? Decimal128Bits(low: 0, high: 0x7C00_0000_0000_0000) : nil
        case 1: return bytes.count == 1 ? Decimal128Bits(low: 0, high: 0xF800_0000_0000_0000) : nil
        case 5: return bytes.count == 1 ? Decimal128Bits(low: 0, high: 0x7800_0000_0000_0000) : nil
        case 3: return bytes.count == 1 ? DecimalArithmetic.zero : nil
        case 2, 4:
            guard bytes.count == 19 else { return nil }
            let flip: UInt8 = kind == 2 ? 0xFF : 0
            let e = Int(UInt16(bytes[1] ^ flip) << 8 | UInt16(bytes[2] ^ flip)) - 0x8000
            var c: UInt128 = 0
            for i in 3..<19 { c = c << 8 | UInt128(bytes[i] ^ flip) }
            guard c > 0, c < powers[digits] else { return nil }
            var exponent = e - (digits - 1)
            while c % 10 == 0 { c /= 10; exponent += 1 }
            let biased = exponent + bias
            guard biased >= 0, biased < 0x3000 else { return nil }
            let high = (kind == 2 ? UInt64(1) << 63 : 0) | UInt64(biased) << 49 | UInt64(truncatingIfNeeded: c >> 64)
            return Decimal128Bits(low: UInt64(truncatingIfNeeded: c), high: high)
        default:
            return nil
        }
    }
}

/// Numbers of every type in a set of mixed values: one canonical form per
/// value, so `1`, `1.0` and decimal `1` are one element (and, from file
/// format 6, decimal 2^70 and the double 2^70), ordered by value.
///
///     [8] the double nearest the value, as ordered bits
///     [1] kind: 0 an integer (int64's range), 1 another binary float, 2 another decimal
///     then the exact value: the int (8, sign flipped), nothing, or the decimal (as `DecimalOrder`)
public enum MixedNumber {
    /// The kind byte after the nearest double.
    public enum Kind: UInt8 { case int = 0, double = 1, decimal = 2 }

    public static func encode(_ value: Value, into out: inout [UInt8]) {
        switch canonical(value) {
        case .int(let i):
            SetStore.appendBigEndian(SetStore.orderedBits(Double(i)), &out)
            out.append(Kind.int.rawValue)
            SetStore.appendBigEndian(UInt64(bitPattern: i) ^ (1 << 63), &out)
        case .double(let d):
            SetStore.appendBigEndian(SetStore.orderedBits(d), &out)
            out.append(Kind.double.rawValue)
        case .decimal128(let d):
            SetStore.appendBigEndian(SetStore.orderedBits(DecimalArithmetic.toDouble(d)), &out)
            out.append(Kind.decimal.rawValue)
            DecimalOrder.encode(d, into: &out)
        default:
            break
        }
    }

    /// The value as an int when it is an integer in int64's range, else as
    /// a double when it is one exactly, else as itself (a decimal).  (File
    /// format 6; format 5 kept an integer decimal outside int64's range a
    /// decimal even when it is a double exactly: `SetStore.format5MixedKey`.)
    public static func canonical(_ value: Value) -> Value {
        switch value {
        case .int: return value
        case .float(let f): return canonical(.double(Double(f)))
        case .double(let d):
            if d.isNaN { return .double(.nan) }
            if d == d.rounded(), d >= -9.223372036854775808e18, d < 9.223372036854775808e18 { return .int(Int64(d)) }
            return .double(d)
        case .decimal128(let d):
            let (negative, exponent, coefficient, _) = DecimalOrder.parts(d)
            guard let coefficient else {
                // Infinities are doubles too; a NaN is one NaN.
                return .double(DecimalArithmetic.toDouble(d))
            }
            if coefficient == 0 { return .int(0) }
            var c = coefficient, e = exponent
            while c % 10 == 0 { c /= 10; e += 1 }
            if e >= 0 {
                // An integer: an int when it fits; else the double it is
                // exactly, if it is one (decimal 2^70 and double 2^70 are
                // one value; format 5 kept such decimals as decimals).
                var v = c
                for _ in 0..<e {
                    let (m, overflow) = v.multipliedReportingOverflow(by: 10)
                    if overflow || m > UInt128(UInt64.max) { return KeyEncoding.integralDouble(d).map { .double($0) } ?? value }
                    v = m
                }
                if negative, v <= UInt128(1) << 63 { return .int(v == UInt128(1) << 63 ? .min : -Int64(v)) }
                if !negative, v < UInt128(1) << 63 { return .int(Int64(v)) }
                return KeyEncoding.integralDouble(d).map { .double($0) } ?? value
            }
            // c / 10^k is a double exactly when c / 5^k is an integer m and
            // m / 2^k fits a double's 53-bit significand.
            let k = -e
            guard k <= 48 else { return value }
            var five: UInt128 = 1
            for _ in 0..<k { five *= 5 }
            guard c % five == 0 else { return value }
            let m = c / five
            guard m < UInt128(1) << 53 else { return value }
            let d = Double(UInt64(m)) / pow(2.0, Double(k))
            return .double(negative ? -d : d)
        default:
            return value
        }
    }
}
