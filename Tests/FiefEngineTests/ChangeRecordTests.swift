import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// Change records (issue 22, `ChangeLog`, `History`): what each commit
/// records, merged over several commits, trimming by the reader table, the
/// version limit, format 9, and damaged records.
final class ChangeRecordTests: XCTestCase {
    private let schema = Schema(classes: [
        ObjectClass(name: "Person", properties: [
            prop("name", .string),
            Property(name: "home", type: .link, flags: .nullable, linkTarget: "Address"),
        ]),
        ObjectClass(name: "Address", properties: [prop("city", .string)], isEmbedded: true),
        ObjectClass(name: "Dog", properties: [
            prop("name", .string), prop("age", .int), prop("extra", .mixed, .nullable),
            Property(name: "owner", type: .link, flags: .nullable, linkTarget: "Person"),
        ]),
    ])

    /// Three people (keys 0...2) each with a home (Address 0...2), five dogs
    /// (0...4, ages 0...4), dog i owned by person i % 3.
    private func populated(_ dir: TempDir) throws -> DB {
        let db = try DB.open(dir.file(), schema)
        try db.write {
            for p in 0..<3 {
                let person = try db.create("Person", [("name", .string("p\(p)"))])
                _ = try db.realm.createEmbedded(table: db.cls("Person"), key: person, property: db.pkey("Person", "home"))
            }
            for d in 0..<5 {
                try db.create("Dog", [("name", .string("d\(d)")), ("age", .int(Int64(d))),
                                      ("owner", .link(db.cls("Person"), Int64(d % 3)))])
            }
        }
        return db
    }

    private func version(_ db: DB) throws -> UInt64 { try db.realm.currentSnapshot().version }

    /// The merged changes since `base`, as text: per class (by name, sorted)
    /// "Class cleared +[inserted] -[deleted] column[modified] ...".
    private func describe(_ db: DB, since base: UInt64) throws -> String {
        guard let changes = try db.realm.currentSnapshot().changes(since: base) else { return "(not recorded)" }
        return describe(db, changes)
    }

    private func describe(_ db: DB, _ changes: [UInt32: ObjectChanges]) -> String {
        var parts: [String] = []
        for (key, change) in changes {
            let objectClass = db.realm.schema.objectClass(key: key)
            var text = objectClass?.name ?? "#\(key)"
            if change.cleared { text += " cleared" }
            if change.schema.contains(.added) { text += " added" }
            if change.schema.contains(.removed) { text += " removed" }
            if change.schema.contains(.changed) { text += " changed" }
            if !change.inserted.isEmpty { text += " +\(change.inserted.keys)" }
            if !change.deleted.isEmpty { text += " -\(change.deleted.keys)" }
            for column in change.modified.keys.sorted() {
                let name = objectClass?.property(key: column)?.name ?? "#\(column)"
                text += " \(name)\(change.modified[column]!.keys)"
            }
            for pair in change.linkingObjects.keys.sorted() {
                let origin = db.realm.schema.objectClass(key: UInt32(pair >> 32))
                let property = origin?.property(key: UInt32(truncatingIfNeeded: pair))?.name ?? "#\(UInt32(truncatingIfNeeded: pair))"
                text += " @links.\(origin?.name ?? "#\(pair >> 32)").\(property)\(change.linkingObjects[pair]!.keys)"
            }
            parts.append(text)
        }
        return parts.sorted().joined(separator: "; ")
    }

