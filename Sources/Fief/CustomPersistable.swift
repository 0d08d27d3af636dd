// Enums and custom types stored as a type Fief supports (RealmSwift's
// PersistableEnum, CustomPersistable and FailableCustomPersistable): each
// maps to its persisted type's `FIEF_TYPE_*`, so the file, queries and other
// bindings see only the persisted type.

import CFief
import Foundation

/// An enum stored as its raw value (RealmSwift's `PersistableEnum`):
///
///     enum Status: String, PersistableEnum {
///         case active, archived
///     }
///     class Task: Object {
///         @Persisted var status: Status       // "active" until set
///         @Persisted var previous: Status?
///     }
///
/// The raw value may be any integer type, `Float`, `Double` or `String`; the
/// property is stored (and queried) as that type (`PersistedType` is the
/// raw value's type): `filter("status == 'archived'")`.
/// A property declared without a default holds the first case.  A stored raw
/// value that is no case of the enum (written by another program) reads as
/// nil from an optional property, and traps, with the value in the message,
/// from a non-optional one (RealmSwift aborts there too).
public protocol PersistableEnum: _PersistableInsideOptional, RawRepresentable, CaseIterable, _RealmCollectionValueInsideOptional,
    MinMaxType, Comparable where RawValue: _PersistableInsideOptional & Comparable, PersistedType == RawValue {}

extension PersistableEnum {
    /// The first case.
    public init() { self = Self._fiefDefault() }

    /// Cases compare as their raw values.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static var _fiefType: fief_type_t { RawValue._fiefType }
    public static var _fiefMapsStoredValues: Bool { true }

    /// The first case (RealmSwift's default for enum properties).
    public static func _fiefDefault() -> Self {
        guard let first = allCases.first else { preconditionFailure("\(Self.self) has no cases to use as a default value") }
        return first
    }

    public static func _fiefRead(_ value: fief_value_t) -> Self? {
        RawValue._fiefRead(value).flatMap(Self.init(rawValue:))
    }

    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { rawValue._fiefValue(in: arena) }
    public var _fiefStored: Any? { rawValue._fiefStored }
}

/// What `CustomPersistable` and `FailableCustomPersistable` share; not
/// used directly.
public protocol _CustomPersistable: _PersistableInsideOptional, _RealmCollectionValueInsideOptional
    where PersistedType: _PersistableInsideOptional {
    /// The value to store for this one.
    var persistableValue: PersistedType { get }
}

/// A type stored as another type that Fief supports (RealmSwift's
/// `CustomPersistable`): the conversion from the stored value cannot fail.
///
///     struct Celsius: CustomPersistable, Hashable {
///         typealias PersistedType = Double
///         var degrees: Double
///         init(persistedValue: Double) { degrees = persistedValue }
///         var persistableValue: Double { degrees }
///     }
///
/// The property is stored and queried as `PersistedType`; values passed to
/// `filter` may be of either type.  A property declared without a default
/// holds `init(persistedValue:)` of the persisted type's default.
public protocol CustomPersistable: _CustomPersistable {
    /// The value a stored `persistedValue` stands for.
    init(persistedValue: PersistedType)
    /// The value to store for this one.
    var persistableValue: PersistedType { get }
}

/// A type stored as another type that Fief supports, whose conversion from
/// the stored value may fail (RealmSwift's `FailableCustomPersistable`):
///
///     extension URL: FailableCustomPersistable {
///         typealias PersistedType = String
///         init?(persistedValue: String) { self.init(string: persistedValue) }
///         var persistableValue: String { absoluteString }
///     }
///
/// A stored value that does not convert reads as nil from an optional
/// property (`URL?`), and traps, with the stored value in the message, from
/// a non-optional one (`URL`), as in RealmSwift.  A non-optional property
/// declared without a default needs `init?(persistedValue:)` to accept the
/// persisted type's default ("" for String), or it traps on first use.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// The value a stored `persistedValue` stands for, or nil.
    init?(persistedValue: PersistedType)
    /// The value to store for this one.
    var persistableValue: PersistedType { get }
}

