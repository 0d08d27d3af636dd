import Fief
import Foundation
import XCTest

final class TransactionTests: FiefTestCase {
    struct Boom: Error {}

    func testWriteCancelsWhenTheBlockThrows() throws {
        let realm = try Realm()
        XCTAssertThrowsError(try realm.write {
            realm.add(Dog(name: "Ghost", age: 1))
            throw Boom()
        }) { error in
            XCTAssertTrue(error is Boom)
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
    }

    func testWriteReturnsTheBlocksResult() throws {
        let realm = try Realm()
        let dog = try realm.write { () -> Dog in
            realm.create(Dog.self, value: ["name": "Rex"])
        }
        XCTAssertEqual(dog.name, "Rex")
    }

    func testBeginCommitCancel() throws {
        let realm = try Realm()
        XCTAssertFalse(realm.isInWriteTransaction)
        realm.beginWrite()
        XCTAssertTrue(realm.isInWriteTransaction)
        let dog = Dog(name: "Temp", age: 1)
        realm.add(dog)
        realm.cancelWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)

        realm.beginWrite()
        realm.add(Dog(name: "Kept", age: 1))
        try realm.commitWrite()
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testSameThreadSameConfigurationSharesTheRealm() throws {
        let realm = try Realm()
        try realm.write {
            let again = try Realm()
            XCTAssertTrue(again.isInWriteTransaction)
            again.add(Dog(name: "Nested", age: 1))
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testBlockThatCommitsItself() throws {
        let realm = try Realm()
        try realm.write {
            realm.add(Dog(name: "A", age: 1))
            try realm.commitWrite()
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testRefreshSeesOtherRealmsCommits() throws {
        let config = fileConfiguration()
        let realm = try Realm(configuration: config)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.count, 0)
        // Another thread writes to the same file.
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: config)
            try! other.write { other.add(Dog(name: "FromThread", age: 2)) }
            finished.signal()
        }.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        realm.refresh()
        XCTAssertEqual(dogs.count, 1)
        XCTAssertFalse(realm.refresh(), "nothing new to read")
    }
}

final class FreezeTests: FiefTestCase {
    func testFrozenObjectsAndResultsKeepTheirVersion() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let rex = dogs[0]
        let frozenRex = rex.freeze()
        XCTAssertTrue(frozenRex.isFrozen)
        XCTAssertFalse(rex.isFrozen)
        let frozenResults = realm.objects(Dog.self).freeze()
        XCTAssertTrue(frozenResults.isFrozen)
        try realm.write {
            rex.age = 99
            realm.add(Dog(name: "New", age: 1))
        }
        XCTAssertEqual(frozenRex.age, 10)
        XCTAssertEqual(frozenResults.count, 5)
        XCTAssertEqual(realm.objects(Dog.self).count, 6)
        XCTAssertTrue(frozenRex.freeze() === frozenRex)

        let thawed = try XCTUnwrap(frozenRex.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.age, 99)
        let thawedResults = try XCTUnwrap(frozenResults.thaw())
        XCTAssertEqual(thawedResults.count, 6)
        XCTAssertFalse(thawedResults.isFrozen)
    }

    func testFrozenRealm() throws {
        let realm = try Realm()
        try addDogs(realm)
        let frozen = realm.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(realm.isFrozen)
        try realm.write { realm.deleteAll() }
        XCTAssertEqual(frozen.objects(Dog.self).count, 5)
        XCTAssertEqual(frozen.objects(Dog.self).filter("age > 5").count, 2)
        XCTAssertFalse(frozen.thaw().isFrozen)
        XCTAssertEqual(frozen.thaw().objects(Dog.self).count, 0)
        XCTAssertEqual(frozen.thaw(), realm)
    }

    /// Frozen inside a write: the values as the write began (RealmSwift's
    /// ObjectTests.testFreezeInsideWriteTransaction); an object created in
    /// the write cannot be frozen (a trap scenario below).
    func testFreezeInsideAWriteTransaction() throws {
        let realm = try Realm()
        let rex = try addDogs(realm)[0]
        realm.beginWrite()
        rex.age = 2
        realm.add(Dog(name: "Inside", age: 1))
        let frozenRex = rex.freeze()
        let frozenDogs = realm.objects(Dog.self).freeze()
        let frozenRealm = realm.freeze()
        realm.cancelWrite()
        XCTAssertEqual(frozenRex.age, 10)
        XCTAssertTrue(frozenRex.isFrozen)
        XCTAssertEqual(frozenDogs.count, 5)
        XCTAssertEqual(frozenRealm.objects(Dog.self).filter("name == 'Inside'").count, 0)
        XCTAssertEqual(rex.age, 10, "the write was cancelled")
    }

    /// Embedded objects freeze and thaw as objects do.
    func testEmbeddedObjectsFreezeAndThaw() throws {
        let realm = try Realm()
        let person = Person()
        person.name = "Ann"
        person.address = Address()
        person.address?.city = "Oslo"
        try realm.write { realm.add(person) }
        let address = try XCTUnwrap(person.address)
        let frozen = address.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(address.isFrozen)
        try realm.write { address.city = "Bergen" }
        XCTAssertEqual(frozen.city, "Oslo")
        XCTAssertTrue(frozen.freeze() === frozen)
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.city, "Bergen")
        XCTAssertTrue(address.thaw() === address)
        try realm.write { person.address = nil }
        XCTAssertNil(frozen.thaw(), "deleted with its parent's link")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "freezeObjectCreatedInTheWrite": { _ in
            let realm = try Realm()
            try realm.write { realm.add(Dog(name: "Old", age: 2)) }
            realm.beginWrite()
            let dog = Dog(name: "New", age: 1)
            realm.add(dog)
            _ = dog.freeze()
        },
        "freezeUnmanagedEmbeddedObject": { _ in _ = Address().freeze() },
    ]

