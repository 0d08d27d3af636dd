import FiefStorage

/// Where the elements of value results come from: a collection of values
/// (`CollectionRef`: a list or set of values, a map's values in key order,
/// a nested list or dictionary's values).  Each kind of collection says how
/// to read its elements in place, in its own order, and which column its
/// changes stamp; value results need nothing else.
extension CollectionRef {
    /// The elements as `realm` sees them now (the owner must exist).
    func elements(_ realm: Realm) throws(FiefError) -> ValueElements {
        if isNested { return ValueElements(.entries(try realm.nestedEntries(self), isSet: false, .mixed)) }
        let table = try realm.table(table)
        if kind == .list {
            let column = try realm.listColumn(table, property)
            try realm.requireLive(table, owner)
            return ValueElements(.list(try realm.listState(table, column, owner: owner), table))
        }
        let column = try table.column(property)
        try realm.requireLive(table, owner)
        let isSet = column.collection == .set
        let dbi = isSet ? try table.setDatabase(column.key) : try table.mapDatabase(column.key)
        return ValueElements(.entries(try realm.collectionEntries(id, dbi, sealed: column.key), isSet: isSet, column.elementType))
    }

    /// Whether results evaluated at `stamp` still hold: nothing changed the
    /// collection (its owner's column counts every change) or its owner.
    @inline(__always)
    func isUnchanged(_ realm: Realm, since stamp: UInt64) -> Bool {
        realm.isUnchanged(since: stamp, table: table, columns: [property])
    }

    /// The elements described as a property named "self": their type and
    /// whether they may be null.
    func element(_ realm: Realm) throws(FiefError) -> Property {
        let table = try realm.table(table)
        let property = try table.property(property)
        // Mixed elements may always be null.
        let nullable = property.isNullable || property.type == .mixed
        return Property(name: "self", type: property.type, flags: nullable ? .nullable : [])
    }

    /// "the values of list 'Person.scores'", for messages.
    func describe(_ realm: Realm) -> String {
        let table = try? realm.table(table)
        let className = table?.objectClass.name ?? "#\(self.table)"
        let name = (try? table?.property(property).name) ?? "#\(property)"
        if isNested { return "the values of a collection nested in '\(className).\(name)'" }
        return "the values of \(kind.name) '\(className).\(name)'"
    }
}

/// The elements of a collection of values as one snapshot or write
/// transaction sees them, read in place: strings and binaries are views.
struct ValueElements {
    enum Storage {
        case list(ListState, Table)
        /// A set's or map's entries (decoded as elements or values).
        case entries(CollectionEntries, isSet: Bool, PropertyType)
    }

    let storage: Storage

    init(_ storage: Storage) { self.storage = storage }

    var count: Int {
        switch storage {
        case .list(let state, _): return state.count
        case .entries(let read, _, _): return read.entries.count
        }
    }

    /// Element `index` (0 ≤ index < count).
    @inline(__always)
    func value(_ index: Int) throws(FiefError) -> Value {
        switch storage {
        case .list(let state, let table): return try state.element(try state.value(index, table: table), table)
        case .entries(let read, let isSet, let type): return try ValueElements.decode(read.entries[index], isSet: isSet, type)
        }
    }

    private static func decode(_ entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer), isSet: Bool, _ type: PropertyType) throws(FiefError) -> Value {
        let value = isSet ? SetStore.storedElement(entry.key, entry.value, type: type, linkTarget: 0) : MixedCoding.decode(entry.value)
        guard let value else { throw FiefError(.fileCorrupt, "a stored \(isSet ? "set element" : "map value") cannot be read: the file is damaged") }
        return value
    }

    /// Every element with its index, in order.
    func forEach(_ body: (Int, Value) throws(FiefError) -> Void) throws(FiefError) {
        switch storage {
        case .list(let state, let table):
            var index = 0
            if state.isMixed {
                // Each element coded (`MixedCoding`): decoded in place.
                for s in 0..<state.segments.count {
                    if let values = state.segments[s].values {
                        for v in values { try body(index, try state.element(v, table)); index += 1 }
                    } else {
                        let reader = try state.reader(s, table: table)
                        for o in 0..<reader.count { try body(index, try state.element(reader.value(o), table)); index += 1 }
                    }
                }
                return
            }
            for s in 0..<state.segments.count {
                if let values = state.segments[s].values {
                    for v in values { try body(index, v); index += 1 }
                } else {
                    let reader = try state.reader(s, table: table)
                    for o in 0..<reader.count { try body(index, reader.value(o, linkTarget: state.linkTarget)); index += 1 }
                }
            }
        case .entries(let read, let isSet, let type):
            for (index, entry) in read.entries.enumerated() { try body(index, try ValueElements.decode(entry, isSet: isSet, type)) }
        }
    }
}

