"""Geospatial shapes for ``GEOWITHIN`` queries.

Points are stored as embedded objects shaped as GeoJSON points: a ``type``
string ("Point") and a list of float ``coordinates``, longitude first::

    class Position(fief.EmbeddedObject):
        type: str = "Point"
        coordinates: list[float]          # [longitude, latitude]

    class Restaurant(fief.Object):
        name: str = ""
        location: Optional[Position] = None

    box = fief.GeoBox((-122.7, 47.3), (-122.1, 48.1))        # (longitude, latitude) corners
    near = realm.objects(Restaurant).filter("location GEOWITHIN $0", box)

A shape is passed as a query argument (``$0`` or ``%@``); ``str(shape)`` is
its text in the query language, which a predicate may also embed.  The
geometry is on the sphere: edges are great-circle arcs (a box is the polygon
of its four corners, the shorter way round), a ring stands for the smaller
region it bounds, a circle's radius is an angle in radians (distances use an
Earth radius of 6378.1 km).  The constructors check ranges and ring closure;
the rest (crossing edges, holes outside the outer ring, ...) is checked by
the library when the query is made (``fief.QueryArgumentError``).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any, Iterable, Sequence, Union

from . import _lib as L

EARTH_RADIUS_KM = 6378.1
METERS_PER_MILE = 1609.344


class GeoPoint:
    """A point: ``longitude`` in [-180, 180] and ``latitude`` in [-90, 90]
    degrees (GeoJSON order: longitude first).  ``ValueError`` out of range
    or for NaN."""

    __slots__ = ("longitude", "latitude")

    def __init__(self, longitude: float, latitude: float):
        longitude, latitude = float(longitude), float(latitude)
        if not (-180 <= longitude <= 180) or not (-90 <= latitude <= 90):
            raise ValueError(f"a GeoPoint needs longitude in [-180, 180] and latitude in [-90, 90], "
                             f"not ({longitude}, {latitude})")
        self.longitude = longitude
        self.latitude = latitude

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GeoPoint) and (self.longitude, self.latitude) == (other.longitude, other.latitude)

    def __hash__(self) -> int:
        return hash((self.longitude, self.latitude))

    def __repr__(self) -> str:
        return f"GeoPoint(longitude={self.longitude!r}, latitude={self.latitude!r})"

    def __str__(self) -> str:
        return f"[{self.longitude!r}, {self.latitude!r}]"

    def _fill(self, out: L.fief_geo_point_t) -> None:
        out.longitude = self.longitude
        out.latitude = self.latitude


PointLike = Union[GeoPoint, Sequence[float]]


def _point(value: PointLike) -> GeoPoint:
    """A GeoPoint, or one from a (longitude, latitude) pair."""
    if isinstance(value, GeoPoint):
        return value
    try:
        longitude, latitude = value
    except (TypeError, ValueError):
        raise TypeError(f"expected a GeoPoint or a (longitude, latitude) pair, not {value!r}") from None
    return GeoPoint(longitude, latitude)


class GeoShape:
    """A region for ``GEOWITHIN``: `GeoBox`, `GeoPolygon` or `GeoCircle`."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return f"fief.{type(self).__name__}: {self}"


class GeoBox(GeoShape):
    """Two opposite corners (in either order); its edges are great-circle
    arcs between the corners, the shorter way round (corners at longitudes
    170 and -170 make a 20-degree box across the antimeridian)."""

    __slots__ = ("bottom_left", "top_right")

    def __init__(self, bottom_left: PointLike, top_right: PointLike):
        self.bottom_left = _point(bottom_left)
        self.top_right = _point(top_right)

    def __str__(self) -> str:
        return f"geoBox({self.bottom_left}, {self.top_right})"

    def _struct(self, keep: list[Any]) -> L.fief_geo_shape_t:
        shape = L.fief_geo_shape_t()
        shape.kind = L.GEO_BOX
        self.bottom_left._fill(shape.corners[0])
        self.top_right._fill(shape.corners[1])
        return shape


