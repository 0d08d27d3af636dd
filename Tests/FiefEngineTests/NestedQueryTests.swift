import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Queries into the lists and dictionaries nested in mixed values
/// (NestedPath.swift): realm-core's cases (Parser_NestedMixedDictionaryList,
/// Parser_NestedDictionaryDeep, Parser_NestedDictionaryList,
/// Parser_NestedListDictionary, Parser_NestedDictionaryMultipleLinks,
/// Query_NestedListNull, Query_NestedDictionaryNull, Parser_issue7393,
/// Parser_Wildcard) restated as tables of query, arguments and the objects
/// expected, then Fief's own: every step, quantifiers, sizes and types,
/// paths meeting scalars and missing keys, links on the way, arguments,
/// arithmetic, descriptions, live results and the forms refused.
final class NestedQueryTests: XCTestCase {
    typealias Argument = GraphQueryTests.Argument

    /// A value to store in a mixed slot: a scalar, or a list or dictionary
    /// of them (a dictionary's pairs in the order written).
    indirect enum NV: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
                      ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
        case v(TV)
        case list([NV])
        case dict([(String, NV)])

        init(integerLiteral value: Int64) { self = .v(.int(value)) }
        init(stringLiteral value: String) { self = .v(.string(value)) }
        init(floatLiteral value: Double) { self = .v(.double(value)) }
        init(booleanLiteral value: Bool) { self = .v(.bool(value)) }
        init(nilLiteral: ()) { self = .v(.null) }
        init(arrayLiteral elements: NV...) { self = .list(elements) }
        init(dictionaryLiteral elements: (String, NV)...) { self = .dict(elements) }

