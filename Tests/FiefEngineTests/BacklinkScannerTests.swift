import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// `BacklinkScanner` asked for many targets in ascending key order: the
/// records it gives match the model for targets with none, one or many
/// records (over several runs), before, between and after the runs, in an
/// empty database; and a target that a seek showed has no record (below
/// the run the seek landed on, or past the last record) costs no seek.
/// `Realm.forEachLinkingObject` (its user) gives, in a snapshot and in a
/// write transaction, what `linkingObjects` gives per key.
final class BacklinkScannerTests: XCTestCase {
    private struct Link: Hashable, Comparable {
        var target: Int64, pair: UInt64, origin: Int64
        static func < (a: Link, b: Link) -> Bool {
            (UInt64(bitPattern: a.target), a.pair, UInt64(bitPattern: a.origin)) < (UInt64(bitPattern: b.target), b.pair, UInt64(bitPattern: b.origin))
        }
    }

    private static let pairs: [UInt64] = [1 << 32 | 1, 1 << 32 | 2, 2 << 32 | 1]

    /// A backlinks database at a fresh path holding `links`.
    private func database(_ links: Set<Link>) -> String {
        let path = tempDir().file()
        withRawLMDB(path, database: "c1.b") { txn, dbi in
            do {
                for link in links {
                    try Backlinks.add(txn, dbi, target: link.target, originClass: UInt32(link.pair >> 32), property: UInt32(truncatingIfNeeded: link.pair), origin: link.origin)
                }
            } catch {
                XCTFail("\(error)")
            }
        }
        return path
    }

    /// Ask every target of `asked` (ascending) of three scanners (plain; a
    /// snapshot's checked runs; those and a run directory), all records and
    /// one pair's, and compare with `links`.  The plain scanner's seeks.
    private func scan(_ links: Set<Link>, asked: [Int64], file: StaticString = #filePath, line: UInt = #line) -> (seeks: Int, runs: Int) {
        let path = database(links)
        var byTarget: [Int64: [Link]] = [:]
        for link in links.sorted() { byTarget[link.target, default: []].append(link) }
        var result = (seeks: 0, runs: 0)
        withRawLMDB(path, database: "c1.b", readOnly: true) { txn, dbi in
            do {
                var stat = MDB_stat()
                mdb_stat(txn, dbi, &stat)
                result.runs = Int(stat.ms_entries)
                let checked = Backlinks.CheckedRuns(), directory = Backlinks.RunDirectory()
                var scanners = [try BacklinkScanner(txn, dbi),
                                BacklinkScanner(cursor: try LMDBCursor(txn, dbi), checked: checked),
                                BacklinkScanner(cursor: try LMDBCursor(txn, dbi), checked: checked, directory: directory)]
                var onePair = try BacklinkScanner(txn, dbi)
                for target in asked {
                    let expected = byTarget[target] ?? []
                    for i in scanners.indices {
                        var seen: [Link] = []
                        try scanners[i].forEachRecord(of: target) { (pair, origin, _) in seen.append(Link(target: target, pair: pair, origin: origin)) }
                        XCTAssertEqual(seen, expected, "scanner \(i), target \(target)", file: file, line: line)
                    }
                    let pair = Self.pairs[Int(target % 3)]
                    let expectedOfPair = expected.filter { $0.pair == pair }.count
                    XCTAssertEqual(try onePair.countRecords(of: target, originClass: UInt32(pair >> 32), property: UInt32(truncatingIfNeeded: pair)),
                                   expectedOfPair, "count, target \(target)", file: file, line: line)
                }
                result.seeks = scanners[0].seeks
            } catch {
                XCTFail("\(error)", file: file, line: line)
            }
        }
        return result
    }

    func testAnEmptyDatabaseCostsOneSeek() {
        let (seeks, runs) = scan([], asked: Array(0..<10_000))
        XCTAssertEqual(runs, 0)
        XCTAssertEqual(seeks, 1)
    }

