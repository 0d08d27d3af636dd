import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

// Evaluating graph nodes (BoundGraph.swift), a cluster of the class tested
// at a time, as the rest of a query is evaluated.
//
// Backward (`GraphNode.reach`): once per evaluation of a query, the
// predicate over the class a path ends at is evaluated columnar over that
// class (through an index when it has an indexed equality), and the
// matching objects are carried back along the path, one hop at a time,
// through the backlinks of the objects reached: a link is recorded on its
// target's side (`Backlinks`), so the objects linking to a set of targets
// are one cursor walk over those targets' records, in key order.  The cost
// is the scan of the class reached plus the matches and their referrers,
// never a pass over the objects tested.  Each cluster of the class tested
// then reads its mask of reached objects (and, where a null link on the
// path matches too, the null bits of its link column).
//
// Forward (`GraphNode.compare`): per object, each operand's links are
// followed in place (object key → cluster and slot; the last chunk read at
// every step is kept, so neighbours share their reads) and the values
// compared (ValueReader.swift, CollectionWalker.swift; lists of values
// against a constant in place, ListElementTest.swift; backlinks read by
// BacklinkScanner.swift).  Nothing is allocated per object.

/// What one evaluation of a query (one scan of results) keeps between
/// clusters: the objects each backward node reaches, computed on its
/// first cluster, and each forward expression's reader.  Made per scan, so
/// results evaluated again (after a change) start afresh, and realms
/// sharing a compiled query never share one.
final class QueryScan {
    let realm: Realm
    /// Per backward node: the objects reached, and (for `orReachesNothing`)
    /// the objects reaching anything.
    private var reached: [ObjectIdentifier: (objects: ObjectSet, reachingAny: ObjectSet?)] = [:]
    private var readers: [ObjectIdentifier: [ValueReader]] = [:]
    /// Per test node over a list of values: its in-place test (nil: none).
    private var elementTests: [ObjectIdentifier: ListElementTest?] = [:]

    /// The backward node `countMatches` counted last and the targets of its
    /// first step (the objects the rest of its path reaches; `keys`, when
    /// an index gave them, else `objects`), kept for the evaluation of the
    /// same results that may follow in this scan (a count, then the
    /// iteration), which then only carries them back through that step.
    /// (A field, not a dictionary: a count allocates nothing for it.)
    private var counted: (node: ObjectIdentifier, keys: [Int64]?, objects: ObjectSet)?

    /// Per full-text search: its matches.
    private var fullTextMatches: [ObjectIdentifier: KeyBitmap] = [:]
    /// Per comparison of a nested path: its readers (NestedPath.swift).
    var nestedReaders: [ObjectIdentifier: NestedReaders] = [:]

    init(realm: Realm) { self.realm = realm }

    /// The objects of `table` matching full-text search `predicate`, read
    /// from the index on first use in this scan.
    func fullTextMatches(_ predicate: FullTextPredicate, _ table: Table) throws(FiefError) -> KeyBitmap {
        if let known = fullTextMatches[ObjectIdentifier(predicate)] { return known }
        let matches = try realm.fullTextMatches(predicate, table)
        fullTextMatches[ObjectIdentifier(predicate)] = matches
        return matches
    }

    /// The objects `node` can match at most, when a backward node (alone,
    /// or one of an AND) decides it by what it reaches: no complement, no
    /// null link matching.  The scan of the results then visits the clusters
    /// of these objects only (`owner.name == $0`: the dogs of the owners
    /// the index finds), never every cluster of the class tested.  Nil when
    /// no node narrows it so.
    /// Whether `node` is a backward node whose candidates (above) are
    /// exactly its matches.
    static func isReach(_ node: QueryNode) -> Bool {
        guard case .graph(let graph) = node, case .reach(let reach) = graph.kind else { return false }
        return !reach.complement && !reach.nullLinksMatch && !reach.orReachesNothing
    }

    func candidates(_ node: QueryNode) throws(FiefError) -> ObjectSet? {
        switch node {
        case .and(let children):
            for child in children { if let found = try candidates(child) { return found } }
            return nil
        case .graph(let graph):
            guard case .reach(let reach) = graph.kind, !reach.complement, !reach.nullLinksMatch, !reach.orReachesNothing else { return nil }
            return try reachedObjects(graph, reach).objects
        default:
            return nil
        }
    }

