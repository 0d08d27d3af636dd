// RealmSwift's `Map<Key, Value>`: a collection property of string keys to
// values or objects.  Unmanaged, a Map holds a Swift dictionary; once its
// object is managed, the same instance reads and writes the map in the
// realm through the C functions of fief.h's "Maps" group
// (fief_object_get_map, fief_map_*).

import CFief
import Foundation

/// The type of a map's keys (RealmSwift's `_MapKey`): only `String`.
public protocol _MapKey: Hashable {
    /// The key as the realm stores it.
    var _fiefMapKey: String { get }
    /// A key from the stored one.
    init(_fiefMapKey: String)
}

extension String: _MapKey {
    public var _fiefMapKey: String { self }
    public init(_fiefMapKey key: String) { self = key }
}

/// One key and its value, what iterating a `Map` gives (RealmSwift's `SingleMapEntry`).
public protocol _RealmMapValue {
    associatedtype Key: _MapKey
    associatedtype Value: RealmCollectionValue
    /// The key.
    var key: Key { get }
    /// The value of the key.
    var value: Value { get }
}

/// A key and its value in a `Map`: `for entry in map { entry.key, entry.value }`.
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: _RealmMapValue, Hashable {
    /// The key.
    public var key: Key
    /// The value of the key.
    public var value: Value
}

/// A position in a `Map` (RealmSwift's `MapIndex`).
public struct MapIndex {
    /// The position of the entry in key order.
    public var offset: UInt
}

/// A key-value collection of Realm values (RealmSwift's `RealmKeyedCollection`),
/// the protocol behind `Map`.
public protocol RealmKeyedCollection: Sequence, ThreadConfined, CustomStringConvertible {
    associatedtype Key: _MapKey
    associatedtype Value: RealmCollectionValue

    /// The number of keys.
    var count: Int { get }
    /// Sets `value` for `key`, adding the key if it is new.
    func updateValue(_ value: Value, forKey key: Key)
    /// Removes `key` and its value, if present.
    func removeObject(for key: Key)
    /// Removes every key.
    func removeAll()
    /// The value of `key`, or nil; assigning nil removes the key.
    subscript(key: Key) -> Value? { get set }
    /// The value of `key` (KVC), or nil.
    func value(forKey key: String) -> AnyObject?
    /// The value of a key path (KVC), or nil.
    func value(forKeyPath keyPath: String) -> AnyObject?
    /// Sets the value of `key` (KVC).
    func setValue(_ value: Any?, forKey key: String)
    /// Whether an entry satisfies `predicate`.
    func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool
    /// The values sorted by a property.
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Value>
    /// The values sorted by several properties.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Iterator.Element == SortDescriptor
    /// Every key, in key order.
    var keys: [Key] { get }
    /// Every value, in key order.
    var values: [Value] { get }
    /// The smallest value of a property of the values.
    func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType
    /// The largest value of a property of the values.
    func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType
    /// The sum of a property of the values.
    func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType
    /// The average of a property of the values.
    func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType
}

/// A collection of values of a model class keyed by strings, the map
/// property of a model class (RealmSwift's `Map`):
///
///     class Dog: Object {
///         @Persisted var name = ""
///         // city name -> favorite park in that city
///         @Persisted var favoriteParksByCity: Map<String, String>
///         @Persisted var friendsByNickname: Map<String, Dog?>
///     }
///     dog.favoriteParksByCity["Chicago"] = "Millennium Park"
///     for entry in dog.favoriteParksByCity { print(entry.key, entry.value) }
///
/// Values may be any scalar type Fief stores (optional or not), persistable
/// enums, custom persistable types, `Object` subclasses (optional: a map of
/// links, whose values become nil when their object is deleted, the keys
/// staying) and `EmbeddedObject` subclasses (optional: objects owned by the
/// map, created in place when assigned).  Keys are strings that contain no
/// `.` and do not start with `$` (writing such a key to a managed map traps,
/// as RealmSwift throws, and writes nothing); the realm keeps at most 480
/// bytes of UTF-8 per key.
///
/// An unmanaged map (the property of an unmanaged object, or `Map()`) holds
/// its entries in memory; `Realm.add` writes them and turns the same
/// instance into a live view of the realm's map, which always shows the
/// realm's current version.  Entries come in key order (bytewise UTF-8),
/// managed or not.  Writes to a managed map need a write transaction.
public final class Map<Key: _MapKey, Value: RealmCollectionValue> {
    enum State {
        case unmanaged([Key: Value])
        case managed(ManagedMap)
    }

    var state: State
    /// Set on the throwaway map a key-path recorder reads through
    /// (Internal/KeyPathRecorder.swift): what every key of an unmanaged map
    /// reads as, so `\Kennel.dogsByName["a"]??.name` records
    /// `dogsByName.name`, as RealmSwift's map does in recording mode.
    var recordingValue: Value?

    /// Creates an empty, unmanaged map.
    public init() {
        state = .unmanaged([:])
    }

    init(managed: ManagedMap) {
        state = .managed(managed)
    }

