// RealmSwift's `List<Element>`: an ordered collection property of a model
// class.  Unmanaged, a List is a Swift array; once its object is managed,
// the same instance reads and writes the list in the realm through the C
// functions of fief.h's "Lists" group (fief_object_get_list, fief_list_*).

import CFief
import Foundation

/// An ordered list of values or objects, the to-many property of a model
/// class (RealmSwift's `List`):
///
///     class Person: Object {
///         @Persisted(primaryKey: true) var id = 0
///         @Persisted var dogs: List<Dog>
///         @Persisted var nicknames: List<String>
///     }
///     person.dogs.append(dog)
///     let puppies = person.dogs.filter("age < 2")
///
/// Elements may be any scalar type Fief stores (optional or not),
/// persistable enums, custom persistable types, `Object` subclasses (a
/// list of links) and `EmbeddedObject` subclasses (objects owned by the
/// list).  An unmanaged list (the property of an unmanaged object, or
/// `List()`) holds its elements in memory; `Realm.add` writes them and
/// turns the same instance into a live view of the realm's list, which
/// always shows the realm's current version.  Writes to a managed list
/// need a write transaction, as writes of properties do; an index out of
/// bounds traps, as in RealmSwift.
///
/// A managed list is queried by the library (fief_list_to_results): a list
/// of objects filters and sorts by their properties, a list of values by
/// `self` (`scores.filter("self > 5")`, `scores.sorted()`), both as live
/// `Results`; aggregates (`min()`, `sum(ofProperty:)`, ...) are computed
/// where the list is stored (fief_list_aggregate).  An unmanaged list
/// computes aggregates in Swift; filtering and sorting it trap, as in
/// RealmSwift (they need a realm).
public final class List<Element: RealmCollectionValue> {
    enum State {
        case unmanaged([Element])
        case managed(ManagedList)
    }

    var state: State

    /// Creates an empty, unmanaged list.
    public init() {
        state = .unmanaged([])
    }

    init(managed: ManagedList) {
        state = .managed(managed)
    }

    deinit {
        // An unmanaged AnyRealmValue tree goes level by level, not by recursion.
        guard Element.self == AnyRealmValue.self else { return }
        var values: [AnyRealmValue] = []
        if case .unmanaged(let elements) = state { values = elements as! [AnyRealmValue] }
        state = .unmanaged([])
        AnyRealmValue.fiefRelease(&values)
    }

    // MARK: Element conversions

    /// The element type as a persistable type (every `RealmCollectionValue` is one).
    static var elementType: any _Persistable.Type {
        guard let type = Element.self as? any _Persistable.Type else {
            preconditionFailure("\(Element.self) cannot be stored in a List")
        }
        return type
    }

    /// Whether elements are embedded objects (created in place).
    static var isEmbedded: Bool { elementType._fiefLinkTarget is EmbeddedObject.Type }

    /// Whether elements are objects (links or embedded).
    static var isObjectList: Bool { elementType._fiefLinkTarget != nil }

    private func element(_ value: fief_value_t, _ managed: ManagedList, at position: Int) -> Element {
        if Element.self == AnyRealmValue.self {
            guard let mixed = AnyRealmValue.fiefRead(value, core: managed.core, in: .listElement(managed, position)) else {
                preconditionFailure("List '\(managed.name)' holds a value of type \(value.type) that is no mixed value")
            }
            return mixed as! Element
        }
        guard let element = Self.elementType._fiefReadElement(value, in: Realm(core: managed.core), as: Element.self) else {
            preconditionFailure("List '\(managed.name)' holds a value of type \(value.type) that does not convert to \(Element.self)")
        }
        return element
    }

    private func cValue(_ element: Element, arena: _FiefArena, realm: Realm) -> fief_value_t {
        Self.elementType._fiefElementValue(element, in: arena, realm: realm)
    }

    // MARK: Reading

    /// The number of elements (fief_list_count).
    public var count: Int {
        switch state {
        case .unmanaged(let elements): return elements.count
        case .managed(let managed): return managed.size()
        }
    }

    /// Whether the list has no elements.
    public var isEmpty: Bool { count == 0 }

    /// The element at `position` (fief_list_get); setting it replaces the
    /// element (fief_list_set) in a write transaction.  Traps when out of bounds.
    public subscript(position: Int) -> Element {
        get {
            switch state {
            case .unmanaged(let elements):
                checkIndex(position, count: elements.count)
                return elements[position]
            case .managed(let managed):
                return element(managed.get(position), managed, at: position)
            }
        }
        set {
            replace(index: position, object: newValue)
        }
    }

    /// The first element, or nil if the list is empty.
    public var first: Element? { isEmpty ? nil : self[0] }

    /// The last element, or nil if the list is empty.
    public var last: Element? {
        let count = self.count
        return count == 0 ? nil : self[count - 1]
    }

    /// Every element, in order (one fief_list_get_range call for a managed list).
    var elements: [Element] {
        switch state {
        case .unmanaged(let elements): return elements
        case .managed(let managed): return range(managed, 0, managed.size())
        }
    }

    func range(_ managed: ManagedList, _ start: Int, _ count: Int) -> [Element] {
        guard count > 0 else { return [] }
        var values = [fief_value_t](repeating: fief_value_t(), count: count)
        managed.getRange(start, count, into: &values)
        return values.enumerated().map { element($1, managed, at: start + $0) }
    }

    /// The position of the first element equal to `object`, or nil
    /// (fief_list_index_of).  An unmanaged object is never in a managed list.
    public func index(of object: Element) -> Int? {
        switch state {
        case .unmanaged(let elements):
            if object is AnyRealmValue { return elements.firstIndex { fiefSameElement($0, object) } }
            return elements.firstIndex(of: object)
        case .managed(let managed):
            if let base = object as? ObjectBase {
                guard let row = base._fiefManaged, row.core.path == managed.core.path else { return nil }
            }
            let arena = _FiefArena()
            if let mixed = object as? AnyRealmValue {
                guard let value = mixed.fiefLookupValue(in: arena, core: managed.core) else { return nil }
                return withExtendedLifetime(arena) { managed.find(value) }
            }
            let value = Self.elementType._fiefElementLookupValue(object, in: arena)
            return withExtendedLifetime(arena) { managed.find(value) }
        }
    }

