import Fief
import Foundation
import XCTest

/// AnyRealmValue nested 100,000 levels deep: written from an unmanaged
/// value, read to the bottom as live collections, assigned from one object
/// to another, frozen, replaced, and the unmanaged value released, all on
/// a thread with a 512 KB stack: no step recurses per level.
final class DeepNestedMixedTests: FiefTestCase {
    static let depth = 100_000

    /// Dictionaries (["k": ...]) and lists alternating, `depth` levels, the
    /// deepest a list holding "bottom".
    static func deepValue() -> AnyRealmValue {
        var value: AnyRealmValue = .fromArray([.string("bottom")])
        for level in 1..<depth { value = level % 2 == 1 ? .fromDictionary(["k": value]) : .fromArray([value]) }
        return value
    }

    /// The collection `depth` - 1 levels below `value`, as a list.
    static func deepest(_ value: AnyRealmValue) -> List<AnyRealmValue>? {
        var node = value
        for _ in 1..<depth {
            if let list = node.listValue {
                guard list.count == 1 else { return nil }
                node = list[0]
            } else if let map = node.dictionaryValue, map.count == 1, let next = map["k"] {
                node = next
            } else {
                return nil
            }
        }
        return node.listValue
    }

    func testDeepSwiftArraysAndDictionariesConvertWithoutRecursion() throws {
        // Swift's own arrays release their elements recursively, so the
        // value given stays shallower than `depth`: 10,000 levels, far more
        // than a recursive conversion's frames fit in the 8 MB stack.
        let levels = 10_000
        var given: Any = ["bottom"]
        for level in 1..<levels { given = level % 2 == 1 ? ["k": given] as [String: Any] : [given] as [Any] }
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [MixedHolder.self]))
        try realm.write { realm.create(MixedHolder.self, value: ["id": 3, "value": given]) }
        var node = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 3)).value
        for _ in 1..<levels { node = node.listValue.map { $0[0] } ?? node.dictionaryValue?["k"] ?? .none }
        XCTAssertEqual(node.listValue.map(Array.init), [.string("bottom")])
    }

    func testDeepNestingIsWrittenReadCopiedAndReleasedOnASmallStack() throws {
        let configuration = fileConfiguration(objectTypes: [MixedHolder.self])
        try onSmallStack {
            let realm = try Realm(configuration: configuration)
            do {
                // Written from an unmanaged value (released at the end of this scope).
                let value = Self.deepValue()
                XCTAssertEqual(Self.deepest(value).map(Array.init), [.string("bottom")])
                // Compared with another as deep, level by level.
                XCTAssertTrue(value == Self.deepValue())
                XCTAssertFalse(value == .fromDictionary(["k": Self.deepValue()]))
                try realm.write { realm.add(MixedHolder(id: 1, value: value)) }
            }
            let holder = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
            let bottom = try XCTUnwrap(Self.deepest(holder.value))
            XCTAssertNotNil(bottom.realm)
            XCTAssertEqual(Array(bottom), [.string("bottom")])
            // Assigned from one object to another: copied, every level.
            try realm.write { realm.add(MixedHolder(id: 2, value: holder.value)) }
            let copy = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 2))
            XCTAssertEqual(Self.deepest(copy.value).map(Array.init), [.string("bottom")])
            // Written into the deepest list through the live collection.
            try realm.write { bottom.append(.int(7)) }
            XCTAssertEqual(Self.deepest(holder.value).map(Array.init), [.string("bottom"), .int(7)])
            // Frozen.
            let frozen = holder.freeze()
            XCTAssertEqual(Self.deepest(frozen.value).map(Array.init), [.string("bottom"), .int(7)])
            // Replacing the value deletes every level.
            try realm.write { holder.value = .int(1) }
            XCTAssertTrue(bottom.isInvalidated)
            XCTAssertEqual(holder.value, .int(1))
            XCTAssertEqual(Self.deepest(frozen.value).map(Array.init), [.string("bottom"), .int(7)])
            try realm.write { realm.delete(copy) }
        }
    }
}
