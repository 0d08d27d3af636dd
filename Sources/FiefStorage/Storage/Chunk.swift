import CFiefSupport

/// Column chunks: how one property of one cluster of objects is stored
/// (file formats 3 and 4; `FormatUpgrade.swift` reads formats 1 and 2 to upgrade them).
///
/// Objects of a class live in clusters of 256 consecutive object keys
/// (cluster = key >> 8, slot = key & 255).  Each property of a cluster is one
/// LMDB value, a *chunk*, that ends with a 4-byte checksum (CRC-32C of its
/// class and chunk keys, then of every byte before it in four interleaved
/// lanes: `fief_checksum`; see `ChunkCheck`):
///
///     presence       [0, 32) bit s set = the object with slot s exists;
///                    then a bitmap of the columns that have a chunk in this
///                    cluster (bit c of byte c >> 3), so a chunk that went
///                    missing is noticed rather than read as defaults
///     [0, 32)        in every column chunk: null bitmap, bit s set = slot s is null
///     int            [32] width w (0, 1, 2, 4 or 8), [33, 41) base (Int64),
///                    then 256 unsigned offsets from the base, w bytes each
///                    (w = 0: every slot holds the base; w = 8: the values
///                    themselves, base 0): frame of reference, so ids
///                    1...1,000,000 take one byte each
///     other fixed    256 slots x width bytes, little-endian (ids big-endian)
///     string/binary  [32] offset width w (1, 2 or 4), [33] first slot f,
///                    then l - f + 2 offsets (w bytes each, the first 0)
///                    into the byte area that follows: slot s is bytes
///                    offset[s - f] ..< offset[s - f + 1]
///
/// A chunk's key is `column << 40 | cluster << 8 | l`, l its last slot: 255
/// for every chunk but the leading parts of a string or binary chunk too
/// large for one LMDB page, which is stored as *parts*, runs of slots
/// f...l that each fit a page (`ChunkParts`).  Every part repeats the null
/// bitmap; the part ending at 255 is found by the chunk's key.
///
/// A missing chunk reads as all defaults (a property added after the cluster
/// was written).
public enum ClusterLayout {
    public static let shift: Int64 = 8
    public static let slots = 256
    public static let slotMask: Int64 = 255
    public static let bitmapBytes = 32
    public static let presenceColumn: UInt32 = 0
    public static let checksumBytes = 4
    /// Object keys stay below 2^40 (clusters below 2^32: their keys hold
    /// cluster and slot in 40 bits).
    public static let objectKeyLimit: Int64 = 1 << 40

    /// The LMDB key of a chunk (its final part) in a class's data database
    /// (MDB_INTEGERKEY).
    @inlinable @inline(__always)
    public static func chunkKey(column: UInt32, cluster: Int64) -> UInt64 {
        partKey(column: column, cluster: cluster, last: slots - 1)
    }

    /// The key of the part of a chunk that ends at slot `last`.
    @inlinable @inline(__always)
    public static func partKey(column: UInt32, cluster: Int64, last: Int) -> UInt64 {
        (UInt64(column) << 40) | (UInt64(truncatingIfNeeded: cluster) << 8) | UInt64(truncatingIfNeeded: last)
    }

    /// The lowest key a chunk of `column` can have.
    @inlinable @inline(__always)
    public static func columnStart(_ column: UInt32) -> UInt64 { UInt64(column) << 40 }

    @inlinable @inline(__always)
    public static func column(ofChunkKey key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key >> 40) }
    @inlinable @inline(__always)
    public static func cluster(ofChunkKey key: UInt64) -> Int64 { Int64((key >> 8) & 0xFFFF_FFFF) }
    /// The last slot of the chunk (or part) stored under `key`.
    @inlinable @inline(__always)
    public static func lastSlot(ofChunkKey key: UInt64) -> Int { Int(key & 255) }

    @inlinable @inline(__always)
    public static func cluster(of key: Int64) -> Int64 { key >> shift }
    @inlinable @inline(__always)
    public static func slot(of key: Int64) -> Int { Int(key & slotMask) }

    public static func chunkSize(fixedWidth: Int) -> Int { bitmapBytes + slots * fixedWidth }
    /// Int chunks: where the width byte, the base and the values are.
    public static let intWidth = bitmapBytes
    public static let intBase = bitmapBytes + 1
    public static let intValues = bitmapBytes + 9
    /// String and binary chunks: the offset width byte, the first slot and the offsets.
    public static let varWidth = bitmapBytes
    public static let varFirst = bitmapBytes + 1
    public static let varOffsets = bitmapBytes + 2
    /// Where the bytes of a string or binary chunk (or part) of `slotCount`
    /// slots start.
    @inlinable @inline(__always)
    public static func varData(width: Int, slotCount: Int) -> Int { varOffsets + (slotCount + 1) * width }
}

/// Checksums and structural checks of stored chunks: every chunk is checked
/// once per snapshot (or write transaction), on its first read, before any
/// of its contents is used; a view handed out never points outside the
/// chunk it came from.
public enum ChunkCheck {
    public static let hardware = fief_crc32c_hardware()

