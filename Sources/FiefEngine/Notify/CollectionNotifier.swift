import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// What a list, set or map callback is told (RealmSwift's
/// `RealmCollectionChange`, and `RealmMapChange` for maps).
public enum CollectionChange: Sendable {
    /// The first call: the collection as it is at that delivery.
    case initial
    /// The collection changed since the last call: positions deleted (old
    /// indices), inserted and modified (old and new indices), moves
    /// (lists); for a map, also the keys (`MapChangeSet`).  `rootDeleted`:
    /// the owner went (every old position deleted); the last call.
    case update(IndexChangeSet, MapChangeSet?)
    /// The collection cannot be read any more (its class or property went,
    /// the file is damaged): the last call.
    case error(FiefError)
}

/// A notifier of one list, set or map property (docs/design.md,
/// "Collection notifiers (slice 3, as built)"): one mechanism for the
/// three kinds, over the collection's address (`CollectionRef`).
///
/// On the worker it keeps a frozen copy of the realm (`Realm.notifierCopy`)
/// whose snapshot is its base, and of the collection at the base only its
/// size (lists) or its keys (sets: element keys; maps: map keys).  Each run
/// merges the records base+1 ... new: the owner's deletion (its class's
/// record) gives every old position deleted and `rootDeleted`, then the
/// notifier is silent; a list's operations (`Snapshot.listChanges`) are
/// replayed into a `ChangeBuilder` (nothing is read); a set's or map's
/// entry changes (`Snapshot.collectionChanges`) say whether it changed,
/// and if so its keys are read and diffed in key order (the keys the
/// records name as deleted, inserted and, for maps, modified).  Elements
/// that are objects are modified when the key-path filter counts a write
/// to them (`KeyPathFilter`, Realm's default depth); only then are the
/// elements read.  A list or dictionary nested in a mixed value is read
/// and compared with its base (`NestedDiff`) when the records name a write
/// of the owner's mixed property.  Several runs merge until a delivery; the
/// first delivery is `initial`.
public final class CollectionNotifier: Notifier, @unchecked Sendable {
    private let channel: DeliveryChannel
    private let hostRealm: Realm
    public let ref: CollectionRef
    private let slot: CallbackSlot<CollectionChange>
    /// What counts as a modification of an element that is an object; nil
    /// for collections of values.
    public let keyPathFilter: KeyPathFilter?

    // The worker's:
    private let workerRealm: Realm
    private var baseVersion: UInt64 = 0
    private var baseCount = 0
    private var baseKeys: [[UInt8]] = []
    /// A map of objects: the object each key's value links to at the base
    /// (a value nulled by its target's deletion is a modified key even
    /// where no entry record says so: a class emptied at once).
    private var baseLinks: [Int64?] = []
    /// A nested collection's contents at the base (see `NestedDiff`).
    private var baseNested = NestedContents()
    /// Filtered or sorted results of the collection's values, observed
    /// through it (`Realm.addValueResultsNotifier`), read in the worker's
    /// realm; their rows (positions in the collection) at the base.
    private let view: ValueResults?
    private var baseViewRows: [Int64] = []
    private var tracksLinks: Bool { ref.kind == .map && keyPathFilter != nil }
    /// The class the elements link to (collections of objects).
    private let linkTarget: UInt32?
    private var hasRun = false
    private var finished = false
    /// Commits made without notifying this notifier.
    private let skips = CommitSkips()

    // Shared with the delivering thread, under `state`:
    private let state = NotifyLock()
    private var pendingChanges = ChangeBuilder()
    private var pendingMapChanges = MapChangeBuilder()
    private var pendingVersion: UInt64 = 0
    private var pendingError: FiefError?
    private var hasPending = false
    private var initialDelivered = false
    private var reachedVersionValue: UInt64 = 0

    /// The version the worker's last run reached (tests wait for it).
    var reachedVersion: UInt64 { state.locked { reachedVersionValue } }

    private var id: ListID { ListID(table: ref.table, column: ref.property, owner: ref.owner) }

    /// Under the host realm's lock (see `Realm.addCollectionNotifier`).
    init(channel: DeliveryChannel, realm: Realm, ref: CollectionRef, keyPathFilter: KeyPathFilter?, view: ValueResults? = nil,
         callback: @escaping (CollectionChange) -> Void) throws(FiefError) {
        self.channel = channel
        hostRealm = realm
        self.ref = ref
        self.keyPathFilter = keyPathFilter
        slot = CallbackSlot(callback)
        let column = try realm.table(ref.table).column(ref.property)
        linkTarget = column.elementType == .link ? column.linkTarget : nil
        let copy = try realm.notifierCopy()
        workerRealm = copy
        self.view = view.map { $0.valueResults(filters: $0.filters, stages: $0.stages, realm: copy) }
    }

