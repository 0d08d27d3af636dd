import CLMDB
import FiefStorage

/// What sets and maps share: finding them, their size column, their
/// entries read in order, and the write path's bookkeeping.
extension Realm {
    /// The table and column of collection `ref`, checked to be a `kind`
    /// whose owner is live.
    func collection(_ ref: CollectionRef, _ kind: CollectionKind) throws(FiefError) -> (Table, Column) {
        let table = try table(ref.table)
        let column = try table.column(ref.property)
        guard column.collection == kind else {
            throw FiefError(.invalidArgument, "property '\(table.objectClass.name).\((try? table.property(ref.property).name) ?? "")' is not a \(kind.name)")
        }
        try requireLive(table, ref.owner)
        return (table, column)
    }

    /// The size of a collection (its owner's column).
    @inline(__always)
    func collectionSize(_ table: Table, _ column: Column, _ owner: Int64) throws(FiefError) -> Int {
        if case .int(let n) = try slotValue(table, column, owner) { return Int(n) }
        return 0
    }

    /// Store a collection's new size in its owner's column.
    func setCollectionSize(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64, _ size: Int) throws(FiefError) {
        let chunk = try dirtyChunk(write, table, column: column.key, type: .int, cluster: ClusterLayout.cluster(of: owner))
        chunk.set(ClusterLayout.slot(of: owner), .int(Int64(size)))
        noteColumnChange(table.key, column.key)
    }

    /// Run `body` with the transaction reads go through: the write
    /// transaction, or the snapshot's (under its lock when shared).
    func withReadTransaction<T>(_ body: (OpaquePointer) throws(FiefError) -> T) throws(FiefError) -> T {
        if let write { return try body(write.txn) }
        return try currentSnapshot().withTransaction(body)
    }

    /// The entries of collection `id` stored in `dbi`, read once per
    /// snapshot (or until the write transaction's next set or map write).
    /// Every entry carries a checksum (`EntrySeal`; a set's from format
    /// 10), checked here, and a failure names property `sealed`.
    func collectionEntries(_ id: ListID, _ dbi: MDB_dbi, sealed: UInt32) throws(FiefError) -> CollectionEntries {
        if let write {
            // A range read: the collection's buffered entries written first.
            if !write.buffer.entries.isEmpty { try write.settleEntries(id) }
            if let known = write.collectionEntries[id] { return known }
            let read = CollectionEntries(try readEntries(write.txn, id, dbi, sealed: sealed))
            write.collectionEntries[id] = read
            return read
        }
        let snapshot = try currentSnapshot()
        var fresh = false
        let entries = try snapshot.withTransaction { (txn) throws(FiefError) -> CollectionEntries in
            if let known = snapshot.collectionEntries[id] { return known }
            let read = CollectionEntries(try readEntries(txn, id, dbi, sealed: sealed))
            snapshot.collectionEntries[id] = read
            fresh = true
            return read
        }
        // A set's or map's entries, read first in this snapshot, against the
        // size its owner's column records (checksummed): entries lost or
        // gained are damage, never an index out of range later.
        if fresh && id.column != NestedStore.entriesColumn {
            let table = try table(id.table)
            let size = try collectionSize(table, try table.column(id.column), id.owner)
            if size != entries.entries.count {
                try snapshot.withTransaction { (_) throws(FiefError) in snapshot.collectionEntries[id] = nil }
                let name = (try? table.property(id.column).name) ?? ""
                throw FiefError(.fileCorrupt, "the entries of '\(table.objectClass.name).\(name)' of object \(id.owner) are damaged: \(entries.entries.count) stored, \(size) recorded; `fief copy` writes a sound copy", path: environment.path)
            }
        }
        return entries
    }

