import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// `fief copy` and `fief_realm_write_copy`: a compacted copy of a realm, in
/// the current file format, holding everything that can be read.
///
/// The copy is written in one write transaction of a new file, every tree in
/// key order (so LMDB fills its pages), from one snapshot of the source.
/// Valid chunks are copied as they are (format 2) or converted (format 1);
/// a damaged chunk is left out and reported: a damaged list of objects or
/// primary-key column loses those 256 objects, a damaged property chunk
/// leaves that property at its default (null when optional) for them.
/// Primary-key tables and indexes are built again from the copied objects.
/// Copying a file is also how it shrinks: LMDB never gives pages back to the
/// file system, and a copy holds no free pages.
public enum FileCopy {
    /// Copy the realm file at `source` to `destination`, which must not
    /// exist.  Returns the number of problems reported (data left out).
    public static func copy(from source: String, to destination: String, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        let environment = try EnvironmentRegistry.open(path: source, readOnly: true)
        let txn = try environment.readTransactionWithAllDatabases()
        defer { mdb_txn_abort(txn) }
        return try copy(environment: environment, txn: txn, to: destination, report: report)
    }

    /// Copy what `txn` (a read transaction of `environment`) sees.
    static func copy(environment: Environment, txn: OpaquePointer, to destination: String, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        guard !destination.isEmpty else { throw FiefError(.invalidArgument, "the destination path is empty") }
        if access(destination, F_OK) == 0 {
            throw FiefError(.invalidArgument, "'\(destination)' already exists; a copy is only written to a new file", path: destination)
        }
        // The source's magic, format and schema, read as an open reads them.
        let path = environment.path
        guard let stored = try SchemaPlanner.readStored(txn: txn, environment: environment),
              let meta = environment.openedDatabase(MetaKeys.database) else {
            throw FiefError(.fileNotFief, "'\(path)' is empty, not a Fief file: nothing can be copied", path: path)
        }
        let format = stored.format
        let schema = stored.schema

        let target = try Environment(path: destination, registryKey: "copy:" + destination, readOnly: false, inMemory: false)
        var written: OpaquePointer?
        try LMDB.check(mdb_txn_begin(target.env, nil, 0, &written), "starting the copy's write transaction", path: destination)
        let out = written!
        var problems = 0
        do throws(FiefError) {
            let outMeta = try target.database(MetaKeys.database, txn: out, create: true)!
            try typed { try MetaKeys.magicValue.withUnsafeBytes { (raw) in try MetaKeys.write(out, outMeta, MetaKeys.magic, raw) } }
            try MetaKeys.write(out, outMeta, MetaKeys.format, MetaKeys.formatValue)
            for name in [MetaKeys.version, MetaKeys.schemaVersion, MetaKeys.nextClassKey] {
                if let value = try MetaKeys.readUInt64(txn, meta, name) { try MetaKeys.write(out, outMeta, name, value) }
            }
            try MetaKeys.write(out, outMeta, MetaKeys.schemaGeneration, 1)
            let encoded = SchemaCoding.encode(schema)
            try typed { try encoded.withUnsafeBytes { (raw) in try MetaKeys.write(out, outMeta, MetaKeys.schema, raw) } }
            for objectClass in schema.classes {
                if let next = try MetaKeys.readUInt64(txn, meta, MetaKeys.nextObjectKey(objectClass.key)) {
                    try MetaKeys.write(out, outMeta, MetaKeys.nextObjectKey(objectClass.key), next)
                }
                problems += try copyClass(objectClass, format: format, from: environment, txn, to: target, out, meta: outMeta, report: report)
            }
            try MetaKeys.write(out, outMeta, MetaKeys.committedTransaction, UInt64(mdb_txn_id(out)))
        } catch {
            mdb_txn_abort(out)
            unlink(destination)
            unlink(destination + "-lock")
            throw error
        }
        let rc = mdb_txn_commit(out)
        if rc != 0 {
            unlink(destination)
            unlink(destination + "-lock")
            throw LMDB.error(rc, "committing the copy", path: destination)
        }
        return problems
    }

