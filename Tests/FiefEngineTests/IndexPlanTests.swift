import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Index plans: IN (lists given with the query, list arguments) and ORs of
/// equalities on primary keys and indexed properties answered through the
/// index, alone or inside an AND, `[c]` only when it is exact; indexes on
/// mixed properties (Realm's equality across number types), maintained by
/// every write, migrations, `verify` and `copy`.  Every answer is checked
/// against the same data in a class without indexes (a scan); that the
/// index path was taken is read from `Realm.indexCandidates` (the plan the
/// results' scan uses), never from timing.
final class IndexPlanTests: XCTestCase {
    /// A query argument: one value, or a list (`IN $0`).
    enum Arg {
        case one(TV)
        case list([TV])
    }

    private func run(_ db: DB, _ className: String, _ predicate: String, _ args: [Arg]) throws -> (keys: [Int64], indexed: Bool) {
        var flat: [TV] = []
        for arg in args {
            switch arg {
            case .one(let v): flat.append(v)
            case .list(let vs): flat.append(contentsOf: vs)
            }
        }
        let results = try TV.withValues(flat) { values -> ObjectResults in
            var arguments: [QueryArgument] = []
            var at = 0
            for arg in args {
                switch arg {
                case .one:
                    arguments.append(QueryArgument(values: [values[at]], isList: false))
                    at += 1
                case .list(let vs):
                    arguments.append(QueryArgument(values: Array(values[at..<(at + vs.count)]), isList: true))
                    at += vs.count
                }
            }
            return try db.results(className).filtered(predicate, arguments: arguments)
        }
        let indexed = try db.realm.indexCandidates(results.filters[0], db.realm.table(db.cls(className))) != nil
        return (try results.allKeys(), indexed)
    }

    /// The same query over the indexed class and the plain one: equal
    /// answers; whether the indexed side took the index is returned.
    @discardableResult
    private func same(_ db: DB, _ predicate: String, _ args: [Arg], _ when: String, file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
        let indexed = try run(db, "Indexed", predicate, args)
        let plain = try run(db, "Plain", predicate, args)
        XCTAssertEqual(indexed.keys, plain.keys, "\(predicate) \(args) \(when)", file: file, line: line)
        // The plain class has no index: only a filter that matches nothing
        // (an empty list, elements of other types) needs no scan there.
        if plain.indexed { XCTAssertEqual(plain.keys, [], "\(predicate) \(args)", file: file, line: line) }
        return indexed.indexed
    }

    // MARK: IN and OR

