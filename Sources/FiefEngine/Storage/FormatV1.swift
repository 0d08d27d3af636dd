import CLMDB

/// File format 1, read only to upgrade it: chunks without checksums, int
/// chunks packed as signed values of one width, string and binary chunks
/// with 257 four-byte offsets, presence chunks without a column list.
///
///     [0, 32)        null bitmap (presence: existence bitmap, 32 bytes in all)
///     int            [32] width w (1, 2, 4 or 8), then 256 signed values of w bytes
///     other fixed    256 slots x width (as in format 2)
///     string/binary  UInt32 offsets[257] relative to the byte area, then the bytes
///
/// A writable open upgrades a format-1 file in place, in the same write
/// transaction as the schema (so a crash leaves it at format 1), and
/// `fief copy` writes a format-2 copy of one.
enum FormatV1 {
    static let format: UInt64 = 1

    /// Rewrite every chunk of one class in format 2, list each cluster's
    /// columns in its presence chunk, and store the class's object count.
    static func upgrade(_ txn: OpaquePointer, data: MDB_dbi, meta: MDB_dbi, objectClass: ObjectClass, path: String) throws(FiefError) {
        // Pass 1: every chunk key, and the columns stored per cluster.
        var keys: [UInt64] = []
        var columnsByCluster: [Int64: [UInt32]] = [:]
        do {
            let cursor = try LMDBCursor(txn, data)
            var entry = try cursor.move(MDB_FIRST)
            while let (key, _) = entry {
                let chunkKey = key.loadUnaligned(as: UInt64.self)
                keys.append(chunkKey)
                let column = ClusterLayout.column(ofChunkKey: chunkKey)
                if column != ClusterLayout.presenceColumn {
                    columnsByCluster[ClusterLayout.cluster(ofChunkKey: chunkKey), default: []].append(column)
                }
                entry = try cursor.next()
            }
        }
        // Pass 2: decode each chunk, encode it again (copies first: the put
        // may move the bytes the view points at).
        var objects: Int64 = 0
        for chunkKey in keys {
            guard let raw = try LMDB.get(txn, data, integerKey: chunkKey) else { continue }
            let column = ClusterLayout.column(ofChunkKey: chunkKey)
            let cluster = ClusterLayout.cluster(ofChunkKey: chunkKey)
            let chunk: DirtyChunk
            if column == ClusterLayout.presenceColumn {
                chunk = try decodePresence(raw, objectClass: objectClass, path: path)
                for listed in columnsByCluster[cluster] ?? [] { chunk.listColumn(listed) }
                for word in 0..<4 { objects += Int64(chunk.reader.bitmapWord(word).nonzeroBitCount) }
            } else if let property = objectClass.properties.first(where: { $0.key == column }) {
                chunk = try decode(raw, type: property.type, objectClass: objectClass, path: path)
            } else {
                // A column no property owns any more: not carried over.
                try LMDB.delete(txn, data, integerKey: chunkKey)
                continue
            }
            try LMDB.putReserved(txn, data, integerKey: chunkKey, size: chunk.encodedSize) {
                chunk.encode(into: $0, table: objectClass.key, key: chunkKey)
            }
        }
        try MetaKeys.write(txn, meta, MetaKeys.objectCount(objectClass.key), UInt64(bitPattern: objects))
    }

    private static func damaged(_ objectClass: ObjectClass, _ path: String) -> FiefError {
        FiefError(.fileCorrupt, "'\(path)' is damaged: a format-1 chunk of class '\(objectClass.name)' has an impossible layout", path: path)
    }

    static func decodePresence(_ raw: UnsafeRawBufferPointer, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
        guard raw.count == ClusterLayout.bitmapBytes else { throw damaged(objectClass, path) }
        return DirtyChunk(type: nil, from: ChunkReader(raw))
    }

    /// A format-1 column chunk as a chunk being written.
    static func decode(_ raw: UnsafeRawBufferPointer, type: PropertyType, objectClass: ObjectClass, path: String) throws(FiefError) -> DirtyChunk {
        let slots = ClusterLayout.slots
        let bitmap = ClusterLayout.bitmapBytes
        guard raw.count >= bitmap, let base = raw.baseAddress else { throw damaged(objectClass, path) }
        let chunk = DirtyChunk(type: type, from: ChunkReader(nil))
        switch type {
        case .int:
            guard raw.count > bitmap else { throw damaged(objectClass, path) }
            let width = Int(base.load(fromByteOffset: bitmap, as: UInt8.self))
            guard [1, 2, 4, 8].contains(width), raw.count == bitmap + 1 + slots * width else { throw damaged(objectClass, path) }
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
        case .string, .binary:
            let header = bitmap + 4 * (slots + 1)
            guard raw.count >= header else { throw damaged(objectClass, path) }
            let offsets = base + bitmap
            let area = raw.count - header
            var previous = 0
            for slot in 0..<slots {
                let start = Int(offsets.loadUnaligned(fromByteOffset: slot << 2, as: UInt32.self))
                let end = Int(offsets.loadUnaligned(fromByteOffset: (slot + 1) << 2, as: UInt32.self))
                guard start == previous, end >= start, end <= area else { throw damaged(objectClass, path) }
                previous = end
                let view = UnsafeRawBufferPointer(start: base + header + start, count: end - start)
                chunk.set(slot, type == .string ? .string(view) : .binary(view))
            }
        default:
            guard raw.count == ClusterLayout.chunkSize(fixedWidth: type.fixedWidth) else { throw damaged(objectClass, path) }
            chunk.fixed.copyMemory(from: base, byteCount: raw.count)
        }
        // The null bits as stored (set() cleared them for every slot written).
        chunk.fixed.copyMemory(from: base, byteCount: bitmap)
        return chunk
    }
}
