// Type-safe queries (`where {}` and `Query<T>`): the predicate text and
// arguments each operator builds, and, for what the library evaluates today
// (comparisons of properties, string operators, logic, key paths through
// links, embedded objects and lists, collections of values, counts,
// aggregates, IN and BETWEEN), the objects `where` finds in real realms on
// files, checked against the same condition written in Swift over every
// object.

import Fief
import Foundation
import XCTest

/// Pairs of properties of one type, for comparisons between properties.
class Measurement: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var minimum = 0
    @Persisted var maximum = 0
    @Persisted var target = 0.0
    @Persisted var reading = 0.0
    @Persisted var label = ""
    @Persisted var altLabel = ""
    @Persisted var optA: Int?
    @Persisted var optB: Int?
    @Persisted var taken = Date(timeIntervalSince1970: 0)
    @Persisted var checked = Date(timeIntervalSince1970: 0)
}

/// A GeoJSON point, as geospatial queries want it.
class QueryLocation: EmbeddedObject {
    @Persisted var type = "Point"
    @Persisted var coordinates: List<Double>
}

class QueryCompany: Object {
    @Persisted var name = ""
    @Persisted var location: QueryLocation?
    @Persisted var offices: List<QueryLocation>
}

/// A shape given by its query-language text, standing in for the Geo types.
struct QueryTestShape: _FiefQueryShape {
    let _fiefQueryText: String
}

final class TypedQueryTests: FiefTestCase {
    // MARK: - Helpers

    /// Asserts the predicate text and arguments `query` builds over `T`.
    private func assertPredicate<T>(_ type: T.Type, _ expected: String, _ arguments: [Any] = [],
                                    file: StaticString = #filePath, line: UInt = #line,
                                    _ query: (Query<T>) -> Query<Bool>) {
        let (text, actual) = query(Query<T>._constructForTesting())._constructPredicate()
        XCTAssertEqual(text, expected, file: file, line: line)
        XCTAssertEqual(actual.map(describeArgument), arguments.map(describeArgument), file: file, line: line)
    }

    /// An argument's type and value (objects by identity).
    private func describeArgument(_ argument: Any) -> String {
        if let object = argument as? ObjectBase {
            return "\(type(of: object))@\(ObjectIdentifier(object))"
        }
        if let objects = argument as? [ObjectBase] {
            return objects.map(describeArgument).joined(separator: ",")
        }
        return "\(type(of: argument))(\(String(describing: argument)))"
    }

    /// Asserts that `found` holds the objects of `candidates` that `expected`
    /// picks, compared by `key`; unless `mayBeTrivial`, also that `expected`
    /// picks some of them but not all (so the check tells something).
    private func assertFinds<E, K: Hashable>(_ found: Results<E>, _ candidates: [E], by key: (E) -> K,
                                            mayBeTrivial: Bool = false,
                                            file: StaticString = #filePath, line: UInt = #line,
                                            _ expected: (E) -> Bool) {
        let wanted = candidates.filter(expected).map(key)
        XCTAssertEqual(Set(found.map(key)), Set(wanted), file: file, line: line)
        XCTAssertEqual(found.count, wanted.count, file: file, line: line)
        if !mayBeTrivial {
            XCTAssertFalse(wanted.isEmpty, "the condition matches nothing", file: file, line: line)
            XCTAssertNotEqual(wanted.count, candidates.count, "the condition matches everything", file: file, line: line)
        }
    }

    /// A realm on a file in this test's directory.
    private func fileRealm() throws -> Realm {
        try Realm(configuration: fileConfiguration())
    }

    // MARK: - Text: comparisons

    func testComparisonsWithValues() {
        assertPredicate(AllTypes.self, "(int == $0)", [3]) { $0.int == 3 }
        assertPredicate(AllTypes.self, "(int != $0)", [3]) { $0.int != 3 }
        assertPredicate(AllTypes.self, "(int > $0)", [3]) { $0.int > 3 }
        assertPredicate(AllTypes.self, "(int >= $0)", [3]) { $0.int >= 3 }
        assertPredicate(AllTypes.self, "(int < $0)", [3]) { $0.int < 3 }
        assertPredicate(AllTypes.self, "(int <= $0)", [3]) { $0.int <= 3 }
        assertPredicate(AllTypes.self, "(int8 == $0)", [Int8(9)]) { $0.int8 == 9 }
        assertPredicate(AllTypes.self, "(float < $0)", [Float(1.5)]) { $0.float < 1.5 }
        assertPredicate(AllTypes.self, "(double >= $0)", [2.5]) { $0.double >= 2.5 }
        assertPredicate(AllTypes.self, "(string > $0)", ["m"]) { $0.string > "m" }
        assertPredicate(AllTypes.self, "(data == $0)", [Data([1, 2])]) { $0.data == Data([1, 2]) }
        assertPredicate(AllTypes.self, "(date <= $0)", [Date(timeIntervalSince1970: 5)]) { $0.date <= Date(timeIntervalSince1970: 5) }
        assertPredicate(AllTypes.self, "(decimal > $0)", [Decimal128(2)]) { $0.decimal > Decimal128(2) }
        let id = ObjectId("61184062c1d8f096a3695045")
        assertPredicate(AllTypes.self, "(objectId == $0)", [id]) { $0.objectId == id }
        let uuid = UUID(uuidString: "33041937-05B2-464A-98AD-3910CBE0D09F")!
        assertPredicate(AllTypes.self, "(uuid != $0)", [uuid]) { $0.uuid != uuid }
        assertPredicate(AllTypes.self, "(bool == $0)", [true]) { $0.bool == true }
        assertPredicate(AllTypes.self, "(optInt == $0)", [3]) { $0.optInt == 3 }
        assertPredicate(AllTypes.self, "(optDouble > $0)", [0.5]) { $0.optDouble > 0.5 }
    }

    func testNilTests() {
        assertPredicate(AllTypes.self, "(optInt == $0)", [NSNull()]) { $0.optInt == nil }
        assertPredicate(AllTypes.self, "(optString != $0)", [NSNull()]) { $0.optString != nil }
        assertPredicate(Dog.self, "(favoriteToy == $0)", [NSNull()]) { $0.favoriteToy == nil }
        assertPredicate(Person.self, "(address != $0)", [NSNull()]) { $0.address != nil }
    }

