import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// What to open: a file or an in-memory identifier, and the schema to hold.
public struct RealmConfiguration: Sendable {
    public var path: String?
    public var inMemoryIdentifier: String?
    public var readOnly = false
    /// nil: use the file's schema as it is.
    public var schema: Schema?
    public var schemaVersion: UInt64 = 0
    public var deleteIfMigrationNeeded = false
    /// Whether a commit also syncs the new root (see `Durability`).
    public var durability: Durability = .full
    /// The most versions readers may hold from the oldest to the newest
    /// before `beginWrite` fails (`tooManyVersions`); nil: no limit.
    public var maxActiveVersions: UInt64?

    public init() {}
}

/// An open realm: one snapshot of one file, a live or frozen view of it, and
/// at most one write transaction.
///
/// Thread safety: callers serialise calls on one realm with `lock` (the C
/// layer takes it around every call).  A frozen realm may share its snapshot
/// with the live realm it came from; the snapshot then locks itself.
public final class Realm: @unchecked Sendable {
    public let configuration: RealmConfiguration
    let environment: Environment
    /// Serialises every call on this realm and the objects and results made from it.
    public let lock = Lock()
    /// The file's schema, with the linking-objects properties declared for
    /// this realm (`declaredLinkingObjects`) added to its classes.
    public private(set) var schema: Schema {
        didSet { schemaEpoch &+= 1 }
    }
    /// The linking-objects properties of the schema this realm was opened
    /// (or updated) with, by class name: computed, never stored, so the
    /// schema read from the file gets them added each time it is loaded.
    private var declaredLinkingObjects: [String: [LinkingObjectsProperty]] = [:]
    /// The schema version stored in the file (as this realm last read it).
    public private(set) var schemaVersion: UInt64 = 0
    @exclusivity(unchecked) private(set) var tables: [UInt32: Table] = [:]
    /// `tables` as an array indexed by class key, for lookups without hashing.
    @exclusivity(unchecked) private var tablesByKey: [Table?] = [] {
        didSet { schemaEpoch &+= 1 }
    }
    /// Changes whenever the schema or the tables this realm reads through
    /// do (what compiled queries are bound to: see `QueryCache`).
    @exclusivity(unchecked) private(set) var schemaEpoch: UInt64 = 0
    /// The filters parsed and compiled lately, rebound to new arguments when made again.
    let queryCache = QueryCache()
    private var tablesByName: [String: Table] = [:]
    var schemaGeneration: UInt64 = 0

    @exclusivity(unchecked) var snapshot: Snapshot?
    @exclusivity(unchecked) var write: WriteTransaction?
    public let isFrozen: Bool
    public let isReadOnly: Bool
    public private(set) var isClosed = false
    /// Changes whenever what this realm reads may have changed (new snapshot,
    /// any write): results compare it to know when to evaluate again.
    @exclusivity(unchecked) public private(set) var stamp: UInt64 = 1
    /// The stamp of the last change that may affect everything.
    @exclusivity(unchecked) private(set) var viewStamp: UInt64 = 1
    /// The stamp of the last create or delete, per class.
    @exclusivity(unchecked) private var membershipStamps = StampTable()
    /// The stamp of the last write, per (class << 32 | column).
    @exclusivity(unchecked) private var columnStamps = StampTable()
    private var exitTokenIfMade: ExitToken?
    /// The properties of the last create, resolved (see `resolveCreateProperties`).
    @exclusivity(unchecked) var lastCreateProperties: CreateProperties?
    /// The file's notification coordinator in this process (nil for frozen
    /// realms, which never commit nor observe), and this realm's delivery
    /// channel, made on first use (Notify/).
    let notificationCenter: NotificationCenter?
    var deliveryChannel: DeliveryChannel?

    // MARK: Opening

