import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Nested lists and dictionaries in mixed values (see `NestedStore` for the
/// layout and design.md, "Mixed values").
///
/// A nested collection is created where a `.nestedList` / `.nestedDictionary`
/// value is written to a mixed slot (a mixed property, an element of a list
/// of mixed values, a value of a map of mixed values, or an element of a
/// nested collection): it gets a new id and an empty body.  It belongs to
/// that slot: replacing or removing the value, clearing the collection
/// around it or deleting the owner deletes it and everything nested in it,
/// in the same transaction.  Links inside are recorded in the target's
/// backlinks with the owner object and the top mixed property as their
/// origin; deleting a target removes it from nested lists and nulls it in
/// nested dictionaries.  Every walk over nested collections keeps its own
/// worklist (no recursion per level), so nesting of any depth works on any
/// thread's stack.
extension Realm {
    // MARK: Finding

    /// The class, database and header of nested collection `ref`, checked
    /// to exist (and to be a `kind`, when given).
    fileprivate func nested(_ ref: CollectionRef, _ kind: NestedKind?) throws(FiefError) -> (Table, MDB_dbi, NestedStore.Header) {
        let table = try table(ref.table)
        try requireLive(table, ref.owner)
        let dbi = try table.nestedDatabase()
        let header = try withReadTransaction { (txn) throws(FiefError) in try NestedStore.header(txn, dbi, table: table.key, id: ref.nested, path: environment.path) }
        guard let header, header.owner == ref.owner, header.property == ref.property else {
            throw FiefError(.invalidatedObject, "the nested \(kind?.name ?? "collection") was deleted (the value holding it was replaced or removed)")
        }
        if let kind, header.kind != kind {
            throw FiefError(.invalidArgument, "the nested collection is a \(header.kind.name), not a \(kind.name)")
        }
        return (table, dbi, header)
    }

    /// Whether nested collection `ref` still exists.
    public func nestedExists(_ ref: CollectionRef) throws(FiefError) -> Bool {
        try checkReadable()
        guard hasTable(ref.table), try isLive(try table(ref.table), ref.owner) else { return false }
        do throws(FiefError) {
            _ = try nested(ref, nil)
            return true
        } catch {
            if error.code == .invalidatedObject { return false }
            throw error
        }
    }

    /// The id of the nested `kind` that `value` holds; `what` names the
    /// value in the error when it holds something else.
    public static func nestedID(in value: Value, _ kind: NestedKind, _ what: @autoclosure () -> String) throws(FiefError) -> Int64 {
        switch (value, kind) {
        case (.nestedList(let id), .list), (.nestedDictionary(let id), .dictionary): return id
        default: throw FiefError(.invalidArgument, "\(what()) holds \(value.isNull ? "null" : "a \(value.typeName)"), not a nested \(kind.name)")
        }
    }

    /// The id of the nested `kind` that mixed property `propertyKey` of
    /// object `key` holds.
    public func propertyNestedID(table tableKey: UInt32, key: Int64, property propertyKey: UInt32, _ kind: NestedKind) throws(FiefError) -> Int64 {
        try checkReadable()
        let table = try table(tableKey)
        try requireLive(table, key)
        let column = try table.column(propertyKey)
        guard column.isMixed else {
            throw FiefError(.invalidArgument, "property '\(table.objectClass.name).\((try? table.property(propertyKey).name) ?? "")' is not a \(kind == .list ? "list" : "map") or a mixed value")
        }
        return try Realm.nestedID(in: try slotValue(table, column, key), kind, "'\(table.objectClass.name).\((try? table.property(propertyKey).name) ?? "")'")
    }

    // MARK: Reading

    /// The entries of a nested collection, in order (views; keys without the id).
    fileprivate func nestedEntries(_ ref: CollectionRef, _ dbi: MDB_dbi) throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        try collectionEntries(ref.id, dbi, sealed: ref.property).entries
    }

    /// The entries of nested collection `ref`, checked to exist, as read
    /// once per snapshot (for value results).
    func nestedEntries(_ ref: CollectionRef) throws(FiefError) -> CollectionEntries {
        let (_, dbi, _) = try nested(ref, nil)
        return try collectionEntries(ref.id, dbi, sealed: ref.property)
    }

    /// A stored nested value (without its seal); `reading`: for the caller,
    /// so a link must name a live object (as `mapValue`).
    fileprivate func nestedValue(_ raw: UnsafeRawBufferPointer, _ table: Table, _ ref: CollectionRef, reading: Bool = false) throws(FiefError) -> Value {
        let value = MixedCoding.decode(raw)
        var readable = value != nil
        if case .link(let classKey, let target)? = value {
            readable = isMixedLinkTarget(classKey)
            if readable && reading { readable = try isLinkedObjectLive(classKey, target) }
        }
        guard readable, let value else {
            let name = (try? table.property(ref.property).name) ?? "#\(ref.property)"
            throw FiefError(.fileCorrupt, "'\(environment.path)' is damaged: a value nested in '\(table.objectClass.name).\(name)' of object \(ref.owner) cannot be read", path: environment.path)
        }
        return value
    }

    /// A stored nested value (under `key`) without its checksum.
    fileprivate func openNested(_ raw: UnsafeRawBufferPointer, _ table: Table, _ ref: CollectionRef, _ key: UnsafeRawBufferPointer) throws(FiefError) -> UnsafeRawBufferPointer {
        guard let body = EntrySeal.open(raw, table: table.key, database: EntrySeal.nested, key: key) else {
            throw damagedSeal(table.key, property: ref.property, nil)
        }
        return body
    }

    /// Store coded `value` under `key` of the nested database, sealed.
    fileprivate func putSealedNested(_ write: WriteTransaction, _ table: Table, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FiefError) {
        var scratch: [UInt8] = []
        try EntrySeal.put(write.txn, dbi, table: table.key, database: EntrySeal.nested, key: key, value, scratch: &scratch)
    }

    // MARK: Writing

    /// Check a value for a slot of a nested collection of `ref`'s property.
    fileprivate func nestedElement(_ table: Table, _ ref: CollectionRef, _ value: Value) throws(FiefError) -> Value {
        let property = try table.property(ref.property)
        let column = try table.column(ref.property)
        let element = try value.coerced(for: property, className: table.objectClass.name)
        if case .link = element { try Links.check(self, element, table, column, property) }
        return element
    }

    /// A value about to be stored in a mixed slot of object `owner`'s
    /// property `property`: a nested collection becomes a new, empty one
    /// (its id taken now); anything else is itself.
    func storedMixed(_ write: WriteTransaction, _ table: Table, owner: Int64, property: UInt32, _ value: Value) throws(FiefError) -> Value {
        let kind: NestedKind
        switch value {
        case .nestedList: kind = .list
        case .nestedDictionary: kind = .dictionary
        default: return value
        }
        let dbi = try table.nestedDatabase()
        let id = try NestedStore.takeID(write.txn, dbi, table: table.key)
        try NestedStore.putHeader(write.txn, dbi, table: table.key, id: id, NestedStore.Header(kind: kind, owner: owner, property: property))
        return kind == .list ? .nestedList(id) : .nestedDictionary(id)
    }

    /// A value left a mixed slot of (`owner`, `property`): a nested
    /// collection it held goes, with every collection nested in it (links
    /// inside lose their backlinks).  Links in the slot itself are the
    /// caller's.  The collections are walked with a worklist, not by
    /// recursion, so any depth of nesting goes without deepening the stack.
    func droppedMixed(_ write: WriteTransaction, _ table: Table, owner: Int64, property: UInt32, _ value: Value) throws(FiefError) {
        guard let first = value.nestedID else { return }
        let dbi = try table.nestedDatabase()
        forgetCollectionEntries(write)
        var pending: [Int64] = [first]
        var held: [Value] = []
        while let id = pending.popLast() {
            held.removeAll(keepingCapacity: true)
            for entry in try sealedEntries(write.txn, dbi, table, database: EntrySeal.nested, property: property, owner: id) {
                guard let element = MixedCoding.decode(entry.value) else {
                    throw FiefError(.fileCorrupt, "'\(environment.path)' is damaged: a nested value of object \(owner) cannot be read", path: environment.path)
                }
                switch element {
                case .link, .nestedList, .nestedDictionary: held.append(element)
                default: break
                }
            }
            try SetStore.deleteAll(write.txn, dbi, owner: id)
            try NestedStore.deleteHeader(write.txn, dbi, id: id)
            for element in held {
                try removeNestedBacklink(write, table, owner: owner, property: property, element)
                if let child = element.nestedID { pending.append(child) }
            }
        }
    }

    /// An element leaves a nested collection: its backlink goes, and a
    /// collection it held with it.
    fileprivate func releasedNested(_ write: WriteTransaction, _ table: Table, owner: Int64, property: UInt32, _ value: Value) throws(FiefError) {
        try removeNestedBacklink(write, table, owner: owner, property: property, value)
        try droppedMixed(write, table, owner: owner, property: property, value)
    }

    /// The backlink of a link that leaves a nested collection of (`owner`,
    /// `property`) goes (anything else: nothing to do).
    fileprivate func removeNestedBacklink(_ write: WriteTransaction, _ table: Table, owner: Int64, property: UInt32, _ value: Value) throws(FiefError) {
        guard case .link(let classKey, let target) = value else { return }
        guard let dbi = try self.table(classKey).backlinks else {
            throw FiefError(.internal, "class \(classKey) is linked to but has no backlinks database")
        }
        try Backlinks.remove(write, dbi, target: target, originClass: table.key, property: property, origin: owner)
    }

    /// Store `value` (checked) under `key` of nested collection `ref`;
    /// returns the value stored (a nested collection with its new id).
    fileprivate func putNested(_ write: WriteTransaction, _ table: Table, _ dbi: MDB_dbi, _ ref: CollectionRef,
                           _ key: [UInt8], _ value: Value) throws(FiefError) -> Value {
        let stored = try storedMixed(write, table, owner: ref.owner, property: ref.property, value)
        MixedCoding.encode(stored, into: &write.entryValue)
        forgetCollectionEntries(write)
        try key.withBytes { (k) throws(FiefError) in
            EntrySeal.seal(&write.entryValue, table: table.key, database: EntrySeal.nested, key: k)
            try write.entryValue.withBytes { (v) throws(FiefError) in _ = try LMDB.put(write.txn, dbi, k, v) }
        }
        if case .link = stored { try countCollectionLink(write, table, try table.column(ref.property), ref.owner, stored, 1) }
        noteNestedWrite(write, table.key, owner: ref.owner, property: ref.property)
        return stored
    }

    /// The key a new element at `index` of nested list `ref` gets (the list
    /// is renumbered first when the gap there ran out).
    fileprivate func nestedListKey(_ write: WriteTransaction, _ dbi: MDB_dbi, _ ref: CollectionRef, at index: Int) throws(FiefError) -> [UInt8] {
        var key: [UInt8] = []
        for attempt in 0..<2 {
            let entries = try SetStore.entries(write.txn, dbi, owner: ref.nested)
            var position: UInt64? = nil
            if entries.isEmpty {
                position = NestedStore.firstPosition
            } else if index == entries.count {
                let (next, overflow) = (NestedStore.position(entries[entries.count - 1].key) ?? 0).addingReportingOverflow(NestedStore.positionStep)
                if !overflow { position = next }
            } else {
                let high = NestedStore.position(entries[index].key) ?? 0
                let low = index > 0 ? NestedStore.position(entries[index - 1].key) ?? 0 : 0
                if high > low && high - low >= 2 { position = low + (high - low) / 2 }
            }
            if let position {
                NestedStore.listKey(id: ref.nested, position: position, into: &key)
                return key
            }
            if attempt == 0 { try renumberNestedList(write, try table(ref.table), dbi, ref) }
        }
        throw FiefError(.internal, "no position for a new element of a nested list")
    }

    /// Store a nested list's elements again at evenly spaced positions.
    fileprivate func renumberNestedList(_ write: WriteTransaction, _ table: Table, _ dbi: MDB_dbi, _ ref: CollectionRef) throws(FiefError) {
        forgetCollectionEntries(write)
        let values = try sealedEntries(write.txn, dbi, table, database: EntrySeal.nested, property: ref.property, owner: ref.nested).map { Array($0.value) }
        try SetStore.deleteAll(write.txn, dbi, owner: ref.nested)
        var key: [UInt8] = []
        for (i, value) in values.enumerated() {
            NestedStore.listKey(id: ref.nested, position: NestedStore.firstPosition &+ UInt64(i) &* NestedStore.positionStep, into: &key)
            try key.withBytes { (k) throws(FiefError) in
                try value.withBytes { (v) throws(FiefError) in try putSealedNested(write, table, dbi, k, v) }
            }
        }
    }

    fileprivate func deleteNestedEntry(_ write: WriteTransaction, _ dbi: MDB_dbi, _ ref: CollectionRef, _ suffix: UnsafeRawBufferPointer) throws(FiefError) {
        var key: [UInt8] = []
        SetStore.appendBigEndian(UInt64(bitPattern: ref.nested), &key)
        key.append(contentsOf: suffix)
        forgetCollectionEntries(write)
        try key.withBytes { (k) throws(FiefError) in try LMDB.delete(write.txn, dbi, k) }
    }

    // MARK: Deleting linked objects

    /// Object `target` of `targetClass` is being deleted (its backlinks are
    /// gone already): take it out of nested collection `id` of (`owner`,
    /// `property`) and of every collection nested in it: a nested list
    /// loses the element, a nested dictionary's value becomes null.  The
    /// collections are walked with a worklist, not by recursion, so any
    /// depth of nesting goes without deepening the stack.
    func unlinkNested(_ write: WriteTransaction, _ table: Table, owner: Int64, property: UInt32, id: Int64,
                      targetClass: UInt32, target: Int64) throws(FiefError) {
        let dbi = try table.nestedDatabase()
        var pending: [Int64] = [id]
        var hits: [[UInt8]] = []
        var changed = false
        while let id = pending.popLast() {
            guard let header = try NestedStore.header(write.txn, dbi, table: table.key, id: id, path: environment.path) else { continue }
            hits.removeAll(keepingCapacity: true)
            for entry in try sealedEntries(write.txn, dbi, table, database: EntrySeal.nested, property: property, owner: id) {
                switch MixedCoding.decode(entry.value) {
                case .link(let c, let k)? where c == targetClass && k == target:
                    var key: [UInt8] = []
                    SetStore.appendBigEndian(UInt64(bitPattern: id), &key)
                    key.append(contentsOf: entry.key)
                    hits.append(key)
                case .nestedList(let child)?, .nestedDictionary(let child)?:
                    pending.append(child)
                default:
                    break
                }
            }
            if hits.isEmpty { continue }
            changed = true
            forgetCollectionEntries(write)
            MixedCoding.encode(.null, into: &write.entryValue)
            for key in hits {
                try key.withBytes { (k) throws(FiefError) in
                    if header.kind == .list {
                        try LMDB.delete(write.txn, dbi, k)
                    } else {
                        try write.entryValue.withBytes { (v) throws(FiefError) in try putSealedNested(write, table, dbi, k, v) }
                    }
                }
            }
        }
        if changed { noteNestedWrite(write, table.key, owner: owner, property: property) }
    }
}

