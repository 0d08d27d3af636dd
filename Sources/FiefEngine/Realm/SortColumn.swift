import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// One sort key's values for every row, extracted once before sorting,
/// kept in plain buffers so comparisons touch no reference counts.  Also
/// what distinct compares: `compare` is 0 exactly when Realm's equality
/// holds (for mixed values, `MixedOrder.equal`; decimals by value).
final class SortColumn {
    let ascending: Bool
    private let count: Int
    /// 0: integers (`ints`, then `lows`), 1: doubles (decimals settled by
    /// `decimals`), 2: bytes (`prefixes`, then `strings`), 3: mixed values
    /// (`mixed`, ordered by `ranks`, then `prefixes` as `keyKinds` says,
    /// then `MixedOrder.compare`).
    private let kind: Int
    private let hasLows: Bool
    private let nulls: UnsafeMutablePointer<Bool>
    private let ints: UnsafeMutablePointer<Int64>
    private let lows: UnsafeMutablePointer<UInt64>
    private let doubles: UnsafeMutablePointer<Double>
    private let strings: UnsafeMutablePointer<UnsafeRawBufferPointer>
    private let prefixes: UnsafeMutablePointer<UInt64>
    /// Decimal128 values exactly (nil for other types): their doubles may tie.
    private let decimals: UnsafeMutablePointer<Decimal128Bits>?
    /// Mixed values (kind 3 only), with their group and how far their
    /// `prefixes` key orders them (`MixedOrder.sortKey`).
    private let mixed: UnsafeMutablePointer<Value>?
    private let ranks: UnsafeMutablePointer<UInt8>?
    private let keyKinds: UnsafeMutablePointer<MixedOrder.KeyKind>?
    /// For a key path through links: the rows whose path crosses a null
    /// link.  Realm sorts them after every value ascending and before every
    /// value descending (nulls at the end of the path are values: first
    /// ascending); distinct leaves them out.  nil for a property of the
    /// objects themselves.
    private let nullLinks: UnsafeMutablePointer<Bool>?

    /// Room for `count` rows of values of `type`, set with `set(_:_:)` (or
    /// `setMixed` for mixed values, `setNullLink` when `crossesLinks`).
    init(type: PropertyType, count n: Int, ascending: Bool, crossesLinks: Bool = false) {
        self.ascending = ascending
        count = n
        switch type {
        case .string, .binary: kind = 2
        case .float, .double, .decimal128: kind = 1
        case .mixed: kind = 3
        default: kind = 0
        }
        let rows = max(n, 1)
        hasLows = type == .objectId || type == .uuid || type == .timestamp
        nulls = .allocate(capacity: rows)
        ints = .allocate(capacity: kind == 0 ? rows : 1)
        lows = .allocate(capacity: hasLows ? rows : 1)
        doubles = .allocate(capacity: kind == 1 ? rows : 1)
        strings = .allocate(capacity: kind == 2 ? rows : 1)
        prefixes = .allocate(capacity: kind == 2 || kind == 3 ? rows : 1)
        decimals = type == .decimal128 ? .allocate(capacity: rows) : nil
        mixed = kind == 3 ? .allocate(capacity: rows) : nil
        ranks = kind == 3 ? .allocate(capacity: rows) : nil
        keyKinds = kind == 3 ? .allocate(capacity: rows) : nil
        if crossesLinks {
            let marks = UnsafeMutablePointer<Bool>.allocate(capacity: rows)
            marks.initialize(repeating: false, count: rows)
            nullLinks = marks
        } else {
            nullLinks = nil
        }
    }

