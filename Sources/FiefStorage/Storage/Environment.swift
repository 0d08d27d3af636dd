import CLMDB
import CFiefSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One LMDB environment (one open file) shared by every realm of this
/// process that opens the same path: LMDB forbids opening a file twice in a
/// process.  It owns the database handles and knows which thread, if any,
/// holds the file's write lock in this process.
public final class Environment: @unchecked Sendable {
    public let env: OpaquePointer
    public let path: String
    public let registryKey: String
    public let isReadOnly: Bool
    public let isInMemory: Bool
    /// Set once the registry lists this environment (an environment whose
    /// opening failed was never listed, and must not take the registry's lock
    /// from its deinit: that runs inside it).
    public var registered = false
    /// Set when opening failed and the lock file is ours to remove.
    private var removeLockFileOnClose = false
    /// The process that opened it: a child made by fork() inherits this
    /// object but must not use it (LMDB forbids using an environment across
    /// fork), and opens its own.
    public let ownerProcess = getpid()
    /// Set once LMDB answered MDB_PANIC: it then refuses every transaction
    /// of this environment, which is replaced once no realm uses it.
    private let broken = Atomic<Bool>(false)
    /// The file's last used page when stale readers were last cleared.
    private let pagesAtReaderCheck = Atomic<Int>(0)
    /// Guards `databases` and `writerThread`, and serialises mdb_dbi_open.
    public let lock = Mutex<Void>(())
    private var databases: [String: MDB_dbi] = [:]
    /// Counts database handles opened: a transaction begun before a handle
    /// was opened cannot use it (LMDB copies the handle table at begin).
    private var handleGeneration: UInt64 = 0
    private var writerThread: pthread_t?
    /// Where LMDB mapped the file, and its page size.
    public private(set) var mapStart: UInt = 0
    public private(set) var pageSize = 4096
    /// The largest string or binary part a chunk is cut into (`ChunkParts`).
    public var chunkPartLimit: Int { ChunkParts.partLimit(pageSize: pageSize) }
    /// Trees whose pages were found damaged when the file was opened, by
    /// database name ("" LMDB's main tree, "(free pages)" its free list),
    /// with the reason.  Fief never lets LMDB walk them (see `PageCheck`).
    public private(set) var damagedTrees: [String: String] = [:]

    public static let mapSize = 1 << 36        // 64 GiB of address space; the file grows as needed
    public static let maxReaders: UInt32 = 1022
    public static let maxDatabases: UInt32 = 4096

    public init(path: String, registryKey: String, readOnly: Bool, inMemory: Bool) throws(FiefError) {
        var pointer: OpaquePointer?
        try LMDB.check(mdb_env_create(&pointer), "creating the environment", path: path)
        env = pointer!
        self.path = path
        self.registryKey = registryKey
        self.isReadOnly = readOnly
        self.isInMemory = inMemory
        // On failure deinit runs (every stored property is set) and closes
        // the environment, as LMDB requires after a failed mdb_env_open.
        try LMDB.check(mdb_env_set_mapsize(env, Environment.mapSize), "setting the map size", path: path)
        try LMDB.check(mdb_env_set_maxreaders(env, Environment.maxReaders), "setting the reader count", path: path)
        try LMDB.check(mdb_env_set_maxdbs(env, Environment.maxDatabases), "setting the database count", path: path)
        var flags = UInt32(MDB_NOSUBDIR | MDB_NOTLS)
        if readOnly { flags |= UInt32(MDB_RDONLY) }
        if inMemory { flags |= UInt32(MDB_NOSYNC | MDB_NOMETASYNC) }
        let lockExisted = access(path + "-lock", F_OK) == 0
        let rc = mdb_env_open(env, path, flags, 0o644)
        if rc != 0 {
            // Leave no lock file behind next to a file we refused.
            removeLockFileOnClose = !lockExisted
            throw Environment.openError(rc, path: path)
        }
        // LMDB maps the file without checking its length: a file cut short
        // would fault on the first read past its end.  Refuse it instead.
        var info = MDB_envinfo()
        var dbStat = MDB_stat()
        var fileStat = stat()
        if mdb_env_stat(env, &dbStat) == 0 { pageSize = Int(dbStat.ms_psize) }
        mapStart = Environment.mappedAddress(of: path) ?? 0
        if mdb_env_info(env, &info) == 0, mdb_env_stat(env, &dbStat) == 0, stat(path, &fileStat) == 0 {
            let needed = (Int(info.me_last_pgno) + 1) * Int(dbStat.ms_psize)
            if Int(fileStat.st_size) < needed {
                removeLockFileOnClose = !lockExisted
                throw FiefError(.fileNotFief, "'\(path)' is damaged: it is \(fileStat.st_size) bytes long but its pages reach \(needed)", path: path)
            }
        }
        // Free the reader slots of processes that died holding a snapshot.
        clearStaleReaders()
        if !inMemory { try checkPages() }
    }

