import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// To-one links: schema rules, set, follow, clear, backlinks kept exact,
/// and every link to a deleted object nulled in the same transaction.
final class LinkTests: XCTestCase {
    private let schema = makeSchema([
        ("Dog", [prop("name", .string), prop("age", .int)]),
        ("Person", [prop("name", .string),
                    Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog"),
                    Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Person")]),
    ])

    /// The objects linking to `target` of `className`, as (class, property, origin, count).
    private func referrers(_ db: DB, _ className: String, _ target: Int64) throws -> [(String, String, Int64, UInt32)] {
        let realm = db.realm
        let table = try realm.table(db.cls(className))
        guard let dbi = table.backlinks else { return [] }
        var found: [(String, String, Int64, UInt32)] = []
        let read: (OpaquePointer) throws -> Void = { txn in
            try Backlinks.forEach(txn, dbi, target: target) { (cls, prop, origin, count) throws(FiefError) in
                let origins = try realm.table(cls)
                found.append((origins.objectClass.name, try origins.property(prop).name, origin, count))
            }
        }
        if let write = realm.write { try Backlinks.settle(write, dbi); try read(write.txn) } else { try read(try realm.currentSnapshot().txn) }
        return found
    }

    func testSchemaRulesForLinks() throws {
        func refused(_ classes: [(String, [Property])], _ fragment: String, embedded: String? = nil, line: UInt = #line) {
            var schema = makeSchema(classes)
            if let embedded, let i = schema.classes.firstIndex(where: { $0.name == embedded }) { schema.classes[i].isEmbedded = true }
            let error = expectError(.invalidSchema, line: line) { try schema.validate() }
            XCTAssertTrue(error?.message.contains(fragment) ?? false, "\(error?.message ?? "")", line: line)
        }
        refused([("A", [Property(name: "b", type: .link, flags: .nullable)])], "has no target class")
        refused([("A", [Property(name: "b", type: .link, flags: .nullable, linkTarget: "Nope")])], "which the schema does not have")
        refused([("A", [Property(name: "b", type: .link, linkTarget: "A")])], "must be optional")
        refused([("A", [Property(name: "n", type: .int, linkTarget: "A")])], "cannot have a link target")
        refused([("A", [Property(name: "b", type: .link, flags: [.nullable, .indexed], linkTarget: "A")])], "cannot be indexed")
        refused([("A", [Property(name: "b", type: .link, flags: [.nullable, .primaryKey], linkTarget: "A")])], "cannot be a primary key")
        refused([("E", [prop("id", .int, .primaryKey)])], "embedded class 'E' cannot have a primary key", embedded: "E")
        XCTAssertNoThrow(try schema.validate())
    }

    func testSetFollowClearAndReopen() throws {
        let dir = tempDir()
        let path = dir.file()
        var dogClass: UInt32 = 0, rex: Int64 = 0, ann: Int64 = 0
        do {
            let db = try DB.open(path, schema)
            dogClass = db.cls("Dog")
            try db.write {
                rex = try db.create("Dog", [("name", .string("Rex")), ("age", .int(3))])
                ann = try db.create("Person", [("name", .string("Ann")), ("dog", .link(dogClass, rex))])
                _ = try db.create("Person", [("name", .string("Bob"))])
            }
            XCTAssertEqual(try db.get("Person", ann, "dog"), .link(dogClass, rex))
            XCTAssertEqual(try db.get("Person", ann + 1, "dog"), .null)
            // Following the link: the target's properties.
            XCTAssertEqual(try db.get("Dog", rex, "name"), .string("Rex"))
            XCTAssertEqual(try referrers(db, "Dog", rex).map { "\($0.0).\($0.1) \($0.2) x\($0.3)" }, ["Person.dog \(ann) x1"])
            // Set again, to the same and to another dog; then clear.
            try db.write {
                try db.set("Person", ann, "dog", .link(dogClass, rex))
                let max = try db.create("Dog", [("name", .string("Max"))])
                try db.set("Person", ann + 1, "dog", .link(dogClass, max))
                XCTAssertEqual(try referrers(db, "Dog", max).count, 1)
                try db.set("Person", ann + 1, "dog", .null)
                XCTAssertEqual(try referrers(db, "Dog", max).count, 0)
            }
            XCTAssertEqual(try referrers(db, "Dog", rex).count, 1)
            db.realm.close()
        }
        // The link and its target class survive a reopen.
        do {
            let db = try DB.open(path, nil, readOnly: true)
            XCTAssertEqual(db.realm.schema.objectClass(named: "Person")?.property(named: "dog")?.linkTarget, "Dog")
            XCTAssertEqual(try db.get("Person", ann, "dog"), .link(dogClass, rex))
        }
        // Another target for the same property is a schema change.
        let changed = makeSchema([
            ("Dog", [prop("name", .string), prop("age", .int)]),
            ("Person", [prop("name", .string),
                        Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Person"),
                        Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Person")]),
        ])
        let error = expectError(.schemaMismatch) { try DB.open(path, changed) }
        XCTAssertTrue(error?.message.contains("link to 'Dog'") ?? false, error?.message ?? "")
    }

    func testBadLinksAreRefusedAndChangeNothing() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        var rex: Int64 = 0, ann: Int64 = 0, gone: Int64 = 0
        try db.write {
            rex = try db.create("Dog", [("name", .string("Rex"))])
            gone = try db.create("Dog", [("name", .string("Gone"))])
            ann = try db.create("Person", [("name", .string("Ann")), ("dog", .link(dogClass, rex))])
            try db.delete("Dog", gone)
        }
        try db.write {
            expectError(.typeMismatch, "links to 'Dog' objects, not to an object of class 'Person'") {
                try db.set("Person", ann, "dog", .link(personClass, ann))
            }
            expectError(.noSuchObject, "does not exist") { try db.set("Person", ann, "dog", .link(dogClass, gone)) }
            expectError(.noSuchObject) { try db.set("Person", ann, "dog", .link(dogClass, 999_999)) }
            expectError(.typeMismatch, "unknown class 77") { try db.set("Person", ann, "dog", .link(77, 0)) }
            expectError(.typeMismatch, "holds links to 'Dog' objects, not int values") { try db.set("Person", ann, "dog", .int(Int64(rex))) }
            expectError(.typeMismatch) { try db.set("Person", ann, "name", .link(dogClass, rex)) }
            // All or nothing: a bad link among good values writes none of them.
            expectError(.noSuchObject) {
                try db.setMany("Person", ann, [("name", .string("Changed")), ("dog", .link(dogClass, gone))])
            }
            expectError(.noSuchObject) { try db.create("Person", [("name", .string("Eve")), ("dog", .link(dogClass, gone))]) }
        }
        XCTAssertEqual(try db.get("Person", ann, "name"), .string("Ann"))
        XCTAssertEqual(try db.get("Person", ann, "dog"), .link(dogClass, rex))
        XCTAssertEqual(try db.count("Person"), 1)
        XCTAssertEqual(try referrers(db, "Dog", rex).count, 1)
        // Outside a write transaction.
        expectError(.notInTransaction) { try db.set("Person", ann, "dog", .null) }
    }

    func testDeletingATargetNullsEveryLinkToIt() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        var rex: Int64 = 0, people: [Int64] = []
        try db.write {
            rex = try db.create("Dog", [("name", .string("Rex"))])
            for i in 0..<600 {
                people.append(try db.create("Person", [("name", .string("p\(i)")), ("dog", i % 3 == 0 ? .link(dogClass, rex) : .null)]))
            }
            // Friends in a ring, and one who is her own friend.
            for (i, p) in people.enumerated() {
                try db.set("Person", p, "friend", .link(personClass, people[(i + 1) % people.count]))
            }
            try db.set("Person", people[5], "friend", .link(personClass, people[5]))
        }
        XCTAssertEqual(try referrers(db, "Dog", rex).count, 200)
        XCTAssertEqual(try db.keys("Person", "dog == $0", [.link(dogClass, rex)]).count, 200)
        XCTAssertEqual(try db.keys("Person", "dog == nil").count, 400)
        XCTAssertEqual(try db.keys("Person", "dog != NULL").count, 200)

        try db.write { try db.delete("Dog", rex) }
        XCTAssertEqual(try db.keys("Person", "dog != nil").count, 0)
        XCTAssertEqual(try db.get("Person", people[0], "dog"), .null)

        // Deleting a person: her friend link to the next goes, and the link
        // from the previous one to her becomes null; a self link too.
        try db.write {
            try db.delete("Person", people[10])
            try db.delete("Person", people[5])
        }
        XCTAssertEqual(try db.get("Person", people[9], "friend"), .null)
        XCTAssertEqual(try db.get("Person", people[4], "friend"), .null)
        XCTAssertEqual(try referrers(db, "Person", people[11]).count, 0)
        XCTAssertEqual(try referrers(db, "Person", people[12]).map { $0.2 }, [people[11]])
        XCTAssertEqual(try db.get("Person", people[11], "friend"), .link(personClass, people[12]))

        // A cancelled delete changes nothing.
        try db.realm.beginWrite()
        try db.delete("Person", people[20])
        XCTAssertEqual(try db.get("Person", people[19], "friend"), .null)
        db.realm.cancelWrite()
        XCTAssertEqual(try db.get("Person", people[19], "friend"), .link(personClass, people[20]))
        XCTAssertEqual(try referrers(db, "Person", people[20]).map { $0.2 }, [people[19]])
    }

    func testDeletingEveryObjectOfAClass() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dogClass = db.cls("Dog")
        var dogs: [Int64] = [], people: [Int64] = []
        try db.write {
            for i in 0..<300 { dogs.append(try db.create("Dog", [("name", .string("d\(i)"))])) }
            for i in 0..<300 { people.append(try db.create("Person", [("name", .string("p\(i)")), ("dog", .link(dogClass, dogs[i]))])) }
        }
        try db.write { try db.realm.deleteAll(table: dogClass) }
        XCTAssertEqual(try db.keys("Person", "dog != nil").count, 0)
        XCTAssertEqual(try db.count("Person"), 300)
        // New dogs get new keys; links to them start from nothing.
        try db.write {
            let fido = try db.create("Dog", [("name", .string("Fido"))])
            try db.set("Person", people[0], "dog", .link(dogClass, fido))
            XCTAssertEqual(try referrers(db, "Dog", fido).count, 1)
            try db.realm.deleteAll(table: db.cls("Person"))
            XCTAssertEqual(try referrers(db, "Dog", fido).count, 0)
        }
    }

    func testQueriesAndSortsOnLinks() throws {
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let dogClass = db.cls("Dog"), personClass = db.cls("Person")
        var rex: Int64 = 0
        try db.write {
            rex = try db.create("Dog", [("name", .string("Rex"))])
            _ = try db.create("Person", [("name", .string("Ann")), ("dog", .link(dogClass, rex))])
        }
        XCTAssertEqual(try db.keys("Person", "dog != $0", [.link(dogClass, rex)]), [])
        expectError(.queryArgument, "another class") { try db.keys("Person", "dog == $0", [.link(personClass, 0)]) }
        expectError(.queryArgument) { try db.keys("Person", "dog == $0", [.int(rex)]) }
        expectError(.queryArgument) { try db.keys("Person", "dog < $0", [.link(dogClass, rex)]) }
        expectError(.queryInvalid, "links to 'Dog'") { try db.keys("Person", "dog == friend") }
        expectError(.queryInvalid, "it is a link") { try db.results("Person").sorted(by: [("dog", true)]) }
    }

    func testVerifyChecksLinksAndCopyRebuildsThem() throws {
        let dir = tempDir()
        let path = dir.file("links.fief")
        var dogClass: UInt32 = 0, rex: Int64 = 0, ann: Int64 = 0
        do {
            let db = try DB.open(path, schema)
            dogClass = db.cls("Dog")
            try db.write {
                rex = try db.create("Dog", [("name", .string("Rex"))])
                ann = try db.create("Person", [("name", .string("Ann")), ("dog", .link(dogClass, rex))])
                _ = try db.create("Person", [("name", .string("Bob")), ("dog", .link(dogClass, rex))])
            }
            db.realm.close()
        }
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)
        // The copy's backlinks are made from its links: deleting the dog there nulls both.
        let copy = dir.file("copy.fief")
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try FileCheck.verify(path: copy) { _, _ in }, 0)
        do {
            let db = try DB.open(copy, schema)
            XCTAssertEqual(try referrers(db, "Dog", rex).count, 2)
            try db.write { try db.delete("Dog", rex) }
            XCTAssertEqual(try db.keys("Person", "dog != nil"), [])
            db.realm.close()
        }
        // A backlink that went missing is reported.
        withRawLMDB(path, database: Table.backlinksName(dogClass)) { txn, dbi in
            do { try Backlinks.remove(txn, dbi, target: rex, originClass: dogClass + 1, property: 2, origin: ann) } catch { XCTFail("\(error)") }
        }
        var problems: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 1)
        XCTAssertTrue(problems.contains { $0.contains("1 of its links 'dog' are not recorded") }, "\(problems)")
    }

    func testEmbeddedObjectsLiveAndDieWithTheirParent() throws {
        var schema = makeSchema([
            ("Address", [prop("street", .string)]),
            ("Person", [prop("name", .string), Property(name: "home", type: .link, flags: .nullable, linkTarget: "Address")]),
        ])
        schema.classes[0].isEmbedded = true
        let dir = tempDir()
        let db = try DB.open(dir.file(), schema)
        let addressClass = db.cls("Address"), personClass = db.cls("Person"), home = db.pkey("Person", "home")
        expectError(.invalidArgument, "is embedded") { try db.results("Address") }
        var people: [Int64] = []
        try db.write {
            expectError(.invalidArgument, "created in place") { try db.create("Address", [("street", .string("x"))]) }
            for i in 0..<300 {
                let p = try db.create("Person", [("name", .string("p\(i)"))])
                let child = try db.realm.createEmbedded(table: personClass, key: p, property: home)
                XCTAssertEqual(child.classKey, addressClass)
                try db.set("Address", child.objectKey, "street", .string("street \(i)"))
                people.append(p)
            }
        }
        var addresses = 0
        for (_, live) in try db.realm.clusters(try db.realm.table(addressClass)) {
            for word in 0..<4 { addresses += live[word].nonzeroBitCount }
        }
        XCTAssertEqual(addresses, 300)
        try db.write {
            try db.delete("Person", people[0])
            try db.realm.deleteAll(table: personClass)
        }
        XCTAssertEqual(try db.realm.clusters(try db.realm.table(addressClass)).count, 0)
    }

    /// The records of class `className`'s backlinks, as "Origin.property" per record.
    private func backlinkOrigins(_ db: DB, _ className: String) throws -> [String] {
        let realm = db.realm
        let table = try realm.table(db.cls(className))
        guard let dbi = table.backlinks else { return [] }
        var found: [String] = []
        let txn = try realm.currentSnapshot().txn
        try Backlinks.forEachRecord(txn, dbi) { (_, cls, prop, _, _) throws(FiefError) in
            let origin = try realm.table(cls)
            found.append("\(origin.objectClass.name).\((try? origin.property(prop).name) ?? "#\(prop)")")
        }
        return found
    }

    private func verifyClean(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var problems: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 0,
                       problems.joined(separator: "\n"), file: file, line: line)
    }

    func testDroppingLinksInAMigrationDropsTheirBacklinks() throws {
        let dir = tempDir()
        let path = dir.file()
        let dogs = ("Dog", [prop("name", .string)])
        func person(_ extra: [Property]) -> (String, [Property]) { ("Person", [prop("name", .string)] + extra) }
        let dogLink = Property(name: "dog", type: .link, flags: .nullable, linkTarget: "Dog")
        let dogList = Property(name: "dogs", type: .link, linkTarget: "Dog", collection: .list)
        let cat = ("Cat", [Property(name: "friend", type: .link, flags: .nullable, linkTarget: "Dog")])
        var d: [Int64] = [], p: [Int64] = []
        var dogClass: UInt32 = 0
        do {
            let db = try DB.open(path, makeSchema([dogs, person([dogLink, dogList]), cat]))
            dogClass = db.cls("Dog")
            try db.write {
                for i in 0..<3 { d.append(try db.create("Dog", [("name", .string("d\(i)"))])) }
                for i in 0..<300 {
                    p.append(try db.create("Person", [("name", .string("p\(i)")), ("dog", .link(dogClass, d[i % 3]))]))
                    try db.append("Person", p[i], "dogs", [.link(dogClass, d[0]), .link(dogClass, d[(i + 1) % 3]), .link(dogClass, d[0])])
                }
                _ = try db.create("Cat", [("friend", .link(dogClass, d[0]))])
            }
            XCTAssertEqual(try backlinkOrigins(db, "Dog").filter { $0 == "Person.dog" }.count, 300)
            db.realm.close()
        }
        try verifyClean(path)
        func linking(_ db: DB, _ target: Int64, _ className: String, _ property: String) throws -> Int {
            try ObjectResults(realm: db.realm, linkingTo: target, of: dogClass, originClass: db.cls(className), property: db.pkey(className, property)).count()
        }
        // The to-one link goes: exactly its entries leave Dog's backlinks.
        do {
            let db = try DB.open(path, makeSchema([dogs, person([dogList]), cat]), version: 1)
            let origins = try backlinkOrigins(db, "Dog")
            // Person.dogs: one entry per (dog, person), d0 listed two or three times counting once.
            XCTAssertEqual(origins.count, 200 * 2 + 100 + 1, "\(Set(origins))")
            XCTAssertEqual(Set(origins), ["Person.dogs", "Cat.friend"])
            XCTAssertEqual(try linking(db, d[0], "Person", "dogs"), 300)
            XCTAssertEqual(try linking(db, d[1], "Person", "dogs"), 100)
            XCTAssertEqual(try linking(db, d[0], "Cat", "friend"), 1)
            db.realm.close()
        }
        try verifyClean(path)
        // The list of links goes.
        do {
            let db = try DB.open(path, makeSchema([dogs, person([]), cat]), version: 2)
            XCTAssertEqual(try backlinkOrigins(db, "Dog"), ["Cat.friend"])
            XCTAssertEqual(try linking(db, d[0], "Cat", "friend"), 1)
            db.realm.close()
        }
        try verifyClean(path)
        // The last link to Dog goes: nothing is left in its backlinks, so a
        // link added later starts from nothing (it may even reuse the key).
        do {
            let db = try DB.open(path, makeSchema([dogs, person([]), ("Cat", [prop("name", .string)])]), version: 3)
            XCTAssertNil(try db.realm.table(dogClass).backlinks)
            db.realm.close()
        }
        try verifyClean(path)
        do {
            let db = try DB.open(path, makeSchema([dogs, person([dogLink]), ("Cat", [prop("name", .string)])]), version: 3)
            XCTAssertEqual(try backlinkOrigins(db, "Dog"), [])
            try db.write { try db.set("Person", p[0], "dog", .link(dogClass, d[1])) }
            XCTAssertEqual(try linking(db, d[1], "Person", "dog"), 1)
            XCTAssertEqual(try linking(db, d[0], "Person", "dog"), 0)
            db.realm.close()
        }
        try verifyClean(path)
        // A link whose type changes loses its backlinks too.
        do {
            let db = try DB.open(path, makeSchema([dogs, person([prop("dog", .int)]), ("Cat", [prop("name", .string)])]), version: 4)
            XCTAssertNil(try db.realm.table(dogClass).backlinks)
            db.realm.close()
        }
        try verifyClean(path)
    }

    func testLeavingOutALinkingClassKeepsItsLinks() throws {
        // A class left out of a migrated schema stays in the file with its
        // data (as in Realm), so its links and their backlinks stay exact.
        let dir = tempDir()
        let path = dir.file()
        let dogs = ("Dog", [prop("name", .string)])
        let owner = ("Owner", [Property(name: "pet", type: .link, flags: .nullable, linkTarget: "Dog"),
                               Property(name: "pets", type: .link, linkTarget: "Dog", collection: .list)])
        var rex: Int64 = 0, max: Int64 = 0, ann: Int64 = 0
        do {
            let db = try DB.open(path, makeSchema([dogs, owner]))
            let dog = db.cls("Dog")
            try db.write {
                rex = try db.create("Dog", [("name", .string("Rex"))])
                max = try db.create("Dog", [("name", .string("Max"))])
                ann = try db.create("Owner", [("pet", .link(dog, rex))])
                try db.append("Owner", ann, "pets", [.link(dog, rex), .link(dog, max)])
            }
            db.realm.close()
        }
        let db = try DB.open(path, makeSchema([dogs]), version: 1)
        try verifyClean(path)
        let dog = db.cls("Dog")
        XCTAssertEqual(try ObjectResults(realm: db.realm, linkingTo: rex, of: dog, originClass: db.cls("Owner"), property: db.pkey("Owner", "pet")).count(), 1)
        XCTAssertEqual(try ObjectResults(realm: db.realm, linkingTo: max, of: dog, originClass: db.cls("Owner"), property: db.pkey("Owner", "pets")).count(), 1)
        try db.write { try db.delete("Dog", rex) }
        XCTAssertEqual(try db.get("Owner", ann, "pet"), .null)
        XCTAssertEqual(try db.list("Owner", ann, "pets"), [.link(dog, max)])
        db.realm.close()
        try verifyClean(path)
    }
}
