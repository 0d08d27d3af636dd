import CLMDB
#if canImport(Glibc)
import Glibc
#endif

// Evaluating graph nodes (QueryBinder.swift), a cluster of the class tested
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
// compared.  Nothing is allocated per object.

/// Sorted object keys (ascending, repeats allowed) taken a cluster at a
/// time: each cluster holding some of them, in key order, with the mask
/// of its keys.  What index plans, backlinks and candidate lists become
/// before a scan visits them.
struct SortedKeyClusters: Sequence, IteratorProtocol {
    private let keys: [Int64]
    private var index = 0

    init(_ sortedKeys: [Int64]) { keys = sortedKeys }

    @inline(__always)
    mutating func next() -> (cluster: Int64, bits: Bitmap)? {
        guard index < keys.count else { return nil }
        let cluster = ClusterLayout.cluster(of: keys[index])
        // The mask's words in registers (setting a bit of a SIMD value in
        // place goes through memory, a stall per key).
        var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
        while index < keys.count && ClusterLayout.cluster(of: keys[index]) == cluster {
            let slot = ClusterLayout.slot(of: keys[index])
            let bit: UInt64 = 1 << UInt64(slot & 63)
            switch slot >> 6 {
            case 0: w0 |= bit
            case 1: w1 |= bit
            case 2: w2 |= bit
            default: w3 |= bit
            }
            index += 1
        }
        return (cluster, Bitmap(w0, w1, w2, w3))
    }
}

/// Objects of one class: a 256-bit mask per cluster.
///
/// While objects come in ascending cluster order (a set made from sorted
/// keys, an index's answer, a scan of the clusters) the masks are two
/// sorted arrays, read by binary search, with nothing hashed; an object
/// added out of order moves them into a dictionary.
struct ObjectSet {
    /// The clusters holding objects, ascending, and their masks (none
    /// empty), while `hashed` is nil.
    private var orderedClusters: [Int64] = []
    private var orderedBits: [Bitmap] = []
    /// Every cluster's mask, once an object was added out of order.
    private var hashed: [Int64: Bitmap]?

    init() {}

    /// The objects `keys` (ascending, repeats allowed).
    init(sortedKeys keys: [Int64]) {
        // At most a cluster per key, at most as many as the class can have.
        let clusters = keys.isEmpty ? 0 : min(keys.count, Int(ClusterLayout.cluster(of: keys[keys.count - 1]) - ClusterLayout.cluster(of: keys[0])) + 1)
        orderedClusters.reserveCapacity(clusters)
        orderedBits.reserveCapacity(clusters)
        for (cluster, bits) in SortedKeyClusters(keys) {
            orderedClusters.append(cluster)
            orderedBits.append(bits)
        }
    }

