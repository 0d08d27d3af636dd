import FiefStorage

/// Where a map's entries live, as `MapAccess` uses them: the entry
/// database of a map property (`PropertyMap`) or the entries of a
/// dictionary nested in a mixed value (`NestedDictionary`).  Opened for one
/// call, checked; keys reaching it are valid (`MapStore.keyProblem`), and
/// its writes may fail only on storage errors (`MapAccess` poisons the
/// transaction then).
protocol MapStorage {
    /// The map in range errors: "the map", "the nested dictionary".
    var name: String { get }
    /// The map before a refused key's problem: "'Person.tags'", "a nested dictionary".
    var keyContext: String { get }
    var write: WriteTransaction? { get }
    func count() throws(FiefError) -> Int
    /// The error for entry `index` of a map of `count` entries.
    func indexError(_ index: Int, count: Int) -> FiefError
    /// The value of `key`, nil without the key.
    func value(forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value?
    /// The entries in key order (keys without the owner, values stored).
    func entries() throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]
    /// A stored value of `entries()`, as the caller reads it.
    func value(stored raw: UnsafeRawBufferPointer) throws(FiefError) -> Value
    /// `value` checked and converted for a value of the map (nothing written).
    func element(_ value: Value) throws(FiefError) -> Value
    func set(_ key: UnsafeRawBufferPointer, _ element: Value) throws(FiefError)
    /// Remove `key`; whether it was there.
    func remove(_ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool
    func removeAll() throws(FiefError)
}

/// A map, property or nested dictionary (`CollectionRef`), and every
/// operation on it, written once: reads check that the realm is readable,
/// writes that a write transaction is open; the map is opened (its owner
/// live), keys and values are checked before anything is written, and the
/// map's storage writes.  Keys are refused (with nothing written) when
/// they contain `.`, start with `$`, are not UTF-8 or are longer than 480
/// bytes; such a key is in no map.  Made by `Realm.map(_:)` for one call.
public struct MapAccess {
    unowned(unsafe) public let realm: Realm
    public let ref: CollectionRef

    init(realm: Realm, ref: CollectionRef) {
        self.realm = realm
        self.ref = ref
    }

    // MARK: Reading

    /// The number of entries.
    public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        return try storage(write: nil).count()
    }

    /// The value of `key`, or nil when the map has no such key.
    public func value(forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value? {
        try realm.checkReadable()
        return try value(forKey: key, try storage(write: nil))
    }

    @inline(__always)
    private func value(forKey key: UnsafeRawBufferPointer, _ map: AnyMapStorage) throws(FiefError) -> Value? {
        if MapStore.keyProblem(key) != nil { return nil }
        return try map.value(forKey: key)
    }

    /// Entry `index` in key order (the key a view into the database).
    public func entry(at index: Int) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: Value) {
        try realm.checkReadable()
        return try entry(at: index, try storage(write: nil))
    }

