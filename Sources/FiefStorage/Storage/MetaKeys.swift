import CLMDB

/// Names in the `meta` database.
public enum MetaKeys {
    public static let database = "meta"
    public static let magic = "magic"
    public static let magicValue: [UInt8] = Array("FIEF".utf8)
    public static let format = "format"
    public static let formatValue: UInt64 = 10
    public static let version = "version"
    public static let schema = "schema"
    public static let schemaVersion = "schemaVersion"
    public static let schemaGeneration = "schemaGeneration"
    public static let nextClassKey = "nextClassKey"
    /// The LMDB transaction id of the last commit (see `Snapshot.init`).
    public static let committedTransaction = "committedTransaction"
    public static func nextObjectKey(_ table: UInt32) -> String { "nextObjectKey.\(table)" }
    /// The number of objects of a class (format 2), checked by full scans.
    public static func objectCount(_ table: UInt32) -> String { "objectCount.\(table)" }

    public static func readUInt64(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String) throws(FiefError) -> UInt64? {
        let bytes = try readBytes(txn, dbi, name)
        guard let bytes else { return nil }
        guard bytes.count == 8 else { throw FiefError(.fileNotFief, "meta value '\(name)' is damaged") }
        return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
    }

    public static func readBytes(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String) throws(FiefError) -> UnsafeRawBufferPointer? {
        var name = name
        return try typed { try name.withUTF8 { (key) in try LMDB.get(txn, dbi, UnsafeRawBufferPointer(key)) } }
    }

    public static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String, _ value: UInt64) throws(FiefError) {
        var v = value.littleEndian
        try withUnsafeBytes(of: &v) { (raw) throws(FiefError) in try write(txn, dbi, name, raw) }
    }

    public static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String, _ value: UnsafeRawBufferPointer) throws(FiefError) {
        var name = name
        try typed { try name.withUTF8 { (key) in
            _ = try LMDB.put(txn, dbi, UnsafeRawBufferPointer(key), value)
        } }
    }
}
