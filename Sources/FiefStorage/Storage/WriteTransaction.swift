import CLMDB
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

/// What an open write transaction changed in one class.
public final class ClassWrite {
    @usableFromInline init() {}
    /// The next object key, loaded on first use, stored at commit.
    public var nextKey: Int64?
    /// Clusters whose presence bitmap changed.
    public var touchedClusters: Set<Int64> = []
    @usableFromInline var lastTouched: Int64 = -1
    /// Objects created minus objects deleted since the transaction began
    /// (or since the class was emptied).
    public var objectCountDelta: Int64 = 0
    /// Whether every object of the class was deleted (its tables dropped).
    public var emptied = false
    /// The cursor on the class's integer primary-key table; closed before
    /// the transaction ends (LMDB frees a write transaction's cursors).
    public var primaryKeyCursor: LMDBCursor?
    /// The cursor on the class's backlinks, kept for the objects deleted
    /// one after another (closed as `primaryKeyCursor` is).
    public var backlinksCursor: LMDBCursor?
    /// The last run of the integer primary-key table, when this transaction
    /// wrote it: keys that continue it extend it here, and it is stored
    /// once, before anything else reads or writes the table.
    public var tailRun: (run: PrimaryKeyRuns.Run, stored: Bool)?

    /// The chunks of the cluster objects were last created in, by column:
    /// creating objects one by one finds them without hashing (each id has
    /// one DirtyChunk for the whole transaction, until the class is emptied).
    /// Held and handed out unretained: the transaction's `dirty` map owns
    /// every DirtyChunk until the transaction ends and never drops one, so
    /// a create takes no reference per column.
    @usableFromInline var createCluster: Int64 = -1
    @usableFromInline var createChunks: [(column: UInt32, chunk: Unmanaged<DirtyChunk>)] = []

    @inlinable @inline(__always)
    public func chunk(_ column: UInt32, cluster: Int64, _ make: () throws(FiefError) -> DirtyChunk) throws(FiefError) -> Unmanaged<DirtyChunk> {
        if cluster == createCluster {
            for entry in createChunks where entry.column == column { return entry.chunk }
        } else {
            createCluster = cluster
            createChunks.removeAll(keepingCapacity: true)
        }
        let made = Unmanaged.passUnretained(try make())
        createChunks.append((column, made))
        return made
    }

    @inlinable @inline(__always)
    public func touch(_ cluster: Int64) {
        if cluster == lastTouched { return }
        touchedClusters.insert(cluster)
        lastTouched = cluster
    }

    /// The class was emptied: nothing of it is left to write.
    public func empty() {
        createCluster = -1
        createChunks = []
        touchedClusters = []
        lastTouched = -1
        objectCountDelta = 0
        emptied = true
        primaryKeyCursor = nil
        backlinksCursor = nil
        tailRun = nil
    }
}

/// The state of an open write transaction: LMDB's write transaction, the
/// chunks changed so far (written once each at commit), and the chunks read.
public final class WriteTransaction {
    public let txn: OpaquePointer
    public let thread: pthread_t
    /// The version the transaction started from; the commit creates version + 1.
    public let version: UInt64
    public let meta: MDB_dbi
    /// Where the file's pages are mapped as the transaction began.
    public let bounds: MapBounds
    @exclusivity(unchecked) public var dirty = ChunkMap<DirtyChunk>(capacity: 256)
    /// Chunks read from LMDB in this transaction.  The data databases are not
    /// written before commit (except when emptied), so these views stay valid.
    @exclusivity(unchecked) public var clean = ChunkMap<ChunkReader>(capacity: 256)
    /// The part lists of chunks read in parts.
    public var partTables = ChunkPartTables()
    /// Transactions that touched at least this many chunks (about 2 MiB)
    /// return their memory to the system when they end.
    public static let largeChunkCount = 1024
    /// What changed, per class (`classWrite(_:)`).
    @exclusivity(unchecked) public var classes: [UInt32: ClassWrite] = [:]
    @exclusivity(unchecked) @usableFromInline var lastClassKey: UInt32 = 0
    @exclusivity(unchecked) @usableFromInline var lastClass: ClassWrite?
    /// A storage failure in the middle of an operation: the transaction can
    /// only be cancelled.
    public var failure: FiefError?
    /// Scratch space for index keys.
    @exclusivity(unchecked) public var keyBuffer: [UInt8] = []
    /// Databases opened (created) in this transaction: LMDB closes them if it aborts.
    public var openedDatabases: [String] = []
    /// Whether the schema changed in this transaction.
    public var changedSchema = false
    /// The schema as the transaction began (the change record compares it
    /// with the schema at commit when `changedSchema`).
    public var schemaAtBegin: Schema?
    /// The `history` database (nil in a file without one: never, once open
    /// writable has upgraded it to format 9).
    public var history: MDB_dbi?
    /// Objects whose column was written without a write to its chunk (a
    /// collection nested in a mixed value: its entries live apart), per
    /// class and column; the change record counts those that existed
    /// before and after the transaction as modified (`ChangeLog.record`).
    public private(set) var indirectWrites: [UInt32: [UInt32: KeySet]] = [:]

