// RealmSwift's `AnyRealmValue`: a value of any type a realm stores, kept in
// a mixed property (`FIEF_TYPE_MIXED`) or as the element of a List,
// MutableSet or Map of mixed values.  The C layer stores each value with its
// own type (fief_value_t carries it both ways); links name their class, so a
// mixed value may point to an object of any (non-embedded) class.

import CFief
import Foundation

/// A value of any type a realm stores (RealmSwift's `AnyRealmValue`): the
/// type of a mixed property and of the elements of mixed collections.
///
///     class Dog: Object {
///         @Persisted var name = ""
///         @Persisted var companion: AnyRealmValue
///     }
///     dog.companion = .string("Fluffy the Cat")
///     dog.companion = .object(otherDog)
///     if case let .string(name) = dog.companion { print(name) }
///
/// Each value keeps its type: `.int(1)` reads back as `.int(1)`, never as
/// `.double(1)`.  Swift's `==` compares case and payload (`.int(1) != .double(1)`);
/// the realm compares mixed values by Realm's rules (`fief_list_index_of`,
/// `fief_set_contains`): numbers of any type are equal when their values are
/// (`.int(1)`, `.float(1)`, `.double(1)` and `.decimal128(1)` are one element
/// of a `MutableSet<AnyRealmValue>`, and `index(of: .double(1))` finds an
/// `.int(1)`), while `.bool(true)` is not `.int(1)` and `.string("1")` is not
/// `.int(1)`.  Unmanaged lists and sets apply the same rules.
///
/// `.object` holds an `Object` of any class (never an `EmbeddedObject`).  A
/// managed value gives the managed object, as an instance of its model
/// class when this program declares one (`object(Dog.self)`), else as a
/// `DynamicObject`.  Writing `.object` with an unmanaged object adds that
/// object to the realm first, as a link property does.
///
/// `.list` and `.dictionary` hold nested collections of mixed values
/// (`fromArray(_:)`, `fromDictionary(_:)`).  A managed value gives live
/// collections; writing one whose collections are unmanaged (or belong to
/// another value) writes their contents, nested ones included.  A
/// `MutableSet<AnyRealmValue>` cannot hold them (it traps, as the realm
/// refuses them).
///
/// Differences from RealmSwift:
/// - `AnyRealmValue` is `Codable` here (RealmSwift's is not): see
///   `encode(to:)` for the format.
/// - `dynamicObject` gives nil for an unmanaged object that is not a
///   `DynamicObject` (RealmSwift reinterprets the instance).
/// - The library filters and sorts managed collections of mixed values,
///   nested ones included (`filter("self > 1")`, `sorted(ascending:)`:
///   Realm's rules); a predicate on a mixed property
///   (`filter("companion == 1")`) traps with the library's message.  Their aggregates
///   are computed in the overlay: `min()`/`max()` over the numbers and dates
///   (numbers compared by value across types, before dates), `sum()` and
///   `average()` over the numbers; the sum of integers is `.int` (0 for no
///   numbers; RealmSwift gives a `.decimal128` for managed collections), of
///   other numbers `.double`, `.decimal128` as soon as one is a decimal.
/// - A nested collection written where it already lives (`list.append(list[0])`
///   with `list[0]` a `.list`, `obj.value = obj.value`) is copied, which
///   RealmSwift does not manage yet.
/// - Two managed nested collections are `==` when they are reached by the
///   same path (property, then positions and keys) from the same object.
public enum AnyRealmValue: Hashable {
    /// No value (a mixed property holding null).
    case none
    /// An integer.
    case int(Int)
    /// A boolean.
    case bool(Bool)
    /// A 32-bit floating point number.
    case float(Float)
    /// A 64-bit floating point number.
    case double(Double)
    /// A string.
    case string(String)
    /// Binary data.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// An object of any (non-embedded) model class.
    case object(Object)
    /// An object id.
    case objectId(ObjectId)
    /// A decimal number.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A nested dictionary of mixed values (string keys).
    case dictionary(Map<String, AnyRealmValue>)
    /// A nested list of mixed values.
    case list(List<AnyRealmValue>)

    /// `.none`, the value of a mixed property declared without a default.
    public init() {
        self = .none
    }

    // MARK: Typed access

    /// The integer, if the value is `.int`; nil otherwise.
    public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The boolean, if the value is `.bool`; nil otherwise.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The float, if the value is `.float`; nil otherwise.
    public var floatValue: Float? {
        if case .float(let value) = self { return value }
        return nil
    }

    /// The double, if the value is `.double`; nil otherwise.
    public var doubleValue: Double? {
        if case .double(let value) = self { return value }
        return nil
    }

    /// The string, if the value is `.string`; nil otherwise.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The data, if the value is `.data`; nil otherwise.
    public var dataValue: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The date, if the value is `.date`; nil otherwise.
    public var dateValue: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The object id, if the value is `.objectId`; nil otherwise.
    public var objectIdValue: ObjectId? {
        if case .objectId(let value) = self { return value }
        return nil
    }

    /// The decimal, if the value is `.decimal128`; nil otherwise.
    public var decimal128Value: Decimal128? {
        if case .decimal128(let value) = self { return value }
        return nil
    }

    /// The UUID, if the value is `.uuid`; nil otherwise.
    public var uuidValue: UUID? {
        if case .uuid(let value) = self { return value }
        return nil
    }

    /// The object, if the value is `.object` holding an instance of
    /// `objectType` (or of a subclass); nil otherwise.
    ///
    ///     if let dog = dog.companion.object(Dog.self) { print(dog.name) }
    public func object<T: Object>(_ objectType: T.Type) -> T? {
        if case .object(let value) = self { return value as? T }
        return nil
    }

