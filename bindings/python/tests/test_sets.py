"""Set properties: declared as set[X] (values of every scalar type, optional
or not, and objects), read and written through a live fief.Set (a
MutableSet checked against a Python set), in the set's order, with the set
algebra done by the library for two fief.Sets and element by element
otherwise; replaced by assignment, written by add and create, kept across
reopening, with backlinks, deleted targets, live results, frozen sets, and
every error of the C layer surfacing as the package's exceptions without a
change."""

from __future__ import annotations

import datetime as dt
import decimal
import random
import typing
import uuid
from collections.abc import MutableSet
from typing import Optional

import pytest

import fief
from fief import _lib as L


class Dog(fief.Object):
    name: str = ""
    fans = fief.Backlinks("Person", "dogs")


class Toy(fief.EmbeddedObject):
    label: str = ""


class Person(fief.Object):
    name: fief.PrimaryKey[str]
    lucky: set[int]
    tags: set[Optional[str]]
    dogs: set[Dog]
    walked: typing.Set["Dog"]          # typing.Set and a forward reference
    ratios: set[float] = {0.5}         # a default, copied for every object
    toys: list[Toy]


UTC = dt.timezone.utc
OID = fief.ObjectId("5f1d7a3b9c8e4d2a1b0c9d8e")
UID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class Everything(fief.Object):
    ints: set[int]
    bools: set[bool]
    doubles: set[float]
    floats: set[fief.Float32]
    strings: set[str]
    blobs: set[bytes]
    times: set[dt.datetime]
    decimals: set[fief.Decimal128]
    pydecimals: set[decimal.Decimal]
    oids: set[fief.ObjectId]
    uids: set[uuid.UUID]
    o_ints: set[Optional[int]]
    o_bools: set[Optional[bool]]
    o_doubles: set[Optional[float]]
    o_floats: set[Optional[fief.Float32]]
    o_strings: set[Optional[str]]
    o_blobs: set[Optional[bytes]]
    o_times: set[Optional[dt.datetime]]
    o_decimals: set[Optional[fief.Decimal128]]
    o_oids: set[Optional[fief.ObjectId]]
    o_uids: set[Optional[uuid.UUID]]


# Each in the set's order (the order the library keeps), as listed.
EVERYTHING = dict(
    ints=[-2 ** 63, -1, 0, 42, 2 ** 63 - 1],
    bools=[False, True],
    doubles=[float("-inf"), -1.5, 0.0, 1e300, float("inf")],
    floats=[-2.25, 0.5, 1024.0],
    strings=["", "A", "Z", "a", "héllo", "x" * 5000, "\u2603", "\U0001F600"],
    blobs=[b"", b"\x00", bytes(range(256)) * 20, b"\x00\xff", b"\x01"],
    times=[dt.datetime(1900, 6, 1, tzinfo=UTC), dt.datetime(1970, 1, 1, tzinfo=UTC),
           dt.datetime(2024, 2, 29, 12, 30, 5, 123456, tzinfo=UTC)],
    decimals=[fief.Decimal128("-7.5"), fief.Decimal128("0"), fief.Decimal128("1.25"), fief.Decimal128("1E+6111")],
    pydecimals=[decimal.Decimal("-7"), decimal.Decimal("3.14159")],
    oids=[fief.ObjectId(bytes(12)), OID],
    uids=[uuid.UUID(int=0), UID],
    o_ints=[None, -1, 1],
    o_bools=[None, False, True],
    o_doubles=[None, 2.5],
    o_floats=[None, 0.25],
    o_strings=[None, "", "a"],
    o_blobs=[None, b"x"],
    o_times=[None, dt.datetime(2000, 1, 1, tzinfo=UTC)],
    o_decimals=[None, fief.Decimal128("0.1")],
    o_oids=[None, OID],
    o_uids=[None, UID],
)

MODELS = [Dog, Toy, Person, Everything]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def add_person(realm, name="Ann", **values):
    with realm.write():
        return realm.add(Person(name=name, **values))


def names(objects):
    return sorted(o.name for o in objects)


# -- declarations and schema ---------------------------------------------------


def test_declarations():
    specs = {s.attr: s for s in Person.__fief_properties__}
    assert specs["lucky"].is_set and specs["lucky"].is_collection and not specs["lucky"].is_list
    assert specs["lucky"].fief_type == L.TYPE_INT and not specs["lucky"].nullable
    assert specs["tags"].is_set and specs["tags"].nullable and specs["tags"].fief_type == L.TYPE_STRING
    assert specs["dogs"].link_target == "Dog" and specs["dogs"].fief_type == L.TYPE_LINK
    assert specs["walked"].is_set and specs["walked"].link_target == "Dog"
    assert specs["lucky"].collection == L.COLLECTION_SET
    assert repr(specs["tags"]) == "<fief property tags: set of optional string>"
    assert repr(specs["dogs"]) == "<fief property dogs: set of link to Dog>"
    assert {s.attr: s for s in Everything.__fief_properties__}["floats"].fief_type == L.TYPE_FLOAT


