// fief: the command-line tool.  Look into a realm file, check it, copy it,
// and move its data out and back in as JSON (`fief help` says how).
import ArgumentParser
import CFief
#if canImport(Glibc)
import Glibc
#endif

/// The JSON of dump and import, in the few lines a newcomer needs.
let jsonFormatHelp = """
JSON (dump, query, import): one object per line, MongoDB Extended JSON v2:
  {"$class": "Dog", "$key": 4, "name": "Rex",
   "age": {"$numberLong": "3"}, "owner": {"$ref": "Person", "$id": 1}}
  int       {"$numberLong": "3"}
  double    {"$numberDouble": "0.5"} (also "NaN", "Infinity", "-Infinity");
            a float is written as a double ("$float": true in a mixed value)
  decimal   {"$numberDecimal": "1.50"}
  date      {"$date": {"$numberLong": "<ms since 1970>"}, "$nanos": <ns>}
            ("$nanos": the nanoseconds below the millisecond, when any)
  object id {"$oid": "<24 hex digits>"}   uuid {"$uuid": "<8-4-4-4-12>"}
  data      {"$binary": {"base64": "...", "subType": "00"}}
  string, bool and null as in JSON; links {"$ref": CLASS, "$id": KEY} name
  the "$key" of an object of the same dump; lists and sets are arrays, maps
  objects, embedded objects inline; a mixed value keeps its own type (nested
  lists and dictionaries are arrays and objects).  A whole-file dump starts
  with one {"$schema": CLASS, "properties": [...]} line per class.
"""

/// The root command: `fief SUBCOMMAND ...`.
struct FiefCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fief",
        abstract: "Look into, check, copy, export and import Fief realm files.",
        discussion: jsonFormatHelp + "\n\n" + """
        Exit status: 0 success; 1 an error (not a Fief file, a bad query, a
        missing class, a bad line to import); 2 bad arguments; 3 verify or copy
        found damage.
        """,
        version: "fief \(FIEF_VERSION_STRING) (libfief \(String(cString: fief_version_string())), Apache-2.0)",
        subcommands: [Demo.self, Schema.self, Dump.self, Query.self, Watch.self, Info.self, Verify.self, Copy.self, Import.self])

    /// `fief` alone: the overview.
    func run() throws {
        print(FiefCommand.helpMessage())
    }
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a realm with sample data and tour it.",
        discussion: "Refuses to replace an existing file unless --force is given.")

    @Argument(help: "The realm file to create.")
    var path = "demo.fief"

    @Flag(help: "Replace the file if it exists.")
    var force = false

    func run() throws {
        if !force && access(path, F_OK) == 0 {
            throw ToolError(description: "'\(path)' already exists (use --force to replace it)")
        }
        try runDemo(path: path)
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the classes and properties of a realm.")

    @Argument(help: "The realm file.")
    var file: String

    func run() throws { try printSchema(Inspector(path: file)) }
}

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print objects as JSON lines (every class, or one).",
        discussion: "Without CLASS: one schema line per class, then every object,\nwhich `fief import` reads back:\n"
            + "  fief dump old.fief | fief import new.fief\n\n" + jsonFormatHelp)

    @Argument(help: "The realm file.")
    var file: String

    @Argument(help: "The class to dump (default: every class, after the schema lines).")
    var className: String?

    func run() throws { try dump(Inspector(path: file), className: className) }
}

struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the objects of a class matching a query (SORT/DISTINCT/LIMIT too) as JSON lines.")

    @Argument(help: "The realm file.")
    var file: String

    @Argument(help: "The class to query.")
    var className: String

    @Argument(help: "The predicate, e.g. 'age > 2 SORT(name ASC)'.")
    var predicate: String

    @Flag(help: "Print how many objects match.")
    var count = false

    @Flag(help: "Print the query's canonical text.")
    var describe = false

    func validate() throws {
        if count && describe { throw ValidationError("give --count or --describe, not both") }
    }

    func run() throws {
        try query(Inspector(path: file), className: className, predicate: predicate,
                  output: count ? .count : describe ? .description : .objects)
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print each change set of a query's results as one JSON line, as commits arrive.",
        discussion: """
        The first line is the initial state ("initial": true); then one line per
        delivery after commits of any thread or process that changed the results
        (several commits close together make one line):
          {"version": 7, "initial": false, "count": 3, "deletions": [0],
           "insertions": [2], "modifications": [1], "modifications_new": [1],
           "moves": [], "inserted": [OBJECT...], "modified": [OBJECT...]}
        deletions and modifications are indices before the change, insertions
        and modifications_new after it; objects as `fief dump` writes them.
        The file is opened for writing (observing needs it); nothing is written.
        """)

    @Argument(help: "The realm file.")
    var file: String

    @Argument(help: "The class to watch.")
    var className: String

    @Argument(help: "The predicate, e.g. 'age > 2 SORT(name ASC)' (default: every object).")
    var predicate: String?

    @Option(help: "Exit after printing this many change sets (the initial one included).")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try watch(path: file, className: className, predicate: predicate, limit: limit)
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version, classes, object counts and size of a realm.")

    @Argument(help: "The realm file.")
    var file: String

    func run() throws { try printInfo(Inspector(path: file)) }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every page, tree and chunk for damage (exit 3: damaged).")

    @Argument(help: "The realm file.")
    var file: String

    func run() throws {
        let status = try verifyFile(file)
        if status != 0 { throw ExitCode(status) }
    }
}

struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a compacted copy of everything readable (exit 3: data left out).")

    @Argument(help: "The realm file to copy.")
    var file: String

    @Argument(help: "The new file (must not exist).")
    var newFile: String

    func run() throws {
        let status = try copyFile(file, newFile)
        if status != 0 { throw ExitCode(status) }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read JSON lines (as dump writes them) from standard input into a realm, in one transaction.",
        discussion: """
        Creates FILE if it does not exist, with the schema lines of the input
        (a whole-file dump); an existing FILE keeps its schema, which the
        input's schema lines must match.  Links ({"$ref", "$id"}) are resolved
        to the new objects.  The first bad line stops the import with its line
        number, and nothing is written (a file the import created is removed).
        With CLASS, objects without "$class" are of CLASS, and objects of other
        classes are skipped.
          fief dump old.fief | fief import new.fief
          fief import people.fief Person < people.jsonl

        """ + "\n" + jsonFormatHelp)

    @Argument(help: "The realm file to import into (created if it does not exist).")
    var file: String

    @Argument(help: "Import only the objects of this class.")
    var className: String?

    func run() throws {
        var lines: [Substring] = []
        while let line = readLine(strippingNewline: true) { lines.append(Substring(line)) }
        let counts = try Importer(path: file, onlyClass: className).run(lines: lines)
        for (name, count) in counts { print("class '\(name)': \(count) object\(count == 1 ? "" : "s") imported") }
        print("\(file): \(counts.reduce(0) { $0 + $1.1 }) objects imported")
    }
}

/// Prints "fief: MESSAGE" on standard error and exits.
func fail(_ message: String, code: Int32 = 1) -> Never {
    let text = "fief: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

/// What ArgumentParser reports (help asked for, bad arguments): help on
/// standard output with status 0, anything else on standard error with
/// status 2 (ArgumentParser's own default for bad arguments is 64).
func exitForParserOutcome(_ error: Error) -> Never {
    let message = FiefCommand.fullMessage(for: error)
    if FiefCommand.exitCode(for: error) == .success {
        print(message)
        exit(0)
    }
    _ = (message + "\n").withCString { write(2, $0, strlen($0)) }
    exit(2)
}

// Runtime errors exit with 1 and a one-line "fief: ..." message; verify
// and copy exit with 3 for damage.
var command: ParsableCommand
do {
    command = try FiefCommand.parseAsRoot()
} catch {
    exitForParserOutcome(error)
}
do {
    try command.run()
} catch let exitCode as ExitCode {
    exit(exitCode.rawValue)
} catch let error as ToolError {
    fail(error.description)
} catch {
    // `fief help COMMAND` asks for help by throwing from run().
    exitForParserOutcome(error)
}
