// The thin layer between the overlay and the C ABI (fief.h): handle
// ownership, the thread's last error, and conversions between Swift values
// and `fief_value_t`.  Everything here is internal to the overlay.

import CFief
import Foundation

// MARK: - Locks

/// A value guarded by a lock, for the overlay's few process-wide tables.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// MARK: - Handles

/// One reference to a C handle (`fief_realm_t`, `fief_object_t`,
/// `fief_results_t`, `fief_schema_t`, `fief_config_t`), given back with
/// `fief_release` when the last Swift reference goes.
final class CHandle: @unchecked Sendable {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) { self.raw = raw }

    deinit { _ = fief_release(UnsafeRawPointer(raw)) }
}

// MARK: - Errors from the C layer

/// A copy of the calling thread's last-error slot (`fief_get_last_error`).
struct CError: Swift.Error, CustomStringConvertible {
    let code: Int32
    let categories: UInt32
    let message: String
    let path: String?

    /// Reads the calling thread's last error; call right after a failure.
    static func last() -> CError {
        var error = fief_error_t()
        guard fief_get_last_error(&error) else {
            return CError(code: FIEF_ERR_INTERNAL, categories: UInt32(FIEF_ERR_CAT_RUNTIME),
                          message: "the call failed without reporting an error", path: nil)
        }
        return CError(code: error.code, categories: error.categories,
                      message: error.message.map { String(cString: $0) } ?? "",
                      path: error.path.map { String(cString: $0) })
    }

    func isCategory(_ category: Int32) -> Bool { categories & UInt32(category) != 0 }

    var description: String { "Fief error \(code): \(message)" }
}

/// Stops the process for a programmer error, where RealmSwift itself traps
/// (it raises an Objective-C exception there), with the C layer's message.
func fiefTrap(_ context: String, _ error: CError, file: StaticString = #file, line: UInt = #line) -> Never {
    preconditionFailure("\(context): \(error.message) [Fief error \(error.code)]", file: file, line: line)
}

/// The trap for position `index` outside a collection of `count` elements,
/// in RealmSwift's words: "Cannot pass a negative value" for a negative
/// index, else "Index i is out of bounds (must be less than n)."; `detail`
/// (the C layer's message) is added in brackets.
func fiefTrapIndex(_ index: Int?, count: Int, detail: String? = nil, file: StaticString = #file, line: UInt = #line) -> Never {
    let suffix = detail.map { " [\($0)]" } ?? ""
    if let index, index < 0 {
        preconditionFailure("Cannot pass a negative value as an index (\(index))." + suffix, file: file, line: line)
    }
    preconditionFailure("Index \(index.map(String.init) ?? "") is out of bounds (must be less than \(count))." + suffix, file: file, line: line)
}

/// Traps with the last C error when `ok` is false.
@inline(__always)
func fiefCheck(_ ok: Bool, _ context: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !ok { fiefTrap(context(), CError.last(), file: file, line: line) }
}

/// The message RealmSwift uses for a use of a deleted or invalidated object.
let invalidatedObjectMessage = "Object has been deleted or invalidated."

// MARK: - Values passed in

/// Owns the copies of strings and binaries that `fief_value_t` views passed
/// *in* point to; keep it alive (withExtendedLifetime) across the C call.
public final class _FiefArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    init() {}

    deinit { for block in blocks { block.deallocate() } }

    private func copy<C: Collection>(_ bytes: C) -> (UnsafePointer<UInt8>?, Int) where C.Element == UInt8 {
        let count = bytes.count
        guard count > 0 else { return (nil, 0) }
        let block = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
        blocks.append(block)
        let typed = block.bindMemory(to: UInt8.self, capacity: count)
        let buffer = UnsafeMutableBufferPointer(start: typed, count: count)
        if bytes.withContiguousStorageIfAvailable({ source in
            _ = buffer.initialize(from: source)
        }) == nil {
            _ = buffer.initialize(from: bytes)
        }
        return (UnsafePointer(typed), count)
    }

    func string(_ string: String) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_STRING
        let (pointer, count) = copy(string.utf8)
        value.u.string = fief_string_t(data: pointer.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                       size: count)
        return value
    }

    func binary(_ data: Data) -> fief_value_t {
        var value = fief_value_t()
        value.type = FIEF_TYPE_BINARY
        let (pointer, count) = copy(data)
        value.u.binary = fief_binary_t(data: pointer, size: count)
        return value
    }

    /// A zero-terminated copy of `string`, freed with the arena.
    func cString(_ string: String) -> UnsafePointer<CChar> {
        let utf8 = Array(string.utf8CString)
        let block = UnsafeMutableRawPointer.allocate(byteCount: utf8.count, alignment: 1)
        blocks.append(block)
        let typed = block.bindMemory(to: CChar.self, capacity: utf8.count)
        typed.initialize(from: utf8, count: utf8.count)
        return UnsafePointer(typed)
    }

    /// A copy of `values` that lives as long as the arena.
    func array<T>(_ values: [T]) -> UnsafePointer<T>? {
        guard !values.isEmpty else { return nil }
        let block = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.stride * values.count,
                                                     alignment: MemoryLayout<T>.alignment)
        blocks.append(block)
        let typed = block.bindMemory(to: T.self, capacity: values.count)
        typed.initialize(from: values, count: values.count)
        return UnsafePointer(typed)
    }
}