    deinit {
        state.destroy()
    }

    public var isReleased: Bool { slot.isReleased }

    public var hasPendingDelivery: Bool { state.locked { hasPending } }

    // MARK: Reading the collection (worker)

    /// The collection at the worker's version: its size, keys (sets and
    /// maps, in key order) and, per position, the object an element links
    /// to (when `links`).  A deleted owner: nil.
    private struct Contents {
        var count = 0
        var keys: [[UInt8]] = []
        var links: [Int64?] = []
        /// A nested collection's values (see `NestedDiff`).
        var nested = NestedContents()
    }

    private func read(links: Bool) throws(FiefError) -> Contents? {
        let realm = workerRealm, ref = ref, id = id
        return try realm.lock.withLock { () throws(FiefError) -> Contents? in
            if ref.isNested {
                guard let nested = try realm.nestedContents(ref) else { return nil }
                return Contents(count: nested.count, keys: nested.keys, nested: nested)
            }
            let table = try realm.table(ref.table)
            guard try realm.isLive(table, ref.owner) else { return nil }
            let column = try table.column(ref.property)
            var contents = Contents()
            switch ref.kind {
            case .list:
                let list = realm.list(ref)
                contents.count = try list.count()
                if links {
                    contents.links.reserveCapacity(contents.count)
                    for i in 0..<contents.count {
                        if case .link(_, let key) = try list.value(at: i) { contents.links.append(key) } else { contents.links.append(nil) }
                    }
                }
            case .set, .map:
                let isMap = ref.kind == .map
                let dbi = isMap ? try table.mapDatabase(column.key) : try table.setDatabase(column.key)
                let entries = try realm.collectionEntries(id, dbi, sealed: column.key).entries
                contents.count = entries.count
                contents.keys.reserveCapacity(entries.count)
                for entry in entries {
                    contents.keys.append(Array(entry.key))
                    guard links else { continue }
                    let value = isMap ? MixedCoding.decode(entry.value)
                        : SetStore.storedElement(entry.key, entry.value, type: column.elementType, linkTarget: column.linkTarget)
                    if case .link(_, let key)? = value { contents.links.append(key) } else { contents.links.append(nil) }
                }
            }
            return contents
        }
    }

    // MARK: The worker

    public func run(to snapshot: Snapshot) -> Bool {
        skips.run(base: { baseVersion }, to: snapshot, step: runOnce(to:), silent: moveSilently(to:))
    }

    public func skip(_ skip: CommitSkip) { skips.add(skip) }

    /// A skipped commit: the base moves to `snapshot` (the collection read
    /// there), nothing added to what is pending.
    private func moveSilently(to snapshot: Snapshot) {
        guard hasRun, !finished, snapshot.version > baseVersion else { return }
        do throws(FiefError) {
            let version = try workerRealm.lock.withLock { () throws(FiefError) -> UInt64 in try workerRealm.moveWorker(to: snapshot) }
            guard let contents = try read(links: tracksLinks) else {
                // The owner went in the skipped commit: silence, as told.
                finished = true
                return
            }
            if tracksLinks { baseLinks = contents.links }
            baseNested = contents.nested
            _ = try moveBase(count: contents.count, keys: contents.keys, version: version,
                         builder: ChangeBuilder(), mapBuilder: MapChangeBuilder())
            baseViewRows = try viewRows()
        } catch {
            finished = true
            state.locked {
                pendingError = error
                hasPending = true
            }
        }
    }

