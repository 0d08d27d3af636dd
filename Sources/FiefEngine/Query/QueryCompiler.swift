// Compiling: a parsed predicate bound to the objects of a class, or to the
// elements of a collection of values.  Comparisons of the class's own
// values are bound here (`QueryNode.compare` and its kin); everything that
// reads further (key paths through links and collections, lists of
// values, IN, BETWEEN, `self` over objects) goes to `QueryBinder`.
import FiefStorage

// MARK: - Compiling

/// What a predicate is compiled against: the objects of a class (key paths
/// name its properties), or the elements of a collection of values (`self`
/// names the element; `element` describes it as a property: its type and
/// whether it may be null).
enum QueryTarget {
    case objects(Table)
    case elements(Property, description: String)

    /// How error messages name `p`.
    func subject(_ p: Property) -> String {
        switch self {
        case .objects(let table): return "'\(table.objectClass.name).\(p.name)' (\(p.type.name))"
        case .elements(_, let description): return "'self' (\(description), \(p.isNullable ? "optional " : "")\(p.type.name))"
        }
    }
}

enum QueryCompiler {
    /// A predicate over the objects of `table`; key paths through links,
    /// collections and backlinks reach the classes of `realm`'s schema.
    static func compile(_ expression: QueryExpression, table: Table, realm: Realm, arguments: [QueryArgument]) throws(FiefError) -> CompiledQuery {
        let expression = try QueryArgumentSubstitution.keyPaths(expression, arguments, table: table, realm: realm)
        return CompiledQuery(root: try node(expression, .objects(table), arguments, realm: realm), tableKey: table.key,
                             predicate: QueryArgumentSubstitution.literals(expression, arguments))
    }

    /// A predicate over the elements of a collection of values: `element`
    /// describes them (its `key` is ignored), `description` names the
    /// collection in messages ("the values of 'Person.scores'").
    static func compileElements(_ expression: QueryExpression, element: Property, description: String, tableKey: UInt32, arguments: [QueryArgument]) throws(FiefError) -> CompiledQuery {
        let expression = try QueryArgumentSubstitution.keyPaths(expression, arguments, table: nil, realm: nil)
        return CompiledQuery(root: try node(expression, .elements(element, description: description), arguments, realm: nil), tableKey: tableKey,
                             predicate: QueryArgumentSubstitution.literals(expression, arguments))
    }

    /// The SORT, DISTINCT and LIMIT suffixes of a query as the stages
    /// results apply after their filters (`Results.applying`), in the order
    /// written.  Their key paths name properties, through to-one links and
    /// embedded objects (`owner.name`), a map's key (`meta['age']` is
    /// `meta.age`), or `self` for values; the stages resolve and check them
    /// against the schema.
    static func stages(_ ordering: [QueryOrderingStage]) throws(FiefError) -> [ResultsStage] {
        func name(_ path: QueryKeyPath, in suffix: String) throws(FiefError) -> String {
            let refusal = "\(suffix) takes key paths of properties, through to-one links and embedded objects (as 'owner.name'), or a map's key ('meta[\"age\"]', 'meta.age'), without other collection steps, subscripts or '@' operators"
            guard path.start == .object, path.suffix == nil, !path.components.isEmpty else { throw FiefError(.queryInvalid, refusal) }
            var names: [String] = []
            for component in path.components {
                switch component {
                case .property(let name):
                    names.append(name)
                case .key(let key) where !names.isEmpty:
                    // A dictionary key: the stage resolves 'map.key' against the schema.
                    guard !key.isEmpty, !key.contains("."), !key.hasPrefix("$") else {
                        throw FiefError(.queryInvalid, "\(suffix) by the map key '\(key)': a map's key is not empty, has no '.' and does not start with '$'")
                    }
                    names.append(key)
                default:
                    throw FiefError(.queryInvalid, refusal)
                }
            }
            return names.joined(separator: ".")
        }
        var stages: [ResultsStage] = []
        for stage in ordering {
            switch stage {
            case .sort(let keys):
                var sortKeys: [SortKeyPath] = []
                for key in keys { sortKeys.append(SortKeyPath(try name(key.keyPath, in: "SORT"), ascending: key.ascending)) }
                stages.append(.sort(sortKeys))
            case .distinct(let paths):
                var names: [String] = []
                for path in paths { names.append(try name(path, in: "DISTINCT")) }
                stages.append(.distinct(names))
            case .limit(let n):
                stages.append(.limit(n))
            }
        }
        return stages
    }

