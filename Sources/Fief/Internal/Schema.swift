// Schema discovery: from a Swift class to the class description the C layer
// takes (fief_schema_new), with Mirror over a throwaway instance, as RealmSwift
// does on every platform for @Persisted models.

import CFief
import Foundation

/// One persisted property of a Swift model class.
struct PropertyInfo {
    let name: String
    let type: fief_type_t
    let isOptional: Bool
    let isIndexed: Bool
    let isPrimaryKey: Bool
    let valueType: any _Persistable.Type
    /// Whether it has a full-text index (`FIEF_PROPERTY_FULLTEXT_INDEXED`).
    var isFullTextIndexed = false
    /// For a link of a class known only by name (the dynamic API): the
    /// name of the class it points to.
    var dynamicLinkTarget: String? = nil
    /// The name the file stores it under, when the class's
    /// `propertiesMapping()` gives one other than `name`.
    var columnName: String? = nil
    /// The name in the file (and in the C schema).
    var storedName: String { columnName ?? name }
    /// For a link, or a list of objects: the class it points to.
    var linkTarget: ObjectBase.Type? { valueType._fiefLinkTarget }
    /// `FIEF_COLLECTION_LIST`, `_SET` or `_MAP` for a collection of `type`
    /// (List, MutableSet, Map); `FIEF_COLLECTION_NONE` for one value.
    var collectionType: fief_collection_type_t {
        (valueType as? FiefCollectionProtocol.Type)?.fiefCollectionType ?? fief_collection_type_t(FIEF_COLLECTION_NONE)
    }
    /// Whether the property is a collection (List, MutableSet or Map).
    var isCollection: Bool { valueType is FiefCollectionProtocol.Type }
    /// For a link: the name of the class it points to.
    var linkTargetName: String? { dynamicLinkTarget ?? linkTarget?.className() }
}

/// One linking-objects property of a Swift model class
/// (`@Persisted(originProperty: "members") var clubs: LinkingObjects<DogClub>`):
/// computed, never stored, declared to the C layer so that queries can
/// name it (FIEF_COLLECTION_LINKING_OBJECTS).
struct LinkingObjectsInfo {
    let name: String
    /// The class whose property links here (`DogClub`).
    let originType: ObjectBase.Type
    /// Its property that links here (`members`).
    let originProperty: String
}

/// What the overlay knows about one model class, discovered once per process.
final class ObjectSchemaInfo: @unchecked Sendable {
    let type: ObjectBase.Type
    let className: String
    let properties: [PropertyInfo]
    /// The linking-objects properties (not among `properties`: nothing is stored).
    let linkingObjects: [LinkingObjectsInfo]
    let propertyIndex: [String: Int]
    let primaryKeyIndex: Int?
    let isEmbedded: Bool
    /// Where each property's storage lies in instances (nil if unknown;
    /// set once while discovering).
    private(set) var fieldTable: FieldTable?
    /// Storage key path (`\Dog._name`) to property index, learnt on first use.
    private let keyPaths = Locked<[AnyKeyPath: Int]>([:])

    private static let cache = Locked<[ObjectIdentifier: ObjectSchemaInfo]>([:])

    /// The schema of `type` (discovered on first call, then cached).
    static func of(_ type: ObjectBase.Type) -> ObjectSchemaInfo {
        let id = ObjectIdentifier(type)
        if let info = cache.withLock({ $0[id] }) { return info }
        let info = ObjectSchemaInfo(discovering: type)
        return cache.withLock { table in
            if let existing = table[id] { return existing }
            table[id] = info
            return info
        }
    }

