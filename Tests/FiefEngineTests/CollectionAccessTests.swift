import XCTest
@testable import FiefStorage
@testable import FiefEngine

extension Realm {
    /// The size of nested collection `ref`, a list or a dictionary (tests
    /// that made the address from a stored id alone).
    func nestedCount(_ ref: CollectionRef) throws(FiefError) -> Int {
        do throws(FiefError) {
            return try list(ref).count()
        } catch where error.code == .invalidArgument {
            return try map(ref).count()
        }
    }

    /// Empty nested collection `ref`, a list or a dictionary.
    func nestedClear(_ ref: CollectionRef) throws(FiefError) {
        do throws(FiefError) {
            try list(ref).removeAll()
        } catch where error.code == .invalidArgument {
            try map(ref).removeAll()
        }
    }
}

/// One accessor per kind of collection (`ListAccess`, `MapAccess`), the same
/// operations whatever holds the collection: each table of operations runs
/// on a list property and on a list nested in a mixed value (a map property
/// and a nested dictionary), and every answer (values, sizes, indexes, the
/// error codes of refused calls) is the same on both.
final class CollectionAccessTests: XCTestCase {
    private let schema = makeSchema([
        ("Box", [prop("anyValue", .mixed),
                 Property(name: "items", type: .mixed, collection: .list),
                 Property(name: "props", type: .mixed, collection: .map)]),
    ])

    /// What an operation answered: a value, or the code of its error.
    private enum Outcome: Equatable {
        case value(String)
        case error(FiefError.Code)
    }

    private func outcome(_ body: () throws -> Any?) -> Outcome {
        do {
            let result = try body()
            return .value(result.map { "\(normalized($0))" } ?? "nil")
        } catch let error as FiefError {
            return .error(error.code)
        } catch {
            return .value("unexpected \(error)")
        }
    }

    /// Results compared across storages: a nested collection's id differs
    /// between the two (each made its own), so only its kind is kept.
    private func normalized(_ result: Any) -> Any {
        switch result {
        case let value as Value: return normalized(TV(value))
        case let tv as TV:
            switch tv {
            case .nestedList: return "nestedList"
            case .nestedDict: return "nestedDict"
            default: return tv
            }
        case let values as [TV]: return values.map { normalized($0) }
        case let entry as (key: UnsafeRawBufferPointer, value: Value): return "\(String(decoding: entry.key, as: UTF8.self))=\(normalized(entry.value))"
        default: return result
        }
    }

    /// Every element, read one by one and in one bulk read (which must agree).
    private func contents(_ list: ListAccess) throws -> [TV] {
        let n = try list.count()
        var bulk = [Value](repeating: .null, count: n)
        try bulk.withUnsafeMutableBufferPointer { try list.values(from: 0, into: $0) }
        let single = try (0..<n).map { TV(try list.value(at: $0)) }
        XCTAssertEqual(single.map { "\(normalized($0))" }, bulk.map { "\(normalized(TV($0)))" })
        return single
    }

