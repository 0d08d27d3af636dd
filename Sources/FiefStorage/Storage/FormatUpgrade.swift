import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// Files of formats 1 to 5, read only to upgrade them to the current format
/// 6 (format 3 differs from format 5 only in the schema's encoding; format 4
/// in the layout of the backlinks databases, see `Backlinks`; format 5 from
/// format 6 in derived data it may hold wrong: see "Format 5 to 6" below).
///
/// Both key a chunk `column << 40 | cluster` (format 3 adds the last slot:
/// `ClusterLayout`).  Their chunks:
///
///     format 1       no checksum; presence chunks are the 32-byte bitmap alone
///       [0, 32)      null bitmap (presence: existence bitmap)
///       int          [32] width w (1, 2, 4 or 8), then 256 signed values of w bytes
///       other fixed  256 slots x width (as in format 3)
///       string/binary UInt32 offsets[257] relative to the byte area, then the bytes
///     format 2       as format 3 (checksum, presence column lists, int
///                    frame of reference), but string and binary chunks are
///                    always whole: [32] offset width w (1, 2 or 4), then 257
///                    offsets, then the bytes
///
/// A writable open upgrades such a file in place, in the same write
/// transaction as the schema (so a crash leaves it as it was), and
/// `fief copy` writes a format-3 copy of one.
public enum FormatUpgrade {
    /// Whether this library upgrades files of `format` (to format 10; the
    /// step from 8 adds the `history` database, `History`; the step from 9
    /// seals set entries).
    public static func upgrades(_ format: UInt64) -> Bool { format >= 1 && format <= 9 }
    /// Whether the upgrade of `format` seals map and nested entries
    /// (`EntrySeal`: format 7 checksums every one).
    public static func sealsEntries(_ format: UInt64) -> Bool { format >= 1 && format <= 6 }
    /// Whether the upgrade of `format` seals set entries (format 10
    /// checksums every one; before, a set entry's value was empty or its
    /// element's data, unchecked).
    public static func sealsSetEntries(_ format: UInt64) -> Bool { format >= 1 && format <= 9 }
    /// Whether a file of `format` holds some entries without checksums.
    public static func lacksSeals(_ format: UInt64) -> Bool { sealsEntries(format) || sealsSetEntries(format) }

    /// Seal every entry a file of `format` holds unsealed: of every map and
    /// nested-collection database (the upgrade to format 7) and of every
    /// set database (format 10) of `schema`, in the open's transaction.
    public static func sealEntries(_ txn: OpaquePointer, schema: Schema, format: UInt64, path: String) throws(FiefError) {
        func existing(_ name: String) throws(FiefError) -> MDB_dbi? {
            var dbi: MDB_dbi = 0
            let rc = mdb_dbi_open(txn, name, 0, &dbi)
            if rc == MDB_NOTFOUND { return nil }
            try LMDB.check(rc, "opening '\(name)'", path: path)
            return dbi
        }
        for objectClass in schema.classes {
            if sealsSetEntries(format) {
                for property in objectClass.properties where property.collection == .set {
                    if let dbi = try existing(Table.setName(objectClass.key, property.key)) {
                        try EntrySeal.sealAll(txn, dbi, table: objectClass.key, database: property.key)
                    }
                }
            }
            guard sealsEntries(format) else { continue }
            for property in objectClass.properties where property.collection == .map {
                if let dbi = try existing(Table.mapName(objectClass.key, property.key)) {
                    try EntrySeal.sealAll(txn, dbi, table: objectClass.key, database: property.key)
                }
            }
            if let dbi = try existing(Table.nestedName(objectClass.key)) {
                try EntrySeal.sealAll(txn, dbi, table: objectClass.key, database: EntrySeal.nested)
            }
        }
    }

