"""Sort, distinct and limit: key paths through to-one links and embedded
objects, stages applied in the order they are chained (as Realm's SORT,
DISTINCT and LIMIT), distinct by Realm's equality, filters before the
stages, live results that follow the linked objects, lists of values."""

from __future__ import annotations

from typing import Optional

import pytest

import fief


class Address(fief.EmbeddedObject):
    city: Optional[str] = None


class Owner(fief.Object):
    name: Optional[str] = None
    age: int = 0
    address: Optional[Address] = None
    scores: list[Optional[int]]
    anys: list[fief.Mixed]


class Pet(fief.Object):
    name: str = ""
    age: int = 0
    owner: Optional[Owner] = None
    tag: fief.Mixed


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=[Address, Owner, Pet]) as r:
        yield r


@pytest.fixture
def pets(realm):
    """d0..d5: d1 has no owner; Zed has no address; one owner has no name."""
    with realm.write():
        ann = realm.add(Owner(name="Ann", age=40, address=Address(city="Oslo")))
        nameless = realm.add(Owner(name=None, age=30, address=Address(city="Bergen")))
        zed = realm.add(Owner(name="Zed", age=20))
        emile = realm.add(Owner(name="\u00c9mile", age=10, address=Address(city="Aden")))
        for name, age, owner in [("d0", 1, zed), ("d1", 2, None), ("d2", 3, ann), ("d3", 4, nameless),
                                 ("d4", 5, emile), ("d5", 6, ann)]:
            realm.add(Pet(name=name, age=age, owner=owner))
    return realm.objects(Pet)


def names(results):
    return [p.name for p in results]


def test_sort_by_key_paths(pets):
    # None first ascending; a pet without an owner after every value (Realm's order).
    assert names(pets.sort("owner.name")) == ["d3", "d2", "d5", "d0", "d4", "d1"]
    assert names(pets.sort("owner.name", ascending=False)) == ["d1", "d4", "d0", "d2", "d5", "d3"]
    assert names(pets.sort("-owner.name")) == ["d1", "d4", "d0", "d2", "d5", "d3"]
    assert names(pets.sort("owner.address.city")) == ["d4", "d3", "d2", "d5", "d0", "d1"]
    assert names(pets.sort(("owner.age", False), ("age", False))) == ["d1", "d5", "d2", "d3", "d0", "d4"]
    # Sorting sorted results: the new keys first.
    assert names(pets.sort("-name").sort("owner.name")) == ["d3", "d5", "d2", "d0", "d4", "d1"]


def test_stages_apply_in_order(pets):
    assert names(pets.limit(2).sort("-name")) == ["d1", "d0"]
    assert names(pets.sort("-name").limit(2)) == ["d5", "d4"]
    assert names(pets.sort("owner.age").limit(3).sort("-age")) == ["d4", "d3", "d0"]
    assert len(pets.limit(0)) == 0
    assert len(pets.limit(100)) == 6
    assert len(pets.sort("age").limit(4)) == 4
    # Distinct keeps the first object seen per value, in the current order.
    assert names(pets.distinct("owner.name")) == ["d0", "d2", "d3", "d4"]
    assert names(pets.sort("-age").distinct("owner.name")) == ["d5", "d4", "d3", "d0"]
    assert names(pets.distinct("owner.name").sort("-age").limit(2)) == ["d4", "d3"]
    assert names(pets.distinct(Pet.name, "age")) == ["d0", "d1", "d2", "d3", "d4", "d5"]
    assert names(pets.distinct(["owner.age"])) == ["d0", "d2", "d3", "d4"]
    # Aggregates, index and delete_all see what the stages leave.
    top = pets.sort("-age").limit(2)
    assert top.sum("age") == 11
    assert top.find_index(pets.filter("name == 'd4'")[0]) == 1
    assert pets.filter("name == 'd0'")[0] not in top


def test_filters_apply_before_the_stages(realm, pets):
    # A filter on sorted results keeps the sort; on distinct results it filters first.
    assert names(pets.sort("owner.name").filter("age > 2")) == ["d3", "d2", "d5", "d4"]
    assert names(pets.distinct("owner.name").filter("age > 3")) == ["d3", "d4", "d5"]
    with pytest.raises(fief.InvalidQueryError, match="cannot filter results that have a limit"):
        pets.limit(2).filter("age > 3")
    assert names(pets.filter("age > 3").limit(2)) == ["d3", "d4"]


