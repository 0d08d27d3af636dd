import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Set and map helpers on the test database wrapper.
extension DB {
    func ref(_ className: String, _ key: Int64, _ name: String) -> CollectionRef {
        CollectionRef(.map, table: cls(className), owner: key, property: pkey(className, name))
    }

    func set(_ className: String, _ key: Int64, _ name: String) throws -> [TV] {
        let r = ref(className, key, name)
        let n = try realm.set(r).count()
        var out = [Value](repeating: .null, count: n)
        try out.withUnsafeMutableBufferPointer { try realm.set(r).values(from: 0, into: $0) }
        for i in 0..<n { XCTAssertEqual("\(TV(try realm.set(r).value(at: i)))", "\(TV(out[i]))") }
        return out.map(TV.init)
    }

    @discardableResult
    func setInsert(_ className: String, _ key: Int64, _ name: String, _ value: TV) throws -> Bool {
        try TV.withValues([value]) { v in try realm.set(ref(className, key, name)).insert(v[0]) }
    }

    @discardableResult
    func setRemove(_ className: String, _ key: Int64, _ name: String, _ value: TV) throws -> Bool {
        try TV.withValues([value]) { v in try realm.set(ref(className, key, name)).remove(v[0]) }
    }

    func setContains(_ className: String, _ key: Int64, _ name: String, _ value: TV) throws -> Bool {
        try TV.withValues([value]) { v in try realm.set(ref(className, key, name)).contains(v[0]) }
    }

    func map(_ className: String, _ key: Int64, _ name: String) throws -> [(String, TV)] {
        let r = ref(className, key, name)
        let n = try realm.map(r).count()
        var keys = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: n)
        var values = [Value](repeating: .null, count: n)
        try keys.withUnsafeMutableBufferPointer { k in
            try values.withUnsafeMutableBufferPointer { v in
                try realm.map(r).entries(from: 0, count: n, keys: k.baseAddress, values: v.baseAddress)
            }
        }
        let out = zip(keys, values).map { (String(decoding: $0.0, as: UTF8.self), TV($0.1)) }
        for i in 0..<n {
            let (k, v) = try realm.map(r).entry(at: i)
            XCTAssertEqual(String(decoding: k, as: UTF8.self), out[i].0)
            XCTAssertEqual(TV(v), out[i].1)
        }
        return out
    }

    func mapSet(_ className: String, _ key: Int64, _ name: String, _ mapKey: String, _ value: TV) throws {
        try TV.withValues([value]) { v in
            try Array(mapKey.utf8).withUnsafeBytes { try realm.map(ref(className, key, name)).set(v[0], forKey: $0) }
        }
    }

    func mapGet(_ className: String, _ key: Int64, _ name: String, _ mapKey: String) throws -> TV? {
        try Array(mapKey.utf8).withUnsafeBytes { try realm.map(ref(className, key, name)).value(forKey: $0).map(TV.init) }
    }

    @discardableResult
    func mapRemove(_ className: String, _ key: Int64, _ name: String, _ mapKey: String) throws -> Bool {
        try Array(mapKey.utf8).withUnsafeBytes { try realm.map(ref(className, key, name)).remove($0) }
    }

    /// The number of links recorded on `target`'s side.
    func backlinkCount(_ className: String, _ target: Int64) throws -> Int {
        let table = try realm.table(cls(className))
        guard let dbi = table.backlinks else { return 0 }
        var total = 0
        let read: (OpaquePointer) throws -> Void = { txn in
            try Backlinks.forEach(txn, dbi, target: target) { (_, _, _, count) throws(FiefError) in total += Int(count) }
        }
        if let write = realm.write { try Backlinks.settle(write, dbi); try read(write.txn) } else { try read(try realm.currentSnapshot().txn) }
        return total
    }
}

