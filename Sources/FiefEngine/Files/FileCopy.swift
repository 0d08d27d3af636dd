import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// `fief copy` and `fief_realm_write_copy`: a compacted copy of a realm, in
/// the current file format, holding everything that can be read.
///
/// The copy is written in one write transaction of a new file, every tree in
/// key order (so LMDB fills its pages), from one snapshot of the source.
/// Valid chunks are copied as they are (formats 3 and 4) or converted (formats 1 and 2);
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
            problems += try rebuildBacklinks(schema, in: target, out, report: report)
            problems += try copyLists(schema, from: environment, txn, to: target, out, report: report)
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

    /// The copy's backlinks, made from its links (the source's are never
    /// read); a link to an object the copy lacks (lost to damage) is cleared
    /// and reported.
    private static func rebuildBacklinks(_ schema: Schema, in target: Environment, _ out: OpaquePointer,
                                         report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        var problems = 0
        var backlinks: [UInt32: MDB_dbi] = [:]
        for objectClass in schema.classes where Backlinks.isTarget(objectClass, in: schema) {
            backlinks[objectClass.key] = try target.database(Table.backlinksName(objectClass.key), txn: out, create: true)!
        }
        let tables = ChunkPartTables()
        let presence = CopyPresence(target, out, tables)
        func exists(_ classKey: UInt32, _ key: Int64) throws(FiefError) -> Bool { try presence.exists(classKey, key) }
        for objectClass in schema.classes {
            let links = objectClass.properties.filter { $0.type == .link && $0.collection == .none }
            guard !links.isEmpty, let data = try target.database(Table.dataName(objectClass.key), txn: out, create: false) else { continue }
            var clusters: [(Int64, ChunkReader)] = []
            let cursor = try LMDBCursor(out, data)
            var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
            while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
                if let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) {
                    clusters.append((ClusterLayout.cluster(ofChunkKey: key), ChunkReader(body)))
                }
                entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
            }
            var cleared: [(UInt32, Int64, DirtyChunk)] = []
            for link in links {
                guard let targetKey = link.linkTarget.flatMap({ schema.objectClass(named: $0)?.key }), let dbi = backlinks[targetKey] else { continue }
                for (cluster, live) in clusters {
                    guard let column = try ChunkParts.read(out, data, table: objectClass.key, column: link.key, cluster: cluster,
                                                           type: .link, bounds: nil, tables: tables), column.base != nil else { continue }
                    var fixed: DirtyChunk?
                    for slot in 0..<ClusterLayout.slots where live.bit(slot) && !column.isNull(slot) {
                        let origin = cluster << ClusterLayout.shift | Int64(slot)
                        let linked = column.int(slot)
                        if try exists(targetKey, linked) {
                            try Backlinks.add(out, dbi, target: linked, originClass: objectClass.key, property: link.key, origin: origin)
                        } else {
                            if fixed == nil { fixed = DirtyChunk(type: .link, from: column) }
                            fixed!.set(slot, .null)
                            problems += 1
                            report(.problem, "class '\(objectClass.name)': the link '\(link.name)' of object \(origin) points to an object that was lost: copied as null")
                        }
                    }
                    if let fixed { cleared.append((link.key, cluster, fixed)) }
                }
            }
            var neverAppend: UInt64? = .max
            for (column, cluster, chunk) in cleared {
                try ChunkParts.store(chunk, out, data, table: objectClass.key, column: column, cluster: cluster,
                                     limit: target.chunkPartLimit, lastKey: &neverAppend)
            }
            // Views into pages this transaction changed may have moved.
            if !cleared.isEmpty { presence.forget() }
        }
        return problems
    }

    /// Every list of an object the copy has: copied as it is when every
    /// segment is sound and every object it links to was copied; otherwise
    /// what can be read, without the lost objects, stored afresh (and its
    /// size with it).  Links in lists get their backlinks.
    private static func copyLists(_ schema: Schema, from environment: Environment, _ txn: OpaquePointer, to target: Environment,
                                  _ out: OpaquePointer, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        var problems = 0
        let tables = ChunkPartTables()
        let presence = CopyPresence(target, out, tables)
        func exists(_ classKey: UInt32, _ key: Int64) throws(FiefError) -> Bool { try presence.exists(classKey, key) }
        var scratch: [UInt8] = []
        for objectClass in schema.classes {
            for property in objectClass.properties where property.isList {
                let name = Table.listName(objectClass.key, property.key)
                let outList = try target.database(name, txn: out, create: true)!
                guard let source = try environment.database(name, txn: txn, create: false), Environment.isUsable(source, in: txn) else {
                    problems += 1
                    report(.problem, "class '\(objectClass.name)': the elements of list '\(property.name)' are missing: its lists are copied empty")
                    try storeListSizes(objectClass, property, target, out, outList, tables)
                    presence.forget()
                    continue
                }
                let targetClass = property.linkTarget.flatMap { schema.objectClass(named: $0) }
                var backlinks: MDB_dbi?
                if let targetClass { backlinks = try target.database(Table.backlinksName(targetClass.key), txn: out, create: true) }
                var resized = 0
                var readWhole = true
                var copied = 0
                do throws(FiefError) {
                    try ListStore.forEachList(txn, source) { (owner, segments) throws(FiefError) in
                        guard try exists(objectClass.key, owner) else { return }
                        var values: [Value] = []
                        var intact = true
                        for (position, raw) in segments {
                            guard environment.currentBounds().contains(raw), let reader = SegmentReader(raw, type: property.type, table: objectClass.key,
                                    key: ListStore.checkKey(column: property.key, owner: owner, position: position)) else {
                                intact = false
                                problems += 1
                                report(.problem, "class '\(objectClass.name)': a segment of list '\(property.name)' of object \(owner) is damaged: its elements are left out")
                                continue
                            }
                            for i in 0..<reader.count {
                                let value = reader.value(i, linkTarget: targetClass?.key ?? 0)
                                if case .link(let c, let k) = value, !(try exists(c, k)) {
                                    intact = false
                                    problems += 1
                                    report(.problem, "class '\(objectClass.name)': list '\(property.name)' of object \(owner) held an object that was lost: left out")
                                    continue
                                }
                                values.append(value)
                            }
                        }
                        copied += 1
                        if intact {
                            var keyBuffer = (UInt64(0), UInt64(0))
                            for (position, raw) in segments {
                                try withUnsafeMutableBytes(of: &keyBuffer) { (k) throws(FiefError) in
                                    ListStore.key(k.baseAddress!, owner: owner, position: position)
                                    _ = try LMDB.put(out, outList, UnsafeRawBufferPointer(k), raw)
                                }
                            }
                        } else {
                            let pieces = ListStore.cut(values, type: property.type, limit: target.chunkPartLimit)
                            for (index, piece) in pieces.enumerated() {
                                try ListStore.put(Array(values[piece]), out, outList, table: objectClass.key, column: property.key, owner: owner,
                                                  position: ListStore.firstPosition &+ UInt64(index) &* ListStore.positionStep,
                                                  type: property.type, nullable: property.isNullable, scratch: &scratch)
                            }
                            resized += 1
                        }
                        if let targetClass, let backlinks {
                            for value in values {
                                if case .link(_, let k) = value {
                                    try Backlinks.add(out, backlinks, target: k, originClass: objectClass.key, property: property.key, origin: owner)
                                }
                            }
                            _ = targetClass
                        }
                    }
                } catch {
                    problems += 1
                    readWhole = false
                    report(.problem, "class '\(objectClass.name)': list '\(property.name)' cannot be read (\(error.message)): the rest of its lists left out")
                }
                // Every size is what the copy holds: lists stored afresh,
                // and lists with nothing left to copy (their segments lost).
                let resizedAlso = try storeListSizes(objectClass, property, target, out, outList, tables) - resized
                if resizedAlso > 0 {
                    presence.forget()
                    if readWhole {
                        problems += 1
                        report(.problem, "class '\(objectClass.name)': \(resizedAlso) lists '\(property.name)' had a size that their stored elements did not match: copied with the elements found")
                    }
                } else if resized > 0 {
                    presence.forget()
                }
                report(.info, "class '\(objectClass.name)': \(copied) lists '\(property.name)' copied")
            }
        }
        return problems
    }

    /// Set the size of every list `property` of the copy's `objectClass`
    /// objects to the elements the copy holds for it (segments in `outList`,
    /// walked in owner order beside the objects): a list stored afresh, or
    /// one whose elements were lost in part or whole, reads as what was
    /// found.  Returns how many sizes changed.
    @discardableResult
    private static func storeListSizes(_ objectClass: ObjectClass, _ property: Property, _ target: Environment, _ out: OpaquePointer,
                                       _ outList: MDB_dbi, _ tables: ChunkPartTables) throws(FiefError) -> Int {
        guard let data = try target.database(Table.dataName(objectClass.key), txn: out, create: false) else { return 0 }
        var clusters: [(Int64, ChunkReader)] = []
        let cursor = try LMDBCursor(out, data)
        var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
        while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
            if let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) {
                clusters.append((ClusterLayout.cluster(ofChunkKey: key), ChunkReader(body)))
            }
            entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
        }
        var changed: [(Int64, DirtyChunk)] = []
        var count = 0
        let segments = try LMDBCursor(out, outList)
        var segment = try segments.move(MDB_FIRST)
        for (cluster, live) in clusters {
            let sizes = try ChunkParts.read(out, data, table: objectClass.key, column: property.key, cluster: cluster,
                                            type: .int, bounds: nil, tables: tables)
            var fixed: DirtyChunk?
            for slot in 0..<ClusterLayout.slots where live.bit(slot) {
                let owner = cluster << ClusterLayout.shift | Int64(slot)
                var held = 0
                while let (k, v) = segment, let decoded = ListStore.decodeKey(k), decoded.owner <= owner {
                    if decoded.owner == owner, v.count > 0 { held += Int(v.load(as: UInt8.self)) + 1 }
                    segment = try segments.next()
                }
                let size = sizes.map { $0.base == nil || $0.isNull(slot) ? 0 : Int($0.int(slot)) } ?? 0
                if size != held {
                    if fixed == nil { fixed = DirtyChunk(type: .int, from: sizes ?? ChunkReader(nil)) }
                    fixed!.set(slot, .int(Int64(held)))
                    count += 1
                }
            }
            if let fixed { changed.append((cluster, fixed)) }
        }
        var neverAppend: UInt64? = .max
        for (cluster, chunk) in changed {
            try ChunkParts.store(chunk, out, data, table: objectClass.key, column: property.key, cluster: cluster,
                                 limit: target.chunkPartLimit, lastKey: &neverAppend)
        }
        return count
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

        // In key order, once each (damage can leave a tree out of order).
        stored.sort { $0.key < $1.key }
        var unique: [(key: UInt64, raw: UnsafeRawBufferPointer)] = []
        for entry in stored where unique.last?.key != entry.key { unique.append(entry) }
        stored = unique

        // Pass 1: every chunk checked (all its parts); presence chunks
        // decoded; which column chunks are sound.  Files of formats 1 and 2
        // are decoded as their upgrade decodes them.
        let old = FormatUpgrade.rewritesChunks(format)
        let groups = old ? stored.map { [$0] } : ChunkParts.grouped(stored)
        var presence: [Int64: DirtyChunk] = [:]
        // Sound column chunks with their pieces (views into the source's
        // snapshot): looked up again, a damaged tree might not find them.
        var sound: [(column: UInt32, cluster: Int64, pieces: [(key: UInt64, raw: UnsafeRawBufferPointer)])] = []
        var lostClusters: Set<Int64> = []
        for pieces in groups {
            let key = pieces.last!.key
            let column = old ? FormatUpgrade.column(ofOldKey: key) : ClusterLayout.column(ofChunkKey: key)
            let cluster = old ? FormatUpgrade.cluster(ofOldKey: key) : ClusterLayout.cluster(ofChunkKey: key)
            guard pieces.allSatisfy({ bounds.contains($0.raw) }) else { problem("a chunk outside the file was left out"); continue }
            if column == ClusterLayout.presenceColumn {
                var bitmap: UnsafeRawPointer?
                var decoded: DirtyChunk?
                if old {
                    if cluster < ClusterLayout.objectKeyLimit >> ClusterLayout.shift {
                        decoded = try? FormatUpgrade.decodePresence(pieces[0].raw, format: format, key: key, objectClass: objectClass, path: environment.path)
                    }
                    bitmap = decoded.map { UnsafeRawPointer($0.fixed) }
                } else if ChunkParts.isSound(pieces, table: objectClass.key, type: nil, bounds: nil) {
                    bitmap = pieces[0].raw.baseAddress
                }
                if let bitmap {
                    // Column lists are made again from the chunks copied.
                    let chunk = DirtyChunk(type: nil, from: ChunkReader(nil))
                    chunk.fixed.copyMemory(from: bitmap, byteCount: ClusterLayout.bitmapBytes)
                    presence[cluster] = chunk
                } else {
                    lostClusters.insert(cluster)
                    problem("\(objects(cluster)) lost: their list is damaged")
                }
                continue
            }
            guard let property = properties[column] else { continue }
            let isSound = old
                ? (try? FormatUpgrade.decode(pieces[0].raw, type: property.type, format: format, key: key, objectClass: objectClass, path: environment.path)) != nil
                : ChunkParts.isSound(pieces, table: objectClass.key, type: property.columnType, bounds: nil)
            if isSound {
                sound.append((column, cluster, pieces))
            } else if property.isPrimaryKey {
                lostClusters.insert(cluster)
                problem("\(objects(cluster)) lost: their primary keys are damaged")
            } else {
                problem("property '\(property.name)' of \(objects(cluster)) is damaged: copied as \(property.isNullable ? "null" : "its default")")
            }
        }
        // A primary-key column that is missing (its chunk unreadable) loses its objects too.
        for property in objectClass.properties where property.isPrimaryKey {
            let have = Set(sound.filter { $0.column == property.key }.map(\.cluster))
            for cluster in presence.keys where !have.contains(cluster) && !lostClusters.contains(cluster) && !presence[cluster]!.bitmapIsEmpty {
                lostClusters.insert(cluster)
                problem("\(objects(cluster)) lost: their primary keys are missing")
            }
        }
        for cluster in lostClusters { presence[cluster] = nil }
        for chunk in sound { presence[chunk.cluster]?.listColumn(chunk.column) }

        // Pass 2: presence chunks, then column chunks, in key order.
        var count = 0
        var lastKey: UInt64?
        for cluster in presence.keys.sorted() {
            let chunk = presence[cluster]!
            if chunk.bitmapIsEmpty { continue }
            for word in 0..<4 { count += chunk.reader.bitmapWord(word).nonzeroBitCount }
            try ChunkParts.store(chunk, out, outData, table: objectClass.key, column: ClusterLayout.presenceColumn, cluster: cluster,
                                 limit: target.chunkPartLimit, lastKey: &lastKey)
        }
        for (column, cluster, pieces) in sound {
            guard let listed = presence[cluster], !listed.bitmapIsEmpty else { continue }
            if old {
                let property = properties[column]!
                let chunk = try FormatUpgrade.decode(pieces[0].raw, type: property.type, format: format, key: pieces[0].key,
                                                     objectClass: objectClass, path: environment.path)
                try ChunkParts.store(chunk, out, outData, table: objectClass.key, column: column, cluster: cluster,
                                     limit: target.chunkPartLimit, lastKey: &lastKey)
            } else {
                for (key, raw) in pieces {
                    try LMDB.putReserved(out, outData, integerKey: key, size: raw.count, append: true) {
                        $0.copyMemory(from: raw)
                    }
                }
            }
        }
        try MetaKeys.write(out, meta, MetaKeys.objectCount(objectClass.key), UInt64(count))

        try buildKeys()
        report(.info, "class '\(name)': \(count) objects copied")
        return problems
    }
}

