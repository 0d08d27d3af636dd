import FiefStorage

/// Results: a lazy, live view of the elements of one source, all of them
/// or those matching every filter, then ordered by stages (sorts, distincts
/// and limits, left to right: see `ResultsStage`).  One kind with two kinds
/// of elements:
///
/// * `ObjectResults`: objects (of a class, of a list, set or map of links,
///   or linking objects), each row an object key;
/// * `ValueResults`: the values of a list, set or map of values, or of a
///   collection nested in a mixed value, each row a position in the
///   collection (the stages' one key path is "self").
///
/// What does not depend on the elements is written here once: chaining
/// filters and stages, the stages themselves (`applyStages`), validity,
/// resolving in another realm and the query's text.  A subclass says how
/// its elements are found, read and compared (the overrides marked
/// "Element kind").  Evaluated, results hold their rows in order
/// (`rows`) as of the realm's stamp `evaluatedStamp`.
public class Results: @unchecked Sendable {
    public let realm: Realm
    let filters: [CompiledQuery]
    /// What comes after the filters, in order (see `ResultsStage`).
    let stages: [OrderingStage]
    /// The rows of the last evaluation, in order: object keys, or
    /// positions in the collection.
    @exclusivity(unchecked) final var rows: [Int64] = []
    /// The stamp `rows` was evaluated at (0: never).
    @exclusivity(unchecked) final var evaluatedStamp: UInt64 = 0
    /// When set, a sort keeps its rows' order keys in `lastOrderKeys` (a
    /// results notifier's sorted update starts from them instead of
    /// reading every row's value again).
    final var keepsOrderKeys = false
    /// The order keys (`SortColumn.orderKey` of the first sort key) of
    /// `rows` as the last sort left them, when `keepsOrderKeys` and no
    /// stage changed the rows after it; else nil.
    final var lastOrderKeys: [UInt64]?

    /// Whether the elements are objects (`ObjectResults`) or values (`ValueResults`).
    public final let holdsObjects: Bool
    /// The class these results need to exist: the objects' class, or the
    /// class of the collection's owner.
    final let sourceClass: UInt32

    init(realm: Realm, filters: [CompiledQuery], stages: [OrderingStage], holdsObjects: Bool, sourceClass: UInt32) {
        self.realm = realm
        self.filters = filters
        self.stages = stages
        self.holdsObjects = holdsObjects
        self.sourceClass = sourceClass
    }

    // MARK: Element kind (each subclass overrides these)

    /// The elements' type and whether they may be null: `.link` and not
    /// null for objects.
    public var elementType: (type: PropertyType, isNullable: Bool) { preconditionFailure("every results is ObjectResults or ValueResults") }

    /// Same elements, other filters, stages or realm.
    func with(filters: [CompiledQuery], stages: [OrderingStage], realm: Realm) -> Results {
        preconditionFailure("every results is ObjectResults or ValueResults")
    }

    /// `predicate` compiled for these elements, with the stages it ends with.
    func compileFilter(_ predicate: String, _ arguments: [QueryArgument]) throws(FiefError) -> (CompiledQuery, [QueryOrderingStage]) {
        preconditionFailure("every results is ObjectResults or ValueResults")
    }

    /// `stage` with its key paths resolved for these elements.
    func resolve(_ stage: ResultsStage) throws(FiefError) -> OrderingStage {
        preconditionFailure("every results is ObjectResults or ValueResults")
    }

    /// The values at the end of `path` for `rows`, read in place;
    /// `rowsAscend`: `rows` is in key (or collection) order.
    func sortColumn(_ path: ResolvedKeyPath, ascending: Bool, rows: UnsafeBufferPointer<Int64>, rowsAscend: Bool) throws(FiefError) -> SortColumn {
        preconditionFailure("every results is ObjectResults or ValueResults")
    }

    /// How many elements these results hold now.
    public func count() throws(FiefError) -> Int { preconditionFailure("every results is ObjectResults or ValueResults") }

    /// Bring `rows` up to date: every row, in order.
    func evaluateRows() throws(FiefError) { preconditionFailure("every results is ObjectResults or ValueResults") }

    /// min, max, sum or average (see `AggregateOperation`) of property
    /// `property` of the objects, or of the values (`property` unused).
    public func aggregate(_ operation: AggregateOperation, property: UInt32) throws(FiefError) -> Value {
        preconditionFailure("every results is ObjectResults or ValueResults")
    }

    // MARK: Chaining

