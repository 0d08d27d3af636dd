import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Results of values (lists of values as live results: filters over
/// `self`, sorts by value, find) and aggregates (over object results of
/// every kind and over values), against Swift models on random data.
final class ValueResultsTests: XCTestCase {
    private let schema = makeSchema([
        ("Item", [prop("n", .int), prop("on", .int, .nullable), prop("d", .double, .nullable), prop("f", .float),
                  prop("dec", .decimal128), prop("ts", .timestamp, .nullable), prop("s", .string),
                  Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Item")]),
        ("Bag", [Property(name: "ints", type: .int, flags: .nullable, collection: .list),
                 Property(name: "strs", type: .string, flags: .nullable, collection: .list),
                 Property(name: "dbls", type: .double, collection: .list),
                 Property(name: "decs", type: .decimal128, flags: .nullable, collection: .list),
                 Property(name: "times", type: .timestamp, collection: .list),
                 Property(name: "items", type: .link, linkTarget: "Item", collection: .list)]),
    ])

    private func open() throws -> DB {
        try DB.open(tempDir().file(), schema)
    }

    private func values(_ db: DB, _ bag: Int64, _ name: String) throws -> ValueResults {
        try ValueResults(realm: db.realm, list: db.pkey("Bag", name), of: bag, in: db.cls("Bag"))
    }

    private func all(_ results: ValueResults) throws -> [TV] {
        try (0..<results.count()).map { TV(try results.value(at: $0)) }
    }

    private func filtered(_ results: ValueResults, _ predicate: String, _ args: [TV] = []) throws -> ValueResults {
        try TV.withValues(args) { v in try results.filtered(predicate, arguments: v.map { QueryArgument(values: [$0], isList: false) }) }
    }

    // MARK: Models

    /// Realm's order for optional ints: nil first.
    private static func less(_ a: Int64?, _ b: Int64?) -> Bool {
        switch (a, b) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (x?, y?): return x < y
        }
    }

    /// A stable sort by value, nulls first ascending and last descending.
    private static func sortedModel(_ values: [Int64?], ascending: Bool) -> [Int64?] {
        values.enumerated().sorted { a, b in
            if ascending ? less(a.element, b.element) : less(b.element, a.element) { return true }
            if ascending ? less(b.element, a.element) : less(a.element, b.element) { return false }
            return a.offset < b.offset
        }.map(\.element)
    }

    private static func tv(_ v: Int64?) -> TV { v.map { .int($0) } ?? .null }

    // MARK: Tests

    func testRandomIntListsMatchAModel() throws {
        let db = try open()
        var random = SeededRandom(seed: 0xF1EF_0006)
        let bag = try db.write { try db.create("Bag", []) }
        let results = try values(db, bag, "ints")
        var model: [Int64?] = []
        let ops: [(String, (Int64?, Int64) -> Bool)] = [
            ("<", { v, k in v.map { $0 < k } ?? false }), ("<=", { v, k in v.map { $0 <= k } ?? false }),
            (">", { v, k in v.map { $0 > k } ?? false }), (">=", { v, k in v.map { $0 >= k } ?? false }),
            ("==", { v, k in v == k }), ("!=", { v, k in v != k }),
        ]
        for round in 0..<40 {
            // Change the list: appends (sometimes hundreds, crossing segments), sets, removes.
            try db.write {
                let appends = round % 7 == 0 ? 300 : Int.random(in: 0...12, using: &random)
                let fresh: [Int64?] = (0..<appends).map { _ in Int.random(in: 0..<7, using: &random) == 0 ? nil : Int64.random(in: -20...20, using: &random) }
                try db.append("Bag", bag, "ints", fresh.map(Self.tv))
                model += fresh
                for _ in 0..<Int.random(in: 0...3, using: &random) where !model.isEmpty {
                    let i = Int.random(in: 0..<model.count, using: &random)
                    if Bool.random(using: &random) {
                        try db.removeElement("Bag", bag, "ints", i)
                        model.remove(at: i)
                    } else {
                        let v: Int64? = Bool.random(using: &random) ? nil : Int64.random(in: -20...20, using: &random)
                        try db.setElement("Bag", bag, "ints", i, Self.tv(v))
                        model[i] = v
                    }
                }
            }
            // The unfiltered results follow the list.
            XCTAssertEqual(try all(results), model.map(Self.tv), "round \(round)")
            // A random predicate, maybe chained and negated.
            let (op, test) = ops[Int.random(in: 0..<ops.count, using: &random)]
            let k = Int64.random(in: -20...20, using: &random)
            var matching = try filtered(results, "self \(op) \(k)")
            var expected = model.filter { test($0, k) }
            if Bool.random(using: &random) {
                let (op2, test2) = ops[Int.random(in: 0..<ops.count, using: &random)]
                let k2 = Int64.random(in: -20...20, using: &random)
                matching = try filtered(matching, "NOT (self \(op2) $0)", [.int(k2)])
                expected = expected.filter { !test2($0, k2) }
            }
            XCTAssertEqual(try all(matching), expected.map(Self.tv), "round \(round)")
            let nulls = try filtered(results, "self == nil")
            XCTAssertEqual(try nulls.count(), model.filter { $0 == nil }.count)
            // Sorted, both ways, and sorted after filtering.
            let ascending = Bool.random(using: &random)
            XCTAssertEqual(try all(try results.sorted(ascending: ascending)), Self.sortedModel(model, ascending: ascending).map(Self.tv))
            XCTAssertEqual(try all(try matching.sorted(ascending: !ascending)), Self.sortedModel(expected, ascending: !ascending).map(Self.tv))
            // Find.
            let wanted = Int64.random(in: -20...20, using: &random)
            XCTAssertEqual(try results.index(of: .int(wanted)), model.firstIndex(of: wanted))
            XCTAssertEqual(try matching.index(of: .int(wanted)), expected.firstIndex(of: wanted))
            // Aggregates over the list and over the filtered results.
            for (values, results) in [(model, results), (expected, matching)] {
                let present = values.compactMap { $0 }
                XCTAssertEqual(TV(try results.aggregate(.min)), present.min().map { .int($0) } ?? .null)
                XCTAssertEqual(TV(try results.aggregate(.max)), present.max().map { .int($0) } ?? .null)
                XCTAssertEqual(TV(try results.aggregate(.sum)), .int(present.reduce(0, +)))
                XCTAssertEqual(TV(try results.aggregate(.average)),
                               present.isEmpty ? .null : .double(Double(present.reduce(0, +)) / Double(present.count)))
            }
        }
    }

    func testStringsFilterSortAndFind() throws {
        let db = try open()
        var random = SeededRandom(seed: 77)
        let letters = Array("aAbBcé")
        let bag = try db.write { try db.create("Bag", []) }
        var model: [String?] = (0..<400).map { _ in
            Int.random(in: 0..<8, using: &random) == 0 ? nil
                : String((0..<Int.random(in: 0...5, using: &random)).map { _ in letters.randomElement(using: &random)! })
        }
        try db.write { try db.append("Bag", bag, "strs", model.map { $0.map(TV.string) ?? .null }) }
        let results = try values(db, bag, "strs")
        func tvs(_ values: [String?]) -> [TV] { values.map { $0.map(TV.string) ?? .null } }
        XCTAssertEqual(try all(try filtered(results, "self BEGINSWITH[c] 'a'")),
                       tvs(model.filter { $0?.lowercased().hasPrefix("a") ?? false }))
        XCTAssertEqual(try all(try filtered(results, "self CONTAINS 'bé'")), tvs(model.filter { $0?.contains("bé") ?? false }))
        XCTAssertEqual(try all(try filtered(results, "self == ''")), tvs(model.filter { $0 == "" }))
        XCTAssertEqual(try all(try filtered(results, "self != nil AND self ENDSWITH 'B'")),
                       tvs(model.filter { $0?.hasSuffix("B") ?? false }))
        // Byte order of UTF-8, nulls first; stable.
        func byteLess(_ a: String?, _ b: String?) -> Bool {
            guard let b else { return false }
            guard let a else { return true }
            return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
        let up = model.enumerated().sorted { x, y in
            byteLess(x.element, y.element) || (!byteLess(y.element, x.element) && x.offset < y.offset)
        }.map(\.element)
        XCTAssertEqual(try all(try results.sorted(ascending: true)), tvs(up))
        let down = try all(try results.sorted(ascending: false))
        XCTAssertEqual(down.first, tvs([up.last!]).first)
        XCTAssertEqual(down.last, .null)
        // Find, by value.
        let probe = model.first { $0 != nil }!!
        try TV.withValues([.string(probe)]) { v in XCTAssertEqual(try results.index(of: v[0]), model.firstIndex(of: probe)) }
        XCTAssertEqual(try results.index(of: .null), model.firstIndex(of: nil))
        XCTAssertNil(try results.index(of: .int(1)))
        // Live: a change in a write transaction shows at once.
        try db.realm.beginWrite()
        try db.insert("Bag", bag, "strs", 0, .string("Ab"))
        model.insert("Ab", at: 0)
        XCTAssertEqual(try all(try filtered(results, "self BEGINSWITH[c] 'a'")).first, .string("Ab"))
        XCTAssertEqual(try results.count(), model.count)
        db.realm.cancelWrite()
        XCTAssertEqual(try results.count(), model.count - 1)
        // Strings do not aggregate.
        let error = expectError(.typeMismatch) { try results.aggregate(.max) }
        XCTAssertTrue(error?.message.contains("'Bag.strs'") ?? false, error?.message ?? "")
    }

    func testResultsStayLiveAndFailCleanlyWhenTheOwnerGoes() throws {
        let db = try open()
        let bag = try db.write { try db.create("Bag", []) }
        try db.write { try db.append("Bag", bag, "ints", [.int(3), .int(1), .int(2)]) }
        let results = try values(db, bag, "ints")
        let sorted = try results.sorted(ascending: true)
        let big = try filtered(sorted, "self >= 2")
        XCTAssertEqual(try all(big), [.int(2), .int(3)])
        try db.write { try db.append("Bag", bag, "ints", [.int(0), .int(5)]) }
        XCTAssertEqual(try all(big), [.int(2), .int(3), .int(5)])
        XCTAssertEqual(try all(sorted), [.int(0), .int(1), .int(2), .int(3), .int(5)])
        // Sorting again replaces the order; "self" is the only key.
        XCTAssertEqual(try all(try sorted.sorted(by: [("self", false)])).first, .int(5))
        expectError(.queryInvalid) { try sorted.sorted(by: [("n", true)]) }
        expectError(.queryInvalid) { try filtered(results, "n > 1") }
        expectError(.indexOutOfBounds) { try big.value(at: 3) }
        // The owner deleted: every read fails with invalidatedObject.
        try db.write { try db.delete("Bag", bag) }
        expectError(.invalidatedObject) { try results.count() }
        expectError(.invalidatedObject) { try big.value(at: 0) }
        expectError(.invalidatedObject) { try big.aggregate(.sum) }
        // A list of objects gives object results instead.
        expectError(.invalidArgument) { try ValueResults(realm: db.realm, list: db.pkey("Bag", "items"), of: bag, in: db.cls("Bag")) }
    }

    func testSelfInPredicatesOfObjects() throws {
        XCTAssertEqual(try QueryParser.parse("self > 1"), .comparison(.element, .greater, .constant(.int(1)), []))
        XCTAssertEqual(try QueryParser.parse("1 < SELF"), .comparison(.constant(.int(1)), .less, .element, []))
        XCTAssertEqual(try QueryParser.parse("Self > 1"), .comparison(.keyPath(["Self"]), .greater, .constant(.int(1)), []))
        // Followed by '.' it starts a key path (a property named "self").
        XCTAssertEqual(try QueryParser.parse("self.name == 'a'"), .comparison(.keyPath(["self", "name"]), .equal, .constant(.string("a")), []))
        let db = try open()
        let error = expectError(.queryInvalid) { try db.query("Item", "self > 1") }
        XCTAssertTrue(error?.message.contains("'self'") ?? false)
        // A class with a property named "self" may still use it.
        let other = try DB.open(tempDir().file("self.fief"), makeSchema([("S", [prop("self", .int)])]))
        try other.write { _ = try other.createMany("S", ["self"], [[.int(1)], [.int(5)]]) }
        XCTAssertEqual(try other.query("S", "self > 2").count(), 1)
    }

    // MARK: Aggregates over objects

    func testObjectAggregatesMatchAModel() throws {
        let db = try open()
        var random = SeededRandom(seed: 4242)
        struct Row { var n: Int64; var on: Int64?; var d: Double?; var f: Float; var ts: (Int64, Int32)? }
        var rows: [Int64: Row] = [:]
        func make(_ count: Int) throws {
            var fresh: [[TV]] = []
            var made: [Row] = []
            for _ in 0..<count {
                let row = Row(n: Int64.random(in: -1000...1000, using: &random),
                              on: Bool.random(using: &random) ? nil : Int64.random(in: -50...50, using: &random),
                              d: Int.random(in: 0..<3, using: &random) == 0 ? nil : Double(Int.random(in: -400...400, using: &random)) / 8,
                              f: Float(Int.random(in: -100...100, using: &random)) / 4,
                              ts: Bool.random(using: &random) ? nil : (Int64.random(in: 0...9, using: &random), Int32.random(in: 0...9, using: &random)))
                made.append(row)
                fresh.append([.int(row.n), row.on.map { .int($0) } ?? .null, row.d.map { .double($0) } ?? .null, .float(row.f),
                              row.ts.map { .timestamp($0.0, $0.1) } ?? .null])
            }
            let keys = try db.createMany("Item", ["n", "on", "d", "f", "ts"], fresh)
            for (key, row) in zip(keys, made) { rows[key] = row }
        }
        try db.write { try make(900) }   // several clusters
        let properties = ["n", "on", "d", "f", "ts"].map { db.pkey("Item", $0) }
        func check(_ results: Results, _ members: [Row], _ label: String) throws {
            func agg(_ op: AggregateOperation, _ p: Int) throws -> TV { TV(try results.aggregate(op, property: properties[p])) }
            let n = members.map(\.n), on = members.compactMap(\.on), d = members.compactMap(\.d), f = members.map(\.f)
            XCTAssertEqual(try agg(.min, 0), n.min().map { .int($0) } ?? .null, label)
            XCTAssertEqual(try agg(.max, 0), n.max().map { .int($0) } ?? .null, label)
            XCTAssertEqual(try agg(.sum, 0), .int(n.reduce(0, +)), label)
            XCTAssertEqual(try agg(.average, 0), n.isEmpty ? .null : .double(Double(n.reduce(0, +)) / Double(n.count)), label)
            XCTAssertEqual(try agg(.sum, 1), .int(on.reduce(0, +)), label)
            XCTAssertEqual(try agg(.average, 1), on.isEmpty ? .null : .double(Double(on.reduce(0, +)) / Double(on.count)), label)
            XCTAssertEqual(try agg(.min, 2), d.min().map { .double($0) } ?? .null, label)
            XCTAssertEqual(try agg(.max, 2), d.max().map { .double($0) } ?? .null, label)
            // Eighths add up exactly in doubles.
            XCTAssertEqual(try agg(.sum, 2), .double(d.reduce(0, +)), label)
            XCTAssertEqual(try agg(.min, 3), f.min().map { .float($0) } ?? .null, label)
            XCTAssertEqual(try agg(.sum, 3), .double(f.reduce(0) { $0 + Double($1) }), label)
            let ts = members.compactMap(\.ts).sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            XCTAssertEqual(try agg(.min, 4), ts.first.map { .timestamp($0.0, $0.1) } ?? .null, label)
            XCTAssertEqual(try agg(.max, 4), ts.last.map { .timestamp($0.0, $0.1) } ?? .null, label)
        }
        for round in 0..<6 {
            let k = Int64.random(in: -1000...1000, using: &random)
            try check(try db.results("Item"), Array(rows.values), "all, round \(round)")
            let matching = try db.query("Item", "n < \(k) OR on == nil")
            try check(matching, rows.values.filter { $0.n < k || $0.on == nil }, "filtered, round \(round)")
            try check(try matching.sorted(by: [("d", false)]), rows.values.filter { $0.n < k || $0.on == nil }, "sorted, round \(round)")
            try check(try db.query("Item", "n > 5000"), [], "empty")
            // Change some objects and delete others; the results follow.
            try db.write {
                for key in rows.keys.shuffled(using: &random).prefix(40) {
                    if Bool.random(using: &random) {
                        try db.delete("Item", key)
                        rows[key] = nil
                    } else {
                        let n = Int64.random(in: -1000...1000, using: &random)
                        try db.set("Item", key, "n", .int(n))
                        rows[key]!.n = n
                    }
                }
                try make(20)
            }
        }
        // A list of links, with an object listed twice, and backlinks.
        let keys = Array(rows.keys.sorted().prefix(30))
        let bag = try db.write { () -> Int64 in
            let bag = try db.create("Bag", [])
            try db.append("Bag", bag, "items", (keys + keys.prefix(5)).map { .link(db.cls("Item"), $0) })
            for key in keys.prefix(10) { try db.set("Item", key, "friend", .link(db.cls("Item"), keys[0])) }
            return bag
        }
        let listed = try ObjectResults(realm: db.realm, list: db.pkey("Bag", "items"), of: bag, in: db.cls("Bag"))
        try check(listed, (keys + keys.prefix(5)).map { rows[$0]! }, "list")
        try check(try listed.filtered("n > 0", arguments: []), (keys + keys.prefix(5)).map { rows[$0]! }.filter { $0.n > 0 }, "filtered list")
        let friends = try ObjectResults(realm: db.realm, linkingTo: keys[0], of: db.cls("Item"), originClass: db.cls("Item"), property: db.pkey("Item", "friend"))
        try check(friends, keys.prefix(10).map { rows[$0]! }, "backlinks")
        // Refused: strings, links, lists, unknown properties.
        let everything = try db.results("Item")
        expectError(.typeMismatch) { try everything.aggregate(.sum, property: db.pkey("Item", "s")) }
        expectError(.typeMismatch) { try everything.aggregate(.average, property: db.pkey("Item", "ts")) }
        expectError(.invalidArgument) { try everything.aggregate(.min, property: db.pkey("Item", "friend")) }
        expectError(.invalidArgument) { try ObjectResults(realm: db.realm, tableKey: db.cls("Bag")).aggregate(.min, property: db.pkey("Bag", "ints")) }
        expectError(.noSuchProperty) { try everything.aggregate(.min, property: 999) }
    }

    // MARK: Decimals and doubles

    private static func dec(_ coefficient: Int64, _ exponent: Int) -> Decimal128Bits {
        DecimalArithmetic.finite(negative: coefficient < 0, coefficient: UInt128(coefficient.magnitude), exponent: exponent)
    }

    func testDecimalArithmetic() {
        // 0.1 + 0.2 is exactly 0.3.
        XCTAssertEqual(DecimalArithmetic.add(Self.dec(1, -1), Self.dec(2, -1)), Self.dec(3, -1))
        XCTAssertEqual(DecimalArithmetic.compare(Self.dec(10, -1), Self.dec(1, 0)), 0)
        XCTAssertEqual(DecimalArithmetic.compare(Self.dec(-5, 0), Self.dec(1, -30)), -1)
        XCTAssertEqual(DecimalArithmetic.compare(DecimalArithmetic.infinity(negative: false), Self.dec(9, 6000)), 1)
        XCTAssertNil(DecimalArithmetic.compare(DecimalArithmetic.nan, Self.dec(1, 0)))
        XCTAssertEqual(DecimalArithmetic.add(Self.dec(5, 0), Self.dec(-5, 0)), Self.dec(0, 0))
        // 1/3 rounds to 34 threes.
        let third = DecimalArithmetic.divide(Self.dec(1, 0), by: 3)
        guard case let .finite(negative, coefficient, exponent) = DecimalArithmetic.kind(third) else { return XCTFail() }
        XCTAssertFalse(negative)
        XCTAssertEqual(exponent, -34)
        XCTAssertEqual(String(coefficient), String(repeating: "3", count: 34))
        // 10^34 - 1 + 1 rounds to 10^34 (one digit more, exponent 1).
        let big = DecimalArithmetic.add(DecimalArithmetic.finite(negative: false, coefficient: DecimalArithmetic.coefficientLimit - 1, exponent: 0), Self.dec(1, 0))
        XCTAssertEqual(DecimalArithmetic.compare(big, DecimalArithmetic.finite(negative: false, coefficient: DecimalArithmetic.coefficientLimit / 10, exponent: 1)), 0)
        XCTAssertEqual(DecimalArithmetic.from(-42), Self.dec(-42, 0))
    }

    func testDecimalAndDoubleListAggregates() throws {
        let db = try open()
        let bag = try db.write { try db.create("Bag", []) }
        try db.write {
            try db.append("Bag", bag, "decs", [.decimal(Self.dec(15, -1)), .null, .decimal(Self.dec(-25, -2)), .decimal(Self.dec(1, 2))])
            try db.append("Bag", bag, "dbls", [.double(1.5), .double(.nan), .double(-3)])
            try db.append("Bag", bag, "times", [.timestamp(2, 0), .timestamp(-1, 0), .timestamp(2, 1)])
        }
        let decs = try values(db, bag, "decs")
        XCTAssertEqual(TV(try decs.aggregate(.sum)), .decimal(Self.dec(10125, -2)))
        XCTAssertEqual(TV(try decs.aggregate(.min)), .decimal(Self.dec(-25, -2)))
        XCTAssertEqual(TV(try decs.aggregate(.max)), .decimal(Self.dec(1, 2)))
        XCTAssertEqual(TV(try decs.aggregate(.average)), .decimal(Self.dec(3375, -2)))
        XCTAssertEqual(try all(try decs.sorted(ascending: true)),
                       [.null, .decimal(Self.dec(-25, -2)), .decimal(Self.dec(15, -1)), .decimal(Self.dec(1, 2))])
        XCTAssertEqual(try filtered(decs, "self > 1").count(), 2)
        // NaN: no order for min and max, but it spoils the sum.
        let dbls = try values(db, bag, "dbls")
        XCTAssertEqual(TV(try dbls.aggregate(.min)), .double(-3))
        XCTAssertEqual(TV(try dbls.aggregate(.max)), .double(1.5))
        guard case .double(let sum) = try dbls.aggregate(.sum) else { return XCTFail() }
        XCTAssertTrue(sum.isNaN)
        let times = try values(db, bag, "times")
        XCTAssertEqual(TV(try times.aggregate(.max)), .timestamp(2, 1))
        XCTAssertEqual(TV(try times.aggregate(.min)), .timestamp(-1, 0))
        expectError(.typeMismatch) { try times.aggregate(.sum) }
        XCTAssertEqual(try all(try times.sorted(ascending: false)), [.timestamp(2, 1), .timestamp(2, 0), .timestamp(-1, 0)])
    }
}
