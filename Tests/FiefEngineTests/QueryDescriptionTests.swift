import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Results describe their query as canonical text (`queryDescription`,
/// realm-core's `Query::get_description` + ordering), arguments written in
/// as literals; and key-path arguments (`$K0`, `%K`) are substituted before
/// binding (QueryArguments.swift).
final class QueryDescriptionTests: XCTestCase {
    typealias Argument = GraphQueryTests.Argument

    // MARK: Descriptions

    /// Random predicates with arguments (through links, and through lists,
    /// sets, maps and backlinks), with random stages: the description,
    /// filtered without arguments, gives the same objects in the same
    /// order, and describes itself the same way.
    func testRandomQueriesDescribeAsTextGivingTheSameResults() throws {
        let db = try DB.open(tempDir().file(), GraphQueryTests.schema())
        var rng = SeededRandom(seed: 0xDE5C)
        var world = GraphQueryTests.World()
        try db.write { try GraphQueryTests.build(db, &rng, world: &world, persons: 150, dogs: 250) }
        let persons = world.rows["Person"]!.keys.sorted()
        var withArguments = 0
        for _ in 0..<250 {
            let p = GraphQueryTests.randomPredicate(&rng, persons: persons, personClass: db.cls("Person"))
            var args: [Argument] = []
            let text = GraphQueryTests.render(p, &args) + randomStages(&rng, ["name", "age", "owner.name", "owner.age", "rival.name"])
            if !args.isEmpty { withArguments += 1 }
            try checkRoundTrip(db, "Dog", text, args)
        }
        XCTAssertGreaterThan(withArguments, 50)

        let town = try DB.open(tempDir().file(), GraphQueryTests.townSchema())
        var model = GraphQueryTests.Town()
        try town.write { try GraphQueryTests.buildTown(town, &rng, &model, persons: 120, dogs: 160) }
        model.reindex()
        let dogs = model.dogs.keys.sorted()
        for _ in 0..<250 {
            let p = GraphQueryTests.randomTownPredicate(&rng, dogs: dogs)
            var args: [Argument] = []
            let text = GraphQueryTests.render(p, &args, dogClass: town.cls("Dog")) + randomStages(&rng, ["name", "age"])
            try checkRoundTrip(town, "Person", text, args)
        }
    }

    /// ` SORT(...)`, ` DISTINCT(...)`, ` LIMIT(n)` or nothing.
    private func randomStages(_ rng: inout SeededRandom, _ paths: [String]) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: text += " SORT(\(paths.randomElement(using: &rng)!) \(Bool.random(using: &rng) ? "ASC" : "DESC"))"
            case 1: text += " DISTINCT(\(paths.randomElement(using: &rng)!))"
            default: text += " LIMIT(\(Int.random(in: 0..<40, using: &rng)))"
            }
        }
        return text
    }

    private func checkRoundTrip(_ db: DB, _ className: String, _ text: String, _ args: [Argument],
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let results: ObjectResults
        do {
            results = try GraphQueryTests.query(db, text, args, of: className)
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
            return
        }
        let description = try results.queryDescription()
        let again = try db.results(className).filtered(description, arguments: [])
        XCTAssertEqual(try again.allKeys(), try results.allKeys(), "\(text) \(args) described as \(description)", file: file, line: line)
        XCTAssertEqual(try again.queryDescription(), description, text, file: file, line: line)
    }

    /// What the description looks like: realm-core's spelling, arguments as
    /// literals, filters joined by AND, stages after them.
    func testDescriptionsSpellTheQueryCanonically() throws {
        let db = try DB.open(tempDir().file(), Self.schema)
        let (rex, _) = try makePets(db)
        let animal = db.cls("Animal")
        let cases: [(String, [TV], String)] = [
            ("TRUEPREDICATE", [], "TRUEPREDICATE"),
            ("name = 'Adam'", [], "name == 'Adam'"),
            ("name == $0 && age > $1", [.string("O'Neil"), .int(3)], "name == 'O\\'Neil' AND age > 3"),
            ("age < $0 || age > $1 && name beginswith[c] \"a\"", [.int(1), .int(9)], "age < 1 OR age > 9 AND name BEGINSWITH[c] 'a'"),
            ("(age < 1 || age > 9) && !(name == nil)", [], "(age < 1 OR age > 9) AND NOT name == null"),
            ("weight == $0", [.double(2.5)], "weight == 2.5"),
            ("weight == $0", [.float(0.5)], "weight == 0.5f"),
            ("born > $0", [.timestamp(100, 5)], "born > T100:5"),
            ("Pet == $0", [.link(animal, rex)], "Pet == L\(animal):\(rex)"),
            ("Pet == $0", [.null], "Pet == null"),
            ("%K == %@", [.string("name"), .string("Eric")], "name == 'Eric'"),
            ("$K0 >= $1", [.string("Pet.Legs"), .int(2)], "Pet.Legs >= 2"),
            ("name == 'a' SORT(age DESC, name ASC) DISTINCT(Pet.name) LIMIT(3)", [],
             "name == 'a' SORT(age DESC, name ASC) DISTINCT(Pet.name) LIMIT(3)"),
            ("TRUEPREDICATE LIMIT(2) SORT(name ASC)", [], "TRUEPREDICATE LIMIT(2) SORT(name ASC)"),
        ]
        for (predicate, args, expected) in cases {
            XCTAssertEqual(try db.query("Person", predicate, args).queryDescription(), expected, predicate)
        }
        // A list argument is a list literal; successive filters are ANDed; stages stay after them.
        let listed = try TV.withValues([.string("Adam"), .string("Eric")]) { v in
            try db.results("Person").filtered("name IN $0", arguments: [QueryArgument(values: Array(v), isList: true)])
        }
        XCTAssertEqual(try listed.queryDescription(), "name IN {'Adam', 'Eric'}")
        let chained = try listed.sorted(by: [("age", false)]).filtered("age > 1 OR age < 0", arguments: []).limited(to: 5)
        XCTAssertEqual(try chained.queryDescription(), "name IN {'Adam', 'Eric'} AND (age > 1 OR age < 0) SORT(age DESC) LIMIT(5)")
        XCTAssertEqual(try db.results("Person").queryDescription(), "TRUEPREDICATE")
        XCTAssertEqual(try db.results("Person").sorted(by: [("name", true)]).queryDescription(), "TRUEPREDICATE SORT(name ASC)")
        // Results of values: self.
        let values = try ValueResults(realm: db.realm, list: db.pkey("Person", "scores"), of: try db.keys("Person")[0], in: db.cls("Person"))
        XCTAssertEqual(try values.filtered("self > $0 SORT(self DESC)", arguments: [QueryArgument(values: [.int(2)], isList: false)]).queryDescription(),
                       "self > 2 SORT(self DESC)")
        XCTAssertEqual(try values.distinct(by: ["self"]).queryDescription(), "TRUEPREDICATE DISTINCT(self)")
    }

    /// Decimal128 multiplication and division, and a list of values applied
    /// to a property (`{1, 2} * age`), describe as text that parses to the
    /// same query (decimal arguments spelled with every digit).
    func testDecimalArithmeticAndListsWithPropertiesRoundTrip() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [ObjectClass(name: "P", properties: [
            prop("price", .decimal128), prop("age", .int), prop("m", .mixed, .nullable),
            Property(name: "friend", type: .link, flags: .nullable, linkTarget: "P"),
        ])]))
        func d(_ s: String) -> Decimal128Bits { DecimalArithmetic.parse(Array(s.utf8))! }
        try db.write {
            let keys = try db.createMany("P", ["price", "age", "m"], [
                [.decimal(d("10")), .int(42), .decimal(d("1.5"))], [.decimal(d("0.1")), .int(25), .int(4)], [.decimal(d("-7.5")), .int(40), .null],
            ])
            try db.set("P", keys[0], "friend", .link(db.cls("P"), keys[2]))
        }
        let cases: [(String, [Argument], String)] = [
            ("price * 1.2 > 10", [], "price * 1.2 > 10"),
            ("price / 3 == $0", [([.decimal(d("3.333333333333333333333333333333333"))], false)], "price / 3 == 3333333333333333333333333333333333E-33"),
            ("price * m == 15", [], "price * m == 15"), ("price / age < 0", [], "price / age < 0"), ("-price / 0 > 0", [], "-price / 0 > 0"),
            ("{1, 2} * age == 84", [], "{1, 2} * age == 84"), ("ALL {1, 2} * age > 45", [], "ALL {1, 2} * age > 45"),
            ("NONE $0 * age > 50", [([.int(1), .int(2)], true)], "NONE {1, 2} * age > 50"), ("age + {1, 2} == {43, 44}", [], "age + {1, 2} == {43, 44}"),
            ("{1, 2} * friend.age == 80", [], "{1, 2} * friend.age == 80"), ("price * {2, $0} == -15", [([.decimal(d("0.1000000000000000000001"))], false)], "price * {2, 1000000000000000000001E-22} == -15"),
        ]
        for (predicate, args, expected) in cases {
            let results = try GraphQueryTests.query(db, predicate, args, of: "P")
            XCTAssertEqual(try results.queryDescription(), expected, predicate)
            try checkRoundTrip(db, "P", predicate, args)
        }
        XCTAssertEqual(try db.keys("P", "{1, 2} * age == 84").count, 1)
        XCTAssertEqual(try db.keys("P", "price * 1.2 > 10").count, 1)
    }

    /// Operations on one element, `.length`, arithmetic on lists and null
    /// against a map of links describe as text that parses to the same query.
    func testElementOperationsListArithmeticAndNullsInMapsRoundTrip() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Item", properties: [prop("price", .double)]),
            ObjectClass(name: "Dog", properties: [prop("name", .string, .primaryKey)]),
            ObjectClass(name: "P", properties: [
                prop("age", .int), Property(name: "tags", type: .string, collection: .list), Property(name: "bytes", type: .binary, collection: .list),
                Property(name: "mixeds", type: .mixed, flags: .nullable, collection: .list), Property(name: "notes", type: .string, flags: .nullable, collection: .map),
                Property(name: "scores", type: .int, collection: .list), Property(name: "items", type: .link, linkTarget: "Item", collection: .list),
                Property(name: "dogMap", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
            ]),
        ]))
        let (astro, dogClass) = try db.write { () -> (Int64, UInt32) in
            let items = try db.createMany("Item", ["price"], [[.double(4)], [.double(5.5)], [.double(9)]])
            let dogs = try db.createMany("Dog", ["name"], [[.string("astro")], [.string("pluto")]])
            let people = try db.createMany("P", ["age"], [[.int(3)], [.int(4)], [.int(9)]])
            let (ic, dc) = (db.cls("Item"), db.cls("Dog"))
            try db.append("P", people[0], "tags", [.string("abc"), .string("de")])
            try db.append("P", people[1], "tags", [.string("fghij")])
            try db.append("P", people[0], "bytes", [.binary([1, 2, 3])])
            try db.append("P", people[1], "mixeds", [.string("four"), .int(4)])
            try db.mapSet("P", people[2], "notes", "k", .string("hello"))
            try db.append("P", people[0], "scores", [.int(2), .int(4)])
            try db.append("P", people[0], "items", [.link(ic, items[0]), .link(ic, items[1])])
            try db.append("P", people[1], "items", [.link(ic, items[2])])
            try db.mapSet("P", people[0], "dogMap", "a", .link(dc, dogs[0]))
            try db.mapSet("P", people[0], "dogMap", "b", .null)
            try db.mapSet("P", people[1], "dogMap", "a", .link(dc, dogs[1]))
            return (dogs[0], dc)
        }
        let cases: [(String, [Argument], String)] = [
            ("tags[0].@size == 3", [], "tags[0].@count == 3"), ("tags[FIRST].@count > 2", [], "tags[FIRST].@count > 2"),
            ("tags[LAST].@size == 2", [], "tags[LAST].@count == 2"), ("tags[$0].@size == 5", [([.int(0)], false)], "tags[0].@count == 5"),
            ("bytes[0].@size == 3", [], "bytes[0].@count == 3"), ("mixeds[LAST].@size == nil", [], "mixeds[LAST].@count == null"),
            ("notes['k'].@size == 5", [], "notes['k'].@count == 5"), ("notes.k.@size == 5", [], "notes.k.@count == 5"),
            ("tags.length == 3", [], "tags.length == 3"), ("ALL tags.length > 1", [], "ALL tags.length > 1"),
            ("NONE mixeds.length == 4", [], "NONE mixeds.length == 4"), ("2 IN tags.length", [], "2 IN tags.length"),
            ("ALL {8, 10} / 2 >= ANY items.price", [], "ALL {8, 10} / 2 >= ANY items.price"),
            ("{1, 2} * 2 == scores", [], "{1, 2} * 2 == scores"), ("age IN $0 - 1", [([.int(4), .int(5)], true)], "age IN {4, 5} - 1"),
            ("NONE {1, 2, 3} * -20 >= ANY items.price", [], "NONE {1, 2, 3} * -20 >= ANY items.price"), ("-{3, 4} == -age", [], "-({3, 4}) == -age"),
            ("{obj('Dog', 'astro'), nil} == ANY dogMap", [], "{obj('Dog', 'astro'), null} == ANY dogMap"),
            ("dogMap.@values == nil", [], "dogMap.@values == null"), ("ALL dogMap.@values != $0", [([.null], false)], "ALL dogMap.@values != null"),
            ("dogMap.@values == ANY $0", [([.null, .link(dogClass, astro)], true)], "dogMap.@values == ANY {null, L\(dogClass):\(astro)}"),
        ]
        for (predicate, args, expected) in cases {
            let results = try GraphQueryTests.query(db, predicate, args, of: "P")
            XCTAssertEqual(try results.queryDescription(), expected, predicate)
            try checkRoundTrip(db, "P", predicate, args)
        }
        XCTAssertEqual(try db.keys("P", "tags.length == 3").count, 1)
        XCTAssertEqual(try db.keys("P", "dogMap.@values == nil").count, 1)
    }

    // MARK: Key-path arguments

    static let schema = Schema(classes: [
        ObjectClass(name: "Person", properties: [
            prop("name", .string, .primaryKey),
            Property(name: "Pet", type: .link, flags: .nullable, linkTarget: "Animal"),
            prop("age", .int), prop("weight", .double, .nullable), prop("born", .timestamp, .nullable),
            Property(name: "scores", type: .int, collection: .list),
            Property(name: "pets", type: .link, linkTarget: "Animal", collection: .list),
        ]),
        ObjectClass(name: "Animal", properties: [prop("name", .string, .primaryKey), prop("Legs", .int)]),
    ])

    /// realm-core's Parser_KeyPathSubstitution world: Adam, Brian, Charlie,
    /// David own Wanda (0 legs), Kaa (0), Zazu (2), Pluto (4); Eric no pet.
    /// Returns the keys of Wanda and of the persons.
    @discardableResult
    private func makePets(_ db: DB) throws -> (Int64, [Int64]) {
        try db.write { () -> (Int64, [Int64]) in
            let animals = try db.createMany("Animal", ["name", "Legs"], [[.string("Wanda"), .int(0)], [.string("Kaa"), .int(0)],
                                                                          [.string("Zazu"), .int(2)], [.string("Pluto"), .int(4)]])
            let persons = try db.createMany("Person", ["name", "age"], [[.string("Adam"), .int(30)], [.string("Brian"), .int(4)],
                                                                         [.string("Charlie"), .int(12)], [.string("David"), .int(7)],
                                                                         [.string("Eric"), .int(55)]])
            for (person, animal) in zip(persons, animals) {
                try db.set("Person", person, "Pet", .link(db.cls("Animal"), animal))
            }
            try db.append("Person", persons[0], "pets", [.link(db.cls("Animal"), animals[2]), .link(db.cls("Animal"), animals[3])])
            try db.append("Person", persons[4], "pets", [.link(db.cls("Animal"), animals[0])])
            try db.append("Person", persons[0], "scores", [.int(3), .int(1), .int(3)])
            return (animals[0], persons)
        }
    }

    /// realm-core's Parser_KeyPathSubstitution cases, and %K (each %K and
    /// %@ takes the next argument), through links, lists and backlinks.
    func testKeyPathArgumentsAreTheKeyPathsTheyHold() throws {
        let db = try DB.open(tempDir().file(), Self.schema)
        try makePets(db)
        let realmCore: [TV] = [.string("Pet"), .string("Pet.Legs"), .int(25), .null, .string("Pet.Weight")]
        let cases: [(String, [TV], [String])] = [
            ("$K0 != null", realmCore, ["Adam", "Brian", "Charlie", "David"]),
            ("$K0 == null", realmCore, ["Eric"]),
            ("$K1 = 0", realmCore, ["Adam", "Brian"]),
            ("$K1 > 0", realmCore, ["Charlie", "David"]),
            ("%K == %@", [.string("name"), .string("Charlie")], ["Charlie"]),
            ("%K > %@ AND %K BEGINSWITH %@", [.string("age"), .int(5), .string("name"), .string("C")], ["Charlie"]),
            ("%K == 4", [.string("Pet.Legs")], ["David"]),
            ("ANY %K == 4", [.string("pets.Legs")], ["Adam"]),
            ("ALL %K > 1", [.string("pets.Legs")], ["Adam", "Brian", "Charlie", "David"]),
            ("%K.@count == 2", [.string("pets")], ["Adam"]),
            ("%K.@count > 0", [.string("scores")], ["Adam"]),
            ("%K.@max == 3", [.string("scores")], ["Adam"]),
            ("$K1 == $0", [.int(12), .string("age")], ["Charlie"]),
            ("SUBQUERY(%K, $a, $a.Legs > 1).@count == 2", [.string("pets")], ["Adam"]),
        ]
        for (predicate, args, expected) in cases {
            let keys = try db.keys("Person", predicate, args)
            let names = try keys.map { key -> String in
                guard case .string(let name) = try db.get("Person", key, "name") else { return "?" }
                return name
            }
            XCTAssertEqual(names.sorted(), expected, predicate)
        }
        // Backlinks by key path: the animals some person's list holds.
        let listed = try db.keys("Animal", "%K.@count > 0", [.string("@links.Person.pets")])
        XCTAssertEqual(listed.count, 3)
        XCTAssertEqual(try db.keys("Animal", "$K0.@count > 1", [.string("@links")]), try db.keys("Animal", "@links.@count > 1"))
        // A key path argument is bound as the path written out: the same plan, the same answers.
        XCTAssertEqual(try db.keys("Person", "%K BETWEEN {1, 3}", [.string("Pet.Legs")]), try db.keys("Person", "Pet.Legs BETWEEN {1, 3}"))
    }

    /// Bad key-path arguments: FIEF_ERR_QUERY_ARGUMENT naming the argument.
    func testBadKeyPathArgumentsAreArgumentErrors() throws {
        let db = try DB.open(tempDir().file(), Self.schema)
        try makePets(db)
        let realmCore: [TV] = [.string("Pet"), .string("Pet.Legs"), .int(25), .null, .string("Pet.Weight")]
        let cases: [(String, [TV], FiefError.Code, String)] = [
            ("$K2 = 0", realmCore, .queryArgument, "argument 2 (a key-path argument, $K2 or the matching %K) is an int; it must be a string holding a key path, as 'owner.name'"),
            ("$K3 = 0", realmCore, .queryArgument, "argument 3 (a key-path argument, $K3 or the matching %K) is null; it must be a string holding a key path, as 'owner.name'"),
            ("$K4 = 0", realmCore, .queryArgument, "argument 4 (a key-path argument, $K4 or the matching %K) is 'Pet.Weight': class 'Animal' has no property 'Weight'"),
            ("$K5 = 0", realmCore, .queryArgument, "the predicate uses argument 5 (a key-path argument, $K5 or the matching %K), but 5 arguments were given"),
            ("%K == 1", [.string("nope")], .queryArgument, "argument 0 (a key-path argument, $K0 or the matching %K) is 'nope': class 'Person' has no property 'nope'"),
            ("%K == 1", [.string("Pet..Legs")], .queryArgument, "argument 0 (a key-path argument, $K0 or the matching %K) is 'Pet..Legs', which is no key path: property names joined by '.', as 'owner.name'"),
            ("%K == 1", [.string("")], .queryArgument, "argument 0 (a key-path argument, $K0 or the matching %K) is '', which is no key path: property names joined by '.', as 'owner.name'"),
            ("%K == 1", [.string("pets.@count")], .queryArgument, "argument 0 (a key-path argument, $K0 or the matching %K) is 'pets.@count': '@count' cannot be part of a key-path argument; write it after the argument ('$K0.@count')"),
            ("%K > 0", [.string("@links.Person")], .queryArgument, "argument 0 (a key-path argument, $K0 or the matching %K) is '@links.Person': '@links' takes a class and a property after it ('@links.Person.dogs'), or nothing"),
            ("%K.@count > 0", [.string("@links.Cat.pets")], .queryArgument, "argument 0 (a key-path argument, $K0 or the matching %K) is '@links.Cat.pets': the realm has no class 'Cat'"),
            // The path is fine; the comparison written is not: a query error.
            ("%K > 'x'", [.string("age")], .queryInvalid, ""),
        ]
        for (predicate, args, code, message) in cases {
            let className = predicate.contains("@count") ? "Animal" : "Person"
            let error = expectError(code, predicate) { try db.query(className, predicate, args) }
            if !message.isEmpty { XCTAssertEqual(error?.message, message, predicate) }
        }
        // A list argument.
        let error = expectError(.queryArgument) {
            try TV.withValues([.string("name")]) { v in
                try db.results("Person").filtered("%K == 'a'", arguments: [QueryArgument(values: Array(v), isList: true)])
            }
        }
        XCTAssertEqual(error?.message, "argument 0 (a key-path argument, $K0 or the matching %K) is a list; it must be a string holding a key path, as 'owner.name'")
        // Written after the argument: a syntax error, as in realm-core.
        expectError(.querySyntax) { try db.query("Person", "$K0.Legs.name == 1", [.string("Pet")]) }
    }

    // MARK: GEOWITHIN

    /// GEOWITHIN shapes given as arguments (shapes, strings holding one,
    /// coordinates and radii) are written in as literal shapes; `x IN $0`
    /// with a shape is written as GEOWITHIN; each description gives the
    /// same objects and describes itself the same way.
    func testGeoShapeArgumentsAreWrittenAsLiterals() throws {
        let db = try DB.open(tempDir().file(), GeoIndexTests.schema)
        try db.write {
            for i in 0..<40 {
                let key = try db.create("Place", [("n", .int(Int64(i)))])
                let (_, location) = try db.realm.createEmbedded(table: db.cls("Place"), key: key, property: db.pkey("Place", "location"))
                try db.set("Position", location, "type", .string("Point"))
                try db.append("Position", location, "coordinates", [.double(Double(i) - 20), .double(Double(i) / 2 - 10)])
                let (_, element) = try db.realm.list(CollectionRef(.list, table: db.cls("Place"), owner: key, property: db.pkey("Place", "locations"))).insertEmbedded(at: 0)
                try db.set("Position", element, "type", .string("Point"))
                try db.append("Position", element, "coordinates", [.double(Double(i)), .double(Double(-i))])
            }
        }
        func p(_ longitude: Double, _ latitude: Double) -> GeoPoint { GeoPoint(longitude: longitude, latitude: latitude) }
        let box = QueryArgument(geoShape: .box(p(-5, -5), p(5, 5)))
        let polygon = QueryArgument(geoShape: .polygon([[p(-10, -10), p(10, -10), p(10, 10), p(-10, 10), p(-10, -10)],
                                                        [p(-1, -1), p(1, -1), p(1, 1), p(-1, 1), p(-1, -1)]]))
        let circle = QueryArgument(geoShape: .circle(GeoPoint(longitude: 1.5, latitude: -2, altitude: 30), radians: 0.1))
        func number(_ value: Value) -> QueryArgument { QueryArgument(values: [value], isList: false) }
        var text = Array("geoCircle([0, 0], 0.25)".utf8)
        try text.withUnsafeMutableBytes { raw in
            let string = QueryArgument(values: [.string(UnsafeRawBufferPointer(raw))], isList: false)
            let cases: [(String, [QueryArgument], String)] = [
                ("location GEOWITHIN $0", [box], "location GEOWITHIN geoBox([-5.0, -5.0], [5.0, 5.0])"),
                ("location IN $0", [box], "location GEOWITHIN geoBox([-5.0, -5.0], [5.0, 5.0])"),
                ("location GEOWITHIN $0", [polygon],
                 "location GEOWITHIN geoPolygon({[-10.0, -10.0], [10.0, -10.0], [10.0, 10.0], [-10.0, 10.0], [-10.0, -10.0]}, {[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0]})"),
                ("location GEOWITHIN $0 AND n > $1", [circle, number(.int(3))], "location GEOWITHIN geoCircle([1.5, -2.0, 30.0], 0.1) AND n > 3"),
                ("location GEOWITHIN $0", [string], "location GEOWITHIN geoCircle([0.0, 0.0], 0.25)"),
                ("location GEOWITHIN geoBox([$0, $1], [3, $2])", [number(.int(-3)), number(.float(-2.5)), number(.double(4.25))],
                 "location GEOWITHIN geoBox([-3.0, -2.5], [3.0, 4.25])"),
                ("location GEOWITHIN geoCircle([$0, 0], $1)", [number(.double(0.5)), number(.double(0.2))], "location GEOWITHIN geoCircle([0.5, 0.0], 0.2)"),
                ("ANY locations GEOWITHIN $0", [box], "ANY locations GEOWITHIN geoBox([-5.0, -5.0], [5.0, 5.0])"),
                ("NOT (location GEOWITHIN $0)", [box], "NOT location GEOWITHIN geoBox([-5.0, -5.0], [5.0, 5.0])"),
            ]
            for (query, arguments, expected) in cases {
                let results = try db.results("Place").filtered(query, arguments: arguments)
                let description = try results.queryDescription()
                XCTAssertEqual(description, expected, query)
                let again = try db.results("Place").filtered(description, arguments: [])
                XCTAssertEqual(try again.allKeys(), try results.allKeys(), "\(query) described as \(description)")
                XCTAssertEqual(try again.queryDescription(), description, query)
                XCTAssertGreaterThan(try results.count(), 0, query)
            }
        }
    }
}
