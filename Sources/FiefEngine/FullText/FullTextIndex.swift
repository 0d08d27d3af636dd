import CLMDB
import FiefStorage

// Full-text search (`text TEXT 'dog -cat run*'`) over a full-text index:
// one LMDB database per full-text-indexed string property
// (`Table.fullTextName`, `c<class>.t<property>`), keyed by token, each
// token holding the keys of the objects whose text has it as sorted 8-byte
// duplicates (MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP).  A word of a
// search is one cursor range read in pages (MDB_GET_MULTIPLE), a prefix a
// range over the tokens starting with it, each read into a bitmap over
// object keys (`KeyBitmap`: 4 words a cluster, what results keep per
// cluster); words combine as intersections and differences of bitmaps.  Tokens and their folding are
// realm-core's (`FullTextTokenizer`), so a search finds what Realm finds.

extension Realm {
    /// The objects of `table` matching `predicate`, read from the
    /// full-text index in the write transaction (which sees its own writes)
    /// or the snapshot.
    func fullTextMatches(_ predicate: FullTextPredicate, _ table: Table) throws(FiefError) -> KeyBitmap {
        guard let dbi = table.fullTextDatabases[predicate.property.key] else {
            throw FiefError(.queryInvalid, "'\(table.objectClass.name).\(predicate.property.name)' has no full-text index")
        }
        let search = predicate.search
        var result = KeyBitmap()
        let onlyExclusions = search.words.isEmpty && search.prefixes.isEmpty
        if onlyExclusions {
            // Every object but those.
            for (cluster, live) in try clusters(table) { result.insert(cluster: cluster, live) }
        }
        func lookUp(_ txn: OpaquePointer) throws(FiefError) {
            // Object keys read from the index are bounded by the class's
            // last cluster (the bitmap is sized by them): a key past it, or
            // negative, is damage, not an allocation of its size.
            var limit = try FullTextIndex.keyLimit(txn, table.data, table: table.key)
            if let touched = write?.classes[table.key]?.touchedClusters, let last = touched.max() {
                limit = max(limit, (last + 1) << ClusterLayout.shift)
            }
            let cursor = try LMDBCursor(txn, dbi)
            var first = !onlyExclusions
            var other = KeyBitmap()
            func require(_ read: (inout KeyBitmap) throws(FiefError) -> Void) throws(FiefError) {
                if first {
                    try read(&result)
                    first = false
                } else {
                    other.removeAll()
                    try read(&other)
                    result.formIntersection(other)
                }
            }
            for word in search.words {
                try require { (bitmap) throws(FiefError) in try FullTextIndex.postings(cursor, word, limit: limit, into: &bitmap) }
                if result.isEmpty { return }
            }
            for prefix in search.prefixes {
                try require { (bitmap) throws(FiefError) in try FullTextIndex.postings(cursor, prefix: prefix, limit: limit, into: &bitmap) }
                if result.isEmpty { return }
            }
            for word in search.excluded {
                other.removeAll()
                try FullTextIndex.postings(cursor, word, limit: limit, into: &other)
                result.subtract(other)
                if result.isEmpty { return }
            }
        }
        if let write {
            try lookUp(write.txn)
        } else {
            let snapshot = try currentSnapshot()
            if snapshot.isShared {
                try snapshot.lock.withLock { () throws(FiefError) in try lookUp(snapshot.txn) }
            } else {
                try lookUp(snapshot.txn)
            }
        }
        return result
    }

    // MARK: Maintaining the index

    /// Add the tokens of `value` for object `key` to `property`'s full-text index.
    func putFullText(_ write: WriteTransaction, _ table: Table, _ property: Property, _ value: Value, _ key: Int64) throws(FiefError) {
        guard let dbi = table.fullTextDatabases[property.key], case .string = value else { return }
        try FullTextIndex.put(write.txn, dbi, FullTextTokenizer.tokens(of: value), key)
    }