    /// The object as a `DynamicObject` (its properties by name, whatever
    /// its class), if the value is `.object`; nil otherwise.  A managed
    /// object of a model class is read again as a `DynamicObject` on the
    /// same row (fief_object_resolve_in).  Unlike RealmSwift, an unmanaged
    /// object that is not itself a `DynamicObject` gives nil.
    public var dynamicObject: DynamicObject? {
        guard case .object(let value) = self else { return nil }
        if let dynamic = value as? DynamicObject { return dynamic }
        guard let managed = value._fiefManaged else { return nil }
        return managed.dynamicCopy()
    }

    /// The nested dictionary, if the value is `.dictionary`; nil otherwise.
    public var dictionaryValue: Map<String, AnyRealmValue>? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The nested list, if the value is `.list`; nil otherwise.
    public var listValue: List<AnyRealmValue>? {
        if case .list(let value) = self { return value }
        return nil
    }

    // MARK: Nested collections

    /// A `.dictionary` holding a new unmanaged map with the entries of
    /// `dictionary`.
    ///
    ///     dog.companion = .fromDictionary(["name": .string("Rex"), "age": .int(3)])
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        map.merge(dictionary) { _, new in new }
        return .dictionary(map)
    }

    /// A `.list` holding a new unmanaged list of the elements of `array`.
    ///
    ///     dog.companion = .fromArray([.int(1), .string("two")])
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    // MARK: Hashable

    /// Hashes the payload (Swift's `==` compares case and payload); nested
    /// collections and `.none` hash as constants, as in RealmSwift.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(14)
        case .int(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .float(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        case .objectId(let value): hasher.combine(value)
        case .decimal128(let value): hasher.combine(value)
        case .uuid(let value): hasher.combine(value)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }
}

// MARK: - Protocols RealmSwift gives it

extension AnyRealmValue: RealmCollectionValue, RealmPropertyType, MinMaxType, AddableType, SortableType, _Indexable {
    public typealias PersistedType = AnyRealmValue
}

// MARK: - Crossing the C ABI

/// A mixed value is stored as `FIEF_TYPE_MIXED`: the `fief_value_t` read or
/// written carries the value's own type (`FIEF_TYPE_INT`, `FIEF_TYPE_LINK`,
/// ...; `FIEF_TYPE_LIST` / `FIEF_TYPE_MAP` for nested collections).
extension AnyRealmValue: _Persistable {
    public static var _fiefType: fief_type_t { FIEF_TYPE_MIXED }
    public static func _fiefDefault() -> AnyRealmValue { .none }

    /// The scalar a value read holds; nil for a link (only the realm-aware
    /// read makes objects) and for nested collections (read where they are
    /// held, see `fiefRead(_:core:nested:)`).
    public static func _fiefRead(_ value: fief_value_t) -> AnyRealmValue? {
        switch value.type {
        case FIEF_TYPE_NULL: return AnyRealmValue.none
        case FIEF_TYPE_INT: return .int(Int(truncatingIfNeeded: value.u.integer))
        case FIEF_TYPE_BOOL: return .bool(value.u.boolean)
        case FIEF_TYPE_FLOAT: return .float(value.u.float_value)
        case FIEF_TYPE_DOUBLE: return .double(value.u.double_value)
        case FIEF_TYPE_STRING: return .string(fiefString(value.u.string))
        case FIEF_TYPE_BINARY: return .data(fiefData(value.u.binary))
        case FIEF_TYPE_TIMESTAMP: return .date(Date(fiefTimestamp: value.u.timestamp))
        case FIEF_TYPE_DECIMAL128: return .decimal128(Decimal128(fiefValue: value.u.decimal128))
        case FIEF_TYPE_OBJECT_ID: return .objectId(ObjectId(fiefValue: value.u.object_id))
        case FIEF_TYPE_UUID: return .uuid(UUID(fiefValue: value.u.uuid))
        default: return nil
        }
    }

    /// The value read from `realm`: a link becomes the managed object it
    /// points to, of its model class (see `RealmCore.mixedLinkedObject`).
    public static func _fiefRead(_ value: fief_value_t, in realm: Realm) -> AnyRealmValue? {
        if value.type == FIEF_TYPE_LINK { return .object(realm.core.mixedLinkedObject(value.u.link)) }
        return _fiefRead(value)
    }

