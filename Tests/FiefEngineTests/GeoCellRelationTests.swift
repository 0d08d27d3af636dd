import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// The "cell wholly inside" shortcut of the spatial index
/// (`GeoRegion.relation`, `GeoCells.ranges(_: GeoRegion)`): a range marked
/// `whole` holds only points the region holds, and a point the region
/// holds is always in some range, at the places where a conservative test
/// could go wrong: points on cell edges and corners, boxes whose
/// great-circle edges bulge past their corners' parallels, polygons with
/// holes (a cell inside the outer ring that touches a hole), circles, the
/// antimeridian and the poles.
final class GeoCellRelationTests: XCTestCase {
    func p(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }

    /// Degrees of the start of step `s` (longitude, latitude).
    func longitude(step s: UInt64) -> Double { Double(s) * 360 / Double(1 << 31) - 180 }
    func latitude(step s: UInt64) -> Double { Double(s) * 180 / Double(1 << 31) - 90 }

    static let shapes: [GeoShape] = {
        func p(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }
        return [
            .box(p(-7.7, 37.3), p(4.95, 50.0)),
            .box(p(1.25, 44.15), p(1.88, 44.78)),
            // Wide boxes: their "horizontal" edges bulge far poleward.
            .box(p(-60, 40), p(60, 70)),
            .box(p(-80, -75), p(80, -50)),
            .box(p(0, 0), p(90, 45)),
            // Across the antimeridian.
            .box(p(170, -10), p(-170, 10)),
            .polygon([[p(175, 60), p(-175, 60), p(-175, 70), p(175, 70), p(175, 60)]]),
            // Holes, one with edges on cell boundaries (depth 8: 1.40625 x 0.703125 degrees).
            .polygon([[p(-20, -20), p(20, -20), p(20, 20), p(-20, 20), p(-20, -20)],
                      [p(-5, -5), p(5, -5), p(5, 5), p(-5, 5), p(-5, -5)]]),
            .polygon([[p(-11.25, -11.25), p(11.25, -11.25), p(11.25, 11.25), p(-11.25, 11.25), p(-11.25, -11.25)],
                      [p(0, 0), p(1.40625, 0), p(1.40625, 0.703125), p(0, 0.703125), p(0, 0)]]),
            // Around a pole; a triangle; a concave ring.
            .polygon([[p(0, 80), p(120, 80), p(-120, 80), p(0, 80)]]),
            .polygon([[p(-30, -10), p(40, 5), p(0, 50), p(-30, -10)]]),
            .polygon([[p(0, 0), p(30, 0), p(30, 30), p(15, 5), p(0, 30), p(0, 0)]]),
            // Circles: small, large, holding a pole, on the antimeridian, empty.
            .circle(p(2, 45), radians: 0.01),
            .circle(p(30, 40), radians: 0.6),
            .circle(p(0, 90), radians: 0.2),
            .circle(p(179.9, 0), radians: 0.05),
            .circle(p(30, 40), radians: 2.5),
            .circle(p(0, 0), radians: 0),
        ]
    }()

