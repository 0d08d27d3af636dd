import CFief
import Foundation

/// The root of every model class (RealmSwift's `ObjectBase`): holds whether
/// the instance is managed by a realm and, if so, its row.
///
/// Model classes subclass `Object` (or `EmbeddedObject`), never this class
/// directly; `Realm.Configuration.objectTypes` lists `ObjectBase.Type`s.
open class ObjectBase: Hashable, CustomStringConvertible {
    /// The row this instance is bound to, or nil while unmanaged.  Setting
    /// it binds every property storage of the instance to the row.
    var _fiefManaged: ManagedRow? {
        didSet {
            if let row = _fiefManaged, row.binding.info.type == type(of: self) {
                row.binding.info.fieldTable?.bind(self, to: row)
            }
        }
    }
    /// Set on a throwaway instance to turn key paths into property names.
    var _fiefRecorder: KeyPathRecorder? {
        didSet { _fiefRecorder?.noteLegacyMembers(of: self) }
    }

    /// Creates an unmanaged instance.  Also records the class as used by
    /// this process, so realms opened without `objectTypes` include it.
    public required init() {
        SchemaRegistry.noteUsed(type(of: self))
    }

    /// The name the class has in the realm's schema: `String(describing:)`
    /// of the class, unless `_realmObjectName()` gives another.
    open class func className() -> String {
        _realmObjectName() ?? String(describing: self)
    }

    /// Override to store the class under another name in the schema (the
    /// role of `@objc(Name)` in RealmSwift).
    open class func _realmObjectName() -> String? { nil }

    /// Override to return true to leave the class out of the default schema
    /// (the classes realms opened without `objectTypes` hold), as in
    /// RealmSwift: an abstract base class of model classes, say.
    open class func _realmIgnoreClass() -> Bool { false }

    /// Override to store properties under other names in the realm file
    /// (RealmSwift's `propertiesMapping()`): Swift property name → stored
    /// name.  Code, KVC, key paths, sorts and queries use the Swift names
    /// (queries accept the stored names too, and `%K` arguments are mapped
    /// as well); the file and other languages' bindings see the stored
    /// names.  Not mapped yet: key paths of a SUBQUERY's variable
    /// (`$x.name`), which must be written with the stored names.
    ///
    ///     override class func propertiesMapping() -> [String: String] {
    ///         ["firstName": "first_name"]
    ///     }
    open class func propertiesMapping() -> [String: String] { [:] }

