import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// The ordering of results: after their filters, results apply a list of
// stages left to right to the objects the filters left (sort, distinct,
// limit), as realm-core applies a `DescriptorOrdering`.  Sort and distinct
// name their values by key paths, resolved here against the schema; their
// values are read in place (strings as views of the chunks) into
// `SortColumn`s, which sort a permutation of the rows.

/// One key of a sort: a key path and a direction.
public struct SortKeyPath: Sendable, Equatable {
    /// Property names joined by '.': a property of the objects ("name"),
    /// or a path through to-one links and embedded objects ("owner.name",
    /// "address.city", "a.b.c").
    public var keyPath: String
    /// Whether smaller values come first (nulls first ascending, last descending).
    public var ascending: Bool

    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// One stage of the ordering of results, applied after their filters and
/// after the stages before it, as Realm applies `SORT(...)`, `DISTINCT(...)`
/// and `LIMIT(n)`:
///
///     results.applying([.limit(2), .sort([SortKeyPath("name")])])   // the first two, sorted
///     results.applying([.sort([SortKeyPath("name")]), .limit(2)])   // the two first by name
///
/// * `.sort(keys)`: by the first key, ties by the next, and remaining ties
///   keep the order they had; a sort directly after a sort merges with it,
///   its keys first.  Strings by code point, nulls first ascending (last
///   descending); an object whose key path crosses a null link sorts after
///   every value ascending (before every value descending), as Realm does;
///   mixed values in Realm's order of mixed values (`MixedOrder`).
/// * `.distinct(keyPaths)`: keeps the first object for each distinct tuple
///   of values, in order; values are the same as Realm's equality has it
///   (in a mixed property, int 1 and double 1.0 are one value; strings are
///   compared exactly); an object whose key path crosses a null link is
///   left out, as Realm leaves it out.
/// * `.limit(n)`: the first `n` objects (n ≥ 0).
///
/// Key paths may not pass through lists, sets or maps, nor end at a link,
/// a list, a set or a map; a map of values followed by one key
/// (`meta.age`) names the value at that key (null when the map lacks it),
/// as realm-core sorts and dedups by a dictionary key.  Results of values (`ValueResults`) take the key
/// path "self" alone.
public enum ResultsStage: Sendable, Equatable {
    case sort([SortKeyPath])
    case distinct([String])
    case limit(Int)
}

/// A key path resolved against the schema: the to-one links it follows
/// and its last property.
struct ResolvedKeyPath: Equatable {
    /// One link followed: column `column` of class `table`.
    struct Link: Equatable {
        let table: UInt32
        let column: UInt32
    }

    /// The links followed, in order (empty for a property of the objects).
    let links: [Link]
    /// The class and column of the last property, and its type.
    let table: UInt32
    let column: UInt32
    let type: PropertyType
    let isNullable: Bool
    /// The key path as written, for messages.
    let text: String
    /// When the last property is a map: the key whose value is read
    /// (`meta.age`; a missing key reads null), as realm-core sorts and
    /// dedups by a dictionary key.
    var mapKey: String? = nil

    static func == (a: ResolvedKeyPath, b: ResolvedKeyPath) -> Bool {
        a.links == b.links && a.table == b.table && a.column == b.column && a.mapKey == b.mapKey
    }

