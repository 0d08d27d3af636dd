import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

// Helpers shared by the engine tests: temporary directories, owned values,
// and a thin wrapper over Realm that speaks in class and property names.

/// A fresh directory under $TMPDIR (mkdtemp), removed with everything in it
/// by `removeNow()` or on deinit, whichever comes first.
final class TempDir {
    let path: String
    private var removed = false

    init(_ name: String = "fief-engine") {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/\(name)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template)
    }

    func file(_ name: String = "test.fief") -> String { path + "/" + name }

    deinit { removeNow() }

    /// Removes the directory and everything in it (once).
    func removeNow() {
        guard !removed else { return }
        removed = true
        TempDir.remove(path)
    }

    private static func remove(_ path: String) {
        guard let dir = opendir(path) else { unlink(path); return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            if lstat(child, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                remove(child)
            } else {
                unlink(child)
            }
        }
        closedir(dir)
        rmdir(path)
    }
}

/// A value owned by the test (strings and binaries copied out of the engine's views).
enum TV: Equatable, CustomStringConvertible {
    case null
    case int(Int64)
    case bool(Bool)
    case string(String)
    case binary([UInt8])
    case timestamp(Int64, Int32)
    case float(Float)
    case double(Double)
    case decimal(Decimal128Bits)
    case oid(ObjectIdBytes)
    case uuid(UUIDBytes)
    case link(UInt32, Int64)
    /// A nested list or dictionary (its id when read; written, a new empty one).
    case nestedList(Int64)
    case nestedDict(Int64)

    init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .int(let i): self = .int(i)
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(String(decoding: s, as: UTF8.self))
        case .binary(let b): self = .binary(Array(b))
        case .timestamp(let s, let n): self = .timestamp(s, n)
        case .float(let f): self = .float(f)
        case .double(let d): self = .double(d)
        case .decimal128(let d): self = .decimal(d)
        case .objectId(let o): self = .oid(o)
        case .uuid(let u): self = .uuid(u)
        case .link(let c, let k): self = .link(c, k)
        case .nestedList(let id): self = .nestedList(id)
        case .nestedDictionary(let id): self = .nestedDict(id)
        }
    }

    var description: String {
        switch self {
        case .link(let c, let k): return "link(\(c):\(k))"
        case .null: return "null"
        case .int(let i): return "\(i)"
        case .bool(let b): return "\(b)"
        case .string(let s): return s.count > 40 ? "'\(s.prefix(40))...'(\(s.utf8.count))" : "'\(s)'"
        case .binary(let b): return "bin(\(b.count))"
        case .timestamp(let s, let n): return "T\(s):\(n)"
        case .float(let f): return "\(f)f"
        case .double(let d): return "\(d)"
        case .decimal(let d): return "dec(\(d.high),\(d.low))"
        case .oid(let o): return "oid(\(String(o.high, radix: 16)),\(String(o.low, radix: 16)))"
        case .uuid(let u): return "uuid(\(String(u.high, radix: 16)),\(String(u.low, radix: 16)))"
        case .nestedList(let id): return "list#\(id)"
        case .nestedDict(let id): return "dict#\(id)"
        }
    }

    var isNull: Bool { self == .null }

    /// Objectid with the given 12 bytes.
    static func oid(bytes: [UInt8]) -> TV {
        precondition(bytes.count == 12)
        return .oid(bytes.withUnsafeBytes { ObjectIdBytes(bytes: $0.baseAddress!) })
    }

    static func uuid(bytes: [UInt8]) -> TV {
        precondition(bytes.count == 16)
        return .uuid(bytes.withUnsafeBytes { UUIDBytes(bytes: $0.baseAddress!) })
    }

    /// The engine `Value`s for `values`, valid inside `body` only.
    static func withValues<R>(_ values: [TV], _ body: (UnsafeMutableBufferPointer<Value>) throws -> R) rethrows -> R {
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer { for b in buffers { b.deallocate() } }
        func view(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
            let b = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffers.append(b)
            b.copyBytes(from: bytes)
            return UnsafeRawBufferPointer(start: b.baseAddress, count: bytes.count)
        }
        var out: [Value] = []
        out.reserveCapacity(values.count)
        for v in values {
            switch v {
            case .null: out.append(.null)
            case .int(let i): out.append(.int(i))
            case .bool(let b): out.append(.bool(b))
            case .string(let s): out.append(.string(view(Array(s.utf8))))
            case .binary(let b): out.append(.binary(view(b)))
            case .timestamp(let s, let n): out.append(.timestamp(seconds: s, nanoseconds: n))
            case .float(let f): out.append(.float(f))
            case .double(let d): out.append(.double(d))
            case .decimal(let d): out.append(.decimal128(d))
            case .oid(let o): out.append(.objectId(o))
            case .uuid(let u): out.append(.uuid(u))
            case .link(let c, let k): out.append(.link(classKey: c, objectKey: k))
            case .nestedList(let id): out.append(.nestedList(id))
            case .nestedDict(let id): out.append(.nestedDictionary(id))
            }
        }
        return try out.withUnsafeMutableBufferPointer { try body($0) }
    }
}