    /// Whether `object` is equal to this one: the same instance, or (for
    /// managed objects of a class with a primary key, or frozen ones) the
    /// same row of the same file.  Override points follow NSObject's.
    open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? ObjectBase else { return false }
        if self === other { return true }
        guard let lhs = _fiefManaged, let rhs = other._fiefManaged else { return false }
        guard lhs.binding.info.primaryKeyIndex != nil || lhs.core.isFrozen else { return false }
        return lhs.sameRow(as: rhs)
    }

    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        lhs.isEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        if let managed = _fiefManaged, managed.binding.info.primaryKeyIndex != nil || managed.core.isFrozen {
            hasher.combine(managed.binding.classKey)
            hasher.combine(managed.objectKey)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    /// A human-readable description in RealmSwift's layout: the class name
    /// and every property (`\tname = value;`), objects and collections it
    /// holds described inside it one level further indented, five levels
    /// deep at most (as RealmSwift does), so objects that link to each other
    /// print `<Maximum depth exceeded>` where the description would go on
    /// (see Internal/Descriptions.swift).
    open var description: String {
        let className = _fiefManaged?.binding.info.className ?? type(of: self).className()
        if _fiefManaged != nil && _fiefIsInvalidated { return "[invalid object]" }
        return FiefDescriptionDepth.nested {
            var text = "\(className) {\n"
            for property in _fiefPropertyValues() {
                text += "\t\(property.name) = \(fiefIndented(fiefPropertyDescription(property.value)));\n"
            }
            return text + "}"
        }
    }

    /// Creates an unmanaged object from `value` (RealmSwift's
    /// `init(value:)`): a `[String: Any]` dictionary of property values, an
    /// array of values in property order, or another object whose
    /// same-named properties are copied.  Properties not given keep their
    /// defaults; links may be given as objects or as nested dictionaries or
    /// arrays; enums and custom persistable types as themselves or as their
    /// persisted values.  Traps, as RealmSwift does, for an unknown property
    /// name or a value of the wrong type.
    ///
    ///     let dog = Dog(value: ["name": "Rex", "age": 3])
    public convenience init(value: Any) {
        self.init()
        _fiefSetValues(from: value)
    }

    // MARK: Key-value coding

    /// The value of the property named `key` (KVC-style), managed or not:
    /// the value as stored (an enum's raw value, a custom persistable type's
    /// `persistableValue`), nil for nil; the linking objects for a
    /// linking-objects property.  Traps, as RealmSwift does, for a name that
    /// is not a property of the class.
    open subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// The value of the property named `key` (see `subscript(key:)`); on a
    /// managed object it is read from the row (fief_object_get_value).
    /// Numbers and booleans come as `NSNumber`, as RealmSwift's KVC gives
    /// them, so `object["int8"] as! Int` casts as it does there.
    public func value(forKey key: String) -> Any? {
        fiefNumberAsNSNumber(_fiefStoredValue(forKey: key))
    }

    /// The value of the property named `key` as stored (an `Int8` property's
    /// `Int8`, ...): what aggregates by property name work on.
    func _fiefStoredValue(forKey key: String) -> Any? {
        let info = _fiefManaged?.binding.info ?? ObjectSchemaInfo.of(type(of: self))
        if let index = info.propertyIndex[key] {
            if let managed = _fiefManaged { return managed.readStored(index) }
            var result: Any?
            ObjectSchemaInfo.forEachPersisted(of: self) { name, persisted in
                if name == key { result = persisted.unmanagedValue._fiefStored }
            }
            return result
        }
        var linking: Any?
        ObjectSchemaInfo.forEachPersisted(of: self) { name, persisted in
            if name == key { linking = persisted.fiefLinkingObjects(of: self) }
        }
        guard let linking else { _fiefUnknownKey(key, info) }
        return linking
    }

    /// Sets the property named `key` from `value`, converted as
    /// `init(value:)` converts; on a managed object, in a write transaction
    /// (fief_object_set_value).  Traps, as RealmSwift does, for an unknown
    /// name, a value of the wrong type, and outside a write transaction.
    public func setValue(_ value: Any?, forKey key: String) {
        let info = _fiefManaged?.binding.info ?? ObjectSchemaInfo.of(type(of: self))
        guard let index = info.propertyIndex[key] else { _fiefUnknownKey(key, info) }
        _fiefSetProperty(index, value, info: info)
    }

    // MARK: Internal

    func _fiefUnknownKey(_ key: String, _ info: ObjectSchemaInfo) -> Never {
        preconditionFailure("Property '\(key)' does not exist on class '\(info.className)': it cannot be read or set by key")
    }

    /// Sets property number `index` from a value given by name (KVC,
    /// `init(value:)`).
    func _fiefSetProperty(_ index: Int, _ value: Any?, info: ObjectSchemaInfo) {
        if let managed = _fiefManaged {
            managed.writeAny(index, value)
            return
        }
        guard let table = info.fieldTable else {
            preconditionFailure("Cannot set '\(info.className).\(info.properties[index].name)' by name: the storage of the class's properties could not be located")
        }
        if !table.assign(value, toProperty: index, of: self) {
            fiefInvalidValue(value, for: info.properties[index], of: info)
        }
    }

    /// Sets the properties `value` gives (a dictionary, an array or an object).
    func _fiefSetValues(from value: Any) {
        let info = _fiefManaged?.binding.info ?? ObjectSchemaInfo.of(type(of: self))
        for (index, propertyValue) in Realm.propertyValues(from: value, info: info) {
            _fiefSetProperty(index, propertyValue, info: info)
        }
    }

    var _fiefIsInvalidated: Bool {
        guard let managed = _fiefManaged else { return false }
        return !managed.isValid
    }

    /// Every persisted property's name and current value, in schema order.
    func _fiefPropertyValues() -> [(name: String, value: Any?)] {
        let info = _fiefManaged?.binding.info ?? ObjectSchemaInfo.of(type(of: self))
        if let managed = _fiefManaged {
            return info.properties.indices.map { (info.properties[$0].name, managed.readAny($0)) }
        }
        var result: [(name: String, value: Any?)] = []
        ObjectSchemaInfo.forEachPersisted(of: self) { name, persisted in
            // A mixed value as its payload, as a managed object's reads.
            let value = persisted.unmanagedValue
            result.append((name, (value as? AnyRealmValue).map { $0._fiefStored } ?? fiefUnwrap(value)))
        }
        return result
    }
}