    /// Index the texts of `rows` objects just created from key `first`.
    func addFullText(_ write: WriteTransaction, _ table: Table, _ property: Property, first: Int64, rows: Int) throws(FiefError) {
        guard let dbi = table.fullTextDatabases[property.key] else { return }
        let column = try table.column(property.key)
        for r in 0..<rows {
            let key = first + Int64(r)
            let value = try slotValue(table, column, key)
            try FullTextIndex.put(write.txn, dbi, FullTextTokenizer.tokens(of: value), key)
        }
    }

    /// Remove the tokens of `value` for object `key` from `property`'s full-text index.
    func deleteFullText(_ write: WriteTransaction, _ table: Table, _ property: Property, _ value: Value, _ key: Int64) throws(FiefError) {
        guard let dbi = table.fullTextDatabases[property.key], case .string = value else { return }
        try FullTextIndex.delete(write.txn, dbi, FullTextTokenizer.tokens(of: value), key)
    }

    /// Object `key`'s text changes from `old` to `new`: only the tokens
    /// one has and the other lacks change in the index.
    func replaceFullText(_ write: WriteTransaction, _ table: Table, _ property: Property, old: Value, new: Value, _ key: Int64) throws(FiefError) {
        guard let dbi = table.fullTextDatabases[property.key], !old.isSame(as: new) else { return }
        let before = FullTextTokenizer.tokens(of: old), after = FullTextTokenizer.tokens(of: new)
        try FullTextIndex.delete(write.txn, dbi, before.filter { !after.contains($0) }, key)
        try FullTextIndex.put(write.txn, dbi, after.filter { !before.contains($0) }, key)
    }
}

/// Reading and writing a full-text index database.
enum FullTextIndex {
    /// Index every existing object's text of `property` into `target`
    /// (an empty full-text index): a full-text index added to a class
    /// that has objects.
    static func fill(_ txn: OpaquePointer, data: MDB_dbi, target: MDB_dbi, property: Property, objectClass: ObjectClass) throws(FiefError) {
        let tables = ChunkPartTables()
        let presenceCursor = try LMDBCursor(txn, data)
        var entry = try presenceCursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
        while let (chunkKey, presenceBytes) = entry, chunkKey < ClusterLayout.columnStart(1) {
            let cluster = ClusterLayout.cluster(ofChunkKey: chunkKey)
            guard let presenceBody = ChunkCheck.verified(presenceBytes, table: objectClass.key, key: chunkKey, type: nil) else {
                throw damaged(objectClass, chunkKey)
            }
            let presence = ChunkReader(presenceBody)
            guard let column = try ChunkParts.read(txn, data, table: objectClass.key, column: property.key, cluster: cluster,
                                                   type: property.type, bounds: nil, tables: tables) else {
                throw damaged(objectClass, ClusterLayout.chunkKey(column: property.key, cluster: cluster))
            }
            for slot in 0..<ClusterLayout.slots where presence.bit(slot) {
                let value = column.value(slot, type: property.type, nullable: property.isNullable)
                try put(txn, target, FullTextTokenizer.tokens(of: value), (cluster << ClusterLayout.shift) | Int64(slot))
            }
            entry = try presenceCursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
        }
    }

    /// Empty the full-text index `target` of `property` and fill it again
    /// from the stored texts (a file upgraded from format 5, whose index a
    /// library older than full-text search may have left stale:
    /// `FormatUpgrade.DerivedData`).
    static func rebuild(_ txn: OpaquePointer, data: MDB_dbi, target: MDB_dbi, property: Property, objectClass: ObjectClass, path: String) throws(FiefError) {
        try LMDB.check(mdb_drop(txn, target, 0), "emptying the full-text index of '\(objectClass.name).\(property.name)'", path: path)
        try fill(txn, data: data, target: target, property: property, objectClass: objectClass)
    }

    private static func damaged(_ objectClass: ObjectClass, _ key: UInt64) -> FiefError {
        FiefError(.fileCorrupt, "a stored chunk of class '\(objectClass.name)' (key \(key)) fails its checksum or layout check")
    }