    /// The checksum of `body` stored under (`table`, `key`).
    /// (`hardware`: use SSE4.2 where the machine has it; tests compare both ways.)
    @inlinable @inline(__always)
    public static func checksum(table: UInt32, key: UInt64, _ body: UnsafeRawBufferPointer, hardware: Int32 = ChunkCheck.hardware) -> UInt32 {
        var seed = (UInt64(table), key)
        let start = withUnsafeBytes(of: &seed) { fief_crc32c(0, $0.baseAddress, 16, hardware) }
        return fief_checksum(start, body.baseAddress, body.count, hardware)
    }

    /// The chunk's contents without its checksum, or nil if it is damaged:
    /// a wrong checksum, or a layout that does not fit `type` (nil type:
    /// a presence chunk) or the last slot `key` gives it.
    public static func verified(_ raw: UnsafeRawBufferPointer, table: UInt32, key: UInt64, type: PropertyType?) -> UnsafeRawBufferPointer? {
        guard raw.count >= ClusterLayout.bitmapBytes + ClusterLayout.checksumBytes else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - ClusterLayout.checksumBytes)])
        let stored = raw.loadUnaligned(fromByteOffset: body.count, as: UInt32.self)
        guard UInt32(littleEndian: stored) == checksum(table: table, key: key, body) else { return nil }
        return isWellFormed(body, type: type, last: ClusterLayout.lastSlot(ofChunkKey: key)) ? body : nil
    }

    /// Whether a chunk's layout fits its type: sizes, widths, and offsets
    /// that stay inside the chunk.  Only string and binary chunks are
    /// stored in parts: any other chunk ends at the last slot.
    public static func isWellFormed(_ body: UnsafeRawBufferPointer, type: PropertyType?, last: Int) -> Bool {
        let count = body.count
        let isPart = last != ClusterLayout.slots - 1
        guard let type = type?.stored else { return !isPart && count >= ClusterLayout.bitmapBytes && count <= ClusterLayout.bitmapBytes + 8192 }
        switch type {
        case .int:
            guard !isPart, count >= ClusterLayout.intValues else { return false }
            let width = Int(body.load(fromByteOffset: ClusterLayout.intWidth, as: UInt8.self))
            guard width == 0 || width == 1 || width == 2 || width == 4 || width == 8 else { return false }
            return count == ClusterLayout.intValues + ClusterLayout.slots * width
        case .string, .binary:
            guard count >= ClusterLayout.varOffsets else { return false }
            let width = Int(body.load(fromByteOffset: ClusterLayout.varWidth, as: UInt8.self))
            let first = Int(body.load(fromByteOffset: ClusterLayout.varFirst, as: UInt8.self))
            guard width == 1 || width == 2 || width == 4, first <= last else { return false }
            let slotCount = last - first + 1
            let data = ClusterLayout.varData(width: width, slotCount: slotCount)
            guard count >= data else { return false }
            let available = count - data
            let offsets = body.baseAddress! + ClusterLayout.varOffsets
            switch width {
            case 1: return endsAscend(offsets, as: UInt8.self, slotCount: slotCount, to: available)
            case 2: return endsAscend(offsets, as: UInt16.self, slotCount: slotCount, to: available)
            default: return endsAscend(offsets, as: UInt32.self, slotCount: slotCount, to: available)
            }
        default:
            return !isPart && count == ClusterLayout.chunkSize(fixedWidth: type.fixedWidth)
        }
    }
}

extension ChunkCheck {
    /// Whether `slotCount + 1` offsets of type `T` start at 0, never go
    /// down, and end at `total`.
    /// (Each pair compared on its own, without a branch or an overflow
    /// check: the compiler compares 8 to 16 at a time.  A chunk is checked
    /// on its first read in every snapshot, and a string chunk has up to
    /// 257 offsets.)
    @inlinable @inline(__always)
    public static func endsAscend<T: FixedWidthInteger & UnsignedInteger>(_ offsets: UnsafeRawPointer, as: T.Type, slotCount: Int, to total: Int) -> Bool {
        let size = MemoryLayout<T>.size
        var descending: UInt8 = 0
        var slot = 0
        while slot < slotCount {
            let start = offsets.loadUnaligned(fromByteOffset: slot &* size, as: T.self)
            let end = offsets.loadUnaligned(fromByteOffset: (slot &+ 1) &* size, as: T.self)
            // The sign of end - start (offsets are at most 32 bits).
            descending |= UInt8(truncatingIfNeeded: (UInt64(truncatingIfNeeded: end) &- UInt64(truncatingIfNeeded: start)) >> 63)
            slot &+= 1
        }
        return descending == 0 && offsets.loadUnaligned(as: T.self) == 0
            && Int(offsets.loadUnaligned(fromByteOffset: slotCount &* size, as: T.self)) == total
    }
}

/// Offset arrays of strings and binaries (chunks, parts, list segments):
/// unsigned integers of 1, 2 or 4 bytes; element i is the bytes
/// offset[i] ..< offset[i + 1] of the data that follows them.
public enum Offsets {
    @inlinable @inline(__always)
    public static func at(_ offsets: UnsafeRawPointer, width: Int, _ i: Int) -> Int {
        switch width {
        case 1: return Int(offsets.load(fromByteOffset: i, as: UInt8.self))
        case 2: return Int(offsets.loadUnaligned(fromByteOffset: i << 1, as: UInt16.self))
        default: return Int(offsets.loadUnaligned(fromByteOffset: i << 2, as: UInt32.self))
        }
    }

