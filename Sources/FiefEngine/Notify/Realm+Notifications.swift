import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Realm-level notifications and the host-driven delivery (docs/design.md,
/// "Who computes, who delivers").  The functions marked "under the lock"
/// expect the caller to hold `lock`, as every engine call; the delivering
/// ones take it themselves, because callbacks run outside it (a callback
/// may call the realm).
extension Realm {
    /// The realm's delivery channel, made on first use.  Under the lock.
    /// Frozen and read-only realms never change: they have none.
    public func notificationChannel() throws(FiefError) -> DeliveryChannel {
        try checkOpen()
        if let deliveryChannel { return deliveryChannel }
        if isFrozen { throw FiefError(.frozen, "a frozen realm does not change and has no notifications") }
        guard let notificationCenter, !isReadOnly else {
            throw FiefError(.readOnly, "a read-only realm does not change and has no notifications")
        }
        let version: UInt64
        if let write { version = write.version } else { version = try currentSnapshot().version }
        let made = try DeliveryChannel(center: notificationCenter, version: version)
        deliveryChannel = made
        return made
    }

    /// Register a realm-level callback (RealmSwift's `observe`): called with
    /// `.didChange` when the realm's version moves on, `.refreshRequired`
    /// when autorefresh is off and a newer version is ready.  Allowed inside
    /// a write transaction (RealmSwift allows it for the realm's own
    /// callbacks).  Under the lock.
    public func addRealmObserver(_ callback: @escaping (RealmChange) -> Void) throws(FiefError) -> RealmObserver {
        try checkReadable()
        let channel = try notificationChannel()
        let observer = RealmObserver(channel: channel, callback: callback)
        channel.add(observer)
        return observer
    }

    /// Register a results callback (RealmSwift's `Results.observe`): first
    /// `.initial` at the first delivery, then `.update` with the change set
    /// of every later delivery that changed them (see `ResultsNotifier`).
    /// `keyPaths`: what counts as a modification (`KeyPathFilter`; nil:
    /// Realm's default).  Under the lock.
    ///
    /// - Throws: `.frozen` (frozen results never change),
    ///   `.alreadyInTransaction` (inside a write transaction, as
    ///   RealmSwift), `.invalidArgument` (results of values: observe their
    ///   collection; a malformed key path), `.noSuchProperty` (a key path
    ///   naming no property, named in the message), `.invalidatedObject`
    ///   (the list's owner or the linked object was deleted), `.readOnly`,
    ///   `.closed`.
    public func addResultsNotifier(_ results: Results, keyPaths: [String]?,
                                   _ callback: @escaping (ResultsChange) -> Void) throws(FiefError) -> ResultsNotifier {
        try checkReadable()
        if isFrozen { throw FiefError(.frozen, "frozen results do not change and have no notifications") }
        if write != nil {
            throw FiefError(.alreadyInTransaction, "cannot register a notification callback inside a write transaction")
        }
        let objects = try results.objects(for: "a results notification", instead: "observe the list, set or map the values come from")
        // The object a list's or linking objects' results hang from must exist.
        if let list = objects.list { try requireLive(try table(list.table), list.owner) }
        if let linking = objects.linking { try requireLive(try table(linking.targetClass), linking.target) }
        let filter = try KeyPathFilter.resolve(keyPaths, table: objects.tableKey, in: self)
        let channel = try notificationChannel()
        let notifier = try ResultsNotifier(channel: channel, results: objects, keyPathFilter: filter, callback: callback)
        channel.add(notifier)
        return notifier
    }

    /// Set the wake-up callback (nil: none), called on the worker thread
    /// when a delivery becomes pending.  Under the lock.
    public func setNotificationWakeup(_ wakeup: (() -> Void)?) throws(FiefError) {
        try notificationChannel().setWakeup(wakeup)
    }

    /// Whether deliveries move the realm to the newest version (default
    /// true; frozen realms: false).  Under the lock.
    public var autorefresh: Bool {
        if isFrozen { return false }
        return deliveryChannel?.autorefresh ?? true
    }

    /// Under the lock.  A frozen realm refuses `true` (it cannot move).
    public func setAutorefresh(_ on: Bool) throws(FiefError) {
        try checkOpen()
        if isFrozen {
            if on { throw FiefError(.frozen, "a frozen realm cannot refresh, so autorefresh cannot be enabled") }
            return
        }
        if !on || deliveryChannel != nil { try notificationChannel().autorefresh = on }
    }

    /// What a delivery does first.
    public enum DeliveryKind: Sendable {
        /// The host's delivery: a live realm with autorefresh moves to the
        /// ready version; `.refreshRequired` otherwise.
        case pending
        /// After this realm committed or refreshed: tell the callbacks if
        /// the version moved.
        case afterChange
        /// Before a write begins: move to the newest version (as `refresh`)
        /// and tell the callbacks, as RealmSwift's `beginWrite` does.
        case beforeWrite
    }

    /// Deliver what is pending, on the calling thread: advance if `kind`
    /// says so, then call every notifier not released.  Not under the lock:
    /// takes it for the state, and calls back outside it.  Returns whether
    /// any callback was called.  A delivery already running on this realm
    /// (a call from inside a callback) makes it return false at once.
    @discardableResult
    public func deliverNotifications(_ kind: DeliveryKind) throws(FiefError) -> Bool {
        let round = try lock.withLock { () throws(FiefError) -> (DeliveryChannel, [Notifier], Delivery)? in
            try checkOpen()
            guard let channel = deliveryChannel, !channel.isDelivering else { return nil }
            if kind == .beforeWrite && (write != nil || !channel.hasNotifiers) { return nil }
            let ready = kind == .pending ? channel.takeReady() : 0
            if write == nil {
                if kind == .beforeWrite || (kind == .pending && channel.autorefresh && ready > (snapshot?.version ?? 0)) {
                    _ = try refresh()
                }
            }
            let version: UInt64
            if let write { version = write.version } else { version = try currentSnapshot().version }
            var change: RealmChange?
            if version > channel.deliveredVersion {
                change = .didChange
                channel.deliveredVersion = version
            } else if kind == .pending && !channel.autorefresh && ready > version && ready > channel.refreshRequiredVersion {
                change = .refreshRequired
                channel.refreshRequiredVersion = ready
            }
            channel.noteReached(version)
            let notifiers = channel.currentNotifiers()
            if notifiers.isEmpty { return nil }
            // Results and object notifiers may wait with no version moved
            // (their `initial` call).
            if change == nil && !notifiers.contains(where: { $0.hasPendingDelivery }) { return nil }
            channel.isDelivering = true
            return (channel, notifiers, Delivery(version: version, realmChange: change, kind: kind))
        }
        guard let (channel, notifiers, delivery) = round else { return false }
        for notifier in notifiers { notifier.deliver(delivery) }
        _ = try? lock.withLock { () throws(FiefError) in channel.isDelivering = false }
        return true
    }
}
