"""Results notifications (Results.observe): the initial
call, then deletions, insertions and modifications from commits of this
realm, another thread and another process; sorted results; key paths
(unknown ones named in the error); closing the token; asyncio delivery.
Timeouts are liveness bounds only."""

from __future__ import annotations

import asyncio
import select
import threading
import time

import pytest

import fief
from fief import errors, notifications
from models import ALL_MODELS, Dog

TIMEOUT = 30.0


def deliver_until_called(realm, seen: list, before: int | None = None) -> object:
    """Deliver until one more callback than `before` (default: now) came;
    returns its changes.  The realm's own commit may deliver at once (its
    delivery after the commit), so callers pass the count from before it."""
    if before is None:
        before = len(seen)
    fd = realm.notification_fd()
    deadline = time.monotonic() + TIMEOUT
    while len(seen) == before and time.monotonic() < deadline:
        select.select([fd], [], [], 1.0)
        realm.process_notifications()
    assert len(seen) == before + 1, "no callback came"
    return seen[-1]


def add_dogs(realm, *ages: int, start: int = 0) -> None:
    with realm.write():
        for i, age in enumerate(ages):
            realm.create(Dog, {"id": start + i, "name": f"d{start + i}", "age": age})


def test_initial_then_updates(realm):
    add_dogs(realm, 0, 10, 20, 30)
    results = realm.objects(Dog).filter("age >= 10")
    seen: list = []
    token = results.observe(lambda changes, r: seen.append((changes, len(r))))
    assert seen == []
    changes, count = deliver_until_called(realm, seen)
    assert changes.is_initial and count == 3
    assert changes.deletions == changes.insertions == changes.modifications == changes.moves == []

    n = len(seen)
    add_dogs(realm, 50, start=100)
    changes, count = deliver_until_called(realm, seen, n)
    assert not changes.is_initial
    assert (changes.insertions, count) == ([3], 4)
    n = len(seen)
    with realm.write():
        results[1].name = "renamed"
    changes, _ = deliver_until_called(realm, seen, n)
    assert (changes.modifications, changes.modifications_new) == ([1], [1])
    n = len(seen)
    with realm.write():
        results[0].age = 1  # leaves the filter
    changes, count = deliver_until_called(realm, seen, n)
    assert (changes.deletions, count) == ([0], 3)
    token.close()
    assert token.closed


def test_sorted_results_reorder(realm):
    add_dogs(realm, 0, 10, 20)
    results = realm.objects(Dog).sort("age", ascending=False)
    seen: list = []
    with results.observe(lambda changes, r: seen.append(changes)):
        assert deliver_until_called(realm, seen).is_initial
        n = len(seen)
        with realm.write():
            results[2].age = 99
        changes = deliver_until_called(realm, seen, n)
        assert (changes.deletions, changes.insertions) == ([2], [0])


def test_key_paths(realm):
    add_dogs(realm, 1, 2)
    results = realm.objects(Dog)
    seen: list = []
    with results.observe(lambda changes, r: seen.append(changes), key_paths=["name"]):
        deliver_until_called(realm, seen)
        n = len(seen)
        with realm.write():
            results[0].age = 7  # not watched
        with realm.write():
            results[1].name = "x"
        changes = deliver_until_called(realm, seen, n)
        assert changes.modifications == [1]
    with pytest.raises(errors.NoSuchPropertyError, match="'nope'"):
        results.observe(lambda c, r: None, key_paths=["name", "nope"])
    with pytest.raises(errors.InvalidArgumentError, match="not a link"):
        results.observe(lambda c, r: None, key_paths=["name.x"])
    with pytest.raises(TypeError):
        results.observe(lambda c, r: None, key_paths="name")  # type: ignore[arg-type]


def test_registration_rules(realm):
    results = realm.objects(Dog)
    with realm.write():
        with pytest.raises(errors.AlreadyInTransactionError):
            results.observe(lambda c, r: None)
    with pytest.raises(errors.FrozenRealmError):
        results.freeze().observe(lambda c, r: None)
    with pytest.raises(TypeError):
        results.observe(None)  # type: ignore[arg-type]


