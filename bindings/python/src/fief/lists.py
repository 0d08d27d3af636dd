"""Live lists: the value of a managed object's list property (fief_list_t)."""

from __future__ import annotations

import ctypes
from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Any, Iterable, Iterator, TypeVar

from . import _lib as L
from . import errors
from ._handle import Handle
from ._values import Keep, Link, from_value, to_value
from .model import Object, PropertySpec, list_elements

if TYPE_CHECKING:  # pragma: no cover
    from .realm import ClassBinding, Realm, Results, ValueResults

T = TypeVar("T")

# Elements read per fief_list_get_range call while iterating.
_BATCH = 512
# Elements shown by repr() before "...".
_REPR_LIMIT = 100


class List(MutableSequence[T]):
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

    Every failing library call raises the matching `fief.FiefError` (an
    index out of range is an `IndexOutOfBoundsError`, also an `IndexError`;
    a value of the wrong type a `TypeMismatchError`, also a `TypeError`),
    and leaves the list as it was.
    """

    __slots__ = ("_binding", "_owner", "_spec", "_handle", "_target", "_realm_ref", "__weakref__")

    def __init__(self, binding: "ClassBinding", owner: Handle, spec: PropertySpec, handle: Handle):
        self._binding = binding          # the owner's class in its realm
        self._owner = owner              # the owner object's handle (shared with the model object)
        self._spec = spec
        self._handle = handle
        self._target = None              # the ClassBinding of the linked class, once needed
        self._realm_ref = None           # the Realm wrapper elements are read through, once needed

    # -- plumbing -------------------------------------------------------------

    @property
    def _lib(self) -> L.Library:
        return self._binding.schema.library

    def _ptr(self) -> int:
        return self._handle.ptr

    @property
    def _is_links(self) -> bool:
        return self._spec.fief_type == L.TYPE_LINK

    @property
    def _is_embedded(self) -> bool:
        if not self._is_links:
            return False
        info = self._binding.schema.classes.get(self._spec.link_target or "")
        return bool(info is not None and info.flags & L.CLASS_EMBEDDED)

    def _target_binding(self) -> "ClassBinding":
        if self._target is None:
            self._target = self._binding.schema.bind(self._spec.link_target or "")
        return self._target

    def _realm(self) -> "Realm":
        # Kept: without a Realm wrapper of its own (a frozen object's realm is
        # often one), each read would make and drop one.
        realm = self._realm_ref
        if realm is None or realm._handle.released:
            realm = self._realm_ref = self._binding.schema.realm_of_object(self._owner)
        return realm

    def _python(self, raw: Any, realm: "Realm | None") -> Any:
        """An element as the user sees it (links as model objects)."""
        if isinstance(raw, Link):
            if realm is None:
                realm = self._realm()
            library = self._lib
            ptr = library.fief_object_get(realm._handle.ptr, raw.class_key, raw.object_key)
            return self._target_binding().wrap(library.check_handle(ptr, "fief_object_get"))
        return raw

    def _raw_range(self, start: int, count: int) -> list:
        """Elements start ... start + count - 1 as Python values (links as
        fief.Link), in one fief_list_get_range call."""
        if count <= 0:
            return []
        out = (L.fief_value_t * count)()
        library = self._lib
        library.check(library.fief_list_get_range(self._ptr(), start, count, out), "fief_list_get_range")
        py_type = self._spec.py_type
        return [from_value(out[i], py_type) for i in range(count)]

    def _range(self, start: int, count: int) -> list:
        raw = self._raw_range(start, count)
        if not self._is_links or not raw:
            return raw
        realm = self._realm()
        return [self._python(v, realm) for v in raw]

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
        return index

    def _encode(self, value: Any, out: L.fief_value_t, keep: Keep) -> None:
        to_value(value, out, keep, self._spec.fief_type)

    def _prepare_links(self, values: list) -> list:
        """Elements of a list of links made ready to be linked: dicts become
        new objects of the target class, and unmanaged objects are added
        (once each; their own links too).  Unmanaged objects of another
        class are refused before anything is added."""
        target = self._spec.link_target
        for value in values:
            if isinstance(value, Object) and not value.is_managed and type(value).__fief_name__ != target:
                raise errors.TypeMismatchError(
                    f"{self._where()} links to {target!r} objects, not to a {type(value).__fief_name__}")
        prepared = []
        realm = None
        for value in values:
            if isinstance(value, dict):
                value = self._target_binding().cls(**value)
            if isinstance(value, Object):
                realm = realm or self._realm()
                realm._linkable(value)
            prepared.append(value)
        return prepared

    def _values_array(self, values: list, keep: Keep):
        n = len(values)
        array = (L.fief_value_t * max(n, 1))()
        for i, value in enumerate(values):
            self._encode(value, array[i], keep)
        return array

    def _where(self) -> str:
        return f"{self._binding.info.name}.{self._spec.name}"

    # -- embedded elements ------------------------------------------------------

    def _in_place(self, value: Any) -> Object | None:
        """The unmanaged embedded object to create in place for `value` (a
        dict or an unmanaged embedded object), or None when `value` is
        something else (then the library judges it, and refuses it)."""
        if isinstance(value, dict):
            return self._target_binding().cls(**value)
        if isinstance(value, Object) and not value.is_managed:
            if type(value).__fief_name__ != self._spec.link_target:
                raise errors.TypeMismatchError(
                    f"{self._where()} holds embedded {self._spec.link_target!r} objects, "
                    f"not a {type(value).__fief_name__}")
            return value
        return None

    def _refuse(self, value: Any, index: int) -> None:
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

    def _insert_embedded_many(self, index: int, values: list) -> None:
        children = []
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
        self._lib.check(self._lib.fief_list_size(self._ptr(), ctypes.byref(out)), "fief_list_size")
        return int(out.value)

    def __getitem__(self, index):
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
        return self._python(from_value(out, self._spec.py_type), None)

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
        """The position of the first element equal to `value` (fief_list_find),
        or None.  A value that cannot be an element is never found."""
        if isinstance(value, Object) and not value.is_managed:
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
        self._lib.check(self._lib.fief_list_find(self._ptr(), v, ctypes.byref(index), ctypes.byref(found)),
                        "fief_list_find")
        return int(index.value) if found.value else None

    def __contains__(self, value: object) -> bool:
        return self._find(value) is not None

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of the first element equal to `value` (ValueError if
        there is none), found by the library (fief_list_find)."""
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
            if element == value:
                return begin + i
        raise ValueError(f"{value!r} is not in the list")

    def count(self, value: Any) -> int:
        """How many elements equal `value`."""
        if self._find(value) is None:
            return 0
        return sum(1 for element in self if element == value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, List):
            return list(self) == list(other)
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a Python list

    def __add__(self, other: Iterable) -> list:
        return list(self) + list(other)

    def __radd__(self, other: Iterable) -> list:
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

    def __setitem__(self, index, value) -> None:
        if isinstance(index, slice):
            raise TypeError("a fief.List takes one element at a time: lst[i] = v, or assign a "
                            "whole list to the attribute (obj.prop = [...]); slices can be deleted")
        index = self._index(index)
        library = self._lib
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

    def __delitem__(self, index) -> None:
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
        keep = Keep()
        v = L.fief_value_t()
        self._encode(value, v, keep)
        self._lib.check(self._lib.fief_list_insert(self._ptr(), index, v), "fief_list_insert")

    def append(self, value: Any) -> None:
        """Add `value` at the end."""
        self.extend([value])

    def extend(self, values: Iterable) -> None:
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
        keep = Keep()
        array = self._values_array(items, keep)
        self._lib.check(self._lib.fief_list_append(self._ptr(), array, len(items)), "fief_list_append")

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
        (each once, however often it was listed; fief_list_remove_all), as
        `realm.delete(lst)` does.  A list of values raises InvalidArgumentError."""
        self._lib.check(self._lib.fief_list_remove_all(self._ptr()), "fief_list_remove_all")

    def _replace(self, value: Any) -> None:
        """Make the list hold the elements of `value` (assigning a whole list
        to the attribute).  All or nothing."""
        if isinstance(value, List) and value._same_list(self):
            return  # lst += [...] assigns the list to itself
        items = list(list_elements(value, self._spec))
        library = self._lib
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

    # -- state -----------------------------------------------------------------

    def _identity(self):
        owner = self._binding.object_key(self._owner)
        return (self._binding.schema.path, self._binding.class_key, owner, self._spec.name)

    def _same_list(self, other: "List") -> bool:
        """Whether both name the same list of the same live file (or snapshot)."""
        if self.is_frozen != other.is_frozen or (self.is_frozen and self._binding.schema is not other._binding.schema):
            return False
        try:
            return self._identity() == other._identity()
        except errors.FiefError:
            return False

    @property
    def is_valid(self) -> bool:
        """False once the owner was deleted (or the realm closed)."""
        if self._handle.released:
            return False
        library = L.loaded()
        return bool(library and library.fief_list_is_valid(self._handle.ptr))

    @property
    def realm(self) -> "Realm":
        return self._realm()

    @property
    def is_frozen(self) -> bool:
        return self._binding.schema.frozen

    def freeze(self) -> "List[T]":
        """The list in a frozen snapshot of its realm's current version: it
        never changes, and can be read from any thread."""
        realm = self._realm()
        if realm.is_frozen:
            return self
        return realm.freeze()._resolve_list(self)

    def thaw(self) -> "List[T] | None":
        """The list in a live realm at the newest version (None if its owner
        was deleted since)."""
        realm = self._realm()
        if not realm.is_frozen:
            return self
        return realm.thaw()._resolve_list(self)

    def results(self) -> "Results[T] | ValueResults[T]":
        """The list as live results, in list order: for a list of objects a
        fief.Results (filter and sort by their properties), for a list of
        values a fief.ValueResults (filter with predicates over ``self``,
        sort by value, aggregate)."""
        from .realm import Results, ValueResults
        library = self._binding.schema.library
        ptr = library.fief_list_to_results(self._handle.ptr)
        handle = Handle(library.check_handle(ptr, "fief_list_to_results"), "results")
        if not self._is_links:
            return ValueResults(library, self._spec, handle)
        return Results(self._target_binding(), handle)

    def filter(self, predicate: str, *args: Any) -> "Results[T] | ValueResults[T]":
        """The elements that match `predicate` (Realm's query language), in
        list order, live: objects by their properties (``"age > 2"``),
        values as ``self`` (``"self > 2"``, ``"self BEGINSWITH 'a'"``)."""
        return self.results().filter(predicate, *args)

    where = filter

    def _aggregate(self, attr: Any, op: int) -> Any:
        library = self._lib
        if self._is_links:
            if attr is None:
                raise TypeError("aggregates of a list of objects need a property name")
            binding = self._target_binding()
            name = attr.attr if isinstance(attr, PropertySpec) else attr
            spec = next((s for s in binding.cls.__fief_properties__ if s.attr == name), None)
            if spec is None:
                raise errors.NoSuchPropertyError(f"{binding.cls.__name__} has no property {name!r}")
            key = binding.key_of(spec)
        else:
            if attr is not None:
                raise TypeError("a list of values aggregates its values: give no property name")
            spec, key = self._spec, 0
        out = L.fief_value_t()
        library.check(library.fief_list_aggregate(self._ptr(), key, op, ctypes.byref(out)), "fief_list_aggregate")
        return from_value(out, spec.py_type)

    def min(self, attr: Any = None) -> Any:
        """The smallest value: of the elements of a list of values, or of
        property `attr` of the objects of a list of objects (None if there is
        none; None values are skipped).  Computed by the library where the
        list is stored (fief_list_aggregate)."""
        return self._aggregate(attr, L.AGGREGATE_MIN)

    def max(self, attr: Any = None) -> Any:
        """The largest value (see `min`)."""
        return self._aggregate(attr, L.AGGREGATE_MAX)

    def sum(self, attr: Any = None) -> Any:
        """The sum (0 for no values): an int for ints, a float for floats, a
        decimal for decimals."""
        return self._aggregate(attr, L.AGGREGATE_SUM)

    def average(self, attr: Any = None) -> Any:
        """The average (a float, or a decimal for decimals); None for no values."""
        return self._aggregate(attr, L.AGGREGATE_AVERAGE)

    def release(self) -> None:
        """Give the list handle back now."""
        self._handle.release()


def _unadopt(child: Object, values: dict) -> None:
    """Make a child whose in-place creation was taken back unmanaged again,
    with the values it was given."""
    state = child.__dict__
    handle = state.pop("_fief_handle", None)
    state.pop("_fief_binding", None)
    state["_fief_values"] = values
    if handle is not None:
        handle.release()


def unmanaged_copy(obj: Any) -> Any:
    """An unmanaged copy of a managed embedded object (its values; embedded
    objects and lists within copied too)."""
    if not isinstance(obj, Object) or not obj.is_managed:
        return obj
    values = {}
    for spec in type(obj).__fief_properties__:
        value = getattr(obj, spec.attr)
        if spec.is_list:
            value = [unmanaged_copy(v) if _embedded(v) else v for v in value]
        elif _embedded(value):
            value = unmanaged_copy(value)
        values[spec.attr] = value
    return type(obj)(**values)


def _embedded(value: Any) -> bool:
    return isinstance(value, Object) and value.__fief_embedded__