    deinit {
        // An unmanaged AnyRealmValue tree goes level by level, not by recursion.
        guard Value.self == AnyRealmValue.self else { return }
        var values: [AnyRealmValue] = []
        if case .unmanaged(let entries) = state { values = entries.values.map { $0 as! AnyRealmValue } }
        state = .unmanaged([:])
        AnyRealmValue.fiefRelease(&values)
    }

    // MARK: Value conversions

    /// The value type as a persistable type (every `RealmCollectionValue` is one).
    static var valueType: any _Persistable.Type {
        guard let type = Value.self as? any _Persistable.Type else {
            preconditionFailure("\(Value.self) cannot be stored in a Map")
        }
        return type
    }

    /// Whether values are embedded objects (created in place).
    static var isEmbedded: Bool { valueType._fiefLinkTarget is EmbeddedObject.Type }

    private func value(_ value: fief_value_t, _ managed: ManagedMap, key: String) -> Value {
        if Value.self == AnyRealmValue.self {
            guard let mixed = AnyRealmValue.fiefRead(value, core: managed.core, in: .mapValue(managed, key)) else {
                preconditionFailure("Map '\(managed.name)' holds a value of type \(value.type) that is no mixed value")
            }
            return mixed as! Value
        }
        guard let result = Self.valueType._fiefReadElement(value, in: Realm(core: managed.core), as: Value.self) else {
            preconditionFailure("Map '\(managed.name)' holds a value of type \(value.type) that does not convert to \(Value.self)")
        }
        return result
    }

    // MARK: Reading

    /// The number of keys (fief_map_count).
    public var count: Int {
        switch state {
        case .unmanaged(let entries): return entries.count
        case .managed(let managed): return managed.size()
        }
    }

    /// Whether the map has no keys.
    public var isEmpty: Bool { count == 0 }

    /// Every key and its value, in key order (one fief_map_get_entries call
    /// for a managed map).
    var entries: [SingleMapEntry<Key, Value>] {
        switch state {
        case .unmanaged(let entries):
            // In key order: bytewise UTF-8, as the realm orders keys.
            return entries.keys.sorted { $0._fiefMapKey.utf8.lexicographicallyPrecedes($1._fiefMapKey.utf8) }
                .map { SingleMapEntry(key: $0, value: entries[$0]!) }
        case .managed(let managed):
            return range(managed, 0, managed.size())
        }
    }

    /// `entries` as a Swift dictionary (the later of two equal keys wins).
    static func dictionary(_ entries: [SingleMapEntry<Key, Value>]) -> [Key: Value] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    func range(_ managed: ManagedMap, _ start: Int, _ count: Int) -> [SingleMapEntry<Key, Value>] {
        managed.entries(start, count).map { SingleMapEntry(key: Key(_fiefMapKey: $0.key), value: value($0.value, managed, key: $0.key)) }
    }

    /// Every key, in key order.
    public var keys: [Key] {
        switch state {
        case .unmanaged: return entries.map(\.key)
        case .managed(let managed): return managed.keys().map { Key(_fiefMapKey: $0) }
        }
    }

    /// Every value, in key order (nil for a value that is nil).
    public var values: [Value] { entries.map(\.value) }