    /// Whether the list holds an element equal to `object`.
    public func contains(_ object: Element) -> Bool { index(of: object) != nil }

    /// The position of the first element matching a predicate in Realm's
    /// query language (`self` for a list of values), or nil.  An unmanaged
    /// list is searched in memory, as in RealmSwift (its elements copied into
    /// a scratch in-memory realm: Internal/ScratchQuery.swift).
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        if case .unmanaged(let elements) = state {
            // In memory, as RealmSwift evaluates an unmanaged list.
            return FiefScratchQuery.firstIndex(of: elements, matching: predicateFormat, args)
        }
        guard let object = results("search").filter(predicateFormat, arguments: args).first else { return nil }
        return index(of: object)
    }

    // MARK: Writing

    private func checkIndex(_ index: Int, count: Int) {
        if index < 0 || index >= count { fiefTrapIndex(index, count: count) }
    }

    /// The managed list, after checking (as the write will) that writes are allowed.
    private func mutate(_ unmanaged: (inout [Element]) -> Void, _ managedBody: (ManagedList) -> Void) {
        switch state {
        case .unmanaged(var elements):
            state = .unmanaged([])   // no second reference while mutating
            unmanaged(&elements)
            state = .unmanaged(elements)
        case .managed(let managed):
            managedBody(managed)
        }
    }

    /// Appends `object` (fief_list_append; for embedded objects
    /// fief_list_insert_embedded).  An unmanaged object appended to a list
    /// of links is added to the realm.
    public func append(_ object: Element) {
        append(objectsIn: CollectionOfOne(object))
    }

    /// Appends every element of `objects`, in one fief_list_append call (for
    /// a list of values or links).
    public func append<S: Sequence>(objectsIn objects: S) where S.Iterator.Element == Element {
        mutate({ $0.append(contentsOf: objects) }) { managed in
            if Self.isEmbedded {
                var position = managed.size()
                for object in objects {
                    managed.insertEmbedded(at: position, fiefEmbeddedObject(object))
                    position += 1
                }
                return
            }
            if Element.self == AnyRealmValue.self {
                managed.appendMixed(objects.map { $0 as! AnyRealmValue })
                return
            }
            let arena = _FiefArena()
            let realm = Realm(core: managed.core)
            let values = objects.map { cValue($0, arena: arena, realm: realm) }
            guard !values.isEmpty else { return }
            withExtendedLifetime(arena) { managed.append(values) }
        }
    }

    /// Inserts `object` before position `index` (`index == count` appends;
    /// fief_list_insert).  Traps when `index` is out of bounds.
    public func insert(_ object: Element, at index: Int) {
        mutate({ elements in
            if index < 0 || index > elements.count { fiefTrapIndex(index, count: elements.count + 1) }
            elements.insert(object, at: index)
        }) { managed in
            if Self.isEmbedded {
                managed.insertEmbedded(at: index, fiefEmbeddedObject(object))
                return
            }
            if let mixed = object as? AnyRealmValue {
                managed.writeMixed(mixed, at: index, inserting: true)
                return
            }
            let arena = _FiefArena()
            let value = cValue(object, arena: arena, realm: Realm(core: managed.core))
            withExtendedLifetime(arena) { managed.insert(value, at: index) }
        }
    }

    /// Inserts the elements of `newElements` before position `index`.
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        var position = index
        for element in newElements {
            insert(element, at: position)
            position += 1
        }
    }

    /// Replaces the element at `index` with `object` (fief_list_set; a
    /// replaced embedded object is deleted).  Traps when out of bounds.
    public func replace(index: Int, object: Element) {
        mutate({ elements in
            self.checkIndex(index, count: elements.count)
            elements[index] = object
        }) { managed in
            if Self.isEmbedded {
                let size = managed.size()
                checkIndex(index, count: size)
                managed.insertEmbedded(at: index, fiefEmbeddedObject(object))
                managed.remove(at: index + 1)
                return
            }
            if let mixed = object as? AnyRealmValue {
                managed.writeMixed(mixed, at: index, inserting: false)
                return
            }
            let arena = _FiefArena()
            let value = cValue(object, arena: arena, realm: Realm(core: managed.core))
            withExtendedLifetime(arena) { managed.set(value, at: index) }
        }
    }

    /// Removes the element at `index` (fief_list_remove; a linked object
    /// stays in the realm, an embedded one is deleted).  Traps when out of bounds.
    public func remove(at index: Int) {
        mutate({ elements in
            self.checkIndex(index, count: elements.count)
            elements.remove(at: index)
        }) { managed in
            managed.remove(at: index)
        }
    }

    /// Removes every element (fief_list_clear); linked objects stay in the realm.
    public func removeAll() {
        mutate({ $0.removeAll() }) { $0.clear() }
    }

    /// Removes the first element.  Traps when the list is empty.
    public func removeFirst() {
        removeFirst(1)
    }

    /// Removes the first `number` elements.  Traps when there are fewer.
    public func removeFirst(_ number: Int) {
        let count = self.count
        precondition(number >= 0 && number <= count, "Cannot remove \(number) elements from a list of \(count): index \(Swift.max(number, 0) - 1) is out of bounds (must be less than \(count)).")
        for _ in 0..<number { remove(at: 0) }
    }

    /// Removes the last element.  Traps when the list is empty.
    public func removeLast() {
        removeLast(1)
    }

    /// Removes the last `number` elements.  Traps when there are fewer.
    public func removeLast(_ number: Int) {
        let count = self.count
        precondition(number >= 0 && number <= count, "Cannot remove \(number) elements from a list of \(count): index \(count - number) is out of bounds (must be less than \(count)).")
        for position in stride(from: count - 1, through: count - number, by: -1) { remove(at: position) }
    }

    /// Removes the elements in `bounds`.
    public func removeSubrange(_ bounds: Range<Int>) {
        replaceSubrange(bounds, with: EmptyCollection())
    }

    /// Removes the elements at `offsets`.
    public func remove(atOffsets offsets: IndexSet) {
        for index in offsets.reversed() { remove(at: index) }
    }

    /// Moves the element at `from` to `to`; the elements between shift by
    /// one (fief_list_move).  Traps when either is out of bounds.
    public func move(from: Int, to: Int) {
        mutate({ elements in
            self.checkIndex(from, count: elements.count)
            self.checkIndex(to, count: elements.count)
            let element = elements.remove(at: from)
            elements.insert(element, at: to)
        }) { managed in
            managed.move(from: from, to: to)
        }
    }

    /// Moves the elements at `offsets` before position `destination` (as
    /// SwiftUI's `onMove` gives them).
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        // Replay as moves so that embedded objects and links stay the same objects.
        var current = Array(0..<count)
        let wanted = offsetsOrder(count: count, offsets: offsets, destination: destination)
        for (position, original) in wanted.enumerated() {
            guard let from = current.firstIndex(of: original), from != position else { continue }
            move(from: from, to: position)
            current.insert(current.remove(at: from), at: position)
        }
    }

    private func offsetsOrder(count: Int, offsets: IndexSet, destination: Int) -> [Int] {
        var order = Array(0..<count)
        let moving = offsets.map { order[$0] }
        var target = destination
        for index in offsets.reversed() {
            order.remove(at: index)
            if index < target { target -= 1 }
        }
        order.insert(contentsOf: moving, at: target)
        return order
    }

    /// Swaps the elements at `index1` and `index2` (fief_list_swap).
    public func swapAt(_ index1: Int, _ index2: Int) {
        mutate({ elements in
            self.checkIndex(index1, count: elements.count)
            self.checkIndex(index2, count: elements.count)
            elements.swapAt(index1, index2)
        }) { managed in
            managed.swap(index1, index2)
        }
    }

    /// The elements in `bounds`, as a slice of the list; setting it
    /// replaces them with the slice's elements, which may be more or fewer
    /// (RealmSwift's List is range-replaceable: `list[1..<4] = other[0..<2]`).
    public subscript(bounds: Range<Int>) -> Slice<List> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: Array(newValue)) }
    }

    /// Replaces the elements in `subrange` with `newElements`.
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        let count = self.count
        if subrange.lowerBound < 0 || subrange.upperBound > count {
            preconditionFailure("Range \(subrange) is out of bounds (must be within 0..<\(count + 1)).")
        }
        if case .unmanaged(var elements) = state {
            state = .unmanaged([])
            elements.replaceSubrange(subrange, with: newElements)
            state = .unmanaged(elements)
            return
        }
        for position in subrange.reversed() { remove(at: position) }
        insert(contentsOf: newElements, at: subrange.lowerBound)
    }

    /// Replaces every element with those of `newElements` (assigning to a
    /// list property).  The new elements are read first, so a list may be
    /// assigned its own contents.
    func assign(_ newElements: [Element]) {
        switch state {
        case .unmanaged:
            state = .unmanaged(newElements)
        case .managed(let managed):
            var copies = newElements
            if let mixed = FiefMixedAggregate.mixed(newElements) {
                // Nested collections of this list are deleted by the clear: copy them first.
                copies = mixed.map { $0.fiefDetached() as! Element }
            }
            if Self.isEmbedded {
                // Embedded objects of this list are deleted by the clear: copy them first.
                copies = newElements.map { element in
                    guard let object = element as? EmbeddedObject, object._fiefManaged != nil else { return element }
                    let copy = type(of: object).init()
                    copy._fiefSetValues(from: object)
                    return copy as! Element
                }
            }
            managed.clear()
            append(objectsIn: copies)
        }
    }

    // MARK: Queries and aggregates

    /// The live results behind a managed list (fief_list_to_results):
    /// objects, or values; traps, naming `what`, for an unmanaged list.
    func results(_ what: String) -> Results<Element> {
        guard let results = backingResults else {
            preconditionFailure("Cannot \(what) an unmanaged List: only lists managed by a realm support it (this method may only be called on List instances retrieved from a Realm)")
        }
        return results
    }

    /// The list's elements as live results (fief_list_to_results): objects
    /// for a list of objects, values otherwise; nil for an unmanaged list.
    var backingResults: Results<Element>? {
        guard case .managed(let managed) = state else { return nil }
        guard let raw = fief_list_to_results(managed.handle.raw) else {
            managed.trap(CError.last(), writing: false)
        }
        guard Self.elementType._fiefLinkTarget != nil else {
            return Results(values: CHandle(raw), core: managed.core, name: "List '\(managed.name)'")
        }
        let target = managed.core.binding(forLinkOf: managed.row.binding.info.properties[managed.index])
        return Results(handle: CHandle(raw), core: managed.core, binding: target)
    }

    /// The elements that match `predicateFormat` (see `Results.filter`; a
    /// list of values names its element `self`), in list order, as live
    /// results.  Managed lists only: traps for an unmanaged list.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        results("filter").filter(predicateFormat, arguments: args)
    }

    /// The elements sorted by the property `keyPath` ("self" for a list of
    /// values; a key path through links, "owner.name", for a list of
    /// objects) (fief_list_to_results, fief_results_sort).  Managed lists only.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        results("sort").sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The elements sorted by several keys (fief_results_sort).  Managed lists only.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        results("sort").sorted(by: sortDescriptors)
    }

    /// The first element for each distinct tuple of values of `keyPaths`
    /// ("self" for a list of values), in list order, as live results
    /// (fief_list_to_results, fief_results_distinct; see
    /// `Results.distinct(by:)`).  Managed lists only: traps for an
    /// unmanaged list, as in RealmSwift.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        results("distinct").distinct(by: keyPaths)
    }

    /// The stored values of property `property` of every element (KVC), or
    /// of the elements themselves for `"self"`, nils left out: what
    /// aggregates work on.
    private func storedValues(ofProperty property: String) -> [Any] {
        fiefStoredValues(ofProperty: property, of: elements, in: "List")
    }

    /// The smallest value of `property` among the objects, or nil if there
    /// are none (through the live results for a managed list).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        if let results = backingResults { return results.min(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MIN, of: elements, as: T.self) { return mixed }
        return FiefAggregate.extreme(storedValues(ofProperty: property), smallest: true).flatMap { FiefAggregate.cast($0, to: T.self) }
    }

    /// The largest value of `property` among the objects, or nil if there are none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        if let results = backingResults { return results.max(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MAX, of: elements, as: T.self) { return mixed }
        return FiefAggregate.extreme(storedValues(ofProperty: property), smallest: false).flatMap { FiefAggregate.cast($0, to: T.self) }
    }

    /// The sum of `property` over the objects (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        if let results = backingResults { return results.sum(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_SUM, of: elements, as: T.self), let sum = mixed { return sum }
        return FiefAggregate.sum(storedValues(ofProperty: property), as: T.self)
    }

    /// The average of `property` over the objects, or nil if there are none.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        if let results = backingResults { return results.average(ofProperty: property) }
        if property == "self", let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_AVERAGE, of: elements, as: T.self) { return mixed }
        return FiefAggregate.average(storedValues(ofProperty: property), as: T.self)
    }

    // MARK: Key-value coding

    /// The value of `key` for every element, in order (`[Any?]`; nil for
    /// nil): a property of each object, or the elements themselves for `"self"`.
    public func value(forKey key: String) -> Any? {
        elements.map { element -> Any? in
            if key == "self" { return (element as? AnyRealmValue).map { $0._fiefStored } ?? fiefUnwrap(element) }
            return fiefObjectValue(of: element, forKey: key, in: "List")
        }
    }

    /// `value(forKey:)` for a key path of one component.
    public func value(forKeyPath keyPath: String) -> Any? { value(forKey: keyPath) }

    /// Sets `key` to `value` on every object of the list (or, for `"self"`,
    /// replaces every element with `value`); in a write transaction for a
    /// managed list, whose objects are set by one fief_results_set_value call
    /// (fief_list_to_results; an object listed twice is set once).
    public func setValue(_ value: Any?, forKey key: String) {
        if key == "self" {
            let element: Element = fiefElement(from: value, in: "List")
            for index in 0..<count { replace(index: index, object: element) }
            return
        }
        if let results = backingResults, results.holdsObjects {
            // Managed objects: one fief_results_set_value call (see Results.setValue(_:forKey:)).
            results.setValue(value, forKey: key)
            return
        }
        fiefSetValue(value, forKey: key, onEach: elements, in: "List")
    }

    // MARK: ThreadConfined

    /// The realm of the list's object, or nil if it is unmanaged.
    public var realm: Realm? {
        guard case .managed(let managed) = state else { return nil }
        return Realm(core: managed.core)
    }

    /// Whether the list's object was deleted, or its realm invalidated
    /// (fief_list_is_valid).  Always false for unmanaged lists.
    public var isInvalidated: Bool {
        guard case .managed(let managed) = state else { return false }
        return !managed.isValid
    }

    /// Whether the list belongs to a frozen realm.
    public var isFrozen: Bool {
        guard case .managed(let managed) = state else { return false }
        return managed.core.isFrozen
    }

    /// A frozen copy of this managed list, readable from any thread: the
    /// list of the owner's frozen copy (fief_realm_freeze,
    /// fief_object_resolve_in).  A frozen list returns itself.  Traps for
    /// unmanaged and invalidated lists, as RealmSwift does.
    public func freeze() -> List {
        guard case .managed(let managed) = state else {
            preconditionFailure("This method may only be called on RLMArray instances retrieved from an RLMRealm (an unmanaged List)")
        }
        if managed.core.isFrozen { return self }
        guard managed.isValid, let list = managed.resolved(in: managed.core.frozenCore()) else {
            preconditionFailure("Cannot freeze a List whose object has been deleted or invalidated.")
        }
        return List(managed: list)
    }

    /// The live list for this frozen one, or nil if its object was deleted
    /// since.  A live list returns itself.
    public func thaw() -> List? {
        guard case .managed(let managed) = state else {
            preconditionFailure("This method may only be called on RLMArray instances retrieved from an RLMRealm (an unmanaged List)")
        }
        if !managed.core.isFrozen { return self }
        return managed.resolved(in: managed.core.liveCore()).map { List(managed: $0) }
    }

    // MARK: Becoming managed

    /// Binds this (unmanaged) instance to list property `index` of `row`:
    /// from now on it shows the realm's list.  Its in-memory elements are
    /// dropped; `Realm.add` writes them (see `FiefCollectionProtocol.fiefSnapshot`).
    func attach(to row: ManagedRow, index: Int) {
        state = .managed(ManagedList(row: row, index: index))
    }
}

