import CFief
#if canImport(Glibc)
import Glibc
#endif

/// `fief schema|dump|info FILE`: look into any realm file through the C ABI,
/// without knowing its classes in advance.
struct ToolError: Error, CustomStringConvertible {
    var description: String
}

/// The last C error as a ToolError.
func lastError(_ what: String) -> ToolError {
    var error = fief_error_t()
    _ = fief_get_last_error(&error)
    let message = error.message.map { String(cString: $0) } ?? "unknown error"
    return ToolError(description: "\(what): \(message) (code \(error.code))")
}

/// An open realm read through the C ABI, with its schema.
final class Inspector {
    let realm: OpaquePointer
    let schema: OpaquePointer
    let path: String

    init(path: String) throws {
        self.path = path
        guard let config = fief_config_new() else { throw lastError("creating a configuration") }
        defer { _ = fief_release(UnsafeRawPointer(config)) }
        guard fief_config_set_path(config, path), fief_config_set_read_only(config, true) else {
            throw lastError("configuring")
        }
        guard let realm = fief_realm_open(config) else { throw lastError("opening '\(path)'") }
        self.realm = realm
        guard let schema = fief_realm_get_schema(realm) else { throw lastError("reading the schema") }
        self.schema = schema
    }

    deinit {
        _ = fief_release(UnsafeRawPointer(schema))
        _ = fief_release(UnsafeRawPointer(realm))
    }

    struct ClassInfo {
        var name: String
        var key: UInt32
        var primaryKey: String?
        var isEmbedded: Bool
        /// `collection`: FIEF_COLLECTION_NONE, _LIST, _SET or _MAP.
        var properties: [(name: String, key: UInt32, type: Int32, flags: UInt32, linkTarget: String?, collection: Int32)]
    }

    func classes() throws -> [ClassInfo] {
        var count = 0
        guard fief_schema_get_class_count(schema, &count) else { throw lastError("reading the schema") }
        var result: [ClassInfo] = []
        for i in 0..<count {
            var info = fief_class_info_t()
            guard fief_schema_get_class(schema, i, &info) else { throw lastError("reading the schema") }
            var properties: [(String, UInt32, Int32, UInt32, String?, Int32)] = []
            for j in 0..<info.num_properties {
                var p = fief_property_info_t()
                guard fief_schema_get_property(schema, i, j, &p) else { throw lastError("reading the schema") }
                // Linking objects are computed, never stored (and absent from a realm opened without a schema, as here).
                if p.collection_type == FIEF_COLLECTION_LINKING_OBJECTS { continue }
                properties.append((String(cString: p.name), p.key, p.type, p.flags, p.link_target.map { String(cString: $0) },
                                   p.collection_type))
            }
            result.append(ClassInfo(name: String(cString: info.name), key: info.key,
                                    primaryKey: info.primary_key.map { String(cString: $0) },
                                    isEmbedded: info.flags & UInt32(FIEF_CLASS_EMBEDDED) != 0, properties: properties))
        }
        return result
    }

    func count(_ classKey: UInt32) throws -> Int {
        guard let results = fief_realm_get_objects(realm, classKey) else { throw lastError("listing objects") }
        defer { _ = fief_release(UnsafeRawPointer(results)) }
        var n = 0
        guard fief_results_count(results, &n) else { throw lastError("counting objects") }
        return n
    }

    func version() throws -> UInt64 {
        var v: UInt64 = 0
        guard fief_realm_get_version(realm, &v) else { throw lastError("reading the version") }
        return v
    }
}

func typeName(_ type: Int32) -> String {
    switch type {
    case FIEF_TYPE_INT: return "int"
    case FIEF_TYPE_BOOL: return "bool"
    case FIEF_TYPE_STRING: return "string"
    case FIEF_TYPE_BINARY: return "data"
    case FIEF_TYPE_TIMESTAMP: return "date"
    case FIEF_TYPE_FLOAT: return "float"
    case FIEF_TYPE_DOUBLE: return "double"
    case FIEF_TYPE_DECIMAL128: return "decimal128"
    case FIEF_TYPE_OBJECT_ID: return "objectId"
    case FIEF_TYPE_UUID: return "uuid"
    case FIEF_TYPE_LINK: return "link"
    case FIEF_TYPE_MIXED: return "mixed"
    default: return "type\(type)"
    }
}

