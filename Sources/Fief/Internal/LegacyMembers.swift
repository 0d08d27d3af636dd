// Legacy `let` members of model classes, persisted as RealmSwift persists
// them: `let dogs = List<Dog>()`, `let tags = MutableSet<String>()`,
// `let scores = Map<String, Int>()` (and `let age = RealmProperty<Int?>()`,
// RealmProperty.swift).  Each is a property named as the `let`, of the
// collection's kind; the instance the object holds becomes live when the
// object is managed (bound through the class's field table, as a
// `@Persisted` collection's instance is), and a key path ending at one
// (`\Person.dogs`, `\Dog.age`) names it, as RealmSwift's recorder does.

/// A `let` member whose storage is an object of its own: the key-path
/// recorder finds its name by identity (`KeyPathRecorder.legacyMembers`).
protocol FiefLegacyMember: AnyObject {}

extension RealmProperty: FiefLegacyMember {}
extension RealmOptional: FiefLegacyMember {}

/// A collection held directly by an object (not through `@Persisted`): what
/// schema discovery and the field table need of it.
protocol FiefLegacyCollection: FiefLegacyMember, FiefCollectionProtocol, DiscoverablePersisted, FiefFieldAccessor, _Persistable {}

extension FiefLegacyCollection {
    // DiscoverablePersisted: a plain property of the collection's kind.
    static var fiefValueType: any _Persistable.Type { Self.self }
    var isIndexed: Bool { false }
    var isPrimaryKey: Bool { false }
    var isFullTextIndexed: Bool { false }
    var isProbe: Bool { false }
    var unmanagedValue: any _Persistable { self }
    func fiefLinkingObjects(of owner: ObjectBase) -> Any? { nil }

    // FiefFieldAccessor: the field holds a reference to the collection.
    static func fiefAssign(_ any: Any?, at address: UnsafeMutableRawPointer) -> Bool {
        guard let value = Self._fiefFromAny(any) else { return false }
        address.assumingMemoryBound(to: Self.self).pointee.fiefAssign(from: value)
        return true
    }

    /// The same instance becomes live (RealmSwift's promotion).
    static func fiefBind(at address: UnsafeMutableRawPointer, index: Int, row: ManagedRow) {
        address.assumingMemoryBound(to: Self.self).pointee.fiefAttach(to: row, index: index)
    }

    static func fiefProbe(at address: UnsafeMutableRawPointer, in object: ObjectBase, label: String) -> Bool {
        fiefFieldHoldsMember(address.assumingMemoryBound(to: Self.self).pointee, in: object, label: label)
    }
}

extension List: FiefLegacyCollection {}
extension MutableSet: FiefLegacyCollection {}
extension Map: FiefLegacyCollection {}

/// Whether `member` is what `object`'s field `label` holds (Mirror, the
/// object's class and superclasses).
func fiefFieldHoldsMember(_ member: AnyObject, in object: ObjectBase, label: String) -> Bool {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        if let child = current.children.first(where: { $0.label == label }) {
            return (child.value as AnyObject) === member
        }
        mirror = current.superclassMirror
    }
    return false
}

extension KeyPathRecorder {
    /// Notes the legacy members of `object`, a recording instance, by name:
    /// a key path that ends at one records its name.
    func noteLegacyMembers(of object: ObjectBase) {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, let member = child.value as? FiefLegacyMember else { continue }
                legacyMembers.append((member, label))
            }
            mirror = current.superclassMirror
        }
    }

    /// Records the legacy member `value` is, if it is one of a recording
    /// instance (`\Person.dogs` for `let dogs = List<Dog>()`).
    func recordLegacyMember(_ value: Any?) {
        guard let member = fiefUnwrap(value) as? FiefLegacyMember,
              let name = legacyMembers.first(where: { $0.member === member })?.name else { return }
        record(name)
    }
}
