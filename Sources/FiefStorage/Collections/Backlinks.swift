import CLMDB
import CFiefSupport
#if canImport(Glibc)
import Glibc
#endif

/// The links that point at each object, kept on the target's side: the
/// database `c<class>.b` of a class that links can point to records, per
/// (target object, origin class, origin property, origin object), how many
/// times that origin links the target.  So the objects linking to an object
/// are one range scan, and deleting an object visits exactly its referrers.
///
/// Records are ordered by (target, origin class, origin property, origin
/// object) and stored in *runs*: one LMDB entry holds up to `runLimit`
/// bytes of consecutive records, keyed by its last record (file format 5;
/// format 4 had one 24-byte-key entry per record, 38 bytes on the page,
/// which `FormatUpgrade` converts):
///
///     key    the run's last record: target (8) + origin class (4) +
///            origin property (4) + origin object (8), big-endian, so
///            LMDB's order is the records' order, and the run holding a
///            record (or where it belongs) is the first whose key is not
///            below it: one MDB_SET_RANGE
///     value  [0, 2)   n, the number of records (UInt16, 1...)
///            [2]      wt: bytes of a target offset (0...8)
///            [3]      wo: bytes of an origin offset (0...8)
///            [4]      wc: bytes of a count (0: every count is 1; 1...4)
///            [5]      np: (origin class, property) pairs in the table (1...255)
///            [6, 14)  a base target, not above any of the run's
///            [14, 22) a base origin object, not above any of the run's
///            then     np pairs (class UInt32, property UInt32), ascending
///            then     n rows of wt + wp + wo + wc bytes, wp = np > 1 ? 1 : 0:
///                     target - base target, pair index, origin - base
///                     origin, count (all little-endian)
///            last 4   CRC-32C of the key and everything before it
///
/// A run of a cluster's objects linked from one list property takes about
/// 5 bytes a link (1-byte target offsets, 3-byte origin offsets) where a
/// format-4 entry took 38: a deletion of every tenth object rewrites a
/// sixth of the pages it did.  Rows have fixed widths, so a read binary
/// searches a run in place, and removing records (a deleted target's, which
/// are contiguous) or adding one that fits the widths is a splice of the
/// run's bytes; anything else re-encodes the run, cut into runs that fit.
///
/// A write transaction's changes are buffered (`WriteBuffer`: deltas per
/// record, pair drops) and written by `settle`, in key order, at commit or
/// before anything walks the database; `add(txn, ...)`/`remove(txn, ...)`
/// write at once (copies and format upgrades, outside a `WriteTransaction`).
public enum Backlinks {
    public static let keyBytes = 24
    /// The largest run value: four such runs and their keys fill a 4 KB page.
    public static let runLimit = 986
    public static let headerBytes = 22
    public static let checksumBytes = 4

    /// Whether any link of `schema` points to `objectClass` (which then has
    /// a backlinks database).
    public static func isTarget(_ objectClass: ObjectClass, in schema: Schema) -> Bool {
        // A mixed value may link to an object of any class but an embedded one.
        schema.classes.contains { $0.properties.contains { $0.linkTarget == objectClass.name || ($0.type == .mixed && !objectClass.isEmbedded) } }
    }

    /// A record's key (and a run's: its last record's), in `out` (24 bytes).
    @inlinable @inline(__always)
    public static func key(_ out: UnsafeMutableRawPointer, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) {
        out.storeBytes(of: UInt64(bitPattern: target).bigEndian, as: UInt64.self)
        (out + 8).storeBytes(of: originClass.bigEndian, as: UInt32.self)
        (out + 12).storeBytes(of: property.bigEndian, as: UInt32.self)
        (out + 16).storeBytes(of: UInt64(bitPattern: origin).bigEndian, as: UInt64.self)
    }

    /// One backlink record.  `pair` is origin class << 32 | origin property,
    /// so (target, pair, origin) orders records as their keys do.
    public struct Record: Equatable {
        public var target: UInt64
        public var pair: UInt64
        public var origin: UInt64
        public var count: UInt32

        @inlinable @inline(__always)
        public init(target: UInt64, pair: UInt64, origin: UInt64, count: UInt32) {
            self.target = target
            self.pair = pair
            self.origin = origin
            self.count = count
        }

        @inlinable @inline(__always)
        public init(target: Int64, originClass: UInt32, property: UInt32, origin: Int64, count: UInt32 = 1) {
            self.init(target: UInt64(bitPattern: target), pair: UInt64(originClass) << 32 | UInt64(property),
                      origin: UInt64(bitPattern: origin), count: count)
        }

        public var originClass: UInt32 { UInt32(truncatingIfNeeded: pair >> 32) }
        public var property: UInt32 { UInt32(truncatingIfNeeded: pair) }

        @inlinable @inline(__always)
        public func precedes(_ o: Record) -> Bool {
            if target != o.target { return target < o.target }
            if pair != o.pair { return pair < o.pair }
            return origin < o.origin
        }

        @inlinable @inline(__always)
        public func sameLink(_ o: Record) -> Bool { target == o.target && pair == o.pair && origin == o.origin }

        @inlinable @inline(__always)
        public func writeKey(_ out: UnsafeMutableRawPointer) {
            Backlinks.key(out, target: Int64(bitPattern: target), originClass: originClass, property: property, origin: Int64(bitPattern: origin))
        }