    func testFreezeTraps() {
        assertTraps("freezeObjectCreatedInTheWrite", message: "Cannot freeze an object in the same write transaction as it was created in.")
        assertTraps("freezeUnmanagedEmbeddedObject", message: "Unmanaged objects cannot be frozen.")
    }

    func testThawOfDeletedObjectIsNil() throws {
        let realm = try Realm()
        let dog = try addDogs(realm)[0]
        let frozen = dog.freeze()
        try realm.write { realm.delete(dog) }
        XCTAssertNil(frozen.thaw())
        XCTAssertEqual(frozen.name, "Rex")
    }

    func testFrozenObjectsReadFromAnotherThread() throws {
        let realm = try Realm()
        try addDogs(realm)
        let frozen = realm.objects(Dog.self).sorted(byKeyPath: "name").freeze()
        final class Box: @unchecked Sendable { var names: [String] = [] }
        let box = Box()
        let done = expectation(description: "reader")
        nonisolated(unsafe) let results = frozen
        Thread {
            box.names = results.map(\.name)
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(box.names, ["Bella", "Fido", "Rex", "Spot", "Wolfie"])
    }
}

final class InvalidationTests: FiefTestCase {
    func testDeletedObjectsAreInvalidated() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let fetched = realm.objects(Dog.self).first!
        try realm.write { realm.delete(fetched) }
        XCTAssertTrue(fetched.isInvalidated)
        XCTAssertTrue(dogs[0].isInvalidated, "every instance of the row sees the delete")
        XCTAssertFalse(dogs[1].isInvalidated)
    }

    func testRealmInvalidate() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let results = realm.objects(Dog.self)
        XCTAssertEqual(results.count, 5)
        realm.invalidate()
        XCTAssertTrue(dogs[0].isInvalidated)
        XCTAssertTrue(results.isInvalidated)
        XCTAssertEqual(results.count, 0, "invalidated results are empty")
        XCTAssertEqual(realm.objects(Dog.self).count, 5, "new reads see the data again")
    }

    func testInvalidateInWriteCancels() throws {
        let realm = try Realm()
        realm.beginWrite()
        realm.add(Dog(name: "Gone", age: 1))
        realm.invalidate()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
    }
}

final class ConfigurationTests: FiefTestCase {
    func testFileURLAndInMemoryIdentifierClearEachOther() {
        var config = Realm.Configuration()
        XCTAssertEqual(config.fileURL?.lastPathComponent, "default.realm")
        XCTAssertNil(config.inMemoryIdentifier)
        config.inMemoryIdentifier = "mem"
        XCTAssertNil(config.fileURL)
        config.fileURL = URL(fileURLWithPath: "/tmp/x.realm")
        XCTAssertNil(config.inMemoryIdentifier)
        XCTAssertEqual(config.fileURL?.path, "/tmp/x.realm")
        let memory = Realm.Configuration(inMemoryIdentifier: "abc")
        XCTAssertNil(memory.fileURL)
        XCTAssertEqual(memory.schemaVersion, 0)
        XCTAssertFalse(memory.readOnly)
        XCTAssertNil(memory.objectTypes)
        XCTAssertEqual(Realm.Configuration.defaultFileURL.deletingLastPathComponent().path,
                       FileManager.default.currentDirectoryPath)
    }

