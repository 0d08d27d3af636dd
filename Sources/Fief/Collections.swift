// What the three collection property types (List, MutableSet, Map) share:
// how the overlay treats one as a property value without knowing its
// element type, the managed handle of a set or map property, and the
// element comparisons and aggregates computed in the overlay.

import CFief
import Foundation

// MARK: - As a property type

/// What the overlay needs of a collection property's value (`List`,
/// `MutableSet`, `Map`) without knowing its element type.  A collection
/// property is stored as its element type with a collection kind
/// (`fief_property_info_t.collection_type`); an object holds one instance
/// per property, which becomes live when the object becomes managed.
protocol FiefCollectionProtocol: AnyObject {
    /// `FIEF_COLLECTION_LIST`, `_SET` or `_MAP`.
    static var fiefCollectionType: fief_collection_type_t { get }
    /// A new unmanaged collection of the same type holding this one's elements now.
    func fiefSnapshot() -> any _Persistable
    /// Binds this (unmanaged) instance to collection property `index` of
    /// `row`: from now on it shows the realm's collection.
    func fiefAttach(to row: ManagedRow, index: Int)
    /// Replaces this collection's contents with those of `other`, a
    /// collection of the same type.
    func fiefAssign(from other: Any)
    /// The live collection property `index` of `row`, as a new instance.
    static func fiefManaged(row: ManagedRow, index: Int) -> Any
}

extension List {
    static var fiefCollectionType: fief_collection_type_t { fief_collection_type_t(FIEF_COLLECTION_LIST) }
}

/// How messages name a property of collection kind `type`.
func fiefCollectionKindName(_ type: fief_collection_type_t) -> String {
    switch type {
    case fief_collection_type_t(FIEF_COLLECTION_LIST): return "a list"
    case fief_collection_type_t(FIEF_COLLECTION_SET): return "a set"
    case fief_collection_type_t(FIEF_COLLECTION_MAP): return "a map"
    default: return "not a collection"
    }
}

// MARK: - A managed set or map

/// Set or map property `index` of a managed object: the C handle (made on
/// first use from the owner's object handle), validity, and the traps
/// RealmSwift raises for its misuse.  `ManagedSet` and `ManagedMap` add
/// the calls of their C group.
class ManagedCollection {
    let row: ManagedRow
    let index: Int
    /// For a collection nested in mixed property `index` (see
    /// AnyRealmValue): the steps from the property down to it; nil for the
    /// property's own collection.
    let nestedPath: FiefNestedPath?
    private var cachedHandle: CHandle?

    init(row: ManagedRow, index: Int) {
        self.row = row
        self.index = index
        nestedPath = nil
    }

    /// A collection nested in mixed property `index` of `row`, reached by
    /// `path`, on its handle.
    init(row: ManagedRow, index: Int, nested handle: CHandle, path: FiefNestedPath) {
        self.row = row
        self.index = index
        nestedPath = path
        cachedHandle = handle
    }

    var core: RealmCore { row.core }
    var property: PropertyInfo { row.binding.info.properties[index] }
    var name: String { "\(row.binding.info.className).\(property.name)" + (nestedPath?.description ?? "") }

    /// How RealmSwift's messages name the kind ("Set", "Dictionary").
    class var kindName: String { "Collection" }

    /// A new C handle for the collection (fief_object_get_set / _get_map).
    func makeHandle() -> OpaquePointer? { nil }

    /// Whether the C handle's owner still exists (fief_set_is_valid / fief_map_is_valid).
    func handleIsValid(_ raw: OpaquePointer) -> Bool { false }

    /// The C handle, made on first use.
    var handle: CHandle {
        if let cachedHandle { return cachedHandle }
        checkGeneration()
        guard let raw = makeHandle() else { trap(CError.last(), writing: false) }
        let handle = CHandle(raw)
        cachedHandle = handle
        return handle
    }

    /// Whether the owner still exists and its realm was not invalidated.
    var isValid: Bool { row.isValid && handleIsValid(handle.raw) }

    func checkGeneration() {
        if row.generation != row.core.generation { preconditionFailure("Access to invalidated \(Self.kindName) object") }
    }

