import CLMDB
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

/// The entries of one set or map (one `ListID`) a write transaction has
/// put or deleted and not written yet: key → put(value) or delete, the
/// last one winning (see design.md, "The write buffer").  Kept in an
/// arena and an open-addressing hash table; written at commit (or by a
/// settle) sorted, with one cursor per database (`store`).
///
/// Why: set elements and map entries are LMDB keys (owner + element or map
/// key) that arrive in no order; each put is a descent of LMDB's tree to a
/// random page.  Sorted, the puts follow each other on the same pages (or
/// are appended past the database's last key, which fills pages).
///
/// Exactness: every entry records whether its key was stored before the
/// transaction touched it (`storedBefore`), known from the point read every
/// set insert, remove and map set does to keep the size column exact (no
/// read at all for a collection empty when its table was made:
/// `emptyAtStart`).  So a point read is the table, then LMDB; a delete of a
/// key never stored writes nothing.
public final class EntryTable {
    /// 32 bytes (sorted at commit: moved whole by the radix sort).
    public struct Entry {
        /// The key's first 8 bytes, big-endian, zero-padded: orders most keys.
        public var prefix: UInt64
        public var key: UnsafeRawPointer
        public var value: UnsafeRawPointer?
        /// -1: deleted.
        public var valueCount: Int32
        /// At most 512 (an LMDB key).
        public var keyCount: UInt16
        /// Whether LMDB held the key before this transaction's first change to it.
        public var storedBefore: Bool

