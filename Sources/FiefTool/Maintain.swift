import CFief
#if canImport(Glibc)
import Glibc
#endif

/// `fief verify FILE` and `fief copy FILE NEW`, on the C ABI's file functions.
/// Both print what they check or copy; problems go to standard error too.

/// Prints report lines: info to standard output, problems to both.
private let printReport: fief_report_fn = { _, kind, text in
    guard let text else { return }
    let line = String(cString: text)
    if kind == FIEF_REPORT_PROBLEM {
        print("problem: " + line)
        let message = "fief: " + line + "\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
    } else {
        print(line)
    }
}

/// Exit status 0: the file is sound; 3: damage was found.
func verifyFile(_ path: String) throws -> Int32 {
    var problems = 0
    guard fief_file_verify(path, printReport, nil, &problems) else { throw lastError("checking '\(path)'") }
    print(problems == 0 ? "\(path): no damage found" : "\(path): \(problems) problem\(problems == 1 ? "" : "s") found")
    return problems == 0 ? 0 : 3
}

/// Exit status 0: everything was copied; 3: some damaged data was left out.
func copyFile(_ source: String, _ destination: String) throws -> Int32 {
    var problems = 0
    guard fief_file_copy(source, destination, printReport, nil, &problems) else {
        throw lastError("copying '\(source)' to '\(destination)'")
    }
    var before = stat(), after = stat()
    if stat(source, &before) == 0, stat(destination, &after) == 0 {
        print("\(destination): \(after.st_size) bytes (\(source): \(before.st_size) bytes)")
    }
    if problems > 0 { print("\(problems) problem\(problems == 1 ? "" : "s"): the copy holds everything else") }
    return problems == 0 ? 0 : 3
}