    /// The objects of `cluster` (among `mask`) of `table` that `node` matches.
    func evaluate(_ node: GraphNode, _ table: Table, cluster: Int64, mask: Bitmap) throws(FiefError) -> Bitmap {
        switch node.kind {
        case .reach(let reach):
            let (objects, reachingAny) = try reachedObjects(node, reach)
            var bits = objects.bits(cluster)
            if reach.nullLinksMatch, let first = reach.hops.first {
                bits |= try nullLinks(table, column: first.property, cluster: cluster)
            }
            if let reachingAny { bits |= ~reachingAny.bits(cluster) }
            return reach.complement ? mask & ~bits : mask & bits
        case .test(let expression, let predicate, let quantifier):
            if let test = try listElementTest(node, expression, predicate, table),
               let bits = try test.evaluate(cluster: cluster, mask: mask, quantifier: quantifier) {
                return bits
            }
            let reader = try readers(node, [expression])[0]
            let mixed = expression.isMixed
            return try eachObject(cluster, mask) { (key) throws(FiefError) -> Bool in
                guard expression.isMany else { return QueryEvaluator.matches(predicate, try reader.value(key), mixed: mixed) }
                return try Self.quantified(quantifier) { (visit) throws(FiefError) in
                    try reader.forEach(key) { value in visit(QueryEvaluator.matches(predicate, value, mixed: mixed)) }
                }
            }
        case .geoTest(let expression, let target, let quantifier):
            let reader = try readers(node, [expression])[0]
            let inside: ObjectSet
            if let known = reached[ObjectIdentifier(node)] {
                inside = known.objects
            } else {
                inside = try geoMatches(target, inside: true)
                reached[ObjectIdentifier(node)] = (inside, nil)
            }
            @inline(__always) func isInside(_ value: Value) -> Bool {
                if case .link(_, let point) = value { return inside.contains(point) }
                return false
            }
            return try eachObject(cluster, mask) { (key) throws(FiefError) -> Bool in
                guard expression.isMany else { return isInside(try reader.value(key)) }
                return try Self.quantified(quantifier) { (visit) throws(FiefError) in
                    try reader.forEach(key) { value in visit(isInside(value)) }
                }
            }
        case .sequence(let expression, let op, let elements, let options, let listFirst):
            let reader = try readers(node, [expression])[0]
            let mixed = expression.isMixed
            return try eachObject(cluster, mask) { (key) throws(FiefError) -> Bool in
                try Self.sequenceMatches(elements, op, options, mixed: mixed, listFirst: listFirst) { (visit) throws(FiefError) in
                    try reader.forEach(key, visit)
                }
            }
        case .compareMany(let a, let qa, let op, let b, let qb, let options):
            let pair = try readers(node, [a, b])
            let mixed = a.isMixed || b.isMixed
            return try eachObject(cluster, mask) { (key) throws(FiefError) -> Bool in
                try Self.compareMany(pair, key, qa, qb) { x, y in
                    mixed ? QueryEvaluator.compareMixed(x, op, y, options) : QueryEvaluator.compareValues(x, op, y, options)
                }
            }
        case .compareInOrder(let a, let op, let b, let options):
            let pair = try readers(node, [a, b])
            let mixed = a.isMixed || b.isMixed
            return try eachObject(cluster, mask) { (key) throws(FiefError) -> Bool in
                try Self.compareInOrder(pair, key, notEqual: op == .notEqual) { x, y in
                    mixed ? QueryEvaluator.compareMixed(x, op, y, options) : QueryEvaluator.compareValues(x, op, y, options)
                }
            }
        case .compare(let a, let op, let b, let options, let quantifier):
            let pair = try readers(node, [a, b])
            let mixed = a.isMixed || b.isMixed
            @inline(__always) func compare(_ x: Value, _ y: Value) -> Bool {
                mixed ? QueryEvaluator.compareMixed(x, op, y, options) : QueryEvaluator.compareValues(x, op, y, options)
            }
            return try eachObject(cluster, mask) { (key) throws(FiefError) -> Bool in
                if !a.isMany && !b.isMany { return compare(try pair[0].value(key), try pair[1].value(key)) }
                // One value against each of many (the single one read first: a view that stays valid).
                let manyOnLeft = a.isMany
                let single = try pair[manyOnLeft ? 1 : 0].value(key)
                return try Self.quantified(quantifier) { (visit) throws(FiefError) in
                    try pair[manyOnLeft ? 0 : 1].forEach(key) { value in visit(manyOnLeft ? compare(value, single) : compare(single, value)) }
                }
            }
        case .nested(let comparison):
            return try comparison.evaluate(node, self, cluster: cluster, mask: mask)
        }
    }