    private func runOnce(to snapshot: Snapshot) -> Bool {
        if finished || (hasRun && snapshot.version <= baseVersion) {
            state.locked { reachedVersionValue = max(reachedVersionValue, snapshot.version) }
            return false
        }
        do throws(FiefError) {
            let changes = hasRun ? try snapshot.changes(since: baseVersion) : nil
            // (A nested collection reads the records of the collection holding it, below, when it must.)
            let listChanges = hasRun && ref.kind == .list && !ref.isNested ? try snapshot.listChanges(since: baseVersion) : nil
            let entryChanges = hasRun && ref.kind != .list && !ref.isNested ? try snapshot.collectionChanges(since: baseVersion) : nil
            let version = try workerRealm.lock.withLock { () throws(FiefError) -> UInt64 in try workerRealm.moveWorker(to: snapshot) }
            if !hasRun {
                hasRun = true
                let contents = try read(links: tracksLinks)
                if contents == nil { finished = true }
                baseCount = contents?.count ?? 0
                baseKeys = contents?.keys ?? []
                baseLinks = contents?.links ?? []
                baseNested = contents?.nested ?? NestedContents()
                baseViewRows = contents == nil ? [] : try viewRows()
                baseVersion = version
                return state.locked { () -> Bool in
                    reachedVersionValue = version
                    pendingVersion = version
                    hasPending = true
                    return true
                }
            }
            var builder = ChangeBuilder()
            var mapBuilder = MapChangeBuilder()
            guard let changes, version == snapshot.version else {
                // The records are gone (a copied file): the whole collection
                // compared, without modifications.
                if ref.isNested { return try runNested(version: version) }
                let contents = try read(links: false)
                return try compareWhole(contents, version: version)
            }
            let own = changes[ref.table]
            if let own, own.cleared || own.deleted.contains(ref.owner) || own.schema.contains(.removed) {
                // The owner went: every old position deleted, then silence.
                builder.deleteRoot(originalSize: baseCount)
                if ref.kind == .map {
                    mapBuilder.clear(keysBefore: baseKeys.map { String(decoding: $0, as: UTF8.self) })
                    mapBuilder.rootDeleted = true
                }
                finished = true
                return try moveBase(count: 0, keys: [], version: version, builder: builder, mapBuilder: mapBuilder)
            }
            if ref.isNested {
                // Only a write the records name as one of the owner's mixed
                // property (or of the list or map of mixed values holding
                // the collection) can have changed it.
                let holder = ListID(table: ref.table, column: ref.property, owner: ref.owner)
                var written = own?.modified[ref.property]?.contains(ref.owner) == true
                if !written { written = try snapshot.listChanges(since: baseVersion).map { $0[holder] != nil } ?? true }
                if !written { written = try snapshot.collectionChanges(since: baseVersion).map { $0[holder] != nil } ?? true }
                if written { return try runNested(version: version) }
                return try moveBase(count: baseCount, keys: baseKeys, version: version, builder: builder, mapBuilder: mapBuilder)
            }
            let linksCounted = keyPathFilter.map { $0.mayCount(changes) } ?? false
            var count = baseCount
            var keys = baseKeys
            switch ref.kind {
            case .list:
                if let operations = listChanges?[id] {
                    if operations.overflowed {
                        return try compareWhole(try read(links: false), version: version)
                    }
                    count = ListNotifierReplay.apply(operations.operations, to: &builder, size: baseCount)
                }
                if linksCounted, let contents = try read(links: true) {
                    count = contents.count
                    try addModifications(contents.links, changes) { builder.modify(at: $0) }
                }
            case .set, .map:
                let entries = entryChanges?[id]
                // A map's values linking to objects of a class that lost
                // some: read, values nulled by a class emptied at once
                // have no entry record.
                let targetsWent = tracksLinks && linkTarget.flatMap { changes[$0] }.map { $0.cleared || !$0.deleted.isEmpty } == true
                if entries == nil && !linksCounted && !targetsWent { break }
                guard let contents = try read(links: linksCounted || tracksLinks) else { break }
                count = contents.count
                keys = contents.keys
                var modifiedPositions = Set<Int>()
                if linksCounted { try addModifications(contents.links, changes) { modifiedPositions.insert($0) } }
                if tracksLinks {
                    // Keys in both whose value now links elsewhere (or nowhere).
                    var i = 0, j = 0
                    while i < baseKeys.count && j < contents.keys.count {
                        if baseKeys[i] == contents.keys[j] {
                            if i < baseLinks.count && baseLinks[i] != contents.links[j] { modifiedPositions.insert(j) }
                            i += 1
                            j += 1
                        } else if baseKeys[i].lexicographicallyPrecedes(contents.keys[j]) {
                            i += 1
                        } else {
                            j += 1
                        }
                    }
                    baseLinks = contents.links
                }
                var modifiedKeys = Set<[UInt8]>()
                if ref.kind == .map, let entries { modifiedKeys = Set(entries.modified.keys) }
                let replacedAll = entries.map { $0.cleared || $0.filled } ?? false
                builder = KeyedDiff.changes(old: baseKeys, new: contents.keys, replacedAll: replacedAll) { position in
                    modifiedPositions.contains(position) || (!modifiedKeys.isEmpty && modifiedKeys.contains(contents.keys[position]))
                }
                if replacedAll && contents.keys.isEmpty { builder.cleared = true }
                if ref.kind == .map {
                    mapBuilder = KeyedDiff.mapChanges(old: baseKeys, new: contents.keys, entries: entries)
                    for position in modifiedPositions where !mapBuilder.keys.keys.contains(String(decoding: contents.keys[position], as: UTF8.self)) {
                        mapBuilder.modify(String(decoding: contents.keys[position], as: UTF8.self))
                    }
                }
            }
            return try moveBase(count: count, keys: keys, version: version, builder: builder, mapBuilder: mapBuilder)
        } catch {
            finished = true
            return state.locked { () -> Bool in
                pendingError = error
                hasPending = true
                return true
            }
        }
    }

