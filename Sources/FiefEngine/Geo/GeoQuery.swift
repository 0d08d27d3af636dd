import CLMDB
import FiefStorage
import Synchronization

// GEOWITHIN: binding `location GEOWITHIN <shape>` (and `location IN $n` with
// a shape argument, RealmSwift's spelling) and finding the points inside.
//
// The left side is a key path ending at a link to objects of an embedded
// class shaped as a GeoJSON point (a string `type` and a list of doubles
// `coordinates`): a to-one link (`location`), or objects reached through
// lists, sets, maps of links or backlinks (`ANY partners.location`,
// `locations`), quantified as realm-core quantifies them: ANY (the default)
// when some object reached is inside, NONE when none is (an empty path
// included), ALL when at least one is reached and every one is inside (an
// empty path does not match: realm-core's GeoWithinCompare starts from
// "not found").  An object that is no point (another `type`, fewer than two
// coordinates, coordinates out of range) is inside no shape, without error.
//
// It binds backward, as other key paths compared with values given with the
// query do (`GraphNode.reach`): once per scan, the embedded class's points
// inside the region are found, and carried back through their backlinks.
// An embedded GeoJSON class has a spatial index (GeoIndex.swift): the
// points come from the cell ranges covering the region's rectangle, each
// candidate tested exactly on the unit vector the index stores.  The
// common case, one to-one link from the class tested (`location GEOWITHIN
// ...`), takes the owners from the index entries themselves, with no
// backlink read.  Without an index (a file opened read-only that was
// written before spatial indexes), the class is scanned: the `type` column
// read columnar per cluster, the `coordinates` segments with one cursor
// walking the list's database in key order (in a write transaction, each
// list through the transaction's view).  The region is validated once when
// the query is compiled.

/// What a GEOWITHIN reads at the end of its key path: the embedded class,
/// its GeoJSON properties, and the region, validated.
struct GeoTarget {
    let table: UInt32
    let type: Property
    let coordinates: Property
    let region: GeoRegion
}

extension QueryBinder {
    /// `lhs GEOWITHIN shape`: the objects whose key path reaches a GeoJSON
    /// point inside the shape (quantified: see above).
    ///
    /// - Throws: `.queryInvalid` for a left side that is not a link to an
    ///   embedded, GeoJSON-shaped class, or an invalid literal shape;
    ///   `.queryArgument` for a shape argument of the wrong type, that does
    ///   not parse (a string) or is invalid, and for a coordinate argument
    ///   that is not a number.
    static func geoWithin(_ lhs: QueryOperand, _ shape: QueryGeoShape, _ scope: Scope) throws(FiefError) -> QueryNode {
        guard case .objects(let table) = scope.target, let realm = scope.realm else {
            throw FiefError(.queryInvalid, "GEOWITHIN tests objects through a link to GeoJSON points; these results hold values")
        }
        let keyPath: QueryKeyPath
        var quantifier: QueryQuantifier? = nil
        switch lhs {
        case .keyPath(let path):
            keyPath = path
        case .quantified(let q, .keyPath(let path)):
            keyPath = path
            quantifier = q
        default:
            throw FiefError(.queryInvalid, "The left hand side of GEOWITHIN must be a key path to a link to geoJSON formatted data, not '\(describe(lhs))'")
        }
        let bound = try resolve(keyPath, from: table, realm, scope.arguments)
        let expression = bound.expression
        var hops = expression.hops
        let pointClass: UInt32
        switch expression.value {
        case .property(let property, let linkTarget) where property.type == .link && expression.typeOf == nil:
            hops.append(GraphHop(kind: .link, from: expression.lastClass, to: linkTarget, property: property.key))
            pointClass = linkTarget
        case .object where expression.typeOf == nil:
            pointClass = expression.lastClass
        default:
            let type = expression.typeOf != nil ? "int" : expression.valueProperty.type.name
            throw FiefError(.queryInvalid, "The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is '\(type)' ('\(expression.text)')")
        }
        let target = try realm.table(pointClass)
        guard let (typeProperty, coordinatesProperty) = target.objectClass.geoJSONPointProperties else {
            throw FiefError(.queryInvalid, "Query '\(expression.text) GEOWITHIN ...' links to data in the wrong format for a geoWithin query: '\(target.objectClass.name)' needs a string property 'type' and a list of doubles 'coordinates' (a GeoJSON point)")
        }
        guard target.objectClass.isEmbedded else {
            throw FiefError(.queryInvalid, "A GEOWITHIN query can only operate on a link to an embedded class but '\(target.objectClass.name)' is at the top level")
        }
        let isToMany = hops.contains { $0.isToMany }
        if !isToMany { try refuseQuantifier(quantifier, expression.text) }
        let region = try geoRegion(shape, scope.arguments)
        let geo = GeoTarget(table: pointClass, type: typeProperty, coordinates: coordinatesProperty, region: region)
        if hops.contains(where: { $0.isForwardOnly }) {
            // A list position or map key on the way (`locations[0]`,
            // `locations[LAST]`, `places['home'].location`): read forward,
            // object by object, each point reached looked up among the
            // points inside (found once per scan).
            var dependencies: [UInt32: Set<UInt32>] = [:]
            GraphHop.collectColumns(hops, into: &dependencies)
            dependencies[pointClass, default: []].formUnion([typeProperty.key, coordinatesProperty.key])
            return .graph(GraphNode(.geoTest(expression, geo, quantifier: quantifier ?? .any), dependencies: dependencies))
        }
        let reach: PathReach
        switch quantifier ?? .any {
        case .any:
            reach = PathReach(hops: hops, target: .geoWithin(geo, inside: true), complement: false, nullLinksMatch: false, orReachesNothing: false)
        case .none:
            reach = PathReach(hops: hops, target: .geoWithin(geo, inside: true), complement: true, nullLinksMatch: false, orReachesNothing: false)
        case .all:
            // Not (reaching a point outside, or reaching nothing).
            reach = PathReach(hops: hops, target: .geoWithin(geo, inside: false), complement: true, nullLinksMatch: false, orReachesNothing: true)
        }
        var dependencies: [UInt32: Set<UInt32>] = [:]
        GraphHop.collectColumns(hops, into: &dependencies)
        dependencies[pointClass, default: []].formUnion([typeProperty.key, coordinatesProperty.key])
        return .graph(GraphNode(.reach(reach), dependencies: dependencies))
    }

