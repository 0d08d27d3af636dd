import FiefStorage
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