    /// Traps for a failed C call, with RealmSwift's message for the error.
    func trap(_ error: CError, writing: Bool) -> Never {
        switch error.code {
        case FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_CLOSED:
            preconditionFailure("Access to invalidated \(Self.kindName) object [\(error.message)]")
        default:
            row.trapForAccess(error, writing: writing)
        }
    }

    /// Traps with the thread's last error when a C call returned false.
    @inline(__always)
    func check(_ ok: Bool, writing: Bool) {
        if !ok { trap(CError.last(), writing: writing) }
    }

    /// The owner in another realm of the same file (fief_object_resolve_in),
    /// or nil when it does not exist there.
    func resolvedRow(in target: RealmCore) -> ManagedRow? {
        var out: OpaquePointer?
        guard fief_object_resolve_in(row.handle.raw, target.handle.raw, &out) else {
            fiefTrap("Cannot resolve a \(Self.kindName) in another realm", CError.last())
        }
        guard let out else { return nil }
        return ManagedRow(handle: CHandle(out), core: target, binding: row.binding)
    }

    /// The owner's row in a frozen copy of its realm at its current version
    /// (fief_realm_freeze, fief_object_resolve_in), for `freeze()`: traps,
    /// as RealmSwift does, when the owner was deleted or invalidated.
    func frozenRow(typeName: String) -> ManagedRow {
        guard isValid, let row = resolvedRow(in: core.frozenCore()) else {
            preconditionFailure("Cannot freeze a \(typeName) whose object has been deleted or invalidated.")
        }
        return row
    }

    /// The owner's row in the live realm of this frozen one, for `thaw()`;
    /// nil when the owner was deleted since.
    func liveRow() -> ManagedRow? {
        resolvedRow(in: core.liveCore())
    }

    /// The aggregate `op` of the values (`property` 0) or of property
    /// `property` of the objects, computed by the library where they are
    /// stored (fief_set_aggregate / fief_map_aggregate); nil for a null
    /// result (no values).
    func aggregate(_ op: fief_aggregate_t, property: fief_property_key_t) -> fief_value_t? {
        checkGeneration()
        var value = fief_value_t()
        if !performAggregate(handle.raw, property, op, &value) {
            fiefTrap("Cannot aggregate \(Self.kindName) '\(name)'", CError.last())
        }
        return value.type == FIEF_TYPE_NULL ? nil : value
    }

    /// The C aggregate call of the collection's group.
    func performAggregate(_ raw: OpaquePointer, _ property: fief_property_key_t, _ op: fief_aggregate_t,
                          _ out: UnsafeMutablePointer<fief_value_t>) -> Bool { false }

    /// `aggregate(op, property:)` as `T`, for a managed collection the
    /// library aggregates: values of a type `op` takes (numbers and mixed
    /// values; timestamps for min and max), or a property of objects
    /// (`property` names it).
    /// nil when the library does not (the caller computes in Swift);
    /// `.some(nil)` for no values (a sum is then 0).
    func libraryAggregate<T>(_ op: fief_aggregate_t, valueType: any _Persistable.Type, property: String, as type: T.Type) -> T?? {
        var key: fief_property_key_t = 0
        if valueType._fiefLinkTarget != nil {
            guard property != "self" else { return nil }
            let target = core.binding(forLinkOf: self.property)
            guard let index = target.info.propertyIndex[property] else {
                preconditionFailure("Invalid property name '\(property)' for class '\(target.info.className)'")
            }
            key = target.propertyKeys[index]
        } else {
            guard property == "self" else { return nil }
            switch valueType._fiefType {
            case FIEF_TYPE_INT, FIEF_TYPE_FLOAT, FIEF_TYPE_DOUBLE, FIEF_TYPE_DECIMAL128, FIEF_TYPE_MIXED: break
            case FIEF_TYPE_TIMESTAMP where op == FIEF_AGGREGATE_MIN || op == FIEF_AGGREGATE_MAX: break
            default: return nil
            }
        }
        guard var value = aggregate(op, property: key) else {
            return op == FIEF_AGGREGATE_SUM ? FiefAggregate.convert(.int(0), to: T.self, core: core) : .some(nil)
        }
        if value.type == FIEF_TYPE_DOUBLE, (T.self as? any _Persistable.Type)?._fiefType == FIEF_TYPE_INT {
            // An average asked for as an integer type (`average(of: \.age)`):
            // truncated, as RealmSwift bridges it.
            value = .int(Int64(value.u.double_value.rounded(.towardZero)))
        }
        return FiefAggregate.convert(value, to: T.self, core: core)
    }