    /// Resolve `text` starting at the objects of `table`; `verb` ("sort",
    /// "distinct") words the errors.
    static func resolve(_ text: String, from table: Table, in realm: Realm, verb: String) throws(FiefError) -> ResolvedKeyPath {
        func refuse(_ why: String) -> FiefError {
            FiefError(.queryInvalid, "cannot \(verb) by '\(text)': \(why)")
        }
        let names = text.split(separator: ".", omittingEmptySubsequences: false)
        if names.contains(where: \.isEmpty) {
            throw refuse(text.isEmpty ? "the key path is empty" : "a key path is property names joined by '.', and one name is missing")
        }
        var links: [Link] = []
        var current = table
        for (position, name) in names.enumerated() {
            let isLast = position == names.count - 1
            let className = current.objectClass.name
            guard let property = current.property(named: String(name)) else {
                if links.isEmpty && name == "self" {
                    throw refuse("'self' names the values of a list, set or map of values; class '\(className)' has no property 'self'")
                }
                if realm.linkingObjects(named: String(name), of: current) != nil {
                    throw refuse("'\(className).\(name)' is linking objects; a key path may pass only through to-one links and embedded objects, and end at a single value")
                }
                throw refuse("class '\(className)' has no property '\(name)'")
            }
            let qualified = "'\(className).\(property.name)'"
            if property.collection == .map, position == names.count - 2 {
                // A map and one key after it: the value at that key.
                if property.type == .link {
                    throw refuse("\(qualified) is a map of links; a key path may end at a value of a map of values, not at a link")
                }
                return ResolvedKeyPath(links: links, table: current.key, column: property.key, type: property.type,
                                       isNullable: true, text: text, mapKey: String(names[position + 1]))
            }
            if property.collection != .none {
                throw refuse("\(qualified) is a \(property.collection.name); a key path may pass only through to-one links and embedded objects, and end at a single value")
            }
            if isLast {
                if property.type == .link {
                    throw refuse("\(qualified) is a link; \(verb) by a property of the objects it links to ('\(text).<property>')")
                }
                return ResolvedKeyPath(links: links, table: current.key, column: property.key, type: property.type,
                                       isNullable: property.isNullable || property.type == .mixed, text: text)
            }
            guard property.type == .link else {
                throw refuse("\(qualified) is \(property.type == .int ? "an" : "a") \(property.type.name), not a link, so it can only be the last name of the key path")
            }
            let column = try current.column(property.key)
            links.append(Link(table: current.key, column: property.key))
            current = try realm.table(column.linkTarget)
        }
        // `names` is never empty: the loop returns at its last name.
        throw refuse("the key path is empty")
    }

    /// Add the columns these key paths read, by class, to `columns`: every
    /// link followed and the last property.
    static func collectColumns(_ paths: [ResolvedKeyPath], into columns: inout [UInt32: Set<UInt32>]) {
        for path in paths {
            for link in path.links { columns[link.table, default: []].insert(link.column) }
            columns[path.table, default: []].insert(path.column)
        }
    }
}

/// A stage with its key paths resolved.
enum OrderingStage {
    case sort([(path: ResolvedKeyPath, ascending: Bool)])
    case distinct([ResolvedKeyPath])
    case limit(Int)

    /// Resolve `stage` for the objects of `table`.
    static func resolve(_ stage: ResultsStage, from table: Table, in realm: Realm) throws(FiefError) -> OrderingStage {
        switch stage {
        case .sort(let keys):
            var resolved: [(path: ResolvedKeyPath, ascending: Bool)] = []
            for key in keys {
                resolved.append((try ResolvedKeyPath.resolve(key.keyPath, from: table, in: realm, verb: "sort"), key.ascending))
            }
            return .sort(resolved)
        case .distinct(let keyPaths):
            var resolved: [ResolvedKeyPath] = []
            for keyPath in keyPaths {
                resolved.append(try ResolvedKeyPath.resolve(keyPath, from: table, in: realm, verb: "distinct"))
            }
            return .distinct(resolved)
        case .limit(let count):
            return .limit(try OrderingStage.checkLimit(count))
        }
    }

    static func checkLimit(_ count: Int) throws(FiefError) -> Int {
        guard count >= 0 else { throw FiefError(.invalidArgument, "cannot limit results to \(count) objects: a limit is 0 or more") }
        return count
    }

    /// `stages` with `next` after them: an empty sort or distinct changes
    /// nothing, and a sort directly after a sort merges into it, its keys
    /// first (realm-core's "prepend"; an earlier key the new ones repeat
    /// could decide nothing more, so it goes).
    static func append(_ next: OrderingStage, to stages: [OrderingStage]) -> [OrderingStage] {
        var stages = stages
        switch next {
        case .sort(let keys):
            if keys.isEmpty { return stages }
            if case .sort(let previous)? = stages.last {
                stages[stages.count - 1] = .sort(keys + previous.filter { old in !keys.contains { $0.path == old.path } })
                return stages
            }
        case .distinct(let paths):
            if paths.isEmpty { return stages }
        case .limit:
            break
        }
        stages.append(next)
        return stages
    }

