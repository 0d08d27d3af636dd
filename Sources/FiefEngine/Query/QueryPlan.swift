import FiefStorage

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
    /// `QueryCache`): of its class, and of the classes its key paths
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

/// One argument of a query: a single value, a list of values (`isList`:
/// `IN $0`, `ANY $0`), or a geospatial shape.
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
