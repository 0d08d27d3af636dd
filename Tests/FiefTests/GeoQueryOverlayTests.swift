// Geospatial queries through the overlay: the CRUD - Read guide's queries
// over its companies (`where { $0.location.geoWithin(shape) }`, `filter("location
// IN %@", shape)`, `filter("location GEOWITHIN %@", shape)`), realm-swift's
// GeospatialTests.testFilterShapes people, lists of locations, negation, live
// results.

import Fief
import Foundation
import XCTest

/// realm-swift's test model: a name and a GeoJSON point.
class GeoPerson: Object {
    @Persisted var name = ""
    @Persisted var location: CustomGeoPoint?
    @Persisted var visited: List<CustomGeoPoint>

    convenience init(_ name: String, _ latitude: Double, _ longitude: Double) {
        self.init()
        self.name = name
        location = CustomGeoPoint(latitude, longitude)
    }
}

final class GeoQueryOverlayTests: FiefTestCase {

    /// The guide's shapes, as the guide builds them.
    private let smallCircle = GeoCircle(center: (47.3, -121.9), radiusInRadians: 0.004363323)!
    private let largeCircle = GeoCircle(center: GeoPoint(latitude: 47.8, longitude: -122.6)!, radius: Distance.kilometers(44.4)!)
    private let largeBox = GeoBox(bottomLeft: (47.3, -122.7), topRight: (48.1, -122.1))!
    private let smallBox = GeoBox(bottomLeft: GeoPoint(latitude: 47.5, longitude: -122.4)!, topRight: GeoPoint(latitude: 47.9, longitude: -121.8)!)
    private let outerRing: [GeoPoint] = [(48.0, -122.8), (48.2, -121.8), (47.6, -121.6), (47.0, -122.0), (47.2, -122.6), (48.0, -122.8)]
        .map { GeoPoint(latitude: $0.0, longitude: $0.1)! }
    private let hole: [GeoPoint] = [(47.8, -122.6), (47.7, -122.2), (47.4, -122.6), (47.6, -122.5), (47.8, -122.6)]
        .map { GeoPoint(latitude: $0.0, longitude: $0.1)! }
    private let hole2: [GeoPoint] = [(47.55, -122.05), (47.55, -121.9), (47.3, -122.1), (47.55, -122.05)]
        .map { GeoPoint(latitude: $0.0, longitude: $0.1)! }

    /// The guide's two companies.
    private func companies() throws -> (Realm, ObjectId, ObjectId) {
        let realm = try Realm()
        let company1 = Geospatial_Company()
        company1.location = CustomGeoPoint(47.68, -122.35)
        let company2 = Geospatial_Company(CustomGeoPoint(47.9, -121.85))
        try realm.write {
            realm.add(company1)
            realm.add(company2)
        }
        return (realm, company1._id, company2._id)
    }

    /// The guide's queries, in its three spellings: type-safe, `IN %@`, and `GEOWITHIN %@`.
    func testGuideQueries() throws {
        let (realm, first, second) = try companies()
        let basicPolygon = GeoPolygon(outerRing: outerRing)!
        let polygonWithOneHole = GeoPolygon(outerRing: outerRing, holes: [hole])!
        let polygonWithTwoHoles = GeoPolygon(outerRing: outerRing, holes: [hole, hole2])!
        let table: [(any RLMGeospatial, [ObjectId])] = [
            (smallCircle, []),
            (largeCircle, [first]),
            (largeBox, [first]),
            // company2 sits at the box's top latitude, under its great-circle edge.
            (smallBox, [first, second]),
            (basicPolygon, [first, second]),
            (polygonWithOneHole, [second]),
            (polygonWithTwoHoles, [second]),
        ]
        let all = realm.objects(Geospatial_Company.self)
        func ids(_ results: Results<Geospatial_Company>) -> Set<ObjectId> { Set(results.map(\._id)) }
        for (shape, expected) in table {
            let described = shape._fiefQueryText
            XCTAssertEqual(ids(all.filter("location IN %@", shape)), Set(expected), described)
            XCTAssertEqual(ids(all.filter("location GEOWITHIN %@", shape)), Set(expected), described)
            XCTAssertEqual(ids(all.filter("location GEOWITHIN $0", shape)), Set(expected), described)
            XCTAssertEqual(all.filter("NOT location GEOWITHIN %@", shape).count, 2 - expected.count, described)
        }
        // Type-safe queries with each concrete shape.
        XCTAssertEqual(all.where { $0.location.geoWithin(self.smallCircle) }.count, 0)
        XCTAssertEqual(ids(all.where { $0.location.geoWithin(self.largeCircle) }), [first])
        XCTAssertEqual(ids(all.where { $0.location.geoWithin(self.smallBox) }), [first, second])
        XCTAssertEqual(ids(all.where { $0.location.geoWithin(basicPolygon) }), [first, second])
        XCTAssertEqual(ids(all.where { $0.location.geoWithin(polygonWithTwoHoles) }), [second])
        XCTAssertEqual(ids(all.where { !$0.location.geoWithin(polygonWithTwoHoles) }), [first])
        // The guide's argument array.
        let filterArguments = NSMutableArray()
        filterArguments.add(largeBox)
        XCTAssertEqual(ids(all.filter("location IN %@", filterArguments[0])), [first])
    }