    /// Open the realm `configuration` describes.
    public static func open(_ configuration: RealmConfiguration) throws(FiefError) -> Realm {
        if let schema = configuration.schema { try schema.validate() }
        var environment: Environment?
        if let identifier = configuration.inMemoryIdentifier {
            guard !identifier.isEmpty else { throw FiefError(.invalidArgument, "the in-memory identifier is empty") }
            environment = try EnvironmentRegistry.openInMemory(identifier: identifier)
        } else if let path = configuration.path, !path.isEmpty {
            // First: a lock file that is a directory is reported as such,
            // even when the file is missing.
            try EnvironmentRegistry.requireRegularFiles(path: path)
            if configuration.readOnly && access(path, F_OK) != 0 {
                throw FiefError(.fileNotFound, "'\(path)' does not exist, and a read-only realm cannot create it", path: path)
            }
            environment = try EnvironmentRegistry.open(path: path, readOnly: configuration.readOnly)
        } else {
            throw FiefError(.invalidArgument, "the configuration names neither a path nor an in-memory identifier")
        }
        if configuration.inMemoryIdentifier == nil, !configuration.readOnly {
            environment!.setDurability(configuration.durability)
        }
        do throws(FiefError) {
            return try Realm(environment: environment!, configuration: configuration)
        } catch let error where error.code == .schemaMismatch && configuration.deleteIfMigrationNeeded && configuration.inMemoryIdentifier == nil && !configuration.readOnly {
            let path = environment!.path
            // Only this call may hold the environment: another realm of this
            // process on the file keeps it from being deleted.
            guard isKnownUniquelyReferenced(&environment) else {
                throw FiefError(.fileLocked, "the schema needs a migration, and '\(path)' cannot be deleted while another realm of this process has it open (\(error.message))", path: path)
            }
            environment = nil
            _ = try Realm.deleteFiles(path: path, force: true)
            let fresh = try EnvironmentRegistry.open(path: path, readOnly: false)
            return try Realm(environment: fresh, configuration: configuration)
        }
    }

    /// Delete a realm's data and lock files.  Returns whether the data file existed.
    public static func deleteFiles(path: String, force: Bool = false) throws(FiefError) -> Bool {
        if !force && EnvironmentRegistry.isOpen(path: path) {
            throw FiefError(.fileLocked, "'\(path)' is open in this process; release every handle on it first", path: path)
        }
        var existed = false
        // First, while the file's inode still names the fallback pipe.
        CommitPipe.remove(forFile: path)
        if unlink(path) == 0 {
            existed = true
        } else if errno != ENOENT {
            throw FiefError(errno == EISDIR ? .invalidArgument : .filePermission, "cannot delete '\(path)': \(String(cString: strerror(errno)))", path: path)
        }
        if unlink(path + "-lock") != 0 && errno != ENOENT {
            throw FiefError(.filePermission, "cannot delete '\(path)-lock': \(String(cString: strerror(errno)))", path: path)
        }
        return existed
    }

    private init(environment: Environment, configuration: RealmConfiguration) throws(FiefError) {
        self.environment = environment
        self.configuration = configuration
        self.isFrozen = false
        self.isReadOnly = configuration.readOnly || environment.isReadOnly
        self.schema = Schema(classes: [])
        self.declaredLinkingObjects = configuration.schema?.linkingObjectsByClass ?? [:]
        notificationCenter = NotificationCenter.center(for: environment)
        let first = try Snapshot(environment: environment)
        let plan = try SchemaPlanner.plan(snapshot: first, configuration: configuration, readOnly: isReadOnly)
        if plan.needsWrite {
            try SchemaPlanner.apply(configuration: configuration, environment: environment)
            // A commit like any other: observers here and in other processes
            // learn of the new schema.
            notificationCenter?.didCommit()
        }
        snapshot = try freshSnapshot()
    }

    /// A frozen realm reading `snapshot`.
    private init(frozenFrom source: Realm, snapshot: Snapshot) {
        environment = source.environment
        configuration = source.configuration
        isFrozen = true
        isReadOnly = true
        schema = source.schema
        declaredLinkingObjects = source.declaredLinkingObjects
        tables = source.tables
        schemaVersion = source.schemaVersion
        tablesByKey = source.tablesByKey
        tablesByName = source.tablesByName
        schemaGeneration = source.schemaGeneration
        self.snapshot = snapshot
        notificationCenter = nil
    }

    /// A frozen realm reading `snapshot`, a version of this realm's file
    /// (a notifier's base or newest version), with this realm's schema
    /// brought to the snapshot's.  Under the lock (for a live realm).
    func frozen(at snapshot: Snapshot) throws(FiefError) -> Realm {
        let made = Realm(frozenFrom: self, snapshot: snapshot)
        if snapshot.schemaGeneration != schemaGeneration { try made.loadSchema(from: snapshot) }
        return made
    }

