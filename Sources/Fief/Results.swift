import CFief
import Foundation

/// A sort key: a key path and a direction (RealmSwift's `SortDescriptor`).
/// The key path names a property of the objects, or follows to-one links
/// and embedded objects to a property of the object at its end.
///
///     dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])
///     dogs.sorted(by: [SortDescriptor(keyPath: "owner.address.city"), "name"])
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The property to sort by: its name, or a path through to-one links
    /// ("owner.name").
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    /// A sort by `keyPath`.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// A sort by a key path of an object type (`\Dog.name`).
    public init<Root: ObjectBase, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        self.init(keyPath: ObjectSchemaInfo.of(Root.self).propertyName(for: keyPath), ascending: ascending)
    }

    /// An ascending sort by the property the literal names.
    public init(stringLiteral value: String) {
        self.init(keyPath: value)
    }

    /// The same key, the other direction.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }

    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}

/// The collection protocol shared by Realm's collections (RealmSwift's
/// `RealmCollection`): `Results`, `LinkingObjects`, `List` and
/// `AnyRealmCollection` conform.
public protocol RealmCollection: RandomAccessCollection, CustomStringConvertible, ThreadConfined, Equatable
    where Element: RealmCollectionValue, Index == Int, Iterator == RLMIterator<Element> {
    /// The number of objects.
    var count: Int { get }
    /// The position of `object`, or nil.
    func index(of object: Element) -> Int?
    /// Sets the property named `key` of every object to `value` (KVC; see
    /// `Results.setValue(_:forKey:)`).
    func setValue(_ value: Any?, forKey key: String)
    /// The objects matching a predicate in Realm's query language.
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element>
    /// The position of the first element matching a predicate in Realm's
    /// query language, or nil (IndexMatching.swift).
    func index(matching predicateFormat: String, _ args: Any...) -> Int?
    /// The objects sorted by one property (or key path through links).
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>
    /// The objects sorted by several properties, the first most significant.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor
    /// The first object for each distinct tuple of values of `keyPaths`.
    func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String
}

extension RealmCollection {
    /// The objects sorted ascending by one property.
    public func sorted(byKeyPath keyPath: String) -> Results<Element> {
        sorted(byKeyPath: keyPath, ascending: true)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The first object for each distinct tuple of values of the properties
    /// `keyPaths` of the element type (`[\.name, \.age]`); see
    /// `Results.distinct(by:)`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == PartialKeyPath<Element> {
        let info = ObjectSchemaInfo.of(Element.self)
        return distinct(by: keyPaths.map { info.propertyName(for: $0) })
    }
}

extension RealmCollection where Element: SortableType {
    /// The distinct values of a managed collection of values, each where
    /// it first appears (`distinct(by: ["self"])`; among mixed values, int
    /// 1 and double 1.0 are one value).  Traps for an unmanaged collection,
    /// as in RealmSwift.
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}

/// The live, lazily evaluated objects of one class, optionally filtered and
/// sorted (RealmSwift's `Results`); made by `Realm.objects(_:)`, never directly.
/// Results of values (`Results<Int>`, `Results<String?>`, ...) come from a
/// managed list, set or map of values (`list.filter("self > 1")`,
/// `set.sorted()`): they read, filter, sort and aggregate its values in the
/// library (fief_list_to_results, fief_set_to_results, fief_map_to_results,
/// fief_results_get_value).
///
/// Results always show the realm's current version: after a commit (or
/// `refresh()`), `count` and the elements change.  `for ... in` iterates the
/// objects that matched when the loop began.
public struct Results<Element: RealmCollectionValue>: Equatable {
    let handle: CHandle
    let core: RealmCore
    /// How the elements are read: objects of a class, or values.
    let elements: any ResultsElements
    let generation: UInt64

    private init(handle: CHandle, core: RealmCore, elements: any ResultsElements) {
        self.handle = handle
        self.core = core
        self.elements = elements
        generation = core.generation
    }

