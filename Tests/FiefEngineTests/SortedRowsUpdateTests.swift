import XCTest
@testable import FiefStorage
@testable import FiefEngine
#if canImport(Glibc)
import Glibc
#endif

/// Issue 22: sorted results brought up to date from the objects a commit
/// touched (`ObjectResults.sortedRows(from:touching:deleted:modified:)`),
/// as more cases of `ResultsNotifierTests` (its fixture).
extension ResultsNotifierTests {
    /// Random commits of many objects each (creates, deletes, renames, ages,
    /// links to dogs, dogs renamed; names and ages from small sets, so the
    /// sort keys tie), over sorted results ascending, descending and by two
    /// keys, each commit delivered: the rows handed over equal a fresh
    /// evaluation, the change set takes the old rows to the new, no more
    /// rows move than people were touched, and the rows not inserted are
    /// modifications exactly when their person was written or links to a
    /// renamed dog (Realm's default key paths).
    func testManyObjectChangesOfSortedResultsAgainstAFreshEvaluation() throws {
        let f = try Fixture(self)
        let db = f.db
        var random = SeededRandom(seed: 2224)
        var people = try db.results("Person").allKeys()
        try db.write {
            for i in 0..<300 {
                people.append(try db.create("Person", [("name", .string("n\(i % 37)")), ("age", .int(Int64(i % 40)))]))
            }
        }
        let configurations: [(String, [(String, Bool)])] = [
            ("age >= 10", [("name", true)]),
            ("age < 30", [("name", false)]),
            ("TRUEPREDICATE", [("age", false), ("name", true)]),
        ]
        var operations = 0
        for (query, sort) in configurations {
            let sorted = try db.query("Person", query).sorted(by: sort)
            var previous: [Int64] = []
            var written: Set<Int64> = []
            var renamedDogs: Set<Int64> = []
            var touched = 0
            var calls = 0
            var failures: [String] = []
            let notifier = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
                try db.realm.addResultsNotifier(sorted, keyPaths: nil) { change in
                    calls += 1
                    let now = (try? sorted.allKeys()) ?? []
                    let fresh = (try? db.query("Person", query).sorted(by: sort).allKeys()) ?? []
                    if now != fresh { failures.append("rows differ from a fresh evaluation") }
                    // Counts and aggregates read the cluster masks handed over with the rows.
                    let age = db.pkey("Person", "age")
                    let freshResults = try? db.query("Person", query)
                    if (try? sorted.count()) != fresh.count { failures.append("count differs from a fresh evaluation") }
                    if let freshResults, (try? sorted.aggregate(.sum, property: age)).map(TV.init) != (try? freshResults.aggregate(.sum, property: age)).map(TV.init) {
                        failures.append("sum of ages differs from a fresh evaluation")
                    }
                    if case .update(let c) = change {
                        if applyChangeSet(c, to: previous, new: now) != now { failures.append("\(c) does not take the old rows to the new") }
                        if c.deletions.count > touched || c.insertions.count > touched {
                            failures.append("\(touched) objects touched moved more rows: \(c)")
                        }
                        let inserted = Set(c.insertions.indices), modified = Set(c.modificationsNew.indices)
                        for (index, key) in now.enumerated() where !inserted.contains(index) {
                            var expected = written.contains(key)
                            if case .link(_, let dog)? = try? db.get("Person", key, "dog"), renamedDogs.contains(dog) { expected = true }
                            if expected != modified.contains(index) { failures.append("row \(index) modified: \(!expected), expected \(expected)") }
                        }
                    }
                    previous = now
                }
            }
            func settle() throws { try db.settle(notifier) }
            try settle()
            for step in 0..<60 {
                // 1 to 60 objects (up to a fifth of the rows), some twice.
                let count = 1 + Int(random.next() % 60)
                var keys: Set<Int64> = []
                written = []
                renamedDogs = []
                try db.write {
                    for _ in 0..<count {
                        let pick = people.isEmpty ? nil : people[Int(random.next() % UInt64(people.count))]
                        let name = "n\(random.next() % 37)"
                        let age = Int64(random.next() % 40)
                        let dog = f.dogs[Int(random.next() % UInt64(f.dogs.count))]
                        switch (random.next() % 8, pick) {
                        case (0, _), (_, nil):
                            let made = try db.create("Person", [("name", .string(name)), ("age", .int(age))])
                            people.append(made)
                            keys.insert(made)
                        case (1, let key?):
                            try db.delete("Person", key)
                            people.removeAll { $0 == key }
                            keys.insert(key)
                        case (2, let key?), (3, let key?):
                            try db.set("Person", key, "name", .string(name))
                            written.insert(key)
                            keys.insert(key)
                        case (4, let key?):
                            try db.set("Person", key, "age", .int(age))
                            written.insert(key)
                            keys.insert(key)
                        case (5, let key?):
                            try db.set("Person", key, "dog", random.next() % 3 == 0 ? .null : .link(db.cls("Dog"), dog))
                            written.insert(key)
                            keys.insert(key)
                        case (6, _) where step % 3 == 0:
                            try db.set("Dog", dog, "name", .string(name))
                            renamedDogs.insert(dog)
                        case (_, let key?):
                            try db.set("Person", key, "dog", .null)
                            written.insert(key)
                            keys.insert(key)
                        }
                        operations += 1
                    }
                }
                touched = keys.count
                try settle()
            }
            XCTAssertEqual(failures, [], query)
            XCTAssertGreaterThan(calls, 40, query)
            notifier.release()
        }
        XCTAssertGreaterThan(operations, 3000)
    }
}

