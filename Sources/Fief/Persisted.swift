import CFief
import Foundation

/// Declares a property of an `Object` subclass as stored in the realm.
///
///     class Person: Object {
///         @Persisted(primaryKey: true) var id = 0
///         @Persisted var name = ""
///         @Persisted(indexed: true) var email: String?
///         @Persisted(fullTextIndexed: true) var bio = ""   // searched with TEXT
///     }
///
/// How it works: the wrapper holds the value while the object is unmanaged.
/// Every access goes through the static `_enclosingInstance` subscript, which
/// first asks the object whether it is managed; if so, it reads the row with
/// `fief_object_get_value` or writes it with `fief_object_set_value`, using
/// the property's position in the class schema (bound into the wrapper as
/// `.managed(index:row:)` when the object becomes managed, see FieldTable;
/// else looked up once from the storage key path and cached the same way).
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    enum Storage {
        /// Declared without a default: the type's default on first read.
        case unmanagedNoDefault
        /// Declared without a default, of a type whose default is made anew
        /// for each object (ObjectId, UUID, Date): made on first use, then
        /// kept in the box, which copies of the wrapper share.
        case unmanagedGenerated(FiefGeneratedDefault<Value>)
        /// The unmanaged value.
        case unmanaged(Value)
        /// The object is managed; the property is number `index` of its
        /// class.  `row` is the object's row when the wrapper was bound with
        /// the object (so that Codable can read it), nil when it was learnt
        /// on first access.
        case managed(index: Int, row: ManagedRow?)
        /// A collection property (List, MutableSet, Map) of a managed object: the live
        /// collection instance, returned by every read (RealmSwift's
        /// `managedCached`), bound to `row`.
        case managedCollection(index: Int, row: ManagedRow, value: Value)
        /// Marker written by schema discovery to find which field a key path names.
        case probe
        /// Linking objects (never stored): the origin property's name.
        case linkingOrigin(String)
    }

    var storage: Storage
    let isIndexed: Bool
    let isPrimaryKey: Bool
    /// A full-text index (`@Persisted(fullTextIndexed: true)`, strings only).
    let isFullTextIndexed: Bool

    /// Unavailable: @Persisted only works on properties of `Object` subclasses,
    /// where the compiler uses the `_enclosingInstance` subscript instead.
    @available(*, unavailable, message: "@Persisted can only be used as a property on a Realm object")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used as a property on a Realm object") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Persisted can only be used as a property on a Realm object") }
    }

    /// A property without a default value: it reads as the type's default
    /// until set (RealmSwift's `_rlmDefaultValue`): 0, false, "", empty
    /// data, zero Decimal128, nil, `.none`, empty collections, an enum's
    /// first case; for ObjectId a new `ObjectId.generate()`, for UUID a new
    /// `UUID()`, for Date the current `Date()`, made on first read (or when
    /// the object is added) and kept, one per object.
    public init() {
        self.init(storage: .unmanagedNoDefault, indexed: false, primaryKey: false)
    }

    /// A property with a default value (`@Persisted var name = "Rex"`).
    public init(wrappedValue value: Value) {
        self.init(storage: .unmanaged(value), indexed: false, primaryKey: false)
    }

    init(storage: Storage, indexed: Bool, primaryKey: Bool, fullTextIndexed: Bool = false) {
        if case .unmanagedNoDefault = storage, Value._fiefDefaultIsGenerated {
            self.storage = .unmanagedGenerated(FiefGeneratedDefault())
        } else {
            self.storage = storage
        }
        self.isIndexed = indexed
        self.isPrimaryKey = primaryKey
        self.isFullTextIndexed = fullTextIndexed
    }

    /// The accessor the compiler calls for `object.property`: the unmanaged
    /// value, or the row's value via `fief_object_get_value` /
    /// `fief_object_set_value` once the object is managed.
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            // A throwaway instance reading a key path (Internal/KeyPathRecorder.swift).
            if let recorder = observed._fiefRecorder {
                recorder.readKeyPaths.append(wrappedKeyPath)
                return recorder.recordRead(of: storageKeyPath, on: observed)
            }
            if case .linkingOrigin(let property) = observed[keyPath: storageKeyPath].storage,
               let kind = Value.self as? _FiefLinkingObjects.Type {
                return kind._fiefLinkingObjects(of: observed, propertyName: property) as! Value
            }
            if let managed = observed._fiefManaged {
                if Value.self is FiefCollectionProtocol.Type {
                    if case .managedCollection(_, let row, let value) = observed[keyPath: storageKeyPath].storage, row === managed {
                        return value
                    }
                    let index = managedIndex(observed, managed, storageKeyPath)
                    let value = managed.read(index, as: Value.self)
                    observed[keyPath: storageKeyPath].storage = .managedCollection(index: index, row: managed, value: value)
                    return value
                }
                let index = managedIndex(observed, managed, storageKeyPath)
                return managed.read(index, as: Value.self)
            }
            switch observed[keyPath: storageKeyPath].storage {
            case .unmanaged(let value):
                return value
            case .unmanagedGenerated(let generated):
                let value = generated.value
                observed[keyPath: storageKeyPath].storage = .unmanaged(value)
                return value
            case .unmanagedNoDefault, .probe, .managed, .managedCollection, .linkingOrigin:
                let value = Value._fiefDefault()
                observed[keyPath: storageKeyPath].storage = .unmanaged(value)
                return value
            }
        }
        set {
            if case .linkingOrigin = observed[keyPath: storageKeyPath].storage {
                preconditionFailure("Linking objects are read-only: change the links that point here instead")
            }
            if let managed = observed._fiefManaged {
                // Assigning a collection replaces its contents (a no-op for the collection itself).
                if case .managedCollection(_, let row, let value) = observed[keyPath: storageKeyPath].storage, row === managed,
                   let list = value as? FiefCollectionProtocol, list === (newValue as? FiefCollectionProtocol) {
                    return
                }
                let index = managedIndex(observed, managed, storageKeyPath)
                managed.write(index, newValue)
                return
            }
            if let newList = newValue as? FiefCollectionProtocol {
                // Assigning a collection replaces the contents of the object's own one.
                if case .unmanaged(let value) = observed[keyPath: storageKeyPath].storage, let list = value as? FiefCollectionProtocol {
                    if list !== newList { list.fiefAssign(from: newList) }
                    return
                }
                let own = Value._fiefDefault()
                (own as? FiefCollectionProtocol)?.fiefAssign(from: newList)
                observed[keyPath: storageKeyPath].storage = .unmanaged(own)
                return
            }
            observed[keyPath: storageKeyPath].storage = .unmanaged(newValue)
        }
    }

    /// The property's position in the object's class schema.
    private static func managedIndex<EnclosingSelf: ObjectBase>(
        _ observed: EnclosingSelf, _ managed: ManagedRow?,
        _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Int {
        switch observed[keyPath: storageKeyPath].storage {
        case .managed(let index, _), .managedCollection(let index, _, _): return index
        default: break
        }
        let schema = managed?.binding.info ?? ObjectSchemaInfo.of(type(of: observed))
        let index = schema.index(ofStorage: storageKeyPath) { prototype in
            // Mark the field on a throwaway instance, then find it with Mirror.
            (prototype as! EnclosingSelf)[keyPath: storageKeyPath] =
                Persisted(storage: .probe, indexed: false, primaryKey: false)
        }
        if managed != nil {
            observed[keyPath: storageKeyPath].storage = .managed(index: index, row: managed)
        }
        return index
    }
}

