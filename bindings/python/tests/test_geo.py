"""Geospatial queries: points stored as embedded GeoJSON objects, shapes
(fief.GeoBox, GeoPolygon, GeoCircle) passed as query arguments or written in
the predicate, ANY/ALL/NONE over lists of points, live results, and the
errors (invalid shapes, arguments of the wrong type)."""

from __future__ import annotations

import math
from typing import Optional

import pytest

import fief


class Position(fief.EmbeddedObject):
    type: str = "Point"
    coordinates: list[float]


class Restaurant(fief.Object):
    name: str = ""
    location: Optional[Position] = None
    locations: list[Position]


# realm-core's Parser_Geospatial restaurants, (longitude, latitude).
PLACES = [("one", 0, 0), ("two", 0.5, 0.5), ("three", 1, 1), ("four", 2, 2),
          ("Red Fish Blue Fish", -123.37039, 48.42437), ("Foo", -123.36253, 48.42566),
          ("Superbaba", -123.3615, 48.4267), ("Sen Zushi", -123.3579, 48.42398)]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=[Position, Restaurant]) as r:
        with r.write():
            for name, lon, lat in PLACES:
                r.add(Restaurant(name=name, location=Position(coordinates=[lon, lat])))
            r.add(Restaurant(name="empty"))
        yield r


def names(results) -> list[str]:
    return sorted(r.name for r in results)


BOX = fief.GeoBox((0.2, 0.2), (0.7, 0.7))
CIRCLE = fief.GeoCircle((0.3, 0.3), 1)
SQUARE = fief.GeoPolygon([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)])
SQUARE_WITH_HOLE = fief.GeoPolygon([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)],
                                   holes=[[(0.25, 0.25), (0.75, 0.25), (0.75, 0.75), (0.25, 0.75), (0.25, 0.25)]])
AREA = fief.GeoCircle((-123.36197, 48.42626), 0.000021950110534)


@pytest.mark.parametrize("shape, expected", [
    (BOX, ["two"]),
    (CIRCLE, ["four", "one", "three", "two"]),
    (SQUARE, ["two"]),
    (SQUARE_WITH_HOLE, []),
    (AREA, ["Foo", "Superbaba"]),
    (fief.GeoBox(fief.GeoPoint(0.7, 0.7), fief.GeoPoint(0.2, 0.2)), ["two"]),
])
def test_shapes_as_arguments_and_in_the_text(realm, shape, expected):
    restaurants = realm.objects(Restaurant)
    assert names(restaurants.filter("location GEOWITHIN $0", shape)) == expected
    assert names(restaurants.filter("location GEOWITHIN %@", shape)) == expected
    assert names(restaurants.filter("location IN $0", shape)) == expected
    assert names(restaurants.filter(f"location GEOWITHIN {shape}")) == expected
    assert names(restaurants.filter("location GEOWITHIN $0", str(shape))) == expected
    assert len(restaurants.filter("NOT location GEOWITHIN $0", shape)) == 9 - len(expected)


def test_coordinates_as_arguments(realm):
    restaurants = realm.objects(Restaurant)
    assert len(restaurants.filter("location GEOWITHIN geoCircle([$0, $1], $2)", 0.3, 0.3, 1)) == 4
    assert len(restaurants.filter("location GEOWITHIN geoBox([$0, $1], [$2, $3])", 0.2, 0.2, 0.7, 0.7)) == 1


def test_results_are_live(realm):
    inside = realm.objects(Restaurant).filter("location GEOWITHIN $0", CIRCLE)
    assert len(inside) == 4
    with realm.write():
        realm.add(Restaurant(name="new", location=Position(coordinates=[0.31, 0.29])))
        one = realm.objects(Restaurant).filter("name == 'one'")[0]
        one.location.coordinates[1] = 60.0
    assert names(inside) == ["four", "new", "three", "two"]
    with realm.write():
        realm.objects(Restaurant).filter("name == 'two'")[0].location.type = "LineString"
    assert names(inside) == ["four", "new", "three"]


