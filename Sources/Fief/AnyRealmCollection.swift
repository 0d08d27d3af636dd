import CFief
import Foundation

/// Any Realm collection of `Element`s behind one type (RealmSwift's
/// `AnyRealmCollection`): results, linking objects, lists and sets, so that
/// code can store or return "some collection of dogs" without naming which.
///
///     func dogs(in realm: Realm, of toy: DogToy?) -> AnyRealmCollection<Dog> {
///         toy.map { AnyRealmCollection($0.dogs) } ?? AnyRealmCollection(realm.objects(Dog.self))
///     }
///
/// Every member forwards to the wrapped collection; it stays live as that
/// collection is.  Filtering and aggregates work on collections backed by
/// live results (managed ones), as in RealmSwift.
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    let box: any AnyRealmCollectionBox<Element>

    /// Wraps `base`.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        box = ConcreteRealmCollectionBox(base)
    }

    init(box: any AnyRealmCollectionBox<Element>) {
        self.box = box
    }

    // MARK: ThreadConfined

    /// The realm of the wrapped collection, nil if it is unmanaged.
    public var realm: Realm? { box.realm }
    /// Whether the wrapped collection can no longer be used.
    public var isInvalidated: Bool { box.isInvalidated }
    /// Whether the wrapped collection is frozen.
    public var isFrozen: Bool { box.isFrozen }
    /// The wrapped collection, frozen, wrapped.
    public func freeze() -> AnyRealmCollection { AnyRealmCollection(box: box.freeze()) }
    /// The wrapped collection, thawed, wrapped; nil if it no longer exists.
    public func thaw() -> AnyRealmCollection? { box.thaw().map { AnyRealmCollection(box: $0) } }

    // MARK: Collection

    public typealias Index = Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { box.count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The number of elements.
    public var count: Int { box.count }

    /// The element at `position`.
    public subscript(position: Int) -> Element { box.element(at: position) }

    /// The wrapped collection's iterator: the elements there when iteration
    /// begins, as RealmSwift's snapshot enumeration gives them.
    public func makeIterator() -> RLMIterator<Element> { box.makeIterator() }

    /// The position of `object`, or nil.
    public func index(of object: Element) -> Int? { box.index(of: object) }

    /// The wrapped collection's description, headed `AnyRealmCollection<Dog>`
    /// as RealmSwift's is.
    public var description: String {
        let wrapped = box.description
        guard !wrapped.hasPrefix("<"), let open = wrapped.firstIndex(of: "<") else { return wrapped }
        return "AnyRealmCollection" + wrapped[open...]
    }

    // MARK: Queries

    /// The elements that match a predicate (see `Results.filter`).  Traps
    /// for a collection that is not backed by live results (unmanaged).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        box.results("filter").filter(predicateFormat, arguments: args)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        box.sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        box.sorted(by: Array(sortDescriptors))
    }

    /// The first element for each distinct tuple of values of `keyPaths`
    /// (see `Results.distinct(by:)`); traps, as RealmSwift does, for an
    /// unmanaged collection.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        box.distinct(by: Array(keyPaths))
    }

    // MARK: Aggregates

    public func min<T: MinMaxType>(ofProperty property: String) -> T? { box.results("aggregate").min(ofProperty: property) }
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { box.results("aggregate").max(ofProperty: property) }
    public func sum<T: AddableType>(ofProperty property: String) -> T { box.results("aggregate").sum(ofProperty: property) }
    public func average<T: AddableType>(ofProperty property: String) -> T? { box.results("aggregate").average(ofProperty: property) }

    /// Whether both wrap equal collections of the same kind.
    public static func == (lhs: AnyRealmCollection, rhs: AnyRealmCollection) -> Bool {
        lhs.box.isEqual(to: rhs.box)
    }
}

extension AnyRealmCollection: Encodable where Element: Encodable {
    /// Encodes the elements as an array, in order.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self {
            try container.encode(element)
        }
    }
}

/// A collection whose elements are those of live results (for filters and
/// aggregates through `AnyRealmCollection`).  Conforming types: `Results`,
/// `LinkingObjects`, `List` (managed lists, through fief_list_to_results),
/// `MutableSet` (managed sets of objects, through fief_set_to_results).
protocol FiefResultsBacked {
    /// The results, as `Results<Element>`; nil when unmanaged.
    var fiefBackingResults: Any? { get }
}

extension Results: FiefResultsBacked {
    var fiefBackingResults: Any? { self }
}

extension LinkingObjects: FiefResultsBacked {
    var fiefBackingResults: Any? { results }
}

/// The type-erasing box: what `AnyRealmCollection` needs of the collection
/// it wraps (`ConcreteRealmCollectionBox` is the one conformance).
protocol AnyRealmCollectionBox<Element>: AnyObject {
    associatedtype Element: RealmCollectionValue
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    var count: Int { get }
    var description: String { get }
    func element(at position: Int) -> Element
    func makeIterator() -> RLMIterator<Element>
    func index(of object: Element) -> Int?
    func sorted(by descriptors: [SortDescriptor]) -> Results<Element>
    func distinct(by keyPaths: [String]) -> Results<Element>
    func freeze() -> any AnyRealmCollectionBox<Element>
    func thaw() -> (any AnyRealmCollectionBox<Element>)?
    func isEqual(to other: any AnyRealmCollectionBox<Element>) -> Bool
    /// The live results behind the collection; traps (as RealmSwift does)
    /// for `what` on a collection without any.
    func results(_ what: String) -> Results<Element>
    /// The list or set behind the collection, which observes itself; nil otherwise.
    var notifying: (any FiefCollectionNotifying)? { get }
}

final class ConcreteRealmCollectionBox<Base: RealmCollection>: AnyRealmCollectionBox {
    typealias Element = Base.Element
    let base: Base

    init(_ base: Base) {
        self.base = base
    }

    var realm: Realm? { base.realm }
    var isInvalidated: Bool { base.isInvalidated }
    var isFrozen: Bool { base.isFrozen }
    var count: Int { base.count }
    var description: String { base.description }
    func element(at position: Int) -> Base.Element { base[position] }
    func makeIterator() -> RLMIterator<Base.Element> { base.makeIterator() }
    func index(of object: Base.Element) -> Int? { base.index(of: object) }
    func sorted(by descriptors: [SortDescriptor]) -> Results<Base.Element> { base.sorted(by: descriptors) }
    func distinct(by keyPaths: [String]) -> Results<Base.Element> { base.distinct(by: keyPaths) }
    func freeze() -> any AnyRealmCollectionBox<Base.Element> { ConcreteRealmCollectionBox(base.freeze()) }
    func thaw() -> (any AnyRealmCollectionBox<Base.Element>)? { base.thaw().map { ConcreteRealmCollectionBox($0) } }

    func isEqual(to other: any AnyRealmCollectionBox<Base.Element>) -> Bool {
        guard let other = other as? ConcreteRealmCollectionBox<Base> else { return false }
        return base == other.base
    }

    var notifying: (any FiefCollectionNotifying)? { base as? any FiefCollectionNotifying }

    func results(_ what: String) -> Results<Base.Element> {
        guard let results = (base as? FiefResultsBacked)?.fiefBackingResults as? Results<Base.Element> else {
            preconditionFailure("Cannot \(what) an unmanaged collection: only collections managed by a realm support it")
        }
        return results
    }
}