    /// Points on and next to cell edges and corners at many levels, the
    /// shape's vertices, and points along its edges' great circles.
    func samples(_ shape: GeoShape, _ random: inout SeededRandom) -> [(Double, Double)] {
        var vertices: [GeoPoint] = []
        switch shape {
        case .box(let a, let b): vertices = [a, p(a.longitude, b.latitude), b, p(b.longitude, a.latitude)]
        case .polygon(let rings): vertices = rings.flatMap { $0 }
        case .circle(let c, let r):
            let d = r * 180 / .pi
            vertices = [c, p(c.longitude, min(90, c.latitude + d)), p(c.longitude, max(-90, c.latitude - d)),
                        p(max(-180, min(180, c.longitude + d)), c.latitude), p(max(-180, min(180, c.longitude - d)), c.latitude)]
        }
        var points: [(Double, Double)] = []
        func add(_ longitude: Double, _ latitude: Double) {
            for lon in [longitude.nextDown, longitude, longitude.nextUp] {
                for lat in [latitude.nextDown, latitude, latitude.nextUp] where abs(lon) <= 180 && abs(lat) <= 90 { points.append((lon, lat)) }
            }
        }
        // Along each pair of neighbouring vertices: the great circle between them, and its bulge's parallel.
        for (a, b) in zip(vertices, vertices.dropFirst() + vertices.prefix(1)) {
            let va = SphereVector(longitude: a.longitude, latitude: a.latitude), vb = SphereVector(longitude: b.longitude, latitude: b.latitude)
            for _ in 0..<40 {
                let t = Double.random(in: 0...1, using: &random)
                let v = (va.scaled(1 - t) + vb.scaled(t))
                guard v.lengthSquared > 1e-12 else { continue }
                let u = v.normalized()
                add(atan2(u.y, u.x) * 180 / .pi, asin(max(-1, min(1, u.z))) * 180 / .pi)
            }
        }
        for v in vertices {
            add(v.longitude, v.latitude)
            // Cell corners around the vertex at several levels.
            for level in [6, 8, 10, 12, 16, 20] {
                let shift = UInt64(31 - level)
                let x = (UInt64(GeoCells.step(longitude: v.longitude)) >> shift) << shift
                let y = (UInt64(GeoCells.step(latitude: v.latitude)) >> shift) << shift
                for dx in [0, 1, 2] as [UInt64] {
                    for dy in [0, 1, 2] as [UInt64] {
                        let sx = x &+ (dx << shift) &- (1 << shift), sy = y &+ (dy << shift) &- (1 << shift)
                        if sx <= UInt64(GeoCells.maxStep) + 1, sy <= UInt64(GeoCells.maxStep) + 1 { add(longitude(step: sx), latitude(step: sy)) }
                    }
                }
            }
        }
        // Random points and random cell corners near the shape.
        let center = vertices[0]
        for _ in 0..<3000 {
            let spread = Double.random(in: 0...40, using: &random)
            var lon = center.longitude + Double.random(in: -1...1, using: &random) * spread
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            let lat = max(-90, min(90, center.latitude + Double.random(in: -1...1, using: &random) * spread))
            if Bool.random(using: &random) {
                let shift = UInt64(Int.random(in: 4...28, using: &random))
                let sx = (UInt64(GeoCells.step(longitude: lon)) >> shift) << shift, sy = (UInt64(GeoCells.step(latitude: lat)) >> shift) << shift
                add(longitude(step: sx), latitude(step: sy))
            } else {
                points.append((lon, lat))
            }
        }
        return points
    }

    /// Every sample in a `whole` range is inside; every sample inside is in a range.
    func testWholeRangesHoldOnlyPointsInside() throws {
        var random = SeededRandom(seed: 23)
        var wholeHits = 0
        for shape in Self.shapes {
            let region = try shape.validated()
            let ranges = GeoCells.ranges(region)
            XCTAssertLessThan(ranges.count, 2000, "\(shape)")
            for (a, b) in zip(ranges, ranges.dropFirst()) { XCTAssertLessThan(a.cells.upperBound, b.cells.lowerBound, "\(shape)") }
            for (longitude, latitude) in samples(shape, &random) {
                let cell = GeoCells.cell(longitude: longitude, latitude: latitude)
                var low = 0, high = ranges.count
                while low < high {
                    let mid = (low + high) / 2
                    if ranges[mid].cells.upperBound < cell { low = mid + 1 } else { high = mid }
                }
                let range = low < ranges.count && ranges[low].cells.contains(cell) ? ranges[low] : nil
                let inside = region.contains(longitude: longitude, latitude: latitude)
                if let range, range.whole {
                    wholeHits += 1
                    XCTAssertTrue(inside, "\(shape): \(longitude), \(latitude) is in a whole range but outside the region")
                }
                if inside { XCTAssertNotNil(range, "\(shape): \(longitude), \(latitude) is inside but in no range") }
            }
        }
        XCTAssertGreaterThan(wholeHits, 5000)
    }

    /// The relation of cells at several depths, checked on their corners,
    /// edges and random points: `.inside` cells hold only points inside,
    /// `.outside` cells none.
    func testCellRelationsAgreeWithPoints() throws {
        var random = SeededRandom(seed: 29)
        var decided = 0
        for shape in Self.shapes {
            let region = try shape.validated()
            let near = samples(shape, &random)
            for _ in 0..<300 {
                let depth = Int.random(in: 3...14, using: &random)
                let shift = UInt64(31 - depth)
                let (lon, lat) = near.randomElement(using: &random)!
                let lowX = (UInt64(GeoCells.step(longitude: lon)) >> shift) << shift, lowY = (UInt64(GeoCells.step(latitude: lat)) >> shift) << shift
                let highX = lowX + (1 << shift) - 1, highY = lowY + (1 << shift) - 1
                let west = longitude(step: lowX), east = longitude(step: highX + 1)
                let south = latitude(step: lowY), north = latitude(step: highY + 1)
                let relation = region.relation(west: west, east: east, south: south, north: north)
                guard relation != .crossing else { continue }
                decided += 1
                var points: [(Double, Double)] = [(west, south), (west, north), (east, south), (east, north)]
                for _ in 0..<60 {
                    let x = Double.random(in: 0...1, using: &random), y = Double.random(in: 0...1, using: &random)
                    points.append((west + (east - west) * x, south + (north - south) * y))
                    points.append((west + (east - west) * x, [south, north].randomElement(using: &random)!))
                    points.append(([west, east].randomElement(using: &random)!, south + (north - south) * y))
                }
                for (x, y) in points where abs(x) <= 180 && abs(y) <= 90 {
                    // Only points whose cell is this one (a cell's east and north edges belong to its neighbours).
                    let sx = UInt64(GeoCells.step(longitude: x)), sy = UInt64(GeoCells.step(latitude: y))
                    guard sx >= lowX, sx <= highX, sy >= lowY, sy <= highY else { continue }
                    XCTAssertEqual(region.contains(longitude: x, latitude: y), relation == .inside,
                                   "\(shape): cell \(west)...\(east) x \(south)...\(north) is \(relation), point \(x), \(y)")
                }
            }
        }
        XCTAssertGreaterThan(decided, 500)
    }