    /// The value to write: a managed object as its link (an unmanaged one
    /// traps: add it first, or write through `_fiefValue(in:realm:)`); a
    /// nested collection as `FIEF_TYPE_LIST` / `FIEF_TYPE_MAP`, which
    /// stores an empty one (its contents are written into it after).
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        var value = fief_value_t()
        switch self {
        case .none: return .null
        case .int(let v): return .int(Int64(v))
        case .bool(let v): return v._fiefValue(in: arena)
        case .float(let v): return v._fiefValue(in: arena)
        case .double(let v): return .double(v)
        case .string(let v): return arena.string(v)
        case .data(let v): return arena.binary(v)
        case .date(let v): return v._fiefValue(in: arena)
        case .objectId(let v): return v._fiefValue(in: arena)
        case .decimal128(let v): return v._fiefValue(in: arena)
        case .uuid(let v): return v._fiefValue(in: arena)
        case .object(let object):
            return object._fiefLinkValue(unmanaged: "Cannot use an unmanaged '\(type(of: object).className())' as a mixed value here: add it to a realm first")
        case .list: value.type = FIEF_TYPE_LIST
        case .dictionary: value.type = FIEF_TYPE_MAP
        }
        return value
    }

    /// The value to write into `realm`: an unmanaged object is added to it
    /// first (trapping, as RealmSwift does, for an object of another realm).
    public func _fiefValue(in arena: _FiefArena, realm: Realm) -> fief_value_t {
        if case .object(let object) = self { realm.makeLinkable(object) }
        return _fiefValue(in: arena)
    }

    /// The payload (what KVC gives, as RealmSwift bridges it): the number,
    /// string, date, ..., object or nested collection; nil for `.none`.
    public var _fiefStored: Any? {
        switch self {
        case .none: return nil
        case .int(let v): return v
        case .bool(let v): return v
        case .float(let v): return v
        case .double(let v): return v
        case .string(let v): return v
        case .data(let v): return v
        case .date(let v): return v
        case .object(let v): return v
        case .objectId(let v): return v
        case .decimal128(let v): return v
        case .uuid(let v): return v
        case .dictionary(let v): return v
        case .list(let v): return v
        }
    }

    /// A mixed value from what KVC, `init(value:)` and `create(_:value:)`
    /// accept: an `AnyRealmValue`; nil or `NSNull` (`.none`); a number of
    /// any width (`NSNumber`s by their kind), string, data, date, object id,
    /// decimal, UUID; an `Object`; an enum or custom persistable value (as
    /// its persisted value); a `List` / `Map` of mixed values; an array or
    /// other sequence (`.list`) or a string-keyed dictionary (`.dictionary`)
    /// of such values, to any depth.  Nil when something does not convert
    /// (an embedded object, a dictionary with a key that is not a string).
    public static func _fiefFromAny(_ any: Any?) -> AnyRealmValue? {
        // Nested arrays and dictionaries are converted with a worklist, not
        // by recursion: any depth converts on any thread's stack.
        var pending: [(conversion: FiefConversion, into: AnyRealmValue)] = []
        func converted(_ conversion: FiefConversion) -> AnyRealmValue? {
            switch conversion {
            case .value(let value): return value
            case .failed: return nil
            case .list:
                let list = AnyRealmValue.list(List<AnyRealmValue>())
                pending.append((conversion, list))
                return list
            case .dictionary:
                let map = AnyRealmValue.dictionary(Map<String, AnyRealmValue>())
                pending.append((conversion, map))
                return map
            }
        }
        guard let top = converted(fiefConvertOne(any)) else { return nil }
        while let (conversion, into) = pending.popLast() {
            switch (conversion, into) {
            case (.list(let items), .list(let list)):
                var elements: [AnyRealmValue] = []
                elements.reserveCapacity(items.count)
                for item in items {
                    guard let element = converted(fiefConvertOne(item)) else { return nil }
                    elements.append(element)
                }
                list.state = .unmanaged(elements)
            case (.dictionary(let entries), .dictionary(let map)):
                var values: [String: AnyRealmValue] = [:]
                for (key, item) in entries {
                    guard let element = converted(fiefConvertOne(item)) else { return nil }
                    values[key] = element
                }
                map.state = .unmanaged(values)
            default:
                break
            }
        }
        return top
    }

    /// A Swift array's items or a string-keyed Swift dictionary's entries,
    /// found by conformance (no bridging to Foundation).
    fileprivate protocol FiefNativeCollection {
        var fiefConversion: FiefConversion? { get }
    }

    /// What `_fiefFromAny` makes of one value: a mixed value, the items of
    /// an array or other sequence, or the entries of a string-keyed
    /// dictionary (converted in turn), or nothing.
    fileprivate enum FiefConversion {
        case value(AnyRealmValue)
        case list([Any?])
        case dictionary([(String, Any?)])
        case failed
    }

    private static func fiefConvertOne(_ any: Any?) -> FiefConversion {
        guard let value = fiefUnwrap(any) else { return .value(AnyRealmValue.none) }
        if let mixed = value as? AnyRealmValue { return .value(mixed) }
        // A Swift array or dictionary before any cast to a Foundation class:
        // such a cast bridges it, every level, recursively.
        if let native = value as? FiefNativeCollection, let conversion = native.fiefConversion { return conversion }
        if value is NSNull { return .value(AnyRealmValue.none) }
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
            return .value(fromNumber(number))
        }
        switch value {
        case let v as Int: return .value(.int(v))
        case let v as Bool: return .value(.bool(v))
        case let v as Double: return .value(.double(v))
        case let v as Float: return .value(.float(v))
        case let v as String: return .value(.string(v))
        case let v as Substring: return .value(.string(String(v)))
        case let v as Data: return .value(.data(v))
        case let v as Date: return .value(.date(v))
        case let v as ObjectId: return .value(.objectId(v))
        case let v as Decimal128: return .value(.decimal128(v))
        case let v as UUID: return .value(.uuid(v))
        case let v as Object: return .value(.object(v))
        case is EmbeddedObject: return .failed
        case let v as Int8: return .value(.int(Int(v)))
        case let v as Int16: return .value(.int(Int(v)))
        case let v as Int32: return .value(.int(Int(v)))
        case let v as Int64: return .value(.int(Int(v)))
        case let v as UInt8: return .value(.int(Int(v)))
        case let v as UInt16: return .value(.int(Int(v)))
        case let v as UInt32: return .value(.int(Int(v)))
        case let v as UInt: return v <= UInt(Int.max) ? .value(.int(Int(v))) : .failed
        case let v as UInt64: return v <= UInt64(Int.max) ? .value(.int(Int(v))) : .failed
        case let v as NSString: return .value(.string(v as String))
        case let v as NSData: return .value(.data(Data(referencing: v)))
        case let v as NSDate: return .value(.date(Date(timeIntervalSinceReferenceDate: v.timeIntervalSinceReferenceDate)))
        case let v as List<AnyRealmValue>: return .value(.list(v))
        case let v as Map<String, AnyRealmValue>: return .value(.dictionary(v))
        default: break
        }
        // Enums and custom persistable types: their persisted values.
        if let persistable = value as? any _Persistable, !(value is FiefCollectionProtocol) {
            guard let stored = persistable._fiefStored else { return .value(AnyRealmValue.none) }
            guard ObjectIdentifier(type(of: stored)) != ObjectIdentifier(type(of: value)) else { return .failed }
            return fiefConvertOne(stored)
        }
        if let entries = fiefDictionaryEntries(value) { return .dictionary(entries) }
        if let items = fiefSequenceItems(value) { return .list(items) }
        return .failed
    }

    /// An `NSNumber` as the kind of number it holds (a boolean one is of
    /// Foundation's boolean class; `is Bool` would take any 0 or 1).
    private static func fromNumber(_ number: NSNumber) -> AnyRealmValue {
        if String(describing: type(of: number)).contains("Boolean") { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f": return .float(number.floatValue)
        case "d": return .double(number.doubleValue)
        default: return .int(number.intValue)
        }
    }
}

