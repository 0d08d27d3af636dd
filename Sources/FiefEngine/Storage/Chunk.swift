/// Column chunks: how one property of one cluster of objects is stored.
///
/// Objects of a class live in clusters of 256 consecutive object keys
/// (cluster = key >> 8, slot = key & 255).  Each property of a cluster is one
/// LMDB value, a *chunk*:
///
///     [0, 32)        null bitmap: bit s set = slot s is null
///     int            one byte w (1, 2, 4 or 8), then 256 slots x w bytes,
///                    little-endian two's complement: each chunk stores its
///                    integers in the fewest bytes that hold them all
///     other fixed    256 slots x width bytes, little-endian (ids big-endian)
///     string/binary  UInt32 offsets[257] relative to the byte area, then the bytes
///
/// Column 0 of a cluster is its presence bitmap (32 bytes: bit s set = the
/// object with slot s exists).  A missing chunk reads as all defaults.
enum ClusterLayout {
    static let shift: Int64 = 8
    static let slots = 256
    static let slotMask: Int64 = 255
    static let bitmapBytes = 32
    static let presenceColumn: UInt32 = 0

    /// The LMDB key of a chunk in a class's data database (MDB_INTEGERKEY).
    @inline(__always)
    static func chunkKey(column: UInt32, cluster: Int64) -> UInt64 {
        (UInt64(column) << 40) | UInt64(truncatingIfNeeded: cluster)
    }

    @inline(__always)
    static func cluster(of key: Int64) -> Int64 { key >> shift }
    @inline(__always)
    static func slot(of key: Int64) -> Int { Int(key & slotMask) }

    static func chunkSize(fixedWidth: Int) -> Int { bitmapBytes + slots * fixedWidth }
    /// Where an int chunk's values start (after the bitmap and the width byte).
    static let intValues = bitmapBytes + 1
    static let varHeaderSize = bitmapBytes + 4 * (slots + 1)
}

/// Read access to one stored chunk, straight from LMDB's map (or from a
/// write transaction's buffer with the same layout).  `base == nil` means the
/// chunk does not exist: every slot reads as its default.
struct ChunkReader {
    let base: UnsafeRawPointer?
    let count: Int

    init(_ buffer: UnsafeRawBufferPointer?) {
        base = buffer?.baseAddress
        count = buffer?.count ?? 0
    }

    /// Bit `slot` of the chunk's bitmap: "is null" in a column chunk,
    /// "exists" in a presence chunk.
    @inline(__always)
    func isNull(_ slot: Int) -> Bool { bit(slot) }

    @inline(__always)
    func bit(_ slot: Int) -> Bool {
        guard let base else { return false }
        let word = base.loadUnaligned(fromByteOffset: (slot >> 6) << 3, as: UInt64.self)
        return word & (1 << UInt64(slot & 63)) != 0
    }

    @inline(__always)
    func bitmapWord(_ index: Int) -> UInt64 {
        guard let base else { return 0 }
        return base.loadUnaligned(fromByteOffset: index << 3, as: UInt64.self)
    }

    /// Bytes per value of an int chunk.
    @inline(__always)
    var intWidth: Int {
        guard let base else { return 8 }
        return Int(base.load(fromByteOffset: ClusterLayout.bitmapBytes, as: UInt8.self))
    }

    /// Slot `slot` of an int chunk.
    @inline(__always)
    func int(_ slot: Int) -> Int64 {
        guard let base else { return 0 }
        let values = base + ClusterLayout.intValues
        switch intWidth {
        case 1: return Int64(values.load(fromByteOffset: slot, as: Int8.self))
        case 2: return Int64(values.loadUnaligned(fromByteOffset: slot << 1, as: Int16.self))
        case 4: return Int64(values.loadUnaligned(fromByteOffset: slot << 2, as: Int32.self))
        default: return values.loadUnaligned(fromByteOffset: slot << 3, as: Int64.self)
        }
    }

    @inline(__always)
    func bytes(_ slot: Int) -> UnsafeRawBufferPointer {
        guard let base else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let offsets = ClusterLayout.bitmapBytes
        let start = Int(base.loadUnaligned(fromByteOffset: offsets + slot << 2, as: UInt32.self))
        let end = Int(base.loadUnaligned(fromByteOffset: offsets + (slot + 1) << 2, as: UInt32.self))
        return UnsafeRawBufferPointer(start: base + ClusterLayout.varHeaderSize + start, count: end - start)
    }

