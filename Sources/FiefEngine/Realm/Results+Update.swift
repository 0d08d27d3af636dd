import FiefStorage

/// Set-based update: one property of every object of a Results set to one
/// value in one call (RealmSwift's `Results.setValue(_:forKey:)`, realm-core's
/// `Results::set_property_value`).
///
/// The value is checked once, the matches are taken once (a snapshot: an
/// object that stops matching because of the new value is still set), and
/// the column is written cluster by cluster: each cluster's chunk is made
/// writable once and every matching slot of it is set together
/// (`DirtyChunk.fill`).  Only what must be kept exact per object is done per
/// object: index entries, backlinks of links, nested collections of mixed
/// values, and the embedded objects a link owned.
extension ObjectResults {
    /// Set property `propertyKey` of every object of these results to
    /// `value`, in the realm's write transaction.
    ///
    ///     try realm.beginWrite()
    ///     try dogs.filtered("age > 10", arguments: []).setValue(.bool(true), property: seniorKey)
    ///     try realm.commitWrite()
    ///
    /// The value is checked and converted as `Realm.setValue(table:key:property:value:)`
    /// does (an int or float for a double property is converted; a link
    /// names an existing object of the property's target class; a mixed
    /// property takes any value, a nested list or dictionary giving each
    /// object a new, empty one), once, before anything is written.  Results
    /// filtered or sorted on the property evaluate again afterwards.
    ///
    /// - Throws: `.notInTransaction`, `.frozen`, `.readOnly`, `.closed`,
    ///   `.wrongThread` without a write transaction of this thread;
    ///   `.noSuchProperty`; `.typeMismatch` for a list, set or map property
    ///   or a value of another type; `.primaryKeyChange` for the primary key
    ///   (never set this way, as in realm-core, whatever the number of
    ///   objects); `.nullNotAllowed`, `.invalidUTF8`, `.invalidArgument`
    ///   (an invalid timestamp, an embedded object); `.noSuchObject` (a link
    ///   to an object that does not exist).  Nothing is written then.  A
    ///   storage failure on the way poisons the transaction.
    public func setValue(_ value: Value, property propertyKey: UInt32) throws(FiefError) {
        let write = try realm.requireWrite()
        let table = try realm.table(tableKey)
        let column = try table.column(propertyKey)
        let property = try table.property(propertyKey)
        let name = "'\(table.objectClass.name).\(property.name)'"
        if column.collection != .none {
            throw FiefError(.typeMismatch, "\(name) is a \(column.collection.name), not a single value: a set-based update gives every object one value; change each object's \(column.collection.name) instead (fief_object_get_\(column.collection.name))")
        }
        if column.isPrimaryKey {
            throw FiefError(.primaryKeyChange, "\(name) is the primary key: a set-based update cannot set it (the primary key of an existing object never changes)")
        }
        let coerced = try value.coerced(for: property, className: table.objectClass.name)
        if property.type == .link || property.type == .mixed { try Links.check(realm, coerced, table, column, property) }

        // The matches, once: writing the property may change which objects
        // match, and each must be set once (a list may hold one twice).
        var matches: [(cluster: Int64, bits: Bitmap)] = []
        try forEachMatch { (cluster, bits) in matches.append((cluster, bits)) }
        if matches.isEmpty { return }
        if list != nil { matches = Self.mergedByCluster(matches) }

        // The value's bytes are copied once: a view given in could point
        // into a chunk this update rewrites.
        let stored = StoredUpdateValue(coerced, mixed: column.isMixed)
        defer { stored.release() }
        do throws(FiefError) {
            if column.isMixed {
                try setMixed(write, table, column, property, stored, matches)
            } else if column.type == .link {
                try setLink(write, table, column, property, stored.value, matches)
            } else {
                for (cluster, bits) in matches {
                    let chunk = try realm.dirtyChunk(write, table, column: column.key, type: column.type, cluster: cluster)
                    if column.hasIndex || column.hasFullTextIndex {
                        try updateIndex(write, table, column, property, chunk, cluster: cluster, bits, to: stored.value)
                    }
                    chunk.fill(bits, with: stored.value)
                    if column.feedsGeoIndex {
                        // A GeoJSON point's `type`: each object's spatial index entry follows.
                        for word in 0..<4 {
                            var w = bits[word]
                            while w != 0 {
                                let slot = word << 6 | w.trailingZeroBitCount
                                w &= w - 1
                                try realm.refreshGeoIndex(write, table, cluster << ClusterLayout.shift | Int64(slot))
                            }
                        }
                    }
                }
            }
        } catch {
            throw realm.poison(write, error)
        }
        realm.noteColumnChange(table.key, column.key)
    }