        public init(key k: UnsafeRawBufferPointer, count: UInt32) {
            self.init(target: UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)),
                      pair: UInt64(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt32.self))) << 32
                          | UInt64(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 12, as: UInt32.self))),
                      origin: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 16, as: UInt64.self)), count: count)
        }
    }

    /// The bytes an offset of `value` takes (0 for 0).
    @inlinable @inline(__always)
    public static func width(_ value: UInt64) -> Int { value == 0 ? 0 : (64 - value.leadingZeroBitCount + 7) >> 3 }

    @inlinable @inline(__always)
    public static func load(_ p: UnsafeRawPointer, _ w: Int) -> UInt64 {
        switch w {
        case 0: return 0
        case 1: return UInt64(p.load(as: UInt8.self))
        case 2: return UInt64(UInt16(littleEndian: p.loadUnaligned(as: UInt16.self)))
        case 3: return UInt64(UInt16(littleEndian: p.loadUnaligned(as: UInt16.self))) | UInt64((p + 2).load(as: UInt8.self)) << 16
        case 4: return UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
        case 8: return UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        default: return loadWide(p, w)
        }
    }

    /// `load` of 5 to 7 bytes (apart, so that `load` itself inlines).
    @inline(never)
    public static func loadWide(_ p: UnsafeRawPointer, _ w: Int) -> UInt64 {
        var value = UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
        for i in 4..<w { value |= UInt64((p + i).load(as: UInt8.self)) << UInt64(8 * i) }
        return value
    }

    @inlinable @inline(__always)
    public static func store(_ p: UnsafeMutableRawPointer, _ w: Int, _ value: UInt64) {
        var v = value
        for i in 0..<w {
            (p + i).storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
            v >>= 8
        }
    }

    /// The checksum of a run stored under `key`.
    @inlinable @inline(__always)
    public static func checksum(key: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> UInt32 {
        let start = fief_crc32c(0x6261_636b, key.baseAddress, key.count, ChunkCheck.hardware)
        return fief_checksum(start, body.baseAddress, body.count, ChunkCheck.hardware)
    }

    /// A stored run, read in place.
    public struct Run {
        public let bytes: UnsafeRawPointer
        public let count: Int
        public let wt: Int, wp: Int, wo: Int, wc: Int
        public let row: Int
        public let pairCount: Int
        public let firstTarget: UInt64
        public let baseOrigin: UInt64
        public let rows: UnsafeRawPointer
        /// The bytes before the checksum.
        public let size: Int

        /// The run `raw` stored under `key`, or nil if it fails its checksum
        /// or layout checks (the checksum only when `verify`: a run this
        /// read snapshot checked already, see `CheckedRuns`).
        public init?(_ raw: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, verify: Bool = true) {
            guard key.count == keyBytes, raw.count >= headerBytes + 8 + checksumBytes, raw.count <= runLimit, let base = raw.baseAddress else { return nil }
            let n = Int(UInt16(littleEndian: base.loadUnaligned(as: UInt16.self)))
            let wt = Int(base.load(fromByteOffset: 2, as: UInt8.self)), wo = Int(base.load(fromByteOffset: 3, as: UInt8.self))
            let wc = Int(base.load(fromByteOffset: 4, as: UInt8.self)), np = Int(base.load(fromByteOffset: 5, as: UInt8.self))
            guard n >= 1, wt <= 8, wo <= 8, wc <= 4, np >= 1 else { return nil }
            let wp = np > 1 ? 1 : 0
            let row = wt + wp + wo + wc
            let header = headerBytes + 8 * np
            guard raw.count == header + n * row + checksumBytes else { return nil }
            let body = UnsafeRawBufferPointer(start: base, count: raw.count - checksumBytes)
            if verify {
                guard UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: body.count, as: UInt32.self)) == checksum(key: key, body) else { return nil }
            }
            self.bytes = base
            self.count = n
            self.wt = wt; self.wp = wp; self.wo = wo; self.wc = wc
            self.row = row
            self.pairCount = np
            self.firstTarget = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 6, as: UInt64.self))
            self.baseOrigin = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 14, as: UInt64.self))
            self.rows = base + header
            self.size = body.count
        }

        @inline(__always) public func target(_ i: Int) -> UInt64 { firstTarget &+ load(rows + i * row, wt) }
        @inline(__always) public func pairIndex(_ i: Int) -> Int { wp == 0 ? 0 : min(Int((rows + i * row + wt).load(as: UInt8.self)), pairCount - 1) }
        @inline(__always) public func pair(at index: Int) -> UInt64 {
            let p = bytes + headerBytes + 8 * index
            return UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self))) << 32
                | UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        }
        @inline(__always) public func pair(_ i: Int) -> UInt64 { pair(at: pairIndex(i)) }
        @inline(__always) public func origin(_ i: Int) -> UInt64 { baseOrigin &+ load(rows + i * row + wt + wp, wo) }
        @inline(__always) public func count(_ i: Int) -> UInt32 { wc == 0 ? 1 : UInt32(truncatingIfNeeded: load(rows + i * row + wt + wp + wo, wc)) }
        @inline(__always) public func record(_ i: Int) -> Record { Record(target: target(i), pair: pair(i), origin: origin(i), count: count(i)) }

        /// The index of the pair in the table, if there.
        public func pairIndex(of pair: UInt64) -> Int? {
            for i in 0..<pairCount where self.pair(at: i) == pair { return i }
            return nil
        }

        /// The first row not before `r` (by target, pair, origin).
        public func lowerBound(_ r: Record) -> Int {
            var low = 0, high = count
            while low < high {
                let mid = (low + high) >> 1
                let t = target(mid)
                let before: Bool
                if t != r.target { before = t < r.target } else {
                    let p = pair(mid)
                    before = p != r.pair ? p < r.pair : origin(mid) < r.origin
                }
                if before { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// Whether row `i` comes before record `r` (by target, pair, origin).
        @inlinable @inline(__always)
        public func isBefore(_ i: Int, _ r: Record) -> Bool {
            let t = target(i)
            if t != r.target { return t < r.target }
            let p = pair(i)
            return p != r.pair ? p < r.pair : origin(i) < r.origin
        }

        /// `lowerBound(r)`, searched outward from row `guess` in growing
        /// steps, then by halves: a guess near the answer reads few rows
        /// (and cache lines) of the run; any guess gives the same answer.
        public func lowerBound(_ r: Record, near guess: Int) -> Int {
            let g = min(max(guess, 0), count - 1)
            var low: Int, high: Int
            if isBefore(g, r) {
                // The answer is after g: rows below `low` come before r, row `bound` (if any) does not.
                low = g + 1
                var bound = g + 1, step = 1
                while bound < count && isBefore(bound, r) {
                    low = bound + 1
                    bound += step
                    step <<= 1
                }
                high = min(bound, count)
            } else {
                // The answer is g or before: row `high` does not come before r, row `bound` (if any) does.
                high = g
                var bound = g - 1, step = 1
                while bound >= 0 && !isBefore(bound, r) {
                    high = bound
                    bound -= step
                    step <<= 1
                }
                low = max(bound + 1, 0)
            }
            while low < high {
                let mid = (low + high) >> 1
                if isBefore(mid, r) { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// Where the first record of `target` probably is, for
        /// `lowerBound(_:near:)`: by interpolation between the run's base
        /// target and its last target `last` (records spread evenly over
        /// the targets, as a cluster's objects' records mostly do).
        @inlinable @inline(__always)
        public func guess(_ target: UInt64, last: UInt64) -> Int {
            guard target > firstTarget, last > firstTarget else { return 0 }
            if target >= last { return count - 1 }
            return Int(Double(target - firstTarget) / Double(last - firstTarget + 1) * Double(count))
        }

        /// The first row from `start` on whose (target, pair) is above
        /// (`target`, `pair`), the rows from `start` on not being below
        /// them: searched forward from `start` in growing steps, then by
        /// halves (a target's records are usually few, and next to `start`).
        public func upperBound(target: UInt64, pair: UInt64, from start: Int) -> Int {
            @inline(__always) func isAbove(_ i: Int) -> Bool {
                let t = self.target(i)
                return t != target ? t > target : self.pair(i) > pair
            }
            var low = start, bound = start, step = 1
            while bound < count && !isAbove(bound) {
                low = bound + 1
                bound += step
                step <<= 1
            }
            var high = min(bound, count)
            while low < high {
                let mid = (low + high) >> 1
                if isAbove(mid) { high = mid } else { low = mid + 1 }
            }
            return low
        }

        /// The first row whose target is not below `target`.
        public func lowerBound(target: UInt64) -> Int {
            var low = 0, high = count
            while low < high {
                let mid = (low + high) >> 1
                if self.target(mid) < target { low = mid + 1 } else { high = mid }
            }
            return low
        }

        public func records() -> [Record] { (0..<count).map { record($0) } }

        /// Whether the rows are strictly ascending and the last is `key`
        /// (`fief verify`).
        public func isOrdered(key: UnsafeRawBufferPointer) -> Bool {
            for i in 1..<max(count, 1) where !record(i - 1).precedes(record(i)) { return false }
            for i in 0..<count where count(i) == 0 { return false }
            for i in 1..<max(pairCount, 1) where pair(at: i - 1) >= pair(at: i) { return false }
            return Record(key: key, count: 1).sameLink(record(count - 1))
        }
    }

    /// The runs whose checksum was checked in one read snapshot, by the
    /// address of their value: a snapshot's pages never change while it
    /// lives, so a run read again (the backlinks of the same owners, query
    /// after query) is not checksummed again.  Never used in a write
    /// transaction, whose dirty pages change in place.  Open addressing over
    /// the addresses (0: empty slot), a multiplicative hash; the slots are
    /// held without reference counting (read on every backlink read).
    public final class CheckedRuns {
        @usableFromInline var slots: UnsafeMutablePointer<UInt>
        @usableFromInline var mask = 63
        private var count = 0

        public init() {
            slots = .allocate(capacity: 64)
            slots.initialize(repeating: 0, count: 64)
        }

        deinit { slots.deallocate() }

        @inlinable @inline(__always)
        public func slot(_ address: UInt) -> Int {
            Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
        }

        @inlinable @inline(__always)
        public func contains(_ run: UnsafeRawPointer) -> Bool {
            let address = UInt(bitPattern: run)
            var i = slot(address)
            while slots[i] != 0 {
                if slots[i] == address { return true }
                i = (i + 1) & mask
            }
            return false
        }

        public func insert(_ run: UnsafeRawPointer) {
            let address = UInt(bitPattern: run)
            var i = slot(address)
            while slots[i] != 0 {
                if slots[i] == address { return }
                i = (i + 1) & mask
            }
            slots[i] = address
            count += 1
            if count * 2 > mask {
                let old = slots, oldSize = mask + 1
                slots = .allocate(capacity: oldSize * 2)
                slots.initialize(repeating: 0, count: oldSize * 2)
                mask = oldSize * 2 - 1
                count = 0
                for j in 0..<oldSize where old[j] != 0 { insert(UnsafeRawPointer(bitPattern: old[j])!) }
                old.deallocate()
            }
        }
    }

    /// Where the runs of one backlinks database lie in one read snapshot,
    /// by their keys (their last records), so that finding the run that
    /// holds a record is a binary search in memory instead of a seek
    /// through LMDB's pages.  Made only once the snapshot has sought in the
    /// database often (an eighth as many seeks as there are runs, at least
    /// 32: `shouldBuild`), by one walk over the runs' keys (their values are
    /// not read; each is checked when first used), so a snapshot that reads
    /// a few backlinks never pays for it, and one that reads many pays about
    /// what a few more seeks cost.  Never in a write transaction, whose
    /// runs move as they change.  Held without reference counting (read on
    /// every backlink read).
    public final class RunDirectory {
        public struct Entry {
            /// The run's last record (its key), but its target.
            public var pair: UInt64
            public var origin: UInt64
            /// Where its key and value lie in the map.
            public var key: UnsafeRawPointer
            public var value: UnsafeRawPointer
            public var size: Int
        }

        /// Per run, ascending: its last record's target (searched apart:
        /// eight bytes a run), and the rest.
        @usableFromInline var targets: UnsafeMutablePointer<UInt64>?
        @usableFromInline var entries: UnsafeMutablePointer<Entry>?
        public private(set) var count = 0
        public private(set) var isBuilt = false
        private var seeks = 0
        private var threshold = -1

        deinit {
            targets?.deallocate()
            entries?.deallocate()
        }

        /// Count one seek in database `dbi` of `txn`; whether the directory
        /// should be made now.
        public func shouldBuild(_ txn: OpaquePointer, _ dbi: MDB_dbi) -> Bool {
            if threshold < 0 {
                var stat = MDB_stat()
                threshold = mdb_stat(txn, dbi, &stat) == 0 ? max(32, Int(stat.ms_entries) / 8) : Int.max
            }
            seeks += 1
            return seeks >= threshold
        }

        /// Walk every run of database `dbi` of `txn` (a read snapshot's).
        public func build(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
            var stat = MDB_stat()
            try LMDB.check(mdb_stat(txn, dbi, &stat), "reading links")
            let capacity = max(Int(stat.ms_entries), 1)
            let t = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
            let e = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
            var n = 0
            do throws(FiefError) {
                let cursor = try LMDBCursor(txn, dbi)
                var entry = try cursor.move(MDB_FIRST)
                while let (k, v) = entry {
                    guard n < capacity, k.count == keyBytes, let key = k.baseAddress, let value = v.baseAddress else { throw damaged() }
                    let last = Record(key: k, count: 1)
                    t[n] = last.target
                    (e + n).initialize(to: Entry(pair: last.pair, origin: last.origin, key: key, value: value, size: v.count))
                    n += 1
                    entry = try cursor.next()
                }
            } catch {
                t.deallocate()
                e.deallocate()
                throw error
            }
            targets = t
            entries = e
            count = n
            isBuilt = true
        }

        /// The first run whose last record is not below `r` (`count`: none),
        /// the run an `MDB_SET_RANGE` to `r` finds: a search of the targets
        /// without branches, then past the runs ending at `r`'s target before it.
        @inlinable @inline(__always)
        public func find(_ r: Record) -> Int {
            guard let t = targets, let e = entries, count > 0 else { return 0 }
            var base = 0, length = count
            while length > 1 {
                let half = length >> 1
                base = t[base + half - 1] < r.target ? base + half : base
                length -= half
            }
            var i = base + (t[base] < r.target ? 1 : 0)
            while i < count && t[i] == r.target && (e[i].pair < r.pair || (e[i].pair == r.pair && e[i].origin < r.origin)) { i += 1 }
            return i
        }

        /// Run `i`'s last target, key and value (i < count).
        @inlinable @inline(__always)
        public func run(_ i: Int) -> (lastTarget: UInt64, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            let entry = entries![i]
            return (targets![i], UnsafeRawBufferPointer(start: entry.key, count: keyBytes), UnsafeRawBufferPointer(start: entry.value, count: entry.size))
        }
    }

    // MARK: Encoding

    /// The size of `records` encoded as one run (checksum included).
    public static func encodedSize(_ records: ArraySlice<Record>) -> Int {
        var pairs: [UInt64] = []
        var maxOrigin: UInt64 = 0, minOrigin = UInt64.max, maxCount: UInt32 = 0
        for r in records {
            if !pairs.contains(r.pair) { pairs.append(r.pair) }
            maxOrigin = max(maxOrigin, r.origin); minOrigin = min(minOrigin, r.origin); maxCount = max(maxCount, r.count)
        }
        let wt = width(records.last!.target - records.first!.target)
        let wo = width(maxOrigin - minOrigin)
        let wc = maxCount <= 1 ? 0 : width(UInt64(maxCount))
        let wp = pairs.count > 1 ? 1 : 0
        return headerBytes + 8 * pairs.count + records.count * (wt + wp + wo + wc) + checksumBytes
    }

    /// Encode `records` (sorted, at most 255 pairs) as one run into `out`
    /// (`encodedSize` bytes), stored under `key`.
    public static func encode(_ records: ArraySlice<Record>, into out: UnsafeMutableRawPointer, key: UnsafeRawBufferPointer) -> Int {
        var pairs: [UInt64] = []
        var maxOrigin: UInt64 = 0, minOrigin = UInt64.max, maxCount: UInt32 = 0
        for r in records {
            if !pairs.contains(r.pair) { pairs.append(r.pair) }
            maxOrigin = max(maxOrigin, r.origin); minOrigin = min(minOrigin, r.origin); maxCount = max(maxCount, r.count)
        }
        pairs.sort()
        let first = records.first!.target
        let wt = width(records.last!.target - first)
        let wo = width(maxOrigin - minOrigin)
        let wc = maxCount <= 1 ? 0 : width(UInt64(maxCount))
        let wp = pairs.count > 1 ? 1 : 0
        let row = wt + wp + wo + wc
        out.storeBytes(of: UInt16(records.count).littleEndian, as: UInt16.self)
        out.storeBytes(of: UInt8(wt), toByteOffset: 2, as: UInt8.self)
        out.storeBytes(of: UInt8(wo), toByteOffset: 3, as: UInt8.self)
        out.storeBytes(of: UInt8(wc), toByteOffset: 4, as: UInt8.self)
        out.storeBytes(of: UInt8(pairs.count), toByteOffset: 5, as: UInt8.self)
        (out + 6).storeBytes(of: first.littleEndian, as: UInt64.self)
        (out + 14).storeBytes(of: minOrigin.littleEndian, as: UInt64.self)
        for (i, pair) in pairs.enumerated() {
            (out + headerBytes + 8 * i).storeBytes(of: UInt32(truncatingIfNeeded: pair >> 32).littleEndian, as: UInt32.self)
            (out + headerBytes + 8 * i + 4).storeBytes(of: UInt32(truncatingIfNeeded: pair).littleEndian, as: UInt32.self)
        }
        var p = out + headerBytes + 8 * pairs.count
        for r in records {
            store(p, wt, r.target - first)
            if wp == 1 { (p + wt).storeBytes(of: UInt8(pairs.firstIndex(of: r.pair)!), as: UInt8.self) }
            store(p + wt + wp, wo, r.origin - minOrigin)
            store(p + wt + wp + wo, wc, UInt64(r.count))
            p += row
        }
        let size = p - out
        let crc = checksum(key: key, UnsafeRawBufferPointer(start: out, count: size))
        p.storeBytes(of: crc.littleEndian, as: UInt32.self)
        return size + checksumBytes
    }

    /// `records` (sorted) cut into runs that fit `runLimit`, as ranges.
    public static func cut(_ records: [Record], limit: Int = runLimit, balance: Bool = true) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = 0
        while start < records.count {
            // Grow a piece while it fits; sizes only grow with more records.
            var end = start + 1
            var pairs: [UInt64] = [records[start].pair]
            var minO = records[start].origin, maxO = minO, maxC = records[start].count
            func size(_ n: Int, _ np: Int, _ t: UInt64, _ o: UInt64, _ c: UInt32) -> Int {
                headerBytes + 8 * np + n * (width(t) + (np > 1 ? 1 : 0) + width(o) + (c <= 1 ? 0 : width(UInt64(c)))) + checksumBytes
            }
            while end < records.count {
                let r = records[end]
                let np = pairs.count + (pairs.contains(r.pair) ? 0 : 1)
                let lo = min(minO, r.origin), hi = max(maxO, r.origin), c = max(maxC, r.count)
                if np > 255 || size(end + 1 - start, np, r.target - records[start].target, hi - lo, c) > limit { break }
                if np > pairs.count { pairs.append(r.pair) }
                minO = lo; maxO = hi; maxC = c
                end += 1
            }
            pieces.append(start..<end)
            start = end
        }
        // Balance the last two pieces so a split leaves no tiny run.
        if balance && pieces.count >= 2 {
            let a = pieces[pieces.count - 2], b = pieces[pieces.count - 1]
            if b.count < a.count / 2 {
                let mid = (a.lowerBound + b.upperBound) / 2
                let left = a.lowerBound..<mid, right = mid..<b.upperBound
                if encodedSize(records[left]) <= limit && encodedSize(records[right]) <= limit {
                    pieces[pieces.count - 2] = left
                    pieces[pieces.count - 1] = right
                }
            }
        }
        return pieces
    }

    // MARK: Writing

    /// Store `records` (sorted, non-empty) as runs, each under its last
    /// record's key (plain puts: the keys may be anywhere in the database).
    public static func put(_ records: [Record], _ txn: OpaquePointer, _ dbi: MDB_dbi, cursor: OpaquePointer? = nil, balance: Bool = true) throws(FiefError) {
        try withScratch { (scratch) throws(FiefError) in
            for piece in cut(records, balance: balance) {
                records[piece.upperBound - 1].writeKey(scratch.key)
                let size = encode(records[piece], into: scratch.value, key: scratch.keyBytes)
                try putRaw(txn, dbi, scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: size), cursor: cursor, flags: 0)
            }
        }
    }

    public struct Scratch {
        public let key: UnsafeMutableRawPointer
        public let value: UnsafeMutableRawPointer
        public var keyBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: key, count: Backlinks.keyBytes) }
        @usableFromInline init(key: UnsafeMutableRawPointer, value: UnsafeMutableRawPointer) { self.key = key; self.value = value }
    }

    /// Scratch space for a key and a run (on the stack).
    @inlinable @inline(__always)
    public static func withScratch<R>(_ body: (Scratch) throws(FiefError) -> R) throws(FiefError) -> R {
        try typed {
            try withUnsafeTemporaryAllocation(byteCount: 32 + 2 * runLimit + 64, alignment: 16) { (raw) throws -> R in
                try body(Scratch(key: raw.baseAddress!, value: raw.baseAddress! + 32))
            }
        }
    }

    @inlinable @inline(__always)
    public static func putRaw(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
                       cursor: OpaquePointer?, flags: UInt32) throws(FiefError) {
        var k = LMDB.val(key)
        var v = LMDB.val(value)
        let rc = cursor.map { mdb_cursor_put($0, &k, &v, flags) } ?? mdb_put(txn, dbi, &k, &v, flags)
        try LMDB.check(rc, "writing links")
    }

    public static func damaged() -> FiefError {
        FiefError(.fileCorrupt, "a stored run of links (backlinks) is damaged")
    }

    /// Count one more link from (`originClass`, `property`, `origin`) to `target`.
    public static func add(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) throws(FiefError) {
        try change(txn, dbi, Record(target: target, originClass: originClass, property: property, origin: origin), by: 1)
    }

    /// Count one link fewer (the record goes at zero).
    public static func remove(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) throws(FiefError) {
        try change(txn, dbi, Record(target: target, originClass: originClass, property: property, origin: origin), by: -1)
    }

    private static func change(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ record: Record, by delta: Int64) throws(FiefError) {
        var cursor: OpaquePointer?
        try DamagedTrees.check(txn, dbi)
        try LMDB.check(mdb_cursor_open(txn, dbi, &cursor), "opening a cursor")
        defer { mdb_cursor_close(cursor) }
        try withScratch { (scratch) throws(FiefError) in
            record.writeKey(scratch.key)
            var k = LMDB.val(scratch.keyBytes)
            var v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE)
            if rc == MDB_NOTFOUND {
                // Past the last run: it joins the last one (a new last key), or starts the first.
                guard delta > 0 else { return }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_LAST)
                if rc == MDB_NOTFOUND {
                    try put([record], txn, dbi)
                    return
                }
                try LMDB.check(rc, "reading links")
                guard let run = Run(LMDB.bytes(v), key: LMDB.bytes(k)) else { throw damaged() }
                if record.origin >= run.baseOrigin, width(record.target - run.firstTarget) <= run.wt,
                   width(record.origin - run.baseOrigin) <= run.wo, run.size + run.row + checksumBytes <= runLimit,
                   let p = run.pairIndex(of: record.pair) {
                    // Appended to the last run, which takes its key.
                    memcpy(scratch.value, run.bytes, run.size)
                    let row = scratch.value + run.size
                    store(row, run.wt, record.target - run.firstTarget)
                    if run.wp == 1 { (row + run.wt).storeBytes(of: UInt8(p), as: UInt8.self) }
                    store(row + run.wt + run.wp, run.wo, record.origin - run.baseOrigin)
                    store(row + run.wt + run.wp + run.wo, run.wc, 1)
                    let size = run.size + run.row
                    scratch.value.storeBytes(of: UInt16(run.count + 1).littleEndian, as: UInt16.self)
                    try LMDB.check(mdb_cursor_del(cursor, 0), "writing links")
                    record.writeKey(scratch.key)
                    let crc = checksum(key: scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: size))
                    (scratch.value + size).storeBytes(of: crc.littleEndian, as: UInt32.self)
                    try putRaw(txn, dbi, scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: size + checksumBytes),
                               cursor: nil, flags: 0)
                    return
                }
                var records = run.records()
                records.append(record)
                try LMDB.check(mdb_cursor_del(cursor, 0), "writing links")
                // Growing at the end: the full run stays full, the new one takes the rest.
                try put(records, txn, dbi, balance: false)
                return
            }
            try LMDB.check(rc, "reading links")
            let storedKey = LMDB.bytes(k)
            guard let run = Run(LMDB.bytes(v), key: storedKey) else { throw damaged() }
            let i = run.lowerBound(record)
            let present = i < run.count && run.record(i).sameLink(record)
            if present {
                let count = Int64(run.count(i)) + delta
                if count <= 0 {
                    try removeRows(run, i..<(i + 1), cursor: cursor!, txn: txn, dbi: dbi, key: storedKey, scratch: scratch)
                    return
                }
                if run.wc > 0 && width(UInt64(count)) <= run.wc {
                    // The count changes in place: same size.
                    memcpy(scratch.value, run.bytes, run.size)
                    store(scratch.value + (run.rows - run.bytes) + i * run.row + run.wt + run.wp + run.wo, run.wc, UInt64(count))
                    try rewrite(scratch.value, run.size, cursor: cursor!, key: storedKey, scratch: scratch)
                    return
                }
                var records = run.records()
                records[i].count = UInt32(truncatingIfNeeded: count)
                try replace(records, cursor: cursor!, txn: txn, dbi: dbi, key: storedKey, scratch: scratch)
                return
            }
            guard delta > 0 else { return }
            // A new record at row i (< count: the run's last record follows it).
            if i > 0 || record.target >= run.firstTarget, record.origin >= run.baseOrigin,
               width(record.target - run.firstTarget) <= run.wt, width(record.origin - run.baseOrigin) <= run.wo,
               run.size + run.row + checksumBytes <= runLimit, let p = run.pairIndex(of: record.pair) {
                // It fits the run's widths and pairs: spliced in.
                let at = (run.rows - run.bytes) + i * run.row
                memcpy(scratch.value, run.bytes, at)
                let row = scratch.value + at
                store(row, run.wt, record.target - run.firstTarget)
                if run.wp == 1 { (row + run.wt).storeBytes(of: UInt8(p), as: UInt8.self) }
                store(row + run.wt + run.wp, run.wo, record.origin - run.baseOrigin)
                store(row + run.wt + run.wp + run.wo, run.wc, 1)
                memcpy(row + run.row, run.bytes + at, run.size - at)
                let size = run.size + run.row
                scratch.value.storeBytes(of: UInt16(run.count + 1).littleEndian, as: UInt16.self)
                try rewrite(scratch.value, size, cursor: cursor!, key: storedKey, scratch: scratch)
                return
            }
            var records = run.records()
            records.insert(record, at: i)
            try replace(records, cursor: cursor!, txn: txn, dbi: dbi, key: storedKey, scratch: scratch)
        }
    }

    /// Store `size` bytes at `body` (checksum added) in place of the run the
    /// cursor is on, whose key stays.
    private static func rewrite(_ body: UnsafeMutableRawPointer, _ size: Int, cursor: OpaquePointer, key: UnsafeRawBufferPointer,
                                scratch: Scratch) throws(FiefError) {
        // The key is copied first: the put may move the page it is on.
        scratch.key.copyMemory(from: key.baseAddress!, byteCount: keyBytes)
        let crc = checksum(key: scratch.keyBytes, UnsafeRawBufferPointer(start: body, count: size))
        (body + size).storeBytes(of: crc.littleEndian, as: UInt32.self)
        var k = LMDB.val(scratch.keyBytes)
        var v = MDB_val(mv_size: size + checksumBytes, mv_data: body)
        try LMDB.check(mdb_cursor_put(cursor, &k, &v, UInt32(MDB_CURRENT)), "writing links")
    }

    /// Replace the run the cursor is on (stored under `key`) by `records`
    /// (sorted, with the same last record), cut into runs that fit.
    private static func replace(_ records: [Record], cursor: OpaquePointer, txn: OpaquePointer, dbi: MDB_dbi, key: UnsafeRawBufferPointer,
                                scratch: Scratch) throws(FiefError) {
        let pieces = cut(records)
        if pieces.count == 1 {
            scratch.key.copyMemory(from: key.baseAddress!, byteCount: keyBytes)
            let size = encode(records[...], into: scratch.value, key: scratch.keyBytes)
            var k = LMDB.val(scratch.keyBytes)
            var v = MDB_val(mv_size: size, mv_data: scratch.value)
            try LMDB.check(mdb_cursor_put(cursor, &k, &v, UInt32(MDB_CURRENT)), "writing links")
            return
        }
        try LMDB.check(mdb_cursor_del(cursor, 0), "writing links")
        try put(records, txn, dbi)
    }

    /// Remove rows `rows` of the run the cursor is on (stored under `key`).
    private static func removeRows(_ run: Run, _ rows: Range<Int>, cursor: OpaquePointer, txn: OpaquePointer, dbi: MDB_dbi,
                                   key: UnsafeRawBufferPointer, scratch: Scratch) throws(FiefError) {
        if rows.count == run.count {
            try LMDB.check(mdb_cursor_del(cursor, 0), "writing links")
            return
        }
        if rows.upperBound == run.count {
            // The last rows go: the run gets its new last record's key.
            let last = run.record(rows.lowerBound - 1)
            let at = (run.rows - run.bytes) + rows.lowerBound * run.row
            memcpy(scratch.value, run.bytes, at)
            scratch.value.storeBytes(of: UInt16(rows.lowerBound).littleEndian, as: UInt16.self)
            try LMDB.check(mdb_cursor_del(cursor, 0), "writing links")
            last.writeKey(scratch.key)
            let crc = checksum(key: scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: at))
            (scratch.value + at).storeBytes(of: crc.littleEndian, as: UInt32.self)
            try putRaw(txn, dbi, scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: at + checksumBytes), cursor: nil, flags: 0)
            return
        }
        let from = (run.rows - run.bytes) + rows.lowerBound * run.row
        let to = (run.rows - run.bytes) + rows.upperBound * run.row
        memcpy(scratch.value, run.bytes, from)
        memcpy(scratch.value + from, run.bytes + to, run.size - to)
        scratch.value.storeBytes(of: UInt16(run.count - rows.count).littleEndian, as: UInt16.self)
        try rewrite(scratch.value, run.size - (to - from), cursor: cursor, key: key, scratch: scratch)
    }

    // MARK: Reading

    /// Every record for `target` (optionally only from `originClass` and
    /// `property`), in key order: origin class, property, object and count.
    /// `pairs`: the (class, property) pairs that may link to the target's
    /// class (`Table.backlinkPairs`); when no record is found, the run
    /// read must name none but those (a run of another class's backlinks
    /// in its place passes its checksum, which binds its key, not its
    /// class): otherwise it is damage.  Checked only then, so a lookup that
    /// finds records costs nothing more.
    public static func forEach(_ txn: OpaquePointer, _ dbi: MDB_dbi, target: Int64, originClass: UInt32? = nil, property: UInt32? = nil,
                        pairs: Set<UInt64>? = nil,
                        _ body: (UInt32, UInt32, Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        let first = Record(target: target, originClass: originClass ?? 0, property: property ?? 0, origin: 0)
        let t = first.target, pair = first.pair
        var keyBuffer = (UInt64(0), UInt64(0), UInt64(0))
        var cursor: OpaquePointer?
        var found = false
        var firstRun: Run?
        try DamagedTrees.check(txn, dbi)
        try LMDB.check(mdb_cursor_open(txn, dbi, &cursor), "opening a cursor")
        defer { mdb_cursor_close(cursor) }
        try withUnsafeMutableBytes(of: &keyBuffer) { (raw) throws(FiefError) in
            first.writeKey(raw.baseAddress!)
            var k = LMDB.val(UnsafeRawBufferPointer(raw))
            var v = MDB_val()
            var rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE)
            var start = true
            while rc == 0 {
                guard let run = Run(LMDB.bytes(v), key: LMDB.bytes(k)) else { throw damaged() }
                if start { firstRun = run }
                var i = start ? run.lowerBound(first) : 0
                start = false
                while i < run.count {
                    guard run.target(i) == t else { return }
                    let p = run.pair(i)
                    if originClass != nil && (property == nil ? p >> 32 != pair >> 32 : p != pair) { return }
                    try body(UInt32(truncatingIfNeeded: p >> 32), UInt32(truncatingIfNeeded: p), Int64(bitPattern: run.origin(i)), run.count(i))
                    found = true
                    i += 1
                }
                rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
            }
            if rc != MDB_NOTFOUND { try LMDB.check(rc, "reading links") }
        }
        if !found, let pairs, let run = firstRun {
            for j in 0..<run.pairCount where !pairs.contains(run.pair(at: j)) { throw damaged() }
        }
    }

    /// Every record of the database, in order: target, origin class,
    /// property, object and count.
    public static func forEachRecord(_ txn: OpaquePointer, _ dbi: MDB_dbi,
                              _ body: (Int64, UInt32, UInt32, Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        while let (k, v) = entry {
            guard let run = Run(v, key: k) else { throw damaged() }
            for i in 0..<run.count {
                let r = run.record(i)
                try body(Int64(bitPattern: r.target), r.originClass, r.property, Int64(bitPattern: r.origin), r.count)
            }
            entry = try cursor.next()
        }
    }

    /// How many records the database holds, every run checked (checksum,
    /// layout, order, key); throws on a damaged run.
    public static func recordCount(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) -> Int {
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        var total = 0
        var previous: Record? = nil
        while let (k, v) = entry {
            guard let run = Run(v, key: k), run.isOrdered(key: k) else { throw damaged() }
            if let previous, !previous.precedes(run.record(0)) { throw damaged() }
            previous = run.record(run.count - 1)
            total += run.count
            entry = try cursor.next()
        }
        return total
    }

    /// Delete every record for `target` with `cursor` (on the backlinks
    /// database), appending each to `into` first: origin class, property,
    /// object and count.  The records are contiguous: usually a splice of
    /// one run.
    public static func take(_ cursor: LMDBCursor, target: Int64, into referrers: inout [(UInt32, UInt32, Int64, UInt32)]) throws(FiefError) {
        let t = UInt64(bitPattern: target)
        let txn = mdb_cursor_txn(cursor.pointer)!
        let dbi = mdb_cursor_dbi(cursor.pointer)
        try withScratch { (scratch) throws(FiefError) in
            while true {
                // Sought again after each change: the run's key or place may have changed.
                Record(target: t, pair: 0, origin: 0, count: 0).writeKey(scratch.key)
                var k = LMDB.val(scratch.keyBytes)
                var v = MDB_val()
                let rc = mdb_cursor_get(cursor.pointer, &k, &v, MDB_SET_RANGE)
                if rc == MDB_NOTFOUND { return }
                try LMDB.check(rc, "reading links")
                let storedKey = LMDB.bytes(k)
                guard let run = Run(LMDB.bytes(v), key: storedKey) else { throw damaged() }
                let i = run.lowerBound(target: t)
                var j = i
                while j < run.count && run.target(j) == t {
                    let p = run.pair(j)
                    referrers.append((UInt32(truncatingIfNeeded: p >> 32), UInt32(truncatingIfNeeded: p), Int64(bitPattern: run.origin(j)), run.count(j)))
                    j += 1
                }
                if i == j { return }
                try removeRows(run, i..<j, cursor: cursor.pointer, txn: txn, dbi: dbi, key: storedKey, scratch: scratch)
                // Rows after them in the run: the target's records ended there.
                if j < run.count { return }
            }
        }
    }

    /// Delete every record made by link `property` of class `originClass`
    /// (a property being dropped) from a class's backlinks: one walk over
    /// the runs, each holding that pair rewritten without it.  Returns how
    /// many records went.
    @discardableResult
    public static func removeAll(_ txn: OpaquePointer, _ dbi: MDB_dbi, originClass: UInt32, property: UInt32) throws(FiefError) -> Int {
        let pair = UInt64(originClass) << 32 | UInt64(property)
        var removed = 0
        var changed: [(key: [UInt8], records: [Record])] = []
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        while let (k, v) = entry {
            guard let run = Run(v, key: k) else { throw damaged() }
            if run.pairIndex(of: pair) != nil {
                let kept = run.records().filter { $0.pair != pair }
                removed += run.count - kept.count
                if kept.count != run.count { changed.append((Array(k), kept)) }
            }
            entry = try cursor.next()
        }
        for (key, kept) in changed {
            try key.withBytes { (k) throws(FiefError) in try LMDB.delete(txn, dbi, k) }
            if !kept.isEmpty { try put(kept, txn, dbi) }
        }
        return removed
    }

    /// Replace a format-4 backlinks database's contents (one entry per
    /// record: the record's key, a UInt32 count) with runs (`FormatUpgrade`).
    public static func upgradeFromFormat4(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        var records: [Record] = []
        do {
            let cursor = try LMDBCursor(txn, dbi)
            var entry = try cursor.move(MDB_FIRST)
            while let (k, v) = entry {
                guard k.count == keyBytes, v.count == 4 else {
                    throw FiefError(.fileCorrupt, "a stored link (format 4) is damaged (\(k.count)-byte key, \(v.count)-byte count)")
                }
                records.append(Record(key: k, count: UInt32(littleEndian: v.loadUnaligned(as: UInt32.self))))
                entry = try cursor.next()
            }
        }
        try LMDB.check(mdb_drop(txn, dbi, 0), "upgrading links")
        if records.isEmpty { return }
        // In key order, appended: LMDB fills its pages.
        let cursor = try LMDBCursor(txn, dbi)
        try withScratch { (scratch) throws(FiefError) in
            for piece in cut(records, balance: false) {
                records[piece.upperBound - 1].writeKey(scratch.key)
                let size = encode(records[piece], into: scratch.value, key: scratch.keyBytes)
                try putRaw(txn, dbi, scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: size),
                           cursor: cursor.pointer, flags: UInt32(MDB_APPEND))
            }
        }
    }
}

