"""Realm notifications (fief.h, "Notifications").

A realm tells you when its file changed (a commit of this process, any
thread, or of another process).  Fief never calls your code on a thread of
its own: a pending delivery makes ``realm.notification_fd()`` readable, and
``realm.deliver_notifications()`` then calls the callbacks on the calling
thread.  ``watch(realm)`` wires that to an asyncio event loop.

Exceptions raised by a callback do not propagate into the library (which
cannot unwind Python frames): each is logged on the ``fief.notifications``
logger, with its traceback, and kept as the token's ``exception``; the
other callbacks of the round still run.
"""

from __future__ import annotations

import asyncio
import ctypes
import enum
import itertools
import logging
import threading
from typing import TYPE_CHECKING, Any, Callable

from . import _lib as L
from ._handle import Handle

if TYPE_CHECKING:
    from .realm import Realm

__all__ = ["RealmNotification", "NotificationToken", "watch", "Watch"]

log = logging.getLogger("fief.notifications")


class RealmNotification(enum.IntEnum):
    """What a realm callback is told (RealmSwift's ``Realm.Notification``)."""

    DID_CHANGE = 1
    """The realm's version moved on (a delivery, refresh, begin_write or commit)."""
    REFRESH_REQUIRED = 2
    """Autorefresh is off and a newer version is ready: call ``refresh()``."""


# The callbacks registered, by the id passed to C as userdata: the C side
# holds ids, never Python objects, so the thunks below are the only ctypes
# callbacks and live as long as the module.
_registered: dict[int, "NotificationToken"] = {}
_registered_lock = threading.Lock()
_ids = itertools.count(1)


def _call(userdata: int | None, notification: int) -> None:
    with _registered_lock:
        token = _registered.get(userdata or 0)
    callback, realm = (token._callback, token._realm) if token is not None else (None, None)
    if token is None or callback is None or realm is None:
        return
    try:
        callback(RealmNotification(notification), realm)
    except BaseException as error:  # never into C
        token.exception = error
        log.exception("a realm notification callback raised")


def _free(userdata: int | None) -> None:
    with _registered_lock:
        token = _registered.pop(userdata or 0, None)
    if token is not None:
        token._callback = None
        token._realm = None


_call_thunk = L.fief_realm_notification_fn(_call)
_free_thunk = L.fief_free_fn(_free)


class NotificationToken:
    """Keeps a callback registered until ``close()`` (also a context manager;
    ``invalidate()`` is the RealmSwift name).  Closing is allowed inside the
    callback and from any thread; a closed token is never called again."""

    exception: BaseException | None
    """The last exception the callback raised, if any."""

    def __init__(self, realm: "Realm", callback: Callable[[RealmNotification, "Realm"], None]):
        self._realm: Realm | None = realm
        self._callback: Callable[[RealmNotification, Realm], None] | None = callback
        self.exception = None
        self._id = next(_ids)
        self._handle: Handle | None = None

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.release()

    invalidate = close

    @property
    def closed(self) -> bool:
        return self._handle is None or self._handle.released

    def __enter__(self) -> "NotificationToken":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def add_notification_callback(realm: "Realm", callback: Callable[[RealmNotification, "Realm"], None]) -> NotificationToken:
    """Register ``callback(notification, realm)``; see ``Realm.add_notification_callback``."""
    if not callable(callback):
        raise TypeError("the callback must be callable")
    library = L.lib()
    token = NotificationToken(realm, callback)
    with _registered_lock:
        _registered[token._id] = token
    ptr = library.fief_realm_add_notification_callback(realm._handle.ptr, _call_thunk, token._id, _free_thunk)
    if not ptr:
        with _registered_lock:
            _registered.pop(token._id, None)
        raise library.last_error("fief_realm_add_notification_callback")
    token._handle = Handle(ptr, "notification token")
    return token


def notification_fd(realm: "Realm") -> int:
    library = L.lib()
    fd = ctypes.c_int(-1)
    library.check(library.fief_realm_get_notification_fd(realm._handle.ptr, ctypes.byref(fd)),
                  "fief_realm_get_notification_fd")
    return fd.value


def deliver_notifications(realm: "Realm") -> bool:
    library = L.lib()
    out = ctypes.c_bool()
    library.check(library.fief_realm_deliver_notifications(realm._handle.ptr, ctypes.byref(out)),
                  "fief_realm_deliver_notifications")
    return bool(out.value)


def get_autorefresh(realm: "Realm") -> bool:
    library = L.lib()
    out = ctypes.c_bool()
    library.check(library.fief_realm_get_autorefresh(realm._handle.ptr, ctypes.byref(out)),
                  "fief_realm_get_autorefresh")
    return bool(out.value)


def set_autorefresh(realm: "Realm", on: bool) -> None:
    library = L.lib()
    library.check(library.fief_realm_set_autorefresh(realm._handle.ptr, bool(on)), "fief_realm_set_autorefresh")


class Watch:
    """A realm delivered on an asyncio loop (``watch``); ``close()`` stops it
    (also a context manager)."""

    def __init__(self, realm: "Realm", loop: asyncio.AbstractEventLoop):
        self._realm = realm
        self._loop = loop
        self._fd = notification_fd(realm)
        loop.add_reader(self._fd, self._ready)

    def _ready(self) -> None:
        try:
            deliver_notifications(self._realm)
        except Exception:
            # The realm closed under us: stop watching it.
            log.exception("delivering notifications failed; the realm is no longer watched")
            self.close()

    def close(self) -> None:
        if self._fd >= 0:
            self._loop.remove_reader(self._fd)
            self._fd = -1

    def __enter__(self) -> "Watch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def watch(realm: "Realm", loop: asyncio.AbstractEventLoop | None = None) -> Watch:
    """Deliver ``realm``'s notifications on ``loop`` (default: the running
    loop): its notification fd is added as a reader, and each time it is
    readable ``deliver_notifications()`` runs on the loop's thread, so the
    callbacks run there.  Use it from the loop's thread."""
    return Watch(realm, loop if loop is not None else asyncio.get_running_loop())



