// Geospatial shapes for `geoWithin` queries: RealmSwift's GeoPoint, GeoBox,
// GeoPolygon, GeoCircle and Distance, with the same failable initialisers.
//
// These types check only what RealmSwift's initialisers check (ranges, ring
// closure, at least four points per ring, non-negative radii).  The full
// geometry (crossing edges, holes inside the outer ring, ...) is validated by
// the engine when a query using the shape runs, as realm-core does.  A shape
// reaches a query as an argument (`filter("location IN %@", shape)` or
// `"location GEOWITHIN %@"`: a FIEF_TYPE_GEO_SHAPE value, see
// Internal/GeoArguments.swift), or as text in the query language
// (`_fiefQueryText`), which `where { $0.location.geoWithin(shape) }` embeds
// in the predicate it passes to fief_results_filter.
//
// Unlike RealmSwift's classes, these are value types.

/// A shape that can stand on the right of `geoWithin`: `GeoBox`, `GeoPolygon`
/// or `GeoCircle` (RealmSwift's `RLMGeospatial` protocol).
public protocol RLMGeospatial: _FiefQueryShape, Sendable {
    /// The shape in the query language, longitude first:
    /// `geoBox([lon, lat], [lon, lat])`, `geoPolygon({[lon, lat], ...}, {...})`
    /// or `geoCircle([lon, lat], radians)`.  Numbers are printed exactly, in
    /// their shortest round-trip form (`12.0`, `-0.5`, `1e-05`; an infinite
    /// radius is `inf`).
    var _fiefQueryText: String { get }
}

/// A point of the Earth: latitude and longitude in degrees, and a
/// non-negative altitude that queries ignore.
///
/// There is no stored geo point type: points are stored as GeoJSON-shaped
/// embedded objects, found by their shape, which `geoWithin` then reads:
///
///     class Location: EmbeddedObject {
///         @Persisted private var type: String = "Point"
///         @Persisted private var coordinates: List<Double>   // [longitude, latitude]
///         convenience init(_ latitude: Double, _ longitude: Double) {
///             self.init()
///             coordinates.append(objectsIn: [longitude, latitude])
///         }
///     }
///
/// `GeoPoint` itself only builds shapes.
public struct GeoPoint: Sendable, Hashable, CustomStringConvertible {
    /// Degrees, from -90 to 90.
    public let latitude: Double
    /// Degrees, from -180 to 180.
    public let longitude: Double
    /// Not negative; ignored by queries.
    public let altitude: Double

    /// A point, or nil when latitude is outside [-90, 90], longitude outside
    /// [-180, 180], altitude negative, or any of them NaN (RealmSwift's
    /// rules).
    public init?(latitude: Double, longitude: Double, altitude: Double = 0) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// `GeoPoint(latitude: 47.3, longitude: -121.9)`, with the altitude when
    /// it is not 0.
    public var description: String {
        altitude == 0
            ? "GeoPoint(latitude: \(latitude), longitude: \(longitude))"
            : "GeoPoint(latitude: \(latitude), longitude: \(longitude), altitude: \(altitude))"
    }

    /// `[lon, lat]`, or `[lon, lat, alt]` when the altitude is not 0.
    var queryText: String {
        altitude == 0
            ? "[\(GeoPoint.number(longitude)), \(GeoPoint.number(latitude))]"
            : "[\(GeoPoint.number(longitude)), \(GeoPoint.number(latitude)), \(GeoPoint.number(altitude))]"
    }

    /// `value` exactly, in a form the query language reads as a double.
    static func number(_ value: Double) -> String {
        value.description  // shortest round-trip: "12.0", "-0.5", "1e-05", "inf"
    }

    /// The point of a `(latitude, longitude)` tuple, or nil out of range.
    init?(_ pair: (Double, Double)) {
        self.init(latitude: pair.0, longitude: pair.1)
    }
}

