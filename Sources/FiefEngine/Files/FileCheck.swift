import CLMDB
import FiefStorage

/// One line of a file check or copy report.
public enum FileReportKind: Int32, Sendable {
    /// What was checked or copied (a summary line).
    case info = 0
    /// Damage found, or data that could not be copied.
    case problem = 1
}

/// `fief verify`: walks every page, tree and chunk of a realm file and
/// reports damage, without changing the file.
///
/// It reads one snapshot: LMDB's trees entry by entry (every page LMDB
/// reaches, every view inside the file), the page accounting (every page is
/// a meta page, in exactly one tree, or free), the meta values and schema,
/// and for each class every chunk (checksum and layout), the column lists of
/// the presence chunks, the object count, the primary-key table and the
/// indexes against the objects.
public enum FileCheck {
    /// Check the file at `path`; `report` receives each finding.  Returns
    /// the number of problems.  Throws only when the file cannot be read at
    /// all (missing, not an LMDB file, cut short).
    public static func verify(path: String, report: (FileReportKind, String) -> Void) throws(FiefError) -> Int {
        let environment = try EnvironmentRegistry.open(path: path, readOnly: true)
        let txn = try environment.readTransactionWithAllDatabases()
        defer { mdb_txn_abort(txn) }
        return withoutActuallyEscaping(report) { report in
            var checker = Checker(environment: environment, txn: txn, report: report)
            checker.run()
            return checker.problems
        }
    }

    struct Checker {
        let environment: Environment
        let txn: OpaquePointer
        let report: (FileReportKind, String) -> Void
        let bounds: MapBounds
        var problems = 0
        /// The part lists of chunks read in parts.
        let partTables = ChunkPartTables()
        /// The file's backlinks have format 4's layout (one entry per record).
        var legacyBacklinks = false
        /// The file's format (`meta/format`).
        var format: UInt64 = 0

        init(environment: Environment, txn: OpaquePointer, report: @escaping (FileReportKind, String) -> Void) {
            self.environment = environment
            self.txn = txn
            self.report = report
            bounds = environment.currentBounds()
        }

        mutating func problem(_ text: String) {
            problems += 1
            report(.problem, text)
        }

        mutating func run() {
            let names = checkTrees()
            guard let meta = open(MetaKeys.database) else {
                problem("the file has no meta database: it is not a Fief file, or its main tree is damaged")
                return
            }
            guard let schema = checkMeta(meta) else { return }
            format = ((try? MetaKeys.readUInt64(txn, meta, MetaKeys.format)) ?? nil) ?? 0
            for objectClass in schema.classes {
                checkClass(objectClass, meta: meta, names: names)
            }
            let format = ((try? MetaKeys.readUInt64(txn, meta, MetaKeys.format)) ?? nil) ?? 0
            legacyBacklinks = FormatUpgrade.rewritesBacklinks(format)
            checkHistory(meta, names: names)
            if !FormatUpgrade.rewritesChunks(format) {
                checkLinks(schema, names: names)
                for objectClass in schema.classes where objectClass.geoIndexedProperties != nil {
                    checkGeoIndex(objectClass, names: names)
                }
            }
        }

