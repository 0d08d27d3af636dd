import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// Checks the structure of every B-tree page of an LMDB file before LMDB
/// itself walks them: LMDB trusts its pages (a damaged one can make it read
/// outside the file or stop the process on an assertion), so Fief reads the
/// page layout first, from the memory map, with every offset bounded.
///
/// It knows LMDB 0.9's page format (64-bit): a 16-byte header (page number,
/// flags, lower and upper bounds of the free space, or the page count of an
/// overflow run), an array of 2-byte node offsets, and nodes of an 8-byte
/// header (data size or child page, flags, key size), the key and the data.
/// A tree is damaged when any page it reaches has impossible flags, bounds,
/// offsets, sizes, child or overflow page numbers, is reached twice, or lies
/// deeper than the tree says.  The result names each damaged tree; the page
/// accounting (every page a meta page, in exactly one tree, or free) is
/// checked too.
public struct PageCheck {
    public static let headerSize = 16
    public static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04, leaf2: UInt16 = 0x20, subpage: UInt16 = 0x40
    public static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
    /// Tree record flags (MDB_db.md_flags): those LMDB keeps in the file,
    /// and the two that change how leaves are read.
    public static let persistentFlags: UInt16 = 0x7E, dupSortFlag: UInt16 = 0x04, dupFixedFlag: UInt16 = 0x10
    public static let invalidPage = UInt64.max

    /// A tree's root and shape, as LMDB records it (MDB_db, 48 bytes).
    public struct TreeRecord {
        public var fixedKeySize: Int
        public var flags: UInt16
        public var depth: Int
        /// Values the tree holds (every duplicate counted).
        public var entries: UInt64
        public var root: UInt64

