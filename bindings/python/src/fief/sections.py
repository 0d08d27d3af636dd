"""Sectioned results (RealmSwift's ``SectionedResults`` and
``ResultsSection``) and their notifications (fief.h, "Sectioned results
changes").

``results.sectioned("color")`` sorts the results by a property and splits
them into sections by its value; ``results.sort(...).sectioned(key=fn)``
splits sorted results by ``fn(obj)``.  As in realm-core, sections come in
the order in which the rows first give each key, and a row joins the
section of its key.  The sections are computed once per version of the
realm (the keys of every row read, or ``fn`` called once per row) and kept
until the realm's version moves on (a commit, a refresh, a delivery);
inside a write transaction, where the rows change without a new version,
every read computes them again.

``sectioned.observe(callback)`` calls ``callback(changes, sectioned)`` with
a ``SectionedChanges``: the results' change set regrouped by section
(fief_collection_changes_by_section) from the rows' sections before and
after.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterator

from . import _lib as L
from ._handle import Handle
from .notifications import NotificationToken, _dispatch, _free_thunk, _registered, _registered_lock

if TYPE_CHECKING:
    from .realm import Results

__all__ = ["SectionedResults", "ResultsSection", "SectionedChanges", "SectionedNotificationToken"]


class ResultsSection:
    """One section: the rows whose key is ``key``, in the results' order."""

    def __init__(self, sectioned: "SectionedResults", key: Hashable, positions: list[int]):
        self._sectioned = sectioned
        self.key = key
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, index: int) -> Any:
        return self._sectioned.results[self._positions[index]]

    def __iter__(self) -> Iterator[Any]:
        results = self._sectioned.results
        return (results[position] for position in self._positions)

    def __repr__(self) -> str:
        return f"ResultsSection(key={self.key!r}, count={len(self)})"

    def observe(self, callback: Callable[["SectionedChanges", "SectionedResults"], None],
                key_paths: "list[str] | None" = None) -> "SectionedNotificationToken":
        """As ``SectionedResults.observe``, for this section's rows alone
        (RealmSwift's ``ResultsSection.observe``): index paths are those of
        the whole sectioned results; calls only when this section changed."""
        return self._sectioned._observe(callback, key_paths, only=self.key)


class SectionedResults:
    """Results in sections by key (see the module)."""

    def __init__(self, results: "Results[Any]", key: "str | Callable[[Any], Hashable]"):
        self.results = results
        self._key = key
        # (realm version, layout) of the last computation outside a write.
        self._cached: tuple[int, tuple[list[Hashable], list[list[int]], list[Hashable]]] | None = None

    def _row_keys(self) -> list[Hashable]:
        return self._layout()[2]

    def _version(self) -> int | None:
        """The version the layout is kept for: the realm's, or None inside
        a write transaction (its writes change rows without a version)."""
        realm = self.results.realm
        return None if realm.in_transaction else realm.version

    def _layout(self) -> tuple[list[Hashable], list[list[int]], list[Hashable]]:
        """The section keys in order, each section's positions, each row's
        key: as computed at this version, if it was."""
        version = self._version()
        cached = self._cached
        if cached is not None and version is not None and cached[0] == version:
            return cached[1]
        layout = self._compute_layout()
        self._cached = None if version is None else (version, layout)
        return layout

    def _compute_layout(self) -> tuple[list[Hashable], list[list[int]], list[Hashable]]:
        if isinstance(self._key, str):
            row_keys: list[Hashable] = [row[0] for row in self.results.values(self._key)]
        else:
            row_keys = [self._key(obj) for obj in self.results]
        order: dict[Hashable, int] = {}
        positions: list[list[int]] = []
        for position, key in enumerate(row_keys):
            index = order.get(key)
            if index is None:
                order[key] = index = len(positions)
                positions.append([])
            positions[index].append(position)
        return list(order), positions, row_keys

    @property
    def all_keys(self) -> list[Hashable]:
        return self._layout()[0]

    def __len__(self) -> int:
        return len(self._layout()[0])

    def __getitem__(self, index: int) -> ResultsSection:
        keys, positions, _ = self._layout()
        return ResultsSection(self, keys[index], positions[index])

    def __iter__(self) -> Iterator[ResultsSection]:
        keys, positions, _ = self._layout()
        return (ResultsSection(self, key, rows) for key, rows in zip(keys, positions))

    def __repr__(self) -> str:
        return f"SectionedResults(keys={self.all_keys!r})"

    def observe(self, callback: Callable[["SectionedChanges", "SectionedResults"], None],
                key_paths: "list[str] | None" = None) -> "SectionedNotificationToken":
        """Call ``callback(changes, sectioned)`` (RealmSwift's
        ``SectionedResults.observe``): first with ``changes.is_initial`` at
        the next delivery, then whenever a commit changed the sections or
        their rows.  ``key_paths`` as ``Results.observe``.  Deliveries run in
        the realm's ``process_notifications()``.  Keep the token."""
        return self._observe(callback, key_paths, only=None)

    def _observe(self, callback: Callable[..., None], key_paths: "list[str] | None",
                 only: Any) -> "SectionedNotificationToken":
        if not callable(callback):
            raise TypeError("the callback must be callable")
        if key_paths is not None and isinstance(key_paths, (str, bytes)):
            raise TypeError("key_paths is a list of key paths, not one string")
        library = L.lib()
        token = SectionedNotificationToken(self, callback, only)
        encoded = [path.encode("utf-8") for path in key_paths] if key_paths is not None else []
        array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
        with _registered_lock:
            _registered[token._id] = token
        ptr = library.fief_results_add_notification_callback(self.results._handle.ptr,
                                                             array if key_paths is not None else None,
                                                             len(encoded), _call_sections_thunk, token._id, _free_thunk)
        if not ptr:
            with _registered_lock:
                _registered.pop(token._id, None)
            raise library.last_error("fief_results_add_notification_callback")
        token._handle = Handle(ptr, "notification token")
        return token


