// The parsed form of a predicate in Realm's query language.
//
// The parser (QueryParser.swift) turns text into a `QueryExpression`; the
// planner (QueryPlan.swift) binds it to a class's schema and arguments and
// compiles it into columnar evaluators.  Nothing here knows about storage.

/// A boolean predicate over the objects of one class.
indirect enum QueryExpression: Equatable, Sendable {
    case comparison(QueryOperand, QueryOperator, QueryOperand, QueryStringOptions)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
    case not(QueryExpression)
    /// `TRUEPREDICATE`
    case alwaysTrue
    /// `FALSEPREDICATE`
    case alwaysFalse
}

/// One side of a comparison.
enum QueryOperand: Equatable, Sendable {
    /// A property name, or a dotted path (`dog.name`), split at the dots.
    case keyPath([String])
    /// A literal written in the predicate.
    case constant(QueryLiteral)
    /// `$n`, or the n-th `%@` (counted from 0 in order of appearance).
    case argument(Int)
    /// `self`: the element itself, in a query over a collection of values
    /// (`self > 5`, `self BEGINSWITH 'a'`).
    case element
}

/// The comparison operators, each with every spelling the language accepts.
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

/// A literal value in predicate text.
enum QueryLiteral: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// `T<seconds>:<nanoseconds>` or `YYYY-MM-DD@HH:MM:SS[:NANOS]` (UTC).
    case timestamp(seconds: Int64, nanoseconds: Int32)
    /// `oid(24 hex digits)`
    case objectId([UInt8])
    /// `uuid(8-4-4-4-12 hex digits)`
    case uuid([UInt8])
    /// `B64"..."` (decoded bytes)
    case binary([UInt8])
}

/// Why a predicate does not parse: a message and the byte offset where the
/// parser stopped.
struct QueryParseError: Error, Equatable, Sendable {
    var message: String
    var offset: Int
}
