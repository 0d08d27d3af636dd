// Key paths into the lists and dictionaries a mixed value nests.
//
// A mixed property (and each element of a list or value of a map of mixed
// values) may hold a list or a dictionary of mixed values, nested to any
// depth (see Nested.swift).  A key path goes on into them after the mixed
// property, as in realm-core (its `Collection::get_any` walk, read for its
// semantics only):
//
//     mixed[0] == 5                 a position of a nested list ([FIRST], [LAST])
//     mixed['key'] == 'x'           a key of a nested dictionary (mixed.key too)
//     mixed['a']['b'][1] > 3        any depth
//     mixed[*] == 1                 every element (or value); ANY, ALL, NONE
//     mixed.@keys == 'k'            at the end: a dictionary's keys
//     mixed['a'].@size > 2          a string's or binary's length, a nested
//                                   collection's size (mixed[SIZE], @count)
//     mixed['a'].@type == 'list'    each value's type ('dictionary', 'collection')
//     list[0]['k'], map.k[1]        through a list or map of mixed values
//     mixed.friend.name             a link met on the way: a property of its object
//
// Each step applies to what the previous one reached: a key to a
// dictionary (or a property name to an object a link reaches), a position
// to a list, [*] to either.  A step meeting anything else (a scalar, null,
// a list for a key, a dictionary for a position) reaches nothing, and a
// position past the end reaches nothing; a missing key at the *last* step
// reads null (as a missing key of a map does), anywhere before it nothing.
// Nothing reached is no match, never an error.
//
// realm-core compares what such a path reads per "group": each walk that
// arrives at the last step (one per value a [*] before it passes, one per
// object a to-many link passes) gives the values it finds there, and the
// object matches when some group satisfies the comparison, quantified
// within the group (`NONE mixed[*][*] == 2`: some inner list holds no 2).
// A group is one value when every step picks one (no [*], no @keys) and it
// found one; otherwise a list, compared element by element against a list
// given with the query when neither side is quantified
// (`mixed[*] == {1, 2, 3}`).  No group at all is compared as an empty list
// (ALL and NONE hold, ANY does not).  Paths through a list of mixed values
// always read lists, as realm-core's do; through a map, when a to-many
// link precedes it.
import FiefStorage

/// A key path's steps into nested collections, after a mixed property or
/// into a list or map of mixed values (a `ValueExpression.Value.nested`).
struct NestedPath {
    /// Where the walk starts, at the class the expression's hops reach.
    enum Origin {
        /// A mixed property holding one value.
        case mixed(Property)
        /// A list of mixed values, walked as a nested list.
        case list(Property)
        /// A map of mixed values, walked as a nested dictionary.
        case map(Property)

        var property: Property {
            switch self {
            case .mixed(let p), .list(let p), .map(let p): return p
            }
        }

        var isCollection: Bool {
            if case .mixed = self { return false }
            return true
        }
    }

    /// One step of the walk.
    enum Step: Equatable {
        /// A dictionary's value under the key, or the property so named of
        /// the object a link reaches.
        case key([UInt8])
        /// A list's element at a position (from 0, or the last).
        case index(ListIndex)
        /// Every element of a list, every value of a dictionary.
        case all
        /// At the end only: a dictionary's keys (unless it has the key
        /// "@keys", whose value it then is, as in realm-core).
        case keys
    }

    let origin: Origin
    /// Possibly none: `mixed.@size`, `mixed.@type` of the value itself.
    let steps: [Step]

    /// Whether every step picks one value at most (realm-core's
    /// "path_only_unary_keys"): then a group found is one value.
    var isUnary: Bool { !steps.contains { $0 == .all || $0 == .keys } }

    /// Whether the path reads any number of values per object (as realm-core
    /// counts it: a path through a list or map of mixed values always).
    var isMany: Bool { origin.isCollection || !isUnary }

    /// The names key steps look up (a dictionary key, or a property of an
    /// object a link reaches), for the columns a query depends on.
    var keyNames: Set<String> {
        var names: Set<String> = []
        for case .key(let key) in steps { names.insert(String(decoding: key, as: UTF8.self)) }
        return names
    }
}

extension ValueExpression {
    /// The nested path the expression reads, if it is one.
    var nestedPath: NestedPath? {
        if case .nested(let path) = value { return path }
        return nil
    }

    /// Whether it reads a nested path (itself, or a term of its arithmetic).
    var readsNested: Bool {
        switch value {
        case .nested: return true
        case .arithmetic(let term):
            var found = false
            term.forEachValue { if $0.readsNested { found = true } }
            return found
        default: return false
        }
    }

    /// Whether realm-core reads it per object a to-many step reaches, one
    /// list for each (a list, set or map of values, or a position or key
    /// of one, behind a to-many step): compared group by group.
    var isGroupedPerObject: Bool {
        guard typeOf == nil, hops.contains(where: { $0.isToMany }) else { return false }
        switch value {
        case .elements, .mapKeys, .mapEntry, .listElement: return true
        default: return false
        }
    }

