import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

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
