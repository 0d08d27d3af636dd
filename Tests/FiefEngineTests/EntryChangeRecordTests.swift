import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Change records of sets and maps (issue 22): what each commit records per
/// collection (keys inserted, deleted, modified; cleared; owner deleted),
/// known from the entry tables' "stored before" without reading anything
/// back, the same whether the entries were settled before the commit or
/// not, and merged over several commits.
final class EntryChangeRecordTests: XCTestCase {
    private let schema = makeSchema([
        ("Person", [prop("name", .string),
                    Property(name: "ints", type: .int, collection: .set),
                    Property(name: "friends", type: .link, linkTarget: "Dog", collection: .set),
                    Property(name: "scores", type: .int, collection: .map),
                    Property(name: "pets", type: .link, flags: .nullable, linkTarget: "Dog", collection: .map)]),
        ("Dog", [prop("name", .string)]),
    ])

    /// Frozen realms holding the versions `version` returned: records
    /// newer than the oldest reader are kept (`History.trim`).
    private var pins: [Realm] = []

    override func tearDown() {
        for pin in pins { pin.close() }
        pins = []
        super.tearDown()
    }

    /// The current version, held by a frozen realm until the test ends.
    private func version(_ db: DB) throws -> UInt64 {
        let pin = try db.realm.freeze()
        pins.append(pin)
        return try pin.currentSnapshot().version
    }

    /// The changes since `base` of `owner`'s `property`, as text: a set's
    /// elements decoded as ints, a map's keys as strings.
    private func changes(_ db: DB, since base: UInt64, _ owner: Int64, _ property: String) throws -> String {
        guard let all = try db.realm.currentSnapshot().collectionChanges(since: base) else { return "(not recorded)" }
        let id = ListID(table: db.cls("Person"), column: db.pkey("Person", property), owner: owner)
        guard let c = all[id] else { return "" }
        let column = try db.realm.table(db.cls("Person")).column(id.column)
        func text(_ keys: EntryKeys) -> String {
            keys.keys.map { (key) -> String in
                if column.collection == .map { return String(decoding: key, as: UTF8.self) }
                let value = key.withUnsafeBytes { SetStore.decode($0, UnsafeRawBufferPointer(start: nil, count: 0), type: column.elementType, linkTarget: column.linkTarget) }
                switch value {
                case .int(let i)?: return "\(i)"
                case .link(_, let k)?: return "@\(k)"
                default: return "?"
                }
            }.joined(separator: ",")
        }
        var parts: [String] = []
        if c.cleared { parts.append("cleared") }
        if c.ownerDeleted { parts.append("owner deleted") }
        if c.filled { parts.append("filled") }
        if !c.inserted.isEmpty { parts.append("+" + text(c.inserted)) }
        if !c.deleted.isEmpty { parts.append("-" + text(c.deleted)) }
        if !c.modified.isEmpty { parts.append("~" + text(c.modified)) }
        return parts.joined(separator: " ")
    }

