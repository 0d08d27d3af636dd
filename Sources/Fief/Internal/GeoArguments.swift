// Geospatial shapes as query arguments: a `GeoBox`, `GeoPolygon` or
// `GeoCircle` passed to `filter("location GEOWITHIN %@", shape)` (or RealmSwift's
// `filter("location IN %@", shape)`) becomes a FIEF_TYPE_GEO_SHAPE value
// pointing at a fief_geo_shape_t, both in the call's arena.

import CFief

/// The FIEF_TYPE_GEO_SHAPE value of `shape`, or nil when it is no shape.
/// What the value points to lives as long as `arena`.
func fiefGeoShapeValue(_ shape: Any, arena: _FiefArena) -> fief_value_t? {
    var geo = fief_geo_shape_t()
    func point(_ p: GeoPoint) -> fief_geo_point_t { fief_geo_point_t(longitude: p.longitude, latitude: p.latitude) }
    switch shape {
    case let box as GeoBox:
        geo.kind = FIEF_GEO_BOX
        geo.corners = (point(box.bottomLeft), point(box.topRight))
    case let circle as GeoCircle:
        geo.kind = FIEF_GEO_CIRCLE
        geo.center = point(circle.center)
        geo.radius = circle.radians
    case let polygon as GeoPolygon:
        let rings = [polygon.outerRing] + (polygon.holes ?? [])
        let ringArray = rings.map { ring in fief_geo_ring_t(points: arena.array(ring.map(point)), count: ring.count) }
        geo.kind = FIEF_GEO_POLYGON
        geo.rings = arena.array(ringArray)
        geo.num_rings = ringArray.count
    default:
        return nil
    }
    var value = fief_value_t()
    value.type = FIEF_TYPE_GEO_SHAPE
    value.u.geo_shape = arena.array([geo])
    return value
}
