import FiefStorage

/// Where a map's entries live, as `MapAccess` uses them: the entry
/// database of a map property (`PropertyMap`) or the entries of a
/// dictionary nested in a mixed value (`NestedDictionary`).  Opened for one
/// call, checked; keys reaching it are valid (`MapStore.keyProblem`), and
/// its writes may fail only on storage errors (`MapAccess` poisons the
/// transaction then).  Like `ListStorage`, a struct made for the call that
/// takes the realm with every call.
protocol MapStorage {
    /// The map in range errors: "the map", "the nested dictionary".
    var name: String { get }
    /// The map before a refused key's problem: "'Person.tags'", "a nested dictionary".
    var keyContext: String { get }
    var write: WriteTransaction? { get }
    func count(_ realm: Realm) throws(FiefError) -> Int
    /// The error for entry `index` of a map of `count` entries.
    func indexError(_ realm: Realm, _ index: Int, count: Int) -> FiefError
    /// The value of `key`, nil without the key.
    func value(_ realm: Realm, forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value?
    /// The entries in key order (keys without the owner, values stored).
    func entries(_ realm: Realm) throws(FiefError) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]
    /// A stored value of `entries()`, as the caller reads it.
    func value(_ realm: Realm, stored raw: UnsafeRawBufferPointer) throws(FiefError) -> Value
    /// `value` checked and converted for a value of the map (nothing written).
    func element(_ realm: Realm, _ value: Value) throws(FiefError) -> Value
    func set(_ realm: Realm, _ key: UnsafeRawBufferPointer, _ element: Value) throws(FiefError)
    /// Remove `key`; whether it was there.
    func remove(_ realm: Realm, _ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool
    func removeAll(_ realm: Realm) throws(FiefError)
}

/// A map, property or nested dictionary (`CollectionRef`), and every
/// operation on it, written once: reads check that the realm is readable,
/// writes that a write transaction is open; the map is opened (its owner
/// live), keys and values are checked before anything is written, and the
/// map's storage writes.  Keys are refused (with nothing written) when
/// they contain `.`, start with `$`, are not UTF-8 or are longer than 480
/// bytes; such a key is in no map.  Made by `Realm.map(_:)` for one call.
public struct MapAccess {
    public let realm: Realm
    public let ref: CollectionRef

    @usableFromInline
    init(realm: Realm, ref: CollectionRef) {
        self.realm = realm
        self.ref = ref
    }

    // MARK: Reading

    /// The number of entries.
    public func count() throws(FiefError) -> Int {
        try realm.checkReadable()
        if ref.isNested { return try NestedDictionary(realm, ref, write: nil).count(realm) }
        return try PropertyMap(realm, ref, write: nil).count(realm)
    }

    /// The value of `key`, or nil when the map has no such key.
    public func value(forKey key: UnsafeRawBufferPointer) throws(FiefError) -> Value? {
        try realm.checkReadable()
        if ref.isNested { return try value(forKey: key, NestedDictionary(realm, ref, write: nil)) }
        return try value(forKey: key, PropertyMap(realm, ref, write: nil))
    }

    @inline(__always)
    private func value(forKey key: UnsafeRawBufferPointer, _ map: some MapStorage) throws(FiefError) -> Value? {
        if MapStore.keyProblem(key) != nil { return nil }
        return try map.value(realm, forKey: key)
    }

    /// Entry `index` in key order (the key a view into the database).
    public func entry(at index: Int) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: Value) {
        try realm.checkReadable()
        if ref.isNested { return try entry(at: index, NestedDictionary(realm, ref, write: nil)) }
        return try entry(at: index, PropertyMap(realm, ref, write: nil))
    }

