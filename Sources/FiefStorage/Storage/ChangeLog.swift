import CLMDB
/// What one commit changed, or what several commits changed together
/// (issue 22, change records): per class, the objects inserted and deleted
/// and, per written column, the objects modified (`ObjectChanges`), each a
/// set of object keys held as bitmaps per cluster (`KeySet`).
///
/// The write transaction fills it as it writes, never by reading anything
/// back: every `DirtyChunk` of a column marks the slots `set` and `fill`
/// write (one OR per write, in the chunk's own allocation), every presence
/// chunk keeps its bitmap as stored before the transaction, and a class
/// emptied at once (`deleteAll(table:)`) is `ClassWrite.emptied`.  The
/// commit gathers them (`ChangeLog.record`): created = present now and not
/// before, deleted = present before and not now (so an object created and
/// deleted in the same transaction is neither), modified = written and
/// present before and after (a created object is not also modified).

/// A set of object keys: a bitmap of 256 slots per cluster, clusters in
/// ascending order (built in that order at commit and when decoded, so
/// adding is an append).
public struct KeySet: Equatable, Sendable {
    /// The clusters holding keys, ascending.
    public private(set) var clusters: [Int64] = []
    /// The slots of each cluster of `clusters` (never empty).
    public private(set) var slots: [Bitmap] = []

    public init() {}

    public init<S: Sequence>(_ keys: S) where S.Element == Int64 {
        for key in keys { insert(key) }
    }

    public var isEmpty: Bool { clusters.isEmpty }

