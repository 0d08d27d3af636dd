import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Backlinks of many targets

/// Reads the backlink records of many targets of one class with one
/// cursor; targets asked in ascending key order mostly need no seek (the
/// run read last holds them, or a seek showed they have none).
struct BacklinkScanner {
    private let cursor: LMDBCursor
    private var run: Backlinks.Run?
    /// Where no record lies, known from the last seek (the cursor's or the
    /// directory's) for this record: none from it up to `run`'s first
    /// record, or to the end when `run` is nil (the seek found nothing).
    /// A target asked there needs no seek.  Nil once `run` moved on.
    private var gapStart: Backlinks.Record?
    /// The seeks made (the cursor's or the directory's), for tests.
    private(set) var seeks = 0
    /// The target of `run`'s last record (from its key).
    private var runLastTarget: UInt64 = 0
    /// In a read snapshot, its runs already checked (see
    /// `Backlinks.CheckedRuns`) and where they lie (see
    /// `Backlinks.RunDirectory`), read without reference counting (the
    /// snapshot holds them: `keptAlive` too).
    private let checked: Unmanaged<Backlinks.CheckedRuns>?
    private let directory: Unmanaged<Backlinks.RunDirectory>?
    private let keptAlive: (Backlinks.CheckedRuns?, Backlinks.RunDirectory?)
    /// `run`'s place in `directory` (-1: `run` was found through the
    /// cursor, which is on it).
    private var runIndex = -1

    init(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        cursor = try LMDBCursor(txn, dbi)
        checked = nil
        directory = nil
        keptAlive = (nil, nil)
    }

    /// A scanner over the backlinks database `dbi` read through `txn`,
    /// `realm`'s: in its write transaction, the database's buffered
    /// changes are settled first (a scan reads what LMDB holds).
    init(_ realm: Realm, _ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        if let write = realm.write { try Backlinks.settle(write, dbi) }
        try self.init(txn, dbi)
    }

    /// A scanner over `cursor` (on a backlinks database), placed anywhere:
    /// its first target is sought.  `checked` and `directory`: the runs
    /// of the snapshot the cursor reads that were checked already, and
    /// where they lie (never in a write transaction).
    init(cursor: LMDBCursor, checked: Backlinks.CheckedRuns? = nil, directory: Backlinks.RunDirectory? = nil) {
        self.cursor = cursor
        self.checked = checked.map { Unmanaged.passUnretained($0) }
        self.directory = directory.map { Unmanaged.passUnretained($0) }
        keptAlive = (checked, directory)
    }