    /// Row `row`'s value (a string or binary view must outlive the sort).
    @inline(__always)
    func set(_ row: Int, _ value: Value) {
        nulls[row] = false
        switch value {
        case .null:
            nulls[row] = true
            if hasLows { lows[row] = 0 }
            switch kind {
            case 0: ints[row] = 0
            case 1: doubles[row] = 0
            default: strings[row] = UnsafeRawBufferPointer(start: nil, count: 0); prefixes[row] = 0
            }
        case .int(let i), .link(_, let i): ints[row] = i
        case .bool(let b): ints[row] = b ? 1 : 0
        case .timestamp(let s, let ns):
            // Seconds, then nanoseconds (biased to sort as unsigned) when seconds tie.
            ints[row] = s
            lows[row] = UInt64(bitPattern: Int64(ns)) ^ (1 << 63)
        case .objectId(let id):
            ints[row] = Int64(bitPattern: id.high ^ (1 << 63))
            lows[row] = UInt64(id.low)
        case .uuid(let id):
            ints[row] = Int64(bitPattern: id.high ^ (1 << 63))
            lows[row] = id.low
        case .float(let f): doubles[row] = Double(f)
        case .double(let d): doubles[row] = d
        case .decimal128(let d):
            doubles[row] = DecimalArithmetic.toDouble(d)
            decimals?[row] = d
        case .string(let bytes), .binary(let bytes):
            strings[row] = bytes
            var prefix: UInt64 = 0
            if bytes.count >= 8 {
                prefix = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
            } else {
                for i in 0..<8 { prefix = prefix << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
            }
            prefixes[row] = prefix
        case .nestedList(let id), .nestedDictionary(let id):
            // Only mixed values hold these, and they go to `setMixed`.
            ints[row] = id
        }
    }

    /// Row `row`'s mixed value (kind 3; views must outlive the sort).
    @inline(__always)
    func setMixed(_ row: Int, _ value: Value) {
        nulls[row] = value.isNull
        mixed![row] = value
        ranks![row] = UInt8(MixedOrder.rank(value))
        (prefixes[row], keyKinds![row]) = MixedOrder.sortKey(value)
    }

    /// Row `row`'s value, whatever the column's type.
    @inline(__always)
    func store(_ row: Int, _ value: Value) {
        if kind == 3 { setMixed(row, value) } else { set(row, value) }
    }

    /// Row `row`'s key path crosses a null link (the column crosses links).
    @inline(__always)
    func setNullLink(_ row: Int) {
        nullLinks![row] = true
        store(row, .null)
    }

    /// Whether row `row`'s key path crosses a null link.
    @inline(__always)
    func crossesNullLink(_ row: Int) -> Bool { nullLinks?[row] ?? false }

    deinit {
        nulls.deallocate()
        ints.deallocate()
        lows.deallocate()
        doubles.deallocate()
        strings.deallocate()
        prefixes.deallocate()
        decimals?.deallocate()
        mixed?.deallocate()
        ranks?.deallocate()
        keyKinds?.deallocate()
        nullLinks?.deallocate()
    }

    /// The row's value as an unsigned 64-bit number in ascending order (for
    /// strings: their first eight bytes); rows with equal numbers may still
    /// differ (see `compare`).
    @inline(__always)
    private func radixKey(_ row: Int) -> UInt64 {
        switch kind {
        case 0: return UInt64(bitPattern: ints[row]) ^ (1 << 63)
        case 1:
            let d = doubles[row]
            let bits = d == 0 ? 0 : d.bitPattern   // -0.0 sorts with 0.0
            return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        default: return prefixes[row]
        }
    }

    /// Row `row`'s place in this column's order as one number, this
    /// column's direction included: a row with a smaller number sorts
    /// before one with a larger; rows with equal numbers need `compare`
    /// (the radix sort's key; nulls the smallest ascending, the largest
    /// descending; rows crossing a null link the other way; mixed values
    /// all equal).  Holds no view of the value, so it outlives the snapshot.
    @inline(__always)
    func orderKey(_ row: Int) -> UInt64 {
        if kind == 3 { return 0 }
        if let nullLinks, nullLinks[row] { return ascending ? .max : 0 }
        if nulls[row] { return ascending ? 0 : .max }
        return ascending ? radixKey(row) : ~radixKey(row)
    }

    /// Sort `order` (row numbers, ascending) by this column alone, stably.
    func sort(_ order: UnsafeMutableBufferPointer<Int32>) {
        if kind != 3 {
            radixSort(order)
            return
        }
        // Mixed values: groups and keys settle most comparisons.
        let up = ascending
        var order = order
        order.sort { a, b in
            let c = compare(Int(a), Int(b))
            return c != 0 ? (up ? c < 0 : c > 0) : a < b
        }
    }

    /// Sort `order` (row numbers, initially 0..<n) by this column alone
    /// (not mixed), stably: nulls first ascending (last descending), then
    /// an LSD radix sort on `radixKey`, then runs of equal radix keys by
    /// `compareValues`; rows crossing a null link last ascending (first
    /// descending).
    func radixSort(_ order: UnsafeMutableBufferPointer<Int32>) {
        let n = order.count
        if n < 2 { return }
        // Nulls apart, keeping their order.
        var nonNull: [Int32] = []
        var nullRows: [Int32] = []
        var nullLinkRows: [Int32] = []
        nonNull.reserveCapacity(n)
        if let nullLinks {
            for i in 0..<n {
                let row = order[i]
                if nullLinks[Int(row)] { nullLinkRows.append(row) } else if nulls[Int(row)] { nullRows.append(row) } else { nonNull.append(row) }
            }
        } else {
            for i in 0..<n {
                let row = order[i]
                if nulls[Int(row)] { nullRows.append(row) } else { nonNull.append(row) }
            }
        }
        let m = nonNull.count
        let keys = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(m, 1))
        let keys2 = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(m, 1))
        let rows2 = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(m, 1))
        defer { keys.deallocate(); keys2.deallocate(); rows2.deallocate() }
        let rows = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(m, 1))
        defer { rows.deallocate() }
        for i in 0..<m {
            let row = Int(nonNull[i])
            rows[i] = nonNull[i]
            let key = radixKey(row)
            keys[i] = ascending ? key : ~key
        }
        var sourceKeys = keys, sourceRows = rows
        var targetKeys = keys2, targetRows = rows2
        var counts = [Int](repeating: 0, count: 256)
        for pass in 0..<8 {
            let shift = UInt64(pass * 8)
            for b in 0..<256 { counts[b] = 0 }
            for i in 0..<m { counts[Int((sourceKeys[i] >> shift) & 0xFF)] += 1 }
            if counts.contains(m) { continue }  // every key has the same byte here
            var total = 0
            for b in 0..<256 { let c = counts[b]; counts[b] = total; total += c }
            for i in 0..<m {
                let b = Int((sourceKeys[i] >> shift) & 0xFF)
                let at = counts[b]
                counts[b] = at + 1
                targetKeys[at] = sourceKeys[i]
                targetRows[at] = sourceRows[i]
            }
            swap(&sourceKeys, &targetKeys)
            swap(&sourceRows, &targetRows)
        }
        // Equal radix keys: finish with the full comparison, stably.
        var start = 0
        while start < m {
            var end = start + 1
            while end < m && sourceKeys[end] == sourceKeys[start] { end += 1 }
            if end - start > 1 {
                var run = UnsafeMutableBufferPointer(rebasing: sourceRows[start..<end])
                let up = ascending
                run.sort { a, b in
                    let c = compareValues(Int(a), Int(b))
                    return c != 0 ? (up ? c < 0 : c > 0) : a < b
                }
            }
            start = end
        }
        var out = 0
        if !ascending { for row in nullLinkRows { order[out] = row; out += 1 } }
        if ascending { for row in nullRows { order[out] = row; out += 1 } }
        for i in 0..<m { order[out] = sourceRows[i]; out += 1 }
        if !ascending { for row in nullRows { order[out] = row; out += 1 } }
        if ascending { for row in nullLinkRows { order[out] = row; out += 1 } }
    }

    /// -1, 0 or 1: row a before, with, or after row b (ascending: nulls
    /// first, rows crossing a null link last).
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        if let nullLinks {
            let la = nullLinks[a], lb = nullLinks[b]
            if la || lb { return la == lb ? 0 : (la ? 1 : -1) }
        }
        return compareValues(a, b)
    }

    /// -1, 0 or 1: row a's value before, with, or after row b's (ascending;
    /// nulls first).
    @inline(__always)
    private func compareValues(_ a: Int, _ b: Int) -> Int {
        let na = nulls[a], nb = nulls[b]
        if na || nb { return na == nb ? 0 : (na ? -1 : 1) }
        switch kind {
        case 0:
            let x = ints[a], y = ints[b]
            if x == y {
                if !hasLows { return 0 }
                return lows[a] == lows[b] ? 0 : (lows[a] < lows[b] ? -1 : 1)
            }
            return x < y ? -1 : 1
        case 1:
            let x = doubles[a], y = doubles[b]
            if x == y {
                // Decimals rounding to one double: by their exact values.
                if let decimals { return MixedOrder.compareNumbers(.decimal128(decimals[a]), .decimal128(decimals[b])) }
                return 0
            }
            return x < y ? -1 : 1
        case 2:
            let pa = prefixes[a], pb = prefixes[b]
            if pa != pb { return pa < pb ? -1 : 1 }
            let x = strings[a], y = strings[b]
            if x.count <= 8 && y.count <= 8 { return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1) }
            let n = min(x.count, y.count)
            let c = n <= 8 ? 0 : Int(memcmp(x.baseAddress! + 8, y.baseAddress! + 8, n - 8))
            if c != 0 { return c < 0 ? -1 : 1 }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        default:
            let ranks = ranks!, keyKinds = keyKinds!
            if ranks[a] != ranks[b] { return ranks[a] < ranks[b] ? -1 : 1 }
            let ka = keyKinds[a], kb = keyKinds[b]
            if ka == .exact && kb == .exact { return prefixes[a] == prefixes[b] ? 0 : (prefixes[a] < prefixes[b] ? -1 : 1) }
            if ka != .none && kb != .none && prefixes[a] != prefixes[b] { return prefixes[a] < prefixes[b] ? -1 : 1 }
            return MixedOrder.compare(mixed![a], mixed![b])
        }
    }
}
