import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// Notifications (fief.h, "Notifications"): realm-level callbacks, the
// notification fd, the wake-up callback and the host's delivery.

/// A host's callback data: `free` runs once, on the thread that drops the
/// last reference (the token's release, the replaced wake-up, or the end of
/// the delivery round that was calling it).
final class HostUserdata: @unchecked Sendable {
    let userdata: UnsafeMutableRawPointer?
    private(set) var free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

    init(_ userdata: UnsafeMutableRawPointer?, _ free: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
        self.userdata = userdata
        self.free = free
    }

    deinit { free?(userdata) }

    /// The registration failed: the caller keeps `userdata`.
    func giveBack() { free = nil }
}

/// A notification token handle's object: the notifier, and the realm it
/// keeps alive.  Releasing the handle releases the notifier.
final class NotificationTokenBox {
    let realm: Realm
    let notifier: Notifier

    init(realm: Realm, notifier: Notifier) {
        self.realm = realm
        self.notifier = notifier
    }

    deinit { notifier.release() }
}

/// The realm behind a realm handle, retained: a delivery calls back, and a
/// callback may release the handle it was called through.
private func retainedRealm(_ handle: OpaquePointer?) throws(FiefError) -> Realm {
    try HandleTable.resolve(UnsafeRawPointer(handle), .realm, as: RealmBox.self).realm
}

/// After a commit, refresh or write begun through `handle`: tell the
/// realm's callbacks if its version moved (RealmSwift calls them there).
/// What the call itself did stands whatever this finds.
func notifyAfterChange(_ handle: OpaquePointer?) {
    guard let realm = try? retainedRealm(handle) else { return }
    _ = try? realm.deliverNotifications(.afterChange)
}

/// Before a write begins through `handle`: move to the newest version and
/// tell the callbacks (RealmSwift's `beginWrite`).
func deliverBeforeWrite(_ handle: OpaquePointer?) throws(FiefError) {
    guard let realm = try? retainedRealm(handle) else { return }
    try realm.deliverNotifications(.beforeWrite)
}

@_cdecl("fief_realm_add_notification_callback")
public func exportRealmAddNotificationCallback(_ handle: OpaquePointer?,
                                              _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
                                              _ userdata: UnsafeMutableRawPointer?,
                                              _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let callback = try require(callback, "callback")
        let realm = try retainedRealm(handle)
        let notifier = try realm.lock.withLock { () throws(FiefError) -> RealmObserver in
            try realm.checkOpenForC()
            // Made only once everything is checked: on failure the caller
            // keeps `userdata` (free_userdata is not called).
            if realm.isFrozen { throw FiefError(.frozen, "a frozen realm does not change and has no notifications") }
            if realm.isReadOnly { throw FiefError(.readOnly, "a read-only realm does not change and has no notifications") }
            let host = HostUserdata(userdata, freeUserdata)
            do throws(FiefError) {
                return try realm.addRealmObserver { change in callback(host.userdata, change.rawValue) }
            } catch {
                host.giveBack()
                throw error
            }
        }
        guard let token = HandleTable.make(NotificationTokenBox(realm: realm, notifier: notifier), .notificationToken) else {
            throw FiefError(.outOfMemory, "too many live handles")
        }
        return token
    }
}

@_cdecl("fief_realm_get_notification_fd")
public func exportRealmGetNotificationFD(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let fd = try withRealm(handle) { (realm) throws(FiefError) -> Int32 in try realm.notificationChannel().eventFD }
        try store(out, fd, "out_fd")
        return true
    }
}

@_cdecl("fief_realm_set_wakeup")
public func exportRealmSetWakeup(_ handle: OpaquePointer?,
                                 _ callback: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                                 _ userdata: UnsafeMutableRawPointer?,
                                 _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in
            // Fails first (closed, frozen, read-only), before taking `userdata`.
            _ = try realm.notificationChannel()
            guard let callback else {
                try realm.setNotificationWakeup(nil)
                return
            }
            let host = HostUserdata(userdata, freeUserdata)
            try realm.setNotificationWakeup { callback(host.userdata) }
        }
        return true
    }
}

@_cdecl("fief_realm_deliver_notifications")
public func exportRealmDeliverNotifications(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let realm = try retainedRealm(handle)
        let delivered = try realm.deliverNotifications(.pending)
        out?.pointee = delivered
        return true
    }
}

@_cdecl("fief_realm_set_autorefresh")
public func exportRealmSetAutorefresh(_ handle: OpaquePointer?, _ on: Bool) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.setAutorefresh(on) }
        return true
    }
}