    /// Results of the objects of `binding`'s class.
    init(handle: CHandle, core: RealmCore, binding: ClassBinding) {
        self.init(handle: handle, core: core, elements: ObjectElements(classBinding: binding))
    }

    /// Results of values (`Element` is a value type) named `name` in messages.
    init(values handle: CHandle, core: RealmCore, name: String) {
        self.init(handle: handle, core: core, elements: ValueElements(name: name))
    }

    /// What messages call the results: the class, or the collection of values.
    var name: String { elements.name }

    /// Whether the elements are objects (else values).
    var holdsObjects: Bool { elements.binding != nil }

    /// The class of the objects (results of objects only).
    var binding: ClassBinding {
        guard let binding = elements.binding else { preconditionFailure("Results of \(name) hold values, not objects") }
        return binding
    }

    /// Results of the same elements from a new handle.
    private func derived(_ raw: OpaquePointer, core: RealmCore) -> Results {
        Results(handle: CHandle(raw), core: core, elements: elements)
    }

    /// The type of the objects.
    public typealias ElementType = Element

    private var wasInvalidated: Bool { generation != core.generation }

    /// The realm the results belong to.
    public var realm: Realm? { Realm(core: core) }

    /// Whether the results can no longer be used (their realm was
    /// invalidated; fief_results_is_valid).  Invalidated results are empty.
    public var isInvalidated: Bool { wasInvalidated || !fief_results_is_valid(handle.raw) }

    /// The number of objects (fief_results_count).
    public var count: Int {
        if wasInvalidated { return 0 }
        var count = 0
        guard fief_results_count(handle.raw, &count) else {
            let error = CError.last()
            if error.code == FIEF_ERR_INVALIDATED_RESULTS || error.code == FIEF_ERR_CLOSED { return 0 }
            fiefTrap("Cannot count \(name) results", error)
        }
        return count
    }

    /// Whether there are no objects.
    public var isEmpty: Bool { count == 0 }

    /// The object at `position` (fief_results_get_object; a value:
    /// fief_results_get_value).  Traps when out of bounds.
    public subscript(position: Int) -> Element {
        precondition(!wasInvalidated, "Results have been invalidated")
        return elements.element(at: position, of: self)
    }

    /// The first object, or nil if there is none.
    public var first: Element? { isEmpty ? nil : self[0] }

    /// The last object, or nil if there is none.
    public var last: Element? {
        let count = self.count
        return count == 0 ? nil : self[count - 1]
    }

    /// The position of `object` in the results, or nil
    /// (fief_results_index_of_object; a value: fief_results_index_of_value).
    public func index(of object: Element) -> Int? {
        guard !wasInvalidated else { return nil }
        return elements.index(of: object, in: self)
    }