    func testListsAndOrsOfEqualitiesUseTheIndex() throws {
        let dir = tempDir()
        func props(_ indexed: Bool) -> [Property] {
            let ix: PropertyFlags = indexed ? [.indexed] : []
            return [
                prop("id", .int, indexed ? [.primaryKey] : []),
                prop("i", .int, ix), prop("s", .string, ix), prop("os", .string, ix.union(.nullable)),
                prop("o", .objectId, ix.union(.nullable)), prop("u", .uuid, ix), prop("b", .bool, ix),
                prop("t", .timestamp, ix), prop("d", .double),
            ]
        }
        let db = try DB.open(dir.file(), makeSchema([("Indexed", props(true)), ("Plain", props(false))]))
        var rng = SeededRandom(seed: 7)
        func value(_ name: String) -> TV {
            let r = Int.random(in: 0..<7, using: &rng)
            switch name {
            case "i": return .int(Int64(r) - 3)
            case "s": return .string(["", "a", "B", "12-3", "abc", "ABC", String(repeating: "long", count: 150) + "\(r % 2)"][r])
            case "os": return r < 2 ? .null : .string(["x", "y", "7 7", "x", "Y"][r - 2])
            case "o": return r == 0 ? .null : .oid(ObjectIdBytes(high: UInt64(r % 3), low: UInt32(r)))
            case "u": return .uuid(UUIDBytes(high: UInt64(r % 2), low: UInt64(r % 3)))
            case "b": return .bool(r % 2 == 0)
            case "t": return .timestamp(Int64(r % 3) - 1, r % 3 == 2 ? 5 : 0)
            default: return .double(Double(r))
            }
        }
        let names = ["i", "s", "os", "o", "u", "b", "t", "d"]
        var nextID: Int64 = 0
        var live: [Int64] = []
        func compareAll(_ when: String) throws {
            var indexedProbes = 0
            for name in names + ["id"] where name != "d" {
                func v() -> TV {
                    if name == "id" { return .int(Int64.random(in: -1...(nextID + 1), using: &rng)) }
                    return value(name)
                }
                let list = (0..<Int.random(in: 0...4, using: &rng)).map { _ in v() }
                // A list argument, a literal-free OR, both inside an AND.
                if try same(db, "\(name) IN $0", [.list(list)], when) { indexedProbes += 1 } else { XCTFail("\(name) IN $0 took no index") }
                XCTAssertTrue(try same(db, "\(name) == $0 OR \(name) == $1 OR \(name) == $2", [.one(v()), .one(v()), .one(v())], when), name)
                XCTAssertTrue(try same(db, "\(name) IN $0 AND d >= 2", [.list(list)], when), name)
                XCTAssertTrue(try same(db, "d < 5 AND (\(name) == $0 || \(name) IN $1)", [.one(v()), .list(list)], when), name)
                // A value of another type in the list matches nothing (and needs no scan).
                XCTAssertTrue(try same(db, "\(name) IN $0", [.list(list + [name == "b" ? .int(1) : .bool(true)])], when), name)
                // An OR with a term no index answers is a scan.
                XCTAssertFalse(try same(db, "\(name) IN $0 OR d == 1", [.list(list)], when), name)
                XCTAssertFalse(try same(db, "NOT (\(name) IN $0)", [.list(list)], when), name)
            }
            // The list given in the predicate.
            XCTAssertTrue(try same(db, "i IN {-3, 0, 2, 99}", [], when))
            XCTAssertTrue(try same(db, "s IN {'a', 'abc', 'zzz'} AND b == true", [], when))
            XCTAssertTrue(try same(db, "os IN {nil, 'x'}", [], when))
            XCTAssertTrue(try same(db, "ANY {'x', 'y'} == os", [], when))
            // [c]: exact (so indexed) only for a string without letters.
            for probe in ["12-3", "7 7", ""] {
                XCTAssertTrue(try same(db, "s ==[c] $0 OR os ==[cd] $0", [.one(.string(probe))], when), probe)
            }
            for probe in ["abc", "B", "x", "Y"] {
                XCTAssertFalse(try same(db, "s ==[c] $0", [.one(.string(probe))], when), probe)
                XCTAssertFalse(try same(db, "os ==[c] $0 OR os ==[c] '7 7'", [.one(.string(probe))], when), probe)
            }
            XCTAssertGreaterThan(indexedProbes, 7)
        }
        for round in 0..<5 {
            try db.realm.beginWrite()
            for _ in 0..<120 {
                let op = Int.random(in: 0..<10, using: &rng)
                if op < 5 || live.isEmpty {
                    let chosen = names.filter { _ in Bool.random(using: &rng) }
                    let row = chosen.map { value($0) }
                    nextID += 1
                    let a = try db.createMany("Indexed", ["id"] + chosen, [[.int(nextID)] + row])[0]
                    let b = try db.createMany("Plain", ["id"] + chosen, [[.int(nextID)] + row])[0]
                    XCTAssertEqual(a, b)
                    live.append(a)
                } else if op < 8 {
                    let k = live[Int.random(in: 0..<live.count, using: &rng)]
                    let name = names[Int.random(in: 0..<names.count, using: &rng)]
                    let v = value(name)
                    try db.set("Indexed", k, name, v)
                    try db.set("Plain", k, name, v)
                } else {
                    let i = Int.random(in: 0..<live.count, using: &rng)
                    try db.delete("Indexed", live[i])
                    try db.delete("Plain", live[i])
                    live.remove(at: i)
                }
            }
            try compareAll("in write \(round)")
            try db.realm.commitWrite()
            try compareAll("after commit \(round)")
        }
    }

    // MARK: The cache of parsed predicates