/// Traps for a value that does not convert to `property`'s type.
func fiefInvalidValue(_ value: Any?, for property: PropertyInfo, of info: ObjectSchemaInfo) -> Never {
    let typeName = PropertyType(fiefType: property.type)
    preconditionFailure("Invalid value '\(fiefDescribe(value))' of type '\(type(of: fiefUnwrap(value) ?? "nil" as Any))' for '\(typeName)\(property.isOptional ? "?" : "")' property '\(info.className).\(property.name)'")
}

func fiefDescribe(_ value: Any?) -> String {
    guard let value = fiefUnwrap(value) else { return "nil" }
    if let data = value as? Data { return "<\(data.count) bytes>" }
    return String(describing: value)
}

/// The base class of model classes stored in a realm (RealmSwift's `Object`).
///
///     class Dog: Object {
///         @Persisted var name = ""
///         @Persisted var age = 0
///     }
///
/// An instance is *unmanaged* (a plain Swift object) until it is added to a
/// realm with `Realm.add(_:update:)`, or when it is read from a realm; a
/// managed instance reads and writes its row through the C functions
/// `fief_object_get_value` and `fief_object_set_value`.
open class Object: ObjectBase, RealmFetchable, ThreadConfined {
    public typealias PersistedType = Object

    /// Creates an unmanaged object.
    public required init() {
        super.init()
    }

    /// The realm managing this object, or nil if it is unmanaged
    /// (`fief_object_get_realm`'s realm, as the overlay's `Realm`).
    public var realm: Realm? {
        _fiefManaged.map { Realm(core: $0.core) }
    }

    /// Whether the object was deleted, or its realm invalidated or closed,
    /// so that it can no longer be read (`fief_object_is_valid`).  Always false
    /// for unmanaged objects.
    public var isInvalidated: Bool { _fiefIsInvalidated }

    /// Whether the object is a frozen (immutable) snapshot
    /// (`fief_realm_is_frozen` of its realm).
    public var isFrozen: Bool { _fiefManaged?.core.isFrozen ?? false }

    /// The schema of the object's class, as the realm stores it.
    public var objectSchema: ObjectSchema {
        ObjectSchema(info: _fiefManaged?.binding.info ?? ObjectSchemaInfo.of(type(of: self)))
    }

    /// A frozen copy of this managed object, readable from any thread
    /// (`fief_realm_freeze`, then `fief_object_resolve_in`).  A frozen object
    /// returns itself.  Inside a write transaction the copy has the values
    /// the object had when the transaction began.  Traps, as RealmSwift
    /// does, for unmanaged or invalidated objects and for an object created
    /// in the open write transaction.
    public func freeze() -> Self { _fiefFrozen() }

    /// The live object for this frozen one, or nil if it was deleted since
    /// (`fief_realm_thaw`, then `fief_object_resolve_in`).  A live object
    /// returns itself.  Traps for unmanaged objects.
    public func thaw() -> Self? { _fiefThawed() }