class GeoPolygon(GeoShape):
    """An outer ring and any holes, each closed (its last point equals its
    first) with at least four points.  ``ValueError`` for a ring that is not."""

    __slots__ = ("outer_ring", "holes")

    def __init__(self, outer_ring: Iterable[PointLike], holes: Iterable[Iterable[PointLike]] = ()):
        self.outer_ring = self._ring(outer_ring, "the outer ring")
        self.holes = [self._ring(hole, f"hole {i}") for i, hole in enumerate(holes)]

    @staticmethod
    def _ring(points: Iterable[PointLike], name: str) -> list[GeoPoint]:
        ring = [_point(p) for p in points]
        if len(ring) < 4 or ring[0] != ring[-1]:
            raise ValueError(f"{name} of a GeoPolygon needs at least 4 points, the last equal to the first")
        return ring

    def __str__(self) -> str:
        rings = [self.outer_ring] + self.holes
        return "geoPolygon(" + ", ".join("{" + ", ".join(str(p) for p in ring) + "}" for ring in rings) + ")"

    def _struct(self, keep: list[Any]) -> L.fief_geo_shape_t:
        rings = [self.outer_ring] + self.holes
        ring_array = (L.fief_geo_ring_t * len(rings))()
        for i, ring in enumerate(rings):
            points = (L.fief_geo_point_t * len(ring))()
            for j, point in enumerate(ring):
                point._fill(points[j])
            keep.append(points)
            ring_array[i].points = ctypes.cast(points, ctypes.POINTER(L.fief_geo_point_t))
            ring_array[i].count = len(ring)
        keep.append(ring_array)
        shape = L.fief_geo_shape_t()
        shape.kind = L.GEO_POLYGON
        shape.rings = ctypes.cast(ring_array, ctypes.POINTER(L.fief_geo_ring_t))
        shape.num_rings = len(rings)
        return shape


class GeoCircle(GeoShape):
    """The points at most ``radius`` radians (the angle at the Earth's
    center) from ``center``, the boundary included.  ``ValueError`` for a
    negative or NaN radius.  `kilometers`, `miles` and `degrees` build one
    from other units."""

    __slots__ = ("center", "radius")

    def __init__(self, center: PointLike, radius: float):
        radius = float(radius)
        if math.isnan(radius) or radius < 0:
            raise ValueError(f"a GeoCircle needs a radius of 0 or more radians, not {radius}")
        self.center = _point(center)
        self.radius = radius

    @classmethod
    def kilometers(cls, center: PointLike, kilometers: float) -> "GeoCircle":
        return cls(center, float(kilometers) / EARTH_RADIUS_KM)

    @classmethod
    def miles(cls, center: PointLike, miles: float) -> "GeoCircle":
        return cls(center, float(miles) * METERS_PER_MILE / (EARTH_RADIUS_KM * 1000))

    @classmethod
    def degrees(cls, center: PointLike, degrees: float) -> "GeoCircle":
        return cls(center, math.radians(float(degrees)))

    def __str__(self) -> str:
        return f"geoCircle({self.center}, {self.radius!r})"

    def _struct(self, keep: list[Any]) -> L.fief_geo_shape_t:
        shape = L.fief_geo_shape_t()
        shape.kind = L.GEO_CIRCLE
        self.center._fill(shape.center)
        shape.radius = self.radius
        return shape


def fill_shape_value(shape: GeoShape, out: L.fief_value_t, keep: list[Any]) -> None:
    """Make `out` a FIEF_TYPE_GEO_SHAPE value for `shape`; what it points to
    is appended to `keep` (alive for the call)."""
    struct = shape._struct(keep)  # type: ignore[attr-defined]
    keep.append(struct)
    out.type = L.TYPE_GEO_SHAPE
    out.u.geo_shape = ctypes.addressof(struct)


__all__ = ["GeoPoint", "GeoShape", "GeoBox", "GeoPolygon", "GeoCircle"]
