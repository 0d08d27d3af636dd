/// What a write transaction changed and has not written yet, per LMDB
/// database, written at commit (or earlier, by a *settle*) in key order
/// (see design.md, "The write buffer").  Storage-pure: keys are integers,
/// and what a database's buffer means is up to the code that writes that
/// database (`Backlinks.settle` for backlink deltas).
///
/// It holds backlink *deltas* and *pair drops* (per database), *link
/// removals* from lists the transaction has not loaded (per owner list),
/// and set and map *entries* (`entries`: an `EntryTable` per collection).
/// Chunks and list segments are kept by `WriteTransaction` itself (`dirty`,
/// `lists`).
public final class WriteBuffer {
    /// The set and map entries put or deleted and not written yet.
    public let entries = EntryTables()
    /// What the transaction changed in each set or map, as far as written
    /// (an entry table adds its changes when it is written, a clear marks
    /// its collection): the commit's change record takes them.
    public private(set) var entryChanges: [ListID: EntryChanges] = [:]

    /// Add `changes` to collection `id`'s (after what it changed before).
    public func noteEntryChanges(_ id: ListID, _ changes: EntryChanges) {
        if changes.isEmpty { return }
        if entryChanges[id] == nil { entryChanges[id] = changes } else { entryChanges[id]!.append(changes) }
    }

    /// What the transaction did to each list, gathered at commit from the
    /// lists it loaded and from the walk storing link removals (a list is
    /// either loaded or has removals pending, never both: each comes once),
    /// encoded as gathered.
    public private(set) var listChanges = ListRecords()

    /// List `id`'s changes (once per list, at commit).
    public func noteListChanges(_ id: ListID, _ changes: ListChanges) {
        if changes.isEmpty { return }
        listChanges.append(id, changes)
    }

    /// Forget the changes of every collection of class `table` (its objects
    /// were all deleted: the class's record says so).
    public func forgetEntryChanges(table: UInt32) {
        if entryChanges.isEmpty { return }
        entryChanges = entryChanges.filter { $0.key.table != table }
    }

    /// The budget a new buffer gets (64 MiB); settable for tests.
    public nonisolated(unsafe) static var defaultBudget = 64 << 20

    /// Past this many bytes buffered, the largest database buffer is
    /// settled (`noteAdded`, `largestDatabase`).
    public var budget = WriteBuffer.defaultBudget

    /// The deltas per database (its `MDB_dbi`), made on first use.
    public private(set) var deltaTables: [UInt32: DeltaTable] = [:]
    @exclusivity(unchecked) private var lastDatabase: UInt32 = .max
    @exclusivity(unchecked) private var lastTable: DeltaTable?

