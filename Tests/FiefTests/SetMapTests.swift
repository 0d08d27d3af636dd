import Fief
import Foundation
import XCTest

/// `MutableSet<Element>` and `Map<Key, Value>`: unmanaged ones in memory,
/// managed ones through the C ABI's sets and maps (fief_set_*, fief_map_*),
/// the Map page member by member, the CRUD-Read guide's set and map examples.
final class SetMapTests: FiefTestCase {
    // MARK: - MutableSet: the CRUD-Read guide

    func testGuideMutableSetExamples() throws {
        try CRUDGuide.mutableSetExample(self)
    }

    // MARK: - MutableSet against a Swift Set

    /// Applies the same operations to a Swift Set and to sets (unmanaged,
    /// then managed) and compares after each.
    func testSetOperationsMatchSwiftSet() throws {
        let realm = try Realm()
        let owner = ScalarSets()
        owner.id = 1
        let other = ScalarSets()
        other.id = 2
        try realm.write { realm.add([owner, other]) }
        var generator = SystemRandomNumberGenerator()
        for set in [MutableSet<Int>(), owner.ints] {
            var model = Set<Int>()
            // The other operand: managed (same realm: the C algebra), unmanaged, frozen.
            let managedOther = other.ints
            realm.beginWrite()
            for step in 0..<400 {
                let value = Int.random(in: -40...40, using: &generator)
                let values = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Int.random(in: -40...40, using: &generator) }
                let operand: MutableSet<Int>
                switch step % 3 {
                case 0:
                    managedOther.removeAll()
                    managedOther.insert(objectsIn: values)
                    operand = managedOther
                case 1:
                    operand = MutableSet<Int>()
                    operand.insert(objectsIn: values)
                default:
                    managedOther.removeAll()
                    managedOther.insert(objectsIn: values)
                    try realm.commitWrite()
                    operand = managedOther.freeze()
                    realm.beginWrite()
                }
                let operandModel = Set(values)
                XCTAssertEqual(Set(Array(operand)), operandModel)
                switch Int.random(in: 0..<9, using: &generator) {
                case 0, 1:
                    set.insert(value); model.insert(value)
                case 2:
                    set.insert(objectsIn: values); model.formUnion(values)
                case 3:
                    set.remove(value); model.remove(value)
                case 4:
                    set.formUnion(operand); model.formUnion(operandModel)
                case 5:
                    set.formIntersection(operand); model.formIntersection(operandModel)
                case 6:
                    set.subtract(operand); model.subtract(operandModel)
                case 7 where step % 40 == 0:
                    set.removeAll(); model.removeAll()
                default:
                    set.insert(value + 100); model.insert(value + 100)
                }
                XCTAssertEqual(Set(Array(set)), model, "step \(step)")
                XCTAssertEqual(set.count, model.count)
                XCTAssertEqual(set.contains(value), model.contains(value))
                XCTAssertEqual(set.intersects(operand), !model.isDisjoint(with: operandModel), "step \(step)")
                XCTAssertEqual(set.isSubset(of: operand), model.isSubset(of: operandModel), "step \(step)")
                XCTAssertEqual(set.isSuperset(of: operand), model.isSuperset(of: operandModel), "step \(step)")
                if set.realm != nil {
                    // A managed set is in the engine's order (by value).
                    XCTAssertEqual(Array(set), model.sorted())
                    XCTAssertEqual(set.index(of: value), model.sorted().firstIndex(of: value))
                }
                XCTAssertEqual(set.index(of: value).map { set[$0] }, model.contains(value) ? value : nil)
            }
            try realm.commitWrite()
            XCTAssertEqual(set.min(), model.min())
            XCTAssertEqual(set.max(), model.max())
            XCTAssertEqual(set.sum(), model.reduce(0, +))
            let average: Double? = set.average()
            XCTAssertEqual(average, model.isEmpty ? nil : Double(model.reduce(0, +)) / Double(model.count))
            XCTAssertEqual(set.sorted(), model.sorted())
            if set.realm != nil {
                // Managed: live results of values, in the library.
                XCTAssertEqual(Array(set.sorted(ascending: false)), model.sorted(by: >))
                XCTAssertEqual(Array(set.filter("self > 0")), model.filter { $0 > 0 }.sorted())
                XCTAssertEqual(set.filter("self < 0").max(), model.filter { $0 < 0 }.max())
                XCTAssertEqual(set.index(matching: "self > 10"), model.sorted().firstIndex { $0 > 10 })
                XCTAssertEqual(set.sum(ofProperty: "self") as Int, model.reduce(0, +))
                XCTAssertEqual(set.min(ofProperty: "self") as Int?, model.min())
            }
        }
    }

    func testSetAlgebraWithItselfAndEmptySets() throws {
        let realm = try Realm()
        let owner = ScalarSets()
        owner.strings.insert(objectsIn: ["a", "b"])
        try realm.write { realm.add(owner) }
        let strings = owner.strings
        XCTAssertTrue(strings.isSubset(of: strings))
        XCTAssertTrue(strings.intersects(strings))
        try realm.write {
            strings.formUnion(strings)
            strings.formIntersection(strings)
        }
        XCTAssertEqual(Array(strings), ["a", "b"])
        let empty = MutableSet<String>()
        XCTAssertFalse(strings.intersects(empty))
        XCTAssertTrue(empty.isSubset(of: strings))
        XCTAssertFalse(strings.isSubset(of: empty))
        try realm.write { strings.subtract(strings) }
        XCTAssertTrue(strings.isEmpty)
    }

    func testIterationReadsInBatches() throws {
        let realm = try Realm()
        let owner = ScalarSets()
        owner.ints.insert(objectsIn: (0..<1000).reversed())
        XCTAssertEqual(owner.ints.first, 999, "an unmanaged set keeps the order of insertion")
        try realm.write { realm.add(owner) }
        var seen = 0
        for (position, value) in owner.ints.enumerated() {
            XCTAssertEqual(position, value)
            seen += 1
        }
        XCTAssertEqual(seen, 1000)
        XCTAssertEqual(owner.ints.reduce(0, +), 999 * 500)
        XCTAssertEqual(Array(owner.ints[998...]), [998, 999])
        XCTAssertEqual(owner.ints.last, 999)
    }

    // MARK: - MutableSet: values of every type

    func testScalarSetsPersistAcrossReopen() throws {
        let config = fileConfiguration()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let oid = try ObjectId(string: "0123456789abcdef01234567")
        let uuid = try XCTUnwrap(UUID(uuidString: "8C4E5D8C-35B4-4DC2-9B4C-6B4F3C2F3E1A"))
        do {
            let realm = try Realm(configuration: config)
            let sets = ScalarSets()
            sets.ints.insert(objectsIn: [3, 1, 2, 3])
            sets.int8s.insert(-8)
            sets.int16s.insert(16)
            sets.int32s.insert(32)
            sets.int64s.insert(objectsIn: [Int64.max, Int64.min])
            sets.bools.insert(objectsIn: [true, false, true])
            sets.strings.insert(objectsIn: ["b", "", "ü", "a"])
            sets.datas.insert(objectsIn: [Data([1, 2, 3]), Data()])
            sets.dates.insert(objectsIn: [date, Date(timeIntervalSince1970: 0)])
            sets.floats.insert(objectsIn: [1.5, -0.0, 0])
            sets.doubles.insert(objectsIn: [2.5, -1])
            sets.decimals.insert(objectsIn: ["12.34", "1.0", "1.00"])
            sets.objectIds.insert(oid)
            sets.uuids.insert(uuid)
            sets.optInts.insert(objectsIn: [1, nil, 3, nil])
            sets.optBools.insert(nil)
            sets.optStrings.insert(objectsIn: [nil, "x"])
            sets.optDatas.insert(nil)
            sets.optDates.insert(objectsIn: [date, nil])
            sets.optFloats.insert(nil)
            sets.optDoubles.insert(objectsIn: [nil, 4.5, 0.5])
            sets.optDecimals.insert(objectsIn: [nil, "1.5"])
            sets.optObjectIds.insert(objectsIn: [oid, nil])
            sets.optUUIDs.insert(nil)
            sets.moods.insert(objectsIn: [.sad, .happy, .sad])
            sets.levels.insert(objectsIn: [.high, nil, .low])
            sets.temperatures.insert(Celsius(degrees: 21.5))
            sets.links.insert(URL(string: "https://example.com/a")!)
            try realm.write { realm.add(sets) }
            // Managed sets are in the engine's order: numbers by value, null first.
            XCTAssertEqual(Array(sets.ints), [1, 2, 3])
            XCTAssertEqual(Array(sets.optInts), [nil, 1, 3])
        }
        let realm = try Realm(configuration: config)
        let sets = try XCTUnwrap(realm.objects(ScalarSets.self).first)
        XCTAssertEqual(Array(sets.ints), [1, 2, 3])
        XCTAssertEqual(Array(sets.int8s), [-8])
        XCTAssertEqual(Array(sets.int16s), [16])
        XCTAssertEqual(Array(sets.int32s), [32])
        XCTAssertEqual(Array(sets.int64s), [Int64.min, Int64.max])
        XCTAssertEqual(Array(sets.bools), [false, true])
        XCTAssertEqual(Array(sets.strings), ["", "a", "b", "ü"])
        XCTAssertEqual(Array(sets.datas), [Data(), Data([1, 2, 3])])
        XCTAssertEqual(Array(sets.dates), [Date(timeIntervalSince1970: 0), date])
        XCTAssertEqual(sets.floats.count, 2, "-0 and 0 are one element")
        XCTAssertEqual(Array(sets.doubles), [-1, 2.5])
        XCTAssertEqual(sets.decimals.count, 2, "1.0 and 1.00 are one element")
        XCTAssertTrue(sets.decimals.contains("12.34"))
        XCTAssertEqual(Array(sets.objectIds), [oid])
        XCTAssertEqual(Array(sets.uuids), [uuid])
        XCTAssertEqual(Array(sets.optInts), [nil, 1, 3])
        XCTAssertEqual(Array(sets.optBools), [nil])
        XCTAssertEqual(Array(sets.optStrings), [nil, "x"])
        XCTAssertEqual(Array(sets.optDatas), [nil])
        XCTAssertEqual(Array(sets.optDates), [nil, date])
        XCTAssertEqual(Array(sets.optFloats), [nil])
        XCTAssertEqual(Array(sets.optDoubles), [nil, 0.5, 4.5])
        XCTAssertEqual(Array(sets.optDecimals), [nil, "1.5"])
        XCTAssertEqual(Array(sets.optObjectIds), [nil, oid])
        XCTAssertEqual(Array(sets.optUUIDs), [nil])
        XCTAssertEqual(Set(sets.moods), [.sad, .happy])
        XCTAssertEqual(Array(sets.levels), [nil, .low, .high])
        XCTAssertEqual(sets.temperatures.first?.degrees, 21.5)
        XCTAssertEqual(sets.links.first?.absoluteString, "https://example.com/a")
        XCTAssertTrue(sets.links.contains(URL(string: "https://example.com/a")!))
        XCTAssertTrue(sets.moods.contains(.sad))
        XCTAssertFalse(sets.moods.contains(.sleepy))
        XCTAssertTrue(sets.optInts.contains(nil))
        XCTAssertTrue(sets.doubles.contains(2.5))

        // Aggregates over values, optional elements included (nil left out).
        XCTAssertEqual(sets.optInts.index(of: nil), 0)
        XCTAssertEqual(sets.optDoubles.min(), 0.5)
        XCTAssertEqual(sets.optDoubles.max(), 4.5)
        XCTAssertEqual(sets.optInts.sum(), 4)
        XCTAssertEqual(sets.optInts.average() as Double?, 2)
        XCTAssertEqual(sets.decimals.sum(), "13.34")
        XCTAssertEqual(sets.dates.max(), date)
        XCTAssertEqual(sets.moods.min(), .sad)   // raw values: "SAD" < "happy"
        XCTAssertEqual(sets.levels.max(), .high)
        XCTAssertEqual(Array(sets.optStrings.sorted(ascending: false)), ["x", nil])
        XCTAssertEqual(Array(sets.optInts.filter("self == nil OR self > 2")), [nil, 3])
        XCTAssertEqual(Array(sets.strings.sorted(byKeyPath: "self", ascending: false)), ["ü", "b", "a", ""])
        XCTAssertEqual(sets.dates.min(), Date(timeIntervalSince1970: 0))
        XCTAssertEqual(sets.optDoubles.average() as Double?, 2.5)

        // The schema says which properties are sets.
        let schema = try XCTUnwrap(realm.schema["ScalarSets"])
        XCTAssertEqual(schema["ints"]?.isSet, true)
        XCTAssertEqual(schema["ints"]?.isArray, false)
        XCTAssertEqual(schema["ints"]?.isMap, false)
        XCTAssertEqual(schema["optStrings"]?.isOptional, true)
        XCTAssertEqual(schema["optStrings"]?.type, .string)
        XCTAssertTrue(String(describing: schema["ints"]!).contains("set = YES"))
        XCTAssertTrue(schema.description.contains("optStrings: MutableSet<string?>"), schema.description)
        XCTAssertEqual(realm.schema["Kennel"]?["dogs"]?.objectClassName, "Dog")
        XCTAssertEqual(realm.schema["Kennel"]?["dogs"]?.isSet, true)
    }

    func testSetKeyValueCodingAndDescription() throws {
        let realm = try Realm()
        let sets = ScalarSets()
        sets.strings.insert(objectsIn: ["b", "a"])
        XCTAssertEqual(sets.strings.value(forKey: "self") as? [String], ["b", "a"])
        sets.strings.setValue("z", forKey: "self")
        XCTAssertEqual(Array(sets.strings), ["z"])
        sets.optInts.insert(objectsIn: [1, nil])
        XCTAssertTrue(sets.optInts.value(forKey: "self").last is NSNull)
        try realm.write { realm.add(sets) }
        XCTAssertTrue(sets.strings.description.hasPrefix("MutableSet<string>"), sets.strings.description)
        XCTAssertTrue(sets.strings.description.contains("[0] z"), sets.strings.description)
        try realm.write { sets.strings.setValue("y", forKey: "self") }
        XCTAssertEqual(Array(sets.strings), ["y"])
        XCTAssertEqual(sets.strings.value(forKeyPath: "self") as? [String], ["y"])
    }

    // MARK: - MutableSet of objects

    func testSetOfObjects() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)   // Rex 10, Fido 1, Spot 3, Bella 1, Wolfie 7
        let kennel = Kennel(id: 1, name: "K")
        try realm.write {
            realm.add(kennel)
            kennel.dogs.insert(objectsIn: [dogs[2], dogs[0], dogs[3], dogs[0]])
        }
        XCTAssertEqual(kennel.dogs.count, 3, "an object is in a set once")
        XCTAssertEqual(Set(kennel.dogs.map(\.name)), ["Spot", "Rex", "Bella"])
        XCTAssertEqual(kennel.dogs.map(\.name), ["Rex", "Spot", "Bella"], "in the order of object keys")
        XCTAssertEqual(kennel.dogs.filter("age > 2").map(\.name), ["Rex", "Spot"])
        XCTAssertEqual(kennel.dogs.sorted(byKeyPath: "age").map(\.name), ["Bella", "Spot", "Rex"])
        XCTAssertEqual(kennel.dogs.sorted(byKeyPath: "name", ascending: false).first?.name, "Spot")
        XCTAssertEqual(kennel.dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false)]).first?.name, "Rex")
        XCTAssertEqual(kennel.dogs.sorted(by: \.age).first?.name, "Bella")
        XCTAssertEqual(kennel.dogs.min(ofProperty: "age") as Int?, 1)
        XCTAssertEqual(kennel.dogs.max(ofProperty: "age") as Int?, 10)
        XCTAssertEqual(kennel.dogs.sum(ofProperty: "age") as Int, 14)
        XCTAssertEqual(kennel.dogs.average(ofProperty: "age") as Double?, 14.0 / 3)
        XCTAssertEqual(kennel.dogs.index(of: dogs[2]), 1)
        XCTAssertNil(kennel.dogs.index(of: dogs[1]))
        XCTAssertNil(kennel.dogs.index(of: Dog()))
        XCTAssertEqual(kennel.dogs.index(matching: "name == %@", "Bella"), 2)
        XCTAssertTrue(kennel.dogs.contains(dogs[3]))
        XCTAssertFalse(kennel.dogs.contains(Dog(name: "Rex", age: 10)), "an unmanaged object is in no managed set")
        let sameRex = try XCTUnwrap(realm.objects(Dog.self).filter("name == 'Rex'").first)
        XCTAssertTrue(kennel.dogs.contains(sameRex), "another instance of the same object is")
        XCTAssertEqual(Set(kennel.dogs.value(forKey: "age").compactMap { $0 as? Int }), [10, 3, 1])
        XCTAssertTrue(kennel.dogs.description.hasPrefix("MutableSet<Dog>"), kennel.description)
        XCTAssertTrue(kennel.dogs.description.contains("name = Bella;"), kennel.dogs.description)

        // An unmanaged object inserted into a managed set is added.
        try realm.write { kennel.dogs.insert(Dog(name: "Pup", age: 0)) }
        XCTAssertEqual(realm.objects(Dog.self).count, 6)
        XCTAssertEqual(kennel.dogs.count, 4)

        try realm.write { kennel.dogs.setValue("white", forKey: "color") }
        XCTAssertEqual(Set(realm.objects(Dog.self).filter("color == 'white'").map(\.name)), ["Spot", "Rex", "Bella", "Pup"])

        // Removing an object from a set keeps it in the realm; an unmanaged one is not there.
        try realm.write {
            kennel.dogs.remove(dogs[3])
            kennel.dogs.remove(Dog())
        }
        XCTAssertEqual(kennel.dogs.count, 3)
        XCTAssertEqual(realm.objects(Dog.self).count, 6)

        // Deleting an object takes it out of every set.
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(Set(kennel.dogs.map(\.name)), ["Spot", "Pup"])
        // Deleting the set's objects.
        try realm.write { realm.delete(kennel.dogs) }
        XCTAssertEqual(kennel.dogs.count, 0)
        XCTAssertEqual(realm.objects(Dog.self).map(\.name).sorted(), ["Bella", "Fido", "Wolfie"])

        // Algebra between sets of objects of one realm, and with an unmanaged set.
        let other = Kennel(id: 2, name: "O")
        try realm.write {
            realm.add(other)
            kennel.dogs.insert(objectsIn: realm.objects(Dog.self))
            other.dogs.insert(objectsIn: realm.objects(Dog.self).filter("age == 1"))
        }
        XCTAssertTrue(other.dogs.isSubset(of: kennel.dogs))
        XCTAssertTrue(kennel.dogs.intersects(other.dogs))
        try realm.write { kennel.dogs.subtract(other.dogs) }
        XCTAssertEqual(kennel.dogs.map(\.name), ["Wolfie"])
        let unmanaged = MutableSet<Dog>()
        unmanaged.insert(objectsIn: realm.objects(Dog.self).filter("name == 'Wolfie' OR name == 'Fido'"))
        XCTAssertTrue(kennel.dogs.isSubset(of: unmanaged))
        XCTAssertTrue(unmanaged.intersects(other.dogs), "unmanaged sets compare objects by row")
        try realm.write { kennel.dogs.formUnion(unmanaged) }
        XCTAssertEqual(kennel.dogs.map(\.name), ["Fido", "Wolfie"])
    }

    func testUnmanagedSetOfObjects() {
        let kennel = Kennel()
        let rex = Dog(name: "Rex", age: 2)
        kennel.dogs.insert(objectsIn: [rex, Dog(name: "Ace", age: 5), rex])
        XCTAssertEqual(kennel.dogs.count, 2)
        XCTAssertEqual(kennel.dogs.min(ofProperty: "age") as Int?, 2)
        XCTAssertEqual(kennel.dogs.max(ofProperty: "age") as Int?, 5)
        XCTAssertEqual(kennel.dogs.sum(ofProperty: "age") as Int, 7)
        XCTAssertEqual(kennel.dogs.average(ofProperty: "age") as Double?, 3.5)
        XCTAssertNil(kennel.dogs.realm)
        XCTAssertFalse(kennel.dogs.isFrozen)
        XCTAssertFalse(kennel.dogs.isInvalidated)
        XCTAssertEqual(kennel.dogs.index(of: rex), 0)
        let same = MutableSet<Dog>()
        same.insert(objectsIn: kennel.dogs.reversed())
        XCTAssertEqual(same, kennel.dogs, "unmanaged sets with the same elements are equal")
    }

    // MARK: - MutableSet: becoming managed, create, KVC

    func testSetPromotionOnAdd() throws {
        let realm = try Realm()
        let kennel = Kennel(id: 1, name: "K")
        let rex = Dog(name: "Rex", age: 3)
        kennel.dogs.insert(objectsIn: [rex, Dog(name: "Ace", age: 1)])
        kennel.tags.insert(objectsIn: ["b", "a"])
        let dogs = kennel.dogs
        let tags = kennel.tags
        try realm.write { realm.add(kennel) }
        XCTAssertTrue(dogs === kennel.dogs, "the same MutableSet instance is live after add")
        XCTAssertTrue(tags === kennel.tags)
        XCTAssertNotNil(dogs.realm)
        XCTAssertEqual(realm.objects(Dog.self).count, 2, "the set's objects were added with it")
        XCTAssertNotNil(rex.realm)
        XCTAssertEqual(Array(tags), ["a", "b"])
        let stored = try XCTUnwrap(realm.object(ofType: Kennel.self, forPrimaryKey: 1))
        XCTAssertTrue(stored.tags === stored.tags, "a managed object returns one MutableSet instance")
        XCTAssertEqual(stored.tags, tags, "the same managed set")
        // Live: a write through another instance shows in this one.
        try realm.write { stored.tags.insert("c") }
        XCTAssertEqual(Array(tags), ["a", "b", "c"])
        realm.beginWrite()
        tags.insert("gone")
        realm.cancelWrite()
        XCTAssertEqual(tags.count, 3)
        try realm.write { realm.delete(stored) }
        XCTAssertTrue(tags.isInvalidated)
        XCTAssertTrue(tags.description.contains("invalidated"))
    }

    func testSetCreateAssignAndKVC() throws {
        let realm = try Realm()
        let kennel = try realm.write {
            realm.create(Kennel.self, value: ["id": 1, "name": "K", "tags": ["x", "y", "x"],
                                              "dogs": [["name": "Rex", "age": 3], ["name": "Ace", "age": 1]]])
        }
        XCTAssertEqual(Array(kennel.tags), ["x", "y"])
        XCTAssertEqual(Set(kennel.dogs.map(\.name)), ["Rex", "Ace"])
        XCTAssertEqual(realm.objects(Dog.self).count, 2)

        // KVC on the object: the set itself; setting replaces the contents.
        XCTAssertTrue((kennel.value(forKey: "tags") as? MutableSet<String>) == kennel.tags)
        let held = kennel.tags
        try realm.write { kennel.setValue(["q"], forKey: "tags") }
        XCTAssertEqual(Array(held), ["q"])
        try realm.write { kennel["tags"] = Set(["m", "n"]) }
        XCTAssertEqual(Array(held), ["m", "n"])
        let replacement = MutableSet<String>()
        replacement.insert("r")
        try realm.write { kennel.tags = replacement }
        XCTAssertEqual(Array(held), ["r"])
        try realm.write { kennel.tags = kennel.tags }
        XCTAssertEqual(Array(held), ["r"])

        // Object(value:) with arrays, unmanaged.
        let unmanaged = Kennel(value: ["id": 2, "tags": ["a", "a", "b"], "dogs": [["name": "Pip"], Dog(name: "Pop", age: 4)]])
        XCTAssertEqual(Array(unmanaged.tags), ["a", "b"])
        XCTAssertEqual(unmanaged.dogs.map(\.name), ["Pip", "Pop"])
        XCTAssertNil(unmanaged.tags.realm)
        XCTAssertEqual((unmanaged.value(forKey: "tags") as? MutableSet<String>)?.count, 2)
        unmanaged.setValue(["z"], forKey: "tags")
        XCTAssertEqual(Array(unmanaged.tags), ["z"])
        try realm.write { realm.add(unmanaged) }
        XCTAssertEqual(unmanaged.dogs.count, 2)

        // create with update replaces the set; copying an object copies its sets.
        try realm.write { realm.create(Kennel.self, value: ["id": 2, "tags": ["new"]], update: .modified) }
        XCTAssertEqual(Array(unmanaged.tags), ["new"])
        let template = Kennel(value: unmanaged)
        template.id = 3
        let copy = try realm.write { realm.create(Kennel.self, value: template) }
        XCTAssertEqual(Array(copy.tags), ["new"])
        XCTAssertEqual(copy.dogs.count, 2)
    }

    func testUnmanagedSetAssignKeepsInstance() {
        let kennel = Kennel()
        let held = kennel.tags
        let replacement = MutableSet<String>()
        replacement.insert("a")
        kennel.tags = replacement
        XCTAssertTrue(kennel.tags === held)
        XCTAssertEqual(Array(held), ["a"])
        kennel.tags.insert("b")
        XCTAssertEqual(replacement.count, 1, "the assigned set is copied, not shared")
    }

    func testFrozenSets() throws {
        let realm = try Realm()
        let kennel = Kennel(id: 1, name: "K")
        kennel.dogs.insert(Dog(name: "Rex", age: 3))
        try realm.write { realm.add(kennel) }
        let frozen = kennel.dogs.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(kennel.dogs.isFrozen)
        XCTAssertTrue(frozen.freeze() === frozen)
        try realm.write { kennel.dogs.insert(Dog(name: "Ace", age: 1)) }
        XCTAssertEqual(frozen.map(\.name), ["Rex"])
        XCTAssertEqual(kennel.dogs.count, 2)
        XCTAssertTrue(frozen.first?.isFrozen ?? false)
        XCTAssertTrue(frozen.isSubset(of: kennel.dogs), "a frozen set against a live one: element by element")
        XCTAssertFalse(kennel.dogs.isSubset(of: frozen))
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertEqual(thawed.count, 2)
        XCTAssertTrue(kennel.dogs.thaw() === kennel.dogs)
        XCTAssertEqual(frozen.filter("age > 2").count, 1)
        let frozenKennel = kennel.freeze()
        XCTAssertEqual(frozenKennel.dogs.count, 2)
        XCTAssertTrue(frozenKennel.dogs.isFrozen)
        try realm.write { realm.delete(kennel) }
        XCTAssertNil(frozen.thaw())
        XCTAssertTrue(kennel.dogs.isInvalidated)
        XCTAssertEqual(frozenKennel.dogs.count, 2)
    }

    func testAnyRealmCollectionOverSet() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)
        let kennel = Kennel(id: 1, name: "K")
        try realm.write {
            realm.add(kennel)
            kennel.dogs.insert(objectsIn: dogs.prefix(3))
        }
        let any = AnyRealmCollection(kennel.dogs)
        XCTAssertEqual(any.count, 3)
        XCTAssertEqual(any.map(\.name), ["Rex", "Fido", "Spot"])
        XCTAssertEqual(any.filter("age > 2").count, 2)
        XCTAssertEqual(any.sorted(byKeyPath: "age").first?.name, "Fido")
        XCTAssertEqual(any.sum(ofProperty: "age") as Int, 14)
        XCTAssertEqual(any.index(of: dogs[1]), 1)
        XCTAssertEqual(any.realm, realm)
        XCTAssertTrue(any.description.hasPrefix("AnyRealmCollection<Dog>"))
        XCTAssertEqual(any, AnyRealmCollection(kennel.dogs))
        XCTAssertTrue(any.freeze().isFrozen)
        try realm.write { kennel.dogs.remove(dogs[0]) }
        XCTAssertEqual(any.count, 2)
        XCTAssertEqual(AnyRealmCollection(MutableSet<Int>()).count, 0)
    }

    func testSetCodableRoundTrip() throws {
        let itinerary = Itinerary()
        itinerary.title = "Trip"
        itinerary.cities.insert(objectsIn: ["Oslo", "Bergen", "Oslo"])
        itinerary.nights["Oslo"] = 2
        itinerary.nights["Bergen"] = 1
        itinerary.notes["Oslo"] = "rain"
        itinerary.notes["Bergen"] = .some(nil)
        let data = try JSONEncoder().encode(itinerary)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(json["cities"] as? [String], ["Oslo", "Bergen"])
        XCTAssertEqual(json["nights"] as? [String: Int], ["Oslo": 2, "Bergen": 1])
        let decoded = try JSONDecoder().decode(Itinerary.self, from: data)
        XCTAssertEqual(Array(decoded.cities), ["Oslo", "Bergen"])
        XCTAssertEqual(decoded.nights["Bergen"], 1)
        XCTAssertEqual(decoded.notes["Oslo"], "rain")
        XCTAssertEqual(decoded.notes.count, 2)
        XCTAssertEqual(decoded.notes["Bergen"], .some(nil))

        let realm = try Realm()
        try realm.write { realm.add(decoded) }
        let managedData = try JSONEncoder().encode(decoded)
        let again = try JSONDecoder().decode(Itinerary.self, from: managedData)
        XCTAssertEqual(Array(again.cities), ["Bergen", "Oslo"])
        XCTAssertEqual(again.nights.asKeyValueSequence().map { "\($0.key)=\($0.value)" }, ["Bergen=1", "Oslo=2"])
        XCTAssertEqual(again.notes["Bergen"], .some(nil))
        let setData = try JSONEncoder().encode(decoded.cities)
        XCTAssertEqual(String(decoding: setData, as: UTF8.self), #"["Bergen","Oslo"]"#)
        XCTAssertEqual(Array(try JSONDecoder().decode(MutableSet<String>.self, from: Data(#"["a","b","a"]"#.utf8))), ["a", "b"])
        let mapData = try JSONEncoder().encode(decoded.nights)
        XCTAssertEqual(try JSONDecoder().decode([String: Int].self, from: mapData), ["Oslo": 2, "Bergen": 1])
        let map = try JSONDecoder().decode(Map<String, Int>.self, from: Data(#"{"b":2,"a":1}"#.utf8))
        XCTAssertEqual(map.keys, ["a", "b"])
    }

    // MARK: - Map: the Map page, member by member

    /// Every member of the Map page, in the page's order, on the page's
    /// `myObject.stringMap` and a map of students.
    func testMapPageMembers() throws {
        let realm = try Realm()
        let myObject = MapPageObject()

        // init(): an unmanaged map, never frozen, never invalidated.
        let fresh = Map<String, String>()
        XCTAssertNil(fresh.realm)
        XCTAssertFalse(fresh.isInvalidated)
        XCTAssertFalse(fresh.isFrozen)
        XCTAssertEqual(fresh.count, 0)

        try realm.write { realm.add(myObject) }
        let myStringMap = myObject.stringMap
        // realm, isInvalidated
        XCTAssertEqual(myStringMap.realm, realm)
        XCTAssertFalse(myStringMap.isInvalidated)

        // The observe example's write, and what its initial notification prints.
        try! realm.write {
            myStringMap["nameOfDog"] = "Rex"
        }
        print("myStringMap.count: \(myStringMap.count)")
        print("Dog Name: \(String(describing: myStringMap["nameOfDog"]))") // => "Rex"
        XCTAssertEqual(myStringMap.count, 1)
        XCTAssertEqual(myStringMap["nameOfDog"], "Rex")

        // updateValue(_:forKey:) adds or replaces.
        try realm.write {
            myStringMap.updateValue("Ace", forKey: "other")
            myStringMap.updateValue("Rex II", forKey: "nameOfDog")
        }
        // keys, values, count: in key order.
        XCTAssertEqual(myStringMap.keys, ["nameOfDog", "other"])
        XCTAssertEqual(myStringMap.values, ["Rex II", "Ace"])
        XCTAssertEqual(myStringMap.count, 2)

        // merge(_:uniquingKeysWith:) with a dictionary (a sequence of key-value pairs) and with a map.
        try realm.write {
            myStringMap.merge(["other": "Bo", "third": "Cy"]) { current, new in current + "+" + new }
        }
        XCTAssertEqual(myStringMap["other"], "Ace+Bo")
        XCTAssertEqual(myStringMap["third"], "Cy")
        let more = Map<String, String>()
        more["third"] = "Cz"
        more["fourth"] = "Di"
        try realm.write { myStringMap.merge(more) { current, _ in current } }
        XCTAssertEqual(myStringMap["third"], "Cy")
        XCTAssertEqual(myStringMap["fourth"], "Di")
        let before = myStringMap.values
        try realm.write { myStringMap.merge(myStringMap) { current, _ in current } }
        XCTAssertEqual(myStringMap.values, before, "a map merged into itself")
        try realm.write { myStringMap.merge([(key: "fifth", value: "E")]) { $1 } }
        XCTAssertEqual(myStringMap.count, 5)

        // removeObject(for:): only if present.
        try realm.write {
            myStringMap.removeObject(for: "fifth")
            myStringMap.removeObject(for: "absent")
        }
        XCTAssertEqual(myStringMap.keys, ["fourth", "nameOfDog", "other", "third"])

        // subscript: get, set, nil removes the key.
        try realm.write {
            myStringMap["third"] = nil
            myStringMap["new"] = "N"
        }
        XCTAssertNil(myStringMap["third"])
        XCTAssertNil(myStringMap["absent"])
        XCTAssertEqual(myStringMap["new"], "N")

        // object(forKey:), value(forKey:), value(forKeyPath:)
        XCTAssertEqual(myStringMap.object(forKey: "new" as AnyObject) as? String, "N")
        XCTAssertNil(myStringMap.object(forKey: "absent" as AnyObject))
        XCTAssertEqual(myStringMap.value(forKey: "nameOfDog") as? String, "Rex II")
        XCTAssertNil(myStringMap.value(forKey: "absent"))
        XCTAssertEqual(myStringMap.value(forKeyPath: "other") as? String, "Ace+Bo")
        XCTAssertEqual(myStringMap.value(forKeyPath: "@count") as? Int, 4)

        // setValue(_:forKey:)
        try realm.write { myStringMap.setValue("S", forKey: "set") }
        XCTAssertEqual(myStringMap["set"], "S")
        try realm.write { myStringMap.setValue(nil, forKey: "set") }
        XCTAssertNil(myStringMap["set"])

        // contains(where:)
        XCTAssertTrue(myStringMap.contains { key, value in key == "new" && value == "N" })
        XCTAssertFalse(myStringMap.contains { _, value in value == "absent" })

        // sorted(byKeyPath:ascending:) and sorted(by:): the page's students example.
        let students = myObject.students
        try realm.write {
            students["ann"] = Student(value: ["name": "Ann", "age": 20])
            students["bob"] = Student(value: ["name": "Bob", "age": 18])
            students["cat"] = Student(value: ["name": "Cat", "age": 22])
            students["none"] = .some(nil)
        }
        let byAge = students.sorted(byKeyPath: "age", ascending: true)
        XCTAssertEqual(byAge.map { $0?.name }, ["Bob", "Ann", "Cat"], "nil values are left out")
        XCTAssertEqual(students.sorted(byKeyPath: "age", ascending: false).first??.name, "Cat")
        XCTAssertEqual(students.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)]).map { $0?.name }, ["Cat", "Bob", "Ann"])
        XCTAssertEqual(students.sorted(by: \.age, ascending: true).first??.name, "Bob")
        // A map of values sorts its values (by "self").
        XCTAssertEqual(Array(myStringMap.sorted(byKeyPath: "self", ascending: false)), myStringMap.values.sorted(by: >))
        // Live results: a change to the map shows.
        try realm.write { students["dan"] = Student(value: ["name": "Dan", "age": 1]) }
        XCTAssertEqual(byAge.first??.name, "Dan")

        // min/max/sum/average(ofProperty:)
        XCTAssertEqual(students.min(ofProperty: "age") as Int?, 1)
        XCTAssertEqual(students.max(ofProperty: "age") as Int?, 22)
        XCTAssertEqual(students.sum(ofProperty: "age") as Int, 61)
        XCTAssertEqual(students.average(ofProperty: "age") as Double?, 61.0 / 4)
        XCTAssertEqual(students.max(of: \.age), 22)
        XCTAssertEqual(students.sum(of: \.age), 61)
        XCTAssertEqual(students.min(of: \.age), 1)
        XCTAssertEqual(students.average(of: \.age), 15, "the average as the property's type, truncated")
        XCTAssertEqual(students.value(forKeyPath: "@max.age") as? Int, 22)
        XCTAssertEqual(students.value(forKeyPath: "@sum.age") as? Int, 61)
        XCTAssertEqual(students.value(forKeyPath: "@avg.age") as? Double, 61.0 / 4)
        XCTAssertEqual(students.value(forKeyPath: "ann.name") as? String, "Ann")
        XCTAssertTrue(students.value(forKey: "none") is NSNull, "a nil value reads as NSNull")
        XCTAssertNil(students.value(forKeyPath: "none.name"))

        // isFrozen, freeze(), thaw()
        let frozen = myStringMap.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(myStringMap.isFrozen)
        try realm.write { myStringMap["later"] = "L" }
        XCTAssertNil(frozen["later"])
        XCTAssertEqual(frozen.thaw()?["later"], "L")
        XCTAssertTrue(myStringMap.thaw() === myStringMap)

        // description
        XCTAssertTrue(myStringMap.description.hasPrefix("Map<string, string>"), myStringMap.description)
        XCTAssertTrue(myStringMap.description.contains("[new]: N"), myStringMap.description)
        XCTAssertTrue(students.description.contains("Map<string, Student>"), students.description)

        // makeIterator(): SingleMapEntry values in key order.
        var keys: [String] = []
        for entry in myStringMap {
            let single: SingleMapEntry<String, String> = entry
            keys.append(single.key)
            XCTAssertEqual(myStringMap[single.key], single.value)
        }
        XCTAssertEqual(keys, myStringMap.keys)
        // KeyValueSequence: (key, value) pairs.
        var pairs: [String: String] = [:]
        for (key, value) in myStringMap.asKeyValueSequence() { pairs[key] = value }
        XCTAssertEqual(pairs.count, myStringMap.count)
        XCTAssertEqual(pairs["nameOfDog"], "Rex II")

        // init(from:), encode(to:)
        let encoded = try JSONEncoder().encode(myStringMap)
        let decoded = try JSONDecoder().decode(Map<String, String>.self, from: encoded)
        XCTAssertEqual(decoded.keys, myStringMap.keys)
        XCTAssertEqual(decoded.values, myStringMap.values)

        // removeAll(): the students stay in the realm.
        try realm.write { students.removeAll() }
        XCTAssertEqual(students.count, 0)
        XCTAssertEqual(realm.objects(Student.self).count, 4)

        // RealmKeyedCollection: generic code over keyed collections.
        func describe<C: RealmKeyedCollection>(_ collection: C) -> Int { collection.count }
        XCTAssertEqual(describe(myStringMap), myStringMap.count)
    }

    func testGuideMapExample() throws {
        try CRUDGuide.mapExample(self)
    }

    // MARK: - Map against a Swift Dictionary

    func testMapOperationsMatchDictionary() throws {
        let realm = try Realm()
        let owner = ScalarMaps()
        try realm.write { realm.add(owner) }
        var generator = SystemRandomNumberGenerator()
        let keyPool = ["a", "b", "c", "aa", "B", "é", "zz", "a b", "", "10", "9", "-"]
        for map in [Map<String, Int>(), owner.ints] {
            var model: [String: Int] = [:]
            realm.beginWrite()
            for step in 0..<400 {
                let key = keyPool.randomElement(using: &generator)!
                let value = Int.random(in: -50...50, using: &generator)
                switch Int.random(in: 0..<9, using: &generator) {
                case 0, 1:
                    map[key] = value; model[key] = value
                case 2:
                    map.updateValue(value, forKey: key); model.updateValue(value, forKey: key)
                case 3:
                    map[key] = nil; model[key] = nil
                case 4:
                    map.removeObject(for: key); model.removeValue(forKey: key)
                case 5:
                    let other = Dictionary([(key, value), (keyPool.randomElement(using: &generator)!, value * 2)]) { first, _ in first }
                    map.merge(other) { $0 + $1 }; model.merge(other) { $0 + $1 }
                case 6:
                    map.setValue(value, forKey: key); model[key] = value
                case 7 where step % 50 == 0:
                    map.removeAll(); model.removeAll()
                default:
                    map[key] = (map[key] ?? 0) + 1; model[key, default: 0] += 1
                }
                let sortedKeys = model.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                XCTAssertEqual(map.keys, sortedKeys, "step \(step)")
                XCTAssertEqual(map.values, sortedKeys.map { model[$0]! })
                XCTAssertEqual(map.count, model.count)
                XCTAssertEqual(map[key], model[key])
                XCTAssertEqual(map.value(forKey: key) as? Int, model[key])
                XCTAssertEqual(map.contains { $0 == key && $1 == value }, model[key] == value)
                XCTAssertEqual(Dictionary(uniqueKeysWithValues: map.asKeyValueSequence().map { ($0.key, $0.value) }), model)
            }
            try realm.commitWrite()
            XCTAssertEqual(map.min(), model.values.min())
            XCTAssertEqual(map.max(), model.values.max())
            XCTAssertEqual(map.sum(), model.values.reduce(0, +))
            let average: Double? = map.average()
            XCTAssertEqual(average, model.isEmpty ? nil : Double(model.values.reduce(0, +)) / Double(model.count))
            if map.realm != nil {
                // Managed: the values as live results of values, in the library.
                XCTAssertEqual(Array(map.sorted()), model.values.sorted())
                XCTAssertEqual(Array(map.sorted(ascending: false)), model.values.sorted(by: >))
                XCTAssertEqual(Array(map.sorted(byKeyPath: "self")), model.values.sorted())
                XCTAssertEqual(map.sorted(by: [SortDescriptor(keyPath: "self", ascending: false)]).first, model.values.max())
            }
        }
    }

    func testMapIterationReadsInBatches() throws {
        let realm = try Realm()
        let owner = ScalarMaps()
        for i in 0..<1000 { owner.int32s[String(format: "k%04d", i)] = Int32(i) }
        try realm.write { realm.add(owner) }
        var seen = 0
        for (position, entry) in owner.int32s.enumerated() {
            XCTAssertEqual(entry.key, String(format: "k%04d", position))
            XCTAssertEqual(entry.value, Int32(position))
            seen += 1
        }
        XCTAssertEqual(seen, 1000)
        XCTAssertEqual(owner.int32s.asKeyValueSequence().reduce(0) { $0 + Int($1.value) }, 999 * 500)
    }

    // MARK: - Map: values of every type

    func testScalarMapsPersistAcrossReopen() throws {
        let config = fileConfiguration()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let oid = try ObjectId(string: "0123456789abcdef01234567")
        let uuid = try XCTUnwrap(UUID(uuidString: "8C4E5D8C-35B4-4DC2-9B4C-6B4F3C2F3E1A"))
        do {
            let realm = try Realm(configuration: config)
            let maps = ScalarMaps()
            maps.ints["b"] = 2
            maps.ints["a"] = 1
            maps.int8s["x"] = -8
            maps.int16s["x"] = 16
            maps.int32s["x"] = 32
            maps.int64s["x"] = Int64.max
            maps.bools["t"] = true
            maps.bools["f"] = false
            maps.strings["ü"] = "u"
            maps.strings[""] = "empty key"
            maps.datas["d"] = Data([1, 2, 3])
            maps.dates["d"] = date
            maps.floats["f"] = 1.5
            maps.doubles["d"] = -2.5
            maps.decimals["d"] = "12.34"
            maps.objectIds["o"] = oid
            maps.uuids["u"] = uuid
            maps.optInts["one"] = 1
            maps.optInts["nil"] = .some(nil)
            maps.optBools["nil"] = .some(nil)
            maps.optStrings["s"] = "x"
            maps.optDatas["nil"] = .some(nil)
            maps.optDates["d"] = date
            maps.optFloats["nil"] = .some(nil)
            maps.optDoubles["d"] = 4.5
            maps.optDecimals["d"] = "1.5"
            maps.optObjectIds["o"] = oid
            maps.optUUIDs["nil"] = .some(nil)
            maps.moods["m"] = .sad
            maps.levels["l"] = .high
            maps.levels["nil"] = .some(nil)
            maps.temperatures["t"] = Celsius(degrees: 21.5)
            maps.links["home"] = URL(string: "https://example.com/a")!
            try realm.write { realm.add(maps) }
        }
        let realm = try Realm(configuration: config)
        let maps = try XCTUnwrap(realm.objects(ScalarMaps.self).first)
        XCTAssertEqual(maps.ints.keys, ["a", "b"])
        XCTAssertEqual(maps.ints.values, [1, 2])
        XCTAssertEqual(maps.int8s["x"], -8)
        XCTAssertEqual(maps.int16s["x"], 16)
        XCTAssertEqual(maps.int32s["x"], 32)
        XCTAssertEqual(maps.int64s["x"], Int64.max)
        XCTAssertEqual(maps.bools.keys, ["f", "t"])
        XCTAssertEqual(maps.bools["t"], true)
        XCTAssertEqual(maps.strings.keys, ["", "ü"])
        XCTAssertEqual(maps.strings[""], "empty key")
        XCTAssertEqual(maps.datas["d"], Data([1, 2, 3]))
        XCTAssertEqual(maps.dates["d"], date)
        XCTAssertEqual(maps.floats["f"], 1.5)
        XCTAssertEqual(maps.doubles["d"], -2.5)
        XCTAssertEqual(maps.decimals["d"], "12.34")
        XCTAssertEqual(maps.objectIds["o"], oid)
        XCTAssertEqual(maps.uuids["u"], uuid)
        XCTAssertEqual(maps.optInts.keys, ["nil", "one"])
        XCTAssertEqual(maps.optInts["nil"], .some(nil))
        XCTAssertEqual(maps.optInts["one"], 1)
        XCTAssertEqual(maps.optInts.values, [nil, 1])
        XCTAssertEqual(maps.optBools["nil"], .some(nil))
        XCTAssertEqual(maps.optStrings["s"], "x")
        XCTAssertEqual(maps.optDatas["nil"], .some(nil))
        XCTAssertEqual(maps.optDates["d"], date)
        XCTAssertEqual(maps.optFloats["nil"], .some(nil))
        XCTAssertEqual(maps.optDoubles["d"], 4.5)
        XCTAssertEqual(maps.optDecimals["d"], "1.5")
        XCTAssertEqual(maps.optObjectIds["o"], oid)
        XCTAssertEqual(maps.optUUIDs.count, 1)
        XCTAssertEqual(maps.moods["m"], .sad)
        XCTAssertEqual(maps.levels["l"], .high)
        XCTAssertEqual(maps.levels["nil"], .some(nil))
        XCTAssertEqual(maps.temperatures["t"]?.degrees, 21.5)
        XCTAssertEqual(maps.links["home"]?.absoluteString, "https://example.com/a")
        // KVC answers stored values: an enum's raw value, a custom type's persisted value.
        XCTAssertEqual(maps.moods.value(forKey: "m") as? String, "SAD")
        XCTAssertEqual(maps.temperatures.value(forKey: "t") as? Double, 21.5)
        XCTAssertEqual(maps.optInts.sum(), 1)
        XCTAssertEqual(maps.optInts.average() as Double?, 1)
        XCTAssertEqual(maps.levels.max(), .high)
        XCTAssertEqual(maps.decimals.sum(), "12.34")
        XCTAssertEqual(Array(maps.optInts.sorted()), [nil, 1])
        XCTAssertEqual(maps.dates.max(), date)
        XCTAssertEqual(maps.floats.sum(), 1.5)

        let schema = try XCTUnwrap(realm.schema["ScalarMaps"])
        XCTAssertEqual(schema["ints"]?.isMap, true)
        XCTAssertEqual(schema["ints"]?.isSet, false)
        XCTAssertEqual(schema["optStrings"]?.isOptional, true)
        XCTAssertTrue(String(describing: schema["ints"]!).contains("map = YES"))
        XCTAssertTrue(schema.description.contains("optInts: Map<String, int?>"), schema.description)
        XCTAssertEqual(realm.schema["Kennel"]?["dogsByName"]?.objectClassName, "Dog")
        XCTAssertEqual(realm.schema["Kennel"]?["dogsByName"]?.isMap, true)
        XCTAssertEqual(realm.schema["Kennel"]?["dogsByName"]?.isOptional, true)
    }

    func testMapOfOptionalValues() throws {
        let realm = try Realm()
        let maps = ScalarMaps()
        for map in [Map<String, String?>(), maps.optStrings] {
            if map.realm == nil { try realm.write { realm.add(maps) } }
            realm.beginWrite()
            map["a"] = nil                 // removes (nothing to remove)
            XCTAssertEqual(map.count, 0)
            map["a"] = .some(nil)          // stores nil
            XCTAssertEqual(map.count, 1)
            XCTAssertEqual(map["a"], .some(nil))
            XCTAssertEqual(map.keys, ["a"])
            XCTAssertTrue(map.value(forKey: "a") is NSNull)
            map.setValue("x", forKey: "b")
            map.setValue(NSNull(), forKey: "c")
            XCTAssertEqual(map["c"], .some(nil))
            map.updateValue(nil, forKey: "d")
            XCTAssertEqual(map.values, [nil, "x", nil, nil])
            map.setValue(nil, forKey: "c")   // removes
            map["a"] = nil                   // removes
            XCTAssertEqual(map.keys, ["b", "d"])
            try realm.commitWrite()
        }
    }

    // MARK: - Map of objects and of embedded objects

    func testMapOfObjects() throws {
        let realm = try Realm()
        let dogs = try addDogs(realm)   // Rex 10, Fido 1, Spot 3, Bella 1, Wolfie 7
        let kennel = Kennel(id: 1, name: "K")
        try realm.write {
            realm.add(kennel)
            kennel.dogsByName["rex"] = dogs[0]
            kennel.dogsByName["spot"] = dogs[2]
            kennel.dogsByName["alias"] = dogs[0]
            kennel.dogsByName["none"] = .some(nil)
            kennel.dogsByName["pup"] = Dog(name: "Pup", age: 0)
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 6, "an unmanaged object set in a managed map is added")
        XCTAssertEqual(kennel.dogsByName.keys, ["alias", "none", "pup", "rex", "spot"])
        XCTAssertEqual(kennel.dogsByName.values.map { $0?.name }, ["Rex", nil, "Pup", "Rex", "Spot"])
        XCTAssertEqual(kennel.dogsByName["rex"]??.age, 10)
        XCTAssertEqual(kennel.dogsByName.sorted(byKeyPath: "age").map { $0?.name }, ["Pup", "Spot", "Rex", "Rex"])
        XCTAssertEqual(kennel.dogsByName.min(ofProperty: "age") as Int?, 0)
        XCTAssertEqual(kennel.dogsByName.sum(ofProperty: "age") as Int, 23)
        XCTAssertEqual(kennel.dogsByName.value(forKeyPath: "spot.age") as? Int, 3)
        XCTAssertTrue(kennel.dogsByName.value(forKey: "rex") === dogs[0] || (kennel.dogsByName.value(forKey: "rex") as? Dog)?.name == "Rex")
        XCTAssertTrue(kennel.dogsByName.description.contains("[spot]: Dog {"), kennel.dogsByName.description)

        // Deleting an object sets the values that point to it to nil; the keys stay.
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(kennel.dogsByName.count, 5)
        XCTAssertEqual(kennel.dogsByName["rex"], .some(nil))
        XCTAssertEqual(kennel.dogsByName["alias"], .some(nil))
        XCTAssertEqual(kennel.dogsByName.values.compactMap { $0?.name }, ["Pup", "Spot"])

        // Deleting the map's objects: the keys stay, with nil.
        try realm.write { realm.delete(kennel.dogsByName) }
        XCTAssertEqual(kennel.dogsByName.count, 5)
        XCTAssertTrue(kennel.dogsByName.values.allSatisfy { $0 == nil })
        XCTAssertEqual(realm.objects(Dog.self).map(\.name).sorted(), ["Bella", "Fido", "Wolfie"])
    }

    func testEmbeddedMapValues() throws {
        let realm = try Realm()
        let kennel = Kennel(id: 1, name: "K")
        let oslo = address("Quay 1", "Oslo")
        kennel.offices["oslo"] = oslo
        try realm.write { realm.add(kennel) }
        XCTAssertTrue(oslo.realm != nil, "the unmanaged embedded object became the map's object")
        XCTAssertEqual(kennel.offices["oslo"]??.city, "Oslo")

        let bergen = address("Pier 2", "Bergen")
        try realm.write { kennel.offices["bergen"] = bergen }
        XCTAssertTrue(bergen.realm != nil)
        try realm.write { bergen.street = "Pier 3" }
        XCTAssertEqual(kennel.offices["bergen"]??.street, "Pier 3")

        // A managed embedded object is copied through an unmanaged copy (as
        // in RealmSwift, assigning it itself traps: see ObjectCopyingTests).
        try realm.write { kennel.offices["copy"] = Address(value: kennel.offices["oslo"]!!) }
        let copy = try XCTUnwrap(kennel.offices["copy"] ?? nil)
        XCTAssertEqual(copy.city, "Oslo")
        try realm.write { copy.city = "Oslo 2" }
        XCTAssertEqual(oslo.city, "Oslo", "the copy is another object")

        // Replacing a value, setting nil, removing a key: the old object is deleted.
        try realm.write { kennel.offices["oslo"] = address("New quay", "Oslo") }
        XCTAssertTrue(oslo.isInvalidated)
        XCTAssertEqual(kennel.offices["oslo"]??.street, "New quay")
        try realm.write { kennel.offices["bergen"] = .some(nil) }
        XCTAssertTrue(bergen.isInvalidated)
        XCTAssertEqual(kennel.offices["bergen"], .some(nil))
        try realm.write { kennel.offices.removeObject(for: "copy") }
        XCTAssertTrue(copy.isInvalidated)
        XCTAssertEqual(kennel.offices.keys, ["bergen", "oslo"])

        // Assigning a map: its own contents, another object's map, a dictionary.
        try realm.write { kennel.offices = kennel.offices }
        XCTAssertEqual(kennel.offices["oslo"]??.street, "New quay")
        let other = try realm.write {
            realm.create(Kennel.self, value: ["id": 2, "offices": ["tromsø": ["street": "Dock 3", "city": "Tromsø"], "gone": nil]])
        }
        XCTAssertEqual(other.offices["tromsø"]??.city, "Tromsø")
        XCTAssertEqual(other.offices["gone"], .some(nil))
        try realm.write { other.offices = kennel.offices }
        XCTAssertEqual(other.offices["oslo"]??.street, "New quay")
        XCTAssertEqual(kennel.offices["oslo"]??.street, "New quay", "the source keeps its objects")
        try realm.write { other.setValue(["x": ["city": "X"]], forKey: "offices") }
        XCTAssertEqual(other.offices.keys, ["x"])
        XCTAssertEqual(other.offices.value(forKeyPath: "x.city") as? String, "X")

        // Deleting the owner deletes its embedded values.
        let held = try XCTUnwrap(kennel.offices["oslo"] ?? nil)
        try realm.write { realm.delete(kennel) }
        XCTAssertTrue(held.isInvalidated)
        XCTAssertTrue(kennel.offices.isInvalidated)
    }

    private func address(_ street: String, _ city: String) -> Address {
        let address = Address()
        address.street = street
        address.city = city
        return address
    }

    // MARK: - Map: becoming managed, create, KVC

    func testMapPromotionCreateAndKVC() throws {
        let realm = try Realm()
        let kennel = Kennel(id: 1, name: "K")
        let rex = Dog(name: "Rex", age: 3)
        kennel.dogsByName["rex"] = rex
        let map = kennel.dogsByName
        try realm.write { realm.add(kennel) }
        XCTAssertTrue(map === kennel.dogsByName, "the same Map instance is live after add")
        XCTAssertNotNil(rex.realm)
        XCTAssertEqual(map["rex"]??.name, "Rex")
        let stored = try XCTUnwrap(realm.object(ofType: Kennel.self, forPrimaryKey: 1))
        XCTAssertTrue(stored.dogsByName === stored.dogsByName)
        XCTAssertEqual(stored.dogsByName, map, "the same managed map")

        // create with nested dictionaries; KVC on the object.
        let created = try realm.write {
            realm.create(Kennel.self, value: ["id": 2, "dogsByName": ["ace": ["name": "Ace", "age": 1], "rex": rex, "nobody": NSNull()]])
        }
        XCTAssertEqual(created.dogsByName.keys, ["ace", "nobody", "rex"])
        XCTAssertEqual(created.dogsByName["ace"]??.name, "Ace")
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        XCTAssertTrue((created.value(forKey: "dogsByName") as? Map<String, Dog?>) == created.dogsByName)
        try realm.write { created["dogsByName"] = ["only": rex] }
        XCTAssertEqual(created.dogsByName.keys, ["only"])
        try realm.write { realm.create(Kennel.self, value: ["id": 2, "dogsByName": [String: Any]()], update: .modified) }
        XCTAssertEqual(created.dogsByName.count, 0)

        // Object(value:) with a dictionary, unmanaged.
        let unmanaged = ScalarMaps(value: ["id": 7, "strings": ["k": "v"], "optInts": ["n": NSNull(), "one": 1]])
        XCTAssertEqual(unmanaged.strings["k"], "v")
        XCTAssertEqual(unmanaged.optInts["n"], .some(nil))
        XCTAssertEqual(unmanaged.optInts.keys, ["n", "one"])
        unmanaged.setValue(["k2": "v2"], forKey: "strings")
        XCTAssertEqual(unmanaged.strings.keys, ["k2"])
        let held = unmanaged.strings
        unmanaged.strings = Map<String, String>()
        XCTAssertTrue(unmanaged.strings === held, "assigning keeps the instance and replaces the contents")
        XCTAssertEqual(held.count, 0)
    }

    func testFrozenMaps() throws {
        let realm = try Realm()
        let kennel = Kennel(id: 1, name: "K")
        kennel.dogsByName["rex"] = Dog(name: "Rex", age: 3)
        try realm.write { realm.add(kennel) }
        let frozen = kennel.dogsByName.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertTrue(frozen.freeze() === frozen)
        try realm.write { kennel.dogsByName["ace"] = Dog(name: "Ace", age: 1) }
        XCTAssertEqual(frozen.keys, ["rex"])
        XCTAssertTrue(frozen["rex"]??.isFrozen ?? false)
        XCTAssertEqual(frozen.sorted(byKeyPath: "age").count, 1)
        let frozenKennel = kennel.freeze()
        XCTAssertEqual(frozenKennel.dogsByName.count, 2)
        XCTAssertTrue(frozenKennel.dogsByName.isFrozen)
        XCTAssertEqual(frozen.thaw()?.count, 2)
        try realm.write { realm.delete(kennel) }
        XCTAssertNil(frozen.thaw())
        XCTAssertTrue(kennel.dogsByName.isInvalidated)
        XCTAssertEqual(frozenKennel.dogsByName.keys, ["ace", "rex"])
    }

    // MARK: - Copies

    /// Realm.writeCopy (fief_realm_write_copy) keeps sets and maps: values,
    /// links (with their backlinks: deleting a dog in the copy takes it out),
    /// embedded map values.
    func testWriteCopyKeepsSetsAndMaps() throws {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [Kennel.self, Dog.self, DogToy.self, Address.self]))
        let kennel = Kennel(id: 1, name: "K")
        kennel.tags.insert(objectsIn: ["a", "b"])
        kennel.dogs.insert(objectsIn: [Dog(name: "Rex", age: 3), Dog(name: "Ace", age: 1)])
        kennel.dogsByName["rex"] = kennel.dogs.first
        kennel.offices["oslo"] = address("Quay 1", "Oslo")
        try realm.write { realm.add(kennel) }
        let copyURL = directory.appendingPathComponent("copy.realm")
        try realm.writeCopy(toFile: copyURL)
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL, objectTypes: [Kennel.self, Dog.self, DogToy.self, Address.self]))
        let copied = try XCTUnwrap(copy.object(ofType: Kennel.self, forPrimaryKey: 1))
        XCTAssertEqual(Array(copied.tags), ["a", "b"])
        XCTAssertEqual(Set(copied.dogs.map(\.name)), ["Rex", "Ace"])
        XCTAssertEqual(copied.dogsByName.keys, ["rex"])
        XCTAssertEqual(copied.offices["oslo"]??.city, "Oslo")
        let rex = try XCTUnwrap(copy.objects(Dog.self).filter("name == 'Rex'").first)
        try copy.write { copy.delete(rex) }
        XCTAssertEqual(copied.dogs.map(\.name), ["Ace"])
        XCTAssertEqual(copied.dogsByName["rex"], .some(nil))
    }

    // MARK: - The dynamic API

    /// Lists, sets and maps of a class known only by name: values as
    /// `List<Int>`/`MutableSet<String>`/`Map<String, T>`, objects as
    /// `DynamicObject`s; read, written, queried, created from nested values.
    func testDynamicCollections() throws {
        let realm = try Realm(configuration: fileConfiguration())
        let kennel = Kennel(id: 1, name: "K")
        kennel.tags.insert("a")
        kennel.dogs.insert(Dog(name: "Rex", age: 3))
        kennel.dogsByName["rex"] = kennel.dogs.first
        kennel.offices["oslo"] = address("Quay 1", "Oslo")
        let person = Person(id: 1, name: "Ann")
        person.dogs.append(Dog(name: "Ace", age: 1))
        try realm.write { realm.add([kennel, person] as [Object]) }

        let dynamic = try XCTUnwrap(realm.dynamicObject(ofType: "Kennel", forPrimaryKey: 1))
        let tags = try XCTUnwrap(dynamic["tags"] as? MutableSet<String>)
        XCTAssertEqual(Array(tags), ["a"])
        let dogs = try XCTUnwrap(dynamic.dogs as? MutableSet<DynamicObject>)
        XCTAssertEqual(dogs.map { $0["name"] as? String }, ["Rex"])
        XCTAssertEqual(dogs.filter("age > 2").count, 1)
        XCTAssertEqual(dogs.first?.objectSchema.className, "Dog")
        let byName = try XCTUnwrap(dynamic["dogsByName"] as? Map<String, DynamicObject?>)
        XCTAssertEqual(byName["rex"]??["age"] as? Int, 3)
        XCTAssertEqual(byName.sorted(byKeyPath: "age").count, 1)
        XCTAssertEqual(byName.max(ofProperty: "age") as Int?, 3)
        let offices = try XCTUnwrap(dynamic["offices"] as? Map<String, DynamicObject?>)
        XCTAssertEqual(offices["oslo"]??["city"] as? String, "Oslo")
        let personDogs = try XCTUnwrap(realm.dynamicObject(ofType: "Person", forPrimaryKey: 1)?["dogs"] as? List<DynamicObject>)
        XCTAssertEqual(personDogs.map { $0["name"] as? String }, ["Ace"])
        XCTAssertEqual(personDogs.sorted(byKeyPath: "name").count, 1)

        let ace = try XCTUnwrap(personDogs.first)
        try realm.write {
            tags.insert("b")
            dogs.insert(ace)
            byName["ace"] = ace
            dynamic["tags"] = ["x", "y"]
            realm.dynamicCreate("Kennel", value: ["id": 2, "name": "D", "tags": ["t"],
                                                 "dogs": [["name": "Dyn", "age": 5], ace],
                                                 "dogsByName": ["map": ["name": "Map", "age": 2], "none": NSNull()]])
        }
        XCTAssertEqual(kennel.tags.sorted(), ["x", "y"])
        XCTAssertEqual(kennel.dogs.map(\.name), ["Rex", "Ace"])
        XCTAssertEqual(kennel.dogsByName.keys, ["ace", "rex"])
        let created = try XCTUnwrap(realm.object(ofType: Kennel.self, forPrimaryKey: 2))
        XCTAssertEqual(Array(created.tags), ["t"])
        XCTAssertEqual(Set(created.dogs.map(\.name)), ["Dyn", "Ace"])
        XCTAssertEqual(created.dogsByName["map"]??.name, "Map")
        XCTAssertEqual(created.dogsByName["none"], .some(nil))
        XCTAssertEqual(realm.objects(Dog.self).count, 4)
    }

    // MARK: - Traps

    func testTraps() {
        assertTraps("mapKeyWithDot", message: "Invalid key 'a.b' for Map 'ScalarMaps.ints'")
        assertTraps("mapKeyWithDollar", message: "Invalid key '$x' for Map 'ScalarMaps.ints'")
        assertTraps("mapKeyBadOnAdd", message: "Invalid key 'x.y'")
        assertTraps("mapKeyBadInCreate", message: "Invalid key '$ref'")
        assertTraps("mapKeyBadInMerge", message: "Invalid key 'a.'")
        assertTraps("mapSortValuesByProperty", message: "Cannot sort")
        assertTraps("mapSortUnmanaged", message: "Cannot sort an unmanaged Map")
        assertTraps("mapWriteOutsideTransaction", message: "outside of a write transaction")
        assertTraps("mapInvalidated", message: "Access to invalidated Dictionary object")
        assertTraps("mapFreezeUnmanaged", message: "This method may only be called on RLMDictionary instances retrieved from an RLMRealm")
        assertTraps("mapWrongValue", message: "Invalid value")
        assertTraps("setIndexOutOfBounds", message: "Index 3 is out of bounds (must be less than 2)")
        assertTraps("unmanagedSetIndexOutOfBounds", message: "Index 5 is out of bounds (must be less than 1)")
        assertTraps("setWriteOutsideTransaction", message: "outside of a write transaction")
        assertTraps("setInvalidated", message: "Access to invalidated Set object")
        assertTraps("setSortUnmanaged", message: "Cannot sort an unmanaged MutableSet")
        assertTraps("setFilterUnmanaged", message: "Cannot filter an unmanaged MutableSet")
        assertTraps("setFreezeUnmanaged", message: "This method may only be called on RLMSet instances retrieved from an RLMRealm")
        assertTraps("setWrongValue", message: "Invalid value")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "mapKeyWithDot": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            try realm.write { realm.add(maps) }
            try realm.write { maps.ints["a.b"] = 1 }
        },
        "mapKeyWithDollar": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            try realm.write { realm.add(maps) }
            try realm.write { maps.ints.updateValue(1, forKey: "$x") }
        },
        "mapKeyBadOnAdd": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            maps.strings["x.y"] = "accepted while unmanaged"
            try realm.write { realm.add(maps) }
        },
        "mapKeyBadInCreate": { _ in
            let realm = try Realm()
            try realm.write { realm.create(Kennel.self, value: ["id": 1, "dogsByName": ["$ref": ["name": "Rex"]]]) }
        },
        "mapKeyBadInMerge": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            try realm.write { realm.add(maps) }
            try realm.write { maps.ints.merge(["ok": 1, "a.": 2]) { $1 } }
        },
        "mapSortValuesByProperty": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            try realm.write { realm.add(maps) }
            _ = maps.ints.sorted(byKeyPath: "age")
        },
        "mapSortUnmanaged": { _ in
            _ = Map<String, Student?>().sorted(byKeyPath: "age")
        },
        "mapWriteOutsideTransaction": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            try realm.write { realm.add(maps) }
            maps.ints["a"] = 1
        },
        "mapInvalidated": { _ in
            let realm = try Realm()
            let maps = ScalarMaps()
            try realm.write { realm.add(maps) }
            let ints = maps.ints
            try realm.write { realm.delete(maps) }
            _ = ints.count
        },
        "mapFreezeUnmanaged": { _ in
            _ = Map<String, Int>().freeze()
        },
        "mapWrongValue": { _ in
            Map<String, Int>().setValue("seven", forKey: "k")
        },
        "setIndexOutOfBounds": { _ in
            let realm = try Realm()
            let sets = ScalarSets()
            sets.ints.insert(objectsIn: [1, 2])
            try realm.write { realm.add(sets) }
            _ = sets.ints[3]
        },
        "unmanagedSetIndexOutOfBounds": { _ in
            let set = MutableSet<String>()
            set.insert("a")
            _ = set[5]
        },
        "setWriteOutsideTransaction": { _ in
            let realm = try Realm()
            let sets = ScalarSets()
            try realm.write { realm.add(sets) }
            sets.ints.insert(1)
        },
        "setInvalidated": { _ in
            let realm = try Realm()
            let sets = ScalarSets()
            try realm.write { realm.add(sets) }
            let ints = sets.ints
            try realm.write { realm.delete(sets) }
            _ = ints.count
        },
        "setSortUnmanaged": { _ in
            let set = MutableSet<Int>()
            set.insert(1)
            _ = set.sorted(ascending: false)
        },
        "setFilterUnmanaged": { _ in
            _ = Kennel().dogs.filter("age > 1")
        },
        "setFreezeUnmanaged": { _ in
            _ = MutableSet<Int>().freeze()
        },
        "setWrongValue": { _ in
            Kennel().setValue([1, 2], forKey: "tags")
        },
    ]
}

