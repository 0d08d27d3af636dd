// The canonical text of a parsed query.
//
// `QuerySerializer.text` prints a `ParsedQuery` (or a predicate alone) in one
// fixed form that `QueryParser` reads back to an equal tree:
//
//     (age + 1) * 2 > 10 AND name BEGINSWITH[c] 'a' OR NOT ANY dogs.age IN {1, 2}
//     SORT(name ASC) DISTINCT(owner.name) LIMIT(10)
//
// * one space around binary operators and after commas; none inside
//   brackets, braces or parentheses;
// * keywords in capitals (AND, OR, NOT, ANY, IN, BEGINSWITH, SUBQUERY,
//   SORT, ASC, TRUEPREDICATE), literal words in lowercase (true, false,
//   null, inf, nan), operators in their first spelling (==, !=, <=, >=);
// * parentheses only where precedence needs them (AND binds tighter than
//   OR, NOT tighter than both; * and / tighter than + and -; chains lean
//   left, so a right-leaning tree keeps its parentheses);
// * strings in single quotes with escapes (\', \\, \n, \t, \r, \b, \f, \0,
//   \uXXXX for other control and invisible characters); binaries as
//   bin(B64"...") (B64"..." alone is a string); numbers in their shortest exact form (a double's shortest
//   round-trip digits, a decimal's text as written); timestamps as
//   T<seconds>:<nanoseconds>;
// * names as written, with '\ ', '\t', '\n' and '\r' for whitespace.
//
// Some trees have no text: names the language cannot spell (empty, with
// characters outside its identifiers, reserved words such as `and` or
// `null`), shapes the grammar cannot produce (an ANY around a constant, a
// string operator on arithmetic, [c] after <), and values out of their
// range (a timestamp whose parts differ in sign, a non-finite float).  For
// those `text` throws `FiefError(.queryInvalid)` naming the part.  A tree
// nested beyond the parser's limits prints text the parser refuses.
import FiefStorage

/// Prints parsed queries as canonical text: see above.
enum QuerySerializer {
    /// The canonical text of `query`: its predicate, then its stages.
    static func text(_ query: ParsedQuery) throws(FiefError) -> String {
        var printer = Printer()
        try printer.predicate(query.predicate, .or)
        for stage in query.ordering { try printer.stage(stage) }
        return printer.output
    }

    /// The canonical text of a predicate alone.
    static func text(_ predicate: QueryExpression) throws(FiefError) -> String {
        try text(ParsedQuery(predicate: predicate))
    }

    /// The canonical text of one operand (for messages).
    static func operand(_ operand: QueryOperand) throws(FiefError) -> String {
        var printer = Printer()
        try printer.value(operand, .additive)
        return printer.output
    }
}

extension QuerySerializer {
    /// How tightly a predicate binds: a child that binds less tightly than
    /// its place needs parentheses.
    enum PredicateLevel: Int, Comparable {
        case or, and, not
        static func < (a: PredicateLevel, b: PredicateLevel) -> Bool { a.rawValue < b.rawValue }
    }

    /// How tightly a value binds.
    enum ValueLevel: Int, Comparable {
        case additive, multiplicative, unary, atom
        static func < (a: ValueLevel, b: ValueLevel) -> Bool { a.rawValue < b.rawValue }
    }

    /// Where a key path is printed, which decides what it may hold (as in
    /// the parser).
    enum PathPlace {
        case value, quantified, plain
    }

    /// The error for a tree that has no text.
    static func invalid(_ message: String) -> FiefError {
        FiefError(.queryInvalid, "cannot write the query as text: \(message)")
    }

    struct Printer {
        var output = ""
        /// SUBQUERY variables in scope, innermost last.
        var variables: [String] = []

        // MARK: Predicates

        /// How tightly `predicate` binds.
        static func level(_ predicate: QueryExpression) -> PredicateLevel {
            switch predicate {
            case .or: return .or
            case .and: return .and
            default: return .not
            }
        }

