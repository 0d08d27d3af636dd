import XCTest
@testable import FiefStorage
import CLMDB
@testable import FiefEngine

/// `TEXT` full-text search over full-text-indexed string properties
/// (Query/FullText.swift): realm-core's tokenizer, its test cases
/// (test_query2.cpp Query_FullText, Query_FullTextMulti,
/// Query_FullTextPrefix) as tables, random texts against a model through
/// creates, updates and deletes, schema changes adding and removing the
/// index, and the errors.
final class FullTextTests: XCTestCase {
    static let text = Property(name: "text", type: .string, flags: [.nullable, .fullTextIndexed])

    static func schema(indexed: Bool = true) -> Schema {
        var text = FullTextTests.text
        if !indexed { text.flags.remove(.fullTextIndexed) }
        return Schema(classes: [
            ObjectClass(name: "Doc", properties: [text, prop("n", .int)]),
            ObjectClass(name: "Origin", properties: [
                prop("id", .int, .primaryKey),
                Property(name: "link", type: .link, linkTarget: "Doc", collection: .list),
                Property(name: "one", type: .link, flags: .nullable, linkTarget: "Doc"),
            ]),
        ])
    }

    // MARK: Tokens

    func testTokensAreRealmCoresLowerCasedWithoutDiacritics() {
        let cases: [(String, [String])] = [
            (" This is a test, with  spaces!", ["this", "is", "a", "test", "with", "spaces"]),
            ("full-text", ["full", "text"]),
            ("DANCING café Café CAFÉ", ["dancing", "cafe", "cafe", "cafe"]),
            ("ÀÁÂÃÄ àáâãä Ç ç ÈÉÊË èéêë ÌÍÎÏ ìíîï Ñ ñ ÒÓÔÕÖ òóôõö ÙÚÛÜ ùúûü Ý ý",
             ["aaaaa", "aaaaa", "c", "c", "eeee", "eeee", "iiii", "iiii", "n", "n", "ooooo", "ooooo", "uuuu", "uuuu", "y", "y"]),
            // Kept as they are (capitals folded to them).
            ("Åse åse Æbler æbler Øl øl Ðe ðe Þorn þorn Großarl", ["åse", "åse", "æbler", "æbler", "øl", "øl", "ðe", "ðe", "þorn", "þorn", "großarl"]),
            // × and ÷ are part of a token but leave nothing in it.
            ("2×3 6÷2", ["23", "62"]),
            // ÿ, other scripts and three- or four-byte characters separate tokens.
            ("aÿb", ["a", "b"]),
            ("Ål, ø og 你好世界Æbler", ["ål", "ø", "og", "æbler"]),
            ("αβγ word Привет", ["word"]),
            ("emoji😀inside", ["emoji", "inside"]),
            ("C++ and C#", ["c", "and", "c"]),
            ("mid-1970s O2[6] 1.5", ["mid", "1970s", "o2", "6", "1", "5"]),
            ("", []),
            ("  ,;!  ", []),
            ("tab\tnew\nline", ["tab", "new", "line"]),
        ]
        for (text, expected) in cases {
            var tokens: [String] = []
            Array(text.utf8).withUnsafeBytes { raw in
                FullTextTokenizer.forEachToken(raw) { tokens.append(String(decoding: $0, as: UTF8.self)) }
            }
            XCTAssertEqual(tokens, expected, text)
        }
        // A token keeps its first 64 bytes (a two-byte letter is never cut).
        let long = String(repeating: "x", count: 100)
        XCTAssertEqual(Array(long.utf8).withUnsafeBytes { FullTextTokenizer.tokens($0) }, [Array(repeating: UInt8(ascii: "x"), count: 64)])
        let accented = String(repeating: "a", count: 63) + "æz"
        XCTAssertEqual(Array(accented.utf8).withUnsafeBytes { FullTextTokenizer.tokens($0) }.map { $0.count }, [64])
        // Distinct and sorted.
        XCTAssertEqual(Array("b a B c a".utf8).withUnsafeBytes { FullTextTokenizer.tokens($0) }.map { String(decoding: $0, as: UTF8.self) }, ["a", "b", "c"])
    }