        /// The change records (`History`, format 9): each sealed and
        /// decoding, keyed by a version the file has made, their commits in
        /// order.
        mutating func checkHistory(_ meta: MDB_dbi, names: Set<String>) {
            guard names.contains(History.database) else {
                if format >= 9 { problem("the file has no history database (format \(format) has one)") }
                return
            }
            guard damagedTrees[History.database] == nil, let dbi = open(History.database) else { return }
            let newest = ((try? MetaKeys.readUInt64(txn, meta, MetaKeys.version)) ?? nil) ?? 0
            var cursor: OpaquePointer?
            guard mdb_cursor_open(txn, dbi, &cursor) == 0 else { return }
            defer { mdb_cursor_close(cursor) }
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            var records = 0, damaged: [String] = []
            var lastTransaction: UInt64 = 0
            while rc == 0 {
                let key = LMDB.bytes(k), value = LMDB.bytes(v)
                records += 1
                if key.count != 8 {
                    damaged.append("a key of \(key.count) bytes")
                } else {
                    let version = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                    if version == 0 || version > newest {
                        damaged.append("version \(version) (the file is at version \(newest))")
                    } else if let record = try? History.opened(value, key: Array(key), version: version, path: environment.path) {
                        if record.transaction <= lastTransaction { damaged.append("version \(version) (its commit is not newer than the one before)") }
                        lastTransaction = record.transaction
                    } else {
                        damaged.append("version \(version) (fails its checksum or does not decode)")
                    }
                }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            if !damaged.isEmpty {
                problem("the change records are damaged: \(damaged.prefix(3).joined(separator: "; "))\(damaged.count > 3 ? " and \(damaged.count - 3) more" : "") (`fief copy` writes a file without them)")
            } else {
                report(.info, "history: \(records) change record\(records == 1 ? "" : "s")")
            }
        }

        /// A spatial index against the points its class's data holds (see
        /// `GeoIndex`): every point has its two entries (cell, owner, unit
        /// vector as the data makes them), and nothing else is there.
        mutating func checkGeoIndex(_ objectClass: ObjectClass, names: Set<String>) {
            guard let (type, coordinates) = objectClass.geoIndexedProperties else { return }
            let name = objectClass.name
            let tableName = Table.geoIndexName(objectClass.key, coordinates.key)
            let dataName = Table.dataName(objectClass.key)
            guard let listName = Table.collectionName(objectClass.key, coordinates) else { return }
            if damagedTrees[tableName] != nil || damagedTrees[dataName] != nil || damagedTrees[listName] != nil { return }
            guard names.contains(tableName), let dbi = open(tableName) else {
                report(.info, "class '\(name)': no spatial index (a file written before them): the next writable open builds it")
                return
            }
            guard let data = open(dataName), let list = open(listName) else { return }
            let backlinksName = Table.backlinksName(objectClass.key)
            let backlinks = damagedTrees[backlinksName] == nil ? open(backlinksName) : nil
            let expected: [GeoIndexEntry]
            do {
                expected = try GeoIndex.points(txn, data: data, list: list, backlinks: backlinks, objectClass: objectClass,
                                               type: type, coordinates: coordinates)
            } catch {
                return    // the damage is reported with the class's data
            }
            var byObject: [Int64: GeoIndexEntry] = [:]
            byObject.reserveCapacity(expected.count)
            for entry in expected { byObject[entry.object] = entry }
            var points = 0, objects = 0, wrong = 0
            var cursor: OpaquePointer?
            guard mdb_cursor_open(txn, dbi, &cursor) == 0 else { return }
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                let key = LMDB.bytes(k), value = LMDB.bytes(v)
                if let entry = GeoIndexEntry(key: key, value: value) {
                    if byObject[entry.object] == entry { points += 1 } else { wrong += 1 }
                } else if key.count == GeoIndexEntry.objectKeyBytes, key[0] == 0, value.count == 8 {
                    let object = Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
                    if let entry = byObject[object], entry.cell == value.loadUnaligned(as: UInt64.self) { objects += 1 } else { wrong += 1 }
                } else {
                    wrong += 1
                }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
            if rc != MDB_NOTFOUND {
                problem("class '\(name)': its spatial index is damaged: \(String(cString: mdb_strerror(rc)))")
            } else if wrong > 0 || points != expected.count || objects != expected.count {
                problem("class '\(name)': its spatial index holds \(points) of the \(expected.count) points of its data (\(objects) object entries) and \(wrong) wrong entries (`fief copy` rebuilds it)")
            }
        }

        /// Every link against its target's backlinks: each link has its
        /// entry, and the backlinks count no link more than the links make.
        mutating func checkLinks(_ schema: Schema, names: Set<String>) {
            // Backlink entries per target class.
            checkNested(schema, names: names)
            var expected: [UInt32: Int] = checkLists(schema, names: names)
            expected.merge(checkSetsAndMaps(schema, names: names)) { $0 + $1 }
            expected.merge(checkMixedValues(schema)) { $0 + $1 }
            // Links in nested collections whose holder made no link of its own.
            let leftover = nestedLinks
            nestedLinks = [:]
            for (origin, links) in leftover.sorted(by: { ($0.key.classKey, $0.key.property, $0.key.owner) < ($1.key.classKey, $1.key.property, $1.key.owner) }) {
                let name = schema.objectClass(key: origin.classKey)?.name ?? "#\(origin.classKey)"
                let what = "class '\(name)': nested collections of '\(schema.objectClass(key: origin.classKey)?.property(key: origin.property)?.name ?? "#\(origin.property)")'"
                var found: [String] = []
                do throws(FiefError) {
                    try checkRecorded(links, schema, origin: (origin.classKey, origin.property, origin.owner), what: what, found: &found, expected: &expected)
                } catch {
                    problem("\(what) cannot be checked: \(error.message)")
                }
                for text in found.prefix(20) { problem(text) }
            }
            for objectClass in schema.classes {
                let links = objectClass.properties.filter { $0.type == .link && $0.collection == .none }
                let dataName = Table.dataName(objectClass.key)
                guard !links.isEmpty, damagedTrees[dataName] == nil, let data = open(dataName) else { continue }
                for link in links {
                    guard let target = link.linkTarget.flatMap({ schema.objectClass(named: $0) }) else { continue }
                    let backlinksName = Table.backlinksName(target.key)
                    guard damagedTrees[backlinksName] == nil else { continue }
                    guard names.contains(backlinksName), let dbi = open(backlinksName) else {
                        problem("class '\(target.name)': the links to it are missing")
                        continue
                    }
                    var missing = 0
                    do throws(FiefError) {
                        let cursor = try LMDBCursor(txn, data)
                        var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
                        while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
                            entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
                            guard let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) else { continue }
                            let live = ChunkReader(body), cluster = ClusterLayout.cluster(ofChunkKey: key)
                            guard let column = try ChunkParts.read(txn, data, table: objectClass.key, column: link.key, cluster: cluster,
                                                                   type: .link, bounds: bounds, tables: partTables) else { continue }
                            for slot in 0..<ClusterLayout.slots where live.bit(slot) && column.base != nil && !column.isNull(slot) {
                                let origin = cluster << ClusterLayout.shift | Int64(slot)
                                var found = false
                                try recorded(dbi, target: column.int(slot), originClass: objectClass.key, property: link.key) { (o, _) in
                                    if o == origin { found = true }
                                }
                                if found { expected[target.key, default: 0] += 1 } else { missing += 1 }
                            }
                        }
                    } catch {
                        problem("class '\(objectClass.name)': its links '\(link.name)' cannot be read: \(error.message)")
                    }
                    if missing > 0 {
                        problem("class '\(objectClass.name)': \(missing) of its links '\(link.name)' are not recorded on the target's side")
                    }
                }
            }
            for objectClass in schema.classes where Backlinks.isTarget(objectClass, in: schema) {
                let name = Table.backlinksName(objectClass.key)
                guard damagedTrees[name] == nil, let dbi = open(name) else { continue }
                guard let records = recordCount(dbi, objectClass) else { continue }
                if records != expected[objectClass.key, default: 0] {
                    problem("class '\(objectClass.name)': \(records) links to its objects are recorded, but \(expected[objectClass.key, default: 0]) exist")
                }
            }
            // A class no link points to (any more) keeps no backlinks.
            for objectClass in schema.classes where !Backlinks.isTarget(objectClass, in: schema) {
                let name = Table.backlinksName(objectClass.key)
                guard names.contains(name), damagedTrees[name] == nil, let dbi = open(name) else { continue }
                guard let records = recordCount(dbi, objectClass), records > 0 else { continue }
                problem("class '\(objectClass.name)': \(records) links to its objects are recorded, but no property links to it")
            }
        }

        /// The origin objects and counts recorded in backlinks `dbi` for
        /// `target` from (`originClass`, `property`), in either layout.
        func recorded(_ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32,
                      _ body: (Int64, UInt32) -> Void) throws(FiefError) {
            if legacyBacklinks {
                try FormatUpgrade.forEachFormat4Backlink(txn, dbi, target: target, originClass: originClass, property: property, body)
            } else {
                try Backlinks.forEach(txn, dbi, target: target, originClass: originClass, property: property) { (_, _, o, c) in body(o, c) }
            }
        }

        /// How many backlink records `dbi` holds (every run checked), or nil
        /// after reporting a damaged one.
        mutating func recordCount(_ dbi: MDB_dbi, _ objectClass: ObjectClass) -> Int? {
            if legacyBacklinks {
                var stat = MDB_stat()
                return mdb_stat(txn, dbi, &stat) == 0 ? Int(stat.ms_entries) : nil
            }
            do throws(FiefError) {
                return try Backlinks.recordCount(txn, dbi)
            } catch {
                problem("class '\(objectClass.name)': the links to its objects (backlinks) cannot be read: \(error.message)")
                return nil
            }
        }