def test_lists_of_points_any_all_none(realm_path):
    with fief.Realm.open(realm_path, schema=[Position, Restaurant]) as realm:
        points = [[(1, 1), (2, 2)], [(2, 2), (3, 3)], [(1, 1), (1, 1), (1, 1)], []]
        with realm.write():
            for i, pts in enumerate(points):
                realm.add(Restaurant(name=f"r{i}", locations=[Position(coordinates=list(p)) for p in pts]))
        restaurants = realm.objects(Restaurant)
        # realm-core's Geospatial_ListOfPrimitives.
        table = {1: (["r0", "r2"], ["r2"], ["r1", "r3"]), 2: (["r0", "r1"], [], ["r2", "r3"]),
                 3: (["r1"], [], ["r0", "r2", "r3"]), 4: ([], [], ["r0", "r1", "r2", "r3"])}
        for center, (any_, all_, none) in table.items():
            circle = fief.GeoCircle((center, center), 0.00872665)
            assert names(restaurants.filter("ANY locations GEOWITHIN $0", circle)) == any_
            assert names(restaurants.filter("ALL locations GEOWITHIN $0", circle)) == all_
            assert names(restaurants.filter("NONE locations GEOWITHIN $0", circle)) == none


def test_units_and_text():
    assert str(fief.GeoBox((-122.7, 47.3), (-122.1, 48.1))) == "geoBox([-122.7, 47.3], [-122.1, 48.1])"
    assert str(fief.GeoCircle.kilometers((0, 0), 6378.1)) == "geoCircle([0.0, 0.0], 1.0)"
    assert math.isclose(fief.GeoCircle.degrees((0, 0), 180).radius, math.pi)
    assert math.isclose(fief.GeoCircle.miles((0, 0), 1).radius, 1609.344 / 6378100)
    assert str(SQUARE).startswith("geoPolygon({[0.0, 0.0], [1.0, 0.0]")
    assert fief.GeoBox((0, 0), (1, 1)) == fief.GeoBox(fief.GeoPoint(0, 0), fief.GeoPoint(1, 1))
    with pytest.raises(ValueError):
        fief.GeoPoint(181, 0)
    with pytest.raises(ValueError):
        fief.GeoPoint(0, float("nan"))
    with pytest.raises(ValueError):
        fief.GeoPolygon([(0, 0), (1, 0), (1, 1), (0, 1)])
    with pytest.raises(ValueError):
        fief.GeoCircle((0, 0), -1)
    with pytest.raises(TypeError):
        fief.GeoBox("nowhere", (1, 1))


def test_errors(realm):
    restaurants = realm.objects(Restaurant)
    # Invalid shapes: checked by the library.
    crossing = fief.GeoPolygon([(0, 0), (0, 1), (2, 1), (2, 2), (0, 0)])
    with pytest.raises(fief.QueryArgumentError, match="Edges 1 and 3 cross"):
        restaurants.filter("location GEOWITHIN $0", crossing)
    with pytest.raises(fief.InvalidQueryError, match="non-negative"):
        restaurants.filter("location GEOWITHIN geoCircle([0, 0], -1)")
    with pytest.raises(fief.InvalidQueryError, match="out of bounds"):
        restaurants.filter("location GEOWITHIN geoBox([0, 0], [200, 1])")
    # Arguments of the wrong type.
    with pytest.raises(fief.QueryArgumentError, match="provided type is 'double'"):
        restaurants.filter("location GEOWITHIN $0", 1.5)
    with pytest.raises(fief.QueryArgumentError, match="provided type is 'null'"):
        restaurants.filter("location GEOWITHIN $0", None)
    with pytest.raises(fief.QueryArgumentError, match="serialized geospatial object"):
        restaurants.filter("location GEOWITHIN $0", "GeoPoint([0, 0])")
    with pytest.raises(fief.QueryArgumentError, match="geospatial shape"):
        restaurants.filter("name == $0", BOX)
    with pytest.raises(fief.QueryArgumentError, match="argument of its own"):
        restaurants.filter("name IN $0", [BOX])
    # Left sides that are no links to points.
    with pytest.raises(fief.InvalidQueryError, match="must be a link to geoJSON"):
        restaurants.filter("name GEOWITHIN $0", BOX)
    # A shape is no value to store.
    with realm.write():
        with pytest.raises((TypeError, fief.FiefError)):
            realm.add(Restaurant(name=BOX))  # type: ignore[arg-type]


# The spatial index: kept by every write, checked by verify, rebuilt by copy.

def _inside_circle(lon, lat, center, radians):
    k = math.pi / 180
    a = (math.cos(lat * k) * math.cos(lon * k), math.cos(lat * k) * math.sin(lon * k), math.sin(lat * k))
    b = (math.cos(center[1] * k) * math.cos(center[0] * k), math.cos(center[1] * k) * math.sin(center[0] * k),
         math.sin(center[1] * k))
    return math.acos(max(-1.0, min(1.0, sum(x * y for x, y in zip(a, b))))), radians


