"""Realm notifications (fief.h, "Notifications").

A realm tells you when its file changed (a commit of this process, any
thread, or of another process).  Fief never calls your code on a thread of
its own: a pending delivery makes ``realm.notification_fd()`` readable, and
``realm.process_notifications()`` then calls the callbacks on the calling
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
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

from . import _lib as L
from ._handle import Handle

if TYPE_CHECKING:
    from .realm import Realm

__all__ = ["RealmNotification", "NotificationToken", "watch", "Watch", "CollectionChanges", "ResultsNotificationToken"]

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


def _dispatch(userdata: int | None, token_type: type, what: str, deliver: Callable[[Any], None]) -> None:
    """The one way from a C callback into Python: ``deliver(token)`` for the
    token registered under ``userdata`` when it is a ``token_type`` (a
    released one is gone: nothing is called); an exception is kept on the
    token (``exception``) and logged, never raised into C."""
    with _registered_lock:
        token = _registered.get(userdata or 0)
    if token is None or not isinstance(token, token_type):
        return
    try:
        deliver(token)
    except BaseException as error:  # never into C
        token.exception = error
        log.exception("%s notification callback raised", what)


def _call(userdata: int | None, notification: int) -> None:
    def deliver(token: NotificationToken) -> None:
        callback, realm = token._callback, token._realm
        if callback is not None and realm is not None:
            callback(RealmNotification(notification), realm)
    _dispatch(userdata, NotificationToken, "a realm", deliver)


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


def add_realm_notification_callback(realm: "Realm", callback: Callable[[RealmNotification, "Realm"], None]) -> NotificationToken:
    """Register ``callback(notification, realm)``; see ``Realm.observe``."""
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


def process_notifications(realm: "Realm") -> bool:
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


# The watches of each (loop, fd): a loop has one reader per fd, so the
# first watch adds it and the last one closed removes it.
_watching: dict[tuple[int, int], int] = {}


class Watch:
    """A realm delivered on an asyncio loop (``watch``); ``close()`` stops it
    (also a context manager).  Several watches of one realm on one loop
    share the loop's reader."""

    def __init__(self, realm: "Realm", loop: asyncio.AbstractEventLoop):
        self._realm = realm
        self._loop = loop
        self._fd = notification_fd(realm)
        self._key = (id(loop), self._fd)
        count = _watching.get(self._key, 0)
        if count == 0:
            loop.add_reader(self._fd, self._ready)
        _watching[self._key] = count + 1

    def _ready(self) -> None:
        try:
            process_notifications(self._realm)
        except Exception:
            # The realm closed under us: stop watching it.
            log.exception("delivering notifications failed; the realm is no longer watched")
            self.close()

    def close(self) -> None:
        if self._fd >= 0:
            count = _watching.get(self._key, 1) - 1
            if count <= 0:
                _watching.pop(self._key, None)
                self._loop.remove_reader(self._fd)
            else:
                _watching[self._key] = count
            self._fd = -1

    def __enter__(self) -> "Watch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def results_changes(results: Any, key_paths: "list[str] | None") -> "AsyncIterator[CollectionChanges]":
    """``Results.changes``: each change set, delivered on the running loop."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[CollectionChanges] = asyncio.Queue()
    token = results.observe(lambda changes, _results: queue.put_nowait(changes), key_paths)
    try:
        with watch(results.realm, loop):
            while True:
                yield await queue.get()
    finally:
        token.close()


def watch(realm: "Realm", loop: asyncio.AbstractEventLoop | None = None) -> Watch:
    """Deliver ``realm``'s notifications on ``loop`` (default: the running
    loop): its notification fd is added as a reader, and each time it is
    readable ``process_notifications()`` runs on the loop's thread, so the
    callbacks run there.  Use it from the loop's thread."""
    return Watch(realm, loop if loop is not None else asyncio.get_running_loop())



# -- Results notifications (fief.h, "Results notifications") ----------------

