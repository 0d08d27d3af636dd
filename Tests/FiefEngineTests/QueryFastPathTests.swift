import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// The query fast paths: filters rebound to new arguments from the
/// realm's `QueryCache` (the same answers and errors as a full
/// compile, invalidated by schema changes, live after commits), lists of
/// values tested in place (`ListElementTest`, against brute force and
/// against the value reader a write transaction uses), and the sorted-key
/// helpers the scans share (`SortedKeyClusters`, `ObjectSet`).
final class QueryFastPathTests: XCTestCase {
    // MARK: Rebound filters

    private func peopleAndDogs() throws -> (DB, people: [Int64], dogs: [Int64]) {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string, [.indexed, .nullable]), prop("age", .int), prop("nick", .string),
                                                     Property(name: "boss", type: .link, flags: .nullable, linkTarget: "Person")]),
            ObjectClass(name: "Dog", properties: [prop("name", .string), prop("age", .int),
                                                  Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ]))
        let names: [TV] = [.string("Ann"), .string("Bob"), .null, .string("ann"), .string("Ann"), .string("Cy")]
        let (people, dogs) = try db.write { () -> ([Int64], [Int64]) in
            let people = try db.createMany("Person", ["name", "age", "nick"],
                                           (0..<600).map { [names[$0 % names.count], .int(Int64($0 % 50)), .string("n\($0 % 7)")] })
            let person = db.cls("Person")
            for (i, key) in people.enumerated() where i % 5 != 0 { try db.set("Person", key, "boss", .link(person, people[(i * 7) % people.count])) }
            let dogs = try db.createMany("Dog", ["name", "age"], (0..<1500).map { [.string("d\($0 % 11)"), .int(Int64($0 % 15))] })
            for (i, key) in dogs.enumerated() where i % 9 != 0 { try db.set("Dog", key, "owner", .link(person, people[(i * 31) % people.count])) }
            return (people, dogs)
        }
        return (db, people, dogs)
    }

    /// The keys of `predicate` with `args`, through the cache, and the keys
    /// a full compile gives (the cache emptied first): equal, as are errors.
    private func sameAsFullCompile(_ db: DB, _ className: String, _ predicate: String, _ args: [TV], list: Bool = false,
                                   file: StaticString = #filePath, line: UInt = #line) throws {
        func run() -> Result<[Int64], FiefError> {
            do {
                let results = try TV.withValues(args) { values in
                    try db.results(className).filtered(predicate, arguments: list ? [QueryArgument(values: Array(values), isList: true)]
                                                                                : values.map { QueryArgument(values: [$0], isList: false) })
                }
                return .success(try results.allKeys())
            } catch let error as FiefError {
                return .failure(error)
            } catch {
                return .failure(FiefError(.internal, "\(error)"))
            }
        }
        let cached = run()
        db.realm.queryCache.removeAll()
        let fresh = run()
        switch (cached, fresh) {
        case (.success(let a), .success(let b)): XCTAssertEqual(a, b, "\(predicate) \(args)", file: file, line: line)
        case (.failure(let a), .failure(let b)):
            XCTAssertEqual(a.code, b.code, "\(predicate) \(args)", file: file, line: line)
            XCTAssertEqual(a.message, b.message, "\(predicate) \(args)", file: file, line: line)
        default: XCTFail("\(predicate) \(args): cached \(cached), full compile \(fresh)", file: file, line: line)
        }
    }

    func testReboundFiltersAnswerAsAFullCompile() throws {
        let (db, _, _) = try peopleAndDogs()
        let person = db.cls("Person"), dog = db.cls("Dog")
        let shapes: [(String, String, [[TV]])] = [
            ("Person", "name == $0", [[.string("Ann")], [.string("Bob")], [.null], [.string("nobody")], [.int(3)], [.string("ann")]]),
            ("Person", "$0 == name", [[.string("Cy")], [.null], [.string("Ann")]]),
            ("Person", "name ==[c] $0", [[.string("ANN")], [.string("-")], [.null]]),
            ("Person", "name BEGINSWITH $0", [[.string("A")], [.null], [.string("")], [.string("Bo")]]),
            ("Person", "$0 CONTAINS name", [[.string("xxAnnxx")], [.null], [.string("Bobby")]]),
            ("Person", "age > $0", [[.int(10)], [.double(10.5)], [.null], [.string("20")], [.string("x")], [.double(.infinity)], [.int(-1)]]),
            ("Person", "$0 < age", [[.int(48)], [.null], [.double(47.5)]]),
            ("Person", "age != $0", [[.int(3)], [.null]]),
            ("Dog", "owner.name == $0", [[.string("Ann")], [.string("Bob")], [.null], [.string("nobody")], [.int(1)], [.string("Cy")]]),
            ("Dog", "owner.name != $0", [[.string("Ann")], [.null], [.string("Bob")]]),
            ("Dog", "$0 == owner.name", [[.string("Bob")], [.null]]),
            ("Dog", "owner.age >= $0", [[.int(40)], [.null], [.double(39.5)], [.int(0)]]),
            ("Dog", "owner.age < $0", [[.int(1)], [.null]]),
            ("Dog", "owner.boss.name == $0", [[.string("Ann")], [.null], [.string("Cy")]]),
            ("Dog", "owner.name BEGINSWITH[c] $0", [[.string("a")], [.null]]),
        ]
        for (className, predicate, argumentSets) in shapes {
            for args in argumentSets { try sameAsFullCompile(db, className, predicate, args) }
            // Taken from the cache: the entry is there, with a rebinding.
            _ = try? db.query(className, predicate, argumentSets[0])
            let entry = db.realm.queryCache.entry(predicate, table: className == "Person" ? person : dog)
            XCTAssertNotNil(entry?.rebinding, predicate)
            // Used twice in a row (the second rebound), with every argument set.
            for args in argumentSets {
                _ = try? db.query(className, predicate, argumentSets[0])
                try sameAsFullCompile(db, className, predicate, args)
            }
        }
        // Not rebound: several comparisons, a to-many path, a key-path argument, ANY.
        for (className, predicate) in [("Person", "name == $0 AND age > 3"), ("Person", "@links.Dog.owner.name == $0"),
                                       ("Dog", "ANY owner.name == $0"), ("Person", "name IN {$0, 'Bob'}")] {
            try sameAsFullCompile(db, className, predicate, [.string("Ann")])
            _ = try? db.query(className, predicate, [.string("Ann")])
            XCTAssertNil(db.realm.queryCache.entry(predicate, table: className == "Person" ? person : dog)?.rebinding, predicate)
            try sameAsFullCompile(db, className, predicate, [.string("Bob")])
        }
        // A list where the first use gave one value: compiled in full (`IN`'s meaning, or its error).
        _ = try db.query("Person", "name == $0", [.string("Ann")])
        try sameAsFullCompile(db, "Person", "name == $0", [.string("Ann"), .string("Bob")], list: true)
        _ = try db.query("Dog", "owner.name == $0", [.string("Ann")])
        try sameAsFullCompile(db, "Dog", "owner.name == $0", [.string("Ann"), .string("Cy")], list: true)
        // Too few arguments, invalid UTF-8: the errors of a full compile.
        _ = try db.query("Person", "name == $1", [.string("Ann"), .string("Bob")])
        try sameAsFullCompile(db, "Person", "name == $1", [.string("Ann")])
        let invalid = try TV.withValues([.binary([0xFF, 0xFE])]) { values -> FiefError? in
            guard case .binary(let b) = values[0] else { return nil }
            _ = try db.query("Person", "name == $0", [.string("Ann")])
            return expectError(.invalidUTF8) {
                try db.results("Person").filtered("name == $0", arguments: [QueryArgument(values: [.string(b)], isList: false)])
            }
        }
        XCTAssertNotNil(invalid)
        // A rebound filter describes itself with its argument written in.
        _ = try db.query("Dog", "owner.name == $0", [.string("Ann")])
        let described = try db.query("Dog", "owner.name == $0", [.string("O'Neil")])
        XCTAssertNotNil(described.filters[0].predicate)
        XCTAssertEqual(try described.count(), 0)
    }

    func testReboundFiltersStayLive() throws {
        let (db, people, dogs) = try peopleAndDogs()
        let person = db.cls("Person")
        _ = try db.query("Dog", "owner.name == $0", [.string("Bob")])
        _ = try db.query("Person", "name == $0", [.string("Bob")])
        let annDogs = try db.query("Dog", "owner.name == $0", [.string("Ann")])
        let anns = try db.query("Person", "name == $0", [.string("Ann")])
        XCTAssertNotNil(annDogs.filters[0].knownColumns)
        func expectedDogs() throws -> Int {
            try db.keys("Dog").filter { key in
                guard case .link(_, let owner) = try db.get("Dog", key, "owner") else { return false }
                return try db.get("Person", owner, "name") == .string("Ann")
            }.count
        }
        let annCount = try anns.count()
        XCTAssertEqual(try annDogs.count(), try expectedDogs())
        // A person renamed: the dogs' results follow (they read Person.name).
        try db.write { try db.set("Person", people[1], "name", .string("Ann")) }
        XCTAssertEqual(try anns.count(), annCount + 1)
        XCTAssertEqual(try annDogs.count(), try expectedDogs())
        // A dog given another owner, a dog deleted, a person deleted.
        try db.write {
            try db.set("Dog", dogs[0], "owner", .link(person, people[0]))
            try db.delete("Dog", dogs[3])
            try db.delete("Person", people[4])
        }
        XCTAssertEqual(try annDogs.count(), try expectedDogs())
        XCTAssertEqual(try anns.allKeys(), try db.keys("Person").filter { try db.get("Person", $0, "name") == .string("Ann") })
        // In a write transaction, before the commit, too.
        try db.realm.beginWrite()
        try db.set("Person", people[2], "name", .string("Ann"))
        XCTAssertEqual(try annDogs.count(), try expectedDogs())
        XCTAssertEqual(try db.query("Dog", "owner.name == $0", [.string("Ann")]).count(), try expectedDogs())
        db.realm.cancelWrite()
        XCTAssertEqual(try annDogs.count(), try expectedDogs())
    }

    func testSchemaChangesCompileAgain() throws {
        let path = tempDir().file()
        let first = Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string)]),
            ObjectClass(name: "Dog", properties: [Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
        let db = try DB.open(path, first)
        try db.write {
            let people = try db.createMany("Person", ["name"], [[.string("Ann")], [.string("Bob")]])
            for i in 0..<10 { try db.set("Dog", try db.create("Dog", []), "owner", .link(db.cls("Person"), people[i % 2])) }
        }
        XCTAssertEqual(try db.query("Dog", "owner.name == $0", [.string("Ann")]).count(), 5)
        let epoch = db.realm.schemaEpoch
        let entry = db.realm.queryCache.entry("owner.name == $0", table: db.cls("Dog"))
        XCTAssertEqual(entry?.schemaEpoch, epoch)
        // Another realm of the file adds a property and an index to Person.
        let grown = Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string, .indexed), prop("age", .int)]),
            ObjectClass(name: "Dog", properties: [Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
        let other = try DB.open(path, grown)
        try other.write { try other.set("Person", 1, "name", .string("Ann")) }
        XCTAssertTrue(try db.realm.refresh())
        XCTAssertNotEqual(db.realm.schemaEpoch, epoch)
        // The entry of the old schema is not used: compiled again, then rebound.
        XCTAssertEqual(try db.query("Dog", "owner.name == $0", [.string("Ann")]).count(), 10)
        let renewed = db.realm.queryCache.entry("owner.name == $0", table: db.cls("Dog"))
        XCTAssertEqual(renewed?.schemaEpoch, db.realm.schemaEpoch)
        XCTAssertNotNil(renewed?.rebinding)
        XCTAssertTrue(renewed?.rebinding?.last.property(named: "name")?.isIndexed ?? false)
        XCTAssertEqual(try db.query("Dog", "owner.name == $0", [.string("Bob")]).count(), 0)
        XCTAssertEqual(try db.query("Person", "age == $0", [.int(0)]).count(), 2)
        other.realm.close()
    }

    // MARK: Lists of values

    private struct Lists {
        var ints: [[Int64?]] = []
        var doubles: [[Double?]] = []
        var strings: [[String]] = []
    }

    private func playersWithLists(_ count: Int) throws -> (DB, [Int64], Lists) {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Player", properties: [
                Property(name: "scores", type: .int, collection: .list),
                Property(name: "maybe", type: .int, flags: .nullable, collection: .list),
                Property(name: "ratios", type: .double, flags: .nullable, collection: .list),
                Property(name: "tags", type: .string, collection: .list),
                Property(name: "mixed", type: .mixed, flags: .nullable, collection: .list),
                prop("tag", .string),
            ]),
        ]))
        var rng = SeededRandom(seed: 11)
        var lists = Lists()
        let keys = try db.write { () -> [Int64] in
            let keys = try db.createMany("Player", [], (0..<count).map { _ in [] })
            for key in keys {
                // Mostly short lists, some empty, a few longer than a segment.
                let r = Int.random(in: 0..<20, using: &rng)
                let n = r == 0 ? 0 : r == 1 ? Int.random(in: 250..<600, using: &rng) : Int.random(in: 1..<9, using: &rng)
                let ints = (0..<n).map { _ in Int64.random(in: -5..<100, using: &rng) }
                let maybe: [Int64?] = ints.map { Int.random(in: 0..<6, using: &rng) == 0 ? nil : $0 }
                let ratios: [Double?] = ints.map { x in x % 13 == 0 ? nil : x % 17 == 0 ? .nan : Double(x) / 4 }
                let tags = ints.map { ["a", "Ab", "b", "", "abc", "B"][Int(($0 + 5) % 6)] }
                if n > 0 {
                    try db.append("Player", key, "scores", ints.map { .int($0) })
                    try db.append("Player", key, "maybe", maybe.map { $0.map { .int($0) } ?? .null })
                    try db.append("Player", key, "ratios", ratios.map { $0.map { .double($0) } ?? .null })
                    try db.append("Player", key, "tags", tags.map { .string($0) })
                    try db.append("Player", key, "mixed", ints.prefix(2).map { .int($0) })
                }
                lists.ints.append(ints.map { $0 })
                lists.doubles.append(ratios)
                lists.strings.append(tags)
            }
            return keys
        }
        // Maybe-lists as stored: read back for brute force.
        for (i, key) in keys.enumerated() {
            lists.ints[i] = try db.list("Player", key, "maybe").map { if case .int(let x) = $0 { return x }; return nil }
        }
        return (db, keys, lists)
    }

    /// Whether the value reader and the in-place test agree (the first in
    /// a write transaction), and both with `expected`.
    private func check(_ db: DB, _ predicate: String, _ args: [TV] = [], expected: [Int64], fast: Bool = true,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let results = try db.query("Player", predicate, args)
        XCTAssertEqual(try results.allKeys(), expected, predicate, file: file, line: line)
        // Whether the in-place test takes it.
        guard case .graph(let node) = results.filters[0].root, case .test(let expression, let test, _) = node.kind else {
            XCTAssertFalse(fast, "\(predicate) is no test of values", file: file, line: line)
            return
        }
        let table = try db.realm.table(db.cls("Player"))
        XCTAssertEqual(try ListElementTest(db.realm, table, expression, test) != nil, fast, predicate, file: file, line: line)
        try db.realm.beginWrite()
        XCTAssertEqual(try db.query("Player", predicate, args).allKeys(), expected, "\(predicate) in a write", file: file, line: line)
        db.realm.cancelWrite()
    }

    func testListsOfValuesAgainstAConstant() throws {
        let (db, keys, lists) = try playersWithLists(400)
        let scores = try keys.map { try db.list("Player", $0, "scores").map { (v) -> Int64 in if case .int(let x) = v { return x }; return .min } }
        func expect(_ quantifier: String, _ values: (Int) -> [Bool]) -> [Int64] {
            keys.indices.filter { i in
                let v = values(i)
                switch quantifier {
                case "ANY": return v.contains(true)
                case "ALL": return !v.contains(false)
                default: return !v.contains(true)
                }
            }.map { keys[$0] }
        }
        let ops: [(String, (Int64, Int64) -> Bool)] = [("==", ==), ("!=", !=), ("<", <), ("<=", <=), (">", >), (">=", >=)]
        for quantifier in ["ANY", "ALL", "NONE"] {
            for (op, f) in ops {
                for c in [Int64(-6), 0, 50, 99] {
                    try check(db, "\(quantifier) scores \(op) $0", [.int(c)],
                              expected: expect(quantifier) { i in scores[i].map { f($0, c) } })
                    // Nulls: only != matches them (null is no number).
                    try check(db, "\(quantifier) maybe \(op) $0", [.int(c)],
                              expected: expect(quantifier) { i in lists.ints[i].map { $0.map { f($0, c) } ?? (op == "!=") } })
                }
            }
            // Null as the constant: equality tests the nulls.
            try check(db, "\(quantifier) maybe == nil", expected: expect(quantifier) { i in lists.ints[i].map { $0 == nil } })
            try check(db, "\(quantifier) maybe != $0", [.null], expected: expect(quantifier) { i in lists.ints[i].map { $0 != nil } })
            // A double constant against ints; doubles with NaN and nulls.
            try check(db, "\(quantifier) maybe > $0", [.double(49.5)],
                      expected: expect(quantifier) { i in lists.ints[i].map { $0.map { Double($0) > 49.5 } ?? false } })
            try check(db, "\(quantifier) ratios >= $0", [.double(10)],
                      expected: expect(quantifier) { i in lists.doubles[i].map { $0.map { !$0.isNaN && $0 >= 10 } ?? false } })
            try check(db, "\(quantifier) ratios != $0", [.double(2.5)],
                      expected: expect(quantifier) { i in lists.doubles[i].map { $0.map { $0.isNaN || $0 != 2.5 } ?? true } })
            // Strings: equality, [c], the string operators.
            try check(db, "\(quantifier) tags == $0", [.string("Ab")], expected: expect(quantifier) { i in lists.strings[i].map { $0 == "Ab" } })
            try check(db, "\(quantifier) tags ==[c] $0", [.string("ab")], expected: expect(quantifier) { i in lists.strings[i].map { $0.lowercased() == "ab" } })
            try check(db, "\(quantifier) tags BEGINSWITH $0", [.string("a")], expected: expect(quantifier) { i in lists.strings[i].map { $0.hasPrefix("a") } })
            try check(db, "\(quantifier) tags CONTAINS[c] $0", [.string("B")],
                      expected: expect(quantifier) { i in lists.strings[i].map { $0.lowercased().contains("b") } })
            try check(db, "\(quantifier) tags > $0", [.string("a")], expected: expect(quantifier) { i in lists.strings[i].map { $0 > "a" } })
        }
        // Refused by the in-place test, answered by the value reader.
        try check(db, "ANY mixed == $0", [.int(7)], expected: expect("ANY") { i in lists.ints[i].isEmpty ? [] : try! db.list("Player", keys[i], "mixed").map { $0 == .int(7) } },
                  fast: false)
        try check(db, "ALL scores BETWEEN {10, 60}",
                  expected: expect("ALL") { i in scores[i].map { $0 >= 10 && $0 <= 60 } },
                  fast: false)
        try check(db, "ANY scores > nil", expected: [], fast: false)
        try check(db, "ANY mixed.@type == 'int'", expected: expect("ANY") { i in lists.ints[i].isEmpty ? [] : [true] }, fast: false)
    }

    func testListsOfValuesAfterCommits() throws {
        let (db, keys, _) = try playersWithLists(300)
        let above = try db.query("Player", "ANY scores > $0", [.int(95)])
        let all = try db.query("Player", "ALL scores < $0", [.int(96)])
        func brute(_ test: ([TV]) -> Bool) throws -> [Int64] {
            try db.keys("Player").filter { try test(db.list("Player", $0, "scores")) }
        }
        func over(_ v: [TV]) -> Bool { v.contains { if case .int(let x) = $0 { return x > 95 }; return false } }
        func under(_ v: [TV]) -> Bool { v.allSatisfy { if case .int(let x) = $0 { return x < 96 }; return false } }
        XCTAssertEqual(try above.allKeys(), try brute(over))
        XCTAssertEqual(try all.allKeys(), try brute(under))
        // Elements appended, set, removed; an object deleted; a list emptied; a new object with an empty list.
        try db.write {
            try db.append("Player", keys[1], "scores", [.int(99)])
            try db.setElement("Player", keys[2], "scores", 0, .int(97))
            let contents = try db.list("Player", keys[3], "scores")
            for _ in contents { try db.removeElement("Player", keys[3], "scores", 0) }
            try db.delete("Player", keys[4])
            _ = try db.create("Player", [])
            for i in 10..<40 { try db.append("Player", keys[i], "scores", (0..<300).map { .int(Int64($0 % 90)) }) }
        }
        XCTAssertEqual(try above.allKeys(), try brute(over))
        XCTAssertEqual(try all.allKeys(), try brute(under))
        XCTAssertTrue(try all.allKeys().contains(keys[3]))
        XCTAssertFalse(try above.allKeys().contains(keys[4]))
        XCTAssertTrue(try above.allKeys().contains(keys[1]))
    }

    // MARK: Sorted keys

    func testSortedKeyClustersAndObjectSets() throws {
        var rng = SeededRandom(seed: 5)
        for round in 0..<200 {
            let keys = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in Int64.random(in: 0..<(round % 2 == 0 ? 2000 : 200_000), using: &rng) }.sorted()
            var fromClusters = Set<Int64>()
            var lastCluster: Int64 = -1
            for (cluster, bits) in SortedKeyClusters(keys) {
                XCTAssertGreaterThan(cluster, lastCluster)
                lastCluster = cluster
                XCTAssertNotEqual(bits, Bitmap(repeating: 0))
                forEachSlot(bits) { fromClusters.insert(cluster << ClusterLayout.shift | Int64($0)) }
            }
            XCTAssertEqual(fromClusters, Set(keys))
            // An object set from the keys, then changed in any order, against a Set.
            var set = ObjectSet(sortedKeys: keys)
            var model = Set(keys)
            for _ in 0..<Int.random(in: 0..<100, using: &rng) {
                let key = Int64.random(in: 0..<4000, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: set.insert(key); model.insert(key)
                case 1: set.remove(key); model.remove(key)
                default:
                    var bits = Bitmap(repeating: 0)
                    QueryEvaluator.set(&bits, Int(key & 255))
                    QueryEvaluator.set(&bits, Int((key >> 3) & 255))
                    set.insert(cluster: key >> 8, bits)
                    forEachSlot(bits) { model.insert((key >> 8) << ClusterLayout.shift | Int64($0)) }
                }
            }
            var visited: [Int64] = []
            try set.forEach { visited.append($0) }
            XCTAssertEqual(visited, model.sorted())
            XCTAssertEqual(set.isEmpty, model.isEmpty)
            for key in Array(model.prefix(20)) + [-1, 5000, 1 << 20] { XCTAssertEqual(set.contains(key), model.contains(key)) }
            XCTAssertEqual(set.sortedClusters, Array(Set(model.map { ClusterLayout.cluster(of: $0) })).sorted())
            // The same keys in any order (dense and sparse ranges alike).
            var shuffled = keys + keys.prefix(5)
            shuffled.shuffle(using: &rng)
            var fromShuffled: [Int64] = []
            try ObjectSet(keysInAnyOrder: shuffled).forEach { fromShuffled.append($0) }
            XCTAssertEqual(fromShuffled, Array(Set(keys)).sorted())
            XCTAssertEqual(ObjectSet(keysInAnyOrder: shuffled).sortedClusters, ObjectSet(sortedKeys: keys).sortedClusters)
        }
    }
}
