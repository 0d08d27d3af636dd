// The query parser: Realm query language text -> `ParsedQuery`.
//
// A hand-written recursive-descent parser over the UTF-8 bytes of the text,
// with a small on-demand lexer.  Only the Swift standard library is used.
// It accepts the language of realm-core's parser (`query_flex.ll` and
// `query_bison.yy`), tokenised the way flex does it (the longest match wins,
// so `NOT0` is a name, `1AND` is `1 AND`, `a-5` is a name and `-5` one
// number), plus NSPredicate's `%@` and `%K`, `[d]` options, and a unary
// minus before a non-number.
//
// Grammar (keywords in capitals; see `Keyword` for the case rules of each):
//
//     query       := predicate stage* END
//     predicate   := or
//     or          := and ( (OR | '||') and )*
//     and         := not ( (AND | '&&') not )*
//     not         := (NOT | '!') not | primary
//     primary     := '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE | test
//     test        := expr ('==' | '=' | '!=' | '<>' | IN) options? expr
//                  | expr ('<' | '<=' | '=<' | '>' | '>=' | '=>') expr
//                  | value (BEGINSWITH | ENDSWITH | CONTAINS | LIKE) options? value
//                  | value TEXT value
//                  | value BETWEEN '{' constant ',' constant '}'
//                  | prop GEOWITHIN (shape | argument)
//     options     := '[' ('c' | 'd' | 'cd' | 'dc') ']'
//     expr        := term ( ('+' | '-') term )*
//     term        := unary ( ('*' | '/') unary )*
//     unary       := '-' unary | '+' number | value
//     value       := '(' expr ')' | constant | list | prop | aggregate
//                  | SUBQUERY '(' path ',' variable ',' predicate ')' '.' (@count | @size)
//                  | SELF
//     prop        := quantifier? path post-op?
//     aggregate   := path '.' (@min | @max | @sum | @avg) ( '.' name )?
//     quantifier  := ANY | SOME | ALL | NONE     (also before a list or an argument)
//     path        := name ( '.' name | '[' index ']' )*  |  '$K' digits  |  '%K'
//     name        := identifier | a keyword usable as a name (IN, SORT, FIRST, ...)
//                  | @links '.' name '.' name | @links | @keys | @values
//     index       := digits | FIRST | LAST | '*' | string | argument
//     post-op     := '.' (@count | @size | @type) | '[' SIZE ']'
//     list        := quantifier? '{' ( constant ( ',' constant )* )? '}'
//     constant    := number | string | B64"..." (a string) | true | false | null | nil
//                  | inf | nan | timestamp | oid(...) | uuid(...) | O<key>
//                  | L<class>:<key> | bin(string | B64"...") | obj(string, pk)
//                  | argument
//     argument    := '$' digits | '%@'
//     shape       := geoBox '(' point ',' point ')' | geoCircle '(' point ',' coordinate ')'
//                  | geoPolygon '(' ring ( ',' ring )* ')'
//     ring        := '{' point ( ',' point )* '}'
//     point       := '[' coordinate ',' coordinate ( ',' coordinate )? ']'
//     stage       := SORT '(' path direction ( ',' path direction )* ')'
//                  | DISTINCT '(' path ( ',' path )* ')' | LIMIT '(' digits ')'
//     direction   := ASC | ASCENDING | DESC | DESCENDING
//
// A '(' at the start of a primary may open a predicate or a value
// (`(age + 1) * 2 == 10`): the inside is parsed as a predicate that may end
// as a bare value, which then continues as the left side of a test.
//
// Robustness: no input-driven force unwraps or trapping arithmetic; nesting
// of '(', NOT, unary minus and SUBQUERY is limited to
// `QueryParser.maxNesting`, and the height of the produced tree (AND/OR and
// arithmetic chains) to `QueryParser.maxHeight`, so neither the parser nor
// the consumers of the tree can run out of stack.

/// Parses Realm's query language: see the grammar above.
enum QueryParser {
    /// Deepest nesting of parentheses, NOT, unary minus and SUBQUERY accepted.
    static let maxNesting = 100
    /// Tallest expression tree accepted (an AND/OR chain of n terms is n tall).
    static let maxHeight = 1000

    /// Parses `text` as a query: a predicate, then any SORT / DISTINCT /
    /// LIMIT stages.  Errors carry a message (what was expected, what was
    /// found, "at offset N" and a short excerpt) and the byte offset into
    /// the UTF-8 of `text`.
    static func parseQuery(_ text: String) throws(QueryParseError) -> ParsedQuery {
        var parser = Parser(bytes: Array(text.utf8))
        return try parser.parseQuery()
    }

    /// Parses `text` as a predicate alone: SORT, DISTINCT or LIMIT after it
    /// is an error.
    static func parse(_ text: String) throws(QueryParseError) -> QueryExpression {
        var parser = Parser(bytes: Array(text.utf8))
        return try parser.parseQuery(allowOrdering: false).predicate
    }
}

extension QueryParser {
    // MARK: - Tokens

    enum TokenKind: Equatable {
        case end
        case word            // identifier or keyword (text in `text`)
        case escapedWord     // identifier containing a backslash escape: never a keyword
        case integer         // [+-]digits (text: as written)
        case hex             // [+-]0x... (text: as written)
        case float           // 1.5, .5, 2e3, 1f (text: as written, without the 'f')
        case string          // text: the decoded bytes
        case literal         // timestamp, oid, uuid, B64 (its bytes, as .binary), O<key>, L<class>:<key>, signed inf/nan
        case argument        // $n (number in `number`)
        case keyPathArgument // $Kn (number in `number`)
        case percentArgument // %@, or a printf-style number (%d, %f ...: its QueryArgumentFormat in `number`)
        case percentKeyPath  // %K
        case atWord          // @count, @links ... (text includes the '@')
        case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
        case comma, dot
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
        case andAnd, orOr, bang
        case plus, minus, star, slash
    }

    struct Token {
        var kind: TokenKind
        var start: Int
        var end: Int
        var text: [UInt8] = []
        var literal: QueryLiteral? = nil
        var number: Int = 0
        /// A `float` token written with the `f` suffix.
        var floatSuffix = false
    }

    /// Words with a meaning in the language.  Most are case-insensitive; NOT,
    /// ANY/SOME, ALL, NONE, IN, TRUE, FALSE, FIRST, LAST and SIZE only in
    /// all-lowercase or all-uppercase form (so `Not` and `True` are ordinary
    /// property names), as in realm-core's lexer.
    enum Keyword {
        case and, or, not
        case truePredicate, falsePredicate
        case `true`, `false`, null, infinity, nan
        case beginsWith, endsWith, contains, like
        case `in`, between, text, geoWithin
        case anyQuantifier, allQuantifier, noneQuantifier, subquery
        case sort, distinct, limit, ascending, descending
        case binary, object
        case geoBox, geoPolygon, geoCircle
        case first, last, size

        /// The keyword `word` spells, under its case rule; nil for a name.
        static func of(_ word: [UInt8]) -> Keyword? {
            guard word.count >= 2, word.count <= 14 else { return nil }
            var lower = word
            var hasLower = false, hasUpper = false
            for i in lower.indices {
                let b = lower[i]
                if b >= 0x41 && b <= 0x5A { lower[i] = b + 0x20; hasUpper = true }
                else if b >= 0x61 && b <= 0x7A { hasLower = true }
            }
            let oneCase = !(hasLower && hasUpper)
            switch String(decoding: lower, as: UTF8.self) {
            case "and": return .and
            case "or": return .or
            case "not": return oneCase ? .not : nil
            case "truepredicate": return .truePredicate
            case "falsepredicate": return .falsePredicate
            case "true": return oneCase ? .true : nil
            case "false": return oneCase ? .false : nil
            case "null", "nil": return .null
            case "inf", "infinity": return .infinity
            case "nan": return .nan
            case "beginswith": return .beginsWith
            case "endswith": return .endsWith
            case "contains": return .contains
            case "like": return .like
            case "in": return oneCase ? .in : nil
            case "between": return .between
            case "text": return .text
            case "geowithin": return .geoWithin
            case "any", "some": return oneCase ? .anyQuantifier : nil
            case "all": return oneCase ? .allQuantifier : nil
            case "none": return oneCase ? .noneQuantifier : nil
            case "subquery": return .subquery
            case "sort": return .sort
            case "distinct": return .distinct
            case "limit": return .limit
            case "asc", "ascending": return .ascending
            case "desc", "descending": return .descending
            case "bin", "binary": return .binary
            case "obj": return .object
            case "geobox": return .geoBox
            case "geopolygon": return .geoPolygon
            case "geocircle": return .geoCircle
            case "first": return oneCase ? .first : nil
            case "last": return oneCase ? .last : nil
            case "size": return oneCase ? .size : nil
            default: return nil
            }
        }

        /// Keywords that can never be a key path component.  Realm lets the
        /// operator, suffix, direction, index and `bin` words double as
        /// property names (its grammar's `id` rule); these others not.
        var isReserved: Bool {
            switch self {
            case .and, .or, .not, .truePredicate, .falsePredicate, .true, .false, .null,
                 .infinity, .nan, .anyQuantifier, .allQuantifier, .noneQuantifier, .subquery,
                 .geoWithin, .geoBox, .geoPolygon, .geoCircle, .object:
                return true
            case .beginsWith, .endsWith, .contains, .like, .in, .between, .text,
                 .sort, .distinct, .limit, .ascending, .descending, .binary, .first, .last, .size:
                return false
            }
        }
    }

    /// The `@` words the language knows (all case-sensitive).
    /// `@allKeys` and `@allValues` are NSPredicate's (RealmSwift's) names for `@keys` and `@values`.
    static let atWords: Set<String> = ["@count", "@size", "@min", "@max", "@sum", "@avg", "@links", "@type", "@keys", "@values",
                                       "@allKeys", "@allValues"]

    // MARK: - Character classes

    /// An ASCII digit.
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    /// An ASCII letter.
    @inline(__always) static func isLetter(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
    /// The value of a hexadecimal digit, nil for another byte.
    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
    /// First byte of an identifier: letter, '_', '$' or any byte of a
    /// multibyte UTF-8 character.
    @inline(__always) static func isIdentifierStart(_ b: UInt8) -> Bool {
        isLetter(b) || b == 0x5F || b == 0x24 || b >= 0x80
    }
    /// Later bytes of an identifier: also digits and '-'.
    @inline(__always) static func isIdentifierContinue(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || isDigit(b) || b == 0x2D
    }
    /// Whitespace between tokens: space, tab, line feed, carriage return.
    @inline(__always) static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

}

extension QueryParser {
    // MARK: - Parser

