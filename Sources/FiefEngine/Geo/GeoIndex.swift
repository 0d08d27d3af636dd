import CLMDB
import FiefStorage

// The spatial index of GEOWITHIN: one LMDB database per embedded class
// shaped as a GeoJSON point (a string `type`, a list of doubles
// `coordinates`: `ObjectClass.geoIndexedProperties`), named
// `c<class>.g<coordinates>` (`Table.geoIndexName`), kept by every write in
// the write's own transaction.  It holds two kinds of entries:
//
//     point   key    0x01, cell (8, big-endian), object key (8, big-endian)
//             value  owner class (4), owner property (4), owner object (8),
//                    unit vector x, y, z (3 doubles)            40 bytes
//     object  key    0x00, object key (8, big-endian)
//             value  its cell (8)
//
// An object has both entries exactly when it is a point: its `type` says
// "Point" (any case) and its first two coordinates are a longitude and a
// latitude in range (realm-core's rule; `GeoCoordinates`).  The cell is
// the point's Z-order (Morton) code at 31 bits per axis: longitude and
// latitude each cut into 2^31 steps, their bits interleaved (longitude in
// the even bits), so nearby points have nearby keys and a lon/lat
// rectangle is a few ranges of keys.  The object entry finds the point
// entry of an object whose point changes or goes; the owner (the object
// whose link, list or map holds the embedded point, fixed for the point's
// life) lets `location GEOWITHIN ...` answer owners without a backlink;
// the unit vector lets the exact test run without trigonometry.
//
// A query covers its region's longitude/latitude rectangle
// (`GeoRegion.coveringRectangle`, split at the antimeridian) with cell
// ranges (`GeoCells.cover`: quadrants whole inside the rectangle are one
// range, those on its border are cut down to a size tied to the
// rectangle's, so a query makes at most a few hundred seeks), walks the
// ranges reading entries in place (a snapshot's tree straight from the
// memory map, `GeoIndexPages`; a write transaction's with one cursor,
// `forEachCandidate` below), and tests only those candidates exactly
// (`GeoRegion.contains(vector:)`).  A quadrant inside
// the rectangle is first asked how it lies in the region itself
// (`GeoRegion.relation`, conservative): wholly inside, its range is marked
// `whole` and its points are taken without the exact test; wholly
// outside, it is not read.

/// Z-order cells of longitude/latitude points.
enum GeoCells {
    /// Bits per axis.
    static let bits = 31
    static let steps = Double(1 << 31)
    static let maxStep: UInt32 = (1 << 31) - 1

    @inline(__always)
    static func step(longitude: Double) -> UInt32 {
        let s = ((longitude + 180) / 360 * steps).rounded(.down)
        return s <= 0 ? 0 : (s >= Double(maxStep) ? maxStep : UInt32(s))
    }

    @inline(__always)
    static func step(latitude: Double) -> UInt32 {
        let s = ((latitude + 90) / 180 * steps).rounded(.down)
        return s <= 0 ? 0 : (s >= Double(maxStep) ? maxStep : UInt32(s))
    }