    /// Whether both are the same row of the same realm file, even if
    /// `==` says they are not (classes without a primary key).
    public func isSameObject(as object: Object?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let lhs = _fiefManaged, let rhs = object._fiefManaged else { return false }
        return lhs.sameRow(as: rhs)
    }

}

/// An object that lives inside another object (RealmSwift's
/// `EmbeddedObject`): created in place through its parent's property, list
/// or map, deleted with its parent, never shared between parents.
open class EmbeddedObject: ObjectBase, RealmCollectionValue, ThreadConfined {
    public typealias PersistedType = EmbeddedObject

    public required init() {
        super.init()
    }

    /// The realm managing this object, or nil if it is unmanaged.
    public var realm: Realm? { _fiefManaged.map { Realm(core: $0.core) } }

    /// Whether the object can no longer be read (`fief_object_is_valid`).
    public var isInvalidated: Bool { _fiefIsInvalidated }

    /// Whether the object is frozen.
    public var isFrozen: Bool { _fiefManaged?.core.isFrozen ?? false }

    /// A frozen copy of this managed embedded object, as `Object.freeze()`.
    public func freeze() -> Self { _fiefFrozen() }

    /// The live object for this frozen one, as `Object.thaw()`.
    public func thaw() -> Self? { _fiefThawed() }
}

extension ObjectBase {
    /// `freeze()` of objects and embedded objects.
    func _fiefFrozen<T: ObjectBase>() -> T {
        guard let managed = _fiefManaged else {
            preconditionFailure("Unmanaged objects cannot be frozen.")
        }
        if managed.core.isFrozen { return self as! T }
        guard managed.isValid else { preconditionFailure("Cannot freeze an object that has been deleted or invalidated.") }
        let frozen = managed.core.frozenCore()
        guard let object = managed.resolve(in: frozen, as: T.self) else {
            // Valid now but absent from the version the write began from.
            preconditionFailure("Cannot freeze an object in the same write transaction as it was created in.")
        }
        return object
    }

    /// `thaw()` of objects and embedded objects.
    func _fiefThawed<T: ObjectBase>() -> T? {
        guard let managed = _fiefManaged else {
            preconditionFailure("Unmanaged objects cannot be thawed.")
        }
        if !managed.core.isFrozen { return (self as! T) }
        let live = managed.core.liveCore()
        return managed.resolve(in: live, as: T.self)
    }
}

/// Makes an object usable as `Identifiable` with a stable id: the row for
/// managed objects (class key and object key, `fief_object_get_key`), the
/// instance for unmanaged ones.
public protocol ObjectKeyIdentifiable: Identifiable {}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// A stable identifier for this object.
    public var id: UInt64 {
        if let managed = _fiefManaged {
            return (UInt64(managed.binding.classKey) << 48) ^ UInt64(bitPattern: managed.objectKey)
        }
        return UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
    }
}

/// Objects, results and realms: things tied to a realm that can be frozen.
public protocol ThreadConfined {
    /// The realm this value belongs to, or nil if unmanaged.
    var realm: Realm? { get }
    /// Whether the value can no longer be used.
    var isInvalidated: Bool { get }
    /// Whether the value is a frozen snapshot.
    var isFrozen: Bool { get }
    /// A frozen copy.
    func freeze() -> Self
    /// The live version of a frozen value, or nil if it no longer exists.
    func thaw() -> Self?
}

// MARK: - Schema introspection

/// The type of a property (RealmSwift's `PropertyType`).
public enum PropertyType: Int, Sendable, CustomStringConvertible {
    case int = 0, bool = 1, float = 5, double = 6, string = 2, data = 3, any = 9, date = 4
    case object = 7, linkingObjects = 8, objectId = 10, decimal128 = 11, UUID = 12

