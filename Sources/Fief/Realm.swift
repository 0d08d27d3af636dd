import CFief
import Foundation

/// A realm: one database file (or in-memory database) and the objects in it
/// (RealmSwift's `Realm`).
///
///     let realm = try Realm()
///     try realm.write {
///         realm.add(dog)
///     }
///     let puppies = realm.objects(Dog.self).filter("age < 2")
///
/// Opening the same configuration twice on one thread gives the same
/// underlying realm (so a nested `try Realm()` sees the open write
/// transaction); values are cheap to copy.
public struct Realm {
    let core: RealmCore

    init(core: RealmCore) {
        self.core = core
    }

    // MARK: Opening

    /// Opens the realm of `Realm.Configuration.defaultConfiguration`
    /// (fief_realm_open).  `queue` is accepted for source compatibility and ignored.
    /// - Throws: `Realm.Error` when the file cannot be opened or its schema does not fit.
    public init(queue: DispatchQueue? = nil) throws {
        try self.init(configuration: .defaultConfiguration, queue: queue)
    }

    /// Opens the realm `configuration` describes (fief_config_new,
    /// fief_config_set_*, fief_realm_open).  `queue` is ignored.
    /// - Throws: `Realm.Error` when the file cannot be opened or its schema does not fit.
    public init(configuration: Configuration, queue: DispatchQueue? = nil) throws {
        core = try RealmCore.open(configuration)
    }

    /// Opens the file at `fileURL` with the default configuration's other
    /// settings (fief_realm_open).
    /// - Throws: `Realm.Error` when the file cannot be opened.
    public init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    /// The configuration the realm was opened with.
    public var configuration: Configuration { core.configuration }

    /// Whether the realm holds no objects at all (fief_realm_get_schema,
    /// fief_realm_get_objects, fief_results_count).
    public var isEmpty: Bool {
        guard let raw = fief_realm_get_schema(core.handle.raw) else { return true }
        let schema = CHandle(raw)
        var count = 0
        guard fief_schema_get_class_count(schema.raw, &count) else { return true }
        for index in 0..<count {
            var cls = fief_class_info_t()
            guard fief_schema_get_class(schema.raw, index, &cls),
                  let results = fief_realm_get_objects(core.handle.raw, cls.key) else { continue }
            let handle = CHandle(results)
            var objects = 0
            if fief_results_count(handle.raw, &objects), objects > 0 { return false }
        }
        return true
    }

    // MARK: Transactions

    /// Runs `block` in a write transaction and commits it (fief_realm_begin_write,
    /// fief_realm_commit).  If `block` throws, the transaction is cancelled
    /// (fief_realm_cancel) and the error rethrown.  If `block` commits or
    /// cancels itself, nothing more is done.  The commit is left out of the
    /// change sets of `tokens` (see `commitWrite(withoutNotifying:)`).
    /// - Throws: what `block` throws, or `Realm.Error` if the commit fails.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try beginWrite(throwingVersionLimit: true)
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Begins a write transaction (fief_realm_begin_write), waiting for any
    /// other writer.  Traps (as RealmSwift does) when the realm is already in
    /// a write transaction, frozen or read-only.
    public func beginWrite() {
        try! beginWrite(throwingVersionLimit: false)
    }

    /// `beginWrite`; `write` throws the version limit's error (as
    /// RealmSwift's `write` throws it), `beginWrite` traps with it.
    private func beginWrite(throwingVersionLimit: Bool) throws {
        core.syncRegistry()
        guard fief_realm_begin_write(core.handle.raw) else {
            let error = CError.last()
            switch error.code {
            case FIEF_ERR_TOO_MANY_VERSIONS where throwingVersionLimit:
                throw Realm.Error(error)
            case FIEF_ERR_TOO_MANY_VERSIONS:
                fiefTrap(error.message, error)
            case FIEF_ERR_ALREADY_IN_TRANSACTION:
                fiefTrap("The Realm is already in a write transaction", error)
            case FIEF_ERR_FROZEN:
                fiefTrap("Can't perform transactions on a frozen Realm", error)
            case FIEF_ERR_READ_ONLY:
                fiefTrap("Can't perform transactions on read-only Realms", error)
            default:
                fiefTrap("Cannot begin a write transaction", error)
            }
        }
    }

