// RealmSwift's `MutableSet<Element>`: a collection property of distinct
// values or objects.  Unmanaged, a MutableSet holds its elements in memory;
// once its object is managed, the same instance reads and writes the set in
// the realm through the C functions of fief.h's "Sets" group
// (fief_object_get_set, fief_set_*).

import CFief
import Foundation

/// A set of distinct values or objects, a to-many property of a model class
/// (RealmSwift's `MutableSet`):
///
///     class Dog: Object {
///         @Persisted var name = ""
///         @Persisted var citiesVisited: MutableSet<String>
///         @Persisted var friends: MutableSet<Dog>
///     }
///     dog.citiesVisited.insert("New York")
///     dog.citiesVisited.isSubset(of: dog2.citiesVisited)
///
/// Elements may be any scalar type Fief stores (optional or not),
/// persistable enums, custom persistable types and `Object` subclasses (a
/// set of links; a deleted object leaves every set that holds it).  An
/// unmanaged set (the property of an unmanaged object, or `MutableSet()`)
/// holds its elements in memory, in the order they were inserted;
/// `Realm.add` writes them and turns the same instance into a live view of
/// the realm's set, which always shows the realm's current version, its
/// elements in the set's order (numbers by value, strings bytewise, objects
/// by key; nil first).  Writes to a managed set need a write transaction.
///
/// Set algebra between two sets of the same realm runs in the engine
/// (fief_set_intersects, fief_set_form_union, ...); with an unmanaged set, or
/// one of another realm (a frozen one), it runs element by element.
/// A managed set is queried by the library (fief_set_to_results): a set of
/// objects filters and sorts by their properties, a set of values by
/// `self`, both as live `Results`; aggregates are computed where the set is
/// stored (fief_set_aggregate).  An unmanaged set computes aggregates in
/// Swift; filtering and sorting it trap, as in RealmSwift.
public final class MutableSet<Element: RealmCollectionValue> {
    enum State {
        /// Distinct elements, in the order they were inserted.
        case unmanaged([Element])
        case managed(ManagedSet)
    }

    var state: State

    /// Creates an empty, unmanaged set.
    public init() {
        state = .unmanaged([])
    }

    init(managed: ManagedSet) {
        state = .managed(managed)
    }

    // MARK: Element conversions

    /// The element type as a persistable type (every `RealmCollectionValue` is one).
    static var elementType: any _Persistable.Type {
        guard let type = Element.self as? any _Persistable.Type else {
            preconditionFailure("\(Element.self) cannot be stored in a MutableSet")
        }
        return type
    }

    private func element(_ value: fief_value_t, _ managed: ManagedSet) -> Element {
        guard let element = Self.elementType._fiefReadElement(value, in: Realm(core: managed.core), as: Element.self) else {
            preconditionFailure("MutableSet '\(managed.name)' holds a value of type \(value.type) that does not convert to \(Element.self)")
        }
        return element
    }

    /// `object` as a value to look for in `managed`, or nil when it cannot
    /// be there (an unmanaged object, or one of another file).
    private func lookupValue(_ object: Element, _ managed: ManagedSet, _ arena: _FiefArena) -> fief_value_t? {
        if let mixed = object as? AnyRealmValue { return mixed.fiefLookupValue(in: arena, core: managed.core) }
        if let base = fiefUnwrap(object) as? ObjectBase {
            guard let row = base._fiefManaged, row.core.path == managed.core.path else { return nil }
        }
        return Self.elementType._fiefElementLookupValue(object, in: arena)
    }

    // MARK: Reading

    /// The number of elements (fief_set_count).
    public var count: Int {
        switch state {
        case .unmanaged(let elements): return elements.count
        case .managed(let managed): return managed.size()
        }
    }

    /// Whether the set has no elements.
    public var isEmpty: Bool { count == 0 }

