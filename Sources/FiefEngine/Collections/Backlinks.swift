import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// The links that point at each object, kept on the target's side: the
/// database `c<class>.b` of a class that links can point to has one entry
/// per (target object, origin class, origin property, origin object), so
/// the objects linking to an object are one range scan, and deleting an
/// object visits exactly its referrers.
///
///     key    target object (8) + origin class (4) + origin property (4)
///            + origin object (8), big-endian: LMDB's order groups an
///            object's referrers, by class and property, in object order
///     value  UInt32: how many times the origin property links the target
///            (1 for a to-one link; a list may hold one object many times)
///
/// Every function that writes a link writes its backlink in the same write
/// transaction (`Links`).
enum Backlinks {
    static let keyBytes = 24

    /// Whether any link of `schema` points to `objectClass` (which then has
    /// a backlinks database).
    static func isTarget(_ objectClass: ObjectClass, in schema: Schema) -> Bool {
        // A mixed value may link to an object of any class but an embedded one.
        schema.classes.contains { $0.properties.contains { $0.linkTarget == objectClass.name || ($0.type == .mixed && !objectClass.isEmbedded) } }
    }

    /// One entry's key, in `out` (24 bytes).
    @inline(__always)
    static func key(_ out: UnsafeMutableRawPointer, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) {
        out.storeBytes(of: UInt64(bitPattern: target).bigEndian, as: UInt64.self)
        (out + 8).storeBytes(of: originClass.bigEndian, as: UInt32.self)
        (out + 12).storeBytes(of: property.bigEndian, as: UInt32.self)
        (out + 16).storeBytes(of: UInt64(bitPattern: origin).bigEndian, as: UInt64.self)
    }

    /// Count one more link from (`originClass`, `property`, `origin`) to `target`.
    static func add(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) throws(FiefError) {
        try change(txn, dbi, target: target, originClass: originClass, property: property, origin: origin, by: 1)
    }

    /// Count one link fewer (the entry goes at zero).
    static func remove(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) throws(FiefError) {
        try change(txn, dbi, target: target, originClass: originClass, property: property, origin: origin, by: -1)
    }

    private static func change(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64, by delta: Int64) throws(FiefError) {
        var buffer = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) in
            key(raw.baseAddress!, target: target, originClass: originClass, property: property, origin: origin)
            let k = UnsafeRawBufferPointer(raw)
            var count = Int64(0)
            if let stored = try LMDB.get(txn, dbi, k) {
                guard stored.count == 4 else {
                    throw FiefError(.fileCorrupt, "a stored link count is damaged (\(stored.count) bytes)")
                }
                count = Int64(UInt32(littleEndian: stored.loadUnaligned(as: UInt32.self)))
            }
            count += delta
            if count <= 0 {
                try LMDB.delete(txn, dbi, k)
            } else {
                var value = UInt32(truncatingIfNeeded: count).littleEndian
                _ = try withUnsafeBytes(of: &value) { (v) throws(FiefError) in try LMDB.put(txn, dbi, k, v) }
            }
        }
    }

    /// Every entry for `target` (optionally only from `originClass` and
    /// `property`), in key order: origin class, property, object and count.
    static func forEach(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32? = nil, property: UInt32? = nil,
                        _ body: (UInt32, UInt32, Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        var buffer = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) in
            key(raw.baseAddress!, target: target, originClass: originClass ?? 0, property: property ?? 0, origin: 0)
            let prefix = originClass == nil ? 8 : 16
            let cursor = try LMDBCursor(txn, dbi)
            var entry = try cursor.seek(UnsafeRawBufferPointer(raw))
            while let (k, v) = entry, k.count == keyBytes, memcmp(k.baseAddress!, raw.baseAddress!, prefix) == 0 {
                guard v.count == 4 else { throw FiefError(.fileCorrupt, "a stored link count is damaged (\(v.count) bytes)") }
                let cls = UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                let prop = UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                let origin = Int64(bitPattern: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
                try body(cls, prop, origin, UInt32(littleEndian: v.loadUnaligned(as: UInt32.self)))
                entry = try cursor.next()
            }
        }
    }

    /// Delete every entry for `target` with `cursor` (on the backlinks
    /// database), appending each to `into` first: origin class, property,
    /// object and count.
    static func take(_ cursor: LMDBCursor, target: Int64, into referrers: inout [(UInt32, UInt32, Int64, UInt32)]) throws(FiefError) {
        var buffer = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) in
            key(raw.baseAddress!, target: target, originClass: 0, property: 0, origin: 0)
            // Sought again after each delete: a cursor whose last entry
            // went is not positioned anywhere.
            while let (k, v) = try cursor.seek(UnsafeRawBufferPointer(raw)), k.count == keyBytes,
                  memcmp(k.baseAddress!, raw.baseAddress!, 8) == 0 {
                guard v.count == 4 else { throw FiefError(.fileCorrupt, "a stored link count is damaged (\(v.count) bytes)") }
                referrers.append((UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                                  UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self)),
                                  Int64(bitPattern: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 16, as: UInt64.self))),
                                  UInt32(littleEndian: v.loadUnaligned(as: UInt32.self))))
                try cursor.deleteCurrent()
            }
        }
    }

    /// Delete every entry made by link `property` of class `originClass`
    /// (a property being dropped) from a class's backlinks: for each target,
    /// a seek to its entries from that property (they are contiguous) and
    /// one delete per entry, so O(targets + entries) seeks, never a
    /// rewrite of the other entries.  Returns how many went.
    @discardableResult
    static func removeAll(_ txn: OpaquePointer, _ dbi: MDB_dbi, originClass: UInt32, property: UInt32) throws(FiefError) -> Int {
        var removed = 0
        var buffer = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &buffer) { (raw) throws(FiefError) in
            let cursor = try LMDBCursor(txn, dbi)
            var entry = try cursor.move(MDB_FIRST)
            while let (k, _) = entry {
                guard k.count == keyBytes else { throw FiefError(.fileCorrupt, "a stored link has a damaged key (\(k.count) bytes)") }
                let target = UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))
                let cls = UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                let prop = UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                if cls == originClass && prop == property {
                    // The key is copied first: the delete may move the page it is on.
                    raw.copyMemory(from: k)
                    try cursor.deleteCurrent()
                    removed += 1
                } else if cls < originClass || (cls == originClass && prop < property) {
                    key(raw.baseAddress!, target: Int64(bitPattern: target), originClass: originClass, property: property, origin: 0)
                } else {
                    guard target < UInt64.max else { break }
                    key(raw.baseAddress!, target: Int64(bitPattern: target + 1), originClass: 0, property: 0, origin: 0)
                }
                entry = try cursor.seek(UnsafeRawBufferPointer(raw))
            }
        }
        return removed
    }
}