    @inline(__always)
    private func entry(at index: Int, _ map: AnyMapStorage) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: Value) {
        let entries = try map.entries()
        guard index >= 0, index < entries.count else { throw map.indexError(index, count: entries.count) }
        return (entries[index].key, try map.value(stored: entries[index].value))
    }

    /// Entries `start ..< start + count` in key order: their keys into
    /// `keys` and values into `values` (either may be nil).
    public func entries(from start: Int, count: Int, keys: UnsafeMutablePointer<UnsafeRawBufferPointer>?,
                        values: UnsafeMutablePointer<Value>?) throws(FiefError) {
        try realm.checkReadable()
        try entries(from: start, count: count, keys: keys, values: values, try storage(write: nil))
    }

    @inline(__always)
    private func entries(from start: Int, count: Int, keys: UnsafeMutablePointer<UnsafeRawBufferPointer>?,
                         values: UnsafeMutablePointer<Value>?, _ map: AnyMapStorage) throws(FiefError) {
        let entries = try map.entries()
        guard FiefError.rangeFits(start: start, count: count, size: entries.count) else {
            throw FiefError.rangeOutOfBounds("entries", start: start, count: count, map.name, size: entries.count)
        }
        for i in 0..<count {
            keys?[i] = entries[start + i].key
            if let values { values[i] = try map.value(stored: entries[start + i].value) }
        }
    }

    /// Check that `count` entries from `start` lie in the map (before a
    /// buffer for them is made).
    public func checkRange(start: Int, count: Int) throws(FiefError) {
        let size = try self.count()
        guard FiefError.rangeFits(start: start, count: count, size: size) else {
            throw FiefError.rangeOutOfBounds("entries", start: start, count: count, ref.isNested ? "the nested dictionary" : "the map", size: size)
        }
    }

    /// The position of `key` in the map's key order, if the map has it.
    public func index(ofKey key: UnsafeRawBufferPointer) throws(FiefError) -> Int? {
        try realm.checkReadable()
        return try index(ofKey: key, try storage(write: nil))
    }

    @inline(__always)
    private func index(ofKey key: UnsafeRawBufferPointer, _ map: AnyMapStorage) throws(FiefError) -> Int? {
        let entries = try map.entries()
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if Realm.compareKeys(entries[mid].key, key) < 0 { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && Realm.compareKeys(entries[low].key, key) == 0 ? low : nil
    }

    // MARK: Writing

    /// Set `key` to `value`, adding the key if the map does not have it.
    public func set(_ value: Value, forKey key: UnsafeRawBufferPointer) throws(FiefError) {
        let write = try realm.requireWrite()
        try set(value, forKey: key, try storage(write: write))
    }

    @inline(__always)
    private func set(_ value: Value, forKey key: UnsafeRawBufferPointer, _ map: AnyMapStorage) throws(FiefError) {
        try checkKey(key, map)
        let element = try map.element(value)
        do throws(FiefError) {
            try map.set(key, element)
        } catch {
            throw realm.poison(map.write!, error)
        }
    }

    /// Remove `key`; true when it was there.
    @discardableResult
    public func remove(_ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool {
        let write = try realm.requireWrite()
        return try remove(key, try storage(write: write))
    }

    @inline(__always)
    private func remove(_ key: UnsafeRawBufferPointer, _ map: AnyMapStorage) throws(FiefError) -> Bool {
        if MapStore.keyProblem(key) != nil { return false }
        var removed = false
        do throws(FiefError) {
            removed = try map.remove(key)
        } catch {
            throw realm.poison(map.write!, error)
        }
        return removed
    }

    /// Remove every entry.
    public func removeAll() throws(FiefError) {
        let write = try realm.requireWrite()
        try removeAll(try storage(write: write))
    }

    @inline(__always)
    private func removeAll(_ map: AnyMapStorage) throws(FiefError) {
        do throws(FiefError) {
            try map.removeAll()
        } catch {
            throw realm.poison(map.write!, error)
        }
    }

    /// Create an object of the map's embedded class in place as the value
    /// of `key` (the key's previous embedded object is deleted).
    public func insertEmbedded(forKey key: UnsafeRawBufferPointer) throws(FiefError) -> (classKey: UInt32, objectKey: Int64) {
        if ref.isNested { throw FiefError(.invalidArgument, "a nested dictionary holds mixed values, which are never embedded objects") }
        let write = try realm.requireWrite()
        let map = try PropertyMap(realm, ref, write: write)
        let child = try map.embeddedClass()
        try checkKey(key, .property(map))
        return try map.insertEmbedded(child, forKey: key)
    }

    /// The storage of the map: its owner live, the nested dictionary there.
    @inline(__always)
    private func storage(write: WriteTransaction?) throws(FiefError) -> AnyMapStorage {
        if ref.isNested { return .nested(try NestedDictionary(realm, ref, write: write)) }
        return .property(try PropertyMap(realm, ref, write: write))
    }

    // MARK: Shared

    @inline(__always)
    private func checkKey(_ key: UnsafeRawBufferPointer, _ map: AnyMapStorage) throws(FiefError) {
        if let problem = MapStore.keyProblem(key) {
            throw FiefError(problem == MapStore.invalidUTF8 ? .invalidUTF8 : .invalidArgument, "\(map.keyContext): \(problem)")
        }
    }
}

/// The storage of one map, of either kind, chosen once per call by
/// `CollectionRef.isNested`: each operation switches to the storage's own
/// method (direct calls, the storage never copied).
enum AnyMapStorage: MapStorage {
    case property(PropertyMap)
    case nested(NestedDictionary)

    @inline(__always)
    var name: String {
        switch self {
        case .property(let storage): return storage.name
        case .nested(let storage): return storage.name
        }
    }

    @inline(__always)
    var keyContext: String {
        switch self {
        case .property(let storage): return storage.keyContext
        case .nested(let storage): return storage.keyContext
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
    func indexError(_ index: Int, count: Int) -> FiefError {
        switch self {
        case .property(let storage): return storage.indexError(index, count: count)
        case .nested(let storage): return storage.indexError(index, count: count)
        }
    }

    @inline(__always)
    func value(forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value? {
        switch self {
        case .property(let storage): return try storage.value(forKey: key)
        case .nested(let storage): return try storage.value(forKey: key)
        }
    }

    @inline(__always)
    func entries() throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] {
        switch self {
        case .property(let storage): return try storage.entries()
        case .nested(let storage): return try storage.entries()
        }
    }

    @inline(__always)
    func value(stored raw: UnsafeRawBufferPointer) throws(FiefError) -> Value {
        switch self {
        case .property(let storage): return try storage.value(stored: raw)
        case .nested(let storage): return try storage.value(stored: raw)
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
    func set(_ key: UnsafeRawBufferPointer, _ element: Value) throws(FiefError) {
        switch self {
        case .property(let storage): return try storage.set(key, element)
        case .nested(let storage): return try storage.set(key, element)
        }
    }

    @inline(__always)
    func remove(_ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool {
        switch self {
        case .property(let storage): return try storage.remove(key)
        case .nested(let storage): return try storage.remove(key)
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