    /// The element at `position` in the set's order (fief_set_get).  Traps
    /// when out of bounds.  The order of a managed set is the engine's
    /// (by value); of an unmanaged one, the order of insertion.
    public subscript(position: Int) -> Element {
        switch state {
        case .unmanaged(let elements):
            if position < 0 || position >= elements.count {
                fiefTrapIndex(position, count: elements.count)
            }
            return elements[position]
        case .managed(let managed):
            return element(managed.get(position), managed)
        }
    }

    /// The first element in the set's order, or nil if the set is empty.
    public var first: Element? { isEmpty ? nil : self[0] }

    /// The last element in the set's order, or nil if the set is empty.
    public var last: Element? {
        let count = self.count
        return count == 0 ? nil : self[count - 1]
    }

    /// Every element, in the set's order (one fief_set_get_range call for a managed set).
    var elements: [Element] {
        switch state {
        case .unmanaged(let elements): return elements
        case .managed(let managed): return range(managed, 0, managed.size())
        }
    }

    func range(_ managed: ManagedSet, _ start: Int, _ count: Int) -> [Element] {
        guard count > 0 else { return [] }
        var values = [fief_value_t](repeating: fief_value_t(), count: count)
        managed.getRange(start, count, into: &values)
        return values.map { element($0, managed) }
    }

    /// Whether the set holds `object` (fief_set_contains, one lookup).  An
    /// unmanaged object is never in a managed set.
    public func contains(_ object: Element) -> Bool {
        switch state {
        case .unmanaged(let elements):
            return elements.contains { fiefSameElement($0, object) }
        case .managed(let managed):
            let arena = _FiefArena()
            guard let value = lookupValue(object, managed, arena) else { return false }
            return withExtendedLifetime(arena) { managed.contains(value) }
        }
    }

    /// The position of `object` in the set's order, or nil (fief_set_index_of).
    /// (RealmSwift traps here; Fief's sets are ordered, so it answers.)
    public func index(of object: Element) -> Int? {
        switch state {
        case .unmanaged(let elements):
            return elements.firstIndex { fiefSameElement($0, object) }
        case .managed(let managed):
            let arena = _FiefArena()
            guard let value = lookupValue(object, managed, arena) else { return nil }
            return withExtendedLifetime(arena) { managed.find(value) }
        }
    }