    /// The value of `key`, or nil when the map does not have the key
    /// (fief_map_get); for a map of optional values, `.some(nil)` for a key
    /// whose value is nil.  Assigning a value sets it (fief_map_set; for
    /// embedded objects fief_map_insert_embedded), adding the key if it is
    /// new; assigning nil removes the key (fief_map_remove).  An unmanaged
    /// object assigned to a managed map of links is added to the realm.
    /// Writes to a managed map need a write transaction.
    public subscript(key: Key) -> Value? {
        get {
            switch state {
            case .unmanaged(let entries):
                return recordingValue ?? entries[key]
            case .managed(let managed):
                return managed.get(key._fiefMapKey).map { value($0, managed, key: key._fiefMapKey) }
            }
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeObject(for: key)
            }
        }
    }

    /// The value of `key` as an object (a string key; nil as `NSNull`), or
    /// nil when the map does not have the key.
    public func object(forKey key: AnyObject) -> AnyObject? {
        guard let key = key as? String else {
            preconditionFailure("Invalid key '\(key)' of type '\(type(of: key))' for a Map: keys are strings")
        }
        return value(forKey: key)
    }

    /// Whether some key and its value satisfy `predicate`.
    public func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool {
        for entry in self where predicate(entry.key, entry.value) { return true }
        return false
    }

    // MARK: Writing

    /// Sets `value` for `key`, adding the key if it is new (fief_map_set; for
    /// embedded objects fief_map_insert_embedded, which creates the object
    /// in place with `value`'s properties).  An unmanaged object set in a
    /// managed map of links is added to the realm.  In a write transaction
    /// for a managed map; traps for a key with `.` or a leading `$`.
    public func updateValue(_ value: Value, forKey key: Key) {
        switch state {
        case .unmanaged(var entries):
            state = .unmanaged([:])   // no second reference while mutating
            entries.updateValue(value, forKey: key)
            state = .unmanaged(entries)
        case .managed(let managed):
            if Self.isEmbedded {
                managed.setEmbedded(key._fiefMapKey, fiefEmbeddedObject(value))
                return
            }
            if let mixed = value as? AnyRealmValue {
                managed.setMixed(key._fiefMapKey, mixed)
                return
            }
            let arena = _FiefArena()
            let cValue = Self.valueType._fiefElementValue(value, in: arena, realm: Realm(core: managed.core))
            withExtendedLifetime(arena) { managed.set(key._fiefMapKey, cValue) }
        }
    }

    /// Merges `sequence` (a dictionary, or key-value pairs) into the map:
    /// a key the map has gets `combine(current, new)`, a new key its value.
    /// In a write transaction for a managed map.
    public func merge<S>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
        where S: Sequence, S.Element == (key: Key, value: Value) {
        for (key, value) in Array(sequence) {
            if let current = self[key] {
                updateValue(try combine(current, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Merges `other` into the map (see `merge(_:uniquingKeysWith:)`); a map
    /// may be merged into itself.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.entries.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    /// Removes `key` and its value if the map has the key (fief_map_remove;
    /// an embedded value is deleted, a linked object stays in the realm).
    /// In a write transaction for a managed map.
    public func removeObject(for key: Key) {
        switch state {
        case .unmanaged(var entries):
            state = .unmanaged([:])
            entries.removeValue(forKey: key)
            state = .unmanaged(entries)
        case .managed(let managed):
            managed.remove(key._fiefMapKey)
        }
    }

    /// Removes every key (fief_map_clear); linked objects stay in the realm,
    /// embedded ones are deleted.  In a write transaction for a managed map.
    public func removeAll() {
        switch state {
        case .unmanaged: state = .unmanaged([:])
        case .managed(let managed): managed.clear()
        }
    }

    /// Replaces every entry with `newEntries` (assigning to a map property).
    func assign(_ newEntries: [SingleMapEntry<Key, Value>]) {
        switch state {
        case .unmanaged:
            state = .unmanaged(Self.dictionary(newEntries))
        case .managed(let managed):
            var copies = newEntries
            if Value.self == AnyRealmValue.self {
                // Nested collections of this map are deleted by the clear: copy them first.
                copies = newEntries.map { SingleMapEntry(key: $0.key, value: ($0.value as! AnyRealmValue).fiefDetached() as! Value) }
            }
            if Self.isEmbedded {
                // Embedded values of this map are deleted by the clear: copy them first.
                copies = newEntries.map { entry in
                    guard let object = fiefUnwrap(entry.value) as? EmbeddedObject, object._fiefManaged != nil else { return entry }
                    let copy = type(of: object).init()
                    copy._fiefSetValues(from: object)
                    return SingleMapEntry(key: entry.key, value: Self.valueType._fiefFromAny(copy) as! Value)
                }
            }
            managed.clear()
            for entry in copies { updateValue(entry.value, forKey: entry.key) }
        }
    }

    // MARK: Key-value coding

    /// The value of `key` (a map key): the value as stored (an enum's raw
    /// value, a custom persistable type's `persistableValue`; nil as
    /// `NSNull`), or nil when the map does not have the key.
    public func value(forKey key: String) -> AnyObject? {
        let key = Key(_fiefMapKey: key)
        guard let found = self[key] else { return nil }
        return fiefBridged(found)
    }

    /// The value of `keyPath`: a map key, then properties of the object that
    /// is its value (`"rex.name"`); or a collection operator over the values
    /// (`"@count"`, `"@min.age"`, `"@max.age"`, `"@sum.age"`, `"@avg.age"`,
    /// `self` as the property for maps of values), computed by the library
    /// for a managed map (fief_map_aggregate).
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        if keyPath.hasPrefix("@") {
            let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
            let operation = parts[0]
            if operation == "@count" { return count as AnyObject }
            guard parts.count == 2 else {
                preconditionFailure("Invalid key path '\(keyPath)': \(operation) must be followed by a property name")
            }
            let ops: [String: fief_aggregate_t] = ["@min": FIEF_AGGREGATE_MIN, "@max": FIEF_AGGREGATE_MAX,
                                                   "@sum": FIEF_AGGREGATE_SUM, "@avg": FIEF_AGGREGATE_AVERAGE]
            guard let op = ops[operation] else {
                preconditionFailure("Unsupported collection operation '\(operation)' in key path '\(keyPath)'")
            }
            if let result = libraryAggregate(op, parts[1], as: Any.self) { return result.map { $0 as AnyObject } }
            let values = storedValues(ofProperty: parts[1])
            let result: Any?
            switch operation {
            case "@min": result = FiefAggregate.extreme(values, smallest: true)
            case "@max": result = FiefAggregate.extreme(values, smallest: false)
            case "@sum":
                if values.contains(where: { $0 is Decimal128 }) {
                    result = FiefAggregate.sum(values, as: Decimal128.self)
                } else if values.allSatisfy({ !($0 is Double || $0 is Float) }) {
                    result = FiefAggregate.sum(values, as: Int.self)
                } else {
                    result = FiefAggregate.sum(values, as: Double.self)
                }
            default:
                if values.contains(where: { $0 is Decimal128 }) {
                    result = FiefAggregate.average(values, as: Decimal128.self)
                } else {
                    result = FiefAggregate.average(values, as: Double.self)
                }
            }
            return result.map { $0 as AnyObject }
        }
        let (head, rest) = keyPath.firstIndex(of: ".").map { (String(keyPath[..<$0]), keyPath[keyPath.index(after: $0)...]) }
            ?? (keyPath, Substring())
        guard let found = self[Key(_fiefMapKey: head)] else { return nil }
        if rest.isEmpty { return fiefBridged(found) }
        guard let object = fiefUnwrap(found) else { return nil }
        return fiefValue(forKeyPath: rest, of: object).map(fiefBridged)
    }

    /// Sets the value of `key` (a map key) from `value`, converted as
    /// `Object(value:)` converts; nil removes the key, `NSNull` sets nil in
    /// a map of optional values.  In a write transaction for a managed map.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value else {
            removeObject(for: Key(_fiefMapKey: key))
            return
        }
        guard let converted = Self.valueType._fiefFromAny(value).map({ $0 as! Value }) else {
            preconditionFailure("Invalid value '\(fiefDescribe(value))' of type '\(type(of: value))' for a Map of \(Value.self)")
        }
        updateValue(converted, forKey: Key(_fiefMapKey: key))
    }

    // MARK: Sorting and aggregates

    /// The live results behind a managed map (fief_map_to_results): the
    /// objects it holds as values (nil values left out), or its values;
    /// traps, naming `what`, for an unmanaged map, as RealmSwift does.
    func results(_ what: String) -> Results<Value> {
        guard case .managed(let managed) = state else {
            preconditionFailure("Cannot \(what) an unmanaged Map: only maps managed by a realm support it (this method may only be called on Map instances retrieved from a Realm)")
        }
        guard let raw = fief_map_to_results(managed.handle.raw) else {
            managed.trap(CError.last(), writing: false)
        }
        guard Self.valueType._fiefLinkTarget != nil else {
            return Results(values: CHandle(raw), core: managed.core, name: "Map '\(managed.name)'")
        }
        return Results(handle: CHandle(raw), core: managed.core, binding: managed.core.binding(forLinkOf: managed.property))
    }

    /// The map's values sorted by `keyPath`, in a live `Results`
    /// (fief_map_to_results, fief_results_sort): the objects it holds by
    /// one of their properties (nil values are left out), or its values by
    /// `"self"`.  Managed maps only: traps for an unmanaged map.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        results("sort").sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The map's values sorted by several keys (see `sorted(byKeyPath:ascending:)`).
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Iterator.Element == SortDescriptor {
        results("sort").sorted(by: sortDescriptors)
    }

    /// The stored values of `property` of the values (`"self"`: the values
    /// themselves), nils left out.
    private func storedValues(ofProperty property: String) -> [Any] {
        if (property == "self") != (Self.valueType._fiefLinkTarget == nil) {
            preconditionFailure("Invalid property name '\(property)' for a Map of \(Value.self): \(property == "self" ? "name a property of the objects" : "only 'self' is")")
        }
        return fiefStoredValues(ofProperty: property, of: values, in: "Map")
    }

    /// The aggregate `op` computed by the library for a managed map
    /// (fief_map_aggregate); nil when the map is unmanaged or its values are
    /// not ones the library aggregates (computed in Swift then).
    private func libraryAggregate<T>(_ op: fief_aggregate_t, _ property: String, as type: T.Type) -> T?? {
        guard case .managed(let managed) = state else { return nil }
        return managed.libraryAggregate(op, valueType: Self.valueType, property: property, as: T.self)
    }

    /// The smallest value of `property` among the objects that are values of
    /// the map (`"self"`: the smallest value of a map of values), or nil
    /// if there are none.  Computed by the library for a managed map
    /// (fief_map_aggregate), in Swift otherwise.
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if let result = libraryAggregate(FIEF_AGGREGATE_MIN, property, as: T.self) { return result }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MIN, of: values, as: T.self) { return mixed }
        if property == "self" { return FiefAggregate.extremeElement(values, smallest: true).flatMap { FiefAggregate.cast($0, to: T.self) } }
        return FiefAggregate.extreme(storedValues(ofProperty: property), smallest: true).flatMap { FiefAggregate.cast($0, to: T.self) }
    }

    /// The largest value of `property` (see `min(ofProperty:)`), or nil.
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if let result = libraryAggregate(FIEF_AGGREGATE_MAX, property, as: T.self) { return result }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MAX, of: values, as: T.self) { return mixed }
        if property == "self" { return FiefAggregate.extremeElement(values, smallest: false).flatMap { FiefAggregate.cast($0, to: T.self) } }
        return FiefAggregate.extreme(storedValues(ofProperty: property), smallest: false).flatMap { FiefAggregate.cast($0, to: T.self) }
    }

    /// The sum of `property` (see `min(ofProperty:)`); 0 for an empty map.
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        // The sum of an empty map of mixed values is the integer 0, managed or not, as
        // RealmSwift's (realm-core sums an empty dictionary to an int).
        if property == "self", count == 0, let zero = AnyRealmValue.int(0) as? T { return zero }
        if let result = libraryAggregate(FIEF_AGGREGATE_SUM, property, as: T.self), let sum = result { return sum }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_SUM, of: values, as: T.self), let sum = mixed { return sum }
        return FiefAggregate.sum(storedValues(ofProperty: property), as: T.self)
    }

    /// The average of `property` (see `min(ofProperty:)`), or nil for an
    /// empty map.
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        if let result = libraryAggregate(FIEF_AGGREGATE_AVERAGE, property, as: T.self) { return result }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_AVERAGE, of: values, as: T.self) { return mixed }
        return FiefAggregate.average(storedValues(ofProperty: property), as: T.self)
    }

    // MARK: ThreadConfined

    /// The managed map, nil while unmanaged.
    private var managed: ManagedMap? {
        if case .managed(let managed) = state { return managed }
        return nil
    }

    /// The managed map; traps, as RealmSwift does, for an unmanaged one.
    private func requireManaged() -> ManagedMap {
        guard let managed else {
            preconditionFailure("This method may only be called on RLMDictionary instances retrieved from an RLMRealm (an unmanaged Map)")
        }
        return managed
    }

    /// The realm of the map's object, or nil if it is unmanaged.
    public var realm: Realm? { managed.map { Realm(core: $0.core) } }

    /// Whether the map's object was deleted, or its realm invalidated
    /// (fief_map_is_valid).  Always false for an unmanaged map.
    public var isInvalidated: Bool { managed.map { !$0.isValid } ?? false }

    /// Whether the map belongs to a frozen realm (an unmanaged map is never frozen).
    public var isFrozen: Bool { managed?.core.isFrozen ?? false }

    /// A frozen copy of this managed map, readable from any thread: the map
    /// of the owner's frozen copy (fief_realm_freeze, fief_object_resolve_in).
    /// A frozen map returns itself.  Traps for unmanaged and invalidated
    /// maps, as RealmSwift does.
    public func freeze() -> Map {
        let managed = requireManaged()
        if managed.core.isFrozen { return self }
        guard let frozen = managed.moved(to: managed.frozenRow(typeName: "Map")) else {
            preconditionFailure("Cannot freeze a Map whose object has been deleted or invalidated.")
        }
        return Map(managed: frozen)
    }

    /// The live map for this frozen one, or nil if its object was deleted
    /// since.  A live map returns itself.
    public func thaw() -> Map? {
        let managed = requireManaged()
        if !managed.core.isFrozen { return self }
        return managed.liveRow().flatMap { managed.moved(to: $0) }.map { Map(managed: $0) }
    }
}

