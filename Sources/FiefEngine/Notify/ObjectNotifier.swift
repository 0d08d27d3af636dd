import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// What an object callback is told (RealmSwift's `ObjectChange`): the
/// object was deleted, or which of its properties changed, with their old
/// and new values.  Valid during the callback: the values are views into
/// the two versions it keeps open.
public struct ObjectNotification {
    /// The object was deleted (no property is listed; never called again).
    public let isDeleted: Bool
    /// The keys of the properties that changed, ascending.
    public let changedProperties: [UInt32]
    public let classKey: UInt32
    public let objectKey: Int64
    /// The version the callback last saw; nil when the observing realm made
    /// one of the commits itself (RealmSwift gives no old values then).
    let before: Realm?
    /// The version delivered.
    let after: Realm

    /// The value of `property` before the change: nil when there is none to
    /// give (the observing realm's own commit, or a collection property,
    /// as RealmSwift).  A property not changed is `.noSuchProperty`.
    public func oldValue(_ property: UInt32) throws(FiefError) -> Value? {
        guard let before else { try check(property); return nil }
        return try value(of: property, in: before)
    }

    /// The value of `property` after the change: nil for a collection
    /// property (as RealmSwift).
    public func newValue(_ property: UInt32) throws(FiefError) -> Value? {
        try value(of: property, in: after)
    }

    private func check(_ property: UInt32) throws(FiefError) {
        guard changedProperties.contains(property) else {
            throw FiefError(.noSuchProperty, "property \(property) is not among the changed properties \(changedProperties)")
        }
    }

    private func value(of property: UInt32, in realm: Realm) throws(FiefError) -> Value? {
        try check(property)
        return try realm.lock.withLock { () throws(FiefError) -> Value? in
            let table = try realm.table(classKey)
            if try table.column(property).collection != .none { return nil }
            return try realm.value(table: classKey, key: objectKey, property: property)
        }
    }
}

/// Observes one object (docs/design.md, "Notifiers"): on the worker,
/// `run(to:)` merges the change records since the version it last reached
/// into the changes not yet delivered (deleted, or the changed columns: the
/// object's own, or with key paths those of the filter, including columns
/// whose linked objects changed in a filtered property, as realm-core's
/// object notifier); `deliver` calls back on the host's thread once the
/// realm reads the version reached (a realm ahead of it, by its own commit
/// or a refresh, has the notifier run to its version first; one behind it
/// is called when it catches up).  Deleted: told once, then silent.
///
/// Old values come from a frozen realm at the version the callback last
/// saw, new ones from one at the version delivered; both are kept only
/// while they are needed.
public final class ObjectNotifier: Notifier, @unchecked Sendable {
    public let classKey: UInt32
    public let objectKey: Int64
    /// nil: the object's own properties (Realm's default).
    let filter: KeyPathFilter?
    private weak var realm: Realm?
    private let channel: DeliveryChannel

    /// Guards the fields below (never held while calling back).
    private let state = NotifyLock()
    /// Frozen at the newest version run to.
    private var reached: Realm
    /// Frozen at the version the callback last saw.
    private var shown: Realm
    /// Found and not yet delivered.
    private var pending = ObjectChangeSet()
    /// The deletion was found: nothing more to run.
    private var deletionFound = false
    private let skips = CommitSkips()

    private let slot: CallbackSlot<ObjectNotification>

    init(realm: Realm, channel: DeliveryChannel, base: Realm, classKey: UInt32, objectKey: Int64,
         filter: KeyPathFilter?, callback: @escaping (ObjectNotification) -> Void) {
        self.realm = realm
        self.channel = channel
        self.classKey = classKey
        self.objectKey = objectKey
        self.filter = filter
        reached = base
        shown = base
        slot = CallbackSlot(callback)
    }

    deinit {
        state.destroy()
    }

    public var isReleased: Bool { slot.isReleased }

    /// Whether a delivery would call back (a round runs for it even when
    /// the realm's version did not move: the realm's own commit).
    public var hasPendingDelivery: Bool { state.locked { !pending.isEmpty } }

    // MARK: Running