    /// The run stored under `key`, checked (its checksum once per snapshot).
    @inline(__always)
    private func read(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(FiefError) -> Backlinks.Run {
        guard let checked, let base = value.baseAddress else {
            guard let read = Backlinks.Run(value, key: key) else { throw Backlinks.damaged() }
            return read
        }
        let known = checked._withUnsafeGuaranteedRef { $0.contains(base) }
        guard let read = Backlinks.Run(value, key: key, verify: !known) else { throw Backlinks.damaged() }
        if !known { checked._withUnsafeGuaranteedRef { $0.insert(base) } }
        return read
    }

    /// Make run `i` of the directory the run read (nil past the last).
    @inline(__always)
    private mutating func readRun(_ directory: Unmanaged<Backlinks.RunDirectory>, _ i: Int) throws(FiefError) -> Backlinks.Run? {
        guard let (lastTarget, key, value) = directory._withUnsafeGuaranteedRef({ i < $0.count ? $0.run(i) : nil }) else {
            run = nil
            return nil
        }
        let made = try read(value, key: key)
        run = made
        runIndex = i
        runLastTarget = lastTarget
        return made
    }

    /// Make `run` the run holding the first record not below `wanted` (or
    /// where it would be); its index there, nil past the last run.
    @inline(__always)
    private mutating func place(_ wanted: Backlinks.Record) throws(FiefError) -> Int? {
        if let run {
            if !wanted.precedes(run.record(0)) {
                if !run.record(run.count - 1).precedes(wanted) {
                    return run.lowerBound(wanted, near: run.guess(wanted.target, last: runLastTarget))
                }
            } else if let gapStart, !wanted.precedes(gapStart) {
                // Between the last seek's record and the run's first: none.
                return 0
            }
        } else if let gapStart, !wanted.precedes(gapStart) {
            // Past the last record.
            return nil
        }
        if let directory {
            let txn = mdb_cursor_txn(cursor.pointer)!, dbi = mdb_cursor_dbi(cursor.pointer)
            if directory._withUnsafeGuaranteedRef({ !$0.isBuilt && $0.shouldBuild(txn, dbi) }), let made = keptAlive.1 {
                try made.build(txn, dbi)
            }
            let found = directory._withUnsafeGuaranteedRef { $0.isBuilt ? $0.find(wanted) : -1 }
            if found >= 0 {
                seeks += 1
                let read = try readRun(directory, found)
                gapStart = wanted
                guard let read else { return nil }
                return read.lowerBound(wanted, near: read.guess(wanted.target, last: runLastTarget))
            }
        }
        seeks += 1
        var key = (UInt64(0), UInt64(0), UInt64(0))
        let found = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
            wanted.writeKey(raw.baseAddress!)
            return try cursor.seek(UnsafeRawBufferPointer(raw))
        }
        guard let found else { run = nil; gapStart = wanted; return nil }
        let made = try read(found.value, key: found.key)
        run = made
        gapStart = wanted
        runIndex = -1
        runLastTarget = UInt64(bigEndian: found.key.loadUnaligned(as: UInt64.self))
        return made.lowerBound(wanted, near: made.guess(wanted.target, last: runLastTarget))
    }

    /// Move to the run after `run` (nil past the last).
    @inline(__always)
    private mutating func nextRun() throws(FiefError) -> Backlinks.Run? {
        gapStart = nil
        if runIndex >= 0, let directory { return try readRun(directory, runIndex + 1) }
        guard let next = try cursor.next() else { run = nil; return nil }
        let made = try read(next.value, key: next.key)
        run = made
        runLastTarget = UInt64(bigEndian: next.key.loadUnaligned(as: UInt64.self))
        return made
    }

    /// Call `body` with each record for `target` (only those of class
    /// `originClass` and `property` when given): its pair (origin class <<
    /// 32 | property), origin object and link count.
    mutating func forEachRecord(of target: Int64, originClass: UInt32? = nil, property: UInt32? = nil,
                                _ body: (UInt64, Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        let wanted = Backlinks.Record(target: target, originClass: originClass ?? 0, property: property ?? 0, origin: 0)
        let onePair = originClass != nil
        guard var index = try place(wanted) else { return }
        while let current = run {
            while index < current.count {
                guard current.target(index) == wanted.target else { return }
                let pair = current.pair(index)
                if onePair && pair != wanted.pair { return }
                try body(pair, Int64(bitPattern: current.origin(index)), current.count(index))
                index += 1
            }
            // The records may go on in the next run.
            guard try nextRun() != nil else { return }
            index = 0
        }
    }

    /// The number of records for `target` from `originClass`'s `property`
    /// (the origins linking it through that property), counted by binary
    /// searches in the runs holding them, no record visited.
    mutating func countRecords(of target: Int64, originClass: UInt32, property: UInt32) throws(FiefError) -> Int {
        let wanted = Backlinks.Record(target: target, originClass: originClass, property: property, origin: 0)
        guard var index = try place(wanted) else { return 0 }
        var total = 0
        while let current = run {
            let end = current.upperBound(target: wanted.target, pair: wanted.pair, from: index)
            total += end - index
            // The records may go on in the next run.
            if end < current.count { return total }
            guard try nextRun() != nil else { return total }
            index = 0
        }
        return total
    }
}
