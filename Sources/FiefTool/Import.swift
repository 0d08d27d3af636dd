import CFief
import FiefDecimal
#if canImport(Glibc)
import Glibc
#endif

/// `fief import FILE [CLASS]`: recreates the objects of a dump (see
/// JSONExport.swift) in FILE, all in one write transaction.  The first bad
/// line stops it with "line N: ..." and nothing is written: the
/// transaction is cancelled, and a file this import created is removed.
///
/// Objects are created first (with their primary keys), then filled in, so
/// that links resolve whatever the order of the lines: a dump's keys
/// ("$key", "$id") are mapped to the new objects' keys.
struct Importer {
    /// One line of input that holds an object.
    private struct ObjectLine {
        var number: Int
        var className: String
        var key: Int64?
        var members: [(key: String, value: JSONValue)]
    }

    /// A class as a schema line describes it.
    private struct ClassSpec {
        var line: Int
        var name: String
        var isEmbedded: Bool
        var properties: [PropertySpec]
    }

    private struct PropertySpec: Equatable {
        var name: String
        var type: Int32
        var collection: Int32
        var target: String?
        var flags: UInt32
    }

    let path: String
    let onlyClass: String?

    /// Reads every line, then writes; returns how many objects of each class were imported.
    func run(lines: [Substring]) throws -> [(String, Int)] {
        var specs: [ClassSpec] = []
        var objects: [ObjectLine] = []
        for (index, text) in lines.enumerated() {
            let number = index + 1
            if text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(text)
            } catch let error as JSONSyntaxError {
                throw ToolError(description: "line \(number): JSON syntax error at column \(error.column): \(error.reason)")
            }
            guard case let .object(members) = value else {
                throw ToolError(description: "line \(number): expected a JSON object, got \(value.shortDescription)")
            }
            if value["$schema"] != nil {
                specs.append(try classSpec(value, line: number))
                continue
            }
            var className = onlyClass
            if let written = value["$class"] {
                guard case let .string(name) = written else {
                    throw ToolError(description: "line \(number): \"$class\" must be a string, got \(written.shortDescription)")
                }
                if let onlyClass, name != onlyClass { continue }
                className = name
            }
            guard let className else {
                throw ToolError(description: "line \(number): the object has no \"$class\" (name the class: fief import FILE CLASS)")
            }
            var key: Int64?
            if let written = value["$key"] {
                guard let integer = Importer.integer(written) else {
                    throw ToolError(description: "line \(number): \"$key\" must be an integer, got \(written.shortDescription)")
                }
                key = integer
            }
            objects.append(ObjectLine(number: number, className: className, key: key,
                                      members: members.filter { $0.key != "$class" && $0.key != "$key" }))
        }