    private func readEntries(_ txn: OpaquePointer, _ id: ListID, _ dbi: MDB_dbi, sealed: UInt32) throws(FiefError)
        -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        guard let entries = try EntrySeal.entries(txn, dbi, owner: id.owner, table: id.table, database: id.column) else {
            throw damagedSeal(id.table, property: sealed, id.column == EntrySeal.nested ? nil : id.owner)
        }
        return entries
    }

    /// Entries of a set or map (`database` its property) or of a nested
    /// collection (`EntrySeal.nested`) read in a write transaction, checked.
    func sealedEntries(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ table: Table, database: UInt32, property: UInt32, owner: Int64) throws(FiefError)
        -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        guard let entries = try EntrySeal.entries(txn, dbi, owner: owner, table: table.key, database: database) else {
            throw damagedSeal(table.key, property: property, database == EntrySeal.nested ? nil : owner)
        }
        return entries
    }

    /// The value of a set entry read from LMDB under whole key `key`
    /// (owner + element), without its checksum; a failing one is damage.
    func openSetEntry(_ table: Table, _ column: Column, _ key: UnsafeRawBufferPointer, _ stored: UnsafeRawBufferPointer) throws(FiefError) -> UnsafeRawBufferPointer {
        guard let body = EntrySeal.open(stored, table: table.key, database: column.key, key: key) else {
            throw damagedSeal(table.key, property: column.key, SetStore.owner(of: key))
        }
        return body
    }

    /// The error for a set or map entry (of object `owner`) or nested entry
    /// (`owner` nil) that fails its checksum.
    func damagedSeal(_ tableKey: UInt32, property: UInt32, _ owner: Int64?) -> FiefError {
        let table = try? self.table(tableKey)
        let className = table?.objectClass.name ?? "#\(tableKey)"
        let name = (try? table?.property(property).name) ?? "#\(property)"
        let kind = (try? table?.column(property).collection) == .set ? "set" : "map"
        let what = owner.map { "an entry of \(kind) '\(className).\(name)' of object \($0)" } ?? "an entry of a collection nested in '\(className).\(name)'"
        return FiefError(.fileCorrupt, "'\(environment.path)' is damaged: \(what) fails its checksum", path: environment.path)
    }

    /// Before a write to a set or map database: views read from it may move.
    @inline(__always)
    func forgetCollectionEntries(_ write: WriteTransaction) {
        if !write.collectionEntries.isEmpty { write.collectionEntries.removeAll(keepingCapacity: true) }
    }

    /// The object keys a list, set or map of links holds, in its order (a
    /// map's non-null values in key order).
    func linkedKeys(_ id: ListID) throws(FiefError) -> [Int64] {
        let table = try table(id.table)
        let column = try table.column(id.column)
        try requireLive(table, id.owner)
        var keys: [Int64] = []
        switch column.collection {
        case .list:
            let state = try listState(table, column, owner: id.owner)
            keys.reserveCapacity(state.count)
            for i in 0..<state.count {
                if case .link(_, let key) = try state.value(i, table: table) { keys.append(key) }
            }
        case .set:
            for entry in try collectionEntries(id, try table.setDatabase(column.key), sealed: column.key).entries {
                guard let value = SetStore.storedElement(entry.key, entry.value, type: column.elementType, linkTarget: column.linkTarget) else {
                    throw damagedEntry(table, column, id.owner, "an element")
                }
                if case .link(_, let key) = value { keys.append(key) }
            }
        case .map:
            for entry in try collectionEntries(id, try table.mapDatabase(column.key), sealed: column.key).entries {
                guard let value = MixedCoding.decode(entry.value) else { throw damagedEntry(table, column, id.owner, "a value") }
                if case .link(_, let key) = value { keys.append(key) }
            }
        case .none:
            break
        }
        return keys
    }

    /// The error for a stored entry that does not decode.
    func damagedEntry(_ table: Table, _ column: Column, _ owner: Int64, _ what: String) -> FiefError {
        let name = (try? table.property(column.key).name) ?? "#\(column.key)"
        return FiefError(.fileCorrupt, "'\(environment.path)' is damaged: \(what) of \(column.collection.name) '\(table.objectClass.name).\(name)' of object \(owner) cannot be read", path: environment.path)
    }

    /// The backlink of a link going into (`delta` 1) or out of (-1) a set or map.
    func countCollectionLink(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64, _ value: Value, _ delta: Int) throws(FiefError) {
        guard case .link(let classKey, let target) = value else { return }
        guard let dbi = try self.table(classKey).backlinks else {
            throw FiefError(.internal, "class \(classKey) is linked to but has no backlinks database")
        }
        if delta > 0 {
            try Backlinks.add(write, dbi, target: target, originClass: table.key, property: column.key, origin: owner)
        } else {
            try Backlinks.remove(write, dbi, target: target, originClass: table.key, property: column.key, origin: owner)
        }
    }
}
