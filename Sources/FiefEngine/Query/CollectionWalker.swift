import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Walks the elements of one list, set or map property, owner by owner,
/// in place: in a snapshot, one cursor over the collection's database
/// (segments read through `SegmentReader`, entries decoded as views); in a
/// write transaction, through the transaction's own view of the collection.
final class CollectionWalker {
    private let realm: Realm
    private let table: Table
    private let column: Column
    private let dbi: MDB_dbi
    private var cursor: LMDBCursor?
    /// The snapshot `cursor` belongs to.
    private var cursorSnapshot: Snapshot?
    /// A map entry's key being looked up (owner + key), reused.
    private var lookup: [UInt8] = []
    /// Where `forEach` left the cursor after walking the whole collection
    /// of owner `parkedAfter`: on the first entry of a later owner (nil: at
    /// the end).  A scan asks for owners in ascending key order, so the next
    /// owner's collection starts there (or, when that entry is of a later
    /// owner still, is empty) and needs no seek.  -1: the cursor's place is
    /// unknown (another read moved it, or it was opened anew).
    private var parkedAfter: Int64 = -1
    private var parked: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?

    init(_ realm: Realm, _ table: Table, property: UInt32) throws(FiefError) {
        self.realm = realm
        self.table = table
        column = try table.column(property)
        switch column.collection {
        case .list: dbi = try table.listDatabase(property)
        case .set: dbi = try table.setDatabase(property)
        case .map: dbi = try table.mapDatabase(property)
        case .none: throw FiefError(.internal, "'\(table.objectClass.name)' property \(property) is no collection")
        }
    }

