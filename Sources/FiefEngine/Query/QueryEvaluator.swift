import CLMDB
import FiefStorage

// The comparisons evaluation uses: column chunks compared in place (lanes
// of integers, offsets of strings), values compared with constants and with
// each other, as Realm orders and equates them.

enum QueryEvaluator {
    @inline(__always)
    static func set(_ bits: inout Bitmap, _ slot: Int) {
        bits[slot >> 6] |= 1 << UInt64(slot & 63)
    }

    /// Compare int-chunk values stored as unsigned offsets from `base`
    /// (frame of reference) with `c`: base + u op c, as u op (c - base).
    @inline(__always)
    static func compareOffsets<T: FixedWidthInteger & UnsignedInteger>(_ values: UnsafeRawPointer, as: T.Type, base: Int64, _ op: QueryOperator, _ c: Int64, _ mask: Bitmap) -> Bitmap {
        // Below every value (c < base) or above every offset: decided at once.
        if c < base || UInt64(bitPattern: c &- base) > UInt64(T.max) {
            let above = c >= base
            let all: Bool
            switch op {
            case .less, .lessOrEqual: all = above
            case .greater, .greaterOrEqual: all = !above
            case .equal: all = false
            default: all = true
            }
            return all ? mask : Bitmap(repeating: 0)
        }
        return compareLanes(values, op, T(truncatingIfNeeded: UInt64(bitPattern: c &- base)), mask)
    }