# -- object notifications (fief.h, "Object callbacks") -----------------------

__all__ += ["ObjectChange", "ObjectNotificationToken", "add_object_notification_callback"]


class ObjectChange:
    """What an object callback is told (RealmSwift's ``ObjectChange``):
    ``deleted``, or the ``changed`` properties (attribute names, in the
    class's order) with their values in ``old_values`` and ``new_values``
    (by attribute name).  An old value is given only when another realm,
    thread or process made the change (not for this realm's own commits),
    and no value is given for collection properties, as RealmSwift."""

    __slots__ = ("object", "deleted", "changed", "old_values", "new_values")

    def __init__(self, obj: Any, deleted: bool, changed: list[str],
                 old_values: dict[str, Any], new_values: dict[str, Any]):
        self.object = obj
        self.deleted = deleted
        self.changed = changed
        self.old_values = old_values
        self.new_values = new_values

    def __repr__(self) -> str:
        if self.deleted:
            return "ObjectChange(deleted)"
        return f"ObjectChange(changed={self.changed!r}, old={self.old_values!r}, new={self.new_values!r})"


def _object_value(binding: Any, realm: "Realm", spec: Any, value: L.fief_value_t) -> Any:
    """A changed property's value, copied out of the change (links as model
    objects, read now; a link to an object deleted since is None)."""
    from ._values import Link, from_value
    converted = from_value(value, spec.py_type)
    if isinstance(converted, Link):
        try:
            return binding.schema.object_for_link(converted, realm)
        except Exception:
            return None
    return converted


class ObjectNotificationToken(NotificationToken):
    """The token of an object callback (``Object.add_notification_callback``)."""

    def __init__(self, obj: Any, callback: Callable[[ObjectChange], None]):
        super().__init__(obj.realm, lambda notification, realm: None)
        self._object = obj
        self._object_callback: Callable[[ObjectChange], None] | None = callback


def _object_call(userdata: int | None, changes: int | None) -> None:
    with _registered_lock:
        token = _registered.get(userdata or 0)
    if not isinstance(token, ObjectNotificationToken):
        return
    callback, realm = token._object_callback, token._realm
    if callback is None or realm is None:
        return
    try:
        library = L.lib()
        obj = token._object
        deleted = ctypes.c_bool()
        library.check(library.fief_object_changes_is_deleted(changes, ctypes.byref(deleted)), "fief_object_changes_is_deleted")
        if deleted.value:
            callback(ObjectChange(obj, True, [], {}, {}))
            return
        count = ctypes.c_size_t()
        library.check(library.fief_object_changes_get_count(changes, ctypes.byref(count)), "fief_object_changes_get_count")
        keys = (L.fief_property_key_t * max(count.value, 1))()
        library.check(library.fief_object_changes_get_properties(changes, keys, count.value, None),
                      "fief_object_changes_get_properties")
        binding = obj.__dict__["_fief_binding"]
        by_key = {key: attr for attr, key in binding.keys.items() if key is not None}
        specs = {spec.attr: spec for spec in type(obj).__fief_properties__}
        changed: list[str] = []
        old_values: dict[str, Any] = {}
        new_values: dict[str, Any] = {}
        value = L.fief_value_t()
        has = ctypes.c_bool()
        for key in sorted(keys[: count.value], key=lambda k: list(by_key).index(k) if k in by_key else 0):
            attr = by_key.get(key)
            if attr is None:
                continue  # a column the model does not declare
            changed.append(attr)
            for reader, into in ((library.fief_object_changes_get_old_value, old_values),
                                 (library.fief_object_changes_get_new_value, new_values)):
                library.check(reader(changes, key, ctypes.byref(value), ctypes.byref(has)), "fief_object_changes_get_value")
                if has.value:
                    into[attr] = _object_value(binding, realm, specs[attr], value)
        if changed:
            callback(ObjectChange(obj, False, changed, old_values, new_values))
    except BaseException as error:  # never into C
        token.exception = error
        log.exception("an object notification callback raised")


_object_call_thunk = L.fief_object_notification_fn(_object_call)


def add_object_notification_callback(obj: Any, callback: Callable[[ObjectChange], None],
                                     key_paths: "list[str] | None" = None) -> ObjectNotificationToken:
    """Register ``callback(change)`` for ``obj``; see ``Object.add_notification_callback``."""
    if not callable(callback):
        raise TypeError("the callback must be callable")
    from . import errors
    handle = obj.__dict__.get("_fief_handle")
    if handle is None:
        raise errors.LogicError("only objects in a realm can be observed: add it first")
    if isinstance(key_paths, str):
        raise TypeError("key_paths is a list of key paths, not one string")
    paths = [str(p).encode("utf-8") for p in (key_paths or [])]
    library = L.lib()
    token = ObjectNotificationToken(obj, callback)
    with _registered_lock:
        _registered[token._id] = token
    array = (ctypes.c_char_p * max(len(paths), 1))(*paths)
    ptr = library.fief_object_add_notification_callback(handle.ptr, array, len(paths), _object_call_thunk, token._id,
                                                        _free_thunk)
    if not ptr:
        with _registered_lock:
            _registered.pop(token._id, None)
        raise library.last_error("fief_object_add_notification_callback")
    token._handle = Handle(ptr, "notification token")
    return token