    private init(discovering type: ObjectBase.Type) {
        self.type = type
        className = type.className()
        isEmbedded = type is EmbeddedObject.Type
        var properties: [PropertyInfo] = []
        var linkingObjects: [LinkingObjectsInfo] = []
        let columnNames = type.propertiesMapping()
        ObjectSchemaInfo.forEachPersisted(of: type.init()) { name, persisted in
            let valueType = Swift.type(of: persisted).fiefValueType
            // Linking objects are computed from the links that point here.
            if let kind = valueType as? _FiefLinkingObjects.Type {
                if let origin = persisted.linkingOriginProperty {
                    linkingObjects.append(LinkingObjectsInfo(name: name, originType: kind._fiefOriginType, originProperty: origin))
                }
                return
            }
            // A to-one link is nullable whatever the Swift type says (a
            // custom type mapped to an embedded object); a collection's
            // elements are as optional as the element type is stored.
            let isToOneLink = valueType._fiefType == FIEF_TYPE_LINK && !(valueType is FiefCollectionProtocol.Type)
            properties.append(PropertyInfo(name: name, type: valueType._fiefType,
                                           isOptional: valueType._fiefIsOptional || isToOneLink,
                                           isIndexed: persisted.isIndexed,
                                           isPrimaryKey: persisted.isPrimaryKey, valueType: valueType,
                                           isFullTextIndexed: persisted.isFullTextIndexed,
                                           columnName: columnNames[name].flatMap { $0 == name ? nil : $0 }))
        }
        if !columnNames.isEmpty { ObjectSchemaInfo.customNamesDeclared.withLock { $0 = true } }
        let primaryKeys = properties.indices.filter { properties[$0].isPrimaryKey }
        precondition(primaryKeys.count <= 1,
                     "Class '\(className)' declares more than one primary key: \(primaryKeys.map { properties[$0].name })")
        self.properties = properties
        self.linkingObjects = linkingObjects
        primaryKeyIndex = primaryKeys.first
        var index: [String: Int] = [:]
        for (i, property) in properties.enumerated() {
            precondition(index[property.name] == nil, "Class '\(className)' has two properties named '\(property.name)'")
            index[property.name] = i
        }
        propertyIndex = index
        var stored: [String: Int] = [:]
        for (i, property) in properties.enumerated() where property.columnName != nil {
            precondition(index[property.storedName] == nil && stored[property.storedName] == nil,
                         "Class '\(className)' stores two properties as '\(property.storedName)'")
            stored[property.storedName] = i
        }
        storedNameIndex = stored
        fieldTable = FieldTable.make(for: self)
    }

    /// Stored name → property index, for the properties whose stored name
    /// differs from their Swift name (`propertiesMapping()`).
    private(set) var storedNameIndex: [String: Int] = [:]

    /// Whether any class discovered so far has custom stored names: until
    /// one has, queries are passed on unchanged.
    static let customNamesDeclared = Locked(false)

    /// Whether this class, or a class its key paths reach (links, linking
    /// objects), stores a property under another name: if none does, its
    /// queries are passed on unchanged.  Found once.
    private var reachesCustomNames: Bool {
        guard ObjectSchemaInfo.customNamesDeclared.withLock({ $0 }) else { return false }
        if let known = reachesCustomNamesCache.withLock({ $0 }) { return known }
        var seen: Set<ObjectIdentifier> = []
        var pending: [ObjectSchemaInfo] = [self]
        var found = false
        while let info = pending.popLast(), !found {
            guard seen.insert(ObjectIdentifier(info)).inserted else { continue }
            if !info.storedNameIndex.isEmpty { found = true }
            pending += info.properties.compactMap { info.targetInfo(of: $0) }
            pending += info.linkingObjects.map { ObjectSchemaInfo.of($0.originType) }
        }
        reachesCustomNamesCache.withLock { $0 = found }
        return found
    }
    private let reachesCustomNamesCache = Locked<Bool?>(nil)

    /// The Swift name of the property stored as `stored`, if it has another.
    func swiftName(forStored stored: String) -> String? {
        storedNameIndex[stored].map { properties[$0].name }
    }

    /// The class a property's links point to, as the overlay knows it.
    private func targetInfo(of property: PropertyInfo) -> ObjectSchemaInfo? {
        if let name = property.dynamicLinkTarget {
            return SchemaRegistry.type(named: name).map(ObjectSchemaInfo.of)
        }
        return property.linkTarget.map(ObjectSchemaInfo.of)
    }

    /// `path` (`"owner.firstName"`, a key path of this class in the query
    /// language) with every property named as the file stores it
    /// (`"owner.first_name"`); stored names may be given already.  Segments
    /// that name no property (`@count`, a map key) are kept.
    func storedPath(_ path: String) -> String {
        guard reachesCustomNames else { return path }
        return mappedPath(path).text
    }

