// Arguments substituted into a parsed query.
//
// Two rewrites of a `QueryExpression`, both done when a predicate is
// compiled:
//
// * `keyPaths`: every key-path argument (`$K0`, NSPredicate's `%K`) becomes
//   the key path its string argument holds, before anything is bound, so
//   `%K == %@` with "name" and "Rex" is bound exactly as `name == 'Rex'`
//   (the scalar compiler, its indexes and fast paths).  As in realm-core
//   (`PathNode::resolve_arg`), the string is property names joined by '.';
//   `@links.Class.property` names backlinks, `@links` alone every incoming
//   link, `@keys` and `@values` a map's keys and values.  An argument that is
//   no string, or a path naming no property, is a `.queryArgument` error.
// * `literals`: every argument becomes the literal with its value, so the
//   query can be printed as canonical text that parses back to the same
//   query without arguments (realm-core's `Query::get_description`).
import FiefStorage

/// Substitutes the arguments of a query into its tree: see above.
enum QueryArgumentSubstitution {
    // MARK: Key-path arguments

    /// `expression` with every key-path argument replaced by the key path
    /// its argument holds.  Key paths at the top level (outside SUBQUERY
    /// predicates) are checked against `table` when given: a property or
    /// class the argument names that does not exist is a `.queryArgument`
    /// error naming the argument.
    static func keyPaths(_ expression: QueryExpression, _ arguments: [QueryArgument], table: Table?, realm: Realm?) throws(FiefError) -> QueryExpression {
        guard expression.usesKeyPathArgument else { return expression }
        var rewriter = Rewriter()
        rewriter.keyPath = { (path, depth) throws(FiefError) -> QueryOperand in
            guard case .argument(let n) = path.start else { return .keyPath(path) }
            let (components, text) = try components(ofArgument: n, arguments)
            if depth == 0, let table, let realm { try check(components, text: text, argument: n, from: table, realm) }
            if components == [.property("self")] || components == [.property("SELF")], path.suffix == nil { return .element }
            return .keyPath(QueryKeyPath(components, suffix: path.suffix))
        }
        return try rewriter.expression(expression, depth: 0)
    }

