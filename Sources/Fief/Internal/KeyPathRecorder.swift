// The key-path recorder: from a Swift key path of a model class
// (`\Person.dogs[0].name`) to the path Realm's query language names it by
// (`dogs.name`), as RealmSwift's `_name(for:)` does.
//
// The key path is read on a throwaway instance in recording mode (its
// `_fiefRecorder` is set).  Every `@Persisted` accessor that runs on such an
// instance appends its property's name to the recorder instead of touching
// storage (Persisted's `_enclosingInstance` getter calls `recordRead`), and
// hands back a value the key path can go on reading through:
//   - a link (`Dog?`, an embedded `Address?`): a recording instance of the
//     target class, sharing the recorder, so `\Dog.favoriteToy?.name`
//     records `favoriteToy.name`;
//   - a List or MutableSet of objects, or LinkingObjects: an unmanaged
//     collection holding one recording element, so `\Person.dogs[0].name`,
//     `\Kennel.dogs.first?.name` and `\Person.clubs.first?.name` record
//     `dogs.name` and `clubs.name`;
//   - a custom persistable type mapped to an object: the type made from a
//     recording instance of that object (`init(persistedValue:)`, whose own
//     reads are not recorded), so a type that keeps its persisted object
//     records through it (one that copies its values records the property);
//   - a Map of objects: an unmanaged map whose every key reads as one
//     recording element, so `\Kennel.dogsByName["a"]??.name` records
//     `dogsByName.name` (the key is not part of the path, as in RealmSwift);
//   - anything else: the value the instance holds (its declared default),
//     or the type's default.
// A computed property records every persisted property it reads (RealmSwift
// does the same: `\Dog.firstLetter`, over `name`, records `name`).

/// Collects the names of the persisted properties a key path reads, in
/// order, while it is read on recording instances (`ObjectBase._fiefRecorder`).
final class KeyPathRecorder {
    private(set) var names: [String] = []
    /// The key paths of the persisted properties read (`\Dog.name`), in order, paused or not.
    var readKeyPaths: [AnyKeyPath] = []
    /// The legacy `let` members of the recording instances, by name
    /// (Internal/LegacyMembers.swift).
    var legacyMembers: [(member: AnyObject, name: String)] = []
    /// While positive, reads are not recorded (a custom type's
    /// `init(persistedValue:)` reading the object it is made from).
    private var pauses = 0

    func record(_ name: String) {
        if pauses == 0 { names.append(name) }
    }

    /// Runs `body` without recording what it reads.
    func withoutRecording<Result>(_ body: () -> Result) -> Result {
        pauses += 1
        defer { pauses -= 1 }
        return body()
    }

    /// What Persisted's accessor does on a recording instance: records the
    /// property `storageKeyPath` names, and returns the value to read on with.
    func recordRead<Root: ObjectBase, Value: _Persistable>(
        of storageKeyPath: ReferenceWritableKeyPath<Root, Persisted<Value>>, on object: Root
    ) -> Value {
        record(persistedPropertyName(of: storageKeyPath, in: object))
        if let value = recordingValue(of: Value.self, recorder: self) { return value }
        if case .unmanaged(let value) = object[keyPath: storageKeyPath].storage { return value }
        return Value._fiefDefault()
    }
}

/// The path in Realm's query language that `keyPath`, a key path of
/// `type` (or of one of its superclasses), names: its persisted properties
/// joined by dots, through links, embedded objects, collections of objects
/// and linking objects (`\Person.dogs[0].name` → `dogs.name`).  What sorts,
/// distinct, sectioning, key-path observation, projections and `where {}`
/// queries call to turn key paths into names.
///
/// Traps, as RealmSwift does, for a key path that reads no persisted
/// property (a plain stored Swift property, or a computed one reading none).
func fiefKeyPathString(_ keyPath: AnyKeyPath, of type: ObjectBase.Type) -> String {
    let key = RecordedKeyPath(type: ObjectIdentifier(type), keyPath: keyPath)
    if let cached = recordedKeyPaths.withLock({ $0[key] }) { return cached }
    let recorder = KeyPathRecorder()
    let prototype = type.init()
    prototype._fiefRecorder = recorder
    recorder.recordLegacyMember(prototype[keyPath: keyPath])
    guard !recorder.names.isEmpty else {
        preconditionFailure("A key path of '\(type.className())' (\(keyPath)) reads no persisted property: only @Persisted properties, and computed properties reading them, name properties in queries, sorts and key-path observation")
    }
    let path = recorder.names.joined(separator: ".")
    recordedKeyPaths.withLock { $0[key] = path }
    return path
}

/// RealmSwift's public name for the recorder: the query-language path of a
/// key path of a model class (`_name(for: \Person.dogs[0].name)` is
/// `"dogs.name"`).
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    fiefKeyPathString(keyPath, of: T.self)
}

// MARK: - Recording values

/// A type that gives a recording value of itself: one a key path can read
/// through, so that the properties it reads next are recorded too.
protocol FiefKeyPathRecordable {
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> Self
}