    /// The objects `keys` (in any order, repeats allowed: the origins of a
    /// path's backlinks, a run per target).  When their clusters span no
    /// more clusters than there are keys, their bits are set in a mask per
    /// cluster of that range and the clusters holding some taken in order,
    /// with no sort; else the keys are sorted first.
    init(keysInAnyOrder keys: [Int64]) {
        self.init()
        guard var low = keys.first.map({ ClusterLayout.cluster(of: $0) }) else { return }
        var high = low
        for key in keys {
            let cluster = ClusterLayout.cluster(of: key)
            low = min(low, cluster)
            high = max(high, cluster)
        }
        let span = Int(high - low) + 1
        // Zeroing and walking the range costs about what sorting the keys
        // does when there is a key per cluster.
        guard span <= max(16, keys.count) else {
            self = ObjectSet(sortedKeys: keys.sorted())
            return
        }
        var words = [UInt64](repeating: 0, count: span * 4)
        var clusters = 0
        words.withUnsafeMutableBufferPointer { w in
            for key in keys {
                let slot = ClusterLayout.slot(of: key)
                w[Int(ClusterLayout.cluster(of: key) - low) * 4 + slot >> 6] |= 1 << UInt64(slot & 63)
            }
            for i in 0..<span where w[4 * i] | w[4 * i + 1] | w[4 * i + 2] | w[4 * i + 3] != 0 { clusters += 1 }
            orderedClusters.reserveCapacity(clusters)
            orderedBits.reserveCapacity(clusters)
            for i in 0..<span where w[4 * i] | w[4 * i + 1] | w[4 * i + 2] | w[4 * i + 3] != 0 {
                orderedClusters.append(low + Int64(i))
                orderedBits.append(Bitmap(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]))
            }
        }
    }

    var isEmpty: Bool { hashed.map { $0.isEmpty } ?? orderedClusters.isEmpty }

    /// Where `cluster` is or would go in `orderedClusters`.
    @inline(__always)
    private func position(of cluster: Int64) -> Int {
        var low = 0, high = orderedClusters.count
        while low < high {
            let mid = (low + high) >> 1
            if orderedClusters[mid] < cluster { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// From sorted arrays to the dictionary (an object added out of order).
    private mutating func makeHashed() -> [Int64: Bitmap] {
        if let hashed { return hashed }
        var table = [Int64: Bitmap](minimumCapacity: orderedClusters.count)
        for i in orderedClusters.indices { table[orderedClusters[i]] = orderedBits[i] }
        orderedClusters = []
        orderedBits = []
        return table
    }

    @inline(__always)
    mutating func insert(_ key: Int64) {
        var bits = Bitmap(repeating: 0)
        QueryEvaluator.set(&bits, ClusterLayout.slot(of: key))
        insert(cluster: ClusterLayout.cluster(of: key), bits)
    }

    /// Add the objects `bits` of `cluster`.
    @inline(__always)
    mutating func insert(cluster: Int64, _ bits: Bitmap) {
        if bits == Bitmap(repeating: 0) { return }
        if hashed == nil {
            if let last = orderedClusters.last, last >= cluster {
                if last == cluster {
                    orderedBits[orderedBits.count - 1] |= bits
                    return
                }
            } else {
                orderedClusters.append(cluster)
                orderedBits.append(bits)
                return
            }
            hashed = makeHashed()
        }
        hashed![cluster, default: Bitmap(repeating: 0)] |= bits
    }

    @inline(__always)
    mutating func remove(_ key: Int64) {
        let cluster = ClusterLayout.cluster(of: key), slot = ClusterLayout.slot(of: key)
        let bit: UInt64 = 1 << UInt64(slot & 63)
        if hashed != nil {
            guard var bits = hashed![cluster] else { return }
            bits[slot >> 6] &= ~bit
            hashed![cluster] = bits == Bitmap(repeating: 0) ? nil : bits
            return
        }
        let i = position(of: cluster)
        guard i < orderedClusters.count, orderedClusters[i] == cluster else { return }
        orderedBits[i][slot >> 6] &= ~bit
        if orderedBits[i] == Bitmap(repeating: 0) {
            orderedClusters.remove(at: i)
            orderedBits.remove(at: i)
        }
    }

    @inline(__always)
    func contains(_ key: Int64) -> Bool {
        let slot = ClusterLayout.slot(of: key)
        return bits(ClusterLayout.cluster(of: key))[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// The objects of `cluster` in the set.
    @inline(__always)
    func bits(_ cluster: Int64) -> Bitmap {
        if let hashed { return hashed[cluster] ?? Bitmap(repeating: 0) }
        let i = position(of: cluster)
        return i < orderedClusters.count && orderedClusters[i] == cluster ? orderedBits[i] : Bitmap(repeating: 0)
    }

    /// The clusters holding objects of the set, in key order.
    var sortedClusters: [Int64] { hashed.map { $0.keys.sorted() } ?? orderedClusters }

    /// Each cluster holding objects of the set, in key order, with its objects.
    func forEachCluster(_ body: (Int64, Bitmap) throws(FiefError) -> Void) throws(FiefError) {
        if let hashed {
            for cluster in hashed.keys.sorted() { try body(cluster, hashed[cluster]!) }
            return
        }
        for i in orderedClusters.indices { try body(orderedClusters[i], orderedBits[i]) }
    }

    /// Every object, in key order.
    func forEach(_ body: (Int64) throws(FiefError) -> Void) throws(FiefError) {
        try forEachCluster { (cluster, bits) throws(FiefError) in
            let base = cluster << ClusterLayout.shift
            for word in 0..<4 {
                var w = bits[word]
                while w != 0 {
                    try body(base | Int64(word << 6 | w.trailingZeroBitCount))
                    w &= w - 1
                }
            }
        }
    }
}

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

// MARK: - Forward

/// Object keys gathered at one step of a path, reused from object to
/// object (no allocation once it has grown).
final class KeyBuffer {
    var keys: [Int64] = []
}

/// Reads a value expression for objects of the class tested, following
/// its steps in place: the last chunk read at every to-one step is kept,
/// collections are walked in their segments and entries, backlinks with
/// one cursor.
final class ValueReader {
    private let realm: Realm
    private let expression: ValueExpression
    private let hops: [GraphHop]
    /// Per step: the table it leaves from, the last link chunk read (to-one
    /// steps), the walker of its collection of links, the backlinks it reads.
    private let hopTables: [Table]
    private var hopClusters: [Int64]
    private var hopChunks: [ChunkReader]
    private var hopWalkers: [CollectionWalker?]
    private var hopScanners: [BacklinkScanner?]
    private let hopBackTables: [Table?]
    private let buffers: [KeyBuffer]
    private let lastTable: Table
    private var lastCluster: Int64 = -1
    private var lastChunk: ColumnChunk?
    /// The collection the value reads (elements, aggregates).
    private var walker: CollectionWalker?
    /// Aggregates of a property of the objects one more step reaches: their
    /// class, its last chunk read, and the objects of the object at hand.
    private var targetTable: Table?
    private var targetCluster: Int64 = -1
    private var targetChunk: ColumnChunk?
    private let targetKeys = KeyBuffer()
    private var backlinkScanner: BacklinkScanner?
    /// A SUBQUERY's matching objects (of the class its steps reach).
    private var subqueryMatches = ObjectSet()
    /// Arithmetic: a reader per value term (in the term's order), the one
    /// that gives many values (if any), and the values read for one object.
    private var termReaders: [ValueReader] = []
    private var manyTerm: Int?
    private var termValues: [Value] = []

    /// A reader of `expression`; `scan` computes what it needs once (the
    /// objects matching a SUBQUERY's predicate).
    init(_ realm: Realm, _ expression: ValueExpression, scan: QueryScan) throws(FiefError) {
        self.realm = realm
        self.expression = expression
        hops = expression.hops
        var tables: [Table] = []
        var walkers: [CollectionWalker?] = []
        var backTables: [Table?] = []
        for hop in expression.hops {
            let table = try realm.table(hop.from)
            tables.append(table)
            switch hop.kind {
            case .list, .set, .map, .mapEntry, .listElement: walkers.append(try CollectionWalker(realm, table, property: hop.property))
            case .link, .backlinks: walkers.append(nil)
            }
            backTables.append(hop.kind == .backlinks ? table : nil)
        }
        hopTables = tables
        hopWalkers = walkers
        hopBackTables = backTables
        hopScanners = [BacklinkScanner?](repeating: nil, count: hops.count)
        hopClusters = [Int64](repeating: -1, count: hops.count)
        hopChunks = [ChunkReader](repeating: ChunkReader(nil), count: hops.count)
        buffers = hops.map { _ in KeyBuffer() }
        lastTable = try realm.table(expression.lastClass)
        switch expression.value {
        case .elements(let property), .mapEntry(let property, _), .listElement(let property, _), .mapKeys(let property):
            walker = try CollectionWalker(realm, lastTable, property: property.key)
        case .aggregate(_, let property, let through):
            if let through {
                targetTable = try realm.table(through.to)
                if through.kind != .backlinks { walker = try CollectionWalker(realm, lastTable, property: through.property) }
            } else {
                walker = try CollectionWalker(realm, lastTable, property: property.key)
            }
        case .subqueryCount(let query):
            subqueryMatches = try scan.matchingObjects(query)
        case .arithmetic(let term):
            var expressions: [ValueExpression] = []
            term.forEachValue { expressions.append($0) }
            for (i, expression) in expressions.enumerated() {
                termReaders.append(try ValueReader(realm, expression, scan: scan))
                if expression.isMany { manyTerm = i }
            }
            termValues = [Value](repeating: .null, count: expressions.count)
        default:
            break
        }
    }

    /// The value as the expression gives it: with `@type`, its type's code
    /// (the declared type's for a property that is not mixed).
    @inline(__always)
    private func typed(_ value: Value) -> Value {
        guard let declared = expression.typeOf else { return value }
        if declared != .mixed && declared != .link { return .int(Int64(declared.rawValue)) }
        return .int(QueryBinder.typeCode(value))
    }

    /// The one value for object `key` (an expression that is not many-valued):
    /// what a null link on the way leaves (null; 0 for a size) where one is null.
    func value(_ key: Int64) throws(FiefError) -> Value {
        typed(try untypedValue(key))
    }

    private func untypedValue(_ key: Int64) throws(FiefError) -> Value {
        if expression.sumsOverSteps {
            // The sum over every object reached (each as often as reached).
            var total: Int64 = 0
            var failure: FiefError?
            _ = try walk(0, key) { value in
                if case .int(let n) = value { total += n } else { failure = FiefError(.internal, "a backlink count is an int") }
                return true
            }
            if let failure { throw failure }
            return .int(total)
        }
        var key = key
        for step in 0..<hops.count {
            guard let target = try link(step, key) else { return expression.valueOfNullObject }
            key = target
        }
        return try single(key)
    }

    /// Call `visit` with each value for object `key`, until it returns
    /// false; returns whether every value was visited.  Strings and
    /// binaries are views, valid during the call.
    @discardableResult
    func forEach(_ key: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        try walk(0, key, visit)
    }

    private func walk(_ level: Int, _ key: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if level == hops.count {
            switch expression.value {
            case .arithmetic(let term) where manyTerm != nil:
                // One result per value of the many-valued term, the others read once.
                let many = manyTerm!
                for i in 0..<termReaders.count where i != many { termValues[i] = try termReaders[i].value(key) }
                return try termReaders[many].forEach(key) { value in
                    termValues[many] = value
                    return visit(typed(term.evaluate { termValues[$0] }))
                }
            case .arithmetic(let term) where term.listCount != nil:
                // A list of values given with the query: one result per element.
                for i in 0..<termReaders.count { termValues[i] = try termReaders[i].value(key) }
                for element in 0..<term.listCount! {
                    if !visit(typed(term.evaluate(element: element) { termValues[$0] })) { return false }
                }
                return true
            case .elements(let property):
                if expression.measure == .lengths {
                    return try walker!.forEach(owner: key) { value in
                        switch value {
                        case .string(let bytes), .binary(let bytes): return visit(.int(Int64(bytes.count)))
                        case .null where property.type != .mixed: return visit(.int(0))
                        default: return true
                        }
                    }
                }
                if expression.typeOf != nil { return try walker!.forEach(owner: key) { value in visit(typed(value)) } }
                return try walker!.forEach(owner: key, visit)
            case .mapKeys: return try walker!.forEachKey(owner: key) { value in visit(typed(value)) }
            default: return visit(typed(try single(key)))
            }
        }
        switch hops[level].kind {
        case .link, .mapEntry, .listElement:
            // A null link (a missing key, a position past the end) behind a to-many step reads nothing.
            guard let target = try link(level, key) else { return true }
            return try walk(level + 1, target, visit)
        case .list, .set, .map:
            let buffer = buffers[level]
            buffer.keys.removeAll(keepingCapacity: true)
            try hopWalkers[level]!.forEach(owner: key) { value in
                if case .link(_, let target) = value { buffer.keys.append(target) }
                return true
            }
            for target in buffer.keys where !(try walk(level + 1, target, visit)) { return false }
            return true
        case .backlinks:
            let buffer = buffers[level]
            buffer.keys.removeAll(keepingCapacity: true)
            let hop = hops[level]
            guard let dbi = hopBackTables[level]!.backlinks else { return true }
            try realm.withReadTransaction { (txn) throws(FiefError) in
                if hopScanners[level] == nil { hopScanners[level] = try BacklinkScanner(txn, dbi) }
                try hopScanners[level]!.forEachRecord(of: key, originClass: hop.to, property: hop.property) { (_, origin, count) in
                    // An object linking twice (a list listing it twice) is reached twice.
                    for _ in 0..<count { buffer.keys.append(origin) }
                }
            }
            for origin in buffer.keys where !(try walk(level + 1, origin, visit)) { return false }
            return true
        }
    }

    /// The target of to-one step `step` for object `key` (nil: null).
    @inline(__always)
    private func link(_ step: Int, _ key: Int64) throws(FiefError) -> Int64? {
        switch hops[step].kind {
        case .mapEntry(let mapKey):
            guard case .link(_, let target)? = try hopWalkers[step]!.value(owner: key, key: mapKey) else { return nil }
            return target
        case .listElement(let index):
            guard case .link(_, let target)? = try hopWalkers[step]!.element(owner: key, at: index) else { return nil }
            return target
        default:
            break
        }
        let cluster = ClusterLayout.cluster(of: key)
        if cluster != hopClusters[step] {
            // Link columns are fixed-width: dirty or not, their chunks read through a plain reader.
            hopChunks[step] = try realm.chunk(hopTables[step], column: hops[step].property, cluster: cluster).reader
            hopClusters[step] = cluster
        }
        guard case .int(let target) = hopChunks[step].value(ClusterLayout.slot(of: key), type: .link, nullable: true) else { return nil }
        return target
    }

    /// The chunk of `column` of the last class for object `key`.
    @inline(__always)
    private func lastColumn(_ column: UInt32, _ key: Int64) throws(FiefError) -> ColumnChunk {
        let cluster = ClusterLayout.cluster(of: key)
        if cluster != lastCluster || lastChunk == nil {
            lastChunk = try realm.chunk(lastTable, column: column, cluster: cluster)
            lastCluster = cluster
        }
        return lastChunk!
    }

    /// The value at the end of the steps, for object `key` of the last class.
    private func single(_ key: Int64) throws(FiefError) -> Value {
        let slot = ClusterLayout.slot(of: key)
        switch expression.value {
        case .property(let property, let linkTarget):
            let chunk = try lastColumn(property.key, key)
            guard let value = QueryEvaluator.slotValue(chunk, slot, property) else {
                throw realm.damagedChunk(lastTable, column: property.key, cluster: ClusterLayout.cluster(of: key), "holds a mixed value that cannot be read")
            }
            if property.type == .link, case .int(let target) = value { return .link(classKey: linkTarget, objectKey: target) }
            return value
        case .object:
            return .link(classKey: expression.lastClass, objectKey: key)
        case .count(let property):
            return try lastColumn(property.key, key).value(slot, type: .int, nullable: false)
        case .linkCount(let property):
            return .int(try lastColumn(property.key, key).value(slot, type: .link, nullable: true).isNull ? 0 : 1)
        case .length(let property):
            let value = try lastColumn(property.key, key).value(slot, type: property.type, nullable: property.isNullable)
            switch value {
            case .string(let bytes), .binary(let bytes): return .int(Int64(bytes.count))
            default: return .int(0)
            }
        case .backlinkCount(let pair):
            guard let dbi = lastTable.backlinks else { return .int(0) }
            var total: Int64 = 0
            try realm.withReadTransaction { (txn) throws(FiefError) in
                if backlinkScanner == nil { backlinkScanner = try BacklinkScanner(txn, dbi) }
                if let pair {
                    try backlinkScanner!.forEachRecord(of: key, originClass: pair.originClass, property: pair.property) { (_, _, count) in total += Int64(count) }
                } else {
                    try backlinkScanner!.forEachRecord(of: key) { (_, _, count) in total += Int64(count) }
                }
            }
            return .int(total)
        case .aggregate(let operation, let property, let through):
            guard let through, let targetTable else {
                var aggregator = Aggregator(operation, property.type)
                try walker!.forEach(owner: key) { value in aggregator.add(value); return true }
                return aggregator.result()
            }
            // The objects first (the walk may hold the snapshot's lock), then their values.
            let target = property
            targetKeys.keys.removeAll(keepingCapacity: true)
            if through.kind == .backlinks {
                guard let dbi = lastTable.backlinks else { return Aggregator(operation, target.type).result() }
                try realm.withReadTransaction { (txn) throws(FiefError) in
                    if backlinkScanner == nil { backlinkScanner = try BacklinkScanner(txn, dbi) }
                    try backlinkScanner!.forEachRecord(of: key, originClass: through.to, property: through.property) { (_, origin, count) in
                        // A list listing the object twice counts twice.
                        for _ in 0..<count { targetKeys.keys.append(origin) }
                    }
                }
            } else {
                try walker!.forEach(owner: key) { value in
                    if case .link(_, let object) = value { targetKeys.keys.append(object) }
                    return true
                }
            }
            var aggregator = Aggregator(operation, target.type)
            for object in targetKeys.keys {
                let cluster = ClusterLayout.cluster(of: object)
                if cluster != targetCluster || targetChunk == nil {
                    targetChunk = try realm.chunk(targetTable, column: target.key, cluster: cluster)
                    targetCluster = cluster
                }
                guard let value = QueryEvaluator.slotValue(targetChunk!, ClusterLayout.slot(of: object), target) else {
                    throw realm.damagedChunk(targetTable, column: target.key, cluster: cluster, "holds a mixed value that cannot be read")
                }
                aggregator.add(value)
            }
            return aggregator.result()
        case .subqueryCount:
            return .int(subqueryMatches.contains(key) ? 1 : 0)
        case .arithmetic(let term):
            for i in 0..<termReaders.count { termValues[i] = try termReaders[i].value(key) }
            return term.evaluate { termValues[$0] }
        case .mapEntry(let property, let mapKey):
            let value = try walker!.value(owner: key, key: mapKey) ?? .null
            return expression.measure == .size ? try size(of: value, owner: key, property) : value
        case .listElement(let property, let index):
            let value = try walker!.element(owner: key, at: index) ?? .null
            return expression.measure == .size ? try size(of: value, owner: key, property) : value
        case .elements, .mapKeys:
            throw FiefError(.internal, "a collection's elements are many values")
        case .nested:
            throw FiefError(.internal, "a nested path is read by a NestedReader")
        }
    }
}

extension ValueReader {
    /// The size of `value`, an element of collection `property` of object
    /// `owner` (see `ValueMeasure.size`).
    fileprivate func size(of value: Value, owner: Int64, _ property: Property) throws(FiefError) -> Value {
        switch value {
        case .string(let bytes), .binary(let bytes): return .int(Int64(bytes.count))
        case .nestedList(let id), .nestedDictionary(let id):
            return .int(Int64(try realm.storedNestedCount(NestedRef(table: expression.lastClass, owner: owner, property: property.key, id: id))))
        default: return .null
        }
    }
}

/// Walks the elements of one list, set or map property, owner by owner,
/// in place: in a snapshot, one cursor over the collection's database
/// (segments read through `SegmentReader`, entries decoded as views); in a
/// write transaction, through the transaction's own view of the collection.
final class CollectionWalker {
    private let realm: Realm
    private let table: Table
    private let column: Column
    private let dbi: MDB_dbi
    private var cursor: LMDBCursor?
    /// The snapshot `cursor` belongs to.
    private var cursorSnapshot: Snapshot?
    /// A map entry's key being looked up (owner + key), reused.
    private var lookup: [UInt8] = []
    /// Where `forEach` left the cursor after walking the whole collection
    /// of owner `parkedAfter`: on the first entry of a later owner (nil: at
    /// the end).  A scan asks for owners in ascending key order, so the next
    /// owner's collection starts there (or, when that entry is of a later
    /// owner still, is empty) and needs no seek.  -1: the cursor's place is
    /// unknown (another read moved it, or it was opened anew).
    private var parkedAfter: Int64 = -1
    private var parked: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?

    init(_ realm: Realm, _ table: Table, property: UInt32) throws(FiefError) {
        self.realm = realm
        self.table = table
        column = try table.column(property)
        switch column.collection {
        case .list: dbi = try table.listDatabase(property)
        case .set: dbi = try table.setDatabase(property)
        case .map: dbi = try table.mapDatabase(property)
        case .none: throw FiefError(.internal, "'\(table.objectClass.name)' property \(property) is no collection")
        }
    }

    /// Call `visit` with each element of `owner`'s collection (a map's
    /// values; links as `.link`), in the collection's order, until it
    /// returns false; returns whether every element was visited.
    @discardableResult
    func forEach(owner: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if realm.write != nil { return try forEachInWrite(owner, visit) }
        let snapshot = try realm.currentSnapshot()
        // A set's or map's entries walked whole, counted against the size
        // its owner's column records: entries lost (or gained) are damage.
        var walked: Int?
        let whole = try snapshot.withTransaction { (txn) throws(FiefError) -> Bool in
            let cursor = try self.cursor(txn, snapshot, keepParked: true)
            // Lists and sets/maps alike: keys start with the owner, big-endian.
            var entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
            if parkedAfter >= 0, owner > parkedAfter, parked.map({ (SetStore.owner(of: $0.key) ?? owner) >= owner }) ?? true {
                entry = parked
            } else if column.collection == .list {
                var key = (UInt64(0), UInt64(0))
                entry = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                    ListStore.key(raw.baseAddress!, owner: owner, position: 0)
                    return try cursor.seek(UnsafeRawBufferPointer(raw))
                }
            } else {
                var prefix = SetStore.ownerKey(owner)
                entry = try withUnsafeBytes(of: &prefix) { (raw) throws(FiefError) in try cursor.seek(raw) }
            }
            parkedAfter = -1
            if column.collection == .list {
                while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == owner {
                    guard snapshot.bounds.contains(v),
                          let reader = SegmentReader(v, type: column.elementType == .mixed ? .binary : column.elementType, table: table.key,
                                                     key: ListStore.checkKey(column: column.key, owner: owner, position: decoded.position)) else {
                        throw realm.damagedEntry(table, column, owner, "a stored segment")
                    }
                    for i in 0..<reader.count where !visit(try element(reader.value(i, linkTarget: column.linkTarget), owner)) { return false }
                    entry = try cursor.next()
                }
            } else {
                var count = 0
                while let (k, v) = entry, SetStore.belongs(k, to: owner) {
                    if !visit(try storedEntryValue(k, v, owner)) { return false }
                    count += 1
                    entry = try cursor.next()
                }
                walked = count
            }
            parked = entry
            parkedAfter = owner
            return true
        }
        if let walked { try requireStoredCount(walked, owner) }
        return whole
    }

    /// `count` entries found for `owner`'s set or map: what its size column says, or damage.
    private func requireStoredCount(_ count: Int, _ owner: Int64) throws(FiefError) {
        let size = try realm.collectionSize(table, column, owner)
        guard size != count else { return }
        let name = (try? table.property(column.key).name) ?? ""
        throw FiefError(.fileCorrupt, "the entries of '\(table.objectClass.name).\(name)' of object \(owner) are damaged: \(count) stored, \(size) recorded; `fief copy` writes a sound copy", path: realm.environment.path)
    }

    /// Call `visit` with each key of `owner`'s map (a string, a view), in
    /// key order, until it returns false.
    @discardableResult
    func forEachKey(owner: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if realm.write != nil {
            for entry in try realm.collectionEntries(ListID(table: table.key, column: column.key, owner: owner), dbi, sealed: column.key).entries {
                if !visit(.string(entry.key)) { return false }
            }
            return true
        }
        let snapshot = try realm.currentSnapshot()
        var walked: Int?
        let whole = try snapshot.withTransaction { (txn) throws(FiefError) -> Bool in
            let cursor = try self.cursor(txn, snapshot)
            var prefix = SetStore.ownerKey(owner)
            var entry = try withUnsafeBytes(of: &prefix) { (raw) throws(FiefError) in try cursor.seek(raw) }
            var count = 0
            while let (k, v) = entry, SetStore.belongs(k, to: owner) {
                // The key is bound into its value's checksum: checked with it.
                if EntrySeal.open(v, table: table.key, database: column.key, key: k) == nil { throw realm.damagedSeal(table.key, property: column.key, owner) }
                if !visit(.string(UnsafeRawBufferPointer(rebasing: k[SetStore.ownerBytes...]))) { return false }
                count += 1
                entry = try cursor.next()
            }
            walked = count
            return true
        }
        if let walked { try requireStoredCount(walked, owner) }
        return whole
    }

    /// The value under `key` of `owner`'s map (nil: no such key).
    func value(owner: Int64, key: [UInt8]) throws(FiefError) -> Value? {
        if realm.write != nil {
            return try key.withBytes { (raw) throws(FiefError) -> Value? in
                try realm.mapValue(CollectionRef(table: table.key, owner: owner, property: column.key), key: raw)
            }
        }
        let snapshot = try realm.currentSnapshot()
        lookup.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: SetStore.ownerKey(owner)) { lookup.append(contentsOf: $0) }
        lookup.append(contentsOf: key)
        return try snapshot.withTransaction { (txn) throws(FiefError) -> Value? in
            let cursor = try self.cursor(txn, snapshot)
            return try lookup.withBytes { (raw) throws(FiefError) -> Value? in
                guard let (k, v) = try cursor.seek(raw), k.count == raw.count, memcmp(k.baseAddress!, raw.baseAddress!, raw.count) == 0 else { return nil }
                return try storedEntryValue(k, v, owner)
            }
        }
    }

    /// The element at `index` of `owner`'s list (nil past its end).
    func element(owner: Int64, at index: ListIndex) throws(FiefError) -> Value? {
        let size = try realm.collectionSize(table, column, owner)
        let position: Int
        switch index {
        case .at(let n): position = n
        case .last: position = size - 1
        }
        guard position >= 0, position < size else { return nil }
        if realm.write != nil {
            let state = try realm.listState(table, column, owner: owner)
            return try state.element(try state.value(position, table: table), table)
        }
        let snapshot = try realm.currentSnapshot()
        return try snapshot.withTransaction { (txn) throws(FiefError) -> Value? in
            let cursor = try self.cursor(txn, snapshot)
            var key = (UInt64(0), UInt64(0))
            var entry = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                ListStore.key(raw.baseAddress!, owner: owner, position: 0)
                return try cursor.seek(UnsafeRawBufferPointer(raw))
            }
            var skip = position
            // Segment headers hold their counts: only the segment holding the element is read.
            while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == owner, v.count > 0 {
                let count = Int(v.load(as: UInt8.self)) + 1
                if skip < count {
                    guard snapshot.bounds.contains(v),
                          let reader = SegmentReader(v, type: column.elementType == .mixed ? .binary : column.elementType, table: table.key,
                                                     key: ListStore.checkKey(column: column.key, owner: owner, position: decoded.position)) else {
                        throw realm.damagedEntry(table, column, owner, "a stored segment")
                    }
                    return try element(reader.value(skip, linkTarget: column.linkTarget), owner)
                }
                skip -= count
                entry = try cursor.next()
            }
            throw realm.damagedEntry(table, column, owner, "a stored segment (the list holds fewer elements than its size)")
        }
    }

    /// This walker's cursor in `snapshot` (opened on first use); unless
    /// `keepParked`, the caller moves it (see `parkedAfter`).
    private func cursor(_ txn: OpaquePointer, _ snapshot: Snapshot, keepParked: Bool = false) throws(FiefError) -> LMDBCursor {
        if !keepParked { parkedAfter = -1 }
        if let cursor, cursorSnapshot === snapshot { return cursor }
        parkedAfter = -1
        let opened = try LMDBCursor(txn, dbi)
        cursor = opened
        cursorSnapshot = snapshot
        return opened
    }

    private func forEachInWrite(_ owner: Int64, _ visit: (Value) -> Bool) throws(FiefError) -> Bool {
        if column.collection == .list {
            let state = try realm.listState(table, column, owner: owner)
            for i in 0..<state.count where !visit(try state.element(try state.value(i, table: table), table)) { return false }
            return true
        }
        for entry in try realm.collectionEntries(ListID(table: table.key, column: column.key, owner: owner), dbi,
                                                 sealed: column.collection == .map ? column.key : nil).entries {
            if !visit(try entryValue(entry.key, entry.value, owner)) { return false }
        }
        return true
    }

    /// A list element as stored: a mixed one decoded.
    @inline(__always)
    private func element(_ stored: Value, _ owner: Int64) throws(FiefError) -> Value {
        guard column.elementType == .mixed, case .binary(let coded) = stored else { return stored }
        guard let value = MixedCoding.decode(coded) else { throw realm.damagedEntry(table, column, owner, "an element") }
        return value
    }

    /// A set element or map value from its entry as stored (the whole
    /// key; a map value with its checksum, checked here: a walk reads the
    /// database in place, and one CRC over an entry costs about what a
    /// lookup in a cache of checked entries would).
    @inline(__always)
    private func storedEntryValue(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ owner: Int64) throws(FiefError) -> Value {
        var body = value
        if column.collection == .map {
            guard let opened = EntrySeal.open(value, table: table.key, database: column.key, key: key) else {
                throw realm.damagedSeal(table.key, property: column.key, owner)
            }
            body = opened
        }
        return try entryValue(UnsafeRawBufferPointer(rebasing: key[SetStore.ownerBytes...]), body, owner)
    }

    /// A set element or map value from its entry (key without its owner; a
    /// map value without its checksum).
    @inline(__always)
    private func entryValue(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ owner: Int64) throws(FiefError) -> Value {
        let decoded = column.collection == .set
            ? SetStore.storedElement(key, value, type: column.elementType, linkTarget: column.linkTarget)
            : MixedCoding.decode(value)
        guard let decoded else { throw realm.damagedEntry(table, column, owner, column.collection == .set ? "an element" : "a value") }
        if column.collection == .map, case .link(let classKey, _) = decoded,
           column.elementType == .mixed ? !realm.isMixedLinkTarget(classKey) : classKey != column.linkTarget {
            throw realm.damagedEntry(table, column, owner, "a link to a class that does not exist")
        }
        return decoded
    }
}

// MARK: - Lists of values against a constant

/// `ANY scores > 5` (or ALL, NONE; any comparison of one constant) over a
/// list of scalar values of the objects tested, a cluster at a time,
/// straight from the list's segments in the snapshot: one cursor walk over
/// the cluster's lists (their keys start with the owner), each segment of
/// an owner in the mask checked and its elements compared in place (ints
/// as stored integers against an int constant, other types as views), no
/// value reader, no per-object closure, until an element decides the
/// owner.  An owner without segments has an empty list: ANY is false, ALL
/// and NONE true.  The comparison is `QueryEvaluator.compareValues`, as
/// for every other element; a null element answers what null does.  In a
/// write transaction (lists then read through the transaction's state)
/// the value reader answers instead.
final class ListElementTest {
    private let realm: Realm
    private let table: Table
    private let column: Column
    private let dbi: MDB_dbi
    private let storedType: PropertyType
    private let op: QueryOperator
    private let options: QueryStringOptions
    /// Kept alive for `constantValue`, which may view its bytes.
    private let constant: QueryConstant
    private let constantValue: Value
    /// An int constant, for elements stored as ints.
    private let intConstant: Int64?
    /// What a null element answers.
    private let nullMatches: Bool
    private var cursor: LMDBCursor?
    private var cursorSnapshot: Snapshot?

    /// The test for `predicate` over the elements `expression` reads, when
    /// it is one comparison with a constant of a list of values of a type
    /// other than mixed, of the class tested itself, compared as they are
    /// (not their `@type` nor a measure such as `.length`); nil otherwise.
    init?(_ realm: Realm, _ table: Table, _ expression: ValueExpression, _ predicate: QueryNode) throws(FiefError) {
        guard expression.hops.isEmpty, expression.typeOf == nil, expression.measure == nil, expression.lastClass == table.key,
              case .elements(let property) = expression.value,
              case .compare(_, let op, let constant, let options) = predicate else { return nil }
        let column = try table.column(property.key)
        guard column.collection == .list else { return nil }
        switch column.elementType {
        case .int, .bool, .float, .double, .string, .binary, .timestamp, .objectId, .uuid, .decimal128: break
        case .mixed, .link: return nil
        }
        self.realm = realm
        self.table = table
        self.column = column
        dbi = try table.listDatabase(property.key)
        storedType = column.elementType
        self.op = op
        self.options = options
        self.constant = constant
        constantValue = QueryEvaluator.valueOf(constant)
        if column.elementType == .int, case .int(let c) = constant { intConstant = c } else { intConstant = nil }
        nullMatches = QueryEvaluator.compareValues(.null, op, constantValue, options)
    }

    /// The objects of `mask` in `cluster` whose list `quantifier` matches;
    /// nil in a write transaction.
    func evaluate(cluster: Int64, mask: Bitmap, quantifier: QueryQuantifier) throws(FiefError) -> Bitmap? {
        if realm.write != nil { return nil }
        let snapshot = try realm.currentSnapshot()
        // ANY, NONE: owners with an element that matches; ALL: with one that does not.
        let seeking = quantifier != .all
        let found = try withExtendedLifetime(constant) { () throws(FiefError) -> Bitmap in
            try snapshot.withTransaction { (txn) throws(FiefError) -> Bitmap in
                if cursor == nil || cursorSnapshot !== snapshot {
                    cursor = try LMDBCursor(txn, dbi)
                    cursorSnapshot = snapshot
                }
                let cursor = cursor!
                var key = (UInt64(0), UInt64(0))
                var entry = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
                    ListStore.key(raw.baseAddress!, owner: cluster << ClusterLayout.shift, position: 0)
                    return try cursor.seek(UnsafeRawBufferPointer(raw))
                }
                var found = Bitmap(repeating: 0)
                while let (k, v) = entry, let decoded = ListStore.decodeKey(k), ClusterLayout.cluster(of: decoded.owner) == cluster {
                    let slot = ClusterLayout.slot(of: decoded.owner)
                    let bit: UInt64 = 1 << UInt64(slot & 63)
                    if mask[slot >> 6] & bit != 0 && found[slot >> 6] & bit == 0 {
                        guard snapshot.bounds.contains(v),
                              let reader = SegmentReader(v, type: storedType, table: table.key,
                                                         key: ListStore.checkKey(column: column.key, owner: decoded.owner, position: decoded.position)) else {
                            throw realm.damagedEntry(table, column, decoded.owner, "a stored segment")
                        }
                        if has(reader, matching: seeking) { found[slot >> 6] |= bit }
                    }
                    entry = try cursor.next()
                }
                return found
            }
        }
        return quantifier == .any ? found : mask & ~found
    }

    /// Whether `segment` has an element whose comparison is `matching`.
    @inline(__always)
    private func has(_ segment: SegmentReader, matching: Bool) -> Bool {
        if let c = intConstant {
            for i in 0..<segment.count {
                let match: Bool
                if segment.isNull(i) {
                    match = nullMatches
                } else {
                    let x = segment.int(i)
                    switch op {
                    case .equal: match = x == c
                    case .notEqual: match = x != c
                    case .less: match = x < c
                    case .lessOrEqual: match = x <= c
                    case .greater: match = x > c
                    case .greaterOrEqual: match = x >= c
                    default: match = QueryEvaluator.compareValues(.int(x), op, constantValue, options)
                    }
                }
                if match == matching { return true }
            }
            return false
        }
        for i in 0..<segment.count {
            let match = segment.isNull(i) ? nullMatches : QueryEvaluator.compareValues(segment.value(i), op, constantValue, options)
            if match == matching { return true }
        }
        return false
    }
}

