import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Int chunks are stored in the fewest bytes per value that hold the
/// cluster's values (1, 2, 4 or 8): values of every width must round-trip,
/// a write that needs a wider width must widen the chunk, and comparisons
/// with constants outside a chunk's range must still be right.
final class IntPackingTests: XCTestCase {
    private let edges: [Int64] = [0, 1, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
                                  Int64(Int32.max), Int64(Int32.min), Int64(Int32.max) + 1, Int64(Int32.min) - 1, .max, .min]

    func testEveryWidthRoundTripsAndWidens() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("N", [prop("v", .int), prop("o", .int, .nullable)])]))
        // One cluster of small numbers (1 byte), then one value at a time widening it.
        var keys: [Int64] = []
        try db.write {
            for i in 0..<300 { keys.append(try db.create("N", [("v", .int(Int64(i % 100) - 50)), ("o", i % 3 == 0 ? .null : .int(Int64(i)))])) }
        }
        for (n, edge) in edges.enumerated() {
            try db.write { try db.set("N", keys[n], "v", .int(edge)) }
            for (m, earlier) in edges.prefix(n + 1).enumerated() {
                XCTAssertEqual(try db.get("N", keys[m], "v"), .int(earlier), "edge \(earlier) after writing \(edge)")
            }
            XCTAssertEqual(try db.get("N", keys[200], "v"), .int(Int64(200 % 100) - 50))
        }
        // Reopen: what was committed reads back the same.
        let again = try DB.open(dir.file(), nil)
        for (n, edge) in edges.enumerated() { XCTAssertEqual(try again.get("N", keys[n], "v"), .int(edge)) }
        for i in stride(from: 0, to: 300, by: 7) {
            XCTAssertEqual(try again.get("N", keys[i], "o"), i % 3 == 0 ? .null : .int(Int64(i)))
        }
    }

    func testComparisonsAgainstConstantsBeyondAChunksWidth() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("N", [prop("v", .int), prop("o", .int, .nullable)])]))
        var values: [Int64] = []
        try db.write {
            // Cluster 0: 1-byte values; cluster 1: 2-byte; cluster 2: 8-byte (and nulls in o).
            for i in 0..<768 {
                let v: Int64 = i < 256 ? Int64(i % 50) - 25 : i < 512 ? Int64(i) * 40 - 12000 : Int64(i) * 1_000_000_000_000 - 600_000_000_000_000
                values.append(v)
                _ = try db.create("N", [("v", .int(v)), ("o", i % 5 == 0 ? .null : .int(v))])
            }
        }
        let constants: [Int64] = [-200, -129, -128, -25, 0, 24, 127, 128, 300, 40000, -40000, Int64(Int32.max) + 5, .max, .min]
        let ops = ["<", "<=", ">", ">=", "==", "!="]
        for c in constants {
            for op in ops {
                let expected = values.filter { v in
                    switch op {
                    case "<": return v < c
                    case "<=": return v <= c
                    case ">": return v > c
                    case ">=": return v >= c
                    case "==": return v == c
                    default: return v != c
                    }
                }.count
                XCTAssertEqual(try db.query("N", "v \(op) $0", [.int(c)]).count(), expected, "v \(op) \(c)")
                // Optional column: nulls match only !=.
                let withNulls = values.enumerated().filter { i, v in
                    if i % 5 == 0 { return op == "!=" }
                    switch op {
                    case "<": return v < c
                    case "<=": return v <= c
                    case ">": return v > c
                    case ">=": return v >= c
                    case "==": return v == c
                    default: return v != c
                    }
                }.count
                XCTAssertEqual(try db.query("N", "o \(op) $0", [.int(c)]).count(), withNulls, "o \(op) \(c)")
            }
        }
    }
}
