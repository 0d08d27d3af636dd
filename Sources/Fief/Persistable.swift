// The types a `@Persisted` property may have, and how each crosses the C ABI
// (`fief_value_t`, read by fief_object_get_value, written by
// fief_object_set_value).  One static conformance per storage type, as in
// RealmSwift.

import CFief
import Foundation

// MARK: - Public protocols (RealmSwift's names)

/// A type with a storage type.  Every type Fief stores maps to itself.
public protocol _HasPersistedType {
    /// The type stored in the database for this type.
    associatedtype PersistedType
}

/// A type that can be an element of a Realm collection (`Results`, and later
/// List, MutableSet, Map): the scalar types, their optionals, and objects.
public protocol RealmCollectionValue: Hashable, _HasPersistedType where PersistedType: RealmCollectionValue {}

/// A collection element type whose Optional is an element type too
/// (RealmSwift's name, for generic code: `List<T?>` for such a `T`).
public protocol _RealmCollectionValueInsideOptional: RealmCollectionValue
    where PersistedType: _RealmCollectionValueInsideOptional {}

/// A type with an empty initializer giving its default value (RealmSwift's
/// name, for generic code): the scalar types, objects and collections.
public protocol _DefaultConstructible {
    init()
}

/// A type schema discovery understands (RealmSwift's name, for generic
/// code): every persistable type, and the legacy `RealmProperty` and
/// `RealmOptional` members.  `_rlmType` is its property type and
/// `_rlmOptional` whether the property is optional.
public protocol _RealmSchemaDiscoverable {
    static var _rlmType: PropertyType { get }
    static var _rlmOptional: Bool { get }
}

/// A type `Realm.objects(_:)` can fetch: `Object` subclasses.
public protocol RealmFetchable: RealmCollectionValue {}

/// A type usable as a property of an object (non-optional scalar types).
public protocol RealmPropertyType: _Persistable {}

/// Types that `min`/`max` aggregate over.
@_marker public protocol MinMaxType {}
/// Types that `sum`/`average` aggregate over.
@_marker public protocol AddableType {}
/// Types that can be sorted directly.
@_marker public protocol SortableType {}
/// Types that can be a sort key of a key-path sort.
@_marker public protocol KeypathSortable {}
/// Types a property may be indexed on (`@Persisted(indexed: true)`).
@_marker public protocol _Indexable {}
/// Types a property may be the primary key on (`@Persisted(primaryKey: true)`).
@_marker public protocol _PrimaryKey {}

/// A type that can be stored in a `@Persisted` property.
///
/// Implementation detail (public because generic code needs it): every
/// requirement maps the Swift type to one `FIEF_TYPE_*` and converts to and
/// from `fief_value_t`.
public protocol _Persistable: _RealmSchemaDiscoverable, _HasPersistedType
    where PersistedType: _Persistable, PersistedType.PersistedType.PersistedType == PersistedType.PersistedType {
    /// The `FIEF_TYPE_*` of the property.
    static var _fiefType: fief_type_t { get }
    /// Whether the property is optional (`FIEF_PROPERTY_NULLABLE`).
    static var _fiefIsOptional: Bool { get }
    /// The value of a property declared without a default (RealmSwift's
    /// `_rlmDefaultValue`): zero, false, empty, nil, the first case of an
    /// enum, and a new value each time for ObjectId (`generate()`), UUID
    /// (`UUID()`) and Date (`Date()`, now).
    static func _fiefDefault() -> Self
    /// Whether `_fiefDefault()` makes a new value each time (ObjectId, UUID,
    /// Date, and custom types stored as one): a property declared without a
    /// default then keeps the first one it makes (`FiefGeneratedDefault`).
    static var _fiefDefaultIsGenerated: Bool { get }
    /// The value a `fief_value_t` read from the database holds; nil when it
    /// is of another type.  Views are copied.
    static func _fiefRead(_ value: fief_value_t) -> Self?
    /// This value as a `fief_value_t`; strings and binaries are copied into
    /// `arena`, which must outlive the C call.
    func _fiefValue(in arena: _FiefArena) -> fief_value_t

    /// For a link (an `Object` subclass, or an Optional of one): the class
    /// it points to; nil for every other type.
    static var _fiefLinkTarget: ObjectBase.Type? { get }
    /// The value read from a property of an object of `realm`: a link
    /// becomes the managed object it points to.
    static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Self?
    /// This value, written to a property of an object of `realm`: a link to
    /// an unmanaged object adds it to the realm first.
    func _fiefValue(in arena: _FiefArena, realm: Realm) -> fief_value_t

    /// Whether a stored value this type cannot represent (an enum's unknown
    /// raw value, a failed `init?(persistedValue:)`) reads as nil inside an
    /// Optional, rather than being a type mismatch.
    static var _fiefMapsStoredValues: Bool { get }
    /// The value as stored, as a Swift value: the raw value of an enum, the
    /// `persistableValue` of a custom persistable type, nil for nil, the
    /// value itself otherwise (what KVC returns, as in RealmSwift).
    var _fiefStored: Any? { get }
    /// A value of this type from `any`: a value of the type itself, or
    /// anything `create(_:value:)` accepts for such a property (numbers of
    /// another width, raw values of enums, persisted values of custom
    /// types, dictionaries or arrays for links); nil if it does not convert.
    static func _fiefFromAny(_ any: Any?) -> Self?
}

