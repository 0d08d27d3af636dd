import CFiefSupport
import CLMDB

/// Entry checksums (file format 7; design.md, "Damaged files", item 4).
///
/// Every value stored in a map database (`c<class>.m<prop>`) and in a
/// nested-collection database (`c<class>.n`: elements, dictionary values,
/// headers, the id counter) ends with 4 bytes: CRC-32C seeded with a tag,
/// the class key, the database's property key (`nested` for `.n`) and the
/// entry's whole LMDB key, continued over the value.  A flipped byte in the
/// value, or a value found under another key, fails the check.
public enum EntrySeal {
    public static let bytes = 4
    /// The database key of a class's nested-collection database.
    public static let nested: UInt32 = NestedStore.entriesColumn

    /// The checksum of `body` stored under `key`: one C call
    /// (`fief_entry_seal`, CFiefSupport/checksum.h), straight over the bytes
    /// given (LMDB's own memory when reading), nothing copied.
    /// (`hardware`: use SSE4.2 where the machine has it; tests compare both ways.)
    @inlinable @inline(__always)
    public static func checksum(table: UInt32, database: UInt32, key: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer,
                         hardware: Int32 = ChunkCheck.hardware) -> UInt32 {
        fief_entry_seal(table, database, key.baseAddress, key.count, body.baseAddress, body.count, hardware)
    }

    /// Append the checksum of `value` (stored under `key`) to it.
    @inlinable @inline(__always)
    public static func seal(_ value: inout [UInt8], table: UInt32, database: UInt32, key: UnsafeRawBufferPointer) {
        let sum = value.withUnsafeBytes { checksum(table: table, database: database, key: key, $0) }
        withUnsafeBytes(of: sum.littleEndian) { value.append(contentsOf: $0) }
    }

    /// `value` sealed under `key`, as a new array.
    public static func sealed(_ value: UnsafeRawBufferPointer, table: UInt32, database: UInt32, key: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](value)
        seal(&out, table: table, database: database, key: key)
        return out
    }

    /// The value without its checksum, or nil when the checksum fails.
    @inlinable @inline(__always)
    public static func open(_ raw: UnsafeRawBufferPointer, table: UInt32, database: UInt32, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard raw.count >= bytes else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - bytes)])
        let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: body.count, as: UInt32.self))
        return stored == checksum(table: table, database: database, key: key, body) ? body : nil
    }

    /// Every entry of `owner` (key without the owner, value without its
    /// checksum), in order; nil when one fails its checksum.
    public static func entries(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64, table: UInt32, database: UInt32) throws(FiefError)
        -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]? {
        var entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
        var damaged = false
        try SetStore.withFirst(txn, dbi, owner: owner) { (cursor, first) throws(FiefError) in
            var entry = first
            while let (k, v) = entry, SetStore.belongs(k, to: owner) {
                guard let body = open(v, table: table, database: database, key: k) else { damaged = true; return }
                entries.append((UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...]), body))
                entry = try cursor.next()
            }
        }
        return damaged ? nil : entries
    }

    /// Store `value` (unsealed) under `key`, sealed.
    public static func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, database: UInt32, key: UnsafeRawBufferPointer,
                    _ value: UnsafeRawBufferPointer, scratch: inout [UInt8]) throws(FiefError) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: value)
        seal(&scratch, table: table, database: database, key: key)
        try scratch.withBytes { (v) throws(FiefError) in _ = try LMDB.put(txn, dbi, key, v) }
    }

    /// Seal every entry of a database written before format 7 (the
    /// upgrade, `FormatUpgrade.sealEntries`).
    public static func sealAll(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, database: UInt32) throws(FiefError) {
        var entries: [([UInt8], [UInt8])] = []
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        while let (k, v) = entry {
            entries.append((Array(k), sealed(v, table: table, database: database, key: k)))
            entry = try cursor.next()
        }
        for (k, v) in entries {
            try k.withBytes { (kb) throws(FiefError) in
                try v.withBytes { (vb) throws(FiefError) in _ = try LMDB.put(txn, dbi, kb, vb) }
            }
        }
    }
}
