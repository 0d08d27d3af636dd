import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

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
