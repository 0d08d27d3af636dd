import CLMDB
import FiefStorage
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

extension Realm {
    // MARK: Chunks

    /// The chunk of `column` in `cluster`: dirty, read earlier, or looked up
    /// (and checked) now.
    @inline(__always)
    func chunk(_ table: Table, column: UInt32, cluster: Int64) throws(FiefError) -> ColumnChunk {
        let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: column, cluster: cluster))
        let found: ChunkReader
        if let write {
            if let dirty = write.dirty[id] {
                return ColumnChunk(reader: dirty.reader, dirtyItems: dirty.isVariableWidth ? dirty : nil)
            }
            if let clean = write.clean[id] {
                found = clean
            } else {
                found = try checkedChunk(try LMDB.get(write.txn, table.data, integerKey: id.key), table, id, write.bounds,
                                         cursor: { () throws(FiefError) in try LMDBCursor(write.txn, table.data) }, tables: write.partTables)
                write.clean[id] = found
            }
        } else {
            let snapshot = try currentSnapshot()
            found = try snapshot.chunk(id) { () throws(FiefError) -> ChunkReader in
                // Through the column's cursor: a scan steps from chunk to chunk.
                let cursor = try snapshot.columnCursor(table.data, column: column)
                guard let first = try cursor.first(column: column, cluster: cluster) else { return ChunkReader(nil) }
                if first.key == id.key {
                    return try checkedChunk(first.value, table, id, snapshot.bounds,
                                            cursor: { () throws(FiefError) in try snapshot.cursor(table.data) }, tables: snapshot.partTables)
                }
                guard let whole = try ChunkParts.assemble(from: first, next: { () throws(FiefError) in try cursor.next() }, finalKey: id.key,
                                                          table: table.key, type: try table.column(column).type,
                                                          bounds: snapshot.bounds, tables: snapshot.partTables) else {
                    throw damagedChunk(table, column: column, cluster: cluster, "has a damaged or missing part")
                }
                return whole
            }
        }
        if found.base == nil && column != ClusterLayout.presenceColumn {
            try requireUnlisted(table, column: column, cluster: cluster)
        }
        return ColumnChunk(reader: found, dirtyItems: nil)
    }

    /// A stored chunk after its checks (see `ChunkCheck`), its leading parts
    /// read with `cursor` (on the class's data) if it has any, their list
    /// kept by `tables`; or the error naming what is damaged.
    func checkedChunk(_ raw: UnsafeRawBufferPointer?, _ table: Table, _ id: ChunkID, _ bounds: MapBounds,
                      cursor: () throws(FiefError) -> LMDBCursor, tables: ChunkPartTables) throws(FiefError) -> ChunkReader {
        guard let raw else { return ChunkReader(nil) }
        let column = ClusterLayout.column(ofChunkKey: id.key)
        let type = column == ClusterLayout.presenceColumn ? nil : try table.column(column).type
        guard bounds.contains(raw), let body = ChunkCheck.verified(raw, table: table.key, key: id.key, type: type) else {
            throw damagedChunk(table, column: column, cluster: ClusterLayout.cluster(ofChunkKey: id.key), "fails its checksum or layout check")
        }
        guard let type, ChunkParts.hasLeadingParts(body, type: type) else { return ChunkReader(body) }
        guard let whole = try ChunkParts.assemble(finalKey: id.key, cursor: try cursor(), table: table.key, type: type,
                                                  bounds: bounds, tables: tables) else {
            throw damagedChunk(table, column: column, cluster: ClusterLayout.cluster(ofChunkKey: id.key), "has a damaged or missing part")
        }
        return whole
    }

    /// Fail if the cluster's presence chunk says `column` has a chunk there
    /// (one that went missing: a damaged tree, not a property added later).
    func requireUnlisted(_ table: Table, column: UInt32, cluster: Int64) throws(FiefError) {
        let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: cluster))
        let listed: Bool
        if let dirty = write?.dirty[id] {
            listed = dirty.listsColumn(column)
        } else {
            listed = try chunk(table, column: ClusterLayout.presenceColumn, cluster: cluster).reader.listsColumn(column)
        }
        if listed { throw damagedChunk(table, column: column, cluster: cluster, "is missing") }
    }

    /// The error for a damaged chunk: the file, class, property and objects.
    func damagedChunk(_ table: Table, column: UInt32, cluster: Int64, _ what: String) -> FiefError {
        let first = cluster << ClusterLayout.shift
        let name = column == ClusterLayout.presenceColumn ? "the list of objects"
            : "property '\((try? table.property(column))?.name ?? "#\(column)")'"
        return FiefError(.fileCorrupt, "'\(environment.path)' is damaged: the stored \(name) of class '\(table.objectClass.name)' for objects \(first)...\(first + Int64(ClusterLayout.slotMask)) \(what)", path: environment.path)
    }

    /// The chunk of `column` in `cluster`, made writable.
    @inline(__always)
    func dirtyChunk(_ write: WriteTransaction, _ table: Table, column: UInt32, type: PropertyType?, cluster: Int64) throws(FiefError) -> DirtyChunk {
        let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: column, cluster: cluster))
        if let dirty = write.dirty[id] { return dirty }
        let stored: ChunkReader
        if let clean = write.clean[id] {
            stored = clean
        } else {
            stored = try checkedChunk(try LMDB.get(write.txn, table.data, integerKey: id.key), table, id, write.bounds,
                                      cursor: { () throws(FiefError) in try LMDBCursor(write.txn, table.data) }, tables: write.partTables)
            if stored.base == nil && column != ClusterLayout.presenceColumn {
                try requireUnlisted(table, column: column, cluster: cluster)
            }
        }
        let dirty = DirtyChunk(type: type, from: stored)
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
        try environment.checkWritable()
        try environment.claimWriter()
        // Opened before the transaction begins, so the transaction can use it.
        let history = try environment.existingDatabase(History.database)
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
                    if let limit = configuration.maxActiveVersions, let history {
                        do throws(FiefError) {
                            try checkActiveVersions(txn, history, newest: version, limit: limit)
                        } catch {
                            bumpStamp()    // the snapshot is gone: the next read takes the newest
                            throw error
                        }
                    }
                    let made = WriteTransaction(txn: txn, version: version, meta: meta, bounds: environment.currentBounds())
                    made.history = history
                    made.schemaAtBegin = schema
                    write = made
                    bumpStamp()
                    // Cancelled on this thread if it ends before the transaction does.
                    ThreadExitHook.register(exitToken)
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

    /// Fail with `tooManyVersions` when the versions readers hold, from the
    /// oldest one held to `newest`, and the one this write would make are
    /// more than `limit` (Realm's `maximumNumberOfActiveVersions`, counted
    /// as realm-core counts them: with the new version).
    private func checkActiveVersions(_ txn: OpaquePointer, _ history: MDB_dbi, newest: UInt64, limit: UInt64) throws(FiefError) {
        let count = try History.activeVersions(txn, history, newest: newest, oldestReader: ReaderTable.oldestTransaction(environment.env)) + 1
        if count > limit {
            throw FiefError(.tooManyVersions, "Number of active versions (\(count)) in the Realm exceeded the limit of \(limit)")
        }
    }

    /// Write every changed chunk once and commit durably.
    public func commitWrite() throws(FiefError) {
        try commitWrite(skip: nil)
    }

    /// `commitWrite`; with `skip`, the committed version is handed to it
    /// (read alone, before any process is woken) or, failing that, it is
    /// cancelled.
    func commitWrite(skip: CommitSkip?) throws(FiefError) {
        let write = try requireWriteForEnd()
        defer {
            self.write = nil
            environment.setWriter(false)
            bumpStamp()
            ThreadExitHook.unregister(exitToken)
        }
        if write.failure == nil {
            do throws(FiefError) {
                try write.storePrimaryKeys { (key) throws(FiefError) in try table(key).primaryKeyDatabase }
            } catch {
                write.failure = error
            }
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
        environment.noteOwnCommit()
        deliveryChannel?.noteOwnCommit(write.version + 1)
        if let skip {
            if let after = try? Snapshot(environment: environment), after.version == skip.version {
                skip.committed(after)
            } else {
                skip.cancel()
            }
        }
        // Wakes this process's worker and every other observing process.
        notificationCenter?.didCommit()
        // Read the version just committed, at once: a snapshot taken later
        // could include another writer's commit.
        self.write = nil
        environment.setWriter(false)
        snapshot = try? freshSnapshot()
        releaseWorkingMemory(write)
    }

    /// Free a finished transaction's chunks now, and after a large one give
    /// the freed memory back to the system (glibc keeps freed heap memory for
    /// the process otherwise).
    private func releaseWorkingMemory(_ write: WriteTransaction) {
        let large = write.dirty.count + write.clean.count >= WriteTransaction.largeChunkCount
        write.dirty = ChunkMap(capacity: 1)
        write.clean = ChunkMap(capacity: 1)
        write.partTables = ChunkPartTables()
        write.lists = [:]
        if large { malloc_trim(0) }
    }

    private func flush(_ write: WriteTransaction) throws(FiefError) {
        try flushLists(write)
        // Set and map entries beside the backlinks: every buffered database
        // written in one place, each in key order with one cursor.
        try write.settleEntries()
        try Backlinks.settleAll(write)
        // A column chunk stored for the first time is listed in its
        // cluster's presence chunk.
        for (id, chunk) in write.dirty.entries where chunk.isNew {
            let column = ClusterLayout.column(ofChunkKey: id.key)
            if column == ClusterLayout.presenceColumn { continue }
            let cluster = ClusterLayout.cluster(ofChunkKey: id.key)
            let presence = try dirtyChunk(write, try table(id.table), column: ClusterLayout.presenceColumn, type: nil, cluster: cluster)
            presence.listColumn(column)
            write.classWrite(id.table).touch(cluster)
        }
        // Clusters left without objects lose every chunk.
        var emptied = Set<ChunkID>()
        for (tableKey, state) in write.classes {
            for cluster in state.touchedClusters {
                let id = ChunkID(table: tableKey, key: ClusterLayout.chunkKey(column: 0, cluster: cluster))
                if let presence = write.dirty[id], presence.bitmapIsEmpty {
                    emptied.insert(ChunkID(table: tableKey, key: UInt64(cluster)))
                }
            }
        }
        // Every changed chunk once, in key order: chunks past a database's
        // last key are appended (LMDB then fills pages instead of splitting
        // them in half).
        let chunks = write.dirty.entries.sorted { $0.0.table != $1.0.table ? $0.0.table < $1.0.table : $0.0.key < $1.0.key }
        var appendTable: UInt32 = 0
        var lastKey: UInt64? = nil
        let partLimit = environment.chunkPartLimit
        for (id, chunk) in chunks {
            let cluster = ClusterLayout.cluster(ofChunkKey: id.key)
            if !emptied.isEmpty && emptied.contains(ChunkID(table: id.table, key: UInt64(cluster))) { continue }
            let data = try table(id.table).data
            if appendTable != id.table {
                appendTable = id.table
                lastKey = try LMDBCursor(write.txn, data).move(MDB_LAST).map { $0.key.loadUnaligned(as: UInt64.self) }
            }
            let column = ClusterLayout.column(ofChunkKey: id.key)
            if chunk.wasInParts {
                try ChunkParts.deleteLeadingParts(write.txn, data, column: column, cluster: cluster)
            }
            try ChunkParts.store(chunk, write.txn, data, table: id.table, column: column, cluster: cluster,
                                 limit: partLimit, lastKey: &lastKey)
        }
        for empty in emptied {
            let table = try table(empty.table)
            let cluster = Int64(empty.key)
            let presenceKey = ClusterLayout.chunkKey(column: 0, cluster: cluster)
            let listed = write.dirty[ChunkID(table: empty.table, key: presenceKey)]
            try LMDB.delete(write.txn, table.data, integerKey: presenceKey)
            for property in table.objectClass.properties {
                try ChunkParts.delete(write.txn, table.data, column: property.key, cluster: cluster,
                                      mayHaveParts: property.type == .string || property.type == .binary)
            }
            // Chunks of properties removed since (listed, no longer in the schema).
            if let listed {
                for column in listed.listedColumns where (try? table.column(column)) == nil {
                    try ChunkParts.delete(write.txn, table.data, column: column, cluster: cluster, mayHaveParts: true)
                }
            }
        }
        for (tableKey, state) in write.classes {
            if let next = state.nextKey {
                try MetaKeys.write(write.txn, write.meta, MetaKeys.nextObjectKey(tableKey), UInt64(next))
            }
            if state.objectCountDelta != 0 || state.emptied {
                let name = MetaKeys.objectCount(tableKey)
                let stored = state.emptied ? 0 : Int64(bitPattern: try MetaKeys.readUInt64(write.txn, write.meta, name) ?? 0)
                try MetaKeys.write(write.txn, write.meta, name, UInt64(bitPattern: stored + state.objectCountDelta))
            }
        }
        try MetaKeys.write(write.txn, write.meta, MetaKeys.version, write.version + 1)
        let transaction = UInt64(mdb_txn_id(write.txn))
        try MetaKeys.write(write.txn, write.meta, MetaKeys.committedTransaction, transaction)
        if let history = write.history {
            // The change record, and the records no reader needs any more.
            let schemaChanges = write.changedSchema ? ChangeLog.schemaChanges(from: write.schemaAtBegin ?? Schema(classes: []), to: schema) : [:]
            var backlinkClasses: [MDB_dbi: UInt32] = [:]
            if !write.linkingChanges.isEmpty {
                for (key, table) in tables { if let dbi = table.backlinks { backlinkClasses[dbi] = key } }
            }
            try History.write(write.txn, history, version: write.version + 1,
                              ChangeLog.record(write, chunks: chunks, transaction: transaction, schemaChanges: schemaChanges,
                                               backlinkClasses: backlinkClasses))
            try History.trim(write.txn, history, through: min(ReaderTable.oldestTransaction(environment.env) ?? .max, transaction - 1))
        }
    }

    /// Cancel the write transaction; nothing of it is kept.
    public func cancelWrite() {
        guard let write else { return }
        if pthread_equal(write.thread, pthread_self()) != 0 { ThreadExitHook.unregister(exitToken) }
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
        releaseWorkingMemory(write)
        bumpStamp()
    }

    /// Cancel the write transaction if the calling thread began it: called
    /// by `ThreadExitHook` as that thread exits, so LMDB's writer lock is
    /// released by its owner.
    package func cancelWriteOfExitingThread() {
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
    func allocateKeys(_ write: WriteTransaction, _ table: Table, _ state: ClassWrite, count: Int) throws(FiefError) -> Int64 {
        var first: Int64
        if let known = state.nextKey {
            first = known
        } else {
            first = Int64(try MetaKeys.readUInt64(write.txn, write.meta, MetaKeys.nextObjectKey(table.key)) ?? 0)
        }
        let next = first + Int64(count)
        guard first < ClusterLayout.objectKeyLimit, next <= ClusterLayout.objectKeyLimit else {
            throw FiefError(.fileFull, "class '\(table.objectClass.name)' ran out of object keys")
        }
        state.nextKey = next
        return first
    }

    /// Record a storage failure that leaves the transaction unusable.
    func poison(_ write: WriteTransaction, _ error: FiefError) -> FiefError {
        if error.code.rawValue >= 5000 { write.failure = error }
        return error
    }
}
