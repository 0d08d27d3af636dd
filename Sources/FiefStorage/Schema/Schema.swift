/// The type of a property's values.  Raw values are the C ABI's `FIEF_TYPE_*`.
public enum PropertyType: Int32, Sendable, CaseIterable {
    case int = 1
    case bool = 2
    case string = 3
    case binary = 4
    case timestamp = 5
    case float = 6
    case double = 7
    case decimal128 = 8
    case objectId = 9
    case uuid = 10
    /// A to-one link: the object key of an object of `Property.linkTarget`'s
    /// class, or null (links are always optional).
    case link = 11
    /// A mixed value (Realm's AnyRealmValue): null or a value of any other
    /// type, a link to an object of any class included.  Values never have
    /// this type; properties and collection elements do.
    case mixed = 12

    public var name: String {
        switch self {
        case .int: return "int"
        case .bool: return "bool"
        case .string: return "string"
        case .binary: return "binary"
        case .timestamp: return "timestamp"
        case .float: return "float"
        case .double: return "double"
        case .decimal128: return "decimal128"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        case .link: return "link"
        case .mixed: return "mixed"
        }
    }

    /// The type whose column-chunk layout this type uses: a link's column
    /// holds object keys, laid out as an int column; a mixed column holds
    /// each value coded (`MixedCoding`), laid out as a binary column.
    @inlinable @inline(__always)
    public var stored: PropertyType {
        switch self {
        case .link: return .int
        case .mixed: return .binary
        default: return self
        }
    }

    /// The type a column chunk of this type is laid out as: mixed values are
    /// coded bytes (`MixedCoding`) in a binary chunk; every other type is its own.
    @inlinable @inline(__always)
    public var chunkType: PropertyType { self == .mixed ? .binary : self }

    /// Bytes per slot in a fixed-width column chunk; 0 for variable-width types.
    public var fixedWidth: Int {
        switch self {
        case .int, .double, .link: return 8
        case .bool: return 1
        case .float: return 4
        case .timestamp: return 12
        case .decimal128, .uuid: return 16
        case .objectId: return 12
        case .string, .binary, .mixed: return 0
        }
    }

    public var canBePrimaryKey: Bool { self == .int || self == .string || self == .objectId || self == .uuid }
    public var canBeIndexed: Bool { canBePrimaryKey || self == .bool || self == .timestamp || self == .mixed }
}

/// Whether a property holds one value or a collection of them.  Raw values
/// are the C ABI's `FIEF_COLLECTION_*` and the schema encoding's.
public enum CollectionKind: UInt32, Sendable {
    case none = 0
    /// An ordered list of elements of the property's type.
    case list = 1
    /// A set of distinct elements of the property's type.
    case set = 2
    /// String keys to values of the property's type.
    case map = 3

    public var name: String {
        switch self {
        case .none: return "value"
        case .list: return "list"
        case .set: return "set"
        case .map: return "map"
        }
    }
}

public struct PropertyFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let nullable = PropertyFlags(rawValue: 1)
    public static let primaryKey = PropertyFlags(rawValue: 2)
    public static let indexed = PropertyFlags(rawValue: 4)
    /// A full-text index (`TEXT` searches): string properties only, not
    /// with `.primaryKey` or `.indexed`.
    public static let fullTextIndexed = PropertyFlags(rawValue: 8)
}

/// One property of a class as the schema describes it.
public struct Property: Sendable, Equatable {
    public var name: String
    public var type: PropertyType
    public var flags: PropertyFlags
    /// The stable column id in the file; 0 until the property is stored.
    public var key: UInt32

    /// For a link, or a collection of links: the name of the class it points to.
    public var linkTarget: String?
    /// Whether the property holds a list (or set, map) of `type` values;
    /// `.nullable` then says whether elements may be null.
    public var collection: CollectionKind

    public init(name: String, type: PropertyType, flags: PropertyFlags = [], key: UInt32 = 0, linkTarget: String? = nil,
                collection: CollectionKind = .none) {
        self.name = name
        self.type = type
        self.flags = flags
        self.key = key
        self.linkTarget = linkTarget
        self.collection = collection
    }

    /// The layout of the property's column chunks: a collection's column
    /// holds its size (an int); a link's, the target's object key.
    public var columnType: PropertyType { collection == .none ? type.stored : .int }
    /// Whether it is a list.
    public var isList: Bool { collection == .list }
    /// Whether it is a list, a set or a map (stored in a database of its own).
    public var isCollection: Bool { collection != .none }

