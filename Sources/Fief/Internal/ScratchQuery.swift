// Predicates over elements held in memory: `index(matching:)` on an
// unmanaged List, which RealmSwift evaluates element by element in memory.
// Fief has one query mechanism, the engine's: the elements are copied into
// a scratch in-memory realm of their own (dropped afterwards), queried
// there with `filter`, and the first element whose copy matches is the
// answer.  Objects are copied with `create` (their class and what it links
// to); values go into a list of mixed values on `FiefScratchValues`, a class
// only scratch realms hold, and since a predicate over values sees only the
// value (`self`), the first element equal to the first match is the first
// element that matches.

import Foundation

/// The one class of a scratch realm for values.
final class FiefScratchValues: Object {
    @Persisted var values: List<AnyRealmValue>
}

enum FiefScratchQuery {
    /// The position of the first of `elements` matching `predicateFormat`
    /// with `args` (see `Results.filter`), or nil.  Traps, as a filter does,
    /// for a predicate that does not parse or fit the elements.
    static func firstIndex<Element: RealmCollectionValue>(of elements: [Element], matching predicateFormat: String, _ args: [Any]) -> Int? {
        if elements.isEmpty { return nil }
        if let objectType = Element.self as? Object.Type {
            return firstObject(elements.map { $0 as! Object }, objectType, predicateFormat, args)
        }
        if Element.self is ObjectBase.Type {
            preconditionFailure("Cannot search an unmanaged List of embedded objects: add its owner to a realm first")
        }
        return firstValue(elements, predicateFormat, args)
    }

    private static func scratchRealm(_ objectTypes: [ObjectBase.Type]?) -> Realm {
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
        let copies = objects.map { object -> Object in
            var path: [ObjectIdentifier] = []
            return realm.create(type, value: detachedValue(object, path: &path), update: update)
        }
        let matches = realm.objects(type).filter(predicateFormat, arguments: args)
        return copies.firstIndex { matches.index(of: $0) != nil }
    }

    /// `object`'s values as `create(value:)` takes them, the unmanaged
    /// objects it links to as nested dictionaries, so that the copy leaves
    /// them all unmanaged.  A link back to an object already on the way is
    /// left out (nil, or out of its list), so cycles end; maps of links are
    /// left empty.
    private static func detachedValue(_ object: ObjectBase, path: inout [ObjectIdentifier]) -> [String: Any] {
        path.append(ObjectIdentifier(object))
        defer { path.removeLast() }
        var value: [String: Any] = [:]
        for property in ObjectSchema(info: ObjectSchemaInfo.of(type(of: object))).properties where property.type != .linkingObjects {
            let stored = fiefUnwrap(object.value(forKey: property.name))
            if property.type != .object {
                if let stored { value[property.name] = stored }
            } else if !property.isMap, let detached = detachedLinks(stored, &path) {
                value[property.name] = detached
            }
        }
        return value
    }

    private static func detachedLinks(_ stored: Any?, _ path: inout [ObjectIdentifier]) -> Any? {
        guard let stored = fiefUnwrap(stored) else { return nil }
        if let linked = stored as? ObjectBase {
            if linked._fiefManaged != nil || path.contains(ObjectIdentifier(linked)) { return linked._fiefManaged != nil ? linked : nil }
            return detachedValue(linked, path: &path)
        }
        if let items = fiefSequenceItems(stored) { return items.compactMap { detachedLinks($0, &path) } }
        return nil
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
