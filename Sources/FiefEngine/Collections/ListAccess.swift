import FiefStorage

/// Where a list's elements live, as `ListAccess` uses them: the segments
/// of a list property (`PropertyList`) or the entries of a list nested in
/// a mixed value (`NestedList`).  A storage is opened for one call, checked
/// (the owner live, the nested list there); its writes run in the open
/// write transaction and may fail only on storage errors (`ListAccess`
/// poisons the transaction then, with no closure in the way).  A storage
/// is a struct of a few references, made for the call and handed to the
/// accessor's generic helpers, never copied; it does not hold the realm:
/// every call takes the accessor's (held, it would cost a retain and a
/// release per call).  Indexes are checked by `ListAccess`.
protocol ListStorage {
    /// The list in messages: "the list 'Person.dogs'", "the nested list".
    var name: String { get }
    /// The write transaction it was opened in, if it was.
    var write: WriteTransaction? { get }
    func count(_ realm: Realm) throws(FiefError) -> Int
    /// Element `index`, as the caller reads it.
    func value(_ realm: Realm, at index: Int) throws(FiefError) -> Value
    /// Elements `start ..< start + out.count`, which lie in the list.
    func values(_ realm: Realm, from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError)
    /// The index of the first element equal to `value`.
    func firstIndex(_ realm: Realm, of value: Value) throws(FiefError) -> Int?
    /// `value` checked and converted for an element (nothing written).
    func element(_ realm: Realm, _ value: Value) throws(FiefError) -> Value
    /// `values` checked and converted, in order (nothing written).
    func elements(_ realm: Realm, _ values: UnsafeBufferPointer<Value>) throws(FiefError) -> [Value]
    func insert(_ realm: Realm, _ element: Value, at index: Int) throws(FiefError)
    func append(_ realm: Realm, _ elements: UnsafeBufferPointer<Value>) throws(FiefError)
    /// `append` of one element.
    func append(_ realm: Realm, _ element: Value) throws(FiefError)
    /// Element `index` becomes `element` (nothing happens when it is the same).
    func replace(_ realm: Realm, at index: Int, with element: Value) throws(FiefError)
    func remove(_ realm: Realm, at index: Int) throws(FiefError)
    func move(_ realm: Realm, from: Int, to: Int) throws(FiefError)
    func swapAt(_ realm: Realm, _ i: Int, _ j: Int) throws(FiefError)
    func removeAll(_ realm: Realm) throws(FiefError)
}

/// A list, property or nested (`CollectionRef`), and every operation on
/// it: reads check that the realm is readable, writes that a write
/// transaction is open; then the list is opened (its owner live), indexes
/// and values checked before anything is written, and the write done by
/// the list's storage.  Made by `Realm.list(_:)` for one call (made and
/// used inside a borrow of the realm, holding it costs nothing).
public struct ListAccess {
    public let realm: Realm
    public let ref: CollectionRef

    @usableFromInline
    init(realm: Realm, ref: CollectionRef) {
        self.realm = realm
        self.ref = ref
    }

    // MARK: Reading

