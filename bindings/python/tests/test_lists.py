"""List properties: declared as list[X] (values of every scalar type,
optional or not, links, embedded objects), read and written through a live
fief.List (a MutableSequence checked against a Python list), replaced by
assignment, written by add and create, kept across reopening, with
backlinks, deleted targets, embedded elements, frozen lists, and every
error of the C layer surfacing as the package's exceptions without a change."""

from __future__ import annotations

import datetime as dt
import decimal
import random
import uuid
from collections.abc import MutableSequence
from typing import List as TypingList
from typing import Optional

import pytest

import fief
from fief import _lib as L


class Dog(fief.Object):
    name: str = ""
    owners = fief.Backlinks("Person", "dogs")


class Toy(fief.EmbeddedObject):
    label: str = ""
    colour: Optional[str] = None


class Person(fief.Object):
    name: fief.PrimaryKey[str]
    scores: list[int]
    tags: list[Optional[str]]
    dogs: list[Dog]
    friends: list["Person"]
    toys: list[Toy]
    pets: TypingList[Pet]  # a class declared further down (a forward reference)
    ratios: list[float] = [0.5]  # a default, copied for every object


class Pet(fief.Object):
    kind: str = ""
    keepers = fief.Backlinks(Person, "pets")


UTC = dt.timezone.utc
OID = fief.ObjectId("5f1d7a3b9c8e4d2a1b0c9d8e")
UID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class Everything(fief.Object):
    ints: list[int]
    bools: list[bool]
    doubles: list[float]
    floats: list[fief.Float32]
    strings: list[str]
    blobs: list[bytes]
    times: list[dt.datetime]
    decimals: list[fief.Decimal128]
    pydecimals: list[decimal.Decimal]
    oids: list[fief.ObjectId]
    uids: list[uuid.UUID]
    o_ints: list[Optional[int]]
    o_bools: list[Optional[bool]]
    o_doubles: list[Optional[float]]
    o_floats: list[Optional[fief.Float32]]
    o_strings: list[Optional[str]]
    o_blobs: list[Optional[bytes]]
    o_times: list[Optional[dt.datetime]]
    o_decimals: list[Optional[fief.Decimal128]]
    o_oids: list[Optional[fief.ObjectId]]
    o_uids: list[Optional[uuid.UUID]]


EVERYTHING = dict(
    ints=[0, -1, 2 ** 63 - 1, -2 ** 63, 42],
    bools=[True, False, True],
    doubles=[0.0, -1.5, 1e300, float("inf")],
    floats=[0.5, -2.25, 1024.0],
    strings=["", "héllo", "x" * 5000, "\u2603"],
    blobs=[b"", b"\x00\xff", bytes(range(256)) * 20],
    times=[dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(2024, 2, 29, 12, 30, 5, 123456, tzinfo=UTC),
           dt.datetime(1900, 6, 1, tzinfo=UTC)],
    decimals=[fief.Decimal128("1.25"), fief.Decimal128("-0"), fief.Decimal128("1E+6111")],
    pydecimals=[decimal.Decimal("3.14159"), decimal.Decimal("-7")],
    oids=[OID, fief.ObjectId(bytes(12))],
    uids=[UID, uuid.UUID(int=0)],
    o_ints=[None, 1, None],
    o_bools=[None, False],
    o_doubles=[2.5, None],
    o_floats=[None, 0.25],
    o_strings=[None, "", "a"],
    o_blobs=[b"x", None],
    o_times=[None, dt.datetime(2000, 1, 1, tzinfo=UTC)],
    o_decimals=[None, fief.Decimal128("0.1")],
    o_oids=[None, OID],
    o_uids=[UID, None],
)

MODELS = [Dog, Toy, Person, Pet, Everything]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def add_person(realm, name="Ann", **values):
    with realm.write():
        return realm.add(Person(name=name, **values))


# -- declarations and schema ---------------------------------------------------


def test_declarations():
    specs = {s.attr: s for s in Person.__fief_properties__}
    assert specs["scores"].is_list and specs["scores"].fief_type == L.TYPE_INT and not specs["scores"].nullable
    assert specs["tags"].is_list and specs["tags"].nullable and specs["tags"].fief_type == L.TYPE_STRING
    assert specs["dogs"].link_target == "Dog" and specs["dogs"].fief_type == L.TYPE_LINK
    assert specs["friends"].link_target == "Person"
    assert specs["pets"].link_target == "Pet" and specs["pets"].is_list
    assert specs["toys"].link_target == "Toy"
    assert not specs["name"].is_list
    assert repr(specs["tags"]) == "<fief property tags: list of optional string>"
    floats = {s.attr: s for s in Everything.__fief_properties__}["floats"]
    assert floats.fief_type == L.TYPE_FLOAT


