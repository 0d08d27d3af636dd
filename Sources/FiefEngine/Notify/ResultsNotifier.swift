import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// What a results callback is told (RealmSwift's `RealmCollectionChange`).
public enum ResultsChange: Sendable {
    /// The first call: the results as they are at that delivery (writes
    /// committed between registration and this call are in it).
    case initial
    /// The results changed since the last call: rows deleted (old
    /// indices), inserted and modified (old and new indices).
    case update(IndexChangeSet)
    /// The results cannot be evaluated any more (their class went, the
    /// file is damaged): the last call.
    case error(FiefError)
}

/// A results notifier (docs/design.md, "Notifiers"): results of objects (of
/// a class, of a list, set or map of links, or linking objects; filtered,
/// sorted, distinct, limited) and the callback told how they change.
///
/// On the worker (`run(to:)`), it keeps its own frozen copy of the realm
/// (`Realm.notifierCopy`), whose snapshot is its *base* (the version its
/// rows were evaluated at, pinning the change records it needs next), the
/// results resolved in that copy, and their rows.  Each run merges the
/// records base+1 ... new (`Snapshot.changes(since:)`); the results are
/// evaluated again only when a record touched what they read (their class's
/// objects or the columns their filters and stages read, of their class and
/// of the classes their key paths reach, the list they come from), and the
/// rows diffed with `ChangeBuilder.calculate` (deleted objects' rows
/// deletions even if the key is back); rows whose object has a write that
/// the key-path filter counts (`KeyPathFilter`) are modifications.  Changes
/// found before a delivery merge into one change set; until the first
/// delivery there is nothing to merge (that call is `initial`, the state at
/// delivery).
///
/// On the delivering thread (`deliver`), when the realm reads the version
/// the worker reached, the worker's rows are handed to the host's results
/// (`ObjectResults.adoptRows`: reading them in the callback evaluates
/// nothing), then the callback runs under the notifier's recursive mutex,
/// as `RealmObserver`'s.
public final class ResultsNotifier: Notifier, @unchecked Sendable {
    private let channel: DeliveryChannel
    /// The host's results (its realm is the host's): the rows delivered go here.
    private let results: ObjectResults
    private let slot: CallbackSlot<ResultsChange>
    /// What counts as a modification.
    public let keyPathFilter: KeyPathFilter

    // The worker's (the worker thread only, one run at a time):
    private let workerRealm: Realm
    private let workerResults: ObjectResults
    private var baseVersion: UInt64 = 0
    private var baseRows: [Int64] = []
    /// The cluster masks of `baseRows` when the run that made them kept them
    /// (`ObjectResults.adoptRows` takes them instead of making them from the
    /// rows on the delivering thread); nil: the delivery makes them.
    private var baseClusters: [(Int64, Bitmap)]?
    /// The order keys of `baseRows` when the sorted update made them
    /// (`ObjectResults.sortedRows`), kept for the next; nil: made then.
    private var baseOrderKeys: [UInt64]?
    private var hasRun = false
    private var failed = false
    private let skips = CommitSkips()

    // Shared with the delivering thread, under `state`:
    private let state = NotifyLock()
    private var pendingChanges = ChangeBuilder()
    private var pendingRows: [Int64] = []
    private var pendingClusters: [(Int64, Bitmap)]?
    private var pendingVersion: UInt64 = 0
    private var pendingError: FiefError?
    private var hasPending = false
    private var initialDelivered = false
    private var reachedVersionValue: UInt64 = 0

    /// The version the worker's last run reached (tests wait for it).
    var reachedVersion: UInt64 { state.locked { reachedVersionValue } }

    /// Under the host realm's lock (see `Realm.addResultsNotifier`).
    init(channel: DeliveryChannel, results: ObjectResults, keyPathFilter: KeyPathFilter,
         callback: @escaping (ResultsChange) -> Void) throws(FiefError) {
        self.channel = channel
        self.results = results
        self.keyPathFilter = keyPathFilter
        slot = CallbackSlot(callback)
        workerRealm = try results.realm.notifierCopy()
        workerResults = try results.resolved(in: workerRealm)
        // The sorted update starts from the order keys the evaluation's sort made.
        workerResults.keepsOrderKeys = workerResults.updatesSortedRows
    }

    deinit {
        state.destroy()
    }

    public var isReleased: Bool { slot.isReleased }

    public var hasPendingDelivery: Bool { state.locked { hasPending } }

