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
