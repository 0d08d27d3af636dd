import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// Files of formats 1, 2 and 4, read only to upgrade them (format 3 differs
/// from the current format 5 only in the schema's encoding; format 4 in the
/// layout of the backlinks databases, see `Backlinks`).
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
enum FormatUpgrade {
    /// Whether this library upgrades files of `format` (to format 5).
    static func upgrades(_ format: UInt64) -> Bool { format >= 1 && format <= 4 }
    /// Whether the upgrade of `format` rewrites chunks (formats 1 and 2);
    /// format 3 stores them as formats 4 and 5 do (it only lacks the schema
    /// encoding of links), so it is also read as it is.
    static func rewritesChunks(_ format: UInt64) -> Bool { format == 1 || format == 2 }
    /// Whether the upgrade of `format` rewrites the backlinks databases
    /// (format 4 stored one entry per backlink record; format 5 stores runs
    /// of records: `Backlinks`).
    static func rewritesBacklinks(_ format: UInt64) -> Bool { format == 4 }
    /// Whether a file of `format` must be upgraded before it can be read
    /// (a read-only open refuses it).
    static func mustRewrite(_ format: UInt64) -> Bool { rewritesChunks(format) || rewritesBacklinks(format) }

    /// The records of a format-4 backlinks database for `target` from
    /// (`originClass`, `property`): keys target (8) + origin class (4) +
    /// origin property (4) + origin object (8), big-endian, values a UInt32
    /// count (`fief verify` of a format-4 file).
    static func forEachFormat4Backlink(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32,
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

    @inline(__always)
    static func column(ofOldKey key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key >> 40) }
    @inline(__always)
    static func cluster(ofOldKey key: UInt64) -> Int64 { Int64(key & ((1 << 40) - 1)) }

    /// Rewrite every chunk of one class in the current format, list each cluster's
    /// columns in its presence chunk, and store the class's object count.
    ///
    /// Old and new keys share the database: chunks are converted from the
    /// highest key down, and a chunk's new keys (`column << 40 | cluster
    /// << 8 | slot`) are never below its old key (`column << 40 | cluster`),
    /// so they never land on a chunk not yet converted.
    static func upgrade(_ txn: OpaquePointer, data: MDB_dbi, meta: MDB_dbi, objectClass: ObjectClass, format: UInt64,
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
    static func decodePresence(_ raw: UnsafeRawBufferPointer, format: UInt64, key: UInt64, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
        if format == 1 {
            guard raw.count == ClusterLayout.bitmapBytes else { throw damaged(objectClass, format, path) }
            return DirtyChunk(type: nil, from: ChunkReader(raw))
        }
        guard let body = checkedV2(raw, table: objectClass.key, key: key),
              ChunkCheck.isWellFormed(body, type: nil, last: ClusterLayout.slots - 1) else { throw damaged(objectClass, format, path) }
        return DirtyChunk(type: nil, from: ChunkReader(body))
    }

    /// A column chunk of `format` stored under old key `key`, as a chunk being written.
    static func decode(_ raw: UnsafeRawBufferPointer, type: PropertyType, format: UInt64, key: UInt64, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
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
