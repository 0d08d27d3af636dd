import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// The calling thread's last error, as the C ABI reports it.
final class LastError {
    var code: Int32 = 0
    var categories: UInt32 = 0
    var message: UnsafeMutablePointer<CChar>?
    var path: UnsafeMutablePointer<CChar>?

    func set(_ error: FiefError) {
        free(message)
        free(path)
        code = error.code.rawValue
        categories = error.code.categories
        message = strdup(error.message)
        path = error.path.flatMap { strdup($0) }
    }

    func clear() {
        free(message)
        free(path)
        message = nil
        path = nil
        code = 0
        categories = 0
    }

    deinit { clear() }
}

private let lastErrorKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<LastError>.fromOpaque(pointer).release()
    }
    return key
}()

func currentLastError() -> LastError {
    if let pointer = pthread_getspecific(lastErrorKey) {
        return Unmanaged<LastError>.fromOpaque(pointer).takeUnretainedValue()
    }
    let fresh = LastError()
    pthread_setspecific(lastErrorKey, Unmanaged.passRetained(fresh).toOpaque())
    return fresh
}

func setLastError(_ error: FiefError) {
    currentLastError().set(error)
}

/// Run one export's body: a thrown error goes to the last-error slot and the
/// export returns `failure`.
@inline(__always)
func guarded<R>(_ failure: R, _ body: () throws(FiefError) -> R) -> R {
    do {
        return try body()
    } catch {
        setLastError(error)
        return failure
    }
}

/// Store through an out-parameter that must not be NULL.
@inline(__always)
func store<T>(_ pointer: UnsafeMutablePointer<T>?, _ value: T, _ name: StaticString) throws(FiefError) {
    guard let pointer else { throw FiefError(.invalidArgument, "\(name) is NULL") }
    pointer.pointee = value
}

@inline(__always)
func require<T>(_ pointer: T?, _ name: StaticString) throws(FiefError) -> T {
    guard let pointer else { throw FiefError(.invalidArgument, "\(name) is NULL") }
    return pointer
}

@_cdecl("fief_get_last_error")
public func exportGetLastError(_ out: UnsafeMutablePointer<fief_error_t>?) -> Bool {
    guard let out else { return false }
    let last = currentLastError()
    out.pointee = fief_error_t(code: last.code, categories: last.categories,
                               message: UnsafePointer(last.message), path: UnsafePointer(last.path))
    if last.code == 0 { out.pointee.message = nil }
    return last.code != 0
}

@_cdecl("fief_clear_last_error")
public func exportClearLastError() {
    currentLastError().clear()
}

@_cdecl("fief_version_number")
public func exportVersionNumber() -> Int32 { FIEF_VERSION_NUMBER }

/// fief.h's FIEF_VERSION_STRING, kept for the life of the process.
nonisolated(unsafe) private let versionString: UnsafeMutablePointer<CChar> = strdup(FIEF_VERSION_STRING)

@_cdecl("fief_version_string")
public func exportVersionString() -> UnsafePointer<CChar>? { UnsafePointer(versionString) }

@_cdecl("fief_release")
public func exportRelease(_ handle: UnsafeRawPointer?) -> Bool {
    guard let handle else { return true }
    if HandleTable.release(handle) { return true }
    setLastError(FiefError(.invalidHandle, "the handle is not valid (already released, or not made by this library)"))
    return false
}

/// The C name of each code, as fief.h spells its constant.
private func errorName(_ code: FiefError.Code) -> StaticString {
    switch code {
    case .invalidHandle: "FIEF_ERR_INVALID_HANDLE"
    case .wrongHandleType: "FIEF_ERR_WRONG_HANDLE_TYPE"
    case .notInTransaction: "FIEF_ERR_NOT_IN_TRANSACTION"
    case .alreadyInTransaction: "FIEF_ERR_ALREADY_IN_TRANSACTION"
    case .wrongThread: "FIEF_ERR_WRONG_THREAD"
    case .frozen: "FIEF_ERR_FROZEN"
    case .readOnly: "FIEF_ERR_READ_ONLY"
    case .closed: "FIEF_ERR_CLOSED"
    case .invalidatedObject: "FIEF_ERR_INVALIDATED_OBJECT"
    case .invalidatedResults: "FIEF_ERR_INVALIDATED_RESULTS"
    case .tooManyVersions: "FIEF_ERR_TOO_MANY_VERSIONS"
    case .invalidArgument: "FIEF_ERR_INVALID_ARGUMENT"
    case .noSuchClass: "FIEF_ERR_NO_SUCH_CLASS"
    case .noSuchProperty: "FIEF_ERR_NO_SUCH_PROPERTY"
    case .noSuchObject: "FIEF_ERR_NO_SUCH_OBJECT"
    case .typeMismatch: "FIEF_ERR_TYPE_MISMATCH"
    case .nullNotAllowed: "FIEF_ERR_NULL_NOT_ALLOWED"
    case .invalidUTF8: "FIEF_ERR_INVALID_UTF8"
    case .duplicatePrimaryKey: "FIEF_ERR_DUPLICATE_PRIMARY_KEY"
    case .missingPrimaryKey: "FIEF_ERR_MISSING_PRIMARY_KEY"
    case .primaryKeyChange: "FIEF_ERR_PRIMARY_KEY_CHANGE"
    case .indexOutOfBounds: "FIEF_ERR_INDEX_OUT_OF_BOUNDS"
    case .invalidSchema: "FIEF_ERR_INVALID_SCHEMA"
    case .schemaMismatch: "FIEF_ERR_SCHEMA_MISMATCH"
    case .schemaVersion: "FIEF_ERR_SCHEMA_VERSION"
    case .querySyntax: "FIEF_ERR_QUERY_SYNTAX"
    case .queryInvalid: "FIEF_ERR_QUERY_INVALID"
    case .queryArgument: "FIEF_ERR_QUERY_ARGUMENT"
    case .fileNotFound: "FIEF_ERR_FILE_NOT_FOUND"
    case .filePermission: "FIEF_ERR_FILE_PERMISSION"
    case .fileNotFief: "FIEF_ERR_FILE_NOT_FIEF"
    case .fileFormat: "FIEF_ERR_FILE_FORMAT"
    case .fileLocked: "FIEF_ERR_FILE_LOCKED"
    case .fileIO: "FIEF_ERR_FILE_IO"
    case .fileFull: "FIEF_ERR_FILE_FULL"
    case .fileCorrupt: "FIEF_ERR_FILE_CORRUPT"
    case .outOfMemory: "FIEF_ERR_OUT_OF_MEMORY"
    case .internal: "FIEF_ERR_INTERNAL"
    }
}

@_cdecl("fief_error_name")
public func exportErrorName(_ code: Int32) -> UnsafePointer<CChar>? {
    let name: StaticString
    if code == 0 {
        name = "FIEF_OK"
    } else if let known = FiefError.Code(rawValue: code) {
        name = errorName(known)
    } else {
        return nil
    }
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}
