import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Results kept across many random writes, commits, cancels and refreshes
/// must always equal a brute-force evaluation of the model's current state.
final class LiveResultsTests: XCTestCase {

    typealias Row = (i: Int64, s: String?, d: Double)

    struct View {
        let name: String
        let predicate: String?
        let sort: [(String, Bool)]
        let filter: (Row) -> Bool
    }

    static var views: [View] { [
        View(name: "all", predicate: nil, sort: [], filter: { _ in true }),
        View(name: "i > 3", predicate: "i > 3", sort: [], filter: { $0.i > 3 }),
        View(name: "i == 2 (indexed)", predicate: "i == 2", sort: [], filter: { $0.i == 2 }),
        View(name: "s BEGINSWITH a by d desc", predicate: "s BEGINSWITH 'a'", sort: [("d", false)], filter: { $0.s?.hasPrefix("a") ?? false }),
        View(name: "by s, i", predicate: nil, sort: [("s", true), ("i", true)], filter: { _ in true }),
        View(name: "s == nil OR d < 0", predicate: "s == nil OR d < 0", sort: [("i", false)], filter: { $0.s == nil || $0.d < 0 }),
        View(name: "i == 2 AND d >= 0", predicate: "i == 2 AND d >= 0", sort: [], filter: { $0.i == 2 && $0.d >= 0 }),
    ] }

    static func expected(_ view: View, _ rows: [Int64: Row]) -> [Int64] {
        let keys = rows.keys.sorted().filter { view.filter(rows[$0]!) }
        if view.sort.isEmpty { return keys }
        return keys.sorted { a, b in
            for (name, ascending) in view.sort {
                let x = rows[a]!, y = rows[b]!
                var c = 0
                switch name {
                case "i": c = x.i == y.i ? 0 : (x.i < y.i ? -1 : 1)
                case "d": c = x.d == y.d ? 0 : (x.d < y.d ? -1 : 1)
                default:
                    switch (x.s, y.s) {
                    case (nil, nil): c = 0
                    case (nil, _): c = -1
                    case (_, nil): c = 1
                    case (let p?, let q?): c = p == q ? 0 : (Array(p.utf8).lexicographicallyPrecedes(Array(q.utf8)) ? -1 : 1)
                    }
                }
                if c != 0 { return ascending ? c < 0 : c > 0 }
            }
            return a < b
        }
    }

    func testLiveResultsAgainstModel() throws {
        let dir = tempDir()
        let path = dir.file()
        let schema = makeSchema([("L", [prop("i", .int, .indexed), prop("s", .string, .nullable), prop("d", .double)])])
        let a = try DB.open(path, schema)
        let b = try DB.open(path, nil)
        func make(_ db: DB) throws -> [ObjectResults] {
            try Self.views.map { view in
                var r = try db.results("L")
                if let p = view.predicate { r = try r.filtered(p, arguments: []) }
                if !view.sort.isEmpty { r = try r.sorted(by: view.sort) }
                return r
            }
        }
        let aResults = try make(a)
        let bResults = try make(b)
        var committed: [Int64: Row] = [:]
        var pending: [Int64: Row]? = nil
        var bSees: [Int64: Row] = [:]
        var rng = SeededRandom(seed: 2024)
        func randomRow() -> Row {
            (Int64.random(in: 0...6, using: &rng),
             Int.random(in: 0..<4, using: &rng) == 0 ? nil : ["", "a", "ab", "b", "abc", "ba"].randomElement(using: &rng)!,
             Double(Int.random(in: -3...3, using: &rng)))
        }
        func tv(_ row: Row) -> [(String, TV)] { [("i", .int(row.i)), ("s", row.s.map { .string($0) } ?? .null), ("d", .double(row.d))] }
        let views = Self.views
        func check(_ step: Int, _ op: String) throws {
            for (n, view) in views.enumerated() {
                let wantA = Self.expected(view, pending ?? committed)
                // Alternate between counting and listing (counting may skip remembering keys).
                if step % 2 == 0 { XCTAssertEqual(try aResults[n].count(), wantA.count, "A \(view.name) after \(op) (step \(step))") }
                XCTAssertEqual(try aResults[n].allKeys(), wantA, "A \(view.name) after \(op) (step \(step))")
                if !wantA.isEmpty && step % 5 == n % 5 {
                    let position = (step * 7 + n) % wantA.count
                    XCTAssertEqual(try aResults[n].key(at: position), wantA[position], "A \(view.name) key(at:)")
                    XCTAssertEqual(try aResults[n].index(of: wantA[position]), position, "A \(view.name) index(of:)")
                }
                if let gone = (pending ?? committed).keys.first(where: { !wantA.contains($0) }) {
                    XCTAssertNil(try aResults[n].index(of: gone), "A \(view.name) index(of:) a non-member")
                }
                let wantB = Self.expected(view, bSees)
                if step % 3 == 0 { XCTAssertEqual(try bResults[n].count(), wantB.count, "B \(view.name) after \(op) (step \(step))") }
                XCTAssertEqual(try bResults[n].allKeys(), wantB, "B \(view.name) after \(op) (step \(step))")
            }
        }
        var commits = 0, largest = 0
        try check(0, "start")
        for step in 1...250 {
            let r = Int.random(in: 0..<100, using: &rng)
            var op = ""
            if pending == nil {
                if r < 50 {
                    try a.realm.beginWrite(); pending = committed; op = "begin"
                } else if r < 70 {
                    _ = try b.realm.refresh(); bSees = committed; op = "B refresh"
                } else if r < 75 {
                    try b.realm.invalidate(); bSees = committed; op = "B invalidate"
                } else {
                    op = "read"
                }
            } else if var rows = pending {
                let live = rows.keys.sorted()
                switch r {
                case 0..<30:
                    let count = Int.random(in: 1...3, using: &rng) == 3 ? 25 : 1
                    let new = (0..<count).map { _ in randomRow() }
                    let keys = try a.createMany("L", ["i", "s", "d"], new.map { tv($0).map { $0.1 } })
                    for (k, row) in zip(keys, new) { rows[k] = row }
                    op = "create \(count)"
                case 30..<55 where !live.isEmpty:
                    let k = live.randomElement(using: &rng)!
                    let row = randomRow()
                    let which = Int.random(in: 0..<3, using: &rng)
                    let (name, value) = tv(row)[which]
                    try a.set("L", k, name, value)
                    switch which {
                    case 0: rows[k]!.i = row.i
                    case 1: rows[k]!.s = row.s
                    default: rows[k]!.d = row.d
                    }
                    op = "set \(name) of \(k)"
                case 55..<68 where !live.isEmpty:
                    let k = live.randomElement(using: &rng)!
                    try a.delete("L", k)
                    rows[k] = nil
                    op = "delete \(k)"
                case 68..<70:
                    try aResults[1].deleteAll()
                    rows = rows.filter { !($0.value.i > 3) }
                    op = "delete i > 3"
                case 70..<71:
                    try a.realm.deleteAll(table: a.cls("L"))
                    rows = [:]
                    op = "delete all"
                case 71..<82:
                    try a.realm.commitWrite()
                    committed = rows
                    pending = nil
                    commits += 1
                    largest = max(largest, rows.count)
                    op = "commit"
                case 82..<88:
                    a.realm.cancelWrite()
                    pending = nil
                    op = "cancel"
                default:
                    op = "read in write"
                }
                if pending != nil { pending = rows }
            }
            try check(step, op)
        }
        if pending != nil { a.realm.cancelWrite() }
        XCTAssertGreaterThan(commits, 10)
        XCTAssertGreaterThan(largest, 50)
    }
}