    public func run(to snapshot: Snapshot) -> Bool {
        state.locked { () -> Bool in
            advance(to: snapshot)
            return !pending.isEmpty
        }
    }

    public func skip(_ skip: CommitSkip) { skips.add(skip) }

    /// Bring `reached` to `snapshot` across skipped commits (their changes
    /// left out).  Under `state`.
    private func advance(to snapshot: Snapshot) {
        _ = skips.run(base: { reached.frozenVersion }, to: snapshot, step: { next in
            advanceOnce(to: next)
            return false
        }, silent: { after in
            if deletionFound || after.version <= reached.frozenVersion { return }
            if !after.isShared { after.isShared = true }
            guard let next = try? ObjectRunShare.shared.frozen(at: after, from: reached) else { return }
            reached = next
            if pending.isEmpty { shown = next }
        })
    }

    /// Bring `reached` to `snapshot`, merging what changed.  Under `state`.
    private func advanceOnce(to snapshot: Snapshot) {
        if deletionFound || snapshot.version <= reached.frozenVersion { return }
        // Read later from the delivering thread (values), so lookups lock.
        if !snapshot.isShared { snapshot.isShared = true }
        guard let next = try? ObjectRunShare.shared.frozen(at: snapshot, from: reached) else { return }
        let found = (try? changes(from: reached, to: next)) ?? ObjectChangeSet(changedProperties: [])
        pending.merge(found)
        if found.isDeleted { deletionFound = true }
        reached = next
        // Nothing to tell: what the callback last saw is what it would see
        // now, so the older version need not be kept (an object that never
        // changes must not pin its registration's version and the change
        // records after it).
        if pending.isEmpty { shown = next }
    }

    /// What changed for this notifier between two frozen versions.
    private func changes(from old: Realm, to new: Realm) throws(FiefError) -> ObjectChangeSet {
        guard let snapshot = new.snapshot, let all = try ObjectRunShare.shared.changes(snapshot, since: old.frozenVersion) else {
            return try compareValues(old, new)
        }
        let own = all[classKey]
        if let own, own.cleared || own.deleted.contains(objectKey) || own.schema.contains(SchemaChange.removed) {
            var deleted = ObjectChangeSet()
            deleted.delete()
            return deleted
        }
        var columns = own?.modifiedColumns(of: objectKey) ?? []
        // Sets and maps record their entries apart: a map value set again
        // leaves the owner's size column as it was.
        if let entries = try ObjectRunShare.shared.collectionChanges(snapshot, since: old.frozenVersion) {
            for (id, change) in entries where id.table == classKey && id.owner == objectKey
                && id.column != NestedStore.entriesColumn && !change.isEmpty && !columns.contains(id.column) {
                columns.append(id.column)
            }
        }
        // Lists record their operations: a list property changed when its
        // record says so (its size column is also written by an insertion
        // undone in the same write, or a move).
        if let lists = try ObjectRunShare.shared.listChanges(snapshot, since: old.frozenVersion) {
            let table = try new.lock.withLock { () throws(FiefError) -> Table in try new.table(classKey) }
            columns = columns.filter { (try? table.column($0).collection) != .list }
            for (id, change) in lists where id.table == classKey && id.owner == objectKey
                && !change.isEmpty && !columns.contains(id.column) {
                columns.append(id.column)
            }
            columns.sort()
        }
        guard let filter else { return ObjectChangeSet(changedProperties: columns) }
        columns = columns.filter { filter.observes($0) }
        let through = try new.lock.withLock { () throws(FiefError) -> [UInt32] in
            try filter.modifiedThrough(objectKey, changes: all, realm: new)
        }
        for column in through where !columns.contains(column) { columns.append(column) }
        return ObjectChangeSet(changedProperties: columns)
    }