    public var isNullable: Bool { flags.contains(.nullable) }
    public var isPrimaryKey: Bool { flags.contains(.primaryKey) }
    /// Primary keys are always indexed (through the primary-key table).
    public var isIndexed: Bool { flags.contains(.indexed) }
    /// Whether it has a full-text index (see `PropertyFlags.fullTextIndexed`).
    public var isFullTextIndexed: Bool { flags.contains(.fullTextIndexed) }
}

/// A linking-objects property (RealmSwift's `LinkingObjects`): the
/// objects of `originClass` whose link, list, set or map of links
/// `originProperty` points to the object.  Computed from the backlinks, it
/// holds no value and is not stored: as realm-core's computed properties,
/// it lives in the schema a realm is opened with (never in the file's), so
/// that queries may name it (`clubs.name == 'Pooch Pals'` is
/// `@links.DogClub.members.name == 'Pooch Pals'`).
public struct LinkingObjectsProperty: Sendable, Equatable {
    public var name: String
    public var originClass: String
    public var originProperty: String

    public init(name: String, originClass: String, originProperty: String) {
        self.name = name
        self.originClass = originClass
        self.originProperty = originProperty
    }
}

/// One class of objects.
public struct ObjectClass: Sendable, Equatable {
    public var name: String
    /// The stored properties (each a column of the file).
    public var properties: [Property]
    public var isEmbedded: Bool
    /// The stable class id in the file; 0 until the class is stored.
    public var key: UInt32
    /// The computed linking-objects properties: never stored, so a schema
    /// read from a file has none (see `LinkingObjectsProperty`).
    public var linkingObjects: [LinkingObjectsProperty]

    public init(name: String, properties: [Property], isEmbedded: Bool = false, key: UInt32 = 0,
                linkingObjects: [LinkingObjectsProperty] = []) {
        self.name = name
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.key = key
        self.linkingObjects = linkingObjects
    }

    public var primaryKey: Property? { properties.first { $0.isPrimaryKey } }

    public func property(named name: String) -> Property? { properties.first { $0.name == name } }

    /// The linking-objects property `name`, if the class has one.
    public func linkingObjects(named name: String) -> LinkingObjectsProperty? { linkingObjects.first { $0.name == name } }

    public func property(key: UInt32) -> Property? { properties.first { $0.key == key } }
}

/// A set of classes: what a realm holds or what a program wants it to hold.
public struct Schema: Sendable, Equatable {
    public var classes: [ObjectClass]

    /// The longest class or property name, in bytes of UTF-8.
    public static let maxNameBytes = 255
    /// The most classes a schema may describe.
    public static let maxClasses = 99_999
    /// The most properties a class may have.
    public static let maxProperties = 60_000

    public init(classes: [ObjectClass]) { self.classes = classes }

    public func objectClass(named name: String) -> ObjectClass? { classes.first { $0.name == name } }

    public func objectClass(key: UInt32) -> ObjectClass? { classes.first { $0.key == key } }

