import Fief
import Foundation
import XCTest

/// `AnyRealmValue`: the enum's surface, mixed properties (`@Persisted`,
/// `RealmProperty`), lists, sets and maps of mixed values, Realm's equality
/// rules, links to objects of any class, KVC, `create`, `init(value:)`, the
/// dynamic API, aggregates and Codable.
final class AnyRealmValueTests: FiefTestCase {
    /// One value of every scalar case, each with a payload its type alone has.
    static var scalars: [AnyRealmValue] {[
        .none,
        .int(-42),
        .bool(true),
        .float(1.5),
        .double(2.25),
        .string("Fluffy the Cat"),
        .data(Data([0, 1, 2, 255])),
        .date(Date(timeIntervalSince1970: 1_700_000_000.5)),
        .objectId(ObjectId("11223344556677889900aabb")),
        .decimal128(Decimal128(stringLiteral: "123.456")),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
    ]}

    // MARK: The enum

    func testAccessorsGiveThePayloadOfTheirCaseOnly() {
        let date = Date(timeIntervalSince1970: 5)
        let id = ObjectId("11223344556677889900aabb")
        let uuid = UUID()
        XCTAssertEqual(AnyRealmValue.int(3).intValue, 3)
        XCTAssertEqual(AnyRealmValue.bool(true).boolValue, true)
        XCTAssertEqual(AnyRealmValue.float(1.5).floatValue, 1.5)
        XCTAssertEqual(AnyRealmValue.double(2.5).doubleValue, 2.5)
        XCTAssertEqual(AnyRealmValue.string("a").stringValue, "a")
        XCTAssertEqual(AnyRealmValue.data(Data([1])).dataValue, Data([1]))
        XCTAssertEqual(AnyRealmValue.date(date).dateValue, date)
        XCTAssertEqual(AnyRealmValue.objectId(id).objectIdValue, id)
        XCTAssertEqual(AnyRealmValue.decimal128(Decimal128(7)).decimal128Value, Decimal128(7))
        XCTAssertEqual(AnyRealmValue.uuid(uuid).uuidValue, uuid)
        // No conversion between cases.
        XCTAssertNil(AnyRealmValue.int(1).doubleValue)
        XCTAssertNil(AnyRealmValue.double(1).intValue)
        XCTAssertNil(AnyRealmValue.bool(true).intValue)
        XCTAssertNil(AnyRealmValue.string("1").intValue)
        XCTAssertNil(AnyRealmValue.none.stringValue)
        XCTAssertNil(AnyRealmValue.int(1).listValue)
        XCTAssertNil(AnyRealmValue.int(1).dictionaryValue)
        XCTAssertNil(AnyRealmValue.int(1).object(MixedCat.self))
        XCTAssertNil(AnyRealmValue.int(1).dynamicObject)

        let cat = MixedCat(name: "Tom")
        XCTAssertTrue(AnyRealmValue.object(cat).object(MixedCat.self) === cat)
        XCTAssertNil(AnyRealmValue.object(cat).object(MixedBird.self))
        // RealmSwift's default case and initializer.
        XCTAssertEqual(AnyRealmValue(), .none)
    }

    func testFromArrayAndFromDictionaryMakeUnmanagedCollections() {
        let list = AnyRealmValue.fromArray([.int(1), .string("two"), .none])
        XCTAssertEqual(list.listValue.map(Array.init), [.int(1), .string("two"), .none])
        XCTAssertNil(list.listValue?.realm)
        let map = AnyRealmValue.fromDictionary(["b": .double(2), "a": .bool(false)])
        XCTAssertEqual(map.dictionaryValue?.keys, ["a", "b"])
        XCTAssertEqual(map.dictionaryValue?["b"], .double(2))
        XCTAssertNil(map.dictionaryValue?.realm)
    }

    func testEqualityAndHashingFollowTheCaseAndPayload() {
        // Swift's == keeps the types apart (Realm's rules apply in collections).
        XCTAssertNotEqual(AnyRealmValue.int(1), .double(1))
        XCTAssertNotEqual(AnyRealmValue.int(1), .bool(true))
        XCTAssertNotEqual(AnyRealmValue.int(1), .string("1"))
        XCTAssertEqual(AnyRealmValue.int(1), .int(1))
        XCTAssertEqual(AnyRealmValue.none, .none)
        let values: Set<AnyRealmValue> = Set(Self.scalars + Self.scalars + [.int(1), .double(1)])
        XCTAssertEqual(values.count, Self.scalars.count + 2)
        let cat = MixedCat(name: "Tom")
        XCTAssertEqual(AnyRealmValue.object(cat), .object(cat))
        XCTAssertNotEqual(AnyRealmValue.object(cat), .object(MixedCat(name: "Tom")))
        XCTAssertEqual(AnyRealmValue.object(cat).hashValue, AnyRealmValue.object(cat).hashValue)
    }

    func testDescriptionNamesTheCase() {
        // As the CRUD-Read guide prints them.
        XCTAssertEqual("\(AnyRealmValue.string("Fluffy the Cat"))", "string(\"Fluffy the Cat\")")
        XCTAssertEqual("\(AnyRealmValue.int(3))", "int(3)")
        XCTAssertEqual("\(AnyRealmValue.none)", "none")
    }

