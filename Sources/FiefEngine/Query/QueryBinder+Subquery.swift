import FiefStorage
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