// MARK: - Backlinks of many targets

/// Reads the backlink records of many targets of one class with one
/// cursor; targets asked in ascending key order mostly need no seek (the
/// run read last holds them).
struct BacklinkScanner {
    private let cursor: LMDBCursor
    private var run: Backlinks.Run?
    /// The target of `run`'s last record (from its key).
    private var runLastTarget: UInt64 = 0
    /// In a read snapshot, its runs already checked (see
    /// `Backlinks.CheckedRuns`) and where they lie (see
    /// `Backlinks.RunDirectory`), read without reference counting (the
    /// snapshot holds them: `keptAlive` too).
    private let checked: Unmanaged<Backlinks.CheckedRuns>?
    private let directory: Unmanaged<Backlinks.RunDirectory>?
    private let keptAlive: (Backlinks.CheckedRuns?, Backlinks.RunDirectory?)
    /// `run`'s place in `directory` (-1: `run` was found through the
    /// cursor, which is on it).
    private var runIndex = -1

    init(_ txn: OpaquePointer, _ dbi: MDB_dbi) throws(FiefError) {
        cursor = try LMDBCursor(txn, dbi)
        checked = nil
        directory = nil
        keptAlive = (nil, nil)
    }

    /// A scanner over `cursor` (on a backlinks database), placed anywhere:
    /// its first target is sought.  `checked` and `directory`: the runs
    /// of the snapshot the cursor reads that were checked already, and
    /// where they lie (never in a write transaction).
    init(cursor: LMDBCursor, checked: Backlinks.CheckedRuns? = nil, directory: Backlinks.RunDirectory? = nil) {
        self.cursor = cursor
        self.checked = checked.map { Unmanaged.passUnretained($0) }
        self.directory = directory.map { Unmanaged.passUnretained($0) }
        keptAlive = (checked, directory)
    }

