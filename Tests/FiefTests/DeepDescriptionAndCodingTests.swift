import Fief
import Foundation
import XCTest

/// Descriptions and Codable of values nested 100,000 levels deep, on the main thread and on a
/// thread with a 512 KB stack: descriptions stop at five levels (`<Maximum depth exceeded>`, as
/// RealmSwift's), Codable refuses more than 100 levels with an error, and neither overflows.
final class DeepDescriptionAndCodingTests: FiefTestCase {
    static let depth = DeepNestedMixedTests.depth

    /// Lists and dictionaries alternating, `levels` deep, the deepest a list holding "bottom".
    private static func nested(_ levels: Int) -> AnyRealmValue {
        var value: AnyRealmValue = .fromArray([.string("bottom")])
        for level in 1..<levels { value = level % 2 == 1 ? .fromDictionary(["k": value]) : .fromArray([value]) }
        return value
    }

    /// The description of something holding a value nested `depth` levels: five levels of
    /// objects and collections at most (`collections` of them nested mixed collections), then
    /// the limit.
    private func assertDescribedFiveLevels(_ text: String, collections: Int = 5, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(text.contains("<Maximum depth exceeded>"), file: file, line: line)
        XCTAssertFalse(text.contains("bottom"), file: file, line: line)
        if collections == 5 {
            let headers = text.components(separatedBy: "List<mixed>").count - 1 + text.components(separatedBy: "Map<string, mixed>").count - 1
            XCTAssertEqual(headers, 5, text, file: file, line: line)
        }
        // No line is indented more than five levels.
        let deepest = text.components(separatedBy: "\n").map { line in line.prefix { $0 == "\t" }.count }.max() ?? 0
        XCTAssertLessThanOrEqual(deepest, 5, text, file: file, line: line)
        XCTAssertLessThan(text.count, 5_000, file: file, line: line)
    }

    private func describeDeepValues() throws {
        let value = Self.nested(Self.depth)
        assertDescribedFiveLevels(value.listValue?.description ?? value.dictionaryValue?.description ?? "")
        assertDescribedFiveLevels(String(describing: value))
        let holder = MixedHolder(id: 1, value: value)
        holder.values.append(value)
        holder.byKey["deep"] = value
        assertDescribedFiveLevels(holder.description, collections: 4)
        assertDescribedFiveLevels(holder.values.description)
        assertDescribedFiveLevels(holder.byKey.description)

        let realm = try Realm(configuration: fileConfiguration(objectTypes: [MixedHolder.self]))
        try realm.write { realm.add(holder) }
        assertDescribedFiveLevels(holder.description, collections: 4)
        assertDescribedFiveLevels(String(describing: holder.value))
        assertDescribedFiveLevels(realm.objects(MixedHolder.self).description, collections: 3)
        try realm.write { realm.deleteAll() }
    }

    func testDescriptionsOfDeepMixedValuesStopAtFiveLevelsOnTheMainThread() throws {
        try describeDeepValues()
    }

    func testDescriptionsOfDeepMixedValuesStopAtFiveLevelsOnASmallStack() throws {
        try onSmallStack { try self.describeDeepValues() }
    }

    /// A chain of linked objects far longer than five levels prints five.
    func testDescriptionOfALongChainOfObjectsStopsAtFiveLevels() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [ChainLink.self]))
        try realm.write {
            var next: ChainLink?
            for index in 0..<10_000 { next = realm.create(ChainLink.self, value: ["index": index, "next": next as Any]) }
        }
        let head = try XCTUnwrap(realm.objects(ChainLink.self).filter("index == 9999").first)
        try onSmallStack {
            let text = head.description
            XCTAssertEqual(text.components(separatedBy: "ChainLink {").count - 1, 5)
            XCTAssertTrue(text.contains("next = <Maximum depth exceeded>;"), text)
        }
    }

    // MARK: Codable

    private func assertRefusedForDepth(_ error: Error, file: StaticString = #filePath, line: UInt = #line) {
        let context: String
        switch error {
        case EncodingError.invalidValue(_, let c): context = c.debugDescription
        case DecodingError.dataCorrupted(let c): context = c.debugDescription
        default: context = "unexpected error \(error)"
        }
        XCTAssertTrue(context.contains("at most 100 levels deep"), context, file: file, line: line)
    }

    private func codeDeepValues() throws {
        // 100,000 levels: refused with an error, not a stack overflow.
        let deep = Self.nested(Self.depth)
        XCTAssertThrowsError(try JSONEncoder().encode(deep)) { assertRefusedForDepth($0) }
        let object = CodableMixed()
        object.value = deep
        XCTAssertThrowsError(try JSONEncoder().encode(object)) { assertRefusedForDepth($0) }
        // Within the limit, a value round-trips.
        let shallow = Self.nested(90)
        let data = try JSONEncoder().encode(shallow)
        XCTAssertEqual(try JSONDecoder().decode(AnyRealmValue.self, from: data), shallow)
        // JSON nested past the limit (but within JSONDecoder's own 512) is refused when decoded.
        let tooDeep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        XCTAssertThrowsError(try JSONDecoder().decode(AnyRealmValue.self, from: Data(tooDeep.utf8))) { assertRefusedForDepth($0) }
        let tooDeepObject = "{\"name\": \"n\", \"value\": " + tooDeep + ", \"values\": [], \"byKey\": {}}"
        XCTAssertThrowsError(try JSONDecoder().decode(CodableMixed.self, from: Data(tooDeepObject.utf8))) { assertRefusedForDepth($0) }
    }

    func testCodableRefusesDeepValuesOnTheMainThread() throws {
        try codeDeepValues()
    }

    func testCodableRefusesDeepValuesOnASmallStack() throws {
        try onSmallStack { try self.codeDeepValues() }
    }

    /// A managed value nested 100,000 levels encodes to the same refusal.
    func testCodableRefusesADeepManagedValue() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [CodableMixed.self, MixedCat.self]))
        try onSmallStack {
            let object = CodableMixed()
            object.value = Self.nested(Self.depth)
            try realm.write { realm.add(object) }
        }
        let holder = try XCTUnwrap(realm.objects(CodableMixed.self).first)
        try onSmallStack {
            XCTAssertThrowsError(try JSONEncoder().encode(holder)) { self.assertRefusedForDepth($0) }
        }
        try realm.write { realm.deleteAll() }
    }

    /// Linked objects nest their coders too: a long chain is refused, a short one round-trips.
    func testCodableRefusesALongChainOfObjects() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [ChainLink.self]))
        try realm.write {
            var next: ChainLink?
            for index in 0..<1_000 { next = realm.create(ChainLink.self, value: ["index": index, "next": next as Any]) }
        }
        let head = try XCTUnwrap(realm.objects(ChainLink.self).filter("index == 999").first)
        let short = try XCTUnwrap(realm.objects(ChainLink.self).filter("index == 9").first)
        try onSmallStack {
            XCTAssertThrowsError(try JSONEncoder().encode(head)) { self.assertRefusedForDepth($0) }
            let data = try JSONEncoder().encode(short)
            let decoded = try JSONDecoder().decode(ChainLink.self, from: data)
            var count = 0
            var node: ChainLink? = decoded
            while let current = node { count += 1; node = current.next }
            XCTAssertEqual(count, 10)
        }
    }
}

/// One link of a chain of objects.
final class ChainLink: Object, Codable {
    @Persisted var index = 0
    @Persisted var next: ChainLink?
}