        let fileExists = access(path, F_OK) == 0
        if fileExists { return try importObjects(objects, specs: specs, schema: nil) }
        guard !specs.isEmpty else {
            throw ToolError(description: "'\(path)' does not exist and the input has no schema lines to create it from (dump the whole file: fief dump FILE)")
        }
        let schema = try makeSchema(specs)
        defer { _ = fief_release(UnsafeRawPointer(schema)) }
        do {
            return try importObjects(objects, specs: specs, schema: schema)
        } catch {
            // The realm is released by now: remove the file this import created.
            var deleted = false
            if !fief_file_delete(path, &deleted) {
                throw ToolError(description: "\(error) (and removing the new file failed: \(lastError("deleting '\(path)'")))")
            }
            throw error
        }
    }

    /// Opens (with `schema`: creates) the file and writes every object in one
    /// transaction, cancelled at the first error; the realm is released on return.
    private func importObjects(_ objects: [ObjectLine], specs: [ClassSpec], schema: OpaquePointer?) throws -> [(String, Int)] {
        let inspector = try Inspector(path: path, readOnly: false, schema: schema)
        defer { _ = fief_realm_close(inspector.realm) }
        let classes = try inspector.classes()
        if schema == nil { try check(specs, against: classes) }
        guard fief_realm_begin_write(inspector.realm) else { throw lastError("starting a write transaction") }
        do {
            let counts = try write(objects, into: inspector.realm, classes: classes)
            guard fief_realm_commit(inspector.realm) else { throw lastError("committing") }
            return counts
        } catch {
            _ = fief_realm_cancel(inspector.realm)
            throw error
        }
    }

    // MARK: Schema

    private static let typesByName: [String: Int32] = [
        "int": FIEF_TYPE_INT, "bool": FIEF_TYPE_BOOL, "string": FIEF_TYPE_STRING, "data": FIEF_TYPE_BINARY,
        "date": FIEF_TYPE_TIMESTAMP, "float": FIEF_TYPE_FLOAT, "double": FIEF_TYPE_DOUBLE,
        "decimal128": FIEF_TYPE_DECIMAL128, "objectId": FIEF_TYPE_OBJECT_ID, "uuid": FIEF_TYPE_UUID,
        "link": FIEF_TYPE_LINK, "mixed": FIEF_TYPE_MIXED,
    ]

    private func classSpec(_ value: JSONValue, line: Int) throws -> ClassSpec {
        func bad(_ why: String) -> ToolError { ToolError(description: "line \(line): schema line: \(why)") }
        guard case let .string(name)? = value["$schema"] else { throw bad("\"$schema\" must be the class name") }
        guard case let .array(properties)? = value["properties"] else { throw bad("class '\(name)' needs \"properties\": [...]") }
        var isEmbedded = false
        if let embedded = value["embedded"] {
            guard case let .bool(flag) = embedded else { throw bad("\"embedded\" must be true or false") }
            isEmbedded = flag
        }
        var specs: [PropertySpec] = []
        for property in properties {
            guard case let .string(propertyName)? = property["name"] else { throw bad("a property of class '\(name)' has no \"name\"") }
            guard case let .string(typeText)? = property["type"], let type = Importer.typesByName[typeText] else {
                throw bad("property '\(propertyName)' of class '\(name)': unknown \"type\" \(property["type"]?.shortDescription ?? "(none)")")
            }
            var collection = FIEF_COLLECTION_NONE
            if let written = property["collection"] {
                switch written {
                case .string("list"): collection = FIEF_COLLECTION_LIST
                case .string("set"): collection = FIEF_COLLECTION_SET
                case .string("map"): collection = FIEF_COLLECTION_MAP
                default: throw bad("property '\(propertyName)' of class '\(name)': \"collection\" is \"list\", \"set\" or \"map\"")
                }
            }
            var target: String?
            if let written = property["target"] {
                guard case let .string(text) = written else { throw bad("property '\(propertyName)': \"target\" must be a class name") }
                target = text
            }
            var flags: UInt32 = 0
            for (key, flag) in [("optional", FIEF_PROPERTY_NULLABLE), ("primaryKey", FIEF_PROPERTY_PRIMARY_KEY),
                                ("indexed", FIEF_PROPERTY_INDEXED), ("fullTextIndexed", FIEF_PROPERTY_FULLTEXT_INDEXED)] {
                guard let written = property[key] else { continue }
                guard case let .bool(on) = written else { throw bad("property '\(propertyName)': \"\(key)\" must be true or false") }
                if on { flags |= UInt32(flag) }
            }
            specs.append(PropertySpec(name: propertyName, type: type, collection: collection, target: target, flags: flags))
        }
        return ClassSpec(line: line, name: name, isEmbedded: isEmbedded, properties: specs)
    }

    private func makeSchema(_ specs: [ClassSpec]) throws -> OpaquePointer {
        // C strings that live until fief_schema_new has copied them.
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        func cString(_ text: String) -> UnsafePointer<CChar> {
            let copy = strdup(text)!
            strings.append(copy)
            return UnsafePointer(copy)
        }
        var classInfos: [fief_class_info_t] = []
        var propertyArrays: [UnsafeMutablePointer<fief_property_info_t>] = []
        defer { propertyArrays.forEach { $0.deallocate() } }
        for spec in specs {
            var info = fief_class_info_t()
            info.name = cString(spec.name)
            info.num_properties = spec.properties.count
            info.flags = spec.isEmbedded ? UInt32(FIEF_CLASS_EMBEDDED) : 0
            classInfos.append(info)
            let properties = UnsafeMutablePointer<fief_property_info_t>.allocate(capacity: max(spec.properties.count, 1))
            for (i, p) in spec.properties.enumerated() {
                var property = fief_property_info_t()
                property.name = cString(p.name)
                property.type = p.type
                property.collection_type = p.collection
                property.link_target = p.target.map(cString)
                property.flags = p.flags
                properties[i] = property
            }
            propertyArrays.append(properties)
        }
        let pointers = propertyArrays.map { Optional(UnsafePointer($0)) }
        guard let schema = fief_schema_new(classInfos, classInfos.count, pointers) else {
            throw lastError("the schema lines of the input")
        }
        return schema
    }

    /// Importing into an existing file: each class the input describes must be the file's.
    private func check(_ specs: [ClassSpec], against classes: [Inspector.ClassInfo]) throws {
        for spec in specs {
            guard let existing = classes.first(where: { $0.name == spec.name }) else {
                throw ToolError(description: "line \(spec.line): '\(path)' has no class '\(spec.name)' (its schema must match the input's)")
            }
            let fileProperties = existing.properties.map {
                PropertySpec(name: $0.name, type: $0.type, collection: $0.collection, target: $0.linkTarget, flags: $0.flags)
            }
            for property in spec.properties {
                guard let match = fileProperties.first(where: { $0.name == property.name }) else {
                    throw ToolError(description: "line \(spec.line): class '\(spec.name)' of '\(path)' has no property '\(property.name)'")
                }
                let significant = UInt32(FIEF_PROPERTY_NULLABLE | FIEF_PROPERTY_PRIMARY_KEY)
                guard match.type == property.type, match.collection == property.collection, match.target == property.target,
                      match.flags & significant == property.flags & significant else {
                    throw ToolError(description: "line \(spec.line): property '\(property.name)' of class '\(spec.name)' differs in '\(path)'")
                }
            }
            if let missing = fileProperties.first(where: { p in !spec.properties.contains(where: { $0.name == p.name }) }) {
                throw ToolError(description: "line \(spec.line): class '\(spec.name)' of '\(path)' has a property '\(missing.name)' the input's lacks")
            }
        }
    }

    // MARK: Objects

    private func write(_ objects: [ObjectLine], into realm: OpaquePointer, classes: [Inspector.ClassInfo]) throws -> [(String, Int)] {
        let classesByName = Dictionary(classes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var writer = ValueWriter(realm: realm, classesByName: classesByName)
        var handles: [OpaquePointer] = []
        defer { handles.forEach { _ = fief_release(UnsafeRawPointer($0)) } }
        var counts: [String: Int] = [:]
        var order: [String] = []

        // First pass: every object, with its primary key, and its new key.
        for line in objects {
            guard let c = classesByName[line.className] else {
                throw ToolError(description: "line \(line.number): unknown class '\(line.className)' ('\(path)' has no such class)")
            }
            guard !c.isEmbedded else {
                throw ToolError(description: "line \(line.number): class '\(c.name)' is embedded: its objects go inside their owners")
            }
            var propertyKeys: [UInt32] = []
            var values: [fief_value_t] = []
            let arena = Arena()
            if let primaryKey = c.primaryKey, let p = c.properties.first(where: { $0.name == primaryKey }) {
                guard let json = line.members.first(where: { $0.key == primaryKey })?.value else {
                    throw ToolError(description: "line \(line.number): class '\(c.name)': the primary key '\(primaryKey)' is missing")
                }
                let place = Place(line: line.number, className: c.name, property: p.name)
                propertyKeys.append(p.key)
                values.append(try writer.scalar(json, type: p.type, optional: p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0,
                                                target: nil, place: place, arena: arena))
            }
            guard let object = fief_object_create(realm, c.key, propertyKeys, values, values.count, FIEF_UPDATE_POLICY_ERROR) else {
                throw lastError("line \(line.number): class '\(c.name)'")
            }
            handles.append(object)
            if let key = line.key {
                var newKey: Int64 = 0
                guard fief_object_get_key(object, &newKey) else { throw lastError("line \(line.number)") }
                guard writer.newKeys[LinkKey(classKey: c.key, objectKey: key)] == nil else {
                    throw ToolError(description: "line \(line.number): class '\(c.name)': the key \(key) appears twice in the input")
                }
                writer.newKeys[LinkKey(classKey: c.key, objectKey: key)] = newKey
            }
            if counts[c.name] == nil { order.append(c.name) }
            counts[c.name, default: 0] += 1
        }

        // Second pass: every property, now that every link has its object.
        for (line, object) in zip(objects, handles) {
            let c = classesByName[line.className]!
            try writer.fill(object, c, members: line.members, line: line.number, skipping: c.primaryKey)
        }
        return order.map { ($0, counts[$0]!) }
    }
}

