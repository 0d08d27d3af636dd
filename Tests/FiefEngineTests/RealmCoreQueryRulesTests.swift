import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Five rules of Realm's query language as realm-core 14 has them, each a
/// table of predicates and the answers realm-core gives (the cases of its
/// test_parser.cpp, on data of our own shaped like its tests'):
///
/// * a property named `self` starts a key path (`self.item_id`);
/// * SORT and DISTINCT by a map's key (`meta['age']`, `meta.age`): the
///   value at that key, a missing key as null;
/// * `B64"..."` alone is a string; only `bin(B64"...")` is a binary;
/// * two many-valued key paths with no ANY/ALL/NONE compare element by
///   element, in order;
/// * a many-valued path `!=` a list: lengths differ, or every position
///   differs.
final class RealmCoreQueryRulesTests: XCTestCase {
    private func verify(_ db: DB, _ className: String, _ cases: [(String, Int)], file: StaticString = #filePath, line: UInt = #line) {
        for (predicate, expected) in cases {
            do {
                let count = try db.query(className, predicate).count()
                XCTAssertEqual(count, expected, predicate, file: file, line: line)
            } catch {
                XCTFail("\(predicate): \(error)", file: file, line: line)
            }
        }
    }

    private func keys(_ db: DB, _ className: String, _ query: String) throws -> [Int64] {
        try db.query(className, query).allKeys()
    }

    // MARK: A property named self

