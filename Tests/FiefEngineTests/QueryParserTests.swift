import XCTest
@testable import FiefStorage
@testable import FiefEngine

final class QueryParserTests: XCTestCase {

    // MARK: Helpers

    private func key(_ names: String...) -> QueryOperand { .keyPath(QueryKeyPath(properties: names)) }
    private func path(_ components: QueryPathComponent..., start: QueryPathStart = .object,
                      suffix: QueryPathSuffix? = nil) -> QueryOperand {
        .keyPath(QueryKeyPath(start: start, components, suffix: suffix))
    }
    private func lit(_ literal: QueryLiteral) -> QueryOperand { .constant(literal) }
    private func int(_ v: Int64) -> QueryOperand { .constant(.int(v)) }
    private func dbl(_ v: Double) -> QueryOperand { .constant(.double(v)) }
    private func str(_ s: String) -> QueryOperand { .constant(.string(s)) }
    private func list(_ elements: QueryOperand...) -> QueryOperand { .list(elements) }
    private func cmp(_ l: QueryOperand, _ op: QueryOperator, _ r: QueryOperand,
                     _ options: QueryStringOptions = []) -> QueryExpression {
        .comparison(l, op, r, options)
    }
    private func arith(_ l: QueryOperand, _ op: QueryArithmeticOperator, _ r: QueryOperand) -> QueryOperand {
        .arithmetic(l, op, r)
    }
    /// `name == value` for property `name`.
    private func eq(_ name: String, _ value: Int64) -> QueryExpression {
        cmp(key(name), .equal, int(value))
    }

    /// `text` is a predicate without stages that parses to `expected`.
    private func assertParses(_ text: String, _ expected: QueryExpression,
                              file: StaticString = #filePath, line: UInt = #line) {
        assertQuery(text, ParsedQuery(predicate: expected), file: file, line: line)
    }

    private func assertQuery(_ text: String, _ expected: ParsedQuery,
                             file: StaticString = #filePath, line: UInt = #line) {
        do {
            let parsed = try QueryParser.parseQuery(text)
            XCTAssertEqual(parsed, expected, "parsing \(text)", file: file, line: line)
        } catch {
            XCTFail("\(text) failed to parse: \(error.message)", file: file, line: line)
        }
    }

    /// The literal on the right of `x == <literal text>`.
    private func literal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> QueryLiteral? {
        do {
            let parsed: QueryExpression = try QueryParser.parse("x == " + text)
            guard case .comparison(_, .equal, .constant(let value), _) = parsed else {
                XCTFail("\(text) did not parse as a literal: \(parsed)", file: file, line: line)
                return nil
            }
            return value
        } catch {
            XCTFail("x == \(text) failed to parse: \(error.message)", file: file, line: line)
            return nil
        }
    }

    /// `text` fails with a message containing `fragment`, at `offset` when
    /// given; every message says where ("at offset N").
    @discardableResult
    private func assertFails(_ text: String, _ fragment: String, offset: Int? = nil,
                             file: StaticString = #filePath, line: UInt = #line) -> QueryParseError? {
        do {
            let parsed = try QueryParser.parseQuery(text)
            XCTFail("\(text) parsed as \(parsed) but should fail", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error.message.contains(fragment),
                          "message for \(text) is \"\(error.message)\"; expected it to contain \"\(fragment)\"",
                          file: file, line: line)
            if let offset {
                XCTAssertEqual(error.offset, offset, "offset for \(text) (\(error.message))", file: file, line: line)
            }
            XCTAssertTrue(error.message.contains("at offset \(error.offset)"), error.message, file: file, line: line)
            return error
        }
    }

    // MARK: Comparison operators

    func testComparisonOperatorSpellings() {
        let cases: [(String, QueryOperator)] = [
            ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual),
            ("<", .less), ("<=", .lessOrEqual), ("=<", .lessOrEqual),
            (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
        ]
        for (spelling, op) in cases {
            assertParses("age \(spelling) 5", cmp(key("age"), op, int(5)))
            assertParses("age\(spelling)5", cmp(key("age"), op, int(5)))
        }
        assertParses("age<-5", cmp(key("age"), .less, int(-5)))
        assertParses("age=-5", cmp(key("age"), .equal, int(-5)))
    }

    func testStringOperators() {
        let cases: [(String, QueryOperator)] = [
            ("BEGINSWITH", .beginsWith), ("beginswith", .beginsWith), ("BeginsWith", .beginsWith),
            ("ENDSWITH", .endsWith), ("endsWith", .endsWith),
            ("CONTAINS", .contains), ("contains", .contains), ("Contains", .contains),
            ("LIKE", .like), ("like", .like), ("Like", .like),
        ]
        for (spelling, op) in cases {
            assertParses("name \(spelling) 'a'", cmp(key("name"), op, str("a")))
            assertParses("name \(spelling)[c] 'a'", cmp(key("name"), op, str("a"), .caseInsensitive))
            assertParses("name \(spelling)[d] 'a'", cmp(key("name"), op, str("a"), .diacriticInsensitive))
            assertParses("name \(spelling)[cd] 'a'",
                         cmp(key("name"), op, str("a"), [.caseInsensitive, .diacriticInsensitive]))
        }
        assertParses("name LIKE[dc] 'a*?'",
                     cmp(key("name"), .like, str("a*?"), [.caseInsensitive, .diacriticInsensitive]))
        assertParses("name CONTAINS [c] 'a'", cmp(key("name"), .contains, str("a"), .caseInsensitive))
        assertParses("name CONTAINS[C]'a'", cmp(key("name"), .contains, str("a"), .caseInsensitive))
        // Either side may be the constant, and string operators take lists too.
        assertParses("NULL CONTAINS name", cmp(lit(.null), .contains, key("name")))
        assertParses("a like {'a*', 'b*'}", cmp(key("a"), .like, list(str("a*"), str("b*"))))
    }

    func testOptionsOnEquality() {
        assertParses("name ==[c] 'x'", cmp(key("name"), .equal, str("x"), .caseInsensitive))
        assertParses("name =[c] 'x'", cmp(key("name"), .equal, str("x"), .caseInsensitive))
        assertParses("name !=[cd] 'x'", cmp(key("name"), .notEqual, str("x"), [.caseInsensitive, .diacriticInsensitive]))
        assertParses("name <>[d] 'x'", cmp(key("name"), .notEqual, str("x"), .diacriticInsensitive))
        assertParses("0 == [c] 0", cmp(int(0), .equal, int(0), .caseInsensitive))
        assertFails("name <[c] 'x'", "only allowed after ==, !=, IN,", offset: 6)
        assertFails("name >=[c] 'x'", "only allowed after", offset: 7)
        assertFails("name ==[x] 'x'", "expected 'c', 'd' or 'cd'", offset: 8)
        assertFails("name ==[cc] 'x'", "expected 'c', 'd' or 'cd'")
        assertFails("name ==[] 'x'", "expected 'c', 'd' or 'cd'")
        assertFails("name ==[c 'x'", "expected ']'", offset: 10)
    }

    // MARK: Logic

    func testLogicalOperatorSpellings() {
        for and in ["AND", "and", "And", "&&"] {
            assertParses("a == 1 \(and) b == 2", .and(eq("a", 1), eq("b", 2)))
        }
        for or in ["OR", "or", "Or", "||"] {
            assertParses("a == 1 \(or) b == 2", .or(eq("a", 1), eq("b", 2)))
        }
        for not in ["NOT ", "not ", "!", "! "] {
            assertParses("\(not)a == 1", .not(eq("a", 1)))
        }
        assertParses("a==1&&b==2||c==3", .or(.and(eq("a", 1), eq("b", 2)), eq("c", 3)))
        assertParses("NOT(a == 1)", .not(eq("a", 1)))
        assertParses("!!a == 1", .not(.not(eq("a", 1))))
        assertParses("NOT NOT a == 1", .not(.not(eq("a", 1))))
        // The tokens end where flex ends them: `1AND` is `1 AND`.
        assertParses("a=1AND NOTb=2", .and(eq("a", 1), eq("NOTb", 2)))
    }

    func testPrecedenceAndAssociativity() {
        // AND binds tighter than OR.
        assertParses("a == 1 OR b == 2 AND c == 3", .or(eq("a", 1), .and(eq("b", 2), eq("c", 3))))
        assertParses("a == 1 AND b == 2 OR c == 3", .or(.and(eq("a", 1), eq("b", 2)), eq("c", 3)))
        // NOT binds tighter than AND.
        assertParses("NOT a == 1 AND b == 2", .and(.not(eq("a", 1)), eq("b", 2)))
        assertParses("a == 1 AND NOT b == 2 OR c == 3", .or(.and(eq("a", 1), .not(eq("b", 2))), eq("c", 3)))
        // Left associative.
        assertParses("a == 1 AND b == 2 AND c == 3", .and(.and(eq("a", 1), eq("b", 2)), eq("c", 3)))
        assertParses("a == 1 OR b == 2 OR c == 3", .or(.or(eq("a", 1), eq("b", 2)), eq("c", 3)))
        // Parentheses.
        assertParses("(a == 1 OR b == 2) AND c == 3", .and(.or(eq("a", 1), eq("b", 2)), eq("c", 3)))
        assertParses("a == 1 AND (b == 2 AND c == 3)", .and(eq("a", 1), .and(eq("b", 2), eq("c", 3))))
        assertParses("NOT (a == 1 OR b == 2)", .not(.or(eq("a", 1), eq("b", 2))))
        assertParses("((((a == 1))))", eq("a", 1))
        assertParses("  \t\r\n a == 1 \n", eq("a", 1))
    }

