/// List segments: 1...256 consecutive elements of one list, one LMDB value
/// (see design.md, "Links and collections"):
///
///     [0]          n - 1
///     [1]          flags: bit 0 = a null bitmap follows
///     [2, 2 + b)   null bitmap (b = ceil(n / 8)), bit i = element i is null
///     then         int, link, bool: [w] width 0/1/2/4/8, [8] base, n offsets
///                  of w bytes (frame of reference); float 4n, double 8n,
///                  timestamp 12n, object id 12n, decimal128 and uuid 16n;
///                  string, binary: [w] offset width 1/2/4, n + 1 offsets,
///                  then the bytes
///     last 4       checksum (`ChunkCheck.checksum` with the segment's key)
public enum Segment {
    public static let maxElements = 256
    public static let flagsOffset = 1
    public static let hasNulls: UInt8 = 1

    /// Whether elements of `type` are stored as integers (frame of reference).
    @inlinable @inline(__always)
    public static func isIntegral(_ type: PropertyType) -> Bool { type == .int || type == .link || type == .bool }

    /// Bytes per element of the other fixed-width types.
    @inlinable @inline(__always)
    public static func width(_ type: PropertyType) -> Int {
        switch type {
        case .float: return 4
        case .double: return 8
        case .timestamp, .objectId: return 12
        case .decimal128, .uuid: return 16
        default: return 0
        }
    }

    @inlinable @inline(__always)
    public static func bitmapBytes(_ count: Int) -> Int { (count + 7) >> 3 }

    public static func offsetWidth(_ total: Int) -> Int {
        total <= Int(UInt8.max) ? 1 : total <= Int(UInt16.max) ? 2 : 4
    }

    /// The integer an element of an integral type stores.
    @inlinable @inline(__always)
    public static func integer(_ value: Value) -> Int64 {
        switch value {
        case .int(let i): return i
        case .link(_, let key): return key
        case .bool(let b): return b ? 1 : 0
        default: return 0
        }
    }

    /// The size of a segment of `values` (checksum included).
    public static func encodedSize(_ values: UnsafeBufferPointer<Value>, type: PropertyType, nullable: Bool) -> Int {
        let n = values.count
        var size = 2 + (nullable ? bitmapBytes(n) : 0) + 4
        if isIntegral(type) {
            size += 9 + n * frame(values).width
        } else if type == .string || type == .binary {
            var total = 0
            for v in values { if case .string(let b) = v { total += b.count } else if case .binary(let b) = v { total += b.count } }
            size += 1 + (n + 1) * offsetWidth(total) + total
        } else {
            size += n * width(type)
        }
        return size
    }

    /// The frame of reference of integral values: smallest value and width.
    public static func frame(_ values: UnsafeBufferPointer<Value>) -> (base: Int64, width: Int) {
        var low = Int64.max, high = Int64.min
        for v in values where !v.isNull {
            let i = integer(v)
            low = min(low, i)
            high = max(high, i)
        }
        if low > high { return (0, 0) }
        let range = UInt64(bitPattern: high &- low)
        if range == 0 { return (low, 0) }
        if range <= UInt64(UInt8.max) { return (low, 1) }
        if range <= UInt64(UInt16.max) { return (low, 2) }
        if range <= UInt64(UInt32.max) { return (low, 4) }
        return (0, 8)
    }