/// Sets and maps: every operation against a model, every scalar type in
/// its order, links with backlinks, deleted targets, embedded values, set
/// algebra, and the errors that change nothing.
final class SetMapTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Cat", [prop("name", .string)]),
        ("Address", [prop("city", .string)]),
        ("Person", [prop("name", .string),
                    Property(name: "ints", type: .int, collection: .set),
                    Property(name: "tags", type: .string, flags: .nullable, collection: .set),
                    Property(name: "doubles", type: .double, collection: .set),
                    Property(name: "floats", type: .float, collection: .set),
                    Property(name: "decimals", type: .decimal128, collection: .set),
                    Property(name: "dates", type: .timestamp, collection: .set),
                    Property(name: "blobs", type: .binary, collection: .set),
                    Property(name: "flags", type: .bool, collection: .set),
                    Property(name: "ids", type: .objectId, collection: .set),
                    Property(name: "uuids", type: .uuid, collection: .set),
                    Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .set),
                    Property(name: "otherDogs", type: .link, linkTarget: "Dog", collection: .set),
                    Property(name: "cats", type: .link, linkTarget: "Cat", collection: .set),
                    Property(name: "scores", type: .int, flags: .nullable, collection: .map),
                    Property(name: "names", type: .string, collection: .map),
                    Property(name: "pets", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
                    Property(name: "addresses", type: .link, flags: .nullable, linkTarget: "Address", collection: .map)]),
    ])

    private func embeddedSchema() -> Schema {
        var s = schema
        let i = s.classes.firstIndex { $0.name == "Address" }!
        s.classes[i].isEmbedded = true
        return s
    }

    func testSchemaRulesForSetsAndMaps() throws {
        func refused(_ classes: [ObjectClass], _ fragment: String, line: UInt = #line) {
            let error = expectError(.invalidSchema, line: line) { try Schema(classes: classes).validate() }
            XCTAssertTrue(error?.message.contains(fragment) ?? false, "\(error?.message ?? "")", line: line)
        }
        refused([ObjectClass(name: "A", properties: [Property(name: "s", type: .int, flags: .primaryKey, collection: .set)])], "cannot be a primary key")
        refused([ObjectClass(name: "A", properties: [Property(name: "m", type: .int, flags: .indexed, collection: .map)])], "cannot be indexed")
        refused([ObjectClass(name: "A", properties: [Property(name: "s", type: .link, flags: .nullable, linkTarget: "A", collection: .set)])], "cannot hold null")
        refused([ObjectClass(name: "A", properties: [Property(name: "m", type: .link, linkTarget: "A", collection: .map)])], "must have optional values")
        refused([ObjectClass(name: "A", properties: [Property(name: "s", type: .link, linkTarget: "E", collection: .set)]),
                 ObjectClass(name: "E", properties: [prop("x", .int)], isEmbedded: true)], "embedded")
        XCTAssertNoThrow(try schema.validate())
        XCTAssertNoThrow(try embeddedSchema().validate())
    }

    func testIntSetMatchesAModelAndPersists() throws {
        let dir = tempDir()
        var model = Set<Int64>()
        var rng = SeededRandom(seed: 7)
        var owner: Int64 = 0
        do {
            let db = try DB.open(dir.file(), schema)
            owner = try db.write { try db.create("Person", [("name", .string("a"))]) }
            for round in 0..<20 {
                try db.write {
                    for _ in 0..<50 {
                        let v = Int64.random(in: -40...40, using: &rng) * (round % 3 == 0 ? Int64.max / 50 : 1)
                        if Bool.random(using: &rng) {
                            XCTAssertEqual(try db.setInsert("Person", owner, "ints", .int(v)), model.insert(v).inserted)
                        } else {
                            XCTAssertEqual(try db.setRemove("Person", owner, "ints", .int(v)), model.remove(v) != nil)
                        }
                    }
                    XCTAssertEqual(try db.set("Person", owner, "ints"), model.sorted().map { .int($0) })
                }
                XCTAssertEqual(try db.set("Person", owner, "ints"), model.sorted().map { .int($0) })
                for v in model.prefix(5) { XCTAssertTrue(try db.setContains("Person", owner, "ints", .int(v))) }
                XCTAssertFalse(try db.setContains("Person", owner, "ints", .int(1_000_000)))
                XCTAssertFalse(try db.setContains("Person", owner, "ints", .string("1")), "a value of another type is in no set")
            }
            // A cancelled write changes nothing.
            try db.realm.beginWrite()
            try db.setInsert("Person", owner, "ints", .int(123_456))
            try db.realm.set(db.ref("Person", owner, "ints")).removeAll()
            XCTAssertEqual(try db.set("Person", owner, "ints"), [])
            db.realm.cancelWrite()
            XCTAssertEqual(try db.set("Person", owner, "ints"), model.sorted().map { .int($0) })
        }
        let db = try DB.open(dir.file(), schema)
        XCTAssertEqual(try db.set("Person", owner, "ints"), model.sorted().map { .int($0) })
        try assertVerifies(dir.file())
    }

    func testEveryScalarTypeIsOrderedAndCanonical() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let long1 = String(repeating: "x", count: 600) + "a", long2 = String(repeating: "x", count: 600) + "b"
        let owner = try db.write { () throws -> Int64 in
            let o = try db.create("Person", [("name", .string("a"))])
            for s in ["b", "a", "", "ab", long2, long1, "é"] { XCTAssertTrue(try db.setInsert("Person", o, "tags", .string(s))) }
            XCTAssertTrue(try db.setInsert("Person", o, "tags", .null))
            XCTAssertFalse(try db.setInsert("Person", o, "tags", .string(long1)))
            XCTAssertFalse(try db.setInsert("Person", o, "tags", .null))
            for d in [2.5, -1.0, 0.0, -0.0, .infinity, -.infinity, .nan, .nan, 1e-300, -1e300] { _ = try db.setInsert("Person", o, "doubles", .double(d)) }
            for f: Float in [3, -3, 0.5, -0.0, 0] { _ = try db.setInsert("Person", o, "floats", .float(f)) }
            _ = try db.setInsert("Person", o, "floats", .int(7))   // converted
            for (s, ns) in [(Int64(-5), Int32(-3)), (0, 0), (-5, 0), (10, 5), (10, 4)] { _ = try db.setInsert("Person", o, "dates", .timestamp(s, ns)) }
            for b: [UInt8] in [[2], [1, 2], [], [1]] { _ = try db.setInsert("Person", o, "blobs", .binary(b)) }
            for b in [true, false, true] { _ = try db.setInsert("Person", o, "flags", .bool(b)) }
            return o
        }
        XCTAssertEqual(try db.set("Person", owner, "tags"), [.null, .string(""), .string("a"), .string("ab"), .string("b"),
                                                             .string(long1), .string(long2), .string("é")])
        XCTAssertTrue(try db.setContains("Person", owner, "tags", .string(long2)))
        XCTAssertFalse(try db.setContains("Person", owner, "tags", .string(String(repeating: "x", count: 600) + "c")))
        let doubles = try db.set("Person", owner, "doubles")
        guard case .double(let nan) = doubles.first else { return XCTFail("\(doubles)") }
        XCTAssertTrue(nan.isNaN, "one NaN, first")
        XCTAssertEqual(Array(doubles.dropFirst()), [-.infinity, -1e300, -1, 0, 1e-300, 2.5, .infinity].map { TV.double($0) }, "-0 and 0 are one element")
        XCTAssertEqual(try db.set("Person", owner, "floats"), [-3, 0, 0.5, 3, 7].map { TV.float($0) })
        XCTAssertEqual(try db.set("Person", owner, "dates"), [.timestamp(-5, -3), .timestamp(-5, 0), .timestamp(0, 0), .timestamp(10, 4), .timestamp(10, 5)])
        XCTAssertEqual(try db.set("Person", owner, "blobs"), [.binary([]), .binary([1]), .binary([1, 2]), .binary([2])])
        XCTAssertEqual(try db.set("Person", owner, "flags"), [.bool(false), .bool(true)])

        // Decimals: one element per value (1.0 and 1.00 are 1), in value order.
        func dec(_ coefficient: UInt64, _ exponent: Int, negative: Bool = false) -> TV {
            .decimal(Decimal128Bits(low: coefficient, high: (negative ? 1 << 63 : 0) | UInt64(exponent + 6176) << 49))
        }
        try db.write {
            for d in [dec(10, -1), dec(100, -2), dec(1, 0), dec(25, -1, negative: true), dec(3, 5), dec(0, 3), dec(0, 0, negative: true), dec(2, -400)] {
                _ = try db.setInsert("Person", owner, "decimals", d)
            }
        }
        let decimals = try db.set("Person", owner, "decimals")
        XCTAssertEqual(decimals.count, 5, "\(decimals)")
        let asDoubles = try decimals.map { (v) -> Double in
            guard case .decimal(let d) = v else { throw FiefError(.internal, "not a decimal") }
            return DecimalArithmetic.toDouble(d)
        }
        XCTAssertEqual(asDoubles, [-2.5, 0, 2e-400, 1, 300_000])
        XCTAssertTrue(try db.setContains("Person", owner, "decimals", dec(1000, -3)))

        // Object ids and UUIDs in byte order.
        try db.write {
            for b in [5, 1, 3] as [UInt8] {
                _ = try db.setInsert("Person", owner, "ids", .oid(bytes: [b] + [UInt8](repeating: 0, count: 11)))
                _ = try db.setInsert("Person", owner, "uuids", .uuid(bytes: [UInt8](repeating: 0, count: 15) + [b]))
            }
        }
        XCTAssertEqual(try db.set("Person", owner, "ids"), [1, 3, 5].map { TV.oid(bytes: [$0] + [UInt8](repeating: 0, count: 11)) })
        XCTAssertEqual(try db.set("Person", owner, "uuids"), [1, 3, 5].map { TV.uuid(bytes: [UInt8](repeating: 0, count: 15) + [$0]) })
        try assertVerifies(dir.file())
    }

    func testSetErrorsChangeNothing() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (owner, dog, cat) = try db.write { () throws -> (Int64, Int64, Int64) in
            (try db.create("Person", [("name", .string("a"))]), try db.create("Dog", [("name", .string("rex"))]), try db.create("Cat", [("name", .string("tom"))]))
        }
        expectError(.notInTransaction) { try db.setInsert("Person", owner, "ints", .int(1)) }
        try db.write {
            expectError(.typeMismatch) { try db.setInsert("Person", owner, "ints", .string("1")) }
            expectError(.nullNotAllowed) { try db.setInsert("Person", owner, "ints", .null) }
            expectError(.typeMismatch) { try db.setInsert("Person", owner, "dogs", .link(db.cls("Cat"), cat)) }
            expectError(.noSuchObject) { try db.setInsert("Person", owner, "dogs", .link(db.cls("Dog"), dog + 100)) }
            expectError(.invalidArgument) { try db.setInsert("Person", owner, "name", .int(1)) }
            expectError(.typeMismatch) { try db.setInsert("Person", owner, "tags", .binary([0xFF])) }
            expectError(.invalidUTF8) { try [UInt8]([0xFF]).withUnsafeBytes { try db.realm.set(db.ref("Person", owner, "tags")).insert(.string($0)) } }
            expectError(.typeMismatch) { try db.realm.set(db.ref("Person", owner, "ints")).formUnion(db.ref("Person", owner, "tags")) }
        }
        XCTAssertEqual(try db.set("Person", owner, "ints"), [])
        XCTAssertEqual(try db.set("Person", owner, "dogs"), [])
        XCTAssertEqual(try db.backlinkCount("Dog", dog), 0)
        try db.write { try db.delete("Person", owner) }
        expectError(.invalidatedObject) { try db.set("Person", owner, "ints") }
    }

    func testSetsOfLinksKeepBacklinksAndLoseDeletedObjects() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (a, b, dogs) = try db.write { () throws -> (Int64, Int64, [Int64]) in
            let a = try db.create("Person", [("name", .string("a"))]), b = try db.create("Person", [("name", .string("b"))])
            let dogs = try (0..<5).map { try db.create("Dog", [("name", .string("d\($0)"))]) }
            for d in dogs { try db.setInsert("Person", a, "dogs", .link(db.cls("Dog"), d)) }
            for d in dogs.prefix(2) {
                try db.setInsert("Person", b, "dogs", .link(db.cls("Dog"), d))
                try db.setInsert("Person", b, "otherDogs", .link(db.cls("Dog"), d))
            }
            XCTAssertFalse(try db.setInsert("Person", a, "dogs", .link(db.cls("Dog"), dogs[0])))
            return (a, b, dogs)
        }
        XCTAssertEqual(try db.backlinkCount("Dog", dogs[0]), 3)
        XCTAssertEqual(try db.backlinkCount("Dog", dogs[4]), 1)
        XCTAssertEqual(try db.realm.linkingObjects(to: dogs[0], of: db.cls("Dog"), originClass: db.cls("Person"), property: db.pkey("Person", "dogs")), [a, b])
        // Deleting a dog takes it out of every set.
        try db.write { try db.delete("Dog", dogs[0]) }
        XCTAssertEqual(try db.set("Person", a, "dogs"), dogs.dropFirst().map { .link(db.cls("Dog"), $0) })
        XCTAssertEqual(try db.set("Person", b, "otherDogs"), [.link(db.cls("Dog"), dogs[1])])
        // Removing, clearing and deleting the owner release backlinks.
        try db.write {
            XCTAssertTrue(try db.setRemove("Person", a, "dogs", .link(db.cls("Dog"), dogs[1])))
            XCTAssertFalse(try db.setRemove("Person", a, "dogs", .link(db.cls("Dog"), dogs[1])))
        }
        XCTAssertEqual(try db.backlinkCount("Dog", dogs[1]), 2)
        try db.write { try db.realm.set(db.ref("Person", b, "dogs")).removeAll() }
        XCTAssertEqual(try db.backlinkCount("Dog", dogs[1]), 1)
        try db.write { try db.delete("Person", a) }
        for d in dogs.dropFirst(2) { XCTAssertEqual(try db.backlinkCount("Dog", d), 0) }
        try assertVerifies(dir.file())
        // Deleting every object of a class with sets, and of a class in sets.
        try db.write { try db.realm.deleteAll(table: db.cls("Dog")) }
        XCTAssertEqual(try db.set("Person", b, "otherDogs"), [])
        try db.write {
            let d = try db.create("Dog", [("name", .string("new"))])
            try db.setInsert("Person", b, "dogs", .link(db.cls("Dog"), d))
            try db.realm.deleteAll(table: db.cls("Person"))
            XCTAssertEqual(try db.backlinkCount("Dog", d), 0)
        }
        try assertVerifies(dir.file())
    }

    func testSetAlgebra() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (a, b, dogs) = try db.write { () throws -> (Int64, Int64, [Int64]) in
            let a = try db.create("Person", [("name", .string("a"))]), b = try db.create("Person", [("name", .string("b"))])
            for v in [1, 2, 3, 4] as [Int64] { try db.setInsert("Person", a, "ints", .int(v)) }
            for v in [3, 4, 5] as [Int64] { try db.setInsert("Person", b, "ints", .int(v)) }
            let dogs = try (0..<3).map { try db.create("Dog", [("name", .string("d\($0)"))]) }
            try db.setInsert("Person", a, "dogs", .link(db.cls("Dog"), dogs[0]))
            for d in dogs { try db.setInsert("Person", b, "otherDogs", .link(db.cls("Dog"), d)) }
            return (a, b, dogs)
        }
        let sa = db.ref("Person", a, "ints"), sb = db.ref("Person", b, "ints")
        XCTAssertTrue(try db.realm.set(sa).intersects(sb))
        XCTAssertFalse(try db.realm.set(sa).isSubset(of: sb))
        XCTAssertTrue(try db.realm.set(sa).isSubset(of: sa))
        XCTAssertTrue(try db.realm.set(db.ref("Person", a, "dogs")).isSubset(of: db.ref("Person", b, "otherDogs")))
        expectError(.typeMismatch) { try db.realm.set(sa).intersects(db.ref("Person", b, "tags")) }
        expectError(.typeMismatch) { try db.realm.set(db.ref("Person", a, "dogs")).intersects(db.ref("Person", a, "cats")) }
        try db.write {
            try db.realm.set(sa).formUnion(sb)
            XCTAssertEqual(try db.set("Person", a, "ints"), [1, 2, 3, 4, 5].map { TV.int($0) })
            try db.realm.set(sa).subtract(sb)
            XCTAssertEqual(try db.set("Person", a, "ints"), [1, 2].map { TV.int($0) })
            try db.realm.set(sa).formUnion(sb)
            try db.realm.set(sa).formIntersection(sb)
            XCTAssertEqual(try db.set("Person", a, "ints"), [3, 4, 5].map { TV.int($0) })
            XCTAssertTrue(try db.realm.set(sb).isSubset(of: sa))
            try db.realm.set(sa).formUnion(sa)
            XCTAssertEqual(try db.realm.set(sa).count(), 3)
            // Links: the union records backlinks, the subtraction releases them.
            try db.realm.set(db.ref("Person", a, "dogs")).formUnion(db.ref("Person", b, "otherDogs"))
        }
        XCTAssertEqual(try db.backlinkCount("Dog", dogs[2]), 2)
        try db.write { try db.realm.set(db.ref("Person", a, "dogs")).subtract(db.ref("Person", b, "otherDogs")) }
        XCTAssertEqual(try db.backlinkCount("Dog", dogs[2]), 1)
        XCTAssertEqual(try db.set("Person", a, "dogs"), [])
        try assertVerifies(dir.file())
    }

    func testMapOperationsMatchAModel() throws {
        let dir = tempDir()
        var model: [String: Int64?] = [:]
        var rng = SeededRandom(seed: 11)
        var owner: Int64 = 0
        do {
            let db = try DB.open(dir.file(), schema)
            owner = try db.write { try db.create("Person", [("name", .string("a"))]) }
            for _ in 0..<10 {
                try db.write {
                    for _ in 0..<40 {
                        let key = "k\(Int.random(in: 0..<60, using: &rng))"
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0: XCTAssertEqual(try db.mapRemove("Person", owner, "scores", key), model.removeValue(forKey: key) != nil)
                        case 1:
                            try db.mapSet("Person", owner, "scores", key, .null)
                            model[key] = .some(nil)
                        default:
                            let v = Int64.random(in: -9...9, using: &rng)
                            try db.mapSet("Person", owner, "scores", key, .int(v))
                            model[key] = v
                        }
                    }
                }
                let expected = model.keys.sorted().map { ($0, model[$0]!.map { TV.int($0) } ?? .null) }
                let got = try db.map("Person", owner, "scores")
                XCTAssertEqual(got.map { $0.0 }, expected.map { $0.0 })
                XCTAssertEqual(got.map { $0.1 }, expected.map { $0.1 })
                for (k, v) in expected.prefix(5) { XCTAssertEqual(try db.mapGet("Person", owner, "scores", k), v) }
                XCTAssertNil(try db.mapGet("Person", owner, "scores", "missing"))
                XCTAssertNil(try db.mapGet("Person", owner, "scores", "a.b"))
            }
        }
        let db = try DB.open(dir.file(), schema)
        XCTAssertEqual(try db.map("Person", owner, "scores").count, model.count)
        XCTAssertEqual(try db.realm.map(db.ref("Person", owner, "scores")).index(ofKey: UnsafeRawBufferPointer(start: nil, count: 0)), nil)
        try db.write { try db.realm.map(db.ref("Person", owner, "scores")).removeAll() }
        XCTAssertEqual(try db.map("Person", owner, "scores").count, 0)
        try assertVerifies(dir.file())
    }

    func testMapKeysAndValuesAreCheckedAndNothingIsWritten() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (owner, cat) = try db.write { () throws -> (Int64, Int64) in
            (try db.create("Person", [("name", .string("a"))]), try db.create("Cat", [("name", .string("tom"))]))
        }
        expectError(.notInTransaction) { try db.mapSet("Person", owner, "names", "a", .string("x")) }
        try db.write {
            for bad in ["a.b", "$a", ".", String(repeating: "k", count: 481)] {
                let error = expectError(.invalidArgument) { try db.mapSet("Person", owner, "names", bad, .string("x")) }
                XCTAssertTrue(error?.message.contains("map key") ?? false, error?.message ?? "")
            }
            try db.mapSet("Person", owner, "names", "a$", .string("fine"))
            try db.mapSet("Person", owner, "names", "", .string("empty key"))
            try db.mapSet("Person", owner, "names", "日本", .string("utf8"))
            expectError(.invalidUTF8) {
                try [UInt8]([0xFF]).withUnsafeBytes { try db.realm.map(db.ref("Person", owner, "names")).set(.null, forKey: $0) }
            }
            expectError(.typeMismatch) { try db.mapSet("Person", owner, "names", "b", .int(1)) }
            expectError(.nullNotAllowed) { try db.mapSet("Person", owner, "names", "b", .null) }
            expectError(.typeMismatch) { try db.mapSet("Person", owner, "pets", "b", .link(db.cls("Cat"), cat)) }
            expectError(.invalidArgument) { try db.mapSet("Person", owner, "ints", "b", .int(1)) }
        }
        XCTAssertEqual(try db.map("Person", owner, "names").map { $0.0 }, ["", "a$", "日本"])
        XCTAssertEqual(try db.mapGet("Person", owner, "names", "a$"), .string("fine"))
    }

    func testMapsOfLinksAndEmbeddedObjects() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), embeddedSchema())
        let (owner, rex) = try db.write { () throws -> (Int64, Int64) in
            let o = try db.create("Person", [("name", .string("a"))])
            let rex = try db.create("Dog", [("name", .string("rex"))])
            try db.mapSet("Person", o, "pets", "first", .link(db.cls("Dog"), rex))
            try db.mapSet("Person", o, "pets", "second", .link(db.cls("Dog"), rex))
            try db.mapSet("Person", o, "pets", "none", .null)
            return (o, rex)
        }
        XCTAssertEqual(try db.backlinkCount("Dog", rex), 2)
        // Deleting the dog leaves the keys, with null.
        try db.write { try db.delete("Dog", rex) }
        XCTAssertEqual(try db.map("Person", owner, "pets").map { $0.1 }, [.null, .null, .null])
        XCTAssertEqual(try db.map("Person", owner, "pets").map { $0.0 }, ["first", "none", "second"])
        // Embedded values: created in place, deleted when replaced, removed or with the owner.
        let mapRef = db.ref("Person", owner, "addresses")
        let home = try db.write { () throws -> (classKey: UInt32, objectKey: Int64) in
            expectError(.invalidArgument) { try db.mapSet("Person", owner, "addresses", "x", .link(db.cls("Address"), 0)) }
            let home = try Array("home".utf8).withUnsafeBytes { try db.realm.map(mapRef).insertEmbedded(forKey: $0) }
            try db.set("Address", home.objectKey, "city", .string("Oslo"))
            return home
        }
        XCTAssertEqual(try db.get("Address", home.objectKey, "city"), .string("Oslo"))
        let work = try db.write { () throws -> Int64 in
            let again = try Array("home".utf8).withUnsafeBytes { try db.realm.map(mapRef).insertEmbedded(forKey: $0) }
            XCTAssertFalse(try db.exists("Address", home.objectKey), "the replaced embedded object is deleted")
            let work = try Array("work".utf8).withUnsafeBytes { try db.realm.map(mapRef).insertEmbedded(forKey: $0) }
            try db.mapRemove("Person", owner, "addresses", "home")
            XCTAssertFalse(try db.exists("Address", again.objectKey))
            expectError(.invalidArgument) { try Array("a.b".utf8).withUnsafeBytes { try db.realm.map(mapRef).insertEmbedded(forKey: $0) } }
            expectError(.invalidArgument) { try Array("k".utf8).withUnsafeBytes { try db.realm.map(db.ref("Person", owner, "pets")).insertEmbedded(forKey: $0) } }
            return work.objectKey
        }
        XCTAssertTrue(try db.exists("Address", work))
        try assertVerifies(dir.file())
        try db.write { try db.delete("Person", owner) }
        XCTAssertFalse(try db.exists("Address", work), "embedded values go with their owner")
        try assertVerifies(dir.file())
        // deleteAll of the owner class deletes the embedded values too.
        let last = try db.write { () throws -> Int64 in
            let o = try db.create("Person", [("name", .string("b"))])
            let e = try Array("k".utf8).withUnsafeBytes { try db.realm.map(db.ref("Person", o, "addresses")).insertEmbedded(forKey: $0) }
            return e.objectKey
        }
        try db.write { try db.realm.deleteAll(table: db.cls("Person")) }
        XCTAssertFalse(try db.exists("Address", last))
        try assertVerifies(dir.file())
    }

    func testAddingSetAndMapPropertiesIsAdditive() throws {
        let dir = tempDir()
        let before = makeSchema([("Person", [prop("name", .string)])])
        let key = try {
            let db = try DB.open(dir.file(), before)
            return try db.write { try db.create("Person", [("name", .string("a"))]) }
        }()
        let after = makeSchema([("Person", [prop("name", .string), Property(name: "tags", type: .string, collection: .set),
                                            Property(name: "counts", type: .int, collection: .map)])])
        let db = try DB.open(dir.file(), after)
        XCTAssertEqual(try db.set("Person", key, "tags"), [])
        try db.write {
            try db.setInsert("Person", key, "tags", .string("x"))
            try db.mapSet("Person", key, "counts", "x", .int(1))
        }
        XCTAssertEqual(try db.map("Person", key, "counts").map { $0.1 }, [.int(1)])
    }
}

