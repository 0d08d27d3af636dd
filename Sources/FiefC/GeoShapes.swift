import CFief
import FiefEngine
import FiefStorage

/// Shapes passed as query arguments (FIEF_TYPE_GEO_SHAPE, fief_geo_shape_t)
/// read into the engine's `GeoShape`.  The geometry itself is checked by the
/// engine when the query binds the shape.
enum GeoShapeBridge {
    /// The shape argument `values` hold (nil when the argument holds no
    /// shape); a shape in a list argument is a `.queryArgument` error.
    static func shapeArgument(_ values: UnsafeBufferPointer<fief_value_t>, isList: Bool, _ name: String) throws(FiefError) -> GeoShape? {
        guard let index = values.firstIndex(where: { $0.type == FIEF_TYPE_GEO_SHAPE }) else { return nil }
        guard !isList else {
            throw FiefError(.queryArgument, "\(name).values[\(index)] is a geospatial shape: a shape is an argument of its own (is_list false, one value), not an element of a list")
        }
        guard let pointer = values[index].u.geo_shape else {
            throw FiefError(.invalidArgument, "\(name).values[0].u.geo_shape is NULL")
        }
        return try shape(pointer.pointee, "\(name).values[0].u.geo_shape")
    }

    /// `s` as an engine shape, its points copied.
    static func shape(_ s: fief_geo_shape_t, _ name: String) throws(FiefError) -> GeoShape {
        switch s.kind {
        case FIEF_GEO_BOX:
            return .box(point(s.corners.0), point(s.corners.1))
        case FIEF_GEO_CIRCLE:
            return .circle(point(s.center), radians: s.radius)
        case FIEF_GEO_POLYGON:
            let rings = try CArgs.array(s.rings, s.num_rings, "\(name)->rings", count: "\(name)->num_rings")
            var read: [[GeoPoint]] = []
            read.reserveCapacity(rings.count)
            for (i, ring) in rings.enumerated() {
                let points = try CArgs.array(ring.points, ring.count, "\(name)->rings[\(i)].points", count: "\(name)->rings[\(i)].count")
                read.append(points.map(point))
            }
            return .polygon(read)
        default:
            throw FiefError(.invalidArgument, "\(name)->kind is \(s.kind): not FIEF_GEO_BOX, FIEF_GEO_POLYGON or FIEF_GEO_CIRCLE")
        }
    }

    private static func point(_ p: fief_geo_point_t) -> GeoPoint {
        GeoPoint(longitude: p.longitude, latitude: p.latitude)
    }
}
