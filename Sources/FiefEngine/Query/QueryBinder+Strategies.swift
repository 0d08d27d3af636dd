import FiefStorage
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
            var dependencies: [UInt32: Set<UInt32>] = [:]
            GraphHop.collectColumns(expression.hops, into: &dependencies)
            leaf.collectColumns(table: path.lastTable.key, into: &dependencies)
            return toOneReach(path.hops, leaf, at: path.lastTable.key, dependencies: dependencies)
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

    /// `leaf` (a predicate over class `lastClass`) reached through `hops`,
    /// steps that each lead to one object at most (to-one links, embedded
    /// objects): the objects whose path ends at a match, and, when `leaf`
    /// matches a missing object (`name == nil`), those whose path stops at a
    /// null link.  The one way to build such a reach: `reach` above, and
    /// `QueryCache` rebinding a query it keeps to new arguments.
    static func toOneReach(_ hops: [GraphHop], _ leaf: QueryNode, at lastClass: UInt32,
                           dependencies: [UInt32: Set<UInt32>]) -> QueryNode {
        .graph(GraphNode(.reach(PathReach(hops: hops, target: .predicate(CompiledQuery(root: leaf, tableKey: lastClass)),
                                          complement: false, nullLinksMatch: matchesNullObject(leaf), orReachesNothing: false)),
                         dependencies: dependencies))
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