    // MARK: The worker

    public func run(to snapshot: Snapshot) -> Bool {
        skips.run(base: { baseVersion }, to: snapshot, step: runOnce(to:), silent: moveSilently(to:))
    }

    public func skip(_ skip: CommitSkip) { skips.add(skip) }

    /// A skipped commit: the base moves to `snapshot` (its rows evaluated
    /// there), nothing added to what is pending.
    private func moveSilently(to snapshot: Snapshot) {
        guard hasRun, !failed, snapshot.version > baseVersion else { return }
        do throws(FiefError) {
            let version = try workerRealm.lock.withLock { () throws(FiefError) -> UInt64 in try workerRealm.moveWorker(to: snapshot) }
            let rows = try evaluate()
            baseRows = rows
            baseClusters = nil
            baseOrderKeys = workerResults.lastOrderKeys
            baseVersion = version
            state.locked {
                reachedVersionValue = version
                if hasPending {
                    pendingRows = rows
                    pendingClusters = nil
                    pendingVersion = version
                }
            }
        } catch {
            failed = true
            state.locked {
                pendingError = error
                hasPending = true
            }
        }
    }

    private func runOnce(to snapshot: Snapshot) -> Bool {
        if failed { return false }
        if hasRun && snapshot.version <= baseVersion {
            state.locked { reachedVersionValue = max(reachedVersionValue, snapshot.version) }
            return false
        }
        do throws(FiefError) {
            let changes = hasRun ? try snapshot.changes(since: baseVersion) : nil
            let reevaluate = changes.map(affectsRows) ?? true
            // A few objects of sorted results touched: their rows found by
            // their old values, before the worker moves (no pass over the rows).
            let oldPlaces = try changes.flatMap { (changes) throws(FiefError) in reevaluate ? try placesOfFewTouched(changes) : nil }
            let schemaBefore = workerRealm.schema
            let version = try workerRealm.lock.withLock { () throws(FiefError) -> UInt64 in try workerRealm.moveWorker(to: snapshot) }
            if let changes, changes.values.contains(where: { !$0.schema.isEmpty }) { try checkSchema(before: schemaBefore) }
            if !hasRun {
                let rows = try evaluate()
                hasRun = true
                baseRows = rows
                baseClusters = nil
                baseOrderKeys = workerResults.lastOrderKeys
                baseVersion = version
                return state.locked { () -> Bool in
                    reachedVersionValue = version
                    pendingRows = rows
                    pendingClusters = nil
                    pendingVersion = version
                    hasPending = true
                    return true
                }
            }
            let builder: ChangeBuilder
            let rows: [Int64]
            // Read after the sorted update is tried (it needs the only reference to shift them in place).
            let orderKeys: [UInt64]?
            if let changes, version == snapshot.version {
                if !reevaluate && !keyPathFilter.mayCount(changes) {
                    return moveBase(rows: baseRows, version: version, builder: ChangeBuilder(), clusters: baseClusters, orderKeys: baseOrderKeys)
                }
                if !reevaluate, let made = try modificationsOfRowsKept(changes) {
                    return moveBase(rows: baseRows, version: version, builder: made, clusters: baseClusters, orderKeys: baseOrderKeys)
                }
                if reevaluate, let made = try changeOfSortedRows(changes, oldPlaces: oldPlaces) {
                    return moveBase(rows: made.rows, version: version, builder: made.builder, clusters: made.clusters, orderKeys: made.orderKeys)
                }
                rows = reevaluate ? try evaluate() : baseRows
                orderKeys = reevaluate ? workerResults.lastOrderKeys : baseOrderKeys
                let own = changes[workerResults.tableKey]
                let deleted: ((Int64) -> Bool)?
                if let own, own.cleared {
                    deleted = { _ in true }
                } else if let own, !own.deleted.isEmpty {
                    deleted = { own.deleted.contains($0) }
                } else {
                    deleted = nil
                }
                let filter = keyPathFilter, realm = workerRealm
                let counted = filter.mayCount(changes)
                builder = try workerRealm.lock.withLock { () throws(FiefError) -> ChangeBuilder in
                    var failure: FiefError?
                    let modified = counted ? try modifiedRows(changes, rowCount: rows.count) : nil
                    let made = ChangeBuilder.calculate(old: baseRows, new: rows, inKeyOrder: workerResults.rowsInKeyOrder, uniqueKeys: workerResults.list == nil, deleted: deleted) { key in
                        if let modified { return modified.contains(key) }
                        guard counted, failure == nil else { return false }
                        do throws(FiefError) { return try filter.isModified(key, changes: changes, realm: realm) } catch {
                            failure = error
                            return false
                        }
                    }
                    if let failure { throw failure }
                    return made
                }
            } else {
                // The records are gone (the file was copied or upgraded
                // since): the rows alone, without modifications.
                rows = try evaluate()
                orderKeys = workerResults.lastOrderKeys
                builder = ChangeBuilder.calculate(old: baseRows, new: rows, inKeyOrder: workerResults.rowsInKeyOrder) { _ in false }
            }
            return moveBase(rows: rows, version: version, builder: builder, orderKeys: orderKeys)
        } catch {
            failed = true
            return state.locked { () -> Bool in
                pendingError = error
                hasPending = true
                return true
            }
        }
    }

