import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// String and binary chunks too large for one LMDB page, stored as parts
/// (see `ClusterLayout`): reading them back whole, writing them, deleting them.
///
/// LMDB keeps a value on a leaf page only if its node fits half a page;
/// anything larger gets overflow pages of its own, a whole number of pages,
/// so a 2.6 KB chunk would take 4 KB.  Parts of at most `partLimit` bytes
/// stay on leaf pages, which LMDB fills when chunks are appended in key order.
public enum ChunkParts {
    /// The largest value LMDB keeps on a leaf page beside an 8-byte key, for
    /// pages of `pageSize` bytes (LMDB's node limit: half a page less the
    /// page header, less a node's 8-byte header and an index slot).
    public static func partLimit(pageSize: Int) -> Int {
        (((pageSize - 16) / 2) & ~1) - 2 - 8 - 8
    }

    /// The reader of a chunk stored in parts, read forward from `entry`,
    /// its first part, with `next`, to its final part (key `finalKey`):
    /// each part checked (checksum, layout, inside `bounds`), the parts
    /// following each other from slot 0 with one null bitmap.  nil when one
    /// is damaged or missing.  The part list is kept by `tables`.
    public static func assemble(from entry: (key: UInt64, value: UnsafeRawBufferPointer)?,
                         next: () throws(FiefError) -> (key: UInt64, value: UnsafeRawBufferPointer)?,
                         finalKey: UInt64, table: UInt32, type: PropertyType, bounds: MapBounds?,
                         tables: ChunkPartTables) throws(FiefError) -> ChunkReader? {
        try withUnsafeTemporaryAllocation(of: ChunkPart.self, capacity: ClusterLayout.slots) { (parts) throws(FiefError) -> ChunkReader? in
            var count = 0
            var following = 0
            var entry = entry
            var final: UnsafeRawBufferPointer?
            while let (key, raw) = entry, key <= finalKey {
                guard bounds?.contains(raw) ?? true,
                      let body = ChunkCheck.verified(raw, table: table, key: key, type: type) else { return nil }
                let part = ChunkPart(body: body.baseAddress!, last: ClusterLayout.lastSlot(ofChunkKey: key))
                guard part.first == following else { return nil }
                parts[count] = part
                count += 1
                following = part.last + 1
                if key == finalKey {
                    final = body
                    break
                }
                entry = try next()
            }
            guard let final, count > 1, following == ClusterLayout.slots else { return nil }
            for i in 0..<(count - 1) where memcmp(parts[i].body, final.baseAddress!, ClusterLayout.bitmapBytes) != 0 {
                return nil
            }
            return ChunkReader(final: final, parts: tables.keep(UnsafeBufferPointer(rebasing: parts[0..<count])), partCount: count)
        }
    }