    func testConstantPredicates() {
        for t in ["TRUEPREDICATE", "truepredicate", "TruePredicate"] {
            assertParses(t, .alwaysTrue)
        }
        for f in ["FALSEPREDICATE", "falsepredicate", "FalsePredicate"] {
            assertParses(f, .alwaysFalse)
        }
        assertParses("NOT TRUEPREDICATE OR (FALSEPREDICATE)", .or(.not(.alwaysTrue), .alwaysFalse))
        assertParses("TRUEPREDICATE && a == 1", .and(.alwaysTrue, eq("a", 1)))
        assertParses("truepredicates = falsepredicates", cmp(key("truepredicates"), .equal, key("falsepredicates")))
    }

    // MARK: Names

    func testPropertyNames() {
        assertParses("dog.name == 'Rex'", cmp(key("dog", "name"), .equal, str("Rex")))
        assertParses("a.b.c.d == 1", cmp(key("a", "b", "c", "d"), .equal, int(1)))
        assertParses("a . b == 1", cmp(key("a", "b"), .equal, int(1)))
        assertParses("a == b.c", cmp(key("a"), .equal, key("b", "c")))
        assertParses("5 < age", cmp(int(5), .less, key("age")))
        // Names take '_', '$', '-', digits after the first character, and UTF-8.
        assertParses("_x1$y == 1", eq("_x1$y", 1))
        assertParses("a-b == 1", eq("a-b", 1))
        assertParses("a09._br.z = __-__.Z-9", cmp(key("a09", "_br", "z"), .equal, key("__-__", "Z-9")))
        assertParses("$a == 1", eq("$a", 1))
        assertParses("$ == $", cmp(key("$"), .equal, key("$")))
        assertParses("$-1 = $0", cmp(key("$-1"), .equal, .argument(0)))
        assertParses("$0a == 1", eq("$0a", 1))
        assertParses("$K == 1", eq("$K", 1))
        assertParses("prénom == 'é'", cmp(key("prénom"), .equal, str("é")))
        assertParses("名前 == 1", eq("名前", 1))
        assertParses("løbenummer > 2", cmp(key("løbenummer"), .greater, int(2)))
        // Escapes put whitespace into a name; a name with one is never a keyword.
        assertParses("float\\ fees > 1", cmp(key("float fees"), .greater, int(1)))
        assertParses("a\\tb\\nc\\rd == 1", eq("a\tb\nc\rd", 1))
        assertParses("true\\ love = false", cmp(key("true love"), .equal, lit(.bool(false))))
        assertParses("\\ and == 1", eq(" and", 1))
        // Shapes of other tokens that stay names: T without ':', O or L not
        // followed by digits (and ':' for L), oid/uuid/B64 without '(' or a quote.
        for name in ["T", "T1", "T399", "T2017-12-04", "O", "Ox", "L1", "oid", "uuid", "B64", "bin", "binary"] {
            assertParses("\(name) == 1", eq(name, 1))
        }
    }

    func testKeywordsAsNamesFollowRealmCoreGrammar() {
        // Operator, stage, direction, index and `bin` words are names where a name is expected.
        for word in ["in", "IN", "between", "BETWEEN", "contains", "beginswith", "endswith", "like", "text",
                     "sort", "SORT", "distinct", "limit", "asc", "ascending", "desc", "DESCENDING",
                     "first", "FIRST", "last", "size", "SIZE", "bin", "binary"] {
            assertParses("\(word) == 1", eq(word, 1))
            assertParses("a.\(word) == 1", cmp(key("a", word), .equal, int(1)))
            assertQuery("TRUEPREDICATE SORT(\(word) ASC)",
                        ParsedQuery(predicate: .alwaysTrue,
                                    ordering: [.sort([QuerySortKey(keyPath: [word], ascending: true)])]))
        }
        assertParses("in in 'in'", .membership(key("in"), str("in"), []))
        assertParses("contains CONTAINS 'x'", cmp(key("contains"), .contains, str("x")))
        assertParses("like LIKE like", cmp(key("like"), .like, key("like")))
        assertParses("text TEXT 'x'", .fullText(key("text"), str("x")))
        assertParses("between BETWEEN {1, 2}", .between(key("between"), low: int(1), high: int(2)))
        assertParses("desc CONTAINS[c] $0", cmp(key("desc"), .contains, .argument(0), .caseInsensitive))
        // NOT, ANY/SOME, ALL, NONE, IN, TRUE, FALSE, FIRST, LAST, SIZE are
        // keywords only in all-lower or all-upper case; a longer word is a name.
        for name in ["Not", "nOT", "NOT0", "not-1", "NOTNOT0", "Any", "Some", "All", "None", "In", "True", "False", "First", "Size"] {
            assertParses("\(name) == 1", eq(name, 1))
        }
        assertParses("NOT0.a=0", cmp(key("NOT0", "a"), .equal, int(0)))
        assertParses("TRUE == True", cmp(lit(.bool(true)), .equal, key("True")))
    }

    func testReservedWordsAreNotPropertyNames() {
        assertFails("and == 1", "expected a predicate but found 'and'", offset: 0)
        assertFails("a == OR", "expected a value after '==' but found 'OR'", offset: 5)
        for word in ["and", "OR", "not", "any", "SOME", "all", "none", "null", "nil", "true", "FALSE", "inf",
                     "Infinity", "nan", "TRUEPREDICATE", "falsepredicate", "subquery", "geowithin", "geoBox",
                     "geoPolygon", "geoCircle", "obj"] {
            assertFails("dog.\(word) == 1", "the keyword '\(word)' cannot be used as a property name", offset: 4)
        }
        assertFails("a == b.not", "cannot be used as a property name", offset: 7)
        assertFails("dog. == 1", "expected a property name after '.' but found '=='", offset: 5)
        assertFails("dog.1 == 1", "expected a property name after '.' but found '1'", offset: 4)
        assertFails("obj == 1", "'obj' cannot be a property name", offset: 4)
    }

    // MARK: Key path steps

    func testIndexesAndDictionaryKeys() {
        assertParses("list[0] == 1", cmp(path(.property("list"), .index(0)), .equal, int(1)))
        assertParses("list[007] == 1", cmp(path(.property("list"), .index(7)), .equal, int(1)))
        for (text, component) in [("FIRST", QueryPathComponent.first), ("first", .first), ("LAST", .last), ("last", .last), ("*", .all)] {
            assertParses("list[\(text)] == 1", cmp(path(.property("list"), component), .equal, int(1)))
        }
        assertParses("dict['key'] == 1", cmp(path(.property("dict"), .key("key")), .equal, int(1)))
        assertParses("dict[\"it's\"] == 1", cmp(path(.property("dict"), .key("it's")), .equal, int(1)))
        assertParses("list[$2] == 1", cmp(path(.property("list"), .argumentIndex(2)), .equal, int(1)))
        assertParses("a == %@ AND list[%@] == 1",
                     .and(cmp(key("a"), .equal, .argument(0)), cmp(path(.property("list"), .argumentIndex(1)), .equal, int(1))))
        assertParses("properties.instruments[0].strings == 'a'",
                     cmp(path(.property("properties"), .property("instruments"), .index(0), .property("strings")), .equal, str("a")))
        assertParses("properties[*][*][*] > 10", cmp(path(.property("properties"), .all, .all, .all), .greater, int(10)))
        assertParses("dict.@keys == 'a'", cmp(path(.property("dict"), .keys), .equal, str("a")))
        assertParses("pets.@values.age > 2", cmp(path(.property("pets"), .values, .property("age")), .greater, int(2)))
        // `.length` and `dict.key` are names: the binder decides what they mean.
        assertParses("strings.length == 8", cmp(key("strings", "length"), .equal, int(8)))
        // [SIZE] is the size, like .@count.
        for size in ["[SIZE]", "[size]", ".@count", ".@size"] {
            assertParses("list\(size) == 3", cmp(path(.property("list"), suffix: .count), .equal, int(3)))
        }
        assertFails("list[First] == 1", "expected an index", offset: 5)
        assertFails("list[-1] == 1", "expected an index", offset: 5)
        assertFails("list[0 == 1", "expected ']' to close the '[' at offset 4", offset: 7)
        assertFails("list[99999999999999999999] == 1", "the index '99999999999999999999' is too large", offset: 5)
        assertFails("list[SIZE].x == 1", "nothing may follow '[SIZE]'", offset: 10)
    }

    func testPostOperationsAndAggregates() {
        assertParses("items.@count > 2", cmp(path(.property("items"), suffix: .count), .greater, int(2)))
        assertParses("mixed.@type == 'string'", cmp(path(.property("mixed"), suffix: .type), .equal, str("string")))
        let aggregates: [(String, QueryAggregate)] = [("@min", .min), ("@max", .max), ("@sum", .sum), ("@avg", .average)]
        for (word, aggregate) in aggregates {
            assertParses("scores.\(word) > 1",
                         cmp(path(.property("scores"), suffix: .aggregate(aggregate, property: nil)), .greater, int(1)))
            assertParses("items.\(word).price > 1",
                         cmp(path(.property("items"), suffix: .aggregate(aggregate, property: "price")), .greater, int(1)))
        }
        assertParses("items.@min.price > items.@count",
                     cmp(path(.property("items"), suffix: .aggregate(.min, property: "price")), .greater,
                         path(.property("items"), suffix: .count)))
        assertFails("a.@count.b == 1", "nothing may follow '@count' in a key path", offset: 8)
        assertFails("a.@sum.b.c == 1", "nothing may follow '@sum'", offset: 8)
        assertFails("@count == 1", "'@count' must follow a key path", offset: 0)
        assertFails("a.@prop == 1", "unknown '@prop'", offset: 2)
        assertFails("a.@ == 1", "unexpected character '@'", offset: 2)
    }

