import CLMDB
import FiefStorage
#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing lists (see `ListStore` for the layout).
///
/// A snapshot loads a list's segments once (one cursor walk, elements read
/// in place); a write transaction keeps the lists it changed as `ListState`s
/// whose changed segments hold their elements decoded, and stores each
/// changed segment once at commit (`flushLists`).  Every element that is a
/// link has its backlink, written by the same call.
extension Realm {
    // MARK: Finding a list

    /// The column of list property `propertyKey` of `table`.
    @inline(__always)
    func listColumn(_ table: Table, _ propertyKey: UInt32) throws(FiefError) -> Column {
        let column = try table.column(propertyKey)
        guard column.collection == .list else {
            throw FiefError(.invalidArgument, "property '\(table.objectClass.name).\((try? table.property(propertyKey).name) ?? "")' is not a list")
        }
        return column
    }

    /// The stored size of a list (its owner's column).
    @inline(__always)
    func storedListSize(_ table: Table, _ column: Column, _ owner: Int64) throws(FiefError) -> Int {
        if case .int(let n) = try slotValue(table, column, owner) { return Int(n) }
        return 0
    }

    /// The list of `owner` as the realm sees it now; `complete`: with every
    /// segment (otherwise a write may load only the last ones, to append).
    func listState(_ table: Table, _ column: Column, owner: Int64, complete: Bool = true) throws(FiefError) -> ListState {
        let id = ListID(table: table.key, column: column.key, owner: owner)
        if let write {
            if let known = write.lists[id] {
                if complete && !known.isComplete { try loadHead(known, table, txn: write.txn) }
                return known
            }
            if write.buffer.hasLinkRemovals, let settled = try settleLinkRemovals(write, table, column, owner: owner) {
                // Links removed from it before it was loaded: loaded whole just now.
                return settled
            }
            let size = try storedListSize(table, column, owner)
            let state = try loadList(id, table, column, size: size, txn: write.txn, bounds: write.bounds, complete: complete)
            write.lists[id] = state
            return state
        }
        let snapshot = try currentSnapshot()
        // A list this snapshot has loaded is returned as it is: its size is
        // read only to load it.
        if let known = try snapshot.withTransaction({ (_) throws(FiefError) -> ListState? in snapshot.lists[id] }) { return known }
        // The size is read before the snapshot's lock is taken: reading it
        // goes through the snapshot's chunks, which take that lock
        // themselves when the snapshot is shared with a frozen realm.
        let size = try storedListSize(table, column, owner)
        return try snapshot.withTransaction { (txn) throws(FiefError) -> ListState in
            if let known = snapshot.lists[id] { return known }
            let state = try loadList(id, table, column, size: size, txn: txn, bounds: snapshot.bounds, complete: true)
            try state.prepareForReading(table)
            snapshot.lists[id] = state
            return state
        }
    }

    /// Read the segment headers (all, or only the last) of a list of `size`
    /// elements with `txn`.  Reads nothing else of the realm: a snapshot's
    /// caller holds the snapshot's lock, which is not reentrant.
    private func loadList(_ id: ListID, _ table: Table, _ column: Column, size: Int, txn: OpaquePointer, bounds: MapBounds, complete: Bool) throws(FiefError) -> ListState {
        let dbi = try table.listDatabase(column.key)
        let empty = ListState(id: id, column: column, segments: [], base: 0, count: 0)
        if size == 0 { return empty }
        if !complete {
            // Only the last segment: the first key of the next owner, one back.
            let last = try ListStore.withSeek(txn, dbi, owner: id.owner &+ 1, position: 0) { (cursor, found) throws(FiefError) in
                try found == nil ? cursor.move(MDB_LAST) : cursor.move(MDB_PREV)
            }
            guard let (k, v) = last, let decoded = ListStore.decodeKey(k), decoded.owner == id.owner else {
                throw empty.damaged(table, "is missing (the list should hold \(size) elements)")
            }
            let segment = try segmentHeader(v, position: decoded.position, bounds: bounds, state: empty, table: table)
            guard segment.count <= size else { throw empty.damaged(table, "holds more elements than the list") }
            return ListState(id: id, column: column, segments: [segment], base: size - segment.count, count: size)
        }
        var segments: [ListSegment] = []
        var total = 0
        try ListStore.withSeek(txn, dbi, owner: id.owner, position: 0) { (cursor, first) throws(FiefError) in
            var entry = first
            while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == id.owner {
                let segment = try segmentHeader(v, position: decoded.position, bounds: bounds, state: empty, table: table)
                total += segment.count
                segments.append(segment)
                entry = try cursor.next()
            }
        }
        guard total == size else {
            throw empty.damaged(table, "is missing or extra (the segments hold \(total) elements, the list \(size))")
        }
        return ListState(id: id, column: column, segments: segments, base: 0, count: size)
    }

