import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// List, set and map notifications (fief.h, "List, set and map
// notifications"): registration on a collection handle; lists and sets
// hand the callback a fief_collection_changes_t, maps a fief_map_changes_t.

extension CollectionChangesBox {
    /// Call `callback` with a handle on a list's or set's change, valid for the call.
    static func call(_ callback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void,
                     _ userdata: UnsafeMutableRawPointer?, _ change: CollectionChange) {
        let box: CollectionChangesBox
        switch change {
        case .initial: box = CollectionChangesBox(changes: IndexChangeSet(), isInitial: true, error: nil)
        case .update(let changes, _): box = CollectionChangesBox(changes: changes, isInitial: false, error: nil)
        case .error(let error): box = CollectionChangesBox(changes: IndexChangeSet(), isInitial: false, error: error)
        }
        guard let handle = HandleTable.make(box, .collectionChanges) else { return }
        callback(userdata, handle)
        _ = HandleTable.release(UnsafeRawPointer(handle))
    }
}

/// A map's change handed to a map callback: its handle lives for the call only.
final class MapChangesBox {
    let changes: MapChangeSet
    let isInitial: Bool
    let error: FiefError?
    private var message: UnsafeMutablePointer<CChar>?
    private var path: UnsafeMutablePointer<CChar>?
    /// The keys as C strings, owned by the box for the call (views are handed out).
    let deletions: [fief_string_t]
    let insertions: [fief_string_t]
    let modifications: [fief_string_t]

    init(changes: MapChangeSet, isInitial: Bool, error: FiefError?) {
        self.changes = changes
        self.isInitial = isInitial
        self.error = error
        let bytes = { (keys: [String]) -> [fief_string_t] in
            keys.map { key in
                let utf8 = Array(key.utf8)
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(utf8.count, 1))
                utf8.withUnsafeBytes { UnsafeMutableRawPointer(copy).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(copy), byteCount: utf8.count) }
                return fief_string_t(data: copy, size: utf8.count)
            }
        }
        deletions = bytes(changes.deletions)
        insertions = bytes(changes.insertions)
        modifications = bytes(changes.modifications)
    }

    deinit {
        free(message)
        free(path)
        for key in deletions + insertions + modifications { UnsafeMutablePointer(mutating: key.data)?.deallocate() }
    }

    func cError() -> fief_error_t? {
        guard let error else { return nil }
        if message == nil { message = strdup(error.message) }
        if path == nil, let text = error.path { path = strdup(text) }
        return fief_error_t(code: error.code.rawValue, categories: error.code.categories, message: message, path: path)
    }

    static func call(_ callback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void,
                     _ userdata: UnsafeMutableRawPointer?, _ change: CollectionChange) {
        let box: MapChangesBox
        switch change {
        case .initial: box = MapChangesBox(changes: MapChangeSet(), isInitial: true, error: nil)
        case .update(_, let keys): box = MapChangesBox(changes: keys ?? MapChangeSet(), isInitial: false, error: nil)
        case .error(let error): box = MapChangesBox(changes: MapChangeSet(), isInitial: false, error: error)
        }
        guard let handle = HandleTable.make(box, .mapChanges) else { return }
        callback(userdata, handle)
        _ = HandleTable.release(UnsafeRawPointer(handle))
    }
}

private func withMapChanges<R>(_ handle: OpaquePointer?, _ body: (MapChangesBox) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .mapChanges, as: MapChangesBox.self, body)
}

/// The key paths of a registration (nil: the default).
private func keyPathList(_ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) throws(FiefError) -> [String]? {
    if count < 0 { throw FiefError(.invalidArgument, "num_key_paths is negative") }
    if count == 0 { return nil }
    let list = try require(keyPaths, "key_paths")
    var paths: [String] = []
    for i in 0..<count { paths.append(try cString(list[i], "key path \(i)")) }
    return paths
}

/// Register a collection notifier on `realm`'s collection `ref` (under
/// the realm's lock) and make its token.
private func addCollectionCallback(_ realm: Realm, _ ref: CollectionRef, _ paths: [String]?,
                                   _ userdata: UnsafeMutableRawPointer?,
                                   _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                   _ call: @escaping (HostUserdata, CollectionChange) -> Void) throws(FiefError) -> OpaquePointer? {
    let notifier = try realm.lock.withLock { () throws(FiefError) -> CollectionNotifier in
        if realm.isReadOnly && !realm.isFrozen {
            throw FiefError(.readOnly, "a read-only realm does not change and has no notifications")
        }
        let host = HostUserdata(userdata, freeUserdata)
        do throws(FiefError) {
            return try realm.addCollectionNotifier(ref, keyPaths: paths) { change in call(host, change) }
        } catch {
            host.giveBack()
            throw error
        }
    }
    guard let token = HandleTable.make(NotificationTokenBox(realm: realm, notifier: notifier), .notificationToken) else {
        notifier.release()
        throw FiefError(.outOfMemory, "too many live handles")
    }
    return token
}

/// The C callback every list, set and map registration takes.
public typealias CollectionChangesCallback = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void

