import Fief
import Foundation
import XCTest

/// Embedded objects given to `create`, `add` and collections, as RealmSwift
/// treats them (realm-swift's ObjectCreationTests, ListTests, MapTests, in
/// our words): `create` copies them, a managed one never gets a second
/// parent, `add(_:update: .modified)` updates them in place.
final class EmbeddedCopyingTests: FiefTestCase {
    private func otherRealm() throws -> Realm {
        try Realm(configuration: fileConfiguration("other.realm"))
    }

    private func tree(_ name: String = "tree") -> [String: Any] {
        ["name": name, "node": ["value": 5, "leaf": ["value": 6], "leaves": [[7], [8]]] as [String: Any],
         "nodes": [[9], [10]], "nodeMap": ["k": ["value": 11]]]
    }

    private func assertTreeValues(_ tree: CopyTree, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(tree.node?.value, 5, file: file, line: line)
        XCTAssertEqual(tree.node?.leaf?.value, 6, file: file, line: line)
        XCTAssertEqual(tree.node?.leaves.map(\.value), [7, 8], file: file, line: line)
        XCTAssertEqual(tree.nodes.map(\.value), [9, 10], file: file, line: line)
        XCTAssertEqual(tree.nodeMap["k"]??.value, 11, file: file, line: line)
    }

    func testCreateFromAManagedParentCopiesItsEmbeddedObjects() throws {
        let realm = try Realm()
        try realm.write {
            let source = realm.create(CopyTree.self, value: tree())
            let copy = realm.create(CopyTree.self, value: source)
            XCTAssertFalse(copy.isSameObject(as: source))
            assertTreeValues(copy)
            assertTreeValues(source)
            copy.node!.value = 50
            XCTAssertEqual(source.node?.value, 5, "the copy has its own embedded objects")
            XCTAssertEqual(realm.objects(CopyTree.self).count, 2)
        }
    }

    func testCreateFromAParentOfAnotherRealmCopiesItsEmbeddedObjects() throws {
        let other = try otherRealm()
        let source = try other.write { other.create(CopyTree.self, value: tree()) }
        let realm = try Realm()
        let copy = try realm.write { realm.create(CopyTree.self, value: source) }
        assertTreeValues(copy)
        XCTAssertEqual(copy.node?.realm, realm)
        XCTAssertEqual(source.node?.realm, other)
        assertTreeValues(source)
    }

    func testCreateFromAnUnmanagedParentLeavesItsEmbeddedObjectsUnmanaged() throws {
        let source = CopyTree()
        source.node = CopyNode(value: [5])
        source.node!.leaf = CopyLeaf(value: [6])
        source.node!.leaves.append(CopyLeaf(value: [7]))
        source.node!.leaves.append(CopyLeaf(value: [8]))
        source.nodes.append(CopyNode(value: [9]))
        source.nodes.append(CopyNode(value: [10]))
        source.nodeMap["k"] = CopyNode(value: [11])
        let realm = try Realm()
        let created = try realm.write { realm.create(CopyTree.self, value: source) }
        assertTreeValues(created)
        XCTAssertNil(source.realm)
        XCTAssertNil(source.node?.realm)
        XCTAssertNil(source.node?.leaf?.realm)
        XCTAssertNil(source.node?.leaves.first?.realm)
        XCTAssertNil(source.nodes.first?.realm)
        XCTAssertNil(source.nodeMap["k"]??.realm)
        // A parent created from a managed embedded object's values.
        let fromNode = try realm.write { realm.create(CopyTree.self, value: ["node": created.node!, "nodes": [created.nodes[1]]] as [String: Any]) }
        XCTAssertEqual(fromNode.node?.leaves.map(\.value), [7, 8])
        XCTAssertEqual(fromNode.nodes.map(\.value), [10])
        assertTreeValues(created)
    }

    func testAppendingOrSettingAManagedEmbeddedObjectTraps() {
        assertTraps("appendManagedEmbeddedToList", message: "Cannot add an existing managed embedded object to a List.")
        assertTraps("setManagedEmbeddedInList", message: "Cannot add an existing managed embedded object to a List.")
        assertTraps("setManagedEmbeddedInMap", message: "Cannot add an existing managed embedded object to a Dictionary.")
        // A property setter has RealmSwift's accessor message; key-value
        // coding (CollectionSetValueTests) has its dynamic path's.
        assertTraps("setManagedEmbeddedAsLink", message: "Can't set link to existing managed embedded object")
    }

