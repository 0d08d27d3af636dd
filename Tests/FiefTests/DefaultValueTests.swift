import Fief
import Foundation
import XCTest

// The defaults of properties declared without a value, as RealmSwift's.
// Citations are to realm-swift at c22f9303d (the v20 line), file:line:
//
// - `Persisted.init()` stores `.unmanagedNoDefault`
//   (RealmSwift/PersistedProperty.swift:111); the first read calls
//   `Value._rlmDefaultValue()` and keeps it (PersistedProperty.swift:161-164).
// - `_DefaultConstructible` types default to `.init()`
//   (RealmSwift/Impl/Persistable.swift:86-93): the integers (BasicTypes.swift:111),
//   Bool (:149), Float (:170), Double (:191), String (:212), Data (:231),
//   Decimal128 (:273), Date (:292, so `Date()`, the current date), UUID
//   (:311, so `UUID()`, a new random one), AnyRealmValue (:330;
//   AnyRealmValue.swift:178-180: `.none`), List, MutableSet, Map
//   (Impl/ComplexTypes.swift:97, :128, :160: empty).
// - ObjectId: `Self.generate()` (Impl/BasicTypes.swift:268-269).
// - Optionals: `.none` (Impl/ComplexTypes.swift:240-241), links and embedded
//   objects included (they must be optional: ComplexTypes.swift:26-27).
// - PersistableEnum: `allCases.first!` (PersistedProperty.swift:312-313).
// - CustomPersistable: `Self(persistedValue: PersistedType._rlmDefaultValue())`
//   (CustomPersistable.swift:179-180); FailableCustomPersistable the same, or
//   an exception if it fails (CustomPersistable.swift:217-222).
// - LinkingObjects: no default, it must name its origin property
//   (Impl/ComplexTypes.swift:209-210); unmanaged it is empty.
// - `create(_:value:)`: a property not given takes the value read from a
//   fresh instance of the class (Realm/RLMUtil.mm:306-324,
//   RLMDefaultValuesForObjectSchema, called once per create by
//   RLMAccessor.mm:867-871), so a new ObjectId per created object.

enum DefaultsSize: Int, PersistableEnum {
    case medium = 3, small = 1, large = 2
}

struct DefaultsTag: CustomPersistable, Hashable {
    typealias PersistedType = UUID
    var uuid: UUID
    init(persistedValue: UUID) { uuid = persistedValue }
    var persistableValue: UUID { uuid }
}

struct DefaultsCelsius: CustomPersistable, Hashable {
    typealias PersistedType = Double
    var degrees: Double
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

struct DefaultsCount: FailableCustomPersistable, Hashable {
    typealias PersistedType = Int
    var count: Int
    init?(persistedValue: Int) {
        guard persistedValue >= 0 else { return nil }
        count = persistedValue
    }
    var persistableValue: Int { count }
}

/// The primary-key pattern of RealmSwift's CRUD pages.
class DefaultsItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted(originProperty: "link") var holders: LinkingObjects<DefaultsAllTypes>
}

class DefaultsUUIDItem: Object {
    @Persisted(primaryKey: true) var id: UUID
    @Persisted var name: String
}

class DefaultsEmbedded: EmbeddedObject {
    @Persisted var id: ObjectId
    @Persisted var uuid: UUID
    @Persisted var stamp: Date
    @Persisted var count: Int
    @Persisted var note = "none"
    @Persisted var optionalId: ObjectId?
}

class DefaultsAllTypes: Object {
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var bool: Bool
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var any: AnyRealmValue

    @Persisted var optInt: Int?
    @Persisted var optBool: Bool?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?

    @Persisted var size: DefaultsSize
    @Persisted var optSize: DefaultsSize?
    @Persisted var tag: DefaultsTag
    @Persisted var optTag: DefaultsTag?
    @Persisted var celsius: DefaultsCelsius
    @Persisted var count: DefaultsCount