    /// The region of `shape`, validated: written in the query (its numbers
    /// maybe arguments), or an argument (a shape, or a string holding one).
    static func geoRegion(_ shape: QueryGeoShape, _ arguments: [QueryArgument]) throws(FiefError) -> GeoRegion {
        let written: GeoShape
        switch shape {
        case .argument(let n):
            let given = try geoShapeArgument(n, arguments)
            do {
                return try GeoRegionCache.region(given)
            } catch {
                throw FiefError(.queryArgument, "Invalid region in GEOWITHIN query for parameter '\(given.polygonForm)' (argument \(n)): '\(error.message)'")
            }
        case .box(let a, let b):
            written = .box(try geoPoint(a, arguments), try geoPoint(b, arguments))
        case .polygon(let rings):
            var points: [[GeoPoint]] = []
            for ring in rings {
                var read: [GeoPoint] = []
                for point in ring { read.append(try geoPoint(point, arguments)) }
                points.append(read)
            }
            written = .polygon(points)
        case .circle(let center, let radius):
            written = .circle(try geoPoint(center, arguments), radians: try geoNumber(radius, arguments))
        }
        do {
            return try GeoRegionCache.region(written)
        } catch {
            throw FiefError(.queryInvalid, "Invalid region in GEOWITHIN query for parameter '\(written.polygonForm)': '\(error.message)'")
        }
    }

