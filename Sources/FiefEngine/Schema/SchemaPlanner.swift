import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Decides, when a realm opens, how the file's schema and the requested one
/// differ, and applies the difference in one write transaction.
///
/// Additive changes (new classes, new properties, indexes added or removed)
/// are always applied.  Anything else (a property removed, its type,
/// optionality or primary-key role changed) needs a higher schema version,
/// and then drops the old column's data; without it the open fails with
/// `.schemaMismatch`.  Linking-objects properties are computed, not stored:
/// the planner ignores them (adding or removing one is no change).
enum SchemaPlanner {
    struct Plan {
        var needsWrite: Bool
    }

    /// What the file holds, read in `txn`: nil for a new (empty) file.
    struct Stored {
        var schema: Schema
        var schemaVersion: UInt64
        var generation: UInt64
        var nextClassKey: UInt64
        /// The file format (`MetaKeys.formatValue`, or 1 to 5: upgraded on a writable open).
        var format: UInt64
    }

    static func readStored(txn: OpaquePointer, environment: Environment) throws(FiefError) -> Stored? {
        let path = environment.path
        guard let meta = try environment.database(MetaKeys.database, txn: txn, create: false).flatMap({ Environment.isUsable($0, in: txn) ? $0 : nil }) else {
            // No meta database: a new file, or somebody else's LMDB file.
            var main: MDB_dbi = 0
            try LMDB.check(mdb_dbi_open(txn, nil, 0, &main), "opening the main database", path: path)
            var stat = MDB_stat()
            try LMDB.check(mdb_stat(txn, main, &stat), "reading the main database", path: path)
            if stat.ms_entries > 0 {
                throw FiefError(.fileNotFief, "'\(path)' is an LMDB file that Fief did not write", path: path)
            }
            return nil
        }
        guard let magic = try MetaKeys.readBytes(txn, meta, MetaKeys.magic), magic.elementsEqual(MetaKeys.magicValue) else {
            throw FiefError(.fileNotFief, "'\(path)' is not a Fief file", path: path)
        }
        let format = try MetaKeys.readUInt64(txn, meta, MetaKeys.format) ?? 0
        guard format == MetaKeys.formatValue || FormatUpgrade.upgrades(format) else {
            throw FiefError(.fileFormat, "'\(path)' has file format \(format); this library reads format \(MetaKeys.formatValue) and upgrades formats 1 to \(MetaKeys.formatValue - 1) (a newer Fief wrote it?)", path: path)
        }
        guard let schemaBytes = try SchemaRecord.read(txn, meta, format: format, path: path) else {
            throw FiefError(.fileNotFief, "'\(path)' has no schema", path: path)
        }
        return Stored(schema: try SchemaCoding.decode(schemaBytes, path: path),
                      schemaVersion: try MetaKeys.readUInt64(txn, meta, MetaKeys.schemaVersion) ?? 0,
                      generation: try MetaKeys.readUInt64(txn, meta, MetaKeys.schemaGeneration) ?? 0,
                      nextClassKey: try MetaKeys.readUInt64(txn, meta, MetaKeys.nextClassKey) ?? 1,
                      format: format)
    }