    init(fiefType: fief_type_t) {
        switch fiefType {
        case FIEF_TYPE_INT: self = .int
        case FIEF_TYPE_BOOL: self = .bool
        case FIEF_TYPE_STRING: self = .string
        case FIEF_TYPE_BINARY: self = .data
        case FIEF_TYPE_TIMESTAMP: self = .date
        case FIEF_TYPE_FLOAT: self = .float
        case FIEF_TYPE_DOUBLE: self = .double
        case FIEF_TYPE_DECIMAL128: self = .decimal128
        case FIEF_TYPE_OBJECT_ID: self = .objectId
        case FIEF_TYPE_UUID: self = .UUID
        case FIEF_TYPE_LINK: self = .object
        default: self = .any
        }
    }

    public var description: String {
        switch self {
        case .int: return "int"
        case .bool: return "bool"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "data"
        case .any: return "mixed"
        case .date: return "date"
        case .object: return "object"
        case .linkingObjects: return "linking objects"
        case .objectId: return "object id"
        case .decimal128: return "decimal128"
        case .UUID: return "uuid"
        }
    }
}

/// One property of an `ObjectSchema`.
public struct Property: Sendable, Equatable, CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The name the realm file stores it under: `name`, unless the class's
    /// `propertiesMapping()` gives another.
    public var columnName: String { storedName ?? name }
    let storedName: String?
    /// Its type.
    public let type: PropertyType
    /// Whether it may be nil.
    public let isOptional: Bool
    /// Whether it is indexed (the primary key is indexed too).
    public let isIndexed: Bool
    /// Whether it is the primary key.
    public let isPrimary: Bool
    /// Whether it has a full-text index (`@Persisted(fullTextIndexed: true)`;
    /// not in RealmSwift, which has none).
    public let isFullTextIndexed: Bool
    /// For a link (`type == .object`): the class it points to.
    public let objectClassName: String?
    /// Whether it is a list (`List<...>`) of values or objects of `type`.
    public let isArray: Bool
    /// Whether it is a set (`MutableSet<...>`) of values or objects of `type`.
    public let isSet: Bool
    /// Whether it is a map (`Map<String, ...>`) of values or objects of `type`.
    public let isMap: Bool

    init(name: String, type: PropertyType, isOptional: Bool, isIndexed: Bool, isPrimary: Bool, objectClassName: String? = nil,
         collectionType: fief_collection_type_t = fief_collection_type_t(FIEF_COLLECTION_NONE), isFullTextIndexed: Bool = false,
         columnName: String? = nil) {
        self.isFullTextIndexed = isFullTextIndexed
        self.name = name
        storedName = columnName == name ? nil : columnName
        self.isArray = collectionType == fief_collection_type_t(FIEF_COLLECTION_LIST)
        self.isSet = collectionType == fief_collection_type_t(FIEF_COLLECTION_SET)
        self.isMap = collectionType == fief_collection_type_t(FIEF_COLLECTION_MAP)
        self.type = type
        self.isOptional = isOptional
        self.isIndexed = isIndexed
        self.isPrimary = isPrimary
        self.objectClassName = objectClassName
    }

    /// `FIEF_COLLECTION_*` of the property.
    var collectionType: fief_collection_type_t {
        fief_collection_type_t(isArray ? FIEF_COLLECTION_LIST : isSet ? FIEF_COLLECTION_SET : isMap ? FIEF_COLLECTION_MAP : FIEF_COLLECTION_NONE)
    }

    /// The type as a declaration names it: `Int?`, `Dog?`, `List<Dog>`,
    /// `MutableSet<string>`, `Map<String, Dog?>`.
    var typeDescription: String {
        let element = "\(objectClassName ?? "\(type)")\(isOptional ? "?" : "")"
        if isArray { return "List<\(element)>" }
        if isSet { return "MutableSet<\(element)>" }
        if isMap { return "Map<String, \(element)>" }
        return element
    }

    public var description: String {
        let target = objectClassName.map { "\n\tobjectClassName = \($0);" } ?? ""
        let kind = isArray ? "\n\tarray = YES;" : isSet ? "\n\tset = YES;" : isMap ? "\n\tmap = YES;" : ""
        return "\(name) {\n\ttype = \(type);\(kind)\(target)\n\tindexed = \(isIndexed ? "YES" : "NO");\n\tisPrimary = \(isPrimary ? "YES" : "NO");\n\toptional = \(isOptional ? "YES" : "NO");\n}"
    }
}

