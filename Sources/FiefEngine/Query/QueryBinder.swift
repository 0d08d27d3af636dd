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
// backlinks (see QueryScan.swift).  The sizes of collections are
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
import FiefStorage

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
