import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// The key-path filter answers "which objects does this commit modify" two
/// ways: forward, asking `isModified` of each object (following its links
/// down), and reverse, `modifiedRoots` (from the written objects up the
/// links and linking objects).  On a class linking into itself (chains,
/// cycles, lists) both must give the same, and realm-core's depth of 4.
final class KeyPathReverseTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Node", properties: [
            prop("v", .int),
            prop("w", .int),
            Property(name: "next", type: .link, flags: .nullable, linkTarget: "Node"),
            Property(name: "friends", type: .link, linkTarget: "Node", collection: .list),
        ], linkingObjects: [LinkingObjectsProperty(name: "fans", originClass: "Node", originProperty: "friends")]),
    ])

    /// Nodes n0 ... n(count-1), no links.
    private func open(_ count: Int) throws -> (DB, [Int64]) {
        let db = try DB.open(tempDir().file(), schema)
        let keys = try db.write { try db.createMany("Node", ["v"], (0..<count).map { [.int(Int64($0))] }) }
        return (db, keys)
    }

    /// The objects of `keys` that `write` modifies as `keyPaths` count
    /// them, asked forward and reverse (they must agree), as indices of `keys`.
    private func modified(_ db: DB, _ keys: [Int64], _ keyPaths: [String]?, file: StaticString = #filePath, line: UInt = #line,
                          _ write: () throws -> Void) throws -> [Int] {
        try modifiedObjects(db, "Node", keys, keyPaths, file: file, line: line, write)
    }

    func testChainsCyclesAndDepth() throws {
        // n0 → n1 → n2 → n3 → n4 → n5 (next); n6 ⇄ n7 (next); n8.friends = [n8, n4]; n9 alone.
        let (db, n) = try open(10)
        try db.write {
            for i in 0..<5 { try setNext(db, n[i], n[i + 1]) }
            try setNext(db, n[6], n[7])
            try setNext(db, n[7], n[6])
            try db.append("Node", n[8], "friends", [.link(db.cls("Node"), n[8]), .link(db.cls("Node"), n[4])])
        }
        // Each case: the key paths, the write, the objects modified.
        let cases: [(String, [String]?, () throws -> Void, [Int])] = [
            ("a value 4 links down reaches the chain's head", nil, { try db.set("Node", n[4], "v", .int(40)) }, [0, 1, 2, 3, 4, 8]),
            ("5 links down is past the depth", nil, { try db.set("Node", n[5], "v", .int(50)) }, [1, 2, 3, 4, 5, 8]),
            ("the head's own value", nil, { try db.set("Node", n[0], "w", .int(1)) }, [0]),
            ("a link column written is a modification of its object and those above", nil, { try setNext(db, n[3], nil) }, [0, 1, 2, 3]),
            ("a cycle terminates", nil, { try db.set("Node", n[7], "v", .int(70)) }, [6, 7]),
            ("a list linking its owner", nil, { try db.set("Node", n[8], "v", .int(80)) }, [8]),
            ("nothing links a lone node", nil, { try db.set("Node", n[9], "v", .int(90)) }, [9]),
            ("two levels named", ["next.next.v"], { try db.set("Node", n[2], "v", .int(21)) }, [0]),
            ("an unwatched column below", ["next.next.v"], { try db.set("Node", n[2], "w", .int(21)) }, []),
            ("a link on the path, one level down", ["next.next.v"], { try setNext(db, n[2], n[0]) }, [1, 2]),
            ("the list, then every column", ["friends.*"], { try db.set("Node", n[4], "w", .int(3)) }, [8]),
            ("the list itself", ["friends"], { try db.append("Node", n[9], "friends", [.link(db.cls("Node"), n[1])]) }, [9]),
            ("linking objects, then a value", ["fans.v"], { try db.set("Node", n[8], "v", .int(81)) }, [4, 8]),
            ("a linking object gained", ["fans"], { try db.append("Node", n[9], "friends", [.link(db.cls("Node"), n[2])]) }, [2]),
            ("a linking object lost", ["fans"], { try db.removeElement("Node", n[8], "friends", 1) }, [4]),
            ("the origin's other values are not watched", ["fans"], { try db.set("Node", n[8], "v", .int(82)) }, []),
        ]
        for (name, keyPaths, write, expected) in cases {
            XCTAssertEqual(try modified(db, n, keyPaths, write), expected, name)
        }
    }

    func testRandomGraphsAgree() throws {
        var random = SeededRandom(seed: 22)
        let count = 40
        let (db, n) = try open(count)
        try db.write {
            for i in 0..<count where Bool.random(using: &random) { try setNext(db, n[i], n[Int.random(in: 0..<count, using: &random)]) }
            for i in 0..<count where Int.random(in: 0..<3, using: &random) == 0 {
                try db.append("Node", n[i], "friends", (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    .link(db.cls("Node"), n[Int.random(in: 0..<count, using: &random)])
                })
            }
        }
        let keyPaths: [[String]?] = [nil, ["next.next.next.v"], ["friends.next.w"], ["fans.next"], ["next.fans.v", "w"]]
        for round in 0..<24 {
            let paths = keyPaths[round % keyPaths.count]
            _ = try modified(db, n, paths) {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let at = n[Int.random(in: 0..<count, using: &random)]
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: try db.set("Node", at, "v", .int(Int64(round)))
                    case 1: try db.set("Node", at, "w", .int(Int64(round)))
                    case 2: try setNext(db, at, Bool.random(using: &random) ? n[Int.random(in: 0..<count, using: &random)] : nil)
                    default: try db.append("Node", at, "friends", [.link(db.cls("Node"), n[Int.random(in: 0..<count, using: &random)])])
                    }
                }
            }
        }
    }
}