    /// The result of parsing inside parentheses: a predicate, or a bare value
    /// that continues as the left side of a test.  Each with its height.
    enum Parsed {
        case predicate(QueryExpression, Int)
        case value(QueryOperand, Int)
    }

    /// Where a key path is written, which decides what may end it.
    enum PathContext {
        /// A value in a test: post-ops and aggregates allowed.
        case value
        /// After ANY/ALL/NONE: post-ops, no aggregate.
        case quantified
        /// SORT, DISTINCT and a SUBQUERY's collection: steps only.
        case plain(String)
    }

    struct Parser {
        let bytes: [UInt8]
        /// Where the lexer continues (just after `token`, before any whitespace).
        var pos = 0
        /// The current (not yet consumed) token.
        var token = Token(kind: .end, start: 0, end: 0)
        /// How many `%@`, `%K` and printf-style numbers (`%d`, `%f` ...) were seen so far.
        var percentArguments = 0
        /// The arguments written with a printf-style number specifier, and its kind.
        var argumentFormats: [ArgumentFormat] = []
        /// Current nesting of '(', NOT, unary minus and SUBQUERY.
        var nesting = 0
        /// The SUBQUERY variables in scope, innermost last.
        var variables: [String] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        // MARK: Errors

        func error(_ message: String, at offset: Int) -> QueryParseError {
            let at = max(0, min(offset, bytes.count))
            let excerpt = excerpt(around: at)
            return QueryParseError(message: "\(message) at offset \(at)" + (excerpt.isEmpty ? "" : " (near '\(excerpt)')"),
                                   offset: at)
        }

        /// "expected <what> but found <current token>".
        func expected(_ what: String) -> QueryParseError {
            error("expected \(what) but found \(describe(token))", at: token.start)
        }

        /// "expected ')' to close the '(' at offset N but found ...".
        @inline(never)
        func unclosed(_ open: String, _ close: String, at offset: Int) -> QueryParseError {
            expected("'\(close)' to close the '\(open)' at offset \(offset)")
        }

        func describe(_ t: Token) -> String {
            if t.kind == .end { return "end of input" }
            return "'\(sourceText(t.start, t.end))'"
        }

        /// The source bytes in start..<end, cut to at most 40 bytes on a character boundary.
        func sourceText(_ start: Int, _ end: Int) -> String {
            let s = max(0, min(start, bytes.count))
            var e = max(s, min(end, bytes.count))
            var cut = false
            if e - s > 40 {
                e = s + 40
                cut = true
                while e > s && bytes[e] & 0xC0 == 0x80 { e -= 1 }
            }
            return String(decoding: bytes[s..<e], as: UTF8.self) + (cut ? "…" : "")
        }

        /// Up to 20 bytes either side of `offset`, cut on character
        /// boundaries, line breaks and tabs shown as spaces, spaces at the
        /// ends dropped, "…" where cut.
        func excerpt(around offset: Int) -> String {
            var s = max(0, offset - 20)
            while s > 0 && s < bytes.count && bytes[s] & 0xC0 == 0x80 { s -= 1 }
            var e = min(bytes.count, offset + 20)
            while e < bytes.count && e > s && bytes[e] & 0xC0 == 0x80 { e -= 1 }
            var shown = bytes[s..<e].map { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 ? 0x20 : $0 }[...]
            while shown.first == 0x20 { shown = shown.dropFirst() }
            while shown.last == 0x20 { shown = shown.dropLast() }
            if shown.isEmpty { return "" }
            return (s > 0 ? "…" : "") + String(decoding: shown, as: UTF8.self) + (e < bytes.count ? "…" : "")
        }

        func describeByte(at i: Int) -> String {
            guard i < bytes.count else { return "end of input" }
            let b = bytes[i]
            if b >= 0x21 && b < 0x7F { return "'\(String(UnicodeScalar(b)))'" }
            if b >= 0x80 {
                // The whole character the byte belongs to.
                var start = i, end = i + 1
                while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
                while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
                return "'\(sourceText(start, end))'"
            }
            let digits = Array("0123456789ABCDEF".utf8)
            return "byte 0x\(String(UnicodeScalar(digits[Int(b >> 4)])))\(String(UnicodeScalar(digits[Int(b & 15)])))"
        }

        // MARK: Token helpers

        /// Moves to the next token.
        mutating func advance() throws(QueryParseError) {
            token = try lex()
        }

        var keyword: Keyword? {
            token.kind == .word ? Keyword.of(token.text) : nil
        }

        /// The current token's text, as written.
        var tokenText: String { sourceText(token.start, token.end) }

        /// Whether the next byte after the current token (spaces skipped) is `b`.
        func nextByteIs(_ b: UInt8) -> Bool {
            var p = pos
            while p < bytes.count && isSpace(bytes[p]) { p += 1 }
            return p < bytes.count && bytes[p] == b
        }

        /// Consumes a token of `kind`, or fails saying `what` was expected.
        mutating func expect(_ kind: TokenKind, _ what: String) throws(QueryParseError) {
            guard token.kind == kind else { throw expected(what) }
            try advance()
        }

        /// One level deeper in '(', NOT, unary minus or SUBQUERY; fails past
        /// `QueryParser.maxNesting`.  The caller steps back out (`nesting -= 1`).
        mutating func enter(at offset: Int) throws(QueryParseError) {
            nesting += 1
            if nesting > QueryParser.maxNesting {
                throw error("predicate is nested too deeply (more than \(QueryParser.maxNesting) levels of '(' and NOT)", at: offset)
            }
        }

        /// Fails when a tree `height` tall exceeds `QueryParser.maxHeight`.
        func checkHeight(_ height: Int, at offset: Int) throws(QueryParseError) {
            if height > QueryParser.maxHeight {
                throw error("predicate is too complex (more than \(QueryParser.maxHeight) nested terms)", at: offset)
            }
        }

        // MARK: Query and stages

        /// The whole text: a predicate, then stages (refused unless `allowOrdering`).
        mutating func parseQuery(allowOrdering: Bool = true) throws(QueryParseError) -> ParsedQuery {
            pos = 0
            percentArguments = 0
            argumentFormats = []
            nesting = 0
            variables = []
            try advance()
            if token.kind == .end {
                throw expected("a predicate")
            }
            if let stage = stageKeyword, nextByteIs(UInt8(ascii: "(")) {
                throw error("\(stage) needs a predicate before it (write TRUEPREDICATE \(stage)(...) to keep every object)", at: token.start)
            }
            let predicate = try predicate(parseOr(allowValue: false))
            var ordering: [QueryOrderingStage] = []
            while true {
                switch token.kind {
                case .end:
                    return ParsedQuery(predicate: predicate, ordering: ordering, argumentFormats: argumentFormats)
                case .rightParen:
                    throw error("unbalanced ')': no matching '('", at: token.start)
                case .word where stageKeyword != nil:
                    guard allowOrdering else {
                        throw error("\(stageKeyword ?? "") is not accepted here: only a predicate is", at: token.start)
                    }
                    ordering.append(try parseStage())
                default:
                    throw expected(ordering.isEmpty ? "AND, OR, SORT, DISTINCT, LIMIT or the end of the query"
                                                    : "SORT, DISTINCT, LIMIT or the end of the query")
                }
            }
        }

        /// "SORT", "DISTINCT" or "LIMIT" when the current token is that word.
        var stageKeyword: String? {
            switch keyword {
            case .sort?: return "SORT"
            case .distinct?: return "DISTINCT"
            case .limit?: return "LIMIT"
            default: return nil
            }
        }

        /// SORT(...), DISTINCT(...) or LIMIT(n): the current token is the word.
        mutating func parseStage() throws(QueryParseError) -> QueryOrderingStage {
            let name = stageKeyword ?? ""
            let kw = keyword
            try advance()
            guard token.kind == .leftParen else { throw expected("'(' after \(name)") }
            let open = token.start
            try advance()
            let stage: QueryOrderingStage
            switch kw {
            case .sort?:
                var keys: [QuerySortKey] = []
                repeat {
                    if !keys.isEmpty { try advance() }
                    let path = try parseKeyPath(.plain(name), what: "a key path in SORT")
                    let ascending: Bool
                    switch keyword {
                    case .ascending?: ascending = true
                    case .descending?: ascending = false
                    default: throw expected("ASC or DESC after the key path in SORT")
                    }
                    try advance()
                    keys.append(QuerySortKey(keyPath: path, ascending: ascending))
                } while token.kind == .comma
                stage = .sort(keys)
            case .distinct?:
                var paths: [QueryKeyPath] = []
                repeat {
                    if !paths.isEmpty { try advance() }
                    paths.append(try parseKeyPath(.plain(name), what: "a key path in DISTINCT"))
                } while token.kind == .comma
                stage = .distinct(paths)
            default:
                guard token.kind == .integer, token.text.first.map(isDigit) == true else {
                    throw expected("a whole number (0 or more, in decimal) in LIMIT")
                }
                var n = 0
                for b in token.text {
                    let (m, o1) = n.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(Int(b - 0x30))
                    if o1 || o2 { throw error("the LIMIT '\(tokenText)' is too large", at: token.start) }
                    n = s
                }
                try advance()
                stage = .limit(n)
            }
            guard token.kind == .rightParen else {
                if token.kind == .comma || kw == .limit { throw unclosed("(", ")", at: open) }
                throw expected("',' or ')' in \(name)")
            }
            try advance()
            return stage
        }

        // MARK: Predicates

        /// The predicate in `parsed`; a bare value there wants an operator.
        func predicate(_ parsed: Parsed) throws(QueryParseError) -> QueryExpression {
            switch parsed {
            case .predicate(let expression, _): return expression
            case .value: throw expected("a comparison operator")
            }
        }

        /// Returns the predicate and the height of its tree; with
        /// `allowValue` (directly inside parentheses) also a bare value.
        mutating func parseOr(allowValue: Bool) throws(QueryParseError) -> Parsed {
            let first = try parseAnd(allowValue: allowValue)
            guard case .predicate(var left, var height) = first else { return try onlyValue(first) }
            while token.kind == .orOr || keyword == .or {
                let at = token.start
                try advance()
                guard case .predicate(let right, let rightHeight) = try parseAnd(allowValue: false) else {
                    throw expected("a predicate")
                }
                height = max(height, rightHeight) + 1
                try checkHeight(height, at: at)
                left = .or(left, right)
            }
            return .predicate(left, height)
        }

