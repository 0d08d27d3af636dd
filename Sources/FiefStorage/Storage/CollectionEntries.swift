/// The entries of one set or map as read once in a snapshot or a write
/// transaction: views into LMDB's map (keys without their owner prefix), in
/// key order, so `set[i]` and iteration cost one walk.  A write transaction
/// forgets them at its next write to a set or map.
public final class CollectionEntries {
    public let entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]
    public init(_ entries: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) { self.entries = entries }
}
