import CFief

/// How `Results` read their elements, chosen once when the results are
/// made: the objects of a class (`ObjectElements`), or the values of a
/// managed list, set or map (`ValueElements`).  Everything else results do
/// (counting, chaining filters and sorts, freezing, aggregates) is the same
/// for both and written once in `Results`.
protocol ResultsElements {
    /// The class of the objects; nil for values.
    var binding: ClassBinding? { get }
    /// What messages call the results: the class, or the collection of values.
    var name: String { get }
    /// What the trap for a predicate that does not fit names ("class 'Dog'").
    var predicateSubject: String { get }
    /// `predicate` and its arguments with properties by their stored names
    /// (`propertiesMapping()`).
    func stored(_ predicate: String, _ arguments: [Any]) -> (predicate: String, arguments: [Any])
    /// `keyPath` with properties by their stored names.
    func storedPath(_ keyPath: String) -> String
    /// The element at `position`; traps when out of bounds.
    func element<Element: RealmCollectionValue>(at position: Int, of results: Results<Element>) -> Element
    /// The position of `element` in `results`, or nil.
    func index<Element: RealmCollectionValue>(of element: Element, in results: Results<Element>) -> Int?
    /// The property key an aggregate of `property` reads ("self" for
    /// values); traps, as RealmSwift does, for an unknown property.
    func aggregatedKey(_ property: String) -> fief_property_key_t
    /// The first of `keyPaths` naming a property the schema lacks, and
    /// that property as 'Class.name'; nil when there is none (or for values).
    func missingProperty(in keyPaths: [String], core: RealmCore) -> (keyPath: String, property: String)?
    /// The elements at `positions` (every one when nil), as iteration
    /// reads them: taken now.
    func snapshot<Element: RealmCollectionValue>(of results: Results<Element>, positions: [Int]?) -> ResultsSnapshot<Element>
    /// The element type as descriptions name it (`Dog`, `int`).
    func elementName<Element>(_ type: Element.Type) -> String
    /// An element as descriptions show it: the object (a projection's
    /// root), or the value.
    func described<Element: RealmCollectionValue>(_ element: Element) -> Any?
}

/// What iterating results reads, taken when the iteration begins: the
/// values themselves, or the objects' keys (each object fetched when the
/// iteration reaches it, one deleted meanwhile skipped, as RealmSwift
/// enumerates a snapshot).
struct ResultsSnapshot<Element: RealmCollectionValue> {
    private enum Taken {
        case values([Element])
        case objects([fief_object_key_t], core: RealmCore, binding: ClassBinding)
    }

    private let taken: Taken
    private var position = 0

    static func values(_ values: [Element]) -> ResultsSnapshot { ResultsSnapshot(taken: .values(values)) }

    static func objects(_ keys: [fief_object_key_t], core: RealmCore, binding: ClassBinding) -> ResultsSnapshot {
        ResultsSnapshot(taken: .objects(keys, core: core, binding: binding))
    }

    private init(taken: Taken) { self.taken = taken }

    mutating func next() -> Element? {
        switch taken {
        case .values(let values):
            guard position < values.count else { return nil }
            position += 1
            return values[position - 1]
        case .objects(let keys, let core, let binding):
            while position < keys.count {
                let key = keys[position]
                position += 1
                if let raw = fief_object_get(core.handle.raw, binding.classKey, key) {
                    return Results<Element>.element(for: core.makeObject(binding.info.type, handle: raw, binding: binding))
                }
            }
            return nil
        }
    }
}

/// The elements of results of objects: objects of one class (or
/// projections of them), read by key.
struct ObjectElements: ResultsElements {
    let classBinding: ClassBinding

    var binding: ClassBinding? { classBinding }
    var name: String { classBinding.info.className }
    var predicateSubject: String { "class '\(name)'" }

    func stored(_ predicate: String, _ arguments: [Any]) -> (predicate: String, arguments: [Any]) {
        (classBinding.info.storedQuery(predicate), classBinding.info.storedQueryArguments(predicate, arguments))
    }

    func storedPath(_ keyPath: String) -> String { classBinding.info.storedPath(keyPath) }

    func element<Element: RealmCollectionValue>(at position: Int, of results: Results<Element>) -> Element {
        guard let raw = fief_results_get_object(results.handle.raw, position) else {
            let error = CError.last()
            if error.code == FIEF_ERR_INDEX_OUT_OF_BOUNDS {
                fiefTrapIndex(position, count: results.count)
            }
            fiefTrap("Cannot read \(name) results", error)
        }
        return Results<Element>.element(for: results.core.makeObject(classBinding.info.type, handle: raw, binding: classBinding))
    }

    func index<Element: RealmCollectionValue>(of element: Element, in results: Results<Element>) -> Int? {
        guard let managed = Results<Element>.object(of: element)?._fiefManaged else { return nil }
        var index = 0
        var found = false
        guard fief_results_index_of_object(results.handle.raw, managed.handle.raw, &index, &found) else {
            let error = CError.last()
            if error.code == FIEF_ERR_INVALIDATED_OBJECT { return nil }
            fiefTrap("Cannot look up an object in \(name) results", error)
        }
        return found ? index : nil
    }

