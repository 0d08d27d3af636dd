import CFief
import Foundation

extension Realm {
    /// How to open a realm: which file (or in-memory name), read-only or not,
    /// the schema version and the object types (RealmSwift's
    /// `Realm.Configuration`).  Rests on fief_config_new and the
    /// fief_config_set_* functions, applied when a realm is opened.
    ///
    ///     var config = Realm.Configuration()
    ///     config.inMemoryIdentifier = "tests"
    ///     let realm = try Realm(configuration: config)
    ///
    /// The default file on Linux is `default.realm` in the process's current
    /// directory, read when `defaultConfiguration` is first used.
    public struct Configuration: @unchecked Sendable {
        private static let storedDefault = Locked<Configuration?>(nil)

        /// The file `Realm()` opens by default: `default.realm` in the
        /// current directory (resolved when first asked for).
        public static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm")
        }

        /// The configuration `Realm()` uses; set it to change what `Realm()` opens.
        public static var defaultConfiguration: Configuration {
            get {
                storedDefault.withLock { stored in
                    if let stored { return stored }
                    let configuration = Configuration()
                    stored = configuration
                    return configuration
                }
            }
            set { storedDefault.withLock { $0 = newValue } }
        }

        private var path: String?
        private var memoryIdentifier: String?

        /// The realm's file (fief_config_set_path).  Setting it clears
        /// `inMemoryIdentifier`.
        public var fileURL: URL? {
            get { path.map { URL(fileURLWithPath: $0) } }
            set {
                memoryIdentifier = nil
                path = newValue?.path
            }
        }

        /// The name of an in-memory realm (fief_config_set_in_memory_identifier):
        /// every realm opened with the same name shares its data until the last
        /// one is released.  Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { memoryIdentifier }
            set {
                memoryIdentifier = newValue
                path = newValue == nil ? path : nil
            }
        }

        /// Not supported by Fief: opening a realm with a key throws.
        public var encryptionKey: Data?

        /// Open the file read-only (fief_config_set_read_only); it must exist.
        public var readOnly: Bool

        /// The schema version (fief_config_set_schema_version).
        public var schemaVersion: UInt64

        /// Delete the file instead of failing when the schema changed beyond
        /// additive changes (fief_config_set_delete_if_migration_needed).
        public var deleteRealmIfMigrationNeeded: Bool

        /// The object types the realm holds (fief_config_set_schema).  nil means
        /// every `Object` subclass this process has used so far; a type first
        /// used later is added to the file's schema (additively) on first use.
        public var objectTypes: [ObjectBase.Type]?

        /// The most versions frozen realms, objects and results may hold at
        /// once (fief_config_set_max_active_versions); nil: no limit.  Past it
        /// `write` throws and `beginWrite` traps, with RealmSwift's message.
        public var maximumNumberOfActiveVersions: UInt?

        /// A realm file copied to `fileURL` when no file is there yet (the
        /// realm then opens the copy).
        public var seedFilePath: URL?

        /// A configuration; every argument has RealmSwift's default.  When
        /// `inMemoryIdentifier` is given, `fileURL` is ignored.
        public init(fileURL: URL? = Configuration.defaultFileURL,
                    inMemoryIdentifier: String? = nil,
                    encryptionKey: Data? = nil,
                    readOnly: Bool = false,
                    schemaVersion: UInt64 = 0,
                    deleteRealmIfMigrationNeeded: Bool = false,
                    objectTypes: [ObjectBase.Type]? = nil,
                    seedFilePath: URL? = nil) {
            if let inMemoryIdentifier {
                self.memoryIdentifier = inMemoryIdentifier
                self.path = nil
            } else {
                self.path = fileURL?.path
                self.memoryIdentifier = nil
            }
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
        }

        /// What makes two configurations open the same realm on one thread.
        var cacheIdentity: String {
            let location = memoryIdentifier.map { "memory:\($0)" }
                ?? path.map { "file:" + URL(fileURLWithPath: $0).standardizedFileURL.path } ?? "none"
            let types = objectTypes.map { $0.map { String(reflecting: $0) }.joined(separator: ",") } ?? "*"
            return "\(location)|\(readOnly)|\(schemaVersion)|\(types)"
        }
    }
}

extension Realm.Configuration: CustomStringConvertible {
    public var description: String {
        var parts: [String] = []
        if let memoryIdentifier { parts.append("inMemoryIdentifier = \(memoryIdentifier)") }
        if let path { parts.append("fileURL = \(path)") }
        parts.append("readOnly = \(readOnly)")
        parts.append("schemaVersion = \(schemaVersion)")
        parts.append("deleteRealmIfMigrationNeeded = \(deleteRealmIfMigrationNeeded)")
        if let objectTypes { parts.append("objectTypes = \(objectTypes.map { $0.className() })") }
        return "Realm.Configuration {\n\t" + parts.joined(separator: ";\n\t") + ";\n}"
    }
}
