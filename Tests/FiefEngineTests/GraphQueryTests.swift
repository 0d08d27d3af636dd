import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Queries over the object graph (QueryBinder.swift, GraphEvaluator.swift):
/// key paths through to-one links and embedded objects, lists of values
/// (IN, ANY/ALL/NONE {...}, list arguments), BETWEEN.  Random data and
/// random predicates are checked against a brute-force evaluation written
/// here; realm-core's own cases (test_parser.cpp) against its answers.
final class GraphQueryTests: XCTestCase {
    typealias Op = QueryEngineTests.Op
    typealias Options = QueryEngineTests.Options

    // MARK: The world

    /// Dog {name, age?, owner → Person, rival → Dog}, Person {name?, age,
    /// weight?, buddy → Person, address → Address (embedded)}, Address
    /// {city?, zip?}.
    static func schema() -> Schema {
        Schema(classes: [
            ObjectClass(name: "Dog", properties: [
                prop("name", .string), prop("age", .int, .nullable),
                Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person"),
                Property(name: "rival", type: .link, flags: .nullable, linkTarget: "Dog"),
            ]),
            ObjectClass(name: "Person", properties: [
                prop("name", .string, .nullable), prop("age", .int), prop("weight", .double, .nullable),
                Property(name: "buddy", type: .link, flags: .nullable, linkTarget: "Person"),
                Property(name: "address", type: .link, flags: .nullable, linkTarget: "Address"),
            ]),
            ObjectClass(name: "Address", properties: [prop("city", .string, .nullable), prop("zip", .int, .nullable)], isEmbedded: true),
        ])
    }

    /// Where each link property leads.
    static let linkTargets: [String: String] = ["Dog.owner": "Person", "Dog.rival": "Dog", "Person.buddy": "Person", "Person.address": "Address"]

    /// The objects as the test wrote them: class → key → property → value.
    struct World {
        var rows: [String: [Int64: [String: TV]]] = ["Dog": [:], "Person": [:], "Address": [:]]

        /// The value of key path `path` for dog `key`: null where a link on
        /// the way is null.
        func value(_ path: String, of key: Int64, in className: String = "Dog") -> TV {
            var className = className
            var key = key
            let names = path.split(separator: ".").map(String.init)
            for name in names.dropLast() {
                guard case .link(_, let target) = rows[className]![key]![name]! else { return .null }
                className = GraphQueryTests.linkTargets["\(className).\(name)"]!
                key = target
            }
            return rows[className]![key]![names.last!]!
        }
    }

    // MARK: Brute force

    /// Realm's comparison of two values, links included; a value of a type
    /// the other side never equals (from a list of mixed types) is unequal.
    static func compare(_ a: TV, _ op: Op, _ b: TV, _ o: Options) -> Bool {
        switch (a, b) {
        case (.link, .link), (.link, .null), (.null, .link):
            return op == .eq ? a == b : a != b
        case (.string, .int), (.string, .double), (.int, .string), (.double, .string):
            return op == .ne
        default:
            return QueryEngineTests.compare(a, op, b, o)
        }
    }

    enum ListForm: CaseIterable { case literal, argument, inKeyword }

    indirect enum Pred {
        case always(Bool)
        /// path op value (flipped: written value op path)
        case value(String, Op, TV, Options, flipped: Bool, argument: Bool)
        /// path op QUANTIFIER {values}
        case list(String, Op, [TV], Options, quantifier: QueryQuantifier?, form: ListForm)
        case between(String, TV, TV)
        case paths(String, Op, String, Options)
        case and(Pred, Pred)
        case or(Pred, Pred)
        case not(Pred)
    }

    /// A value against a constant: as `compare`, except that null as a
    /// string pattern is the empty pattern (every string, null included,
    /// begins with, ends with and contains it) and is like only null, as
    /// realm-core answers them.
    static func compareConstant(_ a: TV, _ op: Op, _ c: TV, _ o: Options) -> Bool {
        if c.isNull {
            switch op {
            case .beginsWith, .endsWith, .contains: return true
            case .like: return a.isNull
            default: break
            }
        }
        return compare(a, op, c, o)
    }

    static func eval(_ p: Pred, _ world: World, _ dog: Int64) -> Bool {
        switch p {
        case .always(let b): return b
        case .value(let path, let op, let v, let o, _, _): return compareConstant(world.value(path, of: dog), op, v, o)
        case .list(let path, let op, let values, let o, let quantifier, _):
            let v = world.value(path, of: dog)
            switch quantifier ?? .any {
            case .any: return values.contains { compareConstant(v, op, $0, o) }
            case .all: return values.allSatisfy { compareConstant(v, op, $0, o) }
            case .none: return !values.contains { compareConstant(v, op, $0, o) }
            }
        case .between(let path, let low, let high):
            let v = world.value(path, of: dog)
            return compare(v, .ge, low, Options()) && compare(v, .le, high, Options())
        case .paths(let a, let op, let b, let o): return compare(world.value(a, of: dog), op, world.value(b, of: dog), o)
        case .and(let x, let y): return eval(x, world, dog) && eval(y, world, dog)
        case .or(let x, let y): return eval(x, world, dog) || eval(y, world, dog)
        case .not(let x): return !eval(x, world, dog)
        }
    }

    // MARK: Rendering

    /// An argument as the test keeps it: its values, and whether it is a list.
    typealias Argument = (values: [TV], isList: Bool)

    /// The predicate's text; its `$n` arguments are appended to `args`.
    static func render(_ p: Pred, _ args: inout [Argument]) -> String {
        func argument(_ values: [TV], isList: Bool) -> String {
            args.append((values, isList))
            return "$\(args.count - 1)"
        }
        switch p {
        case .always(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .value(let path, let op, let v, let o, let flipped, let isArgument):
            let text = isArgument ? argument([v], isList: false) : QueryEngineTests.literal(v)
            return flipped ? "\(text) \(op.mirrored.text)\(o.text) \(path)" : "\(path) \(op.text)\(o.text) \(text)"
        case .list(let path, let op, let values, let o, let quantifier, let form):
            let q = quantifier.map { QueryBinder.spelling($0) + " " } ?? ""
            let list = form == .argument ? argument(values, isList: true) : "{" + values.map(QueryEngineTests.literal).joined(separator: ", ") + "}"
            if form == .inKeyword { return "\(path) IN\(o.text) \(q)\(list)" }
            return "\(path) \(op.text)\(o.text) \(q)\(list)"
        case .between(let path, let low, let high):
            return "\(path) BETWEEN {\(QueryEngineTests.literal(low)), \(QueryEngineTests.literal(high))}"
        case .paths(let a, let op, let b, let o): return "\(a) \(op.text)\(o.text) \(b)"
        case .and(let x, let y): return "(\(render(x, &args)) AND \(render(y, &args)))"
        case .or(let x, let y): return "(\(render(x, &args)) OR \(render(y, &args)))"
        case .not(let x): return "NOT \(render(x, &args))"
        }
    }

    /// `predicate` over the objects of `className`, with `args`.
    static func query(_ db: DB, _ predicate: String, _ args: [Argument], of className: String = "Dog") throws -> ObjectResults {
        try TV.withValues(args.flatMap { $0.values }) { views in
            var arguments: [QueryArgument] = []
            var at = 0
            for argument in args {
                arguments.append(QueryArgument(values: Array(views[at..<at + argument.values.count]), isList: argument.isList))
                at += argument.values.count
            }
            return try db.results(className).filtered(predicate, arguments: arguments)
        }
    }

    // MARK: Random predicates

    static let stringPaths = ["name", "owner.name", "owner.buddy.name", "owner.address.city", "rival.name", "rival.owner.name", "rival.rival.name"]
    static let intPaths = ["age", "owner.age", "owner.buddy.age", "owner.address.zip", "rival.age", "rival.owner.buddy.age", "owner.buddy.address.zip"]
    static let doublePaths = ["owner.weight", "rival.owner.weight"]
    static let linkPaths = ["owner", "owner.buddy", "rival.owner", "rival.owner.buddy", "owner.address"]
    static let pathPairs: [(String, String, [Op], Bool)] = [
        ("age", "owner.age", Op.comparisons, false), ("owner.age", "rival.owner.age", Op.comparisons, false),
        ("owner.name", "rival.name", Op.stringOps, true), ("name", "owner.buddy.name", Op.comparisons, false),
        ("owner.age", "owner.weight", Op.comparisons, false), ("owner.buddy.age", "owner.age", Op.comparisons, false),
        ("owner.address.zip", "age", Op.comparisons, false), ("owner.buddy", "rival.owner", Op.equality, false),
        ("owner.name", "owner.address.city", Op.stringOps, true), ("rival.owner", "owner", Op.equality, false),
    ]

    static func randomString(_ rng: inout SeededRandom) -> String {
        ["", "a", "b", "ab", "Ab", "ba", "abc", "B"][Int.random(in: 0..<8, using: &rng)]
    }

    static func randomNumber(_ rng: inout SeededRandom) -> TV {
        Bool.random(using: &rng) ? .int(Int64.random(in: -3...3, using: &rng)) : .double([-1.5, 0, 0.5, 2, 2.5][Int.random(in: 0..<5, using: &rng)])
    }

    static func randomPredicate(_ rng: inout SeededRandom, persons: [Int64], personClass: UInt32, depth: Int = 0) -> Pred {
        let r = Int.random(in: 0..<100, using: &rng)
        if depth < 2 && r < 20 {
            let a = randomPredicate(&rng, persons: persons, personClass: personClass, depth: depth + 1)
            let b = randomPredicate(&rng, persons: persons, personClass: personClass, depth: depth + 1)
            return r < 10 ? .and(a, b) : .or(a, b)
        }
        if depth < 2 && r < 25 { return .not(randomPredicate(&rng, persons: persons, personClass: personClass, depth: depth + 1)) }
        if r < 27 { return .always(r % 2 == 0) }
        if r < 42 {
            let (a, b, ops, strings) = pathPairs[Int.random(in: 0..<pathPairs.count, using: &rng)]
            let options = strings ? Options(c: Bool.random(using: &rng), d: false) : Options()
            return Bool.random(using: &rng) ? .paths(a, ops.randomElement(using: &rng)!, b, options)
                                            : .paths(b, ops.randomElement(using: &rng)!.mirrored, a, options)
        }
        if r < 50 {
            let path = (intPaths + doublePaths).randomElement(using: &rng)!
            var low = randomNumber(&rng), high = randomNumber(&rng)
            if Int.random(in: 0..<4, using: &rng) > 0, let l = QueryEngineTests.number(low), let h = QueryEngineTests.number(high), l > h { swap(&low, &high) }
            return .between(path, low, high)
        }
        if r < 56 {
            let path = linkPaths.randomElement(using: &rng)!
            let target: TV = Int.random(in: 0..<3, using: &rng) == 0 || path == "owner.address" ? .null : .link(personClass, persons.randomElement(using: &rng)!)
            return .value(path, Op.equality.randomElement(using: &rng)!, target, Options(), flipped: Bool.random(using: &rng), argument: true)
        }
        let numeric = Bool.random(using: &rng)
        let path = numeric ? (intPaths + doublePaths).randomElement(using: &rng)! : stringPaths.randomElement(using: &rng)!
        var options = Options()
        let op: Op
        if numeric {
            op = Op.comparisons.randomElement(using: &rng)!
        } else {
            op = (Op.stringOps + [.lt, .ge]).randomElement(using: &rng)!
            if !op.isOrdering { options.c = Bool.random(using: &rng) }
        }
        func element() -> TV {
            if Int.random(in: 0..<7, using: &rng) == 0 { return .null }
            if numeric { return randomNumber(&rng) }
            return .string(op == .like ? ["*", "a*", "?b", "*b*", "A?"][Int.random(in: 0..<5, using: &rng)] : randomString(&rng))
        }
        if r < 78 {
            var values = (0..<Int.random(in: 0...4, using: &rng)).map { _ in element() }
            // Now and then an element of a type the path never equals (realm-core lists hold mixed values).
            if Int.random(in: 0..<6, using: &rng) == 0, !values.isEmpty {
                values[0] = numeric ? .string("x") : .int(1)
            }
            let form = ListForm.allCases.randomElement(using: &rng)!
            let quantifiers: [QueryQuantifier?] = [nil, .any, .all, QueryQuantifier.none]
            if form == .inKeyword {
                let quantifier = [nil, .all, QueryQuantifier.none, .any][Int.random(in: 0..<4, using: &rng)] as QueryQuantifier?
                // IN ALL / IN NONE take a list argument, as realm-core has them; with a literal they parse too.
                return .list(path, .eq, values, op.isOrdering ? Options() : options, quantifier: quantifier, form: form)
            }
            return .list(path, op, values, options, quantifier: quantifiers.randomElement(using: &rng)!, form: form)
        }
        let value = element()
        let literal = Bool.random(using: &rng)
        return .value(path, op, value, options, flipped: Op.comparisons.contains(op) && Bool.random(using: &rng), argument: !literal)
    }

    // MARK: Building the data

    static func build(_ db: DB, _ rng: inout SeededRandom, world: inout World, persons personCount: Int, dogs dogCount: Int) throws {
        let personClass = db.cls("Person"), dogClass = db.cls("Dog")
        let personRows: [[TV]] = (0..<personCount).map { _ in
            [Int.random(in: 0..<6, using: &rng) == 0 ? .null : .string(randomString(&rng)), .int(Int64.random(in: -3...3, using: &rng)),
             Int.random(in: 0..<4, using: &rng) == 0 ? .null : .double([-1.5, 0, 0.5, 2, 2.5, 3][Int.random(in: 0..<6, using: &rng)])]
        }
        let persons = try db.createMany("Person", ["name", "age", "weight"], personRows)
        for (key, row) in zip(persons, personRows) {
            world.rows["Person"]![key] = ["name": row[0], "age": row[1], "weight": row[2], "buddy": .null, "address": .null]
        }
        for key in persons {
            if Int.random(in: 0..<4, using: &rng) > 0 {
                let buddy = persons.randomElement(using: &rng)!
                try db.set("Person", key, "buddy", .link(personClass, buddy))
                world.rows["Person"]![key]!["buddy"] = .link(personClass, buddy)
            }
            if Int.random(in: 0..<3, using: &rng) > 0 {
                let (addressClass, address) = try db.realm.createEmbedded(table: personClass, key: key, property: db.pkey("Person", "address"))
                let city: TV = Int.random(in: 0..<5, using: &rng) == 0 ? .null : .string(randomString(&rng))
                let zip: TV = Int.random(in: 0..<5, using: &rng) == 0 ? .null : .int(Int64.random(in: -3...3, using: &rng))
                try db.setMany("Address", address, [("city", city), ("zip", zip)])
                world.rows["Address"]![address] = ["city": city, "zip": zip]
                world.rows["Person"]![key]!["address"] = .link(addressClass, address)
            }
        }
        let dogRows: [[TV]] = (0..<dogCount).map { _ in
            [.string(randomString(&rng)), Int.random(in: 0..<5, using: &rng) == 0 ? .null : .int(Int64.random(in: -3...3, using: &rng))]
        }
        let dogs = try db.createMany("Dog", ["name", "age"], dogRows)
        for (key, row) in zip(dogs, dogRows) {
            world.rows["Dog"]![key] = ["name": row[0], "age": row[1], "owner": .null, "rival": .null]
        }
        for key in dogs {
            if Int.random(in: 0..<5, using: &rng) > 0 {
                let owner = persons.randomElement(using: &rng)!
                try db.set("Dog", key, "owner", .link(personClass, owner))
                world.rows["Dog"]![key]!["owner"] = .link(personClass, owner)
            }
            if Int.random(in: 0..<3, using: &rng) > 0 {
                let rival = dogs.randomElement(using: &rng)!
                try db.set("Dog", key, "rival", .link(dogClass, rival))
                world.rows["Dog"]![key]!["rival"] = .link(dogClass, rival)
            }
        }
    }

    /// Delete `key` of `className` in the model as the engine does: links to
    /// it become null, its embedded address goes with it.
    static func delete(_ className: String, _ key: Int64, from world: inout World) {
        if className == "Person", case .link(_, let address) = world.rows["Person"]![key]!["address"]! {
            world.rows["Address"]![address] = nil
        }
        world.rows[className]![key] = nil
        for (origin, _) in linkTargets.filter({ $0.value == className }) {
            let parts = origin.split(separator: ".").map(String.init)
            for (k, row) in world.rows[parts[0]]! {
                if case .link(_, let target) = row[parts[1]]!, target == key { world.rows[parts[0]]![k]![parts[1]] = .null }
            }
        }
    }

    // MARK: Tests

    func testRandomPredicatesThroughLinksMatchBruteForce() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        var rng = SeededRandom(seed: 0x6A7F)
        var world = World()
        try db.write { try Self.build(db, &rng, world: &world, persons: 420, dogs: 700) }
        // Deleting persons nulls their dogs' and buddies' links (and drops their addresses).
        try db.write {
            for key in world.rows["Person"]!.keys.sorted() where Int.random(in: 0..<10, using: &rng) == 0 {
                try db.delete("Person", key)
                Self.delete("Person", key, from: &world)
            }
        }
        let personClass = db.cls("Person")
        var nonTrivial = 0
        func check(_ count: Int, _ when: String) throws {
            let persons = world.rows["Person"]!.keys.sorted()
            for _ in 0..<count {
                let p = Self.randomPredicate(&rng, persons: persons, personClass: personClass)
                var args: [Argument] = []
                let text = Self.render(p, &args)
                let expected = world.rows["Dog"]!.keys.filter { Self.eval(p, world, $0) }.sorted()
                let results = try Self.query(db, text, args)
                let got = try results.allKeys()
                if got != expected {
                    let extra = Set(got).subtracting(expected).sorted().prefix(3)
                    let missing = Set(expected).subtracting(got).sorted().prefix(3)
                    XCTFail("\(when): \(text) \(args): got \(got.count), expected \(expected.count); extra \(Array(extra)) missing \(Array(missing))")
                    return
                }
                XCTAssertEqual(try results.count(), expected.count, text)
                if expected.count > 0 && expected.count < world.rows["Dog"]!.count { nonTrivial += 1 }
            }
        }
        try check(300, "committed")
        // Inside a write: links moved, names changed, new dogs; queried dirty.
        try db.realm.beginWrite()
        let persons = world.rows["Person"]!.keys.sorted()
        for key in world.rows["Dog"]!.keys.sorted() where Int.random(in: 0..<4, using: &rng) == 0 {
            let owner: TV = Bool.random(using: &rng) ? .null : .link(personClass, persons.randomElement(using: &rng)!)
            try db.set("Dog", key, "owner", owner)
            world.rows["Dog"]![key]!["owner"] = owner
        }
        for key in persons where Int.random(in: 0..<4, using: &rng) == 0 {
            let name: TV = .string(Self.randomString(&rng))
            try db.set("Person", key, "name", name)
            world.rows["Person"]![key]!["name"] = name
        }
        try check(150, "in a write")
        try db.realm.commitWrite()
        try check(100, "after commit")
        XCTAssertGreaterThan(nonTrivial, 250, "the predicates should mostly select proper subsets")
    }
}

