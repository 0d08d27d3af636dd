import FiefStorage
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
    // MARK: self, the object tested

    /// Whether `operand` is `self` standing for the object tested: over the
    /// objects of a class without a property named "self" (with one, `self`
    /// is that property).
    static func isSelfObject(_ operand: QueryOperand, _ target: QueryTarget) -> Bool {
        guard case .element = operand, case .objects(let table) = target else { return false }
        return table.property(named: "self") == nil
    }

    /// `self == x`, `self != x`, `self IN {x, y}`, `self IN $0`, `self ==
    /// ANY $0`, `self == NONE $0` over objects, `other` the side given with
    /// the query: the object tested compared with objects (object
    /// arguments, `obj(...)`) by identity, as RealmSwift's `SELF == %@`
    /// compares them: a match on the object's own key.  Null equals no
    /// object.  Anything but objects of the class tested and null, or
    /// another operator, is refused.
    static func selfComparison(_ op: QueryOperator, _ other: QueryOperand, _ scope: Scope) throws(FiefError) -> QueryNode {
        guard case .objects(let table) = scope.target else { throw FiefError(.internal, "'self' compared as an object over values") }
        let className = table.objectClass.name
        guard op == .equal || op == .notEqual else {
            throw FiefError(.queryInvalid, "'self' is an object of class '\(className)': it is compared with objects by == or != (or IN), not by \(QueryCompiler.name(op))")
        }
        var given = try objectsResolved(other, scope)
        var quantifier: QueryQuantifier? = nil
        if case .quantified(let q, let inner) = given { (quantifier, given) = (q, inner) }
        // The objects given (null values left out) and whether there are several.
        var keys: [Int64] = []
        var isList = false
        func add(_ constant: QueryConstant, _ argument: Int?) throws(FiefError) {
            switch constant {
            case .null:
                return
            case .link(let classKey, let objectKey) where classKey == table.key:
                if objectKey >= 0 { keys.append(objectKey) }
            default:
                let what = argument.map { "argument \($0) is" } ?? "the value given is"
                let kind: String
                if case .link(let classKey, _) = constant, let other = try? scope.realm?.table(classKey) {
                    kind = "an object of class '\(other.objectClass.name)'"
                } else {
                    kind = "a \(constant.typeName)"
                }
                throw FiefError(argument == nil ? .queryInvalid : .queryArgument,
                                "'self' is an object of class '\(className)', compared with objects of that class (or null); \(what) \(kind)")
            }
        }
        switch given {
        case .argument(let n) where n >= 0 && n < scope.arguments.count && scope.arguments[n].isList:
            isList = true
            for value in scope.arguments[n].values { try add(try QueryCompiler.constant(value, argument: n), n) }
        case .list(let items):
            isList = true
            for item in items {
                let resolved = try objectsResolved(item, scope)
                try add(try QueryCompiler.constant(resolved, scope.arguments), QueryCompiler.argumentIndex(resolved))
            }
        case .argument, .constant:
            try add(try QueryCompiler.constant(given, scope.arguments), QueryCompiler.argumentIndex(given))
        default:
            throw FiefError(.queryInvalid, "'self' is an object of class '\(className)': it is compared with objects given with the query (an object argument, obj(...), a list of them) or null, not with \(describe(other))")
        }
        if isList || quantifier != nil {
            guard op == .equal, quantifier != .all else {
                throw FiefError(.queryInvalid, "'self' is one object: it is compared with a list of objects by IN, == ANY or == NONE")
            }
        }
        // Equal to one of them, or (!=, NONE) to none of them.
        let allBut = op == .notEqual || quantifier == QueryQuantifier.none
        let reach = PathReach(hops: [], target: .objects(table: table.key, keys: keys.sorted(), allBut: allBut),
                              complement: false, nullLinksMatch: false, orReachesNothing: false)
        return .graph(GraphNode(.reach(reach), dependencies: [table.key: []]))
    }
}
