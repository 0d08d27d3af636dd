import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing maps (see `MapStore` for the layout).
///
/// Like sets, every change goes to the map's entry table in the write
/// buffer (`EntryTable`, written at commit, sorted), with the owner's size
/// column and the backlinks of link values.  Keys are refused
/// (with nothing written) when they contain `.`, start with `$`, are not
/// UTF-8 or are longer than 480 bytes.  A map of an embedded class owns its
/// values: replaced or removed, they are deleted.
extension Realm {
    // MARK: Reading

    /// A stored value (without its seal) as a value of the map; `reading`:
    /// for the caller, so a link must name a live object (a write reads old
    /// values while it deletes their targets).
    fileprivate func mapValue(_ raw: UnsafeRawBufferPointer, _ table: Table, _ column: Column, _ owner: Int64,
                          reading: Bool = false) throws(FiefError) -> Value {
        guard let value = MixedCoding.decode(raw), value.type == nil || column.elementType == .mixed || value.type == column.elementType else {
            throw damagedEntry(table, column, owner, "a value")
        }
        if case .link(let classKey, let target) = value {
            if column.elementType == .mixed ? !isMixedLinkTarget(classKey) : classKey != column.linkTarget {
                throw damagedEntry(table, column, owner, "a link to a class that does not exist")
            }
            if reading, try !isLinkedObjectLive(classKey, target) { throw damagedEntry(table, column, owner, "a link to a deleted object") }
        }
        return value
    }

    /// Whether the object a stored link value names exists.  Deleting an
    /// object nulls every map value and nested value that links to it (its
    /// backlinks name them), so a link to a deleted object is damage: an
    /// older copy of a page (a lost write) holding the value before the
    /// deletion, whose entry passes its checksum.  One bit of the target's
    /// presence chunk (checked once per snapshot).
    func isLinkedObjectLive(_ classKey: UInt32, _ target: Int64) throws(FiefError) -> Bool {
        guard hasTable(classKey) else { return false }
        return try isLive(try table(classKey), target)
    }

    /// Whether a link in a mixed value may point to class `classKey`: one
    /// that exists and is not embedded (anything else is damage).
    func isMixedLinkTarget(_ classKey: UInt32) -> Bool {
        guard hasTable(classKey), let target = try? table(classKey) else { return false }
        return !target.objectClass.isEmbedded
    }

    // MARK: Writing

    /// Write one entry: the old value's link released (an embedded object
    /// deleted), the new one's recorded, the size kept.
    fileprivate func put(_ write: WriteTransaction, _ table: Table, _ column: Column, _ dbi: MDB_dbi, _ owner: Int64,
                     _ key: UnsafeRawBufferPointer, _ value: Value) throws(FiefError) {
        let entries = try entryTable(write, table, column, owner, dbi)
        let old = try storedValue(write, entries, table, column, dbi, owner, key)
        if let old, old.isSame(as: value) { return }
        MixedCoding.encode(value, into: &write.entryValue)
        try write.entryValue.withBytes { (v) throws(FiefError) in try entries.put(key, v) { old != nil } }
        forgetCollectionEntries(write)
        try countCollectionLink(write, table, column, owner, value, 1)
        if let old {
            try released(write, table, column, owner, old)
        } else {
            try setCollectionSize(write, table, column, owner, try collectionSize(table, column, owner) + 1)
        }
        noteColumnChange(table.key, column.key)
        try write.boundEntries()
    }

    /// The value `owner`'s map holds under `key` in the write transaction:
    /// its entry table's, else LMDB's (nil: none).
    fileprivate func storedValue(_ write: WriteTransaction, _ entries: EntryTable, _ table: Table, _ column: Column, _ dbi: MDB_dbi,
                                 _ owner: Int64, _ key: UnsafeRawBufferPointer, reading: Bool = false) throws(FiefError) -> Value? {
        switch entries.lookup(key) {
        case .put(let raw): return try mapValue(raw, table, column, owner, reading: reading)
        case .deleted: return nil
        case .absent: if entries.emptyAtStart { return nil }
        }
        return try MapStore.withStoredKey(owner: owner, key: key) { (k) throws(FiefError) -> Value? in
            guard let raw = try LMDB.get(write.txn, dbi, k) else { return nil }
            guard let body = EntrySeal.open(raw, table: table.key, database: column.key, key: k) else {
                throw damagedSeal(table.key, property: column.key, owner)
            }
            return try mapValue(body, table, column, owner, reading: reading)
        }
    }

