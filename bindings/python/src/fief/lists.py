"""Live lists: the value of a managed object's list property (fief_list_t)."""

from __future__ import annotations

import ctypes
from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NoReturn, TypeVar, overload

from . import _lib as L
from . import errors
from ._collection import BATCH as _BATCH
from ._collection import REPR_LIMIT as _REPR_LIMIT
from ._collection import LiveCollection, fill, unadopt as _unadopt, unmanaged_copy
from ._mixed import is_nested, mixed_equal, plain, prepare
from ._values import Keep, from_value
from .model import Object, list_elements

if TYPE_CHECKING:  # pragma: no cover
    from .realm import Results, ValueResults

T = TypeVar("T")


class List(LiveCollection, MutableSequence[T]):
    """A managed object's list property: a live, mutable sequence stored in
    the realm (RealmSwift's List).

        class Person(fief.Object):
            name: str = ""
            scores: list[int]              # values (every scalar type)
            tags: list[Optional[str]]      # values that may be None
            dogs: list[Dog]                # links ("Dog" works too)
            toys: list[Toy]                # embedded objects (Toy is a fief.EmbeddedObject)

        with realm.write():
            ann = realm.add(Person(name="Ann", scores=[3, 1], dogs=[Dog(name="Rex")]))
            ann.scores.append(2)           # ann.scores is a fief.List
            ann.scores += [5, 8]           # one fief_list_append for the batch
            ann.toys.append({"label": "ball"})   # created in place
            ann.scores = [1, 2, 3]         # replaces the contents

    It reads the realm's current version (like the object) and writes in a
    write transaction.  `len`, indexing (negative indices too), slices (read
    as a Python list; `del lst[a:b]` too), iteration (read in batches),
    `in`, `index`, `count`, `insert`, `append`, `extend`, `pop`, `remove`,
    `clear`, `reverse`, `==` with Python lists, and `move`, `swap`,
    `delete_all`, `freeze`, `thaw`.

    Elements of a list of links are model objects; an unmanaged object
    put into one is added to the realm first (with the unmanaged objects it
    links to), a dict becomes a new object of the target class.  In a list
    of embedded objects, an unmanaged embedded object or a dict is created
    in place (the object given becomes the managed element); elements leave
    the realm when they leave the list, so `pop` returns an unmanaged copy.

    In a list of mixed values (``list[fief.Mixed]``, and a list nested in
    a mixed value, which behaves like one) elements are plain Python values
    of any type, links read as model objects (`fief.Link` for a class
    without a model class), and a Python list or dict stored as an element
    becomes a nested list or dict, read back as a live fief.List or
    fief.Dict; `in`, `index`, `count` and `remove` compare as the library
    does (1, 1.0 and Decimal(1) are equal; True is not 1; "1" is not 1).

    Every failing library call raises the matching `fief.FiefError` (an
    index out of range is an `IndexOutOfBoundsError`, also an `IndexError`;
    a value of the wrong type a `TypeMismatchError`, also a `TypeError`),
    and leaves the list as it was.
    """

    __slots__ = ()
    _kind = "list"

    # -- plumbing -------------------------------------------------------------

    def _raw_range(self, start: int, count: int) -> list[Any]:
        """Elements start ... start + count - 1 as Python values (links as
        fief.Link), in one fief_list_get_range call."""
        if count <= 0:
            return []
        out = (L.fief_value_t * count)()
        library = self._lib
        library.check(library.fief_list_get_range(self._ptr(), start, count, out), "fief_list_get_range")
        py_type = self._spec.py_type
        return [from_value(out[i], py_type) for i in range(count)]

    def _range(self, start: int, count: int) -> list[Any]:
        return self._pythons(self._raw_range(start, count), range(start, start + count))

    def _nested_at(self, at: Any, is_list: bool) -> LiveCollection:
        fn = "fief_list_get_list" if is_list else "fief_list_get_map"
        return self._wrap_nested(getattr(self._lib, fn)(self._ptr(), at), fn, at, is_list)

    def _equal(self, a: Any, b: Any) -> bool:
        return mixed_equal(a, b) if self._is_mixed else a == b

    def _index(self, index: Any, size: int | None = None, *, what: str = "index") -> int:
        """A Python index (negative counts from the end) as a list position.
        Positions past the end are left for the library to refuse."""
        try:
            index = index.__index__()
        except AttributeError:
            raise TypeError(f"list indices are integers or slices, not {type(index).__name__}") from None
        if index < 0:
            n = len(self) if size is None else size
            if index < -n:
                raise errors.IndexOutOfBoundsError(f"{what} {index} is out of range for a list of {n} elements")
            index += n
        return int(index)

    def _values_array(self, values: list[Any], keep: Keep) -> Any:
        n = len(values)
        array = (L.fief_value_t * max(n, 1))()
        for i, value in enumerate(values):
            self._encode(value, array[i], keep)
        return array

    # -- embedded elements ------------------------------------------------------

    def _refuse(self, value: Any, index: int) -> NoReturn:
        """Let the library refuse a value that cannot go into a list of
        embedded objects (a managed embedded object, a link, a number...),
        so the error is the library's."""
        keep = Keep()
        v = L.fief_value_t()
        self._encode(value, v, keep)
        library = self._lib
        if library.fief_list_insert(self._ptr(), index, v):  # pragma: no cover - the library refuses these
            library.fief_list_remove(self._ptr(), index)
            raise errors.InvalidArgumentError(f"{self._where()}: embedded objects are created in place: "
                                              "give an unmanaged embedded object or a dict")
        raise library.last_error("fief_list_insert")

    def _create_embedded(self, index: int, child: Object) -> Object:
        """Create `child` in place at `index`; on failure the list is as it was."""
        library = self._lib
        ptr = library.check_handle(library.fief_list_insert_embedded(self._ptr(), index),
                                   "fief_list_insert_embedded")
        try:
            self._binding.schema.bind(type(child)).adopt_embedded(child, ptr)
        except BaseException:
            library.fief_list_remove(self._ptr(), index)  # deletes the half-made object
            raise
        return child

    def _insert_embedded_many(self, index: int, values: list[Any]) -> None:
        children: list[Object] = []
        for value in values:
            child = self._in_place(value)
            if child is None:
                self._refuse(value, index)
            children.append(child)
        if len({id(c) for c in children if isinstance(c, Object)}) != len(children):
            raise errors.LogicError(f"{self._where()}: the same embedded object is given twice")
        given = [dict(c.__dict__.get("_fief_values", {})) for c in children]
        done = 0
        try:
            for child in children:
                self._create_embedded(index + done, child)
                done += 1
        except BaseException:
            for i in range(done - 1, -1, -1):  # take back the ones created (they are deleted)
                self._lib.fief_list_remove(self._ptr(), index + i)
                _unadopt(children[i], given[i])
            raise

    # -- reading ---------------------------------------------------------------

    def __len__(self) -> int:
        out = ctypes.c_size_t()
        self._lib.check(self._lib.fief_list_count(self._ptr(), ctypes.byref(out)), "fief_list_count")
        return int(out.value)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            positions = range(*index.indices(len(self)))
            if not positions:
                return []
            low, high = min(positions[0], positions[-1]), max(positions[0], positions[-1])
            block = self._range(low, high - low + 1)
            return [block[i - low] for i in positions]
        index = self._index(index)
        out = L.fief_value_t()
        self._lib.check(self._lib.fief_list_get(self._ptr(), index, ctypes.byref(out)), "fief_list_get")
        element: T = self._python(from_value(out, self._spec.py_type), None, index)
        return element

    def __iter__(self) -> Iterator[T]:
        i = 0
        while True:
            n = len(self)
            if i >= n:
                return
            block = self._range(i, min(_BATCH, n - i))
            yield from block
            i += len(block)

    def __reversed__(self) -> Iterator[T]:
        end = len(self)
        while end > 0:
            start = max(0, end - _BATCH)
            yield from reversed(self._range(start, end - start))
            end = start

    def _find(self, value: Any) -> int | None:
        """The position of the first element equal to `value` (fief_list_index_of),
        or None.  A value that cannot be an element is never found."""
        if isinstance(value, Object) and not value.is_managed:
            return None
        if self._is_mixed:
            try:  # a nested list or dict, or a value no element can be, is never found
                value = prepare(value, self._binding.schema, self._where(), nested=False)
            except errors.FiefError:
                return None
        t = self._spec.fief_type
        if t in (L.TYPE_DOUBLE, L.TYPE_FLOAT) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # 1 == 1.0, as in Python lists
        keep = Keep()
        v = L.fief_value_t()
        try:
            self._encode(value, v, keep)
        except (errors.FiefError, TypeError, ValueError, OverflowError):
            return None
        index = ctypes.c_size_t()
        found = ctypes.c_bool()
        self._lib.check(self._lib.fief_list_index_of(self._ptr(), v, ctypes.byref(index), ctypes.byref(found)),
                        "fief_list_index_of")
        return int(index.value) if found.value else None

    def __contains__(self, value: object) -> bool:
        return self._find(value) is not None

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of the first element equal to `value` (ValueError if
        there is none), found by the library (fief_list_index_of)."""
        found = self._find(value)
        if found is None:
            raise ValueError(f"{value!r} is not in the list")
        if start == 0 and stop is None:
            return found
        n = len(self)
        begin, end, _ = slice(start, stop).indices(n)
        if begin <= found < end:
            return found
        for i, element in enumerate(self[begin:end]):
            if self._equal(element, value):
                return begin + i
        raise ValueError(f"{value!r} is not in the list")

    def count(self, value: Any) -> int:
        """How many elements equal `value`."""
        if self._find(value) is None:
            return 0
        return sum(1 for element in self if self._equal(element, value))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, List):
            return list(self) == list(other)
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a Python list

    def __add__(self, other: Iterable[Any]) -> list[Any]:
        return list(self) + list(other)

    def __radd__(self, other: Iterable[Any]) -> list[Any]:
        return list(other) + list(self)

    def __repr__(self) -> str:
        try:
            n = len(self)
            items = self._range(0, min(n, _REPR_LIMIT))
        except errors.FiefError as exc:
            return f"<fief.List {self._where()} ({exc.__class__.__name__})>"
        body = ", ".join(repr(v) for v in items)
        if n > _REPR_LIMIT:
            body += f", ... ({n - _REPR_LIMIT} more)"
        return f"fief.List([{body}])"

    # -- writing -----------------------------------------------------------------

    @overload
    def __setitem__(self, index: int, value: T) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[T]) -> None: ...

    def __setitem__(self, index: int | slice, value: Any) -> None:
        if isinstance(index, slice):
            raise TypeError("a fief.List takes one element at a time: lst[i] = v, or assign a "
                            "whole list to the attribute (obj.prop = [...]); slices can be deleted")
        index = self._index(index)
        library = self._lib
        if self._is_mixed:
            self._set_mixed(index, value)
            return
        if self._is_embedded:
            child = self._in_place(value)
            if child is not None:
                n = len(self)
                if index >= n:
                    raise errors.IndexOutOfBoundsError(
                        f"index {index} is out of range for a list of {n} elements")
                self._create_embedded(index, child)
                library.check(library.fief_list_remove(self._ptr(), index + 1), "fief_list_remove")
                return
        elif self._is_links:
            value = self._prepare_links([value])[0]
        keep = Keep()
        v = L.fief_value_t()
        self._encode(value, v, keep)
        library.check(library.fief_list_set(self._ptr(), index, v), "fief_list_set")

    def __delitem__(self, index: int | slice) -> None:
        library = self._lib
        if isinstance(index, slice):
            n = len(self)
            positions = range(*index.indices(n))
            if len(positions) == n and n:
                self.clear()
                return
            for i in sorted(positions, reverse=True):
                library.check(library.fief_list_remove(self._ptr(), i), "fief_list_remove")
            return
        index = self._index(index)
        library.check(library.fief_list_remove(self._ptr(), index), "fief_list_remove")

    def insert(self, index: int, value: Any) -> None:
        """Insert `value` before position `index` (as list.insert: past the
        end appends, negative counts from the end)."""
        n = len(self)
        try:
            index = index.__index__()
        except AttributeError:
            raise TypeError(f"list indices are integers, not {type(index).__name__}") from None
        if index < 0:
            index = max(0, index + n)
        index = min(index, n)
        if self._is_embedded:
            self._insert_embedded_many(index, [value])
            return
        if self._is_links:
            value = self._prepare_links([value])[0]
        value = self._prepare(value, index)
        keep = Keep()
        v = L.fief_value_t()
        self._encode(value, v, keep)
        self._lib.check(self._lib.fief_list_insert(self._ptr(), index, v), "fief_list_insert")
        if is_nested(value):
            self._fill_or_take_back(index, [value])

    def append(self, value: Any) -> None:
        """Add `value` at the end."""
        self.extend([value])

    def extend(self, values: Iterable[Any]) -> None:
        """Add every element of `values` at the end, all or nothing: one
        fief_list_append call for the whole batch (in a list of embedded
        objects, one object created in place after another, taken back if
        one fails)."""
        items = list(values)  # a snapshot: lst.extend(lst) doubles the list
        if not items:
            return
        if self._is_embedded:
            self._insert_embedded_many(len(self), items)
            return
        if self._is_links:
            items = self._prepare_links(items)
        if self._is_mixed:
            start = len(self)
            items = [self._prepare(item, start + i) for i, item in enumerate(items)]
        keep = Keep()
        array = self._values_array(items, keep)
        self._lib.check(self._lib.fief_list_append(self._ptr(), array, len(items)), "fief_list_append")
        if self._is_mixed:
            self._fill_or_take_back(len(self) - len(items), items)

    def pop(self, index: int = -1) -> T:
        """Remove the element at `index` (the last by default) and return it.
        A removed embedded object is deleted: pop returns an unmanaged copy."""
        n = len(self)
        if not n:
            raise errors.IndexOutOfBoundsError("pop from an empty list")
        index = self._index(index, n)
        value = self[index]
        if self._is_embedded:
            value = unmanaged_copy(value)
        elif self._is_mixed:
            value = plain(value)  # a nested list or dict goes with its element: a copy of it
        self._lib.check(self._lib.fief_list_remove(self._ptr(), index), "fief_list_remove")
        return value

    def remove(self, value: Any) -> None:
        """Remove the first element equal to `value` (ValueError if none)."""
        found = self._find(value)
        if found is None:
            raise ValueError(f"{value!r} is not in the list")
        self._lib.check(self._lib.fief_list_remove(self._ptr(), found), "fief_list_remove")

    def clear(self) -> None:
        """Remove every element (linked objects stay; embedded ones are deleted)."""
        self._lib.check(self._lib.fief_list_clear(self._ptr()), "fief_list_clear")

    def move(self, from_index: int, to_index: int) -> None:
        """Move the element at `from_index` to `to_index`; the elements
        between shift by one (fief_list_move)."""
        n = len(self)
        self._lib.check(self._lib.fief_list_move(self._ptr(), self._index(from_index, n, what="from"),
                                                 self._index(to_index, n, what="to")), "fief_list_move")

    def swap(self, i: int, j: int) -> None:
        """Swap the elements at `i` and `j` (fief_list_swap)."""
        n = len(self)
        self._lib.check(self._lib.fief_list_swap(self._ptr(), self._index(i, n), self._index(j, n)),
                        "fief_list_swap")

    def reverse(self) -> None:
        """Reverse the list in place (by swaps: works for every kind of list)."""
        n = len(self)
        for i in range(n // 2):
            self.swap(i, n - 1 - i)

    def delete_all(self) -> None:
        """Empty a list of objects and delete those objects from the realm
        (each once, however often it was listed; fief_list_delete_all_objects), as
        `realm.delete(lst)` does.  A list of values raises InvalidArgumentError."""
        self._lib.check(self._lib.fief_list_delete_all_objects(self._ptr()), "fief_list_delete_all_objects")

    def _replace(self, value: Any) -> None:
        """Make the list hold the elements of `value` (assigning a whole list
        to the attribute).  All or nothing."""
        if isinstance(value, List) and value._same_list(self):
            return  # lst += [...] assigns the list to itself
        items = list(list_elements(value, self._spec))
        library = self._lib
        if self._is_mixed:
            self._replace_mixed(items)
            return
        if self._is_embedded:
            # New objects first, then the old ones go: a failure leaves the old ones.
            old = len(self)
            self._insert_embedded_many(old, items)
            for _ in range(old):
                library.check(library.fief_list_remove(self._ptr(), 0), "fief_list_remove")
            return
        if self._is_links:
            items = self._prepare_links(items)
        keep = Keep()
        array = self._values_array(items, keep)
        old = len(self)
        if not old:
            if items:
                library.check(library.fief_list_append(self._ptr(), array, len(items)), "fief_list_append")
            return
        previous = self._raw_range(0, old)  # copied out: they outlive the clear
        library.check(library.fief_list_clear(self._ptr()), "fief_list_clear")
        if items and not library.fief_list_append(self._ptr(), array, len(items)):
            error = library.last_error("fief_list_append")
            keep_old = Keep()
            library.fief_list_append(self._ptr(), self._values_array(previous, keep_old), old)
            raise error

    # -- mixed values ------------------------------------------------------------

    def _fill_nested(self, start: int, items: list[Any]) -> None:
        """Fill the nested collections just stored for the prepared `items`
        at positions start, start + 1, ..."""
        for i, item in enumerate(items):
            if is_nested(item):
                fill(self._nested_at(start + i, isinstance(item, list)), item)

    def _fill_or_take_back(self, start: int, items: list[Any]) -> None:
        """Fill the nested collections of `items`, just inserted at `start`;
        if that fails, take the inserted elements out again."""
        try:
            self._fill_nested(start, items)
        except BaseException:
            for i in range(start + len(items) - 1, start - 1, -1):
                self._lib.fief_list_remove(self._ptr(), i)
            raise

    def _append_filled(self, items: list[Any]) -> None:
        """Append prepared mixed values, nested collections filled."""
        if not items:
            return
        self._fill_nested(self._append_values(items), items)

    def _append_values(self, items: list[Any]) -> int:
        """Append prepared mixed values (nested collections stored empty);
        the position of the first."""
        start = len(self)
        keep = Keep()
        self._lib.check(self._lib.fief_list_append(self._ptr(), self._values_array(items, keep), len(items)),
                        "fief_list_append")
        return start

    def _write_at(self, index: int, value: Any) -> None:
        keep = Keep()
        v = L.fief_value_t()
        self._encode(value, v, keep)
        self._lib.check(self._lib.fief_list_set(self._ptr(), index, v), "fief_list_set")

    def _set_mixed(self, index: int, value: Any) -> None:
        """lst[index] = value in a list of mixed values: a list or dict
        becomes a new nested collection (replacing the element, and any
        collection nested in it); if filling it fails, the element is
        written back (a nested one as a copy)."""
        value = self._prepare(value, index)
        if not is_nested(value):
            self._write_at(index, value)
            return
        out = L.fief_value_t()
        self._lib.check(self._lib.fief_list_get(self._ptr(), index, ctypes.byref(out)), "fief_list_get")
        previous = self._snapshot_value(from_value(out, self._spec.py_type), index)
        self._write_at(index, value)
        try:
            fill(self._nested_at(index, isinstance(value, list)), value)
        except BaseException:
            try:
                self._write_at(index, previous)
                if is_nested(previous):
                    fill(self._nested_at(index, isinstance(previous, list)), previous)
            except errors.FiefError:  # pragma: no cover - the original error matters more
                pass
            raise

    def _replace_mixed(self, items: list[Any]) -> None:
        """Assign a whole list of mixed values, all or nothing: a failure
        puts back the previous elements (nested ones as copies)."""
        items = [self._prepare(item, i) for i, item in enumerate(items)]
        library = self._lib
        old = len(self)
        previous = [self._snapshot_value(raw, i) for i, raw in enumerate(self._raw_range(0, old))]
        library.check(library.fief_list_clear(self._ptr()), "fief_list_clear")
        try:
            self._append_filled(items)
        except BaseException:
            try:
                library.fief_list_clear(self._ptr())
                self._append_filled(previous)
            except errors.FiefError:  # pragma: no cover - the original error matters more
                pass
            raise

    # -- state -----------------------------------------------------------------

    def _same_list(self, other: "List[Any]") -> bool:
        return self._same(other)

    def freeze(self) -> "List[T]":
        """The list in a frozen snapshot of its realm's current version: it
        never changes, and can be read from any thread."""
        return super().freeze()

    def thaw(self) -> "List[T] | None":
        """The list in a live realm at the newest version (None if its owner
        was deleted since)."""
        return super().thaw()

    def results(self) -> "Results[Any] | ValueResults[Any]":
        """The list as live results, in list order: for a list of objects a
        fief.Results (filter and sort by their properties), for a list of
        values a fief.ValueResults (filter with predicates over ``self``,
        sort by value, aggregate)."""
        return super().results()