    /// The components of the key path that argument `n` holds, and its text.
    static func components(ofArgument n: Int, _ arguments: [QueryArgument]) throws(FiefError) -> ([QueryPathComponent], String) {
        let name = "argument \(n) (a key-path argument, $K\(n) or the matching %K)"
        guard n >= 0, n < arguments.count else {
            throw FiefError(.queryArgument, "the predicate uses \(name), but \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given")
        }
        let argument = arguments[n]
        guard !argument.isList, argument.values.count == 1 else {
            throw FiefError(.queryArgument, "\(name) is a list; it must be a string holding a key path, as 'owner.name'")
        }
        guard case .string(let bytes) = argument.values[0] else {
            let type = argument.values[0].typeName
            let given = argument.values[0].type == nil ? "null" : ("aeiou".contains(type.first ?? "x") ? "an " : "a ") + type
            throw FiefError(.queryArgument, "\(name) is \(given); it must be a string holding a key path, as 'owner.name'")
        }
        guard UTF8Check.isValid(bytes) else { throw FiefError(.invalidUTF8, "argument \(n) is not valid UTF-8") }
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw FiefError(.queryArgument, "\(name) is '\(text)', which is no key path: property names joined by '.', as 'owner.name'")
        }
        var components: [QueryPathComponent] = []
        var i = 0
        while i < parts.count {
            switch parts[i] {
            case "@links":
                if i == parts.count - 1 {
                    components.append(.allBacklinks)
                    i += 1
                } else if i + 2 < parts.count {
                    components.append(.backlinks(className: parts[i + 1], property: parts[i + 2]))
                    i += 3
                } else {
                    throw FiefError(.queryArgument, "\(name) is '\(text)': '@links' takes a class and a property after it ('@links.Person.dogs'), or nothing")
                }
            case "@keys", "@allKeys": components.append(.keys); i += 1
            case "@values", "@allValues": components.append(.values); i += 1
            default:
                if parts[i].hasPrefix("@") {
                    throw FiefError(.queryArgument, "\(name) is '\(text)': '\(parts[i])' cannot be part of a key-path argument; write it after the argument ('$K\(n).@count')")
                }
                components.append(.property(parts[i]))
                i += 1
            }
        }
        return (components, text)
    }

    /// Checks that the properties and classes `components` name exist,
    /// following links from `table` (as far as the path follows links and
    /// backlinks; the binder checks the rest).
    private static func check(_ components: [QueryPathComponent], text: String, argument n: Int, from table: Table, _ realm: Realm) throws(FiefError) {
        func refuse(_ why: String) -> FiefError {
            FiefError(.queryArgument, "argument \(n) (a key-path argument, $K\(n) or the matching %K) is '\(text)': \(why)")
        }
        var current: Table? = table
        for component in components {
            guard let here = current else { return }
            switch component {
            case .property(let name):
                if name == "self" || name == "SELF", components.count == 1 { return }
                guard let property = here.property(named: name) else {
                    throw refuse("class '\(here.objectClass.name)' has no property '\(name)'")
                }
                if property.type == .link, let target = try? here.column(property.key).linkTarget {
                    current = try? realm.table(target)
                } else {
                    current = nil
                }
            case .backlinks(let className, let propertyName):
                guard let origin = realm.table(named: className), let originTable = try? realm.table(origin) else {
                    throw refuse("the realm has no class '\(className)'")
                }
                guard originTable.property(named: propertyName) != nil else {
                    throw refuse("class '\(className)' has no property '\(propertyName)'")
                }
                current = originTable
            default:
                current = nil
            }
        }
    }

    // MARK: Arguments as literals

    /// `expression` with every argument replaced by a literal holding its
    /// value (a list argument by a list of literals, `[$n]` by the key or
    /// position); nil when an argument is missing or has no literal (a
    /// nested list or dictionary, invalid UTF-8).  Key-path arguments must
    /// have been substituted already (`keyPaths`).  A GEOWITHIN shape given
    /// as an argument (a shape, or a string holding one) is written as the
    /// shape's literal, and its coordinate arguments as numbers; `x IN $n`
    /// with a shape argument becomes `x GEOWITHIN <shape>`.
    static func literals(_ expression: QueryExpression, _ arguments: [QueryArgument]) -> QueryExpression? {
        var rewriter = Rewriter()
        func shapeArgument(_ n: Int) throws(FiefError) -> QueryGeoShape? {
            guard n >= 0, n < arguments.count else { throw FiefError(.queryArgument, "missing") }
            if let shape = arguments[n].geoShape { return geoLiteral(shape) }
            return nil
        }
        func number(_ number: QueryGeoNumber) throws(FiefError) -> QueryGeoNumber {
            guard case .argument(let n) = number else { return number }
            guard n >= 0, n < arguments.count, !arguments[n].isList, arguments[n].values.count == 1 else { throw FiefError(.queryArgument, "not a number") }
            switch arguments[n].values[0] {
            case .int(let i): return .value(Double(i))
            case .float(let f): return .value(Double(f))
            case .double(let d): return .value(d)
            default: throw FiefError(.queryArgument, "not a number")
            }
        }
        func point(_ point: QueryGeoPoint) throws(FiefError) -> QueryGeoPoint {
            QueryGeoPoint(try number(point.longitude), try number(point.latitude),
                          altitude: try point.altitude.map { (altitude) throws(FiefError) in try number(altitude) })
        }
        rewriter.shapeArgument = shapeArgument
        rewriter.geoShape = { (shape) throws(FiefError) -> QueryGeoShape in
            switch shape {
            case .argument(let n):
                if let literal = try shapeArgument(n) { return literal }
                // A string holding a shape, as the binder reads it.
                guard !arguments[n].isList, arguments[n].values.count == 1, case .string(let bytes) = arguments[n].values[0],
                      UTF8Check.isValid(bytes) else { throw FiefError(.queryArgument, "not a shape") }
                return geoLiteral(try GeoShape(parsing: String(decoding: bytes, as: UTF8.self)))
            case .box(let a, let b):
                return .box(try point(a), try point(b))
            case .circle(let center, let radius):
                return .circle(center: try point(center), radius: try number(radius))
            case .polygon(let rings):
                var out: [[QueryGeoPoint]] = []
                for ring in rings {
                    var points: [QueryGeoPoint] = []
                    for p in ring { points.append(try point(p)) }
                    out.append(points)
                }
                return .polygon(out)
            }
        }
        rewriter.argument = { (n) throws(FiefError) -> QueryOperand in
            guard n >= 0, n < arguments.count else { throw FiefError(.queryArgument, "missing") }
            let argument = arguments[n]
            var literals: [QueryOperand] = []
            for value in argument.values {
                guard let literal = literal(value) else { throw FiefError(.queryArgument, "no literal") }
                literals.append(.constant(literal))
            }
            if argument.isList { return .list(literals) }
            guard literals.count == 1 else { throw FiefError(.queryArgument, "not one value") }
            return literals[0]
        }
        rewriter.keyPath = { (path, _) throws(FiefError) -> QueryOperand in
            var path = path
            for i in path.components.indices {
                guard case .argumentIndex(let n) = path.components[i] else { continue }
                guard n >= 0, n < arguments.count, !arguments[n].isList, arguments[n].values.count == 1 else {
                    throw FiefError(.queryArgument, "not one value")
                }
                switch arguments[n].values[0] {
                case .int(let position) where position >= 0: path.components[i] = .index(Int(position))
                case .string(let bytes) where UTF8Check.isValid(bytes): path.components[i] = .key(String(decoding: bytes, as: UTF8.self))
                default: throw FiefError(.queryArgument, "no key or position")
                }
            }
            return .keyPath(path)
        }
        return try? rewriter.expression(expression, depth: 0)
    }

    /// The literal that reads back as `value`; nil for a nested list or
    /// dictionary or invalid UTF-8.  A non-finite float becomes the double
    /// of the same value (a float literal is finite); a decimal128 its
    /// digits and exponent.
    static func literal(_ value: Value) -> QueryLiteral? {
        switch value {
        case .null: return .null
        case .int(let i): return .int(i)
        case .bool(let b): return .bool(b)
        case .string(let bytes):
            guard UTF8Check.isValid(bytes) else { return nil }
            return .string(String(decoding: bytes, as: UTF8.self))
        case .binary(let bytes): return .binary(Array(bytes))
        case .timestamp(let seconds, let nanoseconds): return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
        case .float(let f): return f.isFinite ? .float(f) : .double(Double(f))
        case .double(let d): return .double(d)
        case .decimal128(let d):
            switch DecimalArithmetic.kind(d) {
            case .nan: return .double(.nan)
            case .infinity(let negative): return .double(negative ? -.infinity : .infinity)
            case .finite(let negative, let coefficient, let exponent):
                return .decimal("\(negative ? "-" : "")\(coefficient)E\(exponent)")
            }
        case .objectId(let id):
            var bytes = [UInt8](repeating: 0, count: 12)
            bytes.withUnsafeMutableBytes { id.store(to: $0.baseAddress!) }
            return .objectId(bytes)
        case .uuid(let id):
            var bytes = [UInt8](repeating: 0, count: 16)
            bytes.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: id.high.bigEndian, toByteOffset: 0, as: UInt64.self)
                raw.storeBytes(of: id.low.bigEndian, toByteOffset: 8, as: UInt64.self)
            }
            return .uuid(bytes)
        case .link(let classKey, let objectKey): return .link(classKey: classKey, objectKey: objectKey)
        case .nestedList, .nestedDictionary: return nil
        }
    }

    /// A shape as the literal that reads back as it.
    static func geoLiteral(_ shape: GeoShape) -> QueryGeoShape {
        func point(_ p: GeoPoint) -> QueryGeoPoint {
            QueryGeoPoint(.value(p.longitude), .value(p.latitude), altitude: p.altitude.map { .value($0) })
        }
        switch shape {
        case .box(let lo, let hi): return .box(point(lo), point(hi))
        case .polygon(let rings): return .polygon(rings.map { $0.map(point) })
        case .circle(let center, let radians): return .circle(center: point(center), radius: .value(radians))
        }
    }

    // MARK: The walk

    /// Rebuilds a tree, handing each key path and each argument operand to
    /// a closure.  `depth` counts the SUBQUERY predicates around a key path.
    struct Rewriter {
        var keyPath: (QueryKeyPath, _ depth: Int) throws(FiefError) -> QueryOperand = { (path, _) throws(FiefError) in .keyPath(path) }
        var argument: (Int) throws(FiefError) -> QueryOperand = { (n) throws(FiefError) in .argument(n) }
        /// A GEOWITHIN shape (by default kept as it is).
        var geoShape: (QueryGeoShape) throws(FiefError) -> QueryGeoShape = { (shape) throws(FiefError) in shape }
        /// Argument `n` when it is a shape: `x IN $n` is then GEOWITHIN.
        var shapeArgument: (Int) throws(FiefError) -> QueryGeoShape? = { (_) throws(FiefError) in nil }

        func expression(_ expression: QueryExpression, depth: Int) throws(FiefError) -> QueryExpression {
            switch expression {
            case .comparison(let a, let op, let b, let options):
                return .comparison(try operand(a, depth), op, try operand(b, depth), options)
            case .membership(let a, .argument(let n), _) where try shapeArgument(n) != nil:
                return .geoWithin(try operand(a, depth), try shapeArgument(n)!)
            case .membership(let a, let b, let options): return .membership(try operand(a, depth), try operand(b, depth), options)
            case .between(let a, let low, let high):
                return .between(try operand(a, depth), low: try operand(low, depth), high: try operand(high, depth))
            case .fullText(let a, let b): return .fullText(try operand(a, depth), try operand(b, depth))
            case .geoWithin(let a, let shape): return .geoWithin(try operand(a, depth), try geoShape(shape))
            case .and(let a, let b): return .and(try self.expression(a, depth: depth), try self.expression(b, depth: depth))
            case .or(let a, let b): return .or(try self.expression(a, depth: depth), try self.expression(b, depth: depth))
            case .not(let a): return .not(try self.expression(a, depth: depth))
            case .alwaysTrue, .alwaysFalse: return expression
            }
        }

        func operand(_ operand: QueryOperand, _ depth: Int) throws(FiefError) -> QueryOperand {
            switch operand {
            case .keyPath(let path): return try keyPath(path, depth)
            case .argument(let n): return try argument(n)
            case .constant, .element: return operand
            case .list(let items):
                var out: [QueryOperand] = []
                for item in items { out.append(try self.operand(item, depth)) }
                return .list(out)
            case .quantified(let quantifier, let inner): return .quantified(quantifier, try self.operand(inner, depth))
            case .object(let className, let primaryKey): return .object(className: className, primaryKey: try self.operand(primaryKey, depth))
            case .subqueryCount(let subquery):
                guard case .keyPath(let collection) = try keyPath(subquery.collection, depth) else {
                    throw FiefError(.queryInvalid, "SUBQUERY takes a key path to a collection of objects")
                }
                return .subqueryCount(QuerySubquery(collection: collection, variable: subquery.variable,
                                                    predicate: try expression(subquery.predicate, depth: depth + 1)))
            case .arithmetic(let a, let op, let b): return .arithmetic(try self.operand(a, depth), op, try self.operand(b, depth))
            case .negated(let inner): return .negated(try self.operand(inner, depth))
            }
        }
    }
}

extension QueryExpression {
    /// Whether a key path in it starts with a key-path argument (`$K0`, `%K`).
    var usesKeyPathArgument: Bool {
        var found = false
        var rewriter = QueryArgumentSubstitution.Rewriter()
        rewriter.keyPath = { (path, _) throws(FiefError) -> QueryOperand in
            if case .argument = path.start { found = true }
            return .keyPath(path)
        }
        _ = try? rewriter.expression(self, depth: 0)
        return found
    }
}
