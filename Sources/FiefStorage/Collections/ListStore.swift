import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// Lists: each list property of a class has a database `c<class>.l<prop>`
/// of segments (see `Segment` and design.md, "Links and collections"):
///
///     key    owner object (8) + position (8), big-endian: LMDB keeps an
///            owner's segments together, in list order
///     value  a segment of 1...256 consecutive elements
///
/// Positions have gaps (the first is 2^63, appends add 2^32, a segment
/// put between two others takes the midpoint; a list whose gaps ran out
/// is renumbered).  The owner's column holds the list's size.
public enum ListStore {
    public static let keyBytes = 16
    public static let firstPosition: UInt64 = 1 << 63
    public static let positionStep: UInt64 = 1 << 32

    /// The key of a segment, in `out` (16 bytes).
    @inlinable @inline(__always)
    public static func key(_ out: UnsafeMutableRawPointer, owner: Int64, position: UInt64) {
        out.storeBytes(of: UInt64(bitPattern: owner).bigEndian, as: UInt64.self)
        (out + 8).storeBytes(of: position.bigEndian, as: UInt64.self)
    }

    /// The 64-bit key a segment's checksum is seeded with: its column,
    /// owner and position, so a segment moved elsewhere fails its check.
    @inlinable @inline(__always)
    public static func checkKey(column: UInt32, owner: Int64, position: UInt64) -> UInt64 {
        (UInt64(bitPattern: owner) &* 0x9E37_79B9_7F4A_7C15) ^ position ^ (UInt64(column) << 40 | UInt64(column) >> 24)
    }

