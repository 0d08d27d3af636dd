"""Object notifications: another thread's and another process's commits are
told with old and new values, this realm's own commits without old values;
key paths filter, also through a link and a list; a deletion is told once;
asyncio delivery; bad key paths and objects are errors.  Timeouts are
liveness bounds only."""

from __future__ import annotations

import asyncio
import multiprocessing
import select
import threading
from typing import Optional

import pytest

import fief
from fief.notifications import ObjectChange

TIMEOUT = 10.0


class Pup(fief.Object):
    name: str = ""
    age: int = 0


class Owner(fief.Object):
    name: str = ""
    age: int = 0
    pup: Optional[Pup] = None
    pups: list[Pup]


MODELS = [Pup, Owner]


@pytest.fixture
def world(tmp_path, library):
    path = tmp_path / "objects.fief"
    realm = fief.Realm.open(path, schema=MODELS)
    with realm.write():
        rex = realm.add(Pup(name="Rex", age=3))
        ann = realm.add(Owner(name="Ann", age=30, pup=rex))
        ann.pups.append(rex)
    yield realm, path, ann, rex
    realm.close()


def readable(fd: int, timeout: float) -> bool:
    ready, _, _ = select.select([fd], [], [], timeout)
    return bool(ready)


def write_elsewhere(path, body) -> None:
    """Run ``body(realm)`` in a write of another thread's realm, and wait."""
    def run() -> None:
        with fief.Realm.open(path, schema=MODELS) as other:
            with other.write():
                body(other)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


def newest_version(path) -> int:
    with fief.Realm.open(path, schema=MODELS) as other:
        return other.version


def deliver_until(realm, path) -> None:
    """Deliver as a host does (wait on the fd, bounded) until ``realm``
    reads the newest version of ``path``."""
    target = newest_version(path)
    fd = realm.notification_fd()
    for _ in range(100):
        if realm.version >= target:
            return
        assert readable(fd, TIMEOUT), "no delivery became pending"
        realm.process_notifications()
    raise AssertionError("the realm never reached the newest version")


def deliver_next(realm) -> None:
    """After the realm's own commit: wait for the worker's run (the fd,
    bounded) and deliver, as a host's event loop does."""
    assert readable(realm.notification_fd(), TIMEOUT), "no delivery became pending"
    realm.process_notifications()


def first(realm, cls):
    return realm.objects(cls)[0]


def test_another_threads_change_has_old_and_new_values(world):
    realm, path, ann, _ = world
    seen: list[ObjectChange] = []
    with ann.observe(seen.append):
        write_elsewhere(path, lambda other: (setattr(first(other, Owner), "age", 31),
                                             setattr(first(other, Owner), "name", "Anne")))
        deliver_until(realm, path)
    assert len(seen) == 1
    change = seen[0]
    assert not change.deleted
    assert change.changed == ["name", "age"]
    assert change.old_values == {"name": "Ann", "age": 30}
    assert change.new_values == {"name": "Anne", "age": 31}
    assert change.object is ann


def _commit_in_process(path) -> None:
    with fief.Realm.open(path, schema=MODELS) as other:
        with other.write():
            first(other, Owner).age = 77


def test_another_processs_change(world):
    realm, path, ann, _ = world
    seen: list[ObjectChange] = []
    with ann.observe(seen.append):
        process = multiprocessing.get_context("spawn").Process(target=_commit_in_process, args=(path,))
        process.start()
        process.join(60)
        assert process.exitcode == 0
        deliver_until(realm, path)
    assert [(c.changed, c.old_values, c.new_values) for c in seen] == [(["age"], {"age": 30}, {"age": 77})]


def test_own_commit_is_told_at_the_next_delivery_without_old_values(world):
    realm, _, ann, _ = world
    seen: list[ObjectChange] = []
    token = ann.observe(seen.append)
    with realm.write():
        ann.age = 40
    assert seen == []  # never inside the commit
    deliver_next(realm)
    assert [(c.changed, c.old_values, c.new_values) for c in seen] == [(["age"], {}, {"age": 40})]
    token.close()
    with realm.write():
        ann.age = 41
    assert len(seen) == 1


@pytest.mark.parametrize("key_paths, write, expected", [
    (None, lambda o: setattr(first(o, Pup), "age", 4), []),                        # shallow by default
    (["name"], lambda o: setattr(first(o, Owner), "age", 31), []),
    (["name"], lambda o: setattr(first(o, Owner), "name", "Anne"), [["name"]]),
    (["pup.age"], lambda o: setattr(first(o, Pup), "age", 4), [["pup"]]),
    (["pup.age"], lambda o: setattr(first(o, Pup), "name", "R"), []),
    (["pups.name"], lambda o: setattr(first(o, Pup), "name", "R"), [["pups"]]),
    (["pups"], lambda o: setattr(first(o, Pup), "name", "R"), []),
    (["pups"], lambda o: first(o, Owner).pups.append(o.add(Pup(name="Max"))), [["pups"]]),
    (["*"], lambda o: setattr(first(o, Pup), "age", 4), []),
    (["pups.*"], lambda o: setattr(first(o, Pup), "age", 4), [["pups"]]),
])
def test_key_paths(world, key_paths, write, expected):
    realm, path, ann, _ = world
    seen: list[ObjectChange] = []
    with ann.observe(seen.append, key_paths=key_paths):
        write_elsewhere(path, write)
        deliver_until(realm, path)
    assert [c.changed for c in seen] == expected


def test_list_property_has_no_values(world):
    realm, _, ann, _ = world
    seen: list[ObjectChange] = []
    with ann.observe(seen.append):
        with realm.write():
            ann.pups.append(realm.add(Pup(name="Max")))
        deliver_next(realm)
    assert [(c.changed, c.old_values, c.new_values) for c in seen] == [(["pups"], {}, {})]


