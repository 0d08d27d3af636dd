import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// The geometry behind GEOWITHIN: realm-core's geo test cases (test_query_geo.cpp,
/// test_parser.cpp's Parser_Geospatial, realm-swift's GeospatialTests) as data
/// tables, validation errors, poles, the antimeridian, holes, rings larger than a
/// hemisphere, the text form, and a seeded cross-check against an independent
/// winding-angle method.  Coordinates are [longitude, latitude] throughout.
final class GeospatialTests: XCTestCase {

    // MARK: Helpers

    private func point(_ longitude: Double, _ latitude: Double) -> GeoPoint {
        GeoPoint(longitude: longitude, latitude: latitude)
    }

    private func box(_ lo: (Double, Double), _ hi: (Double, Double)) -> GeoShape {
        .box(point(lo.0, lo.1), point(hi.0, hi.1))
    }

    private func polygon(_ rings: [(Double, Double)]...) -> GeoShape {
        .polygon(rings.map { $0.map { point($0.0, $0.1) } })
    }

    private func circle(_ center: (Double, Double), _ radians: Double) -> GeoShape {
        .circle(point(center.0, center.1), radians: radians)
    }

    /// The named points inside `shape`, in the order given.
    private func inside(_ shape: GeoShape, _ points: [(String, Double, Double)],
                        file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            let region = try shape.validated()
            return points.filter { region.contains(point($0.1, $0.2)) }.map(\.0)
        } catch {
            XCTFail("\(shape) did not validate: \(error)", file: file, line: line)
            return []
        }
    }

    private func assertInvalid(_ shape: GeoShape, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try shape.validated()
            XCTFail("\(shape) validated; expected \"\(message)\"", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .queryInvalid, file: file, line: line)
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    private func assertValid(_ shape: GeoShape, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try shape.validated(), "\(shape)", file: file, line: line)
    }

    // MARK: realm-core: Query_GeoWithinBasics

    /// Points on edges and at vertices: realm-core's counts decide them.
    private let basicPoints: [(String, Double, Double)] = [
        ("-2,-1", -2, -1), ("-1,-2", -1, -2), ("0,0", 0, 0), ("0.5,0.5", 0.5, 0.5), ("1,1", 1, 1), ("2,2", 2, 2),
    ]

    func testRealmCoreBasicBoxes() {
        // (lo, hi, expected): realm-core checks the counts; the names follow from them.
        let table: [((Double, Double), (Double, Double), [String])] = [
            ((0.2, 0.2), (0.7, 0.7), ["0.5,0.5"]),
            // (-2,-1) is on the western edge and outside; (0.5,0.5) is under the
            // northern edge, which bulges north as a great circle.
            ((-2, -1.5), (0.7, 0.5), ["0,0", "0.5,0.5"]),
            // Both points are corners (south-west, north-east): outside.
            ((0, 0), (0.5, 0.5), []),
            // (0.5,0.5) lies on the eastern edge and is inside; (0,0) is a corner.
            ((0, 0), (0.5, 1), ["0.5,0.5"]),
            // (0,0) exactly on the western edge (decided by perturbation),
            // (0.5,0.5) on the eastern edge: both outside.
            ((0, -0.5), (0.5, 1), []),
            ((-2, -1), (1, 0.5), ["0,0", "0.5,0.5"]),
            // (-1,-2) is above the southern edge, which bulges south.
            ((-2, -2), (1, 1), ["-2,-1", "-1,-2", "0,0", "0.5,0.5"]),
            ((-2, -2), (0.5, 1), ["-2,-1", "-1,-2", "0,0", "0.5,0.5"]),
        ]
        for (lo, hi, expected) in table {
            XCTAssertEqual(inside(box(lo, hi), basicPoints), expected, "box \(lo) \(hi)")
            // Realm-core's boxes are order-free: the corners swapped give the same region.
            XCTAssertEqual(inside(box(hi, lo), basicPoints), expected, "box \(hi) \(lo)")
        }
    }

    func testRealmCoreBasicPolygonsAndCircles() {
        XCTAssertEqual(inside(polygon([(-0.5, -0.5), (1.0, 2.5), (2.5, -0.5), (-0.5, -0.5)]), basicPoints),
                       ["0,0", "0.5,0.5", "1,1"])
        XCTAssertEqual(inside(polygon([(-3.0, -1.0), (-2.0, -2.0), (-1.0, -1.0), (1.5, -1.0), (-1.0, 1.5), (-3.0, -1.0)]), basicPoints),
                       ["-2,-1", "0,0"])
        XCTAssertEqual(inside(circle((1.0, 0.5), GeoDistance.radians(kilometers: 150)), basicPoints), ["0,0", "0.5,0.5", "1,1"])
        XCTAssertEqual(inside(circle((-1.5, -1.5), GeoDistance.radians(kilometers: 90)), basicPoints), ["-2,-1", "-1,-2"])
    }

    func testRealmCoreShapesAroundOnePoint() {
        let points = [("p", 0.0, 0.001)]
        for shape in [circle((0, 0), 1), box((-5, -5), (5, 5)),
                      polygon([(-5, -5), (5, -5), (5, 5), (-5, 5), (-5, -5)])] {
            XCTAssertEqual(inside(shape, points), ["p"], "\(shape)")
        }
    }

    func testRealmCoreLargeCircle() {
        let points = [("a", -118.2400013, 34.073893), ("b", -118.2400012, 34.073894), ("origin", 0.0, 0.0)]
        XCTAssertEqual(inside(circle((-118.240013, 34.073893), 0.44915760491198753), points), ["a", "b"])
    }

    // MARK: realm-core: meridian, equator, polygon validation

    func testAntimeridianPolygon() {
        // Geospatial_MeridianQuery: a polygon across longitude 180 holds points on
        // both sides and on the line itself.
        let points = [("-179", -179.0, 1.0), ("180", 180.0, 1.0), ("179", 179.0, 1.0), ("-180", -180.0, 1.0), ("0", 0.0, 1.0)]
        let crossing = polygon([(-178.0, 10.0), (178.0, 10.0), (178.0, -10.0), (-178.0, -10.0), (-178.0, 10.0)])
        XCTAssertEqual(inside(crossing, points), ["-179", "180", "179", "-180"])
        // Geospatial_EquatorQuery: a band along the equator around longitude 0.
        let band = polygon([(30.0, 1.0), (-30.0, 1.0), (-30.0, -1.0), (30.0, -1.0), (30.0, 1.0)])
        XCTAssertEqual(inside(band, [("0,0", 0.0, 0.0)] + points.prefix(3)), ["0,0"])
    }

    func testRealmCorePolygonValidationContainment() {
        // The data points are the triangle's own vertices: exactly one of them is
        // inside (realm-core: count 1), whichever way the ring turns.
        let vertices = [("a", 40.7128, -74.0060), ("b", 55.6761, 12.5683), ("c", 55.6280, 12.0826)]
        let forward = polygon([(40.7128, -74.006), (55.6761, 12.5683), (55.628, 12.0826), (40.7128, -74.006)])
        let backward = polygon([(40.7128, -74.006), (55.628, 12.0826), (55.6761, 12.5683), (40.7128, -74.006)])
        XCTAssertEqual(inside(forward, vertices), ["c"])
        XCTAssertEqual(inside(backward, vertices), ["c"])
    }

    func testRealmCoreValidationErrors() {
        assertInvalid(polygon([(40.7128, -74.006), (55.6761, 12.5683), (55.628, 12.0826), (40.7128, -74.000)]),
                      "Ring is not closed, first vertex '[40.7128, -74.006]' does not equal last vertex '[40.7128, -74.0]'")
        assertInvalid(polygon([(40.7128, -74.006), (55.6761, 12.5683), (40.7128, -74.006)]),
                      "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided")
        assertInvalid(polygon([(40.7128, -74.006), (55.6761, 12.5683), (55.628, 12.0826), (40.7128, -74.006)],
                              [(39, -74.006), (56, 12.5683), (56, 12.0826), (39, -74.006)]),
                      "Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring")
        assertInvalid(polygon([(40.7128, -74.006), (55.6761, 12.5683), (55.628, 12.0826), (40.7128, -74.006)],
                              [(40.7128, -74.006), (55.6761, 12.5683), (55.628, 12.0826), (40.7128, -74.006)]),
                      "Polygon isn't valid: 'Duplicate edge: ring 1, edge 0 and ring 0, edge 0'")
        // Two holes sharing their northern edge.
        assertInvalid(polygon([(55.652263, 12.046461), (55.621198, 12.051422), (55.615860, 12.132292), (55.658441, 12.115444), (55.652263, 12.046461)],
                              [(55.629568, 12.098421), (55.628449, 12.098661), (55.628670, 12.100613), (55.629670, 12.100283), (55.629568, 12.098421)],
                              [(55.629568, 12.098421), (55.626245, 12.099442), (55.626432, 12.100973), (55.629670, 12.100283), (55.629568, 12.098421)]),
                      "Polygon isn't valid: 'Duplicate edge: ring 2, edge 3 and ring 1, edge 3'")
        assertInvalid(.polygon([]), "Polygon has no rings.")
        // Adjacent duplicates are dropped, not errors.
        assertValid(polygon([(0, 0), (0, 1), (0, 1), (0, 1), (1, 1), (0, 0)]))
        assertInvalid(polygon([(0, 0), (0, 1), (2, 1), (2, 2), (0, 0)]),
                      "Ring 0 is not valid: 'Edges 1 and 3 cross. Edge locations (longitude, latitude) in degrees: [0.0, 1.0]-[2.0, 1.0] and [2.0, 2.0]-[0.0, 0.0]'")
        // Looks like a line on a map, but its vertices are not on one great circle.
        assertValid(polygon([(0, 0), (1, 1), (2, 2), (0, 0)]))
    }

    // MARK: realm-core: Parser_Geospatial

    private let parserPoints: [(String, Double, Double)] = [
        ("one", 0, 0), ("two", 0.5, 0.5), ("three", 1, 1), ("four", 2, 2),
        ("Red Fish Blue Fish", -123.37039, 48.42437), ("Foo", -123.36253, 48.42566),
        ("Superbaba", -123.3615, 48.4267), ("Sen Zushi", -123.3579, 48.42398),
    ]

    func testRealmCoreParserShapes() throws {
        let table: [(String, [String])] = [
            ("geoBox([0.2, 0.2], [0.7, 0.7])", ["two"]),
            ("geoBox([0.2, 0.2, 0.2], [0.7, 0.7, 0.7])", ["two"]),
            ("geoCircle([0.3, 0.3], 1)", ["one", "two", "three", "four"]),
            ("geoCircle([0.3, 0.3, 0.3], 1)", ["one", "two", "three", "four"]),
            ("geoPolygon({[0.0, 0.0], [1.0, 0.0], [1, 1], [0, 1], [0.0, 0.0]})", ["two"]),
            ("geoPolygon({[0.0, 0.0], [1.0, 0.0], [1, 1], [0, 1], [0.0, 0.0]}, {[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75], [0.25, 0.25]})", []),
            // realm-core's own serialisations, passed back as string arguments.
            ("GeoPolygon({[0.2, 0.2], [0.2, 0.7], [0.7, 0.7], [0.7, 0.2], [0.2, 0.2]})", ["two"]),
            ("GeoCircle([-123.36197, 48.42626], 2.1950110534e-05)", ["Foo", "Superbaba"]),
        ]
        for (text, expected) in table {
            XCTAssertEqual(inside(try GeoShape(parsing: text), parserPoints), expected, text)
        }
    }

    // MARK: realm-swift: GeospatialTests.testFilterShapes (its tuples are (lat, lon))

    private let people: [(String, Double, Double)] = [
        ("Diana", -74.0060, 40.7128), ("Maria", 12.5683, 55.6761), ("Tomas", 12.0826, 55.6280), ("Alba", -76, -76),
    ]

    /// A ring from realm-swift's (latitude, longitude) tuples.
    private func latLon(_ ring: [(Double, Double)]) -> [GeoPoint] {
        ring.map { point($0.1, $0.0) }
    }

    func testRealmSwiftFilterShapes() {
        let outer: [(Double, Double)] = [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)]
        let dianaHole: [(Double, Double)] = [(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)]
        let albaHole: [(Double, Double)] = [(-77, -77), (-77, -75), (-75, -75), (-75, -77), (-77, -77)]
        let mariaHole: [(Double, Double)] = [(55.6760, 12.5682), (55.6760, 12.5684), (55.6763, 12.5684), (55.6763, 12.5682), (55.6760, 12.5682)]
        let tomasHole: [(Double, Double)] = [(55.6279, 12.0825), (55.6279, 12.0827), (55.6281, 12.0827), (55.6281, 12.0825), (55.6279, 12.0825)]
        let bigRing: [(Double, Double)] = [(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]
        let table: [(GeoShape, [String])] = [
            (.box(point(12.0826, 55.6281), point(12.5684, 55.6762)), ["Maria"]),
            (.box(point(12.0825, 55.6279), point(12.5684, 55.6762)), ["Maria", "Tomas"]),
            (.box(point(-75, 0), point(15, 60)), ["Diana", "Maria", "Tomas"]),
            (.polygon([latLon([(55.6281, 12.0826), (55.6761, 12.0826), (55.6761, 12.5684), (55.6281, 12.5684), (55.6281, 12.0826)])]), ["Maria"]),
            (.polygon([latLon([(55, 12), (55.67, 12.5), (55.67, 11.5), (55, 12)])]), ["Tomas"]),
            (.polygon([latLon(bigRing)]), ["Diana", "Maria", "Tomas"]),
            (.polygon([latLon([(50, -80), (61, 21), (21, 21), (-80, -80), (50, -80)]), latLon(bigRing)]), ["Alba"]),
            (.polygon([latLon(outer), latLon(dianaHole)]), ["Maria", "Tomas", "Alba"]),
            (.polygon([latLon(outer), latLon(dianaHole), latLon(albaHole)]), ["Maria", "Tomas"]),
            (.polygon([latLon(outer), latLon(dianaHole), latLon(albaHole), latLon(mariaHole)]), ["Tomas"]),
            (.polygon([latLon(outer), latLon(dianaHole), latLon(albaHole), latLon(mariaHole), latLon(tomasHole)]), []),
            (.circle(point(12.56, 55.67), radians: 0.001), ["Maria"]),
            (.circle(point(12.56, 55.67), radians: GeoDistance.radians(kilometers: 10)), ["Maria"]),
            (.circle(point(12.56, 55.67), radians: GeoDistance.radians(kilometers: 100)), ["Maria", "Tomas"]),
            (.circle(point(-20, 45), radians: GeoDistance.radians(kilometers: 5000)), ["Diana", "Maria", "Tomas"]),
        ]
        for (shape, expected) in table {
            XCTAssertEqual(inside(shape, people), expected, "\(shape)")
        }
    }

    func testRealmSwiftValidationErrors() {
        let square = latLon([(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])
        let notContained = "Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring"
        // Outside; along the outer ring's southern edge; across its northern edge.
        assertInvalid(.polygon([square, latLon([(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)])]), notContained)
        assertInvalid(.polygon([square, latLon([(0, 0.1), (0.5, 0.1), (0.5, 0.5), (0, 0.5), (0, 0.1)])]), notContained)
        assertInvalid(.polygon([square, latLon([(0.25, 0.5), (0.75, 0.5), (0.75, 1.5), (0.25, 1.5), (0.25, 0.5)])]), notContained)
        assertInvalid(.polygon([latLon([(50, -50), (55, 55), (-50, 50), (70, -25), (50, -50)])]),
                      "Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations (longitude, latitude) in degrees: [-50.0, 50.0]-[55.0, 55.0] and [50.0, -50.0]-[-25.0, 70.0]'")
        assertInvalid(.polygon([latLon([(50, -80), (60, 20), (20, 20), (-80, -80), (50, -80)]),
                                latLon([(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)])]),
                      "Polygon isn't valid: 'Duplicate edge: ring 1, edge 1 and ring 0, edge 1'")
        assertInvalid(.polygon([latLon([(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)]),
                                latLon([(45, -77), (61, 21), (21, 21), (-77, -77), (45, -77)]),
                                latLon([(40.0096192, -75.5175780), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175780)])]),
                      "Polygon interior rings cannot be nested: 2")
    }

    // MARK: Validation errors of our own cases

    func testValidationErrors() {
        assertInvalid(polygon([(0, 0), (181, 0), (1, 1), (0, 0)]), "Longitude/latitude is out of bounds, lng: 181.0 lat: 0.0")
        assertInvalid(polygon([(0, 0), (1, -90.5), (1, 1), (0, 0)]), "Longitude/latitude is out of bounds, lng: 1.0 lat: -90.5")
        assertInvalid(polygon([(0, 0), (.nan, 0), (1, 1), (0, 0)]), "Longitude/latitude is out of bounds, lng: nan lat: 0.0")
        assertInvalid(.polygon([[]]), "Ring has no vertices")
        assertInvalid(.polygon([[GeoPoint(longitude: 0, latitude: 0, altitude: 1), point(1, 0), point(1, 1), point(0, 0)]]),
                      "Ring is not closed, first vertex '[0.0, 0.0, 1.0]' does not equal last vertex '[0.0, 0.0]'")
        assertInvalid(polygon([(0, 0), (0, 0)]), "Ring 0 must have at least 3 different vertices, 0 unique vertices were provided")
        assertInvalid(polygon([(0, 0), (1, 0), (1, 1), (1, 0), (0, 0)]), "Ring 0 is not valid: 'Duplicate vertices: 1 and 3'")
        assertInvalid(polygon([(0, 0), (180, 0), (90, 45), (0, 0)]),
                      "Ring 0 is not valid: 'Edge 0 joins antipodal vertices [0.0, 0.0] and [180.0, 0.0]; the great-circle edge between them is undefined'")
        // A vertex on a non-adjacent edge touches it: as bad as crossing it.
        assertInvalid(polygon([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2), (0, 0)]),
                      "Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations (longitude, latitude) in degrees: [0.0, 0.0]-[2.0, 0.0] and [2.0, 2.0]-[1.0, 0.0]'")
        // The hole's second ring errors count rings from 0.
        assertInvalid(polygon([(0, 0), (4, 0), (4, 4), (0, 4), (0, 0)], [(1, 1), (2, 1), (1, 1)]),
                      "Ring 1 must have at least 3 different vertices, 2 unique vertices were provided")
        let square = [(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0), (0.0, 0.0)]
        assertInvalid(polygon(square, [(1, 1), (3, 1), (3, 3), (1, 3), (1, 1)], [(2, 2), (3.5, 2), (3.5, 3.5), (2, 3.5), (2, 2)]),
                      "Polygon isn't valid: 'Ring 1 crosses ring 2'")
        // A hole touching the outer ring at two corners cuts the polygon in two.
        assertInvalid(polygon(square, [(0, 0), (2, 1), (4, 4), (0, 0)]),
                      "Polygon is not normalized: 'Ring 1 shares more than one vertex with its parent ring 0'")
        // ... at one corner it is fine, and so are holes sharing a corner.
        assertValid(polygon(square, [(0, 0), (2, 1), (1, 2), (0, 0)]))
        assertValid(polygon(square, [(1, 1), (2, 1), (2, 2), (1, 1)], [(2, 2), (3, 2), (3, 3), (2, 2)]))
        // Degenerate boxes: one point, one latitude.
        assertInvalid(box((1, 1), (1, 1)), "Ring 0 must have at least 3 different vertices, 0 unique vertices were provided")
        assertInvalid(box((0, 5), (10, 5)), "Ring 0 must have at least 3 different vertices, 2 unique vertices were provided")
        assertInvalid(box((0, 0), (10, 95)), "Longitude/latitude is out of bounds, lng: 0.0 lat: 95.0")
        assertInvalid(circle((0, 0), -1), "The radius of a circle must be a non-negative number")
        assertInvalid(circle((0, 0), .nan), "The radius of a circle must be a non-negative number")
        assertInvalid(circle((-180.5, 0), 1), "Longitude/latitude is out of bounds, lng: -180.5 lat: 0.0")
        assertValid(circle((180, -90), 0))
        assertValid(circle((0, 0), .infinity))
    }

    // MARK: Boxes: great-circle edges, the antimeridian, the poles

    func testBoxEdgesAreGreatCircles() throws {
        let region = try box((-10, 40), (10, 50)).validated()
        // On longitude 0 the northern edge is above latitude 50 and the southern
        // edge above latitude 40: great circles bulge toward the pole.
        XCTAssertTrue(region.contains(point(0, 50.3)))
        XCTAssertFalse(region.contains(point(0, 51)))
        XCTAssertFalse(region.contains(point(0, 40.3)))
        XCTAssertTrue(region.contains(point(0, 41)))
        XCTAssertTrue(region.contains(point(9.9, 45)))
        XCTAssertFalse(region.contains(point(10.1, 45)))
    }

    func testBoxAcrossTheAntimeridian() throws {
        let points = [("180", 180.0, 0.0), ("-180", -180.0, 5.0), ("-175", -175.0, 5.0), ("175", 175.0, -5.0),
                      ("0", 0.0, 0.0), ("-165", -165.0, 0.0), ("165", 165.0, 0.0)]
        let across = ["180", "-180", "-175", "175"]
        // Corners at longitudes 170 and -170 always make the 20-degree box around
        // 180, whichever corner comes first: an edge takes the shorter way.
        XCTAssertEqual(inside(box((170, -10), (-170, 10)), points), across)
        XCTAssertEqual(inside(box((-170, -10), (170, 10)), points), across)
        XCTAssertEqual(inside(box((-170, 10), (170, -10)), points), across)
    }

    func testBoxUpToAPoleIsATriangle() throws {
        // The two northern corners are (almost) the pole: the box degenerates to
        // the triangle between the meridians 0 and 40 and the southern edge.
        let region = try box((0, 10), (40, 90)).validated()
        XCTAssertTrue(region.contains(point(20, 89.9)))
        XCTAssertTrue(region.contains(point(20, 30)))
        XCTAssertFalse(region.contains(point(60, 30)))
        XCTAssertFalse(region.contains(point(-20, 30)))
        XCTAssertFalse(region.contains(point(20, 5)))
    }

    // MARK: Poles

    func testPolygonAroundThePoles() throws {
        let north = try polygon([(0, 80), (90, 80), (180, 80), (-90, 80), (0, 80)]).validated()
        for longitude in stride(from: -180.0, through: 180.0, by: 45) {
            XCTAssertTrue(north.contains(point(longitude, 90)), "north pole seen from longitude \(longitude)")
            XCTAssertTrue(north.contains(point(longitude + (longitude < 180 ? 1 : -1), 85)))
            XCTAssertFalse(north.contains(point(longitude, 70)))
            XCTAssertFalse(north.contains(point(longitude, -90)))
        }
        // The same ring walked the other way encloses more than a hemisphere,
        // so it is inverted: the same region.
        let reversed = try polygon([(0, 80), (-90, 80), (180, 80), (90, 80), (0, 80)]).validated()
        XCTAssertTrue(reversed.contains(point(33, 90)))
        XCTAssertFalse(reversed.contains(point(33, 0)))

        let south = try polygon([(0, -75), (120, -75), (-120, -75), (0, -75)]).validated()
        XCTAssertTrue(south.contains(point(0, -90)))
        XCTAssertTrue(south.contains(point(-60, -89.9)))
        XCTAssertFalse(south.contains(point(0, -60)))
        XCTAssertFalse(south.contains(point(0, 90)))
    }

    func testPolygonWithAVertexAtThePole() throws {
        let region = try polygon([(0, 60), (90, 60), (45, 90), (0, 60)]).validated()
        XCTAssertTrue(region.contains(point(45, 70)))
        XCTAssertTrue(region.contains(point(45, 89)))
        XCTAssertFalse(region.contains(point(-135, 89)))
        XCTAssertFalse(region.contains(point(135, 70)))
    }

    func testCirclesNearThePoles() throws {
        // Centered one degree from the north pole with a radius of two degrees:
        // it reaches over the pole to latitude 89 on the far side.
        let region = try circle((0, 89), GeoDistance.radians(degrees: 2)).validated()
        XCTAssertTrue(region.contains(point(0, 90)))
        XCTAssertTrue(region.contains(point(137, 90)))
        XCTAssertTrue(region.contains(point(180, 89.5)))
        XCTAssertTrue(region.contains(point(180, 89.01)))
        XCTAssertFalse(region.contains(point(180, 88.99)))
        XCTAssertTrue(region.contains(point(0, 87.01)))
        XCTAssertFalse(region.contains(point(0, 86.99)))
        XCTAssertTrue(region.contains(point(90, 88.5)))
        // Centered on the south pole: every longitude counts the same.
        let south = try circle((0, -90), GeoDistance.radians(degrees: 10)).validated()
        for longitude in stride(from: -180.0, through: 180.0, by: 30) {
            XCTAssertTrue(south.contains(point(longitude, -80.01)))
            XCTAssertFalse(south.contains(point(longitude, -79.99)))
        }
    }

    func testCircleAcrossTheAntimeridian() throws {
        let region = try circle((180, 0), GeoDistance.radians(degrees: 5)).validated()
        XCTAssertTrue(region.contains(point(-177, 0)))
        XCTAssertTrue(region.contains(point(177, 2)))
        XCTAssertTrue(region.contains(point(-180, 0)))
        XCTAssertFalse(region.contains(point(-174, 0)))
        XCTAssertFalse(region.contains(point(0, 0)))
    }

    func testCircleBoundaryAndExtremes() throws {
        // Closed: the center of a zero-radius circle is in it, nothing else.
        let dot = try circle((10, 20), 0).validated()
        XCTAssertTrue(dot.contains(point(10, 20)))
        XCTAssertFalse(dot.contains(point(10, 20.000001)))
        // Pi or more covers everything, the antipode included.
        for radius in [Double.pi, 4, .infinity] {
            let everything = try circle((10, 20), radius).validated()
            XCTAssertTrue(everything.contains(point(-170, -20)))
            XCTAssertTrue(everything.contains(point(10, 20)))
        }
        // Just under pi leaves a hole at the antipode.
        let almost = try circle((10, 20), Double.pi - 1e-6).validated()
        XCTAssertFalse(almost.contains(point(-170, -20)))
        XCTAssertTrue(almost.contains(point(-170, -19.99)))
    }

    // MARK: Holes, boundaries, hemispheres

    func testHoles() throws {
        let region = try polygon([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)],
                                 [(2, 2), (4, 2), (4, 4), (2, 4), (2, 2)],
                                 [(6, 6), (8, 6), (7, 8), (6, 6)]).validated()
        XCTAssertTrue(region.contains(point(1, 1)))
        XCTAssertTrue(region.contains(point(5, 5)))
        XCTAssertFalse(region.contains(point(3, 3)))
        XCTAssertFalse(region.contains(point(7, 7)))
        XCTAssertFalse(region.contains(point(11, 5)))
        // Hole vertex order does not matter either.
        let reversedHole = try polygon([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)],
                                       [(2, 2), (2, 4), (4, 4), (4, 2), (2, 2)]).validated()
        XCTAssertFalse(reversedHole.contains(point(3, 3)))
        XCTAssertTrue(reversedHole.contains(point(5, 5)))
    }

    func testPointsOnSharedEdgesBelongToExactlyOneSide() throws {
        // Two boxes side by side, and a 2x2 grid of boxes around (1, 1): a point
        // of a shared edge or corner is in exactly one of them.
        let grid = try [box((0, 0), (1, 1)), box((1, 0), (2, 1)), box((0, 1), (1, 2)), box((1, 1), (2, 2))].map { try $0.validated() }
        let boundaryPoints = [point(1, 0.3), point(1, 0.5), point(1, 0.7), point(1, 1), point(0.5, 1), point(1.5, 1),
                              point(1, 1.25), point(1.75, 1)]
        for boundaryPoint in boundaryPoints {
            XCTAssertEqual(grid.filter { $0.contains(boundaryPoint) }.count, 1, "\(boundaryPoint)")
        }
        // Complementary hemispheres: the equator, walked east then west.
        let northern = try polygon([(0, 0), (90, 0), (180, 0), (-90, 0), (0, 0)]).validated()
        let southern = try polygon([(0, 0), (-90, 0), (180, 0), (90, 0), (0, 0)]).validated()
        XCTAssertTrue(northern.contains(point(12, 45)))
        XCTAssertFalse(northern.contains(point(12, -45)))
        XCTAssertTrue(southern.contains(point(12, -45)))
        XCTAssertFalse(southern.contains(point(12, 45)))
        for longitude in stride(from: -180.0, through: 180.0, by: 7.5) {
            let onEquator = point(longitude, 0)
            XCTAssertNotEqual(northern.contains(onEquator), southern.contains(onEquator), "\(onEquator)")
        }
    }

    func testRingsLargerThanAHemisphereAreInverted() throws {
        // A ring near latitude 10 walked westward has the larger side on its
        // left; it stands for the smaller, northern side like the eastward one.
        let eastward = try polygon([(0, 10), (90, 10), (180, 10), (-90, 10), (0, 10)]).validated()
        let westward = try polygon([(0, 10), (-90, 10), (180, 10), (90, 10), (0, 10)]).validated()
        for region in [eastward, westward] {
            XCTAssertTrue(region.contains(point(0, 90)))
            XCTAssertTrue(region.contains(point(45, 15)))   // the edges bulge north of 10 between vertices
            XCTAssertFalse(region.contains(point(45, 13)))
            XCTAssertFalse(region.contains(point(0, 0)))
            XCTAssertFalse(region.contains(point(0, -90)))
        }
        // A small triangle walked clockwise is the same small triangle.
        let counterClockwise = try polygon([(0, 0), (10, 0), (5, 8), (0, 0)]).validated()
        let clockwise = try polygon([(0, 0), (5, 8), (10, 0), (0, 0)]).validated()
        for (longitude, latitude) in [(5.0, 3.0), (1.0, 1.0), (5.0, -1.0), (-1.0, 1.0), (5.0, 9.0)] {
            XCTAssertEqual(counterClockwise.contains(point(longitude, latitude)), clockwise.contains(point(longitude, latitude)))
        }
        XCTAssertTrue(clockwise.contains(point(5, 3)))
    }

    func testPolygonsWithManyVertices() throws {
        // A 3000-gon approximating a 20-degree circle around (30, 40), with a
        // 500-gon hole of 5 degrees: containment agrees with the distance from
        // the center away from the boundaries.
        let center = SphereVector(longitude: 30, latitude: 40)
        func ring(_ radiusDegrees: Double, _ count: Int) -> [GeoPoint] {
            var points = (0..<count).map { index in
                destination(from: center, bearing: -2 * Double.pi * Double(index) / Double(count),
                            distance: radiusDegrees * Double.pi / 180).geoPoint
            }
            points.append(points[0])
            return points
        }
        let region = try GeoShape.polygon([ring(20, 3000), ring(5, 500)]).validated()
        var random = SeededRandom(seed: 99)
        var checked = 0
        for _ in 0..<3000 {
            let distance = random.double(in: 0...30)
            guard abs(distance - 20) > 0.01, abs(distance - 5) > 0.01 else { continue }
            let probe = destination(from: center, bearing: random.double(in: 0..<(2 * Double.pi)), distance: distance * Double.pi / 180).geoPoint
            XCTAssertEqual(region.contains(probe), distance > 5 && distance < 20, "\(probe) at \(distance) degrees")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 2900)
    }

    func testInvalidPointsAreNeverInside() throws {
        let everything = try circle((0, 0), .infinity).validated()
        XCTAssertFalse(everything.contains(point(.nan, 0)))
        XCTAssertFalse(everything.contains(point(0, .nan)))
        XCTAssertFalse(everything.contains(point(180.0001, 0)))
        XCTAssertFalse(everything.contains(point(0, -90.0001)))
        XCTAssertTrue(everything.contains(GeoPoint(longitude: 180, latitude: -90, altitude: -5)))
    }

    // MARK: Exact predicates

    func testExactSidesWhereFloatingPointIsWrong() {
        // Realm-core's box (0,0)-(0.5,1) and the point (0.5,0.5) on its eastern
        // edge: the floating-point determinant has the wrong sign.
        let a = SphereVector(longitude: 0.5, latitude: 1), b = SphereVector(longitude: 0.5, latitude: 0)
        let p = SphereVector(longitude: 0.5, latitude: 0.5)
        XCTAssertGreaterThan(a.cross(b).dot(p), 0)
        XCTAssertEqual(GeometryKernel.exactOrientation(a, b, p), -1)
        XCTAssertEqual(GeometryKernel.orientation(a, b, p), -1)
    }

    func testPerturbationBreaksExactZerosConsistently() {
        // Points on the equator (z == 0) or the prime meridian (y == 0) have an
        // exactly zero determinant; the perturbed sign is never zero, flips with
        // an odd permutation and survives a rotation of the arguments.
        let triples: [(SphereVector, SphereVector, SphereVector)] = [
            (SphereVector(longitude: 0, latitude: 1), SphereVector(longitude: 0, latitude: -0.5), SphereVector(longitude: 0, latitude: 0)),
            (SphereVector(longitude: 10, latitude: 0), SphereVector(longitude: 20, latitude: 0), SphereVector(longitude: 15, latitude: 0)),
            (SphereVector(longitude: 0, latitude: 0), SphereVector(longitude: 90, latitude: 0), SphereVector(longitude: -45, latitude: 0)),
            (SphereVector(x: 1, y: 0, z: 0), SphereVector(x: 0, y: 1, z: 0), SphereVector(x: -1, y: 0, z: 0)),
        ]
        for (a, b, c) in triples {
            let sign = GeometryKernel.exactOrientation(a, b, c)
            XCTAssertNotEqual(sign, 0)
            XCTAssertEqual(GeometryKernel.exactOrientation(b, c, a), sign)
            XCTAssertEqual(GeometryKernel.exactOrientation(c, a, b), sign)
            XCTAssertEqual(GeometryKernel.exactOrientation(b, a, c), -sign)
            XCTAssertEqual(GeometryKernel.exactOrientation(a, c, b), -sign)
            XCTAssertEqual(GeometryKernel.exactOrientation(c, b, a), -sign)
        }
        // Realm-core leaves (0,0) outside its box (0,-0.5)-(0.5,1), where the
        // perturbation decides; so do we (see testRealmCoreBasicBoxes).
        XCTAssertEqual(GeometryKernel.exactOrientation(triples[0].0, triples[0].1, triples[0].2), -1)
        XCTAssertEqual(GeometryKernel.exactOrientation(triples[0].0, triples[0].0, triples[0].2), 0)
    }

    func testExactSignMatchesRandomLargeDeterminants() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let a = random.unitVector(), b = random.unitVector(), c = random.unitVector()
            let estimate = a.cross(b).dot(c)
            guard abs(estimate) > 1e-12 else { continue }
            XCTAssertEqual(GeometryKernel.exactOrientation(a, b, c), estimate > 0 ? 1 : -1)
        }
    }

    // MARK: Seeded cross-check against winding angles

    func testRandomConvexPolygonsAgreeWithWindingAngles() throws {
        var random = SeededRandom(seed: 20240611)
        var checked = 0, insideCount = 0
        for polygonIndex in 0..<150 {
            // A convex polygon: vertices at increasing bearings around a random
            // center, at random distances, up to 60 degrees out.
            let center = random.unitVector()
            let radius = random.double(in: 0.001...1.0)
            let vertexCount = Int(random.double(in: 3...12))
            var bearings: [Double] = []
            for _ in 0..<vertexCount { bearings.append(random.double(in: 0..<(2 * Double.pi))) }
            bearings.sort()
            // Bearings grow clockwise (north, then east): walk them backwards.
            bearings.reverse()
            var counterClockwise: [SphereVector] = []
            for bearing in bearings {
                let distance = radius * random.double(in: 0.7...1.0)
                counterClockwise.append(destination(from: center, bearing: bearing, distance: distance))
            }
            // Convex: every vertex left of every edge's great circle; skip the rest.
            guard isStrictlyConvex(counterClockwise) else { continue }
            let ring = counterClockwise.map { $0.geoPoint }
            // Half the polygons are given clockwise: inverted back, same region.
            let written = polygonIndex % 2 == 0 ? ring : Array(ring.reversed())
            let region = try GeoShape.polygon([written + [written[0]]]).validated()
            let exact = counterClockwise.map { SphereVector($0.geoPoint) }
            for _ in 0..<200 {
                let probe = destination(from: center, bearing: random.double(in: 0..<(2 * Double.pi)),
                                        distance: radius * random.double(in: 0...1.3)).geoPoint
                let probeVector = SphereVector(probe)
                guard distanceToBoundary(probeVector, exact) > 1e-9 else { continue }
                let expected = windingAngle(probeVector, exact) > Double.pi
                XCTAssertEqual(region.contains(probe), expected, "polygon \(polygonIndex), point \(probe)")
                checked += 1
                if expected { insideCount += 1 }
            }
        }
        XCTAssertGreaterThan(checked, 5_000)
        XCTAssertGreaterThan(insideCount, checked / 5)
        XCTAssertLessThan(insideCount, checked * 4 / 5)
    }

    /// The sum of the signed angles the edges subtend at `p`: 2π when a
    /// counterclockwise ring goes around p, 0 when it does not.
    private func windingAngle(_ p: SphereVector, _ ring: [SphereVector]) -> Double {
        var total = 0.0
        for index in ring.indices {
            let u = p.cross(ring[index]), v = p.cross(ring[(index + 1) % ring.count])
            total += atan2(p.dot(u.cross(v)), u.dot(v))
        }
        return total
    }

    private func distanceToBoundary(_ p: SphereVector, _ ring: [SphereVector]) -> Double {
        var nearest = Double.infinity
        for index in ring.indices {
            let normal = ring[index].cross(ring[(index + 1) % ring.count]).normalized()
            nearest = min(nearest, abs(asin(max(-1, min(1, normal.dot(p))))))
        }
        return nearest
    }

    private func isStrictlyConvex(_ ring: [SphereVector]) -> Bool {
        for index in ring.indices {
            let a = ring[index], b = ring[(index + 1) % ring.count]
            let normal = a.cross(b).normalized()
            for other in ring.indices where other != index && other != (index + 1) % ring.count {
                if normal.dot(ring[other]) < 1e-6 { return false }
            }
        }
        return true
    }

    /// The point `distance` radians from `start` along `bearing` (from north, clockwise).
    private func destination(from start: SphereVector, bearing: Double, distance: Double) -> SphereVector {
        let north = SphereVector(x: 0, y: 0, z: 1)
        var east = north.cross(start)
        if east.lengthSquared < 1e-20 { east = SphereVector(x: 0, y: 1, z: 0) }
        east = east.normalized()
        let up = start.cross(east)  // north, tangent at start
        let direction = up.scaled(cos(bearing)) + east.scaled(sin(bearing))
        return (start.scaled(cos(distance)) + direction.scaled(sin(distance))).normalized()
    }

    // MARK: Text form

    func testTextRoundTrips() throws {
        let shapes: [GeoShape] = [
            box((-122.7, 47.3), (-122.1, 48.1)),
            .box(GeoPoint(longitude: 0.2, latitude: 0.2, altitude: 0.2), GeoPoint(longitude: 0.7, latitude: 0.7, altitude: 0.7)),
            polygon([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)], [(0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.25, 0.75), (0.25, 0.25)]),
            .polygon([[GeoPoint(longitude: 1e-05, latitude: -0.0, altitude: 123.25), point(-180, 90), point(1.7976931348623157e+308, 5e-324)]]),
            circle((-121.9, 47.3), 0.004363323),
            circle((0.1 + 0.2, -90), .infinity),
        ]
        for shape in shapes {
            let text = shape.description
            XCTAssertEqual(try GeoShape(parsing: text), shape, text)
        }
        XCTAssertEqual(box((-122.7, 47.3), (-122.1, 48.1)).description, "geoBox([-122.7, 47.3], [-122.1, 48.1])")
        XCTAssertEqual(polygon([(0, 0), (1, 0), (1, 1), (0, 0)], [(0.5, 0.25), (0.75, 0.5), (0.5, 0.5), (0.5, 0.25)]).description,
                       "geoPolygon({[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]}, {[0.5, 0.25], [0.75, 0.5], [0.5, 0.5], [0.5, 0.25]})")
        XCTAssertEqual(circle((12.5, -3), 0.25).description, "geoCircle([12.5, -3.0], 0.25)")
        XCTAssertEqual(box((1, 2), (3, 4)).polygonForm.description,
                       "geoPolygon({[1.0, 2.0], [1.0, 4.0], [3.0, 4.0], [3.0, 2.0], [1.0, 2.0]})")
    }

    func testTextSpellings() throws {
        // The forms the overlay writes (longitude first, decimals, exponents).
        XCTAssertEqual(try GeoShape(parsing: "geoBox([-122.7, 47.3], [-122.1, 48.1])"), box((-122.7, 47.3), (-122.1, 48.1)))
        XCTAssertEqual(try GeoShape(parsing: "geoCircle([-121.9, 47.3], 0.004363323)"), circle((-121.9, 47.3), 0.004363323))
        XCTAssertEqual(try GeoShape(parsing: "geoCircle([-122.6, 47.8, 10.5], 6.9613e-03)"),
                       .circle(GeoPoint(longitude: -122.6, latitude: 47.8, altitude: 10.5), radians: 0.0069613))
        // Keywords in any case, spaces anywhere, integers, signs.
        XCTAssertEqual(try GeoShape(parsing: "  GEOBOX ( [ 1 , -2 ] ,[+3,4] )  "), box((1, -2), (3, 4)))
        XCTAssertEqual(try GeoShape(parsing: "GeoPolygon({[0,0],[1,0],[1,1],[0,0]})"), polygon([(0, 0), (1, 0), (1, 1), (0, 0)]))
        XCTAssertEqual(try GeoShape(parsing: "geocircle([.5, 5.], 1E2)"), circle((0.5, 5), 100))
        XCTAssertEqual(try GeoShape(parsing: "geoCircle([0, 0], INF)"), circle((0, 0), .infinity))
        // A NaN altitude is no altitude (realm-core's reading of NaN).
        XCTAssertEqual(try GeoShape(parsing: "geoCircle([1, 2, nan], 1)"), circle((1, 2), 1))
    }

    /// The CRUD - Read guide's shapes, in the text the overlay writes for them
    /// (GeoOverlayTests checks that text), over the guide's two companies.
    func testGuideShapesOverTheGuideCompanies() throws {
        let companies = [("company1", -122.35, 47.68), ("company2", -121.85, 47.9)]
        let polygon = "geoPolygon({[-122.8, 48.0], [-121.8, 48.2], [-121.6, 47.6], [-122.0, 47.0], [-122.6, 47.2], [-122.8, 48.0]}"
        let hole = "{[-122.6, 47.8], [-122.2, 47.7], [-122.6, 47.4], [-122.5, 47.6], [-122.6, 47.8]}"
        let hole2 = "{[-122.05, 47.55], [-121.9, 47.55], [-122.1, 47.3], [-122.05, 47.55]}"
        let table: [(String, [String])] = [
            ("geoCircle([-121.9, 47.3], 0.004363323)", []),
            ("geoCircle([-122.6, 47.8], \(44.4 / 6378.1))", ["company1"]),
            ("geoBox([-122.7, 47.3], [-122.1, 48.1])", ["company1"]),
            // company2 sits at the top edge's latitude, under the great-circle arc.
            ("geoBox([-122.4, 47.5], [-121.8, 47.9])", ["company1", "company2"]),
            (polygon + ")", ["company1", "company2"]),
            (polygon + ", " + hole + ")", ["company2"]),
            (polygon + ", " + hole + ", " + hole2 + ")", ["company2"]),
        ]
        for (text, expected) in table {
            XCTAssertEqual(inside(try GeoShape(parsing: text), companies), expected, text)
        }
    }

    func testTextErrors() {
        let table: [(String, String)] = [
            ("string value", "Invalid geospatial shape 'string value': expected geoBox, geoPolygon or geoCircle at offset 0"),
            ("GeoPoint([0, 0])", "Invalid geospatial shape 'GeoPoint([0, 0])': expected geoBox, geoPolygon or geoCircle at offset 0"),
            ("geoSphere([0, 0], 1)", "Invalid geospatial shape 'geoSphere([0, 0], 1)': expected geoBox, geoPolygon or geoCircle at offset 0"),
            ("geoBox([0, 0])", "Invalid geospatial shape 'geoBox([0, 0])': expected ',' at offset 13"),
            ("geoBox([0, 0], [1])", "Invalid geospatial shape 'geoBox([0, 0], [1])': expected ',' at offset 17"),
            ("geoCircle([0, 0], $0)", "Invalid geospatial shape 'geoCircle([0, 0], $0)': expected a number at offset 18"),
            ("geoCircle([0, 0], 0x10)", "Invalid geospatial shape 'geoCircle([0, 0], 0x10)': expected a number at offset 18"),
            ("geoCircle([0, 0], 1e)", "Invalid geospatial shape 'geoCircle([0, 0], 1e)': expected a number at offset 18"),
            ("geoPolygon([0, 0])", "Invalid geospatial shape 'geoPolygon([0, 0])': expected '{' at offset 11"),
            ("geoPolygon({})", "Invalid geospatial shape 'geoPolygon({})': expected '[' at offset 12"),
            ("geoCircle([0, 0], 1) AND x", "Invalid geospatial shape 'geoCircle([0, 0], 1) AND x': unexpected text after the shape at offset 21"),
            ("geoCircle([0, 0, 0, 0], 1)", "Invalid geospatial shape 'geoCircle([0, 0, 0, 0], 1)': expected ']' at offset 18"),
            ("", "Invalid geospatial shape '': expected geoBox, geoPolygon or geoCircle at offset 0"),
        ]
        for (text, message) in table {
            XCTAssertThrowsError(try GeoShape(parsing: text), text) { error in
                let error = error as? FiefError
                XCTAssertEqual(error?.code, .querySyntax, text)
                XCTAssertEqual(error?.message, message, text)
            }
        }
    }

    // MARK: GeoJSON points

    func testReadingGeoJSONPoints() {
        XCTAssertEqual(GeoPoint(geoJSONType: "Point", coordinates: [12.5, 55.6]), point(12.5, 55.6))
        // realm-core compares the type case-insensitively.
        for spelling in ["point", "POINT", "pOiNt"] {
            XCTAssertEqual(GeoPoint(geoJSONType: spelling, coordinates: [1.0, 2.0]), point(1, 2), spelling)
        }
        XCTAssertEqual(GeoPoint(geoJSONType: "Point", coordinates: [1.0, 2.0, 3.0]), GeoPoint(longitude: 1, latitude: 2, altitude: 3))
        XCTAssertEqual(GeoPoint(geoJSONType: "Point", coordinates: [1.0, 2.0, .nan])?.altitude, nil)
        // Extra coordinates are ignored, as realm-core reads only three.
        XCTAssertEqual(GeoPoint(geoJSONType: "Point", coordinates: [2.0, 2.0, 2.0, 2.0]), GeoPoint(longitude: 2, latitude: 2, altitude: 2))
        // Not points: another type, too few coordinates, out of range.
        for type in ["Polygon", "Points", "Poin", "", "Pöint", "Point "] {
            XCTAssertNil(GeoPoint(geoJSONType: type, coordinates: [1.0, 2.0]), type)
        }
        XCTAssertNil(GeoPoint(geoJSONType: "Point", coordinates: [Double]()))
        XCTAssertNil(GeoPoint(geoJSONType: "Point", coordinates: [1.0]))
        XCTAssertNil(GeoPoint(geoJSONType: "Point", coordinates: [181.0, 0.0]))
        XCTAssertNil(GeoPoint(geoJSONType: "Point", coordinates: [0.0, 90.5]))
        XCTAssertNil(GeoPoint(geoJSONType: "Point", coordinates: [Double.nan, 0.0]))
        // Any collection of doubles, e.g. a slice of a decoded list.
        let stored: [Double] = [9, 9, -74.006, 40.7128]
        XCTAssertEqual(GeoPoint(geoJSONType: "xPoint".dropFirst(), coordinates: stored[2...]), point(-74.006, 40.7128))
        XCTAssertTrue(GeoPoint.isGeoJSONPointType(utf8: Array("Point".utf8)))
        XCTAssertFalse(GeoPoint.isGeoJSONPointType(utf8: Array("Spoint".utf8)))
    }

    func testGeoJSONShapedClasses() {
        func property(_ name: String, _ type: PropertyType, _ collection: CollectionKind = .none) -> Property {
            Property(name: name, type: type, flags: [], key: 0, linkTarget: nil, collection: collection)
        }
        let location = ObjectClass(name: "Location", properties: [property("coordinates", .double, .list), property("type", .string)],
                                   isEmbedded: true, key: 0)
        XCTAssertEqual(location.geoJSONPointProperties?.type.name, "type")
        XCTAssertEqual(location.geoJSONPointProperties?.coordinates.name, "coordinates")
        let onlyCoordinates = ObjectClass(name: "C", properties: [property("coordinates", .double, .list)], isEmbedded: true, key: 0)
        XCTAssertNil(onlyCoordinates.geoJSONPointProperties)
        let wrongList = ObjectClass(name: "W", properties: [property("coordinates", .float, .list), property("type", .string)],
                                    isEmbedded: true, key: 0)
        XCTAssertNil(wrongList.geoJSONPointProperties)
        let notAList = ObjectClass(name: "N", properties: [property("coordinates", .double), property("type", .string)],
                                   isEmbedded: true, key: 0)
        XCTAssertNil(notAList.geoJSONPointProperties)
    }

    // MARK: Distances

    func testDistances() {
        XCTAssertEqual(GeoDistance.radians(kilometers: 6378.1), 1, accuracy: 1e-15)
        XCTAssertEqual(GeoDistance.radians(kilometers: 40075), 2 * Double.pi, accuracy: 2 * Double.pi * 1e-4)
        XCTAssertEqual(GeoDistance.radians(miles: 24901), 2 * Double.pi, accuracy: 2 * Double.pi * 1e-4)
        XCTAssertEqual(GeoDistance.radians(degrees: 180), Double.pi)
        XCTAssertEqual(GeoDistance.kilometers(radians: 1), 6378.1, accuracy: 1e-9)
        XCTAssertEqual(GeoDistance.miles(radians: GeoDistance.radians(miles: 12.5)), 12.5, accuracy: 1e-12)
        XCTAssertEqual(GeoDistance.degrees(radians: Double.pi / 2), 90, accuracy: 1e-12)
        // realm-core's GeoCircle::from_kms(150, ...) is 150_000 / 6378100 radians.
        XCTAssertEqual(GeoDistance.radians(kilometers: 150), 150_000 / 6_378_100.0)
    }
}

/// Shorthands over the shared seeded generator (EngineTestSupport.swift).
private extension SeededRandom {
    mutating func double(in range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }

    mutating func double(in range: Range<Double>) -> Double { Double.random(in: range, using: &self) }

    /// A uniformly distributed point of the sphere.
    mutating func unitVector() -> SphereVector {
        while true {
            let v = SphereVector(x: double(in: -1...1), y: double(in: -1...1), z: double(in: -1...1))
            let length = v.lengthSquared
            if length > 1e-6 && length <= 1 { return v.normalized() }
        }
    }
}

private extension SphereVector {
    /// The longitude and latitude of this unit vector, in degrees.
    var geoPoint: GeoPoint {
        GeoPoint(longitude: atan2(y, x) * 180 / Double.pi, latitude: asin(max(-1, min(1, z))) * 180 / Double.pi)
    }
}
