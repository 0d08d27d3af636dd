import CFief
import FiefDecimal

/// `fief dump` (and `fief query`) output: MongoDB Extended JSON v2 in its
/// canonical form, so that every value keeps its type and `fief import`
/// recreates it exactly (docs/design.md, "JSON export and import"):
///
///   {"$class": "Dog", "$key": 4, "name": "Rex", "age": {"$numberLong": "3"},
///    "owner": {"$ref": "Person", "$id": 1}}
///
/// ints {"$numberLong": "3"}; doubles and floats {"$numberDouble": "0.5"}
/// ("NaN", "Infinity", "-Infinity"), a float held in a mixed value marked
/// "$float": true; decimals {"$numberDecimal": "1.50"}; timestamps
/// {"$date": {"$numberLong": "<milliseconds>"}} plus "$nanos": <0...999999>
/// when they have nanoseconds below the millisecond; object ids {"$oid": ...};
/// UUIDs {"$uuid": ...}; data {"$binary": {"base64": ..., "subType": "00"}};
/// links {"$ref": "Class", "$id": <key>} (MongoDB's DBRef); lists and sets
/// arrays; maps and the dictionaries nested in mixed values objects (their
/// keys never start with '$', so never mistaken for the wrappers);
/// embedded objects inline, as objects of their properties.
struct ExtendedJSONWriter {
    let realm: OpaquePointer
    let classes: [Inspector.ClassInfo]
    private let classesByKey: [UInt32: Inspector.ClassInfo]

    init(realm: OpaquePointer, classes: [Inspector.ClassInfo]) {
        self.realm = realm
        self.classes = classes
        classesByKey = Dictionary(uniqueKeysWithValues: classes.map { ($0.key, $0) })
    }

    /// The line describing a class, which a whole-file dump starts with so
    /// that `fief import` can create a new file with the same schema.
    static func schemaLine(_ c: Inspector.ClassInfo) -> String {
        var line = "{\"$schema\": " + JSONText.string(c.name)
        if let primaryKey = c.primaryKey { line += ", \"primaryKey\": " + JSONText.string(primaryKey) }
        if c.isEmbedded { line += ", \"embedded\": true" }
        let properties = c.properties.map { p -> String in
            var text = "{\"name\": \(JSONText.string(p.name)), \"type\": \(JSONText.string(typeName(p.type)))"
            switch p.collection {
            case FIEF_COLLECTION_LIST: text += ", \"collection\": \"list\""
            case FIEF_COLLECTION_SET: text += ", \"collection\": \"set\""
            case FIEF_COLLECTION_MAP: text += ", \"collection\": \"map\""
            default: break
            }
            if let target = p.linkTarget { text += ", \"target\": " + JSONText.string(target) }
            if p.flags & UInt32(FIEF_PROPERTY_NULLABLE) != 0 { text += ", \"optional\": true" }
            if p.flags & UInt32(FIEF_PROPERTY_PRIMARY_KEY) != 0 { text += ", \"primaryKey\": true" }
            if p.flags & UInt32(FIEF_PROPERTY_INDEXED) != 0 { text += ", \"indexed\": true" }
            if p.flags & UInt32(FIEF_PROPERTY_FULLTEXT_INDEXED) != 0 { text += ", \"fullTextIndexed\": true" }
            return text + "}"
        }
        return line + ", \"properties\": [" + properties.joined(separator: ", ") + "]}"
    }

    /// One object's line: its class, its key, then its properties.
    func objectLine(_ object: OpaquePointer, _ c: Inspector.ClassInfo) throws -> String {
        var key: Int64 = 0
        guard fief_object_get_key(object, &key) else { throw lastError("reading an object's key") }
        return "{\"$class\": \(JSONText.string(c.name)), \"$key\": \(key)" + (try propertiesJSON(object, c, first: false, depth: 0)) + "}"
    }

