"""Realm notifications: commits of another thread and of another process
wake the realm's fd, delivery calls back on the delivering thread, asyncio
delivery through fief.notifications.watch, tokens closed inside their
callback, exceptions in callbacks.  Timeouts are liveness bounds only."""

from __future__ import annotations

import asyncio
import logging
import select
import threading

import pytest

import fief
from fief import notifications
from fief.notifications import RealmNotification
from models import ALL_MODELS, Dog

TIMEOUT = 10.0


def readable(fd: int, timeout: float) -> bool:
    ready, _, _ = select.select([fd], [], [], timeout)
    return bool(ready)


def commit_on_thread(path, n: int = 1) -> None:
    def run() -> None:
        with fief.Realm.open(path, schema=ALL_MODELS) as other:
            for i in range(n):
                with other.write():
                    other.create(Dog, {"id": 1000 + i + other.objects(Dog).count(), "name": "t"})
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


def test_another_threads_commit_is_delivered_on_this_thread(realm, realm_path):
    seen = []
    token = realm.observe(lambda n, r: seen.append((n, r, threading.get_ident())))
    fd = realm.notification_fd()
    assert not readable(fd, 0)
    commit_on_thread(realm_path)
    assert readable(fd, TIMEOUT)
    assert seen == []
    assert realm.process_notifications() is True
    assert seen == [(RealmNotification.DID_CHANGE, realm, threading.get_ident())]
    assert realm.objects(Dog).count() == 1  # autorefresh moved it
    assert not readable(fd, 0)
    assert realm.process_notifications() is False
    token.close()


def test_own_commit_calls_back_at_once(realm):
    seen = []
    with realm.observe(lambda n, r: seen.append(n)) as token:
        with realm.write():
            realm.create(Dog, {"id": 1, "name": "a"})
        assert seen == [RealmNotification.DID_CHANGE]
        assert not token.closed
    assert token.closed
    with realm.write():
        realm.create(Dog, {"id": 2, "name": "b"})
    assert seen == [RealmNotification.DID_CHANGE]


def test_another_process_commit_wakes_the_fd(realm, realm_path, python):
    seen = []
    token = realm.observe(lambda n, r: seen.append(n))
    fd = realm.notification_fd()
    proc = python("""
        import sys, fief
        from models import ALL_MODELS, Dog
        with fief.Realm.open(sys.argv[1], schema=ALL_MODELS) as r:
            with r.write():
                r.create(Dog, {"id": 7, "name": "child"})
    """, str(realm_path))
    assert proc.returncode == 0, proc.stderr
    assert readable(fd, TIMEOUT)
    assert realm.process_notifications()
    assert seen == [RealmNotification.DID_CHANGE]
    assert realm.objects(Dog).count() == 1
    token.close()


def test_autorefresh_off_gives_refresh_required(realm, realm_path):
    assert realm.autorefresh is True
    realm.autorefresh = False
    assert realm.autorefresh is False
    seen = []
    token = realm.observe(lambda n, r: seen.append(n))
    fd = realm.notification_fd()
    commit_on_thread(realm_path)
    assert readable(fd, TIMEOUT)
    realm.process_notifications()
    assert seen == [RealmNotification.REFRESH_REQUIRED]
    assert realm.objects(Dog).count() == 0
    assert realm.refresh()
    assert seen == [RealmNotification.REFRESH_REQUIRED, RealmNotification.DID_CHANGE]
    token.close()


def test_asyncio_delivery(realm, realm_path):
    async def main() -> list:
        seen: list = []
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def on_change(n, r):
            seen.append((n, threading.get_ident()))
            if not done.done():
                done.set_result(None)

        token = realm.observe(on_change)
        with notifications.watch(realm):
            await loop.run_in_executor(None, commit_on_thread, realm_path)
            await asyncio.wait_for(done, TIMEOUT)
        token.close()
        return seen

    seen = asyncio.run(main())
    assert seen == [(RealmNotification.DID_CHANGE, threading.get_ident())]
    assert realm.objects(Dog).count() == 1


def test_token_closed_inside_its_callback(realm, realm_path):
    seen = []
    holder = {}

    def once(n, r):
        seen.append(n)
        holder["token"].close()

    holder["token"] = realm.observe(once)
    with realm.write():
        realm.create(Dog, {"id": 1, "name": "a"})
    assert seen == [RealmNotification.DID_CHANGE]
    assert holder["token"].closed
    commit_on_thread(realm_path)
    realm.process_notifications()
    with realm.write():
        realm.create(Dog, {"id": 2, "name": "b"})
    assert seen == [RealmNotification.DID_CHANGE]
    # Its userdata was freed once the call that closed it ended.
    assert all(t is not holder["token"] for t in notifications._registered.values())


def test_exceptions_in_callbacks_are_logged_and_kept(realm, caplog):
    seen = []

    def broken(n, r):
        raise ValueError("boom")

    bad = realm.observe(broken)
    good = realm.observe(lambda n, r: seen.append(n))
    with caplog.at_level(logging.ERROR, logger="fief.notifications"):
        with realm.write():
            realm.create(Dog, {"id": 1, "name": "a"})
    assert isinstance(bad.exception, ValueError)
    assert seen == [RealmNotification.DID_CHANGE]  # the others still ran
    assert any("boom" in (record.exc_text or "") or record.exc_info for record in caplog.records)
    bad.close()
    good.close()


def test_frozen_and_closed_realms_refuse(realm):
    frozen = realm.freeze()
    with pytest.raises(fief.FrozenRealmError):
        frozen.observe(lambda n, r: None)
    with pytest.raises(TypeError):
        realm.observe(None)  # type: ignore[arg-type]
    realm.close()
    with pytest.raises(fief.RealmClosedError):
        realm.notification_fd()