    /// Every entry in key order, read one by one and in one bulk read.
    private func contents(_ map: MapAccess) throws -> [String] {
        let n = try map.count()
        var keys = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: n)
        var values = [Value](repeating: .null, count: n)
        try keys.withUnsafeMutableBufferPointer { k in
            try values.withUnsafeMutableBufferPointer { v in try map.entries(from: 0, count: n, keys: k.baseAddress, values: v.baseAddress) }
        }
        let bulk = (0..<n).map { "\(String(decoding: keys[$0], as: UTF8.self))=\(normalized(values[$0]))" }
        let single = try (0..<n).map { (i: Int) -> String in
            let entry = try map.entry(at: i)
            return "\(String(decoding: entry.key, as: UTF8.self))=\(normalized(entry.value))"
        }
        XCTAssertEqual(single, bulk)
        return single
    }

    private func one<R>(_ value: TV, _ body: (Value) throws -> R) throws -> R {
        try TV.withValues([value]) { try body($0[0]) }
    }

    private func key<R>(_ key: String, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Array(key.utf8).withUnsafeBytes { try body($0) }
    }

    /// A box whose `items` list and whose `anyValue` nested list are empty;
    /// their addresses.
    private func lists(_ db: DB) throws -> (plain: CollectionRef, nested: CollectionRef) {
        let box = try db.write { try db.create("Box", [("anyValue", .nestedList(0))]) }
        let table = db.cls("Box")
        let plain = try db.realm.collection(.list, table: table, owner: box, property: db.pkey("Box", "items"))
        let nested = try db.realm.collection(.list, table: table, owner: box, property: db.pkey("Box", "anyValue"))
        XCTAssertFalse(plain.isNested)
        XCTAssertTrue(nested.isNested)
        return (plain, nested)
    }

    func testListOperationsAnswerTheSameOnAListPropertyAndANestedList() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (plain, nested) = try lists(db)
        typealias Step = (name: String, run: (ListAccess) throws -> Any?)
        let steps: [Step] = [
            ("append four", { list in try TV.withValues([.int(1), .string("two"), .double(3.5), .null]) { try list.append(UnsafeBufferPointer($0)) } }),
            ("append one", { list in try self.one(.bool(true)) { v in try withUnsafePointer(to: v) { try list.append(UnsafeBufferPointer(start: $0, count: 1)) } } }),
            ("append none", { list in try TV.withValues([]) { try list.append(UnsafeBufferPointer($0)) } }),
            ("insert at 0", { list in try self.one(.string("first")) { try list.insert($0, at: 0) } }),
            ("insert at the end", { list in try self.one(.int(99)) { try list.insert($0, at: try list.count()) } }),
            ("insert past the end", { list in try self.one(.int(0)) { try list.insert($0, at: try list.count() + 1) } }),
            ("insert at -1", { list in try self.one(.int(0)) { try list.insert($0, at: -1) } }),
            ("insert a nested dictionary", { list in try self.one(.nestedDict(0)) { try list.insert($0, at: 2) } }),
            ("set 1", { list in try self.one(.int(9)) { try list.set($0, at: 1) } }),
            ("set 1 to the same", { list in try self.one(.int(9)) { try list.set($0, at: 1) } }),
            ("set past the end", { list in try self.one(.int(9)) { try list.set($0, at: 100) } }),
            ("remove 3", { list in try list.remove(at: 3) }),
            ("remove past the end", { list in try list.remove(at: 100) }),
            ("move 0 to 4", { list in try list.move(from: 0, to: 4) }),
            ("move 1 to 1", { list in try list.move(from: 1, to: 1) }),
            ("move 4 to 0", { list in try list.move(from: 4, to: 0) }),
            ("move out of range", { list in try list.move(from: 0, to: 100) }),
            ("swap 0 and 5", { list in try list.swapAt(0, 5) }),
            ("swap 2 and 2", { list in try list.swapAt(2, 2) }),
            ("swap out of range", { list in try list.swapAt(100, 0) }),
            ("index of 9", { list in try self.one(.int(9)) { try list.firstIndex(of: $0) } }),
            ("index of 9.0 (mixed equality)", { list in try self.one(.double(9)) { try list.firstIndex(of: $0) } }),
            ("index of null", { list in try list.firstIndex(of: .null) }),
            ("index of a missing value", { list in try self.one(.string("nope")) { try list.firstIndex(of: $0) } }),
            ("element 2", { list in try list.value(at: 2) }),
            ("element -1", { list in try list.value(at: -1) }),
            ("element past the end", { list in try list.value(at: try list.count()) }),
            ("range check within", { list in try list.checkRange(start: 1, count: 2) }),
            ("range check past the end", { list in try list.checkRange(start: 1, count: 100) }),
            ("bulk read past the end", { list in
                var out = [Value](repeating: .null, count: 3)
                return try out.withUnsafeMutableBufferPointer { try list.values(from: try list.count() - 1, into: $0) }
            }),
            ("insert an embedded object", { list in try list.insertEmbedded(at: 0) }),
            ("delete all objects", { list in try list.deleteAllObjects() }),
            ("count", { list in try list.count() }),
            ("clear", { list in try list.removeAll() }),
            ("append after clearing", { list in try TV.withValues([.int(5), .int(6)]) { try list.append(UnsafeBufferPointer($0)) } }),
        ]
        var answered: [String: Outcome] = [:]
        for step in steps {
            var answers: [Outcome] = []
            var states: [[String]] = []
            for ref in [plain, nested] {
                let list = db.realm.list(ref)
                try db.realm.beginWrite()
                answers.append(outcome { try step.run(list) })
                // A refused call leaves the transaction usable.
                try db.realm.commitWrite()
                states.append(try contents(list).map { "\(normalized($0))" })
            }
            XCTAssertEqual(answers[0], answers[1], step.name)
            XCTAssertEqual(states[0], states[1], step.name)
            answered[step.name] = answers[0]
        }
        // The answers themselves (the same on both), for a few steps.
        XCTAssertEqual(answered["insert past the end"], .error(.indexOutOfBounds))
        XCTAssertEqual(answered["move out of range"], .error(.indexOutOfBounds))
        XCTAssertEqual(answered["range check past the end"], .error(.indexOutOfBounds))
        XCTAssertEqual(answered["bulk read past the end"], .error(.indexOutOfBounds))
        XCTAssertEqual(answered["insert an embedded object"], .error(.invalidArgument))
        XCTAssertEqual(answered["delete all objects"], .error(.invalidArgument))
        XCTAssertEqual(answered["index of 9"], .value("1"))
        XCTAssertEqual(answered["index of 9.0 (mixed equality)"], .value("1"))
        XCTAssertEqual(answered["index of a missing value"], .value("nil"))
        XCTAssertEqual(answered["count"], .value("7"))
        XCTAssertEqual(try contents(db.realm.list(plain)), [.int(5), .int(6)])
        // Outside a write, every change is refused the same way; reads work.
        for ref in [plain, nested] {
            let list = db.realm.list(ref)
            expectError(.notInTransaction) { try self.one(.int(1)) { try list.insert($0, at: 0) } }
            expectError(.notInTransaction) { try list.removeAll() }
            XCTAssertEqual(try list.count(), 2)
        }
    }

    func testMapOperationsAnswerTheSameOnAMapPropertyAndANestedDictionary() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let box = try db.write { try db.create("Box", [("anyValue", .nestedDict(0))]) }
        let table = db.cls("Box")
        let plain = try db.realm.collection(.map, table: table, owner: box, property: db.pkey("Box", "props"))
        let nested = try db.realm.collection(.map, table: table, owner: box, property: db.pkey("Box", "anyValue"))
        XCTAssertTrue(nested.isNested)
        typealias Step = (name: String, run: (MapAccess) throws -> Any?)
        let steps: [Step] = [
            ("set b", { map in try self.one(.string("bee")) { v in try self.key("b") { try map.set(v, forKey: $0) } } }),
            ("set a", { map in try self.one(.int(1)) { v in try self.key("a") { try map.set(v, forKey: $0) } } }),
            ("set c to null", { map in try self.key("c") { try map.set(.null, forKey: $0) } }),
            ("set the empty key", { map in try self.one(.double(2)) { v in try self.key("") { try map.set(v, forKey: $0) } } }),
            ("set a to the same", { map in try self.one(.int(1)) { v in try self.key("a") { try map.set(v, forKey: $0) } } }),
            ("set a nested list", { map in try self.one(.nestedList(0)) { v in try self.key("n") { try map.set(v, forKey: $0) } } }),
            ("set a key with a dot", { map in try self.one(.int(1)) { v in try self.key("x.y") { try map.set(v, forKey: $0) } } }),
            ("set a key starting with $", { map in try self.one(.int(1)) { v in try self.key("$x") { try map.set(v, forKey: $0) } } }),
            ("set a key that is not UTF-8", { map in try [UInt8]([0xff, 0xfe]).withUnsafeBytes { k in try map.set(.int(1), forKey: k) } }),
            ("value of a", { map in try self.key("a") { try map.value(forKey: $0) } }),
            ("value of a missing key", { map in try self.key("zz") { try map.value(forKey: $0) } }),
            ("value of a key no map can hold", { map in try self.key("x.y") { try map.value(forKey: $0) } }),
            ("index of c", { map in try self.key("c") { try map.index(ofKey: $0) } }),
            ("index of a missing key", { map in try self.key("bb") { try map.index(ofKey: $0) } }),
            ("entry 1", { map in try map.entry(at: 1) }),
            ("entry past the end", { map in try map.entry(at: try map.count()) }),
            ("range check within", { map in try map.checkRange(start: 0, count: 2) }),
            ("range check past the end", { map in try map.checkRange(start: 2, count: 100) }),
            ("remove b", { map in try self.key("b") { try map.remove($0) } }),
            ("remove b again", { map in try self.key("b") { try map.remove($0) } }),
            ("remove a key no map can hold", { map in try self.key("x.y") { try map.remove($0) } }),
            ("insert an embedded object", { map in try self.key("e") { try map.insertEmbedded(forKey: $0) } }),
            ("count", { map in try map.count() }),
            ("clear", { map in try map.removeAll() }),
            ("set after clearing", { map in try self.one(.int(7)) { v in try self.key("z") { try map.set(v, forKey: $0) } } }),
        ]
        var answered: [String: Outcome] = [:]
        for step in steps {
            var answers: [Outcome] = []
            var states: [[String]] = []
            for ref in [plain, nested] {
                let map = db.realm.map(ref)
                try db.realm.beginWrite()
                answers.append(outcome { try step.run(map) })
                try db.realm.commitWrite()
                states.append(try contents(map))
            }
            XCTAssertEqual(answers[0], answers[1], step.name)
            XCTAssertEqual(states[0], states[1], step.name)
            answered[step.name] = answers[0]
        }
        XCTAssertEqual(answered["set a key with a dot"], .error(.invalidArgument))
        XCTAssertEqual(answered["set a key that is not UTF-8"], .error(.invalidUTF8))
        XCTAssertEqual(answered["value of a"], .value("1"))
        XCTAssertEqual(answered["value of a missing key"], .value("nil"))
        XCTAssertEqual(answered["index of c"], .value("3"))
        XCTAssertEqual(answered["entry past the end"], .error(.indexOutOfBounds))
        XCTAssertEqual(answered["remove b"], .value("true"))
        XCTAssertEqual(answered["remove b again"], .value("false"))
        XCTAssertEqual(answered["insert an embedded object"], .error(.invalidArgument))
        XCTAssertEqual(answered["count"], .value("4"))
        XCTAssertEqual(try contents(db.realm.map(plain)), ["z=7"])
        for ref in [plain, nested] {
            let map = db.realm.map(ref)
            expectError(.notInTransaction) { try self.key("q") { try map.remove($0) } }
            XCTAssertEqual(try map.count(), 1)
        }
    }

    func testAHandleAddressNamesTheSameCollectionAfterItsOwnerGoes() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let (plain, nested) = try lists(db)
        try db.write {
            for ref in [plain, nested] { try self.one(.int(1)) { try db.realm.list(ref).insert($0, at: 0) } }
        }
        XCTAssertTrue(try db.realm.collectionExists(plain))
        XCTAssertTrue(try db.realm.collectionExists(nested))
        XCTAssertFalse(try db.realm.collectionHoldsObjects(plain))
        XCTAssertFalse(try db.realm.collectionHoldsObjects(nested))
        // What only a property collection can do is refused for a nested one
        // before anything else (as the C layer always did), in a write or not.
        expectError(.invalidArgument) { try db.realm.list(nested).deleteAllObjects() }
        expectError(.invalidArgument) { try db.realm.list(nested).insertEmbedded(at: 0) }
        expectError(.notInTransaction) { try db.realm.list(plain).deleteAllObjects() }
        // The nested list goes with the value holding it; both with the owner.
        try db.write { try db.set("Box", plain.owner, "anyValue", .int(3)) }
        XCTAssertTrue(try db.realm.collectionExists(plain))
        XCTAssertFalse(try db.realm.collectionExists(nested))
        expectError(.invalidatedObject) { try db.realm.list(nested).count() }
        try db.write { try db.delete("Box", plain.owner) }
        XCTAssertFalse(try db.realm.collectionExists(plain))
        expectError(.invalidatedObject) { try db.realm.list(plain).count() }
    }
}