extension Realm {
    /// A write inside a collection nested in mixed property `property` of
    /// object `owner` (its entries live apart from the object's chunks): a
    /// write of that property, for cached results and for the commit's
    /// change record (`WriteTransaction.noteIndirectWrite`).
    func noteNestedWrite(_ write: WriteTransaction, _ table: UInt32, owner: Int64, property: UInt32) {
        noteColumnChange(table, property)
        write.noteIndirectWrite(table: table, column: property, key: owner)
    }

    /// Every nested collection held by dropped mixed property `property`
    /// of class `classKey` goes (a schema change): its header names it.
    static func dropNested(_ txn: OpaquePointer, _ dbi: MDB_dbi, table: UInt32, property: UInt32) throws(FiefError) {
        var ids: [Int64] = []
        var start = NestedStore.headerBit.bigEndian
        try withUnsafeBytes(of: &start) { (k) throws(FiefError) in
            let cursor = try LMDBCursor(txn, dbi)
            var entry = try cursor.seek(k)
            while let (key, value) = entry, key.count == 8 {
                let raw = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                if raw == NestedStore.counterKey { break }
                if let header = NestedStore.openHeader(value, table: table, key: key), header.property == property {
                    ids.append(Int64(bitPattern: raw & ~NestedStore.headerBit))
                }
                entry = try cursor.next()
            }
        }
        for id in ids {
            try SetStore.deleteAll(txn, dbi, owner: id)
            try NestedStore.deleteHeader(txn, dbi, id: id)
        }
    }
}