    /// One transaction's record, case by case.
    func testWhatOneCommitRecords() throws {
        let cases: [(String, (DB) throws -> Void, String)] = [
            ("create", { db in try db.create("Dog", [("name", .string("new"))]) }, "Dog +[5]"),
            ("create many", { db in
                try db.createMany("Dog", ["name"], [[.string("a")], [.string("b")], [.string("c")]])
            }, "Dog +[5, 6, 7]"),
            ("update", { db in
                try db.set("Dog", 1, "age", .int(10))
                try db.set("Dog", 2, "name", .string("x"))
                try db.set("Dog", 2, "age", .int(11))
            }, "Dog name[2] age[1, 2]"),
            ("create then update", { db in
                let dog = try db.create("Dog", [("name", .string("new"))])
                try db.set("Dog", dog, "age", .int(3))
            }, "Dog +[5]"),
            ("create then delete", { db in
                let dog = try db.create("Dog", [("name", .string("new"))])
                try db.delete("Dog", dog)
            }, ""),
            ("delete", { db in try db.delete("Dog", 3) }, "Dog -[3]; Person @links.Dog.owner[0]"),
            ("update then delete", { db in
                try db.set("Dog", 0, "age", .int(9))
                try db.delete("Dog", 0)
            }, "Dog -[0]; Person @links.Dog.owner[0]"),
            ("set-based update", { db in
                try TV.withValues([.int(7)]) { v in try db.query("Dog", "age > 1").setValue(v[0], property: db.pkey("Dog", "age")) }
            }, "Dog age[2, 3, 4]"),
            ("results deleteAll", { db in try db.query("Dog", "age < 2").deleteAll() }, "Dog -[0, 1]; Person @links.Dog.owner[0, 1]"),
            ("class emptied", { db in try db.realm.deleteAll(table: db.cls("Dog")) }, "Dog cleared; Person @links.Dog.owner[0, 1, 2]"),
            ("class emptied, then a create", { db in
                try db.realm.deleteAll(table: db.cls("Dog"))
                try db.create("Dog", [("name", .string("new"))])
            }, "Dog cleared +[5]; Person @links.Dog.owner[0, 1, 2]"),
            ("a create, then the class emptied", { db in
                try db.create("Dog", [("name", .string("new"))])
                try db.realm.deleteAll(table: db.cls("Dog"))
            }, "Dog cleared; Person @links.Dog.owner[0, 1, 2]"),
            ("link nulling and embedded cascade", { db in try db.delete("Person", 1) },
             "Address -[1]; Dog owner[1, 4]; Person -[1]"),
            ("embedded object replaced", { db in
                _ = try db.realm.createEmbedded(table: db.cls("Person"), key: 0, property: db.pkey("Person", "home"))
            }, "Address +[3] -[0]; Person home[0]"),
            ("a link moved: both people's linking objects", { db in try db.set("Dog", 0, "owner", .link(db.cls("Person"), 1)) },
             "Dog owner[0]; Person @links.Dog.owner[0, 1]"),
            ("mixed value", { db in try db.set("Dog", 2, "extra", .string("hello")) }, "Dog extra[2]"),
            ("people emptied: links to them nulled", { db in try db.realm.deleteAll(table: db.cls("Person")) },
             "Address -[0, 1, 2]; Dog owner[0, 1, 2, 3, 4]; Person cleared"),
            ("nothing", { _ in }, ""),
        ]
        for (name, body, expected) in cases {
            let dir = tempDir()
            let db = try populated(dir)
            let base = try version(db)
            try db.write { try body(db) }
            XCTAssertEqual(try version(db), base + 1, name)
            XCTAssertEqual(try describe(db, since: base), expected, name)
            db.realm.close()
        }
    }

