// Full-text search in the overlay: `@Persisted(fullTextIndexed: true)`
// declares the index, `filter("bio TEXT %@", ...)` and
// `where { $0.bio.fullTextMatches(...) }` search it, through links too; the
// schema reports it and the `fief` tool shows it.

import Fief
import Foundation
import XCTest

class FTSNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(fullTextIndexed: true) var body = ""
    @Persisted(fullTextIndexed: true) var title: String?
    @Persisted var stars = 0

    convenience init(_ id: Int, _ body: String, _ title: String?, stars: Int) {
        self.init()
        self.id = id
        self.body = body
        self.title = title
        self.stars = stars
    }
}

class FTSReader: Object {
    @Persisted var name = ""
    @Persisted var favourite: FTSNote?
    @Persisted var shelf: List<FTSNote>
}

final class FullTextSearchTests: FiefTestCase {
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: fileConfiguration(objectTypes: [FTSNote.self, FTSReader.self]))
        if realm.objects(FTSNote.self).isEmpty {
            try realm.write {
                let notes = [FTSNote(1, "The quick brown fox", "Foxes", stars: 5),
                             FTSNote(2, "A QUICK red Fox jumps", nil, stars: 3),
                             FTSNote(3, "Café au lait", "Café", stars: 4),
                             FTSNote(4, "full-text search is fun", "Search", stars: 1),
                             FTSNote(5, "quickly, quicker, quickest", nil, stars: 2)]
                for note in notes {
                    realm.add(note)
                    let reader = FTSReader()
                    reader.name = "reader \(note.id)"
                    reader.favourite = note
                    reader.shelf.append(note)
                    realm.add(reader)
                }
            }
        }
        return realm
    }

    private func ids(_ results: Results<FTSNote>) -> [Int] { results.map(\.id).sorted() }

    func testFilterWithTEXT() throws {
        let realm = try realm()
        let notes = realm.objects(FTSNote.self)
        let cases: [(String, [Any], [Int])] = [
            ("body TEXT 'quick'", [], [1, 2]),
            ("body TEXT %@", ["QUICK fox"], [1, 2]),
            ("body TEXT %@", ["quick*"], [1, 2, 5]),
            ("body TEXT %@", ["quick -red"], [1]),
            ("body TEXT 'CAFE lait'", [], [3]),
            ("body TEXT 'full text'", [], [4]),
            ("body TEXT '-quick'", [], [3, 4, 5]),
            ("title TEXT 'café'", [], [3]),
            ("title TEXT '-cafe'", [], [1, 2, 4, 5]),
            ("body TEXT 'quick' AND stars > 3", [], [1]),
            ("NOT body TEXT $0", ["quick*"], [3, 4]),
        ]
        for (predicate, arguments, expected) in cases {
            let found = arguments.isEmpty ? notes.filter(predicate) : notes.filter(predicate, arguments[0])
            XCTAssertEqual(ids(found), expected, predicate)
        }
        let readers = realm.objects(FTSReader.self)
        XCTAssertEqual(readers.filter("favourite.body TEXT %@", "fox").map(\.name).sorted(), ["reader 1", "reader 2"])
        XCTAssertEqual(readers.filter("ANY shelf.body TEXT %@", "café").map(\.name), ["reader 3"])
    }

    func testWhereFullTextMatches() throws {
        let realm = try realm()
        let notes = realm.objects(FTSNote.self)
        XCTAssertEqual(ids(notes.where { $0.body.fullTextMatches("quick fox") }), [1, 2])
        XCTAssertEqual(ids(notes.where { $0.body.fullTextMatches("qui* -brown") && $0.stars < 3 }), [5])
        XCTAssertEqual(ids(notes.where { $0.title.fullTextMatches("search") || $0.stars == 5 }), [1, 4])
        XCTAssertEqual(realm.objects(FTSReader.self).where { $0.favourite.body.fullTextMatches("lait") }.map(\.name), ["reader 3"])
    }

    func testLiveAndInsideWrites() throws {
        let realm = try realm()
        let quick = realm.objects(FTSNote.self).where { $0.body.fullTextMatches("quick") }
        XCTAssertEqual(quick.count, 2)
        try realm.write {
            realm.add(FTSNote(6, "quick thinking", nil, stars: 0))
            XCTAssertEqual(ids(quick), [1, 2, 6])
            realm.object(ofType: FTSNote.self, forPrimaryKey: 1)!.body = "slow"
            XCTAssertEqual(ids(quick), [2, 6])
            realm.delete(realm.object(ofType: FTSNote.self, forPrimaryKey: 2)!)
            XCTAssertEqual(ids(quick), [6])
        }
        XCTAssertEqual(ids(quick), [6])
        // An upsert changes the words too.
        try realm.write { realm.add(FTSNote(3, "quick coffee", "Café", stars: 4), update: .modified) }
        XCTAssertEqual(ids(quick), [3, 6])
    }

    func testSchemaReportsTheIndex() throws {
        let realm = try realm()
        let schema = try XCTUnwrap(realm.schema["FTSNote"])
        XCTAssertTrue(schema.properties.first { $0.name == "body" }!.isFullTextIndexed)
        XCTAssertTrue(schema.properties.first { $0.name == "title" }!.isFullTextIndexed)
        XCTAssertFalse(schema.properties.first { $0.name == "stars" }!.isFullTextIndexed)
        XCTAssertFalse(schema.properties.first { $0.name == "body" }!.isIndexed)
        XCTAssertTrue(FTSNote().objectSchema.properties.first { $0.name == "body" }!.isFullTextIndexed)
    }

    /// A search RealmSwift would refuse traps, as every bad predicate does.
    func testBadSearchesTrap() {
        assertTraps("textWithoutFullTextIndex", message: "TEXT needs a full-text index: 'FTSNote.stars' (int) has none")
        assertTraps("textWithTwoWordsInOne", message: "'full-text' is 2 words")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "textWithoutFullTextIndex": { test in
            let realm = try Realm(configuration: test.fileConfiguration(objectTypes: [FTSNote.self, FTSReader.self]))
            _ = realm.objects(FTSNote.self).filter("stars TEXT 'a'")
        },
        "textWithTwoWordsInOne": { test in
            let realm = try Realm(configuration: test.fileConfiguration(objectTypes: [FTSNote.self, FTSReader.self]))
            _ = realm.objects(FTSNote.self).where { $0.body.fullTextMatches("full-text") }.count
        },
    ]
}
