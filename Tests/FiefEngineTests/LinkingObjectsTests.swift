import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Named linking-objects properties (RealmSwift's `LinkingObjects`):
/// declared in the schema a realm is opened with, never stored, validated
/// at open, and resolved by queries to the backlinks step
/// `@links.Origin.property` they stand for.
final class LinkingObjectsTests: XCTestCase {
    typealias Argument = GraphQueryTests.Argument

    /// The town of `GraphQueryTests` with linking-objects properties: a
    /// person's `ownedDogs` (Dog.owner, a to-one link) and `befrienders`
    /// (Person.friend), a dog's `listedBy` (Person.dogs, a list),
    /// `pettedBy` (Person.pets, a set) and `kenneledBy` (Person.kennel, a map).
    static let aliases: [String: [LinkingObjectsProperty]] = [
        "Person": [LinkingObjectsProperty(name: "ownedDogs", originClass: "Dog", originProperty: "owner"),
                   LinkingObjectsProperty(name: "befrienders", originClass: "Person", originProperty: "friend")],
        "Dog": [LinkingObjectsProperty(name: "listedBy", originClass: "Person", originProperty: "dogs"),
                LinkingObjectsProperty(name: "pettedBy", originClass: "Person", originProperty: "pets"),
                LinkingObjectsProperty(name: "kenneledBy", originClass: "Person", originProperty: "kennel")],
    ]

    static func townSchema() -> Schema {
        var schema = GraphQueryTests.townSchema()
        for i in schema.classes.indices { schema.classes[i].linkingObjects = aliases[schema.classes[i].name] ?? [] }
        return schema
    }

    /// `template` with each `{alias}` written as the alias, and as the
    /// `@links` step it stands for.
    static func spellings(_ template: String) -> (alias: String, links: String) {
        var alias = template, links = template
        for list in aliases.values {
            for property in list {
                alias = alias.replacingOccurrences(of: "{\(property.name)}", with: property.name)
                links = links.replacingOccurrences(of: "{\(property.name)}", with: "@links.\(property.originClass).\(property.originProperty)")
            }
        }
        return (alias, links)
    }

    /// Queries over persons (`$0` an int, `$1` a string, `$2` a dog).
    static let personTemplates = [
        "ANY {ownedDogs}.name == $1", "{ownedDogs}.name ==[c] $1", "ALL {ownedDogs}.age > $0", "NONE {ownedDogs}.name BEGINSWITH $1",
        "{ownedDogs}.age > $0", "{ownedDogs}.@count > $0", "{ownedDogs}.@size == $0", "{ownedDogs}.@count == 0",
        "{ownedDogs}.@sum.age > $0", "{ownedDogs}.@avg.age < $0", "{ownedDogs}.@min.age == $0", "{ownedDogs}.@max.age >= $0",
        "SUBQUERY({ownedDogs}, $d, $d.age > $0 && $d.name == $1).@count > 0",
        "SUBQUERY({ownedDogs}, $d, $d.{listedBy}.@count > 0).@count >= $0",
        "{ownedDogs}.tricks.@count > $0", "ANY {ownedDogs}.tricks == 'sit'", "{ownedDogs} == $2", "$2 IN {ownedDogs}",
        "{befrienders}.age > $0", "{befrienders}.@count >= $0", "{befrienders}.{ownedDogs}.age == $0",
        "{befrienders}.{befrienders}.name == $1", "{befrienders}.dogs.age > $0", "ALL {befrienders}.scores == $0",
        "friend.{ownedDogs}.name == $1", "friend.{befrienders}.@count > $0", "dogs.{pettedBy}.age < $0",
        "{ownedDogs}.@count > $0 && name == $1 || {befrienders}.@avg.age > $0",
        "{ownedDogs}.@count + {befrienders}.@count > $0", "{ownedDogs}.@count == {befrienders}.@count",
    ]

    /// Queries over dogs (same arguments).
    static let dogTemplates = [
        "{listedBy}.age > $0", "{listedBy}.@count > $0", "{listedBy}.@count == 0", "ANY {listedBy}.name == $1",
        "ALL {listedBy}.age >= $0", "{pettedBy}.name BEGINSWITH $1", "{pettedBy}.@size >= $0", "{pettedBy}.@max.age < $0",
        "{kenneledBy}.@count > $0", "{kenneledBy}.age > $0", "NONE {kenneledBy}.name == $1", "{kenneledBy}.@sum.age >= $0",
        "SUBQUERY({listedBy}, $p, $p.age == $0 || $p.name == $1).@count > 1", "SUBQUERY({pettedBy}, $p, $p.{befrienders}.@count > $0).@count > 0",
        "owner.{befrienders}.age == $0", "{listedBy}.{ownedDogs}.name == $1", "{listedBy}.friend.{ownedDogs}.@count > $0",
        "age > $0 && {listedBy}.@avg.age < $0",
    ]

    /// The same queries written with the aliases and with `@links` give
    /// the same objects, on random data, committed and inside a write;
    /// a few are also checked against a brute-force evaluation.
    func testAliasesMatchLinksOnRandomData() throws {
        let db = try DB.open(tempDir().file(), Self.townSchema())
        var rng = SeededRandom(seed: 0x11A5)
        var town = GraphQueryTests.Town()
        try db.write { try GraphQueryTests.buildTown(db, &rng, &town, persons: 200, dogs: 300) }
        let dogClass = db.cls("Dog")
        var nonTrivial = 0
        func check(_ when: String) throws {
            let dogs = try db.keys("Dog"), persons = try db.keys("Person")
            for _ in 0..<4 {
                let args: [Argument] = [([.int(Int64.random(in: -1...4, using: &rng))], false),
                                        ([.string(["Rex", "Al", "Bea", "rex", "Max"].randomElement(using: &rng)!)], false),
                                        ([.link(dogClass, dogs.randomElement(using: &rng)!)], false)]
                for (className, templates, all) in [("Person", Self.personTemplates, persons), ("Dog", Self.dogTemplates, dogs)] {
                    for template in templates {
                        let (alias, links) = Self.spellings(template)
                        let expected = try GraphQueryTests.query(db, links, args, of: className).allKeys()
                        let got = try GraphQueryTests.query(db, alias, args, of: className).allKeys()
                        XCTAssertEqual(got, expected, "\(when): \(alias) vs \(links) \(args)")
                        if !expected.isEmpty && expected.count < all.count { nonTrivial += 1 }
                    }
                }
            }
            // Brute force, from the model.
            town.reindex()
            for n in 0...3 {
                let expected = town.persons.keys.filter { town.ownedDogs($0).count > n }.sorted()
                XCTAssertEqual(try db.keys("Person", "ownedDogs.@count > \(n)"), expected, when)
            }
            for name in ["Rex", "rex", "Max"] {
                let expected = town.persons.keys.filter { town.ownedDogs($0).contains { town.dogs[$0]!.name == name } }.sorted()
                XCTAssertEqual(try db.keys("Person", "ANY ownedDogs.name == $0", [.string(name)]), expected, when)
                let exceptFriends = town.persons.keys.filter { !town.befriending($0).contains { town.persons[$0]!.name == .string(name) } }.sorted()
                XCTAssertEqual(try db.keys("Person", "NONE befrienders.name == $0", [.string(name)]), exceptFriends, when)
            }
        }
        try check("committed")
        try db.realm.beginWrite()
        for k in town.dogs.keys.sorted() where Int.random(in: 0..<4, using: &rng) == 0 {
            let owner: Int64? = Int.random(in: 0..<3, using: &rng) == 0 ? nil : town.persons.keys.randomElement(using: &rng)!
            try db.set("Dog", k, "owner", owner.map { .link(db.cls("Person"), $0) } ?? .null)
            town.dogs[k]!.owner = owner
        }
        try check("in a write")
        try db.realm.commitWrite()
        try check("after commit")
        XCTAssertGreaterThan(nonTrivial, 200, "the queries should mostly select proper subsets")
    }

    /// Results filtered through an alias follow later writes.
    func testResultsThroughAliasStayLive() throws {
        let db = try DB.open(tempDir().file(), Self.townSchema())
        let person = db.cls("Person")
        let (ann, bob) = try db.write { (try db.create("Person", [("name", .string("Ann")), ("age", .int(30))]),
                                         try db.create("Person", [("name", .string("Bob")), ("age", .int(40))])) }
        let withRex = try db.query("Person", "ANY ownedDogs.name == 'Rex'")
        let twoDogs = try db.query("Person", "ownedDogs.@count == 2")
        XCTAssertEqual(try withRex.allKeys(), [])
        try db.write {
            try db.create("Dog", [("name", .string("Rex")), ("owner", .link(person, ann))])
            try db.create("Dog", [("name", .string("Fido")), ("owner", .link(person, ann))])
            try db.create("Dog", [("name", .string("Max")), ("owner", .link(person, bob))])
        }
        XCTAssertEqual(try withRex.allKeys(), [ann])
        XCTAssertEqual(try twoDogs.allKeys(), [ann])
        let rex = try db.keys("Dog", "name == 'Rex'")[0]
        try db.write { try db.set("Dog", rex, "owner", .link(person, bob)) }
        XCTAssertEqual(try withRex.allKeys(), [bob])
        XCTAssertEqual(try twoDogs.allKeys(), [bob])
    }

    // MARK: Schema

    func clubSchema(_ clubs: LinkingObjectsProperty? = LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "members"),
                    extra: [Property] = []) -> Schema {
        Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string), prop("age", .int)] + extra,
                        linkingObjects: clubs.map { [$0] } ?? []),
            ObjectClass(name: "DogClub", properties: [prop("name", .string), prop("fee", .double),
                                                      Property(name: "members", type: .link, linkTarget: "Person", collection: .list),
                                                      Property(name: "president", type: .link, flags: .nullable, linkTarget: "Person"),
                                                      Property(name: "rivals", type: .link, linkTarget: "DogClub", collection: .set),
                                                      Property(name: "roles", type: .link, flags: .nullable, linkTarget: "Person", collection: .map),
                                                      Property(name: "tags", type: .string, collection: .list),
                                                      Property(name: "anything", type: .mixed, flags: .nullable)]),
        ])
    }

    func testDeclarationsAreValidated() throws {
        func refused(_ clubs: LinkingObjectsProperty, extra: [Property] = [], _ needle: String, line: UInt = #line) {
            let error = expectError(.invalidSchema, line: line) { try clubSchema(clubs, extra: extra).validate() }
            XCTAssertTrue(error?.message.contains(needle) ?? false, "\(error?.message ?? "no error") lacks \(needle)", line: line)
        }
        XCTAssertNoThrow(try clubSchema().validate())
        for origin in ["members", "president", "roles"] {
            XCTAssertNoThrow(try clubSchema(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: origin)).validate(), origin)
        }
        refused(LinkingObjectsProperty(name: "clubs", originClass: "Club", originProperty: "members"),
                "linking-objects property 'Person.clubs' names origin class 'Club', which the schema does not have")
        refused(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "players"),
                "origin property 'DogClub.players', which does not exist")
        refused(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "name"), "'DogClub.name', which is string, not a link")
        refused(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "tags"), "which is a list of strings, not a link")
        refused(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "anything"), "which is mixed, not a link")
        refused(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "rivals"), "which links to class 'DogClub', not 'Person'")
        refused(LinkingObjectsProperty(name: "name", originClass: "DogClub", originProperty: "members"), "property 'Person.name' is defined twice")
        refused(LinkingObjectsProperty(name: "", originClass: "DogClub", originProperty: "members"), "invalid property name ''")
        var twice = clubSchema()
        twice.classes[0].linkingObjects.append(LinkingObjectsProperty(name: "clubs", originClass: "DogClub", originProperty: "president"))
        XCTAssertEqual(expectError(.invalidSchema) { try twice.validate() }?.message, "property 'Person.clubs' is defined twice")
        var ofAlias = clubSchema()
        ofAlias.classes[1].linkingObjects = [LinkingObjectsProperty(name: "back", originClass: "Person", originProperty: "clubs")]
        XCTAssertTrue(expectError(.invalidSchema) { try ofAlias.validate() }?.message.contains("'Person.clubs', which is linking objects, not a link") ?? false)
        // An open checks the schema it is given.
        var bad = clubSchema()
        bad.classes[0].linkingObjects[0].originProperty = "name"
        XCTAssertNotNil(expectError(.invalidSchema) { try DB.open(tempDir().file(), bad) })
    }

    /// Linking objects are not stored: the file's schema lacks them, adding
    /// or removing one needs no migration, and a realm opened without a
    /// schema (or with one that does not declare them) cannot query them.
    func testAliasesAreNotStored() throws {
        let path = tempDir().file()
        do {
            let db = try DB.open(path, clubSchema(nil))
            try db.write {
                let ann = try db.create("Person", [("name", .string("Ann")), ("age", .int(30))])
                let club = try db.create("DogClub", [("name", .string("Pooch Pals")), ("fee", .double(10))])
                try db.append("DogClub", club, "members", [.link(db.cls("Person"), ann)])
            }
        }
        do {
            // Added at the same schema version: no migration.
            let db = try DB.open(path, clubSchema())
            XCTAssertEqual(db.realm.schemaVersion, 0)
            XCTAssertEqual(db.realm.schema.objectClass(named: "Person")?.linkingObjects.map(\.name), ["clubs"])
            XCTAssertEqual(db.realm.schema.objectClass(named: "Person")?.properties.map(\.name), ["name", "age"])
            XCTAssertEqual(try db.keys("Person", "ANY clubs.name == 'Pooch Pals'").count, 1)
            XCTAssertEqual(try db.keys("Person", "clubs.@avg.fee == 10").count, 1)
            // Frozen and thawed realms keep them.
            let frozen = DB(try db.realm.freeze())
            XCTAssertEqual(try frozen.keys("Person", "clubs.@count == 1").count, 1)
            let thawed = DB(try frozen.realm.thaw())
            XCTAssertEqual(try thawed.keys("Person", "clubs.@count == 1").count, 1)
        }
        for schema in [nil, clubSchema(nil)] {
            let db = try DB.open(path, schema)
            XCTAssertEqual(db.realm.schema.objectClass(named: "Person")?.linkingObjects, [])
            let error = expectError(.queryInvalid) { try db.keys("Person", "ANY clubs.name == 'Pooch Pals'") }
            XCTAssertTrue(error?.message.contains("no property 'clubs'") ?? false, error?.message ?? "")
            XCTAssertEqual(try db.keys("Person", "ANY @links.DogClub.members.name == 'Pooch Pals'").count, 1)
        }
        // The file's schema encoding names no origin property.
        let stored = try DB.open(path, nil).realm.schema
        XCTAssertTrue(stored.classes.allSatisfy { $0.linkingObjects.isEmpty })
    }

    /// `updateSchema` may declare linking objects (and keeps those the realm
    /// declared); a stored property cannot take a declared one's name.
    func testUpdateSchemaDeclaresAliases() throws {
        let db = try DB.open(tempDir().file(), clubSchema(nil))
        XCTAssertNotNil(expectError(.queryInvalid) { try db.keys("Person", "clubs.@count == 0") })
        try db.realm.updateSchema(clubSchema())
        XCTAssertEqual(try db.keys("Person", "clubs.@count == 0"), [])
        // Inside a write, with a new stored property too.
        var more = clubSchema(LinkingObjectsProperty(name: "presiding", originClass: "DogClub", originProperty: "president"), extra: [prop("nick", .string)])
        try db.write {
            try db.realm.updateSchema(more)
            try db.create("Person", [("name", .string("Ann"))])
        }
        XCTAssertEqual(db.realm.schema.objectClass(named: "Person")?.linkingObjects.map(\.name), ["clubs", "presiding"])
        XCTAssertEqual(try db.keys("Person", "clubs.@count == 0 && presiding.@count == 0").count, 1)
        more = clubSchema(nil, extra: [prop("nick", .string), prop("clubs", .int)])
        let error = expectError(.invalidSchema) { try db.realm.updateSchema(more) }
        XCTAssertEqual(error?.message, "property 'Person.clubs' is defined twice: the realm has a linking-objects property of that name")
        XCTAssertNil(db.realm.schema.objectClass(named: "Person")?.property(named: "clubs"))
    }

    // MARK: Queries

    func testQueriesThroughEveryOriginKind() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: clubSchema().classes.map { c in
            var c = c
            if c.name == "Person" {
                c.linkingObjects += [LinkingObjectsProperty(name: "presiding", originClass: "DogClub", originProperty: "president"),
                                     LinkingObjectsProperty(name: "roleIn", originClass: "DogClub", originProperty: "roles")]
            }
            return c
        }))
        let person = db.cls("Person")
        let (ann, bob, cy) = try db.write { () throws -> (Int64, Int64, Int64) in
            let people = try db.createMany("Person", ["name", "age"], [[.string("Ann"), .int(30)], [.string("Bob"), .int(40)], [.string("Cy"), .int(50)]])
            let pals = try db.create("DogClub", [("name", .string("Pooch Pals")), ("fee", .double(10)), ("president", .link(person, people[0]))])
            let barkers = try db.create("DogClub", [("name", .string("Barkers")), ("fee", .double(30)), ("president", .link(person, people[0]))])
            try db.append("DogClub", pals, "members", [.link(person, people[0]), .link(person, people[1])])
            try db.append("DogClub", barkers, "members", [.link(person, people[0])])
            try db.mapSet("DogClub", pals, "roles", "chair", .link(person, people[2]))
            return (people[0], people[1], people[2])
        }
        verifyCases(db, "Person", [
            ("ANY clubs.name == 'Pooch Pals'", [ann, bob]), ("clubs.name == 'Barkers'", [ann]), ("ALL clubs.fee < 20", [bob, cy]),
            ("NONE clubs.fee > 20", [bob, cy]), ("clubs.@count > 1", [ann]), ("clubs.@size == 0", [cy]),
            ("clubs.@avg.fee == 20", [ann]), ("clubs.@sum.fee > 5", [ann, bob]), ("clubs.@min.fee == 10", [ann, bob]),
            ("clubs.@max.fee == 30", [ann]), ("SUBQUERY(clubs, $c, $c.name BEGINSWITH 'P').@count > 0", [ann, bob]),
            ("SUBQUERY(clubs, $c, $c.fee > 20 && $c.president.name == 'Ann').@count == 1", [ann]),
            ("presiding.@count == 2", [ann]), ("presiding.name == 'Barkers'", [ann]), ("roleIn.name == 'Pooch Pals'", [cy]),
            ("clubs.members.name == 'Bob' && name != 'Bob'", [ann]), ("clubs.roles.chair.name == 'Cy'", [ann, bob]),
            ("'Pooch Pals' IN clubs.name", [ann, bob]), ("clubs.@count == presiding.@count", [ann, cy]),
        ])
        // Behind a to-many step the counts add up, as realm-core has it (Pooch Pals: 2 + 1; Barkers: 2).
        let clubs = try db.keys("DogClub")
        verifyCases(db, "DogClub", [("members.clubs.@count == 2", [clubs[1]]), ("members.clubs.@count == 3", [clubs[0]]),
                                    ("members.clubs.@count == members.@links.DogClub.members.@count", clubs),
                                    ("ANY president.clubs.fee > 20", clubs)])
        // Sort and distinct refuse a to-many step, as they do @links.
        for (make, verb) in [({ try db.results("Person").sorted(by: [("clubs.name", true)]) }, "sort"),
                             ({ try db.results("Person").distinct(by: ["clubs"]) }, "distinct")] as [(() throws -> ObjectResults, String)] {
            let error = expectError(.queryInvalid) { try make() }
            XCTAssertTrue(error?.message.contains("cannot \(verb) by") == true && error?.message.contains("'Person.clubs' is linking objects") == true,
                          error?.message ?? "")
        }
        // Linking objects are objects: a value is no match for them.
        XCTAssertNotNil(expectError(.querySyntax) { try db.keys("Person", "clubs.@count.fee == 1") })
        XCTAssertNotNil(expectError(.queryInvalid) { try db.keys("Person", "clubs.nothing == 1") })
        XCTAssertNotNil(expectError(.queryInvalid) { try db.keys("Person", "clubs.@avg.nothing == 1") })
    }

    func verifyCases(_ db: DB, _ className: String, _ cases: [(String, [Int64])], file: StaticString = #filePath, line: UInt = #line) {
        for (predicate, expected) in cases {
            XCTAssertEqual(try db.keys(className, predicate), expected, predicate, file: file, line: line)
            XCTAssertEqual(try db.query(className, predicate).count(), expected.count, predicate, file: file, line: line)
        }
    }
}
