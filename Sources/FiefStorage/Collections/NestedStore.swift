import CLMDB

/// What a nested collection is: a list or a dictionary of mixed values.
public enum NestedKind: UInt8, Sendable {
    case list = 1
    case dictionary = 2

    public var name: String { self == .list ? "list" : "dictionary" }
}

/// Nested collections: each class holding mixed values that may nest (a
/// mixed property, a list or a map of mixed values) has one database
/// `c<class>.n` with three kinds of entries:
///
///     id (8, big-endian, below 2^63) + position (8)   a nested list's element
///     id (8) + key (UTF-8, map key rules)             a nested dictionary's value
///         value: the element or value, coded (`MixedCoding`)
///     (every value ends with its entry checksum, `EntrySeal`: format 7)
///     id | 2^63 (8)                                    the collection's header
///         value: kind (1) + owner object (8) + mixed property (4), little-endian
///     2^64 - 1 (8)                                     the next id (8, little-endian)
///
/// LMDB keeps a collection's entries together, in list order (positions
/// have gaps as list segments do: the first is 2^63, appends add 2^32, an
/// insert takes the midpoint, a list whose gap ran out is renumbered) or in
/// key order (bytewise UTF-8, as maps).  The header says the collection
/// exists (a handle to a deleted one fails) and whose it is (`fief verify`
/// finds strays); ids are never reused, so a stale handle never reaches a
/// newer collection.
public enum NestedStore {
    public static let headerBit: UInt64 = 1 << 63
    public static let counterKey: UInt64 = .max
    /// Ids lie in 1 ..< maxID.
    public static let maxID: Int64 = Int64.max
    public static let entriesColumn: UInt32 = .max
    public static let headerBytes = 13
    public static let firstPosition: UInt64 = 1 << 63
    public static let positionStep: UInt64 = 1 << 32

    public struct Header {
        public var kind: NestedKind
        public var owner: Int64
        public var property: UInt32
        public init(kind: NestedKind, owner: Int64, property: UInt32) { self.kind = kind; self.owner = owner; self.property = property }
    }

    /// The header of collection `id` of class `table`, if it exists; a
    /// damaged one (checksum or layout: `EntrySeal`) is `FIEF_ERR_FILE_CORRUPT`.
    public static func header(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, id: Int64, path: String) throws(FiefError) -> Header? {
        var key = (UInt64(bitPattern: id) | headerBit).bigEndian
        return try withUnsafeBytes(of: &key) { (k) throws(FiefError) -> Header? in
            guard let raw = try LMDB.get(txn, dbi, k) else { return nil }
            guard let body = EntrySeal.open(raw, table: table, database: EntrySeal.nested, key: k), let header = decodeHeader(body) else {
                throw FiefError(.fileCorrupt, "'\(path)' is damaged: the header of nested collection \(id) of class \(table) fails its checksum", path: path)
            }
            return header
        }
    }

    /// A stored header's value (sealed) under its key `k`, decoded; nil when damaged.
    public static func openHeader(_ raw: UnsafeRawBufferPointer, table: UInt32, key k: UnsafeRawBufferPointer) -> Header? {
        EntrySeal.open(raw, table: table, database: EntrySeal.nested, key: k).flatMap(decodeHeader)
    }

    public static func decodeHeader(_ raw: UnsafeRawBufferPointer) -> Header? {
        guard raw.count == headerBytes, let kind = NestedKind(rawValue: raw[0]) else { return nil }
        return Header(kind: kind,
                      owner: Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 1, as: UInt64.self))),
                      property: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 9, as: UInt32.self)))
    }

    /// Store the header of a new collection.
    public static func putHeader(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, id: Int64, _ header: Header) throws(FiefError) {
        var key = (UInt64(bitPattern: id) | headerBit).bigEndian
        var value = [UInt8](repeating: 0, count: headerBytes)
        value[0] = header.kind.rawValue
        value.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt64(bitPattern: header.owner).littleEndian, toByteOffset: 1, as: UInt64.self)
            $0.storeBytes(of: header.property.littleEndian, toByteOffset: 9, as: UInt32.self)
        }
        try withUnsafeBytes(of: &key) { (k) throws(FiefError) in
            EntrySeal.seal(&value, table: table, database: EntrySeal.nested, key: k)
            try value.withBytes { (v) throws(FiefError) in _ = try LMDB.put(txn, dbi, k, v) }
        }
    }

    public static func deleteHeader(_ txn: OpaquePointer, _ dbi: MDB_dbi, id: Int64) throws(FiefError) {
        var key = (UInt64(bitPattern: id) | headerBit).bigEndian
        try withUnsafeBytes(of: &key) { (k) throws(FiefError) in try LMDB.delete(txn, dbi, k) }
    }

    /// A new id (the counter moves on).
    public static func takeID(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32) throws(FiefError) -> Int64 {
        var key = counterKey.bigEndian
        return try withUnsafeBytes(of: &key) { (k) throws(FiefError) -> Int64 in
            var next: Int64 = 1
            if let raw = try LMDB.get(txn, dbi, k) {
                guard let body = EntrySeal.open(raw, table: table, database: EntrySeal.nested, key: k), body.count == 8 else {
                    throw FiefError(.fileCorrupt, "the nested-collection counter of class \(table) is damaged (it fails its checksum)")
                }
                next = Int64(bitPattern: UInt64(littleEndian: body.loadUnaligned(as: UInt64.self)))
            }
            guard next > 0 && next < maxID else { throw FiefError(.fileCorrupt, "the nested-collection counter is damaged (\(next))") }
            var stored: [UInt8] = []
            withUnsafeBytes(of: UInt64(bitPattern: next + 1).littleEndian) { stored.append(contentsOf: $0) }
            EntrySeal.seal(&stored, table: table, database: EntrySeal.nested, key: k)
            try stored.withBytes { (v) throws(FiefError) in _ = try LMDB.put(txn, dbi, k, v) }
            return next
        }
    }

    /// The key of a nested list's element at `position`, in `out`.
    public static func listKey(id: Int64, position: UInt64, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        SetStore.appendBigEndian(UInt64(bitPattern: id), &out)
        SetStore.appendBigEndian(position, &out)
    }

    /// The key of a nested dictionary's `key`, in `out`.
    public static func dictionaryKey(id: Int64, key: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        MapStore.encode(owner: id, key: key, into: &out)
    }

    /// The position stored in a list element's key (without its id).
    @inlinable @inline(__always)
    public static func position(_ suffix: UnsafeRawBufferPointer) -> UInt64? {
        suffix.count == 8 ? UInt64(bigEndian: suffix.loadUnaligned(as: UInt64.self)) : nil
    }
}
