/// What a write transaction changed and has not written yet, per LMDB
/// database, written at commit (or earlier, by a *settle*) in key order
/// (see design.md, "The write buffer").  Storage-pure: keys are integers,
/// and what a database's buffer means is up to the code that writes that
/// database (`Backlinks.settle` for backlink deltas).
///
/// Built so far: backlink *deltas* and *pair drops*, and *link removals*
/// from lists the transaction has not loaded.  Chunks and list segments
/// are still kept by `WriteTransaction` itself (`dirty`, `lists`); set and
/// map entries are not buffered yet.
final class WriteBuffer {
    /// The budget a new buffer gets (64 MiB); settable for tests.
    nonisolated(unsafe) static var defaultBudget = 64 << 20

    /// Past this many bytes buffered, the largest database buffer is
    /// settled (`isOverBudget`, `largestDatabase`).
    var budget = WriteBuffer.defaultBudget

    /// The deltas per database (its `MDB_dbi`), made on first use.
    private(set) var deltaTables: [UInt32: DeltaTable] = [:]
    @exclusivity(unchecked) private var lastDatabase: UInt32 = .max
    @exclusivity(unchecked) private var lastTable: DeltaTable?

    /// The delta table of database `dbi` (made on first use).
    @inline(__always)
    func deltas(_ dbi: UInt32) -> DeltaTable {
        if dbi == lastDatabase, let lastTable { return lastTable }
        let table: DeltaTable
        if let known = deltaTables[dbi] {
            table = known
        } else {
            table = DeltaTable()
            deltaTables[dbi] = table
        }
        lastDatabase = dbi
        lastTable = table
        return table
    }

    /// The delta table of database `dbi` if it holds anything to write.
    @inline(__always)
    func pendingDeltas(_ dbi: UInt32) -> DeltaTable? {
        if dbi == lastDatabase, let lastTable { return lastTable.isEmpty ? nil : lastTable }
        guard let table = deltaTables[dbi], !table.isEmpty else { return nil }
        return table
    }

    /// Forget what database `dbi`'s buffer holds (it was written, or the
    /// database was dropped).
    func discard(_ dbi: UInt32) {
        deltaTables[dbi]?.removeAll()
    }

    /// The databases whose buffers hold something, ascending.
    var pendingDatabases: [UInt32] { deltaTables.filter { !$0.value.isEmpty }.keys.sorted() }

    /// About how many bytes the buffers hold.
    var bytes: Int { deltaTables.values.reduce(0) { $0 + $1.bytes } }

    private var untilCheck = 1024

    /// Count one delta added; whether the buffers are past the budget now
    /// (looked at every 1,024 deltas).
    @inline(__always)
    func noteAdded() -> Bool {
        untilCheck -= 1
        if untilCheck > 0 { return false }
        untilCheck = 1024
        return bytes > budget
    }

    /// The database whose buffer holds the most bytes.
    var largestDatabase: UInt32? { deltaTables.max { $0.value.bytes < $1.value.bytes }.map(\.key) }

    // MARK: Link removals

    /// A list: class, property and owner object.
    struct ListKey: Hashable {
        var table: UInt32
        var column: UInt32
        var owner: Int64
    }

    /// A link to a deleted object, still to be taken out of a stored list
    /// the transaction has not loaded; `sizeBefore`: the list's size
    /// before this removal.
    struct LinkRemoval {
        var list: ListKey
        var target: Int64
        var sizeBefore: Int
        /// Taken for its list, loaded since (`takeLinkRemovals(of:)`).
        var taken = false
    }

    /// In the order they were made; those of one list found through
    /// `removalIndex`, made on the first `takeLinkRemovals(of:)`.
    private(set) var linkRemovals: [LinkRemoval] = []
    private var removalIndex: [ListKey: [Int]]?
    private var takenRemovals = 0

    var hasLinkRemovals: Bool { linkRemovals.count > takenRemovals }

    func removeLink(from list: ListKey, target: Int64, sizeBefore: Int) {
        if removalIndex != nil { removalIndex![list, default: []].append(linkRemovals.count) }
        linkRemovals.append(LinkRemoval(list: list, target: target, sizeBefore: sizeBefore))
    }

    /// The removals pending for `list`, in order; they are no longer pending.
    func takeLinkRemovals(of list: ListKey) -> [LinkRemoval] {
        if removalIndex == nil {
            var made: [ListKey: [Int]] = [:]
            for i in linkRemovals.indices where !linkRemovals[i].taken { made[linkRemovals[i].list, default: []].append(i) }
            removalIndex = made
        }
        guard let indices = removalIndex!.removeValue(forKey: list) else { return [] }
        var taken: [LinkRemoval] = []
        for i in indices {
            taken.append(linkRemovals[i])
            linkRemovals[i].taken = true
        }
        takenRemovals += indices.count
        return taken
    }

    /// Every pending removal, in the order made; none is pending afterwards.
    func takeLinkRemovals() -> [LinkRemoval] {
        let pending = takenRemovals == 0 ? linkRemovals : linkRemovals.filter { !$0.taken }
        linkRemovals = []
        removalIndex = nil
        takenRemovals = 0
        return pending
    }