    /// `path` mapped as `storedPath` maps it, and the class it ends at (nil
    /// where it leaves objects).  With `backlinks`, a linking-objects
    /// property is written as the backlinks it stands for
    /// (`@links.Person.custom_pets`), as RealmSwift resolves it.
    private func mappedPath(_ path: String, backlinks: Bool = false) -> (text: String, target: ObjectSchemaInfo?) {
        var info: ObjectSchemaInfo? = self
        var segments: [String] = []
        for segment in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            guard let current = info else {
                segments.append(segment)
                continue
            }
            if let i = current.propertyIndex[segment] ?? current.storedNameIndex[segment] {
                segments.append(current.properties[i].storedName)
                info = current.targetInfo(of: current.properties[i])
            } else if let linking = current.linkingObjects.first(where: { $0.name == segment }) {
                let origin = ObjectSchemaInfo.of(linking.originType)
                if backlinks {
                    let property = origin.propertyIndex[linking.originProperty].map { origin.properties[$0].storedName } ?? linking.originProperty
                    segments.append("@links.\(origin.className).\(property)")
                } else {
                    segments.append(segment)
                }
                info = origin
            } else {
                segments.append(segment)
                info = nil
            }
        }
        return (segments.joined(separator: "."), info)
    }

    /// Whether this class, or a class its key paths reach, has linking
    /// objects (which key-path arguments name as backlinks).  Found once.
    private var reachesLinkingObjects: Bool {
        if let known = reachesLinkingObjectsCache.withLock({ $0 }) { return known }
        var seen: Set<ObjectIdentifier> = []
        var pending: [ObjectSchemaInfo] = [self]
        var found = false
        while let info = pending.popLast(), !found {
            guard seen.insert(ObjectIdentifier(info)).inserted else { continue }
            if !info.linkingObjects.isEmpty { found = true }
            pending += info.properties.compactMap { info.targetInfo(of: $0) }
        }
        reachesLinkingObjectsCache.withLock { $0 = found }
        return found
    }
    private let reachesLinkingObjectsCache = Locked<Bool?>(nil)

    /// `predicate` (the query language) with every key path of this class
    /// named as the file stores it (`storedPath`), inside subqueries too (a
    /// subquery variable's key paths are those of the class its collection
    /// holds); string literals and arguments (`$0`) are kept.
    func storedQuery(_ predicate: String) -> String {
        guard reachesCustomNames else { return predicate }
        let chars = Array(predicate)
        var i = 0
        return storedQuery(chars, &i, variables: [:], until: nil)
    }

    /// The predicate text of `chars` from `i` mapped (see `storedQuery`), up
    /// to the end or, with `stop`, the first `stop` character outside
    /// parentheses and quotes (left at `i`).  `variables`: the subquery
    /// variables in scope and the classes they range over.
    private func storedQuery(_ chars: [Character], _ i: inout Int, variables: [String: ObjectSchemaInfo?],
                             until stop: Character?) -> String {
        func isStart(_ c: Character) -> Bool { c == "_" || c.isLetter }
        func isPart(_ c: Character) -> Bool { c == "_" || c.isLetter || c.isNumber }
        var out = ""
        var depth = 0
        while i < chars.count {
            let c = chars[i]
            if let stop, c == stop, depth == 0 { break }
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if c == "'" || c == "\"" {
                // A string literal, escapes included.
                var j = i + 1
                while j < chars.count && chars[j] != c { j += chars[j] == "\\" ? 2 : 1 }
                let end = min(j + 1, chars.count)
                out += String(chars[i..<end])
                i = end
            } else if c == "$" || c == "@" || c == "#" {
                // An argument, a subquery variable with its key path (mapped
                // through the class it ranges over), or an operator with its
                // key path.
                var j = i + 1
                while j < chars.count && isPart(chars[j]) { j += 1 }
                let name = String(chars[(i + 1)..<j])
                var k = j
                while k < chars.count && (isPart(chars[k]) || chars[k] == ".") { k += 1 }
                if c == "$", k > j, chars[j] == ".", let ranged = variables[name], let target = ranged {
                    out += "$" + name + "." + target.mappedPath(String(chars[(j + 1)..<k])).text
                } else {
                    out += String(chars[i..<k])
                }
                i = k
            } else if isStart(c) && (i == 0 || !(isPart(chars[i - 1]) || chars[i - 1] == ".")) {
                var j = i
                while j < chars.count && (isPart(chars[j]) || (chars[j] == "." && j + 1 < chars.count && isStart(chars[j + 1]))) { j += 1 }
                let path = String(chars[i..<j])
                i = j
                if path.uppercased() == "SUBQUERY", let subquery = storedSubquery(chars, &i, variables: variables) {
                    out += path + subquery
                    continue
                }
                let first = path.split(separator: ".").first.map(String.init) ?? path
                if propertyIndex[first] != nil || storedNameIndex[first] != nil || linkingObjects.contains(where: { $0.name == first }) {
                    out += mappedPath(path).text
                } else {
                    out += path
                }
            } else {
                out.append(c)
                i += 1
            }
        }
        return out
    }

    /// After the word SUBQUERY (`i` just past it): `(collection, $variable,
    /// predicate)` mapped, the collection's key path (of this class, or of a
    /// variable in scope) as `storedPath` maps it and the predicate with the
    /// variable ranging over the class the collection holds.  Nil, `i` kept,
    /// where the text is not of that form.
    private func storedSubquery(_ chars: [Character], _ i: inout Int, variables: [String: ObjectSchemaInfo?]) -> String? {
        var j = i
        func skipSpaces() { while j < chars.count && chars[j].isWhitespace { j += 1 } }
        func word() -> String {
            let from = j
            while j < chars.count && (chars[j] == "_" || chars[j] == "$" || chars[j] == "." || chars[j].isLetter || chars[j].isNumber) { j += 1 }
            return String(chars[from..<j])
        }
        skipSpaces()
        guard j < chars.count, chars[j] == "(" else { return nil }
        j += 1
        skipSpaces()
        let head = String(chars[i..<j])
        let collection = word()
        let afterCollection = j
        skipSpaces()
        guard !collection.isEmpty, j < chars.count, chars[j] == "," else { return nil }
        j += 1
        skipSpaces()
        let variable = word()
        skipSpaces()
        guard variable.hasPrefix("$"), variable.count > 1, !variable.contains("."), j < chars.count, chars[j] == "," else { return nil }
        j += 1
        let middle = String(chars[afterCollection..<j])
        // The collection: a key path of this class, or of a variable in scope.
        var mappedCollection = collection
        var ranged: ObjectSchemaInfo?
        if collection.hasPrefix("$") {
            let parts = collection.dropFirst().split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2, let outer = variables[parts[0]], let outer {
                let mapped = outer.mappedPath(parts[1])
                mappedCollection = "$" + parts[0] + "." + mapped.text
                ranged = mapped.target
            }
        } else {
            let mapped = mappedPath(collection)
            mappedCollection = mapped.text
            ranged = mapped.target
        }
        var inner = variables
        inner[String(variable.dropFirst())] = .some(ranged)
        let predicate = storedQuery(chars, &j, variables: inner, until: ")")
        guard j < chars.count, chars[j] == ")" else { return nil }
        i = j + 1
        return head + mappedCollection + middle + predicate + ")"
    }

    /// `args` of `predicate` with each key-path argument (a `%K`, which
    /// takes the next argument as `%@` and number specifiers do, or `$Kn`,
    /// argument n) named as the file stores it (`storedPath`), and its
    /// linking-objects properties written as the backlinks they stand for
    /// (`@links.Person.dogs`), as RealmSwift resolves them.
    func storedQueryArguments(_ predicate: String, _ args: [Any]) -> [Any] {
        guard predicate.contains("%K") || predicate.contains("$K"), reachesCustomNames || reachesLinkingObjects else { return args }
        let chars = Array(predicate)
        var keyPathArguments = Set<Int>()
        var next = 0
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "'" || c == "\"" {
                var j = i + 1
                while j < chars.count && chars[j] != c { j += chars[j] == "\\" ? 2 : 1 }
                i = j + 1
            } else if c == "%", i + 1 < chars.count, chars[i + 1] != "%" {
                if chars[i + 1] == "K" { keyPathArguments.insert(next) }
                next += 1
                i += 2
            } else if c == "%" {
                i += 2
            } else if c == "$", i + 1 < chars.count, chars[i + 1] == "K" {
                var j = i + 2
                while j < chars.count && chars[j].isNumber { j += 1 }
                if let n = Int(String(chars[(i + 2)..<j])) { keyPathArguments.insert(n) }
                i = j
            } else {
                i += 1
            }
        }
        var mapped = args
        for n in keyPathArguments where n < mapped.count {
            if let path = fiefUnwrap(mapped[n]) as? String { mapped[n] = mappedPath(path, backlinks: true).text }
        }
        return mapped
    }

    /// The schema of class `cls` of a realm's file, for the dynamic API:
    /// its scalar and to-one link properties, read as `DynamicObject`s with
    /// the Swift type of each column, and its lists, sets and maps of those
    /// (`List<Int>`, `MutableSet<DynamicObject>`, `Map<String, DynamicObject?>`);
    /// mixed properties and collections as `AnyRealmValue` and collections of it.
    init(dynamicClass cls: fief_class_info_t, properties cProperties: [fief_property_info_t]) {
        type = DynamicObject.self
        className = cls.name.map { String(cString: $0) } ?? ""
        isEmbedded = cls.flags & UInt32(FIEF_CLASS_EMBEDDED) != 0
        var properties: [PropertyInfo] = []
        var keys: [fief_property_key_t] = []
        for p in cProperties {
            guard let cName = p.name else { continue }
            let optional = p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0
            let valueType: (any _Persistable.Type)?
            if p.collection_type == fief_collection_type_t(FIEF_COLLECTION_NONE) {
                valueType = dynamicValueType(p.type, optional: optional)
            } else {
                valueType = dynamicCollectionType(p.collection_type, of: p.type, optional: optional)
            }
            guard let valueType else { continue }
            let isCollection = p.collection_type != fief_collection_type_t(FIEF_COLLECTION_NONE)
            properties.append(PropertyInfo(name: String(cString: cName), type: p.type,
                                           isOptional: (optional && p.type != FIEF_TYPE_MIXED) || (p.type == FIEF_TYPE_LINK && !isCollection),
                                           isIndexed: p.flags & UInt32(FIEF_PROPERTY_INDEXED) != 0,
                                           isPrimaryKey: p.flags & UInt32(FIEF_PROPERTY_PRIMARY_KEY) != 0,
                                           valueType: valueType,
                                           isFullTextIndexed: p.flags & UInt32(FIEF_PROPERTY_FULLTEXT_INDEXED) != 0,
                                           dynamicLinkTarget: p.link_target.map { String(cString: $0) }))
            keys.append(p.key)
        }
        // A model class of this name with custom stored names: its
        // properties go by their Swift names, as in RealmSwift.
        if let declared = SchemaRegistry.type(named: className), !declared.propertiesMapping().isEmpty {
            let declaredInfo = ObjectSchemaInfo.of(declared)
            properties = properties.map { property in
                guard let swiftName = declaredInfo.swiftName(forStored: property.name) else { return property }
                var renamed = PropertyInfo(name: swiftName, type: property.type, isOptional: property.isOptional,
                                           isIndexed: property.isIndexed, isPrimaryKey: property.isPrimaryKey,
                                           valueType: property.valueType, isFullTextIndexed: property.isFullTextIndexed,
                                           dynamicLinkTarget: property.dynamicLinkTarget)
                renamed.columnName = property.name
                return renamed
            }
        }
        var stored: [String: Int] = [:]
        for (i, property) in properties.enumerated() where property.columnName != nil { stored[property.storedName] = i }
        storedNameIndex = stored
        self.properties = properties
        linkingObjects = []
        dynamicPropertyKeys = keys
        primaryKeyIndex = properties.firstIndex { $0.isPrimaryKey }
        var index: [String: Int] = [:]
        for (i, property) in properties.enumerated() { index[property.name] = i }
        propertyIndex = index
    }

    /// For a dynamic class: the property keys of `properties`.
    private(set) var dynamicPropertyKeys: [fief_property_key_t] = []

    /// Calls `body` with the name and wrapper of every `@Persisted` stored
    /// property of `object`, superclass properties first.
    static func forEachPersisted(of object: ObjectBase, _ body: (String, DiscoverablePersisted) -> Void) {
        var levels: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            levels.append(current)
            mirror = current.superclassMirror
        }
        for level in levels.reversed() {
            for child in level.children {
                guard let label = child.label, let persisted = child.value as? DiscoverablePersisted else { continue }
                // The compiler names a wrapper's storage "_name".
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                body(name, persisted)
            }
        }
    }

    /// The index of the property whose wrapper storage `keyPath` names.  The
    /// first time, `mark` writes a probe through the key path into a fresh
    /// instance, and Mirror finds which field changed.
    func index(ofStorage keyPath: AnyKeyPath, mark: (ObjectBase) -> Void) -> Int {
        if let index = keyPaths.withLock({ $0[keyPath] }) { return index }
        let prototype = type.init()
        mark(prototype)
        var found: Int?
        ObjectSchemaInfo.forEachPersisted(of: prototype) { name, persisted in
            if persisted.isProbe { found = propertyIndex[name] }
        }
        guard let index = found else {
            preconditionFailure("Property \(keyPath) is not a persisted property of '\(className)'")
        }
        keyPaths.withLock { $0[keyPath] = index }
        return index
    }

    /// The query-language path a key path (`\Dog.name`, `\Dog.favoriteToy?.name`)
    /// names, from the key-path recorder (Internal/KeyPathRecorder.swift).
    func propertyName(for keyPath: AnyKeyPath) -> String {
        fiefKeyPathString(keyPath, of: type)
    }
}