    /// Parser_BacklinkCount's shape: items whose `self` links to themselves
    /// (the last one to nothing), people with lists of items and a favourite.
    private func itemsWithSelf() throws -> (DB, items: [Int64]) {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Items", properties: [
                prop("item_id", .int),
                Property(name: "self", type: .link, flags: .nullable, linkTarget: "Items"),
                prop("double_col", .double),
            ]),
            ObjectClass(name: "Person", properties: [
                prop("customer_id", .int),
                Property(name: "items", type: .link, linkTarget: "Items", collection: .list),
                Property(name: "fav_item", type: .link, flags: .nullable, linkTarget: "Items"),
            ]),
        ]))
        var items: [Int64] = []
        try db.write {
            items = try db.createMany("Items", ["item_id", "double_col"], [5, 2, 12, 14, 20].enumerated().map { [.int(Int64($1)), .double(Double($0) + 0.5)] })
            let ic = db.cls("Items")
            for i in 0..<4 { try db.set("Items", items[i], "self", .link(ic, items[i])) }
            let people = try db.createMany("Person", ["customer_id"], (0..<3).map { [.int(Int64($0))] })
            for i in 0..<3 { try db.set("Person", people[i], "fav_item", .link(ic, items[2 - i])) }
            try db.append("Person", people[0], "items", [0, 1, 2].map { .link(ic, items[$0]) })
            try db.append("Person", people[1], "items", Array(repeating: .link(ic, items[0]), count: 10))
            try db.append("Person", people[2], "items", [2, 2].map { .link(ic, items[$0]) })
        }
        return (db, items)
    }

    func testPropertyNamedSelfStartsAKeyPath() throws {
        let (db, items) = try itemsWithSelf()
        verify(db, "Items", [
            // realm-core's cases.
            ("@links.Items.self.@links.@count == 1 && item_id == 14", 1),
            ("@links.@count >= self.@count", 5),
            ("@links.@count == @links.Items.self.@count", 2),
            // The property as the first step of longer paths.
            ("self.item_id == 14", 1), ("self.item_id == item_id", 4), ("self.self.item_id > 10", 2),
            ("self.double_col > 1.0", 3), ("self.@count == 0", 1), ("self.@count == 1", 4),
        ])
        // `self` alone is still the link property itself.
        verify(db, "Items", [("self == nil", 1), ("self != nil", 4)])
        verify(db, "Person", [("fav_item.self.item_id == 12", 1), ("ANY items.self.item_id == 5", 2), ("ALL items.self.double_col < 2.0", 1)])
        // SORT and DISTINCT take it too (a null link sorts before every value descending, and leaves DISTINCT).
        XCTAssertEqual(try keys(db, "Items", "TRUEPREDICATE SORT(self.double_col DESC)"), [items[4], items[3], items[2], items[1], items[0]])
        XCTAssertEqual(try keys(db, "Items", "TRUEPREDICATE DISTINCT(self.item_id)"), Array(items[0..<4]))
        // A class without such a property refuses it, naming it (names are case-sensitive: no 'SELF').
        let error = expectError(.queryInvalid) { try db.query("Person", "self.customer_id == 1") }
        XCTAssertTrue(error?.message.contains("'self'") ?? false, error?.message ?? "")
        expectError(.queryInvalid) { try db.query("Items", "SELF.item_id == 5") }
    }

    // MARK: SORT and DISTINCT by a map's key

    func testSortAndDistinctByMapKey() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Dog", properties: [
                Property(name: "name", type: .string, flags: .primaryKey),
                Property(name: "meta", type: .int, flags: .nullable, collection: .map),
                Property(name: "tags", type: .mixed, flags: .nullable, collection: .map),
                Property(name: "friends", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
            ]),
            ObjectClass(name: "Owner", properties: [
                prop("name", .string), Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
            ]),
        ]))
        var dogs: [String: Int64] = [:]
        try db.write {
            // Parser_DictionarySorting's dogs and ages, inserted in its order.
            for (name, age) in [("astro", 4), ("pluto", 5), ("lady", 6), ("snoopy", 7), ("scooby", 7)] {
                let key = try db.create("Dog", [("name", .string(name))])
                try db.mapSet("Dog", key, "meta", "age", .int(Int64(age)))
                dogs[name] = key
            }
            try db.mapSet("Dog", dogs["lady"]!, "tags", "rank", .string("b"))
            try db.mapSet("Dog", dogs["astro"]!, "tags", "rank", .int(3))
            try db.mapSet("Dog", dogs["pluto"]!, "tags", "rank", .string("a"))
        }
        let d = { (names: [String]) in names.map { dogs[$0]! } }
        // realm-core's cases.
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE SORT(meta[\"age\"] ASC) DISTINCT(meta['age'])"), d(["astro", "pluto", "lady", "snoopy"]))
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE SORT(meta[\"age\"] DESC) DISTINCT(meta['age'])"), d(["snoopy", "lady", "pluto", "astro"]))
        // `meta.age` is the same key; DISTINCT alone keeps the first of each value.
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE SORT(meta.age DESC, name ASC)"), d(["scooby", "snoopy", "lady", "pluto", "astro"]))
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE DISTINCT(meta.age)"), d(["astro", "pluto", "lady", "snoopy"]))
        // A missing key reads null: first ascending, last descending, one value for DISTINCT.
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE SORT(meta['weight'] ASC, name DESC)"), d(["snoopy", "scooby", "pluto", "lady", "astro"]))
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE SORT(tags['rank'] ASC, name ASC)"), d(["scooby", "snoopy", "astro", "pluto", "lady"]))
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE SORT(tags['rank'] DESC, name ASC)"), d(["lady", "pluto", "astro", "scooby", "snoopy"]))
        XCTAssertEqual(try keys(db, "Dog", "TRUEPREDICATE DISTINCT(tags.rank)"), d(["astro", "pluto", "lady", "snoopy"]))
        // Through a link.
        var owners: [Int64] = []
        try db.write {
            for dog in ["lady", "astro", "snoopy"] {
                owners.append(try db.create("Owner", [("name", .string("of " + dog)), ("dog", .link(db.cls("Dog"), dogs[dog]!))]))
            }
        }
        XCTAssertEqual(try keys(db, "Owner", "TRUEPREDICATE SORT(dog.meta['age'] ASC)"), [owners[1], owners[0], owners[2]])
        // Refused, with a reason: a map of links, a key no map holds, the map itself, a step after the key.
        for query in ["TRUEPREDICATE SORT(friends['x'] ASC)", "TRUEPREDICATE SORT(meta['a.b'] ASC)", "TRUEPREDICATE DISTINCT(meta['$x'])",
                      "TRUEPREDICATE SORT(meta ASC)", "TRUEPREDICATE SORT(meta['age'].x ASC)", "TRUEPREDICATE SORT(meta[0] ASC)"] {
            expectError(.queryInvalid, query) { try db.query("Dog", query) }
        }
    }

    // MARK: B64"..." is a string

    func testBase64AloneIsAString() throws {
        let db = try DB.open(tempDir().file(), makeSchema([("T", [prop("mixed", .mixed, .nullable), prop("s", .string, .nullable), prop("b", .binary, .nullable)])]))
        try db.write {
            // Parser_Mixed's shape: strings "String<i>" and one binary "String2Binary" in the mixed property.
            var rows: [[TV]] = []
            for i in 0..<30 {
                let text = "String\(i)"
                rows.append([i == 28 ? .binary(Array("String2Binary".utf8)) : i % 4 == 0 ? .string(text) : .int(Int64(i)),
                             .string(text), .binary(Array(text.utf8))])
            }
            _ = try db.createMany("T", ["mixed", "s", "b"], rows)
        }
        // "U3RyaW5nMg==" is base64 for "String2".
        verify(db, "T", [
            // realm-core's cases: alone a string (20, 24), in bin(...) a binary (28).
            ("mixed beginswith B64\"U3RyaW5nMg==\"", 2), ("mixed beginswith bin(B64\"U3RyaW5nMg==\")", 1),
            ("mixed == B64\"U3RyaW5nMjQ=\"", 1), ("mixed == bin(B64\"U3RyaW5nMjQ=\")", 0),
            // A string property takes it as any string literal; a binary one takes bin(B64"...").
            ("s == B64\"U3RyaW5nMjQ=\"", 1), ("s BEGINSWITH B64\"U3RyaW5nMg==\"", 11), ("s CONTAINS[c] B64\"UklORzE=\"", 11),
            ("s IN {B64\"U3RyaW5nMA==\", 'String1'}", 2), ("b == bin(B64\"U3RyaW5nMjQ=\")", 1),
            ("b BEGINSWITH bin(B64\"U3RyaW5nMg==\")", 11), ("s == B64\"\"", 0),
        ])
        // A binary property against a string literal is refused as before; bytes that are not UTF-8 are no string.
        expectError(.queryInvalid) { try db.query("T", "b == B64\"U3RyaW5nMjQ=\"") }
        let error = expectError(.querySyntax) { try db.query("T", "s == B64\"/w==\"") }
        XCTAssertTrue(error?.message.contains("bin(B64") ?? false, error?.message ?? "")
        // The canonical text of a binary constant reads back as a binary.
        let parsed = try QueryParser.parseQuery("b == bin(B64\"/w==\")")
        let text = try QuerySerializer.text(parsed)
        XCTAssertEqual(text, "b == bin(B64\"/w==\")")
        XCTAssertEqual(try QueryParser.parseQuery(text), parsed)
    }

    // MARK: Lists compared element by element

    /// Parser_OperatorIN's shape: people with lists of items (name, price),
    /// plus a second list `others` and an empty person.
    private func shop() throws -> DB {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Items", properties: [prop("name", .string), prop("price", .double)]),
            ObjectClass(name: "Person", properties: [
                prop("customer_id", .int),
                Property(name: "items", type: .link, linkTarget: "Items", collection: .list),
                Property(name: "others", type: .link, linkTarget: "Items", collection: .list),
            ]),
        ]))
        try db.write {
            let items = try db.createMany("Items", ["name", "price"], [("milk", 5.5), ("oranges", 4.0), ("pizza", 9.5), ("cereal", 6.5)].map { [.string($0.0), .double($0.1)] })
            let ic = db.cls("Items")
            let people = try db.createMany("Person", ["customer_id"], (0..<4).map { [.int(Int64($0))] })
            let lists: [([Int], [Int])] = [
                ([0, 1, 2, 3], [0, 1, 2, 3]),         // the same list
                (Array(repeating: 0, count: 10), [0]), // other lengths
                ([2, 2, 3], [3, 2, 2]),                // one position equal, the others differ
                ([], []),                              // both empty
            ]
            for (i, (items_, others)) in lists.enumerated() {
                try db.append("Person", people[i], "items", items_.map { .link(ic, items[$0]) })
                try db.append("Person", people[i], "others", others.map { .link(ic, items[$0]) })
            }
        }
        return db
    }

    func testTwoListsWithoutQuantifiersCompareInOrder() throws {
        let db = try shop()
        verify(db, "Person", [
            // realm-core's cases (its people 0..2 are ours; ours 3 has two empty lists, equal).
            ("items.price IN items.price", 4), ("items.price != items.price", 1), ("items.price * 2 > items.price", 4),
            ("items.price == items.price", 4),
            // Two different lists: position by position; of different lengths only != matches.
            ("items.price == others.price", 2), ("items.name == others.name", 2), ("items.price != others.price", 2),
            ("items.price > others.price", 1), ("items.price >= others.price", 2), ("items.name BEGINSWITH others.name", 2),
            ("others.price IN items.price", 2), ("NOT items.price == others.price", 2),
            // With a quantifier on either side: every pair, as before.
            ("ANY items.price == others.price", 3), ("ANY items.price == ANY others.price", 3), ("ALL items.price == ANY others.price", 4),
            ("items.price == ANY others.price", 3), ("NONE items.price == others.price", 1),
        ])
    }

    func testListNotEqualToListLiteral() throws {
        let db = try shop()
        verify(db, "Person", [
            // realm-core's cases: lengths differ, or every position differs.
            ("items.name != {'milk', 'oranges', 'pizza', 'cereal'}", 3), ("items.name != {'asdf', 'sdf', 'asdf', 'asdf'}", 4),
            ("items.name != {}", 4), ("items.name != {'pizza', 'pizza', 'cereal'}", 3), ("{5.5, 4.0, 9.5, 6.5} != items.price", 3),
            ("{null} != items.price", 4), ("{9.5, 9.5, 6.5} != items.price", 3),
            // One position equal, the others differing: neither == nor != (the negation of == would match).
            ("items.name != {'cereal', 'pizza', 'cereal'}", 3), ("items.name != {'milk', 'milk', 'milk'}", 4),
            ("items.name == {'cereal', 'pizza', 'cereal'}", 0), ("items.price != {4.0, 9.5, 5.5}", 3), ("items.price != {4.0, 1.0, 1.0}", 4),
            ("items.price != {4.0, 5.5, 6.5}", 3), ("items.price != {9.5, 1.0, 1.0}", 3),
            // Two empty lists: one length, no position differs, so != matches as == does.
            ("items.price == {}", 1), ("items.price != {}", 4),
            // NOT == is not !=.
            ("NOT items.name == {'cereal', 'pizza', 'cereal'}", 4),
        ])
        // A list argument is the same list.
        for (list, expected) in [(["cereal", "pizza", "cereal"], 3), (["milk", "milk", "milk"], 4), (["pizza", "pizza", "cereal"], 3)] {
            let count = try TV.withValues(list.map { TV.string($0) }) { values in
                try db.results("Person").filtered("items.name != $0", arguments: [QueryArgument(values: Array(values), isList: true)]).count()
            }
            XCTAssertEqual(count, expected, "items.name != \(list)")
        }
    }
}