        /// Every list: its segments sound and in order, their elements as
        /// many as its owner's size column says (also for owners without
        /// segments), its owner alive, and each link in a list counted in the
        /// target's backlinks.  Returns the
        /// backlink entries the lists make, per target class.
        mutating func checkLists(_ schema: Schema, names: Set<String>) -> [UInt32: Int] {
            var expected: [UInt32: Int] = [:]
            for objectClass in schema.classes {
                let dataName = Table.dataName(objectClass.key)
                guard damagedTrees[dataName] == nil, let data = open(dataName) else { continue }
                for property in objectClass.properties where property.isList {
                    let listName = Table.listName(objectClass.key, property.key)
                    let what = "class '\(objectClass.name)': list '\(property.name)'"
                    guard damagedTrees[listName] == nil else { continue }
                    guard names.contains(listName), let dbi = open(listName) else {
                        problem("\(what): its elements are missing")
                        continue
                    }
                    let target = property.linkTarget.flatMap { schema.objectClass(named: $0) }
                    var lists = 0, elements = 0
                    var found: [String] = []
                    var seen: Set<Int64> = []
                    do throws(FiefError) {
                        try ListStore.forEachList(txn, dbi) { (owner, segments) throws(FiefError) in
                            lists += 1
                            seen.insert(owner)
                            let cluster = ClusterLayout.cluster(of: owner), slot = ClusterLayout.slot(of: owner)
                            let live = try ChunkParts.read(txn, data, table: objectClass.key, column: ClusterLayout.presenceColumn, cluster: cluster,
                                                           type: nil, bounds: bounds, tables: partTables)
                            guard let live, live.bit(slot) else {
                                found.append("\(what) of object \(owner), which does not exist, is still stored")
                                return
                            }
                            var counts: [LinkTarget: UInt32] = [:]
                            var total = 0
                            for (position, raw) in segments {
                                guard bounds.contains(raw), let reader = SegmentReader(raw, type: property.type.chunkType, table: objectClass.key,
                                        key: ListStore.checkKey(column: property.key, owner: owner, position: position)) else {
                                    found.append("\(what) of object \(owner): a segment is damaged")
                                    continue
                                }
                                total += reader.count
                                if let target {
                                    for i in 0..<reader.count where !reader.isNull(i) { counts[LinkTarget(target.key, reader.int(i)), default: 0] += 1 }
                                } else if property.type == .mixed {
                                    for i in 0..<reader.count where !reader.isNull(i) {
                                        guard let value = MixedCoding.decode(reader.bytes(i)) else {
                                            found.append("\(what) of object \(owner): a mixed element cannot be read")
                                            continue
                                        }
                                        checkHeld(value, objectClass.key, owner: owner, property: property.key, what: what, found: &found)
                                        if case .link(let c, let k) = value { counts[LinkTarget(c, k), default: 0] += 1 }
                                    }
                                }
                            }
                            elements += total
                            let sizes = try ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                            type: .int, bounds: bounds, tables: partTables)
                            let size = sizes.map { $0.base == nil || $0.isNull(slot) ? 0 : Int($0.int(slot)) } ?? 0
                            if size != total {
                                found.append("\(what) of object \(owner) holds \(total) elements, but its size says \(size)")
                            }
                            try checkRecorded(counts, schema, origin: (objectClass.key, property.key, owner), what: what, found: &found, expected: &expected)
                        }
                        try emptyButSized(objectClass, property, data, seen: seen) { object, size in
                            found.append("\(what) of object \(object) holds no elements, but its size says \(size)")
                        }
                    } catch {
                        problem("\(what) cannot be read: \(error.message)")
                        continue
                    }
                    for text in found.prefix(20) { problem(text) }
                    if found.count > 20 { problem("\(what): \(found.count - 20) more problems") }
                    report(.info, "\(what): \(lists) lists, \(elements) elements")
                }
            }
            return expected
        }

        /// The objects whose size column for collection `property` says they
        /// hold something though they are not among `seen` (the owners whose
        /// elements or entries were found).
        func emptyButSized(_ objectClass: ObjectClass, _ property: Property, _ data: MDB_dbi, seen: Set<Int64>,
                           _ visit: (Int64, Int64) -> Void) throws(FiefError) {
            let cursor = try LMDBCursor(txn, data)
            var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
            while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
                entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
                guard bounds.contains(raw), let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) else { continue }
                let live = ChunkReader(body), cluster = ClusterLayout.cluster(ofChunkKey: key)
                guard let sizes = try ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                      type: .int, bounds: bounds, tables: partTables), sizes.base != nil else { continue }
                for slot in 0..<ClusterLayout.slots where live.bit(slot) && !sizes.isNull(slot) && sizes.int(slot) != 0 {
                    let object = cluster << ClusterLayout.shift | Int64(slot)
                    if !seen.contains(object) { visit(object, sizes.int(slot)) }
                }
            }
        }

        /// Every set and map: each entry decodes as an element of its type,
        /// its owner is alive, its owner's size column counts its entries
        /// (also for owners without entries),
        /// and each link in it is counted in the target's backlinks.
        /// Returns the backlink entries they make, per target class.
        mutating func checkSetsAndMaps(_ schema: Schema, names: Set<String>) -> [UInt32: Int] {
            var expected: [UInt32: Int] = [:]
            for objectClass in schema.classes {
                let dataName = Table.dataName(objectClass.key)
                guard damagedTrees[dataName] == nil, let data = open(dataName) else { continue }
                for property in objectClass.properties where property.collection == .set || property.collection == .map {
                    guard let name = Table.collectionName(objectClass.key, property) else { continue }
                    let kind = property.collection.name
                    let what = "class '\(objectClass.name)': \(kind) '\(property.name)'"
                    guard damagedTrees[name] == nil else { continue }
                    guard names.contains(name), let dbi = open(name) else {
                        problem("\(what): its \(kind == "set" ? "elements are" : "entries are") missing")
                        continue
                    }
                    let target = property.linkTarget.flatMap { schema.objectClass(named: $0) }
                    var owners = 0, entries = 0
                    var found: [String] = []
                    // Sets of mixed values: each element under the key its value has
                    // (format 5 keyed some numbers otherwise: counted, the upgrade moves them).
                    let checksKeys = property.collection == .set && property.type == .mixed
                    var format5Keyed = 0, format5Merged = 0
                    var canonical: [UInt8] = []
                    do throws(FiefError) {
                        var owner: Int64? = nil
                        var count = 0
                        var links: [LinkTarget: UInt32] = [:]
                        var seen: Set<Int64> = []
                        func finish(_ owner: Int64) throws(FiefError) {
                            owners += 1
                            seen.insert(owner)
                            let cluster = ClusterLayout.cluster(of: owner), slot = ClusterLayout.slot(of: owner)
                            let live = try ChunkParts.read(txn, data, table: objectClass.key, column: ClusterLayout.presenceColumn, cluster: cluster,
                                                           type: nil, bounds: bounds, tables: partTables)
                            guard let live, live.bit(slot) else {
                                found.append("\(what) of object \(owner), which does not exist, is still stored")
                                return
                            }
                            let sizes = try ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                            type: .int, bounds: bounds, tables: partTables)
                            let size = sizes.map { $0.base == nil || $0.isNull(slot) ? 0 : Int($0.int(slot)) } ?? 0
                            if size != count {
                                found.append("\(what) of object \(owner) holds \(count) entries, but its size says \(size)")
                            }
                            try checkRecorded(links, schema, origin: (objectClass.key, property.key, owner), what: what, found: &found, expected: &expected)
                        }
                        let cursor = try LMDBCursor(txn, dbi)
                        var entry = try cursor.move(MDB_FIRST)
                        while let (k, v) = entry {
                            guard let entryOwner = SetStore.owner(of: k) else {
                                found.append("\(what): a key of \(k.count) bytes is not an entry")
                                entry = try cursor.next()
                                continue
                            }
                            if entryOwner != owner {
                                if let owner { try finish(owner) }
                                owner = entryOwner
                                count = 0
                                links.removeAll(keepingCapacity: true)
                            }
                            count += 1
                            entries += 1
                            let rest = UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...])
                            let value: Value?
                            if property.collection == .set {
                                // Format 10: every set entry carries its checksum (`EntrySeal`).
                                guard let body = sealedSetEntries ? EntrySeal.open(v, table: objectClass.key, database: property.key, key: k) : v else {
                                    found.append("\(what) of object \(entryOwner): an entry fails its checksum")
                                    entry = try cursor.next()
                                    continue
                                }
                                value = SetStore.decode(rest, body, type: property.type, linkTarget: target?.key ?? 0)
                                if checksKeys, let value {
                                    SetStore.encode(value, owner: entryOwner, mixed: true, into: &canonical)
                                    if !canonical.withUnsafeBytes({ SetStore.sameBytes($0, k) }) {
                                        if FormatUpgrade.rebuildsDerivedData(format),
                                           let old = SetStore.format5MixedKey(value, owner: entryOwner), old.withUnsafeBytes({ SetStore.sameBytes($0, k) }) {
                                            format5Keyed += 1
                                            if try canonical.withBytes({ (c) throws(FiefError) in try LMDB.get(txn, dbi, c) }) != nil { format5Merged += 1 }
                                        } else {
                                            found.append("\(what) of object \(entryOwner): an element is not stored under its key")
                                        }
                                    }
                                }
                            } else {
                                // Format 7: every entry carries its checksum (`EntrySeal`).
                                let body = sealedEntries ? EntrySeal.open(v, table: objectClass.key, database: property.key, key: k) : v
                                if body == nil {
                                    found.append("\(what) of object \(entryOwner): the entry of key '\(String(decoding: rest, as: UTF8.self))' fails its checksum")
                                    entry = try cursor.next()
                                    continue
                                }
                                let decoded = body.flatMap { MixedCoding.decode($0) }
                                value = decoded.flatMap { $0.type == nil || property.type == .mixed || $0.type == property.type ? $0 : nil }
                                if MapStore.keyProblem(rest) != nil { found.append("\(what) of object \(entryOwner) has an invalid key") }
                                if let value { checkHeld(value, objectClass.key, owner: entryOwner, property: property.key, what: what, found: &found) }
                            }
                            if let value {
                                if case .link(let c, let linked) = value { links[LinkTarget(property.type == .mixed ? c : target?.key ?? c, linked), default: 0] += 1 }
                                if value.isNull && !property.isNullable && property.type != .mixed { found.append("\(what) of object \(entryOwner) holds null") }
                            } else {
                                found.append("\(what) of object \(entryOwner): an entry is damaged")
                            }
                            entry = try cursor.next()
                        }
                        if let owner { try finish(owner) }
                        try emptyButSized(objectClass, property, data, seen: seen) { object, size in
                            found.append("\(what) of object \(object) holds no entries, but its size says \(size)")
                        }
                    } catch {
                        problem("\(what) cannot be read: \(error.message)")
                        continue
                    }
                    for text in found.prefix(20) { problem(text) }
                    if found.count > 20 { problem("\(what): \(found.count - 20) more problems") }
                    report(.info, "\(what): \(owners) \(kind)s, \(entries) entries")
                    if format5Keyed > 0 {
                        report(.info, "\(what): \(format5Keyed) number\(format5Keyed == 1 ? "" : "s") keyed in format 5's form (\(format5Merged) of them beside an equal number, one element in format 6): moved when the file is upgraded to format \(MetaKeys.formatValue)")
                    }
                }
            }
            return expected
        }

        /// One link's target: its class and object.
        struct LinkTarget: Hashable {
            let classKey: UInt32
            let objectKey: Int64
            init(_ classKey: UInt32, _ objectKey: Int64) { self.classKey = classKey; self.objectKey = objectKey }
        }

        struct NestedOrigin: Hashable {
            let classKey: UInt32
            let property: UInt32
            let owner: Int64
        }

        /// The headers of each class's nested collections (`checkNested`;
        /// none for a class whose nested database could not be read).
        var nestedHeaders: [UInt32: [Int64: NestedStore.Header]] = [:]
        /// Map and nested entries carry checksums (format 7).
        var sealedEntries: Bool { format >= 7 }
        /// Set entries carry checksums (format 10).
        var sealedSetEntries: Bool { format >= 10 }

        /// A mixed value of (`classKey`, `owner`, `property`) holding a
        /// nested collection: the collection must exist and be that value's.
        func checkHeld(_ value: Value, _ classKey: UInt32, owner: Int64, property: UInt32, what: String, found: inout [String]) {
            guard let id = value.nestedID, let headers = nestedHeaders[classKey] else { return }
            guard let header = headers[id] else {
                found.append("\(what) of object \(owner) holds nested collection \(id), which does not exist")
                return
            }
            if header.owner != owner || header.property != property {
                found.append("\(what) of object \(owner) holds nested collection \(id), which belongs to another value")
            }
        }

        /// The links in nested collections, by the object and property
        /// holding them (`checkNested`); `checkRecorded` adds them to the
        /// holder's own.
        var nestedLinks: [NestedOrigin: [LinkTarget: UInt32]] = [:]

        /// Every nested collection's entries: each belongs to a collection
        /// with a header, decodes, and nests only collections that exist;
        /// their links are noted for `checkRecorded`.
        mutating func checkNested(_ schema: Schema, names: Set<String>) {
            for objectClass in schema.classes where Table.holdsNested(objectClass) {
                let name = Table.nestedName(objectClass.key)
                guard names.contains(name), damagedTrees[name] == nil, let dbi = open(name) else { continue }
                let what = "class '\(objectClass.name)': nested collections"
                var found: [String] = []
                do throws(FiefError) {
                    var headers: [Int64: NestedStore.Header] = [:]
                    let cursor = try LMDBCursor(txn, dbi)
                    var start = NestedStore.headerBit.bigEndian
                    var entry = try withUnsafeBytes(of: &start) { (k) throws(FiefError) in try cursor.seek(k) }
                    while let (key, value) = entry, key.count == 8 {
                        let raw = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                        if raw == NestedStore.counterKey {
                            if sealedEntries, EntrySeal.open(value, table: objectClass.key, database: EntrySeal.nested, key: key)?.count != 8 {
                                found.append("\(what): the id counter fails its checksum")
                            }
                        } else {
                            let body = sealedEntries ? EntrySeal.open(value, table: objectClass.key, database: EntrySeal.nested, key: key) : value
                            if let body, let header = NestedStore.decodeHeader(body) {
                                headers[Int64(bitPattern: raw & ~NestedStore.headerBit)] = header
                            } else {
                                found.append("\(what): the header of collection \(raw & ~NestedStore.headerBit) is damaged")
                            }
                        }
                        entry = try cursor.next()
                    }
                    nestedHeaders[objectClass.key] = headers
                    entry = try cursor.move(MDB_FIRST)
                    while let (key, value) = entry, key.count >= 8,
                          UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) & NestedStore.headerBit == 0 {
                        entry = try cursor.next()
                        let id = Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
                        guard let header = headers[id] else {
                            found.append("\(what): an entry of collection \(id), which has no header")
                            continue
                        }
                        if header.kind == .list && key.count != 16 {
                            found.append("\(what): an element of nested list \(id) has a damaged key")
                        }
                        guard let body = sealedEntries ? EntrySeal.open(value, table: objectClass.key, database: EntrySeal.nested, key: key) : value else {
                            found.append("\(what): an entry of nested \(header.kind.name) \(id) of object \(header.owner) ('\(header.property)') fails its checksum")
                            continue
                        }
                        guard let element = MixedCoding.decode(body) else {
                            found.append("\(what): a value in nested \(header.kind.name) \(id) of object \(header.owner) cannot be read")
                            continue
                        }
                        if let child = element.nestedID {
                            if let held = headers[child] {
                                if held.owner != header.owner || held.property != header.property {
                                    found.append("\(what): nested \(header.kind.name) \(id) of object \(header.owner) holds collection \(child), which belongs to another value")
                                }
                            } else {
                                found.append("\(what): nested \(header.kind.name) \(id) of object \(header.owner) holds collection \(child), which does not exist")
                            }
                        }
                        if case .link(let c, _) = element, !(schema.objectClass(key: c).map { !$0.isEmbedded } ?? false) {
                            found.append("\(what): nested \(header.kind.name) \(id) of object \(header.owner) links to class \(c), which it cannot")
                        }
                        if case .link(let c, let k) = element {
                            nestedLinks[NestedOrigin(classKey: objectClass.key, property: header.property, owner: header.owner), default: [:]][LinkTarget(c, k), default: 0] += 1
                        }
                    }
                } catch {
                    problem("\(what) cannot be read: \(error.message)")
                    continue
                }
                for text in found.prefix(20) { problem(text) }
                if found.count > 20 { problem("\(what): \(found.count - 20) more problems") }
            }
        }

        /// Compare the links one collection (`origin`: class, property,
        /// owner) makes, with their counts, against the targets' backlinks
        /// (with the links of the collections nested in it).
        mutating func checkRecorded(_ links: [LinkTarget: UInt32], _ schema: Schema, origin: (UInt32, UInt32, Int64), what: String,
                                    found: inout [String], expected: inout [UInt32: Int]) throws(FiefError) {
            var links = links
            if !nestedLinks.isEmpty, let nested = nestedLinks.removeValue(forKey: NestedOrigin(classKey: origin.0, property: origin.1, owner: origin.2)) {
                links.merge(nested) { $0 + $1 }
            }
            for (linked, count) in links {
                let targetName = schema.objectClass(key: linked.classKey)?.name ?? "#\(linked.classKey)"
                guard let backlinks = open(Table.backlinksName(linked.classKey)) else {
                    found.append("\(what) of object \(origin.2) links to class '\(targetName)', whose backlinks are missing")
                    continue
                }
                var recorded: UInt32 = 0
                try self.recorded(backlinks, target: linked.objectKey, originClass: origin.0, property: origin.1) { (o, c) in
                    if o == origin.2 { recorded = c }
                }
                if recorded == count {
                    expected[linked.classKey, default: 0] += 1
                } else {
                    found.append("\(what) of object \(origin.2) links \(count) times to \(targetName) object \(linked.objectKey), but its backlinks say \(recorded)")
                }
            }
        }

        /// Every mixed property's values decode, and each link among them
        /// is counted in the target's backlinks.  Returns the backlink
        /// entries they make, per target class.
        mutating func checkMixedValues(_ schema: Schema) -> [UInt32: Int] {
            var expected: [UInt32: Int] = [:]
            for objectClass in schema.classes {
                let mixed = objectClass.properties.filter { $0.type == .mixed && $0.collection == .none }
                let dataName = Table.dataName(objectClass.key)
                guard !mixed.isEmpty, damagedTrees[dataName] == nil, let data = open(dataName) else { continue }
                for property in mixed {
                    let what = "class '\(objectClass.name)': mixed '\(property.name)'"
                    var found: [String] = []
                    do throws(FiefError) {
                        let cursor = try LMDBCursor(txn, data)
                        var entry = try cursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
                        while let (key, raw) = entry, key < ClusterLayout.columnStart(1) {
                            entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
                            guard let body = ChunkCheck.verified(raw, table: objectClass.key, key: key, type: nil) else { continue }
                            let live = ChunkReader(body), cluster = ClusterLayout.cluster(ofChunkKey: key)
                            guard let column = try ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                                   type: .binary, bounds: bounds, tables: partTables), column.base != nil else { continue }
                            for slot in 0..<ClusterLayout.slots where live.bit(slot) && !column.isNull(slot) {
                                let origin = cluster << ClusterLayout.shift | Int64(slot)
                                guard let value = MixedCoding.decode(column.bytes(slot)) else {
                                    found.append("\(what) of object \(origin) cannot be read")
                                    continue
                                }
                                checkHeld(value, objectClass.key, owner: origin, property: property.key, what: what, found: &found)
                                if case .link(let c, let k) = value {
                                    try checkRecorded([LinkTarget(c, k): 1], schema, origin: (objectClass.key, property.key, origin), what: what,
                                                      found: &found, expected: &expected)
                                }
                            }
                        }
                    } catch {
                        problem("\(what) cannot be read: \(error.message)")
                        continue
                    }
                    for text in found.prefix(20) { problem(text) }
                    if found.count > 20 { problem("\(what): \(found.count - 20) more problems") }
                }
            }
            return expected
        }

        func open(_ name: String) -> MDB_dbi? {
            (try? environment.database(name, txn: txn, create: false)) ?? nil
        }

        // MARK: LMDB

        /// Trees whose pages are damaged (never walked by LMDB).
        var damagedTrees: [String: String] = [:]

        /// Every page's structure and the page accounting, then every sound
        /// database entry by entry.  Returns the names of the databases.
        mutating func checkTrees() -> Set<String> {
            guard let pages = PageCheck.run(environment: environment, txn: txn) else {
                // A writer committed twice since the snapshot began (LMDB
                // keeps two root pages), or the map cannot be found.
                report(.info, "pages not checked: the file changed while the check began (run it again)")
                return []
            }
            damagedTrees = pages.damaged
            for (name, reason) in pages.damaged.sorted(by: { $0.key < $1.key }) {
                problem("the pages of \(name.isEmpty ? "LMDB's main tree" : "database '\(name)'") are damaged: \(reason)")
            }
            if pages.damaged[""] != nil { return [] }
            if pages.damaged.isEmpty {
                if pages.accountingHolds == false {
                    problem("LMDB's page accounting does not add up: \(pages.pagesInUse) pages in use and \(pages.freePages.count) free, but the file has \(pages.lastPage + 1)")
                }
                let both = pages.freePagesInUse()
                if !both.isEmpty { problem("\(both.count) pages are both free and in use (page \(both[0]) first)") }
            }
            var names: [String] = []
            var main: MDB_dbi = 0
            guard mdb_dbi_open(txn, nil, 0, &main) == 0 else {
                problem("LMDB's main database cannot be opened")
                return []
            }
            var entries = 0
            _ = walk(main, "the main database", entries: &entries) { key, _ in
                names.append(String(decoding: key, as: UTF8.self))
            }
            for name in names where pages.damaged[name] == nil {
                guard let dbi = open(name) else {
                    problem("database '\(name)' is listed but cannot be opened")
                    continue
                }
                _ = walk(dbi, "database '\(name)'", entries: &entries) { _, _ in }
            }
            report(.info, "LMDB: \(names.count) databases, \(entries) entries, \(pages.pagesInUse) pages in use, \(pages.freePages.count) free")
            return Set(names)
        }

        /// Read every entry of `dbi` (LMDB checks each page it reaches);
        /// returns the pages the tree uses.
        mutating func walk(_ dbi: MDB_dbi, _ what: String, entries: inout Int, _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> Int {
            var cursor: OpaquePointer?
            guard mdb_cursor_open(txn, dbi, &cursor) == 0 else {
                problem("\(what) cannot be read")
                return 0
            }
            defer { mdb_cursor_close(cursor) }
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                let key = LMDB.bytes(k), value = LMDB.bytes(v)
                if !bounds.contains(key) || !bounds.contains(value) {
                    problem("\(what) has an entry that points outside the file")
                    return 0
                }
                visit(key, value)
                entries += 1
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            if rc != MDB_NOTFOUND {
                problem("\(what) is damaged: \(String(cString: mdb_strerror(rc)))")
                return 0
            }
            var stat = MDB_stat()
            guard mdb_stat(txn, dbi, &stat) == 0 else { return 0 }
            return Int(stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages)
        }

        // MARK: Meta

        mutating func checkMeta(_ meta: MDB_dbi) -> Schema? {
            let path = environment.path
            do throws(FiefError) {
                guard let magic = try MetaKeys.readBytes(txn, meta, MetaKeys.magic), magic.elementsEqual(MetaKeys.magicValue) else {
                    problem("the meta database has no Fief magic: not a Fief file, or damaged")
                    return nil
                }
                let format = try MetaKeys.readUInt64(txn, meta, MetaKeys.format) ?? 0
                if FormatUpgrade.upgrades(format) {
                    report(.info, "file format \(format): opening the file for writing upgrades it to format \(MetaKeys.formatValue)")
                } else if format != MetaKeys.formatValue {
                    problem("unknown file format \(format)")
                    return nil
                }
                let version = try MetaKeys.readUInt64(txn, meta, MetaKeys.version) ?? 0
                guard let bytes = try SchemaRecord.read(txn, meta, format: format, path: path) else {
                    problem("the file has no schema")
                    return nil
                }
                let schema = try SchemaCoding.decode(bytes, path: path)
                report(.info, "format \(format), version \(version), \(schema.classes.count) classes")
                return schema
            } catch {
                problem(error.message)
                return nil
            }
        }

        // MARK: Classes

        mutating func checkClass(_ objectClass: ObjectClass, meta: MDB_dbi, names: Set<String>) {
            let name = objectClass.name
            let dataName = Table.dataName(objectClass.key)
            if damagedTrees[dataName] != nil {
                report(.info, "class '\(name)': its data pages are damaged, chunks not checked")
                return
            }
            guard names.contains(dataName), let data = open(dataName) else {
                problem("class '\(name)': its data is missing")
                return
            }
            let format = ((try? MetaKeys.readUInt64(txn, meta, MetaKeys.format)) ?? nil) ?? 0
            let columns = Dictionary(uniqueKeysWithValues: objectClass.properties.map { ($0.key, $0) })
            // Every chunk: checksum and layout; which exist per cluster.
            var entries: [(key: UInt64, raw: UnsafeRawBufferPointer)] = []
            var cursor: OpaquePointer?
            guard mdb_cursor_open(txn, data, &cursor) == 0 else {
                problem("class '\(name)': its data cannot be read")
                return
            }
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                if k.mv_size == 8 {
                    entries.append((LMDB.bytes(k).loadUnaligned(as: UInt64.self), LMDB.bytes(v)))
                } else {
                    problem("class '\(name)': a chunk key of \(k.mv_size) bytes")
                }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
            if rc != MDB_NOTFOUND {
                problem("class '\(name)': its data tree is damaged: \(String(cString: mdb_strerror(rc)))")
            }
            if FormatUpgrade.rewritesChunks(format) {
                checkOldChunks(objectClass, entries, format: format, columns: columns)
                return
            }
            var live: [Int64: Bitmap] = [:]
            var listed: [Int64: ChunkReader] = [:]
            var stored: [Int64: Set<UInt32>] = [:]
            let groups = ChunkParts.grouped(entries)
            for pieces in groups {
                let key = pieces.last!.key
                let column = ClusterLayout.column(ofChunkKey: key)
                let cluster = ClusterLayout.cluster(ofChunkKey: key)
                let objects = "objects \(cluster << ClusterLayout.shift)...\((cluster << ClusterLayout.shift) + Int64(ClusterLayout.slotMask))"
                if column == ClusterLayout.presenceColumn {
                    guard pieces.count == 1, ChunkParts.isSound(pieces, table: objectClass.key, type: nil, bounds: bounds) else {
                        problem("class '\(name)': the list of \(objects) is damaged")
                        continue
                    }
                    let reader = ChunkReader(UnsafeRawBufferPointer(rebasing: pieces[0].raw.dropLast(ClusterLayout.checksumBytes)))
                    live[cluster] = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
                    listed[cluster] = reader
                    continue
                }
                guard let property = columns[column] else {
                    problem("class '\(name)': a chunk of column \(column), which no property has, for \(objects)")
                    continue
                }
                stored[cluster, default: []].insert(column)
                guard ChunkParts.isSound(pieces, table: objectClass.key, type: property.columnType, bounds: bounds) else {
                    problem("class '\(name)': property '\(property.name)' of \(objects) is damaged")
                    continue
                }
            }
            let chunks = groups.count
            // Column lists against the chunks found.
            var objects = 0
            for (cluster, bits) in live {
                objects += bits[0].nonzeroBitCount + bits[1].nonzeroBitCount + bits[2].nonzeroBitCount + bits[3].nonzeroBitCount
                let reader = listed[cluster]!
                let have = stored[cluster] ?? []
                for property in objectClass.properties where reader.listsColumn(property.key) != have.contains(property.key) {
                    let first = cluster << ClusterLayout.shift
                    problem(reader.listsColumn(property.key)
                        ? "class '\(name)': property '\(property.name)' of objects \(first)...\(first + 255) is missing"
                        : "class '\(name)': property '\(property.name)' of objects \(first)...\(first + 255) is not listed in its cluster")
                }
            }
            for cluster in stored.keys where live[cluster] == nil {
                problem("class '\(name)': chunks of objects \(cluster << ClusterLayout.shift)... have no list of objects")
            }
            let counted = (try? MetaKeys.readUInt64(txn, meta, MetaKeys.objectCount(objectClass.key))) ?? nil
            if Int(counted ?? 0) != objects {
                problem("class '\(name)': \(objects) objects are stored, but the file counts \(counted ?? 0)")
            }
            let nextKey = (try? MetaKeys.readUInt64(txn, meta, MetaKeys.nextObjectKey(objectClass.key))) ?? nil
            if let highest = live.filter({ $0.value != Bitmap(repeating: 0) }).keys.max(), Int64(nextKey ?? 0) <= highest << ClusterLayout.shift {
                problem("class '\(name)': object keys up to cluster \(highest) are used, but the next key is \(nextKey ?? 0)")
            }
            checkKeys(objectClass, data: data, live: live, names: names)
            report(.info, "class '\(name)': \(objects) objects, \(chunks) chunks")
        }

        /// Chunks of a file of format 1 or 2 (upgraded when opened for
        /// writing): each decoded as the upgrade would.  Column lists, keys
        /// and indexes are checked once the file is upgraded.
        mutating func checkOldChunks(_ objectClass: ObjectClass, _ entries: [(key: UInt64, raw: UnsafeRawBufferPointer)],
                                     format: UInt64, columns: [UInt32: Property]) {
            let name = objectClass.name
            var objects = 0
            for (key, raw) in entries {
                let column = FormatUpgrade.column(ofOldKey: key)
                let first = FormatUpgrade.cluster(ofOldKey: key) << ClusterLayout.shift
                guard bounds.contains(raw) else {
                    problem("class '\(name)': a chunk of objects \(first)... lies outside the file")
                    continue
                }
                if column == ClusterLayout.presenceColumn {
                    guard let presence = try? FormatUpgrade.decodePresence(raw, format: format, key: key, objectClass: objectClass, path: environment.path) else {
                        problem("class '\(name)': the list of objects \(first)...\(first + 255) is damaged")
                        continue
                    }
                    for word in 0..<4 { objects += presence.reader.bitmapWord(word).nonzeroBitCount }
                } else if let property = columns[column] {
                    if (try? FormatUpgrade.decode(raw, type: property.type, format: format, key: key, objectClass: objectClass, path: environment.path)) == nil {
                        problem("class '\(name)': property '\(property.name)' of objects \(first)...\(first + 255) is damaged")
                    }
                } else {
                    problem("class '\(name)': a chunk of column \(column), which no property has, for objects \(first)...")
                }
            }
            report(.info, "class '\(name)': format \(format), \(objects) objects, \(entries.count) chunks (its keys and indexes are checked once the file is upgraded)")
        }

        /// The primary-key table and the indexes against the objects.
        mutating func checkKeys(_ objectClass: ObjectClass, data: MDB_dbi, live: [Int64: Bitmap], names: Set<String>) {
            let name = objectClass.name
            func value(_ property: Property, _ object: Int64) -> Value? {
                let cluster = ClusterLayout.cluster(of: object)
                guard let bits = live[cluster], bits[ClusterLayout.slot(of: object) >> 6] & (1 << UInt64(object & 63)) != 0 else { return nil }
                guard let reader = (try? ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                        type: property.type.chunkType, bounds: bounds, tables: partTables)) ?? nil else { return nil }
                let stored = reader.value(ClusterLayout.slot(of: object), type: property.type.chunkType, nullable: property.isNullable)
                // A mixed value is stored coded (nil: damaged).
                if property.type == .mixed, case .binary(let coded) = stored { return MixedCoding.decode(coded) }
                return stored
            }
            let objectCount = live.values.reduce(0) { $0 + $1[0].nonzeroBitCount + $1[1].nonzeroBitCount + $1[2].nonzeroBitCount + $1[3].nonzeroBitCount }
            /// The objects an index of `property` has an entry for: all, but
            /// for a mixed property those not holding a nested collection.
            func indexedCount(_ property: Property) -> Int {
                guard property.type == .mixed else { return objectCount }
                var count = 0
                for (cluster, bits) in live {
                    for slot in 0..<ClusterLayout.slots where bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0 {
                        switch value(property, cluster << ClusterLayout.shift | Int64(slot)) {
                        case .nestedList?, .nestedDictionary?: break
                        default: count += 1
                        }
                    }
                }
                return count
            }
            var keyBytes: [UInt8] = []
            for property in objectClass.properties where property.isIndexed || property.isPrimaryKey {
                let tableName = property.isPrimaryKey ? Table.primaryKeyName(objectClass.key, property.key) : Table.indexName(objectClass.key, property.key)
                let what = property.isPrimaryKey ? "primary-key table" : "index"
                if damagedTrees[tableName] != nil { continue }
                guard names.contains(tableName), let dbi = open(tableName) else {
                    problem("class '\(name)': the \(what) of '\(property.name)' is missing")
                    continue
                }
                let runs = property.isPrimaryKey && property.type == .int && !property.isNullable
                var mapped = 0
                var wrong = 0
                var cursor: OpaquePointer?
                guard mdb_cursor_open(txn, dbi, &cursor) == 0 else { continue }
                var k = MDB_val(), v = MDB_val()
                var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
                while rc == 0 {
                    let key = LMDB.bytes(k), entry = LMDB.bytes(v)
                    if runs {
                        if key.count == 8, entry.count == 8 || entry.count == 16 {
                            let start = key.loadUnaligned(as: UInt64.self)
                            let first = entry.loadUnaligned(as: Int64.self)
                            let length = entry.count == 16 ? entry.loadUnaligned(fromByteOffset: 8, as: UInt64.self) : 1
                            for i in 0..<min(length, UInt64(objectCount) + 1) {
                                let object = first &+ Int64(bitPattern: i)
                                if let found = value(property, object), found.isSame(as: .int(Int64(bitPattern: start &+ i))) { mapped += 1 } else { wrong += 1 }
                            }
                        } else {
                            wrong += 1
                        }
                    } else if entry.count == 8 {
                        let object = entry.loadUnaligned(as: Int64.self)
                        if let found = value(property, object), KeyEncoding.encodeIndexKey(found, of: property, into: &keyBytes) {
                            if keyBytes.elementsEqual(key) { mapped += 1 } else { wrong += 1 }
                        } else {
                            wrong += 1
                        }
                    } else {
                        wrong += 1
                    }
                    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
                }
                mdb_cursor_close(cursor)
                if rc != MDB_NOTFOUND {
                    problem("class '\(name)': the \(what) of '\(property.name)' is damaged: \(String(cString: mdb_strerror(rc)))")
                } else if wrong > 0 || mapped != indexedCount(property) {
                    problem("class '\(name)': the \(what) of '\(property.name)' maps \(mapped) of \(indexedCount(property)) objects correctly and has \(wrong) wrong entries")
                }
            }
            for property in objectClass.properties where property.isFullTextIndexed {
                // Each live object's tokens.
                var tokens: [Int64: [[UInt8]]] = [:]
                for (cluster, bits) in live {
                    forEachSlot(bits) { slot in
                        let object = cluster << ClusterLayout.shift | Int64(slot)
                        tokens[object] = value(property, object).map { FullTextTokenizer.tokens(of: $0) } ?? []
                    }
                }
                checkFullText(objectClass, property, tokens: tokens, names: names)
            }
        }

        /// A full-text index against the texts: every entry is a token of
        /// its live object's text, and every token of every text is there.
        mutating func checkFullText(_ objectClass: ObjectClass, _ property: Property, tokens: [Int64: [[UInt8]]], names: Set<String>) {
            let name = objectClass.name
            let tableName = Table.fullTextName(objectClass.key, property.key)
            if damagedTrees[tableName] != nil { return }
            guard names.contains(tableName), let dbi = open(tableName) else {
                problem("class '\(name)': the full-text index of '\(property.name)' is missing")
                return
            }
            let expected = tokens.values.reduce(0) { $0 + $1.count }
            var mapped = 0, wrong = 0
            var cursor: OpaquePointer?
            guard mdb_cursor_open(txn, dbi, &cursor) == 0 else { return }
            var k = MDB_val(), v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
            while rc == 0 {
                let token = LMDB.bytes(k), entry = LMDB.bytes(v)
                if entry.count == 8, let own = tokens[entry.loadUnaligned(as: Int64.self)], own.contains(where: { $0.elementsEqual(token) }) {
                    mapped += 1
                } else {
                    wrong += 1
                }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
            if rc != MDB_NOTFOUND {
                problem("class '\(name)': the full-text index of '\(property.name)' is damaged: \(String(cString: mdb_strerror(rc)))")
            } else if wrong > 0 || mapped != expected {
                let finding = "class '\(name)': the full-text index of '\(property.name)' holds \(mapped) of the \(expected) words of its texts and \(wrong) wrong entries"
                if FormatUpgrade.rebuildsDerivedData(format) {
                    // Format 5: left stale by a library older than full-text search, not damaged.
                    report(.info, finding + ": stale, as a library older than full-text search leaves it; rebuilt when the file is upgraded to format \(MetaKeys.formatValue)")
                } else {
                    problem(finding)
                }
            }
        }
    }
}
