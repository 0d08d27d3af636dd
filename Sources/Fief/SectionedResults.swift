// Sectioned results: a collection's objects (or values) sorted, then split
// into sections by a key read from each of them (RealmSwift's
// `sectioned(by:...)`, `SectionedResults` and `ResultsSection`).
//
// A `SectionedResults` and the sections it hands out share one
// `SectionStore`: the sorted live results (fief_results_sort), how to get
// each element's key, and the last layout computed (for each section its
// key and the positions of its elements in the sorted results; no object
// handle is kept).  The layout follows the results lazily, as realm-core's
// `SectionedResults` does: a read checks whether the realm can have changed
// since the layout was computed (fief_realm_get_version and the
// invalidation generation, the same signals that make `Results` read the
// current version; a frozen realm never changes) and, if so, computes it
// again in one pass over the sorted results.  Inside a write transaction
// the version does not move with each write, so there every read computes
// the layout afresh.
//
// The rules are realm-core's: sections come in the order in which the
// sorted results first produce each key; an element joins the section of
// its key even when its key is not contiguous in the sort; elements keep the
// results' order.  Keys compare as Realm compares mixed values: strings and
// binaries by their bytes, dates by their stored timestamp, int, float and
// double (and an integral decimal) by numeric value, all NaNs as one key.
// Links (objects) are refused as keys, as in realm-core.
//
// Keys by key path read each element's property with
// fief_results_get_values, without an object handle, when the key path is
// the persisted property itself (`\.age`, found with the key-path recorder);
// a computed property (`\.firstLetter`), a path through links or a closure
// gets each element as an object (or value) and runs on it.

import CFief
import Foundation

// MARK: - RealmSectionedResult

/// What `SectionedResults` and `ResultsSection` have in common (RealmSwift's
/// `RealmSectionedResult`): a live, random-access collection read from a
/// realm, which can be frozen and thawed.
public protocol RealmSectionedResult: RandomAccessCollection, Equatable, ThreadConfined {
    /// The realm of the sectioned results.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read: its realm was
    /// invalidated, or (for a section) no element has the section's key any
    /// more.
    var isInvalidated: Bool { get }
    /// The number of sections (`SectionedResults`) or of elements in the
    /// section (`ResultsSection`).
    var count: Int { get }
    /// Whether the collection belongs to a frozen realm (and never changes).
    var isFrozen: Bool { get }
    /// The same collection on a frozen snapshot of the realm's current
    /// version.  Cannot be called inside a write transaction.
    func freeze() -> Self
    /// The same collection on the live realm, or nil if it no longer exists.
    func thaw() -> Self?
}

// MARK: - SectionedResults

