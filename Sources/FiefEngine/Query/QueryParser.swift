// The predicate parser: Realm query language text -> `QueryExpression`.
//
// A hand-written recursive-descent parser over the UTF-8 bytes of the text,
// with a small on-demand lexer.  Only the Swift standard library is used.
//
// Grammar accepted now (keywords in capitals; see `Keyword` for the case
// rules of each):
//
//     query      := or-expr END
//     or-expr    := and-expr ( (OR | '||') and-expr )*
//     and-expr   := not-expr ( (AND | '&&') not-expr )*
//     not-expr   := (NOT | '!') not-expr | primary
//     primary    := '(' or-expr ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
//     comparison := operand operator options? operand
//     operator   := '==' | '=' | '!=' | '<>' | '<' | '<=' | '=<' | '>' | '>=' | '=>'
//                 | BEGINSWITH | ENDSWITH | CONTAINS | LIKE
//     options    := '[' ('c' | 'd' | 'cd' | 'dc') ']'     (after == != and string operators)
//     operand    := keypath | SELF | literal | argument
//     keypath    := identifier ( '.' identifier )*
//     SELF       := `self` or `SELF` alone (not escaped, no '.' after it): the
//                   element itself in a query over a collection of values
//     argument   := '$' digits | '%@'
//     literal    := number | string | true | false | null | nil | inf | nan
//                 | T<sec>:<nanos> | YYYY-MM-DD(@|T)HH:MM:SS[:NANOS]
//                 | oid(<24 hex>) | uuid(<8-4-4-4-12 hex>) | B64"<base64>"
//
// Where the full language will plug in (without a rewrite):
//   * suffixes (SORT/DISTINCT/LIMIT): `parseQuery`, after `parseOr`, already
//     recognises the words and reports them as unsupported;
//   * IN / BETWEEN / TEXT / GEOWITHIN: new cases in `parseOperator` (already
//     recognised, reported as unsupported) and in `QueryOperator`;
//   * ANY/SOME/ALL/NONE, SUBQUERY, `{lists}`, `@count`-style post-ops:
//     recognised in `parseOperand` / `parseKeyPath` and reported as
//     unsupported; they become new `QueryOperand` cases;
//   * arithmetic: `parseOperand` becomes the bottom of an additive /
//     multiplicative chain (the lexer already produces + - * / tokens and a
//     sign is only ever read at the start of an operand).  A '(' at the start
//     of a primary can then be tried as a predicate first and, on failure,
//     re-parsed as a value expression: the parser state is a plain value
//     (`pos`, `token`, counters), so backtracking is a copy.
//
// Robustness: no input-driven force unwraps or trapping arithmetic; nesting
// of '(' and NOT is limited to `QueryParser.maxNesting`, and the height of the
// produced tree to `QueryParser.maxHeight`, so neither the parser nor the
// consumers of the tree can run out of stack.

enum QueryParser {
    /// Deepest nesting of parentheses and NOT accepted.
    static let maxNesting = 100
    /// Tallest expression tree accepted (an AND/OR chain of n terms is n tall).
    static let maxHeight = 1000

    /// Parses `text` as a predicate.  Errors carry a message (which ends with
    /// "at offset N") and the byte offset into the UTF-8 of `text`.
    static func parse(_ text: String) throws(QueryParseError) -> QueryExpression {
        var parser = Parser(bytes: Array(text.utf8))
        return try parser.parseQuery()
    }
}

extension QueryParser {
    // MARK: - Tokens

    enum TokenKind: Equatable {
        case end
        case word            // identifier or keyword (text in `text`)
        case escapedWord     // identifier containing a backslash escape: never a keyword
        case decimal         // digits (text: the digits)
        case hex             // 0x... (text: the hex digits)
        case float           // 1.5, .5, 2e3 (text: the whole number)
        case string          // text: the decoded bytes
        case literal         // timestamp, oid, uuid, B64 (value in `literal`)
        case argument        // $n (number in `number`)
        case percentArgument // %@
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
    }