/// A `_Persistable` type whose Optional is persistable too.
public protocol _PersistableInsideOptional: _Persistable where PersistedType: _PersistableInsideOptional {}

extension _Persistable {
    public static var _rlmType: PropertyType { PropertyType(fiefType: _fiefType) }
    public static var _rlmOptional: Bool { _fiefIsOptional }
}

extension _Persistable {
    public static var _fiefIsOptional: Bool { false }
    public static var _fiefDefaultIsGenerated: Bool { false }
    public static var _fiefLinkTarget: ObjectBase.Type? { nil }
    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Self? { _fiefRead(value) }
    public func _fiefValue(in arena: _FiefArena, realm: Realm) -> fief_value_t { _fiefValue(in: arena) }
    public static var _fiefMapsStoredValues: Bool { false }
    public var _fiefStored: Any? { fiefUnwrap(self) }

    public static func _fiefFromAny(_ any: Any?) -> Self? {
        if let value = any as? Self { return value }
        var source = fiefUnwrap(any)
        if let value = source as? Self { return value }
        if let persistable = source as? any _Persistable { source = persistable._fiefStored }
        if _fiefType == FIEF_TYPE_DECIMAL128, let number = source, !(number is Decimal128) {
            source = Decimal128(fiefConverting: number)
        }
        let arena = _FiefArena()
        guard let value = fiefValue(fromAny: source, arena: arena, propertyType: _fiefType) else { return nil }
        return withExtendedLifetime(arena) { _fiefRead(value) }
    }
}

// MARK: - Integers

/// The integer types share one storage type, `FIEF_TYPE_INT`.
public protocol _FiefInteger: FixedWidthInteger & _PersistableInsideOptional {}

extension _FiefInteger {
    public static var _fiefType: fief_type_t { FIEF_TYPE_INT }
    public static func _fiefDefault() -> Self { 0 }
    public static func _fiefRead(_ value: fief_value_t) -> Self? {
        value.type == FIEF_TYPE_INT ? Self(truncatingIfNeeded: value.u.integer) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { .int(Int64(self)) }
}

extension Int: _FiefInteger {}
extension Int8: _FiefInteger {}
extension Int16: _FiefInteger {}
extension Int32: _FiefInteger {}
extension Int64: _FiefInteger {}

// MARK: - Other scalars

extension Bool: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_BOOL }
    public static func _fiefDefault() -> Bool { false }
    public static func _fiefRead(_ value: fief_value_t) -> Bool? {
        value.type == FIEF_TYPE_BOOL ? value.u.boolean : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_BOOL
        value.u.boolean = self
        return value
    }
}

extension Float: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_FLOAT }
    public static func _fiefDefault() -> Float { 0 }
    public static func _fiefRead(_ value: fief_value_t) -> Float? {
        switch value.type {
        case FIEF_TYPE_FLOAT: return value.u.float_value
        case FIEF_TYPE_DOUBLE: return Float(value.u.double_value)
        case FIEF_TYPE_INT: return Float(value.u.integer)
        default: return nil
        }
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_FLOAT
        value.u.float_value = self
        return value
    }
}