    /// Call `visit` with each element of `owner`'s collection (a map's
    /// values; links as `.link`), in the collection's order, until it
    /// returns false; returns whether every element was visited.
    @discardableResult
    func forEach(owner: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if realm.write != nil { return try forEachInWrite(owner, visit) }
        let snapshot = try realm.currentSnapshot()
        // A set's or map's entries walked whole, counted against the size
        // its owner's column records: entries lost (or gained) are damage.
        var walked: Int?
        let whole = try snapshot.withTransaction { (txn) throws(FiefError) -> Bool in
            let cursor = try self.cursor(txn, snapshot, keepParked: true)
            // Lists and sets/maps alike: keys start with the owner, big-endian.
            var entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
            if parkedAfter >= 0, owner > parkedAfter, parked.map({ (SetStore.owner(of: $0.key) ?? owner) >= owner }) ?? true {
                entry = parked
            } else if column.collection == .list {
                var key = (UInt64(0), UInt64(0))
                entry = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                    ListStore.key(raw.baseAddress!, owner: owner, position: 0)
                    return try cursor.seek(UnsafeRawBufferPointer(raw))
                }
            } else {
                var prefix = SetStore.ownerKey(owner)
                entry = try withUnsafeBytes(of: &prefix) { (raw) throws(FiefError) in try cursor.seek(raw) }
            }
            parkedAfter = -1
            if column.collection == .list {
                while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == owner {
                    guard snapshot.bounds.contains(v),
                          let reader = SegmentReader(v, type: column.elementType == .mixed ? .binary : column.elementType, table: table.key,
                                                     key: ListStore.checkKey(column: column.key, owner: owner, position: decoded.position)) else {
                        throw realm.damagedEntry(table, column, owner, "a stored segment")
                    }
                    for i in 0..<reader.count where !visit(try element(reader.value(i, linkTarget: column.linkTarget), owner)) { return false }
                    entry = try cursor.next()
                }
            } else {
                var count = 0
                while let (k, v) = entry, SetStore.belongs(k, to: owner) {
                    if !visit(try storedEntryValue(k, v, owner)) { return false }
                    count += 1
                    entry = try cursor.next()
                }
                walked = count
            }
            parked = entry
            parkedAfter = owner
            return true
        }
        if let walked { try requireStoredCount(walked, owner) }
        return whole
    }

    /// `count` entries found for `owner`'s set or map: what its size column says, or damage.
    private func requireStoredCount(_ count: Int, _ owner: Int64) throws(FiefError) {
        let size = try realm.collectionSize(table, column, owner)
        guard size != count else { return }
        let name = (try? table.property(column.key).name) ?? ""
        throw FiefError(.fileCorrupt, "the entries of '\(table.objectClass.name).\(name)' of object \(owner) are damaged: \(count) stored, \(size) recorded; `fief copy` writes a sound copy", path: realm.environment.path)
    }

    /// Call `visit` with each key of `owner`'s map (a string, a view), in
    /// key order, until it returns false.
    @discardableResult
    func forEachKey(owner: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if realm.write != nil {
            for entry in try realm.collectionEntries(ListID(table: table.key, column: column.key, owner: owner), dbi, sealed: column.key).entries {
                if !visit(.string(entry.key)) { return false }
            }
            return true
        }
        let snapshot = try realm.currentSnapshot()
        var walked: Int?
        let whole = try snapshot.withTransaction { (txn) throws(FiefError) -> Bool in
            let cursor = try self.cursor(txn, snapshot)
            var prefix = SetStore.ownerKey(owner)
            var entry = try withUnsafeBytes(of: &prefix) { (raw) throws(FiefError) in try cursor.seek(raw) }
            var count = 0
            while let (k, v) = entry, SetStore.belongs(k, to: owner) {
                // The key is bound into its value's checksum: checked with it.
                if EntrySeal.open(v, table: table.key, database: column.key, key: k) == nil { throw realm.damagedSeal(table.key, property: column.key, owner) }
                if !visit(.string(UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...]))) { return false }
                count += 1
                entry = try cursor.next()
            }
            walked = count
            return true
        }
        if let walked { try requireStoredCount(walked, owner) }
        return whole
    }

    /// The value under `key` of `owner`'s map (nil: no such key).
    func value(owner: Int64, key: [UInt8]) throws(FiefError) -> Value? {
        if realm.write != nil {
            return try key.withBytes { (raw) throws(FiefError) -> Value? in
                try realm.map(CollectionRef(.map, table: table.key, owner: owner, property: column.key)).value(forKey: raw)
            }
        }
        let snapshot = try realm.currentSnapshot()
        lookup.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: SetStore.ownerKey(owner)) { lookup.append(contentsOf: $0) }
        lookup.append(contentsOf: key)
        return try snapshot.withTransaction { (txn) throws(FiefError) -> Value? in
            let cursor = try self.cursor(txn, snapshot)
            return try lookup.withBytes { (raw) throws(FiefError) -> Value? in
                guard let (k, v) = try cursor.seek(raw), k.count == raw.count, memcmp(k.baseAddress!, raw.baseAddress!, raw.count) == 0 else { return nil }
                return try storedEntryValue(k, v, owner)
            }
        }
    }

    /// The element at `index` of `owner`'s list (nil past its end).
    func element(owner: Int64, at index: ListIndex) throws(FiefError) -> Value? {
        let size = try realm.collectionSize(table, column, owner)
        let position: Int
        switch index {
        case .at(let n): position = n
        case .last: position = size - 1
        }
        guard position >= 0, position < size else { return nil }
        if realm.write != nil {
            let state = try realm.listState(table, column, owner: owner)
            return try state.element(try state.value(position, table: table), table)
        }
        let snapshot = try realm.currentSnapshot()
        return try snapshot.withTransaction { (txn) throws(FiefError) -> Value? in
            let cursor = try self.cursor(txn, snapshot)
            var key = (UInt64(0), UInt64(0))
            var entry = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                ListStore.key(raw.baseAddress!, owner: owner, position: 0)
                return try cursor.seek(UnsafeRawBufferPointer(raw))
            }
            var skip = position
            // Segment headers hold their counts: only the segment holding the element is read.
            while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == owner, v.count > 0 {
                let count = Int(v.load(as: UInt8.self)) + 1
                if skip < count {
                    guard snapshot.bounds.contains(v),
                          let reader = SegmentReader(v, type: column.elementType == .mixed ? .binary : column.elementType, table: table.key,
                                                     key: ListStore.checkKey(column: column.key, owner: owner, position: decoded.position)) else {
                        throw realm.damagedEntry(table, column, owner, "a stored segment")
                    }
                    return try element(reader.value(skip, linkTarget: column.linkTarget), owner)
                }
                skip -= count
                entry = try cursor.next()
            }
            throw realm.damagedEntry(table, column, owner, "a stored segment (the list holds fewer elements than its size)")
        }
    }

    /// This walker's cursor in `snapshot` (opened on first use); unless
    /// `keepParked`, the caller moves it (see `parkedAfter`).
    private func cursor(_ txn: OpaquePointer, _ snapshot: Snapshot, keepParked: Bool = false) throws(FiefError) -> LMDBCursor {
        if !keepParked { parkedAfter = -1 }
        if let cursor, cursorSnapshot === snapshot { return cursor }
        parkedAfter = -1
        let opened = try LMDBCursor(txn, dbi)
        cursor = opened
        cursorSnapshot = snapshot
        return opened
    }

    private func forEachInWrite(_ owner: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if column.collection == .list {
            let state = try realm.listState(table, column, owner: owner)
            for i in 0..<state.count where !visit(try state.element(try state.value(i, table: table), table)) { return false }
            return true
        }
        for entry in try realm.collectionEntries(ListID(table: table.key, column: column.key, owner: owner), dbi,
                                                 sealed: column.key).entries {
            if !visit(try entryValue(entry.key, entry.value, owner)) { return false }
        }
        return true
    }

    /// A list element as stored: a mixed one decoded.
    @inline(__always)
    private func element(_ stored: Value, _ owner: Int64) throws(FiefError) -> Value {
        guard column.elementType == .mixed, case .binary(let coded) = stored else { return stored }
        guard let value = MixedCoding.decode(coded) else { throw realm.damagedEntry(table, column, owner, "an element") }
        return value
    }

    /// A set element or map value from its entry as stored (the whole
    /// key; the value with its checksum, checked here: a walk reads the
    /// database in place, and one CRC over an entry costs about what a
    /// lookup in a cache of checked entries would).
    @inline(__always)
    private func storedEntryValue(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ owner: Int64) throws(FiefError) -> Value {
        guard let body = EntrySeal.open(value, table: table.key, database: column.key, key: key) else {
            throw realm.damagedSeal(table.key, property: column.key, owner)
        }
        return try entryValue(UnsafeRawBufferPointer(rebasing: key[SetStore.ownerBytes...]), body, owner)
    }

    /// A set element or map value from its entry (key without its owner;
    /// the value without its checksum).
    @inline(__always)
    private func entryValue(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ owner: Int64) throws(FiefError) -> Value {
        let decoded = column.collection == .set
            ? SetStore.storedElement(key, value, type: column.elementType, linkTarget: column.linkTarget)
            : MixedCoding.decode(value)
        guard let decoded else { throw realm.damagedEntry(table, column, owner, column.collection == .set ? "an element" : "a value") }
        if column.collection == .map, case .link(let classKey, _) = decoded,
           column.elementType == .mixed ? !realm.isMixedLinkTarget(classKey) : classKey != column.linkTarget {
            throw realm.damagedEntry(table, column, owner, "a link to a class that does not exist")
        }
        return decoded
    }
}
