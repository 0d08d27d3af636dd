import Fief
import Foundation
import XCTest

/// Descriptions in RealmSwift's layout (its ObjectTests and RealmCollectionTypeTests
/// description cases, in our words): nested objects one tab further in, elements separated by
/// commas, element types named as realm-core names them, five levels at most.
final class DescriptionLayoutTests: FiefTestCase {
    /// `text` with every `<0x...>` address replaced by `<ADDR>`.
    private func withoutAddresses(_ text: String) -> String {
        text.replacingOccurrences(of: "<0x[0-9a-f]+>", with: "<ADDR>", options: .regularExpression)
    }

    func testObjectWithEveryKindOfProperty() {
        let object = DescribedEverything()
        object.data = Data("abcd".utf8)
        object.date = Date(timeIntervalSince1970: 1)
        object.decimal = "1.23E6"
        object.objectId = ObjectId("1234567890ab1234567890ab")
        object.uuid = UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!
        object.link = DescribedLeaf(value: ["flag": false])
        XCTAssertEqual(withoutAddresses(object.description), """
            DescribedEverything {
            \tflag = 0;
            \tint = 123;
            \tint8 = 123;
            \tint16 = 123;
            \tint32 = 123;
            \tint64 = 123;
            \tmood = 1;
            \tfloat = 1.23;
            \tdouble = 12.3;
            \tstring = a;
            \tdata = <61626364 — 4 total bytes>;
            \tdate = 1970-01-01 00:00:01 +0000;
            \tdecimal = 1.23E6;
            \tobjectId = 1234567890ab1234567890ab;
            \tlink = DescribedLeaf {
            \t\tflag = 0;
            \t};
            \tnoLink = (null);
            \tuuid = 137DECC8-B300-4954-A233-F89909F4FD89;
            \tany = (null);
            \tleaves = List<DescribedLeaf> <ADDR> (
            \t
            \t);
            \tleafSet = MutableSet<DescribedLeaf> <ADDR> (
            \t
            \t);
            \tleafMap = Map<string, DescribedLeaf> <ADDR> (
            \t
            \t);
            }
            """)
    }

    func testLongDataShowsItsFirst24Bytes() {
        let object = DescribedEverything()
        object.data = Data(0..<30)
        XCTAssertTrue(object.description.contains("\tdata = <00010203 04050607 08090a0b 0c0d0e0f 10111213 14151617 — 30 total bytes>;\n"),
                      object.description)
    }

    func testObjectsThatContainThemselvesStopAtFiveLevels() {
        let recursive = DescribedRecursive()
        recursive.objects.append(recursive)
        recursive.objectSet.insert(recursive)
        let inner = """
            DescribedRecursive {
            \tobjects = <Maximum depth exceeded>;
            \tobjectSet = <Maximum depth exceeded>;
            }
            """
        let middle = """
            DescribedRecursive {
            \tobjects = List<DescribedRecursive> <ADDR> (
            \t\t[0] \(inner.replacingOccurrences(of: "\n", with: "\n\t\t"))
            \t);
            \tobjectSet = MutableSet<DescribedRecursive> <ADDR> (
            \t\t[0] \(inner.replacingOccurrences(of: "\n", with: "\n\t\t"))
            \t);
            }
            """
        let expected = """
            DescribedRecursive {
            \tobjects = List<DescribedRecursive> <ADDR> (
            \t\t[0] \(middle.replacingOccurrences(of: "\n", with: "\n\t\t"))
            \t);
            \tobjectSet = MutableSet<DescribedRecursive> <ADDR> (
            \t\t[0] \(middle.replacingOccurrences(of: "\n", with: "\n\t\t"))
            \t);
            }
            """
        XCTAssertEqual(withoutAddresses(recursive.description), expected)
    }

