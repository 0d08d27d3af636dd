import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// A schema handle: the engine's schema plus C copies of its strings.  A
/// class's properties as C sees them are its stored ones, then its
/// linking-objects ones.
final class SchemaBox {
    let schema: Schema
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private(set) var classNames: [UnsafeMutablePointer<CChar>] = []
    private(set) var primaryKeyNames: [UnsafeMutablePointer<CChar>?] = []
    private(set) var propertyNames: [[UnsafeMutablePointer<CChar>]] = []
    private(set) var linkTargets: [[UnsafeMutablePointer<CChar>?]] = []
    /// The origin property of each linking-objects property (after the stored ones).
    private(set) var originProperties: [[UnsafeMutablePointer<CChar>]] = []

    init(_ schema: Schema) {
        self.schema = schema
        for c in schema.classes {
            classNames.append(keep(c.name))
            primaryKeyNames.append(c.primaryKey.map { keep($0.name) })
            propertyNames.append(c.properties.map { keep($0.name) } + c.linkingObjects.map { keep($0.name) })
            linkTargets.append(c.properties.map { $0.linkTarget.map { keep($0) } } + c.linkingObjects.map { keep($0.originClass) })
            originProperties.append(c.linkingObjects.map { keep($0.originProperty) })
        }
    }

    /// The number of properties of class `index`, linking objects included.
    func propertyCount(_ index: Int) -> Int { propertyNames[index].count }

    private func keep(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = strdup(s)!
        strings.append(p)
        return p
    }

    deinit { for p in strings { free(p) } }

    func classInfo(_ index: Int) -> fief_class_info_t {
        let c = schema.classes[index]
        return fief_class_info_t(name: UnsafePointer(classNames[index]), primary_key: primaryKeyNames[index].map { UnsafePointer($0) },
                                 num_properties: propertyCount(index), flags: c.isEmbedded ? UInt32(FIEF_CLASS_EMBEDDED) : 0, key: c.key)
    }

    func propertyInfo(_ classIndex: Int, _ index: Int) -> fief_property_info_t {
        let stored = schema.classes[classIndex].properties
        guard index < stored.count else {
            return fief_property_info_t(name: UnsafePointer(propertyNames[classIndex][index]), type: PropertyType.link.rawValue,
                                        collection_type: FIEF_COLLECTION_LINKING_OBJECTS,
                                        link_target: linkTargets[classIndex][index].map { UnsafePointer($0) },
                                        link_origin_property: UnsafePointer(originProperties[classIndex][index - stored.count]),
                                        flags: 0, key: 0)
        }
        let p = stored[index]
        return fief_property_info_t(name: UnsafePointer(propertyNames[classIndex][index]), type: p.type.rawValue,
                                    collection_type: Int32(bitPattern: p.collection.rawValue),
                                    link_target: linkTargets[classIndex][index].map { UnsafePointer($0) }, link_origin_property: nil,
                                    flags: p.flags.rawValue, key: p.key)
    }
}

func cString(_ p: UnsafePointer<CChar>?, _ what: String) throws(FiefError) -> String {
    guard let p else { throw FiefError(.invalidArgument, "\(what) is NULL") }
    let length = strlen(p)
    let bytes = UnsafeRawBufferPointer(start: p, count: length)
    guard UTF8Check.isValid(bytes) else { throw FiefError(.invalidUTF8, "\(what) is not valid UTF-8") }
    return String(decoding: bytes, as: UTF8.self)
}