/// The Swift type the dynamic API reads a column of `type` as.
private func dynamicValueType(_ type: fief_type_t, optional: Bool) -> (any _Persistable.Type)? {
    switch type {
    case FIEF_TYPE_INT: return optional ? Int?.self : Int.self
    case FIEF_TYPE_BOOL: return optional ? Bool?.self : Bool.self
    case FIEF_TYPE_FLOAT: return optional ? Float?.self : Float.self
    case FIEF_TYPE_DOUBLE: return optional ? Double?.self : Double.self
    case FIEF_TYPE_STRING: return optional ? String?.self : String.self
    case FIEF_TYPE_BINARY: return optional ? Data?.self : Data.self
    case FIEF_TYPE_TIMESTAMP: return optional ? Date?.self : Date.self
    case FIEF_TYPE_DECIMAL128: return optional ? Decimal128?.self : Decimal128.self
    case FIEF_TYPE_OBJECT_ID: return optional ? ObjectId?.self : ObjectId.self
    case FIEF_TYPE_UUID: return optional ? UUID?.self : UUID.self
    case FIEF_TYPE_LINK: return DynamicObject?.self
    case FIEF_TYPE_MIXED: return AnyRealmValue.self
    default: return nil
    }
}

/// The Swift type the dynamic API reads a collection column of `type` as:
/// a list, set or map of the column's element type; objects as
/// `DynamicObject` (`DynamicObject?` in a map, whose values may be nil).
private func dynamicCollectionType(_ kind: fief_collection_type_t, of type: fief_type_t, optional: Bool) -> (any _Persistable.Type)? {
    let isMap = kind == fief_collection_type_t(FIEF_COLLECTION_MAP)
    let element: (any RealmCollectionValue.Type)?
    if type == FIEF_TYPE_LINK {
        element = isMap ? DynamicObject?.self : DynamicObject.self
    } else {
        element = dynamicValueType(type, optional: optional) as? any RealmCollectionValue.Type
    }
    guard let element else { return nil }
    func collection<T: RealmCollectionValue>(of _: T.Type) -> (any _Persistable.Type)? {
        switch kind {
        case fief_collection_type_t(FIEF_COLLECTION_LIST): return List<T>.self
        case fief_collection_type_t(FIEF_COLLECTION_SET): return MutableSet<T>.self
        case fief_collection_type_t(FIEF_COLLECTION_MAP): return Map<String, T>.self
        default: return nil
        }
    }
    return collection(of: element)
}