    func testCollectionsOfObjectsSeparateElementsWithCommas() throws {
        let realm = try Realm()
        let target = DescribedTarget(value: ["id": 1])
        let owner = DescribedOwner()
        owner.items.append(DescribedItem(value: ["stringCol": "1", "linkCol": target]))
        owner.items.append(DescribedItem(value: ["stringCol": "2", "linkCol": target]))
        try realm.write { realm.add(owner) }
        let body = """
            \t[0] DescribedItem {
            \t\tstringCol = 1;
            \t\tlinkCol = DescribedTarget {
            \t\t\tid = 1;
            \t\t};
            \t},
            \t[1] DescribedItem {
            \t\tstringCol = 2;
            \t\tlinkCol = DescribedTarget {
            \t\t\tid = 1;
            \t\t};
            \t}
            )
            """
        let results = realm.objects(DescribedItem.self)
        XCTAssertEqual(withoutAddresses(results.description), "Results<DescribedItem> <ADDR> (\n" + body)
        XCTAssertEqual(withoutAddresses(owner.items.description), "List<DescribedItem> <ADDR> (\n" + body)
        XCTAssertEqual(withoutAddresses(AnyRealmCollection(results).description), "AnyRealmCollection<DescribedItem> <ADDR> (\n" + body)
        XCTAssertEqual(withoutAddresses(target.owners.description), "LinkingObjects<DescribedItem> <ADDR> (\n" + body)
    }

    func testCollectionsOfValuesNameTheirTypeAsRealmDoes() throws {
        let values = DescribedValues()
        values.ints.append(objectsIn: [1, 2])
        values.optStrings.append(objectsIn: ["a", nil])
        values.flags.insert(true)
        values.doubles["x"] = 0.1 + 0.2
        values.mixed.append(objectsIn: [.int(5), .string("s"), .none, .bool(false)])
        XCTAssertEqual(withoutAddresses(values.ints.description), "List<int> <ADDR> (\n\t[0] 1,\n\t[1] 2\n)")
        XCTAssertEqual(withoutAddresses(values.optStrings.description), "List<string> <ADDR> (\n\t[0] a,\n\t[1] <null>\n)")
        XCTAssertEqual(withoutAddresses(values.flags.description), "MutableSet<bool> <ADDR> (\n\t[0] 1\n)")
        XCTAssertEqual(withoutAddresses(values.doubles.description), "Map<string, double> <ADDR> (\n[x]: 0.3\n)")
        XCTAssertEqual(withoutAddresses(values.mixed.description), "List<mixed> <ADDR> (\n\t[0] 5,\n\t[1] s,\n\t[2] <null>,\n\t[3] 0\n)")
        let realm = try Realm()
        try realm.write { realm.add(values) }
        XCTAssertEqual(withoutAddresses(values.ints.description), "List<int> <ADDR> (\n\t[0] 1,\n\t[1] 2\n)")
        XCTAssertEqual(withoutAddresses(values.ints.sorted().description), "Results<int> <ADDR> (\n\t[0] 1,\n\t[1] 2\n)")
        XCTAssertEqual(withoutAddresses(values.doubles.description), "Map<string, double> <ADDR> (\n[x]: 0.3\n)")
    }

    func testFloatsAndDoublesPrintAsNSNumberDoes() throws {
        // RealmSwift prints each value with NSNumber's description: a float
        // with "%0.7g", a double with "%0.16g" (not Swift's shortest
        // round-tripping text: Float(1) / 3 is "0.3333333", not "0.33333334").
        let numbers = DescribedNumbers()
        numbers.float = 1 / 3
        numbers.double = 2 / 3
        numbers.optFloat = .pi
        numbers.optDouble = 0.1 + 0.2
        numbers.floats.append(objectsIn: [16_777_217, -0.0, 1e-5, .infinity])
        numbers.doubles.insert(123_456_789_012_345_678)
        numbers.doubleMap["d"] = 1e20
        numbers.any = .float(0.1)
        let expected = """
            DescribedNumbers {
            	float = 0.3333333;
            	double = 0.6666666666666666;
            	optFloat = 3.141593;
            	optDouble = 0.3;
            	noFloat = (null);
            	any = 0.1;
            	floats = List<float> <ADDR> (
            		[0] 1.677722e+07,
            		[1] -0,
            		[2] 1e-05,
            		[3] inf
            	);
            	doubles = MutableSet<double> <ADDR> (
            		[0] 1.234567890123457e+17
            	);
            	doubleMap = Map<string, double> <ADDR> (
            	[d]: 1e+20
            	);
            }
            """
        XCTAssertEqual(withoutAddresses(numbers.description), expected)
        let realm = try Realm()
        try realm.write { realm.add(numbers) }
        XCTAssertEqual(withoutAddresses(numbers.description), expected)
        XCTAssertEqual(withoutAddresses(numbers.floats.sorted().description),
                       "Results<float> <ADDR> (\n\t[0] -0,\n\t[1] 1e-05,\n\t[2] 1.677722e+07,\n\t[3] inf\n)")
        let mixed = List<AnyRealmValue>()
        mixed.append(objectsIn: [.double(1 / 3), .float(2 / 3)])
        XCTAssertEqual(withoutAddresses(mixed.description), "List<mixed> <ADDR> (\n\t[0] 0.3333333333333333,\n\t[1] 0.6666667\n)")
    }