        /// `not ((AND | '&&') not)*`, as `parseOr`.
        mutating func parseAnd(allowValue: Bool) throws(QueryParseError) -> Parsed {
            let first = try parseNot(allowValue: allowValue)
            guard case .predicate(var left, var height) = first else { return try onlyValue(first) }
            while token.kind == .andAnd || keyword == .and {
                let at = token.start
                try advance()
                guard case .predicate(let right, let rightHeight) = try parseNot(allowValue: false) else {
                    throw expected("a predicate")
                }
                height = max(height, rightHeight) + 1
                try checkHeight(height, at: at)
                left = .and(left, right)
            }
            return .predicate(left, height)
        }

        /// A bare value is only whole inside its parentheses: AND or OR after
        /// it means an operator is missing.
        func onlyValue(_ parsed: Parsed) throws(QueryParseError) -> Parsed {
            if token.kind == .andAnd || token.kind == .orOr || keyword == .and || keyword == .or {
                throw expected("a comparison operator")
            }
            return parsed
        }

        /// `(NOT | '!') not`, or a primary.
        mutating func parseNot(allowValue: Bool) throws(QueryParseError) -> Parsed {
            guard token.kind == .bang || keyword == .not else { return try parsePrimary(allowValue: allowValue) }
            let at = token.start
            try enter(at: at)
            try advance()
            guard case .predicate(let inner, let height) = try parseNot(allowValue: false) else {
                throw expected("a predicate")
            }
            nesting -= 1
            try checkHeight(height + 1, at: at)
            return .predicate(.not(inner), height + 1)
        }

        /// A parenthesized predicate (or value), TRUEPREDICATE, FALSEPREDICATE or a test.
        mutating func parsePrimary(allowValue: Bool) throws(QueryParseError) -> Parsed {
            switch token.kind {
            case .leftParen:
                let open = token.start
                try enter(at: open)
                try advance()
                let inner = try parseOr(allowValue: true)
                guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
                try advance()
                nesting -= 1
                switch inner {
                case .predicate:
                    return inner
                case .value(let value, let height):
                    // `(a + 1) * 2 == 4`: the value goes on as an expression.
                    let (left, leftHeight) = try parseAdditive(first: (value, height))
                    return try parseTest(left, leftHeight, allowValue: allowValue)
                }
            case .end:
                throw expected("a predicate")
            case .word:
                if keyword == .truePredicate { try advance(); return .predicate(.alwaysTrue, 1) }
                if keyword == .falsePredicate { try advance(); return .predicate(.alwaysFalse, 1) }
            default:
                break
            }
            let (left, height) = try parseExpression(what: "a predicate")
            return try parseTest(left, height, allowValue: allowValue)
        }

        /// The operators that can follow the left side of a test.
        enum TestOperator {
            case compare(QueryOperator)
            case `in`, between, text, geoWithin

            var name: String {
                switch self {
                case .compare(let op): return QueryParser.spelling(op)
                case .in: return "IN"
                case .between: return "BETWEEN"
                case .text: return "TEXT"
                case .geoWithin: return "GEOWITHIN"
                }
            }

            /// Whether `[c]`/`[d]` may follow.
            var takesOptions: Bool {
                switch self {
                case .compare(let op):
                    switch op {
                    case .less, .lessOrEqual, .greater, .greaterOrEqual: return false
                    default: return true
                    }
                case .in: return true
                case .between, .text, .geoWithin: return false
                }
            }

            /// Whether the sides may be arithmetic (realm's `expr` sides).
            var takesArithmetic: Bool {
                switch self {
                case .compare(let op):
                    switch op {
                    case .beginsWith, .endsWith, .contains, .like: return false
                    default: return true
                    }
                case .in: return true
                case .between, .text, .geoWithin: return false
                }
            }
        }

        var testOperator: TestOperator? {
            switch token.kind {
            case .equal: return .compare(.equal)
            case .notEqual: return .compare(.notEqual)
            case .less: return .compare(.less)
            case .lessOrEqual: return .compare(.lessOrEqual)
            case .greater: return .compare(.greater)
            case .greaterOrEqual: return .compare(.greaterOrEqual)
            case .word:
                switch keyword {
                case .beginsWith?: return .compare(.beginsWith)
                case .endsWith?: return .compare(.endsWith)
                case .contains?: return .compare(.contains)
                case .like?: return .compare(.like)
                case .in?: return .in
                case .between?: return .between
                case .text?: return .text
                case .geoWithin?: return .geoWithin
                default: return nil
                }
            default:
                return nil
            }
        }

        /// The rest of a test after its left side; with `allowValue`, no
        /// operator leaves the left side a bare value.
        mutating func parseTest(_ left: QueryOperand, _ leftHeight: Int, allowValue: Bool) throws(QueryParseError) -> Parsed {
            guard let op = testOperator else {
                if allowValue && token.kind == .rightParen { return .value(left, leftHeight) }
                if token.kind == .integer || token.kind == .float || token.kind == .hex || token.kind == .literal,
                   token.start < bytes.count, bytes[token.start] == UInt8(ascii: "-") || bytes[token.start] == UInt8(ascii: "+") {
                    let sign = sourceText(token.start, token.start + 1)
                    throw error("expected a comparison operator but found \(describe(token)) (a sign written against a number is part of it: write '\(sign) \(sourceText(token.start + 1, token.end))' with a space to add or subtract)", at: token.start)
                }
                throw expected("a comparison operator")
            }
            let opStart = token.start
            let opText = tokenText
            try advance()
            var options = QueryStringOptions()
            if token.kind == .leftBracket {
                let open = token.start
                guard op.takesOptions else {
                    throw error("'[c]'/'[d]' options are only allowed after ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS or LIKE", at: open)
                }
                try advance()
                guard token.kind == .word, let parsed = Self.stringOptions(token.text) else {
                    throw expected("'c', 'd' or 'cd' inside the '[' at offset \(open)")
                }
                options = parsed
                try advance()
                guard token.kind == .rightBracket else { throw unclosed("[", "]", at: open) }
                try advance()
            }
            if !op.takesArithmetic, let what = arithmeticName(left) {
                throw error("\(what) cannot be used with \(op.name): only ==, !=, IN, <, <=, > and >= compare arithmetic", at: opStart)
            }
            let after = "a value after '\(opText)'"
            switch op {
            case .compare(let comparison):
                let rightStart = token.start
                let (right, rightHeight) = try parseExpression(what: after)
                if !op.takesArithmetic, let what = arithmeticName(right) {
                    throw error("\(what) cannot be used with \(op.name): only ==, !=, IN, <, <=, > and >= compare arithmetic", at: rightStart)
                }
                return .predicate(.comparison(left, comparison, right, options), max(leftHeight, rightHeight))
            case .in:
                let (right, rightHeight) = try parseExpression(what: after)
                return .predicate(.membership(left, right, options), max(leftHeight, rightHeight))
            case .text:
                let rightStart = token.start
                let (right, rightHeight) = try parseExpression(what: after)
                if let what = arithmeticName(right) {
                    throw error("\(what) cannot be used with TEXT: only ==, !=, IN, <, <=, > and >= compare arithmetic", at: rightStart)
                }
                return .predicate(.fullText(left, right), max(leftHeight, rightHeight))
            case .between:
                guard token.kind == .leftBrace else {
                    throw expected("a list of two values {low, high} after BETWEEN")
                }
                let listStart = token.start
                guard case .list(let bounds) = try parseList(), bounds.count == 2 else {
                    throw error("BETWEEN takes exactly two values: {low, high}", at: listStart)
                }
                return .predicate(.between(left, low: bounds[0], high: bounds[1]), leftHeight)
            case .geoWithin:
                var target = left
                if case .quantified(_, let inner) = left { target = inner }
                guard case .keyPath = target else {
                    throw error("the left side of GEOWITHIN must be a key path (a link to a location)", at: opStart)
                }
                return .predicate(.geoWithin(left, try parseGeoShape()), leftHeight)
            }
        }

        /// How an error names `operand` when it is arithmetic, else nil.
        func arithmeticName(_ operand: QueryOperand) -> String? {
            switch operand {
            case .arithmetic(_, let op, _): return "arithmetic ('\(QueryParser.spelling(op))')"
            case .negated: return "arithmetic (unary '-')"
            default: return nil
            }
        }

        /// The options `c`, `d`, `cd` or `dc` (either case) in `word`; nil for anything else.
        static func stringOptions(_ word: [UInt8]) -> QueryStringOptions? {
            var options = QueryStringOptions()
            guard !word.isEmpty, word.count <= 2 else { return nil }
            for b in word {
                switch b {
                case 0x63, 0x43: // c C
                    if options.contains(.caseInsensitive) { return nil }
                    options.insert(.caseInsensitive)
                case 0x64, 0x44: // d D
                    if options.contains(.diacriticInsensitive) { return nil }
                    options.insert(.diacriticInsensitive)
                default:
                    return nil
                }
            }
            return options
        }

        // MARK: Expressions

        /// `expr`: a value, or arithmetic on values.  `what` names what was
        /// expected when no value starts here.
        mutating func parseExpression(what: String) throws(QueryParseError) -> (QueryOperand, Int) {
            try parseAdditive(first: nil, what: what)
        }

        /// `term (('+' | '-') term)*`, continuing from `first` when given.
        mutating func parseAdditive(first: (QueryOperand, Int)?, what: String = "a value") throws(QueryParseError) -> (QueryOperand, Int) {
            var (left, height) = try parseMultiplicative(first: first, what: what)
            while token.kind == .plus || token.kind == .minus {
                let at = token.start
                let op: QueryArithmeticOperator = token.kind == .plus ? .add : .subtract
                try advance()
                let (right, rightHeight) = try parseMultiplicative(first: nil, what: "a value after '\(QueryParser.spelling(op))'")
                height = max(height, rightHeight) + 1
                try checkHeight(height, at: at)
                left = .arithmetic(left, op, right)
            }
            return (left, height)
        }

        /// `unary (('*' | '/') unary)*`, continuing from `first` when given.
        mutating func parseMultiplicative(first: (QueryOperand, Int)?, what: String) throws(QueryParseError) -> (QueryOperand, Int) {
            var left: QueryOperand, height: Int
            if let first { (left, height) = first } else { (left, height) = try parseUnary(what: what) }
            while token.kind == .star || token.kind == .slash {
                let at = token.start
                let op: QueryArithmeticOperator = token.kind == .star ? .multiply : .divide
                try advance()
                let (right, rightHeight) = try parseUnary(what: "a value after '\(QueryParser.spelling(op))'")
                height = max(height, rightHeight) + 1
                try checkHeight(height, at: at)
                left = .arithmetic(left, op, right)
            }
            return (left, height)
        }