// MARK: - realm-core's cases

extension GraphQueryTests {
    /// Assert that `predicate` (with `args`) matches `expected` objects of
    /// `className`, as realm-core's `verify_query` does.
    func verify(_ db: DB, _ className: String, _ cases: [(String, Int)], _ args: [Argument] = [],
                file: StaticString = #filePath, line: UInt = #line) {
        for (predicate, expected) in cases {
            do {
                let results = try Self.query(db, predicate, args, of: className)
                XCTAssertEqual(try results.count(), expected, predicate, file: file, line: line)
                XCTAssertEqual(try results.allKeys().count, expected, predicate, file: file, line: line)
            } catch {
                XCTFail("\(predicate): \(error)", file: file, line: line)
            }
        }
    }

    /// realm-core's Parser_LinksToSameTable and Parser_basic_serialisation:
    /// chains of `buddy` links, a null link reading null.
    func testRealmCoreLinksToSameTable() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [ObjectClass(name: "Person", properties: [
            prop("age", .int), prop("name", .string), prop("fees", .double, .nullable),
            Property(name: "buddy", type: .link, flags: .nullable, linkTarget: "Person"),
        ])]))
        let people = try db.write { () -> [Int64] in
            let keys = try db.createMany("Person", ["age", "name", "fees"],
                                         ["Billy", "Bob", "Joe", "Jane", "Joel"].enumerated().map { [.int(Int64($0.offset)), .string($0.element), .double([2.0, 2.23, 2.22, 2.25, 3.73][$0.offset])] })
            for i in 0..<4 { try db.set("Person", keys[i], "buddy", .link(db.cls("Person"), keys[i + 1])) }
            return keys
        }
        verify(db, "Person", [("age > 0", 4), ("buddy.age > 0", 4), ("buddy.buddy.age > 0", 3), ("buddy.buddy.buddy.age > 0", 2),
                              ("buddy.buddy.buddy.buddy.age > 0", 1), ("buddy.buddy.buddy.buddy.buddy.age > 0", 0)])
        for (predicate, words) in [("buddy.buddy.missing_property > 2", ["Person", "missing_property"])] {
            let error = expectError(.queryInvalid) { try db.query("Person", predicate) }
            for word in words { XCTAssertTrue(error?.message.contains(word) ?? false, error?.message ?? "") }
        }
        // Parser_basic_serialisation: only the first links to the second.
        try db.write { for i in 1..<4 { try db.set("Person", people[i], "buddy", .null) } }
        verify(db, "Person", [("buddy == NULL", 4), ("buddy == nil", 4), ("buddy != NULL", 1), ("buddy <> NULL", 1),
                              ("buddy.name == NULL", 4), ("buddy.age == NULL", 4), ("fees BETWEEN {2, 3}", 4),
                              ("fees BETWEEN {2.20, 2.25}", 3)])
        verify(db, "Person", [("fees BETWEEN {$0, $1}", 4)], [([.int(2)], false), ([.int(3)], false)])
        verify(db, "Person", [("fees BETWEEN {$0, $1}", 3)], [([.double(2.2)], false), ([.double(2.25)], false)])
    }

    /// realm-core's Parser_Timestamps: a null link counts as a match for null.
    func testRealmCoreNullLinksMatchNull() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [ObjectClass(name: "person", properties: [
            prop("birthday", .timestamp), prop("T399", .timestamp, .nullable), prop("T2017-12-04", .timestamp, .nullable),
            Property(name: "linked", type: .link, flags: .nullable, linkTarget: "person"),
        ])]))
        try db.write {
            let k = try db.createMany("person", ["birthday", "T399", "T2017-12-04"], [
                [.timestamp(-1, -1), .null, .timestamp(1512130073, 0)],
                [.timestamp(0, -1), .timestamp(1512130073, 0), .timestamp(1512130073, 505)],
                [.timestamp(0, 0), .timestamp(1512130073, 505), .null],
                [.timestamp(0, 0), .timestamp(1, 2), .null],
                [.timestamp(0, 0), .timestamp(0, 0), .null],
            ])
            try db.set("person", k[0], "linked", .link(db.cls("person"), k[1]))
            try db.set("person", k[2], "linked", .link(db.cls("person"), k[0]))
        }
        verify(db, "person", [
            ("T399 == NULL", 1), ("T399 != NULL", 4), ("linked.T399 == NULL", 4), ("linked != NULL && linked.T399 == NULL", 1),
            ("linked.T399 != NULL", 1), ("linked != NULL && linked.T399 != NULL", 1), ("T399 == T399:0", 0), ("linked.T399 == T399:0", 0),
            ("T2017-12-04 == NULL", 3), ("T2017-12-04 != NULL", 2), ("linked.T2017-12-04 == NULL", 3),
            ("linked != NULL && linked.T2017-12-04 == NULL", 0), ("linked.T2017-12-04 != NULL", 2),
            ("linked != NULL && linked.T2017-12-04 != NULL", 2), ("linked.T2017-12-04 == T399:0", 0),
        ])
    }

    /// realm-core's Parser_OperatorIN, the cases over values and to-one links.
    func testRealmCoreOperatorIN() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Items", properties: [prop("name", .string), prop("price", .double)]),
            ObjectClass(name: "Person", properties: [prop("customer_id", .int), prop("account_balance", .double),
                                                     Property(name: "fav_item", type: .link, flags: .nullable, linkTarget: "Items")]),
        ]))
        let person0 = try db.write { () -> Int64 in
            let items = try db.createMany("Items", ["name", "price"], [[.string("milk"), .double(5.5)], [.string("oranges"), .double(4.0)],
                                                                     [.string("pizza"), .double(9.5)], [.string("cereal"), .double(6.5)]])
            let people = try db.createMany("Person", ["customer_id", "account_balance"], (0..<3).map { [.int(Int64($0)), .double(Double($0 + 1) * 10)] })
            for i in 0..<3 { try db.set("Person", people[i], "fav_item", .link(db.cls("Items"), items[i])) }
            return people[0]
        }
        verify(db, "Person", [
            ("customer_id IN {}", 0), ("customer_id IN {0, 1, 2}", 3), ("NOT customer_id IN {0}", 2), ("customer_id != {0}", 2),
            ("customer_id != {0, 1}", 3), ("NOT customer_id IN {0, 1}", 1), ("customer_id != {0, 1, 2}", 3), ("customer_id > {0, 1}", 2),
            ("customer_id > {4, 5, 6}", 0), ("customer_id < {0, 1}", 1), ("customer_id < {0}", 0), ("customer_id >= {0, 1}", 3),
            ("customer_id >= {2, 3, 4}", 1), ("customer_id <= {0, 1}", 2), ("customer_id <= {-1}", 0),
            ("fav_item.name IN {'milk', 'oranges', 'cereal'}", 2), ("fav_item.price IN {6.5, 9.5}", 1),
            ("fav_item.name IN {0, null, -1, 'not found', 3.14, oid(000000000000000000000000)}", 0),
            ("fav_item.name != {'milk', 'oranges'}", 3), ("NOT fav_item.name IN {'milk', 'oranges'}", 1),
            ("fav_item.name contains[c] {'ILK', 'Range'}", 2), ("fav_item.name beginswith[c] {'MIL', 'CERe'}", 1),
            ("fav_item.name endswith {'lk', 'EAL', 'GeS'}", 1), ("fav_item.name endswith[c] {'lk', 'EAL', 'GeS'}", 2),
            ("fav_item.name like {'*lk', '*zz*'}", 2),
        ])
        func list(_ values: [TV]) -> [Argument] { [(values, true)] }
        let ints: [TV] = [.int(0), .int(1), .int(2)]
        for (predicate, values, expected) in [
            ("customer_id IN $0", [], 0), ("customer_id IN $0", ints, 3), ("NOT customer_id IN $0", [.int(0)], 2),
            ("customer_id != $0", [.int(0)], 2), ("customer_id != $0", [.int(0), .int(1)], 3), ("NOT customer_id IN $0", [.int(0), .int(1)], 1),
            ("customer_id != $0", ints, 3), ("customer_id > $0", [.int(0), .int(1)], 2), ("customer_id > $0", [.int(4), .int(5), .int(6)], 0),
            ("customer_id < $0", [.int(0), .int(1)], 1), ("customer_id < $0", [.int(0)], 0), ("customer_id >= $0", [.int(0), .int(1)], 3),
            ("customer_id >= $0", [.int(2), .int(3), .int(4)], 1), ("customer_id <= $0", [.int(0), .int(1)], 2), ("customer_id <= $0", [.int(-1)], 0),
            ("fav_item.name IN $0", [.string("milk"), .string("oranges"), .string("cereal")], 2), ("fav_item.price IN $0", [.double(6.5), .double(9.5)], 1),
            ("fav_item.name IN $0", [.int(0), .null, .int(-1), .string("not found"), .double(3.14), .oid(ObjectIdBytes(high: 0, low: 0))], 0),
            ("fav_item.name != $0", [.string("milk"), .string("oranges")], 3), ("NOT fav_item.name IN $0", [.string("milk"), .string("oranges")], 1),
            ("fav_item.name contains[c] $0", [.string("ILK"), .string("Range")], 2), ("fav_item.name beginswith[c] $0", [.string("MIL"), .string("CERe")], 1),
            ("fav_item.name endswith $0", [.string("lk"), .string("EAL"), .string("GeS")], 1),
            ("fav_item.name endswith[c] $0", [.string("lk"), .string("EAL"), .string("GeS")], 2),
            ("fav_item.name like $0", [.string("*lk"), .string("*zz*")], 2),
            ("customer_id IN ANY $0", ints, 3), ("customer_id IN ALL $0", ints, 0), ("customer_id IN NONE $0", ints, 0),
        ] as [(String, [TV], Int)] {
            verify(db, "Person", [(predicate, expected)], list(values))
        }
        // A list of mixed values: nothing of another type matches a string.
        let mixed: [TV] = [.string("no match"), .int(-1), .double(3.14), .uuid(UUIDBytes(high: 0, low: 0)), .oid(ObjectIdBytes(high: 7, low: 9)),
                           .timestamp(0, 0), .null, .bool(false), .float(2.6), .decimal(DecimalArithmetic.from(8)), .link(db.cls("Person"), person0)]
        verify(db, "Person", [("fav_item.name IN $0", 0), ("customer_id IN $0", 0)], list(mixed))
        // Quantifiers need a list; IN needs one on its right.
        for predicate in ["ALL customer_id IN {0, 1, 2}", "NONE customer_id IN {0, 1, 2}", "customer_id IN 5.5", "5.5 in fav_item.price",
                          "ANY fav_item.price > 1", "NONE age between {30, 37}"] {
            expectError(.queryInvalid, predicate) { try db.query("Person", predicate) }
        }
        for predicate in ["customer_id IN NONE $0", "customer_id IN ANY $0", "customer_id IN ALL $0", "customer_id IN $0"] {
            expectError(.queryArgument, predicate) { try db.query("Person", predicate, [.null]) }
        }
    }

    /// realm-core's Test_Between_OverLinks and Parser_Between (the scalar part).
    func testRealmCoreBetweenOverLinks() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Child", properties: [prop("int", .int), prop("timestamp", .timestamp)]),
            ObjectClass(name: "Parent", properties: [Property(name: "child", type: .link, flags: .nullable, linkTarget: "Child"), prop("age", .int)]),
        ]))
        try db.write {
            let children = try db.createMany("Child", ["int", "timestamp"], (0..<100).map { [.int(Int64($0)), .timestamp(Int64($0), 0)] })
            let parents = try db.createMany("Parent", ["age"], (0..<201).map { [.int(Int64($0 % 3) * 5 + 30)] })
            for (i, child) in children.enumerated() {
                try db.set("Parent", parents[2 * i], "child", .link(db.cls("Child"), child))
                try db.set("Parent", parents[2 * i + 1], "child", .link(db.cls("Child"), child))
            }
        }
        func ts(_ a: Int64, _ b: Int64) -> [Argument] { [([.timestamp(a, 0)], false), ([.timestamp(b, 0)], false)] }
        verify(db, "Child", [("int BETWEEN {0, 100}", 100), ("int BETWEEN {1, 2}", 2), ("int BETWEEN {-1, -2}", 0)])
        verify(db, "Child", [("timestamp BETWEEN {$0, $1}", 100)], ts(0, 100))
        verify(db, "Child", [("timestamp BETWEEN {$0, $1}", 2)], ts(1, 2))
        verify(db, "Child", [("timestamp BETWEEN {$0, $1}", 0)], ts(-1, -2))
        verify(db, "Parent", [("child.int BETWEEN {0, 100}", 200), ("child.int BETWEEN {1, 2}", 4), ("child.int BETWEEN {-1, -2}", 0)])
        verify(db, "Parent", [("child.timestamp BETWEEN {$0, $1}", 200)], ts(0, 100))
        verify(db, "Parent", [("child.timestamp BETWEEN {$0, $1}", 4)], ts(1, 2))
        verify(db, "Parent", [("child.timestamp BETWEEN {$0, $1}", 0)], ts(-1, -2))
        // Parser_Between: ages 30, 35, 40 in turn, 201 parents (67 of each).
        verify(db, "Parent", [("age between {30, 37}", 134)])
        expectError(.queryInvalid) { try db.query("Parent", "NONE age between {30, 37}") }
    }
}

// MARK: - Liveness and errors

extension GraphQueryTests {
    /// Results through links follow every change to what they read: the
    /// targets' values, the links, deletions, embedded objects.
    func testResultsThroughLinksStayLive() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        let person = db.cls("Person")
        let (ann, bob, rex, fido) = try db.write { () -> (Int64, Int64, Int64, Int64) in
            let p = try db.createMany("Person", ["name", "age"], [[.string("Ann"), .int(30)], [.string("Bob"), .int(40)]])
            let d = try db.createMany("Dog", ["name", "age"], [[.string("Rex"), .int(3)], [.string("Fido"), .int(50)]])
            try db.set("Dog", d[0], "owner", .link(person, p[0]))
            try db.set("Dog", d[1], "owner", .link(person, p[1]))
            return (p[0], p[1], d[0], d[1])
        }
        let byName = try db.query("Dog", "owner.name == 'Ann'")
        let olderThanOwner = try db.query("Dog", "age > owner.age")
        let inCity = try db.query("Dog", "owner.address.city BEGINSWITH 'Par'")
        let noOwnerName = try db.query("Dog", "owner.name == nil")
        XCTAssertEqual(try byName.allKeys(), [rex])
        XCTAssertEqual(try olderThanOwner.allKeys(), [fido])
        XCTAssertEqual(try inCity.allKeys(), [])
        XCTAssertEqual(try noOwnerName.allKeys(), [])

        // A write to the target's column.
        try db.write { try db.set("Person", bob, "name", .string("Ann")) }
        XCTAssertEqual(try byName.allKeys(), [rex, fido])
        // A link moved.
        try db.write { try db.set("Dog", rex, "owner", .null) }
        XCTAssertEqual(try byName.allKeys(), [fido])
        XCTAssertEqual(try noOwnerName.allKeys(), [rex])
        // The other side of a forward comparison.
        try db.write { try db.set("Person", bob, "age", .int(60)) }
        XCTAssertEqual(try olderThanOwner.count(), 0)
        try db.write { try db.set("Dog", rex, "owner", .link(person, ann)) }
        XCTAssertEqual(try olderThanOwner.count(), 0)
        try db.write { try db.set("Person", ann, "age", .int(1)) }
        XCTAssertEqual(try olderThanOwner.allKeys(), [rex])
        // An embedded object made and changed.
        let address = try db.write { () -> Int64 in
            let (_, address) = try db.realm.createEmbedded(table: person, key: bob, property: db.pkey("Person", "address"))
            return address
        }
        XCTAssertEqual(try inCity.count(), 0)
        try db.write { try db.set("Address", address, "city", .string("Paris")) }
        XCTAssertEqual(try inCity.allKeys(), [fido])
        // The target deleted: the link reads null.
        try db.write { try db.delete("Person", bob) }
        XCTAssertEqual(try byName.allKeys(), [rex])
        XCTAssertEqual(try inCity.count(), 0)
        XCTAssertEqual(try noOwnerName.allKeys(), [fido])
        // Inside a write, then cancelled.
        try db.realm.beginWrite()
        try db.set("Person", ann, "name", .null)
        XCTAssertEqual(try noOwnerName.allKeys(), [rex, fido])
        let newDog = try db.create("Dog", [("name", .string("Max")), ("owner", .link(person, ann))])
        XCTAssertEqual(try noOwnerName.allKeys(), [rex, fido, newDog])
        db.realm.cancelWrite()
        XCTAssertEqual(try noOwnerName.allKeys(), [fido])
    }

    /// Clear errors for key paths and lists the binder refuses.
    func testErrorsNameWhatIsWrong() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        let cases: [(String, [TV], FiefError.Code, [String])] = [
            ("owner.nope == 1", [], .queryInvalid, ["Person", "nope"]),
            ("owner.age.value > 2", [], .queryInvalid, ["Person.age", "not a link"]),
            ("name.length > 2", [], .queryInvalid, ["Dog.name", "not a link"]),
            ("owner.age > 'x'", [], .queryInvalid, ["Person.age"]),
            ("owner.name == $0", [.int(1)], .queryArgument, ["argument 0"]),
            ("ANY owner.age > 1", [], .queryInvalid, ["ANY", "owner.age"]),
            ("owner.age > ALL owner.age", [], .queryInvalid, ["ALL"]),
            ("owner == rival", [], .queryInvalid, ["Person", "Dog"]),
            ("owner.buddy == rival.rival", [], .queryInvalid, ["Person", "Dog"]),
            ("owner.name < owner.age", [], .queryInvalid, ["name", "age"]),
            ("owner.name > rival.age", [], .queryInvalid, ["name", "age"]),
            ("{1, 2} == {1}", [], .queryInvalid, ["values given"]),
            ("owner.age ==[c] {1, 2}", [], .queryInvalid, ["[c]"]),
            ("owner.age IN 3", [], .queryInvalid, ["IN"]),
            ("owner.age IN owner.age", [], .queryInvalid, ["IN", "owner.age"]),
            ("owner.age BETWEEN {1}", [], .querySyntax, []),
            ("owner.name BETWEEN {1, 2}", [], .queryInvalid, ["Person.name"]),
            ("owner == obj('Person', 1)", [], .queryInvalid, ["'Person' has no primary key"]),
            ("name.@type == 'string'", [], .queryInvalid, ["always 'string'"]),
        ]
        for (predicate, args, code, words) in cases {
            let error = expectError(code, predicate) { try db.query("Dog", predicate, args) }
            for word in words { XCTAssertTrue(error?.message.contains(word) ?? false, "\(predicate): \(error?.message ?? "")") }
        }
    }
}

// MARK: - realm-core's cases through collections and backlinks