        /// Prints `predicate` where at least `place` binds, in parentheses
        /// when it binds less tightly.
        mutating func predicate(_ predicate: QueryExpression, _ place: PredicateLevel) throws(FiefError) {
            let parenthesized = Self.level(predicate) < place
            if parenthesized { output += "(" }
            switch predicate {
            case .or(let a, let b):
                try self.predicate(a, .or)
                output += " OR "
                try self.predicate(b, .and)
            case .and(let a, let b):
                try self.predicate(a, .and)
                output += " AND "
                try self.predicate(b, .not)
            case .not(let inner):
                output += "NOT "
                try self.predicate(inner, .not)
            case .alwaysTrue:
                output += "TRUEPREDICATE"
            case .alwaysFalse:
                output += "FALSEPREDICATE"
            case .comparison(let lhs, let op, let rhs, let options):
                let stringOperator = op == .beginsWith || op == .endsWith || op == .contains || op == .like
                if !options.isEmpty && [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) {
                    throw invalid("[c]/[d] options cannot follow \(QueryParser.spelling(op))")
                }
                if stringOperator { try checkNotArithmetic(lhs, QueryParser.spelling(op)); try checkNotArithmetic(rhs, QueryParser.spelling(op)) }
                try test(lhs, QueryParser.spelling(op), options, rhs)
            case .membership(let lhs, let rhs, let options):
                try test(lhs, "IN", options, rhs)
            case .fullText(let lhs, let rhs):
                try checkNotArithmetic(lhs, "TEXT")
                try checkNotArithmetic(rhs, "TEXT")
                try test(lhs, "TEXT", [], rhs)
            case .between(let value, let low, let high):
                try checkNotArithmetic(value, "BETWEEN")
                try self.value(value, .additive)
                output += " BETWEEN {"
                try listElement(low)
                output += ", "
                try listElement(high)
                output += "}"
            case .geoWithin(let location, let shape):
                var target = location
                if case .quantified(_, let inner) = location { target = inner }
                guard case .keyPath = target else {
                    throw invalid("the left side of GEOWITHIN must be a key path")
                }
                try value(location, .additive)
                output += " GEOWITHIN "
                try geoShape(shape)
            }
            if parenthesized { output += ")" }
        }

        /// `lhs op[options] rhs`.
        mutating func test(_ lhs: QueryOperand, _ op: String, _ options: QueryStringOptions, _ rhs: QueryOperand) throws(FiefError) {
            try value(lhs, .additive)
            output += " " + op
            if !options.isEmpty {
                output += "["
                if options.contains(.caseInsensitive) { output += "c" }
                if options.contains(.diacriticInsensitive) { output += "d" }
                output += "]"
            }
            output += " "
            try value(rhs, .additive)
        }

        func checkNotArithmetic(_ operand: QueryOperand, _ op: String) throws(FiefError) {
            switch operand {
            case .arithmetic, .negated: throw invalid("\(op) cannot compare arithmetic")
            default: return
            }
        }

        // MARK: Values

        /// How tightly `operand` binds.
        static func level(_ operand: QueryOperand) -> ValueLevel {
            switch operand {
            case .arithmetic(_, .add, _), .arithmetic(_, .subtract, _): return .additive
            case .arithmetic: return .multiplicative
            case .negated: return .unary
            default: return .atom
            }
        }

        /// Prints `operand` where at least `place` binds, in parentheses
        /// when it binds less tightly.
        mutating func value(_ operand: QueryOperand, _ place: ValueLevel) throws(FiefError) {
            let parenthesized = Self.level(operand) < place
            if parenthesized { output += "(" }
            switch operand {
            case .arithmetic(let a, let op, let b):
                let level = Self.level(operand)
                try value(a, level)
                output += " \(QueryParser.spelling(op)) "
                // Chains lean left: a right operand as loose as this one
                // keeps its parentheses.
                try value(b, ValueLevel(rawValue: level.rawValue + 1) ?? .atom)
            case .negated(let inner):
                // A minus written against a number or a sign joins it, so
                // anything but a name, argument or `self` goes in parentheses.
                output += "-"
                switch inner {
                case .keyPath, .argument, .element:
                    try value(inner, .atom)
                default:
                    output += "("
                    try value(inner, .additive)
                    output += ")"
                }
            case .keyPath(let path):
                try keyPath(path, .value)
            case .constant(let literal):
                try self.literal(literal)
            case .argument(let n):
                try argument(n)
            case .element:
                output += "self"
            case .list(let elements):
                try list(elements)
            case .quantified(let quantifier, let inner):
                switch quantifier {
                case .any: output += "ANY "
                case .all: output += "ALL "
                case .none: output += "NONE "
                }
                switch inner {
                case .keyPath(let path):
                    try keyPath(path, .quantified)
                case .list(let elements):
                    try list(elements)
                case .argument(let n):
                    try argument(n)
                default:
                    throw invalid("ANY, ALL and NONE apply to a key path, a list or an argument only")
                }
            case .object(let className, let primaryKey):
                try object(className, primaryKey)
            case .subqueryCount(let subquery):
                try self.subquery(subquery)
            }
            if parenthesized { output += ")" }
        }