/// The elements of a collection, sorted, in sections with one key each
/// (RealmSwift's `SectionedResults`); made by the collections'
/// `sectioned(by:...)` methods, never directly.
///
///     let dogsByFirstLetter = realm.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
///     dogsByFirstLetter.allKeys          // ["F", "R", "S", "W"]
///     dogsByFirstLetter[0].first?.name   // "Fido"
///
/// Live, as `Results` are: after a write (or `refresh()`), reading the
/// sections again gives the current sections, computed again on first read.
/// Sections come in the order in which the sorted elements first produce
/// each key; `for ... in` goes through the sections there are when the loop
/// begins.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>: RealmSectionedResult {
    /// A section of these results.
    public typealias Element = ResultsSection<Key, SectionElement>

    let store: SectionStore<Key, SectionElement>

    init(store: SectionStore<Key, SectionElement>) {
        self.store = store
    }

    /// The key of each section, in section order.
    public var allKeys: [Key] {
        store.layout().sections.map(\.key)
    }

    /// The number of sections.
    public var count: Int {
        store.layout().sections.count
    }

    /// The section at `index`.  Traps when out of bounds.
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let sections = store.layout().sections
        guard index >= 0, index < sections.count else {
            preconditionFailure("Index \(index) is out of bounds (must be less than \(sections.count)).")
        }
        return ResultsSection(store: store, section: sections[index])
    }

    /// The element at `indexPath`: the item `indexPath[1]` of section
    /// `indexPath[0]` (`IndexPath(item:section:)`).  Traps when out of bounds.
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        precondition(indexPath.count == 2, "An index path into sectioned results has two indexes (section, item), not \(indexPath.count)")
        return self[indexPath[0]][indexPath[1]]
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// An iterator over the sections there are when iteration begins; each
    /// section it gives stays live.
    public func makeIterator() -> SectionedResultsIterator<Key, SectionElement> {
        SectionedResultsIterator(store: store, sections: store.layout().sections)
    }

    /// The realm of the sorted results.
    public var realm: Realm? { store.results.realm }

    /// Whether the results can no longer be read (their realm was
    /// invalidated); invalidated sectioned results have no sections.
    public var isInvalidated: Bool { store.results.isInvalidated }

    /// Whether the results belong to a frozen realm.
    public var isFrozen: Bool { store.results.isFrozen }

    /// The same sections on a frozen snapshot of the realm's current
    /// version (fief_realm_freeze, fief_results_resolve_in); the sections are
    /// those of that version, and the key closure does not run again.
    public func freeze() -> SectionedResults {
        SectionedResults(store: store.frozen())
    }

    /// The same sections on the live realm (their keys computed again from
    /// its current version), or nil if the results cannot be resolved there.
    public func thaw() -> SectionedResults? {
        store.thawed().map(SectionedResults.init(store:))
    }

    /// Whether both are the same sectioned results (made by the same
    /// `sectioned(by:...)` call, or frozen or thawed from it).
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool {
        lhs.store === rhs.store
    }
}

extension SectionedResults: CustomStringConvertible {
    /// `SectionedResults<Dog> <0x...> ( [F] ResultsSection <0x...> ( [0] Dog { ... } ) ... )`,
    /// at most 100 sections of at most 100 elements.
    public var description: String {
        let sections = store.layout().sections
        var lines = ["SectionedResults<\(store.elementName)> <\(store.address)> ("]
        for section in sections.prefix(100) {
            let body = ResultsSection(store: store, section: section).describe(positions: section.positions)
            lines.append("\t[\(fiefDescribe(section.key))] \(indent(body)),")
        }
        if sections.count > 100 { lines.append("\t... \(sections.count - 100) sections skipped.") }
        lines.append(")")
        return lines.joined(separator: "\n")
    }
}

// MARK: - ResultsSection

