import FiefStorage

/// A nested collection named by a value just read from the file must be
/// there: its header missing (or naming another owner) is damage, told
/// apart from a collection deleted since a handle to it was made (which
/// `nested` reports as FIEF_ERR_INVALIDATED_OBJECT).
extension Realm {
    /// Check that nested collection `ref`, which a stored value names, exists.
    public func requireStoredNested(_ ref: CollectionRef) throws(FiefError) {
        try checkReadable()
        let table = try table(ref.table)
        let dbi = try table.nestedDatabase()
        let header = try withReadTransaction { (txn) throws(FiefError) in try NestedStore.header(txn, dbi, table: table.key, id: ref.nested, path: environment.path) }
        guard let header, header.owner == ref.owner, header.property == ref.property else {
            throw FiefError(.fileCorrupt, "the nested collection \(ref.nested) that a stored value of class '\(table.objectClass.name)' names is missing: the file is damaged; `fief copy` writes a sound copy", path: environment.path)
        }
    }

    /// The entries of nested collection `ref`, which a stored value just
    /// read names (a query's walk): a missing one is damage.
    func storedNestedEntries(_ ref: CollectionRef) throws(FiefError) -> CollectionEntries {
        do throws(FiefError) {
            return try nestedEntries(ref)
        } catch let error where error.code == .invalidatedObject {
            try requireStoredNested(ref)
            throw error
        }
    }

    /// The size of nested collection `ref`, which a stored value names.
    func storedNestedCount(_ ref: CollectionRef) throws(FiefError) -> Int {
        try storedNestedEntries(ref).entries.count
    }
}