        /// `$n`.
        mutating func argument(_ n: Int) throws(FiefError) {
            guard n >= 0, n <= Int(Int32.max) else { throw invalid("argument number \(n) is out of range") }
            output += "$\(n)"
        }

        /// `{a, b}`.
        mutating func list(_ elements: [QueryOperand]) throws(FiefError) {
            output += "{"
            for (i, element) in elements.enumerated() {
                if i > 0 { output += ", " }
                try listElement(element)
            }
            output += "}"
        }

        /// A constant, argument or obj(...): what a list may hold.
        mutating func listElement(_ element: QueryOperand) throws(FiefError) {
            switch element {
            case .constant(let literal): try self.literal(literal)
            case .argument(let n): try argument(n)
            case .object(let className, let primaryKey): try object(className, primaryKey)
            default: throw invalid("a list {...} holds constants and arguments only")
            }
        }

        /// `obj('Class', primaryKey)`.
        mutating func object(_ className: String, _ primaryKey: QueryOperand) throws(FiefError) {
            output += "obj("
            string(className)
            output += ", "
            switch primaryKey {
            case .constant(let literal):
                switch literal {
                case .int, .string, .objectId, .uuid: try self.literal(literal)
                default: throw invalid("the primary key in obj(...) is an integer, a string, an object id or a uuid")
                }
            case .argument(let n):
                try argument(n)
            default:
                throw invalid("the primary key in obj(...) is a constant or an argument")
            }
            output += ")"
        }

        /// `SUBQUERY(collection, $var, predicate).@count`, the variable in scope
        /// inside.
        mutating func subquery(_ subquery: QuerySubquery) throws(FiefError) {
            let variable = subquery.variable
            guard variable.utf8.first == UInt8(ascii: "$"), variable.utf8.count >= 2,
                  !isArgumentShaped(Array(variable.utf8)) else {
                throw invalid("the SUBQUERY variable '\(variable)' must be a name starting with '$' (e.g. $x)")
            }
            guard !variables.contains(variable) else {
                throw invalid("the SUBQUERY variable '\(variable)' is already in use by an enclosing SUBQUERY")
            }
            output += "SUBQUERY("
            try keyPath(subquery.collection, .plain)
            output += ", "
            output += try name(variable)
            output += ", "
            variables.append(variable)
            try predicate(subquery.predicate, .or)
            variables.removeLast()
            output += ").@count"
        }

        // MARK: Key paths

