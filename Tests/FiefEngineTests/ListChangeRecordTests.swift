import XCTest
@testable import FiefStorage
@testable import FiefEngine

/// List change records (issue 22, slice 3): operations coalesced as they
/// are made, the record's tag 3 section round trip, what real writes
/// record (read back with `Snapshot.listChanges(since:)`), and a record
/// that older readers' sections leave intact.
final class ListChangeRecordTests: XCTestCase {
    func testCoalescingTable() {
        // (operations made, operations kept)
        let cases: [(String, (inout ListChanges) -> Void, [ListOperation])] = [
            ("appends", { for i in 0..<5 { $0.insert(at: i) } }, [.insert(at: 0, count: 5)]),
            ("inserts at the front", { for _ in 0..<3 { $0.insert(at: 0) } }, [.insert(at: 0, count: 3)]),
            ("erases at one place", { for _ in 0..<4 { $0.erase(at: 2) } }, [.erase(at: 2, count: 4)]),
            ("erases walking back", { $0.erase(at: 5); $0.erase(at: 4); $0.erase(at: 3) }, [.erase(at: 3, count: 3)]),
            ("insert then erase it", { $0.insert(at: 3); $0.erase(at: 3) }, []),
            ("set inside the inserted run", { $0.insert(at: 1, count: 2); $0.set(at: 2) }, [.insert(at: 1, count: 2)]),
            ("set twice", { $0.set(at: 4); $0.set(at: 4) }, [.set(at: 4)]),
            ("move and swap to itself", { $0.move(from: 2, to: 2); $0.swap(1, 1) }, []),
            ("clear of an empty list twice", { $0.clear(size: 3); $0.clear(size: 0) }, [.clear(size: 3)]),
            ("mixed", { $0.insert(at: 0); $0.move(from: 0, to: 3); $0.erase(at: 1); $0.swap(0, 2) },
             [.insert(at: 0, count: 1), .move(from: 0, to: 3), .erase(at: 1, count: 1), .swap(0, 2)]),
        ]
        for (name, body, expected) in cases {
            var changes = ListChanges()
            body(&changes)
            XCTAssertEqual(changes.operations, expected, name)
            XCTAssertFalse(changes.overflowed, name)
        }
        var many = ListChanges()
        for i in 0...ListChanges.operationLimit { many.set(at: i) }
        XCTAssertTrue(many.overflowed)
        XCTAssertTrue(many.operations.isEmpty)
        XCTAssertFalse(many.isEmpty)
        // Overflowed stays so: an insertion opens no run, and what follows an overflowed log is overflowed.
        many.insert(at: 0, count: 3)
        XCTAssertTrue(many.overflowed)
        XCTAssertEqual(many.operationCount, 0)
        var merged = ListChanges()
        merged.insert(at: 0)
        merged.append(many)
        XCTAssertTrue(merged.overflowed)
        XCTAssertEqual(merged, ListChanges(operations: [], overflowed: true))
        merged.append(ListChanges(operations: [.set(at: 1)]))
        XCTAssertEqual(merged, ListChanges(operations: [], overflowed: true))
    }

    func testRecordRoundTrip() {
        let id = ListID(table: 3, column: 7, owner: 1 << 33)
        var record = ChangeRecord(transaction: 42)
        record.lists.append(ListRecord(id, ListChanges(operations: [.insert(at: 0, count: 100_000), .erase(at: 5, count: 2), .set(at: 9),
                                                                    .move(from: 1, to: 4), .swap(2, 3), .clear(size: 7)])))
        record.lists.append(ListRecord(ListID(table: 3, column: 7, owner: 1), ListChanges(operations: [], overflowed: true)))
        // A section longer than 127 bytes (its length two bytes), between two short ones.
        var long = ListChanges()
        for i in 0..<60 { long.set(at: 200 + 2 * i) }
        record.lists.append(ListRecord(ListID(table: 3, column: 7, owner: 2), long))
        record.lists.append(ListRecord(ListID(table: 4, column: 1, owner: 6), ListChanges(operations: [.insert(at: 3, count: 1)])))
        XCTAssertEqual(record.lists.count, 4)
        XCTAssertEqual(Array(record.lists).map(\.id.owner), [1 << 33, 1, 2, 6])
        XCTAssertEqual(Array(record.lists)[2].changes, long)
        // A list twice in one record does not decode.
        var twice = record
        twice.lists.append(Array(record.lists)[1])
        XCTAssertNil(History.encode(twice).withUnsafeBytes { History.decode($0) })
        let bytes = History.encode(record)
        let decoded = bytes.withUnsafeBytes { History.decode($0) }
        XCTAssertEqual(decoded, record)
        // Sections are written in place from their counted size: the count is the varint's.
        for value: UInt64 in [0, 1, 127, 128, 16_383, 16_384, 1 << 33, UInt64(Int32.max), .max] {
            var varint: [UInt8] = []
            History.appendVarint(&varint, value)
            XCTAssertEqual(History.varintSize(value), varint.count, "\(value)")
        }
        // A damaged operation kind (the clear's, the last byte 5) does not decode.
        var damaged = bytes
        if let at = damaged.lastIndex(of: 5) { damaged[at] = 9 }
        XCTAssertNil(damaged.withUnsafeBytes { History.decode($0) })
    }

    func testWritesRecordTheirOperations() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), Schema(classes: [
            ObjectClass(name: "Owner", properties: [prop("name", .string), Property(name: "nums", type: .int, collection: .list),
                                                    Property(name: "items", type: .link, linkTarget: "Item", collection: .list)]),
            ObjectClass(name: "Item", properties: [prop("name", .string)]),
        ]))
        var owner: Int64 = 0, items: [Int64] = []
        try db.write {
            owner = try db.create("Owner", [("name", .string("o"))])
            for i in 0..<4 { items.append(try db.create("Item", [("name", .string("i\(i)"))])) }
            try db.append("Owner", owner, "nums", (0..<5).map { .int(Int64($0)) })
            try db.append("Owner", owner, "items", items.map { .link(db.cls("Item"), $0) })
        }
        let nums = ListID(table: db.cls("Owner"), column: db.pkey("Owner", "nums"), owner: owner)
        let links = ListID(table: db.cls("Owner"), column: db.pkey("Owner", "items"), owner: owner)
        func recorded(_ body: () throws -> Void) throws -> [ListID: ListChanges] {
            let before = try Snapshot(environment: db.realm.environment).version
            try db.write(body)
            return try Snapshot(environment: db.realm.environment).listChanges(since: before) ?? [:]
        }
        let list = db.realm.list(CollectionRef(.list, table: db.cls("Owner"), owner: owner, property: db.pkey("Owner", "nums")))
        XCTAssertEqual(try recorded { try list.move(from: 0, to: 4); try list.swapAt(1, 2) }[nums]?.operations,
                       [.move(from: 0, to: 4), .swap(1, 2)])
        XCTAssertEqual(try recorded { try db.setElement("Owner", owner, "nums", 3, .int(30)) }[nums]?.operations, [.set(at: 3)])
        XCTAssertEqual(try recorded { try list.removeAll() }[nums]?.operations, [.clear(size: 5)])
        // A deleted target: its positions, the list not loaded by the write.
        XCTAssertEqual(try recorded { try db.delete("Item", items[2]) }[links]?.operations, [.erase(at: 2, count: 1)])
        // Nothing else is recorded for a write to another column.
        XCTAssertTrue(try recorded { try db.set("Owner", owner, "name", .string("p")) }.isEmpty)
    }
}
