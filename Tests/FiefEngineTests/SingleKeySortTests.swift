import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// Single-key sorts take a radix-sort path of their own (an order-preserving
/// 64-bit key, then ties by the full comparison): check it against Swift's
/// stable sort on values that stress the 64-bit key — equal 8-byte prefixes,
/// embedded zero bytes, negative numbers, -0.0, nulls in both directions.
final class SingleKeySortTests: XCTestCase {
    private func check(_ type: PropertyType, _ values: [TV], file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), makeSchema([("S", [prop("v", type, .nullable)])]))
        var keys: [Int64] = []
        try db.write {
            for v in values { keys.append(try db.create("S", [("v", v)])) }
        }
        for ascending in [true, false] {
            let sorted = try db.results("S").sorted(by: [("v", ascending)])
            let got = try sorted.allKeys()
            // The expected order: stable by key order, nulls first ascending, last descending.
            let indexed = Array(zip(keys, values))
            let expected = indexed.enumerated().sorted { a, b in
                let (x, y) = (a.element.1, b.element.1)
                let c = SortTests.order(x, y)
                if c != 0 { return ascending ? c < 0 : c > 0 }
                return a.offset < b.offset
            }.map { $0.element.0 }
            XCTAssertEqual(got, expected, "\(type) ascending: \(ascending)", file: file, line: line)
        }
    }

    func testStrings() throws {
        var values: [TV] = ["", "a", "a\u{0}", "abcdefgh", "abcdefgh", "abcdefghi", "abcdefgha", "abcdefg", "b", "B", "é", "ab", "abcdefghz", "abcdefgh\u{0}"].map { .string($0) }
        values.insert(.null, at: 3)
        values.append(.null)
        var random = SeededRandom(seed: 7)
        for _ in 0..<300 {
            let length = Int.random(in: 0...12, using: &random)
            values.append(.string(String((0..<length).map { _ in "abc".randomElement(using: &random)! })))
        }
        try check(.string, values)
    }

    func testIntegersAndDoubles() throws {
        var ints: [TV] = [.int(0), .int(-1), .int(1), .int(.min), .int(.max), .null, .int(-5), .int(5), .int(0)]
        var doubles: [TV] = [.double(0), .double(-0.0), .double(-1.5), .double(1.5), .double(-.infinity), .double(.infinity), .null, .double(2), .double(-2), .double(1e-300), .double(-1e-300)]
        var random = SeededRandom(seed: 11)
        for _ in 0..<300 {
            ints.append(.int(Int64.random(in: -50...50, using: &random)))
            doubles.append(.double(Double(Int.random(in: -40...40, using: &random)) / 4))
        }
        try check(.int, ints)
        try check(.double, doubles)
    }

    func testTimestampsObjectIdsAndUUIDs() throws {
        var stamps: [TV] = [.null]
        var ids: [TV] = [.null]
        var uuids: [TV] = [.null]
        var random = SeededRandom(seed: 5)
        for _ in 0..<200 {
            let seconds = Int64.random(in: -3...3, using: &random)
            stamps.append(.timestamp(seconds, seconds < 0 ? -Int32.random(in: 0...2, using: &random) : Int32.random(in: 0...2, using: &random)))
            ids.append(.oid(bytes: (0..<12).map { i in i < 10 ? 0 : UInt8.random(in: 0...3, using: &random) }))
            uuids.append(.uuid(bytes: (0..<16).map { i in i < 14 ? 0 : UInt8.random(in: 0...3, using: &random) }))
        }
        try check(.timestamp, stamps)
        try check(.objectId, ids)
        try check(.uuid, uuids)
    }
}