/// `infos` and the classes their links point to and their linking objects
/// come from, transitively (a realm's schema must have every class a link
/// or linking-objects property of it names).
func withLinkTargets(_ infos: [ObjectSchemaInfo]) -> [ObjectSchemaInfo] {
    var result = infos
    var seen = Set(infos.map { ObjectIdentifier($0.type) })
    var i = 0
    while i < result.count {
        let named = result[i].properties.compactMap(\.linkTarget) + result[i].linkingObjects.map(\.originType)
        for target in named where seen.insert(ObjectIdentifier(target)).inserted {
            result.append(ObjectSchemaInfo.of(target))
        }
        i += 1
    }
    return result
}

/// The model classes of the program: what realms opened without
/// `objectTypes` hold (RealmSwift's default schema).  Filled first by class
/// discovery (Internal/ClassDiscovery.swift) at the first open that needs
/// it; then by classes as they are used, for those discovery leaves out (a
/// name two discovered classes share, a class of a library loaded later, or
/// every class if the runtime's sections could not be read).
enum SchemaRegistry {
    private struct State {
        var discovered = false
        var ids: Set<ObjectIdentifier> = []
        var types: [ObjectBase.Type] = []
    }

    private static let state = Locked(State())
    /// Serializes discovery (which calls metadata accessors) without
    /// holding `state`, which `noteUsed` takes from `init()`.
    private static let discoveryLock = NSLock()