    /// A live realm on the same file as `source`, at the newest version.
    private init(thawing source: Realm) throws(FiefError) {
        environment = source.environment
        var configuration = source.configuration
        configuration.schema = nil
        self.configuration = configuration
        isFrozen = false
        isReadOnly = source.configuration.readOnly || source.environment.isReadOnly
        schema = Schema(classes: [])
        declaredLinkingObjects = source.declaredLinkingObjects
        notificationCenter = NotificationCenter.center(for: environment)
        snapshot = try freshSnapshot()
    }

    deinit {
        // First: a thread exiting right now cancels through the token, or
        // not at all.
        exitTokenIfMade?.clear()
        deliveryChannel?.close()
        if write != nil { cancelWrite() }
        lock.destroy()
    }

    /// This realm as `ThreadExitHook` holds it (made on the first write).
    var exitToken: ExitToken {
        if let exitTokenIfMade { return exitTokenIfMade }
        let made = ExitToken(self)
        exitTokenIfMade = made
        return made
    }

    /// Read the schema stored in `snapshot` and open its databases.
    private func loadSchema(from snapshot: Snapshot) throws(FiefError) {
        try loadSchema(txn: snapshot.txn, generation: snapshot.schemaGeneration)
    }

    /// Read the schema stored as `txn` sees it and open its databases.
    func loadSchema(txn: OpaquePointer, generation: UInt64) throws(FiefError) {
        guard let meta = try environment.database(MetaKeys.database, txn: txn, create: false).flatMap({ Environment.isUsable($0, in: txn) ? $0 : nil }),
              let bytes = try SchemaRecord.read(txn, meta, format: SchemaRecord.format(txn, meta), path: environment.path) else {
            schema = Schema(classes: [])
            tables = [:]
            tablesByKey = []
            tablesByName = [:]
            schemaGeneration = generation
            return
        }
        let stored = try SchemaCoding.decode(bytes, path: environment.path)
        schemaVersion = try MetaKeys.readUInt64(txn, meta, MetaKeys.schemaVersion) ?? 0
        var newTables: [UInt32: Table] = [:]
        for objectClass in stored.classes {
            if let existing = tables[objectClass.key], existing.objectClass == objectClass,
               (existing.backlinks != nil) == Backlinks.isTarget(objectClass, in: stored) {
                newTables[objectClass.key] = existing
                continue
            }
            newTables[objectClass.key] = try openTable(objectClass, schema: stored, txn: txn, create: false)
        }
        schema = stored.addingLinkingObjects(declaredLinkingObjects)
        tables = newTables
        var byKey = [Table?](repeating: nil, count: Int(newTables.keys.max() ?? 0) + 1)
        for (key, table) in newTables { byKey[Int(key)] = table }
        tablesByKey = byKey
        tablesByName = Dictionary(uniqueKeysWithValues: newTables.values.map { ($0.objectClass.name, $0) })
        schemaGeneration = generation
    }

