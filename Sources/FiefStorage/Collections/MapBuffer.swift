import CLMDB
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

/// The keys set in a map of values that was empty when this write
/// transaction first set one: kept in memory (an arena and an open-addressing
/// hash table) and stored at once, sorted, with one cursor, when anything
/// else reads or writes the map or the transaction commits.
///
/// Why: a map's entries are LMDB keys (owner + map key) that arrive in no
/// order; each put is a descent of LMDB's tree to a random page (about
/// 0.8 µs at 100,000 keys), more than SQLite's insert into its index.  Sorted,
/// the puts follow each other on the same pages (or are appended past the
/// database's last key, which fills pages), several times faster.
///
/// Exactness: only maps of values (no links, no mixed values: nothing else
/// to keep in step) that were empty at the first set are buffered, so every
/// key set is either in the buffer or new: the map's size column is kept
/// exact at every set, and a key set again replaces its value in the buffer
/// (or changes nothing when the value is the same, as a stored one would).
/// Every other access to the map's entries stores the buffer first
/// (`collectionEntries`, `mapValue`, removes, clears, deletions), and so
/// does the commit.
public final class PendingMap {
    public struct Entry {
        public var prefix: UInt64        // the key's first 8 bytes, big-endian, zero-padded: orders most keys
        public var keyOffset: Int32
        public var keyCount: Int32
        public var valueOffset: Int32
        public var valueCount: Int32
    }

    public private(set) var entries: [Entry] = []
    private var arena: [UInt8] = []
    /// Open addressing: entry index + 1 (0: empty) in the low half, the
    /// key's hash in the high half.
    private var slots = [UInt64](repeating: 0, count: 64)

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

    public enum Outcome { case added, replaced, unchanged }

    /// Set `key` to coded `value`, unless the key holds a value `same`
    /// says is the same.
    public func set(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, same: (UnsafeRawBufferPointer) -> Bool) -> Outcome {
        let h = PendingMap.hash(key)
        let mask = slots.count - 1
        var i = Int(h) & mask
        let found: Int? = arena.withUnsafeBytes { (arena) -> Int? in
            while slots[i] != 0 {
                let s = slots[i]
                if UInt32(truncatingIfNeeded: s >> 32) == h {
                    let e = entries[Int(UInt32(truncatingIfNeeded: s)) - 1]
                    if Int(e.keyCount) == key.count && (key.isEmpty || memcmp(arena.baseAddress! + Int(e.keyOffset), key.baseAddress!, key.count) == 0) {
                        return Int(UInt32(truncatingIfNeeded: s)) - 1
                    }
                }
                i = (i + 1) & mask
            }
            return nil
        }
        if let found {
            let e = entries[found]
            let isSame = arena.withUnsafeBytes { same(UnsafeRawBufferPointer(rebasing: $0[Int(e.valueOffset)..<Int(e.valueOffset + e.valueCount)])) }
            if isSame { return .unchanged }
            entries[found].valueOffset = Int32(arena.count)
            entries[found].valueCount = Int32(value.count)
            arena.append(contentsOf: value)
            return .replaced
        }
        let keyOffset = Int32(arena.count)
        arena.append(contentsOf: key)
        arena.append(contentsOf: value)
        entries.append(Entry(prefix: PendingMap.prefix(key), keyOffset: keyOffset, keyCount: Int32(key.count),
                             valueOffset: keyOffset + Int32(key.count), valueCount: Int32(value.count)))
        slots[i] = UInt64(h) << 32 | UInt64(entries.count)
        if entries.count * 2 > slots.count { grow() }
        return .added
    }

    private func grow() {
        var bigger = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for s in slots where s != 0 {
            var i = Int(UInt32(truncatingIfNeeded: s >> 32)) & mask
            while bigger[i] != 0 { i = (i + 1) & mask }
            bigger[i] = s
        }
        slots = bigger
    }