/// The value of `type` a recording instance's property reads as, when
/// there is one to read on with (see the file comment); nil otherwise.
func recordingValue<Value: _Persistable>(of type: Value.Type, recorder: KeyPathRecorder) -> Value? {
    if let recordable = type as? FiefKeyPathRecordable.Type {
        return recordable.fiefRecordingValue(recorder) as? Value
    }
    if let custom = type as? any CustomPersistable.Type {
        return customRecordingValue(custom, recorder: recorder) as? Value
    }
    if let custom = type as? any FailableCustomPersistable.Type {
        return failableCustomRecordingValue(custom, recorder: recorder) as? Value
    }
    return nil
}

/// `recordingValue(of:recorder:)` for a type known only at run time (a
/// collection's element type).
private func anyRecordingValue(of type: Any.Type, recorder: KeyPathRecorder) -> Any? {
    guard let persistable = type as? any _Persistable.Type else { return nil }
    return recordingValue(of: persistable, recorder: recorder)
}

private func customRecordingValue<Custom: CustomPersistable>(_ type: Custom.Type, recorder: KeyPathRecorder) -> Custom {
    let persisted = recordingValue(of: Custom.PersistedType.self, recorder: recorder) ?? Custom.PersistedType._fiefDefault()
    return recorder.withoutRecording { Custom(persistedValue: persisted) }
}

/// Nil when the conversion fails (a URL from "").
private func failableCustomRecordingValue<Custom: FailableCustomPersistable>(_ type: Custom.Type, recorder: KeyPathRecorder) -> Custom? {
    let persisted = recordingValue(of: Custom.PersistedType.self, recorder: recorder) ?? Custom.PersistedType._fiefDefault()
    return recorder.withoutRecording { Custom(persistedValue: persisted) }
}

extension ObjectBase: FiefKeyPathRecordable {
    /// A new instance of this class that records what is read on it.
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> Self {
        let object = Self()
        object._fiefRecorder = recorder
        return object
    }
}

extension Optional: FiefKeyPathRecordable where Wrapped: _PersistableInsideOptional {
    /// Not nil for a link (or a type mapped to one), so that `?.` goes on
    /// reading (`\Dog.favoriteToy?.name`); nil otherwise.
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> Wrapped? {
        recordingValue(of: Wrapped.self, recorder: recorder)
    }
}

extension List: FiefKeyPathRecordable {
    /// For objects (or types stored as objects), one recording element
    /// (what `[0]` and `first` read); empty for values.
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> List {
        let list = List()
        if let element = anyRecordingValue(of: Element.self, recorder: recorder) as? Element {
            list.append(element)
        }
        return list
    }
}

extension MutableSet: FiefKeyPathRecordable {
    /// For objects (or types stored as objects), one recording element
    /// (what `first` reads); empty for values.
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> MutableSet {
        let set = MutableSet()
        if let element = anyRecordingValue(of: Element.self, recorder: recorder) as? Element {
            set.insert(element)
        }
        return set
    }
}

extension Map: FiefKeyPathRecordable {
    /// For objects (or types stored as objects), an empty map whose every
    /// key reads as one recording element; a plain empty map for values.
    static func fiefRecordingValue(_ recorder: KeyPathRecorder) -> Map {
        let map = Map()
        map.recordingValue = anyRecordingValue(of: Value.self, recorder: recorder) as? Value
        return map
    }
}

// MARK: - Property names of storage key paths

/// The name of the persisted property whose wrapper storage
/// `storageKeyPath` names (`\Dog._name` → `name`), linking objects
/// included.  The first time, a probe is written through the key path into
/// a fresh instance, and Mirror finds the field that holds it.
private func persistedPropertyName<Root: ObjectBase, Value: _Persistable>(
    of storageKeyPath: ReferenceWritableKeyPath<Root, Persisted<Value>>, in object: Root
) -> String {
    if let name = storageNames.withLock({ $0[storageKeyPath] }) { return name }
    let prototype = type(of: object).init()
    prototype[keyPath: storageKeyPath] = Persisted(storage: .probe, indexed: false, primaryKey: false)
    var found: String?
    ObjectSchemaInfo.forEachPersisted(of: prototype) { name, persisted in
        if persisted.isProbe { found = name }
    }
    guard let name = found else {
        preconditionFailure("Property \(storageKeyPath) is not a persisted property of '\(type(of: object).className())'")
    }
    storageNames.withLock { $0[storageKeyPath] = name }
    return name
}

/// Storage key path → property name, learnt on first use.
private let storageNames = Locked<[AnyKeyPath: String]>([:])

/// A key path of a class, as recorded.
private struct RecordedKeyPath: Hashable {
    let type: ObjectIdentifier
    let keyPath: AnyKeyPath
}

/// Key path → query-language path, learnt on first use (a class's key
/// paths always record the same names).
private let recordedKeyPaths = Locked<[RecordedKeyPath: String]>([:])
