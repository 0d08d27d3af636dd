/// A predicate bound to one class: property names resolved, arguments
/// copied in, types checked.  Evaluation works a cluster (256 objects) at a
/// time over column chunks read in place, producing a 256-bit match mask.
public final class CompiledQuery: @unchecked Sendable {
    let root: QueryNode
    let tableKey: UInt32
    /// Whether evaluating it reads other objects than the ones tested
    /// (key paths through links, collections, backlinks): then each scan
    /// brings a `QueryScan`.
    let readsGraph: Bool
    /// The predicate compiled, its arguments written in as literals (see
    /// `QueryArgumentSubstitution.literals`), for describing it as text;
    /// nil for the queries the binder makes, or when an argument has no
    /// literal.
    let predicate: QueryExpression?
    /// The columns it reads, when known beforehand (a query rebound by
    /// `BoundQueryCache`): of its class, and of the classes its key paths
    /// reach (as `Results` lists them; see `QueryNode.collectColumns`).
    let knownColumns: (own: [UInt32], linked: [(table: UInt32, columns: [UInt32])])?

    init(root: QueryNode, tableKey: UInt32, predicate: QueryExpression? = nil,
         knownColumns: (own: [UInt32], linked: [(table: UInt32, columns: [UInt32])])? = nil) {
        self.root = root
        self.tableKey = tableKey
        self.readsGraph = root.readsGraph
        self.predicate = predicate
        self.knownColumns = knownColumns
    }
}

typealias Bitmap = SIMD4<UInt64>

/// A value written in a predicate or passed as an argument, owned.
enum QueryConstant {
    case null
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case bytes([UInt8], isString: Bool)
    case timestamp(Int64, Int32)
    case objectId(ObjectIdBytes)
    case uuid(UUIDBytes)
    case decimal(Decimal128Bits)
    /// An object: class key and object key.
    case link(UInt32, Int64)

    var typeName: String {
        switch self {
        case .link: return "link"
        case .null: return "null"
        case .int: return "int"
        case .double: return "double"
        case .bool: return "bool"
        case .bytes(_, let isString): return isString ? "string" : "binary"
        case .timestamp: return "timestamp"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        case .decimal: return "decimal128"
        }
    }
}

extension QueryNode {
    /// Every column the node reads, by class: the columns of `table` (the
    /// class it tests) and, for the graph nodes, those of the classes their
    /// key paths reach (each such class listed, so that creating or
    /// deleting its objects counts as a change too).
    func collectColumns(table: UInt32, into columns: inout [UInt32: Set<UInt32>]) {
        switch self {
        case .constant: break
        case .and(let children), .or(let children): for child in children { child.collectColumns(table: table, into: &columns) }
        case .not(let inner): inner.collectColumns(table: table, into: &columns)
        case .compare(let p, _, _, _): columns[table, default: []].insert(p.key)
        case .compareProperties(let a, _, let b, _): columns[table, default: []].formUnion([a.key, b.key])
        case .constantMatches(_, _, let p, _): columns[table, default: []].insert(p.key)
        case .graph(let node): node.collectColumns(table: table, into: &columns)
        case .fullText(let predicate): columns[table, default: []].insert(predicate.property.key)
        }
    }

    /// Whether the node reads other objects than the one it tests (then
    /// its evaluation needs a `QueryScan`).
    var readsGraph: Bool {
        switch self {
        case .constant, .compare, .compareProperties, .constantMatches: return false
        case .and(let children), .or(let children): return children.contains { $0.readsGraph }
        case .not(let inner): return inner.readsGraph
        case .graph, .fullText: return true
        }
    }
}

extension QueryNode {
    /// The columns of the class tested that a node without graph nodes
    /// reads (`collectColumns` without its dictionary: a filter per lookup
    /// makes results often), appended to `columns` (repeats allowed).
    func collectOwnColumns(into columns: inout [UInt32]) {
        switch self {
        case .constant, .graph: break
        case .and(let children), .or(let children): for child in children { child.collectOwnColumns(into: &columns) }
        case .not(let inner): inner.collectOwnColumns(into: &columns)
        case .compare(let p, _, _, _), .constantMatches(_, _, let p, _): columns.append(p.key)
        case .compareProperties(let a, _, let b, _): columns.append(a.key); columns.append(b.key)
        case .fullText(let predicate): columns.append(predicate.property.key)
        }
    }
}

