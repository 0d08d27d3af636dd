import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Hand report lines to a C callback (zero-terminated, for the call's duration).
private func reporter(_ report: fief_report_fn?, _ userdata: UnsafeMutableRawPointer?) -> (FileReportKind, String) -> Void {
    { kind, text in
        guard let report else { return }
        var text = text
        text.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
                for i in 0..<bytes.count { buffer[i] = CChar(bitPattern: bytes[i]) }
                buffer[bytes.count] = 0
                report(userdata, kind.rawValue, buffer.baseAddress)
            }
        }
    }
}

@_cdecl("fief_file_verify")
public func exportFileVerify(_ path: UnsafePointer<CChar>?, _ report: fief_report_fn?, _ userdata: UnsafeMutableRawPointer?,
                             _ outProblems: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let file = try cString(path, "path")
        guard !file.isEmpty else { throw FiefError(.invalidArgument, "path is empty") }
        let problems = try FileCheck.verify(path: file, report: reporter(report, userdata))
        outProblems?.pointee = problems
        return true
    }
}

@_cdecl("fief_file_copy")
public func exportFileCopy(_ source: UnsafePointer<CChar>?, _ destination: UnsafePointer<CChar>?, _ report: fief_report_fn?,
                           _ userdata: UnsafeMutableRawPointer?, _ outProblems: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let from = try cString(source, "source")
        let to = try cString(destination, "destination")
        guard !from.isEmpty else { throw FiefError(.invalidArgument, "source is empty") }
        let problems = try FileCopy.copy(from: from, to: to, report: reporter(report, userdata))
        outProblems?.pointee = problems
        return true
    }
}

@_cdecl("fief_realm_write_copy")
public func exportRealmWriteCopy(_ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ report: fief_report_fn?,
                                 _ userdata: UnsafeMutableRawPointer?, _ outProblems: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let to = try cString(path, "path")
        let problems = try withRealm(handle) { (realm) throws(FiefError) in
            if let thread = realm.writeThread, pthread_equal(thread, pthread_self()) == 0 {
                throw FiefError(.wrongThread, "the realm's write transaction belongs to another thread")
            }
            return try realm.writeCopy(to: to, report: reporter(report, userdata))
        }
        outProblems?.pointee = problems
        return true
    }
}
