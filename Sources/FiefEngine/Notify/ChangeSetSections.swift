// Change sets of sectioned results: the results' change set regrouped by
// section (docs/design.md, "Change sets"), as RealmSwift's
// `SectionedResultsChange` reports it.  Pure Swift, no storage.

/// How results rows fall into sections at one version: each section's key,
/// in section order, and each row's section.
public struct SectionLayout<Key: Hashable> {
    /// The sections' keys, in section order.
    public let keys: [Key]
    /// Per row of the results, its section and its place in it.
    public private(set) var paths: [(section: Int, item: Int)]
    /// Per section key, its section.
    let sectionOfKey: [Key: Int]

    /// The layout of rows whose sections are `sectionOfRow` (indices into
    /// `keys`); a row's place in its section counts the rows before it in
    /// the same section.
    public init(keys: [Key], sectionOfRow: [Int]) {
        self.keys = keys
        var counts = [Int](repeating: 0, count: keys.count)
        paths = []
        paths.reserveCapacity(sectionOfRow.count)
        for section in sectionOfRow {
            paths.append((section, counts[section]))
            counts[section] += 1
        }
        var sectionOfKey: [Key: Int] = [:]
        for (section, key) in keys.enumerated() { sectionOfKey[key] = section }
        self.sectionOfKey = sectionOfKey
    }

    /// The layout of rows already grouped: `keyOfRow[i]` is row i's section
    /// key; sections in order of their first row.
    public init(keyOfRow: [Key]) {
        var keys: [Key] = []
        var sectionOfKey: [Key: Int] = [:]
        var sectionOfRow: [Int] = []
        sectionOfRow.reserveCapacity(keyOfRow.count)
        for key in keyOfRow {
            if let section = sectionOfKey[key] {
                sectionOfRow.append(section)
            } else {
                sectionOfKey[key] = keys.count
                sectionOfRow.append(keys.count)
                keys.append(key)
            }
        }
        self.init(keys: keys, sectionOfRow: sectionOfRow)
    }
}

/// What changed in sectioned results: sections added and removed, and per
/// section the rows deleted (old sections and places), inserted and
/// modified (new sections and places for insertions; old and new alike
/// for modifications, which are only reported where the row kept its
/// section and place).
public struct SectionChangeSet: Equatable, Sendable, CustomStringConvertible {
    /// Per old section, the places of rows removed from it (none reported
    /// for a section removed as a whole).
    public var deletions: [IndexRangeSet] = []
    /// Per new section, the places of rows added to it.
    public var insertions: [IndexRangeSet] = []
    /// Per section, the places of rows changed in place.
    public var modifications: [IndexRangeSet] = []
    /// Sections of the new layout that the old did not have (by key).
    public var sectionsInserted = IndexRangeSet()
    /// Sections of the old layout that the new does not have (by key).
    public var sectionsDeleted = IndexRangeSet()

    public init() {}

    /// Nothing changed.
    public var isEmpty: Bool {
        deletions.allSatisfy(\.isEmpty) && insertions.allSatisfy(\.isEmpty) && modifications.allSatisfy(\.isEmpty)
            && sectionsInserted.isEmpty && sectionsDeleted.isEmpty
    }

    /// The (section, item) pairs of one of the per-section lists, in order.
    public static func indexPaths(_ perSection: [IndexRangeSet]) -> [(section: Int, item: Int)] {
        var paths: [(section: Int, item: Int)] = []
        for (section, items) in perSection.enumerated() {
            for item in items { paths.append((section, item)) }
        }
        return paths
    }

    public var description: String {
        func show(_ perSection: [IndexRangeSet]) -> String {
            Self.indexPaths(perSection).map { "[\($0.section), \($0.item)]" }.joined(separator: " ")
        }
        return "SectionChangeSet(deletions: \(show(deletions)), insertions: \(show(insertions)), "
            + "modifications: \(show(modifications)), sectionsInserted: \(sectionsInserted), "
            + "sectionsDeleted: \(sectionsDeleted))"
    }