        /// A minus before a number is part of it (`- 5` is the number -5);
        /// before anything else it negates (`-age`).  A plus only goes
        /// before a number.
        mutating func parseUnary(what: String) throws(QueryParseError) -> (QueryOperand, Int) {
            guard token.kind == .minus || token.kind == .plus else { return try parseValue(what: what) }
            let sign = token
            let negative = sign.kind == .minus
            try advance()
            if isUnsignedNumber {
                let literal = try numberLiteral(negate: negative)
                try advance()
                return (.constant(literal), 1)
            }
            if keyword == .infinity {
                try advance()
                return (.constant(.double(negative ? -.infinity : .infinity)), 1)
            }
            if keyword == .nan {
                try advance()
                return (.constant(.double(.nan)), 1)
            }
            guard negative else { throw expected("a number after '+'") }
            try enter(at: sign.start)
            let (inner, height) = try parseUnary(what: "a value after '-'")
            nesting -= 1
            try checkHeight(height + 1, at: sign.start)
            return (.negated(inner), height + 1)
        }

        /// A number token without a sign.
        var isUnsignedNumber: Bool {
            switch token.kind {
            case .integer, .hex, .float:
                return token.start < bytes.count && bytes[token.start] != UInt8(ascii: "-") && bytes[token.start] != UInt8(ascii: "+")
            default:
                return false
            }
        }

        /// One value: a constant, argument, list, key path (maybe quantified
        /// or aggregated), `self`, SUBQUERY, obj(...), or `( expr )`; with
        /// the height of its tree.
        mutating func parseValue(what: String) throws(QueryParseError) -> (QueryOperand, Int) {
            switch token.kind {
            case .leftParen:
                let open = token.start
                try enter(at: open)
                try advance()
                let inner = try parseExpression(what: "a value")
                guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
                try advance()
                nesting -= 1
                return inner
            case .word:
                if keyword == .subquery { return try parseSubquery() }
            default:
                break
            }
            return (try parseSimpleValue(what: what), 1)
        }

        /// A value that holds no predicate or arithmetic.
        mutating func parseSimpleValue(what: String) throws(QueryParseError) -> QueryOperand {
            switch token.kind {
            case .word:
                if let kw = keyword {
                    switch kw {
                    case .true: try advance(); return .constant(.bool(true))
                    case .false: try advance(); return .constant(.bool(false))
                    case .null: try advance(); return .constant(.null)
                    case .infinity: try advance(); return .constant(.double(.infinity))
                    case .nan: try advance(); return .constant(.double(.nan))
                    case .anyQuantifier, .allQuantifier, .noneQuantifier:
                        return try parseQuantified()
                    case .object:
                        return try parseObject()
                    case .binary where nextByteIs(UInt8(ascii: "(")):
                        return .constant(try parseBinary())
                    case .and, .or, .not, .truePredicate, .falsePredicate, .geoWithin, .geoBox, .geoPolygon, .geoCircle, .subquery:
                        throw expected(what)
                    default:
                        break // operator, suffix and index words may be property names
                    }
                }
                if let element = try parseSelf() { return element }
                return .keyPath(try parseKeyPath(.value, what: what))
            case .escapedWord, .atWord, .keyPathArgument, .percentKeyPath:
                return .keyPath(try parseKeyPath(.value, what: what))
            case .integer, .hex, .float:
                let literal = try numberLiteral(negate: false)
                try advance()
                return .constant(literal)
            case .string:
                let value = stringValue
                try advance()
                return .constant(.string(value))
            case .literal:
                let literal = try literalValue(what)
                try advance()
                return .constant(literal)
            case .argument, .percentArgument:
                return .argument(try argumentNumber())
            case .leftBrace:
                return try parseList()
            default:
                throw expected(what)
            }
        }

        /// `self` or `SELF` alone: the element.  Followed by '.' or '['
        /// (`self.name`, `self[0]`) it is the first name of a key path
        /// instead, a property named `self` that the schema must have
        /// (nil here: the caller reads the key path).
        mutating func parseSelf() throws(QueryParseError) -> QueryOperand? {
            guard isSelfAlone else { return nil }
            try advance()
            return .element
        }

        /// Whether the current token is `self` (or `SELF`) standing alone:
        /// no SUBQUERY variable of that name, and no '.' or '[' after it.
        var isSelfAlone: Bool {
            token.kind == .word && (token.text == Self.selfWord || token.text == Self.selfWordUpper)
                && !variables.contains(String(decoding: token.text, as: UTF8.self))
                && !nextByteIs(UInt8(ascii: ".")) && !nextByteIs(UInt8(ascii: "["))
        }

        static let selfWord: [UInt8] = Array("self".utf8)
        static let selfWordUpper: [UInt8] = Array("SELF".utf8)

        /// The number of an argument token (`$n`, or the next `%@`), consumed.
        mutating func argumentNumber() throws(QueryParseError) -> Int {
            let n: Int
            if token.kind == .percentArgument || token.kind == .percentKeyPath {
                n = percentArguments
                percentArguments += 1
                if token.kind == .percentArgument, let format = ArgumentFormat.Kind(rawValue: token.number) {
                    argumentFormats.append(ArgumentFormat(argument: n, kind: format, specifier: sourceText(token.start, token.end)))
                }
            } else {
                n = token.number
            }
            try advance()
            return n
        }

        /// The decoded bytes of a string token as a String (always valid
        /// UTF-8: the text is, and escapes produce whole characters).
        var stringValue: String {
            String(decoding: token.text, as: UTF8.self)
        }

        /// ANY/SOME/ALL/NONE then a key path, a list or an argument.
        mutating func parseQuantified() throws(QueryParseError) -> QueryOperand {
            let word = tokenText
            let quantifier: QueryQuantifier
            switch keyword {
            case .allQuantifier?: quantifier = .all
            case .noneQuantifier?: quantifier = .none
            default: quantifier = .any
            }
            try advance()
            switch token.kind {
            case .leftBrace:
                return .quantified(quantifier, try parseList())
            case .argument, .percentArgument:
                return .quantified(quantifier, .argument(try argumentNumber()))
            case .word where keyword == nil || keyword?.isReserved == false:
                if isSelfAlone {
                    throw error("'\(word)' cannot apply to 'self'", at: token.start)
                }
                return .quantified(quantifier, .keyPath(try parseKeyPath(.quantified, what: "a key path")))
            case .escapedWord, .atWord, .keyPathArgument, .percentKeyPath:
                return .quantified(quantifier, .keyPath(try parseKeyPath(.quantified, what: "a key path")))
            default:
                throw expected("a key path, a list {...} or an argument after '\(word)'")
            }
        }

        /// `{ constant, ... }`: the current token is the '{'.
        mutating func parseList() throws(QueryParseError) -> QueryOperand {
            let open = token.start
            try advance()
            var elements: [QueryOperand] = []
            if token.kind == .rightBrace {
                try advance()
                return .list([])
            }
            while true {
                elements.append(try parseListElement())
                switch token.kind {
                case .comma:
                    try advance()
                case .rightBrace:
                    try advance()
                    return .list(elements)
                default:
                    throw expected("',' or '}' to close the '{' at offset \(open)")
                }
            }
        }

        /// A constant or an argument (lists hold nothing else).
        mutating func parseListElement() throws(QueryParseError) -> QueryOperand {
            let what = "a constant or an argument in the list"
            switch token.kind {
            case .integer, .hex, .float:
                let literal = try numberLiteral(negate: false)
                try advance()
                return .constant(literal)
            case .string:
                let value = stringValue
                try advance()
                return .constant(.string(value))
            case .literal:
                let literal = try literalValue(what)
                try advance()
                return .constant(literal)
            case .argument, .percentArgument:
                return .argument(try argumentNumber())
            case .word:
                switch keyword {
                case .true?: try advance(); return .constant(.bool(true))
                case .false?: try advance(); return .constant(.bool(false))
                case .null?: try advance(); return .constant(.null)
                case .infinity?: try advance(); return .constant(.double(.infinity))
                case .nan?: try advance(); return .constant(.double(.nan))
                case .object?: return try parseObject()
                case .binary? where nextByteIs(UInt8(ascii: "(")): return .constant(try parseBinary())
                default: throw expected(what)
                }
            default:
                throw expected(what)
            }
        }

        /// The constant of the current `.literal` token standing as a value.
        /// `B64"..."` alone is a string (realm-core's grammar: only inside
        /// `bin(...)` or `binary(...)` is it a binary), so its bytes must be
        /// UTF-8.
        func literalValue(_ what: String) throws(QueryParseError) -> QueryLiteral {
            guard let literal = token.literal else { throw expected(what) }
            guard case .binary(let bytes) = literal else { return literal }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw error("B64\"...\" alone is a string, and these bytes are not UTF-8: write bin(B64\"...\") for a binary", at: token.start)
            }
            return .string(text)
        }

        /// `bin('...')`, `binary("...")` or `bin(B64"...")`.
        mutating func parseBinary() throws(QueryParseError) -> QueryLiteral {
            let word = tokenText
            try advance()
            let open = token.start
            try expect(.leftParen, "'(' after '\(word)'")
            let bytes: [UInt8]
            switch token.kind {
            case .string:
                bytes = token.text
            case .literal:
                guard case .binary(let decoded)? = token.literal else {
                    throw expected("a string or B64\"...\" inside \(word)(...)")
                }
                bytes = decoded
            default:
                throw expected("a string or B64\"...\" inside \(word)(...)")
            }
            try advance()
            guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
            try advance()
            return .binary(bytes)
        }

        /// `obj('Class', primaryKey)`.
        mutating func parseObject() throws(QueryParseError) -> QueryOperand {
            let word = tokenText
            try advance()
            guard token.kind == .leftParen else {
                throw expected("'(' after '\(word)' (obj('Class', primaryKey) names an object; 'obj' cannot be a property name)")
            }
            let open = token.start
            try advance()
            guard token.kind == .string else { throw expected("the class name as a string in obj(...)") }
            let className = stringValue
            try advance()
            try expect(.comma, "',' after the class name in obj(...)")
            let primaryKey: QueryOperand
            switch token.kind {
            case .integer, .hex:
                primaryKey = .constant(try numberLiteral(negate: false))
                try advance()
            case .string:
                primaryKey = .constant(.string(stringValue))
                try advance()
            case .literal:
                switch token.literal {
                case .objectId?, .uuid?: primaryKey = .constant(token.literal ?? .null)
                default: throw expected("a primary key (an integer, a string, oid(...), uuid(...) or an argument) in obj(...)")
                }
                try advance()
            case .argument, .percentArgument:
                primaryKey = .argument(try argumentNumber())
            default:
                throw expected("a primary key (an integer, a string, oid(...), uuid(...) or an argument) in obj(...)")
            }
            guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
            try advance()
            return .object(className: className, primaryKey: primaryKey)
        }

