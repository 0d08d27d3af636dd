import Fief
import Foundation
import XCTest

final class CRUDTests: FiefTestCase {
    func testAddReadUpdateDelete() throws {
        let realm = try Realm()
        let dog = Dog(name: "Rex", age: 10, color: "tan")
        XCTAssertNil(dog.realm)
        XCTAssertFalse(dog.isInvalidated)
        try realm.write {
            realm.add(dog)
        }
        XCTAssertNotNil(dog.realm)
        XCTAssertEqual(dog.realm, realm)
        XCTAssertEqual(dog.name, "Rex")

        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.count, 1)
        XCTAssertEqual(dogs[0].name, "Rex")
        XCTAssertEqual(dogs.first?.age, 10)

        try realm.write {
            dog.age = 11
            dogs[0].color = "brown"
        }
        XCTAssertEqual(dogs[0].age, 11)
        XCTAssertEqual(dog.color, "brown")

        try realm.write {
            realm.delete(dog)
        }
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertEqual(dogs.count, 0)
    }

    func testUnmanagedObjectsAreplainObjects() {
        let dog = Dog()
        XCTAssertEqual(dog.name, "")
        dog.name = "Fido"
        dog.age = 3
        XCTAssertEqual(dog.name, "Fido")
        XCTAssertEqual(dog.age, 3)
        XCTAssertEqual(dog.firstLetter, "F")
        XCTAssertFalse(dog.isFrozen)
        let before = Date()
        let noDefaults = NoDefaults()
        XCTAssertEqual(noDefaults.int, 0)
        XCTAssertEqual(noDefaults.string, "")
        // RealmSwift's Date default is `Date()`, the time of the first read
        // (see DefaultValueTests).
        XCTAssertGreaterThanOrEqual(noDefaults.date, before)
        XCTAssertLessThanOrEqual(noDefaults.date, Date())
        XCTAssertNil(noDefaults.optional)
    }

    func testPropertiesWithoutDefaultsAreStoredAsDefaults() throws {
        let realm = try Realm()
        let before = Date()
        let added = NoDefaults()
        try realm.write {
            realm.add(added)
        }
        let stored = try XCTUnwrap(realm.objects(NoDefaults.self).first)
        XCTAssertEqual(stored.int, 0)
        XCTAssertEqual(stored.string, "")
        // RealmSwift's defaults: `Date()` and a new `UUID()` (see DefaultValueTests).
        XCTAssertGreaterThanOrEqual(stored.date.timeIntervalSince1970, before.timeIntervalSince1970 - 1e-6)
        XCTAssertLessThanOrEqual(stored.date, Date())
        XCTAssertNotEqual(stored.uuid, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        XCTAssertEqual(stored.uuid, added.uuid)
        XCTAssertNil(stored.optional)
    }

    func testCreateFromDictionaryArrayAndObject() throws {
        let realm = try Realm()
        try realm.write {
            let fromDictionary = realm.create(Dog.self, value: ["name": "Rex", "age": 4])
            XCTAssertEqual(fromDictionary.name, "Rex")
            XCTAssertEqual(fromDictionary.age, 4)
            XCTAssertEqual(fromDictionary.color, "", "missing keys take the class default")
            let fromArray = realm.create(Dog.self, value: ["Spot", 2, "tan", "Paris"])
            XCTAssertEqual(fromArray.currentCity, "Paris")
            let fromObject = realm.create(Dog.self, value: fromArray)
            XCTAssertEqual(fromObject.name, "Spot")
            XCTAssertFalse(fromObject.isSameObject(as: fromArray))
            let unmanaged = Dog(name: "Bella", age: 1)
            let copy = realm.create(Dog.self, value: unmanaged)
            XCTAssertEqual(copy.name, "Bella")
            XCTAssertNil(unmanaged.realm)
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 4)
    }

    func testCreateAcceptsFoundationObjects() throws {
        let realm = try Realm()
        let date = Date(timeIntervalSince1970: 1_000_000)
        let object = try realm.write {
            realm.create(AllTypes.self, value: [
                "int": NSNumber(value: 42), "int64": NSNumber(value: Int64(1) << 40), "bool": NSNumber(value: true),
                "double": NSNumber(value: 2.5), "float": NSNumber(value: 1.5), "string": NSString(string: "ns"),
                "date": NSDate(timeIntervalSince1970: 1_000_000), "data": NSData(data: Data([1, 2, 3])),
                "optInt": NSNumber(value: 7),
            ])
        }
        XCTAssertEqual(object.int, 42)
        XCTAssertEqual(object.int64, 1 << 40)
        XCTAssertEqual(object.bool, true)
        XCTAssertEqual(object.double, 2.5)
        XCTAssertEqual(object.float, 1.5)
        XCTAssertEqual(object.string, "ns")
        XCTAssertEqual(object.date, date)
        XCTAssertEqual(object.data, Data([1, 2, 3]))
        XCTAssertEqual(object.optInt, 7)
    }

    func testCreateUsesFreshDefaults() throws {
        let realm = try Realm()
        try realm.write {
            realm.create(AllTypes.self, value: ["int": 1])
            realm.create(AllTypes.self, value: ["int": 2])
        }
        let all = realm.objects(AllTypes.self)
        XCTAssertEqual(all.count, 2)
        XCTAssertNotEqual(all[0].pk, all[1].pk)
    }

    func testDeleteSequenceResultsAndAll() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        try realm.write {
            realm.delete(dogs.prefix(2))
        }
        XCTAssertTrue(dogs[0].isInvalidated)
        XCTAssertTrue(dogs[1].isInvalidated)
        XCTAssertEqual(realm.objects(Dog.self).count, 3)
        try realm.write {
            realm.delete(realm.objects(Dog.self).filter("color == 'tan'"))
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        try realm.write {
            realm.add(Person(id: 1, name: "Ann"))
        }
        XCTAssertFalse(realm.isEmpty)
        try realm.write {
            realm.deleteAll()
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertEqual(realm.objects(Person.self).count, 0)
        XCTAssertTrue(realm.isEmpty)
        XCTAssertTrue(dogs[4].isInvalidated)
    }

    func testAddingManagedObjectAgainIsANoOp() throws {
        let realm = try Realm()
        let dog = Dog(name: "Rex", age: 1)
        try realm.write {
            realm.add(dog)
            realm.add(dog)
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 1)
    }

    func testDescription() throws {
        let dog = Dog(name: "Rex", age: 10)
        XCTAssertTrue(dog.description.hasPrefix("Dog {"), dog.description)
        XCTAssertTrue(dog.description.contains("name = Rex;"), dog.description)
        let realm = try Realm()
        try realm.write { realm.add(dog) }
        XCTAssertTrue(dog.description.contains("age = 10;"), dog.description)
        let results = realm.objects(Dog.self)
        XCTAssertTrue(results.description.hasPrefix("Results<Dog> <"), results.description)
        XCTAssertTrue(results.description.contains("[0] Dog {"), results.description)
        try realm.write { realm.delete(dog) }
        XCTAssertEqual(dog.description, "[invalid object]")
    }
}

final class ValueRoundTripTests: FiefTestCase {
    func testEveryScalarType() throws {
        let realm = try Realm()
        let object = AllTypes()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let uuid = UUID()
        let objectId = ObjectId.generate()
        let decimal = Decimal128(string: "-123.4567")
        object.int = Int.max
        object.int8 = Int8.min
        object.int16 = Int16.max
        object.int32 = Int32.min
        object.int64 = Int64.min
        object.bool = true
        object.float = 3.5
        object.double = -2.25e100
        object.string = "héllo wörld 🐶"
        object.data = Data([0, 1, 2, 255])
        object.date = date
        object.decimal = decimal
        object.objectId = objectId
        object.uuid = uuid
        try realm.write { realm.add(object) }

        let stored = try XCTUnwrap(realm.objects(AllTypes.self).first)
        XCTAssertEqual(stored.pk, object.pk)
        XCTAssertEqual(stored.int, Int.max)
        XCTAssertEqual(stored.int8, Int8.min)
        XCTAssertEqual(stored.int16, Int16.max)
        XCTAssertEqual(stored.int32, Int32.min)
        XCTAssertEqual(stored.int64, Int64.min)
        XCTAssertEqual(stored.bool, true)
        XCTAssertEqual(stored.float, 3.5)
        XCTAssertEqual(stored.double, -2.25e100)
        XCTAssertEqual(stored.string, "héllo wörld 🐶")
        XCTAssertEqual(stored.data, Data([0, 1, 2, 255]))
        XCTAssertEqual(stored.date.timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertEqual(stored.decimal, decimal)
        XCTAssertEqual(stored.decimal.stringValue, "-123.4567")
        XCTAssertEqual(stored.objectId, objectId)
        XCTAssertEqual(stored.uuid, uuid)
        // Optionals start nil.
        XCTAssertNil(stored.optInt)
        XCTAssertNil(stored.optInt8)
        XCTAssertNil(stored.optInt16)
        XCTAssertNil(stored.optInt32)
        XCTAssertNil(stored.optInt64)
        XCTAssertNil(stored.optBool)
        XCTAssertNil(stored.optFloat)
        XCTAssertNil(stored.optDouble)
        XCTAssertNil(stored.optString)
        XCTAssertNil(stored.optData)
        XCTAssertNil(stored.optDate)
        XCTAssertNil(stored.optDecimal)
        XCTAssertNil(stored.optObjectId)
        XCTAssertNil(stored.optUUID)
    }

    func testOptionalsSetAndCleared() throws {
        let realm = try Realm()
        let object = AllTypes()
        try realm.write { realm.add(object) }
        let uuid = UUID()
        let objectId = ObjectId.generate()
        try realm.write {
            object.optInt = -1
            object.optInt8 = 8
            object.optInt16 = 16
            object.optInt32 = 32
            object.optInt64 = 64
            object.optBool = false
            object.optFloat = 1.5
            object.optDouble = 2.5
            object.optString = ""
            object.optData = Data()
            object.optDate = Date(timeIntervalSince1970: -1.5)
            object.optDecimal = 7
            object.optObjectId = objectId
            object.optUUID = uuid
        }
        XCTAssertEqual(object.optInt, -1)
        XCTAssertEqual(object.optInt8, 8)
        XCTAssertEqual(object.optInt16, 16)
        XCTAssertEqual(object.optInt32, 32)
        XCTAssertEqual(object.optInt64, 64)
        XCTAssertEqual(object.optBool, false)
        XCTAssertEqual(object.optFloat, 1.5)
        XCTAssertEqual(object.optDouble, 2.5)
        XCTAssertEqual(object.optString, "")
        XCTAssertEqual(object.optData, Data())
        XCTAssertEqual(object.optDate, Date(timeIntervalSince1970: -1.5))
        XCTAssertEqual(object.optDecimal, 7)
        XCTAssertEqual(object.optObjectId, objectId)
        XCTAssertEqual(object.optUUID, uuid)
        try realm.write {
            object.optInt = nil
            object.optBool = nil
            object.optString = nil
            object.optData = nil
            object.optDate = nil
            object.optDecimal = nil
            object.optObjectId = nil
            object.optUUID = nil
            object.optDouble = nil
            object.optFloat = nil
        }
        XCTAssertNil(object.optInt)
        XCTAssertNil(object.optBool)
        XCTAssertNil(object.optString)
        XCTAssertNil(object.optData)
        XCTAssertNil(object.optDate)
        XCTAssertNil(object.optDecimal)
        XCTAssertNil(object.optObjectId)
        XCTAssertNil(object.optUUID)
        XCTAssertNil(object.optDouble)
        XCTAssertNil(object.optFloat)
        XCTAssertEqual(object.optInt8, 8)
    }

    func testKeyValueAccess() throws {
        let realm = try Realm()
        let dog = Dog(name: "Rex", age: 3)
        XCTAssertEqual(dog["name"] as? String, "Rex")
        try realm.write { realm.add(dog) }
        XCTAssertEqual(dog["age"] as? Int, 3)
        XCTAssertEqual(dog.value(forKey: "name") as? String, "Rex")
        // An unknown key traps, as in RealmSwift: see KeyValueCodingTests.
    }
}

final class PrimaryKeyTests: FiefTestCase {
    func testLookupByPrimaryKey() throws {
        let realm = try Realm()
        try realm.write {
            realm.add(Person(id: 12345, name: "Ann"))
            realm.add(Person(id: 2, name: "Bob"))
        }
        let specificPerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
        XCTAssertEqual(specificPerson?.name, "Ann")
        XCTAssertNil(realm.object(ofType: Person.self, forPrimaryKey: 99))
        let toy = DogToy()
        try realm.write { realm.add(toy) }
        XCTAssertEqual(realm.objects(DogToy.self).count, 1)
    }

    func testObjectIdPrimaryKeyLookup() throws {
        let realm = try Realm()
        let object = AllTypes()
        object.int = 5
        try realm.write { realm.add(object) }
        XCTAssertEqual(realm.object(ofType: AllTypes.self, forPrimaryKey: object.pk)?.int, 5)
        XCTAssertNil(realm.object(ofType: AllTypes.self, forPrimaryKey: ObjectId.generate()))
    }

    func testUpsertModifiedAndAll() throws {
        let realm = try Realm()
        try realm.write {
            realm.add(Person(id: 1, name: "Ann"))
        }
        let replacement = Person(id: 1, name: "Annie")
        try realm.write {
            realm.add(replacement, update: .modified)
        }
        XCTAssertEqual(realm.objects(Person.self).count, 1)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "Annie")
        XCTAssertNotNil(replacement.realm)
        XCTAssertEqual(replacement.name, "Annie")

        try realm.write {
            realm.add([Person(id: 1, name: "A"), Person(id: 2, name: "B")], update: .all)
        }
        XCTAssertEqual(realm.objects(Person.self).count, 2)
        XCTAssertEqual(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name, "A")
    }

    func testCreateWithUpdateChangesOnlyGivenProperties() throws {
        let realm = try Realm()
        try realm.write {
            realm.create(Person.self, value: ["id": 7, "name": "Ann", "city": "Oslo"])
        }
        try realm.write {
            realm.create(Person.self, value: ["id": 7, "city": "Rome"], update: .modified)
        }
        let person = try XCTUnwrap(realm.object(ofType: Person.self, forPrimaryKey: 7))
        XCTAssertEqual(person.name, "Ann")
        XCTAssertEqual(person.city, "Rome")
        try realm.write {
            realm.create(Person.self, value: ["id": 8, "name": "New"], update: .all)
            realm.create(Person.self, value: ["id": 7, "city": nil] as [String: Any?], update: .all)
        }
        XCTAssertEqual(realm.objects(Person.self).count, 2)
        XCTAssertNil(person.city)
    }

    func testObjectEqualityFollowsPrimaryKeys() throws {
        let realm = try Realm()
        try realm.write { realm.add(Person(id: 1, name: "Ann")) }
        try realm.write { realm.add(Dog(name: "Rex", age: 1)) }
        let a = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        let b = realm.objects(Person.self).first!
        XCTAssertFalse(a === b)
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set([a, b]).count, 1)
        let d1 = realm.objects(Dog.self)[0]
        let d2 = realm.objects(Dog.self)[0]
        XCTAssertNotEqual(d1, d2, "without a primary key, live objects compare by identity")
        XCTAssertTrue(d1.isSameObject(as: d2))
        XCTAssertEqual(d1.freeze(), d2.freeze(), "frozen objects compare by row")
    }
}

