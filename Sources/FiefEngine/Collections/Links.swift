import CLMDB
import FiefStorage

/// To-one links: the checks on a link written, and the backlinks that every
/// link write, object creation and deletion keeps exact (see `Backlinks`).
///
/// A link column stores the target's object key (`PropertyType.stored` is
/// `.int`); the target class is the property's.  Deleting a target nulls
/// every link to it, in the same transaction.
enum Links {
    /// Objects of an embedded class are made only in place, in a parent's link.
    static func refuseStandalone(_ table: Table) throws(FiefError) {
        if table.objectClass.isEmbedded {
            throw FiefError(.invalidArgument, "class '\(table.objectClass.name)' is embedded: its objects are created in place, in a link of their parent (fief_object_create_embedded), never on their own")
        }
    }

    /// Check a value about to be written to link `column` of `table`: null,
    /// or an existing object of the column's target class in this realm
    /// (never an embedded object: those are created in place).
    static func check(_ realm: Realm, _ value: Value, _ table: Table, _ column: Column, _ property: Property) throws(FiefError) {
        guard case .link(let classKey, let objectKey) = value else { return }
        // Made only for an error: a check that passes builds no string.
        var name: String { "'\(table.objectClass.name).\(property.name)'" }
        if column.elementType == .mixed {
            // A mixed value links to an object of any class that is not embedded.
            guard let target = try? realm.table(classKey) else {
                throw FiefError(.noSuchClass, "\(name) cannot link to an object of class \(classKey): the realm has no such class")
            }
            if target.objectClass.isEmbedded {
                throw FiefError(.invalidArgument, "\(name) is mixed and cannot hold an embedded '\(target.objectClass.name)' (embedded objects live only in links, lists and maps of their class)")
            }
            guard try realm.isLive(target, objectKey) else {
                throw FiefError(.noSuchObject, "\(name) cannot link to \(target.objectClass.name) object \(objectKey): it does not exist (deleted?)")
            }
            return
        }
        if classKey == column.linkTarget, let target = try? realm.table(classKey), target.objectClass.isEmbedded {
            throw FiefError(.invalidArgument, "\(name) holds an embedded '\(target.objectClass.name)': create it in place (fief_object_create_embedded, fief_list_insert_embedded, fief_map_insert_embedded) instead of linking an existing object")
        }
        guard classKey == column.linkTarget else {
            let given = (try? realm.table(classKey)).map { "class '\($0.objectClass.name)'" } ?? "unknown class \(classKey)"
            throw FiefError(.typeMismatch, "\(name) links to '\(property.linkTarget ?? "")' objects, not to an object of \(given)")
        }
        let target = try realm.table(classKey)
        guard try realm.isLive(target, objectKey) else {
            throw FiefError(.noSuchObject, "\(name) cannot link to \(target.objectClass.name) object \(objectKey): it does not exist (deleted?)")
        }
    }

    /// Keep the backlinks of link `property` of object `key` as its value
    /// goes from `old` to `new`.
    static func replaced(_ realm: Realm, _ write: WriteTransaction, _ table: Table, _ property: Property,
                         _ key: Int64, old: Value, new: Value) throws(FiefError) {
        if case .link(let oldClass, let oldKey) = old {
            if case .link(let newClass, let newKey) = new, newClass == oldClass, newKey == oldKey { return }
            try Backlinks.remove(write, try backlinks(realm, oldClass), target: oldKey, originClass: table.key, property: property.key, origin: key)
        }
        if case .link(let newClass, let newKey) = new {
            try Backlinks.add(write, try backlinks(realm, newClass), target: newKey, originClass: table.key, property: property.key, origin: key)
        }
    }

    /// Record the backlinks of the links of objects `first ..< first + rows`
    /// just created with values for `properties`.
    static func created(_ realm: Realm, _ write: WriteTransaction, _ table: Table, _ properties: [Property],
                        first: Int64, rows: Int) throws(FiefError) {
        for property in properties where property.type == .link || property.type == .mixed {
            let column = try table.column(property.key)
            for row in 0..<rows {
                let key = first + Int64(row)
                if case .link(let classKey, let target) = try realm.slotValue(table, column, key) {
                    try Backlinks.add(write, try backlinks(realm, classKey), target: target, originClass: table.key, property: property.key, origin: key)
                }
            }
        }
    }