// MARK: - Sequences

extension Map: Sequence {
    /// An iterator over the entries in key order; a managed map is read in
    /// batches (fief_map_get_entries), each batch as it is reached.
    public func makeIterator() -> RLMMapIterator<SingleMapEntry<Key, Value>> {
        RLMMapIterator(nextBatch: batches())
    }

    /// The next batch of entries, each time it is called; nil at the end.
    func batches() -> () -> [SingleMapEntry<Key, Value>]? {
        switch state {
        case .unmanaged:
            var pending: [SingleMapEntry<Key, Value>]? = entries
            return {
                defer { pending = nil }
                return pending
            }
        case .managed(let managed):
            return FiefBatchReader(size: managed.size) { [self] start, count in range(managed, start, count) }.next
        }
    }

    /// The map as a sequence of `(key: Key, value: Value)` pairs, as a
    /// Swift dictionary iterates: `for (key, value) in map.asKeyValueSequence()`.
    public struct KeyValueSequence: Sequence {
        private let map: Map<Key, Value>

        fileprivate init(_ map: Map<Key, Value>) {
            self.map = map
        }

        public func makeIterator() -> RLMKeyValueIterator<Key, Value> {
            RLMKeyValueIterator(entries: RLMMapIterator(nextBatch: map.batches()))
        }
    }