    /// The set, map and nested databases of `schema` that hold entries
    /// without checksums (sets in a file of format 9 or older, maps and
    /// nested collections in one of format 6 or older): a read-only open
    /// cannot read them as format 10 does.
    public static func unsealedDatabases(_ environment: Environment, schema: Schema, format: UInt64) throws(FiefError) -> [String] {
        let txn = try environment.beginTransaction(write: false)
        defer { mdb_txn_abort(txn) }
        var found: [String] = []
        func entries(_ name: String) throws(FiefError) -> Int {
            var dbi: MDB_dbi = 0
            let rc = mdb_dbi_open(txn, name, 0, &dbi)
            if rc == MDB_NOTFOUND { return 0 }
            try LMDB.check(rc, "opening '\(name)'", path: environment.path)
            var stat = MDB_stat()
            try LMDB.check(mdb_stat(txn, dbi, &stat), "reading '\(name)'", path: environment.path)
            return stat.ms_entries
        }
        for objectClass in schema.classes {
            for property in objectClass.properties where property.collection == .set && sealsSetEntries(format) {
                if try entries(Table.setName(objectClass.key, property.key)) > 0 { found.append("\(objectClass.name).\(property.name)") }
            }
            guard sealsEntries(format) else { continue }
            for property in objectClass.properties where property.collection == .map {
                if try entries(Table.mapName(objectClass.key, property.key)) > 0 { found.append("\(objectClass.name).\(property.name)") }
            }
            if try entries(Table.nestedName(objectClass.key)) > 0 { found.append("collections nested in \(objectClass.name)") }
        }
        return found
    }
    /// Whether the upgrade of `format` rewrites chunks (formats 1 and 2);
    /// format 3 stores them as formats 4 to 6 do (it only lacks the schema
    /// encoding of links), so it is also read as it is.
    public static func rewritesChunks(_ format: UInt64) -> Bool { format == 1 || format == 2 }
    /// Whether the upgrade of `format` rewrites the backlinks databases
    /// (format 4 stored one entry per backlink record; format 5 stores runs
    /// of records: `Backlinks`).
    public static func rewritesBacklinks(_ format: UInt64) -> Bool { format == 4 }
    /// Whether a file of `format` must be upgraded before it can be read
    /// (a read-only open refuses it; one of format 5 only when it holds
    /// derived data format 6 rebuilds: `readOnlyObstacle`).
    public static func mustRewrite(_ format: UInt64) -> Bool { rewritesChunks(format) || rewritesBacklinks(format) }

