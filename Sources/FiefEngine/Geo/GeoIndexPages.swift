import CLMDB
import FiefStorage
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

// Reading a spatial index's B-tree straight from the memory map, for a
// read-only snapshot (whose pages LMDB never changes while it lives).
//
// A query over a large region reads tens of thousands of point entries in
// key order.  Through a cursor, each costs an `mdb_cursor_get` call, and
// each leaf page's entries are waited for one after the other: after a
// commit has gone by (or any other work), the pages are no longer in the
// processor's caches, and a leaf page of random inserts keeps its entries
// in no particular order within the page.  Reading the pages itself, the
// walk knows the next leaf pages from their parent branch page and asks
// the processor to fetch them while it reads the current one (their nodes,
// not the free space of a half-full page), so the memory latency of a page
// is paid once and overlapped, not once per entry; and an entry costs a
// few loads and checks, no call into LMDB.  Keys are compared as numbers
// (a point key is a kind byte and two big-endian integers).
//
// It knows LMDB 0.9's page format, as `PageCheck` does: a 16-byte header
// (page number, flags, the lower and upper bounds of the free space), the
// 2-byte offsets of the nodes in key order, and nodes of an 8-byte header
// (data size or, in a branch, the child's page number; flags; key size),
// the key, then the data.  Every page is checked before it is used (its
// number, its kind for its depth, its bounds), every node offset and size
// is bounded by the page, and a branch's child must lie in the snapshot's
// pages: a damaged tree gives `.fileCorrupt`, never a read outside the map.
// The tree's root and depth come from its record in LMDB's main tree.  A
// write transaction (whose pages are not all in the map), a map whose
// address is unknown, or a tree of another kind is read through a cursor
// instead (`GeoIndex.forEachCandidate`).

/// A spatial index's tree in a read snapshot's memory map.
struct GeoIndexPages {
    let map: UnsafeRawPointer
    let pageSize: Int
    /// The snapshot's pages: 0 ..< pageCount.
    let pageCount: UInt64
    let root: UInt64
    let depth: Int

    static let headerSize = 16
    static let branchFlag: UInt16 = 0x01, leafFlag: UInt16 = 0x02
    /// P_DIRTY, P_LOOSE, P_KEEP: bits a stored page may carry besides its kind.
    static let ignoredFlags: UInt16 = 0xC010

    /// The tree of database `name` as snapshot `txn` sees it, or nil when it
    /// cannot be read from the map (no map address, no such tree, an empty
    /// tree, or one with flags other than a plain tree's).
    init?(_ txn: OpaquePointer, name: String, bounds: MapBounds, pageSize: Int) throws(FiefError) {
        guard let map = UnsafeRawPointer(bitPattern: bounds.start), pageSize >= 512, bounds.end > bounds.start else { return nil }
        var main: MDB_dbi = 0
        guard mdb_dbi_open(txn, nil, 0, &main) == 0 else { return nil }
        let utf8 = Array(name.utf8)
        var k = MDB_val(mv_size: utf8.count, mv_data: nil), v = MDB_val()
        let rc = utf8.withUnsafeBytes { bytes -> Int32 in
            k.mv_data = UnsafeMutableRawPointer(mutating: bytes.baseAddress)
            return mdb_get(txn, main, &k, &v)
        }
        if rc == MDB_NOTFOUND { return nil }
        try LMDB.check(rc, "reading a spatial index's record")
        let record = LMDB.bytes(v)
        guard record.count == 48 else { return nil }
        let flags = record.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
        let depth = Int(record.loadUnaligned(fromByteOffset: 6, as: UInt16.self))
        let root = record.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
        // Flags of a plain tree only (LMDB keeps MDB_VALID, 0x8000, in memory only).
        guard flags & 0x7FFF == 0, depth >= 1, depth <= 32, root != UInt64.max else { return nil }
        self.map = map
        self.pageSize = pageSize
        self.pageCount = UInt64((bounds.end - bounds.start) / UInt(pageSize))
        self.root = root
        self.depth = depth
    }

