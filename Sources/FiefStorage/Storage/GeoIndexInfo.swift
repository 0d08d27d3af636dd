import CLMDB

/// The embedded GeoJSON point class's index, as a table holds it.
public struct GeoIndexInfo {
    public let database: MDB_dbi
    public let type: Property
    public let coordinates: Property
}

extension ObjectClass {
    /// The properties a spatial index reads, for an embedded class shaped
    /// as a GeoJSON point (which is then indexed); nil for other classes.
    public var geoIndexedProperties: (type: Property, coordinates: Property)? {
        guard isEmbedded else { return nil }
        return geoJSONPointProperties
    }
}

extension Table {
    public static func geoIndexName(_ key: UInt32, _ coordinates: UInt32) -> String { "c\(key).g\(coordinates)" }
}

extension ObjectClass {
    /// The `type` (string) and `coordinates` (list of doubles) properties
    /// that make objects of this class readable as GeoJSON points, or nil
    /// when the class lacks either.  GEOWITHIN also requires the class to be
    /// embedded; that check, and its own error, belong to the caller.
    public var geoJSONPointProperties: (type: Property, coordinates: Property)? {
        guard let type = property(named: "type"), type.type == .string, type.collection == .none,
              let coordinates = property(named: "coordinates"),
              coordinates.type == .double, coordinates.collection == .list
        else { return nil }
        return (type, coordinates)
    }
}
