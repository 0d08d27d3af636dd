import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// GEOWITHIN in queries, end to end over real files: realm-core's
/// Parser_Geospatial and test_query_geo.cpp cases as tables (literal shapes,
/// coordinate arguments, shape arguments and shapes as strings, ANY / ALL /
/// NONE over lists of points), objects that are no points, the errors, live
/// results, queries inside a write transaction, and a seeded cross-check
/// of the columnar scan against the geometry alone.
final class GeoQueryTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Restaurant", properties: [
            prop("n", .int),
            prop("name", .string),
            Property(name: "self_link", type: .link, flags: .nullable, linkTarget: "Restaurant"),
            Property(name: "partners", type: .link, linkTarget: "Restaurant", collection: .list),
            Property(name: "location", type: .link, flags: .nullable, linkTarget: "Position"),
            Property(name: "locations", type: .link, linkTarget: "Position", collection: .list),
            Property(name: "place", type: .link, flags: .nullable, linkTarget: "Place"),
            Property(name: "address", type: .link, flags: .nullable, linkTarget: "Address"),
        ]),
        ObjectClass(name: "Position", properties: [
            prop("type", .string),
            Property(name: "coordinates", type: .double, collection: .list),
        ], isEmbedded: true),
        // GeoJSON-shaped, but not embedded.
        ObjectClass(name: "Place", properties: [
            prop("type", .string),
            Property(name: "coordinates", type: .double, collection: .list),
        ]),
        // Embedded, but not GeoJSON-shaped.
        ObjectClass(name: "Address", properties: [prop("city", .string)], isEmbedded: true),
    ])

    private var db: DB!

    override func setUpWithError() throws {
        db = try DB.open(tempDir().file(), schema)
    }

    /// A restaurant called `name`, with a location at `point` ([lon, lat] or
    /// [lon, lat, alt], or any list of coordinates) of GeoJSON type `type`
    /// (no location for nil).
    @discardableResult
    private func restaurant(_ name: String, _ point: [Double]?, type: String = "Point") throws -> Int64 {
        let key = try db.create("Restaurant", [("name", .string(name)), ("n", .int(Int64(try db.count("Restaurant"))))])
        if let point {
            let (_, location) = try db.realm.createEmbedded(table: db.cls("Restaurant"), key: key, property: db.pkey("Restaurant", "location"))
            try db.set("Position", location, "type", .string(type))
            try db.append("Position", location, "coordinates", point.map { .double($0) })
        }
        return key
    }

    /// Adds points to a restaurant's list of locations.
    private func addLocations(_ key: Int64, _ points: [[Double]]) throws {
        for point in points {
            let (_, location) = try db.realm.list(CollectionRef(.list, table: db.cls("Restaurant"), owner: key, property: db.pkey("Restaurant", "locations"))).insertEmbedded(at: try db.realm.list(CollectionRef(.list, table: db.cls("Restaurant"), owner: key, property: db.pkey("Restaurant", "locations"))).count())
            try db.set("Position", location, "type", .string("Point"))
            try db.append("Position", location, "coordinates", point.map { .double($0) })
        }
    }

    private func names(_ predicate: String, _ arguments: [QueryArgument] = [], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            let results = try db.results("Restaurant").filtered(predicate, arguments: arguments)
            return try results.allKeys().map { key -> String in
                guard case .string(let name) = try db.get("Restaurant", key, "name") else { return "?" }
                return name
            }.sorted()
        } catch {
            XCTFail("\(predicate): \(error)", file: file, line: line)
            return []
        }
    }

    private func count(_ predicate: String, _ arguments: [QueryArgument] = [], file: StaticString = #filePath, line: UInt = #line) -> Int {
        do {
            return try db.results("Restaurant").filtered(predicate, arguments: arguments).count()
        } catch {
            XCTFail("\(predicate): \(error)", file: file, line: line)
            return -1
        }
    }

    private func error(_ predicate: String, _ arguments: [QueryArgument] = []) -> FiefError? {
        do {
            _ = try db.results("Restaurant").filtered(predicate, arguments: arguments)
            return nil
        } catch {
            return error as? FiefError
        }
    }

    private static func value(_ argument: Value) -> QueryArgument { QueryArgument(values: [argument], isList: false) }
    private static func number(_ d: Double) -> QueryArgument { value(.double(d)) }
    private static func shape(_ shape: GeoShape) -> QueryArgument { QueryArgument(geoShape: shape) }
    private static func point(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }

    /// Runs `body` with a string argument (its bytes live during the call).
    private static func withString<R>(_ text: String, _ body: (QueryArgument) throws -> R) rethrows -> R {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBytes { raw in try body(value(.string(UnsafeRawBufferPointer(raw)))) }
    }

    // MARK: realm-core: Parser_Geospatial

    /// realm-core's restaurants: each lists the ones made before it as
    /// partners, plus one without a location.
    private func makeParserRestaurants() throws {
        let data: [(String, [Double])] = [
            ("one", [0, 0]), ("two", [0.5, 0.5]), ("three", [1, 1]), ("four", [2, 2]),
            ("Red Fish Blue Fish", [-123.37039, 48.42437]), ("Foo", [-123.36253, 48.42566]),
            ("Superbaba", [-123.3615, 48.4267]), ("Sen Zushi", [-123.3579, 48.42398]),
        ]
        try db.write {
            var made: [Int64] = []
            for (name, point) in data {
                let key = try restaurant(name, point)
                try db.set("Restaurant", key, "self_link", .link(db.cls("Restaurant"), key))
                try TV.withValues(made.map { .link(db.cls("Restaurant"), $0) }) { values in
                    try db.realm.list(CollectionRef(.list, table: db.cls("Restaurant"), owner: key, property: db.pkey("Restaurant", "partners"))).append(UnsafeBufferPointer(values))
                }
                made.append(key)
            }
            try restaurant("empty", nil)
        }
    }

    func testRealmCoreParserGeospatial() throws {
        try makeParserRestaurants()
        let area = "geoCircle([-123.36197, 48.42626], 0.000021950110534)"
        let table: [(String, Int)] = [
            ("location geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", 1),
            ("location geoWithin geoBox([0.2, 0.2, 0.2], [0.7, 0.7, 0.7])", 1),
            ("location geoWithin geoCircle([0.3, 0.3], 1)", 4),
            ("location geoWithin geoCircle([0.3, 0.3, 0.3], 1)", 4),
            ("location geoWithin geoPolygon({[0.0, 0.0], [1.0, 0.0], [1, 1], [0, 1], [0.0, 0.0]})", 1),
            ("location geoWithin geoPolygon({[0.0, 0.0], [1.0, 0.0], [1, 1], [0, 1], [0.0, 0.0]}, {[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75], [0.25, 0.25]})", 0),
            ("location == NULL", 1),
            ("ANY partners.location GEOWITHIN \(area)", 2),
            ("ALL partners.location GEOWITHIN \(area)", 0),
            ("NONE partners.location GEOWITHIN \(area)", 7),
            // Without a quantifier a path through a list means ANY.
            ("partners.location GEOWITHIN \(area)", 2),
            // Negations and combinations (a restaurant without a location is outside).
            ("NOT location GEOWITHIN geoCircle([0.3, 0.3], 1)", 5),
            ("location GEOWITHIN geoCircle([0.3, 0.3], 1) AND name BEGINSWITH 't'", 2),
            ("location GEOWITHIN geoBox([0.2, 0.2], [0.7, 0.7]) OR location GEOWITHIN \(area)", 3),
            ("self_link.location GEOWITHIN geoBox([0.2, 0.2], [0.7, 0.7])", 1),
        ]
        for (predicate, expected) in table {
            XCTAssertEqual(count(predicate), expected, predicate)
        }
        XCTAssertEqual(names("ANY partners.location GEOWITHIN \(area)"), ["Sen Zushi", "Superbaba"])

        // Shapes as arguments: native, and realm-core's text of them as strings.
        let box = GeoShape.box(Self.point(0.2, 0.2), Self.point(0.7, 0.7))
        let circle = GeoShape.circle(Self.point(0.3, 0.3), radians: 1)
        let polygon = GeoShape.polygon([[Self.point(0, 0), Self.point(1, 0), Self.point(1, 1), Self.point(0, 1), Self.point(0, 0)]])
        for (shape, expected) in [(box, 1), (circle, 4), (polygon, 1)] {
            XCTAssertEqual(count("location GEOWITHIN $0", [Self.shape(shape)]), expected, "\(shape)")
            XCTAssertEqual(count("location GEOWITHIN %@", [Self.shape(shape)]), expected, "\(shape)")
            // RealmSwift's `IN %@` with a shape.
            XCTAssertEqual(count("location IN $0", [Self.shape(shape)]), expected, "\(shape)")
            for text in [shape.description, shape.polygonForm.description,
                         "GeoPolygon({[0.2, 0.2], [0.2, 0.7], [0.7, 0.7], [0.7, 0.2], [0.2, 0.2]})"] where shape == box || text == shape.description {
                XCTAssertEqual(try Self.withString(text) { count("location GEOWITHIN $0", [$0]) }, expected, text)
            }
        }
        XCTAssertEqual(try Self.withString("GeoCircle([0.3, 0.3], 1)") { count("location GEOWITHIN $0", [$0]) }, 4)
        XCTAssertEqual(count("ANY partners.location GEOWITHIN $0", [Self.shape(.circle(Self.point(-123.36197, 48.42626), radians: 0.000021950110534))]), 2)

        // Coordinates as arguments (int, float and double).
        XCTAssertEqual(count("location GEOWITHIN geoCircle([$0, $1], $2)", [Self.number(0.3), Self.number(0.3), Self.number(1)]), 4)
        XCTAssertEqual(count("location GEOWITHIN geoCircle([$0, $1], $2)", [Self.value(.float(0.3)), Self.value(.float(0.3)), Self.value(.int(1))]), 4)
        XCTAssertEqual(count("location GEOWITHIN geoPolygon({[$0, $1], [$2, $3], [$4, $5], [$6, $7], [$8, $9]})",
                             [0, 0, 1, 0, 1, 1, 0, 1, 0, 0].map { Self.number($0) }), 1)
        XCTAssertEqual(count("location GEOWITHIN geoBox([$0, $1], [$2, $3])", [0.2, 0.2, 0.7, 0.7].map { Self.number($0) }), 1)
    }

    /// realm-core's errors for the same restaurants, with its messages
    /// (ours add what to do); argument problems are `.queryArgument`.
    func testRealmCoreParserGeospatialErrors() throws {
        try makeParserRestaurants()
        let invalid: [(String, [QueryArgument], FiefError.Code, String)] = [
            ("n geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid,
             "The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is 'int'"),
            ("name geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid,
             "The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is 'string'"),
            ("self_link geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid,
             "Query 'self_link GEOWITHIN ...' links to data in the wrong format for a geoWithin query"),
            ("address geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid,
             "Query 'address GEOWITHIN ...' links to data in the wrong format for a geoWithin query"),
            ("place geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid,
             "A GEOWITHIN query can only operate on a link to an embedded class but 'Place' is at the top level"),
            ("ANY location geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid,
             "ANY applies to a key path through a list, set, map or backlinks"),
            ("nope geoWithin geoBox([0.2, 0.2], [0.7, 0.7])", [], .queryInvalid, "class 'Restaurant' has no property 'nope'"),
            ("location GEOWITHIN $0", [Self.value(.null)], .queryArgument,
             "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is 'null'"),
            ("location GEOWITHIN $0", [Self.number(1.2)], .queryArgument,
             "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is 'double'"),
            ("location GEOWITHIN $0", [Self.value(.int(1000))], .queryArgument,
             "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is 'int'"),
            ("location GEOWITHIN $0", [QueryArgument(values: [.int(1)], isList: true)], .queryArgument,
             "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is 'list'"),
            ("location GEOWITHIN $1", [Self.number(1)], .queryArgument, "the predicate uses argument 1, but 1 argument was given"),
            ("location GEOWITHIN geoCircle([$1, $2], $3)", [Self.number(0), Self.shape(.circle(Self.point(0, 0), radians: 1)), Self.number(0), Self.number(1)],
             .queryArgument, "Invalid parameter 'geospatial' used in coordinate at argument '$1'"),
            ("location GEOWITHIN geoCircle([$0, $0], $0)", [Self.value(.null)], .queryArgument, "NULL cannot be used in coordinate at argument '$0'"),
            ("location GEOWITHIN geoCircle([$0, $0], $0)", [Self.value(.bool(true))], .queryArgument, "Invalid parameter 'bool' used in coordinate at argument '$0'"),
            // A shape where a value belongs.
            ("name == $0", [Self.shape(.circle(Self.point(0, 0), radians: 1))], .queryArgument, "argument 0 is a geospatial shape"),
            ("ANY partners.name == $0", [Self.shape(.circle(Self.point(0, 0), radians: 1))], .queryArgument, "argument 0 is a geospatial shape"),
            // Invalid literal shapes: realm-core's reasons, wrapped as its binder wraps them.
            ("location GEOWITHIN geoCircle([0, 0], -1)", [], .queryInvalid,
             "Invalid region in GEOWITHIN query for parameter 'geoCircle([0.0, 0.0], -1.0)': 'The radius of a circle must be a non-negative number'"),
            ("location GEOWITHIN geoBox([0, 0], [181, 1])", [], .queryInvalid, "Longitude/latitude is out of bounds, lng: 181.0 lat: 1.0"),
            ("location GEOWITHIN geoCircle([0, 91], 1)", [], .queryInvalid, "Longitude/latitude is out of bounds, lng: 0.0 lat: 91.0"),
            ("location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 1]})", [], .queryInvalid, "Ring is not closed"),
            ("location GEOWITHIN geoPolygon({[0, 0], [0, 1], [2, 1], [2, 2], [0, 0]})", [], .queryInvalid, "Ring 0 is not valid: 'Edges 1 and 3 cross."),
            ("location GEOWITHIN geoPolygon({[0, 0], [1, 1], [0, 0]})", [], .queryInvalid, "Ring 0 must have at least 3 different vertices"),
            // Invalid shape arguments.
            ("location GEOWITHIN $0", [Self.shape(.circle(Self.point(0, 0), radians: -2))], .queryArgument,
             "(argument 0): 'The radius of a circle must be a non-negative number'"),
            ("location GEOWITHIN $0", [Self.shape(.box(Self.point(0, 0), Self.point(10, 95)))], .queryArgument,
             "(argument 0): 'Longitude/latitude is out of bounds, lng: 0.0 lat: 95.0'"),
            ("location GEOWITHIN $0", [Self.shape(.polygon([]))], .queryArgument, "(argument 0): 'Polygon has no rings.'"),
            ("location IN $0", [Self.shape(.polygon([[Self.point(0, 0), Self.point(1, 1), Self.point(0, 0)]]))], .queryArgument,
             "(argument 0): 'Ring 0 must have at least 3 different vertices"),
        ]
        for (predicate, arguments, code, message) in invalid {
            let failure = error(predicate, arguments)
            XCTAssertEqual(failure?.code, code, "\(predicate): \(failure?.message ?? "no error")")
            XCTAssertTrue(failure?.message.hasPrefix(message) == true || failure?.message.contains(message) == true,
                          "\(predicate): \(failure?.message ?? "no error")")
        }
        // Strings that are no shape.
        for (text, what) in [("string value", "expected geoBox, geoPolygon or geoCircle"), ("GeoPoint([0, 0])", "expected geoBox, geoPolygon or geoCircle"),
                             ("geoBox([0, 0], [1, 1]) extra", "unexpected text after the shape")] {
            let failure = Self.withString(text) { error("location GEOWITHIN $0", [$0]) }
            XCTAssertEqual(failure?.code, .queryArgument, text)
            XCTAssertTrue(failure?.message.hasPrefix("Invalid syntax in serialized geospatial object at argument 0: 'Invalid geospatial shape '\(text)': \(what)") == true,
                          failure?.message ?? "no error")
        }
        // Syntax: only a shape or an argument follows GEOWITHIN.
        for predicate in ["location geoWithin NULL", "location geoWithin 1.2", "location geoWithin 'test string'", "location geoWithin _id",
                          "location geoWithin location"] {
            XCTAssertEqual(error(predicate)?.code, .querySyntax, predicate)
        }
    }

    // MARK: realm-core: Query_GeoWithinBasics (test_query_geo.cpp)

    /// Points, a null link, objects that are no points (no type, no
    /// coordinates, the wrong type), and one with four coordinates.
    func testRealmCoreGeoWithinBasics() throws {
        try db.write {
            for (i, point) in [[-2.0, -1], [-1, -2], [0, 0], [0.5, 0.5], [1, 1], [2, 2, 2]].enumerated() { try restaurant("p\(i)", point) }
            try restaurant("null link", nil)
            try restaurant("no type no coordinates", [], type: "")
            try restaurant("point without coordinates", [])
            try restaurant("one coordinate", [1])
            try restaurant("excess coordinates", [2, 2, 2, 2])
            try restaurant("a polygon", [0.5, 0.5], type: "Polygon")
            try restaurant("lower-case point", [0.5, 0.5], type: "point")
            try restaurant("out of range", [0.5, 95])
            try restaurant("nan", [Double.nan, 0.5])
        }
        func box(_ a: (Double, Double), _ b: (Double, Double)) -> String { "geoBox([\(a.0), \(a.1)], [\(b.0), \(b.1)])" }
        let table: [(String, Int)] = [
            (box((0.2, 0.2), (0.7, 0.7)), 2),   // 0.5,0.5 and the lower-case "point"
            (box((-2, -1.5), (0.7, 0.5)), 3),
            (box((0, 0), (0.5, 0.5)), 0),
            (box((0, 0), (0.5, 1)), 2),
            (box((0, -0.5), (0.5, 1)), 0),
            (box((-2, -1), (1, 0.5)), 3),
            (box((-2, -2), (1, 1)), 5),
            (box((-2, -2), (0.5, 1)), 5),
            (box((1.5, 1.5), (2.5, 2.5)), 2),   // 2,2,2 and the four coordinates
            ("geoPolygon({[-0.5, -0.5], [1.0, 2.5], [2.5, -0.5], [-0.5, -0.5]})", 4),
            ("geoPolygon({[-3.0, -1.0], [-2.0, -2.0], [-1.0, -1.0], [1.5, -1.0], [-1.0, 1.5], [-3.0, -1.0]})", 2),
            ("geoCircle([1.0, 0.5], \(150.0 / 6378.1))", 4),
            ("geoCircle([-1.5, -1.5], \(90.0 / 6378.1))", 2),
        ]
        for (shape, expected) in table {
            XCTAssertEqual(count("location GEOWITHIN \(shape)"), expected, shape)
        }
        // The complement holds every other object, the null link and non-points included.
        XCTAssertEqual(count("NOT location GEOWITHIN \(box((-2, -2), (1, 1)))"), 15 - 5)
        XCTAssertEqual(names("location GEOWITHIN geoCircle([0.5, 0.5], 0.0001)"), ["lower-case point", "p3"])
    }

    /// realm-core's Geospatial_ListOfPrimitives: ANY, ALL, NONE over a list
    /// of embedded points; ALL does not hold for an empty list.
    func testRealmCoreListOfLocations() throws {
        try db.write {
            let keys = try (0..<4).map { try restaurant("r\($0)", [0, 0]) }
            try addLocations(keys[0], [[1, 1], [2, 2]])
            try addLocations(keys[1], [[2, 2], [3, 3]])
            try addLocations(keys[2], [[1, 1], [1, 1], [1, 1]])
        }
        let r = 0.00872665
        let table: [(Double, [String], [String], [String])] = [   // center, ANY, ALL, NONE
            (1, ["r0", "r2"], ["r2"], ["r1", "r3"]),
            (2, ["r0", "r1"], [], ["r2", "r3"]),
            (3, ["r1"], [], ["r0", "r2", "r3"]),
            (4, [], [], ["r0", "r1", "r2", "r3"]),
        ]
        for (center, any, all, none) in table {
            let circle = "geoCircle([\(center), \(center)], \(r))"
            XCTAssertEqual(names("locations GEOWITHIN \(circle)"), any, "\(center)")
            XCTAssertEqual(names("ANY locations GEOWITHIN \(circle)"), any, "\(center)")
            XCTAssertEqual(names("ALL locations GEOWITHIN \(circle)"), all, "\(center)")
            XCTAssertEqual(names("NONE locations GEOWITHIN \(circle)"), none, "\(center)")
            XCTAssertEqual(names("NOT ANY locations GEOWITHIN \(circle)"), none, "\(center)")
        }
        // Backlinks: restaurants listed as partners by none.
        XCTAssertEqual(count("@links.Restaurant.partners.location GEOWITHIN geoCircle([0, 0], 0.001)"), 0)
    }

    /// realm-core's meridian, equator, circle and three-shapes cases.
    func testRealmCoreShapeCases() throws {
        try db.write {
            for (i, point) in [[-179.0, 1.0], [180.0, 1.0], [179.0, 1.0], [0.0, 0.0], [-118.2400013, 34.073893], [-118.2400012, 34.073894], [0, 0.001]].enumerated() {
                try restaurant("p\(i)", point)
            }
        }
        let table: [(String, [String])] = [
            ("geoPolygon({[-178.0, 10.0], [178.0, 10.0], [178.0, -10.0], [-178.0, -10.0], [-178.0, 10.0]})", ["p0", "p1", "p2"]),
            ("geoPolygon({[30.0, 1.0], [-30.0, 1.0], [-30.0, -1.0], [30.0, -1.0], [30.0, 1.0]})", ["p3", "p6"]),
            ("geoCircle([-118.240013, 34.073893], 0.44915760491198753)", ["p4", "p5"]),
            ("geoCircle([0, 0], 1)", ["p3", "p6"]),
            ("geoBox([-5, -5], [5, 5])", ["p3", "p6"]),
            ("geoPolygon({[-5, -5], [5, -5], [5, 5], [-5, 5], [-5, -5]})", ["p3", "p6"]),
            // A box across the antimeridian, corners in either order.
            ("geoBox([170, -5], [-170, 5])", ["p0", "p1", "p2"]),
            ("geoBox([-170, -5], [170, 5])", ["p0", "p1", "p2"]),
        ]
        for (shape, expected) in table {
            XCTAssertEqual(names("location GEOWITHIN \(shape)"), expected, shape)
        }
        XCTAssertEqual(count("location GEOWITHIN geoCircle([-118.240013, 34.073893], 0.44915760491198753) AND n == 4"), 1)
    }

    // MARK: Liveness, writes

    /// Results are live: moving a point, changing its type, deleting it.
    func testResultsFollowWrites() throws {
        let (key, other) = try db.write { (try restaurant("a", [0.5, 0.5]), try restaurant("b", [5, 5])) }
        let results = try db.results("Restaurant").filtered("location GEOWITHIN geoBox([0, 0], [1, 1])", arguments: [])
        XCTAssertEqual(try results.count(), 1)
        guard case .link(_, let location) = try db.get("Restaurant", other, "location") else { return XCTFail("no location") }
        try db.write { try db.realm.list(CollectionRef(.list, table: db.cls("Position"), owner: location, property: db.pkey("Position", "coordinates"))).set(.double(0.25), at: 0) }
        try db.write {
            try TV.withValues([.double(0.25)]) { v in
                try db.realm.list(CollectionRef(.list, table: db.cls("Position"), owner: location, property: db.pkey("Position", "coordinates"))).set(v[0], at: 1)
            }
        }
        XCTAssertEqual(try results.count(), 2)
        try db.write { try db.set("Position", location, "type", .string("LineString")) }
        XCTAssertEqual(try results.count(), 1)
        try db.write { try db.set("Restaurant", key, "location", .null) }
        XCTAssertEqual(try results.count(), 0)
        try db.write { try restaurant("c", [0.1, 0.9]) }
        XCTAssertEqual(try results.count(), 1)
    }

    /// Inside a write transaction the query reads the transaction's own
    /// changes (lists through its view of them).
    func testQueriesInsideAWriteTransaction() throws {
        try db.write { try restaurant("a", [0.5, 0.5]) }
        try db.realm.beginWrite()
        defer { db.realm.cancelWrite() }
        try restaurant("b", [0.6, 0.6])
        try restaurant("c", [3, 3])
        XCTAssertEqual(names("location GEOWITHIN geoBox([0, 0], [1, 1])"), ["a", "b"])
        XCTAssertEqual(names("NOT location GEOWITHIN geoBox([0, 0], [1, 1])"), ["c"])
    }

    // MARK: Seeded cross-check

    /// Many points over several clusters, some objects no points, random
    /// boxes, circles and polygons: the scan agrees with the geometry
    /// applied point by point, in a snapshot and in a write transaction.
    func testScanAgreesWithTheGeometry() throws {
        var rng = SeededRandom(seed: 7)
        var points: [Int64: [Double]] = [:]
        try db.write {
            for i in 0..<1500 {
                let lon = Double.random(in: -20...20, using: &rng), lat = Double.random(in: 30...60, using: &rng)
                switch i % 50 {
                case 7: try restaurant("n\(i)", nil)
                case 13: try restaurant("n\(i)", [lon, lat], type: "Polygon")
                default: points[try restaurant("n\(i)", [lon, lat])] = [lon, lat]
                }
            }
        }
        var shapes: [GeoShape] = []
        for _ in 0..<12 {
            let lon = Double.random(in: -25...20, using: &rng), lat = Double.random(in: 25...60, using: &rng)
            let width = Double.random(in: 0.5...30, using: &rng), height = Double.random(in: 0.5...20, using: &rng)
            shapes.append(.box(Self.point(lon, lat), Self.point(lon + width, min(89, lat + height))))
            shapes.append(.circle(Self.point(lon, lat), radians: Double.random(in: 0.001...0.4, using: &rng)))
            shapes.append(.polygon([[Self.point(lon, lat), Self.point(lon + width, lat), Self.point(lon + width / 2, min(89, lat + height)), Self.point(lon, lat)]]))
        }
        for shape in shapes {
            let region = try shape.validated()
            let expected = points.filter { region.contains(Self.point($0.value[0], $0.value[1])) }.keys.sorted()
            XCTAssertEqual(try db.results("Restaurant").filtered("location GEOWITHIN $0", arguments: [Self.shape(shape)]).allKeys(), expected, "\(shape)")
            try db.realm.beginWrite()
            XCTAssertEqual(try db.results("Restaurant").filtered("location GEOWITHIN $0", arguments: [Self.shape(shape)]).allKeys(), expected, "\(shape) in a write")
            db.realm.cancelWrite()
        }
    }

    /// The longitude/latitude bound never rejects a point the region holds.
    func testBoundRejectsOnlyPointsOutside() throws {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<200 {
            let lon = Double.random(in: -180...180, using: &rng), lat = Double.random(in: -89...89, using: &rng)
            let shape: GeoShape
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: shape = .circle(Self.point(lon, lat), radians: Double.random(in: 0...3.5, using: &rng))
            case 1: shape = .box(Self.point(lon, max(-89, lat - 10)), Self.point(min(180, lon + Double.random(in: 0.1...60, using: &rng)), min(89, lat + 10)))
            default:
                let d = Double.random(in: 0.1...40, using: &rng)
                shape = .polygon([[Self.point(lon, lat), Self.point(lon + (lon > 0 ? -d : d), lat), Self.point(lon, lat + (lat > 0 ? -d : d)), Self.point(lon, lat)]])
            }
            let region = try shape.validated()
            for _ in 0..<200 {
                let plon = Double.random(in: -180...180, using: &rng), plat = Double.random(in: -90...90, using: &rng)
                if region.exactlyContains(longitude: plon, latitude: plat) {
                    XCTAssertTrue(region.bound.mayContain(longitude: plon, latitude: plat), "\(shape) [\(plon), \(plat)]")
                }
            }
            // Points near the boundary of the shape's own vertices too.
            if case .polygon(let rings) = shape {
                for vertex in rings[0] where region.exactlyContains(longitude: vertex.longitude, latitude: vertex.latitude) {
                    XCTAssertTrue(region.bound.mayContain(longitude: vertex.longitude, latitude: vertex.latitude))
                }
            }
        }
    }
}
