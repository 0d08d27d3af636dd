// The parsed form of a query in Realm's query language.
//
// The parser (QueryParser.swift) turns text into a `ParsedQuery`: a predicate
// (`QueryExpression`) and the SORT / DISTINCT / LIMIT stages after it.  The
// serializer (QuerySerializer.swift) prints any of these back as canonical
// text that parses to an equal value.  The compiler (QueryCompiler.swift,
// with the binder, QueryBinder*.swift) binds a predicate to a class's
// schema and arguments (QueryPlan.swift: what it makes).  Nothing here knows about
// storage: names are names, literals are values as written.
//
// The tree mirrors the grammar of realm-core's parser (`query_bison.yy`):
//
//     query      := predicate stage*
//     predicate  := comparison | IN | BETWEEN | TEXT | GEOWITHIN
//                 | AND | OR | NOT | TRUEPREDICATE | FALSEPREDICATE
//     operand    := key path | constant | argument | self | {list}
//                 | ANY/ALL/NONE operand | obj('Class', pk)
//                 | SUBQUERY(...).@count | operand (+ - * /) operand | -operand
//
// A few shapes the grammar cannot produce are representable (an ANY around a
// constant, a key path without components); the parser never builds them,
// the serializer refuses them with an error, and the binder need not expect
// them.  Each type below states its invariants.
import FiefStorage

/// A query: the predicate and the ordering stages written after it.
///
///     age > 5 SORT(name ASC) DISTINCT(owner.name) LIMIT(10)
///
/// `ordering` keeps the stages in the order written; they apply left to
/// right to the matching objects (`LIMIT(2) SORT(name ASC)` takes two, then
/// sorts them).
struct ParsedQuery: Equatable, Sendable {
    var predicate: QueryExpression
    var ordering: [QueryOrderingStage]
    /// The arguments written with printf-style number specifiers (`%d`,
    /// `%f` ...), which convert their argument before it is bound.
    var argumentFormats: [ArgumentFormat]

    init(predicate: QueryExpression, ordering: [QueryOrderingStage] = [], argumentFormats: [ArgumentFormat] = []) {
        self.predicate = predicate
        self.ordering = ordering
        self.argumentFormats = argumentFormats
    }

    /// `arguments` with those taken by a printf-style specifier converted
    /// as it asks (see `ArgumentFormat`); `arguments` itself when the text
    /// has none.
    func formatting(_ arguments: [QueryArgument]) throws(FiefError) -> [QueryArgument] {
        if argumentFormats.isEmpty { return arguments }
        var formatted = arguments
        for format in argumentFormats where format.argument < formatted.count {
            formatted[format.argument] = try format.apply(to: formatted[format.argument])
        }
        return formatted
    }
}

/// A printf-style number specifier in a predicate (NSPredicate's `%d`,
/// `%i`, `%ld`, `%lld`, `%u`, `%x`, `%f`, `%lf`, `%g` ...), which takes the
/// next argument as `%@` does and converts it: a whole-number specifier
/// takes any number (a floating-point one truncated toward zero, a bool as
/// 0 or 1) as an integer; a floating-point specifier takes any number as a
/// double.  Length modifiers never narrow the value.  Anything else (a
/// string, null, a list) is a `.queryArgument` error naming the specifier.
struct ArgumentFormat: Equatable, Sendable {
    enum Kind: Int, Sendable {
        case integer = 1
        case floatingPoint = 2
    }
    /// The argument's number (`$n`).
    var argument: Int
    var kind: Kind
    /// The specifier as written ("%ld"), for messages.
    var specifier: String

    func apply(to given: QueryArgument) throws(FiefError) -> QueryArgument {
        guard !given.isList, given.geoShape == nil, given.values.count == 1 else {
            throw refusal("a list or a shape")
        }
        let value = given.values[0]
        let converted: Value
        switch (kind, value) {
        case (.integer, .int), (.floatingPoint, .double):
            return given
        case (.integer, .bool(let b)):
            converted = .int(b ? 1 : 0)
        case (.integer, .float(let f)):
            converted = try integer(Double(f))
        case (.integer, .double(let d)):
            converted = try integer(d)
        case (.floatingPoint, .int(let i)):
            converted = .double(Double(i))
        case (.floatingPoint, .bool(let b)):
            converted = .double(b ? 1 : 0)
        case (.floatingPoint, .float(let f)):
            converted = .double(Double(f))
        default:
            let type = value.typeName
            throw refusal(value.type == nil ? "null" : ("aeiou".contains(type.first ?? "x") ? "an " : "a ") + type)
        }
        return QueryArgument(values: [converted], isList: false)
    }

