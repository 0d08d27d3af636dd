import Fief
import Foundation
import XCTest

/// `List<Element>`: unmanaged lists as arrays, managed lists through the C
/// ABI's lists (fief_list_*), the CRUD-Read guide's relationship examples.
final class ListTests: FiefTestCase {
    // MARK: The CRUD-Read guide, as written

    func testGuideRelationship() throws {
        let realm = try! Realm()
        // Establish a relationship
        let dog = Dog()
        dog.name = "Rex"
        dog.age = 10
        let person = Person()
        person.id = 12345
        person.dogs.append(dog)
        try! realm.write {
            realm.add(person)
        }
        // Later, query the specific person
        let specificPerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
        // Access directly through a relationship
        let specificPersonDogs = specificPerson!.dogs
        let firstDog = specificPersonDogs[0]
        print("# dogs: \(specificPersonDogs.count)")
        print("First dog's name: \(firstDog.name)")
        XCTAssertEqual(specificPersonDogs.count, 1)
        XCTAssertEqual(firstDog.name, "Rex")
        XCTAssertEqual(realm.objects(Dog.self).count, 1, "the listed dog was added with its owner")
        XCTAssertTrue(dog.realm != nil && person.dogs.realm != nil)
    }

    func testGuideInverseRelationship() throws {
        let realm = try! Realm()
        // Establish an inverse relationship
        let person = Person()
        person.id = 12345
        let club = DogClub()
        club.name = "Pooch Pals"
        club.members.append(person)
        try! realm.write {
            realm.add(club)
        }
        // Later, query the specific person
        let specificPerson = realm.object(ofType: Person.self, forPrimaryKey: 12345)
        // Access directly through an inverse relationship
        let clubs = specificPerson!.clubs
        let firstClub = clubs[0]
        print("# memberships: \(clubs.count)")
        print("First club's name: \(firstClub.name)")
        XCTAssertEqual(clubs.count, 1)
        XCTAssertEqual(firstClub.name, "Pooch Pals")

        // Live: a second club, and the same person twice in one club.
        try realm.write {
            let other = realm.create(DogClub.self, value: ["name": "Bark Club"])
            other.members.append(specificPerson!)
        }
        XCTAssertEqual(Set(specificPerson!.clubs.map(\.name)), ["Pooch Pals", "Bark Club"])
        XCTAssertEqual(specificPerson!.clubs.filter("name BEGINSWITH 'B'").count, 1)
        try realm.write { club.members.removeAll() }
        XCTAssertEqual(specificPerson!.clubs.map(\.name), ["Bark Club"])
    }

    func testGuideEmbeddedList() throws {
        let realm = try Realm()
        let club = DogClub(name: "Harbour Hounds", addresses: [address("Quay 1", "Bergen"), address("Pier 2", "Oslo")])
        XCTAssertEqual(club.regionalOfficeAddresses.count, 2)
        try realm.write { realm.add(club) }
        XCTAssertEqual(club.regionalOfficeAddresses.map(\.city), ["Bergen", "Oslo"])
        let stored = try XCTUnwrap(realm.objects(DogClub.self).first)
        XCTAssertEqual(stored.regionalOfficeAddresses.map(\.street), ["Quay 1", "Pier 2"])
        XCTAssertEqual(stored.regionalOfficeAddresses.filter("city == 'Oslo'").count, 1)

        try realm.write {
            stored.regionalOfficeAddresses.append(address("Dock 3", "Tromsø"))
            stored.regionalOfficeAddresses[0].city = "Bergen sentrum"
            stored.regionalOfficeAddresses.remove(at: 1)
            stored.regionalOfficeAddresses.replace(index: 1, object: address("Dock 4", "Bodø"))
        }
        XCTAssertEqual(club.regionalOfficeAddresses.map(\.city), ["Bergen sentrum", "Bodø"])
        XCTAssertTrue(club.regionalOfficeAddresses[0].realm != nil)

        // Assigning a list (its own contents too) replaces the contents.
        try realm.write { stored.regionalOfficeAddresses = stored.regionalOfficeAddresses }
        XCTAssertEqual(club.regionalOfficeAddresses.map(\.city), ["Bergen sentrum", "Bodø"])
        try realm.write { realm.delete(stored) }
        XCTAssertTrue(club.regionalOfficeAddresses.isInvalidated)
    }

    private func address(_ street: String, _ city: String) -> Address {
        let address = Address()
        address.street = street
        address.city = city
        return address
    }

    // MARK: Against a Swift array