    /// Run `body` with a cursor placed on the first segment of `owner` at
    /// or after `position` (nil when there is none).
    public static func withSeek<T>(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64, position: UInt64,
                            _ body: (LMDBCursor, (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?) throws(FiefError) -> T) throws(FiefError) -> T {
        var buffer = (UInt64(0), UInt64(0))
        return try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) -> T in
            key(raw.baseAddress!, owner: owner, position: position)
            let cursor = try LMDBCursor(txn, dbi)
            let found = try cursor.seek(UnsafeRawBufferPointer(raw))
            return try body(cursor, found)
        }
    }

    /// The owner and position of a stored segment key (nil if malformed).
    @inlinable @inline(__always)
    public static func decodeKey(_ k: UnsafeRawBufferPointer) -> (owner: Int64, position: UInt64)? {
        guard k.count == keyBytes else { return nil }
        return (Int64(bitPattern: UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))),
                UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    /// Ranges of `values` that each make one segment: at most 256 elements,
    /// and for strings and binaries at most `limit` bytes (LMDB's largest
    /// value on a page) unless one element alone is larger.
    public static func cut(_ values: [Value], type: PropertyType, limit: Int) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        let variable = type == .string || type == .binary
        var start = 0
        while start < values.count {
            var end = Swift.min(start + Segment.maxElements, values.count)
            if variable {
                // Worst-case header: null bitmap, 4-byte offsets.
                var size = 2 + 32 + 4 + 1 + 4
                var k = start
                while k < end {
                    var bytes = 4
                    if case .string(let b) = values[k] { bytes += b.count } else if case .binary(let b) = values[k] { bytes += b.count }
                    if k > start && size + bytes > limit { break }
                    size += bytes
                    k += 1
                }
                end = k
            }
            pieces.append(start..<end)
            start = end
        }
        return pieces
    }

    /// Store `values` (1...256 elements) as the segment of (`table`,
    /// `column`, `owner`) at `position`, encoded in `scratch`; `append`:
    /// the key is expected to be the database's last (as in a copy, written
    /// in key order, so LMDB fills its pages); with `cursor` (on that
    /// segment), in its place.
    public static func put(_ values: [Value], _ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, column: UInt32, owner: Int64,
                    position: UInt64, type: PropertyType, nullable: Bool, append: Bool = false, scratch: inout [UInt8],
                    cursor: LMDBCursor? = nil) throws(FiefError) {
        let size = values.withUnsafeBufferPointer { Segment.encodedSize($0, type: type, nullable: nullable) }
        if scratch.count < size { scratch = [UInt8](repeating: 0, count: Swift.max(size, 4096)) }
        let check = checkKey(column: column, owner: owner, position: position)
        try typed { try scratch.withUnsafeMutableBytes { (out) in
            let target = UnsafeMutableRawBufferPointer(rebasing: out[0..<size])
            values.withUnsafeBufferPointer { (buffer) in
                Segment.encode(buffer, type: type, nullable: nullable, into: target, table: table, key: check)
            }
            var keyBuffer = (UInt64(0), UInt64(0))
            try withUnsafeMutableBytes(of: &keyBuffer) { (raw) throws(FiefError) in
                key(raw.baseAddress!, owner: owner, position: position)
                if let cursor {
                    try cursor.put(UnsafeRawBufferPointer(raw), UnsafeRawBufferPointer(target), current: true)
                } else {
                    try putSegment(txn, dbi, UnsafeRawBufferPointer(raw), UnsafeRawBufferPointer(target), append: append)
                }
            }
        } }
    }

    /// Store one segment under `key`; with `append`, as the database's last
    /// key when it is (LMDB then fills its pages), else where it goes.
    public static func putSegment(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
                           append: Bool) throws(FiefError) {
        if append, try LMDB.put(txn, dbi, key, value, flags: UInt32(MDB_APPEND)) { return }
        _ = try LMDB.put(txn, dbi, key, value)
    }

    /// Every list stored in `dbi`, owner by owner, in key order: `body`
    /// gets the owner and its segments (position and stored bytes).
    public static func forEachList(_ txn: OpaquePointer, _ dbi: MDB_dbi,
                            _ body: (Int64, [(position: UInt64, raw: UnsafeRawBufferPointer)]) throws(FiefError) -> Void) throws(FiefError) {
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        var owner: Int64? = nil
        var segments: [(position: UInt64, raw: UnsafeRawBufferPointer)] = []
        while let (k, v) = entry {
            guard let decoded = decodeKey(k) else {
                throw FiefError(.fileCorrupt, "a list database holds a key of \(k.count) bytes, not 16")
            }
            if decoded.owner != owner {
                if let owner { try body(owner, segments) }
                owner = decoded.owner
                segments.removeAll(keepingCapacity: true)
            }
            segments.append((decoded.position, v))
            entry = try cursor.next()
        }
        if let owner { try body(owner, segments) }
    }

    /// The same over entries read another way (in key order, as a damaged
    /// tree's salvage gives them once sorted); keys that are not a
    /// segment's are skipped.
    public static func forEachList(entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)],
                            _ body: (Int64, [(position: UInt64, raw: UnsafeRawBufferPointer)]) throws(FiefError) -> Void) throws(FiefError) {
        var owner: Int64? = nil
        var segments: [(position: UInt64, raw: UnsafeRawBufferPointer)] = []
        for (k, v) in entries {
            guard let decoded = decodeKey(k) else { continue }
            if decoded.owner != owner {
                if let owner { try body(owner, segments) }
                owner = decoded.owner
                segments.removeAll(keepingCapacity: true)
            }
            segments.append((decoded.position, v))
        }
        if let owner { try body(owner, segments) }
    }

    /// Delete every segment of `owner`.
    public static func deleteAll(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64) throws(FiefError) {
        var buffer = (UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) in
            key(raw.baseAddress!, owner: owner, position: 0)
            let cursor = try LMDBCursor(txn, dbi)
            // Sought again after each delete (see `Backlinks.take`).
            while let (k, _) = try cursor.seek(UnsafeRawBufferPointer(raw)), let decoded = decodeKey(k), decoded.owner == owner {
                try cursor.deleteCurrent()
            }
        }
    }
}