indirect enum QueryNode {
    case constant(Bool)
    case and([QueryNode])
    case or([QueryNode])
    case not(QueryNode)
    /// property <op> constant
    case compare(Property, QueryOperator, QueryConstant, QueryStringOptions)
    /// property <op> property
    case compareProperties(Property, QueryOperator, Property, QueryStringOptions)
    /// constant <op> property, for the string operators (`'abc' CONTAINS
    /// name`: the constant is searched, the property's value is the
    /// pattern); the constant is never null (see `nullComparison`).
    case constantMatches(QueryConstant, QueryOperator, Property, QueryStringOptions)
    /// A predicate over other objects than the one tested: a key path
    /// through links, collections or backlinks (see `GraphNode`).
    case graph(GraphNode)
    /// `property TEXT 'words'`: the objects the property's full-text index
    /// gives, read once per scan (see `FullTextPredicate`).
    case fullText(FullTextPredicate)
}

/// One argument of a query: a single value or (later) a list.
public struct QueryArgument {
    public var values: [Value]
    public var isList: Bool
    /// A region for `GEOWITHIN $n` (or `IN $n`); then `values` is empty.
    public var geoShape: GeoShape?
    public init(values: [Value], isList: Bool) {
        self.values = values
        self.isList = isList
    }

    /// A geospatial shape as an argument: accepted only on the right of
    /// GEOWITHIN (or of IN, which then means GEOWITHIN); anywhere else it
    /// is a `.queryArgument` error.
    public init(geoShape: GeoShape) {
        self.values = []
        self.isList = false
        self.geoShape = geoShape
    }
}

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

// MARK: - Evaluating

extension Realm {
    /// The clusters of `table` that hold objects, in key order, with their
    /// presence bitmaps, as this realm sees them now.
    func clusters(_ table: Table) throws(FiefError) -> [(cluster: Int64, live: Bitmap)] {
        try checkReadable()
        var result: [(cluster: Int64, live: Bitmap)] = []
        let end = ClusterLayout.columnStart(1)
        var objects = 0
        func collect(_ txn: OpaquePointer, _ bounds: MapBounds, _ tables: ChunkPartTables) throws(FiefError) {
            let cursor = try LMDBCursor(txn, table.data)
            var entry = try cursor.seek(integerKey: 0)
            while let (key, value) = entry, key < end {
                let reader = try checkedChunk(value, table, ChunkID(table: table.key, key: key), bounds, cursor: { () throws(FiefError) in try LMDBCursor(txn, table.data) }, tables: tables)
                let live = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
                objects += live[0].nonzeroBitCount + live[1].nonzeroBitCount + live[2].nonzeroBitCount + live[3].nonzeroBitCount
                result.append((ClusterLayout.cluster(ofChunkKey: key), live))
                entry = try cursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
            }
        }
        if let write {
            try collect(write.txn, write.bounds, write.partTables)
            if let touched = write.classes[table.key]?.touchedClusters, !touched.isEmpty {
                var merged: [Int64: Bitmap] = [:]
                for (cluster, live) in result { merged[cluster] = live }
                for cluster in touched {
                    let id = ChunkID(table: table.key, key: ClusterLayout.chunkKey(column: 0, cluster: cluster))
                    if let dirty = write.dirty[id] {
                        let r = dirty.reader
                        merged[cluster] = Bitmap(r.bitmapWord(0), r.bitmapWord(1), r.bitmapWord(2), r.bitmapWord(3))
                    }
                }
                result = merged.map { ($0.key, $0.value) }.sorted { $0.cluster < $1.cluster }
            }
        } else {
            let snapshot = try currentSnapshot()
            var counted: UInt64 = 0
            func collectAndCount() throws(FiefError) {
                try collect(snapshot.txn, snapshot.bounds, snapshot.partTables)
                if let meta = environment.openedDatabase(MetaKeys.database) {
                    counted = try MetaKeys.readUInt64(snapshot.txn, meta, MetaKeys.objectCount(table.key)) ?? 0
                }
            }
            if snapshot.isShared {
                try snapshot.lock.withLock { () throws(FiefError) in try collectAndCount() }
            } else {
                try collectAndCount()
            }
            // A cluster whose presence chunk went missing (a damaged tree)
            // shows as objects missing from the count.
            if counted != UInt64(objects) {
                throw FiefError(.fileCorrupt, "'\(environment.path)' is damaged: class '\(table.objectClass.name)' should hold \(counted) objects, but \(objects) are stored", path: environment.path)
            }
        }
        return result.filter { $0.live != Bitmap(repeating: 0) }
    }

