import FiefStorage

/// The address of one collection, whatever holds it: list, set or map
/// property `property` of object `owner` of class `table`, or (`nested` not
/// 0) the list or dictionary `nested` held, at some depth, by mixed property
/// `property` of that object.  Handles, results and accessors all name a
/// collection this way; `Realm.list(_:)`, `set(_:)` and `map(_:)` hand out
/// the accessor for it.
public struct CollectionRef: Hashable, Sendable {
    /// What the collection is: a nested list is a `.list`, a nested
    /// dictionary a `.map`.
    public enum Kind: UInt8, Sendable {
        case list = 1
        case set = 2
        case map = 3

        /// "list", "set", "map".
        public var name: String {
            switch self {
            case .list: return "list"
            case .set: return "set"
            case .map: return "map"
            }
        }
    }

    public var kind: Kind
    public var table: UInt32
    public var owner: Int64
    public var property: UInt32
    /// The nested collection's id in class `table`'s nested database; 0 for
    /// the property's own collection.
    public var nested: Int64

    public init(_ kind: Kind, table: UInt32, owner: Int64, property: UInt32, nested: Int64 = 0) {
        self.kind = kind
        self.table = table
        self.owner = owner
        self.property = property
        self.nested = nested
    }

    /// A nested list (`.list`) or dictionary (`.dictionary`).
    public init(nested kind: NestedKind, table: UInt32, owner: Int64, property: UInt32, id: Int64) {
        self.init(kind == .list ? .list : .map, table: table, owner: owner, property: property, nested: id)
    }

    /// Whether the collection is nested in a mixed value.
    @inline(__always)
    public var isNested: Bool { nested != 0 }

    /// The nested kind of a nested collection.
    var nestedKind: NestedKind { kind == .list ? .list : .dictionary }

    /// The key its entries and list state are kept under for a snapshot or
    /// a write transaction: a nested collection's under its id and a
    /// column no property has (`NestedStore.entriesColumn`).
    @inline(__always)
    var id: ListID {
        isNested ? ListID(table: table, column: NestedStore.entriesColumn, owner: nested)
                 : ListID(table: table, column: property, owner: owner)
    }

    /// The collection `kind` nested `id` held by the same mixed property.
    public func nestedChild(_ kind: NestedKind, _ id: Int64) -> CollectionRef {
        CollectionRef(nested: kind, table: table, owner: owner, property: property, id: id)
    }
}

extension Realm {
    /// The accessor of list `ref` (a list property or a nested list).
    @inlinable
    public func list(_ ref: CollectionRef) -> ListAccess { ListAccess(realm: self, ref: ref) }

    /// The accessor of set `ref`.
    @inlinable
    public func set(_ ref: CollectionRef) -> SetAccess { SetAccess(realm: self, ref: ref) }

    /// The accessor of map `ref` (a map property or a nested dictionary).
    @inlinable
    public func map(_ ref: CollectionRef) -> MapAccess { MapAccess(realm: self, ref: ref) }

    /// The collection property `property` of object `owner` of class
    /// `table` holds, checked: a list, set or map property, or a mixed
    /// property holding a nested list (`kind` .list) or dictionary (.map).
    /// The address a handle keeps.
    public func collection(_ kind: CollectionRef.Kind, table tableKey: UInt32, owner: Int64, property: UInt32) throws(FiefError) -> CollectionRef {
        if kind != .set, try table(tableKey).column(property).isMixed {
            let nestedKind: NestedKind = kind == .list ? .list : .dictionary
            let id = try propertyNestedID(table: tableKey, key: owner, property: property, nestedKind)
            let ref = CollectionRef(nested: nestedKind, table: tableKey, owner: owner, property: property, id: id)
            try requireStoredNested(ref)
            return ref
        }
        let ref = CollectionRef(kind, table: tableKey, owner: owner, property: property)
        switch kind {
        case .list: _ = try list(ref).count()
        case .set: _ = try set(ref).count()
        case .map: _ = try map(ref).count()
        }
        return ref
    }

    /// Whether collection `ref` still exists: its owner, and the nested
    /// collection when it is one.
    public func collectionExists(_ ref: CollectionRef) throws(FiefError) -> Bool {
        if ref.isNested { return try nestedExists(ref) }
        return try objectExists(table: ref.table, key: ref.owner)
    }

    /// Whether collection `ref` holds objects (a list, set or map of links);
    /// a nested collection holds mixed values.
    public func collectionHoldsObjects(_ ref: CollectionRef) throws(FiefError) -> Bool {
        if ref.isNested { return false }
        return try collectionHoldsObjects(table: ref.table, property: ref.property)
    }
}