    /// The error for an object-key literal (`O<key>`) anywhere but compared
    /// with a link (where `QueryBinder.objectKeysResolved` binds it).
    static func objectKeyOutOfPlace() -> FiefError {
        FiefError(.queryInvalid, "an object key literal (O<key>) names an object of the class a link points to: compare a link with it ('friend == O1', 'O1 IN friends')")
    }

    /// `expression` bound to `target`: comparisons of the class's own
    /// values here, everything that reads further (key paths through links
    /// and collections, lists of values, IN, BETWEEN) by `QueryBinder`.
    /// `realm` gives the schema key paths walk (nil for elements).
    static func node(_ expression: QueryExpression, _ target: QueryTarget, _ arguments: [QueryArgument], realm: Realm?) throws(FiefError) -> QueryNode {
        switch expression {
        case .alwaysTrue: return .constant(true)
        case .alwaysFalse: return .constant(false)
        case .not(let inner): return .not(try node(inner, target, arguments, realm: realm))
        case .and(let a, let b): return .and([try node(a, target, arguments, realm: realm), try node(b, target, arguments, realm: realm)])
        case .or(let a, let b): return .or([try node(a, target, arguments, realm: realm), try node(b, target, arguments, realm: realm)])
        case .comparison(var lhs, let op, var rhs, let options):
            let scope = QueryBinder.Scope(target: target, arguments: arguments, realm: realm)
            if QueryBinder.isSelfObject(lhs, target) { return try QueryBinder.selfComparison(op, rhs, scope) }
            if QueryBinder.isSelfObject(rhs, target) { return try QueryBinder.selfComparison(flip(op) ?? op, lhs, scope) }
            if lhs.hasObjectKey || rhs.hasObjectKey { (lhs, rhs) = try QueryBinder.objectKeysResolved(lhs, rhs, scope) }
            if scope.isScalar(lhs) && scope.isScalar(rhs) {
                try checkSupported(lhs)
                try checkSupported(rhs)
                return try comparison(lhs, op, rhs, options, target, arguments)
            }
            return try QueryBinder.comparison(lhs, op, rhs, options, scope)
        case .membership(let lhs, .argument(let n), _) where n >= 0 && n < arguments.count && arguments[n].geoShape != nil:
            // `location IN $0` with a shape: RealmSwift's spelling of GEOWITHIN.
            return try QueryBinder.geoWithin(lhs, .argument(n), QueryBinder.Scope(target: target, arguments: arguments, realm: realm))
        case .membership(var lhs, var rhs, let options):
            let scope = QueryBinder.Scope(target: target, arguments: arguments, realm: realm)
            if QueryBinder.isSelfObject(lhs, target) { return try QueryBinder.selfComparison(.equal, .quantified(.any, rhs), scope) }
            if lhs.hasObjectKey || rhs.hasObjectKey { (lhs, rhs) = try QueryBinder.objectKeysResolved(lhs, rhs, scope) }
            return try QueryBinder.membership(lhs, rhs, options, scope)
        case .between(let value, let low, let high):
            return try QueryBinder.between(value, low, high, QueryBinder.Scope(target: target, arguments: arguments, realm: realm))
        case .fullText(let lhs, let rhs): return try fullText(lhs, rhs, target, arguments, realm: realm)
        case .geoWithin(let lhs, let shape):
            return try QueryBinder.geoWithin(lhs, shape, QueryBinder.Scope(target: target, arguments: arguments, realm: realm))
        }
    }