        /// A key path: its start, steps and suffix, checked for what `place`
        /// allows (as the parser checks it).
        mutating func keyPath(_ path: QueryKeyPath, _ place: PathPlace) throws(FiefError) {
            var wroteStart = false
            switch path.start {
            case .object:
                guard !path.components.isEmpty else { throw invalid("a key path needs at least one step") }
            case .variable(let variable):
                guard variables.contains(variable) else {
                    throw invalid("the key path starts at '\(variable)', which is no SUBQUERY variable in scope")
                }
                output += try name(variable)
                wroteStart = true
            case .argument(let n):
                guard path.components.isEmpty else {
                    throw invalid("a key-path argument stands for the whole key path: no step may follow it")
                }
                guard n >= 0, n <= Int(Int32.max) else { throw invalid("argument number \(n) is out of range") }
                output += "$K\(n)"
                wroteStart = true
            }
            for (i, component) in path.components.enumerated() {
                let first = i == 0 && !wroteStart
                let dot = first ? "" : "."
                switch component {
                case .property(let property):
                    if first {
                        if variables.contains(property) {
                            throw invalid("the property '\(property)' has the name of a SUBQUERY variable in scope")
                        }
                        if place != .plain, property == "self" || property == "SELF", path.components.count == 1, path.suffix == nil {
                            throw invalid("a key path cannot be the property '\(property)' alone here: 'self' stands for the element")
                        }
                    }
                    output += dot + (try name(property))
                case .index(let n):
                    guard !first else { throw invalid("a key path cannot start with an index") }
                    guard n >= 0 else { throw invalid("the index \(n) is negative") }
                    output += "[\(n)]"
                case .first:
                    guard !first else { throw invalid("a key path cannot start with an index") }
                    output += "[FIRST]"
                case .last:
                    guard !first else { throw invalid("a key path cannot start with an index") }
                    output += "[LAST]"
                case .all:
                    guard !first else { throw invalid("a key path cannot start with an index") }
                    output += "[*]"
                case .key(let key):
                    guard !first else { throw invalid("a key path cannot start with an index") }
                    output += "["
                    string(key)
                    output += "]"
                case .argumentIndex(let n):
                    guard !first else { throw invalid("a key path cannot start with an index") }
                    output += "["
                    try argument(n)
                    output += "]"
                case .keys:
                    output += dot + "@keys"
                case .values:
                    output += dot + "@values"
                case .backlinks(let className, let property):
                    output += dot + "@links." + (try name(className)) + "." + (try name(property))
                case .allBacklinks:
                    guard i == path.components.count - 1 else { throw invalid("'@links' alone must end the key path") }
                    output += dot + "@links"
                }
            }
            guard let suffix = path.suffix else { return }
            guard place != .plain else { throw invalid("SORT, DISTINCT and a SUBQUERY's collection take key paths of properties, without '@' operations") }
            if path.components.last == .allBacklinks, suffix != .count {
                throw invalid("only '@count' may follow '@links'")
            }
            switch suffix {
            case .count:
                output += ".@count"
            case .type:
                output += ".@type"
            case .aggregate(let aggregate, let property):
                guard place != .quantified else { throw invalid("ANY, ALL and NONE cannot apply to an aggregate") }
                switch aggregate {
                case .min: output += ".@min"
                case .max: output += ".@max"
                case .sum: output += ".@sum"
                case .average: output += ".@avg"
                }
                if let property { output += "." + (try name(property)) }
            }
        }

        /// Whether `bytes` would lex as an argument (`$12`, `$K3`) rather than a name.
        func isArgumentShaped(_ bytes: [UInt8]) -> Bool {
            guard bytes.first == UInt8(ascii: "$") else { return false }
            if bytes.count > 1, bytes[1...].allSatisfy(QueryParser.isDigit) { return true }
            return bytes.count > 2 && bytes[1] == UInt8(ascii: "K") && bytes[2...].allSatisfy(QueryParser.isDigit)
        }

        /// `name` as the lexer reads it back as one name: whitespace
        /// escaped; throws when the language has no spelling for it.
        func name(_ name: String) throws(FiefError) -> String {
            let bytes = Array(name.utf8)
            guard let first = bytes.first else { throw invalid("a name cannot be empty") }
            var hasEscape = false
            for b in bytes {
                switch b {
                case 0x20, 0x09, 0x0A, 0x0D: hasEscape = true
                default:
                    guard QueryParser.isIdentifierContinue(b) else {
                        throw invalid("the name '\(name)' has a character the query language cannot write in a name")
                    }
                }
            }
            guard QueryParser.isIdentifierStart(first) || [0x20, 0x09, 0x0A, 0x0D].contains(first) else {
                throw invalid("the name '\(name)' cannot be written: a name starts with a letter, '_', '$' or a non-ASCII character")
            }
            if hasEscape {
                var out = ""
                for scalar in name.unicodeScalars {
                    switch scalar {
                    case " ": out += "\\ "
                    case "\t": out += "\\t"
                    case "\n": out += "\\n"
                    case "\r": out += "\\r"
                    default: out.unicodeScalars.append(scalar)
                    }
                }
                return out
            }
            if let keyword = QueryParser.Keyword.of(bytes), keyword.isReserved {
                throw invalid("'\(name)' is a keyword and cannot be written as a name")
            }
            if isArgumentShaped(bytes) {
                throw invalid("the name '\(name)' cannot be written: it reads as an argument")
            }
            if first == UInt8(ascii: "O"), bytes.count > 1, bytes[1...].allSatisfy(QueryParser.isDigit) {
                throw invalid("the name '\(name)' cannot be written: it reads as an object key literal")
            }
            return name
        }