    func testUnmanagedEmbeddedObjectsStillBecomeElements() throws {
        let realm = try Realm()
        let tree = try realm.write { realm.create(CopyTree.self, value: ["name": "t"]) }
        let node = CopyNode(value: [1])
        let keyed = CopyNode(value: [2])
        try realm.write {
            tree.nodes.append(node)
            tree.nodeMap["a"] = keyed
            tree.nodes[0] = CopyNode(value: [3])
        }
        XCTAssertTrue(node.isInvalidated, "the replaced element is deleted")
        XCTAssertEqual(keyed.realm, realm)
        XCTAssertEqual(tree.nodes.map(\.value), [3])
        // Assigning a list its own contents copies them first.
        try realm.write { tree.nodes = tree.nodes }
        XCTAssertEqual(tree.nodes.map(\.value), [3])
    }

    /// Six embedded objects of one tree, `first...first + 5`, in the order
    /// node, node.leaf, node.leaves[0], node.leaves[1], nodes[0], nodes[1].
    private func keyedTree(_ first: Int) -> (CopyKeyedTree, [EmbeddedObject]) {
        let tree = CopyKeyedTree()
        tree.id = 1
        let node = CopyNode(value: [first])
        let leaf = CopyLeaf(value: [first + 1])
        let leaves = [CopyLeaf(value: [first + 2]), CopyLeaf(value: [first + 3])]
        let nodes = [CopyNode(value: [first + 4]), CopyNode(value: [first + 5])]
        node.leaf = leaf
        node.leaves.append(objectsIn: leaves)
        tree.node = node
        tree.nodes.append(objectsIn: nodes)
        return (tree, [node, leaf, leaves[0], leaves[1], nodes[0], nodes[1]])
    }

    private func value(_ object: EmbeddedObject) -> Int {
        (object as? CopyNode)?.value ?? (object as! CopyLeaf).value
    }

    func testAddModifiedUpdatesEmbeddedObjectsInPlace() throws {
        let realm = try Realm()
        let (first, firstObjects) = keyedTree(0)
        let (second, secondObjects) = keyedTree(6)
        try realm.write {
            realm.add(first)
            realm.add(second, update: .modified)
        }
        XCTAssertTrue(first.isSameObject(as: second))
        for (i, object) in firstObjects.enumerated() {
            XCTAssertFalse(object.isInvalidated, "object \(i) was replaced, not updated")
            XCTAssertEqual(object.realm, realm)
            XCTAssertEqual(value(object), i + 6, "object \(i)")
        }
        for (i, object) in secondObjects.enumerated() {
            XCTAssertEqual(object.realm, realm)
            XCTAssertEqual(value(object), i + 6)
        }
        XCTAssertEqual(first.node?.value, 6)
        XCTAssertEqual(first.node?.leaf?.value, 7)
        XCTAssertEqual(first.node?.leaves.map(\.value), [8, 9])
        XCTAssertEqual(first.nodes.map(\.value), [10, 11])
        XCTAssertEqual(realm.objects(CopyKeyedTree.self).count, 1)

        // A shorter list loses its last objects; a longer one gains new ones.
        let shorter = CopyKeyedTree(value: ["id": 1, "nodes": [[20]]] as [String: Any])
        try realm.write { realm.add(shorter, update: .modified) }
        XCTAssertEqual(firstObjects[4].realm, realm)
        XCTAssertFalse(firstObjects[4].isInvalidated)
        XCTAssertEqual(value(firstObjects[4]), 20)
        XCTAssertTrue(firstObjects[5].isInvalidated)
        XCTAssertNil(first.node, "a nil embedded object is deleted")
        XCTAssertTrue(firstObjects[0].isInvalidated)
        let longer = CopyKeyedTree(value: ["id": 1, "nodes": [[30], [31], [32]]] as [String: Any])
        try realm.write { realm.add(longer, update: .modified) }
        XCTAssertEqual(value(firstObjects[4]), 30)
        XCTAssertEqual(first.nodes.map(\.value), [30, 31, 32])
    }