    /// Throws for an operand the scalar compiler is never given: callers
    /// check `QueryBinder.Scope.isScalar` first, and the binder binds
    /// everything beyond a property name, `self`, a literal and a scalar
    /// argument (an internal error, not a refusal of the language).
    static func checkSupported(_ operand: QueryOperand) throws(FiefError) {
        switch operand {
        case .element, .argument: return
        case .constant(.objectKey): throw objectKeyOutOfPlace()
        case .constant: return
        case .keyPath(let path): if let construct = unsupportedConstruct(path) { throw notScalar(construct) }
        case .list: throw notScalar("a list literal '{...}'")
        case .quantified(let quantifier, _):
            switch quantifier {
            case .any: throw notScalar("the quantifier 'ANY'")
            case .all: throw notScalar("the quantifier 'ALL'")
            case .none: throw notScalar("the quantifier 'NONE'")
            }
        case .object: throw notScalar("obj(...)")
        case .subqueryCount: throw notScalar("SUBQUERY")
        case .arithmetic(_, let op, _): throw notScalar("arithmetic ('\(QueryParser.spelling(op))')")
        case .negated: throw notScalar("arithmetic (unary '-')")
        }
    }

    private static func notScalar(_ construct: String) -> FiefError {
        FiefError(.internal, "the scalar query compiler was given \(construct), which the query binder binds")
    }

    /// The first part of `path` beyond property names, described; nil for
    /// a path of property names.
    static func unsupportedConstruct(_ path: QueryKeyPath) -> String? {
        switch path.start {
        case .object: break
        case .variable: return "a SUBQUERY variable"
        case .argument: return "a key-path argument ($K or %K)"
        }
        for component in path.components {
            switch component {
            case .property: continue
            case .index, .first, .last, .all, .key, .argumentIndex: return "indexing a key path with '[...]'"
            case .keys: return "'@keys'"
            case .values: return "'@values'"
            case .backlinks, .allBacklinks: return "'@links'"
            }
        }
        switch path.suffix {
        case nil: return nil
        case .count?: return "'@count'"
        case .type?: return "'@type'"
        case .aggregate(let aggregate, _)?:
            switch aggregate {
            case .min: return "'@min'"
            case .max: return "'@max'"
            case .sum: return "'@sum'"
            case .average: return "'@avg'"
            }
        }
    }

    static func isSubject(_ operand: QueryOperand) -> Bool {
        switch operand {
        case .keyPath, .element: return true
        default: return false
        }
    }

    static func comparison(_ lhs: QueryOperand, _ op: QueryOperator, _ rhs: QueryOperand, _ options: QueryStringOptions, _ target: QueryTarget, _ arguments: [QueryArgument]) throws(FiefError) -> QueryNode {
        switch (isSubject(lhs), isSubject(rhs)) {
        case (true, true):
            let pa = try property(lhs, target), pb = try property(rhs, target)
            try checkPropertyPair(pa, op, pb, target)
            return .compareProperties(pa, op, pb, options)
        case (true, false):
            let p = try property(lhs, target)
            return try compareConstant(p, op, try constant(rhs, arguments, against: p), options, target,
                                       argument: argumentIndex(rhs), constantFirst: false)
        case (false, true):
            let p = try property(rhs, target)
            return try compareConstant(p, op, try constant(lhs, arguments, against: p), options, target,
                                       argument: argumentIndex(lhs), constantFirst: true)
        case (false, false):
            let a = try constant(lhs, arguments), b = try constant(rhs, arguments)
            return .constant(try constantComparison(a, op, b))
        }
    }

    /// `p op c` (`constantFirst`: `c op p`), `c` as read from the predicate
    /// or argument `argument`: adapted to `p`'s type, checked, and null
    /// comparisons rewritten as realm-core answers them.
    static func compareConstant(_ p: Property, _ op: QueryOperator, _ given: QueryConstant, _ options: QueryStringOptions,
                                _ target: QueryTarget, argument: Int?, constantFirst: Bool) throws(FiefError) -> QueryNode {
        let c = try adapted(given, for: p, argument: argument)
        guard constantFirst else {
            try check(p, op, c, options, target, argument: argument)
            if case .null = c, let rewritten = nullComparison(p, op, options, constantFirst: false) { return rewritten }
            return .compare(p, op, c, options)
        }
        guard let flipped = flip(op) else {
            // `'abc' CONTAINS name`: the constant is searched, the property is the pattern.
            try check(p, op, c, options, target, argument: argument)
            if case .null = c, let rewritten = nullComparison(p, op, options, constantFirst: true) { return rewritten }
            return .constantMatches(c, op, p, options)
        }
        try check(p, flipped, c, options, target, argument: argument)
        if case .null = c, let rewritten = nullComparison(p, flipped, options, constantFirst: false) { return rewritten }
        return .compare(p, flipped, c, options)
    }