    /// The records of a format-4 backlinks database for `target` from
    /// (`originClass`, `property`): keys target (8) + origin class (4) +
    /// origin property (4) + origin object (8), big-endian, values a UInt32
    /// count (`fief verify` of a format-4 file).
    public static func forEachFormat4Backlink(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32,
                                       _ body: (Int64, UInt32) -> Void) throws(FiefError) {
        var buffer = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) in
            Backlinks.key(raw.baseAddress!, target: target, originClass: originClass, property: property, origin: 0)
            let cursor = try LMDBCursor(txn, dbi)
            var entry = try cursor.seek(UnsafeRawBufferPointer(raw))
            while let (k, v) = entry, k.count == Backlinks.keyBytes, memcmp(k.baseAddress!, raw.baseAddress!, 16) == 0 {
                guard v.count == 4 else { throw FiefError(.fileCorrupt, "a stored link count is damaged (\(v.count) bytes)") }
                body(Int64(bitPattern: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 16, as: UInt64.self))),
                     UInt32(littleEndian: v.loadUnaligned(as: UInt32.self)))
                entry = try cursor.next()
            }
        }
    }

    @inlinable @inline(__always)
    public static func column(ofOldKey key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key >> 40) }
    @inlinable @inline(__always)
    public static func cluster(ofOldKey key: UInt64) -> Int64 { Int64(key & ((1 << 40) - 1)) }

    /// Rewrite every chunk of one class in the current format, list each cluster's
    /// columns in its presence chunk, and store the class's object count.
    ///
    /// Old and new keys share the database: chunks are converted from the
    /// highest key down, and a chunk's new keys (`column << 40 | cluster
    /// << 8 | slot`) are never below its old key (`column << 40 | cluster`),
    /// so they never land on a chunk not yet converted.
    public static func upgrade(_ txn: OpaquePointer, data: MDB_dbi, meta: MDB_dbi, objectClass: ObjectClass, format: UInt64,
                        partLimit: Int, path: String) throws(FiefError) {
        // Pass 1: every chunk key, and the columns stored per cluster.
        var keys: [UInt64] = []
        var columnsByCluster: [Int64: [UInt32]] = [:]
        do {
            let cursor = try LMDBCursor(txn, data)
            var entry = try cursor.move(MDB_FIRST)
            while let (key, _) = entry {
                let chunkKey = key.loadUnaligned(as: UInt64.self)
                keys.append(chunkKey)
                let column = column(ofOldKey: chunkKey)
                if column != ClusterLayout.presenceColumn {
                    columnsByCluster[cluster(ofOldKey: chunkKey), default: []].append(column)
                }
                entry = try cursor.next()
            }
        }
        // Pass 2: decode each chunk (a copy: the delete may move the bytes
        // the view points at), delete it, store it under its new keys.
        var objects: Int64 = 0
        var neverAppend: UInt64? = .max
        for oldKey in keys.reversed() {
            guard let raw = try LMDB.get(txn, data, integerKey: oldKey) else { continue }
            let column = column(ofOldKey: oldKey)
            let cluster = cluster(ofOldKey: oldKey)
            guard cluster < ClusterLayout.objectKeyLimit >> ClusterLayout.shift else {
                throw FiefError(.fileFull, "'\(path)' cannot be upgraded: class '\(objectClass.name)' uses object keys beyond 2^40", path: path)
            }
            let chunk: DirtyChunk
            if column == ClusterLayout.presenceColumn {
                chunk = try decodePresence(raw, format: format, key: oldKey, objectClass: objectClass, path: path)
                for listed in columnsByCluster[cluster] ?? [] { chunk.listColumn(listed) }
                for word in 0..<4 { objects += Int64(chunk.reader.bitmapWord(word).nonzeroBitCount) }
            } else if let property = objectClass.properties.first(where: { $0.key == column }) {
                chunk = try decode(raw, type: property.type, format: format, key: oldKey, objectClass: objectClass, path: path)
            } else {
                // A column no property owns any more: not carried over.
                try LMDB.delete(txn, data, integerKey: oldKey)
                continue
            }
            try LMDB.delete(txn, data, integerKey: oldKey)
            try ChunkParts.store(chunk, txn, data, table: objectClass.key, column: column, cluster: cluster,
                                 limit: partLimit, lastKey: &neverAppend)
        }
        try MetaKeys.write(txn, meta, MetaKeys.objectCount(objectClass.key), UInt64(bitPattern: objects))
    }

    private static func damaged(_ objectClass: ObjectClass, _ format: UInt64, _ path: String) -> FiefError {
        FiefError(.fileCorrupt, "'\(path)' is damaged: a format-\(format) chunk of class '\(objectClass.name)' fails its checks (`fief copy` saves what is readable)", path: path)
    }

    /// The body of a format-2 chunk stored under `key`, if its checksum holds.
    private static func checkedV2(_ raw: UnsafeRawBufferPointer, table: UInt32, key: UInt64) -> UnsafeRawBufferPointer? {
        guard raw.count >= ClusterLayout.bitmapBytes + ClusterLayout.checksumBytes else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - ClusterLayout.checksumBytes)])
        let stored = raw.loadUnaligned(fromByteOffset: body.count, as: UInt32.self)
        return UInt32(littleEndian: stored) == ChunkCheck.checksum(table: table, key: key, body) ? body : nil
    }

    /// A presence chunk of `format` stored under old key `key`, as a chunk being written.
    public static func decodePresence(_ raw: UnsafeRawBufferPointer, format: UInt64, key: UInt64, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
        if format == 1 {
            guard raw.count == ClusterLayout.bitmapBytes else { throw damaged(objectClass, format, path) }
            return DirtyChunk(type: nil, from: ChunkReader(raw))
        }
        guard let body = checkedV2(raw, table: objectClass.key, key: key),
              ChunkCheck.isWellFormed(body, type: nil, last: ClusterLayout.slots - 1) else { throw damaged(objectClass, format, path) }
        return DirtyChunk(type: nil, from: ChunkReader(body))
    }

    /// A column chunk of `format` stored under old key `key`, as a chunk being written.
    public static func decode(_ raw: UnsafeRawBufferPointer, type: PropertyType, format: UInt64, key: UInt64, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
        if format == 1 { return try decodeV1(raw, type: type, objectClass: objectClass, path: path) }
        guard let body = checkedV2(raw, table: objectClass.key, key: key) else { throw damaged(objectClass, format, path) }
        guard type == .string || type == .binary else {
            // Every other chunk is laid out as in format 3.
            guard ChunkCheck.isWellFormed(body, type: type, last: ClusterLayout.slots - 1) else { throw damaged(objectClass, format, path) }
            return DirtyChunk(type: type, from: ChunkReader(body))
        }
        let bitmap = ClusterLayout.bitmapBytes
        guard body.count > bitmap, let base = body.baseAddress else { throw damaged(objectClass, format, path) }
        let width = Int(base.load(fromByteOffset: bitmap, as: UInt8.self))
        let header = bitmap + 1 + (ClusterLayout.slots + 1) * width
        guard width == 1 || width == 2 || width == 4, body.count >= header else { throw damaged(objectClass, format, path) }
        let offsets = base + bitmap + 1
        return try decodeStrings(base: base, type: type, area: body.count - header, header: header,
                                 offset: { Offsets.at(offsets, width: width, $0) },
                                 objectClass: objectClass, format: format, path: path)
    }

    /// A string or binary chunk of 257 offsets into the byte area at `header`.
    private static func decodeStrings(base: UnsafeRawPointer, type: PropertyType, area: Int, header: Int, offset: (Int) -> Int,
                                      objectClass: ObjectClass, format: UInt64, path: String) throws(FiefError) -> DirtyChunk {
        let chunk = DirtyChunk(type: type, from: ChunkReader(nil))
        var previous = 0
        guard offset(0) == 0 else { throw damaged(objectClass, format, path) }
        for slot in 0..<ClusterLayout.slots {
            let start = offset(slot), end = offset(slot + 1)
            guard start == previous, end >= start, end <= area else { throw damaged(objectClass, format, path) }
            previous = end
            let view = UnsafeRawBufferPointer(start: base + header + start, count: end - start)
            chunk.set(slot, type == .string ? .string(view) : .binary(view))
        }
        // The null bits as stored (set() cleared them for every slot written).
        chunk.fixed.copyMemory(from: base, byteCount: ClusterLayout.bitmapBytes)
        return chunk
    }

    /// A format-1 column chunk as a chunk being written.
    private static func decodeV1(_ raw: UnsafeRawBufferPointer, type: PropertyType, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
        let slots = ClusterLayout.slots
        let bitmap = ClusterLayout.bitmapBytes
        guard raw.count >= bitmap, let base = raw.baseAddress else { throw damaged(objectClass, 1, path) }
        switch type {
        case .int:
            guard raw.count > bitmap else { throw damaged(objectClass, 1, path) }
            let width = Int(base.load(fromByteOffset: bitmap, as: UInt8.self))
            guard [1, 2, 4, 8].contains(width), raw.count == bitmap + 1 + slots * width else { throw damaged(objectClass, 1, path) }
            let chunk = DirtyChunk(type: type, from: ChunkReader(nil))
            let values = base + bitmap + 1
            for slot in 0..<slots {
                let v: Int64
                switch width {
                case 1: v = Int64(values.load(fromByteOffset: slot, as: Int8.self))
                case 2: v = Int64(values.loadUnaligned(fromByteOffset: slot << 1, as: Int16.self))
                case 4: v = Int64(values.loadUnaligned(fromByteOffset: slot << 2, as: Int32.self))
                default: v = values.loadUnaligned(fromByteOffset: slot << 3, as: Int64.self)
                }
                chunk.set(slot, .int(v))
            }
            chunk.fixed.copyMemory(from: base, byteCount: bitmap)
            return chunk
        case .string, .binary:
            let header = bitmap + 4 * (slots + 1)
            guard raw.count >= header else { throw damaged(objectClass, 1, path) }
            let offsets = base + bitmap
            return try decodeStrings(base: base, type: type, area: raw.count - header, header: header,
                                     offset: { Int(offsets.loadUnaligned(fromByteOffset: $0 << 2, as: UInt32.self)) },
                                     objectClass: objectClass, format: 1, path: path)
        default:
            guard raw.count == ClusterLayout.chunkSize(fixedWidth: type.fixedWidth) else { throw damaged(objectClass, 1, path) }
            let chunk = DirtyChunk(type: type, from: ChunkReader(nil))
            chunk.fixed.copyMemory(from: base, byteCount: raw.count)
            return chunk
        }
    }
}