    /// The entries in key order: a radix sort on their 8-byte prefixes
    /// (the entries themselves moved, so the walk that stores them reads
    /// them in order), then runs of equal prefixes by their whole keys.
    private func sortedEntries(_ arena: UnsafeRawBufferPointer) -> [Entry] {
        let n = entries.count
        var a = entries
        var b = entries
        var counts = [Int](repeating: 0, count: 256)
        for pass in 0..<8 {
            let shift = UInt64(pass * 8)
            // A byte all keys share needs no pass.
            let first = (a[0].prefix >> shift) & 0xff
            if !a.contains(where: { ($0.prefix >> shift) & 0xff != first }) { continue }
            for i in 0..<256 { counts[i] = 0 }
            for e in a { counts[Int((e.prefix >> shift) & 0xff)] += 1 }
            var total = 0
            for i in 0..<256 { let c = counts[i]; counts[i] = total; total += c }
            for e in a {
                let byte = Int((e.prefix >> shift) & 0xff)
                b[counts[byte]] = e
                counts[byte] += 1
            }
            swap(&a, &b)
        }
        let base = arena.baseAddress!
        var j = 0
        while j < n {
            var k = j + 1
            while k < n && a[k].prefix == a[j].prefix { k += 1 }
            if k - j > 1 {
                a[j..<k].sort { (x, y) in
                    let c = memcmp(base + Int(x.keyOffset), base + Int(y.keyOffset), Int(min(x.keyCount, y.keyCount)))
                    return c != 0 ? c < 0 : x.keyCount < y.keyCount
                }
            }
            j = k
        }
        return a
    }

    /// Store every entry in map `owner`'s database `dbi`, in key order.
    /// None of the keys is stored yet (see the type's comment).
    public func store(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, column: UInt32, owner: Int64) throws(FiefError) {
        if entries.isEmpty { return }
        try typed { try arena.withUnsafeBytes { (arena) throws in
            let base = arena.baseAddress!
            let sorted = sortedEntries(arena)
            let cursor = try LMDBCursor(txn, dbi)
            var key = [UInt8](repeating: 0, count: 8 + MapStore.maxKeyBytes)
            try key.withUnsafeMutableBytes { (k) throws in
                k.storeBytes(of: UInt64(bitPattern: owner).bigEndian, as: UInt64.self)
                func full(_ e: Entry) -> UnsafeRawBufferPointer {
                    (k.baseAddress! + 8).copyMemory(from: base + Int(e.keyOffset), byteCount: Int(e.keyCount))
                    return UnsafeRawBufferPointer(start: k.baseAddress, count: 8 + Int(e.keyCount))
                }
                // Past the database's last key (a new owner's map, the usual
                // case): appended, pages filled.
                var append = true
                if let (last, _) = try cursor.move(MDB_LAST) {
                    let first = full(sorted[0])
                    let n = min(first.count, last.count)
                    let c = memcmp(first.baseAddress!, last.baseAddress!, n)
                    append = c > 0 || (c == 0 && first.count > last.count)
                }
                let flags = append ? UInt32(MDB_APPEND) : 0
                let ahead = 8
                for i in 0..<min(ahead, sorted.count) { fief_prefetch(base + Int(sorted[i].keyOffset)) }
                for i in 0..<sorted.count {
                    if i + ahead < sorted.count { fief_prefetch(base + Int(sorted[i + ahead].keyOffset)) }
                    let e = sorted[i]
                    let fullKey = full(e)
                    var kv = LMDB.val(fullKey)
                    // Reserved, then the value and its checksum (`EntrySeal`) written in place.
                    let count = Int(e.valueCount)
                    var vv = MDB_val(mv_size: count + EntrySeal.bytes, mv_data: nil)
                    try LMDB.check(mdb_cursor_put(cursor.pointer, &kv, &vv, flags | UInt32(MDB_RESERVE)), "writing a map")
                    let value = UnsafeRawBufferPointer(start: base + Int(e.valueOffset), count: count)
                    vv.mv_data.copyMemory(from: value.baseAddress!, byteCount: count)
                    let sum = EntrySeal.checksum(table: table, database: column, key: fullKey, value)
                    vv.mv_data.storeBytes(of: sum.littleEndian, toByteOffset: count, as: UInt32.self)
                }
            }
        } }
    }
    
    public init() {}
}

/// The buffered maps of a write transaction, the last one used at hand.
public final class PendingMaps {
    public private(set) var maps: [ListID: PendingMap] = [:]
    @usableFromInline var last: (id: ListID, map: PendingMap)?

    public var isEmpty: Bool { maps.isEmpty }

    @inlinable @inline(__always)
    public subscript(id: ListID) -> PendingMap? {
        if let last, last.id == id { return last.map }
        guard let found = maps[id] else { return nil }
        last = (id, found)
        return found
    }

    public func add(_ id: ListID, _ map: PendingMap) {
        maps[id] = map
        last = (id, map)
    }

    public func remove(_ id: ListID) -> PendingMap? {
        if last?.id == id { last = nil }
        return maps.removeValue(forKey: id)
    }

    public func removeAll() -> [ListID: PendingMap] {
        let all = maps
        maps = [:]
        last = nil
        return all
    }
}