final class IndexRangeSetRemoveTests: XCTestCase {
    /// Removing a set of ranges from another (one pass over both) leaves
    /// what removing each position does: seeded random sets, small and dense.
    func testRemovingASetEqualsRemovingEachPosition() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            var a = IndexRangeSet(), b = IndexRangeSet()
            var model: Set<Int> = []
            let span = 1 + Int(random.next() % 200)
            for _ in 0..<Int(random.next() % 30) {
                let start = Int(random.next() % UInt64(span)), length = 1 + Int(random.next() % 12)
                a.add(start..<(start + length))
                model.formUnion(start..<(start + length))
            }
            for _ in 0..<Int(random.next() % 30) {
                let start = Int(random.next() % UInt64(span)), length = 1 + Int(random.next() % 12)
                b.add(start..<(start + length))
                model.subtract(start..<(start + length))
            }
            var each = a
            for index in b.indices { each.remove(index) }
            a.remove(b)
            XCTAssertEqual(a, each)
            XCTAssertEqual(Set(a.indices), model)
        }
    }
}

/// Sorted results updated from the touched objects compare rows by order
/// keys (`SortColumn.orderKey`, kept from one update to the next) and read
/// values only when those tie: nulls, strings sharing their first eight
/// bytes, -0.0 beside 0.0, both directions and two keys.
final class SortedRowsOrderKeyTests: XCTestCase {
    func testNullsAndSharedPrefixesAgainstAFreshEvaluation() throws {
        let schema = Schema(classes: [ObjectClass(name: "Item", properties: [
            prop("label", .string, .nullable), prop("rank", .double, .nullable),
        ])])
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var random = SeededRandom(seed: 4711)
        func label() -> TV {
            switch random.next() % 5 {
            case 0: return .null
            case 1: return .string("")
            case 2: return .string("s\(random.next() % 9)")
            default: return .string("shared-prefix-\(random.next() % 13)")  // ties on the first 8 bytes
            }
        }
        func rank() -> TV {
            switch random.next() % 5 {
            case 0: return .null
            case 1: return .double(random.next() % 2 == 0 ? -0.0 : 0.0)
            default: return .double(Double(Int(random.next() % 7) - 3) / 2)
            }
        }
        var items: [Int64] = []
        try db.write {
            for _ in 0..<200 { items.append(try db.create("Item", [("label", label()), ("rank", rank())])) }
        }
        let sorts: [[(String, Bool)]] = [[("label", true)], [("label", false)], [("rank", false), ("label", true)], [("rank", true)]]
        var updates = 0
        for sort in sorts {
            let sorted = try db.query("Item", "TRUEPREDICATE").sorted(by: sort)
            var previous: [Int64] = []
            var failures: [String] = []
            let notifier = try db.realm.lock.withLock { () throws(FiefError) -> ResultsNotifier in
                try db.realm.addResultsNotifier(sorted, keyPaths: nil) { change in
                    let now = (try? sorted.allKeys()) ?? []
                    let fresh = (try? db.query("Item", "TRUEPREDICATE").sorted(by: sort).allKeys()) ?? []
                    if now != fresh { failures.append("\(sort): rows differ from a fresh evaluation") }
                    if case .update(let c) = change {
                        updates += 1
                        if applyChangeSet(c, to: previous, new: now) != now { failures.append("\(sort): \(c) does not take the old rows to the new") }
                    }
                    previous = now
                }
            }
            func settle() throws { try db.settle(notifier) }
            try settle()
            for _ in 0..<40 {
                try db.write {
                    for _ in 0..<(1 + Int(random.next() % 150)) {  // up to three quarters of the rows
                        let key = items[Int(random.next() % UInt64(items.count))]
                        switch random.next() % 6 {
                        case 0:
                            items.append(try db.create("Item", [("label", label()), ("rank", rank())]))
                        case 1 where items.count > 150:
                            try db.delete("Item", key)
                            items.removeAll { $0 == key }
                        case 2, 3: try db.set("Item", key, "label", label())
                        default: try db.set("Item", key, "rank", rank())
                        }
                    }
                }
                try settle()
            }
            XCTAssertEqual(failures, [])
            notifier.release()
        }
        XCTAssertGreaterThan(updates, 120)
    }
}