def test_link_values_are_objects(world):
    realm, path, ann, rex = world
    seen: list[ObjectChange] = []
    with ann.observe(seen.append, key_paths=["pup"]):
        write_elsewhere(path, lambda o: setattr(first(o, Owner), "pup", None))
        deliver_until(realm, path)
    assert seen[0].changed == ["pup"]
    assert seen[0].old_values["pup"] == rex
    assert seen[0].new_values == {"pup": None}


def test_deleted_is_told_once(world):
    realm, path, ann, _ = world
    seen: list[ObjectChange] = []
    token = ann.observe(seen.append)
    write_elsewhere(path, lambda o: o.delete(first(o, Owner)))
    deliver_until(realm, path)
    # Then silent: nothing observes any more (the worker stopped), and a
    # refresh past a later commit calls nothing.
    write_elsewhere(path, lambda o: o.add(Owner(name="Zed")))
    realm.refresh()
    assert [c.deleted for c in seen] == [True]
    token.close()


def test_asyncio_delivery(world):
    realm, path, ann, _ = world

    async def main() -> list[ObjectChange]:
        seen: list[ObjectChange] = []
        done = asyncio.Event()

        def on_change(change: ObjectChange) -> None:
            seen.append(change)
            done.set()

        with fief.notifications.watch(realm), ann.observe(on_change):
            await asyncio.get_running_loop().run_in_executor(
                None, write_elsewhere, path, lambda o: setattr(first(o, Owner), "age", 50))
            await asyncio.wait_for(done.wait(), TIMEOUT)
        return seen

    seen = asyncio.run(main())
    assert [(c.changed, c.new_values) for c in seen] == [(["age"], {"age": 50})]


def test_callback_exceptions_are_kept_on_the_token(world):
    realm, _, ann, _ = world

    def boom(change: ObjectChange) -> None:
        raise ValueError("boom")

    with ann.observe(boom) as token:
        with realm.write():
            ann.age = 1
        deliver_next(realm)
        assert isinstance(token.exception, ValueError)


def test_bad_inputs(world):
    realm, _, ann, rex = world
    with pytest.raises(fief.NoSuchPropertyError, match="property 'nope' not found in object of type 'Owner'"):
        ann.observe(lambda c: None, key_paths=["nope"])
    with pytest.raises(fief.NoSuchPropertyError, match="property 'nope' not found in object of type 'Pup'"):
        ann.observe(lambda c: None, key_paths=["pups.nope"])
    with pytest.raises(TypeError):
        ann.observe(lambda c: None, key_paths="name")
    with pytest.raises(TypeError):
        ann.observe(42)  # type: ignore[arg-type]
    with pytest.raises(fief.LogicError):
        Owner(name="loose").observe(lambda c: None)
    with pytest.raises(fief.FiefError):
        ann.freeze().observe(lambda c: None)
    with realm.write():
        with pytest.raises(fief.FiefError):
            ann.observe(lambda c: None)
        realm.delete(rex)
    with pytest.raises(fief.FiefError):
        rex.observe(lambda c: None)


# -- key paths through the model: attribute names, stored names (helper kp) ----


class Walker(fief.Object):
    full_name: str = fief.Property(name="fullName", default="")
    led = fief.Backlinks("Kennel", "boss", name="ledKennels")


class Kennel(fief.Object):
    title: str = fief.Property(name="kennelTitle", default="")
    size: int = 0
    boss: Optional[Walker] = fief.Property(name="head", default=None)


def test_key_paths_name_attributes_of_the_model(tmp_path, library):
    """A key path names the model's attributes; where a model stores a
    property (or declares linking objects) under another name, the stored
    name is what the library is given, through links and linking objects."""
    with fief.Realm.open(tmp_path / "kennels.fief", schema=[Walker, Kennel]) as realm:
        with realm.write():
            sam = realm.add(Walker(full_name="Sam"))
            kennel = realm.add(Kennel(title="North", boss=sam))
        told: list[ObjectChange] = []
        through: list[ObjectChange] = []
        rows: list = []
        with kennel.observe(told.append, key_paths=["title"]), \
                kennel.observe(through.append, key_paths=["boss.full_name"]), \
                realm.objects(Walker).observe(lambda changes, _r: rows.append(changes), key_paths=["led.title"]):
            for _ in range(100):  # the results' initial call
                if rows:
                    break
                readable(realm.notification_fd(), TIMEOUT)
                realm.process_notifications()
            assert len(rows) == 1 and rows[0].is_initial
            with realm.write():
                kennel.size = 3           # watched by none
            with realm.write():
                kennel.title = "South"    # the kennel's title; Sam's kennel's title
            with realm.write():
                sam.full_name = "Samuel"  # the kennel's boss's name
            for _ in range(100):
                if told and through and len(rows) >= 2:
                    break
                readable(realm.notification_fd(), TIMEOUT)
                realm.process_notifications()
        assert [(c.changed, c.new_values) for c in told] == [(["title"], {"title": "South"})]
        assert [c.changed for c in through] == [["boss"]]
        assert [c.modifications for c in rows if not c.is_initial] == [[0]]
        # Stored names are taken as they are; a name neither is names
        # the class in the library's error.
        with kennel.observe(told.append, key_paths=["kennelTitle", "head.fullName"]):
            pass
        with pytest.raises(fief.NoSuchPropertyError, match="property 'nope' not found in object of type 'Walker'"):
            kennel.observe(told.append, key_paths=["boss.nope"])
