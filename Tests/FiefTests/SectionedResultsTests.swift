import Fief
import Foundation
import XCTest

/// The moods of a sectioned item (an enum section key).
enum SectionMood: String, PersistableEnum {
    case calm, curious, wild
}

/// An item with a property of every kind of section key.
class SectionedItem: Object {
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var score = 0
    @Persisted var bonus: Int?
    @Persisted var isGood = false
    @Persisted var maybeGood: Bool?
    @Persisted var day = Date(timeIntervalSince1970: 0)
    @Persisted var lastSeen: Date?
    @Persisted var weight = 0.0
    @Persisted var ratio: Float = 0
    @Persisted var price = Decimal128(0)
    @Persisted var batch = ObjectId("000000000000000000000000")
    @Persisted var ticket = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Persisted var blob = Data()
    @Persisted var mood = SectionMood.calm
    @Persisted var tag: AnyRealmValue
    @Persisted var shelf: SectionedShelf?
    @Persisted(originProperty: "items") var shelves: LinkingObjects<SectionedShelf>

    /// Computed, not persisted: the first letter of the name.
    var initial: String { name.first.map(String.init) ?? "" }

    convenience init(_ name: String, score: Int = 0) {
        self.init()
        self.name = name
        self.score = score
    }
}

/// A shelf holding items (a list, a set, lists of values) and linked back from them.
class SectionedShelf: Object {
    @Persisted var label = ""
    @Persisted var items: List<SectionedItem>
    @Persisted var itemSet: MutableSet<SectionedItem>
    @Persisted var numbers: List<Int>
    @Persisted var words: List<String?>
    @Persisted var wordSet: MutableSet<String>
    @Persisted(originProperty: "shelf") var residents: LinkingObjects<SectionedItem>
}

/// A projection of an item: its name as `title`, its score as `points`.
final class SectionedItemProjection: Projection<SectionedItem> {
    @Projected(\SectionedItem.name) var title
    @Projected(\SectionedItem.score) var points

    /// Computed over a projected property.
    var initial: String { title.first.map(String.init) ?? "" }
}

/// `sectioned(by:...)`, `SectionedResults` and `ResultsSection` (RealmSwift's
/// SectionedResults; the CRUD-Read guide's examples are in
/// SeedCompileTests): sections and their order, live updates, frozen
/// sections, every kind of key, every collection, and RealmSwift's traps.
/// Every realm is a file in the test's directory.
final class SectionedResultsTests: FiefTestCase {
    override func setUp() {
        super.setUp()
        Realm.Configuration.defaultConfiguration = fileConfiguration()
    }

    private func names<C: Sequence>(_ items: C) -> [String] where C.Element == SectionedItem { items.map(\.name) }

    /// Every section's key and the names of its items, in order.
    private func layout<Key>(_ sections: SectionedResults<Key, SectionedItem>) -> [(Key, [String])] {
        sections.map { ($0.key, names($0)) }
    }

    private func assertLayout<Key: Equatable>(_ sections: SectionedResults<Key, SectionedItem>, _ expected: [(Key, [String])],
                                              file: StaticString = #filePath, line: UInt = #line) {
        let actual = layout(sections)
        XCTAssertEqual(actual.map(\.0), expected.map(\.0), "keys", file: file, line: line)
        XCTAssertEqual(actual.map(\.1), expected.map(\.1), "items", file: file, line: line)
        XCTAssertEqual(sections.allKeys, expected.map(\.0), "allKeys", file: file, line: line)
        XCTAssertEqual(sections.count, expected.count, "count", file: file, line: line)
    }

    /// apple (3), banana (1), box (4), avocado (2), chalk (5), cherry (6).
    @discardableResult
    private func addFruit(_ realm: Realm) throws -> [SectionedItem] {
        let items = [SectionedItem("apple", score: 3), SectionedItem("banana", score: 1), SectionedItem("box", score: 4),
                     SectionedItem("avocado", score: 2), SectionedItem("chalk", score: 5), SectionedItem("cherry", score: 6)]
        try realm.write { realm.add(items) }
        return items
    }

    // MARK: Sections and their order

    func testSectionsByComputedKeyPathFollowTheSortOfThePropertyItReads() throws {
        let realm = try Realm()
        try addFruit(realm)
        let items = realm.objects(SectionedItem.self)
        assertLayout(items.sectioned(by: \.initial, ascending: true),
                     [("a", ["apple", "avocado"]), ("b", ["banana", "box"]), ("c", ["chalk", "cherry"])])
        assertLayout(items.sectioned(by: \.initial, ascending: false),
                     [("c", ["cherry", "chalk"]), ("b", ["box", "banana"]), ("a", ["avocado", "apple"])])
    }

