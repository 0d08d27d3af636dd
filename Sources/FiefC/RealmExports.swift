import CFief
import FiefEngine
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// A realm handle's object: the engine realm and a C copy of its path.
final class RealmBox {
    let realm: Realm
    let path: UnsafeMutablePointer<CChar>

    init(_ realm: Realm) {
        self.realm = realm
        self.path = strdup(realm.path)
    }

    deinit { free(path) }
}

/// Resolve a realm handle and run `body` under the realm's lock.
@inline(__always)
func withRealm<R>(_ handle: OpaquePointer?, _ body: (Realm) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .realm, as: RealmBox.self) { (box) throws(FiefError) -> R in
        let lock = box.realm.lock
        return try lock.withLock { () throws(FiefError) -> R in try body(box.realm) }
    }
}

/// Fail with `.closed` when `realm`, the realm a handle was made from, is
/// closed (read under its lock; the *_resolve_in calls take the target's
/// lock for the rest, and the two may be the same realm).
func requireOpen(_ realm: Realm) throws(FiefError) {
    try realm.lock.withLock { () throws(FiefError) in try realm.checkOpenForC() }
}

@_cdecl("fief_realm_open")
public func exportRealmOpen(_ config: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let box = try HandleTable.resolve(UnsafeRawPointer(config), .config, as: ConfigBox.self)
        let realm = try Realm.open(box.configuration)
        return HandleTable.make(RealmBox(realm), .realm)
    }
}

@_cdecl("fief_file_delete")
public func exportDeleteFiles(_ path: UnsafePointer<CChar>?, _ outDeleted: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let value = try cString(path, "path")
        guard !value.isEmpty else { throw FiefError(.invalidArgument, "path is empty") }
        let deleted = try Realm.deleteFiles(path: value)
        outDeleted?.pointee = deleted
        return true
    }
}

@_cdecl("fief_realm_close")
public func exportRealmClose(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in
            if let thread = realm.writeThread, pthread_equal(thread, pthread_self()) == 0 {
                throw FiefError(.wrongThread, "the realm's write transaction belongs to another thread; close it there")
            }
            realm.close()
        }
        return true
    }
}

@_cdecl("fief_realm_is_closed")
public func exportRealmIsClosed(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let closed = try withRealm(handle) { (realm) throws(FiefError) in realm.isClosed }
        try store(out, closed, "out_closed")
        return true
    }
}

@_cdecl("fief_realm_is_frozen")
public func exportRealmIsFrozen(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let frozen = try withRealm(handle) { (realm) throws(FiefError) in realm.isFrozen }
        try store(out, frozen, "out_frozen")
        return true
    }
}

@_cdecl("fief_realm_is_read_only")
public func exportRealmIsReadOnly(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let readOnly = try withRealm(handle) { (realm) throws(FiefError) in realm.isReadOnly }
        try store(out, readOnly, "out_read_only")
        return true
    }
}

@_cdecl("fief_realm_get_version")
public func exportRealmGetVersion(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt64>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let version = try withRealm(handle) { (realm) throws(FiefError) in try realm.version() }
        try store(out, version, "out_version")
        return true
    }
}

@_cdecl("fief_realm_get_schema_version")
public func exportRealmGetSchemaVersion(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt64>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let version = try withRealm(handle) { (realm) throws(FiefError) -> UInt64 in
            try realm.checkOpenForC()
            return realm.schemaVersion
        }
        try store(out, version, "out_version")
        return true
    }
}

@_cdecl("fief_realm_get_path")
public func exportRealmGetPath(_ handle: OpaquePointer?) -> UnsafePointer<CChar>? {
    guarded(nil) { () throws(FiefError) -> UnsafePointer<CChar>? in
        UnsafePointer(try HandleTable.resolve(UnsafeRawPointer(handle), .realm, as: RealmBox.self).path)
    }
}

@_cdecl("fief_realm_get_schema")
public func exportRealmGetSchema(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let schema = try withRealm(handle) { (realm) throws(FiefError) in
            try realm.checkOpenForC()
            return realm.schema
        }
        return HandleTable.make(SchemaBox(schema), .schema)
    }
}

@_cdecl("fief_realm_update_schema")
public func exportRealmUpdateSchema(_ handle: OpaquePointer?, _ schema: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let requested = try HandleTable.resolve(UnsafeRawPointer(schema), .schema, as: SchemaBox.self).schema
        try withRealm(handle) { (realm) throws(FiefError) in try realm.updateSchema(requested) }
        return true
    }
}

@_cdecl("fief_realm_begin_write")
public func exportRealmBeginWrite(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        // Waits for any other writer; calls on this realm from other threads wait too.
        try withRealm(handle) { (realm) throws(FiefError) in try realm.beginWrite() }
        return true
    }
}

@_cdecl("fief_realm_commit")
public func exportRealmCommit(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.commitWrite() }
        return true
    }
}

@_cdecl("fief_realm_cancel")
public func exportRealmCancel(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.cancelWriteChecked() }
        return true
    }
}

@_cdecl("fief_realm_is_in_transaction")
public func exportRealmIsInTransaction(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let writing = try withRealm(handle) { (realm) throws(FiefError) in realm.isInWriteTransaction }
        try store(out, writing, "out_in_transaction")
        return true
    }
}

@_cdecl("fief_realm_refresh")
public func exportRealmRefresh(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Bool>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let changed = try withRealm(handle) { (realm) throws(FiefError) in try realm.refresh() }
        out?.pointee = changed
        return true
    }
}

@_cdecl("fief_realm_invalidate")
public func exportRealmInvalidate(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.invalidate() }
        return true
    }
}

@_cdecl("fief_realm_freeze")
public func exportRealmFreeze(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let frozen = try withRealm(handle) { (realm) throws(FiefError) in try realm.freeze() }
        return HandleTable.make(RealmBox(frozen), .realm)
    }
}

@_cdecl("fief_realm_thaw")
public func exportRealmThaw(_ handle: OpaquePointer?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let live = try withRealm(handle) { (realm) throws(FiefError) in try realm.thaw() }
        return HandleTable.make(RealmBox(live), .realm)
    }
}

@_cdecl("fief_realm_delete_all")
public func exportRealmDeleteAll(_ handle: OpaquePointer?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.deleteAll() }
        return true
    }
}

@_cdecl("fief_realm_delete_all_of_class")
public func exportRealmDeleteAllOfClass(_ handle: OpaquePointer?, _ classKey: UInt32) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withRealm(handle) { (realm) throws(FiefError) in try realm.deleteAll(table: classKey) }
        return true
    }
}

@_cdecl("fief_realm_get_objects")
public func exportRealmGetObjects(_ handle: OpaquePointer?, _ classKey: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withRealm(handle) { (realm) throws(FiefError) in try ObjectResults(realm: realm, tableKey: classKey) }
        return HandleTable.make(results, .results)
    }
}