    /// The objects that match `predicateFormat`, a predicate in Realm's query
    /// language, with `%@` or `$0`, `$1`... standing for `args` (`%K` for a
    /// key path; NSPredicate's printf-style numbers too: `%d`, `%ld`, `%u`
    /// ... take an integer, `%f`, `%lf` ... a double)
    /// (fief_results_filter).  Arguments may be integers, Bool, Float,
    /// Double, String, Data, Date, ObjectId, Decimal128, UUID, nil, arrays
    /// of those (for IN), or a `GeoBox`, `GeoPolygon` or `GeoCircle` (for
    /// `GEOWITHIN %@`, or RealmSwift's `IN %@`).  Traps, as RealmSwift does,
    /// for a predicate that does not parse or fit the class.
    ///
    ///     dogs.filter("age < %@ AND name BEGINSWITH $1", 2, "R")
    ///     companies.filter("location IN %@", GeoCircle(center: (47.3, -121.9), radius: .kilometers(10)!)!)
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        filter(predicateFormat, arguments: args)
    }

    func filter(_ predicateFormat: String, arguments args: [Any]) -> Results<Element> {
        // Properties by their stored names (`propertiesMapping()`).
        let (predicateFormat, args) = elements.stored(predicateFormat, args)
        let arena = _FiefArena()
        var queryArgs: [fief_query_arg_t] = []
        for (position, arg) in args.enumerated() {
            func convert(_ value: Any?) -> fief_value_t {
                if let object = value as? ObjectBase, object._fiefManaged == nil,
                   let binding = core.knownBinding(for: type(of: object)) {
                    // As in RealmSwift, an unmanaged object equals no object of
                    // the realm: a link to a key no object has (keys stop at 2^40).
                    var link = fief_value_t()
                    link.type = FIEF_TYPE_LINK
                    link.u.link = fief_link_t(class_key: binding.classKey, object_key: Int64.max)
                    return link
                }
                guard let converted = fiefValue(fromAny: value, arena: arena) else {
                    preconditionFailure("Unsupported predicate argument \(position) '\(fiefDescribe(value))' of type \(type(of: value ?? "nil"))")
                }
                return converted
            }
            let unwrapped = fiefUnwrap(arg)
            if let unwrapped, let shape = fiefGeoShapeValue(unwrapped, arena: arena) {
                queryArgs.append(fief_query_arg_t(count: 1, is_list: false, values: arena.array([shape])))
            } else if let list = unwrapped as? [Any], !(unwrapped is String) {
                let values = list.map { convert($0) }
                queryArgs.append(fief_query_arg_t(count: values.count, is_list: true, values: arena.array(values)))
            } else if let unwrapped, !(unwrapped is ObjectBase), !(unwrapped is AnyRealmValue), let items = fiefSequenceItems(unwrapped) {
                // A collection for `IN %@`: Results, List, MutableSet,
                // LinkingObjects, AnyRealmCollection, a Set...
                let values = items.map { convert($0) }
                queryArgs.append(fief_query_arg_t(count: values.count, is_list: true, values: arena.array(values)))
            } else {
                queryArgs.append(fief_query_arg_t(count: 1, is_list: false, values: arena.array([convert(unwrapped)])))
            }
        }
        let raw = withExtendedLifetime(arena) {
            queryArgs.withUnsafeBufferPointer { buffer in
                fief_results_filter(handle.raw, predicateFormat, buffer.baseAddress, buffer.count)
            }
        }
        guard let raw else {
            let error = CError.last()
            if let message = fiefGeoRegionMessage(error.message, arguments: args) { preconditionFailure(message) }
            fiefTrap("Invalid predicate '\(predicateFormat)' for \(elements.predicateSubject)", error)
        }
        return derived(raw, core: core)
    }

    /// The objects sorted by the property `keyPath` (fief_results_sort): a
    /// property of the objects, or a key path through to-one links and
    /// embedded objects ("owner.name", "address.city").  Nulls come first
    /// ascending; objects whose key path crosses a null link (a dog without
    /// an owner) come last ascending, first descending, as in RealmSwift.
    /// Traps, as RealmSwift does, for an unknown property or a key path
    /// through a list, set or map.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by several keys, the first most significant
    /// (fief_results_sort; key paths as in `sorted(byKeyPath:ascending:)`).
    /// Sorting sorted results makes the earlier keys secondary.  Traps for
    /// an unknown property.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        let descriptors = Array(sortDescriptors)
        let arena = _FiefArena()
        let keys = descriptors.map {
            fief_sort_descriptor_t(key_path: arena.cString(elements.storedPath($0.keyPath)), ascending: $0.ascending)
        }
        let raw = withExtendedLifetime(arena) {
            keys.withUnsafeBufferPointer { buffer in
                fief_results_sort(handle.raw, buffer.baseAddress, buffer.count)
            }
        }
        guard let raw else {
            let error = CError.last()
            if let missing = elements.missingProperty(in: descriptors.map(\.keyPath), core: core) {
                fiefTrap("Cannot sort on key path '\(missing.keyPath)': property '\(missing.property)' does not exist", error)
            }
            fiefTrap("Cannot sort '\(name)' by \(descriptors.map(\.keyPath))", error)
        }
        return derived(raw, core: core)
    }

    /// The first object for each distinct tuple of values of `keyPaths`,
    /// in the order of these results (fief_results_distinct): properties of
    /// the objects or key paths through to-one links ("owner.name"); "self"
    /// for results of values.  Values compare as Realm's equality (in an
    /// `AnyRealmValue` property, 1 and 1.0 are one value; strings exactly);
    /// objects whose key path crosses a null link are left out, as in
    /// RealmSwift.  Traps, as RealmSwift does, for an unknown property or a
    /// key path through a list, set or map.
    ///
    ///     realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).distinct(by: ["name"])  // the oldest of each name
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        let paths = Array(keyPaths)
        let arena = _FiefArena()
        let pointers: [UnsafePointer<CChar>?] = paths.map { arena.cString(elements.storedPath($0)) }
        let raw = withExtendedLifetime(arena) {
            pointers.withUnsafeBufferPointer { buffer in
                fief_results_distinct(handle.raw, buffer.baseAddress, buffer.count)
            }
        }
        guard let raw else {
            fiefTrap("Cannot distinct '\(name)' by \(paths)", CError.last())
        }
        return derived(raw, core: core)
    }

    /// Whether the results belong to a frozen realm.
    public var isFrozen: Bool { core.isFrozen }

    /// The same query on a frozen snapshot of the current version
    /// (fief_realm_freeze, fief_results_resolve_in).
    public func freeze() -> Results<Element> {
        if core.isFrozen { return self }
        let frozen = core.frozenCore()
        guard let raw = fief_results_resolve_in(handle.raw, frozen.handle.raw) else {
            fiefTrap("Cannot freeze results", CError.last())
        }
        return derived(raw, core: frozen)
    }

    /// The same query on the live realm (fief_realm_thaw,
    /// fief_results_resolve_in), or nil if it cannot be resolved.
    public func thaw() -> Results<Element>? {
        if !core.isFrozen { return self }
        let live = core.liveCore()
        guard let raw = fief_results_resolve_in(handle.raw, live.handle.raw) else { return nil }
        return derived(raw, core: live)
    }

    /// Whether both are the same results value.
    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool {
        lhs.handle === rhs.handle
    }

    // MARK: Aggregates (fief_results_aggregate: computed by the library in place)

    /// The aggregate `op` of `property` (of the objects; "self" for results
    /// of values), or nil for a null result.  Traps, as RealmSwift does, for
    /// an unknown property or one of a type the aggregate does not take.
    private func aggregate(_ op: fief_aggregate_t, _ property: String) -> fief_value_t? {
        let key = elements.aggregatedKey(property)
        if wasInvalidated { return nil }
        var value = fief_value_t()
        guard fief_results_aggregate(handle.raw, key, op, &value) else {
            fiefTrap("Cannot aggregate '\(property)' of \(name)", CError.last())
        }
        return value.type == FIEF_TYPE_NULL ? nil : value
    }

    /// The smallest value of `property` (fief_results_aggregate), or nil if
    /// there are no non-null values.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        aggregate(FIEF_AGGREGATE_MIN, property).map { FiefAggregate.convert($0, to: T.self, core: core) }
    }

    /// The largest value of `property`, or nil if there are no non-null values.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        aggregate(FIEF_AGGREGATE_MAX, property).map { FiefAggregate.convert($0, to: T.self, core: core) }
    }

    /// The sum of `property` over the objects (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        guard let value = aggregate(FIEF_AGGREGATE_SUM, property) else {
            return FiefAggregate.convert(fief_value_t.int(0), to: T.self, core: core)
        }
        return FiefAggregate.convert(value, to: T.self, core: core)
    }

    /// The average of `property`, or nil if there are no non-null values.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        aggregate(FIEF_AGGREGATE_AVERAGE, property).map { FiefAggregate.convert($0, to: T.self, core: core) }
    }
}