    /// Check names, types, primary keys and indexes; throws `.invalidSchema`.
    public func validate() throws(FiefError) {
        var classNames = Set<String>()
        for objectClass in classes {
            if let problem = Schema.nameProblem(objectClass.name) {
                throw FiefError(.invalidSchema, "invalid class name \(problem)")
            }
            guard classNames.insert(objectClass.name).inserted else {
                throw FiefError(.invalidSchema, "class '\(objectClass.name)' is defined twice")
            }
            var propertyNames = Set<String>()
            var primaryKeys = 0
            for property in objectClass.properties {
                if let problem = Schema.nameProblem(property.name) {
                    throw FiefError(.invalidSchema, "invalid property name \(problem) in class '\(objectClass.name)'")
                }
                guard propertyNames.insert(property.name).inserted else {
                    throw FiefError(.invalidSchema, "property '\(objectClass.name).\(property.name)' is defined twice")
                }
                if property.flags.rawValue & ~UInt32(15) != 0 {
                    throw FiefError(.invalidSchema, "property '\(objectClass.name).\(property.name)' has unknown flags \(property.flags.rawValue)")
                }
                if property.collection != .none {
                    try validateCollection(property, of: objectClass)
                }
                if property.isPrimaryKey {
                    primaryKeys += 1
                    guard property.type.canBePrimaryKey else {
                        throw FiefError(.invalidSchema, "property '\(objectClass.name).\(property.name)' of type \(property.type.name) cannot be a primary key (int, string, objectId and uuid can)")
                    }
                }
                if property.isIndexed && !property.type.canBeIndexed {
                    throw FiefError(.invalidSchema, "property '\(objectClass.name).\(property.name)' of type \(property.type.name) cannot be indexed")
                }
                try validateLink(property, of: objectClass)
                if property.isFullTextIndexed { try validateFullText(property, of: objectClass) }
            }
            for linkingObjects in objectClass.linkingObjects {
                if let problem = Schema.nameProblem(linkingObjects.name) {
                    throw FiefError(.invalidSchema, "invalid property name \(problem) in class '\(objectClass.name)'")
                }
                guard propertyNames.insert(linkingObjects.name).inserted else {
                    throw FiefError(.invalidSchema, "property '\(objectClass.name).\(linkingObjects.name)' is defined twice")
                }
                if let problem = linkingObjectsProblem(linkingObjects, of: objectClass.name) {
                    throw FiefError(.invalidSchema, problem)
                }
            }
            if objectClass.isEmbedded && primaryKeys > 0 {
                throw FiefError(.invalidSchema, "embedded class '\(objectClass.name)' cannot have a primary key: embedded objects are found through their parent")
            }
            if primaryKeys > 1 {
                throw FiefError(.invalidSchema, "class '\(objectClass.name)' has \(primaryKeys) primary keys; at most one is allowed")
            }
            if objectClass.properties.count + objectClass.linkingObjects.count > Schema.maxProperties {
                throw FiefError(.invalidSchema, "class '\(objectClass.name)' has \(objectClass.properties.count + objectClass.linkingObjects.count) properties; a class has at most \(Schema.maxProperties)")
            }
        }
        if classes.count > Schema.maxClasses {
            throw FiefError(.invalidSchema, "the schema has \(classes.count) classes; a schema has at most \(Schema.maxClasses)")
        }
    }

    /// A collection is neither a primary key nor indexed.  Lists and sets of
    /// links hold no null (a deleted object leaves them); a map's links are
    /// optional (a deleted object leaves its key, with null).  Sets hold no
    /// embedded objects (they have no identity to compare).
    private func validateCollection(_ property: Property, of objectClass: ObjectClass) throws(FiefError) {
        let kind = property.collection.name
        let name = "'\(objectClass.name).\(property.name)'"
        if property.isPrimaryKey || property.isIndexed {
            throw FiefError(.invalidSchema, "\(kind) \(name) cannot be \(property.isPrimaryKey ? "a primary key" : "indexed")")
        }
        guard property.type == .link else { return }
        switch property.collection {
        case .list, .set:
            if property.isNullable {
                throw FiefError(.invalidSchema, "\(kind) \(name) of links cannot hold null: its elements are objects (a deleted object leaves the \(kind))")
            }
            if property.collection == .set, let target = property.linkTarget, self.objectClass(named: target)?.isEmbedded == true {
                throw FiefError(.invalidSchema, "set \(name) cannot hold objects of the embedded class '\(target)': use a list")
            }
        case .map:
            if !property.isNullable {
                throw FiefError(.invalidSchema, "map \(name) of links must have optional values: a deleted object leaves its key with null")
            }
        case .none:
            break
        }
    }

    /// A full-text index is on a single string property that is neither
    /// the primary key nor (regularly) indexed.
    private func validateFullText(_ property: Property, of objectClass: ObjectClass) throws(FiefError) {
        let name = "'\(objectClass.name).\(property.name)'"
        guard property.type == .string && property.collection == .none else {
            let what = property.collection == .none ? property.type.name : "\(property.collection.name) of \(property.type.name)"
            throw FiefError(.invalidSchema, "property \(name) (\(what)) cannot have a full-text index: only string properties can")
        }
        if property.isPrimaryKey {
            throw FiefError(.invalidSchema, "property \(name) cannot be both the primary key and full-text indexed")
        }
        if property.isIndexed {
            throw FiefError(.invalidSchema, "property \(name) cannot be both indexed and full-text indexed: choose one")
        }
    }