    func openTable(_ objectClass: ObjectClass, schema: Schema, txn: OpaquePointer, create: Bool) throws(FiefError) -> Table {
        let key = objectClass.key
        guard let data = try environment.database(Table.dataName(key), txn: txn, create: create, integerKey: true) else {
            throw FiefError(.fileNotFief, "the data of class '\(objectClass.name)' is missing from '\(environment.path)'", path: environment.path)
        }
        var pkDatabase: MDB_dbi?
        if let pk = objectClass.primaryKey {
            pkDatabase = try environment.database(Table.primaryKeyName(key, pk.key), txn: txn, create: create, integerKey: pk.type == .int && !pk.isNullable)
            if pkDatabase == nil {
                throw FiefError(.fileNotFief, "the primary-key index of class '\(objectClass.name)' is missing", path: environment.path)
            }
        }
        var indexes: [UInt32: MDB_dbi] = [:]
        for property in objectClass.properties where property.isIndexed && !property.isPrimaryKey {
            guard let dbi = try environment.database(Table.indexName(key, property.key), txn: txn, create: create, dupSort: true) else {
                throw FiefError(.fileNotFief, "the index of '\(objectClass.name).\(property.name)' is missing", path: environment.path)
            }
            indexes[property.key] = dbi
        }
        var fullTextIndexes: [UInt32: MDB_dbi] = [:]
        for property in objectClass.properties where property.isFullTextIndexed {
            guard let dbi = try environment.database(Table.fullTextName(key, property.key), txn: txn, create: create, dupSort: true) else {
                throw FiefError(.fileNotFief, "the full-text index of '\(objectClass.name).\(property.name)' is missing", path: environment.path)
            }
            fullTextIndexes[property.key] = dbi
        }
        var backlinks: MDB_dbi?
        if Backlinks.isTarget(objectClass, in: schema) {
            guard let dbi = try environment.database(Table.backlinksName(key), txn: txn, create: create) else {
                throw FiefError(.fileNotFief, "the links to class '\(objectClass.name)' are missing from '\(environment.path)'", path: environment.path)
            }
            backlinks = dbi
        }
        var collections: [(property: Property, database: MDB_dbi)] = []
        var names = [Table.dataName(key)]
        for property in objectClass.properties {
            guard let name = Table.collectionName(key, property) else { continue }
            guard let dbi = try environment.database(name, txn: txn, create: create) else {
                throw FiefError(.fileNotFief, "the \(property.collection.name) '\(objectClass.name).\(property.name)' is missing from '\(environment.path)'", path: environment.path)
            }
            collections.append((property, dbi))
            names.append(name)
        }
        if backlinks != nil { names.append(Table.backlinksName(key)) }
        var nested: MDB_dbi?
        if Table.holdsNested(objectClass) {
            // Absent from files written before nested collections (they hold none).
            nested = try environment.database(Table.nestedName(key), txn: txn, create: create)
            if nested != nil { names.append(Table.nestedName(key)) }
        }
        if let pk = objectClass.primaryKey { names.append(Table.primaryKeyName(key, pk.key)) }
        for property in objectClass.properties where property.isIndexed && !property.isPrimaryKey {
            names.append(Table.indexName(key, property.key))
        }
        for property in objectClass.properties where property.isFullTextIndexed { names.append(Table.fullTextName(key, property.key)) }
        // A writable open builds a missing spatial index (SchemaPlanner); a
        // read-only one without it scans.
        var geoIndex: MDB_dbi?
        if let (_, coordinates) = objectClass.geoIndexedProperties {
            geoIndex = try environment.database(Table.geoIndexName(key, coordinates.key), txn: txn, create: create)
            if geoIndex != nil { names.append(Table.geoIndexName(key, coordinates.key)) }
        }
        let damage = environment.damage(in: names).map {
            FiefError(.fileCorrupt, "class '\(objectClass.name)' cannot be read: \($0.message)", path: $0.path)
        }
        return Table(objectClass: objectClass, data: data, primaryKeyDatabase: pkDatabase, indexDatabases: indexes,
                     schema: schema, backlinks: backlinks, collections: collections, nested: nested, damage: damage,
                     fullTextDatabases: fullTextIndexes, geoIndex: geoIndex)
    }

    // MARK: State checks

    @inline(__always)
    func checkOpen() throws(FiefError) {
        if isClosed { throw FiefError(.closed, "the realm was closed") }
    }

    /// Check that the calling thread may read: the write transaction, if
    /// any, belongs to it.
    @inline(__always)
    func checkReadable() throws(FiefError) {
        if isClosed { throw FiefError(.closed, "the realm was closed") }
        if let write, pthread_equal(write.thread, pthread_self()) == 0 {
            throw FiefError(.wrongThread, "the realm's write transaction belongs to another thread")
        }
    }

    /// The open write transaction, or the error saying why there is none.
    @inline(__always)
    func requireWrite() throws(FiefError) -> WriteTransaction {
        if isClosed { throw FiefError(.closed, "the realm was closed") }
        guard let write else {
            if isFrozen { throw FiefError(.frozen, "a frozen realm cannot be written") }
            if isReadOnly { throw FiefError(.readOnly, "the realm is read-only") }
            throw FiefError(.notInTransaction, "cannot write outside a write transaction; begin one first")
        }
        if pthread_equal(write.thread, pthread_self()) == 0 {
            throw FiefError(.wrongThread, "the realm's write transaction belongs to another thread")
        }
        if let failure = write.failure { throw failure }
        return write
    }

    /// The read snapshot, started if the realm has none (after open, commit or invalidate).
    @inline(__always)
    func currentSnapshot() throws(FiefError) -> Snapshot {
        if let snapshot { return snapshot }
        let fresh = try freshSnapshot()
        snapshot = fresh
        return fresh
    }