    /// The map as a sequence of `(key: Key, value: Value)` pairs.
    public func asKeyValueSequence() -> KeyValueSequence {
        KeyValueSequence(self)
    }
}

/// The iterator of a `Map`: its entries, in key order.
public struct RLMMapIterator<Element: _RealmMapValue>: IteratorProtocol {
    private let nextBatch: () -> [Element]?
    private var buffer: [Element] = []
    private var position = 0

    init(nextBatch: @escaping () -> [Element]?) {
        self.nextBatch = nextBatch
    }

    public mutating func next() -> Element? {
        if position == buffer.count {
            guard let batch = nextBatch(), !batch.isEmpty else { return nil }
            buffer = batch
            position = 0
        }
        position += 1
        return buffer[position - 1]
    }
}

/// The iterator of `Map.KeyValueSequence`: `(key, value)` pairs in key order.
public struct RLMKeyValueIterator<Key: _MapKey, Value: RealmCollectionValue>: IteratorProtocol {
    private var entries: RLMMapIterator<SingleMapEntry<Key, Value>>

    init(entries: RLMMapIterator<SingleMapEntry<Key, Value>>) {
        self.entries = entries
    }

    public mutating func next() -> (key: Key, value: Value)? {
        entries.next().map { (key: $0.key, value: $0.value) }
    }
}