// MARK: - Collection conformances

extension List: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// An iterator over the elements there when iteration begins, as
    /// RealmSwift's: elements appended by the loop are not reached.  A
    /// managed list is read in batches (fief_list_get_range), each batch as
    /// it is reached; inside a write transaction all at once (a snapshot:
    /// removing or deleting elements in the loop does not skip any).
    public func makeIterator() -> RLMIterator<Element> {
        switch state {
        case .unmanaged(let elements): return RLMIterator(elements: elements)
        case .managed(let managed):
            let reader = FiefBatchReader(size: managed.size, wholeAtOnce: managed.row.core.isInWriteTransaction) { [self] in range(managed, $0, $1) }
            return RLMIterator(nextBatch: reader.next)
        }
    }
}

extension List: RealmCollection, ThreadConfined {}

extension List: Equatable {
    /// Whether both are the same managed list (same object and property of
    /// the same file), or unmanaged lists with equal elements.
    public static func == (lhs: List, rhs: List) -> Bool {
        if lhs === rhs { return true }
        switch (lhs.state, rhs.state) {
        case (.managed(let l), .managed(let r)): return l.isSame(as: r)
        case (.unmanaged(let l), .unmanaged(let r)):
            if let lhs = lhs as? List<AnyRealmValue>, let rhs = rhs as? List<AnyRealmValue> {
                return AnyRealmValue.fiefTreesEqual(.list(lhs), .list(rhs))  // any depth, without recursion
            }
            return l == r
        default: return false
        }
    }
}