@pytest.mark.parametrize("annotation,message", [
    ("set", "give the element type of a set"),
    ("typing.Set", "give the element type of a set"),
    ("frozenset[int]", "set\\[X\\] \\(it is mutable\\)"),
    ("Optional[set[int]]", "never optional"),
    ("set[Optional[Dog]]", "never None: declare it set\\[Dog\\]"),
    ("set[set[int]]", "element of another list, set or dict"),
    ("list[set[int]]", "element of another list, set or dict"),
    ("set[list[int]]", "element of another list, set or dict"),
    ("set[dict[str, int]]", "element of another list, set or dict"),
    ("fief.PrimaryKey[set[int]]", "never optional, a primary key"),
    ("set[fief.Indexed[int]]", "neither primary keys nor indexed"),
    ("set[complex]", "unsupported property type"),
    ("set[Toy]", "a set cannot hold embedded objects"),
])
def test_declaration_errors(annotation, message):
    with pytest.raises(TypeError, match=message):
        exec(f"class Bad(fief.Object):\n    values: {annotation}\n",
             {"__name__": __name__, "fief": fief, "Optional": Optional, "Dog": Dog, "Toy": Toy, "typing": typing})


def test_declaration_options_refused():
    with pytest.raises(TypeError, match="a set is neither a primary key nor indexed"):
        class Bad(fief.Object):
            values: set[int] = fief.Property(indexed=True)
    with pytest.raises(TypeError, match="a set is never null"):
        class Bad2(fief.Object):
            values: set[int] = fief.Property(optional=True)


def test_a_set_of_embedded_objects_named_later_is_refused_by_the_schema(tmp_path):
    class Holder(fief.Object):
        parts: set["Part"]

    class Part(fief.EmbeddedObject):
        name: str = ""

    with pytest.raises(fief.InvalidSchemaError):
        fief.Realm.open(tmp_path / "bad.fief", schema=[Holder, Part])


def test_schema_read_back_shows_sets(realm):
    person = next(c for c in realm.schema if c.name == "Person")
    props = person.properties
    assert props["lucky"].is_set and props["lucky"].type_name == "int"
    assert props["lucky"].collection_type == L.COLLECTION_SET == 2
    assert props["tags"].is_set and props["tags"].nullable and not props["tags"].is_list
    assert props["dogs"].is_set and props["dogs"].link_target == "Dog" and props["dogs"].type_name == "link"
    assert not props["name"].is_set
    with fief.Realm.open(realm.path) as again:  # the file's own schema, no model classes
        person = next(c for c in again.schema if c.name == "Person")
        assert person.properties["walked"].is_set and person.properties["walked"].link_target == "Dog"


# -- unmanaged objects -----------------------------------------------------------


def test_unmanaged_objects_hold_plain_sets():
    ann, bob = Person(name="Ann"), Person(name="Bob")
    assert ann.lucky == set() and type(ann.lucky) is set
    ann.lucky.add(3)
    assert ann.lucky == {3} and bob.lucky == set()
    assert ann.ratios == {0.5} and ann.ratios is not bob.ratios  # the default is copied
    mine = {1, 2}
    cy = Person(name="Cy", lucky=mine)
    assert cy.lucky is mine
    cy.tags = ["a", None, "a"]
    assert cy.tags == {"a", None}
    cy.lucky = (i for i in range(3))
    assert cy.lucky == {0, 1, 2}
    for bad in ("abc", 5, None, {"a": 1}):
        with pytest.raises(TypeError, match="is a set"):
            cy.tags = bad
    with pytest.raises(TypeError, match="is a set"):
        Person(name="Dan", lucky=5)
    with pytest.raises(TypeError, match="hashable"):
        Person(name="Dan", dogs=[{"name": "Rex"}])   # dicts are for realm.create
    assert cy.to_dict()["lucky"] == {0, 1, 2}


# -- every scalar type, in the set's order ---------------------------------------------


