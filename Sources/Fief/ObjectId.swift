import CFief
import Foundation

/// A 12-byte unique identifier in MongoDB's ObjectId layout: 4 bytes of
/// big-endian seconds since 1970, 5 bytes random per process, and a 3-byte
/// big-endian counter.  Stored as `FIEF_TYPE_OBJECT_ID` (`fief_object_id_t`).
///
///     let id = ObjectId.generate()
///     let same = try ObjectId(string: id.stringValue)
///
/// Unlike RealmSwift's class, this is a value type; `==`, `<` and hashing
/// compare the 12 bytes.
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// Bytes 0-3 (the timestamp), big-endian.
    private var high: UInt32
    /// Bytes 4-11, big-endian.
    private var low: UInt64

    /// The all-zero ObjectId (RealmSwift: "a zero-initialized ObjectId").
    public init() {
        high = 0
        low = 0
    }

    /// Parses 24 hexadecimal digits.
    /// - Throws: `Realm.Error` with code `.fail` when `string` is not 24 hex digits.
    public init(string: String) throws {
        guard let parsed = ObjectId.parse(string) else {
            throw Realm.Error(code: .fail, message: "Invalid ObjectId string '\(string)': expected 24 hexadecimal digits")
        }
        self = parsed
    }

    /// Parses a literal of 24 hexadecimal digits; traps if it is not one.
    public init(_ string: StaticString) {
        guard let parsed = ObjectId.parse(string.description) else {
            preconditionFailure("Invalid ObjectId string '\(string)': expected 24 hexadecimal digits")
        }
        self = parsed
    }

    /// An ObjectId with the given timestamp and machine/process parts (the
    /// counter bytes are zero).
    public init(timestamp: Date, machineId: Int, processId: Int) {
        high = UInt32(truncatingIfNeeded: timestamp.fiefTimestamp.seconds)
        let machine = UInt64(truncatingIfNeeded: machineId) & 0xFF_FFFF
        let process = UInt64(truncatingIfNeeded: processId) & 0xFFFF
        low = (machine << 40) | (process << 24)
    }

    /// A new ObjectId: the current time, this process's random bytes and the
    /// next value of a process-wide counter.
    public static func generate() -> ObjectId {
        var id = ObjectId()
        id.high = UInt32(truncatingIfNeeded: Date().fiefTimestamp.seconds)
        let count = ObjectId.counter.withLock { value -> UInt64 in
            value = (value &+ 1) & 0xFF_FFFF
            return value
        }
        id.low = (ObjectId.processUnique << 24) | count
        return id
    }

    private static let processUnique: UInt64 = UInt64.random(in: 0...0xFF_FFFF_FFFF)
    /// Starts at a random value in the lower half of its 24 bits, so that the
    /// first 2^23 ids a process makes at least increase (the counter does not
    /// wrap before).
    private static let counter = Locked<UInt64>(UInt64.random(in: 0...0x7F_FFFF))

    private static func parse(_ string: String) -> ObjectId? {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(12)
        var index = 0
        while index < 24 {
            guard let hi = hexValue(utf8[index]), let lo = hexValue(utf8[index + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
            index += 2
        }
        return ObjectId(bytes: bytes)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 12)
        high = bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        low = bytes[4..<12].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The 12 bytes, in storage order.
    var bytes: [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: high >> (24 - 8 * UInt32($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }

    /// The 24 lowercase hexadecimal digits.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(24)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The creation time stored in the first four bytes (second precision).
    public var timestamp: Date { Date(fiefTimestamp: fief_timestamp_t(seconds: Int64(high), nanoseconds: 0)) }

    public var description: String { stringValue }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(string: container.decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }

    // MARK: C conversions

    init(fiefValue raw: fief_object_id_t) {
        var copy = raw
        let bytes = withUnsafeBytes(of: &copy.bytes) { Array($0) }
        self.init(bytes: bytes)
    }

    var fiefValue: fief_object_id_t {
        var raw = fief_object_id_t()
        let bytes = self.bytes
        withUnsafeMutableBytes(of: &raw.bytes) { buffer in
            for i in 0..<12 { buffer[i] = bytes[i] }
        }
        return raw
    }
}