    /// The elements of these results matching `predicate` (Realm's query
    /// language; for values, `self` stands for the element).  As in Realm,
    /// the filter joins the earlier ones, before the stages: filtering
    /// sorted (or distinct) results keeps their order (or distinct), and
    /// results with a limit cannot be filtered.  Stages the predicate ends
    /// with (`SORT(...)`) follow.
    public final func filtered(_ predicate: String, arguments: [QueryArgument]) throws(FiefError) -> Self {
        try realm.checkReadable()
        try Results.refuseFilterAfterLimit(stages.contains { $0.hasLimit })
        let (query, ordering) = try compileFilter(predicate, arguments)
        let filtered = unsafeDowncast(with(filters: filters + [query], stages: stages, realm: realm), to: Self.self)
        return ordering.isEmpty ? filtered : try filtered.applying(QueryCompiler.stages(ordering))
    }

    /// The error for filtering results with a limit, which Realm refuses too.
    static func refuseFilterAfterLimit(_ hasLimit: Bool) throws(FiefError) {
        if hasLimit {
            throw FiefError(.queryInvalid, "cannot filter results that have a limit: a filter applies before every sort, distinct and limit, so filter first, then limit")
        }
    }

    /// These results with `stages` after their own, applied left to right
    /// (see `ResultsStage`).  Key paths are checked now (against the schema
    /// for objects; values take "self" alone).
    ///
    ///     try dogs.applying([.sort([SortKeyPath("owner.name")]), .distinct(["owner.name"]), .limit(10)])
    ///
    /// - Throws: `.queryInvalid` for a key path that names no property, passes
    ///   through a list, set, map or a property that is not a link, or ends
    ///   at a link or collection (for values: any key path but "self");
    ///   `.invalidArgument` for a negative limit.
    public final func applying(_ stages: [ResultsStage]) throws(FiefError) -> Self {
        try realm.checkReadable()
        _ = try realm.table(sourceClass)
        var combined = self.stages
        for stage in stages {
            combined = OrderingStage.append(try resolve(stage), to: combined)
        }
        return unsafeDowncast(with(filters: filters, stages: combined, realm: realm), to: Self.self)
    }

    /// These results sorted by `keys` (key paths and directions, the first
    /// most significant); ties keep the previous order, so earlier sorts act
    /// as later keys.  Values sort by the one key "self".
    public final func sorted(by keys: [(String, Bool)]) throws(FiefError) -> Self {
        try applying([.sort(keys.map { SortKeyPath($0.0, ascending: $0.1) })])
    }

    /// The first element of these results for each distinct tuple of
    /// values of `keyPaths`, in order (see `ResultsStage.distinct`).
    public final func distinct(by keyPaths: [String]) throws(FiefError) -> Self {
        try applying([.distinct(keyPaths)])
    }

    /// The first `count` elements of these results (count ≥ 0).
    public final func limited(to count: Int) throws(FiefError) -> Self {
        try applying([.limit(count)])
    }

    /// The same results in another realm of the same file.
    public final func resolved(in target: Realm) throws(FiefError) -> Self {
        guard target.environment === realm.environment else {
            throw FiefError(.invalidArgument, "the target realm is another file")
        }
        try target.checkReadable()
        _ = try target.table(sourceClass)
        return unsafeDowncast(with(filters: filters, stages: stages, realm: target), to: Self.self)
    }

    /// The rows now, in order (object keys, or positions in the
    /// collection), and the realm's stamp they are the rows of: the same
    /// answer for both kinds of elements, which a change notifier compares
    /// from one stamp to the next.
    public final func currentRows() throws(FiefError) -> (rows: [Int64], stamp: UInt64) {
        try evaluateRows()
        return (rows, realm.stamp)
    }

    /// Whether the realm is open and the source's class exists.
    public final var isValid: Bool { !realm.isClosed && realm.hasTable(sourceClass) }

    // MARK: Element kind, checked

    /// These results as results of objects, or the error saying that
    /// `operation` needs objects (`instead`: what to read values with).
    /// Inlined into the exports: the results stay borrowed, no reference
    /// is taken.
    @inlinable @inline(__always)
    public final func objects(for operation: StaticString, instead: StaticString = "read them with fief_results_get_value") throws(FiefError) -> ObjectResults {
        if !holdsObjects { throw Results.needsObjects(operation, instead) }
        return unsafeDowncast(self, to: ObjectResults.self)
    }