    /// Applies the same operations to an array and to lists (unmanaged,
    /// then managed) and compares after each.
    func testOperationsMatchArray() throws {
        let realm = try Realm()
        let owner = ScalarLists()
        try realm.write { realm.add(owner) }
        let unmanaged = List<Int>()
        var generator = SystemRandomNumberGenerator()
        for list in [unmanaged, owner.ints] {
            var model: [Int] = []
            realm.beginWrite()
            for step in 0..<400 {
                let value = Int.random(in: -50...50, using: &generator)
                switch Int.random(in: 0..<12, using: &generator) {
                case 0, 1:
                    list.append(value); model.append(value)
                case 2:
                    let values = [value, value + 1, value + 2]
                    list.append(objectsIn: values); model.append(contentsOf: values)
                case 3:
                    let index = Int.random(in: 0...model.count, using: &generator)
                    list.insert(value, at: index); model.insert(value, at: index)
                case 4 where !model.isEmpty:
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    list.remove(at: index); model.remove(at: index)
                case 5 where !model.isEmpty:
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    list[index] = value; model[index] = value
                case 6 where model.count > 1:
                    let from = Int.random(in: 0..<model.count, using: &generator)
                    let to = Int.random(in: 0..<model.count, using: &generator)
                    list.move(from: from, to: to); model.insert(model.remove(at: from), at: to)
                case 7 where model.count > 1:
                    let i = Int.random(in: 0..<model.count, using: &generator)
                    let j = Int.random(in: 0..<model.count, using: &generator)
                    list.swapAt(i, j); model.swapAt(i, j)
                case 8 where !model.isEmpty:
                    list.removeLast(); model.removeLast()
                case 9 where !model.isEmpty:
                    list.removeFirst(); model.removeFirst()
                case 10 where model.count > 3:
                    list.replaceSubrange(1..<3, with: [value]); model.replaceSubrange(1..<3, with: [value])
                case 11 where step % 50 == 0:
                    list.removeAll(); model.removeAll()
                default:
                    if model.isEmpty {
                        list.append(value); model.append(value)
                    } else {
                        list.replace(index: model.count - 1, object: value); model[model.count - 1] = value
                    }
                }
                XCTAssertEqual(Array(list), model, "step \(step)")
                XCTAssertEqual(list.count, model.count)
                XCTAssertEqual(list.first, model.first)
                XCTAssertEqual(list.last, model.last)
                XCTAssertEqual(list.index(of: value), model.firstIndex(of: value))
                XCTAssertEqual(list.contains(value), model.contains(value))
                XCTAssertEqual(list.firstIndex { $0 > value }, model.firstIndex { $0 > value })
            }
            try realm.commitWrite()
            XCTAssertEqual(list.min(), model.min())
            XCTAssertEqual(list.max(), model.max())
            XCTAssertEqual(list.sum(), model.reduce(0, +))
            let average: Double? = list.average()
            XCTAssertEqual(average, model.isEmpty ? nil : Double(model.reduce(0, +)) / Double(model.count))
            if list.realm != nil {
                // Sorted by the library, as live results (unmanaged lists cannot sort).
                XCTAssertEqual(Array(list.sorted(ascending: false)), model.sorted(by: >))
                XCTAssertEqual(Array(list.sorted()), model.sorted())
            }
        }
    }

    func testIterationReadsInBatches() throws {
        let realm = try Realm()
        let owner = ScalarLists()
        owner.ints.append(objectsIn: 0..<1000)
        try realm.write { realm.add(owner) }
        var seen = 0
        for (position, value) in owner.ints.enumerated() {
            XCTAssertEqual(position, value)
            seen += 1
        }
        XCTAssertEqual(seen, 1000)
        XCTAssertEqual(owner.ints.reduce(0, +), 999 * 500)
        XCTAssertEqual(Array(owner.ints[998...]), [998, 999])
    }

    func testEmptyAggregates() throws {
        let realm = try Realm()
        let owner = ScalarLists()
        for lists in [owner, try { try realm.write { realm.create(ScalarLists.self, value: ["id": 9]) } }()] {
            XCTAssertNil(lists.ints.min())
            XCTAssertNil(lists.doubles.max())
            XCTAssertEqual(lists.ints.sum(), 0)
            XCTAssertEqual(lists.decimals.sum(), 0)
            XCTAssertNil(lists.ints.average() as Double?)
        }
        let people = try realm.write { realm.create(Person.self, value: ["id": 1]) }
        XCTAssertNil(people.dogs.min(ofProperty: "age") as Int?)
        XCTAssertEqual(people.dogs.sum(ofProperty: "age") as Int, 0)
        XCTAssertNil(people.dogs.average(ofProperty: "age") as Double?)
    }