/// The two passes over every row of the sorted update, against plain
/// models: finding the touched rows' places and ranks (a few keys, keys in
/// neighbouring clusters, keys in clusters far apart) and merging the kept
/// rows with the survivors (runs short and long, up to the last row).
final class SortedRowsPassTests: XCTestCase {
    func testPlacesAndRanksOfTouchedRows() {
        var random = SeededRandom(seed: 31)
        for round in 0..<300 {
            // Rows: distinct keys in clusters near each other, or far apart (every third round).
            let spread: Int64 = round % 3 == 0 ? 1 << 30 : 1 << 14
            var keys: Set<Int64> = []
            let rowCount = Int(random.next() % 600)
            while keys.count < rowCount { keys.insert(Int64(random.next() % UInt64(spread))) }
            var rows = Array(keys)
            rows.shuffle(using: &random)
            // Touched: some rows and some keys that are not rows, 1 to 4 or many.
            var touched: Set<Int64> = []
            let touchedCount = round % 2 == 0 ? 1 + Int(random.next() % 4) : 1 + Int(random.next() % 200)
            while touched.count < touchedCount {
                if !rows.isEmpty && random.next() % 3 != 0 {
                    touched.insert(rows[Int(random.next() % UInt64(rows.count))])
                } else {
                    touched.insert(Int64(random.next() % UInt64(spread)))
                }
            }
            let set = KeySet(touched)
            guard let (places, indexOfRank) = ObjectResults.placesAndRanks(of: set, count: touched.count, in: rows) else {
                XCTFail("round \(round): no places")
                continue
            }
            let expected = rows.indices.filter { touched.contains(rows[$0]) }
            XCTAssertEqual(places, expected, "round \(round)")
            let byRank = touched.sorted()
            for (rank, key) in byRank.enumerated() {
                let index = Int(indexOfRank[rank])
                if let place = rows.firstIndex(of: key) {
                    XCTAssertTrue(index >= 0 && places[index] == place, "round \(round): rank \(rank)")
                } else {
                    XCTAssertEqual(index, -1, "round \(round): rank \(rank) is not a row")
                }
            }
        }
    }

