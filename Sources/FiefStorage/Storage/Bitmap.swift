/// One bit per slot of a cluster (256 slots, `ClusterLayout`): the slots a
/// scan keeps, or a chunk operation covers.
public typealias Bitmap = SIMD4<UInt64>

/// Run `body` for every slot set in `mask`, in slot order.
@inlinable @inline(__always)
public func forEachSlot(_ mask: Bitmap, _ body: (Int) -> Void) {
    for word in 0..<4 {
        var w = mask[word]
        while w != 0 {
            let bit = w.trailingZeroBitCount
            body(word << 6 | bit)
            w &= w - 1
        }
    }
}
