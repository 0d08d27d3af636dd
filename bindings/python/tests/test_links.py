"""To-one links: declared as Optional[Model], read as the model object, set
with an object (an unmanaged one is added), nulled when the target is
deleted, queried with an object argument, refused across files."""

from __future__ import annotations

from typing import Optional

import pytest

import fief


class Dog(fief.Object):
    name: str = ""
    age: int = 0
    owners = fief.Backlinks("Person", "dog")


class Person(fief.Object):
    name: str = ""
    dog: Optional[Dog] = None
    best_friend: Optional["Person"] = None
    rival: Optional[Person] = None


class Toy(fief.Object):
    owner: Optional[Owner] = None  # a class declared further down


class Owner(fief.Object):
    name: str = ""


MODELS = [Dog, Person, Toy, Owner]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def test_declared_links_and_their_schema(realm):
    specs = {s.attr: s for s in Person.__fief_properties__}
    assert specs["dog"].link_target == "Dog"
    assert specs["best_friend"].link_target == "Person"
    assert Toy.__fief_properties__[0].link_target == "Owner"
    person = next(c for c in realm.schema if c.name == "Person")
    assert person.properties["dog"].link_target == "Dog"
    assert person.properties["dog"].type_name == "link"
    with pytest.raises(TypeError, match="a link is always optional"):
        class Bad(fief.Object):
            dog: Dog


def test_set_follow_and_clear(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", dog=Dog(name="Rex", age=3)))
    assert ann.dog is not None and ann.dog.name == "Rex" and ann.dog.age == 3
    assert len(realm.objects(Dog)) == 1
    rex = ann.dog
    with realm.write():
        ann.dog.age = 4
        bob = realm.add(Person(name="Bob"))
        assert bob.dog is None
        bob.dog = rex
    assert bob.dog == rex and rex.age == 4
    with realm.write():
        bob.dog = None
    assert bob.dog is None
    assert realm.objects(Person).filter("dog == $0", rex).values("name") == [("Ann",)]
    assert len(realm.objects(Person).filter("dog == nil")) == 1
    assert ann.to_dict()["dog"] == rex


def test_a_graph_with_a_cycle_is_added_once(realm):
    a = Person(name="A")
    b = Person(name="B", best_friend=a)
    a.best_friend = b
    with realm.write():
        realm.add(a)
    assert len(realm.objects(Person)) == 2
    assert a.best_friend.name == "B" and a.best_friend.best_friend.name == "A"
    assert b.is_managed and b.best_friend == a


def test_deleting_the_target_nulls_the_link(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", dog=Dog(name="Rex")))
        realm.add(Person(name="Cy", dog=ann.dog))
    with realm.write():
        realm.delete(ann.dog)
    assert ann.dog is None
    assert len(realm.objects(Person).filter("dog != nil")) == 0


def test_bad_links_are_refused(realm, tmp_path):
    with realm.write():
        ann = realm.add(Person(name="Ann"))
        gone = realm.add(Dog(name="Gone"))
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="links to 'Dog' objects"):
            ann.dog = ann
        with pytest.raises(fief.TypeMismatchError):
            ann.dog = 5
        realm.delete(gone)
        with pytest.raises(fief.FiefError):
            ann.dog = gone
    assert ann.dog is None
    with fief.Realm.open(tmp_path / "other.fief", schema=MODELS) as other:
        with other.write():
            stranger = other.add(Dog(name="Stranger"))
        with realm.write():
            with pytest.raises(fief.LogicError, match="another realm file"):
                ann.dog = stranger
    with pytest.raises(fief.FiefError):
        ann.dog = None  # outside a write transaction


def test_links_survive_reopening(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            realm.add(Toy(owner=Owner(name="Olga")))
    with fief.Realm.open(realm_path, schema=MODELS, read_only=True) as realm:
        toy = realm.objects(Toy)[0]
        assert toy.owner.name == "Olga"


def test_backlinks_list_the_objects_linking_here(realm):
    rex = Dog(name="Rex")
    assert rex.owners == ()
    with realm.write():
        realm.add(Person(name="Ann", dog=rex))
        realm.add(Person(name="Bob", dog=rex))
        realm.add(Person(name="Cy"))
    owners = rex.owners
    assert sorted(p.name for p in owners) == ["Ann", "Bob"]
    assert len(owners.filter("name BEGINSWITH 'A'")) == 1
    with realm.write():
        realm.objects(Person).filter("name == 'Cy'")[0].dog = rex
        assert len(owners) == 3          # live, inside the write too
        realm.delete(realm.objects(Person).filter("name == 'Ann'")[0])
    assert len(owners) == 2
    with pytest.raises(AttributeError, match="read-only"):
        rex.owners = []
    assert [s.attr for s in Dog.__fief_properties__] == ["name", "age"]