    static func plan(snapshot: Snapshot, configuration: RealmConfiguration, readOnly: Bool) throws(FiefError) -> Plan {
        let stored = try readStored(txn: snapshot.txn, environment: snapshot.environment)
        guard let stored else {
            if readOnly {
                throw FiefError(.fileNotFief, "'\(snapshot.environment.path)' is empty, not a Fief file", path: snapshot.environment.path)
            }
            return Plan(needsWrite: true)
        }
        if FormatUpgrade.upgrades(stored.format) {
            let path = snapshot.environment.path
            let directions = "open it once writable, or write an upgraded copy with `fief copy \(path) NEW`"
            if !readOnly { return Plan(needsWrite: true) }
            if FormatUpgrade.mustRewrite(stored.format) {
                throw FiefError(.fileFormat, "'\(path)' has file format \(stored.format), which this library upgrades to format \(MetaKeys.formatValue) when it opens the file for writing; \(directions)", path: path)
            }
            // Formats 3 and 5 store what format 6 does: read as they are,
            // unless they hold derived data format 6 rebuilds.
            if FormatUpgrade.rebuildsDerivedData(stored.format),
               let obstacle = try FormatUpgrade.readOnlyObstacle(snapshot.txn, environment: snapshot.environment, schema: stored.schema) {
                throw FiefError(.fileFormat, "'\(path)' has file format \(stored.format) and holds \(obstacle); this library rebuilds them when it opens the file for writing (upgrading it to format \(MetaKeys.formatValue)): \(directions)", path: path)
            }
            // Entries without checksums (maps and nested before format 7, sets before 10).
            if FormatUpgrade.lacksSeals(stored.format) {
                let unsealed = try FormatUpgrade.unsealedDatabases(snapshot.environment, schema: stored.schema, format: stored.format)
                if !unsealed.isEmpty {
                    throw FiefError(.fileFormat, "'\(path)' has file format \(stored.format), whose \(FormatUpgrade.sealsEntries(stored.format) ? "sets, maps and nested collections" : "sets") (\(unsealed.joined(separator: ", "))) have no checksums; this library adds them when it opens the file for writing (upgrading it to format \(MetaKeys.formatValue)): \(directions)", path: path)
                }
            }
        }
        if !readOnly, try lacksNestedDatabase(snapshot.txn, snapshot.environment, stored.schema) { return Plan(needsWrite: true) }
        if !readOnly, try lacksGeoIndex(snapshot.txn, snapshot.environment, stored.schema) { return Plan(needsWrite: true) }
        guard let requested = configuration.schema else { return Plan(needsWrite: false) }
        let result = try merge(stored: stored, requested: requested, requestedVersion: configuration.schemaVersion, path: snapshot.environment.path)
        if result.changed && readOnly {
            throw FiefError(.readOnly, "the schema of '\(snapshot.environment.path)' differs from the requested one, and a read-only realm cannot change it", path: snapshot.environment.path)
        }
        return Plan(needsWrite: result.changed)
    }

    /// Whether a class whose values can nest collections lacks their
    /// database (a format-4 file written before nested collections): a
    /// writable open adds it.
    static func lacksNestedDatabase(_ txn: OpaquePointer, _ environment: Environment, _ schema: Schema) throws(FiefError) -> Bool {
        for objectClass in schema.classes where Table.holdsNested(objectClass) {
            if try environment.database(Table.nestedName(objectClass.key), txn: txn, create: false) == nil { return true }
        }
        return false
    }

    /// Whether an embedded GeoJSON point class lacks its spatial index (a
    /// file written before spatial indexes): a writable open builds it.
    static func lacksGeoIndex(_ txn: OpaquePointer, _ environment: Environment, _ schema: Schema) throws(FiefError) -> Bool {
        for objectClass in schema.classes {
            guard let (_, coordinates) = objectClass.geoIndexedProperties else { continue }
            if try environment.database(Table.geoIndexName(objectClass.key, coordinates.key), txn: txn, create: false) == nil { return true }
        }
        return false
    }

    struct Merge {
        var schema: Schema
        var changed: Bool
        var schemaVersion: UInt64
        var nextClassKey: UInt64
        /// Columns whose data must go: (class key, property key).
        var droppedColumns: [(UInt32, UInt32)]
        /// Indexes to build from existing data, and to empty.
        var newIndexes: [(UInt32, UInt32)]
        var droppedIndexes: [(UInt32, UInt32)]
        /// Classes whose primary-key table must be built from existing data.
        var rebuiltPrimaryKeys: [UInt32]
        /// Full-text indexes to build from existing data, and to empty.
        var newFullTextIndexes: [(UInt32, UInt32)] = []
        var droppedFullTextIndexes: [(UInt32, UInt32)] = []
    }

