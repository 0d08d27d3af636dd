import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// The `history` database (file format 9): one `ChangeRecord` per commit,
/// keyed by the version it made (8 bytes big-endian), written in the
/// commit's own LMDB transaction, so a record exists exactly when its
/// version does.  Each commit also deletes the records no reader needs any
/// more (`trim`): those whose commit is not newer than the oldest snapshot
/// in LMDB's reader table.
///
/// A record:
///
///     [0, 8)     the LMDB transaction id of the commit (UInt64, little-endian)
///     sections   until the seal, each: varint tag, varint length, body;
///                a reader skips tags it does not know (later slices add
///                per-collection sections without a format change)
///       tag 1    a class: varint class key, varint flags (1 cleared, and the
///                `SchemaChange` bits), key sets inserted and deleted,
///                varint column count, then per column (ascending) varint
///                column and its key set of modified objects
///       tag 2    a set or map: varint class key, varint property, varint
///                owner, varint flags (1 cleared, 2 owner deleted, 4
///                filled: `EntryChanges.filled`), then
///                three key lists: inserted, deleted, modified (each a
///                varint count, then per key, ascending, a varint length
///                and its bytes: a set's element key, a map's key)
///       tag 3    a list: varint class key, varint property, varint owner,
///                varint flags (1 overflowed: only that it changed), varint
///                operation count, then per operation a varint kind (0
///                insert, 1 erase, 2 set, 3 move, 4 swap, 5 clear) and its
///                varint arguments (insert, erase: position and count; set:
///                position; move, swap: two positions; clear: the size)
///       tag 4    linking objects changed: varint class key (the targets'),
///                varint origin class, varint origin property, key set of
///                the targets that gained or lost a link through it
///                (`ObjectChanges.linkingObjects`; readers before it skip it)
///     [-4)       a seal (`EntrySeal`, seeded with the record's key)
///
/// A key set: varint cluster count, then per cluster (ascending) a varint
/// `delta << 2 | kind`, delta the cluster minus the previous one (the
/// first: the cluster itself), kind 0 every slot, 1 a 32-byte bitmap
/// (four little-endian words), 2 a slot count n (one byte, 1...24) and n
/// slots (one byte each, ascending).
public enum History {
    public static let database = "history"
    /// The seal's database number ("hist"; table 0, which no class has).
    public static let sealDatabase: UInt32 = 0x6869_7374
    static let classSection: UInt64 = 1
    static let clearedFlag: UInt64 = 1
    static let collectionSection: UInt64 = 2
    static let ownerDeletedFlag: UInt64 = 2
    static let filledFlag: UInt64 = 4
    static let listSection: UInt64 = 3
    static let overflowedFlag: UInt64 = 1
    static let linkingSection: UInt64 = 4

    // MARK: Encoding