/// `fief copy` of sets and maps: a sound file copied as it is, and damaged
/// ones (entries deleted or garbled, a whole set database dropped, the
/// objects a set links to lost) copied without what cannot be read, with
/// sizes and backlinks that `fief verify` finds right.
final class SetMapCopyTests: XCTestCase {
    private let schema: Schema = {
        var s = makeSchema([
            ("Dog", [prop("name", .string)]),
            ("Address", [prop("city", .string)]),
            ("Person", [prop("name", .string),
                        Property(name: "ints", type: .int, collection: .set),
                        Property(name: "tags", type: .string, flags: .nullable, collection: .set),
                        Property(name: "decimals", type: .decimal128, collection: .set),
                        Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .set),
                        Property(name: "scores", type: .int, flags: .nullable, collection: .map),
                        Property(name: "pets", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
                        Property(name: "addresses", type: .link, flags: .nullable, linkTarget: "Address", collection: .map)]),
        ])
        s.classes[1].isEmbedded = true
        return s
    }()

    private let long = String(repeating: "z", count: 600)

    private struct Keys {
        var ann: Int64 = 0, bob: Int64 = 0, dogs: [Int64] = [], home: Int64 = 0
    }

    /// Ann and Bob with sets and maps of every kind; Dog 3 deleted (it left
    /// the sets and nulled a map value).
    private func makeFile(_ path: String) throws -> Keys {
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        var k = Keys()
        let dog = db.cls("Dog")
        try db.write {
            k.dogs = try (0..<4).map { try db.create("Dog", [("name", .string("d\($0)"))]) }
            k.ann = try db.create("Person", [("name", .string("Ann"))])
            k.bob = try db.create("Person", [("name", .string("Bob"))])
            for i in [3, 1, 2] as [Int64] { try db.setInsert("Person", k.ann, "ints", .int(i)) }
            for t in [TV.string("x"), .null, .string(long), .string("a")] { try db.setInsert("Person", k.ann, "tags", t) }
            try db.setInsert("Person", k.ann, "decimals", .decimal(Decimal128Bits(low: 15, high: UInt64(6176 - 1) << 49)))
            for d in k.dogs { try db.setInsert("Person", k.ann, "dogs", .link(dog, d)) }
            try db.setInsert("Person", k.bob, "dogs", .link(dog, k.dogs[0]))
            try db.setInsert("Person", k.bob, "ints", .int(7))
            try db.mapSet("Person", k.ann, "scores", "a", .int(1))
            try db.mapSet("Person", k.ann, "scores", "b", .null)
            try db.mapSet("Person", k.ann, "scores", "c", .int(-3))
            try db.mapSet("Person", k.ann, "pets", "first", .link(dog, k.dogs[0]))
            try db.mapSet("Person", k.ann, "pets", "again", .link(dog, k.dogs[0]))
            try db.mapSet("Person", k.ann, "pets", "gone", .link(dog, k.dogs[3]))
            try db.mapSet("Person", k.bob, "pets", "mine", .link(dog, k.dogs[1]))
            let home = try Array("home".utf8).withUnsafeBytes { try db.realm.map(db.ref("Person", k.ann, "addresses")).insertEmbedded(forKey: $0) }
            k.home = home.objectKey
            try db.set("Address", k.home, "city", .string("Oslo"))
        }
        try db.write { try db.delete("Dog", k.dogs[3]) }
        return k
    }