    /// A nested collection read at the worker's version and compared with
    /// its base (`NestedDiff`); gone, it reports every old element deleted
    /// and `rootDeleted` (realm-core: the value holding it replaced or
    /// removed, as its owner deleted), then the notifier is silent.
    private func runNested(version: UInt64) throws(FiefError) -> Bool {
        var builder = ChangeBuilder()
        var mapBuilder = MapChangeBuilder()
        guard let contents = try read(links: false) else {
            builder.deleteRoot(originalSize: baseCount)
            if ref.kind == .map {
                mapBuilder.clear(keysBefore: baseKeys.map { String(decoding: $0, as: UTF8.self) })
                mapBuilder.rootDeleted = true
            }
            finished = true
            baseNested = NestedContents()
            return try moveBase(count: 0, keys: [], version: version, builder: builder, mapBuilder: mapBuilder)
        }
        if ref.kind == .map {
            (builder, mapBuilder) = NestedDiff.dictionary(old: baseNested, new: contents.nested)
        } else {
            builder = NestedDiff.list(old: baseNested, new: contents.nested)
        }
        baseNested = contents.nested
        return try moveBase(count: contents.count, keys: contents.keys, version: version, builder: builder, mapBuilder: mapBuilder)
    }

    /// The rows of `view` at the worker's version (none once the
    /// collection is gone).
    private func viewRows() throws(FiefError) -> [Int64] {
        guard let view else { return [] }
        let realm = workerRealm
        return try realm.lock.withLock { () throws(FiefError) -> [Int64] in
            do throws(FiefError) {
                _ = try view.count()
                return view.rows
            } catch {
                if error.code == .invalidatedObject { return [] }
                throw error
            }
        }
    }

    /// Positions whose object the key-path filter counts as modified.
    private func addModifications(_ links: [Int64?], _ changes: [UInt32: ObjectChanges], _ add: (Int) -> Void) throws(FiefError) {
        guard let filter = keyPathFilter else { return }
        let realm = workerRealm
        try realm.lock.withLock { () throws(FiefError) in
            var known: [Int64: Bool] = [:]
            for (position, link) in links.enumerated() {
                guard let link else { continue }
                let modified: Bool
                if let seen = known[link] { modified = seen } else {
                    modified = try filter.isModified(link, changes: changes, realm: realm)
                    known[link] = modified
                }
                if modified { add(position) }
            }
        }
    }

    /// Without records: the old and new collections compared whole (a
    /// list: every old position deleted and every new one inserted unless
    /// the sizes say nothing moved; sets and maps by key).
    private func compareWhole(_ contents: Contents?, version: UInt64) throws(FiefError) -> Bool {
        guard let contents else {
            var builder = ChangeBuilder()
            builder.deleteRoot(originalSize: baseCount)
            var mapBuilder = MapChangeBuilder()
            if ref.kind == .map { mapBuilder.rootDeleted = true }
            finished = true
            return try moveBase(count: 0, keys: [], version: version, builder: builder, mapBuilder: mapBuilder)
        }
        var builder = ChangeBuilder()
        var mapBuilder = MapChangeBuilder()
        if ref.kind == .list {
            if baseCount > 0 { builder.deletions.add(0..<baseCount) }
            if contents.count > 0 { builder.insertions.add(0..<contents.count) }
        } else {
            builder = KeyedDiff.changes(old: baseKeys, new: contents.keys, replacedAll: false) { _ in false }
            if ref.kind == .map { mapBuilder = KeyedDiff.mapChanges(old: baseKeys, new: contents.keys, entries: nil) }
        }
        return try moveBase(count: contents.count, keys: contents.keys, version: version, builder: builder, mapBuilder: mapBuilder)
    }