        /// `SUBQUERY(collection, $var, predicate).@count`, with the height of its tree.
        mutating func parseSubquery() throws(QueryParseError) -> (QueryOperand, Int) {
            let start = token.start
            try enter(at: start)
            try advance()
            let open = token.start
            try expect(.leftParen, "'(' after SUBQUERY")
            let collection = try parseKeyPath(.plain("SUBQUERY"), what: "the key path of a collection in SUBQUERY")
            try expect(.comma, "',' after the collection in SUBQUERY")
            guard token.kind == .word || token.kind == .escapedWord,
                  token.text.first == UInt8(ascii: "$"), token.text.count >= 2 else {
                throw expected("a SUBQUERY variable: a name starting with '$' (e.g. $x)")
            }
            let variable = String(decoding: token.text, as: UTF8.self)
            if variables.contains(variable) {
                throw error("the SUBQUERY variable '\(variable)' is already in use by an enclosing SUBQUERY", at: token.start)
            }
            try advance()
            try expect(.comma, "',' after the SUBQUERY variable")
            variables.append(variable)
            guard case .predicate(let predicate, let height) = try parseOr(allowValue: false) else {
                throw expected("a comparison operator")
            }
            variables.removeLast()
            try checkHeight(height + 1, at: start)
            guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
            try advance()
            nesting -= 1
            guard token.kind == .dot else { throw expected("'.@count' after SUBQUERY(...)") }
            try advance()
            guard token.kind == .atWord, token.text == Self.countWord || token.text == Self.sizeWord else {
                throw expected("'@count' or '@size' after SUBQUERY(...).")
            }
            try advance()
            return (.subqueryCount(QuerySubquery(collection: collection, variable: variable, predicate: predicate)), height + 1)
        }

        static let countWord: [UInt8] = Array("@count".utf8)
        static let sizeWord: [UInt8] = Array("@size".utf8)

        // MARK: Key paths

        /// A property name at the current token (a word that may be one, or
        /// an escaped word), consumed.
        mutating func parseName(_ what: String) throws(QueryParseError) -> String {
            switch token.kind {
            case .word:
                if let kw = keyword, kw.isReserved {
                    throw error("the keyword '\(tokenText)' cannot be used as a property name", at: token.start)
                }
            case .escapedWord:
                break
            default:
                throw expected(what)
            }
            let name = String(decoding: token.text, as: UTF8.self)
            try advance()
            return name
        }

        /// A key path at the current token.  `context` decides what may end
        /// it; `what` names what was expected when no key path starts here.
        mutating func parseKeyPath(_ context: PathContext, what: String) throws(QueryParseError) -> QueryKeyPath {
            var path = QueryKeyPath([])
            switch token.kind {
            case .keyPathArgument, .percentKeyPath:
                path.start = .argument(try argumentNumber())
            case .word, .escapedWord:
                let name = String(decoding: token.text, as: UTF8.self)
                if variables.contains(name) {
                    path.start = .variable(name)
                    try advance()
                } else {
                    path.components.append(.property(try parseName(what)))
                }
            case .atWord:
                if try parseAtComponent(into: &path, context) { return path }
            default:
                path.components.append(.property(try parseName(what)))
            }
            while true {
                if token.kind == .float && token.start < bytes.count && bytes[token.start] == UInt8(ascii: ".") {
                    // `a.1`: the lexer read ".1" as a number.
                    throw error("expected a property name after '.' but found '\(sourceText(token.start + 1, token.end))'", at: token.start + 1)
                }
                if token.kind == .dot {
                    try advance()
                    if token.kind == .atWord {
                        if try parseAtComponent(into: &path, context) { return path }
                        continue
                    }
                    try checkArgumentPath(path, at: token.start)
                    path.components.append(.property(try parseName("a property name after '.'")))
                } else if token.kind == .leftBracket {
                    let open = token.start
                    try checkArgumentPath(path, at: open)
                    try advance()
                    if keyword == .size {
                        try advance()
                        guard token.kind == .rightBracket else { throw unclosed("[", "]", at: open) }
                        try advance()
                        try setSuffix(.count, on: &path, context, at: open, name: "[SIZE]")
                        return path
                    }
                    path.components.append(try parseIndex(open: open))
                } else {
                    if case .object = path.start, path.components.isEmpty {
                        throw expected(what)
                    }
                    return path
                }
            }
        }

        /// A key-path argument is the whole path: nothing but a suffix follows it.
        func checkArgumentPath(_ path: QueryKeyPath, at offset: Int) throws(QueryParseError) {
            if case .argument = path.start {
                throw error("a key-path argument ($K or %K) stands for the whole key path: only '.@count', '.@type' or an aggregate may follow it", at: offset)
            }
        }

        /// The index inside `[...]`; the current token follows the '['.
        mutating func parseIndex(open: Int) throws(QueryParseError) -> QueryPathComponent {
            let component: QueryPathComponent
            switch token.kind {
            case .integer where token.text.first.map(isDigit) == true:
                var n = 0
                for b in token.text {
                    let (m, o1) = n.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(Int(b - 0x30))
                    if o1 || o2 { throw error("the index '\(tokenText)' is too large", at: token.start) }
                    n = s
                }
                component = .index(n)
                try advance()
            case .star:
                component = .all
                try advance()
            case .string:
                component = .key(stringValue)
                try advance()
            case .argument, .percentArgument:
                component = .argumentIndex(try argumentNumber())
            case .word where keyword == .first:
                component = .first
                try advance()
            case .word where keyword == .last:
                component = .last
                try advance()
            default:
                throw expected("an index (a position, FIRST, LAST, SIZE, *, a 'key' or an argument) inside '['")
            }
            guard token.kind == .rightBracket else { throw unclosed("[", "]", at: open) }
            try advance()
            return component
        }

        /// An `@` word in a key path (the current token): a component
        /// (`@links...`, `@keys`, `@values`), or a suffix that ends the path.
        /// Returns whether the path ended.
        mutating func parseAtComponent(into path: inout QueryKeyPath, _ context: PathContext) throws(QueryParseError) -> Bool {
            let word = String(decoding: token.text, as: UTF8.self)
            let at = token.start
            switch word {
            case "@links":
                try checkArgumentPath(path, at: at)
                try advance()
                guard token.kind == .dot else {
                    if token.kind == .leftBracket {
                        throw error("'@links' cannot be indexed: write '@links.Class.property[...]'", at: token.start)
                    }
                    path.components.append(.allBacklinks)
                    return false
                }
                try advance()
                if token.kind == .atWord, token.text == Self.countWord || token.text == Self.sizeWord {
                    let suffixAt = token.start
                    try advance()
                    path.components.append(.allBacklinks)
                    try setSuffix(.count, on: &path, context, at: suffixAt, name: "@count")
                    return true
                }
                let className = try parseName("a class name or '@count' after '@links.'")
                guard token.kind == .dot else {
                    throw expected("'.' and the linking property after '@links.\(className)'")
                }
                try advance()
                let property = try parseName("the linking property after '@links.\(className).'")
                path.components.append(.backlinks(className: className, property: property))
                return false
            case "@keys", "@values", "@allKeys", "@allValues":
                try checkArgumentPath(path, at: at)
                try advance()
                path.components.append(word == "@keys" || word == "@allKeys" ? .keys : .values)
                return false
            case "@count", "@size", "@type":
                try advance()
                try setSuffix(word == "@type" ? .type : .count, on: &path, context, at: at, name: word)
                return true
            default: // "@min", "@max", "@sum", "@avg"
                try advance()
                let aggregate: QueryAggregate
                switch word {
                case "@min": aggregate = .min
                case "@max": aggregate = .max
                case "@sum": aggregate = .sum
                default: aggregate = .average
                }
                var property: String?
                if token.kind == .dot {
                    try advance()
                    property = try parseName("a property name after '\(word).'")
                }
                if case .quantified = context {
                    throw error("ANY, ALL and NONE cannot apply to an aggregate ('\(word)')", at: at)
                }
                try setSuffix(.aggregate(aggregate, property: property), on: &path, context, at: at, name: word)
                return true
            }
        }

        /// Ends `path` with `suffix`, checking that it may end so here and
        /// that nothing follows.
        mutating func setSuffix(_ suffix: QueryPathSuffix, on path: inout QueryKeyPath, _ context: PathContext, at offset: Int, name: String) throws(QueryParseError) {
            if case .plain(let owner) = context {
                throw error("'\(name)' cannot be used in \(owner): it takes a key path of properties", at: offset)
            }
            if case .object = path.start, path.components.isEmpty {
                throw error("'\(name)' must follow a key path", at: offset)
            }
            if path.components.last == .allBacklinks, suffix != .count {
                throw error("only '@count' or '@size' may follow '@links'", at: offset)
            }
            path.suffix = suffix
            if token.kind == .dot || token.kind == .leftBracket {
                throw error("nothing may follow '\(name)' in a key path", at: token.start)
            }
        }

        // MARK: Geo shapes

        /// The shape after GEOWITHIN: geoBox, geoPolygon, geoCircle or an argument.
        mutating func parseGeoShape() throws(QueryParseError) -> QueryGeoShape {
            let what = "geoBox(...), geoPolygon(...), geoCircle(...) or an argument after GEOWITHIN"
            switch token.kind {
            case .argument, .percentArgument:
                return .argument(try argumentNumber())
            case .word:
                let kw = keyword
                let name = tokenText
                guard kw == .geoBox || kw == .geoPolygon || kw == .geoCircle else { throw expected(what) }
                try advance()
                let open = token.start
                try expect(.leftParen, "'(' after \(name)")
                let shape: QueryGeoShape
                switch kw {
                case .geoBox?:
                    let corner = try parseGeoPoint()
                    try expect(.comma, "',' between the corners of \(name)")
                    shape = .box(corner, try parseGeoPoint())
                case .geoCircle?:
                    let center = try parseGeoPoint()
                    try expect(.comma, "',' and the radius after the center of \(name)")
                    shape = .circle(center: center, radius: try parseGeoNumber())
                default:
                    var rings: [[QueryGeoPoint]] = []
                    repeat {
                        if !rings.isEmpty { try advance() }
                        let ringOpen = token.start
                        try expect(.leftBrace, "a ring of points {[lon, lat], ...} in \(name)")
                        var ring: [QueryGeoPoint] = []
                        repeat {
                            if !ring.isEmpty { try advance() }
                            ring.append(try parseGeoPoint())
                        } while token.kind == .comma
                        guard token.kind == .rightBrace else { throw unclosed("{", "}", at: ringOpen) }
                        try advance()
                        rings.append(ring)
                    } while token.kind == .comma
                    shape = .polygon(rings)
                }
                guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
                try advance()
                return shape
            default:
                throw expected(what)
            }
        }

