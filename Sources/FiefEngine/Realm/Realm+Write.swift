import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// The state of an open write transaction: LMDB's write transaction, the
/// chunks changed so far (written once each at commit), and the chunks read.
final class WriteTransaction {
    let txn: OpaquePointer
    let thread: pthread_t
    /// The version the transaction started from; the commit creates version + 1.
    let version: UInt64
    let meta: MDB_dbi
    @exclusivity(unchecked) var dirty = ChunkMap<DirtyChunk>(capacity: 256)
    /// Chunks read from LMDB in this transaction.  The data databases are not
    /// written before commit (except when emptied), so these views stay valid.
    @exclusivity(unchecked) var clean = ChunkMap<UnsafeRawBufferPointer?>(capacity: 256)
    /// Next object key per class, loaded on first use, stored at commit.
    @exclusivity(unchecked) var nextKeys: [UInt32: Int64] = [:]
    /// Clusters whose presence bitmap changed, per class.
    @exclusivity(unchecked) var touchedClusters: [UInt32: Set<Int64>] = [:]
    /// A storage failure in the middle of an operation: the transaction can
    /// only be cancelled.
    var failure: FiefError?
    /// Scratch space for index keys.
    @exclusivity(unchecked) var keyBuffer: [UInt8] = []
    /// Databases opened (created) in this transaction: LMDB closes them if it aborts.
    var openedDatabases: [String] = []
    /// Whether the schema changed in this transaction.
    var changedSchema = false
    /// Cursors that append ascending integer primary keys, per class; closed
    /// before the transaction ends (LMDB frees a write transaction's cursors).
    private var appendCursors: [UInt32: LMDBCursor] = [:]
    /// Classes whose primary keys stopped arriving in ascending order.
    var appendRefused: Set<UInt32> = []

    func appendCursor(_ table: UInt32, _ dbi: MDB_dbi) throws(FiefError) -> LMDBCursor {
        if let cursor = appendCursors[table] { return cursor }
        let cursor = try LMDBCursor(txn, dbi)
        appendCursors[table] = cursor
        return cursor
    }

    func closeCursors() {
        appendCursors.removeAll()
    }

    init(txn: OpaquePointer, version: UInt64, meta: MDB_dbi) {
        self.txn = txn
        self.thread = pthread_self()
        self.version = version
        self.meta = meta
    }
}

/// One column of one cluster, as the realm currently sees it.
struct ColumnChunk {
    let reader: ChunkReader
    /// Set for a string or binary chunk changed in the write transaction.
    let dirtyItems: DirtyChunk?

    @inline(__always)
    func value(_ slot: Int, type: PropertyType, nullable: Bool) -> Value {
        if let dirtyItems { return dirtyItems.value(slot, nullable: nullable) }
        return reader.value(slot, type: type, nullable: nullable)
    }

    /// The bytes of a string or binary slot (empty for null).
    @inline(__always)
    func bytes(_ slot: Int) -> UnsafeRawBufferPointer {
        if let dirtyItems { return dirtyItems.bytes(slot) ?? UnsafeRawBufferPointer(start: nil, count: 0) }
        return reader.bytes(slot)
    }
}

extension Realm {
    // MARK: Chunks