    /// A tree of `depth` levels rooted at page `root` of the `pageCount`
    /// pages at `map` (what the initializer above finds; tests build pages
    /// of their own).
    init(map: UnsafeRawPointer, pageSize: Int, pageCount: UInt64, root: UInt64, depth: Int) {
        self.map = map
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.root = root
        self.depth = depth
    }

    private func damaged(_ page: UInt64, _ what: String) -> FiefError {
        FiefError(.fileCorrupt, "a spatial index page (\(page)) is damaged: \(what)")
    }

    /// Page `number`, checked to be a page of the snapshot of the kind
    /// expected (`leaf` or branch), and its node count.
    @inline(__always)
    private func page(_ number: UInt64, leaf: Bool) throws(FiefError) -> (UnsafeRawPointer, Int) {
        guard number >= 2, number < pageCount else { throw damaged(number, "it lies outside the file") }
        let page = map + Int(number) * pageSize
        guard page.loadUnaligned(as: UInt64.self) == number else { throw damaged(number, "it holds another page's number") }
        let flags = page.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & ~Self.ignoredFlags
        guard flags == (leaf ? Self.leafFlag : Self.branchFlag) else { throw damaged(number, "it is not a \(leaf ? "leaf" : "branch") page") }
        let lower = Int(page.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        let upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        guard lower >= Self.headerSize, lower <= upper, upper <= pageSize, lower & 1 == 0 else { throw damaged(number, "impossible bounds") }
        return (page, (lower - Self.headerSize) >> 1)
    }

    /// The offset of node `i` of `page`, with its header and a key of
    /// `keySize` bytes (read) inside the page.
    @inline(__always)
    private func node(_ page: UnsafeRawPointer, _ i: Int) throws(FiefError) -> (offset: Int, keySize: Int) {
        let upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        let offset = Int(page.loadUnaligned(fromByteOffset: Self.headerSize + 2 * i, as: UInt16.self))
        guard offset >= upper, offset + 8 <= pageSize else { throw damaged(page.loadUnaligned(as: UInt64.self), "a node lies outside it") }
        let keySize = Int(page.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self))
        guard offset + 8 + keySize <= pageSize else { throw damaged(page.loadUnaligned(as: UInt64.self), "a key runs past its end") }
        return (offset, keySize)
    }