    private func moveBase(count: Int, keys: [[UInt8]], version: UInt64, builder: ChangeBuilder, mapBuilder: MapChangeBuilder) throws(FiefError) -> Bool {
        var builder = builder
        if view != nil && !builder.isEmpty {
            // Filtered or sorted results of the values: their rows' change.
            let rows = try viewRows()
            builder = ValueViewDiff.changes(source: builder.finalize(), oldCount: baseCount, oldRows: baseViewRows, newRows: rows)
            baseViewRows = rows
        }
        baseCount = count
        baseKeys = keys
        baseVersion = version
        return state.locked { () -> Bool in
            reachedVersionValue = version
            if !hasPending && builder.isEmpty && mapBuilder.isEmpty { return false }
            if initialDelivered {
                pendingChanges.merge(builder)
                pendingMapChanges.merge(mapBuilder)
            }
            pendingVersion = version
            if !pendingChanges.isEmpty || !pendingMapChanges.isEmpty || !initialDelivered { hasPending = true }
            return hasPending
        }
    }

    // MARK: Delivery

    public func deliver(_ delivery: Delivery) {
        if delivery.kind == .afterChange { return }
        let hostRealm = hostRealm
        let taken = (try? hostRealm.lock.withLock { () -> CollectionChange? in
            guard hostRealm.reads(version: delivery.version) || state.locked({ pendingError != nil }) else { return nil }
            return state.locked { () -> CollectionChange? in
                guard hasPending else { return nil }
                if let pendingError {
                    hasPending = false
                    return .error(pendingError)
                }
                guard pendingVersion == delivery.version else { return nil }
                if !initialDelivered && delivery.kind == .beforeWrite { return nil }
                hasPending = false
                if !initialDelivered {
                    initialDelivered = true
                    pendingChanges = ChangeBuilder()
                    pendingMapChanges = MapChangeBuilder()
                    return .initial
                }
                let changes = pendingChanges.finalize()
                let mapChanges = ref.kind == .map ? pendingMapChanges.finalize() : nil
                pendingChanges = ChangeBuilder()
                pendingMapChanges = MapChangeBuilder()
                return .update(changes, mapChanges)
            }
        }) ?? nil
        guard let taken else { return }
        slot.withCallback { $0(taken) }
    }

    public func release() {
        if slot.release() { channel.remove(self) }
    }
}

/// A list's recorded operations replayed into a change builder.
enum ListNotifierReplay {
    /// Apply `operations` to `builder`, the list holding `size` elements
    /// before them; returns its size after.
    static func apply(_ operations: [ListOperation], to builder: inout ChangeBuilder, size: Int) -> Int {
        var size = size
        for operation in operations {
            switch operation {
            case .insert(let at, let count):
                builder.insert(at: at, count: count)
                size += count
            case .erase(let at, let count):
                for _ in 0..<count { builder.erase(at: at) }
                size -= count
            case .set(let at):
                builder.modify(at: at)
            case .move(let from, let to):
                builder.move(from: from, to: to)
            case .swap(let a, let b):
                builder.swap(a, b)
            case .clear(let before):
                builder.clear(oldSize: before)
                size = 0
            }
        }
        return size
    }
}

/// Change sets of collections kept in key order (sets, maps) from their
/// keys before and after.
enum KeyedDiff {
    /// Positions deleted and inserted between `old` and `new` (both in key
    /// order); `replacedAll`: every old key went (a clear, a refill) even
    /// where it is back.  `modified(newPosition)` for keys in both.
    static func changes(old: [[UInt8]], new: [[UInt8]], replacedAll: Bool, modified: (Int) -> Bool) -> ChangeBuilder {
        var builder = ChangeBuilder()
        if replacedAll {
            if !old.isEmpty { builder.deletions.add(0..<old.count) }
            if !new.isEmpty { builder.insertions.add(0..<new.count) }
            return builder
        }
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old[i].lexicographicallyPrecedes(new[j])) {
                builder.deletions.add(i)
                i += 1
            } else if i == old.count || new[j].lexicographicallyPrecedes(old[i]) {
                builder.insertions.add(j)
                j += 1
            } else {
                if modified(j) { builder.modifications.add(j) }
                i += 1
                j += 1
            }
        }
        return builder
    }

    /// A map's changes by key: from its entry records when they are there
    /// (modified keys are only known from them), else from the keys.
    static func mapChanges(old: [[UInt8]], new: [[UInt8]], entries: EntryChanges?) -> MapChangeBuilder {
        var builder = MapChangeBuilder()
        let name = { (key: [UInt8]) in String(decoding: key, as: UTF8.self) }
        if let entries, entries.cleared || entries.filled {
            builder.clear(keysBefore: old.map(name))
            for key in new { builder.insert(name(key)) }
            if new.isEmpty { builder.cleared = true }
            return builder
        }
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old[i].lexicographicallyPrecedes(new[j])) {
                builder.remove(name(old[i]))
                i += 1
            } else if i == old.count || new[j].lexicographicallyPrecedes(old[i]) {
                builder.insert(name(new[j]))
                j += 1
            } else {
                i += 1
                j += 1
            }
        }
        if let entries {
            for key in entries.modified.keys { builder.modify(name(key)) }
        }
        return builder
    }
}