extension List: CustomStringConvertible, FiefNestedDescription {
    /// `List<Dog> <0x...> (\n\t[0] Dog {...},\n\t[1] ...\n)` in RealmSwift's
    /// layout (`List<int>` for a list of values), at most 100 elements, five
    /// levels deep at most (see Internal/Descriptions.swift).
    public var description: String {
        let typeName = "List<\(fiefRealmTypeName(Self.elementType))>"
        if isInvalidated { return "\(typeName) <invalidated>" }
        return FiefDescriptionDepth.nested {
            let elements = self.elements
            let entries = elements.prefix(fiefDescribedElementLimit).enumerated().map { "[\($0.offset)] \(fiefElementDescription($0.element))" }
            return fiefCollectionDescription(header: "\(typeName) <\(fiefAddress(self))>", entries: entries, count: elements.count)
        }
    }
}

extension List: FiefResultsBacked {
    var fiefBackingResults: Any? { backingResults }
}

// MARK: - Aggregates over lists of values

extension List {
    /// Whether the library aggregates this list's values (numbers, mixed
    /// values and, for min and max, dates): a managed list of such values;
    /// other lists (an unmanaged one, strings behind an enum) are
    /// aggregated in Swift.
    fileprivate func managedForAggregates(numbersOnly: Bool) -> ManagedList? {
        guard case .managed(let managed) = state, Self.elementType._fiefLinkTarget == nil else { return nil }
        switch Self.elementType._fiefType {
        case FIEF_TYPE_INT, FIEF_TYPE_FLOAT, FIEF_TYPE_DOUBLE, FIEF_TYPE_DECIMAL128, FIEF_TYPE_MIXED: return managed
        case FIEF_TYPE_TIMESTAMP: return numbersOnly ? nil : managed
        default: return nil
        }
    }

