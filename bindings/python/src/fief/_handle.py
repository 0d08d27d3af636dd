"""Ownership of one C handle reference, released exactly once."""

from __future__ import annotations

import threading
import weakref

from . import _lib as L
from . import errors

_release_lock = threading.Lock()
_live: "weakref.WeakSet[Handle]" = weakref.WeakSet()


class Handle:
    """One reference to a fief_* handle.

    `release()` gives it back (idempotent); `__del__` does so when the
    wrapper is garbage-collected.  During interpreter shutdown the library is
    no longer called (the process exit reclaims everything)."""

    __slots__ = ("_ptr", "kind", "__weakref__")

    def __init__(self, ptr: int, kind: str):
        self._ptr: int | None = ptr
        self.kind = kind
        _live.add(self)

    @property
    def ptr(self) -> int:
        ptr = self._ptr
        if not ptr:
            if self.kind == "realm":
                raise errors.RealmClosedError("the realm is closed")
            raise errors.InvalidHandleError(f"the {self.kind} handle was released")
        return ptr

    @property
    def released(self) -> bool:
        return not self._ptr

    def release(self) -> None:
        with _release_lock:
            ptr, self._ptr = self._ptr, None
        if ptr:
            library = L.loaded()
            if library is not None:
                library.fief_release(ptr)

    def __del__(self) -> None:
        try:
            self.release()
        except BaseException:  # never raise from a finaliser
            pass

    def __repr__(self) -> str:
        return f"<fief {self.kind} handle {self._ptr:#x}>" if self._ptr else f"<released fief {self.kind} handle>"


def release_all_at_exit() -> None:
    """Release every handle still alive (objects and results before realms)."""
    try:
        handles = list(_live)
    except BaseException:
        return
    handles.sort(key=lambda h: h.kind == "realm")
    for handle in handles:
        try:
            handle.release()
        except BaseException:
            pass


def _at_exit() -> None:
    release_all_at_exit()
    L._at_exit()


import atexit  # noqa: E402

# Registered after fief._lib's handler, so it runs before it (LIFO).
atexit.register(_at_exit)