        public var isDeleted: Bool { valueCount < 0 }
        public var keyBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: key, count: Int(keyCount)) }
        public var valueBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: value, count: Int(max(valueCount, 0))) }
    }

    /// What a key is in the table.
    public enum Lookup {
        /// Not in the table: LMDB says (or, with `emptyAtStart`, nothing).
        case absent
        /// Put: its value (a view into the arena, valid until the table is written or dropped).
        case put(UnsafeRawBufferPointer)
        case deleted
    }

    /// The collection's database.
    public let dbi: MDB_dbi
    /// Entry values carry `EntrySeal`'s checksum (maps): written at store.
    public let sealed: Bool
    /// The collection held nothing when the table was made: a key not in
    /// the table is in no database either.
    public let emptyAtStart: Bool
    public private(set) var entries: [Entry] = []
    /// Open addressing: entry index + 1 (0: empty) in the low half, the
    /// key's hash in the high half.
    private var slots = [UInt64](repeating: 0, count: 16)
    private var blocks: [UnsafeMutableRawPointer] = []
    private var block: UnsafeMutableRawPointer?
    private var blockUsed = 0
    private var blockSize = 0
    /// The last `lookup`'s key (its address and size), slot and hash,
    /// valid while `changes` is unchanged: the change that follows a
    /// lookup of the same key (every write path) probes once.
    private var probed: (key: UnsafeRawPointer?, count: Int, slot: Int, hash: UInt32, changes: Int) = (nil, 0, 0, 0, -1)
    private var changeCount = 0
    /// Bytes of the arena and the table (the budget's measure), also
    /// counted in `tables`' total.
    public private(set) var bytes = 0 {
        didSet { tables?.totalBytes += bytes - oldValue }
    }
    private unowned(unsafe) let tables: EntryTables?

    public init(dbi: MDB_dbi, sealed: Bool, emptyAtStart: Bool, in tables: EntryTables? = nil) {
        self.dbi = dbi
        self.sealed = sealed
        self.emptyAtStart = emptyAtStart
        self.tables = tables
        bytes = 128 + 16 * 8
    }

    deinit {
        for b in blocks { b.deallocate() }
    }

    public var isEmpty: Bool { entries.isEmpty }

    @inline(__always)
    private static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }

    @inline(__always)
    private static func prefix(_ key: UnsafeRawBufferPointer) -> UInt64 {
        if key.count >= 8 { return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) }
        var p: UInt64 = 0
        for i in 0..<8 { p = p << 8 | UInt64(i < key.count ? key[i] : 0) }
        return p
    }

    /// `count` bytes of the arena: they never move until the table goes.
    private func allocate(_ count: Int) -> UnsafeMutableRawPointer {
        if block == nil || blockUsed + count > blockSize {
            blockSize = max(count, min(max(blockSize * 2, 256), 1 << 20))
            let made = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 8)
            blocks.append(made)
            block = made
            blockUsed = 0
            bytes += blockSize
        }
        let at = block! + blockUsed
        blockUsed += count
        return at
    }

    private func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        if bytes.isEmpty { return nil }
        let at = allocate(bytes.count)
        at.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        return UnsafeRawPointer(at)
    }

    /// The slot of `key` (holding its entry, or empty where it would go).
    @inline(__always)
    private func slot(_ key: UnsafeRawBufferPointer, _ h: UInt32) -> Int {
        let mask = slots.count - 1
        var i = Int(h) & mask
        while slots[i] != 0 {
            let s = slots[i]
            if UInt32(truncatingIfNeeded: s >> 32) == h {
                let e = entries[Int(UInt32(truncatingIfNeeded: s)) - 1]
                if Int(e.keyCount) == key.count && (key.isEmpty || memcmp(e.key, key.baseAddress!, key.count) == 0) { return i }
            }
            i = (i + 1) & mask
        }
        return i
    }

    /// What the table holds for `key` (an element or map key, without its owner).
    @inline(__always)
    public func lookup(_ key: UnsafeRawBufferPointer) -> Lookup {
        if entries.isEmpty { return .absent }
        let h = EntryTable.hash(key)
        let i = slot(key, h)
        probed = (key.baseAddress, key.count, i, h, changeCount)
        let s = slots[i]
        if s == 0 { return .absent }
        let e = entries[Int(UInt32(truncatingIfNeeded: s)) - 1]
        return e.isDeleted ? .deleted : .put(e.valueBytes)
    }

    /// Put `value` under `key` (the last change wins); `storedBefore`: LMDB
    /// holds the key (asked only when the table does not know it yet).
    @inline(__always)
    public func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, storedBefore: () throws(FiefError) -> Bool) throws(FiefError) {
        try change(key, value, storedBefore: storedBefore)
    }

    /// Delete `key` (the last change wins).
    @inline(__always)
    public func delete(_ key: UnsafeRawBufferPointer, storedBefore: () throws(FiefError) -> Bool) throws(FiefError) {
        try change(key, nil, storedBefore: storedBefore)
    }

    /// Delete whole key `k` (owner + key) if the collection holds it (the
    /// table says, else LMDB through `txn`); whether it did.
    public func removeStored(_ k: UnsafeRawBufferPointer, _ txn: OpaquePointer) throws(FiefError) -> Bool {
        let e = UnsafeRawBufferPointer(rebasing: k[8...])
        switch lookup(e) {
        case .put: break
        case .deleted: return false
        case .absent: guard !emptyAtStart, try LMDB.get(txn, dbi, k) != nil else { return false }
        }
        try delete(e) { true }
        return true
    }

    private func change(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?, storedBefore: () throws(FiefError) -> Bool) throws(FiefError) {
        let h: UInt32, i: Int
        if probed.changes == changeCount, probed.key == key.baseAddress, probed.count == key.count, !entries.isEmpty {
            (h, i) = (probed.hash, probed.slot)
        } else {
            h = EntryTable.hash(key)
            i = slot(key, h)
        }
        changeCount &+= 1
        let valueCount = Int32(value.map { $0.count } ?? -1)
        if slots[i] != 0 {
            let index = Int(UInt32(truncatingIfNeeded: slots[i])) - 1
            entries[index].valueCount = valueCount
            entries[index].value = value.flatMap { copy($0) }
            return
        }
        let before = emptyAtStart ? false : try storedBefore()
        let storedKey = copy(key) ?? UnsafeRawPointer(bitPattern: 8)!
        entries.append(Entry(prefix: EntryTable.prefix(key), key: storedKey, value: value.flatMap { copy($0) }, valueCount: valueCount,
                             keyCount: UInt16(key.count), storedBefore: before))
        bytes += MemoryLayout<Entry>.stride + 8
        slots[i] = UInt64(h) << 32 | UInt64(entries.count)
        if entries.count * 2 > slots.count { grow() }
    }

    private func grow() {
        var bigger = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for s in slots where s != 0 {
            var i = Int(UInt32(truncatingIfNeeded: s >> 32)) & mask
            while bigger[i] != 0 { i = (i + 1) & mask }
            bigger[i] = s
        }
        bytes += slots.count * 8
        slots = bigger
    }

    /// The entries in key order: a radix sort of (prefix, index) pairs on
    /// the entries' 8-byte prefixes (16 bytes moved a pass, not an entry's
    /// 32; only the bytes where the prefixes differ), the entries gathered
    /// once, then runs of equal prefixes sorted by their whole keys.
    public func sortedEntries() -> [Entry] {
        let n = entries.count
        if n < 2 { return entries }
        // Already in order (keys put in order, the usual case): no sort.
        var ordered = true
        for i in 1..<n where !EntryTable.precedes(entries[i - 1], entries[i]) { ordered = false; break }
        if ordered { return entries }
        let first = entries[0].prefix
        var differing: UInt64 = 0
        var pairs = [(prefix: UInt64, index: UInt32)](unsafeUninitializedCapacity: n) { buffer, count in
            for i in 0..<n {
                let p = entries[i].prefix
                differing |= p ^ first
                buffer[i] = (p, UInt32(i))
            }
            count = n
        }
        var spare = pairs
        pairs.withUnsafeMutableBufferPointer { a in
            spare.withUnsafeMutableBufferPointer { b in
                var from = a, to = b
                var counts = [Int](repeating: 0, count: 256)
                for pass in 0..<8 {
                    let shift = UInt64(pass * 8)
                    // A byte all prefixes share needs no pass.
                    if (differing >> shift) & 0xff == 0 { continue }
                    for i in 0..<256 { counts[i] = 0 }
                    for e in from { counts[Int((e.prefix >> shift) & 0xff)] += 1 }
                    var total = 0
                    for i in 0..<256 { let c = counts[i]; counts[i] = total; total += c }
                    for e in from {
                        let byte = Int((e.prefix >> shift) & 0xff)
                        to[counts[byte]] = e
                        counts[byte] += 1
                    }
                    swap(&from, &to)
                }
                if from.baseAddress != a.baseAddress { _ = a.update(fromContentsOf: from) }
            }
        }
        var sorted = [Entry]()
        sorted.reserveCapacity(n)
        for p in pairs { sorted.append(entries[Int(p.index)]) }
        var j = 0
        while j < n {
            var k = j + 1
            while k < n && sorted[k].prefix == sorted[j].prefix { k += 1 }
            if k - j > 1 { sorted[j..<k].sort(by: EntryTable.precedes) }
            j = k
        }
        return sorted
    }

    /// LMDB's key order: bytewise, a prefix first.
    @inline(__always)
    public static func precedes(_ x: Entry, _ y: Entry) -> Bool {
        if x.prefix != y.prefix { return x.prefix < y.prefix }
        let c = memcmp(x.key, y.key, Int(Swift.min(x.keyCount, y.keyCount)))
        return c != 0 ? c < 0 : x.keyCount < y.keyCount
    }

    /// Write every entry of collection `owner` (of class `table`, property
    /// `column`) through `cursor` (on `dbi`), in key order: puts appended
    /// (`MDB_APPEND`) when they all lie past the database's last key, deletes
    /// of keys stored before.  The table is empty afterwards.  Returns what
    /// the entries changed (`changes(of:)`).
    @discardableResult
    public func store(_ cursor: LMDBCursor, table: UInt32, column: UInt32, owner: Int64) throws(FiefError) -> EntryChanges {
        if entries.isEmpty { return EntryChanges() }
        let sorted = sortedEntries()
        let changes = EntryTable.changes(of: sorted, emptyAtStart: emptyAtStart)
        try typed { () throws in
            var key = [UInt8](repeating: 0, count: 8 + 512)
            try key.withUnsafeMutableBytes { (k) throws in
                k.storeBytes(of: UInt64(bitPattern: owner).bigEndian, as: UInt64.self)
                func full(_ e: Entry) -> UnsafeRawBufferPointer {
                    if e.keyCount > 0 { (k.baseAddress! + 8).copyMemory(from: e.key, byteCount: Int(e.keyCount)) }
                    return UnsafeRawBufferPointer(start: k.baseAddress, count: 8 + Int(e.keyCount))
                }
                // Past the database's last key (a new owner's collection, the
                // usual case): appended, pages filled.
                var append = true
                if let (last, _) = try cursor.move(MDB_LAST) {
                    let first = full(sorted[0])
                    let n = min(first.count, last.count)
                    let c = memcmp(first.baseAddress!, last.baseAddress!, n)
                    append = c > 0 || (c == 0 && first.count > last.count)
                }
                let flags = append ? UInt32(MDB_APPEND) : 0
                // The keys and values lie where they were put: fetched ahead.
                let ahead = 8
                for i in 0..<Swift.min(ahead, sorted.count) { fief_prefetch(sorted[i].key) }
                for (n, e) in sorted.enumerated() {
                    if n + ahead < sorted.count { fief_prefetch(sorted[n + ahead].key) }
                    if e.isDeleted {
                        if !e.storedBefore { continue }
                        var kv = LMDB.val(full(e))
                        let rc = mdb_cursor_get(cursor.pointer, &kv, nil, MDB_SET)
                        if rc == MDB_NOTFOUND { continue }
                        try LMDB.check(rc, "deleting a collection entry")
                        try LMDB.check(mdb_cursor_del(cursor.pointer, 0), "deleting a collection entry")
                        continue
                    }
                    let fullKey = full(e)
                    var kv = LMDB.val(fullKey)
                    let count = Int(e.valueCount)
                    // Reserved, then the value (and a map's checksum, `EntrySeal`) written in place.
                    var vv = MDB_val(mv_size: count + (sealed ? EntrySeal.bytes : 0), mv_data: nil)
                    try LMDB.check(mdb_cursor_put(cursor.pointer, &kv, &vv, flags | UInt32(MDB_RESERVE)), "writing a collection entry")
                    if count > 0 { vv.mv_data.copyMemory(from: e.value!, byteCount: count) }
                    if sealed {
                        let sum = EntrySeal.checksum(table: table, database: column, key: fullKey, e.valueBytes)
                        vv.mv_data.storeBytes(of: sum.littleEndian, toByteOffset: count, as: UInt32.self)
                    }
                }
            }
        }
        entries = []
        slots = [UInt64](repeating: 0, count: 16)
        return changes
    }

    /// What the entries change: keys put and not stored before are
    /// inserted, keys deleted and stored before deleted, keys put and
    /// stored before modified (a delete of a key never stored is nothing);
    /// a collection empty at the start that holds something now is
    /// `filled` (its keys not listed: the commit of 100,000 new keys
    /// records a few bytes).
    public static func changes(of sorted: [Entry], emptyAtStart: Bool) -> EntryChanges {
        var changes = EntryChanges()
        if emptyAtStart {
            changes.filled = sorted.contains { !$0.isDeleted }
            return changes
        }
        for e in sorted {
            if e.isDeleted {
                if e.storedBefore { changes.deleted.append(e.keyBytes) }
            } else if e.storedBefore {
                changes.modified.append(e.keyBytes)
            } else {
                changes.inserted.append(e.keyBytes)
            }
        }
        return changes
    }

    /// What the entries change, the table left as it is.
    public func changes() -> EntryChanges { EntryTable.changes(of: emptyAtStart ? entries : sortedEntries(), emptyAtStart: emptyAtStart) }
}