    /// Before object `key` of `table` is deleted: its own links lose their
    /// backlinks, and every link to it becomes null.
    static func deleting(_ realm: Realm, _ write: WriteTransaction, _ table: Table, _ key: Int64) throws(FiefError) {
        for property in table.mixedProperties {
            let value = try realm.slotValue(table, try table.column(property.key), key)
            if case .link(let targetClass, let target) = value {
                try Backlinks.remove(write, try backlinks(realm, targetClass), target: target, originClass: table.key, property: property.key, origin: key)
            }
            try realm.droppedMixed(write, table, owner: key, property: property.key, value)
        }
        for (property, targetClass) in table.links {
            if case .link(_, let target) = try realm.slotValue(table, try table.column(property.key), key) {
                try Backlinks.remove(write, try backlinks(realm, targetClass), target: target, originClass: table.key, property: property.key, origin: key)
                // The embedded objects it owns go with it.
                let targetTable = try realm.table(targetClass)
                if targetTable.objectClass.isEmbedded, try realm.isLive(targetTable, target) {
                    try realm.deleteObject(write, targetTable, target)
                }
            }
        }
        guard let dbi = table.backlinks else { return }
        // Its backlinks go first (one pass of the class's cursor), then
        // each link to it: nulling a link or taking it out of a list does
        // not read the backlinks.
        let state = write.classWrite(table.key)
        let cursor: LMDBCursor
        if let open = state.backlinksCursor {
            cursor = open
        } else {
            cursor = try LMDBCursor(write.txn, dbi)
            state.backlinksCursor = cursor
        }
        var referrers: [(UInt32, UInt32, Int64, UInt32)] = []
        try Backlinks.take(write, cursor, target: key, into: &referrers)
        for (originClass, property, origin, count) in referrers {
            try unlink(realm, write, originClass: originClass, property: property, origin: origin, targetClass: table.key, target: key, count: count)
        }
    }

    /// Before every object of `table` is deleted: the same, for all of them.
    static func emptying(_ realm: Realm, _ write: WriteTransaction, _ table: Table) throws(FiefError) {
        if !table.links.isEmpty || !table.mixedProperties.isEmpty {
            for (cluster, live) in try realm.clusters(table) {
                for word in 0..<4 {
                    var bits = live[word]
                    while bits != 0 {
                        let key = cluster << ClusterLayout.shift | Int64(word << 6 | bits.trailingZeroBitCount)
                        bits &= bits - 1
                        for property in table.mixedProperties {
                            let value = try realm.slotValue(table, try table.column(property.key), key)
                            if case .link(let targetClass, let target) = value {
                                try Backlinks.remove(write, try backlinks(realm, targetClass), target: target,
                                                     originClass: table.key, property: property.key, origin: key)
                            }
                            try realm.droppedMixed(write, table, owner: key, property: property.key, value)
                        }
                        for (property, targetClass) in table.links {
                            if case .link(_, let target) = try realm.slotValue(table, try table.column(property.key), key) {
                                try Backlinks.remove(write, try backlinks(realm, targetClass), target: target,
                                                     originClass: table.key, property: property.key, origin: key)
                                let targetTable = try realm.table(targetClass)
                                if targetTable.objectClass.isEmbedded, targetClass != table.key, try realm.isLive(targetTable, target) {
                                    try realm.deleteObject(write, targetTable, target)
                                }
                            }
                        }
                    }
                }
            }
        }
        guard let dbi = table.backlinks else { return }
        var referrers: [(Int64, UInt32, UInt32, Int64, UInt32)] = []
        try Backlinks.settle(write, dbi)
        try Backlinks.forEachRecord(write.txn, dbi) { (target, originClass, property, origin, count) throws(FiefError) in
            referrers.append((target, originClass, property, origin, count))
        }
        for (target, originClass, property, origin, count) in referrers where originClass != table.key {
            try unlink(realm, write, originClass: originClass, property: property, origin: origin, targetClass: table.key, target: target, count: count)
        }
        try LMDB.check(mdb_drop(write.txn, dbi, 0), "deleting links")
        write.buffer.discard(dbi)
    }

