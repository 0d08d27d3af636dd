import CLMDB
import FiefStorage

/// How a create with an existing primary key behaves (the C ABI's FIEF_UPDATE_POLICY_*).
public enum UpdatePolicy: Int32, Sendable {
    case error = 0
    case modified = 1
    case all = 2
}

extension Value {
    /// Whether two values are the same value (strings and binaries by bytes).
    func isSame(as other: Value) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.int(let a), .int(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)), (.binary(let a), .binary(let b)): return a.elementsEqual(b)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 == s2 && n1 == n2
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern || a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern || a == b
        case (.decimal128(let a), .decimal128(let b)): return a == b
        case (.objectId(let a), .objectId(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.link(let c1, let k1), .link(let c2, let k2)): return c1 == c2 && k1 == k2
        default: return false
        }
    }
}

extension Realm {
    // MARK: Reading

    /// Whether object `key` of class `tableKey` exists now.
    public func objectExists(table tableKey: UInt32, key: Int64) throws(FiefError) -> Bool {
        try checkReadable()
        guard hasTable(tableKey) else { return false }
        let table = try table(tableKey)
        return try isLive(table, key)
    }

    /// Throw `.invalidatedObject` unless the object exists.
    @inline(__always)
    func requireLive(_ table: Table, _ key: Int64) throws(FiefError) {
        if try !isLive(table, key) {
            throw FiefError(.invalidatedObject, "the \(table.objectClass.name) object was deleted or is not in this version of the realm")
        }
    }

    /// Read one property of an object (a view for strings and binaries).
    public func value(table tableKey: UInt32, key: Int64, property propertyKey: UInt32) throws(FiefError) -> Value {
        try checkReadable()
        let table = try table(tableKey)
        try requireLive(table, key)
        let column = try table.column(propertyKey)
        if column.collection != .none { throw collectionProperty(table, column) }
        return try slotValue(table, column, key)
    }

    /// The error for reading or writing a collection property as one value.
    func collectionProperty(_ table: Table, _ column: Column) -> FiefError {
        let name = (try? table.property(column.key).name) ?? "#\(column.key)"
        return FiefError(.typeMismatch, "'\(table.objectClass.name).\(name)' is a \(column.collection.name), not a single value: use the \(column.collection.name) calls (fief_object_get_\(column.collection.name))")
    }

    @inline(__always)
    func slotValue(_ table: Table, _ column: Column, _ key: Int64) throws(FiefError) -> Value {
        let value = try chunk(table, column: column.key, cluster: ClusterLayout.cluster(of: key))
            .value(ClusterLayout.slot(of: key), type: column.type, nullable: column.isNullable)
        // A link column stores the target's object key; its class is the column's.
        if column.type == .link, case .int(let target) = value { return .link(classKey: column.linkTarget, objectKey: target) }
        if column.isMixed, case .binary(let coded) = value {
            guard let decoded = MixedCoding.decode(coded) else {
                throw damagedChunk(table, column: column.key, cluster: ClusterLayout.cluster(of: key), "holds a mixed value that cannot be read")
            }
            return decoded
        }
        return value
    }

    /// Read several properties of an object into `out`.
    public func values(table tableKey: UInt32, key: Int64, properties: UnsafeBufferPointer<UInt32>, into out: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        try checkReadable()
        let table = try table(tableKey)
        try requireLive(table, key)
        for i in 0..<properties.count {
            let column = try table.column(properties[i])
            if column.collection != .none { throw collectionProperty(table, column) }
            out[i] = try slotValue(table, column, key)
        }
    }

    @inline(__always)
    func slotValue(_ table: Table, _ property: Property, _ key: Int64) throws(FiefError) -> Value {
        try slotValue(table, try table.column(property.key), key)
    }

