import XCTest
@testable import FiefStorage

/// A string or binary chunk's offsets are checked eight pairs at a time
/// (`ChunkCheck.endsAscend`): against the plain rule (start at 0, never go
/// down, end at the data's size) over random offsets of every width and
/// length, with one descent anywhere, a first offset above 0 and a wrong
/// end.
final class ChunkOffsetCheckTests: XCTestCase {
    func testOffsetsAscendAgainstThePlainRule() {
        var random = SeededRandom(seed: 19)
        func check<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type, maximum: Int) {
            for round in 0..<600 {
                let slotCount = 1 + Int(random.next() % 256)
                var offsets: [T] = [0]
                for _ in 0..<slotCount {
                    let step = Int(random.next() % 4)
                    offsets.append(T(min(Int(offsets.last!) + step, maximum)))
                }
                var total = Int(offsets.last!)
                switch round % 4 {
                case 1:  // one offset below the one before it
                    let at = 1 + Int(random.next() % UInt64(slotCount))
                    if offsets[at - 1] > 0 { offsets[at] = offsets[at - 1] - 1 }
                    total = Int(offsets.last!)
                case 2: offsets[0] = 1
                case 3: total += 1
                default: break
                }
                var expected = offsets[0] == 0 && Int(offsets.last!) == total
                for i in 1...slotCount where offsets[i] < offsets[i - 1] { expected = false }
                let found = offsets.withUnsafeBytes {
                    ChunkCheck.endsAscend($0.baseAddress!, as: T.self, slotCount: slotCount, to: total)
                }
                XCTAssertEqual(found, expected, "\(T.self), round \(round): \(offsets) to \(total)")
            }
        }
        check(UInt8.self, maximum: 255)
        check(UInt16.self, maximum: 65535)
        check(UInt32.self, maximum: 1 << 20)
    }
}