    func testSparseRecords() {
        // Every 97th target of 30,000 has one to three records; keys asked
        // before the first, between every two, and past the last.
        var random = SeededRandom(seed: 5)
        var links = Set<Link>()
        for target in stride(from: Int64(500), to: 30_000, by: 97) {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                links.insert(Link(target: target, pair: Self.pairs.randomElement(using: &random)!, origin: Int64.random(in: 0..<100_000, using: &random)))
            }
        }
        let (seeks, runs) = scan(links, asked: Array(0..<30_200) + [1 << 40])
        XCTAssertGreaterThan(runs, 3, "records over several runs")
        // A seek per run at most (and one at the start, one past the end,
        // one per run left through its end): not one per key between runs.
        XCTAssertLessThanOrEqual(seeks, 2 * runs + 2)
    }

    func testDenseRecords() {
        // Every target of 4,000 linked, one by 1,500 origins (over several
        // runs), gaps of a few targets here and there.
        var random = SeededRandom(seed: 6)
        var links = Set<Link>()
        for target in Int64(0)..<4_000 where target % 50 >= 3 {
            let count = target == 2_000 ? 1_500 : Int.random(in: 1...4, using: &random)
            for _ in 0..<count {
                links.insert(Link(target: target, pair: Self.pairs.randomElement(using: &random)!, origin: Int64.random(in: 0..<1_000_000, using: &random)))
            }
        }
        let (seeks, runs) = scan(links, asked: Array(0..<4_100))
        XCTAssertGreaterThan(runs, 10)
        XCTAssertLessThanOrEqual(seeks, 2 * runs + 2)
    }

    func testKeysAskedOnlyBetweenRuns() {
        // Records at a few far targets; asked only where there are none
        // (and once at each target, so the scanner moves through them).
        let targets: [Int64] = [1_000, 1_001, 5_000, 90_000]
        var links = Set<Link>()
        for target in targets { for origin in Int64(0)..<3 { links.insert(Link(target: target, pair: Self.pairs[0], origin: origin)) } }
        var asked: [Int64] = []
        for target in targets { asked += [target - 2, target - 1, target, target + 1] }
        asked += [100_000, 1 << 50]
        let (seeks, _) = scan(links, asked: Array(Set(asked)).sorted())
        XCTAssertLessThanOrEqual(seeks, 2 * targets.count + 2)
    }

    /// In a snapshot (one scanner) and in a write transaction (per key),
    /// each dog's owners as `linkingObjects` names them.
    func testLinkingObjectsOfManyKeys() throws {
        let db = try DB.open(tempDir().file(), Schema(classes: [
            ObjectClass(name: "Person", properties: [
                prop("name", .string),
                Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
                Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
            ]),
            ObjectClass(name: "Dog", properties: [prop("name", .string)]),
        ]))
        var random = SeededRandom(seed: 9)
        let dogs = try db.write { try db.createMany("Dog", ["name"], (0..<600).map { [.string("d\($0)")] }) }
        let people = try db.write { try db.createMany("Person", ["name"], (0..<300).map { [.string("p\($0)")] }) }
        try db.write {
            for person in people where Int.random(in: 0..<3, using: &random) > 0 {
                try db.set("Person", person, "dog", .link(db.cls("Dog"), dogs[Int.random(in: 0..<40, using: &random) * 15]))
                try db.append("Person", person, "dogs", (0..<Int.random(in: 0...3, using: &random)).map { _ in .link(db.cls("Dog"), dogs.randomElement(using: &random)!) })
            }
        }
        let realm = db.realm, person = db.cls("Person"), dog = db.cls("Dog")
        let pairs = [ObjectChanges.linkingPair(originClass: person, property: db.pkey("Person", "dogs")),
                     ObjectChanges.linkingPair(originClass: person, property: db.pkey("Person", "dog"))]
        let asked = dogs + [dogs.last! + 1, dogs.last! + 1_000]
        /// Every key's origins through `linkingObjects`, key by key, in the
        /// order of `order` (the records' order: pair, then origin, when sorted).
        func perKey(_ order: [UInt64], sorted: Bool) throws(FiefError) -> [Int64] {
            var expected: [Int64] = []
            for key in asked {
                for pair in order {
                    let origins = try realm.linkingObjects(to: key, of: dog, originClass: UInt32(pair >> 32), property: UInt32(truncatingIfNeeded: pair))
                    expected += sorted ? origins.sorted() : origins
                }
            }
            return expected
        }
        // In the snapshot: one scan in key order.
        try realm.lock.withLock { () throws(FiefError) in
            var all: [Int64] = []
            try realm.forEachLinkingObject(to: asked, of: dog, through: pairs) { (index, origin) in
                XCTAssertLessThan(index, pairs.count)
                all.append(origin)
            }
            XCTAssertEqual(all, try perKey(pairs.sorted(), sorted: true))
            XCTAssertGreaterThan(all.count, 100)
        }
        // In a write transaction, after links changed in it (buffered).
        try db.write {
            try db.set("Person", people[0], "dog", .link(db.cls("Dog"), dogs[1]))
            try db.append("Person", people[1], "dogs", [.link(db.cls("Dog"), dogs[2])])
            try realm.lock.withLock { () throws(FiefError) in
                var all: [Int64] = []
                try realm.forEachLinkingObject(to: asked, of: dog, through: pairs) { (_, origin) in all.append(origin) }
                XCTAssertEqual(all, try perKey(pairs, sorted: false))
                XCTAssertTrue(all.contains(people[0]) && all.contains(people[1]))
            }
        }
    }
}