    /// Forget the removals pending for the lists of one property (its
    /// lists went with their owners).
    func discardLinkRemovals(table: UInt32, column: UInt32) {
        var kept = takeLinkRemovals()
        kept.removeAll { $0.list.table == table && $0.list.column == column }
        linkRemovals = kept
    }
}

/// Count changes to 24-byte keys (a, b, c), coalesced: an open-addressing
/// table on the key over a dense array of deltas.  `b` of a key whose
/// first 8 bytes are `a` orders as the key's next 8 bytes (big-endian
/// order of the integers gives LMDB's order).  Deltas of one `a` are found
/// through a chain by `a`, made on the first such read.  A whole `b`
/// may also be *dropped*: every stored key with that `b` goes.
final class DeltaTable {
    struct Delta {
        var a: UInt64
        var b: UInt64
        var c: UInt64
        var change: Int32
        /// The previous delta of the same `a` (-1: none), once chained.
        var next: Int32

        @inline(__always)
        func precedes(_ o: Delta) -> Bool {
            if a != o.a { return a < o.a }
            if b != o.b { return b < o.b }
            return c < o.c
        }
    }

    private(set) var deltas: [Delta] = []
    /// Slots: index into `deltas` + 1 (0: empty).
    private var slots: [Int32] = Array(repeating: 0, count: 1024)
    private var mask = 1023
    /// The last delta of each `a` (made by the first `forEach(a:)`).
    private var heads: [UInt64: Int32]?
    /// Values of `b` whose stored keys all go.
    private(set) var droppedB: [UInt64] = []

    var isEmpty: Bool { deltas.isEmpty && droppedB.isEmpty }
    var count: Int { deltas.count }
    /// About the bytes held: a delta, its slots and its chain entry.
    var bytes: Int { deltas.count * (MemoryLayout<Delta>.stride + 8 + (heads == nil ? 0 : 16)) }

    @inline(__always)
    private func slot(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> Int {
        let h = (a &* 0x9E37_79B9_7F4A_7C15) ^ (b &* 0xC2B2_AE3D_27D4_EB4F) ^ (c &* 0x1656_67B1_9E37_79F9)
        return Int(truncatingIfNeeded: (h ^ (h >> 29)) >> 7) & mask
    }

    /// Add `change` to the count of key (a, b, c).
    @inline(__always)
    func add(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ change: Int32) {
        var i = slot(a, b, c)
        while true {
            let s = slots[i]
            if s == 0 { break }
            let d = Int(s) - 1
            if deltas[d].a == a && deltas[d].b == b && deltas[d].c == c {
                deltas[d].change &+= change
                return
            }
            i = (i + 1) & mask
        }
        var next: Int32 = -1
        if heads != nil {
            next = heads![a] ?? -1
            heads![a] = Int32(deltas.count)
        }
        deltas.append(Delta(a: a, b: b, c: c, change: change, next: next))
        slots[i] = Int32(deltas.count)
        if deltas.count * 2 > mask { grow() }
    }

    private func grow() {
        let size = (mask + 1) * 2
        slots = Array(repeating: 0, count: size)
        mask = size - 1
        for d in deltas.indices {
            var i = slot(deltas[d].a, deltas[d].b, deltas[d].c)
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(d + 1)
        }
    }

    /// Every delta of `a` (change 0 included), in no order.
    func forEach<E: Error>(a: UInt64, _ body: (Delta) throws(E) -> Void) throws(E) {
        if heads == nil {
            var made: [UInt64: Int32] = [:]
            made.reserveCapacity(deltas.count)
            for d in deltas.indices {
                deltas[d].next = made[deltas[d].a] ?? -1
                made[deltas[d].a] = Int32(d)
            }
            heads = made
        }
        var d = heads![a] ?? -1
        while d >= 0 {
            try body(deltas[Int(d)])
            d = deltas[Int(d)].next
        }
    }

    /// The deltas of `a`, sorted, without those that changed nothing.
    func sorted(a: UInt64) -> [Delta] {
        var found: [Delta] = []
        forEach(a: a) { if $0.change != 0 { found.append($0) } }
        found.sort { $0.precedes($1) }
        return found
    }

    /// The deltas of `a` count no more (their key was written or went).
    func clear(a: UInt64) {
        guard !deltas.isEmpty else { return }
        forEach(a: a) { _ in }
        var d = heads![a] ?? -1
        while d >= 0 {
            deltas[Int(d)].change = 0
            d = deltas[Int(d)].next
        }
    }

    /// Every stored key with this `b` goes, and every delta with it.
    func drop(b: UInt64) {
        if !droppedB.contains(b) { droppedB.append(b) }
        for d in deltas.indices where deltas[d].b == b { deltas[d].change = 0 }
    }

    /// Every delta that changes something, sorted.
    func sorted() -> [Delta] {
        var all = deltas.filter { $0.change != 0 }
        all.sort { $0.precedes($1) }
        return all
    }

    func removeAll() {
        deltas = []
        slots = Array(repeating: 0, count: 1024)
        mask = 1023
        heads = nil
        droppedB = []
    }
}