    var hasLimit: Bool {
        if case .limit = self { return true }
        return false
    }

    /// Whether the stage may leave objects out (distinct, limit).
    var narrows: Bool {
        switch self {
        case .sort: return false
        case .distinct, .limit: return true
        }
    }
}

extension SortColumn {
    /// The values at the end of `path` for the objects `keys` (of the
    /// class the path starts at), read in place: per link, the link
    /// column's chunks; rows whose path crosses a null link are marked as
    /// such.  Keeps the chunk of the last cluster read at every step, so
    /// objects in key order, or linking to neighbours, read each chunk once.
    convenience init(realm: Realm, path: ResolvedKeyPath, keys: UnsafeBufferPointer<Int64>, ascending: Bool) throws(FiefError) {
        let n = keys.count
        self.init(type: path.type, count: n, ascending: ascending, crossesLinks: !path.links.isEmpty)
        let table = try realm.table(path.table)
        var linkTables: [Table] = []
        for link in path.links { linkTables.append(try realm.table(link.table)) }
        // Link columns are fixed-width: their chunks, dirty or not, read
        // through a plain `ChunkReader` (pointers only, nothing counted).
        var linkClusters = [Int64](repeating: -1, count: path.links.count)
        var linkChunks = [ChunkReader](repeating: ChunkReader(nil), count: path.links.count)
        var currentCluster: Int64 = -1
        var chunk: ColumnChunk? = nil
        let isMixed = path.type == .mixed
        let chunkType = path.type.chunkType
        let mapKeyBytes = path.mapKey.map { Array($0.utf8) }
        rows: for row in 0..<n {
            var key = keys[row]
            for step in 0..<path.links.count {
                let cluster = ClusterLayout.cluster(of: key)
                if cluster != linkClusters[step] {
                    linkChunks[step] = try realm.chunk(linkTables[step], column: path.links[step].column, cluster: cluster).reader
                    linkClusters[step] = cluster
                }
                guard case .int(let target) = linkChunks[step].value(ClusterLayout.slot(of: key), type: .link, nullable: true) else {
                    setNullLink(row)
                    continue rows
                }
                key = target
            }
            if let mapKeyBytes {
                // The map's value at the key, null when it has none.
                let value = try mapKeyBytes.withBytes { (bytes) throws(FiefError) -> Value? in
                    try realm.map(CollectionRef(.map, table: path.table, owner: key, property: path.column)).value(forKey: bytes)
                }
                store(row, value ?? .null)
                continue
            }
            let cluster = ClusterLayout.cluster(of: key)
            if cluster != currentCluster {
                chunk = try realm.chunk(table, column: path.column, cluster: cluster)
                currentCluster = cluster
            }
            let value = chunk!.value(ClusterLayout.slot(of: key), type: chunkType, nullable: path.isNullable)
            if isMixed {
                guard case .binary(let coded) = value, let decoded = MixedCoding.decode(coded) else {
                    if value.isNull { setMixed(row, .null); continue }
                    throw realm.damagedChunk(table, column: path.column, cluster: cluster, "holds a mixed value that cannot be read")
                }
                setMixed(row, decoded)
            } else {
                set(row, value)
            }
        }
    }

    /// Sort `order` (row numbers) by `columns`, the first most significant;
    /// ties keep the order of `order`'s row numbers (ascending).
    static func sort(_ order: UnsafeMutableBufferPointer<Int32>, by columns: [SortColumn]) {
        if columns.count == 1 {
            columns[0].sort(order)
            return
        }
        var order = order
        columns.withUnsafeBufferPointer { columns in
            order.sort { a, b in
                for column in columns {
                    let c = column.compare(Int(a), Int(b))
                    if c != 0 { return column.ascending ? c < 0 : c > 0 }
                }
                return a < b
            }
        }
    }

    /// Whether rows `a` and `b` hold equal values in every column (as
    /// Realm's equality has it).
    @inline(__always)
    static func equal(_ a: Int, _ b: Int, in columns: [SortColumn]) -> Bool {
        for column in columns where column.compare(a, b) != 0 { return false }
        return true
    }
}