        /// The value written in the slot: a scalar, or a new empty collection.
        var slot: TV {
            switch self {
            case .v(let value): return value
            case .list: return .nestedList(0)
            case .dict: return .nestedDict(0)
            }
        }
    }

    // MARK: Writing nested values

    /// Fill the nested collection `read` holds (as written with `value.slot`).
    private func fill(_ db: DB, _ table: UInt32, _ owner: Int64, _ property: UInt32, _ read: Value, _ value: NV) throws {
        switch (value, read) {
        case (.v, _): return
        case (.list(let items), .nestedList(let id)):
            let ref = CollectionRef(nested: .list, table: table, owner: owner, property: property, id: id)
            for (i, item) in items.enumerated() {
                try TV.withValues([item.slot]) { try db.realm.list(ref).append(UnsafeBufferPointer($0)) }
                try fill(db, table, owner, property, try db.realm.list(ref).value(at: i), item)
            }
        case (.dict(let pairs), .nestedDictionary(let id)):
            let ref = CollectionRef(nested: .list, table: table, owner: owner, property: property, id: id)
            for (key, item) in pairs {
                try TV.withValues([item.slot]) { v in try Array(key.utf8).withUnsafeBytes { try db.realm.map(ref).set(v[0], forKey: $0) } }
                let stored = try Array(key.utf8).withUnsafeBytes { try db.realm.map(ref).value(forKey: $0) }
                try fill(db, table, owner, property, try XCTUnwrap(stored), item)
            }
        default:
            XCTFail("\(read) does not hold \(value)")
        }
    }

    /// Set mixed property `name` of an object to `value`, nested collections filled.
    func setMixed(_ db: DB, _ className: String, _ key: Int64, _ name: String, _ value: NV) throws {
        try db.set(className, key, name, value.slot)
        try fill(db, db.cls(className), key, db.pkey(className, name), try db.realm.value(table: db.cls(className), key: key, property: db.pkey(className, name)), value)
    }

    /// Append `values` to list of mixed values `name`.
    func appendMixed(_ db: DB, _ className: String, _ key: Int64, _ name: String, _ values: [NV]) throws {
        let table = db.cls(className), p = db.pkey(className, name)
        for value in values {
            try TV.withValues([value.slot]) { try db.realm.list(CollectionRef(.list, table: table, owner: key, property: p)).append(UnsafeBufferPointer($0)) }
            let count = try db.realm.list(CollectionRef(.list, table: table, owner: key, property: p)).count()
            try fill(db, table, key, p, try db.realm.list(CollectionRef(.list, table: table, owner: key, property: p)).value(at: count - 1), value)
        }
    }

    /// Set `pairs` in map of mixed values `name`.
    func setMixedMap(_ db: DB, _ className: String, _ key: Int64, _ name: String, _ pairs: [(String, NV)]) throws {
        let table = db.cls(className), p = db.pkey(className, name)
        let ref = CollectionRef(.map, table: table, owner: key, property: p)
        for (mapKey, value) in pairs {
            try db.mapSet(className, key, name, mapKey, value.slot)
            let stored = try Array(mapKey.utf8).withUnsafeBytes { try db.realm.map(ref).value(forKey: $0) }
            try fill(db, table, key, p, try XCTUnwrap(stored), value)
        }
    }

    // MARK: Checking

    /// For each case: the objects of `className` matching (named by
    /// `label`), in any order; the description parses back to the same
    /// objects and describes itself the same way.
    func check(_ db: DB, _ className: String, _ cases: [(String, [String])], _ args: [Argument] = [], label: String = "name",
               file: StaticString = #filePath, line: UInt = #line) {
        for (predicate, expected) in cases {
            do {
                let results = try GraphQueryTests.query(db, predicate, args, of: className)
                let keys = try results.allKeys()
                let names = try keys.map { key -> String in
                    guard case .string(let name) = try db.get(className, key, label) else { return "?" }
                    return name
                }
                XCTAssertEqual(names.sorted(), expected.sorted(), predicate, file: file, line: line)
                XCTAssertEqual(try results.count(), expected.count, predicate, file: file, line: line)
                let description = try results.queryDescription()
                let again = try db.results(className).filtered(description, arguments: [])
                XCTAssertEqual(try again.allKeys(), keys, "\(predicate) described as \(description)", file: file, line: line)
                XCTAssertEqual(try again.queryDescription(), description, predicate, file: file, line: line)
            } catch {
                XCTFail("\(predicate): \(error)", file: file, line: line)
            }
        }
    }

    /// Each predicate is refused with `code`, its message holding each word.
    func refuse(_ db: DB, _ className: String, _ cases: [(String, [String])], _ args: [Argument] = [], code: FiefError.Code = .queryInvalid,
                file: StaticString = #filePath, line: UInt = #line) {
        for (predicate, words) in cases {
            let error = expectError(code, predicate, file: file, line: line) { try GraphQueryTests.query(db, predicate, args, of: className) }
            for word in words {
                XCTAssertTrue(error?.message.contains(word) ?? false, "\(predicate): \(error?.message ?? "")", file: file, line: line)
            }
            XCTAssertFalse(error?.message.contains("not supported yet") ?? false, predicate, file: file, line: line)
        }
    }

    // MARK: realm-core's cases

    /// Parser_NestedMixedDictionaryList: a mixed property holding
    /// dictionaries of lists of dictionaries, a list, a flat dictionary.
    func testRealmCoreNestedMixedDictionaryList() throws {
        let db = try DB.open(tempDir().file(), makeSchema([("Person", [
            prop("name", .string, .primaryKey), prop("properties", .mixed, .nullable),
            Property(name: "myself", type: .link, flags: .nullable, linkTarget: "Person"),
        ])]))
        try db.write {
            let paul = try db.create("Person", [("name", .string("Paul"))])
            try setMixed(db, "Person", paul, "properties", [
                "instruments": [["brand": "høfner", "strings": 4, "electric": true],
                                ["brand": "gibson", "strings": 6, "electric": true],
                                ["brand": "martin", "strings": 12, "electric": false]],
                "pets": [["name": "pipper", "legs": 2, "age": 4], ["name": "fido", "legs": 4, "age": 8]],
            ])
            let john = try db.create("Person", [("name", .string("John"))])
            try setMixed(db, "Person", john, "properties", [
                "tickets": [],
                "instruments": [["brand": "fender", "strings": 6, "electric": true],
                                ["brand": "gibson", "color": "red", "strings": 6, "electric": true]],
                "pets": [["name": "Lady", "legs": 4, "age": 6], ["name": "carl", "legs": 0, "age": 20]],
            ])
            let george = try db.create("Person", [("name", .string("George"))])
            try setMixed(db, "Person", george, "properties", [1, 2, 3])
            let ringo = try db.create("Person", [("name", .string("Ringo"))])
            try setMixed(db, "Person", ringo, "properties", ["Foo": "Bar"])
            for key in [paul, john, george, ringo] { try db.set("Person", key, "myself", .link(db.cls("Person"), key)) }
        }
        check(db, "Person", [
            ("properties.instruments[0].strings == 6", ["John"]),
            ("properties.instruments[0].strings > 5", ["John"]),
            ("properties.instruments[*].strings == 6", ["Paul", "John"]),
            ("properties.instruments[LAST].strings == 6", ["John"]),
            ("properties.instruments[*].@keys == 'color'", ["John"]),
            ("properties.instruments[*].brand BEGINSWITH 'gi'", ["Paul", "John"]),
            ("properties[*][0].legs == 2", ["Paul"]),        // pipper the bird
            ("properties[*][0].legs == 4", ["John"]),        // Lady the cat
            ("properties[*][*].legs == 0", ["John"]),        // carl the snake
            ("properties[*][*][*] > 10", ["Paul", "John"]),  // martin the guitar, carl the snake
            ("properties[*] == {3, 2, 1}", []),
            ("properties[*] == {1, 2, 3}", ["George"]),
            ("ANY properties[*] == 2", ["George"]),
            ("NONE properties[*] == 2", ["Paul", "John", "Ringo"]),
            ("properties.@keys == 'instruments'", ["Paul", "John"]),
            ("properties.@keys == 'pets'", ["Paul", "John"]),
            ("properties.@keys == 'tickets'", ["John"]),
            ("properties.@size == 3", ["John", "George"]),
            ("properties.instruments.@size == 2", ["John"]),
            ("properties.@type == 'object'", ["Paul", "John", "Ringo"]),
            ("properties.@type == 'array'", ["George"]),
            ("properties.@type == 'collection'", ["Paul", "John", "George", "Ringo"]),
            ("properties.Foo == 'Bar'", ["Ringo"]),
            // Through a to-one link first.
            ("myself.properties.instruments[*].strings == 12", ["Paul"]),
            ("myself.properties[*] == {1, 2, 3}", ["George"]),
        ])
    }

    /// Parser_NestedDictionaryDeep: a dictionary holding lists holding a
    /// dictionary holding a link (followed to its object's property).
    func testRealmCoreNestedDictionaryDeep() throws {
        let db = try DB.open(tempDir().file(), makeSchema([("Person", [
            prop("name", .string, .primaryKey), prop("properties", .mixed, .nullable),
            Property(name: "myself", type: .link, flags: .nullable, linkTarget: "Person"),
        ])]))
        try db.write {
            let paul = try db.create("Person", [("name", .string("Paul"))])
            let john = try db.create("Person", [("name", .string("John"))])
            try db.set("Person", paul, "myself", .link(db.cls("Person"), paul))
            try setMixed(db, "Person", paul, "properties", [
                "one": 1, "two": [5, 6], "three": [5, ["Hello": 5, "friend": .v(.link(db.cls("Person"), john))]],
            ])
        }
        check(db, "Person", [
            ("myself.properties == 1", []),
            ("properties[0] == 1", []),
            ("properties['one'] == 1", ["Paul"]),
            ("properties.two[1].Hello == 5", []),
            ("properties.three[0].Hello == 5", []),
            ("properties.three[1].Hello == 5", ["Paul"]),
            ("properties.three[1].friend.name == 'John'", ["Paul"]),
            // The linked object's own mixed value, and a property it lacks.
            ("properties.three[1].friend.properties == nil", ["Paul"]),
            ("properties.three[1].friend.missing == nil", []),
            ("properties.three[1].friend.@type == 'objectlink'", ["Paul"]),
        ])
    }

    /// Parser_NestedDictionaryList, Parser_NestedListDictionary: a map and
    /// a list of mixed values holding nested collections.
    func testRealmCoreNestedThroughMapsAndListsOfMixed() throws {
        let db = try DB.open(tempDir().file(), makeSchema([("Person", [
            prop("name", .string, .primaryKey),
            Property(name: "dict", type: .mixed, flags: .nullable, collection: .map),
            Property(name: "list", type: .mixed, flags: .nullable, collection: .list),
        ])]))
        try db.write {
            let paul = try db.create("Person", [("name", .string("Paul"))])
            try setMixedMap(db, "Person", paul, "dict", [("tickets", [0, 1, 4])])
            try appendMixed(db, "Person", paul, "list", [["one": 1, "two": 2, "foo": 5, "three": 3]])
            let john = try db.create("Person", [("name", .string("John"))])
            try setMixedMap(db, "Person", john, "dict", [("tickets", [2, 3, 4])])
            try appendMixed(db, "Person", john, "list", [["two": 2, "bar": 5, "four": 4]])
        }
        check(db, "Person", [
            ("dict.tickets[0] == 0", ["Paul"]),
            ("dict.tickets[last] == 4", ["Paul", "John"]),
            ("dict['tickets'][FIRST] == 2", ["John"]),
            ("list[0].one == 1", ["Paul"]),
            ("list[*].one == 1", ["Paul"]),
            ("list[first].two == 2", ["Paul", "John"]),
            ("list[0][*] == 5", ["Paul", "John"]),
            ("list[LAST]['four'] == 4", ["John"]),
            ("list[1].one == nil", []),
            ("dict[*][*] < 1", ["Paul"]),
        ])
    }

    /// Parser_NestedDictionaryMultipleLinks: every object a list of links
    /// reaches, each one's dictionary.
    func testRealmCoreNestedThroughALinkList() throws {
        let db = try DB.open(tempDir().file(), makeSchema([("Person", [
            prop("name", .string, .primaryKey), prop("properties", .mixed, .nullable),
            Property(name: "friends", type: .link, linkTarget: "Person", collection: .list),
        ])]))
        try db.write {
            let people = try db.createMany("Person", ["name"], ["Paul", "John", "George", "Ringo", "Eric"].map { [.string($0)] })
            for (key, plays) in zip(people, ["bass", "guitar", "guitar", "drums"]) {
                try setMixed(db, "Person", key, "properties", ["plays": .v(.string(plays))])
            }
            let p = db.cls("Person")
            try db.append("Person", people[0], "friends", [.link(p, people[1])])
            try db.append("Person", people[4], "friends", people[0..<4].map { .link(p, $0) })
        }
        check(db, "Person", [
            ("friends.properties.plays == 'bass'", ["Eric"]),
            ("friends.properties.plays == 'guitar'", ["Paul", "Eric"]),
            // Each friend's path is a group of its own: ALL holds when one friend plays guitar, or with no friend.
            ("ALL friends.properties.plays == 'guitar'", ["Paul", "John", "George", "Ringo", "Eric"]),
            ("NONE friends.properties.plays == 'drums'", ["Paul", "John", "George", "Ringo", "Eric"]),
            ("friends.properties.@size == 1", ["Paul", "Eric"]),
            ("ALL friends.properties.@type == 'dictionary'", ["Paul", "John", "George", "Ringo", "Eric"]),
            ("NONE friends.properties.@type == 'dictionary'", ["John", "George", "Ringo"]),
        ])
    }

    /// Query_NestedListNull, Query_NestedDictionaryNull: a path meeting a
    /// string reaches nothing; a missing key at the end reads null, a
    /// position past the end nothing.
    func testRealmCoreNestedNulls() throws {
        let db = try DB.open(tempDir().file(), makeSchema([("Foo", [prop("name", .string), prop("mixed", .mixed, .nullable)])]))
        try db.write {
            let lists = try db.createMany("Foo", ["name"], ["s", "a", "b", "c"].map { [.string($0)] })
            try setMixed(db, "Foo", lists[0], "mixed", "not a list")
            for key in lists[1...] { try setMixed(db, "Foo", key, "mixed", [[nil]]) }
        }
        check(db, "Foo", [
            ("mixed[0][0] == null", ["a", "b", "c"]),
            ("mixed[0][5] == null", []),
            ("mixed[0][*] == null", ["a", "b", "c"]),
        ])
        let dicts = try DB.open(tempDir().file(), makeSchema([("Foo", [prop("name", .string), prop("mixed", .mixed, .nullable)])]))
        try dicts.write {
            let keys = try dicts.createMany("Foo", ["name"], ["s", "a", "b", "c"].map { [.string($0)] })
            try setMixed(dicts, "Foo", keys[0], "mixed", "not a dictionary")
            for key in keys[1...] { try setMixed(dicts, "Foo", key, "mixed", ["nestedDict": ["nullValue": nil]]) }
        }
        check(dicts, "Foo", [
            ("mixed['nestedDict']['nullValue'] == null", ["a", "b", "c"]),
            ("mixed.nestedDict.nullValue == null", ["a", "b", "c"]),
            ("mixed['nestedDict']['foo'] == null", ["a", "b", "c"]),
            ("mixed.nestedDict.foo == null", ["a", "b", "c"]),
            ("mixed.nestedDict[*] == null", ["a", "b", "c"]),
            ("mixed.nestedDict[*].@type == 'null'", ["a", "b", "c"]),
            // A missing key before the end reaches nothing.
            ("mixed.missing.foo == null", []),
        ])
    }

    /// Parser_issue7393 and Parser_Wildcard: each walk reaching the end is
    /// a group; lists compare element by element, group by group.
    func testRealmCoreWildcards() throws {
        let db = try DB.open(tempDir().file(), makeSchema([
            ("table", [prop("id", .string, .primaryKey), prop("value", .mixed, .nullable),
                       Property(name: "dict", type: .mixed, flags: .nullable, collection: .map),
                       Property(name: "list", type: .int, collection: .list),
                       Property(name: "list_any", type: .mixed, flags: .nullable, collection: .list)]),
            ("origin", [prop("id", .string, .primaryKey), Property(name: "link", type: .link, linkTarget: "table", collection: .list)]),
        ]))
        try db.write {
            let objects = try db.createMany("table", ["id"], [[.string("obj1")], [.string("obj2")], [.string("obj3")], [.string("issue7393")]])
            try setMixed(db, "table", objects[0], "value", [[3, 2, 1], [4, 5, 6]])
            try setMixedMap(db, "table", objects[0], "dict", [("key1", 1), ("key2", 2), ("key3", [4, 5, 6])])
            try appendMixed(db, "table", objects[0], "list_any", [4, 5, 6])
            try db.append("table", objects[0], "list", [.int(4), .int(5), .int(6)])
            try setMixed(db, "table", objects[1], "value", [[9, 8, 7], [1, 2, 5]])
            try setMixedMap(db, "table", objects[1], "dict", [("key1", 3), ("key3", 4), ("key4", [3, 2, 1])])
            try appendMixed(db, "table", objects[1], "list_any", [1, 2, [8, 9, 10]])
            try db.append("table", objects[1], "list", [.int(1), .int(2), .int(3)])
            try setMixed(db, "table", objects[2], "value", [[9, 8, 7], [1, 2, 3]])
            try setMixedMap(db, "table", objects[2], "dict", [("key1", 3), ("key2", [8, 10]), ("key3", [3, 2, 1])])
            try setMixed(db, "table", objects[3], "value", [[4, 5, 6], ["key1": 7, "key2": 8, "key3": [9]]])
            let top = try db.create("origin", [("id", .string("top"))])
            try db.append("origin", top, "link", [.link(db.cls("table"), objects[0]), .link(db.cls("table"), objects[1])])
        }
        check(db, "table", [
            ("value[*][*] == {4, 5, 6}", ["obj1", "issue7393"]),
            ("value[0][*] == {4, 5, 6}", ["issue7393"]),
            ("value[1][*] == {4, 5, 6}", ["obj1"]),
            ("value[*][*] = {1, 2, 3, 4, 5, 6}", []),
            ("value[*][*] = {3, 2, 1}", ["obj1"]),
            ("{3, 2, 1} = value[*][*]", ["obj1"]),
            ("value[*][*] = dict[*][*]", ["obj1"]),
            ("ANY value[*][*] = dict[*][*]", ["obj1", "obj2", "obj3"]),
            ("ALL value[*][*] = dict[*][*]", ["obj1", "obj3"]),
            ("NONE value[*][*] = dict[*][*]", ["obj1", "obj2", "obj3", "issue7393"]),
        ], label: "id")
        check(db, "origin", [
            // The values of each object the list of links reaches are a list of their own.
            ("link.dict.key1 = {1, 3}", []),
            ("link.dict.key1 = {1}", ["top"]),
            ("link[0].list = {4, 5, 6}", ["top"]),
            ("link.list = {4, 5, 6}", ["top"]),
            ("link.list = {4, 5, 6, 1, 2, 3}", []),
            ("link.list_any = {4, 5, 6}", ["top"]),
            ("link.list_any[0] = 4", ["top"]),
            ("link.dict.@keys = {'key1', 'key2', 'key3'}", ["top"]),   // order matters
            ("ALL link.dict.@keys = {'key4', 'key3', 'key1'}", ["top"]),   // order does not
            ("link.list_any[2][1] = 9", ["top"]),
            ("link.list_any[2][*] = {8, 9, 10}", ["top"]),
            ("ANY link.dict.key3[*] == 5", ["top"]),
        ], label: "id")
    }

    // MARK: Fief's cases

    private func mixedDB() throws -> DB {
        let db = try DB.open(tempDir().file(), makeSchema([
            ("Owner", [prop("name", .string), Property(name: "box", type: .link, flags: .nullable, linkTarget: "Box"),
                       Property(name: "boxes", type: .link, linkTarget: "Box", collection: .list)]),
            ("Box", [prop("name", .string), prop("mixed", .mixed, .nullable), prop("other", .mixed, .nullable), prop("int", .int),
                     Property(name: "tags", type: .string, collection: .list), Property(name: "scores", type: .int, collection: .list),
                     Property(name: "items", type: .mixed, flags: .nullable, collection: .list),
                     Property(name: "props", type: .mixed, flags: .nullable, collection: .map)]),
        ]))
        try db.write {
            let boxes = try db.createMany("Box", ["name", "int"], ["list", "dict", "deep", "scalar", "empty", "none", "strings"].enumerated().map {
                [.string($0.element), .int(Int64($0.offset))]
            })
            try setMixed(db, "Box", boxes[0], "mixed", [5, 7, "x", [1, 2]])
            try setMixed(db, "Box", boxes[1], "mixed", ["key": "x", "n": 3, "list": [4, 5], "inner": ["b": [1, 9, 2]]])
            try setMixed(db, "Box", boxes[2], "mixed", ["a": ["b": [0, 4, 1]], "key": "X"])
            try setMixed(db, "Box", boxes[3], "mixed", 5)
            try setMixed(db, "Box", boxes[4], "mixed", [])
            try setMixed(db, "Box", boxes[6], "mixed", ["ab", "cd", .v(.binary([1, 2, 3]))])
            try setMixed(db, "Box", boxes[0], "other", 7)
            try setMixed(db, "Box", boxes[1], "other", [3])
            try db.append("Box", boxes[0], "tags", [.string("a")])
            try db.append("Box", boxes[0], "scores", [.int(1), .int(2)])
            try appendMixed(db, "Box", boxes[0], "items", [["k": 1], [1, 2, 3], 4])
            try appendMixed(db, "Box", boxes[1], "items", [["k": 2, "j": [7]]])
            try setMixedMap(db, "Box", boxes[0], "props", [("a", ["x": 1]), ("b", [1, 2])])
            try setMixedMap(db, "Box", boxes[1], "props", [("a", ["x": 2]), ("c", 3)])
            let owners = try db.createMany("Owner", ["name"], [[.string("ann")], [.string("bob")], [.string("cat")]])
            let box = db.cls("Box")
            try db.set("Owner", owners[0], "box", .link(box, boxes[0]))
            try db.set("Owner", owners[1], "box", .link(box, boxes[1]))
            try db.append("Owner", owners[0], "boxes", [.link(box, boxes[0]), .link(box, boxes[3])])
            try db.append("Owner", owners[1], "boxes", [.link(box, boxes[2])])
        }
        return db
    }

    /// Positions, keys, [FIRST], [LAST], [*], dotted keys, depth; what a
    /// path meeting a scalar or a missing key or position reads.
    func testStepsIntoNestedValues() throws {
        let db = try mixedDB()
        check(db, "Box", [
            ("mixed[0] == 5", ["list"]),
            ("mixed[FIRST] == 5", ["list"]),
            ("mixed[LAST][1] == 2", ["list"]),
            ("mixed[3][0] == 1", ["list"]),
            ("mixed[1] > 6", ["list"]),
            ("mixed[9] == nil", []),
            ("mixed['key'] == 'x'", ["dict"]),
            ("mixed.key == 'x'", ["dict"]),
            ("mixed.key ==[c] 'x'", ["dict", "deep"]),
            ("mixed['key'] != 'x'", ["deep"]),
            ("mixed['inner']['b'][1] > 3", ["dict"]),
            ("mixed.a.b[1] == 4", ["deep"]),
            ("mixed.inner.b[LAST] == 2", ["dict"]),
            ("mixed['missing'] == nil", ["dict", "deep"]),
            ("mixed['missing'] != nil", []),
            ("mixed[0] == nil", []),
            ("mixed[*] == 'x'", ["list", "dict"]),
            ("mixed[*] == 3", ["dict"]),
            ("mixed[*][*] == 5", ["dict"]),
            ("mixed['list'][*] > 4", ["dict"]),
            ("mixed[*] BEGINSWITH 'c'", ["strings"]),
            ("mixed[*] CONTAINS[c] 'B'", ["strings"]),
            ("mixed[*] LIKE '?d'", ["strings"]),
            ("mixed[2] == bin(B64\"AQID\")", ["strings"]),
            // A scalar, an empty list, null: nothing reached, never an error.
            ("mixed[0] != 5", ["strings"]),
            ("ANY mixed[*] != 5", ["list", "dict", "deep", "strings"]),
            ("ALL mixed[*] == 5", ["scalar", "empty", "none"]),
            ("ALL mixed[*] > 0", ["scalar", "empty", "none"]),
            ("NONE mixed[*] == 5", ["dict", "deep", "scalar", "empty", "none", "strings"]),
            ("ALL mixed['inner']['b'][*] > 0", ["list", "dict", "deep", "scalar", "empty", "none", "strings"]),
            ("ALL mixed.a.b[*] >= 0", ["list", "dict", "deep", "scalar", "empty", "none", "strings"]),
            // Keys at the end.
            ("mixed.@keys == 'inner'", ["dict"]),
            ("mixed.@keys BEGINSWITH 'k'", ["dict", "deep"]),
            ("mixed.inner.@keys == 'b'", ["dict"]),
            ("ALL mixed.@keys == 'key'", ["list", "scalar", "empty", "none", "strings"]),
        ])
    }

    /// `@size`, `@count`, `[SIZE]` and `@type` of the value itself and of
    /// what a path reaches.
    func testSizesAndTypes() throws {
        let db = try mixedDB()
        check(db, "Box", [
            ("mixed.@size == 4", ["list", "dict"]),
            ("mixed.@count == 2", ["deep"]),
            ("mixed[SIZE] == 0", ["empty"]),
            ("mixed.@size == nil", ["scalar", "none"]),
            ("mixed[3].@size == 2", ["list"]),
            ("mixed['list'].@count == 2", ["dict"]),
            ("mixed[0].@size == 2", ["strings"]),
            ("mixed[2].@size == 3", ["strings"]),
            ("mixed[*].@size == 2", ["list", "dict", "strings"]),
            ("mixed.inner.b.@size > 2", ["dict"]),
            ("mixed.@type == 'list'", ["list", "empty", "strings"]),
            ("mixed.@type == 'dictionary'", ["dict", "deep"]),
            ("mixed.@type IN {'int', 'null'}", ["scalar", "none"]),
            ("mixed[*].@type == 'string'", ["list", "dict", "deep", "strings"]),
            ("mixed[0].@type == 'int'", ["list"]),
            ("mixed.key.@type == 'string'", ["dict", "deep"]),
            ("mixed.missing.@type == 'null'", ["dict", "deep"]),
            ("mixed[3].@type == 'list'", ["list"]),
            ("mixed[*].@type == 'collection'", ["list", "dict", "deep"]),
            ("ALL mixed[*].@type == 'string'", ["scalar", "empty", "none"]),
            ("mixed[*].@type == mixed[0].@type", ["list", "scalar", "empty", "none", "strings"]),
            ("mixed.@size > int", ["list", "dict"]),
        ])
    }

    /// Lists given with the query, IN, BETWEEN, arithmetic, arguments,
    /// other properties and other paths.
    func testComparisonsOfNestedValues() throws {
        let db = try mixedDB()
        check(db, "Box", [
            ("mixed[0] IN {5, 6}", ["list"]),
            ("mixed['n'] IN {1, 2, 3}", ["dict"]),
            ("mixed[*] == ANY {7, 'X'}", ["list", "deep"]),
            ("mixed[*] == ALL {7, 'X'}", []),
            ("mixed[*] == NONE {5, 7, 'x'}", ["list", "dict", "deep", "strings"]),   // some value is none of them
            ("ANY {5, 'x'} == mixed[*]", ["list", "dict"]),
            ("ALL {5, 'x'} == mixed[*]", ["list"]),
            ("mixed[*] != {5, 7}", ["list", "dict", "deep", "scalar", "empty", "none", "strings"]),
            // A path reaching nothing reads an empty list.
            ("mixed[*] == {}", ["scalar", "empty", "none"]),
            ("mixed['inner']['b'] == {1, 9, 2}", []),
            ("mixed['inner']['b'][*] == {1, 9, 2}", ["dict"]),
            ("'x' IN items[*][*]", []),
            ("2 IN items[*][*]", ["list", "dict"]),
            ("2 IN items[1][*]", ["list"]),
            ("ANY items[*][*] == 2", ["list", "dict"]),
            ("7 IN items[0].j[*]", ["dict"]),
            ("mixed[0] BETWEEN {4, 6}", ["list"]),
            ("mixed[*] BETWEEN {6, 8}", ["list"]),
            ("ALL items[0][*] BETWEEN {1, 1}", ["list", "deep", "scalar", "empty", "none", "strings"]),
            ("mixed[0] * 2 == 10", ["list"]),
            ("mixed[*] + 1 == 8", ["list"]),
            ("-mixed.inner.b[1] < -5", ["dict"]),
            ("mixed[*] + int == 7", ["list"]),
            ("mixed[*] * int == 3", ["dict"]),
            ("mixed[1] == other", ["list"]),
            // Two paths reaching nothing read two empty lists, which are equal (as in realm-core).
            ("mixed['n'] == other[0]", ["list", "dict", "scalar", "empty", "none", "strings"]),
            ("mixed[1] == int + 7", ["list"]),
            ("mixed[0] == mixed[1]", ["dict", "deep", "scalar", "empty", "none"]),
            // Nested lists equal each other, as realm-core compares mixed values.
            ("mixed[*] == other", ["list", "dict"]),
            ("props.a.x == 2", ["dict"]),
            ("props.b[1] == 2", ["list"]),
            ("props[*].x == 1", ["list"]),
            ("props['c'][0] == 3", []),
            ("items[0].k == 2", ["dict"]),
            ("items[1][LAST] == 3", ["list"]),
            ("items[*].k > 0", ["list", "dict"]),
            ("items[0].j[0] == 7", ["dict"]),
        ])
        check(db, "Box", [("mixed[$0] == $1", ["list"]), ("mixed[$2] == 'x'", ["dict"]), ("ANY mixed[*] IN $3", ["list", "dict"]), ("mixed[*] IN $3", [])],
              [([.int(1)], false), ([.int(7)], false), ([.string("key")], false), ([.int(7), .string("x")], true)])
        check(db, "Owner", [
            ("box.mixed[0] == 5", ["ann"]),
            ("box.mixed.key == 'x'", ["bob"]),
            ("box.mixed['missing'] == nil", ["bob"]),
            ("boxes.mixed[0] == 5", ["ann"]),
            ("boxes.mixed.@size == 2", ["bob"]),
            ("boxes.mixed.@type == 'int'", ["ann"]),
            ("ANY boxes.mixed[*] == 'X'", ["bob"]),
            ("ALL boxes.mixed[*] == 'X'", ["ann", "cat"]),   // ann's scalar box: no value, so ALL holds
            ("ALL boxes.mixed.@type == 'collection'", ["bob", "cat"]),
            ("boxes.items[1][*] == {1, 2, 3}", ["ann"]),
            ("SUBQUERY(boxes, $b, $b.mixed[*] == 7).@count == 1", ["ann"]),
        ])
    }

    /// The results follow changes inside nested collections.
    func testNestedQueriesAreLive() throws {
        let db = try mixedDB()
        let results = try db.query("Box", "mixed.inner.b[*] == 42")
        XCTAssertEqual(try results.count(), 0)
        let key = try XCTUnwrap(try db.keys("Box", "name == 'dict'").first)
        try db.write {
            guard case .nestedDictionary(let top) = try db.realm.value(table: db.cls("Box"), key: key, property: db.pkey("Box", "mixed")) else { return XCTFail() }
            let ref = CollectionRef(nested: .list, table: db.cls("Box"), owner: key, property: db.pkey("Box", "mixed"), id: top)
            guard case .nestedDictionary(let inner)? = try Array("inner".utf8).withUnsafeBytes({ try db.realm.map(ref).value(forKey: $0) }),
                  case .nestedList(let b)? = try Array("b".utf8).withUnsafeBytes({ try db.realm.map(CollectionRef(nested: .dictionary, table: ref.table, owner: key, property: ref.property, id: inner)).value(forKey: $0) }) else {
                return XCTFail("nested collections expected")
            }
            try TV.withValues([.int(42)]) { try db.realm.list(CollectionRef(nested: .list, table: ref.table, owner: key, property: ref.property, id: b)).append(UnsafeBufferPointer($0)) }
            XCTAssertEqual(try results.count(), 1, "in the write")
        }
        XCTAssertEqual(try results.count(), 1)
        try db.write { try setMixed(db, "Box", key, "mixed", 42) }
        XCTAssertEqual(try results.count(), 0)
    }

    /// What Realm's query language refuses, said so.
    func testNestedFormsRefused() throws {
        let db = try mixedDB()
        refuse(db, "Box", [
            // realm-core: "Only Property of type 'any' can have nested collections".
            ("tags[0][1] == 'a'", ["only mixed values hold nested", "string"]),
            ("scores[0].x == 1", ["only mixed values hold nested"]),
            ("int[0] == 1", ["not a link or a mixed value"]),
            ("mixed['a'].@max > 1", ["@max", "mixed value"]),
            ("mixed.@keys.x == 1", ["nothing can follow '@keys'"]),
            ("mixed[0].@links.Owner.box.@count > 0", ["'@links' follows an object"]),
            // realm-core: the key path following IN must contain a list.
            ("5 IN mixed[*]", ["IN", "ANY mixed[*] == x"]),
            ("ALL mixed.@size > 1", ["ALL applies to a key path"]),
            ("mixed[0].@type > 'int'", ["== and != only"]),
            ("mixed[0].@type == 5", ["type names"]),
            ("mixed[0].@type == 'whatever'", ["not a type name"]),
            ("mixed[0].@type == mixed[1]", ["'@type' compares with a type name or another '@type'"]),
            ("items[0][0] == props.a.x", ["two collections of values"]),
            ("items[0][*] == scores", ["two collections of values"]),
            ("props[0].x == 1", ["[n] takes a list"]),
            ("items['k'].x == 1", ["['key'] takes a map"]),
            ("mixed[0] + mixed[1] > 1", ["two collections"]),
            ("items[0][*] BETWEEN {1, 2}", ["only with ALL"]),
            ("mixed['a'] TEXT 'x'", ["TEXT takes a full-text-indexed string property"]),
            ("mixed[0] GEOWITHIN geoCircle([0, 0], 1)", ["geoWithin", "must be a link to geoJSON"]),
            ("SUBQUERY(mixed[*], $x, $x.a == 1).@count > 0", ["SUBQUERY takes a list, set or map of objects"]),
        ])
        refuse(db, "Box", [("mixed[$0] == 1", ["argument 0", "bool"])], [([.bool(true)], false)], code: .queryArgument)
        refuse(db, "Box", [("mixed[$0] == 1", ["argument 0"])], [([.int(1), .int(2)], true)], code: .queryArgument)
    }
}