    @inline(__always)
    private func entry(at index: Int, _ map: some MapStorage) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: Value) {
        let entries = try map.entries(realm)
        guard index >= 0, index < entries.count else { throw map.indexError(realm, index, count: entries.count) }
        return (entries[index].key, try map.value(realm, stored: entries[index].value))
    }

    /// Entries `start ..< start + count` in key order: their keys into
    /// `keys` and values into `values` (either may be nil).
    public func entries(from start: Int, count: Int, keys: UnsafeMutablePointer<UnsafeRawBufferPointer>?,
                        values: UnsafeMutablePointer<Value>?) throws(FiefError) {
        try realm.checkReadable()
        if ref.isNested { return try entries(from: start, count: count, keys: keys, values: values, NestedDictionary(realm, ref, write: nil)) }
        try entries(from: start, count: count, keys: keys, values: values, PropertyMap(realm, ref, write: nil))
    }

    @inline(__always)
    private func entries(from start: Int, count: Int, keys: UnsafeMutablePointer<UnsafeRawBufferPointer>?,
                         values: UnsafeMutablePointer<Value>?, _ map: some MapStorage) throws(FiefError) {
        let entries = try map.entries(realm)
        guard FiefError.rangeFits(start: start, count: count, size: entries.count) else {
            throw FiefError.rangeOutOfBounds("entries", start: start, count: count, map.name, size: entries.count)
        }
        for i in 0..<count {
            keys?[i] = entries[start + i].key
            if let values { values[i] = try map.value(realm, stored: entries[start + i].value) }
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
        if ref.isNested { return try index(ofKey: key, NestedDictionary(realm, ref, write: nil)) }
        return try index(ofKey: key, PropertyMap(realm, ref, write: nil))
    }

    @inline(__always)
    private func index(ofKey key: UnsafeRawBufferPointer, _ map: some MapStorage) throws(FiefError) -> Int? {
        let entries = try map.entries(realm)
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
        if ref.isNested { return try set(value, forKey: key, NestedDictionary(realm, ref, write: write)) }
        try PropertyMap.set(realm, write, ref, key, value)
    }

    @inline(__always)
    private func set(_ value: Value, forKey key: UnsafeRawBufferPointer, _ map: some MapStorage) throws(FiefError) {
        try checkKey(key, map)
        let element = try map.element(realm, value)
        do throws(FiefError) {
            try map.set(realm, key, element)
        } catch {
            throw realm.poison(map.write!, error)
        }
    }

    /// Remove `key`; true when it was there.
    @discardableResult
    public func remove(_ key: UnsafeRawBufferPointer) throws(FiefError) -> Bool {
        let write = try realm.requireWrite()
        if ref.isNested { return try remove(key, NestedDictionary(realm, ref, write: write)) }
        return try remove(key, PropertyMap(realm, ref, write: write))
    }

    @inline(__always)
    private func remove(_ key: UnsafeRawBufferPointer, _ map: some MapStorage) throws(FiefError) -> Bool {
        if MapStore.keyProblem(key) != nil { return false }
        var removed = false
        do throws(FiefError) {
            removed = try map.remove(realm, key)
        } catch {
            throw realm.poison(map.write!, error)
        }
        return removed
    }

    /// Remove every entry.
    public func removeAll() throws(FiefError) {
        let write = try realm.requireWrite()
        if ref.isNested { return try removeAll(try NestedDictionary(realm, ref, write: write)) }
        try removeAll(try PropertyMap(realm, ref, write: write))
    }

    @inline(__always)
    private func removeAll(_ map: some MapStorage) throws(FiefError) {
        do throws(FiefError) {
            try map.removeAll(realm)
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
        let child = try map.embeddedClass(realm)
        try checkKey(key, map)
        return try map.insertEmbedded(realm, child, forKey: key)
    }

    // MARK: Shared

    @inline(__always)
    private func checkKey(_ key: UnsafeRawBufferPointer, _ map: some MapStorage) throws(FiefError) {
        try Self.checkKey(key, map.keyContext)
    }

    /// A key refused before anything is written; `context` names the map.
    @inline(__always)
    static func checkKey(_ key: UnsafeRawBufferPointer, _ context: @autoclosure () -> String) throws(FiefError) {
        if let problem = MapStore.keyProblem(key) {
            throw FiefError(problem == MapStore.invalidUTF8 ? .invalidUTF8 : .invalidArgument, "\(context()): \(problem)")
        }
    }
}
