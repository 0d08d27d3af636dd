import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// The spatial index of GEOWITHIN (`GeoIndex`): after random writes on every
/// write path (owners created and deleted, links set, cleared and replaced,
/// `type` and `coordinates` edited in place, invalid points, set-based
/// updates, delete-all), across commits and cancelled transactions, every
/// indexed answer equals a brute-force test of each object's stored point
/// and `fief verify` finds the index exact; points sit on cell boundaries,
/// at the poles and on the antimeridian.  Also: the covering of regions,
/// schema changes (the index built, dropped, rebuilt), an older file
/// without the index (read-only: scanned; writable: built), and
/// verify/copy.
final class GeoIndexTests: XCTestCase {
    static let schema = Schema(classes: [
        ObjectClass(name: "Place", properties: [
            prop("n", .int),
            Property(name: "location", type: .link, flags: .nullable, linkTarget: "Position"),
            Property(name: "locations", type: .link, linkTarget: "Position", collection: .list),
        ]),
        ObjectClass(name: "Position", properties: [
            prop("type", .string),
            Property(name: "coordinates", type: .double, collection: .list),
        ], isEmbedded: true),
    ])

    /// Shapes queried after every transaction: small and large boxes, one
    /// across the antimeridian, polygons (one with a hole, one around a
    /// pole), circles (one holding the north pole, one huge).
    static let shapes: [GeoShape] = [
        .box(p(-10, 35), p(10, 55)),
        .box(p(-1, -1), p(1, 1)),
        .box(p(170, -10), p(-170, 10)),
        .box(p(-60, -60), p(60, 60)),
        .polygon([[p(-20, -20), p(20, -20), p(20, 20), p(-20, 20), p(-20, -20)],
                  [p(-5, -5), p(5, -5), p(5, 5), p(-5, 5), p(-5, -5)]]),
        .polygon([[p(0, 80), p(120, 80), p(-120, 80), p(0, 80)]]),
        .polygon([[p(175, 60), p(-175, 60), p(-175, 70), p(175, 70), p(175, 60)]]),
        .circle(p(0, 90), radians: 0.2),
        .circle(p(179.9, 0), radians: 0.05),
        .circle(p(30, 40), radians: 2.5),
        .circle(p(0, 0), radians: 0),
    ]

    static func p(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }
    func p(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }

    /// A random coordinate pair: often on or next to a cell edge at
    /// several levels, at a pole, on the antimeridian or out of range.
    static func randomPoint(_ random: inout SeededRandom) -> [Double] {
        func edge(_ low: Double, _ span: Double) -> Double {
            let level = Int.random(in: 1...31, using: &random)
            let steps = 1 << level
            let value = low + span * Double(Int.random(in: 0...steps, using: &random)) / Double(steps)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return value.nextDown
            case 1: return value.nextUp
            default: return value
            }
        }
        var longitude = Double.random(in: -180...180, using: &random)
        var latitude = Double.random(in: -90...90, using: &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: longitude = edge(-180, 360); latitude = edge(-90, 180)
        case 2: latitude = [90.0, -90, 89.9999999, -89.9999999].randomElement(using: &random)!
        case 3: longitude = [180.0, -180, 179.9999999, -179.9999999].randomElement(using: &random)!
        case 4: longitude = Double.random(in: -10...10, using: &random); latitude = Double.random(in: 35...55, using: &random)
        case 5: longitude = Double.random(in: -1.5...1.5, using: &random); latitude = Double.random(in: -1.5...1.5, using: &random)
        case 6: if Bool.random(using: &random) { longitude = 180.0000001 } else { latitude = -90.5 }   // out of range
        default: break
        }
        return Bool.random(using: &random) ? [longitude, latitude] : [longitude, latitude, Double.random(in: 0...100, using: &random)]
    }

    private var db: DB!
    private var path = ""

    override func setUpWithError() throws {
        path = tempDir().file()
        db = try DB.open(path, Self.schema)
    }

    // MARK: Helpers

    private func placeLocation(_ place: Int64) throws -> Int64? {
        if case .link(_, let k) = try db.get("Place", place, "location") { return k }
        return nil
    }

    @discardableResult
    private func setLocation(_ place: Int64, _ coordinates: [Double], type: String = "Point") throws -> Int64 {
        let (_, location) = try db.realm.createEmbedded(table: db.cls("Place"), key: place, property: db.pkey("Place", "location"))
        try db.set("Position", location, "type", .string(type))
        try db.append("Position", location, "coordinates", coordinates.map { .double($0) })
        return location
    }

    /// The point of Position `key` as its data says (nil: no point).
    private func storedPoint(_ key: Int64) throws -> (Double, Double)? {
        guard case .string(let type) = try db.get("Position", key, "type"), type.lowercased() == "point" else { return nil }
        let coordinates = try db.list("Position", key, "coordinates")
        guard coordinates.count >= 2, case .double(let longitude) = coordinates[0], case .double(let latitude) = coordinates[1],
              abs(longitude) <= 180, abs(latitude) <= 90 else { return nil }
        return (longitude, latitude)
    }

    /// The places whose location lies in `shape`, object by object.
    private func bruteForce(_ shape: GeoShape) throws -> [Int64] {
        let region = try shape.validated()
        return try db.keys("Place").filter { place in
            guard let location = try placeLocation(place), let (longitude, latitude) = try storedPoint(location) else { return false }
            return region.contains(longitude: longitude, latitude: latitude)
        }
    }

    /// ANY over `place`'s list of points agrees with its points one by one.
    private func checkLocations(_ place: Int64, file: StaticString = #filePath, line: UInt = #line) throws {
        let list = try db.list("Place", place, "locations")
        for shape in Self.shapes {
            let region = try shape.validated()
            let expected = try list.contains { element in
                guard case .link(_, let k) = element, let (longitude, latitude) = try storedPoint(k) else { return false }
                return region.contains(longitude: longitude, latitude: latitude)
            }
            let found = try db.results("Place").filtered("ANY locations GEOWITHIN $0", arguments: [QueryArgument(geoShape: shape)]).allKeys().contains(place)
            XCTAssertEqual(found, expected, "\(shape)", file: file, line: line)
        }
    }

    private func indexed(_ shape: GeoShape, _ predicate: String = "location GEOWITHIN $0") throws -> [Int64] {
        try db.results("Place").filtered(predicate, arguments: [QueryArgument(geoShape: shape)]).allKeys().sorted()
    }

    private func checkAllShapes(_ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for shape in Self.shapes {
            XCTAssertEqual(try indexed(shape), try bruteForce(shape), "\(context): \(shape)", file: file, line: line)
        }
    }

    private func verifyProblems(_ path: String) throws -> [String] {
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        return problems
    }

    private func indexEntryCount(_ realm: Realm) throws -> Int {
        let table = try realm.table(realm.table(named: "Position")!)
        guard let geo = table.geoIndex else { return -1 }
        return try realm.currentSnapshot().withTransaction { (txn) throws(FiefError) -> Int in
            var stat = MDB_stat()
            try LMDB.check(mdb_stat(txn, geo.database, &stat), "stat")
            return stat.ms_entries
        }
    }

    // MARK: Write paths

    /// Random writes on every path, committed or cancelled; after each
    /// transaction (and inside some, before the commit) every shape's
    /// indexed answer is the brute-force one.
    func testIndexFollowsEveryWritePath() throws {
        var random = SeededRandom(seed: 0x6E0_1DE7)
        var places: [Int64] = []
        for round in 0..<60 {
            let cancel = round % 7 == 3
            try db.realm.beginWrite()
            for _ in 0..<3 {
                let key = try db.create("Place", [("n", .int(Int64(round)))])
                places.append(key)
                try setLocation(key, Self.randomPoint(&random))
            }
            for _ in 0..<Int.random(in: 5...25, using: &random) {
                let live = try places.filter { try db.exists("Place", $0) }
                let place = live.randomElement(using: &random)
                switch Int.random(in: 0..<16, using: &random) {
                case 0, 1, 2:
                    let key = try db.create("Place", [("n", .int(Int64(round)))])
                    places.append(key)
                    try setLocation(key, Self.randomPoint(&random))
                case 3:
                    if let place { try db.delete("Place", place) }
                case 4:   // replace the embedded object
                    if let place { try setLocation(place, Self.randomPoint(&random)) }
                case 5:   // clear the link
                    if let place { try db.set("Place", place, "location", .null) }
                case 6:   // type edited in place
                    if let place, let location = try placeLocation(place) {
                        try db.set("Position", location, "type", .string(["Point", "point", "POINT", "Polygon", ""].randomElement(using: &random)!))
                    }
                case 7:   // a coordinate set in place
                    if let place, let location = try placeLocation(place), try db.list("Position", location, "coordinates").count > 1 {
                        try db.setElement("Position", location, "coordinates", Int.random(in: 0...1, using: &random), .double(Self.randomPoint(&random)[0]))
                    }
                case 8:   // the first coordinate removed, or one inserted before it
                    if let place, let location = try placeLocation(place) {
                        if Bool.random(using: &random), try !db.list("Position", location, "coordinates").isEmpty {
                            try db.removeElement("Position", location, "coordinates", 0)
                        } else {
                            try db.insert("Position", location, "coordinates", 0, .double(Double.random(in: -90...90, using: &random)))
                        }
                    }
                case 9:   // cleared, then maybe refilled
                    if let place, let location = try placeLocation(place) {
                        try db.realm.list(CollectionRef(.list, table: db.cls("Position"), owner: location, property: db.pkey("Position", "coordinates"))).removeAll()
                        if Bool.random(using: &random) { try db.append("Position", location, "coordinates", Self.randomPoint(&random).map { .double($0) }) }
                    }
                case 10:  // coordinates first, type last; or only one coordinate
                    if let place {
                        let (_, location) = try db.realm.createEmbedded(table: db.cls("Place"), key: place, property: db.pkey("Place", "location"))
                        let point = Self.randomPoint(&random)
                        try db.append("Position", location, "coordinates", (Bool.random(using: &random) ? point : [point[0]]).map { .double($0) })
                        try db.set("Position", location, "type", .string("Point"))
                    }
                case 11:  // a list of embedded points changing (other objects of the same class)
                    if let place {
                        let (_, element) = try db.realm.list(CollectionRef(.list, table: db.cls("Place"), owner: place, property: db.pkey("Place", "locations"))).insertEmbedded(at: 0)
                        try db.set("Position", element, "type", .string("Point"))
                        try db.append("Position", element, "coordinates", Self.randomPoint(&random).map { .double($0) })
                        if Bool.random(using: &random) { try db.removeElement("Place", place, "locations", 0) }
                    }
                case 12:  // set-based update of `type`, over a list of embedded points
                    if let place {
                        for _ in 0..<2 {
                            let (_, element) = try db.realm.list(CollectionRef(.list, table: db.cls("Place"), owner: place, property: db.pkey("Place", "locations"))).insertEmbedded(at: 0)
                            try db.append("Position", element, "coordinates", Self.randomPoint(&random).map { .double($0) })
                        }
                        let list = try ObjectResults(realm: db.realm, list: db.pkey("Place", "locations"), of: place, in: db.cls("Place"))
                        let type = ["Point", "Polygon"].randomElement(using: &random)!
                        try TV.withValues([.string(type)]) { v in try list.setValue(v[0], property: db.pkey("Position", "type")) }
                        try checkLocations(place)
                    }
                case 13:
                    if Int.random(in: 0..<25, using: &random) == 0 { try db.realm.deleteAll(table: db.cls("Place")) }
                case 14:  // several values at once, through setValues
                    if let place, let location = try placeLocation(place) {
                        try db.setMany("Position", location, [("type", .string(Bool.random(using: &random) ? "Point" : "Line"))])
                    }
                default:  // a whole realm emptied, rarely
                    if Int.random(in: 0..<60, using: &random) == 0 { try db.realm.deleteAll() }
                }
            }
            if round % 5 == 0 {
                // Inside the transaction: the index holds its uncommitted writes.
                try checkAllShapes("round \(round), before committing")
            }
            if cancel {
                db.realm.cancelWrite()
            } else {
                try db.realm.commitWrite()
            }
            try checkAllShapes("round \(round)\(cancel ? " (cancelled)" : "")")
        }
        XCTAssertGreaterThan(try db.count("Place"), 10)
        db.realm.close()
        XCTAssertEqual(try verifyProblems(path), [])
    }

    /// Many points on one spot and on cell edges: each found once.
    func testPointsSharingACellAndOnCellEdges() throws {
        try db.write {
            for i in 0..<300 {
                let key = try db.create("Place", [("n", .int(Int64(i)))])
                let edge = -180 + 360 * Double(i % 17) / 16
                try setLocation(key, i % 3 == 0 ? [12.5, 55.5] : [edge, 90 * Double(i % 5 - 2) / 2])
            }
        }
        try checkAllShapes("shared cells")
        XCTAssertEqual(try indexed(.box(p(12.4, 55.4), p(12.6, 55.6))).count, 100)
        XCTAssertEqual(try indexEntryCount(db.realm), 2 * 300)
    }

    /// A point's entry leaves the index with its object; nothing is left
    /// after every owner is deleted.
    func testDeletingOwnersEmptiesTheIndex() throws {
        let keys = try db.write { () -> [Int64] in
            try (0..<50).map { i in
                let key = try db.create("Place", [("n", .int(Int64(i)))])
                try setLocation(key, [Double(i), Double(i) / 2])
                return key
            }
        }
        XCTAssertEqual(try indexEntryCount(db.realm), 100)
        try db.write { for key in keys.prefix(20) { try db.delete("Place", key) } }
        XCTAssertEqual(try indexEntryCount(db.realm), 60)
        try checkAllShapes("after deleting")
        try db.write { try db.results("Place").deleteAll() }
        XCTAssertEqual(try indexEntryCount(db.realm), 0)
    }

    // MARK: Covering

    /// The cell ranges of a rectangle hold every cell of its points (seeded
    /// points inside), and ascend without overlapping.
    func testCellRangesCoverTheirRectangles() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<300 {
            let west = Double.random(in: -200...180, using: &random)
            let width = Double.random(in: 0...120, using: &random) * (Bool.random(using: &random) ? 1 : 0.001)
            let low = Double.random(in: -90...90, using: &random)
            let high = min(90, low + Double.random(in: 0...60, using: &random))
            let rectangle = GeoRectangle(minimumLatitude: low, maximumLatitude: high, west: west, east: west + width, isFullLongitude: false)
            let ranges = GeoCells.ranges(rectangle)
            XCTAssertLessThan(ranges.count, 600)
            for (a, b) in zip(ranges, ranges.dropFirst()) { XCTAssertLessThan(a.upperBound &+ 1, b.lowerBound) }
            for _ in 0..<50 {
                var longitude = west + Double.random(in: 0...1, using: &random) * width
                if longitude < -180 { longitude += 360 }
                let latitude = low + Double.random(in: 0...1, using: &random) * (high - low)
                let cell = GeoCells.cell(longitude: longitude, latitude: latitude)
                XCTAssertTrue(ranges.contains { $0.contains(cell) }, "\(longitude), \(latitude) outside the ranges of \(rectangle)")
            }
        }
    }

    /// A region's covering rectangle holds every point the region holds
    /// (seeded shapes, points drawn near them).
    func testCoveringRectanglesHoldTheirRegions() throws {
        var random = SeededRandom(seed: 11)
        var checked = 0
        for _ in 0..<400 {
            let center = Self.randomPoint(&random)
            guard abs(center[0]) <= 180, abs(center[1]) <= 90 else { continue }
            let size = Double.random(in: 0.001...40, using: &random)
            let shape: GeoShape
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                shape = .circle(p(center[0], center[1]), radians: size * .pi / 180)
            case 1:
                shape = .box(p(center[0], max(-90, center[1] - size)), p(min(180, center[0] + size), min(90, center[1] + size)))
            default:
                let n = Int.random(in: 3...7, using: &random)
                var ring = (0..<n).map { i -> GeoPoint in
                    let angle = 2 * Double.pi * Double(i) / Double(n)
                    return p(max(-180, min(180, center[0] + size * cos(angle))), max(-90, min(90, center[1] + size * sin(angle))))
                }
                ring.append(ring[0])
                shape = .polygon([ring])
            }
            guard let region = try? shape.validated() else { continue }
            let rectangle = region.coveringRectangle
            for _ in 0..<200 {
                let longitude = max(-180, min(180, center[0] + Double.random(in: -2...2, using: &random) * size))
                let latitude = max(-90, min(90, center[1] + Double.random(in: -2...2, using: &random) * size))
                if region.contains(longitude: longitude, latitude: latitude) {
                    checked += 1
                    XCTAssertTrue(rectangle.contains(longitude: longitude, latitude: latitude), "\(shape) holds \(longitude), \(latitude) but its rectangle \(rectangle) does not")
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    // MARK: Schema changes, older files, verify and copy

    /// A class that becomes GeoJSON-shaped gets its index built from its
    /// data; one that stops being shaped so loses it; both agree with the
    /// data (`fief verify`).
    func testSchemaChangesBuildAndDropTheIndex() throws {
        let plain = Schema(classes: [
            Self.schema.classes[0],
            ObjectClass(name: "Position", properties: [
                prop("kind", .string),
                Property(name: "coordinates", type: .double, collection: .list),
            ], isEmbedded: true),
        ])
        let dir = tempDir()
        let file = dir.file("shape.fief")
        var keys: [Int64] = []
        do {
            let db = try DB.open(file, plain)
            XCTAssertNil(try db.realm.table(db.cls("Position")).geoIndex)
            keys = try db.write {
                try (0..<40).map { i -> Int64 in
                    let key = try db.create("Place", [("n", .int(Int64(i)))])
                    let (_, location) = try db.realm.createEmbedded(table: db.cls("Place"), key: key, property: db.pkey("Place", "location"))
                    try db.append("Position", location, "coordinates", [.double(Double(i)), .double(Double(i) / 4)])
                    return key
                }
            }
            db.realm.close()
        }
        // `type` added: every object's type is "" (no point) until set.
        do {
            let db = try DB.open(file, Self.schema, version: 1)
            XCTAssertNotNil(try db.realm.table(db.cls("Position")).geoIndex)
            XCTAssertEqual(try indexEntryCount(db.realm), 0)
            try db.write {
                for key in keys.prefix(30) {
                    if case .link(_, let location) = try db.get("Place", key, "location") { try db.set("Position", location, "type", .string("Point")) }
                }
            }
            XCTAssertEqual(try db.results("Place").filtered("location GEOWITHIN geoBox([-1, -1], [20, 20])", arguments: []).count(), 21)
            db.realm.close()
        }
        XCTAssertEqual(try verifyProblems(file), [])
        // `type` removed: the class is no longer a point class.
        do {
            let db = try DB.open(file, plain, version: 2)
            XCTAssertNil(try db.realm.table(db.cls("Position")).geoIndex)
            db.realm.close()
        }
        XCTAssertEqual(try verifyProblems(file), [])
        // Added again (a new column, empty): the index is rebuilt, empty.
        do {
            let db = try DB.open(file, Self.schema, version: 3)
            XCTAssertEqual(try indexEntryCount(db.realm), 0)
            XCTAssertEqual(try db.results("Place").filtered("location GEOWITHIN geoBox([-1, -1], [20, 20])", arguments: []).count(), 0)
            db.realm.close()
        }
        XCTAssertEqual(try verifyProblems(file), [])
    }

    /// A file without the index (written before it): a read-only open
    /// scans and finds the same; a writable open builds it.
    func testOlderFileWithoutTheIndex() throws {
        var random = SeededRandom(seed: 99)
        try db.write {
            for i in 0..<200 {
                let key = try db.create("Place", [("n", .int(Int64(i)))])
                try setLocation(key, Self.randomPoint(&random))
            }
        }
        let expected = try Self.shapes.map { try bruteForce($0) }
        let name = try Table.geoIndexName(db.cls("Position"), db.pkey("Position", "coordinates"))
        db.realm.close()
        db = nil
        withRawLMDB(path, database: name) { txn, dbi in XCTAssertEqual(mdb_drop(txn, dbi, 1), 0) }
        var notes: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .info { notes.append(text) } }, 0)
        XCTAssertTrue(notes.contains { $0.contains("no spatial index") }, "\(notes)")
        do {
            db = try DB.open(path, Self.schema, readOnly: true)
            XCTAssertNil(try db.realm.table(db.cls("Position")).geoIndex)
            for (shape, keys) in zip(Self.shapes, expected) { XCTAssertEqual(try indexed(shape), keys, "\(shape), scanned") }
            db.realm.close()
            db = nil
        }
        db = try DB.open(path, Self.schema)
        XCTAssertNotNil(try db.realm.table(db.cls("Position")).geoIndex)
        for (shape, keys) in zip(Self.shapes, expected) { XCTAssertEqual(try indexed(shape), keys, "\(shape), rebuilt") }
        db.realm.close()
        XCTAssertEqual(try verifyProblems(path), [])
    }

    /// `fief verify` finds a missing and a wrong entry; `fief copy`
    /// rebuilds the index from the points copied.
    func testVerifyChecksAndCopyRebuildsTheIndex() throws {
        let keys = try db.write { () -> [Int64] in
            try (0..<20).map { i in
                let key = try db.create("Place", [("n", .int(Int64(i)))])
                try setLocation(key, [Double(i), Double(i)])
                return key
            }
        }
        let location = try placeLocation(keys[3])!
        let name = try Table.geoIndexName(db.cls("Position"), db.pkey("Position", "coordinates"))
        db.realm.close()
        db = nil
        XCTAssertEqual(try verifyProblems(path), [])
        withRawLMDB(path, database: name) { txn, dbi in
            // Object 3's point moved to another cell.
            var key = [UInt8](repeating: 0, count: 17)
            key.withUnsafeMutableBytes { GeoIndexEntry.objectKey($0.baseAddress!, object: location) }
            var cell: UInt64 = 0
            key.withUnsafeBytes { kb in
                var k = LMDB.val(UnsafeRawBufferPointer(rebasing: kb[0..<9])), v = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                cell = LMDB.bytes(v).loadUnaligned(as: UInt64.self)
            }
            key.withUnsafeMutableBytes { GeoIndexEntry.pointKey($0.baseAddress!, cell: cell, object: location) }
            var moved = [UInt8](repeating: 0, count: 17)
            moved.withUnsafeMutableBytes { GeoIndexEntry.pointKey($0.baseAddress!, cell: cell ^ 1, object: location) }
            key.withUnsafeBytes { kb in
                var k = LMDB.val(kb), v = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                let value = Array(LMDB.bytes(v))
                XCTAssertEqual(mdb_del(txn, dbi, &k, nil), 0)
                moved.withUnsafeBytes { mb in
                    value.withUnsafeBytes { vb in
                        var mk = LMDB.val(mb), mv = LMDB.val(vb)
                        XCTAssertEqual(mdb_put(txn, dbi, &mk, &mv, 0), 0)
                    }
                }
            }
        }
        XCTAssertEqual(try verifyProblems(path),
                       ["class 'Position': its spatial index holds 19 of the 20 points of its data (20 object entries) and 1 wrong entries (`fief copy` rebuilds it)"])
        let copy = path + ".copy"
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try verifyProblems(copy), [])
        db = try DB.open(copy, Self.schema)
        XCTAssertEqual(try indexed(.box(p(2.5, 2.5), p(3.5, 3.5))), [keys[3]])
        try checkAllShapes("copy")
    }

    // MARK: One element of a list

    /// `locations[0]`, `[FIRST]`, `[LAST]` reach one point of a list of
    /// embedded points (read forward, each point looked up among those
    /// inside); with no such element, nothing matches.
    func testListPositionsReachOnePoint() throws {
        var random = SeededRandom(seed: 5)
        var lists: [Int64: [Int64]] = [:]
        try db.write {
            for i in 0..<120 {
                let place = try db.create("Place", [("n", .int(Int64(i)))])
                var elements: [Int64] = []
                for index in 0..<Int.random(in: 0...3, using: &random) {
                    let (_, element) = try db.realm.list(CollectionRef(.list, table: db.cls("Place"), owner: place, property: db.pkey("Place", "locations"))).insertEmbedded(at: index)
                    try db.set("Position", element, "type", .string(Int.random(in: 0..<8, using: &random) == 0 ? "Line" : "Point"))
                    try db.append("Position", element, "coordinates", Self.randomPoint(&random).map { .double($0) })
                    elements.append(element)
                }
                lists[place] = elements
            }
        }
        for shape in Self.shapes {
            let region = try shape.validated()
            func inside(_ element: Int64) throws -> Bool {
                guard let (longitude, latitude) = try storedPoint(element) else { return false }
                return region.contains(longitude: longitude, latitude: latitude)
            }
            let places = lists.keys.sorted()
            let first = try places.filter { try lists[$0]!.first.map(inside) ?? false }
            let second = try places.filter { lists[$0]!.count > 1 ? try inside(lists[$0]![1]) : false }
            let last = try places.filter { try lists[$0]!.last.map(inside) ?? false }
            let any = try places.filter { try lists[$0]!.contains(where: inside) }
            let all = try places.filter { try !lists[$0]!.isEmpty && lists[$0]!.allSatisfy(inside) }
            XCTAssertEqual(try indexed(shape, "locations[0] GEOWITHIN $0"), first, "\(shape)")
            XCTAssertEqual(try indexed(shape, "locations[FIRST] GEOWITHIN $0"), first, "\(shape)")
            XCTAssertEqual(try indexed(shape, "locations[1] GEOWITHIN $0"), second, "\(shape)")
            XCTAssertEqual(try indexed(shape, "locations[LAST] GEOWITHIN $0"), last, "\(shape)")
            XCTAssertEqual(try indexed(shape, "NOT locations[0] GEOWITHIN $0"), places.filter { !first.contains($0) }, "\(shape)")
            XCTAssertEqual(try indexed(shape, "ANY locations GEOWITHIN $0"), any, "\(shape)")
            XCTAssertEqual(try indexed(shape, "ALL locations GEOWITHIN $0"), all, "\(shape)")
            XCTAssertEqual(try indexed(shape, "NONE locations GEOWITHIN $0"), places.filter { !any.contains($0) }, "\(shape)")
        }
        // In a write transaction, after changes: the same rule.
        try db.realm.beginWrite()
        let place = lists.keys.sorted().first { lists[$0]!.count > 1 }!
        try db.removeElement("Place", place, "locations", 0)
        lists[place]!.removeFirst()
        let box = GeoShape.box(p(-180 + 1e-9, -89), p(179.999, 89))
        let region = try box.validated()
        XCTAssertEqual(try indexed(box, "locations[0] GEOWITHIN $0").contains(place),
                       try storedPoint(lists[place]![0]).map { region.contains(longitude: $0.0, latitude: $0.1) } ?? false)
        db.realm.cancelWrite()
    }
}
