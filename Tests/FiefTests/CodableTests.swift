import Fief
import Foundation
import XCTest

class CodableDog: Object, Codable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var birthday: Date?
    @Persisted var weight: Decimal128 = 0
    @Persisted var tag: ObjectId?
    @Persisted var mood: CodableMood = .calm
    @Persisted var friend: CodableDog?
}

enum CodableMood: String, PersistableEnum, Codable {
    case calm, excited
}

/// Models declared `Codable` encode and decode through their persisted
/// properties (synthesized conformances over `@Persisted`).
final class CodableTests: FiefTestCase {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    func testUnmanagedRoundTrip() throws {
        let dog = CodableDog()
        dog.id = 1
        dog.name = "Rex"
        dog.birthday = Date(timeIntervalSince1970: 86400)
        dog.weight = "12.5"
        dog.tag = try ObjectId(string: "0123456789abcdef01234567")
        dog.mood = .excited
        dog.friend = CodableDog(value: ["id": 2, "name": "Ace"])
        let data = try encoder.encode(dog)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(json["name"] as? String, "Rex")
        XCTAssertEqual(json["weight"] as? String, "12.5")
        XCTAssertEqual(json["mood"] as? String, "excited")
        XCTAssertEqual((json["friend"] as? [String: Any])?["name"] as? String, "Ace")

        let decoded = try JSONDecoder().decode(CodableDog.self, from: data)
        XCTAssertNil(decoded.realm)
        XCTAssertEqual(decoded.id, 1)
        XCTAssertEqual(decoded.name, "Rex")
        XCTAssertNil(decoded.nickname)
        XCTAssertEqual(decoded.birthday, Date(timeIntervalSince1970: 86400))
        XCTAssertEqual(decoded.weight, "12.5")
        XCTAssertEqual(decoded.tag, dog.tag)
        XCTAssertEqual(decoded.mood, .excited)
        XCTAssertEqual(decoded.friend?.name, "Ace")

        // The decoded graph goes into a realm file like any unmanaged objects.
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write { realm.add(decoded) }
        XCTAssertEqual(realm.objects(CodableDog.self).count, 2)
        XCTAssertEqual(realm.object(ofType: CodableDog.self, forPrimaryKey: 1)?.friend?.name, "Ace")
    }

    func testMissingOptionalKeysDecodeToNil() throws {
        let json = #"{"id": 3, "name": "Spot", "weight": "1", "mood": "calm"}"#
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(json.utf8))
        XCTAssertEqual(dog.name, "Spot")
        XCTAssertNil(dog.nickname)
        XCTAssertNil(dog.birthday)
        XCTAssertNil(dog.friend)
        // A missing non-optional key is an error, as with any Decodable.
        XCTAssertThrowsError(try JSONDecoder().decode(CodableDog.self, from: Data(#"{"id": 3}"#.utf8)))
    }

    /// Managed objects encode the values of their rows, not the defaults
    /// their wrappers were created with.
    func testManagedObjectsEncodeTheirRows() throws {
        let realm = try Realm(configuration: fileConfiguration())
        try realm.write {
            realm.create(CodableDog.self, value: ["id": 7, "name": "Bella", "nickname": "Bee", "weight": 3,
                                                  "friend": ["id": 8, "name": "Max"]])
        }
        let bella = try XCTUnwrap(realm.object(ofType: CodableDog.self, forPrimaryKey: 7))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: encoder.encode(bella)) as? [String: Any])
        XCTAssertEqual(json["id"] as? Int, 7)
        XCTAssertEqual(json["name"] as? String, "Bella")
        XCTAssertEqual(json["nickname"] as? String, "Bee")
        XCTAssertEqual(json["weight"] as? String, "3")
        XCTAssertEqual((json["friend"] as? [String: Any])?["name"] as? String, "Max")
        // Results of Codable objects encode as arrays.
        let all = try encoder.encode(Array(realm.objects(CodableDog.self).sorted(byKeyPath: "id")))
        let decoded = try JSONDecoder().decode([CodableDog].self, from: all)
        XCTAssertEqual(decoded.map(\.name), ["Bella", "Max"])
        XCTAssertEqual(try encoder.encode(realm.objects(CodableDog.self).sorted(byKeyPath: "id")), all)
        // Frozen objects too; deleted ones throw.
        XCTAssertNoThrow(try encoder.encode(bella.freeze()))
        try realm.write { realm.delete(bella) }
        XCTAssertThrowsError(try encoder.encode(bella))
    }
}
