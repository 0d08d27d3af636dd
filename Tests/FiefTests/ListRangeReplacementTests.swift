import Fief
import Foundation
import XCTest

/// A List is range-replaceable, as RealmSwift's (realm-swift's ListTests'
/// testSubscript, in our words): a range assigned a slice of another length.
final class ListRangeReplacementTests: FiefTestCase {
    func testAssigningASliceOfAnotherLengthReplacesTheRange() throws {
        let realm = try Realm()
        let bag = CopyBag(value: ["numbers": [0, 1, 2, 3, 4, 5, 6]])
        let other = CopyBag(value: ["numbers": [10, 11, 12]])
        var expected = [0, 1, 2, 3, 4, 5, 6]
        // Unmanaged lists first, then managed ones.
        bag.numbers[1..<4] = other.numbers[0..<2]
        expected[1..<4] = [10, 11]
        XCTAssertEqual(Array(bag.numbers), expected)
        try realm.write {
            realm.add(bag)
            realm.add(other)
            bag.numbers[0] = 5
            bag.numbers[1..<4] = other.numbers[0..<2]
            bag.numbers[0..<1] = other.numbers[0..<3]
        }
        expected[0] = 5
        expected[1..<4] = [10, 11]
        expected[0..<1] = [10, 11, 12]
        XCTAssertEqual(Array(bag.numbers), expected)
        // Its own elements, and objects.
        try realm.write {
            bag.numbers[0..<2] = bag.numbers[2..<5]
            bag.flags.append(objectsIn: [CopyFlag(value: [true]), CopyFlag(), CopyFlag()])
            bag.flags[1..<3] = other.flags[0..<0]
        }
        expected[0..<2] = expected[2..<5]
        XCTAssertEqual(Array(bag.numbers), expected)
        XCTAssertEqual(bag.flags.map(\.flag), [true])
        XCTAssertEqual(realm.objects(CopyFlag.self).count, 3, "removed objects stay in the realm")
    }
}