    /// Load the segments before the first one `state` has.
    private func loadHead(_ state: ListState, _ table: Table, txn: OpaquePointer) throws(FiefError) {
        guard let stop = state.segments.first?.position else { return }
        let dbi = try table.listDatabase(state.id.column)
        var head: [ListSegment] = []
        var total = 0
        try ListStore.withSeek(txn, dbi, owner: state.id.owner, position: 0) { (cursor, first) throws(FiefError) in
            var entry = first
            while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == state.id.owner, decoded.position < stop {
                let segment = try segmentHeader(v, position: decoded.position, bounds: write!.bounds, state: state, table: table)
                total += segment.count
                head.append(segment)
                entry = try cursor.next()
            }
        }
        guard total == state.base else {
            throw state.damaged(table, "is missing or extra (the first segments hold \(total) elements, not \(state.base))")
        }
        state.segments.insert(contentsOf: head, at: 0)
        state.base = 0
        state.invalidateStarts()
    }

    private func segmentHeader(_ raw: UnsafeRawBufferPointer, position: UInt64, bounds: MapBounds, state: ListState, table: Table) throws(FiefError) -> ListSegment {
        guard bounds.contains(raw), raw.count >= 2 + ClusterLayout.checksumBytes else {
            throw state.damaged(table, "is truncated")
        }
        return ListSegment(position: position, count: Int(raw.load(as: UInt8.self)) + 1, raw: raw, reader: nil, values: nil)
    }

    // MARK: Writing (the parts `PropertyList` uses)

    /// Check `value` for list `property` (converted where allowed; strings
    /// and binaries copied into the transaction); links must point to live,
    /// non-embedded objects of the list's target class.
    fileprivate func listElement(_ write: WriteTransaction, _ table: Table, _ column: Column, _ value: Value) throws(FiefError) -> Value {
        try listElement(write, table, column, try table.property(column.key), value)
    }

    /// Append one checked element and store the list's size (the
    /// references passed once, for the one-element append of every call).
    fileprivate func appendOne(_ write: WriteTransaction, _ table: Table, _ state: ListState, _ element: Value) throws(FiefError) {
        try append(write, table, state, try listStored(write, table, state, element))
        state.noteInsert(at: state.count - 1)
        try noteSize(write, table, state)
    }

    fileprivate func listElement(_ write: WriteTransaction, _ table: Table, _ column: Column, _ property: Property, _ value: Value) throws(FiefError) -> Value {
        let coerced = try value.coerced(for: property, className: table.objectClass.name)
        if column.elementType == .mixed {
            // Stored coded (see `MixedCoding`), in the transaction's bytes.
            if coerced.isNull { return .null }
            // A nested collection is made when stored (`listStored`).
            if coerced.nestedID != nil { return coerced }
            if case .link = coerced { try Links.check(self, coerced, table, column, property) }
            MixedCoding.encode(coerced, into: &write.entryValue)
            return .binary(write.entryValue.withUnsafeBytes { write.listBytes.copy($0) })
        }
        switch coerced {
        case .string(let bytes): return .string(write.listBytes.copy(bytes))
        case .binary(let bytes): return .binary(write.listBytes.copy(bytes))
        case .link: try Links.check(self, coerced, table, column, property)
        default: break
        }
        return coerced
    }

    /// A checked element as the list stores it: a nested collection is made
    /// now (new and empty) and coded like any mixed value.
    @inline(__always)
    fileprivate func listStored(_ write: WriteTransaction, _ table: Table, _ state: ListState, _ element: Value) throws(FiefError) -> Value {
        guard element.nestedID != nil else { return element }
        let stored = try storedMixed(write, table, owner: state.id.owner, property: state.id.column, element)
        MixedCoding.encode(stored, into: &write.entryValue)
        return .binary(write.entryValue.withUnsafeBytes { write.listBytes.copy($0) })
    }

    /// Keep the backlink of a link element going into (`delta` 1) or out of (-1) a list.
    fileprivate func countLink(_ write: WriteTransaction, _ table: Table, _ state: ListState, _ value: Value, _ delta: Int) throws(FiefError) {
        guard case .link(let classKey, let target) = try state.element(value, table) else { return }
        guard let dbi = try self.table(classKey).backlinks else {
            throw FiefError(.internal, "class \(classKey) is linked to but has no backlinks database")
        }
        if delta > 0 {
            try Backlinks.add(write, dbi, target: target, originClass: table.key, property: state.id.column, origin: state.id.owner)
        } else {
            try Backlinks.remove(write, dbi, target: target, originClass: table.key, property: state.id.column, origin: state.id.owner)
        }
    }

    /// An element leaves a list: its backlink goes, and an embedded object with it.
    fileprivate func released(_ write: WriteTransaction, _ table: Table, _ state: ListState, _ value: Value) throws(FiefError) {
        try countLink(write, table, state, value, -1)
        let element = try state.element(value, table)
        if case .link(let classKey, let target) = element {
            let targetTable = try self.table(classKey)
            if targetTable.objectClass.isEmbedded, try isLive(targetTable, target) {
                try deleteObject(write, targetTable, target)
                noteMembershipChange(classKey)
            }
        } else if state.isMixed {
            try droppedMixed(write, table, owner: state.id.owner, property: state.id.column, element)
        }
    }

