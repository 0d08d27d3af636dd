// Type-safe queries (RealmSwift's `Query<T>` and `where {}`): a Swift
// expression over `$0` builds a tree of `QueryNode`s, which is written out as
// a predicate in Realm's query language with `$0`, `$1`... standing for the
// values it compares with, and handed to `filter` (fief_results_filter).
//
//     let puppies = realm.objects(Dog.self).where { $0.age < 2 && $0.name.starts(with: "R") }
//     // filter("((age < $0) && (name BEGINSWITH $1))", 2, "R")
//
// The text is what RealmSwift's `Query` produces, in the query language's
// own spelling where RealmSwift's NSPredicate format differs: `$n` for `%@`,
// `@keys`/`@values` for `@allKeys`/`@allValues`, `[*]` for `[%K]` with
// "#any", and `GEOWITHIN <shape>` for `IN %@` with a shape argument.  Values
// are always arguments, never spliced into the text; only key paths (from the
// key-path recorder, Internal/KeyPathRecorder.swift) and geo shapes are.
//
// Where RealmSwift's text is wrong, Fief writes the predicate it meant:
// a negated BETWEEN or GEOWITHIN keeps its NOT, and `!!x` is `NOT (NOT x)`
// (RealmSwift drops a NOT in these three); an aggregate or subquery over a
// collection reached through a link names the whole path to the collection
// (`object.list.@sum.value`, RealmSwift `object.@sum.list.value`); a bare
// Bool map subscript is compared with true.

import Foundation

/// Options of string comparisons in queries (`[c]`, `[d]`).
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int8

    public init(rawValue: Int8) {
        self.rawValue = rawValue
    }

    /// Upper and lower case letters compare equal (`[c]`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Letters with and without diacritics compare equal (`[d]`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// A type-safe query over objects of `T` (or over one of their properties,
/// of type `T`), written as a Swift expression and run as a predicate in
/// Realm's query language.  Never made directly: `where` hands one to its
/// closure.
///
///     let people = realm.objects(Person.self).where {
///         $0.name.starts(with: "J", options: .caseInsensitive) && $0.dogs.age.max < 2
///     }
///
/// Members of the object are properties of the query (`$0.name`), through
/// links (`$0.favoriteToy.name`), embedded objects and collections
/// (`$0.dogs.age`, true when any dog's age matches).  What each gives:
///
/// - Comparisons: `==`, `!=`, and for numbers, dates and strings `<`, `<=`,
///   `>`, `>=`, with a value or another property; `== nil`, `!= nil`.
/// - Strings and data: `contains(_:options:)`, `starts(with:options:)`,
///   `ends(with:options:)`, `equals(_:options:)`, `notEquals(_:options:)`
///   (options `.caseInsensitive`, `.diacriticInsensitive`), and for strings
///   `like(_:caseInsensitive:)` (`*` and `?` wildcards) and
///   `fullTextMatches(_:)`.
/// - Membership and ranges: `in(_:)`; `contains(lower..<upper)`,
///   `contains(lower...upper)` (BETWEEN).
/// - Collections: `contains(_:)` (an element), `containsAny(in:)`, `count`,
///   `min`, `max`, `avg`, `sum`; over a property of a collection of objects,
///   `$0.dogs.age.avg`.  Maps add `keys`, `values` and `[key]`.
/// - `&&`, `||`, `!`; `(condition over one collection).count` counts the
///   elements matching it (SUBQUERY): `($0.dogs.age > 5).count > 2`.
/// - `rawValue` of an enum property, `persistableValue` of a custom
///   persistable one; `[index]`, `[key]` and `any` into an `AnyRealmValue`;
///   `geoWithin(_:)` on an embedded GeoJSON point.
@dynamicMemberLookup
public struct Query<T> {
    fileprivate let node: QueryNode

    fileprivate init(_ node: QueryNode) {
        self.node = node
    }

    /// The query `where` hands to its closure: the object itself for
    /// collections of objects, `self` for collections of values (`$0 > 5`
    /// over a `List<Int>` is `self > $0`).
    init() {
        let isObject = (T.self as? any _Persistable.Type)?._fiefLinkTarget != nil
        node = .keyPath(QueryKeyPath(components: isObject ? [] : ["self"]))
    }

    // MARK: Building nodes

    private var keyPath: QueryKeyPath {
        guard case .keyPath(let path) = node else {
            if case .mapSubscript = node { preconditionFailure("Cannot apply key path to Map subscripts.") }
            preconditionFailure("Cannot apply a keypath to \(describe(node))")
        }
        return path
    }

