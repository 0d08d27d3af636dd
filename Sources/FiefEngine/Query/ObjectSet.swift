// Sets of object keys as the scans keep them: sorted keys taken a cluster
// at a time, and `ObjectSet`, a mask per cluster.
import FiefStorage

/// Sorted object keys (ascending, repeats allowed) taken a cluster at a
/// time: each cluster holding some of them, in key order, with the mask
/// of its keys.  What index plans, backlinks and candidate lists become
/// before a scan visits them.
struct SortedKeyClusters: Sequence, IteratorProtocol {
    private let keys: [Int64]
    private var index = 0

    init(_ sortedKeys: [Int64]) { keys = sortedKeys }

    @inline(__always)
    mutating func next() -> (cluster: Int64, bits: Bitmap)? {
        guard index < keys.count else { return nil }
        let cluster = ClusterLayout.cluster(of: keys[index])
        // The mask's words in registers (setting a bit of a SIMD value in
        // place goes through memory, a stall per key).
        var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
        while index < keys.count && ClusterLayout.cluster(of: keys[index]) == cluster {
            let slot = ClusterLayout.slot(of: keys[index])
            let bit: UInt64 = 1 << UInt64(slot & 63)
            switch slot >> 6 {
            case 0: w0 |= bit
            case 1: w1 |= bit
            case 2: w2 |= bit
            default: w3 |= bit
            }
            index += 1
        }
        return (cluster, Bitmap(w0, w1, w2, w3))
    }
}

/// Objects of one class: a 256-bit mask per cluster.
///
/// While objects come in ascending cluster order (a set made from sorted
/// keys, an index's answer, a scan of the clusters) the masks are two
/// sorted arrays, read by binary search, with nothing hashed; an object
/// added out of order moves them into a dictionary.
struct ObjectSet {
    /// The clusters holding objects, ascending, and their masks (none
    /// empty), while `hashed` is nil.
    private var orderedClusters: [Int64] = []
    private var orderedBits: [Bitmap] = []
    /// Every cluster's mask, once an object was added out of order.
    private var hashed: [Int64: Bitmap]?

    init() {}

    /// The objects `keys` (ascending, repeats allowed).
    init(sortedKeys keys: [Int64]) {
        // At most a cluster per key, at most as many as the class can have.
        let clusters = keys.isEmpty ? 0 : min(keys.count, Int(ClusterLayout.cluster(of: keys[keys.count - 1]) - ClusterLayout.cluster(of: keys[0])) + 1)
        orderedClusters.reserveCapacity(clusters)
        orderedBits.reserveCapacity(clusters)
        for (cluster, bits) in SortedKeyClusters(keys) {
            orderedClusters.append(cluster)
            orderedBits.append(bits)
        }
    }

