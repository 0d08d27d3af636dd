import CLMDB

/// The stored schema (`meta/schema`, `SchemaCoding`'s bytes).  From file
/// format 8 the record ends with a 4-byte seal (`EntrySeal`, seeded with
/// `database` and the key `schema`), so a flipped bit in it (a property key
/// read as another, a type as another) fails the open with
/// `FIEF_ERR_FILE_CORRUPT` instead of reading every value of the changed
/// property as its default.  Files of format 7 and older store the bytes
/// alone.  Every writer writes the current format, so every write seals.
public enum SchemaRecord {
    /// The seal's database key ("schm"; the table key is 0, which no class has).
    public static let database: UInt32 = 0x7363_686d
    public static let key: [UInt8] = Array(MetaKeys.schema.utf8)

    /// Whether files of `format` seal their schema record.
    public static func isSealed(_ format: UInt64) -> Bool { format >= 8 }

    /// The schema's bytes (without the seal) as stored in a file of
    /// `format`; nil when there is none.  A seal that fails is damage.
    public static func read(_ txn: OpaquePointer, _ meta: MDB_dbi, format: UInt64, path: String) throws(FiefError) -> UnsafeRawBufferPointer? {
        guard let raw = try MetaKeys.readBytes(txn, meta, MetaKeys.schema) else { return nil }
        guard isSealed(format) else { return raw }
        let body = key.withUnsafeBytes { EntrySeal.open(raw, table: 0, database: database, key: $0) }
        guard let body else {
            throw FiefError(.fileCorrupt, "the stored schema of '\(path)' is damaged (it fails its checksum)", path: path)
        }
        return body
    }

    /// The format of the file `meta` belongs to (0 when it has none).
    public static func format(_ txn: OpaquePointer, _ meta: MDB_dbi) throws(FiefError) -> UInt64 {
        try MetaKeys.readUInt64(txn, meta, MetaKeys.format) ?? 0
    }

    /// Store `bytes` (`SchemaCoding.encode`) sealed, in the current format.
    public static func write(_ txn: OpaquePointer, _ meta: MDB_dbi, _ bytes: [UInt8]) throws(FiefError) {
        var sealed = bytes
        key.withUnsafeBytes { EntrySeal.seal(&sealed, table: 0, database: database, key: $0) }
        try typed { try sealed.withUnsafeBytes { (raw) in try MetaKeys.write(txn, meta, MetaKeys.schema, raw) } }
    }
}
