import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// The key of one chunk: a class and the chunk's key in the class's data database.
public struct ChunkID: Hashable {
    public var table: UInt32
    public var key: UInt64
    public init(table: UInt32, key: UInt64) { self.table = table; self.key = key }
}

/// One read snapshot: an LMDB read transaction and the chunks already looked up in it.
public final class Snapshot: @unchecked Sendable {
    public let environment: Environment
    public let txn: OpaquePointer
    public let version: UInt64
    public let schemaGeneration: UInt64
    /// Set once, before a second realm (a frozen one) starts using this snapshot;
    /// from then on lookups take `lock`.
    public var isShared = false
    public let lock = Lock()
    @exclusivity(unchecked) @usableFromInline var cache = ChunkMap<ChunkReader>(capacity: 256)
    /// The part lists of chunks read in parts.
    public let partTables = ChunkPartTables()
    /// The lists read in this snapshot (used under `lock` when shared).
    @exclusivity(unchecked) public var lists: [ListID: ListState] = [:]
    /// The sets and maps read in this snapshot (used under `lock` when shared).
    @exclusivity(unchecked) public var collectionEntries: [ListID: CollectionEntries] = [:]
    /// Cursors kept for lookups (primary keys, indexes, backlinks), by
    /// database handle (LMDB's handles are small indexes).
    @exclusivity(unchecked) @usableFromInline var cursors: [LMDBCursor?] = []
    /// Cursors over columns' chunks, by database << 32 | column.
    @exclusivity(unchecked) @usableFromInline var columnCursors: [UInt64: ColumnCursor] = [:]
    @exclusivity(unchecked) @usableFromInline var lastColumnCursorKey: UInt64 = .max
    @exclusivity(unchecked) @usableFromInline var lastColumnCursor: ColumnCursor?
    /// Where the runs of backlinks database `dbi` lie in this snapshot
    /// (the caller holds `lock` if the snapshot is shared).
    public func runDirectory(_ dbi: MDB_dbi) -> Backlinks.RunDirectory {
        let i = Int(dbi)
        if i < runDirectories.count, let known = runDirectories[i] { return known }
        let made = Backlinks.RunDirectory()
        if i >= runDirectories.count { runDirectories.append(contentsOf: repeatElement(nil, count: i + 1 - runDirectories.count)) }
        runDirectories[i] = made
        return made
    }

    /// The backlink runs whose checksum was checked in this snapshot (the
    /// caller holds `lock` if the snapshot is shared).
    public var checkedRuns: Backlinks.CheckedRuns {
        if let checked = checkedRunsIfAny { return checked }
        let made = Backlinks.CheckedRuns()
        checkedRunsIfAny = made
        return made
    }

    /// The handle generation of the environment when the transaction began.
    public let handleGeneration: UInt64
    /// Where the file's pages are mapped as of this snapshot.
    public private(set) var bounds: MapBounds
    /// The backlink runs checked in this snapshot, and per backlinks
    /// database (by handle) where its runs lie, once made.
    @exclusivity(unchecked) private var checkedRunsIfAny: Backlinks.CheckedRuns?
    @exclusivity(unchecked) private var runDirectories: [Backlinks.RunDirectory?] = []