    /// The same for a chunk whose final part was found first: the parts
    /// are read with `cursor` from the chunk's first key.
    public static func assemble(finalKey: UInt64, cursor: LMDBCursor, table: UInt32, type: PropertyType, bounds: MapBounds?,
                         tables: ChunkPartTables) throws(FiefError) -> ChunkReader? {
        let first = ClusterLayout.partKey(column: ClusterLayout.column(ofChunkKey: finalKey),
                                          cluster: ClusterLayout.cluster(ofChunkKey: finalKey), last: 0)
        return try assemble(from: try cursor.seek(integerKey: first),
                            next: { () throws(FiefError) in try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) } },
                            finalKey: finalKey, table: table, type: type, bounds: bounds, tables: tables)
    }

    /// Whether a checked chunk body of `type` is the final part of a chunk
    /// stored in parts.
    @inlinable @inline(__always)
    public static func hasLeadingParts(_ body: UnsafeRawBufferPointer, type: PropertyType?) -> Bool {
        guard let type, type == .string || type == .binary else { return false }
        return body.load(fromByteOffset: ClusterLayout.varFirst, as: UInt8.self) != 0
    }

    /// The chunk of (`column`, `cluster`) read through `txn` and checked,
    /// leading parts included: `ChunkReader(nil)` when there is none, nil
    /// when it is damaged.  (For maintenance paths; realms cache chunks.)
    public static func read(_ txn: OpaquePointer, _ data: MDB_dbi, table: UInt32, column: UInt32, cluster: Int64,
                     type: PropertyType?, bounds: MapBounds?, tables: ChunkPartTables) throws(FiefError) -> ChunkReader? {
        let key = ClusterLayout.chunkKey(column: column, cluster: cluster)
        guard let raw = try LMDB.get(txn, data, integerKey: key) else { return ChunkReader(nil) }
        guard bounds?.contains(raw) ?? true, let body = ChunkCheck.verified(raw, table: table, key: key, type: type) else { return nil }
        guard let type, hasLeadingParts(body, type: type) else { return ChunkReader(body) }
        return try assemble(finalKey: key, cursor: try LMDBCursor(txn, data), table: table, type: type, bounds: bounds, tables: tables)
    }

    /// Whether the stored pieces of one chunk (its parts in key order, or
    /// the chunk alone) make a sound chunk of `type`: each checked, the
    /// parts following each other from slot 0 to 255 with one null bitmap.
    public static func isSound(_ pieces: [(key: UInt64, raw: UnsafeRawBufferPointer)], table: UInt32, type: PropertyType?, bounds: MapBounds?) -> Bool {
        guard let final = pieces.last, ClusterLayout.lastSlot(ofChunkKey: final.key) == ClusterLayout.slots - 1 else { return false }
        var next = 0
        var bitmap: UnsafeRawPointer?
        for (key, raw) in pieces {
            guard bounds?.contains(raw) ?? true, let body = ChunkCheck.verified(raw, table: table, key: key, type: type) else { return false }
            if pieces.count == 1 { return !hasLeadingParts(body, type: type) }
            let part = ChunkPart(body: body.baseAddress!, last: ClusterLayout.lastSlot(ofChunkKey: key))
            guard part.first == next else { return false }
            if let bitmap, memcmp(bitmap, body.baseAddress!, ClusterLayout.bitmapBytes) != 0 { return false }
            bitmap = body.baseAddress
            next = part.last + 1
        }
        return next == ClusterLayout.slots
    }

    /// Group a class's stored chunks, in key order, into the pieces of each
    /// chunk: a chunk ends at a key of last slot 255 or where the next key
    /// belongs to another column or cluster (then it is missing its end).
    public static func grouped(_ stored: [(key: UInt64, raw: UnsafeRawBufferPointer)]) -> [[(key: UInt64, raw: UnsafeRawBufferPointer)]] {
        var groups: [[(key: UInt64, raw: UnsafeRawBufferPointer)]] = []
        var pending: [(key: UInt64, raw: UnsafeRawBufferPointer)] = []
        for entry in stored {
            if let first = pending.first, first.key >> 8 != entry.key >> 8 {
                groups.append(pending)
                pending = []
            }
            pending.append(entry)
            if ClusterLayout.lastSlot(ofChunkKey: entry.key) == ClusterLayout.slots - 1 {
                groups.append(pending)
                pending = []
            }
        }
        if !pending.isEmpty { groups.append(pending) }
        return groups
    }

    /// Write `chunk` as the chunk of (`column`, `cluster`) of class `table`,
    /// in parts of at most `limit` bytes where it is a large string or
    /// binary chunk.  Keys past `lastKey` (the database's last key, updated)
    /// are appended.  The caller deletes leading parts stored before.
    public static func store(_ chunk: DirtyChunk, _ txn: OpaquePointer, _ data: MDB_dbi, table: UInt32, column: UInt32, cluster: Int64,
                      limit: Int, lastKey: inout UInt64?) throws(FiefError) {
        var first = 0
        for last in chunk.partLasts(limit: limit) {
            let key = ClusterLayout.partKey(column: column, cluster: cluster, last: last)
            let size = chunk.encodedSize(first: first, last: last)
            guard size < Int(UInt32.max) else {
                throw FiefError(.fileFull, "the strings or binaries of 256 neighbouring objects exceed 4 GiB")
            }
            let append = lastKey.map { key > $0 } ?? true
            let from = first
            try LMDB.putReserved(txn, data, integerKey: key, size: size, append: append) {
                chunk.encode(into: $0, table: table, key: key, first: from, last: last)
            }
            if append { lastKey = key }
            first = last + 1
        }
    }

    /// Delete every part of the chunk of (`column`, `cluster`) before its final one.
    public static func deleteLeadingParts(_ txn: OpaquePointer, _ data: MDB_dbi, column: UInt32, cluster: Int64) throws(FiefError) {
        try deleteRange(txn, data, from: ClusterLayout.partKey(column: column, cluster: cluster, last: 0),
                        before: ClusterLayout.chunkKey(column: column, cluster: cluster))
    }

    /// Delete the chunk of (`column`, `cluster`), every part of it.
    public static func delete(_ txn: OpaquePointer, _ data: MDB_dbi, column: UInt32, cluster: Int64, mayHaveParts: Bool) throws(FiefError) {
        if mayHaveParts { try deleteLeadingParts(txn, data, column: column, cluster: cluster) }
        try LMDB.delete(txn, data, integerKey: ClusterLayout.chunkKey(column: column, cluster: cluster))
    }

    /// Delete every key in `start ..< end` of an integer-keyed database.
    public static func deleteRange(_ txn: OpaquePointer, _ data: MDB_dbi, from start: UInt64, before end: UInt64) throws(FiefError) {
        let cursor = try LMDBCursor(txn, data)
        // Sought again after each delete: a cursor whose database lost its
        // last entry is not positioned anywhere (LMDB then says EINVAL).
        while let (key, _) = try cursor.seek(integerKey: start), key < end {
            try cursor.deleteCurrent()
        }
    }
}