extension Map: RealmKeyedCollection, ThreadConfined {}

// MARK: - Aggregates and sorting of values

extension RealmKeyedCollection where Value.PersistedType: MinMaxType {
    /// The smallest value, or nil if the map is empty (nil values are left out).
    public func min() -> Value? { min(ofProperty: "self") }

    /// The largest value, or nil if the map is empty (nil values are left out).
    public func max() -> Value? { max(ofProperty: "self") }
}

extension RealmKeyedCollection where Value.PersistedType: AddableType {
    /// The sum of the values (0 for an empty map; nil counts as nothing).
    public func sum() -> Value { sum(ofProperty: "self") }

    /// The average of the values, or nil for an empty map.
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType { average(ofProperty: "self") }
}

extension RealmKeyedCollection where Value: OptionalProtocol, Value.Wrapped: ObjectBase {
    /// The smallest value of a property (`\.age`) of the objects, or nil.
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: ObjectSchemaInfo.of(Value.Wrapped.self).propertyName(for: keyPath))
    }

    /// The largest value of a property (`\.age`) of the objects, or nil.
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: ObjectSchemaInfo.of(Value.Wrapped.self).propertyName(for: keyPath))
    }

    /// The sum of a property (`\.age`) of the objects.
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: ObjectSchemaInfo.of(Value.Wrapped.self).propertyName(for: keyPath))
    }

    /// The average of a property (`\.age`) of the objects, or nil.
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: AddableType {
        average(ofProperty: ObjectSchemaInfo.of(Value.Wrapped.self).propertyName(for: keyPath))
    }

    /// The objects sorted by a property (`\.age`), as live results.
    public func sorted<T: _HasPersistedType>(by keyPath: KeyPath<Value.Wrapped, T>, ascending: Bool = true) -> Results<Value> {
        sorted(byKeyPath: ObjectSchemaInfo.of(Value.Wrapped.self).propertyName(for: keyPath), ascending: ascending)
    }
}

extension RealmKeyedCollection where Value.PersistedType: SortableType {
    /// The values sorted by value, as live results (nil first ascending).
    public func sorted(ascending: Bool = true) -> Results<Value> {
        sorted(byKeyPath: "self", ascending: ascending)
    }
}

/// An Optional, seen as its wrapped type (RealmSwift's `OptionalProtocol`).
public protocol OptionalProtocol {
    associatedtype Wrapped
}

extension Optional: OptionalProtocol {}

// MARK: - Equality and description

extension Map: Equatable {
    /// Whether both are the same managed map (same object and property of
    /// the same file), or unmanaged maps with the same entries.
    public static func == (lhs: Map, rhs: Map) -> Bool {
        if lhs === rhs { return true }
        switch (lhs.state, rhs.state) {
        case (.managed(let l), .managed(let r)): return l.isSame(as: r)
        case (.unmanaged(let l), .unmanaged(let r)):
            if let lhs = lhs as? Map<String, AnyRealmValue>, let rhs = rhs as? Map<String, AnyRealmValue> {
                return AnyRealmValue.fiefTreesEqual(.dictionary(lhs), .dictionary(rhs))  // any depth, without recursion
            }
            return l.count == r.count && l.allSatisfy { key, value in r[key].map { fiefSameElement($0, value) } ?? false }
        default: return false
        }
    }
}

extension Map: CustomStringConvertible, FiefNestedDescription {
    /// `Map<string, Dog> <0x...> (\n[key]: Dog {...},\n[other]: ...\n)` in
    /// RealmSwift's layout (the key type as realm-core names it; entries not
    /// indented, as RealmSwift prints them), five levels deep at most (see
    /// Internal/Descriptions.swift).  At most 100 entries are listed, then
    /// "... N objects skipped." (RealmSwift means to stop at 100 too, but its
    /// count never advances, so it lists every entry: a deliberate difference).
    public var description: String {
        let typeName = "Map<string, \(fiefRealmTypeName(Self.valueType))>"
        if isInvalidated { return "\(typeName) <invalidated>" }
        return FiefDescriptionDepth.nested {
            let entries = self.entries
            let described = entries.prefix(fiefDescribedElementLimit).map { "[\($0.key._fiefMapKey)]: \(fiefElementDescription($0.value))" }
            return fiefCollectionDescription(header: "\(typeName) <\(fiefAddress(self))>", entries: described, count: entries.count, prefix: "")
        }
    }
}

// MARK: - Codable

extension Map: Decodable where Key: Decodable, Value: Decodable {
    /// Decodes an unmanaged map from a dictionary (a JSON object).
    public convenience init(from decoder: Decoder) throws {
        self.init()
        let container = try decoder.singleValueContainer()
        state = .unmanaged(try container.decode([Key: Value].self))
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries as a dictionary (a JSON object).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.dictionary(entries))
    }
}

// MARK: - Deleting the objects of a map

