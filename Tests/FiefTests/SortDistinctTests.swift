import Fief
import Foundation
import XCTest

/// An owner of pets, for sorts and distincts over key paths.
class PetOwner: Object {
    @Persisted var name: String?
    @Persisted var age = 0
    @Persisted var address: Address?
    @Persisted var favorites: List<Pet>
    @Persisted var petSet: MutableSet<Pet>
    @Persisted var scores: List<Int>
    @Persisted var anyScores: List<AnyRealmValue>
    @Persisted(originProperty: "owner") var pets: LinkingObjects<Pet>

    convenience init(_ name: String?, age: Int = 0, city: String? = nil) {
        self.init()
        self.name = name
        self.age = age
        if let city {
            let address = Address()
            address.city = city
            self.address = address
        }
    }
}

class Pet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var owner: PetOwner?
    @Persisted var tag: AnyRealmValue

    convenience init(_ name: String, age: Int = 0, owner: PetOwner? = nil, tag: AnyRealmValue = .none) {
        self.init()
        self.name = name
        self.age = age
        self.owner = owner
        self.tag = tag
    }
}

/// `sorted(byKeyPath:)` and `sorted(by:)` over key paths through links and
/// embedded objects, `distinct(by:)` (RealmSwift's Results page and the
/// CRUD-Read guide's "sort" and "chained queries"), on every collection
/// type that has them, live, and the traps RealmSwift has.
final class SortDistinctTests: FiefTestCase {
    private func names<C: Sequence>(_ pets: C) -> [String] where C.Element == Pet { pets.map(\.name) }

    /// Ann (Oslo), a nameless owner (Bergen), Zed (no address), Émile (Aden);
    /// pets d0...d5 (d1 without an owner).
    private func addPets(_ realm: Realm) throws -> (owners: [PetOwner], pets: [Pet]) {
        let ann = PetOwner("Ann", age: 40, city: "Oslo"), nameless = PetOwner(nil, age: 30, city: "Bergen")
        let zed = PetOwner("Zed", age: 20), emile = PetOwner("Émile", age: 10, city: "Aden")
        let pets = [Pet("d0", age: 1, owner: zed), Pet("d1", age: 2), Pet("d2", age: 3, owner: ann),
                    Pet("d3", age: 4, owner: nameless), Pet("d4", age: 5, owner: emile), Pet("d5", age: 6, owner: ann)]
        try realm.write {
            realm.add([ann, nameless, zed, emile])
            realm.add(pets)
        }
        return ([ann, nameless, zed, emile], pets)
    }

    func testSortByKeyPathsThroughLinksAndEmbeddedObjects() throws {
        let realm = try Realm()
        _ = try addPets(realm)
        let pets = realm.objects(Pet.self)
        // A nil name sorts first ascending; a pet without an owner after every
        // value ascending and before every value descending, as in RealmSwift.
        XCTAssertEqual(names(pets.sorted(byKeyPath: "owner.name")), ["d3", "d2", "d5", "d0", "d4", "d1"])
        XCTAssertEqual(names(pets.sorted(byKeyPath: "owner.name", ascending: false)), ["d1", "d4", "d0", "d2", "d5", "d3"])
        XCTAssertEqual(names(pets.sorted(byKeyPath: "owner.address.city")), ["d4", "d3", "d2", "d5", "d0", "d1"])
        XCTAssertEqual(names(pets.sorted(by: [SortDescriptor(keyPath: "owner.age", ascending: false),
                                              SortDescriptor(keyPath: "age", ascending: false)])),
                       ["d1", "d5", "d2", "d3", "d0", "d4"])
        // Chained: the later sort is the primary key (CRUD-Read, "sort").
        XCTAssertEqual(names(pets.sorted(byKeyPath: "name", ascending: false).sorted(byKeyPath: "owner.name")),
                       ["d3", "d5", "d2", "d0", "d4", "d1"])
        // A filter on sorted results keeps the sort.
        XCTAssertEqual(names(pets.sorted(byKeyPath: "owner.name").filter("age > 2")), ["d3", "d2", "d5", "d4"])
        // RealmSwift has no limit: prefix takes the first ones.
        XCTAssertEqual(names(pets.sorted(byKeyPath: "owner.age").prefix(2)), ["d4", "d0"])
        // Through linking objects and back: the owners sorted by a pet-free key path of their own.
        XCTAssertEqual(realm.objects(PetOwner.self).sorted(byKeyPath: "address.city").map { $0.name ?? "nil" },
                       ["Émile", "nil", "Ann", "Zed"])
    }