    /// Argument `n` as a shape: a shape argument, or a string holding one in
    /// the query language's notation (as realm-core accepts).
    private static func geoShapeArgument(_ n: Int, _ arguments: [QueryArgument]) throws(FiefError) -> GeoShape {
        guard n >= 0, n < arguments.count else {
            throw FiefError(.queryArgument, "the predicate uses argument \(n), but \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given")
        }
        let argument = arguments[n]
        if let shape = argument.geoShape { return shape }
        if !argument.isList, argument.values.count == 1, case .string(let bytes) = argument.values[0] {
            guard UTF8Check.isValid(bytes) else { throw FiefError(.invalidUTF8, "argument \(n) is not valid UTF-8") }
            do {
                return try GeoShape(parsing: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw FiefError(.queryArgument, "Invalid syntax in serialized geospatial object at argument \(n): '\(error.message)'")
            }
        }
        let type = argument.isList ? "list" : (argument.values.first?.typeName ?? "list")
        throw FiefError(.queryArgument, "The right hand side of 'geoWithin' must be a geospatial constant value. But the provided type is '\(type)' (argument \(n); give a box, polygon or circle, or its text)")
    }

    private static func geoPoint(_ point: QueryGeoPoint, _ arguments: [QueryArgument]) throws(FiefError) -> GeoPoint {
        GeoPoint(longitude: try geoNumber(point.longitude, arguments), latitude: try geoNumber(point.latitude, arguments),
                 altitude: try point.altitude.map { (number) throws(FiefError) in try geoNumber(number, arguments) })
    }

    /// A coordinate or radius: written, or an int, float or double argument.
    private static func geoNumber(_ number: QueryGeoNumber, _ arguments: [QueryArgument]) throws(FiefError) -> Double {
        switch number {
        case .value(let value):
            return value
        case .argument(let n):
            guard n >= 0, n < arguments.count else {
                throw FiefError(.queryArgument, "the predicate uses argument \(n), but \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given")
            }
            let argument = arguments[n]
            if argument.geoShape != nil {
                throw FiefError(.queryArgument, "Invalid parameter 'geospatial' used in coordinate at argument '$\(n)'")
            }
            guard !argument.isList, argument.values.count == 1 else {
                throw FiefError(.queryArgument, "Invalid parameter 'list' used in coordinate at argument '$\(n)'")
            }
            switch argument.values[0] {
            case .int(let i): return Double(i)
            case .float(let f): return Double(f)
            case .double(let d): return d
            case .null: throw FiefError(.queryArgument, "NULL cannot be used in coordinate at argument '$\(n)'")
            case let other: throw FiefError(.queryArgument, "Invalid parameter '\(other.typeName)' used in coordinate at argument '$\(n)'")
            }
        }
    }
}

extension QueryScan {
    /// The objects of `target`'s class whose GeoJSON point lies in its
    /// region (`inside`), or every other object of the class.
    func geoMatches(_ target: GeoTarget, inside: Bool) throws(FiefError) -> ObjectSet {
        let table = try realm.table(target.table)
        let clusters = try realm.clusters(table)
        var insideSet = ObjectSet()
        if let index = table.geoIndex {
            insideSet = try indexedPoints(index, of: table.key, target.region)
        } else if realm.write != nil {
            let pointTyped = try pointTypedObjects(target, table, clusters)
            insideSet = try geoMatchesInWrite(target, table, clusters, pointTyped)
        } else {
            let pointTyped = try pointTypedObjects(target, table, clusters)
            let region = target.region
            var bits = Bitmap(repeating: 0)
            var cluster: Int64 = -1
            try forEachPointInSnapshot(target, table, clusters, pointTyped) { key, longitude, latitude in
                if ClusterLayout.cluster(of: key) != cluster {
                    insideSet.insert(cluster: cluster, bits)
                    bits = Bitmap(repeating: 0)
                    cluster = ClusterLayout.cluster(of: key)
                }
                if region.contains(longitude: longitude, latitude: latitude) { QueryEvaluator.set(&bits, ClusterLayout.slot(of: key)) }
            }
            insideSet.insert(cluster: cluster, bits)
        }
        guard !inside else { return insideSet }
        var others = ObjectSet()
        for (cluster, live) in clusters { others.insert(cluster: cluster, live & ~insideSet.bits(cluster)) }
        return others
    }

    /// Per cluster of `clusters`: the objects whose `type` says "Point".
    private func pointTypedObjects(_ target: GeoTarget, _ table: Table, _ clusters: [(cluster: Int64, live: Bitmap)]) throws(FiefError) -> [Bitmap] {
        var pointTyped: [Bitmap] = []
        pointTyped.reserveCapacity(clusters.count)
        for (cluster, live) in clusters {
            let chunk = try realm.chunk(table, column: target.type.key, cluster: cluster)
            var bits = Bitmap(repeating: 0)
            for word in 0..<4 {
                var w = live[word]
                while w != 0 {
                    let slot = word << 6 | w.trailingZeroBitCount
                    w &= w - 1
                    if case .string(let bytes) = chunk.value(slot, type: .string, nullable: target.type.isNullable),
                       GeoPoint.isGeoJSONPointType(utf8: bytes) {
                        QueryEvaluator.set(&bits, slot)
                    }
                }
            }
            pointTyped.append(bits)
        }
        return pointTyped
    }