    /// Commits the write transaction durably (fief_realm_commit).  Traps when
    /// there is none.  With `tokens`, the commit is left out of their blocks'
    /// next change sets, which still have the changes of earlier and later
    /// commits (fief_realm_commit_without_notifying; RealmSwift's
    /// `withoutNotifying`); realm notification blocks are told as usual.
    /// Traps for a token of another realm, as RealmSwift does.
    /// - Throws: `Realm.Error` when the file cannot be written (nothing of the
    ///   transaction is kept).
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        let handles: [OpaquePointer?] = tokens.compactMap(\.currentHandle)
        let committed = handles.isEmpty ? fief_realm_commit(core.handle.raw)
            : handles.withUnsafeBufferPointer { fief_realm_commit_without_notifying(core.handle.raw, $0.baseAddress, $0.count) }
        guard committed else {
            let error = CError.last()
            if error.code == FIEF_ERR_INVALID_ARGUMENT || error.code == FIEF_ERR_INVALID_HANDLE {
                fiefTrap("Incorrect Realm: only notifications for the Realm being modified can be skipped.", error)
            }
            if error.isCategory(FIEF_ERR_CAT_LOGIC) {
                fiefTrap("Can't commit a non-existing write transaction", error)
            }
            core.writeEnded(committed: false)
            throw Realm.Error(error)
        }
        core.writeEnded(committed: true)
    }

    /// Cancels the write transaction (fief_realm_cancel): nothing of it is
    /// kept, and objects created in it become invalid.  Traps when there is none.
    public func cancelWrite() {
        fiefCheck(fief_realm_cancel(core.handle.raw), "Can't cancel a non-existing write transaction")
        core.writeEnded(committed: false)
    }

    /// Whether a write transaction is open (fief_realm_is_in_transaction).
    public var isInWriteTransaction: Bool { core.isInWriteTransaction }

    // MARK: Adding and creating

    /// How `add` and `create` treat an object whose primary key exists.
    public enum UpdatePolicy: Int, Sendable {
        /// Trap: an object with that primary key already exists (FIEF_UPDATE_POLICY_ERROR).
        case error = 1
        /// Overwrite every property of the existing object (FIEF_UPDATE_POLICY_ALL).
        case all = 2
        /// Overwrite only the properties whose value differs (FIEF_UPDATE_POLICY_MODIFIED).
        case modified = 3

        var fiefPolicy: fief_update_policy_t {
            switch self {
            case .error: return fief_update_policy_t(FIEF_UPDATE_POLICY_ERROR)
            case .all: return fief_update_policy_t(FIEF_UPDATE_POLICY_ALL)
            case .modified: return fief_update_policy_t(FIEF_UPDATE_POLICY_MODIFIED)
            }
        }
    }

    /// The classes of the realm's file (fief_realm_get_schema), whether or
    /// not this program declares them.
    public var schema: Schema {
        guard let raw = fief_realm_get_schema(core.handle.raw) else { fiefTrap("Cannot read the realm's schema", CError.last()) }
        let handle = CHandle(raw)
        var count = 0
        _ = fief_schema_get_class_count(handle.raw, &count)
        let classes = (0..<count).compactMap { ObjectSchema(schema: handle.raw, index: $0) }
        guard let listed = core.explicitClassNames else { return Schema(objectSchema: classes) }
        return Schema(objectSchema: classes.filter { listed.contains($0.className) })
    }

    /// Adds an unmanaged object to the realm, in a write transaction
    /// (fief_object_create); the object becomes managed.  Adding an object
    /// already managed by this realm does nothing.  The unmanaged objects it
    /// links to are added with it.  With `.modified` or `.all`, an existing
    /// object with the same primary key is updated instead, and so are the
    /// nested objects with a primary key; `.modified` updates the existing
    /// object's embedded objects (and lists and maps of them) in place, `.all`
    /// replaces them.  Traps (as RealmSwift does) outside a write
    /// transaction, for a duplicate primary key with `.error`, and for
    /// objects of another realm (`create` copies those).
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        if let managed = object._fiefManaged {
            if managed.core === core || (managed.core.path == core.path && !managed.core.isFrozen && !core.isFrozen) {
                guard managed.isValid else { preconditionFailure("Adding a deleted or invalidated object to a Realm is not permitted") }
                return
            }
            preconditionFailure("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        let binding = core.binding(for: type(of: object))
        let info = binding.info
        if update != .error && info.primaryKeyIndex == nil {
            preconditionFailure("'\(info.className)' does not have a primary key and can not be updated")
        }
        let arena = _FiefArena()
        var keys: [fief_property_key_t] = []
        var values: [fief_value_t] = []
        // Links to unmanaged objects are set once this object is managed
        // (they may link back to it): the whole graph is added, once each.
        var later: [(index: Int, target: ObjectBase)] = []
        // Collections (lists, sets, maps) are written once the object is
        // managed, from a copy of their elements: binding the object makes
        // the same instances live.
        var lists: [(index: Int, elements: any _Persistable)] = []
        // Mixed values holding unmanaged objects or nested collections are
        // written once the object exists too (as links and collections are).
        var mixedLater: [(index: Int, value: AnyRealmValue)] = []
        ObjectSchemaInfo.forEachPersisted(of: object) { name, persisted in
            guard let index = info.propertyIndex[name] else { return }
            let value = persisted.unmanagedValue
            if let list = value as? FiefCollectionProtocol {
                lists.append((index, list.fiefSnapshot()))
                return
            }
            if update == .modified, info.properties[index].linkTarget is EmbeddedObject.Type,
               let child = value._fiefStored as? EmbeddedObject, child._fiefManaged == nil {
                // Written once the object exists: in place if it has one already.
                later.append((index, child))
                return
            }
            keys.append(binding.propertyKeys[index])
            if let mixed = value as? AnyRealmValue, mixed.fiefNeedsDeferredWrite {
                mixedLater.append((index, mixed.fiefDetached()))
                values.append(.null)
                return
            }
            if info.properties[index].linkTarget != nil, let target = value._fiefStored as? ObjectBase, target._fiefManaged == nil {
                later.append((index, target))
                values.append(.null)
            } else {
                values.append(value._fiefValue(in: arena, realm: self))
            }
        }
        let raw = createRow(binding, keys: keys, values: values, policy: update, arena: arena)
        let managed = ManagedRow(handle: CHandle(raw), core: core, binding: binding)
        object._fiefManaged = managed
        // Nested objects get the update policy too (RealmSwift's rule), and
        // with `.modified` the embedded objects an existing object holds are
        // updated in place rather than replaced.
        for (index, elements) in lists {
            if update == .modified && info.properties[index].linkTarget is EmbeddedObject.Type
                && info.properties[index].collectionType == fief_collection_type_t(FIEF_COLLECTION_LIST) {
                managed.updateEmbeddedList(index, fiefObjects(in: elements).compactMap { $0 as? EmbeddedObject })
                continue
            }
            if update == .modified && info.properties[index].linkTarget is EmbeddedObject.Type,
               let map = elements as? FiefEmbeddedMapSource {
                managed.updateEmbeddedMap(index, map.fiefEmbeddedEntries)
                continue
            }
            if update != .error { addUnmanagedObjects(in: elements, update: update) }
            managed.write(index, elements)
        }
        for (index, value) in mixedLater {
            managed.writeMixed(index, value)
        }
        for (index, target) in later {
            if let embedded = target as? EmbeddedObject {
                if update == .modified {
                    managed.writeEmbeddedUpdating(index, embedded)
                } else {
                    managed.writeEmbedded(index, embedded)
                }
            } else if let object = target as? Object {
                if object._fiefManaged == nil { add(object, update: nestedPolicy(type(of: object), update)) }
                managed.write(index, object)
            }
        }
    }

    /// Make `object` something a link of this realm can point to: add it if
    /// unmanaged; trap (as RealmSwift does) for an object of another file.
    func makeLinkable(_ object: Object) {
        guard let managed = object._fiefManaged else {
            add(object)
            return
        }
        guard managed.core === core || managed.core.path == core.path else {
            preconditionFailure("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        guard managed.isValid else { preconditionFailure("Cannot link to a deleted or invalidated object") }
    }

    /// Adds every object of `objects` (see `add(_:update:)`).
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        for object in objects {
            add(object, update: update)
        }
    }

    /// Creates an object of `type` from `value` and returns it, managed, in
    /// a write transaction (fief_object_find_by_primary_key, fief_object_create).  `value` is
    /// a `[String: Any]` dictionary of property values, an array of values in
    /// property order, or another object whose same-named properties are
    /// copied.  Properties not given get the class's default values; with
    /// `.modified` or `.all` and an existing primary key, only the given
    /// properties of the existing object change.  What is given is copied,
    /// as in RealmSwift: linked objects this realm manages are linked,
    /// others (unmanaged, or of another realm) are copied and stay as they
    /// were, as do embedded objects; nested objects with a primary key get
    /// `update`, those without are always new.  An object of this realm
    /// given with `.modified` or `.all` is returned as it is.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        createObject(core.binding(for: type), value: value, update: update, as: type) { type.init() }
    }

    /// `create` for a class bound as `binding`, made as `type`; `defaults`
    /// gives an instance holding the class's default values (nil: each
    /// type's default).
    func createObject<T: ObjectBase>(_ binding: ClassBinding, value: Any, update: UpdatePolicy, as type: T.Type,
                                     defaults: () -> ObjectBase?) -> T {
        let info = binding.info
        if update != .error && info.primaryKeyIndex == nil {
            preconditionFailure("'\(info.className)' does not have a primary key and can not be updated")
        }
        // (Swift arrays and dictionaries are not cast to a class: that bridges them, every level.)
        if !(value is [String: Any?]) && !(value is [Any?]), let object = value as? ObjectBase, let managed = object._fiefManaged {
            guard managed.isValid else { preconditionFailure(invalidatedObjectMessage) }
            // An object this realm manages, given with an update policy, is
            // already what `create` would make (RealmSwift's rule).
            if update != .error && manages(managed) && managed.binding.classKey == binding.classKey, let same = object as? T {
                return same
            }
        }
        let given = Realm.propertyValues(from: value, info: info)
        let arena = _FiefArena()
        // Links to objects copied here are written once this object exists
        // (a copied object may link back to the object given: a cycle).
        var linksLater: [(index: Int, object: Object)] = []
        var embedded: [(index: Int, value: Any)] = []
        // Collections (lists, sets, maps) are written once the object exists.
        var lists: [(index: Int, value: Any?)] = []
        // So are mixed values holding nested collections.
        var mixedLater: [(index: Int, value: AnyRealmValue)] = []
        func convert(_ index: Int, _ given: Any?) -> fief_value_t {
            let property = info.properties[index]
            if property.type == FIEF_TYPE_MIXED {
                // A mixed value: anything `AnyRealmValue` takes (objects are
                // added or linked, nested values become nested collections).
                guard let mixed = AnyRealmValue._fiefFromAny(given) else {
                    preconditionFailure("Invalid value '\(fiefDescribe(given))' of type '\(Swift.type(of: fiefUnwrap(given) ?? "nil" as Any))' for 'mixed' property '\(info.className).\(property.name)'")
                }
                if mixed.fiefIsNested {
                    mixedLater.append((index, mixed.fiefDetached()))
                    return .null
                }
                return mixed._fiefValue(in: arena, realm: self)
            }
            // Enums and custom persistable types give their stored values.
            var any = fiefUnwrap(given)
            if let persistable = any as? any _Persistable, !(persistable is ObjectBase) { any = persistable._fiefStored }
            if property.linkTarget is EmbeddedObject.Type {
                // Created in place once the parent exists (below).
                if let given = fiefUnwrap(any), given is [String: Any?] || given is [Any?] || !(given is NSNull) { embedded.append((index, given)) }
                return .null
            }
            if let targetName = property.dynamicLinkTarget {
                // A link of a class known only by name (the dynamic API).
                switch any {
                case nil, is NSNull: return .null
                case let object as Object:
                    if needsCopy(object) {
                        linksLater.append((index, object))
                        return .null
                    }
                    return linkTarget(for: object, named: targetName, update: update)._fiefValue(in: arena)
                case let some?:
                    let policy = core.dynamicBinding(named: targetName).info.primaryKeyIndex == nil ? .error : update
                    return dynamicCreate(targetName, value: some, update: policy)._fiefValue(in: arena)
                }
            }
            if let target = property.linkTarget as? Object.Type {
                // A link: an object of this realm, or a copy of one (an
                // unmanaged object stays unmanaged), or the values of a new one.
                switch fiefUnwrap(any) {
                case nil, is NSNull: return .null
                case let object as Object:
                    if needsCopy(object) {
                        linksLater.append((index, object))
                        return .null
                    }
                    return linkTarget(for: object, of: target, update: update)._fiefValue(in: arena)
                case let some?:
                    return target._fiefCreate(in: self, value: some, update: nestedPolicy(target, update))._fiefValue(in: arena)
                }
            }
            var source = fiefUnwrap(any)
            if property.type == FIEF_TYPE_DECIMAL128, let number = source, !(number is Decimal128) {
                source = Decimal128(fiefConverting: number)
            }
            guard let converted = fiefValue(fromAny: source, arena: arena, propertyType: property.type) else {
                preconditionFailure("Invalid value '\(fiefDescribe(any))' of type '\(Swift.type(of: any ?? "nil"))' for '\(PropertyType(fiefType: property.type))\(property.isOptional ? "?" : "")' property '\(info.className).\(property.name)'")
            }
            return converted
        }
        var onlyGiven = false
        if update != .error, let pkIndex = info.primaryKeyIndex, let pk = given[pkIndex] {
            var found = false
            let existing = withExtendedLifetime(arena) {
                fief_object_find_by_primary_key(core.handle.raw, binding.classKey, convert(pkIndex, pk), &found)
            }
            if let existing {
                _ = fief_release(UnsafeRawPointer(existing))
                onlyGiven = true
            } else if found {
                fiefTrap("Cannot look up the primary key of '\(info.className)'", CError.last())
            }
        }
        var keys: [fief_property_key_t] = []
        var values: [fief_value_t] = []
        if onlyGiven {
            for index in given.keys.sorted() {
                if info.properties[index].isCollection {
                    lists.append((index, given[index]!))
                    continue
                }
                keys.append(binding.propertyKeys[index])
                values.append(convert(index, given[index]!))
            }
        } else {
            // The class's defaults come from a fresh instance (they may differ per call, e.g. ObjectId.generate()).
            if let defaults = defaults() {
                ObjectSchemaInfo.forEachPersisted(of: defaults) { name, persisted in
                    guard let index = info.propertyIndex[name] else { return }
                    if info.properties[index].isCollection {
                        if let value = given[index] { lists.append((index, value)) }
                        return
                    }
                    keys.append(binding.propertyKeys[index])
                    if let value = given[index] {
                        values.append(convert(index, value))
                    } else if info.properties[index].type == FIEF_TYPE_MIXED || info.properties[index].linkTarget != nil {
                        // A default object is created with its parent.
                        values.append(convert(index, persisted.unmanagedValue))
                    } else {
                        values.append(persisted.unmanagedValue._fiefValue(in: arena))
                    }
                }
            } else {
                for (index, property) in info.properties.enumerated() {
                    if property.isCollection {
                        if let value = given[index] { lists.append((index, value)) }
                        continue
                    }
                    keys.append(binding.propertyKeys[index])
                    if let value = given[index] {
                        values.append(convert(index, value))
                    } else if property.linkTarget != nil {
                        values.append(.null)
                    } else {
                        // No class declares the defaults (a class of the file this
                        // program does not have, RealmSwift's RLMDynamicObject):
                        // the engine's defaults, as realm-core's.
                        values.append(fiefEngineDefault(property.valueType)._fiefValue(in: arena))
                    }
                }
            }
        }
        let raw = createRow(binding, keys: keys, values: values, policy: update, arena: arena)
        let object = core.makeObject(type, handle: raw, binding: binding)
        guard let row = object._fiefManaged else { return object }
        func writeLater() {
            for (index, target) in linksLater {
                if let name = info.properties[index].dynamicLinkTarget {
                    row.write(index, linkTarget(for: target, named: name, update: update))
                } else if let targetType = info.properties[index].linkTarget as? Object.Type {
                    row.write(index, linkTarget(for: target, of: targetType, update: update))
                }
            }
            for (index, value) in lists {
                row.writeAny(index, collectionValue(value, for: info.properties[index], update: update))
            }
            for (index, value) in mixedLater {
                row.writeMixed(index, value)
            }
            for (index, value) in embedded {
                // Created from the values given; an object given stays as it was.
                row.createEmbedded(index, from: value, update: update)
            }
        }
        if !(value is [String: Any?]) && !(value is [Any?]), let source = value as? ObjectBase {
            whileCopying(source, as: object, writeLater)
        } else {
            writeLater()
        }
        return object
    }

    /// The value given for a collection property (a list, set or map),
    /// with its objects linked or copied as `create` links or copies them
    /// (with `update`): the items of an array or collection for a list or
    /// set, the values of a dictionary or map for a map; embedded objects as
    /// their values; nil or `NSNull` as an empty collection.
    private func collectionValue(_ value: Any?, for property: PropertyInfo, update: UpdatePolicy) -> Any? {
        let isMap = property.collectionType == fief_collection_type_t(FIEF_COLLECTION_MAP)
        guard let source = fiefUnwrap(value), source is [Any?] || source is [String: Any?] || !(source is NSNull) else {
            // nil or NSNull: an empty collection (RealmSwift's rule).
            return isMap ? [String: Any?]() : [Any?]()
        }
        if property.linkTarget is EmbeddedObject.Type {
            // Embedded objects are created from values: those given stay as
            // they were, and so do the objects they link to (copied).
            return fiefCopyable(source) { linkable($0, update: update) }
        }
        guard let target = property.linkTarget as? Object.Type else { return value }
        // The elements of a List, MutableSet or Map given (of this realm or another).
        let elements = source is FiefCollectionProtocol ? (fiefCopyable(source) { $0 } ?? source) : source
        func linked(_ item: Any?) -> Any? {
            switch fiefUnwrap(item) {
            case let object as Object:
                if let name = property.dynamicLinkTarget { return linkTarget(for: object, named: name, update: update) }
                return linkTarget(for: object, of: target, update: update)
            case nil, is NSNull:
                return nil
            case let some?:
                // Objects without a primary key are always new (RealmSwift's rule).
                if let name = property.dynamicLinkTarget {
                    // A class known only by name (the dynamic API).
                    let policy = core.dynamicBinding(named: name).info.primaryKeyIndex == nil ? .error : update
                    return dynamicCreate(name, value: some, update: policy)
                }
                let policy = ObjectSchemaInfo.of(target).primaryKeyIndex == nil ? .error : update
                return target._fiefCreate(in: self, value: some, update: policy)
            }
        }
        if isMap {
            guard let entries = elements as? [String: Any?] else { return value }
            return entries.mapValues(linked)
        }
        guard let items = elements as? [Any?] else { return value }
        return items.map(linked)
    }

    /// Property values by index from a dictionary, an array or an object.
    static func propertyValues(from value: Any, info: ObjectSchemaInfo) -> [Int: Any?] {
        var result: [Int: Any?] = [:]
        // Swift dictionaries and arrays first: casting one to a class
        // (ObjectBase) bridges it to Foundation, every level, recursively.
        if !(value is [String: Any?]) && !(value is [Any?]), let object = value as? ObjectBase {
            for (name, propertyValue) in object._fiefPropertyValues() {
                if let index = info.propertyIndex[name] { result[index] = propertyValue }
            }
        } else if let dictionary = value as? [String: Any?] {
            for (name, propertyValue) in dictionary {
                guard let index = info.propertyIndex[name] else {
                    preconditionFailure("Invalid property name '\(name)' for class '\(info.className)'")
                }
                result[index] = propertyValue
            }
        } else if let array = value as? [Any?] {
            precondition(array.count <= info.properties.count,
                         "Invalid array input: more values (\(array.count)) than properties (\(info.properties.count)) of '\(info.className)'")
            for (index, propertyValue) in array.enumerated() { result[index] = propertyValue }
        } else {
            preconditionFailure("Invalid value '\(value)' to initialize object of type '\(info.className)': expected a dictionary, an array or an object")
        }
        return result
    }

    /// fief_object_create, trapping where RealmSwift traps.
    private func createRow(_ binding: ClassBinding, keys: [fief_property_key_t], values: [fief_value_t],
                           policy: UpdatePolicy, arena: _FiefArena) -> OpaquePointer {
        let raw = withExtendedLifetime(arena) {
            keys.withUnsafeBufferPointer { k in
                values.withUnsafeBufferPointer { v in
                    fief_object_create(core.handle.raw, binding.classKey, k.baseAddress, v.baseAddress, keys.count,
                                       policy.fiefPolicy)
                }
            }
        }
        guard let raw else {
            let error = CError.last()
            switch error.code {
            case FIEF_ERR_NOT_IN_TRANSACTION:
                fiefTrap("Cannot modify managed objects outside of a write transaction", error)
            case FIEF_ERR_DUPLICATE_PRIMARY_KEY:
                fiefTrap("Attempting to create an object of type '\(binding.info.className)' with an existing primary key value", error)
            default:
                fiefTrap("Cannot create an object of type '\(binding.info.className)'", error)
            }
        }
        return raw
    }

    // MARK: Deleting

    /// Deletes a managed object of this realm, in a write transaction
    /// (fief_object_delete); the object becomes invalidated.
    public func delete(_ object: ObjectBase) {
        guard let managed = object._fiefManaged, managed.core.path == core.path else {
            preconditionFailure("Can only delete an object from the Realm it belongs to.")
        }
        fiefCheck(fief_object_delete(managed.handle.raw), "Cannot delete object of type '\(managed.binding.info.className)'")
    }

    /// Deletes every object of `objects` (fief_object_delete for each).
    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase {
        for object in Array(objects) {
            delete(object)
        }
    }

    /// Deletes every object of `objects` in one call (fief_results_delete_all).
    public func delete<Element: ObjectBase>(_ objects: Results<Element>) {
        fiefCheck(fief_results_delete_all(objects.handle.raw), "Cannot delete the objects of \(objects)")
    }

    /// Deletes every object of every class, in a write transaction
    /// (fief_realm_delete_all).
    public func deleteAll() {
        fiefCheck(fief_realm_delete_all(core.handle.raw), "Cannot delete all objects")
    }

    // MARK: Reading

    /// Every object of `type`, as live results (fief_realm_get_objects);
    /// for a projection class, a projection of every object of its root
    /// class.  Registers the class in the realm's schema on first use if needed.
    public func objects<Element: RealmFetchable>(_ type: Element.Type) -> Results<Element> {
        guard let objectType = type as? ObjectBase.Type ?? (type as? any FiefProjectionType.Type)?.fiefRootType else {
            preconditionFailure("\(type) is not an Object type")
        }
        let binding = core.binding(for: objectType)
        guard let raw = fief_realm_get_objects(core.handle.raw, binding.classKey) else {
            fiefTrap("Cannot read the objects of '\(binding.info.className)'", CError.last())
        }
        return Results(handle: CHandle(raw), core: core, binding: binding)
    }

    /// The object of `type` whose primary key is `key`, or nil
    /// (fief_object_find_by_primary_key).  Traps if the class has no primary key or `key`
    /// has the wrong type.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        findObject(core.binding(for: type), primaryKey: key, as: type)
    }

    /// The object of the class bound as `binding` whose primary key is `key`, as `type`.
    func findObject<Element: ObjectBase, KeyType>(_ binding: ClassBinding, primaryKey key: KeyType, as type: Element.Type) -> Element? {
        guard binding.info.primaryKeyIndex != nil else {
            preconditionFailure("'\(binding.info.className)' does not have a primary key")
        }
        let arena = _FiefArena()
        guard let value = fiefValue(fromAny: key, arena: arena) else {
            preconditionFailure("Invalid primary key value '\(key)' of type \(KeyType.self) for '\(binding.info.className)'")
        }
        var failed = false
        let raw = withExtendedLifetime(arena) {
            fief_object_find_by_primary_key(core.handle.raw, binding.classKey, value, &failed)
        }
        guard let raw else {
            if failed { fiefTrap("Invalid primary key for '\(binding.info.className)'", CError.last()) }
            return nil
        }
        return core.makeObject(type, handle: raw, binding: binding)
    }

    // MARK: Versions

    /// Moves the realm to the newest commit (fief_realm_refresh); returns
    /// whether anything changed.  Does nothing (false) in a write transaction
    /// or on a frozen realm.
    @discardableResult
    public func refresh() -> Bool {
        if core.isFrozen || isInWriteTransaction { return false }
        var didRefresh = false
        fiefCheck(fief_realm_refresh(core.handle.raw, &didRefresh), "Cannot refresh the realm")
        return didRefresh
    }

    /// Whether the realm is a frozen snapshot (fief_realm_is_frozen).
    public var isFrozen: Bool { core.isFrozen }

    /// A frozen snapshot of the realm's current version, readable from any
    /// thread (fief_realm_freeze).
    public func freeze() -> Realm {
        Realm(core: core.frozenCore())
    }

    /// The live realm of a frozen one (fief_realm_thaw); a live realm returns itself.
    public func thaw() -> Realm {
        Realm(core: core.liveCore())
    }

    /// A frozen copy of `obj` (see `Object.freeze()`).
    public func freeze<T: Object>(_ obj: T) -> T { obj.freeze() }

    /// The live version of a frozen object, or nil if it was deleted.
    public func thaw<T: Object>(_ obj: T) -> T? { obj.thaw() }

    /// Releases the realm's snapshot (fief_realm_invalidate): every object and
    /// results read from it so far becomes invalidated; the next read starts
    /// from the newest version.  An open write transaction is cancelled first.
    /// Writes a compacted copy of this realm's current version to a new
    /// file at `fileURL` (RealmSwift's `writeCopy(toFile:encryptionKey:)`).
    /// The copy holds no free pages, so it is also how a file that grew
    /// shrinks; damaged data found on the way is left out of it.
    ///
    /// Rests on `fief_realm_write_copy`.
    /// - Throws: `Realm.Error` when the file exists or cannot be written,
    ///   inside a write transaction, or when an encryption key is given
    ///   (Fief does not encrypt files yet).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        if encryptionKey != nil {
            throw Realm.Error(code: .fail, message: "Fief does not support encrypted realms yet")
        }
        guard fief_realm_write_copy(core.handle.raw, fileURL.path, nil, nil, nil) else {
            let error = CError.last()
            throw Realm.Error(error, code: error.code == FIEF_ERR_INVALID_ARGUMENT ? .fileExists : nil)
        }
    }

    public func invalidate() {
        if core.isFrozen { return }
        if isInWriteTransaction {
            print("WARNING: A Realm was invalidated during a write transaction; all pending changes have been rolled back.")
            cancelWrite()
        }
        fiefCheck(fief_realm_invalidate(core.handle.raw), "Cannot invalidate the realm")
        core.invalidateObjects()
    }

    // MARK: Files

    /// Deletes the realm's files (fief_file_delete); returns whether the data
    /// file existed.  In-memory configurations have no files (false).
    /// - Throws: `Realm.Error` (`.alreadyOpen`) while the realm is open in this
    ///   process, or when the files cannot be removed.
    @discardableResult
    public static func deleteFiles(for config: Realm.Configuration) throws -> Bool {
        guard config.inMemoryIdentifier == nil, let path = config.fileURL?.path else { return false }
        var deleted = false
        guard fief_file_delete(path, &deleted) else {
            let error = CError.last()
            throw Realm.Error(error, code: error.code == FIEF_ERR_FILE_LOCKED ? .alreadyOpen : nil)
        }
        return deleted
    }

    /// Whether the configuration's file exists.
    public static func fileExists(for config: Realm.Configuration) -> Bool {
        guard config.inMemoryIdentifier == nil, let path = config.fileURL?.path else { return false }
        return FileManager.default.fileExists(atPath: path)
    }
}

