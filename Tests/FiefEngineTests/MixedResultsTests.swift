import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Results of mixed values (lists, sets and maps of mixed values as live
/// results: read, find, filters over `self`, sorts in Realm's mixed order)
/// and aggregates over mixed values (min and max in the mixed order, sum and
/// average of the numbers as decimal128, as realm-core computes them).
final class MixedResultsTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Cat", [prop("name", .string)]),
        ("Box", [prop("label", .string),
                 prop("anyValue", .mixed),
                 Property(name: "items", type: .mixed, collection: .list),
                 Property(name: "bag", type: .mixed, collection: .set),
                 Property(name: "props", type: .mixed, collection: .map),
                 Property(name: "ints", type: .int, collection: .list)]),
    ])

    /// coefficient × 10^exponent as a decimal128.
    private static func dec(_ coefficient: UInt128, _ exponent: Int, negative: Bool = false) -> Decimal128Bits {
        Decimal128Bits(low: UInt64(truncatingIfNeeded: coefficient),
                       high: (negative ? 1 << 63 : 0) | UInt64(exponent + 6176) << 49 | UInt64(truncatingIfNeeded: coefficient >> 64))
    }

    private static func dec(_ coefficient: UInt128, _ exponent: Int) -> TV { .decimal(dec(coefficient, exponent, negative: false)) }

    private func results(_ db: DB, _ box: Int64, _ name: String) throws -> ValueResults {
        try ValueResults(realm: db.realm, list: db.pkey("Box", name), of: box, in: db.cls("Box"))
    }

    private func all(_ results: ValueResults) throws -> [TV] {
        try (0..<results.count()).map { TV(try results.value(at: $0)) }
    }

    private func filtered(_ results: ValueResults, _ predicate: String, _ args: [TV] = []) throws -> ValueResults {
        try TV.withValues(args) { v in try results.filtered(predicate, arguments: v.map { QueryArgument(values: [$0], isList: false) }) }
    }

    private func find(_ results: ValueResults, _ value: TV) throws -> Int? {
        try TV.withValues([value]) { try results.index(of: $0[0]) }
    }

    /// Whether `value` is a decimal128 equal in value to `expected`.
    private func assertDecimal(_ value: Value, _ expected: Decimal128Bits, file: StaticString = #filePath, line: UInt = #line) {
        guard case .decimal128(let d) = value else { return XCTFail("\(TV(value)) is not a decimal", file: file, line: line) }
        XCTAssertEqual(DecimalArithmetic.compare(d, expected), 0, "\(TV(value)) ≠ \(TV.decimal(expected))", file: file, line: line)
    }

    private let oid = TV.oid(bytes: Array(1...12))
    private let uuid = TV.uuid(bytes: Array(1...16))

    // MARK: Results

    func testListOfMixedValuesReadFindFilterAndSort() throws {
        let db = try DB.open(tempDir().file(), schema)
        let (box, dog, cat) = try db.write { () throws -> (Int64, Int64, Int64) in
            (try db.create("Box", [("label", .string("b"))]), try db.create("Dog", [("name", .string("rex"))]),
             try db.create("Cat", [("name", .string("tom"))]))
        }
        let dogLink = TV.link(db.cls("Dog"), dog), catLink = TV.link(db.cls("Cat"), cat)
        let items: [TV] = [.int(3), .string("b"), .double(1.0), .bool(true), .null, Self.dec(1, 0), .string("Apple"),
                           .binary([1, 2]), .int(1), .float(2.5), .timestamp(5, 0), oid, uuid, catLink, dogLink,
                           .string("apple"), .double(-0.5), .bool(false), .int(-7), Self.dec(25, -1), .string("1")]
        try db.write { try db.append("Box", box, "items", items) }
        let list = try results(db, box, "items")
        XCTAssertEqual(list.element.type, .mixed)
        XCTAssertTrue(list.element.isNullable)
        XCTAssertEqual(try all(list), items)

        // find: numbers by value across types, nothing else across types.
        XCTAssertEqual(try find(list, .int(1)), 2, "1 is the double 1.0")
        XCTAssertEqual(try find(list, Self.dec(10, -1)), 2, "decimal 1.0 is the double 1.0")
        XCTAssertEqual(try find(list, .float(2.5)), 9)
        XCTAssertEqual(try find(list, Self.dec(25, -1)), 9, "decimal 2.5 is the float 2.5")
        XCTAssertEqual(try find(list, .bool(true)), 3, "true is not 1")
        XCTAssertEqual(try find(list, .string("1")), 20, "'1' is not 1")
        XCTAssertEqual(try find(list, .string("3")), nil)
        XCTAssertEqual(try find(list, .int(100)), nil)
        XCTAssertEqual(try find(list, .null), 4)
        XCTAssertEqual(try find(list, dogLink), 14)
        XCTAssertEqual(try find(list, .link(db.cls("Dog"), cat)), cat == dog ? 14 : nil)
        XCTAssertEqual(try find(list, .binary([1, 2])), 7)
        XCTAssertEqual(try find(list, .string("\u{1}\u{2}")), nil, "a string is not a binary")

        // Filters over self.
        func matches(_ predicate: String, _ args: [TV] = []) throws -> [TV] { try all(try filtered(list, predicate, args)) }
        XCTAssertEqual(try matches("self == 1"), [.double(1.0), Self.dec(1, 0), .int(1)])
        XCTAssertEqual(try matches("self == 1.0"), [.double(1.0), Self.dec(1, 0), .int(1)])
        XCTAssertEqual(try matches("self == $0", [Self.dec(100, -2)]), [.double(1.0), Self.dec(1, 0), .int(1)])
        XCTAssertEqual(try matches("self != 1").count, items.count - 3)
        XCTAssertEqual(try matches("self > 2"), [.int(3), .float(2.5), Self.dec(25, -1)])
        XCTAssertEqual(try matches("self <= 1"), [.double(1.0), Self.dec(1, 0), .int(1), .double(-0.5), .int(-7)])
        XCTAssertEqual(try matches("self == true"), [.bool(true)])
        XCTAssertEqual(try matches("self == '1'"), [.string("1")])
        XCTAssertEqual(try matches("self == $0", [.string("1")]), [.string("1")])
        XCTAssertEqual(try matches("self == nil"), [.null])
        XCTAssertEqual(try matches("self != nil").count, items.count - 1)
        XCTAssertEqual(try matches("self > 'a'"), [.string("b"), .string("apple")], "strings compare with strings only")
        XCTAssertEqual(try matches("self BEGINSWITH[c] 'a'"), [.string("Apple"), .string("apple")])
        XCTAssertEqual(try matches("self BEGINSWITH 'a'"), [.string("apple")])
        XCTAssertEqual(try matches("self CONTAINS 'pp'"), [.string("Apple"), .string("apple")])
        XCTAssertEqual(try matches("self LIKE[c] 'a*E'"), [.string("Apple"), .string("apple")])
        XCTAssertEqual(try matches("self ==[c] 'APPLE'"), [.string("Apple"), .string("apple")])
        XCTAssertEqual(try matches("self BEGINSWITH $0", [.binary([1])]), [.binary([1, 2])])
        XCTAssertEqual(try matches("self BEGINSWITH $0", [.string("\u{1}")]), [], "string operators match a string with strings only")
        XCTAssertEqual(try matches("self > $0", [.timestamp(0, 0)]), [.timestamp(5, 0)])
        XCTAssertEqual(try matches("self == $0", [oid]), [oid])
        XCTAssertEqual(try matches("self == $0", [uuid]), [uuid])
        XCTAssertEqual(try matches("self == $0", [dogLink]), [dogLink])
        XCTAssertEqual(try matches("self != $0 AND self > 0", [.int(3)]), [.double(1.0), Self.dec(1, 0), .int(1), .float(2.5), Self.dec(25, -1)])
        XCTAssertEqual(try matches("self > 0 OR self == 'b'"), [.int(3), .string("b"), .double(1.0), Self.dec(1, 0), .int(1), .float(2.5), Self.dec(25, -1)])
        XCTAssertEqual(try matches("NOT self > 0").count, items.count - 6)

        // Predicates that make no sense are refused, with nothing read.
        for bad in ["self BEGINSWITH 1", "self CONTAINS true", "self > true", "self > $0", "self ==[c] 1", "label == 1"] {
            let args: [TV] = bad.contains("$0") ? [dogLink] : []
            do {
                _ = try filtered(list, bad, args)
                XCTFail("\(bad) was accepted")
            } catch let error as FiefError {
                XCTAssertTrue(error.code == .queryInvalid || error.code == .queryArgument, "\(bad): \(error)")
            }
        }
        expectError(.querySyntax) { try filtered(list, "self ==") }

        // Sorted in Realm's mixed order; equal values keep the list's order both ways.
        let dogFirst = db.cls("Dog") < db.cls("Cat")
        let links = dogFirst ? [dogLink, catLink] : [catLink, dogLink]
        let ascending: [TV] = [.null, .bool(false), .bool(true), .int(-7), .double(-0.5), .double(1.0), Self.dec(1, 0), .int(1),
                               .float(2.5), Self.dec(25, -1), .int(3), .string("1"), .string("Apple"), .string("apple"), .string("b"),
                               .binary([1, 2]), .timestamp(5, 0), oid, uuid] + links
        XCTAssertEqual(try all(try list.sorted(ascending: true)), ascending)
        let descending: [TV] = links.reversed() + [uuid, oid, .timestamp(5, 0), .binary([1, 2]), .string("b"), .string("apple"),
                                                   .string("Apple"), .string("1"), .int(3), .float(2.5), Self.dec(25, -1),
                                                   .double(1.0), Self.dec(1, 0), .int(1), .double(-0.5), .int(-7), .bool(true),
                                                   .bool(false), .null]
        XCTAssertEqual(try all(try list.sorted(by: [("self", false)])), descending)
        XCTAssertEqual(try all(try filtered(list, "self >= 1").sorted(ascending: false)),
                       [.int(3), .float(2.5), Self.dec(25, -1), .double(1.0), Self.dec(1, 0), .int(1)])
        let sorted = try list.sorted(ascending: true)
        XCTAssertEqual(try find(sorted, .int(1)), 5)
        XCTAssertEqual(try find(sorted, .string("b")), 14)

        // Live: a change to the list shows in filtered and sorted results.
        let big = try filtered(list, "self > 2").sorted(ascending: true)
        XCTAssertEqual(try big.count(), 3)
        try db.write { try db.append("Box", box, "items", [Self.dec(5, -1), .double(2.75)]) }
        XCTAssertEqual(try all(big), [.float(2.5), Self.dec(25, -1), .double(2.75), .int(3)])
    }

    func testSetsAndMapsOfMixedValuesAsResults() throws {
        let db = try DB.open(tempDir().file(), schema)
        let (box, dog) = try db.write { () throws -> (Int64, Int64) in
            let box = try db.create("Box", [("label", .string("b"))])
            let dog = try db.create("Dog", [("name", .string("rex"))])
            for v: TV in [.string("x"), .int(2), .double(0.5), .bool(false), .null, .link(db.cls("Dog"), dog), Self.dec(15, -1), .timestamp(1, 0)] {
                _ = try db.setInsert("Box", box, "bag", v)
            }
            for (k, v): (String, TV) in [("a", .int(10)), ("b", .string("ten")), ("c", .double(2.5)), ("d", .null), ("e", .bool(true)),
                                         ("f", .decimal(Self.dec(5, 0, negative: true))), ("g", .link(db.cls("Dog"), dog))] {
                try db.mapSet("Box", box, "props", k, v)
            }
            return (box, dog)
        }
        let bag = try results(db, box, "bag")
        XCTAssertEqual(try bag.count(), 8)
        XCTAssertEqual(try all(try filtered(bag, "self > 1").sorted(ascending: false)), [.int(2), Self.dec(15, -1)])
        XCTAssertEqual(try find(bag, .double(2)), try all(bag).firstIndex(of: .int(2)))
        XCTAssertEqual(try all(try bag.sorted(ascending: true)),
                       [.null, .bool(false), .double(0.5), Self.dec(15, -1), .int(2), .string("x"), .timestamp(1, 0), .link(db.cls("Dog"), dog)])
        assertDecimal(try bag.aggregate(.sum), Self.dec(40, -1, negative: false))
        XCTAssertEqual(TV(try bag.aggregate(.min)), .bool(false))
        XCTAssertEqual(TV(try bag.aggregate(.max)), .link(db.cls("Dog"), dog))

        let props = try results(db, box, "props")
        let minusFive = TV.decimal(Self.dec(5, 0, negative: true))
        XCTAssertEqual(try all(props), [.int(10), .string("ten"), .double(2.5), .null, .bool(true), minusFive, .link(db.cls("Dog"), dog)])
        XCTAssertEqual(try all(try filtered(props, "self < 5")), [.double(2.5), minusFive])
        XCTAssertEqual(try all(try filtered(props, "self ENDSWITH 'en'")), [.string("ten")])
        XCTAssertEqual(try find(props, Self.dec(25, -1)), 2)
        assertDecimal(try props.aggregate(.sum), Self.dec(75, -1, negative: false))
        assertDecimal(try props.aggregate(.average), Self.dec(25, -1, negative: false))
        XCTAssertEqual(TV(try props.aggregate(.min)), .bool(true))
        XCTAssertEqual(TV(try filtered(props, "self != true").aggregate(.min)), minusFive)
        XCTAssertEqual(TV(try filtered(props, "self != $0", [.link(db.cls("Dog"), dog)]).aggregate(.max)), .string("ten"))
        // The owner goes: the results fail cleanly.
        try db.write { try db.delete("Box", box) }
        expectError(.invalidatedObject) { try props.count() }
        expectError(.invalidatedObject) { try bag.aggregate(.sum) }
    }

    /// Random lists of numbers of every type (ints beyond 2^53 too, and
    /// decimals that are no double), bools, strings (some sharing their
    /// first eight bytes) and nulls against a model that holds every number
    /// exactly (in hundredths): sorts, filters, find and aggregates.
    func testRandomMixedListsMatchAModel() throws {
        let db = try DB.open(tempDir().file(), schema)
        var random = SeededRandom(seed: 42)
        let words = ["a", "B", "b", "ab", "", "1", "abcdefgh", "abcdefghi", "abcdefgh\u{0}", "abcdefgg~"]
        func randomValue() -> TV {
            let n = Int64(random.next() % 21) - 10
            switch random.next() % 10 {
            case 0: return .null
            case 1: return .bool(random.next() % 2 == 0)
            case 2, 3: return .string(words[Int(random.next() % UInt64(words.count))])
            case 4: return .double(Double(n) / 2)
            case 5: return .float(Float(n) / 4)
            case 6: return .decimal(Self.dec(UInt128(n.magnitude), -1, negative: n < 0))
            case 7: return .int((1 << 53) + n)
            default: return .int(n)
            }
        }
        /// A number in hundredths, exactly.
        func hundredths(_ v: TV) -> Int128? {
            switch v {
            case .int(let i): return Int128(i) * 100
            case .double(let d): return Int128(d * 100)
            case .float(let f): return Int128(Double(f) * 100)
            case .decimal(let d):
                let (negative, exponent, coefficient, _) = DecimalOrder.parts(d)
                XCTAssertEqual(exponent, -1)
                let c = Int128(coefficient!) * 10
                return negative ? -c : c
            default: return nil
            }
        }
        func group(_ v: TV) -> Int {
            switch v {
            case .null: return 0
            case .bool: return 1
            case .string: return 3
            default: return hundredths(v) != nil ? 2 : 9
            }
        }
        func less(_ a: TV, _ b: TV) -> Bool {
            let ga = group(a), gb = group(b)
            if ga != gb { return ga < gb }
            switch (a, b) {
            case (.bool(let x), .bool(let y)): return !x && y
            case (.string(let x), .string(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            default: return (hundredths(a) ?? 0) < (hundredths(b) ?? 0)
            }
        }
        for round in 0..<30 {
            let values = (0..<Int(random.next() % 80)).map { _ in randomValue() }
            let box = try db.write { () throws -> Int64 in
                let box = try db.create("Box", [("label", .string("r\(round)"))])
                try db.append("Box", box, "items", values)
                return box
            }
            let list = try results(db, box, "items")
            XCTAssertEqual(try all(list), values)
            for ascending in [true, false] {
                let model = values.enumerated().sorted { a, b in
                    if ascending ? less(a.element, b.element) : less(b.element, a.element) { return true }
                    if ascending ? less(b.element, a.element) : less(a.element, b.element) { return false }
                    return a.offset < b.offset
                }.map(\.element)
                XCTAssertEqual(try all(try list.sorted(ascending: ascending)), model, "round \(round)")
            }
            let k = Int64(random.next() % 11) - 5
            let k100 = Int128(k) * 100
            XCTAssertEqual(try all(try filtered(list, "self > \(k)")), values.filter { hundredths($0).map { $0 > k100 } ?? false })
            XCTAssertEqual(try all(try filtered(list, "self == $0", [.double(Double(k))])), values.filter { hundredths($0) == k100 })
            XCTAssertEqual(try all(try filtered(list, "self != $0", [.float(Float(k))])), values.filter { hundredths($0) != k100 })
            XCTAssertEqual(try all(try filtered(list, "self == $0", [.int((1 << 53) + k)])), values.filter { hundredths($0) == (Int128(1 << 53) + Int128(k)) * 100 })
            XCTAssertEqual(try all(try filtered(list, "self BEGINSWITH[c] 'b'")), values.filter {
                if case .string(let s) = $0 { return s.lowercased().hasPrefix("b") }
                return false
            })
            XCTAssertEqual(try find(list, .int(k)), values.firstIndex { hundredths($0) == k100 })
            XCTAssertEqual(try find(list, .string("abcdefgh")), values.firstIndex(of: .string("abcdefgh")))
            XCTAssertEqual(try find(list, .bool(true)), values.firstIndex(of: .bool(true)))
            let present = values.filter { $0 != .null }
            let minimum = present.enumerated().min { less($0.element, $1.element) || (!less($1.element, $0.element) && $0.offset < $1.offset) }
            let maximum = present.enumerated().max { less($0.element, $1.element) || (!less($1.element, $0.element) && $0.offset > $1.offset) }
            // min and max give the first of equal values.
            XCTAssertEqual(TV(try list.aggregate(.min)), minimum?.element ?? .null, "round \(round)")
            XCTAssertEqual(TV(try list.aggregate(.max)), maximum?.element ?? .null, "round \(round)")
            let numbers = values.compactMap(hundredths)
            let total = numbers.reduce(0, +)
            assertDecimal(try list.aggregate(.sum),
                          DecimalArithmetic.finite(negative: total < 0, coefficient: UInt128(total.magnitude), exponent: -2))
            let average = try list.aggregate(.average)
            if numbers.isEmpty {
                XCTAssertEqual(TV(average), .null)
            } else {
                guard case .decimal128(let a) = average else { return XCTFail() }
                let expected = Double(total) / 100 / Double(numbers.count)
                XCTAssertEqual(DecimalArithmetic.toDouble(a), expected, accuracy: Swift.abs(expected) * 1e-12)
            }
        }
    }

    // MARK: Aggregates

    func testMixedAggregatesFollowRealmCore() throws {
        let db = try DB.open(tempDir().file(), schema)
        let (box, dog) = try db.write { () throws -> (Int64, Int64) in
            (try db.create("Box", [("label", .string("b"))]), try db.create("Dog", [("name", .string("rex"))]))
        }
        let list = try results(db, box, "items")
        // Empty: min, max and average null, sum decimal 0.
        XCTAssertEqual(TV(try list.aggregate(.min)), .null)
        XCTAssertEqual(TV(try list.aggregate(.max)), .null)
        XCTAssertEqual(TV(try list.aggregate(.average)), .null)
        XCTAssertEqual(TV(try list.aggregate(.sum)), .decimal(DecimalArithmetic.zero))

        // Only non-numbers: min and max still take them; sum 0, average null.
        try db.write { try db.append("Box", box, "items", [.string("b"), .null, .string("a"), .binary([0])]) }
        XCTAssertEqual(TV(try list.aggregate(.min)), .string("a"))
        XCTAssertEqual(TV(try list.aggregate(.max)), .binary([0]))
        XCTAssertEqual(TV(try list.aggregate(.sum)), .decimal(DecimalArithmetic.zero))
        XCTAssertEqual(TV(try list.aggregate(.average)), .null)

        // Numbers of every type with other values: min is the bool (bools
        // sort before numbers), max the link (links sort last); the sum and
        // average take the numbers only, as decimals.
        try db.write {
            try db.append("Box", box, "items", [.int(3), .bool(true), .double(1.5), Self.dec(1, -1), .float(0.25), .link(db.cls("Dog"), dog),
                                                .timestamp(9, 0), .double(.nan)])
        }
        XCTAssertEqual(TV(try list.aggregate(.min)), .bool(true))
        XCTAssertEqual(TV(try list.aggregate(.max)), .link(db.cls("Dog"), dog))
        assertDecimal(try list.aggregate(.sum), Self.dec(485, -2, negative: false))
        assertDecimal(try list.aggregate(.average), Self.dec(12125, -4, negative: false))
        let numbers = try filtered(list, "self >= -100")
        XCTAssertEqual(TV(try numbers.aggregate(.min)), Self.dec(1, -1), "NaN is skipped")
        XCTAssertEqual(TV(try numbers.aggregate(.max)), .int(3))
        XCTAssertEqual(TV(try filtered(list, "self < 1").aggregate(.max)), .float(0.25))
        XCTAssertEqual(TV(try filtered(list, "self < 1").aggregate(.min)), Self.dec(1, -1))
        // A NaN matches != only; min and max skip it.
        XCTAssertEqual(try filtered(list, "self == $0", [.double(.nan)]).count(), 0)
        XCTAssertEqual(try filtered(list, "self < 1").count(), 2)
        XCTAssertEqual(try filtered(list, "self != $0", [.double(.nan)]).count(), 12)
        let withNaN = try filtered(list, "self != 3 AND self != 1.5 AND self != 0.25 AND self != $0", [Self.dec(1, -1)])
        XCTAssertEqual(TV(try withNaN.aggregate(.max)), .link(db.cls("Dog"), dog))
        XCTAssertEqual(TV(try filtered(withNaN, "self != true").aggregate(.min)), .string("a"), "NaN is skipped")

        // Each double is added as realm-core converts it: rounded to 15
        // significant digits (a float to 7), so 0.1 + 0.2 is 0.3 exactly.
        try db.write { try db.realm.list(CollectionRef(.list, table: db.cls("Box"), owner: box, property: db.pkey("Box", "items"))).removeAll() }
        try db.write { try db.append("Box", box, "items", [.double(0.1), .double(0.2), .float(0.1)]) }
        assertDecimal(try list.aggregate(.sum), Self.dec(4, -1, negative: false))
        guard case .decimal128(let sum) = try list.aggregate(.sum) else { return XCTFail() }
        XCTAssertEqual(sum, Self.dec(4, -1, negative: false), "no trailing zeros")
        assertDecimal(try list.aggregate(.average), DecimalArithmetic.divide(Self.dec(4, -1, negative: false), by: 3))

        // Over a mixed property of objects (fief_results_aggregate).
        try db.write {
            _ = try db.create("Box", [("label", .string("c")), ("anyValue", .int(7))])
            _ = try db.create("Box", [("label", .string("d")), ("anyValue", .string("seven"))])
            _ = try db.create("Box", [("label", .string("e")), ("anyValue", .double(-0.5))])
        }
        let boxes = try db.results("Box")
        let any = db.pkey("Box", "anyValue")
        XCTAssertEqual(TV(try boxes.aggregate(.min, property: any)), .double(-0.5))
        XCTAssertEqual(TV(try boxes.aggregate(.max, property: any)), .string("seven"))
        assertDecimal(try boxes.aggregate(.sum, property: any), Self.dec(65, -1, negative: false))
        assertDecimal(try boxes.aggregate(.average, property: any), Self.dec(325, -2, negative: false))
        try db.write {
            XCTAssertEqual(TV(try boxes.aggregate(.max, property: any)), .string("seven"), "inside a write (dirty chunks)")
            try db.set("Box", box, "anyValue", .string("z"))
            XCTAssertEqual(TV(try boxes.aggregate(.max, property: any)), .string("z"))
        }
        // Lists of other types keep their rules.
        XCTAssertEqual(TV(try results(db, box, "ints").aggregate(.sum)), .int(0))
        expectError(.invalidArgument) { try boxes.aggregate(.sum, property: db.pkey("Box", "items")) }
    }

    /// Nested lists and dictionaries among mixed values: read as such, sorted
    /// after links (lists, then dictionaries), never found, equal to no
    /// constant, and skipped by every aggregate.
    func testNestedCollectionsInResultsAndAggregates() throws {
        let db = try DB.open(tempDir().file(), schema)
        let (box, dog) = try db.write { () throws -> (Int64, Int64) in
            let box = try db.create("Box", [("label", .string("b"))])
            let dog = try db.create("Dog", [("name", .string("rex"))])
            try db.append("Box", box, "items", [.nestedDict(0), .int(2), .nestedList(0), .string("a"), .link(db.cls("Dog"), dog), .nestedList(0), .null])
            try db.mapSet("Box", box, "props", "k", .nestedDict(0))
            try db.mapSet("Box", box, "props", "n", .double(1.5))
            return (box, dog)
        }
        let list = try results(db, box, "items")
        let read = try all(list)
        guard case .nestedDict = read[0], case .nestedList = read[2], case .nestedList = read[5] else { return XCTFail("\(read)") }
        XCTAssertEqual(try all(try list.sorted(ascending: true)),
                       [.null, .int(2), .string("a"), .link(db.cls("Dog"), dog), read[2], read[5], read[0]])
        XCTAssertEqual(try all(try list.sorted(ascending: false)),
                       [read[0], read[2], read[5], .link(db.cls("Dog"), dog), .string("a"), .int(2), .null])
        XCTAssertEqual(try find(list, read[2]), nil)
        XCTAssertEqual(try find(list, .nestedDict(0)), nil)
        XCTAssertEqual(try find(list, .string("a")), 3)
        XCTAssertEqual(try filtered(list, "self != 2").count(), 6)
        XCTAssertEqual(try filtered(list, "self == nil").count(), 1)
        XCTAssertEqual(try filtered(list, "self > 0").count(), 1)
        XCTAssertEqual(TV(try list.aggregate(.min)), .int(2))
        XCTAssertEqual(TV(try list.aggregate(.max)), .link(db.cls("Dog"), dog))
        assertDecimal(try list.aggregate(.sum), Self.dec(2, 0, negative: false))
        assertDecimal(try list.aggregate(.average), Self.dec(2, 0, negative: false))
        let onlyNested = try filtered(list, "self != 2 AND self != 'a' AND self != nil AND self != $0", [.link(db.cls("Dog"), dog)])
        XCTAssertEqual(try onlyNested.count(), 3)
        XCTAssertEqual(TV(try onlyNested.aggregate(.min)), .null)
        XCTAssertEqual(TV(try onlyNested.aggregate(.max)), .null)
        XCTAssertEqual(TV(try onlyNested.aggregate(.sum)), .decimal(DecimalArithmetic.zero))
        XCTAssertEqual(TV(try onlyNested.aggregate(.average)), .null)
        let props = try results(db, box, "props")
        XCTAssertEqual(TV(try props.aggregate(.max)), .double(1.5))
        guard case .nestedDict = TV(try props.sorted(ascending: false).value(at: 0)) else { return XCTFail() }
        // A nested value is no query argument.
        expectError(.queryArgument) { try filtered(list, "self == $0", [.nestedList(1)]) }
    }

    // MARK: Exact order and conversions

    func testNumbersCompareExactlyAcrossTypes() {
        func c(_ a: Value, _ b: Value) -> Int { MixedOrder.compare(a, b) }
        XCTAssertEqual(c(.int(1), .double(1)), 0)
        XCTAssertEqual(c(.int(Int64.max), .double(0x1p63)), -1)
        XCTAssertEqual(c(.int(1 << 53 + 1), .double(0x1p53)), 1, "2^53 + 1 is not the double 2^53")
        XCTAssertEqual(c(.double(-0.5), .int(0)), -1)
        XCTAssertEqual(c(.int(-1), .double(-0.5)), -1)
        XCTAssertEqual(c(.float(0.1), .double(0.1)), 1, "the float 0.1 is above the double 0.1")
        XCTAssertEqual(c(.double(.nan), .int(Int64.min)), -1, "NaN below every number")
        XCTAssertEqual(c(.double(.nan), .float(.nan)), 0)
        XCTAssertEqual(c(.double(.infinity), .int(Int64.max)), 1)
        // A double against a decimal, exactly: 0.1 is 0.1000000000000000055511151231257827021...
        let tenth = Self.dec(1, -1, negative: false)
        XCTAssertEqual(c(.double(0.1), .decimal128(tenth)), 1)
        XCTAssertEqual(c(.double(0.1), .decimal128(Self.dec(1000000000000000055511151231257827, -34, negative: false))), 1)
        XCTAssertEqual(c(.double(0.1), .decimal128(Self.dec(1000000000000000055511151231257828, -34, negative: false))), -1)
        XCTAssertEqual(c(.double(-0.1), .decimal128(Self.dec(1000000000000000055511151231257828, -34, negative: true))), 1)
        XCTAssertEqual(c(.double(0.5), .decimal128(Self.dec(5000, -4, negative: false))), 0)
        XCTAssertEqual(c(.decimal128(Self.dec(1, 400, negative: false)), .double(.greatestFiniteMagnitude)), 1)
        XCTAssertEqual(c(.decimal128(Self.dec(1, -400, negative: false)), .double(.leastNonzeroMagnitude)), -1)
        XCTAssertEqual(c(.decimal128(Self.dec(5, -324, negative: false)), .double(.leastNonzeroMagnitude)), 1, "4.94e-324 < 5e-324")
        XCTAssertEqual(c(.decimal128(DecimalArithmetic.infinity(negative: true)), .double(-.infinity)), 0)
        XCTAssertEqual(c(.decimal128(DecimalArithmetic.infinity(negative: false)), .double(.greatestFiniteMagnitude)), 1)
        XCTAssertEqual(c(.decimal128(DecimalArithmetic.zero), .double(-0.0)), 0)
        // Groups: bool < numbers < string < binary < timestamp < object id < uuid < link.
        let ordered: [Value] = [.null, .bool(true), .int(Int64.min), .string(UnsafeRawBufferPointer(start: nil, count: 0)),
                                .binary(UnsafeRawBufferPointer(start: nil, count: 0)), .timestamp(seconds: Int64.min, nanoseconds: 0),
                                .objectId(ObjectIdBytes(high: 0, low: 0)), .uuid(UUIDBytes(high: 0, low: 0)), .link(classKey: 0, objectKey: 0)]
        for i in 0..<ordered.count {
            for j in 0..<ordered.count { XCTAssertEqual(c(ordered[i], ordered[j]), i == j ? 0 : (i < j ? -1 : 1), "\(i) \(j)") }
        }
    }

    func testBinaryFloatsBecomeDecimalsAsRealmCoreConvertsThem() {
        func d(_ x: Double, _ digits: Int = 15) -> Decimal128Bits { DecimalArithmetic.from(x, digits: digits) }
        XCTAssertEqual(d(0.1), Self.dec(1, -1, negative: false))
        XCTAssertEqual(d(-2.5), Self.dec(25, -1, negative: true))
        XCTAssertEqual(d(1.0 / 3), Self.dec(333333333333333, -15, negative: false))
        XCTAssertEqual(d(2.0 / 3), Self.dec(666666666666667, -15, negative: false))
        XCTAssertEqual(d(123456789012345678), Self.dec(123456789012346, 3, negative: false))
        XCTAssertEqual(d(999999999999999.9), Self.dec(1, 15, negative: false))
        XCTAssertEqual(d(42), Self.dec(42, 0, negative: false))
        XCTAssertEqual(d(1e300), Self.dec(1, 300, negative: false))
        XCTAssertEqual(d(1.0 / 3 * 1e-30), Self.dec(333333333333333, -45, negative: false))
        XCTAssertEqual(d(.leastNonzeroMagnitude), Self.dec(494065645841247, -338, negative: false))
        XCTAssertEqual(d(Double(Float(0.1)), 7), Self.dec(1, -1, negative: false))
        XCTAssertEqual(d(Double(Float(1) / 3), 7), Self.dec(3333333, -7, negative: false))
        XCTAssertEqual(d(-.infinity), DecimalArithmetic.infinity(negative: true))
        XCTAssertEqual(d(0), DecimalArithmetic.zero)
        XCTAssertTrue(DecimalArithmetic.isNaN(d(.nan)))
        // Every double in a wide range: the conversion is the double rounded to 15 digits.
        var random = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let x = Double(bitPattern: random.next() & 0x7FFF_FFFF_FFFF_FFFF)
            guard x.isFinite, x != 0 else { continue }
            let converted = d(x)
            // Within half a unit of the 15th digit of x, and printed the same by %.14e.
            let expected = String(format15(x))
            XCTAssertEqual(format15(DecimalOrder.parts(converted)), expected, "\(x)")
        }
        // Integers with more digits than kept.
        for _ in 0..<2000 {
            let x = Double(random.next() >> UInt64(1 + random.next() % 40))
            guard x != 0 else { continue }
            XCTAssertEqual(format15(DecimalOrder.parts(d(x))), format15(x), "\(x)")
        }
        XCTAssertEqual(d(4503599627370495), Self.dec(45035996273705, 2, negative: false), "a tie, to even (up)")
        XCTAssertEqual(d(9999999999999998), Self.dec(1, 16, negative: false))
        XCTAssertEqual(d(1234567890123465), Self.dec(123456789012346, 1, negative: false), "a tie, to even (down)")
        // And in the range the 64-bit path takes.
        for _ in 0..<2000 {
            let x = Double(random.next() >> 11) * 0x1p-53 * pow(10, Double(Int(random.next() % 44) - 22))
            guard x != 0 else { continue }
            XCTAssertEqual(format15(DecimalOrder.parts(d(x))), format15(x), "\(x)")
        }
    }

    /// The mixed sum's exact 128-bit accumulator gives, bit for bit, what
    /// adding each number as a decimal128 one by one gives (decimal128's
    /// addition), across exponents, zeros, signs, 34-digit overflow and
    /// infinities.
    func testMixedSumsAreDecimal128Additions() {
        var random = SeededRandom(seed: 99)
        func term() -> Value {
            let sign: Int64 = random.next() % 2 == 0 ? 1 : -1
            switch random.next() % 9 {
            case 0: return .int(sign * Int64(random.next() % 1000))
            case 1: return .int(sign * Int64(random.next() >> 2))
            case 2: return .double(Double(sign) * Double(random.next() % 100_000) / 64)
            case 3: return .double(Double(sign) * Double(random.next() % 1000) / 7)
            case 4: return .float(Float(sign) * Float(random.next() % 1000) / 3)
            case 5:
                let coefficient = UInt128(random.next()) * UInt128(random.next() % 1_000_000_000_000)
                return .decimal128(Self.dec(coefficient % DecimalArithmetic.coefficientLimit, Int(random.next() % 60) - 30, negative: sign < 0))
            case 6: return .decimal128(Self.dec(0, Int(random.next() % 20) - 10, negative: sign < 0))
            case 7: return .decimal128(Self.dec(UInt128(random.next() % 100), Int(random.next() % 12) - 6, negative: sign < 0))
            default:
                return random.next() % 50 == 0 ? .decimal128(DecimalArithmetic.infinity(negative: sign < 0)) : .int(0)
            }
        }
        func asDecimal(_ v: Value) -> Decimal128Bits {
            switch v {
            case .int(let i): return DecimalArithmetic.from(i)
            case .float(let f): return DecimalArithmetic.from(Double(f), digits: 7)
            case .double(let d): return DecimalArithmetic.from(d, digits: 15)
            case .decimal128(let d): return d
            default: XCTFail("not a number"); return DecimalArithmetic.zero
            }
        }
        for round in 0..<300 {
            let terms = (0..<Int(random.next() % 30)).map { _ in term() }
            var sum = Aggregator(.sum, .mixed), average = Aggregator(.average, .mixed)
            var expected = DecimalArithmetic.zero
            for t in terms {
                sum.add(t)
                average.add(t)
                expected = DecimalArithmetic.add(expected, asDecimal(t))
            }
            guard case .decimal128(let got) = sum.result() else { return XCTFail() }
            XCTAssertEqual(got, expected, "round \(round): \(terms.map { TV($0) })")
            if !terms.isEmpty, case .decimal128(let mean) = average.result() {
                XCTAssertEqual(mean, DecimalArithmetic.divide(expected, by: terms.count), "round \(round)")
            }
        }
    }

    /// "d.dddddddddddddde±x" of a double (the C library's exact rounding).
    private func format15(_ x: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([x]) { args in buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, 64, "%.14e", args) } }
        let text = String(cString: buffer)
        // Normalize the exponent's spelling: e+05 -> e5.
        guard let e = text.firstIndex(of: "e") else { return text }
        let exponent = Int(text[text.index(after: e)...])!
        return text[..<e] + "e\(exponent)"
    }

    /// The same spelling for a decimal's parts.
    private func format15(_ parts: (negative: Bool, exponent: Int, coefficient: UInt128?, isNaN: Bool)) -> String {
        guard let c = parts.coefficient else { return "special" }
        var digits = String(c)
        let exponent = parts.exponent + digits.count - 1
        while digits.count < 15 { digits += "0" }
        return (parts.negative ? "-" : "") + String(digits.prefix(1)) + "." + String(digits.dropFirst()) + "e\(exponent)"
    }
}