func printSchema(_ inspector: Inspector) throws {
    for c in try inspector.classes() {
        print("\(c.isEmbedded ? "embedded " : "")class \(c.name) {")
        for p in c.properties {
            // A link shows its target class, and a collection its elements,
            // as Swift spells the types: a list [Dog], a set Set<string>, a
            // map (string keys) [string: Dog?].  A mixed value (Realm's
            // AnyRealmValue) holds null itself: no '?'.
            var element = p.linkTarget ?? typeName(p.type)
            if p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0 && p.type != FIEF_TYPE_MIXED { element += "?" }
            var line = "    \(p.name): "
            switch p.collection {
            case FIEF_COLLECTION_LIST: line += "[\(element)]  [list]"
            case FIEF_COLLECTION_SET: line += "Set<\(element)>  [set]"
            case FIEF_COLLECTION_MAP: line += "[string: \(element)]  [map]"
            default: line += element + (p.type == FIEF_TYPE_LINK ? "  [link]" : "")
            }
            if p.flags & UInt32(FIEF_PROPERTY_PRIMARY_KEY) != 0 { line += "  [primary key]" }
            if p.flags & UInt32(FIEF_PROPERTY_INDEXED) != 0 { line += "  [indexed]" }
            if p.flags & UInt32(FIEF_PROPERTY_FULLTEXT_INDEXED) != 0 { line += "  [full-text indexed]" }
            print(line)
        }
        print("}")
    }
}

func printInfo(_ inspector: Inspector) throws {
    var st = stat()
    let size = stat(inspector.path, &st) == 0 ? Int(st.st_size) : -1
    print("file     \(inspector.path)")
    print("size     \(size) bytes")
    print("version  \(try inspector.version())")
    print("library  \(String(cString: fief_version_string()))")
    for c in try inspector.classes() {
        print("class    \(c.name): \(try inspector.count(c.key)) objects, \(c.properties.count) properties")
    }
}

func dump(_ inspector: Inspector, className: String) throws {
    let classes = try inspector.classes()
    guard let c = classes.first(where: { $0.name == className }) else {
        throw ToolError(description: "'\(inspector.path)' has no class '\(className)'")
    }
    guard let results = fief_realm_get_objects(inspector.realm, c.key) else { throw lastError("listing objects") }
    defer { _ = fief_release(UnsafeRawPointer(results)) }
    var count = 0
    guard fief_results_count(results, &count) else { throw lastError("counting") }
    let printer = ObjectPrinter(realm: inspector.realm, classes: classes)
    for row in 0..<count {
        guard let object = fief_results_get_object(results, row) else { throw lastError("reading object \(row)") }
        defer { _ = fief_release(UnsafeRawPointer(object)) }
        print(try printer.json(object, c))
    }
}

/// Objects as JSON: links as {"$link": ["Class", key]}, lists as arrays,
/// sets as arrays in the set's order, maps as objects in key order,
/// embedded objects inline, mixed values with their own type, and the
/// lists and dictionaries nested in mixed values as arrays and objects.
struct ObjectPrinter {
    let realm: OpaquePointer
    let classes: [Inspector.ClassInfo]
    let classNames: [UInt32: String]

    init(realm: OpaquePointer, classes: [Inspector.ClassInfo]) {
        self.realm = realm
        self.classes = classes
        classNames = Dictionary(uniqueKeysWithValues: classes.map { ($0.key, $0.name) })
    }