    /// Element `i`'s bytes (the width decoded once: this is on every read's path).
    @inlinable @inline(__always)
    public static func bytes(_ offsets: UnsafeRawPointer, width: Int, data: UnsafeRawPointer, _ i: Int) -> UnsafeRawBufferPointer {
        let start: Int, end: Int
        switch width {
        case 1:
            start = Int(offsets.load(fromByteOffset: i, as: UInt8.self))
            end = Int(offsets.load(fromByteOffset: i + 1, as: UInt8.self))
        case 2:
            start = Int(offsets.loadUnaligned(fromByteOffset: i << 1, as: UInt16.self))
            end = Int(offsets.loadUnaligned(fromByteOffset: (i + 1) << 1, as: UInt16.self))
        default:
            start = Int(offsets.loadUnaligned(fromByteOffset: i << 2, as: UInt32.self))
            end = Int(offsets.loadUnaligned(fromByteOffset: (i + 1) << 2, as: UInt32.self))
        }
        return UnsafeRawBufferPointer(start: data + start, count: end - start)
    }

    /// Store `value` as offset `i`.
    @inlinable @inline(__always)
    public static func store(_ value: Int, _ offsets: UnsafeMutableRawPointer, width: Int, _ i: Int) {
        switch width {
        case 1: offsets.storeBytes(of: UInt8(value), toByteOffset: i, as: UInt8.self)
        case 2: offsets.storeBytes(of: UInt16(value), toByteOffset: i << 1, as: UInt16.self)
        default: offsets.storeBytes(of: UInt32(value), toByteOffset: i << 2, as: UInt32.self)
        }
    }
}

/// Frame-of-reference integers (int chunks, list segments): `width` bytes
/// per value (0, 1, 2, 4: offsets from `base`; 8: the values themselves).
public enum FrameOfReference {
    @inlinable @inline(__always)
    public static func value(_ values: UnsafeRawPointer, width: Int, base: Int64, _ i: Int) -> Int64 {
        switch width {
        case 0: return base
        case 1: return base &+ Int64(values.load(fromByteOffset: i, as: UInt8.self))
        case 2: return base &+ Int64(values.loadUnaligned(fromByteOffset: i << 1, as: UInt16.self))
        case 4: return base &+ Int64(values.loadUnaligned(fromByteOffset: i << 2, as: UInt32.self))
        default: return values.loadUnaligned(fromByteOffset: i << 3, as: Int64.self)
        }
    }
}

extension Value {
    /// A value of a fixed-width type other than int and bool (float,
    /// double, timestamp, decimal128, object id, uuid) stored at `p`.
    @inlinable @inline(__always)
    public static func fixed(_ type: PropertyType, at p: UnsafeRawPointer) -> Value {
        switch type {
        case .float: return .float(p.loadUnaligned(as: Float.self))
        case .double: return .double(p.loadUnaligned(as: Double.self))
        case .timestamp:
            return .timestamp(seconds: p.loadUnaligned(as: Int64.self), nanoseconds: p.loadUnaligned(fromByteOffset: 8, as: Int32.self))
        case .decimal128:
            return .decimal128(Decimal128Bits(low: p.loadUnaligned(as: UInt64.self), high: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        case .objectId: return .objectId(ObjectIdBytes(bytes: p))
        case .uuid: return .uuid(UUIDBytes(bytes: p))
        default: return .null
        }
    }
}

/// One part of a string or binary chunk stored in parts: slots
/// `first...last`, their offsets and bytes.
public struct ChunkPart {
    public let offsets: UnsafeRawPointer
    public let data: UnsafeRawPointer
    public let first: Int
    public let last: Int
    public let width: Int

    /// The part whose (checked) body starts at `body` and ends at slot `last`.
    @inlinable @inline(__always)
    public init(body: UnsafeRawPointer, last: Int) {
        width = Int(body.load(fromByteOffset: ClusterLayout.varWidth, as: UInt8.self))
        first = Int(body.load(fromByteOffset: ClusterLayout.varFirst, as: UInt8.self))
        self.last = last
        offsets = body + ClusterLayout.varOffsets
        data = body + ClusterLayout.varData(width: width, slotCount: last - first + 1)
    }

    /// Where the part's body (its null bitmap first) starts.
    public var body: UnsafeRawPointer { offsets - ClusterLayout.varOffsets }

    /// The bytes of `slot` (one of this part's).
    @inlinable @inline(__always)
    public func bytes(_ slot: Int) -> UnsafeRawBufferPointer {
        Offsets.bytes(offsets, width: width, data: data, slot - first)
    }

    /// The bytes of every slot of this part in `mask`, the width decoded once.
    @inlinable @inline(__always)
    public func forEachBytes(_ mask: SIMD4<UInt64>, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        @inline(__always)
        func run<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) {
            let size = MemoryLayout<T>.size
            for word in (first >> 6)...(last >> 6) {
                var w = mask[word]
                if word == first >> 6 { w &= ~UInt64(0) << UInt64(first & 63) }
                if word == last >> 6 && last & 63 != 63 { w &= (UInt64(1) << UInt64((last & 63) + 1)) - 1 }
                while w != 0 {
                    let slot = word << 6 | w.trailingZeroBitCount
                    let i = slot - first
                    let start = Int(offsets.loadUnaligned(fromByteOffset: i * size, as: T.self))
                    let end = Int(offsets.loadUnaligned(fromByteOffset: (i + 1) * size, as: T.self))
                    body(slot, UnsafeRawBufferPointer(start: data + start, count: end - start))
                    w &= w - 1
                }
            }
        }
        switch width {
        case 1: run(UInt8.self)
        case 2: run(UInt16.self)
        default: run(UInt32.self)
        }
    }
}

/// Read access to one stored chunk, straight from LMDB's map (or from a
/// write transaction's buffer with the same layout), after `ChunkCheck`.
/// `base == nil` means the chunk does not exist: every slot reads as its
/// default.  A string or binary chunk stored in parts has `parts` (in slot
/// order, kept by the snapshot or transaction that read them); `base` is
/// then its final part, whose null bitmap every part repeats.
public struct ChunkReader {
    public let base: UnsafeRawPointer?
    public let count: Int
    public let parts: UnsafePointer<ChunkPart>?
    public let partCount: Int

