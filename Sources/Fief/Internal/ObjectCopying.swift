// How `Realm.add` and `Realm.create` treat the objects they are given, as
// RealmSwift does: `create` copies (what it is given stays as it was), `add`
// adopts (unmanaged objects become managed), `add(_:update: .modified)`
// updates an existing object's embedded objects in place, and an embedded
// object already managed never gets a second parent.

import CFief
import Foundation

/// Traps, with RealmSwift's message, for a managed embedded object given as
/// a new element of a List or a value of a Map ("Dictionary"): an embedded
/// object has one parent.
func fiefRefuseManagedEmbedded(_ managed: ManagedRow, into collection: String, of core: RealmCore) -> Never {
    if managed.core.path == core.path {
        preconditionFailure("Cannot add an existing managed embedded object to a \(collection).")
    }
    preconditionFailure("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
}

/// What `create` copies from `value`: an embedded object as a dictionary of
/// its values, a collection as an array (a map as a dictionary) of its
/// elements, recursively, so that the copy is made from values and the
/// objects given stay as they were; an object (which a link of the copy
/// will point to) as `link` gives it (`Realm.linkable`: the object itself
/// if the realm manages it, else its copy); anything else as it is.
func fiefCopyable(_ value: Any?, link: (Object) -> Object) -> Any? {
    guard let value = fiefUnwrap(value) else { return nil }
    func copyable(_ value: Any?) -> Any? { fiefCopyable(value, link: link) }
    // Swift arrays and dictionaries first: casting one to a class bridges it.
    if let array = value as? [Any?] { return array.map(copyable) }
    if let dictionary = value as? [String: Any?] { return dictionary.mapValues(copyable) }
    if let object = value as? EmbeddedObject {
        var values: [String: Any?] = [:]
        for (name, propertyValue) in object._fiefPropertyValues() { values[name] = copyable(propertyValue) }
        return values
    }
    if let object = value as? Object { return link(object) }
    guard value is FiefCollectionProtocol, let sequence = value as? any Sequence else { return value }
    let items = fiefSequenceItems(sequence)
    if value is any RealmKeyedCollection {
        var entries: [String: Any?] = [:]
        for case let entry as any _RealmMapValue in items {
            entries["\(entry.key)"] = copyable(entry.value)
        }
        return entries
    }
    return items.map(copyable)
}

/// An object `create` copies, as the same object however it is reached: an
/// unmanaged object by its identity, a managed one by its file and row (each
/// read of a link gives a new accessor).
enum FiefCopySource: Hashable {
    case unmanaged(ObjectIdentifier)
    case row(path: String, classKey: fief_class_key_t, objectKey: fief_object_key_t)

    init(_ object: ObjectBase) {
        if let managed = object._fiefManaged {
            self = .row(path: managed.core.path, classKey: managed.binding.classKey, objectKey: managed.objectKey)
        } else {
            self = .unmanaged(ObjectIdentifier(object))
        }
    }
}

/// The elements of `sequence`, as `Any`.
func fiefSequenceItems<S: Sequence>(_ sequence: S) -> [Any] {
    sequence.map { $0 as Any }
}

/// The objects a collection value (List, MutableSet, Map, array) holds,
/// nil values left out.
func fiefObjects(in collection: Any) -> [ObjectBase] {
    guard let sequence = collection as? any Sequence else { return [] }
    return fiefSequenceItems(sequence).compactMap { item in
        if let entry = item as? any _RealmMapValue { return fiefUnwrap(entry.value) as? ObjectBase }
        return fiefUnwrap(item) as? ObjectBase
    }
}

extension Realm {
    /// Whether this realm manages `row`: the same realm, or a live realm of
    /// the same file.
    func manages(_ row: ManagedRow) -> Bool {
        row.core === core || (row.core.path == core.path && !row.core.isFrozen && !core.isFrozen)
    }

    /// The update policy of an object nested in one written with `update`:
    /// `update` for a class with a primary key; `.error` (always a new
    /// object) for one without, as realm-core does.
    func nestedPolicy(_ type: ObjectBase.Type, _ update: UpdatePolicy) -> UpdatePolicy {
        core.binding(for: type).info.primaryKeyIndex == nil ? .error : update
    }

    /// The object a link written by `create` points to for `object`: the
    /// object itself if this realm manages it as an object of `target`,
    /// else a copy made here from its values (with `update` if the class has
    /// a primary key), so that an unmanaged object stays unmanaged and an
    /// object of another realm stays there.
    ///
    /// A link back to an object being copied at the moment (a cycle: A → B
    /// → A, through links or collections) points to its copy, so that the
    /// copy has the same cycle and each object of the cycle is copied once.
    func linkTarget(for object: Object, of target: Object.Type, update: UpdatePolicy) -> Object {
        if let managed = object._fiefManaged {
            guard managed.isValid else { preconditionFailure(invalidatedObjectMessage) }
            if manages(managed) && (managed.binding.info.type == target || managed.binding.info.className == target.className()) {
                return object
            }
        }
        if let copy = copyInProgress(of: object) { return copy }
        return target._fiefCreate(in: self, value: object, update: nestedPolicy(target, update))
    }

    /// `linkTarget(for:of:update:)` for a link to a class known only by name.
    func linkTarget(for object: Object, named className: String, update: UpdatePolicy) -> Object {
        if let managed = object._fiefManaged {
            guard managed.isValid else { preconditionFailure(invalidatedObjectMessage) }
            if manages(managed) && managed.binding.info.className == className { return object }
        }
        if let copy = copyInProgress(of: object) { return copy }
        let policy = core.dynamicBinding(named: className).info.primaryKeyIndex == nil ? .error : update
        return dynamicCreate(className, value: object, update: policy)
    }

    /// What a link written by `create` (with `update`) to `object` points
    /// to: `object` if this realm manages it, else its copy made here
    /// (`linkTarget`).
    func linkable(_ object: Object, update: UpdatePolicy) -> Object {
        if let managed = object._fiefManaged {
            guard managed.isValid else { preconditionFailure(invalidatedObjectMessage) }
            if manages(managed) { return object }
            if object is DynamicObject {
                return linkTarget(for: object, named: managed.binding.info.className, update: update)
            }
        }
        return linkTarget(for: object, of: type(of: object), update: update)
    }

    /// Whether a link written by `create` to `object` needs a copy made
    /// first (an object this realm does not manage, not being copied now).
    func needsCopy(_ object: Object) -> Bool {
        if let managed = object._fiefManaged, manages(managed) { return false }
        return copyInProgress(of: object) == nil
    }

    /// The copy of `object` that `create` is making at the moment, if any.
    private func copyInProgress(of object: Object) -> Object? {
        core.copiesInProgress.isEmpty ? nil : core.copiesInProgress[FiefCopySource(object)]
    }

    /// Runs `body` (which writes the links and collections of `copy`) with
    /// `copy` known as the copy of `source`: links back to `source` on the
    /// way (cycles) point to `copy`.  RealmSwift copies such a graph
    /// without end; each object is copied once here.  Objects reached again
    /// without a cycle (twice in a list, by two paths) are copied again, as
    /// RealmSwift copies them.
    func whileCopying(_ source: ObjectBase, as copy: ObjectBase, _ body: () -> Void) {
        guard let copy = copy as? Object else { return body() }
        let id = FiefCopySource(source)
        core.copiesInProgress[id] = copy
        defer { core.copiesInProgress[id] = nil }
        body()
    }

    /// Adds the unmanaged objects of a collection about to be written by
    /// `add(_:update:)`, each with the update policy it gets as a nested
    /// object (so an existing primary key is updated, not a duplicate).
    func addUnmanagedObjects(in collection: Any, update: UpdatePolicy) {
        for case let object as Object in fiefObjects(in: collection) where object._fiefManaged == nil {
            add(object, update: nestedPolicy(type(of: object), update))
        }
    }
}

extension ManagedRow {
    /// The embedded object property `index` holds, as a row; nil if none.
    func embeddedRow(_ index: Int) -> ManagedRow? {
        var value = fief_value_t()
        guard let target = binding.info.properties[index].linkTarget,
              fief_object_get_value(handle.raw, binding.propertyKeys[index], &value), value.type == FIEF_TYPE_LINK,
              let raw = fief_object_get(core.handle.raw, value.u.link.class_key, value.u.link.object_key) else { return nil }
        return ManagedRow(handle: CHandle(raw), core: core, binding: core.binding(for: target))
    }

    /// Sets embedded-object property `index` to the unmanaged `child` as
    /// `add(_:update: .modified)` does: the object the property holds is
    /// updated in place and `child` becomes it (accessors to it stay
    /// valid); without one, `child` is created in place.
    func writeEmbeddedUpdating(_ index: Int, _ child: EmbeddedObject) {
        guard let existing = embeddedRow(index) else { return writeEmbedded(index, child) }
        existing.adoptUpdating(child)
    }

    /// `adopt` for a row that exists: the unmanaged `child` becomes this
    /// row's object and its values overwrite the row's, its embedded
    /// objects (and lists of them) updating the row's in place.
    func adoptUpdating(_ child: ObjectBase) {
        var values: [(Int, any _Persistable)] = []
        ObjectSchemaInfo.forEachPersisted(of: child) { name, persisted in
            guard let i = binding.info.propertyIndex[name] else { return }
            let value = persisted.unmanagedValue
            values.append((i, (value as? FiefCollectionProtocol)?.fiefSnapshot() ?? value))
        }
        child._fiefManaged = self
        for (i, value) in values {
            let property = binding.info.properties[i]
            if property.linkTarget is EmbeddedObject.Type {
                if property.collectionType == fief_collection_type_t(FIEF_COLLECTION_LIST) {
                    updateEmbeddedList(i, fiefObjects(in: value).compactMap { $0 as? EmbeddedObject })
                    continue
                }
                if let map = value as? FiefEmbeddedMapSource {
                    updateEmbeddedMap(i, map.fiefEmbeddedEntries)
                    continue
                }
                if !property.isCollection, let embedded = value._fiefStored as? EmbeddedObject, embedded._fiefManaged == nil {
                    writeEmbeddedUpdating(i, embedded)
                    continue
                }
            }
            write(i, value)
        }
    }

    /// Sets map property `index` of embedded objects to `entries` as
    /// `add(_:update: .modified)` does: the object of a key it holds already
    /// is updated in place; keys new to it get new objects (or nil), keys
    /// not in `entries` are removed.
    func updateEmbeddedMap(_ index: Int, _ entries: [(key: String, value: EmbeddedObject?)]) {
        guard let target = binding.info.properties[index].linkTarget else { return }
        let map = ManagedMap(row: self, index: index)
        let givenKeys = Set(entries.map(\.key))
        for key in map.keys() where !givenKeys.contains(key) {
            map.remove(key)
        }
        for (key, element) in entries {
            if let element, element._fiefManaged == nil, let current = map.get(key), current.type == FIEF_TYPE_LINK,
               let raw = fief_object_get(core.handle.raw, current.u.link.class_key, current.u.link.object_key) {
                ManagedRow(handle: CHandle(raw), core: core, binding: core.binding(for: target)).adoptUpdating(element)
            } else {
                map.setEmbedded(key, element)
            }
        }
    }

    /// Sets list property `index` of embedded objects to `elements` as
    /// `add(_:update: .modified)` does: the objects it holds are updated in
    /// place, one for one; further elements are appended, objects past the
    /// last element removed.
    func updateEmbeddedList(_ index: Int, _ elements: [EmbeddedObject]) {
        guard let target = binding.info.properties[index].linkTarget else { return }
        let list = ManagedList(row: self, index: index)
        let oldCount = list.size()
        for (position, element) in elements.enumerated() {
            guard position < oldCount else {
                list.insertEmbedded(at: position, element)
                continue
            }
            let current = list.get(position)
            if element._fiefManaged == nil, current.type == FIEF_TYPE_LINK,
               let raw = fief_object_get(core.handle.raw, current.u.link.class_key, current.u.link.object_key) {
                ManagedRow(handle: CHandle(raw), core: core, binding: core.binding(for: target)).adoptUpdating(element)
            } else {
                list.insertEmbedded(at: position, element)
                list.remove(at: position + 1)
            }
        }
        for position in stride(from: oldCount - 1, through: elements.count, by: -1) {
            list.remove(at: position)
        }
    }
}
