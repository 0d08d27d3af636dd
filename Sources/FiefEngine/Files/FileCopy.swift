import CLMDB
import FiefStorage
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
            // The change records start afresh: the copy is a new file that no
            // reader has observed (see docs/design.md, "Change records").
            _ = try target.database(History.database, txn: out, create: true)
            try SchemaRecord.write(out, outMeta, SchemaCoding.encode(schema))
            for objectClass in schema.classes {
                if let next = try MetaKeys.readUInt64(txn, meta, MetaKeys.nextObjectKey(objectClass.key)) {
                    try MetaKeys.write(out, outMeta, MetaKeys.nextObjectKey(objectClass.key), next)
                }
                problems += try copyClass(objectClass, format: format, from: environment, txn, to: target, out, meta: outMeta, report: report)
            }
            let nested = NestedDirectory(schema, environment, txn, sealed: format >= 7)
            problems += try rebuildBacklinks(schema, nested, in: target, out, report: report)
            problems += try copyLists(schema, nested, from: environment, txn, to: target, out, report: report)
            problems += try copySetsAndMaps(schema, nested, format: format, from: environment, txn, to: target, out, report: report)
            problems += try copyNested(schema, nested, from: environment, txn, to: target, out, report: report)
            // Spatial indexes last: they read the copied points, their lists and backlinks.
            for objectClass in schema.classes where objectClass.geoIndexedProperties != nil {
                try GeoIndex.build(out, environment: target, objectClass: objectClass)
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

    /// The copy's backlinks, made from its links and mixed values (the
    /// source's are never read); a link to an object the copy lacks (lost to
    /// damage) is cleared and reported, and so is a mixed value that links
    /// to one or cannot be read.
    private static func rebuildBacklinks(_ schema: Schema, _ nested: NestedDirectory, in target: Environment, _ out: OpaquePointer,
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
            let links = objectClass.properties.filter { ($0.type == .link || $0.type == .mixed) && $0.collection == .none }
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
                let isMixed = link.type == .mixed
                let linkTarget = isMixed ? nil : link.linkTarget.flatMap { schema.objectClass(named: $0)?.key }
                guard isMixed || linkTarget.flatMap({ backlinks[$0] }) != nil else { continue }
                for (cluster, live) in clusters {
                    guard let column = try ChunkParts.read(out, data, table: objectClass.key, column: link.key, cluster: cluster,
                                                           type: link.columnType, bounds: nil, tables: tables), column.base != nil else { continue }
                    var fixed: DirtyChunk?
                    func clear(_ slot: Int, _ text: String) {
                        if fixed == nil { fixed = DirtyChunk(type: link.type, from: column) }
                        fixed!.set(slot, .null)
                        problems += 1
                        report(.problem, "class '\(objectClass.name)': " + text)
                    }
                    for slot in 0..<ClusterLayout.slots where live.bit(slot) && !column.isNull(slot) {
                        let origin = cluster << ClusterLayout.shift | Int64(slot)
                        let classKey: UInt32, linked: Int64
                        if isMixed {
                            guard let value = MixedCoding.decode(column.bytes(slot)) else {
                                clear(slot, "the mixed value '\(link.name)' of object \(origin) cannot be read: copied as null")
                                continue
                            }
                            if let id = value.nestedID, !nested.holds(objectClass.key, id, owner: origin, property: link.key) {
                                clear(slot, "the mixed value '\(link.name)' of object \(origin) holds nested collection \(id), which is damaged or lost: copied as null")
                                continue
                            }
                            guard case .link(let c, let k) = value else { continue }
                            guard linkable(c, by: link, in: schema) else {
                                clear(slot, "the mixed value '\(link.name)' of object \(origin) links to class \(c), which it cannot: copied as null")
                                continue
                            }
                            (classKey, linked) = (c, k)
                        } else {
                            (classKey, linked) = (linkTarget!, column.int(slot))
                        }
                        if let dbi = backlinks[classKey], try exists(classKey, linked) {
                            try Backlinks.add(out, dbi, target: linked, originClass: objectClass.key, property: link.key, origin: origin)
                        } else if isMixed {
                            clear(slot, "the mixed value '\(link.name)' of object \(origin) is \(className(classKey, schema)) object \(linked), which was lost: copied as null")
                        } else {
                            clear(slot, "the link '\(link.name)' of object \(origin) points to an object that was lost: copied as null")
                        }
                    }
                    if let fixed { cleared.append((link.key, cluster, fixed)) }
                }
            }
            var neverAppend: UInt64? = .max
            for (column, cluster, chunk) in cleared {
                // The chunk may be cut into other parts than the one it
                // replaces (a value nulled): the old leading parts go first.
                if chunk.wasInParts { try ChunkParts.deleteLeadingParts(out, data, column: column, cluster: cluster) }
                try ChunkParts.store(chunk, out, data, table: objectClass.key, column: column, cluster: cluster,
                                     limit: target.chunkPartLimit, lastKey: &neverAppend)
            }
            // Views into pages this transaction changed may have moved.
            if !cleared.isEmpty { presence.forget() }
        }
        return problems
    }

    /// Whether `property` may hold a link to an object of class `classKey`:
    /// its target class, or for mixed values any class but an embedded one.
    private static func linkable(_ classKey: UInt32, by property: Property, in schema: Schema) -> Bool {
        guard let objectClass = schema.objectClass(key: classKey) else { return false }
        if property.type == .mixed { return !objectClass.isEmbedded }
        return property.type == .link && objectClass.name == property.linkTarget
    }

    private static func className(_ classKey: UInt32, _ schema: Schema) -> String {
        schema.objectClass(key: classKey)?.name ?? "class \(classKey)"
    }

    /// Every list of an object the copy has: copied as it is when every
    /// segment is sound, every mixed element decodes and every object it
    /// links to was copied; otherwise what can be read, without the lost
    /// objects, stored afresh.  A tree with damaged pages gives the segments
    /// its sound pages hold.  Then every owner's size column counts the
    /// elements copied, and links in lists (mixed elements' too, to any
    /// class) get their backlinks.
    private static func copyLists(_ schema: Schema, _ nested: NestedDirectory, from environment: Environment, _ txn: OpaquePointer, to target: Environment,
                                  _ out: OpaquePointer, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        var problems = 0
        let tables = ChunkPartTables()
        let presence = CopyPresence(target, out, tables)
        func exists(_ classKey: UInt32, _ key: Int64) throws(FiefError) -> Bool { try presence.exists(classKey, key) }
        var backlinks: [UInt32: MDB_dbi] = [:]
        func backlinksDatabase(_ classKey: UInt32) throws(FiefError) -> MDB_dbi {
            if let dbi = backlinks[classKey] { return dbi }
            let dbi = try target.database(Table.backlinksName(classKey), txn: out, create: true)!
            backlinks[classKey] = dbi
            return dbi
        }
        var scratch: [UInt8] = []
        for objectClass in schema.classes {
            for property in objectClass.properties where property.isList {
                let name = Table.listName(objectClass.key, property.key)
                let what = "class '\(objectClass.name)': list '\(property.name)'"
                let outList = try target.database(name, txn: out, create: true)!
                // Elements copied per owner, and the owners whose losses were reported.
                var kept: [Int64: Int] = [:]
                var reported: Set<Int64> = []
                var treeDamaged = false
                var salvaged: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]?
                var source: MDB_dbi?
                if let reason = environment.damagedTrees[name] {
                    problems += 1
                    report(.problem, "\(what): its pages are damaged (\(reason)): copying what the sound pages hold")
                    treeDamaged = true
                    // In key order, once each (damage can leave a tree out of order).
                    var found = PageCheck.salvageEntries(environment: environment, txn: txn, tree: name)
                    found.sort { Realm.compareKeys($0.key, $1.key) < 0 }
                    salvaged = []
                    for entry in found where salvaged!.last.map({ Realm.compareKeys($0.key, entry.key) != 0 }) ?? true {
                        salvaged!.append(entry)
                    }
                } else if let dbi = try environment.database(name, txn: txn, create: false), Environment.isUsable(dbi, in: txn) {
                    source = dbi
                } else {
                    problems += 1
                    report(.problem, "\(what): its elements are missing: its lists are copied empty")
                    problems += try fixSizes(objectClass, property, what: what, kept: [:], explained: [], quiet: true, target, out, tables, report: report)
                    presence.forget()
                    continue
                }
                let targetClass = property.linkTarget.flatMap { schema.objectClass(named: $0) }
                // Mixed elements are coded values in segments of the binary layout.
                let isMixed = property.type == .mixed
                let layout = property.type.chunkType
                let nullable = property.isNullable || isMixed
                var copied = 0
                do throws(FiefError) {
                    let each = { (owner: Int64, segments: [(position: UInt64, raw: UnsafeRawBufferPointer)]) throws(FiefError) in
                        guard try exists(objectClass.key, owner) else { return }
                        // The elements as stored, and the links among them.
                        var values: [Value] = []
                        var links: [(classKey: UInt32, key: Int64)] = []
                        var intact = true
                        func leftOut(_ text: String) {
                            intact = false
                            problems += 1
                            reported.insert(owner)
                            report(.problem, "class '\(objectClass.name)': \(text)")
                        }
                        for (position, raw) in segments {
                            guard environment.currentBounds().contains(raw), let reader = SegmentReader(raw, type: layout, table: objectClass.key,
                                    key: ListStore.checkKey(column: property.key, owner: owner, position: position)) else {
                                leftOut("a segment of list '\(property.name)' of object \(owner) is damaged: its elements are left out")
                                continue
                            }
                            for i in 0..<reader.count {
                                let value = reader.value(i, linkTarget: targetClass?.key ?? 0)
                                var element = value
                                if isMixed, case .binary(let coded) = value {
                                    guard let decoded = MixedCoding.decode(coded) else {
                                        leftOut("list '\(property.name)' of object \(owner) held a mixed value that cannot be read: left out")
                                        continue
                                    }
                                    if let id = decoded.nestedID, !nested.holds(objectClass.key, id, owner: owner, property: property.key) {
                                        leftOut("list '\(property.name)' of object \(owner) held nested collection \(id), which is damaged or lost: left out")
                                        continue
                                    }
                                    element = decoded
                                }
                                if case .link(let c, let k) = element {
                                    guard linkable(c, by: property, in: schema) else {
                                        leftOut("list '\(property.name)' of object \(owner) held a link to class \(c), which it cannot: left out")
                                        continue
                                    }
                                    guard try exists(c, k) else {
                                        leftOut("list '\(property.name)' of object \(owner) held \(className(c, schema)) object \(k), which was lost: left out")
                                        continue
                                    }
                                    links.append((c, k))
                                }
                                values.append(value)
                            }
                        }
                        copied += 1
                        kept[owner] = values.count
                        if intact {
                            var keyBuffer = (UInt64(0), UInt64(0))
                            for (position, raw) in segments {
                                try withUnsafeMutableBytes(of: &keyBuffer) { (k) throws(FiefError) in
                                    ListStore.key(k.baseAddress!, owner: owner, position: position)
                                    try ListStore.putSegment(out, outList, UnsafeRawBufferPointer(k), raw, append: true)
                                }
                            }
                        } else {
                            let pieces = ListStore.cut(values, type: layout, limit: target.chunkPartLimit)
                            for (index, piece) in pieces.enumerated() {
                                try ListStore.put(Array(values[piece]), out, outList, table: objectClass.key, column: property.key, owner: owner,
                                                  position: ListStore.firstPosition &+ UInt64(index) &* ListStore.positionStep,
                                                  type: layout, nullable: nullable, append: true, scratch: &scratch)
                            }
                        }
                        for (classKey, linked) in links {
                            try Backlinks.add(out, try backlinksDatabase(classKey), target: linked, originClass: objectClass.key, property: property.key, origin: owner)
                        }
                    }
                    if let source {
                        try ListStore.forEachList(txn, source, each)
                    } else {
                        try ListStore.forEachList(entries: salvaged ?? [], each)
                    }
                } catch {
                    problems += 1
                    treeDamaged = true
                    report(.problem, "class '\(objectClass.name)': list '\(property.name)' cannot be read (\(error.message)): the rest of its lists left out")
                }
                problems += try fixSizes(objectClass, property, what: what, kept: kept, explained: reported, quiet: treeDamaged,
                                         target, out, tables, report: report)
                presence.forget()
                report(.info, "class '\(objectClass.name)': \(copied) lists '\(property.name)' copied")
            }
        }
        return problems
    }

    /// Every set and map of an object the copy has, entry by entry (an
    /// entry is one element or one key): an entry is copied as it is when
    /// it decodes as an element of its type (a set's in its one encoding,
    /// for mixed values the canonical key of the value the entry holds; a
    /// map's key one that can be stored) and its link, if any, leads to an
    /// object the copy has (in a mixed value, of any class that is not
    /// embedded).  Otherwise it is left out and reported, except
    /// that a map value linking to a lost object is copied as null (as
    /// deleting that object would leave it).  A tree with damaged pages
    /// gives what its sound pages hold.  Then every owner's size column is
    /// made to count the entries copied, and links get their backlinks.
    /// The nested collections of mixed values (see `NestedStore`): those
    /// whose owner the copy has, with their counter; an entry that cannot
    /// be read, or links to an object the copy lacks, or nests a collection
    /// that is gone, is left out of a list (null in a dictionary) and
    /// reported.  Links inside get their backlinks in the copy.
    private static func copyNested(_ schema: Schema, _ nested: NestedDirectory, from environment: Environment, _ txn: OpaquePointer, to target: Environment,
                                   _ out: OpaquePointer, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        var problems = 0
        let presence = CopyPresence(target, out, ChunkPartTables())
        var null: [UInt8] = []
        MixedCoding.encode(.null, into: &null)
        for objectClass in schema.classes where Table.holdsNested(objectClass) {
            let name = Table.nestedName(objectClass.key)
            let outDB = try target.database(name, txn: out, create: true)!
            guard let source = environment.openedDatabase(name) else { continue }
            let what = "class '\(objectClass.name)': nested collections"
            let table = objectClass.key
            func put(_ key: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) throws(FiefError) {
                let stored = EntrySeal.sealed(body, table: table, database: EntrySeal.nested, key: key)
                _ = try stored.withBytes { (v) throws(FiefError) in try LMDB.put(out, outDB, key, v) }
            }
            // The collections copied: those whose header is sound and whose owner the copy has.
            var headers: [Int64: NestedStore.Header] = [:]
            for (id, header) in nested.headers[table] ?? [:] {
                presence.forget()
                if try presence.exists(table, header.owner) { headers[id] = header }
            }
            for id in (nested.damaged[table] ?? []).sorted() {
                problems += 1
                report(.problem, "\(what): the header of collection \(id) is damaged: the collection is left out (the values holding it are copied as null or left out)")
            }
            var leftOut = 0
            do throws(FiefError) {
                let cursor = try LMDBCursor(txn, source)
                var entry = try cursor.move(MDB_FIRST)
                while let (key, value) = entry, key.count >= 8, UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) & NestedStore.headerBit == 0 {
                    entry = try cursor.next()
                    let id = Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
                    guard let header = headers[id] else { continue }
                    let body = nested.sealed ? EntrySeal.open(value, table: table, database: EntrySeal.nested, key: key) : value
                    var element = body.flatMap { MixedCoding.decode($0) }
                    if header.kind == .list && key.count != 16 { element = nil }
                    if let child = element?.nestedID, headers[child].map({ $0.owner != header.owner || $0.property != header.property }) ?? true { element = nil }
                    if case .link(let c, let k)? = element {
                        presence.forget()
                        let linkable = schema.objectClass(key: c).map { !$0.isEmbedded } ?? false
                        if !linkable { element = nil } else if try !presence.exists(c, k) { element = nil }
                    }
                    guard let element, let body else {
                        leftOut += 1
                        if header.kind == .list { continue }
                        try null.withBytes { (v) throws(FiefError) in try put(key, v) }
                        continue
                    }
                    try put(key, body)
                    if case .link(let c, let k) = element {
                        let backlinks = try target.database(Table.backlinksName(c), txn: out, create: true)!
                        try Backlinks.add(out, backlinks, target: k, originClass: table, property: header.property, origin: header.owner)
                    }
                }
            } catch {
                problems += 1
                report(.problem, "\(what) cannot be read (\(error.message)): the rest of their entries left out")
            }
            // Headers, then the counter (they sort after every entry): sealed afresh.
            var headerBytes = [UInt8](repeating: 0, count: NestedStore.headerBytes)
            for (id, header) in headers.sorted(by: { $0.key < $1.key }) {
                headerBytes[0] = header.kind.rawValue
                headerBytes.withUnsafeMutableBytes {
                    $0.storeBytes(of: UInt64(bitPattern: header.owner).littleEndian, toByteOffset: 1, as: UInt64.self)
                    $0.storeBytes(of: header.property.littleEndian, toByteOffset: 9, as: UInt32.self)
                }
                var key = (UInt64(bitPattern: id) | NestedStore.headerBit).bigEndian
                try withUnsafeBytes(of: &key) { (k) throws(FiefError) in try headerBytes.withBytes { (v) throws(FiefError) in try put(k, v) } }
            }
            if nested.counterDamaged.contains(table) {
                problems += 1
                report(.problem, "\(what): the id counter is damaged: the copy's counts on past every id found")
            }
            if let next = nested.nextID[table] {
                var key = NestedStore.counterKey.bigEndian
                var value = UInt64(bitPattern: next).littleEndian
                try withUnsafeBytes(of: &key) { (k) throws(FiefError) in try withUnsafeBytes(of: &value) { (v) throws(FiefError) in try put(k, v) } }
            }
            if leftOut > 0 {
                problems += 1
                report(.problem, "\(what): \(leftOut) element\(leftOut == 1 ? "" : "s") that could not be read (or failed its checksum), linked to a lost object or held a lost collection: left out of lists, null in dictionaries")
            }
        }
        return problems
    }

    /// The nested collections of the source, read before anything is
    /// copied, so that every mixed value holding one is copied only when
    /// the collection is (its header sound, naming that value's owner and
    /// property), and otherwise copied as null or left out, and reported.
    final class NestedDirectory {
        /// Map and nested entries carry checksums (a format-7 source).
        let sealed: Bool
        var headers: [UInt32: [Int64: NestedStore.Header]] = [:]
        /// Collections whose header is damaged.
        var damaged: [UInt32: Set<Int64>] = [:]
        /// The id counter the copy gets: the stored one, or past every id seen.
        var nextID: [UInt32: Int64] = [:]
        /// Classes whose stored id counter is damaged.
        var counterDamaged: Set<UInt32> = []

        init(_ schema: Schema, _ environment: Environment, _ txn: OpaquePointer, sealed: Bool) {
            self.sealed = sealed
            for objectClass in schema.classes where Table.holdsNested(objectClass) {
                let name = Table.nestedName(objectClass.key)
                guard environment.damagedTrees[name] == nil, let source = environment.openedDatabase(name) else { continue }
                var found: [Int64: NestedStore.Header] = [:]
                var bad: Set<Int64> = []
                var next: Int64 = 1
                do throws(FiefError) {
                    let cursor = try LMDBCursor(txn, source)
                    var start = NestedStore.headerBit.bigEndian
                    var entry = try withUnsafeBytes(of: &start) { (k) throws(FiefError) in try cursor.seek(k) }
                    while let (key, value) = entry, key.count == 8 {
                        entry = try cursor.next()
                        let raw = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                        let body = sealed ? EntrySeal.open(value, table: objectClass.key, database: EntrySeal.nested, key: key) : value
                        if raw == NestedStore.counterKey {
                            if let body, body.count == 8 {
                                let stored = Int64(bitPattern: UInt64(littleEndian: body.loadUnaligned(as: UInt64.self)))
                                if stored > 0 && stored < NestedStore.maxID { next = max(next, stored) }
                            } else {
                                counterDamaged.insert(objectClass.key)
                            }
                            continue
                        }
                        let id = Int64(bitPattern: raw & ~NestedStore.headerBit)
                        if id > 0 && id < NestedStore.maxID - 1 { next = max(next, id + 1) }
                        if let body, let header = NestedStore.decodeHeader(body) { found[id] = header } else { bad.insert(id) }
                    }
                } catch {
                    continue
                }
                headers[objectClass.key] = found
                if !bad.isEmpty { damaged[objectClass.key] = bad }
                nextID[objectClass.key] = next
            }
        }

        /// Whether collection `id` of class `classKey` is copied and held by
        /// (`owner`, `property`).
        func holds(_ classKey: UInt32, _ id: Int64, owner: Int64, property: UInt32) -> Bool {
            guard let header = headers[classKey]?[id] else { return false }
            return header.owner == owner && header.property == property
        }
    }

    private static func copySetsAndMaps(_ schema: Schema, _ nested: NestedDirectory, format: UInt64, from environment: Environment, _ txn: OpaquePointer, to target: Environment,
                                        _ out: OpaquePointer, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        var problems = 0
        let tables = ChunkPartTables()
        let presence = CopyPresence(target, out, tables)
        let bounds = environment.currentBounds()
        var scratch: [UInt8] = []
        var null: [UInt8] = []
        MixedCoding.encode(.null, into: &null)
        var backlinks: [UInt32: MDB_dbi] = [:]
        func backlinksDatabase(_ classKey: UInt32) throws(FiefError) -> MDB_dbi {
            if let dbi = backlinks[classKey] { return dbi }
            let dbi = try target.database(Table.backlinksName(classKey), txn: out, create: true)!
            backlinks[classKey] = dbi
            return dbi
        }
        for objectClass in schema.classes {
            for property in objectClass.properties where property.collection == .set || property.collection == .map {
                guard let name = Table.collectionName(objectClass.key, property) else { continue }
                let isSet = property.collection == .set
                let kind = property.collection.name
                let what = "class '\(objectClass.name)': \(kind) '\(property.name)'"
                let outDB = try target.database(name, txn: out, create: true)!
                let targetClass = property.linkTarget.flatMap { schema.objectClass(named: $0) }
                let isMixed = property.type == .mixed
                // Entries copied and entries left out (reported), per owner.
                var kept: [Int64: Int] = [:]
                var reported: Set<Int64> = []
                var owners = 0, entries = 0
                var lastOwner: Int64?
                var treeDamaged = false
                // Numbers format 5 keyed otherwise (`SetStore.format5MixedKey`):
                // stored under their key, merged into an equal element there.
                var rekeyed = 0, mergedCount = 0
                var merged: Set<Int64> = []
                func leftOut(_ owner: Int64?, _ text: String) {
                    problems += 1
                    report(.problem, "\(what)\(owner.map { " of object \($0)" } ?? ""): \(text)")
                    if let owner { reported.insert(owner) }
                }
                // One stored entry, in key order.
                func visit(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(FiefError) {
                    guard bounds.contains(key), bounds.contains(value), let owner = SetStore.owner(of: key) else {
                        leftOut(nil, "an entry with a key of \(key.count) bytes is damaged: left out")
                        return
                    }
                    // Entries of objects the copy lacks go with them (their loss is reported).
                    guard try presence.exists(objectClass.key, owner) else { return }
                    let rest = UnsafeRawBufferPointer(rebasing: key[SetStore.ownerBytes...])
                    var decoded: Value?
                    var moved = false
                    var body = value
                    if isSet {
                        // Format 10: the entry's checksum (`EntrySeal`) first.
                        guard let opened = format >= 10 ? EntrySeal.open(value, table: objectClass.key, database: property.key, key: key) : value else {
                            leftOut(owner, "an entry fails its checksum: left out")
                            return
                        }
                        body = opened
                        decoded = SetStore.decode(rest, body, type: property.type, linkTarget: targetClass?.key ?? 0)
                        if let element = decoded {
                            // Stored in its one encoding (for mixed values, the canonical key of the value the entry holds).
                            SetStore.encode(element, owner: owner, mixed: isMixed, into: &scratch)
                            if !scratch.withUnsafeBytes({ SetStore.sameBytes($0, key) }) {
                                if isMixed, FormatUpgrade.rebuildsDerivedData(format),
                                   let old = SetStore.format5MixedKey(element, owner: owner), old.withUnsafeBytes({ SetStore.sameBytes($0, key) }) {
                                    moved = true
                                } else {
                                    decoded = nil
                                }
                            }
                        }
                    } else {
                        // Format 7: the entry's checksum (`EntrySeal`) first.
                        guard let opened = nested.sealed ? EntrySeal.open(value, table: objectClass.key, database: property.key, key: key) : value else {
                            leftOut(owner, "the entry of key '\(String(decoding: rest, as: UTF8.self))' fails its checksum: left out")
                            return
                        }
                        body = opened
                        if MapStore.keyProblem(rest) == nil, let v = MixedCoding.decode(body), v.type == nil || isMixed || v.type == property.type {
                            decoded = v
                        }
                    }
                    guard let element = decoded, !(element.isNull && !property.isNullable && !isMixed) else {
                        leftOut(owner, "an entry is damaged: left out")
                        return
                    }
                    var asNull = false
                    if let id = element.nestedID, !nested.holds(objectClass.key, id, owner: owner, property: property.key) {
                        problems += 1
                        reported.insert(owner)
                        report(.problem, "\(what) of object \(owner): the value of key '\(String(decoding: rest, as: UTF8.self))' holds nested collection \(id), which is damaged or lost: copied as null")
                        asNull = true
                    }
                    if case .link(let classKey, let linked) = element {
                        guard linkable(classKey, by: property, in: schema) else {
                            leftOut(owner, "an entry is damaged: left out")
                            return
                        }
                        if try !presence.exists(classKey, linked) {
                            if isSet {
                                leftOut(owner, "it held \(className(classKey, schema)) object \(linked), which was lost: left out")
                                return
                            }
                            problems += 1
                            report(.problem, "\(what) of object \(owner): the value of key '\(String(decoding: rest, as: UTF8.self))' is \(className(classKey, schema)) object \(linked), which was lost: copied as null")
                            asNull = true
                        } else {
                            try Backlinks.add(out, try backlinksDatabase(classKey), target: linked, originClass: objectClass.key, property: property.key, origin: owner)
                        }
                    }
                    if moved {
                        // Its key sorts before the format-5 one, and after
                        // every other key copied so far but the equal number's.
                        rekeyed += 1
                        // Sealed under its new key (format 10).
                        let added = try scratch.withBytes { (k) throws(FiefError) -> Bool in
                            try EntrySeal.sealed(body, table: objectClass.key, database: property.key, key: k).withBytes { (v) throws(FiefError) -> Bool in
                                try LMDB.put(out, outDB, k, v, flags: UInt32(MDB_NOOVERWRITE))
                            }
                        }
                        if !added {
                            merged.insert(owner)
                            mergedCount += 1
                            return
                        }
                    } else {
                        // Set entries (format 10) and map values (format 7) sealed under their key.
                        let stored = asNull ? null.withUnsafeBytes { EntrySeal.sealed($0, table: objectClass.key, database: property.key, key: key) }
                            : EntrySeal.sealed(body, table: objectClass.key, database: property.key, key: key)
                        _ = try stored.withBytes { (v) throws(FiefError) in try LMDB.put(out, outDB, key, v, flags: UInt32(MDB_APPEND)) }
                    }
                    if owner != lastOwner { owners += 1; lastOwner = owner }
                    entries += 1
                    kept[owner, default: 0] += 1
                }
                if let reason = environment.damagedTrees[name] {
                    problems += 1
                    report(.problem, "\(what): its pages are damaged (\(reason)): copying what the sound pages hold")
                    treeDamaged = true
                    // In key order, once each (damage can leave a tree out of order).
                    var found = PageCheck.salvageEntries(environment: environment, txn: txn, tree: name)
                    found.sort { Realm.compareKeys($0.key, $1.key) < 0 }
                    var previous: UnsafeRawBufferPointer?
                    for (key, value) in found {
                        if let previous, Realm.compareKeys(previous, key) == 0 { continue }
                        previous = key
                        try visit(key, value)
                    }
                } else if let source = try environment.database(name, txn: txn, create: false), Environment.isUsable(source, in: txn) {
                    do throws(FiefError) {
                        let cursor = try LMDBCursor(txn, source)
                        var entry = try cursor.move(MDB_FIRST)
                        while let (key, value) = entry {
                            try visit(key, value)
                            entry = try cursor.next()
                        }
                    } catch {
                        problems += 1
                        report(.problem, "\(what) cannot be read (\(error.message)): the rest of its entries left out")
                        treeDamaged = true
                    }
                } else {
                    problems += 1
                    report(.problem, "\(what): its \(isSet ? "elements are" : "entries are") missing: its \(kind)s are copied empty")
                    treeDamaged = true
                }
                problems += try fixSizes(objectClass, property, what: what, kept: kept, explained: reported.union(merged), quiet: treeDamaged,
                                         target, out, tables, report: report)
                presence.forget()
                report(.info, "\(what): \(owners) \(kind)s, \(entries) entries copied")
                if rekeyed > 0 {
                    report(.info, "\(what): \(rekeyed) number\(rekeyed == 1 ? "" : "s") keyed in format 5's form stored under format \(MetaKeys.formatValue)'s key, \(mergedCount) of them merged into an equal number (one element, as Realm counts it)")
                }
            }
        }
        return problems
    }

    /// Make the size column of collection `property` of every object the
    /// copy has count the elements or entries copied (`kept`); a size that
    /// was wrong is reported too, unless its owner's losses were
    /// (`explained`) or `quiet` (damage to the whole tree was reported).
    private static func fixSizes(_ objectClass: ObjectClass, _ property: Property, what: String, kept: [Int64: Int], explained: Set<Int64>, quiet: Bool,
                                 _ target: Environment, _ out: OpaquePointer, _ tables: ChunkPartTables,
                                 report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        guard let data = try target.database(Table.dataName(objectClass.key), txn: out, create: false) else { return 0 }
        var fixed: [(cluster: Int64, sizes: DirtyChunk, isNew: Bool)] = []
        var unexplained = 0
        var example = ""
        let cursor = try LMDBCursor(out, data)
        var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
        while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
            entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
            guard let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) else { continue }
            let live = ChunkReader(body), cluster = ClusterLayout.cluster(ofChunkKey: key)
            let stored = try ChunkParts.read(out, data, table: objectClass.key, column: property.key, cluster: cluster,
                                             type: .int, bounds: nil, tables: tables) ?? ChunkReader(nil)
            var chunk: DirtyChunk?
            for slot in 0..<ClusterLayout.slots where live.bit(slot) {
                let owner = cluster << ClusterLayout.shift | Int64(slot)
                let size = stored.base == nil || stored.isNull(slot) ? 0 : Int(stored.int(slot))
                let count = kept[owner] ?? 0
                guard size != count else { continue }
                if !explained.contains(owner) {
                    unexplained += 1
                    if example.isEmpty { example = " (object \(owner)'s said \(size), \(count) found)" }
                }
                if chunk == nil { chunk = DirtyChunk(type: .int, from: stored) }
                chunk!.set(slot, .int(Int64(count)))
            }
            if let chunk { fixed.append((cluster, chunk, stored.base == nil)) }
        }
        var neverAppend: UInt64? = .max
        for (cluster, sizes, isNew) in fixed {
            try ChunkParts.store(sizes, out, data, table: objectClass.key, column: property.key, cluster: cluster,
                                 limit: target.chunkPartLimit, lastKey: &neverAppend)
            if isNew {
                // A column chunk stored for the first time is listed in its cluster.
                let listed = try ChunkParts.read(out, data, table: objectClass.key, column: ClusterLayout.presenceColumn, cluster: cluster,
                                                 type: nil, bounds: nil, tables: tables) ?? ChunkReader(nil)
                let chunk = DirtyChunk(type: nil, from: listed)
                chunk.listColumn(property.key)
                try ChunkParts.store(chunk, out, data, table: objectClass.key, column: ClusterLayout.presenceColumn, cluster: cluster,
                                     limit: target.chunkPartLimit, lastKey: &neverAppend)
            }
        }
        guard unexplained > 0, !quiet else { return 0 }
        report(.problem, "\(what): \(unexplained) sizes did not match what is stored\(example): copied as what is stored")
        return 1
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
            for property in objectClass.properties where property.isFullTextIndexed {
                let dbi = try target.database(Table.fullTextName(objectClass.key, property.key), txn: out, create: true, dupSort: true)!
                try FullTextIndex.fill(out, data: outData, target: dbi, property: property, objectClass: objectClass)
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
