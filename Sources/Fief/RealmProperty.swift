// RealmSwift's legacy `let` properties: `RealmProperty<T?>` and
// `RealmOptional<T>`, which hold their value in a small object of their own
// rather than in a property wrapper.

import CFief
import Foundation

/// A persisted property declared with `let` (RealmSwift's `RealmProperty`),
/// the older syntax for optional numbers and booleans:
///
///     class Dog: Object {
///         @Persisted var name = ""
///         let age = RealmProperty<Int?>()
///     }
///     dog.age.value = 3
///
/// The property is stored as its value's type, named as the `let`
/// (`age`, an optional int).  Unmanaged, the object holds the value; once
/// the object is managed, `value` reads and writes its row
/// (fief_object_get_value, fief_object_set_value).
///
/// Differences from RealmSwift: RealmSwift discovers these members only in
/// classes declared entirely in the legacy syntax (`@objc dynamic var`,
/// unavailable on Linux) and ignores them next to `@Persisted`
/// properties; Fief stores them in any model class, next to `@Persisted`
/// ones.  `RealmProperty<AnyRealmValue>` (`let value = RealmProperty<AnyRealmValue>()`)
/// is a mixed property, read and written as `@Persisted var value: AnyRealmValue` is.
public final class RealmProperty<Value: RealmPropertyType> {
    var fiefBinding: (row: ManagedRow, index: Int)?
    var fiefUnmanaged: Value

    /// A property holding the type's default (nil for optionals).
    public init() {
        fiefUnmanaged = Value._fiefDefault()
    }

    /// The value: the row's for a managed object.  Setting it on a managed
    /// object needs a write transaction.
    public var value: Value {
        get { fiefStoredValue }
        set { fiefStoredValue = newValue }
    }
}

/// The types a `RealmOptional` may hold (RealmSwift's `RealmOptionalType`).
public protocol RealmOptionalType: _PersistableInsideOptional {}

extension Int: RealmOptionalType {}
extension Int8: RealmOptionalType {}
extension Int16: RealmOptionalType {}
extension Int32: RealmOptionalType {}
extension Int64: RealmOptionalType {}
extension Float: RealmOptionalType {}
extension Double: RealmOptionalType {}
extension Bool: RealmOptionalType {}

/// An optional number or boolean declared with `let` (RealmSwift's
/// `RealmOptional`, superseded there by `RealmProperty<T?>` and then by
/// `@Persisted var x: T?`):
///
///     class Dog: Object {
///         let weight = RealmOptional<Double>()
///     }
///
/// Stored and bound to the row as `RealmProperty` is.
public final class RealmOptional<Value: RealmOptionalType> {
    var fiefBinding: (row: ManagedRow, index: Int)?
    var fiefUnmanaged: Value?

    /// A property holding nil.
    public init() {}

    /// A property holding `value`.
    public convenience init(_ value: Value?) {
        self.init()
        fiefUnmanaged = value
    }

    /// The value: the row's for a managed object.  Setting it on a managed
    /// object needs a write transaction.
    public var value: Value? {
        get { fiefStoredValue }
        set { fiefStoredValue = newValue }
    }
}

// MARK: - Shared machinery

/// What `RealmProperty` and `RealmOptional` share: a value of type `Stored`
/// kept unmanaged, or bound to property `index` of a row.
protocol FiefLegacyProperty: AnyObject, FiefFieldAccessor, DiscoverablePersisted {
    associatedtype Stored: _Persistable
    var fiefBinding: (row: ManagedRow, index: Int)? { get set }
    var fiefUnmanaged: Stored { get set }
}

extension FiefLegacyProperty {
    var fiefStoredValue: Stored {
        get {
            guard let (row, index) = fiefBinding else { return fiefUnmanaged }
            return row.read(index, as: Stored.self)
        }
        set {
            guard let (row, index) = fiefBinding else {
                fiefUnmanaged = newValue
                return
            }
            row.write(index, newValue)
        }
    }

    // DiscoverablePersisted
    static var fiefValueType: any _Persistable.Type { Stored.self }
    var isIndexed: Bool { false }
    var isPrimaryKey: Bool { false }
    var isFullTextIndexed: Bool { false }
    var isProbe: Bool { false }
    var unmanagedValue: any _Persistable { fiefUnmanaged }
    func fiefLinkingObjects(of owner: ObjectBase) -> Any? { nil }

    // FiefFieldAccessor: the field holds a reference to the property object.
    static func fiefAssign(_ any: Any?, at address: UnsafeMutableRawPointer) -> Bool {
        guard let value = Stored._fiefFromAny(any) else { return false }
        address.assumingMemoryBound(to: Self.self).pointee.fiefUnmanaged = value
        return true
    }

    static func fiefBind(at address: UnsafeMutableRawPointer, index: Int, row: ManagedRow) {
        address.assumingMemoryBound(to: Self.self).pointee.fiefBinding = (row, index)
    }

    static func fiefProbe(at address: UnsafeMutableRawPointer, in object: ObjectBase, label: String) -> Bool {
        fiefFieldHoldsMember(address.assumingMemoryBound(to: Self.self).pointee, in: object, label: label)
    }
}

extension RealmProperty: FiefLegacyProperty {}
extension RealmOptional: FiefLegacyProperty {}

extension RealmProperty: Equatable where Value: Equatable {
    public static func == (lhs: RealmProperty, rhs: RealmProperty) -> Bool { lhs.value == rhs.value }
}

extension RealmOptional: Equatable where Value: Equatable {
    public static func == (lhs: RealmOptional, rhs: RealmOptional) -> Bool { lhs.value == rhs.value }
}

extension RealmProperty: CustomStringConvertible {
    public var description: String { String(describing: value) }
}

extension RealmOptional: CustomStringConvertible {
    public var description: String { value.map { String(describing: $0) } ?? "nil" }
}

extension RealmProperty: Codable where Value: Codable {
    public convenience init(from decoder: Decoder) throws {
        self.init()
        fiefUnmanaged = try decoder.singleValueContainer().decode(Value.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension RealmOptional: Codable where Value: Codable {
    public convenience init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(container.decodeNil() ? nil : try container.decode(Value.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