    func testBacklinks() {
        assertParses("@links.Person.dogs.@count > 1",
                     cmp(path(.backlinks(className: "Person", property: "dogs"), suffix: .count), .greater, int(1)))
        assertParses("@links.Person.fav\\ item.account_balance > 20",
                     cmp(path(.backlinks(className: "Person", property: "fav item"), .property("account_balance")), .greater, int(20)))
        assertParses("p.@links.class.prop.@sum.prop2 > 2",
                     cmp(path(.property("p"), .backlinks(className: "class", property: "prop"),
                              suffix: .aggregate(.sum, property: "prop2")), .greater, int(2)))
        assertParses("@links.@count == 0", cmp(path(.allBacklinks, suffix: .count), .equal, int(0)))
        assertParses("items.@links.@size == 2", cmp(path(.property("items"), .allBacklinks, suffix: .count), .equal, int(2)))
        assertParses("@links == 2", cmp(path(.allBacklinks), .equal, int(2)))
        assertParses("@links.my-custom-class-name.items.@count > 2",
                     cmp(path(.backlinks(className: "my-custom-class-name", property: "items"), suffix: .count), .greater, int(2)))
        assertFails("@links.Person == 1", "expected '.' and the linking property after '@links.Person'", offset: 14)
        assertFails("@links.@min == 1", "expected a class name or '@count' after '@links.'", offset: 7)
        assertFails("@links[0] == 1", "'@links' cannot be indexed", offset: 6)
        assertFails("prop@links > 2", "expected a comparison operator but found '@links'", offset: 4)
        assertFails("@prop > 2", "unknown '@prop'", offset: 0)
    }

    func testKeyPathArguments() {
        assertParses("$K0 != null", cmp(path(start: .argument(0)), .notEqual, lit(.null)))
        assertParses("$K12.@count > 1", cmp(path(start: .argument(12), suffix: .count), .greater, int(1)))
        assertParses("$K0.@sum.price > 5", cmp(path(start: .argument(0), suffix: .aggregate(.sum, property: "price")), .greater, int(5)))
        // %K takes the next argument number, as %@ does.
        assertParses("%K == %@", cmp(path(start: .argument(0)), .equal, .argument(1)))
        assertParses("%@ == %K", cmp(.argument(0), .equal, path(start: .argument(1))))
        assertParses("ANY %K == 5", cmp(.quantified(.any, path(start: .argument(0))), .equal, int(5)))
        assertFails("$K0.name == 1", "a key-path argument ($K or %K) stands for the whole key path", offset: 4)
        assertFails("%K[0] == 1", "stands for the whole key path", offset: 2)
    }

    func testSelfStandsForTheElement() {
        assertParses("self > 5", cmp(.element, .greater, int(5)))
        assertParses("1 < SELF", cmp(int(1), .less, .element))
        assertParses("Self > 1", cmp(key("Self"), .greater, int(1)))
        assertParses("self BEGINSWITH 'a'", cmp(.element, .beginsWith, str("a")))
        // In SORT and DISTINCT it is a property name.
        assertQuery("TRUEPREDICATE SORT(self ASC)",
                    ParsedQuery(predicate: .alwaysTrue, ordering: [.sort([QuerySortKey(keyPath: ["self"], ascending: true)])]))
        // Followed by '.' or '[' it starts a key path: a property named "self" (realm-core's reading).
        assertParses("self.name == 'a'", cmp(key("self", "name"), .equal, str("a")))
        assertParses("self [0] == 1", cmp(.keyPath(QueryKeyPath([.property("self"), .index(0)])), .equal, int(1)))
        assertParses("ANY self.items.price > 1", cmp(.quantified(.any, key("self", "items", "price")), .greater, int(1)))
        assertFails("ANY self == 1", "'ANY' cannot apply to 'self'", offset: 4)
    }

    // MARK: Quantifiers, lists, IN, BETWEEN, TEXT, GEOWITHIN

    func testQuantifiers() {
        let quantifiers: [(String, QueryQuantifier)] = [("ANY", .any), ("any", .any), ("SOME", .any), ("some", .any),
                                                         ("ALL", .all), ("all", .all), ("NONE", .none), ("none", .none)]
        for (word, quantifier) in quantifiers {
            assertParses("\(word) dogs.age > 1", cmp(.quantified(quantifier, key("dogs", "age")), .greater, int(1)))
            assertParses("x == \(word) {1, 2}", cmp(key("x"), .equal, .quantified(quantifier, list(int(1), int(2)))))
            assertParses("x IN \(word) $0", .membership(key("x"), .quantified(quantifier, .argument(0)), []))
        }
        assertParses("ANY {1, 2, 3} == ALL integers",
                     cmp(.quantified(.any, list(int(1), int(2), int(3))), .equal, .quantified(.all, key("integers"))))
        assertParses("ALL items.name contains[c] NONE {'A', 'B'}",
                     cmp(.quantified(.all, key("items", "name")), .contains, .quantified(.none, list(str("A"), str("B"))), .caseInsensitive))
        assertParses("ANY list.@count > 1", cmp(.quantified(.any, path(.property("list"), suffix: .count)), .greater, int(1)))
        assertParses("ALL list[*] == 1", cmp(.quantified(.all, path(.property("list"), .all)), .equal, int(1)))
        assertFails("ANY items.@sum.price > 1", "ANY, ALL and NONE cannot apply to an aggregate ('@sum')", offset: 10)
        assertFails("ANY 5 == a", "expected a key path, a list {...} or an argument after 'ANY' but found '5'", offset: 4)
        assertFails("ALL (a) == 1", "after 'ALL' but found '('", offset: 4)
        assertFails("Any dogs.age > 1", "expected a comparison operator but found 'dogs'", offset: 4)
    }

    func testLists() {
        assertParses("a IN {}", .membership(key("a"), list(), []))
        assertParses("a IN { }", .membership(key("a"), list(), []))
        assertParses("a IN {'one', 2, -3.0, null, $1, true, T1:2, B64\"YQ==\", bin('b'), obj('C', 1)}",
                     .membership(key("a"), list(str("one"), int(2), dbl(-3.0), lit(.null), .argument(1), lit(.bool(true)),
                                                lit(.timestamp(seconds: 1, nanoseconds: 2)), str("a"),
                                                lit(.binary([0x62])), .object(className: "C", primaryKey: int(1))), []))
        assertParses("a == {1, 2}", cmp(key("a"), .equal, list(int(1), int(2))))
        assertParses("{} == items.price", cmp(list(), .equal, key("items", "price")))
        assertParses("a IN {inf, -inf, nan}", .membership(key("a"), list(dbl(.infinity), dbl(-.infinity), dbl(.nan)), []))
        assertFails("a IN {b, c}", "expected a constant or an argument in the list but found 'b'", offset: 6)
        assertFails("a == {{1}}", "expected a constant or an argument in the list but found '{'", offset: 6)
        assertFails("a == {1 2}", "expected ',' or '}' to close the '{' at offset 5 but found '2'", offset: 8)
        assertFails("a IN {1, 2, 3", "expected ',' or '}'", offset: 13)
        assertFails("a == {- 1}", "expected a constant or an argument in the list but found '-'", offset: 6)
    }

    func testInBetweenAndText() {
        assertParses("x IN {1, 2}", .membership(key("x"), list(int(1), int(2)), []))
        assertParses("'MiLk' IN[c] items.name", .membership(str("MiLk"), key("items", "name"), .caseInsensitive))
        assertParses("x in $0", .membership(key("x"), .argument(0), []))
        assertParses("NOT a IN {1, 2}", .not(.membership(key("a"), list(int(1), int(2)), [])))
        assertParses("ALL a IN {1, 2}", .membership(.quantified(.all, key("a")), list(int(1), int(2)), []))
        assertParses("a * 2 IN {2, 4}", .membership(arith(key("a"), .multiply, int(2)), list(int(2), int(4)), []))
        assertParses("age between {20, 23}", .between(key("age"), low: int(20), high: int(23)))
        assertParses("ALL scores BETWEEN {$0, $1}", .between(.quantified(.all, key("scores")), low: .argument(0), high: .argument(1)))
        assertParses("title TEXT 'hello -world pre*'", .fullText(key("title"), str("hello -world pre*")))
        assertParses("link.text text $0", .fullText(key("link", "text"), .argument(0)))
        assertFails("age between {20}", "BETWEEN takes exactly two values: {low, high}", offset: 12)
        assertFails("age between {20, 25, 34}", "BETWEEN takes exactly two values", offset: 12)
        assertFails("age BETWEEN $0", "expected a list of two values {low, high} after BETWEEN but found '$0'", offset: 12)
        assertFails("age + 1 BETWEEN {1, 2}", "arithmetic ('+') cannot be used with BETWEEN", offset: 8)
        assertFails("a TEXT[c] 'x'", "options are only allowed after", offset: 6)
        assertFails("a TEXT b + 'x'", "arithmetic ('+') cannot be used with TEXT", offset: 7)
        assertFails("a IN [1, 2, 3]", "expected 'c', 'd' or 'cd' inside the '['", offset: 6)
    }