extension Realm {
    /// Register a callback of list, set or map `ref` (RealmSwift's
    /// `List.observe`, `MutableSet.observe`, `Map.observe`): first
    /// `.initial` at the first delivery, then `.update` with the change set
    /// of every later delivery that changed it (see `CollectionNotifier`).
    /// `keyPaths`: what counts as a modification of an element that is an
    /// object (nil: Realm's default); a collection of values takes none.
    /// Under the lock.
    ///
    /// - Throws: `.frozen`, `.alreadyInTransaction` (inside a write),
    ///   `.invalidatedObject` (the owner was deleted; a nested collection
    ///   gone), `.invalidArgument` (key paths for a collection of values),
    ///   `.noSuchProperty` (a key path naming no property), `.readOnly`,
    ///   `.closed`.
    public func addCollectionNotifier(_ ref: CollectionRef, keyPaths: [String]? = nil,
                                      _ callback: @escaping (CollectionChange) -> Void) throws(FiefError) -> CollectionNotifier {
        try addCollectionNotifier(ref, keyPaths: keyPaths, view: nil, callback)
    }

    /// `addCollectionNotifier`, its change sets told as those of `view`'s
    /// rows when given (filtered or sorted results of the values).
    func addCollectionNotifier(_ ref: CollectionRef, keyPaths: [String]?, view: ValueResults?,
                               _ callback: @escaping (CollectionChange) -> Void) throws(FiefError) -> CollectionNotifier {
        try checkReadable()
        if isFrozen { throw FiefError(.frozen, "a frozen \(ref.kind.name) does not change and has no notifications") }
        if write != nil {
            throw FiefError(.alreadyInTransaction, "cannot register a notification callback inside a write transaction")
        }
        let table = try table(ref.table)
        try requireLive(table, ref.owner)
        if ref.isNested, !(try nestedExists(ref)) {
            throw FiefError(.invalidatedObject, "the nested \(ref.nestedKind.name) was deleted (the value holding it was replaced or removed)")
        }
        let column = try table.column(ref.property)
        var filter: KeyPathFilter?
        if column.elementType == .link {
            filter = try KeyPathFilter.resolve(keyPaths, table: column.linkTarget, in: self)
        } else if let keyPaths, !keyPaths.isEmpty {
            let name = (try? table.property(ref.property).name) ?? "#\(ref.property)"
            throw FiefError(.invalidArgument, "key paths need a collection of objects: '\(table.objectClass.name).\(name)' holds values")
        }
        let channel = try notificationChannel()
        let notifier = try CollectionNotifier(channel: channel, realm: self, ref: ref, keyPathFilter: filter, view: view, callback: callback)
        channel.add(notifier)
        return notifier
    }
}

extension Realm {
    /// Register a results callback on results of values (of a list, set or
    /// map of values, or of a nested list or dictionary): their
    /// collection's notifier, its change sets told as results' (as they
    /// are, lists keep their moves; filtered, sorted, distinct or limited,
    /// the change of their rows, `ValueViewDiff`).  Under the lock.
    ///
    /// - Throws: as `addCollectionNotifier`; `.invalidArgument` for results
    ///   of objects (`addResultsNotifier` takes them).
    public func addValueResultsNotifier(_ results: Results, keyPaths: [String]?,
                                        _ callback: @escaping (ResultsChange) -> Void) throws(FiefError) -> CollectionNotifier {
        let values = try results.values(for: "observing results of values")
        let view = values.filters.isEmpty && values.stages.isEmpty ? nil : values
        return try addCollectionNotifier(values.source, keyPaths: keyPaths, view: view) { change in
            switch change {
            case .initial: callback(.initial)
            case .update(let changes, _): callback(.update(changes))
            case .error(let error): callback(.error(error))
            }
        }
    }
}
