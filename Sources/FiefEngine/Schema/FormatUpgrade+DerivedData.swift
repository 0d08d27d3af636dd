import CLMDB
import FiefStorage

// MARK: Format 5 to 6

/// Format 6 stores everything as format 5 does; what differs is derived
/// data a format-5 file may hold wrong:
///
/// * full-text indexes: libraries older than full-text search read
///   format 5 and write texts without updating them (stale indexes);
/// * the keys of sets of mixed values: format 5 keyed an integer decimal
///   outside int64's range that is a double exactly (decimal 2^70) as a
///   decimal, apart from the equal double, so a set could hold both.
///
/// Formats 1 to 4 are upgraded through the same steps (they hold no
/// full-text index; format 4's sets of mixed values are keyed as format
/// 5's).
extension FormatUpgrade {
    /// Derived data rebuilt from the objects when a file of format 5 or
    /// older is upgraded to format 6, by the writable open, in the upgrade's
    /// one transaction (a crash leaves the file as it was), after the open's
    /// own schema change (so on the schema the file will have).  A later
    /// derived structure that older libraries do not maintain adds its case
    /// here and its work in `rebuild`.
    enum DerivedData: CaseIterable {
        /// Every full-text index (`c<class>.t<prop>`): emptied and filled
        /// from the stored texts.
        case fullTextIndexes
        /// Every set of mixed values (`c<class>.s<prop>`): entries keyed in
        /// format 5's form moved to their key (`SetStore.format5MixedKey`);
        /// one that lands on an element already there (the equal double)
        /// is merged into it (that element stays, Realm's one element), and
        /// its owner's size drops by one.
        case mixedSetKeys
    }

    /// Rebuild `step` for every class of `schema` in `txn`; `open` opens (or
    /// creates) a database by name in it (integer keys, sorted duplicates).
    static func rebuild(_ step: DerivedData, _ txn: OpaquePointer, schema: Schema, partLimit: Int, path: String,
                        open: (_ name: String, _ integerKey: Bool, _ dupSort: Bool) throws(FiefError) -> MDB_dbi) throws(FiefError) {
        for objectClass in schema.classes {
            switch step {
            case .fullTextIndexes:
                for property in objectClass.properties where property.isFullTextIndexed {
                    let data = try open(Table.dataName(objectClass.key), true, false)
                    let index = try open(Table.fullTextName(objectClass.key, property.key), false, true)
                    try FullTextIndex.rebuild(txn, data: data, target: index, property: property, objectClass: objectClass, path: path)
                }
            case .mixedSetKeys:
                for property in objectClass.properties where property.collection == .set && property.type == .mixed {
                    let data = try open(Table.dataName(objectClass.key), true, false)
                    let set = try open(Table.setName(objectClass.key, property.key), false, false)
                    try rekeyMixedSet(txn, set: set, data: data, classKey: objectClass.key, property: property.key, partLimit: partLimit, path: path)
                }
            }
        }
    }
}
