import FiefStorage
extension QueryBinder {
    // MARK: Key paths

    /// Resolve a key path through links, collections of links and
    /// backlinks, to a property, a collection, or an operation on one.
    static func resolve(_ keyPath: QueryKeyPath, from table: Table, _ realm: Realm, _ arguments: [QueryArgument]) throws(FiefError) -> BoundPath {
        switch keyPath.start {
        case .object: break
        case .variable(let name):
            throw FiefError(.queryInvalid, "'\(name).\(text(keyPath))': '\(name)' names the objects of a SUBQUERY only inside its own predicate (not outside it, nor inside a SUBQUERY nested in it), as in realm-core")
        case .argument: throw FiefError(.internal, "key-path arguments are substituted before binding (QueryArgumentSubstitution.keyPaths)")
        }
        if keyPath.suffix == .type {
            // The values' types: the path without `@type`, each value read as its type's code.
            var plain = keyPath
            plain.suffix = nil
            let bound = try resolve(plain, from: table, realm, arguments)
            var expression = bound.expression
            if case .object = expression.value {
                expression.typeOf = .link
            } else {
                expression.typeOf = expression.valueProperty.type
            }
            expression.valueProperty = Property(name: QueryBinder.text(keyPath), type: .int)
            return BoundPath(expression: ValueExpression(hops: expression.hops, lastClass: expression.lastClass, value: expression.value,
                                                         valueProperty: expression.valueProperty, text: QueryBinder.text(keyPath),
                                                         typeOf: expression.typeOf),
                             lastTable: bound.lastTable)
        }
        let text = QueryBinder.text(keyPath)
        var hops: [GraphHop] = []
        var current = table
        func expression(_ value: ValueExpression.Value, _ property: Property) -> BoundPath {
            BoundPath(expression: ValueExpression(hops: hops, lastClass: current.key, value: value, valueProperty: property, text: text),
                      lastTable: current)
        }
        let components = keyPath.components
        func isLastBut(_ position: Int) -> Bool { position + 2 == components.count }
        var position = 0
        while position < components.count {
            defer { position += 1 }
            let isLast = position == components.count - 1
            switch linkingObjectsResolved(components[position], at: current, realm) {
            case .property(let name):
                guard let property = current.property(named: name) else {
                    throw FiefError(.queryInvalid, "class '\(current.objectClass.name)' has no property '\(name)' (in key path '\(text)')")
                }
                let qualified = "'\(current.objectClass.name).\(property.name)'"
                let column = try current.column(property.key)
                if let nested = try nestedPath(property, at: position, keyPath, text: text, arguments, current, hops: hops, realm) {
                    // Into the lists and dictionaries a mixed value nests (NestedPath.swift).
                    return nested
                }
                if position + 1 < components.count,
                   let selector = try selector(components[position + 1], after: property, qualified, text, arguments) {
                    position += 1
                    let isLast = position == components.count - 1
                    switch selector {
                    case .all:
                        break   // the collection as a whole, as without it
                    case .keys:
                        guard isLast, keyPath.suffix == nil else {
                            throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow '@keys'")
                        }
                        return expression(.mapKeys(property), Property(name: text, type: .string))
                    case .key(let key), .index(_, let key):
                        let index: ListIndex? = { if case .index(let i, _) = selector { return i }; return nil }()
                        if property.type == .link {
                            if isLast, keyPath.suffix == .count {
                                if let index {
                                    // realm-core takes no position at the end of a path through a list of links.
                                    _ = index
                                    throw FiefError(.queryInvalid, "Realm's query language does not allow '@count' of one object of a list of links ('\(text)'): realm-core takes no position at the end of a key path through links (\"Property '\(current.objectClass.name).\(property.name)' does not support index '\(QueryBinder.text(QueryKeyPath([components[position]])))'\"); count the list ('\(QueryBinder.text(QueryKeyPath(Array(components[...(position - 1)])))).@count') or compare the object ('\(QueryBinder.text(QueryKeyPath(Array(components[...position])))) == nil')")
                                }
                                // As realm-core: '@count' after a key of a map of links counts the map's entries
                                // (the key does not narrow it, a dictionary's size being the map's).
                                return try finish(property, column, of: current, .count, hops: hops, text: text, realm)
                            }
                            let target = try realm.table(column.linkTarget)
                            let kind: GraphHop.Kind = index.map { .listElement($0) } ?? .mapEntry(key)
                            hops.append(GraphHop(kind: kind, from: current.key, to: target.key, property: property.key))
                            current = target
                            if isLast {
                                if case .aggregate? = keyPath.suffix {
                                    // realm-core: "Operation '@min' cannot apply to property ... because it is not a list".
                                    throw FiefError(.queryInvalid, "Realm's query language does not allow an aggregate of one object ('\(text)'): '@min', '@max', '@sum' and '@avg' apply to a list, set or map")
                                }
                                guard keyPath.suffix == nil else { throw FiefError(.internal, "'@type' is taken off a key path before it is resolved") }
                                return expression(.object, Property(name: text, type: .link, flags: .nullable, linkTarget: target.objectClass.name))
                            }
                            continue
                        }
                        guard isLast else {
                            // realm-core: "Only Property of type 'any' can have nested collections".
                            throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow a value of \(qualified): only mixed values hold nested lists and dictionaries, and \(qualified) holds \(property.type.name) values")
                        }
                        let value: ValueExpression.Value = index.map { .listElement(property, $0) } ?? .mapEntry(property, key: key)
                        switch keyPath.suffix {
                        case nil:
                            let described = Property(name: text, type: property.type, flags: .nullable, key: property.key, linkTarget: property.linkTarget)
                            return expression(value, described)
                        case .count?:
                            // The size of the one element: a string's or binary's length, a nested collection's size.
                            guard property.type == .string || property.type == .binary || property.type == .mixed else {
                                throw FiefError(.queryInvalid, "key path '\(text)': '@count' and '@size' of one element apply to strings, binaries and mixed values; \(qualified) holds \(property.type.name) values")
                            }
                            var measured = expression(value, Property(name: text, type: .int, flags: .nullable, key: property.key)).expression
                            measured.measure = .size
                            return BoundPath(expression: measured, lastTable: current)
                        default:
                            throw FiefError(.queryInvalid, "key path '\(text)': one element of \(qualified) takes '@count', '@size' or '@type' after it, no aggregate")
                        }
                    }
                    if isLast && (property.type != .link || keyPath.suffix != nil) {
                        return try finish(property, column, of: current, keyPath.suffix, hops: hops, text: text, realm)
                    }
                } else if isLast && (property.collection == .none || property.type != .link || keyPath.suffix != nil) {
                    return try finish(property, column, of: current, keyPath.suffix, hops: hops, text: text, realm)
                }
                if property.type != .link, property.collection == .list || property.collection == .set,
                   isLastBut(position), case .property("length") = components[position + 1] {
                    // `tags.length`: the length of each element, as realm-core reads it.
                    guard keyPath.suffix == nil else {
                        throw FiefError(.queryInvalid, "key path '\(text)': nothing can follow 'length'")
                    }
                    guard property.type == .string || property.type == .binary || property.type == .mixed else {
                        throw FiefError(.queryInvalid, "key path '\(text)': 'length' applies to a list or set of strings, binaries or mixed values; \(qualified) holds \(property.type.name) values")
                    }
                    var lengths = expression(.elements(property), Property(name: text, type: .int, key: property.key)).expression
                    lengths.measure = .lengths
                    return BoundPath(expression: lengths, lastTable: current)
                }
                guard property.type == .link else {
                    if property.collection != .none {
                        throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) is a \(property.collection.name) of values, so nothing can follow it but an operation ('@count', '@min', ...)")
                    }
                    throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) is \(property.type == .int ? "an" : "a") \(property.type.name), not a link or a mixed value, so nothing can follow it")
                }
                let target = try realm.table(column.linkTarget)
                let kind: GraphHop.Kind
                switch property.collection {
                case .none: kind = .link
                case .list: kind = .list
                case .set: kind = .set
                case .map: kind = .map
                }
                hops.append(GraphHop(kind: kind, from: current.key, to: target.key, property: property.key))
                current = target
            case .backlinks(let className, let propertyName):
                guard let originKey = realm.table(named: className) else {
                    throw FiefError(.queryInvalid, "key path '\(text)': no class '\(className)' (in '@links.\(className).\(propertyName)')")
                }
                let origin = try realm.table(originKey)
                guard let property = origin.property(named: propertyName) else {
                    throw FiefError(.queryInvalid, "key path '\(text)': class '\(className)' has no property '\(propertyName)'")
                }
                guard property.type == .link, try origin.column(property.key).linkTarget == current.key else {
                    throw FiefError(.queryInvalid, "key path '\(text)': '\(className).\(propertyName)' does not link to '\(current.objectClass.name)' objects")
                }
                let hop = GraphHop(kind: .backlinks, from: current.key, to: originKey, property: property.key)
                if isLast, keyPath.suffix == .count {
                    let counted = Property(name: text, type: .int)
                    return expression(.backlinkCount(pair: (originKey, property.key)), counted)
                }
                if isLast, case .aggregate(let query, let name)? = keyPath.suffix {
                    guard let name, let aggregated = origin.property(named: name), aggregated.collection == .none else {
                        throw FiefError(.queryInvalid, "key path '\(text)': name a property of '\(className)' holding one value after the operation")
                    }
                    let operation = try aggregateOperation(query, aggregated.type, text)
                    return expression(.aggregate(operation, of: aggregated, through: hop),
                                      Property(name: text, type: Aggregator(operation, aggregated.type).resultType, flags: .nullable))
                }
                hops.append(hop)
                current = origin
            case .allBacklinks:
                guard keyPath.suffix == .count else {
                    throw FiefError(.queryInvalid, "key path '\(text)': '@links' alone takes '@count' or '@size' after it (the number of links to the object)")
                }
                return expression(.backlinkCount(pair: nil), Property(name: "@links.@count", type: .int))
            case .index, .first, .last, .all, .key, .argumentIndex, .keys, .values:
                throw FiefError(.queryInvalid, "key path '\(text)': '\(QueryBinder.text(QueryKeyPath([components[position]])))' follows a list or map property, or a mixed value, only")
            }
        }
        // The path ends at objects reached through a collection of links or backlinks.
        switch keyPath.suffix {
        case nil:
            let name = current.objectClass.name
            return expression(.object, Property(name: text, type: .link, flags: .nullable, linkTarget: name))
        case .count?:
            // Every path ending at objects with '@count' is resolved at its last step (a collection's
            // size, a to-one link's count, backlinks counted).
            throw FiefError(.internal, "'@count' of the objects '\(text)' reaches was not resolved at its last step")
        case .type?:
            throw FiefError(.internal, "'@type' is taken off a key path before it is resolved")
        case .aggregate?:
            throw FiefError(.internal, "an aggregate ends its key path")
        }
    }

    /// `component`, or for the name of a linking-objects property of
    /// `table`'s class, the backlinks step it stands for
    /// (`@links.OriginClass.originProperty`).
    private static func linkingObjectsResolved(_ component: QueryPathComponent, at table: Table, _ realm: Realm) -> QueryPathComponent {
        guard case .property(let name) = component, realm.declaresLinkingObjects, table.property(named: name) == nil,
              let linkingObjects = realm.linkingObjects(named: name, of: table) else { return component }
        return .backlinks(className: linkingObjects.originClass, property: linkingObjects.originProperty)
    }

    /// What follows a collection property in a key path: all of it, its
    /// keys, one key, one position.
    enum Selector {
        case all
        case keys
        case key([UInt8])
        case index(ListIndex, [UInt8])
    }

    /// The selector `component` is after collection `property` (nil when it
    /// is none: a property of the objects of a collection of links).
    private static func selector(_ component: QueryPathComponent, after property: Property, _ qualified: String, _ text: String,
                                 _ arguments: [QueryArgument]) throws(FiefError) -> Selector? {
        guard property.collection != .none else { return nil }
        let isMap = property.collection == .map, isList = property.collection == .list
        func refuse(_ what: String) -> FiefError {
            FiefError(.queryInvalid, "key path '\(text)': \(what) (\(qualified) is a \(property.collection.name))")
        }
        switch component {
        case .values, .all: return .all
        case .keys:
            guard isMap else { throw refuse("'@keys' takes a map") }
            return .keys
        case .key(let key):
            guard isMap else { throw refuse("['key'] takes a map") }
            return .key(Array(key.utf8))
        case .property(let name):
            // `map.key` names a key; after a list or set, a property of its objects.
            return isMap ? .key(Array(name.utf8)) : nil
        case .index(let n):
            guard isList else { throw refuse("[n] takes a list (maps and sets are not ordered)") }
            return .index(.at(n), [])
        case .first:
            guard isList else { throw refuse("[FIRST] takes a list (maps and sets are not ordered)") }
            return .index(.at(0), [])
        case .last:
            guard isList else { throw refuse("[LAST] takes a list (maps and sets are not ordered)") }
            return .index(.last, [])
        case .argumentIndex(let n):
            guard n >= 0, n < arguments.count, !arguments[n].isList, arguments[n].values.count == 1 else {
                throw FiefError(.queryArgument, "key path '\(text)': argument \(n) is missing or a list; [$\(n)] takes one key or position")
            }
            switch (arguments[n].values[0], isMap, isList) {
            case (.string(let key), true, _): return .key(Array(key))
            case (.int(let i), _, true): return .index(.at(Int(i)), [])
            default:
                throw FiefError(.queryArgument, "key path '\(text)': argument \(n) is a \(arguments[n].values[0].typeName); [$\(n)] takes \(isMap ? "a string key" : "an int position") for \(qualified)")
            }
        case .backlinks, .allBacklinks:
            return nil
        }
    }

    /// The end of a key path at `property` of `table`, with its suffix.
    private static func finish(_ property: Property, _ column: Column, of table: Table, _ suffix: QueryPathSuffix?,
                               hops: [GraphHop], text: String, _ realm: Realm) throws(FiefError) -> BoundPath {
        let qualified = "'\(table.objectClass.name).\(property.name)'"
        func path(_ value: ValueExpression.Value, _ described: Property) -> BoundPath {
            BoundPath(expression: ValueExpression(hops: hops, lastClass: table.key, value: value, valueProperty: described, text: text),
                      lastTable: table)
        }
        switch suffix {
        case nil:
            if property.collection == .none {
                return path(.property(property, linkTarget: column.linkTarget), property)
            }
            // A collection of values (collections of links are steps).
            return path(.elements(property), Property(name: property.name, type: property.type, flags: property.isNullable ? .nullable : [],
                                                      key: property.key, linkTarget: property.linkTarget))
        case .count?:
            if property.collection != .none {
                return path(.count(property), Property(name: "\(text)", type: .int, flags: .collectionSize, key: property.key))
            }
            if property.type == .link {
                return path(.linkCount(property), Property(name: text, type: .int, key: property.key))
            }
            guard property.type == .string || property.type == .binary else {
                throw FiefError(.queryInvalid, "key path '\(text)': '@count' and '@size' apply to lists, sets, maps, strings and binaries; \(qualified) is \(property.type == .int ? "an" : "a") \(property.type.name)")
            }
            return path(.length(property), Property(name: text, type: .int, key: property.key))
        case .type?:
            throw FiefError(.internal, "'@type' is taken off a key path before it is resolved")
        case .aggregate(let query, let targetName)?:
            guard property.collection != .none else {
                throw FiefError(.queryInvalid, "key path '\(text)': '@\(spelling(query))' applies to a list, set or map; \(qualified) is not one")
            }
            if property.type != .link {
                if let targetName {
                    throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) holds values, not objects: nothing follows the operation (found '\(targetName)')")
                }
                let operation = try aggregateOperation(query, property.type, text)
                return path(.aggregate(operation, of: property, through: nil),
                            Property(name: text, type: Aggregator(operation, property.type).resultType, flags: .nullable))
            }
            guard let targetName else {
                throw FiefError(.queryInvalid, "key path '\(text)': \(qualified) holds objects; name the property to aggregate after the operation ('\(text).<property>')")
            }
            let target = try realm.table(column.linkTarget)
            guard let aggregated = target.property(named: targetName), aggregated.collection == .none else {
                throw FiefError(.queryInvalid, "key path '\(text)': class '\(target.objectClass.name)' has no property '\(targetName)' holding one value")
            }
            let kind: GraphHop.Kind = property.collection == .list ? .list : (property.collection == .set ? .set : .map)
            let hop = GraphHop(kind: kind, from: table.key, to: target.key, property: property.key)
            let operation = try aggregateOperation(query, aggregated.type, text)
            return path(.aggregate(operation, of: aggregated, through: hop),
                        Property(name: text, type: Aggregator(operation, aggregated.type).resultType, flags: .nullable))
        }
    }

    /// The operation of aggregate `query`, checked against the values it takes.
    private static func aggregateOperation(_ query: QueryAggregate, _ type: PropertyType, _ text: String) throws(FiefError) -> AggregateOperation {
        let operation: AggregateOperation
        switch query {
        case .min: operation = .min
        case .max: operation = .max
        case .sum: operation = .sum
        case .average: operation = .average
        }
        do throws(FiefError) {
            try Aggregator.check(operation, type, subject: "'\(text)'")
        } catch {
            throw FiefError(.queryInvalid, error.message)
        }
        return operation
    }

    static func spelling(_ aggregate: QueryAggregate) -> String {
        switch aggregate {
        case .min: return "min"
        case .max: return "max"
        case .sum: return "sum"
        case .average: return "avg"
        }
    }

    /// A property of the object tested (or `self`) as a value expression.
    static func ownExpression(_ operand: QueryOperand, _ scope: Scope) throws(FiefError) -> ValueExpression {
        let property = try QueryCompiler.property(operand, scope.target)
        guard case .objects(let table) = scope.target else { throw FiefError(.queryInvalid, "expected a property") }
        let linkTarget = property.type == .link ? try table.column(property.key).linkTarget : 0
        return ValueExpression(hops: [], lastClass: table.key, value: .property(property, linkTarget: linkTarget),
                               valueProperty: property, text: property.name)
    }

}