/// The entries of a string-keyed dictionary (a Swift dictionary, an
/// `NSDictionary` or a `Map`), or nil for anything else or a key that is
/// not a string.
func fiefDictionaryEntries(_ value: Any) -> [(String, Any?)]? {
    if let dictionary = value as? [String: Any?] { return dictionary.map { ($0.key, $0.value) } }
    if let map = value as? FiefMapEntries { return map.fiefAnyEntries }
    if let dictionary = value as? NSDictionary {
        var entries: [(String, Any?)] = []
        for (key, item) in dictionary {
            guard let key = key as? String else { return nil }
            entries.append((key, item))
        }
        return entries
    }
    return nil
}

/// A `Map` seen without its types: its entries in key order.
protocol FiefMapEntries {
    var fiefAnyEntries: [(String, Any?)] { get }
}

extension Map: FiefMapEntries {
    var fiefAnyEntries: [(String, Any?)] { entries.map { ($0.key._fiefMapKey, $0.value as Any?) } }
}

/// Query arguments (`filter("x == %@", AnyRealmValue.int(3))`).
extension AnyRealmValue: FiefAnyConvertible {
    func fiefValue(in arena: _FiefArena) -> fief_value_t { _fiefValue(in: arena) }
}

// MARK: - Overlay internals

extension AnyRealmValue {
    /// Whether the value is a nested collection (`.list` or `.dictionary`).
    var fiefIsNested: Bool {
        switch self {
        case .list, .dictionary: return true
        default: return false
        }
    }

    /// Whether writing the value into a new object must wait until the
    /// object exists: it holds an unmanaged object (which may link back to
    /// the new one) or a nested collection (written into the object's row).
    var fiefNeedsDeferredWrite: Bool {
        switch self {
        case .object(let object): return object._fiefManaged == nil
        case .list, .dictionary: return true
        default: return false
        }
    }

    /// The value with its nested collections copied into new unmanaged
    /// ones, to any depth (objects stay the same instances): what is
    /// written when a nested collection is assigned, read before the write
    /// replaces anything it may come from.  A worklist, not recursion.
    func fiefDetached() -> AnyRealmValue {
        guard let top = fiefEmptyCopy() else { return self }
        var pending: [(source: AnyRealmValue, copy: AnyRealmValue)] = [(self, top)]
        while let (source, copy) = pending.popLast() {
            switch (source, copy) {
            case (.list(let list), .list(let out)):
                var elements = list.elements
                for i in elements.indices {
                    guard let child = elements[i].fiefEmptyCopy() else { continue }
                    pending.append((elements[i], child))
                    elements[i] = child
                }
                out.state = .unmanaged(elements)
            case (.dictionary(let map), .dictionary(let out)):
                var entries = Map.dictionary(map.entries)
                for (key, value) in entries {
                    guard let child = value.fiefEmptyCopy() else { continue }
                    pending.append((value, child))
                    entries[key] = child
                }
                out.state = .unmanaged(entries)
            default:
                break
            }
        }
        return top
    }

    /// Swift's `==` for two values that may hold unmanaged nested
    /// collections, to any depth: unmanaged lists equal element by element,
    /// unmanaged dictionaries key by key (values as `Map`'s `==` compares
    /// them), managed ones when they are the same collection; a worklist,
    /// not recursion.
    static func fiefTreesEqual(_ a: AnyRealmValue, _ b: AnyRealmValue) -> Bool {
        var pending: [(AnyRealmValue, AnyRealmValue)] = [(a, b)]
        while let (x, y) = pending.popLast() {
            switch (x, y) {
            case (.list(let l), .list(let r)):
                if l === r { continue }
                guard case .unmanaged(let left) = l.state, case .unmanaged(let right) = r.state else {
                    if case .managed(let ml) = l.state, case .managed(let mr) = r.state, ml.isSame(as: mr) { continue }
                    return false
                }
                guard left.count == right.count else { return false }
                pending.append(contentsOf: zip(left, right))
            case (.dictionary(let l), .dictionary(let r)):
                if l === r { continue }
                guard case .unmanaged(let left) = l.state, case .unmanaged(let right) = r.state else {
                    if case .managed(let ml) = l.state, case .managed(let mr) = r.state, ml.isSame(as: mr) { continue }
                    return false
                }
                guard left.count == right.count else { return false }
                for (key, value) in left {
                    guard let other = right[key] else { return false }
                    if value.fiefIsNested || other.fiefIsNested {
                        pending.append((value, other))
                    } else if !fiefSameElement(value, other) {
                        return false
                    }
                }
            case (.list, _), (.dictionary, _), (_, .list), (_, .dictionary):
                return false
            default:
                if x != y { return false }
            }
        }
        return true
    }