    /// A value leaves a map: its backlink goes, and an embedded object with it.
    fileprivate func released(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64, _ value: Value) throws(FiefError) {
        if value.nestedID != nil { try droppedMixed(write, table, owner: owner, property: column.key, value); return }
        guard case .link(let classKey, let target) = value else { return }
        try countCollectionLink(write, table, column, owner, value, -1)
        let targetTable = try self.table(classKey)
        if targetTable.objectClass.isEmbedded, try isLive(targetTable, target) {
            try deleteObject(write, targetTable, target)
            noteMembershipChange(classKey)
        }
    }

    fileprivate func clearMap(_ write: WriteTransaction, _ table: Table, _ column: Column, _ dbi: MDB_dbi, _ owner: Int64,
                              ownerDeleted: Bool = false) throws(FiefError) {
        let id = ListID(table: table.key, column: column.key, owner: owner)
        let buffered = try dropEntries(write, table, column, owner)
        if try collectionSize(table, column, owner) == 0 {
            if buffered { write.noteCleared(id, ownerDeleted: ownerDeleted) }
            return
        }
        defer { write.noteCleared(id, ownerDeleted: ownerDeleted) }
        var links: [Value] = []
        if column.elementType == .link || column.elementType == .mixed {
            for entry in try sealedEntries(write.txn, dbi, table, database: column.key, property: column.key, owner: owner) {
                let value = try mapValue(entry.value, table, column, owner)
                if case .link = value { links.append(value) } else if value.nestedID != nil { links.append(value) }
            }
        }
        forgetCollectionEntries(write)
        try SetStore.deleteAll(write.txn, dbi, owner: owner)
        try setCollectionSize(write, table, column, owner, 0)
        // Released once the map is empty (an embedded value's deletion must not find it there).
        for value in links { try released(write, table, column, owner, value) }
    }

    // MARK: Deleting objects

    /// Object `key` of `table` is being deleted: its maps go (links lose
    /// their backlinks, embedded values are deleted).
    func deletingMaps(_ write: WriteTransaction, _ table: Table, _ key: Int64) throws(FiefError) {
        for (property, dbi) in table.maps {
            try clearMap(write, table, try table.column(property.key), dbi, key, ownerDeleted: true)
        }
    }

    /// Every object of `table` is being deleted: all their maps go.
    func emptyingMaps(_ write: WriteTransaction, _ table: Table) throws(FiefError) {
        try dropEntries(write, table)
        forgetCollectionEntries(write)
        for (property, dbi) in table.maps {
            let column = try table.column(property.key)
            var links: [(Int64, Value)] = []
            if column.elementType == .link || column.elementType == .mixed {
                let cursor = try LMDBCursor(write.txn, dbi)
                var entry = try cursor.move(MDB_FIRST)
                while let (k, v) = entry, let owner = SetStore.owner(of: k) {
                    guard let body = EntrySeal.open(v, table: table.key, database: column.key, key: k) else {
                        throw damagedSeal(table.key, property: column.key, owner)
                    }
                    let value = try mapValue(body, table, column, owner)
                    if case .link = value { links.append((owner, value)) } else if value.nestedID != nil { links.append((owner, value)) }
                    entry = try cursor.next()
                }
            }
            try LMDB.check(mdb_drop(write.txn, dbi, 0), "deleting maps")
            for (owner, value) in links { try released(write, table, column, owner, value) }
        }
    }