// MARK: - Buffered, in a write transaction

/// A write transaction's backlink changes are *deltas* in its
/// `WriteBuffer` (one per database: (target, pair, origin) → count change,
/// no cursor, no LMDB call), and *pair drops* (every record of one
/// (origin class, property) pair goes).  `settle` writes a database's
/// buffer in key order, each run it touches read and put once; the commit
/// settles what is left.  Reads of one target merge its deltas with what
/// LMDB holds (`forEach(_ write:...)`, `take(_ write:...)`); anything that
/// walks a whole database settles it first.
extension Backlinks {
    /// Count one more link from (`originClass`, `property`, `origin`) to `target`.
    @inline(__always)
    public static func add(_ write: WriteTransaction, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) throws(FiefError) {
        try buffer(write, dbi, Record(target: target, originClass: originClass, property: property, origin: origin), 1)
    }

    /// Count one link fewer (the record goes at zero).
    @inline(__always)
    public static func remove(_ write: WriteTransaction, _ dbi: MDB_dbi, target: Int64, originClass: UInt32, property: UInt32, origin: Int64) throws(FiefError) {
        try buffer(write, dbi, Record(target: target, originClass: originClass, property: property, origin: origin), -1)
    }

    @inline(__always)
    private static func buffer(_ write: WriteTransaction, _ dbi: MDB_dbi, _ record: Record, _ change: Int32) throws(FiefError) {
        try DamagedTrees.check(write.txn, dbi)
        write.buffer.deltas(dbi).add(record.target, record.pair, record.origin, change)
        if write.buffer.noteAdded() { try settleLargest(write) }
    }