extension Double: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_DOUBLE }
    public static func _fiefDefault() -> Double { 0 }
    public static func _fiefRead(_ value: fief_value_t) -> Double? {
        switch value.type {
        case FIEF_TYPE_DOUBLE: return value.u.double_value
        case FIEF_TYPE_FLOAT: return Double(value.u.float_value)
        case FIEF_TYPE_INT: return Double(value.u.integer)
        default: return nil
        }
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { .double(self) }
}

extension String: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_STRING }
    public static func _fiefDefault() -> String { "" }
    public static func _fiefRead(_ value: fief_value_t) -> String? {
        value.type == FIEF_TYPE_STRING ? fiefString(value.u.string) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { arena.string(self) }
}

extension Data: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_BINARY }
    public static func _fiefDefault() -> Data { Data() }
    public static func _fiefRead(_ value: fief_value_t) -> Data? {
        value.type == FIEF_TYPE_BINARY ? fiefData(value.u.binary) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { arena.binary(self) }
}

extension Date: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_TIMESTAMP }
    /// The current date, as RealmSwift's `Date()` (the engine's own default,
    /// for rows written without a value, is 1970-01-01T00:00:00Z).
    public static func _fiefDefault() -> Date { Date() }
    public static var _fiefDefaultIsGenerated: Bool { true }
    public static func _fiefRead(_ value: fief_value_t) -> Date? {
        value.type == FIEF_TYPE_TIMESTAMP ? Date(fiefTimestamp: value.u.timestamp) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_TIMESTAMP
        value.u.timestamp = fiefTimestamp
        return value
    }
}

extension Decimal128: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_DECIMAL128 }
    public static func _fiefDefault() -> Decimal128 { Decimal128() }
    public static func _fiefRead(_ value: fief_value_t) -> Decimal128? {
        value.type == FIEF_TYPE_DECIMAL128 ? Decimal128(fiefValue: value.u.decimal128) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_DECIMAL128
        value.u.decimal128 = fiefValue
        return value
    }
}

extension ObjectId: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_OBJECT_ID }
    /// A new ObjectId (`ObjectId.generate()`), as RealmSwift's, so that
    /// `@Persisted(primaryKey: true) var _id: ObjectId` is unique per object.
    public static func _fiefDefault() -> ObjectId { ObjectId.generate() }
    public static var _fiefDefaultIsGenerated: Bool { true }
    public static func _fiefRead(_ value: fief_value_t) -> ObjectId? {
        value.type == FIEF_TYPE_OBJECT_ID ? ObjectId(fiefValue: value.u.object_id) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_OBJECT_ID
        value.u.object_id = fiefValue
        return value
    }
}

extension UUID: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_UUID }
    /// A new random UUID (`UUID()`), as RealmSwift's (the engine's own
    /// default, for rows written without a value, is the all-zero UUID).
    public static func _fiefDefault() -> UUID { UUID() }
    public static var _fiefDefaultIsGenerated: Bool { true }
    public static func _fiefRead(_ value: fief_value_t) -> UUID? {
        value.type == FIEF_TYPE_UUID ? UUID(fiefValue: value.u.uuid) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_UUID
        value.u.uuid = fiefValue
        return value
    }
}

// MARK: - Optional

extension Optional: _Persistable where Wrapped: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { Wrapped._fiefType }
    public static var _fiefIsOptional: Bool { true }
    public static func _fiefDefault() -> Wrapped? { nil }
    public static func _fiefRead(_ value: fief_value_t) -> Wrapped?? {
        if value.type == FIEF_TYPE_NULL { return .some(.none) }
        if let wrapped = Wrapped._fiefRead(value) { return .some(wrapped) }
        return Wrapped._fiefMapsStoredValues ? .some(.none) : nil
    }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        switch self {
        case .none: return .null
        case .some(let wrapped): return wrapped._fiefValue(in: arena)
        }
    }
    public static var _fiefLinkTarget: ObjectBase.Type? { Wrapped._fiefLinkTarget }
    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Wrapped?? {
        if value.type == FIEF_TYPE_NULL { return .some(.none) }
        if let wrapped = Wrapped._fiefRead(value, in: realm) { return .some(wrapped) }
        return Wrapped._fiefMapsStoredValues ? .some(.none) : nil
    }
    public var _fiefStored: Any? { self.flatMap { $0._fiefStored } }
    public static func _fiefFromAny(_ any: Any?) -> Wrapped?? {
        let source = fiefUnwrap(any)
        if source == nil || source is NSNull { return .some(.none) }
        return Wrapped._fiefFromAny(source).map { .some($0) }
    }
    public func _fiefValue(in arena: _FiefArena, realm: Realm) -> fief_value_t {
        switch self {
        case .none: return .null
        case .some(let wrapped): return wrapped._fiefValue(in: arena, realm: realm)
        }
    }
}