    /// The bits of `v` moved to the even positions.
    @inline(__always)
    static func spread(_ v: UInt32) -> UInt64 {
        var x = UInt64(v)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | (x << 2)) & 0x3333_3333_3333_3333
        x = (x | (x << 1)) & 0x5555_5555_5555_5555
        return x
    }

    @inline(__always)
    static func cell(x: UInt32, y: UInt32) -> UInt64 { spread(x) | (spread(y) << 1) }

    /// The cell of a point in range.
    @inline(__always)
    static func cell(longitude: Double, latitude: Double) -> UInt64 {
        cell(x: step(longitude: longitude), y: step(latitude: latitude))
    }

    /// A range of cells (inclusive) and whether every point of its cells
    /// is inside the region (`whole`: no exact test needed).
    struct Range: Equatable {
        var cells: ClosedRange<UInt64>
        var whole: Bool
    }

    /// Degrees per step.
    static let longitudeStep = 360 / steps
    static let latitudeStep = 180 / steps

    /// Ascending, disjoint ranges of cells (inclusive) holding every cell
    /// of the steps `x`, `y` (inclusive ranges), appended to `ranges`
    /// (merged with its last range when adjacent and alike).  With
    /// `region`: a quadrant inside the rectangle is asked how it lies in
    /// the region (`GeoRegion.relation`): wholly inside, it is one range
    /// marked `whole`; wholly outside, it is left out; otherwise it is cut
    /// further, down to the border cells' size.
    static func cover(x: ClosedRange<UInt32>, y: ClosedRange<UInt32>, region: GeoRegion? = nil, into ranges: inout [Range]) {
        // The region is captured once: binding it per quadrant would copy it
        // (and retain its rings) at every step of the recursion.
        if let region {
            cover(x: x, y: y, classify: { region.relation(west: $0, east: $1, south: $2, north: $3) }, hasRegion: true, into: &ranges)
        } else {
            cover(x: x, y: y, classify: { _, _, _, _ in .crossing }, hasRegion: false, into: &ranges)
        }
    }

    private static func cover(x: ClosedRange<UInt32>, y: ClosedRange<UInt32>, classify: (Double, Double, Double, Double) -> GeoCellRelation,
                              hasRegion: Bool, into ranges: inout [Range]) {
        // Border cells are cut down to about 1/64 of the rectangle's half
        // perimeter: at most a few hundred ranges, and candidates outside
        // the rectangle on the order of a tenth of it.
        let halfPerimeter = UInt64(x.upperBound - x.lowerBound) + UInt64(y.upperBound - y.lowerBound) + 2
        let side = max(1, halfPerimeter / 64)
        let sideBits = 64 - (side - 1).leadingZeroBitCount    // 2^sideBits >= side
        let maxDepth = max(0, bits - min(bits, side == 1 ? 0 : sideBits))
        func emit(_ cx: UInt32, _ cy: UInt32, _ shift: Int, whole: Bool) {
            let first = cell(x: cx, y: cy) << (2 * shift)
            let last = first + ((1 << (2 * UInt64(shift))) - 1)
            if let previous = ranges.last, previous.cells.upperBound &+ 1 == first, previous.whole == whole {
                ranges[ranges.count - 1].cells = previous.cells.lowerBound...last
            } else {
                ranges.append(Range(cells: first...last, whole: whole))
            }
        }
        func visit(_ depth: Int, _ cx: UInt32, _ cy: UInt32) {
            let shift = bits - depth
            let lowX = UInt64(cx) << shift, highX = lowX + (1 << shift) - 1
            let lowY = UInt64(cy) << shift, highY = lowY + (1 << shift) - 1
            if highX < x.lowerBound || lowX > x.upperBound || highY < y.lowerBound || lowY > y.upperBound { return }
            let inside = lowX >= x.lowerBound && highX <= x.upperBound && lowY >= y.lowerBound && highY <= y.upperBound
            if inside && hasRegion {
                // The quadrant's points, as degrees: steps lowX...highX hold
                // longitudes from lowX's start to the end of highX (180
                // included in the last step).
                let relation = classify(Double(lowX) * longitudeStep - 180, Double(highX + 1) * longitudeStep - 180,
                                        Double(lowY) * latitudeStep - 90, Double(highY + 1) * latitudeStep - 90)
                switch relation {
                case .inside: emit(cx, cy, shift, whole: true); return
                case .outside: return
                case .crossing: break
                }
                if depth >= maxDepth { emit(cx, cy, shift, whole: false); return }
            } else if inside || depth >= maxDepth {
                emit(cx, cy, shift, whole: false)
                return
            }
            for child in 0..<4 as Swift.Range<UInt32> {
                visit(depth + 1, cx << 1 | (child & 1), cy << 1 | (child >> 1))
            }
        }
        visit(0, 0, 0)
    }

    /// Ascending, disjoint ranges of cells (inclusive) holding every cell
    /// of the steps `x`, `y` (inclusive ranges), appended to `ranges`.
    static func cover(x: ClosedRange<UInt32>, y: ClosedRange<UInt32>, into ranges: inout [ClosedRange<UInt64>]) {
        var marked: [Range] = []
        cover(x: x, y: y, into: &marked)
        for range in marked {
            if let previous = ranges.last, previous.upperBound &+ 1 == range.cells.lowerBound {
                ranges[ranges.count - 1] = previous.lowerBound...range.cells.upperBound
            } else {
                ranges.append(range.cells)
            }
        }
    }

    /// The cell ranges holding every point of `rectangle` (ascending, disjoint).
    static func ranges(_ rectangle: GeoRectangle) -> [ClosedRange<UInt64>] {
        covering(rectangle, region: nil).map(\.cells)
    }

    /// The cell ranges holding every point of `region` inside its covering
    /// rectangle (ascending, disjoint), those whose every point is inside
    /// the region marked `whole`.
    static func ranges(_ region: GeoRegion) -> [Range] {
        covering(region.coveringRectangle, region: region)
    }

    private static func covering(_ rectangle: GeoRectangle, region: GeoRegion?) -> [Range] {
        let y = step(latitude: rectangle.minimumLatitude)...step(latitude: rectangle.maximumLatitude)
        var ranges: [Range] = []
        func part(_ west: Double, _ east: Double) {
            var part: [Range] = []
            cover(x: step(longitude: west)...step(longitude: east), y: y, region: region, into: &part)
            ranges = merge(ranges, part)
        }
        if rectangle.isFullLongitude {
            part(-180, 180)
        } else if rectangle.west < -180 {
            part(-180, rectangle.east)
            part(rectangle.west + 360, 180)
        } else if rectangle.east > 180 {
            part(-180, rectangle.east - 360)
            part(rectangle.west, 180)
        } else {
            part(rectangle.west, rectangle.east)
        }
        return ranges
    }

    /// Two ascending lists of disjoint ranges as one: adjacent ranges alike
    /// are joined, overlapping ones too (then `whole` only when both are).
    private static func merge(_ a: [Range], _ b: [Range]) -> [Range] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var all = (a + b).sorted { $0.cells.lowerBound < $1.cells.lowerBound }
        var merged: [Range] = [all.removeFirst()]
        for range in all {
            let last = merged[merged.count - 1]
            if range.cells.lowerBound <= last.cells.upperBound {
                // Overlapping (parts of a rectangle nearly all the way round): tested point by point.
                merged[merged.count - 1] = Range(cells: last.cells.lowerBound...max(last.cells.upperBound, range.cells.upperBound), whole: false)
            } else if range.cells.lowerBound == last.cells.upperBound &+ 1 && range.whole == last.whole {
                merged[merged.count - 1].cells = last.cells.lowerBound...range.cells.upperBound
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

/// A point of the index: where it is, and who owns it.
struct GeoIndexEntry: Equatable {
    var cell: UInt64
    var object: Int64
    var ownerClass: UInt32
    var ownerProperty: UInt32
    var owner: Int64
    var vector: SphereVector

    static let pointKeyBytes = 17
    static let objectKeyBytes = 9
    static let valueBytes = 40

    init(object: Int64, longitude: Double, latitude: Double, ownerClass: UInt32, ownerProperty: UInt32, owner: Int64) {
        self.cell = GeoCells.cell(longitude: longitude, latitude: latitude)
        self.object = object
        self.ownerClass = ownerClass
        self.ownerProperty = ownerProperty
        self.owner = owner
        self.vector = SphereVector(longitude: longitude, latitude: latitude)
    }

    /// A point entry as stored (nil: not one).
    init?(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard key.count == Self.pointKeyBytes, key[0] == 1, value.count == Self.valueBytes else { return nil }
        cell = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        object = Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 9, as: UInt64.self)))
        ownerClass = value.loadUnaligned(as: UInt32.self)
        ownerProperty = value.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        owner = value.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        vector = GeoIndexEntry.vector(value)
    }

    @inline(__always)
    static func vector(_ value: UnsafeRawBufferPointer) -> SphereVector {
        SphereVector(x: value.loadUnaligned(fromByteOffset: 16, as: Double.self), y: value.loadUnaligned(fromByteOffset: 24, as: Double.self),
                     z: value.loadUnaligned(fromByteOffset: 32, as: Double.self))
    }

    @inline(__always)
    static func pointKey(_ out: UnsafeMutableRawPointer, cell: UInt64, object: Int64) {
        out.storeBytes(of: 1, as: UInt8.self)
        (out + 1).storeBytes(of: cell.bigEndian, as: UInt64.self)
        (out + 9).storeBytes(of: UInt64(bitPattern: object).bigEndian, as: UInt64.self)
    }

    @inline(__always)
    static func objectKey(_ out: UnsafeMutableRawPointer, object: Int64) {
        out.storeBytes(of: 0, as: UInt8.self)
        (out + 1).storeBytes(of: UInt64(bitPattern: object).bigEndian, as: UInt64.self)
    }

    func storeValue(_ out: UnsafeMutableRawPointer) {
        out.storeBytes(of: ownerClass, as: UInt32.self)
        (out + 4).storeBytes(of: ownerProperty, as: UInt32.self)
        (out + 8).storeBytes(of: owner, as: Int64.self)
        (out + 16).storeBytes(of: vector.x, as: Double.self)
        (out + 24).storeBytes(of: vector.y, as: Double.self)
        (out + 32).storeBytes(of: vector.z, as: Double.self)
    }
}

