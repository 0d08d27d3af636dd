import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Thin, allocation-free helpers over LMDB's C API.  Everything above this
/// file speaks in terms of these; nothing here knows about Fief's layout.
public enum LMDB {
    /// Turn an LMDB return code into a `FiefError`, or nothing for success.
    public static func check(_ rc: Int32, _ what: @autoclosure () -> String, path: String? = nil) throws(FiefError) {
        if rc == 0 { return }
        throw error(rc, what(), path: path)
    }

    public static func error(_ rc: Int32, _ what: String, path: String? = nil) -> FiefError {
        let text = String(cString: mdb_strerror(rc))
        let code: FiefError.Code
        switch rc {
        case MDB_INVALID: code = .fileNotFief
        // A page LMDB found broken, or a page number past the file's end:
        // a damaged file, not a foreign one.
        case MDB_CORRUPTED, MDB_PAGE_NOTFOUND: code = .fileCorrupt
        case MDB_VERSION_MISMATCH: code = .fileFormat
        case MDB_MAP_FULL: code = .fileFull
        case MDB_READERS_FULL, MDB_TXN_FULL, MDB_CURSOR_FULL, MDB_DBS_FULL: code = .internal
        case ENOENT: code = .fileNotFound
        case EACCES, EPERM, EROFS: code = .filePermission
        case EAGAIN, EBUSY: code = .fileLocked
        case ENOSPC: code = .fileFull
        case ENOMEM: code = .outOfMemory
        case EIO: code = .fileIO
        case ENOTDIR, EISDIR: code = .filePermission
        default: code = rc > 0 ? .fileIO : .internal
        }
        return FiefError(code, "\(what): \(text)", path: path)
    }

    @inlinable @inline(__always)
    public static func val(_ buffer: UnsafeRawBufferPointer) -> MDB_val {
        MDB_val(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
    }

    @inlinable @inline(__always)
    public static func bytes(_ v: MDB_val) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Look a key up; the value is a view into the map, valid for the transaction.
    @inlinable @inline(__always)
    public static func get(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws(FiefError) -> UnsafeRawBufferPointer? {
        try DamagedTrees.check(txn, dbi)
        var k = val(key)
        var v = MDB_val()
        let rc = mdb_get(txn, dbi, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "reading the database")
        return bytes(v)
    }

    /// Look an 8-byte integer key up (for MDB_INTEGERKEY databases).
    @inlinable @inline(__always)
    public static func get(_ txn: OpaquePointer, _ dbi: MDB_dbi, integerKey: UInt64) throws(FiefError) -> UnsafeRawBufferPointer? {
        var key = integerKey
        return try withUnsafeBytes(of: &key) { (raw) throws(FiefError) -> UnsafeRawBufferPointer? in
            try get(txn, dbi, raw)
        }
    }

    public static func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, flags: UInt32 = 0) throws(FiefError) -> Bool {
        var k = val(key)
        var v = val(value)
        let rc = mdb_put(txn, dbi, &k, &v, flags)
        if rc == MDB_KEYEXIST { return false }
        try check(rc, "writing the database")
        return true
    }

    /// Reserve `size` bytes for `key` and let `fill` write them in place.
    /// `append`: the key is past the database's last key (MDB_APPEND).
    public static func putReserved(_ txn: OpaquePointer, _ dbi: MDB_dbi, integerKey: UInt64, size: Int, append: Bool = false, fill: (UnsafeMutableRawBufferPointer) -> Void) throws(FiefError) {
        var key = integerKey
        var k = MDB_val(mv_size: 8, mv_data: nil)
        var v = MDB_val(mv_size: size, mv_data: nil)
        let flags = UInt32(MDB_RESERVE) | (append ? UInt32(MDB_APPEND) : 0)
        let rc: Int32 = withUnsafeMutableBytes(of: &key) { raw in
            k.mv_data = raw.baseAddress
            return mdb_put(txn, dbi, &k, &v, flags)
        }
        try check(rc, "writing the database")
        fill(UnsafeMutableRawBufferPointer(start: v.mv_data, count: size))
    }

    public static func delete(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer? = nil) throws(FiefError) {
        var k = val(key)
        var rc: Int32
        if let value {
            var v = val(value)
            rc = mdb_del(txn, dbi, &k, &v)
        } else {
            rc = mdb_del(txn, dbi, &k, nil)
        }
        if rc == MDB_NOTFOUND { return }
        try check(rc, "deleting from the database")
    }

    public static func delete(_ txn: OpaquePointer, _ dbi: MDB_dbi, integerKey: UInt64) throws(FiefError) {
        var key = integerKey
        try withUnsafeBytes(of: &key) { (raw) throws(FiefError) in try delete(txn, dbi, raw) }
    }
}

/// A cursor over one database in one transaction, closed on deinit.
public final class LMDBCursor {
    public let pointer: OpaquePointer