    func testDistinctByKeyPaths() throws {
        let realm = try Realm()
        let (owners, _) = try addPets(realm)
        try realm.write {
            realm.add([Pet("d2", age: 7, owner: owners[2], tag: .int(1)), Pet("e", age: 3, tag: .double(1.0)),
                       Pet("f", age: 3, tag: .string("1"))])
        }
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(names(pets.distinct(by: ["age"])), ["d0", "d1", "d2", "d3", "d4", "d5", "d2"])
        XCTAssertEqual(names(pets.distinct(by: ["name"])), ["d0", "d1", "d2", "d3", "d4", "d5", "e", "f"])
        XCTAssertEqual(pets.distinct(by: ["name", "age"]).count, 9)
        XCTAssertEqual(names(pets.distinct(by: [\Pet.name])), ["d0", "d1", "d2", "d3", "d4", "d5", "e", "f"])
        // Through a link: pets without an owner are left out (RealmSwift's distinct by "childIntCol.intCol").
        XCTAssertEqual(names(pets.distinct(by: ["owner.name"])), ["d0", "d2", "d3", "d4"])
        // AnyRealmValue: 1 and 1.0 are one value, "1" another, as are the nils.
        XCTAssertEqual(names(pets.distinct(by: ["tag"])), ["d0", "d2", "f"])
        // Sorted, then distinct: the oldest pet of each name.
        let oldest = pets.sorted(byKeyPath: "age", ascending: false).distinct(by: ["name"])
        XCTAssertEqual(oldest.filter("name == 'd2'").map(\.age), [7])
        XCTAssertEqual(oldest.count, 8)
        // Distinct, then filter: the filter applies first, as in Realm.
        XCTAssertEqual(names(pets.distinct(by: ["age"]).filter("name != 'd2'")), ["d0", "d1", "d3", "d4", "d5", "e"])
    }

    func testResultsFollowTheLinkedObjects() throws {
        let realm = try Realm()
        let (owners, pets) = try addPets(realm)
        let byOwner = realm.objects(Pet.self).sorted(byKeyPath: "owner.name")
        let distinctOwners = realm.objects(Pet.self).distinct(by: ["owner.name"])
        XCTAssertEqual(names(byOwner), ["d3", "d2", "d5", "d0", "d4", "d1"])
        XCTAssertEqual(distinctOwners.count, 4)
        try realm.write { owners[0].name = "Zz" }
        XCTAssertEqual(names(byOwner), ["d3", "d0", "d2", "d5", "d4", "d1"])
        try realm.write { owners[1].name = "Zed" }
        XCTAssertEqual(distinctOwners.count, 3)
        try realm.write { owners[3].address?.city = "Zagreb" }
        XCTAssertEqual(names(realm.objects(Pet.self).sorted(byKeyPath: "owner.address.city")), ["d3", "d2", "d5", "d4", "d0", "d1"])
        try realm.write { pets[1].owner = owners[3] }
        XCTAssertEqual(names(byOwner), ["d0", "d3", "d2", "d5", "d1", "d4"])
        try realm.write { realm.delete(owners[0]) }
        XCTAssertEqual(names(byOwner), ["d0", "d3", "d1", "d4", "d2", "d5"])
        XCTAssertEqual(names(distinctOwners), ["d0", "d1"])
    }

