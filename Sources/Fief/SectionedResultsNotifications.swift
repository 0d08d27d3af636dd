import CFief
import Foundation

// Sectioned results notifications (RealmSwift's `SectionedResults.observe`
// and `ResultsSection.observe`), over the sorted results' notifications:
// at each delivery the sections are laid out again from the rows the
// results already hold (`SectionStore.layout`), each section key gets a
// stable id, and fief_collection_changes_by_section regroups the results'
// change set from the ids of the rows before and after (fief.h,
// "Sectioned results changes").

/// How sectioned results changed (RealmSwift's `SectionedResultsChange`):
/// the first call is `.initial`; later ones `.update` with the rows deleted
/// (index paths before the change), inserted (after) and modified (before),
/// and the sections inserted (after) and deleted (before).  Rows of a
/// deleted section are not listed; a row that changed section or place is
/// a deletion and an insertion.
@frozen public enum SectionedResultsChange<Collection> {
    case initial(Collection)
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

/// RealmSwift's former name.
@available(*, deprecated, renamed: "SectionedResultsChange")
public typealias RealmSectionedResultsChange = SectionedResultsChange

/// One observation's view of the sections: an id per section key (the same
/// key keeps its id) and the rows' section ids last delivered.  Used on
/// the delivering thread only.
private final class SectionTracker<Key: _Persistable & Hashable, Element: RealmCollectionValue>: @unchecked Sendable {
    let store: SectionStore<Key, Element>
    /// The one section observed (`ResultsSection.observe`), as an id.
    private(set) var onlyId: Int64?
    private var idOfKey: [SectionKeyIdentity: Int64] = [:]
    private var lastIds: [Int64] = []

    init(store: SectionStore<Key, Element>, only: SectionKeyIdentity?) {
        self.store = store
        if let only { onlyId = id(of: only) }
    }

    private func id(of identity: SectionKeyIdentity) -> Int64 {
        if let known = idOfKey[identity] { return known }
        let made = Int64(idOfKey.count)
        idOfKey[identity] = made
        return made
    }

    /// Each row's section id in the layout of now.
    private func currentIds() -> [Int64] {
        let sections = store.layout().sections
        var ids = [Int64](repeating: 0, count: sections.reduce(0) { $0 + $1.positions.count })
        for section in sections {
            let sectionId = id(of: section.identity)
            for position in section.positions { ids[position] = sectionId }
        }
        return ids
    }

    /// The change behind the C change handle `changes` (read during the
    /// call); nil for a failed change set (RealmSwift has no error case)
    /// and, for one section, when nothing of it changed.
    func change<Collection>(_ changes: OpaquePointer?, _ collection: Collection) -> SectionedResultsChange<Collection>? {
        var failed = false
        if fief_collection_changes_get_error(changes, &failed, nil), failed { return nil }
        var initial = false
        _ = fief_collection_changes_get_flags(changes, &initial, nil, nil)
        let now = currentIds()
        defer { lastIds = now }
        if initial { return .initial(collection) }
        func regroup(_ only: UnsafePointer<Int64>?) -> OpaquePointer? {
            lastIds.withUnsafeBufferPointer { old in
                now.withUnsafeBufferPointer { new in
                    fief_collection_changes_by_section(changes, old.baseAddress, old.count, new.baseAddress, new.count, only)
                }
            }
        }
        let regrouped = onlyId.map { id in withUnsafePointer(to: id) { regroup($0) } } ?? regroup(nil)
        guard let regrouped else { fiefTrap("Cannot regroup the change set by section", CError.last()) }
        defer { _ = fief_release(UnsafeRawPointer(regrouped)) }
        var counts = (0, 0, 0, 0, 0)
        _ = fief_section_changes_get_counts(regrouped, &counts.0, &counts.1, &counts.2, &counts.3, &counts.4)
        let empty = fief_index_path_t(section: 0, item: 0)
        var deletions = [fief_index_path_t](repeating: empty, count: counts.0)
        var insertions = [fief_index_path_t](repeating: empty, count: counts.1)
        var modifications = [fief_index_path_t](repeating: empty, count: counts.2)
        var inserted = [Int](repeating: 0, count: counts.3)
        var deleted = [Int](repeating: 0, count: counts.4)
        deletions.withUnsafeMutableBufferPointer { d in
            insertions.withUnsafeMutableBufferPointer { i in
                modifications.withUnsafeMutableBufferPointer { m in
                    _ = fief_section_changes_get_index_paths(regrouped, max(counts.0, counts.1, counts.2), d.baseAddress, i.baseAddress, m.baseAddress)
                }
            }
        }
        inserted.withUnsafeMutableBufferPointer { i in
            deleted.withUnsafeMutableBufferPointer { d in
                _ = fief_section_changes_get_sections(regrouped, max(counts.3, counts.4), i.baseAddress, d.baseAddress)
            }
        }
        // A section observer is not called for changes of other sections.
        if onlyId != nil && counts == (0, 0, 0, 0, 0) { return nil }
        func paths(_ list: [fief_index_path_t]) -> [IndexPath] { list.map { IndexPath(indexes: [$0.section, $0.item]) } }
        return .update(collection, deletions: paths(deletions), insertions: paths(insertions), modifications: paths(modifications),
                       sectionsToInsert: IndexSet(inserted), sectionsToDelete: IndexSet(deleted))
    }
}

/// Register `block` for the sections of `store` (all, or the one of `only`).
private func observeSections<Key, Element, Collection>(
    _ store: SectionStore<Key, Element>, only: SectionKeyIdentity?, _ collection: Collection, keyPaths: [String]?,
    queue: DispatchQueue?, _ block: @escaping (SectionedResultsChange<Collection>) -> Void
) -> NotificationToken {
    let tracker = SectionTracker(store: store, only: only)
    let results = store.results
    return results.core.addCollectionCallback(results.handle, keyPaths: keyPaths) { changes in
        guard let change = tracker.change(changes, collection) else { return }
        handOver(change, to: queue, block)
    }
}

extension SectionedResults {
    /// Calls `block` with `.initial(self)` at the next delivery, then
    /// `.update` whenever a commit changes the sections or their elements
    /// (RealmSwift's `SectionedResults.observe`): on the registering
    /// thread's run loop (the main queue on the main thread), or on
    /// `queue`.  `keyPaths` limit what counts as a modification, as
    /// `Results.observe`.  Traps inside a write transaction and for frozen
    /// sectioned results, as RealmSwift does.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observeSections(store, only: nil, self, keyPaths: keyPaths, queue: queue, block)
    }
}

extension SectionedResults where SectionElement: ObjectBase {
    /// `observe(keyPaths:on:_:)` with key paths of the element type (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension ResultsSection {
    /// As `SectionedResults.observe(keyPaths:on:_:)`, for this section's
    /// elements alone (RealmSwift's `ResultsSection.observe`): index paths
    /// are those of the whole sectioned results; the section's insertion
    /// or deletion is reported in `sectionsToInsert` or `sectionsToDelete`.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observeSections(store, only: identity, self, keyPaths: keyPaths, queue: queue, block)
    }
}

extension ResultsSection where T: ObjectBase {
    /// `observe(keyPaths:on:_:)` with key paths of the element type (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}