    /// Adds `item` to section `section` of `perSection`, growing it.
    private static func add(_ item: Int, section: Int, to perSection: inout [IndexRangeSet]) {
        while perSection.count <= section { perSection.append(IndexRangeSet()) }
        perSection[section].add(item)
    }

    /// The sectioned change set of results whose change set is `changes`,
    /// laid out as `old` before and `new` after.  With `onlySection`, the
    /// changes of the section with that key alone (a section's own
    /// observer), positions still those of the whole layout.
    ///
    /// A row modified keeps being a modification only if it has the same
    /// place in the same section (by key) before and after; otherwise it
    /// may have changed section, and is reported as deleted from its old
    /// place and inserted at its new one.
    public init<Key>(changes: IndexChangeSet, old: SectionLayout<Key>, new: SectionLayout<Key>,
                     onlySection: Key? = nil) {
        var newModifications: [IndexRangeSet] = []
        if let onlyKey = onlySection {
            let oldSection = old.sectionOfKey[onlyKey], newSection = new.sectionOfKey[onlyKey]
            if oldSection == nil && newSection == nil { return }
            if oldSection == nil, let newSection { sectionsInserted.add(newSection) }
            if newSection == nil, let oldSection { sectionsDeleted.add(oldSection) }
            func collect(_ indices: IndexRangeSet, _ layout: SectionLayout<Key>, _ section: Int?,
                         into perSection: inout [IndexRangeSet]) {
                guard let section else { return }
                for index in indices where layout.paths[index].section == section {
                    Self.add(layout.paths[index].item, section: section, to: &perSection)
                }
            }
            collect(changes.insertions, new, newSection, into: &insertions)
            collect(changes.modifications, old, oldSection, into: &modifications)
            collect(changes.modificationsNew, new, newSection, into: &newModifications)
            // Rows deleted from the section are reported only while it exists.
            if newSection != nil { collect(changes.deletions, old, oldSection, into: &deletions) }
        } else {
            for (section, key) in new.keys.enumerated() where old.sectionOfKey[key] == nil {
                sectionsInserted.add(section)
            }
            for (section, key) in old.keys.enumerated() where new.sectionOfKey[key] == nil {
                sectionsDeleted.add(section)
            }
            for index in changes.insertions {
                let path = new.paths[index]
                Self.add(path.item, section: path.section, to: &insertions)
            }
            for index in changes.modifications {
                let path = old.paths[index]
                Self.add(path.item, section: path.section, to: &modifications)
            }
            for index in changes.modificationsNew {
                let path = new.paths[index]
                Self.add(path.item, section: path.section, to: &newModifications)
            }
            // A removed section is reported as such, without its rows.
            for index in changes.deletions {
                let path = old.paths[index]
                if !sectionsDeleted.contains(path.section) { Self.add(path.item, section: path.section, to: &deletions) }
            }
        }

        // Modifications stay where the row kept its section and place; the
        // others become a deletion and an insertion.
        var oldSection = modifications.count - 1
        while oldSection >= 0 {
            defer { oldSection -= 1 }
            guard let newSection = new.sectionOfKey[old.keys[oldSection]] else {
                // The section went: its rows are not reported one by one.
                modifications[oldSection] = IndexRangeSet()
                continue
            }
            var stayed = IndexRangeSet()
            if newSection < newModifications.count {
                for item in modifications[oldSection] where newModifications[newSection].contains(item) {
                    stayed.add(item)
                }
                newModifications[newSection].remove(stayed)
            }
            var moved = modifications[oldSection]
            moved.remove(stayed)
            for item in moved { Self.add(item, section: oldSection, to: &deletions) }
            modifications[oldSection] = stayed
        }
        for (section, items) in newModifications.enumerated() {
            for item in items { Self.add(item, section: section, to: &insertions) }
        }
        while let last = modifications.last, last.isEmpty { modifications.removeLast() }
    }
}

extension SectionLayout: Sendable where Key: Sendable {}
