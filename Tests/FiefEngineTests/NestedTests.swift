import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Nested lists and dictionaries in mixed values: made where a mixed value
/// goes, nesting to any depth, every list and dictionary operation, deleted
/// with the value holding them, links inside with their backlinks, deleted
/// targets, copies and checks, and the errors that change nothing.
final class NestedTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string)]),
        ("Box", [prop("label", .string),
                 prop("anyValue", .mixed),
                 Property(name: "items", type: .mixed, collection: .list),
                 Property(name: "bag", type: .mixed, collection: .set),
                 Property(name: "props", type: .mixed, collection: .map)]),
    ])

    /// A nested value read out whole, for comparisons.
    indirect enum Tree: Equatable {
        case value(TV)
        case list([Tree])
        case dict([String: Tree])
    }

    private func ref(_ db: DB, _ owner: Int64, _ property: String, _ id: Int64) -> CollectionRef {
        CollectionRef(nested: .list, table: db.cls("Box"), owner: owner, property: db.pkey("Box", property), id: id)
    }

    private func tree(_ db: DB, _ owner: Int64, _ property: String, _ value: TV) throws -> Tree {
        switch value {
        case .nestedList(let id): return try tree(db, owner, property, Value.nestedList(id))
        case .nestedDict(let id): return try tree(db, owner, property, Value.nestedDictionary(id))
        default: return .value(value)
        }
    }

    private func tree(_ db: DB, _ owner: Int64, _ property: String, _ value: Value) throws -> Tree {
        switch value {
        case .nestedList(let id):
            let r = ref(db, owner, property, id)
            let n = try db.realm.nestedCount(r)
            var out = [Value](repeating: .null, count: n)
            try out.withUnsafeMutableBufferPointer { try db.realm.list(r).values(from: 0, into: $0) }
            return .list(try out.map { try tree(db, owner, property, $0) })
        case .nestedDictionary(let id):
            let r = ref(db, owner, property, id)
            let n = try db.realm.nestedCount(r)
            var keys = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: n)
            var values = [Value](repeating: .null, count: n)
            try keys.withUnsafeMutableBufferPointer { k in
                try values.withUnsafeMutableBufferPointer { v in
                    try db.realm.map(r).entries(from: 0, count: n, keys: k.baseAddress, values: v.baseAddress)
                }
            }
            var out: [String: Tree] = [:]
            for i in 0..<n { out[String(decoding: keys[i], as: UTF8.self)] = try tree(db, owner, property, values[i]) }
            XCTAssertEqual(keys.map { Array($0) }, keys.map { Array($0) }.sorted { $0.lexicographicallyPrecedes($1) }, "keys in order")
            return .dict(out)
        default:
            return .value(TV(value))
        }
    }

    private func append(_ db: DB, _ r: CollectionRef, _ values: [TV]) throws {
        try TV.withValues(values) { try db.realm.list(r).append(UnsafeBufferPointer($0)) }
    }

    private func insert(_ db: DB, _ r: CollectionRef, _ index: Int, _ value: TV) throws {
        try TV.withValues([value]) { try db.realm.list(r).insert($0[0], at: index) }
    }

    private func setList(_ db: DB, _ r: CollectionRef, _ index: Int, _ value: TV) throws {
        try TV.withValues([value]) { try db.realm.list(r).set($0[0], at: index) }
    }

    private func put(_ db: DB, _ r: CollectionRef, _ key: String, _ value: TV) throws {
        try TV.withValues([value]) { v in try Array(key.utf8).withUnsafeBytes { try db.realm.map(r).set(v[0], forKey: $0) } }
    }

    private func value(_ db: DB, _ r: CollectionRef, _ key: String) throws -> TV? {
        try Array(key.utf8).withUnsafeBytes { try db.realm.map(r).value(forKey: $0).map(TV.init) }
    }

    private func listAt(_ db: DB, _ r: CollectionRef, _ index: Int) throws -> TV {
        TV(try db.realm.list(r).value(at: index))
    }

    /// How many entries the class's nested database holds (headers and the counter included).
    private func nestedEntries(_ db: DB) throws -> Int {
        let table = try db.realm.table(db.cls("Box"))
        guard let dbi = table.nested else { return 0 }
        var stat = MDB_stat()
        if let write = db.realm.write {
            mdb_stat(write.txn, dbi, &stat)
        } else {
            try db.realm.currentSnapshot().withTransaction { (txn) throws(FiefError) in _ = mdb_stat(txn, dbi, &stat) }
        }
        return Int(stat.ms_entries)
    }

    private func backlinks(_ db: DB, _ dog: Int64) throws -> Int {
        let table = try db.realm.table(db.cls("Dog"))
        guard let dbi = table.backlinks else { return 0 }
        var total = 0
        let read: (OpaquePointer) throws -> Void = { txn in
            try Backlinks.forEach(txn, dbi, target: dog) { (_, _, _, count) throws(FiefError) in total += Int(count) }
        }
        if let write = db.realm.write { try Backlinks.settle(write, dbi); try read(write.txn) } else { try read(try db.realm.currentSnapshot().txn) }
        return total
    }

    func testNestedCollectionsInAPropertyNestAndPersist() throws {
        let dir = tempDir()
        var box: Int64 = 0
        do {
            let db = try DB.open(dir.file(), schema)
            box = try db.write { try db.create("Box", [("label", .string("a")), ("anyValue", .nestedList(0))]) }
            guard case .nestedList(let id) = try db.get("Box", box, "anyValue") else { return XCTFail("not a nested list") }
            XCTAssertEqual(try db.realm.propertyNestedID(table: db.cls("Box"), key: box, property: db.pkey("Box", "anyValue"), .list), id)
            expectError(.invalidArgument) {
                try db.realm.propertyNestedID(table: db.cls("Box"), key: box, property: db.pkey("Box", "anyValue"), .dictionary)
            }
            let top = ref(db, box, "anyValue", id)
            try db.write {
                try append(db, top, [.int(1), .string("two"), .nestedDict(0), .null, .double(4.5)])
                guard case .nestedDict(let inner) = try listAt(db, top, 2) else { return XCTFail("not a dictionary") }
                let dict = ref(db, box, "anyValue", inner)
                try put(db, dict, "b", .bool(true))
                try put(db, dict, "a", .nestedList(0))
                try put(db, dict, "", .string("empty key"))
                guard case .nestedList(let deepest) = try value(db, dict, "a")! else { return XCTFail("not a list") }
                try append(db, ref(db, box, "anyValue", deepest), [.int(7), .nestedList(0)])
            }
            let expected: Tree = .list([.value(.int(1)), .value(.string("two")),
                                        .dict(["": .value(.string("empty key")), "a": .list([.value(.int(7)), .list([])]), "b": .value(.bool(true))]),
                                        .value(.null), .value(.double(4.5))])
            XCTAssertEqual(try tree(db, box, "anyValue", try db.get("Box", box, "anyValue")), expected)
        }
        // Read back after reopening, then checked and copied.
        let db = try DB.open(dir.file(), schema)
        guard case .nestedList(let id) = try db.get("Box", box, "anyValue") else { return XCTFail("lost") }
        XCTAssertEqual(try db.realm.nestedCount(ref(db, box, "anyValue", id)), 5)
        XCTAssertEqual(try listAt(db, ref(db, box, "anyValue", id), 1), .string("two"))
        try assertVerifies(dir.file())
        var problems: [String] = []
        XCTAssertEqual(try FileCopy.copy(from: dir.file(), to: dir.file("copy.fief")) { _, text in problems.append(text) }, 0, problems.joined(separator: "\n"))
        try assertVerifies(dir.file("copy.fief"))
        let copy = try DB.open(dir.file("copy.fief"), schema)
        guard case .nestedList(let copied) = try copy.get("Box", box, "anyValue") else { return XCTFail("not copied") }
        XCTAssertEqual(try copy.realm.nestedCount(ref(copy, box, "anyValue", copied)), 5)
        guard case .nestedDict(let inner) = try listAt(copy, ref(copy, box, "anyValue", copied), 2) else { return XCTFail("not copied") }
        XCTAssertEqual(try value(copy, ref(copy, box, "anyValue", inner), "b"), .bool(true))
    }

    func testNestedListOperationsAgainstAModel() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var random = SeededRandom(seed: 42)
        let box = try db.write { try db.create("Box", [("anyValue", .nestedList(0))]) }
        guard case .nestedList(let id) = try db.get("Box", box, "anyValue") else { return XCTFail() }
        let r = ref(db, box, "anyValue", id)
        var model: [TV] = []
        var next: Int64 = 0
        for round in 0..<6 {
            try db.write {
                for _ in 0..<120 {
                    next += 1
                    let count = model.count
                    switch random.next() % 7 {
                    case 0, 1:
                        // Inserting at the front again and again runs out of gaps: renumbered.
                        try insert(db, r, 0, .int(next)); model.insert(.int(next), at: 0)
                    case 2:
                        let i = count == 0 ? 0 : Int(random.next() % UInt64(count + 1))
                        try insert(db, r, i, .string("s\(next)")); model.insert(.string("s\(next)"), at: i)
                    case 3 where count > 0:
                        let i = Int(random.next() % UInt64(count))
                        try setList(db, r, i, .double(Double(next))); model[i] = .double(Double(next))
                    case 4 where count > 0:
                        let i = Int(random.next() % UInt64(count))
                        try db.realm.list(r).remove(at: i); model.remove(at: i)
                    case 5 where count > 1:
                        let from = Int(random.next() % UInt64(count)), to = Int(random.next() % UInt64(count))
                        try db.realm.list(r).move(from: from, to: to); model.insert(model.remove(at: from), at: to)
                    case 6 where count > 1:
                        let i = Int(random.next() % UInt64(count)), j = Int(random.next() % UInt64(count))
                        try db.realm.list(r).swapAt(i, j); model.swapAt(i, j)
                    default:
                        try append(db, r, [.int(-next)]); model.append(.int(-next))
                    }
                }
                XCTAssertEqual(try (0..<model.count).map { try listAt(db, r, $0) }, model, "round \(round), in the transaction")
            }
            XCTAssertEqual(try (0..<model.count).map { try listAt(db, r, $0) }, model, "round \(round), committed")
        }
        XCTAssertEqual(try db.realm.list(r).firstIndex(of: .double(Double(next))) == nil, !model.contains(.double(Double(next))))
        if let i = model.firstIndex(where: { if case .int = $0 { return true } else { return false } }), case .int(let v) = model[i] {
            // Realm's mixed equality: the double of an int finds it.
            XCTAssertEqual(try db.realm.list(r).firstIndex(of: .double(Double(v))), i)
        }
        try db.write { try db.realm.nestedClear(r) }
        XCTAssertEqual(try db.realm.nestedCount(r), 0)
        try assertVerifies(dir.file())
    }

    func testReplacedValuesDeleteTheirCollectionsRecursively() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let box = try db.write { try db.create("Box", [("anyValue", .nestedDict(0))]) }
        let empty = try nestedEntries(db)
        guard case .nestedDict(let id) = try db.get("Box", box, "anyValue") else { return XCTFail() }
        let top = ref(db, box, "anyValue", id)
        var inner: CollectionRef!
        try db.write {
            try put(db, top, "list", .nestedList(0))
            guard case .nestedList(let l) = try value(db, top, "list")! else { return XCTFail() }
            inner = ref(db, box, "anyValue", l)
            try append(db, inner, [.nestedDict(0), .nestedList(0), .int(3)])
        }
        XCTAssertGreaterThan(try nestedEntries(db), empty)
        // Replacing the property's value deletes the whole tree.
        try db.write { try db.set("Box", box, "anyValue", .int(5)) }
        XCTAssertFalse(try db.realm.nestedExists(top))
        XCTAssertFalse(try db.realm.nestedExists(inner))
        expectError(.invalidatedObject) { try db.realm.nestedCount(inner) }
        expectError(.invalidatedObject) { try db.write { try self.append(db, inner, [.int(1)]) } }
        XCTAssertEqual(try nestedEntries(db), empty - 1, "only the counter is left")
        // A new collection never gets an old id.
        try db.write { try db.set("Box", box, "anyValue", .nestedList(0)) }
        guard case .nestedList(let fresh) = try db.get("Box", box, "anyValue") else { return XCTFail() }
        XCTAssertGreaterThan(fresh, inner.nested)

        // In list elements and map values: removing, setting, clearing.
        let owner = try db.write { try db.create("Box", [("label", .string("b"))]) }
        let items = db.pkey("Box", "items"), props = db.pkey("Box", "props")
        let boxClass = db.cls("Box")
        try db.write {
            try TV.withValues([.nestedList(0), .nestedDict(0), .int(1)]) {
                try db.realm.list(CollectionRef(.list, table: boxClass, owner: owner, property: items)).append(UnsafeBufferPointer($0))
            }
            try TV.withValues([.nestedList(0)]) { v in
                try Array("k".utf8).withUnsafeBytes { try db.realm.map(CollectionRef(.map, table: boxClass, owner: owner, property: props)).set(v[0], forKey: $0) }
            }
        }
        guard case .nestedList(let first) = try db.realm.list(CollectionRef(.list, table: boxClass, owner: owner, property: items)).value(at: 0),
              case .nestedDictionary(let second) = try db.realm.list(CollectionRef(.list, table: boxClass, owner: owner, property: items)).value(at: 1) else { return XCTFail() }
        let firstRef = ref(db, owner, "items", first), secondRef = ref(db, owner, "items", second)
        try db.write { try append(db, firstRef, [.nestedList(0)]) }
        try db.write { try db.realm.list(CollectionRef(.list, table: boxClass, owner: owner, property: items)).remove(at: 0) }
        XCTAssertFalse(try db.realm.nestedExists(firstRef))
        XCTAssertTrue(try db.realm.nestedExists(secondRef))
        try db.write { try db.realm.list(CollectionRef(.list, table: boxClass, owner: owner, property: items)).removeAll() }
        XCTAssertFalse(try db.realm.nestedExists(secondRef))
        // Deleting the owner deletes what its map held.
        try db.write { try db.delete("Box", owner) }
        try db.write { try db.delete("Box", box) }
        XCTAssertEqual(try nestedEntries(db), empty - 1)
        try assertVerifies(dir.file())
    }

    func testLinksInsideNestedCollections() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dogClass = db.cls("Dog")
        let (dog, other, box) = try db.write {
            (try db.create("Dog", [("name", .string("Rex"))]), try db.create("Dog", [("name", .string("Ace"))]),
             try db.create("Box", [("anyValue", .nestedList(0))]))
        }
        guard case .nestedList(let id) = try db.get("Box", box, "anyValue") else { return XCTFail() }
        let list = ref(db, box, "anyValue", id)
        var dict: CollectionRef!
        try db.write {
            try append(db, list, [.link(dogClass, dog), .link(dogClass, other), .nestedDict(0), .link(dogClass, dog)])
            guard case .nestedDict(let d) = try listAt(db, list, 2) else { return XCTFail() }
            dict = ref(db, box, "anyValue", d)
            try put(db, dict, "best", .link(dogClass, dog))
            try put(db, dict, "other", .link(dogClass, other))
        }
        XCTAssertEqual(try backlinks(db, dog), 3)
        XCTAssertEqual(try backlinks(db, other), 2)
        try assertVerifies(dir.file())
        // A link to a deleted object, or to nothing, is refused and changes nothing.
        expectError(.noSuchObject) { try db.write { try self.put(db, dict, "ghost", .link(dogClass, 999)) } }
        XCTAssertNil(try value(db, dict, "ghost"))
        // Deleting a target: out of nested lists, null in nested dictionaries.
        try db.write { try db.delete("Dog", dog) }
        XCTAssertEqual(try (0..<db.realm.nestedCount(list)).map { try listAt(db, list, $0) }, [.link(dogClass, other), .nestedDict(dict.nested)])
        XCTAssertEqual(try value(db, dict, "best"), .null)
        XCTAssertEqual(try value(db, dict, "other"), .link(dogClass, other))
        try assertVerifies(dir.file())
        // Replacing a link inside drops its backlink; dropping the tree drops the rest.
        try db.write { try setList(db, list, 0, .int(0)) }
        XCTAssertEqual(try backlinks(db, other), 1)
        try db.write { try db.set("Box", box, "anyValue", .null) }
        XCTAssertEqual(try backlinks(db, other), 0)
        try assertVerifies(dir.file())
        // Deleting every object of a class (mixed values holding trees with links).
        let boxes = try db.write { try (0..<3).map { _ in try db.create("Box", [("anyValue", .nestedDict(0))]) } }
        try db.write {
            for b in boxes {
                guard case .nestedDict(let d) = try db.get("Box", b, "anyValue") else { return XCTFail() }
                try put(db, ref(db, b, "anyValue", d), "dog", .link(dogClass, other))
            }
        }
        XCTAssertEqual(try backlinks(db, other), 3)
        try db.write { try db.realm.deleteAll(table: db.cls("Box")) }
        XCTAssertEqual(try backlinks(db, other), 0)
        try assertVerifies(dir.file())
    }

    func testBadInputIsRefusedAndChangesNothing() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let box = try db.write { try db.create("Box", [("anyValue", .nestedDict(0))]) }
        guard case .nestedDict(let id) = try db.get("Box", box, "anyValue") else { return XCTFail() }
        let dict = ref(db, box, "anyValue", id)
        let before = try nestedEntries(db)
        // Outside a write transaction.
        expectError(.notInTransaction) { try self.put(db, dict, "a", .int(1)) }
        try db.write {
            // Keys refused as map keys are.
            for bad in ["a.b", "$a"] { expectError(.invalidArgument) { try self.put(db, dict, bad, .nestedList(0)) } }
            // The wrong kind of handle.
            expectError(.invalidArgument) { try self.append(db, dict, [.int(1)]) }
            // A set of mixed values never holds a nested collection; other types never do.
            let bag = CollectionRef(.map, table: db.cls("Box"), owner: box, property: db.pkey("Box", "bag"))
            expectError(.typeMismatch) { try TV.withValues([.nestedList(0)]) { _ = try db.realm.set(bag).insert($0[0]) } }
            expectError(.typeMismatch) { try db.set("Box", box, "label", .nestedDict(0)) }
            // All or nothing: a bad value after a nested one creates neither.
            try put(db, dict, "list", .nestedList(0))
            guard case .nestedList(let l) = try value(db, dict, "list")! else { return XCTFail() }
            let list = ref(db, box, "anyValue", l)
            let inside = try nestedEntries(db)
            let notUTF8: [UInt8] = [0xC3, 0x28]
            expectError(.invalidUTF8) {
                try TV.withValues([.nestedList(0), .string("x")]) { v in
                    try notUTF8.withUnsafeBytes { v[1] = .string($0); try db.realm.list(list).append(UnsafeBufferPointer(v)) }
                }
            }
            XCTAssertEqual(try nestedEntries(db), inside)
            XCTAssertEqual(try db.realm.nestedCount(list), 0)
            expectError(.indexOutOfBounds) { try self.insert(db, list, 1, .int(1)) }
            expectError(.indexOutOfBounds) { try db.realm.list(list).remove(at: 0) }
            expectError(.indexOutOfBounds) { try self.listAt(db, list, 0) }
            try db.realm.map(dict).remove(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        XCTAssertGreaterThan(try nestedEntries(db), before)
        try assertVerifies(dir.file())
    }

    func testDroppingAMixedPropertyDropsItsCollections() throws {
        let dir = tempDir()
        var box: Int64 = 0
        do {
            let db = try DB.open(dir.file(), schema)
            let dog = try db.write { try db.create("Dog", [("name", .string("Rex"))]) }
            box = try db.write { try db.create("Box", [("anyValue", .nestedList(0))]) }
            guard case .nestedList(let id) = try db.get("Box", box, "anyValue") else { return XCTFail() }
            try db.write { try append(db, ref(db, box, "anyValue", id), [.nestedDict(0), .link(db.cls("Dog"), dog)]) }
        }
        // The property goes (a higher schema version): its collections and backlinks go with it.
        var smaller = schema
        let i = smaller.classes.firstIndex { $0.name == "Box" }!
        smaller.classes[i].properties.removeAll { $0.name == "anyValue" }
        let db = try DB.open(dir.file(), smaller, version: 1)
        XCTAssertEqual(try nestedEntries(db), 1, "only the counter is left")
        XCTAssertEqual(try backlinks(db, 1), 0)
        try assertVerifies(dir.file())
    }
}