extension Realm {
    /// Deletes every object that is a value of `map`, in a write transaction
    /// (fief_map_to_results, fief_results_delete_all): the keys stay, their
    /// values become nil.
    public func delete<Key: _MapKey, Value: ObjectBase>(_ map: Map<Key, Value?>) {
        guard case .managed(let managed) = map.state, managed.core.path == core.path else {
            preconditionFailure("Can only delete an object from the Realm it belongs to.")
        }
        let results = map.results("delete the objects of")
        let ok = withExtendedLifetime(results) { fief_results_delete_all(results.handle.raw) }
        fiefCheck(ok, "Cannot delete the objects of \(managed.name)")
    }
}

// MARK: - As a property type

extension Map: FiefCollectionProtocol {
    static var fiefCollectionType: fief_collection_type_t { fief_collection_type_t(FIEF_COLLECTION_MAP) }

    func fiefSnapshot() -> any _Persistable {
        let copy = Map()
        copy.state = .unmanaged(Self.dictionary(entries))
        return copy
    }

    /// Binds this (unmanaged) instance to map property `index` of `row`: from
    /// now on it shows the realm's map.  Its in-memory entries are dropped;
    /// `Realm.add` writes them (see `fiefSnapshot`).
    func fiefAttach(to row: ManagedRow, index: Int) {
        state = .managed(ManagedMap(row: row, index: index))
    }

    func fiefAssign(from other: Any) {
        guard let other = other as? Map<Key, Value>, other !== self else { return }
        assign(other.entries)
    }

    static func fiefManaged(row: ManagedRow, index: Int) -> Any {
        Map(managed: ManagedMap(row: row, index: index))
    }
}

/// A Map is the value of a map property: `FIEF_COLLECTION_MAP` of its
/// value type.
extension Map: _Persistable {
    public static var _fiefType: fief_type_t { valueType._fiefType }
    /// A map's values of links are nullable (a deleted object leaves its key
    /// with null), a custom type mapped to an embedded object's too.
    public static var _fiefIsOptional: Bool { valueType._fiefIsOptional || valueType._fiefType == FIEF_TYPE_LINK }
    public static var _fiefLinkTarget: ObjectBase.Type? { valueType._fiefLinkTarget }
    public static func _fiefDefault() -> Map { Map() }
    /// A map is never one value: read through `fief_object_get_map`.
    public static func _fiefRead(_ value: fief_value_t) -> Map? { nil }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        preconditionFailure("A Map is not a single value")
    }

    /// An unmanaged map from a Map or a dictionary of string keys to values
    /// the value type accepts (objects may be given as dictionaries or
    /// arrays of their values; nil or `NSNull` as nil); nil if a key is not
    /// a string or a value does not convert.
    public static func _fiefFromAny(_ any: Any?) -> Map? {
        guard let source = fiefUnwrap(any) else { return nil }
        if let map = source as? Map { return map.fiefSnapshot() as? Map }
        let pairs: [(String, Any?)]
        if let dictionary = source as? [String: Any?] {
            pairs = dictionary.map { ($0.key, $0.value) }
        } else if let dictionary = source as? NSDictionary {
            var converted: [(String, Any?)] = []
            for (key, value) in dictionary {
                guard let key = key as? String else { return nil }
                converted.append((key, value))
            }
            pairs = converted
        } else {
            return nil
        }
        var entries: [Key: Value] = [:]
        for (key, item) in pairs {
            guard let value = valueType._fiefFromAny(item).map({ $0 as! Value }) else { return nil }
            entries.updateValue(value, forKey: Key(_fiefMapKey: key))
        }
        let map = Map()
        map.state = .unmanaged(entries)
        return map
    }
}

/// A map of embedded objects, as `add(_:update: .modified)` reads the one
/// it is given to update the existing object's map in place.
protocol FiefEmbeddedMapSource {
    /// Every key and its embedded object (nil for a nil value), in key order.
    var fiefEmbeddedEntries: [(key: String, value: EmbeddedObject?)] { get }
}

extension Map: FiefEmbeddedMapSource {
    var fiefEmbeddedEntries: [(key: String, value: EmbeddedObject?)] {
        guard Self.isEmbedded else { return [] }
        return entries.map { ($0.key._fiefMapKey, fiefUnwrap($0.value) as? EmbeddedObject) }
    }
}

// MARK: - The managed map

/// Map property `index` of a managed object: the calls of fief.h's "Maps"
/// group on its handle, with RealmSwift's traps.
final class ManagedMap: ManagedCollection {
    override class var kindName: String { "Dictionary" }

    /// This map on `row`, the same owner in another realm: the property's
    /// map there, or for a nested dictionary the same one
    /// (fief_map_resolve_in); nil when it does not exist there.
    func moved(to row: ManagedRow) -> ManagedMap? {
        guard let nestedPath else { return ManagedMap(row: row, index: index) }
        var out: OpaquePointer?
        guard fief_map_resolve_in(handle.raw, row.core.handle.raw, &out) else {
            fiefTrap("Cannot resolve a Map in another realm", CError.last())
        }
        return out.map { ManagedMap(row: row, index: index, nested: CHandle($0), path: nestedPath) }
    }

    override func makeHandle() -> OpaquePointer? {
        fief_object_get_map(row.handle.raw, row.binding.propertyKeys[index])
    }