// MARK: Format 5 to 6 (the derived data the engine rebuilds: `FormatUpgrade.DerivedData`)

extension FormatUpgrade {
    /// Whether upgrading a file of `format` rebuilds `DerivedData`.
    public static func rebuildsDerivedData(_ format: UInt64) -> Bool { format >= 1 && format <= 5 }

    /// Move every entry of a set-of-mixed database keyed in format 5's form
    /// to its key, merging it into an equal element already there, and
    /// correct the sizes of the sets that lost one (see `DerivedData`).
    public static func rekeyMixedSet(_ txn: OpaquePointer, set: MDB_dbi, data: MDB_dbi, classKey: UInt32, property: UInt32,
                              partLimit: Int, path: String) throws(FiefError) {
        // Copies: the database changes below.
        // The entries are sealed by now (`sealEntries` ran first): each
        // moved entry is sealed again under its new key.
        let seal = (table: classKey, database: property)
        var moves: [(owner: Int64, old: [UInt8], new: [UInt8], value: [UInt8])] = []
        try SetStore.forEachMisKeyedMixedEntry(txn, set, sealed: seal) { key, value, canonical in
            let resealed = canonical.withUnsafeBytes { EntrySeal.sealed(value, table: classKey, database: property, key: $0) }
            moves.append((SetStore.owner(of: key)!, Array(key), canonical, resealed))
        }
        if moves.isEmpty { return }
        var merged: [Int64: Int] = [:]
        for move in moves {
            try move.old.withBytes { (k) throws(FiefError) in try LMDB.delete(txn, set, k) }
            let added = try move.new.withBytes { (k) throws(FiefError) -> Bool in
                try move.value.withBytes { (v) throws(FiefError) -> Bool in try LMDB.put(txn, set, k, v, flags: UInt32(MDB_NOOVERWRITE)) }
            }
            if !added { merged[move.owner, default: 0] += 1 }
        }
        // The size column (an int per owner) of each cluster with merges.
        let tables = ChunkPartTables()
        var neverAppend: UInt64? = .max
        for (cluster, owners) in Dictionary(grouping: merged.keys, by: { ClusterLayout.cluster(of: $0) }) {
            guard let stored = try ChunkParts.read(txn, data, table: classKey, column: property, cluster: cluster,
                                                   type: .int, bounds: nil, tables: tables) else {
                throw FiefError(.fileCorrupt, "'\(path)' is damaged: a chunk of set sizes (class \(classKey), key \(ClusterLayout.chunkKey(column: property, cluster: cluster))) fails its checks (`fief copy` saves what is readable)", path: path)
            }
            if stored.base == nil { continue }   // no sizes stored: all 0 already
            let sizes = DirtyChunk(type: .int, from: stored)
            for owner in owners {
                let slot = ClusterLayout.slot(of: owner)
                let size = stored.base == nil || stored.isNull(slot) ? 0 : stored.int(slot)
                sizes.set(slot, .int(max(0, size - Int64(merged[owner]!))))
            }
            try ChunkParts.store(sizes, txn, data, table: classKey, column: property, cluster: cluster, limit: partLimit, lastKey: &neverAppend)
        }
    }