/// One list, identified by class, property and owner object.
public struct ListID: Hashable, Sendable {
    public var table: UInt32
    public var column: UInt32
    public var owner: Int64
    public init(table: UInt32, column: UInt32, owner: Int64) { self.table = table; self.column = column; self.owner = owner }
}

/// One segment of a list as a snapshot or write transaction sees it.
public struct ListSegment {
    /// The position in its key; nil until it is first stored.
    public var position: UInt64?
    public var count: Int
    /// The stored bytes, in LMDB's map; checked on first read.
    public var raw: UnsafeRawBufferPointer?
    public var reader: SegmentReader?
    /// The elements, when this write transaction changed the segment.
    public var values: [Value]?
    public init(position: UInt64? = nil, count: Int, raw: UnsafeRawBufferPointer? = nil, reader: SegmentReader? = nil, values: [Value]? = nil) {
        self.position = position; self.count = count; self.raw = raw; self.reader = reader; self.values = values
    }
}

/// A list as one snapshot or write transaction sees it: its segments
/// (all of them, or only the last ones after an append to a list not
/// read before), read in place until changed.
public final class ListState {
    public let id: ListID
    /// The layout of the segments: the element type, `.binary` for mixed
    /// elements (each coded, see `MixedCoding`).
    public let type: PropertyType
    /// Whether the elements are mixed values (decoded at the list's edges).
    public let isMixed: Bool
    public let nullable: Bool
    /// Whether `starts` is up to date (declared among the flags: the
    /// instance stays within 128 bytes, where freeing many is cheapest).
    @usableFromInline var startsValid = false
    public let linkTarget: UInt32
    public var segments: [ListSegment]
    /// Elements before `segments[0]` that were not loaded (0 when all were).
    public var base: Int
    public var count: Int
    /// Positions of stored segments to delete when the transaction commits.
    public var removed: [UInt64] = []
    /// Whether every stored segment goes before the new ones are written.
    public var clearsStored = false
    public var isDirty = false
    /// What this write transaction did to the list (its change record).
    public private(set) var changes = ListChanges()
    /// Where each loaded segment starts (index of its first element), built on demand.
    @usableFromInline var starts: [Int] = []

    public init(id: ListID, column: Column, segments: [ListSegment], base: Int, count: Int) {
        self.id = id
        self.isMixed = column.elementType == .mixed
        self.type = isMixed ? .binary : column.elementType
        self.nullable = column.elementsNullable
        self.linkTarget = column.linkTarget
        self.segments = segments
        self.base = base
        self.count = count
    }

    public var isComplete: Bool { base == 0 }

    // The list's change record, changed in place (`ListChanges`).
    public func noteInsert(at index: Int, count: Int = 1) { changes.insert(at: index, count: count) }
    public func noteErase(at index: Int) { changes.erase(at: index) }
    public func noteSet(at index: Int) { changes.set(at: index) }
    public func noteMove(from: Int, to: Int) { changes.move(from: from, to: to) }
    public func noteSwap(_ a: Int, _ b: Int) { changes.swap(a, b) }
    public func noteClear(size: Int) { changes.clear(size: size) }

    /// Whether elements may be links (which have backlinks).
    public var holdsLinks: Bool { type == .link || isMixed }

    /// An element as the list's users see it: a mixed element decoded.
    @inlinable @inline(__always)
    public func element(_ stored: Value, _ table: Table) throws(FiefError) -> Value {
        guard isMixed, case .binary(let coded) = stored else { return stored }
        guard let value = MixedCoding.decode(coded) else { throw damaged(table, "holds a mixed value that cannot be read") }
        return value
    }

