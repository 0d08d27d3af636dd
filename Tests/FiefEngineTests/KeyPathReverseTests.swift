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
        let realm = db.realm
        let base = try realm.lock.withLock { () throws(FiefError) -> UInt64 in try realm.currentSnapshot().version }
        try db.write(write)
        let (forward, reverse) = try realm.lock.withLock { () throws(FiefError) -> ([Int], [Int]) in
            let filter = try KeyPathFilter.resolve(keyPaths, table: db.cls("Node"), in: realm)
            guard let changes = try realm.currentSnapshot().changes(since: base) else { throw FiefError(.internal, "no records") }
            var forward: [Int] = []
            for (index, key) in keys.enumerated() where try filter.isModified(key, changes: changes, realm: realm) { forward.append(index) }
            guard let roots = try filter.modifiedRoots(changes: changes, realm: realm) else { throw FiefError(.internal, "no limit given") }
            return (forward, keys.indices.filter { roots.contains(keys[$0]) })
        }
        XCTAssertEqual(forward, reverse, "forward and reverse disagree, key paths \(keyPaths ?? [])", file: file, line: line)
        return reverse
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

/// Node `from`'s `next` set to `to` (nil: null).
private func setNext(_ db: DB, _ from: Int64, _ to: Int64?) throws {
    try db.set("Node", from, "next", to.map { .link(db.cls("Node"), $0) } ?? .null)
}