    /// `Qa x in a: Qb y in b: x op y` for the object `key`: the second
    /// collection walked once per value of the first.
    private static func compareMany(_ pair: [ValueReader], _ key: Int64, _ qa: QueryQuantifier, _ qb: QueryQuantifier,
                                    _ compare: (Value, Value) -> Bool) throws(FiefError) -> Bool {
        var failure: FiefError? = nil
        let result = try quantified(qa) { (visitOuter) throws(FiefError) in
            _ = try pair[0].forEach(key) { x in
                let inner: Bool
                do throws(FiefError) {
                    inner = try quantified(qb) { (visitInner) throws(FiefError) in
                        _ = try pair[1].forEach(key) { y in visitInner(compare(x, y)) }
                    }
                } catch {
                    failure = error
                    return false
                }
                return visitOuter(inner)
            }
        }
        if let failure { throw failure }
        return result
    }

    /// Whether the values of two collections of the object `key` match
    /// pair by pair, in order (`compare` on each pair): of different
    /// lengths only for != (`notEqual`).  Values are views valid while
    /// their walk runs, so the second collection is walked to position i
    /// for each value i of the first.
    private static func compareInOrder(_ pair: [ValueReader], _ key: Int64, notEqual: Bool,
                                       _ compare: (Value, Value) -> Bool) throws(FiefError) -> Bool {
        var counts = [0, 0]
        for side in 0..<2 { _ = try pair[side].forEach(key) { _ in counts[side] += 1; return true } }
        if counts[0] != counts[1] { return notEqual }
        var failure: FiefError? = nil
        var position = 0
        var matching = true
        _ = try pair[0].forEach(key) { x in
            var j = 0
            var match = false
            do throws(FiefError) {
                _ = try pair[1].forEach(key) { y in
                    if j < position { j += 1; return true }
                    match = compare(x, y)
                    return false
                }
            } catch {
                failure = error
                return false
            }
            position += 1
            if !match { matching = false }
            return match
        }
        if let failure { throw failure }
        return matching
    }

    /// Whether `values` (walked by `walk`) match `elements` pair by pair,
    /// in order, as realm-core compares two lists: of different lengths
    /// they match only for !=; of one length, when every pair matches `op`
    /// (for != every position differs).
    @inline(__always)
    private static func sequenceMatches(_ elements: [SequenceElement], _ op: QueryOperator, _ options: QueryStringOptions, mixed: Bool, listFirst: Bool,
                                        _ walk: ((Value) -> Bool) throws(FiefError) -> Void) throws(FiefError) -> Bool {
        var count = 0
        var matching = true
        try walk { value in
            // More values than elements: the lengths differ.
            guard count < elements.count else { count += 1; return false }
            let element = elements[count]
            count += 1
            guard matching else { return true } // != still counts the values
            let match = !element.fits ? op == .notEqual : withExtendedLifetime(element.constant) { () -> Bool in
                let c = QueryEvaluator.valueOf(element.constant)
                if listFirst {
                    switch op {
                    case .beginsWith, .endsWith, .contains, .like: return QueryEvaluator.constant(c, op, matches: value, options)
                    default: return mixed ? QueryEvaluator.compareMixed(c, op, value, options) : QueryEvaluator.compareValues(c, op, value, options)
                    }
                }
                if c.isNull {
                    // Null as a pattern (see `QueryCompiler.nullComparison`): the
                    // empty one for strings and binaries; in a mixed value,
                    // contained in every non-null value, beginning and ending none.
                    switch op {
                    case .contains: return !mixed || !value.isNull
                    case .beginsWith, .endsWith: return !mixed
                    case .like: return value.isNull
                    default: break
                    }
                }
                return mixed ? QueryEvaluator.compareMixed(value, op, c, options) : QueryEvaluator.compareValues(value, op, c, options)
            }
            if !match {
                matching = false
                // Only != can still match, when the lengths differ: count on.
                return op == .notEqual
            }
            return true
        }
        // (A walk stopped early by a mismatch counts short too: no match but for !=, which never stops early.)
        if count != elements.count { return op == .notEqual }
        return matching
    }

