import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// What today's compiler does with the trees of the whole language: it binds
/// comparisons of properties, `self`, literals (float, exact decimal and
/// typed-link literals included, numbers read per property type as
/// realm-core reads them), scalar arguments, key paths through links,
/// collections and backlinks with ANY/ALL/NONE, @count, @size and
/// aggregates, lists of values (IN, ANY/ALL/NONE {...}, list arguments) and
/// BETWEEN, map keys and list positions, SUBQUERY, obj(), @type and
/// arithmetic
/// (GraphQueryTests), GEOWITHIN (GeoQueryTests), TEXT (FullTextTests), and refuses what
/// realm-core refuses too (arithmetic over two lists, on a collection of
/// values) saying "Realm's query language does not allow ..." when the
/// query is compiled;
/// SORT / DISTINCT / LIMIT suffixes become the results' stages.
final class ParsedQueryEngineTests: XCTestCase {
    private let schema = makeSchema([
        ("Item", [prop("n", .int), prop("f", .float), prop("dec", .decimal128), prop("s", .string, .nullable),
                  Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Item"),
                  Property(name: "tags", type: .string, collection: .list),
                  Property(name: "others", type: .link, linkTarget: "Item", collection: .list)]),
        ("Bag", [Property(name: "ints", type: .int, flags: .nullable, collection: .list)]),
    ])

    private static let pi = DecimalArithmetic.finite(negative: false, coefficient: 3_141_592_653_589_793_238, exponent: -18)

    func testConstructsRealmRefusesAreRefusedWhenCompiled() throws {
        let db = try DB.open(tempDir().file(), schema)
        let cases: [(String, String)] = [
            ("others.n * others.n > 1", "Realm's query language does not allow arithmetic combining two collections or lists of values ('others.n * others.n'): realm-core refuses operations involving two lists"),
        ]
        for (predicate, message) in cases {
            let error = expectError(.queryInvalid, predicate) { try db.query("Item", predicate) }
            XCTAssertEqual(error?.message, message, predicate)
        }
        // The same on results of values.
        let bag = try db.write { try db.create("Bag", []) }
        try db.write { try db.append("Bag", bag, "ints", [.int(3), .int(1)]) }
        let values = try ValueResults(realm: db.realm, list: db.pkey("Bag", "ints"), of: bag, in: db.cls("Bag"))
        for (predicate, message) in [("self * 2 > 1", "Realm's query language does not allow arithmetic in a query on the elements of a collection of values ('self * 2'): compare 'self' with a value")] {
            let error = expectError(.queryInvalid, predicate) { try values.filtered(predicate, arguments: []) }
            XCTAssertEqual(error?.message, message, predicate)
        }
        XCTAssertEqual(try values.filtered("self > 2", arguments: []).count(), 1)
        XCTAssertEqual(try values.filtered("self IN {1, 7}", arguments: []).count(), 1)
        XCTAssertEqual(try values.filtered("self BETWEEN {2, 3}", arguments: []).count(), 1)
    }

    /// `O<key>`: the object of that key in the class of the link it is
    /// compared with (realm-core's Parser_Object and its "items = O0"), in
    /// lists and with quantifiers too; anywhere else a clear error.
    func testObjectKeyLiteralsAreLinksToTheTargetClass() throws {
        let db = try DB.open(tempDir().file(), schema)
        let item = db.cls("Item")
        let keys = try db.write { () -> [Int64] in
            let made = try db.createMany("Item", ["n"], [[.int(0)], [.int(1)], [.int(2)]])
            try db.set("Item", made[0], "friend", .link(item, made[1]))
            try db.set("Item", made[1], "friend", .link(item, made[1]))
            try db.append("Item", made[0], "others", [.link(item, made[2]), .link(item, made[1])])
            try db.append("Item", made[2], "others", [.link(item, made[2])])
            return made
        }
        let o = keys.map { "O\($0)" }
        let cases: [(String, [Int64])] = [
            ("friend == NULL", [keys[2]]),                  // realm-core: "link == NULL", 1
            ("friend == \(o[1])", [keys[0], keys[1]]),       // realm-core: "link == O1", 2
            ("\(o[1]) == friend", [keys[0], keys[1]]),
            ("friend != \(o[1])", [keys[2]]),
            ("friend == \(o[0])", []),
            ("friend IN {\(o[0]), \(o[1])}", [keys[0], keys[1]]),
            ("friend == ANY {\(o[2]), null}", [keys[2]]),
            ("others == \(o[2])", [keys[0], keys[2]]),       // realm-core: "items = O0", 2
            ("\(o[1]) IN others", [keys[0]]),
            ("ALL others == \(o[2])", [keys[1], keys[2]]),
            ("NONE others == \(o[1])", [keys[1], keys[2]]),
            ("friend.friend == \(o[1])", [keys[0], keys[1]]),
            ("@links.Item.others == \(o[0])", [keys[1], keys[2]]),
            ("friend == O999", []),
        ]
        for (predicate, expected) in cases {
            XCTAssertEqual(try db.keys("Item", predicate), expected, predicate)
        }
        XCTAssertEqual(try db.query("Item", "friend == \(o[1])").queryDescription(), "friend == \(o[1])")
        let refusals: [(String, String)] = [
            ("n == O1", "an object key (O<key>) names an object of the class a link points to, so it is compared with a link, or a list, set or map of links; 'n' is none"),
            ("tags == O1", "an object key (O<key>) names an object of the class a link points to, so it is compared with a link, or a list, set or map of links; 'tags' is none"),
            ("O1 == O2", "cannot compare object keys (O<key>) with each other: one side must be a link"),
            ("n BETWEEN {O1, O2}", "an object key (O<key>) names an object of the class a link points to, so it is compared with a link, or a list, set or map of links; 'n' is none"),
            ("n + O1 > 2", "an object key literal (O<key>) names an object of the class a link points to: compare a link with it ('friend == O1', 'O1 IN friends')"),
        ]
        for (predicate, message) in refusals {
            XCTAssertEqual(expectError(.queryInvalid, predicate) { try db.query("Item", predicate) }?.message, message, predicate)
        }
    }

