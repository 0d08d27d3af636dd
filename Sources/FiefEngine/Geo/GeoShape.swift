// Geospatial shapes for `GEOWITHIN`: points, boxes, polygons with holes and
// circles on the sphere, their validation, their text form, and a fast,
// allocation-free containment test.
//
// The semantics follow realm-core (src/realm/geospatial.cpp, which uses
// Google's S2 library); the geometry here is our own:
//
//   * Coordinates are degrees, longitude first ([lon, lat] as in GeoJSON).
//     A point becomes a unit vector exactly as realm-core computes it
//     (degrees * (pi / 180), then cos/sin), so a stored point equal to a
//     polygon's vertex meets that vertex bit for bit.
//   * Polygon edges are great-circle arcs (the shorter way).  A box is a
//     polygon with the four corners lo, (lo.lon, hi.lat), hi, (hi.lon, lo.lat):
//     its "horizontal" edges are great circles too, not parallels, and a box
//     always takes the shorter way round: corners at longitudes 170 and -170
//     make a 20-degree box across the antimeridian, whichever comes first.
//   * A ring that would enclose more than a hemisphere is reversed: every
//     ring stands for the smaller of the two regions it bounds (realm-core's
//     "inversion rule"), so vertex order never matters.
//   * Sides are decided exactly: the sign of the 3x3 determinant of the
//     double-precision unit vectors, with a floating-point filter first and
//     exact expansion arithmetic when the filter is unsure.  Exact zeros
//     (a point exactly on an edge's great circle) are broken by symbolic
//     perturbation, so every point that is not a vertex is strictly on one
//     side of every edge.  A point equal to a vertex is inside exactly when a
//     fixed reference direction at that vertex points into the polygon; the
//     direction is built as realm-core's S2 builds it, so vertices are decided
//     as realm-core decides them.  Together: of two polygons sharing an edge,
//     a point of the edge belongs to exactly one.
//   * Circles are closed caps: a point exactly at the radius is inside.  A
//     radius of pi or more covers the sphere.
//   * Altitude is carried along and ignored by containment.

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Points

/// A point on the Earth: longitude and latitude in degrees, and an altitude
/// that containment ignores.
///
/// Valid points have longitude in [-180, 180] and latitude in [-90, 90];
/// shapes check that, and a stored point outside that range (or with a NaN
/// coordinate) is never inside any shape.
public struct GeoPoint: Equatable, Sendable, CustomStringConvertible {
    public var longitude: Double
    public var latitude: Double
    /// The third GeoJSON coordinate, if there is one.
    public var altitude: Double?

    /// A NaN altitude counts as none, as in realm-core.
    public init(longitude: Double, latitude: Double, altitude: Double? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude?.isNaN == true ? nil : altitude
    }

    /// Whether the longitude is in [-180, 180] and the latitude in [-90, 90]
    /// (false for NaN).
    var isInRange: Bool { abs(longitude) <= 180 && abs(latitude) <= 90 }

    /// `[lon, lat]` or `[lon, lat, alt]`, the form the query language reads.
    public var description: String {
        if let altitude {
            return "[\(longitude), \(latitude), \(altitude)]"
        }
        return "[\(longitude), \(latitude)]"
    }

    /// The point a GeoJSON-shaped object holds: its `type` must be "Point"
    /// (ASCII case-insensitive, as realm-core accepts) and its `coordinates`
    /// hold at least a longitude and a latitude; a third value is the
    /// altitude and any further values are ignored (realm-core reads the
    /// first three).  Nil when the object is not a point: another type, fewer
    /// than two coordinates, or coordinates out of range or NaN.  Realm-core
    /// reads such objects as "no point" too: they match no shape and raise
    /// no error.
    ///
    ///     GeoPoint(geoJSONType: "Point", coordinates: [12.57, 55.68])   // lon, lat
    init?<Coordinates: Collection>(geoJSONType type: some StringProtocol, coordinates: Coordinates)
    where Coordinates.Element == Double {
        guard GeoPoint.isGeoJSONPointType(utf8: type.utf8) else { return nil }
        var index = coordinates.startIndex
        guard index != coordinates.endIndex else { return nil }
        let longitude = coordinates[index]
        coordinates.formIndex(after: &index)
        guard index != coordinates.endIndex else { return nil }
        let latitude = coordinates[index]
        coordinates.formIndex(after: &index)
        let altitude = index != coordinates.endIndex ? coordinates[index] : nil
        self.init(longitude: longitude, latitude: latitude, altitude: altitude)
        guard isInRange else { return nil }
    }

    /// Whether `bytes` (UTF-8) spell "Point" in any ASCII case, the only
    /// GeoJSON type that can be queried.
    static func isGeoJSONPointType<Bytes: Collection>(utf8 bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard bytes.count == 5 else { return false }
        for (byte, expected) in zip(bytes, "point".utf8) {
            let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
            guard lowered == expected else { return false }
        }
        return true
    }
}

extension ObjectClass {
    /// The `type` (string) and `coordinates` (list of doubles) properties
    /// that make objects of this class readable as GeoJSON points, or nil
    /// when the class lacks either.  GEOWITHIN also requires the class to be
    /// embedded; that check, and its own error, belong to the caller.
    var geoJSONPointProperties: (type: Property, coordinates: Property)? {
        guard let type = property(named: "type"), type.type == .string, type.collection == .none,
              let coordinates = property(named: "coordinates"),
              coordinates.type == .double, coordinates.collection == .list
        else { return nil }
        return (type, coordinates)
    }
}

// MARK: - Distances

/// Conversions between distances on the Earth and radians, with realm-core's
/// Earth radius (MongoDB's equatorial radius, 6378.1 km).
enum GeoDistance {
    static let earthRadiusMeters = 6_378_100.0
    static let metersPerMile = 1_609.344

    static func radians(kilometers: Double) -> Double { kilometers * 1000 / earthRadiusMeters }
    static func radians(miles: Double) -> Double { miles * metersPerMile / earthRadiusMeters }
    static func radians(degrees: Double) -> Double { degrees * (Double.pi / 180) }
    static func kilometers(radians: Double) -> Double { radians * earthRadiusMeters / 1000 }
    static func miles(radians: Double) -> Double { radians * earthRadiusMeters / metersPerMile }
    static func degrees(radians: Double) -> Double { radians / (Double.pi / 180) }
}

// MARK: - Shapes

/// A region of the sphere as written in a query: the right side of
/// `GEOWITHIN`.  Build one with a case or from text, then call `validated()`
/// once per query to check it and get the `GeoRegion` that tests points.
///
///     let shape = try GeoShape(parsing: "geoCircle([12.57, 55.68], 0.001)")
///     let region = try shape.validated()
///     region.contains(GeoPoint(longitude: 12.5683, latitude: 55.6761))   // true
public enum GeoShape: Equatable, Sendable, CustomStringConvertible {
    /// Two opposite corners, in either order: the polygon lo,
    /// (lo.lon, hi.lat), hi, (hi.lon, lo.lat) with great-circle edges.
    /// Altitudes are kept in the text and ignored by containment.
    case box(GeoPoint, GeoPoint)
    /// The outer ring, then holes.  Each ring is closed (its last point
    /// repeats its first) and has at least three different vertices.
    case polygon([[GeoPoint]])
    /// A closed cap: the points at most `radians` (great-circle angle) from
    /// the center.
    case circle(GeoPoint, radians: Double)

    /// The canonical text, which `init(parsing:)` reads back to an equal
    /// shape: `geoBox([lon, lat], [lon, lat])`, `geoPolygon({[lon, lat], ...},
    /// {...})`, `geoCircle([lon, lat], radians)`.  Numbers are printed in
    /// their shortest exact form.
    public var description: String {
        switch self {
        case .box(let lo, let hi):
            return "geoBox(\(lo), \(hi))"
        case .polygon(let rings):
            return "geoPolygon(" + rings.map { "{" + $0.map(\.description).joined(separator: ", ") + "}" }.joined(separator: ", ") + ")"
        case .circle(let center, let radians):
            return "geoCircle(\(center), \(radians))"
        }
    }

