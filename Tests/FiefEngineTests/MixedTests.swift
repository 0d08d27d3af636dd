import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Mixed values: properties and list, set and map elements of every type,
/// links to any class with their backlinks, Realm's equality across number
/// types, and the errors that change nothing.
final class MixedTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Cat", [prop("name", .string)]),
        ("Box", [prop("label", .string),
                 prop("anyValue", .mixed),
                 Property(name: "items", type: .mixed, collection: .list),
                 Property(name: "bag", type: .mixed, collection: .set),
                 Property(name: "props", type: .mixed, collection: .map)]),
    ])

    private func dec(_ coefficient: UInt64, _ exponent: Int) -> TV {
        .decimal(Decimal128Bits(low: coefficient, high: UInt64(exponent + 6176) << 49))
    }

    private let samples: [TV] = [.null, .int(-7), .bool(true), .string("héllo"), .binary([0, 1, 2]), .timestamp(-5, -3),
                                 .float(1.5), .double(2.25), .decimal(Decimal128Bits(low: 15, high: UInt64(6176 - 1) << 49)),
                                 .oid(bytes: Array(1...12)), .uuid(bytes: Array(1...16))]

    func testSchemaRules() throws {
        // A mixed property can be indexed (as in realm-core: see IndexPlanTests), not be a primary key.
        let s = makeSchema([("A", [prop("m", .mixed, .primaryKey)])])
        let error = expectError(.invalidSchema) { try s.validate() }
        XCTAssertTrue(error?.message.contains("primary key") ?? false, error?.message ?? "")
        XCTAssertNoThrow(try makeSchema([("A", [prop("m", .mixed, [.nullable, .indexed])])]).validate())
        let targeted = Schema(classes: [ObjectClass(name: "A", properties: [Property(name: "m", type: .mixed, linkTarget: "A")])])
        expectError(.invalidSchema) { try targeted.validate() }
        XCTAssertNoThrow(try schema.validate())
    }

    func testMixedPropertyHoldsEveryTypeAndPersists() throws {
        let dir = tempDir()
        var keys: [Int64] = []
        do {
            let db = try DB.open(dir.file(), schema)
            keys = try db.write { try samples.map { try db.create("Box", [("label", .string("x")), ("anyValue", $0)]) } }
            for (key, value) in zip(keys, samples) { XCTAssertEqual(try db.get("Box", key, "anyValue"), value) }
            // Changing the type of a value in place.
            try db.write {
                try db.set("Box", keys[1], "anyValue", .string("now a string"))
                try db.set("Box", keys[3], "anyValue", .int(3))
            }
            XCTAssertEqual(try db.get("Box", keys[1], "anyValue"), .string("now a string"))
            XCTAssertEqual(try db.get("Box", keys[3], "anyValue"), .int(3))
        }
        let db = try DB.open(dir.file(), schema)
        XCTAssertEqual(try db.get("Box", keys[3], "anyValue"), .int(3))
        XCTAssertEqual(try db.get("Box", keys[9], "anyValue"), samples[9])
        XCTAssertEqual(try db.get("Box", keys[0], "anyValue"), .null)
        // Queries and sorts follow Realm's order of mixed values (numbers
        // by value across types, each other type apart).
        XCTAssertEqual(try db.keys("Box", "anyValue == 3"), [keys[3]])
        XCTAssertEqual(try db.keys("Box", "anyValue == 1.5"), [keys[6], keys[8]])
        XCTAssertEqual(try db.keys("Box", "anyValue == 'now a string'"), [keys[1]])
        XCTAssertEqual(try db.results("Box").sorted(by: [("anyValue", true)]).allKeys(),
                       [0, 2, 6, 8, 7, 3, 1, 4, 5, 9, 10].map { keys[$0] })
        try assertVerifies(dir.file())
    }

    func testMixedLinksToAnyClassKeepBacklinks() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (box, dog, cat) = try db.write { () throws -> (Int64, Int64, Int64) in
            let dog = try db.create("Dog", [("name", .string("rex"))]), cat = try db.create("Cat", [("name", .string("tom"))])
            let box = try db.create("Box", [("label", .string("b")), ("anyValue", .link(db.cls("Dog"), dog))])
            return (box, dog, cat)
        }
        XCTAssertEqual(try db.backlinkCount("Dog", dog), 1)
        XCTAssertEqual(try db.get("Box", box, "anyValue"), .link(db.cls("Dog"), dog))
        try db.write {
            try db.set("Box", box, "anyValue", .link(db.cls("Cat"), cat))
            expectError(.noSuchObject) { try db.set("Box", box, "anyValue", .link(db.cls("Dog"), dog + 50)) }
            expectError(.noSuchClass) { try db.set("Box", box, "anyValue", .link(999, 0)) }
            expectError(.invalidUTF8) { try [UInt8]([0xC3]).withUnsafeBytes { try db.realm.setValue(table: db.cls("Box"), key: box, property: db.pkey("Box", "anyValue"), value: .string($0)) } }
        }
        XCTAssertEqual(try db.get("Box", box, "anyValue"), .link(db.cls("Cat"), cat))
        XCTAssertEqual(try db.backlinkCount("Dog", dog), 0)
        XCTAssertEqual(try db.backlinkCount("Cat", cat), 1)
        try assertVerifies(dir.file())
        // Deleting the target nulls the value; deleting the owner releases the backlink.
        try db.write { try db.delete("Cat", cat) }
        XCTAssertEqual(try db.get("Box", box, "anyValue"), .null)
        try db.write { try db.set("Box", box, "anyValue", .link(db.cls("Dog"), dog)) }
        try db.write { try db.delete("Box", box) }
        XCTAssertEqual(try db.backlinkCount("Dog", dog), 0)
        try assertVerifies(dir.file())
    }

    func testListsOfMixedValues() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (box, dog, cat) = try db.write { () throws -> (Int64, Int64, Int64) in
            let dog = try db.create("Dog", [("name", .string("rex"))]), cat = try db.create("Cat", [("name", .string("tom"))])
            let box = try db.create("Box", [("label", .string("b"))])
            try db.append("Box", box, "items", samples + [.link(db.cls("Dog"), dog), .link(db.cls("Cat"), cat), .link(db.cls("Dog"), dog)])
            return (box, dog, cat)
        }
        XCTAssertEqual(try db.list("Box", box, "items"), samples + [.link(db.cls("Dog"), dog), .link(db.cls("Cat"), cat), .link(db.cls("Dog"), dog)])
        XCTAssertEqual(try db.backlinkCount("Dog", dog), 2)
        // Realm's equality: numbers by value across types, nothing else across types.
        let find = { (v: TV) throws -> Int? in
            try TV.withValues([v]) { try db.realm.list(CollectionRef(.list, table: db.cls("Box"), owner: box, property: db.pkey("Box", "items"))).firstIndex(of: $0[0]) }
        }
        XCTAssertEqual(try find(.double(-7)), 1)
        XCTAssertEqual(try find(.int(-7)), 1)
        XCTAssertEqual(try find(dec(225, -2)), 7, "decimal 2.25 equals double 2.25")
        XCTAssertEqual(try find(.int(1)), nil, "true is not 1")
        XCTAssertEqual(try find(.string("-7")), nil, "'-7' is not -7")
        XCTAssertEqual(try find(.link(db.cls("Cat"), cat)), 12)
        // Deleting a dog removes exactly its elements (not the cat with the same key).
        try db.write { try db.delete("Dog", dog) }
        XCTAssertEqual(try db.list("Box", box, "items"), samples + [.link(db.cls("Cat"), cat)])
        try db.write { try db.setElement("Box", box, "items", 0, .string("first")) }
        XCTAssertEqual(try db.list("Box", box, "items").first, .string("first"))
        try assertVerifies(dir.file())
        try db.write { try db.delete("Box", box) }
        XCTAssertEqual(try db.backlinkCount("Cat", cat), 0)
        try assertVerifies(dir.file())
    }

    func testSetsOfMixedValuesCompareNumbersByValue() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (box, dog, cat) = try db.write { () throws -> (Int64, Int64, Int64) in
            let dog = try db.create("Dog", [("name", .string("rex"))]), cat = try db.create("Cat", [("name", .string("tom"))])
            return (try db.create("Box", [("label", .string("b"))]), dog, cat)
        }
        try db.write {
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .int(1)))
            XCTAssertFalse(try db.setInsert("Box", box, "bag", .double(1.0)))
            XCTAssertFalse(try db.setInsert("Box", box, "bag", .float(1)))
            XCTAssertFalse(try db.setInsert("Box", box, "bag", dec(10, -1)))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .string("1")))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .bool(true)))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .double(0.5)))
            XCTAssertFalse(try db.setInsert("Box", box, "bag", dec(5, -1)), "decimal 0.5 is the double 0.5")
            XCTAssertTrue(try db.setInsert("Box", box, "bag", dec(1, -1)), "decimal 0.1 is not a double")
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .int(-3)))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .null))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .link(db.cls("Dog"), dog)))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .link(db.cls("Cat"), cat)))
            XCTAssertTrue(try db.setInsert("Box", box, "bag", .double(2.5)))
        }
        // Types in Realm's order, numbers by value, each as first added.
        XCTAssertEqual(try db.set("Box", box, "bag"), [.null, .bool(true), .int(-3), dec(1, -1), .double(0.5), .int(1), .double(2.5), .string("1"),
                                                       .link(db.cls("Dog"), dog), .link(db.cls("Cat"), cat)].sorted { a, b in
            // Links sort by class key, then object key.
            if case .link(let c1, _) = a, case .link(let c2, _) = b { return c1 < c2 }
            return false
        })
        XCTAssertTrue(try db.setContains("Box", box, "bag", .double(-3)))
        XCTAssertTrue(try db.setContains("Box", box, "bag", dec(25, -1)))
        XCTAssertFalse(try db.setContains("Box", box, "bag", .string("2.5")))
        XCTAssertEqual(try db.backlinkCount("Dog", dog), 1)
        try db.write {
            XCTAssertTrue(try db.setRemove("Box", box, "bag", .double(-3.0)))
            try db.delete("Dog", dog)
        }
        XCTAssertFalse(try db.setContains("Box", box, "bag", .link(db.cls("Dog"), dog)))
        XCTAssertTrue(try db.setContains("Box", box, "bag", .link(db.cls("Cat"), cat)))
        XCTAssertEqual(try db.realm.set(db.ref("Box", box, "bag")).count(), 8)
        try assertVerifies(dir.file())
    }

    func testMapsOfMixedValues() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (box, dog) = try db.write { () throws -> (Int64, Int64) in
            let dog = try db.create("Dog", [("name", .string("rex"))])
            let box = try db.create("Box", [("label", .string("b"))])
            for (i, v) in samples.enumerated() { try db.mapSet("Box", box, "props", "k\(i < 10 ? "0" : "")\(i)", v) }
            try db.mapSet("Box", box, "props", "pet", .link(db.cls("Dog"), dog))
            return (box, dog)
        }
        XCTAssertEqual(try db.map("Box", box, "props").map { $0.1 }, samples + [.link(db.cls("Dog"), dog)])
        try db.write { try db.delete("Dog", dog) }
        XCTAssertEqual(try db.mapGet("Box", box, "props", "pet"), .null)
        try assertVerifies(dir.file())
    }
}
