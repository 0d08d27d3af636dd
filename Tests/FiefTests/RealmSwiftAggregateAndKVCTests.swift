import Fief
import Foundation
import XCTest

/// Aggregates and key-value reads that behave as RealmSwift's: the sum of no mixed values,
/// key-path aggregates of an unmanaged map of objects, and KVC numbers that cast as
/// RealmSwift's NSNumber values do.
final class RealmSwiftAggregateAndKVCTests: FiefTestCase {
    // MARK: Sum of no mixed values

    func testSumOfAnEmptyUnmanagedMixedCollectionIsIntZero() {
        let holder = MixedHolder(id: 1)
        XCTAssertEqual(holder.values.sum(), .int(0))
        XCTAssertEqual(holder.values.sum().intValue, 0)
        XCTAssertEqual(holder.distinct.sum(), .int(0))
        XCTAssertEqual(holder.byKey.sum(), .int(0))
        XCTAssertNil(holder.values.average() as AnyRealmValue?)
        XCTAssertNil(holder.byKey.average() as AnyRealmValue?)
        // Values that are not numbers count as none.
        holder.values.append(.string("text"))
        holder.values.append(.none)
        XCTAssertEqual(holder.values.sum(), .int(0))
        // With numbers the sum is RealmSwift's: their value.
        holder.values.append(.int(2))
        holder.values.append(.double(0.5))
        XCTAssertEqual(holder.values.sum().doubleValue ?? holder.values.sum().decimal128Value?.doubleValue, 2.5)
    }

    func testSumOfAnEmptyManagedMixedMapIsIntZero() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.byKey.sum().intValue, 0)
        XCTAssertNil(holder.byKey.average() as AnyRealmValue?)
        // A managed list or set sums in the library, as RealmSwift's does in realm-core: zero, not an int.
        XCTAssertEqual(holder.values.sum().intValue, nil)
        XCTAssertEqual(holder.values.sum().decimal128Value, 0)
        XCTAssertEqual(holder.distinct.sum().intValue, nil)
        try realm.write {
            holder.byKey["a"] = .int(3)
            holder.byKey["b"] = .double(1.5)
        }
        XCTAssertEqual(holder.byKey.sum().decimal128Value, Decimal128(string: "4.5"))
    }

    // MARK: Key-path aggregates of a map of objects

    func testKeyPathAggregatesOfAMapOfObjectsManagedOrNot() throws {
        let kennel = Kennel(id: 1, name: "Home")
        kennel.dogsByName["a"] = Dog(name: "A", age: 1, color: "tan")
        kennel.dogsByName["b"] = Dog(name: "B", age: 2, color: "tan")
        kennel.dogsByName["c"] = Dog(name: "C", age: 3, color: "tan")
        kennel.dogsByName["none"] = nil as Dog?
        func assertAggregates(_ state: String) {
            XCTAssertEqual(kennel.dogsByName.min(of: \.age), 1, state)
            XCTAssertEqual(kennel.dogsByName.max(of: \.age), 3, state)
            XCTAssertEqual(kennel.dogsByName.sum(of: \.age), 6, state)
            XCTAssertEqual(kennel.dogsByName.average(of: \.age), 2, state)
            XCTAssertEqual(kennel.dogsByName.average(ofProperty: "age") as Int?, 2, state)
            XCTAssertEqual(kennel.dogsByName.average(ofProperty: "age") as Double?, 2.0, state)
            XCTAssertEqual(kennel.dogsByName.average(ofProperty: "age") as Decimal128?, 2, state)
        }
        assertAggregates("unmanaged")
        let realm = try Realm()
        try realm.write { realm.add(kennel) }
        assertAggregates("managed")
        // None: nil averages, zero sums, in both forms.
        let empty = Kennel(id: 2, name: "Empty")
        XCTAssertNil(empty.dogsByName.average(of: \.age))
        XCTAssertEqual(empty.dogsByName.sum(of: \.age), 0)
        try realm.write { realm.add(empty) }
        XCTAssertNil(empty.dogsByName.average(of: \.age))
        XCTAssertEqual(empty.dogsByName.sum(of: \.age), 0)
    }

    // MARK: KVC numbers

    func testKVCReadsOfSizedNumbersCastAsNSNumbersDo() throws {
        let object = AllTypes()
        object.int = 1
        object.int8 = 8
        object.int16 = 16
        object.int32 = 32
        object.int64 = 64
        object.float = 2.5
        object.double = 3.5
        object.bool = true
        object.optInt8 = 9
        func assertCasts(_ state: String) {
            XCTAssertEqual(object["int8"] as! Int, 8, state)
            XCTAssertEqual(object["int8"] as! Int8, 8, state)
            XCTAssertEqual(object["int8"] as! Int64, 8, state)
            XCTAssertEqual(object["int16"] as! Int, 16, state)
            XCTAssertEqual(object["int32"] as! Int, 32, state)
            XCTAssertEqual(object["int32"] as! Int32, 32, state)
            XCTAssertEqual(object["int64"] as! Int, 64, state)
            XCTAssertEqual(object["int"] as! Int8, 1, state)
            XCTAssertEqual(object["int8"] as! Double, 8, state)
            XCTAssertEqual(object["float"] as! Double, 2.5, state)
            XCTAssertEqual(object["float"] as! Float, 2.5, state)
            XCTAssertEqual(object["double"] as! Float, 3.5, state)
            XCTAssertEqual(object["bool"] as! Bool, true, state)
            XCTAssertEqual(object["bool"] as! Int, 1, state)
            XCTAssertEqual(object["optInt8"] as! Int, 9, state)
            XCTAssertNil(object["optInt16"], state)
            XCTAssertTrue(object["int8"] is NSNumber, state)
            XCTAssertEqual(object.value(forKey: "int16") as? Int16, 16, state)
        }
        assertCasts("unmanaged")
        let realm = try Realm()
        try realm.write { realm.add(object) }
        assertCasts("managed")
        // Key paths and collections of objects read numbers the same way.
        let results = realm.objects(AllTypes.self)
        XCTAssertEqual((results.value(forKey: "int8") as! [Any?]).map { $0 as! Int }, [8])
        // Aggregates by name keep their types.
        XCTAssertEqual(results.sum(ofProperty: "int8") as Int8, 8)
    }
}