    /// Records `type` (called by every `ObjectBase.init`).
    static func noteUsed(_ type: ObjectBase.Type) {
        if type == Object.self || type == ObjectBase.self { return }
        // Embedded classes join schemas through the links that own them
        // (`withLinkTargets`), or when discovered or listed in objectTypes.
        if type is EmbeddedObject.Type || type == DynamicObject.self { return }
        // The class of scratch realms (Internal/ScratchQuery.swift) joins no other schema.
        if type is FiefScratchClass.Type { return }
        let id = ObjectIdentifier(type)
        state.withLock { state in
            if state.ids.insert(id).inserted { state.types.append(type) }
        }
    }

    /// Runs class discovery once per process (the first open without
    /// `objectTypes`, the first look-up of a class by name).
    static func discoverIfNeeded() {
        if state.withLock({ $0.discovered }) { return }
        discoveryLock.withLock {
            if state.withLock({ $0.discovered }) { return }
            let found = ClassDiscovery.modelClasses()
            var byName: [String: [ObjectBase.Type]] = [:]
            for type in found { byName[type.className(), default: []].append(type) }
            state.withLock { state in
                // Discovered classes first, in section order; a name two
                // classes share is left to the classes' first use.
                let unique = found.filter { byName[$0.className()]?.count == 1 }
                let used = state.types
                state.ids = []
                state.types = []
                for type in unique + used where state.ids.insert(ObjectIdentifier(type)).inserted {
                    state.types.append(type)
                }
                state.discovered = true
            }
        }
    }