extension Results where Element: MinMaxType {
    /// The smallest value of results of values, or nil if there is none.
    public func min() -> Element? { min(ofProperty: "self") }
    /// The largest value of results of values, or nil if there is none.
    public func max() -> Element? { max(ofProperty: "self") }
}

extension Results where Element: AddableType {
    /// The sum of results of values (0 if there are none).
    public func sum() -> Element { sum(ofProperty: "self") }
    /// The average of results of values, or nil if there are none.
    public func average<T: AddableType>() -> T? { average(ofProperty: "self") }
}

extension Results where Element: SortableType {
    /// Results of values sorted by value (nil first ascending).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: "self", ascending: ascending)
    }
}

extension Results: RandomAccessCollection {
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// An iterator over the objects that match when iteration begins (their
    /// keys are read up front with fief_results_get_keys, in batches; each
    /// object is then fetched with fief_object_get).  Objects deleted
    /// meanwhile are skipped (fief.h, fief_results_get_keys).
    public func makeIterator() -> RLMIterator<Element> {
        RLMIterator(self)
    }
}

/// The iterator of Realm collections: iterates a snapshot of the objects
/// of results, or a list (in memory, or read in batches).
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private enum Source {
        case results(ResultsSnapshot<Element>)
        case elements([Element])
        /// A managed list or set read a batch at a time: the next batch, nil at the end.
        case batches(() -> [Element]?)
    }

    private var source: Source
    private var buffer: [Element] = []
    private var position = 0

    /// Results as they are when the loop begins (a snapshot, as RealmSwift
    /// enumerates one): objects' keys read 1,024 a call
    /// (fief_results_get_keys), values read at once.
    init(_ results: Results<Element>) {
        source = .results(results.elements.snapshot(of: results, positions: nil))
    }

    init(elements: [Element]) {
        source = .elements(elements)
        buffer = elements
    }

    init(nextBatch: @escaping () -> [Element]?) {
        source = .batches(nextBatch)
    }

    public mutating func next() -> Element? {
        switch source {
        case .results(var snapshot):
            let next = snapshot.next()
            source = .results(snapshot)
            return next
        case .elements:
            guard position < buffer.count else { return nil }
            position += 1
            return buffer[position - 1]
        case .batches(let nextBatch):
            if position == buffer.count {
                guard let batch = nextBatch(), !batch.isEmpty else { return nil }
                buffer = batch
                position = 0
            }
            position += 1
            return buffer[position - 1]
        }
    }
}

