import XCTest
@testable import FiefStorage
import CFiefSupport
@testable import FiefEngine

/// `fief_entry_seal`, the one-call entry checksum, against the three calls
/// it replaced (the format-7 definition): the stored checksum is unchanged.
final class EntryChecksumFunctionTests: XCTestCase {
    /// The format-7 definition, step by step: CRC-32C of the tag and
    /// (class key, database key), continued over the key, then the value.
    private func threeCalls(_ table: UInt32, _ database: UInt32, _ key: [UInt8], _ value: [UInt8], _ hardware: Int32) -> UInt32 {
        var seed = (table.littleEndian, database.littleEndian)
        var start = withUnsafeBytes(of: &seed) { fief_crc32c(0x656e_7472, $0.baseAddress, 8, hardware) }
        start = key.withUnsafeBytes { fief_crc32c(start, $0.baseAddress, $0.count, hardware) }
        return value.withUnsafeBytes { fief_checksum(start, $0.baseAddress, $0.count, hardware) }
    }

    func testOneCallIsTheFormat7ChecksumOnBothPaths() {
        var generator = SystemRandomNumberGenerator()
        let databases: [(UInt32, UInt32)] = [(1, 2), (0x8000_0003, EntrySeal.nested), (0xffff_ffff, 0)]
        for (table, database) in databases {
            for keyCount in [0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 40, 70] {
                for valueCount in [0, 1, 4, 7, 8, 9, 24, 31, 32, 33, 63, 64, 65, 100, 300] {
                    let key = (0..<keyCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    let value = (0..<valueCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    let expected = threeCalls(table, database, key, value, 0)
                    XCTAssertEqual(threeCalls(table, database, key, value, ChunkCheck.hardware), expected)
                    for hardware in [Int32(0), ChunkCheck.hardware] {
                        let sum = key.withUnsafeBytes { k in value.withUnsafeBytes { v in
                            EntrySeal.checksum(table: table, database: database, key: k, v, hardware: hardware)
                        } }
                        XCTAssertEqual(sum, expected, "table \(table) database \(database) key \(keyCount) value \(valueCount) hardware \(hardware)")
                    }
                }
            }
        }
    }

    /// A sealed value opens under its own key and class, and under no other.
    func testSealOpensOnlyWhereItWasSealed() {
        let key: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 5] + Array("colour".utf8)
        let value: [UInt8] = Array("a value of some length, over 32 bytes long".utf8)
        let sealed = value.withUnsafeBytes { v in key.withUnsafeBytes { EntrySeal.sealed(v, table: 3, database: 4, key: $0) } }
        XCTAssertEqual(sealed.count, value.count + EntrySeal.bytes)
        sealed.withUnsafeBytes { raw in
            key.withUnsafeBytes { k in
                XCTAssertEqual(EntrySeal.open(raw, table: 3, database: 4, key: k).map(Array.init), value)
                XCTAssertNil(EntrySeal.open(raw, table: 4, database: 3, key: k))
                XCTAssertNil(EntrySeal.open(raw, table: 3, database: 5, key: k))
            }
            let other = key.dropLast() + [UInt8(ascii: "s")]
            other.withUnsafeBytes { XCTAssertNil(EntrySeal.open(raw, table: 3, database: 4, key: $0)) }
        }
    }
}