    /// Past the budget: the largest database buffer is written now.
    @inline(never)
    private static func settleLargest(_ write: WriteTransaction) throws(FiefError) {
        if let largest = write.buffer.largestDatabase { try settle(write, largest) }
    }

    /// Every record of pair (`originClass`, `property`) goes from database
    /// `dbi` (every object of `originClass` is being deleted, and with them
    /// their links of `property`), in the next settle's walk.
    public static func dropPair(_ write: WriteTransaction, _ dbi: MDB_dbi, originClass: UInt32, property: UInt32) throws(FiefError) {
        try DamagedTrees.check(write.txn, dbi)
        write.buffer.deltas(dbi).drop(b: UInt64(originClass) << 32 | UInt64(property))
    }

    /// Write what the buffer holds for database `dbi`, in key order.
    public static func settle(_ write: WriteTransaction, _ dbi: MDB_dbi) throws(FiefError) {
        guard let table = write.buffer.pendingDeltas(dbi) else { return }
        let dropped = table.droppedB
        let deltas = table.sorted()
        write.buffer.discard(dbi)
        try DamagedTrees.check(write.txn, dbi)
        if !dropped.isEmpty { write.noteLinkingChanges(dbi, try removePairs(write.txn, dbi, dropped)) }
        if !deltas.isEmpty {
            write.noteLinkingChanges(dbi, linkingChanges(deltas))
            try apply(deltas, write.txn, dbi)
        }
    }