/// The schema of one object class (RealmSwift's `ObjectSchema`).
public struct ObjectSchema: Sendable, Equatable, CustomStringConvertible {
    /// The class name in the realm.
    public let className: String
    /// The persisted properties, in declaration order (superclass first).
    public let properties: [Property]
    /// Whether objects of the class are embedded in a parent.
    public let isEmbedded: Bool

    init(info: ObjectSchemaInfo) {
        className = info.className
        isEmbedded = info.isEmbedded
        properties = info.properties.map {
            Property(name: $0.name, type: PropertyType(fiefType: $0.type), isOptional: $0.isOptional,
                     isIndexed: $0.isIndexed || $0.isPrimaryKey, isPrimary: $0.isPrimaryKey,
                     objectClassName: $0.linkTargetName, collectionType: $0.collectionType, isFullTextIndexed: $0.isFullTextIndexed,
                     columnName: $0.storedName)
        }
    }

    /// Class number `index` of a C schema (fief_schema_get_class / _get_property).
    init?(schema: OpaquePointer, index: Int) {
        var cls = fief_class_info_t()
        guard fief_schema_get_class(schema, index, &cls), let name = cls.name else { return nil }
        className = String(cString: name)
        isEmbedded = cls.flags & UInt32(FIEF_CLASS_EMBEDDED) != 0
        var properties: [Property] = []
        for i in 0..<cls.num_properties {
            var p = fief_property_info_t()
            guard fief_schema_get_property(schema, index, i, &p), let pname = p.name else { continue }
            // Linking objects are computed properties, which RealmSwift's `properties` leaves out.
            if p.collection_type == fief_collection_type_t(FIEF_COLLECTION_LINKING_OBJECTS) { continue }
            let primary = p.flags & UInt32(FIEF_PROPERTY_PRIMARY_KEY) != 0
            properties.append(Property(name: String(cString: pname), type: PropertyType(fiefType: p.type),
                                       isOptional: p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0,
                                       isIndexed: primary || p.flags & UInt32(FIEF_PROPERTY_INDEXED) != 0, isPrimary: primary,
                                       objectClassName: p.link_target.map { String(cString: $0) },
                                       collectionType: p.collection_type,
                                       isFullTextIndexed: p.flags & UInt32(FIEF_PROPERTY_FULLTEXT_INDEXED) != 0))
        }
        // A model class of this name with custom stored names shows its
        // properties by their Swift names, as RealmSwift's schema does.
        if let declared = SchemaRegistry.type(named: className), !declared.propertiesMapping().isEmpty {
            let info = ObjectSchemaInfo.of(declared)
            self.properties = properties.map { property in
                guard let swiftName = info.swiftName(forStored: property.name) else { return property }
                return Property(name: swiftName, type: property.type, isOptional: property.isOptional, isIndexed: property.isIndexed,
                                isPrimary: property.isPrimary, objectClassName: property.objectClassName,
                                collectionType: property.collectionType, isFullTextIndexed: property.isFullTextIndexed,
                                columnName: property.name)
            }
        } else {
            self.properties = properties
        }
    }

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property named `propertyName`, if there is one.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName }
    }

    public var description: String {
        "\(className) {\n" + properties.map { "\t\($0.name): \($0.typeDescription)" }.joined(separator: "\n") + "\n}"
    }
}

/// The classes of a realm (RealmSwift's `Schema`): `realm.schema`.
public struct Schema: Sendable, Equatable, CustomStringConvertible {
    /// Every class the realm's file holds, in the file's order.
    public let objectSchema: [ObjectSchema]

    /// The class named `className`, if the realm has it.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    public var description: String {
        "Schema {\n" + objectSchema.map { "\t" + String(describing: $0).replacingOccurrences(of: "\n", with: "\n\t") }.joined(separator: "\n") + "\n}"
    }
}