    /// A link names a class of this schema and is optional; no other
    /// property names a target.
    private func validateLink(_ property: Property, of objectClass: ObjectClass) throws(FiefError) {
        let name = "'\(objectClass.name).\(property.name)'"
        if property.type == .mixed && property.isPrimaryKey {
            throw FiefError(.invalidSchema, "mixed property '\(objectClass.name).\(property.name)' cannot be a primary key (it can be indexed)")
        }
        guard property.type == .link else {
            if property.linkTarget != nil {
                throw FiefError(.invalidSchema, "property \(name) of type \(property.type.name) cannot have a link target (only links do)")
            }
            return
        }
        guard let target = property.linkTarget else {
            throw FiefError(.invalidSchema, "link \(name) has no target class")
        }
        guard self.objectClass(named: target) != nil else {
            throw FiefError(.invalidSchema, "link \(name) points to class '\(target)', which the schema does not have")
        }
        guard property.isNullable || property.collection != .none else {
            throw FiefError(.invalidSchema, "link \(name) must be optional: a to-one link is null until set, and when its target is deleted")
        }
    }

    /// What is wrong with linking-objects property `linkingObjects` of class
    /// `className` in this schema, or nil: its origin must be a link, or a
    /// list, set or map of links (as realm-core allows), of a class of the
    /// schema, pointing to class `className`.
    public func linkingObjectsProblem(_ linkingObjects: LinkingObjectsProperty, of className: String) -> String? {
        let name = "linking-objects property '\(className).\(linkingObjects.name)'"
        let origin = "'\(linkingObjects.originClass).\(linkingObjects.originProperty)'"
        guard let originClass = objectClass(named: linkingObjects.originClass) else {
            return "\(name) names origin class '\(linkingObjects.originClass)', which the schema does not have"
        }
        guard let property = originClass.property(named: linkingObjects.originProperty) else {
            if originClass.linkingObjects(named: linkingObjects.originProperty) != nil {
                return "\(name) names origin property \(origin), which is linking objects, not a link"
            }
            return "\(name) names origin property \(origin), which does not exist"
        }
        guard property.type == .link else {
            return "\(name) names origin property \(origin), which is \(property.collection == .none ? "" : "a \(property.collection.name) of ")\(property.type.name)\(property.collection == .none ? "" : "s"), not a link"
        }
        guard property.linkTarget == className else {
            return "\(name) names origin property \(origin), which links to class '\(property.linkTarget ?? "")', not '\(className)'"
        }
        return nil
    }

    /// This schema (read from a file) with the linking-objects properties
    /// `declared` gives its classes, by class name: those whose name no
    /// stored property of the class takes and whose origin is (still) a link
    /// to the class.
    public func addingLinkingObjects(_ declared: [String: [LinkingObjectsProperty]]) -> Schema {
        guard !declared.isEmpty else { return self }
        var result = self
        for index in result.classes.indices {
            let objectClass = result.classes[index]
            guard let wanted = declared[objectClass.name] else { continue }
            result.classes[index].linkingObjects = wanted.filter {
                objectClass.property(named: $0.name) == nil && linkingObjectsProblem($0, of: objectClass.name) == nil
            }
        }
        return result
    }

    /// The linking-objects properties of the classes of this schema, by class name.
    public var linkingObjectsByClass: [String: [LinkingObjectsProperty]] {
        var result: [String: [LinkingObjectsProperty]] = [:]
        for objectClass in classes where !objectClass.linkingObjects.isEmpty { result[objectClass.name] = objectClass.linkingObjects }
        return result
    }

    public static func isValidName(_ name: String) -> Bool { nameProblem(name) == nil }

    /// What is wrong with a class or property name (quoted, shortened if
    /// long, then the rule), or nil if it is a valid one: 1 to
    /// `maxNameBytes` bytes of UTF-8 without NUL.
    public static func nameProblem(_ name: String) -> String? {
        let bytes = name.utf8
        let rule = "names are 1 to \(maxNameBytes) bytes of UTF-8 without NUL"
        if bytes.isEmpty { return "'': \(rule)" }
        if bytes.count > maxNameBytes {
            return "'\(name.prefix(32))...' (\(bytes.count) bytes): \(rule)"
        }
        if bytes.contains(0) { return "'\(name.replacingNUL())' (contains NUL): \(rule)" }
        return nil
    }
}

private extension String {
    func replacingNUL() -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in unicodeScalars { scalars.append(scalar == "\0" ? "\u{FFFD}" : scalar) }
        return String(scalars)
    }
}
