// The geospatial shapes of the overlay: RealmSwift's failable initialisers
// (realm-swift's GeospatialTests as tables), equality, the query-language text
// the shapes hand to queries, and the CRUD - Read guide's geospatial code as
// written, with its GeoJSON-shaped embedded class stored and read back.

import Fief
import Foundation
import XCTest

/// The guide's point class: any embedded class with a `type` of "Point" and
/// `coordinates` [longitude, latitude] is a geo point for queries.
class CustomGeoPoint: EmbeddedObject {
    @Persisted private var type: String = "Point"
    @Persisted private var coordinates: List<Double>

    public var latitude: Double { coordinates[1] }
    public var longitude: Double { coordinates[0] }

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        // GeoJSON puts the longitude first.
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

class Geospatial_Company: Object {
    @Persisted(primaryKey: true) var _id: ObjectId = ObjectId.generate()
    @Persisted var location: CustomGeoPoint?

    convenience init(_ location: CustomGeoPoint?) {
        self.init()
        self.location = location
    }
}

final class GeoOverlayTests: FiefTestCase {

    // MARK: Failable initialisers

    func testGeoPointRanges() {
        // (latitude, longitude, altitude, valid)
        let table: [(Double, Double, Double, Bool)] = [
            (90, 0, 0, true), (-90, 0, 0, true), (12.3456789, 0, 0, true),
            (90.000000001, 0, 0, false), (-90.000000001, 0, 0, false), (9999999, 0, 0, false), (-9999999, 0, 0, false),
            (0, 180, 0, true), (0, -180, 0, true), (0, 12.3456789, 0, true),
            (0, 180.000000001, 0, false), (0, -180.000000001, 0, false), (0, 9999999, 0, false), (0, -9999999, 0, false),
            (90, 0, 500, true), (90, 0, -1, false), (90, 0, .nan, false), (90, 0, -500, false), (0, 0, .infinity, true),
            (.nan, 0, 0, false), (0, .nan, 0, false), (.infinity, 0, 0, false),
        ]
        for (latitude, longitude, altitude, valid) in table {
            let point = GeoPoint(latitude: latitude, longitude: longitude, altitude: altitude)
            XCTAssertEqual(point != nil, valid, "\(latitude), \(longitude), \(altitude)")
            if let point {
                XCTAssertEqual(point.latitude, latitude)
                XCTAssertEqual(point.longitude, longitude)
                XCTAssertEqual(point.altitude, altitude)
            }
        }
        // Without an altitude it is 0.
        XCTAssertEqual(GeoPoint(latitude: 1, longitude: 2)?.altitude, 0)
        XCTAssertNil(GeoPoint(latitude: 91, longitude: 2))
    }

    func testGeoBox() {
        let box = GeoBox(bottomLeft: GeoPoint(latitude: -90, longitude: -180)!, topRight: GeoPoint(latitude: 90, longitude: 180)!)
        XCTAssertEqual(box.bottomLeft, GeoPoint(latitude: -90, longitude: -180))
        XCTAssertEqual(box.topRight, GeoPoint(latitude: 90, longitude: 180))
        XCTAssertNotNil(GeoBox(bottomLeft: (-90, -180), topRight: (90, 180)))
        XCTAssertNil(GeoBox(bottomLeft: (-91, -181), topRight: (91, 181)))
        XCTAssertNil(GeoBox(bottomLeft: (0, 0), topRight: (0, 181)))
        XCTAssertEqual(GeoBox(bottomLeft: (47.3, -122.7), topRight: (48.1, -122.1))?.topRight, GeoPoint(latitude: 48.1, longitude: -122.1))
    }