class SectionedChanges:
    """What a sectioned-results callback is told (RealmSwift's
    ``SectionedResultsChange``): ``is_initial`` first; then ``deletions``
    (``(section, item)`` before the change), ``insertions`` (after),
    ``modifications`` (before), ``sections_to_insert`` (after) and
    ``sections_to_delete`` (before).  Rows of a deleted section are not
    listed; a row that changed section or place is a deletion and an
    insertion."""

    __slots__ = ("is_initial", "deletions", "insertions", "modifications", "sections_to_insert", "sections_to_delete")

    def __init__(self) -> None:
        self.is_initial = False
        self.deletions: list[tuple[int, int]] = []
        self.insertions: list[tuple[int, int]] = []
        self.modifications: list[tuple[int, int]] = []
        self.sections_to_insert: list[int] = []
        self.sections_to_delete: list[int] = []

    @property
    def is_empty(self) -> bool:
        return not (self.deletions or self.insertions or self.modifications
                    or self.sections_to_insert or self.sections_to_delete)

    def __repr__(self) -> str:
        if self.is_initial:
            return "SectionedChanges(initial)"
        return (f"SectionedChanges(deletions={self.deletions}, insertions={self.insertions}, "
                f"modifications={self.modifications}, sections_to_insert={self.sections_to_insert}, "
                f"sections_to_delete={self.sections_to_delete})")


class SectionedNotificationToken(NotificationToken):
    """The token of a sectioned-results callback."""

    def __init__(self, sectioned: SectionedResults, callback: Callable[..., None], only: Any):
        super().__init__(None, callback)  # type: ignore[arg-type]
        self._sectioned: SectionedResults | None = sectioned
        self._only = only
        # Section ids: one per key, kept across deliveries.
        self._ids: dict[Hashable, int] = {}
        self._last: list[int] = []

    def _id_of(self, key: Hashable) -> int:
        made = self._ids.get(key)
        if made is None:
            made = self._ids[key] = len(self._ids)
        return made

    def close(self) -> None:
        super().close()
        self._sectioned = None

    invalidate = close

    def _changes(self, library: Any, handle: int) -> "SectionedChanges | None":
        sectioned = self._sectioned
        assert sectioned is not None
        failed = ctypes.c_bool()
        library.check(library.fief_collection_changes_get_error(handle, ctypes.byref(failed), None),
                      "fief_collection_changes_get_error")
        if failed.value:
            return None
        initial = ctypes.c_bool()
        library.check(library.fief_collection_changes_get_flags(handle, ctypes.byref(initial), None, None),
                      "fief_collection_changes_get_flags")
        now = [self._id_of(key) for key in sectioned._row_keys()]
        only = None if self._only is None else ctypes.c_int64(self._id_of(self._only))
        old, self._last = self._last, now
        changes = SectionedChanges()
        if initial.value:
            changes.is_initial = True
            return changes
        old_array = (ctypes.c_int64 * max(len(old), 1))(*old)
        new_array = (ctypes.c_int64 * max(len(now), 1))(*now)
        regrouped = library.fief_collection_changes_by_section(handle, old_array, len(old), new_array, len(now),
                                                               None if only is None else ctypes.byref(only))
        if not regrouped:
            raise library.last_error("fief_collection_changes_by_section")
        try:
            counts = [ctypes.c_size_t() for _ in range(5)]
            library.check(library.fief_section_changes_get_counts(regrouped, *(ctypes.byref(c) for c in counts)),
                          "fief_section_changes_get_counts")
            n_del, n_ins, n_mod, n_sec_ins, n_sec_del = (c.value for c in counts)
            capacity = max(n_del, n_ins, n_mod, 1)
            paths = [(L.fief_index_path_t * capacity)() for _ in range(3)]
            library.check(library.fief_section_changes_get_index_paths(regrouped, capacity, *paths),
                          "fief_section_changes_get_index_paths")
            changes.deletions = [(p.section, p.item) for p in paths[0][:n_del]]
            changes.insertions = [(p.section, p.item) for p in paths[1][:n_ins]]
            changes.modifications = [(p.section, p.item) for p in paths[2][:n_mod]]
            section_capacity = max(n_sec_ins, n_sec_del, 1)
            sections = [(ctypes.c_size_t * section_capacity)() for _ in range(2)]
            library.check(library.fief_section_changes_get_sections(regrouped, section_capacity, *sections),
                          "fief_section_changes_get_sections")
            changes.sections_to_insert = list(sections[0][:n_sec_ins])
            changes.sections_to_delete = list(sections[1][:n_sec_del])
        finally:
            library.fief_release(regrouped)
        if self._only is not None and changes.is_empty:
            return None
        return changes


def _call_sections(userdata: int | None, handle: int | None) -> None:
    def deliver(token: SectionedNotificationToken) -> None:
        callback: Callable[..., None] | None = token._callback
        sectioned = token._sectioned
        if callback is None or sectioned is None or handle is None:
            return
        changes = token._changes(L.lib(), handle)
        if changes is not None:
            callback(changes, sectioned)
    _dispatch(userdata, SectionedNotificationToken, "a sectioned results", deliver)


_call_sections_thunk = L.fief_collection_changes_fn(_call_sections)