    /// The classes of the default schema: the discovered ones, then those
    /// used since, in order of first use.
    static var defaultTypes: [ObjectBase.Type] {
        discoverIfNeeded()
        return state.withLock { $0.types }
    }

    /// The default schema's class named `name`, if any.
    static func type(named name: String) -> ObjectBase.Type? {
        defaultTypes.first { $0.className() == name }
    }
}

// MARK: - Building C schemas

/// A `fief_schema_t` describing `infos` (fief_schema_new); nil with the C
/// error when the engine rejects it.  Linking-objects properties are
/// declared when their origin class is among `infos` (explicit `objectTypes`
/// may leave it out: such a property is then not named in queries).
func makeCSchema(_ infos: [ObjectSchemaInfo]) -> Result<CHandle, CError> {
    let arena = _FiefArena()
    var classes: [fief_class_info_t] = []
    var propertyArrays: [UnsafePointer<fief_property_info_t>?] = []
    let classNames = Set(infos.map(\.className))
    for info in infos {
        var cls = fief_class_info_t()
        cls.name = arena.cString(info.className)
        cls.flags = info.isEmbedded ? UInt32(FIEF_CLASS_EMBEDDED) : 0
        let linkingObjects: [fief_property_info_t] = info.linkingObjects.compactMap { linking in
            let origin = linking.originType.className()
            guard classNames.contains(origin) else { return nil }
            var p = fief_property_info_t()
            p.name = arena.cString(linking.name)
            p.type = FIEF_TYPE_LINK
            p.collection_type = fief_collection_type_t(FIEF_COLLECTION_LINKING_OBJECTS)
            p.link_target = arena.cString(origin)
            let originInfo = ObjectSchemaInfo.of(linking.originType)
            p.link_origin_property = arena.cString(originInfo.propertyIndex[linking.originProperty].map { originInfo.properties[$0].storedName } ?? linking.originProperty)
            return p
        }
        var props: [fief_property_info_t] = info.properties.map { property in
            var p = fief_property_info_t()
            p.name = arena.cString(property.storedName)
            p.type = property.type
            p.collection_type = property.collectionType
            p.link_target = property.linkTargetName.map { arena.cString($0) }
            var flags: Int32 = 0
            if property.isOptional { flags |= FIEF_PROPERTY_NULLABLE }
            if property.isPrimaryKey { flags |= FIEF_PROPERTY_PRIMARY_KEY }
            if property.isIndexed { flags |= FIEF_PROPERTY_INDEXED }
            if property.isFullTextIndexed { flags |= FIEF_PROPERTY_FULLTEXT_INDEXED }
            p.flags = UInt32(flags)
            return p
        }
        props += linkingObjects
        cls.num_properties = props.count
        classes.append(cls)
        // A class without properties still needs a non-NULL array.
        propertyArrays.append(props.isEmpty ? arena.array([fief_property_info_t()]) : arena.array(props))
    }
    let handle: OpaquePointer? = withExtendedLifetime(arena) {
        classes.withUnsafeBufferPointer { classBuffer in
            propertyArrays.withUnsafeBufferPointer { propertyBuffer in
                fief_schema_new(classBuffer.baseAddress, classBuffer.count, propertyBuffer.baseAddress)
            }
        }
    }
    guard let handle else { return .failure(CError.last()) }
    return .success(CHandle(handle))
}

