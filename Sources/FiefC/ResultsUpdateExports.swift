import CFief
import FiefEngine
import FiefStorage

// Set-based update: one property of every object of a results handle
// (fief_results_set_value, RealmSwift's Results.setValue(_:forKey:)).

@_cdecl("fief_results_set_value")
public func exportResultsSetValue(_ handle: OpaquePointer?, _ property: UInt32, _ value: fief_value_t) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        let engineValue = try ValueBridge.engineValue(value, "value")
        try withResults(handle) { (held) throws(FiefError) in
            try held.objects(for: "fief_results_set_value").setValue(engineValue, property: property)
        }
        return true
    }
}