    /// Why a read-only open cannot read the format-5 file `schema` and
    /// `txn` describe as it is, if it cannot: its full-text indexes (a
    /// library older than full-text search may have left them stale), or
    /// elements of sets of mixed values keyed in format 5's form (a lookup
    /// in format 6's form would miss them, and the set may hold two elements
    /// Realm counts as one).  A file with neither stores exactly what
    /// format 6 would, and is read as it is.
    public static func readOnlyObstacle(_ txn: OpaquePointer, environment: Environment, schema: Schema) throws(FiefError) -> String? {
        var reasons: [String] = []
        let indexed = schema.classes.flatMap { c in c.properties.filter(\.isFullTextIndexed).map { "\(c.name).\($0.name)" } }
        if !indexed.isEmpty {
            reasons.append("full-text indexes (\(indexed.joined(separator: ", "))) that a library older than full-text search may have left stale")
        }
        var misKeyed = 0
        var sets: [String] = []
        var databases: [(String, MDB_dbi)] = []
        for objectClass in schema.classes {
            for property in objectClass.properties where property.collection == .set && property.type == .mixed {
                if let dbi = try environment.database(Table.setName(objectClass.key, property.key), txn: txn, create: false) {
                    databases.append(("\(objectClass.name).\(property.name)", dbi))
                }
            }
        }
        if !databases.isEmpty {
            // Read in a transaction begun after the handles were opened (`txn` may predate them).
            let scan = try environment.beginTransaction(write: false)
            defer { mdb_txn_abort(scan) }
            for (name, dbi) in databases {
                let before = misKeyed
                try SetStore.forEachMisKeyedMixedEntry(scan, dbi, sealed: nil) { _, _, _ in misKeyed += 1 }
                if misKeyed > before { sets.append(name) }
            }
        }
        if misKeyed > 0 {
            reasons.append("\(misKeyed) number\(misKeyed == 1 ? "" : "s") in sets of mixed values (\(sets.joined(separator: ", "))) keyed in format 5's form, apart from equal numbers")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", and ")
    }
}