    /// The chunk of `column` in `cluster`: dirty, read earlier, or looked up now.
    @inline(__always)
    func chunk(_ table: Table, column: UInt32, cluster: Int64) throws(FiefError) -> ColumnChunk {
        let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: column, cluster: cluster))
        if let write {
            if let dirty = write.dirty[id] {
                return ColumnChunk(reader: dirty.reader, dirtyItems: dirty.isVariableWidth ? dirty : nil)
            }
            if let clean = write.clean[id] { return ColumnChunk(reader: ChunkReader(clean), dirtyItems: nil) }
            let found = try LMDB.get(write.txn, table.data, integerKey: id.key)
            write.clean[id] = found
            return ColumnChunk(reader: ChunkReader(found), dirtyItems: nil)
        }
        return ColumnChunk(reader: ChunkReader(try currentSnapshot().chunk(id, dbi: table.data)), dirtyItems: nil)
    }

    /// The chunk of `column` in `cluster`, made writable.
    @inline(__always)
    func dirtyChunk(_ write: WriteTransaction, _ table: Table, column: UInt32, type: PropertyType?, cluster: Int64) throws(FiefError) -> DirtyChunk {
        let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: column, cluster: cluster))
        if let dirty = write.dirty[id] { return dirty }
        let stored: UnsafeRawBufferPointer?
        if let clean = write.clean[id] {
            stored = clean
        } else {
            stored = try LMDB.get(write.txn, table.data, integerKey: id.key)
        }
        let dirty = DirtyChunk(type: type, from: ChunkReader(stored))
        write.dirty[id] = dirty
        return dirty
    }

    /// Whether the object `key` of `table` exists in what the realm sees.
    @inline(__always)
    func isLive(_ table: Table, _ key: Int64) throws(FiefError) -> Bool {
        guard key >= 0 else { return false }
        return try chunk(table, column: ClusterLayout.presenceColumn, cluster: ClusterLayout.cluster(of: key)).reader.bit(ClusterLayout.slot(of: key))
    }

    // MARK: Transactions

    /// Begin a write transaction (waits for any other writer).
    public func beginWrite() throws(FiefError) {
        try checkOpen()
        if isFrozen { throw FiefError(.frozen, "a frozen realm cannot be written") }
        if isReadOnly { throw FiefError(.readOnly, "the realm is read-only") }
        if write != nil { throw FiefError(.alreadyInTransaction, "the realm is already in a write transaction") }
        try environment.claimWriter()
        while true {
            let handles = environment.currentHandleGeneration
            let txn = try environment.beginTransaction(write: true)
            environment.setWriter(true)
            var retry = false
            do throws(FiefError) {
                guard let meta = environment.openedDatabase(MetaKeys.database) else {
                    throw FiefError(.fileNotFief, "the file lost its meta database", path: environment.path)
                }
                let version = try MetaKeys.readUInt64(txn, meta, MetaKeys.version) ?? 0
                let generation = try MetaKeys.readUInt64(txn, meta, MetaKeys.schemaGeneration) ?? 0
                if generation != schemaGeneration || environment.currentHandleGeneration != handles {
                    // Another process changed the schema: load it (opening its
                    // databases) before a transaction that can see them.
                    retry = true
                } else {
                    snapshot = nil
                    write = WriteTransaction(txn: txn, version: version, meta: meta)
                    bumpStamp()
                    // Cancelled on this thread if it ends before the transaction does.
                    ThreadExitHook.register(self)
                    return
                }
            } catch {
                mdb_txn_abort(txn)
                environment.setWriter(false)
                throw error
            }
            if retry {
                mdb_txn_abort(txn)
                environment.setWriter(false)
                snapshot = try freshSnapshot()
            }
        }
    }

    /// Write every changed chunk once and commit durably.
    public func commitWrite() throws(FiefError) {
        let write = try requireWriteForEnd()
        defer {
            self.write = nil
            environment.setWriter(false)
            bumpStamp()
            ThreadExitHook.unregister(self)
        }
        write.closeCursors()
        if let failure = write.failure {
            mdb_txn_abort(write.txn)
            environment.forgetDatabases(write.openedDatabases)
            throw FiefError(failure.code, "the transaction was cancelled because an earlier write failed: \(failure.message)", path: failure.path)
        }
        do throws(FiefError) {
            try flush(write)
        } catch {
            mdb_txn_abort(write.txn)
            environment.forgetDatabases(write.openedDatabases)
            throw error
        }
        let rc = mdb_txn_commit(write.txn)
        if rc != 0 {
            environment.forgetDatabases(write.openedDatabases)
            throw LMDB.error(rc, "committing", path: environment.path)
        }
        // Read the version just committed, at once: a snapshot taken later
        // could include another writer's commit.
        self.write = nil
        environment.setWriter(false)
        snapshot = try? freshSnapshot()
    }

    private func flush(_ write: WriteTransaction) throws(FiefError) {
        // Clusters left without objects lose every chunk.
        var emptied = Set<ChunkID>()
        for (tableKey, clusters) in write.touchedClusters {
            for cluster in clusters {
                let id = ChunkID(table: tableKey, key: ClusterLayout.chunkKey(column: 0, cluster: cluster))
                if let presence = write.dirty[id], presence.bitmapIsEmpty {
                    emptied.insert(ChunkID(table: tableKey, key: UInt64(cluster)))
                }
            }
        }
        let ids = write.dirty.entries.map(\.0).sorted { $0.table != $1.table ? $0.table < $1.table : $0.key < $1.key }
        for id in ids {
            let cluster = Int64(id.key & ((1 << 40) - 1))
            if !emptied.isEmpty && emptied.contains(ChunkID(table: id.table, key: UInt64(cluster))) { continue }
            let chunk = write.dirty[id]!
            let size = chunk.encodedSize
            guard size < Int(UInt32.max) else {
                throw FiefError(.fileFull, "the strings or binaries of 256 neighbouring objects exceed 4 GiB")
            }
            try LMDB.putReserved(write.txn, try table(id.table).data, integerKey: id.key, size: size) { chunk.encode(into: $0) }
        }
        for empty in emptied {
            let table = try table(empty.table)
            let cluster = Int64(empty.key)
            try LMDB.delete(write.txn, table.data, integerKey: ClusterLayout.chunkKey(column: 0, cluster: cluster))
            for property in table.objectClass.properties {
                try LMDB.delete(write.txn, table.data, integerKey: ClusterLayout.chunkKey(column: property.key, cluster: cluster))
            }
        }
        for (tableKey, next) in write.nextKeys {
            try MetaKeys.write(write.txn, write.meta, MetaKeys.nextObjectKey(tableKey), UInt64(next))
        }
        try MetaKeys.write(write.txn, write.meta, MetaKeys.version, write.version + 1)
        try MetaKeys.write(write.txn, write.meta, MetaKeys.committedTransaction, UInt64(mdb_txn_id(write.txn)))
    }

    /// Cancel the write transaction; nothing of it is kept.
    public func cancelWrite() {
        guard let write else { return }
        if pthread_equal(write.thread, pthread_self()) != 0 { ThreadExitHook.unregister(self) }
        write.closeCursors()
        mdb_txn_abort(write.txn)
        self.write = nil
        environment.forgetDatabases(write.openedDatabases)
        environment.setWriter(false)
        if write.changedSchema {
            // Back to the schema as committed.
            schemaGeneration = .max
            snapshot = try? freshSnapshot()
        }
        bumpStamp()
    }

    /// Cancel the write transaction if the calling thread began it: called
    /// by `ThreadExitHook` as that thread exits, so LMDB's writer lock is
    /// released by its owner.
    func cancelWriteOfExitingThread() {
        _ = try? lock.withLock { () throws(FiefError) in
            if let write, pthread_equal(write.thread, pthread_self()) != 0 { cancelWrite() }
        }
    }

    /// Cancel, checking that there is a transaction and that it is this thread's.
    public func cancelWriteChecked() throws(FiefError) {
        _ = try requireWriteForEnd()
        cancelWrite()
    }

    private func requireWriteForEnd() throws(FiefError) -> WriteTransaction {
        try checkOpen()
        guard let write else { throw FiefError(.notInTransaction, "the realm has no write transaction to end") }
        if pthread_equal(write.thread, pthread_self()) == 0 {
            throw FiefError(.wrongThread, "the realm's write transaction belongs to another thread")
        }
        return write
    }

    /// `count` consecutive unused object keys of `table`; returns the first.
    func allocateKeys(_ write: WriteTransaction, _ table: Table, count: Int) throws(FiefError) -> Int64 {
        let first = try allocateKey(write, table)
        let next = first + Int64(count)
        guard next <= (1 << 48) else { throw FiefError(.fileFull, "class '\(table.objectClass.name)' ran out of object keys") }
        write.nextKeys[table.key] = next
        return first
    }

    /// The next unused object key of `table`.
    func allocateKey(_ write: WriteTransaction, _ table: Table) throws(FiefError) -> Int64 {
        var next: Int64
        if let known = write.nextKeys[table.key] {
            next = known
        } else {
            next = Int64(try MetaKeys.readUInt64(write.txn, write.meta, MetaKeys.nextObjectKey(table.key)) ?? 0)
        }
        guard next < (1 << 48) else { throw FiefError(.fileFull, "class '\(table.objectClass.name)' ran out of object keys") }
        write.nextKeys[table.key] = next + 1
        return next
    }

    /// Record a storage failure that leaves the transaction unusable.
    func poison(_ write: WriteTransaction, _ error: FiefError) -> FiefError {
        if error.code.rawValue >= 5000 { write.failure = error }
        return error
    }
}