    /// A new snapshot at the newest commit, with this realm's schema brought
    /// up to it.  Loading a changed schema may open database handles, which
    /// a transaction begun earlier cannot use: then it starts over.
    func freshSnapshot() throws(FiefError) -> Snapshot {
        while true {
            let fresh = try Snapshot(environment: environment)
            if fresh.schemaGeneration != schemaGeneration || tables.isEmpty {
                try loadSchema(from: fresh)
            }
            if fresh.handleGeneration == environment.currentHandleGeneration { return fresh }
        }
    }

    /// Whether class `key` exists (without touching its table object).
    @inline(__always)
    func hasTable(_ key: UInt32) -> Bool {
        let index = Int(key)
        return index < tablesByKey.count && tablesByKey[index] != nil
    }

    @inline(__always)
    func table(_ key: UInt32) throws(FiefError) -> Table {
        let index = Int(key)
        if index < tablesByKey.count, let table = tablesByKey[index] {
            if let damage = table.damage { throw damage }
            return table
        }
        throw FiefError(.noSuchClass, "the realm has no class with key \(key)")
    }

    public func table(named name: String) -> UInt32? { tablesByName[name]?.key }

    /// Everything this realm reads may have changed (new snapshot, schema).
    func bumpStamp() {
        stamp &+= 1
        viewStamp = stamp
    }

    /// Objects of `table` were created or deleted.
    @inline(__always)
    func noteMembershipChange(_ table: UInt32) {
        stamp &+= 1
        membershipStamps.set(UInt64(table), stamp)
    }

    /// Values of one column of `table` changed.
    @inline(__always)
    func noteColumnChange(_ table: UInt32, _ column: UInt32) {
        stamp &+= 1
        columnStamps.set(UInt64(table) << 32 | UInt64(column), stamp)
    }

    /// Whether results of `table` depending on `columns`, evaluated at
    /// `evaluatedAt`, still hold.
    @inline(__always)
    func isUnchanged(since evaluatedAt: UInt64, table: UInt32, columns: [UInt32]) -> Bool {
        if evaluatedAt == 0 || viewStamp > evaluatedAt { return false }
        if stamp == evaluatedAt { return true }
        if membershipStamps.get(UInt64(table)) > evaluatedAt { return false }
        for column in columns {
            if columnStamps.get(UInt64(table) << 32 | UInt64(column)) > evaluatedAt { return false }
        }
        return true
    }

    // MARK: Versions

    /// The version this realm reads (inside a write: the one the commit creates).
    public func version() throws(FiefError) -> UInt64 {
        try checkReadable()
        if let write { return write.version + 1 }
        return try currentSnapshot().version
    }

    public var path: String { environment.path }

    /// The thread that owns the open write transaction, if any.
    public var writeThread: pthread_t? { write?.thread }

    /// Fail if the realm was closed.
    public func checkOpenForC() throws(FiefError) { try checkOpen() }
    public var isInWriteTransaction: Bool { write != nil }

    /// Move to the newest version.  Returns whether the version changed.
    public func refresh() throws(FiefError) -> Bool {
        try checkOpen()
        if isFrozen { return false }
        if write != nil { throw FiefError(.alreadyInTransaction, "cannot refresh inside a write transaction") }
        let old = snapshot?.version
        let fresh = try freshSnapshot()
        if let old, fresh.version == old, snapshot != nil { return false }
        snapshot = fresh
        bumpStamp()
        return old != fresh.version
    }

    /// Drop the read snapshot until the next read.
    public func invalidate() throws(FiefError) {
        try checkOpen()
        if write != nil { throw FiefError(.alreadyInTransaction, "cannot invalidate inside a write transaction") }
        if isFrozen { return }
        snapshot = nil
        bumpStamp()
    }

