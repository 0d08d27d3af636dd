import CFief
import Foundation

// Key-value coding on collections of objects: `setValue(_:forKey:)` sets one
// property of every object.  On managed collections it is one
// fief_results_set_value call: the value is converted once and the library
// writes the property's column, without reading or making any object.

/// Collections whose objects' properties can be set by name (KVC): every
/// `RealmCollection`; `AnyRealmCollection` forwards through it.
protocol FiefKeyValueSettable {
    func setValue(_ value: Any?, forKey key: String)
}

extension Results: FiefKeyValueSettable {
    /// Sets the property named `key` of every object to `value`
    /// (RealmSwift's KVC `setValue(_:forKey:)`), in a write transaction.
    ///
    ///     try realm.write {
    ///         realm.objects(Dog.self).filter("age > 10").setValue(true, forKey: "isSenior")
    ///     }
    ///
    /// `value` is converted as `Object.setValue(_:forKey:)` converts it
    /// (NSNumber, NSNull, enums by raw value, a dictionary for a link
    /// creates the object it describes, an unmanaged object is added),
    /// once, and written to every object by one fief_results_set_value
    /// call: no object is read or made.  The objects are those in the
    /// results when the call begins, so results filtered on `key` may be
    /// empty afterwards.  A list, set or map property, a non-nil embedded
    /// object, a dictionary or array describing a linked object and a mixed
    /// value holding a nested collection are written object by object, as
    /// RealmSwift writes them (each object gets its own copy of a collection
    /// and its own new linked object; an embedded object can have one parent
    /// only).
    ///
    /// Traps, as RealmSwift does, outside a write transaction, on frozen
    /// results, and (when there are objects) for a name that is not a
    /// property, the primary key, or a value that does not convert.  Empty
    /// results change nothing.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let objectClass = elements.binding else {
            preconditionFailure("Cannot set '\(key)' on \(name) results: results of values have no properties")
        }
        if core.isFrozen {
            preconditionFailure("Attempting to modify a frozen object - call thaw on the Object instance first.")
        }
        if !core.isInWriteTransaction {
            preconditionFailure("Attempting to modify object outside of a write transaction - call beginWrite on a Realm instance first.")
        }
        // RealmSwift sets each object in turn, so empty results check nothing more.
        if isEmpty { return }
        let info = objectClass.info
        guard let index = info.propertyIndex[key] else {
            preconditionFailure("Property '\(key)' does not exist on class '\(info.className)': it cannot be read or set by key")
        }
        let property = info.properties[index]
        if property.isPrimaryKey {
            preconditionFailure("Primary key can't be changed after an object is inserted: '\(info.className).\(key)' cannot be set on every object of results")
        }
        guard let typed = property.valueType._fiefFromAny(value) else { fiefInvalidValue(value, for: property, of: info) }
        let realm = Realm(core: core)
        let arena = _FiefArena()
        let converted: fief_value_t
        if typed is FiefCollectionProtocol {
            return setOneByOne(value, forKey: key)
        } else if let mixed = typed as? AnyRealmValue {
            let detached = mixed.fiefDetached()
            if detached.fiefIsNested { return setOneByOne(value, forKey: key) }
            converted = detached._fiefValue(in: arena, realm: realm)
        } else if let target = property.linkTarget {
            if target is EmbeddedObject.Type {
                if typed._fiefStored != nil { return setOneByOne(value, forKey: key) }
                converted = .null
            } else {
                // A dictionary or array describes a new object for each object set.
                if let given = fiefUnwrap(value), !(given is NSNull), !(given is ObjectBase) { return setOneByOne(value, forKey: key) }
                converted = typed._fiefValue(in: arena, realm: realm)
            }
        } else {
            converted = typed._fiefValue(in: arena, realm: realm)
        }
        let ok = withExtendedLifetime(arena) {
            fief_results_set_value(handle.raw, objectClass.propertyKeys[index], converted)
        }
        if !ok { trapForSetValue(CError.last(), key: key) }
    }

    /// `setValue(_:forKey:)` object by object (`Object.setValue(_:forKey:)`
    /// on each object of the results as they are now).
    private func setOneByOne(_ value: Any?, forKey key: String) {
        fiefSetValue(value, forKey: key, onEach: Array(self), in: "Results")
    }

    private func trapForSetValue(_ error: CError, key: String) -> Never {
        switch error.code {
        case FIEF_ERR_NOT_IN_TRANSACTION:
            preconditionFailure("Attempting to modify object outside of a write transaction - call beginWrite on a Realm instance first. [\(error.message)]")
        case FIEF_ERR_FROZEN:
            preconditionFailure("Attempting to modify a frozen object - call thaw on the Object instance first. [\(error.message)]")
        case FIEF_ERR_PRIMARY_KEY_CHANGE:
            preconditionFailure("Primary key can't be changed after an object is inserted. [\(error.message)]")
        case FIEF_ERR_INVALIDATED_RESULTS, FIEF_ERR_CLOSED:
            preconditionFailure("Results have been invalidated [\(error.message)]")
        default:
            fiefTrap("Cannot set '\(key)' of every \(name) object", error)
        }
    }
}

extension LinkingObjects: FiefKeyValueSettable {
    /// Sets the property named `key` of every linking object to `value`, in
    /// a write transaction (see `Results.setValue(_:forKey:)`: one
    /// fief_results_set_value call).  The linking objects of an unmanaged
    /// object are none: nothing changes.
    public func setValue(_ value: Any?, forKey key: String) {
        results?.setValue(value, forKey: key)
    }
}

extension List: FiefKeyValueSettable {}
extension MutableSet: FiefKeyValueSettable {}
extension AnyRealmCollection: FiefKeyValueSettable {}

extension AnyRealmCollection {
    /// Sets the property named `key` of every object of the wrapped
    /// collection to `value`, as the wrapped collection's
    /// `setValue(_:forKey:)` does (on a managed one: one
    /// fief_results_set_value call).
    public func setValue(_ value: Any?, forKey key: String) {
        guard let settable = box as? FiefKeyValueSettingBox else {
            preconditionFailure("Cannot set '\(key)' on this collection: it does not support key-value coding")
        }
        settable.setValue(value, forKey: key)
    }
}

/// A type-erasing box whose collection supports `setValue(_:forKey:)`.
protocol FiefKeyValueSettingBox {
    func setValue(_ value: Any?, forKey key: String)
}

extension ConcreteRealmCollectionBox: FiefKeyValueSettingBox {
    func setValue(_ value: Any?, forKey key: String) {
        guard let settable = base as? FiefKeyValueSettable else {
            preconditionFailure("Cannot set '\(key)' on a \(Base.self): it does not support key-value coding")
        }
        settable.setValue(value, forKey: key)
    }
}