    /// The keys of objects that may match `query` (in ascending order),
    /// when an index decides: an equality on the primary key or an indexed
    /// property, alone or in an AND; an OR (`IN {...}`, `IN $0`: the binder
    /// unrolls them so) of such equalities, each answered by its index (an
    /// element that cannot match gives none); a full-text search (its
    /// matches, kept by `scan`); nil when the query needs a scan.
    func indexCandidates(_ query: CompiledQuery, _ table: Table, scan: QueryScan? = nil) throws(FiefError) -> [Int64]? {
        try indexPlan(query, table, scan: scan)?.keys
    }

    /// `indexCandidates`, and whether the keys are exactly the matches (the
    /// query is such equalities alone, each key complete: no string cut in
    /// the index, no NaN), so that they need no evaluation.
    func indexPlan(_ query: CompiledQuery, _ table: Table, scan: QueryScan? = nil) throws(FiefError) -> (keys: [Int64], exact: Bool)? {
        func candidates(_ node: QueryNode) throws(FiefError) -> (keys: [Int64], exact: Bool)? {
            switch node {
            case .and(let children):
                for child in children { if let found = try candidates(child) { return (found.keys, false) } }
                return nil
            case .or(let children):
                var union: [Int64] = []
                var parts = 0
                var exact = true
                for child in children {
                    guard let found = try candidates(child) else { return nil }
                    if !found.keys.isEmpty { parts += 1 }
                    exact = exact && found.exact
                    union.append(contentsOf: found.keys)
                }
                if parts > 1 {
                    union.sort()
                    var kept = 0
                    for key in union where kept == 0 || union[kept - 1] != key {
                        union[kept] = key
                        kept += 1
                    }
                    union.removeLast(union.count - kept)
                }
                return (union, exact)
            case .constant(false):
                return ([], true)
            case .compare(let property, .equal, let constant, let options) where options.isEmpty || Self.isExactUnderFolding(constant):
                let value = QueryEvaluator.valueOf(constant)
                if property.isPrimaryKey {
                    if case .null = value, !property.isNullable { return ([], true) }
                    guard let value = try? value.coerced(for: property, className: "") else { return nil }
                    return (try lookupPrimaryKey(table, value).map { [$0] } ?? [], true)
                }
                guard let dbi = table.indexDatabases[property.key] else { return nil }
                return try withExtendedLifetime(constant) { () throws(FiefError) -> (keys: [Int64], exact: Bool)? in
                    if property.type == .mixed {
                        // Realm's equality of mixed values is equality of their index
                        // keys, but for a NaN (equal to nothing) and cut strings.
                        return (try indexLookup(dbi, value, of: property), !MixedOrder.isNaN(value) && !KeyEncoding.isCut(mixed: value))
                    }
                    guard let coerced = try? value.coerced(for: property, className: "") else { return nil }
                    return (try indexLookup(dbi, coerced, of: property), !KeyEncoding.isTruncated(coerced))
                }
            case .fullText(let predicate):
                if let scan { return (try scan.fullTextMatches(predicate, table).keys(), false) }
                return (try fullTextMatches(predicate, table).keys(), false)
            default:
                return nil
            }
        }
        return try candidates(query.root)
    }

