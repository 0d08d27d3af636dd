import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// The queries a realm filtered with lately, by text: the one cache of
/// the query pipeline (parsing, then binding).
///
/// An application filters with the same few predicates over and over, with
/// other arguments (`name == $0`, or `owner.name == $0`, once per lookup).
/// Arguments are bound when a predicate is compiled, so the parsed tree
/// depends on the text alone; an entry keeps it, and a filter made again
/// with other arguments is rebound to them without parsing or binding it
/// again.  Parse errors are not kept (they are thrown again by parsing
/// again).  A filter of a collection of values (`ValueResults`) keeps its
/// parse only (`parse`); a filter of objects (`compile`) keeps, when its
/// shape allows, what rebinding needs, resolved on first use: a comparison
/// of one property of the class (`name == $0`, `$0 < age`) or of a key
/// path through to-one links (`owner.name == $0`) with one scalar
/// argument.  Rebinding makes the argument's constant as compiling does
/// (`QueryCompiler.constant`, then `compareConstant`: adapted to the
/// property, checked, a null comparison rewritten) on the property and
/// links found the first time, and the path with the binder's own builder
/// (`QueryBinder.toOneReach`), so both give the same query.  Any other
/// shape, or a list (or shape) argument where the entry's shape takes one
/// value, is compiled in full, from the kept parse.
///
/// Entries of objects belong to the realm's schema epoch
/// (`Realm.schemaEpoch`): once the schema or its tables change (a class,
/// property or index added, a schema read anew), an entry compiles again.
/// At `capacity` entries the cache starts afresh, which keeps it small
/// whatever an application does (generated predicates with constants
/// written in).  The realm's lock serialises its use, as for everything
/// else of the realm.
final class QueryCache {
    /// At this many entries the cache starts afresh.
    static let capacity = 256

    private var entries: [Key: Entry] = [:]
    /// The entry used last and its key: a loop of lookups filters with one
    /// predicate, found again by one comparison of its bytes (no hashing).
    private var last: (key: Key, entry: Entry)?

    /// The text of a predicate, compared and hashed by its UTF-8 bytes
    /// (Swift's String equality holds for canonically equivalent texts,
    /// "é" and "e\u{301}", which parse to different string constants),
    /// and the class it filters (nil: the elements of a collection of
    /// values, for which only the parse is kept).
    struct Key: Hashable {
        let text: String
        let table: UInt32?

        static func == (a: Key, b: Key) -> Bool {
            guard a.table == b.table, a.text.utf8.count == b.text.utf8.count else { return false }
            let same = a.text.utf8.withContiguousStorageIfAvailable { x in
                b.text.utf8.withContiguousStorageIfAvailable { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
            }
            return (same ?? nil) ?? a.text.utf8.elementsEqual(b.text.utf8)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(table)
            let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if hashed == nil { for byte in text.utf8 { hasher.combine(byte) } }
        }
    }

    final class Entry {
        let parsed: ParsedQuery
        let schemaEpoch: UInt64
        /// How to rebind the predicate to new arguments (nil: compile in full).
        let rebinding: Rebinding?

        init(parsed: ParsedQuery, schemaEpoch: UInt64, rebinding: Rebinding?) {
            self.parsed = parsed
            self.schemaEpoch = schemaEpoch
            self.rebinding = rebinding
        }
    }

    /// A comparison of a property with argument `argument`: `property op
    /// $n` (`constantFirst`: `$n op property`), of the class filtered
    /// (`hops` empty) or of the class `last` reached through the to-one
    /// links `hops`, whose graph node reads `dependencies`.
    final class Rebinding {
        let property: Property
        let op: QueryOperator
        let options: QueryStringOptions
        let argument: Int
        let constantFirst: Bool
        let hops: [GraphHop]
        let last: Table
        let dependencies: [UInt32: Set<UInt32>]
        /// What a query rebound so reads, as `Results` lists it (own columns, then the other classes').
        let columns: (own: [UInt32], linked: [(table: UInt32, columns: [UInt32])])

        init(property: Property, op: QueryOperator, options: QueryStringOptions, argument: Int, constantFirst: Bool,
             hops: [GraphHop], last: Table, dependencies: [UInt32: Set<UInt32>], table: UInt32) {
            self.property = property
            self.op = op
            self.options = options
            self.argument = argument
            self.constantFirst = constantFirst
            self.hops = hops
            self.last = last
            self.dependencies = dependencies
            if hops.isEmpty {
                columns = ([property.key], [])
            } else {
                var linked = dependencies
                let own = linked.removeValue(forKey: table) ?? []
                columns = (own.sorted(), linked.keys.sorted().map { ($0, linked[$0]!.sorted()) })
            }
        }
    }

    /// The entry kept for `key`, if any (remembered as the last one used).
    private func known(_ key: Key) -> Entry? {
        if let last, last.key == key { return last.entry }
        let known = entries[key]
        if let known { last = (key, known) }
        return known
    }

    private func keep(_ entry: Entry, _ key: Key) {
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
        last = (key, entry)
    }

    private static func parseQuery(_ text: String) throws(FiefError) -> ParsedQuery {
        do {
            return try QueryParser.parseQuery(text)
        } catch {
            throw FiefError(.querySyntax, "invalid predicate: \(error.message)")
        }
    }

    /// `text` parsed, for a filter of the elements of a collection of
    /// values.
    func parse(_ text: String) throws(FiefError) -> ParsedQuery {
        let key = Key(text: text, table: nil)
        if let entry = known(key) { return entry.parsed }
        let parsed = try Self.parseQuery(text)
        keep(Entry(parsed: parsed, schemaEpoch: 0, rebinding: nil), key)
        return parsed
    }

