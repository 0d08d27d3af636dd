import FiefStorage

// Change sets of collections nested in mixed values (docs/design.md,
// "Nested collections and filtered value results (session 24)").  Their
// writes are recorded as writes of the owner's mixed property (the
// records name no nested collection), so the collection notifier of a
// nested list or dictionary compares the collection's contents at its base
// and at the new version whenever the records name that property of that
// owner, and only then.

/// A nested collection as its notifier compares it: per element (lists, in
/// order) or key (dictionaries, in key order), the stored value's bytes,
/// and for an element that is itself a nested collection a fingerprint of
/// everything inside it (so a write deeper down is a modification of the
/// element holding it).
struct NestedContents {
    /// A dictionary's keys, in key order (lists: none).
    var keys: [[UInt8]] = []
    /// The coded values (a nested collection's: its id, which stays while
    /// it does).
    var values: [[UInt8]] = []
    /// Per value: a fingerprint of the contents of the collection it
    /// holds, 0 for any other value.
    var inner: [UInt64] = []

    var count: Int { values.count }
}

extension Realm {
    /// The contents of nested collection `ref`, or nil when it is gone (its
    /// owner deleted, the value holding it replaced or removed).  Under the
    /// lock.
    func nestedContents(_ ref: CollectionRef) throws(FiefError) -> NestedContents? {
        guard try nestedExists(ref) else { return nil }
        var contents = NestedContents()
        let isDictionary = ref.kind == .map
        for entry in try nestedEntries(ref).entries {
            if isDictionary { contents.keys.append(Array(entry.key)) }
            contents.values.append(Array(entry.value))
            contents.inner.append(try nestedFingerprint(ref, MixedCoding.decode(entry.value)))
        }
        return contents
    }

    /// A fingerprint (64-bit FNV-1a) of every entry of the collection that
    /// `value` holds and of the collections nested in it, walked with a
    /// worklist; 0 when `value` holds no collection.
    private func nestedFingerprint(_ ref: CollectionRef, _ value: Value?) throws(FiefError) -> UInt64 {
        guard let value, value.nestedID != nil else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0xff
            hash = hash &* 0x100_0000_01b3
        }
        var pending: [Value] = [value]
        while let next = pending.popLast() {
            let child: CollectionRef
            switch next {
            case .nestedList(let id): child = ref.nestedChild(.list, id)
            case .nestedDictionary(let id): child = ref.nestedChild(.dictionary, id)
            default: continue
            }
            withUnsafeBytes(of: child.nested) { mix($0) }
            for entry in try nestedEntries(child).entries {
                mix(entry.key)
                mix(entry.value)
                if let element = MixedCoding.decode(entry.value), element.nestedID != nil { pending.append(element) }
            }
        }
        return hash == 0 ? 1 : hash
    }
}

/// The change sets of a nested collection from its contents before and
/// after.
enum NestedDiff {
    /// A nested list's change: when, past the elements equal at both ends,
    /// as many elements were replaced as stood there and none of them is
    /// among the new ones, each is a modification (the list's `set`, as
    /// realm-core reports it); otherwise the elements are matched by value
    /// (`ChangeBuilder.calculate`: the ones keeping their relative order
    /// stay, the others are deleted and inserted), and an element deleted
    /// at one place and inserted at another is also a move (as realm-core's
    /// lists report `move`; equal values paired in order).  An element
    /// holding a collection whose contents changed is a modification.
    static func list(old: NestedContents, new: NestedContents) -> ChangeBuilder {
        let o = old.values, n = new.values
        let shorter = min(o.count, n.count)
        var head = 0
        while head < shorter && o[head] == n[head] { head += 1 }
        var tail = 0
        while tail < shorter - head && o[o.count - 1 - tail] == n[n.count - 1 - tail] { tail += 1 }
        let oldMiddle = head..<(o.count - tail), newMiddle = head..<(n.count - tail)
        if !oldMiddle.isEmpty && oldMiddle.count == newMiddle.count && Set(o[oldMiddle]).isDisjoint(with: n[newMiddle]) {
            var builder = ChangeBuilder()
            for i in 0..<n.count where newMiddle.contains(i) || old.inner[i] != new.inner[i] { builder.modify(at: i) }
            return builder
        }
        var ids: [[UInt8]: Int64] = [:]
        func identity(_ value: [UInt8]) -> Int64 {
            if let known = ids[value] { return known }
            let made = Int64(ids.count)
            ids[value] = made
            return made
        }
        let oldIDs = o.map(identity), newIDs = n.map(identity)
        // Elements holding a collection are unique (each has its own id).
        var innerBefore: [Int64: UInt64] = [:]
        for (i, fingerprint) in old.inner.enumerated() where fingerprint != 0 { innerBefore[oldIDs[i]] = fingerprint }
        var changedInside = Set<Int64>()
        for (j, fingerprint) in new.inner.enumerated() where fingerprint != 0 {
            if let before = innerBefore[newIDs[j]], before != fingerprint { changedInside.insert(newIDs[j]) }
        }
        var builder = ChangeBuilder.calculate(old: oldIDs, new: newIDs, inKeyOrder: false) { changedInside.contains($0) }
        var deletedAt: [Int64: [Int]] = [:]
        for i in builder.deletions { deletedAt[oldIDs[i], default: []].append(i) }
        if deletedAt.isEmpty { return builder }
        for j in builder.insertions {
            guard var places = deletedAt[newIDs[j]], !places.isEmpty else { continue }
            builder.moves.append(IndexMove(from: places.removeFirst(), to: j))
            deletedAt[newIDs[j]] = places
        }
        return builder
    }