    /// Whether `[c]`/`[d]` equality with `constant` is byte equality: a
    /// string of ASCII characters that are no letters (digits,
    /// punctuation, spaces).  Folding maps letters to letters and leaves
    /// the rest as it is, and no character outside ASCII folds to one of
    /// these, so only the string itself equals it folded; any other string
    /// constant needs the scan.
    static func isExactUnderFolding(_ constant: QueryConstant) -> Bool {
        guard case .bytes(let bytes, true) = constant else { return false }
        return bytes.allSatisfy { $0 < 0x80 && !(($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) }
    }

    private func indexLookup(_ dbi: MDB_dbi, _ value: Value, of property: Property) throws(FiefError) -> [Int64] {
        var bytes: [UInt8] = []
        // Room for most keys at once (an int, a short string).
        bytes.reserveCapacity(48)
        guard KeyEncoding.encodeIndexKey(value, of: property, into: &bytes) else { return [] }
        // The duplicates of a key come in the order of their bytes, not of
        // the object keys: sorted after, unless they already are.
        func scan(_ cursor: LMDBCursor) throws(FiefError) -> [Int64] {
            var keys: [Int64] = []
            keys.reserveCapacity(16)
            var ascending = true
            try bytes.withBytes { (wanted) throws(FiefError) in
                var entry = try cursor.seek(wanted)
                while let (key, value) = entry, key.count == wanted.count,
                      key.count == 0 || memcmp(key.baseAddress!, wanted.baseAddress!, key.count) == 0 {
                    let object = Int64(bitPattern: value.loadUnaligned(as: UInt64.self))
                    if let last = keys.last, last > object { ascending = false }
                    keys.append(object)
                    entry = try cursor.move(MDB_NEXT_DUP)
                }
            }
            if !ascending { keys.sort() }
            return keys
        }
        if let write { return try scan(try LMDBCursor(write.txn, dbi)) }
        // In a snapshot, through its cursor on the index (kept, as for chunks).
        let snapshot = try currentSnapshot()
        if snapshot.isShared {
            return try snapshot.lock.withLock { () throws(FiefError) in try scan(try snapshot.cursor(dbi)) }
        }
        return try scan(try snapshot.cursor(dbi))
    }

    /// The objects of `cluster` (among `mask`) that match `node`; `scan`
    /// keeps what graph nodes compute once per evaluation of a query (nil
    /// when the node has none: see `QueryNode.readsGraph`).
    func evaluate(_ node: QueryNode, _ table: Table, cluster: Int64, mask: Bitmap, scan: QueryScan?) throws(FiefError) -> Bitmap {
        switch node {
        case .constant(let b): return b ? mask : Bitmap(repeating: 0)
        case .and(let children):
            var bits = mask
            for child in children {
                bits &= try evaluate(child, table, cluster: cluster, mask: bits, scan: scan)
                if bits == Bitmap(repeating: 0) { break }
            }
            return bits
        case .or(let children):
            var bits = Bitmap(repeating: 0)
            for child in children {
                bits |= try evaluate(child, table, cluster: cluster, mask: mask & ~bits, scan: scan)
            }
            return bits & mask
        case .not(let inner):
            return mask & ~(try evaluate(inner, table, cluster: cluster, mask: mask, scan: scan))
        case .graph(let graph):
            guard let scan else { throw FiefError(.internal, "a query through links was evaluated without its scan") }
            return try scan.evaluate(graph, table, cluster: cluster, mask: mask)
        case .fullText(let predicate):
            guard let scan else { throw FiefError(.internal, "a full-text search was evaluated without its scan") }
            return try scan.fullTextMatches(predicate, table).bits(cluster: cluster) & mask
        case .compare(let property, let op, let constant, let options):
            let chunk = try self.chunk(table, column: property.key, cluster: cluster)
            if property.type == .mixed {
                var bits = Bitmap(repeating: 0)
                var damaged = false
                withExtendedLifetime(constant) {
                    let c = QueryEvaluator.valueOf(constant)
                    QueryEvaluator.forEachSlot(mask) { slot in
                        guard let v = QueryEvaluator.slotValue(chunk, slot, property) else { damaged = true; return }
                        if QueryEvaluator.compareMixed(v, op, c, options) { QueryEvaluator.set(&bits, slot) }
                    }
                }
                if damaged { throw damagedMixed(table, property) }
                return bits
            }
            return QueryEvaluator.compareColumn(chunk, property, op, constant, options, mask: mask)
        case .compareProperties(let a, let op, let b, let options):
            let ca = try chunk(table, column: a.key, cluster: cluster)
            let cb = try chunk(table, column: b.key, cluster: cluster)
            let mixed = a.type == .mixed || b.type == .mixed
            var bits = Bitmap(repeating: 0)
            var damaged = false
            QueryEvaluator.forEachSlot(mask) { slot in
                guard let va = QueryEvaluator.slotValue(ca, slot, a), let vb = QueryEvaluator.slotValue(cb, slot, b) else { damaged = true; return }
                let match = mixed ? QueryEvaluator.compareMixed(va, op, vb, options) : QueryEvaluator.compareValues(va, op, vb, options)
                if match { QueryEvaluator.set(&bits, slot) }
            }
            if damaged { throw damagedMixed(table, a.type == .mixed ? a : b) }
            return bits
        case .constantMatches(let constant, let op, let p, let options):
            let chunk = try self.chunk(table, column: p.key, cluster: cluster)
            var bits = Bitmap(repeating: 0)
            var damaged = false
            withExtendedLifetime(constant) {
                let c = QueryEvaluator.valueOf(constant)
                QueryEvaluator.forEachSlot(mask) { slot in
                    guard let v = QueryEvaluator.slotValue(chunk, slot, p) else { damaged = true; return }
                    if QueryEvaluator.constant(c, op, matches: v, options) { QueryEvaluator.set(&bits, slot) }
                }
            }
            if damaged { throw damagedMixed(table, p) }
            return bits
        }
    }

    /// The error for a mixed value whose stored coding does not decode.
    private func damagedMixed(_ table: Table, _ property: Property) -> FiefError {
        FiefError(.fileCorrupt, "'\(environment.path)' is damaged: a value of mixed property '\(table.objectClass.name).\(property.name)' does not decode", path: environment.path)
    }
}

import CLMDB

enum QueryEvaluator {
    @inline(__always)
    static func set(_ bits: inout Bitmap, _ slot: Int) {
        bits[slot >> 6] |= 1 << UInt64(slot & 63)
    }