    /// In a snapshot: `visit` each object of `table` holding a point (its
    /// type "Point", its first two coordinates in range), in key order, with
    /// its longitude and latitude.  One cursor walks the coordinates'
    /// segments in key order (an owner's segments are together, its first
    /// elements first): no seek per object.
    private func forEachPointInSnapshot(_ target: GeoTarget, _ table: Table, _ clusters: [(cluster: Int64, live: Bitmap)], _ pointTyped: [Bitmap],
                                        _ visit: (Int64, Double, Double) -> Void) throws(FiefError) {
        guard let first = clusters.first else { return }
        let column = try table.column(target.coordinates.key)
        let dbi = try table.listDatabase(target.coordinates.key)
        let snapshot = try realm.currentSnapshot()
        try snapshot.withTransaction { (txn) throws(FiefError) in
            let cursor = try LMDBCursor(txn, dbi)
            var seekKey = (UInt64(0), UInt64(0))
            var entry = try withUnsafeMutableBytes(of: &seekKey) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                ListStore.key(raw.baseAddress!, owner: first.cluster << ClusterLayout.shift, position: 0)
                return try cursor.seek(UnsafeRawBufferPointer(raw))
            }
            var clusterIndex = 0
            var point = GeoCoordinates()
            var owner: Int64 = -1
            @inline(__always) func finish() {
                if point.isPoint { visit(owner, point.longitude, point.latitude) }
            }
            while let (k, v) = entry {
                guard let decoded = ListStore.decodeKey(k) else { throw realm.damagedEntry(table, column, owner, "a stored segment key") }
                if decoded.owner != owner {
                    if owner >= 0 { finish() }
                    owner = decoded.owner
                    point = GeoCoordinates()
                    let cluster = ClusterLayout.cluster(of: owner)
                    if cluster != clusters[clusterIndex].cluster {
                        while clusterIndex < clusters.count && clusters[clusterIndex].cluster < cluster { clusterIndex += 1 }
                        if clusterIndex == clusters.count { owner = -1; break }
                        if clusters[clusterIndex].cluster > cluster {
                            // Owners of a cluster without objects (none, in a sound file): seek past them.
                            entry = try withUnsafeMutableBytes(of: &seekKey) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                                ListStore.key(raw.baseAddress!, owner: clusters[clusterIndex].cluster << ClusterLayout.shift, position: 0)
                                return try cursor.seek(UnsafeRawBufferPointer(raw))
                            }
                            owner = -1
                            continue
                        }
                    }
                    let slot = ClusterLayout.slot(of: owner)
                    if pointTyped[clusterIndex][slot >> 6] & (1 << UInt64(slot & 63)) == 0 { point.count = 3 }   // not a point: skip its segments
                }
                if point.count < 3 {
                    guard snapshot.bounds.contains(v),
                          let reader = SegmentReader(v, type: .double, table: table.key,
                                                     key: ListStore.checkKey(column: column.key, owner: owner, position: decoded.position)) else {
                        throw realm.damagedEntry(table, column, owner, "a stored segment")
                    }
                    var i = 0
                    while i < reader.count && point.count < 3 {
                        point.add(reader.value(i))
                        i += 1
                    }
                }
                entry = try cursor.next()
            }
            if owner >= 0 { finish() }
        }
    }

    // MARK: Through the spatial index

    /// The point objects of `index`'s class inside `region`, from the
    /// index: the candidates of the cells covering the region's rectangle,
    /// each tested exactly on its stored unit vector.  With `owners`
    /// (class, property): the owners through that property of those points
    /// instead.  A snapshot's index is read from the memory map
    /// (`GeoIndexPages`), a write transaction's through a cursor.
    private func indexedPoints(_ index: GeoIndexInfo, of table: UInt32, _ region: GeoRegion, owners: (UInt32, UInt32)? = nil) throws(FiefError) -> ObjectSet {
        let ranges = region.covering.ranges { GeoCells.ranges(region) }
        var found = GeoKeyBits()
        defer { found.deallocate() }
        func read(_ walk: ((Int64, UnsafeRawBufferPointer, Bool) -> Void) throws(FiefError) -> Void) throws(FiefError) {
            if let (ownerClass, ownerProperty) = owners {
                try walk { _, value, whole in
                    guard value.loadUnaligned(as: UInt32.self) == ownerClass, value.loadUnaligned(fromByteOffset: 4, as: UInt32.self) == ownerProperty,
                          whole || region.contains(vector: GeoIndexEntry.vector(value)) else { return }
                    found.insert(value.loadUnaligned(fromByteOffset: 8, as: Int64.self))
                }
            } else {
                try walk { object, value, whole in
                    if whole || region.contains(vector: GeoIndexEntry.vector(value)) { found.insert(object) }
                }
            }
        }
        if let write = realm.write {
            try read { (body) throws(FiefError) in try GeoIndex.forEachCandidate(write.txn, index.database, ranges, body) }
        } else {
            let snapshot = try realm.currentSnapshot()
            try snapshot.withTransaction { (txn) throws(FiefError) in
                if let pages = try GeoIndexPages(txn, name: Table.geoIndexName(table, index.coordinates.key), bounds: snapshot.bounds,
                                                 pageSize: snapshot.environment.pageSize) {
                    try read { (body) throws(FiefError) in try pages.forEachCandidate(ranges, body) }
                } else {
                    try read { (body) throws(FiefError) in try GeoIndex.forEachCandidate(txn, index.database, ranges, body) }
                }
            }
        }
        if found.outOfRange { throw FiefError(.fileCorrupt, "a spatial index entry names an object key out of range") }
        return found.objects()
    }

    /// For a GEOWITHIN over one to-one link (`location GEOWITHIN ...`, the
    /// common case) to an indexed class: the owners whose link reaches a
    /// point inside, straight from the index's owner fields (no backlink
    /// read).  Nil when the reach is of another shape or the class has no
    /// index (then the general path finds the points and carries the
    /// matches back through their backlinks).
    func geoReachedOwners(_ reach: PathReach) throws(FiefError) -> ObjectSet? {
        guard case .geoWithin(let target, true) = reach.target, !reach.complement, !reach.orReachesNothing, !reach.nullLinksMatch,
              reach.hops.count == 1, reach.hops[0].kind == .link,
              let index = try realm.table(target.table).geoIndex else { return nil }
        let hop = reach.hops[0]
        return try indexedPoints(index, of: target.table, target.region, owners: (hop.from, hop.property))
    }

    /// In a write transaction: each object's coordinates through the
    /// transaction's view of its list.
    private func geoMatchesInWrite(_ target: GeoTarget, _ table: Table, _ clusters: [(cluster: Int64, live: Bitmap)],
                                   _ pointTyped: [Bitmap]) throws(FiefError) -> ObjectSet {
        var objects = ObjectSet()
        let walker = try CollectionWalker(realm, table, property: target.coordinates.key)
        for (index, (cluster, _)) in clusters.enumerated() {
            var bits = Bitmap(repeating: 0)
            let base = cluster << ClusterLayout.shift
            for word in 0..<4 {
                var w = pointTyped[index][word]
                while w != 0 {
                    let slot = word << 6 | w.trailingZeroBitCount
                    w &= w - 1
                    var point = GeoCoordinates()
                    try walker.forEach(owner: base | Int64(slot)) { value in
                        point.add(value)
                        return point.count < 3
                    }
                    if point.isPoint && target.region.contains(longitude: point.longitude, latitude: point.latitude) {
                        QueryEvaluator.set(&bits, slot)
                    }
                }
            }
            objects.insert(cluster: cluster, bits)
        }
        return objects
    }
}