    /// The run stored under `key`, checked (its checksum once per snapshot).
    @inline(__always)
    private func read(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(FiefError) -> Backlinks.Run {
        guard let checked, let base = value.baseAddress else {
            guard let read = Backlinks.Run(value, key: key) else { throw Backlinks.damaged() }
            return read
        }
        let known = checked._withUnsafeGuaranteedRef { $0.contains(base) }
        guard let read = Backlinks.Run(value, key: key, verify: !known) else { throw Backlinks.damaged() }
        if !known { checked._withUnsafeGuaranteedRef { $0.insert(base) } }
        return read
    }

    /// Make run `i` of the directory the run read (nil past the last).
    @inline(__always)
    private mutating func readRun(_ directory: Unmanaged<Backlinks.RunDirectory>, _ i: Int) throws(FiefError) -> Backlinks.Run? {
        guard let (lastTarget, key, value) = directory._withUnsafeGuaranteedRef({ i < $0.count ? $0.run(i) : nil }) else {
            run = nil
            return nil
        }
        let made = try read(value, key: key)
        run = made
        runIndex = i
        runLastTarget = lastTarget
        return made
    }

    /// Make `run` the run holding the first record not below `wanted` (or
    /// where it would be); its index there, nil past the last run.
    @inline(__always)
    private mutating func place(_ wanted: Backlinks.Record) throws(FiefError) -> Int? {
        if let run, !run.record(run.count - 1).precedes(wanted), !wanted.precedes(run.record(0)) {
            return run.lowerBound(wanted, near: run.guess(wanted.target, last: runLastTarget))
        }
        if let directory {
            let txn = mdb_cursor_txn(cursor.pointer)!, dbi = mdb_cursor_dbi(cursor.pointer)
            if directory._withUnsafeGuaranteedRef({ !$0.isBuilt && $0.shouldBuild(txn, dbi) }), let made = keptAlive.1 {
                try made.build(txn, dbi)
            }
            let found = directory._withUnsafeGuaranteedRef { $0.isBuilt ? $0.find(wanted) : -1 }
            if found >= 0 {
                guard let read = try readRun(directory, found) else { return nil }
                return read.lowerBound(wanted, near: read.guess(wanted.target, last: runLastTarget))
            }
        }
        var key = (UInt64(0), UInt64(0), UInt64(0))
        let found = try withUnsafeMutableBytes(of: &key) { (raw) throws(FiefError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? in
            wanted.writeKey(raw.baseAddress!)
            return try cursor.seek(UnsafeRawBufferPointer(raw))
        }
        guard let found else { run = nil; return nil }
        let made = try read(found.value, key: found.key)
        run = made
        runIndex = -1
        runLastTarget = UInt64(bigEndian: found.key.loadUnaligned(as: UInt64.self))
        return made.lowerBound(wanted, near: made.guess(wanted.target, last: runLastTarget))
    }

    /// Move to the run after `run` (nil past the last).
    @inline(__always)
    private mutating func nextRun() throws(FiefError) -> Backlinks.Run? {
        if runIndex >= 0, let directory { return try readRun(directory, runIndex + 1) }
        guard let next = try cursor.next() else { run = nil; return nil }
        let made = try read(next.value, key: next.key)
        run = made
        runLastTarget = UInt64(bigEndian: next.key.loadUnaligned(as: UInt64.self))
        return made
    }

    /// Call `body` with each record for `target` (only those of class
    /// `originClass` and `property` when given): its pair (origin class <<
    /// 32 | property), origin object and link count.
    mutating func forEachRecord(of target: Int64, originClass: UInt32? = nil, property: UInt32? = nil,
                                _ body: (UInt64, Int64, UInt32) throws(FiefError) -> Void) throws(FiefError) {
        let wanted = Backlinks.Record(target: target, originClass: originClass ?? 0, property: property ?? 0, origin: 0)
        let onePair = originClass != nil
        guard var index = try place(wanted) else { return }
        while let current = run {
            while index < current.count {
                guard current.target(index) == wanted.target else { return }
                let pair = current.pair(index)
                if onePair && pair != wanted.pair { return }
                try body(pair, Int64(bitPattern: current.origin(index)), current.count(index))
                index += 1
            }
            // The records may go on in the next run.
            guard try nextRun() != nil else { return }
            index = 0
        }
    }

    /// The number of records for `target` from `originClass`'s `property`
    /// (the origins linking it through that property), counted by binary
    /// searches in the runs holding them, no record visited.
    mutating func countRecords(of target: Int64, originClass: UInt32, property: UInt32) throws(FiefError) -> Int {
        let wanted = Backlinks.Record(target: target, originClass: originClass, property: property, origin: 0)
        guard var index = try place(wanted) else { return 0 }
        var total = 0
        while let current = run {
            let end = current.upperBound(target: wanted.target, pair: wanted.pair, from: index)
            total += end - index
            // The records may go on in the next run.
            if end < current.count { return total }
            guard try nextRun() != nil else { return total }
            index = 0
        }
        return total
    }
}
