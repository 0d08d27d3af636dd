// Class projections (RealmSwift's `Projection<Root>` and `@Projected`): a
// light view model over one object, whose properties are key paths of the
// object.
//
//     class PersonProjection: Projection<Person> {
//         @Projected(\Person.firstName) var firstName
//         @Projected(\Person.address?.city) var homeCity
//         @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
//     }
//
// A projection holds its root object and nothing else: every read evaluates
// the property's key path on the root (so it is as live as the root, and a
// key path may end in computed properties such as `localizedUppercase`),
// and every write assigns through the key path on the root, so it needs a
// write transaction exactly as writing the root does.
//
// The projection's schema (which properties are `@Projected`, and which
// persisted property each key path starts from, `address.city` for
// `\Person.address?.city`) is read once per projection class with Mirror
// and the key-path recorder (`fiefKeyPathString`), and cached; it serves
// `description` and `_name(for:)`, and building it when the first
// projection of a class is made reports a key path that reads no persisted
// property at that moment, as RealmSwift does.
//
// `realm.objects(PersonProjection.self)` gives the root class's results:
// filters and sorts name the root's properties, and each element read is
// wrapped in a new projection (`Results.element(for:)` below).
//
// `observe` watches the root object for the projected properties' origin
// paths and reports changes by projected property (ObjectNotifications.swift
// does the observing).

import Foundation

// MARK: - @Projected

/// A `@Projected` wrapper with its value type erased: what the projection
/// schema reads through Mirror.
private protocol AnyProjected {
    var projectedKeyPath: AnyKeyPath { get }
}

/// Declares a property of a `Projection` as a key path of its root object.
///
///     class PersonProjection: Projection<Person> {
///         @Projected(\Person.firstName) var firstName                    // passthrough
///         @Projected(\Person.lastName) var surname                       // rename
///         @Projected(\Person.lastName.localizedUppercase) var lastNameCaps // computed from a property
///         @Projected(\Person.address?.city) var homeCity                 // through an embedded object or link
///         @Projected(\Person.friends.projectTo.firstName)                  // collection mapping
///         var friendsFirstNames: ProjectedCollection<String>
///     }
///
/// Reading the property reads `rootObject[keyPath:]` now, so it always shows
/// the root's current values.  Setting it assigns through the key path on
/// the root (in a write transaction, for a managed root); a key path that
/// is not writable (a computed property, optional chaining, `projectTo`)
/// traps when set, as in RealmSwift.
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: AnyProjected {
    /// The key path of the root object this property shows.
    let keyPath: KeyPath<T, Value>

    fileprivate var projectedKeyPath: AnyKeyPath { keyPath }

    /// Unavailable: `@Projected` only works on properties of `Projection`
    /// subclasses, where the compiler uses the `_enclosingInstance`
    /// subscript instead.
    @available(*, unavailable, message: "@Projected can only be used as a property of a Projection")
    public var wrappedValue: Value {
        get { fatalError("@Projected can only be used as a property of a Projection") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Projected can only be used as a property of a Projection") }
    }

    /// A property showing `projectedKeyPath` of the projection's root object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        keyPath = projectedKeyPath
    }

    /// The accessor the compiler calls for `projection.property`: the value
    /// at the key path of the root object; setting writes it there.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath]
        }
        set {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
                let label = projection.projectionProperties.first { $0.keyPath == keyPath }?.label ?? "\(keyPath)"
                preconditionFailure("Cannot set '\(label)' of '\(type(of: projection))': its key path \(keyPath) is not writable (it reads a computed property, goes through an optional with '?' or maps a collection with projectTo)")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}

// MARK: - Projection

/// A projection's interface, independent of its class (RealmSwift's
/// `ProjectionObservable`).
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the projected objects: an `Object` or `EmbeddedObject` subclass.
    associatedtype Root: ObjectBase
    /// The object this projection shows.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// A light view model of one `Object` or `EmbeddedObject` (RealmSwift's