/// Results of values (see `Results`): the elements of a collection of
/// values (a list of ints, of optional strings, ...), all of them or those
/// matching every filter (predicates over `self`), in the collection's
/// order, then ordered by the stages (by value: the one key path is
/// "self").  Its rows are positions in the collection.  It evaluates when
/// first read and again whenever the collection or its owner changed (the
/// realm's stamps).  Unfiltered and without stages, it reads the
/// collection directly and keeps nothing.
public final class ValueResults: Results, @unchecked Sendable {
    let source: CollectionRef
    /// The elements' type and nullability (a property named "self").
    public let element: Property

    /// The values of list `property` of object `owner` of class `ownerClass`
    /// (a list of values), in list order, live.
    public convenience init(realm: Realm, list property: UInt32, of owner: Int64, in ownerClass: UInt32) throws(FiefError) {
        try realm.checkReadable()
        let table = try realm.table(ownerClass)
        let column = try table.column(property)
        let name = "'\(table.objectClass.name).\((try? table.property(property).name) ?? "")'"
        guard column.collection != .none else { throw FiefError(.invalidArgument, "\(name) is not a list, set or map") }
        guard column.elementType != .link else {
            throw FiefError(.invalidArgument, "\(name) is a \(column.collection.name) of objects, not of values: its results are objects")
        }
        try realm.requireLive(table, owner)
        let kind: CollectionRef.Kind = column.collection == .list ? .list : column.collection == .set ? .set : .map
        let source = CollectionRef(kind, table: ownerClass, owner: owner, property: property)
        self.init(realm: realm, source: source, element: try source.element(realm), filters: [], stages: [])
    }

    /// Live results of the elements of nested list or dictionary `ref`.
    public convenience init(realm: Realm, nested ref: CollectionRef) throws(FiefError) {
        try realm.checkReadable()
        _ = try realm.nestedEntries(ref)
        let source = ref
        self.init(realm: realm, source: source, element: try source.element(realm), filters: [], stages: [])
    }

    init(realm: Realm, source: CollectionRef, element: Property, filters: [CompiledQuery], stages: [OrderingStage]) {
        self.source = source
        self.element = element
        super.init(realm: realm, filters: filters, stages: stages, holdsObjects: false, sourceClass: source.table)
    }

    // MARK: Element kind

    override public var elementType: (type: PropertyType, isNullable: Bool) { (element.type, element.isNullable) }

    override func with(filters: [CompiledQuery], stages: [OrderingStage], realm: Realm) -> Results {
        valueResults(filters: filters, stages: stages, realm: realm)
    }

    /// `with(filters:stages:realm:)`, typed: these values' results.
    func valueResults(filters: [CompiledQuery], stages: [OrderingStage], realm: Realm) -> ValueResults {
        ValueResults(realm: realm, source: source, element: element, filters: filters, stages: stages)
    }

    override func compileFilter(_ predicate: String, _ arguments: [QueryArgument]) throws(FiefError) -> (CompiledQuery, [QueryOrderingStage]) {
        let expression = try realm.queryCache.parse(predicate)
        let query = try QueryCompiler.compileElements(expression.predicate, element: element, description: source.describe(realm),
                                                      tableKey: source.table, arguments: try expression.formatting(arguments))
        return (query, expression.ordering)
    }

    /// The key path "self": the element itself.
    private var elementPath: ResolvedKeyPath {
        ResolvedKeyPath(links: [], table: source.table, column: source.property, type: element.type, isNullable: element.isNullable, text: "self")
    }

