// The object-graph binder: what `QueryCompiler` hands over when a
// comparison reads more than one value of the object it tests.
//
//   * key paths through to-one links and embedded objects
//     (`owner.name == $0`, `address.city BEGINSWITH 'a'`, `a.b.c > 5`);
//   * lists of values given with the query: `x IN {1, 2}`, `x IN $0` (a
//     list argument), `x == ANY {...}`, `x != ALL $0`, `x > NONE {...}`;
//   * `x BETWEEN {low, high}`.
//
// A comparison of a key path with values given with the query is bound
// *backward*: the comparison is rewritten at the class the path reaches
// (`name == $0` over the owners), compiled there as any predicate is, and
// wrapped in a `GraphNode.reach`: evaluation finds the matching targets
// columnar and collects the objects linking to them through their
// backlinks (see GraphEvaluator.swift).  Two key paths compared with each
// other are read *forward*, object by object, through the link columns.
// A list of values is unrolled into one comparison per element (joined by
// OR for ANY, AND for ALL, NOT OR for NONE), each bound as the scalar
// compiler binds it, so the columnar fast paths serve each element.

/// A predicate that reads other objects than the one it tests, bound by
/// `QueryBinder` and evaluated a cluster at a time by `QueryScan`.  A
/// class, so that a scan can keep what it computed once per node.
final class GraphNode {
    enum Kind {
        /// Backward: the objects whose path reaches an object matching a
        /// predicate over the class it ends at.
        case reach(PathReach)
        /// Forward: the values of two operands (a property of the object or
        /// a key path through to-one links), compared per object.
        case compare(ValuePath, QueryOperator, ValuePath, QueryStringOptions)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// What the node answers for an object that is not there: the one a
    /// null link points to, whose values are all null, whose links are null
    /// and whose collections are empty.  (A key path crossing a null to-one
    /// link reads null, as in realm-core.)
    var matchesNullObject: Bool {
        switch kind {
        case .reach(let reach):
            // Its first link is null: the path reads null (to-one links
            // only), or reaches nothing.
            if reach.nullLinksMatch { return true }
            return reach.complement
        case .compare(let a, let op, let b, let options):
            let mixed = a.last.type == .mixed || b.last.type == .mixed
            return mixed ? QueryEvaluator.compareMixed(.null, op, .null, options) : QueryEvaluator.compareValues(.null, op, .null, options)
        }
    }

    /// The columns the node reads, by class (see `QueryNode.collectColumns`).
    func collectColumns(table: UInt32, into columns: inout [UInt32: Set<UInt32>]) {
        switch kind {
        case .reach(let reach):
            GraphHop.collectColumns(reach.hops, into: &columns)
            reach.target.root.collectColumns(table: reach.target.tableKey, into: &columns)
        case .compare(let a, _, let b, _):
            for path in [a, b] {
                GraphHop.collectColumns(path.hops, into: &columns)
                columns[path.lastClass, default: []].insert(path.last.key)
            }
        }
    }
}

/// One step of a key path from the objects of one class to objects of
/// another (or the same) class.
struct GraphHop: Equatable {
    enum Kind: Equatable {
        /// A to-one link (or an embedded object): `property` of `from`.
        case link
    }

    let kind: Kind
    /// The class the step starts at.
    let from: UInt32
    /// The class it reaches.
    let to: UInt32
    /// The link property (of `from`).
    let property: UInt32

    /// Record, for `hops`, each class passed and each link column read.
    static func collectColumns(_ hops: [GraphHop], into columns: inout [UInt32: Set<UInt32>]) {
        for hop in hops {
            columns[hop.from, default: []].insert(hop.property)
            _ = columns[hop.to, default: []]
        }
    }
}

/// A key path bound backward: the objects it reaches from the object
/// tested, and what they must match.
///
/// The answer for an object is: whether its path reaches an object of
/// `target` (`complement`: whether it reaches none); with `nullLinksMatch`,
/// also every object whose path crosses a null link (the path then reads
/// null, and the comparison holds for null).
struct PathReach {
    /// The steps from the class tested; the last reaches `target`'s class.
    let hops: [GraphHop]
    /// The predicate over the class the path ends at.
    let target: CompiledQuery
    let complement: Bool
    let nullLinksMatch: Bool
}

/// A value read forward: a property of the object tested (no hops) or at
/// the end of a path of to-one links.
struct ValuePath {
    let hops: [GraphHop]
    /// The class `last` belongs to (the one the last hop reaches).
    let lastClass: UInt32
    let last: Property
    /// For a link `last`: the class it links to (its values are links to it).
    let lastLinkTarget: UInt32
}

/// A key path resolved against the schema: the links it follows from the
/// object tested, and its last property.
struct BoundPath {
    let hops: [GraphHop]
    /// The class of the last property (the one the last hop reaches).
    let lastTable: Table
    let last: Property
    /// The key path as written, for messages.
    let text: String