    /// The schema the file will have: `stored` changed into `requested`.
    static func merge(stored: Stored, requested: Schema, requestedVersion: UInt64, path: String) throws(FiefError) -> Merge {
        if requestedVersion < stored.schemaVersion {
            throw FiefError(.schemaVersion, "the requested schema version \(requestedVersion) is lower than the file's \(stored.schemaVersion)", path: path)
        }
        let migrating = requestedVersion > stored.schemaVersion
        var result = Merge(schema: stored.schema, changed: migrating, schemaVersion: requestedVersion, nextClassKey: stored.nextClassKey,
                           droppedColumns: [], newIndexes: [], droppedIndexes: [], rebuiltPrimaryKeys: [])
        var problems: [String] = []
        for wanted in requested.classes {
            guard let index = result.schema.classes.firstIndex(where: { $0.name == wanted.name }) else {
                var added = wanted
                added.linkingObjects = []   // computed, never stored: no part of the file's schema
                added.key = UInt32(truncatingIfNeeded: result.nextClassKey)
                result.nextClassKey += 1
                for i in added.properties.indices { added.properties[i].key = UInt32(i + 1) }
                result.schema.classes.append(added)
                result.changed = true
                continue
            }
            let old = result.schema.classes[index]
            var merged = ObjectClass(name: old.name, properties: [], isEmbedded: wanted.isEmbedded, key: old.key)
            var nextKey = (old.properties.map(\.key).max() ?? 0) + 1
            if old.isEmbedded != wanted.isEmbedded {
                problems.append("class '\(old.name)' changed between embedded and top-level")
            }
            let oldPK = old.primaryKey?.name
            let newPK = wanted.primaryKey?.name
            var primaryKeyChanged = oldPK != newPK
            for property in wanted.properties {
                if var existing = old.property(named: property.name) {
                    let kept = existing.type == property.type && existing.isNullable == property.isNullable
                        && existing.linkTarget == property.linkTarget && existing.collection == property.collection
                    if !kept {
                        problems.append("property '\(old.name).\(property.name)' changed from \(describe(existing)) to \(describe(property))")
                        result.droppedColumns.append((old.key, existing.key))
                        if existing.isIndexed { result.droppedIndexes.append((old.key, existing.key)) }
                        if existing.isFullTextIndexed { result.droppedFullTextIndexes.append((old.key, existing.key)) }
                        var fresh = property
                        fresh.key = nextKey
                        nextKey += 1
                        if fresh.isIndexed && !fresh.isPrimaryKey { result.newIndexes.append((old.key, fresh.key)) }
                        if fresh.isFullTextIndexed { result.newFullTextIndexes.append((old.key, fresh.key)) }
                        if fresh.isPrimaryKey { primaryKeyChanged = true }
                        merged.properties.append(fresh)
                        continue
                    }
                    let wasIndexed = existing.isIndexed && !existing.isPrimaryKey
                    let isIndexed = property.isIndexed && !property.isPrimaryKey
                    if wasIndexed != isIndexed {
                        result.changed = true
                        if isIndexed { result.newIndexes.append((old.key, existing.key)) } else { result.droppedIndexes.append((old.key, existing.key)) }
                    }
                    if existing.isFullTextIndexed != property.isFullTextIndexed {
                        result.changed = true
                        if property.isFullTextIndexed {
                            result.newFullTextIndexes.append((old.key, existing.key))
                        } else {
                            result.droppedFullTextIndexes.append((old.key, existing.key))
                        }
                    }
                    existing.flags = property.flags
                    merged.properties.append(existing)
                } else {
                    var fresh = property
                    fresh.key = nextKey
                    nextKey += 1
                    if fresh.isIndexed && !fresh.isPrimaryKey { result.newIndexes.append((old.key, fresh.key)) }
                    if fresh.isFullTextIndexed { result.newFullTextIndexes.append((old.key, fresh.key)) }
                    merged.properties.append(fresh)
                    result.changed = true
                }
            }
            for property in old.properties where wanted.property(named: property.name) == nil {
                problems.append("property '\(old.name).\(property.name)' was removed")
                result.droppedColumns.append((old.key, property.key))
                if property.isIndexed && !property.isPrimaryKey { result.droppedIndexes.append((old.key, property.key)) }
                if property.isFullTextIndexed { result.droppedFullTextIndexes.append((old.key, property.key)) }
            }
            if primaryKeyChanged {
                if oldPK != newPK {
                    problems.append("the primary key of '\(old.name)' changed from \(oldPK.map { "'\($0)'" } ?? "none") to \(newPK.map { "'\($0)'" } ?? "none")")
                }
                if newPK != nil { result.rebuiltPrimaryKeys.append(old.key) }
            }
            result.schema.classes[index] = merged
        }
        if !problems.isEmpty {
            if !migrating {
                throw FiefError(.schemaMismatch, "the schema differs from the one in '\(path)', and the schema version was not raised: " + problems.joined(separator: "; "), path: path)
            }
            result.changed = true
        }
        return result
    }