    /// This key path followed by the member `name` (one or more properties).
    private func appending(_ name: String, isCollection: Bool, requiresAny: Bool) -> QueryNode {
        var path = keyPath
        path.components += name.split(separator: ".").map(String.init)
        if isCollection && path.collectionPrefixCount == nil {
            path.collectionPrefixCount = path.components.count
        }
        path.requiresAny = path.requiresAny || requiresAny
        return .keyPath(path)
    }

    /// This key path as a whole (no `ANY`), optionally followed by `name`.
    private func erasingAny(appending name: String? = nil) -> QueryNode {
        var path = keyPath
        if let name { path.components.append(name) }
        path.requiresAny = false
        return .keyPath(path)
    }

    /// `collection.@avg.property` from `collection.property`.
    private func collectionAggregate(_ aggregate: String) -> QueryNode {
        var path = keyPath
        let position = path.collectionPrefixCount ?? (path.components.count > 1 ? 1 : path.components.count)
        path.components.insert(aggregate, at: Swift.min(position, path.components.count))
        path.requiresAny = false
        return .keyPath(path)
    }

    /// An `AnyRealmValue`'s nested collection subscripted by `element`.
    private func mixedSubscript(_ element: MixedSubscript) -> QueryNode {
        switch node {
        case .keyPath:
            return .mixedSubscripts(erasingAny(), [element])
        case .mixedSubscripts(let path, let elements):
            return .mixedSubscripts(path, elements + [element])
        default:
            preconditionFailure("Cannot add subscript to \(describe(node))")
        }
    }

    private func comparison(_ op: QueryOperator, _ rhs: QueryNode, _ options: StringOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(op, node, rhs, options))
    }

    /// Whether values of `type` are collections (List, MutableSet, Map,
    /// LinkingObjects): a path through one is to-many.
    private static func isCollection<V>(_ type: V.Type) -> Bool {
        type is FiefCollectionProtocol.Type || type is _FiefLinkingObjects.Type
    }

    // MARK: Equality and membership

    /// Whether the property equals `rhs`; `== nil` tests for null.
    public static func == (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        lhs.comparison(.equal, .constant(rhs))
    }

    /// Whether the property equals another property.
    public static func == (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        lhs.comparison(.equal, rhs.node)
    }

    /// Whether the property differs from `rhs`; `!= nil` tests for a value.
    public static func != (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        lhs.comparison(.notEqual, .constant(rhs))
    }

    /// Whether the property differs from another property.
    public static func != (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        lhs.comparison(.notEqual, rhs.node)
    }

    /// Whether the property's value is one of `collection`'s (IN, one list argument).
    public func `in`<U: Sequence>(_ collection: U) -> Query<Bool> where U.Element == T {
        comparison(.in, .constant(Array(collection)))
    }

    // MARK: Members

    /// A property of the object (`$0.name`).
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        Query<V>(appending(fiefKeyPathString(member, of: T.self), isCollection: Self.isCollection(V.self), requiresAny: false))
    }

    /// A map property of the object: comparisons on it hold for any value.
    public subscript<V: RealmKeyedCollection>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        Query<V>(appending(fiefKeyPathString(member, of: T.self), isCollection: true, requiresAny: true))
    }

    /// A list, set or linking-objects property of the object: comparisons
    /// on it (or on its elements' properties) hold for any element.
    public subscript<V: RealmCollection>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        Query<V>(appending(fiefKeyPathString(member, of: T.self), isCollection: true, requiresAny: true))
    }

    // MARK: Predicate text

    /// RealmSwift's testing hook: a query on `T` as `where` starts one.
    public static func _constructForTesting() -> Query<T> {
        Query()
    }

    /// The predicate in Realm's query language and its arguments (`$0` is
    /// the first): what `where` passes to `filter`.
    public func _constructPredicate() -> (String, [Any]) {
        node.predicateText()
    }
}

// MARK: - Numbers and dates