        // MARK: Literals

        /// A literal in its canonical spelling.
        mutating func literal(_ literal: QueryLiteral) throws(FiefError) {
            switch literal {
            case .null:
                output += "null"
            case .bool(let b):
                output += b ? "true" : "false"
            case .int(let i):
                output += String(i)
            case .double(let d):
                if d.isNaN { output += "nan" }
                else if d.isInfinite { output += d < 0 ? "-inf" : "inf" }
                else { output += d.description }
            case .float(let f):
                guard f.isFinite else { throw invalid("a float literal must be finite (\(f))") }
                output += f.description + "f"
            case .decimal(let text):
                guard isDecimalText(text) else {
                    throw invalid("'\(text)' is no decimal literal: a number that neither a 64-bit integer nor a double holds as written")
                }
                output += text
            case .string(let s):
                string(s)
            case .timestamp(let seconds, let nanoseconds):
                guard nanoseconds > -1_000_000_000, nanoseconds < 1_000_000_000,
                      !(seconds > 0 && nanoseconds < 0), !(seconds < 0 && nanoseconds > 0) else {
                    throw invalid("the timestamp T\(seconds):\(nanoseconds) is invalid: both parts have one sign and |nanoseconds| < 10^9")
                }
                output += "T\(seconds):\(nanoseconds)"
            case .objectId(let bytes):
                guard bytes.count == 12 else { throw invalid("an object id has 12 bytes, not \(bytes.count)") }
                output += "oid(" + hex(bytes) + ")"
            case .uuid(let bytes):
                guard bytes.count == 16 else { throw invalid("a uuid has 16 bytes, not \(bytes.count)") }
                let h = hex(bytes)
                let parts = [h.prefix(8), h.dropFirst(8).prefix(4), h.dropFirst(12).prefix(4), h.dropFirst(16).prefix(4), h.dropFirst(20)]
                output += "uuid(" + parts.joined(separator: "-") + ")"
            case .binary(let bytes):
                output += "bin(B64\"" + base64(bytes) + "\")"
            case .objectKey(let key):
                guard key >= 0 else { throw invalid("the object key \(key) is negative") }
                output += "O\(key)"
            case .link(let classKey, let objectKey):
                guard objectKey >= 0 else { throw invalid("the object key \(objectKey) is negative") }
                output += "L\(classKey):\(objectKey)"
            }
        }

        /// Whether the parser reads `text` back as `.decimal(text)`.
        func isDecimalText(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            guard let first = bytes.first, first != UInt8(ascii: "+"), DecimalText(text) != nil else { return false }
            let isWhole = !bytes.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
            if isWhole && Int64(text) != nil { return false }
            return QueryLiteral.floatingPoint(text) == .decimal(text)
        }

        /// `'...'` with the escapes the lexer reads.
        mutating func string(_ s: String) {
            output += "'"
            for scalar in s.unicodeScalars {
                switch scalar {
                case "'": output += "\\'"
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case "\r": output += "\\r"
                case "\t": output += "\\t"
                case "\u{8}": output += "\\b"
                case "\u{C}": output += "\\f"
                case "\u{0}": output += "\\0"
                default:
                    if Self.isInvisible(scalar) {
                        output += Self.unicodeEscape(scalar)
                    } else {
                        output.unicodeScalars.append(scalar)
                    }
                }
            }
            output += "'"
        }