/// `Projection`): subclass it and declare `@Projected` properties, each a
/// key path of the root class.
///
///     class PersonProjection: Projection<Person> {
///         @Projected(\Person.firstName) var firstName
///         @Projected(\Person.address?.city) var homeCity
///     }
///
///     let people = realm.objects(PersonProjection.self)   // Results<PersonProjection>
///     let one = PersonProjection(projecting: person)
///
/// A projection keeps only its root object.  Properties of the root that it
/// does not declare are left out of it (exclusion); `rootObject` still
/// reaches them.  One object may have any number of projections, of one
/// class or of several.
///
/// Two projections are equal when they show the same object: the same
/// instance, or the same row of the same realm (live, or frozen at the same
/// version), as RealmSwift's `==` on projections.
open class Projection<Root: ObjectBase & RealmCollectionValue & ThreadConfined>: RealmCollectionValue, ProjectionObservable, CustomStringConvertible {
    /// The type the projection stands for in a realm: its root class.
    public typealias PersistedType = Root

    /// The object being projected.
    public let rootObject: Root

    /// A projection of `object`, managed or not.  The projection class's
    /// schema is built now if it is the class's first projection: traps, as
    /// RealmSwift does, for a `@Projected` key path that reads no persisted
    /// property of the root class.
    public required init(projecting object: Root) {
        rootObject = object
        _ = projectionProperties
    }

    /// Whether both show the same object: the same instance, or the same
    /// row of the same realm, both still valid.
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        if lhs.rootObject === rhs.rootObject { return true }
        guard let left = lhs.rootObject._fiefManaged, let right = rhs.rootObject._fiefManaged else { return false }
        return left.core === right.core && left.binding.classKey == right.binding.classKey
            && left.objectKey == right.objectKey && left.isValid && right.isValid
    }

    /// Hashes the object shown: its row when managed (equal projections
    /// hash alike), the instance otherwise.
    public func hash(into hasher: inout Hasher) {
        if let managed = rootObject._fiefManaged {
            hasher.combine(managed.binding.classKey)
            hasher.combine(managed.objectKey)
        } else {
            hasher.combine(ObjectIdentifier(rootObject))
        }
    }

    /// The projection class, the root class, and every projected property
    /// with the property path it reads and its value:
    ///
    ///     PersonProjection<Person> <0x…> {
    ///         firstName(\.firstName) = John;
    ///         homeCity(\.address.city) = Optional("Winterfell");
    ///     }
    ///
    /// "[invalid object]" once the root is deleted or invalidated.
    open var description: String {
        if rootObject.isInvalidated { return "[invalid object]" }
        let address = Unmanaged.passUnretained(rootObject).toOpaque()
        let lines = projectionProperties.map { property in
            let value = rootObject[keyPath: property.keyPath].map { String(describing: $0) } ?? "nil"
            return "\t\(property.label)(\\.\(property.originPath)) = \(value);"
        }
        return "\(type(of: self))<\(type(of: rootObject))> <\(address)> {\n" + lines.joined(separator: "\n") + "\n}"
    }

    /// The `@Projected` properties of this projection's class (cached per class).
    fileprivate var projectionProperties: [ProjectionProperty] {
        ProjectionSchema.properties(of: self)
    }
}

extension Projection: RealmFetchable, KeypathSortable {}

// ThreadConfined (through ProjectionObservable).
extension Projection {
    /// The realm of the root object; nil if it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the root object was deleted, or its realm invalidated, so
    /// that the projection can no longer be read.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// Whether the root object is a frozen snapshot.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// A projection of a frozen copy of the root object (`Object.freeze()`),
    /// readable from any thread and never changing.  Traps, as RealmSwift
    /// does, for an unmanaged, deleted or invalidated root.
    public func freeze() -> Self {
        Self(projecting: rootObject.freeze())
    }

    /// A projection of the live object for this frozen one, or nil if it
    /// was deleted since; a live projection returns a projection of the same
    /// object.
    public func thaw() -> Self? {
        rootObject.thaw().map { Self(projecting: $0) }
    }
}