    /// Begin a read transaction at the newest commit.  The meta database's
    /// handle is opened first if needed, so the transaction can use it.
    public init(environment: Environment) throws(FiefError) {
        self.environment = environment
        if environment.openedDatabase(MetaKeys.database) == nil {
            // Opens it if it exists (a new file has none until its first commit).
            let probe = try environment.beginTransaction(write: false)
            defer { mdb_txn_abort(probe) }
            _ = try environment.database(MetaKeys.database, txn: probe, create: false)
            // And the change records' (format 9), for `changes(since:)`.
            _ = try environment.database(History.database, txn: probe, create: false)
        }
        handleGeneration = environment.currentHandleGeneration
        // LMDB picks a reader's root from the meta page of the transaction id
        // it read; a reader delayed between the two while the writer commits
        // twice gets the newer root under the older id.  Its data is still
        // one whole commit, but a later snapshot could then show an older
        // one.  Every commit records its id in `meta`: a root newer than the
        // transaction's id is detected, and the snapshot taken again.
        var attempt = 0
        while true {
            let txn = try environment.beginTransaction(write: false)
            // Taken after the transaction began: the newest root then holds
            // at least every page the transaction can reach.
            bounds = environment.currentBounds()
            guard let meta = environment.openedDatabase(MetaKeys.database), Environment.isUsable(meta, in: txn) else {
                self.txn = txn
                version = 0
                schemaGeneration = 0
                return
            }
            do throws(FiefError) {
                let committedBy = try MetaKeys.readUInt64(txn, meta, MetaKeys.committedTransaction) ?? 0
                if committedBy > UInt64(mdb_txn_id(txn)) && attempt < 1000 {
                    mdb_txn_abort(txn)
                    attempt += 1
                    sched_yield()
                    continue
                }
                version = try MetaKeys.readUInt64(txn, meta, MetaKeys.version) ?? 0
                schemaGeneration = try MetaKeys.readUInt64(txn, meta, MetaKeys.schemaGeneration) ?? 0
                self.txn = txn
                return
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
        }
    }

    deinit {
        lists.removeAll()
        collectionEntries.removeAll()
        cursors.removeAll()
        lastColumnCursor = nil
        columnCursors.removeAll()
        mdb_txn_abort(txn)
        lock.destroy()
    }

    /// Run `body` with this snapshot's cursor on `dbi`.
    @inlinable @inline(__always)
    public func withCursor<T>(_ dbi: MDB_dbi, _ body: (LMDBCursor) throws(FiefError) -> T) throws(FiefError) -> T {
        if isShared { return try lock.withLock { () throws(FiefError) in try body(try cursor(dbi)) } }
        return try body(try cursor(dbi))
    }

    /// Run `body` with this snapshot's read transaction (under `lock` when
    /// the snapshot is shared).
    public func withTransaction<T>(_ body: (OpaquePointer) throws(FiefError) -> T) throws(FiefError) -> T {
        if isShared { return try lock.withLock { () throws(FiefError) in try body(txn) } }
        return try body(txn)
    }

    /// This snapshot's cursor on `dbi`; the caller holds `lock` if the
    /// snapshot is shared (a chunk check inside `chunk(_:dbi:check:)` does).
    @inlinable @inline(__always)
    public func cursor(_ dbi: MDB_dbi) throws(FiefError) -> LMDBCursor {
        let i = Int(dbi)
        if i < cursors.count, let cursor = cursors[i] { return cursor }
        let cursor = try LMDBCursor(txn, dbi)
        if i >= cursors.count { cursors.append(contentsOf: repeatElement(nil, count: i + 1 - cursors.count)) }
        cursors[i] = cursor
        return cursor
    }

    /// The chunk `id`, read and checked by `read` on its first use in this
    /// snapshot (`read` may use the snapshot's cursors: it runs under `lock`
    /// when the snapshot is shared).
    @inlinable @inline(__always)
    public func chunk(_ id: ChunkID, read: () throws(FiefError) -> ChunkReader) throws(FiefError) -> ChunkReader {
        if isShared {
            return try lock.withLock { () throws(FiefError) in try lookup(id, read: read) }
        }
        return try lookup(id, read: read)
    }

    @inlinable @inline(__always)
    func lookup(_ id: ChunkID, read: () throws(FiefError) -> ChunkReader) throws(FiefError) -> ChunkReader {
        if let cached = cache[id] { return cached }
        let found = try read()
        cache[id] = found
        return found
    }

    /// This snapshot's cursor over the chunks of `column` in `dbi` (the
    /// caller holds `lock` if the snapshot is shared).
    @inlinable @inline(__always)
    public func columnCursor(_ dbi: MDB_dbi, column: UInt32) throws(FiefError) -> ColumnCursor {
        let key = UInt64(dbi) << 32 | UInt64(column)
        if key == lastColumnCursorKey, let last = lastColumnCursor { return last }
        let cursor: ColumnCursor
        if let known = columnCursors[key] {
            cursor = known
        } else {
            cursor = try ColumnCursor(txn, dbi)
            columnCursors[key] = cursor
        }
        lastColumnCursorKey = key
        lastColumnCursor = cursor
        return cursor
    }
}
