import FiefStorage

// Key-path filters of object notifiers (docs/design.md, "Notifications",
// key paths).  Kept minimal and private to object notifiers until the
// results notifiers' resolver is on main; then this should use it.

/// The properties an object notifier observes, per level: the columns of
/// one class, and for those a key path goes through (links and collections
/// of objects), what is observed in the objects they reach.
public struct ObservedProperties: Equatable, Sendable {
    /// The class these columns belong to.
    public var classKey: UInt32
    /// The observed columns of this level (those gone through included).
    public var columns: Set<UInt32> = []
    /// Per column gone through: what is observed in the objects it reaches.
    public var through: [UInt32: ObservedProperties] = [:]

    public init(classKey: UInt32) { self.classKey = classKey }

    /// The filter of `keyPaths` ("name", "dog.name", "toys", "*", "toys.*")
    /// on class `classKey` of `schema`.  A component that names no
    /// property, or goes through a property that reaches no objects, is
    /// `.noSuchProperty`, naming it and its class as RealmSwift does.
    public static func resolve(_ keyPaths: [String], classKey: UInt32, schema: Schema) throws(FiefError) -> ObservedProperties {
        guard let root = schema.objectClass(key: classKey) else {
            throw FiefError(.noSuchClass, "there is no class with key \(classKey)")
        }
        var result = ObservedProperties(classKey: classKey)
        for path in keyPaths {
            let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if path.isEmpty || components.contains(where: \.isEmpty) {
                throw FiefError(.noSuchProperty, "key path '\(path)' is empty or has an empty component")
            }
            try result.add(components[...], in: root, schema: schema)
        }
        return result
    }

    private mutating func add(_ components: ArraySlice<String>, in objectClass: ObjectClass, schema: Schema) throws(FiefError) {
        guard let name = components.first else { return }
        let rest = components.dropFirst()
        let properties: [Property]
        if name == "*" {
            properties = objectClass.properties
        } else {
            guard let property = objectClass.property(named: name) else {
                throw FiefError(.noSuchProperty, "property '\(name)' not found in object of type '\(objectClass.name)'")
            }
            properties = [property]
        }
        for property in properties {
            columns.insert(property.key)
            if rest.isEmpty { continue }
            guard property.type == .link, let targetName = property.linkTarget, let target = schema.objectClass(named: targetName) else {
                // "*" in the middle goes through the properties that reach objects only.
                if name == "*" { continue }
                throw FiefError(.noSuchProperty, "property '\(name)' of '\(objectClass.name)' does not reach objects, so key path component '\(rest.first!)' names nothing")
            }
            var next = through[property.key] ?? ObservedProperties(classKey: target.key)
            try next.add(rest, in: target, schema: schema)
            through[property.key] = next
        }
    }
}