    /// Records of several commits merged in order (`ObjectChanges.append`).
    func testMergedOverCommits() throws {
        let cases: [(String, [(DB) throws -> Void], String)] = [
            ("update, then delete", [
                { db in try db.set("Dog", 1, "age", .int(10)) },
                { db in try db.delete("Dog", 1) },
            ], "Dog -[1]; Person @links.Dog.owner[1]"),
            ("create, then update, then delete another", [
                { db in try db.create("Dog", [("name", .string("new"))]) },
                { db in try db.set("Dog", 5, "age", .int(1)); try db.set("Dog", 0, "age", .int(1)) },
                { db in try db.delete("Dog", 2) },
            ], "Dog +[5] -[2] age[0]; Person @links.Dog.owner[2]"),
            ("create, then delete it", [
                { db in try db.create("Dog", [("name", .string("new"))]) },
                { db in try db.delete("Dog", 5) },
            ], ""),
            ("update, then class emptied, then create", [
                { db in try db.set("Dog", 1, "age", .int(10)) },
                { db in try db.realm.deleteAll(table: db.cls("Dog")) },
                { db in try db.create("Dog", [("name", .string("new"))]) },
            ], "Address +[3] -[0]; Dog cleared +[5]; Person home[0] @links.Dog.owner[0, 1, 2]"),
        ]
        // Merging with a reader holding the base version: every record is kept.
        for (name, commits, expected) in cases {
            let dir = tempDir()
            let db = try populated(dir)
            let base = try version(db)
            let frozen = try db.realm.freeze()
            for (index, body) in commits.enumerated() {
                try db.write {
                    try body(db)
                    if name.hasPrefix("update, then class") && index == 2 {
                        _ = try db.realm.createEmbedded(table: db.cls("Person"), key: 0, property: db.pkey("Person", "home"))
                    }
                }
            }
            XCTAssertEqual(try describe(db, since: base), expected, name)
            // Each step on its own is there too.
            XCTAssertNotEqual(try describe(db, since: base + 1), "(not recorded)", name)
            frozen.close()
            db.realm.close()
        }
    }

    /// Without a reader, a commit leaves only its own record; with one, every
    /// record newer than the reader's version stays until it lets go.
    func testTrimming() throws {
        let dir = tempDir()
        var config = RealmConfiguration()
        config.inMemoryIdentifier = "records-trim-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        config.schema = schema
        let realm = try Realm.open(config)
        defer { realm.close() }
        _ = dir
        let db = DB(realm)
        try db.write { try db.create("Dog", [("name", .string("d"))]) }
        func entries() throws -> Int {
            let snapshot = try realm.currentSnapshot()
            let dbi = try XCTUnwrap(try realm.environment.existingDatabase(History.database))
            var stat = MDB_stat()
            XCTAssertEqual(mdb_stat(snapshot.txn, dbi, &stat), 0)
            return stat.ms_entries
        }
        func fileSize() -> Int {
            var info = stat()
            return stat(realm.path, &info) == 0 ? Int(info.st_size) : -1
        }
        func commits(_ n: Int) throws {
            for i in 0..<n { try db.write { try db.set("Dog", 0, "age", .int(Int64(i))) } }
        }
        try commits(10_000)
        XCTAssertEqual(try entries(), 1)
        let sizeWithout = fileSize()
        // A reader holds the version: every later record stays.
        let frozen = try realm.freeze()
        let held = try frozen.currentSnapshot().version
        try commits(10_000)
        XCTAssertEqual(try entries(), 10_000)
        let changes = try XCTUnwrap(try realm.currentSnapshot().changes(since: held))
        XCTAssertEqual(describe(db, changes), "Dog age[0]")
        // Released: the next commit trims them all but its own.
        frozen.close()
        try commits(1)
        XCTAssertEqual(try entries(), 1)
        XCTAssertNil(try realm.currentSnapshot().changes(since: held))
        let sizeAfter = fileSize()
        // Bounded: another 10,000 commits without a reader do not grow the file.
        try commits(10_000)
        XCTAssertEqual(try entries(), 1)
        XCTAssertLessThanOrEqual(fileSize(), max(sizeAfter, sizeWithout * 2))
    }

