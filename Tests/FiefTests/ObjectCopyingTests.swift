import Fief
import Foundation
import XCTest

/// `create` copies what it is given and `add` adopts it, as RealmSwift does
/// (realm-swift's ObjectCreationTests, in our words).
final class ObjectCopyingTests: FiefTestCase {
    private func otherRealm() throws -> Realm {
        try Realm(configuration: fileConfiguration("other.realm"))
    }

    // MARK: Item 9: create copies, add adopts

    func testCreateCopiesAnObjectOfAnotherRealmWithEverythingItLinks() throws {
        let other = try otherRealm()
        let source = try other.write {
            other.create(CopyBag.self, value: [
                "name": "source", "flag": CopyFlag(value: [true]),
                "flags": [CopyFlag(value: [true]), CopyFlag()], "flagSet": [CopyFlag(value: [true]), CopyFlag()],
                "flagMap": ["yes": CopyFlag(value: [true]), "no": CopyFlag()], "numbers": [1, 2, 3],
            ] as [String: Any])
        }
        let realm = try Realm()
        let copy = try realm.write { realm.create(CopyBag.self, value: source) }
        XCTAssertFalse(copy.isSameObject(as: source))
        XCTAssertEqual(copy.realm, realm)
        XCTAssertEqual(copy.name, "source")
        XCTAssertEqual(copy.flag?.flag, true)
        XCTAssertEqual(copy.flag?.realm, realm)
        XCTAssertEqual(copy.flags.map(\.flag), [true, false])
        XCTAssertEqual(copy.flagSet.filter { $0.flag }.count, 1)
        XCTAssertEqual(copy.flagSet.count, 2)
        XCTAssertEqual(copy.flagMap["yes"]??.flag, true)
        XCTAssertEqual(copy.flagMap["no"]??.flag, false)
        XCTAssertEqual(Array(copy.numbers), [1, 2, 3])
        XCTAssertEqual(realm.objects(CopyFlag.self).count, 7, "every linked object copied")
        // The source is untouched, in its own realm.
        XCTAssertEqual(source.realm, other)
        XCTAssertEqual(other.objects(CopyFlag.self).count, 7)
        XCTAssertEqual(source.flags.first?.realm, other)
    }

    func testCreateWithUpdateCopiesObjectsOfAnotherRealmOverExistingKeys() throws {
        for policy in [Realm.UpdatePolicy.all, .modified] {
            let other = try Realm(configuration: fileConfiguration("other-\(policy).realm"))
            let source = try other.write {
                other.create(CopyHolder.self, value: ["primary", NSNull(), [["2", 2] as [Any], ["4", 4]]] as [Any])
            }
            let realm = try Realm(configuration: fileConfiguration("this-\(policy).realm"))
            let updated = try realm.write { () -> CopyHolder in
                realm.create(CopyHolder.self, value: ["primary", ["10", 10] as [Any], [["11", 11] as [Any]]] as [Any])
                return realm.create(CopyHolder.self, value: source, update: policy)
            }
            XCTAssertFalse(updated.isSameObject(as: source))
            XCTAssertEqual(realm.objects(CopyHolder.self).count, 1)
            XCTAssertEqual(Set(realm.objects(CopyKeyed.self).map(\.key)), ["10", "11", "2", "4"])
            XCTAssertNil(updated.keyed)
            XCTAssertEqual(updated.keyedList.map(\.key), ["2", "4"])
            XCTAssertEqual(source.realm, other)
        }
    }