// MARK: - Conversions from Any (query arguments, dictionaries)

extension Int: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Int8: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Int16: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Int32: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Int64: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Bool: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Float: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Double: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension String: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Data: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Date: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension Decimal128: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension ObjectId: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }
extension UUID: FiefAnyConvertible { func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) } }

// MARK: - Collection values and markers

extension Int: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = Int }
extension Int8: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = Int8 }
extension Int16: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = Int16 }
extension Int32: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = Int32 }
extension Int64: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = Int64 }
extension Bool: RealmCollectionValue, RealmPropertyType, SortableType, KeypathSortable, _Indexable { public typealias PersistedType = Bool }
extension Float: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable { public typealias PersistedType = Float }
extension Double: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable { public typealias PersistedType = Double }
extension String: RealmCollectionValue, RealmPropertyType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = String }
extension Data: RealmCollectionValue, RealmPropertyType, SortableType { public typealias PersistedType = Data }
extension Date: RealmCollectionValue, RealmPropertyType, MinMaxType, SortableType, KeypathSortable, _Indexable { public typealias PersistedType = Date }
extension Decimal128: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, KeypathSortable { public typealias PersistedType = Decimal128 }
extension ObjectId: RealmCollectionValue, RealmPropertyType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = ObjectId }
extension UUID: RealmCollectionValue, RealmPropertyType, SortableType, KeypathSortable, _Indexable, _PrimaryKey { public typealias PersistedType = UUID }

extension Int: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Int8: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Int16: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Int32: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Int64: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Bool: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Float: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Double: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension String: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Data: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Date: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Decimal128: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension ObjectId: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension UUID: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension Object: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension EmbeddedObject: _RealmCollectionValueInsideOptional, _DefaultConstructible {}
extension AnyRealmValue: _DefaultConstructible {}
extension List: _DefaultConstructible { public typealias PersistedType = List }
extension MutableSet: _DefaultConstructible { public typealias PersistedType = MutableSet }
extension Map: _DefaultConstructible { public typealias PersistedType = Map }
extension LinkingObjects { public typealias PersistedType = LinkingObjects }

extension Optional: _RealmSchemaDiscoverable where Wrapped: _RealmSchemaDiscoverable {
    public static var _rlmType: PropertyType { Wrapped._rlmType }
    public static var _rlmOptional: Bool { true }
}

/// The legacy members are discovered as the value they hold.
extension RealmProperty: _RealmSchemaDiscoverable {
    public static var _rlmType: PropertyType { Value._rlmType }
    public static var _rlmOptional: Bool { Value._rlmOptional }
}

extension RealmOptional: _RealmSchemaDiscoverable {
    public static var _rlmType: PropertyType { Value._rlmType }
    public static var _rlmOptional: Bool { true }
}

/// An optional scalar can be the value of a `RealmProperty` (`RealmProperty<Int?>`).
extension Optional: RealmPropertyType where Wrapped: RealmPropertyType & _PersistableInsideOptional {}

extension Optional: _HasPersistedType where Wrapped: _HasPersistedType {
    public typealias PersistedType = Optional<Wrapped.PersistedType>
}
extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}
extension Optional: SortableType where Wrapped: SortableType {}
extension Optional: KeypathSortable where Wrapped: KeypathSortable {}
extension Optional: _Indexable where Wrapped: _Indexable {}
extension Optional: _PrimaryKey where Wrapped: _PrimaryKey {}