    /// `maxActiveVersions`: frozen snapshots held past the limit make
    /// `beginWrite` fail, writing nothing; released, the write goes on.
    func testVersionLimit() throws {
        let dir = tempDir()
        var config = RealmConfiguration()
        config.path = dir.file()
        config.schema = schema
        config.maxActiveVersions = 3
        let realm = try Realm.open(config)
        defer { realm.close() }
        let db = DB(realm)
        try db.write { try db.create("Dog", [("name", .string("d"))]) }
        // RealmSwift's case: a frozen version v, then two writes (v + 1,
        // v + 2); the next write would make a fourth active version.
        let pinned = try realm.freeze()
        try db.write { try db.set("Dog", 0, "age", .int(1)) }
        try db.write { try db.set("Dog", 0, "age", .int(2)) }
        let before = try version(db)
        let error = expectError(.tooManyVersions) { try realm.beginWrite() }
        XCTAssertEqual(error?.message, "Number of active versions (4) in the Realm exceeded the limit of 3")
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(try version(db), before)
        pinned.close()
        try db.write { try db.set("Dog", 0, "age", .int(3)) }
        XCTAssertEqual(try db.get("Dog", 0, "age"), .int(3))
        // Without a limit, any number of versions.
        var unlimited = config
        unlimited.maxActiveVersions = nil
        let other = try Realm.open(unlimited)
        defer { other.close() }
        let frozen = try other.freeze()
        for i in 0..<5 { try DB(other).write { try DB(other).set("Dog", 0, "age", .int(Int64(i))) } }
        frozen.close()
    }

    /// Schema changes are recorded per class.
    func testSchemaChanges() throws {
        let dir = tempDir()
        let db = try populated(dir)
        defer { db.realm.close() }
        let frozen = try db.realm.freeze()
        defer { frozen.close() }
        var base = try version(db)
        // Additive, in a write transaction.
        try db.write {
            try db.realm.updateSchema(Schema(classes: [ObjectClass(name: "Cat", properties: [prop("name", .string)])]))
            try db.create("Cat", [("name", .string("c"))])
        }
        XCTAssertEqual(try describe(db, since: base), "Cat added +[0]")
        base = try version(db)
        // On its own commit: a property added to Dog.
        var changed = schema
        changed.classes[2].properties.append(prop("tag", .string, .nullable))
        try db.realm.updateSchema(changed)
        XCTAssertEqual(try version(db), base + 1)
        XCTAssertEqual(try describe(db, since: base), "Dog changed")
    }

