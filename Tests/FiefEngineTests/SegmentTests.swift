import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// List segments: every element type round-trips, integers take the bytes
/// their range needs, and a damaged segment is refused, never read.
final class SegmentTests: XCTestCase {
    private func encode(_ values: [TV], _ type: PropertyType, nullable: Bool, key: UInt64 = 42) -> [UInt8] {
        TV.withValues(values) { buffer in
            let view = UnsafeBufferPointer(buffer)
            let size = Segment.encodedSize(view, type: type, nullable: nullable)
            var out = [UInt8](repeating: 0, count: size)
            out.withUnsafeMutableBytes { Segment.encode(view, type: type, nullable: nullable, into: $0, table: 7, key: key) }
            return out
        }
    }

    private func decode(_ bytes: [UInt8], _ type: PropertyType, key: UInt64 = 42) -> [TV]? {
        bytes.withUnsafeBytes { raw in
            guard let reader = SegmentReader(raw, type: type, table: 7, key: key) else { return nil }
            return (0..<reader.count).map { TV(reader.value($0, linkTarget: 3)) }
        }
    }

    func testEveryTypeRoundTrips() {
        let samples: [(PropertyType, [TV])] = [
            (.int, [.int(5), .null, .int(-3), .int(Int64.max)]),
            (.bool, [.bool(true), .bool(false), .null]),
            (.string, [.string(""), .string("héllo"), .null, .string(String(repeating: "x", count: 300))]),
            (.binary, [.binary([0, 1, 2]), .binary([]), .null]),
            (.float, [.float(1.5), .null, .float(-0.25)]),
            (.double, [.double(2.5), .double(-1), .null]),
            (.timestamp, [.timestamp(-5, -10), .timestamp(7, 99), .null]),
            (.decimal128, [.decimal(Decimal128Bits(low: 12, high: 0x3040_0000_0000_0000)), .null]),
            (.objectId, [TV.oid(bytes: Array(0..<12)), .null]),
            (.uuid, [TV.uuid(bytes: Array(0..<16)), .null]),
            (.link, [.link(3, 10), .link(3, 1 << 40), .null]),
        ]
        for (type, values) in samples {
            XCTAssertEqual(decode(encode(values, type, nullable: true), type), values, "\(type)")
            let required = values.filter { !$0.isNull }
            XCTAssertEqual(decode(encode(required, type, nullable: false), type), required, "\(type), required")
        }
        let full = (0..<Segment.maxElements).map { TV.int(Int64($0) * 3) }
        XCTAssertEqual(decode(encode(full, .int, nullable: false), .int), full)
    }

    func testIntegersTakeTheBytesTheirRangeNeeds() {
        let small = encode((0..<200).map { TV.int(1_000_000 + Int64($0)) }, .int, nullable: false)
        XCTAssertEqual(small.count, 2 + 9 + 200 + 4)
        let same = encode(Array(repeating: TV.int(9), count: 100), .int, nullable: false)
        XCTAssertEqual(same.count, 2 + 9 + 4)
        let wide = encode([.int(Int64.min), .int(Int64.max)], .int, nullable: false)
        XCTAssertEqual(wide.count, 2 + 9 + 16 + 4)
    }

    func testDamagedSegmentsAreRefused() {
        let good = encode([.string("a"), .string("bc"), .null], .string, nullable: true)
        XCTAssertNotNil(decode(good, .string))
        XCTAssertNil(decode(good, .string, key: 43), "another key: another checksum")
        for i in 0..<good.count {
            var bad = good
            bad[i] ^= 0x04
            XCTAssertNil(decode(bad, .string), "flipped byte \(i)")
        }
        XCTAssertNil(decode(Array(good.prefix(3)), .string))
        XCTAssertNil(decode(good, .int), "a layout that does not fit the type")
    }
}