    /// The objects of `mask` in `cluster` for which `test` holds.
    @inline(__always)
    private func eachObject(_ cluster: Int64, _ mask: Bitmap, _ test: (Int64) throws(FiefError) -> Bool) throws(FiefError) -> Bitmap {
        var bits = Bitmap(repeating: 0)
        let base = cluster << ClusterLayout.shift
        for word in 0..<4 {
            var w = mask[word]
            while w != 0 {
                let slot = word << 6 | w.trailingZeroBitCount
                w &= w - 1
                if try test(base | Int64(slot)) { QueryEvaluator.set(&bits, slot) }
            }
        }
        return bits
    }

    /// ANY, ALL or NONE of the answers `walk` gives its visitor (which
    /// returns whether to go on).  Of none: ANY false, ALL and NONE true.
    @inline(__always)
    static func quantified(_ quantifier: QueryQuantifier, _ walk: ((Bool) -> Bool) throws(FiefError) -> Void) throws(FiefError) -> Bool {
        var decided = false
        switch quantifier {
        case .any:
            try walk { match in decided = match; return !match }
            return decided
        case .all:
            try walk { match in decided = !match; return match }
            return !decided
        case .none:
            try walk { match in decided = match; return !match }
            return !decided
        }
    }

    /// The in-place test of `node` when it compares the values of a list of
    /// the class tested with a constant (see `ListElementTest`); made on its
    /// first cluster, nil when the node is not such a test.
    private func listElementTest(_ node: GraphNode, _ expression: ValueExpression, _ predicate: QueryNode, _ table: Table) throws(FiefError) -> ListElementTest? {
        if let known = elementTests[ObjectIdentifier(node)] { return known }
        let made = try ListElementTest(realm, table, expression, predicate)
        elementTests[ObjectIdentifier(node)] = .some(made)
        return made
    }

    private func readers(_ node: GraphNode, _ expressions: [ValueExpression]) throws(FiefError) -> [ValueReader] {
        if let known = readers[ObjectIdentifier(node)] { return known }
        var made: [ValueReader] = []
        for expression in expressions { made.append(try ValueReader(realm, expression, scan: self)) }
        readers[ObjectIdentifier(node)] = made
        return made
    }

    // MARK: Backward

    /// The objects of the class tested whose path reaches a target of
    /// `reach` (or, with `nullLinksMatch`, crosses a null link after its
    /// first), and with `orReachesNothing` those reaching any object;
    /// computed once per scan.
    private func reachedObjects(_ node: GraphNode, _ reach: PathReach) throws(FiefError) -> (objects: ObjectSet, reachingAny: ObjectSet?) {
        if let known = reached[ObjectIdentifier(node)] { return known }
        if let owners = try geoReachedOwners(reach) {
            reached[ObjectIdentifier(node)] = (owners, nil)
            return (owners, nil)
        }
        if let counted, counted.node == ObjectIdentifier(node), let first = reach.hops.first {
            // Counted earlier in this scan (`countMatches`: a reach with no null link matching).
            self.counted = nil
            let targets = counted.keys.map { ObjectSet(sortedKeys: $0) } ?? counted.objects
            let objects = try carryBack(targets, [first], nullLinksMatch: false)
            reached[ObjectIdentifier(node)] = (objects, nil)
            return (objects, nil)
        }
        var objects = try targetObjects(reach.target)
        objects = try carryBack(objects, reach.hops, nullLinksMatch: reach.nullLinksMatch)
        var reachingAny: ObjectSet? = nil
        if reach.orReachesNothing {
            reachingAny = try carryBack(try allObjects(try realm.table(reach.target.table)), reach.hops, nullLinksMatch: false)
        }
        reached[ObjectIdentifier(node)] = (objects, reachingAny)
        return (objects, reachingAny)
    }

