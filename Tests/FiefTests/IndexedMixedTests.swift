import Fief
import Foundation
import XCTest

/// A mixed property with an index (`@Persisted(indexed: true) var value:
/// AnyRealmValue`, as RealmSwift allows).
final class IndexedMixedHolder: Object {
    @Persisted var n = 0
    @Persisted(indexed: true) var value: AnyRealmValue
}

/// The same property without an index: what a scan answers.
final class PlainMixedHolder: Object {
    @Persisted var n = 0
    @Persisted var value: AnyRealmValue
}

/// `@Persisted(indexed: true)` on `AnyRealmValue`: the schema says the
/// property is indexed, and equality and IN queries answer exactly as on an
/// unindexed property through adds, changes and deletes (Realm's equality:
/// numbers by value across types, bools, strings and numbers apart).
final class IndexedMixedTests: FiefTestCase {
    static var values: [AnyRealmValue] {[
        .none, .int(1), .double(1), .float(1), .decimal128(Decimal128(stringLiteral: "1.00")), .double(2.5), .float(2.5),
        .decimal128(Decimal128(stringLiteral: "2.5")), .int(0), .bool(true), .bool(false), .string("1"), .string("a"), .string(""),
        .data(Data([1])), .date(Date(timeIntervalSince1970: 5)), .objectId(ObjectId("11223344556677889900aabb")),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
    ]}

    func testTheSchemaSaysIndexed() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [IndexedMixedHolder.self, PlainMixedHolder.self]))
        XCTAssertEqual(realm.schema["IndexedMixedHolder"]?["value"]?.isIndexed, true)
        XCTAssertEqual(realm.schema["PlainMixedHolder"]?["value"]?.isIndexed, false)
    }

    func testEqualityAnswersAsTheScan() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [IndexedMixedHolder.self, PlainMixedHolder.self]))
        var rng = Seeded(state: 17)
        var next = 0
        func ns<T: Object>(_ results: Results<T>) -> [Int] { results.map { $0.value(forKey: "n") as! Int }.sorted() }
        for round in 0..<3 {
            try realm.write {
                for _ in 0..<60 {
                    let op = Int.random(in: 0..<10, using: &rng)
                    let indexed = realm.objects(IndexedMixedHolder.self)
                    if op < 5 || indexed.isEmpty {
                        let value = Self.values.randomElement(using: &rng)!
                        let a = IndexedMixedHolder()
                        a.n = next
                        a.value = value
                        let b = PlainMixedHolder()
                        b.n = next
                        b.value = value
                        realm.add([a, b] as [Object])
                        next += 1
                    } else if op < 8 {
                        let a = indexed.randomElement(using: &rng)!
                        let b = realm.objects(PlainMixedHolder.self).filter("n == %@", a.n).first!
                        let value = Self.values.randomElement(using: &rng)!
                        a.value = value
                        b.value = value
                    } else {
                        let a = indexed.randomElement(using: &rng)!
                        realm.delete(realm.objects(PlainMixedHolder.self).filter("n == %@", a.n))
                        realm.delete(a)
                    }
                }
            }
            for probe in Self.values {
                let arg: Any
                switch probe {
                case .none: arg = NSNull()
                case .int(let i): arg = i
                case .bool(let b): arg = b
                case .float(let f): arg = f
                case .double(let d): arg = d
                case .string(let s): arg = s
                case .data(let d): arg = d
                case .date(let d): arg = d
                case .objectId(let o): arg = o
                case .decimal128(let d): arg = d
                case .uuid(let u): arg = u
                default: continue
                }
                XCTAssertEqual(ns(realm.objects(IndexedMixedHolder.self).filter("value == %@", arg)),
                               ns(realm.objects(PlainMixedHolder.self).filter("value == %@", arg)), "\(probe) round \(round)")
            }
            XCTAssertEqual(ns(realm.objects(IndexedMixedHolder.self).filter("value IN %@", [1, 0])),
                           ns(realm.objects(PlainMixedHolder.self).filter("value IN %@", [1, 0])), "round \(round)")
            XCTAssertEqual(ns(realm.objects(IndexedMixedHolder.self).filter("value IN %@", ["a", "1"])),
                           ns(realm.objects(PlainMixedHolder.self).filter("value IN %@", ["a", "1"])), "round \(round)")
            XCTAssertEqual(ns(realm.objects(IndexedMixedHolder.self).filter("value IN {1, 'a', true, nil}")),
                           ns(realm.objects(PlainMixedHolder.self).filter("value IN {1, 'a', true, nil}")), "round \(round)")
        }
        // Numbers equal across types find the same objects; true is not 1.
        let one = ns(realm.objects(IndexedMixedHolder.self).filter("value == 1"))
        XCTAssertEqual(one, ns(realm.objects(IndexedMixedHolder.self).filter("value == %@", Decimal128(stringLiteral: "1.000"))))
        XCTAssertEqual(one, ns(realm.objects(IndexedMixedHolder.self).filter("value == 1.0")))
        XCTAssertTrue(Set(one).isDisjoint(with: ns(realm.objects(IndexedMixedHolder.self).filter("value == true"))))
    }
}

/// A deterministic generator (SplitMix64), so a failure reproduces.
private struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