/// The first coordinates of a GeoJSON point, read element by element.
struct GeoCoordinates {
    var longitude = Double.nan
    var latitude = Double.nan
    /// Elements read (at most the three realm-core reads).
    var count = 0
    /// A null element: no point.
    var sawNull = false

    @inline(__always)
    mutating func add(_ value: Value) {
        switch value {
        case .double(let d):
            if count == 0 { longitude = d } else if count == 1 { latitude = d }
        default:
            if count < 2 { sawNull = true }
        }
        count += 1
    }

    /// A longitude and a latitude, in range (NaN is out of range).
    var isPoint: Bool { count >= 2 && !sawNull && abs(longitude) <= 180 && abs(latitude) <= 90 }
}

/// Reading and writing a spatial index database.
enum GeoIndex {
    /// Add `entry` (the object has no entry).
    static func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ entry: GeoIndexEntry) throws(FiefError) {
        var key = (UInt64(0), UInt64(0), UInt64(0))
        var value = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var cell = entry.cell
        try withUnsafeMutableBytes(of: &key) { (k) throws(FiefError) in
            try withUnsafeMutableBytes(of: &value) { (v) throws(FiefError) in
                GeoIndexEntry.pointKey(k.baseAddress!, cell: entry.cell, object: entry.object)
                entry.storeValue(v.baseAddress!)
                _ = try LMDB.put(txn, dbi, UnsafeRawBufferPointer(rebasing: k[0..<GeoIndexEntry.pointKeyBytes]),
                                 UnsafeRawBufferPointer(rebasing: v[0..<GeoIndexEntry.valueBytes]))
                GeoIndexEntry.objectKey(k.baseAddress!, object: entry.object)
                try withUnsafeBytes(of: &cell) { (c) throws(FiefError) in
                    _ = try LMDB.put(txn, dbi, UnsafeRawBufferPointer(rebasing: k[0..<GeoIndexEntry.objectKeyBytes]), c)
                }
            }
        }
    }

    /// Remove object `object`'s entries, if it has any.
    static func remove(_ txn: OpaquePointer, _ dbi: MDB_dbi, object: Int64) throws(FiefError) {
        var key = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &key) { (k) throws(FiefError) in
            GeoIndexEntry.objectKey(k.baseAddress!, object: object)
            let objectKey = UnsafeRawBufferPointer(rebasing: k[0..<GeoIndexEntry.objectKeyBytes])
            guard let found = try LMDB.get(txn, dbi, objectKey) else { return }
            guard found.count == 8 else {
                throw FiefError(.fileCorrupt, "a spatial index entry of object \(object) is damaged (\(found.count) bytes, not 8)")
            }
            let cell = found.loadUnaligned(as: UInt64.self)
            try LMDB.delete(txn, dbi, objectKey)
            GeoIndexEntry.pointKey(k.baseAddress!, cell: cell, object: object)
            try LMDB.delete(txn, dbi, UnsafeRawBufferPointer(rebasing: k[0..<GeoIndexEntry.pointKeyBytes]))
        }
    }

    /// Call `body` with each point entry whose cell lies in `ranges`
    /// (ascending), read in place: the object, its owner and its unit
    /// vector.  Between two ranges the cursor steps over a few entries of
    /// the gap before it seeks (a step costs far less than a seek).
    static func forEachCandidate(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ ranges: [GeoCells.Range],
                                 _ body: (_ object: Int64, _ value: UnsafeRawBufferPointer, _ whole: Bool) -> Void) throws(FiefError) {
        let cursor = try LMDBCursor(txn, dbi)
        var key = (UInt64(0), UInt64(0), UInt64(0))
        try withUnsafeMutableBytes(of: &key) { (k) throws(FiefError) in
            var mk = MDB_val(), mv = MDB_val()
            var rc: Int32 = MDB_NOTFOUND
            var positioned = false   // the cursor is on a point entry of cell `cell`
            var cell: UInt64 = 0
            @inline(__always) func read() throws(FiefError) {
                guard mk.mv_size == GeoIndexEntry.pointKeyBytes, mv.mv_size == GeoIndexEntry.valueBytes else {
                    throw FiefError(.fileCorrupt, "a spatial index entry is damaged (a key of \(mk.mv_size) bytes, a value of \(mv.mv_size))")
                }
                cell = UInt64(bigEndian: UnsafeRawPointer(mk.mv_data).loadUnaligned(fromByteOffset: 1, as: UInt64.self))
            }
            for marked in ranges {
                let range = marked.cells, whole = marked.whole
                if positioned && cell < range.lowerBound {
                    var steps = 0
                    while rc == 0 && cell < range.lowerBound && steps < 8 {
                        rc = mdb_cursor_get(cursor.pointer, &mk, &mv, MDB_NEXT)
                        if rc == 0 { try read() }
                        steps += 1
                    }
                    if rc != 0 { break }
                }
                if !positioned || cell < range.lowerBound {
                    GeoIndexEntry.pointKey(k.baseAddress!, cell: range.lowerBound, object: 0)
                    mk = LMDB.val(UnsafeRawBufferPointer(rebasing: k[0..<GeoIndexEntry.pointKeyBytes]))
                    rc = mdb_cursor_get(cursor.pointer, &mk, &mv, MDB_SET_RANGE)
                    if rc != 0 { break }
                    try read()
                    positioned = true
                }
                while cell <= range.upperBound {
                    let object = Int64(bitPattern: UInt64(bigEndian: UnsafeRawPointer(mk.mv_data).loadUnaligned(fromByteOffset: 9, as: UInt64.self)))
                    body(object, UnsafeRawBufferPointer(start: mv.mv_data, count: GeoIndexEntry.valueBytes), whole)
                    rc = mdb_cursor_get(cursor.pointer, &mk, &mv, MDB_NEXT)
                    if rc != 0 { break }
                    try read()
                }
                if rc != 0 { break }
            }
            if rc != 0 && rc != MDB_NOTFOUND { try LMDB.check(rc, "reading a spatial index") }
        }
    }

    // MARK: From scratch

    /// Every point of class `objectClass` (embedded, GeoJSON-shaped) as its
    /// stored data has it, in object key order, read straight from `txn`:
    /// the `type` chunks, the `coordinates` segments (one cursor walk) and
    /// the class's backlinks (its points' owners).  What `build` indexes
    /// and `fief verify` compares the index with.
    static func points(_ txn: OpaquePointer, data: MDB_dbi, list: MDB_dbi, backlinks: MDB_dbi?, objectClass: ObjectClass,
                       type: Property, coordinates: Property) throws(FiefError) -> [GeoIndexEntry] {
        func damaged(_ what: String) -> FiefError {
            FiefError(.fileCorrupt, "class '\(objectClass.name)': \(what) fails its checksum or layout check")
        }
        // Objects typed "Point", by cluster.
        let tables = ChunkPartTables()
        var typed: [Int64: Bitmap] = [:]
        let presenceCursor = try LMDBCursor(txn, data)
        var entry = try presenceCursor.seek(integerKey: ClusterLayout.columnStart(ClusterLayout.presenceColumn))
        while let (chunkKey, presenceBytes) = entry, chunkKey < ClusterLayout.columnStart(1) {
            let cluster = ClusterLayout.cluster(ofChunkKey: chunkKey)
            guard let presenceBody = ChunkCheck.verified(presenceBytes, table: objectClass.key, key: chunkKey, type: nil) else {
                throw damaged("a stored chunk (key \(chunkKey))")
            }
            let presence = ChunkReader(presenceBody)
            guard let column = try ChunkParts.read(txn, data, table: objectClass.key, column: type.key, cluster: cluster,
                                                   type: type.type, bounds: nil, tables: tables) else {
                throw damaged("a stored chunk (key \(ClusterLayout.chunkKey(column: type.key, cluster: cluster)))")
            }
            var bits = Bitmap(repeating: 0)
            for slot in 0..<ClusterLayout.slots where presence.bit(slot) {
                if case .string(let bytes) = column.value(slot, type: .string, nullable: type.isNullable), GeoPoint.isGeoJSONPointType(utf8: bytes) {
                    QueryEvaluator.set(&bits, slot)
                }
            }
            if bits != Bitmap(repeating: 0) { typed[cluster] = bits }
            entry = try presenceCursor.next().map { ($0.key.loadUnaligned(as: UInt64.self), $0.value) }
        }
        // Their first coordinates.
        var found: [(Int64, Double, Double)] = []
        let cursor = try LMDBCursor(txn, list)
        var segment = try cursor.move(MDB_FIRST)
        var owner: Int64 = -1
        var point = GeoCoordinates()
        func finish() {
            if owner >= 0, point.isPoint { found.append((owner, point.longitude, point.latitude)) }
        }
        while let (k, v) = segment {
            guard let decoded = ListStore.decodeKey(k) else { throw damaged("a stored segment key of 'coordinates'") }
            if decoded.owner != owner {
                finish()
                owner = decoded.owner
                point = GeoCoordinates()
                let slot = ClusterLayout.slot(of: owner)
                if let bits = typed[ClusterLayout.cluster(of: owner)], bits[slot >> 6] & (1 << UInt64(slot & 63)) != 0 {} else { point.count = 3 }
            }
            if point.count < 3 {
                guard let reader = SegmentReader(v, type: .double, table: objectClass.key,
                                                 key: ListStore.checkKey(column: coordinates.key, owner: owner, position: decoded.position)) else {
                    throw damaged("a stored segment of 'coordinates' of object \(owner)")
                }
                var i = 0
                while i < reader.count && point.count < 3 {
                    point.add(reader.value(i))
                    i += 1
                }
            }
            segment = try cursor.next()
        }
        finish()
        // Their owners (one per embedded object).
        var owners: [Int64: (UInt32, UInt32, Int64)] = [:]
        if let backlinks, !found.isEmpty {
            owners.reserveCapacity(found.count)
            try Backlinks.forEachRecord(txn, backlinks) { (target, originClass, property, origin, _) throws(FiefError) in
                if owners[target] == nil { owners[target] = (originClass, property, origin) }
            }
        }
        return found.map { (object, longitude, latitude) in
            let (ownerClass, ownerProperty, ownerKey) = owners[object] ?? (0, 0, 0)
            return GeoIndexEntry(object: object, longitude: longitude, latitude: latitude, ownerClass: ownerClass,
                                 ownerProperty: ownerProperty, owner: ownerKey)
        }
    }

    /// Build the spatial index of `objectClass` (an embedded GeoJSON point
    /// class) from scratch in `txn`: the database is made or emptied, then
    /// every point of the stored data is added.  What a writable open runs
    /// for a file without it (an older file, a class that just became
    /// GeoJSON-shaped), what `fief copy` runs, and what a format upgrade
    /// can call.  The class's data, list and backlinks databases are
    /// opened (without creating) by name.
    static func build(_ txn: OpaquePointer, environment: Environment, objectClass: ObjectClass) throws(FiefError) {
        guard let (type, coordinates) = objectClass.geoIndexedProperties else { return }
        // Handles opened in `txn` itself: one the environment opened in a
        // transaction of its own after `txn` began would be unusable here.
        func open(_ name: String, _ flags: Int32) throws(FiefError) -> MDB_dbi? {
            var dbi: MDB_dbi = 0
            let rc = mdb_dbi_open(txn, name, UInt32(flags), &dbi)
            if rc == MDB_NOTFOUND { return nil }
            try LMDB.check(rc, "opening database '\(name)'", path: environment.path)
            return dbi
        }
        guard let dbi = try open(Table.geoIndexName(objectClass.key, coordinates.key), MDB_CREATE) else { return }
        try LMDB.check(mdb_drop(txn, dbi, 0), "emptying a spatial index", path: environment.path)
        guard let data = try open(Table.dataName(objectClass.key), MDB_INTEGERKEY),
              let listName = Table.collectionName(objectClass.key, coordinates),
              let list = try open(listName, 0) else { return }
        let backlinks = try open(Table.backlinksName(objectClass.key), 0)
        let entries = try points(txn, data: data, list: list, backlinks: backlinks, objectClass: objectClass, type: type, coordinates: coordinates)
        for entry in entries { try put(txn, dbi, entry) }
    }
}

