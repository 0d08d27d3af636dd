import Synchronization

/// The parsed form of the predicates filtered with recently, by text.
///
/// An application filters with the same few predicates over and over, with
/// other arguments (`name == $0` per lookup); arguments are bound when a
/// predicate is compiled, so the parsed tree depends on the text alone and
/// is shared (it is an immutable value).  A lookup hashes the text and
/// copies the tree's references; a miss parses and remembers the tree.  Parse errors
/// are not remembered (they are thrown again by parsing again).  At
/// `capacity` texts the cache starts afresh, which keeps it small whatever
/// an application does (generated predicates with constants written in).
enum ParsedQueryCache {
    static let capacity = 256
    /// Texts longer than this are parsed every time (rarely repeated, and
    /// hashing them would cost what parsing costs).
    static let maxTextBytes = 1024

    private static let entries = Mutex<[[UInt8]: ParsedQuery]>([:])

    /// `QueryParser.parseQuery(text)`, from the cache when `text` was parsed lately.
    static func parseQuery(_ text: String) throws(QueryParseError) -> ParsedQuery {
        if text.utf8.count > maxTextBytes { return try QueryParser.parseQuery(text) }
        // Keyed by the UTF-8 bytes: Swift's String equality holds for
        // canonically equivalent texts ("é" and "e\u{301}"), which parse to
        // different string constants.
        let key = Array(text.utf8)
        if let known = entries.withLock({ $0[key] }) { return known }
        let parsed = try QueryParser.parseQuery(text)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = parsed
        }
        return parsed
    }
}