    /// Where LMDB mapped the file: LMDB does not say (its "map address" is
    /// the fixed address it was asked for, if any), so the process's own
    /// map list is read: the mapping of the file's inode at offset 0 that
    /// is `mapSize` long.
    private static func mappedAddress(of path: String) -> UInt? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let fd = Glibc.open("/proc/self/maps", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
            if n <= 0 { break }
            text.append(contentsOf: chunk[0..<n])
        }
        // Lines: "start-end perms offset dev inode path", numbers in hex but
        // the inode (decimal); parsed in place, without a string per line.
        let inode = UInt64(info.st_ino)
        var i = 0
        func number(_ radix: UInt64) -> UInt64 {
            var value: UInt64 = 0
            while i < text.count {
                let c = text[i]
                let digit: UInt64
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(c - UInt8(ascii: "a") + 10)
                default: return value
                }
                value = value &* radix &+ digit
                i += 1
            }
            return value
        }
        func skipField() {
            while i < text.count && text[i] != UInt8(ascii: " ") && text[i] != UInt8(ascii: "\n") { i += 1 }
            while i < text.count && text[i] == UInt8(ascii: " ") { i += 1 }
        }
        while i < text.count {
            let start = number(16)
            i += 1                          // "-"
            let end = number(16)
            while i < text.count && text[i] == UInt8(ascii: " ") { i += 1 }
            skipField()                     // perms
            let offset = number(16)
            while i < text.count && text[i] == UInt8(ascii: " ") { i += 1 }
            skipField()                     // dev
            let node = number(10)
            while i < text.count && text[i] != UInt8(ascii: "\n") { i += 1 }
            i += 1
            if node == inode && offset == 0 && end &- start == UInt64(Environment.mapSize) { return UInt(start) }
        }
        return nil
    }

    /// Files whose pages this process found sound, by (device, inode), with
    /// the size and modification time they had then (or after this
    /// process's own commits since): a file is checked again only when
    /// something else changed it, or it is a new file under a reused inode.
    private static let soundFiles = Mutex<[[UInt64]: [Int64]]>([:])

    private static func fileState(_ path: String) -> (identity: [UInt64], state: [Int64])? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return ([UInt64(info.st_dev), UInt64(info.st_ino)], [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)])
    }

    /// Check the structure of every page before LMDB reads any (see
    /// `PageCheck`), unless this process already found this file sound.
    private func checkPages() throws(FiefError) {
        let file = Environment.fileState(path)
        if let file, Environment.soundFiles.withLock({ $0[file.identity] == file.state }) { return }
        try checkPagesNow()
        if let file, damagedTrees.isEmpty { Environment.soundFiles.withLock { $0[file.identity] = file.state } }
    }

    /// This process committed to the file: pages LMDB wrote need no check.
    public func noteOwnCommit() {
        if isInMemory { return }
        guard let file = Environment.fileState(path) else { return }
        Environment.soundFiles.withLock { known in
            if known[file.identity] != nil { known[file.identity] = file.state }
        }
    }

    private func checkPagesNow() throws(FiefError) {
        // Without the map's address (no /proc) the pages cannot be read here.
        if mapStart == 0 { return }
        var found: PageCheck?
        for _ in 0..<100 {
            let txn = try beginTransaction(write: false)
            found = PageCheck.run(environment: self, txn: txn)
            mdb_txn_abort(txn)
            if found != nil { break }
            // A writer committed twice since the transaction began (LMDB
            // keeps two root pages): take a newer snapshot.
            sched_yield()
        }
        guard let check = found else { return }
        damagedTrees = check.damaged
        lock.withLock { _ in
            for (name, dbi) in databases where damagedTrees[name] != nil { DamagedTrees.mark(env, dbi) }
        }
        if damagedTrees[""] != nil {
            throw FiefError(.fileCorrupt, "'\(path)' is damaged beyond reading: LMDB's main tree is broken (\(damagedTrees[""]!)); `fief copy` cannot salvage it either", path: path)
        }
        if damagedTrees[MetaKeys.database] != nil {
            throw FiefError(.fileCorrupt, "'\(path)' is damaged: its meta database is broken (\(damagedTrees[MetaKeys.database]!))", path: path)
        }
        if damagedTrees.isEmpty, check.accountingHolds == false || !check.freePagesInUse().isEmpty {
            damagedTrees["(free pages)"] = "the free-page list and the trees disagree"
        }
    }

    /// The damage `checkPages` found in the trees named, as an error.
    public func damage(in names: [String]) -> FiefError? {
        for name in names {
            if let reason = damagedTrees[name] {
                return FiefError(.fileCorrupt, "'\(path)' is damaged: the pages of database '\(name)' are broken (\(reason)); `fief copy` writes a sound copy of the rest", path: path)
            }
        }
        return nil
    }

    /// Whether the file may be written: not when LMDB's free list or any
    /// tree is damaged (a write would build on it).
    public func checkWritable() throws(FiefError) {
        if let (name, reason) = damagedTrees.first {
            throw FiefError(.fileCorrupt, "'\(path)' is damaged (\(name.isEmpty ? "main tree" : name): \(reason)), so it cannot be written; it can be read, and `fief copy` writes a sound copy", path: path)
        }
    }

    deinit {
        // In a child process made by fork(), leave the parent's environment
        // alone: closing it here would clear the parent's reader slots.
        if ownerProcess != getpid() { return }
        DamagedTrees.forget(env)
        mdb_env_close(env)
        if removeLockFileOnClose { unlink(path + "-lock") }
        if isInMemory {
            unlink(path)
            unlink(path + "-lock")
        }
        if registered { EnvironmentRegistry.closed(registryKey, ObjectIdentifier(self)) }
    }

    private static func openError(_ rc: Int32, path: String) -> FiefError {
        switch rc {
        case MDB_INVALID:
            return FiefError(.fileNotFief, "'\(path)' is not a Fief file (or it is damaged)", path: path)
        case EBADF:
            // LMDB's answer when a read-only open finds an empty file (it tries to write a header).
            return FiefError(.fileNotFief, "'\(path)' is empty, not a Fief file", path: path)
        case MDB_VERSION_MISMATCH:
            return FiefError(.fileFormat, "'\(path)' was written by an incompatible storage version", path: path)
        case ENOENT:
            return FiefError(.fileNotFound, "'\(path)' does not exist (or its directory does not)", path: path)
        case EACCES, EPERM, EROFS:
            return FiefError(.filePermission, "no permission to open '\(path)' (or its lock file '\(path)-lock')", path: path)
        case EISDIR:
            return FiefError(.filePermission, "'\(path)' is a directory, not a file", path: path)
        case EAGAIN, EBUSY:
            return FiefError(.fileLocked, "'\(path)' is locked by another process", path: path)
        case ENOMEM where hasDamagedHeader(path):
            // LMDB maps the size a damaged root page asks for.
            return FiefError(.fileNotFief, "'\(path)' is damaged: its root pages ask for an impossible map size", path: path)
        default:
            return LMDB.error(rc, "opening '\(path)'", path: path)
        }
    }

    /// The part of the map that holds the file's pages now: every view LMDB
    /// hands out must lie inside it (a damaged page could point past it).
    public func currentBounds() -> MapBounds {
        var info = MDB_envinfo()
        guard mdb_env_info(env, &info) == 0 else { return MapBounds(start: mapStart, end: mapStart, mapEnd: mapStart) }
        return MapBounds(start: mapStart, end: mapStart + UInt(info.me_last_pgno + 1) * UInt(pageSize), mapEnd: mapStart + UInt(Environment.mapSize))
    }

    /// Whether either root (meta) page of the file names a map size or a
    /// last page no Fief file has (LMDB then fails to map it, with ENOMEM).
    private static func hasDamagedHeader(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 144)
        for page in 0..<2 {
            let offset = off_t(page * 4096)
            guard pread(fd, &buffer, 144, offset) == 144 else { return true }
            let (mapSize, lastPage) = buffer.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: 32, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 136, as: UInt64.self))
            }
            // LMDB maps at least the pages the root says are used.
            if mapSize > UInt64(Environment.mapSize) || lastPage >= UInt64(Environment.mapSize / 4096) { return true }
        }
        return false
    }

    /// Sync only the data, not the meta page, at commit (`.normal`), or both.
    public func setDurability(_ durability: Durability) {
        if isInMemory || isReadOnly { return }
        mdb_env_set_flags(env, UInt32(MDB_NOMETASYNC), durability == .normal ? 1 : 0)
    }

    // MARK: Databases

    /// The handle of named database `name`, opening it if this process has
    /// not yet.  `create` (only in a write transaction, passed as `txn`)
    /// creates it, and the handle lives once that transaction commits.
    /// Existing databases are opened in a short read transaction of their
    /// own that commits, since LMDB closes handles opened in a transaction
    /// that aborts (as every read snapshot eventually does).
    /// Returns nil if it does not exist and `create` is false.
    public func database(_ name: String, txn: OpaquePointer, create: Bool, integerKey: Bool = false, dupSort: Bool = false) throws(FiefError) -> MDB_dbi? {
        try lock.withLock { (_) throws(FiefError) -> MDB_dbi? in
            // A cached handle may be newer than `txn` (opened after it began):
            // callers detect that through `handleGeneration` and start over.
            if let dbi = databases[name] { return dbi }
            var flags: UInt32 = 0
            if integerKey { flags |= UInt32(MDB_INTEGERKEY) }
            if dupSort { flags |= UInt32(MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP) }
            var dbi: MDB_dbi = 0
            var rc: Int32
            if create {
                rc = mdb_dbi_open(txn, name, flags | UInt32(MDB_CREATE), &dbi)
            } else {
                let own = try beginTransaction(write: false)
                rc = mdb_dbi_open(own, name, flags, &dbi)
                if rc == 0 {
                    rc = mdb_txn_commit(own)
                } else {
                    mdb_txn_abort(own)
                }
            }
            if rc == MDB_NOTFOUND { return nil }
            if rc == MDB_INCOMPATIBLE, let reason = damagedTrees[name] {
                throw FiefError(.fileCorrupt, "'\(path)' is damaged: the tree record of database '\(name)' is broken (\(reason))", path: path)
            }
            if rc == MDB_INCOMPATIBLE {
                throw FiefError(.fileNotFief, "'\(path)' holds a database '\(name)' Fief did not write", path: path)
            }
            try LMDB.check(rc, "opening database '\(name)'", path: path)
            databases[name] = dbi
            if damagedTrees[name] != nil { DamagedTrees.mark(env, dbi) }
            handleGeneration += 1
            return dbi
        }
    }

    /// A read transaction that can use every named database of the file:
    /// their handles are opened first (a transaction cannot use handles
    /// opened after it began).  For whole-file walks (check, copy).
    public func readTransactionWithAllDatabases() throws(FiefError) -> OpaquePointer {
        for _ in 0..<100 {
            let txn = try beginTransaction(write: false)
            var names: [String] = []
            var main: MDB_dbi = 0
            var cursor: OpaquePointer?
            if mdb_dbi_open(txn, nil, 0, &main) == 0, mdb_cursor_open(txn, main, &cursor) == 0 {
                var k = MDB_val(), v = MDB_val()
                var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
                while rc == 0 {
                    names.append(String(decoding: LMDB.bytes(k), as: UTF8.self))
                    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
                }
                mdb_cursor_close(cursor)
            }
            let missing = names.filter { openedDatabase($0).map { !Environment.isUsable($0, in: txn) } ?? true }
            if missing.isEmpty { return txn }
            mdb_txn_abort(txn)
            // A name that cannot be opened (its record is not a database's:
            // a damaged main tree) fails; one that went away is sought again.
            for name in missing {
                do throws(FiefError) {
                    _ = try database(name, txn: txn, create: false)
                } catch let error where error.code == .fileCorrupt || error.code == .fileNotFief {
                    throw error
                } catch {
                    throw FiefError(.fileCorrupt, "'\(path)' is damaged: its main tree names a database that cannot be opened (\(error.message))", path: path)
                }
            }
        }
        throw FiefError(.fileLocked, "the databases of '\(path)' kept changing while being opened", path: path)
    }

    /// The handle of the existing database `name`, opened if this process
    /// has not yet; nil when the file has none.
    public func existingDatabase(_ name: String) throws(FiefError) -> MDB_dbi? {
        if let dbi = openedDatabase(name) { return dbi }
        let txn = try beginTransaction(write: false)
        defer { mdb_txn_abort(txn) }
        return try database(name, txn: txn, create: false)
    }

    /// The handle of `name` if this process has opened it (never opens).
    public func openedDatabase(_ name: String) -> MDB_dbi? {
        lock.withLock { _ in databases[name] }
    }

    /// Whether `txn` can use handle `dbi` (LMDB answers EINVAL for handles
    /// opened in a transaction it cannot see, or after it began).
    public static func isUsable(_ dbi: MDB_dbi, in txn: OpaquePointer) -> Bool {
        var flags: UInt32 = 0
        return mdb_dbi_flags(txn, dbi, &flags) == 0
    }

    /// See `handleGeneration`.
    public var currentHandleGeneration: UInt64 { lock.withLock { _ in handleGeneration } }

    /// Forget handles opened in a transaction that was aborted (LMDB closes them).
    public func forgetDatabases(_ names: [String]) {
        lock.withLock { _ in
            for name in names {
                if let dbi = databases[name] { DamagedTrees.forget(env, dbi) }
                databases[name] = nil
            }
        }
    }

    // MARK: Transactions and readers

    /// Begin an LMDB transaction: a read transaction, or (`write`) the
    /// file's write transaction, which waits for the writer lock.
    ///
    /// A write transaction, once begun, clears the reader slots of dead
    /// processes if the file grew since they were last cleared: a process
    /// killed while it held a snapshot keeps its slot, and the pages that
    /// snapshot pins could never be reused.  (Growth is the symptom;
    /// checking at every write would cost a system call per reader process,
    /// see docs/design.md.)  A read transaction that finds the reader table
    /// full clears the slots of dead processes and tries again.
    public func beginTransaction(write: Bool) throws(FiefError) -> OpaquePointer {
        if broken.load(ordering: .relaxed) { throw brokenError() }
        let flags = write ? 0 : UInt32(MDB_RDONLY)
        var pointer: OpaquePointer?
        var rc = mdb_txn_begin(env, nil, flags, &pointer)
        if rc == MDB_READERS_FULL {
            // Slots held by dead processes may be what fills the table.
            clearStaleReaders()
            rc = mdb_txn_begin(env, nil, flags, &pointer)
        }
        if rc == MDB_PANIC {
            broken.store(true, ordering: .relaxed)
            throw brokenError()
        }
        try LMDB.check(rc, write ? "starting a write transaction" : "starting a read transaction", path: path)
        if write { clearStaleReadersIfGrown() }
        return pointer!
    }

    /// Free the reader slots of processes that died (LMDB's `mdb_reader_check`).
    /// Best effort: a failure leaves the slots for the next check.
    public func clearStaleReaders() {
        var dead: Int32 = 0
        _ = mdb_reader_check(env, &dead)
        var info = MDB_envinfo()
        if mdb_env_info(env, &info) == 0 { pagesAtReaderCheck.store(Int(info.me_last_pgno), ordering: .relaxed) }
    }

    /// `clearStaleReaders` if the file's used pages grew since the last check.
    private func clearStaleReadersIfGrown() {
        var info = MDB_envinfo()
        guard mdb_env_info(env, &info) == 0, Int(info.me_last_pgno) > pagesAtReaderCheck.load(ordering: .relaxed) else { return }
        clearStaleReaders()
    }

    private func brokenError() -> FiefError {
        FiefError(.internal, "'\(path)' cannot be used in this process any more: a thread ended inside a write transaction without its cleanup running, or writing the file's root failed (MDB_PANIC); release every realm of the file in this process, and the next open starts afresh", path: path)
    }

    // MARK: Writer bookkeeping

    /// Note that the calling thread is about to take the write lock; fails if
    /// it already holds it through another realm (LMDB would deadlock).
    public func claimWriter() throws(FiefError) {
        try lock.withLock { (_) throws(FiefError) in
            if let writer = writerThread, pthread_equal(writer, pthread_self()) != 0 {
                throw FiefError(.alreadyInTransaction, "this thread already has a write transaction open on '\(path)' through another realm")
            }
        }
    }

    public func setWriter(_ holding: Bool) {
        lock.withLock { _ in writerThread = holding ? pthread_self() : nil }
    }
}

