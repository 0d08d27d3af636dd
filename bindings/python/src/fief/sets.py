"""Live sets: the value of a managed object's set property (fief_set_t)."""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Iterator, MutableSet
from collections.abc import Set as AbstractSet
import typing
from typing import TYPE_CHECKING, Any, TypeVar

from . import _lib as L
from . import errors
from ._collection import BATCH, REPR_LIMIT, LiveCollection
from ._handle import Handle
from ._mixed import prepare
from ._values import Keep, from_value
from .model import Object, set_elements

if TYPE_CHECKING:  # pragma: no cover
    from .realm import Results

T = TypeVar("T")


class Set(LiveCollection, MutableSet[T]):
    """A managed object's set property: a live, mutable set stored in the
    realm (RealmSwift's MutableSet).

        class Person(fief.Object):
            name: str = ""
            lucky: set[int]                # values (every scalar type)
            tags: set[Optional[str]]       # values, None among them
            dogs: set[Dog]                 # objects (never embedded ones)

        with realm.write():
            ann = realm.add(Person(name="Ann", lucky={7, 3}, dogs={Dog(name="Rex")}))
            ann.lucky.add(9)               # ann.lucky is a fief.Set
            ann.lucky |= {1, 2}            # one insert per element (or one call for a fief.Set)
            ann.lucky &= bob.lucky         # fief_set_form_intersection: one call
            ann.tags = {"a", None}         # replaces the contents

    Elements are kept in the set's order, not in insertion order: numbers by
    value, strings and bytes bytewise, datetimes in time order, objects by
    their object key, None first.  It reads the realm's current version
    (like the object) and writes in a write transaction.

    A `collections.abc.MutableSet`: `len`, `in` (one lookup), iteration (in
    the set's order, read in batches), `add`, `discard`, `remove` (KeyError
    when missing), `pop`, `clear`, `update`, `intersection_update`,
    `difference_update`, `symmetric_difference_update`, the operators
    `|= &= -= ^=`, the tests `isdisjoint`, `issubset` (`<=`, `<`),
    `issuperset` (`>=`, `>`) and `==` with any set; `| & - ^`, `union`,
    `intersection`, `difference` and `symmetric_difference` give Python
    sets.  With another `fief.Set` of the same element type and realm the
    algebra is one library call (fief_set_form_union ...); with anything
    else it goes element by element, each element compared as the library
    compares it (an int 2 is in a set of floats, a float is found in a set
    of `fief.Float32` by the value it stores).

    In a set of objects an unmanaged object given is added to the realm
    first, and a dict becomes a new object; `results()` and `filter()` give
    its objects as live `Results`; `delete_all()` deletes them.

    A set of mixed values (``set[fief.Mixed]``) holds plain Python values
    of any type and links (read as model objects, or `fief.Link` for a
    class without a model class), never lists or dicts; it compares as the
    library does: 1, 1.0 and Decimal(1) are one element, True is not 1,
    "1" is not 1.

    Every failing library call raises the matching `fief.FiefError` (a
    value of the wrong type a `TypeMismatchError`, also a `TypeError`; None
    in a set that does not allow it a `NullNotAllowedError`; a write outside
    a transaction a `NotInTransactionError`) and leaves the set as it was,
    also for `update` and the other calls that write many elements.
    """

    __slots__ = ()
    _kind = "set"

    # -- plumbing -------------------------------------------------------------

    def _raw_range(self, start: int, count: int) -> list[Any]:
        """Elements start ..< start + count as Python values (links as
        fief.Link), in one fief_set_get_range call."""
        if count <= 0:
            return []
        out = (L.fief_value_t * count)()
        library = self._lib
        library.check(library.fief_set_get_range(self._ptr(), start, count, out), "fief_set_get_range")
        py_type = self._spec.py_type
        return [from_value(out[i], py_type) for i in range(count)]

    def _raw_all(self) -> list[Any]:
        n = len(self)
        raw: list[Any] = []
        while len(raw) < n:
            raw.extend(self._raw_range(len(raw), min(BATCH, n - len(raw))))
        return raw

    def _lookup(self, value: Any, keep: Keep) -> L.fief_value_t | None:
        """`value` as a fief_value_t to look up, or None when it cannot be
        an element (it is then in no set)."""
        if isinstance(value, Object):
            if not value.is_managed or not self._same_file(value):
                return None
        t = self._spec.fief_type
        if t == L.TYPE_INT and isinstance(value, float) and value.is_integer():
            value = int(value)  # 2.0 == 2, as in Python sets
        if t == L.TYPE_MIXED:
            try:  # a value no element can be (a list, a deleted object...) is in no set
                value = prepare(value, self._binding.schema, self._where(), nested=False)
            except errors.FiefError:
                return None
        v = L.fief_value_t()
        try:
            self._encode(value, v, keep)
        except (errors.FiefError, TypeError, ValueError, OverflowError):
            return None
        return v

    def _same_file(self, obj: Object) -> bool:
        theirs = obj.__dict__["_fief_binding"].schema
        mine = self._binding.schema
        return theirs is mine or (theirs.path is not None and theirs.path == mine.path)

    def _insert(self, value: Any) -> bool:
        keep = Keep()
        v = L.fief_value_t()
        self._encode(value, v, keep)
        inserted = ctypes.c_bool()
        self._call("insert", v, ctypes.byref(inserted))
        return bool(inserted.value)

    def _remove_value(self, value: Any) -> bool:
        """Take `value` out (fief_set_remove); whether it was there.  A value
        that cannot be an element is simply not there (no library call)."""
        keep = Keep()
        v = self._lookup(value, keep)
        if v is None:
            return False
        removed = ctypes.c_bool()
        self._call("remove", v, ctypes.byref(removed))
        return bool(removed.value)

    def _insert_many(self, values: list[Any]) -> None:
        """Insert every value, all or nothing: on a failure the ones this
        call inserted are taken out again.  In a set of objects dicts
        become unmanaged objects and the objects are checked first, then
        those in the realm are inserted, then new ones are added and
        inserted (so a refused element adds nothing)."""
        if self._is_links:
            values = [self._target_binding().cls(**v) if isinstance(v, dict) else v for v in values]
            self._check_link_targets(values)
            values = ([v for v in values if not self._needs_adding(v)]
                      + [v for v in values if self._needs_adding(v)])
        if self._is_mixed:  # every element checked before any is inserted
            values = [self._prepare(value) for value in values]
        inserted: list[Any] = []
        try:
            for value in values:
                if self._is_links and self._needs_adding(value):
                    value = self._prepare_links([value])[0]
                if self._insert(value):
                    inserted.append(value)
        except BaseException:
            for value in reversed(inserted):
                try:
                    self._remove_value(value)
                except errors.FiefError:  # pragma: no cover - the original error matters more
                    pass
            raise

    def _other_set(self, other: Any) -> "Set[Any] | None":
        """`other` when the library can combine it with this set in one call."""
        return other if self._same_realm(other) else None

    def _test(self, name: str, other: "Set[Any]") -> bool:
        out = ctypes.c_bool()
        self._call(name, other._handle.ptr, ctypes.byref(out))
        return bool(out.value)

    def _found_positions(self, values: Iterable[Any]) -> set[int]:
        """The positions in this set of the elements of `values` that are in it."""
        library = self._lib
        positions: set[int] = set()
        index = ctypes.c_size_t()
        found = ctypes.c_bool()
        for value in values:
            keep = Keep()
            v = self._lookup(value, keep)
            if v is None:
                continue
            library.check(library.fief_set_index_of(self._ptr(), v, ctypes.byref(index), ctypes.byref(found)),
                          "fief_set_index_of")
            if found.value:
                positions.add(int(index.value))
        return positions

    # -- reading ---------------------------------------------------------------

    def __len__(self) -> int:
        out = ctypes.c_size_t()
        self._call("count", ctypes.byref(out))
        return int(out.value)

    def __iter__(self) -> Iterator[T]:
        i = 0
        while True:
            n = len(self)
            if i >= n:
                return
            block = self._pythons(self._raw_range(i, min(BATCH, n - i)))
            yield from block
            i += len(block)

    def __contains__(self, value: object) -> bool:
        """Whether the set holds `value` (one fief_set_contains lookup)."""
        keep = Keep()
        v = self._lookup(value, keep)
        if v is None:
            return False
        out = ctypes.c_bool()
        self._call("contains", v, ctypes.byref(out))
        return bool(out.value)

    def isdisjoint(self, other: Iterable[Any]) -> bool:
        """Whether no element of `other` is in the set."""
        same = self._other_set(other)
        if same is not None:
            return not self._test("intersects", same)
        return not any(value in self for value in other)

    def issubset(self, other: Iterable[Any]) -> bool:
        """Whether every element of the set is in `other`."""
        same = self._other_set(other)
        if same is not None:
            return self._test("is_subset_of", same)
        return len(self._found_positions(other)) == len(self)

    def issuperset(self, other: Iterable[Any]) -> bool:
        """Whether every element of `other` is in the set."""
        same = self._other_set(other)
        if same is not None:
            return self._test("is_superset_of", same)
        return all(value in self for value in other)

    def __le__(self, other: Any) -> bool:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        return self.issubset(other)

    def __lt__(self, other: Any) -> bool:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        return len(self) < len(other) and self.issubset(other)

    def __ge__(self, other: Any) -> bool:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        return self.issuperset(other)

    def __gt__(self, other: Any) -> bool:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        return len(self) > len(other) and self.issuperset(other)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AbstractSet):
            return NotImplemented
        if len(self) != len(other):
            return False
        return self.issuperset(other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # mutable, like a Python set

    @classmethod
    def _from_iterable(cls, iterable: Iterable[Any]) -> set[Any]:
        # What `|`, `&`, `-` and `^` give: a plain Python set.
        return set(iterable)

    def union(self, *others: Iterable[Any]) -> set[Any]:
        """A Python set of the elements of the set and of `others`."""
        result = set(self)
        result.update(*others)
        return result

    def intersection(self, *others: Iterable[Any]) -> set[Any]:
        """A Python set of the elements of the set that are in every one of `others`."""
        result = set(self)
        for other in others:
            container = _as_container(other)
            result = {x for x in result if x in container}
        return result

    def difference(self, *others: Iterable[Any]) -> set[Any]:
        """A Python set of the elements of the set that are in none of `others`."""
        result = set(self)
        for other in others:
            container = _as_container(other)
            result = {x for x in result if x not in container}
        return result

    def symmetric_difference(self, other: Iterable[Any]) -> set[Any]:
        """A Python set of the elements in exactly one of the set and `other`."""
        return set(self) ^ set(other)

    def __repr__(self) -> str:
        try:
            n = len(self)
            items = self._pythons(self._raw_range(0, min(n, REPR_LIMIT)))
        except errors.FiefError as exc:
            return f"<fief.Set {self._where()} ({exc.__class__.__name__})>"
        if not n:
            return "fief.Set()"
        body = ", ".join(repr(v) for v in items)
        if n > REPR_LIMIT:
            body += f", ... ({n - REPR_LIMIT} more)"
        return f"fief.Set({{{body}}})"

    # -- writing -----------------------------------------------------------------

    def add(self, value: Any) -> None:
        """Add `value` (nothing happens if it is there already)."""
        self._insert_many([value])

    def discard(self, value: Any) -> None:
        """Take `value` out if it is there."""
        self._remove_value(value)

    def remove(self, value: Any) -> None:
        """Take `value` out; KeyError if it is not there."""
        if not self._remove_value(value):
            raise KeyError(value)

    def pop(self) -> T:
        """Take the first element (in the set's order) out and return it."""
        n = len(self)
        if not n:
            raise KeyError("pop from an empty set")
        raw = self._raw_range(0, 1)[0]
        value: T = self._python(raw, None)
        keep = Keep()
        v = L.fief_value_t()
        self._encode(raw, v, keep)
        self._call("remove", v, None)
        return value

    def clear(self) -> None:
        """Remove every element (linked objects stay)."""
        self._call("clear")

    def update(self, *others: Iterable[Any]) -> None:
        """Add the elements of every one of `others` (fief_set_form_union
        for a fief.Set of the same realm)."""
        for other in others:
            same = self._other_set(other)
            if same is not None:
                self._call("form_union", same._handle.ptr)
            else:
                self._insert_many(list(set_elements(other, self._spec)))

    def intersection_update(self, *others: Iterable[Any]) -> None:
        """Keep only the elements that are in every one of `others`
        (fief_set_form_intersection for a fief.Set of the same realm)."""
        for other in others:
            same = self._other_set(other)
            if same is not None:
                self._call("form_intersection", same._handle.ptr)
                continue
            keep_positions = self._found_positions(set_elements(other, self._spec))
            raw = self._raw_all()
            for i in range(len(raw) - 1, -1, -1):
                if i not in keep_positions:
                    self._remove_raw(raw[i])

    def difference_update(self, *others: Iterable[Any]) -> None:
        """Take out the elements of every one of `others` (fief_set_subtract
        for a fief.Set of the same realm)."""
        for other in others:
            same = self._other_set(other)
            if same is not None:
                self._call("subtract", same._handle.ptr)
                continue
            for value in list(set_elements(other, self._spec)):
                self._remove_value(value)

    def symmetric_difference_update(self, other: Iterable[Any]) -> None:
        """Keep the elements in exactly one of the set and `other`."""
        values = list(typing.cast("Set[Any]", other)._raw_all() if self._same_realm(other) else set_elements(other, self._spec))
        present: list[Any] = []
        absent: list[Any] = []
        for value in values:
            (present if value in self else absent).append(value)
        self._insert_many(absent)
        for value in present:
            self._remove_value(value)

    def _remove_raw(self, raw: Any) -> None:
        keep = Keep()
        v = L.fief_value_t()
        self._encode(raw, v, keep)
        self._call("remove", v, None)

    def __ior__(self, other: Iterable[Any]) -> "Set[T]":  # type: ignore[misc]  # takes any iterable
        self.update(other)
        return self

    def __iand__(self, other: Iterable[Any]) -> "Set[T]":
        self.intersection_update(other)
        return self

    def __isub__(self, other: Iterable[Any]) -> "Set[T]":
        if other is self:
            self.clear()
        else:
            self.difference_update(other)
        return self

    def __ixor__(self, other: Iterable[Any]) -> "Set[T]":  # type: ignore[misc]  # takes any iterable
        if other is self:
            self.clear()
        else:
            self.symmetric_difference_update(other)
        return self

    def delete_all(self) -> None:
        """Delete every object of a set of objects from the realm (which
        empties the set), as `realm.delete(s)` does.  A set of values raises
        InvalidArgumentError."""
        library = self._lib
        ptr = library.check_handle(library.fief_set_to_results(self._ptr()), "fief_set_to_results")
        results = Handle(ptr, "results")
        try:
            library.check(library.fief_results_delete_all(results.ptr), "fief_results_delete_all")
        finally:
            results.release()

    def _replace(self, value: Any) -> None:
        """Make the set hold the elements of `value` (assigning a whole set
        to the attribute).  All or nothing."""
        if isinstance(value, Set) and value._same(self):
            return  # s |= {...} assigns the set to itself
        items = list(set_elements(value, self._spec))
        if self._is_links:
            self._check_link_targets(items)
        previous = self._raw_all()  # copied out: they outlive the clear
        self.clear()
        try:
            self._insert_many(items)
        except BaseException:
            library = self._lib
            library.fief_set_clear(self._ptr())
            for raw in previous:
                keep = Keep()
                v = L.fief_value_t()
                self._encode(raw, v, keep)
                library.fief_set_insert(self._ptr(), v, None)
            raise

    # -- state -----------------------------------------------------------------

    def freeze(self) -> "Set[T]":
        """The set in a frozen snapshot of its realm's current version."""
        return super().freeze()

    def thaw(self) -> "Set[T] | None":
        """The set in a live realm at the newest version (None if its owner
        was deleted since)."""
        return super().thaw()

    def results(self) -> "Results[Any]":
        """The objects of a set of objects as live results, in the set's
        order (object key): filter and sort them like any results."""
        return super().results()


def _as_container(other: Iterable[Any]) -> Any:
    if isinstance(other, (AbstractSet, dict)):
        return other
    try:
        return set(other)
    except TypeError:
        return list(other)