    func testSearchesParseAsRealmCoreParsesThem() throws {
        func parse(_ s: String) throws -> FullTextSearch {
            try Array(s.utf8).withUnsafeBytes { try FullTextSearch.parse($0, what: "'\(s)'", code: .queryInvalid) }
        }
        func strings(_ t: [[UInt8]]) -> [String] { t.map { String(decoding: $0, as: UTF8.self) } }
        let ok: [(String, [String], [String], [String])] = [
            ("ONE three", ["one", "three"], [], []),
            ("one one ONE", ["one"], [], []),
            ("manage* virtu*", [], ["manage", "virtu"], []),
            ("Bel* Abba -Ada", ["abba"], ["bel"], ["ada"]),
            ("-object -objects", [], [], ["object", "objects"]),
            ("c++ hello!", ["c", "hello"], [], []),
            ("  café\tDANCING ", ["cafe", "dancing"], [], []),
            ("ab* -ab", [], ["ab"], ["ab"]),
        ]
        for (text, words, prefixes, excluded) in ok {
            let search = try parse(text)
            XCTAssertEqual(strings(search.words), words, text)
            XCTAssertEqual(strings(search.prefixes), prefixes, text)
            XCTAssertEqual(strings(search.excluded), excluded, text)
        }
        let bad: [(String, String)] = [
            ("", "it holds no word"),
            ("   ", "it holds no word"),
            ("object-oriented -database", "'object-oriented' is 2 words"),
            ("object -table-oriented", "'-table-oriented' is 2 words"),
            ("C# -c++", "'c' is both searched for and excluded"),
            ("-object object", "'object' is both searched for and excluded"),
            ("objects -object object", "'object' is both searched for and excluded"),
            ("!!!", "'!!!' holds no letter or digit"),
            ("-", "'-' holds no letter or digit"),
            ("*", "'*' holds no letter or digit"),
            ("-ab*", "'-ab*' excludes a prefix"),
            ("ab*c", "'ab*c' is 2 words"),
        ]
        for (text, message) in bad {
            let error = expectError(.queryInvalid, text) { try parse(text) }
            XCTAssertTrue(error?.message.contains(message) ?? false, "\(text): \(error?.message ?? "")")
        }
    }

    // MARK: realm-core's cases

