import CLMDB
import FiefStorage

/// Set and map entries go through the write buffer's entry tables
/// (`EntryTable`, one per collection): a change is recorded there and
/// written at commit, sorted; a point read asks the table, then LMDB; a
/// range read (`collectionEntries`) writes that collection's table first.
extension Realm {
    /// The entry table of `owner`'s set or map (made on first use; a
    /// collection of size 0 then needs no LMDB read to know a key is new).
    @inline(__always)
    func entryTable(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64, _ dbi: MDB_dbi) throws(FiefError) -> EntryTable {
        let id = ListID(table: table.key, column: column.key, owner: owner)
        if let known = write.buffer.entries[id] { return known }
        return write.buffer.entries.make(id, dbi: dbi, sealed: true,
                                         emptyAtStart: try collectionSize(table, column, owner) == 0)
    }

    /// Before `owner`'s set or map is emptied: its buffered entries are
    /// written when they may hold links or nested collections (which the
    /// emptying releases from what LMDB holds), else dropped; whether
    /// there were any.
    @discardableResult
    func dropEntries(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64) throws(FiefError) -> Bool {
        let id = ListID(table: table.key, column: column.key, owner: owner)
        guard write.buffer.entries[id] != nil else { return false }
        if column.elementType == .link || column.elementType == .mixed {
            try write.settleEntries(id)
        } else {
            write.dropEntries(id)
        }
        return true
    }

    /// Before every set and map of `table` is emptied: the same, for all of them.
    func dropEntries(_ write: WriteTransaction, _ table: Table) throws(FiefError) {
        if write.buffer.entries.isEmpty { return }
        let key = table.key
        func linkValued(_ column: UInt32) -> Bool {
            guard let c = try? table.column(column) else { return false }
            return c.elementType == .link || c.elementType == .mixed
        }
        try write.settleEntries { $0.table == key && linkValued($0.column) }
        if !write.buffer.entries.take(where: { $0.table == key }).isEmpty { forgetCollectionEntries(write) }
        // Every owner goes: the class's change record says so.
        write.buffer.forgetEntryChanges(table: key)
    }
}