    /// Node `i` of `page` compared with `key` (LMDB's order: bytes, then
    /// length).  A point entry's key (17 bytes, kind 1) against a point
    /// key is compared as three numbers; anything else byte by byte.
    @inline(__always)
    private func compare(_ page: UnsafeRawPointer, _ i: Int, _ key: UnsafeRawBufferPointer) throws(FiefError) -> Int {
        let (offset, keySize) = try node(page, i)
        let stored = page + offset + 8
        if keySize == GeoIndexEntry.pointKeyBytes && key.count == GeoIndexEntry.pointKeyBytes
            && stored.load(as: UInt8.self) == 1 && key[0] == 1 {
            let a = UInt64(bigEndian: stored.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
            let b = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
            if a != b { return a < b ? -1 : 1 }
            let c = UInt64(bigEndian: stored.loadUnaligned(fromByteOffset: 9, as: UInt64.self))
            let d = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 9, as: UInt64.self))
            return c == d ? 0 : (c < d ? -1 : 1)
        }
        let common = min(keySize, key.count)
        let c = common == 0 ? 0 : Int(memcmp(stored, key.baseAddress!, common))
        return c != 0 ? c : keySize - key.count
    }

    /// The child page of node `i` of branch `page`.
    @inline(__always)
    private func child(_ page: UnsafeRawPointer, _ i: Int) throws(FiefError) -> UInt64 {
        let (offset, _) = try node(page, i)
        return UInt64(page.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            | UInt64(page.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)) << 16
            | UInt64(page.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)) << 32
    }

    /// Ask for the first line of page `number` (its header and first node
    /// offsets).  A hint: never a read, so an unchecked number does no harm.
    @inline(__always)
    private func prefetchHeader(_ number: UInt64) {
        guard number < pageCount else { return }
        fief_prefetch(map + Int(number) * pageSize)
    }

    /// Ask for the lines of page `number` that hold its nodes (from its
    /// upper bound on) and node offsets: a leaf filled by random inserts
    /// is often half empty, and its free space is not worth fetching.  The
    /// header is read (asked for earlier, by `prefetchHeader`); an
    /// impossible bound asks for nothing (the page is checked when read).
    @inline(__always)
    private func prefetchNodes(_ number: UInt64) {
        guard number >= 2, number < pageCount else { return }
        let page = map + Int(number) * pageSize
        let lower = Int(page.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        let upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        guard lower <= upper, upper <= pageSize else { return }
        var line = 64
        while line < lower {
            fief_prefetch(page + line)
            line += 64
        }
        line = max(line, upper & ~63)
        while line < pageSize {
            fief_prefetch(page + line)
            line += 64
        }
    }

    /// Call `body` with each point entry whose cell lies in `ranges`
    /// (ascending, disjoint): the object, its value (owner and unit vector,
    /// in place) and whether its range is whole; as
    /// `GeoIndex.forEachCandidate` does through a cursor.
    func forEachCandidate(_ ranges: [GeoCells.Range], _ body: (_ object: Int64, _ value: UnsafeRawBufferPointer, _ whole: Bool) -> Void) throws(FiefError) {
        let levels = depth - 1
        // The branch pages on the way to the current leaf, the node taken
        // in each and its node count.
        var branches = [UnsafeRawPointer](repeating: map, count: max(levels, 1))
        var taken = [Int](repeating: 0, count: max(levels, 1))
        var counts = [Int](repeating: 0, count: max(levels, 1))
        var leaf = map
        var leafNumber: UInt64 = 0
        var count = 0
        var index = 0
        /// The cell of the leaf's last point entry (0 when it ends with object entries).
        var lastCell: UInt64 = 0
        var key = (UInt64(0), UInt64(0), UInt64(0))

        func enterLeaf(_ number: UInt64) throws(FiefError) {
            (leaf, count) = try page(number, leaf: true)
            leafNumber = number
            index = 0
            lastCell = 0
            if count > 0 {
                let (offset, keySize) = try node(leaf, count - 1)
                if keySize == GeoIndexEntry.pointKeyBytes && leaf.load(fromByteOffset: offset + 8, as: UInt8.self) == 1 {
                    lastCell = UInt64(bigEndian: leaf.loadUnaligned(fromByteOffset: offset + 9, as: UInt64.self))
                }
            }
        }

        /// From level `level`'s taken node down to a leaf, taking the first
        /// node of each page below.
        func descendFirst(from level: Int) throws(FiefError) {
            var number = try child(branches[level], taken[level])
            var l = level + 1
            while l < levels {
                (branches[l], counts[l]) = try page(number, leaf: false)
                guard counts[l] > 0 else { throw damaged(number, "an empty branch") }
                taken[l] = 0
                number = try child(branches[l], 0)
                l += 1
            }
            try enterLeaf(number)
        }

        /// The next leaf; false past the last.
        func nextLeaf() throws(FiefError) -> Bool {
            var level = levels - 1
            while level >= 0 {
                if taken[level] + 1 < counts[level] {
                    taken[level] += 1
                    try descendFirst(from: level)
                    return true
                }
                level -= 1
            }
            return false
        }

        /// Positioned at the first entry at or after `target`, from the root.
        func seek(_ target: UnsafeRawBufferPointer) throws(FiefError) {
            var number = root
            for level in 0..<levels {
                let (branch, n) = try page(number, leaf: false)
                guard n > 0 else { throw damaged(number, "an empty branch") }
                // The last node from the second on whose key is at most
                // `target` (the first node's key stands for everything below).
                var low = 1, high = n
                while low < high {
                    let mid = (low + high) >> 1
                    if try compare(branch, mid, target) <= 0 { low = mid + 1 } else { high = mid }
                }
                branches[level] = branch
                counts[level] = n
                taken[level] = low - 1
                number = try child(branch, low - 1)
            }
            try enterLeaf(number)
            try seekInLeaf(target, from: 0)
        }

        /// Within the leaf: the first entry from `from` on at or after `target`.
        func seekInLeaf(_ target: UnsafeRawBufferPointer, from: Int) throws(FiefError) {
            var low = from, high = count
            while low < high {
                let mid = (low + high) >> 1
                if try compare(leaf, mid, target) < 0 { low = mid + 1 } else { high = mid }
            }
            index = low
        }

        // Reading ahead while a range goes past the current leaf: the
        // current leaf's nodes, the nodes of the next two leaves under the
        // same parent (their headers asked for earlier) and the headers of
        // the two after those; pages already asked for are not asked
        // again.  A range ending in this leaf asks for nothing.
        var nodesAsked: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var headersAsked: (UInt64, UInt64, UInt64) = (0, 0, 0)
        func askNodes(_ number: UInt64) {
            if number == nodesAsked.0 || number == nodesAsked.1 || number == nodesAsked.2 { return }
            nodesAsked = (nodesAsked.1, nodesAsked.2, number)
            prefetchNodes(number)
        }
        func askHeader(_ number: UInt64) {
            if number == headersAsked.0 || number == headersAsked.1 || number == headersAsked.2 { return }
            headersAsked = (headersAsked.1, headersAsked.2, number)
            prefetchHeader(number)
        }
        func readAhead(_ upper: UInt64) throws(FiefError) {
            guard upper > lastCell else { return }
            askNodes(leafNumber)
            guard levels > 0 else { return }
            let parent = levels - 1
            let last = min(counts[parent] - 1, taken[parent] + 4)
            var i = taken[parent] + 1
            while i <= last {
                let number = try child(branches[parent], i)
                if i <= taken[parent] + 2 { askNodes(number) } else { askHeader(number) }
                i += 1
            }
        }

        try withUnsafeMutableBytes(of: &key) { (k) throws(FiefError) in
            let target = UnsafeRawBufferPointer(rebasing: k[0..<GeoIndexEntry.pointKeyBytes])
            var positioned = false
            for marked in ranges {
                let range = marked.cells, whole = marked.whole
                GeoIndexEntry.pointKey(k.baseAddress!, cell: range.lowerBound, object: 0)
                if positioned && index < count && range.lowerBound <= lastCell {
                    try seekInLeaf(target, from: index)
                } else {
                    try seek(target)
                    positioned = true
                }
                try readAhead(range.upperBound)
                while true {
                    if index == count {
                        guard try nextLeaf() else { return }
                        try readAhead(range.upperBound)
                        continue
                    }
                    let offset = Int(leaf.loadUnaligned(fromByteOffset: Self.headerSize + 2 * index, as: UInt16.self))
                    let upper = Int(leaf.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
                    guard offset >= upper, offset + 8 + GeoIndexEntry.pointKeyBytes + GeoIndexEntry.valueBytes <= pageSize,
                          leaf.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == UInt32(GeoIndexEntry.valueBytes),
                          leaf.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) == UInt32(GeoIndexEntry.pointKeyBytes) << 16,
                          leaf.load(fromByteOffset: offset + 8, as: UInt8.self) == 1 else {
                        throw damaged(leafNumber, "a point entry has the wrong size or kind")
                    }
                    let cell = UInt64(bigEndian: leaf.loadUnaligned(fromByteOffset: offset + 9, as: UInt64.self))
                    if cell > range.upperBound { break }
                    let object = Int64(bitPattern: UInt64(bigEndian: leaf.loadUnaligned(fromByteOffset: offset + 17, as: UInt64.self)))
                    body(object, UnsafeRawBufferPointer(start: leaf + offset + 8 + GeoIndexEntry.pointKeyBytes, count: GeoIndexEntry.valueBytes), whole)
                    index += 1
                }
            }
        }
    }
}