    /// realm-swift's GeospatialTests.testFilterShapes, through the overlay.
    func testRealmSwiftFilterShapes() throws {
        let realm = try Realm()
        try realm.write {
            realm.add(GeoPerson("Diana", 40.7128, -74.0060))
            realm.add(GeoPerson("Maria", 55.6761, 12.5683))
            realm.add(GeoPerson("Tomas", 55.6280, 12.0826))
            realm.add(GeoPerson("Alba", -76, -76))
        }
        let outer = GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)])!.outerRing
        let dianaHole = GeoPolygon(outerRing: [(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)])!.outerRing
        let albaHole = GeoPolygon(outerRing: [(-77, -77), (-77, -75), (-75, -75), (-75, -77), (-77, -77)])!.outerRing
        let table: [(any RLMGeospatial, [String])] = [
            (GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!, ["Maria"]),
            (GeoBox(bottomLeft: (55.6279, 12.0825), topRight: (55.6762, 12.5684))!, ["Maria", "Tomas"]),
            (GeoBox(bottomLeft: (0, -75), topRight: (60, 15))!, ["Diana", "Maria", "Tomas"]),
            (GeoPolygon(outerRing: [(55.6281, 12.0826), (55.6761, 12.0826), (55.6761, 12.5684), (55.6281, 12.5684), (55.6281, 12.0826)])!, ["Maria"]),
            (GeoPolygon(outerRing: [(55, 12), (55.67, 12.5), (55.67, 11.5), (55, 12)])!, ["Tomas"]),
            (GeoPolygon(outerRing: outer, holes: [dianaHole])!, ["Alba", "Maria", "Tomas"]),
            (GeoPolygon(outerRing: outer, holes: [dianaHole, albaHole])!, ["Maria", "Tomas"]),
            (GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001)!, ["Maria"]),
            (GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!)!, ["Maria"]),
            (GeoCircle(center: (55.67, 12.56), radius: .kilometers(100)!)!, ["Maria", "Tomas"]),
            (GeoCircle(center: (45, -20), radius: .kilometers(5000)!)!, ["Diana", "Maria", "Tomas"]),
        ]
        let people = realm.objects(GeoPerson.self)
        for (shape, expected) in table {
            XCTAssertEqual(people.filter("location IN %@", shape).map(\.name).sorted(), expected, shape._fiefQueryText)
        }
    }

    /// Lists of points (ANY, ALL, NONE) and live results.
    func testListsAndLiveness() throws {
        let realm = try Realm()
        let box = GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!
        let person = GeoPerson("Ann", 0.5, 0.5)
        try realm.write {
            realm.add(person)
            person.visited.append(CustomGeoPoint(0.2, 0.2))
            person.visited.append(CustomGeoPoint(5, 5))
            realm.add(GeoPerson("Bob", 3, 3))
        }
        let people = realm.objects(GeoPerson.self)
        XCTAssertEqual(people.filter("ANY visited GEOWITHIN %@", box).map(\.name), ["Ann"])
        XCTAssertEqual(people.filter("ALL visited GEOWITHIN %@", box).count, 0)
        XCTAssertEqual(people.filter("NONE visited GEOWITHIN %@", box).map(\.name), ["Bob"])

        let inside = people.filter("location GEOWITHIN %@", box)
        XCTAssertEqual(inside.map(\.name), ["Ann"])
        try realm.write { realm.add(GeoPerson("Cy", 0.9, 0.1)) }
        XCTAssertEqual(inside.map(\.name), ["Ann", "Cy"])
        try realm.write { person.location = CustomGeoPoint(10, 10) }
        XCTAssertEqual(inside.map(\.name), ["Cy"])
    }
}