/// The pages of a file as mapped: a view that starts inside the map must end
/// before `end` (views outside the map are a write transaction's own pages).
public struct MapBounds {
    public let start: UInt
    public let end: UInt
    public let mapEnd: UInt

    @inlinable @inline(__always)
    public func contains(_ view: UnsafeRawBufferPointer) -> Bool {
        let address = UInt(bitPattern: view.baseAddress)
        if address < start || address >= mapEnd { return true }
        return address <= end && UInt(view.count) <= end - address
    }
}

/// The process-wide registry of open environments, keyed by the file's real
/// path (or by `mem:<identifier>` for in-memory realms).
public enum EnvironmentRegistry {
    private static let entries = Mutex<[String: Entry]>([:])
    private static let counter = Atomic<Int>(0)

    /// One open file.  The entry stays while its environment closes (its weak
    /// reference is already nil then): an open of the same file waits for
    /// the close to finish, so two environments of one file never overlap
    /// (closing one would drop the other's fcntl locks).
    public final class Entry: @unchecked Sendable {
        public weak var environment: Environment?
        public let identity: ObjectIdentifier
        public init(_ environment: Environment) {
            self.environment = environment
            identity = ObjectIdentifier(environment)
        }
    }

    /// The environment registered under `key`, or one made by `make`.
    /// Strong references never end inside the lock: an environment's last
    /// release runs its deinit, which takes the lock to unregister.
    private static func environment(_ key: String, make: () throws(FiefError) -> Environment) throws(FiefError) -> Environment {
        while true {
            var found: Environment?
            var closing = false
            try entries.withLock { (table) throws(FiefError) in
                if let entry = table[key] {
                    if let existing = entry.environment {
                        if existing.ownerProcess == getpid() {
                            found = existing
                            return
                        }
                        // Inherited across fork(): this process opens its own.
                        Abandoned.keep(existing)
                    } else {
                        closing = true
                        return
                    }
                }
                let made = try make()
                made.registered = true
                table[key] = Entry(made)
                found = made
            }
            if let found { return found }
            if closing { sched_yield() }
        }
    }