    /// The targets of sorted deltas `deltas`, per link (pair): those whose
    /// linking objects changed (a delta is never 0).
    private static func linkingChanges(_ deltas: [DeltaTable.Delta]) -> [(pair: UInt64, targets: KeySet)] {
        var gathered = LinkingTargets()
        for d in deltas { gathered.add(d.a, pair: d.b) }
        return gathered.finish()
    }

    /// Targets gathered per link (pair), each pair's in ascending order (as
    /// records and sorted deltas come): a set is built a cluster's bitmap at
    /// a time and appended, not key by key.
    struct LinkingTargets {
        private var found: [(pair: UInt64, targets: KeySet)] = []
        /// Per pair (as `found`): the cluster being filled and its slots.
        private var filling: [(cluster: Int64, bits: Bitmap)] = []
        private var index = -1

        mutating func add(_ target: UInt64, pair: UInt64) {
            if index < 0 || found[index].pair != pair {
                if let at = found.firstIndex(where: { $0.pair == pair }) {
                    index = at
                } else {
                    found.append((pair, KeySet()))
                    filling.append((Int64.min, Bitmap(repeating: 0)))
                    index = found.count - 1
                }
            }
            let key = Int64(bitPattern: target)
            let cluster = ClusterLayout.cluster(of: key)
            if cluster != filling[index].cluster {
                if filling[index].cluster != Int64.min { found[index].targets.add(filling[index].bits, cluster: filling[index].cluster) }
                filling[index] = (cluster, Bitmap(repeating: 0))
            }
            let slot = ClusterLayout.slot(of: key)
            filling[index].bits[slot >> 6] |= 1 << UInt64(slot & 63)
        }