/// The entry tables of a write transaction, one per set or map changed
/// and not written yet, the last one used at hand.
public final class EntryTables {
    public private(set) var tables: [ListID: EntryTable] = [:]
    public init() {}
    @usableFromInline var last: (id: ListID, table: EntryTable)?
    private var untilCheck = 1024

    public var isEmpty: Bool { tables.isEmpty }

    @inlinable @inline(__always)
    public subscript(id: ListID) -> EntryTable? {
        if let last, last.id == id { return last.table }
        guard let found = tables[id] else { return nil }
        last = (id, found)
        return found
    }

    /// A new table for collection `id`, counted in `totalBytes`.
    public func make(_ id: ListID, dbi: MDB_dbi, sealed: Bool, emptyAtStart: Bool) -> EntryTable {
        let table = EntryTable(dbi: dbi, sealed: sealed, emptyAtStart: emptyAtStart, in: self)
        tables[id] = table
        last = (id, table)
        return table
    }

    public func remove(_ id: ListID) -> EntryTable? {
        if last?.id == id { last = nil }
        guard let table = tables.removeValue(forKey: id) else { return nil }
        totalBytes -= table.bytes
        return table
    }

    /// The tables whose ids `body` selects, taken out, in key order
    /// (class, property, owner: each database's keys ascending).
    public func take(where body: (ListID) -> Bool = { _ in true }) -> [(id: ListID, table: EntryTable)] {
        var taken: [(id: ListID, table: EntryTable)] = []
        for (id, table) in tables where body(id) { taken.append((id, table)) }
        for (id, table) in taken { tables[id] = nil; totalBytes -= table.bytes }
        last = nil
        taken.sort { ($0.id.table, $0.id.column, $0.id.owner) < ($1.id.table, $1.id.column, $1.id.owner) }
        return taken
    }

    /// About how many bytes the tables hold.
    public internal(set) var totalBytes = 0

    /// Count one change; whether the tables are past `budget` now (looked
    /// at every 1,024 changes).
    @inline(__always)
    public func noteChanged(budget: Int) -> Bool {
        untilCheck -= 1
        if untilCheck > 0 { return false }
        untilCheck = 1024
        return totalBytes > budget
    }

    /// The collection whose table holds the most bytes.
    public var largest: ListID? { tables.max { $0.value.bytes < $1.value.bytes }.map(\.key) }
}