/// The objects of `keys` (of class `className`) that `write` modifies as
/// `keyPaths` count them, asked forward (`isModified`) and reverse
/// (`modifiedRoots`; for the default key paths, by distance, and by the
/// nodes of the tree too): they must agree.  As indices of `keys`.
func modifiedObjects(_ db: DB, _ className: String, _ keys: [Int64], _ keyPaths: [String]?, file: StaticString = #filePath, line: UInt = #line,
                     _ write: () throws -> Void) throws -> [Int] {
    let realm = db.realm
    let base = try realm.lock.withLock { () throws(FiefError) -> UInt64 in try realm.currentSnapshot().version }
    try db.write(write)
    let (forward, reverse, byNodes) = try realm.lock.withLock { () throws(FiefError) -> ([Int], [Int], [Int]) in
        let filter = try KeyPathFilter.resolve(keyPaths, table: db.cls(className), in: realm)
        guard let changes = try realm.currentSnapshot().changes(since: base) else { throw FiefError(.internal, "no records") }
        var forward: [Int] = []
        for (index, key) in keys.enumerated() where try filter.isModified(key, changes: changes, realm: realm) { forward.append(index) }
        guard let roots = try filter.modifiedRoots(changes: changes, realm: realm),
              let byNodes = try filter.rootsByNodes(changes, realm) else { throw FiefError(.internal, "no limit given") }
        return (forward, keys.indices.filter { roots.contains(keys[$0]) }, keys.indices.filter { byNodes.contains(keys[$0]) })
    }
    XCTAssertEqual(forward, reverse, "forward and reverse disagree, key paths \(keyPaths ?? [])", file: file, line: line)
    XCTAssertEqual(byNodes, reverse, "the walk by nodes and the walk by distance disagree, key paths \(keyPaths ?? [])", file: file, line: line)
    return reverse
}

/// Node `from`'s `next` set to `to` (nil: null).
private func setNext(_ db: DB, _ from: Int64, _ to: Int64?) throws {
    try db.set("Node", from, "next", to.map { .link(db.cls("Node"), $0) } ?? .null)
}

