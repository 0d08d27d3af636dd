import XCTest
@testable import FiefEngine

final class QueryParserTests: XCTestCase {

    // MARK: Helpers

    private func key(_ components: String...) -> QueryOperand { .keyPath(components) }
    private func lit(_ literal: QueryLiteral) -> QueryOperand { .constant(literal) }
    private func int(_ v: Int64) -> QueryOperand { .constant(.int(v)) }
    private func str(_ s: String) -> QueryOperand { .constant(.string(s)) }
    private func cmp(_ l: QueryOperand, _ op: QueryOperator, _ r: QueryOperand,
                     _ options: QueryStringOptions = []) -> QueryExpression {
        .comparison(l, op, r, options)
    }
    /// `name == value` for property `name`.
    private func eq(_ name: String, _ value: Int64) -> QueryExpression {
        cmp(key(name), .equal, int(value))
    }

    private func assertParses(_ text: String, _ expected: QueryExpression,
                              file: StaticString = #filePath, line: UInt = #line) {
        do {
            let parsed = try QueryParser.parse(text)
            XCTAssertEqual(parsed, expected, "parsing \(text)", file: file, line: line)
        } catch {
            XCTFail("\(text) failed to parse: \(error.message)", file: file, line: line)
        }
    }

    /// The literal on the right of `x == <literal text>`.
    private func literal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> QueryLiteral? {
        do {
            let parsed = try QueryParser.parse("x == " + text)
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

    @discardableResult
    private func assertFails(_ text: String, _ fragment: String, offset: Int? = nil,
                             file: StaticString = #filePath, line: UInt = #line) -> QueryParseError? {
        do {
            let parsed = try QueryParser.parse(text)
            XCTFail("\(text) parsed as \(parsed) but should fail", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error.message.contains(fragment),
                          "message for \(text) is \"\(error.message)\"; expected it to contain \"\(fragment)\"",
                          file: file, line: line)
            if let offset {
                XCTAssertEqual(error.offset, offset, "offset for \(text) (\(error.message))", file: file, line: line)
            }
            XCTAssertTrue(error.message.hasSuffix("at offset \(error.offset)"), error.message, file: file, line: line)
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
    }

    func testOptionsOnEquality() {
        assertParses("name ==[c] 'x'", cmp(key("name"), .equal, str("x"), .caseInsensitive))
        assertParses("name =[c] 'x'", cmp(key("name"), .equal, str("x"), .caseInsensitive))
        assertParses("name !=[cd] 'x'", cmp(key("name"), .notEqual, str("x"), [.caseInsensitive, .diacriticInsensitive]))
        assertParses("name <>[d] 'x'", cmp(key("name"), .notEqual, str("x"), .diacriticInsensitive))
        assertFails("name <[c] 'x'", "only allowed after", offset: 6)
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
    }

    // MARK: Key paths

    func testKeyPaths() {
        assertParses("dog.name == 'Rex'", cmp(key("dog", "name"), .equal, str("Rex")))
        assertParses("a.b.c.d == 1", cmp(key("a", "b", "c", "d"), .equal, int(1)))
        assertParses("a . b == 1", cmp(key("a", "b"), .equal, int(1)))
        assertParses("_x1$y == 1", eq("_x1$y", 1))
        assertParses("prénom == 'é'", cmp(key("prénom"), .equal, str("é")))
        assertParses("名前 == 1", eq("名前", 1))
        assertParses("a == b.c", cmp(key("a"), .equal, key("b", "c")))
        assertParses("5 < age", cmp(int(5), .less, key("age")))
        assertParses("float\\ fees > 1", cmp(key("float fees"), .greater, int(1)))
        assertParses("a\\tb\\nc\\rd == 1", eq("a\tb\nc\rd", 1))
        // A name with an escape is never a keyword.
        assertParses("\\ and == 1", eq(" and", 1))
        // Realm lets operator and suffix words be property names.
        assertParses("contains CONTAINS 'x'", cmp(key("contains"), .contains, str("x")))
        assertParses("like LIKE like", cmp(key("like"), .like, key("like")))
        assertParses("sort == 1 AND limit == 2 AND in == 3 AND between == 4",
                     .and(.and(.and(eq("sort", 1), eq("limit", 2)), eq("in", 3)), eq("between", 4)))
        assertParses("a.beginswith == 1", cmp(key("a", "beginswith"), .equal, int(1)))
        // NOT, ANY, ALL, NONE, IN are keywords only in all-lower or all-upper case.
        assertParses("Not == 1", eq("Not", 1))
        assertParses("NOT0 == 0", eq("NOT0", 0))
        assertParses("Any == 1", eq("Any", 1))
        assertParses("oid == 1", eq("oid", 1))
        assertParses("uuid == 1", eq("uuid", 1))
        assertParses("B64 == 1", eq("B64", 1))
        assertParses("T == 1", eq("T", 1))
        assertParses("T1 == 1", eq("T1", 1))
    }

    func testReservedWordsAreNotPropertyNames() {
        assertFails("and == 1", "expected a key path, literal or argument but found 'and'", offset: 0)
        assertFails("a == OR", "expected a key path, literal or argument after the operator but found 'OR'", offset: 5)
        assertFails("dog.and == 1", "the keyword 'and' cannot be used as a property name", offset: 4)
        assertFails("dog.null == 1", "cannot be used as a property name", offset: 4)
        assertFails("dog.TRUEPREDICATE == 1", "cannot be used as a property name")
        assertFails("a == b.not", "cannot be used as a property name", offset: 7)
        assertFails("dog. == 1", "expected a property name after '.' but found '=='", offset: 5)
        assertFails("dog.1 == 1", "expected a property name after '.' but found '1'", offset: 4)
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
        XCTAssertEqual(literal("0x7fffffffffffffff"), .int(Int64.max))
        XCTAssertEqual(literal("-0x8000000000000000"), .int(Int64.min))
        // Out-of-range decimal integers become doubles.
        XCTAssertEqual(literal("9223372036854775808"), .double(9223372036854775808.0))
        XCTAssertEqual(literal("-9223372036854775809"), .double(-9223372036854775809.0))
        XCTAssertEqual(literal("123456789012345678901234567890"), .double(123456789012345678901234567890.0))
        assertFails("x == 0x8000000000000000", "does not fit in a 64-bit integer", offset: 5)
        assertFails("x == 0x1234567890abcdef12", "does not fit")
        assertFails("x == 0x", "expected hexadecimal digits after '0x'", offset: 5)
        assertFails("x == 0xg", "expected hexadecimal digits")
        assertFails("x == 12abc", "unexpected 'a' after the number '12'", offset: 7)
        assertFails("x == 1.2.3", "unexpected '.' after the number '1.2'", offset: 8)
        assertFails("x == -", "expected a number after '-' but found end of input", offset: 6)
        assertFails("x == -'a'", "expected a number after '-'")
        assertFails("x == -y", "expected a number after '-'")
    }

    func testDoubles() {
        XCTAssertEqual(literal("1.5"), .double(1.5))
        XCTAssertEqual(literal("-2e3"), .double(-2000))
        XCTAssertEqual(literal(".5"), .double(0.5))
        XCTAssertEqual(literal("-.5"), .double(-0.5))
        XCTAssertEqual(literal("10."), .double(10))
        XCTAssertEqual(literal("1E+2"), .double(100))
        XCTAssertEqual(literal("1.5e-3"), .double(0.0015))
        XCTAssertEqual(literal("2e3"), .double(2000))
        XCTAssertEqual(literal("0.1"), .double(0.1))
        XCTAssertEqual(literal("1e400"), .double(.infinity))
        XCTAssertEqual(literal("inf"), .double(.infinity))
        XCTAssertEqual(literal("-Infinity"), .double(-.infinity))
        XCTAssertEqual(literal("+INF"), .double(.infinity))
        if case .double(let d)? = literal("NaN") { XCTAssertTrue(d.isNaN) } else { XCTFail("nan") }
        if case .double(let d)? = literal("-nan") { XCTAssertTrue(d.isNaN) } else { XCTFail("-nan") }
        assertFails("x == 1e", "malformed exponent", offset: 5)
        assertFails("x == 1e+", "malformed exponent")
        assertFails("x == 1.5f", "unexpected 'f' after the number")
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
        for t in ["true", "TRUE", "True"] { XCTAssertEqual(literal(t), .bool(true)) }
        for f in ["false", "FALSE", "False"] { XCTAssertEqual(literal(f), .bool(false)) }
        for n in ["null", "NULL", "Null", "nil", "NIL", "Nil"] { XCTAssertEqual(literal(n), .null) }
        assertParses("null == name", cmp(lit(.null), .equal, key("name")))
        assertParses("flag == true AND other != false",
                     .and(cmp(key("flag"), .equal, lit(.bool(true))), cmp(key("other"), .notEqual, lit(.bool(false)))))
    }

    func testTimestamps() {
        XCTAssertEqual(literal("T1512130073:505"), .timestamp(seconds: 1512130073, nanoseconds: 505))
        XCTAssertEqual(literal("T0:0"), .timestamp(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(literal("T-1:-1"), .timestamp(seconds: -1, nanoseconds: -1))
        XCTAssertEqual(literal("T0:-5"), .timestamp(seconds: 0, nanoseconds: -5))
        XCTAssertEqual(literal("T5:999999999"), .timestamp(seconds: 5, nanoseconds: 999_999_999))
        XCTAssertEqual(literal("1970-01-01@00:00:00"), .timestamp(seconds: 0, nanoseconds: 0))
        XCTAssertEqual(literal("2017-12-01@12:07:53"), .timestamp(seconds: 1512130073, nanoseconds: 0))
        XCTAssertEqual(literal("2017-12-01T12:07:53:505"), .timestamp(seconds: 1512130073, nanoseconds: 505))
        XCTAssertEqual(literal("2017-12-1@1:07:53"), .timestamp(seconds: 1512090473, nanoseconds: 0))
        XCTAssertEqual(literal("2000-02-29@00:00:00"), .timestamp(seconds: 951782400, nanoseconds: 0))
        XCTAssertEqual(literal("2038-01-19@03:14:08"), .timestamp(seconds: 2147483648, nanoseconds: 0))
        XCTAssertEqual(literal("1969-12-31@23:59:59"), .timestamp(seconds: -1, nanoseconds: 0))
        XCTAssertEqual(literal("1900-01-01@00:00:00"), .timestamp(seconds: -2208988800, nanoseconds: 0))
        // Before 1970 with nanoseconds: the same instant with both parts negative.
        XCTAssertEqual(literal("1969-12-31@23:59:59:500000000"), .timestamp(seconds: 0, nanoseconds: -500_000_000))
        XCTAssertEqual(literal("1969-12-31@23:59:58:250000000"), .timestamp(seconds: -1, nanoseconds: -750_000_000))
        assertParses("d > T1:2 AND d < 2020-01-01@00:00:00",
                     .and(cmp(key("d"), .greater, lit(.timestamp(seconds: 1, nanoseconds: 2))),
                          cmp(key("d"), .less, lit(.timestamp(seconds: 1577836800, nanoseconds: 0)))))
        assertFails("d == T1:-1", "same sign", offset: 5)
        assertFails("d == T-1:1", "same sign")
        assertFails("d == T1:1000000000", "less than 1000000000")
        assertFails("d == T99999999999999999999:0", "seconds out of range")
        assertFails("d == 2017-13-01@00:00:00", "invalid month 13", offset: 5)
        assertFails("d == 2017-02-29@00:00:00", "invalid day 29")
        assertFails("d == 2017-04-31@00:00:00", "invalid day 31")
        assertFails("d == 2017-04-00@00:00:00", "invalid day 0")
        assertFails("d == 2017-04-01@24:00:00", "invalid time of day")
        assertFails("d == 2017-04-01@23:60:00", "invalid time of day")
        assertFails("d == 2017-04-01@23:00:00:1234567890", "less than 1000000000")
        assertFails("d == 2017-04-01@23:00:00x", "malformed date")
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

    func testBase64() {
        XCTAssertEqual(literal("B64\"SGVsbG8=\""), .binary(Array("Hello".utf8)))
        XCTAssertEqual(literal("B64\"SGVsbG8\""), .binary(Array("Hello".utf8)))
        XCTAssertEqual(literal("B64'SGVsbG8h'"), .binary(Array("Hello!".utf8)))
        XCTAssertEqual(literal("B64\"SGk=\""), .binary(Array("Hi".utf8)))
        XCTAssertEqual(literal("B64\"SA==\""), .binary(Array("H".utf8)))
        XCTAssertEqual(literal("B64\"\""), .binary([]))
        XCTAssertEqual(literal("B64\"+/+/\""), .binary([0xfb, 0xff, 0xbf]))
        assertFails("x == B64\"SGV*\"", "invalid base64 character '*'", offset: 12)
        assertFails("x == B64\"SGVsb\"", "invalid base64 length")
        assertFails("x == B64\"SA=x\"", "data after '=' padding")
        assertFails("x == B64\"S===\"", "invalid base64 length")
        assertFails("x == B64\"SGVsbG8=", "unterminated base64 string", offset: 5)
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
        assertFails("a == %K", "%K is not supported", offset: 5)
        assertFails("%K == 1", "%K is not supported", offset: 0)
        assertFails("a == %d", "only '%@' is supported", offset: 5)
        assertFails("a == $", "expected an argument number after '$' but found end of input", offset: 5)
        assertFails("a == $x", "is not supported yet", offset: 5)
        assertFails("a == $0x", "unexpected 'x' after the argument '$0'", offset: 7)
        assertFails("a == $99999999999999999999", "too large", offset: 5)
    }

    // MARK: Errors

    func testEmptyAndGarbage() {
        assertFails("", "expected a predicate but found end of input", offset: 0)
        assertFails("   \n\t", "expected a predicate but found end of input", offset: 5)
        assertFails("#", "unexpected character '#'", offset: 0)
        assertFails("a == 1 #", "unexpected character '#'", offset: 7)
        assertFails("a == 1 1", "expected AND, OR or the end of the predicate but found '1'", offset: 7)
        assertFails("a == 1 b == 2", "expected AND, OR or the end of the predicate but found 'b'", offset: 7)
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
        assertFails("a ==", "expected a key path, literal or argument after the operator but found end of input", offset: 4)
        assertFails("== 1", "expected a key path, literal or argument but found '=='", offset: 0)
        assertFails("a == AND b == 1", "after the operator but found 'AND'", offset: 5)
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

    func testUnsupportedConstructsAreReportedClearly() {
        assertFails("a IN {1, 2}", "IN is not supported yet", offset: 2)
        assertFails("a in $0", "IN is not supported yet")
        assertFails("a BETWEEN {1, 2}", "BETWEEN is not supported yet")
        assertFails("a TEXT 'x'", "TEXT is not supported yet")
        assertFails("ANY dogs.age > 1", "quantifier 'ANY' is not supported yet", offset: 0)
        assertFails("some dogs.age > 1", "quantifier 'some' is not supported yet")
        assertFails("ALL dogs.age > 1", "not supported yet")
        assertFails("NONE dogs.age > 1", "not supported yet")
        assertFails("SUBQUERY(dogs, $d, $d.age > 1).@count > 0", "SUBQUERY is not supported yet")
        assertFails("dogs.@count > 1", "'@count' is not supported yet", offset: 5)
        assertFails("@links.Person.dogs.@count > 1", "'@links' is not supported yet", offset: 0)
        assertFails("a == {1, 2}", "list literal", offset: 5)
        assertFails("a == @", "unexpected character '@'", offset: 5)
        assertFails("TRUEPREDICATE SORT(a ASC)", "SORT is not supported yet", offset: 14)
        assertFails("a == 1 DISTINCT(a)", "DISTINCT is not supported yet")
        assertFails("a == 1 LIMIT(5)", "LIMIT is not supported yet")
        assertFails("a + 1 == 2", "arithmetic ('+') is not supported yet", offset: 2)
        assertFails("a * 2 == 2", "arithmetic ('*')")
        assertFails("list[0] == 2", "indexing", offset: 4)
    }

    func testNestingLimits() {
        let depth = QueryParser.maxNesting
        let ok = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        assertParses(ok, eq("a", 1))
        let notOk = String(repeating: "!", count: depth) + "a == 1"
        XCTAssertNoThrow(try QueryParser.parse(notOk))
        assertFails(String(repeating: "(", count: depth + 1) + "a == 1" + String(repeating: ")", count: depth + 1),
                    "nested too deeply", offset: depth)
        assertFails(String(repeating: "(", count: 100_000), "nested too deeply")
        assertFails(String(repeating: "!", count: 100_000) + "a == 1", "nested too deeply")
        assertFails(String(repeating: "NOT ", count: 100_000) + "a == 1", "nested too deeply")
        // Long chains are fine up to the height limit, then an error (not a crash).
        let chain = (0..<QueryParser.maxHeight - 1).map { _ in "a == 1" }.joined(separator: " OR ")
        XCTAssertNoThrow(try QueryParser.parse(chain))
        let long = (0..<100_000).map { _ in "a == 1" }.joined(separator: " AND ")
        assertFails(long, "too complex")
        let mixed = (0..<50_000).map { _ in "(a == 1 OR b == 2)" }.joined(separator: " AND ")
        assertFails(mixed, "too complex")
    }

    func testErrorMessagesTruncateLongTokens() {
        let name = String(repeating: "é", count: 100)
        let error = assertFails("a == 1 \(name)", "expected AND, OR")
        XCTAssertNotNil(error)
        XCTAssertLessThan(error?.message.utf8.count ?? 0, 150)
        XCTAssertFalse(error?.message.contains("\u{FFFD}") ?? true)
    }

    // MARK: Fuzz

    /// SplitMix64: deterministic across runs and platforms.
    private struct RandomSource {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    }

    private func checkNoCrash(_ text: String) {
        do {
            _ = try QueryParser.parse(text)
        } catch {
            XCTAssertGreaterThanOrEqual(error.offset, 0, text)
            XCTAssertLessThanOrEqual(error.offset, text.utf8.count, text)
            XCTAssertFalse(error.message.isEmpty, text)
        }
    }

    func testFuzzNeverCrashes() {
        var random = RandomSource(state: 0xF1EF)
        let alphabet: [[UInt8]] = Array("abcxyzTB64oiduNOTAND0123456789._$%@K'\"\\()[]{}!=<>&|+-*/,:#~ \t\nex".utf8).map { [$0] }
            + [Array("é".utf8), Array("😀".utf8), [0xFF], [0xC3], [0x00]]
        let seeds = [
            "a == 1", "name BEGINSWITH[c] 'x' AND age >= 18", "NOT (a != $0 OR b < %@)",
            "dog.name CONTAINS[cd] \"r\\u00e9x\"", "TRUEPREDICATE", "d > T1:2 || d < 2020-01-01@00:00:00:5",
            "o == oid(507f1f77bcf86cd799439011) && u == uuid(137DECC8-B300-4954-A233-F89909F4FD89)",
            "b == B64\"SGVsbG8=\" AND x == -0x1F AND y == .5e-3", "a LIKE 'a*?' OR !(b =< 2.5)",
            "x == null OR y == nil OR z == TRUE OR w == inf", "float\\ fees > 1 AND $1 <> a.b.c",
        ]
        var parsedCount = 0
        // Random byte strings.
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<random.below(40) { bytes += alphabet[random.below(alphabet.count)] }
            let text = String(decoding: bytes, as: UTF8.self)
            checkNoCrash(text)
        }
        // Random mutations of valid predicates.
        for seed in seeds { XCTAssertNoThrow(try QueryParser.parse(seed), seed) }
        for _ in 0..<4000 {
            var bytes = Array(seeds[random.below(seeds.count)].utf8)
            for _ in 0..<(1 + random.below(4)) {
                let position = random.below(bytes.count + 1)
                switch random.below(5) {
                case 0: bytes.insert(contentsOf: alphabet[random.below(alphabet.count)], at: position)
                case 1: if position < bytes.count { bytes.remove(at: position) }
                case 2: if position < bytes.count { bytes[position] = alphabet[random.below(alphabet.count)][0] }
                case 3: bytes = Array(bytes[..<position])
                default:
                    // Splice in a piece of another seed.
                    let other = Array(seeds[random.below(seeds.count)].utf8)
                    let from = random.below(other.count)
                    let to = min(other.count, from + random.below(12))
                    bytes.insert(contentsOf: other[from..<to], at: position)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if (try? QueryParser.parse(text)) != nil { parsedCount += 1 }
            checkNoCrash(text)
        }
        // Some mutations stay valid: the loop exercised the success paths too.
        XCTAssertGreaterThan(parsedCount, 100)
    }
}