    private func integer(_ d: Double) throws(FiefError) -> Value {
        let truncated = d.rounded(.towardZero)
        guard truncated.isFinite, truncated >= -9.223372036854775808e18, truncated < 9.223372036854775808e18 else {
            throw FiefError(.queryArgument, "argument \(argument) (for '\(specifier)') is \(d), which is no 64-bit integer")
        }
        return .int(Int64(truncated))
    }

    private func refusal(_ given: String) -> FiefError {
        let wanted = kind == .integer ? "a whole number" : "a number"
        return FiefError(.queryArgument, "argument \(argument) (for '\(specifier)') is \(given); '\(specifier)' takes \(wanted) (pass other values with %@)")
    }
}

/// A boolean predicate over the objects of one class (or the elements of a
/// collection of values, where `self` is the element).
indirect enum QueryExpression: Equatable, Sendable {
    /// `lhs op[options] rhs`: the ten comparison operators and the four
    /// string operators.  Either side may be any operand (arithmetic,
    /// quantified key paths, lists, ...); options only follow ==, != and the
    /// string operators, and the string operators never take arithmetic.
    case comparison(QueryOperand, QueryOperator, QueryOperand, QueryStringOptions)
    /// `lhs IN[options] rhs`: rhs is a list, a list argument or a
    /// collection key path (checked when bound).
    case membership(QueryOperand, QueryOperand, QueryStringOptions)
    /// `value BETWEEN {low, high}`, bounds included.  `value` is no
    /// arithmetic; the bounds are constants or arguments.
    case between(QueryOperand, low: QueryOperand, high: QueryOperand)
    /// `property TEXT 'terms'`: full-text search.  Neither side is arithmetic.
    case fullText(QueryOperand, QueryOperand)
    /// `location GEOWITHIN shape`: the left side is a key path, optionally
    /// quantified (`ANY partners.location GEOWITHIN ...`).
    case geoWithin(QueryOperand, QueryGeoShape)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
    case not(QueryExpression)
    /// `TRUEPREDICATE`
    case alwaysTrue
    /// `FALSEPREDICATE`
    case alwaysFalse
}

/// A value in a predicate: one side of a comparison, or part of one.
indirect enum QueryOperand: Equatable, Sendable {
    /// A property, or a path through links and collections (`dog.name`,
    /// `scores[FIRST]`, `@links.Person.dogs.@count`, `$K0`).
    case keyPath(QueryKeyPath)
    /// A literal written in the predicate.
    case constant(QueryLiteral)
    /// `$n`, or the n-th `%@` (counted from 0 in order of appearance, `%K`
    /// included): a value or a list of values given with the query.
    case argument(Int)
    /// `self` or `SELF` alone: the element itself, in a query over a
    /// collection of values (`self > 5`, `self BEGINSWITH 'a'`).  A key path
    /// that would be the one property `self` is always this case.
    case element
    /// `{1, 'two', $0}`: constants, arguments and `obj(...)` only (no nested
    /// lists, no key paths), possibly none.
    case list([QueryOperand])
    /// `ANY`/`SOME`, `ALL` or `NONE` before a key path (without an
    /// aggregate), a list or an argument.
    case quantified(QueryQuantifier, QueryOperand)
    /// `obj('Class', pk)`: the object of class `Class` whose primary key is
    /// `primaryKey`, a constant (int, string, object id or uuid) or an argument.
    case object(className: String, primaryKey: QueryOperand)
    /// `SUBQUERY(collection, $var, predicate).@count`.
    case subqueryCount(QuerySubquery)
    /// `lhs + rhs`, `lhs - rhs`, `lhs * rhs`, `lhs / rhs`.
    case arithmetic(QueryOperand, QueryArithmeticOperator, QueryOperand)
    /// `-operand` where the operand is not a number (`-age`, `-(a + b)`):
    /// a minus before a number is part of the number.
    case negated(QueryOperand)
}