    func testDefaultConfigurationIsUsedByRealmInit() throws {
        let config = fileConfiguration("default-test.realm")
        Realm.Configuration.defaultConfiguration = config
        let realm = try Realm()
        XCTAssertEqual(realm.configuration.fileURL, config.fileURL)
        try realm.write { realm.add(Dog(name: "D", age: 1)) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: config.fileURL!.path))
        XCTAssertTrue(Realm.fileExists(for: config))
        let byURL = try Realm(fileURL: config.fileURL!)
        XCTAssertEqual(byURL.objects(Dog.self).count, 1)
    }

    func testInMemoryRealmsShareDataByIdentifier() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "shared-\(UUID())")
        let first = try Realm(configuration: config)
        try first.write { first.add(Dog(name: "Mem", age: 1)) }
        let second = try Realm(configuration: config)
        XCTAssertEqual(second.objects(Dog.self).count, 1)
        let other = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "other-\(UUID())"))
        XCTAssertEqual(other.objects(Dog.self).count, 0)
        XCTAssertFalse(Realm.fileExists(for: config))
    }

    func testReadOnlyRealm() throws {
        var config = fileConfiguration("ro.realm")
        do {
            let writer = try Realm(configuration: config)
            try writer.write { writer.add(Person(id: 1, name: "Ann")) }
        }
        config.readOnly = true
        let realm = try Realm(configuration: config)
        XCTAssertEqual(realm.configuration.readOnly, true)
        XCTAssertEqual(realm.objects(Person.self).count, 1)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "Ann")
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    func testReadOnlyWithDeleteIfMigrationNeededIsRefused() {
        var configuration = fileConfiguration("both.realm")
        configuration.readOnly = true
        configuration.deleteRealmIfMigrationNeeded = true
        XCTAssertThrowsError(try Realm(configuration: configuration)) { error in
            XCTAssertTrue("\(error)".contains("Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set."), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("both.realm").path))
    }

    func testSeedFileIsCopiedWhenTheFileDoesNotExist() throws {
        let seed = directory.appendingPathComponent("seed.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: seed))
            try realm.write { realm.add(Dog(name: "Seeded", age: 4)) }
        }
        var configuration = fileConfiguration("from-seed.realm")
        configuration.seedFilePath = seed
        do {
            let realm = try Realm(configuration: configuration)
            XCTAssertEqual(realm.objects(Dog.self).map(\.name), ["Seeded"])
            try realm.write { realm.add(Dog(name: "Mine", age: 1)) }
        }
        // Once the file exists, the seed is not copied again.
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        var missing = fileConfiguration("no-seed.realm")
        missing.seedFilePath = directory.appendingPathComponent("absent.realm")
        XCTAssertThrowsError(try Realm(configuration: missing)) { error in
            XCTAssertTrue("\(error)".contains("does not exist"), "\(error)")
        }
    }

    func testExplicitObjectTypes() throws {
        // Dog links to DogToy: explicit types must list it too (as in RealmSwift).
        let incomplete = fileConfiguration("incomplete.realm", objectTypes: [Dog.self, Person.self])
        XCTAssertThrowsError(try Realm(configuration: incomplete)) { error in
            XCTAssertTrue("\(error)".contains("points to class 'DogToy', which the schema does not have"), "\(error)")
        }
        let config = fileConfiguration("typed.realm", objectTypes: [Dog.self, DogToy.self, Person.self, Address.self])
        let realm = try Realm(configuration: config)
        try realm.write {
            realm.add(Dog(name: "Typed", age: 1))
            realm.add(Person(id: 3, name: "P"))
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        XCTAssertEqual(realm.configuration.objectTypes?.count, 4)
    }

    func testRenamedClass() throws {
        let realm = try Realm(configuration: fileConfiguration("renamed.realm", objectTypes: [RenamedThing.self]))
        try realm.write { realm.add(RenamedThing()) }
        XCTAssertEqual(realm.objects(RenamedThing.self).count, 1)
        XCTAssertEqual(RenamedThing().objectSchema.className, "Thing")
        XCTAssertEqual(RenamedThing.className(), "Thing")
    }

    func testAutomaticRegistrationExtendsAnOpenRealm() throws {
        let config = fileConfiguration("auto.realm")
        let realm = try Realm(configuration: config)
        let before = Dog(name: "Before", age: 1)
        try realm.write { realm.add(before) }
        let dogs = realm.objects(Dog.self)
        // LateComer was never used before: it joins the file's schema now.
        let late = realm.objects(LateComer.self)
        XCTAssertEqual(late.count, 0)
        try realm.write { realm.add(LateComer()) }
        XCTAssertEqual(late.count, 1)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
        // Objects and results made before the schema grew keep working, writes included.
        try realm.write { before.age = 5 }
        XCTAssertEqual(dogs.first?.age, 5)
        XCTAssertEqual(before.age, 5)
    }

    func testFirstUseInsideACleanWriteTransaction() throws {
        let realm = try Realm(configuration: fileConfiguration("inwrite.realm"))
        // FirstInWrite is unknown until the write below: its class joins the
        // schema as part of the transaction (fief_realm_update_schema).
        try realm.write {
            realm.add(FirstInWrite())
            realm.create(FirstInWrite.self, value: ["n": 2])
        }
        XCTAssertEqual(realm.objects(FirstInWrite.self).count, 2)
    }

    func testFirstUseAfterChangesAndCancel() throws {
        let realm = try Realm(configuration: fileConfiguration("inwrite2.realm"))
        realm.beginWrite()
        realm.add(Dog(name: "First", age: 1))
        realm.add(SecondInWrite())
        realm.cancelWrite()  // undoes the objects and the schema change
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        try realm.write {
            realm.add(Dog(name: "Again", age: 1))
            realm.add(SecondInWrite())
        }
        XCTAssertEqual(realm.objects(SecondInWrite.self).count, 1)
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testDeleteFiles() throws {
        let config = fileConfiguration("delete.realm")
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Dog(name: "X", age: 1)) }
        }
        XCTAssertTrue(try Realm.deleteFiles(for: config))
        XCTAssertFalse(FileManager.default.fileExists(atPath: config.fileURL!.path))
        XCTAssertFalse(try Realm.deleteFiles(for: config))
        XCTAssertFalse(try Realm.deleteFiles(for: Realm.Configuration(inMemoryIdentifier: "none")))
    }
}