    /// Store the list's size in its owner's column.
    fileprivate func noteSize(_ write: WriteTransaction, _ table: Table, _ state: ListState) throws(FiefError) {
        state.isDirty = true
        let chunk = try dirtyChunk(write, table, column: state.id.column, type: .int, cluster: ClusterLayout.cluster(of: state.id.owner))
        chunk.set(ClusterLayout.slot(of: state.id.owner), .int(Int64(state.count)))
        noteColumnChange(table.key, state.id.column)
        // A GeoJSON point's `coordinates`: its spatial index entry follows.
        if let geo = table.geoIndex, geo.coordinates.key == state.id.column {
            try refreshGeoIndex(write, table, state.id.owner, coordinates: state)
        }
    }

    /// Add `element` at the end; `countsLink`: record its backlink (not for
    /// a move within the list, whose backlinks stay as they are).
    @inline(__always)
    fileprivate func append(_ write: WriteTransaction, _ table: Table, _ state: ListState, _ element: Value,
                        countsLink: Bool = true) throws(FiefError) {
        let last = state.segments.count - 1
        if last < 0 || state.segments[last].count >= Segment.maxElements {
            state.segments.append(ListSegment(position: nil, count: 1, raw: nil, reader: nil, values: [element]))
            state.invalidateStarts()
        } else {
            try state.makeWritable(last, table: table)
            state.segments[last].values!.append(element)
            state.segments[last].count += 1
        }
        state.count += 1
        if countsLink, state.holdsLinks { try countLink(write, table, state, element, 1) }
    }

    fileprivate func insert(_ write: WriteTransaction, _ table: Table, _ state: ListState, _ index: Int, _ element: Value,
                        countsLink: Bool = true) throws(FiefError) {
        if index == state.count {
            try append(write, table, state, element, countsLink: countsLink)
            return
        }
        let (s, o) = state.locate(index)
        try state.makeWritable(s, table: table)
        state.segments[s].values!.insert(element, at: o)
        state.segments[s].count += 1
        state.count += 1
        if state.segments[s].count > 2 * Segment.maxElements {
            // Keep in-memory segments small: inserts stay O(segment).
            let values = state.segments[s].values!
            let half = values.count / 2
            state.segments[s].values = Array(values[..<half])
            state.segments[s].count = half
            state.segments.insert(ListSegment(position: nil, count: values.count - half, raw: nil, reader: nil,
                                              values: Array(values[half...])), at: s + 1)
        }
        state.invalidateStarts()
        if countsLink, state.holdsLinks { try countLink(write, table, state, element, 1) }
    }

    /// Take element `index` out of the list's segments (no backlink change).
    fileprivate func remove(_ table: Table, _ state: ListState, _ index: Int) throws(FiefError) -> Value {
        let (s, o) = state.locate(index)
        try state.makeWritable(s, table: table)
        let old = state.segments[s].values!.remove(at: o)
        state.segments[s].count -= 1
        state.count -= 1
        if state.segments[s].count == 0 {
            if let position = state.segments[s].position { state.removed.append(position) }
            state.segments.remove(at: s)
        }
        state.invalidateStarts()
        return old
    }

    /// Empty a loaded list, releasing each element (backlinks, embedded objects).
    func clear(_ write: WriteTransaction, _ table: Table, _ state: ListState,
               released extra: (Value) throws(FiefError) -> Void = { (_) throws(FiefError) in }) throws(FiefError) {
        // Links are released after the list is empty (an embedded element's
        // deletion must not find it listed).
        var elements: [Value] = []
        if state.holdsLinks {
            elements.reserveCapacity(state.count)
            for s in 0..<state.segments.count {
                if let values = state.segments[s].values { elements += values; continue }
                let reader = try state.reader(s, table: table)
                for o in 0..<reader.count { elements.append(reader.value(o, linkTarget: state.linkTarget)) }
            }
        }
        state.noteClear(size: state.count)
        state.segments = []
        state.count = 0
        state.clearsStored = true
        state.removed = []
        state.invalidateStarts()
        for element in elements {
            try released(write, table, state, element)
            try extra(element)
        }
    }

    // MARK: Deleting objects

    /// Object `key` of `table` is being deleted: its lists go (their links
    /// lose their backlinks, embedded elements are deleted).
    func deletingLists(_ write: WriteTransaction, _ table: Table, _ key: Int64) throws(FiefError) {
        for (property, _) in table.lists {
            let column = try table.column(property.key)
            let id = ListID(table: table.key, column: property.key, owner: key)
            if write.lists[id] == nil, try storedListSize(table, column, key) == 0 { continue }
            let state = try listState(table, column, owner: key)
            try clear(write, table, state)
            try noteSize(write, table, state)
        }
    }