extension GraphQueryTests {
    /// realm-core's Parser_LinksToDifferentTable: paths through a list of
    /// links and on through a to-one link; counts and aggregates.
    func testRealmCoreLinksToDifferentTable() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Discounts", properties: [prop("reduced_by", .double), prop("active", .bool)]),
            ObjectClass(name: "Items", properties: [prop("name", .string, .primaryKey), prop("price", .double),
                                                    Property(name: "discount", type: .link, flags: .nullable, linkTarget: "Discounts")]),
            ObjectClass(name: "Person", properties: [prop("customer_id", .int),
                                                     Property(name: "items", type: .link, linkTarget: "Items", collection: .list)]),
        ]))
        try db.write {
            let discounts = try db.createMany("Discounts", ["reduced_by", "active"], [[.double(3), .bool(false)], [.double(2.5), .bool(true)],
                                                                                    [.double(0.5), .bool(true)], [.double(1.5), .bool(true)]])
            let items = try db.createMany("Items", ["name", "price"], [[.string("milk"), .double(5.5)], [.string("oranges"), .double(4)],
                                                                     [.string("pizza"), .double(9.5)], [.string("cereal"), .double(6.5)],
                                                                     [.string("coffee"), .double(17.5)]])
            let d = db.cls("Discounts"), i = db.cls("Items")
            try db.set("Items", items[0], "discount", .link(d, discounts[2]))
            try db.set("Items", items[2], "discount", .link(d, discounts[1]))
            try db.set("Items", items[3], "discount", .link(d, discounts[0]))
            let people = try db.createMany("Person", ["customer_id"], [[.int(0)], [.int(1)], [.int(2)]])
            try db.append("Person", people[0], "items", [0, 1, 2, 3].map { .link(i, items[$0]) })
            try db.append("Person", people[1], "items", Array(repeating: .link(i, items[0]), count: 10))
            try db.append("Person", people[2], "items", [2, 2, 3].map { .link(i, items[$0]) })
        }
        verify(db, "Person", [("items.@count > 2", 3), ("items.price > 3.0", 3), ("items.name ==[c] 'milk'", 2),
                              ("items.discount.active == true", 3), ("items.discount.reduced_by > 2.0", 2),
                              ("items.@sum.price > 50", 1), ("items.@avg.price > 7", 1)])
        verify(db, "Person", [("items == $0", 2), ("$0 IN items", 2), ("ANY items != $0", 2), ("ALL items == $0", 1), ("NONE items == $0", 1)],
               [([.link(db.cls("Items"), try db.find("Items", .string("milk"))!)], false)])
        verify(db, "Person", [("items == $0", 0)], [([.link(db.cls("Items"), try db.find("Items", .string("coffee"))!)], false)])
        for (predicate, words) in [("missing_property > 2", ["Person", "missing_property"]), ("items.absent_property > 2", ["Items", "absent_property"]),
                                   ("items.discount.nonexistent_property > 2", ["Discounts", "nonexistent_property"]),
                                   ("customer_id.property > 2", ["Person", "customer_id"]), ("items.price.property > 2", ["Items", "price"]),
                                   ("items == NULL", ["null"]), ("items != NULL", ["null"]), ("items.discount == NULL", ["null"])] {
            let error = expectError(.queryInvalid, predicate) { try db.query("Person", predicate) }
            for word in words { XCTAssertTrue(error?.message.contains(word) ?? false, "\(predicate): \(error?.message ?? "")") }
        }
    }

    /// realm-core's Parser_list_of_primitive_ints: lists of values, their
    /// aggregates and quantifiers, through a link and through a list.
    func testRealmCoreListOfPrimitiveInts() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "table", properties: [Property(name: "integers", type: .int, collection: .list), prop("single_int", .int),
                                                    Property(name: "integers_nullable", type: .int, flags: .nullable, collection: .list),
                                                    prop("single_int_nullable", .int, .nullable)]),
            ObjectClass(name: "table2", properties: [Property(name: "link", type: .link, flags: .nullable, linkTarget: "table"),
                                                     Property(name: "list", type: .link, linkTarget: "table", collection: .list)]),
        ]))
        let t = try db.write { () -> [Int64] in
            let keys = try db.createMany("table", ["single_int", "single_int_nullable"], (0..<10).map { [.int(Int64($0)), .int(Int64($0))] })
            for (i, key) in keys.enumerated() {
                try db.append("table", key, "integers", [.int(Int64(i))])
                try db.append("table", key, "integers_nullable", [.int(Int64(i))])
            }
            let table = db.cls("table")
            let rows = try db.createMany("table2", [], [[], [], []])
            try db.set("table2", rows[0], "link", .link(table, keys[1]))
            try db.append("table2", rows[0], "list", [.link(table, keys[1])])
            try db.set("table2", rows[1], "link", .link(table, keys[2]))
            try db.append("table2", rows[1], "list", keys.map { .link(table, $0) })
            return keys
        }
        for i in 0..<10 {
            verify(db, "table", [("integers == \(i)", 1), ("integers.@min == \(i)", 1), ("integers.@max == \(i)", 1), ("integers.@avg == \(i)", 1),
                                 ("integers.@sum == \(i)", 1), ("ANY integers == \(i)", 1), ("SOME integers == \(i)", 1), ("ALL integers == \(i)", 1),
                                 ("NONE integers == \(i)", 9), ("!(ANY integers == \(i))", 9), ("!(SOME integers == \(i))", 9),
                                 ("!(ALL integers == \(i))", 9), ("!(NONE integers == \(i))", 1), ("ANY integers != \(i)", 9),
                                 ("SOME integers != \(i)", 9), ("ALL integers != \(i)", 9), ("NONE integers != \(i)", 1), ("\(i) IN integers", 1)])
        }
        verify(db, "table", [("integers.@count == 0", 0), ("integers.@size == 0", 0), ("integers.@count == 1", 10), ("integers.@size == 1", 10)])
        // One object with defaults, one with a null in its nullable list.
        try db.write {
            _ = try db.create("table", [])
            let nulls = try db.create("table", [])
            try db.append("table", nulls, "integers_nullable", [.null])
        }
        let n = 12
        verify(db, "table", [
            ("integers.@count == 0", 2), ("integers == NULL", 0), ("ALL integers == NULL", 2), ("NONE integers == NULL", n),
            ("integers_nullable.@count == 0", 1), ("integers_nullable == NULL", 1), ("ALL integers_nullable == NULL", 2),
            ("NONE integers_nullable == NULL", n - 1),
            ("integers == single_int", n - 2), ("integers_nullable == single_int", n - 2), ("integers == single_int_nullable", n - 2),
            ("integers_nullable == single_int_nullable", n - 1),
            ("integers.@min == single_int", n - 2), ("integers.@min == single_int_nullable", n), ("integers_nullable.@min == single_int", n - 2),
            ("integers_nullable.@min == single_int_nullable", n), ("integers.@max == single_int", n - 2), ("integers.@max == single_int_nullable", n),
            ("integers_nullable.@max == single_int", n - 2), ("integers_nullable.@max == single_int_nullable", n),
            ("integers.@sum == single_int", n), ("integers.@sum == single_int_nullable", n - 2), ("integers_nullable.@sum == single_int", n),
            ("integers_nullable.@sum == single_int_nullable", n - 2), ("integers.@avg == single_int", n - 2),
            ("integers.@avg == single_int_nullable", n), ("integers_nullable.@avg == single_int", n - 2),
            ("integers_nullable.@avg == single_int_nullable", n), ("integers.@count == single_int", 3),
            ("integers.@count == single_int_nullable", 1), ("integers_nullable.@count == single_int", 2),
            ("integers_nullable.@count == single_int_nullable", 1),
        ])
        verify(db, "table2", [
            ("link.integers == 0 || link.integers == 3", 0), ("link.integers == 1", 1), ("link.integers == 2", 1), ("link.integers == NULL", 0),
            ("link.integers_nullable == NULL", 0), ("link.integers.@count == 1", 2), ("link.integers.@count == 0", 1),
            ("link.integers.@min == 1", 1), ("link.integers.@max == 1", 1), ("link.integers.@sum == 1", 1), ("link.integers.@avg == 1", 1),
            ("list.integers == 1", 2), ("list.integers == 2", 1), ("list.integers == NULL", 0), ("list.integers.@count == 1", 2),
            ("list.integers.@min == 1", 2), ("list.integers.@max == 1", 2), ("list.integers.@avg == 1", 2), ("list.integers.@sum == 1", 2),
            ("ALL list.integers == 1", 3), ("NONE list.integers == 1", 2),
        ])
        verify(db, "table", [("integers == $0", 1)], [([.int(1)], false)])
        _ = t
        for predicate in ["integers.@min.no_property == 0", "integers == integers", "integers != integers", "integers > integers",
                          "integers < integers", "integers contains integers"] {
            expectError(.queryInvalid, predicate) { try db.query("table", predicate) }
        }
    }

    /// realm-core's Parser_ListVsList: a quantified list against a
    /// quantified list of values, the list's quantifier outside.
    func testRealmCoreListVsList() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "T", properties: [prop("id", .int, .primaryKey), Property(name: "integers", type: .int, collection: .list)]),
        ]))
        try db.write {
            let rows = try db.createMany("T", ["id"], [[.int(1)], [.int(2)]])
            try db.append("T", rows[0], "integers", [.int(1), .int(2)])
            try db.append("T", rows[1], "integers", [.int(11), .int(5), .int(9), .int(5)])
        }
        verify(db, "T", [
            ("ANY {1, 2, 3} == ALL integers", 0), ("ALL integers == ANY {2, 1, 3}", 1), ("{7, 3, 8, 0} < integers", 1),
            ("ANY {1, 2, 3} > ALL integers", 1), ("ANY {4, 8} == ANY integers", 0), ("ANY {1, 2, 3} == ANY integers", 1),
            ("ANY {1, 2, 3} == NONE integers", 2), ("ANY {1, 2, 7} <= NONE integers", 1), ("ANY {-1, 0} < NONE integers", 0),
            ("ALL {1, 2, 3} > ALL integers", 0), ("ALL {4, 8} > ALL integers", 1), ("ALL {1, 2, 12} < ANY integers", 0),
            ("ALL {4, 8} > ANY integers", 1), ("ALL {2, 5} == NONE integers", 0), ("ALL {3, 1, 4, 3} == NONE integers", 1),
            ("NONE {1, 2, 3, 12} > ALL integers", 0), ("NONE {4, 8} > ALL integers", 1), ("NONE {1, 12} > ANY integers", 0),
            ("NONE {4, 8} < ANY integers", 1), ("NONE {-1, 12} < NONE integers", 0), ("NONE {-1, 5} < NONE integers", 1),
            ("NONE {0, 1} < NONE integers", 2),
        ])
        // A list argument quantified the same way.
        verify(db, "T", [("ANY $0 > ALL integers", 1), ("ALL $0 > ANY integers", 1), ("NONE $0 == ANY integers", 2)],
               [([.int(4), .int(8)], true)])
        // Two collections of one object, with arithmetic.
        verify(db, "T", [("ALL integers * 2 > ANY integers", 2), ("ANY integers * 1 == ALL integers", 0)])
        // Two lists of values: refused, as realm-core refuses them.
        for predicate in ["ANY integers == ALL integers", "integers IN integers"] {
            XCTAssertEqual(expectError(.queryInvalid, predicate) { try db.query("T", predicate) }?.message,
                           "cannot compare two lists, sets or maps of values with each other ('integers' and 'integers'), as in realm-core: compare one with a list of values ({...}), or the values of objects reached through links ('items.price')")
        }
        XCTAssertEqual(try db.keys("T", "ANY {1, 2} IN ANY integers").count, 1)
        XCTAssertEqual(try db.query("T", "ANY {1, 2} IN ALL integers").queryDescription(), "ANY {1, 2} IN ALL integers")
    }

    /// realm-core's Parser_OperatorIN, the cases through lists and backlinks.
    func testRealmCoreOperatorINThroughLists() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Allergens", properties: [prop("name", .string), prop("population_affected", .double)]),
            ObjectClass(name: "Items", properties: [prop("name", .string), prop("price", .double),
                                                    Property(name: "allergens", type: .link, linkTarget: "Allergens", collection: .list)]),
            ObjectClass(name: "Person", properties: [prop("customer_id", .int), prop("account_balance", .double),
                                                     Property(name: "items", type: .link, linkTarget: "Items", collection: .list),
                                                     Property(name: "fav_item", type: .link, flags: .nullable, linkTarget: "Items")]),
        ]))
        try db.write {
            let a = try db.createMany("Allergens", ["name", "population_affected"], [[.string("dairy"), .double(0.75)], [.string("nuts"), .double(0.01)],
                                                                                   [.string("wheat"), .double(0.01)], [.string("soy"), .double(0.005)]])
            let items = try db.createMany("Items", ["name", "price"], [[.string("milk"), .double(5.5)], [.string("oranges"), .double(4)],
                                                                     [.string("pizza"), .double(9.5)], [.string("cereal"), .double(6.5)]])
            let ac = db.cls("Allergens"), ic = db.cls("Items")
            try db.append("Items", items[0], "allergens", [.link(ac, a[0])])
            try db.append("Items", items[2], "allergens", [0, 2, 3].map { .link(ac, a[$0]) })
            try db.append("Items", items[3], "allergens", [0, 1, 2].map { .link(ac, a[$0]) })
            let people = try db.createMany("Person", ["customer_id", "account_balance"], (0..<3).map { [.int(Int64($0)), .double(Double($0 + 1) * 10)] })
            for i in 0..<3 { try db.set("Person", people[i], "fav_item", .link(ic, items[i])) }
            try db.append("Person", people[0], "items", [0, 1, 2, 3].map { .link(ic, items[$0]) })
            try db.append("Person", people[1], "items", Array(repeating: .link(ic, items[0]), count: 10))
            try db.append("Person", people[2], "items", [2, 2, 3].map { .link(ic, items[$0]) })
        }
        verify(db, "Person", [
            ("'dairy' in items.allergens.name", 3), ("5.5 IN items.price", 2), ("!(5.5 IN items.price)", 1), ("'milk' IN items.name", 2),
            ("'MiLk' IN[c] items.name", 2), ("NULL IN items.price", 0), ("'dairy' IN fav_item.allergens.name", 2),
            ("fav_item.price IN items.price", 2),
            ("ANY items.name contains[c] ANY {'A', 'B'}", 2), ("ALL items.name contains[c] {'A', 'B'}", 1),
            ("ALL items.name contains[c] NONE {'A', 'B'}", 1), ("NONE items.name contains[c] {'A', 'B'}", 1),
            ("NONE items.name contains[c] ALL {'A', 'L'}", 1), ("ANY items.name contains[c] NONE {'A', 'B'}", 2),
            ("ANY items.name contains[c] ALL {'A', 'B'}", 0),
            // Neither side quantified: the values in order, element by element.
            ("{5.5, 4.0, 9.5, 6.5} == items.price", 1), ("{5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5} == items.price", 1),
            ("{9.5, 9.5, 6.5} == items.price", 1), ("{5.5, 4.0} IN items.price", 0), ("{} == items.price", 0), ("!{} == items.price", 3),
            ("{} != items.price", 3), ("{5.5, 4.0, 9.5, 6.5} != items.price", 2),
            ("{5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5} != items.price", 2), ("{9.5, 9.5, 6.5} != items.price", 2),
            ("{null} != items.price", 3), ("{5.5, 9.5, 4.0, 6.5} == items.price", 0), ("{9.5, 9.5, 6.5, 6.5} == items.price", 0),
            ("items.name == {'milk', 'oranges', 'pizza', 'cereal'}", 1), ("items.name == {'MILk', 'ORanges', 'piZZA', 'CeReAl'}", 0),
            ("NOT items.name == {'milk', 'oranges', 'pizza', 'cereal'}", 2), ("items.name ==[c] {'MILk', 'ORanges', 'piZZA', 'CeReAl'}", 1),
            ("items.name contains[c] {'ilk', 'range', 'zza', 'cer'}", 1), ("items.name != {'milk', 'oranges', 'pizza', 'cereal'}", 2),
            ("items.name != {'asdf', 'sdf', 'asdf', 'asdf'}", 3), ("items.name != {}", 3), ("items.name != {'pizza', 'pizza', 'cereal'}", 2),
            ("{5.6, 4.1, 9.6, 6.6} > items.price", 1),
            // A quantified list against the collection: the list's quantifier outside (ANY when not written).
            ("ANY {5.5, 4.0} IN ANY items.price", 2), ("ALL {5.5, 4.0} IN items.price", 1), ("ALL {5.5} IN items.price", 2),
            ("NONE {5.5, 4.0} IN items.price", 1), ("NONE {5.5, 4.0} IN ALL items.price", 2), ("ANY {5.5, 4.0} IN ALL items.price", 1),
            ("ANY {5.5, 4.0} IN NONE items.price", 2), ("!(ANY {5.5, 4.0} IN ANY items.price)", 1), ("ALL {5.5, 4.0} IN NONE items.price", 1),
            ("ALL {5.5, 4.0, 9.5, 6.5} IN ALL items.price", 0), ("ALL {5.5, 5.5} IN ALL items.price", 1),
            ("ALL {6.0, 6.1, 1.1} <= ALL items.price", 1), ("NONE {5.5, 4.0, 9.5, 6.5} IN ANY items.price", 0),
            ("NONE {5.5, 4.0, 9.5, 6.5} IN ALL items.price", 2), ("NONE {5.5, 4.0} IN NONE items.price", 1),
            // The empty list, and one element.
            ("{} IN items.price", 0), ("{ } IN ALL items.price", 0), ("{   } IN NONE items.price", 0), ("ALL {} IN ALL items.price", 3),
            ("ALL { } IN NONE items.price", 3), ("ALL { } IN ANY items.price", 3), ("NONE {   } IN ALL items.price", 3),
            ("NONE {} IN ANY items.price", 3),
            ("ANY {6.5} IN ANY items.price", 2), ("{6.5} IN ANY items.price", 2), ("{6.5} IN ALL items.price", 0),
            ("{6.5} IN NONE items.price", 1), ("ALL {6.5} IN ALL items.price", 0), ("ALL {6.5} IN NONE items.price", 1),
            ("ALL {6.5} IN ANY items.price", 2), ("NONE {6.5} IN ALL items.price", 3), ("NONE {6.5} IN ANY items.price", 1),
            ("ANY {0, 1, 2, 3, 5, 6, 7, 8, 9} == ANY items.price", 0),
            // A collection against a collection: the left's quantifier outside.
            ("items.price IN items.price", 3), ("ALL items.price IN ALL items.price", 1), ("ALL items.price IN ANY items.price", 3),
            ("NONE items.price IN ANY items.price", 0), ("items.price * 2 > items.price", 3), ("ALL items.price * 2 > ALL items.price", 2),
            ("ALL items.price * 2 > ANY items.price", 3), ("NONE items.price * 2 > ANY items.price", 0),
            ("ANY items.name == ANY fav_item.allergens.name", 0), ("ANY items.allergens.name == ALL fav_item.allergens.name", 2),
        ])
        // Operators on a list: each element's result, the list's quantifier kept.
        verify(db, "Person", [
            ("ALL {8, 10} / 2 >= ANY items.price", 1), ("NONE {1, 2, 3} * 20 <= ANY items.price", 3),
            ("ANY {1, 2, 3, 4, 5, 6} + 2 == ANY items.price", 1),
            // More: a list argument, an element order kept, a list against one value, negation, null elements.
            ("{2.75, 2.0, 4.75, 3.25} * 2 == items.price", 1), ("customer_id IN {1, 3} - 1", 2), ("-{0, -2} == customer_id", 2),
            ("{null, 2} * 2 == customer_id", 0), ("{null, 1} + 1 == customer_id", 1), ("ANY {2, 4} / 2 == customer_id", 2),
            ("ALL {2, 4} / 2 < customer_id", 0), ("account_balance == {1, 2} * 10", 2),
        ])
        verify(db, "Person", [("ALL $0 / 2 >= ANY items.price", 1), ("customer_id == $0 - $1", 2)],
               [([.int(8), .int(10)], true), ([.int(8)], false)])
        // realm-core refuses two lists in one expression.
        for (predicate, message) in [
            ("{1, 2, 3, 4, 5, 6} * {1, 2, 3} == items.price", "Realm's query language does not allow arithmetic combining two lists of values ('{1, 2, 3, 4, 5, 6} * {1, 2, 3}'): one list ({...} or a list argument) at most"),
            ("{1, 2} * items.price == 2", "Realm's query language does not allow arithmetic combining two collections or lists of values ('{1, 2} * items.price'): realm-core refuses operations involving two lists"),
            ("{'a', 'b'} + 1 == customer_id", "arithmetic takes numbers; a constant is a string value"),
        ] {
            XCTAssertEqual(expectError(.queryInvalid, predicate) { try db.query("Person", predicate) }?.message, message, predicate)
        }
        for predicate in ["{8, 10}.@size >= ANY items.price", "{8, 10}.@max >= ANY items.price", "{8, 10}.@min >= ANY items.price",
                          "{8, 10}.@avg >= ANY items.price", "{8, 10}.length >= ANY items.price"] {
            expectError(.querySyntax, predicate) { try db.query("Person", predicate) }
        }
        // A quantifier before one value is a syntax error, as in realm-core.
        for predicate in ["ANY 5.5 IN items.price", "SOME 5.5 IN items.price", "ALL 5.5 IN items.price", "NONE 5.5 IN items.price"] {
            expectError(.querySyntax, predicate) { try db.query("Person", predicate) }
        }
        verify(db, "Items", [("20 IN @links.Person.items.account_balance", 1)])
        expectError(.queryInvalid) { try db.query("Person", "5.5 in fav_item.price") }
    }

    /// realm-core's Parser_Backlinks and Parser_BacklinkCount.
    func testRealmCoreBacklinks() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Items", properties: [prop("name", .string), prop("price", .double)]),
            ObjectClass(name: "Person", properties: [prop("customer_id", .int), prop("name", .string), prop("account_balance", .double),
                                                     Property(name: "items", type: .link, linkTarget: "Items", collection: .list),
                                                     Property(name: "fav item", type: .link, flags: .nullable, linkTarget: "Items")]),
        ]))
        try db.write {
            let items = try db.createMany("Items", ["name", "price"], [[.string("milk"), .double(5.5)], [.string("oranges"), .double(4)],
                                                                     [.string("pizza"), .double(9.5)], [.string("cereal"), .double(6.5)],
                                                                     [.string("bread"), .double(3.5)]])
            let ic = db.cls("Items")
            let people = try db.createMany("Person", ["customer_id", "name", "account_balance"],
                                           [[.int(0), .string("Adam"), .double(10)], [.int(1), .string("James"), .double(20)], [.int(2), .string("John"), .double(30)]])
            for i in 0..<3 { try db.set("Person", people[i], "fav item", .link(ic, items[i])) }
            try db.append("Person", people[0], "items", [0, 1, 2, 3].map { .link(ic, items[$0]) })
            try db.append("Person", people[1], "items", Array(repeating: .link(ic, items[0]), count: 10))
            try db.append("Person", people[2], "items", [2, 2, 3].map { .link(ic, items[$0]) })
        }
        verify(db, "Items", [
            ("@links.Person.fav\\ item.account_balance > 20", 1), ("@links.Person.items.account_balance > 20", 2),
            ("@links.Person.items.name LIKE[c] 'j*'", 3), ("@links.Person.items.name BEGINSWITH 'J'", 3),
            ("@links.Person.items.@count > 2", 2), ("@links.Person.items.@size > 2", 2),
            ("@links.Person.items.@min.account_balance <= 10", 4), ("@links.Person.items.@max.account_balance > 10", 3),
            ("@links.Person.items.@sum.account_balance > 20", 3), ("@links.Person.items.@avg.account_balance > 20", 1),
        ])
        verify(db, "Person", [("fav\\ item.@links.Person.fav\\ item.@count > 1", 0), ("fav\\ item.@links.Person.items.@count > 1 ", 2)])
        for predicate in ["@links.Person.items == NULL", "@links.Person.fav\\ item == NULL", "@links.Factory.items > 0", "@links.Person.artifacts > 0"] {
            expectError(.queryInvalid, predicate) { try db.query("Items", predicate) }
        }
    }

    /// (realm-core names the link to itself `self`, which this parser reads
    /// as the element of a collection of values: here it is `me`.)
    func testRealmCoreBacklinkCount() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Items", properties: [prop("item_id", .int), Property(name: "me", type: .link, flags: .nullable, linkTarget: "Items"),
                                                    prop("double_col", .double)]),
            ObjectClass(name: "Person", properties: [prop("customer_id", .int), Property(name: "items", type: .link, linkTarget: "Items", collection: .list),
                                                     Property(name: "fav_item", type: .link, flags: .nullable, linkTarget: "Items"), prop("float_col", .float)]),
        ]))
        try db.write {
            let ids: [Int64] = [5, 2, 12, 14, 20]
            let items = try db.createMany("Items", ["item_id", "double_col"], ids.enumerated().map { [.int($0.element), .double(Double($0.offset) + 0.5)] })
            let ic = db.cls("Items")
            for i in 0..<4 { try db.set("Items", items[i], "me", .link(ic, items[i])) }
            let people = try db.createMany("Person", ["customer_id", "float_col"], (0..<3).map { [.int(Int64($0)), .float(Float($0) + 0.5)] })
            for i in 0..<3 { try db.set("Person", people[i], "fav_item", .link(ic, items[2 - i])) }
            try db.append("Person", people[0], "items", [0, 1, 2].map { .link(ic, items[$0]) })
            try db.append("Person", people[1], "items", Array(repeating: .link(ic, items[0]), count: 10))
            try db.append("Person", people[2], "items", [2, 2].map { .link(ic, items[$0]) })
        }
        verify(db, "Items", [
            ("@links.@count == 0", 1), ("@links.@count == 0 && item_id == 20", 1), ("@links.@count == 1", 1),
            ("@links.@count == 1 && item_id == 14", 1), ("@links.@count == 5", 1), ("@links.@count == 5 && item_id == 12", 1),
            ("@links.@count == 3", 1), ("@links.@count == 3 && item_id == 2", 1), ("@links.@count == 13", 1),
            ("@links.@count == 13 && item_id == 5", 1), ("@links.@size == 0", 1), ("@links.@size == 0 && item_id == 20", 1),
            ("@links.Items.me.@links.@count == 1 && item_id == 14", 1), ("@links.Person.items.@links.@count == 0", 5),
            ("@links.Person.fav_item.items.@links.@count == 130 && item_id == 2", 1),
            ("@links.Person.fav_item.fav_item.@links.@count == 3 && item_id == 2", 1),
            ("@links.@count >= item_id", 2), ("@links.@count >= @links.Person.fav_item.customer_id", 3), ("@links.@count == 0.0", 1),
            ("@links.@count >= double_col", 3), ("@links.@count >= @links.Person.fav_item.float_col", 3), ("@links.@count >= me.@count", 5),
            ("@links.@count == @links.Person.fav_item.@count", 1), ("@links.@count == @links.Person.items.@count", 1),
            ("@links.@count == @links.Items.me.@count", 2),
        ])
        verify(db, "Person", [
            ("fav_item.@links.@count == 5 && fav_item.item_id == 12", 1), ("fav_item.@links.@count == 3 && fav_item.item_id == 2", 1),
            ("fav_item.@links.@count == 13 && fav_item.item_id == 5", 1), ("items.@links.@count == 21 && customer_id == 0", 1),
            ("items.@links.@count == 130 && customer_id == 1", 1), ("items.@links.@count == 10 && customer_id == 2", 1),
            ("items.@count >= fav_item.@links.@count", 1),
        ])
        for predicate in ["@links.@count == 'string'", "@links.@count == 2018-04-09@14:21:0", "@links.@count.item_id == 0",
                          "@links.@avg == 1", "@links.@sum == 1", "@links.@min == 1", "@links.@max == 1", "@links.@avg.item_id == 1"] {
            XCTAssertThrowsError(try db.query("Items", predicate), predicate)
        }
    }

    /// realm-core's Parser_collection_aggregates.
    func testRealmCoreCollectionAggregates() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Course", properties: [prop("title", .string), prop("credits", .double), prop("hours_required", .int),
                                                     prop("failure_percentage", .float), prop("start_date", .timestamp)]),
            ObjectClass(name: "Person", properties: [prop("age", .int), prop("name", .string),
                                                     Property(name: "courses_taken", type: .link, linkTarget: "Course", collection: .list),
                                                     prop("hash", .binary)]),
        ]))
        try db.write {
            let people = try db.createMany("Person", ["name", "age", "hash"], [("Billy", 18), ("Bob", 17), ("Joe", 19), ("Jane", 20), ("Joel", 18)].enumerated().map {
                [.string($0.element.0), .int($0.element.1), .binary(Array(repeating: UInt8(ascii: "a"), count: $0.offset))]
            })
            let courses = try db.createMany("Course", ["title", "credits", "hours_required", "failure_percentage", "start_date"], [
                [.string("Math"), .double(5), .int(42), .float(0.36), .timestamp(10, 0)], [.string("Comp Sci"), .double(4.5), .int(45), .float(0.25), .timestamp(11, 0)],
                [.string("Chemistry"), .double(4), .int(41), .float(0.40), .timestamp(12, 0)], [.string("English"), .double(3.5), .int(40), .float(0.07), .timestamp(13, 0)],
                [.string("Physics"), .double(4.5), .int(42), .float(0.42), .timestamp(14, 0)],
            ])
            let c = db.cls("Course")
            try db.append("Person", people[0], "courses_taken", [0, 1, 4].map { .link(c, courses[$0]) })
            try db.append("Person", people[1], "courses_taken", [0, 1, 1].map { .link(c, courses[$0]) })
            try db.append("Person", people[2], "courses_taken", [.link(c, courses[3])])
            try db.append("Person", people[3], "courses_taken", [2, 4].map { .link(c, courses[$0]) })
        }
        verify(db, "Person", [
            ("courses_taken.@min.hours_required <= 41", 2), ("courses_taken.@max.hours_required >= 45", 2),
            ("courses_taken.@sum.hours_required <= 100", 3), ("courses_taken.@avg.hours_required > 41", 3),
            ("courses_taken.@min.credits == 4.5", 2), ("courses_taken.@max.credits == 5.0", 2), ("courses_taken.@sum.credits > 8.6", 2),
            ("courses_taken.@avg.credits > 4.0", 3), ("courses_taken.@min.failure_percentage < 0.10", 1),
            ("courses_taken.@max.failure_percentage > 0.40", 2), ("courses_taken.@sum.failure_percentage > 0.5", 3),
            ("courses_taken.@avg.failure_percentage > 0.40", 1), ("courses_taken.@min.start_date < T12:0", 2),
            ("courses_taken.@max.start_date > T12:0", 3), ("courses_taken.@count > 2", 2), ("courses_taken.@size > 2", 2),
            ("courses_taken.@count == 0", 1), ("courses_taken.@size == 0", 1), ("name.@count == 0", 0), ("name.@size == 0", 0),
            ("name.@count > 3", 3), ("name.@size > 3", 3), ("hash.@count == 0", 1), ("hash.@size == 0", 1), ("hash.@count > 2", 2),
            ("hash.@size > 2", 2),
        ])
        for predicate in ["courses_taken.@min.title <= 41", "courses_taken.@max.title <= 41", "courses_taken.@sum.title <= 41",
                          "courses_taken.@avg.title <= 41", "courses_taken.@min <= 41", "courses_taken.@max <= 41", "courses_taken.@sum <= 41",
                          "courses_taken.@avg <= 41", "name.@min.hours_required <= 41", "name.@sum.hours_required <= 41",
                          "name.@count.hours_required <= 2", "age.@size <= 2"] {
            XCTAssertThrowsError(try db.query("Person", predicate), predicate)
        }
        let error = expectError(.queryInvalid) { try db.query("Person", "name.@min.hours_required <= 41") }
        XCTAssertTrue((error?.message.contains("list") ?? false) && (error?.message.contains("name") ?? false), error?.message ?? "")
        for predicate in ["credits.@size == 2", "failure_percentage.@size <= 2"] {
            XCTAssertThrowsError(try db.query("Course", predicate), predicate)
        }
    }
}