    /// Whether both name the same property of the same row.
    func isSame(as other: ManagedCollection) -> Bool {
        index == other.index && nestedPath == other.nestedPath && row.sameRow(as: other.row)
    }
}

// MARK: - Elements

/// Whether two elements of a collection are the same element: the same
/// object (instance, or row of the same file), equal values otherwise,
/// every NaN being one NaN (as the engine keeps them).
func fiefSameElement<E: Equatable>(_ a: E, _ b: E) -> Bool {
    if let x = a as? AnyRealmValue, let y = b as? AnyRealmValue { return x.fiefRealmEquals(y) }
    if let x = a as? ObjectBase, let y = b as? ObjectBase {
        if x === y { return true }
        guard let r1 = x._fiefManaged, let r2 = y._fiefManaged else { return false }
        return r1.core.path == r2.core.path && r1.binding.classKey == r2.binding.classKey && r1.objectKey == r2.objectKey
    }
    if a == b { return true }
    switch (fiefUnwrap(a), fiefUnwrap(b)) {
    case let (x as Double, y as Double): return x.isNaN && y.isNaN
    case let (x as Float, y as Float): return x.isNaN && y.isNaN
    default: return false
    }
}

/// The stored value of `element` (see `_Persistable._fiefStored`).
func fiefStoredValue<E>(_ element: E) -> Any? {
    (element as? any _Persistable)?._fiefStored
}

/// The value of `keyPath` on `value` (KVC): a property of an object, the
/// next component on what it gives; nil when a step gives nil.
func fiefValue(forKeyPath keyPath: Substring, of value: Any?) -> Any? {
    guard let value = fiefUnwrap(value), !(value is NSNull) else { return nil }
    guard !keyPath.isEmpty else { return value }
    let (head, rest) = keyPath.firstIndex(of: ".").map { (keyPath[..<$0], keyPath[keyPath.index(after: $0)...]) }
        ?? (keyPath, Substring())
    guard let object = value as? ObjectBase else {
        preconditionFailure("Key path '\(keyPath)' cannot be read from a value of type \(type(of: value)): only objects have properties")
    }
    return fiefValue(forKeyPath: rest, of: object.value(forKey: String(head)))
}

/// The stored values of property `property` of `objects` (KVC), or of the
/// elements themselves for `"self"`, nils left out: what aggregates by
/// property name work on.  `what` names the collection in the trap for
/// elements that are not objects.
func fiefStoredValues<E>(ofProperty property: String, of objects: [E], in what: String) -> [Any] {
    if property == "self" { return objects.compactMap(fiefStoredValue) }
    return objects.compactMap { element -> Any? in
        guard let element = fiefUnwrap(element) else { return nil }
        guard let object = element as? ObjectBase else {
            preconditionFailure("Aggregates by property name need a \(what) of objects; use min(), max(), sum() or average() on a \(what) of \(E.self)")
        }
        return fiefUnwrap(object._fiefStoredValue(forKey: property))
    }
}

/// `value` as an `NSNumber` when it is a Swift number or boolean (as RealmSwift's KVC hands
/// them out, so they cast to any numeric type that holds them); anything else unchanged.
func fiefNumberAsNSNumber(_ value: Any?) -> Any? {
    switch fiefUnwrap(value) {
    case let v as Int: return NSNumber(value: v)
    case let v as Int8: return NSNumber(value: v)
    case let v as Int16: return NSNumber(value: v)
    case let v as Int32: return NSNumber(value: v)
    case let v as Int64: return NSNumber(value: v)
    case let v as Bool: return NSNumber(value: v)
    case let v as Float: return NSNumber(value: v)
    case let v as Double: return NSNumber(value: v)
    default: return value
    }
}

// MARK: - Key-value coding of Lists and MutableSets

