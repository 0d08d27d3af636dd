// Predicates over elements held in memory: `index(matching:)` on an
// unmanaged List, which RealmSwift evaluates element by element in memory.
// Fief has one query mechanism, the engine's: the elements are copied into
// a scratch in-memory realm of their own (dropped afterwards), queried
// there with `filter`, and the first element whose copy matches is the
// answer.  Objects are copied with `create` (with what they link to,
// cycles included); embedded objects into a list of a holder class made for
// their class (`FiefScratchEmbeddedHolder<Element>`); values go into a list
// of mixed values on `FiefScratchValues`.  The scratch classes join no other
// schema (`FiefScratchClass`), and since a predicate over values sees only
// the value (`self`), the first element equal to the first match is the
// first element that matches.

import Foundation

/// A class only scratch realms hold.
protocol FiefScratchClass {}

/// The one class of a scratch realm for values.
final class FiefScratchValues: Object, FiefScratchClass {
    @Persisted var values: List<AnyRealmValue>
}

/// The top-level class of a scratch realm for embedded objects of class
/// `Element`: a list of them.
final class FiefScratchEmbeddedHolder<Element: EmbeddedObject>: Object, FiefScratchClass {
    @Persisted var items: List<Element>

    override class func _realmObjectName() -> String? { "FiefScratchHolder_" + Element.className() }

    /// The position of the first of `elements` matching the predicate, or nil.
    static func firstIndex(of elements: [EmbeddedObject], matching predicateFormat: String, _ args: [Any]) -> Int? {
        // The holder, the element class and the classes they link to.
        let realm = FiefScratchQuery.scratchRealm(withLinkTargets([ObjectSchemaInfo.of(FiefScratchEmbeddedHolder<Element>.self)]).map(\.type))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        // Created from the elements' values: the elements stay unmanaged.
        let holder = realm.create(FiefScratchEmbeddedHolder<Element>.self, value: ["items": elements])
        guard let first = holder.items.results("search").filter(predicateFormat, arguments: args).first else { return nil }
        return holder.items.index(of: first)
    }
}

extension EmbeddedObject {
    /// `FiefScratchEmbeddedHolder.firstIndex` for this class.
    class func _fiefScratchFirstIndex(of elements: [EmbeddedObject], matching predicateFormat: String, _ args: [Any]) -> Int? {
        FiefScratchEmbeddedHolder<Self>.firstIndex(of: elements, matching: predicateFormat, args)
    }
}

enum FiefScratchQuery {
    /// The position of the first of `elements` matching `predicateFormat`
    /// with `args` (see `Results.filter`), or nil.  Traps, as a filter does,
    /// for a predicate that does not parse or fit the elements.
    static func firstIndex<Element: RealmCollectionValue>(of elements: [Element], matching predicateFormat: String, _ args: [Any]) -> Int? {
        if elements.isEmpty { return nil }
        if Element.self is ObjectBase.Type, let candidates = selfComparison(predicateFormat, args) {
            return elements.firstIndex { element in candidates.contains { (element as! ObjectBase).isEqual($0) } }
        }
        if let objectType = Element.self as? Object.Type {
            return firstObject(elements.map { $0 as! Object }, objectType, predicateFormat, args)
        }
        if let embeddedType = Element.self as? EmbeddedObject.Type {
            return embeddedType._fiefScratchFirstIndex(of: elements.map { $0 as! EmbeddedObject }, matching: predicateFormat, args)
        }
        return firstValue(elements, predicateFormat, args)
    }

    /// For a predicate that compares the object itself with its argument
    /// (`SELF == %@`, `SELF IN %@`, `$0` for `%@`), which NSPredicate
    /// evaluates on RealmSwift's unmanaged lists with `isEqual:`: the
    /// objects an element must equal.  Nil for any other predicate (the
    /// query language has no `self` for objects: the library refuses it).
    private static func selfComparison(_ predicateFormat: String, _ args: [Any]) -> [ObjectBase]? {
        let words = predicateFormat.replacingOccurrences(of: "==", with: " == ")
            .split(whereSeparator: \.isWhitespace).map { $0.uppercased() }
        guard words.count == 3, words[0] == "SELF", ["==", "=", "IN"].contains(words[1]),
              words[2] == "%@" || words[2] == "$0", let argument = args.first else { return nil }
        let given = fiefUnwrap(argument)
        if words[1] == "IN" {
            guard let given, !(given is ObjectBase), !(given is String), let sequence = given as? any Sequence else { return nil }
            return fiefSequenceItems(sequence).compactMap { fiefUnwrap($0) as? ObjectBase }
        }
        if given == nil || given is NSNull { return [] }
        return (given as? ObjectBase).map { [$0] }
    }

    static func scratchRealm(_ objectTypes: [ObjectBase.Type]?) -> Realm {
        let configuration = Realm.Configuration(inMemoryIdentifier: "fief-scratch-\(UUID().uuidString)", objectTypes: objectTypes)
        do {
            return try Realm(configuration: configuration)
        } catch {
            preconditionFailure("Cannot open a scratch in-memory realm to search an unmanaged List: \(error)")
        }
    }

    private static func firstObject(_ objects: [Object], _ type: Object.Type, _ predicateFormat: String, _ args: [Any]) -> Int? {
        let realm = scratchRealm(nil)
        // Objects sharing a primary key (the same object twice) become one
        // copy, as adding them to a realm makes them.
        let update: Realm.UpdatePolicy = ObjectSchemaInfo.of(type).primaryKeyIndex == nil ? .error : .modified
        realm.beginWrite()
        defer { realm.cancelWrite() }
        // Copies: what they link to (maps and cycles too) is copied with
        // them, and the elements stay unmanaged.
        let copies = objects.map { realm.create(type, value: $0, update: update) }
        let matches = realm.objects(type).filter(predicateFormat, arguments: args)
        return copies.firstIndex { matches.index(of: $0) != nil }
    }

    private static func firstValue<Element: RealmCollectionValue>(_ elements: [Element], _ predicateFormat: String, _ args: [Any]) -> Int? {
        let values = elements.map { element -> AnyRealmValue in
            guard let value = AnyRealmValue._fiefFromAny(element) else {
                preconditionFailure("Cannot search an unmanaged List of \(Element.self): its values do not convert to mixed values")
            }
            return value
        }
        let realm = scratchRealm([FiefScratchValues.self])
        let holder = FiefScratchValues()
        holder.values.append(objectsIn: values)
        realm.beginWrite()
        realm.add(holder)
        let first = holder.values.results("search").filter(predicateFormat, arguments: args).first
        realm.cancelWrite()
        guard let first else { return nil }
        return values.firstIndex(of: first)
    }
}