    /// Every object of `table` is being deleted: the same for all their lists.
    func emptyingLists(_ write: WriteTransaction, _ table: Table) throws(FiefError) {
        for (property, dbi) in table.lists {
            let column = try table.column(property.key)
            if column.elementType == .link, column.linkTarget != table.key, let target = try? self.table(column.linkTarget),
               !target.objectClass.isEmbedded, let backlinks = target.backlinks {
                // Links to objects that stay: the pair (class, property)
                // leaves the target's backlinks in one walk, no list loaded.
                try Backlinks.dropPair(write, backlinks, originClass: table.key, property: property.key)
                write.buffer.discardLinkRemovals(table: table.key, column: property.key)
            } else if column.elementType == .link || column.elementType == .mixed {
                // Every stored element and every changed list, released.
                var owners = Set<Int64>()
                for (id, _) in write.lists where id.table == table.key && id.column == property.key { owners.insert(id.owner) }
                let cursor = try LMDBCursor(write.txn, dbi)
                var entry = try cursor.move(MDB_FIRST)
                while let (k, _) = entry, let decoded = ListStore.decodeKey(k) {
                    owners.insert(decoded.owner)
                    entry = try cursor.next()
                }
                for owner in owners.sorted() {
                    let state = try listState(table, column, owner: owner)
                    try clear(write, table, state)
                }
            }
            write.lists = write.lists.filter { $0.key.table != table.key || $0.key.column != property.key }
            try LMDB.check(mdb_drop(write.txn, dbi, 0), "deleting lists")
        }
    }

    /// Remove every element of list (`originClass`, `property`) of object
    /// `origin` that links to `target` (which is being deleted); its
    /// backlink says the list holds it `count` times.  A list this
    /// transaction has not loaded is not loaded for that: its size drops
    /// now, and its stored segments lose the target at commit
    /// (`storeLinkRemovals`), so deleting objects listed in many lists
    /// costs no list state per list.
    func removeLinks(_ write: WriteTransaction, originClass: UInt32, property: UInt32, origin: Int64, targetClass: UInt32, target: Int64, count: Int) throws(FiefError) {
        let table = try table(originClass)
        let column = try listColumn(table, property)
        let id = ListID(table: originClass, column: property, owner: origin)
        if column.elementType == .mixed {
            // Mixed elements carry their class: the list is loaded and filtered.
            let state = try listState(table, column, owner: origin)
            try removeLoadedLinks(table, state, targetClass: targetClass, target: target)
            try noteSize(write, table, state)
            // And out of the collections nested in the list.
            if table.nested != nil {
                for i in 0..<state.count {
                    if let id = try state.element(try state.value(i, table: table), table).nestedID {
                        try unlinkNested(write, table, owner: origin, property: property, id: id, targetClass: targetClass, target: target)
                    }
                }
            }
            return
        }
        guard !write.lists.isEmpty, let state = write.lists[id] else {
            let chunk = try dirtyChunk(write, table, column: property, type: .int, cluster: ClusterLayout.cluster(of: origin))
            let slot = ClusterLayout.slot(of: origin)
            var size = 0
            if case .int(let n) = chunk.value(slot, nullable: false) { size = Int(n) }
            write.buffer.removeLink(from: WriteBuffer.ListKey(table: originClass, column: property, owner: origin), target: target, sizeBefore: size)
            chunk.set(slot, .int(Int64(Swift.max(0, size - count))))
            noteColumnChange(originClass, property)
            return
        }
        try removeLoadedLinks(table, state, targetClass: targetClass, target: target)
        try noteSize(write, table, state)
    }

    /// Take every element linking to `target` out of a loaded list.
    private func removeLoadedLinks(_ table: Table, _ state: ListState, targetClass: UInt32, target: Int64) throws(FiefError) {
        var removed = 0
        var s = 0
        // The position of the next element kept, in the list as it is after the removals so far.
        var position = 0
        while s < state.segments.count {
            try state.makeWritable(s, table: table)
            let before = state.segments[s].values!.count
            var kept: [Value] = []
            for value in state.segments[s].values! {
                if case .link(let c, let k) = try state.element(value, table), c == targetClass, k == target {
                    state.noteErase(at: position)
                    continue
                }
                kept.append(value)
                position += 1
            }
            state.segments[s].values = kept
            let after = state.segments[s].values!.count
            removed += before - after
            state.segments[s].count = after
            if after == 0 {
                if let position = state.segments[s].position { state.removed.append(position) }
                state.segments.remove(at: s)
            } else {
                s += 1
            }
        }
        state.count -= removed
        state.invalidateStarts()
    }

    /// Write a list's size to its owner's column.
    private func setStoredListSize(_ write: WriteTransaction, _ table: Table, _ column: Column, _ owner: Int64, _ size: Int) throws(FiefError) {
        let chunk = try dirtyChunk(write, table, column: column.key, type: .int, cluster: ClusterLayout.cluster(of: owner))
        chunk.set(ClusterLayout.slot(of: owner), .int(Int64(size)))
        noteColumnChange(table.key, column.key)
    }

    /// Before the list of `owner` is loaded in this transaction: the link
    /// removals pending for it (the write buffer's) go into the loaded
    /// list, whose size is first set back to what its segments hold.
    /// Returns the list, or nil if none was pending.
    private func settleLinkRemovals(_ write: WriteTransaction, _ table: Table, _ column: Column, owner: Int64) throws(FiefError) -> ListState? {
        let mine = write.buffer.takeLinkRemovals(of: WriteBuffer.ListKey(table: table.key, column: column.key, owner: owner))
        guard let first = mine.first else { return nil }
        // The first removal saw the size before all of them.
        try setStoredListSize(write, table, column, owner, first.sizeBefore)
        let state = try listState(table, column, owner: owner)
        for removal in mine { try removeLoadedLinks(table, state, targetClass: column.linkTarget, target: removal.target) }
        try noteSize(write, table, state)
        return state
    }

