import CFief
import Foundation

extension Realm {
    /// An error thrown by Fief where RealmSwift throws: opening a realm,
    /// committing a write, deleting files.  `code` is RealmSwift's error code;
    /// `fiefCode`, `fiefCategories` and `message` are the C layer's
    /// (`fief_get_last_error`).
    ///
    ///     do {
    ///         let realm = try Realm(fileURL: url)
    ///     } catch Realm.Error.fileNotFound {
    ///         ...
    ///     }
    public struct Error: Swift.Error, Equatable, CustomStringConvertible, CustomNSError, LocalizedError {
        /// RealmSwift's error codes (`Realm.Error.Code`).
        public enum Code: Int, Sendable {
            /// Any error without a more specific code.
            case fail = 1
            /// The file could not be opened, read or written.
            case fileAccess = 2
            /// Insufficient permissions for the file.
            case filePermissionDenied = 3
            /// The file already exists.
            case fileExists = 4
            /// The file does not exist (read-only opens).
            case fileNotFound = 5
            /// The file uses a format version this library cannot read.
            case fileFormatUpgradeRequired = 6
            /// The lock file could not be taken or is incompatible.
            case incompatibleLockFile = 8
            /// The map size or the disk is full.
            case addressSpaceExhausted = 9
            /// The schema differs from the file's beyond additive changes.
            case schemaMismatch = 10
            /// The file is not a Fief file, or it is damaged.
            case invalidDatabase = 11
            /// The operation needs the realm's files closed (deleteFiles of an open realm).
            case alreadyOpen = 12
        }

        /// The RealmSwift-style code.
        public let code: Code
        /// The C layer's `FIEF_ERR_*` code (0 for errors raised by the overlay).
        public let fiefCode: Int32
        /// The C layer's `FIEF_ERR_CAT_*` bits.
        public let fiefCategories: UInt32
        /// The C layer's message.
        public let message: String
        /// The file concerned, if any.
        public let fileURL: URL?

        /// An overlay-raised error.
        public init(code: Code, message: String, fileURL: URL? = nil) {
            self.code = code
            fiefCode = 0
            fiefCategories = 0
            self.message = message
            self.fileURL = fileURL
        }

        init(_ error: CError, code: Code? = nil) {
            self.code = code ?? Error.code(for: error.code)
            fiefCode = error.code
            fiefCategories = error.categories
            message = error.message
            fileURL = error.path.map { URL(fileURLWithPath: $0) }
        }

        static func code(for fiefCode: Int32) -> Code {
            switch fiefCode {
            case FIEF_ERR_FILE_NOT_FOUND: return .fileNotFound
            case FIEF_ERR_FILE_PERMISSION: return .filePermissionDenied
            case FIEF_ERR_FILE_NOT_FIEF, FIEF_ERR_FILE_CORRUPT: return .invalidDatabase
            case FIEF_ERR_FILE_FORMAT: return .fileFormatUpgradeRequired
            case FIEF_ERR_FILE_LOCKED: return .incompatibleLockFile
            case FIEF_ERR_FILE_IO: return .fileAccess
            case FIEF_ERR_FILE_FULL: return .addressSpaceExhausted
            case FIEF_ERR_SCHEMA_MISMATCH, FIEF_ERR_SCHEMA_VERSION, FIEF_ERR_INVALID_SCHEMA: return .schemaMismatch
            case FIEF_ERR_READ_ONLY: return .fileAccess
            default: return .fail
            }
        }

        public var description: String {
            "Realm.Error(\(code)): \(message)" + (fiefCode != 0 ? " [Fief error \(fiefCode)]" : "")
        }

        public var localizedDescription: String { message }
        public var errorDescription: String? { message }

        public static var errorDomain: String { "io.realm" }
        public var errorCode: Int { code.rawValue }
        public var errorUserInfo: [String: Any] {
            var info: [String: Any] = [NSLocalizedDescriptionKey: message, "Error Code": Int(fiefCode)]
            if let fileURL { info[NSFilePathErrorKey] = fileURL.path }
            return info
        }

        public static func == (lhs: Error, rhs: Error) -> Bool {
            lhs.code == rhs.code && lhs.fiefCode == rhs.fiefCode && lhs.message == rhs.message
        }

        // Codes as static members, so `catch Realm.Error.fileNotFound` reads as in RealmSwift.
        public static var fail: Code { .fail }
        public static var fileAccess: Code { .fileAccess }
        public static var filePermissionDenied: Code { .filePermissionDenied }
        public static var fileExists: Code { .fileExists }
        public static var fileNotFound: Code { .fileNotFound }
        public static var incompatibleLockFile: Code { .incompatibleLockFile }
        public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
        public static var schemaMismatch: Code { .schemaMismatch }
        public static var invalidDatabase: Code { .invalidDatabase }
        public static var alreadyOpen: Code { .alreadyOpen }
    }
}

extension Realm.Error.Code {
    /// Matches a thrown `Realm.Error` by code: `catch Realm.Error.fileNotFound`.
    public static func ~= (code: Realm.Error.Code, error: Swift.Error) -> Bool {
        (error as? Realm.Error)?.code == code
    }
}