    /// These results as results of values, or the error saying that
    /// `operation` needs values.
    @inlinable @inline(__always)
    public final func values(for operation: StaticString) throws(FiefError) -> ValueResults {
        if holdsObjects { throw Results.needsValues(operation) }
        return unsafeDowncast(self, to: ValueResults.self)
    }

    @usableFromInline
    static func needsObjects(_ operation: StaticString, _ instead: StaticString) -> FiefError {
        FiefError(.invalidArgument, "\(operation) needs results of objects, but these results hold values (made from a list, set or map of values): \(instead)")
    }

    @usableFromInline
    static func needsValues(_ operation: StaticString) -> FiefError {
        FiefError(.invalidArgument, "\(operation) needs results of values (made from a list, set or map of values), but these results hold objects: read them with fief_results_get_object or fief_results_get_values")
    }

    // MARK: Stages

    /// Whether a stage may leave elements out (a distinct or a limit).
    final var narrows: Bool { stages.contains { $0.narrows } }

    /// Apply the stages to `rows` (the matches, in key or collection order),
    /// left to right.
    final func applyStages() throws(FiefError) {
        var rowsAscend = true
        lastOrderKeys = nil
        for stage in stages {
            switch stage {
            case .sort(let keys):
                if rows.count < 2 { continue }
                try sortRows(keys, rowsAscend: rowsAscend)
                rowsAscend = false
            case .distinct(let paths):
                try removeDuplicateRows(paths, rowsAscend: rowsAscend)
                lastOrderKeys = nil
            case .limit(let count):
                if rows.count > count { rows.removeLast(rows.count - count) }
                lastOrderKeys = nil
            }
        }
    }

    private func sortColumns(_ keys: [(path: ResolvedKeyPath, ascending: Bool)], rowsAscend: Bool) throws(FiefError) -> [SortColumn] {
        var columns: [SortColumn] = []
        try rows.withUnsafeBufferPointer { (rows) throws(FiefError) in
            for key in keys {
                columns.append(try sortColumn(key.path, ascending: key.ascending, rows: rows, rowsAscend: rowsAscend))
            }
        }
        return columns
    }

    /// Sort `rows` by `sortKeys`; stable (ties keep their order).
    private func sortRows(_ sortKeys: [(path: ResolvedKeyPath, ascending: Bool)], rowsAscend: Bool) throws(FiefError) {
        let n = rows.count
        let columns = try sortColumns(sortKeys, rowsAscend: rowsAscend)
        let order = UnsafeMutableBufferPointer<Int32>.allocate(capacity: n)
        defer { order.deallocate() }
        for i in 0..<n { order[i] = Int32(i) }
        SortColumn.sort(order, by: columns)
        let old = rows
        for i in 0..<n { rows[i] = old[Int(order[i])] }
        if keepsOrderKeys, let first = columns.first {
            // Kept only if they ascend (a column of NaNs may not sort consistently).
            var keys = [UInt64](repeating: 0, count: n)
            var ascending = true
            for i in 0..<n {
                keys[i] = first.orderKey(Int(order[i]))
                if i > 0 && keys[i] < keys[i - 1] { ascending = false }
            }
            lastOrderKeys = ascending ? keys : nil
        }
    }

    /// Keep, in order, the first of the rows with each tuple of values of
    /// `paths`; objects whose paths cross a null link go.
    private func removeDuplicateRows(_ paths: [ResolvedKeyPath], rowsAscend: Bool) throws(FiefError) {
        let n = rows.count
        if n == 0 { return }
        let columns = try sortColumns(paths.map { ($0, true) }, rowsAscend: rowsAscend)
        var order: [Int32] = []
        order.reserveCapacity(n)
        for row in 0..<n where !columns.contains(where: { $0.crossesNullLink(row) }) { order.append(Int32(row)) }
        var keep = [Bool](repeating: false, count: n)
        order.withUnsafeMutableBufferPointer { order in
            SortColumn.sort(order, by: columns)
            // Equal tuples are neighbours now, each run in row order: its first row stays.
            var start = 0
            while start < order.count {
                keep[Int(order[start])] = true
                var end = start + 1
                while end < order.count && SortColumn.equal(Int(order[start]), Int(order[end]), in: columns) { end += 1 }
                start = end
            }
        }
        var kept = 0
        for row in 0..<n where keep[row] {
            rows[kept] = rows[row]
            kept += 1
        }
        rows.removeLast(n - kept)
    }
}