/// The query-language path of a key path of a projection: the path of the
/// root object's properties its `@Projected` property reads
/// (`_name(for: \PersonProjection.homeCity)` is `"address.city"`).  Traps,
/// as RealmSwift does, for a key path that reads no projected property.
public func _name<O: ObjectBase, T>(for keyPath: PartialKeyPath<T>) -> String where T: Projection<O> {
    let recorder = KeyPathRecorder()
    let root = O.fiefRecordingValue(recorder)
    _ = T(projecting: root)[keyPath: keyPath]
    guard !recorder.names.isEmpty else {
        preconditionFailure("A key path of '\(T.self)' (\(keyPath)) reads no @Projected property")
    }
    return recorder.names.joined(separator: ".")
}

// MARK: - Projection schema

/// One `@Projected` property of a projection class.
private struct ProjectionProperty {
    /// The property's name in the projection (`homeCity`).
    let label: String
    /// The key path of the root it shows (`\Person.address?.city`).
    let keyPath: AnyKeyPath
    /// The persisted properties that key path reads (`address.city`).
    let originPath: String
}

/// The `@Projected` properties of each projection class, found once with
/// Mirror (superclasses first) and kept.
private enum ProjectionSchema {
    static let cache = Locked<[ObjectIdentifier: [ProjectionProperty]]>([:])

    static func properties<Root>(of projection: Projection<Root>) -> [ProjectionProperty] {
        let projectionClass = ObjectIdentifier(type(of: projection))
        if let properties = cache.withLock({ $0[projectionClass] }) { return properties }
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [ProjectionProperty] = []
        for child in mirrors.flatMap(\.children) {
            guard let projected = child.value as? AnyProjected, let label = child.label else { continue }
            // The wrapper's storage is `_name`; the property is `name`.
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            properties.append(ProjectionProperty(label: name, keyPath: projected.projectedKeyPath,
                                                 originPath: fiefKeyPathString(projected.projectedKeyPath, of: Root.self)))
        }
        cache.withLock { $0[projectionClass] = properties }
        return properties
    }
}

// MARK: - Results of projections

/// What `Realm.objects(_:)` and `Results` need of a projection class they
/// meet as an element type.
protocol FiefProjectionType {
    /// The class of the objects the projections show.
    static var fiefRootType: ObjectBase.Type { get }
    /// A projection of `object`, an instance of `fiefRootType`.
    static func fiefProjection(of object: ObjectBase) -> Self
    /// The object this projection shows.
    var fiefRootObject: ObjectBase { get }
}

extension Projection: FiefProjectionType {
    static var fiefRootType: ObjectBase.Type { Root.self }

    static func fiefProjection(of object: ObjectBase) -> Self {
        Self(projecting: object as! Root)
    }

    var fiefRootObject: ObjectBase { rootObject }
}

extension Results {
    /// The element of results of objects that stands for `object`: the
    /// object itself, or, for results of projections
    /// (`realm.objects(PersonProjection.self)`), a new projection of it.
    static func element(for object: ObjectBase) -> Element {
        if let element = object as? Element { return element }
        guard let projection = Element.self as? any FiefProjectionType.Type else {
            preconditionFailure("\(type(of: object)) read from results of \(Element.self)")
        }
        return projection.fiefProjection(of: object) as! Element
    }

    /// The object an element of results of objects stands for: itself, or
    /// the root object of a projection; nil for other values.
    static func object(of element: Element) -> ObjectBase? {
        (element as? ObjectBase) ?? (element as? any FiefProjectionType)?.fiefRootObject
    }
}

// MARK: - Collection mapping

/// A live read of one property of every object of a list or set, in the
/// collection's order (RealmSwift's `ProjectedCollection`); made by
/// `projectTo` in a `@Projected` key path, never directly:
///
///     class PersonProjection: Projection<Person> {
///         @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
///     }
///
/// Each read goes to the collection now: after a friend is added or renamed
/// (and committed), the names show it.  Setting an element sets that
/// property of the object at that position (in a write transaction), when
/// the mapped key path is writable.  Elements are not deduplicated: a set
/// of friends may map to the same name twice.
public struct ProjectedCollection<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible, ThreadConfined {
    public typealias Index = Int