    /// The properties of an object as JSON members (", " before each, or not before the first).
    /// `depth` counts the arrays and objects around them: past
    /// JSONParser.maximumDepth, which `fief import` refuses, the dump stops
    /// with an error rather than write what cannot be read back (or risk the
    /// stack on a file with collections nested 100,000 deep).
    private func propertiesJSON(_ object: OpaquePointer, _ c: Inspector.ClassInfo, first: Bool, depth: Int) throws -> String {
        guard depth < JSONParser.maximumDepth else {
            throw ToolError(description: "an object of class '\(c.name)' is nested more than \(JSONParser.maximumDepth) levels deep, deeper than the JSON form goes")
        }
        var text = ""
        for (i, p) in c.properties.enumerated() {
            if i > 0 || !first { text += ", " }
            text += JSONText.string(p.name) + ": "
            switch p.collection {
            case FIEF_COLLECTION_LIST:
                guard let list = fief_object_get_list(object, p.key) else { throw lastError("reading list '\(p.name)'") }
                defer { _ = fief_release(UnsafeRawPointer(list)) }
                text += try listJSON(list, "list '\(p.name)'", mixed: p.type == FIEF_TYPE_MIXED, depth: depth + 1)
            case FIEF_COLLECTION_SET:
                guard let set = fief_object_get_set(object, p.key) else { throw lastError("reading set '\(p.name)'") }
                defer { _ = fief_release(UnsafeRawPointer(set)) }
                var size = 0
                guard fief_set_count(set, &size) else { throw lastError("reading set '\(p.name)'") }
                var values = [fief_value_t](repeating: fief_value_t(), count: size)
                guard size == 0 || fief_set_get_range(set, 0, size, &values) else { throw lastError("reading set '\(p.name)'") }
                text += "[" + (try values.map { try element($0, "set '\(p.name)'", mixed: p.type == FIEF_TYPE_MIXED, depth: depth + 1) }.joined(separator: ", ")) + "]"
            case FIEF_COLLECTION_MAP:
                guard let map = fief_object_get_map(object, p.key) else { throw lastError("reading map '\(p.name)'") }
                defer { _ = fief_release(UnsafeRawPointer(map)) }
                text += try mapJSON(map, "map '\(p.name)'", mixed: p.type == FIEF_TYPE_MIXED, depth: depth + 1)
            default:
                var value = fief_value_t()
                guard fief_object_get_value(object, p.key, &value) else { throw lastError("reading '\(p.name)'") }
                // A mixed value holding a nested list or dictionary: its handle comes from the property.
                text += try element(value, "'\(p.name)'", mixed: p.type == FIEF_TYPE_MIXED, depth: depth, list: { fief_object_get_list(object, p.key) },
                                    map: { fief_object_get_map(object, p.key) })
            }
        }
        return text
    }