class CollectionChanges:
    """What a results callback is told (RealmSwift's ``RealmCollectionChange``),
    copied out of the library's change set during the call.

    ``is_initial``: the first call (every list empty); then ``deletions``
    (indices before the change), ``insertions`` (after), ``modifications``
    (before) and ``modifications_new`` (after), ``moves`` as ``(from, to)``
    pairs (none for results); ``is_cleared`` and ``is_root_deleted`` for
    collections.  ``error``: set when the results cannot be observed any
    more (the last call)."""

    __slots__ = ("is_initial", "is_cleared", "is_root_deleted", "deletions", "insertions",
                 "modifications", "modifications_new", "moves", "error")

    def __init__(self) -> None:
        self.is_initial = False
        self.is_cleared = False
        self.is_root_deleted = False
        self.deletions: list[int] = []
        self.insertions: list[int] = []
        self.modifications: list[int] = []
        self.modifications_new: list[int] = []
        self.moves: list[tuple[int, int]] = []
        self.error: BaseException | None = None

    def __repr__(self) -> str:
        if self.is_initial:
            return "CollectionChanges(initial)"
        return (f"CollectionChanges(deletions={self.deletions}, insertions={self.insertions}, "
                f"modifications={self.modifications}, modifications_new={self.modifications_new}, moves={self.moves})")

    @classmethod
    def _read(cls, library: Any, handle: int) -> "CollectionChanges":
        changes = cls()
        failed = ctypes.c_bool()
        error = L.fief_error_t()
        library.check(library.fief_collection_changes_get_error(handle, ctypes.byref(failed), ctypes.byref(error)),
                      "fief_collection_changes_get_error")
        if failed.value:
            from . import errors
            message = error.message.decode("utf-8", "replace") if error.message else ""
            changes.error = errors.make_error(int(error.code), int(error.categories), message)
            return changes
        flags = [ctypes.c_bool() for _ in range(3)]
        library.check(library.fief_collection_changes_get_flags(handle, *(ctypes.byref(f) for f in flags)),
                      "fief_collection_changes_get_flags")
        changes.is_initial, changes.is_cleared, changes.is_root_deleted = (bool(f.value) for f in flags)
        counts = [ctypes.c_size_t() for _ in range(4)]
        library.check(library.fief_collection_changes_get_counts(handle, *(ctypes.byref(c) for c in counts)),
                      "fief_collection_changes_get_counts")
        n_del, n_ins, n_mod, n_moves = (c.value for c in counts)
        capacity = max(n_del, n_ins, n_mod, n_moves, 1)
        arrays = [(ctypes.c_size_t * capacity)() for _ in range(6)]
        library.check(library.fief_collection_changes_get_indices(handle, capacity, *arrays),
                      "fief_collection_changes_get_indices")
        changes.deletions = list(arrays[0][:n_del])
        changes.insertions = list(arrays[1][:n_ins])
        changes.modifications = list(arrays[2][:n_mod])
        changes.modifications_new = list(arrays[3][:n_mod])
        changes.moves = list(zip(arrays[4][:n_moves], arrays[5][:n_moves]))
        return changes


class ResultsNotificationToken(NotificationToken):
    """The token of a results callback (see ``Results.observe``)."""

    def __init__(self, results: Any, callback: Callable[..., None]):
        super().__init__(None, callback)  # type: ignore[arg-type]
        self._results: Any = results

    def close(self) -> None:
        super().close()
        self._results = None

    invalidate = close


def _call_results(userdata: int | None, handle: int | None) -> None:
    def deliver(token: ResultsNotificationToken) -> None:
        callback: Callable[..., None] | None = token._callback
        results = token._results
        if callback is not None and results is not None and handle is not None:
            callback(CollectionChanges._read(L.lib(), handle), results)
    _dispatch(userdata, ResultsNotificationToken, "a results", deliver)


_call_results_thunk = L.fief_collection_changes_fn(_call_results)


def add_results_notification_callback(results: Any, handle: Handle, callback: Callable[..., None],
                                      key_paths: "list[str] | None" = None) -> ResultsNotificationToken:
    """Register ``callback(changes, results)``; see ``Results.observe``."""
    if not callable(callback):
        raise TypeError("the callback must be callable")
    if key_paths is not None and isinstance(key_paths, (str, bytes)):
        raise TypeError("key_paths is a list of key paths, not one string")
    library = L.lib()
    token = ResultsNotificationToken(results, callback)
    key_paths = stored_key_paths(getattr(getattr(results, "_binding", None), "cls", None),
                                 getattr(getattr(results, "_binding", None), "schema", None), key_paths)
    encoded = [path.encode("utf-8") for path in key_paths] if key_paths is not None else []
    array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
    with _registered_lock:
        _registered[token._id] = token
    ptr = library.fief_results_add_notification_callback(handle.ptr, array if key_paths is not None else None,
                                                         len(encoded), _call_results_thunk, token._id, _free_thunk)
    if not ptr:
        with _registered_lock:
            _registered.pop(token._id, None)
        raise library.last_error("fief_results_add_notification_callback")
    token._handle = Handle(ptr, "notification token")
    return token


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
    """The token of an object callback (``Object.observe``)."""

    def __init__(self, obj: Any, callback: Callable[[ObjectChange], None]):
        super().__init__(obj.realm, lambda notification, realm: None)
        self._object = obj
        self._object_callback: Callable[[ObjectChange], None] | None = callback