final class ErrorTests: FiefTestCase {
    func testReadOnlyMissingFileThrowsFileNotFound() {
        var config = fileConfiguration("missing.realm")
        config.readOnly = true
        XCTAssertThrowsError(try Realm(configuration: config)) { error in
            guard let realmError = error as? Realm.Error else { return XCTFail("\(error)") }
            XCTAssertEqual(realmError.code, .fileNotFound)
            XCTAssertNotEqual(realmError.fiefCode, 0)
            XCTAssertFalse(realmError.message.isEmpty)
        }
        do {
            _ = try Realm(configuration: config)
            XCTFail("expected an error")
        } catch Realm.Error.fileNotFound {
            // RealmSwift's catch pattern works.
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    func testGarbageFileThrows() throws {
        let url = directory.appendingPathComponent("garbage.realm")
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: url)
        XCTAssertThrowsError(try Realm(fileURL: url)) { error in
            guard let realmError = error as? Realm.Error else { return XCTFail("\(error)") }
            XCTAssertTrue([.invalidDatabase, .fileAccess, .fileFormatUpgradeRequired].contains(realmError.code),
                          "\(realmError)")
        }
    }

    func testDirectoryInsteadOfFileThrows() throws {
        let url = directory.appendingPathComponent("adir.realm")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        XCTAssertThrowsError(try Realm(fileURL: url)) { error in
            XCTAssertTrue(error is Realm.Error, "\(error)")
        }
    }

    func testUnwritableDirectoryThrowsPermissionDenied() throws {
        // Root ignores directory permissions, but sysfs refuses new files to everyone.
        let locked = getuid() == 0 ? URL(fileURLWithPath: "/sys") : directory.appendingPathComponent("locked")
        if getuid() != 0 {
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: locked.path)
        }
        defer { if getuid() != 0 { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: locked.path) } }
        XCTAssertThrowsError(try Realm(fileURL: locked.appendingPathComponent("fief-overlay-test.realm"))) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .filePermissionDenied, "\(error)")
        }
    }

    func testEncryptionKeyIsRejected() {
        var config = fileConfiguration("enc.realm")
        config.encryptionKey = Data(count: 64)
        XCTAssertThrowsError(try Realm(configuration: config))
    }

    func testErrorCodesBridge() {
        let error = Realm.Error(code: .schemaMismatch, message: "m")
        XCTAssertEqual(error.errorCode, Realm.Error.Code.schemaMismatch.rawValue)
        XCTAssertEqual(Realm.Error.errorDomain, "io.realm")
        XCTAssertEqual(error.localizedDescription, "m")
        XCTAssertTrue(Realm.Error.schemaMismatch ~= error)
    }
}

