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
import FiefStorage

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
            if let constant = try parseConstant(what: what) { return constant }
            switch token.kind {
            case .word:
                switch keyword {
                case .anyQuantifier?, .allQuantifier?, .noneQuantifier?:
                    return try parseQuantified()
                case .and?, .or?, .not?, .truePredicate?, .falsePredicate?, .geoWithin?, .geoBox?, .geoPolygon?, .geoCircle?, .subquery?:
                    throw expected(what)
                default:
                    break // operator, suffix and index words may be property names
                }
                if let element = try parseSelf() { return element }
                return .keyPath(try parseKeyPath(.value, what: what))
            case .escapedWord, .atWord, .keyPathArgument, .percentKeyPath:
                return .keyPath(try parseKeyPath(.value, what: what))
            case .leftBrace:
                return try parseList()
            default:
                throw expected(what)
            }
        }

        /// A constant or an argument, consumed: a number, a string, a
        /// literal token (timestamp, oid, uuid, B64, O<key>, L<class>:<key>),
        /// `true`, `false`, `null`/`nil`, `inf`, `nan`, `bin(...)`,
        /// `obj(...)`, `$n` or `%@`.  Nil, with nothing consumed, when the
        /// current token starts none of them.  The one parser of constants:
        /// values and list elements both read theirs here.
        mutating func parseConstant(what: String) throws(QueryParseError) -> QueryOperand? {
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
                default: return nil
                }
            default:
                return nil
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
            if let constant = try parseConstant(what: what) { return constant }
            throw expected(what)
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