    override func handleIsValid(_ raw: OpaquePointer) -> Bool { fief_map_is_valid(raw) }

    override func performAggregate(_ raw: OpaquePointer, _ property: fief_property_key_t, _ op: fief_aggregate_t,
                                   _ out: UnsafeMutablePointer<fief_value_t>) -> Bool {
        fief_map_aggregate(raw, property, op, out)
    }

    /// Traps for a failed write of `key`: a key the realm refuses gets
    /// RealmSwift's message for invalid dictionary keys.
    private func trapWriting(_ key: String, _ error: CError) -> Never {
        if error.code == FIEF_ERR_INVALID_ARGUMENT || error.code == FIEF_ERR_INVALID_UTF8,
           key.hasPrefix("$") || key.contains(".") || key.utf8.count > 480 {
            preconditionFailure("Invalid key '\(key)' for Map '\(name)': keys must not contain '.' or start with '$', and have at most 480 bytes [\(error.message)]")
        }
        trap(error, writing: true)
    }

    func size() -> Int {
        checkGeneration()
        var size = 0
        check(fief_map_count(handle.raw, &size), writing: false)
        return size
    }

    /// The value of `key`, or nil when the map does not have it.
    func get(_ key: String) -> fief_value_t? {
        checkGeneration()
        let arena = _FiefArena()
        var value = fief_value_t()
        var found = false
        let ok = withExtendedLifetime(arena) { fief_map_get(handle.raw, arena.string(key).u.string, &value, &found) }
        check(ok, writing: false)
        return found ? value : nil
    }

    /// Entries `start ..< start + count` in key order, keys copied (values
    /// are views: convert them before the next change).
    func entries(_ start: Int, _ count: Int) -> [(key: String, value: fief_value_t)] {
        checkGeneration()
        guard count > 0 else { return [] }
        var keys = [fief_string_t](repeating: fief_string_t(), count: count)
        var values = [fief_value_t](repeating: fief_value_t(), count: count)
        let ok = keys.withUnsafeMutableBufferPointer { k in
            values.withUnsafeMutableBufferPointer { v in
                fief_map_get_entries(handle.raw, start, count, k.baseAddress, v.baseAddress)
            }
        }
        check(ok, writing: false)
        return zip(keys, values).map { (fiefString($0), $1) }
    }

    /// Every key in key order (fief_map_get_entries without the values).
    func keys() -> [String] {
        checkGeneration()
        let count = size()
        guard count > 0 else { return [] }
        var keys = [fief_string_t](repeating: fief_string_t(), count: count)
        let ok = keys.withUnsafeMutableBufferPointer { fief_map_get_entries(handle.raw, 0, count, $0.baseAddress, nil) }
        check(ok, writing: false)
        return keys.map(fiefString)
    }

    func set(_ key: String, _ value: fief_value_t) {
        checkGeneration()
        let arena = _FiefArena()
        let ok = withExtendedLifetime(arena) { fief_map_set(handle.raw, arena.string(key).u.string, value) }
        if !ok { trapWriting(key, CError.last()) }
    }

    /// Sets `key` of a map of embedded objects: nil clears the value; an
    /// object is created in place (fief_map_insert_embedded) with `child`'s
    /// values, and the unmanaged `child` becomes that object.  A managed
    /// child traps, as RealmSwift's does, even the key's own object.
    func setEmbedded(_ key: String, _ child: EmbeddedObject?) {
        guard let child else { return set(key, .null) }
        if let managed = child._fiefManaged { fiefRefuseManagedEmbedded(managed, into: "Dictionary", of: core) }
        checkGeneration()
        let arena = _FiefArena()
        guard let raw = withExtendedLifetime(arena, { fief_map_insert_embedded(handle.raw, arena.string(key).u.string) }) else {
            trapWriting(key, CError.last())
        }
        // The unmanaged child becomes the new object.
        ManagedRow(handle: CHandle(raw), core: core, binding: core.binding(forLinkOf: property)).adopt(child)
    }

    /// Sets `key` of a map of mixed values: an unmanaged object is added
    /// first; a nested collection is stored empty, then filled with the
    /// contents of `value`'s (read before the write replaces the key's).
    func setMixed(_ key: String, _ value: AnyRealmValue) {
        let value = value.fiefDetached()
        setDetachedMixed(key, value)
        if value.fiefIsNested { value.fiefFillNested(in: .mapValue(self, key), core: core) }
    }

    /// Sets `key` to a detached mixed value, a nested collection stored
    /// empty (the caller fills it).
    func setDetachedMixed(_ key: String, _ value: AnyRealmValue) {
        let arena = _FiefArena()
        let cValue = value._fiefValue(in: arena, realm: Realm(core: core))
        withExtendedLifetime(arena) { set(key, cValue) }
    }

    func remove(_ key: String) {
        checkGeneration()
        let arena = _FiefArena()
        let ok = withExtendedLifetime(arena) { fief_map_remove(handle.raw, arena.string(key).u.string, nil) }
        if !ok { trapWriting(key, CError.last()) }
    }

    func clear() {
        checkGeneration()
        check(fief_map_clear(handle.raw), writing: true)
    }
}