    private let source: any ProjectedCollectionSource<Element>

    fileprivate init(source: any ProjectedCollectionSource<Element>) {
        self.source = source
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { source.count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The number of objects in the collection.
    public var count: Int { source.count }

    /// The mapped property of the object at `position` (get), or sets that
    /// property of that object (set; in a write transaction).  Traps when
    /// out of bounds, and when setting through a key path that is not
    /// writable (a computed property).
    public subscript(position: Int) -> Element {
        get { source.element(at: position) }
        nonmutating set { source.setElement(newValue, at: position) }
    }

    /// The position of the first object whose mapped property is `element`, or nil.
    public func index(of element: Element) -> Int? {
        firstIndex(of: element)
    }

    /// The position of the first object of the collection that matches a
    /// predicate on the objects' properties (see `Results.filter`), or nil.
    /// Traps for an unmanaged collection, as filtering one does.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        source.firstIndex(matching: predicateFormat, args)
    }

    /// The realm of the underlying collection; nil if it is unmanaged.
    public var realm: Realm? { source.realm }

    /// Whether the underlying collection can no longer be read (its object
    /// was deleted, or its realm invalidated).
    public var isInvalidated: Bool { source.isInvalidated }

    /// Whether the underlying collection is frozen.
    public var isFrozen: Bool { source.isFrozen }

    /// The same mapping over a frozen copy of the collection.  Traps for an
    /// unmanaged collection, as freezing it does.
    public func freeze() -> ProjectedCollection {
        ProjectedCollection(source: source.frozen())
    }

    /// The same mapping over the live collection, or nil if its object was
    /// deleted since it was frozen.
    public func thaw() -> ProjectedCollection? {
        source.thawed().map { ProjectedCollection(source: $0) }
    }

    /// `ProjectedCollection<String> {` then one `[i] value` line per element, then `}`.
    public var description: String {
        var lines = ["ProjectedCollection<\(Element.self)> {"]
        for (position, element) in enumerated() {
            lines.append("\t[\(position)] \(element)")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}

/// What `ProjectedCollection` reads: a collection of objects and a key path
/// of their class, with the object type erased.
private protocol ProjectedCollectionSource<Element> {
    associatedtype Element
    var count: Int { get }
    func element(at position: Int) -> Element
    func setElement(_ value: Element, at position: Int)
    func firstIndex(matching predicateFormat: String, _ args: [Any]) -> Int?
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    var isFrozen: Bool { get }
    func frozen() -> Self
    func thawed() -> Self?
}

/// The objects of a list or set, each read through one key path.
private struct MappedObjects<Object: ObjectBase & RealmCollectionValue, Element>: ProjectedCollectionSource {
    let objects: AnyRealmCollection<Object>
    let keyPath: KeyPath<Object, Element>

    var count: Int { objects.count }

    func element(at position: Int) -> Element {
        objects[position][keyPath: keyPath]
    }

    func setElement(_ value: Element, at position: Int) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Object, Element> else {
            preconditionFailure("Cannot set an element of a ProjectedCollection: its key path \(keyPath) is not writable")
        }
        objects[position][keyPath: writable] = value
    }

    func firstIndex(matching predicateFormat: String, _ args: [Any]) -> Int? {
        let matching = objects.box.results("filter").filter(predicateFormat, arguments: args)
        return matching.first.flatMap { objects.index(of: $0) }
    }

    var realm: Realm? { objects.realm }
    var isInvalidated: Bool { objects.isInvalidated }
    var isFrozen: Bool { objects.isFrozen }

    func frozen() -> MappedObjects {
        MappedObjects(objects: objects.freeze(), keyPath: keyPath)
    }

    func thawed() -> MappedObjects? {
        objects.thaw().map { MappedObjects(objects: $0, keyPath: keyPath) }
    }
}

/// The step between a collection of objects and a key path of their class
/// in a `@Projected` key path (RealmSwift's `CollectionElementMapper`):
/// `\Person.friends.projectTo.firstName` is a `ProjectedCollection<String>`.
@dynamicMemberLookup
public struct CollectionElementMapper<Element> where Element: ObjectBase & RealmCollectionValue {
    let objects: AnyRealmCollection<Element>

    /// The collection's objects, each read through `member`.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(source: MappedObjects(objects: objects, keyPath: member))
    }
}

extension List where Element: ObjectBase & RealmCollectionValue {
    /// The list's objects mapped through a key path, for `@Projected`:
    /// `@Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>`.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(objects: AnyRealmCollection(self))
    }
}