extension Persisted where Value: _Indexable {
    /// An indexed property (`@Persisted(indexed: true) var name: String`).
    public init(indexed: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: indexed, primaryKey: false)
    }

    /// An indexed property with a default value.
    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(storage: .unmanaged(value), indexed: indexed, primaryKey: false)
    }
}

// RealmSwift has no full-text index (realm-swift issue #3650; realm-core and
// the other SDKs have one): the spelling follows `indexed:` and realm-core's
// `is_fulltext_indexed`.
extension Persisted where Value == String {
    /// A full-text-indexed string (`@Persisted(fullTextIndexed: true) var
    /// bio: String`), searched with `TEXT` (`filter("bio TEXT %@", "dog
    /// -cat run*")`, `where { $0.bio.fullTextMatches("dog") }`): every word
    /// must be in the text (`word*`: a word starting so; `-word`: excluded),
    /// compared without case or accents.
    public init(fullTextIndexed: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: false, primaryKey: false, fullTextIndexed: fullTextIndexed)
    }

    /// A full-text-indexed string with a default value.
    public init(wrappedValue value: Value, fullTextIndexed: Bool) {
        self.init(storage: .unmanaged(value), indexed: false, primaryKey: false, fullTextIndexed: fullTextIndexed)
    }
}

extension Persisted where Value == String? {
    /// A full-text-indexed optional string (nil holds no word).
    public init(fullTextIndexed: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: false, primaryKey: false, fullTextIndexed: fullTextIndexed)
    }

    /// A full-text-indexed optional string with a default value.
    public init(wrappedValue value: Value, fullTextIndexed: Bool) {
        self.init(storage: .unmanaged(value), indexed: false, primaryKey: false, fullTextIndexed: fullTextIndexed)
    }
}