    func aggregatedKey(_ property: String) -> fief_property_key_t {
        guard let index = classBinding.info.propertyIndex[property] else {
            preconditionFailure("Invalid property name '\(property)' for class '\(name)'")
        }
        return classBinding.propertyKeys[index]
    }

    func missingProperty(in keyPaths: [String], core: RealmCore) -> (keyPath: String, property: String)? {
        let schema = Realm(core: core).schema
        for keyPath in keyPaths {
            var className = name
            for step in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                guard let objectSchema = schema[className] else { break }
                guard let property = objectSchema[step] else { return (keyPath, "\(className).\(step)") }
                guard let target = property.objectClassName else { break }
                className = target
            }
        }
        return nil
    }

    /// The keys of the objects at `positions` (every object when nil),
    /// read 1,024 a call (fief_results_get_keys) over the range the
    /// positions span.
    func snapshot<Element: RealmCollectionValue>(of results: Results<Element>, positions: [Int]?) -> ResultsSnapshot<Element> {
        let start = positions.map { $0.min() ?? 0 } ?? 0
        let end = positions.map { ($0.max() ?? -1) + 1 } ?? Int.max
        var keys: [fief_object_key_t] = []
        if end > start {
            var batch = [fief_object_key_t](repeating: 0, count: Swift.min(1024, end - start))
            while keys.count < end - start {
                var read = 0
                let from = start + keys.count
                let wanted = Swift.min(batch.count, end - from)
                fiefCheck(batch.withUnsafeMutableBufferPointer { fief_results_get_keys(results.handle.raw, from, wanted, $0.baseAddress, &read) },
                          "Cannot iterate \(name) results")
                keys.append(contentsOf: batch[0..<read])
                if read < wanted { break }
            }
        }
        if let positions {
            keys = positions.compactMap { $0 - start < keys.count ? keys[$0 - start] : nil }
        }
        return .objects(keys, core: results.core, binding: classBinding)
    }

    func elementName<Element>(_ type: Element.Type) -> String { name }

    func described<Element: RealmCollectionValue>(_ element: Element) -> Any? { Results<Element>.object(of: element) }
}

/// The elements of results of values: the values of a managed list, set or
/// map (or of a collection nested in a mixed value), named `name` in messages.
struct ValueElements: ResultsElements {
    let name: String

    var binding: ClassBinding? { nil }
    var predicateSubject: String { name }

    func stored(_ predicate: String, _ arguments: [Any]) -> (predicate: String, arguments: [Any]) { (predicate, arguments) }

    func storedPath(_ keyPath: String) -> String { keyPath }

    /// The element type as a persistable type.
    private func valueType<Element>(_ type: Element.Type) -> any _Persistable.Type {
        guard let type = Element.self as? any _Persistable.Type else {
            preconditionFailure("\(Element.self) cannot be read from results of values")
        }
        return type
    }

    func element<Element: RealmCollectionValue>(at position: Int, of results: Results<Element>) -> Element {
        var value = fief_value_t()
        guard position >= 0, fief_results_get_value(results.handle.raw, position, &value) else {
            let error = position < 0 ? CError.indexOutOfBounds : CError.last()
            if error.code == FIEF_ERR_INDEX_OUT_OF_BOUNDS {
                fiefTrapIndex(position, count: results.count)
            }
            fiefTrap("Cannot read the values of \(name)", error)
        }
        guard let element = valueType(Element.self)._fiefReadElement(value, in: Realm(core: results.core), as: Element.self) else {
            preconditionFailure("\(name) holds a value of type \(value.type) that does not convert to \(Element.self)")
        }
        return element
    }

    func index<Element: RealmCollectionValue>(of element: Element, in results: Results<Element>) -> Int? {
        let arena = _FiefArena()
        let value = valueType(Element.self)._fiefElementLookupValue(element, in: arena)
        var index = 0
        var found = false
        let ok = withExtendedLifetime(arena) { fief_results_index_of_value(results.handle.raw, value, &index, &found) }
        if !ok { fiefTrap("Cannot look up a value in \(name)", CError.last()) }
        return found ? index : nil
    }

    func aggregatedKey(_ property: String) -> fief_property_key_t {
        if property != "self" {
            preconditionFailure("Invalid property name '\(property)' for \(name): results of values aggregate 'self'")
        }
        return 0
    }

    func missingProperty(in keyPaths: [String], core: RealmCore) -> (keyPath: String, property: String)? { nil }

    /// The values at `positions` (every one when nil), read now.
    func snapshot<Element: RealmCollectionValue>(of results: Results<Element>, positions: [Int]?) -> ResultsSnapshot<Element> {
        .values((positions ?? Array(0..<results.count)).map { element(at: $0, of: results) })
    }

    func elementName<Element>(_ type: Element.Type) -> String {
        (Element.self as? any _Persistable.Type).map(fiefRealmTypeName) ?? "\(Element.self)"
    }

    func described<Element: RealmCollectionValue>(_ element: Element) -> Any? { element }
}