    /// `text` compiled over the objects of `table` with `arguments`, and its
    /// SORT, DISTINCT and LIMIT suffixes.
    func compile(_ text: String, table: Table, realm: Realm, arguments: [QueryArgument]) throws(FiefError) -> (CompiledQuery, ordering: [QueryOrderingStage]) {
        let key = Key(text: text, table: table.key)
        let known = known(key)
        if let entry = known, entry.schemaEpoch == realm.schemaEpoch {
            let arguments = try entry.parsed.formatting(arguments)
            if let rebinding = entry.rebinding, let query = try Self.rebind(entry.parsed.predicate, rebinding, table, arguments) {
                return (query, entry.parsed.ordering)
            }
            return (try QueryCompiler.compile(entry.parsed.predicate, table: table, realm: realm, arguments: arguments), entry.parsed.ordering)
        }
        let parsed: ParsedQuery
        if let known { parsed = known.parsed } else { parsed = try Self.parseQuery(text) }
        let arguments = try parsed.formatting(arguments)
        let query = try QueryCompiler.compile(parsed.predicate, table: table, realm: realm, arguments: arguments)
        keep(Entry(parsed: parsed, schemaEpoch: realm.schemaEpoch, rebinding: Self.rebinding(parsed.predicate, table, realm, query, arguments)), key)
        return (query, parsed.ordering)
    }

    /// Forget every entry.
    func removeAll() {
        entries.removeAll()
        last = nil
    }

    /// The entry of `text` over class `table`, if kept.
    func entry(_ text: String, table: UInt32) -> Entry? { entries[Key(text: text, table: table)] }

    /// `expression` with `arguments` through `rebinding`; nil when the
    /// arguments need a full compile (a list, or a shape, where one value goes).
    private static func rebind(_ expression: QueryExpression, _ rebinding: Rebinding, _ table: Table,
                               _ arguments: [QueryArgument]) throws(FiefError) -> CompiledQuery? {
        let n = rebinding.argument
        if n < arguments.count && (arguments[n].isList || arguments[n].geoShape != nil) { return nil }
        let p = rebinding.property
        let target = rebinding.hops.isEmpty ? table : rebinding.last
        let leaf = try QueryCompiler.compareConstant(p, rebinding.op, try QueryCompiler.constant(.argument(n), arguments, against: p),
                                                     rebinding.options, .objects(target), argument: n, constantFirst: rebinding.constantFirst)
        // The predicate with the argument written in, for describing it (as
        // `QueryArgumentSubstitution.literals` writes the comparison).
        var described: QueryExpression? = nil
        if n < arguments.count, arguments[n].values.count == 1, let literal = QueryArgumentSubstitution.literal(arguments[n].values[0]),
           case .comparison(let lhs, let op, let rhs, let options) = expression {
            described = rebinding.constantFirst ? .comparison(.constant(literal), op, rhs, options) : .comparison(lhs, op, .constant(literal), options)
        }
        if rebinding.hops.isEmpty {
            return CompiledQuery(root: leaf, tableKey: table.key, predicate: described, knownColumns: rebinding.columns)
        }
        return CompiledQuery(root: QueryBinder.toOneReach(rebinding.hops, leaf, at: target.key, dependencies: rebinding.dependencies),
                             tableKey: table.key, predicate: described, knownColumns: rebinding.columns)
    }

    /// What rebinding `expression` needs, when it is a comparison of a
    /// property (or a path of to-one links to one) with an argument, bound
    /// as `query` shows (first compiled with `arguments`, a scalar for it).
    private static func rebinding(_ expression: QueryExpression, _ table: Table, _ realm: Realm, _ query: CompiledQuery,
                                  _ arguments: [QueryArgument]) -> Rebinding? {
        guard case .comparison(let lhs, let op, let rhs, let options) = expression else { return nil }
        let path: QueryKeyPath, n: Int, constantFirst: Bool
        switch (lhs, rhs) {
        case (.keyPath(let p), .argument(let i)): (path, n, constantFirst) = (p, i, false)
        case (.argument(let i), .keyPath(let p)): (path, n, constantFirst) = (p, i, true)
        default: return nil
        }
        guard n >= 0, n < arguments.count, !arguments[n].isList, arguments[n].geoShape == nil,
              let names = path.propertyNames, !names.isEmpty else { return nil }
        if names.count == 1 {
            // Bound by the scalar compiler: `QueryCompiler.comparison`.
            guard let p = table.property(named: names[0]), p.collection == .none else { return nil }
            return Rebinding(property: p, op: op, options: options, argument: n, constantFirst: constantFirst,
                             hops: [], last: table, dependencies: [:], table: table.key)
        }
        // Bound by `QueryBinder.toOneReach`: links only, the leaf at the last class.
        guard case .graph(let node) = query.root, case .reach(let reach) = node.kind, !reach.complement, !reach.orReachesNothing,
              case .predicate(let leaf) = reach.target, reach.hops.count == names.count - 1 else { return nil }
        var from = table
        for (i, hop) in reach.hops.enumerated() {
            guard hop.kind == .link, hop.from == from.key, let p = from.property(named: names[i]), p.key == hop.property,
                  p.collection == .none, let next = try? realm.table(hop.to) else { return nil }
            from = next
        }
        guard leaf.tableKey == from.key, let p = from.property(named: names[names.count - 1]), p.collection == .none else { return nil }
        var dependencies = node.dependencies
        dependencies[from.key, default: []].insert(p.key)
        return Rebinding(property: p, op: op, options: options, argument: n, constantFirst: constantFirst,
                         hops: reach.hops, last: from, dependencies: dependencies, table: table.key)
    }
}