    /// The number of elements.
    public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        if ref.isNested { return try NestedList(realm, ref, write: nil).count(realm) }
        return try PropertyList(realm, ref, write: nil, load: false).count(realm)
    }

    /// Element `index` (a view for strings and binaries).
    public func value(at index: Int) throws(FiefError) -> Value {
        try realm.checkReadable()
        if ref.isNested { return try value(at: index, try NestedList(realm, ref, write: nil)) }
        return try value(at: index, try PropertyList(realm, ref, write: nil))
    }

    @inline(__always)
    private func value(at index: Int, _ list: some ListStorage) throws(FiefError) -> Value {
        try check(index, list, allowEnd: false)
        return try list.value(realm, at: index)
    }

    /// Elements `start ..< start + out.count`, into `out`.
    public func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        try realm.checkReadable()
        if ref.isNested { return try values(from: start, into: out, try NestedList(realm, ref, write: nil)) }
        try values(from: start, into: out, try PropertyList(realm, ref, write: nil))
    }

    @inline(__always)
    private func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>, _ list: some ListStorage) throws(FiefError) {
        try checkRange(start: start, count: out.count, list)
        if out.isEmpty { return }
        try list.values(realm, from: start, into: out)
    }

    /// Check that `count` elements from `start` lie in the list (before a
    /// buffer for them is made).
    public func checkRange(start: Int, count: Int) throws(FiefError) {
        try realm.checkReadable()
        if ref.isNested { return try checkRange(start: start, count: count, try NestedList(realm, ref, write: nil)) }
        try checkRange(start: start, count: count, try PropertyList(realm, ref, write: nil, load: false))
    }

    @inline(__always)
    private func checkRange(start: Int, count: Int, _ list: some ListStorage) throws(FiefError) {
        let size = try list.count(realm)
        guard FiefError.rangeFits(start: start, count: count, size: size) else {
            throw FiefError.rangeOutOfBounds("elements", start: start, count: count, ref.isNested ? "the nested list" : "the list", size: size)
        }
    }

    /// The index of the first element equal to `value`, if any (a value of
    /// another type is in no list; mixed elements compare by Realm's mixed
    /// equality, numbers by value across types).
    public func firstIndex(of value: Value) throws(FiefError) -> Int? {
        try realm.checkReadable()
        if ref.isNested { return try NestedList(realm, ref, write: nil).firstIndex(realm, of: value) }
        return try PropertyList(realm, ref, write: nil).firstIndex(realm, of: value)
    }

    // MARK: Writing

    /// Insert `value` before element `index` (`index` == count appends).
    public func insert(_ value: Value, at index: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try insert(value, at: index, try NestedList(realm, ref, write: write)) }
        try insert(value, at: index, try PropertyList(realm, ref, write: write))
    }

    @inline(__always)
    private func insert(_ value: Value, at index: Int, _ list: some ListStorage) throws(FiefError) {
        try check(index, list, allowEnd: true)
        let element = try list.element(realm, value)
        do throws(FiefError) {
            try list.insert(realm, element, at: index)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Append `values` (all checked before any is written).
    public func append(_ values: UnsafeBufferPointer<Value>) throws(FiefError) {
        if values.count == 1 { return try append(values[0]) }
        let write = try realm.requireWrite()
        if ref.isNested { return try append(values, try NestedList(realm, ref, write: write)) }
        try append(values, try PropertyList(realm, ref, write: write, complete: false))
    }

    @inline(__always)
    private func append(_ values: UnsafeBufferPointer<Value>, _ list: some ListStorage) throws(FiefError) {
        let elements = try list.elements(realm, values)
        do throws(FiefError) {
            try elements.withUnsafeBufferPointer { (buffer) throws(FiefError) in try list.append(realm, buffer) }
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Append one value: the common case, with no array (a property list
    /// loads only its last segment).
    public func append(_ value: Value) throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try append(value, try NestedList(realm, ref, write: write)) }
        try PropertyList.append(realm, write, ref, value)
    }

    @inline(__always)
    private func append(_ value: Value, _ list: some ListStorage) throws(FiefError) {
        let element = try list.element(realm, value)
        do throws(FiefError) {
            try list.append(realm, element)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Replace element `index`.
    public func set(_ value: Value, at index: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try set(value, at: index, try NestedList(realm, ref, write: write)) }
        try set(value, at: index, try PropertyList(realm, ref, write: write))
    }

    @inline(__always)
    private func set(_ value: Value, at index: Int, _ list: some ListStorage) throws(FiefError) {
        try check(index, list, allowEnd: false)
        let element = try list.element(realm, value)
        do throws(FiefError) {
            try list.replace(realm, at: index, with: element)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Remove element `index` (an embedded object or a nested collection it
    /// held goes with it).
    public func remove(at index: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try remove(at: index, try NestedList(realm, ref, write: write)) }
        try remove(at: index, try PropertyList(realm, ref, write: write))
    }

    @inline(__always)
    private func remove(at index: Int, _ list: some ListStorage) throws(FiefError) {
        try check(index, list, allowEnd: false)
        do throws(FiefError) {
            try list.remove(realm, at: index)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Move element `from` to index `to` (the others shift).
    public func move(from: Int, to: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try move(from: from, to: to, try NestedList(realm, ref, write: write)) }
        try move(from: from, to: to, try PropertyList(realm, ref, write: write))
    }

    @inline(__always)
    private func move(from: Int, to: Int, _ list: some ListStorage) throws(FiefError) {
        try check(from, list, allowEnd: false)
        try check(to, list, allowEnd: false)
        if from == to { return }
        do throws(FiefError) {
            try list.move(realm, from: from, to: to)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Swap elements `i` and `j`.
    public func swapAt(_ i: Int, _ j: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try swapAt(i, j, try NestedList(realm, ref, write: write)) }
        try swapAt(i, j, try PropertyList(realm, ref, write: write))
    }

    @inline(__always)
    private func swapAt(_ i: Int, _ j: Int, _ list: some ListStorage) throws(FiefError) {
        try check(i, list, allowEnd: false)
        try check(j, list, allowEnd: false)
        if i == j { return }
        do throws(FiefError) {
            try list.swapAt(realm, i, j)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Remove every element.
    public func removeAll() throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try removeAll(try NestedList(realm, ref, write: write)) }
        try removeAll(try PropertyList(realm, ref, write: write))
    }

    @inline(__always)
    private func removeAll(_ list: some ListStorage) throws(FiefError) {
        do throws(FiefError) {
            try list.removeAll(realm)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Remove every element and delete the objects of a list of links (each
    /// once).
    public func deleteAllObjects() throws(FiefError) {
        if ref.isNested { throw FiefError(.invalidArgument, "a nested list holds mixed values, not objects: there is nothing to delete (clear it instead)") }
        let write = try realm.requireWrite()
        let list = try PropertyList(realm, ref, write: write)
        try list.requireObjects(realm)
        do throws(FiefError) {
            try list.removeAllDeletingObjects(realm)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Create an object of the list's embedded class in place, inserted at
    /// `index` (count appends); its class and key.
    public func insertEmbedded(at index: Int) throws(FiefError) -> (classKey: UInt32, objectKey: Int64) {
        if ref.isNested { throw FiefError(.invalidArgument, "a nested list holds mixed values, which are never embedded objects") }
        let write = try realm.requireWrite()
        let list = try PropertyList(realm, ref, write: write)
        let child = try list.embeddedClass(realm)
        try check(index, list, allowEnd: true)
        return try list.insertEmbedded(realm, child, at: index)
    }

    // MARK: Shared

    /// Check `index` against the list's size (`allowEnd`: the size itself too).
    @inline(__always)
    private func check(_ index: Int, _ list: some ListStorage, allowEnd: Bool) throws(FiefError) {
        let count = try list.count(realm)
        guard index >= 0, index < count || (allowEnd && index == count) else {
            throw FiefError(.indexOutOfBounds, "index \(index) is out of range: \(list.name) has \(count) element\(count == 1 ? "" : "s")")
        }
    }
}