    /// Inside a SUBQUERY, a key path without the variable names a property
    /// of the collection's objects, as realm-core binds it (its SUBQUERY
    /// rebinds the base table): no SUBQUERY reads the object outside it.
    /// A variable used outside its own SUBQUERY is a clear error.
    func testSubqueryPathsWithoutTheVariableNameTheCollectionsObjects() throws {
        let db = try DB.open(tempDir().file(), schema)
        let item = db.cls("Item")
        let keys = try db.write { () -> [Int64] in
            let made = try db.createMany("Item", ["n"], [[.int(0)], [.int(1)], [.int(2)], [.int(3)]])
            try db.append("Item", made[0], "others", [.link(item, made[2]), .link(item, made[3])])
            try db.append("Item", made[3], "others", [.link(item, made[1]), .link(item, made[2])])
            return made
        }
        let cases: [(String, [Int64])] = [
            ("SUBQUERY(others, $t, $t.n > 1 AND n > 1).@count > 0", [keys[0], keys[3]]),
            ("SUBQUERY(others, $t, n > 1).@count == 2", [keys[0]]),
            ("SUBQUERY(others, $t, n > 1).@count == SUBQUERY(others, $t, $t.n > 1).@count", keys),
            ("SUBQUERY(others, $t, SUBQUERY($t.others, $u, $u.n == 1).@count > 0).@count > 0", [keys[0]]),
            ("SUBQUERY(others, $t, SUBQUERY(others, $u, $u.n == 1).@count > 0).@count > 0", [keys[0]]),
        ]
        for (predicate, expected) in cases {
            XCTAssertEqual(try db.keys("Item", predicate), expected, predicate)
        }
        XCTAssertEqual(expectError(.queryInvalid) { try db.query("Item", "SUBQUERY(others, $t, SUBQUERY($t.others, $u, $t.n == 1).@count > 0).@count > 0") }?.message,
                       "'$t.n': '$t' names the objects of a SUBQUERY only inside its own predicate (not outside it, nor inside a SUBQUERY nested in it), as in realm-core")
        XCTAssertEqual(expectError(.queryInvalid) { try db.query("Item", "$t.n > 1") }?.message, "class 'Item' has no property '$t' (in key path '$t.n')")
    }

    /// SORT, DISTINCT and LIMIT apply after the predicate, left to right,
    /// through to-one links too; on values with `self`.
    func testOrderingSuffixesBecomeStages() throws {
        let db = try DB.open(tempDir().file(), schema)
        let keys = try db.write { () -> [Int64] in
            let made = try db.createMany("Item", ["n", "s"], [[.int(3), .string("b")], [.int(1), .string("a")], [.int(2), .string("b")], [.int(5), .null]])
            try db.set("Item", made[0], "friend", .link(db.cls("Item"), made[3]))
            try db.set("Item", made[1], "friend", .link(db.cls("Item"), made[2]))
            return made
        }
        XCTAssertEqual(try db.keys("Item", "n > 1 SORT(n DESC)"), [keys[3], keys[0], keys[2]])
        XCTAssertEqual(try db.keys("Item", "TRUEPREDICATE SORT(n ASC) LIMIT(2)"), [keys[1], keys[2]])
        XCTAssertEqual(try db.keys("Item", "TRUEPREDICATE LIMIT(2) SORT(n DESC)"), [keys[0], keys[1]])
        XCTAssertEqual(try db.keys("Item", "TRUEPREDICATE SORT(n ASC) DISTINCT(s)"), [keys[1], keys[2], keys[3]])
        XCTAssertEqual(try db.keys("Item", "friend != nil SORT(friend.n ASCENDING)"), [keys[1], keys[0]])
        expectError(.queryInvalid) { try db.query("Item", "TRUEPREDICATE SORT(tags ASC)") }
        expectError(.querySyntax) { try db.query("Item", "TRUEPREDICATE SORT(tags.@count ASC)") }
        expectError(.queryInvalid) { try db.query("Item", "TRUEPREDICATE SORT(nope DESC)") }
        expectError(.queryInvalid) { try db.query("Item", "TRUEPREDICATE LIMIT(1)").filtered("n > 0", arguments: []) }
        let bag = try db.write { try db.create("Bag", []) }
        try db.write { try db.append("Bag", bag, "ints", [.int(3), .int(1), .int(3), .null]) }
        let values = try ValueResults(realm: db.realm, list: db.pkey("Bag", "ints"), of: bag, in: db.cls("Bag"))
        let sorted = try values.filtered("self > 0 SORT(self DESC) DISTINCT(self)", arguments: [])
        XCTAssertEqual(try (0..<sorted.count()).map { try TV(sorted.value(at: $0)) }, [.int(3), .int(1)])
        expectError(.queryInvalid) { try values.filtered("TRUEPREDICATE SORT(n ASC)", arguments: []) }
    }