    /// Releases `pending` (the values taken out of an unmanaged list or
    /// dictionary being deinitialized) so that the unmanaged collections nested in
    /// them, to any depth, go one at a time: each one only `pending` holds
    /// is emptied into the worklist before it goes, so no deinit recurses.
    static func fiefRelease(_ pending: inout [AnyRealmValue]) {
        while !pending.isEmpty {
            // The collection is taken out of the value into a variable of its
            // own, and the value dropped, so that variable is the worklist's
            // only reference to it (a `switch` over the value would hold one more).
            var value: AnyRealmValue? = pending.removeLast()
            var list = value?.fiefListObject
            var map = value?.fiefDictionaryObject
            value = nil
            if list != nil, isKnownUniquelyReferenced(&list!), case .unmanaged(let inner) = list!.state, !inner.isEmpty {
                list!.state = .unmanaged([])
                pending.append(contentsOf: inner)
            }
            if map != nil, isKnownUniquelyReferenced(&map!), case .unmanaged(let inner) = map!.state, !inner.isEmpty {
                map!.state = .unmanaged([:])
                pending.append(contentsOf: inner.values)
            }
            list = nil
            map = nil
        }
    }

    private var fiefListObject: List<AnyRealmValue>? {
        if case .list(let list) = self { return list }
        return nil
    }

    private var fiefDictionaryObject: Map<String, AnyRealmValue>? {
        if case .dictionary(let map) = self { return map }
        return nil
    }

    /// A new, empty unmanaged list or dictionary for a nested collection;
    /// nil for any other value.
    private func fiefEmptyCopy() -> AnyRealmValue? {
        switch self {
        case .list: return .list(List<AnyRealmValue>())
        case .dictionary: return .dictionary(Map<String, AnyRealmValue>())
        default: return nil
        }
    }

    /// The value to look for in a collection of `core`'s file, or nil when
    /// it cannot be there: an unmanaged object, one of another file, or a
    /// nested collection (never an element to look up).
    func fiefLookupValue(in arena: _FiefArena, core: RealmCore) -> fief_value_t? {
        switch self {
        case .object(let object):
            guard let row = object._fiefManaged, row.core.path == core.path else { return nil }
            return _fiefValue(in: arena)
        case .list, .dictionary:
            return nil
        default:
            return _fiefValue(in: arena)
        }
    }

    /// Whether both are the same element by Realm's rules (as the library
    /// compares mixed values in sets and list lookups): numbers of any type
    /// are equal when their values are (every NaN being one NaN), other
    /// values only to values of their own type; objects when they are the
    /// same instance or row; nested collections when they are the same
    /// collection.
    func fiefRealmEquals(_ other: AnyRealmValue) -> Bool {
        if let a = fiefNumber, let b = other.fiefNumber { return FiefMixedNumber.equal(a, b) }
        switch (self, other) {
        case (.none, .none): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.objectId(a), .objectId(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.object(a), .object(b)): return fiefSameElement(a, b)
        case let (.list(a), .list(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        default: return false
        }
    }

    /// The number the value holds, if it is one.
    var fiefNumber: FiefMixedNumber? {
        switch self {
        case .int(let v): return .int(Int64(v))
        case .float(let v): return .double(Double(v))
        case .double(let v): return .double(v)
        case .decimal128(let v): return .decimal(v)
        default: return nil
        }
    }
}

/// A number of a mixed value, compared and added across types.
enum FiefMixedNumber {
    case int(Int64)
    case double(Double)
    case decimal(Decimal128)

    var decimal: Decimal128 {
        switch self {
        case .int(let v): return Decimal128(v)
        case .double(let v): return Decimal128(v)
        case .decimal(let v): return v
        }
    }

    var double: Double {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return v.doubleValue
        }
    }

    var isNaN: Bool {
        switch self {
        case .int: return false
        case .double(let v): return v.isNaN
        case .decimal(let v): return v.isNaN
        }
    }

    /// Whether `a` and `b` are the same number (ints compared exactly with
    /// doubles; every NaN equal to every NaN).
    static func equal(_ a: FiefMixedNumber, _ b: FiefMixedNumber) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        return compare(a, b) == 0
    }

    /// -1, 0 or 1 as `a` is smaller than, equal to or larger than `b`
    /// (neither NaN).
    static func compare(_ a: FiefMixedNumber, _ b: FiefMixedNumber) -> Int {
        switch (a, b) {
        case let (.int(x), .int(y)):
            return x < y ? -1 : x == y ? 0 : 1
        case let (.int(x), .double(y)):
            return -compareDouble(y, x)
        case let (.double(x), .int(y)):
            return compareDouble(x, y)
        case let (.double(x), .double(y)):
            return x < y ? -1 : x == y ? 0 : 1
        default:
            let x = a.decimal, y = b.decimal
            return x < y ? -1 : x == y ? 0 : 1
        }
    }

    /// A double against an int, exactly (no rounding of large ints).
    private static func compareDouble(_ x: Double, _ y: Int64) -> Int {
        if x < -9.223372036854775808e18 { return -1 }
        if x >= 9.223372036854775808e18 { return 1 }
        let whole = x.rounded(.down)
        let w = Int64(whole)
        if w != y { return w < y ? -1 : 1 }
        return x > whole ? 1 : 0
    }
}