    public var count: Int {
        slots.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    /// The position of `cluster` in `clusters`, or where it would go.
    func position(of cluster: Int64) -> (found: Bool, index: Int) {
        if let last = clusters.last, cluster > last { return (false, clusters.count) }
        var low = 0, high = clusters.count
        while low < high {
            let mid = (low + high) >> 1
            if clusters[mid] < cluster { low = mid + 1 } else { high = mid }
        }
        return (low < clusters.count && clusters[low] == cluster, low)
    }

    public func contains(_ key: Int64) -> Bool {
        let (found, index) = position(of: ClusterLayout.cluster(of: key))
        guard found else { return false }
        let slot = ClusterLayout.slot(of: key)
        return slots[index][slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    public mutating func insert(_ key: Int64) {
        let slot = ClusterLayout.slot(of: key)
        var bits = Bitmap(repeating: 0)
        bits[slot >> 6] = 1 << UInt64(slot & 63)
        add(bits, cluster: ClusterLayout.cluster(of: key))
    }

    /// Add the slots `bits` of `cluster` (an append when it is past the last).
    public mutating func add(_ bits: Bitmap, cluster: Int64) {
        if bits == Bitmap(repeating: 0) { return }
        let (found, index) = position(of: cluster)
        if found {
            slots[index] |= bits
        } else if index == clusters.count {
            clusters.append(cluster)
            slots.append(bits)
        } else {
            clusters.insert(cluster, at: index)
            slots.insert(bits, at: index)
        }
    }

    /// Merge with `other`, cluster by cluster: `combine` gives the slots
    /// kept from each side's slots (zero when a side lacks the cluster).
    private func merged(_ other: KeySet, _ combine: (Bitmap, Bitmap) -> Bitmap) -> KeySet {
        var result = KeySet()
        result.clusters.reserveCapacity(Swift.max(clusters.count, other.clusters.count))
        result.slots.reserveCapacity(Swift.max(clusters.count, other.clusters.count))
        let none = Bitmap(repeating: 0)
        var i = 0, j = 0
        while i < clusters.count || j < other.clusters.count {
            let cluster: Int64, bits: Bitmap
            if j == other.clusters.count || (i < clusters.count && clusters[i] < other.clusters[j]) {
                (cluster, bits) = (clusters[i], combine(slots[i], none))
                i += 1
            } else if i == clusters.count || other.clusters[j] < clusters[i] {
                (cluster, bits) = (other.clusters[j], combine(none, other.slots[j]))
                j += 1
            } else {
                (cluster, bits) = (clusters[i], combine(slots[i], other.slots[j]))
                i += 1
                j += 1
            }
            if bits != none {
                result.clusters.append(cluster)
                result.slots.append(bits)
            }
        }
        return result
    }

    public mutating func formUnion(_ other: KeySet) {
        if other.isEmpty { return }
        if isEmpty { self = other; return }
        self = merged(other) { $0 | $1 }
    }

    public mutating func subtract(_ other: KeySet) {
        if isEmpty || other.isEmpty { return }
        self = merged(other) { $0 & ~$1 }
    }

    public func intersection(_ other: KeySet) -> KeySet {
        merged(other) { $0 & $1 }
    }

    /// The keys, ascending.
    public var keys: [Int64] {
        var result: [Int64] = []
        for (cluster, bits) in zip(clusters, slots) {
            forEachSlot(bits) { result.append(cluster << ClusterLayout.shift | Int64($0)) }
        }
        return result
    }
}

extension Bitmap {
    @usableFromInline var nonzeroBitCount: Int {
        self[0].nonzeroBitCount + self[1].nonzeroBitCount + self[2].nonzeroBitCount + self[3].nonzeroBitCount
    }
}

/// Changes of the class's schema recorded with a commit.
public struct SchemaChange: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The class was added.
    public static let added = SchemaChange(rawValue: 1 << 1)
    /// The class was removed.
    public static let removed = SchemaChange(rawValue: 1 << 2)
    /// Its properties changed (added, removed or changed).
    public static let changed = SchemaChange(rawValue: 1 << 3)
}

/// The changes of one class: in one commit's record, or merged over a range
/// of commits (`History.changes`).
public struct ObjectChanges: Equatable, Sendable {
    /// Objects that exist after and did not before.
    public var inserted = KeySet()
    /// Objects that existed before and do not after (besides those of
    /// `cleared`).
    public var deleted = KeySet()
    /// Per column (property key): the objects that existed before and after
    /// whose value of that column was written.
    public var modified: [UInt32: KeySet] = [:]
    /// Every object of the class that existed before was deleted
    /// (`deleteAll(table:)`): they are not listed in `deleted`.
    public var cleared = false
    public var schema: SchemaChange = []
    /// Per link property of another class (origin class << 32 | origin
    /// property, `linkingPair`): the objects that existed before and after
    /// that gained or lost a linking object through it (a link to them made
    /// or removed, or an origin linking them deleted): their linking-objects
    /// property over that link changed.
    public var linkingObjects: [UInt64: KeySet] = [:]

    public init() {}

    /// The key of `linkingObjects` for link `property` of class `originClass`.
    public static func linkingPair(originClass: UInt32, property: UInt32) -> UInt64 {
        UInt64(originClass) << 32 | UInt64(property)
    }

    public var isEmpty: Bool {
        inserted.isEmpty && deleted.isEmpty && modified.isEmpty && !cleared && schema.isEmpty && linkingObjects.isEmpty
    }

    /// Whether some object that stays was written (a column, or its linking objects).
    public var hasModifications: Bool { !modified.isEmpty || !linkingObjects.isEmpty }

    /// The columns written of object `key` (ascending), empty when none.
    public func modifiedColumns(of key: Int64) -> [UInt32] {
        modified.keys.sorted().filter { modified[$0]!.contains(key) }
    }

    /// Every object modified, whatever the column.
    public var modifiedObjects: KeySet {
        var all = KeySet()
        for set in modified.values { all.formUnion(set) }
        return all
    }

    /// Every object these changes name: created, deleted or written.
    public var touchedObjects: KeySet {
        var all = modifiedObjects
        all.formUnion(inserted)
        all.formUnion(deleted)
        return all
    }

    /// These changes followed by `later` (the changes of a later commit).
    public mutating func append(_ later: ObjectChanges) {
        if later.cleared {
            self = ObjectChanges()
            cleared = true
        }
        // Deleted: objects inserted in the range vanish; older ones are deleted.
        var deletedOld = later.deleted
        deletedOld.subtract(inserted)
        inserted.subtract(later.deleted)
        deleted.formUnion(deletedOld)
        for column in Array(modified.keys) {
            modified[column]!.subtract(later.deleted)
            if modified[column]!.isEmpty { modified[column] = nil }
        }
        for pair in Array(linkingObjects.keys) {
            linkingObjects[pair]!.subtract(later.deleted)
            if linkingObjects[pair]!.isEmpty { linkingObjects[pair] = nil }
        }
        // Modified: objects inserted in the range stay inserted only.
        for (column, keys) in later.modified {
            var keys = keys
            keys.subtract(inserted)
            if keys.isEmpty { continue }
            modified[column, default: KeySet()].formUnion(keys)
        }
        for (pair, keys) in later.linkingObjects {
            var keys = keys
            keys.subtract(inserted)
            if keys.isEmpty { continue }
            linkingObjects[pair, default: KeySet()].formUnion(keys)
        }
        inserted.formUnion(later.inserted)
        schema.formUnion(later.schema)
    }
}

/// One commit's record: the LMDB transaction id of the commit, the
/// changes per class and per set or map.  Stored in the `history` database
/// (`History`).
public struct ChangeRecord: Equatable, Sendable {
    public var transaction: UInt64
    public var classes: [UInt32: ObjectChanges]
    /// Per set or map changed (class, property, owner).
    public var collections: [ListID: EntryChanges]
    /// Per list changed (class, property, owner), each list once, in the
    /// order the commit gathered them (no hashing or sorting at commit).
    public var lists: ListRecords

    public init(transaction: UInt64, classes: [UInt32: ObjectChanges] = [:], collections: [ListID: EntryChanges] = [:],
                lists: ListRecords = ListRecords()) {
        self.transaction = transaction
        self.classes = classes
        self.collections = collections
        self.lists = lists
    }
}

/// Gathers a write transaction's changes at commit (see the top of this file).
public enum ChangeLog {
    /// The changes `write` made, from the marks of its chunks `chunks` (every
    /// dirty chunk, sorted by class and key, as the commit writes them:
    /// each column's clusters come in ascending order, so every key set is
    /// built by appending); `schemaChanges` from the schema before and
    /// after the transaction (`schemaChanges(from:to:)`).
    public static func record(_ write: WriteTransaction, chunks: [(ChunkID, DirtyChunk)], transaction: UInt64,
                              schemaChanges: [UInt32: SchemaChange] = [:], backlinkClasses: [MDB_dbi: UInt32] = [:]) -> ChangeRecord {
        var classes: [UInt32: ObjectChanges] = [:]
        for (key, state) in write.classes where state.emptied {
            classes[key, default: ObjectChanges()].cleared = true
        }
        let none = Bitmap(repeating: 0)
        // The class and column being gathered (ids come grouped by both).
        var table: UInt32 = 0
        var changes = ObjectChanges()
        var column: UInt32 = 0
        var modified = KeySet()
        func endColumn() {
            if !modified.isEmpty { changes.modified[column] = modified }
            modified = KeySet()
        }
        func endClass() {
            endColumn()
            if !changes.isEmpty { classes[table, default: ObjectChanges()].append(changes) }
            changes = ObjectChanges()
        }
        for (id, chunk) in chunks {
            let chunkColumn = ClusterLayout.column(ofChunkKey: id.key)
            if id.table != table {
                endClass()
                table = id.table
                column = chunkColumn
            } else if chunkColumn != column {
                endColumn()
                column = chunkColumn
            }
            let cluster = ClusterLayout.cluster(ofChunkKey: id.key)
            if chunkColumn == ClusterLayout.presenceColumn {
                let before = chunk.markedSlots, now = chunk.bitmap
                changes.inserted.add(now & ~before, cluster: cluster)
                changes.deleted.add(before & ~now, cluster: cluster)
                continue
            }
            var written = chunk.markedSlots
            if written == none { continue }
            let presenceID = ChunkID(table: id.table, key: ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: cluster))
            if let presence = write.dirty[presenceID] {
                // Only objects there before and after.
                written &= presence.markedSlots & presence.bitmap
            }
            modified.add(written, cluster: cluster)
        }
        endClass()
        if !write.indirectWrites.isEmpty { recordIndirectWrites(write, into: &classes) }
        if !write.linkingChanges.isEmpty { recordLinkingChanges(write, backlinkClasses, into: &classes) }
        for (key, change) in schemaChanges where !change.isEmpty {
            classes[key, default: ObjectChanges()].schema.formUnion(change)
        }
        return ChangeRecord(transaction: transaction, classes: classes, collections: write.buffer.entryChanges, lists: write.buffer.listChanges)
    }

    /// The indirect writes (`WriteTransaction.indirectWrites`) of objects
    /// present before and after the transaction, as modifications (so a
    /// created object is not also modified, nor one deleted).
    private static func recordIndirectWrites(_ write: WriteTransaction, into classes: inout [UInt32: ObjectChanges]) {
        for (table, columns) in write.indirectWrites {
            if classes[table]?.cleared == true { continue }
            var change = ObjectChanges()
            for (column, keys) in columns {
                var kept = KeySet()
                for (index, cluster) in keys.clusters.enumerated() {
                    var bits = keys.slots[index]
                    let presenceID = ChunkID(table: table, key: ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: cluster))
                    if let presence = write.dirty[presenceID] { bits &= presence.markedSlots & presence.bitmap }
                    kept.add(bits, cluster: cluster)
                }
                if !kept.isEmpty { change.modified[column] = kept }
            }
            if !change.isEmpty { classes[table, default: ObjectChanges()].append(change) }
        }
    }