/// An object of a dump: its class and its key there.
struct LinkKey: Hashable {
    var classKey: UInt32
    var objectKey: Int64
}

/// Where a value goes, for error messages: "line 3: property 'age' of class 'Dog'".
struct Place {
    var line: Int
    var className: String
    var property: String
    var inside: String = ""

    func error(_ problem: String) -> ToolError {
        ToolError(description: "line \(line): property '\(property)' of class '\(className)'\(inside): \(problem)")
    }

    func cError() -> ToolError {
        var error = fief_error_t()
        _ = fief_get_last_error(&error)
        return self.error(error.message.map { String(cString: $0) } ?? "unknown error")
    }

    func within(_ step: String) -> Place {
        var place = self
        place.inside += ", " + step
        return place
    }
}

/// Bytes kept alive while the C calls that copy them run (strings, data).
final class Arena {
    private var buffers: [UnsafeMutableRawPointer] = []

    func copy(_ bytes: [UInt8]) -> UnsafePointer<UInt8> {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        buffers.append(buffer)
        return UnsafePointer(buffer.assumingMemoryBound(to: UInt8.self))
    }

    deinit { buffers.forEach { $0.deallocate() } }
}

/// Turns JSON values into property values, collections and embedded objects.
struct ValueWriter {
    let realm: OpaquePointer
    let classesByName: [String: Inspector.ClassInfo]
    /// The dump's object keys to the new objects' keys.
    var newKeys: [LinkKey: Int64] = [:]

