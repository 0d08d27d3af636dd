import CFief
import FiefEngine

// Links: the objects linking to an object (its backlinks), as live results.

@_cdecl("fief_object_get_backlinks")
public func exportObjectGetBacklinks(_ handle: OpaquePointer?, _ originClass: UInt32, _ originProperty: UInt32) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let results = try withObject(handle) { (box) throws(FiefError) in
            try Results(realm: box.realm, linkingTo: box.key, of: box.table, originClass: originClass, property: originProperty)
        }
        return HandleTable.make(results, .results)
    }
}