    @Persisted var link: DefaultsItem?
    @Persisted var embedded: DefaultsEmbedded?
    @Persisted var ints: List<Int>
    @Persisted var items: List<DefaultsItem>
    @Persisted var strings: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

private let zeroObjectId = ObjectId("000000000000000000000000")
private let zeroUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

final class DefaultValueTests: FiefTestCase {
    private func fileRealm() throws -> Realm {
        try Realm(configuration: fileConfiguration("defaults.realm"))
    }

    /// The fixed defaults (those that are the same for every object).
    private func assertFixedDefaults(_ object: DefaultsAllTypes, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object.int, 0, file: file, line: line)
        XCTAssertEqual(object.int8, 0, file: file, line: line)
        XCTAssertEqual(object.int16, 0, file: file, line: line)
        XCTAssertEqual(object.int32, 0, file: file, line: line)
        XCTAssertEqual(object.int64, 0, file: file, line: line)
        XCTAssertEqual(object.bool, false, file: file, line: line)
        XCTAssertEqual(object.float, 0, file: file, line: line)
        XCTAssertEqual(object.double, 0, file: file, line: line)
        XCTAssertEqual(object.string, "", file: file, line: line)
        XCTAssertEqual(object.data, Data(), file: file, line: line)
        XCTAssertEqual(object.decimal, 0 as Decimal128, file: file, line: line)
        XCTAssertEqual(object.any, .none, file: file, line: line)

        XCTAssertNil(object.optInt, file: file, line: line)
        XCTAssertNil(object.optBool, file: file, line: line)
        XCTAssertNil(object.optString, file: file, line: line)
        XCTAssertNil(object.optData, file: file, line: line)
        XCTAssertNil(object.optDate, file: file, line: line)
        XCTAssertNil(object.optDecimal, file: file, line: line)
        XCTAssertNil(object.optObjectId, file: file, line: line)
        XCTAssertNil(object.optUUID, file: file, line: line)

        XCTAssertEqual(object.size, .medium, "the first case, not the lowest raw value", file: file, line: line)
        XCTAssertNil(object.optSize, file: file, line: line)
        XCTAssertNil(object.optTag, file: file, line: line)
        XCTAssertEqual(object.celsius, DefaultsCelsius(persistedValue: 0), file: file, line: line)
        XCTAssertEqual(object.count.count, 0, file: file, line: line)

        XCTAssertNil(object.link, file: file, line: line)
        XCTAssertNil(object.embedded, file: file, line: line)
        XCTAssertEqual(object.ints.count, 0, file: file, line: line)
        XCTAssertEqual(object.items.count, 0, file: file, line: line)
        XCTAssertEqual(object.strings.count, 0, file: file, line: line)
        XCTAssertEqual(object.scores.count, 0, file: file, line: line)
    }

    /// The generated defaults: a new ObjectId, UUID and the current date.
    private func assertGeneratedDefaults(_ object: DefaultsAllTypes, madeWithin window: ClosedRange<Date>,
                                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(object.objectId, zeroObjectId, file: file, line: line)
        XCTAssertNotEqual(object.uuid, zeroUUID, file: file, line: line)
        XCTAssertNotEqual(object.tag.uuid, zeroUUID, "a UUID-backed custom type: Self(persistedValue: UUID())", file: file, line: line)
        // The ObjectId's timestamp has second precision.
        XCTAssertGreaterThanOrEqual(object.objectId.timestamp, window.lowerBound.addingTimeInterval(-1), file: file, line: line)
        XCTAssertLessThanOrEqual(object.objectId.timestamp, window.upperBound, file: file, line: line)
        XCTAssertGreaterThanOrEqual(object.date.timeIntervalSince1970, window.lowerBound.timeIntervalSince1970 - 1e-6, file: file, line: line)
        XCTAssertLessThanOrEqual(object.date.timeIntervalSince1970, window.upperBound.timeIntervalSince1970 + 1e-6, file: file, line: line)
    }

    // MARK: Unmanaged objects