    /// Add classes and properties to the realm's schema (additive changes
    /// only; the schema version stays).  Inside a write transaction the change
    /// is part of it (a cancel undoes it); outside, it commits on its own.
    public func updateSchema(_ requested: Schema) throws(FiefError) {
        try checkOpen()
        if isFrozen { throw FiefError(.frozen, "a frozen realm's schema cannot change") }
        if isReadOnly { throw FiefError(.readOnly, "a read-only realm's schema cannot change") }
        try requested.validate()
        let declared = try declaredLinkingObjects(updatedBy: requested)
        var configuration = RealmConfiguration()
        configuration.schema = requested
        if let write {
            if pthread_equal(write.thread, pthread_self()) == 0 {
                throw FiefError(.wrongThread, "the realm's write transaction belongs to another thread")
            }
            var opened: [String] = []
            do throws(FiefError) {
                try write.settleEntries()
                try Backlinks.settleAll(write)
                let changed = try SchemaPlanner.applyInTransaction(write.txn, configuration: configuration, environment: environment, opened: &opened, keepVersion: true, inWrite: true)
                write.openedDatabases += opened
                if changed {
                    write.changedSchema = true
                    let generation = try MetaKeys.readUInt64(write.txn, write.meta, MetaKeys.schemaGeneration) ?? 0
                    try loadSchema(txn: write.txn, generation: generation)
                }
            } catch {
                write.openedDatabases += opened
                throw poison(write, error)
            }
            addLinkingObjects(declared)
            bumpStamp()
            return
        }
        try SchemaPlanner.applyKeepingVersion(configuration: configuration, environment: environment)
        notificationCenter?.didCommit()
        snapshot = try freshSnapshot()
        addLinkingObjects(declared)
        bumpStamp()
    }

    /// The linking-objects properties this realm declares once `requested`
    /// is applied: those it declared, with those of `requested` added or
    /// replacing theirs of the same name (they are not stored, so leaving
    /// one out of an update keeps it).  Throws `.invalidSchema` when a
    /// stored property `requested` adds takes the name of a declared one.
    private func declaredLinkingObjects(updatedBy requested: Schema) throws(FiefError) -> [String: [LinkingObjectsProperty]] {
        var declared = declaredLinkingObjects
        for objectClass in requested.classes {
            var list = declared[objectClass.name] ?? []
            list.removeAll { objectClass.linkingObjects(named: $0.name) != nil }
            if let clash = list.first(where: { objectClass.property(named: $0.name) != nil }) {
                throw FiefError(.invalidSchema, "property '\(objectClass.name).\(clash.name)' is defined twice: the realm has a linking-objects property of that name")
            }
            list += objectClass.linkingObjects
            declared[objectClass.name] = list.isEmpty ? nil : list
        }
        return declared
    }

    /// Declare `declared` and add them to the schema as it is now.
    private func addLinkingObjects(_ declared: [String: [LinkingObjectsProperty]]) {
        declaredLinkingObjects = declared
        schema = schema.addingLinkingObjects(declared)
    }

    /// Whether this realm declares any linking-objects property (queries
    /// look names up among them only then).
    var declaresLinkingObjects: Bool { !declaredLinkingObjects.isEmpty }

    /// The linking-objects property `name` of the objects of `table`, if
    /// this realm declares one (nil when the class has a stored property of
    /// that name).
    func linkingObjects(named name: String, of table: Table) -> LinkingObjectsProperty? {
        guard let list = declaredLinkingObjects[table.objectClass.name], list.contains(where: { $0.name == name }) else { return nil }
        return schema.objectClass(named: table.objectClass.name)?.linkingObjects(named: name)
    }

    /// Write a compacted copy of this realm's version to `path` (a new
    /// file), leaving out and reporting any damaged data (see `FileCopy`).
    /// Returns the number of problems reported.
    public func writeCopy(to path: String, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        try checkOpen()
        if write != nil { throw FiefError(.alreadyInTransaction, "cannot write a copy inside a write transaction; commit or cancel it first") }
        let current = try currentSnapshot()
        if current.isShared {
            return try current.lock.withLock { () throws(FiefError) -> Int in
                try FileCopy.copy(environment: environment, txn: current.txn, to: path, report: report)
            }
        }
        return try FileCopy.copy(environment: environment, txn: current.txn, to: path, report: report)
    }

    /// A frozen realm at this realm's version; inside a write transaction,
    /// at the version the transaction began from (its writes unseen).
    public func freeze() throws(FiefError) -> Realm {
        try checkOpen()
        if isFrozen { return self }
        if let write {
            // Frozen at the version the write began from (Realm's rule): the
            // newest committed version, since this realm holds the writer lock.
            let before = try Snapshot(environment: environment)
            guard before.version == write.version, write.changedSchema || before.schemaGeneration == schemaGeneration else {
                throw FiefError(.internal, "the version a write transaction began from is not the newest committed one")
            }
            let frozen = Realm(frozenFrom: self, snapshot: before)
            if write.changedSchema {
                // The write added classes or properties: the frozen realm has
                // the schema of its version, without them (they had no values
                // then).  Tables the write left as they were are shared.
                try frozen.loadSchema(txn: before.txn, generation: before.schemaGeneration)
            }
            return frozen
        }
        let current = try currentSnapshot()
        let fresh = try Snapshot(environment: environment)
        if fresh.version == current.version && fresh.schemaGeneration == current.schemaGeneration
            && fresh.handleGeneration == environment.currentHandleGeneration {
            return Realm(frozenFrom: self, snapshot: fresh)
        }
        current.isShared = true
        return Realm(frozenFrom: self, snapshot: current)
    }