// MARK: - Aggregates

/// min, max, sum and average over mixed values that are not stored (the
/// elements of an unmanaged List, MutableSet or Map of `AnyRealmValue`), by
/// the rules the library applies to stored ones (fief_list_aggregate and
/// the others, which managed collections call), as realm-core has them:
///
/// * min and max take every value but `.none`, NaN and nested collections,
///   compared in Realm's order of mixed values: bool, then the numbers (int,
///   float, double and decimal128 by their value across types), string,
///   data, date, object id, uuid, object; within a type false before true,
///   strings and data by their bytes.  Unmanaged objects have no order
///   among themselves: the first one found stands.
/// * sum and average take the numbers only (NaN skipped), each added as a
///   `Decimal128` (a double rounded to 15 significant digits, a float to 7),
///   and give a `.decimal128`: the sum of none is `.int(0)` (RealmSwift's
///   unmanaged collections sum to an NSNumber 0), their average nil.
enum FiefMixedAggregate {
    /// The aggregate `op` of `elements` as `T` when they are mixed values
    /// (`E` is `AnyRealmValue`): `.some(nil)` for a null result, nil when
    /// `E` is another type (the caller aggregates those).
    static func result<E, T>(_ op: fief_aggregate_t, of elements: @autoclosure () -> [E], as type: T.Type) -> T?? {
        guard let values = mixed(elements()) else { return nil }
        let value: AnyRealmValue?
        switch op {
        case FIEF_AGGREGATE_MIN: value = extreme(values, smallest: true)
        case FIEF_AGGREGATE_MAX: value = extreme(values, smallest: false)
        case FIEF_AGGREGATE_SUM:
            let (total, count) = sum(values)
            value = count == 0 ? .int(0) : .decimal128(total)
        default:
            let (total, count) = sum(values)
            value = count == 0 ? nil : .decimal128(total / Decimal128(count))
        }
        guard let value else { return .some(nil) }
        guard let converted = cast(value, to: T.self) else {
            preconditionFailure("The \(op == FIEF_AGGREGATE_SUM ? "sum" : "aggregate") \(value) of mixed values does not convert to \(T.self)")
        }
        return converted
    }

    /// The smallest (or largest) value in Realm's mixed order, or nil when
    /// there is none.
    static func extreme(_ values: [AnyRealmValue], smallest: Bool) -> AnyRealmValue? {
        var best: AnyRealmValue?
        for value in values where isOrdered(value) {
            guard let current = best else {
                best = value
                continue
            }
            let order = compare(value, current)
            if smallest ? order < 0 : order > 0 { best = value }
        }
        return best
    }

    /// Whether min and max take the value (not `.none`, NaN, nor a nested collection).
    private static func isOrdered(_ value: AnyRealmValue) -> Bool {
        switch value {
        case .none, .list, .dictionary: return false
        default: return !(value.fiefNumber?.isNaN ?? false)
        }
    }

    /// The value's place in the order of types.
    private static func rank(_ value: AnyRealmValue) -> Int {
        switch value {
        case .none: return 0
        case .bool: return 1
        case .int, .float, .double, .decimal128: return 2
        case .string: return 3
        case .data: return 4
        case .date: return 5
        case .objectId: return 6
        case .uuid: return 7
        case .object: return 8
        case .list: return 9
        case .dictionary: return 10
        }
    }

    /// -1, 0 or 1 as `a` comes before, with or after `b` (neither NaN).
    static func compare(_ a: AnyRealmValue, _ b: AnyRealmValue) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case let (.bool(x), .bool(y)): return x == y ? 0 : (x ? 1 : -1)
        case let (.string(x), .string(y)): return bytes(Array(x.utf8), Array(y.utf8))
        case let (.data(x), .data(y)): return bytes(Array(x), Array(y))
        case let (.date(x), .date(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.objectId(x), .objectId(y)): return bytes(x.bytes, y.bytes)
        case let (.uuid(x), .uuid(y)): return bytes(withUnsafeBytes(of: x.uuid) { Array($0) }, withUnsafeBytes(of: y.uuid) { Array($0) })
        default:
            guard let x = a.fiefNumber, let y = b.fiefNumber else { return 0 }
            return FiefMixedNumber.compare(x, y)
        }
    }

    private static func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    }

    /// The sum of the numbers (others and NaN skipped) as a decimal, and
    /// how many there were.
    static func sum(_ values: [AnyRealmValue]) -> (total: Decimal128, count: Int) {
        var total = Decimal128.zero
        var count = 0
        for value in values {
            switch value {
            case .int(let v): total += Decimal128(v)
            case .float(let v) where !v.isNaN: total += Decimal128(Double(v), roundedToDigits: 7)
            case .double(let v) where !v.isNaN: total += Decimal128(v, roundedToDigits: 15)
            case .decimal128(let v) where !v.isNaN: total += v
            default: continue
            }
            count += 1
        }
        return (total, count)
    }

    /// `value` as the type an aggregate was asked for: itself for
    /// `AnyRealmValue`, else its payload converted.
    static func cast<T>(_ value: AnyRealmValue, to type: T.Type) -> T? {
        if let same = value as? T { return same }
        guard let payload = value._fiefStored else { return nil }
        return FiefAggregate.cast(payload, to: T.self)
    }

    /// The elements of a collection of `E` as mixed values, when `E` is
    /// `AnyRealmValue`; nil otherwise.
    static func mixed<E>(_ elements: @autoclosure () -> [E]) -> [AnyRealmValue]? {
        E.self == AnyRealmValue.self ? elements().map { $0 as! AnyRealmValue } : nil
    }
}