    init(realm: OpaquePointer, classesByName: [String: Inspector.ClassInfo]) {
        self.realm = realm
        self.classesByName = classesByName
    }

    /// Sets the properties `members` name on `object` (of class `c`).
    func fill(_ object: OpaquePointer, _ c: Inspector.ClassInfo, members: [(key: String, value: JSONValue)],
              line: Int, skipping skipped: String? = nil) throws {
        for (name, json) in members {
            if name == skipped { continue }
            guard let p = c.properties.first(where: { $0.name == name }) else {
                throw ToolError(description: "line \(line): class '\(c.name)' has no property '\(name)'")
            }
            let place = Place(line: line, className: c.name, property: name)
            let optional = p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0
            let embedded = p.linkTarget.flatMap { classesByName[$0] }.flatMap { $0.isEmbedded ? $0 : nil }
            switch p.collection {
            case FIEF_COLLECTION_LIST:
                guard case let .array(elements) = json else { throw place.error("expected an array (a list), got \(json.shortDescription)") }
                guard let list = fief_object_get_list(object, p.key) else { throw place.cError() }
                defer { _ = fief_release(UnsafeRawPointer(list)) }
                try fillList(list, elements, type: p.type, optional: optional, target: p.linkTarget, embedded: embedded, place: place)
            case FIEF_COLLECTION_SET:
                guard case let .array(elements) = json else { throw place.error("expected an array (a set), got \(json.shortDescription)") }
                guard let set = fief_object_get_set(object, p.key) else { throw place.cError() }
                defer { _ = fief_release(UnsafeRawPointer(set)) }
                for (i, element) in elements.enumerated() {
                    let arena = Arena()
                    let here = place.within("element \(i)")
                    if p.type == FIEF_TYPE_MIXED, case .array = element { throw here.error("a set holds no nested lists") }
                    let value = try p.type == FIEF_TYPE_MIXED ? mixed(element, place: here, arena: arena)
                        : scalar(element, type: p.type, optional: optional, target: p.linkTarget, place: here, arena: arena)
                    var inserted = false
                    guard fief_set_insert(set, value, &inserted) else { throw place.within("element \(i)").cError() }
                }
            case FIEF_COLLECTION_MAP:
                guard case let .object(entries) = json else { throw place.error("expected an object (a map), got \(json.shortDescription)") }
                guard let map = fief_object_get_map(object, p.key) else { throw place.cError() }
                defer { _ = fief_release(UnsafeRawPointer(map)) }
                try fillMap(map, entries, type: p.type, optional: optional, target: p.linkTarget, embedded: embedded, place: place)
            default:
                if let embedded {
                    if case .null = json {
                        guard fief_object_set_value(object, p.key, fief_value_t()) else { throw place.cError() }
                        continue
                    }
                    guard case let .object(properties) = json else {
                        throw place.error("expected an embedded \(embedded.name) object, got \(json.shortDescription)")
                    }
                    guard let child = fief_object_create_embedded(object, p.key) else { throw place.cError() }
                    defer { _ = fief_release(UnsafeRawPointer(child)) }
                    try fill(child, embedded, members: properties, line: line)
                    continue
                }
                let arena = Arena()
                let value = try p.type == FIEF_TYPE_MIXED ? mixed(json, place: place, arena: arena)
                    : scalar(json, type: p.type, optional: optional, target: p.linkTarget, place: place, arena: arena)
                guard fief_object_set_value(object, p.key, value) else { throw place.cError() }
                try fillNested(json, list: { fief_object_get_list(object, p.key) }, map: { fief_object_get_map(object, p.key) }, place: place)
            }
        }
    }