    /// Compare 256 packed integers of type `T` with `k`: one bit per slot.
    @inline(__always)
    static func compareLanes<T: FixedWidthInteger>(_ values: UnsafeRawPointer, _ op: QueryOperator, _ k: T, _ mask: Bitmap) -> Bitmap {
        var bits = Bitmap(repeating: 0)
        let width = MemoryLayout<T>.size
        for word in 0..<4 where mask[word] != 0 {
            var w: UInt64 = 0
            let p = values + (word << 6) * width
            switch op {
            case .less: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) < k ? 1 : 0) << UInt64(i) }
            case .lessOrEqual: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) <= k ? 1 : 0) << UInt64(i) }
            case .greater: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) > k ? 1 : 0) << UInt64(i) }
            case .greaterOrEqual: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) >= k ? 1 : 0) << UInt64(i) }
            case .equal: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) == k ? 1 : 0) << UInt64(i) }
            default: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) != k ? 1 : 0) << UInt64(i) }
            }
            bits[word] = w
        }
        return bits
    }

    /// One slot's value of `property`'s column chunk, a mixed value decoded
    /// (a view into the chunk); nil when a mixed value's coding is damaged.
    @inline(__always)
    static func slotValue(_ chunk: ColumnChunk, _ slot: Int, _ property: Property) -> Value? {
        guard property.type == .mixed else { return chunk.value(slot, type: property.type, nullable: property.isNullable) }
        guard case .binary(let coded) = chunk.value(slot, type: .mixed, nullable: true) else { return .null }
        return MixedCoding.decode(coded)
    }

    static func valueOf(_ c: QueryConstant) -> Value {
        switch c {
        case .null: return .null
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .bytes(let bytes, let isString):
            // The view is only used while `c` (and its array) is alive.
            let view = bytes.withUnsafeBytes { $0 }
            return isString ? .string(view) : .binary(view)
        case .timestamp(let s, let ns): return .timestamp(seconds: s, nanoseconds: ns)
        case .objectId(let id): return .objectId(id)
        case .uuid(let id): return .uuid(id)
        case .decimal(let d): return .decimal128(d)
        case .link(let classKey, let objectKey): return .link(classKey: classKey, objectKey: objectKey)
        }
    }

    /// Compare one column chunk with a constant over the slots in `mask`.
    static func compareColumn(_ chunk: ColumnChunk, _ property: Property, _ op: QueryOperator, _ constant: QueryConstant, _ options: QueryStringOptions, mask: Bitmap) -> Bitmap {
        let reader = chunk.reader
        // Null tests.
        if case .null = constant {
            var nulls = Bitmap(repeating: 0)
            if property.isNullable, reader.base != nil {
                nulls = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
            } else if property.isNullable {
                nulls = Bitmap(repeating: ~0)   // a missing chunk reads as all null
            }
            return op == .equal ? (nulls & mask) : (~nulls & mask)
        }
        // Fast path: int column against an int constant, at the chunk's width
        // (a link column holds object keys: compared with a link's key).
        var intConstant: Int64?
        if property.type == .int, case .int(let c) = constant { intConstant = c }
        if property.type == .link, case .link(_, let c) = constant { intConstant = c }
        if let c = intConstant, let base = reader.base {
            let values = UnsafeRawPointer(base + ClusterLayout.intValues)
            let low = reader.intBase
            var bits: Bitmap
            switch reader.intWidth {
            case 0: bits = QueryEvaluator.compare(.int(low), op, .int(c), []) ? mask : Bitmap(repeating: 0)
            case 1: bits = QueryEvaluator.compareOffsets(values, as: UInt8.self, base: low, op, c, mask)
            case 2: bits = QueryEvaluator.compareOffsets(values, as: UInt16.self, base: low, op, c, mask)
            case 4: bits = QueryEvaluator.compareOffsets(values, as: UInt32.self, base: low, op, c, mask)
            default: bits = QueryEvaluator.compareLanes(values, op, c, mask)   // the values themselves
            }
            if property.isNullable {
                let nulls = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
                bits = op == .notEqual ? (bits | nulls) : (bits & ~nulls)
            }
            return bits & mask
        }
        // Fast path: case-sensitive string operators.
        if property.type == .string || property.type == .binary, options.isEmpty, case .bytes(let needle, _) = constant,
           op == .beginsWith || op == .equal || op == .notEqual {
            var bits = Bitmap(repeating: 0)
            needle.withUnsafeBytes { n in
                // The first bytes compared inline: most values differ there,
                // and a call to memcmp costs more than the comparison.
                let first = n.count > 0 ? n.load(as: UInt8.self) : 0
                @inline(__always)
                func same(_ s: UnsafeRawBufferPointer) -> Bool {
                    n.count == 0 || (s.load(as: UInt8.self) == first
                                     && (n.count == 1 || memcmp(s.baseAddress! + 1, n.baseAddress! + 1, n.count - 1) == 0))
                }
                let test = { (slot: Int, s: UnsafeRawBufferPointer) in
                    let isNull = property.isNullable && (reader.base == nil || reader.isNull(slot))
                    var match: Bool
                    switch op {
                    case .beginsWith: match = !isNull && s.count >= n.count && same(s)
                    case .equal: match = !isNull && s.count == n.count && same(s)
                    default: match = isNull || s.count != n.count || !same(s)
                    }
                    if match { set(&bits, slot) }
                }
                if chunk.dirtyItems == nil, reader.base != nil {
                    reader.forEachBytes(mask, test)
                } else {
                    forEachSlot(mask) { slot in test(slot, chunk.bytes(slot)) }
                }
            }
            return bits
        }
        // General path: decode each slot.
        var bits = Bitmap(repeating: 0)
        withExtendedLifetime(constant) {
            let c = valueOf(constant)
            forEachSlot(mask) { slot in
                let v = chunk.value(slot, type: property.type, nullable: property.isNullable)
                if compare(v, op, constant, options, constantValue: c) { set(&bits, slot) }
            }
        }
        return bits
    }

    static func compare(_ v: Value, _ op: QueryOperator, _ constant: QueryConstant, _ options: QueryStringOptions) -> Bool {
        withExtendedLifetime(constant) { compare(v, op, constant, options, constantValue: valueOf(constant)) }
    }

    @inline(__always)
    static func compare(_ v: Value, _ op: QueryOperator, _ constant: QueryConstant, _ options: QueryStringOptions, constantValue: Value) -> Bool {
        compareValues(v, op, constantValue, options)
    }

    /// Realm's comparison semantics for two values of compatible types.
    static func compareValues(_ a: Value, _ op: QueryOperator, _ b: Value, _ options: QueryStringOptions) -> Bool {
        if a.isNull || b.isNull {
            let both = a.isNull && b.isNull
            switch op {
            case .equal: return both
            case .notEqual: return !both
            case .lessOrEqual, .greaterOrEqual: return both
            default: return false
            }
        }
        switch (a, b) {
        case (.string(let x), .string(let y)), (.binary(let x), .binary(let y)),
             (.binary(let x), .string(let y)), (.string(let x), .binary(let y)):
            return StringMatching.compare(x, op, y, options)
        case (.bool(let x), .bool(let y)):
            return op == .equal ? x == y : (op == .notEqual ? x != y : false)
        case (.link(let c1, let k1), .link(let c2, let k2)):
            let same = c1 == c2 && k1 == k2
            return op == .equal ? same : (op == .notEqual ? !same : false)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)):
            return ordered(s1 != s2 ? (s1 < s2 ? -1 : 1) : (n1 == n2 ? 0 : (n1 < n2 ? -1 : 1)), op)
        case (.objectId(let x), .objectId(let y)):
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        case (.uuid(let x), .uuid(let y)):
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        case (.int(let x), .int(let y)):
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return op == .notEqual }
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        default:
            // Numbers of different types compare by exact value (a large
            // int against a double, a decimal against either).
            guard MixedOrder.rank(a) == 2, MixedOrder.rank(b) == 2 else { return op == .notEqual }
            if MixedOrder.isNaN(a) || MixedOrder.isNaN(b) { return op == .notEqual }
            return ordered(MixedOrder.compareNumbers(a, b), op)
        }
    }

    /// `constant op value` for the string operators, the constant first
    /// (`'abc' CONTAINS name`), as realm-core answers it: the value is the
    /// pattern searched for in the constant (never null here); a null value
    /// is contained in every constant and begins, ends or is like none;
    /// strings match strings and binaries binaries only.
    static func constant(_ c: Value, _ op: QueryOperator, matches value: Value, _ options: QueryStringOptions) -> Bool {
        if value.isNull { return op == .contains }
        switch (c, value) {
        case (.string(let text), .string(let pattern)), (.binary(let text), .binary(let pattern)):
            return StringMatching.compare(text, op, pattern, options)
        default:
            return false
        }
    }

    @inline(__always)
    static func ordered(_ c: Int, _ op: QueryOperator) -> Bool {
        switch op {
        case .equal: return c == 0
        case .notEqual: return c != 0
        case .less: return c < 0
        case .lessOrEqual: return c <= 0
        case .greater: return c > 0
        case .greaterOrEqual: return c >= 0
        default: return false
        }
    }

    static func number(_ v: Value) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .float(let f): return Double(f)
        case .double(let d): return d
        case .decimal128(let d): return DecimalArithmetic.toDouble(d)
        default: return nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