extension Realm {
    // MARK: Maintaining the index

    /// Bring object `key`'s entries in `table`'s spatial index in line with
    /// its data (after its `type` or its `coordinates` changed; `list`: its
    /// coordinates, when the caller has them).
    func refreshGeoIndex(_ write: WriteTransaction, _ table: Table, _ key: Int64, coordinates list: ListState? = nil) throws(FiefError) {
        guard let geo = table.geoIndex else { return }
        try GeoIndex.remove(write.txn, geo.database, object: key)
        guard case .string(let type) = try slotValue(table, geo.type, key), GeoPoint.isGeoJSONPointType(utf8: type) else { return }
        let state: ListState
        if let list {
            state = list
        } else {
            // An empty list not loaded in this transaction holds no point:
            // no list state is made for it (a type written before the coordinates).
            let column = try table.column(geo.coordinates.key)
            if write.lists[ListID(table: table.key, column: column.key, owner: key)] == nil, try storedListSize(table, column, key) == 0 { return }
            state = try listState(table, column, owner: key)
        }
        var point = GeoCoordinates()
        var i = 0
        while i < min(3, state.count) {
            point.add(try state.value(i, table: table))
            i += 1
        }
        guard point.isPoint else { return }
        var owner: (UInt32, UInt32, Int64) = (0, 0, 0)
        if let backlinks = table.backlinks {
            var found = false
            try Backlinks.forEach(write, backlinks, target: key) { (originClass, property, origin, _) throws(FiefError) in
                if !found { owner = (originClass, property, origin); found = true }
            }
        }
        try GeoIndex.put(write.txn, geo.database, GeoIndexEntry(object: key, longitude: point.longitude, latitude: point.latitude,
                                                                ownerClass: owner.0, ownerProperty: owner.1, owner: owner.2))
    }

    /// Object `key` of `table` is being deleted: its point leaves the index.
    func removeFromGeoIndex(_ write: WriteTransaction, _ table: Table, _ key: Int64) throws(FiefError) {
        guard let geo = table.geoIndex else { return }
        try GeoIndex.remove(write.txn, geo.database, object: key)
    }
}