    public static func encode(_ record: ChangeRecord) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + record.lists.bytes.count)
        withUnsafeBytes(of: record.transaction.littleEndian) { out.append(contentsOf: $0) }
        var body: [UInt8] = []
        for key in record.classes.keys.sorted() {
            let changes = record.classes[key]!
            body.removeAll(keepingCapacity: true)
            appendVarint(&body, UInt64(key))
            appendVarint(&body, (changes.cleared ? clearedFlag : 0) | changes.schema.rawValue)
            appendKeySet(&body, changes.inserted)
            appendKeySet(&body, changes.deleted)
            let columns = changes.modified.keys.sorted()
            appendVarint(&body, UInt64(columns.count))
            for column in columns {
                appendVarint(&body, UInt64(column))
                appendKeySet(&body, changes.modified[column]!)
            }
            appendVarint(&out, classSection)
            appendVarint(&out, UInt64(body.count))
            out.append(contentsOf: body)
            for pair in changes.linkingObjects.keys.sorted() {
                body.removeAll(keepingCapacity: true)
                appendVarint(&body, UInt64(key))
                appendVarint(&body, pair >> 32)
                appendVarint(&body, pair & 0xFFFF_FFFF)
                appendKeySet(&body, changes.linkingObjects[pair]!)
                appendVarint(&out, linkingSection)
                appendVarint(&out, UInt64(body.count))
                out.append(contentsOf: body)
            }
        }
        out.append(contentsOf: record.lists.bytes)
        if record.collections.isEmpty { return out }
        let ids = record.collections.keys.sorted { ($0.table, $0.column, $0.owner) < ($1.table, $1.column, $1.owner) }
        for id in ids {
            let changes = record.collections[id]!
            body.removeAll(keepingCapacity: true)
            appendVarint(&body, UInt64(id.table))
            appendVarint(&body, UInt64(id.column))
            appendVarint(&body, UInt64(bitPattern: id.owner))
            appendVarint(&body, (changes.cleared ? clearedFlag : 0) | (changes.ownerDeleted ? ownerDeletedFlag : 0) | (changes.filled ? filledFlag : 0))
            for keys in [changes.inserted, changes.deleted, changes.modified] {
                appendVarint(&body, UInt64(keys.count))
                var start = 0
                keys.bytes.withUnsafeBufferPointer { (bytes) in
                    for end in keys.ends {
                        appendVarint(&body, UInt64(Int(end) - start))
                        body.append(contentsOf: bytes[start..<Int(end)])
                        start = Int(end)
                    }
                }
            }
            appendVarint(&out, collectionSection)
            appendVarint(&out, UInt64(body.count))
            out.append(contentsOf: body)
        }
        return out
    }

    /// List `id`'s section (tag 3), its size counted first and its bytes
    /// written in place (one append per list, not one per byte).
    static func appendList(_ out: inout [UInt8], _ id: ListID, _ changes: ListChanges) {
        let flags = changes.overflowed ? overflowedFlag : 0
        var length = varintSize(UInt64(id.table)) + varintSize(UInt64(id.column)) + varintSize(UInt64(bitPattern: id.owner))
            + varintSize(flags) + varintSize(UInt64(changes.operationCount))
        changes.forEachOperation { operation in
            let (kind, a, b) = fields(operation)
            length += varintSize(kind) + varintSize(a) + (b.map(varintSize) ?? 0)
        }
        let start = out.count
        let size = varintSize(listSection) + varintSize(UInt64(length)) + length
        out.append(contentsOf: repeatElement(0, count: size))
        out.withUnsafeMutableBufferPointer { (buffer) in
            var p = buffer.baseAddress! + start
            p = writeVarint(p, listSection)
            p = writeVarint(p, UInt64(length))
            p = writeVarint(p, UInt64(id.table))
            p = writeVarint(p, UInt64(id.column))
            p = writeVarint(p, UInt64(bitPattern: id.owner))
            p = writeVarint(p, flags)
            p = writeVarint(p, UInt64(changes.operationCount))
            changes.forEachOperation { operation in
                let (kind, a, b) = fields(operation)
                p = writeVarint(p, kind)
                p = writeVarint(p, a)
                if let b { p = writeVarint(p, b) }
            }
            assert(p == buffer.baseAddress! + start + size)
        }
    }

    /// A list operation as stored: its kind (0 insert, 1 erase, 2 set,
    /// 3 move, 4 swap, 5 clear) and its one or two arguments.
    static func fields(_ operation: ListOperation) -> (kind: UInt64, a: UInt64, b: UInt64?) {
        switch operation {
        case .insert(let at, let count): return (0, UInt64(at), UInt64(count))
        case .erase(let at, let count): return (1, UInt64(at), UInt64(count))
        case .set(let at): return (2, UInt64(at), nil)
        case .move(let from, let to): return (3, UInt64(from), UInt64(to))
        case .swap(let a, let b): return (4, UInt64(a), UInt64(b))
        case .clear(let size): return (5, UInt64(size), nil)
        }
    }

    /// The number of bytes `appendVarint` writes for `value`.
    static func varintSize(_ value: UInt64) -> Int { (64 - (value | 1).leadingZeroBitCount + 6) / 7 }

    /// `value` as a varint at `p`; the byte after it.
    static func writeVarint(_ p: UnsafeMutablePointer<UInt8>, _ value: UInt64) -> UnsafeMutablePointer<UInt8> {
        var v = value, p = p
        while v >= 0x80 {
            p.pointee = UInt8(truncatingIfNeeded: v) | 0x80
            p += 1
            v >>= 7
        }
        p.pointee = UInt8(v)
        return p + 1
    }

    static func appendVarint(_ out: inout [UInt8], _ value: UInt64) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func appendKeySet(_ out: inout [UInt8], _ set: KeySet) {
        appendVarint(&out, UInt64(set.clusters.count))
        var previous: Int64 = 0
        let all = Bitmap(repeating: .max)
        for (cluster, bits) in zip(set.clusters, set.slots) {
            let delta = UInt64(cluster - previous)
            previous = cluster
            let count = bits.nonzeroBitCount
            if bits == all {
                appendVarint(&out, delta << 2)
            } else if count <= 24 {
                appendVarint(&out, delta << 2 | 2)
                out.append(UInt8(count))
                forEachSlot(bits) { out.append(UInt8($0)) }
            } else {
                appendVarint(&out, delta << 2 | 1)
                for word in 0..<4 { withUnsafeBytes(of: bits[word].littleEndian) { out.append(contentsOf: $0) } }
            }
        }
    }

    /// A record's bytes (without its seal) as a `ChangeRecord`; nil when
    /// they do not decode.
    public static func decode(_ raw: UnsafeRawBufferPointer) -> ChangeRecord? {
        var reader = Reader(raw)
        guard let transaction = reader.uint64() else { return nil }
        var record = ChangeRecord(transaction: transaction)
        var listIDs = Set<ListID>()
        while !reader.atEnd {
            let sectionStart = reader.offset
            guard let tag = reader.varint(), let length = reader.varint(), length <= UInt64(reader.remaining) else { return nil }
            let end = reader.offset + Int(length)
            if tag == classSection {
                guard let key = reader.varint(), key <= UInt64(UInt32.max), let flags = reader.varint(),
                      record.classes[UInt32(key)] == nil else { return nil }
                var changes = ObjectChanges()
                changes.cleared = flags & clearedFlag != 0
                changes.schema = SchemaChange(rawValue: flags & ~clearedFlag)
                guard let inserted = reader.keySet(), let deleted = reader.keySet(), let columns = reader.varint() else { return nil }
                changes.inserted = inserted
                changes.deleted = deleted
                var last: UInt64? = nil
                for _ in 0..<min(columns, UInt64(reader.remaining)) {
                    guard let column = reader.varint(), column <= UInt64(UInt32.max), last.map({ column > $0 }) ?? true,
                          let keys = reader.keySet(), !keys.isEmpty else { return nil }
                    last = column
                    changes.modified[UInt32(column)] = keys
                }
                guard changes.modified.count == Int(columns), reader.offset == end else { return nil }
                record.classes[UInt32(key)] = changes
            } else if tag == linkingSection {
                // After its class's section (the encoder writes it there).
                guard let key = reader.varint(), key <= UInt64(UInt32.max), record.classes[UInt32(key)] != nil,
                      let origin = reader.varint(), origin <= UInt64(UInt32.max), let property = reader.varint(), property <= UInt64(UInt32.max),
                      let keys = reader.keySet(), !keys.isEmpty, reader.offset == end else { return nil }
                let pair = ObjectChanges.linkingPair(originClass: UInt32(origin), property: UInt32(property))
                guard record.classes[UInt32(key)]!.linkingObjects[pair] == nil else { return nil }
                record.classes[UInt32(key)]!.linkingObjects[pair] = keys
            } else if tag == collectionSection {
                guard let table = reader.varint(), table <= UInt64(UInt32.max), let column = reader.varint(), column <= UInt64(UInt32.max),
                      let owner = reader.varint(), let flags = reader.varint(), flags & ~(clearedFlag | ownerDeletedFlag | filledFlag) == 0 else { return nil }
                let id = ListID(table: UInt32(table), column: UInt32(column), owner: Int64(bitPattern: owner))
                guard record.collections[id] == nil else { return nil }
                var changes = EntryChanges()
                changes.cleared = flags & clearedFlag != 0
                changes.ownerDeleted = flags & ownerDeletedFlag != 0
                changes.filled = flags & filledFlag != 0
                guard let inserted = reader.entryKeys(end), let deleted = reader.entryKeys(end), let modified = reader.entryKeys(end),
                      reader.offset == end else { return nil }
                changes.inserted = inserted
                changes.deleted = deleted
                changes.modified = modified
                record.collections[id] = changes
            } else if tag == listSection {
                guard let list = readList(&reader, end: end, { _ in }), listIDs.insert(list.id).inserted else { return nil }
                record.lists.appendSection(UnsafeRawBufferPointer(rebasing: raw[sectionStart..<end]))
            }
            reader.offset = end
        }
        return record
    }

    /// The list section body at `reader` (ending at `end`): its list and
    /// whether it overflowed, each operation handed to `operation` in
    /// order; nil when it does not decode.
    static func readList(_ reader: inout Reader, end: Int, _ operation: (ListOperation) -> Void) -> (id: ListID, overflowed: Bool)? {
        guard let table = reader.varint(), table <= UInt64(UInt32.max), let column = reader.varint(), column <= UInt64(UInt32.max),
              let owner = reader.varint(), let flags = reader.varint(), flags & ~overflowedFlag == 0,
              let count = reader.varint(), count <= UInt64(end - reader.offset) else { return nil }
        let limit = UInt64(Int32.max)
        for _ in 0..<Int(count) {
            guard let kind = reader.varint(), let a = reader.varint(), a <= limit else { return nil }
            switch kind {
            case 0, 1, 3, 4:
                guard let b = reader.varint(), b <= limit else { return nil }
                switch kind {
                case 0: operation(.insert(at: Int(a), count: Int(b)))
                case 1: operation(.erase(at: Int(a), count: Int(b)))
                case 3: operation(.move(from: Int(a), to: Int(b)))
                default: operation(.swap(Int(a), Int(b)))
                }
            case 2: operation(.set(at: Int(a)))
            case 5: operation(.clear(size: Int(a)))
            default: return nil
            }
        }
        guard reader.offset == end else { return nil }
        return (ListID(table: UInt32(table), column: UInt32(column), owner: Int64(bitPattern: owner)), flags & overflowedFlag != 0)
    }

    struct Reader {
        let raw: UnsafeRawBufferPointer
        var offset = 0
        init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }
        var atEnd: Bool { offset >= raw.count }
        var remaining: Int { raw.count - offset }

        mutating func byte() -> UInt8? {
            guard offset < raw.count else { return nil }
            defer { offset += 1 }
            return raw[offset]
        }

        mutating func uint64() -> UInt64? {
            guard remaining >= 8 else { return nil }
            defer { offset += 8 }
            return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let b = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        /// A key list ending by `end`, keys ascending.
        mutating func entryKeys(_ end: Int) -> EntryKeys? {
            guard let count = varint(), count <= UInt64(end - offset) else { return nil }
            var keys = EntryKeys()
            var previous: UnsafeRawBufferPointer?
            for _ in 0..<Int(count) {
                guard let length = varint(), length <= UInt64(end - offset) else { return nil }
                let key = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + Int(length)])
                if let previous, !previous.lexicographicallyPrecedes(key) { return nil }
                keys.append(key)
                previous = key
                offset += Int(length)
            }
            return keys
        }

        mutating func keySet() -> KeySet? {
            guard let count = varint(), count <= UInt64(remaining) else { return nil }
            var set = KeySet()
            var cluster: Int64 = 0
            for index in 0..<Int(count) {
                guard let head = varint() else { return nil }
                let delta = head >> 2
                guard (index == 0 || delta > 0), delta < UInt64(ClusterLayout.objectKeyLimit >> ClusterLayout.shift),
                      cluster + Int64(delta) < ClusterLayout.objectKeyLimit >> ClusterLayout.shift else { return nil }
                cluster += Int64(delta)
                var bits = Bitmap(repeating: 0)
                switch head & 3 {
                case 0:
                    bits = Bitmap(repeating: .max)
                case 1:
                    for word in 0..<4 { guard let w = uint64() else { return nil }; bits[word] = w }
                case 2:
                    guard let n = byte(), n >= 1, n <= 24 else { return nil }
                    var previous = -1
                    for _ in 0..<Int(n) {
                        guard let slot = byte(), Int(slot) > previous else { return nil }
                        previous = Int(slot)
                        bits[Int(slot) >> 6] |= 1 << UInt64(slot & 63)
                    }
                default:
                    return nil
                }
                guard bits != Bitmap(repeating: 0) else { return nil }
                set.add(bits, cluster: cluster)
            }
            return set
        }
    }

    // MARK: The database

    /// The key of version `version`: 8 bytes, big-endian (so keys sort by version).
    static func key(_ version: UInt64) -> [UInt8] {
        withUnsafeBytes(of: version.bigEndian) { Array($0) }
    }

    /// Store the record of the commit making `version`, in that commit's transaction.
    public static func write(_ txn: OpaquePointer, _ dbi: MDB_dbi, version: UInt64, _ record: ChangeRecord) throws(FiefError) {
        var bytes = encode(record)
        let key = key(version)
        key.withUnsafeBytes { EntrySeal.seal(&bytes, table: 0, database: sealDatabase, key: $0) }
        try typed {
            try key.withUnsafeBytes { (k) in
                try bytes.withUnsafeBytes { (v) in
                    _ = try LMDB.put(txn, dbi, k, v)
                }
            }
        }
    }

    /// The stored record of `version`: nil when there is none (never
    /// written, or trimmed); a record that fails its seal or does not
    /// decode is `FIEF_ERR_FILE_CORRUPT`.
    public static func read(_ txn: OpaquePointer, _ dbi: MDB_dbi, version: UInt64, path: String) throws(FiefError) -> ChangeRecord? {
        let key = key(version)
        let raw = try typed { try key.withUnsafeBytes { (k) in try LMDB.get(txn, dbi, k) } }
        guard let raw else { return nil }
        return try opened(raw, key: key, version: version, path: path)
    }

    public static func opened(_ raw: UnsafeRawBufferPointer, key: [UInt8], version: UInt64, path: String) throws(FiefError) -> ChangeRecord {
        let body = key.withUnsafeBytes { EntrySeal.open(raw, table: 0, database: sealDatabase, key: $0) }
        guard let body, let record = decode(body) else {
            throw FiefError(.fileCorrupt, "'\(path)' is damaged: the change record of version \(version) fails its checksum or does not decode", path: path)
        }
        return record
    }

    /// The changes of the commits that made versions `from + 1 ... to`, merged
    /// in order, per class; nil when a record of the range is missing
    /// (trimmed, or the file was compacted or upgraded since).
    public static func changes(_ txn: OpaquePointer, _ dbi: MDB_dbi, from: UInt64, to: UInt64, path: String) throws(FiefError) -> [UInt32: ObjectChanges]? {
        var merged: [UInt32: ObjectChanges] = [:]
        guard from < to else { return merged }
        for version in (from + 1)...to {
            guard let record = try read(txn, dbi, version: version, path: path) else { return nil }
            for (key, changes) in record.classes {
                merged[key, default: ObjectChanges()].append(changes)
            }
        }
        return merged.filter { !$0.value.isEmpty }
    }

    /// The changes of the commits that made versions `from + 1 ... to` to
    /// sets and maps, merged in order, per collection; nil when a record
    /// of the range is missing.
    public static func collectionChanges(_ txn: OpaquePointer, _ dbi: MDB_dbi, from: UInt64, to: UInt64, path: String) throws(FiefError) -> [ListID: EntryChanges]? {
        var merged: [ListID: EntryChanges] = [:]
        guard from < to else { return merged }
        for version in (from + 1)...to {
            guard let record = try read(txn, dbi, version: version, path: path) else { return nil }
            for (id, changes) in record.collections {
                merged[id, default: EntryChanges()].append(changes)
            }
        }
        return merged.filter { !$0.value.isEmpty }
    }

    /// The changes of the commits that made versions `from + 1 ... to` to
    /// lists, in order, per list; nil when a record of the range is missing.
    public static func listChanges(_ txn: OpaquePointer, _ dbi: MDB_dbi, from: UInt64, to: UInt64, path: String) throws(FiefError) -> [ListID: ListChanges]? {
        var merged: [ListID: ListChanges] = [:]
        guard from < to else { return merged }
        for version in (from + 1)...to {
            guard let record = try read(txn, dbi, version: version, path: path) else { return nil }
            for list in record.lists {
                merged[list.id, default: ListChanges()].append(list.changes)
            }
        }
        return merged
    }

    /// The commit transaction id at the start of a stored record (its seal
    /// is not checked: trimming reads only this).
    static func transaction(of raw: UnsafeRawBufferPointer) -> UInt64? {
        guard raw.count >= 8 + EntrySeal.bytes else { return nil }
        return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
    }

    /// Delete, from the oldest, the records whose commit is not newer than
    /// transaction `oldest` (the oldest snapshot still read).  A record too
    /// short to name its commit is deleted too (nobody can read it).
    public static func trim(_ txn: OpaquePointer, _ dbi: MDB_dbi, through oldest: UInt64) throws(FiefError) {
        let cursor = try LMDBCursor(txn, dbi)
        while let (_, value) = try cursor.move(MDB_FIRST) {
            if let id = transaction(of: value), id > oldest { return }
            try cursor.deleteCurrent()
        }
    }

    /// The number of versions from the oldest one a reader holds to the
    /// newest (`newest`), counted as Realm counts active versions: 1 when
    /// every reader (or none) is at the newest.  `oldestReader` is the
    /// reader table's oldest transaction id (`ReaderTable`).
    public static func activeVersions(_ txn: OpaquePointer, _ dbi: MDB_dbi, newest: UInt64, oldestReader: UInt64?) throws(FiefError) -> UInt64 {
        guard let oldestReader else { return 1 }
        // The first record of a commit newer than the oldest reader is the
        // version after the one it holds (trimming keeps these, and
        // usually only these, so this is the first record or the next).
        let cursor = try LMDBCursor(txn, dbi)
        var entry = try cursor.move(MDB_FIRST)
        while let (key, value) = entry {
            if let id = transaction(of: value), id > oldestReader, key.count == 8 {
                let version = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
                return version > newest ? 1 : newest - version + 2
            }
            entry = try cursor.move(MDB_NEXT)
        }
        return 1
    }
}