    /// Every set and map of Ann and Bob, as read.
    private func contents(_ path: String, _ k: Keys) throws -> [String] {
        let db = try DB.open(path, nil, readOnly: true)
        defer { db.realm.close() }
        var out: [String] = []
        for owner in [k.ann, k.bob] {
            for name in ["ints", "tags", "decimals", "dogs"] { out.append("\(owner).\(name): \(try db.set("Person", owner, name))") }
            for name in ["scores", "pets", "addresses"] { out.append("\(owner).\(name): \(try db.map("Person", owner, name))") }
        }
        for d in k.dogs.prefix(3) { out.append("dog \(d): \(try db.backlinkCount("Dog", d)) links") }
        out.append("home: \(try db.backlinkCount("Address", k.home)) links, \(try db.get("Address", k.home, "city"))")
        return out
    }

    private func copy(_ path: String, _ to: String) throws -> (Int, [String]) {
        var problems: [String] = []
        let n = try FileCopy.copy(from: path, to: to) { kind, text in if kind == .problem { problems.append(text) } }
        return (n, problems)
    }

    func testSoundSetsAndMapsAreCopiedAsTheyAre() throws {
        let dir = tempDir()
        let path = dir.file()
        let k = try makeFile(path)
        try assertVerifies(path)
        let expected = try contents(path, k)
        do {
            let db = try DB.open(path, nil, readOnly: true)
            let rex = TV.link(db.cls("Dog"), k.dogs[0])
            XCTAssertEqual(try db.map("Person", k.ann, "pets").map { "\($0.0)=\($0.1)" }, ["again=\(rex)", "first=\(rex)", "gone=\(TV.null)"])
            db.realm.close()
        }
        XCTAssertTrue(expected.contains("dog \(k.dogs[0]): 4 links"), expected.joined(separator: "\n"))
        let copied = dir.file("copy.fief")
        var lines: [String] = []
        XCTAssertEqual(try FileCopy.copy(from: path, to: copied) { _, text in lines.append(text) }, 0, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("class 'Person': set 'dogs': 2 sets, 4 entries copied"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("class 'Person': map 'pets': 2 maps, 4 entries copied"), lines.joined(separator: "\n"))
        try assertVerifies(copied)
        XCTAssertEqual(try contents(copied, k), expected)
        // The copy is written again like any file.
        let db = try DB.open(copied, schema)
        try db.write {
            try db.setInsert("Person", k.ann, "ints", .int(4))
            try db.mapRemove("Person", k.ann, "pets", "first")
            try db.delete("Dog", k.dogs[0])
        }
        XCTAssertEqual(try db.set("Person", k.ann, "ints"), [.int(1), .int(2), .int(3), .int(4)])
        XCTAssertEqual(try db.map("Person", k.ann, "pets").map { $0.1 }, [.null, .null])
        db.realm.close()
        try assertVerifies(copied)
    }

    /// Change the raw database `name` of a copy of the sound file.
    private func damaged(_ dir: TempDir, _ label: String, _ original: String, _ database: (DB) -> String,
                         _ body: (OpaquePointer, MDB_dbi) -> Void) throws -> String {
        let path = dir.file("\(label).fief")
        XCTAssertEqual(try FileCopy.copy(from: original, to: path) { _, _ in }, 0)
        let name = try { let db = try DB.open(path, nil, readOnly: true); defer { db.realm.close() }; return database(db) }()
        withRawLMDB(path, database: name, body)
        return path
    }

    private func entryKey(_ owner: Int64, _ rest: [UInt8]) -> [UInt8] {
        var key: [UInt8] = []
        SetStore.appendBigEndian(UInt64(bitPattern: owner), &key)
        return key + rest
    }

    private func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8], line: UInt = #line) {
        var key = key, value = value
        key.withUnsafeMutableBytes { kb in
            value.withUnsafeMutableBytes { vb in
                var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress), v = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                XCTAssertEqual(mdb_put(txn, dbi, &k, &v, 0), 0, line: line)
            }
        }
    }

    private func delete(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: [UInt8], line: UInt = #line) {
        var key = key
        key.withUnsafeMutableBytes { kb in
            var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress)
            XCTAssertEqual(mdb_del(txn, dbi, &k, nil), 0, line: line)
        }
    }

    func testDamagedSetsAndMapsAreSalvaged() throws {
        let dir = tempDir()
        let original = dir.file("original.fief")
        let k = try makeFile(original)
        let expected = try contents(original, k)
        func set(_ name: String) -> (DB) -> String { { Table.setName($0.cls("Person"), $0.pkey("Person", name)) } }
        func map(_ name: String) -> (DB) -> String { { Table.mapName($0.cls("Person"), $0.pkey("Person", name)) } }

        // Elements deleted: Ann's size said 3, the copy has 2 and says so;
        // Bob's only element gone, his size said 1, the copy's says 0.
        var path = try damaged(dir, "deleted", original, set("ints")) { txn, dbi in
            var element: [UInt8] = []
            SetStore.encode(.int(2), owner: k.ann, into: &element)
            delete(txn, dbi, element)
            SetStore.encode(.int(7), owner: k.bob, into: &element)
            delete(txn, dbi, element)
        }
        var verified: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { verified.append(text) } }, 2)
        XCTAssertTrue(verified.contains { $0.contains("set 'ints' of object \(k.ann) holds 2 entries, but its size says 3") }, "\(verified)")
        XCTAssertTrue(verified.contains { $0.contains("set 'ints' of object \(k.bob) holds no entries, but its size says 1") }, "\(verified)")
        var (n, problems) = try copy(path, dir.file("deleted-copy.fief"))
        XCTAssertEqual(n, 1, "\(problems)")
        XCTAssertTrue(problems[0].contains("set 'ints': 2 sizes did not match what is stored (object \(k.ann)'s said 3, 2 found)"), "\(problems)")
        try assertVerifies(dir.file("deleted-copy.fief"))
        var got = try contents(dir.file("deleted-copy.fief"), k)
        XCTAssertEqual(got[0], "\(k.ann).ints: \([TV.int(1), .int(3)])")
        XCTAssertEqual(got[7], "\(k.bob).ints: \([TV]())")
        XCTAssertEqual(Array(got[1...6]), Array(expected[1...6]))
        XCTAssertEqual(Array(got[8...]), Array(expected[8...]))

        // Garbage entries: an element of no type, a key too short, a set
        // element of another owner that does not exist, a map value of the
        // wrong type and one that decodes as nothing.
        // Set entries sealed (format 10): their checksums hold, their contents do not.
        let (personClass, tags) = try { () throws -> (UInt32, UInt32) in
            let db = try DB.open(original, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("Person"), db.pkey("Person", "tags"))
        }()
        func sealedTag(_ key: [UInt8], _ value: [UInt8]) -> [UInt8] {
            value.withUnsafeBytes { v in key.withUnsafeBytes { EntrySeal.sealed(v, table: personClass, database: tags, key: $0) } }
        }
        path = try damaged(dir, "garbage", original, set("tags")) { txn, dbi in
            put(txn, dbi, entryKey(k.ann, [0xEE, 1, 2]), sealedTag(entryKey(k.ann, [0xEE, 1, 2]), []))
            put(txn, dbi, [1, 2, 3], [])
            put(txn, dbi, entryKey(k.ann, [0x30] + Array("cut".utf8)), sealedTag(entryKey(k.ann, [0x30] + Array("cut".utf8)), Array("not the whole string".utf8)))
            put(txn, dbi, entryKey(9999, [0x30, 0x61]), sealedTag(entryKey(9999, [0x30, 0x61]), []))
        }
        let (person, scores) = try { () throws -> (UInt32, UInt32) in
            let db = try DB.open(path, nil, readOnly: true)
            defer { db.realm.close() }
            return (db.cls("Person"), db.pkey("Person", "scores"))
        }()
        // Sealed (format 7): their checksums hold, their values do not.
        func sealed(_ key: [UInt8], _ value: [UInt8]) -> [UInt8] {
            value.withUnsafeBytes { v in key.withUnsafeBytes { EntrySeal.sealed(v, table: person, database: scores, key: $0) } }
        }
        withRawLMDB(path, database: Table.mapName(person, scores)) { txn, dbi in
            var wrong: [UInt8] = []
            MixedCoding.encode(.bool(true), into: &wrong)
            for (key, value) in [("wrong", wrong), ("junk", [0xEE, 0xEE]), ("$bad", [0])] {
                let full = entryKey(k.bob, Array(key.utf8))
                put(txn, dbi, full, sealed(full, value))
            }
        }
        XCTAssertGreaterThan(try FileCheck.verify(path: path) { _, _ in }, 0)
        (n, problems) = try copy(path, dir.file("garbage-copy.fief"))
        XCTAssertEqual(n, 6, problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains("class 'Person': set 'tags' of object \(k.ann): an entry is damaged: left out"), problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains("class 'Person': set 'tags': an entry with a key of 3 bytes is damaged: left out"), problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains("class 'Person': map 'scores' of object \(k.bob): an entry is damaged: left out"), problems.joined(separator: "\n"))
        try assertVerifies(dir.file("garbage-copy.fief"))
        XCTAssertEqual(try contents(dir.file("garbage-copy.fief"), k), expected)

        // A whole set database dropped: its sets are copied empty, sizes 0,
        // and the dogs keep only the maps' links.
        path = try damaged(dir, "dropped", original, set("dogs")) { txn, dbi in
            XCTAssertEqual(mdb_drop(txn, dbi, 1), 0)
        }
        verified = []
        XCTAssertGreaterThan(try FileCheck.verify(path: path) { kind, text in if kind == .problem { verified.append(text) } }, 0)
        XCTAssertTrue(verified.contains { $0.contains("set 'dogs': its elements are missing") }, "\(verified)")
        (n, problems) = try copy(path, dir.file("dropped-copy.fief"))
        XCTAssertEqual(problems, ["class 'Person': set 'dogs': its elements are missing: its sets are copied empty"])
        try assertVerifies(dir.file("dropped-copy.fief"))
        got = try contents(dir.file("dropped-copy.fief"), k)
        XCTAssertEqual(got[3], "\(k.ann).dogs: []")
        XCTAssertEqual(got[10], "\(k.bob).dogs: []")
        XCTAssertEqual(got[14...16], ["dog \(k.dogs[0]): 2 links", "dog \(k.dogs[1]): 1 links", "dog \(k.dogs[2]): 0 links"])
        XCTAssertEqual(Array(got[4...9]), Array(expected[4...9]))
        do {
            let db = try DB.open(dir.file("dropped-copy.fief"), nil, readOnly: true)
            XCTAssertEqual(try db.realm.set(db.ref("Person", k.ann, "dogs")).count(), 0)
            db.realm.close()
        }

        // The dogs lost (their cluster's list of objects damaged): they
        // leave the sets, the map values that held them become null.
        path = try damaged(dir, "lost", original, { Table.dataName($0.cls("Dog")) }) { txn, dbi in
            var key = ClusterLayout.chunkKey(column: ClusterLayout.presenceColumn, cluster: 0)
            withUnsafeMutableBytes(of: &key) { kb in
                var k = MDB_val(mv_size: 8, mv_data: kb.baseAddress), v = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                var bytes = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                bytes[0] ^= 0x01
                bytes.withUnsafeMutableBytes { vb in
                    var nv = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &k, &nv, 0), 0)
                }
            }
        }
        (n, problems) = try copy(path, dir.file("lost-copy.fief"))
        XCTAssertTrue(problems.contains("class 'Person': set 'dogs' of object \(k.ann): it held Dog object \(k.dogs[1]), which was lost: left out"), problems.joined(separator: "\n"))
        XCTAssertTrue(problems.contains("class 'Person': map 'pets' of object \(k.ann): the value of key 'first' is Dog object \(k.dogs[0]), which was lost: copied as null"), problems.joined(separator: "\n"))
        XCTAssertFalse(problems.contains { $0.contains("sizes did not match") }, problems.joined(separator: "\n"))
        try assertVerifies(dir.file("lost-copy.fief"))
        let db = try DB.open(dir.file("lost-copy.fief"), nil, readOnly: true)
        XCTAssertEqual(try db.count("Dog"), 0)
        XCTAssertEqual(try db.set("Person", k.ann, "dogs"), [])
        XCTAssertEqual(try db.set("Person", k.bob, "dogs"), [])
        XCTAssertEqual(try db.map("Person", k.ann, "pets").map { $0.1 }, [.null, .null, .null])
        XCTAssertEqual(try db.map("Person", k.bob, "pets").map { "\($0.0)=\($0.1)" }, ["mine=null"])
        XCTAssertEqual(try db.set("Person", k.ann, "ints"), [.int(1), .int(2), .int(3)])
        db.realm.close()
    }
}

