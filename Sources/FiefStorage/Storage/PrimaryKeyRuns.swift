import CLMDB

/// The primary-key table of a class whose primary key is a non-optional
/// int: runs of consecutive keys mapped to consecutive objects.
///
/// An entry's key is the first primary key of a run (8 native bytes,
/// MDB_INTEGERKEY, so runs sort by the keys' unsigned bit patterns); its
/// value is the run's first object key (8 bytes: a run of one) or the first
/// object key and the run's length (16 bytes).  Primary key `s + i` of a
/// run starting at `s` belongs to object `first + i`.  Objects created with
/// ascending ids, the usual case, make one entry however many there are,
/// instead of one 26-byte entry each; ids in random order make one 8-byte
/// entry each, as a plain map would.
///
/// Every call takes a cursor on the table, in the transaction to use.
public enum PrimaryKeyRuns {
    public struct Run {
        public var start: UInt64
        public var firstObject: Int64
        public var length: UInt64
        @usableFromInline init(start: UInt64, firstObject: Int64, length: UInt64) { self.start = start; self.firstObject = firstObject; self.length = length }

        /// Whether primary key `key` falls in the run.
        @inlinable @inline(__always)
        public func contains(_ key: UInt64) -> Bool { key >= start && key - start < length }
        /// The first key after the run (nil if the run ends at UInt64.max).
        public var end: UInt64? { start.addingReportingOverflow(length).overflow ? nil : start + length }
    }

    @inlinable @inline(__always)
    static func run(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FiefError) -> Run {
        guard key.count == 8 else { throw FiefError(.fileCorrupt, "a primary-key table entry has an impossible size") }
        return try run(key.loadUnaligned(as: UInt64.self), value)
    }

    @inlinable @inline(__always)
    static func run(_ start: UInt64, _ value: UnsafeRawBufferPointer) throws(FiefError) -> Run {
        guard value.count == 8 || value.count == 16 else {
            throw FiefError(.fileCorrupt, "a primary-key table entry has an impossible size")
        }
        let length = value.count == 16 ? value.loadUnaligned(fromByteOffset: 8, as: UInt64.self) : 1
        guard length >= 1, !start.addingReportingOverflow(length - 1).overflow else {
            throw FiefError(.fileCorrupt, "a primary-key table entry holds an impossible run")
        }
        return Run(start: start, firstObject: value.loadUnaligned(as: Int64.self), length: length)
    }

    /// The run that holds `key`, or else the last run before it (the cursor
    /// stands on the returned run).
    @inlinable @inline(__always)
    public static func runAtOrBefore(_ cursor: LMDBCursor, _ key: UInt64) throws(FiefError) -> Run? {
        if let (k, v) = try cursor.seek(integerKey: key) {
            if k == key { return try run(k, v) }
            guard let (pk, pv) = try cursor.move(MDB_PREV) else { return nil }
            return try run(pk, pv)
        }
        guard let (lk, lv) = try cursor.move(MDB_LAST) else { return nil }
        return try run(lk, lv)
    }

    /// Whether keys from `start` on, for objects from `firstObject` on,
    /// continue `run`.
    @inlinable @inline(__always)
    public static func continues(_ run: Run, start: UInt64, firstObject: Int64, count: UInt64) -> Bool {
        run.end == start && run.firstObject &+ Int64(bitPattern: run.length) == firstObject
            && !start.addingReportingOverflow(count - 1).overflow
    }

    /// The object whose primary key is `key`, if any.
    @inlinable @inline(__always)
    public static func find(_ cursor: LMDBCursor, _ key: UInt64) throws(FiefError) -> Int64? {
        guard let run = try runAtOrBefore(cursor, key), run.contains(key) else { return nil }
        return run.firstObject + Int64(bitPattern: key - run.start)
    }

    /// Map primary keys `start ..< start + count` to objects `firstObject ...`.
    /// Returns nil, or the first of those keys that is already taken (then
    /// nothing is written).  `tail` receives the run written when it is the
    /// table's last (later keys can then extend it without a search).
    public static func insert(_ cursor: LMDBCursor, start: UInt64, firstObject: Int64, count: UInt64, tail: inout Run?) throws(FiefError) -> UInt64? {
        tail = nil
        guard count >= 1 else { return nil }
        let (last, overflow) = start.addingReportingOverflow(count - 1)
        guard !overflow else { throw FiefError(.invalidArgument, "a run of primary keys wraps around") }
        // Taken: a run before `start` reaching into it, or one starting inside.
        var before: Run?
        var isLast = false
        if let (k, _) = try cursor.seek(integerKey: start) {
            if k <= last { return k }
            if let (pk, pv) = try cursor.move(MDB_PREV) { before = try run(pk, pv) }
        } else {
            isLast = true
            if let (lk, lv) = try cursor.move(MDB_LAST) { before = try run(lk, lv) }
        }
        if let before, before.contains(start) { return start }
        // Extend the run just before when keys and objects both continue it.
        let written: Run
        if let before, before.end == start, before.firstObject + Int64(bitPattern: before.length) == firstObject {
            written = Run(start: before.start, firstObject: before.firstObject, length: before.length + count)
            try put(cursor, written, current: true)
        } else {
            written = Run(start: start, firstObject: firstObject, length: count)
            try put(cursor, written, current: false)
        }
        if isLast { tail = written }
        return nil
    }

    /// Store `run` under its first key (replacing the entry there).
    public static func store(_ cursor: LMDBCursor, _ run: Run) throws(FiefError) {
        try put(cursor, run, current: false)
    }

    /// Forget primary key `key` (nothing if it is not mapped).
    public static func remove(_ cursor: LMDBCursor, _ key: UInt64) throws(FiefError) {
        guard let run = try runAtOrBefore(cursor, key), run.contains(key) else { return }
        let offset = key - run.start
        try cursor.deleteCurrent()
        if offset > 0 {
            try put(cursor, Run(start: run.start, firstObject: run.firstObject, length: offset), current: false)
        }
        if offset + 1 < run.length {
            try put(cursor, Run(start: key + 1, firstObject: run.firstObject + Int64(bitPattern: offset) + 1, length: run.length - offset - 1), current: false)
        }
    }

    private static func put(_ cursor: LMDBCursor, _ run: Run, current: Bool) throws(FiefError) {
        var key = run.start
        var value = (run.firstObject, run.length)
        let size = run.length == 1 ? 8 : 16
        try withUnsafeBytes(of: &key) { (k) throws(FiefError) in
            try withUnsafeBytes(of: &value) { (v) throws(FiefError) in
                try cursor.put(k, UnsafeRawBufferPointer(rebasing: v[0..<size]), current: current)
            }
        }
    }
}