    /// The aggregate `op` of a managed list of values (fief_list_aggregate);
    /// nil for a null result.
    fileprivate func aggregate(_ managed: ManagedList, _ op: fief_aggregate_t) -> fief_value_t? {
        var value = fief_value_t()
        if !fief_list_aggregate(managed.handle.raw, 0, op, &value) { managed.trap(CError.last(), writing: false) }
        return value.type == FIEF_TYPE_NULL ? nil : value
    }
}

extension List where Element: MinMaxType {
    /// The smallest element, or nil if the list is empty (or holds only
    /// nils): computed by the library for a managed list (fief_list_aggregate).
    public func min() -> Element? {
        if let managed = managedForAggregates(numbersOnly: false) {
            return aggregate(managed, FIEF_AGGREGATE_MIN).map { FiefAggregate.convert($0, to: Element.self, core: managed.core) }
        }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MIN, of: elements, as: Element.self) { return mixed }
        return FiefAggregate.extremeElement(elements, smallest: true)
    }

    /// The largest element, or nil if the list is empty (or holds only nils).
    public func max() -> Element? {
        if let managed = managedForAggregates(numbersOnly: false) {
            return aggregate(managed, FIEF_AGGREGATE_MAX).map { FiefAggregate.convert($0, to: Element.self, core: managed.core) }
        }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_MAX, of: elements, as: Element.self) { return mixed }
        return FiefAggregate.extremeElement(elements, smallest: false)
    }
}

extension List where Element: AddableType {
    /// The sum of the elements (0 for an empty list; nils count as nothing):
    /// computed by the library for a managed list.
    public func sum() -> Element {
        if let managed = managedForAggregates(numbersOnly: true) {
            let value = aggregate(managed, FIEF_AGGREGATE_SUM) ?? .int(0)
            return FiefAggregate.convert(value, to: Element.self, core: managed.core)
        }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_SUM, of: elements, as: Element.self), let sum = mixed { return sum }
        let values = elements.compactMap { ($0 as? any _Persistable)?._fiefStored }
        let total: Any
        switch Self.elementType._fiefType {
        case FIEF_TYPE_INT: total = values.reduce(Int64(0)) { $0 &+ FiefAggregate.int64($1) }
        case FIEF_TYPE_FLOAT: total = values.reduce(Float(0)) { $0 + (($1 as? Float) ?? 0) }
        case FIEF_TYPE_DECIMAL128:
            var sum = Decimal128.zero
            for case let value as Decimal128 in values { sum += value }
            total = sum
        default: total = values.reduce(0.0) { $0 + FiefAggregate.double($1) }
        }
        guard let result = Self.elementType._fiefFromAny(total).map({ $0 as! Element }) else {
            preconditionFailure("The sum \(total) does not fit \(Element.self)")
        }
        return result
    }

    /// The average of the elements, or nil for an empty list (nils are left
    /// out).  The average of integers is a Double (or Decimal128/Float if
    /// asked for).
    public func average<T: AddableType>() -> T? {
        if let managed = managedForAggregates(numbersOnly: true) {
            return aggregate(managed, FIEF_AGGREGATE_AVERAGE).map { FiefAggregate.convert($0, to: T.self, core: managed.core) }
        }
        if let mixed = FiefMixedAggregate.result(FIEF_AGGREGATE_AVERAGE, of: elements, as: T.self) { return mixed }
        return FiefAggregate.average(elements.compactMap { ($0 as? any _Persistable)?._fiefStored }, as: T.self)
    }
}

extension List where Element: SortableType {
    /// The elements sorted by value, as live results (fief_list_to_results
    /// and fief_results_sort by "self"); nil first ascending.  Managed lists
    /// only: traps for an unmanaged list, as in RealmSwift.
    public func sorted(ascending: Bool = true) -> Results<Element> {
        results("sort").sorted(byKeyPath: "self", ascending: ascending)
    }
}

extension List where Element: ObjectBase {
    /// The objects sorted by a key path of the element type (`\.name`).
    public func sorted<V: _HasPersistedType>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: ObjectSchemaInfo.of(Element.self).propertyName(for: keyPath), ascending: ascending)
    }
}

