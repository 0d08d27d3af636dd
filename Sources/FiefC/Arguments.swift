import CFief
import FiefEngine
import FiefStorage

/// Checks of the counts and indices the C ABI takes, shared by every export.
///
/// A `size_t` arrives in Swift as an `Int` with the same bits, so a count of
/// 2^63 or more (often a negative number cast to `size_t`) is negative here:
/// used as it is, it would trap in a range or a buffer (and kill the host).
/// Every count is checked against what its array can hold (at most
/// `Int.max / stride` elements) and against a NULL pointer, and the error
/// names the parameter, as the header spells it.
enum CArgs {
    /// `count` as a number of `T`s an array in memory can have.
    @inline(__always)
    static func count<T>(_ count: Int, of _: T.Type, _ name: @autoclosure () -> String) throws(FiefError) -> Int {
        guard count >= 0, count <= Int.max / MemoryLayout<T>.stride else {
            throw FiefError(.invalidArgument, "\(name()) is \(UInt(bitPattern: count)): more than an array of \(typeName(T.self)) can hold (at most \(Int.max / MemoryLayout<T>.stride))")
        }
        return count
    }

    /// The `count` elements at `pointer` (the caller's memory, read during
    /// the call only).  `pointer` may be NULL only when `count` is 0.
    @inline(__always)
    static func array<T>(_ pointer: UnsafePointer<T>?, _ count: Int, _ pointerName: @autoclosure () -> String, count countName: @autoclosure () -> String) throws(FiefError) -> UnsafeBufferPointer<T> {
        let n = try self.count(count, of: T.self, countName())
        if n == 0 { return UnsafeBufferPointer(start: nil, count: 0) }
        guard let pointer else { throw FiefError(.invalidArgument, "\(pointerName()) is NULL but \(countName()) is \(n)") }
        return UnsafeBufferPointer(start: pointer, count: n)
    }

    /// As `array`, for an array the call fills in.
    @inline(__always)
    static func outArray<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int, _ pointerName: @autoclosure () -> String, count countName: @autoclosure () -> String) throws(FiefError) -> UnsafeMutableBufferPointer<T> {
        let n = try self.count(count, of: T.self, countName())
        if n == 0 { return UnsafeMutableBufferPointer(start: nil, count: 0) }
        guard let pointer else { throw FiefError(.invalidArgument, "\(pointerName()) is NULL but \(countName()) is \(n)") }
        return UnsafeMutableBufferPointer(start: pointer, count: n)
    }

    /// A `size_t` index: one of 2^63 or more is out of bounds whatever it
    /// indexes (smaller ones are checked by the callee).
    @inline(__always)
    static func index(_ index: Int, _ name: @autoclosure () -> String) throws(FiefError) -> Int {
        guard index >= 0 else {
            throw FiefError(.indexOutOfBounds, "\(name()) \(UInt(bitPattern: index)) is out of bounds")
        }
        return index
    }

    /// Counts of values up to this many may get their buffer before the
    /// range is checked (a few KiB, whatever the collection).
    static let smallBuffer = 256

    /// Check that `count` `items` from `start` lie within `collection` of
    /// `size` before any buffer of `count` is made for them: a count the
    /// collection cannot hold is refused, not allocated.
    @inline(__always)
    static func range(start: Int, count: Int, within size: Int, _ items: String, of collection: String) throws(FiefError) {
        guard FiefError.rangeFits(start: start, count: count, size: size) else {
            throw FiefError.rangeOutOfBounds(items, start: start, count: count, collection, size: size)
        }
    }

    /// The C name of an element type, for messages.
    static func typeName<T>(_ type: T.Type) -> String {
        switch type {
        case is fief_value_t.Type: return "fief_value_t"
        case is fief_query_arg_t.Type: return "fief_query_arg_t"
        case is fief_sort_descriptor_t.Type: return "fief_sort_descriptor_t"
        case is fief_class_info_t.Type: return "fief_class_info_t"
        case is fief_property_info_t.Type: return "fief_property_info_t"
        case is UnsafePointer<fief_property_info_t>?.Type: return "fief_property_info_t pointers"
        case is UInt32.Type: return "32-bit keys"
        case is Int64.Type: return "64-bit keys"
        case is UInt8.Type, is CChar.Type: return "bytes"
        default: return "\(type)"
        }
    }
}