    func testGeoPolygonRings() {
        func p(_ latitude: Double, _ longitude: Double) -> GeoPoint { GeoPoint(latitude: latitude, longitude: longitude)! }
        let closed = [p(0, 0), p(1, 1), p(2, 2), p(0, 0)]
        // (outer ring, holes, valid): at least four points per ring, first == last.
        let table: [([GeoPoint], [[GeoPoint]], Bool)] = [
            ([p(0, 0)], [], false),
            ([p(0, 0), p(1, 1), p(0, 0)], [], false),
            ([p(0, 0), p(1, 1), p(2, 2)], [], false),
            ([p(0, 0), p(1, 1), p(2, 0), p(0, 0)], [], true),
            ([p(0, 0), p(1, 1), p(2, 0), p(3, 3)], [], false),
            (closed, [closed], true),
            (closed, [[p(0, 0)]], false),
            (closed, [[p(0, 0), p(1, 1), p(0, 0)]], false),
            (closed, [[p(0, 0), p(1, 1), p(2, 2)]], false),
            (closed, [[p(0, 0), p(1, 1), p(2, 2), p(3, 3)]], false),
            (closed, [closed, [p(0, 0)]], false),
            (closed, [closed, [p(0, 0), p(1, 1), p(2, 2), p(3, 3)]], false),
            (closed, [closed, closed], true),
            // The altitude is part of the point: a ring must close on it too.
            ([GeoPoint(latitude: 0, longitude: 0, altitude: 1)!, p(1, 1), p(2, 0), p(0, 0)], [], false),
        ]
        for (outer, holes, valid) in table {
            XCTAssertEqual(GeoPolygon(outerRing: outer, holes: holes) != nil, valid, "\(outer) \(holes)")
        }
        XCTAssertNotNil(GeoPolygon(outerRing: closed))
        XCTAssertNil(GeoPolygon(outerRing: closed)?.holes)
        XCTAssertEqual(GeoPolygon(outerRing: closed, holes: [closed])?.holes, [closed])

        // The tuple forms: (latitude, longitude), holes as an array or one after another.
        let triangle: [(Double, Double)] = [(0, 0), (1, 1), (2, 2), (0, 0)]
        let open: [(Double, Double)] = [(0, 0), (1, 1), (2, 2), (3, 3)]
        let single: [(Double, Double)] = [(0, 0)]
        XCTAssertNotNil(GeoPolygon(outerRing: [(40.0096192, -75.5175781), (60.0, 20.0), (20.0, 20.0), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]))
        XCTAssertNil(GeoPolygon(outerRing: [(40.0096192, -75.5175781)]))
        XCTAssertNotNil(GeoPolygon(outerRing: triangle, holes: [triangle]))
        XCTAssertNotNil(GeoPolygon(outerRing: triangle, holes: triangle, triangle))
        XCTAssertNil(GeoPolygon(outerRing: triangle, holes: [single]))
        XCTAssertNil(GeoPolygon(outerRing: triangle, holes: [open]))
        XCTAssertNil(GeoPolygon(outerRing: triangle, holes: triangle, open))
        XCTAssertEqual(GeoPolygon(outerRing: triangle, holes: triangle, triangle)?.holes?.count, 2)
        // A point out of range makes the tuple form nil.
        let outOfRange: [(Double, Double)] = [(0, 0), (1, 1), (91, 2), (0, 0)]
        XCTAssertNil(GeoPolygon(outerRing: outOfRange))
        XCTAssertNil(GeoPolygon(outerRing: triangle, holes: [outOfRange]))
        // The geometry itself (crossing edges, holes outside) is the engine's
        // to check when a query runs: these build.
        let square: [(Double, Double)] = [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)]
        let farSquare: [(Double, Double)] = [(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]
        XCTAssertNotNil(GeoPolygon(outerRing: square, holes: [farSquare]))
        let bowTie: [(Double, Double)] = [(50, -50), (55, 55), (-50, 50), (70, -25), (50, -50)]
        XCTAssertNotNil(GeoPolygon(outerRing: bowTie))
    }