// MARK: Regions and coverings kept

/// A region's covering in a spatial index (`GeoCells.ranges`), computed on
/// first use and kept with the region: the copies of a region (compiled
/// queries, the shape cache below) share it.
final class GeoCoveringMemo: Sendable {
    private let ranges = Mutex<[GeoCells.Range]?>(nil)

    /// The ranges, made by `make` the first time.
    func ranges(_ make: () -> [GeoCells.Range]) -> [GeoCells.Range] {
        if let known = ranges.withLock({ $0 }) { return known }
        let made = make()
        ranges.withLock { $0 = made }
        return made
    }
}

/// The regions of the shapes queried lately, validated, by the exact bits
/// of their numbers: an application asking about the same box or circle
/// again (a map's viewport, a benchmark's boxes) gets the same region, its
/// covering already computed, without validating the shape again.  Only
/// valid shapes are kept (an invalid one throws each time, with its own
/// message).  Process-wide: validation and covering depend on the shape
/// alone.
enum GeoRegionCache {
    /// At this many shapes the cache starts afresh.
    static let capacity = 64

    private static let regions = Mutex<[Key: GeoRegion]>([:])

    /// A shape by the bit patterns of its numbers (so 0 and -0, or two
    /// NaNs, are told apart as the shape's text would tell them).
    struct Key: Hashable {
        let numbers: [UInt64]

