import CLMDB

/// The embedded GeoJSON point class's index, as a table holds it.
struct GeoIndexInfo {
    let database: MDB_dbi
    let type: Property
    let coordinates: Property
}

extension ObjectClass {
    /// The properties a spatial index reads, for an embedded class shaped
    /// as a GeoJSON point (which is then indexed); nil for other classes.
    var geoIndexedProperties: (type: Property, coordinates: Property)? {
        guard isEmbedded else { return nil }
        return geoJSONPointProperties
    }
}

extension Table {
    static func geoIndexName(_ key: UInt32, _ coordinates: UInt32) -> String { "c\(key).g\(coordinates)" }
}
