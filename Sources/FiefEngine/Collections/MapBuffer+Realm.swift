import CLMDB
import FiefStorage

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
            write.pendingMaps.add(id, pending)
        }
        MixedCoding.encode(value, into: &write.entryValue)
        let outcome = write.entryValue.withUnsafeBytes { (coded) in
            pending.set(key, coded) { (old) in MixedCoding.decode(old).map { $0.isSame(as: value) } ?? false }
        }
        if outcome == .unchanged { return true }
        forgetCollectionEntries(write)
        if outcome == .added { try setCollectionSize(write, table, column, owner, try collectionSize(table, column, owner) + 1) }
        noteColumnChange(table.key, column.key)
        return true
    }

    /// Store the buffered keys of map `id`, if any.
    func flushPendingMap(_ write: WriteTransaction, _ id: ListID) throws(FiefError) {
        guard let pending = write.pendingMaps.remove(id) else { return }
        try storePending(write, id, pending)
    }

    /// Store every map's buffered keys (at commit, and before the
    /// transaction's schema changes).
    func flushPendingMaps(_ write: WriteTransaction) throws(FiefError) {
        if write.pendingMaps.isEmpty { return }
        let all = write.pendingMaps.removeAll().sorted { ($0.key.table, $0.key.column, $0.key.owner) < ($1.key.table, $1.key.column, $1.key.owner) }
        for (id, pending) in all { try storePending(write, id, pending) }
    }

    private func storePending(_ write: WriteTransaction, _ id: ListID, _ pending: PendingMap) throws(FiefError) {
        // An owner deleted since had its map cleared (which stored the buffer first): nothing here then.
        guard let table = try? self.table(id.table), let column = try? table.column(id.column), column.collection == .map,
              try isLive(table, id.owner) else { return }
        forgetCollectionEntries(write)
        try pending.store(write.txn, try table.mapDatabase(id.column), table: id.table, column: id.column, owner: id.owner)
    }
}