    /// The targets whose linking objects changed (`WriteTransaction.
    /// linkingChanges`, per backlinks database; `backlinkClasses` names each
    /// database's class), those present before and after the transaction.
    private static func recordLinkingChanges(_ write: WriteTransaction, _ backlinkClasses: [MDB_dbi: UInt32],
                                             into classes: inout [UInt32: ObjectChanges]) {
        for (dbi, pairs) in write.linkingChanges {
            guard let table = backlinkClasses[dbi], classes[table]?.cleared != true else { continue }
            var change = ObjectChanges()
            for (pair, keys) in pairs {
                let kept = present(keys, table, write)
                if !kept.isEmpty { change.linkingObjects[pair] = kept }
            }
            if !change.isEmpty { classes[table, default: ObjectChanges()].append(change) }
        }
    }

    /// Those of `keys` (objects of class `table`) present before and after
    /// the transaction (the presence chunk's marks, where it was written).
    private static func present(_ keys: KeySet, _ table: UInt32, _ write: WriteTransaction) -> KeySet {
        var kept = KeySet()
        for (index, cluster) in keys.clusters.enumerated() {
            var bits = keys.slots[index]
            let presenceID = ChunkID(table: table, key: ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: cluster))
            if let presence = write.dirty[presenceID] { bits &= presence.markedSlots & presence.bitmap }
            kept.add(bits, cluster: cluster)
        }
        return kept
    }

    /// Per class key, how its schema changed from `old` to `new`.
    public static func schemaChanges(from old: Schema, to new: Schema) -> [UInt32: SchemaChange] {
        var result: [UInt32: SchemaChange] = [:]
        for objectClass in new.classes {
            if let before = old.objectClass(key: objectClass.key) {
                if before.properties != objectClass.properties || before.name != objectClass.name { result[objectClass.key] = .changed }
            } else {
                result[objectClass.key] = .added
            }
        }
        for objectClass in old.classes where new.objectClass(key: objectClass.key) == nil {
            result[objectClass.key] = .removed
        }
        return result
    }
}

