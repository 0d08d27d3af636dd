"""Linking-objects properties (fief.LinkingObjects, also spelt fief.Backlinks):
declared to the realm as computed properties, so queries name them as they
name @links.Class.property; read as live results; never stored (a realm
opened without them cannot name them); bad declarations refused."""

from __future__ import annotations

from typing import Optional

import pytest

import fief


class Person(fief.Object):
    name: str = ""
    age: int = 0
    clubs = fief.LinkingObjects("DogClub", "members")
    presiding = fief.Backlinks("DogClub", "president", name="presides")


class DogClub(fief.Object):
    name: str = ""
    fee: float = 0.0
    members: list[Person] = []
    president: Optional[Person] = None


MODELS = [Person, DogClub]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def add_clubs(realm):
    """Ann and Bob in Pooch Pals (fee 10, Ann presiding), Ann in Barkers (fee 30), Cy in none."""
    with realm.write():
        ann, bob, cy = (realm.add(Person(name=n, age=a)) for n, a in [("Ann", 30), ("Bob", 40), ("Cy", 50)])
        pals = realm.add(DogClub(name="Pooch Pals", fee=10.0, members=[ann, bob], president=ann))
        barkers = realm.add(DogClub(name="Barkers", fee=30.0, members=[ann]))
    return ann, bob, cy, pals, barkers


def names(results):
    return sorted(p.name for p in results)


def test_the_schema_declares_them(realm):
    person = next(c for c in realm.schema if c.name == "Person")
    clubs = person.properties["clubs"]
    assert clubs.is_linking_objects and clubs.collection_type == fief._lib.COLLECTION_LINKING_OBJECTS
    assert (clubs.link_target, clubs.origin_property, clubs.key, clubs.flags) == ("DogClub", "members", 0, 0)
    assert person.properties["presides"].origin_property == "president"
    assert not person.properties["name"].is_linking_objects and person.properties["name"].origin_property is None
    assert [s.attr for s in Person.__fief_properties__] == ["name", "age"]
    assert [b.attr for b in Person.__fief_linking_objects__] == ["clubs", "presiding"]
    assert fief.LinkingObjects is fief.Backlinks


@pytest.mark.parametrize("predicate, expected", [
    ("ANY clubs.name == 'Pooch Pals'", ["Ann", "Bob"]),
    ("clubs.name ==[c] 'barkers'", ["Ann"]),
    ("ALL clubs.fee < 20", ["Bob", "Cy"]),
    ("NONE clubs.fee > 20", ["Bob", "Cy"]),
    ("clubs.@count > 1", ["Ann"]),
    ("clubs.@size == 0", ["Cy"]),
    ("clubs.@avg.fee == 20", ["Ann"]),
    ("clubs.@sum.fee >= 10", ["Ann", "Bob"]),
    ("clubs.@max.fee == 10", ["Bob"]),
    ("SUBQUERY(clubs, $c, $c.name BEGINSWITH 'P').@count > 0", ["Ann", "Bob"]),
    ("clubs.members.name == 'Bob' AND name != 'Bob'", ["Ann"]),
    ("presides.@count == 1", ["Ann"]),
    ("presides.fee == 10 OR clubs.@count == 0", ["Ann", "Cy"]),
])
def test_queries_name_them(realm, predicate, expected):
    add_clubs(realm)
    people = realm.objects(Person)
    assert names(people.filter(predicate)) == expected
    spelled = predicate.replace("clubs", "@links.DogClub.members").replace("presides", "@links.DogClub.president")
    assert names(people.filter(spelled)) == expected


def test_arguments_and_live_results(realm):
    ann, bob, cy, pals, barkers = add_clubs(realm)
    people = realm.objects(Person)
    assert names(people.filter("ANY clubs.name == $0", "Barkers")) == ["Ann"]
    assert names(people.filter("$0 IN clubs", pals)) == ["Ann", "Bob"]
    in_two = people.filter("clubs.@count == 2")
    assert names(in_two) == ["Ann"]
    with realm.write():
        barkers.members.append(bob)
        assert names(in_two) == ["Ann", "Bob"]     # inside the write, too
    assert names(in_two) == ["Ann", "Bob"]
    # Reading the property gives the linking objects as live results.
    assert sorted(c.name for c in bob.clubs) == ["Barkers", "Pooch Pals"]
    assert [c.name for c in ann.presiding] == ["Pooch Pals"]
    assert len(cy.clubs) == 0 and Person(name="Dee").clubs == ()
    assert names(realm.objects(DogClub).filter("ANY members.clubs.fee > 20")) == ["Barkers", "Pooch Pals"]


