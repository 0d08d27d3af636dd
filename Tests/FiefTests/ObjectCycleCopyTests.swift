import Fief
import Foundation
import XCTest

/// A node of a graph with cycles: a to-one link and a list of nodes.
class CycleNode: Object {
    @Persisted var name = ""
    @Persisted var next: CycleNode?
    @Persisted var nodes: List<CycleNode>
}

/// The same with a primary key.
class CycleKeyedNode: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var next: CycleKeyedNode?
    @Persisted var nodes: List<CycleKeyedNode>
}

/// Embedded objects that link to objects.
class EmbeddedLinkParent: Object {
    @Persisted var pet: ScratchEmbeddedPet?
    @Persisted var pets: List<ScratchEmbeddedPet>
}

/// `create(_:value:update:)` given a graph with cycles (A → B → A through a
/// link or a list), unmanaged or managed by another realm.  RealmSwift's
/// copy (realm-core's Object::create with its copy policy) creates each
/// object's row before setting its links and copies every object a link
/// reaches, so a cycle is copied without end there; Fief copies an object
/// reached again along the same path once, and links the copy back, so the
/// copy has the cycle of what was given.  What is given stays as it was.
final class ObjectCycleCopyTests: FiefTestCase {
    private func realm() throws -> Realm {
        try Realm(configuration: fileConfiguration(objectTypes: [CycleNode.self, CycleKeyedNode.self]))
    }

    func testACycleThroughToOneLinksIsCopiedOnce() throws {
        let realm = try realm()
        let a = CycleNode(value: ["name": "A"]), b = CycleNode(value: ["name": "B"])
        a.next = b
        b.next = a
        let copy = try realm.write { realm.create(CycleNode.self, value: a) }
        XCTAssertEqual(realm.objects(CycleNode.self).count, 2)
        XCTAssertEqual(copy.name, "A")
        XCTAssertEqual(copy.next?.name, "B")
        XCTAssertTrue(copy.next?.next?.isSameObject(as: copy) == true)
        // What was given stays unmanaged, its links as they were.
        XCTAssertNil(a.realm)
        XCTAssertNil(b.realm)
        XCTAssertTrue(a.next === b && b.next === a)
    }

    func testAnObjectLinkingItselfIsCopiedOnce() throws {
        let realm = try realm()
        let a = CycleNode(value: ["name": "A"])
        a.next = a
        a.nodes.append(a)
        let copy = try realm.write { realm.create(CycleNode.self, value: a) }
        XCTAssertEqual(realm.objects(CycleNode.self).count, 1)
        XCTAssertTrue(copy.next?.isSameObject(as: copy) == true)
        XCTAssertEqual(copy.nodes.count, 1)
        XCTAssertTrue(copy.nodes[0].isSameObject(as: copy))
    }

    func testACycleThroughListsIsCopiedOnce() throws {
        let realm = try realm()
        let a = CycleNode(value: ["name": "A"]), b = CycleNode(value: ["name": "B"]), c = CycleNode(value: ["name": "C"])
        a.nodes.append(objectsIn: [b, c])
        b.nodes.append(objectsIn: [a, c])
        c.next = a
        let copy = try realm.write { realm.create(CycleNode.self, value: a) }
        // A once, B once; C twice (reached from A and from B: two paths, no
        // cycle, copied twice as RealmSwift copies it), each C linking to A.
        XCTAssertEqual(realm.objects(CycleNode.self).map(\.name).sorted(), ["A", "B", "C", "C"])
        XCTAssertEqual(copy.nodes.map(\.name), ["B", "C"])
        let copyB = try XCTUnwrap(copy.nodes.first)
        XCTAssertEqual(copyB.nodes.map(\.name), ["A", "C"])
        XCTAssertTrue(copyB.nodes[0].isSameObject(as: copy))
        XCTAssertTrue(copy.nodes[1].next?.isSameObject(as: copy) == true)
        XCTAssertTrue(copyB.nodes[1].next?.isSameObject(as: copy) == true)
        XCTAssertFalse(copy.nodes[1].isSameObject(as: copyB.nodes[1]))
        XCTAssertEqual(Array(b.nodes).map { $0 === a }, [true, false], "the objects given keep their lists")
    }

