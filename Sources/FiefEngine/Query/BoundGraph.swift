// What the binder makes of a key path and what evaluation reads: graph
// nodes (`GraphNode`), their steps (`GraphHop`), reaches (`PathReach`), value
// expressions (`ValueExpression`) and bound paths (`BoundPath`).
import FiefStorage

/// A predicate that reads other objects (or collections) than the values
/// of the object it tests, bound by `QueryBinder` and evaluated a cluster
/// at a time by `QueryScan`.  A class, so that a scan can keep what it
/// computed once per node.
final class GraphNode {
    enum Kind {
        /// Backward: the objects whose path reaches an object matching a
        /// predicate over the class it ends at.
        case reach(PathReach)
        /// Per object: the values of an expression (one, or many), each
        /// tested by `predicate` (bound over values, `self` standing for the
        /// value: see `QueryCompiler.compileElements`), quantified.
        case test(ValueExpression, predicate: QueryNode, quantifier: QueryQuantifier)
        /// Per object: two expressions compared; at most one is
        /// many-valued, and `quantifier` ranges over its values.
        case compare(ValueExpression, QueryOperator, ValueExpression, QueryStringOptions, quantifier: QueryQuantifier)
        /// Per object: the values of a many-valued expression, in their
        /// order, against a list given with the query, element by element
        /// (neither side quantified: `scores == {1, 2}`, `{5, 9} > prices`):
        /// as many values as elements, each pair matching `op` (for != every
        /// position differs), or, for != only, another number of values.
        /// (`listFirst`: the list is on the left.)
        case sequence(ValueExpression, QueryOperator, [SequenceElement], QueryStringOptions, listFirst: Bool)
        /// Per object: two many-valued expressions, every value of the first
        /// against every value of the second, quantified in that order
        /// (`ALL items.price IN ANY items.price`: each price of the first
        /// is some price of the second), as realm-core nests them.
        case compareMany(ValueExpression, QueryQuantifier, QueryOperator, ValueExpression, QueryQuantifier, QueryStringOptions)
        /// Per object: two many-valued expressions with no quantifier on
        /// either side (`list1.price == list2.price`), element by element
        /// in their order, as `sequence` compares one with a list given
        /// with the query.
        case compareInOrder(ValueExpression, QueryOperator, ValueExpression, QueryStringOptions)
        /// Per object: the GeoJSON point objects an expression reaches
        /// through a list position or map key (`locations[0]`), each tested
        /// against the region, quantified (see GeoQuery.swift).
        case geoTest(ValueExpression, GeoTarget, quantifier: QueryQuantifier)
        /// Per object: a comparison reading a path into the nested
        /// collections of mixed values, group by group (see NestedPath.swift).
        case nested(NestedComparison)
    }

    let kind: Kind
    /// The columns the node reads, by class (see `QueryNode.collectColumns`).
    let dependencies: [UInt32: Set<UInt32>]

    init(_ kind: Kind, dependencies: [UInt32: Set<UInt32>]) {
        self.kind = kind
        self.dependencies = dependencies
    }

    /// What the node answers for an object that is not there: the one a
    /// null link points to, whose values are all null, whose links are null
    /// and whose collections are empty.  (A key path crossing a null to-one
    /// link reads null, as in realm-core; a size reads 0.)
    var matchesNullObject: Bool {
        switch kind {
        case .reach(let reach):
            // Its first link is null: the path reads null (to-one links
            // only), or reaches nothing.
            if reach.nullLinksMatch { return true }
            return reach.complement || reach.orReachesNothing
        case .test(let expression, let predicate, let quantifier):
            if expression.isMany { return quantifier != .any }
            return QueryBinder.matches(predicate, expression.valueOfNullObject, expression)
        case .compare(let a, let op, let b, let options, let quantifier):
            if a.isMany || b.isMany { return quantifier != .any }
            let va = a.valueOfNullObject, vb = b.valueOfNullObject
            return a.isMixed || b.isMixed ? QueryEvaluator.compareMixed(va, op, vb, options) : QueryEvaluator.compareValues(va, op, vb, options)
        case .compareMany(_, let quantifier, _, _, _, _):
            // No values on the outer side.
            return quantifier != .any
        case .compareInOrder:
            // Two empty lists: one length, no position to differ.
            return true
        case .sequence(_, let op, let elements, _, _):
            // No values: a list of another length matches only !=; the empty list matches any operator.
            return op == .notEqual || elements.isEmpty
        case .geoTest(let expression, _, let quantifier):
            // No point: inside no region.
            return expression.isMany && quantifier != .any
        case .nested(let comparison):
            return comparison.matchesNullObject
        }
    }