    func json(_ object: OpaquePointer, _ c: Inspector.ClassInfo) throws -> String {
        var line = "{"
        for (i, p) in c.properties.enumerated() {
            if i > 0 { line += ", " }
            line += JSON.string(p.name) + ": "
            switch p.collection {
            case FIEF_COLLECTION_LIST:
                guard let list = fief_object_get_list(object, p.key) else { throw lastError("reading list '\(p.name)'") }
                defer { _ = fief_release(UnsafeRawPointer(list)) }
                line += try listJSON(list, "list '\(p.name)'")
            case FIEF_COLLECTION_SET:
                guard let set = fief_object_get_set(object, p.key) else { throw lastError("reading set '\(p.name)'") }
                defer { _ = fief_release(UnsafeRawPointer(set)) }
                var size = 0
                guard fief_set_size(set, &size) else { throw lastError("reading set '\(p.name)'") }
                var values = [fief_value_t](repeating: fief_value_t(), count: size)
                guard fief_set_get_range(set, 0, size, &values) else { throw lastError("reading set '\(p.name)'") }
                line += "[" + (try values.map { try element($0) }.joined(separator: ", ")) + "]"
            case FIEF_COLLECTION_MAP:
                guard let map = fief_object_get_map(object, p.key) else { throw lastError("reading map '\(p.name)'") }
                defer { _ = fief_release(UnsafeRawPointer(map)) }
                line += try mapJSON(map, "map '\(p.name)'")
            default:
                var value = fief_value_t()
                guard fief_object_get_value(object, p.key, &value) else { throw lastError("reading '\(p.name)'") }
                // A mixed value holding a nested list or dictionary: its handle comes from the property.
                line += try element(value, "'\(p.name)'", list: { fief_object_get_list(object, p.key) },
                                    map: { fief_object_get_map(object, p.key) })
            }
        }
        return line + "}"
    }