    /// Matches of the same cluster (from a list's elements) merged into one bitmap, in cluster order.
    private static func mergedByCluster(_ matches: [(cluster: Int64, bits: Bitmap)]) -> [(cluster: Int64, bits: Bitmap)] {
        let sorted = matches.sorted { $0.cluster < $1.cluster }
        var merged: [(cluster: Int64, bits: Bitmap)] = []
        merged.reserveCapacity(sorted.count)
        for match in sorted {
            if let last = merged.last, last.cluster == match.cluster {
                merged[merged.count - 1].bits = last.bits | match.bits
            } else {
                merged.append(match)
            }
        }
        return merged
    }

    /// Move the index entries of the objects `bits` of `cluster` from their
    /// values in `chunk` to `value` (objects already holding it keep theirs).
    private func updateIndex(_ write: WriteTransaction, _ table: Table, _ column: Column, _ property: Property, _ chunk: DirtyChunk,
                             cluster: Int64, _ bits: Bitmap, to value: Value) throws(FiefError) {
        let base = cluster << ClusterLayout.shift
        for word in 0..<4 {
            var w = bits[word]
            while w != 0 {
                let slot = word << 6 | w.trailingZeroBitCount
                w &= w - 1
                let old = chunk.value(slot, nullable: column.isNullable)
                if old.isSame(as: value) { continue }
                let key = base | Int64(slot)
                if column.hasIndex {
                    try realm.deleteIndexEntry(write, table, property, old, key)
                    try realm.putIndexEntry(write, table, property, value, key)
                }
                if column.hasFullTextIndex { try realm.replaceFullText(write, table, property, old: old, new: value, key) }
            }
        }
    }

    /// A link column: each object's old target loses its backlink and the
    /// new one gains it (objects already linking there change nothing); an
    /// embedded object a link owned is deleted with the link.
    private func setLink(_ write: WriteTransaction, _ table: Table, _ column: Column, _ property: Property, _ value: Value,
                         _ matches: [(cluster: Int64, bits: Bitmap)]) throws(FiefError) {
        let target = try realm.table(column.linkTarget)
        let ownsTargets = target.objectClass.isEmbedded
        var deletedEmbedded = false
        for (cluster, matched) in matches {
            let chunk = try realm.dirtyChunk(write, table, column: column.key, type: column.type, cluster: cluster)
            let base = cluster << ClusterLayout.shift
            var bits = matched
            for word in 0..<4 {
                var w = matched[word]
                while w != 0 {
                    let slot = word << 6 | w.trailingZeroBitCount
                    w &= w - 1
                    let key = base | Int64(slot)
                    // An embedded object deleted with its parent's link just before.
                    if ownsTargets, try !realm.isLive(table, key) {
                        bits[word] &= ~(1 << UInt64(slot & 63))
                        continue
                    }
                    var old = chunk.value(slot, nullable: true)
                    if case .int(let objectKey) = old { old = .link(classKey: column.linkTarget, objectKey: objectKey) }
                    if old.isSame(as: value) { continue }
                    try Links.replaced(realm, write, table, property, key, old: old, new: value)
                    if ownsTargets, case .link(_, let child) = old {
                        try realm.deleteObject(write, target, child)
                        deletedEmbedded = true
                    }
                }
            }
            chunk.fill(bits, with: value)
        }
        if deletedEmbedded { realm.noteMembershipChange(target.key) }
    }