extension Persisted where Value: _PrimaryKey {
    /// The primary key (`@Persisted(primaryKey: true) var id: ObjectId`).
    public init(primaryKey: Bool) {
        self.init(storage: .unmanagedNoDefault, indexed: false, primaryKey: primaryKey)
    }

    /// The primary key with a default value (`@Persisted(primaryKey: true) var id = 0`).
    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(storage: .unmanaged(value), indexed: false, primaryKey: primaryKey)
    }
}

extension Persisted: CustomStringConvertible {
    public var description: String {
        switch storage {
        case .unmanaged(let value): return String(describing: value)
        case .unmanagedNoDefault: return String(describing: Value._fiefDefault())
        case .unmanagedGenerated(let generated): return String(describing: generated.value)
        case .managed(let index, _): return "<managed property \(index)>"
        case .managedCollection(_, _, let value): return String(describing: value)
        case .probe: return "<probe>"
        case .linkingOrigin(let property): return "<linking objects through '\(property)'>"
        }
    }
}

/// The default of a property declared without one whose type makes a new
/// default each time (`_fiefDefaultIsGenerated`: a new `ObjectId.generate()`,
/// `UUID()`, the current `Date()`, as RealmSwift's `_rlmDefaultValue`):
/// made when first asked for, then kept, so that every read of an unmanaged
/// object, and the value `Realm.add` stores, are the same one.  A class, so
/// that the copies of the wrapper that Mirror hands out share it.
final class FiefGeneratedDefault<Value: _Persistable> {
    private var generated: Value?

    var value: Value {
        if let generated { return generated }
        let made = Value._fiefDefault()
        generated = made
        return made
    }
}

// MARK: - Schema discovery

/// What schema discovery reads from a `Persisted` found by Mirror.
protocol DiscoverablePersisted {
    static var fiefValueType: any _Persistable.Type { get }
    var isIndexed: Bool { get }
    var isPrimaryKey: Bool { get }
    var isFullTextIndexed: Bool { get }
    var isProbe: Bool { get }
    /// The unmanaged value (the type's default if none was set).
    var unmanagedValue: any _Persistable { get }
    /// For a linking-objects property: the linking objects of `owner`; nil otherwise.
    func fiefLinkingObjects(of owner: ObjectBase) -> Any?
    /// For a linking-objects property: the origin property it names; nil otherwise.
    var linkingOriginProperty: String? { get }
}

extension DiscoverablePersisted {
    var linkingOriginProperty: String? { nil }
}

extension Persisted: DiscoverablePersisted {
    static var fiefValueType: any _Persistable.Type { Value.self }

    var isProbe: Bool {
        if case .probe = storage { return true }
        return false
    }

    var unmanagedValue: any _Persistable {
        if case .unmanaged(let value) = storage { return value }
        if case .unmanagedGenerated(let generated) = storage { return generated.value }
        return Value._fiefDefault()
    }

    var linkingOriginProperty: String? {
        if case .linkingOrigin(let property) = storage { return property }
        return nil
    }

    func fiefLinkingObjects(of owner: ObjectBase) -> Any? {
        guard case .linkingOrigin(let property) = storage, let kind = Value.self as? _FiefLinkingObjects.Type else { return nil }
        return kind._fiefLinkingObjects(of: owner, propertyName: property)
    }
}

// MARK: - Access by offset (see FieldTable)