    /// The delta table of database `dbi` (made on first use).
    @inline(__always)
    public func deltas(_ dbi: UInt32) -> DeltaTable {
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
    public func pendingDeltas(_ dbi: UInt32) -> DeltaTable? {
        if dbi == lastDatabase, let lastTable { return lastTable.isEmpty ? nil : lastTable }
        guard let table = deltaTables[dbi], !table.isEmpty else { return nil }
        return table
    }

    /// Forget what database `dbi`'s buffer holds (it was written, or the
    /// database was dropped).
    public func discard(_ dbi: UInt32) {
        deltaTables[dbi]?.removeAll()
    }

    /// The databases whose buffers hold something, ascending.
    public var pendingDatabases: [UInt32] { deltaTables.filter { !$0.value.isEmpty }.keys.sorted() }

    /// About how many bytes the buffers hold.
    public var bytes: Int { deltaTables.values.reduce(0) { $0 + $1.bytes } }

    private var untilCheck = 1024

    /// Count one delta added; whether the buffers are past the budget now
    /// (looked at every 1,024 deltas).
    @inline(__always)
    public func noteAdded() -> Bool {
        untilCheck -= 1
        if untilCheck > 0 { return false }
        untilCheck = 1024
        return bytes > budget
    }

    /// The database whose buffer holds the most bytes.
    public var largestDatabase: UInt32? { deltaTables.max { $0.value.bytes < $1.value.bytes }.map(\.key) }

    // MARK: Link removals

    /// A list: class, property and owner object.
    public struct ListKey: Hashable {
        public var table: UInt32
        public var column: UInt32
        public var owner: Int64
        public init(table: UInt32, column: UInt32, owner: Int64) { self.table = table; self.column = column; self.owner = owner }
    }

    /// A link to a deleted object, still to be taken out of a stored list
    /// the transaction has not loaded; `sizeBefore`: the list's size
    /// before this removal.
    public struct LinkRemoval {
        public var list: ListKey
        public var target: Int64
        public var sizeBefore: Int
        /// Taken for its list, loaded since (`takeLinkRemovals(of:)`).
        public var taken = false
    }

    /// In the order they were made; those of one list found through
    /// `removalIndex`, made on the first `takeLinkRemovals(of:)`.
    public private(set) var linkRemovals: [LinkRemoval] = []
    private var removalIndex: [ListKey: [Int]]?
    private var takenRemovals = 0

    public var hasLinkRemovals: Bool { linkRemovals.count > takenRemovals }

    public func removeLink(from list: ListKey, target: Int64, sizeBefore: Int) {
        if removalIndex != nil { removalIndex![list, default: []].append(linkRemovals.count) }
        linkRemovals.append(LinkRemoval(list: list, target: target, sizeBefore: sizeBefore))
    }

    /// The removals pending for `list`, in order; they are no longer pending.
    public func takeLinkRemovals(of list: ListKey) -> [LinkRemoval] {
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
    public func takeLinkRemovals() -> [LinkRemoval] {
        let pending = takenRemovals == 0 ? linkRemovals : linkRemovals.filter { !$0.taken }
        linkRemovals = []
        removalIndex = nil
        takenRemovals = 0
        return pending
    }

    /// Forget the removals pending for the lists of one property (its
    /// lists went with their owners).
    public func discardLinkRemovals(table: UInt32, column: UInt32) {
        var kept = takeLinkRemovals()
        kept.removeAll { $0.list.table == table && $0.list.column == column }
        linkRemovals = kept
    }
}

/// Count changes to 24-byte keys (a, b, c): appended as they come (no
/// lookup, no cursor: a backlink change costs a store), coalesced when
/// read: `sorted()` sorts them (a radix sort on `a`) and sums the changes
/// of each key.  `b` of a key whose first 8 bytes are `a` orders as the
/// key's next 8 bytes (big-endian order of the integers gives LMDB's
/// order).  Deltas of one `a` are found through a chain by `a`, made on the
/// first such read.  A whole `b` may also be *dropped*: every stored key
/// with that `b` goes.
public final class DeltaTable {
    public struct Delta {
        public var a: UInt64
        public var b: UInt64
        public var c: UInt64
        public var change: Int32
        /// The previous delta of the same `a` (-1: none), once chained.
        public var next: Int32

        @inline(__always)
        public func precedes(_ o: Delta) -> Bool {
            if a != o.a { return a < o.a }
            if b != o.b { return b < o.b }
            return c < o.c
        }

        @inline(__always)
        public func sameKey(_ o: Delta) -> Bool { a == o.a && b == o.b && c == o.c }
    }

    private var deltas: UnsafeMutablePointer<Delta>
    private var capacity = 256
    public private(set) var count = 0
    /// The last delta of each `a` (made by the first `forEach(a:)`).
    private var heads: [UInt64: Int32]?
    /// Values of `b` whose stored keys all go.
    public private(set) var droppedB: [UInt64] = []

    public init() {
        deltas = .allocate(capacity: capacity)
    }

    deinit { deltas.deallocate() }

    public var isEmpty: Bool { count == 0 && droppedB.isEmpty }
    /// About the bytes held: a delta and its chain entry.
    public var bytes: Int { count * (MemoryLayout<Delta>.stride + (heads == nil ? 0 : 16)) }

    /// Add `change` to the count of key (a, b, c).
    @inline(__always)
    public func add(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ change: Int32) {
        var next: Int32 = -1
        if heads != nil {
            next = heads![a] ?? -1
            heads![a] = Int32(count)
        }
        if count == capacity { grow() }
        (deltas + count).initialize(to: Delta(a: a, b: b, c: c, change: change, next: next))
        count += 1
    }

    @inline(never)
    private func grow() {
        let grown = UnsafeMutablePointer<Delta>.allocate(capacity: capacity * 2)
        grown.moveInitialize(from: deltas, count: count)
        deltas.deallocate()
        deltas = grown
        capacity *= 2
    }

    /// Every delta of `a` (change 0 included), in no order.
    public func forEach<E: Error>(a: UInt64, _ body: (Delta) throws(E) -> Void) throws(E) {
        if heads == nil {
            var made: [UInt64: Int32] = [:]
            made.reserveCapacity(count)
            for d in 0..<count {
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

    /// The deltas of `a`, sorted and summed per key, without those that
    /// change nothing.
    public func sorted(a: UInt64) -> [Delta] {
        var found: [Delta] = []
        forEach(a: a) { if $0.change != 0 { found.append($0) } }
        if found.count < 2 { return found }
        found.sort { $0.precedes($1) }
        var out: [Delta] = []
        DeltaTable.coalesce(found[...], into: &out)
        return out
    }

    /// Sorted deltas (`group`), each key's changes summed, appended to `out`
    /// when they change something.
    @inline(__always)
    private static func coalesce<C: RandomAccessCollection>(_ group: C, into out: inout [Delta]) where C.Element == Delta, C.Index == Int {
        var i = group.startIndex
        while i < group.endIndex {
            var d = group[i]
            i += 1
            while i < group.endIndex && group[i].sameKey(d) {
                d.change &+= group[i].change
                i += 1
            }
            if d.change != 0 { out.append(d) }
        }
    }

    /// The deltas of `a` count no more (their key was written or went).
    public func clear(a: UInt64) {
        guard count > 0 else { return }
        forEach(a: a) { _ in }
        var d = heads![a] ?? -1
        while d >= 0 {
            deltas[Int(d)].change = 0
            d = deltas[Int(d)].next
        }
    }

    /// Every stored key with this `b` goes, and every delta with it.
    public func drop(b: UInt64) {
        if !droppedB.contains(b) { droppedB.append(b) }
        for d in 0..<count where deltas[d].b == b { deltas[d].change = 0 }
    }

    /// Every key's summed change, sorted, without those that change
    /// nothing: by `a` with a radix sort of (a, index) packed in 64 bits
    /// when they fit (then by b and c among equal `a`s), else by comparison.
    public func sorted() -> [Delta] {
        var out: [Delta] = []
        guard count > 0 else { return out }
        out.reserveCapacity(count)
        var maxA = deltas[0].a
        var ordered = true
        for d in 1..<count {
            if deltas[d].precedes(deltas[d - 1]) { ordered = false }
            maxA = max(maxA, deltas[d].a)
        }
        if ordered {
            DeltaTable.coalesce(UnsafeBufferPointer(start: deltas, count: count), into: &out)
            return out
        }
        let indexBits = 64 - count.leadingZeroBitCount
        guard indexBits < 64, maxA >> UInt64(64 - indexBits) == 0 else {
            var all = Array(UnsafeBufferPointer(start: deltas, count: count))
            all.sort { $0.precedes($1) }
            DeltaTable.coalesce(all[...], into: &out)
            return out
        }
        var packed = [UInt64](unsafeUninitializedCapacity: count) { (buffer, n) in
            for i in 0..<count { buffer[i] = deltas[i].a << UInt64(indexBits) | UInt64(i) }
            n = count
        }
        DeltaTable.radixSort(&packed, bits: 64 - (maxA << UInt64(indexBits) | UInt64(count)).leadingZeroBitCount)
        let mask = UInt64(1) << UInt64(indexBits) - 1
        var group: [Delta] = []
        var i = 0
        while i < count {
            let first = deltas[Int(packed[i] & mask)]
            var j = i + 1
            while j < count && deltas[Int(packed[j] & mask)].a == first.a { j += 1 }
            if j - i == 1 {
                if first.change != 0 { out.append(first) }
            } else {
                // Equal `a`s (few, next to each other): by b and c, then summed.
                group.removeAll(keepingCapacity: true)
                for k in i..<j { group.append(deltas[Int(packed[k] & mask)]) }
                group.sort { $0.precedes($1) }
                DeltaTable.coalesce(group[...], into: &out)
            }
            i = j
        }
        return out
    }

    /// Sort `values`, whose bits above `bits` are 0: least significant
    /// digit first, 11 bits a pass.
    public static func radixSort(_ values: inout [UInt64], bits: Int) {
        var other = [UInt64](repeating: 0, count: values.count)
        var shift = 0
        var counts = [Int](repeating: 0, count: 2048)
        while shift < bits {
            for k in 0..<2048 { counts[k] = 0 }
            for v in values { counts[Int(truncatingIfNeeded: v >> UInt64(shift)) & 2047] += 1 }
            var sum = 0
            for k in 0..<2048 {
                let c = counts[k]
                counts[k] = sum
                sum += c
            }
            for v in values {
                let k = Int(truncatingIfNeeded: v >> UInt64(shift)) & 2047
                other[counts[k]] = v
                counts[k] += 1
            }
            swap(&values, &other)
            shift += 11
        }
    }

    public func removeAll() {
        count = 0
        heads = nil
        droppedB = []
    }
}
