import FiefStorage
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