    /// Whether it is a collection of values as realm-core's `ColumnListBase`
    /// (two of them compared with each other are refused).
    var isValueCollection: Bool {
        switch value {
        case .nested(let path): return path.origin.isCollection
        case .elements, .mapKeys, .listElement, .mapEntry: return true
        default: return false
        }
    }
}

// MARK: - Binding

extension QueryBinder {
    /// The nested path `keyPath` takes at `property` (a mixed property, or a
    /// list or map of mixed values) of `current`, component `position`: nil
    /// when none follows it (the path is an ordinary one there).
    static func nestedPath(_ property: Property, at position: Int, _ keyPath: QueryKeyPath, text: String, _ arguments: [QueryArgument],
                           _ current: Table, hops: [GraphHop], _ realm: Realm) throws(FiefError) -> BoundPath? {
        guard property.type == .mixed else { return nil }
        let components = keyPath.components
        let qualified = "'\(current.objectClass.name).\(property.name)'"
        var steps: [NestedPath.Step] = []
        let origin: NestedPath.Origin
        var rest = position + 1
        switch property.collection {
        case .none:
            // After a mixed value: any step, or only `@size` / `[SIZE]` of the value itself.
            guard rest < components.count || keyPath.suffix == .count else { return nil }
            origin = .mixed(property)
        case .list, .map:
            // A position or key (or [*]) of the collection, then more steps into what it holds.
            guard position + 2 < components.count else { return nil }
            let isMap = property.collection == .map
            switch components[rest] {
            case .values where isMap, .all: steps.append(.all)
            case .keys:
                throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow '@keys'")
            case .property(let name) where isMap: steps.append(.key(Array(name.utf8)))
            case .property:
                return nil   // a property of a list's objects: refused as for any list of values
            default:
                steps.append(try nestedStep(components[rest], text: text, arguments, last: false))
                // A key of a list, a position of a map: as for one selector.
                if case .key = steps[0], !isMap { throw FiefError(.queryInvalid, "key path '\(text)': ['key'] takes a map or a dictionary (\(qualified) is a list)") }
                if case .index = steps[0], isMap { throw FiefError(.queryInvalid, "key path '\(text)': [n] takes a list (\(qualified) is a map: maps are not ordered)") }
            }
            rest += 1
            origin = isMap ? .map(property) : .list(property)
        case .set:
            return nil
        }
        while rest < components.count {
            steps.append(try nestedStep(components[rest], text: text, arguments, last: rest == components.count - 1))
            rest += 1
        }
        let path = NestedPath(origin: origin, steps: steps)
        var described = Property(name: text, type: .mixed, flags: .nullable, key: property.key)
        var measure: ValueMeasure? = nil
        switch keyPath.suffix {
        case nil:
            break
        case .count?:
            // The size of each value reached: a string's or binary's length, a nested collection's size.
            described = Property(name: text, type: .int, flags: .nullable, key: property.key)
            measure = .size
        case .type?:
            throw FiefError(.internal, "'@type' is taken off a key path before it is resolved")
        case .aggregate(let aggregate, _)?:
            // realm-core: "Cannot use aggregate '@max' for this type of property".
            throw FiefError(.queryInvalid, "Realm's query language does not allow '@\(spelling(aggregate))' of a key path into a mixed value ('\(text)'): '@min', '@max', '@sum' and '@avg' apply to a list, set or map property")
        }
        let expression = ValueExpression(hops: hops, lastClass: current.key, value: .nested(path), valueProperty: described, text: text,
                                         measure: measure)
        return BoundPath(expression: expression, lastTable: current)
    }