def _object_call(userdata: int | None, changes: int | None) -> None:
    _dispatch(userdata, ObjectNotificationToken, "an object", lambda token: _deliver_object_changes(token, changes))


def _deliver_object_changes(token: ObjectNotificationToken, changes: int | None) -> None:
    callback, realm = token._object_callback, token._realm
    if callback is None or realm is None:
        return
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


_object_call_thunk = L.fief_object_notification_fn(_object_call)


def add_object_notification_callback(obj: Any, callback: Callable[[ObjectChange], None],
                                     key_paths: "list[str] | None" = None) -> ObjectNotificationToken:
    """Register ``callback(change)`` for ``obj``; see ``Object.observe``."""
    if not callable(callback):
        raise TypeError("the callback must be callable")
    from . import errors
    handle = obj.__dict__.get("_fief_handle")
    if handle is None:
        raise errors.LogicError("only objects in a realm can be observed: add it first")
    if isinstance(key_paths, str):
        raise TypeError("key_paths is a list of key paths, not one string")
    binding = obj.__dict__.get("_fief_binding")
    mapped = stored_key_paths(type(obj), getattr(binding, "schema", None), key_paths)
    paths = [str(p).encode("utf-8") for p in (mapped or [])]
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


# -- list, set and dict notifications (fief.h, "List, set and map notifications")

__all__ += ["MapChanges", "CollectionNotificationToken", "add_collection_notification_callback"]


class MapChanges:
    """What a dict callback is told (RealmSwift's ``RealmMapChange``),
    copied out of the library's change set during the call.

    ``is_initial``: the first call (every list empty); then the keys
    ``deletions``, ``insertions`` and ``modifications`` (a value set, or an
    object value written in a watched property), each in the dict's order;
    ``is_cleared``; ``is_root_deleted`` (the owner was deleted: the last
    call).  ``error``: set when the dict cannot be observed any more."""

    __slots__ = ("is_initial", "is_cleared", "is_root_deleted", "deletions", "insertions", "modifications", "error")

    def __init__(self) -> None:
        self.is_initial = False
        self.is_cleared = False
        self.is_root_deleted = False
        self.deletions: list[str] = []
        self.insertions: list[str] = []
        self.modifications: list[str] = []
        self.error: BaseException | None = None

    def __repr__(self) -> str:
        if self.is_initial:
            return "MapChanges(initial)"
        return (f"MapChanges(deletions={self.deletions}, insertions={self.insertions}, "
                f"modifications={self.modifications})")

    @classmethod
    def _read(cls, library: Any, handle: int) -> "MapChanges":
        changes = cls()
        failed = ctypes.c_bool()
        error = L.fief_error_t()
        library.check(library.fief_map_changes_get_error(handle, ctypes.byref(failed), ctypes.byref(error)),
                      "fief_map_changes_get_error")
        if failed.value:
            from . import errors
            message = error.message.decode("utf-8", "replace") if error.message else ""
            changes.error = errors.make_error(int(error.code), int(error.categories), message)
            return changes
        flags = [ctypes.c_bool() for _ in range(3)]
        library.check(library.fief_map_changes_get_flags(handle, *(ctypes.byref(f) for f in flags)),
                      "fief_map_changes_get_flags")
        changes.is_initial, changes.is_cleared, changes.is_root_deleted = (bool(f.value) for f in flags)
        counts = [ctypes.c_size_t() for _ in range(3)]
        library.check(library.fief_map_changes_get_counts(handle, *(ctypes.byref(c) for c in counts)),
                      "fief_map_changes_get_counts")
        capacity = max(*(c.value for c in counts), 1)
        arrays = [(L.fief_string_t * capacity)() for _ in range(3)]
        library.check(library.fief_map_changes_get_keys(handle, capacity, *arrays), "fief_map_changes_get_keys")

        def keys(array: Any, n: int) -> list[str]:
            return [ctypes.string_at(s.data, s.size).decode("utf-8") if s.size else "" for s in array[:n]]

        changes.deletions = keys(arrays[0], counts[0].value)
        changes.insertions = keys(arrays[1], counts[1].value)
        changes.modifications = keys(arrays[2], counts[2].value)
        return changes


