import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

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