    /// Store the pending link removals (at commit, before the lists): per
    /// list, one walk over its stored segments, read in place; a segment
    /// holding a removed target is stored again without it (or deleted when
    /// nothing is left), and the list's size is set to what remains.
    private func storeLinkRemovals(_ write: WriteTransaction) throws(FiefError) {
        var pending = write.buffer.takeLinkRemovals()
        if pending.isEmpty { return }
        // In key order: one walk of each list database.  Removals from one
        // list property (the usual case) sort as integers, owner (below
        // 2^40) and index packed together.
        let first = pending[0].id
        if pending.count < 1 << 24, pending.allSatisfy({ $0.id.table == first.table && $0.id.column == first.column }) {
            var packed = pending.indices.map { UInt64(bitPattern: pending[$0].id.owner) << 24 | UInt64($0) }
            packed.sort()
            pending = packed.map { pending[Int($0 & 0xFF_FFFF)] }
        } else {
            pending.sort { (a, b) in
                if a.id.table != b.id.table { return a.id.table < b.id.table }
                if a.id.column != b.id.column { return a.id.column < b.id.column }
                return a.id.owner < b.id.owner
            }
        }
        var values: [Value] = []
        var targets: [Int64] = []
        var cursor: (dbi: MDB_dbi, cursor: LMDBCursor)? = nil
        // Where the last owner's walk stopped (the cursor is on it): the
        // next owner's first segment when no other list lies between.
        var stopped: (dbi: MDB_dbi, owner: UInt64, entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer))? = nil
        var i = 0
        while i < pending.count {
            let id = pending[i].id
            targets.removeAll(keepingCapacity: true)
            while i < pending.count && pending[i].id == id { targets.append(pending[i].target); i += 1 }
            // A class or property removed since (a schema change in this transaction): nothing to store.
            guard let table = try? self.table(id.table), let column = try? table.column(id.column), column.collection == .list,
                  column.elementType == .link else { continue }
            let dbi = try table.listDatabase(id.column)
            // An owner deleted since had its list emptied down to these links: it goes whole.
            guard try isLive(table, id.owner) else {
                try ListStore.deleteAll(write.txn, dbi, owner: id.owner)
                stopped = nil
                continue
            }
            var total = 0
            var changes = ListChanges()
            var keyBuffer = (UInt64(0), UInt64(0))
            try withUnsafeMutableBytes(of: &keyBuffer) { (key) throws(FiefError) in
                ListStore.key(key.baseAddress!, owner: id.owner, position: 0)
                if cursor?.dbi != dbi { cursor = (dbi, try LMDBCursor(write.txn, dbi)) }
                let cursor = cursor!.cursor
                var entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
                if let stopped, stopped.dbi == dbi, stopped.owner >= UInt64(bitPattern: id.owner) {
                    entry = stopped.entry
                } else {
                    entry = try cursor.seek(UnsafeRawBufferPointer(key))
                }
                stopped = nil
                while let (k, v) = entry, let decoded = ListStore.decodeKey(k), decoded.owner == id.owner {
                    guard let reader = SegmentReader(v, type: .link, table: id.table,
                                                     key: ListStore.checkKey(column: id.column, owner: id.owner, position: decoded.position)) else {
                        throw ListState(id: id, column: column, segments: [], base: 0, count: 0).damaged(table, "fails its checksum or layout check")
                    }
                    var hit = false
                    for o in 0..<reader.count where !reader.isNull(o) && targets.contains(reader.int(o)) { hit = true; break }
                    if !hit {
                        total += reader.count
                        entry = try cursor.next()
                        continue
                    }
                    values.removeAll(keepingCapacity: true)
                    for o in 0..<reader.count {
                        if reader.isNull(o) || !targets.contains(reader.int(o)) {
                            values.append(reader.value(o, linkTarget: column.linkTarget))
                        } else {
                            changes.erase(at: total + values.count)
                        }
                    }
                    total += values.count
                    if !values.isEmpty {
                        // Stored again in its place (the cursor stays on it).
                        try ListStore.put(values, write.txn, dbi, table: id.table, column: id.column, owner: id.owner,
                                          position: decoded.position, type: .link, nullable: column.elementsNullable,
                                          scratch: &write.segmentBuffer, cursor: cursor)
                        entry = try cursor.next()
                        continue
                    }
                    // Emptied: deleted, and the next segment sought again (a
                    // cursor whose entry went is not positioned anywhere).
                    try cursor.deleteCurrent()
                    guard decoded.position < UInt64.max else { entry = nil; break }
                    ListStore.key(key.baseAddress!, owner: id.owner, position: decoded.position + 1)
                    entry = try cursor.seek(UnsafeRawBufferPointer(key))
                }
                if let entry, let decoded = ListStore.decodeKey(entry.key) {
                    stopped = (dbi, UInt64(bitPattern: decoded.owner), entry)
                }
            }
            try setStoredListSize(write, table, column, id.owner, total)
            write.buffer.noteListChanges(id, changes)
        }
    }

    // MARK: Commit

    /// Store every changed segment of every changed list (at commit).
    func flushLists(_ write: WriteTransaction) throws(FiefError) {
        if write.buffer.hasLinkRemovals { try storeLinkRemovals(write) }
        if write.lists.isEmpty { return }
        let limit = environment.chunkPartLimit
        let ids = write.lists.keys.sorted { ($0.table, $0.column, $0.owner) < ($1.table, $1.column, $1.owner) }
        for id in ids {
            let state = write.lists[id]!
            if !state.changes.isEmpty { write.buffer.noteListChanges(id, state.changes) }
            guard state.isDirty || state.clearsStored else { continue }
            let table = try table(id.table)
            let dbi = try table.listDatabase(id.column)
            try store(state, table, dbi, write, limit: limit)
        }
    }

    private func store(_ state: ListState, _ table: Table, _ dbi: MDB_dbi, _ write: WriteTransaction, limit: Int) throws(FiefError) {
        let owner = state.id.owner
        if state.clearsStored { try ListStore.deleteAll(write.txn, dbi, owner: owner) }
        var keyBuffer = (UInt64(0), UInt64(0))
        for position in state.removed where !state.clearsStored {
            try withUnsafeMutableBytes(of: &keyBuffer) { (raw) throws(FiefError) in
                ListStore.key(raw.baseAddress!, owner: owner, position: position)
                try LMDB.delete(write.txn, dbi, UnsafeRawBufferPointer(raw))
            }
        }
        // Runs of changed segments are cut again into segments that fit
        // (≤ 256 elements, ≤ `limit` bytes), reusing their positions.
        var planned: [(position: UInt64?, values: ArraySlice<Value>)] = []
        var stored = Set<Int>()   // indexes in `planned` of segments stored as they are
        var s = 0
        let segments = state.segments
        while s < segments.count {
            if segments[s].values == nil {
                stored.insert(planned.count)
                planned.append((segments[s].position, []))
                s += 1
                continue
            }
            var run: [Value] = []
            var positions: [UInt64] = []
            while s < segments.count, let values = segments[s].values {
                run += values
                if let p = segments[s].position, !state.clearsStored { positions.append(p) }
                s += 1
            }
            let pieces = ListStore.cut(run, type: state.type, limit: limit)
            for (i, piece) in pieces.enumerated() {
                planned.append((i < positions.count ? positions[i] : nil, run[piece]))
            }
            if positions.count > pieces.count {
                for position in positions[pieces.count...] {
                    try withUnsafeMutableBytes(of: &keyBuffer) { (raw) throws(FiefError) in
                        ListStore.key(raw.baseAddress!, owner: owner, position: position)
                        try LMDB.delete(write.txn, dbi, UnsafeRawBufferPointer(raw))
                    }
                }
            }
        }
        // Positions for the new segments: in the gap before the next
        // positioned one, or after the last; a list whose gap ran out is
        // renumbered (every segment stored again).
        var assigned: [UInt64] = []
        assigned.reserveCapacity(planned.count)
        var renumber = false
        var i = 0
        var previous: UInt64? = nil
        while i < planned.count {
            if let p = planned[i].position {
                assigned.append(p)
                previous = p
                i += 1
                continue
            }
            var j = i
            while j < planned.count && planned[j].position == nil { j += 1 }
            let newCount = j - i
            if j == planned.count {
                var p = previous ?? (ListStore.firstPosition &- ListStore.positionStep)
                for _ in 0..<newCount {
                    let (next, overflow) = p.addingReportingOverflow(ListStore.positionStep)
                    if overflow { renumber = true; break }
                    p = next
                    assigned.append(p)
                }
            } else {
                let low = previous ?? 0
                let high = planned[j].position!
                let gap = (high - low) / UInt64(newCount + 1)
                if gap == 0 { renumber = true } else {
                    for k in 1...newCount { assigned.append(low + gap * UInt64(k)) }
                }
            }
            if renumber { break }
            previous = assigned.last
            i = j
        }
        if renumber {
            // Every element decoded, every stored segment deleted, positions afresh.
            var all: [Value] = []
            all.reserveCapacity(state.count)
            for s in 0..<state.segments.count {
                try state.makeWritable(s, table: table)
                all += state.segments[s].values!
            }
            try ListStore.deleteAll(write.txn, dbi, owner: owner)
            planned = ListStore.cut(all, type: state.type, limit: limit).map { (nil, all[$0]) }
            stored = []
            assigned = (0..<planned.count).map { ListStore.firstPosition &+ UInt64($0) &* ListStore.positionStep }
        }
        for (index, piece) in planned.enumerated() where !stored.contains(index) {
            try ListStore.put(Array(piece.values), write.txn, dbi, table: state.id.table, column: state.id.column, owner: state.id.owner,
                              position: assigned[index], type: state.type, nullable: state.nullable, scratch: &write.segmentBuffer)
        }
    }

}