extension Snapshot {
    /// The changes of the commits after version `base` up to this
    /// snapshot's version, merged per class (`History.changes`); nil when
    /// they are not all recorded (trimmed, a file compacted or upgraded
    /// since, or a file without history).  Versions newer than this
    /// snapshot's, or `base` past it, are a caller's error: nil.
    public func changes(since base: UInt64) throws(FiefError) -> [UInt32: ObjectChanges]? {
        guard base <= version else { return nil }
        guard let dbi = try environment.existingDatabase(History.database), Environment.isUsable(dbi, in: txn) else { return nil }
        if isShared {
            return try lock.withLock { () throws(FiefError) in try History.changes(txn, dbi, from: base, to: version, path: environment.path) }
        }
        return try History.changes(txn, dbi, from: base, to: version, path: environment.path)
    }
}

extension Snapshot {
    /// The changes of the commits after version `base` up to this
    /// snapshot's version to sets and maps, merged per collection
    /// (`History.collectionChanges`); nil as `changes(since:)` is.
    public func collectionChanges(since base: UInt64) throws(FiefError) -> [ListID: EntryChanges]? {
        guard base <= version else { return nil }
        guard let dbi = try environment.existingDatabase(History.database), Environment.isUsable(dbi, in: txn) else { return nil }
        if isShared {
            return try lock.withLock { () throws(FiefError) in try History.collectionChanges(txn, dbi, from: base, to: version, path: environment.path) }
        }
        return try History.collectionChanges(txn, dbi, from: base, to: version, path: environment.path)
    }
}