extension Results: RealmCollection {}

extension Results: CustomStringConvertible, FiefNestedDescription {
    /// `Results<Dog> <0x...> (\n\t[0] Dog {...},\n\t[1] ...\n)` in RealmSwift's
    /// layout (`Results<int>` for results of values), at most 100 elements,
    /// five levels deep at most (see Internal/Descriptions.swift).
    public var description: String { fiefDescription(named: "Results") }

    /// The description with `name` in the header (`LinkingObjects`, `AnyRealmCollection`).
    func fiefDescription(named name: String) -> String {
        let elementName = elements.elementName(Element.self)
        return FiefDescriptionDepth.nested {
            let count = self.count
            var entries: [String] = []
            for index in 0..<Swift.min(count, fiefDescribedElementLimit) {
                let element: Any? = elements.described(self[index])
                entries.append("[\(index)] \(fiefElementDescription(element))")
            }
            return fiefCollectionDescription(header: "\(name)<\(elementName)> <\(fiefAddress(handle))>", entries: entries, count: count)
        }
    }
}

extension Results where Element: ObjectBase {
    // V.PersistedType: SortableType in RealmSwift; every scalar type sorts here.
    /// The objects sorted by a key path of the element type (`\.name`).
    public func sorted<V: _HasPersistedType>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: binding.info.propertyName(for: keyPath), ascending: ascending)
    }
}

extension Results: Encodable where Element: Encodable {
    /// Encodes the objects as an array, in order.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self {
            try container.encode(element)
        }
    }
}