class CollectionNotificationToken(ResultsNotificationToken):
    """The token of a list, set or dict callback (see ``List.observe``)."""

    def __init__(self, collection: Any, callback: Callable[..., None], is_map: bool):
        super().__init__(collection, callback)
        self._is_map = is_map


def _call_collection(userdata: int | None, handle: int | None) -> None:
    def deliver(token: CollectionNotificationToken) -> None:
        callback: Callable[..., None] | None = token._callback
        collection = token._results
        if callback is not None and collection is not None and handle is not None:
            reader = MapChanges if token._is_map else CollectionChanges
            callback(reader._read(L.lib(), handle), collection)
    _dispatch(userdata, CollectionNotificationToken, "a collection", deliver)


_call_collection_thunk = L.fief_collection_changes_fn(_call_collection)
_call_map_thunk = L.fief_map_changes_fn(_call_collection)


def add_collection_notification_callback(collection: Any, callback: Callable[..., None],
                                         key_paths: "list[str] | None" = None) -> CollectionNotificationToken:
    """Register ``callback(changes, collection)`` on a ``fief.List``,
    ``fief.Set`` or ``fief.Dict``; see ``List.observe``."""
    if not callable(callback):
        raise TypeError("the callback must be callable")
    if key_paths is not None and isinstance(key_paths, (str, bytes)):
        raise TypeError("key_paths is a list of key paths, not one string")
    kind = collection._kind
    library = L.lib()
    token = CollectionNotificationToken(collection, callback, kind == "map")
    if key_paths is not None and collection._is_links:
        target = collection._target_binding()
        key_paths = stored_key_paths(getattr(target, "cls", None), getattr(target, "schema", None), key_paths)
    encoded = [path.encode("utf-8") for path in key_paths] if key_paths is not None else []
    array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
    with _registered_lock:
        _registered[token._id] = token
    name = f"fief_{kind}_add_notification_callback"
    thunk = _call_map_thunk if kind == "map" else _call_collection_thunk
    ptr = getattr(library, name)(collection._handle.ptr, array if key_paths is not None else None,
                                 len(encoded), thunk, token._id, _free_thunk)
    if not ptr:
        with _registered_lock:
            _registered.pop(token._id, None)
        raise library.last_error(name)
    token._handle = Handle(ptr, "notification token")
    return token


async def collection_changes(collection: Any, key_paths: "list[str] | None") -> "AsyncIterator[Any]":
    """``List.changes`` (and sets', dicts'): each change set, delivered on the running loop."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    token = add_collection_notification_callback(collection, lambda changes, _c: queue.put_nowait(changes), key_paths)
    try:
        with watch(collection._realm(), loop):
            while True:
                yield await queue.get()
    finally:
        token.close()


# -- key paths through the model (issue 22, helper kp) --------------------------


def stored_key_paths(cls: Any, schema: Any, key_paths: "list[str] | None") -> "list[str] | None":
    """``key_paths`` as the file names them: each step an attribute of the
    model class reached (a property stored under another ``name``, a
    `Backlinks` attribute) becomes its stored name, following links and
    linking objects to the model classes of ``schema`` (a SchemaBinding).
    Steps no model names (``"*"``, stored names, unknown ones: the library
    names those in its error) pass unchanged, and so does what follows
    them."""
    if key_paths is None or cls is None:
        return key_paths
    from .model import Backlinks, Object
    models: dict[str, Any] = getattr(schema, "models", None) or {}
    mapped: list[str] = []
    for path in key_paths:
        if not isinstance(path, str):
            mapped.append(path)
            continue
        current: Any = cls
        steps: list[str] = []
        for step in path.split("."):
            if not (isinstance(current, type) and issubclass(current, Object)):
                steps.append(step)
                continue
            spec = current._fief_by_attr.get(step) if "_fief_by_attr" in current.__dict__ else None
            if spec is not None:
                steps.append(spec.name)
                current = models.get(spec.link_target) if spec.link_target else None
                continue
            backlinks = getattr(current, step, None) if step and not step.startswith("_") else None
            if isinstance(backlinks, Backlinks) and backlinks.name:
                steps.append(backlinks.name)
                origin = backlinks.origin
                current = models.get(origin) if isinstance(origin, str) else origin
                continue
            steps.append(step)
            current = None
        mapped.append(".".join(steps))
    return mapped