@pytest.mark.parametrize("annotation,message", [
    ("list", "give the element type"),
    ("Optional[list[int]]", "never optional"),
    ("list[Optional[Dog]]", "never None"),
    ("list[list[int]]", "element of another list"),
    ("fief.PrimaryKey[list[int]]", "primary key"),
    ("list[fief.Indexed[int]]", "neither primary keys nor indexed"),
    ("list[complex]", "unsupported property type"),
])
def test_declaration_errors(annotation, message):
    with pytest.raises(TypeError, match=message):
        exec(f"class Bad(fief.Object):\n    values: {annotation}\n",
             {"__name__": __name__, "fief": fief, "Optional": Optional, "Dog": Dog})
    with pytest.raises(TypeError, match="neither a primary key nor indexed"):
        class Bad2(fief.Object):
            values: list[int] = fief.Property(indexed=True)


def test_schema_read_back_shows_lists(realm):
    person = next(c for c in realm.schema if c.name == "Person")
    props = person.properties
    assert props["scores"].is_list and props["scores"].type_name == "int"
    assert props["scores"].collection_type == L.COLLECTION_LIST
    assert props["tags"].is_list and props["tags"].nullable
    assert props["dogs"].is_list and props["dogs"].link_target == "Dog" and props["dogs"].type_name == "link"
    assert props["toys"].is_list and props["toys"].link_target == "Toy"
    assert not props["name"].is_list and props["name"].collection_type == L.COLLECTION_NONE
    with fief.Realm.open(realm.path) as again:  # the file's own schema, no model classes
        person = next(c for c in again.schema if c.name == "Person")
        assert person.properties["pets"].is_list and person.properties["pets"].link_target == "Pet"


# -- unmanaged objects -----------------------------------------------------------


def test_unmanaged_objects_hold_plain_lists():
    ann, bob = Person(name="Ann"), Person(name="Bob")
    assert ann.scores == [] and type(ann.scores) is list
    ann.scores.append(3)
    assert ann.scores == [3] and bob.scores == []
    assert ann.ratios == [0.5] and ann.ratios is not bob.ratios  # the default is copied
    mine = [1, 2]
    cy = Person(name="Cy", scores=mine)
    assert cy.scores is mine
    cy.tags = ("a", None)
    assert cy.tags == ["a", None]
    cy.scores = (i for i in range(3))
    assert cy.scores == [0, 1, 2]
    with pytest.raises(TypeError, match="is a list"):
        cy.tags = "abc"
    with pytest.raises(TypeError, match="is a list"):
        Person(name="Dan", scores=5)
    assert cy.to_dict()["scores"] == [0, 1, 2]


# -- every scalar type -------------------------------------------------------------