    /// The objects of the class a path ends at that its reach target holds.
    private func targetObjects(_ target: ReachTarget) throws(FiefError) -> ObjectSet {
        switch target {
        case .predicate(let query):
            return try matchingObjects(query)
        case .objects(let tableKey, let keys, let allBut):
            let table = try realm.table(tableKey)
            if allBut {
                var objects = try allObjects(table)
                for key in keys { objects.remove(key) }
                return objects
            }
            var objects = ObjectSet()
            for key in keys where try realm.isLive(table, key) { objects.insert(key) }
            return objects
        case .geoWithin(let target, let inside):
            return try geoMatches(target, inside: inside)
        }
    }

    /// How many objects of the class tested `node` matches, counted without
    /// gathering them, when it is a backward node that decides alone by
    /// what it reaches (as `isReach`) along a path of to-one links only
    /// (`owner.name == $0`, `owner.boss.name == $0`); nil otherwise.
    ///
    /// An object has at most one link through a to-one link property, so
    /// the origins of different targets' backlinks (through the path's
    /// first property) are different objects, and the count is the sum of
    /// the targets' records for that property: each target's a binary
    /// search in the runs holding them, never an origin read, set or
    /// ordered.  The targets themselves (the objects the rest of the path
    /// reaches) are carried back as for any reach.  Backlinks hold links
    /// of live objects only, and in a write transaction its every change.
    /// Lists, sets, maps and backlinks on the path (where an object may
    /// reach a target more than once, or several targets) and mixed values
    /// (which may hold a collection of links) take the general way, which
    /// counts each object once.
    func countMatches(_ node: QueryNode) throws(FiefError) -> Int? {
        guard Self.isReach(node), case .graph(let graph) = node, case .reach(let reach) = graph.kind,
              let first = reach.hops.first, reach.hops.allSatisfy({ $0.kind == .link }) else { return nil }
        if case .geoWithin = reach.target { return nil }
        let column = try realm.table(first.from).column(first.property)
        guard column.collection == .none, column.elementType == .link, column.linkTarget == first.to else { return nil }
        // The targets: when the path is one link and an index answers its
        // predicate exactly, the index's keys (ascending, live) as they are.
        var keys: [Int64]? = nil
        var targets = ObjectSet()
        if reach.hops.count == 1, case .predicate(let query) = reach.target,
           let plan = try realm.indexPlan(query, try realm.table(query.tableKey), scan: self), plan.exact {
            keys = plan.keys
            if plan.keys.isEmpty { return 0 }
        } else {
            targets = try carryBack(try targetObjects(reach.target), Array(reach.hops.dropFirst()), nullLinksMatch: false)
            if targets.isEmpty { return 0 }
        }
        counted = (ObjectIdentifier(graph), keys, targets)
        var total = 0
        try withBacklinkScanner(of: first.to) { (scanner) throws(FiefError) in
            if let keys {
                for target in keys { total += try scanner.countRecords(of: target, originClass: first.from, property: first.property) }
                return
            }
            try targets.forEach { (target) throws(FiefError) in
                total += try scanner.countRecords(of: target, originClass: first.from, property: first.property)
            }
        }
        return total
    }

    /// Run `body` with a scanner over the backlinks of class `table` (none:
    /// not run): in a write transaction through its own cursor, in a
    /// snapshot through the snapshot's cursor and its checked runs.
    private func withBacklinkScanner(of table: UInt32, _ body: (inout BacklinkScanner) throws(FiefError) -> Void) throws(FiefError) {
        guard let dbi = try realm.table(table).backlinks else { return }
        if let write = realm.write {
            try Backlinks.settle(write, dbi)
            var scanner = try BacklinkScanner(write.txn, dbi)
            try body(&scanner)
            return
        }
        // In a snapshot, through its cursor on the backlinks (kept, as for chunks).
        let snapshot = try realm.currentSnapshot()
        try snapshot.withTransaction { (_) throws(FiefError) in
            var scanner = BacklinkScanner(cursor: try snapshot.cursor(dbi), checked: snapshot.checkedRuns, directory: snapshot.runDirectory(dbi))
            try body(&scanner)
        }
    }

    /// The objects of the first class of `hops` whose path reaches one of
    /// `objects` (of the last class); with `nullLinksMatch`, also those
    /// crossing a null link after the first.
    private func carryBack(_ objects: ObjectSet, _ hops: [GraphHop], nullLinksMatch: Bool) throws(FiefError) -> ObjectSet {
        var objects = objects
        for i in stride(from: hops.count - 1, through: 0, by: -1) {
            objects = try linking(to: objects, through: hops[i])
            if nullLinksMatch && i > 0 {
                // Objects of this class whose next link is null read null.
                let hop = hops[i]
                let table = try realm.table(hop.from)
                for (cluster, live) in try realm.clusters(table) {
                    objects.insert(cluster: cluster, try nullLinks(table, column: hop.property, cluster: cluster) & live)
                }
            }
        }
        return objects
    }