def test_they_take_no_value(realm):
    ann, *_ = add_clubs(realm)
    with pytest.raises(AttributeError, match="read-only"):
        ann.clubs = []
    with pytest.raises(fief.NoSuchPropertyError, match="Person.clubs lists the objects linking here: it takes no value"):
        Person(name="Dee", clubs=[])


def test_sort_and_distinct_refuse_them(realm):
    add_clubs(realm)
    people = realm.objects(Person)
    with pytest.raises(fief.InvalidQueryError, match="'Person.clubs' is linking objects"):
        people.sort("clubs.name")
    with pytest.raises(fief.InvalidQueryError, match="cannot distinct by 'clubs'"):
        people.distinct("clubs")
    with pytest.raises(fief.InvalidQueryError, match="has no property 'nothing'"):
        people.filter("clubs.nothing == 1")


def test_not_stored(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        add_clubs(realm)
    # Opened without a schema (the file's own): no clubs.
    with fief.Realm.open(realm_path) as realm:
        person = next(c for c in realm.schema if c.name == "Person")
        assert sorted(person.properties) == ["age", "name"]

    class Plain(fief.Object, name="Person"):
        name: str = ""
        age: int = 0

    # Declared or not at the same schema version: no migration either way;
    # undeclared, only @links names them.
    with fief.Realm.open(realm_path, schema=[Plain, DogClub]) as realm:
        people = realm.objects(Plain)
        assert len(people) == 3
        with pytest.raises(fief.InvalidQueryError, match="no property 'clubs'"):
            people.filter("clubs.@count > 0")
        assert len(people.filter("@links.DogClub.members.@count > 0")) == 2
        realm.update_schema(MODELS)
        assert names(realm.objects(Person).filter("clubs.@count > 0")) == ["Ann", "Bob"]
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        assert realm.schema_version == 0
        assert names(realm.objects(Person).filter("clubs.@count > 0")) == ["Ann", "Bob"]


def test_origin_outside_the_schema_is_not_declared(realm_path):
    # Without DogClub in the schema, Person's clubs cannot be declared (nor queried).
    with fief.Realm.open(realm_path, schema=[Person]) as realm:
        person = next(c for c in realm.schema if c.name == "Person")
        assert sorted(person.properties) == ["age", "name"]
        with realm.write():
            realm.add(Person(name="Ann"))
        with pytest.raises(fief.InvalidQueryError, match="no property 'clubs'"):
            realm.objects(Person).filter("clubs.@count == 0")


def test_bad_declarations(realm_path):
    class Member(fief.Object):
        name: str = ""
        wrong_property = fief.LinkingObjects("Club", "players")
    class Club(fief.Object):
        name: str = ""
        members: list[Member] = []
    with pytest.raises(fief.InvalidSchemaError, match="origin property 'Club.players', which does not exist"):
        fief.Realm.open(realm_path, schema=[Member, Club])

    class Member2(fief.Object, name="Member"):
        name: str = ""
        not_a_link = fief.LinkingObjects("Club", "name")
    with pytest.raises(fief.InvalidSchemaError, match="'Club.name', which is string, not a link"):
        fief.Realm.open(realm_path, schema=[Member2, Club])

    class GoodMember(fief.Object, name="Member"):
        name: str = ""
    class Other(fief.Object):
        title: str = ""
        elsewhere = fief.LinkingObjects("Club", "members")
    with pytest.raises(fief.InvalidSchemaError, match="which links to class 'Member', not 'Other'"):
        fief.Realm.open(realm_path, schema=[GoodMember, Club, Other])

    with pytest.raises(TypeError, match="a property named 'name' is stored too"):
        class Clash(fief.Object):
            name: str = ""
            dup = fief.LinkingObjects("Club", "members", name="name")


def test_backlinks_through_a_mixed_property_are_only_read(realm_path):
    class Pet(fief.Object):
        name: str = ""
        crates = fief.Backlinks("Crate", "value")

    class Crate(fief.Object):
        value: fief.Mixed

    with fief.Realm.open(realm_path, schema=[Pet, Crate]) as realm:
        pet = next(c for c in realm.schema if c.name == "Pet")
        assert sorted(pet.properties) == ["name"]
        with realm.write():
            rex = realm.add(Pet(name="Rex"))
            realm.add(Crate(value=rex))
        assert len(rex.crates) == 1
        with pytest.raises(fief.InvalidQueryError, match="no property 'crates'"):
            realm.objects(Pet).filter("crates.@count > 0")