    func testSectionsByPersistedPropertyKeyPath() throws {
        let realm = try Realm()
        let items = [SectionedItem("a", score: 2), SectionedItem("b", score: 1), SectionedItem("c", score: 2), SectionedItem("d", score: 1)]
        try realm.write { realm.add(items) }
        let results = realm.objects(SectionedItem.self)
        assertLayout(results.sectioned(by: \.score), [(1, ["b", "d"]), (2, ["a", "c"])])
        assertLayout(results.sectioned(by: \.score, ascending: false), [(2, ["a", "c"]), (1, ["b", "d"])])
        // Secondary sort descriptors order the items inside each section.
        assertLayout(results.sectioned(by: \.score, sortDescriptors: [SortDescriptor(keyPath: "score"), SortDescriptor(keyPath: "name", ascending: false)]),
                     [(1, ["d", "b"]), (2, ["c", "a"])])
    }

    func testSectionsByClosureWithSortDescriptors() throws {
        let realm = try Realm()
        try addFruit(realm)
        let items = realm.objects(SectionedItem.self)
        let byLetter = items.sectioned(by: { String($0.name.first!) }, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: true)])
        assertLayout(byLetter, [("a", ["apple", "avocado"]), ("b", ["banana", "box"]), ("c", ["chalk", "cherry"])])
        let required = items.sectioned(sortDescriptors: [SortDescriptor(keyPath: "score", ascending: false)]) { $0.score > 3 }
        assertLayout(required, [(true, ["cherry", "chalk", "box"]), (false, ["apple", "avocado", "banana"])])
    }

    func testKeysThatAreNotContiguousInTheSortStillShareOneSectionInOrderOfFirstAppearance() throws {
        let realm = try Realm()
        try addFruit(realm)
        let items = realm.objects(SectionedItem.self)
        // Scores 1...6 sorted: odd, even, odd, ... (realm-core's rule: one section per key).
        let byParity = items.sectioned(by: { $0.score % 2 }, sortDescriptors: [SortDescriptor(keyPath: "score")])
        assertLayout(byParity, [(1, ["banana", "apple", "chalk"]), (0, ["avocado", "box", "cherry"])])
        let descending = items.sectioned(by: { $0.score % 2 }, sortDescriptors: [SortDescriptor(keyPath: "score", ascending: false)])
        assertLayout(descending, [(0, ["cherry", "box", "avocado"]), (1, ["chalk", "apple", "banana"])])
        // Sorted by one property, sectioned by another.
        let byLetterSortedByScore = items.sectioned(by: { $0.initial }, sortDescriptors: [SortDescriptor(keyPath: "score")])
        assertLayout(byLetterSortedByScore, [("b", ["banana", "box"]), ("a", ["avocado", "apple"]), ("c", ["chalk", "cherry"])])
    }

    func testFilteredResultsAndKeyPathsThroughLinks() throws {
        let realm = try Realm()
        let top = SectionedShelf(), bottom = SectionedShelf()
        top.label = "top"
        bottom.label = "bottom"
        let items = try addFruit(realm)
        try realm.write {
            realm.add([top, bottom])
            items[0].shelf = top
            items[1].shelf = bottom
            items[2].shelf = top
        }
        let onShelves = realm.objects(SectionedItem.self).filter("shelf != nil")
        let byShelf = onShelves.sectioned(by: \.shelf!.label, ascending: true)
        assertLayout(byShelf, [("bottom", ["banana"]), ("top", ["apple", "box"])])
        let scoredAbove2 = realm.objects(SectionedItem.self).where { $0.score > 2 }.sectioned(by: \.initial)
        assertLayout(scoredAbove2, [("a", ["apple"]), ("b", ["box"]), ("c", ["chalk", "cherry"])])
    }

    // MARK: Reading

    func testSubscriptsIndexPathsAndIteration() throws {
        let realm = try Realm()
        try addFruit(realm)
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.initial)
        XCTAssertEqual(sections[1].key, "b")
        XCTAssertEqual(sections[1].count, 2)
        XCTAssertEqual(sections[1][1].name, "box")
        XCTAssertEqual(sections[IndexPath(item: 1, section: 2)].name, "cherry")
        XCTAssertEqual(sections[IndexPath(row: 0, section: 0)].name, "apple")
        XCTAssertEqual(sections[[0, 1]].name, "avocado")
        XCTAssertEqual(sections.first?.first?.name, "apple")
        XCTAssertEqual(sections.last?.last?.name, "cherry")
        XCTAssertEqual(sections.startIndex, 0)
        XCTAssertEqual(sections.endIndex, 3)
        XCTAssertEqual(sections[2].startIndex, 0)
        XCTAssertEqual(sections[2].endIndex, 2)
        XCTAssertEqual(Array(sections.reversed().map(\.key)), ["c", "b", "a"])
        XCTAssertEqual(sections[0].map(\.score), [3, 2])
        XCTAssertEqual(sections.flatMap { $0 }.map(\.name), ["apple", "avocado", "banana", "box", "chalk", "cherry"])
        var visited: [String] = []
        for section in sections {
            for item in section { visited.append("\(section.key):\(item.name)") }
        }
        XCTAssertEqual(visited, ["a:apple", "a:avocado", "b:banana", "b:box", "c:chalk", "c:cherry"])
        let path = IndexPath(item: 4, section: 2)
        XCTAssertEqual(path.section, 2)
        XCTAssertEqual(path.item, 4)
        XCTAssertEqual(path.row, 4)
    }

    func testIterationGoesThroughTheElementsThereWereWhenItBegan() throws {
        let realm = try Realm()
        try addFruit(realm)
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.initial)
        var names: [String] = []
        try realm.write {
            for item in sections[0] {
                names.append(item.name)
                // A new "a" item joins the live section, not the loop.
                if item.name == "apple" { realm.add(SectionedItem("apricot", score: 9)) }
            }
        }
        XCTAssertEqual(names, ["apple", "avocado"])
        XCTAssertEqual(self.names(sections[0]), ["apple", "apricot", "avocado"])
        // An object deleted during the loop is skipped.
        names = []
        try realm.write {
            for item in sections[2] {
                names.append(item.name)
                realm.delete(realm.objects(SectionedItem.self).filter("name == 'cherry'"))
            }
        }
        XCTAssertEqual(names, ["chalk"])
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])
    }

    func testEqualityIdentityRealmAndDescription() throws {
        let realm = try Realm()
        try addFruit(realm)
        let results = realm.objects(SectionedItem.self)
        let sections = results.sectioned(by: \.initial)
        let again = results.sectioned(by: \.initial)
        XCTAssertEqual(sections, sections)
        XCTAssertNotEqual(sections, again)
        XCTAssertEqual(sections[0], sections[0])
        XCTAssertNotEqual(sections[0], sections[1])
        XCTAssertNotEqual(sections[0], again[0])
        XCTAssertEqual(sections[1].id, "b")
        XCTAssertEqual(Set(sections.map(\.id)), ["a", "b", "c"])
        XCTAssertEqual(sections.realm, realm)
        XCTAssertEqual(sections[0].realm, realm)
        XCTAssertFalse(sections.isInvalidated)
        XCTAssertFalse(sections[0].isInvalidated)
        XCTAssertFalse(sections.isFrozen)

        let description = sections.description
        XCTAssertTrue(description.hasPrefix("SectionedResults<SectionedItem> <0x"), description)
        XCTAssertTrue(description.contains("\t[a] ResultsSection <"), description)
        XCTAssertTrue(description.contains("[1] SectionedItem {"), description)
        XCTAssertTrue(description.contains("name = avocado"), description)
        XCTAssertTrue(description.hasSuffix(")"), description)
        let section = sections[2].description
        XCTAssertTrue(section.hasPrefix("ResultsSection <0x"), section)
        XCTAssertTrue(section.contains("name = cherry"), section)
        XCTAssertFalse(section.contains("name = apple"), section)
    }

    func testEmptyResults() throws {
        let realm = try Realm()
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.initial)
        XCTAssertEqual(sections.count, 0)
        XCTAssertTrue(sections.isEmpty)
        XCTAssertEqual(sections.allKeys, [])
        XCTAssertNil(sections.first)
        XCTAssertEqual(Array(sections).count, 0)
        XCTAssertTrue(sections.description.hasSuffix("(\n)"), sections.description)
        let closure = realm.objects(SectionedItem.self).sectioned(by: { $0.score }, sortDescriptors: ["score"])
        XCTAssertEqual(closure.count, 0)
        // Filtered down to nothing, then filled.
        try addFruit(realm)
        let none = realm.objects(SectionedItem.self).filter("score > 100").sectioned(by: \.score)
        XCTAssertEqual(none.count, 0)
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])
    }

    // MARK: Live

    func testSectionsFollowWrites() throws {
        let realm = try Realm()
        let fruit = try addFruit(realm)
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.initial)
        let sectionA = sections[0]
        let sectionC = sections[2]
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])

        // A new key makes a new section in sort order; the old sections stay live.
        try realm.write { realm.add(SectionedItem("bean", score: 7)); realm.add(SectionedItem("date", score: 8)) }
        assertLayout(sections, [("a", ["apple", "avocado"]), ("b", ["banana", "bean", "box"]), ("c", ["chalk", "cherry"]), ("d", ["date"])])
        XCTAssertEqual(names(sectionA), ["apple", "avocado"])

        // A renamed object moves to another section.
        try realm.write { fruit[0].name = "cider" }
        assertLayout(sections, [("a", ["avocado"]), ("b", ["banana", "bean", "box"]), ("c", ["chalk", "cherry", "cider"]), ("d", ["date"])])
        XCTAssertEqual(sectionC.count, 3)
        XCTAssertEqual(sectionC[2].name, "cider")

        // Deleting every object of a key removes its section, and the
        // section reports itself invalidated; another section keeps its key
        // at its new index.
        try realm.write { realm.delete(fruit[3]) }
        XCTAssertTrue(sectionA.isInvalidated)
        XCTAssertEqual(sections.allKeys, ["b", "c", "d"])
        XCTAssertEqual(sections[1], sectionC)
        XCTAssertEqual(sectionC.key, "c")

        // The key comes back: a section of that key is valid again.
        try realm.write { realm.add(SectionedItem("acorn", score: 0)) }
        XCTAssertFalse(sectionA.isInvalidated)
        XCTAssertEqual(names(sectionA), ["acorn"])
        XCTAssertEqual(sections.allKeys, ["a", "b", "c", "d"])
    }

    func testInsideAWriteTransactionSectionsSeeEveryWriteAndACancelUndoesThem() throws {
        let realm = try Realm()
        let fruit = try addFruit(realm)
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.score, ascending: true)
        XCTAssertEqual(sections.allKeys, [1, 2, 3, 4, 5, 6])
        realm.beginWrite()
        fruit[0].score = 1
        XCTAssertEqual(sections.allKeys, [1, 2, 4, 5, 6])
        XCTAssertEqual(names(sections[0]), ["apple", "banana"])
        fruit[1].score = 9
        XCTAssertEqual(sections.allKeys, [1, 2, 4, 5, 6, 9])
        XCTAssertEqual(names(sections[0]), ["apple"])
        realm.add(SectionedItem("zest", score: 0))
        XCTAssertEqual(sections.allKeys, [0, 1, 2, 4, 5, 6, 9])
        realm.cancelWrite()
        XCTAssertEqual(sections.allKeys, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(names(sections[0]), ["banana"])
        XCTAssertEqual(names(sections[2]), ["apple"])
    }

    func testWritesOfAnotherThreadShowAfterRefresh() throws {
        let realm = try Realm()
        try addFruit(realm)
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.initial)
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])
        let configuration = Realm.Configuration.defaultConfiguration
        let done = expectation(description: "the other thread wrote")
        Thread.detachNewThread {
            let other = try! Realm(configuration: configuration)
            try! other.write {
                other.add(SectionedItem("egg", score: 10))
                other.objects(SectionedItem.self).filter("name == 'box'").first!.name = "fig"
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        // This realm still reads its version...
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])
        XCTAssertEqual(names(sections[1]), ["banana", "box"])
        // ...until it moves to the newest one.
        XCTAssertTrue(realm.refresh())
        assertLayout(sections, [("a", ["apple", "avocado"]), ("b", ["banana"]), ("c", ["chalk", "cherry"]), ("e", ["egg"]), ("f", ["fig"])])
    }

    func testInvalidatedRealm() throws {
        let realm = try Realm()
        try addFruit(realm)
        let sections = realm.objects(SectionedItem.self).sectioned(by: \.initial)
        let section = sections[0]
        XCTAssertEqual(sections.count, 3)
        realm.invalidate()
        XCTAssertTrue(sections.isInvalidated)
        XCTAssertTrue(section.isInvalidated)
        XCTAssertEqual(sections.count, 0)
        XCTAssertEqual(sections.allKeys, [])
        // Sections made afresh read the current version.
        XCTAssertEqual(realm.objects(SectionedItem.self).sectioned(by: \.initial).allKeys, ["a", "b", "c"])
    }

    // MARK: Frozen

    func testFrozenSectionedResultsKeepTheirVersionAndThawToTheCurrentOne() throws {
        let realm = try Realm()
        try addFruit(realm)
        let results = realm.objects(SectionedItem.self)
        for ascending in [true, false] {
            let live = results.sectioned(by: \.initial, ascending: ascending)
            let frozen = live.freeze()
            XCTAssertTrue(frozen.isFrozen)
            XCTAssertFalse(live.isFrozen)
            XCTAssertEqual(frozen.freeze(), frozen)
            let before = layout(frozen).map(\.0)
            try realm.write { realm.add(SectionedItem(ascending ? "dune" : "elm", score: 20)) }
            XCTAssertEqual(layout(frozen).map(\.0), before)
            XCTAssertTrue(frozen[0].isFrozen)
            XCTAssertTrue(frozen[0][0].isFrozen)
            let thawed = try XCTUnwrap(frozen.thaw())
            XCTAssertFalse(thawed.isFrozen)
            XCTAssertEqual(thawed.allKeys, live.allKeys)
            XCTAssertEqual(thawed.count, before.count + 1)
            XCTAssertEqual(live.thaw(), live)
        }
        XCTAssertEqual(results.sectioned(by: \.initial).allKeys, ["a", "b", "c", "d", "e"])
    }

    func testFrozenSectionedResultsDoNotRunTheKeyClosureAgain() throws {
        let realm = try Realm()
        try addFruit(realm)
        var calls = 0
        let live = realm.objects(SectionedItem.self).sectioned(by: { (item: SectionedItem) -> String in
            calls += 1
            return item.initial
        }, sortDescriptors: ["name"])
        XCTAssertEqual(live.allKeys, ["a", "b", "c"])
        XCTAssertEqual(calls, 6)
        XCTAssertEqual(live.count, 3)
        XCTAssertEqual(calls, 6, "nothing changed: the sections are not computed again")
        let frozen = live.freeze()
        XCTAssertEqual(frozen.allKeys, ["a", "b", "c"])
        XCTAssertEqual(names(frozen[2]), ["chalk", "cherry"])
        XCTAssertEqual(calls, 6)
        try realm.write { realm.add(SectionedItem("dill")) }
        XCTAssertEqual(live.allKeys, ["a", "b", "c", "d"])
        XCTAssertEqual(calls, 13)
        XCTAssertEqual(frozen.allKeys, ["a", "b", "c"])
        XCTAssertEqual(calls, 13)
    }

    func testFrozenSection() throws {
        let realm = try Realm()
        try addFruit(realm)
        let results = realm.objects(SectionedItem.self)
        let frozenSection = results.sectioned(by: \.initial)[0].freeze()
        XCTAssertTrue(frozenSection.isFrozen)
        XCTAssertEqual(frozenSection.freeze(), frozenSection)
        try realm.write { realm.add(SectionedItem("anise")) }
        XCTAssertEqual(frozenSection.key, "a")
        XCTAssertEqual(names(frozenSection), ["apple", "avocado"])
        let thawed = try XCTUnwrap(frozenSection.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.key, "a")
        XCTAssertEqual(names(thawed), ["anise", "apple", "avocado"])
        // A key no live object has any more: nothing to thaw to.
        try realm.write { realm.delete(results.filter("name BEGINSWITH 'a'")) }
        XCTAssertEqual(frozenSection.count, 2)
        XCTAssertNil(frozenSection.thaw())
    }

    func testSectionsOfFrozenResultsAndFromAnotherThread() throws {
        let realm = try Realm()
        try addFruit(realm)
        let frozenResults = realm.objects(SectionedItem.self).freeze()
        try realm.write { realm.add(SectionedItem("zucchini")) }
        let sections = frozenResults.sectioned(by: \.initial, ascending: false)
        XCTAssertTrue(sections.isFrozen)
        XCTAssertEqual(sections.allKeys, ["c", "b", "a"])
        let thawed = try XCTUnwrap(sections.thaw())
        XCTAssertEqual(thawed.allKeys, ["z", "c", "b", "a"])
        // Frozen sections are read from any thread.
        let read = expectation(description: "read on another thread")
        nonisolated(unsafe) var keysThere: [String] = []
        nonisolated(unsafe) var namesThere: [String] = []
        nonisolated(unsafe) let frozenSections = sections
        Thread.detachNewThread {
            keysThere = frozenSections.allKeys
            namesThere = frozenSections[2].map(\.name)
            read.fulfill()
        }
        wait(for: [read], timeout: 30)
        XCTAssertEqual(keysThere, ["c", "b", "a"])
        XCTAssertEqual(namesThere, ["avocado", "apple"])
    }

    // MARK: Keys of every type

    /// Items with keys of every type: the same sections by key path and by closure.
    func testKeysOfEveryPersistableType() throws {
        let realm = try Realm()
        let days = [Date(timeIntervalSince1970: 86_400), Date(timeIntervalSince1970: 0)]
        let batches = [ObjectId("aaaaaaaaaaaaaaaaaaaaaaaa"), ObjectId("bbbbbbbbbbbbbbbbbbbbbbbb")]
        let tickets = [UUID(uuidString: "11111111-1111-1111-1111-111111111111")!, UUID(uuidString: "22222222-2222-2222-2222-222222222222")!]
        let oneTen = Decimal128(string: "1.10"), two = Decimal128(string: "2")
        var items: [SectionedItem] = []
        for index in 0..<4 {
            let item = SectionedItem("item\(index)", score: index)
            let even = index % 2 == 0
            item.nickname = even ? nil : "odd"
            item.bonus = even ? nil : 7
            item.isGood = even
            item.maybeGood = index == 3 ? nil : even
            item.day = days[index % 2]
            item.lastSeen = even ? days[0] : nil
            item.weight = even ? 1.5 : 2.5
            item.ratio = even ? 0.5 : 0.25
            item.price = even ? oneTen : two
            item.batch = batches[index % 2]
            item.ticket = tickets[index % 2]
            item.blob = even ? Data([1, 2]) : Data([3])
            item.mood = even ? .wild : .calm
            items.append(item)
        }
        try realm.write { realm.add(items) }
        let results = realm.objects(SectionedItem.self)

        func check<Key: _Persistable & Hashable>(_ keyPath: KeyPath<SectionedItem, Key>, _ expected: [(Key, [String])],
                                                 line: UInt = #line) {
            let name = _name(for: keyPath)
            assertLayout(results.sectioned(by: keyPath, sortDescriptors: [SortDescriptor(keyPath: name), "name"]), expected, line: line)
            assertLayout(results.sectioned(by: { $0[keyPath: keyPath] }, sortDescriptors: [SortDescriptor(keyPath: name), "name"]),
                         expected, line: line)
        }
        let evens = ["item0", "item2"], odds = ["item1", "item3"]
        check(\.nickname, [(nil, evens), ("odd", odds)])
        check(\.bonus, [(nil, evens), (7, odds)])
        check(\.isGood, [(false, odds), (true, evens)])
        check(\.maybeGood, [(nil, ["item3"]), (false, ["item1"]), (true, evens)])
        check(\.day, [(days[1], odds), (days[0], evens)])
        check(\.lastSeen, [(nil, odds), (days[0], evens)])
        check(\.weight, [(1.5, evens), (2.5, odds)])
        check(\.ratio, [(Float(0.25), odds), (Float(0.5), evens)])
        check(\.price, [(oneTen, evens), (Decimal128(2), odds)])
        check(\.batch, [(batches[0], evens), (batches[1], odds)])
        check(\.ticket, [(tickets[0], evens), (tickets[1], odds)])
        check(\.blob, [(Data([1, 2]), evens), (Data([3]), odds)])
        check(\.mood, [(.calm, odds), (.wild, evens)])
        check(\.score, [(0, ["item0"]), (1, ["item1"]), (2, ["item2"]), (3, ["item3"])])
        // Keys of types other than the property's, from closures.
        assertLayout(results.sectioned(by: { Int8($0.score / 2) }, sortDescriptors: ["score"]), [(0, ["item0", "item1"]), (1, ["item2", "item3"])])
        assertLayout(results.sectioned(by: { $0.nickname ?? "none" }, sortDescriptors: ["score"]), [("none", evens), ("odd", odds)])
    }

    func testStringKeysCompareByTheirBytes() throws {
        let realm = try Realm()
        // "é" precomposed and decomposed: equal Swift strings, two Realm keys.
        try realm.write {
            realm.add([SectionedItem("\u{E9}a", score: 1), SectionedItem("e\u{301}b", score: 2), SectionedItem("\u{E9}c", score: 3)])
        }
        let sections = realm.objects(SectionedItem.self).sectioned(by: { String($0.name.unicodeScalars.prefix(while: { $0 != "a" && $0 != "b" && $0 != "c" })) },
                                                                   sortDescriptors: ["score"])
        XCTAssertEqual(sections.count, 2)
        XCTAssertEqual(sections.map(\.count), [2, 1])
        XCTAssertEqual(sections[0].map(\.name), ["\u{E9}a", "\u{E9}c"])
    }

    func testMixedKeysCompareNumbersByValue() throws {
        let realm = try Realm()
        let values: [AnyRealmValue] = [.int(1), .double(1.0), .string("1"), .none, .float(2.5), .double(2.5), .bool(true),
                                       .decimal128(Decimal128(1)), .int(3)]
        try realm.write {
            for (index, value) in values.enumerated() {
                let item = SectionedItem("m\(index)", score: index)
                item.tag = value
                realm.add(item)
            }
        }
        let byTag = realm.objects(SectionedItem.self).sectioned(by: \.tag, sortDescriptors: ["tag", "score"])
        // Realm's order of mixed values: null, bool, numbers, strings.
        XCTAssertEqual(byTag.allKeys, [.none, .bool(true), .int(1), .float(2.5), .int(3), .string("1")])
        XCTAssertEqual(byTag.map { names($0) }, [["m3"], ["m6"], ["m0", "m1", "m7"], ["m4", "m5"], ["m8"], ["m2"]])
        let byClosure = realm.objects(SectionedItem.self).sectioned(by: { $0.tag }, sortDescriptors: ["score"])
        XCTAssertEqual(byClosure.allKeys, [.int(1), .string("1"), .none, .float(2.5), .bool(true), .int(3)])
        XCTAssertEqual(byClosure[0].map(\.name), ["m0", "m1", "m7"])
    }

    func testNilLinksShareOneSection() throws {
        let realm = try Realm()
        try addFruit(realm)
        let byShelf = realm.objects(SectionedItem.self).sectioned(by: { $0.shelf }, sortDescriptors: ["name"])
        XCTAssertEqual(byShelf.count, 1)
        XCTAssertNil(byShelf[0].key)
        XCTAssertEqual(byShelf[0].count, 6)
    }

    // MARK: Every collection

    func testListsSetsLinkingObjectsAndAnyRealmCollection() throws {
        let realm = try Realm()
        let fruit = try addFruit(realm)
        let shelf = SectionedShelf()
        try realm.write {
            realm.add(shelf)
            shelf.items.append(objectsIn: [fruit[5], fruit[0], fruit[1], fruit[0]])
            shelf.itemSet.insert(objectsIn: [fruit[2], fruit[3], fruit[4]])
            for item in fruit.prefix(3) { item.shelf = shelf }
        }
        // A list holding an object twice gives it twice.
        assertLayout(shelf.items.sectioned(by: \.initial), [("a", ["apple", "apple"]), ("b", ["banana"]), ("c", ["cherry"])])
        assertLayout(shelf.itemSet.sectioned(by: \.initial, ascending: false), [("c", ["chalk"]), ("b", ["box"]), ("a", ["avocado"])])
        assertLayout(shelf.residents.sectioned(by: \.score), [(1, ["banana"]), (3, ["apple"]), (4, ["box"])])
        // Linking objects: the shelves whose list holds the item (avocado is only in the set).
        XCTAssertEqual(fruit[3].shelves.sectioned(by: \.label).allKeys, [])
        let bananaShelves = fruit[1].shelves.sectioned(by: \.label)
        XCTAssertEqual(bananaShelves.allKeys, [""])
        try realm.write { shelf.label = "top" }
        XCTAssertEqual(bananaShelves.map { $0.map(\.label) }, [["top"]])
        assertLayout(AnyRealmCollection(shelf.items).sectioned(by: { $0.score > 3 }, sortDescriptors: ["score"]),
                     [(false, ["banana", "apple", "apple"]), (true, ["cherry"])])
        assertLayout(AnyRealmCollection(realm.objects(SectionedItem.self)).sectioned(by: \.initial, ascending: false),
                     [("c", ["cherry", "chalk"]), ("b", ["box", "banana"]), ("a", ["avocado", "apple"])])
        // Live: sections over a list follow its changes.
        let listSections = shelf.items.sectioned(by: \.initial)
        try realm.write { shelf.items.remove(at: 0); shelf.items.append(fruit[4]) }
        assertLayout(listSections, [("a", ["apple", "apple"]), ("b", ["banana"]), ("c", ["chalk"])])
    }

    func testCollectionsOfValues() throws {
        let realm = try Realm()
        let shelf = SectionedShelf()
        shelf.numbers.append(objectsIn: [5, 4, 3, 2, 1])
        shelf.words.append(objectsIn: ["banana", nil, "box", "apple", nil, "chalk"])
        shelf.wordSet.insert(objectsIn: ["banana", "box", "apple", "chalk"])
        try realm.write { realm.add(shelf) }

        func check<C: RealmCollection, Key: Equatable>(_ sections: SectionedResults<Key, C.Element>, of: C, _ expected: [(Key, [C.Element])],
                                                       line: UInt = #line) where C.Element: Equatable {
            XCTAssertEqual(sections.allKeys, expected.map(\.0), line: line)
            XCTAssertEqual(sections.map { Array($0) }, expected.map(\.1), line: line)
            XCTAssertEqual(sections.map { section in (0..<section.count).map { section[$0] } }, expected.map(\.1), line: line)
        }
        // RealmSwift's own test data: odd and even, in order of first appearance.
        check(shelf.numbers.sectioned(by: { $0 % 2 }), of: shelf.numbers, [(1, [1, 3, 5]), (0, [2, 4])])
        check(shelf.numbers.sectioned(by: { $0 % 2 }, ascending: false), of: shelf.numbers, [(1, [5, 3, 1]), (0, [4, 2])])
        check(shelf.words.sectioned(by: { $0.map { String($0.prefix(1)) } }), of: shelf.words,
              [(nil, [nil, nil]), ("a", ["apple"]), ("b", ["banana", "box"]), ("c", ["chalk"])])
        check(shelf.wordSet.sectioned(by: { String($0.first!) }, ascending: false), of: shelf.wordSet,
              [("c", ["chalk"]), ("b", ["box", "banana"]), ("a", ["apple"])])
        let results = shelf.numbers.filter("self > 1")
        check(results.sectioned(by: { $0 > 3 }), of: results, [(false, [2, 3]), (true, [4, 5])])
        check(AnyRealmCollection(shelf.numbers).sectioned(by: { $0 < 3 }), of: AnyRealmCollection(shelf.numbers), [(true, [1, 2]), (false, [3, 4, 5])])
        // Live, and frozen.
        let parity = shelf.numbers.sectioned(by: { $0 % 2 })
        let frozen = parity.freeze()
        try realm.write { shelf.numbers.append(objectsIn: [6, 7]) }
        check(parity, of: shelf.numbers, [(1, [1, 3, 5, 7]), (0, [2, 4, 6])])
        check(frozen, of: shelf.numbers, [(1, [1, 3, 5]), (0, [2, 4])])
        XCTAssertTrue(shelf.numbers.freeze().sectioned(by: { $0 % 3 }).isFrozen)
    }

    func testProjections() throws {
        let realm = try Realm()
        try addFruit(realm)
        let projections = realm.objects(SectionedItemProjection.self)
        func titles(_ sections: SectionedResults<String, SectionedItemProjection>) -> [[String]] {
            sections.map { $0.map(\.title) }
        }
        for ascending in [true, false] {
            let byInitial = projections.sectioned(by: \.initial, ascending: ascending)
            XCTAssertEqual(byInitial.allKeys, ascending ? ["a", "b", "c"] : ["c", "b", "a"])
            let first: SectionedItemProjection = byInitial[0][0]
            XCTAssertEqual(first.title, ascending ? "apple" : "cherry")
            let withDescriptors = projections.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
            XCTAssertEqual(titles(withDescriptors), titles(byInitial))
            let byClosure = projections.sectioned(by: { String($0.title.first!) }, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
            XCTAssertEqual(titles(byClosure), titles(byInitial))
        }
        let byPoints = projections.sectioned(by: \.points, sortDescriptors: [SortDescriptor(keyPath: "score", ascending: false)])
        XCTAssertEqual(byPoints.allKeys, [6, 5, 4, 3, 2, 1])
        XCTAssertEqual(byPoints[IndexPath(item: 0, section: 5)].title, "banana")
        // Live and frozen.
        let live = projections.sectioned(by: \.initial)
        let frozen = live.freeze()
        try realm.write { realm.add(SectionedItem("dill")) }
        XCTAssertEqual(titles(live), [["apple", "avocado"], ["banana", "box"], ["chalk", "cherry"], ["dill"]])
        XCTAssertEqual(titles(frozen), [["apple", "avocado"], ["banana", "box"], ["chalk", "cherry"]])
        XCTAssertTrue(frozen[0][0].isFrozen)
        XCTAssertEqual(try XCTUnwrap(frozen.thaw()).count, 4)
        XCTAssertTrue(live.description.contains("name = dill"), live.description)
    }

    // MARK: Traps

    func testTrapsWhereRealmSwiftTraps() {
        assertTraps("sectionUnmanagedList", message: "Cannot section an unmanaged List")
        assertTraps("sectionUnmanagedMutableSet", message: "Cannot section an unmanaged MutableSet")
        assertTraps("sectionUnmanagedListOfValues", message: "this method may only be called on List instances retrieved from a Realm")
        assertTraps("sectionUnmanagedAnyRealmCollection", message: "Cannot section an unmanaged AnyRealmCollection")
        assertTraps("sectionWithoutSortDescriptors", message: "There must be at least one SortDescriptor when using SectionedResults.")
        assertTraps("sectionKeyPathWithoutSortDescriptors", message: "Can not section Results with empty sortDescriptor parameter.")
        assertTraps("sectionKeyPathNotFirstSortDescriptor", message: "The section key path must match the primary sort descriptor.")
        assertTraps("sectionByLink", message: "Links are not supported as section keys.")
        assertTraps("sectionByMixedLink", message: "Links are not supported as section keys.")
        assertTraps("readInvalidatedSection", message: "Access to invalidated Results objects")
        assertTraps("sectionIndexOutOfBounds", message: "Index 3 is out of bounds (must be less than 3).")
        assertTraps("itemIndexOutOfBounds", message: "Index 2 is out of bounds (must be less than 2).")
        assertTraps("sectionObjectsByValue", message: "Cannot sort on key path 'self': property 'SectionedItem.self' does not exist")
        assertTraps("sectionProjectionKeyPathNotFirstSortDescriptor", message: "The section key path must match the primary sort descriptor.")
    }

    nonisolated(unsafe) static let trapScenarios: [String: (FiefTestCase) throws -> Void] = [
        "sectionUnmanagedList": { _ in _ = SectionedShelf().items.sectioned(by: \.initial) },
        "sectionUnmanagedMutableSet": { _ in _ = SectionedShelf().itemSet.sectioned(by: { $0.name }, sortDescriptors: ["name"]) },
        "sectionUnmanagedListOfValues": { _ in _ = SectionedShelf().numbers.sectioned(by: { $0 % 2 }) },
        "sectionUnmanagedAnyRealmCollection": { _ in _ = AnyRealmCollection(SectionedShelf().words).sectioned(by: { $0 }) },
        "sectionWithoutSortDescriptors": { test in
            _ = try Realm(configuration: test.fileConfiguration()).objects(SectionedItem.self).sectioned(sortDescriptors: []) { $0.name }
        },
        "sectionKeyPathWithoutSortDescriptors": { test in
            _ = try Realm(configuration: test.fileConfiguration()).objects(SectionedItem.self).sectioned(by: \.name, sortDescriptors: [])
        },
        "sectionKeyPathNotFirstSortDescriptor": { test in
            _ = try Realm(configuration: test.fileConfiguration()).objects(SectionedItem.self).sectioned(by: \.initial, sortDescriptors: ["score", "name"])
        },
        "sectionByLink": { test in
            let realm = try Realm(configuration: test.fileConfiguration())
            let item = SectionedItem("a")
            item.shelf = SectionedShelf()
            try realm.write { realm.add(item) }
            _ = realm.objects(SectionedItem.self).sectioned(by: { $0.shelf }, sortDescriptors: ["name"]).count
        },
        "sectionByMixedLink": { test in
            let realm = try Realm(configuration: test.fileConfiguration())
            try realm.write {
                let item = realm.create(SectionedItem.self, value: ["name": "a"])
                item.tag = .object(item)
            }
            _ = realm.objects(SectionedItem.self).sectioned(by: { $0.tag }, sortDescriptors: ["name"]).count
        },
        "readInvalidatedSection": { test in
            let realm = try Realm(configuration: test.fileConfiguration())
            try realm.write { realm.add(SectionedItem("a")) }
            let section = realm.objects(SectionedItem.self).sectioned(by: \.initial)[0]
            try realm.write { realm.deleteAll() }
            _ = section.count
        },
        "sectionIndexOutOfBounds": { test in
            let realm = try Realm(configuration: test.fileConfiguration())
            try realm.write { realm.add([SectionedItem("a"), SectionedItem("b"), SectionedItem("c")]) }
            _ = realm.objects(SectionedItem.self).sectioned(by: \.initial)[3]
        },
        "itemIndexOutOfBounds": { test in
            let realm = try Realm(configuration: test.fileConfiguration())
            try realm.write { realm.add([SectionedItem("a1"), SectionedItem("a2")]) }
            _ = realm.objects(SectionedItem.self).sectioned(by: \.initial)[IndexPath(item: 2, section: 0)]
        },
        "sectionProjectionKeyPathNotFirstSortDescriptor": { test in
            _ = try Realm(configuration: test.fileConfiguration()).objects(SectionedItemProjection.self)
                .sectioned(by: \.points, sortDescriptors: ["name", "score"])
        },
        "sectionObjectsByValue": { test in
            _ = try Realm(configuration: test.fileConfiguration()).objects(SectionedItem.self).sectioned(by: { $0.name }, ascending: true)
        },
    ]
}