/// Run `body` and return the FiefError it threw (failing if it threw nothing).
@discardableResult
func expectError<R>(_ code: FiefError.Code, _ message: String = "", file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> R) -> FiefError? {
    do {
        let result = try body()
        XCTFail("expected \(code) but got \(result) \(message)", file: file, line: line)
        return nil
    } catch let error as FiefError {
        XCTAssertEqual(error.code, code, "\(error.message) \(message)", file: file, line: line)
        return error
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
        return nil
    }
}

func prop(_ name: String, _ type: PropertyType, _ flags: PropertyFlags = []) -> Property {
    Property(name: name, type: type, flags: flags)
}

func makeSchema(_ classes: [(String, [Property])]) -> Schema {
    Schema(classes: classes.map { ObjectClass(name: $0.0, properties: $0.1) })
}

/// A realm addressed by class and property names.
final class DB: @unchecked Sendable {
    let realm: Realm

    init(_ realm: Realm) { self.realm = realm }

    static func open(_ path: String, _ schema: Schema?, version: UInt64 = 0, readOnly: Bool = false, deleteIfMigrationNeeded: Bool = false) throws -> DB {
        var config = RealmConfiguration()
        config.path = path
        config.schema = schema
        config.schemaVersion = version
        config.readOnly = readOnly
        config.deleteIfMigrationNeeded = deleteIfMigrationNeeded
        return DB(try Realm.open(config))
    }

    func cls(_ name: String) -> UInt32 {
        guard let key = realm.table(named: name) else { fatalError("no class \(name)") }
        return key
    }

    func pkey(_ className: String, _ name: String) -> UInt32 {
        guard let p = realm.schema.objectClass(named: className)?.property(named: name) else { fatalError("no property \(className).\(name)") }
        return p.key
    }

    func write<R>(_ body: () throws -> R) throws -> R {
        try realm.beginWrite()
        do {
            let r = try body()
            try realm.commitWrite()
            return r
        } catch {
            realm.cancelWrite()
            throw error
        }
    }

    @discardableResult
    func create(_ className: String, _ values: [(String, TV)], policy: UpdatePolicy = .error) throws -> Int64 {
        try createMany(className, values.map { $0.0 }, [values.map { $0.1 }], policy: policy)[0]
    }

    @discardableResult
    func createMany(_ className: String, _ names: [String], _ rows: [[TV]], policy: UpdatePolicy = .error) throws -> [Int64] {
        let table = cls(className)
        let keys = names.map { pkey(className, $0) }
        var out = [Int64](repeating: -1, count: rows.count)
        try TV.withValues(rows.flatMap { $0 }) { values in
            try keys.withUnsafeBufferPointer { kp in
                try out.withUnsafeMutableBufferPointer { op in
                    try realm.createObjects(table: table, properties: kp, values: values, rows: rows.count, policy: policy, keys: op.baseAddress)
                }
            }
        }
        return out
    }

    func get(_ className: String, _ key: Int64, _ name: String) throws -> TV {
        TV(try realm.value(table: cls(className), key: key, property: pkey(className, name)))
    }

    func set(_ className: String, _ key: Int64, _ name: String, _ value: TV) throws {
        let table = cls(className), p = pkey(className, name)
        try TV.withValues([value]) { v in try realm.setValue(table: table, key: key, property: p, value: v[0]) }
    }

    func setMany(_ className: String, _ key: Int64, _ values: [(String, TV)]) throws {
        let table = cls(className)
        let keys = values.map { pkey(className, $0.0) }
        try TV.withValues(values.map { $0.1 }) { v in
            try keys.withUnsafeBufferPointer { kp in try realm.setValues(table: table, key: key, properties: kp, values: v) }
        }
    }

    func delete(_ className: String, _ key: Int64) throws {
        try realm.deleteObject(table: cls(className), key: key)
    }

    func exists(_ className: String, _ key: Int64) throws -> Bool {
        try realm.objectExists(table: cls(className), key: key)
    }

