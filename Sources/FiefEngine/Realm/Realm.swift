import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// What to open: a file or an in-memory identifier, and the schema to hold.
/// How hard a commit works to survive a power loss.  Raw values are the C
/// ABI's `FIEF_DURABILITY_*`.
public enum Durability: Int32, Sendable {
    /// Sync the data, then the new root: every returned commit survives.
    case full = 0
    /// Sync the data only: a power loss may undo the last commit, never damage the file.
    case normal = 1
}

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

    public init() {}
}

/// The key of one chunk: a class and the chunk's key in the class's data database.
struct ChunkID: Hashable {
    var table: UInt32
    var key: UInt64
}

/// One read snapshot: an LMDB read transaction and the chunks already looked up in it.
final class Snapshot: @unchecked Sendable {
    let environment: Environment
    let txn: OpaquePointer
    let version: UInt64
    let schemaGeneration: UInt64
    /// Set once, before a second realm (a frozen one) starts using this snapshot;
    /// from then on lookups take `lock`.
    var isShared = false
    let lock = Lock()
    @exclusivity(unchecked) private var cache = ChunkMap<ChunkReader>(capacity: 256)
    /// The part lists of chunks read in parts.
    let partTables = ChunkPartTables()
    /// The lists read in this snapshot (used under `lock` when shared).
    @exclusivity(unchecked) var lists: [ListID: ListState] = [:]
    /// The sets and maps read in this snapshot (used under `lock` when shared).
    @exclusivity(unchecked) var collectionEntries: [ListID: CollectionEntries] = [:]
    /// Cursors kept for lookups (primary keys, indexes, backlinks), by
    /// database handle (LMDB's handles are small indexes).
    @exclusivity(unchecked) private var cursors: [LMDBCursor?] = []
    /// Cursors over columns' chunks, by database << 32 | column.
    @exclusivity(unchecked) private var columnCursors: [UInt64: ColumnCursor] = [:]
    @exclusivity(unchecked) private var lastColumnCursorKey: UInt64 = .max
    @exclusivity(unchecked) private var lastColumnCursor: ColumnCursor?
    /// Where the runs of backlinks database `dbi` lie in this snapshot
    /// (the caller holds `lock` if the snapshot is shared).
    func runDirectory(_ dbi: MDB_dbi) -> Backlinks.RunDirectory {
        let i = Int(dbi)
        if i < runDirectories.count, let known = runDirectories[i] { return known }
        let made = Backlinks.RunDirectory()
        if i >= runDirectories.count { runDirectories.append(contentsOf: repeatElement(nil, count: i + 1 - runDirectories.count)) }
        runDirectories[i] = made
        return made
    }

    /// The backlink runs whose checksum was checked in this snapshot (the
    /// caller holds `lock` if the snapshot is shared).
    var checkedRuns: Backlinks.CheckedRuns {
        if let checked = checkedRunsIfAny { return checked }
        let made = Backlinks.CheckedRuns()
        checkedRunsIfAny = made
        return made
    }

    /// The handle generation of the environment when the transaction began.
    let handleGeneration: UInt64
    /// Where the file's pages are mapped as of this snapshot.
    private(set) var bounds: MapBounds
    /// The backlink runs checked in this snapshot, and per backlinks
    /// database (by handle) where its runs lie, once made.
    @exclusivity(unchecked) private var checkedRunsIfAny: Backlinks.CheckedRuns?
    @exclusivity(unchecked) private var runDirectories: [Backlinks.RunDirectory?] = []