    /// One step of a nested path.
    private static func nestedStep(_ component: QueryPathComponent, text: String, _ arguments: [QueryArgument], last: Bool) throws(FiefError) -> NestedPath.Step {
        switch component {
        case .property(let name): return .key(Array(name.utf8))
        case .key(let key): return .key(Array(key.utf8))
        // realm-core reads `@values` here as the name it is: a key.
        case .values: return .key(Array("@values".utf8))
        case .index(let n): return .index(.at(n))
        case .first: return .index(.at(0))
        case .last: return .index(.last)
        case .all: return .all
        case .keys:
            guard last else { throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow '@keys'") }
            return .keys
        case .argumentIndex(let n):
            guard n >= 0, n < arguments.count, !arguments[n].isList, arguments[n].values.count == 1 else {
                throw FiefError(.queryArgument, "key path '\(text)': argument \(n) is missing or a list; [$\(n)] takes one key or position")
            }
            switch arguments[n].values[0] {
            case .string(let key): return .key(Array(key))
            case .int(let i) where i >= 0: return .index(.at(Int(i)))
            default:
                throw FiefError(.queryArgument, "key path '\(text)': argument \(n) is a \(arguments[n].values[0].typeName); [$\(n)] takes a string key or a position (an int from 0) in a mixed value")
            }
        case .backlinks, .allBacklinks:
            throw FiefError(.queryInvalid, "key path '\(text)': '@links' follows an object, not a value nested in a mixed value (a link met there is followed by naming a property of its object: 'mixed.friend.name')")
        }
    }

    /// A comparison one side of which (at least) reads a nested path: a
    /// `NestedComparison` over the groups each side reads per object.
    static func nestedComparison(_ left: Side, _ op: QueryOperator, _ right: Side, _ options: QueryStringOptions,
                                 _ scope: Scope) throws(FiefError) -> QueryNode {
        enum Spec {
            case path(ValueExpression, QueryQuantifier?)
            case given([ListElement], isList: Bool, QueryQuantifier?)
        }
        func spec(_ side: Side) throws(FiefError) -> Spec {
            switch side {
            case .path(let path, let quantifier): return .path(path.expression, quantifier)
            case .own(let operand): return .path(try ownExpression(operand, scope), nil)
            case .value(let operand): return .given([.operand(operand)], isList: false, nil)
            case .values(let elements, let quantifier): return .given(elements, isList: true, quantifier)
            }
        }
        let a = try spec(left), b = try spec(right)
        for case .path(let expression, let quantifier?) in [a, b] where !allowsQuantifier(expression) {
            try refuseQuantifier(quantifier, expression.text)
        }
        for case .path(let expression, _) in [a, b] where expression.typeOf != nil && (op != .equal && op != .notEqual || !options.isEmpty) {
            throw FiefError(.queryInvalid, "'\(expression.text)' compares with type names (or another '@type') with == and != only, without [c]")
        }
        var dependencies: [UInt32: Set<UInt32>] = [:]
        func operand(_ spec: Spec, other: Spec, onLeft: Bool) throws(FiefError) -> (NestedComparison.Operand, QueryQuantifier?) {
            switch spec {
            case .path(let expression, let quantifier):
                collectDependencies(expression, scope.realm, into: &dependencies)
                return (.path(expression), quantifier)
            case .given(let elements, let isList, let quantifier):
                guard case .path(let path, _) = other else {
                    throw FiefError(.queryInvalid, "cannot compare values given with the query with each other: one side of \(QueryCompiler.name(op)) must be a property or key path")
                }
                var nodes: [QueryNode] = []
                for element in elements {
                    nodes.append(try givenPredicate(element, op, options, path, scope, givenFirst: onLeft))
                }
                return (.given(nodes, isList: isList), quantifier)
            }
        }
        if case .path(let x, _) = a, case .path(let y, _) = b {
            if (x.typeOf == nil) != (y.typeOf == nil) {
                throw FiefError(.queryInvalid, "'@type' compares with a type name or another '@type', not with a value ('\(x.text)' and '\(y.text)')")
            }
            if x.typeOf != nil && (op != .equal && op != .notEqual || !options.isEmpty) {
                throw FiefError(.queryInvalid, "'@type' compares with == and != only, without [c]")
            }
            if x.isValueCollection && y.isValueCollection {
                // realm-core: "Ordered comparison between two primitive lists is not implemented yet".
                throw FiefError(.queryInvalid, "Realm's query language does not allow comparing two collections of values with each other ('\(x.text)' and '\(y.text)'): compare one with a list of values ({...}), or a path into a mixed property with it")
            }
            try QueryCompiler.checkPropertyPair(x.valueProperty, op, y.valueProperty, scope.target)
        }
        let (l, lq) = try operand(a, other: b, onLeft: true)
        let (r, rq) = try operand(b, other: a, onLeft: false)
        var mixed = false
        for case .path(let expression) in [l, r] where expression.isMixed { mixed = true }
        let comparison = NestedComparison(left: l, leftQuantifier: lq, op: op, right: r, rightQuantifier: rq, options: options, mixed: mixed)
        return .graph(GraphNode(.nested(comparison), dependencies: dependencies))
    }

    /// One value given with the query as a predicate over the values of
    /// `path` (`self op c`, or `c op self` when given first).
    private static func givenPredicate(_ element: ListElement, _ op: QueryOperator, _ options: QueryStringOptions, _ path: ValueExpression,
                                       _ scope: Scope, givenFirst: Bool) throws(FiefError) -> QueryNode {
        let p = path.valueProperty
        if path.typeOf != nil {
            return try typeNamePredicate(path, op, element, scope)
        }
        let target = QueryTarget.elements(p, description: "the values of '\(path.text)'")
        let (c, argument) = try constant(of: element, for: p, scope)
        guard fits(p, c) else { return .constant(op == .notEqual) }
        return try QueryCompiler.compareConstant(p, op, c, options, target, argument: argument, constantFirst: givenFirst)
    }

    /// Whether a quantifier may stand before `expression`: a path into a
    /// mixed value takes one (realm-core: "having a path implies a
    /// collection"); the mixed value itself (its size, its type) only
    /// through a to-many step, as any other value.
    private static func allowsQuantifier(_ expression: ValueExpression) -> Bool {
        switch expression.value {
        case .nested(let path): return !path.steps.isEmpty || expression.isMany
        case .arithmetic(let term) where expression.readsNested:
            var allows = false
            term.forEachValue { if $0.readsNested && allowsQuantifier($0) { allows = true } }
            return allows
        default: return expression.isMany
        }
    }
}

/// A comparison reading a nested path, evaluated per object over the
/// groups each side reads (see the top of this file): the object matches
/// when some pair of groups compares true.
final class NestedComparison {
    enum Operand {
        /// Values read per object (a nested path, or any other expression:
        /// one group of its values).
        case path(ValueExpression)
        /// Values given with the query, each as a predicate over the other
        /// side's values (`self op c`, or `c op self` given first).
        case given([QueryNode], isList: Bool)
    }