extension Query where T: _HasPersistedType, T.PersistedType: _QueryNumeric {
    /// Whether the value is greater than `rhs`.
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.greaterThan, .constant(rhs)) }
    /// Whether the value is greater than another property's.
    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.greaterThan, rhs.node) }
    /// Whether the value is greater than or equal to `rhs`.
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.greaterThanOrEqual, .constant(rhs)) }
    /// Whether the value is greater than or equal to another property's.
    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.greaterThanOrEqual, rhs.node) }
    /// Whether the value is less than `rhs`.
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.lessThan, .constant(rhs)) }
    /// Whether the value is less than another property's.
    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.lessThan, rhs.node) }
    /// Whether the value is less than or equal to `rhs`.
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.lessThanOrEqual, .constant(rhs)) }
    /// Whether the value is less than or equal to another property's.
    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.lessThanOrEqual, rhs.node) }

    /// The smallest value of this property over a collection's objects
    /// (`$0.dogs.age.min` is `dogs.@min.age`).
    public var min: Query { Query(collectionAggregate("@min")) }
    /// The largest value of this property over a collection's objects.
    public var max: Query { Query(collectionAggregate("@max")) }
    /// The average of this property over a collection's objects.
    public var avg: Query { Query(collectionAggregate("@avg")) }
    /// The sum of this property over a collection's objects.
    public var sum: Query { Query(collectionAggregate("@sum")) }
}

// MARK: - Strings and binary data

extension Query where T: _HasPersistedType, T.PersistedType: _QueryBinary {
    /// Whether the value contains `value` (CONTAINS).
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        comparison(.contains, .constant(value), options)
    }

    /// Whether the value contains another property's value.
    public func contains<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparison(.contains, column.node, options)
    }

    /// Whether the value starts with `value` (BEGINSWITH).
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        comparison(.beginsWith, .constant(value), options)
    }

    /// Whether the value starts with another property's value.
    public func starts<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparison(.beginsWith, column.node, options)
    }

    /// Whether the value ends with `value` (ENDSWITH).
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        comparison(.endsWith, .constant(value), options)
    }

    /// Whether the value ends with another property's value.
    public func ends<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparison(.endsWith, column.node, options)
    }

    /// Whether the value equals `value`, with options (`==[c]`).
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        comparison(.equal, .constant(value), options)
    }

    /// Whether the value equals another property's value, with options.
    public func equals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparison(.equal, column.node, options)
    }

    /// Whether the value differs from `value`, with options (`!=[c]`).
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        comparison(.notEqual, .constant(value), options)
    }

    /// Whether the value differs from another property's value, with options.
    public func notEquals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparison(.notEqual, column.node, options)
    }
}

extension Query where T: _HasPersistedType, T.PersistedType: _QueryString {
    /// Whether the string matches `value`, where `?` stands for one
    /// character and `*` for any run of them (LIKE).
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        comparison(.like, .constant(value), caseInsensitive ? .caseInsensitive : [])
    }

    /// Whether the string matches the pattern another property holds.
    public func like<U>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        comparison(.like, column.node, caseInsensitive ? .caseInsensitive : [])
    }

    /// Whether the string, full-text indexed, holds every term of `terms`
    /// (TEXT; `-term` excludes, `prefix*` matches a prefix).  A Fief
    /// addition: RealmSwift has no type-safe full-text search.
    public func fullTextMatches(_ terms: String) -> Query<Bool> {
        comparison(.fullText, .constant(terms))
    }

    // Strings order bytewise (by UTF-8), as in Realm.

    /// Whether the value is greater than `rhs`.
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.greaterThan, .constant(rhs)) }
    /// Whether the value is greater than another property's.
    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.greaterThan, rhs.node) }
    /// Whether the value is greater than or equal to `rhs`.
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.greaterThanOrEqual, .constant(rhs)) }
    /// Whether the value is greater than or equal to another property's.
    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.greaterThanOrEqual, rhs.node) }
    /// Whether the value is less than `rhs`.
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.lessThan, .constant(rhs)) }
    /// Whether the value is less than another property's.
    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.lessThan, rhs.node) }
    /// Whether the value is less than or equal to `rhs`.
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> { lhs.comparison(.lessThanOrEqual, .constant(rhs)) }
    /// Whether the value is less than or equal to another property's.
    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { lhs.comparison(.lessThanOrEqual, rhs.node) }
}

// MARK: - Ranges

extension Query where T: Comparable {
    /// Whether the value lies in `range` (`>=` lower and `<` upper).
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Query<Bool>(.and(.comparison(.greaterThanOrEqual, node, .constant(range.lowerBound), []),
                         .comparison(.lessThan, node, .constant(range.upperBound), [])))
    }

    /// Whether the value lies in `range`, bounds included (BETWEEN).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        Query<Bool>(.between(node, lowerBound: .constant(range.lowerBound), upperBound: .constant(range.upperBound)))
    }
}

