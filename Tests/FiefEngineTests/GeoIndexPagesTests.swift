import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Reading the spatial index from the memory map (`GeoIndexPages`, what a
/// snapshot's GEOWITHIN reads) against reading it through a cursor (what a
/// write transaction reads) and against a brute-force test of every stored
/// point: on a tree of three levels, after deletes and replaced points,
/// with lists of points per owner, null locations and objects that are no
/// points; counts equal the keys iterated, inside uncommitted write
/// transactions and after commits, and results stay live.  A damaged page
/// read from the map is an error, never a read outside it.
final class GeoIndexPagesTests: XCTestCase {
    private var db: DB!
    private var path = ""

    override func setUpWithError() throws {
        path = tempDir().file()
        db = try DB.open(path, GeoIndexTests.schema)
    }

    private func p(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }

    /// A point of the benchmark's region mostly (dense), sometimes anywhere.
    private func randomPoint(_ random: inout SeededRandom) -> [Double] {
        if Int.random(in: 0..<8, using: &random) == 0 { return GeoIndexTests.randomPoint(&random) }
        return [Double.random(in: -10...10, using: &random), Double.random(in: 35...55, using: &random)]
    }

    @discardableResult
    private func setLocation(_ place: Int64, _ coordinates: [Double], type: String = "Point") throws -> Int64 {
        let (_, location) = try db.realm.createEmbedded(table: db.cls("Place"), key: place, property: db.pkey("Place", "location"))
        try db.set("Position", location, "type", .string(type))
        try db.append("Position", location, "coordinates", coordinates.map { .double($0) })
        return location
    }

    private func addToList(_ place: Int64, _ coordinates: [Double]) throws {
        let count = try db.list("Place", place, "locations").count
        let (_, element) = try db.realm.list(CollectionRef(.list, table: db.cls("Place"), owner: place, property: db.pkey("Place", "locations"))).insertEmbedded(at: count)
        try db.set("Position", element, "type", .string("Point"))
        try db.append("Position", element, "coordinates", coordinates.map { .double($0) })
    }

    /// The point of Position `key` as its data says (nil: no point).
    private func storedPoint(_ key: Int64) throws -> (Double, Double)? {
        guard case .string(let type) = try db.get("Position", key, "type"), type.lowercased() == "point" else { return nil }
        let coordinates = try db.list("Position", key, "coordinates")
        guard coordinates.count >= 2, case .double(let longitude) = coordinates[0], case .double(let latitude) = coordinates[1],
              abs(longitude) <= 180, abs(latitude) <= 90 else { return nil }
        return (longitude, latitude)
    }

    /// Every place's stored points: its `location`'s (nil: none, or no
    /// point) and those of its `locations`.
    private func storedPoints() throws -> [(place: Int64, location: (Double, Double)?, locations: [(Double, Double)])] {
        func point(_ link: TV) throws -> (Double, Double)? {
            guard case .link(_, let key) = link else { return nil }
            return try storedPoint(key)
        }
        return try db.keys("Place").map { place in
            (place, try point(db.get("Place", place, "location")), try db.list("Place", place, "locations").compactMap(point))
        }
    }

    /// Brute force: the places whose `location` lies in `shape`, and those
    /// with any point of `locations` in it.
    private func bruteForce(_ shape: GeoShape, _ points: [(place: Int64, location: (Double, Double)?, locations: [(Double, Double)])]) throws
        -> (location: [Int64], locations: [Int64]) {
        let region = try shape.validated()
        let location = points.filter { $0.location.map { region.contains(longitude: $0.0, latitude: $0.1) } ?? false }.map(\.place)
        let locations = points.filter { $0.locations.contains { region.contains(longitude: $0.0, latitude: $0.1) } }.map(\.place)
        return (location, locations)
    }

    private static let shapes: [GeoShape] = [
        .box(GeoPoint(longitude: 1.25, latitude: 44.15), GeoPoint(longitude: 1.88, latitude: 44.78)),
        .box(GeoPoint(longitude: -3.3, latitude: 38.2), GeoPoint(longitude: -1.3, latitude: 40.2)),
        .box(GeoPoint(longitude: -6.1, latitude: 41.05), GeoPoint(longitude: 0.2, latitude: 47.4)),
        .box(GeoPoint(longitude: -7.7, latitude: 37.3), GeoPoint(longitude: 4.95, latitude: 50)),
        .box(GeoPoint(longitude: -11, latitude: 34), GeoPoint(longitude: 11, latitude: 56)),
        .box(GeoPoint(longitude: 170, latitude: -10), GeoPoint(longitude: -170, latitude: 10)),
        .polygon([[GeoPoint(longitude: -8, latitude: 36), GeoPoint(longitude: 8, latitude: 36), GeoPoint(longitude: 0, latitude: 54),
                   GeoPoint(longitude: -8, latitude: 36)]]),
        .circle(GeoPoint(longitude: 0, latitude: 45), radians: 0.08),
        .circle(GeoPoint(longitude: 0, latitude: 90), radians: 0.3),
    ]

    /// For every shape: `count()` equals the keys iterated and the brute
    /// force, for `location` and for `ANY locations`.
    private func checkCounts(_ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let points = try storedPoints()
        for shape in Self.shapes {
            let expected = try bruteForce(shape, points)
            for (predicate, keys) in [("location GEOWITHIN $0", expected.location), ("ANY locations GEOWITHIN $0", expected.locations)] {
                let results = try db.results("Place").filtered(predicate, arguments: [QueryArgument(geoShape: shape)])
                XCTAssertEqual(try results.count(), keys.count, "\(context): \(predicate) \(shape)", file: file, line: line)
                XCTAssertEqual(try results.allKeys().sorted(), keys, "\(context): \(predicate) \(shape)", file: file, line: line)
                XCTAssertEqual(try results.count(), keys.count, "\(context): \(predicate) \(shape), counted again", file: file, line: line)
            }
        }
    }

    /// Places with a location (a point, another type, or none), some with
    /// lists of points; several transactions so the tree has three levels.
    private func load(_ count: Int, _ random: inout SeededRandom) throws -> [Int64] {
        var places: [Int64] = []
        for batch in 0..<4 {
            try db.write {
                for i in 0..<count / 4 {
                    let place = try db.create("Place", [("n", .int(Int64(batch * count + i)))])
                    places.append(place)
                    switch Int.random(in: 0..<20, using: &random) {
                    case 0: break                                                              // null location
                    case 1: try setLocation(place, randomPoint(&random), type: "Line")          // not a point
                    case 2: try setLocation(place, [randomPoint(&random)[0]])                   // one coordinate
                    case 3, 4:                                                                  // a list of points too
                        try setLocation(place, randomPoint(&random))
                        for _ in 0..<Int.random(in: 1...3, using: &random) { try addToList(place, randomPoint(&random)) }
                    default: try setLocation(place, randomPoint(&random))
                    }
                }
            }
        }
        return places
    }

    private struct Candidate: Equatable {
        let object: Int64
        let value: [UInt8]
        let whole: Bool
    }

    /// The candidates of `ranges` read from the map and through a cursor, in one snapshot.
    private func candidates(_ ranges: [GeoCells.Range]) throws -> (map: [Candidate], cursor: [Candidate], depth: Int) {
        let table = try db.realm.table(db.cls("Position"))
        let geo = try XCTUnwrap(table.geoIndex)
        let name = Table.geoIndexName(table.key, geo.coordinates.key)
        let snapshot = try db.realm.currentSnapshot()
        return try snapshot.withTransaction { (txn) throws(FiefError) in
            guard let pages = try GeoIndexPages(txn, name: name, bounds: snapshot.bounds, pageSize: snapshot.environment.pageSize) else {
                throw FiefError(.internal, "the index cannot be read from the map")
            }
            var fromMap: [Candidate] = [], fromCursor: [Candidate] = []
            try pages.forEachCandidate(ranges) { fromMap.append(Candidate(object: $0, value: Array($1), whole: $2)) }
            try GeoIndex.forEachCandidate(txn, geo.database, ranges) { fromCursor.append(Candidate(object: $0, value: Array($1), whole: $2)) }
            return (fromMap, fromCursor, pages.depth)
        }
    }

    /// Random ascending, disjoint cell ranges: narrow and wide, around
    /// points of the data, past the last entry, the whole key space.
    private func randomRanges(_ random: inout SeededRandom) -> [GeoCells.Range] {
        var bounds: [UInt64] = []
        for _ in 0..<(2 * Int.random(in: 1...40, using: &random)) {
            let point = randomPoint(&random)
            var cell = GeoCells.cell(longitude: max(-180, min(180, point[0])), latitude: max(-90, min(90, point[1])))
            switch Int.random(in: 0..<4, using: &random) {
            case 0: cell = UInt64.random(in: 0...(1 << 62), using: &random)
            case 1: cell &+= UInt64.random(in: 0...(1 << 20), using: &random)
            default: break
            }
            bounds.append(cell)
        }
        bounds.sort()
        var ranges: [GeoCells.Range] = []
        var i = 0
        while i + 1 < bounds.count {
            if ranges.last.map({ $0.cells.upperBound < bounds[i] }) ?? true {
                ranges.append(GeoCells.Range(cells: bounds[i]...bounds[i + 1], whole: Bool.random(using: &random)))
            }
            i += 2
        }
        return ranges
    }

    // MARK: Map against cursor

    /// On a tree of three levels, after deletes and replaced points: the
    /// map's candidates are the cursor's, for random ranges and for the
    /// coverings of regions.
    func testMapReadsWhatTheCursorReads() throws {
        var random = SeededRandom(seed: 0x9E0_9A6E5)
        let places = try load(9000, &random)
        try db.write {
            for (i, place) in places.enumerated() where i % 5 == 0 {
                if i % 10 == 0 { try db.delete("Place", place) } else { try setLocation(place, randomPoint(&random)) }
            }
        }
        var rangeSets: [[GeoCells.Range]] = [
            [GeoCells.Range(cells: 0...UInt64.max, whole: true)],
            [GeoCells.Range(cells: UInt64.max...UInt64.max, whole: false)],
            [GeoCells.Range(cells: 0...0, whole: false)],
            [],
        ]
        for shape in Self.shapes { rangeSets.append(GeoCells.ranges(try shape.validated())) }
        for _ in 0..<150 { rangeSets.append(randomRanges(&random)) }
        var total = 0
        for ranges in rangeSets {
            let (fromMap, fromCursor, depth) = try candidates(ranges)
            XCTAssertGreaterThanOrEqual(depth, 3)
            XCTAssertEqual(fromMap, fromCursor, "\(ranges.count) ranges from \(ranges.first?.cells.lowerBound ?? 0)")
            total += fromMap.count
        }
        XCTAssertGreaterThan(total, 100_000)
        let everything = try candidates([GeoCells.Range(cells: 0...UInt64.max, whole: true)]).map
        XCTAssertGreaterThan(everything.count, 7000)
    }

    /// A tree of one page (the root a leaf), and an emptied index (LMDB
    /// drops its root: read through the cursor, nothing found).
    func testSmallAndEmptyTrees() throws {
        var random = SeededRandom(seed: 31)
        let places = try db.write {
            try (0..<12).map { i -> Int64 in
                let place = try db.create("Place", [("n", .int(Int64(i)))])
                try setLocation(place, randomPoint(&random))
                return place
            }
        }
        for ranges in [[GeoCells.Range(cells: 0...UInt64.max, whole: true)], GeoCells.ranges(try Self.shapes[4].validated())] + (0..<30).map({ _ in randomRanges(&random) }) {
            let (fromMap, fromCursor, depth) = try candidates(ranges)
            XCTAssertEqual(depth, 1)
            XCTAssertEqual(fromMap, fromCursor)
        }
        try checkCounts("one page")
        try db.write { for place in places { try db.delete("Place", place) } }
        let table = try db.realm.table(db.cls("Position"))
        let name = Table.geoIndexName(table.key, try XCTUnwrap(table.geoIndex).coordinates.key)
        let snapshot = try db.realm.currentSnapshot()
        try snapshot.withTransaction { (txn) throws(FiefError) in
            XCTAssertNil(try GeoIndexPages(txn, name: name, bounds: snapshot.bounds, pageSize: snapshot.environment.pageSize))
        }
        XCTAssertEqual(try db.results("Place").filtered("location GEOWITHIN $0", arguments: [QueryArgument(geoShape: Self.shapes[4])]).count(), 0)
    }

    // MARK: Counts

    /// Counts, keys and brute force agree after commits (read from the
    /// map) and inside write transactions (through the transaction), as
    /// owners are deleted, points replaced or cleared, lists changed; a
    /// results object made before a commit follows it.
    func testCountsAgreeWithIterationAndBruteForce() throws {
        var random = SeededRandom(seed: 0xC0_4E75)
        var places = try load(6000, &random)
        try checkCounts("loaded")
        let box = Self.shapes[3]
        let live = try db.results("Place").filtered("location GEOWITHIN $0", arguments: [QueryArgument(geoShape: box)])
        let before = try live.count()
        for round in 0..<3 {
            try db.realm.beginWrite()
            for _ in 0..<300 {
                guard let place = places.randomElement(using: &random) else { break }
                guard try db.exists("Place", place) else { continue }
                switch Int.random(in: 0..<7, using: &random) {
                case 0:
                    try db.delete("Place", place)
                    places.removeAll { $0 == place }
                case 1: try setLocation(place, randomPoint(&random))                     // replaced
                case 2: try db.set("Place", place, "location", .null)                    // cleared
                case 3: try addToList(place, randomPoint(&random))
                case 4:
                    if try !db.list("Place", place, "locations").isEmpty { try db.removeElement("Place", place, "locations", 0) }
                case 5:
                    if case .link(_, let location) = try db.get("Place", place, "location") {
                        try db.set("Position", location, "type", .string(Bool.random(using: &random) ? "Point" : "Polygon"))
                    }
                default:
                    let key = try db.create("Place", [("n", .int(-1))])
                    places.append(key)
                    try setLocation(key, randomPoint(&random))
                }
            }
            try checkCounts("round \(round), before the commit")
            try db.realm.commitWrite()
            try checkCounts("round \(round), committed")
        }
        XCTAssertEqual(try live.count(), try bruteForce(box, storedPoints()).location.count)
        XCTAssertNotEqual(try live.count(), before)
        db.realm.close()
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        XCTAssertEqual(problems, [])
    }

    /// The same shape asked twice gets the same region (kept, with its
    /// covering); shapes differing in one bit do not share one.
    func testRegionsAreKeptPerShape() throws {
        let shape = GeoShape.box(p(-3.3, 38.2), p(-1.3, 40.2))
        let first = try GeoRegionCache.region(shape)
        let ranges = first.covering.ranges { GeoCells.ranges(first) }
        let second = try GeoRegionCache.region(.box(p(-3.3, 38.2), p(-1.3, 40.2)))
        XCTAssertTrue(first.covering === second.covering)
        XCTAssertEqual(second.covering.ranges { XCTFail("computed again"); return [] }, ranges)
        let other = try GeoRegionCache.region(.box(p(-3.3, 38.2), p(-1.3, 40.2.nextUp)))
        XCTAssertFalse(other.covering === first.covering)
        let zero = try GeoRegionCache.region(.circle(p(0, 0), radians: 0.1))
        XCTAssertFalse(try GeoRegionCache.region(.circle(p(-0.0, 0), radians: 0.1)).covering === zero.covering)
        XCTAssertNotNil(expectError(.queryInvalid) { try GeoRegionCache.region(.circle(p(0, 0), radians: -1)) })
        XCTAssertNotNil(expectError(.queryInvalid) { try GeoRegionCache.region(.circle(p(0, 0), radians: -1)) })
    }

    // MARK: Damaged pages

    /// A tree built by hand: a branch page (2) over two leaves (3, 4) of
    /// point entries; read whole, then with one thing broken at a time.
    func testDamagedPagesAreErrors() throws {
        let pageSize = 4096
        func build(_ damage: (UnsafeMutableRawPointer) -> Void) throws -> [Int64] {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: 6 * pageSize, alignment: pageSize)
            defer { memory.deallocate() }
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: 6 * pageSize)
            func header(_ number: Int, _ flags: UInt16, _ nodes: Int) -> UnsafeMutableRawPointer {
                let page = memory + number * pageSize
                page.storeBytes(of: UInt64(number), as: UInt64.self)
                page.storeBytes(of: flags, toByteOffset: 10, as: UInt16.self)
                page.storeBytes(of: UInt16(16 + 2 * nodes), toByteOffset: 12, as: UInt16.self)
                return page
            }
            func leaf(_ number: Int, _ objects: [Int64]) {
                let page = header(number, 2, objects.count)
                var upper = pageSize
                for (i, object) in objects.enumerated() {
                    upper -= 8 + 17 + 40
                    page.storeBytes(of: UInt16(upper), toByteOffset: 16 + 2 * i, as: UInt16.self)
                    page.storeBytes(of: UInt32(40), toByteOffset: upper, as: UInt32.self)
                    page.storeBytes(of: UInt16(0), toByteOffset: upper + 4, as: UInt16.self)
                    page.storeBytes(of: UInt16(17), toByteOffset: upper + 6, as: UInt16.self)
                    GeoIndexEntry.pointKey(page + upper + 8, cell: UInt64(object) * 1000, object: object)
                    GeoIndexEntry(object: object, longitude: 0, latitude: 0, ownerClass: 1, ownerProperty: 2, owner: object).storeValue(page + upper + 25)
                }
                page.storeBytes(of: UInt16(upper), toByteOffset: 14, as: UInt16.self)
            }
            leaf(3, [1, 2, 3])
            leaf(4, [4, 5])
            let branch = header(2, 1, 2)
            // Node 0: child 3, no key; node 1: child 4, key of object 4's entry.
            var upper = pageSize - 8
            branch.storeBytes(of: UInt16(upper), toByteOffset: 16, as: UInt16.self)
            branch.storeBytes(of: UInt16(3), toByteOffset: upper, as: UInt16.self)
            upper -= 8 + 17
            branch.storeBytes(of: UInt16(upper), toByteOffset: 18, as: UInt16.self)
            branch.storeBytes(of: UInt16(4), toByteOffset: upper, as: UInt16.self)
            branch.storeBytes(of: UInt16(17), toByteOffset: upper + 6, as: UInt16.self)
            GeoIndexEntry.pointKey(branch + upper + 8, cell: 4000, object: 4)
            branch.storeBytes(of: UInt16(upper), toByteOffset: 14, as: UInt16.self)
            damage(memory)
            let pages = GeoIndexPages(map: UnsafeRawPointer(memory), pageSize: pageSize, pageCount: 5, root: 2, depth: 2)
            var objects: [Int64] = []
            try pages.forEachCandidate([GeoCells.Range(cells: 0...UInt64.max, whole: true)]) { object, _, _ in objects.append(object) }
            // A seek into the second leaf, and one past every entry.
            try pages.forEachCandidate([GeoCells.Range(cells: 4500...5000, whole: false), GeoCells.Range(cells: 6000...7000, whole: true)]) { object, _, _ in
                objects.append(-object)
            }
            return objects
        }
        XCTAssertEqual(try build { _ in }, [1, 2, 3, 4, 5, -5])
        let damages: [(String, (UnsafeMutableRawPointer) -> Void)] = [
            ("a child outside the file", { $0.storeBytes(of: UInt16(9), toByteOffset: 2 * pageSize + pageSize - 8, as: UInt16.self) }),
            ("a child that is a meta page", { $0.storeBytes(of: UInt16(1), toByteOffset: 2 * pageSize + pageSize - 8, as: UInt16.self) }),
            ("a leaf holding another number", { $0.storeBytes(of: UInt64(7), toByteOffset: 3 * pageSize, as: UInt64.self) }),
            ("a leaf marked as a branch", { $0.storeBytes(of: UInt16(1), toByteOffset: 4 * pageSize + 10, as: UInt16.self) }),
            ("a root marked as a leaf", { $0.storeBytes(of: UInt16(2), toByteOffset: 2 * pageSize + 10, as: UInt16.self) }),
            ("bounds crossed", { $0.storeBytes(of: UInt16(4000), toByteOffset: 3 * pageSize + 12, as: UInt16.self) }),
            ("a node past the page", { $0.storeBytes(of: UInt16(pageSize - 4), toByteOffset: 4 * pageSize + 16, as: UInt16.self) }),
            ("a node in the free space", { $0.storeBytes(of: UInt16(40), toByteOffset: 3 * pageSize + 18, as: UInt16.self) }),
            ("a key of another size", { $0.storeBytes(of: UInt16(16), toByteOffset: 4 * pageSize + pageSize - 65 + 6, as: UInt16.self) }),
            ("a value of another size", { $0.storeBytes(of: UInt32(41), toByteOffset: 3 * pageSize + pageSize - 65, as: UInt32.self) }),
            ("a branch key past the page", { $0.storeBytes(of: UInt16(5000), toByteOffset: 2 * pageSize + pageSize - 33 + 6, as: UInt16.self) }),
        ]
        for (what, damage) in damages {
            XCTAssertNotNil(expectError(.fileCorrupt, what) { try build(damage) }, what)
        }
    }
}
