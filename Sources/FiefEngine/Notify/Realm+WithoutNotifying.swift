import FiefStorage

extension Realm {
    /// Commit the write transaction without telling `notifiers` of it
    /// (RealmSwift's `commitWrite(withoutNotifying:)`, realm-core's skip
    /// version): their next change set leaves out this commit's changes
    /// and has those of earlier and later commits.  Realm-level observers
    /// are told as usual.  Every notifier must observe this realm's file
    /// (the caller checks which realm registered it).  Under the lock.
    ///
    /// - Throws: as `commitWrite`; `.fileIO` when the version the write is
    ///   based on cannot be read (nothing is committed then).
    public func commitWrite(withoutNotifying notifiers: [Notifier]) throws(FiefError) {
        guard !notifiers.isEmpty, let write else { return try commitWrite() }
        // No other writer can commit while this write is open: the newest
        // committed version is the one the write is based on.
        let before = try Snapshot(environment: environment)
        guard before.version == write.version else { return try commitWrite() }
        let skip = CommitSkip(before: before, version: write.version + 1)
        for notifier in notifiers { notifier.skip(skip) }
        do throws(FiefError) {
            try commitWrite(skip: skip)
        } catch {
            skip.cancel()
            throw error
        }
    }
}