/// What the three registrations share, in their order: the callback
/// required, the key paths read, the collection's handle resolved
/// (`collection`), then the notifier added, each change handed to `call`.
private func registerCollectionCallback(_ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ numKeyPaths: Int,
                                        _ callback: CollectionChangesCallback?, _ userdata: UnsafeMutableRawPointer?,
                                        _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                        collection: () throws(FiefError) -> (Realm, CollectionRef),
                                        call: @escaping (CollectionChangesCallback, UnsafeMutableRawPointer?, CollectionChange) -> Void) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let callback = try require(callback, "callback")
        let paths = try keyPathList(keyPaths, numKeyPaths)
        let (realm, ref) = try collection()
        return try addCollectionCallback(realm, ref, paths, userdata, freeUserdata) { host, change in
            call(callback, host.userdata, change)
        }
    }
}

@_cdecl("fief_list_add_notification_callback")
public func exportListAddNotificationCallback(_ handle: OpaquePointer?,
                                              _ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ numKeyPaths: Int,
                                              _ callback: CollectionChangesCallback?,
                                              _ userdata: UnsafeMutableRawPointer?,
                                              _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    registerCollectionCallback(keyPaths, numKeyPaths, callback, userdata, freeUserdata, collection: { () throws(FiefError) in
        try HandleTable.withList(UnsafeRawPointer(handle)) { (list) throws(FiefError) -> (Realm, CollectionRef) in (list.realm, list.ref) }
    }, call: CollectionChangesBox.call)
}

@_cdecl("fief_set_add_notification_callback")
public func exportSetAddNotificationCallback(_ handle: OpaquePointer?,
                                             _ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ numKeyPaths: Int,
                                             _ callback: CollectionChangesCallback?,
                                             _ userdata: UnsafeMutableRawPointer?,
                                             _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    registerCollectionCallback(keyPaths, numKeyPaths, callback, userdata, freeUserdata, collection: { () throws(FiefError) in
        try HandleTable.withSet(UnsafeRawPointer(handle)) { (set) throws(FiefError) -> (Realm, CollectionRef) in (set.realm, set.ref) }
    }, call: CollectionChangesBox.call)
}

@_cdecl("fief_map_add_notification_callback")
public func exportMapAddNotificationCallback(_ handle: OpaquePointer?,
                                             _ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?, _ numKeyPaths: Int,
                                             _ callback: CollectionChangesCallback?,
                                             _ userdata: UnsafeMutableRawPointer?,
                                             _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    registerCollectionCallback(keyPaths, numKeyPaths, callback, userdata, freeUserdata, collection: { () throws(FiefError) in
        try HandleTable.withMap(UnsafeRawPointer(handle)) { (map) throws(FiefError) -> (Realm, CollectionRef) in (map.realm, map.ref) }
    }, call: MapChangesBox.call)
}

@_cdecl("fief_map_changes_get_counts")
public func exportMapChangesGetCounts(_ handle: OpaquePointer?, _ deletions: UnsafeMutablePointer<Int>?,
                                      _ insertions: UnsafeMutablePointer<Int>?, _ modifications: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withMapChanges(handle) { (box) throws(FiefError) in
            deletions?.pointee = box.deletions.count
            insertions?.pointee = box.insertions.count
            modifications?.pointee = box.modifications.count
        }
        return true
    }
}

@_cdecl("fief_map_changes_get_flags")
public func exportMapChangesGetFlags(_ handle: OpaquePointer?, _ initial: UnsafeMutablePointer<Bool>?,
                                     _ cleared: UnsafeMutablePointer<Bool>?, _ rootDeleted: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withMapChanges(handle) { (box) throws(FiefError) in
            initial?.pointee = box.isInitial
            cleared?.pointee = box.changes.cleared
            rootDeleted?.pointee = box.changes.rootDeleted
        }
        return true
    }
}

@_cdecl("fief_map_changes_get_keys")
public func exportMapChangesGetKeys(_ handle: OpaquePointer?, _ capacity: Int,
                                    _ deletions: UnsafeMutablePointer<fief_string_t>?,
                                    _ insertions: UnsafeMutablePointer<fief_string_t>?,
                                    _ modifications: UnsafeMutablePointer<fief_string_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withMapChanges(handle) { (box) throws(FiefError) in
            func copy(_ keys: [fief_string_t], _ out: UnsafeMutablePointer<fief_string_t>?) {
                guard let out else { return }
                for (i, key) in keys.prefix(max(capacity, 0)).enumerated() { out[i] = key }
            }
            copy(box.deletions, deletions)
            copy(box.insertions, insertions)
            copy(box.modifications, modifications)
        }
        return true
    }
}

@_cdecl("fief_map_changes_get_error")
public func exportMapChangesGetError(_ handle: OpaquePointer?, _ failed: UnsafeMutablePointer<Bool>?,
                                     _ out: UnsafeMutablePointer<fief_error_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let failed = try require(failed, "out_failed")
        let error = try withMapChanges(handle) { (box) throws(FiefError) -> fief_error_t? in box.cError() }
        failed.pointee = error != nil
        if let error { out?.pointee = error }
        return true
    }
}