        /// Control, format, separator, private-use and unassigned characters:
        /// written as escapes so the text shows them.
        static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate:
                return true
            default:
                return false
            }
        }

        /// `\uXXXX`, or a surrogate pair of them beyond the basic plane.
        static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
            func four(_ v: UInt32) -> String {
                let digits = String(v, radix: 16, uppercase: false)
                return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            }
            let v = scalar.value
            guard v > 0xFFFF else { return four(v) }
            let offset = v - 0x10000
            return four(0xD800 + (offset >> 10)) + four(0xDC00 + (offset & 0x3FF))
        }

        func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789abcdef".unicodeScalars)
            var out = ""
            for b in bytes {
                out.unicodeScalars.append(digits[Int(b >> 4)])
                out.unicodeScalars.append(digits[Int(b & 15)])
            }
            return out
        }

        func base64(_ bytes: [UInt8]) -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars)
            var out = ""
            var i = 0
            while i < bytes.count {
                let chunk = bytes[i..<min(i + 3, bytes.count)]
                var group: UInt32 = 0
                for (j, b) in chunk.enumerated() { group |= UInt32(b) << UInt32(16 - 8 * j) }
                for j in 0..<4 {
                    if j <= chunk.count {
                        out.unicodeScalars.append(alphabet[Int((group >> UInt32(18 - 6 * j)) & 63)])
                    } else {
                        out += "="
                    }
                }
                i += 3
            }
            return out
        }

        // MARK: Geo shapes

        /// `geoBox(...)`, `geoCircle(...)`, `geoPolygon(...)` or `$n`.
        mutating func geoShape(_ shape: QueryGeoShape) throws(FiefError) {
            switch shape {
            case .argument(let n):
                try argument(n)
            case .box(let a, let b):
                output += "geoBox("
                try geoPoint(a)
                output += ", "
                try geoPoint(b)
                output += ")"
            case .circle(let center, let radius):
                output += "geoCircle("
                try geoPoint(center)
                output += ", "
                try geoNumber(radius)
                output += ")"
            case .polygon(let rings):
                guard !rings.isEmpty else { throw invalid("a polygon needs at least one ring") }
                output += "geoPolygon("
                for (i, ring) in rings.enumerated() {
                    guard !ring.isEmpty else { throw invalid("a ring of a polygon needs at least one point") }
                    if i > 0 { output += ", " }
                    output += "{"
                    for (j, point) in ring.enumerated() {
                        if j > 0 { output += ", " }
                        try geoPoint(point)
                    }
                    output += "}"
                }
                output += ")"
            }
        }

        /// `[lon, lat]` or `[lon, lat, alt]`.
        mutating func geoPoint(_ point: QueryGeoPoint) throws(FiefError) {
            output += "["
            try geoNumber(point.longitude)
            output += ", "
            try geoNumber(point.latitude)
            if let altitude = point.altitude {
                output += ", "
                try geoNumber(altitude)
            }
            output += "]"
        }

        /// A finite coordinate or radius, or `$n`.
        mutating func geoNumber(_ number: QueryGeoNumber) throws(FiefError) {
            switch number {
            case .argument(let n):
                try argument(n)
            case .value(let d):
                guard d.isFinite else { throw invalid("a coordinate must be finite (\(d))") }
                output += d.description
            }
        }

        // MARK: Stages

        /// ` SORT(...)`, ` DISTINCT(...)` or ` LIMIT(n)`.
        mutating func stage(_ stage: QueryOrderingStage) throws(FiefError) {
            switch stage {
            case .sort(let keys):
                guard !keys.isEmpty else { throw invalid("SORT needs at least one key") }
                output += " SORT("
                for (i, key) in keys.enumerated() {
                    if i > 0 { output += ", " }
                    try keyPath(key.keyPath, .plain)
                    output += key.ascending ? " ASC" : " DESC"
                }
                output += ")"
            case .distinct(let paths):
                guard !paths.isEmpty else { throw invalid("DISTINCT needs at least one key path") }
                output += " DISTINCT("
                for (i, path) in paths.enumerated() {
                    if i > 0 { output += ", " }
                    try keyPath(path, .plain)
                }
                output += ")"
            case .limit(let n):
                guard n >= 0 else { throw invalid("LIMIT(\(n)) is negative") }
                output += " LIMIT(\(n))"
            }
        }
    }
}