    public func noteIndirectWrite(table: UInt32, column: UInt32, key: Int64) {
        indirectWrites[table, default: [:]][column, default: KeySet()].insert(key)
    }

    /// Per backlinks database, per link (`ObjectChanges.linkingPair`), the
    /// targets whose count of links from some origin changed, as the
    /// buffered deltas reached LMDB (`Backlinks.settle`); the change record
    /// names those present before and after as `linkingObjects`.
    public private(set) var linkingChanges: [MDB_dbi: [UInt64: KeySet]] = [:]

    /// Targets `targets` (ascending) of database `dbi` gained or lost a link `pair`.
    public func noteLinkingChanges(_ dbi: MDB_dbi, _ pairs: [(pair: UInt64, targets: KeySet)]) {
        for (pair, targets) in pairs where !targets.isEmpty {
            linkingChanges[dbi, default: [:]][pair, default: KeySet()].formUnion(targets)
        }
    }

    /// The lists read or changed in this transaction (stored at commit).
    @exclusivity(unchecked) public var lists: [ListID: ListState] = [:]
    /// The sets and maps read since the transaction last wrote one.
    @exclusivity(unchecked) public var collectionEntries: [ListID: CollectionEntries] = [:]
    /// Scratch space for set and map keys and values.
    @exclusivity(unchecked) public var entryKey: [UInt8] = []
    @exclusivity(unchecked) public var entryValue: [UInt8] = []
    /// What the transaction changed and has not written yet (backlinks;
    /// links to deleted objects still to be taken out of lists it has not
    /// loaded; set and map entries), written at commit in key order (see
    /// `WriteBuffer`).
    public let buffer = WriteBuffer()
    /// Strings and binaries written to lists.
    public let listBytes = ByteArena()
    /// Scratch space for encoding segments.
    public var segmentBuffer: [UInt8] = []

    /// The changes to class `key` (made on first use).
    @inlinable @inline(__always)
    public func classWrite(_ key: UInt32) -> ClassWrite {
        if key == lastClassKey, let lastClass { return lastClass }
        let state: ClassWrite
        if let known = classes[key] {
            state = known
        } else {
            state = ClassWrite()
            classes[key] = state
        }
        lastClassKey = key
        lastClass = state
        return state
    }

    /// The cursor on a class's integer primary-key table, with the table up
    /// to date (its tail run stored, and forgotten: the caller may change
    /// the table).
    public func primaryKeyCursor(_ table: UInt32, _ dbi: MDB_dbi) throws(FiefError) -> LMDBCursor {
        let state = classWrite(table)
        let cursor: LMDBCursor
        if let open = state.primaryKeyCursor {
            cursor = open
        } else {
            cursor = try LMDBCursor(txn, dbi)
            state.primaryKeyCursor = cursor
        }
        if let tail = state.tailRun {
            state.tailRun = nil
            if !tail.stored { try PrimaryKeyRuns.store(cursor, tail.run) }
        }
        return cursor
    }

    /// Map integer primary keys `start ..< start + count` of class `table`
    /// to objects `firstObject ...`; nil, or the first key already taken.
    @inlinable @inline(__always)
    public func insertPrimaryKeys(_ table: UInt32, _ dbi: MDB_dbi, start: UInt64, firstObject: Int64, count: UInt64) throws(FiefError) -> UInt64? {
        let state = classWrite(table)
        if let tail = state.tailRun, PrimaryKeyRuns.continues(tail.run, start: start, firstObject: firstObject, count: count) {
            // Past the table's last key: nothing there to collide with.
            var run = tail.run
            run.length += count
            state.tailRun = (run, false)
            return nil
        }
        let cursor = try primaryKeyCursor(table, dbi)
        var tail: PrimaryKeyRuns.Run?
        let taken = try PrimaryKeyRuns.insert(cursor, start: start, firstObject: firstObject, count: count, tail: &tail)
        state.tailRun = tail.map { ($0, true) }
        return taken
    }

