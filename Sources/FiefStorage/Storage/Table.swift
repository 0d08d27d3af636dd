import CLMDB

/// What the hot paths need of a property: no name, so copying it costs no
/// reference counting.
public struct Column {
    public let key: UInt32
    /// The type of the column's values: the property's, or for a collection
    /// `.int`, its size.
    public let type: PropertyType
    public let flags: PropertyFlags
    /// For a link or a collection of links: the key of the class it points to (0 otherwise).
    public let linkTarget: UInt32
    public let collection: CollectionKind
    /// The type of a collection's elements (the property's type).
    public let elementType: PropertyType
    private let elementNullable: Bool

    public init(_ property: Property, linkTarget: UInt32 = 0) {
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
    public var elementsNullable: Bool { collection != .none && (elementNullable || elementType == .mixed) }

    /// Whether the column holds one mixed value per object (coded in a
    /// binary chunk); stored, as `slotValue` asks it on every read.
    public let isMixed: Bool

    public var isNullable: Bool { flags.contains(.nullable) }
    public var isPrimaryKey: Bool { flags.contains(.primaryKey) }
    /// A secondary index (primary keys have their own table).
    public var hasIndex: Bool { flags.contains(.indexed) && !flags.contains(.primaryKey) }
    /// A full-text index (see `FullTextIndex`).
    public var hasFullTextIndex: Bool { flags.contains(.fullTextIndexed) }
    /// The `type` or `coordinates` of an embedded GeoJSON point class with
    /// a spatial index: its writes keep the index (see `GeoIndex`).
    public var feedsGeoIndex = false
}

/// How one class is stored: its databases and its properties by key.
public final class Table: @unchecked Sendable {
    public let objectClass: ObjectClass
    public let key: UInt32
    public let data: MDB_dbi
    public let primaryKeyDatabase: MDB_dbi?
    public let primaryKey: Property?
    /// Non-optional int primary keys use an MDB_INTEGERKEY database.
    public let integerPrimaryKey: Bool
    public let indexDatabases: [UInt32: MDB_dbi]
    /// The full-text index of each full-text-indexed property, by property key.
    public let fullTextDatabases: [UInt32: MDB_dbi]
    /// The spatial index of an embedded GeoJSON point class (see
    /// `GeoIndex`); nil for other classes, and in a file opened read-only
    /// that lacks it (queries then scan).
    public let geoIndex: GeoIndexInfo?
    /// Set when the pages of one of the class's trees are damaged (see
    /// `PageCheck`): every use of the class then fails with it.
    public let damage: FiefError?
    @usableFromInline let propertySlots: [Int]   // property key -> index into objectClass.properties, -1 if none
    /// Columns by property key (`columnCount` entries; key 0 and gaps have no property).
    @usableFromInline let columns: UnsafeMutablePointer<Column?>
    @usableFromInline let columnCount: Int

    /// The objects of other classes (and this one) linking to this class's
    /// objects (see `Backlinks`); nil while no link points to the class.
    public let backlinks: MDB_dbi?
    /// The link columns of this class: (property, target class key).
    public let links: [(property: Property, target: UInt32)]
    /// The (origin class << 32 | origin property) pairs that may link to
    /// this class: links to it, and mixed values when it is not embedded.
    /// A backlink run naming another is damage (a page of another class's
    /// backlinks found in place of one of this class's: `Backlinks.forEach`).
    public let backlinkPairs: Set<UInt64>

    /// The mixed (single-value) properties of this class.
    public let mixedProperties: [Property]

    /// The list properties of this class and the database of each one's segments.
    public let lists: [(property: Property, database: MDB_dbi)]
    /// The set properties and the database of each one's elements.
    public let sets: [(property: Property, database: MDB_dbi)]
    /// The map properties and the database of each one's entries.
    public let maps: [(property: Property, database: MDB_dbi)]
    /// The nested collections of this class's mixed values (see
    /// `NestedStore`); nil when no property can hold one, or in a file
    /// written before they existed (which then holds none).
    public let nested: MDB_dbi?

