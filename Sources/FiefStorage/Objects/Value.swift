// Decimal128Bits, the engine's decimal128 values, and their arithmetic
// (DecimalArithmetic) come from FiefDecimal; re-exported because
// `Value.decimal128` carries them to the engine's users (FiefC).
@_exported import FiefDecimal

/// Twelve bytes of an object id, in storage (big-endian, sortable) order.
public struct ObjectIdBytes: Hashable, Sendable {
    public var high: UInt64   // bytes 0..<8, big-endian
    public var low: UInt32    // bytes 8..<12, big-endian

    public init(high: UInt64, low: UInt32) { self.high = high; self.low = low }

    public init(bytes: UnsafeRawPointer) {
        high = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
        low = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    public func store(to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: high.bigEndian, as: UInt64.self)
        (pointer + 8).storeBytes(of: low.bigEndian, as: UInt32.self)
    }

    public static func < (a: ObjectIdBytes, b: ObjectIdBytes) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}

/// Sixteen bytes of a UUID, in RFC 4122 (big-endian, sortable) order.
public struct UUIDBytes: Hashable, Sendable {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) { self.high = high; self.low = low }

    public init(bytes: UnsafeRawPointer) {
        high = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    public func store(to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: high.bigEndian, as: UInt64.self)
        (pointer + 8).storeBytes(of: low.bigEndian, as: UInt64.self)
    }

    public static func < (a: UUIDBytes, b: UUIDBytes) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}


/// One value crossing the engine's boundary, in either direction.
///
/// Strings and binaries are *views*: going in, they are read during the call
/// only (the engine copies what it keeps); coming out, they point into the
/// database map or the write transaction's buffers and stay valid until the
/// realm's data or snapshot changes.
public enum Value {
    case null
    case int(Int64)
    case bool(Bool)
    case string(UnsafeRawBufferPointer)
    case binary(UnsafeRawBufferPointer)
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case float(Float)
    case double(Double)
    case decimal128(Decimal128Bits)
    case objectId(ObjectIdBytes)
    case uuid(UUIDBytes)
    /// A link to the object `objectKey` of the class `classKey`.
    case link(classKey: UInt32, objectKey: Int64)
    /// In a mixed value: the nested list of mixed values `id` (see
    /// `NestedStore`).  Written, any id means "a new, empty list here".
    case nestedList(Int64)
    /// In a mixed value: the nested dictionary `id`, as `nestedList`.
    case nestedDictionary(Int64)

    /// The type of the value; nil for null.
    public var type: PropertyType? {
        switch self {
        case .null: return nil
        case .int: return .int
        case .bool: return .bool
        case .string: return .string
        case .binary: return .binary
        case .timestamp: return .timestamp
        case .float: return .float
        case .double: return .double
        case .decimal128: return .decimal128
        case .objectId: return .objectId
        case .uuid: return .uuid
        case .link: return .link
        case .nestedList, .nestedDictionary: return .mixed
        }
    }

    /// The type's name, as error messages give it.
    public var typeName: String {
        switch self {
        case .nestedList: return "list"
        case .nestedDictionary: return "dictionary"
        default: return type?.name ?? "null"
        }
    }

    /// The id of the nested collection the value holds, if it holds one.
    @inlinable @inline(__always)
    public var nestedID: Int64? {
        switch self {
        case .nestedList(let id), .nestedDictionary(let id): return id
        default: return nil
        }
    }