    /// Object `target` is being deleted: the values of map (`originClass`,
    /// `property`) of object `origin` that link to it become null.
    func nullMapLinks(_ write: WriteTransaction, originClass: UInt32, property: UInt32, origin: Int64, targetClass: UInt32, target: Int64) throws(FiefError) {
        let table = try table(originClass)
        let column = try table.column(property)
        let dbi = try table.mapDatabase(property)
        // Read whole: the map's buffered entries written first.
        try write.settleEntries(ListID(table: originClass, column: property, owner: origin))
        var keys: [[UInt8]] = []
        var nested: [Int64] = []
        for entry in try sealedEntries(write.txn, dbi, table, database: property, property: property, owner: origin) {
            let value = try mapValue(entry.value, table, column, origin)
            if case .link(let c, let k) = value, c == targetClass, k == target { keys.append(Array(entry.key)) }
            if let id = value.nestedID { nested.append(id) }
        }
        for id in nested {
            try unlinkNested(write, table, owner: origin, property: property, id: id, targetClass: targetClass, target: target)
        }
        forgetCollectionEntries(write)
        for key in keys {
            key.withUnsafeBytes { MapStore.encode(owner: origin, key: $0, into: &write.entryKey) }
            try write.entryKey.withBytes { (k) throws(FiefError) in
                MixedCoding.encode(.null, into: &write.entryValue)
                EntrySeal.seal(&write.entryValue, table: originClass, database: property, key: k)
                try write.entryValue.withBytes { (v) throws(FiefError) in _ = try LMDB.put(write.txn, dbi, k, v) }
            }
        }
        if !keys.isEmpty {
            noteColumnChange(originClass, property)
            var changes = EntryChanges()
            for key in keys { key.withUnsafeBytes { changes.modified.append($0) } }
            write.buffer.noteEntryChanges(ListID(table: originClass, column: property, owner: origin), changes)
        }
    }
}

/// The storage of a map property: its entries in the class's map database
/// (`MapStore`), its size in its owner's column; changes wait in the write
/// buffer's entry table (`EntryTable`).  Opened checked: the class, a map
/// property, its owner live.
struct PropertyMap: MapStorage {
    let write: WriteTransaction?
    let table: Table
    let column: Column
    let owner: Int64

    @inline(__always)
    init(_ realm: Realm, _ ref: CollectionRef, write: WriteTransaction?) throws(FiefError) {
        // Checked into locals first, then made whole (see `PropertyList`).
        let (table, column) = try realm.collection(CollectionRef(.map, table: ref.table, owner: ref.owner, property: ref.property), .map)
        self.init(write: write, table: table, column: column, owner: ref.owner)
    }

    @inline(__always)
    private init(write: WriteTransaction?, table: Table, column: Column, owner: Int64) {
        self.write = write
        self.table = table
        self.column = column
        self.owner = owner
    }

    /// `set` of the accessor, opened and done with the references taken
    /// once and passed down, as one call: the hot path of
    /// `MapAccess.set(_:forKey:)` (a storage value made for the call
    /// would cost a retain and a release per reference it holds).
    @inline(__always)
    static func set(_ realm: Realm, _ write: WriteTransaction, _ ref: CollectionRef, _ key: UnsafeRawBufferPointer, _ value: Value) throws(FiefError) {
        let (table, column) = try realm.collection(CollectionRef(.map, table: ref.table, owner: ref.owner, property: ref.property), .map)
        try MapAccess.checkKey(key, keyContext(table, column))
        let element = try element(realm, table, column, value)
        do throws(FiefError) {
            try set(realm, write, table, column, ref.owner, key, element)
        } catch {
            throw realm.poison(write, error)
        }
    }

    var name: String { "the map" }
    var keyContext: String { Self.keyContext(table, column) }
    static func keyContext(_ table: Table, _ column: Column) -> String {
        "'\(table.objectClass.name).\((try? table.property(column.key).name) ?? "")'"
    }
    private var id: ListID { ListID(table: table.key, column: column.key, owner: owner) }
    private var dbi: MDB_dbi { get throws(FiefError) { try table.mapDatabase(column.key) } }

    func count(_ realm: Realm) throws(FiefError) -> Int {
        try realm.collectionSize(table, column, owner)
    }

    func indexError(_ realm: Realm, _ index: Int, count: Int) -> FiefError {
        FiefError(.indexOutOfBounds, "index \(index) is out of range: the map '\(table.objectClass.name).\((try? table.property(column.key).name) ?? "")' has \(count) entr\(count == 1 ? "y" : "ies")")
    }