    /// Without records for the range (trimmed, or a copied file): compare
    /// the observed properties' values (collections by their size).
    private func compareValues(_ old: Realm, _ new: Realm) throws(FiefError) -> ObjectChangeSet {
        let exists = try new.lock.withLock { () throws(FiefError) -> Bool in try new.objectExists(table: classKey, key: objectKey) }
        guard exists, let objectClass = new.schema.objectClass(key: classKey) else {
            var deleted = ObjectChangeSet()
            deleted.delete()
            return deleted
        }
        var columns: [UInt32] = []
        for property in objectClass.properties where filter?.observes(property.key) ?? true {
            let differs = try old.lock.withLock { () throws(FiefError) -> Bool in
                try new.lock.withLock { () throws(FiefError) -> Bool in
                    if property.collection == .none {
                        let before = try old.value(table: classKey, key: objectKey, property: property.key)
                        let after = try new.value(table: classKey, key: objectKey, property: property.key)
                        return !before.isSame(as: after)
                    }
                    return try Self.size(old, classKey, objectKey, property) != Self.size(new, classKey, objectKey, property)
                }
            }
            if differs { columns.append(property.key) }
        }
        return ObjectChangeSet(changedProperties: columns)
    }

    private static func size(_ realm: Realm, _ table: UInt32, _ key: Int64, _ property: Property) throws(FiefError) -> Int {
        switch property.collection {
        case .list: return try realm.list(try realm.collection(.list, table: table, owner: key, property: property.key)).count()
        case .set: return try realm.set(try realm.collection(.set, table: table, owner: key, property: property.key)).count()
        case .map: return try realm.map(try realm.collection(.map, table: table, owner: key, property: property.key)).count()
        default: return 0
        }
    }

    // MARK: Delivering

    public func deliver(_ delivery: Delivery) {
        // As results: never inside the realm's own commit or refresh; the
        // host's next delivery brings it (realm-core delivers a commit's
        // changes after the worker ran, on the observer's run loop).
        if delivery.kind == .afterChange { return }
        slot.withCallback { callback in
            guard let realm else { return }
            // The version the realm reads, and whether it made commits itself
            // since the callback last saw it.
            let reading = try? realm.lock.withLock { () throws(FiefError) -> (Snapshot, Bool)? in
                if realm.isClosed || realm.write != nil { return nil }
                let current = try realm.currentSnapshot()
                let (shownVersion, reachedVersion) = state.locked { (shown.frozenVersion, reached.frozenVersion) }
                // Read from here by the notifier's frozen realm only when it
                // catches up to it (otherwise the realm's own reads stay unlocked).
                if current.version > reachedVersion { current.isShared = true }
                return (current, channel.madeOwnCommit(after: shownVersion, through: current.version))
            }
            guard let (current, ownCommit) = reading ?? nil else { return }
            let note = state.locked { () -> ObjectNotification? in
                // Ahead of what the worker reached: run to the realm's version here.
                if current.version > reached.frozenVersion { advance(to: current) }
                // Behind it: wait until the realm catches up.  (A deleted
                // object's notifier stops running at the deletion's version.)
                let caughtUp = deletionFound ? current.version >= reached.frozenVersion : current.version == reached.frozenVersion
                guard caughtUp, !pending.isEmpty else { return nil }
                let note = ObjectNotification(isDeleted: pending.isDeleted, changedProperties: pending.changedProperties,
                                              classKey: classKey, objectKey: objectKey,
                                              before: ownCommit || pending.isDeleted ? nil : shown, after: reached)
                pending = ObjectChangeSet()
                shown = reached
                return note
            }
            guard let note else { return }
            callback(note)
            if note.isDeleted { release() }
        }
    }

    public func release() {
        if slot.release() { channel.remove(self) }
    }
}

/// What one worker run shares among object notifiers: the frozen realm over
/// the run's snapshot, and the change records merged since a version (the
/// notifiers that reached the same version ask for the same).  Held
/// weakly: nothing here keeps a version open.
final class ObjectRunShare: @unchecked Sendable {
    static let shared = ObjectRunShare()
    private let lock = NotifyLock()
    private weak var lastFrozen: Realm?
    private weak var changesSnapshot: Snapshot?
    private var changesBase: UInt64 = 0
    private var lastChanges: [UInt32: ObjectChanges]?