// MARK: - Links

/// An `Object` is the value of a to-one link (`@Persisted var dog: Dog?`),
/// stored as a `FIEF_TYPE_LINK` (class key, object key).
extension Object: _PersistableInsideOptional, FiefAnyConvertible {
    public static var _fiefType: fief_type_t { FIEF_TYPE_LINK }
    public static var _fiefLinkTarget: ObjectBase.Type? { self }
    public static func _fiefDefault() -> Self { Self() }

    /// Without a realm a link cannot name an object: only the realm-aware
    /// read (`_fiefRead(_:in:)`) makes objects.
    public static func _fiefRead(_ value: fief_value_t) -> Self? { nil }

    /// An object of this class, or a new unmanaged one made from a
    /// dictionary or array of values (`init(value:)`).
    public static func _fiefFromAny(_ any: Any?) -> Self? {
        _fiefObject(from: any)
    }

    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Self? {
        _fiefLinked(value, in: realm)
    }

    /// The link to this managed object (query arguments, values of links).
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        _fiefLinkValue(unmanaged: "Cannot link to an unmanaged '\(type(of: self).className())': add it to a realm first")
    }

    public func _fiefValue(in arena: _FiefArena, realm: Realm) -> fief_value_t {
        realm.makeLinkable(self)
        return _fiefValue(in: arena)
    }

    func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) }
}

extension Object {
    /// `realm.create(Self.self, value:update:)` for a class known only at run
    /// time (the target of a link created from nested values).
    class func _fiefCreate(in realm: Realm, value: Any, update: Realm.UpdatePolicy) -> Object {
        realm.create(self, value: value, update: update)
    }
}

/// An `EmbeddedObject` is the value of a link owned by its parent
/// (`@Persisted var address: Address?`): assigning one creates it in place
/// (fief_object_create_embedded); it is never linked from elsewhere.
extension EmbeddedObject: _PersistableInsideOptional {
    public static var _fiefType: fief_type_t { FIEF_TYPE_LINK }
    public static var _fiefLinkTarget: ObjectBase.Type? { self }
    public static func _fiefDefault() -> Self { Self() }
    public static func _fiefRead(_ value: fief_value_t) -> Self? { nil }

    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> Self? {
        _fiefLinked(value, in: realm)
    }

    /// An object of this class, or a new unmanaged one made from a
    /// dictionary or array of values (`init(value:)`).
    public static func _fiefFromAny(_ any: Any?) -> Self? {
        _fiefObject(from: any)
    }

    /// The link to this managed embedded object (comparisons in queries).
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        _fiefLinkValue(unmanaged: "An unmanaged embedded object is assigned to its parent's property, never passed as a value")
    }
}

extension ObjectBase {
    /// `any` if it is an instance of this class; a new unmanaged instance
    /// from a dictionary, an array or another object's values; else nil.
    static func _fiefObject(from any: Any?) -> Self? {
        let source = fiefUnwrap(any)
        if let object = source as? Self { return object }
        guard let source, source is [String: Any?] || source is [Any?] || source is ObjectBase else { return nil }
        let object = Self()
        object._fiefSetValues(from: source)
        return object
    }

    /// The object of this class a link value read from `realm` points to.
    static func _fiefLinked<T: ObjectBase>(_ value: fief_value_t, in realm: Realm) -> T? {
        guard value.type == FIEF_TYPE_LINK else { return nil }
        return realm.core.linkedObject(value.u.link, as: T.self)
    }

    /// The link to this managed object; traps with `message` if unmanaged.
    func _fiefLinkValue(unmanaged message: @autoclosure () -> String) -> fief_value_t {
        guard let managed = _fiefManaged else { preconditionFailure(message()) }
        var value = fief_value_t()
        value.type = FIEF_TYPE_LINK
        value.u.link = fief_link_t(class_key: managed.binding.classKey, object_key: managed.objectKey)
        return value
    }
}