// MARK: - Random predicates through collections

extension GraphQueryTests {
    /// Person {name?, age, scores [int?], tags {string}, ratings [string:
    /// double?], dogs [Dog], pets {Dog}, kennel [string: Dog], friend →
    /// Person}, Dog {name, age?, owner → Person, tricks [string]}.
    static func townSchema() -> Schema {
        Schema(classes: [
            ObjectClass(name: "Person", properties: [
                prop("name", .string, .nullable), prop("age", .int),
                Property(name: "scores", type: .int, flags: .nullable, collection: .list),
                Property(name: "tags", type: .string, collection: .set),
                Property(name: "ratings", type: .double, flags: .nullable, collection: .map),
                Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
                Property(name: "pets", type: .link, linkTarget: "Dog", collection: .set),
                Property(name: "kennel", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map),
                Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Person"),
            ]),
            ObjectClass(name: "Dog", properties: [
                prop("name", .string), prop("age", .int, .nullable),
                Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person"),
                Property(name: "tricks", type: .string, collection: .list),
            ]),
        ])
    }

    struct Town {
        struct Person {
            var name: TV, age: Int64, scores: [TV] = [], tags: Set<String> = [], ratings: [String: TV] = [:]
            var dogs: [Int64] = [], pets: Set<Int64> = [], kennel: [String: Int64?] = [:], friend: Int64?
        }
        struct Dog { var name: String, age: TV, owner: Int64?, tricks: [String] = [] }
        var persons: [Int64: Person] = [:]
        var dogs: [Int64: Dog] = [:]

        /// The links seen from their targets, as of the last `reindex()`.
        private var owned: [Int64: [Int64]] = [:]
        private var befriended: [Int64: [Int64]] = [:]
        private var dogLinks: [Int64: Int64] = [:]

        /// Index the links by target (after the town changed).
        mutating func reindex() {
            owned = [:]
            befriended = [:]
            dogLinks = [:]
            // In key order, as backlinks are.
            for (k, dog) in dogs.sorted(by: { $0.key < $1.key }) { if let owner = dog.owner { owned[owner, default: []].append(k) } }
            for (k, person) in persons.sorted(by: { $0.key < $1.key }) {
                if let friend = person.friend { befriended[friend, default: []].append(k) }
                for d in person.dogs { dogLinks[d, default: 0] += 1 }
                for d in person.pets { dogLinks[d, default: 0] += 1 }
                for case let d? in person.kennel.values { dogLinks[d, default: 0] += 1 }
            }
        }

        func ownedDogs(_ p: Int64) -> [Int64] { owned[p] ?? [] }
        func befriending(_ p: Int64) -> [Int64] { befriended[p] ?? [] }
        /// The dogs of `p`'s kennel, in key order (as a map's values are).
        func kennelDogs(_ p: Int64) -> [Int64] { persons[p]!.kennel.sorted { $0.key < $1.key }.compactMap { $0.value } }
        /// Every link to dog `d` (a list listing it twice counts twice).
        func links(toDog d: Int64) -> Int64 { dogLinks[d] ?? 0 }
        mutating func delete(dog d: Int64) {
            dogs[d] = nil
            for k in persons.keys {
                persons[k]!.dogs.removeAll { $0 == d }
                persons[k]!.pets.remove(d)
                for (name, value) in persons[k]!.kennel where value == d { persons[k]!.kennel[name] = .some(nil) }
            }
        }
        mutating func delete(person p: Int64) {
            persons[p] = nil
            for k in dogs.keys where dogs[k]!.owner == p { dogs[k]!.owner = nil }
            for k in persons.keys where persons[k]!.friend == p { persons[k]!.friend = nil }
        }
    }

    enum ValueKind: Sendable { case number, string, dog }

    /// What a key path gives per person: one value, values (quantified as
    /// one list), or one list of values per object reached.
    enum Shape: @unchecked Sendable {
        case single((Town, Int64) -> TV)
        case flat((Town, Int64) -> [TV])
        case perObject((Town, Int64) -> [[TV]])
    }

    struct PathSpec: Sendable {
        let text: String
        let kind: ValueKind
        let shape: Shape
        var isMany: Bool { if case .single = shape { return false }; return true }
        var isPerObject: Bool { if case .perObject = shape { return true }; return false }
    }

    static func aggregate(_ values: [TV], _ op: String) -> TV {
        let numbers = values.compactMap { QueryEngineTests.number($0) }
        switch op {
        case "min": return numbers.min().map { .int(Int64($0)) } ?? .null
        case "max": return numbers.max().map { .int(Int64($0)) } ?? .null
        case "sum": return .int(Int64(numbers.reduce(0, +)))
        default: return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        }
    }