    /// Decode one slot as a `Value` of `type` (null only if `nullable`).
    func value(_ slot: Int, type: PropertyType, nullable: Bool) -> Value {
        guard let base else { return nullable ? .null : Value.zero(of: type) }
        if nullable && isNull(slot) { return .null }
        if type == .int { return .int(int(slot)) }
        let width = type.fixedWidth
        let p = base + ClusterLayout.bitmapBytes + slot * width
        switch type {
        case .int: return .int(p.loadUnaligned(as: Int64.self))
        case .bool: return .bool(p.load(as: UInt8.self) != 0)
        case .float: return .float(p.loadUnaligned(as: Float.self))
        case .double: return .double(p.loadUnaligned(as: Double.self))
        case .timestamp:
            return .timestamp(seconds: p.loadUnaligned(as: Int64.self), nanoseconds: p.loadUnaligned(fromByteOffset: 8, as: Int32.self))
        case .decimal128:
            return .decimal128(Decimal128Bits(low: p.loadUnaligned(as: UInt64.self), high: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        case .objectId: return .objectId(ObjectIdBytes(bytes: p))
        case .uuid: return .uuid(UUIDBytes(bytes: p))
        case .string: return .string(bytes(slot))
        case .binary: return .binary(bytes(slot))
        }
    }
}

/// A chunk being changed inside a write transaction.  Fixed-width chunks and
/// presence bitmaps keep the stored layout in one buffer (so `ChunkReader`
/// reads them as it reads LMDB's map).  String and binary chunks keep their
/// bytes in an append-only arena with one (offset, length) span per slot;
/// a replaced value's bytes stay behind as garbage until commit lays the
/// chunk out again.  Views of arena bytes stay valid until the chunk's next
/// write (the arena may move when it grows).
final class DirtyChunk {
    let type: PropertyType?          // nil: the presence bitmap
    let fixed: UnsafeMutableRawPointer
    let fixedSize: Int
    /// Per slot (offset, length) into `arena`; nil for fixed-width chunks.
    private let spans: UnsafeMutablePointer<(UInt32, UInt32)>?
    private var arena: UnsafeMutableRawPointer?
    private var arenaCount = 0
    private var arenaCapacity = 0
    /// Bytes of the arena that slots still use.
    private var liveBytes = 0

    /// Start from the stored chunk `from` (or from defaults).
    init(type: PropertyType?, from stored: ChunkReader) {
        self.type = type
        let width = type?.fixedWidth ?? 0
        let variable = type != nil && width == 0
        // Int chunks are kept unpacked (eight bytes a value, width byte 8)
        // while they change, and packed again at commit.
        fixedSize = width == 0 ? ClusterLayout.bitmapBytes
            : type == .int ? ClusterLayout.intValues + ClusterLayout.slots * 8
            : ClusterLayout.chunkSize(fixedWidth: width)
        fixed = UnsafeMutableRawPointer.allocate(byteCount: fixedSize, alignment: 16)
        if type == .int {
            if let base = stored.base {
                fixed.copyMemory(from: base, byteCount: ClusterLayout.bitmapBytes)
            } else {
                fixed.initializeMemory(as: UInt8.self, repeating: 0xFF, count: ClusterLayout.bitmapBytes)
            }
            fixed.storeBytes(of: 8, toByteOffset: ClusterLayout.bitmapBytes, as: UInt8.self)
            let values = fixed + ClusterLayout.intValues
            for slot in 0..<ClusterLayout.slots {
                values.storeBytes(of: stored.int(slot), toByteOffset: slot << 3, as: Int64.self)
            }
        } else if let base = stored.base {
            fixed.copyMemory(from: base, byteCount: fixedSize)
        } else {
            fixed.initializeMemory(as: UInt8.self, repeating: 0, count: fixedSize)
            // A new column chunk starts with every slot null, as a missing
            // chunk reads: slots of objects that never got a value (objects
            // made before the property existed, or without it) keep reading
            // as null.  Non-nullable columns ignore the bit and read zeros.
            if type != nil {
                fixed.initializeMemory(as: UInt8.self, repeating: 0xFF, count: ClusterLayout.bitmapBytes)
            }
            if type == .decimal128 {
                for slot in 0..<ClusterLayout.slots {
                    let p = fixed + ClusterLayout.bitmapBytes + slot * 16
                    p.storeBytes(of: Decimal128.zero.low, as: UInt64.self)
                    (p + 8).storeBytes(of: Decimal128.zero.high, as: UInt64.self)
                }
            }
        }
        if variable {
            let spans = UnsafeMutablePointer<(UInt32, UInt32)>.allocate(capacity: ClusterLayout.slots)
            if let base = stored.base {
                // One copy of the stored byte area; spans keep its offsets.
                let offsets = base + ClusterLayout.bitmapBytes
                let total = Int(offsets.loadUnaligned(fromByteOffset: ClusterLayout.slots << 2, as: UInt32.self))
                arenaCapacity = max(total, 256)
                arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 8)
                if total > 0 { arena!.copyMemory(from: base + ClusterLayout.varHeaderSize, byteCount: total) }
                arenaCount = total
                liveBytes = total
                for slot in 0..<ClusterLayout.slots {
                    let start = offsets.loadUnaligned(fromByteOffset: slot << 2, as: UInt32.self)
                    let end = offsets.loadUnaligned(fromByteOffset: (slot + 1) << 2, as: UInt32.self)
                    spans[slot] = (start, end &- start)
                }
            } else {
                spans.initialize(repeating: (0, 0), count: ClusterLayout.slots)
            }
            self.spans = spans
        } else {
            spans = nil
        }
    }

    deinit {
        spans?.deallocate()
        arena?.deallocate()
        fixed.deallocate()
    }

    var reader: ChunkReader { ChunkReader(UnsafeRawBufferPointer(start: fixed, count: fixedSize)) }

    // MARK: Bitmaps

    @inline(__always)
    func setBit(_ slot: Int, _ on: Bool) {
        let p = fixed + ((slot >> 6) << 3)
        var word = p.load(as: UInt64.self)
        if on { word |= 1 << UInt64(slot & 63) } else { word &= ~(1 << UInt64(slot & 63)) }
        p.storeBytes(of: word, as: UInt64.self)
    }

    @inline(__always)
    func bit(_ slot: Int) -> Bool {
        fixed.load(fromByteOffset: (slot >> 6) << 3, as: UInt64.self) & (1 << UInt64(slot & 63)) != 0
    }

    var bitmapIsEmpty: Bool {
        (0..<4).allSatisfy { fixed.load(fromByteOffset: $0 << 3, as: UInt64.self) == 0 }
    }

    // MARK: Values

    /// Store `value` (already checked against the property) in `slot`.
    @inline(__always)
    func set(_ slot: Int, _ value: Value) {
        guard let type else { return }
        if case .null = value {
            setBit(slot, true)
            if let spans { liveBytes -= Int(spans[slot].1); spans[slot] = (0, 0) }
            return
        }
        setBit(slot, false)
        if case .int(let v) = value {
            fixed.storeBytes(of: v, toByteOffset: ClusterLayout.intValues + slot << 3, as: Int64.self)
            return
        }
        let p = fixed + ClusterLayout.bitmapBytes + slot * type.fixedWidth
        switch value {
        case .int: break
        case .bool(let v): p.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        case .float(let v): p.storeBytes(of: v, as: Float.self)
        case .double(let v): p.storeBytes(of: v, as: Double.self)
        case .timestamp(let s, let ns):
            p.storeBytes(of: s, as: Int64.self)
            (p + 8).storeBytes(of: ns, as: Int32.self)
        case .decimal128(let d):
            p.storeBytes(of: d.low, as: UInt64.self)
            (p + 8).storeBytes(of: d.high, as: UInt64.self)
        case .objectId(let id): id.store(to: p)
        case .uuid(let id): id.store(to: p)
        case .string(let bytes), .binary(let bytes):
            if let spans { setBytes(slot, bytes, spans) }
        case .null: break
        }
    }

    private func setBytes(_ slot: Int, _ bytes: UnsafeRawBufferPointer, _ spans: UnsafeMutablePointer<(UInt32, UInt32)>) {
        liveBytes -= Int(spans[slot].1)
        let n = bytes.count
        if arenaCount + n > arenaCapacity {
            // Grow, dropping garbage when it dominates.
            var capacity = max(arenaCapacity * 2, 256)
            while capacity < liveBytes + n + 64 { capacity *= 2 }
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            var used = 0
            for s in 0..<ClusterLayout.slots where s != slot {
                let (start, length) = spans[s]
                if length > 0 {
                    (fresh + used).copyMemory(from: arena! + Int(start), byteCount: Int(length))
                    spans[s] = (UInt32(used), length)
                    used += Int(length)
                } else {
                    spans[s] = (0, 0)
                }
            }
            arena?.deallocate()
            arena = fresh
            arenaCount = used
            arenaCapacity = capacity
        }
        if n > 0 { (arena! + arenaCount).copyMemory(from: bytes.baseAddress!, byteCount: n) }
        spans[slot] = (UInt32(arenaCount), UInt32(n))
        arenaCount += n
        liveBytes += n
    }

    func value(_ slot: Int, nullable: Bool) -> Value {
        guard let type else { return .null }
        if spans != nil {
            if bit(slot) { return nullable ? .null : Value.zero(of: type) }
            let view = bytes(slot) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            return type == .string ? .string(view) : .binary(view)
        }
        return reader.value(slot, type: type, nullable: nullable)
    }

    /// The bytes of a string or binary slot (nil when null).
    @inline(__always)
    func bytes(_ slot: Int) -> UnsafeRawBufferPointer? {
        guard let spans, !bit(slot) else { return nil }
        let (start, length) = spans[slot]
        guard let arena else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: arena + Int(start), count: Int(length))
    }