        mutating func finish() -> [(pair: UInt64, targets: KeySet)] {
            for (at, last) in filling.enumerated() where last.cluster != Int64.min {
                found[at].targets.add(last.bits, cluster: last.cluster)
            }
            filling = []
            return found
        }
    }

    /// Write every database's buffer (at commit).
    public static func settleAll(_ write: WriteTransaction) throws(FiefError) {
        for dbi in write.buffer.pendingDatabases { try settle(write, dbi) }
    }

    /// Apply sorted deltas: one walk of the runs they fall in, each run
    /// read once, merged, cut again and put once; deltas past the last run
    /// are joined to it and appended.
    private static func apply(_ deltas: [DeltaTable.Delta], _ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        let cursor = try LMDBCursor(txn, dbi)
        try withScratch { (scratch) throws(FiefError) in
            var i = 0
            while i < deltas.count {
                let first = deltas[i]
                Record(target: first.a, pair: first.b, origin: first.c, count: 0).writeKey(scratch.key)
                var k = LMDB.val(scratch.keyBytes)
                var v = MDB_val()
                let rc = mdb_cursor_get(cursor.pointer, &k, &v, MDB_SET_RANGE)
                if rc == MDB_NOTFOUND {
                    try appendPast(deltas[i...], cursor: cursor.pointer, txn: txn, dbi: dbi, scratch: scratch)
                    return
                }
                try LMDB.check(rc, "reading links")
                let storedKey = LMDB.bytes(k)
                guard let run = Run(LMDB.bytes(v), key: storedKey) else { throw damaged() }
                let last = Record(key: storedKey, count: 0)
                var j = i + 1
                while j < deltas.count && !last.precedes(Record(target: deltas[j].a, pair: deltas[j].b, origin: deltas[j].c, count: 0)) { j += 1 }
                let records = merged(run, deltas[i..<j])
                i = j
                if records.isEmpty {
                    try LMDB.check(mdb_cursor_del(cursor.pointer, 0), "writing links")
                } else if records[records.count - 1].sameLink(last) {
                    try replace(records, cursor: cursor.pointer, txn: txn, dbi: dbi, key: storedKey, scratch: scratch)
                } else {
                    try LMDB.check(mdb_cursor_del(cursor.pointer, 0), "writing links")
                    try put(records, txn, dbi)
                }
            }
        }
    }