    let left: Operand
    let leftQuantifier: QueryQuantifier?
    let op: QueryOperator
    let right: Operand
    let rightQuantifier: QueryQuantifier?
    let options: QueryStringOptions
    /// Whether values read on both sides compare as mixed values.
    let mixed: Bool

    init(left: Operand, leftQuantifier: QueryQuantifier?, op: QueryOperator, right: Operand, rightQuantifier: QueryQuantifier?,
         options: QueryStringOptions, mixed: Bool) {
        self.left = left
        self.leftQuantifier = leftQuantifier
        self.op = op
        self.right = right
        self.rightQuantifier = rightQuantifier
        self.options = options
        self.mixed = mixed
    }

    /// What the comparison answers for an object that is not there (a null
    /// link's): nothing nested is reached; the value itself is null.
    var matchesNullObject: Bool {
        func groups(_ operand: Operand) -> [NestedGroup] {
            guard case .path(let expression) = operand else { return [] }
            if let path = expression.nestedPath {
                if !path.steps.isEmpty { return [] }
                return [NestedGroup(values: [NestedReader.final(.null, expression, count: nil)], isList: false)]
            }
            if expression.readsNested { return [] }
            if expression.isMany { return [NestedGroup(values: [], isList: true)] }
            return [NestedGroup(values: [expression.valueOfNullObject], isList: false)]
        }
        return matches(groups(left), groups(right))
    }

    /// Whether the groups read (none for a side given with the query)
    /// compare true: some pair of them does.  No group is one empty list.
    func matches(_ leftGroups: [NestedGroup], _ rightGroups: [NestedGroup]) -> Bool {
        let empty = [NestedGroup(values: [], isList: true)]
        let ls = leftGroups.isEmpty ? empty : leftGroups, rs = rightGroups.isEmpty ? empty : rightGroups
        for r in rs {
            for l in ls where compare(l, r) { return true }
        }
        return false
    }

    /// One pair of groups, as realm-core compares two values or lists.
    private func compare(_ l: NestedGroup, _ r: NestedGroup) -> Bool {
        let (lCount, lList) = shape(left, l), (rCount, rList) = shape(right, r)
        if lList && rList && leftQuantifier == nil && rightQuantifier == nil {
            // Element by element, in order (realm-core's rule): lists of
            // different lengths match only for !=; otherwise every position
            // must match, for != too (every position differs).
            if lCount != rCount { return op == .notEqual }
            for i in 0..<lCount where !pair(l, i, r, i) { return false }
            return true
        }
        if !lList && !rList && leftQuantifier == nil && rightQuantifier == nil {
            return pair(l, 0, r, 0)
        }
        // The written left side outside, its quantifier over its values; ANY when none is written.
        return NestedComparison.quantified(leftQuantifier ?? .any, lCount) { i in
            NestedComparison.quantified(rightQuantifier ?? .any, rCount) { j in pair(l, i, r, j) }
        }
    }

    /// How many values a side has, and whether they are a list.
    private func shape(_ operand: Operand, _ group: NestedGroup) -> (Int, Bool) {
        switch operand {
        case .path: return (group.values.count, group.isList || group.values.isEmpty)
        case .given(let nodes, let isList): return (nodes.count, isList)
        }
    }

    /// Value `i` of the left against value `j` of the right.
    private func pair(_ l: NestedGroup, _ i: Int, _ r: NestedGroup, _ j: Int) -> Bool {
        switch (left, right) {
        case (.given(let nodes, _), .path):
            return QueryEvaluator.matches(nodes[i], r.values[j], mixed: mixed)
        case (.path, .given(let nodes, _)):
            return QueryEvaluator.matches(nodes[j], l.values[i], mixed: mixed)
        case (.path, .path):
            let x = l.values[i], y = r.values[j]
            return mixed ? QueryEvaluator.compareMixed(x, op, y, options) : QueryEvaluator.compareValues(x, op, y, options)
        case (.given, .given):
            return false
        }
    }

