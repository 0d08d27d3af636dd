import Fief
import Foundation
import XCTest

/// Nested collections in mixed values (`.list`, `.dictionary`): written
/// recursively from unmanaged ones, read as live collections, replaced,
/// copied, frozen, created from Swift arrays and dictionaries, encoded.
final class NestedMixedCollectionTests: FiefTestCase {
    /// [1, ["a": "x", "b": [true, none]], "end"]
    static var tree: AnyRealmValue {
        .fromArray([.int(1), .fromDictionary(["a": .string("x"), "b": .fromArray([.bool(true), .none])]), .string("end")])
    }

    /// Checks that `value` holds `tree`, as managed (live) collections when `managed`.
    func assertTree(_ value: AnyRealmValue, managed: Bool, file: StaticString = #filePath, line: UInt = #line) {
        guard let list = value.listValue else { return XCTFail("not a list: \(value)", file: file, line: line) }
        XCTAssertEqual(list.realm != nil, managed, file: file, line: line)
        XCTAssertEqual(list.count, 3, file: file, line: line)
        XCTAssertEqual(list[0], .int(1), file: file, line: line)
        XCTAssertEqual(list[2], .string("end"), file: file, line: line)
        guard let map = list[1].dictionaryValue else { return XCTFail("not a dictionary: \(list[1])", file: file, line: line) }
        XCTAssertEqual(map.realm != nil, managed, file: file, line: line)
        XCTAssertEqual(map.keys, ["a", "b"], file: file, line: line)
        XCTAssertEqual(map["a"], .string("x"), file: file, line: line)
        XCTAssertEqual(map["b"]?.listValue.map(Array.init), [.bool(true), .none], file: file, line: line)
        XCTAssertEqual(map["b"]?.listValue?.realm != nil, managed, file: file, line: line)
    }

