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
            let (ready, wasPending) = kind == .pending ? channel.takeReady() : (0, false)
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
            // A pending delivery at a version the realm already reads (its
            // own commit) still calls the notifiers that ran to it.
            guard change != nil || wasPending else { return nil }
            let notifiers = channel.currentNotifiers()
            if notifiers.isEmpty { return nil }
            channel.isDelivering = true
            return (channel, notifiers, Delivery(version: version, realmChange: change))
        }
        guard let (channel, notifiers, delivery) = round else { return false }
        for notifier in notifiers { notifier.deliver(delivery) }
        _ = try? lock.withLock { () throws(FiefError) in channel.isDelivering = false }
        return true
    }
}
