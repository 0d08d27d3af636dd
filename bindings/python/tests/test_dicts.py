"""Dict (map) properties: declared as dict[str, X] (values of every scalar
type, optional or not, objects and embedded objects), read and written
through a live fief.Dict (a MutableMapping checked against a Python dict),
in key order, with batched views; replaced by assignment, written by add
and create, kept across reopening, with backlinks, deleted targets nulling
values, embedded values created in place and deleted when replaced, live
results, frozen dicts, refused keys, and every error of the C layer
surfacing as the package's exceptions without a change."""

from __future__ import annotations

import datetime as dt
import decimal
import random
import typing
import uuid
from collections.abc import ItemsView, KeysView, MutableMapping, ValuesView
from typing import Optional

import pytest

import fief
from fief import _lib as L


class Dog(fief.Object):
    name: str = ""
    keepers = fief.Backlinks("Person", "pets")


class Address(fief.EmbeddedObject):
    street: str = ""
    city: Optional[str] = None
    zips: set[int]


class Person(fief.Object):
    name: fief.PrimaryKey[str]
    scores: dict[str, int]
    marks: dict[str, Optional[float]]
    pets: dict[str, Optional[Dog]]
    homes: dict[str, Optional[Address]]
    friends: typing.Dict[str, Optional["Person"]]     # typing.Dict and a forward reference
    weights: dict[str, float] = {"base": 1.0}          # a default, copied for every object


UTC = dt.timezone.utc
OID = fief.ObjectId("5f1d7a3b9c8e4d2a1b0c9d8e")
UID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class Everything(fief.Object):
    ints: dict[str, int]
    bools: dict[str, bool]
    doubles: dict[str, float]
    floats: dict[str, fief.Float32]
    strings: dict[str, str]
    blobs: dict[str, bytes]
    times: dict[str, dt.datetime]
    decimals: dict[str, fief.Decimal128]
    pydecimals: dict[str, decimal.Decimal]
    oids: dict[str, fief.ObjectId]
    uids: dict[str, uuid.UUID]
    o_ints: dict[str, Optional[int]]
    o_bools: dict[str, Optional[bool]]
    o_doubles: dict[str, Optional[float]]
    o_floats: dict[str, Optional[fief.Float32]]
    o_strings: dict[str, Optional[str]]
    o_blobs: dict[str, Optional[bytes]]
    o_times: dict[str, Optional[dt.datetime]]
    o_decimals: dict[str, Optional[fief.Decimal128]]
    o_oids: dict[str, Optional[fief.ObjectId]]
    o_uids: dict[str, Optional[uuid.UUID]]


EVERYTHING = dict(
    ints={"a": 0, "b": -1, "c": 2 ** 63 - 1, "d": -2 ** 63},
    bools={"t": True, "f": False},
    doubles={"x": 0.0, "y": -1.5, "z": float("inf")},
    floats={"h": 0.5, "q": -2.25},
    strings={"e": "", "s": "héllo", "l": "x" * 5000},
    blobs={"0": b"", "1": b"\x00\xff", "2": bytes(range(256)) * 20},
    times={"epoch": dt.datetime(1970, 1, 1, tzinfo=UTC), "leap": dt.datetime(2024, 2, 29, 12, 30, 5, 123456, tzinfo=UTC)},
    decimals={"p": fief.Decimal128("1.25"), "big": fief.Decimal128("1E+6111")},
    pydecimals={"pi": decimal.Decimal("3.14159")},
    oids={"o": OID, "z": fief.ObjectId(bytes(12))},
    uids={"u": UID},
    o_ints={"n": None, "one": 1},
    o_bools={"n": None, "f": False},
    o_doubles={"n": None, "d": 2.5},
    o_floats={"n": None, "f": 0.25},
    o_strings={"n": None, "e": ""},
    o_blobs={"n": None, "b": b"x"},
    o_times={"n": None, "t": dt.datetime(2000, 1, 1, tzinfo=UTC)},
    o_decimals={"n": None, "d": fief.Decimal128("0.1")},
    o_oids={"n": None, "o": OID},
    o_uids={"n": None, "u": UID},
)

MODELS = [Dog, Address, Person, Everything]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def add_person(realm, name="Ann", **values):
    with realm.write():
        return realm.add(Person(name=name, **values))


def bytewise(keys):
    return sorted(keys, key=lambda k: k.encode("utf-8"))


def shown(d):
    """A dict's entries with objects shown by name (embedded ones by street)."""
    def one(v):
        if isinstance(v, Dog):
            return v.name
        if isinstance(v, Address):
            return v.street
        return v
    return {k: one(v) for k, v in d.items()}


# -- declarations and schema ---------------------------------------------------


def test_declarations():
    specs = {s.attr: s for s in Person.__fief_properties__}
    assert specs["scores"].is_dict and specs["scores"].is_collection and not specs["scores"].is_set
    assert specs["scores"].fief_type == L.TYPE_INT and not specs["scores"].nullable
    assert specs["marks"].nullable and specs["marks"].fief_type == L.TYPE_DOUBLE
    assert specs["pets"].link_target == "Dog" and specs["pets"].nullable and specs["pets"].fief_type == L.TYPE_LINK
    assert specs["homes"].link_target == "Address" and specs["homes"].nullable
    assert specs["friends"].is_dict and specs["friends"].link_target == "Person"
    assert specs["scores"].collection == L.COLLECTION_MAP
    assert repr(specs["marks"]) == "<fief property marks: dict of str to optional double>"
    assert repr(specs["pets"]) == "<fief property pets: dict of str to optional link to Dog>"