/// One section of `SectionedResults` (RealmSwift's `ResultsSection`): the
/// elements whose key is `key`, in the order of the sorted results.
///
/// A section is known by its key: it stays live while some element has that
/// key (after a write it holds the elements with the key then, wherever the
/// section has moved), and is invalidated when none has any more; reading
/// an invalidated section traps, as in RealmSwift.  `for ... in` goes
/// through the elements of the section when the loop begins.
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult, Identifiable {
    /// The type of the elements.
    public typealias Element = T

    let store: SectionStore<Key, T>
    let identity: SectionKeyIdentity
    /// The section's key as the sections computed it.
    private let sectionKey: Key

    init(store: SectionStore<Key, T>, section: SectionLayout<Key>.Section) {
        self.store = store
        self.identity = section.identity
        self.sectionKey = section.key
    }

    private init(store: SectionStore<Key, T>, identity: SectionKeyIdentity, key: Key) {
        self.store = store
        self.identity = identity
        self.sectionKey = key
    }

    /// The positions of the section's elements in the sorted results now;
    /// traps if the section no longer exists.
    private func currentPositions() -> [Int] {
        guard let positions = store.layout().positions(of: identity) else {
            preconditionFailure("Access to invalidated Results objects: no element has the section key '\(fiefDescribe(sectionKey))' any more")
        }
        return positions
    }

    /// The key every element of the section has.  Traps if the section is
    /// invalidated.
    public var key: Key {
        _ = currentPositions()
        return sectionKey
    }

    /// The section's key, which identifies it among the sections.
    public var id: Key { key }

    /// The number of elements.  Traps if the section is invalidated.
    public var count: Int { currentPositions().count }

    /// The element at `index`, in the order of the sorted results.  Traps
    /// when out of bounds, or if the section is invalidated.
    public subscript(_ index: Int) -> T {
        let positions = currentPositions()
        guard index >= 0, index < positions.count else {
            preconditionFailure("Index \(index) is out of bounds (must be less than \(positions.count)).")
        }
        return store.results[positions[index]]
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// An iterator over the elements of the section when iteration begins
    /// (objects are found again by key as the iteration reaches them;
    /// those deleted meanwhile are skipped).
    public func makeIterator() -> SectionIterator<T> {
        SectionIterator(store.results, positions: currentPositions())
    }

    /// The realm of the sorted results.
    public var realm: Realm? { store.results.realm }

    /// Whether the section can no longer be read: the realm was
    /// invalidated, or no element has the section's key any more.
    public var isInvalidated: Bool {
        store.results.isInvalidated || store.layout().positions(of: identity) == nil
    }

    /// Whether the section belongs to a frozen realm.
    public var isFrozen: Bool { store.results.isFrozen }

    /// The section of the same key in frozen sectioned results of the realm's
    /// current version.  Traps if the section is invalidated.
    public func freeze() -> ResultsSection {
        if isFrozen { return self }
        _ = currentPositions()
        return ResultsSection(store: store.frozen(), identity: identity, key: sectionKey)
    }

    /// The section of the same key in live sectioned results, or nil if the
    /// results cannot be resolved or no element of the live realm has the
    /// key (RealmSwift traps there).
    public func thaw() -> ResultsSection? {
        if !isFrozen { return self }
        guard let live = store.thawed(), let section = live.layout().section(of: identity) else { return nil }
        return ResultsSection(store: live, section: section)
    }

    /// Whether both are the section of the same key of the same sectioned
    /// results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool {
        lhs.store === rhs.store && lhs.identity == rhs.identity
    }

    /// The description of the section holding the elements at `positions`.
    fileprivate func describe(positions: [Int]) -> String {
        var lines = ["ResultsSection <\(store.address)> ("]
        for (index, position) in positions.prefix(100).enumerated() {
            lines.append("\t[\(index)] \(indent(store.describeElement(at: position))),")
        }
        if positions.count > 100 { lines.append("\t... \(positions.count - 100) objects skipped.") }
        lines.append(")")
        return lines.joined(separator: "\n")
    }
}

extension ResultsSection: CustomStringConvertible {
    /// `ResultsSection <0x...> ( [0] Dog { ... } ... )`, at most 100
    /// elements; `ResultsSection <0x...> (invalidated)` for an invalidated one.
    public var description: String {
        guard let positions = store.layout().positions(of: identity) else {
            return "ResultsSection <\(store.address)> (invalidated)"
        }
        return describe(positions: positions)
    }
}

/// Indents every line but the first by one tab, to nest a description.
private func indent(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n\t")
}

// MARK: - Iterators

/// The iterator of `SectionedResults`: the sections there are when
/// iteration begins, each live.
public struct SectionedResultsIterator<Key: _Persistable & Hashable, Element: RealmCollectionValue>: IteratorProtocol {
    private let store: SectionStore<Key, Element>
    private let sections: [SectionLayout<Key>.Section]
    private var position = 0

    init(store: SectionStore<Key, Element>, sections: [SectionLayout<Key>.Section]) {
        self.store = store
        self.sections = sections
    }

    public mutating func next() -> ResultsSection<Key, Element>? {
        guard position < sections.count else { return nil }
        position += 1
        return ResultsSection(store: store, section: sections[position - 1])
    }
}

/// The iterator of `ResultsSection`: the elements of the section when
/// iteration begins.
public struct SectionIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private var snapshot: ResultsSnapshot<Element>

    /// The elements at `positions` of `results` now: values read at once;
    /// objects by key (fief_results_get_keys, in batches over the range the
    /// section spans), fetched as the iteration reaches them
    /// (fief_object_get), skipping those deleted meanwhile.
    init(_ results: Results<Element>, positions: [Int]) {
        snapshot = results.elements.snapshot(of: results, positions: positions)
    }

    public mutating func next() -> Element? { snapshot.next() }
}