extension SetMapCopyTests {
    /// A page of a set's tree with a broken header: the file's set cannot
    /// be read, and a copy keeps what the other pages hold.
    func testDamagedSetPagesAreSalvaged() throws {
        let dir = tempDir()
        let made = dir.file("made.fief"), path = dir.file("compact.fief")
        var owner: Int64 = 0
        let all = (0..<2000).map { $0 == 1234 ? "needle" : "element \($0) " + String(repeating: "p", count: $0 % 20) }
        do {
            let db = try DB.open(made, makeSchema([("A", [Property(name: "s", type: .string, collection: .set)])]))
            owner = try db.write { () throws -> Int64 in
                let o = try db.create("A", [])
                for e in all { try db.setInsert("A", o, "s", .string(e)) }
                return o
            }
            db.realm.close()
        }
        // A compact copy holds each page once.
        XCTAssertEqual(try FileCopy.copy(from: made, to: path) { _, _ in }, 0)
        damagePage(holding: "needle", in: path)
        var problems: [String] = []
        XCTAssertGreaterThan(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 0)
        XCTAssertTrue(problems.contains { $0.hasPrefix("the pages of database 'c") && $0.contains(".s") && $0.contains("are damaged") }, "\(problems)")
        let salvaged = dir.file("salvaged.fief")
        problems = []
        XCTAssertEqual(try FileCopy.copy(from: path, to: salvaged) { kind, text in if kind == .problem { problems.append(text) } }, 1, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix("class 'A': set 's': its pages are damaged"), "\(problems)")
        try assertVerifies(salvaged)
        let db = try DB.open(salvaged, nil, readOnly: true)
        let kept = try db.set("A", owner, "s")
        XCTAssertFalse(kept.contains(.string("needle")))
        XCTAssertGreaterThan(kept.count, 1800, "one page of about 100 elements lost")
        XCTAssertEqual(kept, all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { TV.string($0) }.filter { kept.contains($0) })
        db.realm.close()
    }
}

/// `fief verify`'s problems for `path`: none expected.
func assertVerifies(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
    var lines: [String] = []
    XCTAssertEqual(try FileCheck.verify(path: path) { _, text in lines.append(text) }, 0, lines.joined(separator: "\n"), file: file, line: line)
}