    /// Store every tail run (before commit).
    public func storePrimaryKeys(_ databases: (UInt32) throws(FiefError) -> MDB_dbi?) throws(FiefError) {
        for (table, state) in classes where state.tailRun.map({ !$0.stored }) ?? false {
            if let dbi = try databases(table) { _ = try primaryKeyCursor(table, dbi) }
        }
    }

    // MARK: Set and map entries

    /// Write the buffered entries of collection `id` (a settle: always
    /// allowed, the buffer only orders writes).
    public func settleEntries(_ id: ListID) throws(FiefError) {
        guard let table = buffer.entries.remove(id) else { return }
        forgetCollectionEntries()
        buffer.noteEntryChanges(id, try table.store(try LMDBCursor(txn, table.dbi), table: id.table, column: id.column, owner: id.owner))
    }

    /// Write the buffered entries of every collection `body` selects (all
    /// by default: at commit, before a schema change), in key order, one
    /// cursor per database.
    public func settleEntries(where body: (ListID) -> Bool = { _ in true }) throws(FiefError) {
        if buffer.entries.isEmpty { return }
        let taken = buffer.entries.take(where: body)
        if taken.isEmpty { return }
        forgetCollectionEntries()
        var cursor: (dbi: MDB_dbi, cursor: LMDBCursor)?
        for (id, table) in taken {
            if cursor?.dbi != table.dbi { cursor = (table.dbi, try LMDBCursor(txn, table.dbi)) }
            buffer.noteEntryChanges(id, try table.store(cursor!.cursor, table: id.table, column: id.column, owner: id.owner))
        }
    }

    /// Drop collection `id`'s buffered entries (it is being emptied):
    /// their changes are kept for the change record.
    public func dropEntries(_ id: ListID) {
        guard let table = buffer.entries.remove(id) else { return }
        forgetCollectionEntries()
        buffer.noteEntryChanges(id, table.changes())
    }

    /// Collection `id` was emptied (`removeAll`, or its owner deleted).
    public func noteCleared(_ id: ListID, ownerDeleted: Bool) {
        var changes = EntryChanges()
        changes.cleared = true
        changes.ownerDeleted = ownerDeleted
        buffer.noteEntryChanges(id, changes)
    }

    /// After a change to an entry table: past the budget (looked at every
    /// 1,024 changes), the largest tables are written until it holds.
    @inline(__always)
    public func boundEntries() throws(FiefError) {
        guard buffer.entries.noteChanged(budget: buffer.budget) else { return }
        while buffer.entries.totalBytes > buffer.budget, let id = buffer.entries.largest { try settleEntries(id) }
    }

    /// Before a write to a set or map database: views read from it may move.
    @inline(__always)
    public func forgetCollectionEntries() {
        if !collectionEntries.isEmpty { collectionEntries.removeAll(keepingCapacity: true) }
    }

    public func closeCursors() {
        for state in classes.values {
            state.primaryKeyCursor = nil
            state.backlinksCursor = nil
        }
    }

    public init(txn: OpaquePointer, version: UInt64, meta: MDB_dbi, bounds: MapBounds) {
        self.txn = txn
        self.bounds = bounds
        self.thread = pthread_self()
        self.version = version
        self.meta = meta
    }
}

/// One column of one cluster, as the realm currently sees it.
public struct ColumnChunk {
    public let reader: ChunkReader
    /// Set for a string or binary chunk changed in the write transaction.
    public let dirtyItems: DirtyChunk?

    @inlinable @inline(__always)
    public func value(_ slot: Int, type: PropertyType, nullable: Bool) -> Value {
        if let dirtyItems { return dirtyItems.value(slot, nullable: nullable) }
        return reader.value(slot, type: type, nullable: nullable)
    }

    /// The bytes of a string or binary slot (empty for null).
    @inlinable @inline(__always)
    public func bytes(_ slot: Int) -> UnsafeRawBufferPointer {
        if let dirtyItems { return dirtyItems.bytes(slot) ?? UnsafeRawBufferPointer(start: nil, count: 0) }
        return reader.bytes(slot)
    }
    
    public init(reader: ChunkReader, dirtyItems: DirtyChunk?) { self.reader = reader; self.dirtyItems = dirtyItems }
}
