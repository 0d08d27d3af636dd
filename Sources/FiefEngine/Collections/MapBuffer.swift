import CLMDB
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
final class PendingMap {
    struct Entry {
        var prefix: UInt64        // the key's first 8 bytes, big-endian, zero-padded: orders most keys
        var keyOffset: Int32
        var keyCount: Int32
        var valueOffset: Int32
        var valueCount: Int32
    }

    private(set) var entries: [Entry] = []
    private var arena: [UInt8] = []
    private var slots: [Int32] = Array(repeating: -1, count: 64)

    var isEmpty: Bool { entries.isEmpty }

    @inline(__always)
    private static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    @inline(__always)
    private static func prefix(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var p: UInt64 = 0
        for i in 0..<8 { p = p << 8 | UInt64(i < key.count ? key[i] : 0) }
        return p
    }

    private func keyBytes(_ e: Entry, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        arena.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(e.keyOffset)..<Int(e.keyOffset + e.keyCount)])) }
    }

    /// The slot of `key` (holding -1 when it is not there).
    private func slot(_ key: UnsafeRawBufferPointer) -> Int {
        let mask = slots.count - 1
        var i = PendingMap.hash(key) & mask
        while slots[i] >= 0 {
            let e = entries[Int(slots[i])]
            if Int(e.keyCount) == key.count && keyBytes(e, { $0.elementsEqual(key) }) { return i }
            i = (i + 1) & mask
        }
        return i
    }

    /// The coded value set for `key`, if any (a copy).
    func value(_ key: UnsafeRawBufferPointer) -> [UInt8]? {
        let s = slot(key)
        guard slots[s] >= 0 else { return nil }
        let e = entries[Int(slots[s])]
        return Array(arena[Int(e.valueOffset)..<Int(e.valueOffset + e.valueCount)])
    }

    /// Set `key` to coded `value`; true when the key is new.
    func set(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool {
        let s = slot(key)
        let valueOffset = Int32(arena.count)
        arena.append(contentsOf: value)
        if slots[s] >= 0 {
            entries[Int(slots[s])].valueOffset = valueOffset
            entries[Int(slots[s])].valueCount = Int32(value.count)
            return false
        }
        let keyOffset = Int32(arena.count)
        arena.append(contentsOf: key)
        entries.append(Entry(prefix: PendingMap.prefix(key), keyOffset: keyOffset, keyCount: Int32(key.count),
                             valueOffset: valueOffset, valueCount: Int32(value.count)))
        slots[s] = Int32(entries.count - 1)
        if entries.count * 2 > slots.count { grow() }
        return true
    }

    private func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, e) in entries.enumerated() {
            var i = arena.withUnsafeBytes { PendingMap.hash(UnsafeRawBufferPointer(rebasing: $0[Int(e.keyOffset)..<Int(e.keyOffset + e.keyCount)])) } & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(index)
        }
    }

    /// Store every entry in map `owner`'s database `dbi`, in key order.
    /// None of the keys is stored yet (see the type's comment).
    func store(_ txn: OpaquePointer, _ dbi: MDB_dbi, owner: Int64) throws(FiefError) {
        if entries.isEmpty { return }
        try typed { try arena.withUnsafeBytes { (arena) throws in
            let base = arena.baseAddress!
            func less(_ a: Entry, _ b: Entry) -> Bool {
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let n = min(a.keyCount, b.keyCount)
                let c = memcmp(base + Int(a.keyOffset), base + Int(b.keyOffset), Int(n))
                return c != 0 ? c < 0 : a.keyCount < b.keyCount
            }
            let sorted = entries.sorted(by: less)
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
                for e in sorted {
                    var kv = LMDB.val(full(e))
                    var vv = MDB_val(mv_size: Int(e.valueCount), mv_data: UnsafeMutableRawPointer(mutating: base + Int(e.valueOffset)))
                    try LMDB.check(mdb_cursor_put(cursor.pointer, &kv, &vv, append ? UInt32(MDB_APPEND) : 0), "writing a map")
                }
            }
        } }
    }
}

extension Realm {
    /// Set `key` of a map of values through the transaction's buffer
    /// (`PendingMap`); false when the map is not buffered (a map that was
    /// not empty at its first set, or of links or mixed values): the caller
    /// writes it to LMDB.
    func bufferMapSet(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64, _ key: UnsafeRawBufferPointer,
                      _ value: Value) throws(FiefError) -> Bool {
        if column.elementType == .link || column.elementType == .mixed { return false }
        let id = ListID(table: table.key, column: column.key, owner: owner)
        let pending: PendingMap
        if let known = write.pendingMaps[id] {
            pending = known
        } else {
            guard try collectionSize(table, column, owner) == 0 else { return false }
            pending = PendingMap()
            write.pendingMaps[id] = pending
        }
        if let old = pending.value(key), let decoded = old.withUnsafeBytes({ MixedCoding.decode($0) }), decoded.isSame(as: value) { return true }
        MixedCoding.encode(value, into: &write.entryValue)
        forgetCollectionEntries(write)
        let added = write.entryValue.withUnsafeBytes { pending.set(key, $0) }
        if added { try setCollectionSize(write, table, column, owner, try collectionSize(table, column, owner) + 1) }
        noteColumnChange(table.key, column.key)
        return true
    }

    /// Store the buffered keys of map `id`, if any.
    func flushPendingMap(_ write: WriteTransaction, _ id: ListID) throws(FiefError) {
        guard let pending = write.pendingMaps.removeValue(forKey: id) else { return }
        try storePending(write, id, pending)
    }

    /// Store every map's buffered keys (at commit, and before the
    /// transaction's schema changes).
    func flushPendingMaps(_ write: WriteTransaction) throws(FiefError) {
        if write.pendingMaps.isEmpty { return }
        let all = write.pendingMaps.sorted { ($0.key.table, $0.key.column, $0.key.owner) < ($1.key.table, $1.key.column, $1.key.owner) }
        write.pendingMaps = [:]
        for (id, pending) in all { try storePending(write, id, pending) }
    }

    private func storePending(_ write: WriteTransaction, _ id: ListID, _ pending: PendingMap) throws(FiefError) {
        // An owner deleted since had its map cleared (which stored the buffer first): nothing here then.
        guard let table = try? self.table(id.table), let column = try? table.column(id.column), column.collection == .map,
              try isLive(table, id.owner) else { return }
        forgetCollectionEntries(write)
        try pending.store(write.txn, try table.mapDatabase(id.column), owner: id.owner)
    }
}