extension Realm {
    /// Whether list, set or map `propertyKey` holds objects (links), not values.
    public func collectionHoldsObjects(table tableKey: UInt32, property propertyKey: UInt32) throws(FiefError) -> Bool {
        try checkReadable()
        let column = try table(tableKey).column(propertyKey)
        guard column.collection != .none else {
            throw FiefError(.invalidArgument, "property '\(try table(tableKey).objectClass.name).\((try? table(tableKey).property(propertyKey).name) ?? "")' is not a list, set or map")
        }
        return column.elementType == .link
    }
}

/// The storage of a list property: its segments (`ListState`), loaded once
/// per snapshot or write transaction.  Opened checked: the class, a list
/// property, its owner live.
struct PropertyList: ListStorage {
    let write: WriteTransaction?
    let table: Table
    let column: Column
    let owner: Int64
    /// The loaded list (nil when opened without loading, for its size).
    let state: ListState!

    /// `load`: the list's segments too (`complete`: all of them; otherwise
    /// a write may load only the last ones, to append).
    @inline(__always)
    init(_ realm: Realm, _ ref: CollectionRef, write: WriteTransaction?, load: Bool = true, complete: Bool = true) throws(FiefError) {
        // Checked into locals first, then made whole: a throwing
        // initializer that fills `self` field by field builds it in memory
        // and copies it out (a retain and a release per reference).
        let table = try realm.table(ref.table)
        let column = try realm.listColumn(table, ref.property)
        try realm.requireLive(table, ref.owner)
        let state = load ? try realm.listState(table, column, owner: ref.owner, complete: complete) : nil
        self.init(write: write, table: table, column: column, owner: ref.owner, state: state)
    }