    /// The position of the first element matching a predicate in Realm's
    /// query language (`self` for a set of values), or nil.  Managed sets only.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        guard let object = results("search").filter(predicateFormat, arguments: args).first else { return nil }
        return index(of: object)
    }

    // MARK: Set algebra

    /// Both managed sets, when they belong to the same realm (the C set
    /// algebra needs one realm handle); nil otherwise.
    private func sameRealm(_ other: MutableSet<Element>) -> (ManagedSet, ManagedSet)? {
        guard case .managed(let mine) = state, case .managed(let theirs) = other.state, mine.core === theirs.core else {
            return nil
        }
        return (mine, theirs)
    }

    /// Whether the two sets have an element in common (fief_set_intersects
    /// for two sets of one realm).
    public func intersects(_ otherSet: MutableSet<Element>) -> Bool {
        if let (mine, theirs) = sameRealm(otherSet) { return mine.intersects(theirs) }
        return otherSet.elements.contains { contains($0) }
    }

    /// Whether every element of this set is in `possibleSuperset`
    /// (fief_set_is_subset_of for two sets of one realm).
    public func isSubset(of possibleSuperset: MutableSet<Element>) -> Bool {
        if let (mine, theirs) = sameRealm(possibleSuperset) { return mine.isSubset(of: theirs) }
        return elements.allSatisfy { possibleSuperset.contains($0) }
    }

    /// Whether this set holds every element of `possibleSubset`
    /// (fief_set_is_superset_of for two sets of one realm).
    public func isSuperset(of possibleSubset: MutableSet<Element>) -> Bool {
        if let (mine, theirs) = sameRealm(possibleSubset) { return mine.isSuperset(of: theirs) }
        return possibleSubset.isSubset(of: self)
    }

    /// Inserts every element of `other` (fief_set_form_union for two sets of
    /// one realm); in a write transaction for a managed set.  Unmanaged
    /// objects of `other` are added to the realm.
    public func formUnion(_ other: MutableSet<Element>) {
        if let (mine, theirs) = sameRealm(other) { return mine.formUnion(theirs) }
        insert(objectsIn: other.elements)
    }

    /// Keeps only the elements that are also in `other`
    /// (fief_set_form_intersection for two sets of one realm).
    public func formIntersection(_ other: MutableSet<Element>) {
        if let (mine, theirs) = sameRealm(other) { return mine.formIntersection(theirs) }
        for element in elements where !other.contains(element) { remove(element) }
    }

    /// Removes the elements that are in `other` (fief_set_subtract for two
    /// sets of one realm).
    public func subtract(_ other: MutableSet<Element>) {
        if let (mine, theirs) = sameRealm(other) { return mine.subtract(theirs) }
        for element in other.elements { remove(element) }
    }

    // MARK: Writing

    /// Inserts `object` if the set does not hold it yet (fief_set_insert); in
    /// a write transaction for a managed set.  An unmanaged object inserted
    /// into a managed set of links is added to the realm.
    public func insert(_ object: Element) {
        insert(objectsIn: CollectionOfOne(object))
    }

    /// Inserts every element of `objects` that the set does not hold yet.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Iterator.Element == Element {
        let objects = Array(objects)
        if Element.self == AnyRealmValue.self {
            for case let mixed as AnyRealmValue in objects where mixed.fiefIsNested {
                preconditionFailure("A MutableSet<AnyRealmValue> cannot hold a nested collection (\(mixed.listValue == nil ? "a .dictionary" : "a .list")): use a List or a Map of AnyRealmValue")
            }
        }
        switch state {
        case .unmanaged(var elements):
            state = .unmanaged([])   // no second reference while mutating
            for object in objects where !elements.contains(where: { fiefSameElement($0, object) }) {
                elements.append(object)
            }
            state = .unmanaged(elements)
        case .managed(let managed):
            let arena = _FiefArena()
            let realm = Realm(core: managed.core)
            for object in objects {
                let value = Self.elementType._fiefElementValue(object, in: arena, realm: realm)
                withExtendedLifetime(arena) { managed.insert(value) }
            }
        }
    }

    /// Removes `object` if the set holds it (fief_set_remove); a linked
    /// object stays in the realm.  In a write transaction for a managed set.
    public func remove(_ object: Element) {
        switch state {
        case .unmanaged(var elements):
            state = .unmanaged([])
            elements.removeAll { fiefSameElement($0, object) }
            state = .unmanaged(elements)
        case .managed(let managed):
            let arena = _FiefArena()
            guard let value = lookupValue(object, managed, arena) else {
                managed.requireWritable()
                return
            }
            withExtendedLifetime(arena) { managed.remove(value) }
        }
    }

    /// Removes every element (fief_set_clear); linked objects stay in the realm.
    public func removeAll() {
        switch state {
        case .unmanaged: state = .unmanaged([])
        case .managed(let managed): managed.clear()
        }
    }

    /// Replaces every element with those of `newElements` (assigning to a
    /// set property).
    func assign(_ newElements: [Element]) {
        switch state {
        case .unmanaged:
            state = .unmanaged([])
            insert(objectsIn: newElements)
        case .managed(let managed):
            managed.clear()
            insert(objectsIn: newElements)
        }
    }

    // MARK: Queries and aggregates

    /// The live results behind a managed set (fief_set_to_results): its
    /// objects, or its values; traps, naming `what`, for an unmanaged set,
    /// as RealmSwift does.
    func results(_ what: String) -> Results<Element> {
        guard let results = backingResults else {
            preconditionFailure("Cannot \(what) an unmanaged MutableSet: only sets managed by a realm support it (this method may only be called on MutableSet instances retrieved from a Realm)")
        }
        return results
    }

    /// The set's elements as live results, in the set's order
    /// (fief_set_to_results): objects for a set of objects, values
    /// otherwise; nil for an unmanaged set.
    var backingResults: Results<Element>? {
        guard case .managed(let managed) = state else { return nil }
        guard let raw = fief_set_to_results(managed.handle.raw) else {
            managed.trap(CError.last(), writing: false)
        }
        guard Self.elementType._fiefLinkTarget != nil else {
            return Results(values: CHandle(raw), core: managed.core, name: "MutableSet '\(managed.name)'")
        }
        return Results(handle: CHandle(raw), core: managed.core, binding: managed.core.binding(forLinkOf: managed.property))
    }

    /// The elements that match `predicateFormat` (see `Results.filter`; a
    /// set of values names its element `self`: `"self > 5"`), in the set's
    /// order, as live results.  Managed sets only: traps for an unmanaged one.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        results("filter").filter(predicateFormat, arguments: args)
    }

    /// The elements sorted by the property `keyPath` ("self" for a set of
    /// values; a key path through links, "owner.name", for a set of
    /// objects) (fief_set_to_results, fief_results_sort).  Managed sets only.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        results("sort").sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The elements sorted by several keys (fief_results_sort).  Managed sets only.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        results("sort").sorted(by: sortDescriptors)
    }

    /// The first element for each distinct tuple of values of `keyPaths`
    /// ("self" for a set of values), in the set's order, as live results
    /// (fief_set_to_results, fief_results_distinct; see
    /// `Results.distinct(by:)`).  Managed sets only: traps for an unmanaged
    /// set, as in RealmSwift.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        results("distinct").distinct(by: keyPaths)
    }

    /// The smallest value of `property` among the objects, or nil if there
    /// are none (through the live results for a managed set).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        if let results = backingResults { return results.min(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MIN, of: elements, as: T.self) { return mixed }
        return FiefAggregate.extreme(fiefStoredValues(ofProperty: property, of: elements, in: "MutableSet"), smallest: true)
            .flatMap { FiefAggregate.cast($0, to: T.self) }
    }

    /// The largest value of `property` among the objects, or nil if there are none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        if let results = backingResults { return results.max(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MAX, of: elements, as: T.self) { return mixed }
        return FiefAggregate.extreme(fiefStoredValues(ofProperty: property, of: elements, in: "MutableSet"), smallest: false)
            .flatMap { FiefAggregate.cast($0, to: T.self) }
    }

    /// The sum of `property` over the objects (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        if let results = backingResults { return results.sum(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_SUM, of: elements, as: T.self), let sum = mixed { return sum }
        return FiefAggregate.sum(fiefStoredValues(ofProperty: property, of: elements, in: "MutableSet"), as: T.self)
    }

    /// The average of `property` over the objects, or nil if there are none.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        if let results = backingResults { return results.average(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_AVERAGE, of: elements, as: T.self) { return mixed }
        return FiefAggregate.average(fiefStoredValues(ofProperty: property, of: elements, in: "MutableSet"), as: T.self)
    }

    // MARK: Key-value coding

    /// The distinct values of `key` over the elements (RealmSwift answers
    /// with the objects of an `NSSet`): a property of each object, or the
    /// elements themselves for `"self"`; nil as `NSNull`.
    public func value(forKey key: String) -> [AnyObject] {
        var result: [AnyObject] = []
        for element in elements {
            let value = key == "self" ? element : fiefObjectValue(of: element, forKey: key, in: "MutableSet")
            let bridged = fiefBridged(value)
            if !result.contains(where: { fiefSameBridged($0, bridged) }) { result.append(bridged) }
        }
        return result
    }

    /// `value(forKey:)` for a key path of one component.
    public func value(forKeyPath keyPath: String) -> [AnyObject] { value(forKey: keyPath) }

    /// Sets `key` to `value` on every object of the set, or, for `"self"`,
    /// makes `value` the set's only element; in a write transaction for a
    /// managed set, whose objects are set by one fief_results_set_value call
    /// (fief_set_to_results).
    public func setValue(_ value: Any?, forKey key: String) {
        if key == "self" {
            assign([fiefElement(from: value, in: "MutableSet")])
            return
        }
        if let results = backingResults, results.holdsObjects {
            // Managed objects: one fief_results_set_value call (see Results.setValue(_:forKey:)).
            results.setValue(value, forKey: key)
            return
        }
        fiefSetValue(value, forKey: key, onEach: elements, in: "MutableSet")
    }

    // MARK: ThreadConfined

    /// The managed set, nil while unmanaged.
    private var managed: ManagedSet? {
        if case .managed(let managed) = state { return managed }
        return nil
    }

    /// The managed set; traps, as RealmSwift does, for an unmanaged one.
    private func requireManaged() -> ManagedSet {
        guard let managed else {
            preconditionFailure("This method may only be called on RLMSet instances retrieved from an RLMRealm (an unmanaged MutableSet)")
        }
        return managed
    }

    /// The realm of the set's object, or nil if it is unmanaged.
    public var realm: Realm? { managed.map { Realm(core: $0.core) } }

    /// Whether the set's object was deleted, or its realm invalidated
    /// (fief_set_is_valid).  Always false for an unmanaged set.
    public var isInvalidated: Bool { managed.map { !$0.isValid } ?? false }

    /// Whether the set belongs to a frozen realm (an unmanaged set is never frozen).
    public var isFrozen: Bool { managed?.core.isFrozen ?? false }

    /// A frozen copy of this managed set, readable from any thread: the set
    /// of the owner's frozen copy (fief_realm_freeze, fief_object_resolve_in).
    /// A frozen set returns itself.  Traps for unmanaged and invalidated
    /// sets, as RealmSwift does.
    public func freeze() -> MutableSet {
        let managed = requireManaged()
        if managed.core.isFrozen { return self }
        return MutableSet(managed: ManagedSet(row: managed.frozenRow(typeName: "MutableSet"), index: managed.index))
    }

    /// The live set for this frozen one, or nil if its object was deleted
    /// since.  A live set returns itself.
    public func thaw() -> MutableSet? {
        let managed = requireManaged()
        if !managed.core.isFrozen { return self }
        return managed.liveRow().map { MutableSet(managed: ManagedSet(row: $0, index: managed.index)) }
    }
}