    var isVariableWidth: Bool { spans != nil }

    // MARK: Encoding

    /// The fewest bytes per value that hold every value of an int chunk.
    private var packedIntWidth: Int {
        let values = fixed + ClusterLayout.intValues
        var low: Int64 = 0, high: Int64 = 0
        for slot in 0..<ClusterLayout.slots {
            let v = values.loadUnaligned(fromByteOffset: slot << 3, as: Int64.self)
            low = min(low, v)
            high = max(high, v)
        }
        if low >= Int64(Int8.min) && high <= Int64(Int8.max) { return 1 }
        if low >= Int64(Int16.min) && high <= Int64(Int16.max) { return 2 }
        if low >= Int64(Int32.min) && high <= Int64(Int32.max) { return 4 }
        return 8
    }

    var encodedSize: Int {
        if type == .int { return ClusterLayout.intValues + ClusterLayout.slots * packedIntWidth }
        guard let spans else { return fixedSize }
        var total = ClusterLayout.varHeaderSize
        for slot in 0..<ClusterLayout.slots where !bit(slot) { total += Int(spans[slot].1) }
        return total
    }

    func encode(into out: UnsafeMutableRawBufferPointer) {
        let base = out.baseAddress!
        if type == .int {
            let width = out.count == ClusterLayout.intValues + ClusterLayout.slots * 8 ? 8 : (out.count - ClusterLayout.intValues) / ClusterLayout.slots
            base.copyMemory(from: fixed, byteCount: ClusterLayout.bitmapBytes)
            base.storeBytes(of: UInt8(width), toByteOffset: ClusterLayout.bitmapBytes, as: UInt8.self)
            let from = fixed + ClusterLayout.intValues, to = base + ClusterLayout.intValues
            for slot in 0..<ClusterLayout.slots {
                let v = from.loadUnaligned(fromByteOffset: slot << 3, as: Int64.self)
                switch width {
                case 1: to.storeBytes(of: Int8(truncatingIfNeeded: v), toByteOffset: slot, as: Int8.self)
                case 2: to.storeBytes(of: Int16(truncatingIfNeeded: v), toByteOffset: slot << 1, as: Int16.self)
                case 4: to.storeBytes(of: Int32(truncatingIfNeeded: v), toByteOffset: slot << 2, as: Int32.self)
                default: to.storeBytes(of: v, toByteOffset: slot << 3, as: Int64.self)
                }
            }
            return
        }
        guard let spans else {
            base.copyMemory(from: fixed, byteCount: fixedSize)
            return
        }
        base.copyMemory(from: fixed, byteCount: ClusterLayout.bitmapBytes)
        var offset: UInt32 = 0
        let offsets = base + ClusterLayout.bitmapBytes
        let data = base + ClusterLayout.varHeaderSize
        for slot in 0..<ClusterLayout.slots {
            offsets.storeBytes(of: offset, toByteOffset: slot << 2, as: UInt32.self)
            let (start, length) = spans[slot]
            if length > 0 && !bit(slot) {
                (data + Int(offset)).copyMemory(from: arena! + Int(start), byteCount: Int(length))
                offset += length
            }
        }
        offsets.storeBytes(of: offset, toByteOffset: ClusterLayout.slots << 2, as: UInt32.self)
    }
}
