// `fief watch`: print each change set of a query's results as one JSON line,
// as commits of any process arrive (fief.h, "Results notifications"), through
// the realm's notification descriptor: poll, then deliver on this thread.
import CFief
#if canImport(Glibc)
import Glibc
#endif

/// What the callback needs: it is called on this thread, inside
/// `fief_realm_deliver_notifications`, and only records or prints.
private final class WatchState {
    let realm: OpaquePointer
    let results: OpaquePointer
    let writer: ExtendedJSONWriter
    let objectClass: Inspector.ClassInfo
    var printed = 0
    var failure: ToolError?

    init(realm: OpaquePointer, results: OpaquePointer, writer: ExtendedJSONWriter, objectClass: Inspector.ClassInfo) {
        self.realm = realm
        self.results = results
        self.writer = writer
        self.objectClass = objectClass
    }

    /// One change set as a JSON line: the version, whether it is the initial
    /// one, the results' count, the index sets (deletions and modifications
    /// in old indices, insertions and modifications_new in new ones), and
    /// the objects inserted and modified (Extended JSON, as `fief dump`).
    func line(_ changes: OpaquePointer) throws -> String {
        var failed = false
        var error = fief_error_t()
        guard fief_collection_changes_get_error(changes, &failed, &error) else { throw lastError("reading the change set") }
        if failed {
            let message = error.message.map { String(cString: $0) } ?? "unknown error"
            throw ToolError(description: "the results failed: \(message)")
        }
        var initial = false
        var deletions = 0, insertions = 0, modifications = 0, moves = 0
        guard fief_collection_changes_get_flags(changes, &initial, nil, nil),
              fief_collection_changes_get_counts(changes, &deletions, &insertions, &modifications, &moves) else {
            throw lastError("reading the change set")
        }
        let capacity = max(deletions, insertions, modifications, moves, 1)
        var deleted = [Int](repeating: 0, count: capacity), inserted = deleted, modifiedOld = deleted
        var modifiedNew = deleted, movedFrom = deleted, movedTo = deleted
        guard fief_collection_changes_get_indices(changes, capacity, &deleted, &inserted, &modifiedOld, &modifiedNew,
                                                  &movedFrom, &movedTo) else {
            throw lastError("reading the change set")
        }
        var version: UInt64 = 0
        var count = 0
        guard fief_realm_get_version(realm, &version), fief_results_count(results, &count) else {
            throw lastError("reading the results")
        }
        func list(_ values: [Int], _ n: Int) -> String { "[" + values.prefix(n).map(String.init).joined(separator: ", ") + "]" }
        func objects(_ rows: [Int], _ n: Int) throws -> String {
            var lines: [String] = []
            for row in rows.prefix(n) {
                guard let object = fief_results_get_object(results, row) else { throw lastError("reading object \(row)") }
                defer { _ = fief_release(UnsafeRawPointer(object)) }
                lines.append(try writer.objectLine(object, objectClass))
            }
            return "[" + lines.joined(separator: ", ") + "]"
        }
        let pairs = (0..<moves).map { "[\(movedFrom[$0]), \(movedTo[$0])]" }.joined(separator: ", ")
        return "{\"version\": \(version), \"initial\": \(initial), \"count\": \(count), "
            + "\"deletions\": \(list(deleted, deletions)), \"insertions\": \(list(inserted, insertions)), "
            + "\"modifications\": \(list(modifiedOld, modifications)), \"modifications_new\": \(list(modifiedNew, modifications)), "
            + "\"moves\": [\(pairs)], "
            + "\"inserted\": \(try objects(inserted, insertions)), \"modified\": \(try objects(modifiedNew, modifications))}"
    }
}

/// Watch `className` objects matching `predicate` (all when nil) in `path`
/// until `limit` change sets were printed (nil: until killed).
func watch(path: String, className: String, predicate: String?, limit: Int?) throws {
    // Observing needs a realm that can be refreshed by the notifications:
    // opened for writing, with the file's own schema (nothing is written).
    let inspector = try Inspector(path: path, readOnly: false)
    let classes = try inspector.classes()
    guard let c = classes.first(where: { $0.name == className }) else {
        throw ToolError(description: "'\(path)' has no class '\(className)'")
    }
    guard let all = fief_realm_get_objects(inspector.realm, c.key) else { throw lastError("listing objects") }
    defer { _ = fief_release(UnsafeRawPointer(all)) }
    var results = all
    if let predicate {
        guard let filtered = fief_results_filter(all, predicate, nil, 0) else { throw queryError(predicate) }
        results = filtered
    }
    defer { if results != all { _ = fief_release(UnsafeRawPointer(results)) } }

    let state = WatchState(realm: inspector.realm, results: results,
                           writer: ExtendedJSONWriter(realm: inspector.realm, classes: classes), objectClass: c)
    let userdata = Unmanaged.passUnretained(state).toOpaque()
    guard let token = fief_results_add_notification_callback(results, nil, 0, { userdata, changes in
        let state = Unmanaged<WatchState>.fromOpaque(userdata!).takeUnretainedValue()
        guard state.failure == nil, let changes else { return }
        do {
            print(try state.line(changes))
            fflush(nil)  // each line out at once (a pipe is block-buffered)
            state.printed += 1
        } catch let error as ToolError {
            state.failure = error
        } catch {
            state.failure = ToolError(description: "\(error)")
        }
    }, userdata, nil) else {
        throw lastError("watching the results")
    }
    defer { _ = fief_release(UnsafeRawPointer(token)) }

    var fd: Int32 = -1
    guard fief_realm_get_notification_fd(inspector.realm, &fd) else { throw lastError("reading the notification descriptor") }
    while limit.map({ state.printed < $0 }) ?? true {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&entry, 1, -1) < 0 {
            if errno == EINTR { continue }
            throw ToolError(description: "waiting for commits: \(String(cString: strerror(errno)))")
        }
        guard fief_realm_deliver_notifications(inspector.realm, nil) else { throw lastError("delivering the changes") }
        if let failure = state.failure { throw failure }
    }
    withExtendedLifetime(state) {}
}