    /// A mixed column: per object, a link it held loses its backlink and a
    /// nested collection it held is deleted; the new value is coded once
    /// and stored in every slot, unless it is a nested collection (each
    /// object then gets a new one of its own).
    private func setMixed(_ write: WriteTransaction, _ table: Table, _ column: Column, _ property: Property,
                          _ stored: StoredUpdateValue, _ matches: [(cluster: Int64, bits: Bitmap)]) throws(FiefError) {
        let value = stored.value
        let isNested = value.nestedID != nil
        var coded: [UInt8] = []
        for (cluster, bits) in matches {
            let chunk = try realm.dirtyChunk(write, table, column: column.key, type: column.type, cluster: cluster)
            let base = cluster << ClusterLayout.shift
            for word in 0..<4 {
                var w = bits[word]
                while w != 0 {
                    let slot = word << 6 | w.trailingZeroBitCount
                    w &= w - 1
                    let key = base | Int64(slot)
                    var old = Value.null
                    if let raw = chunk.bytes(slot) {
                        guard let decoded = MixedCoding.decode(raw) else {
                            throw realm.damagedChunk(table, column: column.key, cluster: cluster, "holds a mixed value that cannot be read")
                        }
                        old = decoded
                    }
                    if !isNested && old.isSame(as: value) { continue }
                    try Links.replaced(realm, write, table, property, key, old: old, new: value)
                    if column.hasIndex { try realm.deleteIndexEntry(write, table, property, old, key) }
                    try realm.droppedMixed(write, table, owner: key, property: column.key, old)
                    if isNested {
                        let made = try realm.storedMixed(write, table, owner: key, property: column.key, value)
                        MixedCoding.encode(made, into: &coded)
                        coded.withUnsafeBytes { chunk.set(slot, .binary($0)) }
                    } else if column.hasIndex {
                        try realm.putIndexEntry(write, table, property, value, key)
                    }
                }
            }
            if !isNested { chunk.fill(bits, with: stored.mixedCoding ?? .null) }
        }
    }
}

/// The value of a set-based update, with the bytes of a string or binary
/// (or a mixed value's coding) copied out of the caller's memory, which may
/// be a chunk the update rewrites.  `release()` frees the copy.
private struct StoredUpdateValue {
    /// The value, its bytes (if any) in `copy`.
    let value: Value
    /// For a mixed column: the value as stored there (`MixedCoding`), nil for null.
    let mixedCoding: Value?
    private let copy: UnsafeMutableRawBufferPointer?

    init(_ value: Value, mixed: Bool) {
        func owned(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawBufferPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
            if bytes.count > 0 { buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
            return buffer
        }
        if mixed {
            var coded: [UInt8] = []
            MixedCoding.encode(value, into: &coded)
            let buffer = coded.withUnsafeBytes(owned)
            copy = buffer
            let codedView = UnsafeRawBufferPointer(start: buffer.baseAddress, count: coded.count)
            mixedCoding = value.isNull ? nil : .binary(codedView)
            // The value itself, read back from the copy (its views point there).
            self.value = MixedCoding.decode(codedView) ?? value
            return
        }
        mixedCoding = nil
        switch value {
        case .string(let bytes):
            let buffer = owned(bytes)
            copy = buffer
            self.value = .string(UnsafeRawBufferPointer(start: buffer.baseAddress, count: bytes.count))
        case .binary(let bytes):
            let buffer = owned(bytes)
            copy = buffer
            self.value = .binary(UnsafeRawBufferPointer(start: buffer.baseAddress, count: bytes.count))
        default:
            copy = nil
            self.value = value
        }
    }

    func release() { copy?.deallocate() }
}