    /// Add `key` under each of `tokens`.
    static func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ tokens: [[UInt8]], _ key: Int64) throws(FiefError) {
        var object = UInt64(bitPattern: key)
        try withUnsafeBytes(of: &object) { (vb) throws(FiefError) in
            for token in tokens {
                try typed { try token.withUnsafeBytes { (kb) in _ = try LMDB.put(txn, dbi, kb, vb) } }
            }
        }
    }

    /// Remove `key` from under each of `tokens` (a missing entry is no error).
    static func delete(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ tokens: [[UInt8]], _ key: Int64) throws(FiefError) {
        var object = UInt64(bitPattern: key)
        try withUnsafeBytes(of: &object) { (vb) throws(FiefError) in
            for token in tokens {
                try typed { try token.withUnsafeBytes { (kb) in try LMDB.delete(txn, dbi, kb, value: vb) } }
            }
        }
    }

    /// Call `body` with the object keys under the cursor's current token
    /// (`first`, the value the cursor was positioned on): a token held by
    /// one object has no duplicates to read in pages; others are read a
    /// page of keys at a time, in place.
    /// Every key is checked: 8 bytes, in 0 ..< `limit` (damage otherwise).
    @inline(__always)
    private static func forEachDuplicate(_ cursor: LMDBCursor, first: UnsafeRawBufferPointer, limit: Int64, _ body: (Int64) -> Void) throws(FiefError) {
        var count = 0
        try LMDB.check(mdb_cursor_count(cursor.pointer, &count), "reading a full-text index")
        var bad = false
        @inline(__always) func add(_ key: Int64) {
            if key >= 0 && key < limit { body(key) } else { bad = true }
        }
        if count == 1 {
            guard first.count == 8 else { throw damaged() }
            add(Int64(bitPattern: first.loadUnaligned(as: UInt64.self)))
            if bad { throw damaged() }
            return
        }
        var k = MDB_val(), v = MDB_val()
        var rc = mdb_cursor_get(cursor.pointer, &k, &v, MDB_GET_MULTIPLE)
        while rc == 0 {
            let page = UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
            guard page.count % 8 == 0 else { throw damaged() }
            for i in 0..<(page.count / 8) { add(Int64(bitPattern: page.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))) }
            if bad { throw damaged() }
            rc = mdb_cursor_get(cursor.pointer, &k, &v, MDB_NEXT_MULTIPLE)
        }
        if rc != MDB_NOTFOUND { try LMDB.check(rc, "reading a full-text index") }
    }

    private static func damaged() -> FiefError {
        FiefError(.fileCorrupt, "a full-text index is damaged: it names an object key outside its class (`fief copy` builds it again)")
    }

    /// One past the largest object key of the class whose objects tree is
    /// `data`: the end of its last stored cluster (0 without one), whose
    /// chunk (and so its key) passes its checksum.
    static func keyLimit(_ txn: OpaquePointer, _ data: MDB_dbi, table: UInt32) throws(FiefError) -> Int64 {
        let cursor = try LMDBCursor(txn, data)
        let end = ClusterLayout.columnStart(1)
        let last = try cursor.seek(integerKey: end) == nil ? try cursor.move(MDB_LAST) : try cursor.move(MDB_PREV)
        guard let (key, value) = last, key.count == 8 else { return 0 }
        let chunkKey = key.loadUnaligned(as: UInt64.self)
        guard chunkKey < end else { return 0 }
        guard ChunkCheck.verified(value, table: table, key: chunkKey, type: nil) != nil else {
            throw FiefError(.fileCorrupt, "a stored chunk of the objects of a class (key \(chunkKey)) fails its checksum or layout check")
        }
        return (ClusterLayout.cluster(ofChunkKey: chunkKey) + 1) << ClusterLayout.shift
    }

    /// Add the objects having `token` to `objects`.
    static func postings(_ cursor: LMDBCursor, _ token: [UInt8], limit: Int64, into objects: inout KeyBitmap) throws(FiefError) {
        var v = MDB_val()
        let rc: Int32 = token.withUnsafeBytes { raw in
            var k = LMDB.val(raw)
            return mdb_cursor_get(cursor.pointer, &k, &v, MDB_SET_KEY)
        }
        if rc == MDB_NOTFOUND { return }
        try LMDB.check(rc, "reading a full-text index")
        try forEachDuplicate(cursor, first: LMDB.bytes(v), limit: limit) { objects.insert($0) }
    }

    /// Add the objects having a token that starts with `prefix` (the tokens
    /// of one cursor range) to `objects`.
    static func postings(_ cursor: LMDBCursor, prefix: [UInt8], limit: Int64, into objects: inout KeyBitmap) throws(FiefError) {
        var entry = try typed { try prefix.withUnsafeBytes { (raw) in try cursor.seek(raw) } }
        while let (token, first) = entry, token.starts(with: prefix) {
            try forEachDuplicate(cursor, first: first, limit: limit) { objects.insert($0) }
            entry = try cursor.move(MDB_NEXT_NODUP)
        }
    }
}

