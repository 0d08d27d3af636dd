import CFief
import FiefEngine
import FiefStorage

/// Conversions between the ABI's tagged union and the engine's `Value`.
enum ValueBridge {
    /// Read a value passed in.  Strings and binaries stay views of the caller's memory.
    /// Every value that enters through the C ABI comes through here, so this
    /// is where a value is refused whatever it is for (a property, a query
    /// argument, a primary key): an unknown type, a view whose size its
    /// pointer cannot hold, an invalid timestamp.  `name` names the value as
    /// the header does ("value", "values[2]", "args[0].values[0]").
    @inline(__always)
    static func engineValue(_ v: fief_value_t, _ name: @autoclosure () -> String) throws(FiefError) -> Value {
        switch v.type {
        case FIEF_TYPE_NULL: return .null
        case FIEF_TYPE_INT: return .int(v.u.integer)
        case FIEF_TYPE_BOOL:
            // Read the byte: a C caller may pass any non-zero value for true.
            var copy = v
            let byte = withUnsafeBytes(of: &copy.u) { $0[0] }
            return .bool(byte != 0)
        case FIEF_TYPE_STRING:
            let s = v.u.string
            let bytes = try CArgs.array(s.data, s.size, "\(name()).u.string.data", count: "\(name()).u.string.size")
            return .string(UnsafeRawBufferPointer(bytes))
        case FIEF_TYPE_BINARY:
            let b = v.u.binary
            let bytes = try CArgs.array(b.data, b.size, "\(name()).u.binary.data", count: "\(name()).u.binary.size")
            return .binary(UnsafeRawBufferPointer(bytes))
        case FIEF_TYPE_TIMESTAMP:
            let t = v.u.timestamp
            guard Value.isValidTimestamp(seconds: t.seconds, nanoseconds: t.nanoseconds) else {
                throw FiefError(.invalidArgument, "\(name()): \(Value.invalidTimestampMessage(seconds: t.seconds, nanoseconds: t.nanoseconds))")
            }
            return .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds)
        case FIEF_TYPE_FLOAT: return .float(v.u.float_value)
        case FIEF_TYPE_DOUBLE: return .double(v.u.double_value)
        case FIEF_TYPE_DECIMAL128: return .decimal128(Decimal128Bits(low: v.u.decimal128.w.0, high: v.u.decimal128.w.1))
        case FIEF_TYPE_OBJECT_ID:
            var copy = v
            return withUnsafeBytes(of: &copy.u.object_id) { .objectId(ObjectIdBytes(bytes: $0.baseAddress!)) }
        case FIEF_TYPE_UUID:
            var copy = v
            return withUnsafeBytes(of: &copy.u.uuid) { .uuid(UUIDBytes(bytes: $0.baseAddress!)) }
        case FIEF_TYPE_LINK: return .link(classKey: v.u.link.class_key, objectKey: v.u.link.object_key)
        // A new, empty nested collection (the payload is ignored).
        case FIEF_TYPE_LIST: return .nestedList(0)
        case FIEF_TYPE_MAP: return .nestedDictionary(0)
        case FIEF_TYPE_GEO_SHAPE:
            throw FiefError(.invalidArgument, "\(name()) is a geospatial shape (FIEF_TYPE_GEO_SHAPE), which only a query argument of its own can be (GEOWITHIN $n)")
        default:
            throw FiefError(.invalidArgument, "\(name()) has unknown value type \(v.type)")
        }
    }

    /// Convert `values`, named `name[i]` in errors, into engine values (views).
    @inline(__always)
    static func engineValues(_ values: UnsafeBufferPointer<fief_value_t>, _ name: @autoclosure () -> String) throws(FiefError) -> [Value] {
        var result: [Value] = []
        result.reserveCapacity(values.count)
        for i in 0..<values.count { result.append(try engineValue(values[i], "\(name())[\(i)]")) }
        return result
    }

    /// Write a value out.
    static func cValue(_ value: Value) -> fief_value_t {
        var out = fief_value_t()
        switch value {
        case .null: out.type = FIEF_TYPE_NULL
        case .int(let i): out.type = FIEF_TYPE_INT; out.u.integer = i
        case .bool(let b): out.type = FIEF_TYPE_BOOL; out.u.boolean = b
        case .string(let s):
            out.type = FIEF_TYPE_STRING
            out.u.string = fief_string_t(data: s.baseAddress?.assumingMemoryBound(to: CChar.self), size: s.count)
        case .binary(let b):
            out.type = FIEF_TYPE_BINARY
            out.u.binary = fief_binary_t(data: b.baseAddress?.assumingMemoryBound(to: UInt8.self), size: b.count)
        case .timestamp(let s, let ns):
            out.type = FIEF_TYPE_TIMESTAMP
            out.u.timestamp = fief_timestamp_t(seconds: s, nanoseconds: ns)
        case .float(let f): out.type = FIEF_TYPE_FLOAT; out.u.float_value = f
        case .double(let d): out.type = FIEF_TYPE_DOUBLE; out.u.double_value = d
        case .decimal128(let d):
            out.type = FIEF_TYPE_DECIMAL128
            out.u.decimal128 = fief_decimal128_t(w: (d.low, d.high))
        case .objectId(let id):
            out.type = FIEF_TYPE_OBJECT_ID
            withUnsafeMutableBytes(of: &out.u.object_id) { id.store(to: $0.baseAddress!) }
        case .uuid(let id):
            out.type = FIEF_TYPE_UUID
            withUnsafeMutableBytes(of: &out.u.uuid) { id.store(to: $0.baseAddress!) }
        case .link(let classKey, let objectKey):
            out.type = FIEF_TYPE_LINK
            out.u.link = fief_link_t(class_key: classKey, object_key: objectKey)
        case .nestedList: out.type = FIEF_TYPE_LIST
        case .nestedDictionary: out.type = FIEF_TYPE_MAP
        }
        return out
    }
}