    func testEveryCollectionSortsAndDistinctsByKeyPaths() throws {
        let realm = try Realm()
        let (owners, pets) = try addPets(realm)
        let ann = owners[0]
        try realm.write {
            ann.favorites.append(objectsIn: [pets[4], pets[0], pets[1], pets[0], pets[3]])
            ann.petSet.insert(objectsIn: [pets[4], pets[0], pets[1], pets[3]])
            ann.scores.append(objectsIn: [3, 1, 3, 2, 1])
            ann.anyScores.append(objectsIn: [.int(1), .double(1.0), .string("1"), .none, .none, .float(2)])
        }
        // List: key paths, distinct, in list order.
        XCTAssertEqual(names(ann.favorites.sorted(byKeyPath: "owner.name")), ["d3", "d0", "d0", "d4", "d1"])
        XCTAssertEqual(names(ann.favorites.distinct(by: ["name"])), ["d4", "d0", "d1", "d3"])
        XCTAssertEqual(names(ann.favorites.distinct(by: ["owner.age"])), ["d4", "d0", "d3"])
        XCTAssertEqual(Array(ann.scores.distinct()), [3, 1, 2])
        XCTAssertEqual(Array(ann.scores.distinct(by: ["self"]).sorted(ascending: false)), [3, 2, 1])
        XCTAssertEqual(Array(ann.anyScores.distinct()), [.int(1), .string("1"), .none, .float(2)])
        // MutableSet (in its order).
        XCTAssertEqual(Set(names(ann.petSet.sorted(byKeyPath: "owner.name", ascending: false))), Set(["d1", "d4", "d0", "d3"]))
        XCTAssertEqual(names(ann.petSet.sorted(byKeyPath: "owner.name", ascending: false)).first, "d1")
        XCTAssertEqual(ann.petSet.distinct(by: ["owner.name"]).count, 3)
        // LinkingObjects.
        XCTAssertEqual(names(ann.pets.sorted(byKeyPath: "age", ascending: false)), ["d5", "d2"])
        XCTAssertEqual(ann.pets.distinct(by: ["owner.name"]).count, 1)
        // AnyRealmCollection, over each.
        let any = AnyRealmCollection(realm.objects(Pet.self))
        XCTAssertEqual(names(any.sorted(byKeyPath: "owner.name")), ["d3", "d2", "d5", "d0", "d4", "d1"])
        XCTAssertEqual(names(any.distinct(by: ["owner.name"])), ["d0", "d2", "d3", "d4"])
        XCTAssertEqual(names(AnyRealmCollection(ann.favorites).distinct(by: ["name"])), ["d4", "d0", "d1", "d3"])
        XCTAssertEqual(AnyRealmCollection(ann.scores).distinct().count, 3)
    }

    func testBadKeyPathsTrapAsInRealmSwift() {
        assertTraps("sortByUnknownKeyPath", message: "cannot sort by 'owner.nope': class 'PetOwner' has no property 'nope'")
        assertTraps("sortThroughAList", message: "'PetOwner.favorites' is a list")
        assertTraps("sortByALink", message: "'Pet.owner' is a link")
        assertTraps("distinctByUnknownProperty", message: "cannot distinct by 'nope'")
        assertTraps("distinctOfValuesByAProperty", message: "values are distinct by 'self' alone")
        assertTraps("distinctOfAnUnmanagedList", message: "Cannot distinct an unmanaged List")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "sortByUnknownKeyPath": { _ in _ = try Realm().objects(Pet.self).sorted(byKeyPath: "owner.nope") },
        "sortThroughAList": { _ in _ = try Realm().objects(Pet.self).sorted(byKeyPath: "owner.favorites.name") },
        "sortByALink": { _ in _ = try Realm().objects(Pet.self).sorted(byKeyPath: "owner") },
        "distinctByUnknownProperty": { _ in _ = try Realm().objects(Pet.self).distinct(by: ["nope"]) },
        "distinctOfValuesByAProperty": { _ in
            let realm = try Realm()
            let owner = PetOwner("Ann")
            try realm.write { realm.add(owner) }
            _ = owner.scores.distinct(by: ["age"])
        },
        "distinctOfAnUnmanagedList": { _ in _ = PetOwner("Ann").scores.distinct() },
    ]
}