    /// The key of the object whose primary key is `value`, if there is one.
    public func find(table tableKey: UInt32, primaryKey value: Value) throws(FiefError) -> Int64? {
        try checkReadable()
        let table = try table(tableKey)
        guard let pk = table.primaryKey else {
            throw FiefError(.invalidArgument, "class '\(table.objectClass.name)' has no primary key")
        }
        let coerced = try value.coerced(for: pk, className: table.objectClass.name)
        return try lookupPrimaryKey(table, coerced)
    }

    /// The object whose primary key is `value` (already coerced), checked
    /// against the object itself: a damaged table is an error, never
    /// another object.
    func lookupPrimaryKey(_ table: Table, _ value: Value) throws(FiefError) -> Int64? {
        guard let dbi = table.primaryKeyDatabase, let pk = table.primaryKey else { return nil }
        let object: Int64
        if table.integerPrimaryKey, case .int(let i) = value {
            let key = UInt64(bitPattern: i)
            let found: Int64?
            if let write {
                found = try PrimaryKeyRuns.find(try write.primaryKeyCursor(table.key, dbi), key)
            } else {
                found = try currentSnapshot().withCursor(dbi) { (cursor) throws(FiefError) in try PrimaryKeyRuns.find(cursor, key) }
            }
            guard let found else { return nil }
            object = found
        } else {
            if KeyEncoding.isTruncated(value) { return nil }
            var bytes: [UInt8] = []
            KeyEncoding.encode(value, into: &bytes)
            let found = try typed { try bytes.withUnsafeBytes { (raw) in try getFromView(dbi, raw) } }
            guard let found else { return nil }
            guard found.count == 8 else { throw damagedPrimaryKeys(table, value) }
            object = Int64(bitPattern: found.loadUnaligned(as: UInt64.self))
        }
        guard try isLive(table, object), (try slotValue(table, pk, object)).isSame(as: value) else {
            throw damagedPrimaryKeys(table, value)
        }
        return object
    }

    private func damagedPrimaryKeys(_ table: Table, _ value: Value) -> FiefError {
        FiefError(.fileCorrupt, "'\(environment.path)' is damaged: the primary-key table of class '\(table.objectClass.name)' maps \(describe(value)) to an object that does not hold it", path: environment.path)
    }