/// A key path: where it starts, the steps taken, and an optional operation
/// on what it reaches.
///
///     dogs[FIRST].name          start .object, [.property("dogs"), .first, .property("name")]
///     $x.price                  start .variable("$x") (inside its SUBQUERY), [.property("price")]
///     items.@sum.price          [.property("items")], suffix .aggregate(.sum, property: "price")
///     @links.@count             [.allBacklinks], suffix .count
///     $K0                       start .argument(0), no components
///
/// Invariants: a path that starts at `.object` has at least one component;
/// one that starts at `.argument` has none (the argument stands for the whole
/// path; only a suffix may follow it); `.allBacklinks` is only ever the last
/// component.
struct QueryKeyPath: Equatable, Sendable {
    var start: QueryPathStart
    var components: [QueryPathComponent]
    var suffix: QueryPathSuffix?

    init(start: QueryPathStart = .object, _ components: [QueryPathComponent], suffix: QueryPathSuffix? = nil) {
        self.start = start
        self.components = components
        self.suffix = suffix
    }

    /// A path of property names from the queried object (`dog.name`).
    init(properties names: [String]) {
        self.init(names.map { .property($0) })
    }

    /// The property names when the path is only that: it starts at the
    /// object, every step is a property name and there is no suffix.
    var propertyNames: [String]? {
        guard start == .object, suffix == nil else { return nil }
        var names: [String] = []
        for component in components {
            guard case .property(let name) = component else { return nil }
            names.append(name)
        }
        return names
    }
}

extension QueryKeyPath: ExpressibleByArrayLiteral {
    /// `["dog", "name"]` is the path `dog.name`.
    init(arrayLiteral names: String...) {
        self.init(properties: names)
    }
}

/// Where a key path starts.
enum QueryPathStart: Equatable, Sendable {
    /// The object the predicate tests.
    case object
    /// A SUBQUERY variable in scope (`$x`, spelled with its `$`): the element
    /// of that SUBQUERY's collection.
    case variable(String)
    /// `$Kn` or `%K`: the whole path is the string argument n ("dog.name").
    case argument(Int)
}

/// One step of a key path.
enum QueryPathComponent: Equatable, Sendable {
    /// `.name`: a property, a dictionary key written as a name (`dict.key`),
    /// or `length` (element lengths; a real property so named comes first).
    case property(String)
    /// `[3]`: a list position (from 0).
    case index(Int)
    /// `[FIRST]`
    case first
    /// `[LAST]`
    case last
    /// `[*]`: every element.
    case all
    /// `['key']`: a dictionary value.
    case key(String)
    /// `[$n]`: a position or dictionary key taken from argument n.
    case argumentIndex(Int)
    /// `.@keys`: a dictionary's keys.
    case keys
    /// `.@values`: a dictionary's values.
    case values
    /// `.@links.Class.property`: the objects of `Class` linking here through
    /// `property`.
    case backlinks(className: String, property: String)
    /// `.@links` alone: every incoming link (`@links.@count`).
    case allBacklinks
}

/// What a key path ends with, after its steps.
enum QueryPathSuffix: Equatable, Sendable {
    /// `.@count`, `.@size` or `[SIZE]`: the size of a collection, the length
    /// of a string or binary.
    case count
    /// `.@type`: the type of a mixed value.
    case type
    /// `.@min`, `.@max`, `.@sum` or `.@avg`, over the values reached or, with
    /// `property`, over that property of the objects reached
    /// (`items.@sum.price`).
    case aggregate(QueryAggregate, property: String?)
}

/// The aggregates of a key path.
enum QueryAggregate: Equatable, Sendable {
    case min, max, sum, average
}

/// `ANY`/`SOME`, `ALL`, `NONE`.
enum QueryQuantifier: Equatable, Sendable {
    case any, all, none
}

/// `+ - * /`
enum QueryArithmeticOperator: Equatable, Sendable {
    case add, subtract, multiply, divide
}

