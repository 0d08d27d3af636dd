/// A set property (`CollectionRef` of kind `.set`; sets do not nest) and
/// every operation on it; the work is done by the set's storage in the
/// class's set database (`SetStore`, Sets.swift).  Made by `Realm.set(_:)`
/// for one call: it borrows the realm.
public struct SetAccess {
    unowned(unsafe) public let realm: Realm
    public let ref: CollectionRef

    init(realm: Realm, ref: CollectionRef) {
        self.realm = realm
        self.ref = ref
    }

    /// The number of elements.
    public func count() throws(FiefError) -> Int { try realm.setCount(ref) }

    /// Element `index` in the set's order (a view for strings and binaries).
    public func value(at index: Int) throws(FiefError) -> Value { try realm.setValue(ref, index: index) }

    /// Elements `start ..< start + out.count` in the set's order.
    public func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        try realm.setValues(ref, start: start, into: out)
    }

    /// Check that `count` elements from `start` lie in the set (before a
    /// buffer for them is made).
    public func checkRange(start: Int, count: Int) throws(FiefError) {
        let size = try self.count()
        guard FiefError.rangeFits(start: start, count: count, size: size) else {
            throw FiefError.rangeOutOfBounds("elements", start: start, count: count, "the set", size: size)
        }
    }

    public func contains(_ value: Value) throws(FiefError) -> Bool { try realm.setContains(ref, value) }

    /// The position of `value` in the set's order, if the set holds it.
    public func firstIndex(of value: Value) throws(FiefError) -> Int? { try realm.setIndex(ref, of: value) }

    /// Add `value`; true when it was not there.
    @discardableResult
    public func insert(_ value: Value) throws(FiefError) -> Bool { try realm.setInsert(ref, value) }

    /// Remove `value`; true when it was there.
    @discardableResult
    public func remove(_ value: Value) throws(FiefError) -> Bool { try realm.setRemove(ref, value) }

    public func removeAll() throws(FiefError) { try realm.setClear(ref) }

    /// Whether the set and `other` (a set of the same property type) share an element.
    public func intersects(_ other: CollectionRef) throws(FiefError) -> Bool { try realm.setIntersects(ref, other) }

    /// Whether every element of the set is in `other`.
    public func isSubset(of other: CollectionRef) throws(FiefError) -> Bool { try realm.setIsSubset(ref, of: other) }

    /// Whether every element of `other` is in the set.
    public func isSuperset(of other: CollectionRef) throws(FiefError) -> Bool { try realm.setIsSubset(other, of: ref) }

    /// Add every element of `other`.
    public func formUnion(_ other: CollectionRef) throws(FiefError) { try realm.setFormUnion(ref, other) }

    /// Keep only the elements `other` holds too.
    public func formIntersection(_ other: CollectionRef) throws(FiefError) { try realm.setFormIntersection(ref, other) }

    /// Remove every element `other` holds.
    public func subtract(_ other: CollectionRef) throws(FiefError) { try realm.setSubtract(ref, other) }
}