    func testComparisonsBetweenProperties() {
        assertPredicate(Measurement.self, "(minimum < maximum)") { $0.minimum < $0.maximum }
        assertPredicate(Measurement.self, "(reading >= target)") { $0.reading >= $0.target }
        assertPredicate(Measurement.self, "(label == altLabel)") { $0.label == $0.altLabel }
        assertPredicate(Measurement.self, "(label != altLabel)") { $0.label != $0.altLabel }
        assertPredicate(Measurement.self, "(optA == optB)") { $0.optA == $0.optB }
        assertPredicate(Measurement.self, "(taken > checked)") { $0.taken > $0.checked }
        assertPredicate(Measurement.self, "(label BEGINSWITH[c] altLabel)") { $0.label.starts(with: $0.altLabel, options: .caseInsensitive) }
        assertPredicate(Measurement.self, "(label ENDSWITH altLabel)") { $0.label.ends(with: $0.altLabel) }
        assertPredicate(Measurement.self, "(label CONTAINS[cd] altLabel)") {
            $0.label.contains($0.altLabel, options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPredicate(Measurement.self, "(label ==[c] altLabel)") { $0.label.equals($0.altLabel, options: .caseInsensitive) }
        assertPredicate(Measurement.self, "(label !=[d] altLabel)") { $0.label.notEquals($0.altLabel, options: .diacriticInsensitive) }
        assertPredicate(Measurement.self, "(label LIKE[c] altLabel)") { $0.label.like($0.altLabel, caseInsensitive: true) }
        assertPredicate(Dog.self, "(name == favoriteToy.name)") { $0.name == $0.favoriteToy.name }
    }

    // MARK: - Text: strings and data

    func testStringOperatorsAndOptions() {
        assertPredicate(AllTypes.self, "(string CONTAINS $0)", ["a"]) { $0.string.contains("a") }
        assertPredicate(AllTypes.self, "(string CONTAINS[c] $0)", ["a"]) { $0.string.contains("a", options: .caseInsensitive) }
        assertPredicate(AllTypes.self, "(string CONTAINS[d] $0)", ["a"]) { $0.string.contains("a", options: .diacriticInsensitive) }
        assertPredicate(AllTypes.self, "(string CONTAINS[cd] $0)", ["a"]) {
            $0.string.contains("a", options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPredicate(AllTypes.self, "(string BEGINSWITH $0)", ["a"]) { $0.string.starts(with: "a") }
        assertPredicate(AllTypes.self, "(string BEGINSWITH[cd] $0)", ["a"]) {
            $0.string.starts(with: "a", options: [.diacriticInsensitive, .caseInsensitive])
        }
        assertPredicate(AllTypes.self, "(string ENDSWITH $0)", ["a"]) { $0.string.ends(with: "a") }
        assertPredicate(AllTypes.self, "(string ENDSWITH[c] $0)", ["a"]) { $0.string.ends(with: "a", options: .caseInsensitive) }
        assertPredicate(AllTypes.self, "(string LIKE $0)", ["a*b?"]) { $0.string.like("a*b?") }
        assertPredicate(AllTypes.self, "(string LIKE[c] $0)", ["a*"]) { $0.string.like("a*", caseInsensitive: true) }
        assertPredicate(AllTypes.self, "(string ==[c] $0)", ["a"]) { $0.string.equals("a", options: .caseInsensitive) }
        assertPredicate(AllTypes.self, "(string == $0)", ["a"]) { $0.string.equals("a") }
        assertPredicate(AllTypes.self, "(string !=[cd] $0)", ["a"]) {
            $0.string.notEquals("a", options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPredicate(AllTypes.self, "(optString BEGINSWITH $0)", ["x"]) { $0.optString.starts(with: "x") }
        assertPredicate(AllTypes.self, "(optString LIKE $0)", ["x"]) { $0.optString.like("x") }
        assertPredicate(AllTypes.self, "(string TEXT $0)", ["quick -slow fox*"]) { $0.string.fullTextMatches("quick -slow fox*") }
    }

    func testDataOperators() {
        let bytes = Data([1, 2])
        assertPredicate(AllTypes.self, "(data CONTAINS $0)", [bytes]) { $0.data.contains(bytes) }
        assertPredicate(AllTypes.self, "(data BEGINSWITH $0)", [bytes]) { $0.data.starts(with: bytes) }
        assertPredicate(AllTypes.self, "(data ENDSWITH $0)", [bytes]) { $0.data.ends(with: bytes) }
        assertPredicate(AllTypes.self, "(data != $0)", [bytes]) { $0.data.notEquals(bytes) }
        assertPredicate(AllTypes.self, "(optData CONTAINS $0)", [bytes]) { $0.optData.contains(bytes) }
    }

    // MARK: - Text: membership and ranges

    func testInAndRanges() {
        assertPredicate(AllTypes.self, "(int IN $0)", [[1, 3]]) { $0.int.in([1, 3]) }
        assertPredicate(AllTypes.self, "(NOT int IN $0)", [[3]]) { !$0.int.in([3]) }
        assertPredicate(AllTypes.self, "(string IN $0)", [Array(Set(["a"]))]) { $0.string.in(Set(["a"])) }
        assertPredicate(AllTypes.self, "(optInt IN $0)", [[1, nil] as [Int?]]) { $0.optInt.in([1, nil]) }
        assertPredicate(Profile.self, "(mood IN $0)", [[Mood.happy, Mood.sad]]) { $0.mood.in([.happy, .sad]) }
        assertPredicate(AllTypes.self, "((int >= $0) && (int < $1))", [1, 5]) { $0.int.contains(1..<5) }
        assertPredicate(AllTypes.self, "(int BETWEEN {$0, $1})", [1, 5]) { $0.int.contains(1...5) }
        assertPredicate(AllTypes.self, "(NOT int BETWEEN {$0, $1})", [1, 5]) { !$0.int.contains(1...5) }
        assertPredicate(AllTypes.self, "((optDouble >= $0) && (optDouble < $1))", [1.0, 2.0]) { $0.optDouble.contains(1.0..<2.0) }
        assertPredicate(AllTypes.self, "(optDate BETWEEN {$0, $1})", [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)]) {
            $0.optDate.contains(Date(timeIntervalSince1970: 1)...Date(timeIntervalSince1970: 2))
        }
        assertPredicate(AllTypes.self, "(string BETWEEN {$0, $1})", ["a", "c"]) { $0.string.contains("a"..."c") }
    }

    // MARK: - Text: logic

    func testLogicalOperators() {
        assertPredicate(AllTypes.self, "((int == $0) && (string == $1))", [1, "a"]) { $0.int == 1 && $0.string == "a" }
        assertPredicate(AllTypes.self, "((int == $0) || (string == $1))", [1, "a"]) { $0.int == 1 || $0.string == "a" }
        assertPredicate(AllTypes.self, "((int == $0) || ((int == $1) && (bool == $2)))", [1, 2, true]) {
            $0.int == 1 || $0.int == 2 && $0.bool == true
        }
        assertPredicate(AllTypes.self, "(((int == $0) || (int == $1)) && (bool == $2))", [1, 2, true]) {
            ($0.int == 1 || $0.int == 2) && $0.bool == true
        }
        assertPredicate(AllTypes.self, "(NOT int == $0)", [1]) { !($0.int == 1) }
        assertPredicate(AllTypes.self, "(NOT string CONTAINS[c] $0)", ["a"]) { !$0.string.contains("a", options: .caseInsensitive) }
        assertPredicate(AllTypes.self, "NOT((int == $0) && (string == $1))", [1, "a"]) { !($0.int == 1 && $0.string == "a") }
        assertPredicate(AllTypes.self, "NOT (NOT int == $0)", [1]) { !(!($0.int == 1)) }
    }

    func testBoolPropertiesAsConditions() {
        assertPredicate(AllTypes.self, "bool == true") { $0.bool }
        assertPredicate(AllTypes.self, "bool == false") { !$0.bool }
        assertPredicate(AllTypes.self, "((int == $0) && bool == true)", [0]) { $0.int == 0 && $0.bool }
        assertPredicate(AllTypes.self, "(bool == false || (int == $0))", [0]) { !$0.bool || $0.int == 0 }
        assertPredicate(AllTypes.self, "NOT bool == false") { !(!$0.bool) }
    }

    // MARK: - Text: links and embedded objects

    func testKeyPathsThroughLinks() {
        assertPredicate(Dog.self, "(favoriteToy.name == $0)", ["Tennis ball"]) { $0.favoriteToy.name == "Tennis ball" }
        assertPredicate(Person.self, "(address.city == $0)", ["Los Angeles"]) { $0.address.city == "Los Angeles" }
        assertPredicate(Buddy.self, "(buddy.buddy.name BEGINSWITH $0)", ["A"]) { $0.buddy.buddy.name.starts(with: "A") }
        let toy = DogToy()
        assertPredicate(Dog.self, "(favoriteToy == $0)", [toy]) { $0.favoriteToy == toy }
    }

    // MARK: - Text: collections

    func testListsOfObjects() {
        assertPredicate(Person.self, "(ANY dogs.age > $0)", [5]) { $0.dogs.age > 5 }
        assertPredicate(Person.self, "(ANY dogs.name BEGINSWITH[c] $0)", ["r"]) { $0.dogs.name.starts(with: "r", options: .caseInsensitive) }
        assertPredicate(Person.self, "(ANY dogs.favoriteToy.name == $0)", ["ball"]) { $0.dogs.favoriteToy.name == "ball" }
        assertPredicate(Person.self, "(dogs.@count > $0)", [2]) { $0.dogs.count > 2 }
        assertPredicate(Person.self, "(dogs.@avg.age == $0)", [5]) { $0.dogs.age.avg == 5 }
        assertPredicate(Person.self, "(dogs.@min.age > $0)", [5]) { $0.dogs.age.min > 5 }
        assertPredicate(Person.self, "(dogs.@max.age < $0)", [2]) { $0.dogs.age.max < 2 }
        assertPredicate(Person.self, "(dogs.@sum.age > $0)", [10]) { $0.dogs.age.sum > 10 }
        let dog = Dog()
        assertPredicate(Person.self, "($0 IN dogs)", [dog]) { $0.dogs.contains(dog) }
        assertPredicate(Person.self, "(NOT $0 IN dogs)", [dog]) { !$0.dogs.contains(dog) }
        assertPredicate(Person.self, "(ANY dogs IN $0)", [[dog]]) { $0.dogs.containsAny(in: [dog]) }
        assertPredicate(Person.self, "(ANY dogs == $0)", [dog]) { $0.dogs == dog }
        assertPredicate(DogClub.self, "(ANY regionalOfficeAddresses.city == $0)", ["Oslo"]) { $0.regionalOfficeAddresses.city == "Oslo" }
        assertPredicate(DogClub.self, "(ANY members.dogs.age > $0)", [3]) { $0.members.dogs.age > 3 }
    }

    func testLinkingObjects() {
        assertPredicate(Person.self, "(ANY clubs.name == $0)", ["Pooch Pals"]) { $0.clubs.name == "Pooch Pals" }
        assertPredicate(Person.self, "(clubs.@count >= $0)", [1]) { $0.clubs.count >= 1 }
        let club = DogClub()
        assertPredicate(Person.self, "($0 IN clubs)", [club]) { $0.clubs.contains(club) }
        assertPredicate(Person.self, "(NOT ANY clubs IN $0)", [[club]]) { !$0.clubs.containsAny(in: [club]) }
        // A collection reached through a link: aggregates follow the whole path.
        assertPredicate(Dog.self, "(favoriteToy.dogs.@max.age > $0)", [3]) { $0.favoriteToy.dogs.age.max > 3 }
        assertPredicate(Dog.self, "(favoriteToy.dogs.@count > $0)", [1]) { $0.favoriteToy.dogs.count > 1 }
    }

    func testCollectionsOfValues() {
        assertPredicate(ScalarLists.self, "(ANY ints == $0)", [5]) { $0.ints == 5 }
        assertPredicate(ScalarLists.self, "(ANY ints != $0)", [5]) { $0.ints != 5 }
        assertPredicate(ScalarLists.self, "(ANY ints > $0)", [5]) { $0.ints > 5 }
        assertPredicate(ScalarLists.self, "(ANY doubles <= $0)", [0.5]) { $0.doubles <= 0.5 }
        assertPredicate(ScalarLists.self, "($0 IN ints)", [5]) { $0.ints.contains(5) }
        assertPredicate(ScalarLists.self, "(ANY ints IN $0)", [[1, 2]]) { $0.ints.containsAny(in: [1, 2]) }
        assertPredicate(ScalarLists.self, "(ints.@count == $0)", [0]) { $0.ints.count == 0 }
        assertPredicate(ScalarLists.self, "(ints.@min > $0)", [1]) { $0.ints.min > 1 }
        assertPredicate(ScalarLists.self, "(ints.@max < $0)", [1]) { $0.ints.max < 1 }
        assertPredicate(ScalarLists.self, "(ints.@avg >= $0)", [1]) { $0.ints.avg >= 1 }
        assertPredicate(ScalarLists.self, "(decimals.@sum == $0)", [Decimal128(3)]) { $0.decimals.sum == Decimal128(3) }
        assertPredicate(ScalarLists.self, "((ints.@min >= $0) && (ints.@max <= $1))", [1, 5]) { $0.ints.contains(1...5) }
        assertPredicate(ScalarLists.self, "((ints.@min >= $0) && (ints.@max < $1))", [1, 5]) { $0.ints.contains(1..<5) }
        assertPredicate(ScalarLists.self, "((optInts.@min >= $0) && (optInts.@max < $1))", [1, 5]) { $0.optInts.contains(1..<5) }
        assertPredicate(ScalarLists.self, "(ANY moods == $0)", [Mood.sad]) { $0.moods == .sad }
        assertPredicate(ScalarLists.self, "($0 IN moods)", ["SAD"]) { $0.moods.rawValue.contains("SAD") }
        assertPredicate(ScalarLists.self, "(ANY temperatures > $0)", [20.0]) { $0.temperatures.persistableValue > 20.0 }
        assertPredicate(ScalarSets.self, "($0 IN strings)", ["New York"]) { $0.strings.contains("New York") }
        assertPredicate(ScalarSets.self, "(ANY uuids IN $0)", [[UUID]()]) { $0.uuids.containsAny(in: []) }
        assertPredicate(ScalarSets.self, "(ANY optInts == $0)", [NSNull()]) { $0.optInts == nil }
    }

    func testMaps() {
        assertPredicate(ScalarMaps.self, "(ints.@count >= $0)", [1]) { $0.ints.count >= 1 }
        assertPredicate(ScalarMaps.self, "(ANY ints.@keys == $0)", ["a"]) { $0.ints.keys == "a" }
        assertPredicate(ScalarMaps.self, "(ANY ints.@keys BEGINSWITH[c] $0)", ["a"]) { $0.ints.keys.starts(with: "a", options: .caseInsensitive) }
        assertPredicate(ScalarMaps.self, "(ANY ints.@values > $0)", [5]) { $0.ints.values > 5 }
        assertPredicate(ScalarMaps.self, "(ANY strings.@values LIKE[c] $0)", ["a*"]) { $0.strings.values.like("a*", caseInsensitive: true) }
        assertPredicate(ScalarMaps.self, "(ints[$0] == $1)", ["a", 5]) { $0.ints["a"] == 5 }
        assertPredicate(ScalarMaps.self, "(NOT strings[$0] CONTAINS $1)", ["k", "x"]) { !$0.strings["k"].contains("x") }
        assertPredicate(ScalarMaps.self, "($0 IN ints)", [5]) { $0.ints.contains(5) }
        assertPredicate(ScalarMaps.self, "(ANY ints IN $0)", [[5, 6]]) { $0.ints.containsAny(in: [5, 6]) }
        assertPredicate(ScalarMaps.self, "(ints.@min >= $0)", [1]) { $0.ints.min >= 1 }
        assertPredicate(ScalarMaps.self, "(doubles.@sum < $0)", [1.5]) { $0.doubles.sum < 1.5 }
        assertPredicate(ScalarMaps.self, "((ints.@min >= $0) && (ints.@max <= $1))", [1, 3]) { $0.ints.contains(1...3) }
        assertPredicate(ScalarMaps.self, "((optInts.@min >= $0) && (optInts.@max < $1))", [1, 3]) { $0.optInts.contains(1..<3) }
        assertPredicate(ScalarMaps.self, "(ANY moods.@values == $0)", [Mood.happy]) { $0.moods.values == .happy }
        assertPredicate(ScalarMaps.self, "(moods[$0] == $1)", ["k", "SAD"]) { $0.moods.rawValue["k"] == "SAD" }
        assertPredicate(Kennel.self, "(ANY dogsByName.@values.age > $0)", [3]) { $0.dogsByName.values.age > 3 }
        assertPredicate(Kennel.self, "(ANY offices.@values.city == $0)", ["Oslo"]) { $0.offices.values.city == "Oslo" }
        assertPredicate(Kennel.self, "(dogsByName[$0] == $1)", ["Rex", NSNull()]) { $0.dogsByName["Rex"] == nil }
        assertPredicate(Kennel.self, "(dogs.@avg.age < $0)", [4]) { $0.dogs.age.avg < 4 }
    }

    func testSubqueries() {
        assertPredicate(Person.self, "(SUBQUERY(dogs, $col1, ($col1.age > $0)).@count > $1)", [5, 2]) { ($0.dogs.age > 5).count > 2 }
        assertPredicate(Person.self, "(SUBQUERY(dogs, $col1, (($col1.age > $0) && ($col1.color == $1))).@count >= $2)", [5, "tan", 1]) {
            ($0.dogs.age > 5 && $0.dogs.color == "tan").count >= 1
        }
        assertPredicate(Person.self, "((name == $0) && (SUBQUERY(dogs, $col1, ($col1.name == $1)).@count == $2))", ["Ann", "Rex", 0]) {
            $0.name == "Ann" && ($0.dogs.name == "Rex").count == 0
        }
        assertPredicate(Person.self, "(SUBQUERY(dogs, $col1, ($col1.name == name)).@count == $0)", [0]) { ($0.dogs.name == $0.name).count == 0 }
        assertPredicate(Person.self, "((SUBQUERY(dogs, $col1, ($col1.age == $0)).@count == $1) && (SUBQUERY(dogs, $col2, ($col2.color == $2)).@count == $3))",
                        [5, 1, "tan", 0]) {
            ($0.dogs.age == 5).count == 1 && ($0.dogs.color == "tan").count == 0
        }
        assertPredicate(DogClub.self, "(SUBQUERY(members, $col1, ($col1.dogs.@count >= $0)).@count > $1)", [2, 0]) {
            ($0.members.dogs.count >= 2).count > 0
        }
        assertPredicate(DogClub.self, "(SUBQUERY(members, $col1, (($col1.dogs.@count >= $0) && (SUBQUERY(members, $col2, ($col2.name != $1)).@count > $2))).@count > $3)",
                        [0, "x", 0, 0]) {
            ($0.members.dogs.count >= 0 && ($0.members.name != "x").count > 0).count > 0
        }
        assertPredicate(Person.self, "(SUBQUERY(dogs, $col1, (NOT $col1.age BETWEEN {$0, $1})).@count > $2)", [1, 3, 0]) {
            (!$0.dogs.age.contains(1...3)).count > 0
        }
        assertPredicate(Person.self, "(SUBQUERY(clubs, $col1, ($col1.name BEGINSWITH $0)).@count == $1)", ["P", 1]) {
            ($0.clubs.name.starts(with: "P")).count == 1
        }
    }

    // MARK: - Text: mixed values, enums, custom types, geo

    func testAnyRealmValue() {
        assertPredicate(MixedHolder.self, "(value == $0)", [AnyRealmValue.int(5)]) { $0.value == .int(5) }
        assertPredicate(MixedHolder.self, "(value > $0)", [AnyRealmValue.double(1.5)]) { $0.value > .double(1.5) }
        assertPredicate(MixedHolder.self, "(value[$0] == $1)", [0, AnyRealmValue.string("a")]) { $0.value[0] == .string("a") }
        assertPredicate(MixedHolder.self, "(value[$0][$1] == $2)", ["k", 1, AnyRealmValue.bool(true)]) { $0.value["k"][1] == .bool(true) }
        assertPredicate(MixedHolder.self, "(value[*] == $0)", [AnyRealmValue.int(1)]) { $0.value.any == .int(1) }
        assertPredicate(MixedHolder.self, "(value[$0][*] != $1)", ["k", AnyRealmValue.none]) { $0.value["k"].any != AnyRealmValue.none }
        assertPredicate(MixedHolder.self, "(ANY values == $0)", [AnyRealmValue.int(1)]) { $0.values == .int(1) }
        assertPredicate(MixedHolder.self, "(ANY byKey.@values < $0)", [AnyRealmValue.int(1)]) { $0.byKey.values < .int(1) }
    }

    func testEnumsAndCustomPersistableTypes() {
        assertPredicate(Profile.self, "(mood == $0)", [Mood.sad]) { $0.mood == .sad }
        assertPredicate(Profile.self, "(level > $0)", [Level.low]) { $0.level > .low }
        assertPredicate(Profile.self, "(optMood == $0)", [NSNull()]) { $0.optMood == nil }
        assertPredicate(Profile.self, "(mood BEGINSWITH $0)", ["s"]) { $0.mood.rawValue.starts(with: "s") }
        assertPredicate(Profile.self, "(optLevel >= $0)", [5]) { $0.optLevel.rawValue >= 5 }
        assertPredicate(Profile.self, "(level == level)") { $0.level == $0.level }
        let celsius = Celsius(degrees: 20)
        assertPredicate(Profile.self, "(temperature > $0)", [celsius]) { $0.temperature > celsius }
        assertPredicate(Profile.self, "(temperature BETWEEN {$0, $1})", [10.0, 30.0]) { $0.temperature.persistableValue.contains(10.0...30.0) }
        let url = URL(string: "https://example.com")!
        assertPredicate(Profile.self, "(homepage == $0)", [url]) { $0.homepage == url }
        assertPredicate(Profile.self, "(homepage CONTAINS $0)", ["example"]) { $0.homepage.persistableValue.contains("example") }
        assertPredicate(Shape.self, "(origin.x > $0)", [1.0]) { $0.origin.persistableValue.x > 1.0 }
        assertPredicate(Venue.self, "(coordinates.latitude < $0)", [0.0]) { $0.coordinates.persistableValue.latitude < 0.0 }
    }

    func testGeoWithin() {
        let box = QueryTestShape(_fiefQueryText: "geoBox([-122.7, 47.3], [-122.1, 48.1])")
        assertPredicate(QueryCompany.self, "(location GEOWITHIN geoBox([-122.7, 47.3], [-122.1, 48.1]))") { $0.location.geoWithin(box) }
        assertPredicate(QueryCompany.self, "(NOT location GEOWITHIN geoBox([-122.7, 47.3], [-122.1, 48.1]))") { !$0.location.geoWithin(box) }
        let circle = QueryTestShape(_fiefQueryText: "geoCircle([-121.9, 47.3], 0.25)")
        assertPredicate(QueryCompany.self, "((name == $0) || (location GEOWITHIN geoCircle([-121.9, 47.3], 0.25)))", ["HQ"]) {
            $0.name == "HQ" || $0.location.geoWithin(circle)
        }
        // RealmSwift's shapes are arguments (an invalid one is then named as RealmSwift names it).
        let realBox = GeoBox(bottomLeft: (47.3, -122.7), topRight: (48.1, -122.1))!
        assertPredicate(QueryCompany.self, "(location GEOWITHIN $0)", [realBox]) { $0.location.geoWithin(realBox) }
    }

    func testQueriesOverValuesNameTheElementSelf() {
        assertPredicate(Int.self, "(self > $0)", [5]) { $0 > 5 }
        assertPredicate(String?.self, "(self == $0)", [NSNull()]) { $0 == nil }
        assertPredicate(String.self, "(self BEGINSWITH[c] $0)", ["a"]) { $0.starts(with: "a", options: .caseInsensitive) }
        assertPredicate(Mood.self, "(self == $0)", [Mood.sad]) { $0 == .sad }
        assertPredicate(Dog?.self, "(age > $0)", [1]) { $0.age > 1 }
    }

    // MARK: - End to end: every scalar type

    /// Six objects with a spread of values of every type (the optional ones
    /// nil in two of them).
    private func addAllTypes(_ realm: Realm) throws -> [AllTypes] {
        let ints = [1, 5, 10, -2, 7, 5]
        let strings = ["Café au lait", "cafe", "CAFÉ", "", "naïve résumé", "Resume"]
        let datas = [Data([1, 2, 3]), Data([2, 3]), Data([9]), Data(), Data([1, 2]), Data([3, 1, 2])]
        let objectIds = (0..<6).map { try! ObjectId(string: "61184062c1d8f096a369504\($0)") }
        let uuids = (0..<6).map { UUID(uuidString: "33041937-05B2-464A-98AD-3910CBE0D09\($0)")! }
        let objects = (0..<6).map { i -> AllTypes in
            let object = AllTypes()
            object.int = ints[i]
            object.int8 = Int8(ints[i])
            object.int16 = Int16(ints[i] * 100)
            object.int32 = Int32(ints[i] * 10_000)
            object.int64 = Int64(ints[i]) * 10_000_000_000
            object.bool = i % 2 == 1
            object.float = Float(ints[i]) + 0.5
            object.double = Double(ints[i]) * 1.25
            object.string = strings[i]
            object.data = datas[i]
            object.date = Date(timeIntervalSince1970: Double(ints[i]) * 1000)
            object.decimal = Decimal128(ints[i]) / Decimal128(4)
            object.objectId = objectIds[i]
            object.uuid = uuids[i]
            if i != 0 && i != 3 {
                object.optInt = ints[i]
                object.optInt8 = Int8(ints[i])
                object.optInt16 = Int16(ints[i])
                object.optInt32 = Int32(ints[i])
                object.optInt64 = Int64(ints[i])
                object.optBool = i > 2
                object.optFloat = Float(ints[i])
                object.optDouble = Double(ints[i])
                object.optString = strings[i]
                object.optData = datas[i]
                object.optDate = Date(timeIntervalSince1970: Double(ints[i]))
                object.optDecimal = Decimal128(ints[i])
                object.optObjectId = objectIds[i]
                object.optUUID = uuids[i]
            }
            return object
        }
        try realm.write { realm.add(objects) }
        return Array(realm.objects(AllTypes.self))
    }

    /// Checks `==`, `!=`, `<`, `<=`, `>`, `>=` and a half-open range on one
    /// ordered property, against Swift, for each of `probes`.
    private func checkOrdered<V: _HasPersistedType & Comparable>(
        _ all: Results<AllTypes>, _ objects: [AllTypes],
        _ property: KeyPath<Query<AllTypes>, Query<V>>, _ value: KeyPath<AllTypes, V>, _ probe: V, _ upper: V,
        file: StaticString = #filePath, line: UInt = #line
    ) where V.PersistedType: _QueryNumeric {
        assertFinds(all.where { $0[keyPath: property] == probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] == probe }
        assertFinds(all.where { $0[keyPath: property] != probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] != probe }
        assertFinds(all.where { $0[keyPath: property] < probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] < probe }
        assertFinds(all.where { $0[keyPath: property] <= probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] <= probe }
        assertFinds(all.where { $0[keyPath: property] > probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] > probe }
        assertFinds(all.where { $0[keyPath: property] >= probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] >= probe }
        assertFinds(all.where { $0[keyPath: property].contains(probe..<upper) }, objects, by: \.pk, file: file, line: line) {
            (probe..<upper).contains($0[keyPath: value])
        }
    }

    /// The same for an optional property: nil never compares as ordered,
    /// and `== nil` / `!= nil` test for it.
    private func checkOptionalOrdered<V: _HasPersistedType & Comparable>(
        _ all: Results<AllTypes>, _ objects: [AllTypes],
        _ property: KeyPath<Query<AllTypes>, Query<V?>>, _ value: KeyPath<AllTypes, V?>, _ probe: V, _ upper: V,
        file: StaticString = #filePath, line: UInt = #line
    ) where V: _PersistableInsideOptional, V.PersistedType: _HasPersistedType, V.PersistedType.PersistedType: _QueryNumeric {
        assertFinds(all.where { $0[keyPath: property] == nil }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] == nil }
        assertFinds(all.where { $0[keyPath: property] != nil }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] != nil }
        let optionalProbe: V? = probe
        assertFinds(all.where { $0[keyPath: property] == optionalProbe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] == optionalProbe }
        assertFinds(all.where { $0[keyPath: property] != optionalProbe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] != optionalProbe }
        assertFinds(all.where { $0[keyPath: property] < probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value].map { $0 < probe } ?? false }
        assertFinds(all.where { $0[keyPath: property] >= probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value].map { $0 >= probe } ?? false }
        assertFinds(all.where { $0[keyPath: property].contains(probe..<upper) }, objects, by: \.pk, file: file, line: line) {
            $0[keyPath: value].map { (probe..<upper).contains($0) } ?? false
        }
    }

    /// `==` and `!=` (and, for optionals, nil tests) on a property without an order.
    private func checkEquality<V: Equatable>(
        _ all: Results<AllTypes>, _ objects: [AllTypes],
        _ property: KeyPath<Query<AllTypes>, Query<V>>, _ value: KeyPath<AllTypes, V>, _ probe: V,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertFinds(all.where { $0[keyPath: property] == probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] == probe }
        assertFinds(all.where { $0[keyPath: property] != probe }, objects, by: \.pk, file: file, line: line) { $0[keyPath: value] != probe }
    }

    func testEveryScalarTypeEndToEnd() throws {
        let realm = try fileRealm()
        let objects = try addAllTypes(realm)
        let all = realm.objects(AllTypes.self)
        checkOrdered(all, objects, \.int, \.int, 5, 8)
        checkOrdered(all, objects, \.int8, \.int8, 5, 8)
        checkOrdered(all, objects, \.int16, \.int16, 500, 800)
        checkOrdered(all, objects, \.int32, \.int32, 50_000, 80_000)
        checkOrdered(all, objects, \.int64, \.int64, 50_000_000_000, 80_000_000_000)
        checkOrdered(all, objects, \.float, \.float, 5.5, 8)
        checkOrdered(all, objects, \.double, \.double, 6.25, 10)
        checkOrdered(all, objects, \.date, \.date, Date(timeIntervalSince1970: 5000), Date(timeIntervalSince1970: 8000))
        checkOrdered(all, objects, \.decimal, \.decimal, Decimal128(5) / Decimal128(4), Decimal128(2))
        checkEquality(all, objects, \.bool, \.bool, true)
        checkEquality(all, objects, \.data, \.data, Data([2, 3]))
        checkEquality(all, objects, \.objectId, \.objectId, ObjectId("61184062c1d8f096a3695042"))
        checkEquality(all, objects, \.uuid, \.uuid, UUID(uuidString: "33041937-05B2-464A-98AD-3910CBE0D094")!)
        checkEquality(all, objects, \.string, \.string, "cafe")
        // Strings order bytewise (UTF-8), as Swift orders these.
        assertFinds(all.where { $0.string < "Resume" }, objects, by: \.pk) { $0.string < "Resume" }
        assertFinds(all.where { $0.string >= "cafe" }, objects, by: \.pk) { $0.string >= "cafe" }
        assertFinds(all.where { $0.string.contains("CAFE"..<"cafe") }, objects, by: \.pk) { ("CAFE"..<"cafe").contains($0.string) }
    }

    func testEveryOptionalScalarTypeEndToEnd() throws {
        let realm = try fileRealm()
        let objects = try addAllTypes(realm)
        let all = realm.objects(AllTypes.self)
        checkOptionalOrdered(all, objects, \.optInt, \.optInt, 7, 8)
        checkOptionalOrdered(all, objects, \.optInt8, \.optInt8, 7, 8)
        checkOptionalOrdered(all, objects, \.optInt16, \.optInt16, 7, 8)
        checkOptionalOrdered(all, objects, \.optInt32, \.optInt32, 7, 8)
        checkOptionalOrdered(all, objects, \.optInt64, \.optInt64, 7, 8)
        checkOptionalOrdered(all, objects, \.optFloat, \.optFloat, 7, 8)
        checkOptionalOrdered(all, objects, \.optDouble, \.optDouble, 7, 8)
        checkOptionalOrdered(all, objects, \.optDate, \.optDate, Date(timeIntervalSince1970: 7), Date(timeIntervalSince1970: 8))
        checkOptionalOrdered(all, objects, \.optDecimal, \.optDecimal, Decimal128(7), Decimal128(8))
        checkEquality(all, objects, \.optBool, \.optBool, true)
        checkEquality(all, objects, \.optBool, \.optBool, nil)
        checkEquality(all, objects, \.optString, \.optString, "cafe")
        checkEquality(all, objects, \.optString, \.optString, nil)
        checkEquality(all, objects, \.optData, \.optData, Data([2, 3]))
        checkEquality(all, objects, \.optData, \.optData, nil)
        checkEquality(all, objects, \.optObjectId, \.optObjectId, ObjectId("61184062c1d8f096a3695042"))
        checkEquality(all, objects, \.optObjectId, \.optObjectId, nil)
        checkEquality(all, objects, \.optUUID, \.optUUID, UUID(uuidString: "33041937-05B2-464A-98AD-3910CBE0D094")!)
        checkEquality(all, objects, \.optUUID, \.optUUID, nil)
        assertFinds(all.where { $0.optString > "cafe" }, objects, by: \.pk) { $0.optString.map { $0 > "cafe" } ?? false }
    }

    func testStringOperatorsWithOptionsEndToEnd() throws {
        let realm = try fileRealm()
        let objects = try addAllTypes(realm)
        let all = realm.objects(AllTypes.self)
        /// `test` on `string` and `pattern`, both folded by `options`.
        func matches(_ string: String, _ pattern: String, _ options: String.CompareOptions, _ test: (String, String) -> Bool) -> Bool {
            let fold = { (text: String) in text.folding(options: options, locale: nil) }
            return test(fold(string), fold(pattern))
        }
        let caseless: String.CompareOptions = [.caseInsensitive]
        let accentless: String.CompareOptions = [.diacriticInsensitive]
        let both: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        let contains = { (string: String, part: String) in !part.isEmpty && string.contains(part) }
        assertFinds(all.where { $0.string.contains("caf") }, objects, by: \.pk) { contains($0.string, "caf") }
        assertFinds(all.where { $0.string.contains("caf", options: .caseInsensitive) }, objects, by: \.pk) { matches($0.string, "caf", caseless, contains) }
        assertFinds(all.where { $0.string.contains("resume", options: .diacriticInsensitive) }, objects, by: \.pk) { matches($0.string, "resume", accentless, contains) }
        assertFinds(all.where { $0.string.contains("CAFE", options: [.caseInsensitive, .diacriticInsensitive]) }, objects, by: \.pk) {
            matches($0.string, "CAFE", both, contains)
        }
        assertFinds(all.where { $0.string.starts(with: "ca") }, objects, by: \.pk) { $0.string.hasPrefix("ca") }
        assertFinds(all.where { $0.string.starts(with: "CA", options: .caseInsensitive) }, objects, by: \.pk) { $0.string.lowercased().hasPrefix("ca") }
        assertFinds(all.where { $0.string.ends(with: "e") }, objects, by: \.pk) { $0.string.hasSuffix("e") }
        assertFinds(all.where { $0.string.ends(with: "E", options: [.caseInsensitive, .diacriticInsensitive]) }, objects, by: \.pk) {
            matches($0.string, "E", both) { $0.hasSuffix($1) }
        }
        assertFinds(all.where { $0.string.equals("CAFE", options: [.caseInsensitive, .diacriticInsensitive]) }, objects, by: \.pk) {
            matches($0.string, "CAFE", both, ==)
        }
        assertFinds(all.where { $0.string.notEquals("cafe", options: .caseInsensitive) }, objects, by: \.pk) { $0.string.lowercased() != "cafe" }
        assertFinds(all.where { $0.string.like("?af*") }, objects, by: \.pk) { Self.like($0.string, "?af*") }
        assertFinds(all.where { $0.string.like("*eSu*", caseInsensitive: true) }, objects, by: \.pk) { Self.like($0.string.uppercased(), "*ESU*") }
        assertFinds(all.where { $0.optString.starts(with: "na") }, objects, by: \.pk) { $0.optString?.hasPrefix("na") ?? false }
        let twoThree = Data([2, 3])
        assertFinds(all.where { $0.data.contains(twoThree) }, objects, by: \.pk) { $0.data.range(of: twoThree) != nil }
        assertFinds(all.where { $0.data.starts(with: Data([1])) }, objects, by: \.pk) { $0.data.first == 1 }
        assertFinds(all.where { $0.data.ends(with: Data([2])) }, objects, by: \.pk) { $0.data.last == 2 }
    }

    /// LIKE: `?` stands for one character, `*` for any run of them.
    private static func like(_ string: String, _ pattern: String) -> Bool {
        func match(_ s: Substring, _ p: Substring) -> Bool {
            guard let first = p.first else { return s.isEmpty }
            switch first {
            case "*": return match(s, p.dropFirst()) || (!s.isEmpty && match(s.dropFirst(), p))
            case "?": return !s.isEmpty && match(s.dropFirst(), p.dropFirst())
            default: return s.first == first && match(s.dropFirst(), p.dropFirst())
            }
        }
        return match(Substring(string), Substring(pattern))
    }

    func testLogicEndToEnd() throws {
        let realm = try fileRealm()
        let objects = try addAllTypes(realm)
        let all = realm.objects(AllTypes.self)
        assertFinds(all.where { $0.int > 1 && $0.bool }, objects, by: \.pk) { $0.int > 1 && $0.bool }
        assertFinds(all.where { $0.int < 0 || $0.string.contains("é") }, objects, by: \.pk) { $0.int < 0 || $0.string.contains("é") }
        assertFinds(all.where { !$0.bool }, objects, by: \.pk) { !$0.bool }
        assertFinds(all.where { $0.bool }, objects, by: \.pk) { $0.bool }
        assertFinds(all.where { !($0.int == 5) }, objects, by: \.pk) { $0.int != 5 }
        assertFinds(all.where { !($0.int > 0 && $0.optInt != nil) }, objects, by: \.pk) { !($0.int > 0 && $0.optInt != nil) }
        assertFinds(all.where { $0.int == 1 || $0.int == 5 && !$0.bool }, objects, by: \.pk) { $0.int == 1 || ($0.int == 5 && !$0.bool) }
        assertFinds(all.where { !(!$0.bool) || $0.optBool == nil }, objects, by: \.pk) { $0.bool || $0.optBool == nil }
        assertFinds(all.where { !(!($0.int > 5)) }, objects, by: \.pk) { $0.int > 5 }
        // Chained queries.
        let positive = all.where { $0.int > 0 }
        assertFinds(positive.where { $0.string.contains("e") }, objects, by: \.pk) { $0.int > 0 && $0.string.contains("e") }
    }

    func testEnumsAndCustomTypesEndToEnd() throws {
        let realm = try fileRealm()
        let moods: [Mood] = [.happy, .sad, .sleepy, .sad]
        let levels: [Level?] = [.low, nil, .high, .medium]
        let profiles = (0..<4).map { i -> Profile in
            let profile = Profile()
            profile.id = i
            profile.mood = moods[i]
            profile.optMood = i == 2 ? nil : moods[(i + 1) % 4]
            profile.level = levels[i] ?? .medium
            profile.optLevel = levels[i]
            profile.homepage = URL(string: "https://example\(i).com/path")!
            profile.optHomepage = i % 2 == 0 ? URL(string: "https://site\(i).org") : nil
            profile.temperature = Celsius(degrees: Double(i) * 10)
            profile.optTemperature = i == 1 ? nil : Celsius(degrees: 15)
            return profile
        }
        try realm.write { realm.add(profiles) }
        let all = realm.objects(Profile.self)
        let objects = Array(all)
        assertFinds(all.where { $0.mood == .sad }, objects, by: \.id) { $0.mood == .sad }
        assertFinds(all.where { $0.mood != .sad }, objects, by: \.id) { $0.mood != .sad }
        assertFinds(all.where { $0.level > .low }, objects, by: \.id) { $0.level > .low }
        assertFinds(all.where { $0.optLevel == nil }, objects, by: \.id) { $0.optLevel == nil }
        assertFinds(all.where { $0.optLevel >= .medium }, objects, by: \.id) { $0.optLevel.map { $0 >= .medium } ?? false }
        assertFinds(all.where { $0.optMood == .sleepy }, objects, by: \.id) { $0.optMood == .sleepy }
        assertFinds(all.where { $0.mood.rawValue.starts(with: "s", options: .caseInsensitive) }, objects, by: \.id) {
            $0.mood.rawValue.lowercased().hasPrefix("s")
        }
        assertFinds(all.where { $0.level.rawValue < 10 }, objects, by: \.id) { $0.level.rawValue < 10 }
        assertFinds(all.where { $0.temperature > Celsius(degrees: 5) }, objects, by: \.id) { $0.temperature.degrees > 5 }
        assertFinds(all.where { $0.temperature.persistableValue.contains(5.0..<25.0) }, objects, by: \.id) { (5.0..<25.0).contains($0.temperature.degrees) }
        assertFinds(all.where { $0.optTemperature == nil }, objects, by: \.id) { $0.optTemperature == nil }
        let url = URL(string: "https://example2.com/path")!
        assertFinds(all.where { $0.homepage == url }, objects, by: \.id) { $0.homepage == url }
        assertFinds(all.where { $0.homepage.persistableValue.contains("example1") }, objects, by: \.id) { $0.homepage.absoluteString.contains("example1") }
        assertFinds(all.where { $0.optHomepage != nil }, objects, by: \.id) { $0.optHomepage != nil }
    }

    func testComparisonsBetweenPropertiesEndToEnd() throws {
        let realm = try fileRealm()
        let rows: [(Int, Int, Double, Double, String, String, Int?, Int?)] = [
            (1, 5, 2.0, 2.5, "Alpha", "alp", 1, 1),
            (7, 3, 9.0, 1.0, "beta", "BETA", nil, 2),
            (4, 4, 3.0, 3.0, "Gamma", "mma", nil, nil),
            (0, 9, 5.5, 6.0, "delta", "Delta", 3, 4),
        ]
        try realm.write {
            for (i, row) in rows.enumerated() {
                let measurement = Measurement()
                measurement.id = i
                measurement.minimum = row.0
                measurement.maximum = row.1
                measurement.target = row.2
                measurement.reading = row.3
                measurement.label = row.4
                measurement.altLabel = row.5
                measurement.optA = row.6
                measurement.optB = row.7
                measurement.taken = Date(timeIntervalSince1970: Double(row.0))
                measurement.checked = Date(timeIntervalSince1970: Double(row.1))
                realm.add(measurement)
            }
        }
        let all = realm.objects(Measurement.self)
        let objects = Array(all)
        assertFinds(all.where { $0.minimum < $0.maximum }, objects, by: \.id) { $0.minimum < $0.maximum }
        assertFinds(all.where { $0.minimum >= $0.maximum }, objects, by: \.id) { $0.minimum >= $0.maximum }
        assertFinds(all.where { $0.minimum == $0.maximum }, objects, by: \.id) { $0.minimum == $0.maximum }
        assertFinds(all.where { $0.reading > $0.target }, objects, by: \.id) { $0.reading > $0.target }
        assertFinds(all.where { $0.taken <= $0.checked }, objects, by: \.id) { $0.taken <= $0.checked }
        assertFinds(all.where { $0.label != $0.altLabel }, objects, by: \.id, mayBeTrivial: true) { $0.label != $0.altLabel }
        assertFinds(all.where { $0.label.equals($0.altLabel, options: .caseInsensitive) }, objects, by: \.id) { $0.label.lowercased() == $0.altLabel.lowercased() }
        assertFinds(all.where { $0.label.starts(with: $0.altLabel, options: .caseInsensitive) }, objects, by: \.id) {
            $0.label.lowercased().hasPrefix($0.altLabel.lowercased())
        }
        assertFinds(all.where { $0.label.ends(with: $0.altLabel) }, objects, by: \.id) { $0.label.hasSuffix($0.altLabel) }
        assertFinds(all.where { $0.label.contains($0.altLabel) }, objects, by: \.id) { $0.label.contains($0.altLabel) }
        assertFinds(all.where { $0.optA == $0.optB }, objects, by: \.id) { $0.optA == $0.optB }
        assertFinds(all.where { $0.optA != $0.optB }, objects, by: \.id) { $0.optA != $0.optB }
    }

    // MARK: - End to end: links as values

    func testLinkEqualityAndNilEndToEnd() throws {
        let realm = try fileRealm()
        let ball = DogToy()
        ball.name = "Tennis ball"
        let rope = DogToy()
        rope.name = "Rope"
        let dogs = try addDogs(realm)
        try realm.write {
            dogs[0].favoriteToy = ball
            dogs[2].favoriteToy = ball
            dogs[3].favoriteToy = rope
        }
        let all = realm.objects(Dog.self)
        let objects = Array(all)
        assertFinds(all.where { $0.favoriteToy == nil }, objects, by: \.name) { $0.favoriteToy == nil }
        assertFinds(all.where { $0.favoriteToy != nil }, objects, by: \.name) { $0.favoriteToy != nil }
        assertFinds(all.where { $0.favoriteToy == ball }, objects, by: \.name) { $0.favoriteToy?.name == "Tennis ball" }
        assertFinds(all.where { $0.favoriteToy != rope && $0.age > 1 }, objects, by: \.name) { $0.favoriteToy?.name != "Rope" && $0.age > 1 }
    }

    // MARK: - End to end: each collection's where

    /// Rex, Fido, Spot, Bella, Wolfie; Ann has Rex, Spot and Wolfie; Bob has
    /// Fido; the Pooch Pals club has both, the Cat Club only Bob; Rex and
    /// Bella like the ball, Spot the rope; the kennel houses Rex, Fido and
    /// Bella, by name.
    private func addGraph(_ realm: Realm) throws -> (ann: Person, ball: DogToy, kennel: Kennel) {
        let dogs = try addDogs(realm)
        let ann = Person(id: 1, name: "Ann")
        let bob = Person(id: 2, name: "Bob")
        let ball = DogToy()
        ball.name = "ball"
        let rope = DogToy()
        rope.name = "rope"
        let kennel = Kennel(id: 1, name: "Happy Tails")
        try realm.write {
            ann.dogs.append(objectsIn: [dogs[0], dogs[2], dogs[4]])
            bob.dogs.append(dogs[1])
            let pals = DogClub()
            pals.name = "Pooch Pals"
            pals.members.append(objectsIn: [ann, bob])
            let cats = DogClub()
            cats.name = "Cat Club"
            cats.members.append(bob)
            realm.add([pals, cats])
            dogs[0].favoriteToy = ball
            dogs[3].favoriteToy = ball
            dogs[2].favoriteToy = rope
            realm.add(kennel)
            kennel.dogs.insert(objectsIn: [dogs[0], dogs[1], dogs[3]])
            for dog in [dogs[0], dogs[1], dogs[3]] { kennel.dogsByName[dog.name] = dog }
        }
        return (ann, ball, kennel)
    }

    func testWhereOnResultsListSetMapAndLinkingObjects() throws {
        let realm = try fileRealm()
        let (ann, ball, kennel) = try addGraph(realm)

        let dogs = realm.objects(Dog.self)
        assertFinds(dogs.where { $0.age >= 3 && $0.color != "grey" }, Array(dogs), by: \.name) { $0.age >= 3 && $0.color != "grey" }

        let annsDogs = ann.dogs.where { $0.age > 5 }
        XCTAssertEqual(annsDogs.map(\.name), ann.dogs.filter { $0.age > 5 }.map(\.name))
        XCTAssertEqual(annsDogs.map(\.name), ["Rex", "Wolfie"])

        let housed = kennel.dogs.where { $0.name.starts(with: "b", options: .caseInsensitive) || $0.age == 10 }
        assertFinds(housed, Array(kennel.dogs), by: \.name) { $0.name.lowercased().hasPrefix("b") || $0.age == 10 }

        let byName = kennel.dogsByName.where { $0.age < 5 }
        XCTAssertEqual(Set(byName.compactMap { $0?.name }), Set(kennel.dogsByName.values.compactMap { $0 }.filter { $0.age < 5 }.map(\.name)))
        XCTAssertEqual(Set(byName.compactMap { $0?.name }), ["Fido", "Bella"])

        let ballLovers = ball.dogs.where { $0.color == "tan" }
        XCTAssertEqual(ballLovers.map(\.name), ball.dogs.filter { $0.color == "tan" }.map(\.name))
        XCTAssertEqual(ballLovers.map(\.name), ["Rex"])

        let clubs = ann.clubs.where { $0.name.contains("pals", options: .caseInsensitive) }
        XCTAssertEqual(clubs.map(\.name), ["Pooch Pals"])

        let any = AnyRealmCollection(ann.dogs).where { $0.color == "tan" }
        XCTAssertEqual(any.map(\.name), ["Rex", "Spot"])

        // Code generic over RealmCollection.
        func olderThan<C: RealmCollection>(_ age: Int, in collection: C) -> Results<Dog> where C.Element == Dog {
            collection.where { $0.age > age }
        }
        XCTAssertEqual(olderThan(5, in: ann.dogs).map(\.name), ["Rex", "Wolfie"])
        XCTAssertEqual(olderThan(2, in: kennel.dogs).map(\.name), ["Rex"])
        XCTAssertEqual(Set(olderThan(2, in: realm.objects(Dog.self)).map(\.name)), ["Rex", "Spot", "Wolfie"])

        // Live: a later write shows.
        try realm.write { ann.dogs[1].age = 8 }
        XCTAssertEqual(annsDogs.map(\.name), ["Rex", "Spot", "Wolfie"])
    }

    func testWhereOnCollectionsOfValues() throws {
        let realm = try fileRealm()
        let lists = ScalarLists()
        lists.id = 1
        lists.ints.append(objectsIn: [4, 9, -1, 12, 9])
        lists.strings.append(objectsIn: ["apple", "Avocado", "banana"])
        lists.optInts.append(objectsIn: [nil, 3, nil, 8])
        lists.moods.append(objectsIn: [.happy, .sad, .sleepy])
        let sets = ScalarSets()
        sets.id = 1
        sets.doubles.insert(objectsIn: [0.5, 2.5, 7.25])
        let maps = ScalarMaps()
        maps.id = 1
        maps.ints["a"] = 1
        maps.ints["b"] = 20
        maps.ints["c"] = 300
        try realm.write { realm.add([lists, sets, maps] as [Object]) }

        XCTAssertEqual(Array(lists.ints.where { $0 > 5 }), lists.ints.filter { $0 > 5 })
        XCTAssertEqual(Array(lists.ints.where { $0 == 9 || $0 < 0 }), [9, -1, 9])
        XCTAssertEqual(Array(lists.ints.where { $0.contains(0..<10) }), [4, 9, 9])
        XCTAssertEqual(Array(lists.strings.where { $0.starts(with: "a", options: .caseInsensitive) }), ["apple", "Avocado"])
        XCTAssertEqual(Array(lists.optInts.where { $0 == nil }), [nil, nil])
        XCTAssertEqual(Array(lists.optInts.where { $0 != nil && $0 > 4 }), [8])
        XCTAssertEqual(Array(lists.moods.where { $0 != .sad }), [.happy, .sleepy])
        XCTAssertEqual(Set(sets.doubles.where { $0 >= 2.5 }), [2.5, 7.25])
        XCTAssertEqual(Set(maps.ints.where { $0 >= 20 }), [20, 300])
    }

    // MARK: - End to end: key paths through links and collections

    func testKeyPathsThroughLinksAndCollectionsEndToEnd() throws {
        let realm = try fileRealm()
        let (ann, _, _) = try addGraph(realm)
        let carl = Person(id: 3, name: "Carl")
        try realm.write {
            realm.add(carl)
            let address = Address()
            address.city = "Oslo"
            ann.address = address
        }
        let people = realm.objects(Person.self), dogs = realm.objects(Dog.self)
        let everyone = Array(people), everyDog = Array(dogs)
        let rex = everyDog.first { $0.name == "Rex" }!, fido = everyDog.first { $0.name == "Fido" }!
        // Through to-one links and embedded objects.
        assertFinds(dogs.where { $0.favoriteToy.name == "ball" }, everyDog, by: \.name) { $0.favoriteToy?.name == "ball" }
        assertFinds(dogs.where { $0.favoriteToy.name != "ball" }, everyDog, by: \.name) { $0.favoriteToy?.name != "ball" }
        assertFinds(people.where { $0.address.city == "Oslo" }, everyone, by: \.name) { $0.address?.city == "Oslo" }
        // Through a list of links: implicit ANY, counts, aggregates, membership.
        assertFinds(people.where { $0.dogs.age > 5 }, everyone, by: \.name) { $0.dogs.contains { $0.age > 5 } }
        assertFinds(people.where { $0.dogs.favoriteToy.name == "rope" }, everyone, by: \.name) { $0.dogs.contains { $0.favoriteToy?.name == "rope" } }
        assertFinds(people.where { $0.dogs.count > 1 }, everyone, by: \.name) { $0.dogs.count > 1 }
        assertFinds(people.where { $0.dogs.age.avg > 5 }, everyone, by: \.name) { p in
            !p.dogs.isEmpty && Double(p.dogs.map(\.age).reduce(0, +)) / Double(p.dogs.count) > 5
        }
        assertFinds(people.where { $0.dogs.age.sum < 5 }, everyone, by: \.name) { $0.dogs.map(\.age).reduce(0, +) < 5 }
        assertFinds(people.where { $0.dogs.contains(rex) }, everyone, by: \.name) { $0.dogs.contains(rex) }
        assertFinds(people.where { !$0.dogs.contains(rex) }, everyone, by: \.name) { !$0.dogs.contains(rex) }
        assertFinds(people.where { $0.dogs.containsAny(in: [rex, fido]) }, everyone, by: \.name) { $0.dogs.contains(rex) || $0.dogs.contains(fido) }
        assertFinds(realm.objects(DogClub.self).where { $0.members.dogs.age > 8 }, Array(realm.objects(DogClub.self)), by: \.name) {
            $0.members.contains { $0.dogs.contains { $0.age > 8 } }
        }
        // The same in the query language: ALL and NONE hold for Carl, who has no dogs.
        assertFinds(people.filter("ALL dogs.age > %@", 2), everyone, by: \.name) { $0.dogs.allSatisfy { $0.age > 2 } }
        assertFinds(people.filter("NONE dogs.color == %@", "black"), everyone, by: \.name) { !$0.dogs.contains { $0.color == "black" } }
        assertFinds(people.filter("dogs.@count == 0 OR dogs.@max.age < %@", 5), everyone, by: \.name) { p in
            p.dogs.isEmpty || p.dogs.map(\.age).max()! < 5
        }
        assertFinds(dogs.filter("age IN %@", [1, 3]), everyDog, by: \.name) { [1, 3].contains($0.age) }
        assertFinds(dogs.filter("age BETWEEN {2, 8}"), everyDog, by: \.name) { (2...8).contains($0.age) }
        // Subqueries: how many of the dogs match.
        assertFinds(people.where { ($0.dogs.age > 2 && $0.dogs.color == "tan").count >= 2 }, everyone, by: \.name) {
            $0.dogs.filter { $0.age > 2 && $0.color == "tan" }.count >= 2
        }
        assertFinds(people.where { ($0.dogs.age > 5).count == 0 }, everyone, by: \.name) { !$0.dogs.contains { $0.age > 5 } }
        assertFinds(realm.objects(DogClub.self).where { ($0.members.dogs.count >= 2).count > 0 }, Array(realm.objects(DogClub.self)), by: \.name) {
            $0.members.contains { $0.dogs.count >= 2 }
        }
        // Live: a write to a dog reached through the list shows.
        let young = people.where { $0.dogs.age < 2 }
        XCTAssertEqual(Set(young.map(\.name)), ["Bob"])
        try realm.write { ann.dogs[1].age = 1 }
        XCTAssertEqual(Set(young.map(\.name)), ["Ann", "Bob"])

        // Collections of values.
        let lists = [ScalarLists(), ScalarLists(), ScalarLists()]
        try realm.write {
            for (i, ints) in [[4, 9, -1], [], [2, 2]].enumerated() {
                lists[i].id = i
                lists[i].ints.append(objectsIn: ints)
            }
            realm.add(lists)
        }
        let all = realm.objects(ScalarLists.self)
        let candidates = Array(all)
        assertFinds(all.where { $0.ints > 5 }, candidates, by: \.id) { $0.ints.contains { $0 > 5 } }
        assertFinds(all.where { $0.ints.contains(2) }, candidates, by: \.id) { $0.ints.contains(2) }
        assertFinds(all.where { $0.ints.containsAny(in: [9, 7]) }, candidates, by: \.id) { $0.ints.contains(9) }
        assertFinds(all.where { $0.ints.count == 0 }, candidates, by: \.id) { $0.ints.isEmpty }
        assertFinds(all.where { $0.ints.min < 0 }, candidates, by: \.id) { ($0.ints.min() ?? 0) < 0 }
        assertFinds(all.filter("ALL ints == 2"), candidates, by: \.id) { $0.ints.allSatisfy { $0 == 2 } }
        assertFinds(all.filter("ints[FIRST] == 4 OR ints[LAST] == 2"), candidates, by: \.id) { $0.ints.first == 4 || $0.ints.last == 2 }

        // Maps: a key's value, the keys, the values; objects through a map of links.
        let maps = [ScalarMaps(), ScalarMaps(), ScalarMaps()]
        try realm.write {
            for (i, ints) in [["a": 1, "b": 20], ["b": 300], [:]].enumerated() {
                maps[i].id = i
                for (key, value) in ints { maps[i].ints[key] = value }
            }
            realm.add(maps)
        }
        let allMaps = realm.objects(ScalarMaps.self)
        let mapCandidates = Array(allMaps)
        assertFinds(allMaps.where { $0.ints["b"] > 100 }, mapCandidates, by: \.id) { ($0.ints["b"] ?? nil).map { $0 > 100 } ?? false }
        assertFinds(allMaps.where { $0.ints.keys == "a" }, mapCandidates, by: \.id) { $0.ints.keys.contains("a") }
        assertFinds(allMaps.where { $0.ints.values > 10 }, mapCandidates, by: \.id) { $0.ints.values.contains { $0 > 10 } }
        assertFinds(allMaps.where { $0.ints.contains(1) }, mapCandidates, by: \.id) { $0.ints.values.contains(1) }
        assertFinds(allMaps.filter("ints.@count == 0"), mapCandidates, by: \.id) { $0.ints.isEmpty }
        let kennels = realm.objects(Kennel.self)
        XCTAssertEqual(kennels.where { $0.dogsByName.values.age > 5 }.count, 1)
        XCTAssertEqual(kennels.filter("dogsByName['Fido'].age == 1").count, 1)
        XCTAssertEqual(kennels.filter("dogsByName.Fido.age == %@", 2).count, 0)
    }

    // MARK: - Traps

    func testMisusesTrap() {
        assertTraps("twoCollections", message: "Comparing two collection columns is not permitted.")
        assertTraps("subqueryWithoutCollection", message: "Subqueries must contain a keypath starting with a collection.")
        assertTraps("subqueryOverTwoCollections", message: "A subquery may name only one collection")
        assertTraps("keyPathAfterMapSubscript", message: "Cannot apply key path to Map subscripts.")
        assertTraps("unmanagedList", message: "Cannot filter an unmanaged List")
        assertTraps("unmanagedLinkingObjects", message: "Cannot filter the linking objects of an unmanaged object")
    }

    static let trapScenarios: [String: @Sendable () -> Void] = [
        "twoCollections": {
            let lists = Query<ScalarLists>._constructForTesting()
            _ = (lists.ints == lists.ints)._constructPredicate()
        },
        "subqueryWithoutCollection": {
            _ = ((Query<Person>._constructForTesting().name == "x").count > 0)._constructPredicate()
        },
        "subqueryOverTwoCollections": {
            let person = Query<Person>._constructForTesting()
            _ = ((person.dogs.age > 1 && person.clubs.name == "x").count > 0)._constructPredicate()
        },
        "keyPathAfterMapSubscript": { _ = (Query<Kennel>._constructForTesting().offices["hq"].city == "Oslo")._constructPredicate() },
        "unmanagedList": { _ = Person().dogs.where { $0.age > 1 } },
        "unmanagedLinkingObjects": { _ = DogToy().dogs.where { $0.age > 1 } },
    ]
}