    private static func quantified(_ quantifier: QueryQuantifier, _ count: Int, _ test: (Int) -> Bool) -> Bool {
        switch quantifier {
        case .any:
            for i in 0..<count where test(i) { return true }
            return false
        case .all:
            for i in 0..<count where !test(i) { return false }
            return true
        case .none:
            for i in 0..<count where test(i) { return false }
            return true
        }
    }

    // MARK: Evaluation

    /// The objects of `cluster` (among `mask`) matching, read by `scan`'s
    /// readers for `node` (made on first use).
    func evaluate(_ node: GraphNode, _ scan: QueryScan, cluster: Int64, mask: Bitmap) throws(FiefError) -> Bitmap {
        let readers: NestedReaders
        if let known = scan.nestedReaders[ObjectIdentifier(node)] {
            readers = known
        } else {
            readers = NestedReaders(try NestedComparison.reader(left, scan), try NestedComparison.reader(right, scan))
            scan.nestedReaders[ObjectIdentifier(node)] = readers
        }
        var bits = Bitmap(repeating: 0)
        let base = cluster << ClusterLayout.shift
        var leftGroups: [NestedGroup] = [], rightGroups: [NestedGroup] = []
        for word in 0..<4 {
            var w = mask[word]
            while w != 0 {
                let slot = word << 6 | w.trailingZeroBitCount
                w &= w - 1
                let key = base | Int64(slot)
                leftGroups.removeAll(keepingCapacity: true)
                rightGroups.removeAll(keepingCapacity: true)
                try readers.left?.groups(key, into: &leftGroups)
                try readers.right?.groups(key, into: &rightGroups)
                if matches(leftGroups, rightGroups) { QueryEvaluator.set(&bits, slot) }
            }
        }
        return bits
    }

    private static func reader(_ operand: Operand, _ scan: QueryScan) throws(FiefError) -> GroupReader? {
        guard case .path(let expression) = operand else { return nil }
        return try GroupReader(scan.realm, expression, scan: scan)
    }
}

/// The values one walk found at the end of a nested path (or an
/// expression's values), and whether they are a list or one value.
struct NestedGroup {
    var values: [Value]
    var isList: Bool
}

/// A node's readers, kept by its scan.
final class NestedReaders {
    let left: GroupReader?
    let right: GroupReader?
    init(_ left: GroupReader?, _ right: GroupReader?) {
        self.left = left
        self.right = right
    }
}

/// Reads the groups of one side per object: a nested path's, one group of
/// any other expression's values, or an arithmetic expression's over a
/// nested path (each value of its groups through the arithmetic, the other
/// terms read once per object).
final class GroupReader {
    private enum Kind {
        case nested(NestedReader)
        case plain(ValueReader, ValueExpression)
        /// The objects the steps reach, then the values of each (a list per object).
        case perObject(ValueReader, ValueReader, ValueExpression)
        case arithmetic(ArithmeticTerm, [TermReader], nested: Int, typeOf: PropertyType?)
    }
    private enum TermReader {
        case nested(NestedReader)
        case plain(ValueReader)
    }
    private let kind: Kind
    private var termValues: [Value] = []
    private var termGroups: [NestedGroup] = []

    init(_ realm: Realm, _ expression: ValueExpression, scan: QueryScan) throws(FiefError) {
        switch expression.value {
        case .nested:
            kind = .nested(try NestedReader(realm, expression, scan: scan))
        case .arithmetic(let term) where expression.readsNested:
            var readers: [TermReader] = []
            var nested = -1
            var expressions: [ValueExpression] = []
            term.forEachValue { expressions.append($0) }
            for (i, e) in expressions.enumerated() {
                if e.readsNested {
                    readers.append(.nested(try NestedReader(realm, e, scan: scan)))
                    nested = i
                } else {
                    readers.append(.plain(try ValueReader(realm, e, scan: scan)))
                }
            }
            kind = .arithmetic(term, readers, nested: nested, typeOf: expression.typeOf)
            termValues = [Value](repeating: .null, count: readers.count)
        default:
            if expression.isGroupedPerObject {
                let table = try realm.table(expression.lastClass)
                let objects = ValueExpression(hops: expression.hops, lastClass: expression.lastClass, value: .object,
                                              valueProperty: Property(name: expression.text, type: .link, flags: .nullable, linkTarget: table.objectClass.name),
                                              text: expression.text)
                let local = ValueExpression(hops: [], lastClass: expression.lastClass, value: expression.value, valueProperty: expression.valueProperty,
                                            text: expression.text, typeOf: expression.typeOf, measure: expression.measure)
                kind = .perObject(try ValueReader(realm, objects, scan: scan), try ValueReader(realm, local, scan: scan), local)
            } else {
                kind = .plain(try ValueReader(realm, expression, scan: scan), expression)
            }
        }
    }