@pytest.mark.parametrize("annotation,message", [
    ("dict", "give the key and value types of a dict"),
    ("typing.Dict", "give the key and value types of a dict"),
    ("dict[int, int]", "keys of a dict property are strings: declare it dict\\[str, ...\\], not with 'int' keys"),
    ("dict[bytes, str]", "keys of a dict property are strings"),
    ("dict[Optional[str], int]", "keys of a dict property are strings"),
    ("typing.Dict[uuid.UUID, int]", "keys of a dict property are strings"),
    ("dict[str, Dog]", "always optional|objects or None.*declare it dict\\[str, Optional\\[Dog\\]\\]"),
    ("dict[str, Address]", "declare it dict\\[str, Optional\\[Address\\]\\]"),
    ("dict[str, 'Dog']", "declare it dict\\[str, Optional\\[Dog\\]\\]"),
    ("Optional[dict[str, int]]", "never optional"),
    ("dict[str, dict[str, int]]", "element of another list, set or dict"),
    ("dict[str, list[int]]", "element of another list, set or dict"),
    ("list[dict[str, int]]", "element of another list, set or dict"),
    ("set[dict[str, int]]", "element of another list, set or dict"),
    ("fief.PrimaryKey[dict[str, int]]", "a primary key"),
    ("dict[str, fief.Indexed[int]]", "neither primary keys nor indexed"),
    ("dict[str, complex]", "unsupported property type"),
])
def test_declaration_errors(annotation, message):
    with pytest.raises(TypeError, match=message):
        exec(f"class Bad(fief.Object):\n    values: {annotation}\n",
             {"__name__": __name__, "fief": fief, "Optional": Optional, "Dog": Dog, "Address": Address,
              "typing": typing, "uuid": uuid})


def test_declaration_options_refused():
    with pytest.raises(TypeError, match="a dict is neither a primary key nor indexed"):
        class Bad(fief.Object):
            values: dict[str, int] = fief.Property(primary_key=True)
    with pytest.raises(TypeError, match="a dict is never null"):
        class Bad2(fief.Object):
            values: dict[str, int] = fief.Property(optional=True)


def test_schema_read_back_shows_maps(realm):
    person = next(c for c in realm.schema if c.name == "Person")
    props = person.properties
    assert props["scores"].is_map and props["scores"].is_dict and props["scores"].type_name == "int"
    assert props["scores"].collection_type == L.COLLECTION_MAP == 3
    assert props["marks"].nullable and props["marks"].type_name == "double"
    assert props["pets"].is_map and props["pets"].link_target == "Dog" and props["pets"].nullable
    assert props["homes"].link_target == "Address" and not props["homes"].is_list and not props["homes"].is_set
    with fief.Realm.open(realm.path) as again:  # the file's own schema, no model classes
        person = next(c for c in again.schema if c.name == "Person")
        assert person.properties["friends"].is_map and person.properties["friends"].link_target == "Person"


# -- unmanaged objects -----------------------------------------------------------


def test_unmanaged_objects_hold_plain_dicts():
    ann, bob = Person(name="Ann"), Person(name="Bob")
    assert ann.scores == {} and type(ann.scores) is dict
    ann.scores["a"] = 3
    assert ann.scores == {"a": 3} and bob.scores == {}
    assert ann.weights == {"base": 1.0} and ann.weights is not bob.weights  # the default is copied
    mine = {"x": 1}
    cy = Person(name="Cy", scores=mine)
    assert cy.scores is mine
    cy.marks = [("a", None), ("b", 2.5)]
    assert cy.marks == {"a": None, "b": 2.5}
    for bad in ("abc", 5, None, [1, 2]):
        with pytest.raises(TypeError, match="is a dict"):
            cy.scores = bad
    with pytest.raises(TypeError, match="is a dict"):
        Person(name="Dan", scores=5)
    assert cy.to_dict()["scores"] == {"x": 1}


# -- every scalar type, in key order -----------------------------------------------------


