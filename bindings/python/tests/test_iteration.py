"""Iterating results, as fief.h states it (fief_results_get_keys) and as
RealmSwift does: the objects that match when the loop begins, their keys read
in batches; changes made in the loop neither add nor move objects, and a
deleted object is skipped."""

from __future__ import annotations

import fief
from fief import realm as realm_module
from models import Dog


def _dogs(realm: fief.Realm, n: int) -> None:
    with realm.write():
        realm.add_all([Dog(id=i, name=f"d{i:05d}", age=i % 7) for i in range(n)])


def test_keys_are_read_in_batches_and_match_one_by_one(realm):
    n = 2 * realm_module.KEY_BATCH + 5  # three batches, the last one short
    _dogs(realm, n)
    dogs = realm.objects(Dog).sort("name", ascending=False)
    keys = dogs.keys()
    assert len(keys) == n
    assert [d.id for d in dogs] == list(range(n - 1, -1, -1))
    assert [dogs[i].object_key for i in (0, 1, n - 1)] == [keys[0], keys[1], keys[n - 1]]
    empty = realm.objects(Dog).filter("age > 100")
    assert empty.keys() == [] and list(empty) == []


def test_an_object_deleted_in_the_loop_is_skipped_and_none_other(realm):
    _dogs(realm, 10)
    seen = []
    with realm.write():
        for dog in realm.objects(Dog):
            seen.append(dog.id)
            if dog.id == 3:
                realm.delete(dog)  # the one visited: the loop goes on to id 4
                realm.delete(realm.objects(Dog).filter("id == 6")[0])  # ahead: skipped
    assert seen == [0, 1, 2, 3, 4, 5, 7, 8, 9]


def test_objects_that_stop_matching_are_still_visited(realm):
    _dogs(realm, 6)
    young = realm.objects(Dog).filter("age < 3")  # ids 0, 1, 2
    seen = []
    with realm.write():
        for dog in young:
            seen.append(dog.id)
            dog.age = 5  # no longer matches
            realm.add(Dog(id=100 + dog.id, name="new", age=0))  # matches, but came later
    assert seen == [0, 1, 2]
    assert sorted(d.id for d in young) == [100, 101, 102]


class Numbers(fief.Object):
    name: fief.PrimaryKey[str]
    ints: list[int]


def test_values_are_read_when_the_loop_begins(realm_path):
    with fief.Realm.open(realm_path, schema=[Numbers]) as realm:
        with realm.write():
            numbers = realm.add(Numbers(name="n", ints=[1, 2, 3]))
        values = numbers.ints.results()
        assert isinstance(values, fief.ValueResults)
        seen = []
        with realm.write():
            for value in values:
                seen.append(value)
                if value == 1:
                    numbers.ints.append(4)  # not visited: it came later
                    del numbers.ints[1]     # still visited: 2 was there when the loop began
        assert seen == [1, 2, 3]
        assert list(values) == [1, 3, 4]