def test_every_scalar_type_round_trips_in_order(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            given = {attr: list(reversed(values)) for attr, values in EVERYTHING.items()}
            obj = realm.add(Everything(**{attr: set(values) for attr, values in given.items()}))
        for attr, expected in EVERYTHING.items():
            s = getattr(obj, attr)
            assert isinstance(s, fief.Set)
            assert list(s) == expected, attr          # the set's order
            assert s == set(expected), attr
            for value in expected:
                assert value in s, (attr, value)
        assert isinstance(next(iter(obj.decimals)), fief.Decimal128)
        assert type(next(iter(obj.pydecimals))) is decimal.Decimal
        with realm.write():
            for attr, expected in EVERYTHING.items():
                s = getattr(obj, attr)
                s.add(expected[0])                    # already there: nothing changes
                assert len(s) == len(expected)
                s.discard(expected[-1])
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        obj = realm.objects(Everything)[0]
        for attr, expected in EVERYTHING.items():
            assert list(getattr(obj, attr)) == expected[:-1], attr


def test_the_sets_order_and_equal_values(realm):
    with realm.write():
        obj = realm.add(Everything())
        obj.ints |= [5, -3, 100, 0, -100, 7]
        obj.strings.update(["b", "B", "ab", "a", "é", "e", "\u00ff", "\u0100", "z"])
        obj.doubles.update([1.0, -0.0, float("nan"), 0.0, -1.0])
        obj.decimals.update([fief.Decimal128("1.0"), fief.Decimal128("1.00"), fief.Decimal128("-2")])
        obj.o_ints.update([3, None, -3])
        obj.blobs.update([b"b", b"a", b"ab", b"\xff", b""])
    assert list(obj.ints) == [-100, -3, 0, 5, 7, 100]                     # ints sorted
    assert list(obj.strings) == sorted(["b", "B", "ab", "a", "é", "e", "\u00ff", "\u0100", "z"],
                                       key=lambda s: s.encode())          # strings bytewise (UTF-8)
    assert list(obj.blobs) == [b"", b"a", b"ab", b"b", b"\xff"]           # bytes bytewise
    doubles = list(obj.doubles)                                          # NaN first, -0 == 0
    assert len(doubles) == 4 and doubles[0] != doubles[0] and doubles[1:] == [-1.0, 0.0, 1.0]
    assert float("nan") in obj.doubles and -0.0 in obj.doubles
    assert list(obj.decimals) == [fief.Decimal128("-2"), fief.Decimal128("1.0")]  # 1.0 and 1.00: one element
    assert list(obj.o_ints) == [None, -3, 3]                             # None first


def test_numbers_convert_like_python_sets(realm):
    ann = add_person(realm)
    with realm.write():
        ann.ratios.update([1, 2.5])          # ints go into a set of doubles
        obj = realm.add(Everything(floats={0.1}))
        obj.decimals.add(7)                  # and into a set of decimals
    assert list(ann.ratios) == [0.5, 1.0, 2.5]
    assert 1 in ann.ratios and 2.5 in ann.ratios
    assert 0.1 in obj.floats and obj.floats == {0.1}    # a 32-bit float is found by its Python value
    assert obj.floats <= {0.1, 3.0}
    assert obj.decimals == {fief.Decimal128(7)} and 7 in obj.decimals
    with realm.write():
        ann.lucky.add(2)
    assert 2.0 in ann.lucky and 2.5 not in ann.lucky and "2" not in ann.lucky


# -- the operations, against a Python set ---------------------------------------------


def test_every_operation_against_a_python_set(realm):
    ann = add_person(realm, lucky={5, 1, 4})
    model = {5, 1, 4}
    lucky = ann.lucky
    assert isinstance(lucky, fief.Set) and isinstance(lucky, MutableSet)

    def check():
        assert list(lucky) == sorted(model)
        assert len(lucky) == len(model) and bool(lucky) == bool(model)
        assert lucky == model and model == lucky and not (lucky != model)
        for x in range(-2, 12):
            assert (x in lucky) == (x in model)

    check()
    with realm.write():
        lucky.add(9); model.add(9); check()
        lucky.add(9); check()
        lucky.discard(1); model.discard(1); check()
        lucky.discard(404); check()
        lucky.remove(4); model.remove(4); check()
        with pytest.raises(KeyError):
            lucky.remove(4)
        check()
        lucky.update([2, 3], {7}, range(3)); model.update([2, 3], {7}, range(3)); check()
        lucky |= {10, 11}; model |= {10, 11}; check()
        lucky &= {0, 2, 3, 5, 7, 9, 10, 11, 99}; model &= {0, 2, 3, 5, 7, 9, 10, 11, 99}; check()
        lucky -= {0, 99}; model -= {0, 99}; check()
        lucky ^= {2, 4, 6}; model ^= {2, 4, 6}; check()
        lucky.intersection_update([3, 4, 5, 6, 7, 9, 10, 11], range(4, 12)); model.intersection_update([3, 4, 5, 6, 7, 9, 10, 11], range(4, 12)); check()
        lucky.difference_update([11], (10,)); model.difference_update([11], (10,)); check()
        lucky.symmetric_difference_update([5, 8]); model.symmetric_difference_update([5, 8]); check()
        popped = lucky.pop(); assert popped == min(model); model.remove(popped); check()
        lucky |= lucky; check()                  # itself
        lucky &= lucky; check()
    assert lucky.isdisjoint({100, 200}) and not lucky.isdisjoint([min(model)])
    assert lucky.issubset(model | {1}) and lucky <= model and lucky <= model | {1} and lucky < model | {1}
    assert not lucky < model and not lucky.issubset({1}) and not lucky <= {1}
    assert lucky.issuperset([min(model)]) and lucky >= model and lucky > set() and not lucky > model
    assert not lucky.issuperset({404})
    assert lucky | {100} == model | {100} and type(lucky | {100}) is set
    assert lucky & {6, 7} == model & {6, 7} and lucky - {6} == model - {6} and lucky ^ {6, 1} == model ^ {6, 1}
    assert {100} | lucky == {100} | model
    assert lucky.union([1], {2}) == model.union([1], {2}) and lucky.intersection([6, 7], {7}) == {7}
    assert lucky.difference([6]) == model.difference([6]) and lucky.symmetric_difference([6, 1]) == model ^ {6, 1}
    assert lucky != [*model] and lucky != {404}
    assert repr(lucky) == "fief.Set({" + ", ".join(map(str, sorted(model))) + "})"
    with realm.write():
        lucky -= lucky; model.clear(); check()
        lucky.update([1]); lucky.clear(); check()
        lucky.update([]); check()
    assert repr(lucky) == "fief.Set()"
    with pytest.raises(KeyError, match="pop from an empty set"):
        with realm.write():
            lucky.pop()
    with pytest.raises(TypeError):
        hash(lucky)


def test_sets_of_optional_strings(realm):
    ann = add_person(realm)
    with realm.write():
        ann.tags.update(["a", None, "", "a"])
        ann.tags.add(None)
    assert list(ann.tags) == [None, "", "a"] and None in ann.tags
    with realm.write():
        ann.tags.remove(None)
        ann.tags ^= {"", "b"}
    assert ann.tags == {"a", "b"} and None not in ann.tags


def test_iteration_reads_in_batches_and_lookups_are_one_call(realm, library, monkeypatch):
    ann = add_person(realm)
    calls: dict[str, int] = {}

    def counted(name):
        real = getattr(library, name)

        def call(*args):
            calls[name] = calls.get(name, 0) + 1
            return real(*args)
        monkeypatch.setattr(library, name, call)

    for name in ("fief_set_get", "fief_set_get_range", "fief_set_contains", "fief_set_insert"):
        counted(name)
    with realm.write():
        ann.lucky.update(range(2100))
    assert calls["fief_set_insert"] == 2100
    assert list(ann.lucky) == list(range(2100))
    assert calls.get("fief_set_get", 0) == 0 and calls["fief_set_get_range"] == 2100 // 512 + 1
    calls.clear()
    assert 1500 in ann.lucky and -1 not in ann.lucky
    assert calls == {"fief_set_contains": 2}


def test_random_operations_against_a_python_set(realm_path):
    rng = random.Random(20240607)
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            ann = realm.add(Person(name="Ann"))
            kennel = [realm.add(Dog(name=f"d{i}")) for i in range(8)]
        by_name = {d.name: d for d in kennel}
        models: dict[str, set] = {"lucky": set(), "tags": set(), "dogs": set()}

        def element(kind):
            if kind == "lucky":
                return rng.randrange(-30, 30)
            if kind == "tags":
                return rng.choice([None, "", "x", "y", "é", "zz" * rng.randrange(1, 200)])
            return by_name[rng.choice(list(by_name))]

        def view(kind, value):
            return value.name if kind == "dogs" else value

        def order(kind, values):
            if kind == "lucky":
                return sorted(values)
            if kind == "tags":
                return sorted(values, key=lambda s: (s is not None, (s or "").encode()))
            return sorted(values, key=lambda name: by_name[name].object_key)

        for _ in range(50):
            with realm.write():
                for _ in range(rng.randrange(1, 10)):
                    kind = rng.choice(list(models))
                    s, model = getattr(ann, kind), models[kind]
                    op = rng.choice(["add", "discard", "remove", "update", "ior", "iand", "isub", "ixor",
                                     "pop", "clear", "assign", "algebra"])
                    values = [element(kind) for _ in range(rng.randrange(0, 6))]
                    names = {view(kind, v) for v in values}
                    if op == "add":
                        v = element(kind); s.add(v); model.add(view(kind, v))
                    elif op == "discard":
                        v = element(kind); s.discard(v); model.discard(view(kind, v))
                    elif op == "remove":
                        v = element(kind)
                        if view(kind, v) in model:
                            s.remove(v); model.remove(view(kind, v))
                        else:
                            with pytest.raises(KeyError):
                                s.remove(v)
                    elif op == "update":
                        s.update(values); model.update(names)
                    elif op == "ior":
                        s |= set(values); model |= names
                    elif op == "iand":
                        s &= values; model &= names
                    elif op == "isub":
                        s -= values; model -= names
                    elif op == "ixor":
                        s ^= set(values); model ^= names
                    elif op == "pop" and model:
                        assert view(kind, s.pop()) == order(kind, model)[0]
                        model.remove(order(kind, model)[0])
                    elif op == "clear" and rng.random() < 0.2:
                        s.clear(); model.clear()
                    elif op == "assign" and rng.random() < 0.3:
                        setattr(ann, kind, values); model.clear(); model.update(names)
                    elif op == "algebra":              # two fief.Sets: one library call
                        other = getattr(realm.object(Person, "Ann"), kind)
                        assert s.issubset(other) and s.issuperset(other) and s == other
                        assert s.isdisjoint(other) == (not model)
            for kind, model in models.items():
                assert [view(kind, v) for v in getattr(ann, kind)] == order(kind, model), kind
        assert len(realm.objects(Dog)) == 8
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        ann = realm.object(Person, "Ann")
        for kind, model in models.items():
            assert [view(kind, v) for v in getattr(ann, kind)] == order(kind, model), kind


# -- the algebra ---------------------------------------------------------------------


def test_algebra_between_fief_sets_is_one_library_call(realm, library, monkeypatch):
    ann = add_person(realm, lucky={1, 2, 3, 4})
    bob = add_person(realm, "Bob", lucky={3, 4, 5})
    cy = add_person(realm, "Cy", lucky={1, 2})
    calls: list[str] = []
    for name in ("fief_set_intersects", "fief_set_is_subset_of", "fief_set_is_superset_of",
                 "fief_set_form_union", "fief_set_form_intersection", "fief_set_subtract",
                 "fief_set_insert", "fief_set_remove", "fief_set_contains", "fief_set_index_of"):
        real = getattr(library, name)
        monkeypatch.setattr(library, name, lambda *a, _n=name, _r=real: (calls.append(_n), _r(*a))[1])
    assert not ann.lucky.isdisjoint(bob.lucky) and cy.lucky.isdisjoint(bob.lucky)
    assert cy.lucky <= ann.lucky and cy.lucky < ann.lucky and not bob.lucky <= ann.lucky
    assert ann.lucky >= cy.lucky and ann.lucky > cy.lucky and not ann.lucky >= bob.lucky
    assert ann.lucky.issubset(ann.lucky) and ann.lucky.issuperset(ann.lucky) and ann.lucky == ann.lucky
    assert ann.lucky != bob.lucky
    with realm.write():
        ann.lucky |= bob.lucky
        assert ann.lucky == {1, 2, 3, 4, 5}
        ann.lucky -= cy.lucky
        assert ann.lucky == {3, 4, 5}
        ann.lucky &= cy.lucky
        assert ann.lucky == set()
        ann.lucky.update(bob.lucky, cy.lucky)
        ann.lucky.intersection_update(bob.lucky)
        bob.lucky.difference_update(ann.lucky)
    assert ann.lucky == {3, 4, 5} and bob.lucky == set()
    assert not {"fief_set_insert", "fief_set_remove", "fief_set_index_of"} & set(calls)
    assert {"fief_set_form_union", "fief_set_form_intersection", "fief_set_subtract", "fief_set_intersects",
            "fief_set_is_subset_of", "fief_set_is_superset_of"} <= set(calls)


def test_algebra_with_other_sets_goes_element_by_element(realm):
    ann = add_person(realm, lucky={1, 2, 3}, dogs=[Dog(name="Rex"), Dog(name="Max")])
    rex = next(d for d in ann.dogs if d.name == "Rex")
    frozen = ann.freeze()
    with realm.write():
        ann.lucky |= frozen.lucky | {4}            # a fief.Set of another realm handle: element-wise
        assert ann.lucky == {1, 2, 3, 4}
        ann.lucky &= (x for x in [2, 3, 4, 9])     # any iterable
        assert ann.lucky == {2, 3, 4}
        ann.lucky -= frozen.lucky
        assert ann.lucky == {4}
        ann.lucky.update(frozen.lucky)
        assert ann.lucky.issuperset(frozen.lucky) and frozen.lucky.issubset(ann.lucky)
        assert frozen.lucky < ann.lucky and not frozen.lucky.isdisjoint(ann.lucky)
        ann.walked |= frozen.dogs                  # objects of a frozen snapshot of the same file
        assert names(ann.walked) == ["Max", "Rex"]
        ann.walked &= [rex]
        assert names(ann.walked) == ["Rex"] and ann.walked <= ann.dogs and ann.walked < ann.dogs
        ann.walked ^= ann.dogs                     # another fief.Set of the same realm
        assert names(ann.walked) == ["Max"]


# -- assignment replaces ------------------------------------------------------------------


def test_assigning_a_set_replaces_the_contents(realm):
    ann = add_person(realm, lucky={1, 2, 3}, dogs=[Dog(name="Rex")])
    bob = add_person(realm, "Bob", lucky={9})
    lucky = ann.lucky
    rex = next(iter(ann.dogs))
    with realm.write():
        ann.lucky = [7, 8, 7]
        ann.dogs = [Dog(name="Max"), rex, {"name": "Bo"}, rex]
        ann.lucky = ann.lucky            # itself: unchanged
        ann.lucky |= {6}                 # assigns the set to itself
        ann.walked = ann.dogs            # another fief.Set
    assert lucky == {6, 7, 8}            # the same live set
    assert names(ann.dogs) == ["Bo", "Max", "Rex"] and len(realm.objects(Dog)) == 3
    assert ann.walked == ann.dogs
    with realm.write():
        ann.lucky = bob.lucky
        ann.dogs = ()
    assert ann.lucky == {9} and ann.dogs == set() and len(realm.objects(Dog)) == 3


def test_failed_assignment_changes_nothing(realm):
    ann = add_person(realm, lucky={1, 2}, tags={"a", None}, dogs=[Dog(name="Rex")])
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            ann.lucky = [3, "4"]
        with pytest.raises(fief.NullNotAllowedError):
            ann.lucky = {None}
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects"):
            ann.dogs = [Dog(name="New"), ann]
        with pytest.raises(fief.NoSuchPropertyError):
            ann.dogs = [{"nmae": "typo"}]
        with pytest.raises(TypeError, match="is a set"):
            ann.tags = "ab"
        assert ann.lucky == {1, 2} and ann.tags == {"a", None} and names(ann.dogs) == ["Rex"]
        assert len(realm.objects(Dog)) == 1          # nothing added for a refused assignment
    with pytest.raises(fief.NotInTransactionError):
        ann.lucky = {9}
    assert ann.lucky == {1, 2}


# -- add and create ------------------------------------------------------------------


def test_add_writes_sets_and_adds_linked_objects_once(realm):
    rex = Dog(name="Rex")
    ann = Person(name="Ann", lucky={3, 1}, dogs={rex, Dog(name="Max")}, walked={rex})
    bob = Person(name="Bob", dogs={rex})
    with realm.write():
        realm.add(ann)
        realm.add(bob)
    assert rex.is_managed and len(realm.objects(Dog)) == 2
    assert ann.lucky == {1, 3} and names(ann.dogs) == ["Max", "Rex"] and ann.walked == {rex}
    assert bob.dogs == {rex} and rex in ann.dogs and rex in bob.dogs
    assert ann.to_dict()["dogs"] == set(ann.dogs)
    assert "Max" in repr(ann)
    with realm.write():
        realm.add_all([Person(name="Cy", lucky={1}), Person(name="Dee", lucky={2, 3})])
    assert realm.object(Person, "Dee").lucky == {2, 3}
    with pytest.raises(fief.InvalidArgumentError, match="is a set"):
        realm.objects(Person).values("lucky")


def test_failed_add_changes_nothing(realm):
    ann = Person(name="Ann", lucky={1, "two"})
    with realm.write():
        with pytest.raises(fief.TypeMismatchError):
            realm.add(ann)
        assert not ann.is_managed and ann.lucky == {1, "two"}
        assert len(realm.objects(Person)) == 0
        ann.lucky = {1, 2}
        realm.add(ann)
    assert ann.lucky == {1, 2}


def test_upsert_and_create_from_nested_values(realm):
    add_person(realm, lucky={1, 2}, tags={"x"})
    with realm.write():
        realm.add(Person(name="Ann", lucky={3}), update="modified")
    ann = realm.object(Person, "Ann")
    assert ann.lucky == {3} and ann.tags == set()    # every property is set, sets too
    with realm.write():
        realm.create(Person, {"name": "Ann", "tags": ["y"]}, update="modified")
        bob = realm.create(Person, {"name": "Bob", "lucky": (4, 5, 4),
                                    "dogs": [{"name": "Rex"}, Dog(name="Max")],
                                    "walked": [{"name": "Bo"}]})
    assert ann.lucky == {3} and ann.tags == {"y"}    # only the given set
    assert bob.lucky == {4, 5} and names(bob.dogs) == ["Max", "Rex"] and names(bob.walked) == ["Bo"]


def test_sets_survive_reopening(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            realm.add(Person(name="Ann", lucky=set(range(0, 1400, 2)), tags={None, "t"}, dogs={Dog(name="Rex")}))
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        ann = realm.object(Person, "Ann")
        assert list(ann.lucky) == list(range(0, 1400, 2)) and ann.tags == {None, "t"}
        assert names(ann.dogs) == ["Rex"]
        with pytest.raises(fief.ReadOnlyRealmError):
            ann.lucky.add(1)
    assert fief.verify_file(realm_path).ok


# -- links -----------------------------------------------------------------------------


def test_backlinks_through_a_set(realm):
    rex, max_ = Dog(name="Rex"), Dog(name="Max")
    with realm.write():
        ann = realm.add(Person(name="Ann", dogs={rex, max_}))
        realm.add(Person(name="Bob", dogs={rex}))
    assert names(rex.fans) == ["Ann", "Bob"] and names(max_.fans) == ["Ann"]
    fans = rex.fans
    assert len(fans.filter("name BEGINSWITH 'B'")) == 1
    with realm.write():
        ann.dogs.discard(rex)
        assert names(fans) == ["Bob"]
        ann.walked.add(rex)                           # another property: not these backlinks
    assert names(fans) == ["Bob"]


def test_deleting_a_target_takes_it_out_of_every_set(realm):
    rex, max_ = Dog(name="Rex"), Dog(name="Max")
    with realm.write():
        ann = realm.add(Person(name="Ann", dogs={rex, max_}, walked={rex}))
        bob = realm.add(Person(name="Bob", dogs={rex}))
        dogs = ann.dogs
    with realm.write():
        realm.delete(rex)
        assert names(dogs) == ["Max"]
    assert names(dogs) == ["Max"] and bob.dogs == set() and ann.walked == set() and len(dogs) == 1


def test_a_set_of_objects_as_live_results(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", dogs=[Dog(name="Rex"), Dog(name="Max"), Dog(name="Bo")]))
        spare = realm.add(Dog(name="Spare"))
    results = ann.dogs.results()
    in_order = [d.name for d in sorted(ann.dogs, key=lambda d: d.object_key)]
    assert [d.name for d in results] == [d.name for d in ann.dogs] == in_order   # the set's order: object keys
    not_max = ann.dogs.filter("name != $0", "Max")
    assert [d.name for d in not_max] == [n for n in in_order if n != "Max"]
    assert [d.name for d in results.sort("name")] == ["Bo", "Max", "Rex"]
    with realm.write():                                                # live
        ann.dogs.add(spare)
    assert [d.name for d in not_max] == [n for n in in_order if n != "Max"] + ["Spare"]
    with realm.write():
        ann.dogs.discard(spare)
        realm.delete(ann.dogs)                                         # delete_all
    assert ann.dogs == set() and [d.name for d in realm.objects(Dog)] == ["Spare"] and len(results) == 0
    # A set of values turns into results of its values, in the set's order.
    assert list(ann.lucky.results()) == list(ann.lucky)
    assert ann.lucky.sum() == sum(ann.lucky)
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="hold values"):
            ann.lucky.delete_all()


def test_a_set_refuses_objects_it_cannot_hold(realm, tmp_path):
    ann = add_person(realm, toys=[Toy(label="t")])
    with realm.write():
        gone = realm.add(Dog(name="Gone"))
        realm.delete(gone)
        with pytest.raises(fief.NoSuchObjectError, match="does not exist"):
            ann.dogs.add(gone)                               # a deleted object
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects, not to a Person"):
            ann.dogs.add(ann)                                # an object of another class
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects, not to a Toy"):
            ann.dogs.add(ann.toys[0])                        # an embedded object
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects, not to a Person"):
            ann.dogs.add(Person(name="New"))                 # unmanaged, another class: not added
        with pytest.raises(fief.TypeMismatchError):
            ann.dogs.add(3)
        with pytest.raises(fief.TypeMismatchError):
            ann.dogs.update([Dog(name="Ok"), 3])             # all or nothing: the dog is not added
        with pytest.raises(fief.NoSuchObjectError):
            ann.dogs.update([Dog(name="Ok"), gone])
        with pytest.raises(fief.NoSuchPropertyError):
            ann.dogs.update([{"name": "Ok"}, {"nmae": "typo"}])  # the first dict is not added
        with pytest.raises(fief.TypeMismatchError, match="unknown class 999"):
            ann.dogs.add(fief.Link(999, 0))
        assert len(realm.objects(Person)) == 1 and len(realm.objects(Dog)) == 0
    assert ann.dogs == set()
    with fief.Realm.open(tmp_path / "other.fief", schema=MODELS) as other:
        with other.write():
            stranger = other.add(Dog(name="Stranger"))
        with realm.write():
            with pytest.raises(fief.LogicError, match="another realm file"):
                ann.dogs.add(stranger)
            with pytest.raises(fief.LogicError, match="another realm file"):
                ann.dogs = [stranger]
        assert stranger not in ann.dogs                       # same keys, another file: not here
    assert ann.dogs == set()
    assert Dog(name="unmanaged") not in ann.dogs and ann not in ann.dogs


# -- frozen sets --------------------------------------------------------------------------


def test_frozen_sets_keep_their_version(realm):
    ann = add_person(realm, lucky={1, 2}, dogs=[Dog(name="Rex")])
    frozen_ann = ann.freeze()
    frozen_lucky = frozen_ann.lucky
    also_frozen = ann.lucky.freeze()
    assert frozen_lucky.is_frozen and also_frozen.is_frozen and not ann.lucky.is_frozen
    with realm.write():
        ann.lucky.add(3)
        ann.dogs.clear()
    assert frozen_lucky == {1, 2} and also_frozen == {1, 2} and ann.lucky == {1, 2, 3}
    assert names(frozen_ann.dogs) == ["Rex"] and next(iter(frozen_ann.dogs)).is_frozen
    with pytest.raises(fief.FrozenRealmError):
        frozen_lucky.add(4)
    assert frozen_lucky.freeze() is frozen_lucky
    thawed = frozen_lucky.thaw()
    assert thawed == {1, 2, 3} and not thawed.is_frozen
    assert realm.resolve(also_frozen) == {1, 2, 3}
    with realm.write():
        realm.delete(ann)
    assert realm.resolve(also_frozen) is None and frozen_lucky.thaw() is None
    assert frozen_lucky == {1, 2}


# -- errors ------------------------------------------------------------------------------


def test_errors_change_nothing(realm):
    ann = add_person(realm, lucky={1, 2, 3}, tags={"a"})
    lucky = ann.lucky
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            lucky.add("4")
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not double"):
            lucky.add(1.5)
        with pytest.raises(fief.NullNotAllowedError):
            lucky.add(None)
        with pytest.raises(fief.TypeMismatchError):
            lucky.update([4, 5, "6"])                  # all or nothing
        with pytest.raises(fief.NullNotAllowedError):
            lucky |= {7, None}
        with pytest.raises(fief.TypeMismatchError):
            lucky.add(object())
        with pytest.raises(fief.InvalidArgumentError):
            lucky.add(2 ** 64)
        with pytest.raises(fief.InvalidUTF8Error):
            ann.tags.add("\ud800")
        with pytest.raises(KeyError):
            lucky.remove(404)
        with pytest.raises(TypeError, match="is a set"):
            lucky.update("abc")
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            lucky |= ann.tags                          # a fief.Set of another element type
        assert lucky == {1, 2, 3} and ann.tags == {"a"}
        lucky.discard("not an int")                    # never there: nothing happens
        lucky.discard(object())
    assert lucky == {1, 2, 3}
    assert "x" not in lucky and object() not in lucky and None not in lucky


@pytest.mark.parametrize("write", [
    lambda p: p.lucky.add(4),
    lambda p: p.lucky.add(1),
    lambda p: p.lucky.discard(1),
    lambda p: p.lucky.remove(1),
    lambda p: p.lucky.pop(),
    lambda p: p.lucky.clear(),
    lambda p: p.lucky.update([4, 5]),
    lambda p: p.lucky.__ior__({4}),
    lambda p: p.lucky.__iand__({1}),
    lambda p: p.lucky.__isub__({1}),
    lambda p: p.lucky.__ixor__({1}),
    lambda p: p.lucky.__ior__(p.freeze().lucky),
    lambda p: setattr(p, "lucky", {9}),
    lambda p: p.dogs.add(next(iter(p.dogs))),
    lambda p: p.dogs.add(Dog(name="New")),
    lambda p: p.dogs.delete_all(),
])
def test_writes_outside_a_transaction_are_refused(realm, write):
    ann = add_person(realm, lucky={1, 2, 3}, dogs=[Dog(name="Rex")])
    bob = add_person(realm, "Bob", lucky={2, 7})
    with pytest.raises(fief.NotInTransactionError, match="outside a write transaction"):
        write(ann)
    with pytest.raises(fief.NotInTransactionError):
        ann.lucky.intersection_update(bob.lucky)
    assert ann.lucky == {1, 2, 3} and names(ann.dogs) == ["Rex"] and len(realm.objects(Dog)) == 1


def test_a_deleted_owner_and_a_released_handle(realm):
    ann = add_person(realm, lucky={1})
    lucky = ann.lucky
    assert lucky.is_valid
    with realm.write():
        realm.delete(ann)
        assert not lucky.is_valid
        with pytest.raises(fief.InvalidatedObjectError, match="deleted"):
            len(lucky)
        with pytest.raises(fief.InvalidatedObjectError):
            lucky.add(2)
        with pytest.raises(fief.InvalidatedObjectError):
            1 in lucky
        with pytest.raises(fief.InvalidatedObjectError):
            ann.lucky
    assert "InvalidatedObjectError" in repr(lucky)
    bob = add_person(realm, "Bob", lucky={1})
    lucky = bob.lucky
    lucky.release()
    assert not lucky.is_valid
    with realm.write():
        with pytest.raises(fief.InvalidHandleError, match="released"):
            lucky.add(2)
        with pytest.raises(fief.InvalidHandleError):
            len(lucky)
    assert bob.lucky == {1}


def test_a_closed_realm(realm_path):
    realm = fief.Realm.open(realm_path, schema=MODELS)
    ann = add_person(realm, lucky={1})
    lucky = ann.lucky
    realm.close()
    with pytest.raises(fief.RealmClosedError):
        list(lucky)
    with pytest.raises(fief.RealmClosedError):
        1 in lucky


# -- in embedded objects and subclasses ---------------------------------------------------------------


class Badge(fief.EmbeddedObject):
    words: set[str]


class Wall(fief.Object):
    badges: list[Badge]
    seen: set[int]


class LabelledWall(Wall):  # inherits the set property
    label: str = ""


def test_sets_in_embedded_objects_and_inherited_sets(tmp_path):
    with fief.Realm.open(tmp_path / "nested.fief", schema=[Badge, LabelledWall]) as realm:
        with realm.write():
            wall = realm.add(LabelledWall(label="w", seen={3, 1}, badges=[Badge(words={"b", "a"})]))
        badge = wall.badges[0]
        assert wall.seen == {1, 3} and list(badge.words) == ["a", "b"]
        with realm.write():
            copy = wall.badges.pop()
        assert not badge.is_valid and not copy.is_managed and copy.words == {"a", "b"} and type(copy.words) is set
        with realm.write():
            wall.badges.append(copy)
        assert wall.badges[0].words == {"a", "b"}
        assert [s.attr for s in LabelledWall.__fief_properties__] == ["badges", "seen", "label"]