extension MutableSet where Element: ObjectBase & RealmCollectionValue {
    /// The set's objects mapped through a key path, for `@Projected`
    /// (the mapped values may repeat: a ProjectedCollection is not a set).
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(objects: AnyRealmCollection(self))
    }
}

// MARK: - Notifications

/// What `ProjectionObservable.observe` needs of a projection's class.
private protocol FiefProjectedProperties {
    var fiefProjectedProperties: [ProjectionProperty] { get }
}

extension Projection: FiefProjectedProperties {
    fileprivate var fiefProjectedProperties: [ProjectionProperty] { ProjectionSchema.properties(of: self) }
}

extension ProjectionObservable {
    /// Calls `block` after each commit that deletes the root object or
    /// changes what a projected property reads (RealmSwift's
    /// `Projection.observe`): the root is observed with the origin paths of
    /// the projected properties (those of `keyPaths`, origin paths such as
    /// `"address.city"`, when given), and each changed root property is
    /// reported as every projected property whose path starts with it, by
    /// its projected name, with the values read through its key path (old
    /// ones from an unmanaged copy of the root holding the old values, when
    /// the commit came from elsewhere).  With `queue`, on that queue with a
    /// projection of the queue's own object.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let schema = (self as? FiefProjectedProperties)?.fiefProjectedProperties ?? []
        var paths = schema.map(\.originPath)
        let filter = keyPaths.flatMap { $0.isEmpty ? nil : $0 }
        if let filter { paths = paths.filter { filter.contains($0) } }
        var projection: Self? = queue == nil ? self : nil
        return rootObject._fiefObserve(keyPaths: paths, on: queue) { (change: ObjectChange<Root>) in
            switch change {
            case .deleted:
                block(.deleted)
            case .error(let error):
                block(.error(error))
            case .change(let object, let properties):
                if projection == nil { projection = Self(projecting: object) }
                var oldRoot: Root?
                if properties.contains(where: { $0.oldValue != nil }) {
                    let root = Root()
                    for property in properties { if let old = property.oldValue { root.setValue(old, forKey: property.name) } }
                    oldRoot = root
                }
                var projected: [PropertyChange] = []
                for property in properties {
                    for shown in schema where shown.originPath.split(separator: ".").first.map(String.init) == property.name
                        && (filter?.contains(shown.originPath) ?? true) {
                        let old: Any? = property.oldValue == nil ? nil : oldRoot?[keyPath: shown.keyPath]
                        projected.append(PropertyChange(name: shown.label, oldValue: old, newValue: object[keyPath: shown.keyPath]))
                    }
                }
                if !projected.isEmpty, let projection { block(.change(projection, projected)) }
            }
        }
    }

    /// As `observe(keyPaths:on:_:)`, with the key paths given as key paths
    /// of the projection (each names the origin path its property reads).
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let names = keyPaths.map { keyPath -> String in
            let recorder = KeyPathRecorder()
            _ = Self(projecting: Root.fiefRecordingValue(recorder))[keyPath: keyPath]
            guard !recorder.names.isEmpty else {
                preconditionFailure("A key path of '\(Self.self)' (\(keyPath)) reads no @Projected property")
            }
            return recorder.names.joined(separator: ".")
        }
        return observe(keyPaths: names, on: queue, block)
    }
}