    /// Deltas past the last run: the last run and the new records, cut
    /// (filling each run: the cut of records appended in key order is the
    /// same whatever transactions they came in) and appended.
    private static func appendPast(_ deltas: ArraySlice<DeltaTable.Delta>, cursor: OpaquePointer, txn: OpaquePointer, dbi: MDB_dbi,
                                   scratch: Scratch) throws(FiefError) {
        var records: [Record] = []
        var k = MDB_val(), v = MDB_val()
        let rc = mdb_cursor_get(cursor, &k, &v, MDB_LAST)
        if rc == 0 {
            guard let run = Run(LMDB.bytes(v), key: LMDB.bytes(k)) else { throw damaged() }
            records = run.records()
            records.reserveCapacity(run.count + deltas.count)
            try LMDB.check(mdb_cursor_del(cursor, 0), "writing links")
        } else if rc != MDB_NOTFOUND {
            try LMDB.check(rc, "reading links")
        }
        for d in deltas where d.change > 0 {
            records.append(Record(target: d.a, pair: d.b, origin: d.c, count: UInt32(truncatingIfNeeded: d.change)))
        }
        if records.isEmpty { return }
        for piece in cut(records, balance: false) {
            records[piece.upperBound - 1].writeKey(scratch.key)
            let size = encode(records[piece], into: scratch.value, key: scratch.keyBytes)
            try putRaw(txn, dbi, scratch.keyBytes, UnsafeRawBufferPointer(start: scratch.value, count: size),
                       cursor: cursor, flags: UInt32(MDB_APPEND))
        }
    }