    /// A cell inside the outer ring that touches a hole (the hole's edges
    /// on the cell's edges; the hole's top edge bulging into the cell
    /// above) is never taken whole; cells clear of it are.
    func testCellsTouchingAHoleAreNotWhole() throws {
        let region = try GeoShape.polygon([[p(-11.25, -11.25), p(11.25, -11.25), p(11.25, 11.25), p(-11.25, 11.25), p(-11.25, -11.25)],
                                           [p(0, 0), p(1.40625, 0), p(1.40625, 0.703125), p(0, 0.703125), p(0, 0)]]).validated()
        func relation(_ cx: UInt64, _ cy: UInt64) -> GeoCellRelation {
            let shift: UInt64 = 23   // depth 8
            return region.relation(west: longitude(step: cx << shift), east: longitude(step: (cx + 1) << shift),
                                   south: latitude(step: cy << shift), north: latitude(step: (cy + 1) << shift))
        }
        XCTAssertEqual(relation(128, 128), .crossing)   // the hole itself
        XCTAssertEqual(relation(128, 129), .crossing)   // above: the hole's top edge bulges into it
        XCTAssertEqual(relation(127, 128), .crossing)   // west: shares the hole's west edge
        XCTAssertEqual(relation(129, 128), .crossing)   // east
        XCTAssertEqual(relation(128, 127), .crossing)   // south: shares the equator edge
        XCTAssertEqual(relation(127, 127), .crossing)   // a corner
        XCTAssertEqual(relation(131, 131), .inside)
        XCTAssertEqual(relation(125, 124), .inside)
        XCTAssertEqual(relation(100, 128), .outside)     // west of the outer ring
        // The box's top edge bulges: a cell just above the parallel of its
        // corners, under the arc, is not outside.
        let box = try GeoShape.box(p(-60, 40), p(60, 70)).validated()
        XCTAssertTrue(box.contains(longitude: 0, latitude: 75))
        XCTAssertNotEqual(box.relation(west: -0.1, east: 0.1, south: 74.9, north: 75.1), .outside)
        // (Under the arc's own rectangle: tested point by point, conservatively.)
        XCTAssertEqual(box.relation(west: -0.1, east: 0.1, south: 74.9, north: 75.1), .crossing)
        XCTAssertEqual(box.relation(west: -0.1, east: 0.1, south: 59.9, north: 60.1), .inside)
        XCTAssertEqual(box.relation(west: -0.1, east: 0.1, south: 39.9, north: 40.1), .crossing)
        // A circle: the farthest point decides, not the center.
        let circle = try GeoShape.circle(p(0, 0), radians: 1 * .pi / 180).validated()
        XCTAssertEqual(circle.relation(west: -0.5, east: 0.5, south: -0.4, north: 0.4), .inside)
        XCTAssertEqual(circle.relation(west: 0.5, east: 1.2, south: -0.1, north: 0.1), .crossing)
        XCTAssertEqual(circle.relation(west: 1.2, east: 2, south: -0.1, north: 0.1), .outside)
        // Across the antimeridian.
        let wrap = try GeoShape.box(p(170, -10), p(-170, 10)).validated()
        XCTAssertEqual(wrap.relation(west: 179, east: 180, south: 0, north: 1), .inside)
        XCTAssertEqual(wrap.relation(west: -180, east: -179, south: 0, north: 1), .inside)
        XCTAssertEqual(wrap.relation(west: 0, east: 1, south: 0, north: 1), .outside)
    }
}