    func testUnmanagedDefaultsMatchRealmSwift() {
        let before = Date()
        let object = DefaultsAllTypes()
        assertFixedDefaults(object)
        // Made on first read: read them before taking the window's end.
        _ = (object.objectId, object.uuid, object.date, object.tag)
        assertGeneratedDefaults(object, madeWithin: before...Date())

        let item = DefaultsItem()
        XCTAssertNotEqual(item._id, zeroObjectId)
        XCTAssertEqual(item.name, "")
        XCTAssertEqual(item.holders.count, 0, "unmanaged linking objects are empty")
        XCTAssertNotEqual(DefaultsUUIDItem().id, zeroUUID)
    }

    func testGeneratedDefaultIsKeptAcrossReads() {
        let object = DefaultsAllTypes()
        let id = object.objectId, uuid = object.uuid, date = object.date, tag = object.tag
        for _ in 0..<3 {
            XCTAssertEqual(object.objectId, id)
            XCTAssertEqual(object.uuid, uuid)
            XCTAssertEqual(object.date, date)
            XCTAssertEqual(object.tag, tag)
        }
        // Read by name and described: the same values.
        let item = DefaultsItem()
        let byName = item.value(forKey: "_id") as? ObjectId
        XCTAssertNotNil(byName)
        XCTAssertEqual(item["_id"] as? ObjectId, byName)
        XCTAssertEqual(item._id, byName)
        XCTAssertTrue(item.description.contains(item._id.stringValue), item.description)
    }

    func testEachObjectGetsItsOwnId() {
        let items = (0..<100).map { _ in DefaultsItem() }
        XCTAssertEqual(Set(items.map(\._id)).count, 100)
        let uuidItems = (0..<100).map { _ in DefaultsUUIDItem() }
        XCTAssertEqual(Set(uuidItems.map(\.id)).count, 100)
        let all = (0..<20).map { _ in DefaultsAllTypes() }
        XCTAssertEqual(Set(all.map(\.objectId)).count, 20)
        XCTAssertEqual(Set(all.map(\.uuid)).count, 20)
        XCTAssertEqual(Set(all.map(\.tag)).count, 20)
    }

    /// As in RealmSwift, the default is made on first read, not when the
    /// object is initialized.
    func testGeneratedDefaultIsMadeOnFirstRead() {
        let first = DefaultsItem()
        let second = DefaultsItem()
        let secondId = second._id
        let firstId = first._id
        XCTAssertLessThan(secondId, firstId, "the id read first was generated first")

        let object = DefaultsAllTypes()
        Thread.sleep(forTimeInterval: 0.05)
        let afterSleep = Date()
        XCTAssertGreaterThanOrEqual(object.date, afterSleep)
    }

    func testAssignedValueReplacesTheDefault() throws {
        let item = DefaultsItem()
        _ = item._id
        let chosen = ObjectId.generate()
        item._id = chosen
        XCTAssertEqual(item._id, chosen)
        let realm = try fileRealm()
        try realm.write { realm.add(item) }
        XCTAssertEqual(item._id, chosen)
        XCTAssertEqual(realm.object(ofType: DefaultsItem.self, forPrimaryKey: chosen)?.name, "")
    }

    // MARK: Added objects