    /// A frozen realm reading `snapshot`: the one made last for it, or a
    /// new one from `source` (a frozen realm of the same file).
    func frozen(at snapshot: Snapshot, from source: Realm) throws(FiefError) -> Realm {
        if let known = lock.locked({ lastFrozen }), known.snapshot === snapshot { return known }
        let made = try source.lock.withLock { () throws(FiefError) -> Realm in try source.frozen(at: snapshot) }
        lock.locked { lastFrozen = made }
        return made
    }

    private weak var entriesSnapshot: Snapshot?
    private var entriesBase: UInt64 = 0
    private var lastEntries: [ListID: EntryChanges]?

    /// `snapshot.collectionChanges(since: base)`, computed once per snapshot and base.
    func collectionChanges(_ snapshot: Snapshot, since base: UInt64) throws(FiefError) -> [ListID: EntryChanges]? {
        let known = lock.locked { () -> [ListID: EntryChanges]?? in
            entriesSnapshot === snapshot && entriesBase == base ? .some(lastEntries) : nil
        }
        if let known { return known }
        let made = try snapshot.collectionChanges(since: base)
        lock.locked {
            entriesSnapshot = snapshot
            entriesBase = base
            lastEntries = made
        }
        return made
    }

    private weak var listsSnapshot: Snapshot?
    private var listsBase: UInt64 = 0
    private var lastLists: [ListID: ListChanges]?

    /// `snapshot.listChanges(since: base)`, computed once per snapshot and base.
    func listChanges(_ snapshot: Snapshot, since base: UInt64) throws(FiefError) -> [ListID: ListChanges]? {
        let known = lock.locked { () -> [ListID: ListChanges]?? in
            listsSnapshot === snapshot && listsBase == base ? .some(lastLists) : nil
        }
        if let known { return known }
        let made = try snapshot.listChanges(since: base)
        lock.locked {
            listsSnapshot = snapshot
            listsBase = base
            lastLists = made
        }
        return made
    }

    /// `snapshot.changes(since: base)`, computed once per snapshot and base.
    func changes(_ snapshot: Snapshot, since base: UInt64) throws(FiefError) -> [UInt32: ObjectChanges]? {
        let known = lock.locked { () -> [UInt32: ObjectChanges]?? in
            changesSnapshot === snapshot && changesBase == base ? .some(lastChanges) : nil
        }
        if let known { return known }
        let made = try snapshot.changes(since: base)
        lock.locked {
            changesSnapshot = snapshot
            changesBase = base
            lastChanges = made
        }
        return made
    }
}

extension Realm {
    /// The version a frozen realm reads (a notifier's).
    var frozenVersion: UInt64 { snapshot?.version ?? 0 }

    /// Register `callback` for changes of object `key` of class `tableKey`
    /// (RealmSwift's `Object.observe`), filtered by `keyPaths` (nil: the
    /// object's own properties).  Refused on a frozen realm, inside a write
    /// transaction, for an object that does not exist, and for a key path
    /// that names nothing.  Under the lock.
    public func addObjectNotifier(table tableKey: UInt32, key: Int64, keyPaths: [String]?,
                                  _ callback: @escaping (ObjectNotification) -> Void) throws(FiefError) -> ObjectNotifier {
        try checkReadable()
        if isFrozen { throw FiefError(.frozen, "a frozen object does not change and has no notifications") }
        if write != nil {
            throw FiefError(.alreadyInTransaction, "cannot register a notification callback inside a write transaction")
        }
        let table = try table(tableKey)
        try requireLive(table, key)
        var filter: KeyPathFilter?
        if let keyPaths, !keyPaths.isEmpty {
            let resolved = try KeyPathFilter.resolve(keyPaths, table: tableKey, in: self)
            if resolved.startsWithLinkingObjects {
                throw FiefError(.invalidArgument, "an object notification reports the object's stored properties; key paths \(keyPaths) start with a linking-objects property (observe it through results of the linking objects)")
            }
            filter = resolved
        }
        let channel = try notificationChannel()
        let base = try freeze()
        let notifier = ObjectNotifier(realm: self, channel: channel, base: base, classKey: tableKey, objectKey: key,
                                      filter: filter, callback: callback)
        channel.add(notifier)
        return notifier
    }
}
