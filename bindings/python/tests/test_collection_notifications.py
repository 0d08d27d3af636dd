"""List, set and dict notifications (observe and changes() on fief.List,
fief.Set and fief.Dict): the initial call, then positions (lists, sets) or
keys (dicts) from commits of this realm and of another one; moves; key
paths; the owner's deletion; bad registrations.  Timeouts are liveness
bounds only."""

from __future__ import annotations

import asyncio
import select
import time

import pytest

import fief
from fief import errors

TIMEOUT = 30.0


class Item(fief.Object):
    name: str = ""
    size: int = 0


class Owner(fief.Object):
    name: fief.PrimaryKey[str]
    nums: list[int]
    items: list[Item]
    tags: set[str]
    scores: dict[str, int]


class Holder(fief.Object):
    value: fief.Mixed


MODELS = [Item, Owner, Holder]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def deliver_until_called(realm, seen: list, before: int) -> object:
    fd = realm.notification_fd()
    deadline = time.monotonic() + TIMEOUT
    while len(seen) == before and time.monotonic() < deadline:
        select.select([fd], [], [], 1.0)
        realm.process_notifications()
    assert len(seen) == before + 1, "no callback came"
    return seen[-1]


def make_owner(realm) -> Owner:
    with realm.write():
        owner = realm.create(Owner, {"name": "ann", "nums": [0, 1, 2], "tags": {"b", "d"}, "scores": {"a": 1}})
        for i in range(3):
            owner.items.append(realm.create(Item, {"name": f"i{i}", "size": i}))
    return owner


def test_list_of_values(realm):
    owner = make_owner(realm)
    seen: list = []
    token = owner.nums.observe(lambda changes, c: seen.append((changes, len(c))))
    changes, count = deliver_until_called(realm, seen, 0)
    assert changes.is_initial and count == 3
    with realm.write():
        owner.nums.append(3)
    changes, count = deliver_until_called(realm, seen, 1)
    assert (changes.insertions, count) == ([3], 4)
    with realm.write():
        owner.nums[0] = 10
    changes, _ = deliver_until_called(realm, seen, 2)
    assert changes.modifications == [0]
    with realm.write():
        owner.nums.move(0, 2)
    changes, _ = deliver_until_called(realm, seen, 3)
    assert (changes.deletions, changes.insertions, changes.moves) == ([0], [2], [(0, 2)])
    with realm.write():
        owner.nums.clear()
    changes, count = deliver_until_called(realm, seen, 4)
    assert (changes.deletions, changes.is_cleared, count) == ([0, 1, 2, 3], True, 0)
    token.close()


def test_list_of_objects_key_paths_and_owner_deleted(realm):
    owner = make_owner(realm)
    seen: list = []
    token = owner.items.observe(lambda changes, c: seen.append(changes), key_paths=["name"])
    assert deliver_until_called(realm, seen, 0).is_initial
    with realm.write():
        owner.items[1].size = 5  # not watched
    with realm.write():
        owner.items[2].name = "renamed"
    changes = deliver_until_called(realm, seen, 1)
    assert changes.modifications == [2]
    with realm.write():
        realm.delete(owner.items[0])
    changes = deliver_until_called(realm, seen, 2)
    assert changes.deletions == [0]
    with realm.write():
        realm.delete(owner)
    changes = deliver_until_called(realm, seen, 3)
    assert changes.is_root_deleted and changes.deletions == [0, 1]
    token.close()


def test_set_and_dict(realm):
    owner = make_owner(realm)
    set_seen: list = []
    dict_seen: list = []
    t1 = owner.tags.observe(lambda changes, c: set_seen.append(changes))
    t2 = owner.scores.observe(lambda changes, c: dict_seen.append(changes))
    assert deliver_until_called(realm, set_seen, 0).is_initial
    assert dict_seen[-1].is_initial
    with realm.write():
        owner.tags.add("c")
        owner.scores["b"] = 2
        owner.scores["a"] = 10
    changes = deliver_until_called(realm, set_seen, 1)
    assert changes.insertions == [1]
    changes = dict_seen[-1]
    assert isinstance(changes, fief.MapChanges)
    assert (changes.deletions, changes.insertions, changes.modifications) == ([], ["b"], ["a"])
    with realm.write():
        del owner.scores["a"]
    deliver_until_called(realm, dict_seen, 2)
    assert dict_seen[-1].deletions == ["a"]
    t1.close()
    t2.close()