// MARK: - Making sectioned results

extension RealmCollection {
    /// The elements sorted by `sortDescriptors`, in sections by the key
    /// `keyBlock` gives for each (RealmSwift's requirement of every Realm
    /// collection).  The first sort descriptor should order the elements by
    /// their key; when it does not, an element still joins the section of
    /// its key, and sections come in the order their keys first appear.
    /// Traps, as RealmSwift does, for empty sort descriptors and for an
    /// unmanaged collection.
    ///
    ///     let byInitial = realm.objects(Dog.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) {
    ///         String($0.name.prefix(1))
    ///     }
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping ((Element) -> Key)) -> SectionedResults<Key, Element> {
        guard !sortDescriptors.isEmpty else {
            preconditionFailure("There must be at least one SortDescriptor when using SectionedResults.")
        }
        return fiefSectioned(sortDescriptors: sortDescriptors, keys: .block(keyBlock))
    }

    /// The elements sorted by value (`"self"`; collections of values), in
    /// sections by the key `block` gives for each.  Traps, as RealmSwift
    /// does, for an unmanaged collection.
    ///
    ///     let byParity = scores.sectioned(by: { $0 % 2 == 0 }, ascending: true)
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping ((Element) -> Key),
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: ascending)], block)
    }

    /// Sectioned results over these elements sorted by `sortDescriptors`
    /// (what every `sectioned(by:...)` method comes down to).
    func fiefSectioned<Key>(sortDescriptors: [SortDescriptor],
                            keys: SectionKeySource<Key, Element>) -> SectionedResults<Key, Element> {
        let sorted = fiefResultsToSection().sorted(by: sortDescriptors)
        return SectionedResults(store: SectionStore(results: sorted, keys: keys))
    }

    /// The live results behind the collection; traps for an unmanaged one.
    private func fiefResultsToSection() -> Results<Element> {
        if let results = self as? Results<Element> { return results }
        if realm != nil {
            if let backed = (self as? FiefResultsBacked)?.fiefBackingResults as? Results<Element> { return backed }
            if let any = self as? AnyRealmCollection<Element> { return any.box.results("section") }
        }
        let kind = String(describing: Self.self).prefix { $0 != "<" }
        preconditionFailure("Cannot section an unmanaged \(kind): only collections managed by a realm can be sectioned (this method may only be called on \(kind) instances retrieved from a Realm)")
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The objects sorted by the property `keyPath` reads, in sections by
    /// its value (the value of a computed property such as `\.firstLetter`,
    /// sorted by the persisted property it reads).  Traps, as RealmSwift
    /// does, for an unmanaged collection.
    ///
    ///     let dogsByAge = realm.objects(Dog.self).sectioned(by: \.age, ascending: true)
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        let name = fiefKeyPathString(keyPath, of: Element.self)
        return fiefSectioned(sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)],
                             keys: .keyPath(keyPath, read: { $0[keyPath: keyPath] }))
    }

    /// The objects sorted by `sortDescriptors`, in sections by the value
    /// `keyPath` reads.  The first sort descriptor must name the key path's
    /// property (traps otherwise, and for none, as RealmSwift does).
    ///
    ///     dogs.sectioned(by: \.firstLetter, sortDescriptors: [SortDescriptor(keyPath: "name"), "age"])
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first else {
            preconditionFailure("Can not section Results with empty sortDescriptor parameter.")
        }
        guard fiefKeyPathString(keyPath, of: Element.self) == first.keyPath else {
            preconditionFailure("The section key path must match the primary sort descriptor.")
        }
        return fiefSectioned(sortDescriptors: sortDescriptors, keys: .keyPath(keyPath, read: { $0[keyPath: keyPath] }))
    }

    /// The objects sorted by `sortDescriptors`, in sections by the key
    /// `block` gives for each (see `sectioned(sortDescriptors:_:)`).
    ///
    ///     dogs.sectioned(by: { String($0.name.first!) }, sortDescriptors: [SortDescriptor(keyPath: "name")])
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping ((Element) -> Key),
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }
}