        init(_ shape: GeoShape) {
            var numbers: [UInt64] = []
            func add(_ point: GeoPoint) {
                numbers.append(point.longitude.bitPattern)
                numbers.append(point.latitude.bitPattern)
                // An altitude, or a NaN pattern no altitude has (a NaN altitude is none).
                numbers.append(point.altitude?.bitPattern ?? 0xFFFF_FFFF_FFFF_FFFF)
            }
            switch shape {
            case .box(let lo, let hi):
                numbers.reserveCapacity(7)
                numbers.append(0)
                add(lo)
                add(hi)
            case .polygon(let rings):
                numbers.append(1)
                for ring in rings {
                    numbers.append(UInt64(ring.count))
                    for point in ring { add(point) }
                }
            case .circle(let center, let radians):
                numbers.reserveCapacity(5)
                numbers.append(2)
                add(center)
                numbers.append(radians.bitPattern)
            }
            self.numbers = numbers
        }
    }

    /// `shape.validated()`, kept for the next query of the same shape.
    static func region(_ shape: GeoShape) throws(FiefError) -> GeoRegion {
        let key = Key(shape)
        if let known = regions.withLock({ $0[key] }) { return known }
        let region = try shape.validated()
        regions.withLock { regions in
            if regions.count >= capacity { regions.removeAll(keepingCapacity: true) }
            regions[key] = region
        }
        return region
    }
}

/// Object keys gathered as bits in memory of their own (no copy-on-write
/// check per key, as an array's element would make): what a walk of the
/// spatial index collects.  A key outside 0 ..< 2^40 (object keys stay
/// below it) is not kept but noted, for the caller to report the damage.
struct GeoKeyBits {
    private var words: UnsafeMutablePointer<UInt64>? = nil
    /// Words allocated (a multiple of 4: whole clusters).
    private var capacity = 0
    /// The words holding keys lie in low ... high.
    private var low = Int.max, high = -1
    private(set) var outOfRange = false

    @inline(__always)
    mutating func insert(_ key: Int64) {
        guard key >= 0, key < 1 << 40 else { outOfRange = true; return }
        let word = Int(key >> 6)
        if word >= capacity { grow(word) }
        words.unsafelyUnwrapped[word] |= 1 << UInt64(key & 63)
        low = min(low, word)
        high = max(high, word)
    }

    private mutating func grow(_ word: Int) {
        let wanted = (max(word + 1, capacity * 2, 64) + 3) & ~3
        let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: wanted)
        grown.initialize(repeating: 0, count: wanted)
        if let words {
            grown.update(from: words, count: capacity)
            words.deallocate()
        }
        words = grown
        capacity = wanted
    }

    /// The keys as a set, cluster by cluster.
    func objects() -> ObjectSet {
        var set = ObjectSet()
        guard let words, high >= 0 else { return set }
        var i = low & ~3
        while i <= high {
            if words[i] | words[i + 1] | words[i + 2] | words[i + 3] != 0 {
                set.insert(cluster: Int64(i >> 2), Bitmap(words[i], words[i + 1], words[i + 2], words[i + 3]))
            }
            i += 4
        }
        return set
    }

    mutating func deallocate() {
        words?.deallocate()
        words = nil
        capacity = 0
        low = Int.max
        high = -1
    }
}