    public init(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        try DamagedTrees.check(txn, dbi)
        var cursor: OpaquePointer?
        try LMDB.check(mdb_cursor_open(txn, dbi, &cursor), "opening a cursor")
        pointer = cursor!
    }

    deinit { mdb_cursor_close(pointer) }

    /// Position at the first key >= `key` (or move by `op`); nil at the end.
    public func seek(_ key: UnsafeRawBufferPointer) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var k = LMDB.val(key)
        var v = MDB_val()
        let rc = mdb_cursor_get(pointer, &k, &v, MDB_SET_RANGE)
        if rc == MDB_NOTFOUND { return nil }
        try LMDB.check(rc, "reading the database")
        return (LMDB.bytes(k), LMDB.bytes(v))
    }

    public func seek(integerKey: UInt64) throws(FiefError) -> (key: UInt64, value: UnsafeRawBufferPointer)? {
        var key = integerKey
        let found = try withUnsafeBytes(of: &key) { (raw) throws(FiefError) in try seek(raw) }
        guard let found else { return nil }
        return (found.key.loadUnaligned(as: UInt64.self), found.value)
    }

    public func move(_ op: MDB_cursor_op) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var k = MDB_val()
        var v = MDB_val()
        let rc = mdb_cursor_get(pointer, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try LMDB.check(rc, "reading the database")
        return (LMDB.bytes(k), LMDB.bytes(v))
    }

    public func next() throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        try move(MDB_NEXT)
    }

    /// Append `key` after the last key (MDB_APPEND); false when the key is
    /// not greater than the last one (nothing is written then).
    public func append(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FiefError) -> Bool {
        var k = LMDB.val(key)
        var v = LMDB.val(value)
        let rc = mdb_cursor_put(pointer, &k, &v, UInt32(MDB_APPEND))
        if rc == MDB_KEYEXIST { return false }
        try LMDB.check(rc, "writing the database")
        return true
    }

    /// Write `key` = `value` (`current`: replace the entry the cursor is on,
    /// whose key must be `key`; its size may change).
    public func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, current: Bool) throws(FiefError) {
        var k = LMDB.val(key)
        var v = LMDB.val(value)
        try LMDB.check(mdb_cursor_put(pointer, &k, &v, current ? UInt32(MDB_CURRENT) : 0), "writing the database")
    }

    public func deleteCurrent() throws(FiefError) {
        try LMDB.check(mdb_cursor_del(pointer, 0), "deleting from the database")
    }
}

/// The handles of trees whose pages `PageCheck` found damaged, by
/// environment: LMDB must never walk one (it trusts its pages, and its
/// assertions stop the process), so a cursor on one, or a lookup in one,
/// fails with `fileCorrupt` instead.  Callers skip damaged trees (or read
/// them from the map, `PageCheck.salvageEntries`); this is the backstop
/// for one they do not.  Costs one atomic load while no file with damaged
/// trees is open in the process.
public enum DamagedTrees {
    @usableFromInline static let any = Atomic<Bool>(false)
    private static let handles = Mutex<[Int: Set<MDB_dbi>]>([:])

    private static func id(_ env: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(env)) }

    /// Handle `dbi` of `env` names a damaged tree.
    public static func mark(_ env: OpaquePointer, _ dbi: MDB_dbi) {
        handles.withLock { $0[id(env), default: []].insert(dbi) }
        any.store(true, ordering: .releasing)
    }

    /// Handle `dbi` of `env` was closed (it may be reused for another tree).
    public static func forget(_ env: OpaquePointer, _ dbi: MDB_dbi) {
        guard any.load(ordering: .acquiring) else { return }
        handles.withLock { _ = $0[id(env)]?.remove(dbi) }
    }

    /// `env` is closed.
    public static func forget(_ env: OpaquePointer) {
        guard any.load(ordering: .acquiring) else { return }
        handles.withLock { $0[id(env)] = nil }
    }

    @inlinable @inline(__always)
    public static func check(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        guard any.load(ordering: .acquiring) else { return }
        try checkSlow(txn, dbi)
    }

    @usableFromInline static func checkSlow(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        guard let env = mdb_txn_env(txn) else { return }
        if handles.withLock({ $0[id(env)]?.contains(dbi) ?? false }) {
            throw FiefError(.fileCorrupt, "the pages of this database are damaged; `fief copy` writes a sound copy of the rest")
        }
    }
}