def test_every_scalar_type_round_trips(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            obj = realm.add(Everything(**EVERYTHING))
        for attr, expected in EVERYTHING.items():
            d = getattr(obj, attr)
            assert isinstance(d, fief.Dict)
            assert dict(d) == expected and d == expected, attr
            assert list(d) == bytewise(expected), attr          # key order
            assert list(d.values()) == [expected[k] for k in bytewise(expected)], attr
            for key, value in expected.items():
                assert d[key] == value and key in d, (attr, key)
        assert isinstance(obj.decimals["p"], fief.Decimal128)
        assert type(obj.pydecimals["pi"]) is decimal.Decimal
        with realm.write():
            for attr, expected in EVERYTHING.items():
                d = getattr(obj, attr)
                first = bytewise(expected)[0]
                d["new"] = expected[first]
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        obj = realm.objects(Everything)[0]
        for attr, expected in EVERYTHING.items():
            assert getattr(obj, attr) == {**expected, "new": expected[bytewise(expected)[0]]}, attr


def test_keys_are_in_bytewise_order(realm):
    keys = ["b", "B", "ab", "a", "", "é", "e", "\u00ff", "\u0100", "z", "a$", "\U0001F600", "Z9", "a\x00"]
    ann = add_person(realm, scores={k: i for i, k in enumerate(keys)})
    assert list(ann.scores) == bytewise(keys) == list(ann.scores.keys())
    assert [k for k, _ in ann.scores.items()] == bytewise(keys)


def test_numbers_convert(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", marks={"i": 1}))      # an int into a dict of doubles
        obj = realm.add(Everything(floats={"f": 0.1}, decimals={"d": 7}))
    assert ann.marks == {"i": 1.0} and isinstance(ann.marks["i"], float)
    assert obj.decimals["d"] == fief.Decimal128(7)
    assert abs(obj.floats["f"] - 0.1) < 1e-7                      # 32 bits


# -- the operations, against a Python dict ------------------------------------------


def test_every_operation_against_a_python_dict(realm):
    ann = add_person(realm, scores={"b": 2, "a": 1, "c": 3})
    model = {"b": 2, "a": 1, "c": 3}
    scores = ann.scores
    assert isinstance(scores, fief.Dict) and isinstance(scores, MutableMapping)

    def check():
        assert list(scores) == sorted(model)
        assert len(scores) == len(model) and bool(scores) == bool(model)
        assert scores == model and model == scores and not (scores != model)
        assert dict(scores.items()) == model and list(scores.values()) == [model[k] for k in sorted(model)]
        for key in ["a", "b", "c", "d", "zz", ""]:
            assert (key in scores) == (key in model)
            assert scores.get(key) == model.get(key) and scores.get(key, -1) == model.get(key, -1)

    check()
    with realm.write():
        scores["d"] = 4; model["d"] = 4; check()
        scores["a"] = 10; model["a"] = 10; check()
        del scores["b"]; del model["b"]; check()
        with pytest.raises(KeyError):
            del scores["b"]
        with pytest.raises(KeyError):
            scores["b"]
        assert scores.pop("c") == model.pop("c"); check()
        assert scores.pop("c", None) is None and scores.pop("c", 7) == 7
        with pytest.raises(KeyError):
            scores.pop("c")
        assert scores.setdefault("a", 99) == model.setdefault("a", 99); check()
        assert scores.setdefault("e", 5) == model.setdefault("e", 5); check()
        scores.update({"f": 6, "a": 11}, g=7); model.update({"f": 6, "a": 11}, g=7); check()
        scores.update([("h", 8)]); model.update([("h", 8)]); check()
        scores |= {"i": 9}; model |= {"i": 9}; check()
        assert scores.popitem() == ("a", 11); del model["a"]; check()
        scores |= scores; check()                              # itself
    assert scores | {"z": 0} == model | {"z": 0} and type(scores | {"z": 0}) is dict
    assert {"z": 0, "d": 1} | scores == {"z": 0, "d": 1} | model
    assert scores != {"d": 4} and scores != list(model)
    assert repr(scores) == "fief.Dict({" + ", ".join(f"{k!r}: {v!r}" for k, v in sorted(model.items())) + "})"
    keys, values, items = scores.keys(), scores.values(), scores.items()
    assert isinstance(keys, KeysView) and isinstance(values, ValuesView) and isinstance(items, ItemsView)
    assert "d" in keys and "zz" not in keys and 4 in values and ("d", 4) in items and ("d", 5) not in items
    assert len(keys) == len(values) == len(items) == len(model)
    assert keys & {"d", "zz"} == {"d"} and keys == set(model)
    with realm.write():                                         # views are live
        scores["new"] = 100; model["new"] = 100
    assert list(keys) == sorted(model) and ("new", 100) in items and 100 in values
    assert repr(keys) == f"fief.DictKeys({sorted(model)!r})"
    with realm.write():
        scores.clear(); model.clear(); check()
        scores.update(); check()
    assert repr(scores) == "fief.Dict({})"
    with pytest.raises(KeyError, match="empty"):
        with realm.write():
            scores.popitem()
    with pytest.raises(TypeError):
        hash(scores)


def test_optional_values(realm):
    ann = add_person(realm, marks={"a": None, "b": 1.5})
    assert ann.marks["a"] is None and "a" in ann.marks and ann.marks.get("a", 7) is None
    with realm.write():
        ann.marks["b"] = None
        ann.marks["c"] = None
    assert ann.marks == {"a": None, "b": None, "c": None}


def test_views_read_in_batches(realm, library, monkeypatch):
    ann = add_person(realm)
    calls: dict[str, int] = {}
    for name in ("fief_map_get", "fief_map_get_entry", "fief_map_get_entries", "fief_map_contains_key"):
        real = getattr(library, name)
        monkeypatch.setattr(library, name,
                            lambda *a, _n=name, _r=real: (calls.__setitem__(_n, calls.get(_n, 0) + 1), _r(*a))[1])
    model = {f"k{i:05}": i for i in range(2100)}
    with realm.write():
        ann.scores.update(model)
    calls.clear()
    batches = 2100 // 512 + 1
    assert list(ann.scores) == list(model)
    assert calls == {"fief_map_get_entries": batches}
    assert list(ann.scores.values()) == list(model.values())
    assert list(ann.scores.items()) == list(model.items())
    assert dict(ann.scores) == model                             # keys in batches, then one get each
    calls.clear()
    assert "k00007" in ann.scores and ann.scores["k00008"] == 8
    assert calls == {"fief_map_contains_key": 1, "fief_map_get": 1}


def test_random_operations_against_a_python_dict(realm_path):
    rng = random.Random(20240611)
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            ann = realm.add(Person(name="Ann"))
            kennel = [realm.add(Dog(name=f"d{i}")) for i in range(6)]
        models: dict[str, dict] = {"scores": {}, "marks": {}, "pets": {}, "homes": {}}
        keys = ["", "a", "b", "B", "é", "ab", "z" * 40, "k1", "k2", "\U0001F600"]

        def value(kind):
            if kind == "scores":
                return rng.randrange(-50, 50)
            if kind == "marks":
                return rng.choice([None, 0.5, -2.0, 1e10])
            if kind == "pets":
                return rng.choice(kennel + [None])
            return rng.choice([None, {"street": f"s{rng.randrange(100)}"}, Address(street=f"t{rng.randrange(100)}")])

        def view(kind, v):
            if kind == "pets":
                return v.name if v is not None else None
            if kind == "homes":
                return v["street"] if isinstance(v, dict) else v.street if v is not None else None
            return v

        for _ in range(50):
            with realm.write():
                for _ in range(rng.randrange(1, 10)):
                    kind = rng.choice(list(models))
                    d, model = getattr(ann, kind), models[kind]
                    op = rng.choice(["set", "set", "del", "pop", "update", "setdefault", "clear", "assign",
                                     "popitem"])
                    key = rng.choice(keys)
                    if op == "set":
                        v = value(kind); d[key] = v; model[key] = view(kind, v)
                    elif op == "del":
                        if key in model:
                            del d[key]; del model[key]
                        else:
                            with pytest.raises(KeyError):
                                del d[key]
                    elif op == "pop":
                        got, expected = d.pop(key, "missing"), model.pop(key, "missing")
                        assert (got if isinstance(got, str) and got == "missing" else view(kind, got)) == expected
                    elif op == "update":
                        new = {rng.choice(keys): value(kind) for _ in range(rng.randrange(0, 4))}
                        d.update(new); model.update({k: view(kind, v) for k, v in new.items()})
                    elif op == "setdefault" and kind in ("scores", "marks"):
                        v = value(kind); assert d.setdefault(key, v) == model.setdefault(key, v)
                    elif op == "clear" and rng.random() < 0.2:
                        d.clear(); model.clear()
                    elif op == "assign" and rng.random() < 0.3:
                        new = {rng.choice(keys): value(kind) for _ in range(rng.randrange(0, 4))}
                        setattr(ann, kind, new); model.clear(); model.update({k: view(kind, v) for k, v in new.items()})
                    elif op == "popitem" and model:
                        k, v = d.popitem()
                        first = bytewise(model)[0]
                        assert k == first and view(kind, v) == model.pop(first)
            for kind, model in models.items():
                d = getattr(ann, kind)
                assert list(d) == bytewise(model), kind
                assert {k: view(kind, v) for k, v in d.items()} == model, kind
        assert len(realm.objects(Dog)) == 6
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        ann = realm.object(Person, "Ann")
        for kind, model in models.items():
            assert {k: view(kind, v) for k, v in getattr(ann, kind).items()} == model, kind
    assert fief.verify_file(realm_path).ok


# -- keys ------------------------------------------------------------------------------


@pytest.mark.parametrize("key,error,message", [
    ("a.b", fief.InvalidArgumentError, "a map key cannot contain '.': 'a.b'"),
    (".", fief.InvalidArgumentError, "cannot contain '.'"),
    ("$a", fief.InvalidArgumentError, "a map key cannot start with '\\$': '\\$a'"),
    ("x" * 481, fief.InvalidArgumentError, "at most 480 bytes, not 481"),
    ("é" * 241, fief.InvalidArgumentError, "at most 480 bytes, not 482"),
    ("\ud800", fief.InvalidUTF8Error, None),
    (1, fief.TypeMismatchError, "the keys of Person\\.\\w+ are strings, not int"),
    (None, fief.TypeMismatchError, "not NoneType"),
    (b"a", fief.TypeMismatchError, "not bytes"),
])
def test_refused_keys_write_nothing(realm, key, error, message):
    ann = add_person(realm, scores={"ok": 1}, homes={"h": {"street": "Main"}}, pets={"p": Dog(name="Rex")})
    home = ann.homes["h"]
    with realm.write():
        with pytest.raises(error, match=message):
            ann.scores[key] = 2
        with pytest.raises(error, match=message):
            ann.scores.update([("fine", 3), (key, 2)])          # all or nothing
        with pytest.raises(error, match=message):
            ann.scores = {"fine": 3, key: 2}
        with pytest.raises(error, match=message):
            ann.homes[key] = {"street": "Elm"}                    # nothing created in place
        with pytest.raises(error):
            ann.pets[key] = Dog(name="New")                       # the new dog is not added
        with pytest.raises(error):
            ann.pets[key] = ann.pets["p"]
        assert ann.scores == {"ok": 1} and list(ann.homes) == ["h"] and home.is_valid
        assert len(realm.objects(Dog)) == 1
    assert key not in ann.scores and ann.scores.get(key) is None  # reading such a key finds nothing
    with pytest.raises(KeyError):
        ann.scores[key]
    if isinstance(key, str):
        with realm.write():
            with pytest.raises(KeyError):
                del ann.scores[key]
            assert ann.scores.pop(key, None) is None


def test_accepted_keys(realm):
    keys = ["", "a$", "x" * 480, "é" * 240, "a\x00b", " ", "a b", "\U0001F600"]
    ann = add_person(realm, scores={k: len(k) for k in keys})
    assert dict(ann.scores) == {k: len(k) for k in keys}


# -- assignment replaces --------------------------------------------------------------


def test_assigning_a_dict_replaces_the_contents(realm):
    ann = add_person(realm, scores={"a": 1, "b": 2}, pets={"r": Dog(name="Rex")},
                     homes={"h": Address(street="Main"), "w": Address(street="Work")})
    bob = add_person(realm, "Bob", scores={"z": 26})
    scores = ann.scores
    rex = ann.pets["r"]
    home, work = ann.homes["h"], ann.homes["w"]
    with realm.write():
        ann.scores = {"b": 20, "c": 3}
        ann.pets = {"r": rex, "m": Dog(name="Max"), "b": {"name": "Bo"}, "n": None}
        ann.scores = ann.scores            # itself: unchanged
        ann.scores |= {"d": 4}             # assigns the dict to itself
        ann.homes = {"h": home, "x": {"street": "New"}}   # the same object for the same key stays
    assert scores == {"b": 20, "c": 3, "d": 4}              # the same live dict
    assert shown(ann.pets) == {"b": "Bo", "m": "Max", "n": None, "r": "Rex"} and len(realm.objects(Dog)) == 3
    assert home.is_valid and not work.is_valid and shown(ann.homes) == {"h": "Main", "x": "New"}
    with realm.write():
        ann.scores = bob.scores
        ann.pets = {}
        ann.homes = dict(ann.homes)       # the same objects for the same keys
    assert ann.scores == {"z": 26} and ann.pets == {} and len(realm.objects(Dog)) == 3
    assert home.is_valid and shown(ann.homes) == {"h": "Main", "x": "New"}


def test_failed_assignment_and_update_change_nothing(realm):
    ann = add_person(realm, scores={"a": 1, "b": 2}, pets={"r": Dog(name="Rex")},
                     homes={"h": Address(street="Main", city="X", zips={1, 2})})
    home = ann.homes["h"]
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            ann.scores = {"a": 5, "c": "3"}
        with pytest.raises(fief.TypeMismatchError):
            ann.scores.update({"b": 7, "a": "x"})
        with pytest.raises(fief.NullNotAllowedError):
            ann.scores.update(z=1, a=None)
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects"):
            ann.pets = {"n": Dog(name="New"), "p": ann}
        with pytest.raises(fief.NoSuchPropertyError):
            ann.pets = {"n": {"nmae": "typo"}}
        with pytest.raises(fief.TypeMismatchError, match="holds string values, not int"):
            ann.homes["h"] = {"street": 5}                       # replacing fails: the old one comes back
        with pytest.raises(fief.TypeMismatchError):
            ann.homes = {"h": {"street": "Elm"}, "w": {"street": 5}}
        with pytest.raises(TypeError, match="is a dict"):
            ann.scores = "ab"
        assert ann.scores == {"a": 1, "b": 2} and shown(ann.pets) == {"r": "Rex"}
        assert len(realm.objects(Dog)) == 1
        back = ann.homes["h"]
        assert list(ann.homes) == ["h"] and (back.street, back.city, back.zips) == ("Main", "X", {1, 2})
    assert not home.is_valid   # replaced and restored: a new object with the same values
    with pytest.raises(fief.NotInTransactionError):
        ann.scores = {"x": 9}
    assert ann.scores == {"a": 1, "b": 2}


# -- add and create ------------------------------------------------------------------


def test_add_writes_dicts_and_adds_linked_objects_once(realm):
    rex = Dog(name="Rex")
    ann = Person(name="Ann", scores={"a": 1}, pets={"r": rex, "again": rex, "max": Dog(name="Max"), "none": None},
                 homes={"h": Address(street="Main", zips={9})})
    bob = Person(name="Bob", friends={"ann": ann})
    ann.friends = {"bob": bob, "me": ann}           # cycles: each object added once
    with realm.write():
        realm.add(ann)
    assert bob.is_managed and rex.is_managed and len(realm.objects(Dog)) == 2 and len(realm.objects(Person)) == 2
    assert shown(ann.pets) == {"again": "Rex", "max": "Max", "none": None, "r": "Rex"}
    assert ann.pets["r"] == ann.pets["again"] == rex
    assert ann.friends == {"bob": bob, "me": ann} and bob.friends == {"ann": ann}
    assert ann.homes["h"].zips == {9}
    assert ann.to_dict()["scores"] == {"a": 1} and "Person(...)" in repr(ann)
    with realm.write():
        realm.add_all([Person(name="Cy", scores={"x": 1}), Person(name="Dee", scores={"y": 2})])
    assert realm.object(Person, "Dee").scores == {"y": 2}
    with pytest.raises(fief.InvalidArgumentError, match="is a dict"):
        realm.objects(Person).values("scores")


def test_failed_add_changes_nothing(realm):
    ann = Person(name="Ann", scores={"a": 1, "b": "two"})
    with realm.write():
        with pytest.raises(fief.TypeMismatchError):
            realm.add(ann)
        assert not ann.is_managed and ann.scores == {"a": 1, "b": "two"}
        assert len(realm.objects(Person)) == 0
        ann.scores["b"] = 2
        realm.add(ann)
    assert ann.scores == {"a": 1, "b": 2}


def test_upsert_and_create_from_nested_values(realm):
    add_person(realm, scores={"a": 1}, marks={"m": 1.0})
    with realm.write():
        realm.add(Person(name="Ann", scores={"b": 2}), update="modified")
    ann = realm.object(Person, "Ann")
    assert ann.scores == {"b": 2} and ann.marks == {}          # every property is set, dicts too
    with realm.write():
        realm.create(Person, {"name": "Ann", "marks": {"n": None}}, update="modified")
        bob = realm.create(Person, {
            "name": "Bob",
            "scores": [("x", 1), ("y", 2)],
            "pets": {"rex": {"name": "Rex"}, "max": Dog(name="Max")},
            "homes": {"h": {"street": "Main", "zips": [1, 2]}, "w": Address(street="Work")},
            "friends": {"cy": {"name": "Cy", "scores": {"c": 3}, "homes": {"c": {"street": "Cy St"}}}},
        })
    assert ann.scores == {"b": 2} and ann.marks == {"n": None}  # only the given dict
    assert bob.scores == {"x": 1, "y": 2} and shown(bob.pets) == {"max": "Max", "rex": "Rex"}
    assert shown(bob.homes) == {"h": "Main", "w": "Work"} and bob.homes["h"].zips == {1, 2}
    cy = bob.friends["cy"]
    assert cy.name == "Cy" and cy.scores == {"c": 3} and shown(cy.homes) == {"c": "Cy St"}


def test_dicts_survive_reopening(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            realm.add(Person(name="Ann", scores={f"k{i:04}": i for i in range(700)}, marks={"n": None},
                             pets={"r": Dog(name="Rex")}, homes={"h": Address(street="Main")}))
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        ann = realm.object(Person, "Ann")
        assert ann.scores == {f"k{i:04}": i for i in range(700)} and ann.marks == {"n": None}
        assert shown(ann.pets) == {"r": "Rex"} and shown(ann.homes) == {"h": "Main"}
        with pytest.raises(fief.ReadOnlyRealmError):
            ann.scores["x"] = 1
    assert fief.verify_file(realm_path).ok


# -- links -----------------------------------------------------------------------------


def test_backlinks_through_a_dict(realm):
    rex, max_ = Dog(name="Rex"), Dog(name="Max")
    with realm.write():
        ann = realm.add(Person(name="Ann", pets={"a": rex, "b": rex, "m": max_}))
        realm.add(Person(name="Bob", pets={"r": rex}))
    assert sorted(p.name for p in rex.keepers) == ["Ann", "Bob"]   # Ann once, though there twice
    assert [p.name for p in max_.keepers] == ["Ann"]
    keepers = rex.keepers
    assert len(keepers.filter("name BEGINSWITH 'B'")) == 1
    with realm.write():
        del ann.pets["a"]
        assert len(keepers) == 2
        ann.pets["b"] = None
        assert [p.name for p in keepers] == ["Bob"]


def test_deleting_a_target_nulls_dict_values(realm):
    rex, max_ = Dog(name="Rex"), Dog(name="Max")
    with realm.write():
        ann = realm.add(Person(name="Ann", pets={"a": rex, "b": max_, "c": rex}))
        bob = realm.add(Person(name="Bob", pets={"r": rex}))
        pets = ann.pets
    results = pets.results()
    assert [d.name for d in results] == ["Rex", "Max", "Rex"]      # key order, twice when there twice
    with realm.write():
        realm.delete(rex)
        assert shown(pets) == {"a": None, "b": "Max", "c": None}
    assert shown(pets) == {"a": None, "b": "Max", "c": None} and bob.pets == {"r": None}   # the keys stay
    assert [d.name for d in results] == ["Max"]                     # None values left out
    assert len(pets) == 3 and "a" in pets


def test_a_dict_of_objects_as_live_results(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", pets={"x": Dog(name="Rex"), "y": Dog(name="Max"), "z": None}))
        spare = realm.add(Dog(name="Spare"))
    not_max = ann.pets.filter("name != $0", "Max")
    assert [d.name for d in not_max] == ["Rex"]
    assert [d.name for d in ann.pets.results().sort("name")] == ["Max", "Rex"]
    with realm.write():
        ann.pets["a"] = spare
    assert [d.name for d in not_max] == ["Spare", "Rex"]
    with realm.write():
        del ann.pets["a"]
        realm.delete(ann.pets)                                       # delete_all: the objects, and the keys
    assert ann.pets == {} and [d.name for d in realm.objects(Dog)] == ["Spare"]
    # A dict of values turns into results of its values, in key order.
    assert list(ann.scores.results()) == list(ann.scores.values())
    assert ann.scores.sum() == sum(ann.scores.values())
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="hold values"):
            ann.scores.delete_all()


def test_a_dict_refuses_objects_it_cannot_hold(realm, tmp_path):
    ann = add_person(realm, homes={"h": {"street": "Main"}})
    with realm.write():
        gone = realm.add(Dog(name="Gone"))
        realm.delete(gone)
        with pytest.raises(fief.NoSuchObjectError, match="does not exist"):
            ann.pets["g"] = gone                                 # a deleted object
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects, not to a Person"):
            ann.pets["p"] = ann                                  # another class
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects, not to a Address"):
            ann.pets["e"] = ann.homes["h"]                       # an embedded object
        with pytest.raises(fief.TypeMismatchError, match="not to a Person"):
            ann.pets["n"] = Person(name="New")                   # unmanaged, another class: not added
        with pytest.raises(fief.TypeMismatchError):
            ann.pets["i"] = 3
        with pytest.raises(fief.NoSuchObjectError):
            ann.pets.update({"ok": Dog(name="Ok"), "g": gone})   # all or nothing: Ok is not added
        assert len(realm.objects(Person)) == 1 and len(realm.objects(Dog)) == 0
    assert ann.pets == {}
    with fief.Realm.open(tmp_path / "other.fief", schema=MODELS) as other:
        with other.write():
            stranger = other.add(Dog(name="Stranger"))
        with realm.write():
            with pytest.raises(fief.LogicError, match="another realm file"):
                ann.pets["s"] = stranger
    assert ann.pets == {}


# -- embedded values ---------------------------------------------------------------------


def test_embedded_values_are_created_in_place_and_deleted_when_replaced_or_removed(realm):
    main = Address(street="Main")
    with realm.write():
        ann = realm.add(Person(name="Ann", homes={"h": main}))
        work = Address(street="Work", city="Town")
        ann.homes["w"] = work
        ann.homes["v"] = {"street": "Villa", "zips": [7]}
        ann.homes.update({"x": {"street": "X"}, "n": None})
    assert main.is_managed and work.is_managed                 # the objects given became the values
    assert main == ann.homes["h"] and work == ann.homes["w"] and ann.homes["v"].zips == {7}
    assert shown(ann.homes) == {"h": "Main", "n": None, "v": "Villa", "w": "Work", "x": "X"}
    assert [a.street for a in ann.homes.results()] == ["Main", "Villa", "Work", "X"]
    with realm.write():
        work.city = "City"
        villa = ann.homes["v"]
        ann.homes["v"] = {"street": "Villa 2"}                  # the replaced one is deleted
        popped = ann.homes.pop("w")                             # removed: deleted, an unmanaged copy back
        x = ann.homes["x"]
        del ann.homes["x"]
        ann.homes["h"] = main                                   # already this key's value: stays
    assert not villa.is_valid and not work.is_valid and not x.is_valid and main.is_valid
    assert not popped.is_managed and (popped.street, popped.city) == ("Work", "City")
    assert shown(ann.homes) == {"h": "Main", "n": None, "v": "Villa 2"}
    with realm.write():
        ann.homes["h"] = None                                   # None deletes it too
        key, value = ann.homes.popitem()
    assert not main.is_valid and (key, value) == ("h", None) and "h" not in ann.homes
    v2 = ann.homes["v"]
    with realm.write():
        ann.homes.clear()
    assert not v2.is_valid and ann.homes == {}
    with realm.write():
        ann.homes["last"] = {"street": "Last"}
    last = ann.homes["last"]
    with realm.write():
        realm.delete(ann)
    assert not last.is_valid


def test_embedded_values_refused(realm):
    ann = add_person(realm, homes={"h": {"street": "Mine"}})
    bob = add_person(realm, "Bob")
    mine = ann.homes["h"]
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="create it in place"):
            bob.homes["x"] = mine                              # a managed embedded object: one parent only
        with pytest.raises(fief.InvalidArgumentError, match="create it in place"):
            ann.homes["other"] = mine                          # not even another key of the same dict
        with pytest.raises(fief.TypeMismatchError, match="embedded 'Address' objects, not a Dog"):
            bob.homes["d"] = Dog(name="Rex")
        with pytest.raises(fief.TypeMismatchError):
            bob.homes["i"] = 5
        with pytest.raises(fief.NoSuchPropertyError):
            bob.homes["p"] = {"nope": 1}
        first = Address(street="a")
        with pytest.raises(fief.TypeMismatchError):            # the second fails: the first is taken back
            bob.homes.update({"a": first, "b": {"street": 2}})
        assert not first.is_managed and first.street == "a"
        assert bob.homes == {} and shown(ann.homes) == {"h": "Mine"} and mine.is_valid
    assert len(realm.objects(Dog)) == 0 and bob.pets == {}


# -- frozen dicts --------------------------------------------------------------------------


def test_frozen_dicts_keep_their_version(realm):
    ann = add_person(realm, scores={"a": 1}, pets={"r": Dog(name="Rex")})
    frozen_ann = ann.freeze()
    frozen_scores = frozen_ann.scores
    also_frozen = ann.scores.freeze()
    assert frozen_scores.is_frozen and also_frozen.is_frozen and not ann.scores.is_frozen
    with realm.write():
        ann.scores["b"] = 2
        ann.pets.clear()
    assert frozen_scores == {"a": 1} and also_frozen == {"a": 1} and ann.scores == {"a": 1, "b": 2}
    assert shown(frozen_ann.pets) == {"r": "Rex"} and frozen_ann.pets["r"].is_frozen
    with pytest.raises(fief.FrozenRealmError):
        frozen_scores["c"] = 3
    assert frozen_scores.freeze() is frozen_scores
    thawed = frozen_scores.thaw()
    assert thawed == {"a": 1, "b": 2} and not thawed.is_frozen
    assert realm.resolve(also_frozen) == {"a": 1, "b": 2}
    with realm.write():
        realm.delete(ann)
    assert realm.resolve(also_frozen) is None and frozen_scores.thaw() is None
    assert frozen_scores == {"a": 1}


# -- errors ------------------------------------------------------------------------------


def test_errors_change_nothing(realm):
    ann = add_person(realm, scores={"a": 1}, marks={"m": 1.0})
    scores = ann.scores
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            scores["b"] = "2"
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not double"):
            scores["a"] = 1.5
        with pytest.raises(fief.NullNotAllowedError):
            scores["a"] = None
        with pytest.raises(fief.TypeMismatchError):
            scores.update({"b": 2, "c": "3"})           # all or nothing
        with pytest.raises(fief.TypeMismatchError):
            scores["o"] = object()
        with pytest.raises(fief.InvalidArgumentError):
            scores["big"] = 2 ** 64
        strings = realm.add(Everything()).strings
        with pytest.raises(fief.InvalidUTF8Error):
            strings["k"] = "\ud800"
        with pytest.raises(fief.TypeMismatchError):
            ann.marks["s"] = "x"
        with pytest.raises(ValueError, match="pairs"):
            scores.update([("a", 1, 2)])
        assert scores == {"a": 1} and ann.marks == {"m": 1.0} and strings == {}
    assert scores.get(3) is None and 3 not in scores and None not in scores
    with pytest.raises(KeyError):
        scores[3]


@pytest.mark.parametrize("write", [
    lambda p: p.scores.__setitem__("x", 4),
    lambda p: p.scores.__setitem__("a", 1),
    lambda p: p.scores.__delitem__("a"),
    lambda p: p.scores.pop("a"),
    lambda p: p.scores.popitem(),
    lambda p: p.scores.setdefault("new", 1),
    lambda p: p.scores.update({"x": 1}),
    lambda p: p.scores.__ior__({"x": 1}),
    lambda p: p.scores.clear(),
    lambda p: setattr(p, "scores", {"z": 9}),
    lambda p: p.pets.__setitem__("r", p.pets["r"]),
    lambda p: p.pets.__setitem__("n", Dog(name="New")),
    lambda p: p.pets.delete_all(),
    lambda p: p.homes.__setitem__("h", {"street": "Elm"}),
    lambda p: p.homes.__setitem__("x", Address(street="x")),
    lambda p: p.homes.__setitem__("h", None),
])
def test_writes_outside_a_transaction_are_refused(realm, write):
    ann = add_person(realm, scores={"a": 1, "b": 2}, pets={"r": Dog(name="Rex")}, homes={"h": {"street": "Main"}})
    home = ann.homes["h"]
    with pytest.raises(fief.NotInTransactionError, match="outside a write transaction"):
        write(ann)
    assert ann.scores == {"a": 1, "b": 2} and shown(ann.pets) == {"r": "Rex"} and len(realm.objects(Dog)) == 1
    assert shown(ann.homes) == {"h": "Main"} and home.is_valid


def test_a_deleted_owner_and_a_released_handle(realm):
    ann = add_person(realm, scores={"a": 1})
    scores = ann.scores
    assert scores.is_valid
    with realm.write():
        realm.delete(ann)
        assert not scores.is_valid
        with pytest.raises(fief.InvalidatedObjectError, match="deleted"):
            len(scores)
        with pytest.raises(fief.InvalidatedObjectError):
            scores["b"] = 2
        with pytest.raises(fief.InvalidatedObjectError):
            scores["a"]
        with pytest.raises(fief.InvalidatedObjectError):
            ann.scores
    assert "InvalidatedObjectError" in repr(scores)
    bob = add_person(realm, "Bob", scores={"a": 1})
    scores = bob.scores
    scores.release()
    assert not scores.is_valid
    with realm.write():
        with pytest.raises(fief.InvalidHandleError, match="released"):
            scores["b"] = 2
        with pytest.raises(fief.InvalidHandleError):
            list(scores.items())
    assert bob.scores == {"a": 1}


def test_a_closed_realm(realm_path):
    realm = fief.Realm.open(realm_path, schema=MODELS)
    ann = add_person(realm, scores={"a": 1})
    scores = ann.scores
    realm.close()
    with pytest.raises(fief.RealmClosedError):
        dict(scores)
    with pytest.raises(fief.RealmClosedError):
        "a" in scores


def test_mapping_methods_on_a_dict_of_objects(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", pets={"r": Dog(name="Rex")}))
        rex = ann.pets["r"]
        got = ann.pets.setdefault("m", {"name": "Max"})      # a new object: the stored one comes back
        assert isinstance(got, Dog) and got.is_managed and got.name == "Max"
        assert ann.pets.setdefault("r", None) == rex
        assert ann.pets.setdefault("n") is None and ann.pets["n"] is None

        class Pairs:                                         # not a Mapping, but keys() and []
            def keys(self):
                return ["a"]

            def __getitem__(self, key):
                return rex
        ann.pets.update(Pairs())
        assert ann.pets.pop("m").name == "Max" and ann.pets.popitem() == ("a", rex)
    assert ann.pets.get("r") == rex and ann.pets.get("zz") is None
    assert rex in ann.pets.values() and ("r", rex) in ann.pets.items() and ("r", None) not in ann.pets.items()
    assert ann.pets == realm.object(Person, "Ann").pets                  # two fief.Dicts
    assert ann.pets != {"r": rex} and ann.pets == {"r": rex, "n": None}
    assert realm.objects(Dog).count() == 2                               # popping an object keeps it