    /// The shape as realm-core serialises it: a box becomes its polygon
    /// (realm-core prints boxes that way in query descriptions and errors);
    /// other shapes are unchanged.
    var polygonForm: GeoShape {
        guard case .box(let lo, let hi) = self else { return self }
        return .polygon([[lo,
                          GeoPoint(longitude: lo.longitude, latitude: hi.latitude),
                          hi,
                          GeoPoint(longitude: hi.longitude, latitude: lo.latitude),
                          lo]])
    }

    /// Checks the shape and precomputes what containment tests need.
    ///
    /// - Throws: `FiefError(.queryInvalid)` naming the first problem, worded
    ///   after realm-core: a coordinate out of range, a negative or NaN
    ///   radius, a ring not closed or with fewer than three different
    ///   vertices, duplicate vertices, antipodal neighbours, crossing edges,
    ///   a hole not inside the outer ring, shared edges, holes crossing,
    ///   nested or sharing more than one vertex with their ring.  The message
    ///   is the reason alone; realm-core's binder wraps it as "Invalid region
    ///   in GEOWITHIN query for parameter '<shape>': '<reason>'", and a
    ///   binder that got the shape from an argument should rethrow it as
    ///   `.queryArgument`.
    func validated() throws(FiefError) -> GeoRegion {
        switch self {
        case .circle(let center, let radians):
            try GeoShape.checkRange(center)
            guard !radians.isNaN, radians >= 0 else {
                throw FiefError(.queryInvalid, "The radius of a circle must be a non-negative number")
            }
            return GeoRegion(cap: GeoCap(center: SphereVector(center), radians: radians), radians: radians)
        case .box:
            return try polygonForm.validated()
        case .polygon(let rings):
            return GeoRegion(rings: try PolygonValidator.rings(of: rings))
        }
    }

    /// Throws realm-core's "out of bounds" error unless `point` is in range.
    static func checkRange(_ point: GeoPoint) throws(FiefError) {
        guard point.isInRange else {
            throw FiefError(.queryInvalid, "Longitude/latitude is out of bounds, lng: \(point.longitude) lat: \(point.latitude)")
        }
    }
}

// MARK: - Text form

extension GeoShape {
    /// Reads a shape in the query language's notation, as realm-core does
    /// for a shape passed as a string argument.  Keywords are
    /// case-insensitive (`geoBox`, `GeoPolygon`, `GEOCIRCLE`); spaces are
    /// free; numbers may be integers, decimals, exponents, `inf` or `nan`.
    ///
    ///     geoBox([lon, lat], [lon, lat])
    ///     geoPolygon({[lon, lat], [lon, lat], ...}, {hole...}, ...)
    ///     geoCircle([lon, lat], radians)
    ///
    /// A point may carry a third number, the altitude.  The text is only read
    /// here; `validated()` checks the geometry.
    ///
    /// - Throws: `FiefError(.querySyntax)` "Invalid geospatial shape '<text>':
    ///   expected ... at offset N".
    public init(parsing text: String) throws(FiefError) {
        var reader = ShapeReader(text: text)
        self = try reader.readShape()
    }
}

/// The recursive-descent reader behind `GeoShape(parsing:)`.
private struct ShapeReader {
    let text: String
    let bytes: [UInt8]
    var position = 0

    init(text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    mutating func readShape() throws(FiefError) -> GeoShape {
        skipSpaces()
        let word = readWord()
        let shape: GeoShape
        switch word.lowercased() {
        case "geobox":
            try expect(UInt8(ascii: "("))
            let lo = try readPoint()
            try expect(UInt8(ascii: ","))
            let hi = try readPoint()
            try expect(UInt8(ascii: ")"))
            shape = .box(lo, hi)
        case "geopolygon":
            try expect(UInt8(ascii: "("))
            var rings = [try readRing()]
            while consume(UInt8(ascii: ",")) {
                rings.append(try readRing())
            }
            try expect(UInt8(ascii: ")"))
            shape = .polygon(rings)
        case "geocircle":
            try expect(UInt8(ascii: "("))
            let center = try readPoint()
            try expect(UInt8(ascii: ","))
            let radius = try readNumber()
            try expect(UInt8(ascii: ")"))
            shape = .circle(center, radians: radius)
        default:
            position -= word.utf8.count
            throw failure("expected geoBox, geoPolygon or geoCircle")
        }
        skipSpaces()
        guard position == bytes.count else { throw failure("unexpected text after the shape") }
        return shape
    }

    private mutating func readRing() throws(FiefError) -> [GeoPoint] {
        try expect(UInt8(ascii: "{"))
        var points = [try readPoint()]
        while consume(UInt8(ascii: ",")) {
            points.append(try readPoint())
        }
        try expect(UInt8(ascii: "}"))
        return points
    }

    private mutating func readPoint() throws(FiefError) -> GeoPoint {
        try expect(UInt8(ascii: "["))
        let longitude = try readNumber()
        try expect(UInt8(ascii: ","))
        let latitude = try readNumber()
        var altitude: Double? = nil
        if consume(UInt8(ascii: ",")) {
            altitude = try readNumber()
        }
        try expect(UInt8(ascii: "]"))
        return GeoPoint(longitude: longitude, latitude: latitude, altitude: altitude)
    }

    private mutating func readNumber() throws(FiefError) -> Double {
        skipSpaces()
        let start = position
        while position < bytes.count, ShapeReader.isNumberByte(bytes[position]) {
            position += 1
        }
        let token = String(decoding: bytes[start..<position], as: UTF8.self)
        guard ShapeReader.isNumberToken(token), let value = Double(token) else {
            position = start
            throw failure("expected a number")
        }
        return value
    }

    /// Decimal numbers (sign, digits, fraction, exponent) and inf/infinity/nan;
    /// not the hexadecimal forms `Double(_:)` would also take.
    private static func isNumberToken(_ token: String) -> Bool {
        var body = Substring(token)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        switch body.lowercased() {
        case "inf", "infinity", "nan": return true
        default: break
        }
        var sawDigit = false
        var index = body.startIndex
        while index < body.endIndex, body[index].isASCII, body[index].isNumber { sawDigit = true; index = body.index(after: index) }
        if index < body.endIndex, body[index] == "." {
            index = body.index(after: index)
            while index < body.endIndex, body[index].isASCII, body[index].isNumber { sawDigit = true; index = body.index(after: index) }
        }
        guard sawDigit else { return false }
        if index < body.endIndex, body[index] == "e" || body[index] == "E" {
            index = body.index(after: index)
            if index < body.endIndex, body[index] == "+" || body[index] == "-" { index = body.index(after: index) }
            var exponentDigits = false
            while index < body.endIndex, body[index].isASCII, body[index].isNumber { exponentDigits = true; index = body.index(after: index) }
            guard exponentDigits else { return false }
        }
        return index == body.endIndex
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return false
        }
    }