/// A "rectangle" given by its bottom-left and top-right corners, for
/// `geoWithin`.  Its edges are great-circle arcs between the corners (a box
/// is a polygon with four vertices), taking the shorter way round, so a box
/// never spans more than 180 degrees of longitude; corners at longitudes 170
/// and -170 make a box across the antimeridian.  Altitudes are ignored.
public struct GeoBox: RLMGeospatial, Equatable, CustomStringConvertible {
    public let bottomLeft: GeoPoint
    public let topRight: GeoPoint

    /// A box with these corners.
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// A box from `(latitude, longitude)` corners, or nil if either is out of
    /// range.
    ///
    ///     let box = GeoBox(bottomLeft: (47.3, -122.7), topRight: (48.1, -122.1))
    public init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let bottomLeft = GeoPoint(bottomLeft), let topRight = GeoPoint(topRight) else { return nil }
        self.init(bottomLeft: bottomLeft, topRight: topRight)
    }

    public var description: String { "GeoBox(bottomLeft: \(bottomLeft), topRight: \(topRight))" }

    /// `geoBox([lon, lat], [lon, lat])`: bottom left, then top right.
    public var _fiefQueryText: String {
        "geoBox([\(GeoPoint.number(bottomLeft.longitude)), \(GeoPoint.number(bottomLeft.latitude))], "
            + "[\(GeoPoint.number(topRight.longitude)), \(GeoPoint.number(topRight.latitude))])"
    }
}

/// A polygon for `geoWithin`: an outer ring and any number of holes, each a
/// closed ring (its last point equals its first) of at least four points.
/// Edges are great-circle arcs; a ring stands for the smaller of the two
/// regions it bounds, so vertex order does not matter.
///
/// Queries also require, and check when they run: no ring crosses itself,
/// holes lie inside the outer ring, holes do not cross or share edges, share
/// at most one vertex with the outer ring, and are not nested.
public struct GeoPolygon: RLMGeospatial, Equatable, CustomStringConvertible {
    public let outerRing: [GeoPoint]
    /// The holes, or nil when the polygon was made without any.
    public let holes: [[GeoPoint]]?

    /// A polygon, or nil when the outer ring or a hole has fewer than four
    /// points or its last point differs from its first (RealmSwift's rules).
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]]? = nil) {
        guard GeoPolygon.isClosedRing(outerRing), (holes ?? []).allSatisfy(GeoPolygon.isClosedRing) else { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon from `(latitude, longitude)` tuples, or nil when a point is
    /// out of range or a ring is not closed or too short.
    ///
    ///     let triangle = GeoPolygon(outerRing: [(48.0, -122.8), (48.2, -121.8), (47.6, -121.6), (48.0, -122.8)])
    public init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]] = []) {
        let outerPoints = outerRing.compactMap { GeoPoint($0) }
        let holePoints = holes.map { hole in hole.compactMap { GeoPoint($0) } }
        guard outerPoints.count == outerRing.count,
              zip(holes, holePoints).allSatisfy({ $0.count == $1.count }) else { return nil }
        self.init(outerRing: outerPoints, holes: holePoints)
    }

    /// A polygon from `(latitude, longitude)` tuples with holes given one
    /// after another.
    public init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    private static func isClosedRing(_ ring: [GeoPoint]) -> Bool {
        ring.count > 3 && ring.first == ring.last
    }

    /// Equal outer rings and equal holes; no holes and an empty list of
    /// holes are the same.
    public static func == (lhs: GeoPolygon, rhs: GeoPolygon) -> Bool {
        lhs.outerRing == rhs.outerRing && (lhs.holes ?? []) == (rhs.holes ?? [])
    }

    public var description: String {
        let holeCount = holes?.count ?? 0
        return "GeoPolygon(outerRing: \(outerRing.count) points, holes: \(holeCount))"
    }

    /// `geoPolygon({[lon, lat], ...}, {[lon, lat], ...}, ...)`: the outer
    /// ring, then each hole.
    public var _fiefQueryText: String {
        let rings = [outerRing] + (holes ?? [])
        return "geoPolygon(" + rings.map { "{" + $0.map(\.queryText).joined(separator: ", ") + "}" }.joined(separator: ", ") + ")"
    }
}