    func testGeoWithin() {
        let p = { (lon: Double, lat: Double) in QueryGeoPoint(.value(lon), .value(lat)) }
        assertParses("location geoWithin geoBox([0.2, 0.2], [0.7, 0.7])",
                     .geoWithin(key("location"), .box(p(0.2, 0.2), p(0.7, 0.7))))
        assertParses("location GEOWITHIN geoBox([0.2, 0.2, 0.2], [1, -2, 3])",
                     .geoWithin(key("location"), .box(QueryGeoPoint(.value(0.2), .value(0.2), altitude: .value(0.2)),
                                                      QueryGeoPoint(.value(1), .value(-2), altitude: .value(3)))))
        assertParses("location GeoWithin GEOCIRCLE([$0, $1], $2)",
                     .geoWithin(key("location"), .circle(center: QueryGeoPoint(.argument(0), .argument(1)), radius: .argument(2))))
        assertParses("location geoWithin geoCircle([0.3, 0.3], 1e-05)",
                     .geoWithin(key("location"), .circle(center: p(0.3, 0.3), radius: .value(1e-05))))
        assertParses("location geoWithin geoPolygon({[0, 0], [1, 0], [1, 1], [0, 0]}, {[0.1, 0.1], [0.2, 0.1], [0.1, 0.1]})",
                     .geoWithin(key("location"), .polygon([[p(0, 0), p(1, 0), p(1, 1), p(0, 0)],
                                                          [p(0.1, 0.1), p(0.2, 0.1), p(0.1, 0.1)]])))
        assertParses("location GEOWITHIN $3", .geoWithin(key("location"), .argument(3)))
        assertParses("location GEOWITHIN %@", .geoWithin(key("location"), .argument(0)))
        assertParses("ANY partners.location GEOWITHIN $0", .geoWithin(.quantified(.any, key("partners", "location")), .argument(0)))
        assertFails("link geoWithin 5.0", "expected geoBox(...), geoPolygon(...), geoCircle(...) or an argument after GEOWITHIN", offset: 15)
        assertFails("location geoWithin geoSphere([0, 0], 1)", "after GEOWITHIN but found 'geoSphere'", offset: 19)
        assertFails("5 GEOWITHIN $0", "the left side of GEOWITHIN must be a key path", offset: 2)
        assertFails("location GEOWITHIN geoCircle([0, 0], 1e999)", "the coordinate '1e999' is not a finite number", offset: 37)
        assertFails("location GEOWITHIN geoPolygon({})", "expected a point [longitude, latitude] but found '}'", offset: 31)
        assertFails("location GEOWITHIN geoBox([0, 0, 0, 0], [1, 1])", "expected ']' to close the '[' at offset 26", offset: 34)
    }

    // MARK: Arithmetic

    func testArithmetic() {
        assertParses("2 * age > 60", cmp(arith(int(2), .multiply, key("age")), .greater, int(60)))
        assertParses("2 * age + 5 == 55", cmp(arith(arith(int(2), .multiply, key("age")), .add, int(5)), .equal, int(55)))
        assertParses("2 + age * 5 == 55", cmp(arith(int(2), .add, arith(key("age"), .multiply, int(5))), .equal, int(55)))
        assertParses("2 * (age - 5) == 70", cmp(arith(int(2), .multiply, arith(key("age"), .subtract, int(5))), .equal, int(70)))
        assertParses("a - b - c == 0", cmp(arith(arith(key("a"), .subtract, key("b")), .subtract, key("c")), .equal, int(0)))
        assertParses("a / b / c == 0", cmp(arith(arith(key("a"), .divide, key("b")), .divide, key("c")), .equal, int(0)))
        assertParses("age == (10 + 11)*2", cmp(key("age"), .equal, arith(arith(int(10), .add, int(11)), .multiply, int(2))))
        assertParses("age * $0 == $1", cmp(arith(key("age"), .multiply, .argument(0)), .equal, .argument(1)))
        assertParses("ALL {8, 10} / 2 >= ANY items.price",
                     cmp(arith(.quantified(.all, list(int(8), int(10))), .divide, int(2)), .greaterOrEqual,
                         .quantified(.any, key("items", "price"))))
        assertParses("items.@sum.price * 2 < SUBQUERY(items, $x, TRUEPREDICATE).@count",
                     cmp(arith(path(.property("items"), suffix: .aggregate(.sum, property: "price")), .multiply, int(2)), .less,
                         .subqueryCount(QuerySubquery(collection: ["items"], variable: "$x", predicate: .alwaysTrue))))
        // A parenthesized value may open a predicate.
        assertParses("(age + 1) * 2 == 10", cmp(arith(arith(key("age"), .add, int(1)), .multiply, int(2)), .equal, int(10)))
        assertParses("((age)) == 5", cmp(key("age"), .equal, int(5)))
        assertParses("((age + 1) * 2) == 10 AND (b) < 1",
                     .and(cmp(arith(arith(key("age"), .add, int(1)), .multiply, int(2)), .equal, int(10)), cmp(key("b"), .less, int(1))))
        assertParses("NOT (a) * 2 == 4", .not(cmp(arith(key("a"), .multiply, int(2)), .equal, int(4))))
        assertFails("(a + 1) AND b == 1", "expected a comparison operator but found 'AND'", offset: 8)
        assertFails("(a)", "expected a comparison operator but found end of input", offset: 3)
        assertFails("a == (b == 1)", "expected ')' to close the '(' at offset 5 but found '=='", offset: 8)
        assertFails("a + 1 BEGINSWITH 'x'", "arithmetic ('+') cannot be used with BEGINSWITH", offset: 6)
        assertFails("a CONTAINS b * 2", "arithmetic ('*') cannot be used with CONTAINS", offset: 11)
    }

    func testSignsAndUnaryMinus() {
        // A sign against a number is part of it (flex's longest match); a
        // minus before anything else negates it.
        assertParses("a - 5 == 0", cmp(arith(key("a"), .subtract, int(5)), .equal, int(0)))
        assertParses("a - -5 == 0", cmp(arith(key("a"), .subtract, int(-5)), .equal, int(0)))
        assertParses("a * -5 == 0", cmp(arith(key("a"), .multiply, int(-5)), .equal, int(0)))
        assertParses("a-5 == 0", eq("a-5", 0))
        assertParses("- 5 == a", cmp(int(-5), .equal, key("a")))
        assertParses("- inf == a", cmp(dbl(-.infinity), .equal, key("a")))
        assertParses("-age > -5", cmp(.negated(key("age")), .greater, int(-5)))
        assertParses("-(a + b) == 3", cmp(.negated(arith(key("a"), .add, key("b"))), .equal, int(3)))
        assertParses("-(5) == a", cmp(.negated(int(5)), .equal, key("a")))
        assertParses("- -5 == a", cmp(.negated(int(-5)), .equal, key("a")))
        assertParses("--a == 1", cmp(.negated(.negated(key("a"))), .equal, int(1)))
        assertParses("-a * b == 0", cmp(arith(.negated(key("a")), .multiply, key("b")), .equal, int(0)))
        assertParses("-$0 == a", cmp(.negated(.argument(0)), .equal, key("a")))
        assertFails("1-0 = 1", "expected a comparison operator but found '-0' (a sign written against a number is part of it: write '- 0' with a space", offset: 1)
        assertFails("a +5 == 1", "write '+ 5' with a space", offset: 2)
        assertFails("a -inf == 1", "write '- inf' with a space", offset: 2)
        assertFails("a == +b", "expected a number after '+' but found 'b'", offset: 6)
        assertFails("a == -", "expected a value after '-' but found end of input", offset: 6)
        assertFails("- = a", "expected a value after '-' but found '='", offset: 2)
    }

    // MARK: SUBQUERY

