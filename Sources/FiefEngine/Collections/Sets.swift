import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing sets (see `SetStore` for the layout).
///
/// Every change goes to the set's entry table in the write buffer
/// (`EntryTable`: written to the set's database at commit, sorted), and the
/// owner's size column is kept with it.  Elements that are links have their
/// backlinks, buffered by the same call.  Reads decode elements from the
/// keys in place.
extension Realm {
    // MARK: Reading

    fileprivate func element(_ entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer), _ table: Table, _ column: Column, _ owner: Int64) throws(FiefError) -> Value {
        guard let value = SetStore.storedElement(entry.key, entry.value, type: column.elementType, linkTarget: column.linkTarget) else {
            throw damagedEntry(table, column, owner, "an element")
        }
        return value
    }

    /// LMDB's key order: bytewise, a prefix first.
    static func compareKeys(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = Swift.min(a.count, b.count)
        if n > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    // MARK: Writing

    /// The checks of a change to a set: a write transaction, a set, a live owner.
    fileprivate func changeSet(_ set: CollectionRef) throws(FiefError) -> (WriteTransaction, Table, Column, MDB_dbi) {
        let write = try requireWrite()
        let (table, column) = try collection(set, .set)
        return (write, table, column, try table.setDatabase(column.key))
    }

    /// Empty the set of `owner`, releasing its links' backlinks.
    fileprivate func clearSet(_ write: WriteTransaction, _ table: Table, _ column: Column, _ dbi: MDB_dbi, _ owner: Int64,
                              ownerDeleted: Bool = false) throws(FiefError) {
        let id = ListID(table: table.key, column: column.key, owner: owner)
        let buffered = try dropEntries(write, table, column, owner)
        if try collectionSize(table, column, owner) == 0 {
            if buffered { write.noteCleared(id, ownerDeleted: ownerDeleted) }
            return
        }
        defer { write.noteCleared(id, ownerDeleted: ownerDeleted) }
        if column.elementType == .link || column.elementType == .mixed {
            for entry in try sealedEntries(write.txn, dbi, table, database: column.key, property: column.key, owner: owner) {
                try countCollectionLink(write, table, column, owner, try element(entry, table, column, owner), -1)
            }
        }
        forgetCollectionEntries(write)
        try SetStore.deleteAll(write.txn, dbi, owner: owner)
        try setCollectionSize(write, table, column, owner, 0)
    }

    // MARK: Set algebra

    /// The stored keys of two sets of the same element type, for merging.
    fileprivate func algebraOperands(_ a: CollectionRef, _ b: CollectionRef) throws(FiefError) -> (Table, Column, [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)], [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) {
        try checkReadable()
        let (tableA, columnA) = try collection(a, .set)
        let (tableB, columnB) = try collection(b, .set)
        guard columnA.elementType == columnB.elementType, columnA.linkTarget == columnB.linkTarget else {
            let pa = try tableA.property(columnA.key), pb = try tableB.property(columnB.key)
            throw FiefError(.typeMismatch, "sets '\(tableA.objectClass.name).\(pa.name)' and '\(tableB.objectClass.name).\(pb.name)' hold different types (\(pa.linkTarget ?? pa.type.name), \(pb.linkTarget ?? pb.type.name))")
        }
        let ea = try collectionEntries(a.id, try tableA.setDatabase(columnA.key), sealed: columnA.key).entries
        let eb = try collectionEntries(b.id, try tableB.setDatabase(columnB.key), sealed: columnB.key).entries
        return (tableA, columnA, ea, eb)
    }

    /// Walk two sorted runs of keys: `body` gets each index of `a` and
    /// whether `b` holds the same key.
    fileprivate static func merge(_ a: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)],
                              _ b: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)],
                              _ body: (Int, Bool) throws(FiefError) -> Bool) throws(FiefError) {
        var j = 0
        for i in 0..<a.count {
            while j < b.count && compareKeys(b[j].key, a[i].key) < 0 { j += 1 }
            let shared = j < b.count && compareKeys(b[j].key, a[i].key) == 0
            if try !body(i, shared) { return }
        }
    }

    /// Put or delete stored element keys (without owner) of `owner`'s set,
    /// with their backlinks and the set's size.
    fileprivate func changeByKeys(_ write: WriteTransaction, _ table: Table, _ column: Column, _ dbi: MDB_dbi, _ owner: Int64,
                              adding: [([UInt8], [UInt8])] = [], removing: [[UInt8]] = []) throws(FiefError) {
        if adding.isEmpty && removing.isEmpty { return }
        do throws(FiefError) {
            forgetCollectionEntries(write)
            let entries = try entryTable(write, table, column, owner, dbi)
            var delta = 0
            var key: [UInt8] = []
            for (element, data) in adding {
                key.removeAll(keepingCapacity: true)
                SetStore.appendBigEndian(UInt64(bitPattern: owner), &key)
                key += element
                let new = try key.withBytes { (k) throws(FiefError) -> Bool in
                    try element.withBytes { (e) throws(FiefError) -> Bool in
                        switch entries.lookup(e) {
                        case .put: return false
                        case .deleted: break
                        case .absent:
                            if !entries.emptyAtStart, let held = try LMDB.get(write.txn, dbi, k) {
                                _ = try openSetEntry(table, column, k, held)
                                return false
                            }
                        }
                        try data.withBytes { (v) throws(FiefError) in try entries.put(e, v) { false } }
                        return true
                    }
                }
                guard new else { continue }
                delta += 1
                if column.elementType == .link || column.elementType == .mixed {
                    let value = try element.withBytes { (e) throws(FiefError) in
                        try data.withBytes { (d) throws(FiefError) in try self.element((e, d), table, column, owner) }
                    }
                    try countCollectionLink(write, table, column, owner, value, 1)
                }
            }
            for element in removing {
                key.removeAll(keepingCapacity: true)
                SetStore.appendBigEndian(UInt64(bitPattern: owner), &key)
                key += element
                let gone = try key.withBytes { (k) throws(FiefError) -> Value? in
                    try element.withBytes { (e) throws(FiefError) -> Value? in
                        let stored: UnsafeRawBufferPointer
                        switch entries.lookup(e) {
                        case .put(let data): stored = data
                        case .deleted: return nil
                        case .absent:
                            guard !entries.emptyAtStart, let data = try LMDB.get(write.txn, dbi, k) else { return nil }
                            stored = try openSetEntry(table, column, k, data)
                        }
                        var value: Value = .null
                        if column.elementType == .link || column.elementType == .mixed {
                            value = try self.element((e, stored), table, column, owner)
                        }
                        try entries.delete(e) { true }
                        return value
                    }
                }
                guard let gone else { continue }
                delta -= 1
                try countCollectionLink(write, table, column, owner, gone, -1)
            }
            if delta != 0 {
                try setCollectionSize(write, table, column, owner, try collectionSize(table, column, owner) + delta)
            }
            try write.boundEntries()
        } catch { throw poison(write, error) }
    }

    // MARK: Deleting objects

    /// Object `key` of `table` is being deleted: its sets go (their links
    /// lose their backlinks).
    func deletingSets(_ write: WriteTransaction, _ table: Table, _ key: Int64) throws(FiefError) {
        for (property, dbi) in table.sets {
            try clearSet(write, table, try table.column(property.key), dbi, key, ownerDeleted: true)
        }
    }

    /// Every object of `table` is being deleted: all their sets go.
    func emptyingSets(_ write: WriteTransaction, _ table: Table) throws(FiefError) {
        try dropEntries(write, table)
        forgetCollectionEntries(write)
        for (property, dbi) in table.sets {
            let column = try table.column(property.key)
            if column.elementType == .link || column.elementType == .mixed {
                let cursor = try LMDBCursor(write.txn, dbi)
                var entry = try cursor.move(MDB_FIRST)
                while let (k, v) = entry, let owner = SetStore.owner(of: k) {
                    let value = try element((UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...]), try openSetEntry(table, column, k, v)), table, column, owner)
                    try countCollectionLink(write, table, column, owner, value, -1)
                    entry = try cursor.next()
                }
            }
            try LMDB.check(mdb_drop(write.txn, dbi, 0), "deleting sets")
        }
    }

    /// Object `target` is being deleted: it leaves set (`originClass`,
    /// `property`) of object `origin`.
    func removeSetLink(_ write: WriteTransaction, originClass: UInt32, property: UInt32, origin: Int64, targetClass: UInt32, target: Int64) throws(FiefError) {
        let table = try table(originClass)
        let column = try table.column(property)
        let dbi = try table.setDatabase(property)
        SetStore.encode(.link(classKey: targetClass, objectKey: target), owner: origin, mixed: column.elementType == .mixed, into: &write.entryKey)
        forgetCollectionEntries(write)
        let entries = try entryTable(write, table, column, origin, dbi)
        let gone = try write.entryKey.withBytes { (k) throws(FiefError) -> Bool in
            try entries.removeStored(k, write.txn)
        }
        if gone { try setCollectionSize(write, table, column, origin, try collectionSize(table, column, origin) - 1) }
    }
}