    /// The segment holding element `index` (base ≤ index < count) and the
    /// element's offset in it.
    @inlinable @inline(__always)
    public func locate(_ index: Int) -> (segment: Int, offset: Int) {
        if segments.count == 1 { return (0, index - base) }
        if let last = segments.last, index >= count - last.count { return (segments.count - 1, index - (count - last.count)) }
        if !startsValid {
            starts.removeAll(keepingCapacity: true)
            var at = base
            for segment in segments { starts.append(at); at += segment.count }
            startsValid = true
        }
        // The last start ≤ index.
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) >> 1
            if starts[mid] <= index { low = mid } else { high = mid - 1 }
        }
        return (low, index - starts[low])
    }

    public func invalidateStarts() { startsValid = false }

    /// Check every segment and index them now: a snapshot's lists are then
    /// only read, never changed, so realms sharing the snapshot may read
    /// them at the same time.
    public func prepareForReading(_ table: Table) throws(FiefError) {
        for s in 0..<segments.count { _ = try reader(s, table: table) }
        if segments.count > 1 { _ = locate(base) }
        if !startsValid {
            starts = []
            var at = base
            for segment in segments { starts.append(at); at += segment.count }
            startsValid = true
        }
    }

    /// The reader of stored segment `s`, checked on first use.
    @inlinable @inline(__always)
    public func reader(_ s: Int, table: Table) throws(FiefError) -> SegmentReader {
        if let reader = segments[s].reader { return reader }
        guard let raw = segments[s].raw, let position = segments[s].position,
              let reader = SegmentReader(raw, type: type, table: id.table,
                                         key: ListStore.checkKey(column: id.column, owner: id.owner, position: position)),
              reader.count == segments[s].count else {
            throw damaged(table, "fails its checksum or layout check")
        }
        segments[s].reader = reader
        return reader
    }

    public func damaged(_ table: Table, _ what: String) -> FiefError {
        let name = (try? table.property(id.column).name) ?? "#\(id.column)"
        return FiefError(.fileCorrupt, "the list '\(table.objectClass.name).\(name)' of object \(id.owner) is damaged: a stored segment \(what)")
    }

    /// Element `index` (base ≤ index < count).
    @inlinable @inline(__always)
    public func value(_ index: Int, table: Table) throws(FiefError) -> Value {
        let (s, o) = locate(index)
        if let values = segments[s].values { return values[o] }
        return try reader(s, table: table).value(o, linkTarget: linkTarget)
    }

    /// Make segment `s` writable (its elements decoded, views into the map).
    public func makeWritable(_ s: Int, table: Table) throws(FiefError) {
        if segments[s].values != nil { return }
        let reader = try reader(s, table: table)
        var values: [Value] = []
        values.reserveCapacity(Swift.max(reader.count, 16))
        for i in 0..<reader.count { values.append(reader.value(i, linkTarget: linkTarget)) }
        segments[s].values = values
        segments[s].reader = nil
        segments[s].raw = nil
    }
}

/// Bytes kept for the length of a write transaction (strings and binaries
/// written to lists), in blocks that never move.
public final class ByteArena {
    private var blocks: [UnsafeMutableRawPointer] = []
    private var current: UnsafeMutableRawPointer?
    private var used = 0
    private var capacity = 0
    public static let blockSize = 64 * 1024

    /// A copy of `bytes` that lives as long as the arena.
    public func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let n = bytes.count
        if n == 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
        if n > ByteArena.blockSize / 4 {
            let own = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 8)
            own.copyMemory(from: bytes.baseAddress!, byteCount: n)
            blocks.append(own)
            return UnsafeRawBufferPointer(start: own, count: n)
        }
        if used + n > capacity || current == nil {
            let block = UnsafeMutableRawPointer.allocate(byteCount: ByteArena.blockSize, alignment: 8)
            blocks.append(block)
            current = block
            used = 0
            capacity = ByteArena.blockSize
        }
        let at = current! + used
        at.copyMemory(from: bytes.baseAddress!, byteCount: n)
        used += n
        return UnsafeRawBufferPointer(start: at, count: n)
    }

    deinit { for block in blocks { block.deallocate() } }
}