/// Whether two KVC answers are the same value (objects by row, Foundation
/// values by `isEqual`).
private func fiefSameBridged(_ a: AnyObject, _ b: AnyObject) -> Bool {
    if a === b { return true }
    if let x = a as? ObjectBase, let y = b as? ObjectBase { return fiefSameElement(x, y) }
    if let x = a as? NSObject, let y = b as? NSObject { return x.isEqual(y) }
    return false
}

// MARK: - Collection conformances

extension MutableSet: RandomAccessCollection {
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// An iterator over the elements there when iteration begins, in the
    /// set's order; a managed set is read in batches (fief_set_get_range),
    /// each batch as it is reached, and inside a write transaction all at
    /// once (a snapshot, as RealmSwift takes).
    public func makeIterator() -> RLMIterator<Element> {
        switch state {
        case .unmanaged(let elements):
            return RLMIterator(elements: elements)
        case .managed(let managed):
            let reader = FiefBatchReader(size: managed.size, wholeAtOnce: managed.row.core.isInWriteTransaction) { [self] start, count in range(managed, start, count) }
            return RLMIterator(nextBatch: reader.next)
        }
    }
}

extension MutableSet: RealmCollection, ThreadConfined {}

extension MutableSet: Equatable {
    /// Whether both are the same managed set (same object and property of
    /// the same file), or unmanaged sets with the same elements.
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool {
        if lhs === rhs { return true }
        switch (lhs.state, rhs.state) {
        case (.managed(let l), .managed(let r)): return l.isSame(as: r)
        case (.unmanaged(let l), .unmanaged(let r)):
            return l.count == r.count && l.allSatisfy { element in r.contains { fiefSameElement($0, element) } }
        default: return false
        }
    }
}