extension Realm: Equatable {
    /// Whether both values are the same realm.
    public static func == (lhs: Realm, rhs: Realm) -> Bool {
        lhs.core === rhs.core
    }
}

extension Realm: CustomStringConvertible {
    public var description: String {
        "Realm(\(core.path)\(core.isFrozen ? ", frozen" : ""))"
    }
}

/// The schema version stored in the realm file at `fileURL`, read without
/// changing the file (RealmSwift's `schemaVersionAtURL(_:encryptionKey:)`).
///
/// Rests on `fief_realm_open` (read-only, no schema) and
/// `fief_realm_get_schema_version`.
/// - Throws: `Realm.Error` when the file is missing (`.invalidDatabase`, "has
///   not been initialized", as in RealmSwift) or not a realm, or when
///   an encryption key is given (Fief does not encrypt files yet).
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    if encryptionKey != nil {
        throw Realm.Error(code: .fail, message: "Fief does not support encrypted realms yet")
    }
    guard let config = fief_config_new() else { throw Realm.Error(CError.last()) }
    defer { _ = fief_release(UnsafeRawPointer(config)) }
    guard fief_config_set_path(config, fileURL.path), fief_config_set_read_only(config, true),
          let realm = fief_realm_open(config) else {
        let error = CError.last()
        if error.code == FIEF_ERR_FILE_NOT_FOUND {
            // RealmSwift's words and code for a file never opened.
            throw Realm.Error(code: .invalidDatabase, message: "Realm at path '\(fileURL.path)' has not been initialized.", fileURL: fileURL)
        }
        throw Realm.Error(error)
    }
    defer { _ = fief_release(UnsafeRawPointer(realm)) }
    var version: UInt64 = 0
    guard fief_realm_get_schema_version(realm, &version) else { throw Realm.Error(CError.last()) }
    return version
}

/// The value the engine gives a property of `type` written without one:
/// the type's default, except that the types whose Swift default is made
/// anew (ObjectId, UUID, Date) take the engine's fixed zero (the zero
/// ObjectId and UUID, 1970-01-01) as realm-core does for a class no Swift
/// class declares.
func fiefEngineDefault(_ type: any _Persistable.Type) -> any _Persistable {
    switch type {
    case is ObjectId.Type: return ObjectId()
    case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    case is Date.Type: return Date(timeIntervalSince1970: 0)
    default: return type._fiefDefault()
    }
}