// MARK: - Codable

extension List: Decodable where Element: Decodable {
    /// Decodes an unmanaged list from an array.
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        var elements: [Element] = []
        while !container.isAtEnd {
            elements.append(try container.decode(Element.self))
        }
        state = .unmanaged(elements)
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements as an array, in order.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in elements {
            try container.encode(element)
        }
    }
}

// MARK: - As a property type

extension List: FiefCollectionProtocol {
    func fiefSnapshot() -> any _Persistable {
        let copy = List()
        copy.state = .unmanaged(elements)
        return copy
    }

    func fiefAttach(to row: ManagedRow, index: Int) { attach(to: row, index: index) }

    func fiefAssign(from other: Any) {
        guard let other = other as? List<Element> else { return }
        if other === self { return }
        assign(other.elements)
    }

    static func fiefManaged(row: ManagedRow, index: Int) -> Any {
        List(managed: ManagedList(row: row, index: index))
    }
}

/// A List is the value of a list property: `FIEF_COLLECTION_LIST` of its
/// element type.
extension List: _Persistable {
    public static var _fiefType: fief_type_t { elementType._fiefType }
    public static var _fiefIsOptional: Bool { elementType._fiefIsOptional }
    public static var _fiefLinkTarget: ObjectBase.Type? { elementType._fiefLinkTarget }
    public static func _fiefDefault() -> List { List() }
    /// A list is never one value: read through `fief_object_get_list`.
    public static func _fiefRead(_ value: fief_value_t) -> List? { nil }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t {
        preconditionFailure("A List is not a single value")
    }

    /// An unmanaged list from a List, an array or another sequence of
    /// values each element type accepts (objects may be given as
    /// dictionaries or arrays of their values); nil if one does not convert.
    public static func _fiefFromAny(_ any: Any?) -> List? {
        guard let source = fiefUnwrap(any) else { return nil }
        if let list = source as? List { return list.fiefSnapshot() as? List }
        if source is String || source is Substring || source is Data || source is [String: Any?] || source is NSDictionary { return nil }
        guard let sequence = source as? any Sequence else { return nil }
        var elements: [Element] = []
        for item in fiefAnyElements(sequence) {
            guard let element = elementType._fiefFromAny(item).map({ $0 as! Element }) else { return nil }
            elements.append(element)
        }
        let list = List()
        list.state = .unmanaged(elements)
        return list
    }
}

private func fiefAnyElements<S: Sequence>(_ sequence: S) -> [Any?] {
    sequence.map { $0 as Any? }
}

extension _Persistable {
    /// `value` read as `E` (which is `Self`).
    static func _fiefReadElement<E>(_ value: fief_value_t, in realm: Realm, as: E.Type) -> E? {
        _fiefRead(value, in: realm).map { $0 as! E }
    }

    /// `element` (a `Self`) as a value to write into a list of `realm`.
    static func _fiefElementValue<E>(_ element: E, in arena: _FiefArena, realm: Realm) -> fief_value_t {
        (element as! Self)._fiefValue(in: arena, realm: realm)
    }

    /// `element` (a `Self`) as a value to look for, without adding anything.
    static func _fiefElementLookupValue<E>(_ element: E, in arena: _FiefArena) -> fief_value_t {
        (element as! Self)._fiefValue(in: arena)
    }
}

// MARK: - The managed list

/// List property `index` of a managed object: the C list handle (made on
/// first use), and the calls on it with RealmSwift's traps.
final class ManagedList {
    let row: ManagedRow
    let index: Int
    /// For a list nested in mixed property `index` (see AnyRealmValue): the
    /// steps from the property down to it; nil for the property's own list.
    let nestedPath: FiefNestedPath?
    private var cachedHandle: CHandle?

    init(row: ManagedRow, index: Int) {
        self.row = row
        self.index = index
        nestedPath = nil
    }

    /// A list nested in mixed property `index` of `row`, reached by `path`,
    /// on its handle (fief_object_get_list, fief_list_get_list, fief_map_get_list).
    init(row: ManagedRow, index: Int, nested handle: CHandle, path: FiefNestedPath) {
        self.row = row
        self.index = index
        nestedPath = path
        cachedHandle = handle
    }

    var core: RealmCore { row.core }
    var name: String {
        "\(row.binding.info.className).\(row.binding.info.properties[index].name)" + (nestedPath?.description ?? "")
    }

    /// Whether both are the same list: the same property (and nested path)
    /// of the same row.
    func isSame(as other: ManagedList) -> Bool {
        index == other.index && nestedPath == other.nestedPath && row.sameRow(as: other.row)
    }

    /// The C list (fief_object_get_list).
    var handle: CHandle {
        if let cachedHandle { return cachedHandle }
        checkGeneration()
        guard let raw = fief_object_get_list(row.handle.raw, row.binding.propertyKeys[index]) else {
            trap(CError.last(), writing: false)
        }
        let handle = CHandle(raw)
        cachedHandle = handle
        return handle
    }

    var isValid: Bool { row.isValid && fief_list_is_valid(handle.raw) }

    private func checkGeneration() {
        if row.generation != row.core.generation { preconditionFailure("Access to invalidated List object") }
    }

    func trap(_ error: CError, writing: Bool, count: Int? = nil, index: Int? = nil) -> Never {
        switch error.code {
        case FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_CLOSED:
            preconditionFailure("Access to invalidated List object [\(error.message)]")
        case FIEF_ERR_INDEX_OUT_OF_BOUNDS:
            let size = count ?? sizeIfPossible()
            fiefTrapIndex(index, count: size, detail: error.message)
        default:
            row.trapForAccess(error, writing: writing)
        }
    }

    private func sizeIfPossible() -> Int {
        var size = 0
        _ = fief_list_count(handle.raw, &size)
        return size
    }

    func size() -> Int {
        checkGeneration()
        var size = 0
        if !fief_list_count(handle.raw, &size) { trap(CError.last(), writing: false) }
        return size
    }