CIRCLES = [((0, 0), 0.05), ((0, 90), 0.3), ((180, 0), 0.2), ((-179.9, 10), 0.5), ((30, 40), 1.0)]


def _check_circles(realm):
    """Each circle's answer through the index against a test of each stored point."""
    restaurants = realm.objects(Restaurant)
    for center, radians in CIRCLES:
        expected, borderline = set(), False
        for r in restaurants:
            loc = r.location
            if loc is None or loc.type.lower() != "point" or len(loc.coordinates) < 2:
                continue
            lon, lat = loc.coordinates[0], loc.coordinates[1]
            if abs(lon) > 180 or abs(lat) > 90:
                continue
            distance, _ = _inside_circle(lon, lat, center, radians)
            borderline |= abs(distance - radians) < 1e-7
            if distance <= radians:
                expected.add(r.name)
        if borderline:
            continue
        assert set(names(restaurants.filter("location GEOWITHIN $0", fief.GeoCircle(center, radians)))) == expected


def test_index_follows_random_writes(realm_path):
    rng = __import__("random").Random(42)

    def point():
        lon, lat = rng.uniform(-180, 180), rng.uniform(-90, 90)
        pick = rng.randrange(6)
        if pick == 0:
            lat = rng.choice([90.0, -90.0])
        elif pick == 1:
            lon = rng.choice([180.0, -180.0])
        elif pick == 2:
            lon, lat = rng.uniform(-1, 1), rng.uniform(-1, 1)
        return [lon, lat]

    with fief.Realm.open(realm_path, schema=[Position, Restaurant]) as realm:
        for round_ in range(25):
            with realm.write():
                for i in range(15):
                    restaurants = list(realm.objects(Restaurant))
                    op = rng.randrange(6)
                    if op < 2 or not restaurants:
                        realm.add(Restaurant(name=f"r{round_}.{i}", location=Position(coordinates=point())))
                        continue
                    r = rng.choice(restaurants)
                    if op == 2:
                        realm.delete(r)
                    elif op == 3:
                        r.location = Position(type=rng.choice(["Point", "Polygon"]), coordinates=point())
                    elif op == 4 and r.location is not None:
                        coordinates = r.location.coordinates
                        coordinates.clear()
                        coordinates.extend(point())
                    else:
                        r.location = None
            _check_circles(realm)
    report = fief.verify_file(realm_path)
    assert report.ok, report.problems
    copy = str(realm_path) + ".copy"
    assert fief.copy_file(realm_path, copy).ok
    assert fief.verify_file(copy).ok
    with fief.Realm.open(copy, schema=[Position, Restaurant]) as realm:
        _check_circles(realm)


def test_descriptions_write_shapes(realm):
    restaurants = realm.objects(Restaurant)
    inside = restaurants.filter("location IN $0", BOX)
    assert inside.description == "location GEOWITHIN geoBox([0.2, 0.2], [0.7, 0.7])"
    assert names(restaurants.filter(inside.description)) == ["two"]
    near = restaurants.filter("location GEOWITHIN geoCircle([$0, $1], $2)", 0.3, 0.3, 1)
    assert near.description == "location GEOWITHIN geoCircle([0.3, 0.3], 1.0)"


def test_one_element_of_a_list(realm_path):
    with fief.Realm.open(realm_path, schema=[Position, Restaurant]) as realm:
        with realm.write():
            realm.add(Restaurant(name="a", locations=[Position(coordinates=[0.5, 0.5]), Position(coordinates=[50, 50])]))
            realm.add(Restaurant(name="b", locations=[Position(coordinates=[50, 50]), Position(coordinates=[0.5, 0.5])]))
            realm.add(Restaurant(name="c"))
        restaurants = realm.objects(Restaurant)
        assert names(restaurants.filter("locations[0] GEOWITHIN $0", BOX)) == ["a"]
        assert names(restaurants.filter("locations[FIRST] GEOWITHIN $0", BOX)) == ["a"]
        assert names(restaurants.filter("locations[LAST] GEOWITHIN $0", BOX)) == ["b"]
        assert names(restaurants.filter("locations[1] GEOWITHIN $0", BOX)) == ["b"]