// MARK: - Codable

/// `AnyRealmValue` is Codable in Fief (RealmSwift's is not), so that model
/// classes with mixed properties can be Codable.  The JSON-native values
/// encode as themselves: `.none` as null, `.bool`, `.int` and `.string` as
/// such, `.list` as an array and `.dictionary` as an object (its keys never
/// start with `$`).  Every other value encodes as an object with one key
/// naming its type, so that it decodes as it was: `{"$double": 2.5}`,
/// `{"$float": 1.5}`, `{"$date": ...}`, `{"$data": ...}`,
/// `{"$objectId": ...}`, `{"$decimal128": ...}`, `{"$uuid": ...}` (each
/// payload as its own type encodes it, under the encoder's strategies), and
/// `{"$class": "Dog", "$object": {...}}` for an object of a `Codable` model
/// class.  Decoding also takes untagged numbers (an integral one as `.int`,
/// any other as `.double`).
///
/// Depth: coders recurse once per nesting level (the standard `Encoder` and
/// `Decoder` containers give no other way), so a value nested deeper than
/// `FiefCodingDepth.maximum` (100) containers on the coding path, counting
/// those of the objects around it, is refused rather than exhausting the
/// stack: encoding throws `EncodingError.invalidValue` and decoding
/// `DecodingError.dataCorrupted` naming the limit.  (The library stores and
/// reads values nested far deeper; Foundation's JSONDecoder itself refuses
/// JSON nested over 512 levels.)
extension AnyRealmValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        try FiefCodingDepth.check(decoder)
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .none
                return
            }
            if let value = try? single.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? single.decode(Int.self) {
                self = .int(value)
                return
            }
            if let value = try? single.decode(Double.self) {
                self = .double(value)
                return
            }
            if let value = try? single.decode(String.self) {
                self = .string(value)
                return
            }
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [AnyRealmValue] = []
            while !array.isAtEnd { elements.append(try array.decode(AnyRealmValue.self)) }
            self = .fromArray(elements)
            return
        }
        let object = try decoder.container(keyedBy: Key.self)
        let keys = object.allKeys
        guard let tag = keys.first(where: { $0.stringValue.hasPrefix("$") }) else {
            var entries: [String: AnyRealmValue] = [:]
            for key in keys { entries[key.stringValue] = try object.decode(AnyRealmValue.self, forKey: key) }
            self = .fromDictionary(entries)
            return
        }
        func corrupted(_ message: String) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: message))
        }
        switch tag.stringValue {
        case "$double": self = .double(try object.decode(Double.self, forKey: tag))
        case "$float": self = .float(try object.decode(Float.self, forKey: tag))
        case "$date": self = .date(try object.decode(Date.self, forKey: tag))
        case "$data": self = .data(try object.decode(Data.self, forKey: tag))
        case "$objectId": self = .objectId(try object.decode(ObjectId.self, forKey: tag))
        case "$decimal128": self = .decimal128(try object.decode(Decimal128.self, forKey: tag))
        case "$uuid": self = .uuid(try object.decode(UUID.self, forKey: tag))
        case "$class", "$object":
            let name = try object.decode(String.self, forKey: Key("$class"))
            guard let type = SchemaRegistry.type(named: name) else {
                throw corrupted("Cannot decode an object of class '\(name)': the program declares no model class of that name")
            }
            guard let decodable = type as? (Object & Decodable).Type else {
                throw corrupted("Cannot decode an object of class '\(name)': the class is not Decodable")
            }
            self = .object(try decodable.init(from: object.superDecoder(forKey: Key("$object"))))
        default:
            throw corrupted("Unknown mixed value tag '\(tag.stringValue)' (dictionary keys of mixed values never start with '$')")
        }
    }

    /// Encodes the value (see the extension's description for the format).
    /// - Throws: `EncodingError.invalidValue` for an object whose class is
    ///   not `Encodable`.
    public func encode(to encoder: Encoder) throws {
        func tagged<T: Encodable>(_ tag: String, _ value: T) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: Key(tag))
        }
        switch self {
        case .list, .dictionary, .object: try FiefCodingDepth.check(encoder, self)
        default: break
        }
        switch self {
        case .none:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value): try tagged("$double", value)
        case .float(let value): try tagged("$float", value)
        case .date(let value): try tagged("$date", value)
        case .data(let value): try tagged("$data", value)
        case .objectId(let value): try tagged("$objectId", value)
        case .decimal128(let value): try tagged("$decimal128", value)
        case .uuid(let value): try tagged("$uuid", value)
        case .object(let object):
            guard let encodable = object as? Encodable else {
                throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                             debugDescription: "The class '\(type(of: object).className())' of a mixed value's object is not Encodable"))
            }
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(type(of: object).className(), forKey: Key("$class"))
            try encodable.encode(to: container.superEncoder(forKey: Key("$object")))
        case .list(let list):
            var container = encoder.unkeyedContainer()
            for element in list.elements { try container.encode(element) }
        case .dictionary(let map):
            var container = encoder.container(keyedBy: Key.self)
            for entry in map.entries { try container.encode(entry.value, forKey: Key(entry.key)) }
        }
    }
}

// MARK: - Nested collections

/// One step from a mixed property down to a nested collection: a list
/// position or a dictionary key.
enum FiefNestedStep: Hashable, CustomStringConvertible {
    case position(Int)
    case key(String)

    var description: String {
        switch self {
        case .position(let position): return "[\(position)]"
        case .key(let key): return "[\"\(key)\"]"
        }
    }
}