    func value(_ realm: Realm, forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value? {
        let dbi = try dbi
        if let write = realm.write, let entries = write.buffer.entries[id] {
            return try realm.storedValue(write, entries, table, column, dbi, owner, key, reading: true)
        }
        return try MapStore.withStoredKey(owner: owner, key: key) { (k) throws(FiefError) -> Value? in
            try realm.withReadTransaction { (txn) throws(FiefError) -> Value? in
                guard let raw = try LMDB.get(txn, dbi, k) else { return nil }
                guard let body = EntrySeal.open(raw, table: table.key, database: column.key, key: k) else {
                    throw realm.damagedSeal(table.key, property: column.key, owner)
                }
                return try realm.mapValue(body, table, column, owner, reading: true)
            }
        }
    }

    func entries(_ realm: Realm) throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        try realm.collectionEntries(id, try dbi, sealed: column.key).entries
    }

    func value(_ realm: Realm, stored raw: UnsafeRawBufferPointer) throws(FiefError) -> Value {
        try realm.mapValue(raw, table, column, owner, reading: true)
    }

    func element(_ realm: Realm, _ value: Value) throws(FiefError) -> Value {
        try Self.element(realm, table, column, value)
    }

    @inline(__always)
    private static func element(_ realm: Realm, _ table: Table, _ column: Column, _ value: Value) throws(FiefError) -> Value {
        let property = try table.property(column.key)
        let element = try value.coerced(for: property, className: table.objectClass.name)
        if case .link = element { try Links.check(realm, element, table, column, property) }
        return element
    }

    func set(_ realm: Realm, _ key: UnsafeRawBufferPointer, _ element: Value) throws(FiefError) {
        try Self.set(realm, write!, table, column, owner, key, element)
    }

    @inline(__always)
    private static func set(_ realm: Realm, _ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64,
                            _ key: UnsafeRawBufferPointer, _ element: Value) throws(FiefError) {
        let stored = column.elementType == .mixed ? try realm.storedMixed(write, table, owner: owner, property: column.key, element) : element
        try realm.put(write, table, column, try table.mapDatabase(column.key), owner, key, stored)
    }

    func remove(_ realm: Realm, _ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool {
        let write = write!
        let dbi = try dbi
        let entries = try realm.entryTable(write, table, column, owner, dbi)
        guard let old = try realm.storedValue(write, entries, table, column, dbi, owner, key) else { return false }
        try entries.delete(key) { true }
        realm.forgetCollectionEntries(write)
        try realm.setCollectionSize(write, table, column, owner, try realm.collectionSize(table, column, owner) - 1)
        try realm.released(write, table, column, owner, old)
        try write.boundEntries()
        return true
    }

    func removeAll(_ realm: Realm) throws(FiefError) {
        try realm.clearMap(write!, table, column, try dbi, owner)
    }

    /// The embedded class the map holds (an error for any other map).
    func embeddedClass(_ realm: Realm) throws(FiefError) -> Table {
        let property = try table.property(column.key)
        guard column.elementType == .link, let child = try? realm.table(column.linkTarget), child.objectClass.isEmbedded else {
            throw FiefError(.invalidArgument, "'\(table.objectClass.name).\(property.name)' is not a map of an embedded class")
        }
        return child
    }

    /// A new object of embedded class `child` as the value of `key`.
    func insertEmbedded(_ realm: Realm, _ child: Table, forKey key: UnsafeRawBufferPointer) throws(FiefError) -> (classKey: UInt32, objectKey: Int64) {
        let write = write!
        var childKey: Int64 = 0
        do throws(FiefError) {
            try realm.insertStreaming(write, child, properties: [], rows: 1, primaryKeyColumn: -1, keys: &childKey) { (_, _) throws(FiefError) in .null }
            try realm.put(write, table, column, try dbi, owner, key, .link(classKey: child.key, objectKey: childKey))
        } catch {
            throw realm.poison(write, error)
        }
        realm.noteMembershipChange(child.key)
        return (child.key, childKey)
    }
}