extension RealmCollection {
    /// The projections sorted by the root property `keyPath` reads (through
    /// its `@Projected` property), in sections by its value.  Traps, as
    /// RealmSwift does, for an unmanaged collection.
    ///
    ///     realm.objects(PersonProjection.self).sectioned(by: \.firstName, ascending: true)
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase>(by keyPath: KeyPath<Element, Key>,
                                                                       ascending: Bool = true) -> SectionedResults<Key, Element>
        where Element: Projection<O> {
        fiefSectioned(sortDescriptors: [SortDescriptor(keyPath: _name(for: keyPath), ascending: ascending)],
                      keys: .block { $0[keyPath: keyPath] })
    }

    /// The projections sorted by `sortDescriptors`, in sections by the value
    /// `keyPath` reads.  The first sort descriptor must name the root
    /// property the key path reads (traps otherwise, and for none, as
    /// RealmSwift does).
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase>(by keyPath: KeyPath<Element, Key>,
                                                                       sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element>
        where Element: Projection<O> {
        guard let first = sortDescriptors.first else {
            preconditionFailure("Can not section Results with empty sortDescriptor parameter.")
        }
        guard _name(for: keyPath) == first.keyPath else {
            preconditionFailure("The section key path must match the primary sort descriptor.")
        }
        return fiefSectioned(sortDescriptors: sortDescriptors, keys: .block { $0[keyPath: keyPath] })
    }

    /// The projections sorted by `sortDescriptors`, in sections by the key
    /// `block` gives for each (see `sectioned(sortDescriptors:_:)`).
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase>(by block: @escaping ((Element) -> Key),
                                                                       sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element>
        where Element: Projection<O> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }
}

// MARK: - The shared state

/// How each element's section key is found.
enum SectionKeySource<Key: _Persistable & Hashable, Element> {
    /// Run on each element.
    case block((Element) -> Key)
    /// Read through a key path of an object class: the persisted property
    /// itself (read by name with fief_results_get_values), or else a
    /// computed property or a path through links (`read` runs on each
    /// object).
    case keyPath(AnyKeyPath, read: (Element) -> Key)
}

/// The sections of sorted results at one version: for each key, in order
/// of first appearance, the positions of its elements in the results.
struct SectionLayout<Key> {
    struct Section {
        /// The key, as the first element of the section gave it.
        let key: Key
        /// The key as Realm compares keys.
        let identity: SectionKeyIdentity
        /// The positions of the section's elements in the sorted results.
        var positions: [Int]
    }

    private(set) var sections: [Section] = []
    private var indexByIdentity: [SectionKeyIdentity: Int] = [:]
    /// The section the last element joined, and the key as stored of that
    /// element: an element storing the same value joins it without reading
    /// its key again (sorted elements come key after key).
    private var last: (section: Int, stored: SectionKeyIdentity?)?

    /// The section of the key `identity`, nil if no element has it.
    func section(of identity: SectionKeyIdentity) -> Section? {
        indexByIdentity[identity].map { sections[$0] }
    }

    /// The positions of the elements of the key `identity`, nil if none has it.
    func positions(of identity: SectionKeyIdentity) -> [Int]? {
        indexByIdentity[identity].map { sections[$0].positions }
    }

    /// Adds the element at `position`, whose key is `key` (`identity` as Realm
    /// compares it), stored as `stored` when it is read from a property.
    mutating func add(_ position: Int, key: Key, identity: SectionKeyIdentity, stored: SectionKeyIdentity? = nil) {
        let index: Int
        if let existing = indexByIdentity[identity] {
            index = existing
            sections[index].positions.append(position)
        } else {
            index = sections.count
            sections.append(Section(key: key, identity: identity, positions: [position]))
            indexByIdentity[identity] = index
        }
        last = (index, stored)
    }