/// The steps from a mixed property down to a nested collection, as a chain
/// from the deepest step up (each collection's path shares its parent's):
/// reaching a collection n levels deep costs O(n), not O(n^2), and
/// releasing a long chain unlinks it without recursion.
final class FiefNestedPath: Equatable, CustomStringConvertible {
    /// The last step; nil for the property itself.
    let step: FiefNestedStep?
    private var parent: FiefNestedPath?
    /// How many steps.
    let depth: Int

    /// The path of the collection a mixed property holds (no steps).
    static var property: FiefNestedPath { FiefNestedPath(parent: nil, step: nil) }

    private init(parent: FiefNestedPath?, step: FiefNestedStep?) {
        self.parent = parent
        self.step = step
        depth = (parent?.depth ?? 0) + (step == nil ? 0 : 1)
    }

    /// This path and one step more.
    func appending(_ step: FiefNestedStep) -> FiefNestedPath { FiefNestedPath(parent: self, step: step) }

    /// The steps, from the property down.
    var steps: [FiefNestedStep] {
        var out: [FiefNestedStep] = []
        out.reserveCapacity(depth)
        var node: FiefNestedPath? = self
        while let current = node {
            if let step = current.step { out.append(step) }
            node = current.parent
        }
        return out.reversed()
    }

    var description: String { steps.map(\.description).joined() }

    static func == (a: FiefNestedPath, b: FiefNestedPath) -> Bool {
        guard a.depth == b.depth else { return false }
        var x: FiefNestedPath? = a, y: FiefNestedPath? = b
        while let p = x, let q = y, p !== q {
            if p.step != q.step { return false }
            x = p.parent
            y = q.parent
        }
        return true
    }

    deinit {
        // Unlink the chain above while this path holds its only reference,
        // so releasing a deep path never recurses.
        var next = parent
        parent = nil
        while var node = next {
            next = nil
            guard isKnownUniquelyReferenced(&node) else { break }
            next = node.parent
            node.parent = nil
        }
    }
}

/// Where a managed mixed value lives, to reach the nested collection it
/// holds: a mixed property of a row, an element of a managed list, or the
/// value of a key of a managed map.
enum FiefMixedSlot {
    case property(ManagedRow, Int)
    case listElement(ManagedList, Int)
    case mapValue(ManagedMap, String)
}

extension AnyRealmValue {
    /// The mixed value `value` read from `slot` of `core`: a nested
    /// collection as a live `List` or `Map` on its handle; nil for a type
    /// that is no mixed value.
    static func fiefRead(_ value: fief_value_t, core: RealmCore, in slot: @autoclosure () -> FiefMixedSlot) -> AnyRealmValue? {
        switch value.type {
        case FIEF_TYPE_LIST: return .list(List(managed: slot().nestedList()))
        case FIEF_TYPE_MAP: return .dictionary(Map(managed: slot().nestedMap()))
        default: return _fiefRead(value, in: Realm(core: core))
        }
    }

    /// Writes the contents of this (detached) nested collection into the
    /// empty one just stored at `slot`, nested ones included, to any depth:
    /// a worklist, not recursion.
    func fiefFillNested(in slot: FiefMixedSlot, core: RealmCore) {
        var pending: [(value: AnyRealmValue, slot: FiefMixedSlot)] = [(self, slot)]
        while let (value, slot) = pending.popLast() {
            switch value {
            case .list(let source):
                let elements = source.elements
                guard !elements.isEmpty else { continue }
                let target = slot.nestedList()
                let start = target.appendDetachedMixed(elements)
                for (offset, element) in elements.enumerated() where element.fiefIsNested {
                    pending.append((element, .listElement(target, start + offset)))
                }
            case .dictionary(let source):
                let entries = source.entries
                guard !entries.isEmpty else { continue }
                let target = slot.nestedMap()
                for entry in entries {
                    target.setDetachedMixed(entry.key, entry.value)
                    if entry.value.fiefIsNested { pending.append((entry.value, .mapValue(target, entry.key))) }
                }
            default:
                break
            }
        }
    }
}

extension Array: AnyRealmValue.FiefNativeCollection {
    fileprivate var fiefConversion: AnyRealmValue.FiefConversion? { .list(map { $0 as Any? }) }
}

extension Dictionary: AnyRealmValue.FiefNativeCollection {
    /// A dictionary with keys of another type is left to the other checks.
    fileprivate var fiefConversion: AnyRealmValue.FiefConversion? {
        guard Key.self == String.self else { return nil }
        return .dictionary(map { ($0.key as! String, $0.value as Any?) })
    }
}

/// The deepest coding path Fief's Codable conformances go down (see
/// `AnyRealmValue`'s Codable conformance): coders recurse once per level, so
/// a bound keeps a deep value from exhausting the stack (100 levels fit a
/// 512 KB thread stack with JSONEncoder and JSONDecoder in a debug build).
enum FiefCodingDepth {
    static let maximum = 100

    static func message(_ depth: Int) -> String {
        "Nested \(depth) levels deep: Fief encodes and decodes values nested at most \(maximum) levels deep"
    }

    /// Throws `EncodingError.invalidValue` when `encoder` is `maximum` levels deep.
    static func check(_ encoder: Encoder, _ value: Any) throws {
        let path = encoder.codingPath
        guard path.count >= maximum else { return }
        throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: message(path.count)))
    }

    /// Throws `DecodingError.dataCorrupted` when `decoder` is `maximum` levels deep.
    static func check(_ decoder: Decoder) throws {
        let path = decoder.codingPath
        guard path.count >= maximum else { return }
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: message(path.count)))
    }
}
