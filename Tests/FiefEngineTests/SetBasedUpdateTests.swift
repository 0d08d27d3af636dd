import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Set-based update (`Results.setValue(_:property:)`): one property of every
/// object of a results set in one call, for every scalar type, indexed
/// properties, links (backlinks kept exact), embedded objects, mixed values
/// and list and linking-object results; filtered results keep the objects
/// they had when the call began, live results evaluate again, and every bad
/// input is refused with nothing written.
final class SetBasedUpdateTests: XCTestCase {
    private let schema: Schema = {
        var schema = makeSchema([
            ("Item", [prop("id", .int, .primaryKey), prop("i", .int), prop("oi", .int, .nullable), prop("b", .bool),
                      prop("s", .string), prop("os", .string, .nullable), prop("bin", .binary), prop("ts", .timestamp),
                      prop("f", .float), prop("d", .double), prop("od", .double, .nullable), prop("dec", .decimal128),
                      prop("oid", .objectId), prop("uuid", .uuid), prop("tag", .string, .indexed),
                      prop("any", .mixed),
                      Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
                      Property(name: "home", type: .link, flags: .nullable, linkTarget: "Address"),
                      Property(name: "dogs", type: .link, flags: [], linkTarget: "Dog", collection: .list),
                      Property(name: "tags", type: .string, collection: .list)]),
            ("Dog", [prop("name", .string)]),
            ("Address", [prop("street", .string)]),
            ("Cat", [prop("name", .string)]),
        ])
        schema.classes[2].isEmbedded = true
        return schema
    }()

    /// A realm with `count` items (ids 1...count, i = id, tag "t<id % 3>") and three dogs.
    private func open(_ dir: TempDir, items count: Int) throws -> DB {
        let db = try DB.open(dir.file(), schema)
        try db.write {
            if count > 0 {
                _ = try db.createMany("Item", ["id", "i", "tag"], (1...count).map { [.int(Int64($0)), .int(Int64($0)), .string("t\($0 % 3)")] })
            }
            _ = try db.createMany("Dog", ["name"], [[.string("Rex")], [.string("Max")], [.string("Bo")]])
        }
        return db
    }

    private func setAll(_ db: DB, _ results: ObjectResults, _ name: String, _ value: TV) throws {
        let key = db.pkey("Item", name)
        try TV.withValues([value]) { v in try results.setValue(v[0], property: key) }
    }

    private func column(_ db: DB, _ name: String) throws -> [TV] {
        try db.keys("Item").map { try db.get("Item", $0, name) }
    }

    /// The distinct values of property `name` over every item, in key order.
    private func distinct(_ db: DB, _ name: String) throws -> [TV] {
        var seen: [TV] = []
        for value in try column(db, name) where !seen.contains(value) { seen.append(value) }
        return seen
    }

    private func backlinks(_ db: DB, toDog dog: Int64) throws -> [Int64] {
        try ObjectResults(realm: db.realm, linkingTo: dog, of: db.cls("Dog"), originClass: db.cls("Item"), property: db.pkey("Item", "dog")).allKeys()
    }