    func find(_ className: String, _ pk: TV) throws -> Int64? {
        let table = cls(className)
        return try TV.withValues([pk]) { v in try realm.find(table: table, primaryKey: v[0]) }
    }

    func results(_ className: String) throws -> ObjectResults {
        try ObjectResults(realm: realm, tableKey: cls(className))
    }

    func query(_ className: String, _ predicate: String, _ args: [TV] = []) throws -> ObjectResults {
        // Arguments are copied into the compiled query, so the views may die after.
        try TV.withValues(args) { values in
            try results(className).filtered(predicate, arguments: values.map { QueryArgument(values: [$0], isList: false) })
        }
    }

    func keys(_ className: String, _ predicate: String? = nil, _ args: [TV] = []) throws -> [Int64] {
        if let predicate { return try query(className, predicate, args).allKeys() }
        return try results(className).allKeys()
    }

    func count(_ className: String) throws -> Int { try results(className).count() }
}

/// A small deterministic random generator (SplitMix64) so failures reproduce.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension XCTestCase {
    /// A temporary directory that lives as long as the test, removed at its
    /// teardown (XCTest keeps every test case, and so its teardown blocks,
    /// until the process ends, when no deinit runs).
    func tempDir() -> TempDir {
        let dir = TempDir()
        addTeardownBlock { dir.removeNow() }
        return dir
    }
}

/// Open the file at `path` with LMDB itself (no realm of this process may
/// have it open), open the named database `database` (the main one for nil)
/// with `flags`, and run `body` in one transaction, committed unless
/// `readOnly`.
func withRawLMDB(_ path: String, database: String?, flags: Int32 = 0, readOnly: Bool = false,
                 file: StaticString = #filePath, line: UInt = #line, _ body: (OpaquePointer, MDB_dbi) -> Void) {
    var env: OpaquePointer?
    XCTAssertEqual(mdb_env_create(&env), 0, file: file, line: line)
    defer { mdb_env_close(env) }
    mdb_env_set_maxdbs(env, 64)
    XCTAssertEqual(mdb_env_open(env, path, UInt32(MDB_NOSUBDIR | (readOnly ? MDB_RDONLY : 0)), 0o644), 0, file: file, line: line)
    var txn: OpaquePointer?
    XCTAssertEqual(mdb_txn_begin(env, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), 0, file: file, line: line)
    var dbi: MDB_dbi = 0
    XCTAssertEqual(mdb_dbi_open(txn, database, UInt32(flags | (readOnly ? 0 : MDB_CREATE)), &dbi), 0, file: file, line: line)
    body(txn!, dbi)
    if readOnly {
        mdb_txn_abort(txn)
    } else {
        XCTAssertEqual(mdb_txn_commit(txn), 0, file: file, line: line)
    }
}

/// Break the header (flags, lower and upper bounds) of the page of the file
/// at `path` that holds `needle` (the first found: use a compact copy, which
/// holds each page once), as damage on disk would.
func damagePage(holding needle: String, in path: String, file: StaticString = #filePath, line: UInt = #line) {
    var bytes: [UInt8] = []
    guard let input = fopen(path, "rb") else { return XCTFail("cannot read \(path)", file: file, line: line) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while case let n = fread(&buffer, 1, buffer.count, input), n > 0 { bytes += buffer[0..<n] }
    fclose(input)
    let pattern = Array(needle.utf8)
    guard let at = (0...(bytes.count - pattern.count)).first(where: { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }) else {
        return XCTFail("'\(needle)' is not in \(path)", file: file, line: line)
    }
    let page = at / 4096 * 4096
    for i in 10..<16 { bytes[page + i] = 0xEE }
    guard let output = fopen(path, "wb") else { return XCTFail("cannot write \(path)", file: file, line: line) }
    XCTAssertEqual(fwrite(bytes, 1, bytes.count, output), bytes.count, file: file, line: line)
    fclose(output)
}

extension DB {
    /// Deliver this realm's notifications on this thread, waiting on its
    /// notification fd, until `notifier`'s worker reached the version
    /// committed last (at most 60 s: a liveness bound), then once more.
    func settle(_ notifier: ResultsNotifier) throws {
        let fd = try realm.lock.withLock { () throws(FiefError) -> Int32 in try realm.notificationChannel().eventFD }
        let target = try Snapshot(environment: realm.environment).version
        let deadline = Date().addingTimeInterval(60)
        while notifier.reachedVersion < target && Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 200)
            try realm.deliverNotifications(.pending)
        }
        try realm.deliverNotifications(.pending)
    }
}