    func testAddModifiedUpdatesAMapsEmbeddedObjectsInPlace() throws {
        let realm = try Realm()
        let first = CopyKeyedMapTree(value: ["id": 1, "nodeMap": ["a": [1], "b": [2], "gone": [3], "nil": [4]]] as [String: Any])
        try realm.write { realm.add(first) }
        let a = try XCTUnwrap(first.nodeMap["a"] ?? nil)
        let b = try XCTUnwrap(first.nodeMap["b"] ?? nil)
        let gone = try XCTUnwrap(first.nodeMap["gone"] ?? nil)
        let leafOfA = CopyLeaf(value: [10])
        try realm.write { a.leaf = leafOfA }

        let newB = CopyNode(value: [20])
        let second = CopyKeyedMapTree(value: ["id": 1, "nodeMap": [
            "a": ["value": 11, "leaf": ["value": 12]] as [String: Any], "nil": NSNull(), "new": [30],
        ] as [String: Any]] as [String: Any])
        second.nodeMap["b"] = newB
        try realm.write { realm.add(second, update: .modified) }

        XCTAssertTrue(first.isSameObject(as: second))
        // Keys in both: the same objects, updated (their embedded ones too).
        XCTAssertFalse(a.isInvalidated, "the value of 'a' was replaced, not updated")
        XCTAssertEqual(a.value, 11)
        XCTAssertFalse(leafOfA.isInvalidated)
        XCTAssertEqual(leafOfA.value, 12)
        XCTAssertFalse(b.isInvalidated)
        XCTAssertEqual(b.value, 20)
        XCTAssertEqual(newB.realm, realm, "the given object becomes the updated one")
        XCTAssertEqual(newB.value, 20)
        // Keys only in the old map are removed; new keys get new objects.
        XCTAssertTrue(gone.isInvalidated)
        XCTAssertEqual(first.nodeMap.keys.sorted(), ["a", "b", "new", "nil"])
        XCTAssertEqual(first.nodeMap["new"]??.value, 30)
        XCTAssertEqual(first.nodeMap["nil"].map { $0 == nil }, true)
        XCTAssertEqual(realm.objects(CopyKeyedMapTree.self).count, 1)

        // `.all` replaces them.
        let third = CopyKeyedMapTree(value: ["id": 1, "nodeMap": ["a": [40]]] as [String: Any])
        try realm.write { realm.add(third, update: .all) }
        XCTAssertTrue(a.isInvalidated)
        XCTAssertEqual(first.nodeMap["a"]??.value, 40)
    }

    func testAddAllReplacesEmbeddedObjects() throws {
        let realm = try Realm()
        let (first, firstObjects) = keyedTree(0)
        let (second, secondObjects) = keyedTree(6)
        try realm.write {
            realm.add(first)
            realm.add(second, update: .all)
        }
        XCTAssertTrue(first.isSameObject(as: second))
        for object in firstObjects { XCTAssertTrue(object.isInvalidated) }
        for (i, object) in secondObjects.enumerated() {
            XCTAssertEqual(object.realm, realm)
            XCTAssertEqual(value(object), i + 6)
        }
        XCTAssertEqual(first.nodes.map(\.value), [10, 11])
    }

    // MARK: Trap scenarios

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "appendManagedEmbeddedToList": { _ in
            let realm = try Realm()
            realm.beginWrite()
            let tree = realm.create(CopyTree.self, value: ["nodes": [[1]]])
            tree.nodes.append(tree.nodes[0])
        },
        "setManagedEmbeddedInList": { _ in
            let realm = try Realm()
            realm.beginWrite()
            let tree = realm.create(CopyTree.self, value: ["nodes": [[1]]])
            let node = CopyNode(value: [2])
            tree.nodes[0] = node
            tree.nodes[0] = node
        },
        "setManagedEmbeddedAsLink": { _ in
            let realm = try Realm()
            realm.beginWrite()
            let tree = realm.create(CopyTree.self, value: ["nodes": [[1]]])
            tree.node = tree.nodes[0]
        },
        "setManagedEmbeddedInMap": { _ in
            let realm = try Realm()
            realm.beginWrite()
            let tree = realm.create(CopyTree.self, value: ["nodeMap": ["k": [1]]])
            let node = CopyNode(value: [2])
            tree.nodeMap["k"] = node
            tree.nodeMap["k"] = node
        },
    ]
}