extension _CustomPersistable {
    public static var _fiefType: fief_type_t { PersistedType._fiefType }
    /// Optional as its persisted type is: a type mapped to an embedded object
    /// is a non-null element of a list; a property of it is a to-one link,
    /// nullable by the schema's rule for links (`PropertyInfo.init`).
    public static var _fiefIsOptional: Bool { PersistedType._fiefIsOptional }
    public static var _fiefLinkTarget: ObjectBase.Type? { PersistedType._fiefLinkTarget }
    /// Made from the persisted type's default, so new each time if that is.
    public static var _fiefDefaultIsGenerated: Bool { PersistedType._fiefDefaultIsGenerated }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { persistableValue._fiefValue(in: arena) }
    public func _fiefValue(in arena: _FiefArena, realm: Realm) -> fief_value_t { persistableValue._fiefValue(in: arena, realm: realm) }
    public var _fiefStored: Any? { persistableValue._fiefStored }
}

extension CustomPersistable {
    public static func _fiefDefault() -> Self { Self(persistedValue: PersistedType._fiefDefault()) }

    public static func _fiefRead(_ value: fief_value_t) -> Self? {
        PersistedType._fiefRead(value).map(Self.init(persistedValue:))
    }

    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Self? {
        PersistedType._fiefRead(value, in: realm).map(Self.init(persistedValue:))
    }

    public static func _fiefFromAny(_ any: Any?) -> Self? {
        if let value = fiefUnwrap(any) as? Self { return value }
        return PersistedType._fiefFromAny(any).map(Self.init(persistedValue:))
    }
}

extension FailableCustomPersistable {
    public static var _fiefMapsStoredValues: Bool { true }

    public static func _fiefDefault() -> Self {
        guard let value = Self(persistedValue: PersistedType._fiefDefault()) else {
            preconditionFailure("Failed to default construct a \(Self.self) using the default value for persisted type \(PersistedType.self). This conversion must either succeed, the property must be optional, or you must explicitly specify a default value for the property.")
        }
        return value
    }

    public static func _fiefRead(_ value: fief_value_t) -> Self? {
        PersistedType._fiefRead(value).flatMap(Self.init(persistedValue:))
    }

    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Self? {
        PersistedType._fiefRead(value, in: realm).flatMap(Self.init(persistedValue:))
    }

    public static func _fiefFromAny(_ any: Any?) -> Self? {
        if let value = fiefUnwrap(any) as? Self { return value }
        return PersistedType._fiefFromAny(any).flatMap(Self.init(persistedValue:))
    }
}

// MARK: - Indexes and primary keys on the persisted type

extension Persisted where Value: PersistableEnum, Value.RawValue: _Indexable {
    /// An indexed enum property (its raw value is indexed).
    public init(indexed: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: indexed, primaryKey: false)
    }

    /// An indexed enum property with a default value.
    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(storage: .unmanaged(value), indexed: indexed, primaryKey: false)
    }
}

extension Persisted where Value: PersistableEnum, Value.RawValue: _PrimaryKey {
    /// An enum primary key (its raw value is the key).
    public init(primaryKey: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: false, primaryKey: primaryKey)
    }

    /// An enum primary key with a default value.
    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(storage: .unmanaged(value), indexed: false, primaryKey: primaryKey)
    }
}

extension Persisted where Value: _CustomPersistable, Value.PersistedType: _Indexable {
    /// An indexed custom-persistable property (its persisted value is indexed).
    public init(indexed: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: indexed, primaryKey: false)
    }

    /// An indexed custom-persistable property with a default value.
    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(storage: .unmanaged(value), indexed: indexed, primaryKey: false)
    }
}

extension Persisted where Value: _CustomPersistable, Value.PersistedType: _PrimaryKey {
    /// A custom-persistable primary key (its persisted value is the key).
    public init(primaryKey: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: false, primaryKey: primaryKey)
    }

    /// A custom-persistable primary key with a default value.
    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(storage: .unmanaged(value), indexed: false, primaryKey: primaryKey)
    }
}