        /// `[longitude, latitude]` or `[longitude, latitude, altitude]`.
        mutating func parseGeoPoint() throws(QueryParseError) -> QueryGeoPoint {
            let open = token.start
            try expect(.leftBracket, "a point [longitude, latitude]")
            let longitude = try parseGeoNumber()
            try expect(.comma, "',' after the longitude")
            let latitude = try parseGeoNumber()
            var altitude: QueryGeoNumber?
            if token.kind == .comma {
                try advance()
                altitude = try parseGeoNumber()
            }
            guard token.kind == .rightBracket else { throw unclosed("[", "]", at: open) }
            try advance()
            return QueryGeoPoint(longitude, latitude, altitude: altitude)
        }

        /// A coordinate or radius: a decimal number or an argument.
        mutating func parseGeoNumber() throws(QueryParseError) -> QueryGeoNumber {
            switch token.kind {
            case .argument, .percentArgument:
                return .argument(try argumentNumber())
            case .integer, .float:
                let text = String(decoding: token.text, as: UTF8.self)
                guard !token.floatSuffix, let value = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text),
                      value.isFinite else {
                    throw error("the coordinate '\(tokenText)' is not a finite number", at: token.start)
                }
                try advance()
                return .value(value)
            default:
                throw expected("a number or an argument")
            }
        }

        // MARK: Numbers

        /// The literal of the current number token, negated when `negate`
        /// (a minus written apart from the number).
        func numberLiteral(negate: Bool) throws(QueryParseError) -> QueryLiteral {
            let t = token
            var text = String(decoding: t.text, as: UTF8.self)
            if negate {
                text = text.hasPrefix("-") ? String(text.dropFirst()) : "-" + (text.hasPrefix("+") ? String(text.dropFirst()) : text)
            }
            var body = Array(text.utf8)[...]
            var negative = false
            if let first = body.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
                negative = first == UInt8(ascii: "-")
                body = body.dropFirst()
            }
            switch t.kind {
            case .float:
                if t.floatSuffix {
                    guard let value = Float(String(decoding: body, as: UTF8.self)), value.isFinite else {
                        throw error("the float literal '\(sourceText(t.start, t.end))' is out of the range of a float", at: t.start)
                    }
                    return .float(negative ? -value : value)
                }
                return QueryLiteral.floatingPoint(text)
            case .integer, .hex:
                let isHex = t.kind == .hex
                let digits = isHex ? body.dropFirst(2) : body
                let radix: UInt64 = isHex ? 16 : 10
                var magnitude: UInt64 = 0
                var overflow = false
                for b in digits {
                    let digit = UInt64(hexValue(b) ?? 0)
                    let (m, o1) = magnitude.multipliedReportingOverflow(by: radix)
                    let (s, o2) = m.addingReportingOverflow(digit)
                    if o1 || o2 { overflow = true; break }
                    magnitude = s
                }
                let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
                if !overflow && magnitude <= limit {
                    return .int(negative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude))
                }
                if isHex {
                    throw error("hexadecimal literal '\(sourceText(t.start, t.end))' does not fit in a 64-bit integer", at: t.start)
                }
                // Whole numbers beyond 64 bits keep their digits.
                return QueryLiteral.floatingPoint(text)
            default:
                throw expected("a number")
            }
        }
    }
}

extension QueryParser.Parser {
    typealias Token = QueryParser.Token
    typealias TokenKind = QueryParser.TokenKind


        // MARK: - Lexer