    func collectColumns(table: UInt32, into columns: inout [UInt32: Set<UInt32>]) {
        for (table, read) in dependencies { columns[table, default: []].formUnion(read) }
    }
}

/// One step of a key path from the objects of one class to objects of
/// another (or the same) class.
struct GraphHop: Equatable {
    enum Kind: Equatable {
        /// A to-one link (or an embedded object): `property` of `from`.
        case link
        /// The objects of a list, set or map of links: `property` of `from`.
        case list, set, map
        /// `@links.Class.property`: the objects of `to` whose link (or list,
        /// set, map of links) `property` points to the object.
        case backlinks
        /// The object under key `key` of a map of links (`property` of
        /// `from`), if any: `kennel['home']`, `kennel.home`.
        case mapEntry([UInt8])
        /// The object at one position of a list of links: `dogs[0]`,
        /// `dogs[FIRST]`, `dogs[LAST]`.
        case listElement(ListIndex)
    }

    let kind: Kind
    /// The class the step starts at.
    let from: UInt32
    /// The class it reaches.
    let to: UInt32
    /// The link property: of `from`, or of `to` for backlinks.
    let property: UInt32

    /// Whether the step may reach many objects (or none).
    var isToMany: Bool {
        switch kind {
        case .link, .mapEntry, .listElement: return false
        case .list, .set, .map, .backlinks: return true
        }
    }

    /// Whether the step is only read forward: the backlinks of a target do
    /// not say under which key or at which position it is held.
    var isForwardOnly: Bool {
        switch kind {
        case .mapEntry, .listElement: return true
        default: return false
        }
    }

    /// The class holding the link property.
    var linkOwner: UInt32 { kind == .backlinks ? to : from }

    /// Record, for `hops`, each class passed and each link column read.
    static func collectColumns(_ hops: [GraphHop], into columns: inout [UInt32: Set<UInt32>]) {
        for hop in hops {
            columns[hop.linkOwner, default: []].insert(hop.property)
            _ = columns[hop.from, default: []]
            _ = columns[hop.to, default: []]
        }
    }
}

/// One element of a list compared element by element (`GraphNode.sequence`):
/// the constant, and whether values of the expression's type can equal it
/// (a string in a list compared with numbers never matches).
struct SequenceElement {
    let constant: QueryConstant
    let fits: Bool
}

/// A position in a list: from the start (0 is `[FIRST]`), or `[LAST]`.
enum ListIndex: Equatable {
    case at(Int)
    case last
}

/// A key path bound backward: the objects it reaches from the object
/// tested, and what they must match.
///
/// The answer for an object is: whether its path reaches an object of
/// `target` (`complement`: whether it reaches none); with `nullLinksMatch`,
/// also every object whose path crosses a null link (the path then reads
/// null, and the predicate holds for null); with `orReachesNothing`, also
/// every object whose path reaches no object at all.
struct PathReach {
    /// The steps from the class tested; the last reaches the target's class.
    let hops: [GraphHop]
    let target: ReachTarget
    let complement: Bool
    let nullLinksMatch: Bool
    let orReachesNothing: Bool
}

/// What the objects reached by a `PathReach` must be.
enum ReachTarget {
    /// Those matching a predicate over their class.
    case predicate(CompiledQuery)
    /// Objects `keys` of class `table` (`allBut`: every other object of it).
    case objects(table: UInt32, keys: [Int64], allBut: Bool)
    /// Those whose GeoJSON point lies in a region (`inside`), or every
    /// other object of the class (see GeoQuery.swift).
    case geoWithin(GeoTarget, inside: Bool)

    var table: UInt32 {
        switch self {
        case .predicate(let query): return query.tableKey
        case .objects(let table, _, _): return table
        case .geoWithin(let target, _): return target.table
        }
    }
}

/// A value, or values, computed per object of the class tested: what a key
/// path reads (through to-one links: one value, null past a null link;
/// through a to-many step or at a collection of values: many, maybe none).
struct ValueExpression {
    enum Value {
        /// A property holding one value (a link: its target, of class `linkTarget`).
        case property(Property, linkTarget: UInt32)
        /// The object itself (reached through a to-many step).
        case object
        /// The elements of a list, set or map (the values) of values.
        case elements(Property)
        /// The size of a list, set or map: its column.
        case count(Property)
        /// Whether a to-one link is set: 1, or 0 for null.
        case linkCount(Property)
        /// The length in bytes of a string or binary (0 for null).
        case length(Property)
        /// How many links point to the object (a list listing it twice
        /// counts twice); with `pair`, only those of that class and property.
        /// Behind a to-many step, the sum over the objects reached (as
        /// realm-core has it: `items.@links.@count`), one value.
        case backlinkCount(pair: (originClass: UInt32, property: UInt32)?)
        /// An aggregate of values `of`: the elements of that collection of
        /// values (`through` nil), or that property of the objects one more
        /// to-many step reaches (a list, set or map of links, or backlinks;
        /// an object reached twice counts twice).
        case aggregate(AggregateOperation, of: Property, through: GraphHop?)
        /// The value under one key of a map of values (null when the key is
        /// missing): `ratings['a']`, `ratings.a`, `ratings[$0]`.
        case mapEntry(Property, key: [UInt8])
        /// The element at one position of a list of values (null past its end).
        case listElement(Property, ListIndex)
        /// The keys of a map (`@keys`), as strings.
        case mapKeys(Property)
        /// Arithmetic over numbers (`2 * (age - 5)`, `age / number`); many
        /// values when one of its terms has many (one value per value of it).
        case arithmetic(ArithmeticTerm)
        /// `SUBQUERY(path, $x, predicate).@count`: how many of the objects
        /// the steps reach match the predicate (bound over their class;
        /// an object reached twice counts twice).  One value, whatever the
        /// steps.
        case subqueryCount(CompiledQuery)
        /// A path into the lists and dictionaries nested in mixed values
        /// (`mixed['a'][0]`, `list[0]['k']`, `mixed.@size`): read in groups
        /// by `NestedReader`, compared by `NestedComparison` only.
        case nested(NestedPath)
    }

    let hops: [GraphHop]
    /// The class the hops reach (whose objects `value` reads).
    let lastClass: UInt32
    let value: Value
    /// Describes the values: their type and whether they may be null (the
    /// property compared, for checks and for predicates over the values).
    var valueProperty: Property
    /// The key path as written, for messages.
    let text: String
    /// With `@type`: the type the values are declared with (`.mixed`: each
    /// value's own type); each value is then read as its type's code
    /// (`QueryBinder.typeCode`).
    var typeOf: PropertyType? = nil
    /// With `@size` after one element or `.length` after a list or set of
    /// values: what is read of each value instead of the value itself.
    var measure: ValueMeasure? = nil

    /// Whether it gives any number of values per object rather than one.
    var isMany: Bool {
        switch value {
        case .elements, .mapKeys: return true
        case .arithmetic(let term): return term.isMany
        case .nested(let path): return path.isMany || hops.contains { $0.isToMany }
        case .backlinkCount, .subqueryCount: return false
        default: return hops.contains { $0.isToMany }
        }
    }

    /// Whether the one value sums over every object the steps reach (a
    /// backlink count behind a to-many step, a SUBQUERY's count).
    var sumsOverSteps: Bool {
        switch value {
        case .subqueryCount: return true
        case .backlinkCount: return hops.contains { $0.isToMany }
        default: return false
        }
    }

    var isMixed: Bool { valueProperty.type == .mixed }

    /// The value for an object that is not there (a null link's).
    var valueOfNullObject: FiefStorage.Value {
        if let declared = typeOf {
            return .int(declared == .mixed || declared == .link ? 0 : Int64(declared.rawValue))
        }
        switch value {
        case .count, .linkCount, .length, .backlinkCount, .subqueryCount: return .int(0)
        case .aggregate(let operation, let property, _):
            return Aggregator(operation, property.type).result()
        case .property, .object, .elements, .mapEntry, .listElement, .mapKeys, .arithmetic, .nested: return .null
        }
    }
}

/// What a value expression reads of its values instead of the values.
enum ValueMeasure {
    /// `tags[0].@size`, `dict['k'].@count`: the size of the one value (a
    /// list's element, a map's value): the length in bytes of a string or
    /// binary, the number of elements of a nested list or dictionary; null
    /// for null and for any other value, as realm-core sizes a mixed value.
    case size
    /// `tags.length`: the length of each element that is a string or binary
    /// (a null one of a list of strings or binaries: 0); a mixed element of
    /// another type, or null, gives no value, as in realm-core.
    case lengths
}

/// Arithmetic over numbers, as realm-core computes it: the result has the
/// widest type of its terms (int, float, double, decimal128; mixed values
/// as they come, anything but a number making the result null); ints wrap
/// on overflow and an int divided by 0 is the largest int of the
/// dividend's sign; decimal128 as IEEE 754-2008 computes it (an int or a
/// double meeting a decimal becomes one); null in, null out.
indirect enum ArithmeticTerm {
    case value(ValueExpression)
    case constant(QueryConstant)
    /// A list of values given with the query (`{1, 2} * age`): one result
    /// per element, in order, as realm-core's Operator applies a list
    /// constant to one value per object.  One term at most is many-valued.
    case list([QueryConstant])
    case operation(ArithmeticTerm, QueryArithmeticOperator, ArithmeticTerm)
    case negation(ArithmeticTerm)

    /// Visit each value expression, in order.
    func forEachValue(_ body: (ValueExpression) -> Void) {
        switch self {
        case .value(let expression): body(expression)
        case .constant, .list: break
        case .operation(let a, _, let b): a.forEachValue(body); b.forEachValue(body)
        case .negation(let a): a.forEachValue(body)
        }
    }

    var isMany: Bool {
        var many = listCount != nil
        forEachValue { if $0.isMany { many = true } }
        return many
    }

    /// The number of elements of the list of values in it; nil without one.
    var listCount: Int? {
        switch self {
        case .value, .constant: return nil
        case .list(let elements): return elements.count
        case .operation(let a, _, let b): return a.listCount ?? b.listCount
        case .negation(let a): return a.listCount
        }
    }

    var readsValues: Bool {
        var reads = false
        forEachValue { _ in reads = true }
        return reads
    }

    /// The type of the result (mixed when a term is mixed).
    var resultType: PropertyType {
        switch self {
        case .value(let expression): return expression.valueProperty.type
        case .constant(let c):
            return ArithmeticTerm.type(of: c)
        case .list(let elements):
            return elements.reduce(.int) { ArithmeticTerm.wider($0, ArithmeticTerm.type(of: $1)) }
        case .operation(let a, _, let b): return ArithmeticTerm.wider(a.resultType, b.resultType)
        case .negation(let a): return a.resultType
        }
    }

    static func type(of c: QueryConstant) -> PropertyType {
        switch c {
        case .decimal: return .decimal128
        case .double: return .double
        default: return .int
        }
    }

    static func wider(_ a: PropertyType, _ b: PropertyType) -> PropertyType {
        let order: [PropertyType] = [.int, .float, .double, .decimal128, .mixed]
        return (order.firstIndex(of: a) ?? 4) >= (order.firstIndex(of: b) ?? 4) ? a : b
    }

    /// The value for one object: `read` gives each value expression's value,
    /// in the order of `forEachValue` (its index); `element`, which element
    /// of the list of values in it to take.
    func evaluate(element: Int = 0, _ read: (Int) -> FiefStorage.Value) -> FiefStorage.Value {
        var index = 0
        return evaluate(read, element, &index)
    }

    private static func value(_ c: QueryConstant) -> FiefStorage.Value {
        switch c {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal128(d)
        default: return .null
        }
    }

    private func evaluate(_ read: (Int) -> FiefStorage.Value, _ element: Int, _ index: inout Int) -> FiefStorage.Value {
        switch self {
        case .value:
            defer { index += 1 }
            return read(index)
        case .constant(let c):
            return ArithmeticTerm.value(c)
        case .list(let elements):
            return element < elements.count ? ArithmeticTerm.value(elements[element]) : .null
        case .operation(let a, let op, let b):
            let x = a.evaluate(read, element, &index)
            let y = b.evaluate(read, element, &index)
            return ArithmeticTerm.apply(x, op, y)
        case .negation(let a):
            switch a.evaluate(read, element, &index) {
            case .int(let i): return .int(0 &- i)
            case .float(let f): return .float(-f)
            case .double(let d): return .double(-d)
            case .decimal128(let d): return .decimal128(Decimal128Bits(low: d.low, high: d.high ^ (1 << 63)))
            default: return .null
            }
        }
    }

    /// `x op y` on two numbers (null for anything else).
    static func apply(_ x: FiefStorage.Value, _ op: QueryArithmeticOperator, _ y: FiefStorage.Value) -> FiefStorage.Value {
        switch (x, y) {
        case (.int(let a), .int(let b)):
            switch op {
            case .add: return .int(a &+ b)
            case .subtract: return .int(a &- b)
            case .multiply: return .int(a &* b)
            case .divide:
                if b == 0 { return .int(a < 0 ? .min : .max) }
                return .int(a.dividedReportingOverflow(by: b).partialValue)
            }
        case (.decimal128, _), (_, .decimal128):
            guard let a = decimal(x), let b = decimal(y) else { return .null }
            switch op {
            case .add: return .decimal128(DecimalArithmetic.add(a, b))
            case .subtract: return .decimal128(DecimalArithmetic.add(a, DecimalArithmetic.negated(b)))
            case .multiply: return .decimal128(DecimalArithmetic.multiply(a, b))
            case .divide: return .decimal128(DecimalArithmetic.divide(a, b))
            }
        default:
            guard let a = QueryEvaluator.number(x), let b = QueryEvaluator.number(y) else { return .null }
            let r: Double
            switch op {
            case .add: r = a + b
            case .subtract: r = a - b
            case .multiply: r = a * b
            case .divide: r = a / b
            }
            // Floats with floats (or ints) stay floats.
            if case .float = x, !(y.isDouble) { return .float(Float(r)) }
            if case .float = y, !(x.isDouble) { return .float(Float(r)) }
            return .double(r)
        }
    }

    private static func decimal(_ v: FiefStorage.Value) -> Decimal128Bits? {
        switch v {
        case .int(let i): return DecimalArithmetic.from(i)
        case .float(let f): return DecimalArithmetic.from(Double(f), digits: 7)
        case .double(let d): return DecimalArithmetic.from(d, digits: 15)
        case .decimal128(let d): return d
        default: return nil
        }
    }

    /// A folded constant as a literal.
    static func literal(_ value: FiefStorage.Value) -> QueryLiteral? {
        switch value {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .float(let f): return .double(Double(f))
        default: return nil
        }
    }
}

extension FiefStorage.Value {
    var isDouble: Bool {
        if case .double = self { return true }
        return false
    }
}

/// A key path resolved against the schema.
struct BoundPath {
    let expression: ValueExpression
    let lastTable: Table

    var hops: [GraphHop] { expression.hops }
    var text: String { expression.text }

    /// Whether it reaches through a to-many step.
    var isToMany: Bool { hops.contains { $0.isToMany } }

    /// The last property alone, as a key path from the class it belongs to
    /// (for a path ending at a property holding one value).
    var lastOperand: QueryOperand? {
        guard expression.typeOf == nil, case .property(let property, _) = expression.value else { return nil }
        return .keyPath(QueryKeyPath(properties: [property.name]))
    }
}

extension PropertyFlags {
    /// Marks the property the binder makes for the size of a collection
    /// (never stored): a missing object's collection has size 0, not null.
    static let collectionSize = PropertyFlags(rawValue: 1 << 30)
}