final class SchemaTests: FiefTestCase {
    func testRealmSchemaDescribesTheFile() throws {
        let realm = try Realm(configuration: fileConfiguration("schema.realm", objectTypes: [Dog.self, DogToy.self, Person.self, Address.self]))
        let schema = realm.schema
        XCTAssertEqual(Set(schema.objectSchema.map(\.className)), ["Dog", "DogToy", "Person", "Address"])
        let dog = try XCTUnwrap(schema["Dog"])
        XCTAssertEqual(dog["favoriteToy"]?.type, .object)
        XCTAssertEqual(dog["favoriteToy"]?.objectClassName, "DogToy")
        XCTAssertEqual(dog["favoriteToy"]?.isOptional, true)
        XCTAssertEqual(schema["Person"]?.primaryKeyProperty?.name, "id")
        XCTAssertEqual(schema["Address"]?.isEmbedded, true)
        XCTAssertEqual(schema["Dog"]?.isEmbedded, false)
        XCTAssertNil(schema["Cat"])
        XCTAssertTrue(schema.description.contains("favoriteToy: DogToy?"), schema.description)
        XCTAssertEqual(Dog().objectSchema["favoriteToy"]?.objectClassName, "DogToy")
    }

    func testDiscoveryWithInheritanceAndFlags() {
        let schema = Cat().objectSchema
        XCTAssertEqual(schema.className, "Cat")
        XCTAssertEqual(schema.properties.map(\.name), ["tag", "species", "lives", "nickname"])
        XCTAssertEqual(schema.primaryKeyProperty?.name, "tag")
        XCTAssertEqual(schema["species"]?.isIndexed, true)
        XCTAssertEqual(schema["nickname"]?.isOptional, true)
        XCTAssertEqual(schema["nickname"]?.isIndexed, true)
        XCTAssertEqual(schema["lives"]?.type, .int)
        XCTAssertNil(schema["notPersisted"])
        let all = AllTypes().objectSchema
        XCTAssertEqual(all.properties.count, 29)
        XCTAssertEqual(all["decimal"]?.type, .decimal128)
        XCTAssertEqual(all["optUUID"]?.type, .UUID)
        XCTAssertEqual(all["data"]?.type, .data)
    }

    func testSubclassObjectsRoundTrip() throws {
        let realm = try Realm()
        let cat = Cat()
        cat.tag = "c1"
        cat.species = "cat"
        cat.lives = 7
        try realm.write { realm.add(cat) }
        let stored = try XCTUnwrap(realm.object(ofType: Cat.self, forPrimaryKey: "c1"))
        XCTAssertEqual(stored.species, "cat")
        XCTAssertEqual(stored.lives, 7)
        XCTAssertEqual(realm.objects(Cat.self).filter("lives == 7 AND species == 'cat'").count, 1)
    }

    func testObjectKeyIdentifiable() throws {
        let realm = try Realm()
        let note = Note()
        let unmanagedId = note.id
        XCTAssertEqual(note.id, unmanagedId)
        try realm.write { realm.add(note) }
        let fetched = realm.objects(Note.self)[0]
        XCTAssertEqual(fetched.id, note.id)
    }
}

final class ArchitectureTests: XCTestCase {
    /// The overlay must use the engine only through the C ABI.
    func testOverlayNeverImportsFiefEngine() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Fief")
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let pattern = try NSRegularExpression(pattern: #"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?FiefEngine\b"#,
                                              options: [.anchorsMatchLines])
        var checked = 0
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            XCTAssertNil(pattern.firstMatch(in: text, range: range), "\(url.lastPathComponent) imports FiefEngine")
            XCTAssertFalse(text.contains("FiefEngine."), "\(url.lastPathComponent) names FiefEngine")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 5)
    }
}

/// `Realm.writeCopy(toFile:)`: a compacted copy that opens as a realm.
final class WriteCopyTests: FiefTestCase {
    func testWriteCopyToANewFile() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try addDogs(realm)
        let copyURL = directory.appendingPathComponent("copy.realm")
        try realm.writeCopy(toFile: copyURL)
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL))
        XCTAssertEqual(copy.objects(Dog.self).count, 5)
        XCTAssertEqual(copy.objects(Dog.self).filter("color == 'tan'").count, 2)
        // The copy's file is new: writing it again is refused, as in RealmSwift.
        XCTAssertThrowsError(try realm.writeCopy(toFile: copyURL)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .fileExists)
        }
        XCTAssertThrowsError(try realm.writeCopy(toFile: directory.appendingPathComponent("x.realm"), encryptionKey: Data(count: 64)))
    }
}