    /// A sort takes the one key path "self" (and so replaces a sort
    /// directly before it), a distinct "self" alone.
    override func resolve(_ stage: ResultsStage) throws(FiefError) -> OrderingStage {
        switch stage {
        case .sort(let keys):
            if keys.isEmpty { return .sort([]) }
            guard keys.count == 1, keys[0].keyPath == "self" else {
                let given = keys.map { "'\($0.keyPath)'" }.joined(separator: ", ")
                throw FiefError(.queryInvalid, "cannot sort \(source.describe(realm)) by \(given): values sort by 'self' alone")
            }
            return .sort([(elementPath, keys[0].ascending)])
        case .distinct(let keyPaths):
            if keyPaths.isEmpty { return .distinct([]) }
            guard keyPaths == ["self"] else {
                let given = keyPaths.map { "'\($0)'" }.joined(separator: ", ")
                throw FiefError(.queryInvalid, "cannot distinct \(source.describe(realm)) by \(given): values are distinct by 'self' alone")
            }
            return .distinct([elementPath])
        case .limit(let count):
            return .limit(try OrderingStage.checkLimit(count))
        }
    }

    /// The elements at positions `rows`, row by row (views into the
    /// collection).  One pass over the collection reads them: straight when
    /// `rows` ascends, through a map from position to row otherwise.
    override func sortColumn(_ path: ResolvedKeyPath, ascending: Bool, rows: UnsafeBufferPointer<Int64>, rowsAscend: Bool) throws(FiefError) -> SortColumn {
        let elements = try source.elements(realm)
        let n = rows.count
        let column = SortColumn(type: element.type, count: n, ascending: ascending)
        if rowsAscend {
            var row = 0
            try elements.forEach { (i, v) throws(FiefError) in
                if row < n && rows[row] == Int64(i) {
                    column.store(row, v)
                    row += 1
                }
            }
            return column
        }
        var rowAt = [Int32](repeating: -1, count: elements.count)
        for row in 0..<n { rowAt[Int(rows[row])] = Int32(row) }
        try elements.forEach { (i, v) throws(FiefError) in
            let row = rowAt[i]
            if row >= 0 { column.store(Int(row), v) }
        }
        return column
    }

    /// The elements sorted by value (the key path "self").
    public func sorted(ascending: Bool) throws(FiefError) -> ValueResults {
        try applying([.sort([SortKeyPath("self", ascending: ascending)])])
    }

    // MARK: Reading

    override public func count() throws(FiefError) -> Int {
        let elements = try evaluate()
        return isDirect ? elements.count : rows.count
    }

    /// The element at `index` (a view for strings and binaries).
    public func value(at index: Int) throws(FiefError) -> Value {
        let elements = try evaluate()
        let count = isDirect ? elements.count : rows.count
        guard index >= 0, index < count else {
            throw FiefError(.indexOutOfBounds, "index \(index) is out of bounds (the results hold \(count) value\(count == 1 ? "" : "s"))")
        }
        return try elements.value(isDirect ? index : Int(rows[index]))
    }

    /// The position of the first element equal to `value`, if any (a value
    /// of another type is never found; ints and floats compare as the
    /// element type, as a list's find does; mixed elements as Realm compares
    /// mixed values: numbers by value across types, nothing else across types).
    public func index(of value: Value) throws(FiefError) -> Int? {
        let elements = try evaluate()
        guard let wanted = try? value.coerced(for: element, className: "") else { return nil }
        let mixed = element.type == .mixed
        // A nested list or dictionary is a new, empty one where it is
        // written: equal to no element (as fief_list_index_of has it).
        if mixed && wanted.nestedID != nil { return nil }
        @inline(__always) func same(_ v: Value) -> Bool { mixed ? MixedOrder.equal(v, wanted) : v.isSame(as: wanted) }
        if isDirect {
            var found: Int?
            try elements.forEach { (i, v) throws(FiefError) in
                if found == nil && same(v) { found = i }
            }
            return found
        }
        for k in 0..<rows.count where same(try elements.value(Int(rows[k]))) { return k }
        return nil
    }

    /// min, max, sum or average of the elements (see `AggregateOperation`).
    public func aggregate(_ operation: AggregateOperation) throws(FiefError) -> Value {
        try Aggregator.check(operation, element.type, subject: source.describe(realm))
        let elements = try evaluate()
        var aggregator = Aggregator(operation, element.type)
        if isDirect {
            try elements.forEach { (_, v) throws(FiefError) in aggregator.add(v) }
        } else {
            for position in rows { aggregator.add(try elements.value(Int(position))) }
        }
        return aggregator.result()
    }

