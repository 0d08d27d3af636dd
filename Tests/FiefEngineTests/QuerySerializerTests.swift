import XCTest
@testable import FiefStorage
@testable import FiefEngine

final class QuerySerializerTests: XCTestCase {

    // MARK: Helpers

    private func key(_ names: String...) -> QueryOperand { .keyPath(QueryKeyPath(properties: names)) }
    private func int(_ v: Int64) -> QueryOperand { .constant(.int(v)) }
    private func str(_ s: String) -> QueryOperand { .constant(.string(s)) }
    private func eq(_ name: String, _ value: Int64) -> QueryExpression { .comparison(key(name), .equal, int(value), []) }
    private func arith(_ l: QueryOperand, _ op: QueryArithmeticOperator, _ r: QueryOperand) -> QueryOperand { .arithmetic(l, op, r) }

    /// `tree` prints as `expected`, which parses back to `tree`.
    private func assertText(_ tree: QueryExpression, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        assertText(ParsedQuery(predicate: tree), expected, file: file, line: line)
    }

    private func assertText(_ query: ParsedQuery, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let text = try QuerySerializer.text(query)
            XCTAssertEqual(text, expected, file: file, line: line)
            XCTAssertEqual(try QueryParser.parseQuery(text), query, "\(text) parses back", file: file, line: line)
        } catch {
            XCTFail("\(query) does not print: \(error.message)", file: file, line: line)
        }
    }

    /// `tree` has no text: printing it throws `.queryInvalid` with `fragment`.
    private func assertUnwritable(_ tree: QueryExpression, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        assertUnwritable(ParsedQuery(predicate: tree), fragment, file: file, line: line)
    }

    private func assertUnwritable(_ query: ParsedQuery, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        let error = expectError(.queryInvalid, file: file, line: line) { try QuerySerializer.text(query) }
        XCTAssertTrue(error?.message.contains(fragment) ?? false,
                      "message is \"\(error?.message ?? "")\"; expected it to contain \"\(fragment)\"", file: file, line: line)
        XCTAssertTrue(error?.message.hasPrefix("cannot write the query as text: ") ?? false, file: file, line: line)
    }

    // MARK: Round trips

    func testEveryValidQueryOfTheTablesRoundTrips() throws {
        for (query, _) in QueryCorpus.realmValid + QueryCorpus.features {
            let tree = try QueryParser.parseQuery(query)
            let text = try QuerySerializer.text(tree)
            XCTAssertEqual(try QueryParser.parseQuery(text), tree, "\(query) -> \(text)")
            XCTAssertEqual(try QuerySerializer.text(QueryParser.parseQuery(text)), text, "\(text) is a fixed point")
        }
    }

    func testSeededRandomTreesRoundTrip() throws {
        var generator = TreeGenerator(seed: 0x5E71A112)
        var lengths = 0
        for i in 0..<600 {
            let tree = generator.query()
            let text: String
            do {
                text = try QuerySerializer.text(tree)
            } catch {
                XCTFail("tree \(i) does not print: \(error.message)\n\(tree)")
                continue
            }
            lengths += text.utf8.count
            do {
                let parsed = try QueryParser.parseQuery(text)
                XCTAssertEqual(parsed, tree, "tree \(i): \(text)")
                XCTAssertEqual(try QuerySerializer.text(parsed), text, "tree \(i) prints the same twice")
            } catch {
                XCTFail("tree \(i) printed as text that does not parse: \(error.message)\n\(text)\n\(tree)")
            }
        }
        // The trees are not trivial.
        XCTAssertGreaterThan(lengths / 600, 60)
    }

    // MARK: The canonical form

    func testSpacingKeywordsAndOperatorSpellings() {
        assertText(.comparison(key("a"), .lessOrEqual, int(1), []), "a <= 1")
        assertText(.comparison(key("a"), .greaterOrEqual, int(1), []), "a >= 1")
        assertText(.comparison(key("a"), .notEqual, int(1), []), "a != 1")
        assertText(.comparison(key("name"), .beginsWith, str("x"), [.caseInsensitive, .diacriticInsensitive]), "name BEGINSWITH[cd] 'x'")
        assertText(.comparison(key("name"), .equal, str("x"), .diacriticInsensitive), "name ==[d] 'x'")
        assertText(.membership(key("a"), .list([int(1), .constant(.null), .constant(.bool(true))]), .caseInsensitive), "a IN[c] {1, null, true}")
        assertText(.between(.quantified(.all, key("a")), low: int(1), high: .argument(2)), "ALL a BETWEEN {1, $2}")
        assertText(.fullText(key("t"), str("a -b c*")), "t TEXT 'a -b c*'")
        assertText(.not(.alwaysTrue), "NOT TRUEPREDICATE")
        assertText(.and(.alwaysFalse, .not(.not(eq("a", 1)))), "FALSEPREDICATE AND NOT NOT a == 1")
        assertText(ParsedQuery(predicate: .alwaysTrue, ordering: [
            .sort([QuerySortKey(keyPath: ["a"], ascending: true), QuerySortKey(keyPath: ["b", "c"], ascending: false)]),
            .distinct([["a"], ["b"]]), .limit(10), .sort([QuerySortKey(keyPath: ["c"], ascending: true)])]),
                   "TRUEPREDICATE SORT(a ASC, b.c DESC) DISTINCT(a, b) LIMIT(10) SORT(c ASC)")
    }

    func testParenthesesOnlyWherePrecedenceNeedsThem() {
        let a = eq("a", 1), b = eq("b", 2), c = eq("c", 3)
        assertText(.or(a, .and(b, c)), "a == 1 OR b == 2 AND c == 3")
        assertText(.and(.or(a, b), c), "(a == 1 OR b == 2) AND c == 3")
        assertText(.or(.or(a, b), c), "a == 1 OR b == 2 OR c == 3")
        assertText(.or(a, .or(b, c)), "a == 1 OR (b == 2 OR c == 3)")
        assertText(.and(a, .and(b, c)), "a == 1 AND (b == 2 AND c == 3)")
        assertText(.not(.and(a, b)), "NOT (a == 1 AND b == 2)")
        assertText(.and(.not(a), b), "NOT a == 1 AND b == 2")
        let x = key("x"), y = key("y"), z = key("z")
        assertText(.comparison(arith(arith(x, .add, y), .multiply, z), .equal, int(1), []), "(x + y) * z == 1")
        assertText(.comparison(arith(x, .add, arith(y, .multiply, z)), .equal, int(1), []), "x + y * z == 1")
        assertText(.comparison(arith(arith(x, .subtract, y), .subtract, z), .equal, int(1), []), "x - y - z == 1")
        assertText(.comparison(arith(x, .subtract, arith(y, .subtract, z)), .equal, int(1), []), "x - (y - z) == 1")
        assertText(.comparison(arith(x, .divide, arith(y, .multiply, z)), .equal, int(1), []), "x / (y * z) == 1")
        assertText(.comparison(.negated(arith(x, .add, y)), .equal, int(1), []), "-(x + y) == 1")
        assertText(.comparison(arith(.negated(x), .multiply, y), .equal, int(1), []), "-x * y == 1")
        // A minus against a number would join it: negated constants keep parentheses.
        assertText(.comparison(.negated(int(5)), .equal, x, []), "-(5) == x")
        assertText(.comparison(.negated(int(-5)), .equal, x, []), "-(-5) == x")
        assertText(.comparison(.negated(.constant(.double(.infinity))), .equal, x, []), "-(inf) == x")
        assertText(.comparison(.negated(.negated(x)), .equal, int(1), []), "-(-x) == 1")
        assertText(.comparison(x, .equal, arith(y, .subtract, int(-5)), []), "x == y - -5")
    }

    func testNumbersPrintInTheirShortestExactForm() {
        let cases: [(QueryLiteral, String)] = [
            (.int(0), "0"), (.int(-42), "-42"), (.int(.min), "-9223372036854775808"), (.int(.max), "9223372036854775807"),
            (.double(1.5), "1.5"), (.double(0.1), "0.1"), (.double(10), "10.0"), (.double(1e-5), "1e-05"),
            (.double(1e16), "1e+16"), (.double(-0.0), "-0.0"), (.double(.leastNonzeroMagnitude), "5e-324"),
            (.double(.infinity), "inf"), (.double(-.infinity), "-inf"), (.double(.nan), "nan"),
            (.float(1.5), "1.5f"), (.float(3), "3.0f"), (.float(-1e-5), "-1e-05f"), (.float(.greatestFiniteMagnitude), "3.4028235e+38f"),
            (.decimal("3.141592653589793238"), "3.141592653589793238"), (.decimal("-1e400"), "-1e400"),
            (.decimal("18446744073709551616"), "18446744073709551616"),
        ]
        for (literal, text) in cases {
            assertText(.comparison(key("x"), .equal, .constant(literal), []), "x == \(text)")
        }
        assertText(.comparison(key("x"), .equal, .constant(.timestamp(seconds: -1, nanoseconds: -1)), []), "x == T-1:-1")
        assertText(.comparison(key("x"), .equal, .constant(.timestamp(seconds: .min, nanoseconds: -999_999_999)), []),
                   "x == T-9223372036854775808:-999999999")
    }

    func testOtherLiterals() {
        let oid: [UInt8] = [0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11]
        let uuid: [UInt8] = [0x13, 0x7d, 0xec, 0xc8, 0xb3, 0x00, 0x49, 0x54, 0xa2, 0x33, 0xf8, 0x99, 0x09, 0xf4, 0xfd, 0x89]
        let cases: [(QueryLiteral, String)] = [
            (.null, "null"), (.bool(true), "true"), (.bool(false), "false"),
            (.objectId(oid), "oid(507f1f77bcf86cd799439011)"), (.uuid(uuid), "uuid(137decc8-b300-4954-a233-f89909f4fd89)"),
            (.binary([]), "bin(B64\"\")"), (.binary(Array("Hello".utf8)), "bin(B64\"SGVsbG8=\")"), (.binary([0xfb, 0xff, 0xbf]), "bin(B64\"+/+/\")"),
            (.binary([0, 1]), "bin(B64\"AAE=\")"), (.objectKey(12), "O12"), (.link(classKey: 3, objectKey: 14), "L3:14"),
        ]
        for (literal, text) in cases {
            assertText(.comparison(key("x"), .equal, .constant(literal), []), "x == \(text)")
        }
        assertText(.comparison(key("x"), .equal, .object(className: "Person's", primaryKey: .constant(.uuid(uuid))), []),
                   "x == obj('Person\\'s', uuid(137decc8-b300-4954-a233-f89909f4fd89))")
    }

    func testStringsAreQuotedWithEscapes() {
        let cases: [(String, String)] = [
            ("plain", "'plain'"), ("it's", #"'it\'s'"#), ("say \"hi\"", #"'say "hi"'"#), ("a\\b", #"'a\\b'"#),
            ("\n\r\t\u{8}\u{C}\u{0}", #"'\n\r\t\b\f\0'"#), ("\u{1}\u{1F}\u{7F}\u{85}", #"'\u0001\u001f\u007f\u0085'"#),
            ("zero\u{200B}width", #"'zero\u200bwidth'"#), ("line\u{2028}sep", #"'line\u2028sep'"#),
            ("private\u{F0000}", #"'private\udb80\udc00'"#), ("naïve 😀 中", "'naïve 😀 中'"),
            ("\u{FFFF}", #"'\uffff'"#), ("", "''"),
        ]
        for (value, text) in cases {
            assertText(.comparison(key("x"), .equal, str(value), []), "x == \(text)")
        }
        assertText(.comparison(.keyPath(QueryKeyPath([.property("dict"), .key("it's")])), .equal, int(1), []), #"dict['it\'s'] == 1"#)
    }

    func testNamesAreEscapedWhereNeeded() {
        assertText(eq("float fees", 1), #"float\ fees == 1"#)
        assertText(eq("a\tb\nc\rd", 1), #"a\tb\nc\rd == 1"#)
        assertText(eq(" lead", 1), #"\ lead == 1"#)
        assertText(eq("null value", 1), #"null\ value == 1"#)
        for name in ["in", "SORT", "first", "SIZE", "asc", "bin", "Not", "True", "T1", "O", "$a", "$K", "a-b", "名前", "a$"] {
            assertText(eq(name, 1), "\(name) == 1")
        }
        assertText(.comparison(.keyPath(QueryKeyPath([.backlinks(className: "Big Class", property: "my items")], suffix: .count)),
                               .greater, int(1), []), #"@links.Big\ Class.my\ items.@count > 1"#)
    }

    func testKeyPathSteps() {
        let path = QueryKeyPath([.property("a"), .index(3), .first, .last, .all, .key("k"), .argumentIndex(2), .keys, .values,
                                 .backlinks(className: "C", property: "p"), .property("b"), .allBacklinks], suffix: .count)
        assertText(.comparison(.keyPath(path), .equal, int(1), []), "a[3][FIRST][LAST][*]['k'][$2].@keys.@values.@links.C.p.b.@links.@count == 1")
        assertText(.comparison(.keyPath(QueryKeyPath([.property("m")], suffix: .type)), .equal, str("int"), []), "m.@type == 'int'")
        assertText(.comparison(.keyPath(QueryKeyPath([.property("i")], suffix: .aggregate(.average, property: "p"))), .equal, int(1), []),
                   "i.@avg.p == 1")
        assertText(.comparison(.keyPath(QueryKeyPath(start: .argument(3), [], suffix: .aggregate(.max, property: nil))), .equal, int(1), []),
                   "$K3.@max == 1")
        let subquery = QuerySubquery(collection: ["items"], variable: "$item",
                                     predicate: .comparison(.keyPath(QueryKeyPath(start: .variable("$item"), [.property("price")])), .greater, int(5), []))
        assertText(.comparison(.subqueryCount(subquery), .greater, int(0), []), "SUBQUERY(items, $item, $item.price > 5).@count > 0")
    }

    func testGeoShapes() {
        let p = { (x: Double, y: Double) in QueryGeoPoint(.value(x), .value(y)) }
        assertText(.geoWithin(key("l"), .box(p(0.2, -1), QueryGeoPoint(.argument(0), .value(1e-05), altitude: .value(3)))),
                   "l GEOWITHIN geoBox([0.2, -1.0], [$0, 1e-05, 3.0])")
        assertText(.geoWithin(.quantified(.none, key("l")), .circle(center: p(1, 2), radius: .argument(1))),
                   "NONE l GEOWITHIN geoCircle([1.0, 2.0], $1)")
        assertText(.geoWithin(key("l"), .polygon([[p(0, 0), p(1, 0), p(0, 0)], [p(0.1, 0.1)]])),
                   "l GEOWITHIN geoPolygon({[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]}, {[0.1, 0.1]})")
        assertText(.geoWithin(key("l"), .argument(4)), "l GEOWITHIN $4")
    }

    // MARK: Trees without text

    func testTreesTheLanguageCannotWriteAreRefused() {
        let x = key("x")
        let cases: [(QueryExpression, String)] = [
            (eq("", 1), "a name cannot be empty"),
            (eq("a.b", 1), "the name 'a.b' has a character the query language cannot write in a name"),
            (eq("a#b", 1), "cannot write in a name"),
            (eq("1abc", 1), "a name starts with a letter"),
            (eq("-a", 1), "a name starts with a letter"),
            (eq("and", 1), "'and' is a keyword and cannot be written as a name"),
            (eq("NULL", 1), "'NULL' is a keyword"),
            (eq("obj", 1), "'obj' is a keyword"),
            (eq("$0", 1), "it reads as an argument"),
            (eq("$K12", 1), "it reads as an argument"),
            (eq("O12", 1), "it reads as an object key literal"),
            (eq("self", 1), "'self' stands for the element"),
            (.comparison(.keyPath(QueryKeyPath([])), .equal, int(1), []), "a key path needs at least one step"),
            (.comparison(.keyPath(QueryKeyPath([.index(0)])), .equal, int(1), []), "a key path cannot start with an index"),
            (.comparison(.keyPath(QueryKeyPath(start: .argument(0), [.property("a")])), .equal, int(1), []), "a key-path argument stands for the whole key path"),
            (.comparison(.keyPath(QueryKeyPath(start: .variable("$x"), [])), .equal, int(1), []), "no SUBQUERY variable in scope"),
            (.comparison(.keyPath(QueryKeyPath([.allBacklinks, .property("a")])), .equal, int(1), []), "'@links' alone must end the key path"),
            (.comparison(.keyPath(QueryKeyPath([.allBacklinks], suffix: .type)), .equal, int(1), []), "only '@count' may follow '@links'"),
            (.comparison(.quantified(.any, int(1)), .equal, x, []), "ANY, ALL and NONE apply to a key path, a list or an argument only"),
            (.comparison(.quantified(.all, .keyPath(QueryKeyPath([.property("a")], suffix: .aggregate(.sum, property: nil)))), .equal, x, []),
             "ANY, ALL and NONE cannot apply to an aggregate"),
            (.comparison(x, .equal, .list([x]), []), "a list {...} holds constants and arguments only"),
            (.comparison(x, .equal, .list([.list([])]), []), "a list {...} holds constants and arguments only"),
            (.comparison(x, .equal, .object(className: "C", primaryKey: .constant(.double(1))), []), "the primary key in obj(...) is an integer"),
            (.comparison(x, .equal, .object(className: "C", primaryKey: x), []), "the primary key in obj(...) is a constant or an argument"),
            (.comparison(x, .equal, .argument(-1), []), "argument number -1 is out of range"),
            (.comparison(x, .less, str("a"), .caseInsensitive), "[c]/[d] options cannot follow <"),
            (.comparison(arith(x, .add, int(1)), .beginsWith, str("a"), []), "BEGINSWITH cannot compare arithmetic"),
            (.comparison(x, .like, .negated(x), []), "LIKE cannot compare arithmetic"),
            (.fullText(x, arith(x, .add, x)), "TEXT cannot compare arithmetic"),
            (.between(arith(x, .add, x), low: int(1), high: int(2)), "BETWEEN cannot compare arithmetic"),
            (.between(x, low: x, high: int(2)), "a list {...} holds constants and arguments only"),
            (.geoWithin(int(1), .argument(0)), "the left side of GEOWITHIN must be a key path"),
            (.geoWithin(x, .polygon([])), "a polygon needs at least one ring"),
            (.geoWithin(x, .polygon([[]])), "a ring of a polygon needs at least one point"),
            (.geoWithin(x, .circle(center: QueryGeoPoint(.value(.nan), .value(0)), radius: .value(1))), "a coordinate must be finite"),
            (.comparison(x, .equal, .constant(.float(.infinity)), []), "a float literal must be finite"),
            (.comparison(x, .equal, .constant(.decimal("1.5")), []), "'1.5' is no decimal literal"),
            (.comparison(x, .equal, .constant(.decimal("12")), []), "'12' is no decimal literal"),
            (.comparison(x, .equal, .constant(.decimal("+1e400")), []), "no decimal literal"),
            (.comparison(x, .equal, .constant(.decimal("abc")), []), "no decimal literal"),
            (.comparison(x, .equal, .constant(.timestamp(seconds: 1, nanoseconds: -1)), []), "the timestamp T1:-1 is invalid"),
            (.comparison(x, .equal, .constant(.timestamp(seconds: 0, nanoseconds: 1_000_000_000)), []), "is invalid"),
            (.comparison(x, .equal, .constant(.objectId([1, 2])), []), "an object id has 12 bytes, not 2"),
            (.comparison(x, .equal, .constant(.uuid([])), []), "a uuid has 16 bytes, not 0"),
            (.comparison(x, .equal, .constant(.objectKey(-1)), []), "the object key -1 is negative"),
            (.comparison(.subqueryCount(QuerySubquery(collection: ["a"], variable: "x", predicate: .alwaysTrue)), .equal, int(1), []),
             "the SUBQUERY variable 'x' must be a name starting with '$'"),
            (.comparison(.subqueryCount(QuerySubquery(collection: ["a"], variable: "$1", predicate: .alwaysTrue)), .equal, int(1), []),
             "must be a name starting with '$'"),
            (.comparison(.subqueryCount(QuerySubquery(collection: QueryKeyPath([.property("a")], suffix: .count), variable: "$x",
                                                      predicate: .alwaysTrue)), .equal, int(1), []), "without '@' operations"),
            (.comparison(.subqueryCount(QuerySubquery(collection: ["a"], variable: "$x",
                                                      predicate: .comparison(.subqueryCount(QuerySubquery(collection: ["b"], variable: "$x", predicate: .alwaysTrue)),
                                                                             .equal, int(1), []))), .equal, int(1), []),
             "the SUBQUERY variable '$x' is already in use"),
            (.comparison(.subqueryCount(QuerySubquery(collection: ["a"], variable: "$x", predicate: eq("$x", 1))), .equal, int(1), []),
             "the property '$x' has the name of a SUBQUERY variable in scope"),
        ]
        for (tree, fragment) in cases {
            assertUnwritable(tree, fragment)
        }
        assertUnwritable(ParsedQuery(predicate: .alwaysTrue, ordering: [.sort([])]), "SORT needs at least one key")
        assertUnwritable(ParsedQuery(predicate: .alwaysTrue, ordering: [.distinct([])]), "DISTINCT needs at least one key path")
        assertUnwritable(ParsedQuery(predicate: .alwaysTrue, ordering: [.limit(-1)]), "LIMIT(-1) is negative")
        assertUnwritable(ParsedQuery(predicate: .alwaysTrue, ordering: [.distinct([QueryKeyPath([.property("a")], suffix: .count)])]),
                         "without '@' operations")
    }
}

// MARK: - Random trees

/// Random trees of the shapes the parser builds (its image), from a fixed
/// seed: every one of them has a text that parses back to it.
struct TreeGenerator {
    var random: SeededRandom
    /// SUBQUERY variables in scope.
    var variables: [String] = []
    var nextVariable = 0

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func below(_ n: Int) -> Int { Int(random.next() % UInt64(max(n, 1))) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    static let names = ["a", "age", "name", "dogs", "in", "IN", "sort", "Distinct", "limit", "first", "LAST", "size", "asc",
                        "DESC", "bin", "binary", "text", "between", "contains", "like", "Not", "Any", "True", "T1", "O",
                        "oid", "uuid", "B64", "$a", "$", "a-b", "not-1", "NOT0", "_x", "é", "名前", "😀x", "float fees",
                        "tab\there", " lead", "Self", "length", "at_weird"]

    mutating func name() -> String { pick(Self.names) }

    mutating func query() -> ParsedQuery {
        variables = []
        var stages: [QueryOrderingStage] = []
        for _ in 0..<(chance(30) ? below(4) : 0) {
            switch below(3) {
            case 0: stages.append(.sort((0...below(3)).map { _ in QuerySortKey(keyPath: plainPath(), ascending: chance(50)) }))
            case 1: stages.append(.distinct((0...below(3)).map { _ in plainPath() }))
            default: stages.append(.limit(chance(90) ? below(1000) : Int.max))
            }
        }
        return ParsedQuery(predicate: predicate(depth: 0), ordering: stages)
    }

    mutating func predicate(depth: Int) -> QueryExpression {
        if depth < 4 && chance(45) {
            switch below(3) {
            case 0: return .and(predicate(depth: depth + 1), predicate(depth: depth + 1))
            case 1: return .or(predicate(depth: depth + 1), predicate(depth: depth + 1))
            default: return .not(predicate(depth: depth + 1))
            }
        }
        switch below(20) {
        case 0: return .alwaysTrue
        case 1: return .alwaysFalse
        case 2: return .membership(operand(depth: depth), operand(depth: depth), options())
        case 3: return .between(value(depth: depth), low: listElement(), high: listElement())
        case 4: return .fullText(value(depth: depth), value(depth: depth))
        case 5: return .geoWithin(chance(30) ? .quantified(quantifier(), .keyPath(path(aggregate: false))) : .keyPath(path(aggregate: true)),
                                  geoShape())
        default:
            let op = pick([QueryOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual,
                           .beginsWith, .endsWith, .contains, .like])
            switch op {
            case .beginsWith, .endsWith, .contains, .like:
                return .comparison(value(depth: depth), op, value(depth: depth), options())
            case .equal, .notEqual:
                return .comparison(operand(depth: depth), op, operand(depth: depth), options())
            default:
                return .comparison(operand(depth: depth), op, operand(depth: depth), [])
            }
        }
    }

    mutating func options() -> QueryStringOptions {
        pick([[], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
    }

    mutating func quantifier() -> QueryQuantifier { pick([.any, .all, .none]) }

    /// Any operand, arithmetic included.
    mutating func operand(depth: Int) -> QueryOperand {
        if depth < 5 && chance(25) {
            if chance(20) { return .negated(operand(depth: depth + 1)) }
            return .arithmetic(operand(depth: depth + 1), pick([.add, .subtract, .multiply, .divide]), operand(depth: depth + 1))
        }
        return value(depth: depth)
    }

    /// An operand without arithmetic.
    mutating func value(depth: Int) -> QueryOperand {
        switch below(14) {
        case 0, 1, 2: return .constant(literal())
        case 3: return .argument(below(20))
        case 4: return variables.isEmpty ? .element : .keyPath(QueryKeyPath(start: .variable(pick(variables)), chance(50) ? [] : [.property(name())]))
        case 5: return .list((0..<below(4)).map { _ in listElement() })
        case 6:
            switch below(3) {
            case 0: return .quantified(quantifier(), .keyPath(path(aggregate: false)))
            case 1: return .quantified(quantifier(), .list((0..<below(3)).map { _ in listElement() }))
            default: return .quantified(quantifier(), .argument(below(5)))
            }
        case 7: return object()
        case 8 where depth < 3: return subquery(depth: depth)
        default: return .keyPath(path(aggregate: true))
        }
    }

    mutating func object() -> QueryOperand {
        let primaryKey: QueryOperand
        switch below(5) {
        case 0: primaryKey = .constant(.int(Int64(bitPattern: random.next())))
        case 1: primaryKey = .constant(.string(string()))
        case 2: primaryKey = .constant(.objectId(bytes(12)))
        case 3: primaryKey = .constant(.uuid(bytes(16)))
        default: primaryKey = .argument(below(9))
        }
        return .object(className: pick(["Person", "class_Dog", "it's", ""]), primaryKey: primaryKey)
    }

    mutating func subquery(depth: Int) -> QueryOperand {
        let collection = plainPath()
        nextVariable += 1
        let variable = pick(["$x", "$item", "$v-", "$é"]) + String(nextVariable)
        variables.append(variable)
        let inner = predicate(depth: depth + 1)
        variables.removeLast()
        return .subqueryCount(QuerySubquery(collection: collection, variable: variable, predicate: inner))
    }

    mutating func listElement() -> QueryOperand {
        switch below(8) {
        case 0: return .argument(below(9))
        case 1: return object()
        default: return .constant(literal())
        }
    }

    /// A key path in a value: any start, steps, suffix (an aggregate only
    /// when `aggregate`).
    mutating func path(aggregate: Bool) -> QueryKeyPath {
        var path = QueryKeyPath([])
        if chance(8) {
            path.start = .argument(below(9))
        } else {
            path.components = steps()
            if chance(10) { path.components.append(.allBacklinks) }
        }
        if chance(30) {
            if path.components.last == .allBacklinks {
                path.suffix = .count
            } else {
                switch below(aggregate ? 3 : 2) {
                case 0: path.suffix = .count
                case 1: path.suffix = .type
                default: path.suffix = .aggregate(pick([.min, .max, .sum, .average]), property: chance(50) ? name() : nil)
                }
            }
        }
        return path
    }

    /// A key path of steps only (SORT, DISTINCT, a SUBQUERY's collection).
    mutating func plainPath() -> QueryKeyPath {
        if chance(5) { return QueryKeyPath(start: .argument(below(9)), []) }
        return QueryKeyPath(steps())
    }

    /// One or more steps, starting with a name (never one naming a
    /// variable in scope, nor `self`) or a backlink / dictionary step.
    mutating func steps() -> [QueryPathComponent] {
        var components: [QueryPathComponent] = []
        switch below(10) {
        case 0: components.append(.backlinks(className: name(), property: name()))
        case 1: components.append(pick([.keys, .values]))
        default: components.append(.property(name()))
        }
        for _ in 0..<below(4) {
            switch below(12) {
            case 0: components.append(.index(below(100)))
            case 1: components.append(.first)
            case 2: components.append(.last)
            case 3: components.append(.all)
            case 4: components.append(.key(string()))
            case 5: components.append(.argumentIndex(below(9)))
            case 6: components.append(pick([.keys, .values]))
            case 7: components.append(.backlinks(className: name(), property: name()))
            default: components.append(.property(name()))
            }
        }
        return components
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }

    mutating func string() -> String {
        let pieces = ["a", "Z", " ", "'", "\"", "\\", "\n", "\t", "\u{0}", "\u{7}", "é", "😀", "中", "\u{200B}", "\u{2028}",
                      "\u{F0000}", "\u{FFFF}", "AND", "==", "{", ")", "$0", "%@", "@count", "B64\"", "T1:2"]
        return (0..<below(6)).map { _ in pick(pieces) }.joined()
    }

    mutating func literal() -> QueryLiteral {
        switch below(16) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2, 3: return .int(chance(50) ? Int64(below(1000)) - 500 : Int64(bitPattern: random.next()))
        case 4:
            switch below(5) {
            case 0: return .double(pick([.infinity, -.infinity, .nan, -0.0, 0.1, .leastNonzeroMagnitude, .greatestFiniteMagnitude]))
            default: return .double(Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) * (chance(50) ? 1 : -1))
            }
        case 5: return .double(Double(below(100_000)) / 64 - 700)
        case 6: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x7F7F_FFFF) * (chance(50) ? 1 : -1))
        case 7:
            // Texts that a double cannot hold as written.
            let digits = (0..<(18 + below(20))).map { _ in String(below(10)) }.joined()
            let text = pick(["", "-"]) + "1" + digits.prefix(2) + "." + digits.dropFirst(2) + pick(["", "e400", "E-9", "e+12"])
            if case .decimal(let kept) = QueryLiteral.floatingPoint(text) { return .decimal(kept) }
            return .decimal("1.00000000000000000000001")
        case 8, 9: return .string(string())
        case 10:
            let seconds = chance(50) ? Int64(below(4_000_000_000)) - 2_000_000_000 : Int64(bitPattern: random.next())
            let nanos = Int32(below(1_000_000_000))
            return .timestamp(seconds: seconds, nanoseconds: seconds < 0 ? -nanos : (seconds == 0 && chance(50) ? -nanos : nanos))
        case 11: return .objectId(bytes(12))
        case 12: return .uuid(bytes(16))
        case 13: return .binary(bytes(below(9)))
        case 14: return .objectKey(Int64(below(1_000_000)))
        default: return .link(classKey: UInt32(truncatingIfNeeded: random.next()), objectKey: Int64(below(1_000_000)))
        }
    }

    mutating func geoNumber() -> QueryGeoNumber {
        chance(20) ? .argument(below(9)) : .value(Double(below(36_000)) / 100 - 180)
    }

    mutating func geoPoint() -> QueryGeoPoint {
        QueryGeoPoint(geoNumber(), geoNumber(), altitude: chance(20) ? geoNumber() : nil)
    }

    mutating func geoShape() -> QueryGeoShape {
        switch below(4) {
        case 0: return .box(geoPoint(), geoPoint())
        case 1: return .circle(center: geoPoint(), radius: geoNumber())
        case 2: return .polygon((0...below(2)).map { _ in (0...below(5)).map { _ in geoPoint() } })
        default: return .argument(below(9))
        }
    }
}