    // MARK: Values of every type

    func testScalarListsPersistAcrossReopen() throws {
        let config = fileConfiguration()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let oid = try ObjectId(string: "0123456789abcdef01234567")
        let uuid = try XCTUnwrap(UUID(uuidString: "8C4E5D8C-35B4-4DC2-9B4C-6B4F3C2F3E1A"))
        do {
            let realm = try Realm(configuration: config)
            let lists = ScalarLists()
            lists.ints.append(objectsIn: [3, 1, 2])
            lists.int8s.append(-8)
            lists.int16s.append(16)
            lists.int32s.append(32)
            lists.int64s.append(Int64.max)
            lists.bools.append(objectsIn: [true, false])
            lists.strings.append(objectsIn: ["a", "", "ü"])
            lists.datas.append(Data([1, 2, 3]))
            lists.dates.append(date)
            lists.floats.append(1.5)
            lists.doubles.append(objectsIn: [2.5, -1])
            lists.decimals.append("12.34")
            lists.objectIds.append(oid)
            lists.uuids.append(uuid)
            lists.optInts.append(objectsIn: [1, nil, 3])
            lists.optBools.append(nil)
            lists.optStrings.append(objectsIn: [nil, "x"])
            lists.optDatas.append(nil)
            lists.optDates.append(objectsIn: [date, nil])
            lists.optFloats.append(nil)
            lists.optDoubles.append(objectsIn: [nil, 4.5, 0.5])
            lists.optDecimals.append(objectsIn: [nil, "1.5"])
            lists.optObjectIds.append(objectsIn: [oid, nil])
            lists.optUUIDs.append(nil)
            lists.moods.append(objectsIn: [.sad, .happy])
            lists.levels.append(objectsIn: [.high, nil, .low])
            lists.temperatures.append(Celsius(degrees: 21.5))
            lists.links.append(URL(string: "https://example.com/a")!)
            try realm.write { realm.add(lists) }
        }
        let realm = try Realm(configuration: config)
        let lists = try XCTUnwrap(realm.objects(ScalarLists.self).first)
        XCTAssertEqual(Array(lists.ints), [3, 1, 2])
        XCTAssertEqual(Array(lists.int8s), [-8])
        XCTAssertEqual(Array(lists.int16s), [16])
        XCTAssertEqual(Array(lists.int32s), [32])
        XCTAssertEqual(Array(lists.int64s), [Int64.max])
        XCTAssertEqual(Array(lists.bools), [true, false])
        XCTAssertEqual(Array(lists.strings), ["a", "", "ü"])
        XCTAssertEqual(Array(lists.datas), [Data([1, 2, 3])])
        XCTAssertEqual(Array(lists.dates), [date])
        XCTAssertEqual(Array(lists.floats), [1.5])
        XCTAssertEqual(Array(lists.doubles), [2.5, -1])
        XCTAssertEqual(Array(lists.decimals), ["12.34"])
        XCTAssertEqual(Array(lists.objectIds), [oid])
        XCTAssertEqual(Array(lists.uuids), [uuid])
        XCTAssertEqual(Array(lists.optInts), [1, nil, 3])
        XCTAssertEqual(Array(lists.optBools), [nil])
        XCTAssertEqual(Array(lists.optStrings), [nil, "x"])
        XCTAssertEqual(Array(lists.optDatas), [nil])
        XCTAssertEqual(Array(lists.optDates), [date, nil])
        XCTAssertEqual(Array(lists.optFloats), [nil])
        XCTAssertEqual(Array(lists.optDoubles), [nil, 4.5, 0.5])
        XCTAssertEqual(Array(lists.optDecimals), [nil, "1.5"])
        XCTAssertEqual(Array(lists.optObjectIds), [oid, nil])
        XCTAssertEqual(Array(lists.optUUIDs), [nil])
        XCTAssertEqual(Array(lists.moods), [.sad, .happy])
        XCTAssertEqual(Array(lists.levels), [.high, nil, .low])
        XCTAssertEqual(lists.temperatures.first?.degrees, 21.5)
        XCTAssertEqual(lists.links.first?.absoluteString, "https://example.com/a")

        // Aggregates over values, optional elements included (nils left out).
        XCTAssertEqual(lists.optInts.index(of: nil), 1)
        XCTAssertEqual(lists.optDoubles.min(), 0.5)
        XCTAssertEqual(lists.optDoubles.max(), 4.5)
        XCTAssertEqual(lists.optInts.sum(), 4)
        XCTAssertEqual(lists.optInts.average() as Double?, 2)
        XCTAssertEqual(lists.decimals.sum(), "12.34")
        XCTAssertEqual(lists.moods.min(), .sad)   // raw values: "SAD" < "happy"
        XCTAssertEqual(Array(lists.optStrings.sorted()), [nil, "x"])
        XCTAssertEqual(Array(lists.optInts.sorted(ascending: false)), [3, 1, nil])

        // The schema says which properties are lists.
        let schema = try XCTUnwrap(realm.schema["ScalarLists"])
        XCTAssertEqual(schema["ints"]?.isArray, true)
        XCTAssertEqual(schema["optStrings"]?.isOptional, true)
        XCTAssertEqual(schema["optStrings"]?.type, .string)
        XCTAssertEqual(schema["id"]?.isArray, false)
        XCTAssertEqual(realm.schema["Person"]?["dogs"]?.objectClassName, "Dog")
        XCTAssertEqual(realm.schema["Person"]?["dogs"]?.isArray, true)
    }