    /// Lay `values` (1...256, already checked against the element type) out
    /// in `out` (exactly `encodedSize` bytes), checksum last, as stored
    /// under (`table`, `key`).
    public static func encode(_ values: UnsafeBufferPointer<Value>, type: PropertyType, nullable: Bool,
                       into out: UnsafeMutableRawBufferPointer, table: UInt32, key: UInt64) {
        let base = out.baseAddress!
        let n = values.count
        base.storeBytes(of: UInt8(n - 1), as: UInt8.self)
        base.storeBytes(of: nullable ? hasNulls : 0, toByteOffset: flagsOffset, as: UInt8.self)
        var p = base + 2
        if nullable {
            let b = bitmapBytes(n)
            p.initializeMemory(as: UInt8.self, repeating: 0, count: b)
            for (i, v) in values.enumerated() where v.isNull {
                let byte = p.load(fromByteOffset: i >> 3, as: UInt8.self)
                p.storeBytes(of: byte | UInt8(1 << (i & 7)), toByteOffset: i >> 3, as: UInt8.self)
            }
            p += b
        }
        if isIntegral(type) {
            let (low, w) = frame(values)
            p.storeBytes(of: UInt8(w), as: UInt8.self)
            (p + 1).storeBytes(of: low, as: Int64.self)
            let q = p + 9
            for (i, v) in values.enumerated() {
                let x = v.isNull ? low : integer(v)
                let offset = UInt64(bitPattern: x &- low)
                switch w {
                case 0: break
                case 1: q.storeBytes(of: UInt8(truncatingIfNeeded: offset), toByteOffset: i, as: UInt8.self)
                case 2: q.storeBytes(of: UInt16(truncatingIfNeeded: offset), toByteOffset: i << 1, as: UInt16.self)
                case 4: q.storeBytes(of: UInt32(truncatingIfNeeded: offset), toByteOffset: i << 2, as: UInt32.self)
                default: q.storeBytes(of: x, toByteOffset: i << 3, as: Int64.self)
                }
            }
        } else if type == .string || type == .binary {
            var total = 0
            for v in values { total += bytes(v).count }
            let w = offsetWidth(total)
            p.storeBytes(of: UInt8(w), as: UInt8.self)
            let offsets = p + 1
            let data = offsets + (n + 1) * w
            var offset = 0
            for i in 0...n {
                Offsets.store(offset, offsets, width: w, i)
                if i == n { break }
                let b = bytes(values[i])
                if b.count > 0 { (data + offset).copyMemory(from: b.baseAddress!, byteCount: b.count) }
                offset += b.count
            }
        } else {
            let w = width(type)
            for (i, v) in values.enumerated() {
                let q = p + i * w
                switch v {
                case .float(let f): q.storeBytes(of: f, as: Float.self)
                case .double(let d): q.storeBytes(of: d, as: Double.self)
                case .timestamp(let s, let ns):
                    q.storeBytes(of: s, as: Int64.self)
                    (q + 8).storeBytes(of: ns, as: Int32.self)
                case .decimal128(let d):
                    q.storeBytes(of: d.low, as: UInt64.self)
                    (q + 8).storeBytes(of: d.high, as: UInt64.self)
                case .objectId(let id): id.store(to: q)
                case .uuid(let id): id.store(to: q)
                default: q.initializeMemory(as: UInt8.self, repeating: 0, count: w)
                }
            }
        }
        let bodySize = out.count - ClusterLayout.checksumBytes
        let sum = ChunkCheck.checksum(table: table, key: key, UnsafeRawBufferPointer(start: base, count: bodySize))
        base.storeBytes(of: sum.littleEndian, toByteOffset: bodySize, as: UInt32.self)
    }

    @inline(__always)
    private static func bytes(_ value: Value) -> UnsafeRawBufferPointer {
        switch value {
        case .string(let b), .binary(let b): return b
        default: return UnsafeRawBufferPointer(start: nil, count: 0)
        }
    }
}

/// Read access to one stored segment, in place, after its checks.
public struct SegmentReader {
    public let count: Int
    @usableFromInline let nulls: UnsafeRawPointer?
    @usableFromInline let values: UnsafeRawPointer
    @usableFromInline let type: PropertyType
    @usableFromInline let width: Int
    @usableFromInline let intBase: Int64
    @usableFromInline let offsets: UnsafeRawPointer?
    @usableFromInline let data: UnsafeRawPointer?