    /// Every object of `table`.
    private func allObjects(_ table: Table) throws(FiefError) -> ObjectSet {
        var objects = ObjectSet()
        for (cluster, live) in try realm.clusters(table) { objects.insert(cluster: cluster, live) }
        return objects
    }

    /// The objects of `query`'s class that match it: through an index
    /// when it has an indexed equality, else by a scan of every cluster.
    func matchingObjects(_ query: CompiledQuery) throws(FiefError) -> ObjectSet {
        let table = try realm.table(query.tableKey)
        var objects = ObjectSet()
        if let plan = try realm.indexPlan(query, table, scan: self) {
            // The index's answer is the answer: no chunk is read.
            if plan.exact { return ObjectSet(sortedKeys: plan.keys) }
            for (cluster, candidates) in SortedKeyClusters(plan.keys) {
                var mask = candidates
                let presence = try realm.chunk(table, column: ClusterLayout.presenceColumn, cluster: cluster).reader
                mask &= Bitmap(presence.bitmapWord(0), presence.bitmapWord(1), presence.bitmapWord(2), presence.bitmapWord(3))
                if mask != Bitmap(repeating: 0) {
                    objects.insert(cluster: cluster, try realm.evaluate(query.root, table, cluster: cluster, mask: mask, scan: self))
                }
            }
            return objects
        }
        for (cluster, live) in try realm.clusters(table) {
            objects.insert(cluster: cluster, try realm.evaluate(query.root, table, cluster: cluster, mask: live, scan: self))
        }
        return objects
    }

    /// The objects of `hop.from` whose step reaches one of `targets` (of
    /// `hop.to`): through a link or collection of links, the targets'
    /// backlinks through the hop's property; through backlinks, the
    /// objects the targets' property links to.
    private func linking(to targets: ObjectSet, through hop: GraphHop) throws(FiefError) -> ObjectSet {
        var origins = ObjectSet()
        if targets.isEmpty { return origins }
        if hop.kind == .backlinks {
            let origin = try realm.table(hop.to)
            let column = try origin.column(hop.property)
            if column.collection == .none {
                var cluster: Int64 = -1
                var chunk = ChunkReader(nil)
                try targets.forEach { (key) throws(FiefError) in
                    if ClusterLayout.cluster(of: key) != cluster {
                        cluster = ClusterLayout.cluster(of: key)
                        chunk = try realm.chunk(origin, column: hop.property, cluster: cluster).reader
                    }
                    if case .int(let target) = chunk.value(ClusterLayout.slot(of: key), type: .link, nullable: true) { origins.insert(target) }
                }
            } else {
                let walker = try CollectionWalker(realm, origin, property: hop.property)
                try targets.forEach { (key) throws(FiefError) in
                    _ = try walker.forEach(owner: key) { value in
                        if case .link(_, let target) = value { origins.insert(target) }
                        return true
                    }
                }
            }
            return origins
        }
        // The origins gathered (in no order), then made a set a cluster at a time.
        var found: [Int64] = []
        try withBacklinkScanner(of: hop.to) { (scanner) throws(FiefError) in
            try targets.forEach { (target) throws(FiefError) in
                try scanner.forEachRecord(of: target, originClass: hop.from, property: hop.property) { (_, origin, _) in
                    found.append(origin)
                }
            }
        }
        return ObjectSet(keysInAnyOrder: found)
    }

    /// The objects of `cluster` of `table` whose link `column` is null
    /// (whether they exist or not).
    private func nullLinks(_ table: Table, column: UInt32, cluster: Int64) throws(FiefError) -> Bitmap {
        let reader = try realm.chunk(table, column: column, cluster: cluster).reader
        // A missing chunk reads as all null (a property added after the cluster was written).
        guard reader.base != nil else { return Bitmap(repeating: ~0) }
        return Bitmap(reader.bitmapWord(0), reader.bitmapWord(1), reader.bitmapWord(2), reader.bitmapWord(3))
    }
}