    func testSelfKeyValueCodingAndDescription() throws {
        let realm = try Realm()
        let lists = ScalarLists()
        lists.strings.append(objectsIn: ["a", "b"])
        XCTAssertEqual(lists.strings.value(forKey: "self") as? [Any?] as? [String], ["a", "b"])
        lists.strings.setValue("z", forKey: "self")
        XCTAssertEqual(Array(lists.strings), ["z", "z"])
        try realm.write { realm.add(lists) }
        XCTAssertTrue(lists.strings.description.hasPrefix("List<string>"), lists.strings.description)
        XCTAssertTrue(lists.strings.description.contains("[1] z"), lists.strings.description)
        try realm.write { lists.strings.setValue("y", forKey: "self") }
        XCTAssertEqual(Array(lists.strings), ["y", "y"])
    }

    // MARK: Lists of objects

    func testObjectListQueriesAndAggregates() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)   // Rex 10, Fido 1, Spot 3, Bella 1, Wolfie 7
        let person = Person(id: 1, name: "Ann")
        try realm.write {
            realm.add(person)
            person.dogs.append(objectsIn: [dogs[2], dogs[0], dogs[3], dogs[0]])
        }
        XCTAssertEqual(person.dogs.map(\.name), ["Spot", "Rex", "Bella", "Rex"])
        XCTAssertEqual(person.dogs.filter("age > 2").map(\.name), ["Spot", "Rex", "Rex"])
        XCTAssertEqual(person.dogs.sorted(byKeyPath: "age").map(\.name), ["Bella", "Spot", "Rex", "Rex"])
        XCTAssertEqual(person.dogs.sorted(byKeyPath: "name", ascending: false).first?.name, "Spot")
        XCTAssertEqual(person.dogs.sorted(by: \.age).first?.name, "Bella")
        XCTAssertEqual(person.dogs.min(ofProperty: "age") as Int?, 1)
        XCTAssertEqual(person.dogs.max(ofProperty: "age") as Int?, 10)
        XCTAssertEqual(person.dogs.sum(ofProperty: "age") as Int, 24)
        XCTAssertEqual(person.dogs.average(ofProperty: "age") as Double?, 6)
        XCTAssertEqual(person.dogs.index(of: dogs[0]), 1)
        XCTAssertNil(person.dogs.index(of: dogs[1]))
        XCTAssertNil(person.dogs.index(of: Dog()))
        XCTAssertEqual(person.dogs.index(matching: "name == %@", "Bella"), 2)
        XCTAssertTrue(person.dogs.contains(dogs[3]))
        XCTAssertEqual(person.dogs.value(forKey: "name") as? [Any?] as? [String], ["Spot", "Rex", "Bella", "Rex"])
        XCTAssertTrue(person.dogs.description.hasPrefix("List<Dog>"), person.dogs.description)
        XCTAssertTrue(person.dogs.description.contains("name = Bella;"), person.dogs.description)

        try realm.write { person.dogs.setValue("white", forKey: "color") }
        XCTAssertEqual(Set(realm.objects(Dog.self).filter("color == 'white'").map(\.name)), ["Spot", "Rex", "Bella"])

        // Deleting a listed object removes it from the list.
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(person.dogs.map(\.name), ["Spot", "Bella"])
        // Deleting the list's objects.
        try realm.write { realm.delete(person.dogs) }
        XCTAssertEqual(person.dogs.count, 0)
        XCTAssertEqual(realm.objects(Dog.self).map(\.name).sorted(), ["Fido", "Wolfie"])
    }

    func testUnmanagedObjectListAggregates() {
        let person = Person()
        person.dogs.append(objectsIn: [Dog(name: "A", age: 2), Dog(name: "B", age: 5)])
        XCTAssertEqual(person.dogs.min(ofProperty: "age") as Int?, 2)
        XCTAssertEqual(person.dogs.max(ofProperty: "age") as Int?, 5)
        XCTAssertEqual(person.dogs.sum(ofProperty: "age") as Int, 7)
        XCTAssertEqual(person.dogs.average(ofProperty: "age") as Double?, 3.5)
        XCTAssertNil(person.dogs.realm)
        XCTAssertFalse(person.dogs.isFrozen)
        XCTAssertFalse(person.dogs.isInvalidated)
        let same = List<Dog>()
        same.append(objectsIn: person.dogs)
        XCTAssertEqual(same, person.dogs)
    }

    func testGraphAddWithCycles() throws {
        let realm = try Realm()
        let a = Friend("A"), b = Friend("B"), c = Friend("C")
        a.friends.append(objectsIn: [b, c, b])
        b.friends.append(a)
        c.friends.append(objectsIn: [c, a])
        let aFriends = a.friends
        try realm.write { realm.add(a) }
        XCTAssertEqual(realm.objects(Friend.self).count, 3, "each object added once")
        XCTAssertTrue(aFriends === a.friends, "the same List instance is live after add")
        XCTAssertNotNil(aFriends.realm)
        XCTAssertEqual(aFriends.map(\.name), ["B", "C", "B"])
        XCTAssertEqual(b.friends.map(\.name), ["A"])
        XCTAssertEqual(c.friends.map(\.name), ["C", "A"])
        let storedC = try XCTUnwrap(realm.objects(Friend.self).filter("name == 'C'").first)
        XCTAssertEqual(storedC.friends.map(\.name), ["C", "A"])
        XCTAssertTrue(storedC.friends === storedC.friends, "a managed object returns one List instance")

        // Live updates from writes elsewhere.
        let other = try XCTUnwrap(realm.objects(Friend.self).filter("name == 'A'").first)
        try realm.write { other.friends.removeAll() }
        XCTAssertEqual(aFriends.count, 0)
        XCTAssertEqual(realm.objects(Friend.self).count, 3, "removing links keeps the objects")
    }

    func testAssignAndNestedCreate() throws {
        let realm = try Realm()
        let person = try realm.write {
            realm.create(Person.self, value: ["id": 1, "name": "Ann", "dogs": [["name": "Rex", "age": 3], ["name": "Ace", "age": 1]]])
        }
        XCTAssertEqual(person.dogs.map(\.name), ["Rex", "Ace"])
        XCTAssertEqual(realm.objects(Dog.self).count, 2)

        // Assigning a list or an array replaces the contents.
        let other = List<Dog>()
        other.append(Dog(name: "Zed", age: 9))
        let held = person.dogs
        try realm.write { person.dogs = other }
        XCTAssertEqual(held.map(\.name), ["Zed"])
        try realm.write { person.setValue([["name": "Kit", "age": 2], realm.objects(Dog.self).filter("name == 'Rex'").first!], forKey: "dogs") }
        XCTAssertEqual(person.dogs.map(\.name), ["Kit", "Rex"])
        try realm.write { person["dogs"] = person.dogs.filter("age > 2") }
        XCTAssertEqual(person.dogs.map(\.name), ["Rex"])
        XCTAssertEqual((person.value(forKey: "dogs") as? List<Dog>)?.count, 1)

        // Object(value:) with nested arrays, unmanaged.
        let unmanaged = Person(value: ["id": 2, "dogs": [["name": "Pip"], Dog(name: "Pop", age: 4)]])
        XCTAssertEqual(unmanaged.dogs.map(\.name), ["Pip", "Pop"])
        XCTAssertNil(unmanaged.dogs.realm)
        let club = DogClub(value: ["name": "C", "members": [unmanaged], "regionalOfficeAddresses": [["city": "Bergen"]]])
        try realm.write { realm.add(club) }
        XCTAssertEqual(club.members.first?.dogs.map(\.name), ["Pip", "Pop"])
        XCTAssertEqual(club.regionalOfficeAddresses.first?.city, "Bergen")
        XCTAssertEqual(unmanaged.clubs.first?.name, "C")

        // create with update replaces the list.
        try realm.write { realm.create(Person.self, value: ["id": 2, "dogs": [["name": "New"]]], update: .modified) }
        XCTAssertEqual(unmanaged.dogs.map(\.name), ["New"])

        // Copying an object copies its lists.
        let copy = try realm.write { realm.create(DogClub.self, value: club) }
        XCTAssertEqual(copy.members.count, 1)
        XCTAssertEqual(copy.regionalOfficeAddresses.first?.city, "Bergen")
        XCTAssertEqual(realm.objects(Person.self).filter("id == 2").count, 1)
    }

    func testUnmanagedAssignKeepsInstance() {
        let person = Person()
        let held = person.dogs
        let replacement = List<Dog>()
        replacement.append(Dog(name: "A", age: 1))
        person.dogs = replacement
        XCTAssertTrue(person.dogs === held)
        XCTAssertEqual(held.map(\.name), ["A"])
        person.dogs.append(Dog(name: "B", age: 2))
        XCTAssertEqual(replacement.count, 1, "the assigned list is copied, not shared")
    }

    func testFrozenLists() throws {
        let realm = try Realm()
        let person = Person(id: 1, name: "Ann")
        person.dogs.append(Dog(name: "Rex", age: 3))
        try realm.write { realm.add(person) }
        let frozen = person.dogs.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(person.dogs.isFrozen)
        XCTAssertTrue(frozen.freeze() === frozen)
        try realm.write { person.dogs.append(Dog(name: "Ace", age: 1)) }
        XCTAssertEqual(frozen.map(\.name), ["Rex"])
        XCTAssertEqual(person.dogs.count, 2)
        XCTAssertTrue(frozen.first?.isFrozen ?? false)
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertEqual(thawed.count, 2)
        XCTAssertTrue(person.dogs.thaw() === person.dogs)
        XCTAssertEqual(frozen.filter("age > 2").count, 1)
        let frozenPerson = person.freeze()
        XCTAssertEqual(frozenPerson.dogs.count, 2)
        XCTAssertTrue(frozenPerson.dogs.isFrozen)
        try realm.write { realm.delete(person) }
        XCTAssertNil(frozen.thaw())
        XCTAssertTrue(person.dogs.isInvalidated)
        XCTAssertEqual(frozenPerson.dogs.count, 2)
    }

    func testAnyRealmCollectionOverList() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let person = Person(id: 1, name: "Ann")
        try realm.write {
            realm.add(person)
            person.dogs.append(objectsIn: dogs.prefix(3))
        }
        let any = AnyRealmCollection(person.dogs)
        XCTAssertEqual(any.count, 3)
        XCTAssertEqual(any.map(\.name), ["Rex", "Fido", "Spot"])
        XCTAssertEqual(any.filter("age > 2").count, 2)
        XCTAssertEqual(any.sorted(byKeyPath: "age").first?.name, "Fido")
        XCTAssertEqual(any.sum(ofProperty: "age") as Int, 14)
        XCTAssertEqual(any.index(of: dogs[1]), 1)
        XCTAssertEqual(any.realm, realm)
        XCTAssertTrue(any.description.hasPrefix("AnyRealmCollection<Dog>"))
        XCTAssertEqual(any, AnyRealmCollection(person.dogs))
        XCTAssertTrue(any.freeze().isFrozen)
        try realm.write { person.dogs.remove(at: 0) }
        XCTAssertEqual(any.count, 2)
        let values = AnyRealmCollection(List<Int>())
        XCTAssertEqual(values.count, 0)
    }

    func testCodableRoundTrip() throws {
        let playlist = Playlist()
        playlist.name = "Mix"
        playlist.trackNumbers.append(objectsIn: [3, 1, 2])
        playlist.notes.append(objectsIn: ["loud", nil])
        let data = try JSONEncoder().encode(playlist)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(json["trackNumbers"] as? [Int], [3, 1, 2])
        let decoded = try JSONDecoder().decode(Playlist.self, from: data)
        XCTAssertEqual(Array(decoded.trackNumbers), [3, 1, 2])
        XCTAssertEqual(Array(decoded.notes), ["loud", nil])

        let realm = try Realm()
        try realm.write { realm.add(decoded) }
        let managedData = try JSONEncoder().encode(decoded)
        let again = try JSONDecoder().decode(Playlist.self, from: managedData)
        XCTAssertEqual(Array(again.trackNumbers), [3, 1, 2])
        XCTAssertEqual(Array(again.notes), ["loud", nil])
        let listData = try JSONEncoder().encode(decoded.trackNumbers)
        XCTAssertEqual(String(decoding: listData, as: UTF8.self), "[3,1,2]")
        XCTAssertEqual(Array(try JSONDecoder().decode(List<Int>.self, from: listData)), [3, 1, 2])
    }

    func testCancelledWriteAndInvalidation() throws {
        let realm = try Realm()
        let lists = ScalarLists()
        try realm.write { realm.add(lists) }
        realm.beginWrite()
        lists.strings.append("gone")
        realm.cancelWrite()
        XCTAssertEqual(lists.strings.count, 0)
        XCTAssertFalse(lists.strings.isInvalidated)
        try realm.write { realm.delete(lists) }
        XCTAssertTrue(lists.strings.isInvalidated)
        XCTAssertTrue(lists.strings.description.contains("invalidated"))
    }

    // MARK: Lists of values as results

    /// Random lists of optional ints: filters over self, sorts by value,
    /// index(matching:) and aggregates through the C ABI, against an array.
    func testValueListQueriesMatchArray() throws {
        let realm = try Realm()
        let owner = ScalarLists()
        try realm.write { realm.add(owner) }
        var generator = SystemRandomNumberGenerator()
        var model: [Int?] = []
        let results = owner.optInts.filter("TRUEPREDICATE")
        for round in 0..<25 {
            try realm.write {
                let fresh: [Int?] = (0..<Int.random(in: 0...15, using: &generator)).map { _ in
                    Int.random(in: 0..<6, using: &generator) == 0 ? nil : Int.random(in: -9...9, using: &generator)
                }
                owner.optInts.append(objectsIn: fresh)
                model += fresh
                if !model.isEmpty && Bool.random(using: &generator) {
                    let i = Int.random(in: 0..<model.count, using: &generator)
                    owner.optInts.remove(at: i)
                    model.remove(at: i)
                }
            }
            XCTAssertEqual(Array(results), model, "round \(round)")   // live
            let k = Int.random(in: -9...9, using: &generator)
            let matching = owner.optInts.filter("self > %@", k)
            let expected = model.filter { ($0 ?? Int.min) > k }
            XCTAssertEqual(Array(matching), expected)
            XCTAssertEqual(matching.count, expected.count)
            XCTAssertEqual(owner.optInts.filter("self == nil").count, model.filter { $0 == nil }.count)
            XCTAssertEqual(owner.optInts.index(matching: "self == %@", k), model.firstIndex(of: k))
            XCTAssertEqual(matching.index(of: expected.first ?? 1000), expected.isEmpty ? nil : 0)
            let ascending: [Int?] = model.filter { $0 == nil } + model.compactMap { $0 }.sorted()
            XCTAssertEqual(Array(owner.optInts.sorted()), ascending)
            XCTAssertEqual(Array(owner.optInts.sorted(ascending: false)), ascending.reversed())
            XCTAssertEqual(Array(matching.sorted(ascending: false)), expected.compactMap { $0 }.sorted(by: >))
            let present = model.compactMap { $0 }
            XCTAssertEqual(owner.optInts.min() ?? nil, present.min())
            XCTAssertEqual(owner.optInts.max() ?? nil, present.max())
            XCTAssertEqual(owner.optInts.sum(), present.reduce(0, +))
            XCTAssertEqual(owner.optInts.average() as Double?, present.isEmpty ? nil : Double(present.reduce(0, +)) / Double(present.count))
            XCTAssertEqual(matching.sum() ?? 0, expected.compactMap { $0 }.reduce(0, +))
            XCTAssertEqual(matching.min() ?? nil, expected.compactMap { $0 }.min())
            XCTAssertEqual(matching.max(ofProperty: "self") as Int?, expected.compactMap { $0 }.max())
        }
        // The same aggregates unmanaged (computed in Swift) and managed (by the library).
        let copy = ScalarLists()
        copy.id = 2
        copy.doubles.append(objectsIn: [1.5, -2, 4])
        copy.decimals.append(objectsIn: ["1.5", "2.25"])
        copy.dates.append(objectsIn: [Date(timeIntervalSince1970: 20), Date(timeIntervalSince1970: 10)])
        copy.floats.append(objectsIn: [0.5, 0.25])
        func check(_ lists: ScalarLists) {
            XCTAssertEqual(lists.doubles.sum(), 3.5)
            XCTAssertEqual(lists.doubles.min(), -2)
            XCTAssertEqual(lists.doubles.average() as Double?, 3.5 / 3)
            XCTAssertEqual(lists.decimals.sum(), "3.75")
            XCTAssertEqual(lists.decimals.average() as Decimal128?, "1.875")
            XCTAssertEqual(lists.dates.min(), Date(timeIntervalSince1970: 10))
            XCTAssertEqual(lists.dates.max(), Date(timeIntervalSince1970: 20))
            XCTAssertEqual(lists.floats.sum(), 0.75)
            XCTAssertEqual(lists.floats.average() as Float?, 0.375)
        }
        check(copy)
        try realm.write { realm.add(copy) }
        check(copy)
        // Strings filter and sort by the library too.
        try realm.write { copy.strings.append(objectsIn: ["beta", "Alpha", "alpha"]) }
        XCTAssertEqual(Array(copy.strings.filter("self BEGINSWITH[c] 'a'")), ["Alpha", "alpha"])
        XCTAssertEqual(Array(copy.strings.sorted()), ["Alpha", "alpha", "beta"])
        XCTAssertEqual(copy.strings.sorted(byKeyPath: "self", ascending: false).first, "beta")
        XCTAssertEqual(copy.strings.index(matching: "self CONTAINS 'lph'"), 1)
        XCTAssertTrue(copy.strings.filter("self != ''").description.hasPrefix("Results<string>"))
        // Frozen value results keep their version.
        let frozen = copy.strings.sorted().freeze()
        try realm.write { copy.strings.removeAll() }
        XCTAssertEqual(Array(frozen), ["Alpha", "alpha", "beta"])
        XCTAssertTrue(copy.strings.sorted().isEmpty)
    }

    // MARK: Traps

    func testTraps() {
        assertTraps("listIndexOutOfBounds", message: "Index 3 is out of bounds (must be less than 2)")
        assertTraps("unmanagedListIndexOutOfBounds", message: "Index 5 is out of bounds (must be less than 1)")
        assertTraps("listWriteOutsideTransaction", message: "outside of a write transaction")
        assertTraps("listRemoveOutOfBounds", message: "Index 2 is out of bounds (must be less than 2)")
        assertTraps("listInvalidated", message: "Access to invalidated List object")
        assertTraps("filterUnmanaged", message: "Cannot filter an unmanaged List")
        assertTraps("sortUnmanagedValues", message: "Cannot sort an unmanaged List")
        assertTraps("filterValuesByProperty", message: "Invalid predicate")
        assertTraps("aggregateValuesByProperty", message: "Invalid property name 'age'")
        assertTraps("freezeUnmanaged", message: "This method may only be called on RLMArray instances retrieved from an RLMRealm")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "listIndexOutOfBounds": { _ in
            let realm = try Realm()
            let lists = ScalarLists()
            lists.ints.append(objectsIn: [1, 2])
            try realm.write { realm.add(lists) }
            _ = lists.ints[3]
        },
        "unmanagedListIndexOutOfBounds": { _ in
            let list = List<String>()
            list.append("a")
            _ = list[5]
        },
        "listWriteOutsideTransaction": { _ in
            let realm = try Realm()
            let lists = ScalarLists()
            try realm.write { realm.add(lists) }
            lists.ints.append(1)
        },
        "listRemoveOutOfBounds": { _ in
            let realm = try Realm()
            let lists = ScalarLists()
            lists.ints.append(objectsIn: [1, 2])
            try realm.write { realm.add(lists) }
            try realm.write { lists.ints.remove(at: 2) }
        },
        "listInvalidated": { _ in
            let realm = try Realm()
            let lists = ScalarLists()
            try realm.write { realm.add(lists) }
            let ints = lists.ints
            try realm.write { realm.delete(lists) }
            _ = ints.count
        },
        "sortUnmanagedValues": { _ in
            _ = List<Int>().sorted()
        },
        "filterValuesByProperty": { _ in
            let realm = try Realm()
            let lists = ScalarLists()
            try realm.write { realm.add(lists) }
            _ = lists.ints.filter("age > 1")
        },
        "aggregateValuesByProperty": { _ in
            let realm = try Realm()
            let lists = ScalarLists()
            try realm.write { realm.add(lists) }
            _ = lists.ints.filter("self > 1").min(ofProperty: "age") as Int?
        },
        "filterUnmanaged": { _ in
            _ = Person().dogs.filter("age > 1")
        },
        "freezeUnmanaged": { _ in
            _ = List<Int>().freeze()
        },
    ]
}