extension Query where T: OptionalProtocol, T.Wrapped: Comparable {
    /// Whether the value lies in `range` (`>=` lower and `<` upper).
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        Query<Bool>(.and(.comparison(.greaterThanOrEqual, node, .constant(range.lowerBound), []),
                         .comparison(.lessThan, node, .constant(range.upperBound), [])))
    }

    /// Whether the value lies in `range`, bounds included (BETWEEN).
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        Query<Bool>(.between(node, lowerBound: .constant(range.lowerBound), upperBound: .constant(range.upperBound)))
    }
}

// MARK: - Logic and subqueries

extension Query where T == Bool {
    /// The condition does not hold (NOT).
    public static prefix func ! (_ query: Query) -> Query<Bool> {
        Query(.not(query.node))
    }

    /// Both conditions hold.
    public static func && (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query(.and(lhs.node, rhs.node))
    }

    /// Either condition holds.
    public static func || (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query(.or(lhs.node, rhs.node))
    }

    /// The number of elements of one collection for which this condition,
    /// over their properties, holds (SUBQUERY):
    ///
    ///     people.where { ($0.dogs.age > 5 && $0.dogs.color == "tan").count >= 2 }
    ///
    /// The condition may name one collection only.
    public var count: Query<Int> {
        Query<Int>(.subqueryCount(node))
    }
}

// MARK: - Links

extension Query where T: OptionalProtocol {
    /// A property of the linked (or embedded) object (`$0.favoriteToy.name`).
    public subscript<V>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> where T.Wrapped: ObjectBase {
        Query<V>(appending(fiefKeyPathString(member, of: T.Wrapped.self), isCollection: Self.isCollection(V.self), requiresAny: false))
    }
}

extension Query where T: OptionalProtocol, T.Wrapped: EmbeddedObject {
    /// Whether the point this embedded GeoJSON object holds lies within
    /// `shape` (GEOWITHIN), a `GeoBox`, `GeoPolygon` or `GeoCircle`.
    public func geoWithin<Shape: _FiefQueryShape>(_ shape: Shape) -> Query<Bool> {
        Query<Bool>(.geoWithin(node, shape: shape))
    }
}

/// A geospatial shape a query can test points against: its text in the
/// query language (`geoBox([lon, lat], [lon, lat])`, `geoPolygon({...})`,
/// `geoCircle([lon, lat], radians)`), which `geoWithin` writes into the
/// predicate.  `GeoBox`, `GeoPolygon` and `GeoCircle` conform.
public protocol _FiefQueryShape {
    var _fiefQueryText: String { get }
}

// MARK: - Lists, sets and linking objects

extension Query where T: RealmCollection {
    /// A property of the collection's objects: comparisons on it hold when
    /// they hold for any object (`$0.dogs.age > 5`).
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: ObjectBase {
        Query<V>(appending(fiefKeyPathString(member, of: T.Element.self), isCollection: Self.isCollection(V.self), requiresAny: false))
    }

    /// The number of elements (`@count`).
    public var count: Query<Int> {
        Query<Int>(erasingAny(appending: "@count"))
    }

    /// Whether `value` is one of the elements (`value IN collection`).
    public func contains(_ value: T.Element) -> Query<Bool> {
        Query<Bool>(.comparison(.in, .constant(value), erasingAny(), []))
    }

    /// Whether any element is one of `collection`'s (`ANY collection IN list`).
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Element {
        comparison(.in, .constant(Array(collection)))
    }

    /// Whether any element equals `rhs`.
    public static func == (_ lhs: Query, _ rhs: T.Element) -> Query<Bool> {
        lhs.comparison(.equal, .constant(rhs))
    }

    /// Whether any element differs from `rhs`.
    public static func != (_ lhs: Query, _ rhs: T.Element) -> Query<Bool> {
        lhs.comparison(.notEqual, .constant(rhs))
    }
}

extension Query where T: RealmCollection, T.Element: Comparable {
    /// Whether every element lies in `range` (`@min >=` lower, `@max <` upper).
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: false)
    }

    /// Whether every element lies in `range`, bounds included.
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: true)
    }
}

extension Query where T: RealmCollection, T.Element: OptionalProtocol, T.Element.Wrapped: Comparable {
    /// Whether every element lies in `range` (`@min >=` lower, `@max <` upper).
    public func contains(_ range: Range<T.Element.Wrapped>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: false)
    }

    /// Whether every element lies in `range`, bounds included.
    public func contains(_ range: ClosedRange<T.Element.Wrapped>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: true)
    }
}