    /// The aggregate of the elements: values have no properties, so
    /// `property` is not read.
    override public func aggregate(_ operation: AggregateOperation, property: UInt32) throws(FiefError) -> Value {
        try aggregate(operation)
    }

    // MARK: Evaluation

    /// Every position, in order, when the results are the collection itself.
    override func evaluateRows() throws(FiefError) {
        let elements = try evaluate()
        if isDirect { rows = Array(0..<Int64(elements.count)) }
    }

    /// Neither filtered nor ordered: the collection itself.
    @inline(__always)
    private var isDirect: Bool { filters.isEmpty && stages.isEmpty }

    /// The collection now, with `rows` (positions) brought up to date.
    private func evaluate() throws(FiefError) -> ValueElements {
        try realm.checkReadable()
        let elements = try source.elements(realm)
        if isDirect || source.isUnchanged(realm, since: evaluatedStamp) { return elements }
        rows.removeAll(keepingCapacity: true)
        if filters.isEmpty {
            rows.append(contentsOf: 0..<Int64(elements.count))
        } else {
            let mixed = element.type == .mixed
            try elements.forEach { (i, v) throws(FiefError) in
                for query in filters where !QueryEvaluator.matches(query.root, v, mixed: mixed) { return }
                rows.append(Int64(i))
            }
        }
        try applyStages()
        evaluatedStamp = realm.stamp
        return elements
    }
}

extension QueryEvaluator {
    /// Whether one element of a collection of values matches `node`, a
    /// predicate compiled with `QueryCompiler.compileElements`; `mixed`:
    /// the elements are mixed values (compared as `compareMixed` does).
    static func matches(_ node: QueryNode, _ value: Value, mixed: Bool) -> Bool {
        switch node {
        case .constant(let b): return b
        case .and(let children):
            for child in children where !matches(child, value, mixed: mixed) { return false }
            return true
        case .or(let children):
            for child in children where matches(child, value, mixed: mixed) { return true }
            return false
        case .not(let inner): return !matches(inner, value, mixed: mixed)
        case .compare(_, let op, let constant, let options):
            if mixed { return withExtendedLifetime(constant) { compareMixed(value, op, valueOf(constant), options) } }
            return compare(value, op, constant, options)
        case .compareProperties(_, let op, _, let options):
            return mixed ? compareMixed(value, op, value, options) : compareValues(value, op, value, options)
        case .constantMatches(let c, let op, _, let options):
            return withExtendedLifetime(c) { constant(valueOf(c), op, matches: value, options) }
        case .fullText(let predicate):
            return predicate.search.matches(tokens: FullTextTokenizer.tokens(of: value))
        case .graph:
            // Never bound over values: `self` reaches no other object.
            return false
        }
    }
}

extension QueryEvaluator {
    /// A mixed element `a` against `b` as realm-core compares mixed values
    /// in queries: null equals only null; the string operators and [c]/[d]
    /// apply to a string against a string and a binary against a binary;
    /// otherwise values compare only within their group (numbers across
    /// int, float, double and decimal by value; `true` is not `1`, `"1"` is
    /// not `1`): across groups == is false and != true, and <, <=, >, >=
    /// are false; so for a NaN.
    static func compareMixed(_ a: Value, _ op: QueryOperator, _ b: Value, _ options: QueryStringOptions) -> Bool {
        if a.isNull || b.isNull { return compareValues(a, op, b, options) }
        switch (a, b) {
        case (.string(let x), .string(let y)), (.binary(let x), .binary(let y)):
            return StringMatching.compare(x, op, y, options)
        default:
            switch op {
            case .beginsWith, .endsWith, .contains, .like: return false
            default: break
            }
            guard MixedOrder.rank(a) == MixedOrder.rank(b) else { return op == .notEqual }
            // A NaN has no order and equals nothing here (as for typed numbers).
            if MixedOrder.isNaN(a) || MixedOrder.isNaN(b) { return op == .notEqual }
            return ordered(MixedOrder.compare(a, b), op)
        }
    }
}