    @inline(__always)
    private init(write: WriteTransaction?, table: Table, column: Column, owner: Int64, state: ListState?) {
        self.write = write
        self.table = table
        self.column = column
        self.owner = owner
        self.state = state
    }

    var name: String {
        "the list '\(table.objectClass.name).\((try? table.property(column.key).name) ?? "")'"
    }

    @inline(__always)
    func count(_ realm: Realm) throws(FiefError) -> Int {
        if let state { return state.count }
        if let write = realm.write, let state = write.lists[ListID(table: table.key, column: column.key, owner: owner)] { return state.count }
        return try realm.storedListSize(table, column, owner)
    }

    func value(_ realm: Realm, at index: Int) throws(FiefError) -> Value {
        try state.element(try state.value(index, table: table), table)
    }

    func values(_ realm: Realm, from start: Int, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        var (s, o) = state.locate(start)
        var i = 0
        while i < out.count {
            if let values = state.segments[s].values {
                while o < values.count && i < out.count { out[i] = values[o]; i += 1; o += 1 }
            } else {
                let reader = try state.reader(s, table: table)
                while o < reader.count && i < out.count { out[i] = reader.value(o, linkTarget: state.linkTarget); i += 1; o += 1 }
            }
            s += 1
            o = 0
        }
        if state.isMixed { for i in 0..<out.count { out[i] = try state.element(out[i], table) } }
    }

    func firstIndex(_ realm: Realm, of value: Value) throws(FiefError) -> Int? {
        // A value of another type is in no list (ints and floats compare as the element type).
        let property = try table.property(column.key)
        guard let wanted = try? value.coerced(for: property, className: table.objectClass.name) else { return nil }
        if state.isMixed {
            // Realm's equality: numbers by value across types.
            let key = SetStore.mixedKey(wanted)
            for index in 0..<state.count where SetStore.mixedKey(try state.element(try state.value(index, table: table), table)) == key {
                return index
            }
            return nil
        }
        var index = 0
        for s in 0..<state.segments.count {
            if let values = state.segments[s].values {
                for v in values { if v.isSame(as: wanted) { return index }; index += 1 }
            } else {
                let reader = try state.reader(s, table: table)
                for o in 0..<reader.count {
                    if reader.value(o, linkTarget: state.linkTarget).isSame(as: wanted) { return index }
                    index += 1
                }
            }
        }
        return nil
    }

    func element(_ realm: Realm, _ value: Value) throws(FiefError) -> Value {
        try realm.listElement(write!, table, column, value)
    }

    func elements(_ realm: Realm, _ values: UnsafeBufferPointer<Value>) throws(FiefError) -> [Value] {
        // The property looked up once for all of them.
        let write = write!
        let property = try table.property(column.key)
        var elements: [Value] = []
        elements.reserveCapacity(values.count)
        for value in values { elements.append(try realm.listElement(write, table, column, property, value)) }
        return elements
    }

    /// `append` of one value by the accessor, opened and done with the
    /// references taken once and passed down, as one call: the hot path of
    /// `ListAccess.append(_:)` (a storage value made for the call would
    /// cost a retain and a release per reference it holds).  Only the
    /// list's last segment is loaded.
    @inline(__always)
    static func append(_ realm: Realm, _ write: WriteTransaction, _ ref: CollectionRef, _ value: Value) throws(FiefError) {
        let table = try realm.table(ref.table)
        let column = try realm.listColumn(table, ref.property)
        try realm.requireLive(table, ref.owner)
        let state = try realm.listState(table, column, owner: ref.owner, complete: false)
        let element = try realm.listElement(write, table, column, value)
        do throws(FiefError) {
            try realm.appendOne(write, table, state, element)
        } catch {
            throw realm.poison(write, error)
        }
    }