extension fief_value_t {
    static var null: fief_value_t { fief_value_t() }

    static func int(_ value: Int64) -> fief_value_t {
        var result = fief_value_t()
        result.type = FIEF_TYPE_INT
        result.u.integer = value
        return result
    }
}

/// Values the overlay can pass to the C layer from an `Any` (query
/// arguments, primary keys, `create(_:value:)` dictionaries).
protocol FiefAnyConvertible {
    func fiefValue(in arena: _FiefArena) -> fief_value_t
}

/// Optional, seen through `Any`.
protocol FiefOptionalBox {
    var fiefWrapped: Any? { get }
}

extension Optional: FiefOptionalBox {
    var fiefWrapped: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped): return wrapped
        }
    }
}

/// Unwraps any depth of Optional hidden in an `Any`.
func fiefUnwrap(_ any: Any?) -> Any? {
    guard let any else { return nil }
    if let box = any as? FiefOptionalBox {
        return fiefUnwrap(box.fiefWrapped)
    }
    return any
}

/// Converts one Swift value (Int*, UInt8-32, Bool, Float, Double, String, Data, Date,
/// ObjectId, Decimal128, UUID, nil/NSNull) to a `fief_value_t`; nil when the
/// type has no Fief equivalent.
func fiefValue(fromAny any: Any?, arena: _FiefArena, propertyType: fief_type_t? = nil) -> fief_value_t? {
    guard let value = fiefUnwrap(any) else { return .null }
    // Foundation objects, as RealmSwift accepts them: an NSNumber becomes the
    // property's kind of number (an integral one for an int property).
    if let number = value as? NSNumber, type(of: value) is NSNumber.Type, let propertyType {
        switch propertyType {
        case FIEF_TYPE_INT:
            let double = number.doubleValue
            guard double == double.rounded(), abs(double) < 9.3e18 else { return nil }
            return Int64(number.int64Value)._fiefValue(in: arena)
        case FIEF_TYPE_BOOL: return number.boolValue._fiefValue(in: arena)
        case FIEF_TYPE_FLOAT: return number.floatValue._fiefValue(in: arena)
        default: break
        }
    }
    if let convertible = value as? FiefAnyConvertible {
        return convertible.fiefValue(in: arena)
    }
    if value is NSNull { return .null }
    switch value {
    case let v as NSDate: return Date(timeIntervalSinceReferenceDate: v.timeIntervalSinceReferenceDate)._fiefValue(in: arena)
    case let v as NSData: return Data(referencing: v)._fiefValue(in: arena)
    case let v as UInt: return v <= UInt(Int64.max) ? .int(Int64(v)) : nil
    case let v as UInt8: return .int(Int64(v))
    case let v as UInt16: return .int(Int64(v))
    case let v as UInt32: return .int(Int64(v))
    case let v as UInt64: return v <= UInt64(Int64.max) ? .int(Int64(v)) : nil
    case let v as NSNumber: return .double(v.doubleValue)
    case let v as Substring: return arena.string(String(v))
    case let v as NSString: return arena.string(v as String)
    // Enums and custom persistable types, as their stored values.
    case let v as any _Persistable:
        guard let stored = v._fiefStored else { return .null }
        guard ObjectIdentifier(type(of: stored)) != ObjectIdentifier(type(of: v)) else { return nil }
        return fiefValue(fromAny: stored, arena: arena, propertyType: propertyType)
    default: return nil
    }
}

extension fief_value_t {
    static func double(_ value: Double) -> fief_value_t {
        var result = fief_value_t()
        result.type = FIEF_TYPE_DOUBLE
        result.u.double_value = value
        return result
    }
}

