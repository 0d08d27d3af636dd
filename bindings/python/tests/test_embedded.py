"""Embedded objects: declared with fief.EmbeddedObject, created in place when
assigned to (or added with) their parent, deleted with it or when replaced,
never added, listed or shared on their own."""

from __future__ import annotations

from typing import Optional

import pytest

import fief


class Address(fief.EmbeddedObject):
    street: str = ""
    city: Optional[str] = None


class Person(fief.Object):
    name: str = ""
    address: Optional[Address] = None


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=[Address, Person]) as r:
        yield r


def test_schema_marks_the_class_embedded(realm):
    address = next(c for c in realm.schema if c.name == "Address")
    assert address.flags & 1
    with pytest.raises(fief.FiefError, match="embedded"):
        realm.objects(Address)


def test_created_in_place(realm):
    ann = Person(name="Ann", address=Address(street="Main St", city="Porto"))
    with realm.write():
        realm.add(ann)
    assert ann.address.street == "Main St" and ann.address.city == "Porto"
    home = Address(street="Elm St")
    with realm.write():
        bob = realm.add(Person(name="Bob"))
        bob.address = home
        home.city = "Lisbon"
    assert home.is_managed and bob.address.city == "Lisbon"
    with realm.write():
        cy = realm.create(Person, name="Cy", address={"street": "Oak"})
    assert cy.address.street == "Oak"


def test_replaced_cleared_and_deleted_with_the_parent(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", address=Address(street="First")))
    first = ann.address
    with realm.write():
        ann.address = Address(street="Second")
    assert not first.is_valid and ann.address.street == "Second"
    second = ann.address
    with realm.write():
        ann.address = None
    assert not second.is_valid and ann.address is None
    with realm.write():
        ann.address = Address(street="Third")
    third = ann.address
    with realm.write():
        realm.delete(ann)
    assert not third.is_valid


def test_never_on_their_own(realm):
    with realm.write():
        ann = realm.add(Person(name="Ann", address=Address(street="Main")))
        bob = realm.add(Person(name="Bob"))
        with pytest.raises(fief.FiefError):
            realm.add(Address(street="Alone"))
        with pytest.raises(fief.LogicError, match="one parent"):
            bob.address = ann.address
    assert bob.address is None
