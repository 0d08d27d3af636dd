import Fief
import Foundation
import XCTest

/// A shape with collections of a custom type mapped to an embedded object.
class Polygon: Object {
    @Persisted var name = ""
    @Persisted var vertices: List<Point>
    @Persisted var labelled: Map<String, Point?>
}

/// Collections of a CustomPersistable whose persisted type is an embedded
/// object (issue 20, item 1): the list's elements are stored as the
/// persisted type is, non-null links, so the realm opens.
final class CustomPersistableCollectionTests: FiefTestCase {
    func testAListOfAnEmbeddedMappedTypeHoldsNonNullLinks() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [Polygon.self, PointObject.self]))
        let vertices = try XCTUnwrap(realm.schema["Polygon"]?["vertices"])
        XCTAssertEqual(vertices.type, .object)
        XCTAssertEqual(vertices.objectClassName, "PointObject")
        XCTAssertTrue(vertices.isArray)
        XCTAssertFalse(vertices.isOptional)
        let labelled = try XCTUnwrap(realm.schema["Polygon"]?["labelled"])
        XCTAssertTrue(labelled.isMap)
        XCTAssertTrue(labelled.isOptional)
    }

    func testAListOfAnEmbeddedMappedTypeRoundTrips() throws {
        let configuration = fileConfiguration(objectTypes: [Polygon.self, PointObject.self])
        let realm = try Realm(configuration: configuration)
        let polygon = Polygon()
        polygon.name = "triangle"
        polygon.vertices.append(objectsIn: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 0, y: 1)])
        polygon.labelled["apex"] = Point(x: 0, y: 1)
        polygon.labelled["none"] = nil as Point?
        try realm.write { realm.add(polygon) }
        try realm.write { polygon.vertices.append(Point(x: 2, y: 2)) }
        let reopened = try Realm(configuration: configuration).objects(Polygon.self).first
        XCTAssertEqual(Array(try XCTUnwrap(reopened).vertices),
                       [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 0, y: 1), Point(x: 2, y: 2)])
        XCTAssertEqual(reopened?.labelled["apex"], Point(x: 0, y: 1))
        // The points live as embedded objects owned by the polygon.
        XCTAssertEqual((realm.dynamicObjects("Polygon").first?["vertices"] as? List<DynamicObject>)?.count, 4)
        try realm.write { polygon.vertices.remove(at: 0) }
        XCTAssertEqual(polygon.vertices.first, Point(x: 1, y: 0))
    }

    func testAToOneLinkOfAnEmbeddedMappedTypeStaysNullable() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [Shape.self, PointObject.self]))
        XCTAssertEqual(realm.schema["Shape"]?["origin"]?.isOptional, true)
        XCTAssertEqual(realm.schema["Shape"]?["origin"]?.isArray, false)
    }
}