    func testSubquery() {
        let tom = cmp(path(.property("name"), start: .variable("$x")), .equal, str("Tom"))
        let subquery = QueryOperand.subqueryCount(QuerySubquery(collection: ["items"], variable: "$x", predicate: tom))
        assertParses("SUBQUERY(items, $x, $x.name == 'Tom').@count > 0", cmp(subquery, .greater, int(0)))
        assertParses("subquery(items, $x, $x.name == 'Tom').@size > 0", cmp(subquery, .greater, int(0)))
        assertParses("SUBQUERY(items, $x, $x == $0).@count > 0",
                     cmp(.subqueryCount(QuerySubquery(collection: ["items"], variable: "$x",
                                                      predicate: cmp(path(start: .variable("$x")), .equal, .argument(0)))),
                         .greater, int(0)))
        // Nested: the inner collection starts at the outer variable.
        let inner = QuerySubquery(collection: QueryKeyPath(start: .variable("$x"), [.property("allergens")]), variable: "$a",
                                  predicate: cmp(path(.property("name"), start: .variable("$a")), .contains, str("dairy"), .caseInsensitive))
        assertParses("SUBQUERY(items, $x, SUBQUERY($x.allergens, $a, $a.name CONTAINS[c] 'dairy').@count > 0).@count > 0",
                     cmp(.subqueryCount(QuerySubquery(collection: ["items"], variable: "$x",
                                                      predicate: cmp(.subqueryCount(inner), .greater, int(0)))),
                         .greater, int(0)))
        // A variable is only a variable inside its SUBQUERY; elsewhere `$x` is a name.
        assertParses("$x.name == 'a'", cmp(key("$x", "name"), .equal, str("a")))
        assertParses("SUBQUERY(@links.Person.items, $p, $p.age > 1).@count == 1",
                     cmp(.subqueryCount(QuerySubquery(collection: QueryKeyPath([.backlinks(className: "Person", property: "items")]),
                                                      variable: "$p", predicate: cmp(path(.property("age"), start: .variable("$p")), .greater, int(1)))),
                         .equal, int(1)))
        assertFails("SUBQUERY(items, $x, $x.name == 'Tom') > 0", "expected '.@count' after SUBQUERY(...) but found '>'", offset: 38)
        assertFails("SUBQUERY(items, $x, TRUEPREDICATE).@min > 0", "expected '@count' or '@size' after SUBQUERY(...).", offset: 35)
        assertFails("SUBQUERY(items, var, var.name == 'Tom').@count > 0", "a name starting with '$' (e.g. $x) but found 'var'", offset: 16)
        assertFails("SUBQUERY(items, $x, SUBQUERY($x.a, $x, $x.b == 1).@count > 0).@count > 0",
                    "the SUBQUERY variable '$x' is already in use by an enclosing SUBQUERY", offset: 35)
        assertFails("SUBQUERY(items.@count, $x, TRUEPREDICATE).@count > 0", "'@count' cannot be used in SUBQUERY", offset: 15)
    }

    // MARK: Objects and links

    func testObjectsByPrimaryKeyAndLinkLiterals() {
        assertParses("link == obj('Person', 'Adam')", cmp(key("link"), .equal, .object(className: "Person", primaryKey: str("Adam"))))
        assertParses("link == OBJ(\"class_Person\", -0x10)", cmp(key("link"), .equal, .object(className: "class_Person", primaryKey: int(-16))))
        assertParses("link == obj('P', oid(507f1f77bcf86cd799439011))",
                     cmp(key("link"), .equal, .object(className: "P", primaryKey: lit(.objectId([0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11])))))
        assertParses("link == obj('P', %@)", cmp(key("link"), .equal, .object(className: "P", primaryKey: .argument(0))))
        assertParses("link == O12", cmp(key("link"), .equal, lit(.objectKey(12))))
        assertParses("link == L3:14", cmp(key("link"), .equal, lit(.link(classKey: 3, objectKey: 14))))
        assertFails("link == obj(Person, 1)", "expected the class name as a string in obj(...)", offset: 12)
        assertFails("link == obj('Person', 1.5)", "expected a primary key (an integer, a string, oid(...), uuid(...) or an argument)", offset: 22)
        assertFails("x == O99999999999999999999", "the object key in 'O99999999999999999999' is too large", offset: 5)
        assertFails("x == L99999999999:1", "a key in 'L99999999999:1' is too large", offset: 5)
    }

    // MARK: Literals

    func testIntegers() {
        XCTAssertEqual(literal("0"), .int(0))
        XCTAssertEqual(literal("42"), .int(42))
        XCTAssertEqual(literal("007"), .int(7))
        XCTAssertEqual(literal("-42"), .int(-42))
        XCTAssertEqual(literal("+42"), .int(42))
        XCTAssertEqual(literal("- 42"), .int(-42))
        XCTAssertEqual(literal("-0"), .int(0))
        XCTAssertEqual(literal("0x1F"), .int(31))
        XCTAssertEqual(literal("0XfF"), .int(255))
        XCTAssertEqual(literal("-0x10"), .int(-16))
        XCTAssertEqual(literal("9223372036854775807"), .int(Int64.max))
        XCTAssertEqual(literal("-9223372036854775808"), .int(Int64.min))
        XCTAssertEqual(literal("- 9223372036854775808"), .int(Int64.min))
        XCTAssertEqual(literal("0x7fffffffffffffff"), .int(Int64.max))
        XCTAssertEqual(literal("-0x8000000000000000"), .int(Int64.min))
        // Whole numbers beyond 64 bits keep every digit.
        XCTAssertEqual(literal("9223372036854775808"), .decimal("9223372036854775808"))
        XCTAssertEqual(literal("-9223372036854775809"), .decimal("-9223372036854775809"))
        XCTAssertEqual(literal("123456789012345678901234567890"), .decimal("123456789012345678901234567890"))
        // ... unless a double holds them exactly as written.
        XCTAssertEqual(literal("10000000000000000000"), .double(1e19))
        assertFails("x == 0x8000000000000000", "does not fit in a 64-bit integer", offset: 5)
        assertFails("x == 0x1234567890abcdef12", "does not fit")
        assertFails("x == 0x", "expected hexadecimal digits after '0x'", offset: 5)
        assertFails("x == 0xg", "expected hexadecimal digits")
        assertFails("x == 12abc", "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query but found 'abc'", offset: 7)
        assertFails("x == 1.2.3", "found '.3'", offset: 8)
        assertFails("x == -", "expected a value after '-' but found end of input", offset: 6)
    }

    func testDoublesAndExactDecimals() {
        XCTAssertEqual(literal("1.5"), .double(1.5))
        XCTAssertEqual(literal("-2e3"), .double(-2000))
        XCTAssertEqual(literal(".5"), .double(0.5))
        XCTAssertEqual(literal("-.5"), .double(-0.5))
        XCTAssertEqual(literal("10."), .double(10))
        XCTAssertEqual(literal("10.e1"), .double(100))
        XCTAssertEqual(literal("1E+2"), .double(100))
        XCTAssertEqual(literal("1.5e-3"), .double(0.0015))
        XCTAssertEqual(literal("2e3"), .double(2000))
        XCTAssertEqual(literal("0.1"), .double(0.1))
        XCTAssertEqual(literal("+8.1E-8"), .double(8.1e-8))
        XCTAssertEqual(literal("0.10"), .double(0.1))
        XCTAssertEqual(literal("-0.0"), .double(-0.0))
        XCTAssertEqual(literal("5e-324"), .double(.leastNonzeroMagnitude))
        // What a double cannot hold as written keeps its text.
        XCTAssertEqual(literal("3.141592653589793238"), .decimal("3.141592653589793238"))
        XCTAssertEqual(literal("+3.141592653589793238"), .decimal("3.141592653589793238"))
        XCTAssertEqual(literal("- 3.141592653589793238"), .decimal("-3.141592653589793238"))
        XCTAssertEqual(literal("0.1000000000000000000001"), .decimal("0.1000000000000000000001"))
        XCTAssertEqual(literal("1e400"), .decimal("1e400"))
        XCTAssertEqual(literal("1e-400"), .decimal("1e-400"))
        XCTAssertEqual(literal("1.7976931348623159e308"), .decimal("1.7976931348623159e308"))
        assertFails("x == 1e", "malformed exponent", offset: 5)
        assertFails("x == 1e+", "malformed exponent")
        assertFails("x == 1.5F", "found 'F'", offset: 8)
    }

    func testFloatSuffixInfinityAndNaN() {
        XCTAssertEqual(literal("1.5f"), .float(1.5))
        XCTAssertEqual(literal("3f"), .float(3))
        XCTAssertEqual(literal("-2e3f"), .float(-2000))
        XCTAssertEqual(literal(".25f"), .float(0.25))
        XCTAssertEqual(literal("- 1.5f"), .float(-1.5))
        XCTAssertEqual(literal("1e-50f"), .float(0))
        assertFails("x == 1e39f", "the float literal '1e39f' is out of the range of a float", offset: 5)
        XCTAssertEqual(literal("inf"), .double(.infinity))
        XCTAssertEqual(literal("-Infinity"), .double(-.infinity))
        XCTAssertEqual(literal("+INF"), .double(.infinity))
        XCTAssertEqual(literal("-iNf"), .double(-.infinity))
        for nan in ["NaN", "-nan", "+NAN", "- nan"] {
            if case .double(let d)? = literal(nan) { XCTAssertTrue(d.isNaN, nan) } else { XCTFail(nan) }
        }
        // NaN literals are equal to each other in the tree.
        XCTAssertEqual(literal("nan"), literal("-nan"))
        XCTAssertNotEqual(QueryLiteral.double(.nan), .double(1))
    }