    /// Begin a read transaction at the newest commit.  The meta database's
    /// handle is opened first if needed, so the transaction can use it.
    init(environment: Environment) throws(FiefError) {
        self.environment = environment
        if environment.openedDatabase(MetaKeys.database) == nil {
            // Opens it if it exists (a new file has none until its first commit).
            let probe = try environment.beginTransaction(write: false)
            defer { mdb_txn_abort(probe) }
            _ = try environment.database(MetaKeys.database, txn: probe, create: false)
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
    @inline(__always)
    func withCursor<T>(_ dbi: MDB_dbi, _ body: (LMDBCursor) throws(FiefError) -> T) throws(FiefError) -> T {
        if isShared { return try lock.withLock { () throws(FiefError) in try body(try cursor(dbi)) } }
        return try body(try cursor(dbi))
    }

    /// Run `body` with this snapshot's read transaction (under `lock` when
    /// the snapshot is shared).
    func withTransaction<T>(_ body: (OpaquePointer) throws(FiefError) -> T) throws(FiefError) -> T {
        if isShared { return try lock.withLock { () throws(FiefError) in try body(txn) } }
        return try body(txn)
    }

    /// This snapshot's cursor on `dbi`; the caller holds `lock` if the
    /// snapshot is shared (a chunk check inside `chunk(_:dbi:check:)` does).
    @inline(__always)
    func cursor(_ dbi: MDB_dbi) throws(FiefError) -> LMDBCursor {
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
    @inline(__always)
    func chunk(_ id: ChunkID, read: () throws(FiefError) -> ChunkReader) throws(FiefError) -> ChunkReader {
        if isShared {
            return try lock.withLock { () throws(FiefError) in try lookup(id, read: read) }
        }
        return try lookup(id, read: read)
    }

    @inline(__always)
    private func lookup(_ id: ChunkID, read: () throws(FiefError) -> ChunkReader) throws(FiefError) -> ChunkReader {
        if let cached = cache[id] { return cached }
        let found = try read()
        cache[id] = found
        return found
    }

    /// This snapshot's cursor over the chunks of `column` in `dbi` (the
    /// caller holds `lock` if the snapshot is shared).
    @inline(__always)
    func columnCursor(_ dbi: MDB_dbi, column: UInt32) throws(FiefError) -> ColumnCursor {
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

/// Names in the `meta` database.
enum MetaKeys {
    static let database = "meta"
    static let magic = "magic"
    static let magicValue: [UInt8] = Array("FIEF".utf8)
    static let format = "format"
    static let formatValue: UInt64 = 8
    static let version = "version"
    static let schema = "schema"
    static let schemaVersion = "schemaVersion"
    static let schemaGeneration = "schemaGeneration"
    static let nextClassKey = "nextClassKey"
    /// The LMDB transaction id of the last commit (see `Snapshot.init`).
    static let committedTransaction = "committedTransaction"
    static func nextObjectKey(_ table: UInt32) -> String { "nextObjectKey.\(table)" }
    /// The number of objects of a class (format 2), checked by full scans.
    static func objectCount(_ table: UInt32) -> String { "objectCount.\(table)" }

    static func readUInt64(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String) throws(FiefError) -> UInt64? {
        let bytes = try readBytes(txn, dbi, name)
        guard let bytes else { return nil }
        guard bytes.count == 8 else { throw FiefError(.fileNotFief, "meta value '\(name)' is damaged") }
        return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
    }

    static func readBytes(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String) throws(FiefError) -> UnsafeRawBufferPointer? {
        var name = name
        return try typed { try name.withUTF8 { (key) in try LMDB.get(txn, dbi, UnsafeRawBufferPointer(key)) } }
    }

    static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String, _ value: UInt64) throws(FiefError) {
        var v = value.littleEndian
        try withUnsafeBytes(of: &v) { (raw) throws(FiefError) in try write(txn, dbi, name, raw) }
    }

    static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ name: String, _ value: UnsafeRawBufferPointer) throws(FiefError) {
        var name = name
        try typed { try name.withUTF8 { (key) in
            _ = try LMDB.put(txn, dbi, UnsafeRawBufferPointer(key), value)
        } }
    }
}

/// What the hot paths need of a property: no name, so copying it costs no
/// reference counting.
struct Column {
    let key: UInt32
    /// The type of the column's values: the property's, or for a collection
    /// `.int`, its size.
    let type: PropertyType
    let flags: PropertyFlags
    /// For a link or a collection of links: the key of the class it points to (0 otherwise).
    let linkTarget: UInt32
    let collection: CollectionKind
    /// The type of a collection's elements (the property's type).
    let elementType: PropertyType
    private let elementNullable: Bool

    init(_ property: Property, linkTarget: UInt32 = 0) {
        key = property.key
        elementNullable = property.isNullable
        collection = property.collection
        elementType = property.type
        type = property.collection == .none ? property.type.chunkType : .int
        // A mixed value may always be null.
        flags = property.collection == .none ? property.flags.union(property.type == .mixed ? .nullable : []) : []
        self.linkTarget = linkTarget
        isMixed = property.collection == .none && property.type == .mixed
    }

    /// Whether elements of the collection may be null (mixed ones always may).
    var elementsNullable: Bool { collection != .none && (elementNullable || elementType == .mixed) }

    /// Whether the column holds one mixed value per object (coded in a
    /// binary chunk); stored, as `slotValue` asks it on every read.
    let isMixed: Bool

    var isNullable: Bool { flags.contains(.nullable) }
    var isPrimaryKey: Bool { flags.contains(.primaryKey) }
    /// A secondary index (primary keys have their own table).
    var hasIndex: Bool { flags.contains(.indexed) && !flags.contains(.primaryKey) }
    /// A full-text index (see `FullTextIndex`).
    var hasFullTextIndex: Bool { flags.contains(.fullTextIndexed) }
    /// The `type` or `coordinates` of an embedded GeoJSON point class with
    /// a spatial index: its writes keep the index (see `GeoIndex`).
    var feedsGeoIndex = false
}

/// How one class is stored: its databases and its properties by key.
final class Table: @unchecked Sendable {
    let objectClass: ObjectClass
    let key: UInt32
    let data: MDB_dbi
    let primaryKeyDatabase: MDB_dbi?
    let primaryKey: Property?
    /// Non-optional int primary keys use an MDB_INTEGERKEY database.
    let integerPrimaryKey: Bool
    let indexDatabases: [UInt32: MDB_dbi]
    /// The full-text index of each full-text-indexed property, by property key.
    let fullTextDatabases: [UInt32: MDB_dbi]
    /// The spatial index of an embedded GeoJSON point class (see
    /// `GeoIndex`); nil for other classes, and in a file opened read-only
    /// that lacks it (queries then scan).
    let geoIndex: GeoIndexInfo?
    /// Set when the pages of one of the class's trees are damaged (see
    /// `PageCheck`): every use of the class then fails with it.
    let damage: FiefError?
    private let propertySlots: [Int]   // property key -> index into objectClass.properties, -1 if none
    /// Columns by property key (`columnCount` entries; key 0 and gaps have no property).
    private let columns: UnsafeMutablePointer<Column?>
    private let columnCount: Int

    /// The objects of other classes (and this one) linking to this class's
    /// objects (see `Backlinks`); nil while no link points to the class.
    let backlinks: MDB_dbi?
    /// The link columns of this class: (property, target class key).
    let links: [(property: Property, target: UInt32)]
    /// The (origin class << 32 | origin property) pairs that may link to
    /// this class: links to it, and mixed values when it is not embedded.
    /// A backlink run naming another is damage (a page of another class's
    /// backlinks found in place of one of this class's: `Backlinks.forEach`).
    let backlinkPairs: Set<UInt64>

    /// The mixed (single-value) properties of this class.
    let mixedProperties: [Property]

    /// The list properties of this class and the database of each one's segments.
    let lists: [(property: Property, database: MDB_dbi)]
    /// The set properties and the database of each one's elements.
    let sets: [(property: Property, database: MDB_dbi)]
    /// The map properties and the database of each one's entries.
    let maps: [(property: Property, database: MDB_dbi)]
    /// The nested collections of this class's mixed values (see
    /// `NestedStore`); nil when no property can hold one, or in a file
    /// written before they existed (which then holds none).
    let nested: MDB_dbi?

    init(objectClass: ObjectClass, data: MDB_dbi, primaryKeyDatabase: MDB_dbi?, indexDatabases: [UInt32: MDB_dbi],
         schema: Schema, backlinks: MDB_dbi? = nil, collections: [(property: Property, database: MDB_dbi)] = [],
         nested: MDB_dbi? = nil, damage: FiefError? = nil, fullTextDatabases: [UInt32: MDB_dbi] = [:], geoIndex: MDB_dbi? = nil) {
        self.backlinks = backlinks
        var pairs: Set<UInt64> = []
        if backlinks != nil {
            for origin in schema.classes {
                for property in origin.properties where property.linkTarget == objectClass.name || (property.type == .mixed && !objectClass.isEmbedded) {
                    pairs.insert(UInt64(origin.key) << 32 | UInt64(property.key))
                }
            }
        }
        backlinkPairs = pairs
        self.fullTextDatabases = fullTextDatabases
        if let geoIndex, let (type, coordinates) = objectClass.geoIndexedProperties {
            self.geoIndex = GeoIndexInfo(database: geoIndex, type: type, coordinates: coordinates)
        } else {
            self.geoIndex = nil
        }
        self.nested = nested
        self.damage = damage
        self.objectClass = objectClass
        self.key = objectClass.key
        self.data = data
        self.primaryKeyDatabase = primaryKeyDatabase
        self.primaryKey = objectClass.primaryKey
        self.integerPrimaryKey = primaryKey.map { $0.type == .int && !$0.isNullable } ?? false
        self.indexDatabases = indexDatabases
        let maxKey = objectClass.properties.map { Int($0.key) }.max() ?? 0
        var slots = [Int](repeating: -1, count: maxKey + 1)
        for (i, p) in objectClass.properties.enumerated() { slots[Int(p.key)] = i }
        propertySlots = slots
        columnCount = maxKey + 1
        columns = .allocate(capacity: columnCount)
        columns.initialize(repeating: nil, count: columnCount)
        var links: [(property: Property, target: UInt32)] = []
        for p in objectClass.properties {
            let target = p.linkTarget.flatMap { schema.objectClass(named: $0)?.key } ?? 0
            columns[Int(p.key)] = Column(p, linkTarget: target)
            if p.type == .link && p.collection == .none { links.append((p, target)) }
        }
        self.links = links
        if let geo = self.geoIndex {
            columns[Int(geo.type.key)]?.feedsGeoIndex = true
            columns[Int(geo.coordinates.key)]?.feedsGeoIndex = true
        }
        self.mixedProperties = objectClass.properties.filter { $0.type == .mixed && $0.collection == .none }
        self.lists = collections.filter { $0.property.collection == .list }
        self.sets = collections.filter { $0.property.collection == .set }
        self.maps = collections.filter { $0.property.collection == .map }
    }

    deinit { columns.deallocate() }

    /// The column of property `key`.
    @inline(__always)
    func column(_ key: UInt32) throws(FiefError) -> Column {
        let k = Int(key)
        if k < columnCount, let column = columns[k] { return column }
        throw noSuchProperty(key)
    }

    @inline(__always)
    func property(_ key: UInt32) throws(FiefError) -> Property {
        let k = Int(key)
        if k < propertySlots.count, propertySlots[k] >= 0 { return objectClass.properties[propertySlots[k]] }
        throw noSuchProperty(key)
    }

    /// The error for property key `key`, which the class lacks.
    private func noSuchProperty(_ key: UInt32) -> FiefError {
        FiefError(.noSuchProperty, "class '\(objectClass.name)' has no property with key \(key)"
                  + (key == 0 ? " (no stored property has key 0; linking-objects properties, which have it, are computed from the links to an object and take no value)" : ""))
    }

    func property(named name: String) -> Property? { objectClass.property(named: name) }

    static func dataName(_ key: UInt32) -> String { "c\(key)" }
    static func primaryKeyName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).pk\(column)" }
    static func indexName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).i\(column)" }
    static func fullTextName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).t\(column)" }
    static func backlinksName(_ key: UInt32) -> String { "c\(key).b" }
    static func listName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).l\(column)" }
    static func setName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).s\(column)" }
    static func mapName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).m\(column)" }
    static func nestedName(_ key: UInt32) -> String { "c\(key).n" }

    /// Whether a class's values can hold nested collections: it has a mixed
    /// property, or a list or map of mixed values.
    static func holdsNested(_ objectClass: ObjectClass) -> Bool {
        objectClass.properties.contains { $0.type == .mixed && $0.collection != .set }
    }

    /// The nested collections' database (see `nested`).
    @inline(__always)
    func nestedDatabase() throws(FiefError) -> MDB_dbi {
        if let nested { return nested }
        throw FiefError(.fileFormat, "class '\(objectClass.name)' has no nested collections in this file: open it writable once to add them")
    }

    /// The database of a list, set or map property (nil for a value).
    static func collectionName(_ key: UInt32, _ property: Property) -> String? {
        switch property.collection {
        case .none: return nil
        case .list: return listName(key, property.key)
        case .set: return setName(key, property.key)
        case .map: return mapName(key, property.key)
        }
    }

    /// The database of list property `column`'s segments.
    @inline(__always)
    func listDatabase(_ column: UInt32) throws(FiefError) -> MDB_dbi {
        for entry in lists where entry.property.key == column { return entry.database }
        throw notA("list", column)
    }

    /// The database of set property `column`'s elements.
    @inline(__always)
    func setDatabase(_ column: UInt32) throws(FiefError) -> MDB_dbi {
        for entry in sets where entry.property.key == column { return entry.database }
        throw notA("set", column)
    }

    /// The database of map property `column`'s entries.
    @inline(__always)
    func mapDatabase(_ column: UInt32) throws(FiefError) -> MDB_dbi {
        for entry in maps where entry.property.key == column { return entry.database }
        throw notA("map", column)
    }

    private func notA(_ kind: String, _ column: UInt32) -> FiefError {
        FiefError(.invalidArgument, "property \((try? property(column).name).map { "'\(objectClass.name).\($0)'" } ?? "\(column) of '\(objectClass.name)'") is not a \(kind)")
    }
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
        let first = try Snapshot(environment: environment)
        let plan = try SchemaPlanner.plan(snapshot: first, configuration: configuration, readOnly: isReadOnly)
        if plan.needsWrite {
            try SchemaPlanner.apply(configuration: configuration, environment: environment)
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
        snapshot = try freshSnapshot()
    }

    deinit {
        // First: a thread exiting right now cancels through the token, or
        // not at all.
        exitTokenIfMade?.clear()
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
                try flushPendingMaps(write)
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
        snapshot = nil
        isClosed = true
        bumpStamp()
    }
}


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