    /// Called by an environment's deinit once LMDB has closed it.
    public static func closed(_ key: String, _ identity: ObjectIdentifier) {
        entries.withLock { table in
            if table[key]?.identity == identity { table[key] = nil }
        }
    }

    /// Environments inherited across fork(): kept so they are never closed
    /// (closing would clear the parent's reader slots).
    public enum Abandoned {
        public nonisolated(unsafe) static var environments: [Environment] = []
        public static func keep(_ environment: Environment) { environments.append(environment) }
    }

    /// The environment for `path`, opened if needed (realms, `fief_file_verify`
    /// and `fief_file_copy` open files here; see `requireRegularFiles`).
    public static func open(path: String, readOnly: Bool) throws(FiefError) -> Environment {
        try requireRegularFiles(path: path)
        let key = canonicalPath(path)
        let environment = try environment(key) { () throws(FiefError) in
            try Environment(path: path, registryKey: key, readOnly: readOnly, inMemory: false)
        }
        // One environment per file: a read-only one cannot serve a writable realm.
        if environment.isReadOnly && !readOnly {
            throw FiefError(.fileLocked, "'\(path)' is open read-only in this process; close those realms before opening it for writing", path: path)
        }
        return environment
    }

    /// Refuse `path` or its lock file if it exists and is not a regular
    /// file (nor a symbolic link to one), with `.fileNotFief`: a directory,
    /// a FIFO, a device (/dev/null), a socket or a file of the kernel's
    /// pseudo file systems (/proc, /sys) cannot hold a realm, and LMDB would
    /// fail on it in less clear ways, or wait forever on a FIFO.  Missing
    /// files are fine (an open creates them).
    public static func requireRegularFiles(path: String) throws(FiefError) {
        try requireRegularFile(path, path: path, what: "")
        try requireRegularFile(path + "-lock", path: path, what: " (the realm's lock file)")
    }