extension Query where T: RealmCollection, T.Element.PersistedType: _QueryNumeric {
    /// Whether any element is greater than `rhs`.
    public static func > (_ lhs: Query, _ rhs: T.Element) -> Query<Bool> { lhs.comparison(.greaterThan, .constant(rhs)) }
    /// Whether any element is greater than or equal to `rhs`.
    public static func >= (_ lhs: Query, _ rhs: T.Element) -> Query<Bool> { lhs.comparison(.greaterThanOrEqual, .constant(rhs)) }
    /// Whether any element is less than `rhs`.
    public static func < (_ lhs: Query, _ rhs: T.Element) -> Query<Bool> { lhs.comparison(.lessThan, .constant(rhs)) }
    /// Whether any element is less than or equal to `rhs`.
    public static func <= (_ lhs: Query, _ rhs: T.Element) -> Query<Bool> { lhs.comparison(.lessThanOrEqual, .constant(rhs)) }

    /// The smallest element (`@min`).
    public var min: Query<T.Element> { Query<T.Element>(erasingAny(appending: "@min")) }
    /// The largest element (`@max`).
    public var max: Query<T.Element> { Query<T.Element>(erasingAny(appending: "@max")) }
    /// The average of the elements (`@avg`).
    public var avg: Query<T.Element> { Query<T.Element>(erasingAny(appending: "@avg")) }
    /// The sum of the elements (`@sum`).
    public var sum: Query<T.Element> { Query<T.Element>(erasingAny(appending: "@sum")) }
}

// MARK: - Maps

extension Query where T: RealmKeyedCollection {
    /// Whether any value is one of `collection`'s.
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Value {
        comparison(.in, .constant(Array(collection)))
    }

    /// Whether `value` is one of the map's values.
    public func contains(_ value: T.Value) -> Query<Bool> {
        Query<Bool>(.comparison(.in, .constant(value), erasingAny(), []))
    }

    /// The map's values: comparisons hold when they hold for any value (`@values`).
    public var values: Query<T.Value> {
        Query<T.Value>(appending("@values", isCollection: false, requiresAny: false))
    }

    /// The value for `key` (`map[$0]`).
    public subscript(member: T.Key) -> Query<T.Value> {
        Query<T.Value>(.mapSubscript(erasingAny(), key: member))
    }

    /// The number of entries (`@count`).
    public var count: Query<Int> {
        Query<Int>(erasingAny(appending: "@count"))
    }
}

extension Query where T: RealmKeyedCollection, T.Key == String {
    /// The map's keys: comparisons hold when they hold for any key (`@keys`).
    public var keys: Query<String> {
        Query<String>(appending("@keys", isCollection: false, requiresAny: false))
    }
}

extension Query where T: RealmKeyedCollection, T.Value: Comparable {
    /// Whether every value lies in `range` (`@min >=` lower, `@max <` upper).
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: false)
    }

    /// Whether every value lies in `range`, bounds included.
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: true)
    }
}

extension Query where T: RealmKeyedCollection, T.Value: OptionalProtocol, T.Value.Wrapped: Comparable {
    /// Whether every value lies in `range` (`@min >=` lower, `@max <` upper).
    public func contains(_ range: Range<T.Value.Wrapped>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: false)
    }

    /// Whether every value lies in `range`, bounds included.
    public func contains(_ range: ClosedRange<T.Value.Wrapped>) -> Query<Bool> {
        Query<Bool>.elementsWithin(self, range.lowerBound, range.upperBound, includingUpperBound: true)
    }
}

extension Query where T: RealmKeyedCollection, T.Value.PersistedType: _QueryNumeric {
    /// The smallest value (`@min`).
    public var min: Query<T.Value> { Query<T.Value>(erasingAny(appending: "@min")) }
    /// The largest value (`@max`).
    public var max: Query<T.Value> { Query<T.Value>(erasingAny(appending: "@max")) }
    /// The average of the values (`@avg`).
    public var avg: Query<T.Value> { Query<T.Value>(erasingAny(appending: "@avg")) }
    /// The sum of the values (`@sum`).
    public var sum: Query<T.Value> { Query<T.Value>(erasingAny(appending: "@sum")) }
}

extension Query where T == Bool {
    /// `collection.@min >= lower && collection.@max <(=) upper`.
    fileprivate static func elementsWithin<C>(_ collection: Query<C>, _ lower: Any, _ upper: Any, includingUpperBound: Bool) -> Query<Bool> {
        Query(.and(.comparison(.greaterThanOrEqual, collection.erasingAny(appending: "@min"), .constant(lower), []),
                   .comparison(includingUpperBound ? .lessThanOrEqual : .lessThan, collection.erasingAny(appending: "@max"), .constant(upper), [])))
    }
}