    func testMapsOfObjectsPrintTheKeyTypeAndUnindentedEntries() throws {
        let map = DescribedMapHolder()
        map.leaves["a"] = DescribedLeaf(value: ["flag": true])
        map.leaves["b"] = nil as DescribedLeaf?
        // As RealmSwift: the entry lines are not indented, the lines inside them are.
        let expected = """
            Map<string, DescribedLeaf> <ADDR> (
            [a]: DescribedLeaf {
            \t\tflag = 1;
            \t},
            [b]: <null>
            )
            """
        XCTAssertEqual(withoutAddresses(map.leaves.description), expected)
        let realm = try Realm()
        try realm.write { realm.add(map) }
        XCTAssertEqual(withoutAddresses(map.leaves.description), expected)
    }

    func testOnlyAHundredElementsAreListed() {
        let values = DescribedValues()
        values.ints.append(objectsIn: Array(0..<150))
        let text = values.ints.description
        XCTAssertTrue(text.hasSuffix("\t[99] 99\n\t... 50 objects skipped.\n)"), text)
        XCTAssertFalse(text.contains("[100]"))
    }

    func testEmptyLinkingObjectsOfAnUnmanagedObject() {
        XCTAssertEqual(withoutAddresses(DescribedTarget().owners.description), "LinkingObjects<DescribedItem> <ADDR> (\n\n)")
    }
}

// MARK: - Models

enum DescribedMood: Int, PersistableEnum {
    case calm = 0, cheerful = 1
}

class DescribedLeaf: Object {
    @Persisted var flag = false
}

class DescribedEverything: Object {
    @Persisted var flag = false
    @Persisted var int = 123
    @Persisted var int8: Int8 = 123
    @Persisted var int16: Int16 = 123
    @Persisted var int32: Int32 = 123
    @Persisted var int64: Int64 = 123
    @Persisted var mood = DescribedMood.cheerful
    @Persisted var float: Float = 1.23
    @Persisted var double = 12.3
    @Persisted var string = "a"
    @Persisted var data = Data()
    @Persisted var date = Date()
    @Persisted var decimal: Decimal128 = 0
    @Persisted var objectId = ObjectId()
    @Persisted var link: DescribedLeaf?
    @Persisted var noLink: DescribedLeaf?
    @Persisted var uuid = UUID()
    @Persisted var any: AnyRealmValue
    @Persisted var leaves: List<DescribedLeaf>
    @Persisted var leafSet: MutableSet<DescribedLeaf>
    @Persisted var leafMap: Map<String, DescribedLeaf?>
}

class DescribedRecursive: Object {
    @Persisted var objects: List<DescribedRecursive>
    @Persisted var objectSet: MutableSet<DescribedRecursive>
}

class DescribedTarget: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "linkCol") var owners: LinkingObjects<DescribedItem>
}

class DescribedItem: Object {
    @Persisted var stringCol = ""
    @Persisted var linkCol: DescribedTarget?
}

class DescribedOwner: Object {
    @Persisted var items: List<DescribedItem>
}

class DescribedValues: Object {
    @Persisted var ints: List<Int>
    @Persisted var optStrings: List<String?>
    @Persisted var flags: MutableSet<Bool>
    @Persisted var doubles: Map<String, Double>
    @Persisted var mixed: List<AnyRealmValue>
}

class DescribedMapHolder: Object {
    @Persisted var leaves: Map<String, DescribedLeaf?>
}

class DescribedNumbers: Object {
    @Persisted var float: Float = 0
    @Persisted var double: Double = 0
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var noFloat: Float?
    @Persisted var any: AnyRealmValue
    @Persisted var floats: List<Float>
    @Persisted var doubles: MutableSet<Double>
    @Persisted var doubleMap: Map<String, Double>
}