    /// The segment stored as `raw` under (`table`, `key`), with elements of
    /// `type`; nil when its checksum or layout is wrong.
    @inlinable
    public init?(_ raw: UnsafeRawBufferPointer, type: PropertyType, table: UInt32, key: UInt64) {
        guard raw.count >= 2 + ClusterLayout.checksumBytes else { return nil }
        let bodySize = raw.count - ClusterLayout.checksumBytes
        let stored = raw.loadUnaligned(fromByteOffset: bodySize, as: UInt32.self)
        let body = UnsafeRawBufferPointer(rebasing: raw[0..<bodySize])
        guard UInt32(littleEndian: stored) == ChunkCheck.checksum(table: table, key: key, body) else { return nil }
        let base = body.baseAddress!
        let n = Int(base.load(as: UInt8.self)) + 1
        let flags = base.load(fromByteOffset: Segment.flagsOffset, as: UInt8.self)
        guard flags & ~Segment.hasNulls == 0 else { return nil }
        var at = 2
        if flags & Segment.hasNulls != 0 {
            nulls = base + at
            at += Segment.bitmapBytes(n)
        } else {
            nulls = nil
        }
        self.count = n
        self.type = type
        if Segment.isIntegral(type) {
            guard bodySize >= at + 9 else { return nil }
            let w = Int(base.load(fromByteOffset: at, as: UInt8.self))
            guard w == 0 || w == 1 || w == 2 || w == 4 || w == 8, bodySize == at + 9 + n * w else { return nil }
            width = w
            intBase = base.loadUnaligned(fromByteOffset: at + 1, as: Int64.self)
            values = base + at + 9
            offsets = nil
            data = nil
        } else if type == .string || type == .binary {
            guard bodySize > at else { return nil }
            let w = Int(base.load(fromByteOffset: at, as: UInt8.self))
            guard w == 1 || w == 2 || w == 4, bodySize >= at + 1 + (n + 1) * w else { return nil }
            let offsets = base + at + 1
            let total = bodySize - (at + 1 + (n + 1) * w)
            var previous = 0
            for i in 0...n {
                let o = Offsets.at(offsets, width: w, i)
                guard (i == 0 ? o == 0 : o >= previous) else { return nil }
                previous = o
            }
            guard previous == total else { return nil }
            width = w
            intBase = 0
            values = offsets
            self.offsets = offsets
            data = offsets + (n + 1) * w
        } else {
            let w = Segment.width(type)
            guard w > 0, bodySize == at + n * w else { return nil }
            width = w
            intBase = 0
            values = base + at
            offsets = nil
            data = nil
        }
    }

    @inlinable @inline(__always)
    public func isNull(_ i: Int) -> Bool {
        guard let nulls else { return false }
        return nulls.load(fromByteOffset: i >> 3, as: UInt8.self) & UInt8(1 << (i & 7)) != 0
    }

    @inlinable @inline(__always)
    public func int(_ i: Int) -> Int64 {
        FrameOfReference.value(values, width: width, base: intBase, i)
    }

    @inlinable @inline(__always)
    public func bytes(_ i: Int) -> UnsafeRawBufferPointer {
        guard let offsets, let data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return Offsets.bytes(offsets, width: width, data: data, i)
    }

    /// Element `i` as a value (strings and binaries are views into the segment;
    /// a link's element is its target's object key, `linkTarget` its class).
    public func value(_ i: Int, linkTarget: UInt32 = 0) -> Value {
        if isNull(i) { return .null }
        switch type {
        case .int: return .int(int(i))
        case .link: return .link(classKey: linkTarget, objectKey: int(i))
        case .bool: return .bool(int(i) != 0)
        case .string: return .string(bytes(i))
        case .binary, .mixed: return .binary(bytes(i))
        case .float, .double, .timestamp, .decimal128, .objectId, .uuid:
            return Value.fixed(type, at: values + i * width)
        }
    }
}