extension Persisted: FiefFieldAccessor {
    static func fiefAssign(_ any: Any?, at address: UnsafeMutableRawPointer) -> Bool {
        guard let value = Value._fiefFromAny(any) else { return false }
        if case .unmanaged(let existing) = address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage,
           let list = existing as? FiefCollectionProtocol {
            // A collection property keeps its instance; its contents are replaced.
            list.fiefAssign(from: value)
            return true
        }
        address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .unmanaged(value)
        return true
    }

    static func fiefBind(at address: UnsafeMutableRawPointer, index: Int, row: ManagedRow) {
        let persisted = address.assumingMemoryBound(to: Persisted<Value>.self)
        if case .unmanaged(let value) = persisted.pointee.storage, let list = value as? FiefCollectionProtocol {
            // The same collection instance becomes live (RealmSwift's promotion).
            list.fiefAttach(to: row, index: index)
            persisted.pointee.storage = .managedCollection(index: index, row: row, value: value)
            return
        }
        persisted.pointee.storage = .managed(index: index, row: row)
    }

    static func fiefProbe(at address: UnsafeMutableRawPointer, in object: ObjectBase, label: String) -> Bool {
        address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .probe
        var found = false
        var others = false
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let persisted = child.value as? DiscoverablePersisted, persisted.isProbe else { continue }
                if child.label == label { found = true } else { others = true }
            }
            mirror = current.superclassMirror
        }
        address.assumingMemoryBound(to: Persisted<Value>.self).pointee.storage = .unmanagedNoDefault
        return found && !others
    }
}

// MARK: - Codable

/// `Persisted` is Codable when its value is, so that model classes declared
/// `Codable` get synthesized conformances over their persisted properties:
///
///     class Dog: Object, Codable {
///         @Persisted var name = ""
///         @Persisted var owner: String?     // a missing key decodes to nil
///     }
///
/// Decoding makes an unmanaged object.  Encoding an unmanaged object writes
/// its values; encoding a managed (or frozen) object writes the values its
/// row holds now, links included (RealmSwift throws there; Fief can read the
/// row because every wrapper is bound to it when the object becomes
/// managed).  Encoding a deleted or invalidated object throws
/// `EncodingError.invalidValue`.  Objects and mixed values nested deeper than
/// 100 coding levels are refused with an error, not a stack overflow (see
/// `FiefCodingDepth`).
extension Persisted: Decodable where Value: Decodable {
    public init(from decoder: Decoder) throws {
        // Objects inside objects nest their coders too (see `FiefCodingDepth`).
        try FiefCodingDepth.check(decoder)
        let container = try decoder.singleValueContainer()
        self.init(storage: .unmanaged(try container.decode(Value.self)), indexed: false, primaryKey: false)
    }
}

extension Persisted: Encodable where Value: Encodable {
    public func encode(to encoder: Encoder) throws {
        // Objects inside objects nest their coders too (see `FiefCodingDepth`).
        try FiefCodingDepth.check(encoder, self)
        var container = encoder.singleValueContainer()
        switch storage {
        case .unmanaged(let value):
            try container.encode(value)
        case .unmanagedNoDefault:
            try container.encode(Value._fiefDefault())
        case .unmanagedGenerated(let generated):
            try container.encode(generated.value)
        case .managedCollection(_, let row, let value):
            guard row.isValid else {
                throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: invalidatedObjectMessage))
            }
            try container.encode(value)
        case .managed(let index, let row?):
            guard row.isValid else {
                throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: invalidatedObjectMessage))
            }
            try container.encode(row.read(index, as: Value.self))
        case .managed(_, nil), .probe, .linkingOrigin:
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                         debugDescription: "This property of a managed object cannot be encoded"))
        }
    }
}

/// A property wrapper whose wrapped value may be nil, so that a missing key
/// decodes to nil (RealmSwift's `OptionalCodingWrapper`).
public protocol OptionalCodingWrapper {
    associatedtype WrappedType: ExpressibleByNilLiteral
    init(wrappedValue: WrappedType)
}

extension KeyedDecodingContainer {
    /// Decodes an optional wrapped property; a missing key gives nil instead
    /// of `DecodingError.keyNotFound`.
    public func decode<T>(_ type: T.Type, forKey key: KeyedDecodingContainer<K>.Key) throws -> T
        where T: Decodable, T: OptionalCodingWrapper {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {
    public typealias WrappedType = Value
}
