"""Set-based update (Results.set_all, fief_results_set_value): one property
of every object of class, filtered, backlink and list results in one call,
values converted as attribute assignment converts them, links with their
backlinks, mixed values (a nested list or dict copied to each object), and
every bad input refused with the package's exception, nothing written."""

from __future__ import annotations

import datetime as dt
from typing import Optional

import pytest

import fief


class Dog(fief.Object):
    name: str = ""
    age: int = 0
    owners = fief.Backlinks("Person", "dog")


class Address(fief.EmbeddedObject):
    city: str = ""


class Person(fief.Object):
    id: fief.PrimaryKey[int]
    name: str = ""
    age: int = 0
    height: Optional[float] = None
    score: float = 0.0
    seen: Optional[dt.datetime] = None
    tag: str = fief.Property(indexed=True, default="")
    dog: Optional[Dog] = None
    home: Optional[Address] = None
    extra: fief.Mixed = None
    dogs: list[Dog]
    nicknames: list[str]


MODELS = [Dog, Address, Person]
UTC = dt.timezone.utc


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        with r.write():
            for i in range(600):
                r.add(Person(id=i + 1, name=f"p{i}", age=i % 20, tag=f"t{i % 3}"))
        yield r


def test_sets_every_object(realm):
    people = realm.objects(Person)
    with realm.write():
        people.set_all("age", 7)
        people.set_all("height", 1.5)
        people.set_all("score", 3)                    # an int for a float property
        people.set_all(Person.name, "Anna")           # by property object too
        people.set_all("seen", dt.datetime(2024, 5, 1, tzinfo=UTC))
        assert len(people.filter("age == 7")) == 600  # read in the transaction
    assert {p.age for p in people} == {7}
    assert {p.height for p in people} == {1.5}
    assert {p.score for p in people} == {3.0}
    assert {p.name for p in people} == {"Anna"}
    assert {p.seen for p in people} == {dt.datetime(2024, 5, 1, tzinfo=UTC)}
    assert sorted(p.id for p in people) == list(range(1, 601))   # others untouched
    with realm.write():
        people.set_all("height", None)
    assert {p.height for p in people} == {None}


def test_filtered_results_keep_their_objects_and_live_results_follow(realm):
    young = realm.objects(Person).filter("age < 5")
    assert len(young) == 150
    with realm.write():
        young.set_all("age", 50)
        assert len(young) == 0
    assert len(realm.objects(Person).filter("age == 50")) == 150
    assert len(realm.objects(Person).filter("age >= 5 AND age < 20")) == 450
    # The index follows.
    with realm.write():
        realm.objects(Person).filter("tag == 't1'").set_all("tag", "blue")
    assert len(realm.objects(Person).filter("tag == 'blue'")) == 200
    assert len(realm.objects(Person).filter("tag == 't1'")) == 0
    # Empty results change nothing.
    with realm.write():
        young.set_all("age", 1)
    assert len(realm.objects(Person).filter("age == 1")) == 0


def test_links_and_backlinks(realm):
    people = realm.objects(Person)
    rex = Dog(name="Rex")                 # unmanaged: added once
    with realm.write():
        people.set_all("dog", rex)
    assert rex.is_managed
    assert len(realm.objects(Dog)) == 1
    assert len(rex.owners) == 600
    with realm.write():
        people.filter("id > 100").set_all("dog", None)
    assert len(rex.owners) == 100
    # Backlink results are results too.
    with realm.write():
        rex.owners.set_all("age", 99)
    assert len(people.filter("age == 99")) == 100


def test_lists_of_objects(realm):
    ann = realm.objects(Person).filter("id == 1")[0]
    with realm.write():
        rex, max_ = realm.add(Dog(name="Rex")), realm.add(Dog(name="Max"))
        ann.dogs.extend([rex, max_, rex])
        ann.dogs.set_all("age", 4)                     # each dog once
        realm.add(Dog(name="Bo"))
    assert [(d.name, d.age) for d in realm.objects(Dog)] == [("Rex", 4), ("Max", 4), ("Bo", 0)]
    with pytest.raises(TypeError, match="list of values has no properties"):
        ann.nicknames.set_all("x", 1)


def test_mixed_values(realm):
    people = realm.objects(Person)
    with realm.write():
        people.set_all("extra", "text")
    assert {p.extra for p in people} == {"text"}
    with realm.write():
        people.set_all("extra", [1, "two", {"k": 3}])  # each object its own copy
    first, second = people[0], people[1]
    assert list(first.extra) == [1, "two", {"k": 3}]
    with realm.write():
        first.extra.append(4)
    assert len(first.extra) == 4 and len(second.extra) == 3
    with realm.write():
        people.set_all("extra", {})
    assert dict(second.extra) == {}
    with realm.write():
        people.set_all("extra", None)
    assert {p.extra for p in people} == {None}


def test_embedded_objects_are_cleared_not_shared(realm):
    people = realm.objects(Person).filter("id <= 2")
    with realm.write():
        for p in people:
            p.home = Address(city="Oslo")
    with realm.write():
        with pytest.raises(fief.LogicError, match="one parent"):
            people.set_all("home", Address(city="Bergen"))
        people.set_all("home", None)
    assert [p.home for p in people] == [None, None]


def test_bad_input_raises_and_changes_nothing(realm):
    people = realm.objects(Person)
    with pytest.raises(fief.NotInTransactionError):
        people.set_all("age", 1)
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="holds int values"):
            people.set_all("age", "x")
        with pytest.raises(fief.NullNotAllowedError):
            people.set_all("age", None)
        with pytest.raises(fief.NoSuchPropertyError):
            people.set_all("nope", 1)
        with pytest.raises(fief.PrimaryKeyChangeError):
            people.set_all("id", 1)
        with pytest.raises(fief.TypeMismatchError, match="is a list"):
            people.set_all("nicknames", ["a"])
        with pytest.raises(fief.TypeMismatchError):
            people.set_all("dog", 5)
    assert sorted(p.age for p in people) == sorted(i % 20 for i in range(600))
    frozen = people.freeze()
    with pytest.raises(fief.FrozenRealmError):
        frozen.set_all("age", 1)
    released = realm.objects(Person)
    released.release()
    with realm.write():
        with pytest.raises(fief.InvalidHandleError):
            released.set_all("age", 1)