/// A distance on the Earth, kept in radians (the angle at the Earth's center),
/// with realm-core's Earth radius of 6378.1 km.
///
///     let radius = Distance.kilometers(44.4)!   // nil for a negative or NaN distance
public struct Distance: Sendable, Hashable, CustomStringConvertible {
    /// Equatorial radius, as realm-core and MongoDB use.
    static let earthRadiusMeters = 6_378_100.0
    static let metersPerMile = 1_609.344

    /// The distance in radians.
    public let radians: Double

    private init?(checkedRadians radians: Double) {
        guard !radians.isNaN, radians >= 0 else { return nil }
        self.radians = radians
    }

    /// A distance in kilometers; nil when negative or NaN.
    public static func kilometers(_ kilometers: Double) -> Distance? {
        Distance(checkedRadians: kilometers * 1000 / earthRadiusMeters)
    }

    /// A distance in miles; nil when negative or NaN.
    public static func miles(_ miles: Double) -> Distance? {
        Distance(checkedRadians: miles * metersPerMile / earthRadiusMeters)
    }

    /// A distance in degrees of arc; nil when negative or NaN.
    public static func degrees(_ degrees: Double) -> Distance? {
        Distance(checkedRadians: degrees * (Double.pi / 180))
    }

    /// A distance in radians; nil when negative or NaN.
    public static func radians(_ radians: Double) -> Distance? {
        Distance(checkedRadians: radians)
    }

    public func asKilometers() -> Double { radians * Distance.earthRadiusMeters / 1000 }

    public func asMiles() -> Double { radians * Distance.earthRadiusMeters / Distance.metersPerMile }

    public func asDegrees() -> Double { radians / (Double.pi / 180) }

    /// The same as `radians` (a Fief addition, for symmetry with the others).
    public func asRadians() -> Double { radians }

    public var description: String { "Distance(radians: \(radians))" }
}

/// A circle for `geoWithin`: the points at most `radians` (great-circle
/// angle) from the center, the boundary included.  A radius of pi or more
/// covers the whole Earth.
public struct GeoCircle: RLMGeospatial, Equatable, CustomStringConvertible {
    public let center: GeoPoint
    /// The radius, in radians.
    public let radians: Double

    /// A circle, or nil when the radius is negative or NaN.
    ///
    ///     let circle = GeoCircle(center: GeoPoint(latitude: 47.3, longitude: -121.9)!, radiusInRadians: 0.004363323)
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard !radiusInRadians.isNaN, radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radians = radiusInRadians
    }

    /// A circle with a radius in any unit (`.kilometers(10)!`, `.miles(2)!`, ...).
    public init(center: GeoPoint, radius: Distance) {
        self.center = center
        self.radians = radius.radians
    }

    /// A circle around a `(latitude, longitude)` center, or nil when the
    /// center is out of range or the radius negative or NaN.
    public init?(center: (Double, Double), radiusInRadians: Double) {
        guard let centerPoint = GeoPoint(center) else { return nil }
        self.init(center: centerPoint, radiusInRadians: radiusInRadians)
    }

    /// A circle around a `(latitude, longitude)` center, or nil when the
    /// center is out of range.
    public init?(center: (Double, Double), radius: Distance) {
        guard let centerPoint = GeoPoint(center) else { return nil }
        self.init(center: centerPoint, radius: radius)
    }

    public var description: String { "GeoCircle(center: \(center), radians: \(radians))" }

    /// `geoCircle([lon, lat], radians)`.
    public var _fiefQueryText: String {
        "geoCircle(\(center.queryText), \(GeoPoint.number(radians)))"
    }
}