    /// test_query2.cpp Query_FullText: texts written before the index
    /// exists (a schema change adds it), then creates, updates and deletes
    /// seen by live results.
    func testRealmCoreFullText() throws {
        let path = tempDir().file()
        var keys: [Int64] = []
        do {
            let db = try DB.open(path, Self.schema(indexed: false))
            keys = try db.write {
                try db.createMany("Doc", ["text"], Self.earlyTexts.map { [.string($0)] })
            }
            let error = expectError(.queryInvalid) { try db.query("Doc", "text TEXT 'object'") }
            XCTAssertEqual(error?.message, "TEXT needs a full-text index: 'Doc.text' (string) has none (declare the property full-text indexed)")
            db.realm.close()
        }
        let db = try DB.open(path, Self.schema())
        try db.write {
            keys += try db.createMany("Doc", ["text"], ["Alle elsker John", "Johns ven kender John godt", "Ich wohne in Großarl",
                                                     "A short story about a dog running after two cats"].map { [.string($0)] })
        }
        let object = try db.query("Doc", "text TEXT 'object'")
        XCTAssertEqual(try object.count(), 2)
        let k5 = try db.write { try db.create("Doc", [("text", .string(Self.gemstoneText))]) }
        XCTAssertEqual(try object.count(), 3)
        try db.write { _ = try db.create("Doc", [("text", .string(Self.webText))]) }
        XCTAssertEqual(try object.count(), 3)
        try db.write { try db.delete("Doc", k5) }
        XCTAssertEqual(try object.count(), 2)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'hybrid'").count(), 1)
        try db.write { try db.set("Doc", keys[2], "text", .string(Self.persistenceText)) }
        XCTAssertEqual(try db.query("Doc", "text TEXT 'hybrid'").count(), 0)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'Gemstone'").count(), 1)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'æbler'").count(), 2)
        try db.write {
            _ = try db.create("Doc", [("text", .string("The song \"Supercalifragilisticexpialidocious\" is from the 1964 Disney musical film \"Mary Poppins\""))])
        }
        let mary = try db.query("Doc", "text TEXT 'supercalifragilisticexpialidocious mary'")
        XCTAssertEqual(try mary.count(), 1)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'æbler'").count(), 2)
        try db.write { try db.delete("Doc", keys[1]) }
        XCTAssertEqual(try db.query("Doc", "text TEXT 'æbler'").count(), 1)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'Johns'").count(), 1)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'John'").count(), 2)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'Großarl'").count(), 1)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'catssadasdsa'").count(), 0)
        // Emptied with its class.
        try db.write { try db.realm.deleteAll(table: db.cls("Doc")) }
        XCTAssertEqual(try mary.count(), 0)
        XCTAssertEqual(try indexEntries(db), 0)
    }

    /// test_query2.cpp Query_FullTextMulti: several words, prefixes,
    /// exclusions, over links, and the searches refused.
    func testRealmCoreFullTextMulti() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        let docs = try db.write { try db.createMany("Doc", ["text"], Self.multiTexts.map { [.string($0)] }) }
        let origins = try db.write { () -> [Int64] in
            var origins: [Int64] = []
            for (i, doc) in docs.enumerated() {
                let origin = try db.create("Origin", [("id", .int(1000 + Int64(i)))])
                try db.append("Origin", origin, "link", [.link(db.cls("Doc"), doc)])
                try db.set("Origin", origin, "one", .link(db.cls("Doc"), doc))
                origins.append(origin)
            }
            return origins
        }
        let cases: [(String, [Int])] = [
            ("ONE THREE", [7, 8]), ("three one", [7, 8]), ("1990s", [2, 4]), ("1990s c++", [4]), ("object gemstone", [2, 4]),
            ("depot emanant archive", [5]), ("object data", []),
            ("manage*", [0, 1, 4]), ("manage* virtu*", [4]),
            ("-three one", [9]), ("one -three", [9]), ("object -databases", [1, 2, 4, 6]),
            ("-databases object -duplicates", [1, 2, 4]), ("object -objects", [2, 4, 6]), ("-object objects", [3]),
            ("databases -database", []), ("-database databases", []), ("database -databases", [1, 2, 4]),
            ("-databases database", [1, 2, 4]), ("-database", [3, 5, 6, 7, 8, 9]), ("-object", [3, 5, 7, 8, 9]),
            ("-object -objects", [5, 7, 8, 9]), ("object database management brown", [1]),
        ]
        for (search, expected) in cases {
            XCTAssertEqual(try db.keys("Doc", "text TEXT $0", [.string(search)]), expected.map { docs[$0] }, search)
            XCTAssertEqual(try db.keys("Doc", "text TEXT '\(search)'"), expected.map { docs[$0] }, search)
            // Through a list of links and a to-one link: the origin of each document.
            XCTAssertEqual(try db.keys("Origin", "link.text TEXT $0", [.string(search)]), expected.map { origins[$0] }, "link.text: \(search)")
            XCTAssertEqual(try db.keys("Origin", "one.text TEXT $0", [.string(search)]), expected.map { origins[$0] }, "one.text: \(search)")
        }
        XCTAssertEqual(try db.keys("Origin", "link.text TEXT 'object gemstone'"), [origins[2], origins[4]])
        // Inside a SUBQUERY, with ALL and NONE, and filtering a list's objects.
        XCTAssertEqual(try db.keys("Origin", "SUBQUERY(link, $d, $d.text TEXT 'object -databases').@count > 0"),
                       [1, 2, 4, 6].map { origins[$0] })
        XCTAssertEqual(try db.keys("Origin", "NONE link.text TEXT 'object'"), [3, 5, 7, 8, 9].map { origins[$0] })
        XCTAssertEqual(try db.keys("Origin", "ALL link.text TEXT 'one'"), [7, 8, 9].map { origins[$0] })
        try db.write { try db.append("Origin", origins[0], "link", [.link(db.cls("Doc"), docs[7]), .link(db.cls("Doc"), docs[2])]) }
        let list = try ObjectResults(realm: db.realm, list: db.pkey("Origin", "link"), of: origins[0], in: db.cls("Origin"))
        let found = try TV.withValues([.string("object")]) { v in try list.filtered("text TEXT $0", arguments: [QueryArgument(values: [v[0]], isList: false)]) }
        XCTAssertEqual(try found.allKeys(), [docs[0], docs[2]])
        XCTAssertEqual(try list.filtered("text TEXT '-object'", arguments: []).allKeys(), [docs[7]])
        for search in ["", "C# -c++", "-object object", "object -object", "objects -object object", "object -object object",
                       "database -database", "object-oriented -database", "object-oriented -table-oriented"] {
            expectError(.queryArgument, search) { try db.query("Doc", "text TEXT $0", [.string(search)]) }
            expectError(.queryInvalid, search) { try db.query("Doc", "text TEXT '\(search)'") }
        }
        // Emptied object by object.
        try db.write { for doc in docs { try db.delete("Doc", doc) } }
        XCTAssertEqual(try indexEntries(db), 0)
    }

    /// test_query2.cpp Query_FullTextPrefix.
    func testRealmCoreFullTextPrefix() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        try db.write {
            _ = try db.createMany("Doc", ["text"], [[.string("Abby Abba Ada Adalee Baylee Bellamy Blaire Adalyn")],
                                                     [.string("Abigail Abba Barbara Beatrice Bella Blair Blake")],
                                                     [.string("Adaline Bellamy Blakely")]])
        }
        let cases: [(String, Int)] = [("ab*", 2), ("ac*", 0), ("abbe*", 0), ("abbex*", 0), ("Bel*", 3), ("Blak*", 2), ("Bellam*", 2),
                                      ("Bel* Abba -Ada", 1)]
        for (search, count) in cases {
            XCTAssertEqual(try db.query("Doc", "text TEXT '\(search)'").count(), count, search)
        }
    }

    // MARK: Against a model

    /// Random texts (words of a small vocabulary, each written in any case,
    /// with or without its accents, between random separators) through
    /// creates, sets, bulk updates, deletes and a reopen; random searches
    /// against the words each object was given.
    func testRandomTextsAgainstAModel() throws {
        // Base words, and the ways each may be written.
        let vocabulary: [(base: String, forms: [String])] = [
            ("cafe", ["cafe", "café", "CAFÉ", "Cafe"]), ("dancing", ["dancing", "DANCING", "Dancing"]),
            ("resume", ["resume", "résumé", "RÉSUMÉ"]), ("naive", ["naive", "naïve", "NAÏVE"]),
            ("dog", ["dog", "Dog"]), ("dogs", ["dogs"]), ("do", ["do", "DO"]), ("cat", ["cat", "CAT"]), ("catalog", ["catalog"]),
            ("x1", ["x1", "X1"]), ("x10", ["x10"]), ("zoe", ["zoë", "Zoe", "ZOË"]), ("ångstrom", ["ångström", "Ångström"]),
            ("a", ["a", "A", "á", "Á"]), ("pinata", ["piñata", "PIÑATA"]), ("full", ["full"]), ("text", ["text"]),
        ]
        let separators = [" ", "  ", "-", ", ", ".", "\t", "\n", " / ", "你", "😀", "—"]
        var rng = SeededRandom(seed: 77)
        func render(_ words: [Int]) -> String {
            var out = separators.randomElement(using: &rng)!
            for w in words {
                out += vocabulary[w].forms.randomElement(using: &rng)! + separators.randomElement(using: &rng)!
            }
            return out
        }
        func randomWords() -> [Int] { (0..<Int.random(in: 0...5, using: &rng)).map { _ in Int.random(in: 0..<vocabulary.count, using: &rng) } }

        let path = tempDir().file()
        var db = try DB.open(path, Self.schema())
        // The model: object → base words (nil: a null text).
        var model: [Int64: Set<String>?] = [:]
        func check(_ label: String) throws {
            for _ in 0..<25 {
                var searchParts: [String] = []
                var required: Set<String> = [], prefixes: [String] = [], excluded: Set<String> = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let w = vocabulary.randomElement(using: &rng)!
                    let kind = Int.random(in: 0..<4, using: &rng)
                    if kind == 0 && !required.contains(w.base) {
                        excluded.insert(w.base)
                        searchParts.append("-" + w.forms.randomElement(using: &rng)!)
                    } else if kind == 1 {
                        // A prefix of the word as written, whole letters.
                        let form = Array(w.forms.randomElement(using: &rng)!)
                        let n = Int.random(in: 1...form.count, using: &rng)
                        let written = String(form[0..<n])
                        var base: [String] = []
                        Array(written.utf8).withUnsafeBytes { FullTextTokenizer.forEachToken($0) { base.append(String(decoding: $0, as: UTF8.self)) } }
                        prefixes.append(base[0])
                        searchParts.append(written + "*")
                    } else if !excluded.contains(w.base) {
                        required.insert(w.base)
                        searchParts.append(w.forms.randomElement(using: &rng)!)
                    }
                }
                if searchParts.isEmpty { continue }
                let search = searchParts.joined(separator: " ")
                let expected = model.keys.sorted().filter { key in
                    let words = model[key]! ?? []
                    // The model knows each word's folded form: its base.
                    return required.isSubset(of: words) && excluded.isDisjoint(with: words)
                        && prefixes.allSatisfy { p in words.contains { $0.hasPrefix(p) } }
                }
                XCTAssertEqual(try db.keys("Doc", "text TEXT $0", [.string(search)]), expected, "\(label): \(search)")
            }
        }
        for round in 0..<12 {
            try db.realm.beginWrite()
            for _ in 0..<30 {
                let live = model.keys.sorted()
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<4:
                    let words = randomWords()
                    let isNull = Int.random(in: 0..<8, using: &rng) == 0
                    let key = try db.create("Doc", [("text", isNull ? .null : .string(render(words))), ("n", .int(Int64(round)))])
                    model[key] = isNull ? .some(nil) : Set(words.map { vocabulary[$0].base })
                case 4..<7 where !live.isEmpty:
                    let key = live.randomElement(using: &rng)!
                    let words = randomWords()
                    if Bool.random(using: &rng) {
                        try db.set("Doc", key, "text", .string(render(words)))
                    } else {
                        try db.setMany("Doc", key, [("n", .int(7)), ("text", .string(render(words)))])
                    }
                    model[key] = Set(words.map { vocabulary[$0].base })
                case 7 where !live.isEmpty:
                    let key = live.randomElement(using: &rng)!
                    try db.set("Doc", key, "text", .null)
                    model[key] = .some(nil)
                case 8 where !live.isEmpty:
                    let key = live.randomElement(using: &rng)!
                    try db.delete("Doc", key)
                    model[key] = nil
                case 9 where round % 4 == 3 && !live.isEmpty:
                    // A bulk update of the results of another query.
                    let words = randomWords()
                    let text = render(words)
                    let matched = try db.query("Doc", "n == 7")
                    for key in try matched.allKeys() { model[key] = Set(words.map { vocabulary[$0].base }) }
                    try TV.withValues([.string(text)]) { v in try matched.setValue(v[0], property: db.pkey("Doc", "text")) }
                default:
                    break
                }
            }
            // Inside the write transaction: its own writes are seen.
            try check("round \(round), in the write")
            if round == 5 {
                db.realm.cancelWrite()
                db.realm.close()
                db = try DB.open(path, Self.schema())
                // The model went back to the last commit: rebuild it from the file.
                model = [:]
                for key in try db.keys("Doc") {
                    guard case .string(let s) = try db.get("Doc", key, "text") else { model[key] = .some(nil); continue }
                    var words = Set<String>()
                    Array(s.utf8).withUnsafeBytes { FullTextTokenizer.forEachToken($0) { words.insert(String(decoding: $0, as: UTF8.self)) } }
                    model[key] = Set(words.map { folded in vocabulary.first { v in v.forms.contains { Self.fold($0) == folded } }!.base })
                }
                try check("after a cancelled write and a reopen")
                continue
            }
            try db.realm.commitWrite()
            try check("round \(round), committed")
            if round % 3 == 2 {
                db.realm.close()
                db = try DB.open(path, Self.schema())
                try check("round \(round), reopened")
            }
        }
        XCTAssertGreaterThan(model.count, 20)
        // Every token under which the index lists each object is one of its words.
        XCTAssertEqual(try indexEntries(db), model.values.reduce(0) { $0 + (($1 ?? []).count) })
    }

    /// `s`'s token as the tokenizer folds it (for the model's reverse lookup).
    static func fold(_ s: String) -> String {
        var out = ""
        Array(s.utf8).withUnsafeBytes { FullTextTokenizer.forEachToken($0) { out = String(decoding: $0, as: UTF8.self) } }
        return out
    }

    /// How many (token, object) entries the full-text index of Doc.text holds.
    func indexEntries(_ db: DB) throws -> Int {
        let table = try db.realm.table(db.cls("Doc"))
        guard let dbi = table.fullTextDatabases[db.pkey("Doc", "text")] else { return 0 }
        let snapshot = try db.realm.currentSnapshot()
        var stat = MDB_stat()
        XCTAssertEqual(mdb_stat(snapshot.txn, dbi, &stat), 0)
        return Int(stat.ms_entries)
    }

    // MARK: Combined, live, in writes

    func testTextCombinesWithOtherPredicatesAndStaysLive() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        let keys = try db.write {
            try db.createMany("Doc", ["text", "n"], [[.string("red apple"), .int(1)], [.string("green apple"), .int(2)],
                                                      [.string("red car"), .int(3)], [.null, .int(4)], [.string("Red Pepper"), .int(5)]])
        }
        let cases: [(String, [Int])] = [
            ("text TEXT 'red' AND n > 1", [2, 4]),
            ("n > 1 AND text TEXT 'red'", [2, 4]),
            ("text TEXT 'apple' OR n == 4", [0, 1, 3]),
            ("NOT text TEXT 'red'", [1, 3]),
            ("text TEXT 'red' && !(text TEXT 'apple')", [2, 4]),
            ("text TEXT '-red'", [1, 3]),
            ("text TEXT 'red' AND text TEXT 'p*'", [4]),
            ("text TEXT 'red' AND (text TEXT 'ap*' OR text TEXT 'car')", [0, 2]),
            ("text TEXT 'red' SORT(n DESC)", [4, 2, 0]),
            ("text TEXT 'red' LIMIT(2)", [0, 2]),
            ("TRUEPREDICATE AND text TEXT 'nothing'", []),
        ]
        for (query, expected) in cases {
            XCTAssertEqual(try db.keys("Doc", query), expected.map { keys[$0] }, query)
        }
        // Live: writes to the text, creates and deletes are seen; the
        // count is computed again only when the column or class changed.
        let red = try db.query("Doc", "text TEXT $0", [.string("RED")])
        XCTAssertEqual(try red.count(), 3)
        try db.write { try db.set("Doc", keys[1], "text", .string("green and red")) }
        XCTAssertEqual(try red.count(), 4)
        try db.write { try db.set("Doc", keys[1], "n", .int(9)) }
        XCTAssertEqual(try red.count(), 4)
        try db.write { try db.delete("Doc", keys[0]) }
        XCTAssertEqual(try red.count(), 3)
        // In a write transaction, before the commit.
        try db.realm.beginWrite()
        _ = try db.create("Doc", [("text", .string("red red red"))])
        XCTAssertEqual(try red.count(), 4)
        XCTAssertEqual(try db.query("Doc", "text TEXT 'red -pepper'").count(), 3)
        try db.set("Doc", keys[4], "text", .string("pepper only"))
        XCTAssertEqual(try red.count(), 3)
        db.realm.cancelWrite()
        XCTAssertEqual(try red.count(), 3)
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'red'"), [keys[1], keys[2], keys[4]])
    }

    // MARK: Schema

    func testSchemaChangesAddAndRemoveTheIndex() throws {
        let path = tempDir().file()
        var keys: [Int64] = []
        do {
            let db = try DB.open(path, Self.schema(indexed: false))
            keys = try db.write { try db.createMany("Doc", ["text"], [[.string("alpha beta")], [.string("beta gamma")], [.null]]) }
            db.realm.close()
        }
        do {
            // Added: built from the data.
            let db = try DB.open(path, Self.schema())
            XCTAssertTrue(db.realm.schema.objectClass(named: "Doc")!.property(named: "text")!.isFullTextIndexed)
            XCTAssertEqual(try db.keys("Doc", "text TEXT 'beta'"), [keys[0], keys[1]])
            XCTAssertEqual(try db.keys("Doc", "text TEXT '-alpha'"), [keys[1], keys[2]])
            db.realm.close()
        }
        do {
            // Removed: TEXT is refused, and writes go on without it.
            let db = try DB.open(path, Self.schema(indexed: false))
            XCTAssertFalse(db.realm.schema.objectClass(named: "Doc")!.property(named: "text")!.isFullTextIndexed)
            expectError(.queryInvalid) { try db.query("Doc", "text TEXT 'beta'") }
            try db.write {
                try db.set("Doc", keys[0], "text", .string("delta"))
                keys.append(try db.create("Doc", [("text", .string("beta again"))]))
            }
            db.realm.close()
        }
        // Added again: rebuilt, so the writes made without it are in it.
        let db = try DB.open(path, Self.schema())
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'beta'"), [keys[1], keys[3]])
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'delta'"), [keys[0]])
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'alpha'"), [])
        XCTAssertEqual(try indexEntries(db), 5)
        db.realm.close()
        // An unchanged schema writes nothing on open (read-only opens it).
        let readOnly = try DB.open(path, Self.schema(), readOnly: true)
        XCTAssertEqual(try readOnly.keys("Doc", "text TEXT 'again'"), [keys[3]])
    }

    /// `fief verify` checks the index against the texts; `fief copy`
    /// rebuilds it from the texts copied.
    func testVerifyChecksAndCopyRebuildsTheIndex() throws {
        let dir = tempDir()
        let path = dir.file(), copy = dir.file("copy.fief")
        var keys: [Int64] = []
        do {
            let db = try DB.open(path, Self.schema())
            keys = try db.write { try db.createMany("Doc", ["text"], [[.string("red apple")], [.string("green apple")], [.null]]) }
            db.realm.close()
        }
        XCTAssertEqual(try FileCheck.verify(path: path) { _, _ in }, 0)
        // An entry removed, another added under a word the object lacks.
        let name = "c1.t1"
        withRawLMDB(path, database: name, flags: MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP) { txn, dbi in
            var object = UInt64(keys[0])
            withUnsafeBytes(of: &object) { vb in
                Array("red".utf8).withUnsafeBytes { kb in
                    var k = LMDB.val(kb), v = LMDB.val(vb)
                    XCTAssertEqual(mdb_del(txn, dbi, &k, &v), 0)
                }
                Array("blue".utf8).withUnsafeBytes { kb in
                    var k = LMDB.val(kb), v = LMDB.val(vb)
                    XCTAssertEqual(mdb_put(txn, dbi, &k, &v, 0), 0)
                }
            }
        }
        var problems: [String] = []
        XCTAssertEqual(try FileCheck.verify(path: path) { kind, text in if kind == .problem { problems.append(text) } }, 1)
        XCTAssertEqual(problems, ["class 'Doc': the full-text index of 'text' holds 3 of the 4 words of its texts and 1 wrong entries"])
        XCTAssertEqual(try FileCopy.copy(from: path, to: copy) { _, _ in }, 0)
        XCTAssertEqual(try FileCheck.verify(path: copy) { _, _ in }, 0)
        let db = try DB.open(copy, Self.schema())
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'red'"), [keys[0]])
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'blue'"), [])
        XCTAssertEqual(try db.keys("Doc", "text TEXT 'apple -green'"), [keys[0]])
    }

    func testFullTextIndexOnlyOnPlainStrings() {
        let bad: [(Property, String)] = [
            (prop("n", .int, .fullTextIndexed), "property 'A.n' (int) cannot have a full-text index: only string properties can"),
            (Property(name: "l", type: .string, flags: .fullTextIndexed, collection: .list),
             "property 'A.l' (list of string) cannot have a full-text index: only string properties can"),
            (prop("s", .string, [.primaryKey, .fullTextIndexed]), "property 'A.s' cannot be both the primary key and full-text indexed"),
            (prop("s", .string, [.indexed, .fullTextIndexed]), "property 'A.s' cannot be both indexed and full-text indexed: choose one"),
            (prop("s", .string, PropertyFlags(rawValue: 16)), "property 'A.s' has unknown flags 16"),
        ]
        for (property, message) in bad {
            let error = expectError(.invalidSchema) { try makeSchema([("A", [property])]).validate() }
            XCTAssertEqual(error?.message, message)
        }
        XCTAssertNoThrow(try makeSchema([("A", [prop("s", .string, [.nullable, .fullTextIndexed])])]).validate())
    }

    func testTextErrors() throws {
        let db = try DB.open(tempDir().file(), Self.schema())
        let cases: [(String, [TV], FiefError.Code, String)] = [
            ("n TEXT 'a'", [], .queryInvalid, "TEXT needs a full-text index: 'Doc.n' (int) has none (declare the property full-text indexed)"),
            ("text TEXT 5", [], .queryInvalid, "the search of TEXT must be a string literal or a string argument ('bio TEXT $0')"),
            ("text TEXT $0", [.int(5)], .queryArgument, "the search of TEXT (argument $0) must be a string"),
            ("text TEXT $1", [.string("a")], .queryArgument, "the search of TEXT is argument $1, but 1 argument was given"),
            ("text TEXT $0", [.string("a-b")], .queryArgument, "invalid full-text search in argument $0: 'a-b' is 2 words: a word of a search holds only letters and digits (search 'a b' for all of them)"),
            ("text TEXT ''", [], .queryInvalid, "invalid full-text search in '': it holds no word"),
            ("'a' TEXT text", [], .queryInvalid, "TEXT takes a full-text-indexed string property on its left and the words searched for on its right ('bio TEXT \"dog -cat\"')"),
            ("nothing TEXT 'a'", [], .queryInvalid, ""),
            ("link.n TEXT 'a'", [], .queryInvalid, "TEXT needs a full-text index: 'Doc.n' (int) has none (declare the property full-text indexed)"),
        ]
        for (query, args, code, message) in cases {
            let className = query.hasPrefix("link") ? "Origin" : "Doc"
            let error = expectError(code, query) { try db.query(className, query, args) }
            if !message.isEmpty { XCTAssertEqual(error?.message, message, query) }
        }
    }
}