// MARK: - Values passed out

/// Copies a string view (`fief_string_t`) into a Swift String.
@inline(__always)
func fiefString(_ view: fief_string_t) -> String {
    guard let data = view.data, view.size > 0 else { return "" }
    return UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: view.size) {
        String(decoding: UnsafeBufferPointer(start: $0, count: view.size), as: UTF8.self)
    }
}

/// Copies a binary view (`fief_binary_t`) into Data.
@inline(__always)
func fiefData(_ view: fief_binary_t) -> Data {
    guard let data = view.data, view.size > 0 else { return Data() }
    return Data(bytes: data, count: view.size)
}

/// A Swift value for any `fief_value_t` (for descriptions and dynamic access).
func fiefAnyValue(_ value: fief_value_t) -> Any? {
    switch value.type {
    case FIEF_TYPE_INT: return Int(value.u.integer)
    case FIEF_TYPE_BOOL: return value.u.boolean
    case FIEF_TYPE_STRING: return fiefString(value.u.string)
    case FIEF_TYPE_BINARY: return fiefData(value.u.binary)
    case FIEF_TYPE_TIMESTAMP: return Date(fiefTimestamp: value.u.timestamp)
    case FIEF_TYPE_FLOAT: return value.u.float_value
    case FIEF_TYPE_DOUBLE: return value.u.double_value
    case FIEF_TYPE_DECIMAL128: return Decimal128(fiefValue: value.u.decimal128)
    case FIEF_TYPE_OBJECT_ID: return ObjectId(fiefValue: value.u.object_id)
    case FIEF_TYPE_UUID: return UUID(fiefValue: value.u.uuid)
    default: return nil
    }
}

// MARK: - Scalar conversions

/// Seconds from 1970-01-01 (the engine's epoch) to 2001-01-01 (Foundation's reference date).
let secondsFrom1970ToReferenceDate: Int64 = 978_307_200

extension Date {
    /// The Date of a stored timestamp. The whole seconds are moved to the reference date in
    /// integers, so the one rounding is that of adding the fraction, and a Date stored by
    /// `fiefTimestamp` reads back `==` to itself.
    init(fiefTimestamp ts: fief_timestamp_t) {
        let (shifted, overflow) = ts.seconds.subtractingReportingOverflow(secondsFrom1970ToReferenceDate)
        let wholeSeconds = overflow ? Double(ts.seconds) - Double(secondsFrom1970ToReferenceDate) : Double(shifted)
        self.init(timeIntervalSinceReferenceDate: wholeSeconds + Double(ts.nanoseconds) / 1_000_000_000)
    }

    /// The timestamp stored for this Date: `timeIntervalSinceReferenceDate` split into whole
    /// seconds and the nanoseconds of its fraction (toward zero), the whole seconds then moved
    /// to 1970 in integers (as RealmSwift does, never through `timeIntervalSince1970`, whose one
    /// Double loses the last bits). As in RealmSwift, NaN stores as 1970-01-01 and dates beyond
    /// the timestamp's range store as its largest or smallest value.
    var fiefTimestamp: fief_timestamp_t {
        let interval = timeIntervalSinceReferenceDate
        if interval.isNaN { return fief_timestamp_t(seconds: 0, nanoseconds: 0) }
        let offset = Double(secondsFrom1970ToReferenceDate)
        if interval >= Double(Int64.max) - offset { return fief_timestamp_t(seconds: .max, nanoseconds: 999_999_999) }
        if interval - offset < Double(Int64.min) { return fief_timestamp_t(seconds: .min, nanoseconds: -999_999_999) }
        let whole = interval.rounded(.towardZero)
        var seconds = Int64(whole) + secondsFrom1970ToReferenceDate
        var nanoseconds = Int32(((interval - whole) * 1_000_000_000).rounded(.towardZero))
        // Seconds and nanoseconds carry one sign: a negative fraction (a date before 2001) may
        // come with positive seconds once moved to 1970. (A positive fraction always does.)
        if seconds > 0 && nanoseconds < 0 { seconds -= 1; nanoseconds += 1_000_000_000 }
        return fief_timestamp_t(seconds: seconds, nanoseconds: nanoseconds)
    }
}

extension UUID {
    init(fiefValue raw: fief_uuid_t) {
        self.init(uuid: raw.bytes)
    }

    var fiefValue: fief_uuid_t { fief_uuid_t(bytes: uuid) }
}
