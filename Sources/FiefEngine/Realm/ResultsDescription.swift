// The canonical text of results' query: realm-core's `Query::get_description`
// followed by `DescriptorOrdering::get_description`.
import FiefStorage

extension Results {
    /// The query these results answer, as canonical text (see
    /// QuerySerializer.swift) that parses back to the same query: the
    /// filters joined by AND (`TRUEPREDICATE` without filters), their
    /// arguments written in as literals, then the stages (`SORT(name ASC)
    /// DISTINCT(owner.name) LIMIT(10)`; for values `self > 2 SORT(self
    /// DESC)`).  What results start from (a class, a collection, linking
    /// objects) is not part of the text.
    ///
    ///     try dogs.filtered("age < $0", arguments: [5]).sorted(by: [("name", true)]).queryDescription()
    ///     // "age < 5 SORT(name ASC)"
    ///
    /// - Throws: `.queryInvalid` when an argument has no literal (a nested
    ///   list or dictionary), or names nothing the language can spell.
    public func queryDescription() throws(FiefError) -> String {
        var ordering: [QueryOrderingStage] = []
        for stage in stages {
            switch stage {
            case .sort(let keys):
                ordering.append(.sort(keys.map { QuerySortKey(keyPath: ResultsDescription.path($0.path.text), ascending: $0.ascending) }))
            case .distinct(let paths):
                ordering.append(.distinct(paths.map { ResultsDescription.path($0.text) }))
            case .limit(let n):
                ordering.append(.limit(n))
            }
        }
        return try ResultsDescription.text(filters, ordering)
    }
}

enum ResultsDescription {
    /// The key path of a sort or distinct stage ("owner.name").
    static func path(_ text: String) -> QueryKeyPath {
        QueryKeyPath(properties: text.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The filters joined by AND, then `ordering`.
    static func text(_ filters: [CompiledQuery], _ ordering: [QueryOrderingStage]) throws(FiefError) -> String {
        var predicate: QueryExpression? = nil
        for filter in filters {
            guard let next = filter.predicate else {
                throw FiefError(.queryInvalid, "cannot write the query as text: an argument has no literal (a nested list or dictionary)")
            }
            predicate = predicate.map { .and($0, next) } ?? next
        }
        return try QuerySerializer.text(ParsedQuery(predicate: predicate ?? .alwaysTrue, ordering: ordering))
    }
}