    func testAddStoresTheDefaultsReadBefore() throws {
        let realm = try fileRealm()
        let before = Date()
        let object = DefaultsAllTypes()
        let id = object.objectId, uuid = object.uuid, date = object.date, tag = object.tag
        let after = Date()
        try realm.write { realm.add(object) }
        XCTAssertEqual(object.objectId, id)
        XCTAssertEqual(object.uuid, uuid)
        XCTAssertEqual(object.tag, tag)
        XCTAssertEqual(object.date.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        assertFixedDefaults(object)

        // Read back from the file by a new realm.
        let reopened = try fileRealm()
        let stored = try XCTUnwrap(reopened.objects(DefaultsAllTypes.self).first)
        XCTAssertEqual(stored.objectId, id)
        XCTAssertEqual(stored.uuid, uuid)
        XCTAssertEqual(stored.tag, tag)
        XCTAssertEqual(stored.date.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        assertFixedDefaults(stored)
        assertGeneratedDefaults(stored, madeWithin: before...after)
    }

    func testAddWithoutReadingFirstStoresFreshDefaults() throws {
        let realm = try fileRealm()
        let before = Date()
        let objects = [DefaultsAllTypes(), DefaultsAllTypes()]
        try realm.write { realm.add(objects) }
        let after = Date()
        for object in objects {
            assertFixedDefaults(object)
            assertGeneratedDefaults(object, madeWithin: before...after)
        }
        XCTAssertNotEqual(objects[0].objectId, objects[1].objectId)
        XCTAssertNotEqual(objects[0].uuid, objects[1].uuid)
        let stored = realm.objects(DefaultsAllTypes.self)
        XCTAssertEqual(Set(stored.map(\.objectId)), Set(objects.map(\.objectId)))
    }

    /// The CRUD pages' pattern: `@Persisted(primaryKey: true) var _id:
    /// ObjectId` never set, objects added one after another (issue 18 item 10).
    func testObjectIdPrimaryKeysOfAddedObjectsAreDistinct() throws {
        let realm = try fileRealm()
        try realm.write {
            realm.add(DefaultsItem())
            realm.add(DefaultsItem())
        }
        var items: [DefaultsItem] = []
        for index in 0..<50 {
            let item = DefaultsItem()
            item.name = "item \(index)"
            try realm.write { realm.add(item) }
            items.append(item)
        }
        try realm.write {
            realm.add((0..<200).map { index -> DefaultsItem in
                let item = DefaultsItem()
                item.name = "batch \(index)"
                return item
            })
        }
        let all = realm.objects(DefaultsItem.self)
        XCTAssertEqual(all.count, 252)
        XCTAssertEqual(Set(all.map(\._id)).count, 252)
        XCTAssertFalse(all.contains { $0._id == zeroObjectId })
        for item in items {
            XCTAssertEqual(realm.object(ofType: DefaultsItem.self, forPrimaryKey: item._id)?.name, item.name)
        }
    }

    func testUUIDPrimaryKeysOfAddedObjectsAreDistinct() throws {
        let realm = try fileRealm()
        var items: [DefaultsUUIDItem] = []
        try realm.write {
            for index in 0..<200 {
                let item = DefaultsUUIDItem()
                item.name = "\(index)"
                realm.add(item)
                items.append(item)
            }
        }
        let all = realm.objects(DefaultsUUIDItem.self)
        XCTAssertEqual(all.count, 200)
        XCTAssertEqual(Set(all.map(\.id)).count, 200)
        XCTAssertFalse(all.contains { $0.id == zeroUUID })
        for item in items {
            XCTAssertEqual(realm.object(ofType: DefaultsUUIDItem.self, forPrimaryKey: item.id)?.name, item.name)
        }
    }

    // MARK: create(_:value:)

    func testCreateWithoutPrimaryKeyGeneratesOne() throws {
        let realm = try fileRealm()
        var created: [DefaultsItem] = []
        try realm.write {
            created.append(realm.create(DefaultsItem.self, value: ["name": "Rex"]))
            created.append(realm.create(DefaultsItem.self, value: ["name": "Spot"]))
            created.append(realm.create(DefaultsItem.self))
            created.append(realm.create(DefaultsItem.self, value: [String: Any]()))
        }
        XCTAssertEqual(Set(created.map(\._id)).count, 4)
        XCTAssertFalse(created.contains { $0._id == zeroObjectId })
        XCTAssertEqual(created[0].name, "Rex")
        XCTAssertEqual(realm.object(ofType: DefaultsItem.self, forPrimaryKey: created[1]._id)?.name, "Spot")

        var uuidItems: [DefaultsUUIDItem] = []
        try realm.write {
            for index in 0..<20 {
                uuidItems.append(realm.create(DefaultsUUIDItem.self, value: ["name": "\(index)"]))
            }
        }
        XCTAssertEqual(Set(uuidItems.map(\.id)).count, 20)
        XCTAssertFalse(uuidItems.contains { $0.id == zeroUUID })
    }

    func testCreateFillsEveryDefault() throws {
        let realm = try fileRealm()
        let before = Date()
        var objects: [DefaultsAllTypes] = []
        try realm.write {
            objects.append(realm.create(DefaultsAllTypes.self, value: ["int": 5]))
            objects.append(realm.create(DefaultsAllTypes.self))
        }
        let after = Date()
        XCTAssertEqual(objects[0].int, 5)
        try realm.write { objects[0].int = 0 }
        for object in objects {
            assertFixedDefaults(object)
            assertGeneratedDefaults(object, madeWithin: before...after)
        }
        XCTAssertNotEqual(objects[0].objectId, objects[1].objectId)
        XCTAssertNotEqual(objects[0].uuid, objects[1].uuid)
        XCTAssertNotEqual(objects[0].tag, objects[1].tag)
    }

    /// With an update policy but no primary key given, the default key is
    /// a new one, so a new object is created each time.
    func testCreateWithUpdatePolicyWithoutPrimaryKeyCreates() throws {
        let realm = try fileRealm()
        try realm.write {
            realm.create(DefaultsItem.self, value: ["name": "a"], update: .modified)
            realm.create(DefaultsItem.self, value: ["name": "b"], update: .all)
        }
        let all = realm.objects(DefaultsItem.self)
        XCTAssertEqual(all.count, 2)
        XCTAssertEqual(Set(all.map(\._id)).count, 2)
    }

    /// `Object(value:)` without the key: the default, as for `Object()`.
    func testUnmanagedInitWithValueWithoutPrimaryKey() throws {
        let first = DefaultsItem(value: ["name": "a"])
        let second = DefaultsItem(value: ["name": "b"])
        XCTAssertNotEqual(first._id, zeroObjectId)
        XCTAssertNotEqual(first._id, second._id)
        let realm = try fileRealm()
        try realm.write { realm.add([first, second]) }
        XCTAssertEqual(realm.object(ofType: DefaultsItem.self, forPrimaryKey: second._id)?.name, "b")
    }

    func testDynamicCreateOfADeclaredClassGeneratesIds() throws {
        let realm = try fileRealm()
        var ids: [ObjectId] = []
        try realm.write {
            for name in ["a", "b", "c"] {
                let object = realm.dynamicCreate("DefaultsItem", value: ["name": name])
                ids.append(try XCTUnwrap(object["_id"] as? ObjectId))
            }
        }
        XCTAssertEqual(Set(ids).count, 3)
        XCTAssertFalse(ids.contains(zeroObjectId))
        XCTAssertEqual(realm.object(ofType: DefaultsItem.self, forPrimaryKey: ids[2])?.name, "c")
    }

    // MARK: ObjectId.generate()

    /// Within a process, as realm-core's: the seconds, then a per-process
    /// random part, then a counter, so ids increase and never repeat.
    func testGeneratedObjectIdsIncreaseAndAreUnique() {
        let before = Date()
        let ids = (0..<10_000).map { _ in ObjectId.generate() }
        let after = Date()
        XCTAssertEqual(Set(ids).count, ids.count)
        for (earlier, later) in zip(ids, ids.dropFirst()) where !(earlier < later) {
            XCTFail("\(earlier) is not before \(later)")
            break
        }
        XCTAssertGreaterThanOrEqual(ids[0].timestamp, before.addingTimeInterval(-1))
        XCTAssertLessThanOrEqual(ids.last!.timestamp, after)
        // The five bytes after the seconds are the same for the whole process.
        XCTAssertEqual(Set(ids.map { $0.stringValue.dropFirst(8).prefix(10) }).count, 1)
        // The default of a property comes from the same sequence.
        let item = DefaultsItem()
        XCTAssertGreaterThan(item._id, ids.last!)
    }

    // MARK: Embedded objects

    func testEmbeddedObjectDefaults() throws {
        let realm = try fileRealm()
        let before = Date()
        let embedded = DefaultsEmbedded()
        XCTAssertNotEqual(embedded.id, zeroObjectId)
        XCTAssertNotEqual(embedded.uuid, zeroUUID)
        XCTAssertEqual(embedded.count, 0)
        XCTAssertEqual(embedded.note, "none")
        XCTAssertNil(embedded.optionalId)
        XCTAssertEqual(embedded.id, embedded.id)
        let id = embedded.id, uuid = embedded.uuid, stamp = embedded.stamp
        XCTAssertNotEqual(DefaultsEmbedded().id, id)

        let parent = DefaultsAllTypes()
        parent.embedded = embedded
        try realm.write { realm.add(parent) }
        let stored = try XCTUnwrap(parent.embedded)
        XCTAssertEqual(stored.id, id)
        XCTAssertEqual(stored.uuid, uuid)
        XCTAssertEqual(stored.stamp.timeIntervalSince1970, stamp.timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertNil(stored.optionalId)

        // An embedded object never read before it is added gets its own.
        let other = DefaultsAllTypes()
        other.embedded = DefaultsEmbedded()
        try realm.write { realm.add(other) }
        XCTAssertNotEqual(other.embedded?.id, id)
        XCTAssertNotEqual(other.embedded?.id, zeroObjectId)
        XCTAssertNotEqual(other.embedded?.uuid, zeroUUID)

        // Created from values: the properties not given take the class's defaults.
        var created: [DefaultsAllTypes] = []
        try realm.write {
            created.append(realm.create(DefaultsAllTypes.self, value: ["embedded": ["count": 2]]))
            created.append(realm.create(DefaultsAllTypes.self, value: ["embedded": [String: Any]()]))
        }
        let after = Date()
        let first = try XCTUnwrap(created[0].embedded)
        let second = try XCTUnwrap(created[1].embedded)
        XCTAssertEqual(first.count, 2)
        XCTAssertEqual(second.count, 0)
        for object in [first, second] {
            XCTAssertEqual(object.note, "none")
            XCTAssertNotEqual(object.id, zeroObjectId)
            XCTAssertNotEqual(object.uuid, zeroUUID)
            XCTAssertNil(object.optionalId)
            XCTAssertGreaterThanOrEqual(object.stamp.timeIntervalSince1970, before.timeIntervalSince1970 - 1e-6)
            XCTAssertLessThanOrEqual(object.stamp.timeIntervalSince1970, after.timeIntervalSince1970 + 1e-6)
        }
        XCTAssertNotEqual(first.id, second.id)
        XCTAssertNotEqual(first.uuid, second.uuid)
    }

    // MARK: Optionals

    func testOptionalObjectIdStaysNil() throws {
        let realm = try fileRealm()
        let object = DefaultsAllTypes()
        XCTAssertNil(object.optObjectId)
        XCTAssertNil(object.optUUID)
        XCTAssertNil(object.optDate)
        try realm.write { realm.add(object) }
        XCTAssertNil(object.optObjectId)
        XCTAssertNil(object.optUUID)
        XCTAssertNil(object.optDate)
        try realm.write {
            let created = realm.create(DefaultsAllTypes.self, value: ["int": 1])
            XCTAssertNil(created.optObjectId)
            XCTAssertNil(created.optUUID)
        }
        let reopened = try fileRealm()
        XCTAssertEqual(reopened.objects(DefaultsAllTypes.self).filter("optObjectId == nil").count, 2)
        XCTAssertEqual(reopened.objects(DefaultsAllTypes.self).filter("optUUID == nil AND optDate == nil").count, 2)
    }

    // MARK: Links and linking objects

    func testLinkDefaultsAndLinkingObjects() throws {
        let realm = try fileRealm()
        let holder = DefaultsAllTypes()
        XCTAssertNil(holder.link)
        let item = DefaultsItem()
        XCTAssertEqual(item.holders.count, 0)
        holder.link = item
        try realm.write { realm.add(holder) }
        XCTAssertNotEqual(item._id, zeroObjectId)
        XCTAssertEqual(item.holders.count, 1)
        XCTAssertEqual(realm.object(ofType: DefaultsItem.self, forPrimaryKey: item._id)?.holders.first?.objectId, holder.objectId)
    }
}