// MARK: - AnyRealmValue

extension Query where T == AnyRealmValue {
    /// The element at `position` of the nested list the value holds.
    public subscript(position: Int) -> Query<AnyRealmValue> {
        Query(mixedSubscript(.index(position)))
    }

    /// The value for `key` of the nested dictionary the value holds.
    public subscript(key: String) -> Query<AnyRealmValue> {
        Query(mixedSubscript(.key(key)))
    }

    /// Every element of the nested list or dictionary the value holds (`[*]`).
    public var any: Query<AnyRealmValue> {
        Query(mixedSubscript(.all))
    }
}

// MARK: - Enums and custom persistable types

extension Query where T: PersistableEnum {
    /// The enum's raw value, as stored: for conditions the enum's cases
    /// cannot express (`$0.mood.rawValue.starts(with: "s")`).
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(node) }
}

extension Query where T: OptionalProtocol, T.Wrapped: PersistableEnum {
    /// The enum's raw value, as stored.
    public var rawValue: Query<T.Wrapped.RawValue?> { Query<T.Wrapped.RawValue?>(node) }
}

extension Query where T: RealmCollection, T.Element: PersistableEnum, T.Element.RawValue: RealmCollectionValue {
    /// The raw values of the collection's enums.
    public var rawValue: Query<AnyRealmCollection<T.Element.RawValue>> { Query<AnyRealmCollection<T.Element.RawValue>>(node) }
}

extension Query where T: RealmKeyedCollection, T.Value: PersistableEnum, T.Value.RawValue: RealmCollectionValue {
    /// The raw values of the map's enums.
    public var rawValue: Query<Map<T.Key, T.Value.RawValue>> { Query<Map<T.Key, T.Value.RawValue>>(node) }
}

extension Query where T: _HasPersistedType {
    /// The value as stored (a custom persistable type's `persistableValue`,
    /// an enum's raw value): for conditions on the stored type, such as a
    /// property of the embedded object a custom type is stored as.
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}

extension Query where T: RealmCollection, T.Element.PersistedType: RealmCollectionValue {
    /// The elements as stored.
    public var persistableValue: Query<AnyRealmCollection<T.Element.PersistedType>> {
        Query<AnyRealmCollection<T.Element.PersistedType>>(node)
    }
}

extension Query where T: RealmKeyedCollection, T.Value.PersistedType: RealmCollectionValue {
    /// The map's values as stored.
    public var persistableValue: Query<Map<T.Key, T.Value.PersistedType>> {
        Query<Map<T.Key, T.Value.PersistedType>>(node)
    }
}

// MARK: - Marker protocols

/// Types queried as numbers (or dates): `<`, `>`, aggregates.
public protocol _QueryNumeric {}
extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension AnyRealmValue: _QueryNumeric {}
extension Optional: _QueryNumeric where Wrapped: _HasPersistedType, Wrapped.PersistedType: _QueryNumeric {}

/// Types queried as strings: LIKE, ordering, and the binary operations.
public protocol _QueryString: _QueryBinary {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped: _HasPersistedType, Wrapped.PersistedType: _QueryString {}

/// Types queried as bytes: CONTAINS, BEGINSWITH, ENDSWITH, equality with options.
public protocol _QueryBinary {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _HasPersistedType, Wrapped.PersistedType: _QueryBinary {}

// MARK: - where {}

extension Query where T == Bool {
    /// The predicate in Realm's query language and its arguments.
    var fiefPredicate: (String, [Any]) { node.predicateText() }
}

extension Results {
    /// The objects (or values) that match a type-safe query, as live
    /// results: `filter` with the predicate the query builds.
    ///
    ///     let puppies = realm.objects(Dog.self).where { $0.age < 2 }
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (predicate, arguments) = isIncluded(Query()).node.predicateText()
        return filter(predicate, arguments: arguments)
    }
}

extension List {
    /// The elements that match a type-safe query, in list order, as live
    /// results (fief_list_to_results, then `filter`).  Managed lists only:
    /// traps for an unmanaged list, as RealmSwift does.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (predicate, arguments) = isIncluded(Query()).node.predicateText()
        return results("filter").filter(predicate, arguments: arguments)
    }
}

extension MutableSet {
    /// The elements that match a type-safe query, as live results
    /// (fief_set_to_results, then `filter`).  Managed sets only: traps for
    /// an unmanaged set, as RealmSwift does.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (predicate, arguments) = isIncluded(Query()).node.predicateText()
        return results("filter").filter(predicate, arguments: arguments)
    }
}