// MARK: - The CRUD-Read guide's set and map examples, as written

// The guide filters with `where { }` (`$0.citiesVisited.contains(...)`,
// `$0.favoriteParksByCity.count >= 1`); Fief's query language does not
// query sets and maps yet, so those two filters run in Swift here.  The
// rest is the guide's code, with its `Dog` (CRUDGuide.Dog).
extension CRUDGuide {
    static func mutableSetExample(_ test: XCTestCase) throws {
        let realm = try! Realm()
        // The guide's data: Maui has visited New York and Toronto; Lita those and Boston.
        let dog = Dog()
        dog.name = "Maui"
        dog.citiesVisited.insert(objectsIn: ["New York", "Toronto"])
        let dog2 = Dog()
        dog2.name = "Lita"
        dog2.citiesVisited.insert(objectsIn: ["New York", "Toronto", "Boston"])
        let stayAtHome = Dog()
        stayAtHome.name = "Homer"
        try! realm.write { realm.add([dog, dog2, stayAtHome]) }

        // Find dogs who have visited New York
        let newYorkDogs = realm.objects(Dog.self).filter {
            $0.citiesVisited.contains("New York")
        }
        // Get some information about the cities they have visited
        for dog in newYorkDogs {
            print("Cities \(dog.name) has visited: \(dog.citiesVisited)")
        }
        // Check whether two dogs have visited some of the same cities.
        // Use "intersects" to find out whether the values of the two sets share common elements.
        let isInBothCitiesVisited = (dog.citiesVisited.intersects(dog2.citiesVisited))
        print("The two dogs have visited some of the same cities: \(isInBothCitiesVisited)")
        // Prints "The two dogs have visited some of the same cities: true"
        // Or you can check whether a set is a subset of another set. In this example,
        // the first dog has visited "New York" and "Toronto", while dog2 has visited both of
        // those but also "Toronto" and "Boston".
        let isSubset = (dog.citiesVisited.isSubset(of: dog2.citiesVisited))
        print("\(dog.name)'s set of cities visited is a subset of \(dog2.name)'s: \(isSubset)")
        // Prints "Maui's set of cities visited is a subset of Lita's: true"

        XCTAssertEqual(newYorkDogs.map(\.name), ["Maui", "Lita"])
        XCTAssertTrue(isInBothCitiesVisited)
        XCTAssertTrue(isSubset)
        XCTAssertFalse(dog2.citiesVisited.isSubset(of: dog.citiesVisited))
        XCTAssertFalse(stayAtHome.citiesVisited.intersects(dog.citiesVisited))
    }

