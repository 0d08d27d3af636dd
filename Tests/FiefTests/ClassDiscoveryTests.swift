import Fief
import Foundation
import XCTest

// Model classes declared only here and never instantiated by any other test:
// a realm opened without `objectTypes` must hold them from its first open
// (class discovery, docs/design.md), not only once the process has used them.

class UnusedDiscoveredPlanet: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var moons: List<UnusedDiscoveredMoon>
    @Persisted var surface: UnusedDiscoveredSurface?
}

class UnusedDiscoveredMoon: Object {
    @Persisted var name = ""
    @Persisted var radius = 0.0
}

class UnusedDiscoveredSurface: EmbeddedObject {
    @Persisted var water = false
}

class UnusedReadOnlyComet: Object {
    @Persisted var period = 0
}

class UnusedFrozenAsteroid: Object {
    @Persisted var mass = 0.0
}

/// Left out of the default schema by its override, as in RealmSwift.
class IgnoredDiscoveryBase: Object {
    @Persisted var note = ""
    override class func _realmIgnoreClass() -> Bool { true }
}

/// Two classes of one name in two scopes: discovery cannot tell them apart,
/// so neither is in the default schema until one is used.
enum DiscoveryTwinsA {
    class DiscoveryTwin: Object {
        @Persisted var a = 0
    }
}

enum DiscoveryTwinsB {
    class DiscoveryTwin: Object {
        @Persisted var b = ""
    }
}

final class ClassDiscoveryTests: FiefTestCase {
    func testTheDefaultSchemaHoldsClassesNeverUsed() throws {
        let realm = try Realm()
        let planet = try XCTUnwrap(realm.schema["UnusedDiscoveredPlanet"])
        XCTAssertEqual(planet.primaryKeyProperty?.name, "name")
        XCTAssertEqual(planet["moons"]?.objectClassName, "UnusedDiscoveredMoon")
        XCTAssertNotNil(realm.schema["UnusedDiscoveredMoon"])
        XCTAssertEqual(realm.schema["UnusedDiscoveredSurface"]?.isEmbedded, true)
        // The dynamic API finds them by name.
        XCTAssertEqual(realm.dynamicObjects("UnusedDiscoveredPlanet").count, 0)
        try realm.write {
            realm.dynamicCreate("UnusedDiscoveredPlanet", value: ["name": "Mars", "moons": [["name": "Phobos", "radius": 11.1]]])
        }
        XCTAssertEqual(realm.dynamicObjects("UnusedDiscoveredMoon").first?["name"] as? String, "Phobos")
        XCTAssertEqual(realm.objects(UnusedDiscoveredPlanet.self).first?.moons.first?.radius, 11.1)
    }

    func testAReadOnlyRealmHasClassesNeverUsedWhenItsFileWasMade() throws {
        let configuration = fileConfiguration()
        // The file is made and closed before the class is ever used.
        do {
            let writer = try Realm(configuration: configuration)
            XCTAssertNotNil(writer.schema["UnusedReadOnlyComet"])
        }
        var readOnly = configuration
        readOnly.readOnly = true
        let realm = try Realm(configuration: readOnly)
        XCTAssertEqual(realm.objects(UnusedReadOnlyComet.self).count, 0)
        XCTAssertNotNil(realm.schema["UnusedReadOnlyComet"])
    }

    func testAFrozenRealmHasClassesUsedOnlyAfterTheFreeze() throws {
        let realm = try Realm()
        let frozen = realm.freeze()
        XCTAssertEqual(frozen.objects(UnusedFrozenAsteroid.self).count, 0)
        XCTAssertEqual(frozen.dynamicObjects("UnusedFrozenAsteroid").count, 0)
    }

    func testIgnoredClassesAreLeftOut() throws {
        let realm = try Realm()
        XCTAssertNil(realm.schema["IgnoredDiscoveryBase"])
        XCTAssertNil(realm.schema["Object"])
        XCTAssertNil(realm.schema["EmbeddedObject"])
        XCTAssertNil(realm.schema["DynamicObject"])
    }

    func testAClassNameTwoClassesShareJoinsOnFirstUse() throws {
        let realm = try Realm()
        XCTAssertNil(realm.schema["DiscoveryTwin"])
        try realm.write { realm.add(DiscoveryTwinsB.DiscoveryTwin(value: ["b": "second"])) }
        XCTAssertEqual(realm.schema["DiscoveryTwin"]?.properties.map(\.name), ["b"])
        XCTAssertEqual(realm.objects(DiscoveryTwinsB.DiscoveryTwin.self).first?.b, "second")
        // A realm opened afterwards holds the class used; the other twin
        // stays out of it and is refused for its clashing shape.
        let other = try Realm(configuration: fileConfiguration())
        XCTAssertEqual(other.schema["DiscoveryTwin"]?.properties.map(\.name), ["b"])
    }

    func testExplicitObjectTypesShowOnlyThoseClassesAndTheirTargets() throws {
        let configuration = fileConfiguration()
        do {
            // The default schema fills the file with every model class.
            let full = try Realm(configuration: configuration)
            XCTAssertNotNil(full.schema["UnusedDiscoveredMoon"])
            XCTAssertGreaterThan(full.schema.objectSchema.count, 20)
        }
        var explicit = configuration
        explicit.objectTypes = [UnusedDiscoveredPlanet.self, UnusedDiscoveredMoon.self, UnusedDiscoveredSurface.self]
        let realm = try Realm(configuration: explicit)
        XCTAssertEqual(Set(realm.schema.objectSchema.map(\.className)),
                       ["UnusedDiscoveredPlanet", "UnusedDiscoveredMoon", "UnusedDiscoveredSurface"])
    }
}