    /// The run reached `version` with `rows` (and their cluster masks and
    /// order keys, when kept): keep them as the base and merge `builder`
    /// into what is pending.  Returns whether something is to be delivered.
    private func moveBase(rows: [Int64], version: UInt64, builder: ChangeBuilder, clusters: [(Int64, Bitmap)]? = nil,
                          orderKeys: [UInt64]? = nil) -> Bool {
        baseRows = rows
        baseClusters = clusters
        baseOrderKeys = orderKeys
        baseVersion = version
        return state.locked { () -> Bool in
            reachedVersionValue = version
            if !hasPending && builder.isEmpty { return false }
            if initialDelivered { pendingChanges.merge(builder) }
            pendingRows = rows
            pendingClusters = clusters
            pendingVersion = version
            if !pendingChanges.isEmpty || !initialDelivered { hasPending = true }
            return hasPending
        }
    }

    /// Whether the key-path filter follows links back into the results'
    /// own class (then a row may be modified through another of its objects).
    private lazy var filterReachesOwnClass: Bool = {
        let own = workerResults.tableKey
        return keyPathFilter.root.links.contains { $0.node.classes.contains(own) }
            || keyPathFilter.root.backlinks.contains { $0.node.classes.contains(own) }
    }()

    /// The change set when the rows stay: only rows whose object may be
    /// modified are looked at, not every row (as `ChangeBuilder.calculate`
    /// does).  When only the results' own class was written and its objects
    /// reach no written object through links, those are the objects the
    /// records name (each asked `isModified`); else, when the writes are few
    /// beside the rows, the objects `KeyPathFilter.modifiedRoots` finds from
    /// the writes up.  Nil when neither holds.
    private func modificationsOfRowsKept(_ changes: [UInt32: ObjectChanges]) throws(FiefError) -> ChangeBuilder? {
        let ownTable = workerResults.tableKey
        let filter = keyPathFilter, realm = workerRealm, rows = baseRows
        let inKeyOrder = workerResults.rowsInKeyOrder
        if changes.count == 1, let own = changes[ownTable], !filterReachesOwnClass {
            var touched = own.modifiedObjects
            for set in own.linkingObjects.values { touched.formUnion(set) }
            return try workerRealm.lock.withLock { () throws(FiefError) -> ChangeBuilder in
                var made = ChangeBuilder()
                for index in Self.indices(of: touched.keys, in: rows, inKeyOrder: inKeyOrder, contains: { touched.contains($0) })
                where try filter.isModified(rows[index], changes: changes, realm: realm) {
                    made.modifications.add(index)
                }
                return made
            }
        }
        return try workerRealm.lock.withLock { () throws(FiefError) -> ChangeBuilder? in
            guard let modified = try modifiedRows(changes, rowCount: rows.count) else { return nil }
            var made = ChangeBuilder()
            if modified.isEmpty { return made }
            for index in Self.indices(of: modified.keys, in: rows, inKeyOrder: inKeyOrder, contains: { modified.contains($0) }) {
                made.modifications.add(index)
            }
            return made
        }
    }

