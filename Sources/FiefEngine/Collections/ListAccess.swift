import FiefStorage

/// Where a list's elements live, as `ListAccess` uses them: the segments
/// of a list property (`PropertyList`) or the entries of a list nested in
/// a mixed value (`NestedList`).  A storage is opened for one call, checked
/// (the owner live, the nested list there); its writes run in the open
/// write transaction and may fail only on storage errors (`ListAccess`
/// poisons the transaction then).  Write failures poison the transaction
/// in `ListAccess`, with no closure in the way: a storage is a struct of a
/// few references, and the hot paths (append, read) must not copy it.  Indexes are checked by `ListAccess`.
protocol ListStorage {
    /// The list in messages: "the list 'Person.dogs'", "the nested list".
    var name: String { get }
    /// The write transaction it was opened in, if it was.
    var write: WriteTransaction? { get }
    func count() throws(FiefError) -> Int
    /// Element `index`, as the caller reads it.
    func value(at index: Int) throws(FiefError) -> Value
    /// Elements `start ..< start + out.count`, which lie in the list.
    func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError)
    /// The index of the first element equal to `value`.
    func firstIndex(of value: Value) throws(FiefError) -> Int?
    /// `value` checked and converted for an element (nothing written).
    func element(_ value: Value) throws(FiefError) -> Value
    func insert(_ element: Value, at index: Int) throws(FiefError)
    func append(_ elements: UnsafeBufferPointer<Value>) throws(FiefError)
    /// `append` of one element.
    func append(_ element: Value) throws(FiefError)
    /// Element `index` becomes `element` (nothing happens when it is the same).
    func replace(at index: Int, with element: Value) throws(FiefError)
    func remove(at index: Int) throws(FiefError)
    func move(from: Int, to: Int) throws(FiefError)
    func swapAt(_ i: Int, _ j: Int) throws(FiefError)
    func removeAll() throws(FiefError)
}

/// A list, property or nested (`CollectionRef`), and every operation on
/// it: reads check that the realm is readable, writes that a write
/// transaction is open; then the list is opened (its owner live), indexes
/// and values checked before anything is written, and the write done by
/// the list's storage.  Made by `Realm.list(_:)` for one call: it borrows
/// the realm.
public struct ListAccess {
    unowned(unsafe) public let realm: Realm
    public let ref: CollectionRef

    init(realm: Realm, ref: CollectionRef) {
        self.realm = realm
        self.ref = ref
    }

    // MARK: Reading