/// The storage of a list nested in a mixed value: its entries in the
/// class's nested database (`NestedStore`), keyed by position.  Opened
/// checked: the owner live, the nested list there.
struct NestedList: ListStorage {
    let write: WriteTransaction?
    let ref: CollectionRef
    let table: Table
    let dbi: MDB_dbi

    init(_ realm: Realm, _ ref: CollectionRef, write: WriteTransaction?) throws(FiefError) {
        self.write = write
        self.ref = ref
        (table, dbi, _) = try realm.nested(ref, .list)
    }

    var name: String { "the nested list" }

    private func entries(_ realm: Realm) throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        try realm.nestedEntries(ref, dbi)
    }

    func count(_ realm: Realm) throws(FiefError) -> Int { try entries(realm).count }

    func value(_ realm: Realm, at index: Int) throws(FiefError) -> Value {
        try realm.nestedValue(try entries(realm)[index].value, table, ref, reading: true)
    }

    func values(_ realm: Realm, from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        let entries = try entries(realm)
        for i in 0..<out.count { out[i] = try realm.nestedValue(entries[start + i].value, table, ref, reading: true) }
    }

    func firstIndex(_ realm: Realm, of value: Value) throws(FiefError) -> Int? {
        if value.nestedID != nil { return nil }
        let wanted = SetStore.mixedKey(value)
        for (i, entry) in try entries(realm).enumerated() {
            let element = try realm.nestedValue(entry.value, table, ref, reading: true)
            if element.nestedID == nil && SetStore.mixedKey(element) == wanted { return i }
        }
        return nil
    }

    func element(_ realm: Realm, _ value: Value) throws(FiefError) -> Value {
        try realm.nestedElement(table, ref, value)
    }

    func elements(_ realm: Realm, _ values: UnsafeBufferPointer<Value>) throws(FiefError) -> [Value] {
        var elements: [Value] = []
        elements.reserveCapacity(values.count)
        for value in values { elements.append(try element(realm, value)) }
        return elements
    }

    func insert(_ realm: Realm, _ element: Value, at index: Int) throws(FiefError) {
        _ = try realm.putNested(write!, table, dbi, ref, try realm.nestedListKey(write!, dbi, ref, at: index), element)
    }

    func append(_ realm: Realm, _ element: Value) throws(FiefError) {
        try withUnsafePointer(to: element) { (p) throws(FiefError) in try append(realm, UnsafeBufferPointer(start: p, count: 1)) }
    }

    func append(_ realm: Realm, _ elements: UnsafeBufferPointer<Value>) throws(FiefError) {
        let write = write!
        // The first position from the stored list, the next ones one step
        // on (one read of the list, not one per element).
        let count = try entries(realm).count
        var key: [UInt8] = []
        var position: UInt64 = 0
        for (i, element) in elements.enumerated() {
            let (next, overflow) = position.addingReportingOverflow(NestedStore.positionStep)
            if i == 0 || overflow {
                key = try realm.nestedListKey(write, dbi, ref, at: count + i)
                position = UInt64(bigEndian: key.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
            } else {
                position = next
                NestedStore.listKey(id: ref.nested, position: position, into: &key)
            }
            _ = try realm.putNested(write, table, dbi, ref, key, element)
        }
    }

    func replace(_ realm: Realm, at index: Int, with element: Value) throws(FiefError) {
        let write = write!
        let entries = try entries(realm)
        let old = try realm.nestedValue(entries[index].value, table, ref)
        if old.isSame(as: element) { return }
        var full: [UInt8] = []
        SetStore.appendBigEndian(UInt64(bitPattern: ref.nested), &full)
        full += Array(entries[index].key)
        _ = try realm.putNested(write, table, dbi, ref, full, element)
        try realm.releasedNested(write, table, owner: ref.owner, property: ref.property, old)
    }

    func remove(_ realm: Realm, at index: Int) throws(FiefError) {
        let write = write!
        let entries = try entries(realm)
        let old = try realm.nestedValue(entries[index].value, table, ref)
        try realm.deleteNestedEntry(write, dbi, ref, entries[index].key)
        try realm.releasedNested(write, table, owner: ref.owner, property: ref.property, old)
        realm.noteNestedWrite(write, table.key, owner: ref.owner, property: ref.property)
    }

    func move(_ realm: Realm, from: Int, to: Int) throws(FiefError) {
        let write = write!
        let entries = try entries(realm)
        let coded = Array(entries[from].value)
        try realm.deleteNestedEntry(write, dbi, ref, entries[from].key)
        let key = try realm.nestedListKey(write, dbi, ref, at: to)
        try key.withBytes { (k) throws(FiefError) in
            try coded.withBytes { (v) throws(FiefError) in try realm.putSealedNested(write, table, dbi, k, v) }
        }
        realm.forgetCollectionEntries(write)
        realm.noteNestedWrite(write, table.key, owner: ref.owner, property: ref.property)
    }

    func swapAt(_ realm: Realm, _ i: Int, _ j: Int) throws(FiefError) {
        let write = write!
        let entries = try entries(realm)
        let a = Array(entries[i].value), b = Array(entries[j].value)
        var keyA: [UInt8] = [], keyB: [UInt8] = []
        SetStore.appendBigEndian(UInt64(bitPattern: ref.nested), &keyA)
        keyA.append(contentsOf: entries[i].key)
        SetStore.appendBigEndian(UInt64(bitPattern: ref.nested), &keyB)
        keyB.append(contentsOf: entries[j].key)
        realm.forgetCollectionEntries(write)
        for (key, value) in [(keyA, b), (keyB, a)] {
            try key.withBytes { (k) throws(FiefError) in
                try value.withBytes { (v) throws(FiefError) in try realm.putSealedNested(write, table, dbi, k, v) }
            }
        }
        realm.noteNestedWrite(write, table.key, owner: ref.owner, property: ref.property)
    }

    func removeAll(_ realm: Realm) throws(FiefError) {
        try realm.clearNested(write!, table, dbi, ref)
    }
}