    func testObjectDescriptionShowsThePayload() throws {
        let holder = MixedHolder(id: 1, value: .string("Fluffy"))
        XCTAssertTrue(holder.description.contains("value = Fluffy;"), holder.description)
        let realm = try Realm()
        try realm.write { realm.add(holder) }
        XCTAssertTrue(holder.description.contains("value = Fluffy;"), holder.description)
        try realm.write { holder.value = .none }
        XCTAssertTrue(holder.description.contains("value = (null);"), holder.description)
    }

    func testProtocolConformances() {
        func collectionValue<T: RealmCollectionValue>(_: T.Type) -> Bool { true }
        func propertyType<T: RealmPropertyType>(_: T.Type) -> Bool { true }
        func minMax<T: MinMaxType>(_: T.Type) -> Bool { true }
        func addable<T: AddableType>(_: T.Type) -> Bool { true }
        func sortable<T: SortableType>(_: T.Type) -> Bool { true }
        func persisted<T: _HasPersistedType>(_: T.Type) -> Any.Type { T.PersistedType.self }
        XCTAssertTrue(collectionValue(AnyRealmValue.self) && propertyType(AnyRealmValue.self) && minMax(AnyRealmValue.self)
                          && addable(AnyRealmValue.self) && sortable(AnyRealmValue.self))
        XCTAssertTrue(persisted(AnyRealmValue.self) == AnyRealmValue.self)
    }

    // MARK: Mixed properties

