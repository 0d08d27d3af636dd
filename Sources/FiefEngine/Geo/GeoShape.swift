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

import FiefStorage
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