def test_changes_async_iterator(realm, realm_path):
    owner = make_owner(realm)

    async def main() -> list:
        loop = asyncio.get_running_loop()
        got: list = []
        async for changes in owner.nums.changes():
            got.append(changes)
            if changes.is_initial:
                def commit() -> None:
                    with fief.Realm.open(realm_path, schema=MODELS) as other:
                        with other.write():
                            other.objects(Owner)[0].nums.append(7)
                await loop.run_in_executor(None, commit)
            else:
                break
        return got

    got = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    assert got[0].is_initial
    assert got[1].insertions == [3]


def test_bad_registrations(realm):
    owner = make_owner(realm)
    with pytest.raises(errors.NoSuchPropertyError, match="nope"):
        owner.items.observe(lambda c, l: None, key_paths=["nope"])
    with pytest.raises(errors.InvalidArgumentError):
        owner.nums.observe(lambda c, l: None, key_paths=["x"])
    with pytest.raises(TypeError):
        owner.nums.observe(lambda c, l: None, key_paths="name")
    with realm.write():
        with pytest.raises(errors.AlreadyInTransactionError):
            owner.tags.observe(lambda c, s: None)


def test_nested_list_and_dict_in_a_mixed_value(realm):
    with realm.write():
        holder = realm.create(Holder, {"value": [1, 2, {"k": [5]}]})
    nested = holder.value
    assert isinstance(nested, fief.List) and nested.is_nested
    seen: list = []
    token = nested.observe(lambda changes, c: seen.append(changes))
    assert deliver_until_called(realm, seen, 0).is_initial
    inner = nested[2]
    assert isinstance(inner, fief.Dict)
    dict_seen: list = []
    dict_token = inner.observe(lambda changes, c: dict_seen.append(changes))
    assert deliver_until_called(realm, dict_seen, 0).is_initial
    # (write, deletions, insertions, modifications) of the nested list
    steps = [
        (lambda: nested.append(3), [], [3], []),
        (lambda: nested.__setitem__(0, 10), [], [], [0]),
        (lambda: inner["k"].append(6), [], [], [2]),
        (lambda: nested.insert(0, "x"), [], [0], []),
    ]
    for write, deletions, insertions, modifications in steps:
        n = len(seen)
        with realm.write():
            write()
        changes = deliver_until_called(realm, seen, n)
        assert (changes.deletions, changes.insertions, changes.modifications) == (deletions, insertions, modifications)
    # The dict heard its own key modified (the list inside it grew).
    assert [c.modifications for c in dict_seen[1:]] == [["k"]]
    # The value replaced: both are gone (every old element deleted, the root flag), then silent.
    n, m = len(seen), len(dict_seen)
    with realm.write():
        holder.value = 7
    changes = deliver_until_called(realm, seen, n)
    assert changes.is_root_deleted and changes.deletions == [0, 1, 2, 3, 4]
    assert len(dict_seen) == m + 1 and dict_seen[-1].is_root_deleted and dict_seen[-1].deletions == ["k"]
    token.close()
    dict_token.close()


def test_filtered_and_sorted_results_of_values(realm):
    owner = make_owner(realm)  # nums: 0 1 2
    seen: list = []
    results = owner.nums.filter("self > 0").sort(ascending=False)
    token = results.observe(lambda changes, r: seen.append((changes, list(r))))
    changes, now = deliver_until_called(realm, seen, 0)
    assert changes.is_initial and now == [2, 1]
    # (write, deletions, insertions, modifications, rows after)
    steps = [
        (lambda: owner.nums.append(5), [], [0], [], [5, 2, 1]),
        (lambda: owner.nums.__setitem__(1, 0), [2], [], [], [5, 2]),
        (lambda: owner.nums.insert(0, -1), None, None, None, [5, 2]),
        (lambda: owner.nums.__setitem__(0, 3), [], [1], [], [5, 3, 2]),
    ]
    for write, deletions, insertions, modifications, rows in steps:
        n = len(seen)
        with realm.write():
            write()
        if deletions is None:
            realm.process_notifications()
            assert len(seen) == n and list(results) == rows
            continue
        changes, now = deliver_until_called(realm, seen, n)
        assert (changes.deletions, changes.insertions, changes.modifications, now) \
            == (deletions, insertions, modifications, rows)
    token.close()
