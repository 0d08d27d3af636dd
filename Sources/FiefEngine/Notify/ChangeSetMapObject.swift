// Change sets of maps (by key) and of single objects (by property)
// (docs/design.md, "Change sets").  Pure Swift, no storage.

/// What changed in a map between two versions, by key, as RealmSwift's
/// `RealmMapChange` reports it.  Keys ascending (UTF-8 byte order, the
/// map's own order).
public struct MapChangeSet: Equatable, Sendable, CustomStringConvertible {
    /// Keys there before and not after.
    public var deletions: [String]
    /// Keys there after and not before.
    public var insertions: [String]
    /// Keys there before and after whose value was set.
    public var modifications: [String]
    /// The object owning the map was deleted.
    public var rootDeleted: Bool
    /// The map was cleared by the last change.
    public var cleared: Bool

    public init(deletions: [String] = [], insertions: [String] = [], modifications: [String] = [],
                rootDeleted: Bool = false, cleared: Bool = false) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
        self.rootDeleted = rootDeleted
        self.cleared = cleared
    }

    /// Nothing changed: no key and neither flag.
    public var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && !rootDeleted && !cleared
    }

    public var description: String {
        "MapChangeSet(deletions: \(deletions), insertions: \(insertions), modifications: \(modifications)"
            + "\(rootDeleted ? ", rootDeleted" : "")\(cleared ? ", cleared" : ""))"
    }
}

/// Builds a `MapChangeSet` one operation at a time and composes the change
/// sets of successive versions.
///
/// Per key, what happened since the first version: inserted, deleted,
/// modified, or replaced (there before, removed, then added again: both a
/// deletion and an insertion, as realm-core reports it).  A key inserted
/// then removed is forgotten; a key inserted then set stays inserted.
public struct MapChangeBuilder: Equatable, Sendable {
    /// What happened to one key.
    public enum KeyChange: Equatable, Sendable {
        case inserted, deleted, modified, replaced
    }

    /// Per key, what happened to it since the first version.
    public private(set) var keys: [String: KeyChange] = [:]
    public var rootDeleted = false
    public var cleared = false

    public init() {}

    public var isEmpty: Bool { keys.isEmpty && !rootDeleted && !cleared }

    /// `key` added (it was not in the map).
    public mutating func insert(_ key: String) {
        record(.inserted, for: key)
        cleared = false
    }

    /// `key`'s value set (it was in the map).
    public mutating func modify(_ key: String) { record(.modified, for: key) }

    /// `key` removed (it was in the map).
    public mutating func remove(_ key: String) { record(.deleted, for: key) }

    /// Every key removed: `keysBefore` are the keys the map held just
    /// before the clear.
    public mutating func clear<S: Sequence>(keysBefore: S) where S.Element == String {
        for key in keysBefore { record(.deleted, for: key) }
        cleared = true
    }

    /// Appends `next`, the changes of the following version.
    public mutating func merge(_ next: MapChangeBuilder) {
        if next.isEmpty { return }
        if isEmpty {
            self = next
            return
        }
        for (key, change) in next.keys { record(change, for: key) }
        if next.rootDeleted { rootDeleted = true }
        cleared = next.cleared
    }

    /// `later` happened to `key` after what is recorded for it.
    private mutating func record(_ later: KeyChange, for key: String) {
        guard let earlier = keys[key] else {
            keys[key] = later
            return
        }
        switch (earlier, later) {
        case (.inserted, .deleted):
            keys[key] = nil  // never there for the observer
        case (.inserted, _):
            break  // still new
        case (.deleted, .inserted), (.deleted, .replaced):
            keys[key] = .replaced
        case (.deleted, _):
            break  // cannot happen: the key was not there
        case (.modified, _):
            keys[key] = later == .inserted ? .replaced : later
        case (.replaced, .deleted):
            keys[key] = .deleted
        case (.replaced, _):
            break
        }
    }

    /// The change set, keys ascending in UTF-8 byte order.
    public func finalize() -> MapChangeSet {
        var result = MapChangeSet(rootDeleted: rootDeleted, cleared: cleared)
        for (key, change) in keys {
            switch change {
            case .inserted: result.insertions.append(key)
            case .deleted: result.deletions.append(key)
            case .modified: result.modifications.append(key)
            case .replaced:
                result.deletions.append(key)
                result.insertions.append(key)
            }
        }
        let byBytes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        result.deletions.sort(by: byBytes)
        result.insertions.sort(by: byBytes)
        result.modifications.sort(by: byBytes)
        return result
    }
}

/// What changed in one object between two versions: deleted, or which of
/// its properties were written.
public struct ObjectChangeSet: Equatable, Sendable, CustomStringConvertible {
    /// The object was deleted (then no property is reported).
    public private(set) var isDeleted = false
    /// The keys of the properties written, ascending.
    public private(set) var changedProperties: [UInt32] = []

    public init() {}

    public init(isDeleted: Bool = false, changedProperties: [UInt32]) {
        self.isDeleted = isDeleted
        self.changedProperties = isDeleted ? [] : Array(Set(changedProperties)).sorted()
    }

    /// Nothing changed.
    public var isEmpty: Bool { !isDeleted && changedProperties.isEmpty }

    public var description: String {
        isDeleted ? "ObjectChangeSet(deleted)" : "ObjectChangeSet(changed: \(changedProperties))"
    }

    /// `property` written.
    public mutating func modify(_ property: UInt32) {
        if isDeleted { return }
        var low = 0, high = changedProperties.count
        while low < high {
            let middle = (low + high) / 2
            if changedProperties[middle] < property { low = middle + 1 } else { high = middle }
        }
        if low < changedProperties.count && changedProperties[low] == property { return }
        changedProperties.insert(property, at: low)
    }

    /// The object deleted: what was written before no longer matters.
    public mutating func delete() {
        isDeleted = true
        changedProperties = []
    }

    /// Appends `next`, the changes of the following version.
    public mutating func merge(_ next: ObjectChangeSet) {
        if next.isDeleted { delete() }
        for property in next.changedProperties { modify(property) }
    }
}