        /// A printf-style specifier after '%' other than `%@` and `%K`, as
        /// NSPredicate's format strings take them: flags, width, precision
        /// and a length modifier (`hh h l ll q L z t j`) are read and
        /// ignored, then the conversion: `d i o u x X D U O` take a whole
        /// number, `f F e E g G a A` a floating-point one (both as a
        /// `percentArgument` token whose `number` is the format's kind).
        /// `%%` (a literal percent) and the conversions for characters,
        /// C strings and pointers are errors.
        mutating func lexPrintfSpecifier() throws(QueryParseError) -> Token {
            let start = pos
            var i = pos + 1
            func byte(_ at: Int) -> UInt8 { at < bytes.count ? bytes[at] : 0 }
            if byte(i) == UInt8(ascii: "%") {
                throw error("'%%' (a literal percent) has no meaning outside a quoted string", at: start)
            }
            while "-+ #0'".utf8.contains(byte(i)) { i += 1 }
            while QueryParser.isDigit(byte(i)) { i += 1 }
            if byte(i) == UInt8(ascii: ".") {
                i += 1
                while QueryParser.isDigit(byte(i)) { i += 1 }
            }
            while "hlqLztj".utf8.contains(byte(i)) && i - start < 8 { i += 1 }
            let conversion = byte(i)
            let kind: ArgumentFormat.Kind
            switch conversion {
            case UInt8(ascii: "d"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"), UInt8(ascii: "x"),
                 UInt8(ascii: "X"), UInt8(ascii: "D"), UInt8(ascii: "U"), UInt8(ascii: "O"):
                kind = .integer
            case UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "g"),
                 UInt8(ascii: "G"), UInt8(ascii: "a"), UInt8(ascii: "A"):
                kind = .floatingPoint
            case UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "p"):
                throw error("format specifier '\(sourceText(start, i + 1))' is not supported in a predicate: pass strings and objects with %@", at: start)
            default:
                throw error("unexpected character '%' (a format specifier is %@, %K, or a number: %d, %i, %ld, %lld, %u, %f, %lf ...)", at: start)
            }
            pos = i + 1
            return Token(kind: .percentArgument, start: start, end: pos, number: kind.rawValue)
        }

        /// The next token after `pos`, whitespace skipped.
        mutating func lex() throws(QueryParseError) -> Token {
            while pos < bytes.count && QueryParser.isSpace(bytes[pos]) { pos += 1 }
            let start = pos
            guard pos < bytes.count else { return Token(kind: .end, start: start, end: start) }
            let c = bytes[pos]
            let next: UInt8 = pos + 1 < bytes.count ? bytes[pos + 1] : 0

            func symbol(_ kind: TokenKind, _ length: Int, _ pos: inout Int) -> Token {
                pos += length
                return Token(kind: kind, start: start, end: pos)
            }

            switch c {
            case UInt8(ascii: "("): return symbol(.leftParen, 1, &pos)
            case UInt8(ascii: ")"): return symbol(.rightParen, 1, &pos)
            case UInt8(ascii: "["): return symbol(.leftBracket, 1, &pos)
            case UInt8(ascii: "]"): return symbol(.rightBracket, 1, &pos)
            case UInt8(ascii: "{"): return symbol(.leftBrace, 1, &pos)
            case UInt8(ascii: "}"): return symbol(.rightBrace, 1, &pos)
            case UInt8(ascii: ","): return symbol(.comma, 1, &pos)
            case UInt8(ascii: "*"): return symbol(.star, 1, &pos)
            case UInt8(ascii: "/"): return symbol(.slash, 1, &pos)
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                // A sign written against a number is part of it (`-5`, `+.5`, `-inf`).
                let afterSign: UInt8 = pos + 2 < bytes.count ? bytes[pos + 2] : 0
                if QueryParser.isDigit(next) || (next == UInt8(ascii: ".") && QueryParser.isDigit(afterSign)) {
                    return try lexNumber()
                }
                if let special = signedSpecial(start) { return special }
                return symbol(c == UInt8(ascii: "+") ? .plus : .minus, 1, &pos)
            case UInt8(ascii: "="):
                switch next {
                case UInt8(ascii: "="): return symbol(.equal, 2, &pos)
                case UInt8(ascii: "<"): return symbol(.lessOrEqual, 2, &pos)
                case UInt8(ascii: ">"): return symbol(.greaterOrEqual, 2, &pos)
                default: return symbol(.equal, 1, &pos)
                }
            case UInt8(ascii: "!"):
                return next == UInt8(ascii: "=") ? symbol(.notEqual, 2, &pos) : symbol(.bang, 1, &pos)
            case UInt8(ascii: "<"):
                switch next {
                case UInt8(ascii: "="): return symbol(.lessOrEqual, 2, &pos)
                case UInt8(ascii: ">"): return symbol(.notEqual, 2, &pos)
                default: return symbol(.less, 1, &pos)
                }
            case UInt8(ascii: ">"):
                return next == UInt8(ascii: "=") ? symbol(.greaterOrEqual, 2, &pos) : symbol(.greater, 1, &pos)
            case UInt8(ascii: "&"):
                guard next == UInt8(ascii: "&") else {
                    throw error("unexpected character '&' (did you mean '&&'?)", at: start)
                }
                return symbol(.andAnd, 2, &pos)
            case UInt8(ascii: "|"):
                guard next == UInt8(ascii: "|") else {
                    throw error("unexpected character '|' (did you mean '||'?)", at: start)
                }
                return symbol(.orOr, 2, &pos)
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                let text = try lexString()
                return Token(kind: .string, start: start, end: pos, text: text)
            case UInt8(ascii: "%"):
                if next == UInt8(ascii: "@") { return symbol(.percentArgument, 2, &pos) }
                if next == UInt8(ascii: "K") { return symbol(.percentKeyPath, 2, &pos) }
                return try lexPrintfSpecifier()
            case UInt8(ascii: "@"):
                pos += 1
                while pos < bytes.count && QueryParser.isIdentifierContinue(bytes[pos]) && bytes[pos] != UInt8(ascii: "-") { pos += 1 }
                let word = String(decoding: bytes[start..<pos], as: UTF8.self)
                guard QueryParser.atWords.contains(word) else {
                    if pos == start + 1 { throw error("unexpected character '@'", at: start) }
                    throw error("unknown '\(sourceText(start, pos))' (known: @count, @size, @min, @max, @sum, @avg, @type, @keys, @values, @links)", at: start)
                }
                return Token(kind: .atWord, start: start, end: pos, text: Array(bytes[start..<pos]))
            case UInt8(ascii: "."):
                if QueryParser.isDigit(next) { return try lexNumber() }
                return symbol(.dot, 1, &pos)
            case 0x30...0x39:
                if let date = try lexReadableDate() { return date }
                return try lexNumber()
            default:
                if QueryParser.isIdentifierStart(c) || c == UInt8(ascii: "\\") { return try lexWord() }
                throw error("unexpected character \(describeByte(at: start))", at: start)
            }
        }

        /// `-inf`, `+infinity`, `-nan` (any case) at `start`, as one token.
        mutating func signedSpecial(_ start: Int) -> Token? {
            var p = start + 1
            while p < bytes.count && QueryParser.isIdentifierContinue(bytes[p]) && bytes[p] != UInt8(ascii: "-") { p += 1 }
            guard p < bytes.count ? bytes[p] != UInt8(ascii: "\\") && bytes[p] != UInt8(ascii: "-") : true else { return nil }
            let word = String(decoding: bytes[(start + 1)..<p], as: UTF8.self).lowercased()
            let negative = bytes[start] == UInt8(ascii: "-")
            let value: Double
            switch word {
            case "inf", "infinity": value = negative ? -.infinity : .infinity
            case "nan": value = .nan
            default: return nil
            }
            pos = p
            return Token(kind: .literal, start: start, end: p, literal: .double(value))
        }

        /// A name at `pos` (with `\ `-style escapes), or the literal or argument
        /// that its shape makes it: `$n`, `$Kn`, `O<key>`, `T<s>:<ns>`,
        /// `L<class>:<key>`, `oid(...)`, `uuid(...)`, `B64"..."`.
        mutating func lexWord() throws(QueryParseError) -> Token {
            let start = pos
            var text: [UInt8] = []
            var escaped = false
            while pos < bytes.count {
                let b = bytes[pos]
                if QueryParser.isIdentifierContinue(b) {
                    text.append(b)
                    pos += 1
                } else if b == UInt8(ascii: "\\") {
                    guard pos + 1 < bytes.count else {
                        throw error("unfinished escape '\\' at the end of the input", at: pos)
                    }
                    switch bytes[pos + 1] {
                    case UInt8(ascii: " "): text.append(0x20)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    default:
                        throw error("invalid escape '\\' followed by \(describeByte(at: pos + 1)) in a property name (only '\\ ', '\\t', '\\n' and '\\r' are allowed)", at: pos)
                    }
                    escaped = true
                    pos += 2
                } else {
                    break
                }
            }
            if escaped { return Token(kind: .escapedWord, start: start, end: pos, text: text) }
            let after: UInt8 = pos < bytes.count ? bytes[pos] : 0
            switch text.first {
            case UInt8(ascii: "$")?:
                if text.count > 1, text[1...].allSatisfy(QueryParser.isDigit) {
                    return Token(kind: .argument, start: start, end: pos, number: try argumentIndex(text[1...], start))
                }
                if text.count > 2, text[1] == UInt8(ascii: "K"), text[2...].allSatisfy(QueryParser.isDigit) {
                    return Token(kind: .keyPathArgument, start: start, end: pos, number: try argumentIndex(text[2...], start))
                }
            case UInt8(ascii: "O")?:
                if text.count > 1, text[1...].allSatisfy(QueryParser.isDigit) {
                    guard let key = Int64(String(decoding: text[1...], as: UTF8.self)) else {
                        throw error("the object key in '\(sourceText(start, pos))' is too large", at: start)
                    }
                    return Token(kind: .literal, start: start, end: pos, literal: .objectKey(key))
                }
            case UInt8(ascii: "T")?:
                if text.count == 1, after == UInt8(ascii: "+"), let timestamp = try lexTimestamp(start) { return timestamp }
                if after == UInt8(ascii: ":") {
                    // A name is never followed by ':': this can only be a timestamp.
                    if let timestamp = try lexTimestamp(start) { return timestamp }
                    throw error("malformed timestamp: expected T<seconds>:<nanoseconds> but found '\(sourceText(start, pos + 1))'", at: start)
                }
            case UInt8(ascii: "L")?:
                if after == UInt8(ascii: ":"), text.count > 1, text[1...].allSatisfy(QueryParser.isDigit), let link = try lexTypedLink(start) {
                    return link
                }
            default:
                break
            }
            if after == UInt8(ascii: "("), text == Array("oid".utf8) {
                return try lexObjectId(start: start)
            }
            if after == UInt8(ascii: "("), text == Array("uuid".utf8) {
                return try lexUUID(start: start)
            }
            if after == UInt8(ascii: "\"") || after == UInt8(ascii: "'"), text == Array("B64".utf8) {
                return try lexBase64(start: start)
            }
            return Token(kind: .word, start: start, end: pos, text: text)
        }

        /// The number of `$n` / `$Kn` from its digits.
        func argumentIndex(_ digits: ArraySlice<UInt8>, _ start: Int) throws(QueryParseError) -> Int {
            var n = 0
            for b in digits {
                n = n * 10 + Int(b - 0x30)
                if n > Int(Int32.max) {
                    throw error("argument number '\(sourceText(start, pos))' is too large", at: start)
                }
            }
            return n
        }

        /// A quoted string starting at `pos`; returns the decoded bytes.
        mutating func lexString() throws(QueryParseError) -> [UInt8] {
            let start = pos
            let quote = bytes[pos]
            pos += 1
            var text: [UInt8] = []
            while true {
                guard pos < bytes.count else {
                    throw error("unterminated string: no closing \(quote == 0x22 ? "'\"'" : "\"'\"") for the string starting", at: start)
                }
                let b = bytes[pos]
                if b == quote { pos += 1; return text }
                if b != UInt8(ascii: "\\") { text.append(b); pos += 1; continue }
                guard pos + 1 < bytes.count else {
                    throw error("unterminated string: the string starting at offset \(start) ends in an unfinished escape", at: pos)
                }
                let e = bytes[pos + 1]
                switch e {
                case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "/"):
                    text.append(e)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "0"): text.append(0x00)
                case UInt8(ascii: "u"):
                    let escapeStart = pos
                    pos += 2
                    var scalar = try lexHex4(escapeStart: escapeStart)
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        // A high surrogate must be followed by \u and a low one.
                        guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                            throw error("invalid \\u escape: a high surrogate must be followed by a \\u low surrogate", at: escapeStart)
                        }
                        pos += 2
                        let low = try lexHex4(escapeStart: escapeStart)
                        guard low >= 0xDC00 && low <= 0xDFFF else {
                            throw error("invalid \\u escape: expected a low surrogate after a high surrogate", at: escapeStart)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                        throw error("invalid \\u escape: unpaired low surrogate", at: escapeStart)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else {
                        throw error("invalid \\u escape", at: escapeStart)
                    }
                    text.append(contentsOf: Array(String(Character(unicode)).utf8))
                    continue
                default:
                    throw error("invalid escape '\\' followed by \(describeByte(at: pos + 1)) in a string (allowed: \\\\ \\' \\\" \\/ \\n \\t \\r \\b \\f \\0 \\uXXXX)", at: pos)
                }
                pos += 2
            }
        }

        /// Four hex digits at `pos` (just after "\u").
        mutating func lexHex4(escapeStart: Int) throws(QueryParseError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard pos < bytes.count, let h = QueryParser.hexValue(bytes[pos]) else {
                    throw error("invalid \\u escape: expected 4 hexadecimal digits but found \(describeByte(at: pos))", at: escapeStart)
                }
                value = value << 4 | UInt32(h)
                pos += 1
            }
            return value
        }

        /// A number at `pos`, sign included: decimal or hexadecimal digits,
        /// a fraction, an exponent, an `f` suffix.  It ends where its
        /// characters end (`1AND` is `1` then `AND`, as flex reads it).
        mutating func lexNumber() throws(QueryParseError) -> Token {
            let start = pos
            if bytes[pos] == UInt8(ascii: "-") || bytes[pos] == UInt8(ascii: "+") { pos += 1 }
            if bytes[pos] == UInt8(ascii: "0"), pos + 1 < bytes.count,
               bytes[pos + 1] == UInt8(ascii: "x") || bytes[pos + 1] == UInt8(ascii: "X") {
                pos += 2
                let digitsStart = pos
                while pos < bytes.count && QueryParser.hexValue(bytes[pos]) != nil { pos += 1 }
                guard pos > digitsStart else {
                    throw error("expected hexadecimal digits after '0x' but found \(describeByte(at: pos))", at: start)
                }
                return Token(kind: .hex, start: start, end: pos, text: Array(bytes[start..<pos]))
            }
            var isFloat = false
            while pos < bytes.count && QueryParser.isDigit(bytes[pos]) { pos += 1 }
            if pos < bytes.count && bytes[pos] == UInt8(ascii: ".") {
                isFloat = true
                pos += 1
                while pos < bytes.count && QueryParser.isDigit(bytes[pos]) { pos += 1 }
            }
            if pos < bytes.count && (bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E")) {
                var p = pos + 1
                let signed = p < bytes.count && (bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-"))
                if signed { p += 1 }
                if p < bytes.count && QueryParser.isDigit(bytes[p]) {
                    while p < bytes.count && QueryParser.isDigit(bytes[p]) { p += 1 }
                    pos = p
                    isFloat = true
                } else if signed || p >= bytes.count || !QueryParser.isIdentifierContinue(bytes[p]) {
                    throw error("malformed exponent in the number '\(sourceText(start, p))'", at: start)
                }
            }
            let end = pos
            var floatSuffix = false
            if pos < bytes.count && bytes[pos] == UInt8(ascii: "f") {
                floatSuffix = true
                isFloat = true
                pos += 1
            }
            return Token(kind: isFloat ? .float : .integer, start: start, end: pos, text: Array(bytes[start..<end]),
                         floatSuffix: floatSuffix)
        }

        /// Reads decimal digits at `p` (at least one); nil when there are
        /// none.  Values beyond `limit` read as `limit + 1`.
        func digits(at p: inout Int, limit: Int64 = 999_999_999) -> Int64? {
            var value: Int64 = 0
            let start = p
            while p < bytes.count && QueryParser.isDigit(bytes[p]) {
                value = min(value * 10 + Int64(bytes[p] - 0x30), limit + 1)
                p += 1
            }
            return p == start ? nil : value
        }

        /// `T<seconds>:<nanoseconds>` (each optionally signed) at `start`,
        /// or nil when the text is not of that shape (then it is a name).
        mutating func lexTimestamp(_ start: Int) throws(QueryParseError) -> Token? {
            var p = start + 1
            func sign(_ p: inout Int) -> Bool {
                guard p < bytes.count, bytes[p] == UInt8(ascii: "-") || bytes[p] == UInt8(ascii: "+") else { return false }
                p += 1
                return bytes[p - 1] == UInt8(ascii: "-")
            }
            let negativeSeconds = sign(&p)
            let secondsStart = p
            while p < bytes.count && QueryParser.isDigit(bytes[p]) { p += 1 }
            let secondsEnd = p
            guard secondsEnd > secondsStart, p < bytes.count, bytes[p] == UInt8(ascii: ":") else { return nil }
            p += 1
            let negativeNanos = sign(&p)
            let nanosStart = p
            while p < bytes.count && QueryParser.isDigit(bytes[p]) { p += 1 }
            let nanosEnd = p
            guard nanosEnd > nanosStart else { return nil }
            pos = p

            var magnitude: UInt64 = 0
            for i in secondsStart..<secondsEnd {
                let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(UInt64(bytes[i] - 0x30))
                if o1 || o2 || s > UInt64(Int64.max) + (negativeSeconds ? 1 : 0) {
                    throw error("timestamp seconds out of range in '\(sourceText(start, pos))'", at: start)
                }
                magnitude = s
            }
            let seconds = negativeSeconds ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude)
            var nanos: Int64 = 0
            for i in nanosStart..<nanosEnd {
                nanos = nanos &* 10 &+ Int64(bytes[i] - 0x30)
                if nanos >= 1_000_000_000 {
                    throw error("timestamp nanoseconds must be less than 1000000000 in '\(sourceText(start, pos))'", at: start)
                }
            }
            if negativeNanos { nanos = -nanos }
            if (seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0) {
                throw error("timestamp seconds and nanoseconds must have the same sign in '\(sourceText(start, pos))'", at: start)
            }
            return Token(kind: .literal, start: start, end: pos,
                         literal: .timestamp(seconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanos)))
        }

        /// `L<class key>:<object key>` at `start`, or nil when not of that shape.
        mutating func lexTypedLink(_ start: Int) throws(QueryParseError) -> Token? {
            var p = start + 1
            let classStart = p
            while p < bytes.count && QueryParser.isDigit(bytes[p]) { p += 1 }
            let classEnd = p
            guard p < bytes.count, bytes[p] == UInt8(ascii: ":") else { return nil }
            p += 1
            let keyStart = p
            while p < bytes.count && QueryParser.isDigit(bytes[p]) { p += 1 }
            guard p > keyStart else { return nil }
            pos = p
            guard let classKey = UInt32(String(decoding: bytes[classStart..<classEnd], as: UTF8.self)),
                  let objectKey = Int64(String(decoding: bytes[keyStart..<p], as: UTF8.self)) else {
                throw error("a key in '\(sourceText(start, p))' is too large", at: start)
            }
            return Token(kind: .literal, start: start, end: p, literal: .link(classKey: classKey, objectKey: objectKey))
        }

        /// `YYYY-MM-DD@HH:MM:SS[:NANOS]` (or with 'T' for '@'), in UTC, each
        /// part any number of digits; nil when the text is not of that shape
        /// (then it is a number).  As realm-core reads it: years before 1900
        /// are refused, the nanoseconds are written without a sign and take
        /// the sign of the seconds (`1969-12-31@23:59:59:1` is `T-1:-1`).
        mutating func lexReadableDate() throws(QueryParseError) -> Token? {
            let start = pos
            var p = pos
            guard let year = digits(at: &p), p < bytes.count, bytes[p] == UInt8(ascii: "-") else { return nil }
            p += 1
            guard let month = digits(at: &p), p < bytes.count, bytes[p] == UInt8(ascii: "-") else { return nil }
            p += 1
            guard let day = digits(at: &p), p < bytes.count,
                  bytes[p] == UInt8(ascii: "@") || bytes[p] == UInt8(ascii: "T") else { return nil }
            p += 1
            // From here on the text can only be a date.
            func malformed(_ p: Int) -> QueryParseError {
                error("malformed date: expected YYYY-MM-DD@HH:MM:SS[:NANOS] but found '\(sourceText(start, p + 1))'", at: start)
            }
            guard let hour = digits(at: &p), p < bytes.count, bytes[p] == UInt8(ascii: ":") else { throw malformed(p) }
            p += 1
            guard let minute = digits(at: &p), p < bytes.count, bytes[p] == UInt8(ascii: ":") else { throw malformed(p) }
            p += 1
            guard let second = digits(at: &p) else { throw malformed(p) }
            var nanos: Int64 = 0
            if p < bytes.count, bytes[p] == UInt8(ascii: ":") {
                if p + 1 < bytes.count, bytes[p + 1] == UInt8(ascii: "-") || bytes[p + 1] == UInt8(ascii: "+") {
                    throw error("the nanoseconds of a date are written without a sign (they take the sign of the seconds)", at: p + 1)
                }
                p += 1
                guard let n = digits(at: &p) else { throw malformed(p) }
                if n >= 1_000_000_000 {
                    throw error("date nanoseconds must be less than 1000000000", at: start)
                }
                nanos = n
            }
            if p < bytes.count && (QueryParser.isIdentifierContinue(bytes[p]) || bytes[p] == UInt8(ascii: "\\")
                                   || bytes[p] == UInt8(ascii: ".") || bytes[p] == UInt8(ascii: ":")) {
                throw error("malformed date: unexpected \(describeByte(at: p)) in '\(sourceText(start, p + 1))'", at: p)
            }
            pos = p
            let text = sourceText(start, pos)
            guard year >= 1900 else {
                throw error("dates before 1900 are not supported ('\(text)'); write T<seconds>:<nanoseconds>", at: start)
            }
            guard year <= 999_999_999 else {
                throw error("the year of the date '\(text)' is out of range", at: start)
            }
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard month >= 1 && month <= 12 else {
                throw error("invalid month \(month) in the date '\(text)'", at: start)
            }
            guard day >= 1 && day <= monthDays[Int(month - 1)] else {
                throw error("invalid day \(day) in the date '\(text)'", at: start)
            }
            guard hour <= 23, minute <= 59, second <= 59 else {
                throw error("invalid time of day in the date '\(text)'", at: start)
            }
            // Days from 1970-01-01 to the date (proleptic Gregorian calendar).
            let y = month <= 2 ? year - 1 : year
            let era = y / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
            // The seconds decide the sign of the nanoseconds (realm-core).
            if seconds < 0 { nanos = -nanos }
            return Token(kind: .literal, start: start, end: pos,
                         literal: .timestamp(seconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanos)))
        }

        /// Reads hex digit pairs at `pos` into `out`.
        mutating func lexHexBytes(_ count: Int, into out: inout [UInt8], what: String) throws(QueryParseError) {
            for _ in 0..<count {
                guard pos + 1 < bytes.count, let hi = QueryParser.hexValue(bytes[pos]), let lo = QueryParser.hexValue(bytes[pos + 1]) else {
                    let at = pos < bytes.count && QueryParser.hexValue(bytes[pos]) != nil ? pos + 1 : pos
                    throw error("malformed \(what): expected a hexadecimal digit but found \(describeByte(at: at))", at: at)
                }
                out.append(hi << 4 | lo)
                pos += 2
            }
        }

        /// Moves `pos` past whitespace.
        mutating func skipSpaces() {
            while pos < bytes.count && QueryParser.isSpace(bytes[pos]) { pos += 1 }
        }

        /// Consumes the byte `b` inside the literal `what`, or fails.
        mutating func expectByte(_ b: UInt8, what: String) throws(QueryParseError) {
            guard pos < bytes.count, bytes[pos] == b else {
                throw error("malformed \(what): expected '\(String(UnicodeScalar(b)))' but found \(describeByte(at: pos))", at: pos)
            }
            pos += 1
        }

        /// `oid(` + 24 hex digits + `)`; `pos` is at the '('.
        mutating func lexObjectId(start: Int) throws(QueryParseError) -> Token {
            let what = "oid(...) (it takes 24 hexadecimal digits)"
            pos += 1
            skipSpaces()
            var out: [UInt8] = []
            try lexHexBytes(12, into: &out, what: what)
            skipSpaces()
            try expectByte(UInt8(ascii: ")"), what: what)
            return Token(kind: .literal, start: start, end: pos, literal: .objectId(out))
        }

        /// `uuid(` + 8-4-4-4-12 hex digits + `)`; `pos` is at the '('.
        mutating func lexUUID(start: Int) throws(QueryParseError) -> Token {
            let what = "uuid(...) (it takes 8-4-4-4-12 hexadecimal digits)"
            pos += 1
            skipSpaces()
            var out: [UInt8] = []
            for (i, group) in [4, 2, 2, 2, 6].enumerated() {
                if i > 0 { try expectByte(UInt8(ascii: "-"), what: what) }
                try lexHexBytes(group, into: &out, what: what)
            }
            skipSpaces()
            try expectByte(UInt8(ascii: ")"), what: what)
            return Token(kind: .literal, start: start, end: pos, literal: .uuid(out))
        }

        /// `B64"..."`; `pos` is at the quote.
        mutating func lexBase64(start: Int) throws(QueryParseError) -> Token {
            let quote = bytes[pos]
            pos += 1
            var out: [UInt8] = []
            var accumulator: UInt32 = 0
            var bits = 0
            var count = 0
            var padding = 0
            while true {
                guard pos < bytes.count else {
                    throw error("unterminated base64 string: no closing quote for the B64 string starting", at: start)
                }
                let b = bytes[pos]
                if b == quote { pos += 1; break }
                let value: UInt32
                switch b {
                case 0x41...0x5A: value = UInt32(b - 0x41)
                case 0x61...0x7A: value = UInt32(b - 0x61 + 26)
                case 0x30...0x39: value = UInt32(b - 0x30 + 52)
                case UInt8(ascii: "+"): value = 62
                case UInt8(ascii: "/"): value = 63
                case UInt8(ascii: "="):
                    padding += 1
                    count += 1
                    pos += 1
                    continue
                default:
                    throw error("invalid base64 character \(describeByte(at: pos))", at: pos)
                }
                if padding > 0 {
                    throw error("invalid base64: data after '=' padding", at: pos)
                }
                accumulator = (accumulator << 6 | value) & 0xFFFFFF
                bits += 6
                count += 1
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                }
                pos += 1
            }
            let dataChars = count - padding
            if padding > 2 || dataChars % 4 == 1 || (padding > 0 && count % 4 != 0) {
                throw error("invalid base64 length in B64\"...\"", at: start)
            }
            return Token(kind: .literal, start: start, end: pos, literal: .binary(out))
        }
}

extension QueryParser {

    // MARK: - Spellings

    /// The canonical spelling of a comparison operator.
    static func spelling(_ op: QueryOperator) -> String {
        switch op {
        case .equal: return "=="
        case .notEqual: return "!="
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .contains: return "CONTAINS"
        case .like: return "LIKE"
        }
    }

    /// The spelling of an arithmetic operator.
    static func spelling(_ op: QueryArithmeticOperator) -> String {
        switch op {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        }
    }
}