// MARK: Sets and maps

/// Keys of a set or map (a set's elements in their ordered encoding, a
/// map's keys), ascending, in one byte buffer.
public struct EntryKeys: Equatable, Sendable {
    public private(set) var bytes: [UInt8] = []
    /// The end of each key in `bytes`.
    public private(set) var ends: [Int32] = []

    public init() {}

    public init<S: Sequence>(_ keys: S) where S.Element == [UInt8] {
        for key in keys { appendKey(key) }
    }

    private mutating func appendKey(_ key: [UInt8]) {
        bytes.append(contentsOf: key)
        ends.append(Int32(bytes.count))
    }

    /// Add `key`, which follows every key already here.
    public mutating func append(_ key: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: key)
        ends.append(Int32(bytes.count))
    }

    public var isEmpty: Bool { ends.isEmpty }
    public var count: Int { ends.count }

    public subscript(i: Int) -> [UInt8] {
        Array(bytes[(i == 0 ? 0 : Int(ends[i - 1]))..<Int(ends[i])])
    }

    /// The keys, ascending.
    public var keys: [[UInt8]] { (0..<count).map { self[$0] } }
}

/// What one commit (or several, merged) changed in one set or map.  The
/// write transaction knows it without reading anything back: every entry
/// of an entry table records whether its key was stored before
/// (`EntryTable.storedBefore`), and an emptied collection is `cleared`.
public struct EntryChanges: Equatable, Sendable {
    /// Keys there after and not before.
    public var inserted = EntryKeys()
    /// Keys there before and not after (besides those of `cleared`).
    public var deleted = EntryKeys()
    /// Keys there before and after whose value was written (maps; a set's
    /// element removed and added again).
    public var modified = EntryKeys()
    /// Every key there before went (`removeAll`, its owner deleted): those
    /// are not listed in `deleted`.
    public var cleared = false
    /// Its owner was deleted.
    public var ownerDeleted = false
    /// Every key there before went and every key there after came in
    /// these changes (a collection empty before, filled: its keys are not
    /// listed, the collection after holds them).
    public var filled = false

