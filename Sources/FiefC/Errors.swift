import CFief
import FiefEngine
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