    /// After a mixed value that is a nested list or dictionary was set: its elements.
    private func fillNested(_ json: JSONValue, list: () -> OpaquePointer?, map: () -> OpaquePointer?, place: Place) throws {
        switch json {
        case let .array(elements):
            guard let nested = list() else { throw place.cError() }
            defer { _ = fief_release(UnsafeRawPointer(nested)) }
            try fillList(nested, elements, type: FIEF_TYPE_MIXED, optional: true, target: nil, embedded: nil, place: place)
        case let .object(entries) where !ValueWriter.isWrapper(entries):
            guard let nested = map() else { throw place.cError() }
            defer { _ = fief_release(UnsafeRawPointer(nested)) }
            try fillMap(nested, entries, type: FIEF_TYPE_MIXED, optional: true, target: nil, embedded: nil, place: place)
        default: break
        }
    }

    private func fillList(_ list: OpaquePointer, _ elements: [JSONValue], type: Int32, optional: Bool, target: String?,
                          embedded: Inspector.ClassInfo?, place: Place) throws {
        for (i, element) in elements.enumerated() {
            let here = place.within("element \(i)")
            if let embedded {
                guard case let .object(properties) = element else {
                    throw here.error("expected an embedded \(embedded.name) object, got \(element.shortDescription)")
                }
                guard let child = fief_list_insert_embedded(list, i) else { throw here.cError() }
                defer { _ = fief_release(UnsafeRawPointer(child)) }
                try fill(child, embedded, members: properties, line: place.line)
                continue
            }
            let arena = Arena()
            var value = try type == FIEF_TYPE_MIXED ? mixed(element, place: here, arena: arena)
                : scalar(element, type: type, optional: optional, target: target, place: here, arena: arena)
            guard fief_list_append(list, &value, 1) else { throw here.cError() }
            try fillNested(element, list: { fief_list_get_list(list, i) }, map: { fief_list_get_map(list, i) }, place: here)
        }
    }

    private func fillMap(_ map: OpaquePointer, _ entries: [(key: String, value: JSONValue)], type: Int32, optional: Bool,
                         target: String?, embedded: Inspector.ClassInfo?, place: Place) throws {
        for (key, element) in entries {
            let here = place.within("key '\(key)'")
            let arena = Arena()
            let keyBytes = Array(key.utf8)
            let cKey = fief_string_t(data: UnsafeRawPointer(arena.copy(keyBytes)).assumingMemoryBound(to: CChar.self), size: keyBytes.count)
            if let embedded {
                if case .null = element {
                    guard fief_map_set(map, cKey, fief_value_t()) else { throw here.cError() }
                    continue
                }
                guard case let .object(properties) = element else {
                    throw here.error("expected an embedded \(embedded.name) object, got \(element.shortDescription)")
                }
                guard let child = fief_map_insert_embedded(map, cKey) else { throw here.cError() }
                defer { _ = fief_release(UnsafeRawPointer(child)) }
                try fill(child, embedded, members: properties, line: place.line)
                continue
            }
            let value = try type == FIEF_TYPE_MIXED ? mixed(element, place: here, arena: arena)
                : scalar(element, type: type, optional: optional, target: target, place: here, arena: arena)
            guard fief_map_set(map, cKey, value) else { throw here.cError() }
            try fillNested(element, list: { fief_map_get_list(map, cKey) }, map: { fief_map_get_map(map, cKey) }, place: here)
        }
    }

