import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Counts of a path of to-one links made without finding the matches
/// (`QueryScan.countMatches`: the targets' backlink records through the
/// path's first property, summed), the backlink reads under them
/// (`BacklinkScanner.countRecords`, `Backlinks.Run.lowerBound(_:near:)`,
/// the runs a snapshot checked once: `Backlinks.CheckedRuns`), and the
/// paths that must not be counted so (lists, backlinks, null links,
/// complements), each against brute force and against iterating the same
/// results: null links, deleted owners and dogs, links from several
/// properties to one class (a mixed one too), a person linked by many
/// dogs (records over several runs), chains of links, after commits and
/// inside a write transaction.
final class LinkCountTests: XCTestCase {
    private let names: [TV] = [.string("Ann"), .string("Bob"), .string("Cy"), .null, .string("Dee"), .string("Ann")]

    /// 5 companies, 80 people (the last, "Pop", owns 900 dogs), 2,500 dogs
    /// with an owner (1 in 7 none), a walker, a list of friends (repeats
    /// allowed) and a mixed value that may link a person.
    private func world() throws -> DB {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Company", properties: [prop("name", .string, .indexed)]),
            ObjectClass(name: "Person", properties: [
                prop("name", .string, [.indexed, .nullable]), prop("age", .int),
                Property(name: "boss", type: .link, flags: .nullable, linkTarget: "Person"),
                Property(name: "employer", type: .link, flags: .nullable, linkTarget: "Company"),
            ]),
            ObjectClass(name: "Dog", properties: [
                prop("name", .string), prop("age", .int),
                Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person"),
                Property(name: "walker", type: .link, flags: .nullable, linkTarget: "Person"),
                Property(name: "friends", type: .link, linkTarget: "Person", collection: .list),
                prop("any", .mixed, .nullable),
            ]),
        ]))
        var rng = SeededRandom(seed: 77)
        try db.write {
            let company = db.cls("Company"), person = db.cls("Person")
            let companies = try db.createMany("Company", ["name"], ["Acme", "Bolt", "Acme", "Crux", "Dyn"].map { [.string($0)] })
            var people = try db.createMany("Person", ["name", "age"], (0..<79).map { [names[$0 % names.count], .int(Int64($0 % 60))] })
            people.append(try db.create("Person", [("name", .string("Pop")), ("age", .int(33))]))
            for (i, key) in people.enumerated() {
                if i % 4 != 0 { try db.set("Person", key, "boss", .link(person, people[(i * 13 + 5) % people.count])) }
                if i % 3 != 0 { try db.set("Person", key, "employer", .link(company, companies[i % companies.count])) }
            }
            let dogs = try db.createMany("Dog", ["name", "age"], (0..<2500).map { [.string("d\($0 % 9)"), .int(Int64($0 % 12))] })
            for (i, dog) in dogs.enumerated() {
                let owner: Int64? = i % 7 == 3 ? nil : i % 3 == 0 ? people[people.count - 1] : people[Int.random(in: 0..<people.count, using: &rng)]
                if let owner { try db.set("Dog", dog, "owner", .link(person, owner)) }
                // Walkers: often the owner itself (two properties, one dog, one person).
                if i % 5 != 0 { try db.set("Dog", dog, "walker", .link(person, i % 2 == 0 ? owner ?? people[0] : people[(i * 7) % people.count])) }
                let friends = (0..<Int.random(in: 0..<4, using: &rng)).map { _ in people[Int.random(in: 0..<people.count, using: &rng)] }
                if !friends.isEmpty { try db.append("Dog", dog, "friends", (friends + friends.prefix(1)).map { .link(person, $0) }) }
                if i % 4 == 1 { try db.set("Dog", dog, "any", .link(person, people[(i * 3) % people.count])) }
            }
        }
        return db
    }

    /// The value at the end of `path` (property names, links followed) of
    /// object `key` of `className`: null past a null link.
    private func follow(_ db: DB, _ className: String, _ key: Int64, _ path: [String]) throws -> TV {
        var className = className, key = key
        for (i, name) in path.enumerated() {
            let value = try db.get(className, key, name)
            if i == path.count - 1 { return value }
            guard case .link(let cls, let target) = value else { return .null }
            className = db.realm.schema.classes.first { db.cls($0.name) == cls }!.name
            key = target
        }
        return .null
    }

    private struct Case {
        let className: String
        let predicate: String
        let args: [TV]
        /// Whether the count is made without the matches (nil: either).
        let counted: Bool?
        /// Brute force, per object of `className`.
        let matches: (DB, Int64) throws -> Bool
    }

    private func cases(_ s: LinkCountTests) -> [Case] {
        func path(_ className: String, _ p: String, _ test: @escaping (TV) -> Bool) -> (DB, Int64) throws -> Bool {
            { db, key in test(try s.follow(db, className, key, p.split(separator: ".").map(String.init))) }
        }
        func named(_ name: String) -> (TV) -> Bool { { $0 == .string(name) } }
        func olderThan(_ age: Int64) -> (TV) -> Bool { { if case .int(let a) = $0 { return a > age }; return false } }
        return [
            Case(className: "Dog", predicate: "owner.name == $0", args: [.string("Ann")], counted: true, matches: path("Dog", "owner.name", named("Ann"))),
            Case(className: "Dog", predicate: "owner.name == $0", args: [.string("Pop")], counted: true, matches: path("Dog", "owner.name", named("Pop"))),
            Case(className: "Dog", predicate: "owner.name == $0", args: [.string("nobody")], counted: true, matches: path("Dog", "owner.name", named("nobody"))),
            Case(className: "Dog", predicate: "walker.name == $0", args: [.string("Pop")], counted: true, matches: path("Dog", "walker.name", named("Pop"))),
            Case(className: "Dog", predicate: "owner.name IN {'Ann', 'Pop'}", args: [], counted: true,
                 matches: path("Dog", "owner.name") { $0 == .string("Ann") || $0 == .string("Pop") }),
            Case(className: "Dog", predicate: "owner.name IN {'Pop', 'Ann', 'Pop'}", args: [], counted: true,
                 matches: path("Dog", "owner.name") { $0 == .string("Ann") || $0 == .string("Pop") }),
            Case(className: "Dog", predicate: "owner.name == 'Ann' AND owner.age > 20", args: [], counted: nil, matches: { db, key in
                try path("Dog", "owner.name", named("Ann"))(db, key) && path("Dog", "owner.age", olderThan(20))(db, key)
            }),
            Case(className: "Dog", predicate: "owner.name BEGINSWITH $0", args: [.string("D")], counted: true,
                 matches: path("Dog", "owner.name") { if case .string(let n) = $0 { return n.hasPrefix("D") }; return false }),
            Case(className: "Dog", predicate: "owner.age > $0", args: [.int(40)], counted: true, matches: path("Dog", "owner.age", olderThan(40))),
            Case(className: "Dog", predicate: "owner.boss.name == $0", args: [.string("Bob")], counted: true, matches: path("Dog", "owner.boss.name", named("Bob"))),
            Case(className: "Dog", predicate: "owner.employer.name == $0", args: [.string("Acme")], counted: true,
                 matches: path("Dog", "owner.employer.name", named("Acme"))),
            Case(className: "Dog", predicate: "walker.boss.boss.age > $0", args: [.int(20)], counted: true, matches: path("Dog", "walker.boss.boss.age", olderThan(20))),
            Case(className: "Person", predicate: "boss.name == $0", args: [.string("Ann")], counted: true, matches: path("Person", "boss.name", named("Ann"))),
            Case(className: "Person", predicate: "employer.name == $0", args: [.string("Acme")], counted: true, matches: path("Person", "employer.name", named("Acme"))),
            // Not counted so: a null link matching, a complement, a list, backlinks, another filter with it.
            Case(className: "Dog", predicate: "owner.name == $0", args: [.null], counted: false, matches: path("Dog", "owner.name") { $0 == .null }),
            Case(className: "Dog", predicate: "NOT owner.name == $0", args: [.string("Ann")], counted: false, matches: path("Dog", "owner.name") { $0 != .string("Ann") }),
            Case(className: "Dog", predicate: "ANY friends.name == $0", args: [.string("Ann")], counted: false, matches: { db, key in
                try db.list("Dog", key, "friends").contains { v in
                    guard case .link(_, let p) = v else { return false }
                    return try db.get("Person", p, "name") == .string("Ann")
                }
            }),
            Case(className: "Person", predicate: "ANY @links.Dog.owner.age == $0", args: [.int(3)], counted: false, matches: { db, key in
                try db.keys("Dog").contains { d in try db.get("Dog", d, "age") == .int(3) && db.get("Dog", d, "owner") == .link(db.cls("Person"), key) }
            }),
            Case(className: "Dog", predicate: "owner.name == $0 AND age > $1", args: [.string("Pop"), .int(5)], counted: false, matches: { db, key in
                try path("Dog", "owner.name", named("Pop"))(db, key) && olderThan(5)(try db.get("Dog", key, "age"))
            }),
        ]
    }

    /// Every case: the count (twice: the second kept), the iteration, and
    /// brute force agree, and the count is made so when `counted`.
    private func checkAll(_ db: DB, _ note: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for c in cases(self) {
            let expected = try db.keys(c.className).filter { try c.matches(db, $0) }
            let label = "\(c.predicate) \(c.args) (\(note))"
            let counting = try db.query(c.className, c.predicate, c.args)
            XCTAssertEqual(try counting.count(), expected.count, label, file: file, line: line)
            XCTAssertEqual(try counting.count(), expected.count, label, file: file, line: line)
            XCTAssertEqual(try counting.allKeys(), expected, label, file: file, line: line)
            XCTAssertEqual(try counting.count(), expected.count, label, file: file, line: line)
            // Iterated first, then counted.
            let iterating = try db.query(c.className, c.predicate, c.args)
            XCTAssertEqual(try iterating.allKeys(), expected, label, file: file, line: line)
            XCTAssertEqual(try iterating.count(), expected.count, label, file: file, line: line)
            let direct = try QueryScan(realm: db.realm).countMatches(counting.filters[0].root)
            if let counted = c.counted { XCTAssertEqual(direct != nil, counted, "counted without the matches: \(label)", file: file, line: line) }
            if let direct { XCTAssertEqual(direct, expected.count, label, file: file, line: line) }
        }
    }

    func testCountsAgreeWithIterationAndBruteForce() throws {
        let db = try world()
        try checkAll(db, "as made")
        // So many backlink reads in one snapshot made its directory of Person's runs.
        let dbi = try XCTUnwrap(try db.realm.table(db.cls("Person")).backlinks)
        XCTAssertTrue(try db.realm.currentSnapshot().runDirectory(dbi).isBuilt)
        XCTAssertGreaterThan(try db.query("Dog", "owner.name == $0", [.string("Pop")]).count(), 700)
    }

    func testCountsFollowCommitsAndWrites() throws {
        let db = try world()
        let person = db.cls("Person")
        let people = try db.keys("Person"), dogs = try db.keys("Dog")
        let pop = people[people.count - 1]
        // Live results, counted before and after each change.
        let popDogs = try db.query("Dog", "owner.name == $0", [.string("Pop")])
        let annDogs = try db.query("Dog", "owner.name == $0", [.string("Ann")])
        let bossed = try db.query("Dog", "owner.boss.name == $0", [.string("Bob")])
        func expected(_ path: String, _ name: String) throws -> Int {
            try db.keys("Dog").filter { try follow(db, "Dog", $0, path.split(separator: ".").map(String.init)) == .string(name) }.count
        }
        func checkLive(_ note: String) throws {
            XCTAssertEqual(try popDogs.count(), try expected("owner.name", "Pop"), note)
            XCTAssertEqual(try annDogs.count(), try expected("owner.name", "Ann"), note)
            XCTAssertEqual(try bossed.count(), try expected("owner.boss.name", "Bob"), note)
        }
        try checkLive("as made")
        // A column the filters do not read: the kept counts stay right.
        try db.write { try db.set("Dog", dogs[0], "name", .string("renamed")) }
        try checkLive("a dog renamed")
        // Dogs relinked, unlinked, deleted; new dogs; an owner renamed; an owner deleted (its dogs' links become null).
        try db.write {
            for dog in dogs.prefix(40) { try db.set("Dog", dog, "owner", .link(person, pop)) }
            for dog in dogs[40..<60] { try db.set("Dog", dog, "owner", .null) }
            for dog in dogs[60..<90] { try db.delete("Dog", dog) }
            for _ in 0..<300 { try db.set("Dog", try db.create("Dog", [("name", .string("new"))]), "owner", .link(person, pop)) }
            try db.set("Person", people[1], "name", .string("Ann"))
            try db.delete("Person", people[0])
            try db.set("Person", people[4], "boss", .link(person, people[1]))
        }
        try checkLive("after a commit")
        try checkAll(db, "after a commit")
        // Inside a write transaction, uncommitted: Pop deleted, then another Pop with dogs.
        try db.realm.beginWrite()
        try db.delete("Person", pop)
        try checkLive("Pop deleted, uncommitted")
        XCTAssertEqual(try popDogs.count(), 0)
        let pop2 = try db.create("Person", [("name", .string("Pop"))])
        for dog in try db.keys("Dog").prefix(25) { try db.set("Dog", dog, "owner", .link(person, pop2)) }
        try checkLive("a new Pop, uncommitted")
        XCTAssertEqual(try popDogs.count(), 25)
        try checkAll(db, "in a write transaction")
        db.realm.cancelWrite()
        try checkLive("cancelled")
        XCTAssertGreaterThan(try popDogs.count(), 800)
        // Every dog deleted.
        try db.write { try db.realm.deleteAll(table: db.cls("Dog")) }
        try checkLive("no dogs")
        XCTAssertEqual(try popDogs.count(), 0)
    }

    func testCountsAfterAnotherRealmCommits() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string, .indexed)]),
            ObjectClass(name: "Dog", properties: [Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
        let db = try DB.open(path, schema)
        let person = db.cls("Person")
        let ann = try db.write { () -> Int64 in
            let ann = try db.create("Person", [("name", .string("Ann"))])
            for _ in 0..<10 { try db.set("Dog", try db.create("Dog", []), "owner", .link(person, ann)) }
            return ann
        }
        let annDogs = try db.query("Dog", "owner.name == $0", [.string("Ann")])
        XCTAssertEqual(try annDogs.count(), 10)
        let other = try DB.open(path, schema)
        try other.write { for _ in 0..<5 { try other.set("Dog", try other.create("Dog", []), "owner", .link(person, ann)) } }
        XCTAssertTrue(try db.realm.refresh())
        XCTAssertEqual(try annDogs.count(), 15)
        XCTAssertEqual(try db.query("Dog", "owner.name == $0", [.string("Ann")]).count(), 15)
        other.realm.close()
    }

    // MARK: Backlink reads

    struct Link: Hashable, Comparable {
        var target: Int64, originClass: UInt32, property: UInt32, origin: Int64
        static func < (a: Link, b: Link) -> Bool {
            (UInt64(bitPattern: a.target), a.originClass, a.property, UInt64(bitPattern: a.origin))
                < (UInt64(bitPattern: b.target), b.originClass, b.property, UInt64(bitPattern: b.origin))
        }
    }

    /// Records counted per (target, class, property) agree with the
    /// records visited and with the model, for targets with none, one run,
    /// or many runs; in a read snapshot with its checked runs, read twice.
    func testCountedRecordsMatchTheModel() throws {
        let path = tempDir().file()
        var seed: UInt64 = 0xC0FFEE
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        var model = Set<Link>()
        withRawLMDB(path, database: "c1.b") { txn, dbi in
            do {
                for _ in 0..<8000 {
                    // Targets in a few clusters; one target with very many records; origins near and far; three pairs.
                    let target: Int64 = next(10) == 0 ? 5000 : Int64(next(3) * 4096 + next(600))
                    let link = Link(target: target, originClass: UInt32(1 + next(2)), property: UInt32(1 + next(2)),
                                    origin: next(12) == 0 ? Int64(next(1 << 30)) << 8 : Int64(next(20000)))
                    if model.insert(link).inserted {
                        try Backlinks.add(txn, dbi, target: link.target, originClass: link.originClass, property: link.property, origin: link.origin)
                    }
                }
            } catch {
                XCTFail("\(error)")
            }
        }
        var byPair: [Link: [Link]] = [:]
        for link in model.sorted() { byPair[Link(target: link.target, originClass: link.originClass, property: link.property, origin: 0), default: []].append(link) }
        let targets = Set(model.map(\.target)).sorted()
        let asked = Array(Set(targets + targets.map { $0 + 1 } + [0, 4999, 5001, 1 << 40])).sorted()
        let pairs: [(UInt32, UInt32)] = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)]
        withRawLMDB(path, database: "c1.b", readOnly: true) { txn, dbi in
            do {
                XCTAssertGreaterThan(model.filter { $0.target == 5000 }.count, 600)
                let checked = Backlinks.CheckedRuns()
                let directory = Backlinks.RunDirectory()
                for pass in 0..<2 {
                    var plain = try BacklinkScanner(txn, dbi)
                    var cached = BacklinkScanner(cursor: try LMDBCursor(txn, dbi), checked: checked)
                    // Through the directory (made after its first seeks), records visited and counted.
                    var listed = BacklinkScanner(cursor: try LMDBCursor(txn, dbi), checked: checked, directory: directory)
                    for (c, p) in pairs {
                        // Targets asked in ascending order (the scanner keeps its run), then one by one afresh.
                        for target in asked {
                            let expected = byPair[Link(target: target, originClass: c, property: p, origin: 0)] ?? []
                            var visited: [Link] = []
                            try plain.forEachRecord(of: target, originClass: c, property: p) { (_, origin, _) in
                                visited.append(Link(target: target, originClass: c, property: p, origin: origin))
                            }
                            XCTAssertEqual(visited, expected, "pass \(pass) target \(target)")
                            var listedVisits: [Link] = []
                            try listed.forEachRecord(of: target, originClass: c, property: p) { (_, origin, _) in
                                listedVisits.append(Link(target: target, originClass: c, property: p, origin: origin))
                            }
                            XCTAssertEqual(listedVisits, expected, "pass \(pass) target \(target), directory")
                            XCTAssertEqual(try listed.countRecords(of: target, originClass: c, property: p), expected.count, "directory")
                            XCTAssertEqual(try cached.countRecords(of: target, originClass: c, property: p), expected.count, "pass \(pass) target \(target)")
                            var fresh = try BacklinkScanner(txn, dbi)
                            XCTAssertEqual(try fresh.countRecords(of: target, originClass: c, property: p), expected.count)
                        }
                    }
                }
                // The directory was made, and finds the run MDB_SET_RANGE finds.
                XCTAssertTrue(directory.isBuilt)
                let cursor = try LMDBCursor(txn, dbi)
                for link in model.sorted().enumerated().filter({ $0.offset % 7 == 0 }).map(\.element) {
                    for probe in [link, Link(target: link.target, originClass: link.originClass, property: link.property, origin: link.origin + 1),
                                  Link(target: link.target + 1, originClass: 0, property: 0, origin: 0)] {
                        let r = Backlinks.Record(target: probe.target, originClass: probe.originClass, property: probe.property, origin: probe.origin)
                        var key = [UInt8](repeating: 0, count: Backlinks.keyBytes)
                        key.withUnsafeMutableBytes { r.writeKey($0.baseAddress!) }
                        let found = try key.withBytes { (k) throws(FiefError) in try cursor.seek(k) }
                        let i = directory.find(r)
                        if let found {
                            XCTAssertLessThan(i, directory.count)
                            if i < directory.count { XCTAssertEqual(Array(directory.run(i).key), Array(found.key)) }
                        } else {
                            XCTAssertEqual(i, directory.count)
                        }
                    }
                }
            } catch {
                XCTFail("\(error)")
            }
        }
    }

    /// `lowerBound(_:near:)` finds what the binary search finds, from any
    /// guess, for records present and absent; `upperBound` ends a
    /// target's records of one pair.
    func testSearchesFromAGuessAgreeWithBinarySearch() throws {
        let path = tempDir().file()
        var seed: UInt64 = 0xBEEF
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        withRawLMDB(path, database: "c1.b") { txn, dbi in
            do {
                for _ in 0..<3000 {
                    try Backlinks.add(txn, dbi, target: Int64(next(700)), originClass: UInt32(1 + next(2)), property: 1 + UInt32(next(2)),
                                      origin: Int64(next(100_000)))
                }
                let cursor = try LMDBCursor(txn, dbi)
                var entry = try cursor.move(MDB_FIRST)
                var runs = 0
                while let (k, v) = entry {
                    guard let run = Backlinks.Run(v, key: k) else { return XCTFail("a damaged run") }
                    runs += 1
                    let last = run.target(run.count - 1)
                    var probes: [Backlinks.Record] = []
                    for i in 0..<run.count {
                        let r = run.record(i)
                        probes.append(r)
                        probes.append(Backlinks.Record(target: r.target, pair: r.pair, origin: 0, count: 1))
                        probes.append(Backlinks.Record(target: r.target, pair: r.pair, origin: r.origin + 1, count: 1))
                        probes.append(Backlinks.Record(target: r.target + 1, pair: 0, origin: 0, count: 1))
                    }
                    probes.append(Backlinks.Record(target: 0, pair: 0, origin: 0, count: 1))
                    probes.append(Backlinks.Record(target: .max, pair: 0, origin: 0, count: 1))
                    for r in probes {
                        let expected = run.lowerBound(r)
                        for guess in [-3, 0, 1, run.count / 2, run.count - 1, run.count, run.count + 5, run.guess(r.target, last: last)] {
                            XCTAssertEqual(run.lowerBound(r, near: guess), expected)
                        }
                        if expected < run.count {
                            var end = expected
                            while end < run.count && run.target(end) == r.target && run.pair(end) == r.pair { end += 1 }
                            if run.target(expected) == r.target && run.pair(expected) == r.pair {
                                XCTAssertEqual(run.upperBound(target: r.target, pair: r.pair, from: expected), end)
                            }
                        }
                    }
                    entry = try cursor.next()
                }
                XCTAssertGreaterThan(runs, 5)
            } catch {
                XCTFail("\(error)")
            }
        }
    }

    /// A damaged run is refused by the count too, every time (a run that
    /// failed its check is never taken as checked).
    func testADamagedRunFailsTheCount() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = Schema(classes: [
            ObjectClass(name: "Person", properties: [prop("name", .string, .indexed)]),
            ObjectClass(name: "Dog", properties: [Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
        var personClass: UInt32 = 0
        do {
            let db = try DB.open(path, schema)
            personClass = db.cls("Person")
            try db.write {
                let people = try db.createMany("Person", ["name"], (0..<50).map { _ in [.string("Ann")] })
                for i in 0..<400 { try db.set("Dog", try db.create("Dog", []), "owner", .link(personClass, people[i % 50])) }
            }
            XCTAssertEqual(try db.query("Dog", "owner.name == $0", [.string("Ann")]).count(), 400)
            db.realm.close()
        }
        withRawLMDB(path, database: Table.backlinksName(personClass)) { txn, dbi in
            do {
                let cursor = try LMDBCursor(txn, dbi)
                guard let (k, v) = try cursor.move(MDB_FIRST) else { return XCTFail("no run") }
                var bytes = Array(v)
                bytes[bytes.count - 8] ^= 0x01
                let key = Array(k)
                try key.withBytes { (kb) throws(FiefError) in try bytes.withBytes { (vb) throws(FiefError) in _ = try LMDB.put(txn, dbi, kb, vb) } }
            } catch {
                XCTFail("\(error)")
            }
        }
        let db = try DB.open(path, schema)
        for _ in 0..<2 {
            expectError(.fileCorrupt) { _ = try db.query("Dog", "owner.name == $0", [.string("Ann")]).count() }
            expectError(.fileCorrupt) { _ = try db.query("Dog", "owner.name == $0", [.string("Ann")]).allKeys() }
        }
        db.realm.close()
    }
}
