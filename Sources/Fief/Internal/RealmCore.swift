// The shared state behind `Realm` values: one C realm handle, the class
// bindings of its file, and a per-thread cache so that `try Realm()` twice on
// one thread gives the same realm (and the same write transaction), as in
// RealmSwift.

import CFief
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class RealmCore: @unchecked Sendable {
    /// The C realm.  Replaced only when the schema must be extended and the
    /// engine does not show new classes to an open handle.
    private(set) var handle: CHandle
    let configuration: Realm.Configuration
    let isFrozen: Bool
    let isReadOnly: Bool
    /// The file's path (`fief_realm_get_path`), to compare rows across realms.
    let path: String
    /// Bumped by `invalidate()`: objects and results made before are invalid.
    private(set) var generation: UInt64 = 0
    /// The objects `create` is copying into this realm at the moment (the
    /// object given → its copy), outermost first: a link back to
    /// one of them links to its copy (Internal/ObjectCopying.swift).  Used in
    /// a write transaction only, by the thread that holds it.
    var copiesInProgress: [FiefCopySource: Object] = [:]

    private let lock = NSLock()
    private var bindings: [ObjectIdentifier: ClassBinding] = [:]
    /// How many registry types were bound when we last looked.
    private var syncedRegistryCount = 0
    /// The last frozen realm made, while something else holds it (held
    /// weakly: a frozen realm nobody uses must not pin its version, which
    /// counts against `maximumNumberOfActiveVersions`).
    private var frozenCache: (version: UInt64, core: WeakFrozenCore)?
    /// Set once notification deliveries are scheduled (Notifications.swift).
    private var deliveriesScheduled = false
    private let cacheKey: String?

    private init(handle: CHandle, configuration: Realm.Configuration, cacheKey: String?) {
        self.handle = handle
        self.configuration = configuration
        self.cacheKey = cacheKey
        var frozen = false
        _ = fief_realm_is_frozen(handle.raw, &frozen)
        isFrozen = frozen
        var readOnly = false
        _ = fief_realm_is_read_only(handle.raw, &readOnly)
        isReadOnly = readOnly
        path = fief_realm_get_path(handle.raw).map { String(cString: $0) } ?? ""
        if configuration.inMemoryIdentifier == nil {
            let core = WeakCore(self)
            RealmCore.fileCores.withLock { cores in
                cores.removeAll { $0.core == nil }
                cores.append(core)
            }
        }
    }

    // MARK: Opening

    private final class WeakCore {
        weak var core: RealmCore?
        init(_ core: RealmCore) { self.core = core }
    }

    private static let threadCache = Locked<[String: WeakCore]>([:])

    /// Every live realm of a file in the process, frozen ones too (what
    /// realm-core's per-file coordinator holds).
    private static let fileCores = Locked<[WeakCore]>([])

    private static func threadKey(_ configuration: Realm.Configuration) -> String {
        "\(pthread_self())|\(configuration.cacheIdentity)"
    }

    /// The live realm for `configuration` on this thread: the cached one, or
    /// a newly opened one (fief_config_new, fief_config_set_*, fief_realm_open).
    static func open(_ configuration: Realm.Configuration) throws -> RealmCore {
        let key = threadKey(configuration)
        if let core = threadCache.withLock({ $0[key]?.core }) { return core }
        try refuseOtherReadPermissions(configuration)
        if configuration.encryptionKey != nil {
            throw Realm.Error(code: .fail, message: "Encryption is not supported by Fief")
        }
        if configuration.readOnly && configuration.deleteRealmIfMigrationNeeded {
            throw Realm.Error(code: .fail, message: "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        }
        try copySeedFile(configuration)
        let infos = schemaInfos(for: configuration)
        // Read-only realms without explicit types read the file's own schema.
        let passSchema = !infos.isEmpty && !(configuration.readOnly && configuration.objectTypes == nil)
        let handle = try openHandle(configuration, schema: passSchema ? infos : nil)
        let core = RealmCore(handle: handle, configuration: configuration, cacheKey: key)
        core.syncedRegistryCount = configuration.objectTypes == nil ? SchemaRegistry.defaultTypes.count : 0
        core.bindAll(infos)
        threadCache.withLock { table in
            table = table.filter { $0.value.core != nil }
            table[key] = WeakCore(core)
        }
        return core
    }

    /// Refuses, as RealmSwift does, a file already open in this process with
    /// the other `readOnly` setting: a trap when this thread has it open
    /// (RealmSwift's per-thread cache check), else an error (`.fail`) while
    /// any realm of the file with the other setting lives, on another
    /// thread or frozen (realm-core's per-file coordinator holds them all).
    /// Once those are gone the file opens either way.
    private static func refuseOtherReadPermissions(_ configuration: Realm.Configuration) throws {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return }
        let path = url.standardizedFileURL.path
        func conflicts(_ core: RealmCore) -> Bool {
            core.configuration.readOnly != configuration.readOnly && core.configuration.inMemoryIdentifier == nil
                && core.configuration.fileURL?.standardizedFileURL.path == path
        }
        let message = "Realm at path '\(url.path)' already opened with different read permissions"
        let thread = "\(pthread_self())|"
        let onThisThread = threadCache.withLock { table in
            table.contains { key, weak in
                guard key.hasPrefix(thread), let core = weak.core, !core.isFrozen else { return false }
                return conflicts(core)
            }
        }
        if onThisThread {
            preconditionFailure(message)
        }
        if fileCores.withLock({ cores in cores.contains { $0.core.map(conflicts) ?? false } }) {
            throw Realm.Error(code: .fail, message: message + ".")
        }
    }

    /// With `seedFilePath`, a realm file that does not exist yet starts as a
    /// copy of the seed file.
    private static func copySeedFile(_ configuration: Realm.Configuration) throws {
        guard let seed = configuration.seedFilePath, configuration.inMemoryIdentifier == nil,
              let target = configuration.fileURL, !FileManager.default.fileExists(atPath: target.path) else { return }
        guard FileManager.default.fileExists(atPath: seed.path) else {
            throw Realm.Error(code: .fileNotFound, message: "The seed file '\(seed.path)' does not exist")
        }
        do {
            try FileManager.default.copyItem(at: seed, to: target)
        } catch {
            throw Realm.Error(code: .fileAccess, message: "Cannot copy the seed file '\(seed.path)' to '\(target.path)': \(error)")
        }
    }

    /// The classes a realm opened with `configuration` must have.
    private static func schemaInfos(for configuration: Realm.Configuration) -> [ObjectSchemaInfo] {
        // Without explicit types: the program's model classes (discovered,
        // then used), with the classes links point to.
        let types = configuration.objectTypes ?? withLinkTargets(SchemaRegistry.defaultTypes.map(ObjectSchemaInfo.of)).map(\.type)
        var seen: [String: ObjectBase.Type] = [:]
        var infos: [ObjectSchemaInfo] = []
        for type in types {
            let info = ObjectSchemaInfo.of(type)
            if let other = seen[info.className] {
                if other == type { continue }
                // Two used classes of one name: the default schema keeps the
                // first; the other binds by name when used (docs/design.md).
                if configuration.objectTypes == nil { continue }
                preconditionFailure("Two object types are named '\(info.className)': \(String(reflecting: other)) and \(String(reflecting: type)); override _realmObjectName() on one of them")
            }
            seen[info.className] = type
            infos.append(info)
        }
        return infos
    }

    /// With `objectTypes`, the names of the classes the realm shows
    /// (`realm.schema`): those types and the classes they link to, whatever
    /// else the file holds; nil without.
    var explicitClassNames: Set<String>? {
        configuration.objectTypes.map { Set(withLinkTargets($0.map(ObjectSchemaInfo.of)).map(\.className)) }
    }

    private static func openHandle(_ configuration: Realm.Configuration, schema: [ObjectSchemaInfo]?) throws -> CHandle {
        var schemaHandle: CHandle?
        if let schema {
            switch makeCSchema(schema) {
            case .success(let handle): schemaHandle = handle
            case .failure(let error): throw Realm.Error(error)
            }
        }
        return try openHandle(configuration, schemaHandle: schemaHandle)
    }

    private static func openHandle(_ configuration: Realm.Configuration, schemaHandle: CHandle?) throws -> CHandle {
        guard let rawConfig = fief_config_new() else { throw Realm.Error(CError.last()) }
        let config = CHandle(rawConfig)
        var ok = true
        if let identifier = configuration.inMemoryIdentifier {
            ok = ok && fief_config_set_in_memory_identifier(config.raw, identifier)
        } else if let path = configuration.fileURL?.path {
            ok = ok && fief_config_set_path(config.raw, path)
        }
        ok = ok && fief_config_set_read_only(config.raw, configuration.readOnly)
        ok = ok && fief_config_set_schema_version(config.raw, configuration.schemaVersion)
        ok = ok && fief_config_set_delete_if_migration_needed(config.raw, configuration.deleteRealmIfMigrationNeeded)
        if let limit = configuration.maximumNumberOfActiveVersions {
            ok = ok && fief_config_set_max_active_versions(config.raw, UInt64(max(limit, 1)))
        }
        if let schemaHandle {
            ok = ok && fief_config_set_schema(config.raw, schemaHandle.raw)
        }
        guard ok else { throw Realm.Error(CError.last()) }
        guard let realm = fief_realm_open(config.raw) else { throw Realm.Error(CError.last()) }
        return CHandle(realm)
    }

    // MARK: Bindings

    private func bindAll(_ infos: [ObjectSchemaInfo]) {
        guard let schema = fief_realm_get_schema(handle.raw) else { return }
        let schemaHandle = CHandle(schema)
        lock.lock()
        defer { lock.unlock() }
        for info in infos where bindings[ObjectIdentifier(info.type)] == nil {
            if case .success(let binding) = ClassBinding.bind(info, in: schemaHandle.raw) {
                bindings[ObjectIdentifier(info.type)] = binding
            }
        }
    }

    /// The binding of `type` in this realm, extending the file's schema
    /// additively if the type is new and the realm allows it.  Traps, as
    /// RealmSwift does, when the type is not part of the realm.
    func binding(for type: ObjectBase.Type) -> ClassBinding {
        knownBinding(for: type) ?? addBinding(for: type)
    }

    /// The binding of `type` when this realm has bound it already; nil
    /// otherwise (nothing is added to the schema).
    func knownBinding(for type: ObjectBase.Type) -> ClassBinding? {
        lock.withLock { bindings[ObjectIdentifier(type)] }
    }

    private func addBinding(for type: ObjectBase.Type) -> ClassBinding {
        let id = ObjectIdentifier(type)
        if let binding = lock.withLock({ bindings[id] }) { return binding }
        if type == Object.self || type == EmbeddedObject.self || type == ObjectBase.self || type == DynamicObject.self {
            preconditionFailure("Object type '\(String(describing: type))' is not managed by the Realm: it is a base class, not a model class. Use a subclass, or dynamicObjects(_:) for a class known by name.")
        }
        let info = ObjectSchemaInfo.of(type)
        if let types = configuration.objectTypes, !types.contains(where: { $0 == type }) {
            preconditionFailure("Object type '\(info.className)' is not managed by the Realm. If using a custom `objectTypes` array in your configuration, add `\(info.className)` to the list of `objectTypes`.")
        }
        // The file may already have it (another realm added it).
        bindAll([info])
        if let binding = lock.withLock({ bindings[id] }) { return binding }
        if isFrozen || isReadOnly || configuration.objectTypes != nil {
            preconditionFailure("Object type '\(info.className)' is not managed by the Realm (it is not in the realm file's schema, and this realm is \(isFrozen ? "frozen" : isReadOnly ? "read-only" : "opened with explicit objectTypes")).")
        }
        extendSchema(adding: SchemaRegistry.defaultTypes.map(ObjectSchemaInfo.of) + [info])
        guard let binding = lock.withLock({ bindings[id] }) else {
            preconditionFailure("Object type '\(info.className)' could not be added to the realm's schema.")
        }
        return binding
    }

    /// The binding of the class a link (or a collection of links) property
    /// points to: the model class, or for a class known only by name (the
    /// dynamic API) the file's class of that name.
    func binding(forLinkOf property: PropertyInfo) -> ClassBinding {
        if let name = property.dynamicLinkTarget { return dynamicBinding(named: name) }
        guard let target = property.linkTarget else {
            preconditionFailure("Property '\(property.name)' is not a link")
        }
        return binding(for: target)
    }

    /// Before a write transaction: bind every type used so far, so that
    /// objects created before the write can be added inside it.
    /// Whether this call is the first to schedule notification deliveries.
    func claimDeliveryScheduling() -> Bool {
        lock.withLock {
            defer { deliveriesScheduled = true }
            return !deliveriesScheduled
        }
    }

    func syncRegistry() {
        guard configuration.objectTypes == nil, !isFrozen, !isReadOnly else { return }
        let types = SchemaRegistry.defaultTypes
        guard types.count != lock.withLock({ syncedRegistryCount }) else { return }
        let infos = types.map(ObjectSchemaInfo.of)
        bindAll(infos)
        let missing = infos.filter { info in lock.withLock { bindings[ObjectIdentifier(info.type)] == nil } }
        if !missing.isEmpty { extendSchema(adding: infos) }
        lock.withLock { syncedRegistryCount = types.count }
    }

    /// Adds the classes of `infos` this realm lacks (fief_realm_update_schema,
    /// an additive change).  Inside a write transaction the change is part of
    /// it, so the bindings made now are dropped if the transaction is cancelled.
    private func extendSchema(adding infos: [ObjectSchemaInfo]) {
        var seen = Set<ObjectIdentifier>()
        let missing = infos.filter { info in
            seen.insert(ObjectIdentifier(info.type)).inserted
                && lock.withLock { bindings[ObjectIdentifier(info.type)] == nil }
        }
        guard !missing.isEmpty else { return }
        // With the classes their links point to (the schema must name them).
        let adding = withLinkTargets(missing)
        let schema: CHandle
        switch makeCSchema(adding) {
        case .success(let handle): schema = handle
        case .failure(let error): fiefTrap("Invalid object types \(missing.map(\.className))", error)
        }
        guard fief_realm_update_schema(handle.raw, schema.raw) else {
            fiefTrap("Cannot add object types \(missing.map(\.className)) to the realm's schema", CError.last())
        }
        lock.withLock { dynamicBindings = [:] }
        let inWrite = isInWriteTransaction
        bindAll(adding)
        if inWrite {
            lock.withLock { bindingsMadeInWrite.append(contentsOf: adding.map { ObjectIdentifier($0.type) }) }
        }
    }

    /// Forgets the bindings of classes added by a write transaction that was
    /// cancelled (fief_realm_cancel undoes the schema change).
    func writeEnded(committed: Bool) {
        lock.withLock {
            if !committed {
                for id in bindingsMadeInWrite { bindings[id] = nil }
                if !bindingsMadeInWrite.isEmpty { syncedRegistryCount = 0 }
            }
            bindingsMadeInWrite = []
        }
    }

    private var bindingsMadeInWrite: [ObjectIdentifier] = []

    // MARK: The dynamic API

    private var dynamicBindings: [String: ClassBinding] = [:]

    /// The binding of the file's class `className`, read from the file's
    /// schema (fief_realm_get_schema, fief_schema_find_class); traps, as
    /// RealmSwift does, when the file has no such class.
    func dynamicBinding(named className: String) -> ClassBinding {
        if let binding = lock.withLock({ dynamicBindings[className] }) { return binding }
        guard let raw = fief_realm_get_schema(handle.raw) else { fiefTrap("Cannot read the realm's schema", CError.last()) }
        let schema = CHandle(raw)
        var cls = fief_class_info_t()
        var classIndex = 0
        var found = false
        guard fief_schema_find_class(schema.raw, className, &cls, &classIndex, &found) else {
            fiefTrap("Cannot look up class '\(className)'", CError.last())
        }
        guard found else { preconditionFailure("Object type '\(className)' is not managed by the Realm: the realm file has no such class.") }
        var properties: [fief_property_info_t] = []
        for i in 0..<cls.num_properties {
            var property = fief_property_info_t()
            if fief_schema_get_property(schema.raw, classIndex, i, &property) { properties.append(property) }
        }
        let info = withExtendedLifetime(schema) { ObjectSchemaInfo(dynamicClass: cls, properties: properties) }
        let binding = ClassBinding(info: info, classKey: cls.key, propertyKeys: info.dynamicPropertyKeys)
        lock.withLock { dynamicBindings[className] = binding }
        return binding
    }

    /// The dynamic binding of the class whose key is `classKey`.
    func dynamicBinding(classKey: fief_class_key_t) -> ClassBinding {
        guard let raw = fief_realm_get_schema(handle.raw) else { fiefTrap("Cannot read the realm's schema", CError.last()) }
        let schema = CHandle(raw)
        var count = 0
        _ = fief_schema_get_class_count(schema.raw, &count)
        for index in 0..<count {
            var cls = fief_class_info_t()
            if fief_schema_get_class(schema.raw, index, &cls), cls.key == classKey, let name = cls.name {
                return dynamicBinding(named: String(cString: name))
            }
        }
        preconditionFailure("The realm file has no class with key \(classKey)")
    }

    // MARK: State


    var isInWriteTransaction: Bool {
        var inTransaction = false
        return fief_realm_is_in_transaction(handle.raw, &inTransaction) && inTransaction
    }

    func invalidateObjects() {
        lock.withLock {
            generation &+= 1
            frozenCache = nil
        }
    }

    /// The version the realm reads (`fief_realm_get_version`).
    var version: UInt64 {
        var version: UInt64 = 0
        _ = fief_realm_get_version(handle.raw, &version)
        return version
    }

    /// A frozen realm at this realm's current version (fief_realm_freeze),
    /// reused while the version does not change.
    func frozenCore() -> RealmCore {
        if isFrozen { return self }
        let currentVersion = version
        if let cached = lock.withLock({ frozenCache }), cached.version == currentVersion, let core = cached.core.core {
            return core
        }
        guard let raw = fief_realm_freeze(handle.raw) else { fiefTrap("Cannot freeze the realm", CError.last()) }
        let frozen = RealmCore(handle: CHandle(raw), configuration: configuration, cacheKey: nil)
        let inWrite = isInWriteTransaction
        lock.withLock {
            // Inside a write that added classes the frozen realm is the
            // version before it, whose schema lacks them.
            frozen.bindings = bindingsMadeInWrite.isEmpty ? bindings : bindings.filter { !bindingsMadeInWrite.contains($0.key) }
            // One made inside a write is of the version before it, which
            // `version` may not tell apart from the one the write commits.
            if !inWrite { frozenCache = (currentVersion, WeakFrozenCore(core: frozen)) }
        }
        return frozen
    }

    /// The live realm of this frozen one on this thread: the thread's cached
    /// realm for the same configuration, or a new one (fief_realm_thaw).
    func liveCore() -> RealmCore {
        if !isFrozen { return self }
        let key = RealmCore.threadKey(configuration)
        if let core = RealmCore.threadCache.withLock({ $0[key]?.core }) { return core }
        guard let raw = fief_realm_thaw(handle.raw) else { fiefTrap("Cannot thaw the realm", CError.last()) }
        let live = RealmCore(handle: CHandle(raw), configuration: configuration, cacheKey: key)
        lock.withLock { live.bindings = bindings }
        RealmCore.threadCache.withLock { $0[key] = WeakCore(live) }
        return live
    }

    /// A live realm of the same file that no thread's cache holds
    /// (fief_realm_thaw of a frozen copy), with this one's bindings: where
    /// an observer registered with a queue is delivered.
    func uncachedLiveCore() -> RealmCore? {
        guard let frozen = fief_realm_freeze(handle.raw) else { return nil }
        defer { _ = fief_release(UnsafeRawPointer(frozen)) }
        guard let raw = fief_realm_thaw(frozen) else { return nil }
        let live = RealmCore(handle: CHandle(raw), configuration: configuration, cacheKey: nil)
        lock.withLock { live.bindings = bindings }
        return live
    }

    // MARK: Objects

    /// An instance of `type` bound to the row `object` (a new handle).
    /// The object a link read from this realm points to, as `type`
    /// (fief_object_get); nil if the link names another class.
    func linkedObject<T: ObjectBase>(_ link: fief_link_t, as type: T.Type) -> T? {
        if type == DynamicObject.self {
            let binding = dynamicBinding(classKey: link.class_key)
            guard let raw = fief_object_get(handle.raw, link.class_key, link.object_key) else {
                fiefTrap("Cannot follow a link to '\(binding.info.className)'", CError.last())
            }
            return makeObject(type, handle: raw, binding: binding)
        }
        let binding = self.binding(for: type)
        guard binding.classKey == link.class_key else { return nil }
        guard let raw = fief_object_get(handle.raw, link.class_key, link.object_key) else {
            fiefTrap("Cannot follow a link to '\(binding.info.className)'", CError.last())
        }
        return makeObject(type, handle: raw, binding: binding)
    }

    /// The object a link in a mixed value points to (fief_object_get): an
    /// instance of the model class bound to the link's class in this realm,
    /// or of a model class of that name this process has used; a
    /// `DynamicObject` when the program declares no such class.
    func mixedLinkedObject(_ link: fief_link_t) -> Object {
        let binding = mixedBinding(classKey: link.class_key)
        guard let raw = fief_object_get(handle.raw, link.class_key, link.object_key) else {
            fiefTrap("Cannot follow a mixed value's link to '\(binding.info.className)'", CError.last())
        }
        let instance = binding.info.type.init()
        instance._fiefManaged = ManagedRow(handle: CHandle(raw), core: self, binding: binding)
        guard let object = instance as? Object else {
            preconditionFailure("A mixed value links to '\(binding.info.className)', which is not an Object class")
        }
        return object
    }

    /// The binding mixed links to class `classKey` are read with (see
    /// `mixedLinkedObject`).
    private func mixedBinding(classKey: fief_class_key_t) -> ClassBinding {
        if let bound = lock.withLock({ bindings.values.first { $0.classKey == classKey && $0.info.type is Object.Type } }) {
            return bound
        }
        let dynamic = dynamicBinding(classKey: classKey)
        let declared = SchemaRegistry.type(named: dynamic.info.className).flatMap { $0 is Object.Type ? $0 : nil }
        if let declared {
            bindAll([ObjectSchemaInfo.of(declared)])
            if let bound = lock.withLock({ bindings[ObjectIdentifier(declared)] }), bound.classKey == classKey { return bound }
        }
        return dynamic
    }

    func makeObject<T: ObjectBase>(_ type: T.Type, handle object: OpaquePointer, binding: ClassBinding) -> T {
        let instance = type.init()
        instance._fiefManaged = ManagedRow(handle: CHandle(object), core: self, binding: binding)
        return instance
    }
}

extension NSLock {
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A managed object's row: its C object handle, its realm and class.
final class ManagedRow {
    let handle: CHandle
    let core: RealmCore
    let binding: ClassBinding
    let generation: UInt64

    init(handle: CHandle, core: RealmCore, binding: ClassBinding) {
        self.handle = handle
        self.core = core
        self.binding = binding
        generation = core.generation
    }

    /// The object's key (`fief_object_get_key`), stable for its lifetime.
    lazy var objectKey: fief_object_key_t = {
        var key: fief_object_key_t = 0
        _ = fief_object_get_key(handle.raw, &key)
        return key
    }()

    /// Whether the row can be read (`fief_object_is_valid`, and the realm
    /// was not invalidated since).
    var isValid: Bool {
        generation == core.generation && fief_object_is_valid(handle.raw)
    }

    private func checkGeneration() {
        if generation != core.generation { preconditionFailure(invalidatedObjectMessage) }
    }

    func trapForAccess(_ error: CError, writing: Bool) -> Never {
        switch error.code {
        case FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_CLOSED:
            preconditionFailure("\(invalidatedObjectMessage) [\(error.message)]")
        case FIEF_ERR_NOT_IN_TRANSACTION:
            preconditionFailure("Attempting to modify object outside of a write transaction - call beginWrite on a Realm instance first. [\(error.message)]")
        case FIEF_ERR_FROZEN:
            preconditionFailure("Attempting to modify a frozen object - call thaw on the Object instance first. [\(error.message)]")
        case FIEF_ERR_PRIMARY_KEY_CHANGE:
            preconditionFailure("Primary key can't be changed after an object is inserted. [\(error.message)]")
        default:
            fiefTrap(writing ? "Cannot set property of '\(binding.info.className)'" : "Cannot read property of '\(binding.info.className)'", error)
        }
    }

    /// Property number `index` (fief_object_get_value).
    func read<V: _Persistable>(_ index: Int, as type: V.Type) -> V {
        checkGeneration()
        if let list = V.self as? FiefCollectionProtocol.Type {
            return list.fiefManaged(row: self, index: index) as! V
        }
        if V.self == AnyRealmValue.self { return readMixed(index) as! V }
        var value = fief_value_t()
        guard fief_object_get_value(handle.raw, binding.propertyKeys[index], &value) else {
            trapForAccess(CError.last(), writing: false)
        }
        guard let result = V._fiefRead(value, in: Realm(core: core)) else {
            if V._fiefMapsStoredValues {
                preconditionFailure("Failed to convert persisted value '\(fiefDescribe(fiefAnyValue(value)))' of '\(binding.info.className).\(binding.info.properties[index].name)' to type '\(V.self)' in a non-optional context")
            }
            preconditionFailure("Property '\(binding.info.className).\(binding.info.properties[index].name)' holds a value of type \(value.type), not \(V.self)")
        }
        return result
    }

    /// Mixed property number `index` (fief_object_get_value; a nested
    /// collection through fief_object_get_list / _get_map).
    func readMixed(_ index: Int) -> AnyRealmValue {
        checkGeneration()
        var value = fief_value_t()
        guard fief_object_get_value(handle.raw, binding.propertyKeys[index], &value) else {
            trapForAccess(CError.last(), writing: false)
        }
        guard let result = AnyRealmValue.fiefRead(value, core: core, in: .property(self, index)) else {
            preconditionFailure("Property '\(binding.info.className).\(binding.info.properties[index].name)' holds a value of type \(value.type) that is no mixed value")
        }
        return result
    }

    /// Property number `index` as Any (fief_object_get_value).
    func readAny(_ index: Int) -> Any? {
        checkGeneration()
        if let list = binding.info.properties[index].valueType as? FiefCollectionProtocol.Type {
            return list.fiefManaged(row: self, index: index)
        }
        if binding.info.properties[index].valueType == AnyRealmValue.self { return readMixed(index)._fiefStored }
        var value = fief_value_t()
        guard fief_object_get_value(handle.raw, binding.propertyKeys[index], &value) else {
            trapForAccess(CError.last(), writing: false)
        }
        if let typed = binding.info.properties[index].valueType._fiefRead(value, in: Realm(core: core)),
           let unwrapped = fiefUnwrap(typed) {
            return unwrapped
        }
        // Null, or a stored value the property's type cannot represent.
        return fiefAnyValue(value)
    }

    /// Property number `index` as stored (KVC): an enum's raw value, a
    /// custom type's persisted value, a link's object; nil for null.
    func readStored(_ index: Int) -> Any? {
        checkGeneration()
        if let list = binding.info.properties[index].valueType as? FiefCollectionProtocol.Type {
            return list.fiefManaged(row: self, index: index)
        }
        if binding.info.properties[index].valueType == AnyRealmValue.self { return readMixed(index)._fiefStored }
        var value = fief_value_t()
        guard fief_object_get_value(handle.raw, binding.propertyKeys[index], &value) else {
            trapForAccess(CError.last(), writing: false)
        }
        if let typed = binding.info.properties[index].valueType._fiefRead(value, in: Realm(core: core)),
           let stored = typed._fiefStored {
            return stored
        }
        return fiefAnyValue(value)
    }

    /// Sets property number `index` from a value given by name (KVC):
    /// converted to the property's type first; a dictionary or array for a
    /// link creates the object it describes.
    func writeAny(_ index: Int, _ any: Any?) {
        let info = binding.info
        let property = info.properties[index]
        guard let typed = property.valueType._fiefFromAny(any) else { fiefInvalidValue(any, for: property, of: info) }
        if !property.isCollection, property.linkTarget is EmbeddedObject.Type {
            // Key-value coding sets a link as RealmSwift's dynamic path does,
            // with that path's message for an embedded object already managed.
            checkGeneration()
            writeEmbedded(index, typed._fiefStored as? EmbeddedObject,
                          managedRefusal: "Cannot set a link to an existing managed embedded object")
            return
        }
        write(index, typed)
    }

    /// Sets property number `index` (fief_object_set_value).
    func write<V: _Persistable>(_ index: Int, _ newValue: V) {
        checkGeneration()
        if let source = newValue as? FiefCollectionProtocol, let list = type(of: source).fiefManaged(row: self, index: index) as? FiefCollectionProtocol {
            // Assigning a collection replaces the contents of the row's one.
            list.fiefAssign(from: source)
            return
        }
        if let target = V._fiefLinkTarget, target is EmbeddedObject.Type {
            writeEmbedded(index, newValue._fiefStored as? EmbeddedObject)
            return
        }
        if let mixed = newValue as? AnyRealmValue {
            writeMixed(index, mixed)
            return
        }
        let arena = _FiefArena()
        let value = newValue._fiefValue(in: arena, realm: Realm(core: core))
        let ok = withExtendedLifetime(arena) {
            fief_object_set_value(handle.raw, binding.propertyKeys[index], value)
        }
        if !ok { trapForAccess(CError.last(), writing: true) }
    }

    /// Sets mixed property number `index` (fief_object_set_value): an
    /// unmanaged object is added first; a nested collection is stored empty,
    /// then filled with the contents of `value`'s (read before the write,
    /// which deletes the nested collection the property held).
    func writeMixed(_ index: Int, _ value: AnyRealmValue) {
        let value = value.fiefDetached()
        let arena = _FiefArena()
        let cValue = value._fiefValue(in: arena, realm: Realm(core: core))
        let ok = withExtendedLifetime(arena) {
            fief_object_set_value(handle.raw, binding.propertyKeys[index], cValue)
        }
        if !ok { trapForAccess(CError.last(), writing: true) }
        if value.fiefIsNested { value.fiefFillNested(in: .property(self, index), core: core) }
    }

    /// A `DynamicObject` on this row (fief_object_resolve_in into the same realm).
    func dynamicCopy() -> DynamicObject {
        var out: OpaquePointer?
        guard fief_object_resolve_in(handle.raw, core.handle.raw, &out), let out else {
            fiefTrap("Cannot read '\(binding.info.className)' as a dynamic object", CError.last())
        }
        return core.makeObject(DynamicObject.self, handle: out, binding: core.dynamicBinding(classKey: binding.classKey))
    }

    /// Sets embedded-object property number `index`: nil deletes the current
    /// one; an unmanaged object is created in place (fief_object_create_embedded)
    /// with its values, and becomes managed.  An embedded object already
    /// managed (it has a parent) traps with `managedRefusal`, RealmSwift's
    /// message for a property setter unless key-value coding gives its own.
    func writeEmbedded(_ index: Int, _ child: EmbeddedObject?,
                       managedRefusal: String = "Can't set link to existing managed embedded object") {
        let key = binding.propertyKeys[index]
        guard let child else {
            if !fief_object_set_value(handle.raw, key, .null) { trapForAccess(CError.last(), writing: true) }
            return
        }
        if let managed = child._fiefManaged {
            var current = fief_value_t()
            if fief_object_get_value(handle.raw, key, &current), current.type == FIEF_TYPE_LINK,
               current.u.link.class_key == managed.binding.classKey, current.u.link.object_key == managed.objectKey {
                return   // already this object's
            }
            preconditionFailure(managedRefusal)
        }
        let childBinding = core.binding(for: type(of: child))
        guard let raw = fief_object_create_embedded(handle.raw, key) else { trapForAccess(CError.last(), writing: true) }
        ManagedRow(handle: CHandle(raw), core: core, binding: childBinding).adopt(child)
    }

    /// Makes the unmanaged `child` this new row's object: binds it (its
    /// lists become live, the same instances) and writes its values (the
    /// lists' elements as they were before).
    func adopt(_ child: ObjectBase) {
        var values: [(Int, any _Persistable)] = []
        ObjectSchemaInfo.forEachPersisted(of: child) { name, persisted in
            guard let i = binding.info.propertyIndex[name] else { return }
            let value = persisted.unmanagedValue
            values.append((i, (value as? FiefCollectionProtocol)?.fiefSnapshot() ?? value))
        }
        child._fiefManaged = self
        for (i, value) in values { write(i, value) }
    }

    /// Creates embedded-object property number `index` in place from a
    /// dictionary or array of values (`Realm.create` with nested values).
    func createEmbedded(_ index: Int, from value: Any, update: Realm.UpdatePolicy = .error) {
        guard let raw = fief_object_create_embedded(handle.raw, binding.propertyKeys[index]) else {
            trapForAccess(CError.last(), writing: true)
        }
        guard let type = binding.info.properties[index].linkTarget else { return }
        let row = ManagedRow(handle: CHandle(raw), core: core, binding: core.binding(for: type))
        let arena = _FiefArena()
        let givenValues = Realm.propertyValues(from: value, info: row.binding.info)
        // Properties not given take the class's defaults, from a fresh
        // instance (a new ObjectId each time), as `Realm.create` does.
        ObjectSchemaInfo.forEachPersisted(of: type.init()) { name, persisted in
            guard let i = row.binding.info.propertyIndex[name], givenValues[i] == nil else { return }
            let property = row.binding.info.properties[i]
            guard !property.isCollection, property.linkTarget == nil, property.type != FIEF_TYPE_MIXED else { return }
            row.write(i, persisted.unmanagedValue)
        }
        for (i, given) in givenValues {
            let property = row.binding.info.properties[i]
            if property.isCollection {
                // Embedded elements are copied from their values, objects
                // linked are copied too (see fiefCopyable).
                let realm = Realm(core: core)
                row.writeAny(i, fiefCopyable(given) { realm.linkable($0, update: update) })
                continue
            }
            if let nested = property.linkTarget, nested is EmbeddedObject.Type {
                if let given = fiefUnwrap(given), given is [String: Any?] || given is [Any?] || !(given is NSNull) {
                    row.createEmbedded(i, from: given, update: update)
                }
                continue
            }
            if property.linkTarget != nil, let object = fiefUnwrap(given) as? Object {
                // A link to an object: to its copy unless this realm manages it.
                row.write(i, Realm(core: core).linkable(object, update: update))
                continue
            }
            if property.type == FIEF_TYPE_MIXED {
                row.writeAny(i, given)
                continue
            }
            guard let converted = fiefValue(fromAny: given, arena: arena) else {
                preconditionFailure("Invalid value '\(fiefDescribe(given))' for property '\(row.binding.info.className).\(property.name)'")
            }
            let ok = withExtendedLifetime(arena) { fief_object_set_value(row.handle.raw, row.binding.propertyKeys[i], converted) }
            if !ok { row.trapForAccess(CError.last(), writing: true) }
        }
    }

    /// Whether both name the same row of the same file and kind of realm.
    func sameRow(as other: ManagedRow) -> Bool {
        core.path == other.core.path && core.isFrozen == other.core.isFrozen
            && binding.classKey == other.binding.classKey && objectKey == other.objectKey
    }

    /// The same object in `target` (fief_object_resolve_in), or nil if it does
    /// not exist there.
    func resolve<T: ObjectBase>(in target: RealmCore, as type: T.Type) -> T? {
        var out: OpaquePointer?
        guard fief_object_resolve_in(handle.raw, target.handle.raw, &out) else {
            fiefTrap("Cannot resolve the object in another realm", CError.last())
        }
        guard let out else { return nil }
        return target.makeObject(type, handle: out, binding: binding)
    }
}

/// A frozen realm's core, held weakly (`RealmCore.frozenCache`).
struct WeakFrozenCore {
    weak var core: RealmCore?
}