/// The storage of a dictionary nested in a mixed value: its entries in the
/// class's nested database (`NestedStore`), keyed by key.  Opened checked:
/// the owner live, the nested dictionary there.
struct NestedDictionary: MapStorage {
    let write: WriteTransaction?
    let ref: CollectionRef
    let table: Table
    let dbi: MDB_dbi

    init(_ realm: Realm, _ ref: CollectionRef, write: WriteTransaction?) throws(FiefError) {
        self.write = write
        self.ref = ref
        (table, dbi, _) = try realm.nested(ref, .dictionary)
    }

    var name: String { "the nested dictionary" }
    var keyContext: String { "a nested dictionary" }

    func count(_ realm: Realm) throws(FiefError) -> Int { try entries(realm).count }

    func indexError(_ realm: Realm, _ index: Int, count: Int) -> FiefError {
        FiefError.rangeOutOfBounds("entries", start: index, count: 1, name, size: count)
    }

    func value(_ realm: Realm, forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value? {
        var stored: [UInt8] = []
        NestedStore.dictionaryKey(id: ref.nested, key: key, into: &stored)
        return try realm.withReadTransaction { (txn) throws(FiefError) -> Value? in
            try stored.withBytes { (k) throws(FiefError) -> Value? in
                guard let raw = try LMDB.get(txn, dbi, k) else { return nil }
                return try realm.nestedValue(try realm.openNested(raw, table, ref, k), table, ref, reading: true)
            }
        }
    }

    func entries(_ realm: Realm) throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        try realm.nestedEntries(ref, dbi)
    }