def test_distinct_by_realm_equality(realm):
    with realm.write():
        for i, tag in enumerate([1, 1.0, "1", True, None, None, "a", "A", 2]):
            realm.add(Pet(name=f"p{i}", tag=tag))
    assert names(realm.objects(Pet).distinct("tag")) == ["p0", "p2", "p3", "p4", "p6", "p7", "p8"]


def test_results_follow_the_linked_objects(realm, pets):
    by_owner = pets.sort("owner.name")
    owners = pets.distinct("owner.name")
    assert names(by_owner) == ["d3", "d2", "d5", "d0", "d4", "d1"]
    assert len(owners) == 4
    ann = realm.objects(Owner).filter("name == 'Ann'")[0]
    with realm.write():
        ann.name = "Zz"
        # Inside the write, too.
        assert names(by_owner) == ["d3", "d0", "d2", "d5", "d4", "d1"]
    assert names(by_owner) == ["d3", "d0", "d2", "d5", "d4", "d1"]
    with realm.write():
        realm.objects(Owner).filter("name == nil")[0].name = "Zz"
    assert len(owners) == 3
    with realm.write():
        realm.delete(ann)
    assert names(by_owner) == ["d0", "d3", "d4", "d1", "d2", "d5"]
    assert names(owners) == ["d0", "d3", "d4"]


def test_lists_of_values(realm):
    with realm.write():
        owner = realm.add(Owner(name="Ann", scores=[3, None, 1, 3, None, 2, 1], anys=[1, 1.0, "1", None, None, True]))
    scores = owner.scores.results()
    assert list(scores.distinct()) == [3, None, 1, 2]
    assert list(scores.limit(3)) == [3, None, 1]
    assert list(scores.sort(ascending=False).distinct().limit(3)) == [3, 2, 1]
    assert list(scores.limit(3).sort()) == [None, 1, 3]
    assert list(owner.anys.results().distinct()) == [1, "1", None, True]
    with pytest.raises(fief.InvalidQueryError, match="limit"):
        scores.limit(2).filter("self > 1")


def test_bad_input(pets):
    with pytest.raises(fief.InvalidQueryError, match="cannot sort by 'owner.nope': class 'Owner' has no property 'nope'"):
        pets.sort("owner.nope")
    with pytest.raises(fief.InvalidQueryError, match="'Pet.owner' is a link"):
        pets.distinct("owner")
    with pytest.raises(fief.InvalidQueryError, match="'Owner.scores' is a list"):
        pets.sort("owner.scores")
    with pytest.raises(fief.InvalidQueryError, match="'Pet.age' is an int, not a link"):
        pets.distinct("age.x")
    with pytest.raises(fief.InvalidArgumentError, match="distinct needs at least one key path"):
        pets.distinct()
    with pytest.raises(TypeError):
        pets.distinct(3)
    with pytest.raises(fief.InvalidArgumentError, match="a limit is 0 or more"):
        pets.limit(-1)
    with pytest.raises(TypeError):
        pets.limit(2.5)
    with pytest.raises(TypeError):
        pets.limit(True)


def test_query_suffixes_are_the_same_stages(pets):
    # SORT, DISTINCT and LIMIT written in the predicate, applied left to right.
    assert names(pets.filter("age > 1 SORT(name DESC) LIMIT(2)")) == ["d5", "d4"]
    assert names(pets.filter("TRUEPREDICATE LIMIT(2) SORT(name DESC)")) == ["d1", "d0"]
    assert names(pets.filter("TRUEPREDICATE DISTINCT(owner.name) SORT(age DESC)")) == ["d4", "d3", "d2", "d0"]
    assert names(pets.filter("age < $0 SORT(owner.age ASC, age ASC)", 4)) == ["d0", "d2", "d1"]
    with pytest.raises(fief.QueryError):
        pets.filter("TRUEPREDICATE SORT(name)")
    with pytest.raises(fief.QueryError):
        pets.filter("TRUEPREDICATE SORT(nope ASC)")
