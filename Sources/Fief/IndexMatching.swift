// `index(matching:)`: the position of the first element matching a query,
// on every collection where RealmSwift has it (RealmCollection's
// `index(matching predicateFormat:_:)` and `index(matching isIncluded:)`).
// The query is run as a filter of the collection (fief_results_filter);
// the first match is then found in the collection (fief_results_index_of_object,
// fief_results_index_of_value), so the position is in the collection's own order.

extension Results {
    /// The position of the first object (or value) matching a predicate in
    /// Realm's query language (see `filter`), or nil.
    ///
    ///     dogs.index(matching: "name == %@", "Rex")
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        guard let first = filter(predicateFormat, arguments: args).first else { return nil }
        return index(of: first)
    }
}

extension LinkingObjects {
    /// The position of the first linking object matching a predicate (see
    /// `Results.filter`), or nil.  Traps for the linking objects of an
    /// unmanaged object, as filtering them does.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        guard let first = requireManaged("search").filter(predicateFormat, arguments: args).first else { return nil }
        return index(of: first)
    }
}

extension AnyRealmCollection {
    /// The position of the first element matching a predicate (see
    /// `Results.filter`), or nil.  Traps for a collection that is not
    /// backed by live results (unmanaged), as filtering one does.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        guard let first = box.results("search").filter(predicateFormat, arguments: args).first else { return nil }
        return index(of: first)
    }
}

extension RealmCollection {
    /// The position of the first element matching a type-safe query, or nil
    /// (RealmSwift's `index(matching:)`): `where` with the query, then the
    /// first match's position in this collection.
    ///
    ///     dogs.index(matching: { $0.name == "Rex" && $0.age > 2 })
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        guard let first = self.where(isIncluded).first else { return nil }
        return index(of: first)
    }
}

extension MutableSet {
    /// The position, in the set's order, of the first element matching a
    /// type-safe query, or nil.  Managed sets only (see `where`).
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        guard let first = self.where(isIncluded).first else { return nil }
        return index(of: first)
    }
}

// MARK: - Key-value coding of Results (RealmSwift's Results "KVC" section)

extension Results {
    /// The value of `key` for every element, in order (`[Any?]`; nil for
    /// nil): a property of each object, or the values themselves for
    /// `"self"` (RealmSwift's `value(forKey:)`, which returns an array).
    public func value(forKey key: String) -> Any? {
        map { element -> Any? in
            if key == "self" { return (element as? AnyRealmValue).map { $0._fiefStored } ?? fiefUnwrap(element) }
            return fiefObjectValue(of: element, forKey: key, in: "Results")
        }
    }

    /// The value of `keyPath` (property names joined by '.', through
    /// links) for every element, in order (`[Any?]`; nil where a link on
    /// the way is nil).
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath == "self" { return value(forKey: "self") }
        return map { element -> Any? in fiefValue(forKeyPath: Substring(keyPath), of: element) }
    }
}

extension List {
    /// The position of the first element matching a type-safe query, or nil
    /// (see `RealmCollection.index(matching:)`).  An unmanaged list is
    /// searched in memory, as RealmSwift (which evaluates the query's
    /// predicate on each element) searches it.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        if case .unmanaged(let elements) = state {
            let (predicate, arguments) = isIncluded(Query()).fiefPredicate
            return FiefScratchQuery.firstIndex(of: elements, matching: predicate, arguments)
        }
        guard let first = self.where(isIncluded).first else { return nil }
        return index(of: first)
    }
}