    static func flip(_ op: QueryOperator) -> QueryOperator? {
        switch op {
        case .equal, .notEqual: return op
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }

    /// The operator as messages spell it (its canonical spelling).
    static func name(_ op: QueryOperator) -> String { QueryParser.spelling(op) }

    static func property(_ operand: QueryOperand, _ target: QueryTarget) throws(FiefError) -> Property {
        switch (operand, target) {
        case (.element, .elements(let element, _)):
            return element
        case (.keyPath(let keyPath), .elements(_, let description)):
            let path = keyPath.propertyNames ?? []
            throw FiefError(.queryInvalid, "'\(path.joined(separator: "."))' names a property, but these results hold \(description), not objects: compare 'self' instead")
        case (.element, .objects(let table)):
            // A class may have a property named "self"; otherwise `self` has no meaning here.
            if let p = table.property(named: "self"), p.collection == .none { return p }
            throw FiefError(.queryInvalid, "'self' stands for the element of a collection of values; results of class '\(table.objectClass.name)' hold objects: name one of its properties")
        case (.keyPath(let keyPath), .objects(let table)):
            let path = keyPath.propertyNames ?? []
            guard path.count == 1 else {
                throw FiefError(.queryInvalid, "key path '\(path.joined(separator: "."))' crosses a link; '\(table.objectClass.name)' has only scalar properties")
            }
            guard let p = table.property(named: path[0]) else {
                throw FiefError(.queryInvalid, "class '\(table.objectClass.name)' has no property '\(path[0])'")
            }
            if p.collection != .none {
                throw FiefError(.queryInvalid, "'\(table.objectClass.name).\(p.name)' is a \(p.collection.name), not one value: compare its elements (ANY, ALL or NONE before it, IN) or its size ('\(p.name).@count')")
            }
            return p
        default:
            throw FiefError(.queryInvalid, "expected a property")
        }
    }

    /// The value of a literal or argument operand.  A number literal is
    /// read as realm-core reads it against `property`: against a decimal
    /// property from its digits (`0.1` is the decimal 0.1, and
    /// `3.141592653589793238` keeps every digit), against any other its
    /// nearest double.
    static func constant(_ operand: QueryOperand, _ arguments: [QueryArgument], against property: Property? = nil) throws(FiefError) -> QueryConstant {
        let isDecimal = property?.type == .decimal128
        switch operand {
        case .constant(let literal):
            switch literal {
            case .null: return .null
            case .bool(let b): return .bool(b)
            case .int(let i): return .int(i)
            case .double(let d):
                // A double literal's shortest digits have the value written (QueryLiteral.double).
                if isDecimal, d.isFinite, let exact = DecimalArithmetic.parse(Array(d.description.utf8)) { return .decimal(exact) }
                return .double(d)
            case .float(let f): return .double(Double(f))
            case .decimal(let text):
                if isDecimal {
                    guard let exact = DecimalArithmetic.parse(Array(text.utf8)) else { throw FiefError(.querySyntax, "malformed number '\(text)'") }
                    return .decimal(exact)
                }
                guard let nearest = Double(text) else { throw FiefError(.querySyntax, "malformed number '\(text)'") }
                return .double(nearest)
            case .string(let s): return .bytes(Array(s.utf8), isString: true)
            case .timestamp(let s, let ns): return .timestamp(s, ns)
            case .objectId(let bytes):
                guard bytes.count == 12 else { throw FiefError(.querySyntax, "an object id has 12 bytes") }
                return .objectId(bytes.withUnsafeBytes { ObjectIdBytes(bytes: $0.baseAddress!) })
            case .uuid(let bytes):
                guard bytes.count == 16 else { throw FiefError(.querySyntax, "a uuid has 16 bytes") }
                return .uuid(bytes.withUnsafeBytes { UUIDBytes(bytes: $0.baseAddress!) })
            case .binary(let bytes): return .bytes(bytes, isString: false)
            case .link(let classKey, let objectKey): return .link(classKey, objectKey)
            case .objectKey: throw objectKeyOutOfPlace()
            }
        case .argument(let n):
            guard n >= 0, n < arguments.count else {
                throw FiefError(.queryArgument, "the predicate uses argument \(n), but \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given")
            }
            let argument = arguments[n]
            if argument.geoShape != nil {
                throw FiefError(.queryArgument, "argument \(n) is a geospatial shape; shapes are accepted only after GEOWITHIN (or IN) on the right of a link to GeoJSON points")
            }
            guard !argument.isList, argument.values.count == 1 else {
                throw FiefError(.queryArgument, "argument \(n) is a list; lists are accepted only by IN and ANY")
            }
            return try constant(argument.values[0], argument: n)
        default:
            throw FiefError(.queryInvalid, "expected a constant")
        }
    }

    /// A value given as argument `n` (or as an element of list argument
    /// `n`), copied.
    static func constant(_ value: Value, argument n: Int) throws(FiefError) -> QueryConstant {
        switch value {
        case .null: return .null
        case .int(let i): return .int(i)
        case .bool(let b): return .bool(b)
        case .float(let f): return .double(Double(f))
        case .double(let d): return .double(d)
        case .string(let s):
            guard UTF8Check.isValid(s) else { throw FiefError(.invalidUTF8, "argument \(n) is not valid UTF-8") }
            return .bytes(Array(s), isString: true)
        case .binary(let b): return .bytes(Array(b), isString: false)
        case .timestamp(let s, let ns):
            guard Value.isValidTimestamp(seconds: s, nanoseconds: ns) else {
                throw FiefError(.invalidArgument, "argument \(n): \(Value.invalidTimestampMessage(seconds: s, nanoseconds: ns))")
            }
            return .timestamp(s, ns)
        case .objectId(let id): return .objectId(id)
        case .uuid(let id): return .uuid(id)
        case .decimal128(let d): return .decimal(d)
        case .link(let classKey, let objectKey): return .link(classKey, objectKey)
        case .nestedList, .nestedDictionary:
            throw FiefError(.queryArgument, "argument \(n) is a nested \(value.typeName); a query argument is a value or a list of values")
        }
    }

    /// The constant as realm-core reads it against property `p` (its
    /// `convert_if_needed`): a double against a float property becomes a
    /// float (`floatCol == 0.1` matches the float 0.1); a double against an
    /// int property an int when it is one exactly (an infinity is an
    /// error); an int or a double argument against a decimal property a
    /// decimal (a double rounded to 15 digits, as realm-core converts it);
    /// a string against a numeric property the number it spells, where it
    /// spells one (`intCol == '5'`; otherwise the string stays, and the type
    /// check refuses it).  Mixed properties take constants as they are.
    static func adapted(_ c: QueryConstant, for p: Property, argument: Int?) throws(FiefError) -> QueryConstant {
        switch (p.type, c) {
        case (.float, .double(let d)):
            return .double(Double(Float(d)))
        case (.int, .double(let d)):
            if d.isInfinite {
                let message = "Infinity is not supported for int property \(p.name)"
                throw FiefError(argument == nil ? .queryInvalid : .queryArgument, argument.map { "argument \($0): \(message)" } ?? message)
            }
            return Int64(exactly: d).map { .int($0) } ?? c
        case (.decimal128, .int(let i)):
            return .decimal(DecimalArithmetic.from(i))
        case (.decimal128, .double(let d)) where argument != nil:
            return .decimal(DecimalArithmetic.from(d, digits: 15))
        case (.int, .bytes(let text, true)):
            return NumericText.integer(text).map { .int($0) } ?? c
        case (.float, .bytes(let text, true)):
            return NumericText.double(text).map { .double(Double(Float($0))) } ?? c
        case (.double, .bytes(let text, true)):
            return NumericText.double(text).map { .double($0) } ?? c
        case (.decimal128, .bytes(let text, true)):
            guard let d = DecimalArithmetic.parse(text), !DecimalArithmetic.isNaN(d) else { return c }
            return .decimal(d)
        default:
            return c
        }
    }

    /// `p op null` (`constantFirst`: `null op p`) for the operators whose
    /// answer against null is not a plain null test, as realm-core answers
    /// them: `<` and `>` match nothing, `<=` and `>=` the nulls (null equals
    /// null); LIKE matches the nulls either way round; with null as the
    /// pattern, CONTAINS, BEGINSWITH and ENDSWITH match every string and
    /// binary (null is the empty pattern; except that a binary's
    /// CONTAINS[c] and a mixed value's CONTAINS match the non-null values,
    /// and a mixed value begins and ends with no null), while null as the
    /// searched constant contains, begins and ends with nothing.  nil for
    /// == and != (null tests as they are).
    static func nullComparison(_ p: Property, _ op: QueryOperator, _ options: QueryStringOptions, constantFirst: Bool) -> QueryNode? {
        let nulls = QueryNode.compare(p, .equal, .null, [])
        let nonNulls = QueryNode.compare(p, .notEqual, .null, [])
        switch op {
        case .equal, .notEqual: return nil
        case .less, .greater: return .constant(false)
        case .lessOrEqual, .greaterOrEqual, .like: return nulls
        case .contains, .beginsWith, .endsWith:
            if constantFirst { return .constant(false) }
            switch p.type {
            case .mixed: return op == .contains ? nonNulls : .constant(false)
            case .binary where op == .contains && options.contains(.caseInsensitive): return nonNulls
            default: return .constant(true)
            }
        }
    }

    static func isNumeric(_ type: PropertyType) -> Bool {
        type == .int || type == .float || type == .double || type == .decimal128
    }

    static func isStringOperator(_ op: QueryOperator) -> Bool {
        op == .beginsWith || op == .endsWith || op == .contains || op == .like
    }

    static func argumentIndex(_ operand: QueryOperand) -> Int? {
        if case .argument(let n) = operand { return n }
        return nil
    }

    /// Check that `p op c` makes sense.  A mismatch caused by an argument is
    /// `.queryArgument`; one written in the predicate is `.queryInvalid`.
    static func check(_ p: Property, _ op: QueryOperator, _ c: QueryConstant, _ options: QueryStringOptions, _ target: QueryTarget, argument: Int?) throws(FiefError) {
        do throws(FiefError) {
            try checkTypes(p, op, c, options, target)
        } catch {
            if let argument, error.code == .queryInvalid {
                throw FiefError(.queryArgument, "argument \(argument): \(error.message)")
            }
            throw error
        }
    }

    static func checkTypes(_ p: Property, _ op: QueryOperator, _ c: QueryConstant, _ options: QueryStringOptions, _ target: QueryTarget) throws(FiefError) {
        var subject: String { target.subject(p) } // built only for an error
        if case .null = c {
            // Null compares with every type by == and !=; by <, <=, >, >= with
            // those that have an order; as a string pattern with strings,
            // binaries and mixed values (see `nullComparison`).
            let fits: Bool
            if isStringOperator(op) {
                fits = p.type == .string || p.type == .binary || p.type == .mixed
            } else if op != .equal && op != .notEqual {
                fits = p.type != .bool && p.type != .link
            } else {
                fits = true
            }
            guard fits else {
                throw FiefError(.queryInvalid, "\(name(op)) cannot compare \(subject) with null; use == or !=")
            }
            return
        }
        if p.type == .mixed {
            try checkMixed(p, op, c, options, target)
            return
        }
        let fits: Bool
        switch (p.type, c) {
        case (.int, .int), (.int, .double), (.int, .decimal),
             (.float, .int), (.float, .double), (.float, .decimal),
             (.double, .int), (.double, .double), (.double, .decimal),
             (.decimal128, .int), (.decimal128, .double), (.decimal128, .decimal):
            fits = !isStringOperator(op)
        case (.bool, .bool):
            fits = op == .equal || op == .notEqual
        case (.string, .bytes(_, true)), (.binary, .bytes(_, false)):
            // Strings and binaries are distinct types, both ways (as in
            // realm-core, where `binary == $0` with a string argument and
            // `string == $0` with a binary one are both refused).
            fits = true
        case (.timestamp, .timestamp), (.objectId, .objectId), (.uuid, .uuid):
            fits = !isStringOperator(op)
        case (.link, .link(let classKey, _)):
            guard case .objects(let table) = target, classKey == (try? table.column(p.key))?.linkTarget else {
                throw FiefError(.queryInvalid, "\(subject) links to '\(p.linkTarget ?? "")' objects; the object compared with it is of another class")
            }
            fits = op == .equal || op == .notEqual
        default:
            fits = false
        }
        guard fits else {
            var hint = ""
            if case .bytes(_, let isString) = c, p.type == .string || p.type == .binary {
                hint = isString
                    ? "; strings and binaries are distinct types: compare with a binary value (B64\"...\" or a binary argument)"
                    : "; strings and binaries are distinct types: compare with a string value"
            }
            throw FiefError(.queryInvalid, "cannot use \(name(op)) to compare \(subject) with a \(c.typeName) value\(hint)")
        }
        if !options.isEmpty && p.type != .string && p.type != .binary {
            throw FiefError(.queryInvalid, "[c] and [d] apply to strings only, not to \(subject)")
        }
    }

    /// A mixed element (or property) against a constant of any type: it
    /// matches the elements of the constant's group only (see
    /// `QueryEvaluator.compareMixed`).  The string operators and [c]/[d] take
    /// a string or binary; bools and links compare only with == and !=.
    static func checkMixed(_ p: Property, _ op: QueryOperator, _ c: QueryConstant, _ options: QueryStringOptions, _ target: QueryTarget) throws(FiefError) {
        var subject: String { target.subject(p) } // built only for an error
        var isBytes = false
        if case .bytes = c { isBytes = true }
        if isStringOperator(op) && !isBytes {
            throw FiefError(.queryInvalid, "cannot use \(name(op)) to compare \(subject) with a \(c.typeName) value: it takes a string or binary value")
        }
        if !options.isEmpty && !isBytes {
            throw FiefError(.queryInvalid, "[c] and [d] apply to strings only, not to a \(c.typeName) value compared with \(subject)")
        }
        switch c {
        case .bool, .link:
            guard op == .equal || op == .notEqual else {
                throw FiefError(.queryInvalid, "cannot use \(name(op)) to compare \(subject) with a \(c.typeName) value; use == or !=")
            }
        default:
            break
        }
    }

    static func checkPropertyPair(_ a: Property, _ op: QueryOperator, _ b: Property, _ target: QueryTarget) throws(FiefError) {
        // A mixed value compares with anything, as a constant of the other's type would.
        if a.type == .mixed || b.type == .mixed { return }
        let compatible = a.type == b.type || (isNumeric(a.type) && isNumeric(b.type))
        let stringOK = !isStringOperator(op) || ((a.type == .string || a.type == .binary) && a.type == b.type)
        let orderOK = (a.type != .bool && a.type != .link) || op == .equal || op == .notEqual
        if a.type == .link && b.type == .link && a.linkTarget != b.linkTarget {
            throw FiefError(.queryInvalid, "cannot compare '\(a.name)' (links to '\(a.linkTarget ?? "")') with '\(b.name)' (links to '\(b.linkTarget ?? "")')")
        }
        guard compatible && stringOK && orderOK else {
            throw FiefError(.queryInvalid, "cannot use \(name(op)) to compare '\(a.name)' (\(a.type.name)) with '\(b.name)' (\(b.type.name))")
        }
    }

    static func constantComparison(_ a: QueryConstant, _ op: QueryOperator, _ b: QueryConstant) throws(FiefError) -> Bool {
        let va = QueryEvaluator.valueOf(a), vb = b
        return QueryEvaluator.compare(va, op, vb, [])
    }
}