extension MutableSet: CustomStringConvertible, FiefNestedDescription {
    /// `MutableSet<string> <0x...> (\n\t[0] a,\n\t[1] b\n)` in RealmSwift's
    /// layout, at most 100 elements, five levels deep at most (see
    /// Internal/Descriptions.swift).
    public var description: String {
        let typeName = "MutableSet<\(fiefRealmTypeName(Self.elementType))>"
        if isInvalidated { return "\(typeName) <invalidated>" }
        return FiefDescriptionDepth.nested {
            let elements = self.elements
            let entries = elements.prefix(fiefDescribedElementLimit).enumerated().map { "[\($0.offset)] \(fiefElementDescription($0.element))" }
            return fiefCollectionDescription(header: "\(typeName) <\(fiefAddress(self))>", entries: entries, count: elements.count)
        }
    }
}

extension MutableSet: FiefResultsBacked {
    var fiefBackingResults: Any? { backingResults }
}

// MARK: - Aggregates over sets of values

extension MutableSet {
    /// The aggregate `op` of a managed set of values computed by the library
    /// (fief_set_aggregate); nil when the set is unmanaged or holds values the
    /// library does not aggregate (computed in Swift then).
    fileprivate func libraryAggregate<T>(_ op: fief_aggregate_t, as type: T.Type) -> T?? {
        guard case .managed(let managed) = state else { return nil }
        return managed.libraryAggregate(op, valueType: Self.elementType, property: "self", as: T.self)
    }
}