    public init(_ buffer: UnsafeRawBufferPointer?) {
        base = buffer?.baseAddress
        count = buffer?.count ?? 0
        parts = nil
        partCount = 0
    }

    /// A chunk stored in parts: `final` is the body of its last part.
    public init(final: UnsafeRawBufferPointer, parts: UnsafePointer<ChunkPart>, partCount: Int) {
        base = final.baseAddress
        count = final.count
        self.parts = parts
        self.partCount = partCount
    }

    /// The part of a chunk stored in parts that holds `slot`.
    @inlinable @inline(__always)
    public func part(holding slot: Int) -> ChunkPart {
        var low = 0, high = partCount - 1
        while low < high {
            let middle = (low + high) >> 1
            if parts![middle].last < slot { low = middle + 1 } else { high = middle }
        }
        return parts![low]
    }

    /// Bit `slot` of the chunk's bitmap: "is null" in a column chunk,
    /// "exists" in a presence chunk.
    @inlinable @inline(__always)
    public func isNull(_ slot: Int) -> Bool { bit(slot) }

    @inlinable @inline(__always)
    public func bit(_ slot: Int) -> Bool {
        guard let base else { return false }
        let word = base.loadUnaligned(fromByteOffset: (slot >> 6) << 3, as: UInt64.self)
        return word & (1 << UInt64(slot & 63)) != 0
    }

    @inlinable @inline(__always)
    public func bitmapWord(_ index: Int) -> UInt64 {
        guard let base else { return 0 }
        return base.loadUnaligned(fromByteOffset: index << 3, as: UInt64.self)
    }

    /// Whether a presence chunk lists `column` as stored for its cluster.
    public func listsColumn(_ column: UInt32) -> Bool {
        guard let base else { return false }
        let byte = ClusterLayout.bitmapBytes + Int(column >> 3)
        guard byte < count else { return false }
        return base.load(fromByteOffset: byte, as: UInt8.self) & (1 << UInt8(column & 7)) != 0
    }

    /// Bytes per value of an int chunk (0: every value is the base).
    @inlinable @inline(__always)
    public var intWidth: Int {
        guard let base else { return 0 }
        return Int(base.load(fromByteOffset: ClusterLayout.intWidth, as: UInt8.self))
    }

    /// The base of an int chunk's values.
    @inlinable @inline(__always)
    public var intBase: Int64 {
        guard let base else { return 0 }
        return base.loadUnaligned(fromByteOffset: ClusterLayout.intBase, as: Int64.self)
    }

    /// Slot `slot` of an int chunk.
    @inlinable @inline(__always)
    public func int(_ slot: Int) -> Int64 {
        guard let base else { return 0 }
        return FrameOfReference.value(base + ClusterLayout.intValues, width: intWidth, base: intBase, slot)
    }

    /// The bytes of a string or binary slot (empty when the chunk is missing).
    @inlinable @inline(__always)
    public func bytes(_ slot: Int) -> UnsafeRawBufferPointer {
        guard let base else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        if parts != nil { return part(holding: slot).bytes(slot) }
        return ChunkPart(body: base, last: ClusterLayout.slots - 1).bytes(slot)
    }

    /// The bytes of every slot in `mask` of a stored string or binary chunk,
    /// the offset width decoded once per part.
    @inlinable @inline(__always)
    public func forEachBytes(_ mask: SIMD4<UInt64>, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        guard let base else { return }
        guard let parts else {
            ChunkPart(body: base, last: ClusterLayout.slots - 1).forEachBytes(mask, body)
            return
        }
        for i in 0..<partCount { parts[i].forEachBytes(mask, body) }
    }

