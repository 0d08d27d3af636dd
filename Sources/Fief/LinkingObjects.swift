import CFief
import Foundation

/// The objects linking to an object through one of their properties
/// (RealmSwift's `LinkingObjects`), declared in the target class:
///
///     class DogToy: Object {
///         @Persisted var name = ""
///         @Persisted(originProperty: "favoriteToy") var dogs: LinkingObjects<Dog>
///     }
///
/// Live and read-only: the objects of `Element` whose property named
/// `propertyName` points to this object now (fief_object_get_backlinks, one
/// range scan of the target's backlinks).  Nothing is stored.  On an
/// unmanaged object it is empty.
public struct LinkingObjects<Element: ObjectBase & RealmCollectionValue> {
    /// The property of `Element` that links here.
    public let propertyName: String
    /// The live results behind a managed object's linking objects.
    let results: Results<Element>?
    /// On a key-path recording instance: the one recording element that
    /// `first` and `[0]` read (Internal/KeyPathRecorder.swift).
    private var recordingElement: Element?

    /// Linking objects of `type` through `propertyName` (the older form of
    /// `@Persisted(originProperty:)`); empty until read through a managed object.
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        results = nil
    }

    init(propertyName: String, results: Results<Element>?) {
        self.propertyName = propertyName
        self.results = results
    }

    /// The linking objects of `owner` through `propertyName` of `Element`.
    static func of(_ owner: ObjectBase, propertyName: String) -> LinkingObjects {
        guard let row = owner._fiefManaged else { return LinkingObjects(propertyName: propertyName, results: nil) }
        let origin = row.core.binding(for: Element.self)
        guard let index = origin.info.propertyIndex[propertyName] else {
            preconditionFailure("Property '\(origin.info.className).\(propertyName)' declared as origin of linking objects property does not exist")
        }
        guard let raw = fief_object_get_backlinks(row.handle.raw, origin.classKey, origin.propertyKeys[index]) else {
            fiefTrap("Cannot list the objects linking to '\(row.binding.info.className)' through '\(origin.info.className).\(propertyName)'", CError.last())
        }
        return LinkingObjects(propertyName: propertyName, results: Results(handle: CHandle(raw), core: row.core, binding: origin))
    }

    func requireManaged(_ what: String) -> Results<Element> {
        guard let results else { preconditionFailure("Cannot \(what) the linking objects of an unmanaged object") }
        return results
    }

    public var realm: Realm? { results?.realm }
    public var isInvalidated: Bool { results?.isInvalidated ?? false }
    public var isFrozen: Bool { results?.isFrozen ?? false }

    public func freeze() -> LinkingObjects {
        LinkingObjects(propertyName: propertyName, results: requireManaged("freeze").freeze())
    }

    public func thaw() -> LinkingObjects? {
        guard let results else { return self }
        return results.thaw().map { LinkingObjects(propertyName: propertyName, results: $0) }
    }

    /// The number of linking objects.
    public var count: Int { results?.count ?? (recordingElement == nil ? 0 : 1) }

    public subscript(position: Int) -> Element {
        guard let results else {
            if position == 0, let recordingElement { return recordingElement }
            fiefTrapIndex(position, count: 0)
        }
        return results[position]
    }

    public func index(of object: Element) -> Int? { results?.index(of: object) }

    /// The linking objects that match a predicate (see `Results.filter`).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        requireManaged("filter").filter(predicateFormat, arguments: args)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        requireManaged("sort").sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        requireManaged("sort").sorted(by: sortDescriptors)
    }

    /// The first linking object for each distinct tuple of values of
    /// `keyPaths` (see `Results.distinct(by:)`).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        requireManaged("distinct").distinct(by: keyPaths)
    }

    public func min<T: MinMaxType>(ofProperty property: String) -> T? { results?.min(ofProperty: property) }
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { results?.max(ofProperty: property) }
    public func sum<T: AddableType>(ofProperty property: String) -> T { requireManaged("sum").sum(ofProperty: property) }
    public func average<T: AddableType>(ofProperty property: String) -> T? { results?.average(ofProperty: property) }
}

extension LinkingObjects: RandomAccessCollection {
    public typealias Index = Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// An iterator over the objects linking here when iteration begins (see
    /// `Results.makeIterator`): deleting each one in the loop deletes them all.
    public func makeIterator() -> RLMIterator<Element> {
        guard let results else { return RLMIterator(elements: recordingElement.map { [$0] } ?? []) }
        return RLMIterator(results)
    }
}

extension LinkingObjects: Equatable {
    public static func == (lhs: LinkingObjects, rhs: LinkingObjects) -> Bool {
        lhs.propertyName == rhs.propertyName && lhs.results == rhs.results
    }
}

extension LinkingObjects: CustomStringConvertible, FiefNestedDescription {
    /// `LinkingObjects<Person> <0x...> (\n\t[0] Person {...}\n)` in
    /// RealmSwift's layout (see `Results.description`); an unmanaged one has
    /// no objects.
    public var description: String {
        if let results { return results.fiefDescription(named: "LinkingObjects") }
        return FiefDescriptionDepth.nested {
            fiefCollectionDescription(header: "LinkingObjects<\(Element.className())> <0x0>", entries: [], count: 0)
        }
    }
}

extension LinkingObjects: RealmCollection, ThreadConfined {}

extension LinkingObjects: FiefKeyPathRecordable {
    /// One recording element (what `first` and `[0]` read), so that
    /// `\Person.clubs.first?.name` records `clubs.name`.
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> LinkingObjects {
        var recording = LinkingObjects(propertyName: "", results: nil)
        recording.recordingElement = Element.fiefRecordingValue(recorder)
        return recording
    }
}

/// Linking objects are declared with `@Persisted(originProperty:)` but never
/// stored: schema discovery leaves them out, and reading one asks the realm.
public protocol _FiefLinkingObjects {
    static func _fiefLinkingObjects(of owner: ObjectBase, propertyName: String) -> Self
    /// The class whose objects link here (the element type).
    static var _fiefOriginType: ObjectBase.Type { get }
}

extension LinkingObjects: _FiefLinkingObjects, _Persistable {
    public static var _fiefOriginType: ObjectBase.Type { Element.self }
    public static func _fiefLinkingObjects(of owner: ObjectBase, propertyName: String) -> LinkingObjects {
        of(owner, propertyName: propertyName)
    }
    public static var _fiefType: fief_type_t { FIEF_TYPE_NULL }
    public static func _fiefDefault() -> LinkingObjects { LinkingObjects(propertyName: "", results: nil) }
    public static func _fiefRead(_ value: fief_value_t) -> LinkingObjects? { nil }
    public func _fiefValue(in arena: _FiefArena) -> fief_value_t { .null }
}

extension Persisted where Value: _FiefLinkingObjects {
    /// Linking objects: the objects of the element type whose property
    /// `originProperty` links to this object.
    public init(originProperty: String) {
        self.init(storage: .linkingOrigin(originProperty), indexed: false, primaryKey: false)
    }
}