@_cdecl("fief_schema_new")
public func exportSchemaNew(_ classes: UnsafePointer<fief_class_info_t>?, _ count: Int, _ properties: UnsafePointer<UnsafePointer<fief_property_info_t>?>?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let classes = try CArgs.array(classes, count, "classes", count: "num_classes")
        let properties = try CArgs.array(properties, count, "class_properties", count: "num_classes")
        guard classes.count <= Schema.maxClasses else {
            throw FiefError(.invalidSchema, "num_classes is \(classes.count): a schema has at most \(Schema.maxClasses) classes")
        }
        var result: [ObjectClass] = []
        result.reserveCapacity(classes.count)
        for i in 0..<classes.count {
            let info = classes[i]
            let name = try cString(info.name, "classes[\(i)].name")
            if info.flags & ~UInt32(FIEF_CLASS_EMBEDDED) != 0 {
                throw FiefError(.invalidSchema, "class '\(name)' has unknown flags \(info.flags)")
            }
            let infos = try CArgs.array(properties[i], info.num_properties, "class_properties[\(i)]", count: "classes[\(i)].num_properties")
            guard infos.count <= Schema.maxProperties else {
                throw FiefError(.invalidSchema, "class '\(name)' has \(infos.count) properties; a class has at most \(Schema.maxProperties)")
            }
            var props: [Property] = []
            var linkingObjects: [LinkingObjectsProperty] = []
            props.reserveCapacity(infos.count)
            for j in 0..<infos.count {
                let p = infos[j]
                let pname = try cString(p.name, "class_properties[\(i)][\(j)].name (class '\(name)')")
                guard let type = PropertyType(rawValue: p.type) else {
                    throw FiefError(.invalidSchema, "property '\(name).\(pname)' has unknown type \(p.type)")
                }
                let target = try p.link_target.map { (t) throws(FiefError) in try cString(t, "class_properties[\(i)][\(j)].link_target (property '\(name).\(pname)')") }
                if p.collection_type == FIEF_COLLECTION_LINKING_OBJECTS {
                    linkingObjects.append(try linkingObjectsProperty(p, pname, of: name, originClass: target, "class_properties[\(i)][\(j)]"))
                    continue
                }
                guard let collection = CollectionKind(rawValue: UInt32(bitPattern: p.collection_type)) else {
                    throw FiefError(.invalidSchema, "property '\(name).\(pname)' has unknown collection_type \(p.collection_type) (FIEF_COLLECTION_NONE, _LIST, _SET, _MAP or _LINKING_OBJECTS)")
                }
                if p.link_origin_property != nil {
                    throw FiefError(.invalidSchema, "property '\(name).\(pname)' has a link_origin_property, which only linking objects (FIEF_COLLECTION_LINKING_OBJECTS) have")
                }
                props.append(Property(name: pname, type: type, flags: PropertyFlags(rawValue: p.flags), linkTarget: target, collection: collection))
            }
            result.append(ObjectClass(name: name, properties: props, isEmbedded: info.flags & UInt32(FIEF_CLASS_EMBEDDED) != 0,
                                      linkingObjects: linkingObjects))
        }
        let schema = Schema(classes: result)
        try schema.validate()
        return HandleTable.make(SchemaBox(schema), .schema)
    }
}

/// The linking-objects property `p` (`name` of class `className`, origin
/// class `originClass`): a link without flags, naming its origin property.
private func linkingObjectsProperty(_ p: fief_property_info_t, _ name: String, of className: String, originClass: String?,
                                    _ position: String) throws(FiefError) -> LinkingObjectsProperty {
    let qualified = "linking-objects property '\(className).\(name)'"
    guard p.type == PropertyType.link.rawValue else {
        throw FiefError(.invalidSchema, "\(qualified) has type \(p.type); linking objects have type FIEF_TYPE_LINK")
    }
    guard p.flags == 0 else {
        throw FiefError(.invalidSchema, "\(qualified) has flags \(p.flags); linking objects take none (they are never null, a primary key or indexed)")
    }
    guard let originClass else { throw FiefError(.invalidSchema, "\(qualified) has no origin class (link_target)") }
    guard let origin = p.link_origin_property else {
        throw FiefError(.invalidSchema, "\(qualified) has no origin property (link_origin_property)")
    }
    let originProperty = try cString(origin, "\(position).link_origin_property (property '\(className).\(name)')")
    return LinkingObjectsProperty(name: name, originClass: originClass, originProperty: originProperty)
}

@_cdecl("fief_schema_get_class_count")
public func exportSchemaGetClassCount(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.resolve(UnsafeRawPointer(handle), .schema, as: SchemaBox.self)
        try store(out, box.schema.classes.count, "out_count")
        return true
    }
}

@_cdecl("fief_schema_get_class")
public func exportSchemaGetClass(_ handle: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<fief_class_info_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.resolve(UnsafeRawPointer(handle), .schema, as: SchemaBox.self)
        guard index >= 0, index < box.schema.classes.count else {
            throw FiefError(.indexOutOfBounds, "class_index \(UInt(bitPattern: index)) is out of bounds (\(box.schema.classes.count) classes)")
        }
        try store(out, box.classInfo(index), "out_class")
        return true
    }
}

@_cdecl("fief_schema_get_property")
public func exportSchemaGetProperty(_ handle: OpaquePointer?, _ classIndex: Int, _ index: Int, _ out: UnsafeMutablePointer<fief_property_info_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.resolve(UnsafeRawPointer(handle), .schema, as: SchemaBox.self)
        guard classIndex >= 0, classIndex < box.schema.classes.count else {
            throw FiefError(.indexOutOfBounds, "class_index \(UInt(bitPattern: classIndex)) is out of bounds (\(box.schema.classes.count) classes)")
        }
        let count = box.propertyCount(classIndex)
        guard index >= 0, index < count else {
            throw FiefError(.indexOutOfBounds, "property_index \(UInt(bitPattern: index)) is out of bounds (\(count) properties)")
        }
        try store(out, box.propertyInfo(classIndex, index), "out_property")
        return true
    }
}

