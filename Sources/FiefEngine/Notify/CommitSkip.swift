import FiefStorage

/// One commit made without notifying some notifiers (RealmSwift's
/// `write(withoutNotifying:)`, realm-core's skip version; docs/design.md,
/// "Write without notifying").  Made by the committing realm inside its
/// write, before LMDB's commit: `before` is a snapshot of the version the
/// write is based on (no other writer can commit while the write is open),
/// `version` the one the commit makes.  Once committed, `after` is a
/// snapshot of exactly that version; a commit that failed (or whose version
/// could not be read alone) is `cancelled`, and then nothing is skipped.
///
/// A skipped notifier runs to `before` as usual (earlier commits are
/// reported), then moves its base to `after` without a change set, then
/// on to newer versions as usual: its next change set lacks this commit's
/// changes but has later ones.
public final class CommitSkip: @unchecked Sendable {
    let before: Snapshot
    let version: UInt64
    private let lock = NotifyLock()
    private var afterValue: Snapshot?
    private var cancelledValue = false

    init(before: Snapshot, version: UInt64) {
        self.before = before
        self.version = version
    }

    deinit { lock.destroy() }

    /// What a notifier can do with the skip now.
    enum State {
        /// The commit is not done yet: run no further than `before`.
        case waiting
        /// Done: run to `before`, move silently to this snapshot.
        case committed(Snapshot)
        /// Nothing to skip.
        case cancelled
    }

    var state: State {
        lock.locked { () -> State in
            if cancelledValue { return .cancelled }
            if let afterValue { return .committed(afterValue) }
            return .waiting
        }
    }

    func committed(_ after: Snapshot) { lock.locked { afterValue = after } }
    func cancel() { lock.locked { cancelledValue = true } }
}

/// A notifier's skipped commits, oldest first (added by committing
/// threads, read by whoever runs the notifier).
final class CommitSkips: @unchecked Sendable {
    private let lock = NotifyLock()
    private var skips: [CommitSkip] = []

    init() {}

    deinit { lock.destroy() }

    func add(_ skip: CommitSkip) {
        lock.locked { skips.append(skip) }
    }

    func drop(_ skip: CommitSkip) {
        lock.locked { skips.removeAll { $0 === skip } }
    }

    /// The oldest skip of a commit after `base` and at most `target`,
    /// dropping those at or before `base` and those cancelled.
    func next(after base: UInt64, upTo target: UInt64) -> CommitSkip? {
        lock.locked { () -> CommitSkip? in
            skips.removeAll { skip in
                if skip.version <= base { return true }
                if case .cancelled = skip.state { return true }
                return false
            }
            return skips.first { $0.version <= target }
        }
    }

    /// Run a notifier across its skipped commits: `step` runs it to a
    /// snapshot as usual (returns whether something is to be delivered),
    /// `silent` moves its base to a snapshot without a change set.  Runs to
    /// `target` through every committed skip in range; stops at the
    /// `before` of one whose commit is not done yet (a later run goes on).
    func run(base: () -> UInt64, to target: Snapshot, step: (Snapshot) -> Bool, silent: (Snapshot) -> Void) -> Bool {
        var found = false
        while let skip = next(after: base(), upTo: target.version) {
            if skip.before.version > base() && step(skip.before) { found = true }
            switch skip.state {
            case .waiting: return found
            case .cancelled: continue
            case .committed(let after):
                silent(after)
                // A notifier that could not move (never ran, failed) drops it.
                drop(skip)
            }
        }
        return step(target) || found
    }
}