    public init() {}

    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty && !cleared && !ownerDeleted && !filled }

    /// These changes followed by `later`'s.
    public mutating func append(_ later: EntryChanges) {
        if isEmpty { self = later; return }
        let ownerDeleted = self.ownerDeleted || later.ownerDeleted
        defer { self.ownerDeleted = ownerDeleted }
        // Filled later: nothing earlier counts.  Filled earlier: whatever
        // comes later is still "came in these changes".
        if later.filled { self = later; return }
        if filled { return }
        var inserted = Set(self.inserted.keys), deleted = Set(self.deleted.keys), modified = Set(self.modified.keys)
        if later.cleared {
            // What this range inserted went; what it modified or deleted was there before: the clear covers it.
            inserted = []
            deleted = []
            modified = []
            cleared = true
        }
        for key in later.deleted.keys {
            modified.remove(key)
            if inserted.remove(key) == nil { deleted.insert(key) }
        }
        for key in later.inserted.keys {
            if deleted.remove(key) != nil { modified.insert(key) } else { inserted.insert(key) }
        }
        for key in later.modified.keys where !inserted.contains(key) { modified.insert(key) }
        self.inserted = EntryKeys(inserted.sorted(by: EntryChanges.precedes))
        self.deleted = EntryKeys(deleted.sorted(by: EntryChanges.precedes))
        self.modified = EntryKeys(modified.sorted(by: EntryChanges.precedes))
    }

    /// LMDB's key order: bytewise, a prefix first.
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }
}

// MARK: Lists

/// One list's changes in one record.
public struct ListRecord: Equatable, Sendable {
    public var id: ListID
    public var changes: ListChanges
    public init(_ id: ListID, _ changes: ListChanges) { self.id = id; self.changes = changes }
}

/// The lists' records of one commit, kept as the history stores them: tag-3
/// sections (`History`), one after another, each encoded as its list is
/// gathered at commit (no array of records: a commit appending to 10,000
/// lists keeps about 120 KB of bytes, not 10,000 records, and the record is
/// written with one copy).  Iterating decodes them, in the order gathered.
public struct ListRecords: Equatable, Sendable, Sequence {
    /// The tag-3 sections.
    public private(set) var bytes: [UInt8] = []
    /// The number of lists.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// List `id`'s changes, after the lists' already here.
    public mutating func append(_ id: ListID, _ changes: ListChanges) {
        History.appendList(&bytes, id, changes)
        count += 1
    }

    public mutating func append(_ record: ListRecord) { append(record.id, record.changes) }

    /// A whole section read from a stored record (checked by `History.decode`).
    mutating func appendSection(_ section: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: section)
        count += 1
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    public struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        var offset = 0

        public mutating func next() -> ListRecord? {
            guard offset < bytes.count else { return nil }
            return bytes.withUnsafeBytes { (raw) -> ListRecord? in
                var reader = History.Reader(raw)
                reader.offset = offset
                // Sections checked when read (`History.decode`) or made here.
                guard reader.varint() == History.listSection, let length = reader.varint() else { return nil }
                let end = reader.offset + Int(length)
                offset = end
                var operations: [ListOperation] = []
                guard let list = History.readList(&reader, end: end, { operations.append($0) }) else { return nil }
                return ListRecord(list.id, ListChanges(operations: operations, overflowed: list.overflowed))
            }
        }
    }
}

/// One operation on a list, in the positions the list had when it was
/// made (`ListChanges`).
public enum ListOperation: Equatable, Sendable {
    /// `count` elements inserted at `at` (one after another, anywhere in
    /// the run: the positions `at ..< at + count` hold new elements).
    case insert(at: Int, count: Int)
    /// `count` elements erased, one after another, at `at`.
    case erase(at: Int, count: Int)
    /// The element at `at` replaced (a modification).
    case set(at: Int)
    /// The element at `from` moved to `to`.
    case move(from: Int, to: Int)
    /// The elements at the two positions exchanged.
    case swap(Int, Int)
    /// Every element (the list held `size`) removed.
    case clear(size: Int)
}

