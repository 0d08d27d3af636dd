import CLMDB
import FiefStorage

/// A full-text search as written after `TEXT`: words separated by white
/// space, every one required; `word*` requires a token starting with
/// `word`; `-word` excludes the objects having `word`.  Parsed as
/// realm-core parses it: each word must be one token (`full-text` is an
/// error: search `full text`), a word both required and excluded is an
/// error, and a search of only exclusions matches every object without
/// the excluded words (null texts included).
struct FullTextSearch: Equatable {
    /// Tokens every match has.
    var words: [[UInt8]] = []
    /// Prefixes of a token every match has.
    var prefixes: [[UInt8]] = []
    /// Tokens no match has.
    var excluded: [[UInt8]] = []

    /// Parse `text`; `what` names it in messages ("the argument $0"),
    /// `code` is the error code to throw.
    static func parse(_ text: UnsafeRawBufferPointer, what: String, code: FiefError.Code) throws(FiefError) -> FullTextSearch {
        var search = FullTextSearch()
        var start = -1
        var problem: String?
        func word(_ range: Range<Int>) {
            guard problem == nil else { return }
            var bytes = UnsafeRawBufferPointer(rebasing: text[range])
            let written = String(decoding: bytes, as: UTF8.self)
            let excluding = bytes[0] == UInt8(ascii: "-")
            if excluding { bytes = UnsafeRawBufferPointer(rebasing: bytes[1...]) }
            let prefix = !bytes.isEmpty && bytes[bytes.count - 1] == UInt8(ascii: "*")
            var tokens: [[UInt8]] = []
            FullTextTokenizer.forEachToken(bytes) { tokens.append(Array($0)) }
            if tokens.count != 1 {
                problem = tokens.isEmpty
                    ? "'\(written)' holds no letter or digit"
                    : "'\(written)' is \(tokens.count) words: a word of a search holds only letters and digits (search '\(tokens.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " "))' for all of them)"
                return
            }
            if excluding && prefix {
                problem = "'\(written)' excludes a prefix, which full-text search cannot do: exclude whole words"
                return
            }
            let token = tokens[0]
            if excluding {
                if !search.excluded.contains(token) { search.excluded.append(token) }
            } else if prefix {
                if !search.prefixes.contains(token) { search.prefixes.append(token) }
            } else if !search.words.contains(token) {
                search.words.append(token)
            }
        }
        for i in 0..<text.count {
            let c = text[i]
            let space = c == 0x20 || (c >= 0x09 && c <= 0x0D)
            if space {
                if start >= 0 { word(start..<i) }
                start = -1
            } else if start < 0 {
                start = i
            }
        }
        if start >= 0 { word(start..<text.count) }
        if let problem { throw FiefError(code, "invalid full-text search in \(what): \(problem)") }
        if search.words.isEmpty && search.prefixes.isEmpty && search.excluded.isEmpty {
            throw FiefError(code, "invalid full-text search in \(what): it holds no word")
        }
        if let both = search.excluded.first(where: { search.words.contains($0) }) {
            throw FiefError(code, "invalid full-text search in \(what): '\(String(decoding: both, as: UTF8.self))' is both searched for and excluded")
        }
        return search
    }

    /// Whether the tokens of a text (sorted, distinct: `FullTextTokenizer.tokens`) match.
    func matches(tokens: [[UInt8]]) -> Bool {
        for word in words where !tokens.contains(word) { return false }
        for prefix in prefixes where !tokens.contains(where: { $0.starts(with: prefix) }) { return false }
        for word in excluded where tokens.contains(word) { return false }
        return true
    }
}

/// `property TEXT search`, bound: the property (full-text indexed) and the
/// parsed search.  A class, so that a scan keeps its matches by identity.
final class FullTextPredicate {
    let property: Property
    let search: FullTextSearch

    init(property: Property, search: FullTextSearch) {
        self.property = property
        self.search = search
    }
}

extension QueryCompiler {
    /// `lhs TEXT rhs` over `target`: `lhs` a full-text-indexed string
    /// property of the class (or a key path to one, through links, lists
    /// and backlinks: bound backward by the binder), `rhs` a string literal
    /// or argument.
    static func fullText(_ lhs: QueryOperand, _ rhs: QueryOperand, _ target: QueryTarget, _ arguments: [QueryArgument], realm: Realm?) throws(FiefError) -> QueryNode {
        let scope = QueryBinder.Scope(target: target, arguments: arguments, realm: realm)
        if !scope.isScalar(lhs) {
            return try QueryBinder.fullText(lhs, rhs, scope)
        }
        guard case .objects(let table) = target else {
            throw FiefError(.queryInvalid, "TEXT searches a full-text-indexed string property of objects, not values of a collection")
        }
        guard case .keyPath = lhs else {
            throw FiefError(.queryInvalid, "TEXT takes a full-text-indexed string property on its left and the words searched for on its right ('bio TEXT \"dog -cat\"')")
        }
        let property = try self.property(lhs, target)
        guard property.isFullTextIndexed, table.fullTextDatabases[property.key] != nil else {
            throw FiefError(.queryInvalid, "TEXT needs a full-text index: '\(table.objectClass.name).\(property.name)' (\(property.type.name)) has none (declare the property full-text indexed)")
        }
        let what: String
        let text: [UInt8]
        let code: FiefError.Code
        switch rhs {
        case .constant(.string(let s)):
            text = Array(s.utf8)
            what = "'\(s)'"
            code = .queryInvalid
        case .argument(let n):
            guard n >= 0, n < arguments.count else {
                throw FiefError(.queryArgument, "the search of TEXT is argument $\(n), but \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given")
            }
            guard !arguments[n].isList, arguments[n].values.count == 1, case .string(let s) = arguments[n].values[0] else {
                throw FiefError(.queryArgument, "the search of TEXT (argument $\(n)) must be a string")
            }
            text = Array(s)
            what = "argument $\(n)"
            code = .queryArgument
        default:
            throw FiefError(.queryInvalid, "the search of TEXT must be a string literal or a string argument ('bio TEXT $0')")
        }
        let search = try typed { try text.withUnsafeBytes { (raw) throws(FiefError) in try FullTextSearch.parse(raw, what: what, code: code) } }
        return .fullText(FullTextPredicate(property: property, search: search))
    }
}

extension QueryBinder {
    /// `path TEXT rhs` for a key path leaving the class tested: the search
    /// bound over the class the path ends at, reached backward.
    static func fullText(_ lhs: QueryOperand, _ rhs: QueryOperand, _ scope: Scope) throws(FiefError) -> QueryNode {
        guard case .path(let path, let quantifier) = try side(lhs, scope), !path.expression.readsNested else {
            throw FiefError(.queryInvalid, "TEXT takes a full-text-indexed string property (or a key path to one) on its left")
        }
        return try reach(path, quantifier, scope) { leaf in .fullText(leaf, rhs) }
    }
}