    /// Null the link `property` of object `origin` of class `originClass`,
    /// or remove `target` from it if it is a list or set, or null the map
    /// values pointing at it (`target`, of class `targetClass`, is being
    /// deleted; its backlink counts `count` links).
    private static func unlink(_ realm: Realm, _ write: WriteTransaction, originClass: UInt32, property: UInt32, origin: Int64,
                               targetClass: UInt32, target: Int64, count: UInt32) throws(FiefError) {
        let table = try realm.table(originClass)
        let column = try table.column(property)
        if column.elementType == .link || column.elementType == .mixed {
            switch column.collection {
            case .list:
                try realm.removeLinks(write, originClass: originClass, property: property, origin: origin, targetClass: targetClass,
                                      target: target, count: Int(count))
                return
            case .set:
                try realm.removeSetLink(write, originClass: originClass, property: property, origin: origin, targetClass: targetClass, target: target)
                return
            case .map:
                try realm.nullMapLinks(write, originClass: originClass, property: property, origin: origin, targetClass: targetClass, target: target)
                return
            case .none:
                break
            }
        }
        if column.isMixed {
            switch try realm.slotValue(table, column, origin) {
            case .link(let c, let k) where c == targetClass && k == target:
                if column.hasIndex, let indexed = table.objectClass.properties.first(where: { $0.key == property }) {
                    try realm.deleteIndexEntry(write, table, indexed, .link(classKey: c, objectKey: k), origin)
                    try realm.putIndexEntry(write, table, indexed, .null, origin)
                }
                let chunk = try realm.dirtyChunk(write, table, column: property, type: column.type, cluster: ClusterLayout.cluster(of: origin))
                chunk.set(ClusterLayout.slot(of: origin), .null)
                realm.noteColumnChange(originClass, property)
            case .nestedList(let id), .nestedDictionary(let id):
                try realm.unlinkNested(write, table, owner: origin, property: property, id: id, targetClass: targetClass, target: target)
            default:
                break
            }
            return
        }
        guard column.type == .link else {
            throw FiefError(.fileCorrupt, "a stored backlink names '\(table.objectClass.name)' property \(property), which is not a link")
        }
        let chunk = try realm.dirtyChunk(write, table, column: property, type: column.type, cluster: ClusterLayout.cluster(of: origin))
        chunk.set(ClusterLayout.slot(of: origin), .null)
        realm.noteColumnChange(originClass, property)
    }

    /// The backlinks database of class `classKey`.
    private static func backlinks(_ realm: Realm, _ classKey: UInt32) throws(FiefError) -> MDB_dbi {
        let table = try realm.table(classKey)
        guard let dbi = table.backlinks else {
            throw FiefError(.internal, "class '\(table.objectClass.name)' is linked to but has no backlinks database")
        }
        return dbi
    }
}

extension Realm {
    /// The objects of class `originClass` whose link `property` points to
    /// object `key` of class `targetClass`, in key order (one range scan of
    /// the target's backlinks); empty once the target is gone.
    func linkingObjects(to key: Int64, of targetClass: UInt32, originClass: UInt32, property: UInt32) throws(FiefError) -> [Int64] {
        let target = try table(targetClass)
        guard let dbi = target.backlinks else { return [] }
        var origins: [Int64] = []
        if let write {
            try Backlinks.forEach(write, dbi, target: key, originClass: originClass, property: property, pairs: target.backlinkPairs) { (_, _, origin, _) throws(FiefError) in
                origins.append(origin)
            }
        } else {
            try currentSnapshot().withTransaction { (txn) throws(FiefError) in
                try Backlinks.forEach(txn, dbi, target: key, originClass: originClass, property: property, pairs: target.backlinkPairs) { (_, _, origin, _) throws(FiefError) in
                    origins.append(origin)
                }
            }
        }
        return origins
    }