extension Snapshot {
    /// The changes of the commits after version `base` up to this
    /// snapshot's version to lists, in order per list
    /// (`History.listChanges`); nil as `changes(since:)` is.
    public func listChanges(since base: UInt64) throws(FiefError) -> [ListID: ListChanges]? {
        guard base <= version else { return nil }
        guard let dbi = try environment.existingDatabase(History.database), Environment.isUsable(dbi, in: txn) else { return nil }
        if isShared {
            return try lock.withLock { () throws(FiefError) in try History.listChanges(txn, dbi, from: base, to: version, path: environment.path) }
        }
        return try History.listChanges(txn, dbi, from: base, to: version, path: environment.path)
    }
}

/// LMDB's reader table, read through `mdb_reader_list` (the only public way:
/// it formats one line per used slot, which is parsed here).
public enum ReaderTable {
    /// The oldest transaction id any reader of `env` holds; nil when no
    /// reader holds one.
    public static func oldestTransaction(_ env: OpaquePointer) -> UInt64? {
        var oldest = UInt64.max
        _ = withUnsafeMutablePointer(to: &oldest) { (pointer) in
            mdb_reader_list(env, { (message, context) -> Int32 in
                guard let message, let context else { return 0 }
                // "%10d %zx %zu\n", or "-" for a slot between transactions;
                // the header and "(no active readers)" have no digit last.
                var end = 0
                while message[end] != 0 { end += 1 }
                var i = end - 1
                while i >= 0 && (message[i] == 0x0A || message[i] == 0x20) { i -= 1 }
                var value: UInt64 = 0, scale: UInt64 = 1, digits = 0
                while i >= 0, message[i] >= 0x30, message[i] <= 0x39 {
                    value &+= UInt64(message[i] - 0x30) &* scale
                    scale &*= 10
                    digits += 1
                    i -= 1
                }
                guard digits > 0, i >= 0, message[i] == 0x20 else { return 0 }
                let oldest = context.assumingMemoryBound(to: UInt64.self)
                if value < oldest.pointee { oldest.pointee = value }
                return 0
            }, pointer)
        }
        return oldest == .max ? nil : oldest
    }
}