    func get(_ position: Int) -> fief_value_t {
        checkGeneration()
        var value = fief_value_t()
        if position < 0 { trap(CError.indexOutOfBounds, writing: false, index: position) }
        if !fief_list_get(handle.raw, position, &value) { trap(CError.last(), writing: false, index: position) }
        return value
    }

    func getRange(_ start: Int, _ count: Int, into values: inout [fief_value_t]) {
        checkGeneration()
        let ok = values.withUnsafeMutableBufferPointer { fief_list_get_range(handle.raw, start, count, $0.baseAddress) }
        if !ok { trap(CError.last(), writing: false, index: start + count - 1) }
    }

    func find(_ value: fief_value_t) -> Int? {
        checkGeneration()
        var position = 0
        var found = false
        if !fief_list_index_of(handle.raw, value, &position, &found) { trap(CError.last(), writing: false) }
        return found ? position : nil
    }

    func append(_ values: [fief_value_t]) {
        checkGeneration()
        let ok = values.withUnsafeBufferPointer { fief_list_append(handle.raw, $0.baseAddress, $0.count) }
        if !ok { trap(CError.last(), writing: true) }
    }

    func insert(_ value: fief_value_t, at position: Int) {
        checkGeneration()
        if position < 0 { trap(CError.indexOutOfBounds, writing: true, count: size() + 1, index: position) }
        if !fief_list_insert(handle.raw, position, value) {
            let error = CError.last()
            trap(error, writing: true, count: error.code == FIEF_ERR_INDEX_OUT_OF_BOUNDS ? size() + 1 : nil, index: position)
        }
    }

    func set(_ value: fief_value_t, at position: Int) {
        checkGeneration()
        if position < 0 { trap(CError.indexOutOfBounds, writing: true, index: position) }
        if !fief_list_set(handle.raw, position, value) { trap(CError.last(), writing: true, index: position) }
    }

    /// Appends mixed values (fief_list_append, all checked before any is
    /// added): unmanaged objects are added first; nested collections are
    /// stored empty, then filled (their contents read before the append).
    func appendMixed(_ elements: [AnyRealmValue]) {
        guard !elements.isEmpty else { return }
        let detached = elements.map { $0.fiefDetached() }
        let start = appendDetachedMixed(detached)
        for (offset, element) in detached.enumerated() where element.fiefIsNested {
            element.fiefFillNested(in: .listElement(self, start + offset), core: core)
        }
    }

    /// Appends detached mixed values, nested collections stored empty (the
    /// caller fills them); returns the position of the first.
    func appendDetachedMixed(_ detached: [AnyRealmValue]) -> Int {
        let start = size()
        let arena = _FiefArena()
        let realm = Realm(core: core)
        let values = detached.map { $0._fiefValue(in: arena, realm: realm) }
        withExtendedLifetime(arena) { append(values) }
        return start
    }

    /// Inserts a mixed value before `position` (fief_list_insert), or
    /// replaces the one there (fief_list_set), as `appendMixed` writes.
    func writeMixed(_ element: AnyRealmValue, at position: Int, inserting: Bool) {
        let detached = element.fiefDetached()
        let arena = _FiefArena()
        let value = detached._fiefValue(in: arena, realm: Realm(core: core))
        withExtendedLifetime(arena) {
            if inserting { insert(value, at: position) } else { set(value, at: position) }
        }
        if detached.fiefIsNested { detached.fiefFillNested(in: .listElement(self, position), core: core) }
    }

    func remove(at position: Int) {
        checkGeneration()
        if position < 0 { trap(CError.indexOutOfBounds, writing: true, index: position) }
        if !fief_list_remove(handle.raw, position) { trap(CError.last(), writing: true, index: position) }
    }

    func move(from: Int, to: Int) {
        checkGeneration()
        if from < 0 || to < 0 { trap(CError.indexOutOfBounds, writing: true, index: Swift.min(from, to)) }
        if !fief_list_move(handle.raw, from, to) {
            let size = sizeIfPossible()
            trap(CError.last(), writing: true, count: size, index: from >= size ? from : to)
        }
    }

    func swap(_ i: Int, _ j: Int) {
        checkGeneration()
        if i < 0 || j < 0 { trap(CError.indexOutOfBounds, writing: true, index: Swift.min(i, j)) }
        if !fief_list_swap(handle.raw, i, j) {
            let size = sizeIfPossible()
            trap(CError.last(), writing: true, count: size, index: i >= size ? i : j)
        }
    }

    func clear() {
        checkGeneration()
        if !fief_list_clear(handle.raw) { trap(CError.last(), writing: true) }
    }

    /// Creates an embedded object before `position` (fief_list_insert_embedded)
    /// and gives it `child`'s values; the unmanaged `child` becomes that
    /// object.  Traps, as RealmSwift does, for a managed child.
    func insertEmbedded(at position: Int, _ child: EmbeddedObject?) {
        checkGeneration()
        if let managed = child?._fiefManaged {
            // RealmSwift's rule: an embedded object has one parent, so only
            // an unmanaged one (or values) can become an element.
            fiefRefuseManagedEmbedded(managed, into: "List", of: core)
        }
        guard let target = row.binding.info.properties[index].linkTarget else { return }
        if position < 0 { trap(CError.indexOutOfBounds, writing: true, count: size() + 1, index: position) }
        guard let raw = fief_list_insert_embedded(handle.raw, position) else {
            let error = CError.last()
            trap(error, writing: true, count: error.code == FIEF_ERR_INDEX_OUT_OF_BOUNDS ? size() + 1 : nil, index: position)
        }
        let childRow = ManagedRow(handle: CHandle(raw), core: core, binding: core.binding(for: target))
        guard let child else { return }
        childRow.adopt(child)
    }

