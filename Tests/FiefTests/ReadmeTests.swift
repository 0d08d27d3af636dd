import Fief
import XCTest

/// The README's Swift tour, as written there (it must keep compiling and doing what it says).
final class ReadmeDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

final class ReadmeTests: FiefTestCase {
    func testTheTourRunsAsTheReadmeSays() throws {
        let realm = try Realm()
        try realm.write {
            realm.create(ReadmeDog.self, value: ["id": 1, "name": "Rex", "age": 3])
            let puppy = ReadmeDog()
            puppy.id = 2
            puppy.name = "Ace"
            puppy.age = 1
            realm.add(puppy)
        }
        let puppies = realm.objects(ReadmeDog.self).filter("age < %@", 2).sorted(byKeyPath: "name")
        let rex = realm.object(ofType: ReadmeDog.self, forPrimaryKey: 1)
        XCTAssertEqual(puppies.map(\.name), ["Ace"])
        XCTAssertEqual(rex?.name, "Rex")
        XCTAssertEqual(rex?.age, 3)
    }
}

final class SchemaVersionTests: FiefTestCase {
    func testSchemaVersionAtURL() throws {
        let url = directory.appendingPathComponent("versioned.realm")
        var configuration = Realm.Configuration(fileURL: url, objectTypes: [ReadmeDog.self])
        configuration.schemaVersion = 4
        _ = try Realm(configuration: configuration)
        XCTAssertEqual(try schemaVersionAtURL(url), 4)
        XCTAssertThrowsError(try schemaVersionAtURL(directory.appendingPathComponent("missing.realm"))) { error in
            // RealmSwift's code for a file never opened (its MigrationTests).
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidDatabase, "\(error)")
        }
    }
}