@_cdecl("fief_realm_get_autorefresh")
public func exportRealmGetAutorefresh(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let on = try withRealm(handle) { (realm) throws(FiefError) -> Bool in
            try realm.checkOpenForC()
            return realm.autorefresh
        }
        try store(out, on, "out_autorefresh")
        return true
    }
}

// MARK: Results notifications (fief.h, "Results notifications")

/// A change set handed to a collection callback: its handle lives for the
/// call only.
final class CollectionChangesBox {
    let changes: IndexChangeSet
    let isInitial: Bool
    let error: FiefError?
    /// The error's strings, kept for the call.
    private var message: UnsafeMutablePointer<CChar>?
    private var path: UnsafeMutablePointer<CChar>?

    init(changes: IndexChangeSet, isInitial: Bool, error: FiefError?) {
        self.changes = changes
        self.isInitial = isInitial
        self.error = error
    }

    deinit {
        free(message)
        free(path)
    }

    /// The error as fief_error_t, its strings owned by the box.
    func cError() -> fief_error_t? {
        guard let error else { return nil }
        if message == nil { message = strdup(error.message) }
        if path == nil, let text = error.path { path = strdup(text) }
        return fief_error_t(code: error.code.rawValue, categories: error.code.categories, message: message, path: path)
    }

    /// Call `callback` with a handle on this change set, valid for the call.
    static func call(_ callback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void,
                     _ userdata: UnsafeMutableRawPointer?, _ change: ResultsChange) {
        let box: CollectionChangesBox
        switch change {
        case .initial: box = CollectionChangesBox(changes: IndexChangeSet(), isInitial: true, error: nil)
        case .update(let changes): box = CollectionChangesBox(changes: changes, isInitial: false, error: nil)
        case .error(let error): box = CollectionChangesBox(changes: IndexChangeSet(), isInitial: false, error: error)
        }
        guard let handle = HandleTable.make(box, .collectionChanges) else { return }
        callback(userdata, handle)
        _ = HandleTable.release(UnsafeRawPointer(handle))
    }
}

private func withChanges<R>(_ handle: OpaquePointer?, _ body: (CollectionChangesBox) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .collectionChanges, as: CollectionChangesBox.self, body)
}

@_cdecl("fief_results_add_notification_callback")
public func exportResultsAddNotificationCallback(_ handle: OpaquePointer?,
                                                 _ keyPaths: UnsafePointer<UnsafePointer<CChar>?>?,
                                                 _ numKeyPaths: Int,
                                                 _ callback: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void)?,
                                                 _ userdata: UnsafeMutableRawPointer?,
                                                 _ freeUserdata: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let callback = try require(callback, "callback")
        var paths: [String]?
        if numKeyPaths > 0 {
            let list = try require(keyPaths, "key_paths")
            paths = []
            for i in 0..<numKeyPaths { paths!.append(try cString(list[i], "key path \(i)")) }
        } else if numKeyPaths < 0 {
            throw FiefError(.invalidArgument, "num_key_paths is negative")
        }
        let (realm, notifier) = try withResults(handle) { (results) throws(FiefError) -> (Realm, Notifier) in
            // Made only once everything is checked: on failure the caller
            // keeps `userdata` (free_userdata is not called).
            if results.realm.isReadOnly && !results.realm.isFrozen {
                throw FiefError(.readOnly, "a read-only realm does not change and has no notifications")
            }
            let host = HostUserdata(userdata, freeUserdata)
            do throws(FiefError) {
                // Results of values: their collection's notifier (CollectionNotificationExports.swift).
                if !results.holdsObjects {
                    let notifier = try results.realm.addValueResultsNotifier(results, keyPaths: paths) { change in
                        CollectionChangesBox.call(callback, host.userdata, change)
                    }
                    return (results.realm, notifier)
                }
                let notifier = try results.realm.addResultsNotifier(results, keyPaths: paths) { change in
                    CollectionChangesBox.call(callback, host.userdata, change)
                }
                return (results.realm, notifier)
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
}

@_cdecl("fief_collection_changes_get_counts")
public func exportCollectionChangesGetCounts(_ handle: OpaquePointer?, _ deletions: UnsafeMutablePointer<Int>?,
                                             _ insertions: UnsafeMutablePointer<Int>?, _ modifications: UnsafeMutablePointer<Int>?,
                                             _ moves: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withChanges(handle) { (box) throws(FiefError) in
            deletions?.pointee = box.changes.deletions.count
            insertions?.pointee = box.changes.insertions.count
            modifications?.pointee = box.changes.modifications.count
            moves?.pointee = box.changes.moves.count
        }
        return true
    }
}