@_cdecl("fief_schema_find_class")
public func exportSchemaFindClass(_ handle: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ outClass: UnsafeMutablePointer<fief_class_info_t>?, _ outIndex: UnsafeMutablePointer<Int>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.resolve(UnsafeRawPointer(handle), .schema, as: SchemaBox.self)
        let wanted = try cString(name, "name")
        let found = try require(outFound, "out_found")
        guard let index = box.schema.classes.firstIndex(where: { $0.name == wanted }) else {
            found.pointee = false
            return true
        }
        found.pointee = true
        outClass?.pointee = box.classInfo(index)
        outIndex?.pointee = index
        return true
    }
}

@_cdecl("fief_schema_find_property")
public func exportSchemaFindProperty(_ handle: OpaquePointer?, _ classIndex: Int, _ name: UnsafePointer<CChar>?, _ outProperty: UnsafeMutablePointer<fief_property_info_t>?, _ outFound: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let box = try HandleTable.resolve(UnsafeRawPointer(handle), .schema, as: SchemaBox.self)
        guard classIndex >= 0, classIndex < box.schema.classes.count else {
            throw FiefError(.indexOutOfBounds, "class_index \(UInt(bitPattern: classIndex)) is out of bounds (\(box.schema.classes.count) classes)")
        }
        let wanted = try cString(name, "name")
        let found = try require(outFound, "out_found")
        let objectClass = box.schema.classes[classIndex]
        guard let index = objectClass.properties.firstIndex(where: { $0.name == wanted })
                ?? objectClass.linkingObjects.firstIndex(where: { $0.name == wanted }).map({ objectClass.properties.count + $0 }) else {
            found.pointee = false
            return true
        }
        found.pointee = true
        outProperty?.pointee = box.propertyInfo(classIndex, index)
        return true
    }
}

// MARK: - Configuration

final class ConfigBox {
    var configuration = RealmConfiguration()
}

@_cdecl("fief_config_new")
public func exportConfigNew() -> OpaquePointer? {
    HandleTable.make(ConfigBox(), .config)
}

@inline(__always)
private func withConfig(_ handle: OpaquePointer?, _ body: (ConfigBox) throws(FiefError) -> Void) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try body(try HandleTable.resolve(UnsafeRawPointer(handle), .config, as: ConfigBox.self))
        return true
    }
}

@_cdecl("fief_config_set_path")
public func exportConfigSetPath(_ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in
        let value = try cString(path, "path")
        guard !value.isEmpty else { throw FiefError(.invalidArgument, "path is empty") }
        box.configuration.path = value
        box.configuration.inMemoryIdentifier = nil
    }
}

@_cdecl("fief_config_set_in_memory_identifier")
public func exportConfigSetInMemoryIdentifier(_ handle: OpaquePointer?, _ identifier: UnsafePointer<CChar>?) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in
        let value = try cString(identifier, "identifier")
        guard !value.isEmpty else { throw FiefError(.invalidArgument, "identifier is empty") }
        box.configuration.inMemoryIdentifier = value
        box.configuration.path = nil
    }
}

@_cdecl("fief_config_set_read_only")
public func exportConfigSetReadOnly(_ handle: OpaquePointer?, _ readOnly: Bool) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in box.configuration.readOnly = readOnly }
}

@_cdecl("fief_config_set_schema")
public func exportConfigSetSchema(_ handle: OpaquePointer?, _ schema: OpaquePointer?) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in
        if schema == nil {
            box.configuration.schema = nil
        } else {
            box.configuration.schema = try HandleTable.resolve(UnsafeRawPointer(schema), .schema, as: SchemaBox.self).schema
        }
    }
}

@_cdecl("fief_config_set_schema_version")
public func exportConfigSetSchemaVersion(_ handle: OpaquePointer?, _ version: UInt64) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in box.configuration.schemaVersion = version }
}

@_cdecl("fief_config_set_delete_if_migration_needed")
public func exportConfigSetDeleteIfMigrationNeeded(_ handle: OpaquePointer?, _ delete: Bool) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in box.configuration.deleteIfMigrationNeeded = delete }
}

@_cdecl("fief_config_set_durability")
public func exportConfigSetDurability(_ handle: OpaquePointer?, _ durability: Int32) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in
        guard let value = Durability(rawValue: durability) else {
            throw FiefError(.invalidArgument, "unknown durability \(durability)")
        }
        box.configuration.durability = value
    }
}

@_cdecl("fief_config_set_max_active_versions")
public func exportConfigSetMaxActiveVersions(_ handle: OpaquePointer?, _ limit: UInt64) -> Bool {
    withConfig(handle) { (box) throws(FiefError) in box.configuration.maxActiveVersions = limit == 0 ? nil : limit }
}