    func testStrings() {
        XCTAssertEqual(literal("'abc'"), .string("abc"))
        XCTAssertEqual(literal("\"abc\""), .string("abc"))
        XCTAssertEqual(literal("''"), .string(""))
        XCTAssertEqual(literal("\"it's\""), .string("it's"))
        XCTAssertEqual(literal("'say \"hi\"'"), .string("say \"hi\""))
        XCTAssertEqual(literal(#"'a\\b'"#), .string("a\\b"))
        XCTAssertEqual(literal(#"'it\'s'"#), .string("it's"))
        XCTAssertEqual(literal(#""\"q\"""#), .string("\"q\""))
        XCTAssertEqual(literal(#"'a\nb\tc\rd'"#), .string("a\nb\tc\rd"))
        XCTAssertEqual(literal(#"'\/\b\f\0'"#), .string("/\u{8}\u{C}\u{0}"))
        XCTAssertEqual(literal(#"'\u00e9\u00C9'"#), .string("éÉ"))
        XCTAssertEqual(literal(#"'\u4e2d'"#), .string("中"))
        XCTAssertEqual(literal(#"'\ud83d\ude00'"#), .string("😀"))
        XCTAssertEqual(literal(#"'\u01111'"#), .string("đ1"))
        XCTAssertEqual(literal("'naïve 😀'"), .string("naïve 😀"))
        XCTAssertEqual(literal("'line\nbreak'"), .string("line\nbreak"))
        XCTAssertEqual(literal("'AND OR ( ) == \\''"), .string("AND OR ( ) == '"))
    }

    func testStringErrors() {
        assertFails("name == 'abc", "unterminated string", offset: 8)
        assertFails("name == \"abc", "unterminated string", offset: 8)
        assertFails("name == 'abc\"", "unterminated string", offset: 8)
        assertFails("name == 'abc\\", "unterminated string", offset: 12)
        assertFails("name == 'abc\\'", "unterminated string", offset: 8)
        assertFails(#"name == 'a\qb'"#, "invalid escape '\\' followed by 'q' in a string", offset: 10)
        assertFails(#"name == '\u12'"#, "invalid \\u escape: expected 4 hexadecimal digits", offset: 9)
        assertFails(#"name == '\u12"#, "invalid \\u escape")
        assertFails(#"name == '\ud83d'"#, "high surrogate must be followed")
        assertFails(#"name == '\ud83d\u0041'"#, "expected a low surrogate")
        assertFails(#"name == '\ude00'"#, "unpaired low surrogate")
    }

    func testBoolAndNull() {
        // true/false only in all-lower or all-upper case (realm-core's lexer); null and nil in any case.
        for t in ["true", "TRUE"] { XCTAssertEqual(literal(t), .bool(true)) }
        for f in ["false", "FALSE"] { XCTAssertEqual(literal(f), .bool(false)) }
        for n in ["null", "NULL", "Null", "nil", "NIL", "Nil"] { XCTAssertEqual(literal(n), .null) }
        assertParses("x == True", cmp(key("x"), .equal, key("True")))
        assertParses("null == name", cmp(lit(.null), .equal, key("name")))
        assertParses("flag == true AND other != false",
                     .and(cmp(key("flag"), .equal, lit(.bool(true))), cmp(key("other"), .notEqual, lit(.bool(false)))))
    }

    func testTimestamps() {
        XCTAssertEqual(literal("T1512130073:505"), .timestamp(seconds: 1512130073, nanoseconds: 505))
        XCTAssertEqual(literal("T0:0"), .timestamp(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(literal("T-1:-1"), .timestamp(seconds: -1, nanoseconds: -1))
        XCTAssertEqual(literal("T0:-5"), .timestamp(seconds: 0, nanoseconds: -5))
        XCTAssertEqual(literal("T+5:+7"), .timestamp(seconds: 5, nanoseconds: 7))
        XCTAssertEqual(literal("T5:999999999"), .timestamp(seconds: 5, nanoseconds: 999_999_999))
        XCTAssertEqual(literal("1970-01-01@00:00:00"), .timestamp(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(literal("1970-1-1@0:0:0:0"), .timestamp(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(literal("2017-12-01@12:07:53"), .timestamp(seconds: 1512130073, nanoseconds: 0))
        XCTAssertEqual(literal("2017-12-01T12:07:53:505"), .timestamp(seconds: 1512130073, nanoseconds: 505))
        XCTAssertEqual(literal("2017-12-1@1:07:53"), .timestamp(seconds: 1512090473, nanoseconds: 0))
        XCTAssertEqual(literal("2000-02-29@00:00:00"), .timestamp(seconds: 951782400, nanoseconds: 0))
        XCTAssertEqual(literal("2038-01-19@03:14:08"), .timestamp(seconds: 2147483648, nanoseconds: 0))
        XCTAssertEqual(literal("1969-12-31@23:59:59"), .timestamp(seconds: -1, nanoseconds: 0))
        XCTAssertEqual(literal("1900-01-01@00:00:00"), .timestamp(seconds: -2208988800, nanoseconds: 0))
        // Before 1970 the nanoseconds take the sign of the seconds, as realm-core reads them.
        XCTAssertEqual(literal("1969-12-31@23:59:59:1"), .timestamp(seconds: -1, nanoseconds: -1))
        XCTAssertEqual(literal("1969-12-31T23:59:58:250000000"), .timestamp(seconds: -2, nanoseconds: -250_000_000))
        XCTAssertEqual(literal("1905-12-31@23:59:59:2020"), .timestamp(seconds: -2019686401, nanoseconds: -2020))
        // The T form names the property T399 where no ':' follows.
        assertParses("T399 == T399:0", cmp(key("T399"), .equal, lit(.timestamp(seconds: 399, nanoseconds: 0))))
        assertParses("d > T1:2 AND d < 2020-01-01@00:00:00",
                     .and(cmp(key("d"), .greater, lit(.timestamp(seconds: 1, nanoseconds: 2))),
                          cmp(key("d"), .less, lit(.timestamp(seconds: 1577836800, nanoseconds: 0)))))
        assertFails("d == T1:-1", "same sign", offset: 5)
        assertFails("d == T-1:1", "same sign")
        assertFails("d == T1:1000000000", "less than 1000000000")
        assertFails("d == T99999999999999999999:0", "seconds out of range")
        assertFails("d == T9223372036854775808:0", "seconds out of range")
        XCTAssertEqual(literal("T9223372036854775807:999999999"), .timestamp(seconds: .max, nanoseconds: 999_999_999))
        XCTAssertEqual(literal("T-9223372036854775808:-999999999"), .timestamp(seconds: .min, nanoseconds: -999_999_999))
        assertFails("d == T1:", "malformed timestamp: expected T<seconds>:<nanoseconds> but found 'T1:'", offset: 5)
        assertFails("d == 1969-12-31@23:59:59:-1", "the nanoseconds of a date are written without a sign", offset: 25)
        assertFails("d == 1970-1-1T0:0:0:-1", "written without a sign")
        assertFails("d > 1800-12-31@23:59:59", "dates before 1900 are not supported", offset: 4)
        assertFails("d > 1899-12-31T23:59:59:2020", "dates before 1900 are not supported")
        assertFails("d == 2017-13-01@00:00:00", "invalid month 13", offset: 5)
        assertFails("d == 2017-02-29@00:00:00", "invalid day 29")
        assertFails("d == 2017-04-31@00:00:00", "invalid day 31")
        assertFails("d == 2017-04-00@00:00:00", "invalid day 0")
        assertFails("d == 2017-04-01@24:00:00", "invalid time of day")
        assertFails("d == 2017-04-01@23:60:00", "invalid time of day")
        assertFails("d == 2017-04-01@23:00:00:1234567890", "less than 1000000000")
        assertFails("d == 2017-04-01@23:00:00x", "malformed date")
        assertFails("d == 1970-1-1@0:0", "malformed date: expected YYYY-MM-DD@HH:MM:SS[:NANOS] but found '1970-1-1@0:0'", offset: 5)
    }

    func testObjectIdAndUUID() {
        XCTAssertEqual(literal("oid(507f1f77bcf86cd799439011)"),
                       .objectId([0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11]))
        XCTAssertEqual(literal("oid( 507F1F77BCF86CD799439011 )"),
                       .objectId([0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11]))
        XCTAssertEqual(literal("uuid(137DECC8-B300-4954-A233-F89909F4FD89)"),
                       .uuid([0x13, 0x7d, 0xec, 0xc8, 0xb3, 0x00, 0x49, 0x54,
                              0xa2, 0x33, 0xf8, 0x99, 0x09, 0xf4, 0xfd, 0x89]))
        XCTAssertEqual(literal("uuid(00000000-0000-0000-0000-000000000000)"), .uuid([UInt8](repeating: 0, count: 16)))
        assertFails("x == oid(507f1f77bcf86cd79943901)", "malformed oid", offset: 32)
        assertFails("x == oid(507f1f77bcf86cd7994390111)", "expected ')'")
        assertFails("x == oid(zz)", "malformed oid(...)", offset: 9)
        assertFails("x == oid(507f1f77bcf86cd799439011", "expected ')' but found end of input")
        assertFails("x == uuid(137DECC8B3004954A233F89909F4FD89)", "malformed uuid(...)")
        assertFails("x == uuid(137DECC8-B300-4954-A233-F89909F4FD8)", "malformed uuid")
        assertFails("x == uuid()", "malformed uuid")
    }

    func testBinaryLiterals() {
        let abc = Array("abc".utf8)
        XCTAssertEqual(literal("bin('abc')"), .binary(abc))
        XCTAssertEqual(literal("binary(\"abc\")"), .binary(abc))
        XCTAssertEqual(literal("BIN ( 'abc' )"), .binary(abc))
        XCTAssertEqual(literal("bin(B64\"YWJj\")"), .binary(abc))
        XCTAssertEqual(literal("bin('\\u00e9\\0')"), .binary([0xC3, 0xA9, 0x00]))
        XCTAssertEqual(literal("bin('')"), .binary([]))
        XCTAssertEqual(literal("bin(B64\"+/+/\")"), .binary([0xfb, 0xff, 0xbf]))
        // B64"..." alone is a string, as in realm-core's grammar.
        XCTAssertEqual(literal("B64\"SGVsbG8=\""), .string("Hello"))
        XCTAssertEqual(literal("B64\"SGVsbG8\""), .string("Hello"))
        XCTAssertEqual(literal("B64'SGVsbG8h'"), .string("Hello!"))
        XCTAssertEqual(literal("B64\"SGk=\""), .string("Hi"))
        XCTAssertEqual(literal("B64\"SA==\""), .string("H"))
        XCTAssertEqual(literal("B64\"\""), .string(""))
        XCTAssertEqual(literal("B64\"w6k=\""), .string("é"))
        assertFails("x == B64\"+/+/\"", "B64\"...\" alone is a string, and these bytes are not UTF-8", offset: 5)
        assertFails("x == B64\"SGV*\"", "invalid base64 character '*'", offset: 12)
        assertFails("x == B64\"SGVsb\"", "invalid base64 length")
        assertFails("x == B64\"SA=x\"", "data after '=' padding")
        assertFails("x == B64\"S===\"", "invalid base64 length")
        assertFails("x == B64\"SGVsbG8=", "unterminated base64 string", offset: 5)
        assertFails("data == bin(1)", "expected a string or B64\"...\" inside bin(...)", offset: 12)
        assertFails("data == bin('a'", "expected ')' to close the '(' at offset 11", offset: 15)
        assertFails("data == bin(T1:2)", "expected a string or B64\"...\" inside bin(...)", offset: 12)
    }

    // MARK: Arguments

    func testArguments() {
        assertParses("a == $0", cmp(key("a"), .equal, .argument(0)))
        assertParses("$12 < a", cmp(.argument(12), .less, key("a")))
        assertParses("a == $007", cmp(key("a"), .equal, .argument(7)))
        assertParses("a == %@ AND b == %@ OR c BEGINSWITH %@",
                     .or(.and(cmp(key("a"), .equal, .argument(0)), cmp(key("b"), .equal, .argument(1))),
                         cmp(key("c"), .beginsWith, .argument(2))))
        assertParses("%@ == %@", cmp(.argument(0), .equal, .argument(1)))
        assertParses("a == $1 AND b == %@", .and(cmp(key("a"), .equal, .argument(1)), cmp(key("b"), .equal, .argument(0))))
        // Counting restarts for each parse.
        assertParses("a == %@", cmp(key("a"), .equal, .argument(0)))
        // NSPredicate's printf-style numbers take the next argument as %@ does,
        // and record how to convert it.
        assertQuery("a == %d AND b > %lf OR c == %@",
                    ParsedQuery(predicate: .or(.and(cmp(key("a"), .equal, .argument(0)), cmp(key("b"), .greater, .argument(1))),
                                               cmp(key("c"), .equal, .argument(2))),
                                argumentFormats: [ArgumentFormat(argument: 0, kind: .integer, specifier: "%d"),
                                                  ArgumentFormat(argument: 1, kind: .floatingPoint, specifier: "%lf")]))
        XCTAssertEqual(try QueryParser.parseQuery("a == %lld AND b > %.2f AND c == %@ AND d == %u").argumentFormats,
                       [ArgumentFormat(argument: 0, kind: .integer, specifier: "%lld"), ArgumentFormat(argument: 1, kind: .floatingPoint, specifier: "%.2f"),
                        ArgumentFormat(argument: 3, kind: .integer, specifier: "%u")])
        XCTAssertEqual(try QueryParser.parseQuery("a == '%d' AND b == %@").argumentFormats, [], "quoted, a specifier is text")
        assertFails("a == %y", "a format specifier is %@, %K, or a number", offset: 5)
        assertFails("a == %s", "format specifier '%s' is not supported in a predicate", offset: 5)
        assertFails("a %% 2 == 0", "'%%' (a literal percent) has no meaning outside a quoted string", offset: 2)
        assertFails("a == $99999999999", "argument number '$99999999999' is too large", offset: 5)
    }

    // MARK: Stages

    func testOrderingStages() {
        let key = { (names: [String], ascending: Bool) in
            QuerySortKey(keyPath: QueryKeyPath(properties: names), ascending: ascending)
        }
        assertQuery("age > 5 SORT(age ASC, owner.name DESC) DISTINCT(name, a.b) LIMIT(2) SORT(name ascending)",
                    ParsedQuery(predicate: cmp(self.key("age"), .greater, int(5)),
                                ordering: [.sort([key(["age"], true), key(["owner", "name"], false)]),
                                           .distinct([["name"], ["a", "b"]]), .limit(2), .sort([key(["name"], true)])]))
        for (word, ascending) in [("ASC", true), ("asc", true), ("Ascending", true), ("DESC", false), ("descending", false)] {
            assertQuery("TRUEPREDICATE sort(x \(word))",
                        ParsedQuery(predicate: .alwaysTrue, ordering: [.sort([key(["x"], ascending)])]))
        }
        assertQuery("TRUEPREDICATE SORT(meta['age'] ASC, list[FIRST] DESC)",
                    ParsedQuery(predicate: .alwaysTrue, ordering: [
                        .sort([QuerySortKey(keyPath: QueryKeyPath([.property("meta"), .key("age")]), ascending: true),
                               QuerySortKey(keyPath: QueryKeyPath([.property("list"), .first]), ascending: false)])]))
        assertQuery("TRUEPREDICATE DISTINCT($K0, %K) LIMIT(0)",
                    ParsedQuery(predicate: .alwaysTrue, ordering: [
                        .distinct([QueryKeyPath(start: .argument(0), []), QueryKeyPath(start: .argument(0), [])]), .limit(0)]))
        assertQuery("a == 1 OR b == 2 LIMIT(3)", ParsedQuery(predicate: .or(eq("a", 1), eq("b", 2)), ordering: [.limit(3)]))
        assertFails("SORT(p ASCENDING)", "SORT needs a predicate before it (write TRUEPREDICATE SORT(...)", offset: 0)
        assertFails("a=b SORT(p)", "expected ASC or DESC after the key path in SORT but found ')'", offset: 10)
        assertFails("a=b LIMIT(-1)", "expected a whole number (0 or more, in decimal) in LIMIT but found '-1'", offset: 10)
        assertFails("TRUEPREDICATE SORT(a.@count ASC)", "'@count' cannot be used in SORT", offset: 21)
        assertFails("a == 1 SORT(a ASC) AND b == 2", "expected SORT, DISTINCT, LIMIT or the end of the query but found 'AND'", offset: 19)
        // The predicate-only entry refuses stages.
        XCTAssertThrowsError(try QueryParser.parse("a == 1 SORT(a ASC)") as QueryExpression) { error in
            XCTAssertTrue((error as? QueryParseError)?.message.contains("SORT is not accepted here") ?? false, "\(error)")
        }
        XCTAssertEqual(try QueryParser.parse("a == 1") as QueryExpression, eq("a", 1))
    }

    // MARK: Errors

    func testErrorsSayWhatWasExpectedWhereAndShowTheText() throws {
        let error = try XCTUnwrap(assertFails("age == ", "expected a value after '==' but found end of input at offset 7"))
        XCTAssertEqual(error.message, "expected a value after '==' but found end of input at offset 7 (near 'age ==')")
        XCTAssertEqual(error.offset, 7)
        let long = try XCTUnwrap(assertFails("name == 'a' AND age >= 18 AND color ~ 'red' AND size == 3", "unexpected character '~'", offset: 36))
        XCTAssertEqual(long.message, "unexpected character '~' at offset 36 (near '…age >= 18 AND color ~ 'red' AND size ==…')")
        // Line breaks and tabs show as spaces in the excerpt.
        let multiline = try XCTUnwrap(assertFails("a == 1 AND\n\tb ==", "expected a value after '=='", offset: 16))
        XCTAssertTrue(multiline.message.hasSuffix("(near 'a == 1 AND  b ==')"), multiline.message)
        // An empty text has no excerpt.
        XCTAssertEqual(try XCTUnwrap(assertFails("", "expected a predicate")).message, "expected a predicate but found end of input at offset 0")
    }

    func testEmptyAndGarbage() {
        assertFails("", "expected a predicate but found end of input", offset: 0)
        assertFails("   \n\t", "expected a predicate but found end of input", offset: 5)
        assertFails("#", "unexpected character '#'", offset: 0)
        assertFails("a == 1 #", "unexpected character '#'", offset: 7)
        assertFails("a == 1 1", "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query but found '1'", offset: 7)
        assertFails("a == 1 b == 2", "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query but found 'b'", offset: 7)
        assertFails("a == \u{1}", "unexpected character byte 0x01", offset: 5)
        assertFails("a\0 == 1", "unexpected character byte 0x00", offset: 1)
        assertFails("a & b", "did you mean '&&'", offset: 2)
        assertFails("a | b", "did you mean '||'", offset: 2)
        assertFails("a == 1 AND", "expected a predicate but found end of input", offset: 10)
        assertFails("a\\x == 1", "invalid escape", offset: 1)
        assertFails("a\\", "unfinished escape", offset: 1)
        assertFails(String(repeating: "x", count: 100) + " foo 1", "expected a comparison operator but found 'foo'", offset: 101)
    }

    func testMissingOperand() {
        assertFails("a ==", "expected a value after '==' but found end of input", offset: 4)
        assertFails("a BEGINSWITH", "expected a value after 'BEGINSWITH' but found end of input", offset: 12)
        assertFails("== 1", "expected a predicate but found '=='", offset: 0)
        assertFails("a == AND b == 1", "expected a value after '==' but found 'AND'", offset: 5)
        assertFails("a == 1 AND OR b == 1", "found 'OR'", offset: 11)
        assertFails("NOT", "expected a predicate but found end of input", offset: 3)
        assertFails("a == )", "found ')'", offset: 5)
        assertFails("a", "expected a comparison operator but found end of input", offset: 1)
        assertFails("a AND b == 1", "expected a comparison operator but found 'AND'", offset: 2)
        assertFails("a b", "expected a comparison operator but found 'b'", offset: 2)
    }

    func testUnknownOperator() {
        assertFails("a ~ 1", "unexpected character '~'", offset: 2)
        assertFails("a === 1", "found '='", offset: 4)
        assertFails("a MATCHES 'x'", "expected a comparison operator but found 'MATCHES'", offset: 2)
        assertFails("a ! 1", "expected a comparison operator but found '!'", offset: 2)
        assertFails("a =! 1", "found '!'")
        assertFails("a <=> 1", "found '>'")
    }

    func testUnbalancedParentheses() {
        assertFails("(a == 1", "expected ')' to close the '(' at offset 0 but found end of input", offset: 7)
        assertFails("((a == 1)", "expected ')' to close the '(' at offset 0", offset: 9)
        assertFails("a == 1)", "unbalanced ')'", offset: 6)
        assertFails("(a == 1))", "unbalanced ')'", offset: 8)
        assertFails("()", "found ')'", offset: 1)
        assertFails(")", "found ')'", offset: 0)
        assertFails("(a == 1 b == 2)", "expected ')' to close the '(' at offset 0 but found 'b'", offset: 8)
    }

    func testNestingLimits() {
        let depth = QueryParser.maxNesting
        let ok = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        assertParses(ok, eq("a", 1))
        let notOk = String(repeating: "!", count: depth) + "a == 1"
        XCTAssertNoThrow(try QueryParser.parseQuery(notOk))
        assertFails(String(repeating: "(", count: depth + 1) + "a == 1" + String(repeating: ")", count: depth + 1),
                    "nested too deeply", offset: depth)
        assertFails(String(repeating: "(", count: 100_000), "nested too deeply")
        assertFails(String(repeating: "!", count: 100_000) + "a == 1", "nested too deeply")
        assertFails(String(repeating: "NOT ", count: 100_000) + "a == 1", "nested too deeply")
        // Values nest under the same limit: parentheses, unary minus, SUBQUERY.
        XCTAssertNoThrow(try QueryParser.parseQuery("a == " + String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)))
        assertFails("a == " + String(repeating: "(", count: 100_000) + "1", "nested too deeply")
        assertFails("a == " + String(repeating: "-", count: 100_000) + "b", "nested too deeply")
        assertFails("a == " + String(repeating: "-(", count: 100_000) + "b", "nested too deeply")
        let subqueries = (0...depth).map { "SUBQUERY(a, $x\($0), " }.joined()
        assertFails(subqueries, "nested too deeply")
        // Long chains are fine up to the height limit, then an error (not a crash).
        let chain = (0..<QueryParser.maxHeight - 1).map { _ in "a == 1" }.joined(separator: " OR ")
        XCTAssertNoThrow(try QueryParser.parseQuery(chain))
        let long = (0..<100_000).map { _ in "a == 1" }.joined(separator: " AND ")
        assertFails(long, "too complex")
        let mixed = (0..<50_000).map { _ in "(a == 1 OR b == 2)" }.joined(separator: " AND ")
        assertFails(mixed, "too complex")
        let sum = "a == " + (0..<100_000).map { _ in "1" }.joined(separator: " + ")
        assertFails(sum, "too complex")
        let product = (0..<100_000).map { _ in "b" }.joined(separator: " * ") + " == 1"
        assertFails(product, "too complex")
        // Parentheses and SUBQUERY count the height of what they hold.
        let ones = (0..<600).map { _ in "1" }.joined(separator: " + ")
        XCTAssertNoThrow(try QueryParser.parseQuery("a == (\(ones))"))
        assertFails("a == (\(ones))" + String(repeating: " + 1", count: 600), "too complex")
        let ors = (0..<600).map { _ in "b == 1" }.joined(separator: " OR ")
        XCTAssertNoThrow(try QueryParser.parseQuery("SUBQUERY(a, $x, \(ors)).@count > 0"))
        assertFails("SUBQUERY(a, $x, \(ors)).@count > 0 OR " + ors, "too complex")
    }

    func testErrorMessagesTruncateLongTokens() {
        let name = String(repeating: "é", count: 100)
        let error = assertFails("a == 1 \(name)", "expected AND, OR")
        XCTAssertNotNil(error)
        XCTAssertLessThan(error?.message.utf8.count ?? 0, 250)
        XCTAssertFalse(error?.message.contains("\u{FFFD}") ?? true)
    }

    // MARK: Fuzz

    private func checkNoCrash(_ text: String) {
        do {
            _ = try QueryParser.parseQuery(text)
        } catch {
            XCTAssertGreaterThanOrEqual(error.offset, 0, text)
            XCTAssertLessThanOrEqual(error.offset, text.utf8.count, text)
            XCTAssertFalse(error.message.isEmpty, text)
            // Messages quote the text; they add no replacement characters of their own.
            if !text.contains("\u{FFFD}") { XCTAssertFalse(error.message.contains("\u{FFFD}"), text) }
        }
    }

    func testFuzzNeverCrashes() {
        var random = SeededRandom(seed: 0xF1EF)
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(max(n, 1))) }
        let alphabet: [[UInt8]] = Array("abcxyzTLOB64oiduNOTAND0123456789._$%@K'\"\\()[]{}!=<>&|+-*/,:#~ \t\nexf".utf8).map { [$0] }
            + ["é", "😀", "ANY ", "@links", "@count", ".@sum", "SUBQUERY(", "[FIRST]", "{1, 2}", "geoBox(", "$x", "$K0", "bin(", "obj('C', "]
                .map { Array($0.utf8) }
            + [[0xFF], [0xC3], [0x00]]
        let seeds = [
            "a == 1", "name BEGINSWITH[c] 'x' AND age >= 18", "NOT (a != $0 OR b < %@)",
            "dog.name CONTAINS[cd] \"r\\u00e9x\"", "TRUEPREDICATE", "d > T1:2 || d < 2020-01-01@00:00:00:5",
            "o == oid(507f1f77bcf86cd799439011) && u == uuid(137DECC8-B300-4954-A233-F89909F4FD89)",
            "b == B64\"SGVsbG8=\" AND x == -0x1F AND y == .5e-3", "a LIKE 'a*?' OR !(b =< 2.5)",
            "x == null OR y == nil OR z == TRUE OR w == inf", "float\\ fees > 1 AND $1 <> a.b.c",
            "SUBQUERY(items, $x, $x.price > 5 AND ANY $x.tags IN {'a', 'b'}).@count > 1",
            "(age + 1) * -2 >= ALL {8, 10} / 2 SORT(name ASC) DISTINCT(a.b) LIMIT(3)",
            "@links.Person.dogs.@count > 1 AND list[FIRST] == 1 AND dict['k'].@type == 'int'",
            "location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 0]}) OR x BETWEEN {1, 2}",
            "link == obj('Person', 'Adam') AND data == bin('x') AND d == 3.141592653589793238 AND f == 1.5f",
            "%K == %@ AND $K1.@sum.price > 5 AND -age < 3 AND items.@avg.price < 2",
        ]
        var parsedCount = 0
        // Random byte strings.
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<below(40) { bytes += alphabet[below(alphabet.count)] }
            checkNoCrash(String(decoding: bytes, as: UTF8.self))
        }
        // Random mutations of valid queries; those that still parse also
        // print as text that parses back to the same tree.
        for seed in seeds { XCTAssertNoThrow(try QueryParser.parseQuery(seed), seed) }
        for _ in 0..<6000 {
            var bytes = Array(seeds[below(seeds.count)].utf8)
            for _ in 0..<(1 + below(4)) {
                let position = below(bytes.count + 1)
                switch below(5) {
                case 0: bytes.insert(contentsOf: alphabet[below(alphabet.count)], at: position)
                case 1: if position < bytes.count { bytes.remove(at: position) }
                case 2: if position < bytes.count { bytes[position] = alphabet[below(alphabet.count)][0] }
                case 3: bytes = Array(bytes[..<position])
                default:
                    // Splice in a piece of another seed.
                    let other = Array(seeds[below(seeds.count)].utf8)
                    let from = below(other.count)
                    let to = min(other.count, from + below(12))
                    bytes.insert(contentsOf: other[from..<to], at: position)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            checkNoCrash(text)
            if let parsed = try? QueryParser.parseQuery(text) {
                parsedCount += 1
                do {
                    let canonical = try QuerySerializer.text(parsed)
                    // The canonical text writes every argument as `$n`: a printf-style
                    // format (%d) is applied to its argument before anything is printed.
                    let reparsed = try QueryParser.parseQuery(canonical)
                    XCTAssertEqual(reparsed.predicate, parsed.predicate, "\(text) -> \(canonical)")
                    XCTAssertEqual(reparsed.ordering, parsed.ordering, "\(text) -> \(canonical)")
                } catch {
                    XCTFail("\(text) parsed but does not print: \(error)")
                }
            }
        }
        // Some mutations stay valid: the loop exercised the success paths too.
        XCTAssertGreaterThan(parsedCount, 300)
    }
}