    func insert(_ realm: Realm, _ element: Value, at index: Int) throws(FiefError) {
        try realm.insert(write!, table, state, index, try realm.listStored(write!, table, state, element))
        state.noteInsert(at: index)
        try realm.noteSize(write!, table, state)
    }

    func append(_ realm: Realm, _ element: Value) throws(FiefError) {
        try realm.appendOne(write!, table, state, element)
    }

    @inline(__always)
    func append(_ realm: Realm, _ elements: UnsafeBufferPointer<Value>) throws(FiefError) {
        for element in elements { try realm.append(write!, table, state, try realm.listStored(write!, table, state, element)) }
        state.noteInsert(at: state.count - elements.count, count: elements.count)
        try realm.noteSize(write!, table, state)
    }

    func replace(_ realm: Realm, at index: Int, with element: Value) throws(FiefError) {
        let write = write!
        let old = try state.value(index, table: table)
        if old.isSame(as: element) { return }
        let element = try realm.listStored(write, table, state, element)
        let (s, o) = state.locate(index)
        try state.makeWritable(s, table: table)
        state.segments[s].values![o] = element
        state.noteSet(at: index)
        if state.holdsLinks { try realm.countLink(write, table, state, element, 1) }
        try realm.released(write, table, state, old)
        try realm.noteSize(write, table, state)
    }

    func remove(_ realm: Realm, at index: Int) throws(FiefError) {
        let old = try realm.remove(table, state, index)
        state.noteErase(at: index)
        try realm.released(write!, table, state, old)
        try realm.noteSize(write!, table, state)
    }

    func move(_ realm: Realm, from: Int, to: Int) throws(FiefError) {
        let element = try realm.remove(table, state, from)
        try realm.insert(write!, table, state, to, element, countsLink: false)
        state.noteMove(from: from, to: to)
        try realm.noteSize(write!, table, state)
    }

    func swapAt(_ realm: Realm, _ i: Int, _ j: Int) throws(FiefError) {
        let a = try state.value(i, table: table), b = try state.value(j, table: table)
        let (si, oi) = state.locate(i)
        try state.makeWritable(si, table: table)
        state.segments[si].values![oi] = b
        let (sj, oj) = state.locate(j)
        try state.makeWritable(sj, table: table)
        state.segments[sj].values![oj] = a
        state.noteSwap(i, j)
        try realm.noteSize(write!, table, state)
    }

    func removeAll(_ realm: Realm) throws(FiefError) {
        try realm.clear(write!, table, state)
        try realm.noteSize(write!, table, state)
    }

    /// A list of links, whose objects `removeAllDeletingObjects` may delete.
    func requireObjects(_ realm: Realm) throws(FiefError) {
        if column.elementType != .link {
            throw FiefError(.invalidArgument, "'\(table.objectClass.name).\((try? table.property(column.key).name) ?? "")' holds values, not objects: there is nothing to delete (clear it instead)")
        }
    }

    /// Remove every element and delete the objects they link to (each once).
    func removeAllDeletingObjects(_ realm: Realm) throws(FiefError) {
        let write = write!
        var targets: [Int64] = []
        try realm.clear(write, table, state, released: { (value) throws(FiefError) in
            if case .link(_, let target) = value { targets.append(target) }
        })
        try realm.noteSize(write, table, state)
        if !targets.isEmpty {
            let targetTable = try realm.table(column.linkTarget)
            for target in Set(targets) where try realm.isLive(targetTable, target) {
                try realm.deleteObject(write, targetTable, target)
            }
            realm.noteMembershipChange(column.linkTarget)
        }
    }

    /// The embedded class the list holds (an error for any other list).
    func embeddedClass(_ realm: Realm) throws(FiefError) -> Table {
        guard column.elementType == .link, let child = try? realm.table(column.linkTarget), child.objectClass.isEmbedded else {
            throw FiefError(.invalidArgument, "'\(table.objectClass.name).\((try? table.property(column.key).name) ?? "")' is not a list of an embedded class")
        }
        return child
    }

    /// A new object of embedded class `child`, inserted at `index`.
    func insertEmbedded(_ realm: Realm, _ child: Table, at index: Int) throws(FiefError) -> (classKey: UInt32, objectKey: Int64) {
        let write = write!
        var childKey: Int64 = 0
        do throws(FiefError) {
            try realm.insertStreaming(write, child, properties: [], rows: 1, primaryKeyColumn: -1, keys: &childKey) { (_, _) throws(FiefError) in .null }
            try realm.insert(write, table, state, index, .link(classKey: child.key, objectKey: childKey))
            state.noteInsert(at: index)
            try realm.noteSize(write, table, state)
        } catch {
            throw realm.poison(write, error)
        }
        realm.noteMembershipChange(child.key)
        return (child.key, childKey)
    }
}

extension WriteBuffer.LinkRemoval {
    /// The list it is pending for.
    var id: ListID { ListID(table: list.table, column: list.column, owner: list.owner) }
}