    /// A run's records with sorted deltas applied (a count that reaches 0
    /// drops its record; a delta below 0 for no record changes nothing).
    public static func merged(_ run: Run, _ deltas: ArraySlice<DeltaTable.Delta>) -> [Record] {
        var out: [Record] = []
        out.reserveCapacity(run.count + deltas.count)
        var r = 0
        for d in deltas {
            let change = Record(target: d.a, pair: d.b, origin: d.c, count: 0)
            while r < run.count && run.isBefore(r, change) {
                out.append(run.record(r))
                r += 1
            }
            var count = Int64(d.change)
            if r < run.count && run.record(r).sameLink(change) {
                count += Int64(run.count(r))
                r += 1
            }
            if count > 0 { out.append(Record(target: d.a, pair: d.b, origin: d.c, count: UInt32(truncatingIfNeeded: count))) }
        }
        while r < run.count {
            out.append(run.record(r))
            r += 1
        }
        return out
    }

    /// `stored` (sorted records) with the sorted deltas of the same target applied.
    private static func merged(_ stored: [Record], _ deltas: [DeltaTable.Delta]) -> [Record] {
        var out: [Record] = []
        var r = 0
        for d in deltas {
            let change = Record(target: d.a, pair: d.b, origin: d.c, count: 0)
            while r < stored.count && stored[r].precedes(change) {
                out.append(stored[r])
                r += 1
            }
            var count = Int64(d.change)
            if r < stored.count && stored[r].sameLink(change) {
                count += Int64(stored[r].count)
                r += 1
            }
            if count > 0 { out.append(Record(target: d.a, pair: d.b, origin: d.c, count: UInt32(truncatingIfNeeded: count))) }
        }
        out.append(contentsOf: stored[r...])
        return out
    }

    /// Remove every record of `pairs` from the database: one walk over its
    /// runs, each holding one of them rewritten without it.
    @discardableResult
    private static func removePairs(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ pairs: [UInt64]) throws(FiefError) -> [(pair: UInt64, targets: KeySet)] {
        var changed: [(key: [UInt8], records: [Record])] = []
        var targets = LinkingTargets()
        do {
            let cursor = try LMDBCursor(txn, dbi)
            var entry = try cursor.move(MDB_FIRST)
            while let (k, v) = entry {
                guard let run = Run(v, key: k) else { throw damaged() }
                var holds = false
                for pair in pairs where run.pairIndex(of: pair) != nil { holds = true; break }
                if holds {
                    for i in 0..<run.count where pairs.contains(run.pair(i)) { targets.add(run.target(i), pair: run.pair(i)) }
                    changed.append((Array(k), run.pairCount == 1 ? [] : run.records().filter { !pairs.contains($0.pair) }))
                }
                entry = try cursor.next()
            }
        }
        for (key, kept) in changed {
            try key.withBytes { (k) throws(FiefError) in try LMDB.delete(txn, dbi, k) }
            if !kept.isEmpty { try put(kept, txn, dbi) }
        }
        return targets.finish()
    }

    /// `forEach` in a write transaction: what LMDB holds for `target`
    /// merged with the target's buffered deltas.
    public static func forEach(_ write: WriteTransaction, _ dbi: MDB_dbi, target: Int64, originClass: UInt32? = nil, property: UInt32? = nil,
                        pairs: Set<UInt64>? = nil,
                        _ body: (UInt32, UInt32, Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        guard let table = write.buffer.pendingDeltas(dbi) else {
            return try forEach(write.txn, dbi, target: target, originClass: originClass, property: property, pairs: pairs, body)
        }
        if !table.droppedB.isEmpty { try settle(write, dbi) }
        var deltas = write.buffer.pendingDeltas(dbi)?.sorted(a: UInt64(bitPattern: target)) ?? []
        if let originClass { deltas.removeAll { UInt32(truncatingIfNeeded: $0.b >> 32) != originClass } }
        if let property { deltas.removeAll { UInt32(truncatingIfNeeded: $0.b) != property } }
        if deltas.isEmpty {
            return try forEach(write.txn, dbi, target: target, originClass: originClass, property: property, pairs: pairs, body)
        }
        var stored: [Record] = []
        try forEach(write.txn, dbi, target: target, originClass: originClass, property: property, pairs: pairs) { (c, p, o, n) throws(FiefError) in
            stored.append(Record(target: target, originClass: c, property: p, origin: o, count: n))
        }
        for r in merged(stored, deltas) { try body(r.originClass, r.property, Int64(bitPattern: r.origin), r.count) }
    }

    /// `take` in a write transaction: the target's stored records merged
    /// with its buffered deltas, all of them gone afterwards.
    public static func take(_ write: WriteTransaction, _ cursor: LMDBCursor, target: Int64,
                     into referrers: inout [(UInt32, UInt32, Int64, UInt32)]) throws(FiefError) {
        let dbi = mdb_cursor_dbi(cursor.pointer)
        guard let table = write.buffer.pendingDeltas(dbi) else { return try take(cursor, target: target, into: &referrers) }
        if !table.droppedB.isEmpty { try settle(write, dbi) }
        let start = referrers.count
        try take(cursor, target: target, into: &referrers)
        guard let table = write.buffer.pendingDeltas(dbi) else { return }
        let t = UInt64(bitPattern: target)
        let deltas = table.sorted(a: t)
        if deltas.isEmpty { return }
        table.clear(a: t)
        let stored = referrers[start...].map { Record(target: target, originClass: $0.0, property: $0.1, origin: $0.2, count: $0.3) }
        referrers.removeSubrange(start...)
        for r in merged(stored, deltas) { referrers.append((r.originClass, r.property, Int64(bitPattern: r.origin), r.count)) }
    }
}