    /// The positions (ascending) in `rows` of the objects `keys` (ascending):
    /// a binary search each when the rows are in key order, else one pass
    /// comparing each row with the keys when they are a few, else asking
    /// `contains`.
    private static func indices(of keys: [Int64], in rows: [Int64], inKeyOrder: Bool, contains: (Int64) -> Bool) -> [Int] {
        if keys.isEmpty { return [] }
        guard inKeyOrder else {
            if keys.count <= 4 { return rows.indices.filter { keys.contains(rows[$0]) } }
            return rows.indices.filter { contains(rows[$0]) }
        }
        var found: [Int] = []
        var low = 0
        for key in keys {
            var high = rows.count
            while low < high {
                let mid = (low + high) >> 1
                if rows[mid] < key { low = mid + 1 } else { high = mid }
            }
            if low < rows.count && rows[low] == key { found.append(low) }
        }
        return found
    }

    /// The old places of the rows of the few objects (up to 4) of the
    /// results' class that `changes` touched, read at the base version
    /// (`ObjectResults.oldPlaces`), for the sorted update; nil when the
    /// update would not serve them (then it finds them itself, if it runs).
    /// Before the worker moves, for commits that change the rows (rows that
    /// stay need no places).
    private func placesOfFewTouched(_ changes: [UInt32: ObjectChanges]) throws(FiefError) -> (places: [Int], indexOfRank: [Int32])? {
        guard let orderKeys = baseOrderKeys, let own = changes[workerResults.tableKey], !own.cleared, own.schema.isEmpty else { return nil }
        let touched = own.touchedObjects, results = workerResults, rows = baseRows
        return try workerRealm.lock.withLock { () throws(FiefError) in try results.oldPlaces(of: touched, in: rows, orderKeys: orderKeys) }
    }

    /// The rows and change set when objects of the results' own class were
    /// written (created, changed or deleted), for results filtered and
    /// sorted by their own properties
    /// (`ObjectResults.sortedRows(from:orderKeys:touching:deleted:modified:alsoModified:clusters:)`):
    /// the touched objects leave the old rows and go where the sort puts
    /// them, so the query is not run again nor the rows matched.  Rows
    /// modified through links (the filter reaching the class again, or
    /// other classes written) are found from the writes up
    /// (`KeyPathFilter.modifiedRoots`).  Nil when that does not hold or costs more than
    /// evaluating again.
    private func changeOfSortedRows(_ changes: [UInt32: ObjectChanges], oldPlaces: (places: [Int], indexOfRank: [Int32])?) throws(FiefError)
        -> (rows: [Int64], builder: ChangeBuilder, clusters: [(Int64, Bitmap)]?, orderKeys: [UInt64]?)? {
        let ownTable = workerResults.tableKey
        guard let own = changes[ownTable], !own.cleared, own.schema.isEmpty else { return nil }
        let touched = own.touchedObjects
        let filter = keyPathFilter, realm = workerRealm, results = workerResults, old = baseRows
        var clusters = baseClusters
        var orderKeys = baseOrderKeys
        baseOrderKeys = nil  // the update's alone (a single move is made in place); set again by moveBase
        let counted = filter.mayCount(changes)
        let throughLinks = counted && (filterReachesOwnClass || changes.count > 1)
        return try workerRealm.lock.withLock { () throws(FiefError) -> (rows: [Int64], builder: ChangeBuilder, clusters: [(Int64, Bitmap)]?, orderKeys: [UInt64]?)? in
            var roots = KeySet()
            var alsoModified = KeySet()
            if throughLinks {
                // Up to as many watched writes as rows: checking every row
                // instead costs more (each reads its links).
                guard let found = try filter.modifiedRoots(changes: changes, realm: realm, limit: old.count) else { return nil }
                roots = found
                alsoModified = found
                alsoModified.subtract(touched)
            }
            guard let made = try results.sortedRows(from: old, orderKeys: &orderKeys, changes: own, oldPlaces: oldPlaces, modified: { (key) throws(FiefError) -> Bool in
                if throughLinks { return roots.contains(key) }
                return counted ? try filter.isModified(key, changes: changes, realm: realm) : false
            }, alsoModified: alsoModified, clusters: &clusters) else { return nil }
            if clusters == nil {
                // The first time: made here, kept up to date from then on.
                var masks = [(Int64, Bitmap)]()
                if ObjectResults.clustersWithoutSorting(made.rows, into: &masks) { clusters = masks }
            }
            return (made.rows, made.changes, clusters, orderKeys)
        }
    }