    func testSetOperationsAreRecordedPerCommitAndMerged() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        let v0 = try version(db)
        try db.write {
            for i in [3, 1, 2] { try db.setInsert("Person", a, "ints", .int(Int64(i))) }
            try db.setInsert("Person", a, "ints", .int(9))
            try db.setRemove("Person", a, "ints", .int(9))           // added and removed: nothing
        }
        // The set was empty: filled (its keys are what it holds now).
        XCTAssertEqual(try changes(db, since: v0, a, "ints"), "filled")
        let v1 = try version(db)
        try db.write {
            try db.setRemove("Person", a, "ints", .int(2))
            try db.setInsert("Person", a, "ints", .int(4))
            try db.setInsert("Person", a, "ints", .int(1))           // there: nothing
            try db.setRemove("Person", a, "ints", .int(7))           // never there: nothing
        }
        XCTAssertEqual(try changes(db, since: v1, a, "ints"), "+4 -2")
        // Merged: filled, then changed: still filled.
        XCTAssertEqual(try changes(db, since: v0, a, "ints"), "filled")
        let v2 = try version(db)
        try db.write { try db.setRemove("Person", a, "ints", .int(4)) }
        try db.write { try db.setInsert("Person", a, "ints", .int(4)) }
        XCTAssertEqual(try changes(db, since: v2, a, "ints"), "~4")
        let v3 = try version(db)
        try db.write { try db.realm.set(db.ref("Person", a, "ints")).removeAll() }
        XCTAssertEqual(try changes(db, since: v3, a, "ints"), "cleared")
        // Cleared, then filled again: filled.
        let v3b = try version(db)
        try db.write { try db.setInsert("Person", a, "ints", .int(8)) }
        XCTAssertEqual(try changes(db, since: v3b, a, "ints"), "filled")
        XCTAssertEqual(try changes(db, since: v3, a, "ints"), "filled")
        XCTAssertEqual(try changes(db, since: v2, a, "ints"), "filled")
        // A commit touching nothing of the set records nothing for it.
        let v4 = try version(db)
        try db.write { try db.set("Person", a, "name", .string("b")) }
        XCTAssertEqual(try changes(db, since: v4, a, "ints"), "")
    }

    func testMapOperationsAreRecorded() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        let v0 = try version(db)
        try db.write {
            try db.mapSet("Person", a, "scores", "b", .int(1))
            try db.mapSet("Person", a, "scores", "a", .int(1))
            try db.mapSet("Person", a, "scores", "a", .int(2))       // new, set again: inserted
        }
        XCTAssertEqual(try changes(db, since: v0, a, "scores"), "filled")
        let v1 = try version(db)
        try db.write {
            try db.mapSet("Person", a, "scores", "a", .int(5))       // modified
            try db.mapSet("Person", a, "scores", "b", .int(1))       // the same value: nothing
            try db.mapSet("Person", a, "scores", "c", .int(1))
            XCTAssertTrue(try db.mapRemove("Person", a, "scores", "c"))   // inserted and removed: nothing
            XCTAssertTrue(try db.mapRemove("Person", a, "scores", "b"))
        }
        XCTAssertEqual(try changes(db, since: v1, a, "scores"), "-b ~a")
        XCTAssertEqual(try changes(db, since: v0, a, "scores"), "filled")
        // Emptied, then set again: filled.
        let v1b = try version(db)
        try db.write { XCTAssertTrue(try db.mapRemove("Person", a, "scores", "a")) }
        try db.write { try db.mapSet("Person", a, "scores", "a", .int(5)) }
        XCTAssertEqual(try changes(db, since: v1b, a, "scores"), "filled")
        // Removed and set again in one range, the map never empty: modified.
        try db.write { try db.mapSet("Person", a, "scores", "k", .int(1)) }
        let v2 = try version(db)
        try db.write { XCTAssertTrue(try db.mapRemove("Person", a, "scores", "a")) }
        try db.write { try db.mapSet("Person", a, "scores", "a", .int(6)) }
        XCTAssertEqual(try changes(db, since: v2, a, "scores"), "~a")
        // Inserted, then removed in the next commit: nothing over both.
        let v3 = try version(db)
        try db.write { try db.mapSet("Person", a, "scores", "n", .int(1)) }
        let v4 = try version(db)
        try db.write { XCTAssertTrue(try db.mapRemove("Person", a, "scores", "n")) }
        XCTAssertEqual(try changes(db, since: v3, a, "scores"), "")
        XCTAssertEqual(try changes(db, since: v4, a, "scores"), "-n")
    }

    /// A settle before the commit (a range read, a tiny budget) keeps what
    /// the entries changed: the record is the same.
    func testSettledEntriesRecordTheSame() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let a = try db.write { try db.create("Person", [("name", .string("a"))]) }
        try db.write {
            for i in 0..<4 { try db.setInsert("Person", a, "ints", .int(Int64(i))) }
            try db.mapSet("Person", a, "scores", "x", .int(1))
            try db.mapSet("Person", a, "scores", "y", .int(1))
        }
        let v0 = try version(db)
        try db.write {
            try db.setInsert("Person", a, "ints", .int(10))
            try db.setRemove("Person", a, "ints", .int(0))
            _ = try db.set("Person", a, "ints")                      // settles
            try db.setRemove("Person", a, "ints", .int(10))          // inserted before the settle: nothing now
            try db.setRemove("Person", a, "ints", .int(1))
            try db.setInsert("Person", a, "ints", .int(0))           // deleted before the settle: there before and after
            try db.mapSet("Person", a, "scores", "z", .int(1))
            _ = try db.map("Person", a, "scores")                    // settles
            try db.mapSet("Person", a, "scores", "z", .int(2))       // still inserted
            try db.mapSet("Person", a, "scores", "x", .int(2))
        }
        XCTAssertEqual(try changes(db, since: v0, a, "ints"), "-1 ~0")
        XCTAssertEqual(try changes(db, since: v0, a, "scores"), "+z ~x")
    }

    func testOwnerDeletedAndLinkTargetDeleted() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        var a: Int64 = 0, b: Int64 = 0, d: Int64 = 0
        try db.write {
            a = try db.create("Person", [("name", .string("a"))])
            b = try db.create("Person", [("name", .string("b"))])
            d = try db.create("Dog", [("name", .string("d"))])
            try db.setInsert("Person", a, "ints", .int(1))
            try db.setInsert("Person", b, "friends", .link(db.cls("Dog"), d))
            try db.mapSet("Person", b, "pets", "p", .link(db.cls("Dog"), d))
        }
        let v0 = try version(db)
        try db.write { try db.delete("Person", a) }
        XCTAssertEqual(try changes(db, since: v0, a, "ints"), "cleared owner deleted")
        let v1 = try version(db)
        try db.write { try db.delete("Dog", d) }
        XCTAssertEqual(try changes(db, since: v1, b, "friends"), "-@\(d)")
        XCTAssertEqual(try changes(db, since: v1, b, "pets"), "~p")
        // Deleting every object of the class: the class's record says it (cleared), nothing per collection.
        let v2 = try version(db)
        try db.write {
            try db.setInsert("Person", b, "ints", .int(5))
            try db.realm.deleteAll(table: db.cls("Person"))
        }
        XCTAssertEqual(try changes(db, since: v2, b, "ints"), "")
        XCTAssertEqual(try db.realm.currentSnapshot().changes(since: v2)?[db.cls("Person")]?.cleared, true)
    }

    func testRecordsRoundTripAndOldReadersSkipTheSection() throws {
        var changes = EntryChanges()
        changes.inserted = EntryKeys([[1], [1, 2], [3]])
        changes.deleted = EntryKeys([[0]])
        changes.modified = EntryKeys([Array("key".utf8)])
        var cleared = EntryChanges()
        cleared.cleared = true
        cleared.ownerDeleted = true
        cleared.filled = true
        var objects = ObjectChanges()
        objects.inserted = KeySet([1, 2])
        let record = ChangeRecord(transaction: 5, classes: [3: objects],
                                  collections: [ListID(table: 3, column: 2, owner: 7): changes, ListID(table: 3, column: 2, owner: 1): cleared])
        let bytes = History.encode(record)
        XCTAssertEqual(bytes.withUnsafeBytes { History.decode($0) }, record)
        // Keys out of order do not decode.
        var bad = EntryChanges()
        bad.inserted = EntryKeys([[2], [1]])
        let badBytes = History.encode(ChangeRecord(transaction: 5, collections: [ListID(table: 1, column: 1, owner: 1): bad]))
        XCTAssertNil(badBytes.withUnsafeBytes { History.decode($0) })
    }
}