    static let townPaths: [PathSpec] = {
        func person(_ t: Town, _ k: Int64) -> Town.Person { t.persons[k]! }
        func ages(_ t: Town, _ dogs: [Int64]) -> [TV] { dogs.map { t.dogs[$0]!.age } }
        func intValue(_ n: Int) -> TV { .int(Int64(n)) }
        return [
            PathSpec(text: "age", kind: .number, shape: .single { t, k in .int(person(t, k).age) }),
            PathSpec(text: "friend.age", kind: .number, shape: .single { t, k in person(t, k).friend.map { .int(t.persons[$0]!.age) } ?? .null }),
            PathSpec(text: "dogs.@count", kind: .number, shape: .single { t, k in intValue(person(t, k).dogs.count) }),
            PathSpec(text: "scores.@count", kind: .number, shape: .single { t, k in intValue(person(t, k).scores.count) }),
            PathSpec(text: "tags.@size", kind: .number, shape: .single { t, k in intValue(person(t, k).tags.count) }),
            PathSpec(text: "ratings.@count", kind: .number, shape: .single { t, k in intValue(person(t, k).ratings.count) }),
            PathSpec(text: "friend.dogs.@count", kind: .number, shape: .single { t, k in intValue(person(t, k).friend.map { t.persons[$0]!.dogs.count } ?? 0) }),
            PathSpec(text: "scores.@min", kind: .number, shape: .single { t, k in aggregate(person(t, k).scores, "min") }),
            PathSpec(text: "scores.@max", kind: .number, shape: .single { t, k in aggregate(person(t, k).scores, "max") }),
            PathSpec(text: "scores.@sum", kind: .number, shape: .single { t, k in aggregate(person(t, k).scores, "sum") }),
            PathSpec(text: "scores.@avg", kind: .number, shape: .single { t, k in aggregate(person(t, k).scores, "avg") }),
            PathSpec(text: "dogs.@sum.age", kind: .number, shape: .single { t, k in aggregate(ages(t, person(t, k).dogs), "sum") }),
            PathSpec(text: "dogs.@max.age", kind: .number, shape: .single { t, k in aggregate(ages(t, person(t, k).dogs), "max") }),
            PathSpec(text: "pets.@min.age", kind: .number, shape: .single { t, k in aggregate(ages(t, Array(person(t, k).pets)), "min") }),
            PathSpec(text: "kennel.@avg.age", kind: .number, shape: .single { t, k in aggregate(ages(t, t.kennelDogs(k)), "avg") }),
            PathSpec(text: "@links.Dog.owner.@count", kind: .number, shape: .single { t, k in intValue(t.ownedDogs(k).count) }),
            PathSpec(text: "@links.@count", kind: .number, shape: .single { t, k in intValue(t.ownedDogs(k).count + t.befriending(k).count) }),
            PathSpec(text: "@links.Dog.owner.@sum.age", kind: .number, shape: .single { t, k in aggregate(ages(t, t.ownedDogs(k)), "sum") }),
            PathSpec(text: "name.@size", kind: .number, shape: .single { t, k in
                if case .string(let s) = person(t, k).name { return intValue(s.utf8.count) }; return .int(0) }),
            PathSpec(text: "dogs.@links.@count", kind: .number, shape: .single { t, k in .int(person(t, k).dogs.reduce(0) { $0 + t.links(toDog: $1) }) }),
            PathSpec(text: "dogs.age", kind: .number, shape: .flat { t, k in ages(t, person(t, k).dogs) }),
            PathSpec(text: "dogs.name", kind: .string, shape: .flat { t, k in person(t, k).dogs.map { .string(t.dogs[$0]!.name) } }),
            PathSpec(text: "pets.age", kind: .number, shape: .flat { t, k in ages(t, person(t, k).pets.sorted()) }),
            PathSpec(text: "kennel.@values.age", kind: .number, shape: .flat { t, k in ages(t, t.kennelDogs(k)) }),
            PathSpec(text: "kennel.home.age", kind: .number, shape: .single { t, k in
                if case .some(.some(let dog)) = person(t, k).kennel["home"] { return t.dogs[dog]!.age }; return .null }),
            PathSpec(text: "ratings.x", kind: .number, shape: .single { t, k in person(t, k).ratings["x"] ?? .null }),
            PathSpec(text: "ratings['y']", kind: .number, shape: .single { t, k in person(t, k).ratings["y"] ?? .null }),
            PathSpec(text: "scores[0]", kind: .number, shape: .single { t, k in person(t, k).scores.first ?? .null }),
            PathSpec(text: "scores[LAST]", kind: .number, shape: .single { t, k in person(t, k).scores.last ?? .null }),
            PathSpec(text: "dogs[FIRST].age", kind: .number, shape: .single { t, k in person(t, k).dogs.first.map { t.dogs[$0]!.age } ?? .null }),
            PathSpec(text: "friend.dogs[1].name", kind: .string, shape: .single { t, k in
                guard let f = person(t, k).friend, t.persons[f]!.dogs.count > 1 else { return .null }
                return .string(t.dogs[t.persons[f]!.dogs[1]]!.name) }),
            PathSpec(text: "ratings.@keys", kind: .string, shape: .flat { t, k in person(t, k).ratings.keys.sorted().map { .string($0) } }),
            PathSpec(text: "friend.dogs.age", kind: .number, shape: .flat { t, k in person(t, k).friend.map { ages(t, t.persons[$0]!.dogs) } ?? [] }),
            PathSpec(text: "dogs.owner.age", kind: .number, shape: .flat { t, k in
                person(t, k).dogs.compactMap { t.dogs[$0]!.owner }.map { .int(t.persons[$0]!.age) } }),
            PathSpec(text: "@links.Dog.owner.age", kind: .number, shape: .flat { t, k in ages(t, t.ownedDogs(k)) }),
            PathSpec(text: "@links.Dog.owner.name", kind: .string, shape: .flat { t, k in t.ownedDogs(k).map { .string(t.dogs[$0]!.name) } }),
            PathSpec(text: "@links.Person.friend.age", kind: .number, shape: .flat { t, k in t.befriending(k).map { .int(t.persons[$0]!.age) } }),
            PathSpec(text: "scores", kind: .number, shape: .flat { t, k in person(t, k).scores }),
            PathSpec(text: "tags", kind: .string, shape: .flat { t, k in person(t, k).tags.sorted().map { .string($0) } }),
            PathSpec(text: "ratings", kind: .number, shape: .flat { t, k in person(t, k).ratings.sorted { $0.key < $1.key }.map(\.value) }),
            PathSpec(text: "friend.scores", kind: .number, shape: .flat { t, k in person(t, k).friend.map { t.persons[$0]!.scores } ?? [] }),
            PathSpec(text: "dogs.tricks.@count", kind: .number, shape: .flat { t, k in person(t, k).dogs.map { intValue(t.dogs[$0]!.tricks.count) } }),
            PathSpec(text: "dogs.tricks", kind: .string, shape: .perObject { t, k in person(t, k).dogs.map { t.dogs[$0]!.tricks.map { .string($0) } } }),
            PathSpec(text: "@links.Person.friend.scores", kind: .number, shape: .perObject { t, k in t.befriending(k).map { t.persons[$0]!.scores } }),
            PathSpec(text: "dogs", kind: .dog, shape: .flat { t, k in person(t, k).dogs.map { .int($0) } }),
            PathSpec(text: "pets", kind: .dog, shape: .flat { t, k in person(t, k).pets.sorted().map { .int($0) } }),
            // A map of links holds null values too (realm-core compares them).
            PathSpec(text: "kennel.@values", kind: .dog, shape: .flat { t, k in
                person(t, k).kennel.sorted { $0.key < $1.key }.map { $0.value.map { .int($0) } ?? .null } }),
            PathSpec(text: "@links.Dog.owner", kind: .dog, shape: .flat { t, k in t.ownedDogs(k).map { .int($0) } }),
            PathSpec(text: "friend.dogs", kind: .dog, shape: .flat { t, k in person(t, k).friend.map { t.persons[$0]!.dogs.map { .int($0) } } ?? [] }),
        ]
    }()

    /// Every value of a many-valued path for person `k`, in order.
    static func ordered(_ path: PathSpec, _ town: Town, _ k: Int64) -> [TV] {
        switch path.shape {
        case .single(let value): return [value(town, k)]
        case .flat(let values): return values(town, k)
        case .perObject(let lists): return lists(town, k).flatMap { $0 }
        }
    }

    /// A path's quantified test for person `k`, as realm-core answers it.
    static func holds(_ path: PathSpec, _ quantifier: QueryQuantifier?, _ town: Town, _ k: Int64, _ test: (TV) -> Bool) -> Bool {
        switch path.shape {
        case .single(let value): return test(value(town, k))
        case .flat(let values):
            let vs = values(town, k)
            switch quantifier ?? .any {
            case .any: return vs.contains(where: test)
            case .all: return vs.allSatisfy(test)
            case .none: return !vs.contains(where: test)
            }
        case .perObject(let lists):
            let ls = lists(town, k)
            switch quantifier ?? .any {
            case .any: return ls.contains { $0.contains(where: test) }
            case .all: return ls.isEmpty || ls.contains { $0.allSatisfy(test) }
            case .none: return ls.isEmpty || ls.contains { !$0.contains(where: test) }
            }
        }
    }

    indirect enum TownPred {
        case always(Bool)
        /// Q path op value
        case value(PathSpec, QueryQuantifier?, Op, TV, Options)
        /// Q path op Q2 {values}
        case list(PathSpec, QueryQuantifier?, Op, [TV], QueryQuantifier?, Options)
        /// value IN path
        case member(TV, PathSpec)
        /// Q many op single, or single op single
        case pair(PathSpec, QueryQuantifier?, Op, PathSpec)
        /// Q path BETWEEN {low, high}
        case between(PathSpec, QueryQuantifier?, TV, TV)
        case and(TownPred, TownPred), or(TownPred, TownPred), not(TownPred)
    }

    static func eval(_ p: TownPred, _ town: Town, _ k: Int64) -> Bool {
        switch p {
        case .always(let b): return b
        case .value(let path, let q, let op, let c, let o):
            return holds(path, q, town, k) { compareConstant($0, op, c, o) }
        case .list(let path, let q, let op, let values, let q2, let o):
            if path.isMany && q == nil && q2 == nil {
                // Neither side quantified: the values in order, element by element.
                let all = ordered(path, town, k)
                let pairOp: Op = op == .ne ? .eq : op
                let equal = all.count == values.count && zip(all, values).allSatisfy { compareConstant($0, pairOp, $1, o) }
                return op == .ne ? !equal : equal
            }
            return holds(path, q, town, k) { v in
                switch q2 ?? .any {
                case .any: return values.contains { compareConstant(v, op, $0, o) }
                case .all: return values.allSatisfy { compareConstant(v, op, $0, o) }
                case .none: return !values.contains { compareConstant(v, op, $0, o) }
                }
            }
        case .member(let c, let path): return holds(path, nil, town, k) { compare($0, .eq, c, Options()) }
        case .pair(let a, let q, let op, let b):
            guard case .single(let value) = b.shape else { return false }
            let other = value(town, k)
            return holds(a, q, town, k) { compare($0, op, other, Options()) }
        case .between(let path, let q, let low, let high):
            return holds(path, q, town, k) { compare($0, .ge, low, Options()) && compare($0, .le, high, Options()) }
        case .and(let x, let y): return eval(x, town, k) && eval(y, town, k)
        case .or(let x, let y): return eval(x, town, k) || eval(y, town, k)
        case .not(let x): return !eval(x, town, k)
        }
    }

    /// Text and arguments; dog keys travel as link arguments.
    static func render(_ p: TownPred, _ args: inout [Argument], dogClass: UInt32) -> String {
        func q(_ quantifier: QueryQuantifier?) -> String { quantifier.map { QueryBinder.spelling($0) + " " } ?? "" }
        func text(_ v: TV, _ kind: ValueKind) -> String {
            if kind == .dog, case .int(let key) = v { args.append(([.link(dogClass, key)], false)); return "$\(args.count - 1)" }
            return QueryEngineTests.literal(v)
        }
        switch p {
        case .always(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .value(let path, let quantifier, let op, let c, let o): return "\(q(quantifier))\(path.text) \(op.text)\(o.text) \(text(c, path.kind))"
        case .list(let path, let quantifier, let op, let values, let q2, let o):
            return "\(q(quantifier))\(path.text) \(op.text)\(o.text) \(q(q2)){\(values.map { text($0, path.kind) }.joined(separator: ", "))}"
        case .member(let c, let path): return "\(text(c, path.kind)) IN \(path.text)"
        case .pair(let a, let quantifier, let op, let b): return "\(q(quantifier))\(a.text) \(op.text) \(b.text)"
        case .between(let path, let quantifier, let low, let high):
            return "\(q(quantifier))\(path.text) BETWEEN {\(QueryEngineTests.literal(low)), \(QueryEngineTests.literal(high))}"
        case .and(let x, let y): return "(\(render(x, &args, dogClass: dogClass)) AND \(render(y, &args, dogClass: dogClass)))"
        case .or(let x, let y): return "(\(render(x, &args, dogClass: dogClass)) OR \(render(y, &args, dogClass: dogClass)))"
        case .not(let x): return "NOT \(render(x, &args, dogClass: dogClass))"
        }
    }

    static let trickWords = ["sit", "roll", "beg", "", "Sit"]

    static func randomTownPredicate(_ rng: inout SeededRandom, dogs: [Int64], depth: Int = 0) -> TownPred {
        let r = Int.random(in: 0..<100, using: &rng)
        if depth < 2 && r < 16 {
            let a = randomTownPredicate(&rng, dogs: dogs, depth: depth + 1), b = randomTownPredicate(&rng, dogs: dogs, depth: depth + 1)
            return r < 8 ? .and(a, b) : .or(a, b)
        }
        if depth < 2 && r < 20 { return .not(randomTownPredicate(&rng, dogs: dogs, depth: depth + 1)) }
        if r < 21 { return .always(r % 2 == 0) }
        let quantifiers: [QueryQuantifier?] = [nil, .any, .all, QueryQuantifier.none]
        func value(_ kind: ValueKind) -> TV {
            switch kind {
            case .number:
                if Int.random(in: 0..<8, using: &rng) == 0 { return .null }
                return Bool.random(using: &rng) ? .int(Int64.random(in: -1...4, using: &rng)) : .double([0.5, 1.5, 2.5][Int.random(in: 0..<3, using: &rng)])
            case .string:
                return .string((trickWords + ["a", "B", "ab"]).randomElement(using: &rng)!)
            case .dog:
                return .int(dogs.randomElement(using: &rng)!)
            }
        }
        let singles = townPaths.filter { !$0.isMany }
        if r < 32 {
            // Two operands: single with single, many (quantified) with single.
            let b = singles.filter { $0.kind == .number }.randomElement(using: &rng)!
            let a = townPaths.filter { $0.kind == .number && !$0.isPerObject }.randomElement(using: &rng)!
            return .pair(a, a.isMany ? quantifiers.randomElement(using: &rng)! : nil, Op.comparisons.randomElement(using: &rng)!, b)
        }
        let path = townPaths.randomElement(using: &rng)!
        let quantifier = path.isMany ? quantifiers.randomElement(using: &rng)! : nil
        if path.kind == .dog {
            // Null: in a list, or alone against a map of links (only it holds null).
            func dog(alone: Bool) -> TV {
                (!alone || path.text == "kennel.@values") && Int.random(in: 0..<5, using: &rng) == 0 ? .null : value(.dog)
            }
            let op: Op = Int.random(in: 0..<4, using: &rng) == 0 ? .ne : .eq
            if op == .eq && Int.random(in: 0..<3, using: &rng) == 0 { return .member(dog(alone: true), path) }
            if op == .eq && Int.random(in: 0..<4, using: &rng) == 0 {
                return .list(path, quantifier, .eq, (0..<Int.random(in: 1...3, using: &rng)).map { _ in dog(alone: false) }, .any, Options())
            }
            return .value(path, quantifier, op, dog(alone: true), Options())
        }
        if r < 40, path.kind == .number, !path.isPerObject {
            if path.isMany && quantifier != .all { return .member(value(.number), path) }
            return .between(path, path.isMany ? .all : nil, value(.number), value(.number))
        }
        var options = Options()
        let op: Op
        if path.kind == .number {
            op = Op.comparisons.randomElement(using: &rng)!
        } else {
            op = (Op.stringOps + [.lt, .ge]).randomElement(using: &rng)!
            if !op.isOrdering { options.c = Bool.random(using: &rng) }
        }
        if r < 60 {
            let values = (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(path.kind) }
            return .list(path, quantifier, op, values, quantifiers.randomElement(using: &rng)!, options)
        }
        return .value(path, quantifier, op, value(path.kind), options)
    }

    static func buildTown(_ db: DB, _ rng: inout SeededRandom, _ town: inout Town, persons: Int, dogs dogCount: Int) throws {
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        let people = try db.createMany("Person", ["name", "age"], (0..<persons).map { _ in
            [Int.random(in: 0..<5, using: &rng) == 0 ? .null : .string(["Al", "Bea", "Cy", "", "Dora"].randomElement(using: &rng)!),
             .int(Int64.random(in: -1...4, using: &rng))]
        })
        for k in people {
            guard case .string(let s)? = Optional(try db.get("Person", k, "name")) ?? nil else {
                town.persons[k] = Town.Person(name: .null, age: 0)
                continue
            }
            town.persons[k] = Town.Person(name: .string(s), age: 0)
        }
        for k in people { if case .int(let age) = try db.get("Person", k, "age") { town.persons[k]!.age = age } }
        let dogs = try db.createMany("Dog", ["name", "age"], (0..<dogCount).map { _ in
            [.string(["Rex", "Fido", "Max", "rex"].randomElement(using: &rng)!), Int.random(in: 0..<5, using: &rng) == 0 ? .null : .int(Int64.random(in: -1...4, using: &rng))]
        })
        for k in dogs {
            guard case .string(let name) = try db.get("Dog", k, "name") else { continue }
            town.dogs[k] = Town.Dog(name: name, age: try db.get("Dog", k, "age"), owner: nil)
            if Int.random(in: 0..<5, using: &rng) > 0 {
                let owner = people.randomElement(using: &rng)!
                try db.set("Dog", k, "owner", .link(personClass, owner))
                town.dogs[k]!.owner = owner
            }
            let tricks = (0..<Int.random(in: 0...3, using: &rng)).map { _ in trickWords.randomElement(using: &rng)! }
            try db.append("Dog", k, "tricks", tricks.map { .string($0) })
            town.dogs[k]!.tricks = tricks
        }
        for k in people {
            let scores: [TV] = (0..<Int.random(in: 0...4, using: &rng)).map { _ in Int.random(in: 0..<6, using: &rng) == 0 ? .null : .int(Int64.random(in: -1...3, using: &rng)) }
            try db.append("Person", k, "scores", scores)
            town.persons[k]!.scores = scores
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let tag = ["a", "b", "ab", "B"].randomElement(using: &rng)!
                try db.setInsert("Person", k, "tags", .string(tag))
                town.persons[k]!.tags.insert(tag)
            }
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let key = ["w", "x", "y", "z"].randomElement(using: &rng)!
                let rating: TV = Int.random(in: 0..<5, using: &rng) == 0 ? .null : .double([0.5, 1.5, 2.5, -1][Int.random(in: 0..<4, using: &rng)])
                try db.mapSet("Person", k, "ratings", key, rating)
                town.persons[k]!.ratings[key] = rating
            }
            let listed = (0..<Int.random(in: 0...4, using: &rng)).map { _ in dogs.randomElement(using: &rng)! }
            try db.append("Person", k, "dogs", listed.map { .link(dogClass, $0) })
            town.persons[k]!.dogs = listed
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let pet = dogs.randomElement(using: &rng)!
                try db.setInsert("Person", k, "pets", .link(dogClass, pet))
                town.persons[k]!.pets.insert(pet)
            }
            for _ in 0..<Int.random(in: 0...2, using: &rng) {
                let key = ["home", "work"].randomElement(using: &rng)!
                let dog: Int64? = Int.random(in: 0..<4, using: &rng) == 0 ? nil : dogs.randomElement(using: &rng)!
                try db.mapSet("Person", k, "kennel", key, dog.map { .link(dogClass, $0) } ?? .null)
                town.persons[k]!.kennel[key] = .some(dog)
            }
            if Int.random(in: 0..<3, using: &rng) > 0 {
                let friend = people.randomElement(using: &rng)!
                try db.set("Person", k, "friend", .link(personClass, friend))
                town.persons[k]!.friend = friend
            }
        }
    }

    func testRandomPredicatesThroughCollectionsMatchBruteForce() throws {
        let db = try DB.open(tempDir().file(), Self.townSchema())
        var rng = SeededRandom(seed: 0xC011)
        var town = Town()
        try db.write { try Self.buildTown(db, &rng, &town, persons: 300, dogs: 400) }
        // Deleted dogs leave every list, set and map; deleted persons every link.
        try db.write {
            for k in town.dogs.keys.sorted() where Int.random(in: 0..<12, using: &rng) == 0 {
                try db.delete("Dog", k)
                town.delete(dog: k)
            }
            for k in town.persons.keys.sorted() where Int.random(in: 0..<15, using: &rng) == 0 {
                try db.delete("Person", k)
                town.delete(person: k)
            }
        }
        let dogClass = db.cls("Dog")
        var nonTrivial = 0
        func check(_ count: Int, _ when: String) throws {
            town.reindex()
            let dogs = town.dogs.keys.sorted()
            for _ in 0..<count {
                let p = Self.randomTownPredicate(&rng, dogs: dogs)
                var args: [Argument] = []
                let text = Self.render(p, &args, dogClass: dogClass)
                let expected = town.persons.keys.filter { Self.eval(p, town, $0) }.sorted()
                let got: [Int64]
                do {
                    got = try Self.query(db, text, args, of: "Person").allKeys()
                } catch {
                    XCTFail("\(when): \(text): \(error)")
                    continue
                }
                if got != expected {
                    let extra = Set(got).subtracting(expected).sorted().prefix(3)
                    let missing = Set(expected).subtracting(got).sorted().prefix(3)
                    XCTFail("\(when): \(text) \(args): got \(got.count), expected \(expected.count); extra \(Array(extra)) missing \(Array(missing))")
                    continue
                }
                if expected.count > 0 && expected.count < town.persons.count { nonTrivial += 1 }
            }
        }
        try check(400, "committed")
        try db.realm.beginWrite()
        for k in town.persons.keys.sorted() where Int.random(in: 0..<5, using: &rng) == 0 {
            let extra = dogs(&rng, town)
            try db.append("Person", k, "dogs", extra.map { .link(dogClass, $0) })
            town.persons[k]!.dogs += extra
            let score: TV = .int(Int64.random(in: -1...3, using: &rng))
            try db.append("Person", k, "scores", [score])
            town.persons[k]!.scores.append(score)
        }
        for k in town.dogs.keys.sorted() where Int.random(in: 0..<6, using: &rng) == 0 {
            let age: TV = .int(Int64.random(in: -1...4, using: &rng))
            try db.set("Dog", k, "age", age)
            town.dogs[k]!.age = age
        }
        try check(150, "in a write")
        try db.realm.commitWrite()
        try check(100, "after commit")
        XCTAssertGreaterThan(nonTrivial, 300, "the predicates should mostly select proper subsets")
    }

    private func dogs(_ rng: inout SeededRandom, _ town: Town) -> [Int64] {
        let keys = town.dogs.keys.sorted()
        return (0..<Int.random(in: 1...2, using: &rng)).map { _ in keys.randomElement(using: &rng)! }
    }
}

