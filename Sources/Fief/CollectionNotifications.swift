import CFief
import Foundation

// List, set and map notifications (RealmSwift's List.observe,
// MutableSet.observe, Map.observe), over fief.h's "List, set and map
// notifications": deliveries as results' (see Notifications.swift).

/// How a map changed (RealmSwift's `RealmMapChange`): the first call is
/// `.initial` with the map; later ones `.update` with the keys deleted,
/// inserted and modified; `.error` when it cannot be observed any more.
@frozen public enum RealmMapChange<Collection: RealmKeyedCollection> {
    case initial(Collection)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    case error(Error)
}

/// A list or set that observes itself (for `AnyRealmCollection.observe`).
protocol FiefCollectionNotifying {
    func fiefObserve<C>(_ collection: C, keyPaths: [String]?, queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken
}

/// The map change behind `changes` as RealmSwift's enum (read during the C call).
private func mapChange<M: RealmKeyedCollection>(_ changes: OpaquePointer?, _ map: M) -> RealmMapChange<M> {
    var failed = false
    var error = fief_error_t()
    if fief_map_changes_get_error(changes, &failed, &error), failed {
        let cError = CError(code: error.code, categories: error.categories,
                            message: error.message.map { String(cString: $0) } ?? "",
                            path: error.path.map { String(cString: $0) })
        return .error(Realm.Error(cError))
    }
    var initial = false
    _ = fief_map_changes_get_flags(changes, &initial, nil, nil)
    if initial { return .initial(map) }
    var counts = (0, 0, 0)
    _ = fief_map_changes_get_counts(changes, &counts.0, &counts.1, &counts.2)
    let empty = fief_string_t(data: nil, size: 0)
    var deleted = [fief_string_t](repeating: empty, count: counts.0)
    var inserted = [fief_string_t](repeating: empty, count: counts.1)
    var modified = [fief_string_t](repeating: empty, count: counts.2)
    deleted.withUnsafeMutableBufferPointer { d in
        inserted.withUnsafeMutableBufferPointer { i in
            modified.withUnsafeMutableBufferPointer { m in
                _ = fief_map_changes_get_keys(changes, max(counts.0, counts.1, counts.2), d.baseAddress, i.baseAddress, m.baseAddress)
            }
        }
    }
    let strings = [deleted, inserted, modified].map { list in
        list.map { key -> M.Key in
            let text = key.data.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: key.size), as: UTF8.self) } ?? ""
            return M.Key(_fiefMapKey: text)
        }
    }
    return .update(map, deletions: strings[0], insertions: strings[1], modifications: strings[2])
}

extension RealmCore {
    /// Register `block` for the collection `handle` through `register`:
    /// `convert` reads the C change during the call (`addCollectionCallback`).
    fileprivate func observeCollection<Change>(_ handle: CHandle, keyPaths: [String]?, queue: DispatchQueue?, kind: String,
                                               register: @escaping CollectionRegistration, convert: @escaping (OpaquePointer?) -> Change,
                                               _ block: @escaping (Change) -> Void) -> NotificationToken {
        addCollectionCallback(handle, keyPaths: keyPaths, kind: kind, register: register) { changes in
            handOver(convert(changes), to: queue, block)
        }
    }
}

private let registerList: CollectionRegistration = { fief_list_add_notification_callback($0, $1, $2, $3, $4, $5) }
private let registerSet: CollectionRegistration = { fief_set_add_notification_callback($0, $1, $2, $3, $4, $5) }
private let registerMap: CollectionRegistration = { fief_map_add_notification_callback($0, $1, $2, $3, $4, $5) }

extension List: FiefCollectionNotifying {
    /// Calls `block` with `.initial(list)` at the next delivery, then
    /// `.update` whenever a commit changes the list (RealmSwift's
    /// `List.observe`): elements inserted, deleted (indices before) and
    /// modified (indices after): set, or, for objects, written in a
    /// property `keyPaths` watch (nil: every property, and those of the
    /// objects their links reach, to a depth of 4).  On the registering
    /// thread's run loop, or on `queue`.  When the owner is deleted: one
    /// last `.update` with every element deleted.  Traps for an unmanaged
    /// list, inside a write transaction and for frozen lists, as RealmSwift.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List>) -> Void) -> NotificationToken {
        fiefObserve(self, keyPaths: keyPaths, queue: queue, block)
    }

    func fiefObserve<C>(_ collection: C, keyPaths: [String]?, queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        guard case .managed(let managed) = state else {
            preconditionFailure("This method may only be called on RLMArray instances retrieved from an RLMRealm")
        }
        return managed.core.observeCollection(managed.handle, keyPaths: keyPaths, queue: queue, kind: "List",
                                              register: registerList, convert: { collectionChange($0, collection) }, block)
    }
}

extension List where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` with key paths of the element type (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension MutableSet: FiefCollectionNotifying {
    /// As `List.observe(keyPaths:on:_:)`, in the set's order (RealmSwift's
    /// `MutableSet.observe`).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        fiefObserve(self, keyPaths: keyPaths, queue: queue, block)
    }

    func fiefObserve<C>(_ collection: C, keyPaths: [String]?, queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken {
        guard case .managed(let managed) = state else {
            preconditionFailure("This method may only be called on RLMSet instances retrieved from an RLMRealm")
        }
        return managed.core.observeCollection(managed.handle, keyPaths: keyPaths, queue: queue, kind: "Set",
                                              register: registerSet, convert: { collectionChange($0, collection) }, block)
    }
}

extension MutableSet where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` with key paths of the element type.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension Map {
    /// Calls `block` with `.initial(map)` at the next delivery, then
    /// `.update` with the keys deleted, inserted and modified (a value set,
    /// or an object value written in a property `keyPaths` watch) whenever
    /// a commit changes the map (RealmSwift's `Map.observe`); deliveries as
    /// `List.observe`'s.  Traps as RealmSwift does.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        guard case .managed(let managed) = state else {
            preconditionFailure("This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        }
        return managed.core.observeCollection(managed.handle, keyPaths: keyPaths, queue: queue, kind: "Dictionary",
                                              register: registerMap, convert: { mapChange($0, self) }, block)
    }
}

extension Map where Value: OptionalProtocol, Value.Wrapped: ObjectBase {
    /// `observe(keyPaths:on:_:)` with key paths of the value's object type.
    public func observe(keyPaths: [PartialKeyPath<Value.Wrapped>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}