    /// The number of elements.
    public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        return try storage(write: nil, load: false).count()
    }

    /// Element `index` (a view for strings and binaries).
    public func value(at index: Int) throws(FiefError) -> Value {
        try realm.checkReadable()
        return try value(at: index, try storage(write: nil))
    }

    @inline(__always)
    private func value(at index: Int, _ list: AnyListStorage) throws(FiefError) -> Value {
        try check(index, list, allowEnd: false)
        return try list.value(at: index)
    }

    /// Elements `start ..< start + out.count`, into `out`.
    public func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        try realm.checkReadable()
        try values(from: start, into: out, try storage(write: nil))
    }

    @inline(__always)
    private func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>, _ list: AnyListStorage) throws(FiefError) {
        try checkRange(start: start, count: out.count, list)
        if out.isEmpty { return }
        try list.values(from: start, into: out)
    }

    /// Check that `count` elements from `start` lie in the list (before a
    /// buffer for them is made).
    public func checkRange(start: Int, count: Int) throws(FiefError) {
        try realm.checkReadable()
        try checkRange(start: start, count: count, try storage(write: nil, load: false))
    }

    @inline(__always)
    private func checkRange(start: Int, count: Int, _ list: AnyListStorage) throws(FiefError) {
        let size = try list.count()
        guard FiefError.rangeFits(start: start, count: count, size: size) else {
            throw FiefError.rangeOutOfBounds("elements", start: start, count: count, ref.isNested ? "the nested list" : "the list", size: size)
        }
    }

    /// The index of the first element equal to `value`, if any (a value of
    /// another type is in no list; mixed elements compare by Realm's mixed
    /// equality, numbers by value across types).
    public func firstIndex(of value: Value) throws(FiefError) -> Int? {
        try realm.checkReadable()
        return try storage(write: nil).firstIndex(of: value)
    }

    // MARK: Writing

    /// Insert `value` before element `index` (`index` == count appends).
    public func insert(_ value: Value, at index: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        try insert(value, at: index, try storage(write: write))
    }

    @inline(__always)
    private func insert(_ value: Value, at index: Int, _ list: AnyListStorage) throws(FiefError) {
        try check(index, list, allowEnd: true)
        let element = try list.element(value)
        do throws(FiefError) {
            try list.insert(element, at: index)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Append `values` (all checked before any is written).
    public func append(_ values: UnsafeBufferPointer<Value>) throws(FiefError) {
        let write = try realm.requireWrite()
        try append(values, try storage(write: write, complete: false))
    }

    @inline(__always)
    private func append(_ values: UnsafeBufferPointer<Value>, _ list: AnyListStorage) throws(FiefError) {
        if values.count == 1 {
            // The common case, without an array.
            let element = try list.element(values[0])
            do throws(FiefError) {
                try list.append(element)
            } catch {
                throw realm.poison(list.write!, error)
            }
            return
        }
        var elements: [Value] = []
        elements.reserveCapacity(values.count)
        for value in values { elements.append(try list.element(value)) }
        do throws(FiefError) {
            try elements.withUnsafeBufferPointer { (buffer) throws(FiefError) in try list.append(buffer) }
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Replace element `index`.
    public func set(_ value: Value, at index: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        try set(value, at: index, try storage(write: write))
    }

    @inline(__always)
    private func set(_ value: Value, at index: Int, _ list: AnyListStorage) throws(FiefError) {
        try check(index, list, allowEnd: false)
        let element = try list.element(value)
        do throws(FiefError) {
            try list.replace(at: index, with: element)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Remove element `index` (an embedded object or a nested collection it
    /// held goes with it).
    public func remove(at index: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        try remove(at: index, try storage(write: write))
    }

    @inline(__always)
    private func remove(at index: Int, _ list: AnyListStorage) throws(FiefError) {
        try check(index, list, allowEnd: false)
        do throws(FiefError) {
            try list.remove(at: index)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Move element `from` to index `to` (the others shift).
    public func move(from: Int, to: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        try move(from: from, to: to, try storage(write: write))
    }

    @inline(__always)
    private func move(from: Int, to: Int, _ list: AnyListStorage) throws(FiefError) {
        try check(from, list, allowEnd: false)
        try check(to, list, allowEnd: false)
        if from == to { return }
        do throws(FiefError) {
            try list.move(from: from, to: to)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Swap elements `i` and `j`.
    public func swapAt(_ i: Int, _ j: Int) throws(FiefError) {
        let write = try realm.requireWrite()
        try swapAt(i, j, try storage(write: write))
    }

    @inline(__always)
    private func swapAt(_ i: Int, _ j: Int, _ list: AnyListStorage) throws(FiefError) {
        try check(i, list, allowEnd: false)
        try check(j, list, allowEnd: false)
        if i == j { return }
        do throws(FiefError) {
            try list.swapAt(i, j)
        } catch {
            throw realm.poison(list.write!, error)
        }
    }

    /// Remove every element.
    public func removeAll() throws(FiefError) {
        let write = try realm.requireWrite()
        try removeAll(try storage(write: write))
    }

    @inline(__always)
    private func removeAll(_ list: AnyListStorage) throws(FiefError) {
        do throws(FiefError) {
            try list.removeAll()
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
        try list.requireObjects()
        do throws(FiefError) {
            try list.removeAllDeletingObjects()
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
        let child = try list.embeddedClass()
        try check(index, .property(list), allowEnd: true)
        return try list.insertEmbedded(child, at: index)
    }

    /// The storage of the list: its owner live, the nested list there.
    @inline(__always)
    private func storage(write: WriteTransaction?, load: Bool = true, complete: Bool = true) throws(FiefError) -> AnyListStorage {
        if ref.isNested { return .nested(try NestedList(realm, ref, write: write)) }
        return .property(try PropertyList(realm, ref, write: write, load: load, complete: complete))
    }

    // MARK: Shared

    /// Check `index` against the list's size (`allowEnd`: the size itself too).
    @inline(__always)
    private func check(_ index: Int, _ list: AnyListStorage, allowEnd: Bool) throws(FiefError) {
        let count = try list.count()
        guard index >= 0, index < count || (allowEnd && index == count) else {
            throw FiefError(.indexOutOfBounds, "index \(index) is out of range: \(list.name) has \(count) element\(count == 1 ? "" : "s")")
        }
    }
}

/// The storage of one list, of either kind, chosen once per call by
/// `CollectionRef.isNested`: each operation switches to the storage's own
/// method (direct calls, the storage never copied).
enum AnyListStorage: ListStorage {
    case property(PropertyList)
    case nested(NestedList)

    @inline(__always)
    var name: String {
        switch self {
        case .property(let storage): return storage.name
        case .nested(let storage): return storage.name
        }
    }

    @inline(__always)
    var write: WriteTransaction? {
        switch self {
        case .property(let storage): return storage.write
        case .nested(let storage): return storage.write
        }
    }

    @inline(__always)
    func count() throws(FiefError) -> Int {
        switch self {
        case .property(let storage): return try storage.count()
        case .nested(let storage): return try storage.count()
        }
    }

    @inline(__always)
    func value(at index: Int) throws(FiefError) -> Value {
        switch self {
        case .property(let storage): return try storage.value(at: index)
        case .nested(let storage): return try storage.value(at: index)
        }
    }

    @inline(__always)
    func values(from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.values(from: start, into: out)
        case .nested(let storage): return try storage.values(from: start, into: out)
        }
    }

    @inline(__always)
    func firstIndex(of value: Value) throws(FiefError) -> Int? {
        switch self {
        case .property(let storage): return try storage.firstIndex(of: value)
        case .nested(let storage): return try storage.firstIndex(of: value)
        }
    }

    @inline(__always)
    func element(_ value: Value) throws(FiefError) -> Value {
        switch self {
        case .property(let storage): return try storage.element(value)
        case .nested(let storage): return try storage.element(value)
        }
    }

    @inline(__always)
    func insert(_ element: Value, at index: Int) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.insert(element, at: index)
        case .nested(let storage): return try storage.insert(element, at: index)
        }
    }

    @inline(__always)
    func append(_ elements: UnsafeBufferPointer<Value>) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.append(elements)
        case .nested(let storage): return try storage.append(elements)
        }
    }

    @inline(__always)
    func append(_ element: Value) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.append(element)
        case .nested(let storage): return try storage.append(element)
        }
    }

    @inline(__always)
    func replace(at index: Int, with element: Value) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.replace(at: index, with: element)
        case .nested(let storage): return try storage.replace(at: index, with: element)
        }
    }

    @inline(__always)
    func remove(at index: Int) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.remove(at: index)
        case .nested(let storage): return try storage.remove(at: index)
        }
    }

    @inline(__always)
    func move(from: Int, to: Int) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.move(from: from, to: to)
        case .nested(let storage): return try storage.move(from: from, to: to)
        }
    }

    @inline(__always)
    func swapAt(_ i: Int, _ j: Int) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.swapAt(i, j)
        case .nested(let storage): return try storage.swapAt(i, j)
        }
    }

    @inline(__always)
    func removeAll() throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.removeAll()
        case .nested(let storage): return try storage.removeAll()
        }
    }
}