    /// A frozen realm for a notifier's worker thread: this realm's schema
    /// and tables, reading the snapshots the worker gives it
    /// (`moveWorker(to:)`).  Under the lock.
    func notifierCopy() throws(FiefError) -> Realm {
        let first = try Snapshot(environment: environment)
        let copy = Realm(frozenFrom: self, snapshot: first)
        if first.schemaGeneration != schemaGeneration { try copy.loadSchema(from: first) }
        return copy
    }

    /// On a notifier's worker: read `snapshot` from now on (its schema
    /// loaded if it changed).  Returns the version read: a newer one when
    /// the schema change opened databases `snapshot` cannot use.
    func moveWorker(to snapshot: Snapshot) throws(FiefError) -> UInt64 {
        if snapshot.schemaGeneration != schemaGeneration {
            try loadSchema(from: snapshot)
        }
        if snapshot.handleGeneration != environment.currentHandleGeneration {
            let fresh = try freshSnapshot()
            self.snapshot = fresh
            bumpStamp()
            return fresh.version
        }
        self.snapshot = snapshot
        bumpStamp()
        return snapshot.version
    }

    /// Whether this realm reads version `version`, outside a write (what a
    /// notifier's delivery needs to hand its rows over).
    func reads(version: UInt64) -> Bool {
        write == nil && !isClosed && snapshot?.version == version
    }

    /// A live realm at the newest version (self if live).
    public func thaw() throws(FiefError) -> Realm {
        try checkOpen()
        if !isFrozen { return self }
        return try Realm(thawing: self)
    }

    /// Close: cancel any write, release the snapshot; later calls fail.
    public func close() {
        if isClosed { return }
        if write != nil { cancelWrite() }
        deliveryChannel?.close()
        snapshot = nil
        isClosed = true
        bumpStamp()
    }
}

/// `ThreadExitHook` cancels a realm's write transaction when the thread
/// that began it exits (`cancelWriteOfExitingThread`, Realm+Write.swift).
extension Realm: ExitCancellable {}

/// The properties a create names, resolved against one table.
final class CreateProperties {
    let table: Table
    let keys: [UInt32]
    let properties: [Property]
    let primaryKeyColumn: Int

    init(table: Table, keys: [UInt32], properties: [Property], primaryKeyColumn: Int) {
        self.table = table
        self.keys = keys
        self.properties = properties
        self.primaryKeyColumn = primaryKeyColumn
    }
}

/// Stamps by 64-bit key: a small open-addressing table without hashing
/// overhead, for the per-write bookkeeping of live results.
struct StampTable {
    private var keys = [UInt64](repeating: .max, count: 64)
    private var values = [UInt64](repeating: 0, count: 64)
    private var count = 0

    @inline(__always)
    private func bucket(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    /// The stamp of `key`, 0 if it has none.
    @inline(__always)
    func get(_ key: UInt64) -> UInt64 {
        let mask = keys.count - 1
        var i = bucket(key, mask)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == .max { return 0 }
            i = (i + 1) & mask
        }
    }

    @inline(__always)
    mutating func set(_ key: UInt64, _ value: UInt64) {
        let mask = keys.count - 1
        var i = bucket(key, mask)
        while true {
            let k = keys[i]
            if k == key { values[i] = value; return }
            if k == .max { break }
            i = (i + 1) & mask
        }
        keys[i] = key
        values[i] = value
        count += 1
        if count * 2 > keys.count { grow() }
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: .max, count: oldKeys.count * 2)
        values = [UInt64](repeating: 0, count: oldKeys.count * 2)
        count = 0
        for i in 0..<oldKeys.count where oldKeys[i] != .max { set(oldKeys[i], oldValues[i]) }
    }
}
