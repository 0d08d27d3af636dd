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

    /// Opens `path` read-only (every command but import), or for writing
    /// with `schema` (import creating a new file) or the file's own.
    init(path: String, readOnly: Bool = true, schema newSchema: OpaquePointer? = nil) throws {
        self.path = path
        guard let config = fief_config_new() else { throw lastError("creating a configuration") }
        defer { _ = fief_release(UnsafeRawPointer(config)) }
        guard fief_config_set_path(config, path), fief_config_set_read_only(config, readOnly) else {
            throw lastError("configuring")
        }
        if let newSchema, !fief_config_set_schema(config, newSchema) { throw lastError("configuring the schema") }
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

/// `fief dump FILE [CLASS]`: the objects of one class, or of every class
/// after one schema line per class (what `fief import` needs to create a
/// new file), one JSON object per line.
func dump(_ inspector: Inspector, className: String?) throws {
    let classes = try inspector.classes()
    let writer = ExtendedJSONWriter(realm: inspector.realm, classes: classes)
    let dumped: [Inspector.ClassInfo]
    if let className {
        guard let c = classes.first(where: { $0.name == className }) else {
            throw ToolError(description: "'\(inspector.path)' has no class '\(className)'")
        }
        guard !c.isEmbedded else {
            throw ToolError(description: "class '\(className)' is embedded: its objects are dumped inside the objects that own them")
        }
        dumped = [c]
    } else {
        for c in classes { print(ExtendedJSONWriter.schemaLine(c)) }
        dumped = classes.filter { !$0.isEmbedded }
    }
    for c in dumped {
        guard let results = fief_realm_get_objects(inspector.realm, c.key) else { throw lastError("listing objects") }
        defer { _ = fief_release(UnsafeRawPointer(results)) }
        var count = 0
        guard fief_results_count(results, &count) else { throw lastError("counting") }
        for row in 0..<count {
            guard let object = fief_results_get_object(results, row) else { throw lastError("reading object \(row)") }
            defer { _ = fief_release(UnsafeRawPointer(object)) }
            print(try writer.objectLine(object, c))
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
        let writer = ExtendedJSONWriter(realm: inspector.realm, classes: classes)
        for row in 0..<count {
            guard let object = fief_results_get_object(results, row) else { throw lastError("reading object \(row)") }
            defer { _ = fief_release(UnsafeRawPointer(object)) }
            print(try writer.objectLine(object, c))
        }
    }
}

/// The last C error of a filter, said as a problem with the query.
func queryError(_ predicate: String) -> ToolError {
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