/// A read snapshot's cursor over the chunks of one column, kept between
/// lookups: chunks read in key order (a scan, cluster after cluster) are
/// reached by stepping forward instead of searching the tree from its root.
public final class ColumnCursor {
    @usableFromInline let cursor: LMDBCursor
    /// The key the cursor stands on (nil: unknown, or past the end).
    @usableFromInline var position: UInt64?

    public init(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        cursor = try LMDBCursor(txn, dbi)
    }

    /// The first stored piece (the chunk, or its first part) of the chunk
    /// of (`column`, `cluster`), or nil if there is none.
    @inlinable @inline(__always)
    public func first(column: UInt32, cluster: Int64) throws(FiefError) -> (key: UInt64, value: UnsafeRawBufferPointer)? {
        let start = ClusterLayout.partKey(column: column, cluster: cluster, last: 0)
        var entry: (key: UInt64, value: UnsafeRawBufferPointer)?
        if let at = position, at < start {
            // A few steps forward, then a search if the chunk is further.
            entry = try next()
            var steps = 0
            while let found = entry, found.key < start, steps < 2 {
                entry = try next()
                steps += 1
            }
            if let found = entry, found.key < start { entry = try seek(start) }
        } else {
            entry = try seek(start)
        }
        guard let found = entry, found.key <= ClusterLayout.chunkKey(column: column, cluster: cluster) else { return nil }
        return found
    }

    @inlinable @inline(__always)
    public func next() throws(FiefError) -> (key: UInt64, value: UnsafeRawBufferPointer)? {
        let entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
        position = entry?.0
        return entry
    }

    @usableFromInline func seek(_ key: UInt64) throws(FiefError) -> (key: UInt64, value: UnsafeRawBufferPointer)? {
        let entry = try cursor.seek(integerKey: key)
        position = entry?.key
        return entry
    }
}

/// The part lists of the chunks a snapshot or write transaction read in
/// parts, freed with it: kept in blocks, not one allocation per chunk.
public final class ChunkPartTables {
    private static let blockSize = 1024
    private var blocks: [UnsafeMutablePointer<ChunkPart>] = []
    private var used = ChunkPartTables.blockSize

    public func keep(_ parts: UnsafeBufferPointer<ChunkPart>) -> UnsafePointer<ChunkPart> {
        // A list never exceeds 256 parts, far less than a block.
        if used + parts.count > ChunkPartTables.blockSize {
            blocks.append(UnsafeMutablePointer<ChunkPart>.allocate(capacity: ChunkPartTables.blockSize))
            used = 0
        }
        let list = blocks[blocks.count - 1] + used
        used += parts.count
        list.initialize(from: parts.baseAddress!, count: parts.count)
        return UnsafePointer(list)
    }

    deinit {
        for block in blocks { block.deallocate() }
    }
    
    public init() {}
}