    private mutating func readWord() -> String {
        let start = position
        while position < bytes.count,
              (bytes[position] | 0x20) >= UInt8(ascii: "a"), (bytes[position] | 0x20) <= UInt8(ascii: "z") {
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D {
            position += 1
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws(FiefError) {
        guard consume(byte) else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
    }

    private func failure(_ what: String) -> FiefError {
        FiefError(.querySyntax, "Invalid geospatial shape '\(text)': \(what) at offset \(position)")
    }
}

// MARK: - Regions

/// A validated shape, ready to test points: the per-shape work (unit
/// vectors, edge normals, bounding caps, which side of every edge the
/// reference point is on) is done once, so `contains` allocates nothing and
/// costs a few dot products per edge.
struct GeoRegion: Sendable {
    /// A circle's cap, or nil for a polygon.
    private let cap: GeoCap?
    /// A polygon's rings, the outer ring first; holes lie inside it.
    private let rings: [GeoRing]
    /// `rings[0]` (nil for a circle), and the holes.
    private let outer: GeoRing?
    private let holes: [GeoRing]
    /// A longitude/latitude rectangle around the region, tested before any
    /// trigonometry: most points of a scan fall outside it.
    let bound: GeoLatLonBound

    /// A longitude/latitude rectangle holding the region, as tight as its
    /// shape allows: what a spatial index reads (`GeoCells.ranges`).
    let coveringRectangle: GeoRectangle
    /// A circle's radius (radians).
    private let radians: Double
    /// Longitude/latitude rectangles holding each edge of each ring, for
    /// `relation` (empty for a circle).
    private let edgeBoxes: [GeoEdgeBox]
    /// The region's cell ranges in a spatial index, once computed
    /// (`GeoCells.ranges`), shared by the copies of the region.
    let covering = GeoCoveringMemo()

    init(cap: GeoCap, radians: Double) {
        self.cap = cap
        rings = []
        outer = nil
        holes = []
        self.radians = radians
        edgeBoxes = []
        bound = GeoLatLonBound(capAround: cap.center, radians: cap.isFull ? Double.pi : radians)
        coveringRectangle = GeoRectangle(bound)
    }

    init(rings: [GeoRing]) {
        cap = nil
        self.rings = rings
        outer = rings[0]
        holes = Array(rings.dropFirst())
        radians = 0
        var boxes: [GeoEdgeBox] = []
        for ring in rings {
            let count = ring.vertices.count
            for i in 0..<count { boxes.append(GeoEdgeBox(ring.vertices[i], ring.vertices[(i + 1) % count])) }
        }
        edgeBoxes = boxes
        bound = rings[0].latLonBound
        coveringRectangle = GeoRectangle(ring: rings[0])
    }

    /// Whether the region holds the point (altitude ignored).  A point out of
    /// range or with a NaN coordinate is never inside.
    func contains(_ point: GeoPoint) -> Bool {
        contains(longitude: point.longitude, latitude: point.latitude)
    }

    /// Whether the region holds the point at `longitude`, `latitude` (degrees).
    @inline(__always)
    func contains(longitude: Double, latitude: Double) -> Bool {
        guard abs(longitude) <= 180, abs(latitude) <= 90, bound.mayContain(longitude: longitude, latitude: latitude) else { return false }
        return exactlyContains(longitude: longitude, latitude: latitude)
    }

    /// `contains` without the bound's quick rejection (for checking it).
    func exactlyContains(longitude: Double, latitude: Double) -> Bool {
        guard abs(longitude) <= 180, abs(latitude) <= 90 else { return false }
        return contains(vector: SphereVector(longitude: longitude, latitude: latitude))
    }

    /// Whether the region holds the point whose unit vector is `point` (as
    /// `SphereVector(longitude:latitude:)` makes it, from a point in range).
    @inline(__always)
    func contains(vector point: SphereVector) -> Bool {
        // Stored properties read in place: no copy (and no reference
        // counting) of a ring per point tested.
        guard let outer else { return cap!.contains(point) }
        guard outer.contains(point) else { return false }
        if holes.isEmpty { return true }
        var inside = true
        for hole in holes where hole.contains(point) { inside.toggle() }
        return inside
    }
}

/// How a longitude/latitude rectangle lies in a region.
enum GeoCellRelation: Equatable {
    /// Every point of the rectangle is inside the region.
    case inside
    /// No point of the rectangle is inside the region.
    case outside
    /// Maybe some of each: its points must be tested one by one.
    case crossing
}

extension GeoRegion {
    /// How the closed rectangle of longitudes `west...east` (within
    /// -180...180) and latitudes `south...north` lies in the region,
    /// conservatively: `.inside` and `.outside` only when certain for every
    /// point of it (and of a margin around it, for rounding), `.crossing`
    /// otherwise.  What a spatial index asks of a cell before reading its
    /// points: the points of a cell wholly inside need no exact test.
    ///
    /// A polygon: when no edge's longitude/latitude rectangle (its
    /// great-circle bulge included) meets the cell's, the boundary does not
    /// enter the cell, which is connected, so its points are all inside or
    /// all outside, as its center is.  A circle: every point of the cell
    /// lies within the sum of its half sides (radians) of its center, so it
    /// is inside when its center's distance from the circle's plus that is
    /// at most the radius, outside when the distance minus that exceeds it.
    func relation(west: Double, east: Double, south: Double, north: Double) -> GeoCellRelation {
        let margin = 1e-9
        let w = west - margin, e = east + margin, s = south - margin, n = north + margin
        let centerLongitude = (west + east) / 2, centerLatitude = (south + north) / 2
        if let cap {
            if cap.isFull { return .inside }
            // Near half a turn the chord test's rounding could exceed the
            // slack: such caps are tested point by point.
            guard radians < 3 else { return .crossing }
            let radiansPerDegree = Double.pi / 180
            let reach = ((e - w) / 2 + (n - s) / 2) * radiansPerDegree
            let center = SphereVector(longitude: centerLongitude, latitude: centerLatitude)
            let distance = atan2(cap.center.cross(center).lengthSquared.squareRoot(), cap.center.dot(center))
            let slack = 1e-8
            if distance + reach <= radians - slack { return .inside }
            if distance - reach > radians + slack { return .outside }
            return .crossing
        }
        for box in edgeBoxes where box.meets(west: w, east: e, south: s, north: n) { return .crossing }
        return contains(longitude: centerLongitude, latitude: centerLatitude) ? .inside : .outside
    }
}

/// A longitude/latitude rectangle (degrees) holding one great-circle edge
/// (under half a turn) of a ring, with a margin: its ends' latitudes,
/// widened to where the arc bulges past them, and the longitudes it sweeps
/// (the short way round; every longitude near a pole).
struct GeoEdgeBox: Sendable {
    let south: Double
    let north: Double
    /// West to east, `east` maybe past 180 (across the antimeridian).
    let west: Double
    let east: Double
    let isFullLongitude: Bool

    init(_ a: SphereVector, _ b: SphereVector) {
        let degreesPerRadian = 180 / Double.pi
        func latitude(_ v: SphereVector) -> Double { asin(max(-1, min(1, v.z / v.lengthSquared.squareRoot()))) * degreesPerRadian }
        func longitude(_ v: SphereVector) -> Double { atan2(v.y, v.x) * degreesPerRadian }
        let latitudeA = latitude(a), latitudeB = latitude(b)
        var low = min(latitudeA, latitudeB), high = max(latitudeA, latitudeB)
        let up = SphereVector(x: 0, y: 0, z: 1)
        let normal = a.cross(b)
        if normal.lengthSquared > 1e-30 {
            let n = normal.normalized()
            let toward = up - n.scaled(n.z)
            if toward.lengthSquared > 1e-30 {
                let top = toward.normalized()
                for extreme in [top, top.scaled(-1)] where a.cross(extreme).dot(normal) >= 0 && extreme.cross(b).dot(normal) >= 0 {
                    let l = latitude(extreme)
                    low = min(low, l)
                    high = max(high, l)
                }
            }
        }
        let margin = 1e-7
        south = low - margin
        north = high + margin
        let longitudeA = longitude(a)
        var turn = longitude(b) - longitudeA
        if turn > 180 { turn -= 360 } else if turn < -180 { turn += 360 }
        if max(abs(latitudeA), abs(latitudeB)) > 90 - 1e-6 || abs(turn) > 179.9 || normal.lengthSquared <= 1e-30 {
            west = -180
            east = 180
            isFullLongitude = true
        } else {
            west = longitudeA + min(0, turn) - margin
            east = longitudeA + max(0, turn) + margin
            isFullLongitude = false
        }
    }

    /// Whether the edge's rectangle meets the given one (longitudes within
    /// -180...180, give or take a margin).
    @inline(__always)
    func meets(west w: Double, east e: Double, south s: Double, north n: Double) -> Bool {
        guard south <= n, north >= s else { return false }
        if isFullLongitude { return true }
        return (west <= e && east >= w) || (west - 360 <= e && east - 360 >= w) || (west + 360 <= e && east + 360 >= w)
    }
}

/// A rectangle of longitudes and latitudes (degrees) holding a region, with
/// a margin for rounding: a point outside it is outside the region, so a
/// scan rejects most points with four comparisons and no trigonometry.
/// Built from a cap around the region: latitudes within the cap's radius of
/// its center's, longitudes within asin(sin r / cos lat) of its center's
/// (every longitude when the cap holds a pole).
struct GeoLatLonBound: Sendable {
    let minimumLatitude: Double
    let maximumLatitude: Double
    let centerLongitude: Double
    /// Half the width in longitude; 180 or more: every longitude.
    let longitudeRadius: Double

    /// Every point.
    static let everything = GeoLatLonBound(minimumLatitude: -90, maximumLatitude: 90, centerLongitude: 0, longitudeRadius: 360)

    private init(minimumLatitude: Double, maximumLatitude: Double, centerLongitude: Double, longitudeRadius: Double) {
        self.minimumLatitude = minimumLatitude
        self.maximumLatitude = maximumLatitude
        self.centerLongitude = centerLongitude
        self.longitudeRadius = longitudeRadius
    }

    /// The rectangle around the cap of `radians` around `center` (a unit vector).
    init(capAround center: SphereVector, radians: Double) {
        let degreesPerRadian = 180 / Double.pi
        // A generous margin: the cap's radius comes from rounded dot
        // products, and the rectangle only has to be large enough.
        let radius = radians + 1e-9
        guard radius < Double.pi / 2, center.lengthSquared > 0.5 else { self = .everything; return }
        let latitude = asin(max(-1, min(1, center.z)))
        let low = latitude - radius, high = latitude + radius
        let margin = 1e-9
        if high >= Double.pi / 2 || low <= -Double.pi / 2 {
            // The cap holds a pole: every longitude.
            self.init(minimumLatitude: max(-90, low * degreesPerRadian - margin), maximumLatitude: min(90, high * degreesPerRadian + margin),
                      centerLongitude: 0, longitudeRadius: 360)
            return
        }
        let spread = asin(min(1, sin(radius) / cos(latitude)))
        self.init(minimumLatitude: low * degreesPerRadian - margin, maximumLatitude: high * degreesPerRadian + margin,
                  centerLongitude: atan2(center.y, center.x) * degreesPerRadian,
                  longitudeRadius: spread * degreesPerRadian + margin)
    }

    /// False only for points certainly outside the region.
    @inline(__always)
    func mayContain(longitude: Double, latitude: Double) -> Bool {
        guard latitude >= minimumLatitude, latitude <= maximumLatitude else { return false }
        var distance = abs(longitude - centerLongitude)
        if distance > 180 { distance = 360 - distance }
        return distance <= longitudeRadius
    }
}

/// A rectangle of latitudes and longitudes (degrees) holding a region:
/// longitudes from `west` to `east`, going east, where `west` may be below
/// -180 or `east` above 180 when it crosses the antimeridian.  Made with a
/// margin for rounding (1e-7 degree, about a centimetre): it only has to
/// hold the region, the exact test decides.
struct GeoRectangle: Sendable, Equatable {
    var minimumLatitude: Double
    var maximumLatitude: Double
    var west: Double
    var east: Double
    var isFullLongitude: Bool

    static let margin = 1e-7
    static let everything = GeoRectangle(minimumLatitude: -90, maximumLatitude: 90, west: -180, east: 180, isFullLongitude: true)

    init(minimumLatitude: Double, maximumLatitude: Double, west: Double, east: Double, isFullLongitude: Bool) {
        self.minimumLatitude = max(-90, minimumLatitude)
        self.maximumLatitude = min(90, maximumLatitude)
        self.west = west
        self.east = east
        self.isFullLongitude = isFullLongitude || east - west >= 360
    }

    /// The rectangle of a cap's bound.
    init(_ bound: GeoLatLonBound) {
        self.init(minimumLatitude: bound.minimumLatitude, maximumLatitude: bound.maximumLatitude,
                  west: bound.centerLongitude - bound.longitudeRadius, east: bound.centerLongitude + bound.longitudeRadius,
                  isFullLongitude: bound.longitudeRadius >= 180)
    }

    /// The rectangle of a ring's region (the smaller side of its great-circle
    /// edges): its vertices' latitudes, widened to where an edge bulges past
    /// them, and the longitudes its edges sweep; every longitude and the
    /// pole's latitude when the region holds a pole (or an edge or vertex
    /// touches one).
    init(ring: GeoRing) {
        let degreesPerRadian = 180 / Double.pi
        let vertices = ring.vertices
        let count = vertices.count
        func latitude(_ v: SphereVector) -> Double { asin(max(-1, min(1, v.z / v.lengthSquared.squareRoot()))) * degreesPerRadian }
        func longitude(_ v: SphereVector) -> Double { atan2(v.y, v.x) * degreesPerRadian }
        var low = 90.0, high = -90.0
        for v in vertices {
            let l = latitude(v)
            low = min(low, l)
            high = max(high, l)
        }
        // An edge's highest (lowest) point, where its great circle turns, when that lies inside the arc.
        let up = SphereVector(x: 0, y: 0, z: 1)
        for i in 0..<count {
            let a = vertices[i], b = vertices[(i + 1) % count]
            let normal = a.cross(b)
            guard normal.lengthSquared > 1e-30 else { continue }
            let n = normal.normalized()
            let toward = up - n.scaled(n.z)
            guard toward.lengthSquared > 1e-30 else { continue }   // the edge lies on the equator
            let top = toward.normalized()
            for extreme in [top, top.scaled(-1)] where a.cross(extreme).dot(normal) >= 0 && extreme.cross(b).dot(normal) >= 0 {
                let l = latitude(extreme)
                low = min(low, l)
                high = max(high, l)
            }
        }
        var full = false
        let north = ring.contains(up), south = ring.contains(SphereVector(x: 0, y: 0, z: -1))
        if north { high = 90; full = true }
        if south { low = -90; full = true }
        var west = 0.0, east = 0.0
        if !full {
            // The longitudes the edges sweep, unwound along the ring: each
            // edge (under 180 degrees, off the poles) turns the short way.
            var current = longitude(vertices[0])
            west = current
            east = current
            for i in 0..<count {
                let a = vertices[i], b = vertices[(i + 1) % count]
                if abs(latitude(a)) > 90 - 1e-9 || abs(latitude(b)) > 90 - 1e-9 { full = true; break }
                var turn = longitude(b) - longitude(a)
                if turn > 180 { turn -= 360 } else if turn < -180 { turn += 360 }
                if abs(turn) > 179.9999 { full = true; break }
                current += turn
                west = min(west, current)
                east = max(east, current)
            }
            if abs(current - longitude(vertices[0])) > 1 { full = true }   // wound around a pole
            if west < -180 - 360 || east > 180 + 360 { full = true }
            if !full && west < -180 && east > 180 { full = true }
            if !full, west < -180 || east > 180 {
                // Keep the interval starting within [-180, 180).
                if west < -180 { west += 360; east += 360 }
                if west >= 180 { west -= 360; east -= 360 }
            }
        }
        if full { west = -180; east = 180 }
        self.init(minimumLatitude: low - GeoRectangle.margin, maximumLatitude: high + GeoRectangle.margin,
                  west: west - GeoRectangle.margin, east: east + GeoRectangle.margin, isFullLongitude: full)
    }

    /// Whether the rectangle holds the point (degrees, in range).
    func contains(longitude: Double, latitude: Double) -> Bool {
        guard latitude >= minimumLatitude, latitude <= maximumLatitude else { return false }
        if isFullLongitude { return true }
        for shift in [-360.0, 0, 360] where longitude + shift >= west && longitude + shift <= east { return true }
        return false
    }
}

/// A closed spherical cap, tested as realm-core tests it: the squared chord
/// from the center at most twice the cap's height.
struct GeoCap: Sendable {
    let center: SphereVector
    let maximumChordSquared: Double
    let isFull: Bool

    init(center: SphereVector, radians: Double) {
        self.center = center
        isFull = radians >= Double.pi
        let halfChord = sin(0.5 * min(radians, Double.pi))
        maximumChordSquared = 2 * (2 * halfChord * halfChord)
    }

    func contains(_ point: SphereVector) -> Bool {
        if isFull { return true }
        let dx = center.x - point.x, dy = center.y - point.y, dz = center.z - point.z
        return dx * dx + dy * dy + dz * dz <= maximumChordSquared
    }
}

// MARK: - Polygon validation

/// Turns the rings of a `.polygon` into `GeoRing`s, checking them in
/// realm-core's order and with its wording.
enum PolygonValidator {
    /// One ring as read: its distinct vertices (closing vertex dropped) and
    /// the points they came from, for messages.
    struct RingInput {
        var vertices: [SphereVector]
        var points: [GeoPoint]
    }

    static func rings(of input: [[GeoPoint]]) throws(FiefError) -> [GeoRing] {
        var rings: [GeoRing] = []
        for (index, points) in input.enumerated() {
            var ring = try read(points, index: index)
            try checkSimple(ring, index: index)
            if GeometryKernel.turningAngle(ring.vertices) < -1e-14 {
                // More than a hemisphere: stand for the other side.
                ring.vertices.reverse()
                ring.points.reverse()
            }
            let built = GeoRing(vertices: ring.vertices, points: ring.points)
            if index > 0, !RingRelations.contains(rings[0], built) {
                throw FiefError(.queryInvalid, "Secondary ring \(index) not contained by first exterior ring - secondary rings must be holes in the first ring")
            }
            rings.append(built)
        }
        guard !rings.isEmpty else { throw FiefError(.queryInvalid, "Polygon has no rings.") }
        try checkSharedEdges(rings)
        try checkHoles(rings)
        return rings
    }

    /// Range, closure, adjacent duplicates, at least three vertices.
    private static func read(_ points: [GeoPoint], index: Int) throws(FiefError) -> RingInput {
        for point in points {
            try GeoShape.checkRange(point)
        }
        guard let first = points.first, let last = points.last else {
            throw FiefError(.queryInvalid, "Ring has no vertices")
        }
        guard first == last else {
            throw FiefError(.queryInvalid, "Ring is not closed, first vertex '\(first)' does not equal last vertex '\(last)'")
        }
        var ring = RingInput(vertices: [], points: [])
        for point in points {
            let vertex = SphereVector(point)
            if vertex == ring.vertices.last { continue }
            ring.vertices.append(vertex)
            ring.points.append(point)
        }
        ring.vertices.removeLast()
        ring.points.removeLast()
        guard ring.vertices.count >= 3 else {
            throw FiefError(.queryInvalid, "Ring \(index) must have at least 3 different vertices, \(ring.vertices.count) unique vertices were provided")
        }
        return ring
    }

    /// No repeated vertex, no edge between antipodes, no two edges that are
    /// not neighbours crossing or touching.
    private static func checkSimple(_ ring: RingInput, index: Int) throws(FiefError) {
        func invalid(_ reason: String) -> FiefError {
            FiefError(.queryInvalid, "Ring \(index) is not valid: '\(reason)'")
        }
        let vertices = ring.vertices
        let count = vertices.count
        var seen: [SphereVector.BitPattern: Int] = [:]
        for (position, vertex) in vertices.enumerated() {
            if let earlier = seen.updateValue(position, forKey: vertex.bitPattern) {
                throw invalid("Duplicate vertices: \(earlier) and \(position)")
            }
        }
        for position in 0..<count {
            let next = vertices[(position + 1) % count]
            if (vertices[position] + next).lengthSquared < 1e-24 {
                throw invalid("Edge \(position) joins antipodal vertices \(ring.points[position]) and \(ring.points[(position + 1) % count]); the great-circle edge between them is undefined")
            }
        }
        let bounds = (0..<count).map { EdgeBound(vertices[$0], vertices[($0 + 1) % count]) }
        for first in 0..<count {
            for second in (first + 2)..<max(first + 2, count) {
                if first == 0 && second == count - 1 { continue }  // neighbours through vertex 0
                guard bounds[first].mayMeet(bounds[second]) else { continue }
                let a = vertices[first], b = vertices[(first + 1) % count]
                let c = vertices[second], d = vertices[(second + 1) % count]
                if GeometryKernel.arcsCross(a, b, c, d) || GeometryKernel.arcsTouch(a, b, c, d) {
                    let p = ring.points
                    throw invalid("Edges \(first) and \(second) cross. Edge locations (longitude, latitude) in degrees: \(p[first])-\(p[(first + 1) % count]) and \(p[second])-\(p[(second + 1) % count])")
                }
            }
        }
    }

    /// No edge may appear in two rings, in either direction.
    private static func checkSharedEdges(_ rings: [GeoRing]) throws(FiefError) {
        guard rings.count > 1 else { return }
        struct EdgeKey: Hashable {
            let from: SphereVector.BitPattern
            let to: SphereVector.BitPattern
        }
        var owners: [EdgeKey: (ring: Int, edge: Int)] = [:]
        for (ringIndex, ring) in rings.enumerated() {
            let vertices = ring.vertices
            for edge in 0..<vertices.count {
                let from = vertices[edge].bitPattern, to = vertices[(edge + 1) % vertices.count].bitPattern
                for key in [EdgeKey(from: from, to: to), EdgeKey(from: to, to: from)] {
                    if let other = owners[key] {
                        throw FiefError(.queryInvalid, "Polygon isn't valid: 'Duplicate edge: ring \(ringIndex), edge \(edge) and ring \(other.ring), edge \(other.edge)'")
                    }
                    owners[key] = (ringIndex, edge)
                }
            }
        }
    }

    /// Holes may not cross one another, may share at most one vertex with
    /// the ring around them, and may not lie inside another hole.
    private static func checkHoles(_ rings: [GeoRing]) throws(FiefError) {
        guard rings.count > 2 else {
            if rings.count == 2 { try checkSharedVertices(rings, hole: 1, parent: 0) }
            return
        }
        for first in 1..<rings.count {
            for second in (first + 1)..<max(first + 1, rings.count)
            where RingRelations.cross(rings[first], rings[second]) {
                throw FiefError(.queryInvalid, "Polygon isn't valid: 'Ring \(first) crosses ring \(second)'")
            }
        }
        var parents: [Int] = []
        for hole in 1..<rings.count {
            let parent = (1..<rings.count).first { $0 != hole && RingRelations.contains(rings[$0], rings[hole]) } ?? 0
            try checkSharedVertices(rings, hole: hole, parent: parent)
            parents.append(parent)
        }
        if let nested = parents.firstIndex(where: { $0 != 0 }) {
            throw FiefError(.queryInvalid, "Polygon interior rings cannot be nested: \(nested + 1)")
        }
    }

    private static func checkSharedVertices(_ rings: [GeoRing], hole: Int, parent: Int) throws(FiefError) {
        let parentVertices = Set(rings[parent].vertices.map(\.bitPattern))
        let shared = rings[hole].vertices.filter { parentVertices.contains($0.bitPattern) }.count
        if shared > 1 {
            throw FiefError(.queryInvalid, "Polygon is not normalized: 'Ring \(hole) shares more than one vertex with its parent ring \(parent)'")
        }
    }
}

/// A conservative bounding cap of one edge, to skip most pairs of edges
/// that cannot meet.
private struct EdgeBound {
    let center: SphereVector
    /// Half the edge's angle, plus a margin for rounding.
    let radius: Double
    let cosRadius: Double
    let sinRadius: Double

    init(_ a: SphereVector, _ b: SphereVector) {
        let sum = a + b
        center = sum.lengthSquared > 1e-30 ? sum.normalized() : a
        radius = 0.5 * GeometryKernel.angle(a, b) + 1e-9
        cosRadius = cos(radius)
        sinRadius = sin(radius)
    }

    /// Whether the caps overlap: the angle between the centers is at most
    /// the sum of the radii (compared through cosines).
    func mayMeet(_ other: EdgeBound) -> Bool {
        if radius + other.radius >= Double.pi { return true }
        let cosSum = cosRadius * other.cosRadius - sinRadius * other.sinRadius
        return center.dot(other.center) >= cosSum - 1e-12
    }
}

// MARK: - Rings

/// One validated ring, oriented so that its region is on the left of its
/// edges, with everything a containment test needs precomputed.
///
/// Containment counts how often the arc from a fixed reference point to the
/// tested point crosses the ring's edges; whether the reference point itself
/// is inside is worked out once, from a point placed just inside one vertex.
/// A class: a region tests its rings in place, with no copy (or reference
/// counting of their arrays) per point.
final class GeoRing: Sendable {
    /// Interior on the left, no closing duplicate.
    let vertices: [SphereVector]
    /// The points the vertices came from (for messages).
    let points: [GeoPoint]
    /// `vertices[i] × vertices[i + 1]`, the filter for which side a point is on.
    private let edgeNormals: [SphereVector]
    /// Which side of each edge the reference point is on (+1 left, -1 right).
    private let referenceSides: [Int8]
    /// Whether each vertex, tested as a point, is inside.
    private let vertexInside: [Bool]
    private let reference: SphereVector
    private let referenceInside: Bool
    /// A cap around the whole region, or `boundMinimumDot` below -1 when the
    /// region is too spread out for one to help.
    private let boundCenter: SphereVector
    private let boundMinimumDot: Double

    init(vertices: [SphereVector], points: [GeoPoint]) {
        self.vertices = vertices
        self.points = points
        let count = vertices.count
        edgeNormals = (0..<count).map { vertices[$0].cross(vertices[($0 + 1) % count]) }
        vertexInside = (0..<count).map { index in
            let vertex = vertices[index]
            return GeometryKernel.isOrderedCounterClockwise(
                GeometryKernel.referenceDirection(at: vertex),
                vertices[(index + count - 1) % count], vertices[(index + 1) % count], around: vertex)
        }
        let candidates = GeometryKernel.referencePoints
        let reference = candidates.first { candidate in !vertices.contains(candidate) } ?? candidates[0]
        self.reference = reference
        referenceSides = (0..<count).map { index in
            Int8(GeometryKernel.orientation(vertices[index], vertices[(index + 1) % count], reference))
        }
        (boundCenter, boundMinimumDot) = GeoRing.boundingCap(of: vertices)
        referenceInside = GeoRing.isInside(reference, vertices: vertices)
    }

    /// Whether `point` (a unit vector) is inside the ring's region.
    func contains(_ point: SphereVector) -> Bool {
        if boundCenter.dot(point) < boundMinimumDot { return false }
        let count = vertices.count
        let referenceCrossPoint = reference.cross(point)
        var inside = referenceInside
        var nextVertexSide = 0  // side of vertices[i] relative to reference → point, when known
        for index in 0..<count {
            let next = index + 1 == count ? 0 : index + 1
            let a = vertices[index], b = vertices[next]
            let filtered = edgeNormals[index].dot(point)
            var pointSide: Int
            if filtered > GeometryKernel.filterBound {
                pointSide = 1
            } else if filtered < -GeometryKernel.filterBound {
                pointSide = -1
            } else {
                if point == a { return vertexInside[index] }
                if point == b { return vertexInside[next] }
                pointSide = GeometryKernel.orientation(a, b, point)
            }
            let referenceSide = Int(referenceSides[index])
            let aSide = nextVertexSide
            nextVertexSide = 0
            if pointSide == referenceSide { continue }
            // The reference and the point are on opposite sides of the edge's
            // great circle; the arc between them crosses the edge when the
            // edge's ends are on opposite sides of the arc's great circle, the
            // right way round.
            let sideOfA = aSide != 0 ? aSide : GeometryKernel.orientation(reference, point, a, filter: referenceCrossPoint)
            guard sideOfA == -referenceSide else { continue }
            let sideOfB = GeometryKernel.orientation(reference, point, b, filter: referenceCrossPoint)
            nextVertexSide = sideOfB
            if sideOfB == referenceSide { inside.toggle() }
        }
        return inside
    }

    /// Whether the reference point is inside: a point placed just inside the
    /// corner at some vertex is inside, so the reference point is inside when
    /// the arc between them crosses the boundary an even number of times.
    private static func isInside(_ reference: SphereVector, vertices: [SphereVector]) -> Bool {
        let count = vertices.count
        for index in 0..<count {
            let previous = vertices[(index + count - 1) % count]
            let vertex = vertices[index]
            let next = vertices[(index + 1) % count]
            let towardPrevious = GeometryKernel.tangent(from: vertex, toward: previous)
            let towardNext = GeometryKernel.tangent(from: vertex, toward: next)
            var direction = towardPrevious + towardNext
            if direction.lengthSquared < 1e-20 {
                direction = vertex.cross(towardNext)  // straight on: turn left
            } else {
                direction = direction.normalized()
                if GeometryKernel.orientation(previous, vertex, next) < 0 { direction = direction.scaled(-1) }
            }
            var step = 1e-3 * min(GeometryKernel.angle(previous, vertex), GeometryKernel.angle(vertex, next))
            for _ in 0..<8 {
                let probe = (vertex + direction.scaled(step)).normalized()
                step /= 16
                guard probe != vertex, !vertices.contains(probe),
                      GeometryKernel.isOrderedCounterClockwise(probe, previous, next, around: vertex)
                else { continue }
                var clear = true
                for edge in 0..<count where edge != index && (edge + 1) % count != index {
                    if GeometryKernel.arcsCross(vertex, probe, vertices[edge], vertices[(edge + 1) % count]) {
                        clear = false
                        break
                    }
                }
                guard clear else { continue }
                // The probe is inside; count crossings of reference → probe.
                var crossings = false
                for edge in 0..<count
                where GeometryKernel.arcsCross(reference, probe, vertices[edge], vertices[(edge + 1) % count]) {
                    crossings.toggle()
                }
                return !crossings
            }
        }
        // Unreachable for a validated ring (every vertex has a proper
        // corner); fall back to "outside", the answer for all small rings.
        return false
    }

    /// A longitude/latitude rectangle holding the ring's region (see
    /// `GeoLatLonBound`); everything when no bounding cap helps.
    var latLonBound: GeoLatLonBound {
        guard boundMinimumDot >= -1 else { return .everything }
        return GeoLatLonBound(capAround: boundCenter, radians: acos(min(1, boundMinimumDot)))
    }

    /// A cap of under 80 degrees holding every vertex, and so (for a ring of
    /// at most a hemisphere) its whole region; with a margin for rounding.
    private static func boundingCap(of vertices: [SphereVector]) -> (SphereVector, Double) {
        var sum = SphereVector(x: 0, y: 0, z: 0)
        for vertex in vertices { sum = sum + vertex }
        guard sum.lengthSquared > 1e-20 else { return (sum, -2) }
        let center = sum.normalized()
        var minimumDot = 1.0
        for vertex in vertices { minimumDot = min(minimumDot, center.dot(vertex)) }
        guard minimumDot > 0.2 else { return (center, -2) }
        return (center, minimumDot - 1e-12)
    }
}

/// How two validated rings' boundaries and regions relate.
private enum RingRelations {
    /// Whether `outer`'s region holds `inner`'s: the boundaries meet only at
    /// shared vertices, where `inner`'s corner lies within `outer`'s, and a
    /// vertex of `inner` that is not shared is inside `outer`.
    static func contains(_ outer: GeoRing, _ inner: GeoRing) -> Bool {
        if boundariesMeet(outer, inner) { return false }
        var sawUnshared = false
        for (index, vertex) in inner.vertices.enumerated() {
            if let shared = outer.vertices.firstIndex(of: vertex) {
                let (a0, a2) = corner(outer, shared)
                let (b0, b2) = corner(inner, index)
                if !GeometryKernel.wedgeContains(a0, vertex, a2, b0, b2) { return false }
            } else if !sawUnshared {
                sawUnshared = true
                if !outer.contains(vertex) { return false }
            }
        }
        return true
    }

    /// Whether two holes cross: their boundaries meet other than at shared
    /// vertices, or at a shared vertex their corners overlap without one
    /// holding the other.
    static func cross(_ first: GeoRing, _ second: GeoRing) -> Bool {
        if boundariesMeet(first, second) { return true }
        for (index, vertex) in second.vertices.enumerated() {
            guard let shared = first.vertices.firstIndex(of: vertex) else { continue }
            let (a0, a2) = corner(first, shared)
            let (b0, b2) = corner(second, index)
            let disjoint = GeometryKernel.wedgeContains(a2, vertex, a0, b0, b2)
            if !disjoint && !GeometryKernel.wedgeContains(a0, vertex, a2, b0, b2)
                && !GeometryKernel.wedgeContains(b0, vertex, b2, a0, a2) {
                return true
            }
        }
        return false
    }

    /// The neighbours of vertex `index`: (previous, next).
    private static func corner(_ ring: GeoRing, _ index: Int) -> (SphereVector, SphereVector) {
        let count = ring.vertices.count
        return (ring.vertices[(index + count - 1) % count], ring.vertices[(index + 1) % count])
    }

    /// Whether an edge of one ring crosses an edge of the other, or a vertex
    /// of one lies on an edge of the other (not at its ends).
    private static func boundariesMeet(_ first: GeoRing, _ second: GeoRing) -> Bool {
        let firstCount = first.vertices.count, secondCount = second.vertices.count
        let secondBounds = (0..<secondCount).map { EdgeBound(second.vertices[$0], second.vertices[($0 + 1) % secondCount]) }
        for i in 0..<firstCount {
            let a = first.vertices[i], b = first.vertices[(i + 1) % firstCount]
            let bound = EdgeBound(a, b)
            for j in 0..<secondCount {
                let c = second.vertices[j], d = second.vertices[(j + 1) % secondCount]
                guard bound.mayMeet(secondBounds[j]) else { continue }
                let sharesEnd = a == c || a == d || b == c || b == d
                if !sharesEnd && GeometryKernel.arcsCross(a, b, c, d) { return true }
                if GeometryKernel.liesInside(c, arc: a, b) || GeometryKernel.liesInside(d, arc: a, b)
                    || GeometryKernel.liesInside(a, arc: c, d) || GeometryKernel.liesInside(b, arc: c, d) {
                    return true
                }
            }
        }
        return false
    }
}

// MARK: - Vectors and predicates

/// A vector of R³; points of the sphere are unit vectors.
struct SphereVector: Equatable, Sendable {
    var x: Double
    var y: Double
    var z: Double

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The unit vector of a longitude and latitude in degrees, computed the
    /// way realm-core computes it, so equal inputs give equal bits.
    init(longitude: Double, latitude: Double) {
        let radiansPerDegree = Double.pi / 180
        let phi = latitude * radiansPerDegree
        let theta = longitude * radiansPerDegree
        let cosPhi = cos(phi)
        self.init(x: cos(theta) * cosPhi, y: sin(theta) * cosPhi, z: sin(phi))
    }

    init(_ point: GeoPoint) {
        self.init(longitude: point.longitude, latitude: point.latitude)
    }

    func dot(_ other: SphereVector) -> Double { x * other.x + y * other.y + z * other.z }

    func cross(_ other: SphereVector) -> SphereVector {
        SphereVector(x: y * other.z - z * other.y, y: z * other.x - x * other.z, z: x * other.y - y * other.x)
    }

    var lengthSquared: Double { dot(self) }

    func normalized() -> SphereVector { scaled(1 / lengthSquared.squareRoot()) }

    func scaled(_ factor: Double) -> SphereVector { SphereVector(x: x * factor, y: y * factor, z: z * factor) }

    static func + (lhs: SphereVector, rhs: SphereVector) -> SphereVector {
        SphereVector(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
    }

    static func - (lhs: SphereVector, rhs: SphereVector) -> SphereVector {
        SphereVector(x: lhs.x - rhs.x, y: lhs.y - rhs.y, z: lhs.z - rhs.z)
    }

    /// The bits of the three coordinates, for hashing vertices (-0 and +0 are
    /// the same point: both are stored as +0).
    struct BitPattern: Hashable, Sendable {
        let x: UInt64, y: UInt64, z: UInt64
    }

    var bitPattern: BitPattern {
        BitPattern(x: (x + 0).bitPattern, y: (y + 0).bitPattern, z: (z + 0).bitPattern)
    }

    /// Lexicographic order, for symbolic perturbation.
    static func precedes(_ lhs: SphereVector, _ rhs: SphereVector) -> Bool {
        if lhs.x != rhs.x { return lhs.x < rhs.x }
        if lhs.y != rhs.y { return lhs.y < rhs.y }
        return lhs.z < rhs.z
    }

    subscript(component: Int) -> Double {
        switch component {
        case 0: return x
        case 1: return y
        default: return z
        }
    }
}

/// The geometric predicates, exact where it matters.
enum GeometryKernel {
    /// Above this, the floating-point value of det(a, b, c) for unit vectors
    /// (about 7e-16 of rounding at most) has the sign of the exact one.
    static let filterBound = 5e-15

    /// Reference points for ring containment (any point works; these are
    /// unlikely to be anyone's vertex, and a ring avoids those it uses).
    static let referencePoints: [SphereVector] = [
        SphereVector(x: 0.0147, y: 0.9983, z: 0.0566).normalized(),
        SphereVector(x: -0.6103, y: 0.2011, z: -0.7662).normalized(),
        SphereVector(x: 0.3331, y: -0.8122, z: 0.4790).normalized(),
    ]

    /// +1 if `c` is to the left of the great circle from `a` to `b` (a, b, c
    /// counterclockwise seen from outside the sphere), -1 if to the right.
    /// Never 0 for three different points: an exact zero is broken by
    /// symbolic perturbation.  0 when two of them are equal.
    static func orientation(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector) -> Int {
        orientation(a, b, c, filter: a.cross(b))
    }

    /// `orientation(a, b, c)` with `a × b` already computed.
    @inline(__always)
    static func orientation(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector, filter aCrossB: SphereVector) -> Int {
        let estimate = aCrossB.dot(c)
        if estimate > filterBound { return 1 }
        if estimate < -filterBound { return -1 }
        return exactOrientation(a, b, c)
    }

    /// The exact sign of det(a, b, c), perturbed when it is exactly zero.
    static func exactOrientation(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector) -> Int {
        if a == b || b == c || a == c { return 0 }
        let sign = ExactDeterminant.sign(a, b, c)
        if sign != 0 { return sign }
        return ExactDeterminant.perturbedSign(a, b, c)
    }

    /// Whether the arcs a→b and c→d cross at a point inside both, for four
    /// different points.  Arcs exactly on one great circle never cross (the
    /// perturbation moves them apart); `arcsTouch` finds those that overlap.
    static func arcsCross(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector, _ d: SphereVector) -> Bool {
        let abc = orientation(a, b, c), abd = orientation(a, b, d)
        guard abc == -abd, abc != 0 else { return false }
        let cda = orientation(c, d, a), cdb = orientation(c, d, b)
        guard cda == -cdb, cda != 0 else { return false }
        // Both pairs are split; the arcs meet (rather than their antipodal
        // continuations) when the four orientations agree as below.
        return abd == cda
    }

    /// Whether an end of one arc lies exactly on the other arc, strictly
    /// between its ends: boundaries that touch without crossing.
    static func arcsTouch(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector, _ d: SphereVector) -> Bool {
        liesInside(c, arc: a, b) || liesInside(d, arc: a, b) || liesInside(a, arc: c, d) || liesInside(b, arc: c, d)
    }

    /// Whether `p` is exactly on the great circle of `a`→`b`, strictly
    /// between them.
    static func liesInside(_ p: SphereVector, arc a: SphereVector, _ b: SphereVector) -> Bool {
        if p == a || p == b { return false }
        let normal = a.cross(b)
        if abs(normal.dot(p)) > filterBound { return false }
        guard ExactDeterminant.sign(a, b, p) == 0 else { return false }
        return a.cross(p).dot(normal) > 0 && p.cross(b).dot(normal) > 0
    }

    /// Whether, turning counterclockwise around `o`, the directions to `a`,
    /// `b`, `c` come in that order (b within the turn from a to c,
    /// inclusive).  True when a == b or b == c; false when a == c otherwise.
    static func isOrderedCounterClockwise(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector, around o: SphereVector) -> Bool {
        var count = 0
        if orientation(o, a, b) >= 0 { count += 1 }
        if orientation(o, b, c) >= 0 { count += 1 }
        if orientation(o, c, a) > 0 { count += 1 }
        return count >= 2
    }

    /// Whether the corner (wedge) a0→ab1→a2 holds the corner b0→ab1→b2, the
    /// region of each being on the left of its edges.
    static func wedgeContains(_ a0: SphereVector, _ ab1: SphereVector, _ a2: SphereVector, _ b0: SphereVector, _ b2: SphereVector) -> Bool {
        isOrderedCounterClockwise(a2, b2, b0, around: ab1) && isOrderedCounterClockwise(b0, a0, a2, around: ab1)
    }

    /// A fixed direction at `vertex` (a point 90 degrees away) used to decide
    /// whether a point equal to a vertex is inside: it is when this direction
    /// points into the polygon's corner.  Built like realm-core's (S2's
    /// `Ortho`) so that vertices are decided the same way: the cross product
    /// with a fixed vector whose largest coordinate is moved to stay away
    /// from the vertex's own largest coordinate.
    static func referenceDirection(at vertex: SphereVector) -> SphereVector {
        let ax = abs(vertex.x), ay = abs(vertex.y), az = abs(vertex.z)
        var fixed = SphereVector(x: 0.012, y: 0.0053, z: 0.00457)
        if ax > ay {
            if ax > az { fixed.z = 1 } else { fixed.y = 1 }
        } else {
            if ay > az { fixed.x = 1 } else { fixed.y = 1 }
        }
        return vertex.cross(fixed).normalized()
    }

    /// The unit tangent at `from` pointing along the great circle toward `to`.
    static func tangent(from: SphereVector, toward to: SphereVector) -> SphereVector {
        let along = to - from.scaled(to.dot(from))
        return along.lengthSquared > 0 ? along.normalized() : along
    }

    /// The angle between two vectors, accurate for small and large angles.
    static func angle(_ a: SphereVector, _ b: SphereVector) -> Double {
        atan2(a.cross(b).lengthSquared.squareRoot(), a.dot(b))
    }

    /// The sum of the ring's turning angles: 2π minus the area on its left,
    /// so negative when the left side is more than a hemisphere.
    static func turningAngle(_ vertices: [SphereVector]) -> Double {
        let count = vertices.count
        var total = 0.0
        for index in 0..<count {
            let a = vertices[(index + count - 1) % count], b = vertices[index], c = vertices[(index + 1) % count]
            let turn = angle(a.cross(b), b.cross(c))
            total += orientation(a, b, c) > 0 ? turn : -turn
        }
        return total
    }
}

/// The exact sign of a 3x3 determinant of doubles, by error-free
/// transformations (products split with fused multiply-add, sums kept as
/// non-overlapping expansions), and its symbolic perturbation.  Works in a
/// fixed stack buffer: nothing is allocated.
private enum ExactDeterminant {
    /// The sign of det[a; b; c] = a · (b × c), exactly (for coordinates whose
    /// products do not underflow, true of any unit vector from degrees).
    static func sign(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector) -> Int {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 32) { buffer in
            var expansion = Expansion(buffer: buffer)
            expansion.addProduct(a.x, b.y, c.z)
            expansion.addProduct(-a.x, b.z, c.y)
            expansion.addProduct(-a.y, b.x, c.z)
            expansion.addProduct(a.y, b.z, c.x)
            expansion.addProduct(a.z, b.x, c.y)
            expansion.addProduct(-a.z, b.y, c.x)
            return expansion.sign
        }
    }

    /// The exact sign of m00·m11 - m01·m10.
    static func minorSign(_ m00: Double, _ m01: Double, _ m10: Double, _ m11: Double) -> Int {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 8) { buffer in
            var expansion = Expansion(buffer: buffer)
            expansion.addProduct(m00, m11)
            expansion.addProduct(-m01, m10)
            return expansion.sign
        }
    }

    /// The sign det(a, b, c) takes when every coordinate is moved by its own
    /// infinitesimal, for three different points whose determinant is zero.
    ///
    /// The points are first sorted (lexicographically), so the answer depends
    /// only on the points, not on their order (up to the permutation's sign).
    /// Row r, column k gets ε^(2^(3r+k)) for one infinitesimal ε: every term
    /// of the expanded determinant is then a distinct power of ε, and the
    /// sign is that of the first nonzero coefficient in increasing powers.
    /// The last candidates (a full permutation of infinitesimals) are ±1, so
    /// an answer always exists.
    static func perturbedSign(_ a: SphereVector, _ b: SphereVector, _ c: SphereVector) -> Int {
        var rows = (a, b, c)
        var permutationSign = 1
        if SphereVector.precedes(rows.1, rows.0) { swap(&rows.0, &rows.1); permutationSign = -permutationSign }
        if SphereVector.precedes(rows.2, rows.1) { swap(&rows.1, &rows.2); permutationSign = -permutationSign }
        if SphereVector.precedes(rows.1, rows.0) { swap(&rows.0, &rows.1); permutationSign = -permutationSign }
        let terms = PerturbationTerm.all
        for index in terms.indices {
            let term = terms[index]
            let coefficient: Int
            switch term.rowCount {
            case 2:
                coefficient = minorSign(entry(rows, term.row0, term.column0), entry(rows, term.row0, term.column1),
                                        entry(rows, term.row1, term.column0), entry(rows, term.row1, term.column1))
            case 1:
                let value = entry(rows, term.row0, term.column0)
                coefficient = value > 0 ? 1 : (value < 0 ? -1 : 0)
            default:
                coefficient = 1
            }
            if coefficient != 0 { return permutationSign * term.sign * coefficient }
        }
        return permutationSign  // not reached: the last terms have coefficient 1
    }

    private static func entry(_ rows: (SphereVector, SphereVector, SphereVector), _ row: Int, _ column: Int) -> Double {
        switch row {
        case 0: return rows.0[column]
        case 1: return rows.1[column]
        default: return rows.2[column]
        }
    }
}

/// One coefficient of the perturbed determinant: the perturbed entries form
/// a partial permutation; the coefficient is `sign` times the minor of the
/// rows and columns left (`rowCount` of them: 2, 1 or 0).
private struct PerturbationTerm: Sendable {
    let rowCount: Int
    let row0: Int, row1: Int
    let column0: Int, column1: Int
    let sign: Int

    /// All terms, in increasing powers of ε (decreasing size).
    static let all: [PerturbationTerm] = {
        var terms: [(exponent: Int, term: PerturbationTerm)] = []
        // Each perturbed set: rows → columns, injective.  Enumerate all maps
        // from a subset of rows to distinct columns.
        for mask in 1..<8 {
            let perturbedRows = (0..<3).filter { mask & (1 << $0) != 0 }
            for columns in arrangements(of: [0, 1, 2], taking: perturbedRows.count) {
                var exponent = 0
                var assignment = [Int](repeating: -1, count: 3)
                for (row, column) in zip(perturbedRows, columns) {
                    exponent += 1 << (3 * row + column)
                    assignment[row] = column
                }
                let freeRows = (0..<3).filter { assignment[$0] < 0 }
                let freeColumns = (0..<3).filter { !columns.contains($0) }
                // Complete the map in increasing order to fix the sign.
                for (row, column) in zip(freeRows, freeColumns) { assignment[row] = column }
                var inversions = 0
                for i in 0..<3 { for j in (i + 1)..<3 where assignment[i] > assignment[j] { inversions += 1 } }
                let term = PerturbationTerm(
                    rowCount: freeRows.count,
                    row0: freeRows.first ?? 0, row1: freeRows.count > 1 ? freeRows[1] : 0,
                    column0: freeColumns.first ?? 0, column1: freeColumns.count > 1 ? freeColumns[1] : 0,
                    sign: inversions % 2 == 0 ? 1 : -1)
                terms.append((exponent, term))
            }
        }
        return terms.sorted { $0.exponent < $1.exponent }.map(\.term)
    }()

    private static func arrangements(of items: [Int], taking count: Int) -> [[Int]] {
        if count == 0 { return [[]] }
        var result: [[Int]] = []
        for (index, item) in items.enumerated() {
            var rest = items
            rest.remove(at: index)
            for tail in arrangements(of: rest, taking: count - 1) { result.append([item] + tail) }
        }
        return result
    }
}

/// A sum of doubles kept exactly, as a non-overlapping expansion in
/// increasing magnitude (zeros dropped), in a caller's buffer.
private struct Expansion {
    let buffer: UnsafeMutableBufferPointer<Double>
    var count = 0

    init(buffer: UnsafeMutableBufferPointer<Double>) {
        self.buffer = buffer
    }

    /// The sign of the sum: that of its largest component.
    var sign: Int {
        guard count > 0 else { return 0 }
        return buffer[count - 1] > 0 ? 1 : -1
    }

    /// Adds x·y exactly.
    mutating func addProduct(_ x: Double, _ y: Double) {
        let product = x * y
        add((-product).addingProduct(x, y))
        add(product)
    }

    /// Adds x·y·z exactly.
    mutating func addProduct(_ x: Double, _ y: Double, _ z: Double) {
        let high = x * y
        let low = (-high).addingProduct(x, y)
        addProduct(low, z)
        addProduct(high, z)
    }

    /// Adds one double (Shewchuk's grow-expansion with zero elimination).
    mutating func add(_ value: Double) {
        var carry = value
        var kept = 0
        for index in 0..<count {
            let component = buffer[index]
            let sum = carry + component
            let virtualComponent = sum - carry
            let error = (carry - (sum - virtualComponent)) + (component - virtualComponent)
            if error != 0 {
                buffer[kept] = error
                kept += 1
            }
            carry = sum
        }
        if carry != 0 && kept < buffer.count {
            buffer[kept] = carry
            kept += 1
        }
        count = kept
    }
}