    /// Adds the element at `position` to the section of the previous one if
    /// its property stores the same value as the previous one's; false if it
    /// does not (the caller then reads its key and calls `add`).
    mutating func addIfSameAsLast(_ position: Int, stored value: fief_value_t) -> Bool {
        guard let last, let stored = last.stored, stored.isStored(value) else { return false }
        sections[last.section].positions.append(position)
        return true
    }
}

/// What is shared by a `SectionedResults` and its sections: the sorted
/// results, how keys are found, and the layout last computed with the
/// version it was computed at.
final class SectionStore<Key: _Persistable & Hashable, Element: RealmCollectionValue>: @unchecked Sendable {
    /// The sorted live (or frozen) results the sections split.
    let results: Results<Element>
    let keys: SectionKeySource<Key, Element>
    /// For keys by key path: the persisted property it reads as it is, if
    /// it is one (read without an object handle).
    private let directProperty: String?

    private let lock = NSLock()
    private var cached: (layout: SectionLayout<Key>, stamp: LayoutStamp)?

    init(results: Results<Element>, keys: SectionKeySource<Key, Element>, layout: SectionLayout<Key>? = nil) {
        self.results = results
        self.keys = keys
        if case .keyPath(let keyPath, _) = keys, Element.self is ObjectBase.Type, let binding = results.elements.binding {
            directProperty = directPropertyName(of: keyPath, in: binding)
        } else {
            directProperty = nil
        }
        if let layout { cached = (layout, .frozen) }
    }

    /// When a layout was computed: what must not change for it to stay right.
    enum LayoutStamp: Equatable {
        /// A frozen realm, which never changes.
        case frozen
        /// A live realm's version, outside a write transaction, and the
        /// overlay's invalidation generation.
        case version(UInt64, generation: UInt64)
    }

    /// The stamp of the realm now; nil inside a write transaction, where
    /// every write may change the results without changing the version.
    private func currentStamp() -> LayoutStamp? {
        let core = results.core
        if core.isFrozen { return .frozen }
        if core.isInWriteTransaction { return nil }
        return .version(core.version, generation: core.generation)
    }

    /// The sections now: the cached layout while the realm cannot have
    /// changed, otherwise computed again.
    func layout() -> SectionLayout<Key> {
        let stamp = currentStamp()
        if let stamp, let cached = lock.withLock({ cached }), cached.stamp == stamp {
            return cached.layout
        }
        let layout = computeLayout()
        // Kept only if nothing moved while it was computed.
        if let stamp, currentStamp() == stamp { lock.withLock { cached = (layout, stamp) } }
        return layout
    }

    /// One pass over the sorted results: each element's key, and its section.
    private func computeLayout() -> SectionLayout<Key> {
        var layout = SectionLayout<Key>()
        let count = results.count
        guard count > 0 else { return layout }
        if let directProperty {
            readStoredKeys(of: directProperty, count: count, into: &layout)
            return layout
        }
        for position in 0..<count {
            let key = key(of: results[position])
            layout.add(position, key: key, identity: SectionKeyIdentity(key: key))
        }
        return layout
    }

    private func key(of element: Element) -> Key {
        switch keys {
        case .block(let block): return block(element)
        case .keyPath(_, let read): return read(element)
        }
    }

    /// The keys of a persisted property, read from the results without
    /// object handles (fief_results_get_values); a key is made only when
    /// an element stores another value than the one before it.
    private func readStoredKeys(of property: String, count: Int, into layout: inout SectionLayout<Key>) {
        let binding = results.binding
        guard let index = binding.info.propertyIndex[property] else {
            preconditionFailure("Invalid property name '\(property)' for class '\(binding.info.className)'")
        }
        var propertyKey = binding.propertyKeys[index]
        let realm = Realm(core: results.core)
        for position in 0..<count {
            var value = fief_value_t()
            guard fief_results_get_values(results.handle.raw, position, &propertyKey, 1, &value) else {
                fiefTrap("Cannot read the section keys ('\(property)') of \(binding.info.className) results", CError.last())
            }
            if layout.addIfSameAsLast(position, stored: value) { continue }
            let stored = SectionKeyIdentity(storedKey: value)
            guard let key = Key._fiefRead(value, in: realm) else {
                preconditionFailure("The section key '\(property)' of \(binding.info.className) holds a value of type \(value.type) that does not convert to \(Key.self)")
            }
            layout.add(position, key: key, identity: SectionKeyIdentity(key: key), stored: stored)
        }
    }