    func testCreateLeavesUnmanagedNestedObjectsUnmanaged() throws {
        let realm = try Realm()
        let standalone = CopyKeyed(value: ["p0", 11])
        let flag = CopyFlag(value: [true])
        let holder = try realm.write { () -> CopyHolder in
            _ = realm.create(CopyBag.self, value: ["name": "bag", "flag": flag, "flags": [flag]] as [String: Any])
            return realm.create(CopyHolder.self, value: ["p1", ["p1", 12] as [Any], [standalone]] as [Any])
        }
        XCTAssertNil(standalone.realm, "the object given is copied, not added")
        XCTAssertNil(flag.realm)
        XCTAssertEqual(realm.objects(CopyKeyed.self).count, 2)
        let p0 = realm.object(ofType: CopyKeyed.self, forPrimaryKey: "p0")
        XCTAssertEqual(p0?.count, 11)
        XCTAssertEqual(holder.keyedList.first, p0)
        XCTAssertEqual(holder.keyed, realm.object(ofType: CopyKeyed.self, forPrimaryKey: "p1"))
        // Two copies of the one unmanaged flag: a link and a list element.
        XCTAssertEqual(realm.objects(CopyFlag.self).count, 2)
    }

    func testCreateWithUpdateUpdatesNestedObjectsByPrimaryKey() throws {
        for policy in [Realm.UpdatePolicy.all, .modified] {
            let realm = try Realm(configuration: fileConfiguration("nested-\(policy).realm"))
            let standalone = CopyKeyed(value: ["primary", 11])
            let holder = try realm.write {
                realm.create(CopyHolder.self, value: ["otherPrimary", ["primary", 12] as [Any], [["primary", 12] as [Any]]] as [Any],
                             update: policy)
            }
            XCTAssertEqual(realm.objects(CopyKeyed.self).count, 1)
            XCTAssertEqual(holder.keyed?.count, 12)
            XCTAssertEqual(holder.keyedList.first, holder.keyed)
            XCTAssertNil(standalone.realm)
        }
    }

    func testCreateCopiesAManagedObjectUnlessAnUpdatePolicyIsGiven() throws {
        let realm = try Realm()
        try realm.write {
            let bag = realm.create(CopyBag.self, value: ["name": "one", "flag": ["flag": true]] as [String: Any])
            let copy = realm.create(CopyBag.self, value: bag)
            XCTAssertFalse(copy.isSameObject(as: bag))
            XCTAssertEqual(copy.name, "one")
            XCTAssertTrue(copy.flag!.isSameObject(as: bag.flag!), "a nested object of this realm is linked, not copied")
            XCTAssertEqual(realm.objects(CopyBag.self).count, 2)

            let holder = realm.create(CopyHolder.self, value: ["key": "h"])
            let same = realm.create(CopyHolder.self, value: holder, update: .modified)
            XCTAssertTrue(same.isSameObject(as: holder))
            XCTAssertTrue(realm.create(CopyHolder.self, value: holder, update: .all).isSameObject(as: holder))
            XCTAssertEqual(realm.objects(CopyHolder.self).count, 1)
        }
    }

    func testCreatingANestedObjectWithAnExistingKeyTraps() {
        assertTraps("createNestedDuplicatePrimaryKey", message: "existing primary key value")
    }

