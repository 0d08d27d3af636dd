import FiefStorage

/// A set property (`CollectionRef` of kind `.set`; sets do not nest) and
/// every operation on it; the work is done by the set's storage in the
/// class's set database (`SetStore`, Sets.swift).  Made by `Realm.set(_:)`
/// for one call.
public struct SetAccess {
    public let realm: Realm
    public let ref: CollectionRef

    @usableFromInline
    init(realm: Realm, ref: CollectionRef) {
        self.realm = realm
        self.ref = ref
    }

    /// Check that `count` elements from `start` lie in the set (before a
    /// buffer for them is made).
    public func checkRange(start: Int, count: Int) throws(FiefError) {
        let size = try self.count()
        guard FiefError.rangeFits(start: start, count: count, size: size) else {
            throw FiefError.rangeOutOfBounds("elements", start: start, count: count, "the set", size: size)
        }
    }

    /// Whether every element of `other` is in the set.
    public func isSuperset(of other: CollectionRef) throws(FiefError) -> Bool {
        try realm.set(other).isSubset(of: ref)
    }
}