    /// The objects linking each of `keys` (objects of class `targetClass`,
    /// ascending) through the links `pairs` (origin class << 32 | its link
    /// property): `body(the pair's index in pairs, origin)` per record,
    /// key by key.  In a snapshot one transaction and one `BacklinkScanner`
    /// read them all in key order (a key that a seek showed has no record
    /// costs no seek); in a write transaction each key is read as
    /// `linkingObjects` reads it.
    func forEachLinkingObject(to keys: [Int64], of targetClass: UInt32, through pairs: [UInt64],
                              _ body: (Int, Int64) throws(FiefError) -> Void) throws(FiefError) {
        let target = try table(targetClass)
        guard let dbi = target.backlinks, !keys.isEmpty, !pairs.isEmpty else { return }
        if write != nil {
            for key in keys {
                for (index, pair) in pairs.enumerated() {
                    let origins = try linkingObjects(to: key, of: targetClass, originClass: UInt32(truncatingIfNeeded: pair >> 32),
                                                     property: UInt32(truncatingIfNeeded: pair))
                    for origin in origins { try body(index, origin) }
                }
            }
            return
        }
        let snapshot = try currentSnapshot()
        try snapshot.withTransaction { (txn) throws(FiefError) in
            try DamagedTrees.check(txn, dbi)
            var scanner = BacklinkScanner(cursor: try snapshot.cursor(dbi), checked: snapshot.checkedRuns, directory: snapshot.runDirectory(dbi))
            for key in keys {
                try scanner.forEachRecord(of: key) { (pair, origin, _) throws(FiefError) in
                    if let index = pairs.firstIndex(of: pair) { try body(index, origin) }
                }
            }
        }
    }

    /// How many objects of class `originClass` link object `key` of class
    /// `targetClass` through `property`: the target's backlink records of
    /// that pair, counted in place without gathering the origins (in a
    /// snapshot through its cursor, checked runs and run directory, as a
    /// query's count of a link path reads them).  A count of 0 is taken
    /// again by `linkingObjects`, whose walk checks that a run found in the
    /// target's place names only this class's links (damage otherwise).
    func linkingObjectCount(to key: Int64, of targetClass: UInt32, originClass: UInt32, property: UInt32) throws(FiefError) -> Int {
        let target = try table(targetClass)
        guard let dbi = target.backlinks else { return 0 }
        let counted: Int
        if let write, write.buffer.pendingDeltas(dbi) != nil {
            // Buffered changes: the target's records merged with them.
            return try linkingObjects(to: key, of: targetClass, originClass: originClass, property: property).count
        } else if let write {
            var scanner = try BacklinkScanner(write.txn, dbi)
            counted = try scanner.countRecords(of: key, originClass: originClass, property: property)
        } else {
            let snapshot = try currentSnapshot()
            counted = try snapshot.withTransaction { (_) throws(FiefError) -> Int in
                var scanner = BacklinkScanner(cursor: try snapshot.cursor(dbi), checked: snapshot.checkedRuns, directory: snapshot.runDirectory(dbi))
                return try scanner.countRecords(of: key, originClass: originClass, property: property)
            }
        }
        if counted == 0 { return try linkingObjects(to: key, of: targetClass, originClass: originClass, property: property).count }
        return counted
    }
}

extension Realm {
    /// Create an object of the embedded class that link `property` of object
    /// `key` points to, in place: the link's previous embedded object is
    /// deleted, and the new one (all defaults) is owned by this link.
    public func createEmbedded(table tableKey: UInt32, key: Int64, property propertyKey: UInt32) throws(FiefError) -> (classKey: UInt32, objectKey: Int64) {
        let write = try requireWrite()
        let table = try table(tableKey)
        try requireLive(table, key)
        let column = try table.column(propertyKey)
        let property = try table.property(propertyKey)
        guard column.type == .link, let child = try? self.table(column.linkTarget), child.objectClass.isEmbedded else {
            throw FiefError(.invalidArgument, "'\(table.objectClass.name).\(property.name)' is not a link to an embedded class")
        }
        var childKey: Int64 = 0
        do throws(FiefError) {
            try insertStreaming(write, child, properties: [], rows: 1, primaryKeyColumn: -1, keys: &childKey) { (_, _) throws(FiefError) in .null }
            try writeSlot(write, table, property, key, .link(classKey: child.key, objectKey: childKey))
        } catch {
            throw poison(write, error)
        }
        noteMembershipChange(child.key)
        noteColumnChange(table.key, propertyKey)
        return (child.key, childKey)
    }
}