    func testDistances() {
        // (distance, valid)
        let table: [(Distance?, Bool)] = [
            (Distance.radians(0), true), (Distance.radians(20), true), (Distance.radians(-20), false), (Distance.radians(.nan), false),
            (Distance.kilometers(0), true), (Distance.kilometers(10), true), (Distance.kilometers(-10), false), (Distance.kilometers(.nan), false),
            (Distance.miles(0), true), (Distance.miles(10), true), (Distance.miles(-10), false), (Distance.miles(.nan), false),
            (Distance.degrees(0), true), (Distance.degrees(90), true), (Distance.degrees(-90), false), (Distance.degrees(.nan), false),
            (Distance.kilometers(.infinity), true), (Distance.radians(-0.0), true),
        ]
        for (index, row) in table.enumerated() {
            XCTAssertEqual(row.0 != nil, row.1, "row \(index)")
        }
        let earthKilometers = Distance.kilometers(40075)!
        XCTAssertEqual(earthKilometers.radians, 2 * Double.pi, accuracy: earthKilometers.radians * 0.0001)
        XCTAssertEqual(earthKilometers.asKilometers(), 40075, accuracy: 40075 * 1e-12)
        let earthMiles = Distance.miles(24901)!
        XCTAssertEqual(earthMiles.radians, 2 * Double.pi, accuracy: earthMiles.radians * 0.0001)
        XCTAssertEqual(earthMiles.asMiles(), 24901, accuracy: 24901 * 1e-12)
        XCTAssertEqual(Distance.degrees(180)!.radians, Double.pi)
        XCTAssertEqual(Distance.degrees(180)!.asDegrees(), 180, accuracy: 1e-12)
        XCTAssertEqual(Distance.radians(Double.pi)!.radians, Double.pi)
        XCTAssertEqual(Distance.radians(0.25)!.asRadians(), 0.25)
        // realm-core's Earth radius: one radian is 6378.1 km.
        XCTAssertEqual(Distance.radians(1)!.asKilometers(), 6378.1, accuracy: 1e-9)
        XCTAssertEqual(Distance.kilometers(6378.1)!.radians, 1, accuracy: 1e-15)
        XCTAssertEqual(Distance.miles(1)!.asKilometers(), 1.609344, accuracy: 1e-12)
    }