        public init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 48 else { return nil }
            fixedKeySize = Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            flags = bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
            depth = Int(bytes.loadUnaligned(fromByteOffset: 6, as: UInt16.self))
            entries = bytes.loadUnaligned(fromByteOffset: 32, as: UInt64.self)
            root = bytes.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
        }
    }

    public let map: UnsafeRawPointer
    public let pageSize: Int
    /// Pages of the snapshot checked: 0 ... lastPage.
    public let lastPage: UInt64
    private var seen: [UInt64]
    /// Damaged trees by name ("" is LMDB's main tree, "(free pages)" its free list).
    public private(set) var damaged: [String: String] = [:]
    public private(set) var pagesInUse = 2
    public private(set) var freePages: [UInt64] = []
    private var current = ""
    /// Values counted on the leaves of the tree being walked (every
    /// duplicate), against its record's count.
    private var counted: UInt64 = 0

    /// Check every tree of the snapshot `txn` reads (nil when the file's meta
    /// pages cannot be matched to it).
    public static func run(environment: Environment, txn: OpaquePointer) -> PageCheck? {
        let bounds = environment.currentBounds()
        guard let map = UnsafeRawPointer(bitPattern: bounds.start) else { return nil }
        let pageSize = environment.pageSize
        let filePages = UInt64((bounds.end - bounds.start) / UInt(pageSize))
        let id = UInt64(mdb_txn_id(txn))
        for page in 0..<2 where UInt64(page) < filePages {
            let meta = map + page * pageSize + headerSize
            guard meta.loadUnaligned(as: UInt32.self) == 0xBEEF_C0DE else { continue }
            let lastPage = meta.loadUnaligned(fromByteOffset: 120, as: UInt64.self)
            guard meta.loadUnaligned(fromByteOffset: 128, as: UInt64.self) == id, lastPage < filePages else { continue }
            var check = PageCheck(map: map, pageSize: pageSize, lastPage: lastPage)
            let free = TreeRecord(UnsafeRawBufferPointer(start: meta + 24, count: 48))!
            let main = TreeRecord(UnsafeRawBufferPointer(start: meta + 72, count: 48))!
            check.walkTree("(free pages)", free, isFree: true)
            check.walkTree("", main, isMain: true)
            return check
        }
        return nil
    }

    private init(map: UnsafeRawPointer, pageSize: Int, lastPage: UInt64) {
        self.map = map
        self.pageSize = pageSize
        self.lastPage = lastPage
        seen = [UInt64](repeating: 0, count: Int(lastPage >> 6) + 1)
    }

    /// Whether the page accounting adds up (nil: trees were damaged, so it
    /// could not be counted).
    public var accountingHolds: Bool? {
        damaged.isEmpty ? pagesInUse + freePages.count == Int(lastPage) + 1 : nil
    }

    // MARK: Walking

    private struct Damage: Error { let reason: String }

    private mutating func walkTree(_ name: String, _ record: TreeRecord, isMain: Bool = false, isFree: Bool = false) {
        current = name
        // Flags LMDB never writes for a named tree: it would read the tree
        // another way.  (The free list's record holds the environment's
        // flags too.)
        if !isMain && !isFree && record.flags & ~PageCheck.persistentFlags != 0 {
            damaged[name] = "its tree record has impossible flags"
            return
        }
        if record.root == PageCheck.invalidPage {
            if record.entries != 0 { damaged[name] = "its tree record counts \(record.entries) entries but has no pages" }
            return
        }
        let outer = counted
        defer { counted = outer }
        do {
            try walkCounting(record, isMain: isMain, isFree: isFree, bounds: KeyBounds(order: isFree ? .unchecked : isMain ? .bytes : KeyOrder(keysOf: record.flags)))
        } catch let damage as Damage {
            damaged[name] = damage.reason
        } catch {}
    }

    /// Walk a tree from its root and check that its leaves hold as many
    /// values as its record counts (LMDB keeps the count at every write):
    /// an older copy of a leaf (a lost write) that holds fewer or more
    /// entries than the current one, its keys in bounds, is found here.
    private mutating func walkCounting(_ record: TreeRecord, isMain: Bool, isFree: Bool, bounds: KeyBounds) throws {
        counted = 0
        try walk(record.root, depth: 1, record: record, isMain: isMain, isFree: isFree, bounds: bounds)
        guard counted == record.entries else {
            throw Damage(reason: "its tree record counts \(record.entries) entries, its pages hold \(counted)")
        }
    }

    private mutating func claim(_ page: UInt64, count: UInt64 = 1) throws {
        guard page >= 2, count >= 1, page <= lastPage, count - 1 <= lastPage - page else {
            throw Damage(reason: "page \(page) is outside the file")
        }
        for p in page..<(page + count) {
            let (word, bit) = (Int(p >> 6), UInt64(1) << (p & 63))
            if seen[word] & bit != 0 { throw Damage(reason: "page \(p) is reached twice") }
            seen[word] |= bit
        }
        pagesInUse += Int(count)
    }

    /// How a tree orders its keys (LMDB's comparators): bytewise (shorter
    /// first on a common prefix), as unsigned integers in native order
    /// (`MDB_INTEGERKEY`, `MDB_INTEGERDUP`), or not checked (the free list,
    /// reversed orders Fief never uses).
    public enum KeyOrder {
        case bytes, integer, unchecked

        public init(keysOf flags: UInt16) {
            self = flags & 0x02 != 0 ? .unchecked : flags & 0x08 != 0 ? .integer : .bytes
        }

        public init(duplicatesOf flags: UInt16) {
            self = flags & 0x40 != 0 ? .unchecked : flags & 0x20 != 0 ? .integer : .bytes
        }

        /// `a` against `b`: negative, zero or positive; nil when integer
        /// keys are of sizes LMDB would not compare (not checked).
        public func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int? {
            switch self {
            case .unchecked:
                return nil
            case .bytes:
                let n = Swift.min(a.count, b.count)
                if n > 0 {
                    let c = memcmp(a.baseAddress!, b.baseAddress!, n)
                    if c != 0 { return Int(c) }
                }
                return a.count - b.count
            case .integer:
                guard a.count == b.count else { return nil }
                switch a.count {
                case 8:
                    let x = a.loadUnaligned(as: UInt64.self), y = b.loadUnaligned(as: UInt64.self)
                    return x < y ? -1 : x == y ? 0 : 1
                case 4:
                    let x = a.loadUnaligned(as: UInt32.self), y = b.loadUnaligned(as: UInt32.self)
                    return x < y ? -1 : x == y ? 0 : 1
                default:
                    return nil
                }
            }
        }
    }

    /// The keys a page may hold: at least `lower` and below `upper` (nil:
    /// unbounded), as its parent's separators say, in the tree's order.  A
    /// page found where another belongs (a lost write: an older page, or
    /// one of another tree, under its page number) breaks them.
    public struct KeyBounds {
        public var order: KeyOrder
        public var lower: UnsafeRawBufferPointer? = nil
        public var upper: UnsafeRawBufferPointer? = nil

        /// Whether `key` lies inside the bounds and after `previous`.  In a
        /// tree of integer keys every key has 4 or 8 bytes, all of one size
        /// (LMDB compares them as integers of the first key's size: a page of
        /// another tree in a class's place, with longer keys, would otherwise
        /// pass unordered and lead its searches astray).
        public func admits(_ key: UnsafeRawBufferPointer, after previous: UnsafeRawBufferPointer?) -> Bool {
            if order == .integer {
                guard key.count == 8 || key.count == 4, previous.map({ $0.count == key.count }) ?? true,
                      lower.map({ $0.count == key.count }) ?? true, upper.map({ $0.count == key.count }) ?? true else { return false }
            }
            if let previous, let c = order.compare(previous, key), c >= 0 { return false }
            if let lower, let c = order.compare(lower, key), c > 0 { return false }
            if let upper, let c = order.compare(key, upper), c >= 0 { return false }
            return true
        }
    }

    private mutating func walk(_ number: UInt64, depth: Int, record: TreeRecord, isMain: Bool, isFree: Bool, bounds: KeyBounds) throws {
        guard depth <= max(record.depth, 1) && depth <= 64 else { throw Damage(reason: "the tree is deeper than it says") }
        try claim(number)
        let page = map + Int(number) * pageSize
        guard page.loadUnaligned(as: UInt64.self) == number else { throw Damage(reason: "page \(number) holds another page's number") }
        let flags = page.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & ~0xC010   // not P_DIRTY, P_LOOSE, P_KEEP
        let isBranch = flags == PageCheck.branch
        let isLeaf = flags == PageCheck.leaf || flags == PageCheck.leaf | PageCheck.leaf2
        guard isBranch || isLeaf else { throw Damage(reason: "page \(number) is neither a branch nor a leaf") }
        if isBranch != (depth < record.depth) { throw Damage(reason: "page \(number) is at the wrong depth") }
        let count = try nodeCount(page, size: pageSize, number)
        // LMDB walks a branch page with one entry or a leaf page with none
        // on an assertion (or reads an entry that is not there): a branch
        // has at least two (one in the free list's tree), a leaf below the
        // root at least one.
        if isBranch ? count < (isFree ? 1 : 2) : (count == 0 && depth > 1) {
            throw Damage(reason: "page \(number) has \(count) entries")
        }
        if flags & PageCheck.leaf2 != 0 {
            guard record.fixedKeySize > 0, record.flags & PageCheck.dupFixedFlag != 0,
                  PageCheck.headerSize + count * record.fixedKeySize <= pageSize else {
                throw Damage(reason: "page \(number) has impossible fixed-size keys")
            }
            var previous: UnsafeRawBufferPointer?
            for i in 0..<count {
                let key = UnsafeRawBufferPointer(start: page + PageCheck.headerSize + i * record.fixedKeySize, count: record.fixedKeySize)
                guard bounds.admits(key, after: previous) else { throw Damage(reason: "page \(number) holds keys out of order or out of place") }
                previous = key
            }
            counted += UInt64(count)
            return
        }
        var previous: UnsafeRawBufferPointer?
        for i in 0..<count {
            let (node, keySize, nodeFlags, low) = try nodeAt(page, size: pageSize, i, number)
            let key = UnsafeRawBufferPointer(start: page + node + 8, count: keySize)
            if isBranch {
                // A branch's first key is not stored (its child's keys are
                // bounded by the parent's); child i holds keys from key i
                // up to key i + 1.
                var child = bounds
                if i > 0 {
                    guard bounds.admits(key, after: previous) else { throw Damage(reason: "page \(number) holds keys out of order or out of place") }
                    child.lower = key
                    previous = key
                }
                if i + 1 < count {
                    let (next, nextSize, _, _) = try nodeAt(page, size: pageSize, i + 1, number)
                    child.upper = UnsafeRawBufferPointer(start: page + next + 8, count: nextSize)
                }
                let childPage = UInt64(low) | (UInt64(nodeFlags) << 32)
                try walk(childPage, depth: depth + 1, record: record, isMain: isMain, isFree: isFree, bounds: child)
                continue
            }
            guard bounds.admits(key, after: previous) else { throw Damage(reason: "page \(number) holds keys out of order or out of place") }
            previous = key
            // One value, or a tree or sub-page of duplicates (counted below).
            if nodeFlags & PageCheck.dupData == 0 || isMain || isFree { counted += 1 }
            let dataSize = Int(low)
            let dataStart = node + 8 + keySize
            if nodeFlags & PageCheck.bigData != 0 {
                guard nodeFlags & (PageCheck.subData | PageCheck.dupData) == 0, dataStart + 8 <= pageSize else {
                    throw Damage(reason: "page \(number) has an impossible large value")
                }
                let first = page.loadUnaligned(fromByteOffset: dataStart, as: UInt64.self)
                guard first >= 2, first <= lastPage else { throw Damage(reason: "page \(number) points to a value outside the file") }
                let run = map + Int(first) * pageSize
                let pages = UInt64(run.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                guard run.loadUnaligned(as: UInt64.self) == first,
                      run.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & PageCheck.overflow != 0,
                      UInt64(dataSize + PageCheck.headerSize) <= pages * UInt64(pageSize) else {
                    throw Damage(reason: "the large value on page \(first) is damaged")
                }
                try claim(first, count: pages)
                if isFree { try freeList(UnsafeRawBufferPointer(start: run + PageCheck.headerSize, count: dataSize)) }
                continue
            }
            guard dataStart + dataSize <= pageSize else { throw Damage(reason: "page \(number) has a value past its end") }
            let data = UnsafeRawBufferPointer(start: page + dataStart, count: dataSize)
            // Duplicates (a sub-page or a sub-tree) only in a tree of
            // duplicates, whose every value LMDB reads as one.
            if !isMain && !isFree && nodeFlags & PageCheck.dupData != 0 && record.flags & PageCheck.dupSortFlag == 0 {
                throw Damage(reason: "page \(number) has duplicates in a tree without them")
            }
            if isFree {
                try freeList(data)
            } else if nodeFlags & PageCheck.subData != 0 && (isMain || nodeFlags & PageCheck.dupData != 0) {
                // A named database (main tree) or a tree of duplicates.
                guard let sub = TreeRecord(data), dataSize == 48 else { throw Damage(reason: "page \(number) has a damaged tree record") }
                if isMain {
                    let name = String(decoding: UnsafeRawBufferPointer(start: page + node + 8, count: keySize), as: UTF8.self)
                    walkTree(name, sub)
                    current = ""
                } else {
                    guard sub.root != PageCheck.invalidPage, sub.flags & ~PageCheck.persistentFlags == 0 else {
                        throw Damage(reason: "page \(number) has a damaged tree of duplicates")
                    }
                    let outer = counted
                    try walkCounting(sub, isMain: false, isFree: false, bounds: KeyBounds(order: KeyOrder(duplicatesOf: record.flags)))
                    counted = outer + sub.entries
                }
            } else if nodeFlags & PageCheck.dupData != 0 {
                // Duplicates kept inline: a sub-page inside the value.
                guard dataSize >= PageCheck.headerSize else { throw Damage(reason: "page \(number) has a damaged list of duplicates") }
                let sub = page + dataStart
                let subFlags = sub.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & ~0xC010
                // A leaf sub-page (of fixed-size values only in a tree of
                // them), holding at least one value: LMDB's cursor asserts
                // that it stands on a leaf.
                guard subFlags == PageCheck.subpage | PageCheck.leaf
                        || (subFlags == PageCheck.subpage | PageCheck.leaf | PageCheck.leaf2 && record.flags & PageCheck.dupFixedFlag != 0) else {
                    throw Damage(reason: "page \(number) has a damaged list of duplicates")
                }
                let subCount = try nodeCount(sub, size: dataSize, number)
                guard subCount > 0 else { throw Damage(reason: "page \(number) has an empty list of duplicates") }
                counted += UInt64(subCount)
                if subFlags & PageCheck.leaf2 != 0 {
                    let keySize = Int(sub.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
                    guard keySize > 0, PageCheck.headerSize + subCount * keySize <= dataSize else {
                        throw Damage(reason: "page \(number) has a damaged list of duplicates")
                    }
                    let order = KeyBounds(order: KeyOrder(duplicatesOf: record.flags))
                    var previousDuplicate: UnsafeRawBufferPointer?
                    for j in 0..<subCount {
                        let value = UnsafeRawBufferPointer(start: sub + PageCheck.headerSize + j * keySize, count: keySize)
                        guard order.admits(value, after: previousDuplicate) else { throw Damage(reason: "page \(number) has duplicates out of order") }
                        previousDuplicate = value
                    }
                } else {
                    let order = KeyBounds(order: KeyOrder(duplicatesOf: record.flags))
                    var previousDuplicate: UnsafeRawBufferPointer?
                    for j in 0..<subCount {
                        let (subNode, subKeySize, _, _) = try nodeAt(sub, size: dataSize, j, number)
                        let value = UnsafeRawBufferPointer(start: sub + subNode + 8, count: subKeySize)
                        guard order.admits(value, after: previousDuplicate) else { throw Damage(reason: "page \(number) has duplicates out of order") }
                        previousDuplicate = value
                    }
                }
            }
        }
    }

    /// The number of nodes of a page (or sub-page of `size` bytes), its bounds checked.
    private func nodeCount(_ page: UnsafeRawPointer, size: Int, _ number: UInt64) throws -> Int {
        let lower = Int(page.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        let upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        guard lower >= PageCheck.headerSize, lower <= upper, upper <= size, (lower - PageCheck.headerSize) % 2 == 0 else {
            throw Damage(reason: "page \(number) has impossible bounds")
        }
        return (lower - PageCheck.headerSize) >> 1
    }

    /// Node `i` of a page: its offset, key size, flags and data size (or
    /// child page), with the header and key inside the page.
    private func nodeAt(_ page: UnsafeRawPointer, size: Int, _ i: Int, _ number: UInt64) throws -> (Int, Int, UInt16, UInt32) {
        let upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        let offset = Int(page.loadUnaligned(fromByteOffset: PageCheck.headerSize + 2 * i, as: UInt16.self))
        guard offset >= upper, offset + 8 <= size else { throw Damage(reason: "page \(number) has a node outside it") }
        let low = UInt32(page.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) | UInt32(page.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)) << 16
        let flags = page.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
        let keySize = Int(page.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self))
        guard offset + 8 + keySize <= size else { throw Damage(reason: "page \(number) has a key past its end") }
        return (offset, keySize, flags, low)
    }

    /// A record of LMDB's free list: a count, then that many page numbers.
    private mutating func freeList(_ data: UnsafeRawBufferPointer) throws {
        guard data.count >= 8 else { throw Damage(reason: "a free-list record is damaged") }
        let count = data.loadUnaligned(as: UInt64.self)
        guard count <= UInt64(data.count / 8 - 1) else { throw Damage(reason: "a free-list record is damaged") }
        for i in 0..<Int(count) {
            let page = data.loadUnaligned(fromByteOffset: 8 + 8 * i, as: UInt64.self)
            guard page >= 2, page <= lastPage else { throw Damage(reason: "the free list names page \(page), outside the file") }
            freePages.append(page)
        }
    }

    // MARK: Salvage

    /// Every entry that can still be read from the damaged tree `name`
    /// whose key has 8 bytes (a tree of chunks): see `salvageEntries`.
    public static func salvage(environment: Environment, txn: OpaquePointer, tree name: String) -> [(key: UInt64, value: UnsafeRawBufferPointer)] {
        salvageEntries(environment: environment, txn: txn, tree: name).compactMap { (entry) -> (key: UInt64, value: UnsafeRawBufferPointer)? in
            entry.key.count == 8 ? (entry.key.loadUnaligned(as: UInt64.self), entry.value) : nil
        }
    }

    /// Every entry that can still be read from the damaged tree `name`:
    /// the leaf entries of every page that passes its checks, reached
    /// through branch entries that do; damaged pages and entries are
    /// skipped.  Keys and values are views into the map (valid with `txn`),
    /// in the order found (not necessarily key order).
    public static func salvageEntries(environment: Environment, txn: OpaquePointer, tree name: String) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        let bounds = environment.currentBounds()
        guard let map = UnsafeRawPointer(bitPattern: bounds.start) else { return [] }
        var main: MDB_dbi = 0
        var cursor: OpaquePointer?
        guard mdb_dbi_open(txn, nil, 0, &main) == 0, mdb_cursor_open(txn, main, &cursor) == 0 else { return [] }
        defer { mdb_cursor_close(cursor) }
        var utf8 = Array(name.utf8)
        var k = MDB_val(mv_size: utf8.count, mv_data: nil), v = MDB_val()
        let found = utf8.withUnsafeMutableBytes { bytes -> Int32 in
            k.mv_data = bytes.baseAddress
            return mdb_cursor_get(cursor, &k, &v, MDB_SET)
        }
        guard found == 0, let record = TreeRecord(LMDB.bytes(v)), record.root != invalidPage else { return [] }
        let filePages = UInt64((bounds.end - bounds.start) / UInt(environment.pageSize))
        var check = PageCheck(map: map, pageSize: environment.pageSize, lastPage: filePages - 1)
        var entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
        check.salvage(record.root, depth: 1, record: record, into: &entries)
        return entries
    }

    private mutating func salvage(_ number: UInt64, depth: Int, record: TreeRecord, into entries: inout [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) {
        guard depth <= max(record.depth, 1), depth <= 64, (try? claim(number)) != nil else { return }
        let page = map + Int(number) * pageSize
        guard page.loadUnaligned(as: UInt64.self) == number else { return }
        let flags = page.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & ~0xC010
        guard flags == PageCheck.branch || flags == PageCheck.leaf, let count = try? nodeCount(page, size: pageSize, number) else { return }
        for i in 0..<count {
            guard let (node, keySize, nodeFlags, low) = try? nodeAt(page, size: pageSize, i, number) else { continue }
            if flags == PageCheck.branch {
                salvage(UInt64(low) | (UInt64(nodeFlags) << 32), depth: depth + 1, record: record, into: &entries)
                continue
            }
            let key = UnsafeRawBufferPointer(start: page + node + 8, count: keySize)
            let dataSize = Int(low)
            let dataStart = node + 8 + keySize
            if nodeFlags & PageCheck.bigData != 0 {
                guard dataStart + 8 <= pageSize else { continue }
                let first = page.loadUnaligned(fromByteOffset: dataStart, as: UInt64.self)
                guard first >= 2, first <= lastPage else { continue }
                let run = map + Int(first) * pageSize
                let pages = UInt64(run.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                guard run.loadUnaligned(as: UInt64.self) == first, run.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & PageCheck.overflow != 0,
                      UInt64(dataSize + PageCheck.headerSize) <= pages * UInt64(pageSize), (try? claim(first, count: pages)) != nil else { continue }
                entries.append((key, UnsafeRawBufferPointer(start: run + PageCheck.headerSize, count: dataSize)))
            } else if nodeFlags == 0, dataStart + dataSize <= pageSize {
                entries.append((key, UnsafeRawBufferPointer(start: page + dataStart, count: dataSize)))
            }
        }
    }

    /// Free pages that a tree also uses (checked once every tree was walked).
    public func freePagesInUse() -> [UInt64] {
        freePages.filter { seen[Int($0 >> 6)] & (UInt64(1) << ($0 & 63)) != 0 }
    }
}