    func groups(_ key: Int64, into groups: inout [NestedGroup]) throws(FiefError) {
        switch kind {
        case .nested(let reader):
            try reader.groups(key, into: &groups)
        case .plain(let reader, let expression):
            if expression.isMany {
                var values: [Value] = []
                try reader.forEach(key) { values.append($0); return true }
                groups.append(NestedGroup(values: values, isList: true))
            } else {
                groups.append(NestedGroup(values: [try reader.value(key)], isList: false))
            }
        case .perObject(let objects, let local, let expression):
            var reached: [Int64] = []
            try objects.forEach(key) { value in
                if case .link(_, let target) = value { reached.append(target) }
                return true
            }
            for object in reached {
                var group = NestedGroup(values: [], isList: true)
                if expression.isMany {
                    try local.forEach(object) { group.values.append($0); return true }
                } else {
                    group.values.append(try local.value(object))
                }
                groups.append(group)
            }
        case .arithmetic(let term, let readers, let nested, let typeOf):
            termGroups.removeAll(keepingCapacity: true)
            for (i, reader) in readers.enumerated() {
                switch reader {
                case .nested(let n): try n.groups(key, into: &termGroups)
                case .plain(let p): termValues[i] = try p.value(key)
                }
            }
            for group in termGroups {
                var mapped = NestedGroup(values: [], isList: group.isList)
                mapped.values.reserveCapacity(group.values.count)
                for value in group.values {
                    termValues[nested] = value
                    let result = term.evaluate { termValues[$0] }
                    mapped.values.append(typeOf == nil ? result : .int(QueryBinder.typeCode(result)))
                }
                groups.append(mapped)
            }
        }
    }
}

/// Reads a nested path per object: the objects its hops reach, then the
/// walk from the mixed property (or list or map of mixed values) of each.
final class NestedReader {
    /// The object holding a mixed value (its top mixed property): what a
    /// nested collection found there belongs to.
    private struct Holder {
        let table: Table
        let owner: Int64
        let property: UInt32
    }

    /// A collection the walk is in.
    private enum Container {
        /// A nested list or dictionary.
        case nested(CollectionRef, NestedKind, Holder)
        /// A list, set or map property of an object.
        case property(Holder, Column)

        var isDictionary: Bool {
            switch self {
            case .nested(_, let kind, _): return kind == .dictionary
            case .property(_, let column): return column.collection == .map
            }
        }

        var isList: Bool {
            switch self {
            case .nested(_, let kind, _): return kind == .list
            case .property(_, let column): return column.collection == .list
            }
        }

        /// The holder of the values in it.
        var holder: Holder {
            switch self {
            case .nested(_, _, let holder), .property(let holder, _): return holder
            }
        }
    }

    private let realm: Realm
    private let expression: ValueExpression
    private let path: NestedPath
    private let steps: [NestedPath.Step]
    /// The objects the hops reach (nil: the object tested itself).
    private let objects: ValueReader?
    private let toMany: Bool
    private let table: Table
    private let column: Column
    /// Whether every group is a list, whatever the steps (see the top of the file).
    private let listsAlways: Bool
    private var walkers: [UInt64: CollectionWalker] = [:]
    private var keys: [Int64] = []

    init(_ realm: Realm, _ expression: ValueExpression, scan: QueryScan) throws(FiefError) {
        guard let path = expression.nestedPath else { throw FiefError(.internal, "a nested reader reads a nested path") }
        self.realm = realm
        self.expression = expression
        self.path = path
        steps = path.steps
        toMany = expression.hops.contains { $0.isToMany }
        table = try realm.table(expression.lastClass)
        column = try table.column(path.origin.property.key)
        if expression.hops.isEmpty {
            objects = nil
        } else {
            let reached = ValueExpression(hops: expression.hops, lastClass: expression.lastClass, value: .object,
                                          valueProperty: Property(name: expression.text, type: .link, flags: .nullable, linkTarget: table.objectClass.name),
                                          text: expression.text)
            objects = try ValueReader(realm, reached, scan: scan)
        }
        switch path.origin {
        case .mixed: listsAlways = false
        case .list: listsAlways = true
        case .map: listsAlways = toMany
        }
    }