    public init(objectClass: ObjectClass, data: MDB_dbi, primaryKeyDatabase: MDB_dbi?, indexDatabases: [UInt32: MDB_dbi],
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
    @inlinable @inline(__always)
    public func column(_ key: UInt32) throws(FiefError) -> Column {
        let k = Int(key)
        if k < columnCount, let column = columns[k] { return column }
        throw noSuchProperty(key)
    }

    @inlinable @inline(__always)
    public func property(_ key: UInt32) throws(FiefError) -> Property {
        let k = Int(key)
        if k < propertySlots.count, propertySlots[k] >= 0 { return objectClass.properties[propertySlots[k]] }
        throw noSuchProperty(key)
    }

    /// The error for property key `key`, which the class lacks.
    @usableFromInline func noSuchProperty(_ key: UInt32) -> FiefError {
        FiefError(.noSuchProperty, "class '\(objectClass.name)' has no property with key \(key)"
                  + (key == 0 ? " (no stored property has key 0; linking-objects properties, which have it, are computed from the links to an object and take no value)" : ""))
    }

    public func property(named name: String) -> Property? { objectClass.property(named: name) }

    public static func dataName(_ key: UInt32) -> String { "c\(key)" }
    public static func primaryKeyName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).pk\(column)" }
    public static func indexName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).i\(column)" }
    public static func fullTextName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).t\(column)" }
    public static func backlinksName(_ key: UInt32) -> String { "c\(key).b" }
    public static func listName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).l\(column)" }
    public static func setName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).s\(column)" }
    public static func mapName(_ key: UInt32, _ column: UInt32) -> String { "c\(key).m\(column)" }
    public static func nestedName(_ key: UInt32) -> String { "c\(key).n" }

    /// Whether a class's values can hold nested collections: it has a mixed
    /// property, or a list or map of mixed values.
    public static func holdsNested(_ objectClass: ObjectClass) -> Bool {
        objectClass.properties.contains { $0.type == .mixed && $0.collection != .set }
    }

    /// The nested collections' database (see `nested`).
    @inlinable @inline(__always)
    public func nestedDatabase() throws(FiefError) -> MDB_dbi {
        if let nested { return nested }
        throw FiefError(.fileFormat, "class '\(objectClass.name)' has no nested collections in this file: open it writable once to add them")
    }

    /// The database of a list, set or map property (nil for a value).
    public static func collectionName(_ key: UInt32, _ property: Property) -> String? {
        switch property.collection {
        case .none: return nil
        case .list: return listName(key, property.key)
        case .set: return setName(key, property.key)
        case .map: return mapName(key, property.key)
        }
    }

    /// The database of list property `column`'s segments.
    @inlinable @inline(__always)
    public func listDatabase(_ column: UInt32) throws(FiefError) -> MDB_dbi {
        for entry in lists where entry.property.key == column { return entry.database }
        throw notA("list", column)
    }

    /// The database of set property `column`'s elements.
    @inlinable @inline(__always)
    public func setDatabase(_ column: UInt32) throws(FiefError) -> MDB_dbi {
        for entry in sets where entry.property.key == column { return entry.database }
        throw notA("set", column)
    }

    /// The database of map property `column`'s entries.
    @inlinable @inline(__always)
    public func mapDatabase(_ column: UInt32) throws(FiefError) -> MDB_dbi {
        for entry in maps where entry.property.key == column { return entry.database }
        throw notA("map", column)
    }

    @usableFromInline func notA(_ kind: String, _ column: UInt32) -> FiefError {
        FiefError(.invalidArgument, "property \((try? property(column).name).map { "'\(objectClass.name).\($0)'" } ?? "\(column) of '\(objectClass.name)'") is not a \(kind)")
    }
}