    private static func describe(_ p: Property) -> String {
        (p.collection == .none ? "" : p.collection.name + " of ") + (p.isNullable ? "optional " : "") + p.type.name
            + (p.linkTarget.map { " to '\($0)'" } ?? "") + (p.isPrimaryKey ? " (primary key)" : "")
    }

    /// Additive schema change in a write transaction of its own.
    static func applyKeepingVersion(configuration: RealmConfiguration, environment: Environment) throws(FiefError) {
        try apply(configuration: configuration, environment: environment, keepVersion: true)
    }

    /// Initialise the file if new, then bring its schema to the configuration's.
    static func apply(configuration: RealmConfiguration, environment: Environment, keepVersion: Bool = false) throws(FiefError) {
        try environment.checkWritable()
        try environment.claimWriter()
        let txn = try environment.beginTransaction(write: true)
        environment.setWriter(true)
        var opened: [String] = []
        do throws(FiefError) {
            try applyInTransaction(txn, configuration: configuration, environment: environment, opened: &opened, keepVersion: keepVersion)
            let rc = mdb_txn_commit(txn)
            environment.setWriter(false)
            if rc == 0 { environment.noteOwnCommit() }
            if rc != 0 {
                environment.forgetDatabases(opened)
                throw LMDB.error(rc, "committing the schema", path: environment.path)
            }
        } catch {
            mdb_txn_abort(txn)
            environment.setWriter(false)
            environment.forgetDatabases(opened)
            throw error
        }
    }