    func value(_ realm: Realm, stored raw: UnsafeRawBufferPointer) throws(FiefError) -> Value {
        try realm.nestedValue(raw, table, ref, reading: true)
    }

    func element(_ realm: Realm, _ value: Value) throws(FiefError) -> Value {
        try realm.nestedElement(table, ref, value)
    }

    func set(_ realm: Realm, _ key: UnsafeRawBufferPointer, _ element: Value) throws(FiefError) {
        let write = write!
        var stored: [UInt8] = []
        NestedStore.dictionaryKey(id: ref.nested, key: key, into: &stored)
        let old = try stored.withBytes { (k) throws(FiefError) -> Value? in
            guard let raw = try LMDB.get(write.txn, dbi, k) else { return nil }
            return try realm.nestedValue(try realm.openNested(raw, table, ref, k), table, ref)
        }
        if let old, old.isSame(as: element) { return }
        _ = try realm.putNested(write, table, dbi, ref, stored, element)
        if let old { try realm.releasedNested(write, table, owner: ref.owner, property: ref.property, old) }
    }

    func remove(_ realm: Realm, _ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool {
        let write = write!
        var stored: [UInt8] = []
        NestedStore.dictionaryKey(id: ref.nested, key: key, into: &stored)
        let old = try stored.withBytes { (k) throws(FiefError) -> Value? in
            guard let raw = try LMDB.get(write.txn, dbi, k) else { return nil }
            let old = try realm.nestedValue(try realm.openNested(raw, table, ref, k), table, ref)
            realm.forgetCollectionEntries(write)
            try LMDB.delete(write.txn, dbi, k)
            return old
        }
        guard let old else { return false }
        try realm.releasedNested(write, table, owner: ref.owner, property: ref.property, old)
        realm.noteNestedWrite(write, table.key, owner: ref.owner, property: ref.property)
        return true
    }

    func removeAll(_ realm: Realm) throws(FiefError) {
        try realm.clearNested(write!, table, dbi, ref)
    }
}

extension Realm {
    /// Remove every element (or key) of nested collection `ref`.
    fileprivate func clearNested(_ write: WriteTransaction, _ table: Table, _ dbi: MDB_dbi, _ ref: CollectionRef) throws(FiefError) {
        var held: [Value] = []
        for entry in try sealedEntries(write.txn, dbi, table, database: EntrySeal.nested, property: ref.property, owner: ref.nested) {
            let element = try nestedValue(entry.value, table, ref)
            switch element {
            case .link, .nestedList, .nestedDictionary: held.append(element)
            default: break
            }
        }
        forgetCollectionEntries(write)
        try SetStore.deleteAll(write.txn, dbi, owner: ref.nested)
        for element in held { try releasedNested(write, table, owner: ref.owner, property: ref.property, element) }
        noteNestedWrite(write, table.key, owner: ref.owner, property: ref.property)
    }
}