@_cdecl("fief_collection_changes_get_flags")
public func exportCollectionChangesGetFlags(_ handle: OpaquePointer?, _ initial: UnsafeMutablePointer<Bool>?,
                                            _ cleared: UnsafeMutablePointer<Bool>?, _ rootDeleted: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withChanges(handle) { (box) throws(FiefError) in
            initial?.pointee = box.isInitial
            cleared?.pointee = box.changes.cleared
            rootDeleted?.pointee = box.changes.rootDeleted
        }
        return true
    }
}

@_cdecl("fief_collection_changes_get_indices")
public func exportCollectionChangesGetIndices(_ handle: OpaquePointer?, _ capacity: Int,
                                              _ deletions: UnsafeMutablePointer<Int>?, _ insertions: UnsafeMutablePointer<Int>?,
                                              _ modifications: UnsafeMutablePointer<Int>?, _ modificationsNew: UnsafeMutablePointer<Int>?,
                                              _ movesFrom: UnsafeMutablePointer<Int>?, _ movesTo: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        if (movesFrom == nil) != (movesTo == nil) {
            throw FiefError(.invalidArgument, "moves_from and moves_to go together: give both or neither")
        }
        try withChanges(handle) { (box) throws(FiefError) in
            func copy(_ set: IndexRangeSet, _ out: UnsafeMutablePointer<Int>?) {
                guard let out else { return }
                var i = 0
                for index in set {
                    if i >= capacity { break }
                    out[i] = index
                    i += 1
                }
            }
            copy(box.changes.deletions, deletions)
            copy(box.changes.insertions, insertions)
            copy(box.changes.modifications, modifications)
            copy(box.changes.modificationsNew, modificationsNew)
            if let movesFrom, let movesTo {
                for (i, move) in box.changes.moves.prefix(max(capacity, 0)).enumerated() {
                    movesFrom[i] = move.from
                    movesTo[i] = move.to
                }
            }
        }
        return true
    }
}

@_cdecl("fief_collection_changes_get_num_ranges")
public func exportCollectionChangesGetNumRanges(_ handle: OpaquePointer?, _ deletions: UnsafeMutablePointer<Int>?,
                                                _ insertions: UnsafeMutablePointer<Int>?, _ modifications: UnsafeMutablePointer<Int>?,
                                                _ modificationsNew: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withChanges(handle) { (box) throws(FiefError) in
            deletions?.pointee = box.changes.deletions.ranges.count
            insertions?.pointee = box.changes.insertions.ranges.count
            modifications?.pointee = box.changes.modifications.ranges.count
            modificationsNew?.pointee = box.changes.modificationsNew.ranges.count
        }
        return true
    }
}

@_cdecl("fief_collection_changes_get_ranges")
public func exportCollectionChangesGetRanges(_ handle: OpaquePointer?, _ capacity: Int,
                                             _ deletions: UnsafeMutablePointer<fief_index_range_t>?,
                                             _ insertions: UnsafeMutablePointer<fief_index_range_t>?,
                                             _ modifications: UnsafeMutablePointer<fief_index_range_t>?,
                                             _ modificationsNew: UnsafeMutablePointer<fief_index_range_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withChanges(handle) { (box) throws(FiefError) in
            func copy(_ set: IndexRangeSet, _ out: UnsafeMutablePointer<fief_index_range_t>?) {
                guard let out else { return }
                for (i, range) in set.ranges.prefix(max(capacity, 0)).enumerated() {
                    out[i] = fief_index_range_t(from: range.lowerBound, to: range.upperBound)
                }
            }
            copy(box.changes.deletions, deletions)
            copy(box.changes.insertions, insertions)
            copy(box.changes.modifications, modifications)
            copy(box.changes.modificationsNew, modificationsNew)
        }
        return true
    }
}

@_cdecl("fief_collection_changes_get_error")
public func exportCollectionChangesGetError(_ handle: OpaquePointer?, _ failed: UnsafeMutablePointer<Bool>?,
                                            _ out: UnsafeMutablePointer<fief_error_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let failed = try require(failed, "out_failed")
        let error = try withChanges(handle) { (box) throws(FiefError) -> fief_error_t? in box.cError() }
        failed.pointee = error != nil
        if let error { out?.pointee = error }
        return true
    }
}