    var valuePath: ValuePath {
        ValuePath(hops: hops, lastClass: lastTable.key, last: last,
                  lastLinkTarget: last.type == .link ? ((try? lastTable.column(last.key))?.linkTarget ?? 0) : 0)
    }

    /// The last property alone, as a key path from the class it belongs to.
    var lastOperand: QueryOperand { .keyPath(QueryKeyPath(properties: [last.name])) }
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
                guard case .objects(let table) = target, let property = table.property(named: names[0]) else { return true }
                return property.collection == .none
            default: return false
            }
        }

        /// The same scope over the objects of `table`.
        func over(_ table: Table) -> Scope { Scope(target: .objects(table), arguments: arguments, realm: realm) }
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
        /// A key path leaving the object tested, and the quantifier written
        /// before it.
        case path(BoundPath, QueryQuantifier?)

        var isGiven: Bool {
            switch self {
            case .value, .values: return true
            case .own, .path: return false
            }
        }
    }

    // MARK: Predicates

    /// `lhs op rhs` where at least one side is more than one value of the
    /// object tested or a scalar constant.
    static func comparison(_ lhs: QueryOperand, _ op: QueryOperator, _ rhs: QueryOperand, _ options: QueryStringOptions,
                           _ scope: Scope) throws(FiefError) -> QueryNode {
        let left = try side(lhs, scope), right = try side(rhs, scope)
        switch (left, right) {
        case (.own, .values(let elements, let quantifier)):
            return try compareList(try QueryCompiler.property(lhs, scope.target), op, elements, quantifier, options, scope, listFirst: false)
        case (.values(let elements, let quantifier), .own):
            return try compareList(try QueryCompiler.property(rhs, scope.target), op, elements, quantifier, options, scope, listFirst: true)
        case (.path(let path, let quantifier), _) where right.isGiven:
            return try reach(path, quantifier, scope) { leaf in .comparison(leaf, op, rhs, options) }
        case (_, .path(let path, let quantifier)) where left.isGiven:
            return try reach(path, quantifier, scope) { leaf in .comparison(lhs, op, leaf, options) }
        case (.path(let a, let qa), .path(let b, let qb)) where qa == nil && qb == nil && a.hops == b.hops:
            // Both read the same object at the end of the path.
            return try reach(a, nil, scope) { _ in .comparison(a.lastOperand, op, b.lastOperand, options) }
        case (.path(let a, let qa), .path(let b, let qb)):
            try refuseQuantifier(qa ?? qb, a.text)
            return try forward(a, op, b, options, scope)
        case (.path(let a, let quantifier), .own):
            try refuseQuantifier(quantifier, a.text)
            return try forward(a, op, try ownPath(rhs, scope), options, scope)
        case (.own, .path(let b, let quantifier)):
            try refuseQuantifier(quantifier, b.text)
            return try forward(try ownPath(lhs, scope), op, b, options, scope)
        case (.value, .values), (.values, .value), (.values, .values):
            throw FiefError(.queryInvalid, "cannot compare values given with the query with each other: one side of \(QueryCompiler.name(op)) must be a property or key path")
        case (.own, .own), (.own, .value), (.value, .own), (.value, .value), (.path, _), (_, .path):
            // Scalar pairs never come here, and a path meets a given value above.
            throw FiefError(.internal, "the query binder was given a comparison it does not bind")
        }
    }

    /// `lhs IN rhs`: `lhs == ANY rhs` for a list of values (or ALL, NONE
    /// when written: `x IN ALL $0`).
    static func membership(_ lhs: QueryOperand, _ rhs: QueryOperand, _ options: QueryStringOptions, _ scope: Scope) throws(FiefError) -> QueryNode {
        switch try side(rhs, scope) {
        case .values:
            return try comparison(lhs, .equal, rhs, options, scope)
        case .value(let given):
            throw FiefError(given.isArgument ? .queryArgument : .queryInvalid,
                            "IN takes a list on its right ({...} or a list argument), or a key path through a list, set, map or backlinks; \(describe(given)) is one value")
        case .own:
            throw FiefError(.queryInvalid, "IN takes a list on its right ({...} or a list argument), or a key path through a list, set, map or backlinks; \(describe(rhs)) is one value")
        case .path(let path, _):
            throw FiefError(.queryInvalid, "IN takes a list on its right ({...} or a list argument), or a key path through a list, set, map or backlinks; '\(path.text)' is one value")
        }
    }

    /// `value BETWEEN {low, high}`: `value >= low AND value <= high`, bounds
    /// included.
    static func between(_ value: QueryOperand, _ low: QueryOperand, _ high: QueryOperand, _ scope: Scope) throws(FiefError) -> QueryNode {
        switch try side(value, scope) {
        case .path(let path, let quantifier):
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
            throw QueryCompiler.unsupported("an object key literal (O<key>)")
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
            return .path(try resolve(keyPath, from: table, realm), nil)
        case .object, .subqueryCount, .arithmetic, .negated:
            try QueryCompiler.checkSupported(operand)
            throw FiefError(.internal, "the query binder was given an operand it does not bind")
        }
    }

    /// Resolve a key path of property names through to-one links and
    /// embedded objects.
    static func resolve(_ keyPath: QueryKeyPath, from table: Table, _ realm: Realm) throws(FiefError) -> BoundPath {
        if let construct = QueryCompiler.unsupportedConstruct(keyPath) { throw QueryCompiler.unsupported(construct) }
        let names = keyPath.propertyNames ?? []
        let text = names.joined(separator: ".")
        var hops: [GraphHop] = []
        var current = table
        for (position, name) in names.enumerated() {
            guard let property = current.property(named: name) else {
                throw FiefError(.queryInvalid, "class '\(current.objectClass.name)' has no property '\(name)' (in key path '\(text)')")
            }
            let qualified = "'\(current.objectClass.name).\(property.name)'"
            if property.collection != .none {
                throw QueryCompiler.unsupported(position == names.count - 1
                    ? "comparing the elements of \(property.collection.name) \(qualified)"
                    : "a key path through \(property.collection.name) \(qualified)")
            }
            if position == names.count - 1 {
                return BoundPath(hops: hops, lastTable: current, last: property, text: text)
            }
            guard property.type == .link else {
                throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) is \(property.type == .int ? "an" : "a") \(property.type.name), not a link, so nothing can follow it")
            }
            let target = try realm.table(try current.column(property.key).linkTarget)
            hops.append(GraphHop(kind: .link, from: current.key, to: target.key, property: property.key))
            current = target
        }
        throw FiefError(.queryInvalid, "the key path is empty")
    }

    /// A property of the object tested (or `self`) as a value path.
    static func ownPath(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> BoundPath {
        let property = try QueryCompiler.property(operand, scope.target)
        guard case .objects(let table) = scope.target else { throw FiefError(.queryInvalid, "expected a property") }
        return BoundPath(hops: [], lastTable: table, last: property, text: property.name)
    }

    // MARK: Strategies

    /// Backward: `leafPredicate(last property)` bound over the class the
    /// path ends at, then reached from the class tested through the
    /// path's links.  With no hop (a path that is a property of the class
    /// itself), simply that predicate.
    static func reach(_ path: BoundPath, _ quantifier: QueryQuantifier?, _ scope: Scope,
                      _ leafPredicate: (QueryOperand) -> QueryExpression) throws(FiefError) -> QueryNode {
        try refuseQuantifier(quantifier, path.text)
        let leafScope = scope.over(path.lastTable)
        let leaf = try QueryCompiler.node(leafPredicate(path.lastOperand), leafScope.target, scope.arguments, realm: scope.realm)
        if path.hops.isEmpty { return leaf }
        // Every hop is a to-one link: a null link on the way reads null.
        let reach = PathReach(hops: path.hops, target: CompiledQuery(root: leaf, tableKey: path.lastTable.key),
                              complement: false, nullLinksMatch: matchesNullObject(leaf))
        return .graph(GraphNode(.reach(reach)))
    }

    /// Forward: two values read per object and compared as two properties
    /// of one object are.
    static func forward(_ a: BoundPath, _ op: QueryOperator, _ b: BoundPath, _ options: QueryStringOptions, _ scope: Scope) throws(FiefError) -> QueryNode {
        try QueryCompiler.checkPropertyPair(a.last, op, b.last, scope.target)
        if a.last.type == .link && b.last.type == .link {
            let ta = a.valuePath.lastLinkTarget, tb = b.valuePath.lastLinkTarget
            if ta != tb {
                throw FiefError(.queryInvalid, "cannot compare '\(a.text)' (links to '\(a.last.linkTarget ?? "")') with '\(b.text)' (links to '\(b.last.linkTarget ?? "")')")
            }
        }
        return .graph(GraphNode(.compare(a.valuePath, op, b.valuePath, options)))
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
            let c = try QueryCompiler.adapted(given, for: p, argument: argument)
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
        case .compare, .compareProperties, .constantMatches:
            return QueryEvaluator.matches(node, .null, mixed: false)
        }
    }

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

    /// An operand as messages name it.
    static func describe(_ operand: QueryOperand) -> String {
        switch operand {
        case .argument(let n): return "argument \(n)"
        case .keyPath(let path): return "'\(path.propertyNames?.joined(separator: ".") ?? "the key path")'"
        case .element: return "'self'"
        default: return "a constant"
        }
    }
}

extension QueryOperand {
    var isArgument: Bool {
        if case .argument = self { return true }
        return false
    }
}
