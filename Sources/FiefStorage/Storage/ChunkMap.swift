/// A hash map from chunk ids to values, for the per-snapshot and
/// per-transaction chunk caches on every read's path: open addressing with
/// linear probing and a multiplicative hash, no SipHash, no per-entry
/// allocation.  Entries are never removed one by one (only `removeAll`).
public struct ChunkMap<Value> {
    @usableFromInline var keys: [ChunkID?]
    @usableFromInline var values: [Value?]
    @usableFromInline var mask: Int
    public var count = 0

    public init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = [ChunkID?](repeating: nil, count: size)
        values = [Value?](repeating: nil, count: size)
        mask = size - 1
    }

    @inlinable @inline(__always)
    func bucket(_ id: ChunkID) -> Int {
        let mixed = (id.key ^ (UInt64(id.table) &* 0xD6E8_FEB8_6659_FD93)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    @inlinable @inline(__always)
    public subscript(id: ChunkID) -> Value? {
        get {
            var i = bucket(id)
            while let key = keys[i] {
                if key == id { return values[i] }
                i = (i + 1) & mask
            }
            return nil
        }
        set {
            guard let newValue else { return }
            var i = bucket(id)
            while let key = keys[i] {
                if key == id { values[i] = newValue; return }
                i = (i + 1) & mask
            }
            keys[i] = id
            values[i] = newValue
            count += 1
            if count * 2 > mask { grow() }
        }
    }

    @usableFromInline mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [ChunkID?](repeating: nil, count: oldKeys.count * 2)
        values = [Value?](repeating: nil, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        for i in 0..<oldKeys.count {
            if let key = oldKeys[i] { self[key] = oldValues[i] }
        }
    }

    /// Every entry, in no particular order.
    public var entries: [(ChunkID, Value)] {
        var result: [(ChunkID, Value)] = []
        result.reserveCapacity(count)
        for i in 0..<keys.count { if let key = keys[i], let value = values[i] { result.append((key, value)) } }
        return result
    }

    /// Keep only the entries for which `keep` is true.
    public mutating func filter(_ keep: (ChunkID) -> Bool) {
        let kept = entries.filter { keep($0.0) }
        self = ChunkMap(capacity: max(kept.count, 16))
        for (key, value) in kept { self[key] = value }
    }
}
