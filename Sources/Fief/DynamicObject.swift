import CFief
import Foundation

/// An object of a class known only by name (RealmSwift's `DynamicObject`),
/// as the dynamic API returns it: its properties are those of the class in
/// the realm's file, read and written by name.
///
///     let dogs = realm.dynamicObjects("Dog").filter("age > 2")
///     let rex = dogs[0]
///     rex["name"]                      // "Rex"
///     rex.age                          // dynamic member lookup: 3
///     try realm.write { rex["age"] = 4 }
///     let toy = rex["favoriteToy"] as? DynamicObject
///
/// Values read are those of the column's type (`Int`, `String?`, ...;
/// links as `DynamicObject`s); a list, set or map column reads as a live
/// `List`, `MutableSet` or `Map` of that type (`List<DynamicObject>`,
/// `MutableSet<String>`, `Map<String, DynamicObject?>`), written and
/// queried as typed ones are (lists, sets and maps of embedded objects are
/// read only).  A mixed column reads as the payload of its `AnyRealmValue`
/// (an `Int`, a `String`, an object, a nested `List<AnyRealmValue>`, ...;
/// nil for `.none`) and takes anything `AnyRealmValue` is made from; lists,
/// sets and maps of mixed values read as `List<AnyRealmValue>`, ...
/// Instances come only from a realm: `DynamicObject()` cannot be added.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The property named `key` (see `Object.subscript(key:)`).
    public override subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// The property named `member`: `object.name` reads `object["name"]`.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }
}

extension Realm {
    /// Every object of the file's class `typeName`, as live results of
    /// `DynamicObject`s (fief_realm_get_objects).  Traps, as RealmSwift does,
    /// if the file has no such class.
    public func dynamicObjects(_ typeName: String) -> Results<DynamicObject> {
        let binding = core.dynamicBinding(named: typeName)
        guard let raw = fief_realm_get_objects(core.handle.raw, binding.classKey) else {
            fiefTrap("Cannot read the objects of '\(typeName)'", CError.last())
        }
        return Results(handle: CHandle(raw), core: core, binding: binding)
    }

    /// Creates an object of the file's class `typeName` from `value` (a
    /// dictionary, an array in property order, or an object), in a write
    /// transaction, as `create(_:value:update:)` does (fief_object_create).
    /// Properties not given get the model class's defaults when this
    /// program declares the class, else each type's default.  Links may be
    /// given as objects or as the values of new objects of the target class.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        let binding = core.dynamicBinding(named: typeName)
        let declared = SchemaRegistry.type(named: typeName)
        return createObject(binding, value: value, update: update, as: DynamicObject.self) { declared?.init() }
    }

    /// The object of the file's class `typeName` whose primary key is `key`,
    /// or nil (fief_object_find_by_primary_key).  Traps if the class has no primary key.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        findObject(core.dynamicBinding(named: typeName), primaryKey: key, as: DynamicObject.self)
    }
}