    func testNestedValuesAreWrittenAndReadToAnyDepth() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1, value: Self.tree)
        holder.legacy.value = Self.tree
        assertTree(holder.value, managed: false)
        try realm.write { realm.add(holder) }
        assertTree(holder.value, managed: true)
        assertTree(holder.legacy.value, managed: true)
        assertTree(try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1)).value, managed: true)
        // Assigned to a managed property.
        try realm.write { holder.value = .fromDictionary(["tree": Self.tree]) }
        assertTree(try XCTUnwrap(holder.value.dictionaryValue?["tree"]), managed: true)
        // Empty nested collections.
        try realm.write { holder.value = .fromArray([]) }
        XCTAssertEqual(holder.value.listValue?.count, 0)
        XCTAssertNotNil(holder.value.listValue?.realm)
        try realm.write { holder.value = .fromDictionary([:]) }
        XCTAssertEqual(holder.value.dictionaryValue?.count, 0)
    }

    func testNestedCollectionsAreLive() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1, value: Self.tree)
        try realm.write { realm.add(holder) }
        let list = try XCTUnwrap(holder.value.listValue)
        let map = try XCTUnwrap(list[1].dictionaryValue)
        try realm.write {
            list.append(.double(2.5))
            list[0] = .fromArray([.int(9)])
            map["c"] = .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
            map["b"]?.listValue?.append(.string("more"))
            map["a"] = nil
        }
        let read = try XCTUnwrap(holder.value.listValue)
        XCTAssertEqual(read.count, 4)
        XCTAssertEqual(read[3], .double(2.5))
        XCTAssertEqual(read[0].listValue.map(Array.init), [.int(9)])
        let readMap = try XCTUnwrap(read[1].dictionaryValue)
        XCTAssertEqual(readMap.keys, ["b", "c"])
        XCTAssertEqual(readMap["b"]?.listValue?.last, .string("more"))
        // Two reads of one nested collection are the same collection.
        XCTAssertEqual(holder.value, holder.value)
        XCTAssertEqual(read[1], list[1])
        XCTAssertNotEqual(read[0], read[1])
        // Writes need a write transaction.
        XCTAssertTrue(list.isFrozen == false && !list.isInvalidated)
    }

    func testReplacingOrDeletingInvalidatesNestedCollections() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1, value: Self.tree)
        holder.values.append(Self.tree)
        holder.byKey["t"] = Self.tree
        try realm.write { realm.add(holder) }
        let list = try XCTUnwrap(holder.value.listValue)
        let inner = try XCTUnwrap(list[1].dictionaryValue)
        let element = try XCTUnwrap(holder.values[0].listValue)
        let mapValue = try XCTUnwrap(holder.byKey["t"]?.listValue)
        try realm.write { holder.value = .int(3) }
        XCTAssertTrue(list.isInvalidated)
        XCTAssertTrue(inner.isInvalidated)
        XCTAssertFalse(element.isInvalidated)
        try realm.write {
            holder.values.removeAll()
            holder.byKey.removeObject(for: "t")
        }
        XCTAssertTrue(element.isInvalidated)
        XCTAssertTrue(mapValue.isInvalidated)
        try realm.write { holder.values.append(Self.tree) }
        let again = try XCTUnwrap(holder.values[0].listValue)
        try realm.write { realm.delete(holder) }
        XCTAssertTrue(again.isInvalidated)
    }

    func testCollectionsOfMixedValuesHoldNestedCollections() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1)
        holder.values.append(objectsIn: [.int(0), Self.tree])
        holder.byKey["tree"] = Self.tree
        try realm.write { realm.add(holder) }
        assertTree(holder.values[1], managed: true)
        assertTree(try XCTUnwrap(holder.byKey["tree"]), managed: true)
        try realm.write {
            holder.values.insert(Self.tree, at: 0)
            holder.values[2] = .fromDictionary(["k": .int(5)])
            holder.byKey["other"] = .fromArray([.string("o")])
        }
        assertTree(holder.values[0], managed: true)
        XCTAssertEqual(holder.values[1], .int(0))
        XCTAssertEqual(holder.values[2].dictionaryValue?["k"], .int(5))
        XCTAssertEqual(holder.byKey["other"]?.listValue?.first, .string("o"))
        // Assigning the list its own contents (read before the list is cleared) keeps the trees.
        try realm.write { holder.setValue(Array(holder.values), forKey: "values") }
        assertTree(holder.values[0], managed: true)
        XCTAssertEqual(holder.values[2].dictionaryValue?["k"], .int(5))
        // Appending an element of the list to itself copies it.
        try realm.write { holder.values.append(holder.values[0]) }
        assertTree(holder.values[3], managed: true)
        try realm.write { holder.values[3].listValue?.append(.int(4)) }
        XCTAssertEqual(holder.values[0].listValue?.count, 3)
        XCTAssertEqual(holder.values[3].listValue?.count, 4)
    }

    func testAssigningAManagedNestedCollectionCopiesIt() throws {
        let realm = try Realm()
        let first = MixedHolder(id: 1, value: Self.tree)
        let second = MixedHolder(id: 2)
        try realm.write { realm.add([first, second]) }
        try realm.write {
            second.value = first.value
            // Its own value, read before the write replaces it.
            first.value = first.value
        }
        assertTree(first.value, managed: true)
        assertTree(second.value, managed: true)
        try realm.write { second.value.listValue?.append(.int(99)) }
        XCTAssertEqual(first.value.listValue?.count, 3)
        XCTAssertEqual(second.value.listValue?.count, 4)
        // A part of one's tree becomes another's value.
        try realm.write { first.value = first.value.listValue![1] }
        XCTAssertEqual(first.value.dictionaryValue?["a"], .string("x"))
    }

    func testUnmanagedObjectsInsideNestedCollectionsAreAdded() throws {
        let realm = try Realm()
        let cat = MixedCat(name: "Tom")
        let holder = MixedHolder(id: 1, value: .fromDictionary(["pets": .fromArray([.object(cat)]), "best": .object(cat)]))
        try realm.write { realm.add(holder) }
        XCTAssertNotNil(cat.realm)
        XCTAssertEqual(realm.objects(MixedCat.self).count, 1)
        let pet = holder.value.dictionaryValue?["pets"]?.listValue?.first?.object(MixedCat.self)
        XCTAssertEqual(pet?.name, "Tom")
        XCTAssertTrue(holder.value.dictionaryValue?["best"]?.object(MixedCat.self)?.isSameObject(as: cat) ?? false)
        // Deleting it takes it out of nested lists and nulls it in nested dictionaries.
        try realm.write { realm.delete(cat) }
        XCTAssertEqual(holder.value.dictionaryValue?["pets"]?.listValue?.count, 0)
        XCTAssertEqual(holder.value.dictionaryValue?["best"], .some(AnyRealmValue.none))
    }

    func testCreateInitValueAndKVCTakeSwiftArraysAndDictionaries() throws {
        let realm = try Realm()
        let input: [String: Any] = ["id": 1, "value": [1, ["a": "x", "b": [true, nil] as [Any?]] as [String: Any], "end"] as [Any]]
        assertTree(MixedHolder(value: input).value, managed: false)
        try realm.write {
            let created = realm.create(MixedHolder.self, value: input)
            assertTree(created.value, managed: true)
            created.setValue(["k": [1, 2]], forKey: "legacy")
            XCTAssertEqual(created.legacy.value.dictionaryValue?["k"]?.listValue.map(Array.init), [.int(1), .int(2)])
            created["value"] = NSArray(array: [1, "two"])
            XCTAssertEqual(created.value.listValue.map(Array.init), [.int(1), .string("two")])
        }
        // KVC gives the nested collection.
        let holder = try XCTUnwrap(realm.object(ofType: MixedHolder.self, forPrimaryKey: 1))
        XCTAssertEqual((holder.value(forKey: "value") as? List<AnyRealmValue>)?.count, 2)
        let dynamic = try XCTUnwrap(realm.dynamicObjects("MixedHolder").first)
        XCTAssertEqual((dynamic["legacy"] as? Map<String, AnyRealmValue>)?.keys, ["k"])
    }

    func testFrozenNestedCollections() throws {
        let realm = try Realm()
        let holder = MixedHolder(id: 1, value: Self.tree)
        try realm.write { realm.add(holder) }
        let list = try XCTUnwrap(holder.value.listValue)
        let frozenList = list.freeze()
        XCTAssertTrue(frozenList.isFrozen)
        let frozenMap = try XCTUnwrap(list[1].dictionaryValue?.freeze())
        let frozenHolder = holder.freeze()
        try realm.write {
            list.append(.int(4))
            list[1].dictionaryValue?["a"] = .string("changed")
        }
        XCTAssertEqual(frozenList.count, 3)
        XCTAssertEqual(frozenMap["a"], .string("x"))
        assertTree(frozenHolder.value, managed: true)
        XCTAssertTrue(frozenHolder.value.listValue?.isFrozen ?? false)
        XCTAssertEqual(frozenList.thaw()?.count, 4)
        XCTAssertEqual(frozenMap.thaw()?["a"], .string("changed"))
    }

    func testCodableEncodesNestedCollections() throws {
        let realm = try Realm()
        let object = CodableMixed()
        object.value = Self.tree
        object.values.append(Self.tree)
        try realm.write { realm.add(object) }
        let decoded = try JSONDecoder().decode(CodableMixed.self, from: JSONEncoder().encode(object))
        assertTree(decoded.value, managed: false)
        assertTree(decoded.values[0], managed: false)
    }

    /// Queries into nested collections: typed (`value[0]`, `value["k"]`,
    /// `.any`) and as text (positions, keys, `[*]`, `@size`, `@type`).
    func testQueriesReadIntoNestedCollections() throws {
        let realm = try Realm()
        try realm.write {
            realm.add(MixedHolder(id: 1, value: Self.tree))
            realm.add(MixedHolder(id: 2, value: .fromDictionary(["k": .fromArray([.int(4), .bool(true)]), "name": .string("two")])))
            realm.add(MixedHolder(id: 3, value: .int(1)))
            let holder = MixedHolder(id: 4)
            holder.values.append(.fromDictionary(["k": .int(7)]))
            holder.byKey["m"] = .fromArray([.int(8), .int(9)])
            realm.add(holder)
        }
        func ids(_ results: Results<MixedHolder>) -> [Int] { results.map(\.id).sorted() }
        let all = realm.objects(MixedHolder.self)
        XCTAssertEqual(ids(all.where { $0.value[0] == .int(1) }), [1])
        XCTAssertEqual(ids(all.where { $0.value["k"][1] == .bool(true) }), [2])
        XCTAssertEqual(ids(all.where { $0.value.any == .string("end") }), [1])
        XCTAssertEqual(ids(all.where { $0.value[1]["b"].any == .none }), [1])
        XCTAssertEqual(ids(all.filter("value[1].a == 'x'")), [1])
        XCTAssertEqual(ids(all.filter("value[1]['b'][FIRST] == true")), [1])
        XCTAssertEqual(ids(all.filter("value[LAST] == %@", "end")), [1])
        XCTAssertEqual(ids(all.filter("value.name BEGINSWITH 't'")), [2])
        XCTAssertEqual(ids(all.filter("value.@size == 3")), [1])
        XCTAssertEqual(ids(all.filter("value[SIZE] == 2")), [2])
        XCTAssertEqual(ids(all.filter("value.@type == 'dictionary'")), [2])
        XCTAssertEqual(ids(all.filter("value[*].@type == 'list'")), [2])
        XCTAssertEqual(ids(all.filter("ANY value.k[*] == 4")), [2])
        XCTAssertEqual(ids(all.filter("NONE value[*] == 1")), [2, 3, 4])
        XCTAssertEqual(ids(all.filter("value[0][0] == nil")), [])
        XCTAssertEqual(ids(all.filter("values[0].k == 7")), [4])
        XCTAssertEqual(ids(all.filter("byKey.m[1] == 9")), [4])
        XCTAssertEqual(ids(all.filter("byKey['m'][*] == {8, 9}")), [4])
    }

    func testMisuseTraps() {
        assertTraps("nestedBadKey", message: "Invalid key 'a.b'")
        assertTraps("nestedOutsideWrite", message: "outside of a write transaction")
        assertTraps("nestedInManagedSet", message: "cannot hold a nested collection")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "nestedBadKey": { _ in
            let realm = try Realm()
            try realm.write { realm.add(MixedHolder(id: 1, value: .fromDictionary(["a.b": .int(1)]))) }
        },
        "nestedOutsideWrite": { _ in
            let realm = try Realm()
            let holder = MixedHolder(id: 1, value: .fromArray([]))
            try realm.write { realm.add(holder) }
            holder.value.listValue?.append(.int(1))
        },
        "nestedInManagedSet": { _ in
            let realm = try Realm()
            let holder = MixedHolder(id: 1)
            try realm.write { realm.add(holder) }
            try realm.write { holder.distinct.insert(.fromDictionary([:])) }
        },
    ]
}