    /// Append the groups of object `key`.
    func groups(_ key: Int64, into groups: inout [NestedGroup]) throws(FiefError) {
        keys.removeAll(keepingCapacity: true)
        var nullLink = false
        if let objects {
            if toMany {
                try objects.forEach(key) { value in
                    if case .link(_, let target) = value { keys.append(target) }
                    return true
                }
            } else if case .link(_, let target) = try objects.value(key) {
                keys.append(target)
            } else {
                nullLink = true
            }
        } else {
            keys.append(key)
        }
        if steps.isEmpty {
            // The mixed value itself (its size or type): one group of the values of the objects reached.
            var group = NestedGroup(values: [], isList: toMany)
            if nullLink { group.values.append(NestedReader.final(.null, expression, count: nil)) }
            for object in keys {
                let holder = Holder(table: table, owner: object, property: column.key)
                group.values.append(try final(try realm.slotValue(table, column, object), holder))
            }
            groups.append(group)
            return
        }
        for object in keys {
            let holder = Holder(table: table, owner: object, property: column.key)
            switch path.origin {
            case .mixed: try walk(from: .value(try realm.slotValue(table, column, object), holder, step: 0), &groups)
            case .list, .map: try walk(from: .container(.property(holder, column), step: 0), &groups)
            }
        }
    }

    /// A place the walk has reached: a value found in `holder`'s mixed
    /// value, or a collection, with the step that applies to it.
    private enum Reached {
        case value(Value, Holder, step: Int)
        case container(Container, step: Int)
    }

    /// The walk from `start`, depth first, in the order of the values each
    /// step finds.  A worklist, not recursion: a path as long as the
    /// nesting is deep (any depth) leaves the stack as it is.
    private func walk(from start: Reached, _ groups: inout [NestedGroup]) throws(FiefError) {
        var pending: [Reached] = [start]
        var next: [Reached] = []
        while let reached = pending.popLast() {
            next.removeAll(keepingCapacity: true)
            switch reached {
            case .value(let value, let holder, let step): try walk(value: value, holder, step: step, &groups, then: &next)
            case .container(let container, let step): try walk(container: container, step: step, &groups, then: &next)
            }
            // The first found is walked first.
            pending.append(contentsOf: next.reversed())
        }
    }

    /// The walk from `value` (found in `holder`'s mixed value) at `step`;
    /// what it goes on to is added to `next`.
    private func walk(value: Value, _ holder: Holder, step: Int, _ groups: inout [NestedGroup], then next: inout [Reached]) throws(FiefError) {
        switch value {
        case .nestedList(let id):
            next.append(.container(.nested(CollectionRef(nested: .list, table: holder.table.key, owner: holder.owner, property: holder.property, id: id), .list, holder),
                                   step: step))
        case .nestedDictionary(let id):
            next.append(.container(.nested(CollectionRef(nested: .dictionary, table: holder.table.key, owner: holder.owner, property: holder.property, id: id), .dictionary, holder),
                                   step: step))
        case .link(let classKey, let objectKey):
            let last = step == steps.count - 1
            if last { groups.append(NestedGroup(values: [], isList: listsAlways || !path.isUnary)) }
            guard case .key(let name) = steps[step] else { return }
            try follow(classKey, objectKey, name, step: step, last: last, &groups, then: &next)
        default:
            // A scalar (or null) reaches nothing.
            if step == steps.count - 1 { groups.append(NestedGroup(values: [], isList: listsAlways || !path.isUnary)) }
        }
    }

    /// The walk in `container` at `step`; what it goes on to is added to `next`.
    private func walk(container: Container, step: Int, _ groups: inout [NestedGroup], then next: inout [Reached]) throws(FiefError) {
        let last = step == steps.count - 1
        if last { groups.append(NestedGroup(values: [], isList: listsAlways || !path.isUnary)) }
        let holder = container.holder
        var found: [Value] = []
        switch steps[step] {
        case .key(let key):
            guard container.isDictionary else { return }
            if let value = try self.value(container, key) {
                found.append(value)
            } else if last {
                // A missing key at the end reads null.
                groups[groups.count - 1].values.append(try final(.null, holder))
                return
            }
        case .index(let index):
            guard container.isList, let value = try element(container, index) else { return }
            found.append(value)
        case .all:
            try elements(container, into: &found)
        case .keys:
            guard container.isDictionary else { return }
            if let value = try self.value(container, Array("@keys".utf8)) {
                found.append(value)
            } else {
                try keys(container, into: &found)
            }
        }
        for value in found {
            if last {
                groups[groups.count - 1].values.append(try final(value, holder))
            } else {
                next.append(.value(value, holder, step: step + 1))
            }
        }
    }

