/// Every failure the engine reports: a code from a fixed list, a message for
/// people, and the file concerned when there is one.
///
/// The codes mirror the C ABI's `FIEF_ERR_*` constants one to one (the
/// `@_cdecl` layer passes `code.rawValue` through), so they are part of the
/// stable interface: never renumber one.
public struct FiefError: Error, CustomStringConvertible, Sendable {
    public enum Code: Int32, Sendable {
        // Misuse.
        case invalidHandle = 1001
        case wrongHandleType = 1002
        case notInTransaction = 1003
        case alreadyInTransaction = 1004
        case wrongThread = 1005
        case frozen = 1006
        case readOnly = 1007
        case closed = 1008
        case invalidatedObject = 1009
        case invalidatedResults = 1010
        case tooManyVersions = 1011
        // Bad arguments.
        case invalidArgument = 2001
        case noSuchClass = 2002
        case noSuchProperty = 2003
        case noSuchObject = 2004
        case typeMismatch = 2005
        case nullNotAllowed = 2006
        case invalidUTF8 = 2007
        case duplicatePrimaryKey = 2008
        case missingPrimaryKey = 2009
        case primaryKeyChange = 2010
        case indexOutOfBounds = 2011
        // Schema.
        case invalidSchema = 3001
        case schemaMismatch = 3002
        case schemaVersion = 3003
        // Queries.
        case querySyntax = 4001
        case queryInvalid = 4002
        case queryArgument = 4003
        // Files.
        case fileNotFound = 5001
        case filePermission = 5002
        case fileNotFief = 5003
        case fileFormat = 5004
        case fileLocked = 5005
        case fileIO = 5006
        case fileFull = 5007
        case fileCorrupt = 5008
        // Runtime.
        case outOfMemory = 6001
        case `internal` = 6002

        /// The `FIEF_ERR_CAT_*` bits of this code.
        public var categories: UInt32 {
            switch rawValue {
            case 1000..<2000: return 0x01
            case 2000..<3000: return 0x02
            case 3000..<4000: return 0x04
            case 4000..<5000: return 0x08
            case 5000..<6000: return 0x10
            default: return 0x20
            }
        }
    }

    public var code: Code
    public var message: String
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { "\(code) (\(code.rawValue)): \(message)" }

    /// Whether `count` items from `start` lie within `size` (no sum is
    /// formed, so no start or count near Int.max overflows).
    @inlinable @inline(__always)
    public static func rangeFits(start: Int, count: Int, size: Int) -> Bool {
        start >= 0 && count >= 0 && start <= size && count <= size - start
    }

    /// The error for `count` `items` from `start` that do not lie within
    /// `collection` of `size`: "elements 3..<5 are out of range: the list
    /// has 4" (the end is written only when it can be computed).
    public static func rangeOutOfBounds(_ items: String, start: Int, count: Int, _ collection: String, size: Int) -> FiefError {
        let (end, overflow) = start.addingReportingOverflow(count)
        let range = overflow ? "\(count) \(items) from \(start)" : "\(items) \(start)..<\(end)"
        return FiefError(.indexOutOfBounds, "\(range) are out of range: \(collection) has \(size)")
    }
}

/// Run a body built from `rethrows` standard-library calls (which lose the
/// error's type) and give its `FiefError` back its type.
@inlinable @inline(__always)
public func typed<R>(_ body: () throws -> R) throws(FiefError) -> R {
    do {
        return try body()
    } catch let error as FiefError {
        throw error
    } catch {
        throw FiefError(.internal, "unexpected error: \(error)")
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws `FiefError`.
    @inlinable @inline(__always)
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FiefError) -> R) throws(FiefError) -> R {
        try typed { try self.withUnsafeBytes { (raw) throws -> R in try body(raw) } }
    }
}