extension Map {
    /// The values that match a type-safe query, as live results
    /// (fief_map_to_results, then `filter`): for a map of objects, the
    /// objects it holds.  Managed maps only: traps for an unmanaged map, as
    /// RealmSwift does.
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        let (predicate, arguments) = isIncluded(Query()).node.predicateText()
        return results("filter").filter(predicate, arguments: arguments)
    }
}

extension LinkingObjects {
    /// The linking objects that match a type-safe query, as live results.
    /// Traps for the linking objects of an unmanaged object, as RealmSwift does.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        guard let results else { preconditionFailure("Cannot filter the linking objects of an unmanaged object") }
        let (predicate, arguments) = isIncluded(Query()).node.predicateText()
        return results.filter(predicate, arguments: arguments)
    }
}

extension AnyRealmCollection {
    /// The elements that match a type-safe query, as live results.  Traps
    /// for a collection not backed by live results (unmanaged), as
    /// RealmSwift does.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (predicate, arguments) = isIncluded(Query()).node.predicateText()
        return box.results("filter").filter(predicate, arguments: arguments)
    }
}

extension RealmCollection {
    /// The elements that match a type-safe query, as live results (for code
    /// generic over `RealmCollection`; each collection type has its own).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        ((self as? AnyRealmCollection<Element>) ?? AnyRealmCollection(self)).where(isIncluded)
    }
}

// MARK: - The query tree

/// A key path inside a query: property names from the object queried.
private struct QueryKeyPath {
    var components: [String]
    /// How many leading components reach the first to-many hop (a list,
    /// set, map or linking objects); nil for a path without one.
    var collectionPrefixCount: Int? = nil
    /// Whether the path is written with ANY: a comparison on a collection
    /// member that holds when it holds for any element.
    var requiresAny = false

    var text: String { (requiresAny ? "ANY " : "") + components.joined(separator: ".") }
}

private enum QueryOperator: String {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case fullText = "TEXT"
}

/// One subscript into an `AnyRealmValue`'s nested collection.
private enum MixedSubscript {
    case index(Int)
    case key(String)
    case all
}

private indirect enum QueryNode {
    case keyPath(QueryKeyPath)
    /// A value, written as an argument.
    case constant(Any?)
    case comparison(QueryOperator, QueryNode, QueryNode, StringOptions)
    case between(QueryNode, lowerBound: QueryNode, upperBound: QueryNode)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case not(QueryNode)
    /// The number of elements of a collection a condition holds for.
    case subqueryCount(QueryNode)
    case mapSubscript(QueryNode, key: Any)
    case mixedSubscripts(QueryNode, [MixedSubscript])
    case geoWithin(QueryNode, shape: any _FiefQueryShape)

    /// The predicate text and its arguments.
    func predicateText() -> (String, [Any]) {
        var writer = PredicateWriter()
        writer.predicate(self)
        return (writer.text, writer.arguments)
    }

    /// The collection part of this key path, if it has one.
    var collectionPath: QueryKeyPath? {
        guard case .keyPath(let path) = self, path.collectionPrefixCount != nil else { return nil }
        return path
    }
}

/// A description of `node` for trap messages.
private func describe(_ node: QueryNode) -> String {
    node.predicateText().0
}

/// Writes a query tree as predicate text, numbering its arguments.
private struct PredicateWriter {
    var text = ""
    var arguments: [Any] = []
    /// Subqueries written so far (their variables are `$col1`, `$col2`...).
    var subqueryCount = 0

    /// `node` in the place of a condition.
    mutating func predicate(_ node: QueryNode, negated: Bool = false) {
        let not = negated ? "NOT " : ""
        switch node {
        case .not(let inner):
            if negated { text += not }
            predicate(inner, negated: true)
        case .and(let lhs, let rhs):
            compound(lhs, "&&", rhs, negated: negated)
        case .or(let lhs, let rhs):
            compound(lhs, "||", rhs, negated: negated)
        case .comparison(let op, let lhs, let rhs, let options):
            if lhs.collectionPath != nil && rhs.collectionPath != nil {
                preconditionFailure("Comparing two collection columns is not permitted.")
            }
            text += "(" + not
            value(lhs)
            text += " \(op.rawValue)\(optionsText(options)) "
            value(rhs)
            text += ")"
        case .between(let subject, let lower, let upper):
            text += "(" + not
            value(subject)
            text += " BETWEEN {"
            value(lower)
            text += ", "
            value(upper)
            text += "})"
        case .geoWithin(let subject, let shape):
            text += "(" + not
            value(subject)
            // RealmSwift's shapes as arguments, so that an invalid one is
            // named as RealmSwift names it (Internal/GeoErrors.swift);
            // other shapes as their text.
            text += " GEOWITHIN "
            if fiefRealmCoreGeoText(shape) != nil {
                argument(shape)
            } else {
                text += shape._fiefQueryText
            }
            text += ")"
        case .keyPath, .mapSubscript, .mixedSubscripts, .constant, .subqueryCount:
            value(node)
            text += negated ? " == false" : " == true"
        }
    }