    /// A record with a flipped bit is `FIEF_ERR_FILE_CORRUPT` when read and
    /// a problem `fief verify` reports; `write_copy` starts with none.
    func testDamagedRecord() throws {
        let dir = tempDir()
        let path = dir.file()
        var base: UInt64 = 0
        do {
            let db = try populated(dir)
            base = try version(db)
            try db.write { try db.set("Dog", 1, "age", .int(10)) }
            db.realm.close()
        }
        // Flip one bit of the last record's body.
        withRawLMDB(path, database: History.database) { txn, dbi in
            var key = History.key(base + 1)
            key.withUnsafeMutableBytes { raw in
                var k = MDB_val(mv_size: 8, mv_data: raw.baseAddress)
                var v = MDB_val()
                XCTAssertEqual(mdb_get(txn, dbi, &k, &v), 0)
                var bytes = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                bytes[9] ^= 0x10
                bytes.withUnsafeMutableBytes { b in
                    var value = MDB_val(mv_size: b.count, mv_data: b.baseAddress)
                    XCTAssertEqual(mdb_put(txn, dbi, &k, &value, 0), 0)
                }
            }
        }
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        let error = expectError(.fileCorrupt) { _ = try db.realm.currentSnapshot().changes(since: base) }
        XCTAssertTrue(error?.message.contains("change record of version \(base + 1)") ?? false, error?.message ?? "")
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems.first?.contains("change records are damaged: version \(base + 1)") ?? false, "\(problems)")
        // A copy has no records, and verifies clean.
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try db.realm.writeCopy(to: copy) { _, _ in }, 0)
        var copyProblems: [String] = [], infos: [String] = []
        _ = try FileCheck.verify(path: copy) { kind, text in
            if kind == .problem { copyProblems.append(text) } else { infos.append(text) }
        }
        XCTAssertEqual(copyProblems, [])
        XCTAssertTrue(infos.contains("history: 0 change records"), "\(infos)")
        // The damaged record is trimmed by the next commit (nobody reads it).
        try db.write { try db.set("Dog", 2, "age", .int(10)) }
        XCTAssertEqual(try describe(db, since: base + 1), "Dog age[2]")
    }

    /// The encoding round-trips every key-set form (full cluster, bitmap,
    /// slot list) and skips sections it does not know.
    func testEncoding() throws {
        var changes = ObjectChanges()
        changes.inserted.add(Bitmap(repeating: .max), cluster: 3)
        changes.inserted.insert(5000)
        changes.deleted = KeySet((0..<40).map { Int64($0 * 3) })
        changes.modified[2] = KeySet([7, 1 << 39])
        changes.cleared = true
        changes.schema = .changed
        let record = ChangeRecord(transaction: 77, classes: [4: changes, 1: ObjectChanges()])
        var bytes = History.encode(record)
        XCTAssertEqual(bytes.withUnsafeBytes { History.decode($0) }, record)
        // An unknown section (tag 9, 3 bytes) is skipped.
        bytes += [9, 3, 1, 2, 3]
        XCTAssertEqual(bytes.withUnsafeBytes { History.decode($0) }, record)
        // Truncated anywhere: nil, never a crash.
        for cut in 0..<(bytes.count - 5) {
            let prefix = Array(bytes[0..<cut])
            if cut >= 8, prefix.withUnsafeBytes({ History.decode($0) }) == record { continue }
            _ = prefix.withUnsafeBytes { History.decode($0) }
        }
        // 100,000 updated objects (400 full clusters of one column): small.
        var update = ObjectChanges()
        for cluster in 0..<Int64(400) { update.modified[3, default: KeySet()].add(Bitmap(repeating: .max), cluster: cluster) }
        let size = History.encode(ChangeRecord(transaction: 1, classes: [1: update])).count
        XCTAssertLessThan(size, 500)
        // The benchmark's update (one column of objects 0..<100,000): 390
        // whole clusters and one bitmap, 442 bytes and the 4-byte seal.
        let benchmark = ObjectChanges.modifying(column: 3, keys: 0..<100_000)
        XCTAssertEqual(History.encode(ChangeRecord(transaction: 1, classes: [1: benchmark])).count, 442)
    }

    /// A format-8 file: a read-only open reads it without history; a writable
    /// open adds the history database (format 9) and records from then on.
    func testFormat8Upgrade() throws {
        let dir = tempDir()
        let path = dir.file()
        do {
            let db = try populated(dir)
            db.realm.close()
        }
        // Make it format 8: no history database, the format number 8.
        withRawLMDB(path, database: History.database) { txn, dbi in XCTAssertEqual(mdb_drop(txn, dbi, 1), 0) }
        Format6Tests.setFormat(path, 8)
        XCTAssertEqual(Format6Tests.storedFormat(path), 8)
        do {
            let db = try DB.open(path, nil, readOnly: true)
            XCTAssertEqual(try db.count("Dog"), 5)
            XCTAssertNil(try db.realm.currentSnapshot().changes(since: 0))
            db.realm.close()
        }
        XCTAssertEqual(Format6Tests.storedFormat(path), 8)
        let db = try DB.open(path, schema)
        defer { db.realm.close() }
        XCTAssertEqual(Format6Tests.storedFormat(path), MetaKeys.formatValue)
        let base = try version(db)
        try db.write { try db.delete("Dog", 4) }
        XCTAssertEqual(try describe(db, since: base), "Dog -[4]; Person @links.Dog.owner[1]")
        var problems: [String] = []
        _ = try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }
        XCTAssertEqual(problems, [])
    }
}

extension ObjectChanges {
    static func modifying(column: UInt32, keys: Range<Int64>) -> ObjectChanges {
        var changes = ObjectChanges()
        changes.modified[column] = KeySet(keys)
        return changes
    }
}