    /// Apply the schema change in an open write transaction.  With
    /// `keepVersion`, the file's schema version is kept (additive changes only).
    /// Returns whether anything changed.
    @discardableResult
    static func applyInTransaction(_ txn: OpaquePointer, configuration: RealmConfiguration, environment: Environment, opened: inout [String], keepVersion: Bool = false, inWrite: Bool = false) throws(FiefError) -> Bool {
        let stored = try readStored(txn: txn, environment: environment)
        let existing = stored ?? Stored(schema: Schema(classes: []), schemaVersion: configuration.schemaVersion, generation: 0, nextClassKey: 1, format: MetaKeys.formatValue)
        let requested = configuration.schema ?? existing.schema
        let version = keepVersion ? existing.schemaVersion : configuration.schemaVersion
        var merge = try merge(stored: existing, requested: requested, requestedVersion: version, path: environment.path)
        if stored == nil || existing.format != MetaKeys.formatValue { merge.changed = true }
        if !merge.changed, try lacksNestedDatabase(txn, environment, existing.schema) { merge.changed = true }
        // Probed in this transaction (a handle the environment opened in
        // a transaction of its own would be newer than this one).
        func exists(_ name: String) -> Bool {
            var dbi: MDB_dbi = 0
            return mdb_dbi_open(txn, name, 0, &dbi) == 0
        }
        if !merge.changed, existing.schema.classes.contains(where: { objectClass in
            objectClass.geoIndexedProperties.map { !exists(Table.geoIndexName(objectClass.key, $0.coordinates.key)) } ?? false
        }) { merge.changed = true }
        guard merge.changed else { return false }

        func open(_ name: String, integerKey: Bool = false, dupSort: Bool = false) throws(FiefError) -> MDB_dbi {
            opened.append(name)
            return try environment.database(name, txn: txn, create: true, integerKey: integerKey, dupSort: dupSort)!
        }
        let meta = try open(MetaKeys.database)
        // Format 9: the change records (created empty by the first writable
        // open of a new or older file; nothing else is touched).
        let history = try open(History.database)
        if stored == nil {
            try typed { try MetaKeys.magicValue.withUnsafeBytes { (raw) in try MetaKeys.write(txn, meta, MetaKeys.magic, raw) } }
            try MetaKeys.write(txn, meta, MetaKeys.format, MetaKeys.formatValue)
            try MetaKeys.write(txn, meta, MetaKeys.version, 0)
        }
        if FormatUpgrade.upgrades(existing.format) {
            // Rewrite every chunk (formats 1 and 2) first, in this transaction;
            // the schema is written again below, in the current encoding.
            for objectClass in existing.schema.classes where FormatUpgrade.rewritesChunks(existing.format) {
                let data = try open(Table.dataName(objectClass.key), integerKey: true)
                try FormatUpgrade.upgrade(txn, data: data, meta: meta, objectClass: objectClass, format: existing.format,
                                          partLimit: environment.chunkPartLimit, path: environment.path)
                // Integer primary keys: rebuilt as runs (format 1 kept one entry per object).
                if existing.format == 1, let pk = objectClass.primaryKey, pk.type == .int, !pk.isNullable,
                   merge.schema.classes.contains(where: { $0.key == objectClass.key && $0.primaryKey?.key == pk.key }) {
                    merge.rebuiltPrimaryKeys.append(objectClass.key)
                }
            }
            // Format 4's backlinks: one entry per record, made into runs.
            if FormatUpgrade.rewritesBacklinks(existing.format) {
                for objectClass in existing.schema.classes {
                    // Opened in this transaction (a handle opened elsewhere may be newer than it).
                    var dbi: MDB_dbi = 0
                    let rc = mdb_dbi_open(txn, Table.backlinksName(objectClass.key), 0, &dbi)
                    if rc == MDB_NOTFOUND { continue }
                    try LMDB.check(rc, "opening the links of class '\(objectClass.name)'", path: environment.path)
                    try Backlinks.upgradeFromFormat4(txn, dbi)
                }
            }
            // Format 7: every map and nested entry gets its checksum; format
            // 10: every set entry (before anything below reads one).
            if FormatUpgrade.lacksSeals(existing.format) {
                try FormatUpgrade.sealEntries(txn, schema: existing.schema, format: existing.format, path: environment.path)
            }
            try MetaKeys.write(txn, meta, MetaKeys.format, MetaKeys.formatValue)
        }
        // Drop data of removed or changed columns; a link's (or a list of
        // links') entries in its target's backlinks go with it.
        for (table, column) in merge.droppedColumns {
            if let property = existing.schema.objectClass(key: table)?.property(key: column), property.type == .link,
               let target = property.linkTarget.flatMap({ existing.schema.objectClass(named: $0) }) {
                try Backlinks.removeAll(txn, try open(Table.backlinksName(target.key)), originClass: table, property: column)
            }
            if let property = existing.schema.objectClass(key: table)?.property(key: column), property.type == .mixed {
                // A mixed value may link to any class, and nest collections.
                for target in existing.schema.classes where Backlinks.isTarget(target, in: existing.schema) {
                    try Backlinks.removeAll(txn, try open(Table.backlinksName(target.key)), originClass: table, property: column)
                }
                if property.collection != .set {
                    try Realm.dropNested(txn, try open(Table.nestedName(table)), table: table, property: column)
                }
            }
            let data = try open(Table.dataName(table), integerKey: true)
            try deleteColumn(txn, data, column: column)
            if let property = existing.schema.objectClass(key: table)?.property(key: column),
               let name = Table.collectionName(table, property) {
                let dbi = try open(name)
                try LMDB.check(mdb_drop(txn, dbi, 1), "dropping a \(property.collection.name)", path: environment.path)
            }
        }
        // A property added to a class may get the key of one dropped
        // earlier (keys start after the highest one left): the presence
        // chunks that still list that key stop listing it (its chunks went
        // with the old property), or the new property would read as missing.
        for objectClass in merge.schema.classes {
            guard let before = existing.schema.objectClass(key: objectClass.key) else { continue }
            let added = objectClass.properties.map(\.key).filter { before.property(key: $0) == nil }
            if added.isEmpty { continue }
            try unlistColumns(txn, try open(Table.dataName(objectClass.key), integerKey: true), classKey: objectClass.key,
                              added, partLimit: environment.chunkPartLimit)
        }
        for (table, column) in merge.droppedIndexes {
            let dbi = try open(Table.indexName(table, column), dupSort: true)
            try LMDB.check(mdb_drop(txn, dbi, 0), "dropping an index", path: environment.path)
        }
        // Derived data a file of format 5 or older may hold wrong: rebuilt
        // below, once the schema has its final shape.
        let rebuildsDerived = FormatUpgrade.rebuildsDerivedData(existing.format)
        for (table, column) in merge.droppedFullTextIndexes {
            let dbi = try open(Table.fullTextName(table, column), dupSort: true)
            try LMDB.check(mdb_drop(txn, dbi, 0), "dropping a full-text index", path: environment.path)
        }
        // A spatial index goes with its class's GeoJSON shape (a class no
        // longer embedded or shaped as a point, or whose `type` or
        // `coordinates` was replaced: it is built again below).
        for old in existing.schema.classes {
            guard let (oldType, oldCoordinates) = old.geoIndexedProperties else { continue }
            let now = merge.schema.objectClass(key: old.key)?.geoIndexedProperties
            if now?.type.key == oldType.key && now?.coordinates.key == oldCoordinates.key { continue }
            let name = Table.geoIndexName(old.key, oldCoordinates.key)
            guard exists(name) else { continue }
            // Emptied, not deleted: its handle stays valid should the class be shaped as a point again.
            try LMDB.check(mdb_drop(txn, try open(name), 0), "dropping a spatial index", path: environment.path)
        }
        // Create the databases of every class, then fill new indexes and primary-key tables.
        for objectClass in merge.schema.classes {
            let data = try open(Table.dataName(objectClass.key), integerKey: true)
            if Backlinks.isTarget(objectClass, in: merge.schema) { _ = try open(Table.backlinksName(objectClass.key)) }
            if Table.holdsNested(objectClass) { _ = try open(Table.nestedName(objectClass.key)) }
            for property in objectClass.properties {
                if let name = Table.collectionName(objectClass.key, property) { _ = try open(name) }
            }
            if let pk = objectClass.primaryKey {
                let dbi = try open(Table.primaryKeyName(objectClass.key, pk.key), integerKey: pk.type == .int && !pk.isNullable)
                if merge.rebuiltPrimaryKeys.contains(objectClass.key) {
                    try LMDB.check(mdb_drop(txn, dbi, 0), "emptying a primary-key table", path: environment.path)
                    try fill(txn, data: data, target: dbi, property: pk, objectClass: objectClass, unique: true, integerKey: pk.type == .int && !pk.isNullable)
                }
            }
            for property in objectClass.properties where property.isIndexed && !property.isPrimaryKey {
                let dbi = try open(Table.indexName(objectClass.key, property.key), dupSort: true)
                if merge.newIndexes.contains(where: { $0 == (objectClass.key, property.key) }) {
                    try LMDB.check(mdb_drop(txn, dbi, 0), "emptying an index", path: environment.path)
                    try fill(txn, data: data, target: dbi, property: property, objectClass: objectClass, unique: false, integerKey: false)
                }
            }
            for property in objectClass.properties where property.isFullTextIndexed {
                let dbi = try open(Table.fullTextName(objectClass.key, property.key), dupSort: true)
                if !rebuildsDerived && merge.newFullTextIndexes.contains(where: { $0 == (objectClass.key, property.key) }) {
                    try LMDB.check(mdb_drop(txn, dbi, 0), "emptying a full-text index", path: environment.path)
                    try FullTextIndex.fill(txn, data: data, target: dbi, property: property, objectClass: objectClass)
                }
            }
            if let (type, coordinates) = objectClass.geoIndexedProperties {
                // Every embedded GeoJSON point class is indexed: built when
                // missing (an older file, a new class), when its shape changed,
                // and when a format-5 file is upgraded (derived data a library
                // that did not maintain it may have left stale, as full-text
                // indexes in `FormatUpgrade.DerivedData`).
                let name = Table.geoIndexName(objectClass.key, coordinates.key)
                let before = existing.schema.objectClass(key: objectClass.key)?.geoIndexedProperties
                let missing = !exists(name)
                if missing || rebuildsDerived || before?.type.key != type.key || before?.coordinates.key != coordinates.key {
                    _ = try open(name)
                    try GeoIndex.build(txn, environment: environment, objectClass: objectClass)
                }
            }
        }
        if rebuildsDerived {
            for step in FormatUpgrade.DerivedData.allCases {
                try FormatUpgrade.rebuild(step, txn, schema: merge.schema, partLimit: environment.chunkPartLimit, path: environment.path) {
                    (name, integerKey, dupSort) throws(FiefError) in try open(name, integerKey: integerKey, dupSort: dupSort)
                }
            }
        }
        if stored != nil && !inWrite {
            // A schema change committed on its own (at an open or by
            // `updateSchema`) is a commit like any other: a version and a record.
            let version = try MetaKeys.readUInt64(txn, meta, MetaKeys.version) ?? 0
            try MetaKeys.write(txn, meta, MetaKeys.version, version + 1)
            // Its change record: the classes whose schema changed.
            var record = ChangeRecord(transaction: UInt64(mdb_txn_id(txn)))
            for (key, change) in ChangeLog.schemaChanges(from: existing.schema, to: merge.schema) {
                record.classes[key, default: ObjectChanges()].schema = change
            }
            try History.write(txn, history, version: version + 1, record)
        }
        try SchemaRecord.write(txn, meta, SchemaCoding.encode(merge.schema))
        try MetaKeys.write(txn, meta, MetaKeys.schemaVersion, merge.schemaVersion)
        try MetaKeys.write(txn, meta, MetaKeys.schemaGeneration, existing.generation + 1)
        try MetaKeys.write(txn, meta, MetaKeys.nextClassKey, merge.nextClassKey)
        try MetaKeys.write(txn, meta, MetaKeys.committedTransaction, UInt64(mdb_txn_id(txn)))
        return true
    }