    func testACycleOfObjectsWithPrimaryKeysIsCopiedOnce() throws {
        let realm = try realm()
        let a = CycleKeyedNode(value: ["id": 1, "name": "A"]), b = CycleKeyedNode(value: ["id": 2, "name": "B"])
        a.next = b
        b.nodes.append(objectsIn: [a, b])
        // With `.error`, no object is created twice: no duplicate key.
        let copy = try realm.write { realm.create(CycleKeyedNode.self, value: a) }
        XCTAssertEqual(realm.objects(CycleKeyedNode.self).sorted(byKeyPath: "id").map(\.id), [1, 2])
        XCTAssertEqual(copy.next?.id, 2)
        XCTAssertEqual(copy.next?.nodes.map(\.id), [1, 2])
        XCTAssertTrue(copy.next?.nodes.first?.isSameObject(as: copy) == true)
        // With `.modified`, over the existing objects: updated, linked the same way.
        a.name = "A2"
        b.name = "B2"
        b.next = a
        let updated = try realm.write { realm.create(CycleKeyedNode.self, value: a, update: .modified) }
        XCTAssertTrue(updated.isSameObject(as: copy))
        XCTAssertEqual(realm.objects(CycleKeyedNode.self).count, 2)
        XCTAssertEqual(copy.name, "A2")
        XCTAssertEqual(copy.next?.name, "B2")
        XCTAssertTrue(copy.next?.next?.isSameObject(as: copy) == true)
        XCTAssertNil(a.realm)
    }

    func testACycleManagedByAnotherRealmIsCopied() throws {
        let source = try Realm(configuration: fileConfiguration("source.realm", objectTypes: [CycleNode.self, CycleKeyedNode.self]))
        let (a, keyed) = try source.write { () -> (CycleNode, CycleKeyedNode) in
            let a = source.create(CycleNode.self, value: ["name": "A"])
            let b = source.create(CycleNode.self, value: ["name": "B", "next": a])
            a.next = b
            a.nodes.append(b)
            let keyed = source.create(CycleKeyedNode.self, value: ["id": 7, "name": "K"])
            keyed.next = keyed
            return (a, keyed)
        }
        let target = try realm()
        let (copy, keyedCopy) = try target.write {
            (target.create(CycleNode.self, value: a), target.create(CycleKeyedNode.self, value: keyed, update: .all))
        }
        // B is reached twice from A (its link and its list): two copies, each linking back to A's.
        XCTAssertEqual(target.objects(CycleNode.self).map(\.name).sorted(), ["A", "B", "B"])
        XCTAssertEqual(copy.realm, target)
        XCTAssertTrue(copy.next?.next?.isSameObject(as: copy) == true)
        XCTAssertTrue(copy.nodes.first?.next?.isSameObject(as: copy) == true)
        XCTAssertTrue(keyedCopy.next?.isSameObject(as: keyedCopy) == true)
        XCTAssertEqual(source.objects(CycleNode.self).count, 2, "the source realm is unchanged")
        XCTAssertEqual(a.realm, source)
    }

    func testObjectsLinkedFromEmbeddedObjectsAreCopied() throws {
        // RealmSwift's create copies what it is given, to the objects its
        // embedded objects link to: they stay unmanaged.
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [EmbeddedLinkParent.self, ScratchEmbeddedPet.self, Dog.self, DogToy.self]))
        let rex = Dog(name: "Rex", age: 3), fido = Dog(name: "Fido", age: 2), spot = Dog(name: "Spot", age: 1)
        let pet = ScratchEmbeddedPet(value: ["name": "one", "dog": rex])
        let listed = ScratchEmbeddedPet(value: ["name": "two", "dog": fido])
        listed.dogs["s"] = spot
        let parent = try realm.write {
            realm.create(EmbeddedLinkParent.self, value: ["pet": pet, "pets": [listed]])
        }
        XCTAssertTrue(rex.realm == nil && fido.realm == nil && spot.realm == nil && pet.realm == nil && listed.realm == nil)
        XCTAssertEqual(realm.objects(Dog.self).map(\.name).sorted(), ["Fido", "Rex", "Spot"])
        XCTAssertEqual(parent.pet?.dog?.name, "Rex")
        XCTAssertEqual(parent.pet?.dog?.realm, realm)
        XCTAssertEqual(parent.pets.first?.dog?.name, "Fido")
        XCTAssertEqual(parent.pets.first?.dogs["s"]??.name, "Spot")
        // Creating it again copies again (objects without a primary key are always new).
        try realm.write { _ = realm.create(EmbeddedLinkParent.self, value: ["pets": [listed]]) }
        XCTAssertEqual(realm.objects(Dog.self).count, 5)
    }
}