    /// Words with a meaning in the language.  Realm makes most keywords
    /// case-insensitive; NOT, ANY/SOME, ALL, NONE and IN only in all-lowercase or
    /// all-uppercase form (so `Not` is an ordinary property name).  TRUE/FALSE are
    /// taken case-insensitively here.
    enum Keyword {
        case and, or, not
        case truePredicate, falsePredicate
        case `true`, `false`, null, infinity, nan
        case beginsWith, endsWith, contains, like
        case `in`, between, text, geoWithin
        case anyQuantifier, allQuantifier, noneQuantifier, subquery
        case sort, distinct, limit

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
            case "true": return .true
            case "false": return .false
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
            default: return nil
            }
        }

        /// Keywords that can never be a key path component (Realm lets the
        /// operator and suffix words double as property names).
        var isReserved: Bool {
            switch self {
            case .and, .or, .not, .truePredicate, .falsePredicate, .true, .false, .null,
                 .infinity, .nan, .anyQuantifier, .allQuantifier, .noneQuantifier, .subquery:
                return true
            case .beginsWith, .endsWith, .contains, .like, .in, .between, .text, .geoWithin,
                 .sort, .distinct, .limit:
                return false
            }
        }
    }

    // MARK: - Character classes

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    @inline(__always) static func isLetter(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
    /// First byte of an identifier: letter, '_' or any byte of a multibyte UTF-8 character.
    @inline(__always) static func isIdentifierStart(_ b: UInt8) -> Bool {
        isLetter(b) || b == 0x5F || b >= 0x80
    }
    /// Later bytes of an identifier: also digits and '$'.
    @inline(__always) static func isIdentifierContinue(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || isDigit(b) || b == 0x24
    }
    @inline(__always) static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    // MARK: - Parser

    struct Parser {
        let bytes: [UInt8]
        /// Where the lexer continues (just after `token`, before any whitespace).
        var pos = 0
        /// The current (not yet consumed) token.
        var token = Token(kind: .end, start: 0, end: 0)
        /// How many `%@` were seen so far.
        var percentArguments = 0
        /// Current nesting of '(' and NOT.
        var nesting = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        // MARK: Errors

        func error(_ message: String, at offset: Int) -> QueryParseError {
            QueryParseError(message: "\(message) at offset \(offset)", offset: offset)
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

        func unsupported(_ what: String, at offset: Int) -> QueryParseError {
            error("\(what) is not supported yet", at: offset)
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

        func describeByte(at i: Int) -> String {
            guard i < bytes.count else { return "end of input" }
            let b = bytes[i]
            if b >= 0x21 && b < 0x7F { return "'\(String(UnicodeScalar(b)))'" }
            if b >= 0x80 { return "'\(sourceText(i, i + 1))'" }
            let digits = Array("0123456789ABCDEF".utf8)
            return "byte 0x\(String(UnicodeScalar(digits[Int(b >> 4)])))\(String(UnicodeScalar(digits[Int(b & 15)])))"
        }

        // MARK: Token helpers

        mutating func advance() throws(QueryParseError) {
            token = try lex()
        }

        var keyword: Keyword? {
            token.kind == .word ? Keyword.of(token.text) : nil
        }

        // MARK: Grammar

        mutating func parseQuery() throws(QueryParseError) -> QueryExpression {
            pos = 0
            percentArguments = 0
            nesting = 0
            try advance()
            if token.kind == .end {
                throw expected("a predicate")
            }
            let (expression, _) = try parseOr()
            switch token.kind {
            case .end:
                return expression
            case .rightParen:
                throw error("unbalanced ')': no matching '('", at: token.start)
            case .word:
                switch keyword {
                case .sort?: throw unsupported("SORT", at: token.start)
                case .distinct?: throw unsupported("DISTINCT", at: token.start)
                case .limit?: throw unsupported("LIMIT", at: token.start)
                default: break
                }
            default:
                break
            }
            throw expected("AND, OR or the end of the predicate")
        }

        /// Returns the expression and the height of its tree.
        mutating func parseOr() throws(QueryParseError) -> (QueryExpression, Int) {
            var (left, height) = try parseAnd()
            while token.kind == .orOr || keyword == .or {
                let at = token.start
                try advance()
                let (right, rightHeight) = try parseAnd()
                height = max(height, rightHeight) + 1
                try checkHeight(height, at: at)
                left = .or(left, right)
            }
            return (left, height)
        }

        mutating func parseAnd() throws(QueryParseError) -> (QueryExpression, Int) {
            var (left, height) = try parseNot()
            while token.kind == .andAnd || keyword == .and {
                let at = token.start
                try advance()
                let (right, rightHeight) = try parseNot()
                height = max(height, rightHeight) + 1
                try checkHeight(height, at: at)
                left = .and(left, right)
            }
            return (left, height)
        }

        mutating func parseNot() throws(QueryParseError) -> (QueryExpression, Int) {
            guard token.kind == .bang || keyword == .not else { return try parsePrimary() }
            let at = token.start
            try enter(at: at)
            try advance()
            let (inner, height) = try parseNot()
            nesting -= 1
            try checkHeight(height + 1, at: at)
            return (.not(inner), height + 1)
        }

        mutating func parsePrimary() throws(QueryParseError) -> (QueryExpression, Int) {
            switch token.kind {
            case .leftParen:
                let open = token.start
                try enter(at: open)
                try advance()
                let result = try parseOr()
                guard token.kind == .rightParen else { throw unclosed("(", ")", at: open) }
                try advance()
                nesting -= 1
                return result
            case .end:
                throw expected("a predicate")
            case .word:
                if keyword == .truePredicate { try advance(); return (.alwaysTrue, 1) }
                if keyword == .falsePredicate { try advance(); return (.alwaysFalse, 1) }
            default:
                break
            }
            return (try parseComparison(), 1)
        }

        mutating func parseComparison() throws(QueryParseError) -> QueryExpression {
            let left = try parseOperand()
            let (op, allowsOptions) = try parseOperator()
            var options = QueryStringOptions()
            if token.kind == .leftBracket {
                let open = token.start
                guard allowsOptions else {
                    throw error("'[c]'/'[d]' options are only allowed after ==, !=, BEGINSWITH, ENDSWITH, CONTAINS or LIKE", at: open)
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
            let right = try parseOperand(after: op)
            return .comparison(left, op, right, options)
        }

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

        /// The operator, and whether it may take `[c]`/`[d]` options.
        mutating func parseOperator() throws(QueryParseError) -> (QueryOperator, Bool) {
            let result: (QueryOperator, Bool)
            switch token.kind {
            case .equal: result = (.equal, true)
            case .notEqual: result = (.notEqual, true)
            case .less: result = (.less, false)
            case .lessOrEqual: result = (.lessOrEqual, false)
            case .greater: result = (.greater, false)
            case .greaterOrEqual: result = (.greaterOrEqual, false)
            case .word:
                switch keyword {
                case .beginsWith?: result = (.beginsWith, true)
                case .endsWith?: result = (.endsWith, true)
                case .contains?: result = (.contains, true)
                case .like?: result = (.like, true)
                case .in?: throw unsupported("IN", at: token.start)
                case .between?: throw unsupported("BETWEEN", at: token.start)
                case .text?: throw unsupported("TEXT", at: token.start)
                case .geoWithin?: throw unsupported("GEOWITHIN", at: token.start)
                default: throw expected("a comparison operator")
                }
            case .plus, .minus, .star, .slash:
                throw unsupported("arithmetic ('\(sourceText(token.start, token.end))')", at: token.start)
            case .leftBracket:
                throw unsupported("indexing a key path with '[...]'", at: token.start)
            default:
                throw expected("a comparison operator")
            }
            try advance()
            return result
        }

        mutating func parseOperand(after op: QueryOperator? = nil) throws(QueryParseError) -> QueryOperand {
            let what = op == nil ? "a key path, literal or argument" : "a key path, literal or argument after the operator"
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
                        throw unsupported("the quantifier '\(sourceText(token.start, token.end))'", at: token.start)
                    case .subquery:
                        throw unsupported("SUBQUERY", at: token.start)
                    case .and, .or, .not, .truePredicate, .falsePredicate:
                        throw expected(what)
                    default:
                        break // operator and suffix words may be property names
                    }
                }
                return try parseKeyPath()
            case .escapedWord:
                return try parseKeyPath()
            case .decimal, .hex, .float:
                let literal = try numberLiteral(negative: false)
                try advance()
                return .constant(literal)
            case .minus, .plus:
                let sign = token
                try advance()
                let negative = sign.kind == .minus
                switch token.kind {
                case .decimal, .hex, .float:
                    let literal = try numberLiteral(negative: negative)
                    try advance()
                    return .constant(literal)
                case .word where keyword == .infinity:
                    try advance()
                    return .constant(.double(negative ? -.infinity : .infinity))
                case .word where keyword == .nan:
                    try advance()
                    return .constant(.double(negative ? -.nan : .nan))
                default:
                    throw expected("a number after '\(sourceText(sign.start, sign.end))'")
                }
            case .string:
                let value = String(decoding: token.text, as: UTF8.self)
                try advance()
                return .constant(.string(value))
            case .literal:
                guard let literal = token.literal else { throw expected(what) }
                try advance()
                return .constant(literal)
            case .argument:
                let n = token.number
                try advance()
                return .argument(n)
            case .percentArgument:
                let n = percentArguments
                percentArguments += 1
                try advance()
                return .argument(n)
            case .atWord:
                throw unsupported("'\(sourceText(token.start, token.end))'", at: token.start)
            case .leftBrace:
                throw unsupported("a list literal '{...}'", at: token.start)
            default:
                throw expected(what)
            }
        }

        static let selfWord: [UInt8] = Array("self".utf8)
        static let selfWordUpper: [UInt8] = Array("SELF".utf8)

        mutating func parseKeyPath() throws(QueryParseError) -> QueryOperand {
            var components: [String] = []
            if token.kind == .word, token.text == Self.selfWord || token.text == Self.selfWordUpper {
                let start = token.start
                try advance()
                if token.kind == .dot {
                    throw unsupported("a key path after 'self'", at: start)
                }
                return .element
            }
            while true {
                switch token.kind {
                case .word:
                    if let kw = keyword, kw.isReserved {
                        throw error("the keyword '\(sourceText(token.start, token.end))' cannot be used as a property name", at: token.start)
                    }
                case .escapedWord:
                    break
                case .atWord:
                    throw unsupported("'\(sourceText(token.start, token.end))'", at: token.start)
                default:
                    throw expected("a property name after '.'")
                }
                components.append(String(decoding: token.text, as: UTF8.self))
                try advance()
                if token.kind == .float && bytes[token.start] == UInt8(ascii: ".") {
                    // `a.1`: the lexer read ".1" as a number.
                    throw error("expected a property name after '.' but found '\(sourceText(token.start + 1, token.end))'", at: token.start + 1)
                }
                guard token.kind == .dot else { return .keyPath(components) }
                try advance()
            }
        }

        func numberLiteral(negative: Bool) throws(QueryParseError) -> QueryLiteral {
            let t = token
            switch t.kind {
            case .float:
                let text = (negative ? "-" : "") + String(decoding: t.text, as: UTF8.self)
                guard let value = Double(text) else {
                    throw error("malformed number '\(sourceText(t.start, t.end))'", at: t.start)
                }
                return .double(value)
            case .decimal, .hex:
                let radix: UInt64 = t.kind == .hex ? 16 : 10
                var magnitude: UInt64 = 0
                var overflow = false
                for b in t.text {
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
                if t.kind == .hex {
                    throw error("hexadecimal literal '\(sourceText(t.start, t.end))' does not fit in a 64-bit integer", at: t.start)
                }
                // Out-of-range decimal integers become doubles.
                let text = (negative ? "-" : "") + String(decoding: t.text, as: UTF8.self)
                guard let value = Double(text) else {
                    throw error("malformed number '\(sourceText(t.start, t.end))'", at: t.start)
                }
                return .double(value)
            default:
                throw expected("a number")
            }
        }

        mutating func enter(at offset: Int) throws(QueryParseError) {
            nesting += 1
            if nesting > QueryParser.maxNesting {
                throw error("predicate is nested too deeply (more than \(QueryParser.maxNesting) levels of '(' and NOT)", at: offset)
            }
        }

        func checkHeight(_ height: Int, at offset: Int) throws(QueryParseError) {
            if height > QueryParser.maxHeight {
                throw error("predicate is too complex (more than \(QueryParser.maxHeight) nested terms)", at: offset)
            }
        }

        // MARK: - Lexer

        mutating func lex() throws(QueryParseError) -> Token {
            while pos < bytes.count && isSpace(bytes[pos]) { pos += 1 }
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
            case UInt8(ascii: "+"): return symbol(.plus, 1, &pos)
            case UInt8(ascii: "-"): return symbol(.minus, 1, &pos)
            case UInt8(ascii: "*"): return symbol(.star, 1, &pos)
            case UInt8(ascii: "/"): return symbol(.slash, 1, &pos)
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
            case UInt8(ascii: "$"):
                return try lexArgument()
            case UInt8(ascii: "%"):
                if next == UInt8(ascii: "@") { return symbol(.percentArgument, 2, &pos) }
                if next == UInt8(ascii: "K") { throw error("%K is not supported", at: start) }
                throw error("unexpected character '%' (only '%@' is supported)", at: start)
            case UInt8(ascii: "@"):
                pos += 1
                while pos < bytes.count && isIdentifierContinue(bytes[pos]) { pos += 1 }
                if pos == start + 1 { throw error("unexpected character '@'", at: start) }
                return Token(kind: .atWord, start: start, end: pos, text: Array(bytes[start..<pos]))
            case UInt8(ascii: "."):
                if isDigit(next) { return try lexNumber() }
                return symbol(.dot, 1, &pos)
            case 0x30...0x39:
                if let date = try lexReadableDate() { return date }
                return try lexNumber()
            case UInt8(ascii: "T"):
                if let timestamp = try lexTimestamp() { return timestamp }
                return try lexWord()
            default:
                if isIdentifierStart(c) || c == UInt8(ascii: "\\") { return try lexWord() }
                throw error("unexpected character \(describeByte(at: start))", at: start)
            }
        }

        mutating func lexWord() throws(QueryParseError) -> Token {
            let start = pos
            var text: [UInt8] = []
            var escaped = false
            while pos < bytes.count {
                let b = bytes[pos]
                if isIdentifierContinue(b) {
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
            if !escaped && pos < bytes.count {
                let after = bytes[pos]
                if after == UInt8(ascii: "("), text == Array("oid".utf8) {
                    return try lexObjectId(start: start)
                }
                if after == UInt8(ascii: "("), text == Array("uuid".utf8) {
                    return try lexUUID(start: start)
                }
                if (after == UInt8(ascii: "\"") || after == UInt8(ascii: "'")), text == Array("B64".utf8) {
                    return try lexBase64(start: start)
                }
            }
            return Token(kind: escaped ? .escapedWord : .word, start: start, end: pos, text: text)
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
                guard pos < bytes.count, let h = hexValue(bytes[pos]) else {
                    throw error("invalid \\u escape: expected 4 hexadecimal digits but found \(describeByte(at: pos))", at: escapeStart)
                }
                value = value << 4 | UInt32(h)
                pos += 1
            }
            return value
        }

        mutating func lexArgument() throws(QueryParseError) -> Token {
            let start = pos
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else {
                if pos < bytes.count && isIdentifierStart(bytes[pos]) {
                    throw unsupported("the variable or key-path argument '$\(sourceText(pos, pos + 1))...'", at: start)
                }
                throw error("expected an argument number after '$' but found \(describeByte(at: pos))", at: start)
            }
            var n = 0
            var overflow = false
            while pos < bytes.count && isDigit(bytes[pos]) {
                let (m, o1) = n.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int(bytes[pos] - 0x30))
                if o1 || o2 || s > Int(Int32.max) { overflow = true } else { n = s }
                pos += 1
            }
            if overflow {
                throw error("argument number '\(sourceText(start, pos))' is too large", at: start)
            }
            if pos < bytes.count && isIdentifierContinue(bytes[pos]) {
                throw error("unexpected \(describeByte(at: pos)) after the argument '\(sourceText(start, pos))'", at: pos)
            }
            return Token(kind: .argument, start: start, end: pos, number: n)
        }

        mutating func lexNumber() throws(QueryParseError) -> Token {
            let start = pos
            if bytes[pos] == UInt8(ascii: "0"), pos + 1 < bytes.count,
               bytes[pos + 1] == UInt8(ascii: "x") || bytes[pos + 1] == UInt8(ascii: "X") {
                pos += 2
                let digitsStart = pos
                while pos < bytes.count && hexValue(bytes[pos]) != nil { pos += 1 }
                guard pos > digitsStart else {
                    throw error("expected hexadecimal digits after '0x' but found \(describeByte(at: pos))", at: start)
                }
                try checkNumberEnd(start)
                return Token(kind: .hex, start: start, end: pos, text: Array(bytes[digitsStart..<pos]))
            }
            var isFloat = false
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
            if pos < bytes.count && bytes[pos] == UInt8(ascii: ".") {
                isFloat = true
                pos += 1
                while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
            }
            if pos < bytes.count && (bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E")) {
                var p = pos + 1
                if p < bytes.count && (bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-")) { p += 1 }
                guard p < bytes.count && isDigit(bytes[p]) else {
                    throw error("malformed exponent in the number '\(sourceText(start, p))'", at: start)
                }
                while p < bytes.count && isDigit(bytes[p]) { p += 1 }
                pos = p
                isFloat = true
            }
            try checkNumberEnd(start)
            return Token(kind: isFloat ? .float : .decimal, start: start, end: pos, text: Array(bytes[start..<pos]))
        }

        func checkNumberEnd(_ start: Int) throws(QueryParseError) {
            guard pos < bytes.count else { return }
            let b = bytes[pos]
            if isIdentifierContinue(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "\\") {
                throw error("unexpected \(describeByte(at: pos)) after the number '\(sourceText(start, pos))'", at: pos)
            }
        }

        /// Reads up to `maxCount` decimal digits at `p` (at least one).
        func digits(at p: inout Int, maxCount: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while p < bytes.count && isDigit(bytes[p]) {
                guard count < maxCount else { return nil }
                value = value &* 10 &+ Int64(bytes[p] - 0x30)
                count += 1
                p += 1
            }
            return count == 0 ? nil : value
        }

        /// `T<seconds>:<nanoseconds>`, or nil when the text is not of that shape
        /// (then it is an identifier).
        mutating func lexTimestamp() throws(QueryParseError) -> Token? {
            let start = pos
            var p = pos + 1
            let negativeSeconds = p < bytes.count && bytes[p] == UInt8(ascii: "-")
            if negativeSeconds { p += 1 }
            guard p < bytes.count, isDigit(bytes[p]) else { return nil }
            let secondsStart = p
            while p < bytes.count && isDigit(bytes[p]) { p += 1 }
            let secondsEnd = p
            guard p < bytes.count, bytes[p] == UInt8(ascii: ":") else { return nil }
            p += 1
            let negativeNanos = p < bytes.count && bytes[p] == UInt8(ascii: "-")
            if negativeNanos { p += 1 }
            guard p < bytes.count, isDigit(bytes[p]) else { return nil }
            let nanosStart = p
            while p < bytes.count && isDigit(bytes[p]) { p += 1 }
            let nanosEnd = p
            if p < bytes.count && (isIdentifierContinue(bytes[p]) || bytes[p] == UInt8(ascii: "\\")) { return nil }
            pos = p

            var seconds: Int64 = 0
            for i in secondsStart..<secondsEnd {
                let (m, o1) = seconds.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int64(bytes[i] - 0x30))
                if o1 || o2 {
                    throw error("timestamp seconds out of range in '\(sourceText(start, pos))'", at: start)
                }
                seconds = s
            }
            if negativeSeconds { seconds = -seconds }
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

        /// `YYYY-MM-DD@HH:MM:SS[:NANOS]` (or with 'T' for '@'), in UTC; nil when
        /// the text is not of that shape (then it is a number).
        mutating func lexReadableDate() throws(QueryParseError) -> Token? {
            let start = pos
            var p = pos
            guard p + 4 < bytes.count, bytes[p + 4] == UInt8(ascii: "-") else { return nil }
            guard let year = digits(at: &p, maxCount: 4), p == start + 4 else { return nil }
            p += 1
            guard let month = digits(at: &p, maxCount: 2),
                  p < bytes.count, bytes[p] == UInt8(ascii: "-") else { return nil }
            p += 1
            guard let day = digits(at: &p, maxCount: 2),
                  p < bytes.count, bytes[p] == UInt8(ascii: "@") || bytes[p] == UInt8(ascii: "T") else { return nil }
            p += 1
            guard let hour = digits(at: &p, maxCount: 2),
                  p < bytes.count, bytes[p] == UInt8(ascii: ":") else { return nil }
            p += 1
            guard let minute = digits(at: &p, maxCount: 2),
                  p < bytes.count, bytes[p] == UInt8(ascii: ":") else { return nil }
            p += 1
            guard let second = digits(at: &p, maxCount: 2) else { return nil }
            var nanos: Int64 = 0
            if p + 1 < bytes.count, bytes[p] == UInt8(ascii: ":"), isDigit(bytes[p + 1]) {
                p += 1
                guard let n = digits(at: &p, maxCount: 9) else {
                    throw error("date nanoseconds must be less than 1000000000", at: start)
                }
                nanos = n
            }
            if p < bytes.count && (isIdentifierContinue(bytes[p]) || bytes[p] == UInt8(ascii: "\\")
                                   || bytes[p] == UInt8(ascii: ".") || bytes[p] == UInt8(ascii: ":")) {
                throw error("malformed date: unexpected \(describeByte(at: p)) in '\(sourceText(start, p + 1))'", at: p)
            }
            pos = p
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard month >= 1 && month <= 12 else {
                throw error("invalid month \(month) in the date '\(sourceText(start, pos))'", at: start)
            }
            guard day >= 1 && day <= monthDays[Int(month - 1)] else {
                throw error("invalid day \(day) in the date '\(sourceText(start, pos))'", at: start)
            }
            guard hour <= 23, minute <= 59, second <= 59 else {
                throw error("invalid time of day in the date '\(sourceText(start, pos))'", at: start)
            }
            // Days from 1970-01-01 to the date (proleptic Gregorian calendar).
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            var seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
            // Seconds and nanoseconds carry the same sign (fief_timestamp_t).
            if seconds < 0 && nanos > 0 {
                seconds += 1
                nanos -= 1_000_000_000
            }
            return Token(kind: .literal, start: start, end: pos,
                              literal: .timestamp(seconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanos)))
        }

        /// Reads hex digit pairs at `pos` into `out`.
        mutating func lexHexBytes(_ count: Int, into out: inout [UInt8], what: String, start: Int) throws(QueryParseError) {
            for _ in 0..<count {
                guard pos + 1 < bytes.count, let hi = hexValue(bytes[pos]), let lo = hexValue(bytes[pos + 1]) else {
                    let at = pos < bytes.count && hexValue(bytes[pos]) != nil ? pos + 1 : pos
                    throw error("malformed \(what): expected a hexadecimal digit but found \(describeByte(at: at))", at: at)
                }
                out.append(hi << 4 | lo)
                pos += 2
            }
        }

        mutating func skipSpaces() {
            while pos < bytes.count && isSpace(bytes[pos]) { pos += 1 }
        }

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
            try lexHexBytes(12, into: &out, what: what, start: start)
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
                try lexHexBytes(group, into: &out, what: what, start: start)
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
}