    /// A list (of a property, or nested in a mixed value) as a JSON array.
    private func listJSON(_ list: OpaquePointer, _ what: String) throws -> String {
        var size = 0
        guard fief_list_size(list, &size) else { throw lastError("reading \(what)") }
        var values = [fief_value_t](repeating: fief_value_t(), count: size)
        guard size == 0 || fief_list_get_range(list, 0, size, &values) else { throw lastError("reading \(what)") }
        var parts: [String] = []
        parts.reserveCapacity(size)
        for (i, value) in values.enumerated() {
            parts.append(try element(value, "element \(i) of \(what)", list: { fief_list_get_list(list, i) },
                                     map: { fief_list_get_map(list, i) }))
        }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    /// A map (of a property, or a dictionary nested in a mixed value) as a
    /// JSON object, in key order.
    private func mapJSON(_ map: OpaquePointer, _ what: String) throws -> String {
        var size = 0
        guard fief_map_size(map, &size) else { throw lastError("reading \(what)") }
        var keys = [fief_string_t](repeating: fief_string_t(), count: size)
        var values = [fief_value_t](repeating: fief_value_t(), count: size)
        guard size == 0 || fief_map_get_entries(map, 0, size, &keys, &values) else { throw lastError("reading \(what)") }
        var parts: [String] = []
        parts.reserveCapacity(size)
        for i in 0..<size {
            let key = keys[i]
            let name = String(decoding: UnsafeRawBufferPointer(start: key.data, count: key.size), as: UTF8.self)
            parts.append(JSON.string(name) + ": " + (try element(values[i], "key '\(name)' of \(what)", list: { fief_map_get_list(map, key) },
                                                                 map: { fief_map_get_map(map, key) })))
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// A value; an embedded object printed in place; a nested list or
    /// dictionary (in a mixed value) opened with `list` or `map` and printed whole.
    private func element(_ value: fief_value_t, _ what: @autoclosure () -> String = "a value",
                         list: () -> OpaquePointer? = { nil }, map: () -> OpaquePointer? = { nil }) throws -> String {
        if value.type == FIEF_TYPE_LIST {
            guard let nested = list() else { throw lastError("reading the list in \(what())") }
            defer { _ = fief_release(UnsafeRawPointer(nested)) }
            return try listJSON(nested, "the list in \(what())")
        }
        if value.type == FIEF_TYPE_DICTIONARY {
            guard let nested = map() else { throw lastError("reading the dictionary in \(what())") }
            defer { _ = fief_release(UnsafeRawPointer(nested)) }
            return try mapJSON(nested, "the dictionary in \(what())")
        }
        if value.type == FIEF_TYPE_LINK, let target = classes.first(where: { $0.key == value.u.link.class_key }), target.isEmbedded {
            guard let child = fief_object_get(realm, target.key, value.u.link.object_key) else { throw lastError("reading an embedded object") }
            defer { _ = fief_release(UnsafeRawPointer(child)) }
            return try json(child, target)
        }
        return JSON.value(value, classNames: classNames)
    }
}

/// Just enough JSON for `dump`.
enum JSON {
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func hex<T>(_ value: T) -> String {
        var copy = value
        return withUnsafeBytes(of: &copy) { bytes in
            bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
        }
    }

    static func base64(_ bytes: UnsafeRawBufferPointer) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A value as JSON; a link as {"$link": ["Class", key]}.
    static func value(_ v: fief_value_t, classNames: [UInt32: String] = [:]) -> String {
        switch v.type {
        case FIEF_TYPE_LINK:
            let name = classNames[v.u.link.class_key] ?? "class \(v.u.link.class_key)"
            return "{\"$link\": [\(string(name)), \(v.u.link.object_key)]}"
        case FIEF_TYPE_NULL: return "null"
        case FIEF_TYPE_INT: return String(v.u.integer)
        case FIEF_TYPE_BOOL: return v.u.boolean ? "true" : "false"
        case FIEF_TYPE_STRING:
            let bytes = UnsafeRawBufferPointer(start: v.u.string.data, count: v.u.string.size)
            return string(String(decoding: bytes, as: UTF8.self))
        case FIEF_TYPE_BINARY:
            return string(base64(UnsafeRawBufferPointer(start: v.u.binary.data, count: v.u.binary.size)))
        case FIEF_TYPE_TIMESTAMP:
            return "{\"seconds\": \(v.u.timestamp.seconds), \"nanoseconds\": \(v.u.timestamp.nanoseconds)}"
        case FIEF_TYPE_FLOAT: return v.u.float_value.isFinite ? "\(v.u.float_value)" : string("\(v.u.float_value)")
        case FIEF_TYPE_DOUBLE: return v.u.double_value.isFinite ? "\(v.u.double_value)" : string("\(v.u.double_value)")
        case FIEF_TYPE_DECIMAL128: return string("decimal128:" + hex(v.u.decimal128))
        case FIEF_TYPE_OBJECT_ID: return string(hex(v.u.object_id))
        case FIEF_TYPE_UUID:
            let h = Array(hex(v.u.uuid))
            let parts = [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]].map { String($0) }
            return string(parts.joined(separator: "-"))
        default: return "null"
        }
    }
}

/// What `fief query` prints.
enum QueryOutput {
    /// The matching objects, as `dump` prints them.
    case objects
    /// How many objects match.
    case count
    /// The query's canonical text (fief_results_get_description).
    case description
}

/// `fief query FILE CLASS PREDICATE`: the objects of a class matching a
/// predicate (with its SORT, DISTINCT and LIMIT), printed as `dump` prints
/// them, or their count, or the query's canonical text.
func query(_ inspector: Inspector, className: String, predicate: String, output: QueryOutput) throws {
    let classes = try inspector.classes()
    guard let c = classes.first(where: { $0.name == className }) else {
        throw ToolError(description: "'\(inspector.path)' has no class '\(className)'")
    }
    guard let all = fief_realm_get_objects(inspector.realm, c.key) else { throw lastError("listing objects") }
    defer { _ = fief_release(UnsafeRawPointer(all)) }
    guard let results = fief_results_filter(all, predicate, nil, 0) else { throw queryError(predicate) }
    defer { _ = fief_release(UnsafeRawPointer(results)) }
    var count = 0
    guard fief_results_count(results, &count) else { throw lastError("counting") }
    switch output {
    case .count:
        print(count)
    case .description:
        guard let text = fief_results_get_description(results) else { throw lastError("describing the query") }
        print(String(cString: text))
    case .objects:
        let printer = ObjectPrinter(realm: inspector.realm, classes: classes)
        for row in 0..<count {
            guard let object = fief_results_get_object(results, row) else { throw lastError("reading object \(row)") }
            defer { _ = fief_release(UnsafeRawPointer(object)) }
            print(try printer.json(object, c))
        }
    }
}

/// The last C error of a filter, said as a problem with the query.
private func queryError(_ predicate: String) -> ToolError {
    var error = fief_error_t()
    _ = fief_get_last_error(&error)
    let message = error.message.map { String(cString: $0) } ?? "unknown error"
    let kind: String
    switch error.code {
    case FIEF_ERR_QUERY_SYNTAX: kind = "syntax error in the query"
    case FIEF_ERR_QUERY_INVALID, FIEF_ERR_QUERY_ARGUMENT: kind = "invalid query"
    default: kind = "cannot run the query"
    }
    return ToolError(description: "\(kind) '\(predicate)': \(message)")
}
