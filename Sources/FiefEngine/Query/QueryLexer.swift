// The query lexer: the tokens of Realm's query language (the grammar is in
// QueryParser.swift), read on demand by the parser, one at a time, from the
// UTF-8 bytes of the text: names and keywords, numbers, strings, literals
// (timestamps, oid, uuid, B64, O<key>, L<class>:<key>), arguments and
// operators.
import FiefStorage

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