/// A class as one realm's file stores it: its keys.
final class ClassBinding: @unchecked Sendable {
    let info: ObjectSchemaInfo
    let classKey: fief_class_key_t
    /// `propertyKeys[i]` is the key of `info.properties[i]`.
    let propertyKeys: [fief_property_key_t]
    /// The primary key's property key, if any.
    var primaryKeyKey: fief_property_key_t? { info.primaryKeyIndex.map { propertyKeys[$0] } }

    init(info: ObjectSchemaInfo, classKey: fief_class_key_t, propertyKeys: [fief_property_key_t]) {
        self.info = info
        self.classKey = classKey
        self.propertyKeys = propertyKeys
    }

    /// Binds `info` to the classes of `schema` (fief_schema_find_class,
    /// fief_schema_find_property); nil if the class is missing, a message
    /// if it exists but does not match.
    static func bind(_ info: ObjectSchemaInfo, in schema: OpaquePointer) -> Result<ClassBinding, BindFailure> {
        var cls = fief_class_info_t()
        var classIndex = 0
        var found = false
        guard fief_schema_find_class(schema, info.className, &cls, &classIndex, &found) else {
            return .failure(.error(CError.last().message))
        }
        guard found else { return .failure(.missing) }
        var keys: [fief_property_key_t] = []
        for property in info.properties {
            var p = fief_property_info_t()
            var propertyFound = false
            guard fief_schema_find_property(schema, classIndex, property.storedName, &p, &propertyFound) else {
                return .failure(.error(CError.last().message))
            }
            guard propertyFound else {
                return .failure(.error("Property '\(info.className).\(property.name)' is missing from the realm file's schema"))
            }
            let optional = p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0
            guard p.collection_type == property.collectionType else {
                return .failure(.error("Property '\(info.className).\(property.name)' is \(fiefCollectionKindName(p.collection_type)) in the realm file but \(fiefCollectionKindName(property.collectionType)) in the class"))
            }
            // A mixed property holds null whatever its flag says.
            guard p.type == property.type, optional == property.isOptional || p.type == FIEF_TYPE_MIXED else {
                return .failure(.error("Property '\(info.className).\(property.name)' has type \(PropertyType(fiefType: p.type))\(optional ? "?" : "") in the realm file but \(PropertyType(fiefType: property.type))\(property.isOptional ? "?" : "") in the class"))
            }
            let storedTarget = p.link_target.map { String(cString: $0) }
            guard storedTarget == property.linkTarget?.className() else {
                return .failure(.error("Property '\(info.className).\(property.name)' links to '\(storedTarget ?? "")' in the realm file but to '\(property.linkTarget?.className() ?? "")' in the class"))
            }
            keys.append(p.key)
        }
        return .success(ClassBinding(info: info, classKey: cls.key, propertyKeys: keys))
    }

    enum BindFailure: Swift.Error {
        case missing
        case error(String)
    }
}

/// Copies every class of a C schema into class and property descriptions
/// (to extend a file's schema without knowing its Swift classes).
func copyCSchema(_ schema: OpaquePointer, arena: _FiefArena) -> [(fief_class_info_t, [fief_property_info_t])] {
    var count = 0
    guard fief_schema_get_class_count(schema, &count) else { return [] }
    var result: [(fief_class_info_t, [fief_property_info_t])] = []
    for c in 0..<count {
        var cls = fief_class_info_t()
        guard fief_schema_get_class(schema, c, &cls) else { continue }
        var props: [fief_property_info_t] = []
        for p in 0..<cls.num_properties {
            var property = fief_property_info_t()
            guard fief_schema_get_property(schema, c, p, &property) else { continue }
            property.name = property.name.map { arena.cString(String(cString: $0)) }
            property.link_target = property.link_target.map { arena.cString(String(cString: $0)) }
            property.link_origin_property = property.link_origin_property.map { arena.cString(String(cString: $0)) }
            property.key = 0
            props.append(property)
        }
        cls.name = cls.name.map { arena.cString(String(cString: $0)) }
        cls.primary_key = nil
        cls.key = 0
        result.append((cls, props))
    }
    return result
}