/// The operations of a set, on its entries in the class's set database
/// (`SetStore`: LMDB's B-tree is the set, the owner's column its size).
extension SetAccess {
    /// The number of elements of a set.
    public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        let (table, column) = try realm.collection(ref, .set)
        return try realm.collectionSize(table, column, ref.owner)
    }

    /// Element `index` of a set, in the set's order (a view for strings and binaries).
    public func value(at index: Int) throws(FiefError) -> Value {
        try realm.checkReadable()
        let (table, column) = try realm.collection(ref, .set)
        let entries = try realm.collectionEntries(ref.id, try table.setDatabase(column.key), sealed: column.key).entries
        guard index >= 0, index < entries.count else {
            throw FiefError(.indexOutOfBounds, "index \(index) is out of range: the set '\(table.objectClass.name).\((try? table.property(column.key).name) ?? "")' has \(entries.count) element\(entries.count == 1 ? "" : "s")")
        }
        return try realm.element(entries[index], table, column, ref.owner)
    }

    /// Elements `start ..< start + out.count` of a set, in order, into `out`.
    public func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        try realm.checkReadable()
        let (table, column) = try realm.collection(ref, .set)
        let entries = try realm.collectionEntries(ref.id, try table.setDatabase(column.key), sealed: column.key).entries
        guard FiefError.rangeFits(start: start, count: out.count, size: entries.count) else {
            throw FiefError.rangeOutOfBounds("elements", start: start, count: out.count, "the set", size: entries.count)
        }
        for i in 0..<out.count { out[i] = try realm.element(entries[start + i], table, column, ref.owner) }
    }

    /// Whether the set holds `value` (a value of another type: never): one lookup.
    public func contains(_ value: Value) throws(FiefError) -> Bool {
        try realm.checkReadable()
        let (table, column) = try realm.collection(ref, .set)
        let property = try table.property(column.key)
        guard let wanted = try? value.coerced(for: property, className: table.objectClass.name) else { return false }
        let mixed = column.elementType == .mixed
        if !mixed, case .link(let classKey, _) = wanted, classKey != column.linkTarget { return false }
        var key: [UInt8] = []
        let cut = SetStore.encode(wanted, owner: ref.owner, mixed: mixed, into: &key)
        let whole = cut ? SetStore.entryData(wanted, mixed: mixed) : []
        let dbi = try table.setDatabase(column.key)
        return try realm.withReadTransaction { (txn) throws(FiefError) -> Bool in
            try key.withBytes { (k) throws(FiefError) -> Bool in
                let stored: UnsafeRawBufferPointer
                switch realm.write?.buffer.entries[ref.id]?.lookup(UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...])) ?? .absent {
                case .put(let data): stored = data
                case .deleted: return false
                case .absent:
                    guard let data = try LMDB.get(txn, dbi, k) else { return false }
                    stored = try realm.openSetEntry(table, column, k, data)
                }
                return !cut || whole.withUnsafeBytes { SetStore.sameBytes(stored, $0) }
            }
        }
    }

    /// The position of `value` in the set's order, if the set holds it.
    public func firstIndex(of value: Value) throws(FiefError) -> Int? {
        try realm.checkReadable()
        let (table, column) = try realm.collection(ref, .set)
        let property = try table.property(column.key)
        guard let wanted = try? value.coerced(for: property, className: table.objectClass.name) else { return nil }
        let mixed = column.elementType == .mixed
        if !mixed, case .link(let classKey, _) = wanted, classKey != column.linkTarget { return nil }
        var key: [UInt8] = []
        let cut = SetStore.encode(wanted, owner: ref.owner, mixed: mixed, into: &key)
        let entries = try realm.collectionEntries(ref.id, try table.setDatabase(column.key), sealed: column.key).entries
        let found = key.withUnsafeBytes { (k) -> Int? in
            let probe = UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...])
            var low = 0, high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if Realm.compareKeys(entries[mid].key, probe) < 0 { low = mid + 1 } else { high = mid }
            }
            return low < entries.count && Realm.compareKeys(entries[low].key, probe) == 0 ? low : nil
        }
        guard let found else { return nil }
        // A cut string or binary: its key holds a hash; the entry holds it whole.
        if cut, !SetStore.entryData(wanted, mixed: mixed).withUnsafeBytes({ SetStore.sameBytes(entries[found].value, $0) }) { return nil }
        return found
    }

    /// Add `value` to a set; true when it was not there yet.
    @discardableResult
    public func insert(_ value: Value) throws(FiefError) -> Bool {
        let (write, table, column, dbi) = try realm.changeSet(ref)
        let property = try table.property(column.key)
        let element = try value.coerced(for: property, className: table.objectClass.name)
        if case .link = element { try Links.check(realm, element, table, column, property) }
        let mixed = column.elementType == .mixed
        let cut = SetStore.encode(element, owner: ref.owner, mixed: mixed, into: &write.entryKey)
        let whole = cut || mixed ? SetStore.entryData(element, mixed: mixed) : []
        do throws(FiefError) {
            realm.forgetCollectionEntries(write)
            let entries = try realm.entryTable(write, table, column, ref.owner, dbi)
            let added = try write.entryKey.withBytes { (k) throws(FiefError) -> Bool in
                try whole.withBytes { (data) throws(FiefError) -> Bool in
                    let e = UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...])
                    var stored: UnsafeRawBufferPointer?
                    switch entries.lookup(e) {
                    case .put(let held): stored = held
                    case .deleted: break
                    case .absent:
                        if !entries.emptyAtStart, let held = try LMDB.get(write.txn, dbi, k) { stored = try realm.openSetEntry(table, column, k, held) }
                    }
                    if let stored {
                        if cut, !SetStore.sameBytes(stored, data) {
                            throw FiefError(.invalidArgument, "the set '\(table.objectClass.name).\(property.name)' holds another element of \(data.count) bytes with the same first \(SetStore.cutBytes) bytes and hash: this one cannot be added")
                        }
                        return false
                    }
                    try entries.put(e, data) { false }
                    return true
                }
            }
            guard added else { return false }
            try realm.countCollectionLink(write, table, column, ref.owner, element, 1)
            try realm.setCollectionSize(write, table, column, ref.owner, try realm.collectionSize(table, column, ref.owner) + 1)
            try write.boundEntries()
            return true
        } catch { throw realm.poison(write, error) }
    }

    /// Take `value` out of a set; true when it was there.
    @discardableResult
    public func remove(_ value: Value) throws(FiefError) -> Bool {
        let (write, table, column, dbi) = try realm.changeSet(ref)
        let property = try table.property(column.key)
        guard let element = try? value.coerced(for: property, className: table.objectClass.name) else { return false }
        let mixed = column.elementType == .mixed
        if !mixed, case .link(let classKey, _) = element, classKey != column.linkTarget { return false }
        let cut = SetStore.encode(element, owner: ref.owner, mixed: mixed, into: &write.entryKey)
        let whole = cut ? SetStore.entryData(element, mixed: mixed) : []
        do throws(FiefError) {
            let entries = try realm.entryTable(write, table, column, ref.owner, dbi)
            let removed = try write.entryKey.withBytes { (k) throws(FiefError) -> Bool in
                let e = UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...])
                let stored: UnsafeRawBufferPointer
                switch entries.lookup(e) {
                case .put(let held): stored = held
                case .deleted: return false
                case .absent:
                    guard !entries.emptyAtStart, let held = try LMDB.get(write.txn, dbi, k) else { return false }
                    stored = try realm.openSetEntry(table, column, k, held)
                }
                if cut, !whole.withUnsafeBytes({ SetStore.sameBytes(stored, $0) }) { return false }
                realm.forgetCollectionEntries(write)
                try entries.delete(e) { true }
                return true
            }
            guard removed else { return false }
            try realm.countCollectionLink(write, table, column, ref.owner, element, -1)
            try realm.setCollectionSize(write, table, column, ref.owner, try realm.collectionSize(table, column, ref.owner) - 1)
            try write.boundEntries()
            return true
        } catch { throw realm.poison(write, error) }
    }

    /// Remove every element.
    public func removeAll() throws(FiefError) {
        let (write, table, column, dbi) = try realm.changeSet(ref)
        do throws(FiefError) {
            try realm.clearSet(write, table, column, dbi, ref.owner)
        } catch { throw realm.poison(write, error) }
    }

    /// Whether the two sets share an element.
    public func intersects(_ b: CollectionRef) throws(FiefError) -> Bool {
        let (_, _, ea, eb) = try realm.algebraOperands(ref, b)
        var found = false
        try Realm.merge(ea, eb) { (_, shared) throws(FiefError) in found = shared; return !shared }
        return found
    }

    /// Whether every element of `a` is in `b`.
    public func isSubset(of b: CollectionRef) throws(FiefError) -> Bool {
        let (_, _, ea, eb) = try realm.algebraOperands(ref, b)
        if ea.count > eb.count { return false }
        var all = true
        try Realm.merge(ea, eb) { (_, shared) throws(FiefError) in all = shared; return shared }
        return all
    }

    /// Add every element of `b` to `a`.
    public func formUnion(_ b: CollectionRef) throws(FiefError) {
        let (write, table, column, dbi) = try realm.changeSet(ref)
        let (_, _, _, eb) = try realm.algebraOperands(ref, b)
        // Copied first: `b` may be stored in the database being written.
        let added = eb.map { (Array($0.key), Array($0.value)) }
        try realm.changeByKeys(write, table, column, dbi, ref.owner, adding: added)
    }

    /// Keep only the elements of `a` that are in `b`.
    public func formIntersection(_ b: CollectionRef) throws(FiefError) {
        let (write, table, column, dbi) = try realm.changeSet(ref)
        let (_, _, ea, eb) = try realm.algebraOperands(ref, b)
        var removed: [[UInt8]] = []
        try Realm.merge(ea, eb) { (i, shared) throws(FiefError) in
            if !shared { removed.append(Array(ea[i].key)) }
            return true
        }
        try realm.changeByKeys(write, table, column, dbi, ref.owner, removing: removed)
    }

    /// Remove from `a` every element of `b`.
    public func subtract(_ b: CollectionRef) throws(FiefError) {
        let (write, table, column, dbi) = try realm.changeSet(ref)
        let (_, _, ea, eb) = try realm.algebraOperands(ref, b)
        var removed: [[UInt8]] = []
        try Realm.merge(ea, eb) { (i, shared) throws(FiefError) in
            if shared { removed.append(Array(ea[i].key)) }
            return true
        }
        try realm.changeByKeys(write, table, column, dbi, ref.owner, removing: removed)
    }
}