/// The comparison operators, each with every spelling the language accepts.
/// (IN, BETWEEN, TEXT and GEOWITHIN are predicates of their own in
/// `QueryExpression`: they take other right-hand sides.)
enum QueryOperator: Equatable, Sendable {
    case equal          // == =
    case notEqual       // != <>
    case less           // <
    case lessOrEqual    // <= =<
    case greater        // >
    case greaterOrEqual // >= =>
    case beginsWith     // BEGINSWITH
    case endsWith       // ENDSWITH
    case contains       // CONTAINS
    case like           // LIKE (? and * wildcards)
}

/// `[c]` (case-insensitive) and `[d]` (diacritic-insensitive) after an operator.
struct QueryStringOptions: OptionSet, Equatable, Sendable {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }
    static let caseInsensitive = QueryStringOptions(rawValue: 1)
    static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
}

/// `SUBQUERY(collection, variable, predicate)`: the elements of `collection`
/// (objects) that match `predicate`, where `variable` (`$x`, with its `$`)
/// names the element: key paths starting `$x.` start at the element.
struct QuerySubquery: Equatable, Sendable {
    /// A key path without suffix.
    var collection: QueryKeyPath
    var variable: String
    var predicate: QueryExpression
}

/// A region for GEOWITHIN.
enum QueryGeoShape: Equatable, Sendable {
    /// `geoBox([lon, lat], [lon, lat])`: two opposite corners.
    case box(QueryGeoPoint, QueryGeoPoint)
    /// `geoPolygon({[lon, lat], ...}, {hole}, ...)`: the outer ring, then the
    /// holes; each ring has at least one point (closing and validity are
    /// checked when bound).
    case polygon([[QueryGeoPoint]])
    /// `geoCircle([lon, lat], radius)`, the radius in radians.
    case circle(center: QueryGeoPoint, radius: QueryGeoNumber)
    /// `$n`: a shape given as an argument.
    case argument(Int)
}

/// `[longitude, latitude]` or `[longitude, latitude, altitude]`.
struct QueryGeoPoint: Equatable, Sendable {
    var longitude: QueryGeoNumber
    var latitude: QueryGeoNumber
    var altitude: QueryGeoNumber?

    init(_ longitude: QueryGeoNumber, _ latitude: QueryGeoNumber, altitude: QueryGeoNumber? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude
    }
}

/// A number in a geo shape: written (always finite) or an argument.
enum QueryGeoNumber: Equatable, Sendable {
    case value(Double)
    case argument(Int)
}

/// One stage after the predicate.
enum QueryOrderingStage: Equatable, Sendable {
    /// `SORT(a ASC, b.c DESC)`: at least one key, the first the most significant.
    case sort([QuerySortKey])
    /// `DISTINCT(a, b.c)`: the first object of each distinct tuple of values.
    case distinct([QueryKeyPath])
    /// `LIMIT(n)`: the first n objects.
    case limit(Int)
}

/// A key of SORT: a key path without suffix, and its direction.
struct QuerySortKey: Equatable, Sendable {
    var keyPath: QueryKeyPath
    var ascending: Bool
}

/// A literal value in predicate text.
enum QueryLiteral: Sendable {
    case null
    case bool(Bool)
    /// A whole number in 64 bits: `42`, `-7`, `0x1F`.
    case int(Int64)
    /// A number with a fraction or an exponent that a double holds as
    /// written (`1.5`, `.5`, `10.`, `2e3`, `+8.1E-8`: the double's shortest
    /// decimal form has the value written), and `inf`, `-infinity`, `nan`.
    case double(Double)
    /// A number written with the `f` suffix (`1.5f`, `3f`): always finite.
    case float(Float)
    /// A number a double cannot hold as written: more significant digits
    /// than a double keeps (`3.141592653589793238`), an exponent beyond a
    /// double's range, or a whole number beyond 64 bits.  The text as
    /// written, without a leading '+', so a Decimal128 comparison takes
    /// every digit; `Double(text)` is its nearest double.
    case decimal(String)
    /// `'...'` or `"..."`, escapes decoded.
    case string(String)
    /// `T<seconds>:<nanoseconds>` or `YYYY-MM-DD@HH:MM:SS[:NANOS]` (UTC):
    /// both parts have the same sign; |nanoseconds| < 10^9.
    case timestamp(seconds: Int64, nanoseconds: Int32)
    /// `oid(24 hex digits)`: 12 bytes.
    case objectId([UInt8])
    /// `uuid(8-4-4-4-12 hex digits)`: 16 bytes.
    case uuid([UInt8])
    /// `bin('...')`, `binary("...")`, `bin(B64"...")` and `B64"..."` (the
    /// decoded bytes).  Fief reads `B64"..."` as binary, as it always has;
    /// realm-core reads it as a string (its serializer's escape), so
    /// `stringProperty == B64"..."` is refused here.
    case binary([UInt8])
    /// `O<key>`: an object of the link's target class, by object key.
    case objectKey(Int64)
    /// `L<class key>:<object key>`: an object of any class.
    case link(classKey: UInt32, objectKey: Int64)
}