    /// The objects of the results' class that `changes` modify, as the
    /// key-path filter counts them, found from the writes up
    /// (`KeyPathFilter.modifiedRoots`) when there are no more writes than
    /// rows; nil when asking each row is cheaper.  Under the worker
    /// realm's lock.
    private func modifiedRows(_ changes: [UInt32: ObjectChanges], rowCount: Int) throws(FiefError) -> KeySet? {
        // A write costs one step up per link; a row checked costs a walk
        // down its links: up to as many writes as rows, the writes' way.
        let limit = rowCount
        if limit == 0 { return nil }
        return try keyPathFilter.modifiedRoots(changes: changes, realm: workerRealm, limit: limit)
    }

    /// The results read a class or property a schema change removed (another
    /// realm's migration): they cannot be evaluated any more, so the run
    /// fails with `.invalidatedResults` naming it (delivered once as `.error`).
    private func checkSchema(before: Schema) throws(FiefError) {
        let schema = workerRealm.schema
        var read: [(table: UInt32, columns: [UInt32])] = [(workerResults.tableKey, workerResults.dependentColumns)]
        read += workerResults.linkedColumns
        for (table, columns) in read {
            let className = before.objectClass(key: table)?.name ?? "#\(table)"
            guard let objectClass = schema.objectClass(key: table) else {
                throw FiefError(.invalidatedResults, "class '\(className)', which these results read, was removed by a schema change")
            }
            for column in columns where objectClass.property(key: column) == nil {
                let name = before.objectClass(key: table)?.property(key: column)?.name ?? "#\(column)"
                throw FiefError(.invalidatedResults, "property '\(className).\(name)', which these results read, was removed or changed by a schema change")
            }
        }
    }

    /// The rows at the worker's version.  A list whose owner is gone holds nothing.
    private func evaluate() throws(FiefError) -> [Int64] {
        try workerRealm.lock.withLock { () throws(FiefError) -> [Int64] in
            do throws(FiefError) {
                return try workerResults.currentRows().rows
            } catch where error.code == .invalidatedObject && (workerResults.list != nil || workerResults.linking != nil) {
                return []
            }
        }
    }

    /// Whether `changes` touch what the rows are made of: the class's
    /// objects, the columns the filters and stages read (of the class and
    /// of the classes their key paths reach), the list they come from, or
    /// the target of linking objects.
    private func affectsRows(_ changes: [UInt32: ObjectChanges]) -> Bool {
        let results = workerResults
        func touches(_ table: UInt32, _ columns: [UInt32]) -> Bool {
            guard let change = changes[table] else { return false }
            if change.cleared || !change.inserted.isEmpty || !change.deleted.isEmpty || !change.schema.isEmpty { return true }
            return columns.contains { change.modified[$0] != nil }
        }
        if touches(results.tableKey, results.dependentColumns) { return true }
        for linked in results.linkedColumns where touches(linked.table, linked.columns) { return true }
        if let list = results.list, let change = changes[list.table] {
            if change.cleared || change.deleted.contains(list.owner) { return true }
            if change.modified[list.column]?.contains(list.owner) == true { return true }
        }
        if let linking = results.linking, let change = changes[linking.targetClass] {
            if change.cleared || change.deleted.contains(linking.target) { return true }
        }
        return false
    }

    // MARK: Delivery

    public func deliver(_ delivery: Delivery) {
        if delivery.kind == .afterChange { return }
        let hostRealm = results.realm
        // The rows are handed over only where the realm reads their version
        // (not behind it, not in a write): else they wait for a later round.
        let taken = (try? hostRealm.lock.withLock { () -> ResultsChange? in
            guard hostRealm.reads(version: delivery.version) || state.locked({ pendingError != nil }) else { return nil }
            return state.locked { () -> ResultsChange? in
                guard hasPending else { return nil }
                if let pendingError {
                    hasPending = false
                    return .error(pendingError)
                }
                guard pendingVersion == delivery.version else { return nil }
                // A write begun before the first delivery: the initial state
                // is the one after it (RealmSwift's documented example).
                if !initialDelivered && delivery.kind == .beforeWrite { return nil }
                hasPending = false
                results.adoptRows(pendingRows, clusters: pendingClusters)
                pendingRows = []
                pendingClusters = nil
                if !initialDelivered {
                    initialDelivered = true
                    pendingChanges = ChangeBuilder()
                    return .initial
                }
                let changes = pendingChanges.finalize()
                pendingChanges = ChangeBuilder()
                return .update(changes)
            }
        }) ?? nil
        guard let taken else { return }
        slot.withCallback { $0(taken) }
    }

    public func release() {
        if slot.release() { channel.remove(self) }
    }
}
