"""Live dicts: the value of a managed object's dict (map) property (fief_map_t)."""

from __future__ import annotations

import ctypes
from collections.abc import ItemsView, Iterator, KeysView, Mapping, MutableMapping, ValuesView
from typing import TYPE_CHECKING, Any, TypeVar

from . import _lib as L
from . import errors
from ._collection import BATCH, REPR_LIMIT, LiveCollection, fill, unadopt, unmanaged_copy
from ._mixed import is_nested, plain
from ._handle import Handle
from ._values import Keep, encode_string, from_value
from .model import Object, dict_items

if TYPE_CHECKING:  # pragma: no cover
    from .realm import Results

V = TypeVar("V")

_MISSING: Any = object()
_UNCHANGED: Any = object()  # a pair whose value is the live collection already at its key


class Dict(LiveCollection, MutableMapping[str, V]):
    """A managed object's dict property: a live mapping of string keys to
    values stored in the realm (RealmSwift's Map).

        class Person(fief.Object):
            name: str = ""
            scores: dict[str, int]                  # values (every scalar type)
            notes: dict[str, Optional[str]]         # values that may be None
            pets: dict[str, Optional[Dog]]          # objects (None once deleted)
            homes: dict[str, Optional[Address]]     # embedded objects (Address is a fief.EmbeddedObject)

        with realm.write():
            ann = realm.add(Person(name="Ann", scores={"math": 3}))
            ann.scores["art"] = 5                   # ann.scores is a fief.Dict
            ann.pets["rex"] = Dog(name="Rex")       # an unmanaged object is added
            ann.homes["home"] = {"street": "Main"}  # embedded: created in place
            ann.scores = {"x": 1}                   # replaces the contents

    Entries are kept in key order (bytewise UTF-8), not in insertion order.
    It reads the realm's current version (like the object) and writes in a
    write transaction.

    A `collections.abc.MutableMapping`: `d[key]` (KeyError when missing),
    `d[key] = value`, `del d[key]`, `in`, `len`, iteration over the keys,
    `keys()`, `values()` and `items()` views (read in batches), `get`,
    `pop`, `popitem`, `setdefault`, `update`, `clear`, `|` and `|=`, and
    `==` with any mapping.

    Keys are strings of at most 480 bytes of UTF-8 that contain no '.' and
    do not start with '$' (the query language uses both); any other key is
    refused (`InvalidArgumentError` with the library's message; a key that
    is not a str: `TypeMismatchError`) and nothing is written.  Reading such
    a key finds nothing.

    A dict of objects maps keys to objects or None: an unmanaged object
    given is added to the realm first, a dict becomes a new object, and
    deleting an object sets the values that pointed to it to None (the keys
    stay).  In a dict of embedded objects an unmanaged embedded object or a
    dict of its properties is created in place (the object given becomes
    the managed value); a value replaced or removed is deleted, so `pop`
    returns an unmanaged copy.  `results()` and `filter()` give the objects
    as live `Results` (in key order, None values left out).

    In a dict of mixed values (``dict[str, fief.Mixed]``, and a dict
    nested in a mixed value, which behaves like one) values are plain
    Python values of any type, links read as model objects (`fief.Link`
    for a class without a model class), and a Python list or dict stored
    as a value becomes a nested list or dict, read back as a live
    fief.List or fief.Dict (`pop` returns a plain copy of it).

    Every failing library call raises the matching `fief.FiefError` and
    leaves the dict as it was, also for `update` and whole-dict assignment.
    """

    __slots__ = ()
    _kind = "map"

    # -- plumbing -------------------------------------------------------------

    def _key(self, key: Any, keep: Keep) -> L.fief_string_t:
        """`key` as a fief_string_t (TypeMismatchError for a key that is not a str)."""
        if not isinstance(key, str):
            raise errors.TypeMismatchError(
                f"the keys of {self._where()} are strings, not {type(key).__name__} ({key!r})")
        data, size = keep.view(encode_string(key))
        return L.fief_string_t(data, size)

    def _get_raw(self, key: str) -> tuple[bool, Any]:
        """(found, value) of `key`, the value as a Python value (links as fief.Link)."""
        keep = Keep()
        k = self._key(key, keep)
        out = L.fief_value_t()
        found = ctypes.c_bool()
        self._call("get", k, ctypes.byref(out), ctypes.byref(found))
        if not found.value:
            return False, None
        return True, from_value(out, self._spec.py_type)

    def _entries(self, start: int, count: int, keys: bool, values: bool) -> tuple[list[Any], list[Any]]:
        """Entries start ..< start + count in key order, in one
        fief_map_get_entries call: (keys, values as Python values)."""
        if count <= 0:
            return [], []
        out_keys = (L.fief_string_t * count)() if keys else None
        out_values = (L.fief_value_t * count)() if values else None
        self._call("get_entries", start, count, out_keys, out_values)
        key_list = [_decode_key(out_keys[i]) for i in range(count)] if out_keys is not None else []
        py_type = self._spec.py_type
        value_list = [from_value(out_values[i], py_type) for i in range(count)] if out_values is not None else []
        return key_list, value_list

    def _iter_entries(self, keys: bool, values: bool) -> Iterator[tuple[Any, Any]]:
        i = 0
        while True:
            n = len(self)
            if i >= n:
                return
            # A nested collection's value is reached by its key.
            got_keys, got_values = self._entries(i, min(BATCH, n - i), keys or (values and self._is_mixed), values)
            if values:
                got_values = self._pythons(got_values, got_keys)
            count = len(got_keys) or len(got_values)
            if keys and values:
                yield from zip(got_keys, got_values)
            elif keys:
                for k in got_keys:
                    yield k, None
            else:
                for v in got_values:
                    yield None, v
            i += count

    # -- reading ---------------------------------------------------------------

    def __len__(self) -> int:
        out = ctypes.c_size_t()
        self._call("count", ctypes.byref(out))
        return int(out.value)

    def __getitem__(self, key: str) -> V:
        if not isinstance(key, str):
            raise KeyError(key)
        found, raw = self._get_raw(key)
        if not found:
            raise KeyError(key)
        value: V = self._python(raw, None, key)
        return value

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        keep = Keep()
        out = ctypes.c_bool()
        self._call("contains_key", self._key(key, keep), ctypes.byref(out))
        return bool(out.value)

    def __iter__(self) -> Iterator[str]:
        for key, _ in self._iter_entries(True, False):
            yield key

    def keys(self) -> "DictKeys":
        """A live view of the keys, in key order."""
        return DictKeys(self)

    def values(self) -> "DictValues":
        """A live view of the values, in key order (read in batches)."""
        return DictValues(self)

    def items(self) -> "DictItems":
        """A live view of the (key, value) pairs, in key order (read in batches)."""
        return DictItems(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Dict):
            other = dict(other.items())
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(self) != len(other):
            return False
        return dict(self.items()) == dict(other.items())

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # mutable, like a Python dict

    def __or__(self, other: Any) -> dict[Any, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        result = dict(self.items())
        result.update(other)
        return result

    def __ror__(self, other: Any) -> dict[Any, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        result = dict(other)
        result.update(self.items())
        return result

    def __repr__(self) -> str:
        try:
            n = len(self)
            keys, values = self._entries(0, min(n, REPR_LIMIT), True, True)
            values = self._pythons(values, keys)
        except errors.FiefError as exc:
            return f"<fief.Dict {self._where()} ({exc.__class__.__name__})>"
        body = ", ".join(f"{k!r}: {v!r}" for k, v in zip(keys, values))
        if n > REPR_LIMIT:
            body += f", ... ({n - REPR_LIMIT} more)"
        return f"fief.Dict({{{body}}})"

    # -- writing -----------------------------------------------------------------

    def __setitem__(self, key: str, value: V) -> None:
        self._write([(key, value)])

    def __delitem__(self, key: str) -> None:
        if not self._remove(key):
            raise KeyError(key)

    def _remove(self, key: Any) -> bool:
        """Remove `key` (fief_map_remove); whether it was there."""
        if not isinstance(key, str):
            return False
        keep = Keep()
        removed = ctypes.c_bool()
        self._call("remove", self._key(key, keep), ctypes.byref(removed))
        return bool(removed.value)

    def pop(self, key: str, default: Any = _MISSING) -> Any:
        """Remove `key` and return its value (`default`, or KeyError, when
        it is missing).  A removed embedded object is deleted: pop returns
        an unmanaged copy."""
        try:
            value = self[key]
        except KeyError:
            if default is _MISSING:
                raise
            return default
        if self._is_embedded:
            value = unmanaged_copy(value)
        elif self._is_mixed:
            value = plain(value)  # a nested list or dict goes with its key: a copy of it
        self._remove(key)
        return value

    def popitem(self) -> tuple[str, V]:
        """Remove the first entry (in key order) and return it as (key, value)."""
        if not len(self):
            raise KeyError("popitem(): the dict is empty")
        keys, _ = self._entries(0, 1, True, False)
        key = keys[0]
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The value of `key`; if it is missing, set it to `default` first
        (in a dict of objects, the object stored is returned)."""
        try:
            return self[key]
        except KeyError:
            pass
        self[key] = default
        return self[key] if self._is_links or self._is_mixed else default

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        """Set every (key, value) of `other` (a mapping or an iterable of
        pairs) and of `kwargs`, all or nothing."""
        if isinstance(other, Mapping):
            pairs = list(other.items())
        elif hasattr(other, "keys"):
            pairs = [(k, other[k]) for k in other.keys()]
        else:
            pairs = [tuple(pair) for pair in other]
            for pair in pairs:
                if len(pair) != 2:
                    raise ValueError(f"update takes (key, value) pairs, not {pair!r}")
        pairs.extend(kwargs.items())
        self._write(pairs)

    def __ior__(self, other: Any) -> "Dict[V]":
        self.update(other)
        return self

    def clear(self) -> None:
        """Remove every entry (linked objects stay; embedded ones are deleted)."""
        self._call("clear")

    def delete_all(self) -> None:
        """Delete the objects a dict of objects holds from the realm and
        empty the dict (as `realm.delete(d)` does; embedded values are
        deleted by emptying it).  A dict of values raises InvalidArgumentError."""
        library = self._lib
        if self._is_embedded:
            self.clear()
            return
        ptr = library.check_handle(library.fief_map_to_results(self._ptr()), "fief_map_to_results")
        results = Handle(ptr, "results")
        try:
            library.check(library.fief_results_delete_all(results.ptr), "fief_results_delete_all")
        finally:
            results.release()
        self.clear()

    def _replace(self, value: Any) -> None:
        """Make the dict hold the entries of `value` (assigning a whole dict
        to the attribute).  All or nothing."""
        if isinstance(value, Dict) and value._same(self):
            return  # d |= {...} assigns the dict to itself
        if isinstance(value, Dict):
            value = dict(value.items())
        self._write(list(dict_items(value, self._spec).items()), replace=True)

    def _write(self, pairs: list[Any], replace: bool = False) -> None:
        """Set each (key, value) of `pairs`, in order (with `replace`, first
        remove the keys that are not among them), all or nothing: every key
        changed is restored when one write fails (an embedded value that
        was replaced comes back as a copy)."""
        for key, _ in pairs:
            if not isinstance(key, str):
                raise errors.TypeMismatchError(
                    f"the keys of {self._where()} are strings, not {type(key).__name__} ({key!r})")
        if self._is_mixed:
            # Checked (and nested collections copied) before anything is written;
            # the live collection already at its key stays as it is.
            pairs = [(k, _UNCHANGED if self._holds_slot(v, k) else self._prepare(v, k)) for k, v in pairs]
        links = self._is_links and not self._is_embedded
        if links:
            # Dicts become unmanaged objects now (a misspelt property fails
            # before anything is written); objects are checked; values
            # already in the realm are written first, then each key that
            # gets a new object is set to None (so the library judges the
            # key, and the transaction, before the object is added).
            pairs = [(k, self._target_binding().cls(**v) if isinstance(v, dict) else v) for k, v in pairs]
            self._check_link_targets([value for _, value in pairs])
            pairs = ([p for p in pairs if not self._needs_adding(p[1])]
                     + [p for p in pairs if self._needs_adding(p[1])])
        undo: list[tuple[str, bool, Any]] = []  # (key, existed, previous value or embedded copy)
        adopted: list[tuple[Object, dict[Any, Any]]] = []
        try:
            if replace:
                wanted = {key for key, _ in pairs}
                for key in [k for k in self if k not in wanted]:
                    undo.append(self._previous(key))
                    self._remove(key)
            for key, value in pairs:
                if value is _UNCHANGED:
                    continue
                if self._is_embedded:
                    self._write_embedded(key, value, undo, adopted)
                    continue
                undo.append(self._previous(key))
                if links and self._needs_adding(value):
                    continue
                self._set(key, value)
            if links:
                new = [(key, value) for key, value in pairs if self._needs_adding(value)]
                for key, _ in new:
                    self._set(key, None)
                for key, value in new:
                    self._set(key, self._prepare_links([value])[0])
        except BaseException:
            self._undo(undo)
            for child, given in adopted:
                unadopt(child, given)
            raise

    def _set(self, key: str, value: Any) -> None:
        self._set_value(key, value)
        if is_nested(value):
            fill(self._nested_at(key, isinstance(value, list)), value)

    def _set_value(self, key: str, value: Any) -> None:
        """Set `key` to a prepared value (a nested collection stored empty)."""
        keep = Keep()
        k = self._key(key, keep)
        v = L.fief_value_t()
        self._encode(value, v, keep)
        self._call("set", k, v)

    def _nested_at(self, at: Any, is_list: bool) -> LiveCollection:
        keep = Keep()
        fn = "fief_map_get_list" if is_list else "fief_map_get_map"
        return self._wrap_nested(getattr(self._lib, fn)(self._ptr(), self._key(at, keep)), fn, at, is_list)

    def _write_embedded(self, key: str, value: Any, undo: list[Any], adopted: list[Any]) -> None:
        """Set `key` of a dict of embedded objects: None clears it, an
        unmanaged embedded object or a dict is created in place, the
        object that is the key's value already stays; anything else is
        for the library to refuse."""
        if isinstance(value, Object) and value.is_managed:
            found, raw = self._get_raw(key)
            if found and raw is not None and value._identity() == self._python(raw, None)._identity():
                return  # already this key's value
        child = self._in_place(value)
        undo.append(self._previous(key))
        if child is None:
            self._set(key, value)  # None clears the key; the library refuses the rest
            return
        given = dict(child.__dict__.get("_fief_values", {}))
        library = self._lib
        keep = Keep()
        ptr = library.check_handle(library.fief_map_insert_embedded(self._ptr(), self._key(key, keep)),
                                   "fief_map_insert_embedded")
        adopted.append((child, given))
        self._binding.schema.bind(type(child)).adopt_embedded(child, ptr)

    def _previous(self, key: str) -> tuple[str, bool, Any]:
        """What undoing a write of `key` needs: whether it was there, and
        its value (an unmanaged copy for an embedded object, which the
        write deletes)."""
        found, raw = self._get_raw(key)
        if found and self._is_embedded and raw is not None:
            raw = unmanaged_copy(self._python(raw, None))
        elif found and self._is_mixed:
            raw = self._snapshot_value(raw, key)
        return key, found, raw

    def _undo(self, undo: list[Any]) -> None:
        library = self._lib
        for key, existed, previous in reversed(undo):
            try:
                if not existed:
                    self._remove(key)
                elif isinstance(previous, Object):  # an embedded object's copy, made again
                    keep = Keep()
                    ptr = library.fief_map_insert_embedded(self._ptr(), self._key(key, keep))
                    if ptr:
                        self._binding.schema.bind(type(previous)).adopt_embedded(previous, ptr)
                else:
                    self._set(key, previous)
            except errors.FiefError:  # pragma: no cover - the original error matters more
                pass

    # -- state -----------------------------------------------------------------

    def freeze(self) -> "Dict[V]":
        """The dict in a frozen snapshot of its realm's current version."""
        return super().freeze()

    def thaw(self) -> "Dict[V] | None":
        """The dict in a live realm at the newest version (None if its owner
        was deleted since)."""
        return super().thaw()

    def results(self) -> "Results[Any]":
        """The objects of a dict of objects as live results, in key order
        (None values left out; an object that is the value of two keys is
        there twice): filter and sort them like any results."""
        return super().results()


def _decode_key(key: L.fief_string_t) -> str:
    if not key.size:
        return ""
    return ctypes.string_at(key.data, key.size).decode("utf-8", "surrogateescape")


class DictKeys(KeysView[Any]):
    """The keys of a fief.Dict, live, in key order."""

    _mapping: Dict[Any]

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping)

    def __repr__(self) -> str:
        return f"fief.DictKeys({list(self)!r})"


class DictValues(ValuesView[Any]):
    """The values of a fief.Dict, live, in key order (read in batches)."""

    _mapping: Dict[Any]

    def __iter__(self) -> Iterator[Any]:
        for _, value in self._mapping._iter_entries(False, True):
            yield value

    def __repr__(self) -> str:
        return f"fief.DictValues({list(self)!r})"


class DictItems(ItemsView[Any, Any]):
    """The (key, value) pairs of a fief.Dict, live, in key order (read in batches)."""

    _mapping: Dict[Any]

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return self._mapping._iter_entries(True, True)

    def __repr__(self) -> str:
        return f"fief.DictItems({list(self)!r})"