    /// The search placing each survivor (blocks of 8 counted, then steps
    /// doubling) finds what a scan finds: ascending keys with repeats,
    /// from any start, near and far.
    func testFirstPlaceNotBelowAgainstAScan() {
        var random = SeededRandom(seed: 53)
        for round in 0..<2000 {
            let n = Int(random.next() % 300)
            var keys: [UInt64] = []
            var value: UInt64 = 0
            for _ in 0..<n {
                value += random.next() % 3
                keys.append(value)
            }
            let start = n == 0 ? 0 : Int(random.next() % UInt64(n + 1))
            let key = random.next() % (value + 3)
            var expected = start
            while expected < n && keys[expected] < key { expected += 1 }
            let found = keys.withUnsafeBufferPointer { ObjectResults.firstPlace(notBelow: key, in: $0, from: start) }
            XCTAssertEqual(found, expected, "round \(round): \(key) from \(start) in \(keys)")
        }
    }

    /// Rows holding an object twice are not a class's rows: no places
    /// (the caller evaluates again) rather than more places than keys.
    func testRowsHoldingAnObjectTwiceHaveNoPlaces() {
        let keys: [Int64] = [3, 300, 301, 1000, 1200]
        let rows: [Int64] = [7, 3, 300, 301, 1000, 1200, 9, 3]
        XCTAssertNil(ObjectResults.placesAndRanks(of: KeySet(keys), count: keys.count, in: rows))
        XCTAssertEqual(ObjectResults.placesAndRanks(of: KeySet(keys), count: keys.count, in: Array(rows.dropLast()))?.places, [1, 2, 3, 4, 5])
    }

    func testMergeOfKeptRowsAndSurvivors() {
        var random = SeededRandom(seed: 47)
        for round in 0..<400 {
            let n = Int(random.next() % 300)
            let old = (0..<n).map { Int64($0) * 3 }
            let oldKeys = (0..<n).map { UInt64($0) * 5 }
            // Removed places: dense (short runs) or sparse (runs past 16).
            let density = round % 2 == 0 ? 3 : 40
            let removed = (0..<n).filter { _ in random.next() % UInt64(density) == 0 }
            let kept = n - removed.count
            let s = Int(random.next() % 40)
            let places = (0..<s).map { _ in Int(random.next() % UInt64(kept + 1)) }.sorted()
            let survivors = (0..<s).map { -Int64($0) - 1 }
            let survivorKeys = (0..<s).map { UInt64(1_000_000 + $0) }
            var order = (0..<s).map { Int32($0) }
            order.shuffle(using: &random)
            // The model: the kept rows, each survivor inserted after `places[t]` of them.
            var keptRows: [(Int64, UInt64)] = []
            let removedSet = Set(removed)
            for i in 0..<n where !removedSet.contains(i) { keptRows.append((old[i], oldKeys[i])) }
            var expected: [(Int64, UInt64)] = []
            var next = 0
            for t in 0..<s {
                while next < places[t] { expected.append(keptRows[next]); next += 1 }
                expected.append((survivors[Int(order[t])], survivorKeys[Int(order[t])]))
            }
            while next < kept { expected.append(keptRows[next]); next += 1 }
            let total = kept + s
            var newKeys: [UInt64] = []
            let rows = [Int64](unsafeUninitializedCapacity: total + MergeCopy.slack) { rowsOut, made in
                newKeys = [UInt64](unsafeUninitializedCapacity: total + MergeCopy.slack) { keysOut, keysMade in
                    ObjectResults.merge(old, keys: oldKeys, removed: removed, places: places, order: order, survivors: survivors,
                                        survivorKeys: survivorKeys, into: rowsOut.baseAddress!, keysInto: keysOut.baseAddress!)
                    keysMade = total
                }
                made = total
            }
            XCTAssertEqual(rows, expected.map(\.0), "round \(round)")
            XCTAssertEqual(newKeys, expected.map(\.1), "round \(round)")
        }
    }
}