    /// The objects `keys` (in any order, repeats allowed: the origins of a
    /// path's backlinks, a run per target).  When their clusters span no
    /// more clusters than there are keys, their bits are set in a mask per
    /// cluster of that range and the clusters holding some taken in order,
    /// with no sort; else the keys are sorted first.
    init(keysInAnyOrder keys: [Int64]) {
        self.init()
        guard var low = keys.first.map({ ClusterLayout.cluster(of: $0) }) else { return }
        var high = low
        for key in keys {
            let cluster = ClusterLayout.cluster(of: key)
            low = min(low, cluster)
            high = max(high, cluster)
        }
        let span = Int(high - low) + 1
        // Zeroing and walking the range costs about what sorting the keys
        // does when there is a key per cluster.
        guard span <= max(16, keys.count) else {
            self = ObjectSet(sortedKeys: keys.sorted())
            return
        }
        var words = [UInt64](repeating: 0, count: span * 4)
        var clusters = 0
        words.withUnsafeMutableBufferPointer { w in
            for key in keys {
                let slot = ClusterLayout.slot(of: key)
                w[Int(ClusterLayout.cluster(of: key) - low) * 4 + slot >> 6] |= 1 << UInt64(slot & 63)
            }
            for i in 0..<span where w[4 * i] | w[4 * i + 1] | w[4 * i + 2] | w[4 * i + 3] != 0 { clusters += 1 }
            orderedClusters.reserveCapacity(clusters)
            orderedBits.reserveCapacity(clusters)
            for i in 0..<span where w[4 * i] | w[4 * i + 1] | w[4 * i + 2] | w[4 * i + 3] != 0 {
                orderedClusters.append(low + Int64(i))
                orderedBits.append(Bitmap(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]))
            }
        }
    }

    var isEmpty: Bool { hashed.map { $0.isEmpty } ?? orderedClusters.isEmpty }

    /// Where `cluster` is or would go in `orderedClusters`.
    @inline(__always)
    private func position(of cluster: Int64) -> Int {
        var low = 0, high = orderedClusters.count
        while low < high {
            let mid = (low + high) >> 1
            if orderedClusters[mid] < cluster { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// From sorted arrays to the dictionary (an object added out of order).
    private mutating func makeHashed() -> [Int64: Bitmap] {
        if let hashed { return hashed }
        var table = [Int64: Bitmap](minimumCapacity: orderedClusters.count)
        for i in orderedClusters.indices { table[orderedClusters[i]] = orderedBits[i] }
        orderedClusters = []
        orderedBits = []
        return table
    }

    @inline(__always)
    mutating func insert(_ key: Int64) {
        var bits = Bitmap(repeating: 0)
        QueryEvaluator.set(&bits, ClusterLayout.slot(of: key))
        insert(cluster: ClusterLayout.cluster(of: key), bits)
    }

    /// Add the objects `bits` of `cluster`.
    @inline(__always)
    mutating func insert(cluster: Int64, _ bits: Bitmap) {
        if bits == Bitmap(repeating: 0) { return }
        if hashed == nil {
            if let last = orderedClusters.last, last >= cluster {
                if last == cluster {
                    orderedBits[orderedBits.count - 1] |= bits
                    return
                }
            } else {
                orderedClusters.append(cluster)
                orderedBits.append(bits)
                return
            }
            hashed = makeHashed()
        }
        hashed![cluster, default: Bitmap(repeating: 0)] |= bits
    }

    @inline(__always)
    mutating func remove(_ key: Int64) {
        let cluster = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
        let bit: UInt64 = 1 << UInt64(slot & 63)
        if hashed != nil {
            guard var bits = hashed![cluster] else { return }
            bits[slot >> 6] &= ~bit
            hashed![cluster] = bits == Bitmap(repeating: 0) ? nil : bits
            return
        }
        let i = position(of: cluster)
        guard i < orderedClusters.count, orderedClusters[i] == cluster else { return }
        orderedBits[i][slot >> 6] &= ~bit
        if orderedBits[i] == Bitmap(repeating: 0) {
            orderedClusters.remove(at: i)
            orderedBits.remove(at: i)
        }
    }

    @inline(__always)
    func contains(_ key: Int64) -> Bool {
        let slot = ClusterLayout.slot(of: key)
        return bits(ClusterLayout.cluster(of: key))[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// The objects of `cluster` in the set.
    @inline(__always)
    func bits(_ cluster: Int64) -> Bitmap {
        if let hashed { return hashed[cluster] ?? Bitmap(repeating: 0) }
        let i = position(of: cluster)
        return i < orderedClusters.count && orderedClusters[i] == cluster ? orderedBits[i] : Bitmap(repeating: 0)
    }

    /// The clusters holding objects of the set, in key order.
    var sortedClusters: [Int64] { hashed.map { $0.keys.sorted() } ?? orderedClusters }

    /// Each cluster holding objects of the set, in key order, with its objects.
    func forEachCluster(_ body: (Int64, Bitmap) throws(FiefError) -> Void) throws(FiefError) {
        if let hashed {
            for cluster in hashed.keys.sorted() { try body(cluster, hashed[cluster]!) }
            return
        }
        for i in orderedClusters.indices { try body(orderedClusters[i], orderedBits[i]) }
    }

    /// Every object, in key order.
    func forEach(_ body: (Int64) throws(FiefError) -> Void) throws(FiefError) {
        try forEachCluster { (cluster, bits) throws(FiefError) in
            let base = cluster << ClusterLayout.shift
            for word in 0..<4 {
                var w = bits[word]
                while w != 0 {
                    try body(base | Int64(word << 6 | w.trailingZeroBitCount))
                    w &= w - 1
                }
            }
        }
    }
}