/// Realm's default key paths over several classes linking each other
/// (Person → Dog → Person …, a toy's maker, a tag no one links): the walk
/// by distance (`modifiedRoots` for the default) gives what the forward
/// check and the walk by nodes give, at odd and even depths, past the
/// depth, from every class as the root; and explicit key paths (links and
/// linking objects) through the batched walk by nodes.
final class KeyPathDefaultDepthTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Person", properties: [
            prop("name", .string),
            Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
            Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list),
            Property(name: "best", type: .link, flags: .nullable, linkTarget: "Person"),
        ], linkingObjects: [LinkingObjectsProperty(name: "pets", originClass: "Dog", originProperty: "owner")]),
        ObjectClass(name: "Dog", properties: [
            prop("name", .string),
            Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person"),
            Property(name: "toy", type: .link, flags: .nullable, linkTarget: "Toy"),
            Property(name: "pals", type: .link, linkTarget: "Dog", collection: .list),
        ]),
        ObjectClass(name: "Toy", properties: [
            prop("name", .string),
            Property(name: "maker", type: .link, flags: .nullable, linkTarget: "Person"),
        ]),
        ObjectClass(name: "Tag", properties: [
            prop("name", .string),
            Property(name: "toy", type: .link, flags: .nullable, linkTarget: "Toy"),
        ]),
    ])

    private func open(_ count: Int) throws -> (DB, [String: [Int64]]) {
        let db = try DB.open(tempDir().file(), schema)
        var keys: [String: [Int64]] = [:]
        try db.write {
            for name in ["Person", "Dog", "Toy", "Tag"] {
                keys[name] = try db.createMany(name, ["name"], (0..<count).map { [.string("\(name)\($0)")] })
            }
        }
        return (db, keys)
    }

    func testAChainOfTwoClasses() throws {
        // p0 -dog→ d0 -owner→ p1 -dog→ d1 -owner→ p2 -dog→ d2 -owner→ p3; t0.maker = p0; g0.toy = t0.
        let (db, k) = try open(4)
        let p = k["Person"]!, d = k["Dog"]!, t = k["Toy"]!, g = k["Tag"]!
        try db.write {
            for i in 0..<3 {
                try setLink(db, "Person", p[i], "dog", "Dog", d[i])
                try setLink(db, "Dog", d[i], "owner", "Person", p[i + 1])
            }
            try setLink(db, "Toy", t[0], "maker", "Person", p[0])
            try setLink(db, "Tag", g[0], "toy", "Toy", t[0])
        }
        let cases: [(String, String, () throws -> Void, [Int])] = [
            ("a person 4 links down (even)", "Person", { try db.set("Person", p[2], "name", .string("x")) }, [0, 1, 2]),
            ("a dog 3 links down (odd)", "Person", { try db.set("Dog", d[1], "name", .string("x")) }, [0, 1]),
            ("a dog 5 links down is past the depth", "Person", { try db.set("Dog", d[2], "name", .string("x")) }, [1, 2]),
            ("dogs: a person 3 links down", "Dog", { try db.set("Person", p[2], "name", .string("y")) }, [0, 1]),
            ("dogs: a person 5 links down is past the depth", "Dog", { try db.set("Person", p[3], "name", .string("y")) }, [1, 2]),
            ("toys: a dog 4 links down", "Toy", { try db.set("Dog", d[1], "name", .string("z")) }, [0]),
            ("toys: a person 5 links down", "Toy", { try db.set("Person", p[2], "name", .string("z")) }, []),
            ("tags: a person 4 links down", "Tag", { try db.set("Person", p[1], "name", .string("w")) }, [0]),
            ("tags: a dog 5 links down", "Tag", { try db.set("Dog", d[1], "name", .string("w")) }, []),
            ("a link written is a write of its object", "Person", { try setLink(db, "Dog", d[1], "owner", "Person", nil) }, [0, 1]),
            ("a tag no default path reaches", "Person", { try db.set("Tag", g[0], "name", .string("v")) }, []),
            ("several writes at once, each root once", "Person", {
                try db.set("Person", p[3], "name", .string("u"))
                try db.set("Dog", d[0], "name", .string("u"))
            }, [0, 2, 3]),
        ]
        for (name, root, write, expected) in cases {
            XCTAssertEqual(try modifiedObjects(db, root, k[root]!, nil, write), expected, name)
        }
    }

    func testRandomGraphsAgree() throws {
        var random = SeededRandom(seed: 2025)
        let count = 25
        let (db, k) = try open(count)
        func any(_ className: String) -> Int64 { k[className]![Int.random(in: 0..<count, using: &random)] }
        func maybe(_ className: String) -> Int64? { Int.random(in: 0..<4, using: &random) == 0 ? nil : any(className) }
        try db.write {
            for i in 0..<count {
                try setLink(db, "Person", k["Person"]![i], "dog", "Dog", maybe("Dog"))
                try setLink(db, "Person", k["Person"]![i], "best", "Person", Int.random(in: 0..<3, using: &random) == 0 ? any("Person") : nil)
                try db.append("Person", k["Person"]![i], "dogs", (0..<Int.random(in: 0...2, using: &random)).map { _ in .link(db.cls("Dog"), any("Dog")) })
                try setLink(db, "Dog", k["Dog"]![i], "owner", "Person", maybe("Person"))
                try setLink(db, "Dog", k["Dog"]![i], "toy", "Toy", Bool.random(using: &random) ? any("Toy") : nil)
                try setLink(db, "Toy", k["Toy"]![i], "maker", "Person", Bool.random(using: &random) ? any("Person") : nil)
                try setLink(db, "Tag", k["Tag"]![i], "toy", "Toy", maybe("Toy"))
            }
        }
        let roots: [(String, [String]?)] = [
            ("Person", nil), ("Dog", nil), ("Toy", nil), ("Tag", nil),
            ("Person", ["dog.toy.name"]), ("Person", ["pets.toy.maker.name", "best.name"]), ("Toy", ["maker.dogs.owner.name"]),
        ]
        let classes = ["Person", "Dog", "Toy", "Tag"]
        for round in 0..<42 {
            let (root, keyPaths) = roots[round % roots.count]
            _ = try modifiedObjects(db, root, k[root]!, keyPaths) {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let className = classes.randomElement(using: &random)!
                    let at = any(className)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: try db.set(className, at, "name", .string("r\(round)"))
                    case 1:
                        switch className {
                        case "Person": try setLink(db, className, at, "best", "Person", maybe("Person"))
                        case "Dog": try setLink(db, className, at, "owner", "Person", maybe("Person"))
                        case "Toy": try setLink(db, className, at, "maker", "Person", maybe("Person"))
                        default: try setLink(db, className, at, "toy", "Toy", maybe("Toy"))
                        }
                    default:
                        if className == "Dog" {
                            try db.append("Dog", at, "pals", [.link(db.cls("Dog"), any("Dog"))])
                        } else {
                            try db.set(className, at, "name", .string("s\(round)"))
                        }
                    }
                }
            }
        }
    }
}

/// `className` `key`'s link `property` set to `target` of `targetClass` (nil: null).
private func setLink(_ db: DB, _ className: String, _ key: Int64, _ property: String, _ targetClass: String, _ target: Int64?) throws {
    try db.set(className, key, property, target.map { .link(db.cls(targetClass), $0) } ?? .null)
}