    @inline(__always)
    static func forEachSlot(_ mask: Bitmap, _ body: (Int) -> Void) {
        for word in 0..<4 {
            var w = mask[word]
            while w != 0 {
                let bit = w.trailingZeroBitCount
                body(word << 6 | bit)
                w &= w - 1
            }
        }
    }

    /// Compare int-chunk values stored as unsigned offsets from `base`
    /// (frame of reference) with `c`: base + u op c, as u op (c - base).
    @inline(__always)
    static func compareOffsets<T: FixedWidthInteger & UnsignedInteger>(_ values: UnsafeRawPointer, as: T.Type, base: Int64, _ op: QueryOperator, _ c: Int64, _ mask: Bitmap) -> Bitmap {
        // Below every value (c < base) or above every offset: decided at once.
        if c < base || UInt64(bitPattern: c &- base) > UInt64(T.max) {
            let above = c >= base
            let all: Bool
            switch op {
            case .less, .lessOrEqual: all = above
            case .greater, .greaterOrEqual: all = !above
            case .equal: all = false
            default: all = true
            }
            return all ? mask : Bitmap(repeating: 0)
        }
        return compareLanes(values, op, T(truncatingIfNeeded: UInt64(bitPattern: c &- base)), mask)
    }

    /// Compare 256 packed integers of type `T` with `k`: one bit per slot.
    @inline(__always)
    static func compareLanes<T: FixedWidthInteger>(_ values: UnsafeRawPointer, _ op: QueryOperator, _ k: T, _ mask: Bitmap) -> Bitmap {
        var bits = Bitmap(repeating: 0)
        let width = MemoryLayout<T>.size
        for word in 0..<4 where mask[word] != 0 {
            var w: UInt64 = 0
            let p = values + (word << 6) * width
            switch op {
            case .less: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) < k ? 1 : 0) << UInt64(i) }
            case .lessOrEqual: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) <= k ? 1 : 0) << UInt64(i) }
            case .greater: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) > k ? 1 : 0) << UInt64(i) }
            case .greaterOrEqual: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) >= k ? 1 : 0) << UInt64(i) }
            case .equal: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) == k ? 1 : 0) << UInt64(i) }
            default: for i in 0..<64 { w |= (p.loadUnaligned(fromByteOffset: i * width, as: T.self) != k ? 1 : 0) << UInt64(i) }
            }
            bits[word] = w
        }
        return bits
    }

    /// One slot's value of `property`'s column chunk, a mixed value decoded
    /// (a view into the chunk); nil when a mixed value's coding is damaged.
    @inline(__always)
    static func slotValue(_ chunk: ColumnChunk, _ slot: Int, _ property: Property) -> Value? {
        guard property.type == .mixed else { return chunk.value(slot, type: property.type, nullable: property.isNullable) }
        guard case .binary(let coded) = chunk.value(slot, type: .mixed, nullable: true) else { return .null }
        return MixedCoding.decode(coded)
    }

    static func valueOf(_ c: QueryConstant) -> Value {
        switch c {
        case .null: return .null
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .bytes(let bytes, let isString):
            // The view is only used while `c` (and its array) is alive.
            let view = bytes.withUnsafeBytes { $0 }
            return isString ? .string(view) : .binary(view)
        case .timestamp(let s, let ns): return .timestamp(seconds: s, nanoseconds: ns)
        case .objectId(let id): return .objectId(id)
        case .uuid(let id): return .uuid(id)
        case .decimal(let d): return .decimal128(d)
        case .link(let classKey, let objectKey): return .link(classKey: classKey, objectKey: objectKey)
        }
    }

    /// Compare one column chunk with a constant over the slots in `mask`.
    static func compareColumn(_ chunk: ColumnChunk, _ property: Property, _ op: QueryOperator, _ constant: QueryConstant, _ options: QueryStringOptions, mask: Bitmap) -> Bitmap {
        let reader = chunk.reader
        // Null tests.
        if case .null = constant {
            var nulls = Bitmap(repeating: 0)
            if property.isNullable, reader.base != nil {
                nulls = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
            } else if property.isNullable {
                nulls = Bitmap(repeating: ~0)   // a missing chunk reads as all null
            }
            return op == .equal ? (nulls & mask) : (~nulls & mask)
        }
        // Fast path: int column against an int constant, at the chunk's width
        // (a link column holds object keys: compared with a link's key).
        var intConstant: Int64?
        if property.type == .int, case .int(let c) = constant { intConstant = c }
        if property.type == .link, case .link(_, let c) = constant { intConstant = c }
        if let c = intConstant, let base = reader.base {
            let values = UnsafeRawPointer(base + ClusterLayout.intValues)
            let low = reader.intBase
            var bits: Bitmap
            switch reader.intWidth {
            case 0: bits = QueryEvaluator.compare(.int(low), op, .int(c), []) ? mask : Bitmap(repeating: 0)
            case 1: bits = QueryEvaluator.compareOffsets(values, as: UInt8.self, base: low, op, c, mask)
            case 2: bits = QueryEvaluator.compareOffsets(values, as: UInt16.self, base: low, op, c, mask)
            case 4: bits = QueryEvaluator.compareOffsets(values, as: UInt32.self, base: low, op, c, mask)
            default: bits = QueryEvaluator.compareLanes(values, op, c, mask)   // the values themselves
            }
            if property.isNullable {
                let nulls = Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
                bits = op == .notEqual ? (bits | nulls) : (bits & ~nulls)
            }
            return bits & mask
        }
        // Fast path: case-sensitive string operators.
        if property.type == .string || property.type == .binary, options.isEmpty, case .bytes(let needle, _) = constant,
           op == .beginsWith || op == .equal || op == .notEqual {
            var bits = Bitmap(repeating: 0)
            needle.withUnsafeBytes { n in
                // The first bytes compared inline: most values differ there,
                // and a call to memcmp costs more than the comparison.
                let first = n.count > 0 ? n.load(as: UInt8.self) : 0
                @inline(__always)
                func same(_ s: UnsafeRawBufferPointer) -> Bool {
                    n.count == 0 || (s.load(as: UInt8.self) == first
                                     && (n.count == 1 || memcmp(s.baseAddress! + 1, n.baseAddress! + 1, n.count - 1) == 0))
                }
                let test = { (slot: Int, s: UnsafeRawBufferPointer) in
                    let isNull = property.isNullable && (reader.base == nil || reader.isNull(slot))
                    var match: Bool
                    switch op {
                    case .beginsWith: match = !isNull && s.count >= n.count && same(s)
                    case .equal: match = !isNull && s.count == n.count && same(s)
                    default: match = isNull || s.count != n.count || !same(s)
                    }
                    if match { set(&bits, slot) }
                }
                if chunk.dirtyItems == nil, reader.base != nil {
                    reader.forEachBytes(mask, test)
                } else {
                    forEachSlot(mask) { slot in test(slot, chunk.bytes(slot)) }
                }
            }
            return bits
        }
        // General path: decode each slot.
        var bits = Bitmap(repeating: 0)
        withExtendedLifetime(constant) {
            let c = valueOf(constant)
            forEachSlot(mask) { slot in
                let v = chunk.value(slot, type: property.type, nullable: property.isNullable)
                if compare(v, op, constant, options, constantValue: c) { set(&bits, slot) }
            }
        }
        return bits
    }

    static func compare(_ v: Value, _ op: QueryOperator, _ constant: QueryConstant, _ options: QueryStringOptions) -> Bool {
        withExtendedLifetime(constant) { compare(v, op, constant, options, constantValue: valueOf(constant)) }
    }

    @inline(__always)
    static func compare(_ v: Value, _ op: QueryOperator, _ constant: QueryConstant, _ options: QueryStringOptions, constantValue: Value) -> Bool {
        compareValues(v, op, constantValue, options)
    }

    /// Realm's comparison semantics for two values of compatible types.
    static func compareValues(_ a: Value, _ op: QueryOperator, _ b: Value, _ options: QueryStringOptions) -> Bool {
        if a.isNull || b.isNull {
            let both = a.isNull && b.isNull
            switch op {
            case .equal: return both
            case .notEqual: return !both
            case .lessOrEqual, .greaterOrEqual: return both
            default: return false
            }
        }
        switch (a, b) {
        case (.string(let x), .string(let y)), (.binary(let x), .binary(let y)),
             (.binary(let x), .string(let y)), (.string(let x), .binary(let y)):
            return StringMatching.compare(x, op, y, options)
        case (.bool(let x), .bool(let y)):
            return op == .equal ? x == y : (op == .notEqual ? x != y : false)
        case (.link(let c1, let k1), .link(let c2, let k2)):
            let same = c1 == c2 && k1 == k2
            return op == .equal ? same : (op == .notEqual ? !same : false)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)):
            return ordered(s1 != s2 ? (s1 < s2 ? -1 : 1) : (n1 == n2 ? 0 : (n1 < n2 ? -1 : 1)), op)
        case (.objectId(let x), .objectId(let y)):
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        case (.uuid(let x), .uuid(let y)):
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        case (.int(let x), .int(let y)):
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return op == .notEqual }
            return ordered(x == y ? 0 : (x < y ? -1 : 1), op)
        default:
            // Numbers of different types compare by exact value (a large
            // int against a double, a decimal against either).
            guard MixedOrder.rank(a) == 2, MixedOrder.rank(b) == 2 else { return op == .notEqual }
            if MixedOrder.isNaN(a) || MixedOrder.isNaN(b) { return op == .notEqual }
            return ordered(MixedOrder.compareNumbers(a, b), op)
        }
    }

    /// `constant op value` for the string operators, the constant first
    /// (`'abc' CONTAINS name`), as realm-core answers it: the value is the
    /// pattern searched for in the constant (never null here); a null value
    /// is contained in every constant and begins, ends or is like none;
    /// strings match strings and binaries binaries only.
    static func constant(_ c: Value, _ op: QueryOperator, matches value: Value, _ options: QueryStringOptions) -> Bool {
        if value.isNull { return op == .contains }
        switch (c, value) {
        case (.string(let text), .string(let pattern)), (.binary(let text), .binary(let pattern)):
            return StringMatching.compare(text, op, pattern, options)
        default:
            return false
        }
    }

    @inline(__always)
    static func ordered(_ c: Int, _ op: QueryOperator) -> Bool {
        switch op {
        case .equal: return c == 0
        case .notEqual: return c != 0
        case .less: return c < 0
        case .lessOrEqual: return c <= 0
        case .greater: return c > 0
        case .greaterOrEqual: return c >= 0
        default: return false
        }
    }

    static func number(_ v: Value) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .float(let f): return Double(f)
        case .double(let d): return d
        case .decimal128(let d): return DecimalArithmetic.toDouble(d)
        default: return nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
