import Fief
import Foundation
import XCTest

/// PersistableEnum, CustomPersistable and FailableCustomPersistable
/// properties: stored as their persisted type in a realm file, read back
/// as themselves, queried as the persisted type.
final class CustomPersistableTests: FiefTestCase {
    func testDefaultsAreTheFirstCaseAndThePersistedDefault() {
        let profile = Profile()
        XCTAssertEqual(profile.mood, .happy)
        XCTAssertNil(profile.optMood)
        XCTAssertEqual(profile.level, .medium)
        XCTAssertEqual(profile.temperature, Celsius(degrees: 0))
        XCTAssertEqual(Mood(), .happy)
        XCTAssertLessThan(Level.low, Level.high)
        XCTAssertEqual([Level.high, .low, .medium].sorted(), [.low, .medium, .high])
    }

    func testStoredAsThePersistedTypeInTheFile() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [Profile.self]))
        let schema = try XCTUnwrap(realm.schema["Profile"])
        XCTAssertEqual(schema["mood"]?.type, .string)
        XCTAssertEqual(schema["mood"]?.isOptional, false)
        XCTAssertEqual(schema["optMood"]?.isOptional, true)
        XCTAssertEqual(schema["level"]?.type, .int)
        XCTAssertEqual(schema["level"]?.isIndexed, true)
        XCTAssertEqual(schema["homepage"]?.type, .string)
        XCTAssertEqual(schema["optHomepage"]?.isOptional, true)
        XCTAssertEqual(schema["temperature"]?.type, .double)
    }

    func testRoundTripThroughAFile() throws {
        let configuration = fileConfiguration(objectTypes: [Profile.self])
        let realm = try Realm(configuration: configuration)
        let profile = Profile()
        profile.id = 1
        profile.mood = .sad
        profile.optMood = .sleepy
        profile.level = .high
        profile.homepage = URL(string: "https://fief.dev/a?b=c")!
        profile.optHomepage = URL(string: "file:///tmp/x")
        profile.temperature = Celsius(degrees: 21.5)
        profile.optTemperature = Celsius(degrees: -3)
        try realm.write { realm.add(profile) }

        let read = try XCTUnwrap(realm.object(ofType: Profile.self, forPrimaryKey: 1))
        XCTAssertFalse(read === profile)
        XCTAssertEqual(read.mood, .sad)
        XCTAssertEqual(read.optMood, .sleepy)
        XCTAssertEqual(read.level, .high)
        XCTAssertNil(read.optLevel)
        XCTAssertEqual(read.homepage, URL(string: "https://fief.dev/a?b=c"))
        XCTAssertEqual(read.optHomepage, URL(string: "file:///tmp/x"))
        XCTAssertEqual(read.temperature.degrees, 21.5)
        XCTAssertEqual(read.optTemperature?.degrees, -3)

        try realm.write {
            read.mood = .happy
            read.optMood = nil
            read.optLevel = .low
            read.optHomepage = nil
        }
        XCTAssertEqual(profile.mood, .happy)
        XCTAssertNil(profile.optMood)
        XCTAssertEqual(profile.optLevel, .low)
        XCTAssertNil(profile.optHomepage)
        // KVC sees the stored values, as RealmSwift's does.
        XCTAssertEqual(read["level"] as? Int, 10)
        XCTAssertEqual(read["mood"] as? String, "happy")
        XCTAssertEqual(read["homepage"] as? String, "https://fief.dev/a?b=c")
    }

    func testQueriesUseThePersistedType() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [Profile.self]))
        try realm.write {
            for (id, mood, level) in [(1, Mood.happy, Level.low), (2, .sad, .high), (3, .sleepy, .medium), (4, .sad, .low)] {
                let profile = Profile()
                profile.id = id
                profile.mood = mood
                profile.level = level
                profile.homepage = URL(string: "https://example.com/\(id)")!
                realm.add(profile)
            }
        }
        let profiles = realm.objects(Profile.self)
        XCTAssertEqual(profiles.filter("mood == 'SAD'").count, 2)
        XCTAssertEqual(profiles.filter("mood == %@", Mood.sad).count, 2)
        XCTAssertEqual(profiles.filter("level > 3").count, 2)
        XCTAssertEqual(profiles.filter("level == %@ OR level == %@", Level.low, Level.high).count, 3)
        XCTAssertEqual(profiles.filter("homepage == 'https://example.com/3'").first?.id, 3)
        XCTAssertEqual(profiles.filter("homepage == %@", URL(string: "https://example.com/2")!).first?.id, 2)
        XCTAssertEqual(profiles.sorted(byKeyPath: "level").map(\.level), [.low, .low, .medium, .high])
        XCTAssertEqual(profiles.max(ofProperty: "level") as Int?, 10)
    }

    func testCreateAcceptsValuesAndPersistedValues() throws {
        let realm = try Realm()
        try realm.write {
            realm.create(Profile.self, value: ["id": 1, "mood": Mood.sleepy, "level": Level.high, "homepage": URL(string: "https://a.b")!])
            realm.create(Profile.self, value: ["id": 2, "mood": "SAD", "level": 1, "homepage": "https://c.d", "temperature": 4.5])
        }
        let first = try XCTUnwrap(realm.object(ofType: Profile.self, forPrimaryKey: 1))
        XCTAssertEqual(first.mood, .sleepy)
        XCTAssertEqual(first.level, .high)
        XCTAssertEqual(first.homepage.absoluteString, "https://a.b")
        let second = try XCTUnwrap(realm.object(ofType: Profile.self, forPrimaryKey: 2))
        XCTAssertEqual(second.mood, .sad)
        XCTAssertEqual(second.level, .low)
        XCTAssertEqual(second.homepage.host, "c.d")
        XCTAssertEqual(second.temperature, Celsius(degrees: 4.5))
        // Unmanaged objects from values convert the same way.
        let unmanaged = Profile(value: ["mood": "sleepy", "optLevel": 5, "optHomepage": "https://e.f"])
        XCTAssertEqual(unmanaged.mood, .sleepy)
        XCTAssertEqual(unmanaged.optLevel, .medium)
        XCTAssertEqual(unmanaged.optHomepage?.host, "e.f")
    }

    func testEnumPrimaryKey() throws {
        let realm = try Realm()
        try realm.write {
            realm.create(LevelNote.self, value: ["level": Level.high, "text": "top"])
            realm.create(LevelNote.self, value: ["level": Level.low, "text": "bottom"])
        }
        XCTAssertEqual(realm.object(ofType: LevelNote.self, forPrimaryKey: Level.high)?.text, "top")
        XCTAssertEqual(realm.object(ofType: LevelNote.self, forPrimaryKey: 1)?.text, "bottom")
        XCTAssertEqual(realm.schema["LevelNote"]?.primaryKeyProperty?.type, .int)
    }

    /// Stored values that are no case / no URL: nil from optional properties.
    func testUnconvertibleStoredValuesReadAsNilWhenOptional() throws {
        // The stored "" below is no URL on Linux's Foundation (asserted, not assumed).
        XCTAssertNil(URL(string: ""))
        let typed = try Realm(configuration: fileConfiguration(objectTypes: [TypedHolder.self]))
        try typed.write {
            typed.dynamicCreate("Holder", value: ["mood": "happy", "optMood": "furious", "url": "https://ok", "optURL": ""])
        }
        let holder = try XCTUnwrap(typed.objects(TypedHolder.self).first)
        XCTAssertEqual(holder.mood, .happy)
        XCTAssertNil(holder.optMood)
        XCTAssertNil(holder.optURL)
        XCTAssertEqual(holder.url.absoluteString, "https://ok")
        // KVC and descriptions show the stored values.
        XCTAssertEqual(holder["optMood"] as? String, "furious")
        XCTAssertTrue(holder.description.contains("furious"), holder.description)
    }

    /// Custom types mapped to an embedded object (the protocols page's CGPoint example).
    func testMappingToAnEmbeddedObject() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [Shape.self, PointObject.self]))
        XCTAssertEqual(realm.schema["Shape"]?["origin"]?.type, .object)
        XCTAssertEqual(realm.schema["Shape"]?["origin"]?.objectClassName, "PointObject")
        let shape = Shape()
        shape.name = "square"
        shape.origin = Point(x: 1, y: 2)
        try realm.write { realm.add(shape) }
        let read = try XCTUnwrap(realm.objects(Shape.self).first)
        XCTAssertEqual(read.origin, Point(x: 1, y: 2))
        try realm.write { read.origin = Point(x: 3, y: 4) }
        XCTAssertEqual(read.origin, Point(x: 3, y: 4))
        XCTAssertEqual(read.origin?.x, 3)
        try realm.write { read.origin = nil }
        XCTAssertNil(read.origin)
    }

    func testUnconvertibleValueInANonOptionalPropertyTraps() {
        assertTraps("nonOptionalEnum", message: "Failed to convert persisted value 'furious' of 'Holder.mood' to type 'Mood' in a non-optional context")
        assertTraps("nonOptionalURL", message: "Failed to convert persisted value '' of 'Holder.url' to type 'URL'")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "nonOptionalEnum": { test in
            let typed = try Realm(configuration: test.fileConfiguration(objectTypes: [TypedHolder.self]))
            try typed.write { typed.dynamicCreate("Holder", value: ["mood": "furious"]) }
            _ = typed.objects(TypedHolder.self).first?.mood
        },
        "nonOptionalURL": { test in
            let typed = try Realm(configuration: test.fileConfiguration(objectTypes: [TypedHolder.self]))
            try typed.write { typed.dynamicCreate("Holder", value: ["url": ""]) }
            _ = typed.objects(TypedHolder.self).first?.url
        },
    ]
}