// MARK: - SUBQUERY

extension GraphQueryTests {
    /// realm-core's Parser_Subquery.
    func testRealmCoreSubquery() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Discounts", properties: [prop("promotion", .string, .nullable), prop("reduced_by", .double), prop("active", .bool)]),
            ObjectClass(name: "Allergens", properties: [prop("name", .string), prop("population_affected", .double)]),
            ObjectClass(name: "Items", properties: [prop("name", .string), prop("price", .double),
                                                    Property(name: "discount", type: .link, flags: .nullable, linkTarget: "Discounts"),
                                                    Property(name: "allergens", type: .link, linkTarget: "Allergens", collection: .list)]),
            ObjectClass(name: "Person", properties: [prop("customer_id", .int), prop("account_balance", .double),
                                                     Property(name: "items", type: .link, linkTarget: "Items", collection: .list),
                                                     Property(name: "fav_item", type: .link, flags: .nullable, linkTarget: "Items")]),
        ]))
        try db.write {
            let discounts = try db.createMany("Discounts", ["promotion", "reduced_by", "active"], [
                [.string("back to school"), .double(3), .bool(false)], [.string("pizza lunch special"), .double(2.5), .bool(true)],
                [.string("manager's special"), .double(0.5), .bool(true)], [.null, .double(1.5), .bool(true)]])
            let allergens = try db.createMany("Allergens", ["name", "population_affected"], [
                [.string("dairy"), .double(0.75)], [.string("nuts"), .double(0.01)], [.string("wheat"), .double(0.01)], [.string("soy"), .double(0.005)]])
            let items = try db.createMany("Items", ["name", "price"], [[.string("milk"), .double(5.5)], [.string("oranges"), .double(4)],
                                                                     [.string("pizza"), .double(9.5)], [.string("cereal"), .double(6.5)]])
            let d = db.cls("Discounts"), a = db.cls("Allergens"), i = db.cls("Items")
            try db.set("Items", items[0], "discount", .link(d, discounts[2]))
            try db.append("Items", items[0], "allergens", [.link(a, allergens[0])])
            try db.set("Items", items[2], "discount", .link(d, discounts[1]))
            try db.append("Items", items[2], "allergens", [0, 2, 3].map { .link(a, allergens[$0]) })
            try db.set("Items", items[3], "discount", .link(d, discounts[0]))
            try db.append("Items", items[3], "allergens", [0, 1, 2].map { .link(a, allergens[$0]) })
            let people = try db.createMany("Person", ["customer_id", "account_balance"], (0..<3).map { [.int(Int64($0)), .double(Double($0 + 1) * 10)] })
            for n in 0..<3 { try db.set("Person", people[n], "fav_item", .link(i, items[n])) }
            try db.append("Person", people[0], "items", [0, 1, 2, 3].map { .link(i, items[$0]) })
            try db.append("Person", people[1], "items", Array(repeating: .link(i, items[0]), count: 10))
            try db.append("Person", people[2], "items", [2, 2, 3].map { .link(i, items[$0]) })
        }
        verify(db, "Person", [
            ("SUBQUERY(items, $x, $x.name CONTAINS 'a' && $x.price > 5.0 && $x.discount.reduced_by > 0.5 && $x.allergens.@count > 1).@count > 1", 2),
            ("SUBQUERY(items, $x, TRUEPREDICATE).@count > 0", 3), ("!SUBQUERY(items, $x, TRUEPREDICATE).@count > 0", 0),
            ("SUBQUERY(items, $x, !TRUEPREDICATE).@count > 0", 0), ("SUBQUERY(items, $x, FALSEPREDICATE).@count == 0", 3),
            ("!SUBQUERY(items, $x, FALSEPREDICATE).@count == 0", 0), ("SUBQUERY(items, $x, !FALSEPREDICATE).@count == 0", 0),
            ("SUBQUERY(items, $x, 5.5 == $x.price ).@count > 0", 2), ("SUBQUERY(items, $x, $x.name CONTAINS[c] 'MILK').@count >= 1", 2),
            ("SUBQUERY(items, $x, $x.name CONTAINS[c] 'MILK' && $x.price == 5.5).@count >= 1", 2),
            ("SUBQUERY(items, $x, $x.name CONTAINS[c] 'MILK' || $x.price >= 5.5).@count >= 1", 3),
            ("SUBQUERY(items, $anyNAME_-0123456789, 5.5 == $anyNAME_-0123456789.price ).@count > 0", 2),
            ("SUBQUERY(items, $x, $x.name.@size == 4).@count > 0", 2), ("SUBQUERY(items, $x, $x.allergens.@count > 1).@count > 0", 2),
            ("SUBQUERY(items, $x, $x.allergens.@min.population_affected < 0.10).@count > 0", 2),
            ("SUBQUERY(items, $x, $x.allergens.@max.population_affected > 0.50).@count > 0", 3),
            ("SUBQUERY(items, $x, $x.allergens.@sum.population_affected > 0.75).@count > 0", 2),
            ("SUBQUERY(items, $x, $x.allergens.@avg.population_affected > 0.50).@count > 0", 2),
            ("SUBQUERY(items, $x, $x.discount.promotion CONTAINS[c] $x.name).@count > 0", 2),
            ("SUBQUERY(items, $x, $x.discount.promotion CONTAINS[c] $x.name).@count < account_balance", 3),
            ("SUBQUERY(fav_item.allergens, $x, $x.name CONTAINS[c] 'dairy').@count > 0", 2),
            ("SUBQUERY(items, $x, SUBQUERY($x.allergens, $allergy, $allergy.name CONTAINS[c] 'dairy').@count > 0).@count > 0", 3),
            // Counted with the list's repeats: Bob lists milk ten times.
            ("SUBQUERY(items, $x, $x.name == 'milk').@count == 10", 1), ("SUBQUERY(items, $x, $x.price > 9).@count == 2", 1),
        ])
        verify(db, "Items", [("SUBQUERY(@links.Person.items, $p, $p.account_balance >= 20).@count > 2", 1)])
        for predicate in ["SUBQUERY(items, $x.y, 5.5 == $x.y.price ).@count > 0", "SUBQUERY(items, x, 5.5 == x.y.price ).@count > 0",
                          "SUBQUERY(items, $x, SUBQUERY($x.discount.@links.Items.discount, $x, $x.price > 5).@count > 0).@count > 0",
                          "SUBQUERY(account_balance, $x, TRUEPREDICATE).@count > 0", "SUBQUERY(fav_item, $x, TRUEPREDICATE).@count > 0",
                          "SUBQUERY(items, $x, $x.price > account_balance).@count > 0"] {
            XCTAssertThrowsError(try db.query("Person", predicate), predicate)
        }
        let error = expectError(.queryInvalid) { try db.query("Person", "SUBQUERY(account_balance, $x, TRUEPREDICATE).@count > 0") }
        XCTAssertTrue(error?.message.contains("SUBQUERY takes a list, set or map of objects") ?? false, error?.message ?? "")
    }
}

// MARK: - Keys and positions

extension GraphQueryTests {
    /// realm-core's Parser_Dictionary (but for '@type' and ordered lists).
    func testRealmCoreDictionary() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "foo", properties: [Property(name: "dict", type: .mixed, flags: .nullable, collection: .map)]),
            ObjectClass(name: "origin", properties: [Property(name: "link", type: .link, flags: .nullable, linkTarget: "foo"),
                                                     Property(name: "links", type: .link, linkTarget: "foo", collection: .list)]),
        ]))
        var expected = 0
        let foos = try db.write { () -> [Int64] in
            let foos = try db.createMany("foo", [], Array(repeating: [], count: 100))
            for (i, key) in foos.enumerated() {
                var increment = false
                if i % 4 == 0 {
                    try db.mapSet("foo", key, "dict", "Value", .int(Int64(i)))
                    if i > 50 { increment = true }
                } else if i % 10 == 0 {
                    try db.mapSet("foo", key, "dict", "Value", .int(100))
                    increment = true
                }
                if i % 3 != 0 {
                    try db.mapSet("foo", key, "dict", "Value", .int(3))
                    increment = false
                }
                if i % 5 == 0 { try db.mapSet("foo", key, "dict", "Foo", .int(5)) }
                if i == 78 { try db.mapSet("foo", key, "dict", "Value", .null) }
                try db.mapSet("foo", key, "dict", "Bar", .int(Int64(i)))
                if increment { expected += 1 }
            }
            let f = db.cls("foo")
            for i in 0..<10 {
                let origin = try db.create("origin", [("link", .link(f, foos[i * 10]))])
                try db.append("origin", origin, "links", (0..<10).map { .link(f, foos[i * 10 + $0]) })
            }
            return foos
        }
        verify(db, "foo", [
            ("dict.@values > 50", 50), ("dict[*] > 50", 50), ("dict['Value'] > 50", expected), ("dict.Value > 50", expected),
            ("ANY dict.@keys == 'Foo'", 20), ("NONE dict.@keys == 'Value'", 22), ("ANY dict.@keys == {'Bar'}", 100),
            ("dict.@keys == {'Bar'}", 19), ("dict.@keys == {'Bar', 'Foo'}", 3),
            ("dict['Value'] == NULL", 23), ("dict['Value'] == {}", 0), ("dict['Value'] == {0, 100}", 3),
            ("dict.@size == 3", 17), ("dict.@max == 100", 2), ("dict.@min < 2", 2), ("dict.@sum >= 100", 9), ("dict.@avg < 10", 16),
        ])
        verify(db, "foo", [("dict[$0] > 50", expected)], [([.string("Value")], false)])
        verify(db, "origin", [
            ("link.dict['Value'] > 50", 3), ("link.dict.Value > 50", 3), ("links.dict['Value'] > 50", 5), ("links.dict > 50", 6),
            ("links.dict['Value'] == NULL", 10), ("links.dict.@max == 100", 2), ("link.dict.@max == 100", 2),
        ])
        try db.write { try db.mapSet("foo", foos[0], "dict", "some extra", .int(42)) }
        verify(db, "foo", [("dict['some extra'] == 42", 1)])
        try db.write { try db.mapSet("foo", foos[0], "dict", "Value", .double(4.5)) }
        verify(db, "foo", [("dict.@max == 100", 2), ("dict.@min < 2", 2), ("dict.@sum >= 100", 9), ("dict.@avg < 10", 15)])
        try db.write { try db.mapSet("foo", foos[0], "dict", "Bar", .timestamp(1234, 5678)) }
        verify(db, "foo", [("dict.@max == 100", 2), ("dict.@min < 2", 1), ("dict.@sum >= 100", 9), ("dict.@avg < 10", 15)])
        for predicate in ["dict[FIRST] > 50", "dict[LAST] > 50", "dict[0] > 50"] {
            expectError(.queryInvalid, predicate) { try db.query("foo", predicate) }
        }
        expectError(.queryArgument) { try db.query("foo", "dict[$0] > 50", [.int(1)]) }
    }

    /// realm-core's Parser_CollectionLinks, and [FIRST] / [LAST] from its
    /// Parser_AggregateShortcuts.
    func testRealmCoreCollectionLinks() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [ObjectClass(name: "person", properties: [
            prop("name", .string, .primaryKey),
            Property(name: "relations", type: .link, flags: .nullable, linkTarget: "person", collection: .map),
            Property(name: "children", type: .link, linkTarget: "person", collection: .list),
            Property(name: "scores", type: .int, collection: .list),
            Property(name: "spouse", type: .link, flags: .nullable, linkTarget: "person"),
        ])]))
        try db.write {
            let k = try db.createMany("person", ["name"], ["adam", "bernie", "charlie", "david", "elisabeth", "felix", "gary", "hutch"].map { [.string($0)] })
            let (adam, bernie, charlie, david, gary, hutch) = (k[0], k[1], k[2], k[3], k[6], k[7])
            let p = db.cls("person")
            try db.mapSet("person", adam, "relations", "partner", .link(p, bernie))
            try db.mapSet("person", adam, "relations", "colleague", .link(p, charlie))
            try db.mapSet("person", bernie, "relations", "partner", .link(p, charlie))
            try db.mapSet("person", bernie, "relations", "colleague", .link(p, charlie))
            try db.append("person", bernie, "scores", [.int(1), .int(2), .int(3)])
            try db.mapSet("person", charlie, "relations", "partner", .link(p, adam))
            try db.mapSet("person", charlie, "relations", "colleague", .link(p, bernie))
            try db.mapSet("person", charlie, "relations", "uncle", .link(p, gary))
            try db.append("person", charlie, "scores", [.int(3), .int(4), .int(5)])
            try db.append("person", adam, "children", [.link(p, david)])
            try db.append("person", david, "children", [.link(p, gary), .link(p, hutch)])
            try db.append("person", bernie, "children", [.link(p, gary), .link(p, david)])
        }
        verify(db, "person", [
            ("relations.partner.name == 'bernie'", 1), ("relations[SIZE] == 3", 1), ("relations.partner.relations.partner.name == 'bernie'", 1),
            ("relations.colleague.name == 'charlie'", 2), ("relations.colleague.scores[FIRST] == 1", 1), ("relations.colleague.scores[LAST] > 2", 3),
            ("children[FIRST].name == 'david'", 1), ("children[*].name == 'david'", 2), ("children[SIZE] == 2", 2),
            ("children[FIRST].children[LAST].name == 'hutch'", 1),
            // More of the same: positions from arguments, past the end, values at positions.
            ("children[1].name == 'david'", 1), ("children[2].name == nil", 8), ("scores[0] == 3", 1), ("scores[LAST] >= 3", 2),
            ("scores[5] == nil", 8), ("relations['uncle'].name BEGINSWITH 'g'", 1), ("relations.@keys == 'uncle'", 1),
            ("relations.@values.name == 'adam'", 1), ("ANY relations.@keys BEGINSWITH 'c'", 3),
        ])
        verify(db, "person", [("children[$0].name == 'david'", 1)], [([.int(1)], false)])
        expectError(.queryInvalid) { try db.query("person", "spouse[5].name == 'elisabeth'") }
    }
}

// MARK: - obj('Class', pk)