/// What one commit (or several, merged) did to one list: its operations in
/// order, kept as the list is changed (`ListState.changes`) and for links
/// removed from lists not loaded as the commit's walk finds them.  Runs
/// coalesce as they are made (appends, erases at one place, a write into
/// an element inserted in the run); the engine's `ChangeBuilder` turns the
/// operations into Realm's change set.  Past `operationLimit` operations
/// only `overflowed` is kept: the notifier compares the list's elements.
public struct ListChanges: Equatable, Sendable {
    /// The operations logged, before the open insertion run.
    private var logged: [ListOperation] = []
    /// The open insertion run (`runCount` elements at `runAt`; 0: none;
    /// `overflowedRun`: too many operations were made to keep them):
    /// appends and inserts inside it only count, without touching the
    /// array (an append's cost is two comparisons and an addition).  The
    /// overflow is a value of the count, not a field of its own, so a
    /// `ListState` stays small (see design.md, "List records at commit").
    private var runAt = 0
    private var runCount = 0
    private static let overflowedRun = -1

    /// Too many operations were made to keep them.
    public var overflowed: Bool { runCount == ListChanges.overflowedRun }

    public static let operationLimit = 10_000

    public init() {}

    public init(operations: [ListOperation], overflowed: Bool = false) {
        self.logged = overflowed ? [] : operations
        self.runCount = overflowed ? ListChanges.overflowedRun : 0
    }

    /// The operations, in order.
    public var operations: [ListOperation] {
        runCount <= 0 ? logged : logged + [.insert(at: runAt, count: runCount)]
    }

    public var isEmpty: Bool { logged.isEmpty && runCount == 0 }

    /// The number of operations (`operations.count`, without making the array).
    public var operationCount: Int { logged.count + (runCount > 0 ? 1 : 0) }

    /// Each operation, in order (`operations`, without making the array).
    public func forEachOperation(_ body: (ListOperation) -> Void) {
        for operation in logged { body(operation) }
        if runCount > 0 { body(.insert(at: runAt, count: runCount)) }
    }

    public static func == (a: ListChanges, b: ListChanges) -> Bool {
        a.overflowed == b.overflowed && a.operations == b.operations
    }

    /// Log the open insertion run.
    private mutating func closeRun() {
        if runCount <= 0 { return }
        let run = ListOperation.insert(at: runAt, count: runCount)
        runCount = 0
        add(run)
    }

    private mutating func add(_ operation: ListOperation) {
        if overflowed { return }
        if logged.count >= ListChanges.operationLimit {
            logged = []
            runCount = ListChanges.overflowedRun
            return
        }
        logged.append(operation)
    }

    public mutating func insert(at index: Int, count: Int = 1) {
        if count == 0 { return }
        if runCount > 0 && index >= runAt && index <= runAt + runCount {
            runCount += count
            return
        }
        closeRun()
        if overflowed { return }
        runAt = index
        runCount = count
    }

    public mutating func erase(at index: Int) {
        if runCount > 0 && index >= runAt && index < runAt + runCount {
            // An element inserted in the run goes again.
            runCount -= 1
            return
        }
        closeRun()
        switch logged.last {
        case .erase(let at, let n)? where index == at:
            logged[logged.count - 1] = .erase(at: at, count: n + 1)
        case .erase(let at, let n)? where index == at - 1:
            logged[logged.count - 1] = .erase(at: index, count: n + 1)
        default:
            add(.erase(at: index, count: 1))
        }
    }

    public mutating func set(at index: Int) {
        if runCount > 0 && index >= runAt && index < runAt + runCount { return }
        closeRun()
        if case .set(let at)? = logged.last, at == index { return }
        add(.set(at: index))
    }

    public mutating func move(from: Int, to: Int) {
        if from == to { return }
        closeRun()
        add(.move(from: from, to: to))
    }

    public mutating func swap(_ a: Int, _ b: Int) {
        if a == b { return }
        closeRun()
        add(.swap(a, b))
    }

    public mutating func clear(size: Int) {
        closeRun()
        if case .clear? = logged.last, size == 0 { return }
        add(.clear(size: size))
    }

    /// These changes followed by `later`'s.
    public mutating func append(_ later: ListChanges) {
        if later.isEmpty { return }
        closeRun()
        if overflowed { return }
        let more = later.operations
        if later.overflowed || logged.count + more.count > ListChanges.operationLimit {
            logged = []
            runCount = ListChanges.overflowedRun
            return
        }
        logged += more
    }
}