extension QueryLiteral: Equatable {
    /// Equal values, NaN equal to NaN (whatever its sign and payload: `nan`
    /// and `-nan` are one literal), so that a tree equals its reparse.
    static func == (a: QueryLiteral, b: QueryLiteral) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.float(let x), .float(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 == s2 && n1 == n2
        case (.objectId(let x), .objectId(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.binary(let x), .binary(let y)): return x == y
        case (.objectKey(let x), .objectKey(let y)): return x == y
        case (.link(let c1, let k1), .link(let c2, let k2)): return c1 == c2 && k1 == k2
        default: return false
        }
    }
}

extension QueryLiteral {
    /// The literal for a number written with a fraction or an exponent
    /// (`text` is a sign, digits with at most one '.', and an optional
    /// exponent; no `f`): `.double` when the nearest double's shortest
    /// decimal form has the same value as `text`, `.decimal(text)` otherwise
    /// (a leading '+' dropped).  Also used for whole numbers beyond 64 bits.
    static func floatingPoint(_ text: String) -> QueryLiteral {
        let unsigned = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard let value = Double(unsigned), value.isFinite,
              let written = DecimalText(unsigned), let held = DecimalText(value.description),
              written == held else {
            return .decimal(unsigned)
        }
        return .double(value)
    }
}

/// The value of a decimal number's text, for comparing two spellings: the
/// sign, the significant digits (no leading or trailing zeros; none for
/// zero) and the power of ten of the last one.  `1.50`, `15e-1` and `+1.5`
/// are equal; `-0.0` and `0` are not (the sign of a zero is kept).
struct DecimalText: Equatable {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    /// nil unless `text` is `[+-]? digits [. digits] [(e|E) [+-]? digits]`
    /// with at least one digit before the exponent.
    init?(_ text: String) {
        var bytes = Array(text.utf8)[...]
        negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var all: [UInt8] = []
        var fractionDigits = 0
        var seenPoint = false
        while let b = bytes.first, b != UInt8(ascii: "e"), b != UInt8(ascii: "E") {
            if b == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
            } else if b >= 0x30 && b <= 0x39 {
                all.append(b)
                if seenPoint { fractionDigits += 1 }
            } else {
                return nil
            }
            bytes = bytes.dropFirst()
        }
        guard !all.isEmpty else { return nil }
        var exponent = 0
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty else { return nil }
            for b in bytes {
                guard b >= 0x30 && b <= 0x39 else { return nil }
                // Exponents beyond any representable range saturate.
                exponent = min(exponent * 10 + Int(b - 0x30), 1_000_000_000)
            }
            if exponentNegative { exponent = -exponent }
        }
        exponent -= fractionDigits
        var start = 0
        while start < all.count && all[start] == UInt8(ascii: "0") { start += 1 }
        var end = all.count
        while end > start && all[end - 1] == UInt8(ascii: "0") { end -= 1; exponent += 1 }
        digits = Array(all[start..<end])
        if digits.isEmpty { exponent = 0 }
        self.exponent = exponent
    }
}

/// Why a predicate does not parse: a message and the byte offset where the
/// parser stopped.  The message says what was expected and what was found,
/// and ends with "at offset N" and, for a non-empty text, a short excerpt
/// around that place: `(near 'a == 1 == AND')`.
struct QueryParseError: Error, Equatable, Sendable {
    var message: String
    var offset: Int
}
