"""fief_object_get_values_by_key in the package: Realm.values_by_key reads
properties of an object named by class and object key without an object
handle, and property paths through links ("dog.name", in Results.values
too) follow each link with it; every bad name, key or path raises the
package's exception."""

from __future__ import annotations

import datetime as dt
from typing import Optional

import pytest

import fief


class Owner(fief.Object):
    name: str = ""
    born: Optional[dt.datetime] = None


class Dog(fief.Object):
    id: fief.PrimaryKey[int]
    name: str = ""
    age: int = 0
    owner: Optional[Owner] = None
    tags: list[str]


class Person(fief.Object):
    name: str = fief.Property(name="full_name", default="")   # stored under another name
    dog: Optional[Dog] = None
    best: Optional["Person"] = None
    extra: fief.Mixed


MODELS = [Owner, Dog, Person]
UTC = dt.timezone.utc


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        with r.write():
            ann = r.add(Owner(name="Ann", born=dt.datetime(1990, 5, 1, tzinfo=UTC)))
            rex = r.add(Dog(id=1, name="Rex", age=3, owner=ann, tags=["a"]))
            r.add(Dog(id=2, name="Ace", age=1))
            bob = r.add(Person(name="Bob", dog=rex, extra=rex))
            r.add(Person(name="Cy", best=bob, extra="text"))
        yield r


def spy(library, monkeypatch, *names):
    calls: dict[str, int] = {}
    for name in names:
        real = getattr(library, name)
        monkeypatch.setattr(library, name,
                            lambda *a, _n=name, _r=real: (calls.__setitem__(_n, calls.get(_n, 0) + 1), _r(*a))[1])
    return calls


def test_values_by_key_reads_without_an_object_handle(realm, library, monkeypatch):
    rex = realm.object(Dog, 1)
    key = rex.object_key
    calls = spy(library, monkeypatch, "fief_object_get", "fief_object_get_values_by_key", "fief_object_get_values")
    assert realm.values_by_key(Dog, key, "name", "age") == ("Rex", 3)
    assert realm.values_by_key("Dog", key, "age") == (3,)                      # a stored class name
    assert realm.values_by_key(realm._bind(Dog).class_key, key, "name") == ("Rex",)   # a class key
    assert calls == {"fief_object_get_values_by_key": 3}
    owner_link = realm.values_by_key(Dog, key, "owner")[0]
    assert isinstance(owner_link, fief.Link)                                   # links read as links
    assert realm.values_by_key(owner_link.class_key, owner_link.object_key) == (
        "Ann", dt.datetime(1990, 5, 1, tzinfo=UTC))
    assert "fief_object_get" not in calls


def test_all_properties_but_collections_by_default(realm):
    rex = realm.object(Dog, 1)
    assert realm.values_by_key(Dog, rex.object_key) == (1, "Rex", 3, realm.object(Dog, 1).owner._fief_link())


def test_paths_through_links(realm, library, monkeypatch):
    bob = realm.objects(Person).filter("full_name == 'Bob'")[0]
    cy = realm.objects(Person).filter("full_name == 'Cy'")[0]
    calls = spy(library, monkeypatch, "fief_object_get", "fief_object_get_values_by_key")
    assert realm.values_by_key(Person, bob.object_key, "name", "dog.name", "dog.owner.name", "dog.age") == (
        "Bob", "Rex", "Ann", 3)
    # Person, then its dog once for both dog paths, then the dog's owner.
    assert calls == {"fief_object_get_values_by_key": 3}
    assert realm.values_by_key(Person, cy.object_key, "best.dog.owner.name", "dog.name") == ("Ann", None)
    assert realm.values_by_key(Person, bob.object_key, "extra.name") == ("Rex",)      # a mixed value's link
    assert "fief_object_get" not in calls


def test_results_values_follow_links(realm, library, monkeypatch):
    people = realm.objects(Person).sort("full_name")
    calls = spy(library, monkeypatch, "fief_object_get", "fief_results_get_object")
    assert people.values("name", "dog.name", "dog.owner.born") == [
        ("Bob", "Rex", dt.datetime(1990, 5, 1, tzinfo=UTC)), ("Cy", None, None)]
    assert realm.objects(Dog).sort("id").values("id", "owner.name") == [(1, "Ann"), (2, None)]
    assert calls == {}
    assert realm.objects(Person).filter("dog != nil").values("full_name") == [("Bob",)]  # stored names too


def test_refused_names_keys_and_paths(realm):
    rex = realm.object(Dog, 1)
    with pytest.raises(fief.NoSuchObjectError, match="no object with key 999"):
        realm.values_by_key(Dog, 999, "name")
    with pytest.raises(fief.NoSuchClassError, match="no class with key 4242"):
        realm.values_by_key(4242, 0)
    with pytest.raises(fief.NoSuchClassError, match="'Cat'"):
        realm.values_by_key("Cat", 0)
    with pytest.raises(fief.NoSuchPropertyError, match="Dog has no property 'weight'"):
        realm.values_by_key(Dog, rex.object_key, "weight")
    with pytest.raises(fief.NoSuchPropertyError, match="Owner has no property 'nope'"):
        realm.values_by_key(Dog, rex.object_key, "owner.nope")
    with pytest.raises(fief.InvalidArgumentError, match="Dog.tags is a list"):
        realm.values_by_key(Dog, rex.object_key, "tags")
    with pytest.raises(fief.InvalidArgumentError, match="holds no link here"):
        realm.values_by_key(Dog, rex.object_key, "name.length")
    with pytest.raises(fief.InvalidArgumentError, match="non-empty str"):
        realm.values_by_key(Dog, rex.object_key, "")
    with pytest.raises(fief.InvalidArgumentError, match="holds no link here"):
        realm.objects(Person).values("extra.name")       # Cy's extra is a string
    with realm.write():
        realm.delete(rex)
    with pytest.raises(fief.NoSuchObjectError):
        realm.values_by_key(Dog, rex.object_key, "name")
    realm.close()
    with pytest.raises(fief.RealmClosedError):
        realm.values_by_key(Dog, 0, "name")