    /// Decode one slot as a `Value` of `type` (null only if `nullable`).
    /// A link's slot reads as the target's object key (`.int`): the caller
    /// knows the target class.
    public func value(_ slot: Int, type: PropertyType, nullable: Bool) -> Value {
        guard let base else { return nullable ? .null : Value.zero(of: type) }
        if nullable && isNull(slot) { return .null }
        if type == .int || type == .link { return .int(int(slot)) }
        let width = type.fixedWidth
        let p = base + ClusterLayout.bitmapBytes + slot * width
        switch type {
        case .int, .link: return .int(int(slot))
        case .bool: return .bool(p.load(as: UInt8.self) != 0)
        case .float, .double, .timestamp, .decimal128, .objectId, .uuid: return Value.fixed(type, at: p)
        case .string: return .string(bytes(slot))
        case .binary, .mixed: return .binary(bytes(slot))
        }
    }
}

/// A chunk being changed inside a write transaction.  Fixed-width chunks and
/// presence bitmaps keep the stored layout in one buffer (so `ChunkReader`
/// reads them as it reads LMDB's map; int chunks are kept at width 8, base 0,
/// and packed again at commit).  String and binary chunks keep their
/// bytes in an append-only arena with one (offset, length) span per slot;
/// a replaced value's bytes stay behind as garbage until commit lays the
/// chunk out again.  Views of arena bytes stay valid until the chunk's next
/// write (the arena may move when it grows).
public final class DirtyChunk {
    public let type: PropertyType?          // nil: the presence bitmap
    public let fixed: UnsafeMutableRawPointer
    public let fixedSize: Int
    /// Whether no chunk was stored before this transaction (commit then
    /// lists the column in its cluster's presence chunk).
    public let isNew: Bool
    /// Whether the stored chunk was in parts (commit deletes its leading parts).
    public let wasInParts: Bool
    /// Per slot (offset, length) into `arena`; nil for fixed-width chunks.
    @usableFromInline let spans: UnsafeMutablePointer<(UInt32, UInt32)>?
    @usableFromInline var arena: UnsafeMutableRawPointer?
    private var arenaCount = 0
    private var arenaCapacity = 0
    /// Bytes of the arena that slots still use.
    @usableFromInline var liveBytes = 0
    /// Presence chunks: the columns stored for the cluster (bit c of byte c >> 3).
    public private(set) var columnSet: [UInt8] = []
    /// 32 bytes after `fixed` (same allocation): for a presence chunk, its
    /// bitmap as stored before the transaction; for a column chunk, the
    /// slots `set` and `fill` wrote (the change record's marks, see `ChangeLog`).
    @usableFromInline let marks: UnsafeMutableRawPointer

