// An invalid shape given to GEOWITHIN, named as RealmSwift names it.
//
// RealmSwift traps with realm-core's text: "Invalid region in GEOWITHIN
// query for parameter '<shape>': '<reason>'", the shape printed as
// realm-core prints geospatial values (`GeoPolygon({[lon, lat, alt], ...},
// {...})`, a box as the polygon of its corners without altitudes,
// `GeoCircle([lon, lat, alt], radians)`, numbers as C++ streams print them:
// six significant digits).  The library names the shape argument in the
// query language's notation and its position; the overlay, which has the
// shape, writes the parameter in realm-core's notation around the
// library's reason.

import Foundation

/// RealmSwift's trap message for the library's "Invalid region in
/// GEOWITHIN" error `message` about one of `arguments`, or nil when
/// `message` is not one or names no shape argument.
func fiefGeoRegionMessage(_ message: String, arguments: [Any]) -> String? {
    let prefix = "Invalid region in GEOWITHIN query for parameter '"
    guard let start = message.range(of: prefix) else { return nil }
    let rest = message[start.upperBound...]
    guard let parameterEnd = rest.firstIndex(of: "'") else { return nil }
    let tail = rest[parameterEnd...]
    guard let argument = tail.range(of: "' (argument "), argument.lowerBound == tail.startIndex,
          let close = tail[argument.upperBound...].firstIndex(of: ")"),
          let n = Int(tail[argument.upperBound..<close]), n >= 0, n < arguments.count,
          let reasonStart = tail[close...].range(of: ": '"),
          let shape = fiefRealmCoreGeoText(fiefUnwrap(arguments[n])) else { return nil }
    var reason = tail[reasonStart.upperBound...]
    if reason.hasSuffix("'") { reason = reason.dropLast() }
    return "Invalid region in GEOWITHIN query for parameter '\(shape)': '\(reason)'"
}

/// `shape` as realm-core prints it in errors, or nil if it is no shape.
func fiefRealmCoreGeoText(_ shape: Any?) -> String? {
    func number(_ x: Double) -> String { String(format: "%g", x) }
    func point(_ p: GeoPoint) -> String { "[\(number(p.longitude)), \(number(p.latitude)), \(number(p.altitude))]" }
    func ring(_ points: [String]) -> String { "{" + points.joined(separator: ", ") + "}" }
    switch shape {
    case let polygon as GeoPolygon:
        let rings = [polygon.outerRing] + (polygon.holes ?? [])
        return "GeoPolygon(" + rings.map { ring($0.map(point)) }.joined(separator: ", ") + ")"
    case let box as GeoBox:
        // realm-core's box corners carry no altitude.
        let (lo, hi) = (box.bottomLeft, box.topRight)
        let corners = [(lo.longitude, lo.latitude), (lo.longitude, hi.latitude), (hi.longitude, hi.latitude),
                       (hi.longitude, lo.latitude), (lo.longitude, lo.latitude)]
        return "GeoPolygon(" + ring(corners.map { "[\(number($0.0)), \(number($0.1))]" }) + ")"
    case let circle as GeoCircle:
        return "GeoCircle(\(point(circle.center)), \(number(circle.radians)))"
    default:
        return nil
    }
}
