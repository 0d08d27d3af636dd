import XCTest
@testable import FiefEngine

/// The two comparisons behind session 24's notifiers, on seeded random
/// sequences: `NestedDiff.list` (a nested list before and after) and
/// `ValueViewDiff` (filtered and sorted results of values carried through
/// their collection's change), each checked by applying the change set to
/// the old contents.
final class NestedDiffTests: XCTestCase {
    private func contents(_ values: [Int]) -> NestedContents {
        NestedContents(keys: [], values: values.map { [UInt8($0)] }, inner: values.map { _ in 0 })
    }

    func testNestedListChangeSetsApplyToTheOldList() {
        var random = SeededRandom(seed: 24)
        for trial in 0..<3000 {
            let old = (0..<Int.random(in: 0...10, using: &random)).map { _ in Int.random(in: 0..<5, using: &random) }
            var new = old
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let choice = Int.random(in: 0..<4, using: &random)
                if choice == 0 || new.isEmpty {
                    new.insert(Int.random(in: 0..<5, using: &random), at: Int.random(in: 0...new.count, using: &random))
                } else if choice == 1 {
                    new.remove(at: Int.random(in: 0..<new.count, using: &random))
                } else if choice == 2 {
                    new[Int.random(in: 0..<new.count, using: &random)] = Int.random(in: 0..<5, using: &random)
                } else {
                    let from = Int.random(in: 0..<new.count, using: &random), to = Int.random(in: 0..<new.count, using: &random)
                    new.insert(new.remove(at: from), at: to)
                }
            }
            let changes = NestedDiff.list(old: contents(old), new: contents(new)).finalize()
            // Deletions and insertions, then the modified elements replaced.
            var applied = applyChangeSet(changes, to: old, new: new)
            for position in changes.modificationsNew where position < applied.count { applied[position] = new[position] }
            XCTAssertEqual(applied, new, "trial \(trial): \(old) -> \(new): \(changes)")
            for move in changes.moves {
                XCTAssertTrue(changes.deletions.contains(move.from) && changes.insertions.contains(move.to), "trial \(trial)")
                XCTAssertEqual(old[move.from], new[move.to], "trial \(trial): move \(move)")
            }
        }
    }

    func testValueViewChangeSetsApplyToTheOldRows() {
        var random = SeededRandom(seed: 25)
        for trial in 0..<3000 {
            let old = Array(0..<Int.random(in: 0...12, using: &random))
            var value = old.map { _ in Int.random(in: 0..<20, using: &random) }
            let oldValue = value
            var list = old, nextToken = old.count
            var modified = Set<Int>()
            var builder = ChangeBuilder()
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let choice = Int.random(in: 0..<100, using: &random)
                if choice < 30 || list.isEmpty {
                    let at = Int.random(in: 0...list.count, using: &random)
                    list.insert(nextToken, at: at)
                    nextToken += 1
                    builder.insert(at: at)
                } else if choice < 50 {
                    let at = Int.random(in: 0..<list.count, using: &random)
                    list.remove(at: at)
                    builder.erase(at: at)
                } else if choice < 75 {
                    let at = Int.random(in: 0..<list.count, using: &random)
                    modified.insert(list[at])
                    builder.modify(at: at)
                } else if choice < 97 {
                    let from = Int.random(in: 0..<list.count, using: &random), to = Int.random(in: 0..<list.count, using: &random)
                    list.insert(list.remove(at: from), at: to)
                    builder.move(from: from, to: to)
                } else {
                    builder.clear(oldSize: list.count)
                    list.removeAll()
                }
            }
            while value.count < nextToken { value.append(Int.random(in: 0..<20, using: &random)) }
            for token in modified { value[token] = Int.random(in: 0..<20, using: &random) }
            // The view: elements of value >= 8, sorted by value, ties by position.
            func rows(_ tokens: [Int], _ values: [Int]) -> [Int64] {
                tokens.indices.filter { values[tokens[$0]] >= 8 }
                    .sorted { (values[tokens[$0]], $0) < (values[tokens[$1]], $1) }.map { Int64($0) }
            }
            let oldRows = rows(old, oldValue), newRows = rows(list, value)
            let source = builder.finalize()
            let changes = ValueViewDiff.changes(source: source, oldCount: old.count, oldRows: oldRows, newRows: newRows).finalize()
            let oldView = oldRows.map { old[Int($0)] }, newView = newRows.map { list[Int($0)] }
            // Modified rows: the elements the collection's change reports
            // modified (one modified and then moved is a move there, as in
            // realm-core, so not a modification of the row either).
            let reported = Set(source.modificationsNew.map { list[$0] })
            verifyChangeSet(changes, old: oldView, new: newView, modified: { reported.contains($0) }, "trial \(trial)")
        }
    }
}
