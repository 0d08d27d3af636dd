import XCTest
@testable import FiefStorage
@testable import FiefEngine

final class SortTests: XCTestCase {

    /// Ascending order with nulls first; nil when equal.
    static func order(_ a: TV, _ b: TV) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.int(let x), .int(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (!x ? -1 : 1)
        case (.double(let x), .double(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.float(let x), .float(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.string(let x), .string(let y)):
            let a = Array(x.utf8), b = Array(y.utf8)
            return a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
        case (.binary(let a), .binary(let b)): return a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)):
            if s1 != s2 { return s1 < s2 ? -1 : 1 }
            return n1 == n2 ? 0 : (n1 < n2 ? -1 : 1)
        case (.oid(let x), .oid(let y)):
            if x.high != y.high { return x.high < y.high ? -1 : 1 }
            return x.low == y.low ? 0 : (x.low < y.low ? -1 : 1)
        case (.uuid(let x), .uuid(let y)):
            if x.high != y.high { return x.high < y.high ? -1 : 1 }
            return x.low == y.low ? 0 : (x.low < y.low ? -1 : 1)
        default: fatalError("cannot order \(a) and \(b)")
        }
    }

    static let properties: [(String, PropertyType, Bool)] = [
        ("i", .int, false), ("oi", .int, true), ("s", .string, false), ("os", .string, true), ("d", .double, true),
        ("f", .float, false), ("b", .bool, true), ("t", .timestamp, true), ("o", .objectId, true), ("u", .uuid, false),
        ("bin", .binary, false),
    ]

    static func value(_ type: PropertyType, _ nullable: Bool, _ rng: inout SeededRandom) -> TV {
        if nullable && Int.random(in: 0..<6, using: &rng) == 0 { return .null }
        let r = Int.random(in: 0..<1_000_000, using: &rng)
        // Few distinct values, so ties (and stability) matter.
        switch type {
        case .int: return .int([Int64.min, -5, 0, 3, 3, 7, Int64.max][r % 7])
        case .double: return .double([-.infinity, -2.5, 0, 1e-300, 2.5, 1e300][r % 6])
        case .float: return .float([-1, 0, 0.5, 0.5][r % 4])
        case .bool: return .bool(r % 2 == 0)
        case .string:
            // Long shared prefixes: the difference lies past byte 8.
            let stems = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\u{0}", "abcdefghij-long-shared-prefix-1", "abcdefghij-long-shared-prefix-2", "abcdefghij-long-shared-prefix-10", "\u{E9}", "Z", "abcdefgh\u{FF}"]
            return .string(stems[r % stems.count])
        case .binary:
            let stems: [[UInt8]] = [[], [0], [0, 0], [0xFF], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 0], [1, 2, 3, 4, 5, 6, 7, 8, 0xFF, 1], [1, 2, 3, 4, 5, 6, 7, 8, 0xFF, 0], [0x80]]
            return .binary(stems[r % stems.count])
        case .timestamp:
            // Includes seconds beyond what fits in Int64 nanoseconds (year 2262+).
            let seconds: [Int64] = [-10_000_000_000, -1, 0, 1, 10_000_000_000, 10_000_000_000, 20_000_000_000]
            let s = seconds[r % seconds.count]
            let n: Int32 = s > 0 ? Int32(r % 3) * 100 : (s < 0 ? -Int32(r % 3) * 100 : 0)
            return .timestamp(s, n)
        case .objectId: return .oid(ObjectIdBytes(high: [0, 1, 1 << 63, UInt64.max][r % 4], low: [0, 1, UInt32.max][r / 4 % 3]))
        case .uuid: return .uuid(UUIDBytes(high: [0, 1, 1 << 63, UInt64.max][r % 4], low: [0, 1 << 63, UInt64.max][r / 4 % 3]))
        default: fatalError()
        }
    }

    func testRandomMultiKeySortsMatchBruteForce() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("S", Self.properties.map { prop($0.0, $0.1, $0.2 ? .nullable : []) })]))
        var rng = SeededRandom(seed: 7)
        let names = Self.properties.map { $0.0 }
        var rows: [Int64: [String: TV]] = [:]
        try db.write {
            let data = (0..<600).map { _ in Self.properties.map { Self.value($0.1, $0.2, &rng) } }
            for (k, row) in zip(try db.createMany("S", names, data), data) { rows[k] = Dictionary(uniqueKeysWithValues: zip(names, row)) }
            for k in rows.keys.sorted() where Int.random(in: 0..<10, using: &rng) == 0 {
                try db.delete("S", k)
                rows[k] = nil
            }
        }
        for round in 0..<120 {
            let count = Int.random(in: 1...3, using: &rng)
            var keys: [(String, Bool)] = []
            for _ in 0..<count {
                let name = names.randomElement(using: &rng)!
                if !keys.contains(where: { $0.0 == name }) { keys.append((name, Bool.random(using: &rng))) }
            }
            // Expected: a stable sort of key order.
            let expected = rows.keys.sorted().sorted { a, b in
                for (name, ascending) in keys {
                    let c = Self.order(rows[a]![name]!, rows[b]![name]!)
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                }
                return a < b
            }
            var results = try db.results("S")
            if round % 3 == 0 {
                results = try results.filtered("i != 3", arguments: [])
            }
            let got = try results.sorted(by: keys).allKeys()
            let want = round % 3 == 0 ? expected.filter { rows[$0]!["i"] != .int(3) } : expected
            if got != want {
                let first = (0..<min(got.count, want.count)).first { got[$0] != want[$0] } ?? 0
                XCTFail("sort by \(keys): first difference at \(first): got \(got[first]) \(rows[got[first]]!.filter { n in keys.contains { $0.0 == n.key } }), expected \(want[first]) \(rows[want[first]]!.filter { n in keys.contains { $0.0 == n.key } })")
            }
        }
    }

    func testSortDetails() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("S", [prop("s", .string, .nullable), prop("g", .int), prop("t", .timestamp)])]))
        let values: [TV] = [.string("abcdefghij-2"), .null, .string("abcdefghij-10"), .string("abcdefghij-1"), .string("b"), .null, .string("abcdefgh"), .string("abcdefghij-1")]
        let keys = try db.write { try db.createMany("S", ["s", "g"], values.enumerated().map { [$0.element, .int(Int64($0.offset % 2))] }) }
        XCTAssertEqual(try db.results("S").sorted(by: [("s", true)]).allKeys(), [1, 5, 6, 3, 7, 2, 0, 4].map { keys[$0] })
        // Descending: nulls last, ties still in key order.
        XCTAssertEqual(try db.results("S").sorted(by: [("s", false)]).allKeys(), [4, 0, 2, 3, 7, 6, 1, 5].map { keys[$0] })
        // Sorting again by another key keeps the earlier order for ties.
        XCTAssertEqual(try db.results("S").sorted(by: [("s", true)]).sorted(by: [("g", true)]).allKeys(), [6, 2, 0, 4, 1, 5, 3, 7].map { keys[$0] })
        XCTAssertEqual(try db.results("S").sorted(by: [("g", false), ("s", false)]).allKeys(), [3, 7, 1, 5, 4, 0, 2, 6].map { keys[$0] })
        // Sorted results re-sort after a change, inside a write too.
        let sorted = try db.results("S").sorted(by: [("s", true)])
        XCTAssertEqual(try sorted.key(at: 0), keys[1])
        try db.realm.beginWrite()
        try db.set("S", keys[1], "s", .string("zzz"))
        XCTAssertEqual(try sorted.allKeys().last, keys[1])
        XCTAssertEqual(try sorted.index(of: keys[1]), 7)
        db.realm.cancelWrite()
        XCTAssertEqual(try sorted.key(at: 0), keys[1])
        expectError(.queryInvalid) { try db.results("S").sorted(by: [("nope", true)]) }
        expectError(.indexOutOfBounds) { try sorted.key(at: 8) }
    }

    func testTimestampsBeyondNanosecondRangeSort() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("T", [prop("t", .timestamp)])]))
        // Inserted in descending order, so a comparison that calls them equal keeps them reversed.
        let stamps: [TV] = [.timestamp(20_000_000_000, 0), .timestamp(10_000_000_000, 5), .timestamp(10_000_000_000, 1), .timestamp(9_300_000_000, 0), .timestamp(-9_300_000_000, 0), .timestamp(-10_000_000_000, -1), .timestamp(-10_000_000_000, -5)]
        let keys = try db.write { try db.createMany("T", ["t"], stamps.map { [$0] }) }
        XCTAssertEqual(try db.results("T").sorted(by: [("t", true)]).allKeys(), keys.reversed())
        XCTAssertEqual(try db.results("T").sorted(by: [("t", false)]).allKeys(), keys)
    }
}
