import XCTest
@testable import FiefStorage
import CLMDB
import Foundation
@testable import FiefEngine

/// Nested collections 100,000 levels deep (fief.h: "they nest to any
/// depth"): every walk the engine makes over them (deleting a tree,
/// taking a deleted object out of every collection, a query path to the
/// bottom) uses a worklist, not recursion, so each runs on a thread with a
/// 512 KB stack, as many hosts give threads.
final class DeepNestingTests: XCTestCase {
    private static let depth = 100_000

    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Box", [prop("label", .string),
                 prop("anyValue", .mixed),
                 Property(name: "items", type: .mixed, collection: .list)]),
    ])

    /// Runs `body` on a thread with a 512 KB stack and waits for it.
    private func onSmallStack(_ body: @escaping () throws -> Void) throws {
        // The body runs on the thread alone, then this one reads the outcome.
        final class Outcome: @unchecked Sendable {
            let body: () throws -> Void
            var error: Error?
            init(_ body: @escaping () throws -> Void) { self.body = body }
        }
        let outcome = Outcome(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { try outcome.body() } catch { outcome.error = error }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        if let error = outcome.error { throw error }
    }

    /// How many entries class Box's nested database holds (headers and the counter included).
    private static func nestedEntries(_ db: DB) throws -> Int {
        let table = try db.realm.table(db.cls("Box"))
        guard let dbi = table.nested else { return 0 }
        var stat = MDB_stat()
        try db.realm.currentSnapshot().withTransaction { (txn) throws(FiefError) in _ = mdb_stat(txn, dbi, &stat) }
        return Int(stat.ms_entries)
    }

    /// Below the nested dictionary `top` of (`box`, `property`), lists and
    /// dictionaries alternating (a dictionary's one key is "k"), `depth`
    /// collections in all; the deepest (a list: `depth` is even) holds
    /// `bottom`.  Returns the deepest.
    private static func buildChain(_ db: DB, box: Int64, property: String, top: Value, bottom: [TV]) throws -> CollectionRef {
        var current = top
        let table = db.cls("Box"), propertyKey = db.pkey("Box", property)
        for level in 1...depth {
            let ref = CollectionRef(nested: .list, table: table, owner: box, property: propertyKey, id: current.nestedID!)
            let isList: Bool
            if case .nestedList = current { isList = true } else { isList = false }
            let values: [TV] = level == depth ? bottom : [isList ? .nestedDict(0) : .nestedList(0)]
            if isList {
                try TV.withValues(values) { try db.realm.list(ref).append(UnsafeBufferPointer($0)) }
                if level < depth { current = try db.realm.list(ref).value(at: 0) }
            } else {
                try TV.withValues(values) { v in
                    try Array("k".utf8).withUnsafeBytes { try db.realm.map(ref).set(v[0], forKey: $0) }
                }
                if level < depth { current = try Array("k".utf8).withUnsafeBytes { try db.realm.map(ref).value(forKey: $0)! } }
            }
            if level == depth { return ref }
        }
        fatalError("unreachable")
    }

    func testDeepTreesGoWithoutRecursionOnASmallStack() throws {
        let dir = tempDir()
        let schema = self.schema
        try onSmallStack {
            let db = try DB.open(dir.file(), schema)
            let dogClass = db.cls("Dog")
            let depth = Self.depth
            var bottoms: [String: CollectionRef] = [:]
            let (dog, boxes) = try db.write { () throws -> (Int64, [String: Int64]) in
                let dog = try db.create("Dog", [("name", .string("Rex"))])
                var boxes: [String: Int64] = [:]
                for label in ["kept", "replaced", "deleted"] {
                    let box = try db.create("Box", [("label", .string(label)), ("anyValue", .nestedDict(0))])
                    boxes[label] = box
                    guard case .nestedDict(let top) = try db.get("Box", box, "anyValue") else { throw FiefError(.internal, "not a nested dictionary") }
                    bottoms[label] = try Self.buildChain(db, box: box, property: "anyValue", top: .nestedDictionary(top),
                                                         bottom: [.int(42), .link(dogClass, dog)])
                }
                return (dog, boxes)
            }
            // One header and one entry per level (the deepest: two entries), and the counter.
            XCTAssertEqual(try Self.nestedEntries(db), 3 * (2 * depth + 1) + 1)
            // A path to the bottom.
            let steps = (1..<depth).map { $0 % 2 == 1 ? ".k" : "[0]" }.joined()
            XCTAssertEqual(try db.keys("Box", "anyValue" + steps + ".k == 42").count, 0)
            XCTAssertEqual(Set(try db.keys("Box", "anyValue" + steps + "[0] == 42")), Set(boxes.values))
            XCTAssertEqual(Set(try db.keys("Box", "anyValue" + steps + "[*] == 42")), Set(boxes.values))
            // Deleting the Dog takes it out of every deepest list.
            try db.write { try db.delete("Dog", dog) }
            for bottom in bottoms.values { XCTAssertEqual(try db.realm.nestedCount(bottom), 1) }
            // Replacing the value, and deleting the owner, delete every level.
            try db.write { try db.set("Box", boxes["replaced"]!, "anyValue", .int(1)) }
            XCTAssertFalse(try db.realm.nestedExists(bottoms["replaced"]!))
            try db.write { try db.delete("Box", boxes["deleted"]!) }
            XCTAssertFalse(try db.realm.nestedExists(bottoms["deleted"]!))
            XCTAssertEqual(try Self.nestedEntries(db), 2 * depth + 1)
            XCTAssertTrue(try db.realm.nestedExists(bottoms["kept"]!))
        }
        try assertVerifies(dir.file())
    }
}