    func testNewLiteralKindsBindAndMatch() throws {
        let db = try DB.open(tempDir().file(), schema)
        let (a, b) = try db.write { () -> (Int64, Int64) in
            let a = try db.create("Item", [("n", .int(1)), ("f", .float(1.5)), ("dec", .decimal(Self.pi)), ("s", .string("x"))])
            let b = try db.create("Item", [("n", .int(2)), ("f", .float(2.25)), ("dec", .decimal(DecimalArithmetic.from(2))), ("s", .null)])
            try db.set("Item", b, "friend", .link(db.cls("Item"), a))
            return (a, b)
        }
        XCTAssertEqual(try db.keys("Item", "f == 1.5f"), [a])
        XCTAssertEqual(try db.keys("Item", "f > 2f"), [b])
        XCTAssertEqual(try db.keys("Item", "dec == 3.141592653589793238"), [a])
        XCTAssertEqual(try db.keys("Item", "dec == 2"), [b])
        // A whole number beyond 64 bits compiles (as a decimal) against an int.
        XCTAssertEqual(try db.keys("Item", "n < 123456789012345678901234567890"), [a, b])
        XCTAssertEqual(try db.keys("Item", "friend == L\(db.cls("Item")):\(a)"), [b])
        XCTAssertEqual(try db.keys("Item", "friend != L\(db.cls("Item")):\(a)"), [a])
        // Names as realm-core reads them, and the old forms, still work.
        XCTAssertEqual(try db.keys("Item", "s == nil"), [b])
        XCTAssertEqual(try db.keys("Item", "((n)) == 2"), [b])
        XCTAssertEqual(try db.keys("Item", "n == - 2 OR n == +1"), [a])
        XCTAssertEqual(try db.keys("Item", "n == %@ || s ==[c] %@", [.int(2), .string("X")]), [a, b])
    }

    func testNumberLiteralsAreReadAsRealmCoreReadsThemAgainstEachType() throws {
        func decimal(_ text: String) -> TV { .decimal(DecimalArithmetic.parse(Array(text.utf8))!) }
        let db = try DB.open(tempDir().file(), makeSchema([("N", [prop("dec", .decimal128), prop("d", .double), prop("i", .int)])]))
        let keys = try db.write {
            try db.createMany("N", ["dec", "d", "i"], [[decimal("0.1"), .double(0.1), .int(1)],
                                                       [decimal("3.141592653589793238"), .double(3.141592653589793238), .int(2)],
                                                       [decimal("3.141592653589793"), .double(0), .int(3)]])
        }
        // Against a decimal: the digits written, every one of them.
        XCTAssertEqual(try db.keys("N", "dec == 0.1"), [keys[0]])
        XCTAssertEqual(try db.keys("N", "dec == 3.141592653589793238"), [keys[1]])
        XCTAssertEqual(try db.keys("N", "dec == 3.141592653589793"), [keys[2]])
        XCTAssertEqual(try db.keys("N", "dec > 3.141592653589793"), [keys[1]])
        XCTAssertEqual(try db.keys("N", "3.1415926535897932379 < dec"), [keys[1]])
        XCTAssertEqual(try db.keys("N", "dec < 1e400 AND dec > -1e400"), keys)
        // Against a double: the nearest double (realm-core's strtod).
        XCTAssertEqual(try db.keys("N", "d == 3.141592653589793238"), [keys[1]])
        XCTAssertEqual(try db.keys("N", "d == 0.1"), [keys[0]])
        // Against an int: a whole number beyond 64 bits compares as a double; an infinity is refused.
        XCTAssertEqual(try db.keys("N", "i < 123456789012345678901234567890"), keys)
        let error = expectError(.queryInvalid) { try db.query("N", "i == 1e400") }
        XCTAssertTrue(error?.message.contains("Infinity") ?? false, error?.message ?? "")
    }
}