    /// A nested dictionary's change, by key: keys gone, keys new, and keys
    /// in both whose value (or what the collection it holds contains)
    /// changed; positions in key order.
    static func dictionary(old: NestedContents, new: NestedContents) -> (ChangeBuilder, MapChangeBuilder) {
        var builder = ChangeBuilder()
        var keys = MapChangeBuilder()
        let name = { (key: [UInt8]) in String(decoding: key, as: UTF8.self) }
        var i = 0, j = 0
        while i < old.keys.count || j < new.keys.count {
            if j == new.keys.count || (i < old.keys.count && old.keys[i].lexicographicallyPrecedes(new.keys[j])) {
                builder.deletions.add(i)
                keys.remove(name(old.keys[i]))
                i += 1
            } else if i == old.keys.count || new.keys[j].lexicographicallyPrecedes(old.keys[i]) {
                builder.insertions.add(j)
                keys.insert(name(new.keys[j]))
                j += 1
            } else {
                if old.values[i] != new.values[j] || old.inner[i] != new.inner[j] {
                    builder.modifications.add(j)
                    keys.modify(name(new.keys[j]))
                }
                i += 1
                j += 1
            }
        }
        return (builder, keys)
    }
}

/// The change of filtered or sorted results of a collection's values from
/// the collection's own change (as realm-core computes it for results of
/// primitive lists): a row is a position in the collection; the old rows
/// are carried to their new positions through the collection's change
/// (elements kept keep their order; moves move them), those whose element
/// went are deletions, and the two row lists are diffed by
/// `ChangeBuilder.calculate` (rows that keep their relative order stay;
/// no moves, no `cleared`, as results).  A row whose element the
/// collection reports modified is a modification; the collection gone
/// (its owner deleted) deletes every row, with `rootDeleted`.
enum ValueViewDiff {
    static func changes(source: IndexChangeSet, oldCount: Int, oldRows: [Int64], newRows: [Int64]) -> ChangeBuilder {
        if source.rootDeleted {
            var builder = ChangeBuilder()
            builder.deleteRoot(originalSize: oldRows.count)
            return builder
        }
        // Old position -> new position (-1: the element went).
        var newPosition = [Int64](repeating: -1, count: oldCount)
        var next = 0
        for old in 0..<oldCount where !source.deletions.contains(old) {
            while source.insertions.contains(next) { next += 1 }
            newPosition[old] = Int64(next)
            next += 1
        }
        for move in source.moves where move.from < oldCount { newPosition[move.from] = Int64(move.to) }
        // A row whose element went gets a key no new row has.
        var carried: [Int64] = []
        carried.reserveCapacity(oldRows.count)
        for (i, row) in oldRows.enumerated() {
            let position = row >= 0 && Int(row) < oldCount ? newPosition[Int(row)] : -1
            carried.append(position >= 0 ? position : -1 - Int64(i))
        }
        let modified = source.modificationsNew
        return ChangeBuilder.calculate(old: carried, new: newRows, inKeyOrder: false, uniqueKeys: true) { key in
            key >= 0 && modified.contains(Int(key))
        }
    }
}
