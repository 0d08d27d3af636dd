import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Sort, distinct and limit stages of results, applied left to right as
/// realm-core applies them, over key paths through to-one links and
/// embedded objects; against a brute-force model on random data and
/// writes, and on the cases Realm's own tests pin down.
final class ResultsOrderingTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Person", properties: [
            prop("name", .string, .nullable), prop("age", .int), prop("score", .mixed),
            Property(name: "address", type: .link, flags: .nullable, linkTarget: "Address"),
            Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Person"),
            Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
            Property(name: "tags", type: .string, collection: .list),
        ]),
        ObjectClass(name: "Address", properties: [prop("city", .string, .nullable), prop("zip", .int)], isEmbedded: true),
        ObjectClass(name: "Dog", properties: [
            prop("name", .string), prop("age", .int), prop("weight", .decimal128, .nullable), prop("any", .mixed),
            Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person"),
        ]),
        ObjectClass(name: "Bag", properties: [
            Property(name: "ints", type: .int, flags: .nullable, collection: .list),
            Property(name: "anys", type: .mixed, collection: .list),
            Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
        ]),
    ])

    private func open() throws -> DB { try DB.open(tempDir().file(), schema) }

    private func sort(_ keys: (String, Bool)...) -> ResultsStage {
        .sort(keys.map { SortKeyPath($0.0, ascending: $0.1) })
    }

    private func keys(_ results: ObjectResults) throws -> [Int64] { try results.allKeys() }

    private func person(_ db: DB, _ name: String?, age: Int64 = 0, city: String? = nil) throws -> Int64 {
        let key = try db.create("Person", [("name", name.map { .string($0) } ?? .null), ("age", .int(age))])
        if let city { try setCity(db, key, city) }
        return key
    }

    private func setCity(_ db: DB, _ person: Int64, _ city: String?) throws {
        let address = try db.realm.createEmbedded(table: db.cls("Person"), key: person, property: db.pkey("Person", "address"))
        try db.set("Address", address.objectKey, "city", city.map { .string($0) } ?? .null)
    }

    private func dog(_ db: DB, _ name: String, age: Int64 = 0, owner: Int64?) throws -> Int64 {
        try db.create("Dog", [("name", .string(name)), ("age", .int(age)),
                              ("owner", owner.map { .link(db.cls("Person"), $0) } ?? .null)])
    }

    private func dec(_ coefficient: UInt64, _ exponent: Int) -> TV {
        .decimal(Decimal128Bits(low: coefficient, high: UInt64(exponent + 6176) << 49))
    }

    // MARK: Key paths

    /// realm-core's order for a key path through a link (test_query.cpp,
    /// Query_SortLinkChains): a null at the end of the path is a value and
    /// comes first ascending; an object whose link is null comes after every
    /// value ascending and before every value descending.
    func testSortByLinkedPropertyOrdersNullValuesFirstAndNullLinksLast() throws {
        let db = try open()
        var d: [Int64] = []
        try db.write {
            let ann = try person(db, "Ann"), unnamed = try person(db, nil), zed = try person(db, "Zed"), emile = try person(db, "Émile")
            d = [try dog(db, "d0", owner: zed), try dog(db, "d1", owner: nil), try dog(db, "d2", owner: ann),
                 try dog(db, "d3", owner: unnamed), try dog(db, "d4", owner: emile), try dog(db, "d5", owner: ann)]
        }
        let dogs = try db.results("Dog")
        // Strings by code point: 'É' (U+00C9) after 'Z'.
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.name", true))])), [d[3], d[2], d[5], d[0], d[4], d[1]])
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.name", false))])), [d[1], d[4], d[0], d[2], d[5], d[3]])
        // Ties settle by the next key, which may be a property of the dog itself.
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.name", false), ("name", false))])), [d[1], d[4], d[0], d[5], d[2], d[3]])
        // The same through the convenience call the C ABI uses.
        XCTAssertEqual(try keys(dogs.sorted(by: [("owner.name", true)])), [d[3], d[2], d[5], d[0], d[4], d[1]])
    }

    func testSortThroughSeveralLinksEmbeddedObjectsAndMixedValues() throws {
        let db = try open()
        var d: [Int64] = []
        try db.write {
            let ann = try person(db, "Ann", age: 40, city: "Oslo")
            let bob = try person(db, "Bob", age: 20, city: "Bergen")
            let cat = try person(db, "Cat", age: 30)                  // no address
            let dan = try person(db, "Dan", age: 10)
            try setCity(db, dan, nil)                                   // an address without a city
            try db.set("Person", ann, "friend", .link(db.cls("Person"), dan))
            try db.set("Person", bob, "friend", .link(db.cls("Person"), ann))
            try db.set("Person", dan, "friend", .link(db.cls("Person"), bob))
            try db.set("Person", ann, "score", .double(1.5))
            try db.set("Person", bob, "score", .string("x"))
            try db.set("Person", dan, "score", .int(1))
            d = [try dog(db, "a", owner: ann), try dog(db, "b", owner: bob), try dog(db, "c", owner: cat),
                 try dog(db, "d", owner: dan), try dog(db, "e", owner: nil)]
        }
        let dogs = try db.results("Dog")
        // An embedded object: Dan's address has no city (a null value), Cat has no address (a null link).
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.address.city", true))])), [d[3], d[1], d[0], d[2], d[4]])
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.address.city", false))])), [d[2], d[4], d[0], d[1], d[3]])
        // Two links: friend's name (Cat has no friend).
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.friend.name", true))])), [d[1], d[3], d[0], d[2], d[4]])
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.friend.friend.age", true))])), [d[1], d[0], d[3], d[2], d[4]])
        // Mixed values in Realm's order: null (Cat), numbers by value (1 < 1.5), strings.
        XCTAssertEqual(try keys(dogs.applying([sort(("owner.score", true))])), [d[2], d[3], d[0], d[1], d[4]])
        // A path back into the class itself.
        let people = try db.results("Person")
        XCTAssertEqual(try people.applying([sort(("friend.age", true))]).allKeys().map { try db.get("Person", $0, "name") },
                       [.string("Ann"), .string("Dan"), .string("Bob"), .string("Cat")])
    }

    func testKeyPathErrorsAreClear() throws {
        let db = try open()
        let dogs = try db.results("Dog")
        func refused(_ stage: ResultsStage, _ fragment: String, _ code: FiefError.Code = .queryInvalid, line: UInt = #line) {
            let error = expectError(code, line: line) { try dogs.applying([stage]) }
            XCTAssertTrue(error?.message.contains(fragment) ?? false, "\(error?.message ?? "") lacks '\(fragment)'", line: line)
        }
        refused(sort(("nope", true)), "cannot sort by 'nope': class 'Dog' has no property 'nope'")
        refused(sort(("owner.nope", true)), "class 'Person' has no property 'nope'")
        refused(sort(("owner", true)), "'Dog.owner' is a link")
        refused(sort(("owner.dogs.name", true)), "'Person.dogs' is a list")
        refused(sort(("owner.tags", true)), "'Person.tags' is a list")
        refused(sort(("name.length", true)), "'Dog.name' is a string, not a link")
        refused(sort(("age.x", true)), "'Dog.age' is an int, not a link")
        refused(sort(("any.name", true)), "'Dog.any' is a mixed, not a link")
        refused(sort(("", true)), "the key path is empty")
        refused(sort(("owner..name", true)), "one name is missing")
        refused(sort(("owner.", true)), "one name is missing")
        refused(sort(("self", true)), "class 'Dog' has no property 'self'")
        refused(.distinct(["owner.dogs"]), "cannot distinct by 'owner.dogs': 'Person.dogs' is a list")
        refused(.distinct(["owner"]), "cannot distinct by 'owner': 'Dog.owner' is a link")
        refused(.limit(-1), "a limit is 0 or more", .invalidArgument)
        // A bad stage among good ones changes nothing: the call fails as a whole.
        expectError(.queryInvalid) { try dogs.applying([.limit(1), sort(("nope", true))]) }
        XCTAssertEqual(try dogs.applying([]).count(), 0)
    }

    // MARK: Stages

    func testStagesApplyLeftToRight() throws {
        let db = try open()
        var d: [Int64] = []
        try db.write {
            for (name, age) in [("e", 3), ("b", 1), ("d", 3), ("a", 2), ("c", 1)] { d.append(try dog(db, name, age: Int64(age), owner: nil)) }
        }
        let dogs = try db.results("Dog")
        // LIMIT(2) SORT(name): the first two in key order, then sorted; the other way round, the first two by name.
        XCTAssertEqual(try keys(dogs.applying([.limit(2), sort(("name", true))])), [d[1], d[0]])
        XCTAssertEqual(try keys(dogs.applying([sort(("name", true)), .limit(2)])), [d[3], d[1]])
        XCTAssertEqual(try keys(dogs.limited(to: 0)), [])
        XCTAssertEqual(try keys(dogs.limited(to: 99)), d)
        // A sort right after a sort merges with it, the later keys first
        // (realm-core's "prepend"): sort(name) then sort(age) is sort(age, name).
        let merged = try dogs.applying([sort(("name", true))]).applying([sort(("age", false))])
        XCTAssertEqual(try keys(merged), [d[2], d[0], d[3], d[1], d[4]])
        if case .sort(let merged)? = merged.stages.first {
            XCTAssertEqual(merged.map(\.path.text), ["age", "name"])
        } else {
            XCTFail("the sorts did not merge into one stage")
        }
        XCTAssertEqual(merged.stages.count, 1)
        // A limit between two sorts keeps them apart.
        XCTAssertEqual(try keys(dogs.applying([sort(("name", false)), .limit(3), sort(("age", true))])), [d[4], d[0], d[2]])
        // Distinct keeps the first object seen per value, in the current order.
        XCTAssertEqual(try keys(dogs.distinct(by: ["age"])), [d[0], d[1], d[3]])
        XCTAssertEqual(try keys(dogs.applying([sort(("name", true)), .distinct(["age"])])), [d[3], d[1], d[2]])
        XCTAssertEqual(try keys(dogs.applying([.distinct(["age"]), sort(("name", true))])), [d[3], d[1], d[0]])
        // Several key paths: distinct tuples.
        try db.write { _ = try dog(db, "b", age: 1, owner: nil) }
        XCTAssertEqual(try keys(dogs.distinct(by: ["name", "age"])).count, 5)
        XCTAssertEqual(try keys(dogs.distinct(by: ["age", "name"])), d)
        // Empty sorts and distincts change nothing.
        XCTAssertTrue(try dogs.applying([.sort([]), .distinct([])]).stages.isEmpty)
    }

    /// Realm ANDs a filter into the query, before the stages: filtering
    /// sorted results keeps the sort; filtering distinct results filters
    /// first; results with a limit cannot be filtered (realm-core's
    /// `Results::filter`).
    func testFilterJoinsTheQueryBeforeTheStages() throws {
        let db = try open()
        var d: [Int64] = []
        try db.write {
            d = [try dog(db, "x", age: 1, owner: nil), try dog(db, "x", age: 5, owner: nil),
                 try dog(db, "y", age: 7, owner: nil), try dog(db, "a", age: 9, owner: nil)]
        }
        let dogs = try db.results("Dog")
        XCTAssertEqual(try keys(dogs.applying([sort(("name", true))]).filtered("age > 3", arguments: [])), [d[3], d[1], d[2]])
        // Distinct by name, then age > 3: the filter picks first, so 'x' keeps its second dog.
        XCTAssertEqual(try keys(dogs.distinct(by: ["name"]).filtered("age > 3", arguments: [])), [d[1], d[2], d[3]])
        let error = expectError(.queryInvalid) { try dogs.limited(to: 2).filtered("age > 3", arguments: []) }
        XCTAssertTrue(error?.message.contains("cannot filter results that have a limit") ?? false, error?.message ?? "")
        // Filter first, then limit.
        XCTAssertEqual(try keys(dogs.filtered("age > 3", arguments: []).limited(to: 2)), [d[1], d[2]])
    }

    /// Distinct compares as Realm's equality: across number types in a
    /// mixed property, decimals by value, strings exactly; objects whose
    /// key path crosses a null link are left out (realm-core's
    /// `DistinctDescriptor`; RealmSwift's testDistinctResultsUsingKeyPaths).
    func testDistinctUsesRealmEqualityAndDropsNullLinks() throws {
        let db = try open()
        var d: [Int64] = []
        let anys: [TV] = [.int(1), .double(1.0), dec(1, 0), .float(1), .string("1"), .bool(true), .null, .null, .string("a"),
                          .string("A"), .string("e\u{301}"), .string("\u{E9}"), .binary([0x61]), .int(2)]
        try db.write {
            for value in anys { d.append(try db.create("Dog", [("name", .string("n")), ("any", value)])) }
        }
        let dogs = try db.results("Dog")
        XCTAssertEqual(try keys(dogs.distinct(by: ["any"])), [0, 4, 5, 6, 8, 9, 10, 11, 12, 13].map { d[$0] })
        // Decimals by value: 1.0 is 1; two values one double cannot tell apart stay two.
        var w: [Int64] = []
        try db.write {
            for value in [dec(10, -1), dec(1, 0), dec(1_000_000_000_000_000_001, -18), dec(1_000_000_000_000_000_002, -18), .null, .null] {
                w.append(try db.create("Dog", [("name", .string("w")), ("weight", value)]))
            }
        }
        XCTAssertEqual(try keys(dogs.filtered("name == 'w'", arguments: []).distinct(by: ["weight"])), [w[0], w[2], w[3], w[4]])
        XCTAssertEqual(try keys(dogs.filtered("name == 'w'", arguments: []).applying([sort(("weight", false))])),
                       [w[3], w[2], w[0], w[1], w[4], w[5]])
        // Through a link: a dog without an owner goes; an owner without a name is a null value.
        var p: [Int64] = []
        try db.write {
            p = [try person(db, "Ann"), try person(db, nil), try person(db, "Ann"), try person(db, nil)]
            d = [try dog(db, "p0", owner: p[0]), try dog(db, "none", owner: nil), try dog(db, "p1", owner: p[1]),
                 try dog(db, "p2", owner: p[2]), try dog(db, "p3", owner: p[3]), try dog(db, "p0 again", owner: p[0])]
        }
        let linked = try dogs.filtered("name BEGINSWITH 'p' OR name == 'none'", arguments: [])
        XCTAssertEqual(try keys(linked.distinct(by: ["owner.name"])), [d[0], d[2]])
        XCTAssertEqual(try keys(linked.distinct(by: ["owner.age"])), [d[0]])
        XCTAssertEqual(try keys(linked.distinct(by: ["name"])).count, 6)
        XCTAssertEqual(try linked.distinct(by: ["owner.name"]).count(), 2)
    }

    func testNarrowingStagesShapeCountAggregatesIndexAndDeleteAll() throws {
        let db = try open()
        var d: [Int64] = []
        try db.write {
            for (name, age) in [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)] { d.append(try dog(db, name, age: Int64(age), owner: nil)) }
        }
        let dogs = try db.results("Dog")
        let distinct = try dogs.distinct(by: ["name"])
        XCTAssertEqual(try distinct.count(), 3)
        XCTAssertEqual(TV(try distinct.aggregate(.sum, property: db.pkey("Dog", "age"))), .int(7))
        XCTAssertEqual(try distinct.index(of: d[3]), 2)
        XCTAssertNil(try distinct.index(of: d[2]))
        let top = try dogs.applying([sort(("age", false)), .limit(2)])
        XCTAssertEqual(try top.count(), 2)
        XCTAssertEqual(TV(try top.aggregate(.min, property: db.pkey("Dog", "age"))), .int(4))
        XCTAssertEqual(try top.index(of: d[3]), 1)
        XCTAssertEqual(try dogs.limited(to: 4).limited(to: 3).count(), 3)
        XCTAssertEqual(try dogs.limited(to: 3).applying([sort(("age", false)), .limit(5)]).count(), 3)
        // Deleting through limited results deletes those objects only.
        try db.write { try top.deleteAll() }
        XCTAssertEqual(try keys(dogs), [d[0], d[1], d[2]])
        XCTAssertEqual(try keys(top), [d[2], d[1]])
        try db.write { try dogs.distinct(by: ["name"]).deleteAll() }
        XCTAssertEqual(try keys(dogs), [d[2]])
    }

    func testListsAndLinkingObjectsTakeStages() throws {
        let db = try open()
        var ann: Int64 = 0, bob: Int64 = 0, d: [Int64] = []
        try db.write {
            ann = try person(db, "Ann")
            bob = try person(db, "Bob")
            d = [try dog(db, "x", age: 3, owner: bob), try dog(db, "y", age: 1, owner: ann), try dog(db, "z", age: 2, owner: nil)]
            let list = d + [d[0], d[2]]
            try TV.withValues(list.map { .link(db.cls("Dog"), $0) }) { values in
                try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: ann, property: db.pkey("Person", "dogs"))).append(UnsafeBufferPointer(values))
            }
        }
        let list = try ObjectResults(realm: db.realm, list: db.pkey("Person", "dogs"), of: ann, in: db.cls("Person"))
        XCTAssertEqual(try keys(list.applying([sort(("owner.name", true))])), [d[1], d[0], d[0], d[2], d[2]])
        XCTAssertEqual(try keys(list.distinct(by: ["name"])), [d[0], d[1], d[2]])
        XCTAssertEqual(try keys(list.applying([.limit(4), .distinct(["owner.name"])])), [d[0], d[1]])
        XCTAssertEqual(try list.applying([.distinct(["owner.name"])]).count(), 2)
        XCTAssertEqual(TV(try list.limited(to: 2).aggregate(.sum, property: db.pkey("Dog", "age"))), .int(4))
        // Linking objects: the people whose list holds d[0] (Ann once, as a set of owners).
        let owners = try ObjectResults(realm: db.realm, linkingTo: d[0], of: db.cls("Dog"), originClass: db.cls("Person"),
                                 property: db.pkey("Person", "dogs"))
        XCTAssertEqual(try keys(owners.applying([sort(("name", false))])), [ann])
        try db.write {
            try TV.withValues([.link(db.cls("Dog"), d[0])]) { values in
                try db.realm.list(CollectionRef(.list, table: db.cls("Person"), owner: bob, property: db.pkey("Person", "dogs"))).append(UnsafeBufferPointer(values))
            }
        }
        XCTAssertEqual(try keys(owners.applying([sort(("name", false))])), [bob, ann])
        XCTAssertEqual(try keys(owners.applying([sort(("name", false)), .limit(1)])), [bob])
    }

    // MARK: Liveness

    /// Results sorted or distinct by a key path through links follow writes
    /// to the linked objects, to the links, and deletions, in a write
    /// transaction and after it.
    func testKeyPathResultsFollowWritesToLinkedObjects() throws {
        let db = try open()
        var p: [Int64] = [], d: [Int64] = []
        try db.write {
            p = [try person(db, "Ann", city: "Oslo"), try person(db, "Bob", city: "Bergen"), try person(db, "Cat", city: "Aden")]
            d = [try dog(db, "a", owner: p[0]), try dog(db, "b", owner: p[1]), try dog(db, "c", owner: p[2])]
        }
        let byOwner = try db.results("Dog").applying([sort(("owner.name", true))])
        let byCity = try db.results("Dog").applying([sort(("owner.address.city", false))])
        let distinctOwners = try db.results("Dog").distinct(by: ["owner.name"])
        XCTAssertEqual(try keys(byOwner), [d[0], d[1], d[2]])
        XCTAssertEqual(try keys(byCity), [d[0], d[1], d[2]])
        XCTAssertEqual(try distinctOwners.count(), 3)
        // Renaming a linked object reorders, inside the write and after it
        // (the results are read in the write before the change: only the
        // change to the linked column tells them to evaluate again).
        try db.realm.beginWrite()
        XCTAssertEqual(try keys(byOwner), [d[0], d[1], d[2]])
        try db.set("Person", p[0], "name", .string("Zoe"))
        XCTAssertEqual(try keys(byOwner), [d[1], d[2], d[0]])
        try db.realm.commitWrite()
        XCTAssertEqual(try keys(byOwner), [d[1], d[2], d[0]])
        // A write to the embedded object two links away.
        try db.realm.beginWrite()
        XCTAssertEqual(try keys(byCity), [d[0], d[1], d[2]])
        let aden = try db.realm.value(table: db.cls("Person"), key: p[2], property: db.pkey("Person", "address"))
        guard case .link(_, let address) = aden else { return XCTFail("no address") }
        try db.set("Address", address, "city", .string("Zagreb"))
        XCTAssertEqual(try keys(byCity), [d[2], d[0], d[1]])
        try db.realm.commitWrite()
        XCTAssertEqual(try keys(byCity), [d[2], d[0], d[1]])
        // Names becoming equal merge distinct values; relinking and deleting move dogs.
        try db.write { try db.set("Person", p[1], "name", .string("Cat")) }
        XCTAssertEqual(try distinctOwners.count(), 2)
        XCTAssertEqual(try keys(distinctOwners), [d[0], d[1]])
        try db.write { try db.set("Dog", d[2], "owner", .link(db.cls("Person"), p[0])) }
        XCTAssertEqual(try keys(byOwner), [d[1], d[0], d[2]])
        try db.write { try db.delete("Person", p[0]) }
        XCTAssertEqual(try keys(byOwner), [d[1], d[0], d[2]], "dogs whose owner went sort last, in key order")
        XCTAssertEqual(try keys(distinctOwners), [d[1]])
        // A write the results do not read leaves them as they were, and right.
        try db.write { try db.set("Person", p[1], "age", .int(9)) }
        XCTAssertEqual(try keys(byOwner), [d[1], d[0], d[2]])
        // A cancelled write is undone for them too.
        try db.realm.beginWrite()
        try db.set("Person", p[1], "name", .string("Zz"))
        try db.set("Dog", d[0], "owner", .link(db.cls("Person"), p[1]))
        XCTAssertEqual(try keys(byOwner), [d[0], d[1], d[2]])
        db.realm.cancelWrite()
        XCTAssertEqual(try keys(byOwner), [d[1], d[0], d[2]])
    }

    // MARK: Against a model

    private struct PersonRow {
        var name: String?
        var age: Int64
        var score: TV
        var friend: Int64?
        /// nil: no address; .some(nil): an address without a city.
        var city: String??
    }

    private struct DogRow {
        var name: String
        var age: Int64
        var owner: Int64?
    }

    /// A value at the end of a key path, or a null link on the way.
    private enum PathValue: Equatable {
        case nullLink
        case value(TV)
    }

    private static let paths = ["name", "age", "owner.name", "owner.age", "owner.score", "owner.friend.name",
                                "owner.address.city", "owner.friend.address.city"]

    private static func value(_ path: String, _ dog: DogRow, _ people: [Int64: PersonRow]) -> PathValue {
        switch path {
        case "name": return .value(.string(dog.name))
        case "age": return .value(.int(dog.age))
        default: break
        }
        guard let owner = dog.owner.flatMap({ people[$0] }) else { return .nullLink }
        var person = owner
        var rest = path.dropFirst("owner.".count)
        if rest.hasPrefix("friend.") {
            guard let friend = person.friend.flatMap({ people[$0] }) else { return .nullLink }
            person = friend
            rest = rest.dropFirst("friend.".count)
        }
        switch rest {
        case "name": return .value(person.name.map { .string($0) } ?? .null)
        case "age": return .value(.int(person.age))
        case "score": return .value(person.score)
        default:
            guard let city = person.city else { return .nullLink }
            return .value(city.map { .string($0) } ?? .null)
        }
    }

    /// Realm's order: null links after everything, nulls first, numbers by
    /// value across types, then strings by code point.
    private static func compare(_ a: PathValue, _ b: PathValue) -> Int {
        switch (a, b) {
        case (.nullLink, .nullLink): return 0
        case (.nullLink, _): return 1
        case (_, .nullLink): return -1
        case (.value(let x), .value(let y)):
            func rank(_ v: TV) -> Int {
                switch v {
                case .null: return 0
                case .int, .double: return 1
                default: return 2
                }
            }
            func number(_ v: TV) -> Double {
                switch v {
                case .int(let i): return Double(i)
                case .double(let d): return d
                default: return 0
                }
            }
            if rank(x) != rank(y) { return rank(x) < rank(y) ? -1 : 1 }
            switch (x, y) {
            case (.string(let p), .string(let q)):
                return p == q ? 0 : (Array(p.utf8).lexicographicallyPrecedes(Array(q.utf8)) ? -1 : 1)
            case (.null, .null): return 0
            default:
                let p = number(x), q = number(y)
                return p == q ? 0 : (p < q ? -1 : 1)
            }
        }
    }

    private static func expected(_ stages: [ResultsStage], _ dogs: [Int64: DogRow], _ people: [Int64: PersonRow]) -> [Int64] {
        var keys = dogs.keys.sorted()
        for stage in stages {
            switch stage {
            case .sort(let sortKeys):
                keys = keys.enumerated().sorted { a, b in
                    for key in sortKeys {
                        let c = compare(value(key.keyPath, dogs[a.element]!, people), value(key.keyPath, dogs[b.element]!, people))
                        if c != 0 { return key.ascending ? c < 0 : c > 0 }
                    }
                    return a.offset < b.offset
                }.map(\.element)
            case .distinct(let paths):
                var seen: [[PathValue]] = []
                keys = keys.filter { key in
                    let tuple = paths.map { value($0, dogs[key]!, people) }
                    if tuple.contains(.nullLink) { return false }
                    if seen.contains(where: { zip($0, tuple).allSatisfy { compare($0, $1) == 0 } }) { return false }
                    seen.append(tuple)
                    return true
                }
            case .limit(let n):
                keys = Array(keys.prefix(n))
            }
        }
        return keys
    }

    func testRandomStagesMatchAModelAcrossWrites() throws {
        let db = try open()
        var rng = SeededRandom(seed: 12)
        var people: [Int64: PersonRow] = [:]
        var dogs: [Int64: DogRow] = [:]
        let names: [String?] = [nil, "Ann", "ann", "Bob", "Émile", "Zed", "abcdefgh-shared-1", "abcdefgh-shared-2"]
        let scores: [TV] = [.null, .int(1), .double(1.0), .double(2.5), .int(-3), .string("x"), .string("")]
        let personClass = db.cls("Person")

        func randomPerson() -> Int64? {
            let keys = people.keys.sorted()
            return keys.isEmpty || Int.random(in: 0..<6, using: &rng) == 0 ? nil : keys[Int.random(in: 0..<keys.count, using: &rng)]
        }
        func setName(_ key: Int64) throws {
            let name = names[Int.random(in: 0..<names.count, using: &rng)]
            try db.set("Person", key, "name", name.map { .string($0) } ?? .null)
            people[key]!.name = name
        }
        func setScore(_ key: Int64) throws {
            let score = scores[Int.random(in: 0..<scores.count, using: &rng)]
            try db.set("Person", key, "score", score)
            people[key]!.score = score
        }
        func setFriend(_ key: Int64) throws {
            let friend = randomPerson()
            try db.set("Person", key, "friend", friend.map { .link(personClass, $0) } ?? .null)
            people[key]!.friend = friend
        }
        func setAddress(_ key: Int64) throws {
            let city = names[Int.random(in: 0..<names.count, using: &rng)]
            try setCity(db, key, city)
            people[key]!.city = .some(city)
        }
        func setOwner(_ key: Int64) throws {
            let owner = randomPerson()
            try db.set("Dog", key, "owner", owner.map { .link(personClass, $0) } ?? .null)
            dogs[key]!.owner = owner
        }
        func addDog() throws {
            let row = DogRow(name: names[Int.random(in: 1..<names.count, using: &rng)]!, age: Int64.random(in: 0..<4, using: &rng), owner: nil)
            let key = try dog(db, row.name, age: row.age, owner: nil)
            dogs[key] = row
            try setOwner(key)
        }
        func addPerson() throws {
            let age = Int64.random(in: 0..<4, using: &rng)
            let key = try person(db, nil, age: age)
            people[key] = PersonRow(name: nil, age: age, score: .null, friend: nil, city: nil)
            try setName(key)
            try setScore(key)
            if Bool.random(using: &rng) { try setAddress(key) }
        }
        func deletePerson() throws {
            guard let key = randomPerson() else { return }
            try db.delete("Person", key)
            people[key] = nil
            for (k, row) in people where row.friend == key { people[k]!.friend = nil }
            for (k, row) in dogs where row.owner == key { dogs[k]!.owner = nil }
        }

        try db.write {
            for _ in 0..<30 { try addPerson() }
            for key in people.keys.sorted() { try setFriend(key) }
            for _ in 0..<120 { try addDog() }
        }

        func randomStages() -> [ResultsStage] {
            (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                switch Int.random(in: 0..<5, using: &rng) {
                case 0, 1:
                    return .sort((0..<Int.random(in: 1...3, using: &rng)).map { _ in
                        SortKeyPath(Self.paths[Int.random(in: 0..<Self.paths.count, using: &rng)], ascending: Bool.random(using: &rng))
                    })
                case 2, 3:
                    return .distinct((0..<Int.random(in: 1...2, using: &rng)).map { _ in Self.paths[Int.random(in: 0..<Self.paths.count, using: &rng)] })
                default:
                    return .limit(Int.random(in: 0..<100, using: &rng))
                }
            }
        }
        let views = (0..<40).map { _ in randomStages() }
        let results = try views.map { try db.results("Dog").applying($0) }
        func check(_ when: String, line: UInt = #line) throws {
            for (stages, result) in zip(views, results) {
                let want = Self.expected(stages, dogs, people)
                XCTAssertEqual(try result.allKeys(), want, "\(when): \(stages)", line: line)
                XCTAssertEqual(try result.count(), want.count, "\(when): \(stages)", line: line)
            }
        }
        try check("first evaluation")
        for round in 0..<25 {
            try db.realm.beginWrite()
            // Read in the write first: later reads see the writes through the stamps alone.
            try check("round \(round), write begun")
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let personKeys = people.keys.sorted(), dogKeys = dogs.keys.sorted()
                switch Int.random(in: 0..<9, using: &rng) {
                case 0: if let p = personKeys.randomElement(using: &rng) { try setName(p) }
                case 1: if let p = personKeys.randomElement(using: &rng) { try setScore(p) }
                case 2: if let p = personKeys.randomElement(using: &rng) { try setFriend(p) }
                case 3: if let p = personKeys.randomElement(using: &rng) { try setAddress(p) }
                case 4: if let d = dogKeys.randomElement(using: &rng) { try setOwner(d) }
                case 5: try deletePerson()
                case 6: try addPerson()
                case 7: try addDog()
                default:
                    if let d = dogKeys.randomElement(using: &rng) {
                        try db.delete("Dog", d)
                        dogs[d] = nil
                    }
                }
                try check("round \(round), in the write")
            }
            try db.realm.commitWrite()
            try check("round \(round), committed")
        }
    }

    // MARK: Results of values

    func testValueResultsTakeDistinctAndLimit() throws {
        let db = try open()
        var bag: Int64 = 0
        try db.write {
            bag = try db.create("Bag", [])
            let ints: [TV] = [.int(3), .null, .int(1), .int(3), .null, .int(2), .int(1)]
            let anys: [TV] = [.int(1), .double(1.0), .string("1"), .bool(true), .null, dec(1, 0), .string("a"), .null, .int(2)]
            for (name, values) in [("ints", ints), ("anys", anys)] {
                try TV.withValues(values) { v in
                    try db.realm.list(CollectionRef(.list, table: db.cls("Bag"), owner: bag, property: db.pkey("Bag", name))).append(UnsafeBufferPointer(v))
                }
            }
        }
        func values(_ name: String) throws -> ValueResults {
            try ValueResults(realm: db.realm, list: db.pkey("Bag", name), of: bag, in: db.cls("Bag"))
        }
        func all(_ results: ValueResults) throws -> [TV] { try (0..<results.count()).map { TV(try results.value(at: $0)) } }
        let ints = try values("ints")
        XCTAssertEqual(try all(ints.distinct(by: ["self"])), [.int(3), .null, .int(1), .int(2)])
        XCTAssertEqual(try all(ints.limited(to: 3)), [.int(3), .null, .int(1)])
        XCTAssertEqual(try all(ints.applying([.limit(3), .sort([SortKeyPath("self", ascending: false)])])), [.int(3), .int(1), .null])
        XCTAssertEqual(try all(ints.applying([.sort([SortKeyPath("self")]), .limit(3)])), [.null, .null, .int(1)])
        XCTAssertEqual(try all(ints.applying([.sort([SortKeyPath("self", ascending: false)]), .distinct(["self"]), .limit(3)])),
                       [.int(3), .int(2), .int(1)])
        // A sort after a sort replaces it (by value, the later one decides everything).
        XCTAssertEqual(try all(ints.sorted(ascending: true).sorted(ascending: false)), [.int(3), .int(3), .int(2), .int(1), .int(1), .null, .null])
        XCTAssertEqual(try ints.filtered("self != nil", arguments: []).distinct(by: ["self"]).count(), 3)
        XCTAssertEqual(TV(try ints.limited(to: 4).aggregate(.sum)), .int(7))
        XCTAssertEqual(try ints.distinct(by: ["self"]).index(of: .int(2)), 3)
        // Mixed: numbers equal across types; a string, a bool and null are other values.
        let anys = try values("anys")
        XCTAssertEqual(try all(anys.distinct(by: ["self"])), [.int(1), .string("1"), .bool(true), .null, .string("a"), .int(2)])
        // Errors.
        expectError(.queryInvalid) { try ints.distinct(by: ["value"]) }
        expectError(.queryInvalid) { try ints.distinct(by: ["self", "self"]) }
        expectError(.invalidArgument) { try ints.limited(to: -2) }
        let error = expectError(.queryInvalid) { try ints.limited(to: 2).filtered("self > 1", arguments: []) }
        XCTAssertTrue(error?.message.contains("cannot filter results that have a limit") ?? false, error?.message ?? "")
        // Live: they follow changes to the list.
        let distinct = try ints.distinct(by: ["self"])
        try db.write {
            try TV.withValues([.int(9), .int(2)]) { v in
                try db.realm.list(CollectionRef(.list, table: db.cls("Bag"), owner: bag, property: db.pkey("Bag", "ints"))).append(UnsafeBufferPointer(v))
            }
        }
        XCTAssertEqual(try all(distinct), [.int(3), .null, .int(1), .int(2), .int(9)])
    }
}
