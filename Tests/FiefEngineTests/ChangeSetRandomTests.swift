import XCTest
@testable import FiefEngine

// The change-set algebra against oracles, on random sequences: index sets
// against a plain set of positions, builders and merges against the list
// they describe (apply the change set to the old list: the new one comes
// out), calculate against the lists it diffs and a quadratic longest
// common subsequence.

/// `old` with the change set applied: deletions removed, then each
/// insertion taken from `new` at its position, ascending.
func applyChangeSet<T>(_ changes: IndexChangeSet, to old: [T], new: [T]) -> [T] {
    var result: [T] = []
    result.reserveCapacity(new.count)
    for (index, element) in old.enumerated() where !changes.deletions.contains(index) { result.append(element) }
    for index in changes.insertions {
        guard index <= result.count, index < new.count else { return result }
        result.insert(new[index], at: index)
    }
    return result
}

/// Checks that `changes` takes `old` to `new`: applying it, its moves,
/// and (when `modified` is given) its modifications, which must be the
/// modified elements present in both, at their old and new positions.
func verifyChangeSet<T: Equatable>(_ changes: IndexChangeSet, old: [T], new: [T], modified: ((T) -> Bool)?, _ what: String,
                          file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(applyChangeSet(changes, to: old, new: new), new, "\(what): \(changes)", file: file, line: line)
    XCTAssertTrue(changes.deletions.allSatisfy { $0 < old.count }, "\(what): deletions", file: file, line: line)
    for move in changes.moves {
        XCTAssertTrue(changes.deletions.contains(move.from), "\(what): move from", file: file, line: line)
        XCTAssertTrue(changes.insertions.contains(move.to), "\(what): move to", file: file, line: line)
        if move.from < old.count && move.to < new.count {
            XCTAssertEqual(old[move.from], new[move.to], "\(what): move \(move)", file: file, line: line)
        }
    }
    guard let modified else { return }
    let oldModified = old.indices.filter { !changes.deletions.contains($0) && modified(old[$0]) }
    let newModified = new.indices.filter { !changes.insertions.contains($0) && modified(new[$0]) }
    XCTAssertEqual(changes.modifications.indices, oldModified, "\(what): modifications \(changes)", file: file, line: line)
    XCTAssertEqual(changes.modificationsNew.indices, newModified, "\(what): modificationsNew", file: file, line: line)
}

final class ChangeSetRandomTests: XCTestCase {
    // MARK: IndexRangeSet

    /// The set invariant: ascending, non-empty, non-touching ranges.
    func assertWellFormed(_ set: IndexRangeSet, file: StaticString = #filePath, line: UInt = #line) {
        for (k, range) in set.ranges.enumerated() {
            XCTAssertFalse(range.isEmpty, "empty range in \(set)", file: file, line: line)
            if k > 0 { XCTAssertLessThan(set.ranges[k - 1].upperBound, range.lowerBound, "\(set)", file: file, line: line) }
        }
    }

    func randomSet(_ random: inout SeededRandom, span: Int) -> [Int] {
        let n = Int.random(in: 0...span / 2, using: &random)
        return Array(Set((0..<n).map { _ in Int.random(in: 0..<span, using: &random) })).sorted()
    }

