"""Sectioned results (fief.sections) and their notifications; commits
without notifying (realm.write(without_notifying=[...])).  Timeouts are
liveness bounds only."""

from __future__ import annotations

import select
import time

import pytest

import fief
from models import Dog

TIMEOUT = 30.0


def deliver_until(realm, condition) -> None:
    fd = realm.notification_fd()
    deadline = time.monotonic() + TIMEOUT
    while not condition() and time.monotonic() < deadline:
        select.select([fd], [], [], 1.0)
        realm.process_notifications()
    assert condition(), "no callback came"


def dog(realm, name):
    return realm.objects(Dog).filter("name == $0", name)[0]


def add(realm, i, name, breed):
    realm.create(Dog, {"id": i, "name": name, "breed": breed})


def test_sectioned_results_read_and_observe(realm):
    with realm.write():
        add(realm, 1, "a", "tan")
        add(realm, 2, "b", "tan")
        add(realm, 3, "c", "red")
    sections = realm.objects(Dog).sort("breed", "name").sectioned(lambda d: d.breed)
    assert sections.all_keys == ["red", "tan"]
    assert [d.name for d in sections[1]] == ["a", "b"]
    by_property = realm.objects(Dog).sectioned("breed", ascending=False)
    assert by_property.all_keys == ["tan", "red"]

    seen: list = []
    token = sections.observe(lambda changes, s: seen.append(changes))
    deliver_until(realm, lambda: len(seen) == 1)
    assert seen[0].is_initial
    # (write, deletions, insertions, modifications, sections inserted, deleted)
    steps = [
        (lambda: add(realm, 4, "d", "tan"), [], [(1, 2)], [], [], []),
        (lambda: setattr(dog(realm, "a"), "age", 9), [], [], [(1, 0)], [], []),
        (lambda: add(realm, 5, "e", "black"), [], [(0, 0)], [], [0], []),
        (lambda: setattr(dog(realm, "c"), "breed", "tan"), [], [(1, 2)], [], [], [1]),
        (lambda: realm.delete(dog(realm, "b")), [(1, 1)], [], [], [], []),
    ]
    for write, deletions, insertions, modifications, inserted, deleted in steps:
        n = len(seen)
        with realm.write():
            write()
        deliver_until(realm, lambda: len(seen) > n)
        got = seen[-1]
        assert (got.deletions, got.insertions, got.modifications, got.sections_to_insert, got.sections_to_delete) \
            == (deletions, insertions, modifications, inserted, deleted)
    assert sections.all_keys == ["black", "tan"]
    token.close()


def test_one_sections_changes_alone(realm):
    with realm.write():
        add(realm, 1, "a", "tan")
        add(realm, 2, "b", "tan")
        add(realm, 3, "c", "red")
    sections = realm.objects(Dog).sectioned("breed")
    tan = sections[1]
    assert tan.key == "tan" and len(tan) == 2
    seen: list = []
    token = tan.observe(lambda changes, s: seen.append(changes), key_paths=["age"])
    deliver_until(realm, lambda: len(seen) == 1)
    with realm.write():
        dog(realm, "c").age = 5     # another section
    with realm.write():
        dog(realm, "a").name = "a2"  # not a watched property
    with realm.write():
        dog(realm, "b").age = 1
    deliver_until(realm, lambda: len(seen) == 2)
    assert seen[1].modifications == [(1, 1)]
    assert len(seen) == 2
    token.close()


def test_write_without_notifying(realm):
    dogs = realm.objects(Dog)
    skipped: list = []
    told: list = []
    quiet = dogs.observe(lambda changes, r: skipped.append(changes))
    loud = dogs.observe(lambda changes, r: told.append(changes))
    deliver_until(realm, lambda: len(skipped) == 1 and len(told) == 1)
    with realm.write(without_notifying=[quiet]):
        add(realm, 1, "quiet", "tan")
    deliver_until(realm, lambda: len(told) == 2)
    assert told[1].insertions == [0]
    assert len(skipped) == 1
    # begin_write / commit(without_notifying=...) the same way.
    realm.begin_write()
    add(realm, 2, "also quiet", "tan")
    realm.commit(without_notifying=[quiet, loud])
    with realm.write():
        add(realm, 3, "heard", "tan")
    deliver_until(realm, lambda: len(skipped) == 2 and len(told) == 3)
    assert skipped[1].insertions == [2] and told[2].insertions == [2]
    quiet.close()
    loud.close()


def test_without_notifying_refuses_another_realms_token(realm, realm_path):
    other = fief.Realm.open(realm_path)
    try:
        token = other.objects(Dog).observe(lambda changes, r: None)
        realm.begin_write()
        with pytest.raises(fief.InvalidArgumentError, match="another realm"):
            realm.commit(without_notifying=[token])
        assert realm.in_transaction
        realm.commit(without_notifying=[])
        token.close()
    finally:
        other.close()


def test_sections_computed_once_per_version(realm):
    with realm.write():
        add(realm, 1, "a", "tan")
        add(realm, 2, "b", "red")
    calls: list = []

    def breed(d):
        calls.append(d.name)
        return d.breed

    sections = realm.objects(Dog).sort("name").sectioned(breed)
    assert sections.all_keys == ["tan", "red"]
    assert len(calls) == 2
    # Read again at the same version: nothing computed again.
    assert len(sections) == 2 and [d.name for d in sections[1]] == ["b"]
    assert [s.key for s in sections] == ["tan", "red"]
    assert len(calls) == 2
    # A commit moves the version: computed again, once.
    with realm.write():
        add(realm, 3, "c", "black")
    assert sections.all_keys == ["tan", "red", "black"]
    assert len(sections) == 3
    assert len(calls) == 5
    # Inside a write the rows change without a new version: every read computes.
    with realm.write():
        add(realm, 4, "d", "tan")
        assert [d.name for d in sections[0]] == ["a", "d"]
        assert len(calls) == 9
        assert len(sections) == 3
        assert len(calls) == 13
    assert sections.all_keys == ["tan", "red", "black"]
    assert len(calls) == 17
    # A key path reads the column once per version too.
    by_breed = realm.objects(Dog).sectioned("breed")
    assert by_breed.all_keys == ["black", "red", "tan"]
    assert by_breed._cached is not None and by_breed._cached[0] == realm.version