    /// Predicates are cached by their bytes: two texts Swift calls equal
    /// (canonically equivalent) are different predicates.
    func testParsedPredicatesAreKeptByTheirBytes() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("P", [prop("s", .string, .indexed)])]))
        let precomposed = "\u{E9}", decomposed = "e\u{301}"
        let (a, b) = try db.write { (try db.create("P", [("s", .string(precomposed))]), try db.create("P", [("s", .string(decomposed))])) }
        XCTAssertEqual("s == '\(precomposed)'", "s == '\(decomposed)'") // as Swift compares them
        for _ in 0..<2 {
            XCTAssertEqual(try db.keys("P", "s == '\(precomposed)'"), [a])
            XCTAssertEqual(try db.keys("P", "s == '\(decomposed)'"), [b])
            XCTAssertEqual(try db.keys("P", "s == $0", [.string(decomposed)]), [b])
        }
        // A syntax error is not cached: it is reported each time.
        for _ in 0..<2 { expectError(.querySyntax) { try db.keys("P", "s == ") } }
    }

    // MARK: Mixed

    func testMixedIndexSchemaRules() throws {
        XCTAssertNoThrow(try makeSchema([("A", [prop("m", .mixed, .indexed)])]).validate())
        let pk = expectError(.invalidSchema) { try makeSchema([("A", [prop("m", .mixed, .primaryKey)])]).validate() }
        XCTAssertTrue(pk?.message.contains("primary key") ?? false, pk?.message ?? "")
        for collection in [CollectionKind.list, .set, .map] {
            let error = expectError(.invalidSchema) {
                try makeSchema([("A", [Property(name: "m", type: .mixed, flags: [.nullable, .indexed], collection: collection)])]).validate()
            }
            XCTAssertTrue(error?.message.contains("cannot be indexed") ?? false, error?.message ?? "")
        }
    }

    private func dec(_ coefficient: UInt64, _ exponent: Int, negative: Bool = false) -> TV {
        .decimal(Decimal128Bits(low: coefficient, high: (negative ? 1 << 63 : 0) | UInt64(exponent + 6176) << 49))
    }

    /// Values of every type, with many Realm-equal across number types
    /// (1, 1.0f, 1.0, decimal 1 and 1.00; 2.5 as float, double and decimal).
    private func mixedValue(_ rng: inout SeededRandom, targets: [Int64], targetClass: UInt32) -> TV {
        let long = String(repeating: "x", count: 500)
        let choices: [TV] = [
            .null, .int(1), .int(-2), .int(0), .int(Int64.max), .int(Int64.min),
            .double(1), .double(2.5), .double(-0.0), .double(0.1), .double(.nan), .double(9.3e18), .double(.infinity),
            .float(1), .float(2.5), .float(0.1),
            dec(1, 0), dec(100, -2), dec(25, -1), dec(1, -1), dec(0, 3), dec(93, 17), dec(5, 0, negative: true),
            .bool(true), .bool(false), .string("1"), .string("a"), .string("A"), .string(""), .string(long + "1"), .string(long + "2"),
            .binary([1]), .binary(Array("a".utf8)), .binary([]),
            .timestamp(0, 0), .timestamp(-1, -5), .oid(ObjectIdBytes(high: 1, low: 2)), .uuid(UUIDBytes(high: 3, low: 4)),
            .nestedList(0), .nestedDict(0),
        ]
        if !targets.isEmpty, Int.random(in: 0..<8, using: &rng) == 0 {
            return .link(targetClass, targets[Int.random(in: 0..<targets.count, using: &rng)])
        }
        return choices[Int.random(in: 0..<choices.count, using: &rng)]
    }

    private func mixedSchema(plainIndexed: Bool = false) -> Schema {
        makeSchema([
            ("T", [prop("n", .int)]),
            ("Indexed", [prop("m", .mixed, [.nullable, .indexed]), prop("d", .double)]),
            ("Plain", [prop("m", .mixed, plainIndexed ? [.nullable, .indexed] : [.nullable]), prop("d", .double)]),
        ])
    }

    /// Every probe compared on both classes: `m == $0` (which the index
    /// answers), IN lists, inside an AND, `[c]`.
    private func compareMixed(_ db: DB, _ probes: [TV], _ when: String, expectIndexed: Bool = true) throws {
        for probe in probes {
            let indexed = try same(db, "m == $0", [.one(probe)], when)
            XCTAssertEqual(indexed, expectIndexed, "m == \(probe) \(when)")
            try same(db, "m == $0 AND d >= 2", [.one(probe)], when)
            try same(db, "m != $0", [.one(probe)], when)
            if case .string = probe { try same(db, "m ==[c] $0", [.one(probe)], when) }
        }
        var rng = SeededRandom(seed: UInt64(probes.count))
        for _ in 0..<6 {
            let list = (0..<Int.random(in: 1...4, using: &rng)).map { _ in probes[Int.random(in: 0..<probes.count, using: &rng)] }
            XCTAssertEqual(try same(db, "m IN $0", [.list(list)], when), expectIndexed, "\(list)")
        }
        try same(db, "m IN {1, 'a', nil, 2.5}", [], when)
    }

    func testMixedIndexMatchesScan() throws {
        let dir = tempDir()
        let path = dir.file()
        let db = try DB.open(path, mixedSchema())
        let tClass = db.cls("T")
        var rng = SeededRandom(seed: 99)
        var targets = try db.write { try (0..<12).map { try db.create("T", [("n", .int(Int64($0)))]) } }
        var live: [Int64] = []
        var probes: [TV] = [.int(1), .double(1), .float(1), dec(1, 0), dec(100, -2), .double(2.5), dec(25, -1), .float(2.5),
                            .double(0.1), .float(0.1), dec(1, -1), .int(0), .double(-0.0), dec(0, 3), .double(.nan), .int(Int64.max),
                            .double(9.3e18), dec(93, 17), .double(.infinity), .bool(true), .bool(false), .null, .string("1"), .string("a"),
                            .string(""), .binary(Array("a".utf8)), .binary([]), .timestamp(-1, -5), .oid(ObjectIdBytes(high: 1, low: 2)),
                            .uuid(UUIDBytes(high: 3, low: 4)), .string(String(repeating: "x", count: 500) + "2")]
        for t in targets.prefix(3) { probes.append(.link(tClass, t)) }
        for round in 0..<5 {
            try db.realm.beginWrite()
            for _ in 0..<150 {
                let op = Int.random(in: 0..<14, using: &rng)
                if op < 6 || live.isEmpty {
                    let v = mixedValue(&rng, targets: targets, targetClass: tClass)
                    let d = TV.double(Double(Int.random(in: 0..<4, using: &rng)))
                    let names = Bool.random(using: &rng) ? ["m", "d"] : ["d"]
                    let row = names.count == 2 ? [v, d] : [d]
                    let a = try db.createMany("Indexed", names, [row])[0]
                    XCTAssertEqual(a, try db.createMany("Plain", names, [row])[0])
                    live.append(a)
                } else if op < 9 {
                    let k = live[Int.random(in: 0..<live.count, using: &rng)]
                    let v = mixedValue(&rng, targets: targets, targetClass: tClass)
                    if Bool.random(using: &rng) {
                        try db.set("Indexed", k, "m", v)
                        try db.set("Plain", k, "m", v)
                    } else {
                        let d = TV.double(Double(Int.random(in: 0..<4, using: &rng)))
                        try db.setMany("Indexed", k, [("m", v), ("d", d)])
                        try db.setMany("Plain", k, [("m", v), ("d", d)])
                    }
                } else if op < 11 {
                    let i = Int.random(in: 0..<live.count, using: &rng)
                    try db.delete("Indexed", live[i])
                    try db.delete("Plain", live[i])
                    live.remove(at: i)
                } else if op < 12, targets.count > 4 {
                    // Deleting a target nulls the mixed links to it.
                    let i = Int.random(in: 3..<targets.count, using: &rng)
                    try db.delete("T", targets[i])
                    targets.remove(at: i)
                } else {
                    // A set-based update of the matches of a filter.
                    let v = mixedValue(&rng, targets: targets, targetClass: tClass)
                    let limit = TV.double(Double(Int.random(in: 0..<4, using: &rng)))
                    for name in ["Indexed", "Plain"] {
                        let matches = try db.query(name, "d == $0", [limit])
                        let p = db.pkey(name, "m")
                        try TV.withValues([v]) { values in try matches.setValue(values[0], property: p) }
                    }
                }
            }
            try compareMixed(db, probes, "in write \(round)")
            if round == 2 {
                db.realm.cancelWrite()
                live = try db.keys("Indexed")
                targets = try db.keys("T")
                continue
            }
            try db.realm.commitWrite()
            try compareMixed(db, probes, "after commit \(round)")
        }
        XCTAssertGreaterThan(try db.count("Indexed"), 100)
        // verify checks the index against the values; copy rebuilds it.
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { XCTFail(text) } }, 0)
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { kind, text in if kind == .problem { XCTFail(text) } }, 0)
        XCTAssertEqual(try FileCheck.verify(path: copy) { kind, text in if kind == .problem { XCTFail(text) } }, 0)
        let copied = try DB.open(copy, nil)
        try compareMixed(copied, probes, "in the copy")
    }

    /// An index added to a mixed property of a file that has data (a
    /// migration) is built from the values; removed, the scan answers.
    func testMixedIndexAddedAndRemovedByMigration() throws {
        let dir = tempDir()
        let path = dir.file()
        var rng = SeededRandom(seed: 5)
        let probes: [TV] = [.int(1), .double(2.5), dec(100, -2), .string("a"), .null, .bool(true), .binary([1]), .double(.nan)]
        do {
            let db = try DB.open(path, mixedSchema())
            try db.write {
                let targets = try (0..<5).map { try db.create("T", [("n", .int(Int64($0)))]) }
                for _ in 0..<400 {
                    let v = mixedValue(&rng, targets: targets, targetClass: db.cls("T"))
                    let d = TV.double(Double(Int.random(in: 0..<4, using: &rng)))
                    try db.create("Indexed", [("m", v), ("d", d)])
                    try db.create("Plain", [("m", v), ("d", d)])
                }
            }
            try compareMixed(db, probes, "before")
        }
        // Plain's property gets an index: answers as before, through it.
        do {
            let db = try DB.open(path, mixedSchema(plainIndexed: true))
            for probe in probes {
                let a = try run(db, "Indexed", "m == $0", [.one(probe)])
                let b = try run(db, "Plain", "m == $0", [.one(probe)])
                XCTAssertEqual(a.keys, b.keys, "\(probe)")
                XCTAssertTrue(a.indexed && b.indexed, "\(probe)")
            }
        }
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { XCTFail(text) } }, 0)
        // And loses it again.
        let db = try DB.open(path, mixedSchema())
        try compareMixed(db, probes, "after removal")
    }
}