    func testIndexSetAgainstPlainSets() {
        var random = SeededRandom(seed: 1)
        for trial in 0..<2000 {
            var model = Set(randomSet(&random, span: 40))
            var set = IndexRangeSet(model.shuffled(using: &random))
            for step in 0..<20 {
                let what = "trial \(trial) step \(step)"
                let index = Int.random(in: 0..<45, using: &random)
                let count = Int.random(in: 1...3, using: &random)
                switch Int.random(in: 0..<9, using: &random) {
                case 0:
                    set.add(index..<(index + count))
                    model.formUnion(index..<(index + count))
                case 1:
                    set.remove(index..<(index + count))
                    model.subtract(index..<(index + count))
                case 2:
                    set.insert(at: index, count: count)
                    model = Set(model.map { $0 >= index ? $0 + count : $0 }).union(index..<(index + count))
                case 3:
                    set.shiftForInsert(at: index, count: count)
                    model = Set(model.map { $0 >= index ? $0 + count : $0 })
                case 4:
                    set.erase(at: index)
                    model = Set(model.filter { $0 != index }.map { $0 > index ? $0 - 1 : $0 })
                case 5:
                    let wasMember = model.contains(index)
                    let unshifted = model.filter { $0 < index }.count
                    XCTAssertEqual(set.eraseOrUnshift(index), wasMember ? nil : index - unshifted, what)
                    model = Set(model.filter { $0 != index }.map { $0 > index ? $0 - 1 : $0 })
                case 6:
                    // shift: the index-th position not in the set.
                    var position = 0, free = -1
                    while true {
                        if !model.contains(position) { free += 1; if free == index { break } }
                        position += 1
                    }
                    XCTAssertEqual(set.shift(index), position, what)
                    if !model.contains(index) {
                        XCTAssertEqual(set.unshift(index), index - model.filter { $0 < index }.count, what)
                    }
                case 7:
                    let shifted = set.addShifted(index)
                    var position = 0, free = -1
                    while true {
                        if !model.contains(position) { free += 1; if free == index { break } }
                        position += 1
                    }
                    XCTAssertEqual(shifted, position, what)
                    model.insert(position)
                default:
                    let bounds = index..<(index + count * 5)
                    XCTAssertEqual(set.count(in: bounds), model.filter { bounds.contains($0) }.count, what)
                }
                assertWellFormed(set)
                XCTAssertEqual(set.indices, model.sorted(), what)
                XCTAssertEqual(set.count, model.count, what)
                XCTAssertEqual(set.contains(index), model.contains(index), what)
            }
        }
    }

    /// The set-wide operations agree with their one-position forms.
    func testIndexSetBulkOperations() {
        var random = SeededRandom(seed: 2)
        for trial in 0..<2000 {
            let base = IndexRangeSet(randomSet(&random, span: 40))
            let positions = IndexRangeSet(randomSet(&random, span: 40))

            var bulk = base, single = base
            bulk.insert(at: positions)
            for p in positions { single.insert(at: p) }
            XCTAssertEqual(bulk, single, "insert(at:) \(trial)")
            assertWellFormed(bulk)

            bulk = base; single = base
            bulk.shiftForInsert(at: positions)
            for p in positions { single.shiftForInsert(at: p) }
            XCTAssertEqual(bulk, single, "shiftForInsert(at:) \(trial)")
            assertWellFormed(bulk)

            bulk = base; single = base
            bulk.erase(at: positions)
            for p in positions.indices.reversed() { single.erase(at: p) }
            XCTAssertEqual(bulk, single, "erase(at:) \(trial)")
            assertWellFormed(bulk)

            // addShifted(by:): each value not in `shiftedBy`, moved down past
            // its members, then up past the set's members as it was.
            let values = IndexRangeSet(randomSet(&random, span: 40))
            bulk = base
            bulk.addShifted(by: positions, values)
            var expected = Set(base.indices)
            for v in values where !positions.contains(v) { expected.insert(base.shift(v - positions.count(below: v))) }
            XCTAssertEqual(bulk.indices, expected.sorted(), "addShifted(by:) \(trial)")
            assertWellFormed(bulk)

            var removed = base
            removed.remove(positions)
            XCTAssertEqual(removed.indices, base.indices.filter { !positions.contains($0) }, "remove \(trial)")
            var unioned = base
            unioned.add(positions)
            XCTAssertEqual(unioned.indices, Set(base.indices).union(positions.indices).sorted(), "add \(trial)")
        }
    }

    // MARK: Builder against the list it describes