    /// A link met on the way, at a key step: the property so named of its
    /// object (none: nothing), read as realm-core reads it; what the walk
    /// goes on to is added to `next`.
    private func follow(_ classKey: UInt32, _ objectKey: Int64, _ name: [UInt8], step: Int, last: Bool, _ groups: inout [NestedGroup],
                        then next: inout [Reached]) throws(FiefError) {
        guard realm.hasTable(classKey) else { return }
        let target = try realm.table(classKey)
        guard let property = target.property(named: String(decoding: name, as: UTF8.self)), try realm.isLive(target, objectKey) else { return }
        let column = try target.column(property.key)
        let holder = Holder(table: target, owner: objectKey, property: property.key)
        if column.collection == .none {
            let value = try realm.slotValue(target, column, objectKey)
            if last {
                groups[groups.count - 1].values.append(try final(value, holder))
            } else {
                next.append(.value(value, holder, step: step + 1))
            }
        } else if !last {
            // A list, set or map of the object: the next step goes into it.
            next.append(.container(.property(holder, column), step: step + 1))
        }
    }

    // MARK: Reading collections

    private func walker(_ holder: Holder, _ column: Column) throws(FiefError) -> CollectionWalker {
        let id = UInt64(holder.table.key) << 32 | UInt64(column.key)
        if let known = walkers[id] { return known }
        let made = try CollectionWalker(realm, holder.table, property: column.key)
        walkers[id] = made
        return made
    }

    private func decoded(_ raw: UnsafeRawBufferPointer, _ ref: CollectionRef, _ holder: Holder) throws(FiefError) -> Value {
        guard let value = MixedCoding.decode(raw) else {
            let name = (try? holder.table.property(ref.property).name) ?? "#\(ref.property)"
            throw FiefError(.fileCorrupt, "'\(realm.environment.path)' is damaged: a value nested in '\(holder.table.objectClass.name).\(name)' of object \(ref.owner) cannot be read",
                            path: realm.environment.path)
        }
        return value
    }

    private func value(_ container: Container, _ key: [UInt8]) throws(FiefError) -> Value? {
        switch container {
        case .nested(let ref, _, let holder):
            let entries = try realm.storedNestedEntries(ref).entries
            var low = 0, high = entries.count
            return try key.withBytes { (wanted) throws(FiefError) -> Value? in
                while low < high {
                    let mid = (low + high) / 2
                    if Realm.compareKeys(entries[mid].key, wanted) < 0 { low = mid + 1 } else { high = mid }
                }
                guard low < entries.count, Realm.compareKeys(entries[low].key, wanted) == 0 else { return nil }
                return try decoded(entries[low].value, ref, holder)
            }
        case .property(let holder, let column):
            return try walker(holder, column).value(owner: holder.owner, key: key)
        }
    }

    private func element(_ container: Container, _ index: ListIndex) throws(FiefError) -> Value? {
        switch container {
        case .nested(let ref, _, let holder):
            let entries = try realm.storedNestedEntries(ref).entries
            let position: Int
            switch index {
            case .at(let n): position = n
            case .last: position = entries.count - 1
            }
            guard position >= 0, position < entries.count else { return nil }
            return try decoded(entries[position].value, ref, holder)
        case .property(let holder, let column):
            return try walker(holder, column).element(owner: holder.owner, at: index)
        }
    }

    private func elements(_ container: Container, into found: inout [Value]) throws(FiefError) {
        switch container {
        case .nested(let ref, _, let holder):
            for entry in try realm.storedNestedEntries(ref).entries { found.append(try decoded(entry.value, ref, holder)) }
        case .property(let holder, let column):
            var values: [Value] = []
            try walker(holder, column).forEach(owner: holder.owner) { values.append($0); return true }
            found.append(contentsOf: values)
        }
    }

    private func keys(_ container: Container, into found: inout [Value]) throws(FiefError) {
        switch container {
        case .nested(let ref, _, _):
            for entry in try realm.storedNestedEntries(ref).entries { found.append(.string(entry.key)) }
        case .property(let holder, let column):
            var values: [Value] = []
            try walker(holder, column).forEachKey(owner: holder.owner) { values.append($0); return true }
            found.append(contentsOf: values)
        }
    }

    // MARK: Values

    /// A value found, as the expression reads it (its size, its type).
    private func final(_ value: Value, _ holder: Holder) throws(FiefError) -> Value {
        var count: Int? = nil
        if expression.measure == .size, let id = value.nestedID {
            count = try realm.storedNestedEntries(CollectionRef(nested: .list, table: holder.table.key, owner: holder.owner, property: holder.property, id: id)).entries.count
        }
        return NestedReader.final(value, expression, count: count)
    }

    /// `value` as `expression` reads it; `count`: the size of the nested
    /// collection it is.
    static func final(_ value: Value, _ expression: ValueExpression, count: Int?) -> Value {
        var value = value
        if expression.measure == .size {
            switch value {
            case .string(let bytes), .binary(let bytes): value = .int(Int64(bytes.count))
            case .nestedList, .nestedDictionary: value = count.map { .int(Int64($0)) } ?? .null
            default: value = .null
            }
        }
        if expression.typeOf != nil { value = .int(QueryBinder.typeCode(value)) }
        return value
    }
}