/// Objects of one class as one bit per object key (64 keys a word, so a
/// cluster's objects are 4 words): what a full-text search finds.  Words
/// of keys not set may be missing (they read as 0).
struct KeyBitmap {
    private(set) var words: [UInt64] = []

    var isEmpty: Bool { !words.contains { $0 != 0 } }

    /// How many objects.
    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    @inline(__always)
    mutating func insert(_ key: Int64) {
        let word = Int(key >> 6)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count))) }
        words[word] |= 1 << UInt64(key & 63)
    }

    /// Add the objects `bits` of `cluster`.
    mutating func insert(cluster: Int64, _ bits: Bitmap) {
        let base = Int(cluster) * 4
        if base + 4 > words.count { words.append(contentsOf: repeatElement(0, count: max(base + 4 - words.count, words.count))) }
        for i in 0..<4 { words[base + i] |= bits[i] }
    }

    /// Empty, keeping the storage.
    mutating func removeAll() {
        words.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// Keep only the objects also in `other`.
    mutating func formIntersection(_ other: KeyBitmap) {
        let common = min(words.count, other.words.count)
        words.withUnsafeMutableBufferPointer { w in
            other.words.withUnsafeBufferPointer { o in
                for i in 0..<common { w[i] &= o[i] }
            }
        }
        words.removeLast(words.count - common)
    }

    /// Remove the objects in `other`.
    mutating func subtract(_ other: KeyBitmap) {
        let common = min(words.count, other.words.count)
        words.withUnsafeMutableBufferPointer { w in
            other.words.withUnsafeBufferPointer { o in
                for i in 0..<common { w[i] &= ~o[i] }
            }
        }
    }

    /// The objects of `cluster`.
    @inline(__always)
    func bits(cluster: Int64) -> Bitmap {
        let base = Int(cluster) * 4
        guard base + 4 <= words.count else {
            var bits = Bitmap(repeating: 0)
            for i in 0..<4 where base + i < words.count { bits[i] = words[base + i] }
            return bits
        }
        return Bitmap(words[base], words[base + 1], words[base + 2], words[base + 3])
    }

    /// Each cluster holding objects, in order, with its objects.
    func forEachCluster(_ body: (Int64, Bitmap) -> Void) {
        var cluster: Int64 = 0
        var base = 0
        while base < words.count {
            let bits = self.bits(cluster: cluster)
            if bits != Bitmap(repeating: 0) { body(cluster, bits) }
            cluster += 1
            base += 4
        }
    }

    /// Every object key, in order.
    func keys() -> [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(count)
        for (word, bits) in words.enumerated() where bits != 0 {
            var w = bits
            while w != 0 {
                keys.append(Int64(word << 6 | w.trailingZeroBitCount))
                w &= w - 1
            }
        }
        return keys
    }
}