    /// Random list operations on `list` (elements unique tokens), fed to
    /// `builder`; modified tokens noted.
    func randomOperations(_ random: inout SeededRandom, list: inout [Int], nextToken: inout Int,
                          modified: inout Set<Int>, builder: inout ChangeBuilder, count: Int) {
        for _ in 0..<count {
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
            } else if choice < 70 {
                let at = Int.random(in: 0..<list.count, using: &random)
                modified.insert(list[at])
                builder.modify(at: at)
            } else if choice < 88 {
                let from = Int.random(in: 0..<list.count, using: &random)
                let to = Int.random(in: 0..<list.count, using: &random)
                list.insert(list.remove(at: from), at: to)
                builder.move(from: from, to: to)
            } else if choice < 97 {
                let a = Int.random(in: 0..<list.count, using: &random)
                let b = Int.random(in: 0..<list.count, using: &random)
                list.swapAt(a, b)
                builder.swap(a, b)
            } else {
                builder.clear(oldSize: list.count)
                list.removeAll()
            }
        }
    }

    func testBuilderAgainstTheList() {
        var random = SeededRandom(seed: 3)
        for trial in 0..<3000 {
            let old = Array(0..<Int.random(in: 0...12, using: &random))
            var list = old, nextToken = old.count
            var modified = Set<Int>()
            var builder = ChangeBuilder()
            randomOperations(&random, list: &list, nextToken: &nextToken, modified: &modified, builder: &builder,
                             count: Int.random(in: 1...12, using: &random))
            let changes = builder.finalize()
            verifyChangeSet(changes, old: old, new: list, modified: { modified.contains($0) }, "trial \(trial)")
        }
    }

    func testMergedBuildersAgainstTheList() {
        var random = SeededRandom(seed: 4)
        for trial in 0..<3000 {
            let old = Array(0..<Int.random(in: 0...12, using: &random))
            var list = old, nextToken = old.count
            var modified = Set<Int>()
            var merged = ChangeBuilder()
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                var builder = ChangeBuilder()
                randomOperations(&random, list: &list, nextToken: &nextToken, modified: &modified,
                                 builder: &builder, count: Int.random(in: 1...6, using: &random))
                builder.cleanUpStaleMoves()
                merged.merge(builder)
            }
            verifyChangeSet(merged.finalize(), old: old, new: list, modified: { modified.contains($0) }, "trial \(trial)")
        }
    }

    // MARK: calculate

    /// The length of the longest common subsequence (quadratic).
    func lcsLength(_ a: [Int64], _ b: [Int64]) -> Int {
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for j in 0..<b.count {
                let above = row[j + 1]
                row[j + 1] = x == b[j] ? diagonal + 1 : Swift.max(row[j + 1], row[j])
                diagonal = above
            }
        }
        return row[b.count]
    }

    /// A random next version of `old`: some keys gone, some new, some
    /// reordered; with `repeats`, keys may repeat.
    func nextKeys(_ random: inout SeededRandom, _ old: [Int64], nextKey: inout Int64, repeats: Bool) -> [Int64] {
        var new = old.filter { _ in Int.random(in: 0..<5, using: &random) != 0 }
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let key: Int64
            if repeats && !old.isEmpty && Bool.random(using: &random) {
                key = old.randomElement(using: &random)!
            } else {
                key = nextKey
                nextKey += 1
            }
            new.insert(key, at: Int.random(in: 0...new.count, using: &random))
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) where new.count > 1 {
            let from = Int.random(in: 0..<new.count, using: &random)
            new.insert(new.remove(at: from), at: Int.random(in: 0..<new.count, using: &random))
        }
        return new
    }

    func testCalculateAgainstTheLists() {
        var random = SeededRandom(seed: 5)
        for trial in 0..<4000 {
            let repeats = trial % 4 == 3
            let inKeyOrder = !repeats && trial % 2 == 0
            var nextKey: Int64 = 0
            var old: [Int64] = (0..<Int.random(in: 0...15, using: &random)).map { _ in
                nextKey += 1
                return repeats ? Int64.random(in: 0..<nextKey, using: &random) : nextKey
            }
            nextKey += 1
            var new = nextKeys(&random, old, nextKey: &nextKey, repeats: repeats)
            if inKeyOrder {
                old.sort()
                new = Array(Set(new)).sorted()
            }
            // Some keys of deleted objects reused by new objects.
            let reused = Set(new.filter { old.contains($0) && Int.random(in: 0..<8, using: &random) == 0 })
            let modifiedKeys = Set((old + new).filter { _ in Bool.random(using: &random) })
            let what = "trial \(trial): \(old) -> \(new), reused \(reused), in key order \(inKeyOrder)"
            // Unique keys told in a third of the trials (the common tail skipped).
            let builder = ChangeBuilder.calculate(old: old, new: new, inKeyOrder: inKeyOrder,
                                                  uniqueKeys: !repeats && trial % 3 == 0,
                                                  deleted: reused.isEmpty ? nil : { reused.contains($0) },
                                                  modified: { modifiedKeys.contains($0) })
            let changes = builder.finalize()
            XCTAssertTrue(changes.moves.isEmpty, what)
            XCTAssertEqual(applyChangeSet(changes, to: old, new: new), new, what)
            // Rows of deleted objects are deleted.
            for (index, key) in old.enumerated() where reused.contains(key) {
                XCTAssertTrue(changes.deletions.contains(index), what)
            }
            if repeats { continue }
            // Unique keys: the rows kept are a longest common subsequence of
            // the surviving keys, and modifications are the modified rows
            // in both (builder: new positions, even when moved).
            let survivingOld = old.filter { new.contains($0) && !reused.contains($0) }
            let survivingNew = new.filter { old.contains($0) && !reused.contains($0) }
            XCTAssertEqual(old.count - changes.deletions.count, lcsLength(survivingOld, survivingNew), what)
            let expectedModified = new.indices.filter {
                old.contains(new[$0]) && !reused.contains(new[$0]) && modifiedKeys.contains(new[$0])
            }
            XCTAssertEqual(builder.modifications.indices, expectedModified, what)
            verifyChangeSet(changes, old: old, new: new,
                   modified: { modifiedKeys.contains($0) && !reused.contains($0) }, what)
        }
    }

    /// Successive calculated change sets merged describe the whole change.
    func testMergedCalculationsAgainstTheLists() {
        var random = SeededRandom(seed: 6)
        for trial in 0..<2000 {
            let repeats = trial % 3 == 2
            var nextKey: Int64 = 0
            let first: [Int64] = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                nextKey += 1
                return nextKey
            }
            nextKey += 1
            var current = first
            var merged = ChangeBuilder()
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let next = nextKeys(&random, current, nextKey: &nextKey, repeats: repeats)
                merged.merge(ChangeBuilder.calculate(old: current, new: next, inKeyOrder: false, modified: { _ in false }))
                current = next
            }
            XCTAssertEqual(applyChangeSet(merged.finalize(), to: first, new: current), current, "trial \(trial)")
        }
    }

    /// Large lists: a shuffle, a few moves, repeats; against the oracle.
    func testCalculateLargeLists() {
        var random = SeededRandom(seed: 7)
        let old = (0..<5000).map { Int64($0) * 3 }
        var shuffled = old
        shuffled.shuffle(using: &random)
        var fewMoves = old
        for _ in 0..<20 {
            fewMoves.insert(fewMoves.remove(at: Int.random(in: 0..<fewMoves.count, using: &random)),
                            at: Int.random(in: 0..<fewMoves.count, using: &random))
        }
        let repeated = (0..<5000).map { _ in Int64.random(in: 0..<500, using: &random) }
        var repeatedNext = repeated
        repeatedNext.shuffle(using: &random)
        repeatedNext.removeLast(100)
        for (name, a, b) in [("shuffle", old, shuffled), ("few moves", old, fewMoves),
                             ("repeats", repeated, repeatedNext), ("appends", old, old + [1, 2, 4]),
                             ("unchanged", old, old)] {
            let changes = ChangeBuilder.calculate(old: a, new: b, inKeyOrder: false, modified: { $0 % 7 == 0 })
                .finalize()
            XCTAssertEqual(applyChangeSet(changes, to: a, new: b), b, name)
            if name == "few moves" {
                XCTAssertLessThanOrEqual(changes.deletions.count, 20, name)
            }
            if name == "unchanged" {
                XCTAssertTrue(changes.deletions.isEmpty && changes.insertions.isEmpty, name)
                XCTAssertEqual(changes.modifications.count, a.filter { $0 % 7 == 0 }.count, name)
            }
        }
    }
}