    /// A lookup in the write transaction or the snapshot.
    func getFromView(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws(FiefError) -> UnsafeRawBufferPointer? {
        if let write { return try LMDB.get(write.txn, dbi, key) }
        let snapshot = try currentSnapshot()
        if snapshot.isShared {
            return try snapshot.lock.withLock { () throws(FiefError) in try LMDB.get(snapshot.txn, dbi, key) }
        }
        return try LMDB.get(snapshot.txn, dbi, key)
    }

    func getFromView(_ dbi: MDB_dbi, integerKey: UInt64) throws(FiefError) -> UnsafeRawBufferPointer? {
        var key = integerKey
        return try withUnsafeBytes(of: &key) { (raw) throws(FiefError) in try getFromView(dbi, raw) }
    }

    // MARK: Creating

    /// Create `rows` objects, reading row r's value for `properties[i]` from
    /// `value(r, i)` (views are read during the call only).  All or nothing.
    /// New objects (policy `.error`, or a class without a primary key) are
    /// written straight into the column chunks, column by column, without
    /// an intermediate copy of the values.
    public func createObjects(table tableKey: UInt32, properties propertyKeys: UnsafeBufferPointer<UInt32>, rows: Int, policy: UpdatePolicy, keys: UnsafeMutablePointer<Int64>?, value: (Int, Int) throws(FiefError) -> Value) throws(FiefError) {
        let write = try requireWrite()
        let table = try table(tableKey)
        try Links.refuseStandalone(table)
        let (properties, primaryKeyColumn) = try resolveCreateProperties(table, propertyKeys)
        if policy == .error || primaryKeyColumn < 0 {
            try insertStreaming(write, table, properties: properties, rows: rows, primaryKeyColumn: primaryKeyColumn, keys: keys, value: value)
            noteMembershipChange(table.key)
            return
        }
        var values: [Value] = []
        values.reserveCapacity(rows * properties.count)
        for row in 0..<rows {
            for column in 0..<properties.count { values.append(try value(row, column)) }
        }
        try values.withUnsafeMutableBufferPointer { (buffer) throws(FiefError) in
            try createObjects(table: tableKey, properties: propertyKeys, values: buffer, rows: rows, policy: policy, keys: keys)
        }
    }

    /// Resolve the properties of a create, refusing duplicates and a missing
    /// primary key.  The last answer is kept: object-by-object creates name
    /// the same properties every time.
    private func resolveCreateProperties(_ table: Table, _ propertyKeys: UnsafeBufferPointer<UInt32>) throws(FiefError) -> ([Property], Int) {
        if let cached = lastCreateProperties, cached.table === table, cached.keys.count == propertyKeys.count,
           cached.keys.withUnsafeBufferPointer({ $0.elementsEqual(propertyKeys) }) {
            return (cached.properties, cached.primaryKeyColumn)
        }
        let resolved = try resolveCreatePropertiesUncached(table, propertyKeys)
        lastCreateProperties = CreateProperties(table: table, keys: Array(propertyKeys), properties: resolved.0, primaryKeyColumn: resolved.1)
        return resolved
    }

    private func resolveCreatePropertiesUncached(_ table: Table, _ propertyKeys: UnsafeBufferPointer<UInt32>) throws(FiefError) -> ([Property], Int) {
        var properties: [Property] = []
        properties.reserveCapacity(propertyKeys.count)
        var primaryKeyColumn = -1
        for i in 0..<propertyKeys.count {
            let property = try table.property(propertyKeys[i])
            if properties.contains(where: { $0.key == property.key }) {
                throw FiefError(.invalidArgument, "property '\(table.objectClass.name).\(property.name)' is given twice")
            }
            if property.collection != .none { throw collectionProperty(table, try table.column(property.key)) }
            if property.isPrimaryKey { primaryKeyColumn = i }
            properties.append(property)
        }
        if let pk = table.primaryKey, primaryKeyColumn < 0 {
            throw FiefError(.missingPrimaryKey, "objects of class '\(table.objectClass.name)' need a value for their primary key '\(pk.name)'")
        }
        return (properties, primaryKeyColumn)
    }

    /// Insert new objects straight from `value`: primary keys first (a
    /// duplicate undoes the ones written), then each column cluster by
    /// cluster, then presence; the keys taken by a failed call stay unused,
    /// and the values it wrote sit in slots that never become live.
    func insertStreaming(_ write: WriteTransaction, _ table: Table, properties: [Property], rows: Int, primaryKeyColumn: Int, keys: UnsafeMutablePointer<Int64>?, value: (Int, Int) throws(FiefError) -> Value) throws(FiefError) {
        guard rows > 0 else { return }
        let width = properties.count
        let className = table.objectClass.name
        let state = write.classWrite(table.key)
        let first = try allocateKeys(write, table, state, count: rows)
        var primaryKeysWritten = 0
        var failingRow = 0
        // Integer primary keys go to their table as runs of consecutive
        // keys (one entry and one check per run, see `PrimaryKeyRuns`).
        var runStart: UInt64 = 0, runRow = 0, runCount = 0
        func writeRun() throws(FiefError) {
            guard runCount > 0, let dbi = table.primaryKeyDatabase else { return }
            if let taken = try write.insertPrimaryKeys(table.key, dbi, start: runStart, firstObject: first + Int64(runRow), count: UInt64(runCount)) {
                failingRow = runRow + Int(taken &- runStart)
                throw FiefError(.duplicatePrimaryKey, "a \(className) object with primary key \(Int64(bitPattern: taken)) already exists")
            }
            primaryKeysWritten = runRow + runCount
            runCount = 0
        }
        do throws(FiefError) {
            for column in 0..<width {
                // Fields of properties[column] read in place: copying a
                // Property (its strings) per created object costs more.
                let propertyKey = properties[column].key
                let propertyType = properties[column].type
                let isPrimaryKey = column == primaryKeyColumn
                let linkColumn = propertyType == .link || propertyType == .mixed ? try table.column(propertyKey) : nil
                let isMixed = propertyType == .mixed
                var row = 0
                while row < rows {
                    let key = first + Int64(row)
                    let cluster = ClusterLayout.cluster(of: key)
                    let end = min(rows, Int((cluster + 1) << ClusterLayout.shift - first))
                    // Unretained: the transaction owns the chunk (see `ClassWrite.chunk`).
                    let chunk = try state.chunk(propertyKey, cluster: cluster) { () throws(FiefError) in
                        try dirtyChunk(write, table, column: propertyKey, type: propertyType.chunkType, cluster: cluster)
                    }
                    var slot = ClusterLayout.slot(of: key)
                    for r in row..<end {
                        failingRow = r
                        let v = try value(r, column).coerced(for: properties[column], className: className)
                        if let linkColumn { try Links.check(self, v, table, linkColumn, properties[column]) }
                        if isPrimaryKey && table.integerPrimaryKey, case .int(let i) = v {
                            let k = UInt64(bitPattern: i)
                            let (next, overflow) = runStart.addingReportingOverflow(UInt64(runCount))
                            if runCount > 0 && !overflow && k == next {
                                runCount += 1
                            } else {
                                try writeRun()
                                (runStart, runRow, runCount) = (k, r, 1)
                            }
                        } else if isPrimaryKey {
                            if KeyEncoding.isTruncated(v) {
                                throw FiefError(.invalidArgument, "primary key strings are limited to \(KeyEncoding.maxKeyBytes - 2) bytes")
                            }
                            if try !putPrimaryKey(write, table, v, first + Int64(r)) {
                                throw FiefError(.duplicatePrimaryKey, "a \(className) object with primary key \(describe(v)) already exists")
                            }
                            primaryKeysWritten = r + 1
                        }
                        if isMixed, !v.isNull {
                            let v = try storedMixed(write, table, owner: first + Int64(r), property: propertyKey, v)
                            MixedCoding.encode(v, into: &write.entryValue)
                            write.entryValue.withUnsafeBytes { bytes in chunk._withUnsafeGuaranteedRef { $0.setInNewObject(slot, .binary(bytes)) } }
                        } else {
                            chunk._withUnsafeGuaranteedRef { $0.setInNewObject(slot, v) }
                        }
                        slot += 1
                    }
                    row = end
                }
                if isPrimaryKey { try writeRun() }
            }
        } catch {
            if error.code.rawValue >= 5000 { throw poison(write, error) }
            // Undo the primary keys this call wrote (they are in the chunks).
            if primaryKeyColumn >= 0 {
                let pk = properties[primaryKeyColumn]
                for r in 0..<primaryKeysWritten {
                    do throws(FiefError) {
                        try deletePrimaryKey(write, table, try slotValue(table, pk, first + Int64(r)))
                    } catch {
                        throw poison(write, error)
                    }
                }
            }
            throw rows > 1 ? FiefError(error.code, "row \(failingRow): \(error.message)", path: error.path) : error
        }
        do throws(FiefError) {
            // Presence last: the objects exist once every value is in place.
            var row = 0
            while row < rows {
                let key = first + Int64(row)
                let cluster = ClusterLayout.cluster(of: key)
                let end = min(rows, Int((cluster + 1) << ClusterLayout.shift - first))
                let presence = try state.chunk(ClusterLayout.presenceColumn, cluster: cluster) { () throws(FiefError) in
                    try dirtyChunk(write, table, column: 0, type: nil, cluster: cluster)
                }
                var slot = ClusterLayout.slot(of: key)
                for _ in row..<end {
                    presence._withUnsafeGuaranteedRef { $0.setBit(slot, true) }
                    slot += 1
                }
                state.touch(cluster)
                row = end
            }
            state.objectCountDelta += Int64(rows)
            if !table.links.isEmpty || !table.mixedProperties.isEmpty { try Links.created(self, write, table, properties, first: first, rows: rows) }
            if !table.indexDatabases.isEmpty {
                for property in table.objectClass.properties where property.isIndexed && !property.isPrimaryKey {
                    let given = properties.contains { $0.key == property.key }
                    let fallback: Value = property.isNullable ? .null : Value.zero(of: property.type)
                    for r in 0..<rows {
                        let key = first + Int64(r)
                        try putIndexEntry(write, table, property, given ? try slotValue(table, property, key) : fallback, key)
                    }
                }
            }
            if !table.fullTextDatabases.isEmpty {
                // A property not given is null or empty: no token.
                for property in table.objectClass.properties where property.isFullTextIndexed && properties.contains(where: { $0.key == property.key }) {
                    try addFullText(write, table, property, first: first, rows: rows)
                }
            }
        } catch {
            throw poison(write, error)
        }
        if let keys { for row in 0..<rows { keys[row] = first + Int64(row) } }
    }

    /// Create `rows` objects: row r's value for `properties[i]` is
    /// `values[r * properties.count + i]`.  All or nothing.  `keys`, if
    /// given, receives each row's object key.
    public func createObjects(table tableKey: UInt32, properties propertyKeys: UnsafeBufferPointer<UInt32>, values: UnsafeMutableBufferPointer<Value>, rows: Int, policy: UpdatePolicy, keys: UnsafeMutablePointer<Int64>?) throws(FiefError) {
        let width = propertyKeys.count
        guard values.count >= rows * width else { throw FiefError(.invalidArgument, "fewer values than rows times properties") }
        try Links.refuseStandalone(try table(tableKey))
        let hasPrimaryKey = try table(tableKey).primaryKey != nil
        if policy == .error || !hasPrimaryKey {
            try createObjects(table: tableKey, properties: propertyKeys, rows: rows, policy: policy, keys: keys) { (row, column) throws(FiefError) in
                values[row * width + column]
            }
            return
        }
        // Upserts: row by row, since a row may update an object an earlier
        // row created.  Every value is checked first, so that afterwards only
        // a storage failure (which poisons the transaction) can stop a row.
        let write = try requireWrite()
        let table = try table(tableKey)
        let (properties, primaryKeyColumn) = try resolveCreateProperties(table, propertyKeys)
        for row in 0..<rows {
            for i in 0..<width {
                let index = row * width + i
                do throws(FiefError) {
                    values[index] = try values[index].coerced(for: properties[i], className: table.objectClass.name)
                    if i == primaryKeyColumn, KeyEncoding.isTruncated(values[index]) {
                        throw FiefError(.invalidArgument, "primary key strings are limited to \(KeyEncoding.maxKeyBytes - 2) bytes")
                    }
                } catch {
                    throw rows > 1 ? FiefError(error.code, "row \(row): \(error.message)") : error
                }
            }
        }
        for row in 0..<rows {
            let rowValues = UnsafeMutableBufferPointer(rebasing: values[(row * width)..<(row * width + width)])
            do throws(FiefError) {
                if let existing = try lookupPrimaryKey(table, rowValues[primaryKeyColumn]) {
                    try update(write, table, key: existing, properties: properties, values: UnsafeBufferPointer(rowValues), onlyChanged: policy == .modified)
                    keys?[row] = existing
                } else {
                    try insertStreaming(write, table, properties: properties, rows: 1, primaryKeyColumn: primaryKeyColumn, keys: keys.map { $0 + row }) { (_, column) throws(FiefError) in
                        rowValues[column]
                    }
                }
            } catch {
                throw poison(write, error)
            }
        }
        noteMembershipChange(table.key)
    }

    private func describe(_ value: Value) -> String {
        switch value {
        case .int(let i): return String(i)
        case .string(let s): return "'" + String(decoding: s, as: UTF8.self) + "'"
        case .null: return "null"
        default: return value.typeName
        }
    }

    // MARK: Primary keys and indexes

    private func putPrimaryKey(_ write: WriteTransaction, _ table: Table, _ value: Value, _ key: Int64) throws(FiefError) -> Bool {
        guard let dbi = table.primaryKeyDatabase else { return true }
        if table.integerPrimaryKey, case .int(let i) = value {
            return try write.insertPrimaryKeys(table.key, dbi, start: UInt64(bitPattern: i), firstObject: key, count: 1) == nil
        }
        var object = UInt64(bitPattern: key)
        return try withUnsafeBytes(of: &object) { (objectBytes) throws(FiefError) -> Bool in
            KeyEncoding.encode(value, into: &write.keyBuffer)
            return try typed { try write.keyBuffer.withUnsafeBytes { (kb) in
                try LMDB.put(write.txn, dbi, kb, objectBytes, flags: UInt32(MDB_NOOVERWRITE))
            } }
        }
    }

    private func deletePrimaryKey(_ write: WriteTransaction, _ table: Table, _ value: Value) throws(FiefError) {
        guard let dbi = table.primaryKeyDatabase else { return }
        if table.integerPrimaryKey, case .int(let i) = value {
            try PrimaryKeyRuns.remove(try write.primaryKeyCursor(table.key, dbi), UInt64(bitPattern: i))
            return
        }
        KeyEncoding.encode(value, into: &write.keyBuffer)
        try typed { try write.keyBuffer.withUnsafeBytes { (kb) in try LMDB.delete(write.txn, dbi, kb) } }
    }

    func putIndexEntry(_ write: WriteTransaction, _ table: Table, _ property: Property, _ value: Value, _ key: Int64) throws(FiefError) {
        guard let dbi = table.indexDatabases[property.key] else { return }
        guard KeyEncoding.encodeIndexKey(value, of: property, into: &write.keyBuffer) else { return }
        var object = UInt64(bitPattern: key)
        try typed { try write.keyBuffer.withUnsafeBytes { (kb) in
            try withUnsafeBytes(of: &object) { (vb) throws(FiefError) in _ = try LMDB.put(write.txn, dbi, kb, vb) }
        } }
    }

    func deleteIndexEntry(_ write: WriteTransaction, _ table: Table, _ property: Property, _ value: Value, _ key: Int64) throws(FiefError) {
        guard let dbi = table.indexDatabases[property.key] else { return }
        guard KeyEncoding.encodeIndexKey(value, of: property, into: &write.keyBuffer) else { return }
        var object = UInt64(bitPattern: key)
        try typed { try write.keyBuffer.withUnsafeBytes { (kb) in
            try withUnsafeBytes(of: &object) { (vb) throws(FiefError) in try LMDB.delete(write.txn, dbi, kb, value: vb) }
        } }
    }

    // MARK: Updating

    /// Set properties of an existing object, all or nothing.
    public func setValues(table tableKey: UInt32, key: Int64, properties propertyKeys: UnsafeBufferPointer<UInt32>, values: UnsafeMutableBufferPointer<Value>) throws(FiefError) {
        let write = try requireWrite()
        let table = try table(tableKey)
        try requireLive(table, key)
        var properties: [Property] = []
        properties.reserveCapacity(propertyKeys.count)
        for i in 0..<propertyKeys.count {
            let property = try table.property(propertyKeys[i])
            if properties.contains(where: { $0.key == property.key }) {
                throw FiefError(.invalidArgument, "property '\(table.objectClass.name).\(property.name)' is given twice")
            }
            if property.collection != .none { throw collectionProperty(table, try table.column(property.key)) }
            values[i] = try values[i].coerced(for: property, className: table.objectClass.name)
            if property.type == .link || property.type == .mixed { try Links.check(self, values[i], table, try table.column(property.key), property) }
            if property.isPrimaryKey, !(try slotValue(table, property, key)).isSame(as: values[i]) {
                throw FiefError(.primaryKeyChange, "the primary key '\(table.objectClass.name).\(property.name)' of an existing object cannot change")
            }
            properties.append(property)
        }
        do throws(FiefError) {
            try update(write, table, key: key, properties: properties, values: UnsafeBufferPointer(values), onlyChanged: false)
        } catch {
            throw poison(write, error)
        }
        for property in properties { noteColumnChange(table.key, property.key) }
    }

    /// Set one property (the common case, without array allocations).
    public func setValue(table tableKey: UInt32, key: Int64, property propertyKey: UInt32, value: Value) throws(FiefError) {
        let write = try requireWrite()
        let table = try table(tableKey)
        try requireLive(table, key)
        let column = try table.column(propertyKey)
        if column.collection != .none { throw collectionProperty(table, column) }
        if !column.isPrimaryKey && !column.hasIndex && !column.isMixed && !column.hasFullTextIndex && !column.feedsGeoIndex, let fast = value.coercedQuickly(to: column.type) {
            // The common case: no index to maintain, a value needing no conversion.
            let chunk = try dirtyChunk(write, table, column: column.key, type: column.type, cluster: ClusterLayout.cluster(of: key))
            chunk.set(ClusterLayout.slot(of: key), fast)
            noteColumnChange(table.key, column.key)
            return
        }
        let property = try table.property(propertyKey)
        let coerced = try value.coerced(for: property, className: table.objectClass.name)
        if property.type == .link || property.type == .mixed { try Links.check(self, coerced, table, column, property) }
        if property.isPrimaryKey {
            if !(try slotValue(table, property, key)).isSame(as: coerced) {
                throw FiefError(.primaryKeyChange, "the primary key '\(table.objectClass.name).\(property.name)' of an existing object cannot change")
            }
            return
        }
        do throws(FiefError) {
            try writeSlot(write, table, property, key, coerced)
        } catch {
            throw poison(write, error)
        }
        noteColumnChange(table.key, property.key)
    }

    private func update(_ write: WriteTransaction, _ table: Table, key: Int64, properties: [Property], values: UnsafeBufferPointer<Value>, onlyChanged: Bool) throws(FiefError) {
        for i in 0..<properties.count where !properties[i].isPrimaryKey {
            if onlyChanged, (try slotValue(table, properties[i], key)).isSame(as: values[i]) { continue }
            try writeSlot(write, table, properties[i], key, values[i])
        }
    }

    @inline(__always)
    func writeSlot(_ write: WriteTransaction, _ table: Table, _ property: Property, _ key: Int64, _ value: Value) throws(FiefError) {
        var value = value
        if property.type == .link || property.type == .mixed {
            let old = try slotValue(table, property, key)
            try Links.replaced(self, write, table, property, key, old: old, new: value)
            // An embedded object is owned by its parent's link: replaced, it goes.
            if case .link(let childClass, let child) = old, !old.isSame(as: value), try self.table(childClass).objectClass.isEmbedded {
                try deleteObject(write, try self.table(childClass), child)
            }
            // So is a nested collection, by its mixed value; a new one is made empty.
            if property.type == .mixed {
                try droppedMixed(write, table, owner: key, property: property.key, old)
                value = try storedMixed(write, table, owner: key, property: property.key, value)
            }
        }
        if property.isIndexed && !property.isPrimaryKey {
            let old = try slotValue(table, property, key)
            try deleteIndexEntry(write, table, property, old, key)
            try putIndexEntry(write, table, property, value, key)
        }
        if property.isFullTextIndexed {
            try replaceFullText(write, table, property, old: try slotValue(table, property, key), new: value, key)
        }
        let chunk = try dirtyChunk(write, table, column: property.key, type: property.type.chunkType, cluster: ClusterLayout.cluster(of: key))
        if property.type == .mixed, !value.isNull {
            MixedCoding.encode(value, into: &write.entryValue)
            write.entryValue.withUnsafeBytes { chunk.set(ClusterLayout.slot(of: key), .binary($0)) }
            return
        }
        chunk.set(ClusterLayout.slot(of: key), value)
        // A GeoJSON point's `type`: its spatial index entry follows.
        if let geo = table.geoIndex, geo.type.key == property.key { try refreshGeoIndex(write, table, key) }
    }

    // MARK: Deleting

    /// Delete one object.
    public func deleteObject(table tableKey: UInt32, key: Int64) throws(FiefError) {
        let write = try requireWrite()
        let table = try table(tableKey)
        try requireLive(table, key)
        do throws(FiefError) {
            try deleteObject(write, table, key)
        } catch {
            throw poison(write, error)
        }
        noteMembershipChange(table.key)
    }

    func deleteObject(_ write: WriteTransaction, _ table: Table, _ key: Int64) throws(FiefError) {
        if table.geoIndex != nil { try removeFromGeoIndex(write, table, key) }
        if !table.links.isEmpty || !table.mixedProperties.isEmpty || table.backlinks != nil { try Links.deleting(self, write, table, key) }
        if !table.lists.isEmpty { try deletingLists(write, table, key) }
        if !table.sets.isEmpty { try deletingSets(write, table, key) }
        if !table.maps.isEmpty { try deletingMaps(write, table, key) }
        if let pk = table.primaryKey {
            try deletePrimaryKey(write, table, try slotValue(table, pk, key))
        }
        for property in table.objectClass.properties where property.isIndexed && !property.isPrimaryKey {
            try deleteIndexEntry(write, table, property, try slotValue(table, property, key), key)
        }
        for property in table.objectClass.properties where property.isFullTextIndexed {
            try deleteFullText(write, table, property, try slotValue(table, property, key), key)
        }
        let cluster = ClusterLayout.cluster(of: key)
        let presence = try dirtyChunk(write, table, column: 0, type: nil, cluster: cluster)
        presence.setBit(ClusterLayout.slot(of: key), false)
        let state = write.classWrite(table.key)
        state.touch(cluster)
        state.objectCountDelta -= 1
    }

    /// Delete every object of one class.
    public func deleteAll(table tableKey: UInt32) throws(FiefError) {
        let write = try requireWrite()
        let table = try table(tableKey)
        do throws(FiefError) {
            try emptyTable(write, table)
        } catch {
            throw poison(write, error)
        }
        noteMembershipChange(table.key)
    }

    /// Delete every object of every class.
    public func deleteAll() throws(FiefError) {
        let write = try requireWrite()
        do throws(FiefError) {
            for key in tables.keys { try emptyTable(write, try table(key)) }
        } catch {
            throw poison(write, error)
        }
        bumpStamp()
    }

    private func emptyTable(_ write: WriteTransaction, _ table: Table) throws(FiefError) {
        if !table.links.isEmpty || !table.mixedProperties.isEmpty || table.backlinks != nil { try Links.emptying(self, write, table) }
        if !table.lists.isEmpty { try emptyingLists(write, table) }
        if !table.sets.isEmpty { try emptyingSets(write, table) }
        if !table.maps.isEmpty { try emptyingMaps(write, table) }
        write.closeCursors()
        try LMDB.check(mdb_drop(write.txn, table.data, 0), "deleting objects")
        if let pk = table.primaryKeyDatabase { try LMDB.check(mdb_drop(write.txn, pk, 0), "deleting objects") }
        for dbi in table.indexDatabases.values { try LMDB.check(mdb_drop(write.txn, dbi, 0), "deleting objects") }
        for dbi in table.fullTextDatabases.values { try LMDB.check(mdb_drop(write.txn, dbi, 0), "deleting objects") }
        if let geo = table.geoIndex { try LMDB.check(mdb_drop(write.txn, geo.database, 0), "deleting objects") }
        write.dirty.filter { $0.table != table.key }
        write.clean.filter { $0.table != table.key }
        write.classWrite(table.key).empty()
    }
}