    /// Start from the stored chunk `from` (or from defaults).
    public init(type: PropertyType?, from stored: ChunkReader) {
        let type = type?.stored
        self.type = type
        isNew = stored.base == nil
        wasInParts = stored.parts != nil
        let width = type?.fixedWidth ?? 0
        let variable = type != nil && width == 0
        fixedSize = width == 0 ? ClusterLayout.bitmapBytes
            : type == .int ? ClusterLayout.intValues + ClusterLayout.slots * 8
            : ClusterLayout.chunkSize(fixedWidth: width)
        let marksOffset = (fixedSize + 7) & ~7
        fixed = UnsafeMutableRawPointer.allocate(byteCount: marksOffset + ClusterLayout.bitmapBytes, alignment: 16)
        marks = fixed + marksOffset
        if type == nil, let base = stored.base {
            marks.copyMemory(from: base, byteCount: ClusterLayout.bitmapBytes)
        } else {
            marks.initializeMemory(as: UInt8.self, repeating: 0, count: ClusterLayout.bitmapBytes)
        }
        if type == .int {
            if let base = stored.base {
                fixed.copyMemory(from: base, byteCount: ClusterLayout.bitmapBytes)
            } else {
                fixed.initializeMemory(as: UInt8.self, repeating: 0xFF, count: ClusterLayout.bitmapBytes)
            }
            fixed.storeBytes(of: 8, toByteOffset: ClusterLayout.intWidth, as: UInt8.self)
            fixed.storeBytes(of: 0, toByteOffset: ClusterLayout.intBase, as: Int64.self)
            let values = fixed + ClusterLayout.intValues
            for slot in 0..<ClusterLayout.slots {
                values.storeBytes(of: stored.int(slot), toByteOffset: slot << 3, as: Int64.self)
            }
        } else if let base = stored.base, !variable {
            fixed.copyMemory(from: base, byteCount: fixedSize)
            if type == nil, stored.count > ClusterLayout.bitmapBytes {
                columnSet = Array(UnsafeRawBufferPointer(start: base + ClusterLayout.bitmapBytes, count: stored.count - ClusterLayout.bitmapBytes))
            }
        } else if let base = stored.base {
            fixed.copyMemory(from: base, byteCount: ClusterLayout.bitmapBytes)
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
                    p.storeBytes(of: DecimalArithmetic.zero.low, as: UInt64.self)
                    (p + 8).storeBytes(of: DecimalArithmetic.zero.high, as: UInt64.self)
                }
            }
        }
        if variable {
            let spans = UnsafeMutablePointer<(UInt32, UInt32)>.allocate(capacity: ClusterLayout.slots)
            if stored.base != nil {
                // The stored bytes (of every part) in one arena.
                var total = 0
                for slot in 0..<ClusterLayout.slots { total += stored.bytes(slot).count }
                arenaCapacity = max(total, 256)
                arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 8)
                var used = 0
                for slot in 0..<ClusterLayout.slots {
                    let view = stored.bytes(slot)
                    if view.count > 0 { (arena! + used).copyMemory(from: view.baseAddress!, byteCount: view.count) }
                    spans[slot] = (UInt32(used), UInt32(view.count))
                    used += view.count
                }
                arenaCount = total
                liveBytes = total
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

    public var reader: ChunkReader { ChunkReader(UnsafeRawBufferPointer(start: fixed, count: fixedSize)) }

    // MARK: Bitmaps

    @inlinable @inline(__always)
    public func setBit(_ slot: Int, _ on: Bool) {
        let p = fixed + ((slot >> 6) << 3)
        var word = p.load(as: UInt64.self)
        if on { word |= 1 << UInt64(slot & 63) } else { word &= ~(1 << UInt64(slot & 63)) }
        p.storeBytes(of: word, as: UInt64.self)
    }

    @inlinable @inline(__always)
    public func bit(_ slot: Int) -> Bool {
        fixed.load(fromByteOffset: (slot >> 6) << 3, as: UInt64.self) & (1 << UInt64(slot & 63)) != 0
    }

    public var bitmapIsEmpty: Bool {
        (0..<4).allSatisfy { fixed.load(fromByteOffset: $0 << 3, as: UInt64.self) == 0 }
    }

    /// The bitmap as it is now (presence: the objects that exist).
    public var bitmap: Bitmap {
        Bitmap(fixed.load(as: UInt64.self), fixed.load(fromByteOffset: 8, as: UInt64.self),
               fixed.load(fromByteOffset: 16, as: UInt64.self), fixed.load(fromByteOffset: 24, as: UInt64.self))
    }

    /// Presence chunks: the bitmap as stored before this transaction.
    /// Column chunks: the slots written in this transaction.
    public var markedSlots: Bitmap {
        Bitmap(marks.load(as: UInt64.self), marks.load(fromByteOffset: 8, as: UInt64.self),
               marks.load(fromByteOffset: 16, as: UInt64.self), marks.load(fromByteOffset: 24, as: UInt64.self))
    }

    /// Column chunks: note that `slot` was written.
    @inlinable @inline(__always)
    func markWritten(_ slot: Int) {
        let p = marks + ((slot >> 6) << 3)
        p.storeBytes(of: p.load(as: UInt64.self) | 1 << UInt64(slot & 63), as: UInt64.self)
    }

    /// Presence chunks: whether `column` has a chunk in this cluster.
    public func listsColumn(_ column: UInt32) -> Bool {
        let byte = Int(column >> 3)
        return byte < columnSet.count && columnSet[byte] & (1 << UInt8(column & 7)) != 0
    }

    /// Presence chunks: the columns listed.
    public var listedColumns: [UInt32] {
        var result: [UInt32] = []
        for (byte, bits) in columnSet.enumerated() where bits != 0 {
            for bit in 0..<8 where bits & (1 << UInt8(bit)) != 0 { result.append(UInt32(byte * 8 + bit)) }
        }
        return result
    }

    /// Presence chunks: record that `column` has a chunk in this cluster.
    public func listColumn(_ column: UInt32) {
        let byte = Int(column >> 3)
        if columnSet.count <= byte { columnSet.append(contentsOf: repeatElement(0, count: byte + 1 - columnSet.count)) }
        columnSet[byte] |= 1 << UInt8(column & 7)
    }

    /// Presence chunks: record that `column` has no chunk in this cluster.
    public func unlistColumn(_ column: UInt32) {
        let byte = Int(column >> 3)
        if byte < columnSet.count { columnSet[byte] &= ~(1 << UInt8(column & 7)) }
    }

    // MARK: Values

    /// Store `value` (already checked against the property) in `slot`,
    /// marked as written (a modification, for the change record).
    @inlinable @inline(__always)
    public func set(_ slot: Int, _ value: Value) {
        if type == nil { return }
        markWritten(slot)
        setInNewObject(slot, value)
    }

    /// Store `value` in `slot` of an object created in this transaction:
    /// not a modification, so not marked (creating objects stays one store
    /// per value).
    @inlinable @inline(__always)
    public func setInNewObject(_ slot: Int, _ value: Value) {
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
        if case .link(_, let target) = value {
            // A link column holds the target's object key.
            fixed.storeBytes(of: target, toByteOffset: ClusterLayout.intValues + slot << 3, as: Int64.self)
            return
        }
        let p = fixed + ClusterLayout.bitmapBytes + slot * type.fixedWidth
        switch value {
        case .int, .link: break
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
        case .null, .nestedList, .nestedDictionary: break   // mixed values are stored coded, as binaries
        }
    }

    @usableFromInline func setBytes(_ slot: Int, _ bytes: UnsafeRawBufferPointer, _ spans: UnsafeMutablePointer<(UInt32, UInt32)>) {
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

    /// Store one `value` (already checked against the property) in every
    /// slot of `mask` at once: the null bitmap changes by whole words, a
    /// fixed-width value is laid out once and copied to each slot, and the
    /// bytes of a string or binary are added to the arena once, every slot
    /// pointing at the same copy (commit lays them out per slot).  `value`
    /// may not be a view of this chunk's own arena.
    public func fill(_ mask: Bitmap, with value: Value) {
        guard let type, mask != Bitmap(repeating: 0) else { return }
        let isNull = value.isNull
        for word in 0..<4 where mask[word] != 0 {
            let m = marks + (word << 3)
            m.storeBytes(of: m.load(as: UInt64.self) | mask[word], as: UInt64.self)
            let p = fixed + (word << 3)
            let bits = p.load(as: UInt64.self)
            p.storeBytes(of: isNull ? bits | mask[word] : bits & ~mask[word], as: UInt64.self)
        }
        if let spans {
            var filled = 0
            forEachSlot(mask) { slot in
                liveBytes -= Int(spans[slot].1)
                spans[slot] = (0, 0)
                filled += 1
            }
            guard !isNull else { return }
            let bytes: UnsafeRawBufferPointer
            switch value {
            case .string(let b), .binary(let b): bytes = b
            default: return
            }
            let n = bytes.count
            if arenaCount + n > arenaCapacity { compactArena(room: n) }
            if n > 0 { (arena! + arenaCount).copyMemory(from: bytes.baseAddress!, byteCount: n) }
            let span = (UInt32(arenaCount), UInt32(n))
            forEachSlot(mask) { slot in spans[slot] = span }
            arenaCount += n
            liveBytes += n * filled
            return
        }
        if isNull { return }
        if type == .int {
            let stored: Int64
            switch value {
            case .int(let v): stored = v
            case .link(_, let target): stored = target   // a link column holds the target's object key
            default: return
            }
            let values = fixed + ClusterLayout.intValues
            forEachSlot(mask) { slot in values.storeBytes(of: stored, toByteOffset: slot << 3, as: Int64.self) }
            return
        }
        // The value laid out once (in the first slot of the mask), then copied.
        let width = type.fixedWidth
        let values = fixed + ClusterLayout.bitmapBytes
        var first = -1
        forEachSlot(mask) { slot in
            if first < 0 {
                first = slot
                set(slot, value)
            } else {
                (values + slot * width).copyMemory(from: values + first * width, byteCount: width)
            }
        }
    }

    /// Move the live bytes of every slot to a new arena with room for `room`
    /// more bytes, dropping the garbage of replaced values.
    private func compactArena(room: Int) {
        guard let spans else { return }
        var capacity = max(arenaCapacity * 2, 256)
        while capacity < liveBytes + room + 64 { capacity *= 2 }
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        var used = 0
        for slot in 0..<ClusterLayout.slots {
            let (start, length) = spans[slot]
            if length > 0 && !bit(slot) {
                (fresh + used).copyMemory(from: arena! + Int(start), byteCount: Int(length))
                spans[slot] = (UInt32(used), length)
                used += Int(length)
            } else {
                spans[slot] = (0, 0)
            }
        }
        arena?.deallocate()
        arena = fresh
        arenaCount = used
        arenaCapacity = capacity
    }

    public func value(_ slot: Int, nullable: Bool) -> Value {
        guard let type else { return .null }
        if spans != nil {
            if bit(slot) { return nullable ? .null : Value.zero(of: type) }
            let view = bytes(slot) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            return type == .string ? .string(view) : .binary(view)
        }
        return reader.value(slot, type: type, nullable: nullable)
    }

    /// The bytes of a string or binary slot (nil when null).
    @inlinable @inline(__always)
    public func bytes(_ slot: Int) -> UnsafeRawBufferPointer? {
        guard let spans, !bit(slot) else { return nil }
        let (start, length) = spans[slot]
        guard let arena else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: arena + Int(start), count: Int(length))
    }

    public var isVariableWidth: Bool { spans != nil }

    // MARK: Encoding

    /// The frame of reference of an int chunk: the smallest value and the
    /// bytes per offset from it that hold every value.
    private var intFrame: (base: Int64, width: Int) {
        let values = fixed + ClusterLayout.intValues
        var low = Int64.max, high = Int64.min
        for slot in 0..<ClusterLayout.slots {
            let v = values.loadUnaligned(fromByteOffset: slot << 3, as: Int64.self)
            low = min(low, v)
            high = max(high, v)
        }
        let range = UInt64(bitPattern: high &- low)
        if range == 0 { return (low, 0) }
        if range <= UInt64(UInt8.max) { return (low, 1) }
        if range <= UInt64(UInt16.max) { return (low, 2) }
        if range <= UInt64(UInt32.max) { return (low, 4) }
        return (0, 8)
    }

    @inline(__always)
    private func liveLength(_ slot: Int) -> Int {
        bit(slot) ? 0 : Int(spans![slot].1)
    }

    private static func offsetWidth(_ total: Int) -> Int {
        total <= Int(UInt8.max) ? 1 : total <= Int(UInt16.max) ? 2 : 4
    }

    /// The size of a string or binary part of `slotCount` slots holding
    /// `bytes` bytes, its checksum included.
    @inline(__always)
    private static func partSize(slotCount: Int, bytes: Int) -> Int {
        ClusterLayout.varData(width: offsetWidth(bytes), slotCount: slotCount) + bytes + ClusterLayout.checksumBytes
    }

    /// The last slot of each part the chunk is stored in: `[255]` (one
    /// piece) unless it is a string or binary chunk larger than `limit`
    /// bytes, LMDB's largest value that stays on a page.  Parts are made
    /// about equal, so three parts of two-thirds of a page share pages well;
    /// a value larger than a part gets a part of its own (LMDB then gives
    /// it overflow pages).
    public func partLasts(limit: Int) -> [Int] {
        guard spans != nil else { return [ClusterLayout.slots - 1] }
        var total = 0
        for slot in 0..<ClusterLayout.slots { total += liveLength(slot) }
        let whole = DirtyChunk.partSize(slotCount: ClusterLayout.slots, bytes: total)
        if whole <= limit { return [ClusterLayout.slots - 1] }
        let partCount = (whole + limit - 1) / limit
        let target = min(limit, (whole + partCount - 1) / partCount + 48)
        var lasts: [Int] = []
        var first = 0, bytes = 0
        for slot in 0..<ClusterLayout.slots {
            let length = liveLength(slot)
            if slot > first && DirtyChunk.partSize(slotCount: slot - first + 1, bytes: bytes + length) > target {
                lasts.append(slot - 1)
                first = slot
                bytes = 0
            }
            bytes += length
        }
        lasts.append(ClusterLayout.slots - 1)
        return lasts
    }

    /// The size of the stored chunk (or of its part `first...last`), its
    /// checksum included.
    public func encodedSize(first: Int = 0, last: Int = ClusterLayout.slots - 1) -> Int {
        let body: Int
        if type == .int {
            body = ClusterLayout.intValues + ClusterLayout.slots * intFrame.width
        } else if spans != nil {
            var bytes = 0
            for slot in first...last { bytes += liveLength(slot) }
            return DirtyChunk.partSize(slotCount: last - first + 1, bytes: bytes)
        } else if type == nil {
            var used = columnSet.count
            while used > 0 && columnSet[used - 1] == 0 { used -= 1 }
            body = fixedSize + used
        } else {
            body = fixedSize
        }
        return body + ClusterLayout.checksumBytes
    }

    /// Lay the chunk (or its part `first...last`) out in `out` (exactly
    /// `encodedSize` bytes), checksum last, as stored under (`table`, `key`).
    public func encode(into out: UnsafeMutableRawBufferPointer, table: UInt32, key: UInt64, first: Int = 0, last: Int = ClusterLayout.slots - 1) {
        let base = out.baseAddress!
        let bodySize = out.count - ClusterLayout.checksumBytes
        base.copyMemory(from: fixed, byteCount: ClusterLayout.bitmapBytes)
        if type == .int {
            let (low, width) = intFrame
            base.storeBytes(of: UInt8(width), toByteOffset: ClusterLayout.intWidth, as: UInt8.self)
            base.storeBytes(of: low, toByteOffset: ClusterLayout.intBase, as: Int64.self)
            let from = fixed + ClusterLayout.intValues, to = base + ClusterLayout.intValues
            for slot in 0..<ClusterLayout.slots {
                let v = from.loadUnaligned(fromByteOffset: slot << 3, as: Int64.self)
                let offset = UInt64(bitPattern: v &- low)
                switch width {
                case 0: break
                case 1: to.storeBytes(of: UInt8(truncatingIfNeeded: offset), toByteOffset: slot, as: UInt8.self)
                case 2: to.storeBytes(of: UInt16(truncatingIfNeeded: offset), toByteOffset: slot << 1, as: UInt16.self)
                case 4: to.storeBytes(of: UInt32(truncatingIfNeeded: offset), toByteOffset: slot << 2, as: UInt32.self)
                default: to.storeBytes(of: v, toByteOffset: slot << 3, as: Int64.self)
                }
            }
        } else if let spans {
            let slotCount = last - first + 1
            var bytes = 0
            for slot in first...last { bytes += liveLength(slot) }
            let w = DirtyChunk.offsetWidth(bytes)
            base.storeBytes(of: UInt8(w), toByteOffset: ClusterLayout.varWidth, as: UInt8.self)
            base.storeBytes(of: UInt8(first), toByteOffset: ClusterLayout.varFirst, as: UInt8.self)
            let offsets = base + ClusterLayout.varOffsets
            let data = base + ClusterLayout.varData(width: w, slotCount: slotCount)
            var offset = 0
            for i in 0...slotCount {
                Offsets.store(offset, offsets, width: w, i)
                if i == slotCount { break }
                let slot = first + i
                let length = liveLength(slot)
                if length > 0 {
                    (data + offset).copyMemory(from: arena! + Int(spans[slot].0), byteCount: length)
                    offset += length
                }
            }
        } else {
            base.copyMemory(from: fixed, byteCount: fixedSize)
            if type == nil && bodySize > fixedSize {
                columnSet.withUnsafeBytes { (base + fixedSize).copyMemory(from: $0.baseAddress!, byteCount: bodySize - fixedSize) }
            }
        }
        let sum = ChunkCheck.checksum(table: table, key: key, UnsafeRawBufferPointer(start: base, count: bodySize))
        base.storeBytes(of: sum.littleEndian, toByteOffset: bodySize, as: UInt32.self)
    }
}