    /// Whether a JSON object is one of Extended JSON's typed values rather
    /// than a dictionary (whose keys never start with '$').
    static func isWrapper(_ members: [(key: String, value: JSONValue)]) -> Bool {
        members.first?.key.hasPrefix("$") ?? false
    }

    /// A mixed value: its type is the one its JSON says.
    func mixed(_ json: JSONValue, place: Place, arena: Arena) throws -> fief_value_t {
        switch json {
        case .null: return fief_value_t()
        case .bool: return try scalar(json, type: FIEF_TYPE_BOOL, optional: false, target: nil, place: place, arena: arena)
        case .string: return try scalar(json, type: FIEF_TYPE_STRING, optional: false, target: nil, place: place, arena: arena)
        case .integer: return try scalar(json, type: FIEF_TYPE_INT, optional: false, target: nil, place: place, arena: arena)
        case .number: return try scalar(json, type: FIEF_TYPE_DOUBLE, optional: false, target: nil, place: place, arena: arena)
        case .array:
            var value = fief_value_t()
            value.type = FIEF_TYPE_LIST
            return value
        case let .object(members):
            guard let first = members.first?.key, first.hasPrefix("$") else {
                var value = fief_value_t()
                value.type = FIEF_TYPE_MAP
                return value
            }
            let type: Int32
            switch first {
            case "$numberLong", "$numberInt": type = FIEF_TYPE_INT
            case "$numberDouble": type = json["$float"] != nil ? FIEF_TYPE_FLOAT : FIEF_TYPE_DOUBLE
            case "$numberDecimal": type = FIEF_TYPE_DECIMAL128
            case "$date": type = FIEF_TYPE_TIMESTAMP
            case "$oid": type = FIEF_TYPE_OBJECT_ID
            case "$uuid": type = FIEF_TYPE_UUID
            case "$binary": type = FIEF_TYPE_BINARY
            case "$ref": type = FIEF_TYPE_LINK
            default: throw place.error("unknown Extended JSON type \(JSONText.string(first))")
            }
            return try scalar(json, type: type, optional: false, target: nil, place: place, arena: arena)
        }
    }