    // MARK: Freezing

    /// A store over frozen results of the current version, holding the
    /// current layout (the key closure does not run again).
    func frozen() -> SectionStore {
        if results.isFrozen { return self }
        let layout = self.layout()
        return SectionStore(results: results.freeze(), keys: keys, layout: layout)
    }

    /// A store over the live results, or nil if they cannot be resolved.
    func thawed() -> SectionStore? {
        if !results.isFrozen { return self }
        return results.thaw().map { SectionStore(results: $0, keys: keys) }
    }

    // MARK: Descriptions

    /// The class of the objects, or the type of the values.
    var elementName: String { results.elements.binding?.info.className ?? "\(Element.self)" }

    /// The store's address, to tell sectioned results apart in descriptions.
    var address: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func describeElement(at position: Int) -> String {
        let element = results[position]
        if let object = Results<Element>.object(of: element) { return String(describing: object) }
        return fiefDescribe(element)
    }
}

/// The persisted property `keyPath` reads as it is (`\Dog.age` → "age"),
/// when it is one: the key-path recorder saw exactly that property read,
/// through exactly this key path.  Nil for a computed property
/// (`\Dog.firstLetter` reads `name`), a path through links, a collection or
/// linking objects.
private func directPropertyName(of keyPath: AnyKeyPath, in binding: ClassBinding) -> String? {
    if let known = directProperties.withLock({ $0[keyPath] }) { return known }
    let recorder = KeyPathRecorder()
    let prototype = binding.info.type.init()
    prototype._fiefRecorder = recorder
    _ = prototype[keyPath: keyPath]
    var name: String?
    if recorder.names.count == 1, recorder.readKeyPaths == [keyPath],
       let index = binding.info.propertyIndex[recorder.names[0]], !binding.info.properties[index].isCollection {
        name = recorder.names[0]
    }
    directProperties.withLock { $0[keyPath] = .some(name) }
    return name
}

/// Key path → the persisted property it is (nil: not one), learnt on first use.
private let directProperties = Locked<[AnyKeyPath: String?]>([:])

// MARK: - Keys as Realm compares them

/// A section key as Realm compares keys (realm-core keeps sections in a
/// map of mixed values): strings and binaries by their bytes, dates by
/// their stored timestamp, int, float and double (and an integral
/// decimal128) by numeric value, NaNs as one value.
enum SectionKeyIdentity: Hashable {
    case null
    case bool(Bool)
    /// An integer, or a float, double or decimal128 with an integral value.
    case integer(Int64)
    /// Any other float or double (its bits as a Double; one NaN).
    case double(UInt64)
    case decimal(Decimal128)
    case string([UInt8])
    case binary([UInt8])
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case objectId(ObjectId)
    case uuid(UUID)

    /// The identity of a key given by a key closure or read through a key
    /// path.  Traps, as realm-core does, for a link (an object) and for a
    /// nested collection.
    init<Key: _Persistable>(key: Key) {
        if Key._fiefLinkTarget != nil {
            guard fiefUnwrap(key) == nil else { SectionKeyIdentity.refuseLink() }
            self = .null
            return
        }
        if let mixed = key as? AnyRealmValue, case .object = mixed { SectionKeyIdentity.refuseLink() }
        let arena = _FiefArena()
        self = withExtendedLifetime(arena) { SectionKeyIdentity(storedKey: key._fiefValue(in: arena)) }
    }