def test_another_thread_and_another_process(realm, realm_path, python):
    results = realm.objects(Dog)
    seen: list = []
    token = results.observe(lambda changes, r: seen.append(changes))
    deliver_until_called(realm, seen)

    def run() -> None:
        with fief.Realm.open(realm_path, schema=ALL_MODELS) as other:
            with other.write():
                other.create(Dog, {"id": 1, "name": "thread"})
    thread = threading.Thread(target=run)
    n = len(seen)
    thread.start()
    thread.join()
    assert deliver_until_called(realm, seen, n).insertions == [0]

    n = len(seen)
    proc = python("""
        import sys, fief
        from models import ALL_MODELS, Dog
        with fief.Realm.open(sys.argv[1], schema=ALL_MODELS) as r:
            with r.write():
                r.create(Dog, {"id": 2, "name": "child"})
    """, str(realm_path))
    assert proc.returncode == 0, proc.stderr
    assert deliver_until_called(realm, seen, n).insertions == [1]
    token.close()


def test_closed_inside_the_callback_and_exceptions_are_kept(realm, caplog):
    results = realm.objects(Dog)
    calls: list = []
    holder: dict = {}

    def once(changes, r):
        calls.append(changes)
        holder["token"].close()

    holder["token"] = results.observe(once)
    deliver_until_called(realm, calls)
    add_dogs(realm, 1)
    realm.process_notifications()
    assert len(calls) == 1

    def boom(changes, r):
        raise RuntimeError("boom")

    token = results.observe(boom)
    fd = realm.notification_fd()
    deadline = time.monotonic() + TIMEOUT
    while token.exception is None and time.monotonic() < deadline:
        select.select([fd], [], [], 1.0)
        realm.process_notifications()
    assert isinstance(token.exception, RuntimeError)
    token.close()


def test_asyncio_delivery(realm, realm_path):
    results = realm.objects(Dog)

    async def main() -> list:
        loop = asyncio.get_running_loop()
        seen: list = []
        done = loop.create_future()

        def on_change(changes, r):
            seen.append((changes.is_initial, list(changes.insertions), len(r), threading.get_ident()))
            if len(r) == 1 and not done.done():
                done.set_result(None)

        token = results.observe(on_change)
        with notifications.watch(realm):
            def commit() -> None:
                with fief.Realm.open(realm_path, schema=ALL_MODELS) as other:
                    with other.write():
                        other.create(Dog, {"id": 5, "name": "async"})
            await loop.run_in_executor(None, commit)
            await asyncio.wait_for(done, TIMEOUT)
        token.close()
        return seen

    seen = asyncio.run(main())
    me = threading.get_ident()
    assert all(thread == me for *_, thread in seen)
    # The commit may land before the first delivery: then it is in the initial state.
    assert seen[0][0] is True
    if len(seen) == 2:
        assert seen == [(True, [], 0, me), (False, [0], 1, me)]
    else:
        assert seen == [(True, [], 1, me)]


def test_async_for_changes_and_a_watch_beside_it(realm, realm_path):
    """``async for change in results.changes()``: the initial change set,
    then another thread's commit; a ``watch`` of the same realm
    on the loop keeps working after the iteration ends (they share the
    loop's reader)."""
    results = realm.objects(Dog).filter("id >= 10")
    realm_seen: list = []

    async def main() -> list:
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def on_realm(notification, _realm) -> None:
            realm_seen.append(notification)
            changed.set()

        token = realm.observe(on_realm)
        got: list = []
        with notifications.watch(realm):
            async for change in results.changes():
                got.append((change.is_initial, list(change.insertions), len(results)))
                if change.is_initial:
                    def commit() -> None:
                        with fief.Realm.open(realm_path, schema=ALL_MODELS) as other:
                            with other.write():
                                other.create(Dog, {"id": 10, "name": "ten"})
                                other.create(Dog, {"id": 1, "name": "one"})  # outside the filter
                    await loop.run_in_executor(None, commit)
                else:
                    break
            # The iteration ended: its callback is gone, the watch still delivers.
            changed.clear()

            def commit_again() -> None:
                with fief.Realm.open(realm_path, schema=ALL_MODELS) as other:
                    with other.write():
                        other.create(Dog, {"id": 11, "name": "eleven"})
            await loop.run_in_executor(None, commit_again)
            await asyncio.wait_for(changed.wait(), TIMEOUT)  # the watch still delivers
        token.close()
        return got

    got = asyncio.run(main())
    assert realm_seen
    assert got == [(True, [], 0), (False, [0], 1)]