extension GraphQueryTests {
    /// realm-core's Parser_PrimaryKey and Parser_DictionaryObjects (null
    /// among the values of a map of links, compared with a list holding
    /// null), and `items = obj(...)` from Parser_LinksToDifferentTable.
    func testRealmCoreObjectsByPrimaryKey() throws {
        let u1 = TV.uuid(bytes: [0x3b, 0x24, 0x11, 0x01, 0xe2, 0xbb, 0x42, 0x55, 0x8c, 0xaf, 0x41, 0x36, 0xc5, 0x66, 0xa9, 0x61])
        let o1 = TV.oid(bytes: Array(1...12))
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Int", properties: [prop("_id", .int, .primaryKey)]),
            ObjectClass(name: "String", properties: [prop("_id", .string, .primaryKey)]),
            ObjectClass(name: "Oid", properties: [prop("_id", .objectId, .primaryKey)]),
            ObjectClass(name: "Uuid", properties: [prop("_id", .uuid, .primaryKey)]),
            ObjectClass(name: "origin", properties: [
                Property(name: "int", type: .link, flags: .nullable, linkTarget: "Int"), Property(name: "string", type: .link, flags: .nullable, linkTarget: "String"),
                Property(name: "oid", type: .link, flags: .nullable, linkTarget: "Oid"), Property(name: "uuid", type: .link, flags: .nullable, linkTarget: "Uuid"),
                prop("mixed", .mixed, .nullable)]),
            ObjectClass(name: "linking", properties: [Property(name: "link", type: .link, flags: .nullable, linkTarget: "origin")]),
        ]))
        try db.write {
            for (className, property, pk) in [("Int", "int", TV.int(1)), ("String", "string", .string("first")), ("Oid", "oid", o1), ("Uuid", "uuid", u1)] {
                let target = try db.create(className, [("_id", pk)])
                let origin = try db.create("origin", [(property, .link(db.cls(className), target)), ("mixed", .link(db.cls(className), target))])
                _ = try db.create("linking", [("link", .link(db.cls("origin"), origin))])
            }
        }
        verify(db, "origin", [
            ("int == obj(\"class_Int\",1)", 1), ("obj(\"class_Int\",1) == int", 1), ("mixed == obj(\"class_Int\",1)", 1),
            ("string == obj(\"class_String\",\"first\")", 1), ("oid == obj(\"class_Oid\",oid(0102030405060708090a0b0c))", 1),
            ("uuid == obj(\"class_Uuid\",uuid(3b241101-e2bb-4255-8caf-4136c566a961))", 1), ("int == obj('Int', 2)", 0), ("int != obj('Int', 2)", 4),
            ("int IN {obj('Int', 1), obj('Int', 2)}", 1),
        ])
        verify(db, "linking", [
            ("link.int == obj(\"class_Int\",1)", 1), ("link.mixed == obj(\"class_Int\",1)", 1), ("link.string == obj(\"class_String\",\"first\")", 1),
            ("link.oid == obj(\"class_Oid\",oid(0102030405060708090a0b0c))", 1), ("link.uuid == obj(\"class_Uuid\",uuid(3b241101-e2bb-4255-8caf-4136c566a961))", 1),
        ])
        for (predicate, code) in [("int == obj('Nope', 1)", FiefError.Code.queryInvalid), ("int == obj('origin', 1)", .queryInvalid),
                                  ("int == obj('Int', 'one')", .queryInvalid), ("int == obj('String', 'first')", .queryInvalid)] {
            expectError(code, predicate) { try db.query("origin", predicate) }
        }
        expectError(.queryArgument) { try db.query("origin", "int == obj('Int', $0)", [.string("one")]) }

        let pets = try DB.open(tempDir().file("pets.fief"), Schema(classes: [
            ObjectClass(name: "dog", properties: [prop("name", .string, .primaryKey), prop("age", .int)]),
            ObjectClass(name: "person", properties: [prop("name", .string, .primaryKey),
                                                     Property(name: "pets", type: .link, flags: .nullable, linkTarget: "dog", collection: .map),
                                                     Property(name: "friend", type: .link, flags: .nullable, linkTarget: "person"),
                                                     Property(name: "walks", type: .link, linkTarget: "dog", collection: .list)]),
        ]))
        try pets.write {
            let p = try pets.createMany("person", ["name"], [[.string("adam")], [.string("bernie")], [.string("charlie")]])
            let d = try pets.createMany("dog", ["name", "age"], [[.string("astro"), .int(4)], [.string("pluto"), .int(5)], [.string("lady"), .int(5)], [.string("snoopy"), .int(3)]])
            let dc = pets.cls("dog")
            try pets.mapSet("person", p[0], "pets", "dog1", .link(dc, d[1]))
            try pets.mapSet("person", p[0], "pets", "dog2", .link(dc, d[2]))
            try pets.mapSet("person", p[0], "pets", "none", .null)
            try pets.mapSet("person", p[1], "pets", "dog1", .link(dc, d[0]))
            try pets.mapSet("person", p[1], "pets", "dog2", .link(dc, d[3]))
            try pets.mapSet("person", p[2], "pets", "dog1", .link(dc, d[1]))
            try pets.set("person", p[0], "friend", .link(pets.cls("person"), p[1]))
            try pets.set("person", p[1], "friend", .link(pets.cls("person"), p[0]))
            try pets.append("person", p[0], "walks", [.link(dc, d[0])])
        }
        verify(pets, "person", [
            ("pets.@values.age > 4", 2), ("friend.pets.@values.age > 4", 1), ("pets.@values == obj('dog', 'pluto')", 2),
            ("pets.@values != obj('dog', 'pluto')", 2), ("pets.@values == ANY { obj('dog', 'lady'), obj('dog', 'astro') }", 2),
            ("pets.dog2 == obj('dog', 'snoopy') || pets['dog1'].name == 'pluto'", 3),
        ])
        verify(pets, "person", [("pets.@values == obj('dog', $0)", 2)], [([.string("pluto")], false)])
        // A map of links may hold null (adam's "none"): null in a list compared with it, or alone.
        verify(pets, "person", [
            ("pets.@values == ANY { obj('dog', 'astro'), NULL }", 2), ("pets.@values == NULL", 1), ("pets == nil", 1), ("nil IN pets", 1),
            ("pets.@values != NULL", 3), ("ALL pets.@values != NULL", 2), ("NONE pets.@values == NULL", 2), ("ALL pets.@values == NULL", 0),
            ("{obj('dog', 'pluto'), nil} == ANY pets", 2), ("ANY {obj('dog', 'pluto'), nil} == ANY pets", 2), ("ALL {obj('dog', 'pluto'), nil} == ANY pets", 1),
            ("NONE {obj('dog', 'snoopy'), nil} == ANY pets", 1),
            ("ALL pets.@values == ANY {obj('dog', 'pluto'), obj('dog', 'lady'), nil}", 2), ("ALL pets.@values == ANY {obj('dog', 'pluto'), obj('dog', 'lady')}", 1),
            ("pets.@values != obj('dog', 'pluto')", 2), ("ALL pets.@values != obj('dog', 'pluto')", 1), ("NONE pets.@values == obj('dog', 'pluto')", 1),
            ("friend.pets.@values == nil", 1), ("friend.pets == nil || pets == nil", 2),
            // A list of links holds no null: null in a list compared with it equals nothing.
            ("{obj('dog', 'astro'), nil} == ANY walks", 1), ("walks == ANY {nil, obj('dog', 'astro')}", 1), ("ALL {nil} == ANY walks", 0),
        ])
        verify(pets, "person", [("pets.@values == $0", 1), ("pets.@values == ANY $1", 2)], [([.null], false), ([.null, .link(pets.cls("dog"), try XCTUnwrap(pets.find("dog", .string("astro"))))], true)])
        // As realm-core: a null alone compared with a list of links or backlinks is refused.
        for (className, predicate) in [("person", "walks == nil"), ("person", "nil == ANY walks"), ("person", "ALL walks != NULL"), ("dog", "@links.person.walks == NULL")] {
            let error = expectError(.queryInvalid, predicate) { try pets.query(className, predicate) }
            XCTAssertTrue(error?.message.contains("holds no null") ?? false, error?.message ?? "")
        }
        expectError(.queryArgument) { try pets.query("person", "walks == $0", [.null]) }
    }
}

// MARK: - @type

extension GraphQueryTests {
    /// realm-core's Parser_TypeOfValue (but for two collections compared
    /// with each other).
    func testRealmCoreTypeOfValue() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Foo", properties: [prop("mixed", .mixed, .nullable), prop("int", .int),
                                                  Property(name: "list", type: .mixed, flags: .nullable, collection: .list)]),
            ObjectClass(name: "Origin", properties: [Property(name: "link", type: .link, flags: .nullable, linkTarget: "Foo"),
                                                     Property(name: "links", type: .link, linkTarget: "Foo", collection: .list)]),
        ]))
        try db.write {
            let foos = try db.createMany("Foo", ["mixed", "int"], (0..<100).map { i -> [TV] in
                [i % 4 != 0 ? .int(Int64(i)) : .string("String\(i)"), .int(Int64(i))]
            })
            try db.set("Foo", foos[15], "mixed", .null)
            try db.set("Foo", foos[17], "mixed", .nestedDict(0))
            try db.set("Foo", foos[19], "mixed", .link(db.cls("Foo"), foos[0]))
            try db.set("Foo", foos[75], "mixed", .double(75))
            try db.set("Foo", foos[28], "mixed", .binary(Array("String2Binary".utf8)))
            try db.set("Foo", foos[25], "mixed", .double(3))
            try db.set("Foo", foos[35], "mixed", .decimal(DecimalArithmetic.from(3)))
            try db.append("Foo", foos[0], "list", [.int(1), .decimal(DecimalArithmetic.from(10)), .double(100)])
            try db.append("Foo", foos[1], "list", [.string("hello"), .int(1000)])
            let f = db.cls("Foo")
            for i in 0..<10 {
                let origin = try db.create("Origin", [("link", .link(f, foos[i * 10]))])
                try db.append("Origin", origin, "links", (0..<10).map { .link(f, foos[i * 10 + $0]) })
            }
        }
        let (strings, ints, numerics, overFifty) = (24, 69, 72, 37)
        var cases: [(String, Int)] = [
            ("mixed.@type == 'string'", strings), ("mixed.@type == 'double'", 2), ("mixed.@type == 'float'", 0), ("mixed.@type == 'Decimal'", 1),
            ("mixed.@type == 'decimal128'", 1), ("mixed.@type == 'binary'", 1), ("mixed.@type == 'bytearray'", 1), ("mixed.@type == 'byte[]'", 1),
            ("mixed.@type == 'uuid'", 0), ("mixed.@type == 'guid'", 0), ("mixed.@type == 'bool'", 0), ("mixed.@type == 'boolean'", 0),
            ("mixed.@type == 'timestamp'", 0), ("mixed.@type == 'datetimeoffset'", 0), ("mixed.@type == 'objectlink'", 1),
            ("mixed.@type == 'object'", 1), ("mixed.@type == 'binary' || mixed.@type == 'DECIMAL' || mixed.@type == 'Double'", 4),
            ("mixed.@type == 'null'", 1), ("mixed.@type == 'numeric'", numerics),
            ("mixed.@type == 'numeric' || mixed.@type == 'string' || mixed.@type == 'objectlink' || mixed.@type == 'binary' || mixed.@type == 'object' || mixed.@type == 'null'", 100),
            ("mixed.@type == mixed.@type", 100), ("mixed.@type == int.@type", ints), ("mixed > 50", overFifty),
            ("mixed > 50 && mixed.@type == 'double'", 1), ("mixed > 50 && mixed.@type != 'double'", overFifty - 1),
            ("mixed > 50 && mixed.@type == 'int'", overFifty - 1), ("mixed.@type == 'string|double'", strings + 2),
            ("mixed.@type IN {'string', 'double'}", strings + 2), ("mixed.@type != {'string', 'null'}", 100),
            ("list.@type == 'numeric'", 2), ("list.@type == 'numeric' AND list >= 10 ", 2), ("list.@type == mixed.@type", 1),
            ("NONE list.@type == mixed.@type && list.@size > 0", 1), ("ALL list.@type == mixed.@type && list.@size > 0", 0),
            ("ALL list.@type == 'numeric' && list.@size > 0", 1), ("NONE list.@type == 'binary' && list.@size > 0", 2),
            ("NONE list.@type == 'string' && list.@size > 0", 1),
        ]
        for name in ["int", "integer", "int16", "int32", "int64", "short", "long", "byte", "char"] { cases.append(("mixed.@type == '\(name)'", ints)) }
        verify(db, "Foo", cases)
        verify(db, "Foo", [("mixed.@type == $0", 1)], [([.string("object")], false)])
        verify(db, "Origin", [
            ("link.mixed.@type == 'numeric' || link.mixed.@type == 'string'", 10), ("links.mixed.@type == 'numeric' || links.mixed.@type == 'string'", 10),
            ("ANY links.mixed.@type IN ANY {'numeric', 'string'}", 10), ("link.@type == link.mixed.@type", 0), ("links.mixed > 0", 10),
            ("links.mixed.@type == 'double'", 2), ("links.mixed > 0 && links.mixed.@type == 'double'", 2),
            ("SUBQUERY(links, $x, $x.mixed.@type == 'double' && $x.mixed == $x.int).@count > 0", 1),
        ])
        for (className, predicate) in [("Foo", "mixed.@type == 'asdf'"), ("Origin", "links.mixed.@type IN {'numeric', 'asdf'}"),
                                       ("Foo", "mixed.@type == ''"), ("Foo", "mixed.@type == 'string|double|'"), ("Foo", "mixed.@type == '|'"),
                                       ("Foo", "mixed.@type == 23"), ("Foo", "mixed.@type == 2.5"), ("Foo", "mixed.@type == int"),
                                       ("Foo", "int.@type == 'int'"), ("Origin", "link.@type == 'objectlink'"), ("Foo", "mixed.@type =[c] 'string'"),
                                       ("Foo", "mixed.@type > 'int'")] {
            expectError(.queryInvalid, predicate) { try db.query(className, predicate) }
        }
        expectError(.queryArgument) { try db.query("Foo", "mixed.@type == $0", [.string("nope")]) }
    }
}

// MARK: - Arithmetic

extension GraphQueryTests {
    /// realm-core's Parser_Arithmetic, with `number` an int, a float and a
    /// double; a list of values applied to a property element by element.
    func testRealmCoreArithmetic() throws {
        for (type, one, two) in [(PropertyType.int, TV.int(1), TV.int(2)), (.float, .float(1), .float(2)), (.double, .double(1), .double(2))] {
            let db = try DB.open(tempDir().file("\(type.name).fief"), Schema(classes: [ObjectClass(name: "person", properties: [
                prop("name", .string, .primaryKey), prop("age", .int), prop("tag", .mixed, .nullable), prop("number", type),
                Property(name: "spouse", type: .link, flags: .nullable, linkTarget: "person"),
                Property(name: "scores", type: .int, collection: .list),
            ])]))
            try db.write {
                let per = try db.create("person", [("name", .string("Per")), ("age", .int(42)), ("number", one)])
                let poul = try db.create("person", [("name", .string("Poul")), ("age", .int(25)), ("tag", .int(2))])
                let anne = try db.create("person", [("name", .string("Anne")), ("age", .int(40)), ("number", two), ("tag", .string("Cool"))])
                let andrea = try db.create("person", [("name", .string("Andrea")), ("age", .int(27)), ("tag", .int(2))])
                let p = db.cls("person")
                for (a, b) in [(per, anne), (poul, andrea), (anne, per), (andrea, poul)] { try db.set("person", a, "spouse", .link(p, b)) }
                try db.append("person", per, "scores", [.int(1), .int(5)])
                try db.append("person", anne, "scores", [.int(30)])
            }
            verify(db, "person", [
                ("2 * age > 60", 2), ("2 * age + 5 == 55", 1), ("2 * (age - 5) == 70", 1), ("age / 3 == 14", 1), ("age / 0 == 14", 0),
                ("age / number == 20", 1), ("age / number > 20", 3), ("age == (10 + 11)*2", 1), ("age + tag > 28", 1),
                // More: paths, unary minus, aggregates, many values (ANY), folded constants on both sides.
                ("spouse.age - age > 0", 2), ("-age < -40", 1), ("-(age - 50) == 8", 1), ("scores.@sum * 2 > age", 1),
                ("scores * 10 >= age", 2), ("ALL scores * 10 >= age", 3), ("spouse.age + spouse.age / 2 == 63", 1), ("1 + 1 == 2", 4),
                ("age * 1.5 == 63", 1), ("age - 0.5 > 41", 1),
                // A list with a property: one result per element (realm-core's Operator over a list
                // constant), compared with the list's quantifier, or element by element with a list.
                ("{1, 2} * age == 84", 1), ("age + {1, 2} == 41", 1), ("ALL {1, 2} * age > 50", 0), ("NONE {1, 2} * age > 50", 1),
                ("{1, 2} * age == {42, 84}", 1), ("{1, 2} * age == {84, 42}", 0), ("{1, 2} * age > spouse.age", 4),
                ("ALL {1, 2} * age > spouse.age", 2), ("{1, 2} * spouse.age == 84", 1), ("-{1, 2} * age == -50", 1),
                ("{2, null} * age == 50", 1), ("ANY {} * age == 50", 0), ("ALL {} * age == 50", 4), ("{1, 2} * age / 2 == 21", 1),
            ])
            verify(db, "person", [("$0 * age == 50", 1), ("ALL $0 * age > 30", 2)], [([.int(1), .int(2)], true)])
            verify(db, "person", [("age * $0 == $1", 1)], [([.int(2)], false), ([.int(50)], false)])
            for predicate in ["age + spouse.name == 50", "age + name == 50", "age * 'x' == 1", "{'a', 2} * age == 3"] {
                XCTAssertThrowsError(try db.query("person", predicate), predicate)
            }
            // realm-core refuses arithmetic over two lists ("Operations involving two lists are not supported").
            let twoLists = "Realm's query language does not allow arithmetic combining two collections or lists of values"
            for (predicate, text) in [("scores * scores > 1", "'scores * scores'"), ("{1, 2} * scores == 2", "'{1, 2} * scores'"),
                                      ("spouse.scores + scores > 5", "'spouse.scores + scores'"), ("$0 * scores > 1", "'$0 * scores'")] {
                let error = expectError(.queryInvalid, predicate) { try Self.query(db, predicate, [([.int(1), .int(2)], true)], of: "person") }
                XCTAssertEqual(error?.message, "\(twoLists) (\(text)): realm-core refuses operations involving two lists", predicate)
            }
        }
        let db = try DB.open(tempDir().file("decimal.fief"), Schema(classes: [ObjectClass(name: "D", properties: [prop("d", .decimal128), prop("i", .int)])]))
        try db.write { _ = try db.createMany("D", ["d", "i"], [[.decimal(DecimalArithmetic.from(3)), .int(1)], [.decimal(DecimalArithmetic.from(5)), .int(2)]]) }
        verify(db, "D", [("d + i == 4", 1), ("d - 1 > 3", 1), ("-d < -4", 1), ("d + 0.5 == 3.5", 1), ("d * 2 > 7", 1), ("d / i == 2.5", 1)])
    }