    func testGeoCircle() {
        XCTAssertEqual(GeoCircle(center: GeoPoint(latitude: 0, longitude: 70)!, radius: .radians(0)!).radians, 0)
        XCTAssertEqual(GeoCircle(center: GeoPoint(latitude: 0, longitude: 70)!, radiusInRadians: 500)?.radians, 500)
        XCTAssertNil(GeoCircle(center: GeoPoint(latitude: 0, longitude: 70)!, radiusInRadians: .nan))
        XCTAssertNil(GeoCircle(center: GeoPoint(latitude: 0, longitude: 70)!, radiusInRadians: -500))
        XCTAssertNotNil(GeoCircle(center: (0, 70), radiusInRadians: 0))
        XCTAssertNil(GeoCircle(center: (0, 70), radiusInRadians: -500))
        XCTAssertNil(GeoCircle(center: (95, 70), radiusInRadians: 1))
        XCTAssertEqual(GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!)?.radians, Distance.kilometers(10)!.radians)
        XCTAssertNil(GeoCircle(center: (55.67, 190), radius: .kilometers(10)!))
        XCTAssertEqual(GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001)?.center, GeoPoint(latitude: 55.67, longitude: 12.56))
    }

    func testEquality() {
        XCTAssertEqual(GeoPoint(latitude: 1, longitude: 1, altitude: 1), GeoPoint(latitude: 1, longitude: 1, altitude: 1))
        XCTAssertNotEqual(GeoPoint(latitude: 1, longitude: 1, altitude: 1), GeoPoint(latitude: 2, longitude: 1, altitude: 1))
        XCTAssertNotEqual(GeoPoint(latitude: 1, longitude: 1, altitude: 1), GeoPoint(latitude: 1, longitude: 2, altitude: 1))
        XCTAssertNotEqual(GeoPoint(latitude: 1, longitude: 1, altitude: 1), GeoPoint(latitude: 1, longitude: 1, altitude: 2))

        XCTAssertEqual(GeoBox(bottomLeft: (0, 0), topRight: (1, 1)), GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))
        XCTAssertNotEqual(GeoBox(bottomLeft: (1, 1), topRight: (0, 0)), GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))

        let outer: [(Double, Double)] = [(0, 0), (10, 0), (5, 4), (0, 0)]
        let widerOuter: [(Double, Double)] = [(0, 0), (15, 0), (5, 4), (0, 0)]
        let hole: [(Double, Double)] = [(1, 1), (9, 0), (4, 4), (1, 1)]
        let otherHole: [(Double, Double)] = [(1, 1), (9, 0), (3, 3), (1, 1)]
        XCTAssertEqual(GeoPolygon(outerRing: outer, holes: [hole]), GeoPolygon(outerRing: outer, holes: [hole]))
        XCTAssertNotEqual(GeoPolygon(outerRing: widerOuter, holes: [hole]), GeoPolygon(outerRing: outer, holes: [hole]))
        XCTAssertNotEqual(GeoPolygon(outerRing: outer, holes: [otherHole]), GeoPolygon(outerRing: outer, holes: [hole]))
        // No holes at all equals an empty list of holes.
        let ring = [GeoPoint(latitude: 0, longitude: 0)!, GeoPoint(latitude: 1, longitude: 0)!,
                    GeoPoint(latitude: 0, longitude: 1)!, GeoPoint(latitude: 0, longitude: 0)!]
        XCTAssertEqual(GeoPolygon(outerRing: ring), GeoPolygon(outerRing: ring, holes: []))

        XCTAssertEqual(GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001), GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001))
        XCTAssertNotEqual(GeoCircle(center: (55, 12), radiusInRadians: 1), GeoCircle(center: (55, 13), radiusInRadians: 1))
        XCTAssertNotEqual(GeoCircle(center: (55, 12), radiusInRadians: 1), GeoCircle(center: (55, 12), radiusInRadians: 5))

        XCTAssertEqual(Distance.kilometers(1), Distance.kilometers(1))
        XCTAssertEqual(Distance.miles(1), Distance.miles(1))
        XCTAssertEqual(Distance.radians(50), Distance.radians(50))
        XCTAssertEqual(Distance.degrees(180), Distance.degrees(180))
        XCTAssertEqual(Distance.degrees(180), Distance.radians(Double.pi))
        XCTAssertNotEqual(Distance.kilometers(25.01), Distance.kilometers(25.02))
        XCTAssertNotEqual(Distance.miles(6.055), Distance.miles(6.054))
        XCTAssertNotEqual(Distance.degrees(180.04), Distance.degrees(180.05))
        XCTAssertNotEqual(Distance.radians(20.00007695), Distance.degrees(20.00007694))
        XCTAssertEqual(Set([GeoPoint(latitude: 1, longitude: 2)!, GeoPoint(latitude: 1, longitude: 2)!]).count, 1)
    }

    func testDescriptions() {
        XCTAssertEqual(GeoPoint(latitude: 47.3, longitude: -121.9)!.description, "GeoPoint(latitude: 47.3, longitude: -121.9)")
        XCTAssertEqual(GeoPoint(latitude: 1, longitude: 2, altitude: 3)!.description, "GeoPoint(latitude: 1.0, longitude: 2.0, altitude: 3.0)")
        XCTAssertEqual(GeoBox(bottomLeft: (1, 2), topRight: (3, 4))!.description,
                       "GeoBox(bottomLeft: GeoPoint(latitude: 1.0, longitude: 2.0), topRight: GeoPoint(latitude: 3.0, longitude: 4.0))")
        let ring: [(Double, Double)] = [(0, 0), (1, 1), (2, 0), (0, 0)]
        XCTAssertEqual(GeoPolygon(outerRing: ring, holes: ring)!.description, "GeoPolygon(outerRing: 4 points, holes: 1)")
        XCTAssertEqual(GeoCircle(center: (1, 2), radiusInRadians: 0.5)!.description,
                       "GeoCircle(center: GeoPoint(latitude: 1.0, longitude: 2.0), radians: 0.5)")
        XCTAssertEqual(Distance.radians(0.5)!.description, "Distance(radians: 0.5)")
    }

    // MARK: Query text

    func testQueryText() {
        // Longitude first, as the query language and GeoJSON write points.
        XCTAssertEqual(GeoBox(bottomLeft: (47.3, -122.7), topRight: (48.1, -122.1))!._fiefQueryText,
                       "geoBox([-122.7, 47.3], [-122.1, 48.1])")
        // A box's altitudes are dropped (RealmSwift's box ignores them too).
        let raised = GeoBox(bottomLeft: GeoPoint(latitude: 1, longitude: 2, altitude: 9)!, topRight: GeoPoint(latitude: 3, longitude: 4)!)
        XCTAssertEqual(raised._fiefQueryText, "geoBox([2.0, 1.0], [4.0, 3.0])")
        XCTAssertEqual(GeoPolygon(outerRing: [(48.0, -122.8), (48.2, -121.8), (47.6, -121.6), (48.0, -122.8)])!._fiefQueryText,
                       "geoPolygon({[-122.8, 48.0], [-121.8, 48.2], [-121.6, 47.6], [-122.8, 48.0]})")
        let outer: [(Double, Double)] = [(0, 0), (0, 10), (10, 10), (0, 0)]
        let hole1: [(Double, Double)] = [(1, 1), (1, 2), (2, 2), (1, 1)]
        let hole2: [(Double, Double)] = [(5, 5), (5, 6), (6, 6), (5, 5)]
        XCTAssertEqual(GeoPolygon(outerRing: outer, holes: hole1, hole2)!._fiefQueryText,
                       "geoPolygon({[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 0.0]}, "
                       + "{[1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 1.0]}, {[5.0, 5.0], [6.0, 5.0], [6.0, 6.0], [5.0, 5.0]})")
        // A polygon keeps altitudes that are not 0 (the engine compares them
        // when it checks that a ring is closed).
        let high = GeoPoint(latitude: 0, longitude: 0, altitude: 12.5)!
        let highRing = [high, GeoPoint(latitude: 0, longitude: 1)!, GeoPoint(latitude: 1, longitude: 1)!, high]
        XCTAssertEqual(GeoPolygon(outerRing: highRing)!._fiefQueryText,
                       "geoPolygon({[0.0, 0.0, 12.5], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0, 12.5]})")
        XCTAssertEqual(GeoCircle(center: (47.3, -121.9), radiusInRadians: 0.004363323)!._fiefQueryText,
                       "geoCircle([-121.9, 47.3], 0.004363323)")
        XCTAssertEqual(GeoCircle(center: GeoPoint(latitude: 0, longitude: 0)!, radius: .kilometers(6378.1)!)._fiefQueryText,
                       "geoCircle([0.0, 0.0], 1.0)")
        XCTAssertEqual(GeoCircle(center: (-0.0, 1e-05), radiusInRadians: .infinity)!._fiefQueryText, "geoCircle([1e-05, -0.0], inf)")
        // Exact: the printed numbers read back to the same doubles.
        let third = 1.0 / 3, sum = 0.1 + 0.2, angle = Double.pi / 7
        let circle = GeoCircle(center: (sum, third), radiusInRadians: angle)!
        XCTAssertEqual(circle._fiefQueryText, "geoCircle([0.3333333333333333, 0.30000000000000004], 0.4487989505128276)")
        XCTAssertEqual(Double("0.30000000000000004"), sum)
        XCTAssertEqual(Double("0.3333333333333333"), third)
        XCTAssertEqual(Double("0.4487989505128276"), angle)
        // Generic code sees every shape through RLMGeospatial.
        let shapes: [any RLMGeospatial] = [GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!, circle]
        XCTAssertEqual(shapes.map { String($0._fiefQueryText.prefix(7)) }, ["geoBox(", "geoCirc"])
    }

    // MARK: The CRUD - Read guide

    /// The guide's geospatial shapes, as written there.
    func testGuideShapes() throws {
        // You can create a GeoCircle radius measured in radians.
        // This radian distance corresponds with 0.25 degrees.
        let smallCircle = GeoCircle(center: (47.3, -121.9), radiusInRadians: 0.004363323)
        // You can also create a GeoCircle radius measured with a Distance.
        // You can specify a Distance in .degrees, .kilometers, .miles, or .radians.
        let largeCircle = GeoCircle(center: GeoPoint(latitude: 47.8, longitude: -122.6)!, radius: Distance.kilometers(44.4)!)

        let largeBox = GeoBox(bottomLeft: (47.3, -122.7), topRight: (48.1, -122.1))
        let smallBoxBottomLeft = GeoPoint(latitude: 47.5, longitude: -122.4)!
        let smallBoxTopRight = GeoPoint(latitude: 47.9, longitude: -121.8)
        let smallBox = GeoBox(bottomLeft: smallBoxBottomLeft, topRight: smallBoxTopRight!)

        // Create a basic polygon
        let basicPolygon = GeoPolygon(outerRing: [
            (48.0, -122.8),
            (48.2, -121.8),
            (47.6, -121.6),
            (47.0, -122.0),
            (47.2, -122.6),
            (48.0, -122.8)
        ])
        // Create a polygon with one hole
        let outerRing: [GeoPoint] = [
            GeoPoint(latitude: 48.0, longitude: -122.8)!,
            GeoPoint(latitude: 48.2, longitude: -121.8)!,
            GeoPoint(latitude: 47.6, longitude: -121.6)!,
            GeoPoint(latitude: 47.0, longitude: -122.0)!,
            GeoPoint(latitude: 47.2, longitude: -122.6)!,
            GeoPoint(latitude: 48.0, longitude: -122.8)!
        ]
        let hole: [GeoPoint] = [
            GeoPoint(latitude: 47.8, longitude: -122.6)!,
            GeoPoint(latitude: 47.7, longitude: -122.2)!,
            GeoPoint(latitude: 47.4, longitude: -122.6)!,
            GeoPoint(latitude: 47.6, longitude: -122.5)!,
            GeoPoint(latitude: 47.8, longitude: -122.6)!
        ]
        let polygonWithOneHole = GeoPolygon(outerRing: outerRing, holes: [hole])
        // Add a second hole to the polygon
        let hole2: [GeoPoint] = [
            GeoPoint(latitude: 47.55, longitude: -122.05)!,
            GeoPoint(latitude: 47.55, longitude: -121.9)!,
            GeoPoint(latitude: 47.3, longitude: -122.1)!,
            GeoPoint(latitude: 47.55, longitude: -122.05)!
        ]
        let polygonWithTwoHoles = GeoPolygon(outerRing: outerRing, holes: [hole, hole2])

        // The guide's filter arguments: a shape goes into an argument array as is.
        let filterArguments = NSMutableArray()
        filterArguments.add(largeBox as Any)
        XCTAssertEqual((filterArguments as? [Any])?.count, 1)

        XCTAssertEqual(smallCircle?._fiefQueryText, "geoCircle([-121.9, 47.3], 0.004363323)")
        XCTAssertEqual(Distance.radians(smallCircle?.radians ?? 0)!.asDegrees(), 0.25, accuracy: 1e-6)
        XCTAssertEqual(largeCircle.radians, 44.4 / 6378.1, accuracy: 1e-15)
        XCTAssertEqual(largeBox?._fiefQueryText, "geoBox([-122.7, 47.3], [-122.1, 48.1])")
        XCTAssertEqual(smallBox._fiefQueryText, "geoBox([-122.4, 47.5], [-121.8, 47.9])")
        XCTAssertEqual(basicPolygon, GeoPolygon(outerRing: outerRing))
        XCTAssertEqual(basicPolygon?.outerRing.count, 6)
        XCTAssertEqual(polygonWithOneHole?.holes?.count, 1)
        XCTAssertEqual(polygonWithTwoHoles?.holes?.count, 2)
        XCTAssertEqual(polygonWithTwoHoles?._fiefQueryText,
                       "geoPolygon({[-122.8, 48.0], [-121.8, 48.2], [-121.6, 47.6], [-122.0, 47.0], [-122.6, 47.2], [-122.8, 48.0]}, "
                       + "{[-122.6, 47.8], [-122.2, 47.7], [-122.6, 47.4], [-122.5, 47.6], [-122.6, 47.8]}, "
                       + "{[-122.05, 47.55], [-121.9, 47.55], [-122.1, 47.3], [-122.05, 47.55]})")
    }

    /// The guide's companies and their GeoJSON-shaped locations, stored and read back.
    func testGuideCompaniesStoreGeoJSONPoints() throws {
        let realm = try Realm()
        let company1 = Geospatial_Company()
        company1.location = CustomGeoPoint(47.68, -122.35)
        let company2 = Geospatial_Company(CustomGeoPoint(47.9, -121.85))
        try realm.write {
            realm.add(company1)
            realm.add(company2)
        }
        XCTAssertEqual(realm.objects(Geospatial_Company.self).count, 2)
        let first = try XCTUnwrap(realm.object(ofType: Geospatial_Company.self, forPrimaryKey: company1._id)?.location)
        XCTAssertEqual(first.latitude, 47.68)
        XCTAssertEqual(first.longitude, -122.35)
        // Stored as GeoJSON: type "Point"; `longitude` reads coordinates[0].
        XCTAssertEqual(first.value(forKey: "type") as? String, "Point")
        let second = try XCTUnwrap(realm.object(ofType: Geospatial_Company.self, forPrimaryKey: company2._id)?.location)
        XCTAssertEqual([second.longitude, second.latitude], [-121.85, 47.9])
        // Embedded: managed with their companies, deleted with them.
        XCTAssertNotNil(second.realm)
        try realm.write { realm.delete(realm.object(ofType: Geospatial_Company.self, forPrimaryKey: company2._id)!) }
        XCTAssertTrue(second.isInvalidated)
        XCTAssertEqual(first.longitude, -122.35)
    }
}