def test_every_scalar_type_round_trips(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            obj = realm.add(Everything(**EVERYTHING))
        for attr, expected in EVERYTHING.items():
            assert list(getattr(obj, attr)) == expected, attr
        assert isinstance(obj.decimals[0], fief.Decimal128)
        assert type(obj.pydecimals[0]) is decimal.Decimal
        with realm.write():
            for attr, expected in EVERYTHING.items():
                lst = getattr(obj, attr)
                lst.append(expected[-1])
                assert lst[-1] == expected[-1] and lst.index(expected[0]) == 0 and expected[-1] in lst
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        obj = realm.objects(Everything)[0]
        for attr, expected in EVERYTHING.items():
            assert getattr(obj, attr) == expected + [expected[-1]], attr


def test_numbers_convert_like_python_lists(realm):
    ann = add_person(realm)
    with realm.write():
        ann.ratios.extend([1, 2.5])          # ints go into a list of doubles
        obj = realm.add(Everything(floats=[0.1]))
    assert ann.ratios == [0.5, 1.0, 2.5]
    assert 1 in ann.ratios and ann.ratios.index(1) == 1
    assert 0.1 in obj.floats                  # a 32-bit float is found by its Python value
    with realm.write():
        obj.decimals.append(7)                # ints go into a list of decimals
    assert obj.decimals == [fief.Decimal128(7)]


# -- the operations, against a Python list -------------------------------------------


def test_every_operation_against_a_python_list(realm):
    ann = add_person(realm, scores=[5, 1, 4])
    model = [5, 1, 4]
    scores = ann.scores
    assert isinstance(scores, fief.List) and isinstance(scores, MutableSequence)

    def check():
        assert list(scores) == model
        assert len(scores) == len(model)
        assert scores == model and model == scores and not (scores != model)
        assert list(reversed(scores)) == list(reversed(model))
        for i in range(-len(model), len(model)):
            assert scores[i] == model[i]
        for s in [slice(None), slice(1, None), slice(None, -1), slice(None, None, 2), slice(None, None, -1),
                  slice(-2, None), slice(5, 1, -2), slice(10, 20)]:
            assert scores[s] == model[s], s

    check()
    with realm.write():
        scores.append(9); model.append(9); check()
        scores.extend([2, 7, 2]); model.extend([2, 7, 2]); check()
        scores += [8]; model += [8]; check()
        scores.insert(0, 0); model.insert(0, 0); check()
        scores.insert(-2, 6); model.insert(-2, 6); check()
        scores.insert(100, 10); model.insert(100, 10); check()
        scores.insert(-100, -1); model.insert(-100, -1); check()
        scores[3] = 30; model[3] = 30; check()
        scores[-1] = 11; model[-1] = 11; check()
        del scores[0]; del model[0]; check()
        del scores[-2]; del model[-2]; check()
        del scores[1:3]; del model[1:3]; check()
        del scores[::3]; del model[::3]; check()
        assert scores.pop() == model.pop(); check()
        assert scores.pop(0) == model.pop(0); check()
        assert scores.pop(-2) == model.pop(-2); check()
        scores.extend([2, 2, 5]); model.extend([2, 2, 5])
        scores.remove(2); model.remove(2); check()
        assert scores.index(2) == model.index(2)
        assert scores.index(5, 2) == model.index(5, 2)
        assert scores.count(2) == model.count(2) and scores.count(404) == 0
        assert (2 in scores) and (404 not in scores) and ("2" not in scores) and (None not in scores)
        scores.move(0, len(model) - 1); model.append(model.pop(0)); check()
        scores.move(-1, 1); model.insert(1, model.pop(-1)); check()
        scores.swap(0, -1); model[0], model[-1] = model[-1], model[0]; check()
        scores.reverse(); model.reverse(); check()
        scores.extend(scores); model.extend(list(model)); check()
    assert scores + [1] == model + [1] and [1] + scores == [1] + model
    assert repr(scores) == f"fief.List({model!r})"
    assert str(scores) == repr(scores)
    with realm.write():
        scores.clear(); model.clear(); check()
        scores.extend([]); check()
    assert not scores and list(reversed(scores)) == []
    with pytest.raises(ValueError, match="not in the list"):
        scores.index(1)
    with pytest.raises(TypeError):
        hash(scores)


def test_lists_of_optional_strings(realm):
    ann = add_person(realm)
    with realm.write():
        ann.tags.extend(["a", None, "", "a"])
        ann.tags.insert(1, None)
    assert ann.tags == ["a", None, None, "", "a"]
    assert ann.tags.index(None) == 1 and ann.tags.count(None) == 2 and ann.tags.index("") == 3
    with realm.write():
        ann.tags.remove(None)
        ann.tags[0] = None
    assert ann.tags == [None, None, "", "a"]


def test_iteration_reads_in_batches_and_extend_is_one_call(realm, library, monkeypatch):
    ann = add_person(realm)
    calls: dict[str, int] = {}

    def counted(name):
        real = getattr(library, name)

        def call(*args):
            calls[name] = calls.get(name, 0) + 1
            return real(*args)
        monkeypatch.setattr(library, name, call)

    for name in ("fief_list_append", "fief_list_get", "fief_list_get_range"):
        counted(name)
    with realm.write():
        ann.scores.extend(range(2000))
        ann.scores += range(2000, 2100)
    assert calls["fief_list_append"] == 2
    scores = ann.scores
    assert list(scores) == list(range(2100))
    assert list(reversed(scores)) == list(range(2099, -1, -1))
    assert scores[100:1900:7] == list(range(2100))[100:1900:7]
    assert calls.get("fief_list_get", 0) == 0
    assert calls["fief_list_get_range"] <= 2 * (2100 // 512 + 1) + 1


def test_random_operations_checked_after_each_transaction(realm_path):
    rng = random.Random(20240601)
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            ann = realm.add(Person(name="Ann"))
            kennel = [realm.add(Dog(name=f"d{i}")) for i in range(6)]
        models = {"scores": [], "tags": [], "dogs": [], "toys": []}

        def element(kind):
            if kind == "scores":
                return rng.randrange(-50, 50)
            if kind == "tags":
                return rng.choice([None, "", "x", "y", "zz" * rng.randrange(1, 200)])
            if kind == "dogs":
                return rng.choice(kennel)
            return {"label": f"t{rng.randrange(1000)}"}

        def shown(kind, value):
            return value.name if kind == "dogs" else value.label if kind == "toys" else value

        def view(kind, value):  # the model's element for a value written
            return value.name if kind == "dogs" else value["label"] if kind == "toys" else value

        for _ in range(40):
            with realm.write():
                for _ in range(rng.randrange(1, 12)):
                    kind = rng.choice(list(models))
                    lst, model = getattr(ann, kind), models[kind]
                    op = rng.choice(["append", "extend", "insert", "set", "del", "pop", "move", "swap",
                                     "remove", "clear", "assign", "delslice"])
                    n = len(model)
                    if op == "append":
                        v = element(kind); lst.append(v); model.append(view(kind, v))
                    elif op == "extend":
                        vs = [element(kind) for _ in range(rng.randrange(0, 6))]
                        lst.extend(vs); model.extend(view(kind, v) for v in vs)
                    elif op == "insert":
                        i = rng.randrange(-n - 2, n + 3); v = element(kind)
                        lst.insert(i, v); model.insert(i, view(kind, v))
                    elif op == "assign" and rng.random() < 0.3:
                        vs = [element(kind) for _ in range(rng.randrange(0, 5))]
                        setattr(ann, kind, vs); model[:] = [view(kind, v) for v in vs]
                    elif op == "clear" and rng.random() < 0.2:
                        lst.clear(); model.clear()
                    elif not n:
                        continue
                    elif op == "set":
                        i = rng.randrange(-n, n); v = element(kind); lst[i] = v; model[i] = view(kind, v)
                    elif op == "del":
                        i = rng.randrange(-n, n); del lst[i]; del model[i]
                    elif op == "pop":
                        i = rng.randrange(-n, n)
                        assert shown(kind, lst.pop(i)) == model.pop(i)
                    elif op == "move":
                        i, j = rng.randrange(n), rng.randrange(n); lst.move(i, j); model.insert(j, model.pop(i))
                    elif op == "swap":
                        i, j = rng.randrange(n), rng.randrange(n); lst.swap(i, j)
                        model[i], model[j] = model[j], model[i]
                    elif op == "remove" and kind in ("scores", "tags"):
                        v = rng.choice(model); lst.remove(v); model.remove(v)
                    elif op == "delslice":
                        a, b = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
                        step = rng.choice([1, 1, 2])
                        del lst[a:b:step]; del model[a:b:step]
            for kind, model in models.items():
                assert [shown(kind, v) for v in getattr(ann, kind)] == model, kind
        assert len(realm.objects(Dog)) == 6
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        ann = realm.object(Person, "Ann")
        for kind, model in models.items():
            assert [shown(kind, v) for v in getattr(ann, kind)] == model, kind


# -- assignment replaces ---------------------------------------------------------------


def test_assigning_a_list_replaces_the_contents(realm):
    ann = add_person(realm, scores=[1, 2, 3], dogs=[Dog(name="Rex")], toys=[Toy(label="old")])
    scores = ann.scores
    rex = ann.dogs[0]
    old_toy = ann.toys[0]
    with realm.write():
        ann.scores = [7, 8]
        ann.dogs = [Dog(name="Max"), rex, {"name": "Bo"}]
        ann.toys = [Toy(label="new"), {"label": "newer", "colour": "red"}]
        ann.scores = ann.scores          # itself: unchanged
        ann.toys = ann.toys
    assert scores == [7, 8]              # the same live list
    assert [d.name for d in ann.dogs] == ["Max", "Rex", "Bo"] and len(realm.objects(Dog)) == 3
    assert [(t.label, t.colour) for t in ann.toys] == [("new", None), ("newer", "red")]
    assert not old_toy.is_valid          # replaced embedded objects are deleted
    with realm.write():
        ann.scores = []
        ann.dogs = ()
    assert ann.scores == [] and ann.dogs == [] and len(realm.objects(Dog)) == 3


def test_failed_assignment_changes_nothing(realm):
    ann = add_person(realm, scores=[1, 2], tags=["a", None], dogs=[Dog(name="Rex")], toys=[{"label": "t"}])
    toy = ann.toys[0]
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            ann.scores = [3, "4"]
        with pytest.raises(fief.NullNotAllowedError):
            ann.scores = [None]
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects"):
            ann.dogs = [ann]
        with pytest.raises(fief.TypeMismatchError):
            ann.toys = [{"label": "ok"}, {"label": 5}]
        with pytest.raises(fief.NoSuchPropertyError):
            ann.toys = [{"lable": "typo"}]
        with pytest.raises(TypeError, match="is a list"):
            ann.tags = "ab"
        assert ann.scores == [1, 2] and ann.tags == ["a", None]
        assert [d.name for d in ann.dogs] == ["Rex"]
        assert [t.label for t in ann.toys] == ["t"] and toy.is_valid
    with pytest.raises(fief.NotInTransactionError):
        ann.scores = [9]
    assert ann.scores == [1, 2]


# -- add and create ------------------------------------------------------------------


def test_add_writes_lists_and_adds_linked_objects_once(realm):
    rex = Dog(name="Rex")
    ann = Person(name="Ann", dogs=[rex, Dog(name="Max"), rex], pets=[Pet(kind="cat")])
    bob = Person(name="Bob", friends=[ann])
    ann.friends = [bob, ann]             # cycles: each object added once
    with realm.write():
        realm.add(ann)
    assert bob.is_managed and rex.is_managed
    assert len(realm.objects(Person)) == 2 and len(realm.objects(Dog)) == 2 and len(realm.objects(Pet)) == 1
    assert [d.name for d in ann.dogs] == ["Rex", "Max", "Rex"]
    assert ann.friends == [bob, ann] and bob.friends == [ann]
    assert ann.dogs[0] == ann.dogs[2] == rex
    assert "Person(...)" in repr(ann)    # a cycle is shown, not followed forever
    assert ann.to_dict()["dogs"] == [rex, ann.dogs[1], rex]
    with realm.write():                  # add_all with lists goes object by object
        realm.add_all([Person(name="Cy", scores=[1]), Person(name="Dee", scores=[2, 3])])
    assert realm.object(Person, "Dee").scores == [2, 3]
    assert ("Dee",) in realm.objects(Person).values("name")
    assert all(len(row) == 1 for row in realm.objects(Person).values())  # lists are not values
    with pytest.raises(fief.InvalidArgumentError, match="is a list"):
        realm.objects(Person).values("scores")


def test_failed_add_changes_nothing(realm):
    ann = Person(name="Ann", scores=[1, "two"])
    with realm.write():
        with pytest.raises(fief.TypeMismatchError):
            realm.add(ann)
        assert not ann.is_managed and ann.scores == [1, "two"]
        assert len(realm.objects(Person)) == 0
        ann.scores = [1, 2]
        realm.add(ann)
    assert ann.scores == [1, 2]


def test_upsert_replaces_lists(realm):
    add_person(realm, scores=[1, 2], tags=["x"])
    with realm.write():
        realm.add(Person(name="Ann", scores=[3]), update="modified")
    ann = realm.object(Person, "Ann")
    assert ann.scores == [3] and ann.tags == []  # every property is set, lists too
    with realm.write():
        realm.create(Person, {"name": "Ann", "tags": ["y"]}, update="modified")
    assert ann.scores == [3] and ann.tags == ["y"]  # only the given list


def test_create_from_nested_dicts_and_lists(realm):
    with realm.write():
        ann = realm.create(Person, {
            "name": "Ann",
            "scores": (4, 5),
            "dogs": [{"name": "Rex"}, Dog(name="Max")],
            "toys": [{"label": "ball"}, Toy(label="rope", colour="blue")],
            "friends": [{"name": "Bob", "scores": [1], "toys": [{"label": "kite"}]}],
        })
    assert ann.scores == [4, 5]
    assert [d.name for d in ann.dogs] == ["Rex", "Max"]
    assert [(t.label, t.colour) for t in ann.toys] == [("ball", None), ("rope", "blue")]
    bob = ann.friends[0]
    assert bob.name == "Bob" and bob.scores == [1] and [t.label for t in bob.toys] == ["kite"]


def test_lists_survive_reopening(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            realm.add(Person(name="Ann", scores=list(range(700)), tags=[None, "t"],
                             dogs=[Dog(name="Rex")], toys=[Toy(label="ball")]))
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        ann = realm.object(Person, "Ann")
        assert ann.scores == list(range(700)) and ann.tags == [None, "t"]
        assert ann.dogs[0].name == "Rex" and ann.toys[0].label == "ball"
        with pytest.raises(fief.ReadOnlyRealmError):
            with realm.write():
                pass


# -- links -----------------------------------------------------------------------------


def test_backlinks_through_a_list(realm):
    rex, max_ = Dog(name="Rex"), Dog(name="Max")
    with realm.write():
        ann = realm.add(Person(name="Ann", dogs=[rex, rex, max_], pets=[Pet(kind="cat")]))
        realm.add(Person(name="Bob", dogs=[rex]))
    assert sorted(p.name for p in rex.owners) == ["Ann", "Bob"]   # Ann once, though listed twice
    assert [p.name for p in max_.owners] == ["Ann"]
    assert [p.name for p in ann.pets[0].keepers] == ["Ann"]
    owners = rex.owners
    assert len(owners.filter("name BEGINSWITH 'B'")) == 1
    with realm.write():
        ann.dogs.remove(rex)
        assert len(owners) == 2          # still listed once
        ann.dogs.remove(rex)
        assert [p.name for p in owners] == ["Bob"]


def test_deleting_a_target_removes_it_from_every_list(realm):
    rex, max_ = Dog(name="Rex"), Dog(name="Max")
    with realm.write():
        ann = realm.add(Person(name="Ann", dogs=[rex, max_, rex]))
        bob = realm.add(Person(name="Bob", dogs=[rex]))
        dogs = ann.dogs
    with realm.write():
        realm.delete(rex)
    assert [d.name for d in dogs] == ["Max"] and bob.dogs == []


def test_delete_all_deletes_the_listed_objects(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", dogs=[Dog(name="Rex"), Dog(name="Max")], toys=[{"label": "t"}]))
        spare = realm.add(Dog(name="Spare"))
        ann.dogs.append(ann.dogs[0])
    with realm.write():
        ann.dogs.delete_all()            # each dog once, though listed twice
        toy = ann.toys[0]
        realm.delete(ann.toys)
    assert ann.dogs == [] and ann.toys == [] and not toy.is_valid
    assert [d.name for d in realm.objects(Dog)] == ["Spare"] and spare.is_valid
    with realm.write():
        ann.pets.append(Pet(kind="dog"))
        realm.delete(ann.pets)
    assert len(realm.objects(Pet)) == 0
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="holds values"):
            ann.scores.delete_all()


def test_a_link_list_refuses_what_it_cannot_hold(realm, tmp_path):
    ann = add_person(realm, toys=[Toy(label="t")], scores=[1])
    with realm.write():
        gone = realm.add(Dog(name="Gone"))
        realm.delete(gone)
        with pytest.raises(fief.NoSuchObjectError, match="does not exist"):
            ann.dogs.append(gone)                            # a deleted object
        with pytest.raises(fief.TypeMismatchError, match="not to an object of class 'Toy'"):
            ann.dogs.append(ann.toys[0])                     # an embedded object, as a link
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects"):
            ann.dogs.append(Pet(kind="cat"))                 # unmanaged, another class: not added
        with pytest.raises(fief.TypeMismatchError):
            ann.dogs.append(3)
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects, not to a Toy"):
            ann.dogs.append(Toy(label="x"))                  # an unmanaged embedded object
        with pytest.raises(fief.TypeMismatchError):
            ann.dogs.extend([Dog(name="Ok"), ann])           # all or nothing
        with pytest.raises(fief.TypeMismatchError, match="unknown class 999"):
            ann.dogs.append(fief.Link(999, 0))
        assert len(realm.objects(Pet)) == 0
    assert ann.dogs == []
    with fief.Realm.open(tmp_path / "other.fief", schema=MODELS) as other:
        with other.write():
            stranger = other.add(Dog(name="Stranger"))
        with realm.write():
            with pytest.raises(fief.LogicError, match="another realm file"):
                ann.dogs.append(stranger)
    assert ann.dogs == []
    assert Dog(name="unmanaged") not in ann.dogs and ann not in ann.dogs


# -- embedded elements ---------------------------------------------------------------------


def test_embedded_elements_are_created_in_place_and_deleted_when_removed(realm):
    ball = Toy(label="ball")
    with realm.write():
        ann = realm.add(Person(name="Ann", toys=[ball]))
        rope = Toy(label="rope", colour="red")
        ann.toys.append(rope)
        ann.toys.insert(0, {"label": "kite"})
        ann.toys += [{"label": "yo-yo"}]
    assert ball.is_managed and rope.is_managed       # the objects given became the elements
    assert ball == ann.toys[1] and rope == ann.toys[2] and rope in ann.toys and ann.toys.index(rope) == 2
    assert [t.label for t in ann.toys] == ["kite", "ball", "rope", "yo-yo"]
    with realm.write():
        rope.colour = "blue"
        kite = ann.toys[0]
        ann.toys[0] = {"label": "plane"}             # the replaced one is deleted
        popped = ann.toys.pop(2)
        del ann.toys[-1]
    assert not kite.is_valid and not rope.is_valid
    assert not popped.is_managed and (popped.label, popped.colour) == ("rope", "blue")
    assert [t.label for t in ann.toys] == ["plane", "ball"]
    with realm.write():
        ann.toys.move(0, 1)
        ann.toys.swap(0, 1)
        ann.toys.reverse()
    assert [t.label for t in ann.toys] == ["ball", "plane"]
    with realm.write():
        ann.toys.remove(ball)
    assert not ball.is_valid and [t.label for t in ann.toys] == ["plane"]
    plane = ann.toys[0]
    with realm.write():
        ann.toys.clear()
    assert not plane.is_valid
    with realm.write():
        ann.toys.append({"label": "last"})
    last = ann.toys[0]
    with realm.write():
        realm.delete(ann)
    assert not last.is_valid


def test_embedded_elements_refused(realm):
    ann = add_person(realm, toys=[{"label": "mine"}])
    bob = add_person(realm, "Bob")
    mine = ann.toys[0]
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="create it in place"):
            bob.toys.append(mine)                    # a managed embedded object: one parent only
        with pytest.raises(fief.InvalidArgumentError, match="create it in place"):
            ann.toys[0] = mine
        with pytest.raises(fief.TypeMismatchError, match="embedded 'Toy' objects, not a Dog"):
            bob.toys.append(Dog(name="Rex"))
        with pytest.raises(fief.TypeMismatchError):
            bob.toys.append(5)
        with pytest.raises(fief.NoSuchPropertyError):
            bob.toys.append({"nope": 1})
        with pytest.raises(fief.TypeMismatchError):   # the second fails: the first is taken back
            bob.toys.extend([{"label": "a"}, {"label": 2}])
        first = Toy(label="a")
        with pytest.raises(fief.TypeMismatchError):
            bob.toys.extend([first, {"colour": 3}])
        assert not first.is_managed and first.label == "a"
        with pytest.raises(fief.IndexOutOfBoundsError):
            bob.toys[0] = {"label": "x"}
        assert bob.toys == [] and [t.label for t in ann.toys] == ["mine"] and mine.is_valid
    assert len(realm.objects(Dog)) == 0


# -- frozen lists --------------------------------------------------------------------------


def test_frozen_lists_keep_their_version(realm):
    ann = add_person(realm, scores=[1, 2], dogs=[Dog(name="Rex")])
    frozen_ann = ann.freeze()
    frozen_scores = frozen_ann.scores
    also_frozen = ann.scores.freeze()
    assert frozen_scores.is_frozen and also_frozen.is_frozen and not ann.scores.is_frozen
    with realm.write():
        ann.scores.append(3)
        ann.dogs.clear()
    assert frozen_scores == [1, 2] and also_frozen == [1, 2] and ann.scores == [1, 2, 3]
    assert [d.name for d in frozen_ann.dogs] == ["Rex"] and frozen_ann.dogs[0].is_frozen
    with pytest.raises(fief.FiefError):
        frozen_scores.append(4)
    assert frozen_scores.freeze() is frozen_scores
    thawed = frozen_scores.thaw()
    assert thawed == [1, 2, 3] and not thawed.is_frozen
    assert realm.resolve(also_frozen) == [1, 2, 3]
    with realm.write():
        realm.delete(ann)
    assert realm.resolve(also_frozen) is None and frozen_scores.thaw() is None
    assert frozen_scores == [1, 2]


# -- errors ------------------------------------------------------------------------------


def test_errors_change_nothing(realm):
    ann = add_person(realm, scores=[1, 2, 3], tags=["a"])
    scores = ann.scores
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not string"):
            scores.append("4")
        with pytest.raises(fief.TypeMismatchError, match="holds int values, not double"):
            scores.insert(0, 1.5)
        with pytest.raises(fief.NullNotAllowedError, match="cannot be null"):
            scores[0] = None
        with pytest.raises(fief.TypeMismatchError):
            scores.extend([4, 5, "6"])                 # all or nothing
        with pytest.raises(fief.TypeMismatchError):
            scores.append(object())
        with pytest.raises(fief.InvalidArgumentError):
            scores.append(2 ** 64)
        with pytest.raises(fief.InvalidUTF8Error):
            ann.tags.append("\ud800")
        for bad in (lambda: scores[3], lambda: scores[-4], lambda: scores.__setitem__(3, 0),
                    lambda: scores.__delitem__(3), lambda: scores.__delitem__(-4), lambda: scores.pop(3),
                    lambda: scores.move(0, 3), lambda: scores.move(-4, 0), lambda: scores.swap(3, 0)):
            with pytest.raises(IndexError) as info:
                bad()
            assert isinstance(info.value, fief.IndexOutOfBoundsError)
        with pytest.raises(IndexError, match="out of range"):
            scores[5] = 1
        with pytest.raises(ValueError, match="not in the list"):
            scores.remove(404)
        with pytest.raises(ValueError):
            scores.index("1")
        with pytest.raises(TypeError):
            scores["0"]
        with pytest.raises(TypeError, match="one element at a time"):
            scores[0:1] = [5]
        assert scores == [1, 2, 3] and ann.tags == ["a"]
    with pytest.raises(IndexError):
        Person(name="x").scores.pop()
    empty = add_person(realm, "Empty").scores
    with realm.write():
        with pytest.raises(IndexError, match="pop from an empty list"):
            empty.pop()


@pytest.mark.parametrize("write", [
    lambda p: p.scores.append(4),
    lambda p: p.scores.extend([4, 5]),
    lambda p: p.scores.insert(0, 4),
    lambda p: p.scores.__setitem__(0, 4),
    lambda p: p.scores.__delitem__(0),
    lambda p: p.scores.__delitem__(slice(0, 2)),
    lambda p: p.scores.pop(),
    lambda p: p.scores.remove(1),
    lambda p: p.scores.clear(),
    lambda p: p.scores.move(0, 1),
    lambda p: p.scores.swap(0, 1),
    lambda p: setattr(p, "scores", [9]),
    lambda p: p.dogs.delete_all(),
    lambda p: p.dogs.append(p.dogs[0]),
    lambda p: p.toys.append({"label": "x"}),
    lambda p: p.toys.insert(0, Toy(label="x")),
])
def test_writes_outside_a_transaction_are_refused(realm, write):
    ann = add_person(realm, scores=[1, 2, 3], dogs=[Dog(name="Rex")])
    with pytest.raises(fief.NotInTransactionError, match="outside a write transaction"):
        write(ann)
    assert ann.scores == [1, 2, 3] and [d.name for d in ann.dogs] == ["Rex"] and ann.toys == []


def test_a_deleted_owner(realm):
    ann = add_person(realm, scores=[1])
    scores = ann.scores
    assert scores.is_valid
    with realm.write():
        realm.delete(ann)
        assert not scores.is_valid
        with pytest.raises(fief.InvalidatedObjectError, match="deleted"):
            len(scores)
        with pytest.raises(fief.InvalidatedObjectError):
            scores.append(2)
        with pytest.raises(fief.InvalidatedObjectError):
            ann.scores
    assert "InvalidatedObjectError" in repr(scores)
    scores.release()
    assert not scores.is_valid
    with pytest.raises(fief.InvalidHandleError):
        len(scores)


def test_a_closed_realm(realm_path):
    realm = fief.Realm.open(realm_path, schema=MODELS)
    ann = add_person(realm, scores=[1])
    scores = ann.scores
    realm.close()
    with pytest.raises(fief.RealmClosedError):
        list(scores)


# -- nesting and inheritance ---------------------------------------------------------------


class Part(fief.EmbeddedObject):
    name: str = ""


class Kit(fief.EmbeddedObject):
    label: str = ""
    words: list[str]
    parts: list[Part]
    main: Optional[Part] = None


class Box(fief.Object):
    kits: list[Kit]


class LabelledBox(Box):  # inherits the list property
    label: str = ""


def test_embedded_objects_holding_lists_and_inherited_lists(tmp_path):
    with fief.Realm.open(tmp_path / "nested.fief", schema=[Part, Kit, LabelledBox]) as realm:
        with realm.write():
            box = realm.add(LabelledBox(label="b", kits=[
                Kit(label="a", words=["x", "y"], parts=[{"name": "p1"}], main=Part(name="m"))]))
        kit = box.kits[0]
        assert kit.words == ["x", "y"] and kit.parts[0].name == "p1" and kit.main.name == "m"
        with realm.write():
            copy = box.kits.pop()
        assert not kit.is_valid and not copy.is_managed and not copy.parts[0].is_managed
        assert (copy.label, copy.words, copy.parts[0].name, copy.main.name) == ("a", ["x", "y"], "p1", "m")
        with realm.write():
            box.kits.append(copy)                    # the copy goes back in, in place
        assert copy.is_managed and box.kits[0].parts[0].name == "p1" and box.kits[0].words == ["x", "y"]
        assert [s.attr for s in LabelledBox.__fief_properties__] == ["kits", "label"]


def test_a_list_of_objects_as_live_results(realm):
    ann = Person(name="Ann", dogs=[Dog(name="Rex"), Dog(name="Max"), Dog(name="Bo")])
    with realm.write():
        realm.add(ann)
    rex = ann.dogs[0]
    ann_dogs = ann.dogs.results()
    assert [d.name for d in ann_dogs] == ["Rex", "Max", "Bo"]            # list order
    not_max = ann.dogs.filter("name != $0", "Max")
    assert [d.name for d in not_max] == ["Rex", "Bo"]
    assert [d.name for d in ann_dogs.sort("name")] == ["Bo", "Max", "Rex"]
    with realm.write():                                                   # live
        ann.dogs.append(rex)
    assert [d.name for d in not_max] == ["Rex", "Bo", "Rex"]
    assert isinstance(ann.scores.results(), fief.ValueResults)