    /// Decimal128 multiplication and division in queries, as realm-core
    /// computes them (IEEE 754-2008 decimal128: 34 digits, half to even;
    /// an int, a float or a double meeting a decimal becomes one; x / 0 is
    /// an infinity; a mixed value that is not a number gives null): which
    /// objects match, over properties, mixed values, arguments and lists.
    func testDecimalMultiplicationAndDivision() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [ObjectClass(name: "P", properties: [
            prop("price", .decimal128), prop("qty", .int), prop("m", .mixed, .nullable), prop("ratio", .double), prop("f", .float),
            Property(name: "prices", type: .decimal128, collection: .list),
        ])]))
        func d(_ s: String) -> Decimal128Bits { DecimalArithmetic.parse(Array(s.utf8))! }
        let keys = try db.write { () -> [Int64] in
            let keys = try db.createMany("P", ["price", "qty", "m", "ratio", "f"], [
                [.decimal(d("10")), .int(3), .decimal(d("1.5")), .double(0.5), .float(0.5)],
                [.decimal(d("0.1")), .int(0), .int(4), .double(2), .float(2)],
                [.decimal(d("-7.5")), .int(2), .string("x"), .double(0), .float(0)],
                [.decimal(d("1E-4000")), .int(1), .null, .double(1), .float(1)],
            ])
            try db.append("P", keys[0], "prices", [.decimal(d("2")), .decimal(d("0.5"))])
            try db.append("P", keys[2], "prices", [.decimal(d("-1"))])
            return keys
        }
        let cases: [(String, [Argument], [Int])] = [
            ("price * 1.2 > 10", [], [0]), ("price * 3 == 30", [], [0]), ("price * 3 == 0.3", [], [1]),
            ("price / 3 == $0", [([.decimal(d("3.333333333333333333333333333333333"))], false)], [0]),
            ("price / 3 == $0", [([.decimal(d("3.333333333333333333333333333333334"))], false)], []),
            ("price / qty == -3.75", [], [2]), ("price / qty == $0", [([.decimal(DecimalArithmetic.infinity(negative: false))], false)], [1]),
            ("price / 0 > 0", [], [0, 1, 3]), ("price / 0 < 0", [], [2]), ("price * price == 0", [], [3]), ("price * price > 0", [], [0, 1, 2]),
            ("price * price * 1E300 > 0", [], [0, 1, 2]), ("price * m == 15", [], [0]), ("price * m == $0", [([.decimal(d("0.4"))], false)], [1]),
            ("price * m == nil", [], [2, 3]), ("-price * 2 == 15", [], [2]), ("price * ratio == 5", [], [0]), ("price * ratio == 0", [], [2]),
            ("price / ratio < 0", [], [2]), ("price * f == 5", [], [0]), ("2 * price / 4 == 5", [], [0]), ("price * 2 - 20 == 0", [], [0]),
            ("price / $0 == 2.5", [([.int(4)], false)], [0]), ("price * $0 == 0.25", [([.double(2.5)], false)], [1]),
            ("{1, 2} * price == 20", [], [0]), ("ALL {1, 2} * price > 0", [], [0, 1, 3]), ("NONE {1, 2} * price > 0", [], [2]),
            ("price / {2, 4} == 2.5", [], [0]), ("price * $0 == -15", [([.int(1), .decimal(d("2"))], true)], [2]),
            ("{1, 2} * $0 == price", [([.decimal(d("5"))], false)], [0]), ("{1.5, 2} * $0 == 3", [([.decimal(d("2"))], false)], [0, 1, 2, 3]),
            ("prices * qty == 6", [], [0]), ("ALL prices / 2 < price", [], [0, 1, 3]), ("prices.@sum * price == 25", [], [0]),
            ("price == $0 * 2", [([.decimal(d("5"))], false)], [0]), ("price == 1 / $0", [([.decimal(d("10"))], false)], [1]),
            ("-15 IN {1, 2} * price", [], [2]), ("price * qty IN {30, -15}", [], [0, 2]),
            ("price * 1E6000 * 1E6000 > 1E300", [], [0, 1, 3]), ("price * 1E6000 * 1E6000 < 0", [], [2]),
        ]
        for (predicate, args, expected) in cases {
            do {
                let results = try Self.query(db, predicate, args, of: "P")
                XCTAssertEqual(Set(try results.allKeys()), Set(expected.map { keys[$0] }), predicate)
            } catch {
                XCTFail("\(predicate): \(error)")
            }
        }
    }
}

// MARK: - Operations on elements

extension GraphQueryTests {
    /// realm-core's Parser_list_of_primitive_element_lengths, for lists of
    /// strings and of binaries (directly and through self links): `.length`
    /// is the length of each element, a null one's 0.
    func testRealmCoreElementLengths() throws {
        for type in [PropertyType.string, .binary] {
            let db = try DB.open(tempDir().file("\(type.name).fief"), Schema(classes: [ObjectClass(name: "table", properties: [
                Property(name: "values", type: type, flags: .nullable, collection: .list), prop("length", .int),
                Property(name: "link", type: .link, flags: .nullable, linkTarget: "table"),
            ])]))
            func value(_ text: String?) -> TV { text.map { type == .string ? .string($0) : .binary(Array($0.utf8)) } ?? .null }
            try db.write {
                // {}, {null}, {""}, {"value1"}, {"value2"}, {"value1", "value2"}
                let keys = try db.createMany("table", ["length"], Array(repeating: [.int(0)], count: 6))
                for (key, values) in zip(keys, [[], [nil], [""], ["value1"], ["value2"], ["value1", "value2"]] as [[String?]]) {
                    if !values.isEmpty { try db.append("table", key, "values", values.map(value)) }
                    try db.set("table", key, "link", .link(db.cls("table"), key))
                }
            }
            for path in ["", "link.", "link.link."] {
                var cases: [(String, Int)] = [
                    ("\(path)values.@count == 0", 1), ("\(path)values.@size == 1", 4), ("\(path)values.@count == 2", 1), ("\(path)length == 0", 6),
                    ("ALL \(path)values.length == 0", 3), ("ALL \(path)values.length == length", 3), ("ALL \(path)values.length == 6", 4),
                    ("NONE \(path)values.length == 0", 4), ("NONE \(path)values.length == length", 4), ("NONE \(path)values.length == 6", 3),
                ]
                for prefix in ["", "ANY", "SOME", "any", "some"] {
                    cases += [("0 IN \(prefix) \(path)values.length", 2), ("\(prefix) \(path)values.length == 0", 2),
                              ("\(prefix) \(path)values.length > 0", 3), ("\(prefix) \(path)values.length == 6", 3),
                              ("\(prefix) \(path)values.length == length", 2)]
                }
                verify(db, "table", cases)
            }
            XCTAssertEqual(expectError(.queryInvalid) { try db.query("table", "values.len == 2") }.map { $0.message.contains("len") }, true)
        }
        // Mixed elements: strings and binaries only (Parser_list_of_primitive_mixed); sets too (Parser_Set).
        let db = try DB.open(tempDir().file("mixed.fief"), Schema(classes: [ObjectClass(name: "table", properties: [
            Property(name: "values", type: .mixed, flags: .nullable, collection: .list), Property(name: "set", type: .string, collection: .set),
            Property(name: "ints", type: .int, collection: .list),
        ])]))
        try db.write {
            let keys = try db.createMany("table", [], Array(repeating: [], count: 4))
            try db.append("table", keys[0], "values", [.null])
            try db.append("table", keys[1], "values", [.string("one"), .string("two"), .string("three"), .string(""), .null])
            try db.append("table", keys[2], "values", [.string("foo"), .int(1), .binary([1, 2, 3]), .double(2.5)])
            try db.append("table", keys[3], "values", [.int(123), .int(45)])
            for (key, values) in zip(keys, [["hello", "world"], ["hi"], [], ["abc", "hello world"]]) {
                for value in values { _ = try db.setInsert("table", key, "set", .string(value)) }
            }
        }
        verify(db, "table", [("values.length == 3", 2), ("ALL values.length == 3", 3), ("NONE values.length == 3", 2), ("values.length == 0", 1),
                             ("set.length == 5", 1), ("set.length == 2", 1), ("ALL set.length == 5", 2), ("set.length > 10", 1)])
        for predicate in ["ints.length == 2", "values.length.@count == 1", "{8, 10}.length >= 2"] {
            XCTAssertThrowsError(try db.query("table", predicate), predicate)
        }
        XCTAssertTrue(expectError(.queryInvalid) { try db.query("table", "ints.length == 2") }?.message.contains("'table.ints' holds int values") ?? false)
    }

    /// `@size` after one element of a list or map: the length of a string
    /// or binary, the size of a nested list or dictionary (null for
    /// anything else, and past the end or for a missing key).
    func testSizeOfOneElement() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Item", properties: [prop("name", .string)]),
            ObjectClass(name: "P", properties: [
                prop("id", .int), Property(name: "tags", type: .string, collection: .list), Property(name: "bins", type: .binary, flags: .nullable, collection: .list),
                Property(name: "mixeds", type: .mixed, flags: .nullable, collection: .list),
                Property(name: "dict", type: .string, flags: .nullable, collection: .map), Property(name: "mixedDict", type: .mixed, flags: .nullable, collection: .map),
                Property(name: "scores", type: .int, collection: .list), Property(name: "items", type: .link, linkTarget: "Item", collection: .list),
            ]),
        ]))
        try db.write {
            let items = try db.createMany("Item", ["name"], [[.string("milk")], [.string("oranges")]])
            let p = try db.createMany("P", ["id"], [[.int(0)], [.int(1)], [.int(2)]])
            try db.append("P", p[0], "tags", [.string("abc"), .string("de")])
            try db.append("P", p[1], "tags", [.string("de"), .string(""), .string("fghij")])
            try db.append("P", p[0], "bins", [.binary([1, 2]), .null])
            try db.append("P", p[1], "bins", [.binary([])])
            try db.mapSet("P", p[0], "dict", "k", .string("hello"))
            try db.mapSet("P", p[1], "dict", "k", .null)
            try db.mapSet("P", p[1], "dict", "j", .string("hi"))
            try db.append("P", p[0], "items", [.link(db.cls("Item"), items[0]), .link(db.cls("Item"), items[1])])
            try db.append("P", p[1], "items", [.link(db.cls("Item"), items[1])])
            // Nested collections: a list of three, a dictionary of one.
            try db.append("P", p[0], "mixeds", [.nestedList(0), .string("four"), .int(7)])
            try db.append("P", p[1], "mixeds", [.nestedDict(0), .binary([1])])
            try db.mapSet("P", p[2], "mixedDict", "n", .nestedList(0))
            let property = db.pkey("P", "mixeds"), dictProperty = db.pkey("P", "mixedDict")
            guard case .nestedList(let list) = try db.realm.list(CollectionRef(.list, table: db.cls("P"), owner: p[0], property: property)).value(at: 0),
                  case .nestedDictionary(let dict) = try db.realm.list(CollectionRef(.list, table: db.cls("P"), owner: p[1], property: property)).value(at: 0),
                  case .nestedList(let inMap)? = try Array("n".utf8).withUnsafeBytes({ try db.realm.map(CollectionRef(.map, table: db.cls("P"), owner: p[2], property: dictProperty)).value(forKey: $0) }) else {
                return XCTFail("nested collections expected")
            }
            try TV.withValues([.int(1), .int(2), .int(3)]) { try db.realm.list(CollectionRef(nested: .list, table: db.cls("P"), owner: p[0], property: property, id: list)).append(UnsafeBufferPointer($0)) }
            try TV.withValues([.int(1)]) { v in try Array("a".utf8).withUnsafeBytes { try db.realm.map(CollectionRef(nested: .dictionary, table: db.cls("P"), owner: p[1], property: property, id: dict)).set(v[0], forKey: $0) } }
            try TV.withValues([.int(1), .int(2)]) { try db.realm.list(CollectionRef(nested: .list, table: db.cls("P"), owner: p[2], property: dictProperty, id: inMap)).append(UnsafeBufferPointer($0)) }
        }
        verify(db, "P", [
            ("tags[0].@count == 3", 1), ("tags[0].@size == 2", 1), ("tags[FIRST].@size == 3", 1), ("tags[LAST].@count == 2", 1),
            ("tags[LAST].@count == 5", 1), ("tags[1].@size == 0", 1), ("tags[2].@size > 0", 1), ("tags[2].@size == nil", 2),
            ("tags[5].@size == nil", 3), ("tags[0].@size > tags[1].@size", 2), ("tags[0].@size + 1 == 4", 1),
            ("bins[0].@size == 2", 1), ("bins[0].@size == 0", 1), ("bins[1].@size == nil", 3),
            ("dict['k'].@size == 5", 1), ("dict.k.@size == 5", 1), ("dict['k'].@count == nil", 2), ("dict['j'].@size == 2", 1),
            ("items[0].name.@size == 4", 1), ("items[LAST].name.@count == 7", 2), ("items[1].name.@size == 7", 1),
            ("mixeds[0].@size == 3", 1), ("mixeds[FIRST].@size == 1", 1), ("mixeds[1].@size == 4", 1), ("mixeds[1].@size == 1", 1),
            ("mixeds[2].@size == nil", 3), ("mixeds[LAST].@size == nil", 2), ("mixedDict['n'].@size == 2", 1), ("mixedDict.n.@size == nil", 2),
            ("tags[0].@size IN {2, 3}", 2),
        ])
        verify(db, "P", [("tags[$0].@size == 5", 1), ("dict[$1].@size == 2", 1)], [([.int(2)], false), ([.string("j")], false)])
        for (predicate, words) in [("scores[0].@size == 1", ["'P.scores' holds int values"]), ("tags[0].@max == 1", ["no aggregate"]),
                                   ("items[0].name.length == 4", ["not a link"])] {
            let error = expectError(.queryInvalid, predicate) { try db.query("P", predicate) }
            for word in words { XCTAssertTrue(error?.message.contains(word) ?? false, error?.message ?? "") }
        }
        // The values follow changes (live results).
        let results = try db.query("P", "tags[0].@size == 4")
        XCTAssertEqual(try results.count(), 0)
        try db.write { try db.append("P", try db.keys("P", "id == 2")[0], "tags", [.string("four")]) }
        XCTAssertEqual(try results.count(), 1)
    }
}

// MARK: - Objects against a list, and forms Realm refuses

extension GraphQueryTests {
    /// `items == {$0, $1}`: a list (or set, or backlinks) of links against
    /// a list of objects, element by element in order, as realm-core
    /// compares two lists without a quantifier; `!=` is its negation.
    func testLinkListsAgainstListsElementByElement() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Item", properties: [prop("name", .string, .primaryKey), Property(name: "related", type: .link, linkTarget: "Item", collection: .list)]),
            ObjectClass(name: "Person", properties: [prop("name", .string), Property(name: "items", type: .link, linkTarget: "Item", collection: .list),
                                                     Property(name: "itemMap", type: .link, flags: .nullable, linkTarget: "Item", collection: .map)]),
        ]))
        let item = db.cls("Item")
        let (a, b, people) = try db.write { () -> (Int64, Int64, [Int64]) in
            let a = try db.create("Item", [("name", .string("a"))]), b = try db.create("Item", [("name", .string("b"))])
            let people = try db.createMany("Person", ["name"], [[.string("ab")], [.string("ba")], [.string("a")], [.string("none")]])
            try db.append("Person", people[0], "items", [.link(item, a), .link(item, b)])
            try db.append("Person", people[1], "items", [.link(item, b), .link(item, a)])
            try db.append("Person", people[2], "items", [.link(item, a)])
            try db.mapSet("Person", people[0], "itemMap", "x", .link(item, a))
            try db.mapSet("Person", people[0], "itemMap", "y", .null)
            try db.mapSet("Person", people[1], "itemMap", "x", .link(item, b))
            return (a, b, people)
        }
        let cases: [(String, [Argument], [Int])] = [
            ("items == {$0, $1}", [([.link(item, a)], false), ([.link(item, b)], false)], [0]),
            ("{$0, $1} == items", [([.link(item, b)], false), ([.link(item, a)], false)], [1]),
            ("items == $0", [([.link(item, a)], true)], [2]), ("items != $0", [([.link(item, a)], true)], [0, 1, 3]),
            ("items == {obj('Item', 'a'), obj('Item', 'b')}", [], [0]), ("items == {}", [], [3]),
            ("ANY items == {obj('Item', 'b')}", [], [0, 1]),
            // A map of links: its values in key order, null ones included.
            ("itemMap == {obj('Item', 'a'), nil}", [], [0]), ("{obj('Item', 'a'), NULL} == itemMap.@values", [], [0]),
            ("itemMap == {$0}", [([.link(item, b)], false)], [1]), ("itemMap == $0", [([.link(item, a)], true)], []),
            ("itemMap == {}", [], [2, 3]), ("itemMap != {obj('Item', 'b')}", [], [0, 2, 3]), ("itemMap == {nil, obj('Item', 'a')}", [], []),
            // '@count' after a key of a map of links: the map's entries, as realm-core counts them (the key does not narrow it).
            ("itemMap['x'].@count == 2", [], [0]), ("itemMap.x.@count == 1", [], [1]), ("itemMap['zz'].@size == 0", [], [2, 3]),
            ("itemMap[$0].@count > 0", [([.string("y")], false)], [0, 1]),
        ]
        for (predicate, args, expected) in cases {
            do {
                let results = try Self.query(db, predicate, args, of: "Person")
                XCTAssertEqual(Set(try results.allKeys()), Set(expected.map { people[$0] }), predicate)
            } catch {
                XCTFail("\(predicate): \(error)")
            }
        }
        // Forms realm-core's parser refuses too: the messages say so.
        for (predicate, message) in [
            ("SUBQUERY(items, $x, SUBQUERY($x.related, $y, SUBQUERY($x.related, $z, $z.name == 'a').@count > 0).@count > 0).@count > 0",
             "Realm's query language does not allow a SUBQUERY over the collection of an enclosing SUBQUERY's variable: inside a SUBQUERY only its own variable names objects ('$x.related')"),
            ("SUBQUERY(items, $x, $x.related == $x).@count > 0", "Realm's query language does not allow the SUBQUERY variable '$x' alone: compare its properties ('$x.name')"),
            ("items[0].@max.name == 'a'", "Realm's query language does not allow an aggregate of one object ('items[0].@max.name'): '@min', '@max', '@sum' and '@avg' apply to a list, set or map"),
            ("items[0].@count == 1", "Realm's query language does not allow '@count' of one object of a list of links ('items[0].@count'): realm-core takes no position at the end of a key path through links (\"Property 'Person.items' does not support index '[0]'\"); count the list ('items.@count') or compare the object ('items[0] == nil')"),
            ("items[LAST].@size > 0", "Realm's query language does not allow '@count' of one object of a list of links ('items[LAST].@count'): realm-core takes no position at the end of a key path through links (\"Property 'Person.items' does not support index '[LAST]'\"); count the list ('items.@count') or compare the object ('items[LAST] == nil')"),
            ("obj('Item', 'a') * 2 == 1", "obj('Class', key) names one object: Realm's query language compares it with a link only ('friend == obj(...)', 'obj(...) IN friends'), not in arithmetic or BETWEEN"),
            ("{obj('Item', 'a'), 1} + 2 == 1", "obj('Class', key) names one object: Realm's query language compares it with a link only ('friend == obj(...)', 'obj(...) IN friends'), not in arithmetic or BETWEEN"),
            ("obj('Item', 'a') BETWEEN {1, 2}", "obj('Class', key) names one object: Realm's query language compares it with a link only ('friend == obj(...)', 'obj(...) IN friends'), not in arithmetic or BETWEEN"),
        ] {
            XCTAssertEqual(expectError(.queryInvalid, predicate) { try db.query("Person", predicate) }?.message, message, predicate)
        }
    }
}