    /// `(lhs && rhs)`, `NOT(lhs || rhs)`.
    private mutating func compound(_ lhs: QueryNode, _ op: String, _ rhs: QueryNode, negated: Bool) {
        text += negated ? "NOT(" : "("
        predicate(lhs)
        text += " \(op) "
        predicate(rhs)
        text += ")"
    }

    /// `node` in the place of a value (one side of a comparison).
    mutating func value(_ node: QueryNode) {
        switch node {
        case .keyPath(let path):
            text += path.text
        case .constant(let constant):
            // A nil of an optional type arrives wrapped (`Optional<Int>.none` as Any).
            argument(fiefUnwrap(constant) ?? NSNull())
        case .mapSubscript(let map, let key):
            value(map)
            text += "["
            argument(key)
            text += "]"
        case .mixedSubscripts(let mixed, let subscripts):
            value(mixed)
            for element in subscripts {
                switch element {
                case .index(let position):
                    text += "["
                    argument(position)
                    text += "]"
                case .key(let key):
                    text += "["
                    argument(key)
                    text += "]"
                case .all:
                    text += "[*]"
                }
            }
        case .subqueryCount(let condition):
            subqueryCount += 1
            let variable = "$col\(subqueryCount)"
            var rewriter = SubqueryRewriter(variable: variable)
            let rewritten = rewriter.rewrite(condition)
            guard let collection = rewriter.collection else {
                preconditionFailure("Subqueries must contain a keypath starting with a collection.")
            }
            text += "SUBQUERY(\(collection.joined(separator: ".")), \(variable), "
            predicate(rewritten)
            text += ").@count"
        case .comparison, .between, .and, .or, .not, .geoWithin:
            predicate(node)
        }
    }

    private mutating func argument(_ value: Any) {
        text += "$\(arguments.count)"
        arguments.append(value)
    }

    private func optionsText(_ options: StringOptions) -> String {
        if options.isEmpty { return "" }
        return "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

/// Turns a condition over a collection's elements (`dogs.age > 5`) into the
/// body of a SUBQUERY over it (`$col1.age > 5`), and finds the collection.
private struct SubqueryRewriter {
    let variable: String
    /// The key path of the collection the condition ranges over.
    private(set) var collection: [String]?

    init(variable: String) {
        self.variable = variable
    }

    mutating func rewrite(_ node: QueryNode) -> QueryNode {
        switch node {
        case .keyPath(var path):
            guard let prefix = path.collectionPrefixCount else { return node }
            let collectionPath = Array(path.components[..<prefix])
            if let collection, collection != collectionPath {
                preconditionFailure("A subquery may name only one collection: '\(collection.joined(separator: "."))' and '\(collectionPath.joined(separator: "."))' are both used.")
            }
            collection = collectionPath
            path.components = [variable] + path.components[prefix...]
            path.collectionPrefixCount = nil
            path.requiresAny = false
            return .keyPath(path)
        case .constant, .subqueryCount:
            // A nested subquery names its own collection.
            return node
        case .comparison(let op, let lhs, let rhs, let options):
            return .comparison(op, rewrite(lhs), rewrite(rhs), options)
        case .between(let subject, let lower, let upper):
            return .between(rewrite(subject), lowerBound: rewrite(lower), upperBound: rewrite(upper))
        case .and(let lhs, let rhs):
            return .and(rewrite(lhs), rewrite(rhs))
        case .or(let lhs, let rhs):
            return .or(rewrite(lhs), rewrite(rhs))
        case .not(let inner):
            return .not(rewrite(inner))
        case .geoWithin(let subject, let shape):
            return .geoWithin(rewrite(subject), shape: shape)
        case .mapSubscript:
            preconditionFailure("Subqueries do not support map subscripts.")
        case .mixedSubscripts:
            preconditionFailure("Subqueries do not support AnyRealmValue subscripts.")
        }
    }
}