    /// Make the presence chunks of a class's data database list none of
    /// `columns`, and delete any chunk of them.
    static func unlistColumns(_ txn: OpaquePointer, _ data: MDB_dbi, classKey: UInt32, _ columns: [UInt32], partLimit: Int) throws(FiefError) {
        var changed: [(Int64, DirtyChunk)] = []
        let cursor = try LMDBCursor(txn, data)
        var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
        while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
            entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
            guard let body = ChunkCheck.verified(raw, table: classKey, key: key, type: nil) else {
                throw FiefError(.fileCorrupt, "a stored chunk of class \(classKey) (key \(key)) fails its checksum or layout check")
            }
            let presence = ChunkReader(body)
            guard columns.contains(where: { presence.listsColumn($0) }) else { continue }
            let fixed = DirtyChunk(type: nil, from: presence)
            for column in columns { fixed.unlistColumn(column) }
            changed.append((ClusterLayout.cluster(ofChunkKey: key), fixed))
        }
        var neverAppend: UInt64? = .max
        for (cluster, chunk) in changed {
            try ChunkParts.store(chunk, txn, data, table: classKey, column: ClusterLayout.presenceColumn, cluster: cluster,
                                 limit: partLimit, lastKey: &neverAppend)
        }
        for column in columns { try deleteColumn(txn, data, column: column) }
    }

    /// Delete every chunk of `column` from a class's data database.
    static func deleteColumn(_ txn: OpaquePointer, _ data: MDB_dbi, column: UInt32) throws(FiefError) {
        try ChunkParts.deleteRange(txn, data, from: ClusterLayout.columnStart(column), before: ClusterLayout.columnStart(column + 1))
    }

    /// Index every existing object's value of `property` into `target`.
    static func fill(_ txn: OpaquePointer, data: MDB_dbi, target: MDB_dbi, property: Property, objectClass: ObjectClass, unique: Bool, integerKey: Bool) throws(FiefError) {
        let className = objectClass.name
        func damaged(_ key: UInt64) -> FiefError {
            FiefError(.fileCorrupt, "a stored chunk of class '\(className)' (key \(key)) fails its checksum or layout check")
        }
        let tables = ChunkPartTables()
        let runCursor = integerKey ? try LMDBCursor(txn, target) : nil
        var runStart: UInt64 = 0, runObject: Int64 = 0, runCount = 0
        func writeRun() throws(FiefError) -> Bool {
            guard runCount > 0, let runCursor else { return true }
            defer { runCount = 0 }
            var tail: PrimaryKeyRuns.Run?
            return try PrimaryKeyRuns.insert(runCursor, start: runStart, firstObject: runObject, count: UInt64(runCount), tail: &tail) == nil
        }
        let presenceCursor = try LMDBCursor(txn, data)
        var entry = try presenceCursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
        var keyBytes: [UInt8] = []
        while let (chunkKey, presenceBytes) = entry, chunkKey < ClusterLayout.columnStart(1) {
            let cluster = ClusterLayout.cluster(ofChunkKey: chunkKey)
            guard let presenceBody = ChunkCheck.verified(presenceBytes, table: objectClass.key, key: chunkKey, type: nil) else { throw damaged(chunkKey) }
            let presence = ChunkReader(presenceBody)
            guard let column = try ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                   type: property.type.chunkType, bounds: nil, tables: tables) else {
                throw damaged(ClusterLayout.chunkKey(column: property.key, cluster: cluster))
            }
            for slot in 0..<ClusterLayout.slots where presence.bit(slot) {
                let objectKey = (cluster << ClusterLayout.shift) | Int64(slot)
                let value = column.value(slot, type: property.type.chunkType, nullable: property.isNullable)
                var object = UInt64(bitPattern: objectKey)
                let stored: Bool
                if integerKey, case .int(let i) = value {
                    // Runs of consecutive keys on consecutive objects (see PrimaryKeyRuns).
                    let k = UInt64(bitPattern: i)
                    let (next, overflow) = runStart.addingReportingOverflow(UInt64(runCount))
                    if runCount > 0 && !overflow && k == next && objectKey == runObject + Int64(runCount) {
                        runCount += 1
                        stored = true
                    } else {
                        stored = try writeRun()
                        (runStart, runObject, runCount) = (k, objectKey, 1)
                    }
                } else {
                    if property.type == .mixed {
                        // Stored coded; a nested list or dictionary has no entry.
                        var decoded = Value.null
                        if case .binary(let coded) = value {
                            guard let read = MixedCoding.decode(coded) else { throw damaged(ClusterLayout.chunkKey(column: property.key, cluster: cluster)) }
                            decoded = read
                        }
                        guard KeyEncoding.encodeMixed(decoded, into: &keyBytes) else { continue }
                    } else {
                        KeyEncoding.encode(value, into: &keyBytes)
                    }
                    stored = try typed { try keyBytes.withUnsafeBytes { (kb) in
                        try withUnsafeBytes(of: &object) { (vb) throws(FiefError) in
                            try LMDB.put(txn, target, kb, vb, flags: unique ? UInt32(MDB_NOOVERWRITE) : 0)
                        }
                    } }
                }
                if unique && !stored {
                    throw FiefError(.schemaMismatch, "cannot make '\(className).\(property.name)' the primary key: two objects share a value")
                }
            }
            entry = try presenceCursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
        }
        if try !writeRun() {
            throw FiefError(.schemaMismatch, "cannot make '\(className).\(property.name)' the primary key: two objects share a value")
        }
    }
}