    func testEveryScalarRoundTripsThroughAManagedProperty() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        try realm.write { realm.add(holder) }
        for value in Self.scalars {
            try realm.write { holder.value = value }
            XCTAssertEqual(holder.value, value)
            // A second object of the same row reads it too.
            XCTAssertEqual(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1)?.value, value)
            try realm.write { holder.legacy.value = value }
            XCTAssertEqual(holder.legacy.value, value)
        }
        // Each value keeps its own type: an int is no double, a float no double.
        try realm.write { holder.value = .int(1) }
        XCTAssertEqual(holder.value.intValue, 1)
        XCTAssertNil(holder.value.doubleValue)
        try realm.write { holder.value = .float(0.1) }
        XCTAssertEqual(holder.value, .float(0.1))
    }

    func testUnmanagedValuesAreWrittenByAdd() throws {
        let realm = try Realm()
        for (i, value) in Self.scalars.enumerated() {
            let holder = MixedHolder(id: i, value: value)
            holder.legacy.value = value
            XCTAssertEqual(holder.value, value)
            try realm.write { realm.add(holder) }
            XCTAssertNotNil(holder.realm)
            XCTAssertEqual(holder.value, value)
            XCTAssertEqual(holder.legacy.value, value)
        }
        XCTAssertEqual(realm.objects(MixedHolder.self).count, Self.scalars.count)
        // A default value is written; a property without one holds .none.
        let withDefault = MixedDefault()
        try realm.write { realm.add(withDefault) }
        XCTAssertEqual(withDefault.value, .string("default"))
        try realm.write {
            XCTAssertEqual(realm.create(MixedHolder.self, value: ["id": 100]).value, AnyRealmValue.none)
        }
    }

    func testValuesSurviveReopeningTheFile() throws {
        let config = fileConfiguration(objectTypes: [MixedHolder.self, MixedCat.self])
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let holder = MixedHolder(id: 1, value: .decimal128(Decimal128(stringLiteral: "0.1")))
                holder.values.append(objectsIn: Self.scalars)
                holder.byKey["cat"] = .object(MixedCat(name: "Tom"))
                realm.add(holder)
            }
        }
        let frozen = try Realm(configuration: config).freeze()
        let holder = try XCTUnwrap(frozen.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        XCTAssertEqual(holder.value, .decimal128(Decimal128(stringLiteral: "0.1")))
        XCTAssertEqual(Array(holder.values), Self.scalars)
        XCTAssertEqual(holder.byKey["cat"]?.object(MixedCat.self)?.name, "Tom")
        XCTAssertTrue(holder.byKey["cat"]?.object(MixedCat.self)?.isFrozen ?? false)
    }

    func testSchemaDescribesAMixedProperty() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        try realm.write { realm.add(holder) }
        let schema = try XCTUnwrap(realm.schema["MixedHolder"])
        XCTAssertEqual(schema["value"]?.type, .any)
        XCTAssertEqual(schema["value"]?.isOptional, false)
        XCTAssertEqual(schema["legacy"]?.type, .any)
        XCTAssertEqual(schema["values"]?.type, .any)
        XCTAssertEqual(schema["values"]?.isArray, true)
        XCTAssertEqual(schema["distinct"]?.isSet, true)
        XCTAssertEqual(schema["byKey"]?.isMap, true)
    }

    // MARK: Objects

    func testAnObjectOfAnyClassReadsBackAsItsManagedClass() throws {
        let realm = try Realm()
        let cat = MixedCat(name: "Tom")
        let holder = MixedHolder(id: 1, value: .object(cat))
        try realm.write { realm.add(holder) }
        // The linked unmanaged object was added with its holder.
        XCTAssertNotNil(cat.realm)
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        let read = try XCTUnwrap(holder.value.object(MixedCat.self))
        XCTAssertEqual(read.name, "Tom")
        XCTAssertTrue(read.isSameObject(as: cat))
        XCTAssertNil(holder.value.object(MixedBird.self))

        // Another class, managed already, in the same property.
        try realm.write {
            let bird = realm.create(MixedBird.self, value: ["name": "Tweety"])
            holder.value = .object(bird)
        }
        XCTAssertEqual(holder.value.object(MixedBird.self)?.name, "Tweety")
        // Mixed values are query arguments too.
        XCTAssertEqual(realm.objects(MixedBird.self).filter("name == %@", AnyRealmValue.string("Tweety")).count, 1)
        // Objects of a class with a primary key compare equal by row.
        XCTAssertEqual(holder.value, .object(realm.object(ofType: MixedBird.self, forPrimaryKey: "Tweety")!))

        // dynamicObject reads the same row by name.
        let dynamic = try XCTUnwrap(holder.value.dynamicObject)
        XCTAssertEqual(dynamic["name"] as? String, "Tweety")
        XCTAssertEqual(dynamic.objectSchema.className, "MixedBird")
    }

    func testObjectsLinkingToEachOtherThroughMixedValuesAreAddedOnce() throws {
        let realm = try Realm()
        let tom = MixedCat(name: "Tom")
        let felix = MixedCat(name: "Felix")
        tom.friend = .object(felix)
        felix.friend = .object(tom)
        let holder = MixedHolder(id: 1, value: .object(tom))
        try realm.write { realm.add(holder) }
        XCTAssertEqual(realm.objects(MixedCat.self).count, 2)
        let readTom = try XCTUnwrap(holder.value.object(MixedCat.self))
        let readFelix = try XCTUnwrap(readTom.friend.object(MixedCat.self))
        XCTAssertEqual(readFelix.name, "Felix")
        XCTAssertEqual(readFelix.friend.object(MixedCat.self)?.name, "Tom")
    }

    func testDeletingALinkedObjectLeavesNone() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1, value: .object(MixedCat(name: "Tom")))
        holder.values.append(.object(MixedCat(name: "Felix")))
        holder.byKey["cat"] = .object(MixedCat(name: "Kitty"))
        try realm.write { realm.add(holder) }
        XCTAssertEqual(realm.objects(MixedCat.self).count, 3)
        try realm.write { realm.delete(realm.objects(MixedCat.self)) }
        XCTAssertEqual(holder.value, AnyRealmValue.none)
        // A deleted object leaves a list; a map keeps its key, with none.
        XCTAssertEqual(holder.values.count, 0)
        XCTAssertEqual(holder.byKey["cat"], AnyRealmValue.none)
    }

    // MARK: Collections of mixed values

    func testListsKeepEveryTypeManagedAndUnmanaged() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        holder.values.append(objectsIn: Self.scalars)
        XCTAssertEqual(Array(holder.values), Self.scalars)
        try realm.write { realm.add(holder) }
        XCTAssertEqual(Array(holder.values), Self.scalars)
        XCTAssertEqual(holder.values.count, Self.scalars.count)
        try realm.write {
            holder.values.insert(.int(7), at: 0)
            holder.values[1] = .string("replaced")
            holder.values.append(.object(MixedCat(name: "Tom")))
        }
        XCTAssertEqual(holder.values[0], .int(7))
        XCTAssertEqual(holder.values[1], .string("replaced"))
        XCTAssertEqual(holder.values.last?.object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        try realm.write { holder.values.remove(at: 0) }
        XCTAssertEqual(holder.values.first, .string("replaced"))
    }

    func testListLookupsFollowRealmsEqualityRules() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        let elements: [AnyRealmValue] = [.string("1"), .bool(true), .int(1), .decimal128(Decimal128(2)), .float(2.5)]
        holder.values.append(objectsIn: elements)
        func check(_ list: List<AnyRealmValue>, _ state: String) {
            // Numbers are found whatever their type; true and "1" are not 1.
            XCTAssertEqual(list.index(of: .int(1)), 2, state)
            XCTAssertEqual(list.index(of: .double(1)), 2, state)
            XCTAssertEqual(list.index(of: .float(1)), 2, state)
            XCTAssertEqual(list.index(of: .decimal128(Decimal128(1))), 2, state)
            XCTAssertEqual(list.index(of: .int(2)), 3, state)
            XCTAssertEqual(list.index(of: .double(2.5)), 4, state)
            XCTAssertEqual(list.index(of: .bool(true)), 1, state)
            XCTAssertEqual(list.index(of: .string("1")), 0, state)
            XCTAssertNil(list.index(of: .bool(false)), state)
            XCTAssertNil(list.index(of: .string("2")), state)
            XCTAssertNil(list.index(of: .none), state)
            XCTAssertTrue(list.contains(.double(2)), state)
            XCTAssertFalse(list.contains(.int(3)), state)
            // An unmanaged object is never in a list.
            XCTAssertNil(list.index(of: .object(MixedCat(name: "Tom"))), state)
        }
        check(holder.values, "unmanaged")
        try realm.write { realm.add(holder) }
        check(holder.values, "managed")
    }

    func testSetsHoldOneElementPerRealmValue() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        let inserted: [AnyRealmValue] = [.int(1), .float(1), .double(1), .decimal128(Decimal128(1)), .bool(true), .string("1"), .none, .none]
        holder.distinct.insert(objectsIn: inserted)
        // 1 in every numeric type is one element; true, "1" and none are others.
        XCTAssertEqual(holder.distinct.count, 4)
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.distinct.count, 4)
        for value in inserted { XCTAssertTrue(holder.distinct.contains(value), "\(value)") }
        XCTAssertTrue(holder.distinct.contains(.double(1.0)))
        XCTAssertFalse(holder.distinct.contains(.int(2)))
        XCTAssertFalse(holder.distinct.contains(.bool(false)))
        try realm.write {
            holder.distinct.insert(.decimal128(Decimal128(1)))
            holder.distinct.insert(.object(MixedCat(name: "Tom")))
        }
        XCTAssertEqual(holder.distinct.count, 5)
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        try realm.write { holder.distinct.remove(.float(1)) }
        XCTAssertEqual(holder.distinct.count, 4)
        XCTAssertFalse(holder.distinct.contains(.int(1)))
        XCTAssertTrue(holder.distinct.contains(.bool(true)))
        // Set algebra between sets of mixed values.
        let other = MixedHolder(id: 2)
        other.distinct.insert(objectsIn: [.int(5), .bool(true)])
        try realm.write { realm.add(other) }
        XCTAssertTrue(holder.distinct.intersects(other.distinct))
        try realm.write { holder.distinct.formIntersection(other.distinct) }
        XCTAssertEqual(Array(holder.distinct), [.bool(true)])
    }

    func testMapsHoldMixedValues() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        for (i, value) in Self.scalars.enumerated() { holder.byKey["k\(i)"] = value }
        holder.byKey["none"] = AnyRealmValue.none
        XCTAssertEqual(holder.byKey.count, Self.scalars.count + 1)
        try realm.write { realm.add(holder) }
        XCTAssertEqual(holder.byKey.count, Self.scalars.count + 1)
        for (i, value) in Self.scalars.enumerated() { XCTAssertEqual(holder.byKey["k\(i)"], value) }
        // A key holding none is there, with .none; a missing key gives nil.
        XCTAssertEqual(holder.byKey["none"], .some(AnyRealmValue.none))
        XCTAssertNil(holder.byKey["missing"])
        try realm.write {
            holder.byKey["k1"] = nil
            holder.byKey["cat"] = .object(MixedCat(name: "Tom"))
        }
        XCTAssertNil(holder.byKey["k1"])
        XCTAssertEqual(holder.byKey["cat"]?.object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(holder.byKey.value(forKey: "k2") as? Bool, true)
        XCTAssertTrue(holder.byKey.value(forKey: "none") is NSNull)
    }

    /// Aggregates over mixed values follow realm-core's rules, the same for
    /// managed collections (computed by the library) and unmanaged ones
    /// (computed in the overlay): min and max over every value in Realm's
    /// mixed order (a bool below every number, a string above); sum and
    /// average over the numbers only, as decimals.
    func testAggregatesOverMixedCollections() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        let elements: [AnyRealmValue] = [.int(3), .string("x"), .double(0.5), .none, .float(8), .bool(true)]
        holder.values.append(objectsIn: elements)
        holder.distinct.insert(objectsIn: elements)
        for (i, value) in elements.enumerated() { holder.byKey["\(i)"] = value }
        let average = Decimal128(23) / Decimal128(6)
        func check(_ state: String) {
            XCTAssertEqual(holder.values.min(), .bool(true), state)
            XCTAssertEqual(holder.values.max(), .string("x"), state)
            XCTAssertEqual(holder.values.sum(), .decimal128(Decimal128(11.5)), state)
            XCTAssertEqual(holder.values.average(), AnyRealmValue.decimal128(average), state)
            XCTAssertEqual(holder.values.average() as Double?, average.doubleValue, state)
            XCTAssertEqual(holder.values.min(ofProperty: "self"), AnyRealmValue.bool(true), state)
            XCTAssertEqual(holder.values.sum(ofProperty: "self"), AnyRealmValue.decimal128(Decimal128(11.5)), state)
            XCTAssertEqual(holder.distinct.min(), .bool(true), state)
            XCTAssertEqual(holder.distinct.max(), .string("x"), state)
            XCTAssertEqual(holder.distinct.sum(), .decimal128(Decimal128(11.5)), state)
            XCTAssertEqual(holder.distinct.average(), AnyRealmValue.decimal128(average), state)
            XCTAssertEqual(holder.distinct.max(ofProperty: "self"), AnyRealmValue.string("x"), state)
            XCTAssertEqual(holder.byKey.min(), .bool(true), state)
            XCTAssertEqual(holder.byKey.max(), .string("x"), state)
            XCTAssertEqual(holder.byKey.sum(), .decimal128(Decimal128(11.5)), state)
            XCTAssertEqual(holder.byKey.average() as AnyRealmValue?, .decimal128(average), state)
        }
        check("unmanaged")
        try realm.write { realm.add(holder) }
        check("managed")

        // Each case, on an unmanaged list and then on the same list stored.
        let date = Date(timeIntervalSince1970: 0)
        let uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        let cases: [(elements: [AnyRealmValue], min: AnyRealmValue?, max: AnyRealmValue?, sum: Decimal128, average: Decimal128?)] = [
            // Nothing: no min, max or average; the sum is decimal 0.
            ([], nil, nil, 0, nil),
            ([.none, .string("a")], .string("a"), .string("a"), 0, nil),
            // Dates come after strings and data, ids after dates.
            ([.int(2), .date(date), .string("z"), .data(Data([1]))], .int(2), .date(date), 2, 2),
            ([.uuid(uuid), .objectId(ObjectId.generate()), .date(date)], .date(date), .uuid(uuid), 0, nil),
            // Doubles are added as 15-digit decimals, floats as 7-digit ones.
            ([.double(0.1), .double(0.2)], .double(0.1), .double(0.2), Decimal128(0.3), Decimal128(0.15)),
            ([.float(0.1), .int(1)], .float(0.1), .int(1), Decimal128(1.1), Decimal128(0.55)),
            // NaN and nested collections take no part.
            ([.double(.nan), .int(-4), .float(.nan), .decimal128(Decimal128(7))], .int(-4), .decimal128(Decimal128(7)), 3, Decimal128(1.5)),
            ([.list(List<AnyRealmValue>()), .int(5), .dictionary(Map<String, AnyRealmValue>())], .int(5), .int(5), 5, 5),
            // Numbers compare by value across types.
            ([.int(3), .double(2.5), .decimal128(Decimal128(2.75))], .double(2.5), .int(3), Decimal128(8.25), Decimal128(2.75)),
        ]
        for (i, item) in cases.enumerated() {
            let list = List<AnyRealmValue>()
            list.append(objectsIn: item.elements)
            let stored = MixedHolder(id: 100 + i)
            stored.values.append(objectsIn: item.elements)
            try realm.write { realm.add(stored) }
            for (state, values) in [("unmanaged", list), ("managed", stored.values)] {
                let context = "case \(i), \(state)"
                XCTAssertEqual(values.min(), item.min, context)
                XCTAssertEqual(values.max(), item.max, context)
                // With no numbers, an unmanaged collection sums to the integer 0 (RealmSwift's
                // NSNumber 0), a managed one to the library's decimal 0 (realm-core's).
                let noNumbers = !item.elements.contains(where: Self.isSummed)
                XCTAssertEqual(values.sum(), noNumbers && state == "unmanaged" ? .int(0) : .decimal128(item.sum), context)
                XCTAssertEqual(values.average(), item.average.map(AnyRealmValue.decimal128), context)
            }
        }

        // An object is above every other value.
        let cat = MixedCat(name: "Tom")
        let withObject = List<AnyRealmValue>()
        withObject.append(objectsIn: [.int(9), .object(cat), .string("z")])
        XCTAssertEqual(withObject.max()?.object(MixedCat.self)?.name, "Tom")
        let storedWithObject = MixedHolder(id: 99)
        storedWithObject.values.append(objectsIn: [.int(9), .object(cat), .string("z")])
        try realm.write { realm.add(storedWithObject) }
        XCTAssertEqual(storedWithObject.values.max()?.object(MixedCat.self)?.name, "Tom")
        XCTAssertEqual(storedWithObject.values.min(), .int(9))
    }

    /// Whether a sum takes `value`: a number that is not NaN.
    static func isSummed(_ value: AnyRealmValue) -> Bool {
        switch value {
        case .int: return true
        case .float(let v): return !v.isNaN
        case .double(let v): return !v.isNaN
        case .decimal128(let v): return !v.isNaN
        default: return false
        }
    }

    /// Random lists of mixed values (no objects): the overlay's aggregates
    /// of the unmanaged list equal the library's of the stored one.
    func testUnmanagedMixedAggregatesMatchTheLibrary() throws {
        let realm = try Realm()
        var random = SystemRandomNumberGenerator()
        let pool: [AnyRealmValue] = [
            .none, .bool(false), .bool(true), .int(0), .int(-7), .int(Int.max), .int(3),
            .float(0.1), .float(-2.5), .float(.nan), .double(1.0 / 3), .double(-0.7), .double(1e300), .double(.nan),
            .decimal128(Decimal128(5)), .decimal128(Decimal128(-0.125)), .string(""), .string("b"), .string("ab"),
            .data(Data()), .data(Data([0, 1])), .date(Date(timeIntervalSince1970: -5)), .date(Date(timeIntervalSince1970: 9)),
            .objectId(ObjectId("0123456789abcdef01234567")), .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
        ]
        for round in 0..<60 {
            let elements = (0..<Int.random(in: 0...8, using: &random)).map { _ in pool.randomElement(using: &random)! }
            let list = List<AnyRealmValue>()
            list.append(objectsIn: elements)
            let stored = MixedHolder(id: round)
            stored.values.append(objectsIn: elements)
            try realm.write { realm.add(stored) }
            let context = "\(elements)"
            XCTAssertEqual(list.min(), stored.values.min(), context)
            XCTAssertEqual(list.max(), stored.values.max(), context)
            if elements.contains(where: Self.isSummed) {
                XCTAssertEqual(list.sum(), stored.values.sum(), context)
            } else {
                XCTAssertEqual(list.sum(), .int(0), context)
                XCTAssertEqual(stored.values.sum(), .decimal128(0), context)
            }
            XCTAssertEqual(list.average() as AnyRealmValue?, stored.values.average() as AnyRealmValue?, context)
        }
    }

    /// An unmanaged List of plain values takes `"self"` in the aggregates by
    /// property name, as MutableSet does.
    func testUnmanagedListAggregatesBySelf() {
        let list = List<Int>()
        list.append(objectsIn: [4, 1, 7])
        XCTAssertEqual(list.min(ofProperty: "self") as Int?, 1)
        XCTAssertEqual(list.max(ofProperty: "self") as Int?, 7)
        XCTAssertEqual(list.sum(ofProperty: "self") as Int, 12)
        XCTAssertEqual(list.average(ofProperty: "self") as Double?, 4)
    }

    /// The library sorts managed collections of mixed values in Realm's
    /// order (null, bool, numbers by value, string), nested lists too, and
    /// filters them (see `testManagedMixedListFiltersThroughTheEngine`).
    func testManagedMixedCollectionsSortInTheLibrary() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        holder.values.append(objectsIn: [.int(3), .string("x"), .double(0.5), .none, .float(8), .bool(true), .decimal128(Decimal128(1))])
        try realm.write {
            realm.add(holder)
            holder.value = .fromArray([.int(1), .int(5), .string("x")])
        }
        XCTAssertEqual(Array(holder.values.filter("self == 1")), [.decimal128(Decimal128(1))])
        XCTAssertEqual(Array(holder.values.sorted(ascending: true)),
                       [.none, .bool(true), .double(0.5), .decimal128(Decimal128(1)), .int(3), .float(8), .string("x")])
        XCTAssertEqual(Array(holder.values.sorted(ascending: false)).first, .string("x"))
        guard case .list(let nested) = holder.value else { return XCTFail("not a nested list") }
        XCTAssertEqual(Array(nested.filter("self > 1")), [.int(5)])
        XCTAssertEqual(Array(nested.sorted(ascending: false)), [.string("x"), .int(5), .int(1)])
    }

    // MARK: KVC, init(value:), create, dynamic API

    func testKeyValueCodingReadsAndWritesPayloads() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        holder.setValue(5, forKey: "value")
        XCTAssertEqual(holder.value, .int(5))
        XCTAssertEqual(holder.value(forKey: "value") as? Int, 5)
        holder.setValue(AnyRealmValue.float(2), forKey: "legacy")
        XCTAssertEqual(holder.legacy.value, .float(2))
        try realm.write { realm.add(holder) }
        try realm.write {
            holder.setValue("text", forKey: "value")
            holder["legacy"] = NSNumber(value: 2.5)
        }
        XCTAssertEqual(holder.value, .string("text"))
        XCTAssertEqual(holder.legacy.value, .double(2.5))
        XCTAssertEqual(holder["value"] as? String, "text")
        try realm.write {
            holder.setValue(NSNumber(value: true), forKey: "value")
            holder.setValue(Float(1.25), forKey: "legacy")
        }
        XCTAssertEqual(holder.value, .bool(true))
        XCTAssertEqual(holder.legacy.value, .float(1.25))
        // Regression: an NSNumber holding 1 or 0 was read as a boolean.
        try realm.write {
            holder.setValue(NSNumber(value: 1), forKey: "value")
            holder.setValue(NSNumber(value: false), forKey: "legacy")
        }
        XCTAssertEqual(holder.value, .int(1))
        XCTAssertEqual(holder.legacy.value, .bool(false))
        let cat = MixedCat(name: "Tom")
        try realm.write { holder.setValue(cat, forKey: "value") }
        XCTAssertTrue((holder.value(forKey: "value") as? MixedCat)?.isSameObject(as: cat) ?? false)
        try realm.write { holder.setValue(nil, forKey: "value") }
        XCTAssertEqual(holder.value, AnyRealmValue.none)
        XCTAssertNil(holder.value(forKey: "value"))
        try realm.write { holder.setValue(NSNull(), forKey: "legacy") }
        XCTAssertEqual(holder.legacy.value, AnyRealmValue.none)
        // Lists by KVC: the payloads.
        try realm.write { holder.values.append(objectsIn: [.int(1), .string("a"), .none]) }
        let payloads = holder.values.value(forKey: "self") as? [Any?]
        XCTAssertEqual(payloads?.count, 3)
        XCTAssertEqual(payloads?[0] as? Int, 1)
        XCTAssertEqual(payloads?[1] as? String, "a")
        XCTAssertNil(payloads?[2] ?? nil)
        try realm.write { holder.distinct.insert(objectsIn: [.int(1), .none]) }
        let setPayloads = holder.distinct.value(forKey: "self")
        XCTAssertTrue(setPayloads.contains { $0 is NSNull })
        XCTAssertTrue(setPayloads.contains { ($0 as? Int) == 1 })
    }

    func testCreateAndInitValueTakeAnyValueAMixedPropertyHolds() throws {
        let realm = try Realm()
        let date = Date(timeIntervalSince1970: 100)
        let input: [String: Any] = ["id": 1, "value": 2.5, "values": [1, "two", nil, date, Float(1.5)] as [Any?],
                                    "distinct": [1, 1.0, true] as [Any], "byKey": ["a": 1, "b": NSNull()] as [String: Any]]
        let unmanaged = MixedHolder(value: input)
        XCTAssertEqual(unmanaged.value, .double(2.5))
        XCTAssertEqual(Array(unmanaged.values), [.int(1), .string("two"), .none, .date(date), .float(1.5)])
        XCTAssertEqual(unmanaged.distinct.count, 2)
        XCTAssertEqual(unmanaged.byKey["b"], .some(AnyRealmValue.none))
        try realm.write {
            let created = realm.create(MixedHolder.self, value: ["id": 2, "value": MixedCat(name: "Tom"),
                                                                 "values": [AnyRealmValue.int(3), 4] as [Any], "legacy": "legacy"])
            XCTAssertEqual(created.value.object(MixedCat.self)?.name, "Tom")
            XCTAssertEqual(Array(created.values), [.int(3), .int(4)])
            XCTAssertEqual(created.legacy.value, .string("legacy"))
            // An update through create changes only what it is given.
            realm.create(MixedHolder.self, value: ["id": 2, "value": ObjectId("11223344556677889900aabb")], update: .modified)
            XCTAssertEqual(created.value, .objectId(ObjectId("11223344556677889900aabb")))
            XCTAssertEqual(created.legacy.value, .string("legacy"))
            // A copy of a managed object copies its mixed values.
            let copy = MixedHolder(value: created)
            copy.id = 3
            realm.add(copy)
            XCTAssertEqual(copy.value, created.value)
            XCTAssertEqual(Array(copy.values), Array(created.values))
        }
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
    }

    func testDynamicAPIReadsAndWritesMixedProperties() throws {
        let realm = try Realm()
        try realm.write {
            let holder = MixedHolder(id: 1, value: .string("hi"))
            holder.values.append(objectsIn: [.int(1), .bool(false)])
            holder.byKey["x"] = .double(1)
            realm.add(holder)
        }
        let dynamic = try XCTUnwrap(realm.dynamicObjects("MixedHolder").first)
        XCTAssertEqual(dynamic["value"] as? String, "hi")
        let values = try XCTUnwrap(dynamic["values"] as? List<AnyRealmValue>)
        XCTAssertEqual(Array(values), [.int(1), .bool(false)])
        XCTAssertEqual((dynamic["byKey"] as? Map<String, AnyRealmValue>)?["x"], .double(1))
        try realm.write {
            dynamic["value"] = 42
            realm.dynamicCreate("MixedHolder", value: ["id": 2, "value": Data([1, 2])])
        }
        XCTAssertEqual(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1)?.value, .int(42))
        XCTAssertEqual(realm.object(ofType: MixedHolder.self, forPrimaryKey: 2)?.value, .data(Data([1, 2])))
    }

    // MARK: Codable

    func testCodableRoundTripKeepsEveryType() throws {
        let object = CodableMixed()
        object.name = "all"
        object.value = .date(Date(timeIntervalSince1970: 12.5))
        object.values.append(objectsIn: Self.scalars + [.double(1), .float(2)])
        object.byKey["cat"] = .object(MixedCat(name: "Tom"))
        object.byKey["n"] = .int(4)
        let data = try JSONEncoder().encode(object)
        let decoded = try JSONDecoder().decode(CodableMixed.self, from: data)
        XCTAssertEqual(decoded.value, object.value)
        XCTAssertEqual(Array(decoded.values), Self.scalars + [.double(1), .float(2)])
        XCTAssertEqual(decoded.byKey["n"], .int(4))
        XCTAssertEqual(decoded.byKey["cat"]?.object(MixedCat.self)?.name, "Tom")

        // A managed object encodes what its row holds.
        let realm = try Realm()
        try realm.write { realm.add(decoded) }
        let again = try JSONDecoder().decode(CodableMixed.self, from: try JSONEncoder().encode(decoded))
        XCTAssertEqual(Array(again.values), Array(decoded.values))
    }

    func testCodableFormatIsPlainJSONForJSONValues() throws {
        let values: [AnyRealmValue] = [.none, .int(3), .bool(true), .string("s"), .double(1), .fromArray([.int(1)]), .fromDictionary(["k": .string("v")])]
        let json = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        XCTAssertEqual(json, #"[null,3,true,"s",{"$double":1},[1],{"k":"v"}]"#)
        // Plain JSON decodes: integral numbers as int, others as double.
        let decoded = try JSONDecoder().decode([AnyRealmValue].self, from: Data(#"[1, 2.5, "x", false, null, {"a": [1]}]"#.utf8))
        XCTAssertEqual(decoded[0], .int(1))
        XCTAssertEqual(decoded[1], .double(2.5))
        XCTAssertEqual(decoded[2], .string("x"))
        XCTAssertEqual(decoded[3], .bool(false))
        XCTAssertEqual(decoded[4], AnyRealmValue.none)
        XCTAssertEqual(decoded[5].dictionaryValue?["a"]?.listValue.map(Array.init), [.int(1)])
        XCTAssertThrowsError(try JSONDecoder().decode(AnyRealmValue.self, from: Data(#"{"$unknown": 1}"#.utf8)))
        XCTAssertThrowsError(try JSONEncoder().encode([AnyRealmValue.object(MixedBird())]))
    }

    // MARK: The CRUD-Read guide

    func testGuideReadsCompanionsByType() throws {
        let realm = try Realm()
        try realm.write {
            let wolfie = MixedGuide.Dog()
            wolfie.name = "Wolfie"
            wolfie.companion = .string("Fluffy the Cat")
            let spot = MixedGuide.Dog()
            spot.name = "Spot"
            let fido = MixedGuide.Dog()
            fido.name = "Fido"
            fido.companion = .object(spot)
            realm.add([wolfie, fido])
        }
        var lines: [String] = []
        let dogs = realm.objects(MixedGuide.Dog.self)
        for dog in dogs {
            if case let .string(companion) = dog.companion {
                lines.append("\(dog.name)'s companion is: \(companion)")
            }
            switch dog.companion {
            case .string:
                lines.append("\(dog.name)'s companion is: \(dog.companion)")
            case .object:
                lines.append("\(dog.name)'s companion is: \(dog.companion.object(MixedGuide.Dog.self)?.name ?? "?")")
            case .none:
                lines.append("\(dog.name) has no companion")
            default:
                lines.append("\(dog.name)'s companion is another type.")
            }
        }
        XCTAssertEqual(lines.sorted(), [
            "Fido's companion is: Spot",
            "Spot has no companion",
            "Wolfie's companion is: Fluffy the Cat",
            "Wolfie's companion is: string(\"Fluffy the Cat\")",
        ])
    }

    // MARK: Queries

    func testManagedMixedListFiltersThroughTheEngine() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        try realm.write {
            realm.add(holder)
            holder.values.append(objectsIn: [.int(1), .double(2.5), .string("x"), .int(3), .none])
        }
        // Numbers compare across types; strings and nulls never match a number.
        let above = holder.values.filter("self > 1")
        XCTAssertEqual(above.count, 2)
        XCTAssertEqual(Array(above), [.double(2.5), .int(3)])
        XCTAssertEqual(holder.values.filter("self == nil").count, 1)
        XCTAssertEqual(holder.values.filter("self == 'x'").count, 1)
    }

    /// Mixed properties of objects filter by Realm's rules: numbers by
    /// value across types, strings apart from numbers and from binaries,
    /// links by identity, null by ==, the string operators on strings.
    func testMixedPropertiesFilter() throws {
        let realm = try Realm()
        let cat = MixedCat(name: "Tom")
        let values: [AnyRealmValue] = [.int(1), .double(1.0), .decimal128(Decimal128(1)), .string("1"), .bool(true), .none,
                                       .string("apple"), .data(Data("apple".utf8)), .object(cat), .double(2.5)]
        try realm.write {
            for (i, value) in values.enumerated() { realm.add(MixedHolder(id: i, value: value)) }
        }
        func ids(_ predicate: String, _ args: Any...) -> [Int] {
            realm.objects(MixedHolder.self).filter(predicate, args).map(\.id).sorted()
        }
        XCTAssertEqual(ids("value == 1"), [0, 1, 2])
        XCTAssertEqual(ids("value == %@", 1.0), [0, 1, 2])
        XCTAssertEqual(ids("value == '1'"), [3])
        XCTAssertEqual(ids("value == true"), [4])
        XCTAssertEqual(ids("value == nil"), [5])
        XCTAssertEqual(ids("value > 1"), [9])
        XCTAssertEqual(ids("value BEGINSWITH 'app'"), [6])
        XCTAssertEqual(ids("value BEGINSWITH[c] 'APP'"), [6])
        XCTAssertEqual(ids("value == %@", cat), [8])
        XCTAssertEqual(ids("value != nil AND value < 2"), [0, 1, 2])
        XCTAssertEqual(ids("value == id"), [1])
    }

    // MARK: Traps

    func testMisuseTraps() {
        assertTraps("mixedEmbeddedObject", message: "Invalid value")
        assertTraps("mixedUnconvertibleInCreate", message: "for 'mixed' property 'MixedHolder.value'")
        assertTraps("mixedNestedInSet", message: "cannot hold a nested collection")
        assertTraps("mixedOutsideWrite", message: "outside of a write transaction")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "mixedEmbeddedObject": { _ in
            let owner = MixedOwner()
            owner.setValue(MixedAddress(), forKey: "value")
        },
        "mixedUnconvertibleInCreate": { _ in
            let realm = try Realm()
            try realm.write { realm.create(MixedHolder.self, value: ["id": 1, "value": MixedAddress()]) }
        },
        "mixedNestedInSet": { _ in
            let holder = MixedHolder()
            holder.distinct.insert(.fromArray([.int(1)]))
        },
        "mixedOutsideWrite": { _ in
            let realm = try Realm()
            let holder = MixedHolder(id: 1)
            try realm.write { realm.add(holder) }
            holder.value = .int(1)
        },
    ]
}