extension FullTextTests {
    static let earlyTexts = [
        " This is a test, with  spaces!",
        "Ål, ø og 你好世界Æbler",
        "An object database (also object-oriented database management system) is a database management system in which information is represented in the form of objects as used in object-oriented programming. Object databases are different from relational databases which are table-oriented. Object-relational databases are a hybrid of both approaches.",
        "Object database management systems grew out of research during the early to mid-1970s into having intrinsic database management support for graph-structured objects. The term 'object-oriented database system' first appeared around 1985.[4] Notable research projects included Encore-Ob/Server (Brown University), EXODUS (University of Wisconsin–Madison), IRIS (Hewlett-Packard), ODE (Bell Labs), ORION (Microelectronics and Computer Technology Corporation or MCC), Vodak (GMD-IPSI), and Zeitgeist (Texas Instruments). The ORION project had more published papers than any of the other efforts. Won Kim of MCC compiled the best of those papers in a book published by The MIT Press.",
        "Lilleø er i mange år blevet anvendt til græsning af Askø-bøndernes kreaturer. I 1788 blev en del af Askøs gårde flyttet til Lilleø, og tre gårde eksisterer fortsat på øen. Hovederhvervet på Lilleø er i dag frugtavl, og der dyrkes især æbler, pærer og blommer.",
    ]
    static let gemstoneText = "Early commercial products included Gemstone (Servio Logic, name changed to GemStone Systems), Gbase (Graphael), and Vbase (Ontologic). The early to mid-1990s saw additional commercial products enter the market. These included ITASCA (Itasca Systems), Jasmine (Fujitsu, marketed by Computer Associates), Matisse (Matisse Software), Objectivity/DB (Objectivity, Inc.), ObjectStore (Progress Software, acquired from eXcelon which was originally Object Design), ONTOS (Ontos, Inc., name changed from Ontologic), O2[6] (O2 Technology, merged with several companies, acquired by Informix, which was in turn acquired by IBM), POET (now FastObjects from Versant which acquired Poet Software), Versant Object Database (Versant Corporation), VOSS (Logic Arts) and JADE (Jade Software Corporation). Some of these products remain on the market and have been joined by new open source and commercial products such as InterSystems Caché."
    static let webText = "As the usage of web-based technology increases with the implementation of Intranets and extranets, companies have a vested interest in OODBMSs to display their complex data. Using a DBMS that has been specifically designed to store data as objects gives an advantage to those companies that are geared towards multimedia presentation or organizations that utilize computer-aided design (CAD).[3]"
    static let persistenceText = "Object database management systems added the concept of persistence to object programming languages. The early commercial products were integrated with various languages: GemStone (Smalltalk), Gbase (LISP), Vbase (COP) and VOSS (Virtual Object Storage System for Smalltalk). For much of the 1990s, C++ dominated the commercial object database management market. Vendors added Java in the late 1990s and more recently, C#."
    static let multiTexts = [earlyTexts[2], earlyTexts[3], gemstoneText, webText, persistenceText,
        "L’archive ouverte pluridisciplinaire HAL, est destinée au dépôt et à la diffusion de documents scientifiques de niveau recherche, publiés ou non, émanant des établissements d’enseignement et de recherche français ou étrangers, des laboratoires publics ou privés.",
        "object object object object object duplicates", "one two three", "three two one", "two one"]
}
