import CLMDB

/// Names in the `meta` database.
package enum MetaKeys {
    package static let database = "meta"
    package static let magic = "magic"
    package static let magicValue: [UInt8] = Array("FIEF".utf8)
    package static let format = "format"
    package static let formatValue: UInt64 = 8
    package static let version = "version"
    package static let schema = "schema"
    package static let schemaVersion = "schemaVersion"
    package static let schemaGeneration = "schemaGeneration"
    package static let nextClassKey = "nextClassKey"
    /// The LMDB transaction id of the last commit (see `Snapshot.init`).
    package static let committedTransaction = "committedTransaction"
    package static func nextObjectKey(_ table: UInt32) -> String { "nextObjectKey.\(table)" }
    /// The number of objects of a class (format 2), checked by full scans.
    package static func objectCount(_ table: UInt32) -> String { "objectCount.\(table)" }

    package static func readUInt64(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String) throws(FiefError) -> UInt64? {
        let bytes = try readBytes(txn, dbi, name)
        guard let bytes else { return nil }
        guard bytes.count == 8 else { throw FiefError(.fileNotFief, "meta value '\(name)' is damaged") }
        return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
    }

    package static func readBytes(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String) throws(FiefError) -> UnsafeRawBufferPointer? {
        var name = name
        return try typed { try name.withUTF8 { (key) in try LMDB.get(txn, dbi, UnsafeRawBufferPointer(key)) } }
    }

    package static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String, _ value: UInt64) throws(FiefError) {
        var v = value.littleEndian
        try withUnsafeBytes(of: &v) { (raw) throws(FiefError) in try write(txn, dbi, name, raw) }
    }

    package static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String, _ value: UnsafeRawBufferPointer) throws(FiefError) {
        var name = name
        try typed { try name.withUTF8 { (key) in
            _ = try LMDB.put(txn, dbi, UnsafeRawBufferPointer(key), value)
        } }
    }
}
