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

/// A set of object keys: a bitmap of 256 slots per cluster.
public struct KeySet: Equatable, Sendable {
    public private(set) var clusters: [Int64: Bitmap] = [:]

    public init() {}

    public init<S: Sequence>(_ keys: S) where S.Element == Int64 {
        for key in keys { insert(key) }
    }

    public var isEmpty: Bool { clusters.isEmpty }

    public var count: Int {
        clusters.values.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    public func contains(_ key: Int64) -> Bool {
        guard let bits = clusters[ClusterLayout.cluster(of: key)] else { return false }
        let slot = ClusterLayout.slot(of: key)
        return bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    public mutating func insert(_ key: Int64) {
        let slot = ClusterLayout.slot(of: key)
        var bits = Bitmap(repeating: 0)
        bits[slot >> 6] = 1 << UInt64(slot & 63)
        add(bits, cluster: ClusterLayout.cluster(of: key))
    }

    /// Add the slots `bits` of `cluster`.
    public mutating func add(_ bits: Bitmap, cluster: Int64) {
        if bits == Bitmap(repeating: 0) { return }
        clusters[cluster, default: Bitmap(repeating: 0)] |= bits
    }

    public mutating func formUnion(_ other: KeySet) {
        for (cluster, bits) in other.clusters { add(bits, cluster: cluster) }
    }

    public mutating func subtract(_ other: KeySet) {
        for (cluster, bits) in other.clusters {
            guard let mine = clusters[cluster] else { continue }
            let left = mine & ~bits
            clusters[cluster] = left == Bitmap(repeating: 0) ? nil : left
        }
    }

    public func intersection(_ other: KeySet) -> KeySet {
        var result = KeySet()
        for (cluster, bits) in clusters {
            if let theirs = other.clusters[cluster] { result.add(bits & theirs, cluster: cluster) }
        }
        return result
    }

    /// The keys, ascending.
    public var keys: [Int64] {
        var result: [Int64] = []
        for cluster in clusters.keys.sorted() {
            forEachSlot(clusters[cluster]!) { result.append(cluster << ClusterLayout.shift | Int64($0)) }
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

    public init() {}

    public var isEmpty: Bool {
        inserted.isEmpty && deleted.isEmpty && modified.isEmpty && !cleared && schema.isEmpty
    }

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
        // Modified: objects inserted in the range stay inserted only.
        for (column, keys) in later.modified {
            var keys = keys
            keys.subtract(inserted)
            if keys.isEmpty { continue }
            modified[column, default: KeySet()].formUnion(keys)
        }
        inserted.formUnion(later.inserted)
        schema.formUnion(later.schema)
    }
}

/// One commit's record: the LMDB transaction id of the commit and the
/// changes per class.  Stored in the `history` database (`History`).
public struct ChangeRecord: Equatable, Sendable {
    public var transaction: UInt64
    public var classes: [UInt32: ObjectChanges]

    public init(transaction: UInt64, classes: [UInt32: ObjectChanges] = [:]) {
        self.transaction = transaction
        self.classes = classes
    }
}

/// Gathers a write transaction's changes at commit (see the top of this file).
public enum ChangeLog {
    /// The changes `write` made, from its chunks' marks; `schemaChanges`
    /// from the schema before and after the transaction (`schemaChanges(from:to:)`).
    public static func record(_ write: WriteTransaction, transaction: UInt64,
                              schemaChanges: [UInt32: SchemaChange] = [:]) -> ChangeRecord {
        var classes: [UInt32: ObjectChanges] = [:]
        for (key, state) in write.classes where state.emptied {
            classes[key, default: ObjectChanges()].cleared = true
        }
        let none = Bitmap(repeating: 0)
        for (id, chunk) in write.dirty.entries {
            let column = ClusterLayout.column(ofChunkKey: id.key)
            let cluster = ClusterLayout.cluster(ofChunkKey: id.key)
            if column == ClusterLayout.presenceColumn {
                let before = chunk.markedSlots, now = chunk.bitmap
                let created = now & ~before, deleted = before & ~now
                if created == none && deleted == none { continue }
                // Mutated in place (a copy out and back would copy the sets).
                classes[id.table, default: ObjectChanges()].inserted.add(created, cluster: cluster)
                classes[id.table, default: ObjectChanges()].deleted.add(deleted, cluster: cluster)
                continue
            }
            var written = chunk.markedSlots
            if written == none { continue }
            let presenceID = ChunkID(table: id.table, key: ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: cluster))
            if let presence = write.dirty[presenceID] {
                // Only objects there before and after.
                written &= presence.markedSlots & presence.bitmap
                if written == none { continue }
            }
            classes[id.table, default: ObjectChanges()].modified[column, default: KeySet()].add(written, cluster: cluster)
        }
        for (key, change) in schemaChanges where !change.isEmpty {
            classes[key, default: ObjectChanges()].schema.formUnion(change)
        }
        return ChangeRecord(transaction: transaction, classes: classes)
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
