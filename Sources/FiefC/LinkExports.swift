import CFief
import FiefEngine
import FiefStorage

// Links: the objects linking to an object (its backlinks), as live results.

@_cdecl("fief_object_get_backlinks")
public func exportObjectGetBacklinks(_ handle: OpaquePointer?, _ originClass: UInt32, _ originProperty: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withObject(handle) { (box) throws(FiefError) in
            try ObjectResults(realm: box.realm, linkingTo: box.key, of: box.table, originClass: originClass, property: originProperty)
        }
        return HandleTable.make(results, .results)
    }
}

@_cdecl("fief_object_create_embedded")
public func exportObjectCreateEmbedded(_ handle: OpaquePointer?, _ property: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let (realm, created) = try withObject(handle) { (box) throws(FiefError) in
            (box.realm, try box.realm.createEmbedded(table: box.table, key: box.key, property: property))
        }
        return HandleTable.makeObject(realm, table: created.classKey, key: created.objectKey)
    }
}