/// Which objects the copy being written has: presence chunks read from the
/// copy's transaction, kept per cluster until the copy's pages change.
private final class CopyPresence {
    let target: Environment
    let out: OpaquePointer
    let tables: ChunkPartTables
    private var chunks: [UInt64: ChunkReader] = [:]

    init(_ target: Environment, _ out: OpaquePointer, _ tables: ChunkPartTables) {
        self.target = target
        self.out = out
        self.tables = tables
    }

    /// Whether object `key` of class `classKey` is in the copy.
    func exists(_ classKey: UInt32, _ key: Int64) throws(FiefError) -> Bool {
        guard key >= 0, let data = try target.database(Table.dataName(classKey), txn: out, create: false) else { return false }
        let cluster = ClusterLayout.cluster(of: key)
        let id = UInt64(classKey) << 40 | UInt64(cluster)
        if chunks[id] == nil {
            chunks[id] = try ChunkParts.read(out, data, table: classKey, column: ClusterLayout.presenceColumn, cluster: cluster,
                                             type: nil, bounds: nil, tables: tables) ?? ChunkReader(nil)
        }
        return chunks[id]!.bit(ClusterLayout.slot(of: key))
    }

    /// Views into pages the copy's transaction changed may have moved.
    func forget() { chunks.removeAll() }
}