    private static func requireRegularFile(_ file: String, path: String, what: String) throws(FiefError) {
        var info = stat()
        guard stat(file, &info) == 0 else { return }   // missing, or LMDB reports why not
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard let system = pseudoFileSystem(file) else { return }
            kind = "a file of the kernel's \(system) file system"
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "a file of an unknown type"
        }
        var link = stat()
        let viaLink = lstat(file, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
        throw FiefError(.fileNotFief, "'\(file)'\(what) is \(viaLink ? "a symbolic link to " : "")\(kind), not a regular file: a realm is a regular file", path: path)
    }

    /// The name of the kernel pseudo file system `file` lies on (its files
    /// look regular but hold what the kernel makes up as they are read), or
    /// nil.
    private static func pseudoFileSystem(_ file: String) -> String? {
        switch fief_file_system_type(file) {
        case 0x9fa0: return "proc"
        case 0x6265_6572: return "sysfs"
        case 0x6462_6720: return "debugfs"
        case 0x7472_6163: return "tracefs"
        case 0x7363_6673: return "securityfs"
        case 0x0027_e0eb, 0x6367_7270: return "cgroup"
        case 0x6265_6570: return "configfs"
        default: return nil
        }
    }

    /// The environment for in-memory identifier `identifier`, created if needed.
    public static func openInMemory(identifier: String) throws(FiefError) -> Environment {
        let key = "mem:" + identifier
        return try environment(key) { () throws(FiefError) in
            let n = counter.wrappingAdd(1, ordering: .relaxed).newValue
            let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
            var safe = ""
            for scalar in identifier.unicodeScalars.prefix(40) {
                safe.unicodeScalars.append(("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? scalar : "_")
            }
            let path = "\(directory)/fief-mem-\(getpid())-\(n)-\(safe)"
            unlink(path)
            unlink(path + "-lock")
            return try Environment(path: path, registryKey: key, readOnly: false, inMemory: true)
        }
    }

    /// Whether a file is open (or closing) in this process.
    public static func isOpen(path: String) -> Bool {
        let key = canonicalPath(path)
        var open = false
        var keep: Environment?
        entries.withLock { table in
            guard let entry = table[key] else { return }
            keep = entry.environment
            open = keep.map { $0.ownerProcess == getpid() } ?? true
        }
        _ = keep
        return open
    }

    /// The absolute, symlink-free path of `path` (of its directory when the
    /// file does not exist yet).
    public static func canonicalPath(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        var directory = "."
        var name = path
        if let slash = path.lastIndex(of: "/") {
            directory = String(path[..<slash])
            if directory.isEmpty { directory = "/" }
            name = String(path[path.index(after: slash)...])
        }
        if let resolved = realpath(directory, nil) {
            defer { free(resolved) }
            let dir = String(cString: resolved)
            return dir == "/" ? "/" + name : dir + "/" + name
        }
        return path
    }
}