    /// A list (of a property, or nested in a mixed value) as a JSON array.
    private func listJSON(_ list: OpaquePointer, _ what: String, mixed: Bool, depth: Int) throws -> String {
        guard depth < JSONParser.maximumDepth else { throw tooDeep(what) }
        var size = 0
        guard fief_list_count(list, &size) else { throw lastError("reading \(what)") }
        var values = [fief_value_t](repeating: fief_value_t(), count: size)
        guard size == 0 || fief_list_get_range(list, 0, size, &values) else { throw lastError("reading \(what)") }
        var parts: [String] = []
        parts.reserveCapacity(size)
        for (i, value) in values.enumerated() {
            parts.append(try element(value, "element \(i) of \(what)", mixed: mixed, depth: depth, list: { fief_list_get_list(list, i) },
                                     map: { fief_list_get_map(list, i) }))
        }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    /// A map (of a property, or a dictionary nested in a mixed value) as a
    /// JSON object, in key order.
    private func mapJSON(_ map: OpaquePointer, _ what: String, mixed: Bool, depth: Int) throws -> String {
        guard depth < JSONParser.maximumDepth else { throw tooDeep(what) }
        var size = 0
        guard fief_map_count(map, &size) else { throw lastError("reading \(what)") }
        var keys = [fief_string_t](repeating: fief_string_t(), count: size)
        var values = [fief_value_t](repeating: fief_value_t(), count: size)
        guard size == 0 || fief_map_get_entries(map, 0, size, &keys, &values) else { throw lastError("reading \(what)") }
        var parts: [String] = []
        parts.reserveCapacity(size)
        for i in 0..<size {
            let key = keys[i]
            let name = String(decoding: UnsafeRawBufferPointer(start: key.data, count: key.size), as: UTF8.self)
            parts.append(JSONText.string(name) + ": " + (try element(values[i], "key '\(name)' of \(what)", mixed: mixed, depth: depth,
                                                                     list: { fief_map_get_list(map, key) },
                                                                     map: { fief_map_get_map(map, key) })))
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// A value; an embedded object written in place; a nested list or
    /// dictionary (in a mixed value) opened with `list` or `map` and written whole.
    private func element(_ value: fief_value_t, _ what: @autoclosure () -> String, mixed: Bool, depth: Int,
                         list: () -> OpaquePointer? = { nil }, map: () -> OpaquePointer? = { nil }) throws -> String {
        switch value.type {
        case FIEF_TYPE_LIST:
            guard let nested = list() else { throw lastError("reading the list in \(what())") }
            defer { _ = fief_release(UnsafeRawPointer(nested)) }
            return try listJSON(nested, "the list in \(what())", mixed: true, depth: depth + 1)
        case FIEF_TYPE_MAP:
            guard let nested = map() else { throw lastError("reading the dictionary in \(what())") }
            defer { _ = fief_release(UnsafeRawPointer(nested)) }
            return try mapJSON(nested, "the dictionary in \(what())", mixed: true, depth: depth + 1)
        case FIEF_TYPE_LINK:
            guard let target = classesByKey[value.u.link.class_key] else {
                throw ToolError(description: "\(what()) links to an unknown class (key \(value.u.link.class_key))")
            }
            if target.isEmbedded {
                guard let child = fief_object_get(realm, target.key, value.u.link.object_key) else {
                    throw lastError("reading the embedded object of \(what())")
                }
                defer { _ = fief_release(UnsafeRawPointer(child)) }
                return "{" + (try propertiesJSON(child, target, first: true, depth: depth + 1)) + "}"
            }
            return "{\"$ref\": \(JSONText.string(target.name)), \"$id\": \(value.u.link.object_key)}"
        case FIEF_TYPE_FLOAT where mixed:
            // A mixed value keeps its type: a float comes back a float, not a double.
            let double = ExtendedJSON.scalar(value)
            return double.dropLast() + ", \"$float\": true}"
        default:
            return ExtendedJSON.scalar(value)
        }
    }

    private func tooDeep(_ what: String) -> ToolError {
        ToolError(description: "\(what) is nested more than \(JSONParser.maximumDepth) levels deep, deeper than the JSON form goes")
    }
}

/// Scalars in canonical Extended JSON.
enum ExtendedJSON {
    static func double(_ d: Double) -> String {
        let text: String
        if d.isNaN { text = "NaN" } else if d.isInfinite { text = d < 0 ? "-Infinity" : "Infinity" } else { text = "\(d)" }
        return "{\"$numberDouble\": \"\(text)\"}"
    }

    static let nanosecondsPerMillisecond: Int128 = 1_000_000

    /// A value that is neither a link nor a nested collection.
    static func scalar(_ v: fief_value_t) -> String {
        switch v.type {
        case FIEF_TYPE_NULL: return "null"
        case FIEF_TYPE_INT: return "{\"$numberLong\": \"\(v.u.integer)\"}"
        case FIEF_TYPE_BOOL: return v.u.boolean ? "true" : "false"
        case FIEF_TYPE_STRING:
            let bytes = UnsafeRawBufferPointer(start: v.u.string.data, count: v.u.string.size)
            return JSONText.string(String(decoding: bytes, as: UTF8.self))
        case FIEF_TYPE_BINARY:
            let base64 = JSONText.base64(UnsafeRawBufferPointer(start: v.u.binary.data, count: v.u.binary.size))
            return "{\"$binary\": {\"base64\": \"\(base64)\", \"subType\": \"00\"}}"
        case FIEF_TYPE_TIMESTAMP:
            // Milliseconds rounded down, and the nanoseconds left over (0 ... 999,999) when there are any.
            let total = Int128(v.u.timestamp.seconds) * 1_000_000_000 + Int128(v.u.timestamp.nanoseconds)
            var milliseconds = total / nanosecondsPerMillisecond
            var nanoseconds = total % nanosecondsPerMillisecond
            if nanoseconds < 0 {
                milliseconds -= 1
                nanoseconds += nanosecondsPerMillisecond
            }
            return "{\"$date\": {\"$numberLong\": \"\(milliseconds)\"}" + (nanoseconds == 0 ? "}" : ", \"$nanos\": \(nanoseconds)}")
        case FIEF_TYPE_FLOAT:
            // A float is written as the double of the same value; its property's type (or, in a mixed value, "$float") brings it back.
            return double(Double(v.u.float_value))
        case FIEF_TYPE_DOUBLE: return double(v.u.double_value)
        case FIEF_TYPE_DECIMAL128:
            let bits = Decimal128Bits(low: v.u.decimal128.w.0, high: v.u.decimal128.w.1)
            return "{\"$numberDecimal\": \"\(DecimalArithmetic.scientificText(bits))\"}"
        case FIEF_TYPE_OBJECT_ID:
            return "{\"$oid\": \"\(withUnsafeBytes(of: v.u.object_id.bytes) { JSONText.hex($0) })\"}"
        case FIEF_TYPE_UUID:
            let h = Array(withUnsafeBytes(of: v.u.uuid.bytes) { JSONText.hex($0) })
            let parts = [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]].map { String($0) }
            return "{\"$uuid\": \"\(parts.joined(separator: "-"))\"}"
        default: return "null"
        }
    }
}