/// The value of `key` (not "self") on `element` of a List or MutableSet
/// (KVC): the property of the object it is; traps, naming `what` ("List",
/// "MutableSet"), for elements that are values.
func fiefObjectValue<E>(of element: E, forKey key: String, in what: String) -> Any? {
    fiefObject(element, forKey: key, in: what).value(forKey: key)
}

/// Sets `key` (not "self") to `value` on every object of `elements` (KVC on
/// a List or MutableSet); traps for elements that are values.
func fiefSetValue<E>(_ value: Any?, forKey key: String, onEach elements: [E], in what: String) {
    for element in elements {
        fiefObject(element, forKey: key, in: what).setValue(value, forKey: key)
    }
}

/// `value` as an element of a List or MutableSet of `E` (KVC's "self"),
/// converted as `init(value:)` converts; traps when it does not convert.
func fiefElement<E>(from value: Any?, in what: String) -> E {
    guard let element = (E.self as? any _Persistable.Type)?._fiefFromAny(value).map({ $0 as! E }) else {
        preconditionFailure("Invalid value '\(fiefDescribe(value))' for a \(what) of \(E.self)")
    }
    return element
}

private func fiefObject<E>(_ element: E, forKey key: String, in what: String) -> ObjectBase {
    guard let object = fiefUnwrap(element) as? ObjectBase else {
        preconditionFailure("Key '\(key)' is not valid for a \(what) of \(E.self): only 'self' is")
    }
    return object
}

// MARK: - Bridging to AnyObject (KVC answers, as RealmSwift gives them)

/// `value` as RealmSwift's KVC gives it: nil as `NSNull`, enums and custom
/// persistable types as their stored values, everything else bridged.
func fiefBridged(_ value: Any?) -> AnyObject {
    guard let value = fiefUnwrap(value) else { return NSNull() }
    if let object = value as? ObjectBase { return object }
    if let persistable = value as? any _Persistable {
        // A mixed value's payload (NSNull for `.none`); an enum's raw value.
        guard let stored = persistable._fiefStored else { return NSNull() }
        return stored as AnyObject
    }
    return value as AnyObject
}

/// The items of `any` when it is a sequence a collection can be made
/// from (an array, a Set, a List, a MutableSet, results...); nil for
/// anything else, strings, binaries and dictionaries included.
func fiefSequenceItems(_ any: Any) -> [Any?]? {
    if any is String || any is Substring || any is Data || any is NSDictionary || any is [String: Any?] { return nil }
    guard let sequence = any as? any Sequence else { return nil }
    func items<S: Sequence>(_ sequence: S) -> [Any?] { sequence.map { $0 as Any? } }
    return items(sequence)
}

// MARK: - Reading in batches

/// Reads a managed list, set or map a batch at a time for iteration (one
/// C range read per batch, each as it is reached).  Iteration covers the
/// elements there when it began, as RealmSwift's enumerator does: the size
/// is read once up front (elements appended meanwhile are not reached), and
/// again before each batch, so a collection that shrank meanwhile ends
/// early.  With `wholeAtOnce` (iterating inside a write transaction, where
/// the loop's own body may change the collection) everything is read in
/// the first batch: a snapshot, as RealmSwift takes in a write.
final class FiefBatchReader<Item> {
    static var batchSize: Int { 256 }
    private let size: () -> Int
    private let read: (_ start: Int, _ count: Int) -> [Item]
    private let total: Int
    private let wholeAtOnce: Bool
    private var position = 0

    init(size: @escaping () -> Int, wholeAtOnce: Bool = false, read: @escaping (_ start: Int, _ count: Int) -> [Item]) {
        self.size = size
        self.read = read
        self.total = size()
        self.wholeAtOnce = wholeAtOnce
    }

    /// The next batch, or nil at the end.
    func next() -> [Item]? {
        if wholeAtOnce {
            guard position == 0, total > 0 else { return nil }
            position = total
            return read(0, total)
        }
        let end = Swift.min(total, size())
        guard position < end else { return nil }
        let count = Swift.min(Self.batchSize, end - position)
        let batch = read(position, count)
        position += count
        return batch
    }
}
