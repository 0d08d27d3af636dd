// fief: the command-line tool.
//
//   fief demo [PATH]        create a realm with sample data and tour it
//   fief schema FILE        print the classes and properties of a realm
//   fief dump FILE CLASS    print every object of a class as JSON lines
//   fief query FILE CLASS PREDICATE [--count | --describe]
//                           print the objects matching a query as JSON lines
//   fief info FILE          version, classes, object counts, file size
//   fief verify FILE        check every page, tree and chunk for damage (exit 3: damaged)
//   fief copy FILE NEW      write a compacted copy of everything readable (exit 3: data left out)
#if canImport(Glibc)
import Glibc
#endif

let usage = """
usage: fief demo [PATH]        create a realm with sample data and tour it
       fief schema FILE        print the classes and properties of a realm
       fief dump FILE CLASS    print every object of a class as JSON lines
       fief query FILE CLASS 'PREDICATE' [--count | --describe]
                               the objects matching a query (SORT/DISTINCT/LIMIT too) as JSON
                               lines; --count: how many; --describe: the query's canonical text
       fief info FILE          version, classes, object counts, file size
       fief verify FILE        check every page, tree and chunk for damage (exit 3: damaged)
       fief copy FILE NEW      write a compacted copy of everything readable (exit 3: data left out)
"""

func fail(_ message: String, code: Int32 = 1) -> Never {
    let text = "fief: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("demo", 1), ("demo", 2):
        try runDemo(path: arguments.count == 2 ? arguments[1] : "demo.fief")
    case ("schema", 2):
        try printSchema(Inspector(path: arguments[1]))
    case ("dump", 3):
        try dump(Inspector(path: arguments[1]), className: arguments[2])
    case ("query", 4), ("query", 5):
        let mode: QueryOutput
        switch arguments.count == 5 ? arguments[4] : nil {
        case nil: mode = .objects
        case "--count"?: mode = .count
        case "--describe"?: mode = .description
        case let option?: fail("unknown option '\(option)' (query takes --count or --describe)\n" + usage, code: 2)
        }
        try query(Inspector(path: arguments[1]), className: arguments[2], predicate: arguments[3], output: mode)
    case ("info", 2):
        try printInfo(Inspector(path: arguments[1]))
    case ("verify", 2):
        exit(try verifyFile(arguments[1]))
    case ("copy", 3):
        exit(try copyFile(arguments[1], arguments[2]))
    case ("help", _), ("-h", _), ("--help", _):
        print(usage)
    default:
        fail("unknown command\n" + usage, code: 2)
    }
} catch {
    fail("\(error)")
}
