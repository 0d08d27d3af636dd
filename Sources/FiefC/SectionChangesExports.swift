import CFief
import FiefEngine
import FiefStorage

// Sectioned results changes (fief.h, "Sectioned results changes"): a
// results change set regrouped by the sections the host gives each row
// (the engine's SectionChangeSet), as RealmSwift's SectionedResultsChange.

/// A section change set's handle object (released by the host).
final class SectionChangesBox {
    let changes: SectionChangeSet

    init(_ changes: SectionChangeSet) { self.changes = changes }
}

private func withSectionChanges<R>(_ handle: OpaquePointer?, _ body: (SectionChangesBox) throws(FiefError) -> R) throws(FiefError) -> R {
    try HandleTable.borrow(UnsafeRawPointer(handle), .sectionChanges, as: SectionChangesBox.self, body)
}

/// The `count` section ids at `ids` (NULL only with no count).
private func sectionIds(_ ids: UnsafePointer<Int64>?, _ count: Int, _ name: StaticString) throws(FiefError) -> [Int64] {
    if count < 0 { throw FiefError(.invalidArgument, "\(name) count is negative") }
    if count == 0 { return [] }
    let ids = try require(ids, name)
    return Array(UnsafeBufferPointer(start: ids, count: count))
}

@_cdecl("fief_collection_changes_by_section")
public func exportCollectionChangesBySection(_ handle: OpaquePointer?, _ oldSections: UnsafePointer<Int64>?, _ oldCount: Int,
                                             _ newSections: UnsafePointer<Int64>?, _ newCount: Int,
                                             _ onlySection: UnsafePointer<Int64>?) -> OpaquePointer? {
    guarded(nil) { () throws(FiefError) -> OpaquePointer? in
        let old = try sectionIds(oldSections, oldCount, "old_sections")
        let new = try sectionIds(newSections, newCount, "new_sections")
        let (changes, isInitial, failed) = try HandleTable.borrow(UnsafeRawPointer(handle), .collectionChanges, as: CollectionChangesBox.self) { (box) -> (IndexChangeSet, Bool, Bool) in
            (box.changes, box.isInitial, box.error != nil)
        }
        var regrouped = SectionChangeSet()
        if !isInitial && !failed {
            func check(_ set: IndexRangeSet, _ count: Int, _ what: String) throws(FiefError) {
                if let last = set.ranges.last, last.upperBound > count {
                    throw FiefError(.invalidArgument, "the change set has \(what) index \(last.upperBound - 1) but \(count) rows were given")
                }
            }
            try check(changes.deletions, old.count, "an old (deleted)")
            try check(changes.modifications, old.count, "an old (modified)")
            try check(changes.insertions, new.count, "a new (inserted)")
            try check(changes.modificationsNew, new.count, "a new (modified)")
            regrouped = SectionChangeSet(changes: changes, old: SectionLayout(keyOfRow: old), new: SectionLayout(keyOfRow: new),
                                         onlySection: onlySection?.pointee)
        }
        guard let made = HandleTable.make(SectionChangesBox(regrouped), .sectionChanges) else {
            throw FiefError(.outOfMemory, "too many live handles")
        }
        return made
    }
}

@_cdecl("fief_section_changes_get_counts")
public func exportSectionChangesGetCounts(_ handle: OpaquePointer?, _ deletions: UnsafeMutablePointer<Int>?,
                                          _ insertions: UnsafeMutablePointer<Int>?, _ modifications: UnsafeMutablePointer<Int>?,
                                          _ sectionsInserted: UnsafeMutablePointer<Int>?,
                                          _ sectionsDeleted: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSectionChanges(handle) { (box) throws(FiefError) in
            func total(_ perSection: [IndexRangeSet]) -> Int { perSection.reduce(0) { $0 + $1.count } }
            deletions?.pointee = total(box.changes.deletions)
            insertions?.pointee = total(box.changes.insertions)
            modifications?.pointee = total(box.changes.modifications)
            sectionsInserted?.pointee = box.changes.sectionsInserted.count
            sectionsDeleted?.pointee = box.changes.sectionsDeleted.count
        }
        return true
    }
}

@_cdecl("fief_section_changes_get_index_paths")
public func exportSectionChangesGetIndexPaths(_ handle: OpaquePointer?, _ capacity: Int,
                                              _ deletions: UnsafeMutablePointer<fief_index_path_t>?,
                                              _ insertions: UnsafeMutablePointer<fief_index_path_t>?,
                                              _ modifications: UnsafeMutablePointer<fief_index_path_t>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSectionChanges(handle) { (box) throws(FiefError) in
            func copy(_ perSection: [IndexRangeSet], _ out: UnsafeMutablePointer<fief_index_path_t>?) {
                guard let out else { return }
                for (i, path) in SectionChangeSet.indexPaths(perSection).prefix(max(capacity, 0)).enumerated() {
                    out[i] = fief_index_path_t(section: path.section, item: path.item)
                }
            }
            copy(box.changes.deletions, deletions)
            copy(box.changes.insertions, insertions)
            copy(box.changes.modifications, modifications)
        }
        return true
    }
}

@_cdecl("fief_section_changes_get_sections")
public func exportSectionChangesGetSections(_ handle: OpaquePointer?, _ capacity: Int,
                                            _ inserted: UnsafeMutablePointer<Int>?, _ deleted: UnsafeMutablePointer<Int>?) -> Bool {
    guarded(false) { () throws(FiefError) -> Bool in
        try withSectionChanges(handle) { (box) throws(FiefError) in
            func copy(_ set: IndexRangeSet, _ out: UnsafeMutablePointer<Int>?) {
                guard let out else { return }
                for (i, section) in set.prefix(max(capacity, 0)).enumerated() { out[i] = section }
            }
            copy(box.changes.sectionsInserted, inserted)
            copy(box.changes.sectionsDeleted, deleted)
        }
        return true
    }
}