    static func mapExample(_ test: XCTestCase) throws {
        let realm = try! Realm()
        // The guide's data: dogs with and without favorite parks.
        try! realm.write {
            let rex = realm.create(Dog.self, value: ["name": "Rex"])
            rex.favoriteParksByCity["Chicago"] = "Millennium Park"
            rex.favoriteParksByCity["New York"] = "Central Park"
            realm.create(Dog.self, value: ["name": "Lita", "favoriteParksByCity": ["Oslo": "Frogner Park"]])
            realm.create(Dog.self, value: ["name": "Homer"])
        }

        let dogs = realm.objects(Dog.self)
        // Find dogs who have favorite parks
        let dogsWithFavoriteParks = dogs.filter {
            $0.favoriteParksByCity.count >= 1
        }
        var lines: [String] = []
        for dog in dogsWithFavoriteParks {
            // Check if an entry exists
            if dog.favoriteParksByCity.keys.contains("Chicago") {
                print("\(dog.name) has a favorite park in Chicago")
                lines.append("\(dog.name) has a favorite park in Chicago")
            }
            // Iterate over entries
            for element in dog.favoriteParksByCity {
                print("\(dog.name)'s favorite park in \(element.key) is \(element.value)")
                lines.append("\(dog.name)'s favorite park in \(element.key) is \(element.value)")
            }
        }
        XCTAssertEqual(lines, [
            "Rex has a favorite park in Chicago",
            "Rex's favorite park in Chicago is Millennium Park",
            "Rex's favorite park in New York is Central Park",
            "Lita's favorite park in Oslo is Frogner Park",
        ])
    }
}