    private static func copyClass(_ objectClass: ObjectClass, format: UInt64, from environment: Environment, _ txn: OpaquePointer,
                                  to target: Environment, _ out: OpaquePointer, meta: MDB_dbi, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        let name = objectClass.name
        var problems = 0
        func problem(_ text: String) {
            problems += 1
            report(.problem, "class '\(name)': " + text)
        }
        func objects(_ cluster: Int64) -> String {
            "objects \(cluster << ClusterLayout.shift)...\((cluster << ClusterLayout.shift) + Int64(ClusterLayout.slotMask))"
        }
        let outData = try target.database(Table.dataName(objectClass.key), txn: out, create: true, integerKey: true)!
        // Primary keys and indexes, built from the copy at the end (the
        // source's are never read).
        func buildKeys() throws(FiefError) {
            for property in objectClass.properties where property.isIndexed || property.isPrimaryKey {
                let integerKey = property.isPrimaryKey && property.type == .int && !property.isNullable
                let tableName = property.isPrimaryKey ? Table.primaryKeyName(objectClass.key, property.key) : Table.indexName(objectClass.key, property.key)
                let dbi = try target.database(tableName, txn: out, create: true, integerKey: integerKey, dupSort: !property.isPrimaryKey)!
                try SchemaPlanner.fill(out, data: outData, target: dbi, property: property, objectClass: objectClass, unique: property.isPrimaryKey, integerKey: integerKey)
            }
        }
        guard let data = try environment.database(Table.dataName(objectClass.key), txn: txn, create: false), Environment.isUsable(data, in: txn) else {
            problem("its data is missing: no objects copied")
            try buildKeys()
            return problems
        }
        let bounds = environment.currentBounds()
        let properties = Dictionary(uniqueKeysWithValues: objectClass.properties.map { ($0.key, $0) })

        // Every stored chunk: through LMDB for a sound tree, page by page
        // (what can still be read) for a damaged one.
        var stored: [(key: UInt64, raw: UnsafeRawBufferPointer)] = []
        if let reason = environment.damagedTrees[Table.dataName(objectClass.key)] {
            problem("its data pages are damaged (\(reason)): copying what the sound pages hold")
            stored = PageCheck.salvage(environment: environment, txn: txn, tree: Table.dataName(objectClass.key)).map { ($0.key, $0.value) }
        } else {
            let cursor = try LMDBCursor(txn, data)
            var entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
            do throws(FiefError) {
                entry = try cursor.move(MDB_FIRST)
                while let (rawKey, raw) = entry {
                    if rawKey.count == 8 { stored.append((rawKey.loadUnaligned(as: UInt64.self), raw)) }
                    entry = try cursor.next()
                }
            } catch {
                problem("its data tree is damaged (\(error.message)): chunks after that point left out")
            }
        }

        // Pass 1: every chunk checked; presence chunks decoded; which column
        // chunks are sound.
        var presence: [Int64: DirtyChunk] = [:]
        // Sound column chunks with their bytes (views into the source's
        // snapshot): looked up again, a damaged tree might not find them.
        var sound: [(key: UInt64, raw: UnsafeRawBufferPointer)] = []
        var lostClusters: Set<Int64> = []
        for (key, raw) in stored {
            guard bounds.contains(raw) else { problem("a chunk outside the file was left out"); continue }
            let column = ClusterLayout.column(ofChunkKey: key)
            let cluster = ClusterLayout.cluster(ofChunkKey: key)
            if column == ClusterLayout.presenceColumn {
                if format == FormatV1.format {
                    presence[cluster] = try? FormatV1.decodePresence(raw, objectClass: objectClass, path: environment.path)
                } else if let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) {
                    // Column lists are made again from the chunks copied.
                    let chunk = DirtyChunk(type: nil, from: ChunkReader(nil))
                    chunk.fixed.copyMemory(from: body.baseAddress!, byteCount: ClusterLayout.bitmapBytes)
                    presence[cluster] = chunk
                }
                if presence[cluster] == nil {
                    lostClusters.insert(cluster)
                    problem("\(objects(cluster)) lost: their list is damaged")
                }
                continue
            }
            guard let property = properties[column] else { continue }
            let isSound = format == FormatV1.format
                ? (try? FormatV1.decode(raw, type: property.type, objectClass: objectClass, path: environment.path)) != nil
                : ChunkCheck.verified(raw, table: objectClass.key, key: key, type: property.type) != nil
            if isSound {
                sound.append((key, raw))
            } else if property.isPrimaryKey {
                lostClusters.insert(cluster)
                problem("\(objects(cluster)) lost: their primary keys are damaged")
            } else {
                problem("property '\(property.name)' of \(objects(cluster)) is damaged: copied as \(property.isNullable ? "null" : "its default")")
            }
        }
        // A primary-key column that is missing (its chunk unreadable) loses its objects too.
        for property in objectClass.properties where property.isPrimaryKey {
            let have = Set(sound.filter { ClusterLayout.column(ofChunkKey: $0.key) == property.key }.map { ClusterLayout.cluster(ofChunkKey: $0.key) })
            for cluster in presence.keys where !have.contains(cluster) && !lostClusters.contains(cluster) && !presence[cluster]!.bitmapIsEmpty {
                lostClusters.insert(cluster)
                problem("\(objects(cluster)) lost: their primary keys are missing")
            }
        }
        for cluster in lostClusters { presence[cluster] = nil }
        // In key order, once each (damage can leave a tree out of order).
        sound.sort { $0.key < $1.key }
        var unique: [(key: UInt64, raw: UnsafeRawBufferPointer)] = []
        for entry in sound where unique.last?.key != entry.key { unique.append(entry) }
        sound = unique
        for (key, _) in sound {
            presence[ClusterLayout.cluster(ofChunkKey: key)]?.listColumn(ClusterLayout.column(ofChunkKey: key))
        }

        // Pass 2: presence chunks, then column chunks, in key order.
        var count = 0
        for cluster in presence.keys.sorted() {
            let chunk = presence[cluster]!
            if chunk.bitmapIsEmpty { continue }
            for word in 0..<4 { count += chunk.reader.bitmapWord(word).nonzeroBitCount }
            let key = ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: cluster)
            try LMDB.putReserved(out, outData, integerKey: key, size: chunk.encodedSize, append: true) {
                chunk.encode(into: $0, table: objectClass.key, key: key)
            }
        }
        for (key, raw) in sound {
            guard let cluster = presence[ClusterLayout.cluster(ofChunkKey: key)], !cluster.bitmapIsEmpty else { continue }
            if format == FormatV1.format {
                let property = properties[ClusterLayout.column(ofChunkKey: key)]!
                let chunk = try FormatV1.decode(raw, type: property.type, objectClass: objectClass, path: environment.path)
                try LMDB.putReserved(out, outData, integerKey: key, size: chunk.encodedSize, append: true) {
                    chunk.encode(into: $0, table: objectClass.key, key: key)
                }
            } else {
                try LMDB.putReserved(out, outData, integerKey: key, size: raw.count, append: true) {
                    $0.copyMemory(from: raw)
                }
            }
        }
        try MetaKeys.write(out, meta, MetaKeys.objectCount(objectClass.key), UInt64(count))

        try buildKeys()
        report(.info, "class '\(name)': \(count) objects copied")
        return problems
    }
}