    /// The identity of a value as stored (views are copied).  Traps for a
    /// link and for a nested collection.
    init(storedKey value: fief_value_t) {
        switch value.type {
        case FIEF_TYPE_NULL: self = .null
        case FIEF_TYPE_BOOL: self = .bool(value.u.boolean)
        case FIEF_TYPE_INT: self = .integer(value.u.integer)
        case FIEF_TYPE_FLOAT: self = SectionKeyIdentity(number: Double(value.u.float_value))
        case FIEF_TYPE_DOUBLE: self = SectionKeyIdentity(number: value.u.double_value)
        case FIEF_TYPE_DECIMAL128: self = SectionKeyIdentity(decimal: Decimal128(fiefValue: value.u.decimal128))
        case FIEF_TYPE_STRING: self = .string(Array(SectionKeyIdentity.bytes(of: value.u.string)))
        case FIEF_TYPE_BINARY: self = .binary(Array(SectionKeyIdentity.bytes(of: value.u.binary)))
        case FIEF_TYPE_TIMESTAMP: self = .timestamp(seconds: value.u.timestamp.seconds, nanoseconds: value.u.timestamp.nanoseconds)
        case FIEF_TYPE_OBJECT_ID: self = .objectId(ObjectId(fiefValue: value.u.object_id))
        case FIEF_TYPE_UUID: self = .uuid(UUID(fiefValue: value.u.uuid))
        case FIEF_TYPE_LINK: SectionKeyIdentity.refuseLink()
        case FIEF_TYPE_LIST, FIEF_TYPE_MAP: preconditionFailure("Collections are not supported as section keys.")
        default: preconditionFailure("A section key of type \(value.type) is not supported.")
        }
    }

    private init(number: Double) {
        if number.isNaN {
            self = .double(Double.nan.bitPattern)
        } else if number.rounded(.towardZero) == number, number >= -0x1p63, number < 0x1p63 {
            self = .integer(Int64(number))
        } else {
            self = .double(number.bitPattern)
        }
    }

    private init(decimal: Decimal128) {
        let approximation = decimal.doubleValue
        if approximation.isFinite, approximation.rounded(.towardZero) == approximation,
           approximation >= -0x1p63, approximation < 0x1p63 {
            let integer = Int64(approximation)
            if Decimal128(integer) == decimal {
                self = .integer(integer)
                return
            }
        }
        self = .decimal(decimal)
    }

    private static func refuseLink() -> Never {
        preconditionFailure("Links are not supported as section keys.")
    }

    private static func bytes(of view: fief_string_t) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: view.data.map { UnsafeRawPointer($0) }, count: view.data == nil ? 0 : view.size)
    }

    private static func bytes(of view: fief_binary_t) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: view.data.map { UnsafeRawPointer($0) }, count: view.data == nil ? 0 : view.size)
    }

    /// Whether `value`, as stored, has this identity (strings and binaries
    /// compared in place, without a copy).
    func isStored(_ value: fief_value_t) -> Bool {
        switch (self, value.type) {
        case (.string(let bytes), FIEF_TYPE_STRING):
            return SectionKeyIdentity.bytes(of: value.u.string).elementsEqual(bytes)
        case (.binary(let bytes), FIEF_TYPE_BINARY):
            return SectionKeyIdentity.bytes(of: value.u.binary).elementsEqual(bytes)
        case (_, FIEF_TYPE_STRING), (_, FIEF_TYPE_BINARY), (_, FIEF_TYPE_LINK), (_, FIEF_TYPE_LIST), (_, FIEF_TYPE_MAP):
            return false
        default:
            return self == SectionKeyIdentity(storedKey: value)
        }
    }
}

// MARK: - Index paths

#if !canImport(Darwin)
extension IndexPath {
    /// The index path of `item` in `section`, as UIKit and AppKit spell it
    /// (swift-corelibs-foundation has no such initializer), to read
    /// `sectionedResults[IndexPath(item: 0, section: 1)]`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The index path of `row` in `section`, as UIKit spells it.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item within the section: the second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The row within the section: the second index (UIKit's name for `item`).
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif
