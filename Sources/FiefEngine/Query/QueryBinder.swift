// The object-graph binder: what `QueryCompiler` hands over when a
// comparison reads more than one value of the object it tests.
//
//   * key paths through to-one links, embedded objects, lists, sets and
//     maps of links, and backlinks (`owner.name == $0`, `a.b.c > 5`,
//     `ANY dogs.age > 5`, `ALL items.discount.active == true`,
//     `@links.Person.dogs.name == 'Ann'`), with implicit ANY, ALL and NONE;
//   * collections of values (`ANY scores > 5`, `5 IN tags`, `ALL scores
//     BETWEEN {1, 9}`), their sizes (`dogs.@count > 2`), aggregates
//     (`scores.@avg > 5`, `dogs.@sum.age < 20`), string and binary lengths
//     (`name.@size > 3`) and backlink counts (`@links.@count == 0`);
//   * lists of values given with the query: `x IN {1, 2}`, `x IN $0` (a
//     list argument), `x == ANY {...}`, `x != ALL $0`, `x > NONE {...}`;
//   * `x BETWEEN {low, high}`.
//
// A comparison of a key path with values given with the query is bound
// *backward*: the comparison is rewritten at the class the path reaches
// (`name == $0` over the owners), compiled there as any predicate is, and
// wrapped in a `GraphNode.reach`: evaluation finds the matching targets
// columnar and collects the objects linking to them through their
// backlinks (see GraphEvaluator.swift).  The sizes of collections are
// columns, so `dogs.@count > 2` is a columnar comparison.  What has to be
// computed per object (the elements of a collection of values, an
// aggregate, a length) is a `GraphNode.test` of a value expression; two
// expressions compared with each other are read *forward*, object by
// object (`GraphNode.compare`).  A list of values is unrolled into one
// comparison per element (joined by OR for ANY, AND for ALL, NOT OR for
// NONE), each bound as the scalar compiler binds it.
//
// Quantifiers follow realm-core: a path through a to-many step compares
// every value it reaches (implicit ANY; ALL and NONE hold for a path that
// reaches nothing); a null to-one link on a path of to-one links reads
// null (`buddy.name == nil` matches objects without a buddy), and an
// empty collection or null link behind a to-many step reads nothing.  A
// collection of values behind a to-many step is quantified per object
// reached: `ALL list.scores == 1` holds when some object of `list` has
// only ones (or `list` is empty).

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
    var valueOfNullObject: FiefEngine.Value {
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
    func evaluate(element: Int = 0, _ read: (Int) -> FiefEngine.Value) -> FiefEngine.Value {
        var index = 0
        return evaluate(read, element, &index)
    }

    private static func value(_ c: QueryConstant) -> FiefEngine.Value {
        switch c {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal128(d)
        default: return .null
        }
    }

    private func evaluate(_ read: (Int) -> FiefEngine.Value, _ element: Int, _ index: inout Int) -> FiefEngine.Value {
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
    static func apply(_ x: FiefEngine.Value, _ op: QueryArithmeticOperator, _ y: FiefEngine.Value) -> FiefEngine.Value {
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

    private static func decimal(_ v: FiefEngine.Value) -> Decimal128Bits? {
        switch v {
        case .int(let i): return DecimalArithmetic.from(i)
        case .float(let f): return DecimalArithmetic.from(Double(f), digits: 7)
        case .double(let d): return DecimalArithmetic.from(d, digits: 15)
        case .decimal128(let d): return d
        default: return nil
        }
    }

    /// A folded constant as a literal.
    static func literal(_ value: FiefEngine.Value) -> QueryLiteral? {
        switch value {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .float(let f): return .double(Double(f))
        default: return nil
        }
    }
}

extension FiefEngine.Value {
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

enum QueryBinder {
    /// Where a predicate is bound: its class (or the elements of a
    /// collection of values), the arguments given, and the realm whose
    /// schema key paths walk (nil for elements).
    struct Scope {
        let target: QueryTarget
        let arguments: [QueryArgument]
        let realm: Realm?

        /// Whether `operand` is what the scalar compiler binds: a property
        /// of the class itself that holds one value, `self`, a literal or a
        /// scalar argument.  (Names the class lacks count too: the scalar
        /// compiler says what is wrong with them.)
        func isScalar(_ operand: QueryOperand) -> Bool {
            switch operand {
            case .element, .constant: return true
            case .argument(let n): return !(n >= 0 && n < arguments.count && arguments[n].isList)
            case .keyPath(let path):
                guard let names = path.propertyNames, names.count == 1 else { return false }
                guard case .objects(let table) = target else { return true }
                guard let property = table.property(named: names[0]) else {
                    // A linking-objects property is many objects (the binder's); any other unknown name is the scalar compiler's to refuse.
                    return realm?.linkingObjects(named: names[0], of: table) == nil
                }
                return property.collection == .none
            default: return false
            }
        }

        /// The same scope over the objects of `table`.
        func over(_ table: Table) -> Scope { Scope(target: .objects(table), arguments: arguments, realm: realm) }

        /// A scope over single values described by `property` (`self`).
        func overValues(_ property: Property, _ description: String) -> Scope {
            Scope(target: .elements(property, description: description), arguments: arguments, realm: nil)
        }
    }

    /// One element of a list of values: written in the predicate (a literal
    /// or a scalar argument), or an element of list argument `argument`.
    enum ListElement {
        case operand(QueryOperand)
        case argumentValue(Value, argument: Int)
    }

    /// An operand, classified.
    enum Side {
        /// One value of the object tested: a property of its own or `self`
        /// (the scalar compiler binds it).
        case own(QueryOperand)
        /// One value given with the query (a literal or a scalar argument).
        case value(QueryOperand)
        /// Values given with the query (a list or a list argument), and the
        /// quantifier written before them (nil: none, which means ANY).
        case values([ListElement], QueryQuantifier?)
        /// A key path leaving the values of the object tested, and the
        /// quantifier written before it.
        case path(BoundPath, QueryQuantifier?)

        var isGiven: Bool {
            switch self {
            case .value, .values: return true
            case .own, .path: return false
            }
        }

        /// Whether it reads into the collections nested in mixed values.
        var readsNested: Bool {
            if case .path(let path, _) = self { return path.expression.readsNested }
            return false
        }
    }

    // MARK: Predicates

    /// `lhs op rhs` where at least one side is more than one value of the
    /// object tested or a scalar constant.
    static func comparison(_ lhs: QueryOperand, _ op: QueryOperator, _ rhs: QueryOperand, _ options: QueryStringOptions,
                           _ scope: Scope) throws(FiefError) -> QueryNode {
        var lhs = lhs, rhs = rhs
        if lhs.namesObjects || rhs.namesObjects || lhs.isArithmetic || rhs.isArithmetic {
            // obj('Class', pk) is the object's link, looked up now; arithmetic on numbers only is folded.
            lhs = try folded(try objectsResolved(lhs, scope), scope)
            rhs = try folded(try objectsResolved(rhs, scope), scope)
            if scope.isScalar(lhs) && scope.isScalar(rhs) {
                try QueryCompiler.checkSupported(lhs)
                try QueryCompiler.checkSupported(rhs)
                return try QueryCompiler.comparison(lhs, op, rhs, options, scope.target, scope.arguments)
            }
        }
        let left = try side(lhs, scope), right = try side(rhs, scope)
        try refuseNull(left, against: right, scope)
        try refuseNull(right, against: left, scope)
        if left.readsNested || right.readsNested {
            return try nestedComparison(left, op, right, options, scope)
        }
        switch (left, right) {
        case (.own, .values(let elements, let quantifier)):
            return try compareList(try QueryCompiler.property(lhs, scope.target), op, elements, quantifier, options, scope, listFirst: false)
        case (.values(let elements, let quantifier), .own):
            return try compareList(try QueryCompiler.property(rhs, scope.target), op, elements, quantifier, options, scope, listFirst: true)
        case (.path(let path, nil), .values(let elements, nil)) where path.expression.isMany && path.expression.typeOf == nil:
            // Values of each object a to-many step reaches: one list per object, as realm-core compares them.
            if path.expression.isGroupedPerObject { return try nestedComparison(left, op, right, options, scope) }
            return try sequence(path.expression, op, elements, options, scope, listFirst: false)
        case (.values(let elements, nil), .path(let path, nil)) where path.expression.isMany && path.expression.typeOf == nil:
            if path.expression.isGroupedPerObject { return try nestedComparison(left, op, right, options, scope) }
            return try sequence(path.expression, op, elements, options, scope, listFirst: true)
        case (.values(let elements, let listQuantifier), .path(let path, let pathQuantifier)) where path.expression.isMany:
            // A quantifier on either side (neither is the ordered comparison above): the list's outside.
            return try listAgainstCollection(elements, listQuantifier ?? .any, op, path, pathQuantifier, options, scope)
        case (.path(let path, let quantifier), _) where right.isGiven:
            return try reach(path, quantifier, scope) { leaf in .comparison(leaf, op, rhs, options) }
        case (_, .path(let path, let quantifier)) where left.isGiven:
            return try reach(path, quantifier, scope) { leaf in .comparison(lhs, op, leaf, options) }
        case (.path(let a, let qa), .path(let b, let qb)):
            if qa == nil, qb == nil, !a.isToMany, a.hops == b.hops, let la = a.lastOperand, let lb = b.lastOperand {
                // Both read the same object at the end of the path.
                return try reach(a, nil, scope) { _ in .comparison(la, op, lb, options) }
            }
            return try forward(a.expression, qa, op, b.expression, qb, options, scope)
        case (.path(let a, let quantifier), .own):
            return try forward(a.expression, quantifier, op, try ownExpression(rhs, scope), nil, options, scope)
        case (.own, .path(let b, let quantifier)):
            return try forward(try ownExpression(lhs, scope), nil, op, b.expression, quantifier, options, scope)
        case (.value, .values), (.values, .value), (.values, .values):
            throw FiefError(.queryInvalid, "cannot compare values given with the query with each other: one side of \(QueryCompiler.name(op)) must be a property or key path")
        case (.own, .own), (.own, .value), (.value, .own), (.value, .value), (.path, _), (_, .path):
            // Scalar pairs never come here, and a path meets a given value above.
            throw FiefError(.internal, "the query binder was given a comparison it does not bind")
        }
    }

    /// `lhs IN rhs`: `lhs == ANY rhs` for a list of values (or ALL, NONE
    /// when written: `x IN ALL $0`), `ANY rhs == lhs` for a key path
    /// reaching many values.
    static func membership(_ lhs: QueryOperand, _ rhs: QueryOperand, _ options: QueryStringOptions, _ scope: Scope) throws(FiefError) -> QueryNode {
        if lhs.namesObjects || rhs.namesObjects {
            return try membership(try objectsResolved(lhs, scope), try objectsResolved(rhs, scope), options, scope)
        }
        let refusal = "IN takes a list on its right ({...} or a list argument), or a key path through a list, set, map or backlinks"
        switch try side(rhs, scope) {
        case .values:
            return try comparison(lhs, .equal, rhs, options, scope)
        case .path(let path, _) where path.expression.readsNested:
            // realm-core takes a list after IN: a path into one mixed value is none (ANY path == x is).
            guard path.expression.nestedPath.map({ $0.origin.isCollection }) ?? false || path.expression.hops.contains(where: { $0.isToMany }) else {
                throw FiefError(.queryInvalid, "\(refusal); '\(path.text)' reads into one mixed value, which Realm's query language does not take as a list after IN (write 'ANY \(path.text) == x')")
            }
            return try comparison(lhs, .equal, rhs, options, scope)
        case .path(let path, _) where path.expression.isMany:
            switch try side(lhs, scope) {
            case .values:
                // `{1, 2} IN scores`: the same values in the same order;
                // `ANY {1, 2} IN ALL scores`: each side quantified, the list's outside.
                return try comparison(lhs, .equal, rhs, options, scope)
            case .path(let left, _) where left.expression.isMany:
                // `items.price IN items.price`: the left's quantifier outside.
                return try comparison(lhs, .equal, rhs, options, scope)
            default:
                return try comparison(rhs, .equal, lhs, options, scope)
            }
        case .value(let given):
            throw FiefError(given.isArgument ? .queryArgument : .queryInvalid, "\(refusal); \(describe(given)) is one value")
        case .own:
            throw FiefError(.queryInvalid, "\(refusal); \(describe(rhs)) is one value")
        case .path(let path, _):
            throw FiefError(.queryInvalid, "\(refusal); '\(path.text)' is one value")
        }
    }

    /// `value BETWEEN {low, high}`: `value >= low AND value <= high`, bounds
    /// included.  On a collection only ALL applies (as in realm-core).
    static func between(_ value: QueryOperand, _ low: QueryOperand, _ high: QueryOperand, _ scope: Scope) throws(FiefError) -> QueryNode {
        switch try side(value, scope) {
        case .path(let path, let quantifier) where path.expression.readsNested:
            // realm-core: ALL before a list or map of mixed values; then `>= low AND <= high`, each compared on its own.
            if path.expression.nestedPath?.origin.isCollection ?? false, quantifier != .all {
                throw FiefError(.queryInvalid, "BETWEEN applies to a collection ('\(path.text)') only with ALL before it")
            }
            return .and([try comparison(value, .greaterOrEqual, low, [], scope), try comparison(value, .lessOrEqual, high, [], scope)])
        case .path(let path, let quantifier):
            if path.expression.isMany && quantifier != .all {
                throw FiefError(.queryInvalid, "BETWEEN applies to a collection ('\(path.text)') only with ALL before it")
            }
            return try reach(path, quantifier, scope) { leaf in .between(leaf, low: low, high: high) }
        case .own:
            let node = QueryCompiler.node
            return .and([try node(.comparison(value, .greaterOrEqual, low, []), scope.target, scope.arguments, scope.realm),
                         try node(.comparison(value, .lessOrEqual, high, []), scope.target, scope.arguments, scope.realm)])
        case .value, .values:
            throw FiefError(.queryInvalid, "BETWEEN takes a property or key path on its left, not \(describe(value))")
        }
    }

    // MARK: Operands

    /// Classify `operand` (resolving key paths against the schema).
    static func side(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> Side {
        switch operand {
        case .element:
            return .own(operand)
        case .constant(.objectKey):
            throw QueryCompiler.objectKeyOutOfPlace()
        case .constant:
            return .value(operand)
        case .argument(let n):
            if n >= 0, n < scope.arguments.count, scope.arguments[n].isList {
                return .values(scope.arguments[n].values.map { .argumentValue($0, argument: n) }, nil)
            }
            return .value(operand)
        case .list(let items):
            return .values(items.map { .operand($0) }, nil)
        case .quantified(let quantifier, let inner):
            switch try side(inner, scope) {
            case .values(let elements, _): return .values(elements, quantifier)
            case .path(let path, _): return .path(path, quantifier)
            case .own, .value:
                throw FiefError(inner.isArgument ? .queryArgument : .queryInvalid,
                                "\(spelling(quantifier)) applies to a key path through a list, set, map or backlinks, or to a list of values; \(describe(inner)) is one value")
            }
        case .keyPath(let keyPath):
            if scope.isScalar(operand) { return .own(operand) }
            guard case .objects(let table) = scope.target, let realm = scope.realm else {
                _ = try QueryCompiler.property(operand, scope.target)   // says why
                throw FiefError(.queryInvalid, "expected a property")
            }
            return .path(try resolve(keyPath, from: table, realm, scope.arguments), nil)
        case .arithmetic, .negated:
            return try arithmetic(operand, scope)
        case .subqueryCount(let subquery):
            guard case .objects(let table) = scope.target, let realm = scope.realm else {
                throw FiefError(.queryInvalid, "SUBQUERY takes a collection of objects; these results hold values")
            }
            return .path(try bindSubquery(subquery, from: table, realm, scope), nil)
        case .object:
            // realm-core takes obj(...) as a constant compared with a link only.
            throw FiefError(.queryInvalid, "obj('Class', key) names one object: Realm's query language compares it with a link only ('friend == obj(...)', 'obj(...) IN friends'), not in arithmetic or BETWEEN")
        }
    }

}

extension QueryBinder {
    // MARK: Arithmetic

    /// `a + b`, `a - b`, `a * b`, `a / b`, `-a` as a value expression (or, of
    /// constants only, the constant it folds to).  A list of values in it
    /// (`{1, 2} * age`) gives one result per element; as in realm-core, the
    /// expression takes one list or collection at most.
    static func arithmetic(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> Side {
        guard case .objects(let table) = scope.target else {
            // realm-core filters collections of objects only (RealmSwift: "Querying is currently
            // only implemented for arrays of Realm Objects"); Fief's queries on values compare 'self'.
            throw FiefError(.queryInvalid, "Realm's query language does not allow arithmetic in a query on the elements of a collection of values (\(describe(operand))): compare 'self' with a value")
        }
        if let list = try listArithmetic(operand, scope) { return list }
        var quantifier: QueryQuantifier? = nil
        let term = try arithmeticTerm(operand, scope, &quantifier)
        let text = QueryBinder.describe(operand)
        var many = term.listCount == nil ? 0 : 1
        term.forEachValue { if $0.isMany || $0.readsNested { many += 1 } }
        if many > 1 {
            throw FiefError(.queryInvalid, "Realm's query language does not allow arithmetic combining two collections or lists of values (\(text)): realm-core refuses operations involving two lists")
        }
        let type = term.resultType
        if !term.readsValues, term.listCount == nil, let folded = ArithmeticTerm.literal(term.evaluate { _ in .null }) {
            // Numbers only: folded now (a decimal result is computed per object instead).
            return .value(.constant(folded))
        }
        let expression = ValueExpression(hops: [], lastClass: table.key, value: .arithmetic(term),
                                         valueProperty: Property(name: text, type: type, flags: .nullable), text: text)
        return .path(BoundPath(expression: expression, lastTable: table), quantifier)
    }

    /// Arithmetic on a list of values given with the query (`{8, 10} / 2`,
    /// `ALL $0 * 2`, with a list argument): the list of its results, one per
    /// element (the other terms are numbers given with the query), with the
    /// quantifier written before the list; null for a null element.  Nil
    /// when `operand` has no list, reads values of the object (`{1, 2} *
    /// age`) or gives a decimal128 (a term with the list then gives the
    /// results).  As in realm-core, two lists in one expression are refused.
    private static func listArithmetic(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> Side? {
        var lists: [(elements: [ListElement], quantifier: QueryQuantifier?)] = []
        var readsValues = false
        func scan(_ operand: QueryOperand) {
            switch operand {
            case .arithmetic(let a, _, let b): scan(a); scan(b)
            case .negated(let a): scan(a)
            case .constant: break
            case .argument, .list, .quantified:
                if case .values(let elements, let quantifier)? = try? side(operand, scope) {
                    lists.append((elements, quantifier))
                } else if case .quantified = operand {
                    readsValues = true
                }
            default: readsValues = true
            }
        }
        scan(operand)
        guard let list = lists.first else { return nil }
        let text = describe(operand)
        guard lists.count == 1 else {
            throw FiefError(.queryInvalid, "Realm's query language does not allow arithmetic combining two lists of values (\(text)): one list ({...} or a list argument) at most")
        }
        if readsValues { return nil }
        var results: [ListElement] = []
        for element in list.elements {
            let value: QueryOperand
            switch element {
            case .operand(let written): value = written
            case .argumentValue(let given, let n):
                guard let literal = QueryArgumentSubstitution.literal(given) else {
                    throw FiefError(.queryArgument, "argument \(n) holds a \(given.typeName), which arithmetic does not take")
                }
                value = .constant(literal)
            }
            if case .constant(.null) = value {
                results.append(.operand(value))
                continue
            }
            guard case .value(let folded) = try arithmetic(operand.replacingLists(with: value) { n in n >= 0 && n < scope.arguments.count && scope.arguments[n].isList }, scope) else {
                // A decimal128 result (no literal holds it): computed by a term with the list.
                return nil
            }
            results.append(.operand(folded))
        }
        return .values(results, list.quantifier)
    }

    /// `operand` as the constant it folds to, when it is arithmetic on
    /// numbers given with the query only (a list of them, for arithmetic on
    /// a list).
    static func folded(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> QueryOperand {
        guard operand.isArithmetic, case .objects = scope.target else { return operand }
        switch try arithmetic(operand, scope) {
        case .value(let constant):
            return constant
        case .values(let elements, let quantifier):
            // Arithmetic on a list: the list of its results.
            var results: [QueryOperand] = []
            for case .operand(let result) in elements { results.append(result) }
            return quantifier.map { .quantified($0, .list(results)) } ?? .list(results)
        default:
            return operand
        }
    }

    /// The term of `operand`; a quantifier before a collection in it
    /// (`ALL scores * 2 > 5`) is the whole comparison's, in `quantifier`.
    private static func arithmeticTerm(_ operand: QueryOperand, _ scope: Scope, _ quantifier: inout QueryQuantifier?) throws(FiefError) -> ArithmeticTerm {
        switch operand {
        case .arithmetic(let a, let op, let b):
            return .operation(try arithmeticTerm(a, scope, &quantifier), op, try arithmeticTerm(b, scope, &quantifier))
        case .negated(let a):
            return .negation(try arithmeticTerm(a, scope, &quantifier))
        case .argument(let n) where n >= 0 && n < scope.arguments.count && scope.arguments[n].isList:
            return try listTerm(operand, scope, &quantifier)
        case .list:
            return try listTerm(operand, scope, &quantifier)
        case .constant, .argument:
            let c = try QueryCompiler.constant(operand, scope.arguments)
            switch c {
            case .int, .double, .decimal: return .constant(c)
            default:
                throw FiefError(operand.isArgument ? .queryArgument : .queryInvalid,
                                "arithmetic takes numbers; \(describe(operand)) is a \(c.typeName) value")
            }
        default:
            let expression: ValueExpression
            switch try side(operand, scope) {
            case .own: expression = try ownExpression(operand, scope)
            case .path(let path, nil): expression = path.expression
            case .path(let path, let written?):
                guard quantifier == nil || quantifier == written else {
                    throw FiefError(.queryInvalid, "one arithmetic expression takes one quantifier")
                }
                quantifier = written
                expression = path.expression
            case .values:
                return try listTerm(operand, scope, &quantifier)
            case .value:
                throw FiefError(.internal, "the query binder was given an arithmetic term it does not bind")
            }
            switch expression.valueProperty.type {
            case .int, .float, .double, .decimal128, .mixed: return .value(expression)
            default:
                throw FiefError(.queryInvalid, "arithmetic takes numbers; '\(expression.text)' holds \(expression.valueProperty.type.name) values")
            }
        }
    }

    /// A list of values given with the query as a term (numbers or null);
    /// a quantifier before it is the whole comparison's.
    private static func listTerm(_ operand: QueryOperand, _ scope: Scope, _ quantifier: inout QueryQuantifier?) throws(FiefError) -> ArithmeticTerm {
        guard case .values(let elements, let written) = try side(operand, scope) else {
            throw FiefError(.internal, "the query binder was given a list it does not bind")
        }
        if let written {
            guard quantifier == nil || quantifier == written else {
                throw FiefError(.queryInvalid, "one arithmetic expression takes one quantifier")
            }
            quantifier = written
        }
        var constants: [QueryConstant] = []
        for element in elements {
            let c: QueryConstant
            let argument: Int?
            switch element {
            case .operand(let written):
                c = try QueryCompiler.constant(written, scope.arguments)
                argument = QueryCompiler.argumentIndex(written)
            case .argumentValue(let given, let n):
                c = try QueryCompiler.constant(given, argument: n)
                argument = n
            }
            switch c {
            case .null, .int, .double, .decimal: constants.append(c)
            default:
                throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                                "arithmetic takes numbers; \(describe(operand)) holds a \(c.typeName) value")
            }
        }
        return .list(constants)
    }

}

extension QueryBinder {
    // MARK: @type

    /// A value's type code: its `PropertyType`'s raw value, null 0, a nested
    /// list 13, a nested dictionary 14.
    static func typeCode(_ value: Value) -> Int64 {
        switch value {
        case .null: return 0
        case .int: return Int64(PropertyType.int.rawValue)
        case .bool: return Int64(PropertyType.bool.rawValue)
        case .string: return Int64(PropertyType.string.rawValue)
        case .binary: return Int64(PropertyType.binary.rawValue)
        case .timestamp: return Int64(PropertyType.timestamp.rawValue)
        case .float: return Int64(PropertyType.float.rawValue)
        case .double: return Int64(PropertyType.double.rawValue)
        case .decimal128: return Int64(PropertyType.decimal128.rawValue)
        case .objectId: return Int64(PropertyType.objectId.rawValue)
        case .uuid: return Int64(PropertyType.uuid.rawValue)
        case .link: return Int64(PropertyType.link.rawValue)
        case .nestedList: return 13
        case .nestedDictionary: return 14
        }
    }

    /// The type codes a type name of the query language stands for
    /// (case-insensitive; several joined by '|'), as realm-core reads them.
    static func typeCodes(_ name: String) -> Set<Int64>? {
        func code(_ t: PropertyType) -> Int64 { Int64(t.rawValue) }
        var codes: Set<Int64> = []
        for part in name.lowercased().split(separator: "|", omittingEmptySubsequences: false) {
            switch part {
            case "null": codes.insert(0)
            case "int", "integer", "int16", "int32", "int64", "short", "long", "byte", "char": codes.insert(code(.int))
            case "bool", "boolean": codes.insert(code(.bool))
            case "string": codes.insert(code(.string))
            case "binary", "data", "bytearray", "byte[]", "bindata": codes.insert(code(.binary))
            case "date", "datetimeoffset", "timestamp": codes.insert(code(.timestamp))
            case "float": codes.insert(code(.float))
            case "double": codes.insert(code(.double))
            case "decimal128", "decimal": codes.insert(code(.decimal128))
            case "objectlink", "link": codes.insert(code(.link))
            case "objectid": codes.insert(code(.objectId))
            case "uuid", "guid": codes.insert(code(.uuid))
            case "numeric": codes.formUnion([code(.int), code(.float), code(.double), code(.decimal128)])
            case "object", "dictionary": codes.insert(14)
            case "array", "list": codes.insert(13)
            case "collection": codes.formUnion([13, 14])
            default: return nil
            }
        }
        return codes
    }

    /// `@type op 'name'` for one type name given (a literal, an argument or
    /// an element of a list argument): a predicate over the values' type
    /// codes (`typeCode`).
    static func typeNamePredicate(_ expression: ValueExpression, _ op: QueryOperator, _ element: ListElement, _ scope: Scope) throws(FiefError) -> QueryNode {
        let p = Property(name: expression.text, type: .int)
        let argument: Int?
        let given: QueryConstant
        switch element {
        case .operand(let operand):
            argument = QueryCompiler.argumentIndex(operand)
            given = try QueryCompiler.constant(operand, scope.arguments)
        case .argumentValue(let value, let n):
            argument = n
            given = try QueryCompiler.constant(value, argument: n)
        }
        guard case .bytes(let bytes, true) = given else {
            throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                            "'\(expression.text)' compares with type names (strings such as 'int' or 'numeric'), not with a \(given.typeName) value")
        }
        let name = String(decoding: bytes, as: UTF8.self)
        guard let codes = typeCodes(name) else {
            throw FiefError(argument == nil ? .queryInvalid : .queryArgument, "'\(name)' is not a type name (as 'int', 'string', 'numeric', 'null', 'object')")
        }
        let member = QueryNode.or(codes.sorted().map { .compare(p, .equal, .int($0), []) })
        return op == .equal ? member : .not(member)
    }

    /// `@type` compared with type names (one, or a list): over the values'
    /// type codes.  Only == and != (and IN), without [c]; the type of a
    /// property that is not mixed is a constant, which is no comparison.
    static func typePredicate(_ expression: ValueExpression, _ declared: PropertyType, _ predicate: QueryExpression,
                                      _ scope: Scope) throws(FiefError) -> QueryNode {
        let op: QueryOperator, other: QueryOperand, options: QueryStringOptions
        switch predicate {
        case .comparison(.element, let o, let rhs, let opts): (op, other, options) = (o, rhs, opts)
        case .comparison(let lhs, let o, .element, let opts): (op, other, options) = (o, lhs, opts)
        case .membership(.element, let rhs, let opts): (op, other, options) = (.equal, rhs, opts)
        default: throw FiefError(.queryInvalid, "'\(expression.text)' compares with == or != (or IN) to type names")
        }
        guard options.isEmpty else {
            throw FiefError(.queryInvalid, "'\(expression.text)' compares with type names exactly: [c] does not apply")
        }
        guard op == .equal || op == .notEqual else {
            throw FiefError(.queryInvalid, "'\(expression.text)' compares with == or != only (types have no order)")
        }
        if declared != .mixed {
            throw FiefError(.queryInvalid, "'\(expression.text)' is always '\(declared.name)': comparing it with a type name compares two constants")
        }
        func names(_ operand: QueryOperand, _ value: Value?) throws(FiefError) -> QueryNode {
            try typeNamePredicate(expression, op, value.map { .argumentValue($0, argument: QueryCompiler.argumentIndex(operand) ?? 0) } ?? .operand(operand), scope)
        }
        switch try side(other, scope) {
        case .value(let operand):
            return try names(operand, nil)
        case .values(let elements, let quantifier):
            var nodes: [QueryNode] = []
            for element in elements {
                switch element {
                case .operand(let operand): nodes.append(try names(operand, nil))
                case .argumentValue(let value, let n): nodes.append(try names(.argument(n), value))
                }
            }
            switch quantifier ?? .any {
            case .any: return .or(nodes)
            case .all: return .and(nodes)
            case .none: return .not(.or(nodes))
            }
        default:
            throw FiefError(.queryInvalid, "'\(expression.text)' compares with type names or another '@type'")
        }
    }

}

extension QueryBinder {
    // MARK: obj('Class', pk)

    /// `operand` with each `obj('Class', pk)` in it replaced by the link to
    /// that object of `Class` (with or without realm-core's `class_`
    /// prefix), found by its primary key now; a link to no object (it
    /// equals no link) when there is none.
    static func objectsResolved(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> QueryOperand {
        switch operand {
        case .object(let className, let primaryKey):
            guard let realm = scope.realm else {
                throw FiefError(.queryInvalid, "obj('\(className)', ...) is an object; these results hold values")
            }
            guard let classKey = realm.table(named: className)
                    ?? (className.hasPrefix("class_") ? realm.table(named: String(className.dropFirst(6))) : nil) else {
                throw FiefError(.queryInvalid, "obj('\(className)', ...): the realm has no class '\(className)'")
            }
            let table = try realm.table(classKey)
            guard let key = table.primaryKey else {
                throw FiefError(.queryInvalid, "obj('\(className)', ...): class '\(table.objectClass.name)' has no primary key to find its objects by")
            }
            let given = try QueryCompiler.constant(primaryKey, scope.arguments, against: key)
            let found: Int64?
            do throws(FiefError) {
                found = try withExtendedLifetime(given) { () throws(FiefError) -> Int64? in
                    try realm.find(table: classKey, primaryKey: QueryEvaluator.valueOf(given))
                }
            } catch {
                let argument = QueryCompiler.argumentIndex(primaryKey)
                throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                                "obj('\(className)', ...): \(argument.map { "argument \($0): " } ?? "")\(error.message)")
            }
            return .constant(.link(classKey: classKey, objectKey: found ?? -1))
        case .list(let items):
            var resolved: [QueryOperand] = []
            for item in items { resolved.append(try objectsResolved(item, scope)) }
            return .list(resolved)
        case .quantified(let quantifier, let inner):
            return .quantified(quantifier, try objectsResolved(inner, scope))
        default:
            return operand
        }
    }

}

extension QueryBinder {
    // MARK: A list against a collection

    /// `Q1 {e1, e2, ...} op Q2 collection`: for Q1 of the elements e, Q2 of
    /// the collection's values v, `e op v` (realm-core's Parser_ListVsList):
    /// one backward comparison per element, joined by OR (ANY), AND (ALL)
    /// or NOT OR (NONE).  An element of a list argument is written in as
    /// its literal.
    static func listAgainstCollection(_ elements: [ListElement], _ listQuantifier: QueryQuantifier, _ op: QueryOperator, _ path: BoundPath,
                                      _ pathQuantifier: QueryQuantifier?, _ options: QueryStringOptions, _ scope: Scope) throws(FiefError) -> QueryNode {
        var nodes: [QueryNode] = []
        for element in elements {
            let operand: QueryOperand
            switch element {
            case .operand(let written): operand = written
            case .argumentValue(let value, let n):
                guard let literal = QueryArgumentSubstitution.literal(value) else {
                    throw FiefError(.queryArgument, "argument \(n) holds a \(value.typeName), which is no value to compare with '\(path.text)'")
                }
                operand = .constant(literal)
            }
            nodes.append(try reach(path, pathQuantifier, scope) { leaf in .comparison(operand, op, leaf, options) })
        }
        switch listQuantifier {
        case .any: return nodes.isEmpty ? .constant(false) : .or(nodes)
        case .all: return nodes.isEmpty ? .constant(true) : .and(nodes)
        case .none: return nodes.isEmpty ? .constant(true) : .not(.or(nodes))
        }
    }

}

extension QueryBinder {
    // MARK: O<key>

    /// `lhs` and `rhs` with each object-key literal `O<key>` in one of them
    /// (alone, in a list, after a quantifier) replaced by the link to the
    /// object of that key in the class the other side's links point to, as
    /// realm-core reads `friend == O1` (its object key of the link's target).
    static func objectKeysResolved(_ lhs: QueryOperand, _ rhs: QueryOperand, _ scope: Scope) throws(FiefError) -> (QueryOperand, QueryOperand) {
        guard lhs.hasObjectKey != rhs.hasObjectKey else {
            throw FiefError(.queryInvalid, "cannot compare object keys (O<key>) with each other: one side must be a link")
        }
        let keyed = lhs.hasObjectKey ? lhs : rhs, other = lhs.hasObjectKey ? rhs : lhs
        let target = try linkTarget(of: other, scope)
        let resolved = keyed.replacingObjectKeys(classKey: target)
        return lhs.hasObjectKey ? (resolved, rhs) : (lhs, resolved)
    }

    /// The class whose objects `operand` holds links to: a link property, a
    /// key path ending at one, or a path reaching objects (lists, sets and
    /// maps of links, backlinks).
    private static func linkTarget(of operand: QueryOperand, _ scope: Scope) throws(FiefError) -> UInt32 {
        var inner = operand
        if case .quantified(_, let quantified) = operand { inner = quantified }
        if let realm = scope.realm, case .objects = scope.target, case .keyPath = inner {
            let property: Property
            switch try side(inner, scope) {
            case .own(let own): property = try QueryCompiler.property(own, scope.target)
            case .path(let path, _): property = path.expression.valueProperty
            case .value, .values: property = Property(name: "", type: .mixed)
            }
            if property.type == .link, let name = property.linkTarget, let key = realm.table(named: name) { return key }
        }
        throw FiefError(.queryInvalid, "an object key (O<key>) names an object of the class a link points to, so it is compared with a link, or a list, set or map of links; \(describe(operand)) is none")
    }

}

extension QueryBinder {
    // MARK: SUBQUERY

    /// `SUBQUERY(collection, $x, predicate).@count` from the objects of
    /// `table`: the predicate, `$x.` standing for the objects of the
    /// collection, bound over their class; counted per object.
    static func bindSubquery(_ subquery: QuerySubquery, from table: Table, _ realm: Realm, _ scope: Scope) throws(FiefError) -> BoundPath {
        guard case .object = subquery.collection.start else {
            var written = text(subquery.collection)
            if case .variable(let name) = subquery.collection.start { written = "\(name).\(written)" }
            // realm-core maps a variable on its SUBQUERY's class only: an enclosing one's is no property there.
            throw FiefError(.queryInvalid, "Realm's query language does not allow a SUBQUERY over the collection of an enclosing SUBQUERY's variable: inside a SUBQUERY only its own variable names objects ('\(written)')")
        }
        let collection = try resolve(subquery.collection, from: table, realm, scope.arguments)
        guard collection.isToMany, case .object = collection.expression.value else {
            throw FiefError(.queryInvalid, "SUBQUERY takes a list, set or map of objects, or backlinks ('@links.Class.property'); '\(collection.text)' is \(collection.expression.isMany ? "a collection of values" : "one value")")
        }
        let predicate = try substitute(subquery.predicate, subquery.variable)
        let target = collection.lastTable
        let inner = try QueryCompiler.node(predicate, .objects(target), scope.arguments, realm: realm)
        let text = "SUBQUERY(\(collection.text), \(subquery.variable), ...).@count"
        let expression = ValueExpression(hops: collection.hops, lastClass: target.key, value: .subqueryCount(CompiledQuery(root: inner, tableKey: target.key)),
                                         valueProperty: Property(name: text, type: .int), text: text)
        return BoundPath(expression: expression, lastTable: target)
    }

    /// `expression` with the key paths starting at SUBQUERY variable
    /// `variable` starting at the object instead.  A key path without the
    /// variable names a property of the collection's objects too, as in
    /// realm-core (its SUBQUERY binds the predicate's paths against the
    /// collection's class, the variable standing for nothing): a SUBQUERY
    /// cannot read the object outside it.  The predicates of nested
    /// SUBQUERYs are left to their own binding.
    static func substitute(_ expression: QueryExpression, _ variable: String) throws(FiefError) -> QueryExpression {
        switch expression {
        case .comparison(let a, let op, let b, let options):
            return .comparison(try substitute(a, variable), op, try substitute(b, variable), options)
        case .membership(let a, let b, let options): return .membership(try substitute(a, variable), try substitute(b, variable), options)
        case .between(let a, let low, let high):
            return .between(try substitute(a, variable), low: try substitute(low, variable), high: try substitute(high, variable))
        case .fullText(let a, let b): return .fullText(try substitute(a, variable), try substitute(b, variable))
        case .geoWithin(let a, let shape): return .geoWithin(try substitute(a, variable), shape)
        case .and(let a, let b): return .and(try substitute(a, variable), try substitute(b, variable))
        case .or(let a, let b): return .or(try substitute(a, variable), try substitute(b, variable))
        case .not(let a): return .not(try substitute(a, variable))
        case .alwaysTrue, .alwaysFalse: return expression
        }
    }

    private static func substitute(_ operand: QueryOperand, _ variable: String) throws(FiefError) -> QueryOperand {
        switch operand {
        case .keyPath(var path):
            switch path.start {
            case .variable(let name) where name == variable:
                guard !path.components.isEmpty else {
                    // realm-core resolves '$x' to no property of the class.
                    throw FiefError(.queryInvalid, "Realm's query language does not allow the SUBQUERY variable '\(variable)' alone: compare its properties ('\(variable).name')")
                }
                path.start = .object
                return .keyPath(path)
            case .object, .variable, .argument:
                return operand
            }
        case .subqueryCount(let inner):
            guard case .keyPath(let collection) = try substitute(.keyPath(inner.collection), variable) else { return operand }
            return .subqueryCount(QuerySubquery(collection: collection, variable: inner.variable, predicate: inner.predicate))
        case .quantified(let quantifier, let inner): return .quantified(quantifier, try substitute(inner, variable))
        case .list(let items):
            var out: [QueryOperand] = []
            for item in items { out.append(try substitute(item, variable)) }
            return .list(out)
        case .arithmetic(let a, let op, let b): return .arithmetic(try substitute(a, variable), op, try substitute(b, variable))
        case .negated(let inner): return .negated(try substitute(inner, variable))
        case .object(let className, let primaryKey): return .object(className: className, primaryKey: try substitute(primaryKey, variable))
        case .constant, .argument, .element: return operand
        }
    }

}

extension QueryBinder {
    // MARK: Key paths

    /// Resolve a key path through links, collections of links and
    /// backlinks, to a property, a collection, or an operation on one.
    static func resolve(_ keyPath: QueryKeyPath, from table: Table, _ realm: Realm, _ arguments: [QueryArgument]) throws(FiefError) -> BoundPath {
        switch keyPath.start {
        case .object: break
        case .variable(let name):
            throw FiefError(.queryInvalid, "'\(name).\(text(keyPath))': '\(name)' names the objects of a SUBQUERY only inside its own predicate (not outside it, nor inside a SUBQUERY nested in it), as in realm-core")
        case .argument: throw FiefError(.internal, "key-path arguments are substituted before binding (QueryArgumentSubstitution.keyPaths)")
        }
        if keyPath.suffix == .type {
            // The values' types: the path without `@type`, each value read as its type's code.
            var plain = keyPath
            plain.suffix = nil
            let bound = try resolve(plain, from: table, realm, arguments)
            var expression = bound.expression
            if case .object = expression.value {
                expression.typeOf = .link
            } else {
                expression.typeOf = expression.valueProperty.type
            }
            expression.valueProperty = Property(name: QueryBinder.text(keyPath), type: .int)
            return BoundPath(expression: ValueExpression(hops: expression.hops, lastClass: expression.lastClass, value: expression.value,
                                                         valueProperty: expression.valueProperty, text: QueryBinder.text(keyPath),
                                                         typeOf: expression.typeOf),
                             lastTable: bound.lastTable)
        }
        let text = QueryBinder.text(keyPath)
        var hops: [GraphHop] = []
        var current = table
        func expression(_ value: ValueExpression.Value, _ property: Property) -> BoundPath {
            BoundPath(expression: ValueExpression(hops: hops, lastClass: current.key, value: value, valueProperty: property, text: text),
                      lastTable: current)
        }
        let components = keyPath.components
        func isLastBut(_ position: Int) -> Bool { position + 2 == components.count }
        var position = 0
        while position < components.count {
            defer { position += 1 }
            let isLast = position == components.count - 1
            switch linkingObjectsResolved(components[position], at: current, realm) {
            case .property(let name):
                guard let property = current.property(named: name) else {
                    throw FiefError(.queryInvalid, "class '\(current.objectClass.name)' has no property '\(name)' (in key path '\(text)')")
                }
                let qualified = "'\(current.objectClass.name).\(property.name)'"
                let column = try current.column(property.key)
                if let nested = try nestedPath(property, at: position, keyPath, text: text, arguments, current, hops: hops, realm) {
                    // Into the lists and dictionaries a mixed value nests (NestedPath.swift).
                    return nested
                }
                if position + 1 < components.count,
                   let selector = try selector(components[position + 1], after: property, qualified, text, arguments) {
                    position += 1
                    let isLast = position == components.count - 1
                    switch selector {
                    case .all:
                        break   // the collection as a whole, as without it
                    case .keys:
                        guard isLast, keyPath.suffix == nil else {
                            throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow '@keys'")
                        }
                        return expression(.mapKeys(property), Property(name: text, type: .string))
                    case .key(let key), .index(_, let key):
                        let index: ListIndex? = { if case .index(let i, _) = selector { return i }; return nil }()
                        if property.type == .link {
                            if isLast, keyPath.suffix == .count {
                                if let index {
                                    // realm-core takes no position at the end of a path through a list of links.
                                    _ = index
                                    throw FiefError(.queryInvalid, "Realm's query language does not allow '@count' of one object of a list of links ('\(text)'): realm-core takes no position at the end of a key path through links (\"Property '\(current.objectClass.name).\(property.name)' does not support index '\(QueryBinder.text(QueryKeyPath([components[position]])))'\"); count the list ('\(QueryBinder.text(QueryKeyPath(Array(components[...(position - 1)])))).@count') or compare the object ('\(QueryBinder.text(QueryKeyPath(Array(components[...position])))) == nil')")
                                }
                                // As realm-core: '@count' after a key of a map of links counts the map's entries
                                // (the key does not narrow it, a dictionary's size being the map's).
                                return try finish(property, column, of: current, .count, hops: hops, text: text, realm)
                            }
                            let target = try realm.table(column.linkTarget)
                            let kind: GraphHop.Kind = index.map { .listElement($0) } ?? .mapEntry(key)
                            hops.append(GraphHop(kind: kind, from: current.key, to: target.key, property: property.key))
                            current = target
                            if isLast {
                                if case .aggregate? = keyPath.suffix {
                                    // realm-core: "Operation '@min' cannot apply to property ... because it is not a list".
                                    throw FiefError(.queryInvalid, "Realm's query language does not allow an aggregate of one object ('\(text)'): '@min', '@max', '@sum' and '@avg' apply to a list, set or map")
                                }
                                guard keyPath.suffix == nil else { throw FiefError(.internal, "'@type' is taken off a key path before it is resolved") }
                                return expression(.object, Property(name: text, type: .link, flags: .nullable, linkTarget: target.objectClass.name))
                            }
                            continue
                        }
                        guard isLast else {
                            // realm-core: "Only Property of type 'any' can have nested collections".
                            throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow a value of \(qualified): only mixed values hold nested lists and dictionaries, and \(qualified) holds \(property.type.name) values")
                        }
                        let value: ValueExpression.Value = index.map { .listElement(property, $0) } ?? .mapEntry(property, key: key)
                        switch keyPath.suffix {
                        case nil:
                            let described = Property(name: text, type: property.type, flags: .nullable, key: property.key, linkTarget: property.linkTarget)
                            return expression(value, described)
                        case .count?:
                            // The size of the one element: a string's or binary's length, a nested collection's size.
                            guard property.type == .string || property.type == .binary || property.type == .mixed else {
                                throw FiefError(.queryInvalid, "key path '\(text)': '@count' and '@size' of one element apply to strings, binaries and mixed values; \(qualified) holds \(property.type.name) values")
                            }
                            var measured = expression(value, Property(name: text, type: .int, flags: .nullable, key: property.key)).expression
                            measured.measure = .size
                            return BoundPath(expression: measured, lastTable: current)
                        default:
                            throw FiefError(.queryInvalid, "key path '\(text)': one element of \(qualified) takes '@count', '@size' or '@type' after it, no aggregate")
                        }
                    }
                    if isLast && (property.type != .link || keyPath.suffix != nil) {
                        return try finish(property, column, of: current, keyPath.suffix, hops: hops, text: text, realm)
                    }
                } else if isLast && (property.collection == .none || property.type != .link || keyPath.suffix != nil) {
                    return try finish(property, column, of: current, keyPath.suffix, hops: hops, text: text, realm)
                }
                if property.type != .link, property.collection == .list || property.collection == .set,
                   isLastBut(position), case .property("length") = components[position + 1] {
                    // `tags.length`: the length of each element, as realm-core reads it.
                    guard keyPath.suffix == nil else {
                        throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow 'length'")
                    }
                    guard property.type == .string || property.type == .binary || property.type == .mixed else {
                        throw FiefError(.queryInvalid, "key path '\(text)': 'length' applies to a list or set of strings, binaries or mixed values; \(qualified) holds \(property.type.name) values")
                    }
                    var lengths = expression(.elements(property), Property(name: text, type: .int, key: property.key)).expression
                    lengths.measure = .lengths
                    return BoundPath(expression: lengths, lastTable: current)
                }
                guard property.type == .link else {
                    if property.collection != .none {
                        throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) is a \(property.collection.name) of values, so nothing can follow it but an operation ('@count', '@min', ...)")
                    }
                    throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) is \(property.type == .int ? "an" : "a") \(property.type.name), not a link or a mixed value, so nothing can follow it")
                }
                let target = try realm.table(column.linkTarget)
                let kind: GraphHop.Kind
                switch property.collection {
                case .none: kind = .link
                case .list: kind = .list
                case .set: kind = .set
                case .map: kind = .map
                }
                hops.append(GraphHop(kind: kind, from: current.key, to: target.key, property: property.key))
                current = target
            case .backlinks(let className, let propertyName):
                guard let originKey = realm.table(named: className) else {
                    throw FiefError(.queryInvalid, "key path '\(text)': no class '\(className)' (in '@links.\(className).\(propertyName)')")
                }
                let origin = try realm.table(originKey)
                guard let property = origin.property(named: propertyName) else {
                    throw FiefError(.queryInvalid, "key path '\(text)': class '\(className)' has no property '\(propertyName)'")
                }
                guard property.type == .link, try origin.column(property.key).linkTarget == current.key else {
                    throw FiefError(.queryInvalid, "key path '\(text)': '\(className).\(propertyName)' does not link to '\(current.objectClass.name)' objects")
                }
                let hop = GraphHop(kind: .backlinks, from: current.key, to: originKey, property: property.key)
                if isLast, keyPath.suffix == .count {
                    let counted = Property(name: text, type: .int)
                    return expression(.backlinkCount(pair: (originKey, property.key)), counted)
                }
                if isLast, case .aggregate(let query, let name)? = keyPath.suffix {
                    guard let name, let aggregated = origin.property(named: name), aggregated.collection == .none else {
                        throw FiefError(.queryInvalid, "key path '\(text)': name a property of '\(className)' holding one value after the operation")
                    }
                    let operation = try aggregateOperation(query, aggregated.type, text)
                    return expression(.aggregate(operation, of: aggregated, through: hop),
                                      Property(name: text, type: Aggregator(operation, aggregated.type).resultType, flags: .nullable))
                }
                hops.append(hop)
                current = origin
            case .allBacklinks:
                guard keyPath.suffix == .count else {
                    throw FiefError(.queryInvalid, "key path '\(text)': '@links' alone takes '@count' or '@size' after it (the number of links to the object)")
                }
                return expression(.backlinkCount(pair: nil), Property(name: "@links.@count", type: .int))
            case .index, .first, .last, .all, .key, .argumentIndex, .keys, .values:
                throw FiefError(.queryInvalid, "key path '\(text)': '\(QueryBinder.text(QueryKeyPath([components[position]])))' follows a list or map property, or a mixed value, only")
            }
        }
        // The path ends at objects reached through a collection of links or backlinks.
        switch keyPath.suffix {
        case nil:
            let name = current.objectClass.name
            return expression(.object, Property(name: text, type: .link, flags: .nullable, linkTarget: name))
        case .count?:
            // Every path ending at objects with '@count' is resolved at its last step (a collection's
            // size, a to-one link's count, backlinks counted).
            throw FiefError(.internal, "'@count' of the objects '\(text)' reaches was not resolved at its last step")
        case .type?:
            throw FiefError(.internal, "'@type' is taken off a key path before it is resolved")
        case .aggregate?:
            throw FiefError(.internal, "an aggregate ends its key path")
        }
    }

    /// `component`, or for the name of a linking-objects property of
    /// `table`'s class, the backlinks step it stands for
    /// (`@links.OriginClass.originProperty`).
    private static func linkingObjectsResolved(_ component: QueryPathComponent, at table: Table, _ realm: Realm) -> QueryPathComponent {
        guard case .property(let name) = component, realm.declaresLinkingObjects, table.property(named: name) == nil,
              let linkingObjects = realm.linkingObjects(named: name, of: table) else { return component }
        return .backlinks(className: linkingObjects.originClass, property: linkingObjects.originProperty)
    }

    /// What follows a collection property in a key path: all of it, its
    /// keys, one key, one position.
    enum Selector {
        case all
        case keys
        case key([UInt8])
        case index(ListIndex, [UInt8])
    }

    /// The selector `component` is after collection `property` (nil when it
    /// is none: a property of the objects of a collection of links).
    private static func selector(_ component: QueryPathComponent, after property: Property, _ qualified: String, _ text: String,
                                 _ arguments: [QueryArgument]) throws(FiefError) -> Selector? {
        guard property.collection != .none else { return nil }
        let isMap = property.collection == .map, isList = property.collection == .list
        func refuse(_ what: String) -> FiefError {
            FiefError(.queryInvalid, "key path '\(text)': \(what) (\(qualified) is a \(property.collection.name))")
        }
        switch component {
        case .values, .all: return .all
        case .keys:
            guard isMap else { throw refuse("'@keys' takes a map") }
            return .keys
        case .key(let key):
            guard isMap else { throw refuse("['key'] takes a map") }
            return .key(Array(key.utf8))
        case .property(let name):
            // `map.key` names a key; after a list or set, a property of its objects.
            return isMap ? .key(Array(name.utf8)) : nil
        case .index(let n):
            guard isList else { throw refuse("[n] takes a list (maps and sets are not ordered)") }
            return .index(.at(n), [])
        case .first:
            guard isList else { throw refuse("[FIRST] takes a list (maps and sets are not ordered)") }
            return .index(.at(0), [])
        case .last:
            guard isList else { throw refuse("[LAST] takes a list (maps and sets are not ordered)") }
            return .index(.last, [])
        case .argumentIndex(let n):
            guard n >= 0, n < arguments.count, !arguments[n].isList, arguments[n].values.count == 1 else {
                throw FiefError(.queryArgument, "key path '\(text)': argument \(n) is missing or a list; [$\(n)] takes one key or position")
            }
            switch (arguments[n].values[0], isMap, isList) {
            case (.string(let key), true, _): return .key(Array(key))
            case (.int(let i), _, true): return .index(.at(Int(i)), [])
            default:
                throw FiefError(.queryArgument, "key path '\(text)': argument \(n) is a \(arguments[n].values[0].typeName); [$\(n)] takes \(isMap ? "a string key" : "an int position") for \(qualified)")
            }
        case .backlinks, .allBacklinks:
            return nil
        }
    }

    /// The end of a key path at `property` of `table`, with its suffix.
    private static func finish(_ property: Property, _ column: Column, of table: Table, _ suffix: QueryPathSuffix?,
                               hops: [GraphHop], text: String, _ realm: Realm) throws(FiefError) -> BoundPath {
        let qualified = "'\(table.objectClass.name).\(property.name)'"
        func path(_ value: ValueExpression.Value, _ described: Property) -> BoundPath {
            BoundPath(expression: ValueExpression(hops: hops, lastClass: table.key, value: value, valueProperty: described, text: text),
                      lastTable: table)
        }
        switch suffix {
        case nil:
            if property.collection == .none {
                return path(.property(property, linkTarget: column.linkTarget), property)
            }
            // A collection of values (collections of links are steps).
            return path(.elements(property), Property(name: property.name, type: property.type, flags: property.isNullable ? .nullable : [],
                                                      key: property.key, linkTarget: property.linkTarget))
        case .count?:
            if property.collection != .none {
                return path(.count(property), Property(name: "\(text)", type: .int, flags: .collectionSize, key: property.key))
            }
            if property.type == .link {
                return path(.linkCount(property), Property(name: text, type: .int, key: property.key))
            }
            guard property.type == .string || property.type == .binary else {
                throw FiefError(.queryInvalid, "key path '\(text)': '@count' and '@size' apply to lists, sets, maps, strings and binaries; \(qualified) is \(property.type == .int ? "an" : "a") \(property.type.name)")
            }
            return path(.length(property), Property(name: text, type: .int, key: property.key))
        case .type?:
            throw FiefError(.internal, "'@type' is taken off a key path before it is resolved")
        case .aggregate(let query, let targetName)?:
            guard property.collection != .none else {
                throw FiefError(.queryInvalid, "key path '\(text)': '@\(spelling(query))' applies to a list, set or map; \(qualified) is not one")
            }
            if property.type != .link {
                if let targetName {
                    throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) holds values, not objects: nothing follows the operation (found '\(targetName)')")
                }
                let operation = try aggregateOperation(query, property.type, text)
                return path(.aggregate(operation, of: property, through: nil),
                            Property(name: text, type: Aggregator(operation, property.type).resultType, flags: .nullable))
            }
            guard let targetName else {
                throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) holds objects; name the property to aggregate after the operation ('\(text).<property>')")
            }
            let target = try realm.table(column.linkTarget)
            guard let aggregated = target.property(named: targetName), aggregated.collection == .none else {
                throw FiefError(.queryInvalid, "key path '\(text)': class '\(target.objectClass.name)' has no property '\(targetName)' holding one value")
            }
            let kind: GraphHop.Kind = property.collection == .list ? .list : (property.collection == .set ? .set : .map)
            let hop = GraphHop(kind: kind, from: table.key, to: target.key, property: property.key)
            let operation = try aggregateOperation(query, aggregated.type, text)
            return path(.aggregate(operation, of: aggregated, through: hop),
                        Property(name: text, type: Aggregator(operation, aggregated.type).resultType, flags: .nullable))
        }
    }

    /// The operation of aggregate `query`, checked against the values it takes.
    private static func aggregateOperation(_ query: QueryAggregate, _ type: PropertyType, _ text: String) throws(FiefError) -> AggregateOperation {
        let operation: AggregateOperation
        switch query {
        case .min: operation = .min
        case .max: operation = .max
        case .sum: operation = .sum
        case .average: operation = .average
        }
        do throws(FiefError) {
            try Aggregator.check(operation, type, subject: "'\(text)'")
        } catch {
            throw FiefError(.queryInvalid, error.message)
        }
        return operation
    }

    static func spelling(_ aggregate: QueryAggregate) -> String {
        switch aggregate {
        case .min: return "min"
        case .max: return "max"
        case .sum: return "sum"
        case .average: return "avg"
        }
    }

    /// A property of the object tested (or `self`) as a value expression.
    static func ownExpression(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> ValueExpression {
        let property = try QueryCompiler.property(operand, scope.target)
        guard case .objects(let table) = scope.target else { throw FiefError(.queryInvalid, "expected a property") }
        let linkTarget = property.type == .link ? try table.column(property.key).linkTarget : 0
        return ValueExpression(hops: [], lastClass: table.key, value: .property(property, linkTarget: linkTarget),
                               valueProperty: property, text: property.name)
    }

}

extension QueryBinder {
    // MARK: Strategies

    /// Backward: `leafPredicate(leaf)` bound over the class the path ends
    /// at, then reached from the class tested through the path's steps.
    /// With no step, the predicate over the class itself.
    static func reach(_ path: BoundPath, _ quantifier: QueryQuantifier?, _ scope: Scope,
                      _ leafPredicate: (QueryOperand) -> QueryExpression) throws(FiefError) -> QueryNode {
        let expression = path.expression
        if expression.readsNested {
            // Comparisons, IN and BETWEEN bind these as `NestedComparison`s; nothing else takes them.
            throw FiefError(.queryInvalid, "'\(expression.text)' reads into the values nested in a mixed value: it is compared with a value, a list or another key path (==, <, BEGINSWITH, IN, BETWEEN, ...), not searched or tested otherwise")
        }
        let leafScope = scope.over(path.lastTable)
        if path.hops.contains(where: { $0.isForwardOnly }) {
            // A key or position on the way: read forward, object by object.
            if !expression.isMany, let quantifier { try refuseQuantifier(quantifier, expression.text) }
            let test: QueryNode
            if case .object = expression.value {
                test = try objectPredicate(expression, path.hops.last!, leafPredicate(.element), scope)
            } else {
                test = try QueryCompiler.node(leafPredicate(.element), .elements(expression.valueProperty, description: "'\(expression.text)'"),
                                              scope.arguments, realm: nil)
            }
            var dependencies: [UInt32: Set<UInt32>] = [:]
            collectDependencies(expression, scope.realm, into: &dependencies)
            return .graph(GraphNode(.test(expression, predicate: test, quantifier: quantifier ?? .any), dependencies: dependencies))
        }
        guard path.isToMany else {
            // One object at the end (or none, past a null link): the quantifier is the leaf's.
            let leaf = try predicate(at: expression, quantifier, leafScope, leafPredicate)
            if path.hops.isEmpty { return leaf }
            return graph(.reach(PathReach(hops: path.hops, target: .predicate(CompiledQuery(root: leaf, tableKey: path.lastTable.key)),
                                          complement: false, nullLinksMatch: matchesNullObject(leaf), orReachesNothing: false)),
                         expression, leaf, path.lastTable.key)
        }
        if !expression.isMany {
            // One value per object however many the path passes (a sum of backlink counts).
            if let quantifier { try refuseQuantifier(quantifier, expression.text) }
            let test = try QueryCompiler.node(leafPredicate(.element), .elements(expression.valueProperty, description: "'\(expression.text)'"),
                                              scope.arguments, realm: nil)
            var dependencies: [UInt32: Set<UInt32>] = [:]
            collectDependencies(expression, scope.realm, into: &dependencies)
            return .graph(GraphNode(.test(expression, predicate: test, quantifier: .any), dependencies: dependencies))
        }
        let q = quantifier ?? .any
        if case .elements = expression.value {
            // Each object reached has its own collection, quantified on its own.
            let leaf = try predicate(at: expression, q, leafScope, leafPredicate)
            return graph(.reach(PathReach(hops: path.hops, target: .predicate(CompiledQuery(root: leaf, tableKey: path.lastTable.key)),
                                          complement: false, nullLinksMatch: false, orReachesNothing: q != .any)),
                         expression, leaf, path.lastTable.key)
        }
        if case .object = expression.value {
            let (keys, allBut, null) = try objectTarget(expression, leafPredicate(.element), scope)
            // ALL: no object reached is another one; NONE: none is one of them.
            let target = ReachTarget.objects(table: path.lastTable.key, keys: keys, allBut: q == .all ? !allBut : allBut)
            // A map of links may hold null.  Whether a null value counts as
            // a value compared (== S: null is in S; != e: e is no null), or,
            // for ALL, as one failing (the opposite).
            let nullCounts = (allBut ? !null : null) != (q == .all)
            if nullCounts, let nullValues = try nullValues(of: path, scope) {
                let reached = graph(.reach(PathReach(hops: path.hops, target: target, complement: false, nullLinksMatch: false, orReachesNothing: false)),
                                    expression, nil, path.lastTable.key)
                let any = QueryNode.or([reached, nullValues])
                return q == .any ? any : .not(any)
            }
            return graph(.reach(PathReach(hops: path.hops, target: target, complement: q != .any, nullLinksMatch: false, orReachesNothing: false)),
                         expression, nil, path.lastTable.key)
        }
        let leaf = try predicate(at: expression, nil, leafScope, leafPredicate)
        if case .compare(let p, _, .null, _) = leaf, p.type == .link {
            throw FiefError(.queryInvalid, "cannot compare '\(expression.text)' with null: it reaches any number of links (compare its size, '@count', with 0)")
        }
        let target = q == .all ? QueryNode.not(leaf) : leaf
        return graph(.reach(PathReach(hops: path.hops, target: .predicate(CompiledQuery(root: target, tableKey: path.lastTable.key)),
                                      complement: q != .any, nullLinksMatch: false, orReachesNothing: false)),
                     expression, leaf, path.lastTable.key)
    }

    /// The predicate `leafPredicate(value)` over the objects of the class
    /// `expression`'s steps reach, for the value it reads there (its steps
    /// left aside); `quantifier` ranges over the values of a collection.
    private static func predicate(at expression: ValueExpression, _ quantifier: QueryQuantifier?, _ scope: Scope,
                                  _ leafPredicate: (QueryOperand) -> QueryExpression) throws(FiefError) -> QueryNode {
        let local = ValueExpression(hops: [], lastClass: expression.lastClass, value: expression.value,
                                    valueProperty: expression.valueProperty, text: expression.text, typeOf: expression.typeOf,
                                    measure: expression.measure)
        if let declared = expression.typeOf {
            let test = try typePredicate(expression, declared, leafPredicate(.element), scope)
            if !local.isMany, let quantifier { try refuseQuantifier(quantifier, expression.text) }
            var dependencies: [UInt32: Set<UInt32>] = [:]
            collectDependencies(local, scope.realm, into: &dependencies)
            return .graph(GraphNode(.test(local, predicate: test, quantifier: quantifier ?? .any), dependencies: dependencies))
        }
        switch expression.value {
        case .property:
            if let quantifier { try refuseQuantifier(quantifier, expression.text) }
            guard case .property(let property, _) = expression.value else { throw FiefError(.internal, "unreachable") }
            return try QueryCompiler.node(leafPredicate(.keyPath(QueryKeyPath(properties: [property.name]))), scope.target, scope.arguments, realm: scope.realm)
        case .count:
            // The size column, compared columnar.
            if let quantifier { try refuseQuantifier(quantifier, expression.text) }
            return try QueryCompiler.node(leafPredicate(.element), .elements(expression.valueProperty, description: "'\(expression.text)'"),
                                          scope.arguments, realm: nil)
        case .elements, .linkCount, .length, .backlinkCount, .aggregate, .subqueryCount, .mapEntry, .listElement, .mapKeys, .arithmetic:
            let many = local.isMany
            if let quantifier, !many { try refuseQuantifier(quantifier, expression.text) }
            let described = many ? "the elements of '\(expression.text)'" : "'\(expression.text)'"
            let test = try QueryCompiler.node(leafPredicate(.element), .elements(expression.valueProperty, description: described),
                                              scope.arguments, realm: nil)
            var dependencies: [UInt32: Set<UInt32>] = [:]
            collectDependencies(local, scope.realm, into: &dependencies)
            return .graph(GraphNode(.test(local, predicate: test, quantifier: quantifier ?? .any), dependencies: dependencies))
        case .object:
            throw FiefError(.internal, "an object is compared through its steps")
        case .nested:
            throw FiefError(.internal, "a nested path is compared by a NestedComparison")
        }
    }

    /// A predicate over the object a path reaches through its last step
    /// `hop` (a key or position of a collection of links), as a link value:
    /// `== x`, `!= x`, `== nil`, `IN {x, y}`.
    private static func objectPredicate(_ expression: ValueExpression, _ hop: GraphHop, _ predicate: QueryExpression, _ scope: Scope) throws(FiefError) -> QueryNode {
        guard let realm = scope.realm else { throw FiefError(.queryInvalid, "expected objects") }
        let holder = scope.over(try realm.table(hop.from))
        let p = Property(name: expression.text, type: .link, flags: .nullable, key: hop.property, linkTarget: expression.valueProperty.linkTarget)
        let op: QueryOperator, other: QueryOperand, options: QueryStringOptions, constantFirst: Bool
        switch predicate {
        case .comparison(.element, let o, let rhs, let opts): (op, other, options, constantFirst) = (o, rhs, opts, false)
        case .comparison(let lhs, let o, .element, let opts): (op, other, options, constantFirst) = (o, lhs, opts, true)
        default: throw FiefError(.queryInvalid, "'\(expression.text)' is an object: compare it with == or != to an object (or nil)")
        }
        switch try side(other, holder) {
        case .value(let operand):
            return try QueryCompiler.compareConstant(p, op, try QueryCompiler.constant(operand, scope.arguments, against: p), options, holder.target,
                                                     argument: QueryCompiler.argumentIndex(operand), constantFirst: constantFirst)
        case .values(let elements, let quantifier):
            return try compareList(p, op, elements, quantifier, options, holder, listFirst: constantFirst)
        default:
            throw FiefError(.queryInvalid, "'\(expression.text)' is an object: compare it with == or != to an object (or nil)")
        }
    }

    /// The objects a path ending at objects is compared with: `p == x`,
    /// `p == ANY {x, y}`, `x IN p` (`allBut` false) or `p != x` (true).
    private static func objectTarget(_ expression: ValueExpression, _ predicate: QueryExpression, _ scope: Scope) throws(FiefError) -> (keys: [Int64], allBut: Bool, null: Bool) {
        let refusal = "'\(expression.text)' reaches objects: compare them with == or != to an object (a link argument, or ANY of a list of them)"
        var op: QueryOperator
        var other: QueryOperand
        switch predicate {
        case .comparison(.element, let o, let rhs, let options) where options.isEmpty: (op, other) = (o, rhs)
        case .comparison(let lhs, let o, .element, let options) where options.isEmpty: (op, other) = (o, lhs)
        default: throw FiefError(.queryInvalid, refusal)
        }
        var elements: [ListElement]
        switch try side(other, scope) {
        case .value(let operand): elements = [.operand(operand)]
        case .values(let list, let quantifier) where (quantifier ?? .any) == .any && op == .equal: elements = list
        default: throw FiefError(.queryInvalid, refusal)
        }
        guard op == .equal || op == .notEqual, op == .equal || elements.count == 1 else { throw FiefError(.queryInvalid, refusal) }
        guard case .objects(let table) = scope.target, let realm = scope.realm else { throw FiefError(.queryInvalid, refusal) }
        var keys: [Int64] = []
        var null = false
        for element in elements {
            let given: QueryConstant
            var argument: Int? = nil
            switch element {
            case .operand(let operand):
                given = try QueryCompiler.constant(operand, scope.arguments)
                argument = QueryCompiler.argumentIndex(operand)
            case .argumentValue(let value, let n):
                given = try QueryCompiler.constant(value, argument: n)
                argument = n
            }
            switch given {
            case .link(let classKey, let key) where classKey == expression.lastClass:
                keys.append(key)
            case .null:
                // Only a map of links holds null; elsewhere it equals nothing.
                null = true
            default:
                let className = (try? realm.table(expression.lastClass).objectClass.name) ?? ""
                throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                                "\(argument.map { "argument \($0): " } ?? "")'\(expression.text)' reaches '\(className)' objects; \(given.typeName == "link" ? "the object given is of another class" : "a \(given.typeName) value is no object")")
            }
        }
        _ = table
        return (keys.sorted(), op == .notEqual, null)
    }

    /// Whether a path ending at objects through a map of links (`dogMap`,
    /// `owner.dogMap.@values`) reaches a null value, per object (nil for a
    /// path through another collection: it reaches objects only).
    private static func nullValues(of path: BoundPath, _ scope: Scope) throws(FiefError) -> QueryNode? {
        guard let hop = path.hops.last, hop.kind == .map, let realm = scope.realm else { return nil }
        let holder = try realm.table(hop.from)
        let map = try holder.property(hop.property)
        let described = Property(name: path.text, type: .link, flags: .nullable, key: map.key, linkTarget: map.linkTarget)
        let values = ValueExpression(hops: Array(path.hops.dropLast()), lastClass: hop.from, value: .elements(map), valueProperty: described, text: path.text)
        let isNull = try QueryCompiler.node(.comparison(.element, .equal, .constant(.null), []),
                                            .elements(described, description: "the values of '\(path.text)'"), scope.arguments, realm: nil)
        var dependencies: [UInt32: Set<UInt32>] = [:]
        collectDependencies(values, realm, into: &dependencies)
        return .graph(GraphNode(.test(values, predicate: isNull, quantifier: .any), dependencies: dependencies))
    }

    /// As realm-core: a key path reaching objects through a list, set or
    /// backlinks holds no null, so comparing it with a null given alone is
    /// refused (a map of links may hold null; a null in a list of values
    /// compared with it equals nothing).
    static func refuseNull(_ path: Side, against given: Side, _ scope: Scope) throws(FiefError) {
        guard case .path(let bound, _) = path, case .object = bound.expression.value, bound.isToMany,
              let last = bound.hops.last(where: { $0.isToMany }), last.kind != .map, case .value(let operand) = given,
              case .null = try QueryCompiler.constant(operand, scope.arguments) else { return }
        throw FiefError(operand.isArgument ? .queryArgument : .queryInvalid,
                        "cannot compare '\(bound.text)' with null: it reaches any number of objects and holds no null (compare its size, '@count', with 0)")
    }

    /// Forward: two values (or one value and many, quantified) read per
    /// object and compared as two properties of one object are.
    static func forward(_ a: ValueExpression, _ qa: QueryQuantifier?, _ op: QueryOperator, _ b: ValueExpression, _ qb: QueryQuantifier?,
                        _ options: QueryStringOptions, _ scope: Scope) throws(FiefError) -> QueryNode {
        if (a.typeOf == nil) != (b.typeOf == nil) {
            throw FiefError(.queryInvalid, "'@type' compares with a type name or another '@type', not with a value ('\(a.text)' and '\(b.text)')")
        }
        if a.typeOf != nil && op != .equal && op != .notEqual || a.typeOf != nil && !options.isEmpty {
            throw FiefError(.queryInvalid, "'@type' compares with == and != only, without [c]")
        }
        if !a.isMany, let qa { try refuseQuantifier(qa, a.text) }
        if !b.isMany, let qb { try refuseQuantifier(qb, b.text) }
        try QueryCompiler.checkPropertyPair(a.valueProperty, op, b.valueProperty, scope.target)
        let ta = a.valueProperty.type == .link ? a.valueProperty.linkTarget : nil
        let tb = b.valueProperty.type == .link ? b.valueProperty.linkTarget : nil
        if let ta, let tb, ta != tb {
            throw FiefError(.queryInvalid, "cannot compare '\(a.text)' (links to '\(ta)') with '\(b.text)' (links to '\(tb)')")
        }
        var dependencies: [UInt32: Set<UInt32>] = [:]
        collectDependencies(a, scope.realm, into: &dependencies)
        collectDependencies(b, scope.realm, into: &dependencies)
        if a.isMany && b.isMany {
            if case .elements = a.value, case .elements = b.value {
                // realm-core refuses it too ("Ordered comparison between two primitive lists").
                throw FiefError(.queryInvalid, "cannot compare two lists, sets or maps of values with each other ('\(a.text)' and '\(b.text)'), as in realm-core: compare one with a list of values ({...}), or the values of objects reached through links ('items.price')")
            }
            if qa == nil && qb == nil {
                // No quantifier on either side: element by element, in order (realm-core's rule).
                return .graph(GraphNode(.compareInOrder(a, op, b, options), dependencies: dependencies))
            }
            // Two collections: the first's quantifier outside, the second's inside (ANY when not written).
            return .graph(GraphNode(.compareMany(a, qa ?? .any, op, b, qb ?? .any, options), dependencies: dependencies))
        }
        return .graph(GraphNode(.compare(a, op, b, options, quantifier: qa ?? qb ?? .any), dependencies: dependencies))
    }

    /// Element by element: `expression`'s values against `elements`.
    static func sequence(_ expression: ValueExpression, _ op: QueryOperator, _ list: [ListElement], _ options: QueryStringOptions,
                         _ scope: Scope, listFirst: Bool) throws(FiefError) -> QueryNode {
        let p = expression.valueProperty
        if !options.isEmpty && p.type != .string && p.type != .binary && p.type != .mixed {
            throw FiefError(.queryInvalid, "[c] and [d] apply to strings only, not to '\(expression.text)' (\(p.type.name))")
        }
        var elements: [SequenceElement] = []
        for element in list {
            let (c, argument) = try constant(of: element, for: p, scope)
            let fits = fits(p, c)
            var isNull = false
            if case .null = c { isNull = true }
            if case .object = expression.value {
                // Objects: equal or not to objects of their class (null is none of them).
                guard op == .equal || op == .notEqual else {
                    throw FiefError(.queryInvalid, "objects compare with == and != only ('\(expression.text)')")
                }
                switch c {
                case .null: break
                case .link(let classKey, _) where classKey == expression.lastClass: break
                case .link:
                    throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                                    "'\(expression.text)' reaches '\(p.linkTarget ?? "")' objects; the object compared with it is of another class")
                default:
                    throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                                    "'\(expression.text)' reaches '\(p.linkTarget ?? "")' objects; a \(c.typeName) value is no object")
                }
            } else if fits && !isNull {
                // The operator must make sense for the type (as against one constant).
                try QueryCompiler.check(p, listFirst ? (QueryCompiler.flip(op) ?? op) : op, c, options, .elements(p, description: "'\(expression.text)'"), argument: argument)
            }
            elements.append(SequenceElement(constant: c, fits: fits))
        }
        var read = expression
        if case .object = expression.value, let last = expression.hops.last, last.kind == .map, let realm = scope.realm {
            // The objects of a map of links: its values in key order, null ones included (realm-core
            // compares the dictionary's values, and a null one equals only null).
            let map = try realm.table(last.from).property(last.property)
            read = ValueExpression(hops: Array(expression.hops.dropLast()), lastClass: last.from, value: .elements(map),
                                   valueProperty: Property(name: expression.text, type: .link, flags: .nullable, key: map.key, linkTarget: map.linkTarget),
                                   text: expression.text)
        }
        var dependencies: [UInt32: Set<UInt32>] = [:]
        collectDependencies(read, scope.realm, into: &dependencies)
        return .graph(GraphNode(.sequence(read, op, elements, options, listFirst: listFirst), dependencies: dependencies))
    }

    /// A graph node and its dependencies: the steps', the leaf
    /// predicate's (over `leafClass`) and the expression's own.
    private static func graph(_ kind: GraphNode.Kind, _ expression: ValueExpression, _ leaf: QueryNode?, _ leafClass: UInt32) -> QueryNode {
        var dependencies: [UInt32: Set<UInt32>] = [:]
        GraphHop.collectColumns(expression.hops, into: &dependencies)
        leaf?.collectColumns(table: leafClass, into: &dependencies)
        return .graph(GraphNode(kind, dependencies: dependencies))
    }

    /// Record what `expression` reads: its steps, and the columns of the
    /// value at their end.
    static func collectDependencies(_ expression: ValueExpression, _ realm: Realm?, into columns: inout [UInt32: Set<UInt32>]) {
        GraphHop.collectColumns(expression.hops, into: &columns)
        switch expression.value {
        case .property(let property, _), .elements(let property), .count(let property), .linkCount(let property), .length(let property),
             .mapEntry(let property, _), .listElement(let property, _), .mapKeys(let property):
            columns[expression.lastClass, default: []].insert(property.key)
        case .object:
            _ = columns[expression.lastClass, default: []]
        case .aggregate(_, let property, let through):
            if let through {
                GraphHop.collectColumns([through], into: &columns)
                columns[through.to, default: []].insert(property.key)
            } else {
                columns[expression.lastClass, default: []].insert(property.key)
            }
        case .subqueryCount(let query):
            query.root.collectColumns(table: query.tableKey, into: &columns)
        case .nested(let path):
            columns[expression.lastClass, default: []].insert(path.origin.property.key)
            // A link met on the way is followed to the property a key names, in whatever class it is.
            let names = path.keyNames
            if let realm, !names.isEmpty {
                for objectClass in realm.schema.classes {
                    for property in objectClass.properties where names.contains(property.name) {
                        columns[objectClass.key, default: []].insert(property.key)
                    }
                }
            }
        case .arithmetic(let term):
            term.forEachValue { collectDependencies($0, realm, into: &columns) }
        case .backlinkCount(let pair):
            _ = columns[expression.lastClass, default: []]
            if let pair {
                columns[pair.originClass, default: []].insert(pair.property)
            } else if let realm {
                // Every link that may point here.
                for objectClass in realm.schema.classes {
                    for property in objectClass.properties where property.type == .mixed || (property.type == .link && realm.table(named: property.linkTarget ?? "") == expression.lastClass) {
                        columns[objectClass.key, default: []].insert(property.key)
                    }
                }
            }
        }
    }

    /// `p op ANY/ALL/NONE elements` (`listFirst`: the list is on the left):
    /// one comparison per element, joined.  An element of a type `p` never
    /// equals (a string in a list compared with an int property) matches
    /// as realm-core's lists of mixed values do: never, except by !=.
    static func compareList(_ p: Property, _ op: QueryOperator, _ elements: [ListElement], _ quantifier: QueryQuantifier?,
                            _ options: QueryStringOptions, _ scope: Scope, listFirst: Bool) throws(FiefError) -> QueryNode {
        if !options.isEmpty && p.type != .string && p.type != .binary && p.type != .mixed {
            throw FiefError(.queryInvalid, "[c] and [d] apply to strings only, not to \(scope.target.subject(p))")
        }
        var nodes: [QueryNode] = []
        nodes.reserveCapacity(elements.count)
        for element in elements {
            let (c, argument) = try constant(of: element, for: p, scope)
            if fits(p, c) {
                nodes.append(try QueryCompiler.compareConstant(p, op, c, options, scope.target, argument: argument, constantFirst: listFirst))
            } else {
                nodes.append(.constant(op == .notEqual))
            }
        }
        switch quantifier ?? .any {
        case .any: return nodes.count == 1 ? nodes[0] : .or(nodes)
        case .all: return nodes.count == 1 ? nodes[0] : .and(nodes)
        case .none: return .not(nodes.count == 1 ? nodes[0] : .or(nodes))
        }
    }

    /// The constant one element of a list stands for, read as values of
    /// `p` are compared with it (a literal, a scalar argument, or an element
    /// of a list argument), and the argument it came from (for messages).
    static func constant(of element: ListElement, for p: Property, _ scope: Scope) throws(FiefError) -> (QueryConstant, argument: Int?) {
        let given: QueryConstant
        let argument: Int?
        switch element {
        case .operand(let operand):
            given = try QueryCompiler.constant(operand, scope.arguments, against: p)
            argument = QueryCompiler.argumentIndex(operand)
        case .argumentValue(let value, let n):
            given = try QueryCompiler.constant(value, argument: n)
            argument = n
        }
        return (try QueryCompiler.adapted(given, for: p, argument: argument), argument)
    }

    /// Whether constant `c` is of a type property `p`'s values can equal
    /// (numbers across their types; null and mixed properties always).
    static func fits(_ p: Property, _ c: QueryConstant) -> Bool {
        if p.type == .mixed { return true }
        switch (p.type, c) {
        case (_, .null): return true
        case (.int, .int), (.int, .double), (.int, .decimal), (.float, .int), (.float, .double), (.float, .decimal),
             (.double, .int), (.double, .double), (.double, .decimal),
             (.decimal128, .int), (.decimal128, .double), (.decimal128, .decimal):
            return true
        case (.bool, .bool), (.string, .bytes(_, true)), (.binary, .bytes(_, false)), (.timestamp, .timestamp),
             (.objectId, .objectId), (.uuid, .uuid), (.link, .link):
            return true
        default:
            return false
        }
    }

    /// What `node` (bound over some class) answers for an object that is
    /// not there: every value null, every link null, every collection empty.
    static func matchesNullObject(_ node: QueryNode) -> Bool {
        switch node {
        case .constant(let b): return b
        case .and(let children): return children.allSatisfy { matchesNullObject($0) }
        case .or(let children): return children.contains { matchesNullObject($0) }
        case .not(let inner): return !matchesNullObject(inner)
        case .graph(let graph): return graph.matchesNullObject
        case .fullText: return false    // no object, no text
        case .compare(let p, _, _, _) where p.flags.contains(.collectionSize):
            return QueryEvaluator.matches(node, .int(0), mixed: false)
        case .compare, .compareProperties, .constantMatches:
            return QueryEvaluator.matches(node, .null, mixed: false)
        }
    }

    /// Whether `value` of `expression` matches `predicate` (bound over its values).
    @inline(__always)
    static func matches(_ predicate: QueryNode, _ value: Value, _ expression: ValueExpression) -> Bool {
        QueryEvaluator.matches(predicate, value, mixed: expression.isMixed)
    }

}

extension QueryBinder {
    // MARK: Messages

    /// Refuse a quantifier before a path that holds one value.
    static func refuseQuantifier(_ quantifier: QueryQuantifier?, _ text: String) throws(FiefError) {
        if let quantifier {
            throw FiefError(.queryInvalid, "\(spelling(quantifier)) applies to a key path through a list, set, map or backlinks, or to a list of values; '\(text)' is one value")
        }
    }

    static func spelling(_ quantifier: QueryQuantifier) -> String {
        switch quantifier {
        case .any: return "ANY"
        case .all: return "ALL"
        case .none: return "NONE"
        }
    }

    /// A key path as messages name it.
    static func text(_ keyPath: QueryKeyPath) -> String {
        var text = ""
        func step(_ part: String) { text += text.isEmpty ? part : "." + part }
        for component in keyPath.components {
            switch component {
            case .property(let name): step(name)
            case .backlinks(let className, let property): step("@links.\(className).\(property)")
            case .allBacklinks: step("@links")
            case .keys: step("@keys")
            case .values: step("@values")
            case .index(let n): text += "[\(n)]"
            case .first: text += "[FIRST]"
            case .last: text += "[LAST]"
            case .all: text += "[*]"
            case .key(let key): text += "['\(key)']"
            case .argumentIndex(let n): text += "[$\(n)]"
            }
        }
        switch keyPath.suffix {
        case nil: break
        case .count?: text += ".@count"
        case .type?: text += ".@type"
        case .aggregate(let aggregate, let property)?:
            text += ".@" + spelling(aggregate)
            if let property { text += ".\(property)" }
        }
        return text
    }

    /// An operand as messages name it.
    static func describe(_ operand: QueryOperand) -> String {
        switch operand {
        case .argument(let n): return "argument \(n)"
        case .keyPath(let path): return "'\(text(path))'"
        case .element: return "'self'"
        case .arithmetic, .negated: return "'\((try? QuerySerializer.operand(operand)) ?? "arithmetic")'"
        default: return "a constant"
        }
    }
}

extension QueryOperand {
    var isArgument: Bool {
        if case .argument = self { return true }
        return false
    }

    var isArithmetic: Bool {
        switch self {
        case .arithmetic, .negated: return true
        default: return false
        }
    }

    /// Whether it is, or lists, an object-key literal `O<key>`.
    var hasObjectKey: Bool {
        switch self {
        case .constant(.objectKey): return true
        case .list(let items): return items.contains { $0.hasObjectKey }
        case .quantified(_, let inner): return inner.hasObjectKey
        default: return false
        }
    }

    /// The operand with each object-key literal `O<key>` in it a link to
    /// that object of class `classKey`.
    func replacingObjectKeys(classKey: UInt32) -> QueryOperand {
        switch self {
        case .constant(.objectKey(let key)): return .constant(.link(classKey: classKey, objectKey: key))
        case .list(let items): return .list(items.map { $0.replacingObjectKeys(classKey: classKey) })
        case .quantified(let quantifier, let inner): return .quantified(quantifier, inner.replacingObjectKeys(classKey: classKey))
        default: return self
        }
    }

    /// The operand with each list of values in it (`{...}`, an argument,
    /// quantified or not) replaced by `value` (see `listArithmetic`).
    func replacingLists(with value: QueryOperand, listArgument: (Int) -> Bool) -> QueryOperand {
        switch self {
        case .arithmetic(let a, let op, let b):
            return .arithmetic(a.replacingLists(with: value, listArgument: listArgument), op, b.replacingLists(with: value, listArgument: listArgument))
        case .negated(let a): return .negated(a.replacingLists(with: value, listArgument: listArgument))
        case .list, .quantified: return value
        case .argument(let n): return listArgument(n) ? value : self
        default: return self
        }
    }

    /// Whether it is, or lists, an `obj('Class', pk)`.
    var namesObjects: Bool {
        switch self {
        case .object: return true
        case .list(let items): return items.contains { $0.namesObjects }
        case .quantified(_, let inner): return inner.namesObjects
        default: return false
        }
    }
}

extension Aggregator {
    /// The type of the result (`result()`): an int sum stays an int, an
    /// average of ints, floats or doubles is a double, mixed values sum and
    /// average to a decimal.
    var resultType: PropertyType {
        switch (operation, type) {
        case (.min, _), (.max, _): return type
        case (_, .mixed), (_, .decimal128): return .decimal128
        case (.sum, .int): return .int
        default: return .double
        }
    }
}