    func testAddingAnObjectLinkingAnObjectOfAnotherRealmTrapsWithRealmSwiftsMessage() {
        assertTraps("addNestedObjectOfAnotherRealm",
                    message: "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
    }

    func testLinkDefaultsAreCreatedWithTheirParent() throws {
        let realm = try Realm()
        let created = try realm.write { realm.create(CopyDefaults.self, value: ["name": "made"]) }
        XCTAssertEqual(created.flag?.flag, true)
        XCTAssertEqual(created.flag?.realm, realm)
        XCTAssertEqual(created.leaf?.value, 5)
        XCTAssertEqual(created.leaf?.realm, realm)
        let again = try realm.write { realm.create(CopyDefaults.self) }
        XCTAssertFalse(again.flag!.isSameObject(as: created.flag!), "each parent gets its own default object")
        XCTAssertEqual(realm.objects(CopyFlag.self).count, 2)

        let added = CopyDefaults()
        try realm.write { realm.add(added) }
        XCTAssertEqual(added.flag?.realm, realm)
        XCTAssertEqual(added.leaf?.value, 5)
        XCTAssertEqual(realm.objects(CopyFlag.self).count, 3)
    }

    func testAddWithUpdateUpdatesNestedObjectsWithAPrimaryKey() throws {
        for policy in [Realm.UpdatePolicy.all, .modified] {
            let realm = try Realm(configuration: fileConfiguration("add-\(policy).realm"))
            let existing = try realm.write { realm.create(CopyKeyed.self, value: ["primary", 1] as [Any]) }
            let holder = CopyHolder(value: ["holder", ["primary", 2] as [Any], [["primary", 2] as [Any], ["fresh", 4] as [Any]]] as [Any])
            try realm.write { realm.add(holder, update: policy) }
            XCTAssertEqual(holder.realm, realm)
            XCTAssertEqual(holder.keyed, existing, "the existing object is updated, not duplicated")
            XCTAssertEqual(existing.count, 2)
            XCTAssertEqual(holder.keyedList.map(\.key), ["primary", "fresh"])
            XCTAssertEqual(realm.objects(CopyKeyed.self).count, 2)

            // Adding the same graph again updates every object once more.
            let again = CopyHolder(value: ["holder", ["primary", 7] as [Any], [] as [Any]] as [Any])
            try realm.write { realm.add(again, update: policy) }
            XCTAssertEqual(existing.count, 7)
            XCTAssertTrue(again.isSameObject(as: holder))
            XCTAssertEqual(holder.keyedList.count, 0)
        }
    }

    func testAddWithUpdateUpdatesObjectsOfAMapByPrimaryKey() throws {
        let realm = try Realm()
        let existing = try realm.write { realm.create(CopyKeyed.self, value: ["primary", 1] as [Any]) }
        let holder = CopyHolder(value: ["key": "h", "keyedMap": ["a": CopyKeyed(value: ["primary", 5] as [Any]), "b": NSNull()] as [String: Any]] as [String: Any])
        try realm.write { realm.add(holder, update: .modified) }
        XCTAssertEqual(existing.count, 5)
        XCTAssertEqual(holder.keyedMap["a"]??.key, "primary")
        XCTAssertEqual(holder.keyedMap["b"], .some(nil))
        XCTAssertEqual(realm.objects(CopyKeyed.self).count, 1)
    }

    // MARK: NSNull for a collection

    func testNSNullForACollectionIsEmpty() throws {
        let realm = try Realm()
        let bag = try realm.write {
            realm.create(CopyBag.self, value: ["name": "empty", "flag": NSNull(), "flags": NSNull(), "flagSet": NSNull(),
                                              "flagMap": NSNull(), "numbers": NSNull()] as [String: Any])
        }
        XCTAssertNil(bag.flag)
        XCTAssertEqual(bag.flags.count, 0)
        XCTAssertEqual(bag.flagSet.count, 0)
        XCTAssertEqual(bag.flagMap.count, 0)
        XCTAssertEqual(bag.numbers.count, 0)
        let tree = try realm.write { realm.create(CopyTree.self, value: ["node": NSNull(), "nodes": NSNull()] as [String: Any]) }
        XCTAssertNil(tree.node)
        XCTAssertEqual(tree.nodes.count, 0)
        // Updating an existing object: NSNull empties the list.
        try realm.write {
            realm.create(CopyHolder.self, value: ["key": "h", "keyedList": [["a", 1] as [Any]]] as [String: Any])
            realm.create(CopyHolder.self, value: ["key": "h", "keyedList": NSNull()] as [String: Any], update: .modified)
        }
        XCTAssertEqual(realm.object(ofType: CopyHolder.self, forPrimaryKey: "h")?.keyedList.count, 0)
    }

    // MARK: Trap scenarios

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "addNestedObjectOfAnotherRealm": { test in
            let other = try Realm(configuration: test.fileConfiguration("other.realm"))
            let flag = try other.write { other.create(CopyFlag.self, value: [true]) }
            let bag = CopyBag()
            bag.flag = flag
            let realm = try Realm()
            realm.beginWrite()
            realm.add(bag)
        },
        "createNestedDuplicatePrimaryKey": { _ in
            let realm = try Realm()
            realm.beginWrite()
            realm.create(CopyHolder.self, value: ["p3", ["p3", 11] as [Any], [CopyKeyed(value: ["p3", 11])]] as [Any])
        },
    ]
}