    /// A value of `type` (not mixed); for a link, `target` is its class (nil: any class).
    func scalar(_ json: JSONValue, type: Int32, optional: Bool, target: String?, place: Place, arena: Arena) throws -> fief_value_t {
        func mismatch() -> ToolError {
            let expected = type == FIEF_TYPE_LINK ? "a link to \(target ?? "an object") ({\"$ref\": ..., \"$id\": ...})"
                : typeName(type) + (optional ? " or null" : "")
            return place.error("expected \(expected), got \(json.shortDescription)")
        }
        /// The text inside {"$name": "text"} (with nothing but `extra` beside it).
        func wrapped(_ name: String, extra: Set<String> = []) -> String? {
            guard case let .object(members) = json, members.first?.key == name,
                  members.dropFirst().allSatisfy({ extra.contains($0.key) }), case let .string(text) = members[0].value else { return nil }
            return text
        }
        var value = fief_value_t()
        if case .null = json {
            guard optional else { throw mismatch() }
            return value
        }
        value.type = type
        switch type {
        case FIEF_TYPE_INT:
            if case let .integer(i) = json {
                value.u.integer = i
            } else if let text = wrapped("$numberLong") ?? wrapped("$numberInt"), let i = Int64(text) {
                value.u.integer = i
            } else {
                throw mismatch()
            }
        case FIEF_TYPE_BOOL:
            guard case let .bool(b) = json else { throw mismatch() }
            value.u.boolean = b
        case FIEF_TYPE_STRING:
            guard case let .string(s) = json else { throw mismatch() }
            let bytes = Array(s.utf8)
            value.u.string = fief_string_t(data: UnsafeRawPointer(arena.copy(bytes)).assumingMemoryBound(to: CChar.self), size: bytes.count)
        case FIEF_TYPE_BINARY:
            guard case let .object(members) = json, members.count == 1, case let .string(base64)? = json["$binary"]?["base64"],
                  let bytes = JSONText.decodeBase64(base64) else { throw mismatch() }
            value.u.binary = fief_binary_t(data: arena.copy(bytes), size: bytes.count)
        case FIEF_TYPE_TIMESTAMP:
            guard case let .object(members) = json, members.first?.key == "$date",
                  members.dropFirst().allSatisfy({ $0.key == "$nanos" }),
                  let milliseconds = json["$date"].flatMap({ $0 }).flatMap(Importer.integer) else { throw mismatch() }
            var nanoseconds: Int64 = 0
            if let extra = json["$nanos"] {
                guard case let .integer(n) = extra, (0..<1_000_000).contains(n) else {
                    throw place.error("\"$nanos\" must be an integer from 0 to 999999, got \(extra.shortDescription)")
                }
                nanoseconds = n
            }
            let total = Int128(milliseconds) * 1_000_000 + Int128(nanoseconds)
            guard let seconds = Int64(exactly: total / 1_000_000_000) else { throw mismatch() }
            value.u.timestamp = fief_timestamp_t(seconds: seconds, nanoseconds: Int32(total % 1_000_000_000))
        case FIEF_TYPE_FLOAT, FIEF_TYPE_DOUBLE:
            let number: Double
            switch json {
            case let .integer(i): number = Double(i)
            case let .number(d): number = d
            default:
                guard let text = wrapped("$numberDouble", extra: ["$float"]) else { throw mismatch() }
                switch text {
                case "NaN": number = .nan
                case "Infinity": number = .infinity
                case "-Infinity": number = -.infinity
                default:
                    guard let parsed = Double(text), parsed.isFinite else { throw mismatch() }
                    number = parsed
                }
            }
            if type == FIEF_TYPE_FLOAT { value.u.float_value = Float(number) } else { value.u.double_value = number }
        case FIEF_TYPE_DECIMAL128:
            guard let text = wrapped("$numberDecimal") else { throw mismatch() }
            switch DecimalArithmetic.parseExactly(text) {
            case let .success(decimal): value.u.decimal128 = fief_decimal128_t(w: (decimal.low, decimal.high))
            case let .failure(reason): throw place.error("\(JSONText.string(text)) is \(reason) (expected decimal128)")
            }
        case FIEF_TYPE_OBJECT_ID:
            guard let text = wrapped("$oid"), let bytes = Importer.hexBytes(text), bytes.count == 12 else { throw mismatch() }
            withUnsafeMutableBytes(of: &value.u.object_id.bytes) { $0.copyBytes(from: bytes) }
        case FIEF_TYPE_UUID:
            guard let text = wrapped("$uuid"), let bytes = Importer.hexBytes(text.replacingDashes()), bytes.count == 16 else { throw mismatch() }
            withUnsafeMutableBytes(of: &value.u.uuid.bytes) { $0.copyBytes(from: bytes) }
        case FIEF_TYPE_LINK:
            guard case let .object(members) = json, members.count == 2, case let .string(className)? = json["$ref"],
                  let oldKey = json["$id"].flatMap(Importer.integer) else { throw mismatch() }
            if let target, className != target { throw mismatch() }
            guard let c = classesByName[className] else { throw place.error("a link to unknown class '\(className)'") }
            guard let newKey = newKeys[LinkKey(classKey: c.key, objectKey: oldKey)] else {
                throw place.error("a link to \(className) \(oldKey), which the input does not hold")
            }
            value.u.link = fief_link_t(class_key: c.key, object_key: newKey)
        default:
            throw place.error("cannot import values of type \(typeName(type))")
        }
        return value
    }
}

extension Importer {
    /// A plain JSON integer or {"$numberLong": "..."}.
    static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case let .integer(i): return i
        case let .object(members) where members.count == 1 && (members[0].key == "$numberLong" || members[0].key == "$numberInt"):
            if case let .string(text) = members[0].value { return Int64(text) }
            return nil
        default: return nil
        }
    }

    /// Bytes of a hexadecimal text, or nil.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let high = hexDigit(digits[i]), let low = hexDigit(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        return bytes
    }
}

private extension String {
    func replacingDashes() -> String { String(filter { $0 != "-" }) }
}