    private func verifyClean(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var problems: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 0,
                       problems.joined(separator: "\n"), file: file, line: line)
    }

    func testEveryScalarTypeIsSetOnEveryObjectAcrossClusters() throws {
        let dir = tempDir()
        let db = try open(dir, items: 700)   // three clusters
        let oid = TV.oid(bytes: Array(1...12)), uuid = TV.uuid(bytes: Array(1...16))
        let dec = TV.decimal(Decimal128Bits(low: 25, high: 0x3040_0000_0000_0000))
        let values: [(String, TV)] = [
            ("i", .int(-7)), ("oi", .int(Int64.max)), ("b", .bool(true)), ("s", .string("héllo")), ("os", .string("")),
            ("bin", .binary([0, 1, 2, 255])), ("ts", .timestamp(1_700_000_000, 5)), ("f", .float(1.5)), ("d", .double(-2.25)),
            ("od", .double(3)), ("dec", dec), ("oid", oid), ("uuid", uuid),
        ]
        try db.write {
            let all = try db.results("Item")
            for (name, value) in values { try setAll(db, all, name, value) }
            for (name, value) in values {
                XCTAssertEqual(try distinct(db, name), [value], "\(name) in the transaction")
            }
        }
        for (name, value) in values { XCTAssertEqual(try distinct(db, name), [value], name) }
        XCTAssertEqual(try column(db, "id"), (1...700).map { .int(Int64($0)) }, "other columns untouched")
        // Conversions as for one object: an int into a double or float property.
        try db.write {
            try setAll(db, try db.results("Item"), "d", .int(4))
            try setAll(db, try db.results("Item"), "f", .int(2))
            try setAll(db, try db.results("Item"), "oi", .null)
            try setAll(db, try db.results("Item"), "os", .null)
        }
        XCTAssertEqual(try distinct(db, "d"), [.double(4)])
        XCTAssertEqual(try distinct(db, "f"), [.float(2)])
        XCTAssertEqual(try distinct(db, "oi"), [.null])
        XCTAssertEqual(try distinct(db, "os"), [.null])
        db.realm.close()
        // Stored as it reads: reopened, and checked chunk by chunk.
        let again = try DB.open(dir.file(), nil)
        XCTAssertEqual(try distinct(again, "s"), [.string("héllo")])
        XCTAssertEqual(try distinct(again, "bin"), [.binary([0, 1, 2, 255])])
        XCTAssertEqual(try distinct(again, "d"), [.double(4)])
        again.realm.close()
        try verifyClean(dir.file())
    }

    func testFilteredResultsSetTheObjectsTheyHeldAndLiveResultsFollow() throws {
        let dir = tempDir()
        let db = try open(dir, items: 600)
        let young = try db.query("Item", "i <= 300")
        let sortedByB = try db.results("Item").sorted(by: [("b", false), ("id", true)])
        XCTAssertEqual(try sortedByB.key(at: 0), 0)
        try db.write {
            XCTAssertEqual(try young.count(), 300)
            // Every object that matched is set, although none matches afterwards.
            try setAll(db, young, "i", .int(1000))
            XCTAssertEqual(try young.count(), 0, "filtered on the property set: evaluated again")
            try setAll(db, try db.query("Item", "id > 500"), "b", .bool(true))
            XCTAssertEqual(try sortedByB.key(at: 0), try db.find("Item", .int(501)), "sorted on it: sorted again")
        }
        XCTAssertEqual(try db.keys("Item", "i == 1000").count, 300)
        XCTAssertEqual(try db.keys("Item", "i == 1000"), try db.keys("Item", "id <= 300"))
        XCTAssertEqual(try db.keys("Item", "i > 300 AND i <= 600").count, 300, "the others keep their values")
        XCTAssertEqual(try db.keys("Item", "b == true"), try db.keys("Item", "id > 500"))
        // Empty results change nothing.
        let before = try column(db, "i")
        try db.write { try setAll(db, try db.query("Item", "id < 0"), "i", .int(5)) }
        XCTAssertEqual(try column(db, "i"), before)
    }

    func testIndexedPropertyKeepsItsIndexExact() throws {
        let dir = tempDir()
        let db = try open(dir, items: 500)
        try db.write {
            try setAll(db, try db.query("Item", "tag == 't1'"), "tag", .string("blue"))
            XCTAssertEqual(try db.keys("Item", "tag == 't1'"), [])
            // Object k has id k + 1: ids 1, 4, 7, ... had tag "t1".
            XCTAssertEqual(try db.keys("Item", "tag == 'blue'"), try db.keys("Item").filter { ($0 + 1) % 3 == 1 })
        }
        XCTAssertEqual(try db.keys("Item", "tag == 'blue'").count, 167)
        try db.write { try setAll(db, try db.results("Item"), "tag", .string("blue")) }
        XCTAssertEqual(try db.keys("Item", "tag == 'blue'").count, 500)
        XCTAssertEqual(try db.keys("Item", "tag == 't0'").count, 0)
        db.realm.close()
        try verifyClean(dir.file())
    }

    func testLinksMoveEveryBacklink() throws {
        let dir = tempDir()
        let db = try open(dir, items: 300)
        let dogClass = db.cls("Dog")
        let dogs = try db.keys("Dog")
        try db.write {
            try setAll(db, try db.query("Item", "id <= 100"), "dog", .link(dogClass, dogs[0]))
            try setAll(db, try db.query("Item", "id > 100"), "dog", .link(dogClass, dogs[1]))
        }
        XCTAssertEqual(try backlinks(db, toDog: dogs[0]), try db.keys("Item", "id <= 100"))
        XCTAssertEqual(try backlinks(db, toDog: dogs[1]).count, 200)
        try db.write {
            // Objects already linking there keep their backlink once.
            try setAll(db, try db.results("Item"), "dog", .link(dogClass, dogs[1]))
        }
        XCTAssertEqual(try backlinks(db, toDog: dogs[0]), [])
        XCTAssertEqual(try backlinks(db, toDog: dogs[1]), try db.keys("Item"))
        XCTAssertEqual(try db.keys("Item", "dog == $0", [.link(dogClass, dogs[1])]).count, 300)
        try db.write { try setAll(db, try db.query("Item", "id > 150"), "dog", .null) }
        XCTAssertEqual(try backlinks(db, toDog: dogs[1]), try db.keys("Item", "id <= 150"))
        // A deleted target nulls every link set this way.
        try db.write { try db.delete("Dog", dogs[1]) }
        XCTAssertEqual(try db.keys("Item", "dog != nil"), [])
        try db.write {
            expectError(.typeMismatch, "not to an object of class 'Cat'") {
                try setAll(db, try db.results("Item"), "dog", .link(db.cls("Cat"), 0))
            }
            expectError(.noSuchObject, "does not exist") {
                try setAll(db, try db.results("Item"), "dog", .link(dogClass, dogs[1]))
            }
        }
        db.realm.close()
        try verifyClean(dir.file())
    }

    func testEmbeddedLinksCanOnlyBeCleared() throws {
        let dir = tempDir()
        let db = try open(dir, items: 3)
        let home = db.pkey("Item", "home")
        var addresses: [Int64] = []
        try db.write {
            for item in try db.keys("Item") {
                addresses.append(try db.realm.createEmbedded(table: db.cls("Item"), key: item, property: home).objectKey)
            }
            expectError(.invalidArgument, "create it in place") {
                try setAll(db, try db.results("Item"), "home", .link(db.cls("Address"), addresses[0]))
            }
            try setAll(db, try db.query("Item", "id >= 2"), "home", .null)
        }
        XCTAssertEqual(try db.get("Item", try db.keys("Item")[0], "home"), .link(db.cls("Address"), addresses[0]))
        XCTAssertFalse(try db.exists("Address", addresses[1]), "the link owned it: deleted with it")
        XCTAssertFalse(try db.exists("Address", addresses[2]))
        db.realm.close()
        try verifyClean(dir.file())
    }

    func testMixedValuesOfEveryKind() throws {
        let dir = tempDir()
        let db = try open(dir, items: 300)
        let dogClass = db.cls("Dog"), itemClass = db.cls("Item"), any = db.pkey("Item", "any")
        let dogs = try db.keys("Dog")
        try db.write { try setAll(db, try db.results("Item"), "any", .string("text")) }
        XCTAssertEqual(try distinct(db, "any"), [.string("text")])
        try db.write { try setAll(db, try db.query("Item", "id <= 100"), "any", .link(dogClass, dogs[2])) }
        let mixedBacklinks = try ObjectResults(realm: db.realm, linkingTo: dogs[2], of: dogClass, originClass: itemClass, property: any)
        XCTAssertEqual(try mixedBacklinks.allKeys(), try db.keys("Item", "id <= 100"))
        // A nested list each: the links the slots held lose their backlinks.
        try db.write { try setAll(db, try db.results("Item"), "any", .nestedList(0)) }
        XCTAssertEqual(try mixedBacklinks.count(), 0)
        var ids = Set<Int64>()
        for item in try db.keys("Item") {
            guard case .nestedList(let id) = try db.get("Item", item, "any") else { return XCTFail("no nested list") }
            ids.insert(id)
            XCTAssertEqual(try db.realm.nestedCount(CollectionRef(nested: .list, table: itemClass, owner: item, property: any, id: id)), 0)
        }
        XCTAssertEqual(ids.count, 300, "every object its own list")
        let first = try db.keys("Item")[0]
        guard case .nestedList(let firstID) = try db.get("Item", first, "any") else { return XCTFail() }
        let ref = CollectionRef(nested: .list, table: itemClass, owner: first, property: any, id: firstID)
        try db.write { try TV.withValues([.int(1), .link(dogClass, dogs[0])]) { try db.realm.list(ref).append(UnsafeBufferPointer($0)) } }
        // Replaced, the nested lists go (with the link inside).
        try db.write { try setAll(db, try db.results("Item"), "any", .double(0.5)) }
        XCTAssertFalse(try db.realm.nestedExists(ref))
        XCTAssertEqual(try distinct(db, "any"), [.double(0.5)])
        try db.write { try setAll(db, try db.results("Item"), "any", .null) }
        XCTAssertEqual(try distinct(db, "any"), [.null])
        db.realm.close()
        try verifyClean(dir.file())
    }

    func testListAndLinkingObjectResults() throws {
        let dir = tempDir()
        let db = try open(dir, items: 2)
        let items = try db.keys("Item"), dogs = try db.keys("Dog")
        let dogClass = db.cls("Dog"), itemClass = db.cls("Item"), dogsKey = db.pkey("Item", "dogs")
        let cat = try db.write { try db.create("Cat", [("name", .string("Tom"))]) }
        try db.write {
            // Rex twice, Bo once.
            try TV.withValues([.link(dogClass, dogs[0]), .link(dogClass, dogs[2]), .link(dogClass, dogs[0])]) {
                try db.realm.list(CollectionRef(.list, table: itemClass, owner: items[0], property: dogsKey)).append(UnsafeBufferPointer($0))
            }
            try setAll(db, try db.results("Item"), "dog", .link(dogClass, dogs[1]))
        }
        let listed = try ObjectResults(realm: db.realm, list: dogsKey, of: items[0], in: itemClass)
        try db.write {
            try TV.withValues([.string("listed")]) { try listed.setValue($0[0], property: db.pkey("Dog", "name")) }
        }
        XCTAssertEqual(try db.keys("Dog").map { try db.get("Dog", $0, "name") }, [.string("listed"), .string("Max"), .string("listed")])
        // The objects linking to Max: both items.
        let linking = try ObjectResults(realm: db.realm, linkingTo: dogs[1], of: dogClass, originClass: itemClass, property: db.pkey("Item", "dog"))
        try db.write { try setAll(db, linking, "i", .int(42)) }
        XCTAssertEqual(try distinct(db, "i"), [.int(42)])
        XCTAssertEqual(try db.get("Cat", cat, "name"), .string("Tom"))
        db.realm.close()
        try verifyClean(dir.file())
    }

    func testLargeStringsAndAValueReadFromTheColumnItself() throws {
        let dir = tempDir()
        let db = try open(dir, items: 600)
        let long = String(repeating: "x", count: 3000)
        try db.write { try setAll(db, try db.results("Item"), "s", .string(long)) }   // chunks in parts
        XCTAssertEqual(try distinct(db, "s"), [.string(long)])
        try db.write {
            try db.set("Item", 0, "s", .string("from the first object"))
            // The value is a view of the column being rewritten.
            let view = try db.realm.value(table: db.cls("Item"), key: 0, property: db.pkey("Item", "s"))
            try db.results("Item").setValue(view, property: db.pkey("Item", "s"))
            XCTAssertEqual(try distinct(db, "s"), [.string("from the first object")])
        }
        XCTAssertEqual(try distinct(db, "s"), [.string("from the first object")])
        db.realm.close()
        try verifyClean(dir.file())
    }

    func testBadInputIsRefusedAndNothingChanges() throws {
        let dir = tempDir()
        let db = try open(dir, items: 10)
        let all = try db.results("Item")
        expectError(.notInTransaction) { try setAll(db, all, "i", .int(1)) }
        try db.write {
            expectError(.noSuchProperty) { try all.setValue(.int(1), property: 999) }
            expectError(.typeMismatch, "holds int values, not string") { try setAll(db, all, "i", .string("x")) }
            expectError(.typeMismatch, "holds links to 'Dog'") { try setAll(db, all, "dog", .int(1)) }
            expectError(.nullNotAllowed) { try setAll(db, all, "i", .null) }
            expectError(.invalidArgument, "invalid timestamp") { try setAll(db, all, "ts", .timestamp(1, -5)) }
            let invalidUTF8: [UInt8] = [0xC3, 0x28]
            try invalidUTF8.withUnsafeBytes { (raw) in
                expectError(.invalidUTF8) { try all.setValue(.string(raw), property: db.pkey("Item", "s")) }
            }
            expectError(.typeMismatch, "is a list") { try setAll(db, all, "tags", .string("x")) }
            expectError(.typeMismatch, "is a list") { try setAll(db, all, "dogs", .null) }
            // The primary key, as in realm-core: never, even for one object or none.
            expectError(.primaryKeyChange, "primary key") { try setAll(db, all, "id", .int(5)) }
            expectError(.primaryKeyChange) { try setAll(db, try db.query("Item", "id == 3"), "id", .int(3)) }
            expectError(.primaryKeyChange) { try setAll(db, try db.query("Item", "id < 0"), "id", .int(3)) }
            // The transaction is still usable: the errors wrote nothing.
            try setAll(db, try db.query("Item", "id == 1"), "i", .int(-1))
        }
        XCTAssertEqual(try column(db, "i"), [.int(-1)] + (2...10).map { .int(Int64($0)) })
        XCTAssertEqual(try column(db, "id"), (1...10).map { .int(Int64($0)) })
        // Frozen and read-only realms, closed realms.
        let frozen = try all.resolved(in: try db.realm.freeze())
        expectError(.frozen) { try setAll(db, frozen, "i", .int(1)) }
        db.realm.close()
        expectError(.closed) { try setAll(db, all, "i", .int(1)) }
        let readOnly = try DB.open(dir.file(), nil, readOnly: true)
        expectError(.readOnly) { try setAll(readOnly, try readOnly.results("Item"), "i", .int(1)) }
    }
}