    /// The class a link value points to, if it is a link.
    @inlinable @inline(__always)
    public var linkedClass: UInt32? {
        if case .link(let classKey, _) = self { return classKey }
        return nil
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Whether `seconds` and `nanoseconds` make a timestamp: |nanoseconds| is
    /// below one second, and it has the sign of `seconds` (or either is 0).
    /// Every timestamp that enters the engine is checked with this (written
    /// to a property, passed as a query argument, written as a literal).
    @inlinable @inline(__always)
    public static func isValidTimestamp(seconds: Int64, nanoseconds: Int32) -> Bool {
        nanoseconds > -1_000_000_000 && nanoseconds < 1_000_000_000
            && (seconds == 0 || nanoseconds == 0 || (seconds > 0) == (nanoseconds > 0))
    }

    /// Why `isValidTimestamp` refused a timestamp, for error messages.
    public static func invalidTimestampMessage(seconds: Int64, nanoseconds: Int32) -> String {
        "invalid timestamp (seconds \(seconds), nanoseconds \(nanoseconds)): nanoseconds must lie between -999999999 and 999999999 and have the sign of seconds"
    }

    /// The default value of a non-optional property of `type`.
    public static func zero(of type: PropertyType) -> Value {
        switch type {
        case .int: return .int(0)
        case .bool: return .bool(false)
        case .string: return .string(UnsafeRawBufferPointer(start: nil, count: 0))
        case .binary: return .binary(UnsafeRawBufferPointer(start: nil, count: 0))
        case .timestamp: return .timestamp(seconds: 0, nanoseconds: 0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .decimal128: return .decimal128(DecimalArithmetic.zero)
        case .objectId: return .objectId(ObjectIdBytes(high: 0, low: 0))
        case .uuid: return .uuid(UUIDBytes(high: 0, low: 0))
        case .link, .mixed: return .null
        }
    }

    /// Check (and where allowed, convert) a value for a property.
    @inlinable @inline(__always)
    public func coerced(for property: Property, className: @autoclosure () -> String) throws(FiefError) -> Value {
        // The common case, a value of the property's own type that needs no
        // further check, without building the error context.
        if let ready = coercedQuickly(to: property.type) { return ready }
        return try coercedSlowly(for: property, className: className())
    }

    /// The value itself when it is of `type` and needs no check or
    /// conversion (valid UTF-8 for strings); nil otherwise (use `coerced`).
    @inlinable @inline(__always)
    public func coercedQuickly(to type: PropertyType) -> Value? {
        switch (self, type) {
        case (.int, .int), (.bool, .bool), (.double, .double), (.float, .float), (.binary, .binary),
             (.objectId, .objectId), (.uuid, .uuid), (.decimal128, .decimal128):
            return self
        case (.string(let bytes), .string):
            return UTF8Check.isValid(bytes) ? self : nil
        default:
            return nil
        }
    }

    @usableFromInline func coercedSlowly(for property: Property, className: @autoclosure () -> String) throws(FiefError) -> Value {
        switch (self, property.type) {
        case (.null, _):
            if property.isNullable || property.type == .mixed { return self }
            throw FiefError(.nullNotAllowed, "property '\(className()).\(property.name)' is not optional and cannot be null")
        case (.int, .int), (.bool, .bool), (.binary, .binary), (.timestamp, .timestamp),
             (.float, .float), (.double, .double), (.decimal128, .decimal128),
             (.objectId, .objectId), (.uuid, .uuid):
            if case .timestamp(let s, let ns) = self, !Value.isValidTimestamp(seconds: s, nanoseconds: ns) {
                throw FiefError(.invalidArgument, "'\(className()).\(property.name)': \(Value.invalidTimestampMessage(seconds: s, nanoseconds: ns))")
            }
            return self
        case (.string(let bytes), .string):
            guard UTF8Check.isValid(bytes) else {
                throw FiefError(.invalidUTF8, "the string for '\(className()).\(property.name)' is not valid UTF-8")
            }
            return self
        case (.link, .link), (.link, .mixed):
            // The realm checks the class and that the object exists (`Links.check`).
            return self
        case (.string(let bytes), .mixed):
            guard UTF8Check.isValid(bytes) else {
                throw FiefError(.invalidUTF8, "the string for '\(className()).\(property.name)' is not valid UTF-8")
            }
            return self
        case (.timestamp(let s, let ns), .mixed):
            if !Value.isValidTimestamp(seconds: s, nanoseconds: ns) {
                throw FiefError(.invalidArgument, "'\(className()).\(property.name)': \(Value.invalidTimestampMessage(seconds: s, nanoseconds: ns))")
            }
            return self
        case (.nestedList, .mixed), (.nestedDictionary, .mixed):
            // Only single mixed values, lists and maps nest collections.
            guard property.collection != .set else {
                throw FiefError(.typeMismatch, "'\(className()).\(property.name)' is a set of mixed values and cannot hold a nested \(typeName)")
            }
            return self
        case (_, .mixed):
            return self
        case (.int(let i), .double): return .double(Double(i))
        case (.int(let i), .float): return .float(Float(i))
        case (.float(let f), .double): return .double(Double(f))
        case (.double(let d), .float): return .float(Float(d))
        default:
            if property.type == .link {
                throw FiefError(.typeMismatch, "property '\(className()).\(property.name)' holds links to '\(property.linkTarget ?? "")' objects, not \(typeName) values")
            }
            throw FiefError(.typeMismatch, "property '\(className()).\(property.name)' holds \(property.isNullable ? "optional " : "")\(property.type.name) values, not \(typeName)")
        }
    }
}

/// Strict UTF-8 validation (no overlongs, no surrogates, at most U+10FFFF).
public enum UTF8Check {
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        // ASCII runs, eight bytes at a time.
        if let base = bytes.baseAddress {
            while i + 8 <= n && base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
            while i < n && base.load(fromByteOffset: i, as: UInt8.self) < 0x80 { i += 1 }
            if i == n { return true }
        }
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            var need = 0
            var minCode: UInt32 = 0
            var code: UInt32 = 0
            if b0 & 0xE0 == 0xC0 { need = 1; minCode = 0x80; code = UInt32(b0 & 0x1F) }
            else if b0 & 0xF0 == 0xE0 { need = 2; minCode = 0x800; code = UInt32(b0 & 0x0F) }
            else if b0 & 0xF8 == 0xF0 { need = 3; minCode = 0x10000; code = UInt32(b0 & 0x07) }
            else { return false }
            guard i + need < n else { return false }
            for j in 1...need {
                guard i + j < n else { return false }
                let b = bytes[i + j]
                guard b & 0xC0 == 0x80 else { return false }
                code = (code << 6) | UInt32(b & 0x3F)
            }
            if code < minCode || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) { return false }
            i += need + 1
        }
        return true
    }
}