extension MutableSet where Element: MinMaxType {
    /// The smallest element, or nil if the set is empty (or holds only nil):
    /// computed by the library for a managed set (fief_set_aggregate).
    public func min() -> Element? {
        if let result = libraryAggregate(FIEF_AGGREGATE_MIN, as: Element.self) { return result }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MIN, of: elements, as: Element.self) { return mixed }
        return FiefAggregate.extremeElement(elements, smallest: true)
    }

    /// The largest element, or nil if the set is empty (or holds only nil).
    public func max() -> Element? {
        if let result = libraryAggregate(FIEF_AGGREGATE_MAX, as: Element.self) { return result }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MAX, of: elements, as: Element.self) { return mixed }
        return FiefAggregate.extremeElement(elements, smallest: false)
    }
}

extension MutableSet where Element: AddableType {
    /// The sum of the elements (0 for an empty set; nil counts as nothing).
    public func sum() -> Element {
        if let result = libraryAggregate(FIEF_AGGREGATE_SUM, as: Element.self), let sum = result { return sum }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_SUM, of: elements, as: Element.self), let sum = mixed { return sum }
        return FiefAggregate.sum(elements.compactMap(fiefStoredValue), as: Element.self)
    }

    /// The average of the elements, or nil for an empty set (nil is left
    /// out).  The average of integers is a Double (or Decimal128/Float if
    /// asked for).
    public func average<T: AddableType>() -> T? {
        if let result = libraryAggregate(FIEF_AGGREGATE_AVERAGE, as: T.self) { return result }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_AVERAGE, of: elements, as: T.self) { return mixed }
        return FiefAggregate.average(elements.compactMap(fiefStoredValue), as: T.self)
    }
}