    /// This list in another realm of the same file: the list of the owner
    /// there, or nil if the owner does not exist there.
    func resolved(in target: RealmCore) -> ManagedList? {
        var out: OpaquePointer?
        guard fief_object_resolve_in(row.handle.raw, target.handle.raw, &out) else {
            fiefTrap("Cannot resolve a List in another realm", CError.last())
        }
        guard let out else { return nil }
        let resolvedRow = ManagedRow(handle: CHandle(out), core: target, binding: row.binding)
        guard let nestedPath else { return ManagedList(row: resolvedRow, index: index) }
        // A nested list resolves itself (fief_list_resolve_in).
        var list: OpaquePointer?
        guard fief_list_resolve_in(handle.raw, target.handle.raw, &list) else {
            fiefTrap("Cannot resolve a List in another realm", CError.last())
        }
        guard let list else { return nil }
        return ManagedList(row: resolvedRow, index: index, nested: CHandle(list), path: nestedPath)
    }
}

extension CError {
    /// An index-out-of-bounds error made by the overlay (a negative index
    /// never reaches the C layer).
    static var indexOutOfBounds: CError {
        CError(code: FIEF_ERR_INDEX_OUT_OF_BOUNDS, categories: UInt32(FIEF_ERR_CAT_INVALID_ARG), message: "negative index", path: nil)
    }
}

// MARK: - Aggregates computed in the overlay

/// min, max, sum and average over stored values (Int, Double, Float, Date,
/// Decimal128, ...), for lists of values and unmanaged lists.
enum FiefAggregate {
    /// An aggregate's (non-null) result as `T`: read as the type itself
    /// (an int as any integer type, a double as a float, a raw value as its
    /// enum), else converted as a number.
    static func convert<T>(_ value: fief_value_t, to type: T.Type, core: RealmCore) -> T {
        if let persistable = T.self as? any _Persistable.Type, let read = persistable._fiefRead(value, in: Realm(core: core)) as? T {
            return read
        }
        if let any = fiefAnyValue(value), let converted = cast(any, to: T.self) { return converted }
        preconditionFailure("The aggregate \(fiefAnyValue(value).map { "\($0)" } ?? "nil") does not convert to \(T.self)")
    }

    static func int64(_ value: Any) -> Int64 {
        switch value {
        case let v as Int: return Int64(v)
        case let v as Int64: return v
        case let v as Int32: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int8: return Int64(v)
        default: return 0
        }
    }

    static func double(_ value: Any) -> Double {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Decimal128: return Double(String(describing: v)) ?? 0
        default: return Double(int64(value))
        }
    }

    /// Whether `a` sorts before `b`: nil first, then by value.
    static func less(_ a: Any?, _ b: Any?) -> Bool {
        guard let b = fiefUnwrap(b) else { return false }
        guard let a = fiefUnwrap(a) else { return true }
        switch (a, b) {
        case let (x as String, y as String): return Array(x.utf8).lexicographicallyPrecedes(y.utf8)
        case let (x as Date, y as Date): return x < y
        case let (x as Decimal128, y as Decimal128): return x < y
        case let (x as Bool, y as Bool): return !x && y
        case let (x as Data, y as Data): return x.lexicographicallyPrecedes(y)
        case let (x as ObjectId, y as ObjectId): return x.stringValue < y.stringValue
        case let (x as UUID, y as UUID): return x.uuidString < y.uuidString
        case (is Double, _), (is Float, _), (_, is Double), (_, is Float): return double(a) < double(b)
        default: return int64(a) < int64(b)
        }
    }

    static func extreme(_ values: [Any], smallest: Bool) -> Any? {
        guard var best = values.first else { return nil }
        for value in values.dropFirst() where smallest ? less(value, best) : less(best, value) {
            best = value
        }
        return best
    }

    static func extremeElement<E>(_ elements: [E], smallest: Bool) -> E? {
        var best: (element: E, stored: Any)?
        for element in elements {
            guard let stored = fiefUnwrap((element as? any _Persistable)?._fiefStored) else { continue }
            if let current = best {
                if smallest ? less(stored, current.stored) : less(current.stored, stored) { best = (element, stored) }
            } else {
                best = (element, stored)
            }
        }
        return best?.element
    }

    static func cast<T>(_ value: Any, to type: T.Type) -> T? {
        if let typed = value as? T { return typed }
        if let persistable = T.self as? any _Persistable.Type, let converted = persistable._fiefFromAny(value) {
            return converted as? T
        }
        switch type {
        case is Double.Type: return double(value) as? T
        case is Float.Type: return Float(double(value)) as? T
        default: return nil
        }
    }

    static func sum<T>(_ values: [Any], as type: T.Type) -> T {
        if T.self == Decimal128.self {
            var total = Decimal128.zero
            for case let value as Decimal128 in values { total += value }
            return total as! T
        }
        if values.allSatisfy({ !($0 is Double || $0 is Float) }), let result = cast(values.reduce(Int64(0)) { $0 &+ int64($1) }, to: T.self) {
            return result
        }
        let total = values.reduce(0.0) { $0 + double($1) }
        guard let result = cast(total, to: T.self) else { preconditionFailure("Cannot sum to \(T.self)") }
        return result
    }

    static func average<T>(_ values: [Any], as type: T.Type) -> T? {
        let values = values.compactMap(fiefUnwrap)
        guard !values.isEmpty else { return nil }
        if T.self == Decimal128.self || values.first is Decimal128 {
            var total = Decimal128.zero
            for value in values {
                total += (value as? Decimal128) ?? Decimal128(fiefConverting: value) ?? .zero
            }
            return cast(total / Decimal128(values.count), to: T.self)
        }
        let average = values.reduce(0.0) { $0 + double($1) } / Double(values.count)
        if (T.self as? any _Persistable.Type)?._fiefType == FIEF_TYPE_INT, average.isFinite {
            // An average asked for as an integer type (`average(of: \.age)`): truncated, as a
            // managed collection's is (and RealmSwift bridges it).
            return cast(Int64(average.rounded(.towardZero)), to: T.self)
        }
        return cast(average, to: T.self)
    }
}

/// The embedded object a value of a list or map of embedded objects stands
/// for: the object itself, or a custom type's persisted object.
func fiefEmbeddedObject(_ value: Any?) -> EmbeddedObject? {
    let unwrapped = fiefUnwrap(value)
    if let object = unwrapped as? EmbeddedObject { return object }
    return (unwrapped as? any _Persistable)?._fiefStored as? EmbeddedObject
}