final class QueryTests: FiefTestCase {
    func testFilterWithLiteralsAndArguments() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.filter("age < 2").count, 2)
        XCTAssertEqual(dogs.filter("age < %@", 2).count, 2)
        XCTAssertEqual(dogs.filter("age < $0", 4).count, 3)
        XCTAssertEqual(dogs.filter("color == %@ AND age > %@", "tan", 5).map(\.name), ["Rex"])
        XCTAssertEqual(dogs.filter("color = $1 OR name == $0", "Fido", "grey").count, 2)
        XCTAssertEqual(dogs.filter("name BEGINSWITH 'B'").map(\.name), ["Bella"])
        XCTAssertEqual(dogs.filter("name CONTAINS[c] %@", "O").count, 3)
        let tanDogs = realm.objects(Dog.self).filter("color = 'tan'")
        let tanDogsWithBNames = tanDogs.filter("name BEGINSWITH 'S'")
        XCTAssertEqual(tanDogsWithBNames.map(\.name), ["Spot"])
    }

    func testFilterArgumentsOfEveryType() throws {
        let realm = try Realm()
        let object = AllTypes()
        object.int8 = 8
        object.bool = true
        object.float = 1.5
        object.double = 2.5
        object.string = "s"
        object.data = Data([1, 2])
        object.date = Date(timeIntervalSince1970: 100)
        object.decimal = "1.25"
        object.objectId = ObjectId("11223344556677889900aabb")
        object.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        try realm.write { realm.add(object) }
        let all = realm.objects(AllTypes.self)
        XCTAssertEqual(all.filter("int8 == %@", Int8(8)).count, 1)
        XCTAssertEqual(all.filter("bool == %@", true).count, 1)
        XCTAssertEqual(all.filter("float == %@", Float(1.5)).count, 1)
        XCTAssertEqual(all.filter("double > %@", 2.0).count, 1)
        XCTAssertEqual(all.filter("string == %@", "s").count, 1)
        XCTAssertEqual(all.filter("data == %@", Data([1, 2])).count, 1)
        XCTAssertEqual(all.filter("date == %@", Date(timeIntervalSince1970: 100)).count, 1)
        XCTAssertEqual(all.filter("decimal == %@", Decimal128(string: "1.25")).count, 1)
        XCTAssertEqual(all.filter("objectId = %@", ObjectId("11223344556677889900aabb")).count, 1)
        XCTAssertEqual(all.filter("uuid == %@", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!).count, 1)
        let none: String? = nil
        XCTAssertEqual(all.filter("optString == %@", none as Any).count, 1)
        XCTAssertEqual(all.filter("optString == nil").count, 1)
        XCTAssertEqual(all.filter("optString != nil").count, 0)
    }

    func testSorting() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.sorted(byKeyPath: "name").map(\.name), ["Bella", "Fido", "Rex", "Spot", "Wolfie"])
        XCTAssertEqual(dogs.sorted(byKeyPath: "name", ascending: false).map(\.name), ["Wolfie", "Spot", "Rex", "Fido", "Bella"])
        XCTAssertEqual(dogs.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)]).map(\.name),
                       ["Fido", "Bella", "Spot", "Wolfie", "Rex"])
        XCTAssertEqual(dogs.sorted(by: ["color", "name"]).map(\.name), ["Fido", "Bella", "Wolfie", "Rex", "Spot"])
        XCTAssertEqual(dogs.sorted(by: \.age, ascending: false).first?.name, "Rex")
        XCTAssertEqual(dogs.sorted(by: \.name).first?.name, "Bella")
        XCTAssertEqual(dogs.filter("age > 1").sorted(byKeyPath: "age").map(\.age), [3, 7, 10])
        XCTAssertEqual(SortDescriptor(keyPath: \Dog.color).keyPath, "color")
    }

    func testResultsCollectionMembers() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "age")
        XCTAssertFalse(dogs.isEmpty)
        XCTAssertEqual(dogs.first?.age, 1)
        XCTAssertEqual(dogs.last?.name, "Rex")
        let spot = dogs.filter("name == 'Spot'").first!
        XCTAssertEqual(dogs.index(of: spot), 2)
        XCTAssertNil(dogs.index(of: Dog()))
        XCTAssertEqual(dogs.map(\.age), [1, 1, 3, 7, 10])
        XCTAssertEqual(Array(dogs[1...2]).map(\.age), [1, 3])
        XCTAssertEqual(dogs.realm, realm)
        XCTAssertFalse(dogs.isInvalidated)
        XCTAssertEqual(dogs, dogs)
        XCTAssertTrue(realm.objects(Dog.self).filter("age > 100").isEmpty)
        XCTAssertNil(realm.objects(Dog.self).filter("age > 100").first)
    }

    func testAggregates() throws {
        let realm = try Realm()
        try addDogs(realm)
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.min(ofProperty: "age") as Int?, 1)
        XCTAssertEqual(dogs.max(ofProperty: "age") as Int?, 10)
        XCTAssertEqual(dogs.sum(ofProperty: "age") as Int, 22)
        XCTAssertEqual(dogs.average(ofProperty: "age") as Double?, 4.4)
        XCTAssertNil(dogs.filter("age > 100").average(ofProperty: "age") as Double?)
    }

    func testResultsAreLive() throws {
        let realm = try Realm()
        let puppies = realm.objects(Dog.self).filter("age < 2")
        XCTAssertEqual(puppies.count, 0)
        try addDogs(realm)
        XCTAssertEqual(puppies.count, 2)
        try realm.write {
            puppies[0].age = 5
        }
        XCTAssertEqual(puppies.count, 1)
        realm.beginWrite()
        realm.add(Dog(name: "Tiny", age: 0))
        XCTAssertEqual(puppies.count, 2, "results see the open write transaction")
        realm.cancelWrite()
        XCTAssertEqual(puppies.count, 1)
    }

    func testIterationIsASnapshot() throws {
        let realm = try Realm()
        try addDogs(realm)
        let puppies = realm.objects(Dog.self).filter("age < 2")
        var seen: [String] = []
        try realm.write {
            for dog in puppies {
                dog.age = 10  // no longer matches; iteration still visits every dog that matched
                seen.append(dog.name)
            }
        }
        XCTAssertEqual(seen, ["Fido", "Bella"])
        XCTAssertEqual(puppies.count, 0)
    }
}