extension MutableSet where Element: SortableType {
    /// The elements sorted by value, as live results (fief_set_to_results
    /// and fief_results_sort by "self"); nil first ascending.  Managed sets
    /// only: traps for an unmanaged set, as in RealmSwift.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        results("sort").sorted(byKeyPath: "self", ascending: ascending)
    }
}

extension MutableSet where Element: ObjectBase {
    /// The objects sorted by a key path of the element type (`\.name`).
    public func sorted<V: _HasPersistedType>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: ObjectSchemaInfo.of(Element.self).propertyName(for: keyPath), ascending: ascending)
    }
}

// MARK: - Codable

extension MutableSet: Decodable where Element: Decodable {
    /// Decodes an unmanaged set from an array (repeated elements once).
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            insert(try container.decode(Element.self))
        }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements as an array, in the set's order.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in elements {
            try container.encode(element)
        }
    }
}

// MARK: - As a property type

extension MutableSet: FiefCollectionProtocol {
    static var fiefCollectionType: fief_collection_type_t { fief_collection_type_t(FIEF_COLLECTION_SET) }

    func fiefSnapshot() -> any _Persistable {
        let copy = MutableSet()
        copy.state = .unmanaged(elements)
        return copy
    }

    /// Binds this (unmanaged) instance to set property `index` of `row`: from
    /// now on it shows the realm's set.  Its in-memory elements are dropped;
    /// `Realm.add` writes them (see `fiefSnapshot`).
    func fiefAttach(to row: ManagedRow, index: Int) {
        state = .managed(ManagedSet(row: row, index: index))
    }

    func fiefAssign(from other: Any) {
        guard let other = other as? MutableSet<Element>, other !== self else { return }
        assign(other.elements)
    }

    static func fiefManaged(row: ManagedRow, index: Int) -> Any {
        MutableSet(managed: ManagedSet(row: row, index: index))
    }
}

/// A MutableSet is the value of a set property: `FIEF_COLLECTION_SET` of
/// its element type.
extension MutableSet: _Persistable {
    public static var _fiefType: fief_type_t { elementType._fiefType }
    public static var _fiefIsOptional: Bool { elementType._fiefIsOptional }
    public static var _fiefLinkTarget: ObjectBase.Type? { elementType._fiefLinkTarget }
    public static func _fiefDefault() -> MutableSet { MutableSet() }
    /// A set is never one value: read through `fief_object_get_set`.
    public static func _fiefRead(_ value: fief_value_t) -> MutableSet? { nil }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        preconditionFailure("A MutableSet is not a single value")
    }

    /// An unmanaged set from a MutableSet, an array, a Set or another
    /// sequence of values the element type accepts (objects may be given as
    /// dictionaries or arrays of their values; repeated elements count
    /// once); nil if one does not convert.
    public static func _fiefFromAny(_ any: Any?) -> MutableSet? {
        guard let source = fiefUnwrap(any) else { return nil }
        if let set = source as? MutableSet { return set.fiefSnapshot() as? MutableSet }
        guard let items = fiefSequenceItems(source) else { return nil }
        var elements: [Element] = []
        for item in items {
            guard let element = elementType._fiefFromAny(item).map({ $0 as! Element }) else { return nil }
            elements.append(element)
        }
        let set = MutableSet()
        set.insert(objectsIn: elements)
        return set
    }
}

// MARK: - The managed set

/// Set property `index` of a managed object: the calls of fief.h's "Sets"
/// group on its handle, with RealmSwift's traps.
final class ManagedSet: ManagedCollection {
    override class var kindName: String { "Set" }

    override func makeHandle() -> OpaquePointer? {
        fief_object_get_set(row.handle.raw, row.binding.propertyKeys[index])
    }

    override func handleIsValid(_ raw: OpaquePointer) -> Bool { fief_set_is_valid(raw) }

    override func performAggregate(_ raw: OpaquePointer, _ property: fief_property_key_t, _ op: fief_aggregate_t,
                                   _ out: UnsafeMutablePointer<fief_value_t>) -> Bool {
        fief_set_aggregate(raw, property, op, out)
    }

    func size() -> Int {
        checkGeneration()
        var size = 0
        check(fief_set_count(handle.raw, &size), writing: false)
        return size
    }

    private func outOfBounds(_ position: Int, _ error: CError? = nil) -> Never {
        var size = 0
        _ = fief_set_count(handle.raw, &size)
        fiefTrapIndex(position, count: size, detail: error?.message)
    }

    func get(_ position: Int) -> fief_value_t {
        checkGeneration()
        if position < 0 { outOfBounds(position) }
        var value = fief_value_t()
        if !fief_set_get(handle.raw, position, &value) {
            let error = CError.last()
            if error.code == FIEF_ERR_INDEX_OUT_OF_BOUNDS { outOfBounds(position, error) }
            trap(error, writing: false)
        }
        return value
    }

    func getRange(_ start: Int, _ count: Int, into values: inout [fief_value_t]) {
        checkGeneration()
        let ok = values.withUnsafeMutableBufferPointer { fief_set_get_range(handle.raw, start, count, $0.baseAddress) }
        if !ok {
            let error = CError.last()
            if error.code == FIEF_ERR_INDEX_OUT_OF_BOUNDS { outOfBounds(start + count - 1, error) }
            trap(error, writing: false)
        }
    }

    func contains(_ value: fief_value_t) -> Bool {
        checkGeneration()
        var found = false
        check(fief_set_contains(handle.raw, value, &found), writing: false)
        return found
    }

    func find(_ value: fief_value_t) -> Int? {
        checkGeneration()
        var position = 0
        var found = false
        check(fief_set_index_of(handle.raw, value, &position, &found), writing: false)
        return found ? position : nil
    }

    func insert(_ value: fief_value_t) {
        checkGeneration()
        check(fief_set_insert(handle.raw, value, nil), writing: true)
    }

    func remove(_ value: fief_value_t) {
        checkGeneration()
        check(fief_set_remove(handle.raw, value, nil), writing: true)
    }

    func clear() {
        checkGeneration()
        check(fief_set_clear(handle.raw), writing: true)
    }

    /// Traps as a write would when the set cannot be written now (a remove
    /// of something that cannot be in the set still needs a transaction).
    func requireWritable() {
        checkGeneration()
        guard core.isInWriteTransaction else {
            trap(CError(code: FIEF_ERR_NOT_IN_TRANSACTION, categories: UInt32(FIEF_ERR_CAT_LOGIC),
                        message: "not in a write transaction", path: nil), writing: true)
        }
    }

    // Set algebra with a set of the same realm handle.

    private func test(_ other: ManagedSet, _ call: (OpaquePointer, OpaquePointer, UnsafeMutablePointer<Bool>) -> Bool) -> Bool {
        checkGeneration()
        other.checkGeneration()
        var result = false
        check(call(handle.raw, other.handle.raw, &result), writing: false)
        return result
    }

    private func change(_ other: ManagedSet, _ call: (OpaquePointer, OpaquePointer) -> Bool) {
        checkGeneration()
        other.checkGeneration()
        check(call(handle.raw, other.handle.raw), writing: true)
    }

    func intersects(_ other: ManagedSet) -> Bool { test(other) { fief_set_intersects($0, $1, $2) } }
    func isSubset(of other: ManagedSet) -> Bool { test(other) { fief_set_is_subset_of($0, $1, $2) } }
    func isSuperset(of other: ManagedSet) -> Bool { test(other) { fief_set_is_superset_of($0, $1, $2) } }
    func formUnion(_ other: ManagedSet) { change(other) { fief_set_form_union($0, $1) } }
    func formIntersection(_ other: ManagedSet) { change(other) { fief_set_form_intersection($0, $1) } }
    func subtract(_ other: ManagedSet) { change(other) { fief_set_subtract($0, $1) } }
}
