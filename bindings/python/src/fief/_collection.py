"""What live lists, sets and dicts share: the owner, the property, the handle,
reading elements as model objects, preparing objects to be linked, in-place
creation of embedded objects, mixed values and the lists and dicts nested in
them, freezing, results."""

from __future__ import annotations

import ctypes
import typing
from typing import TYPE_CHECKING, Any, TypeVar

from . import _lib as L
from . import errors
from ._handle import Handle
from ._mixed import is_nested, plain, prepare
from ._values import Keep, Link, Nested, from_value, to_value
from .model import Object, PropertySpec, nested_spec

if TYPE_CHECKING:  # pragma: no cover
    from .realm import ClassBinding, Realm, Results, ValueResults

# Elements read per batch (fief_*_get_range, fief_map_get_entries) while iterating.
BATCH = 512
# Elements shown by repr() before "...".
REPR_LIMIT = 100


_C = TypeVar("_C", bound="LiveCollection")

class LiveCollection:
    """Base of `fief.List`, `fief.Set` and `fief.Dict`: one collection
    property of one managed object, through a fief_list_t, fief_set_t or
    fief_map_t handle."""

    __slots__ = ("_binding", "_owner", "_spec", "_handle", "_target", "_realm_ref", "__weakref__")

    # The handle's kind, as the C names say it ("list", "set", "map").
    _kind = ""

    def __init__(self, binding: "ClassBinding", owner: Handle, spec: PropertySpec, handle: Handle):
        self._binding = binding          # the owner's class in its realm
        self._owner = owner              # the owner object's handle (shared with the model object)
        self._spec = spec
        self._handle = handle
        self._target: ClassBinding | None = None  # the ClassBinding of the linked class, once needed
        self._realm_ref: Realm | None = None  # the Realm wrapper elements are read through, once needed

    # -- notifications ---------------------------------------------------------

    def observe(self, callback: Any, key_paths: "list[str] | None" = None) -> Any:
        """Call ``callback(changes, collection)`` (RealmSwift's
        ``List.observe``, ``MutableSet.observe``, ``Map.observe``): first
        with ``changes.is_initial`` at the next delivery, then whenever a
        commit changed the collection.  Lists and sets get a
        ``CollectionChanges`` (positions: ``deletions`` before,
        ``insertions`` and ``modifications_new`` after, ``moves`` for
        lists), dicts a ``MapChanges`` (keys).  ``key_paths`` (collections
        of objects only) limit what counts as a modification of an element
        object; None: every property, and those of the objects its links
        reach, to a depth of 4.  When the owner is deleted: one last call
        with every old element deleted and ``is_root_deleted``.  Deliveries
        run in the realm's ``process_notifications()`` (see
        ``fief.notifications.watch``).  Raises FrozenRealmError on a frozen
        collection, AlreadyInTransactionError inside a write,
        NoSuchPropertyError for a key path naming no property,
        InvalidatedObjectError when the owner was deleted.  Keep the token:
        closing it (or losing it) stops the callback."""
        from . import notifications
        return notifications.add_collection_notification_callback(self, callback, key_paths)

    def changes(self, key_paths: "list[str] | None" = None) -> Any:
        """The change sets as an asynchronous iterator on the running asyncio
        loop (``async for change in obj.dogs.changes():``), as
        ``Results.changes``."""
        from . import notifications
        return notifications.collection_changes(self, key_paths)

    # -- plumbing -------------------------------------------------------------

    @property
    def _lib(self) -> L.Library:
        return self._binding.schema.library

    def _ptr(self) -> int:
        return self._handle.ptr

    def _call(self, name: str, *args: Any) -> None:
        """Call fief_<kind>_<name>(handle, *args); raise on failure."""
        library = self._lib
        fn = f"fief_{self._kind}_{name}"
        library.check(getattr(library, fn)(self._handle.ptr, *args), fn)

    @property
    def _is_links(self) -> bool:
        return self._spec.fief_type == L.TYPE_LINK

    @property
    def _is_mixed(self) -> bool:
        return self._spec.fief_type == L.TYPE_MIXED

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

    def _python(self, raw: Any, realm: "Realm | None", at: Any = None) -> Any:
        """An element as the user sees it (links as model objects; in a
        mixed collection a link to a class without a model class as a
        fief.Link, and the list or dict nested at position `at` as a live
        fief.List or fief.Dict)."""
        if isinstance(raw, Link):
            if realm is None:
                realm = self._realm()
            if self._is_mixed:
                return self._binding.schema.link_value(raw, realm)
            library = self._lib
            ptr = library.fief_object_get(realm._handle.ptr, raw.class_key, raw.object_key)
            return self._target_binding().wrap(library.check_handle(ptr, "fief_object_get"))
        if isinstance(raw, Nested):
            return self._nested_at(at, raw.is_list)
        return raw

    def _pythons(self, raw: list[Any], positions: Any = None) -> list[Any]:
        """Elements read in a batch, as the user sees them; `positions` are
        their indices or keys (needed for nested collections)."""
        if not (self._is_links or self._is_mixed) or not raw:
            return raw
        realm = self._realm()
        if positions is None:
            return [self._python(v, realm) for v in raw]
        return [self._python(v, realm, at) for v, at in zip(raw, positions)]

    def _encode(self, value: Any, out: L.fief_value_t, keep: Keep) -> None:
        to_value(value, out, keep, self._spec.fief_type)

    # -- mixed values and nested collections -------------------------------------

    def _prepare(self, value: Any, at: Any = None) -> Any:
        """`value` checked as an element (`at`: its index or key, for the
        message) of a mixed collection: see fief._mixed.prepare.  Values of
        other collections are returned as they are."""
        if not self._is_mixed:
            return value
        where = self._where() if at is None else f"{self._where()}[{at!r}]"
        return prepare(value, self._binding.schema, where, nested=self._kind != "set")

    def _nested_at(self, at: Any, is_list: bool) -> "LiveCollection":
        """The live list or dict nested at index or key `at`
        (fief_list_get_list/_get_map, fief_map_get_list/_get_map)."""
        raise NotImplementedError  # pragma: no cover - lists and dicts implement it

    def _wrap_nested(self, ptr: int | None, fn: str, at: Any, is_list: bool) -> "LiveCollection":
        return wrap_nested(self._binding, self._owner, nested_spec(self._spec, at, _nested_kind(is_list)),
                           self._lib.check_handle(ptr, fn), is_list)

    def _holds_slot(self, value: Any, at: Any) -> bool:
        """Whether `value` is the live collection nested at key `at` of this
        dict, so writing it there changes nothing (``d[k] |= {...}``).
        Only for paths without a list index: an index may shift under a
        handle, so a collection written back into a list is copied."""
        spec = nested_spec(self._spec, at, L.COLLECTION_LIST)
        return holds_slot(value, self._binding, self._owner, spec if spec.stable else None)

    def _snapshot_value(self, raw: Any, at: Any) -> Any:
        """What restores the value `raw` read at `at`: a plain copy of a
        nested collection (written back, it is made again), else `raw`."""
        if isinstance(raw, Nested):
            return plain(self._nested_at(at, raw.is_list))
        return raw

    def _where(self) -> str:
        return f"{self._binding.info.name}.{self._spec.name}"

    def _check_link_targets(self, values: list[Any]) -> None:
        """Refuse, before anything is added or written, the model objects a
        collection of links cannot hold: objects of another class, embedded
        objects given as links, objects of another realm file."""
        target = self._spec.link_target
        for value in values:
            if not isinstance(value, Object):
                continue
            if type(value).__fief_name__ != target:
                raise errors.TypeMismatchError(
                    f"{self._where()} links to {target!r} objects, not to a {type(value).__fief_name__}")
            if value.is_managed:
                self._realm()._linkable(value)  # another file: LogicError

    def _prepare_links(self, values: list[Any]) -> list[Any]:
        """Elements of a collection of links made ready to be linked: dicts
        become new objects of the target class, and unmanaged objects are
        added (once each; their own links too).  Unmanaged objects of
        another class are refused before anything is added."""
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

    @staticmethod
    def _needs_adding(value: Any) -> bool:
        """Whether linking `value` first adds a new object to the realm."""
        return isinstance(value, dict) or (isinstance(value, Object) and not value.is_managed)

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

    # -- state -----------------------------------------------------------------

    def _identity(self) -> tuple[Any, ...]:
        owner = self._binding.object_key(self._owner)
        return (self._binding.schema.path, self._binding.class_key, owner, self._spec.name)

    @property
    def is_nested(self) -> bool:
        """Whether this is a list or dict nested in a mixed value (rather
        than a collection property)."""
        return self._spec.is_nested

    def _same(self, other: "LiveCollection") -> bool:
        """Whether both name the same collection of the same live file (or snapshot)."""
        if type(self) is not type(other):
            return False
        if self.is_frozen != other.is_frozen or (self.is_frozen and self._binding.schema is not other._binding.schema):
            return False
        try:
            return self._identity() == other._identity()
        except errors.FiefError:
            return False

    def _same_realm(self, other: Any) -> bool:
        """Whether `other` is a collection of the same kind, element type and
        realm handle (so the library can combine both in one call)."""
        return (type(other) is type(self) and other._binding.schema is self._binding.schema
                and other._spec.fief_type == self._spec.fief_type
                and other._spec.link_target == self._spec.link_target)

    @property
    def is_valid(self) -> bool:
        """False once the owner was deleted (or the realm closed)."""
        if self._handle.released:
            return False
        library = L.loaded()
        return bool(library and getattr(library, f"fief_{self._kind}_is_valid")(self._handle.ptr))

    @property
    def realm(self) -> "Realm":
        return self._realm()

    @property
    def is_frozen(self) -> bool:
        return self._binding.schema.frozen

    def freeze(self: _C) -> _C:
        """The collection in a frozen snapshot of its realm's current
        version: it never changes, and can be read from any thread."""
        realm = self._realm()
        if realm.is_frozen:
            return self
        return typing.cast(_C, realm.freeze()._resolve_collection(self))

    def thaw(self: _C) -> _C | None:
        """The collection in a live realm at the newest version (None if its
        owner was deleted since)."""
        realm = self._realm()
        if not realm.is_frozen:
            return self
        return typing.cast("_C | None", realm.thaw()._resolve_collection(self))

    def results(self) -> "Results[Any]":
        """The collection as live fief.Results, in its order: of objects
        (filter and sort by their properties) or of values (filter with
        predicates over ``self``, sort by value, aggregate)."""
        from .realm import Results
        library = self._lib
        fn = f"fief_{self._kind}_to_results"
        ptr = getattr(library, fn)(self._handle.ptr)
        handle = Handle(library.check_handle(ptr, fn), "results")
        if not self._is_links:
            return Results(self._binding, handle, self._spec, holds_objects=False)
        return Results(self._target_binding(), handle, holds_objects=True)

    def filter(self, predicate: str, *args: Any) -> "Results[Any]":
        """The elements that match `predicate` (Realm's query language), in
        the collection's order, live: objects by their properties
        (``"age > 2"``), values as ``self`` (``"self > 2"``)."""
        return self.results().filter(predicate, *args)

    where = filter

    def set_all(self, attr: Any, value: Any) -> None:
        """Set property `attr` of every object of a list or set of objects
        to `value` in one call (each object once, however often it is
        listed; see fief.Results.set_all).  A collection of values has no
        properties: TypeError."""
        if not self._is_links:
            raise TypeError(f"a {self._kind_word} of values has no properties to set: assign its elements instead")
        results = self.results()
        try:
            results.set_all(attr, value)
        finally:
            results.release()

    def _aggregate(self, attr: Any, op: int) -> Any:
        library = self._lib
        if self._is_links:
            if attr is None:
                raise TypeError(f"aggregates of a {self._kind_word} of objects need a property name")
            binding = self._target_binding()
            name = attr.attr if isinstance(attr, PropertySpec) else attr
            spec = next((s for s in binding.cls.__fief_properties__ if s.attr == name), None)
            if spec is None:
                raise errors.NoSuchPropertyError(f"{binding.cls.__name__} has no property {name!r}")
            key = binding.key_of(spec)
        else:
            if attr is not None:
                raise TypeError(f"a {self._kind_word} of values aggregates its values: give no property name")
            spec, key = self._spec, 0
        out = L.fief_value_t()
        fn = f"fief_{self._kind}_aggregate"
        library.check(getattr(library, fn)(self._ptr(), key, op, ctypes.byref(out)), fn)
        return from_value(out, spec.py_type)

    def min(self, attr: Any = None) -> Any:
        """The smallest value: of the elements of a collection of values, or
        of property `attr` of its objects (None if there is none; None
        values are skipped).  Computed by the library where the values are
        stored (fief_list_aggregate, fief_set_aggregate, fief_map_aggregate)."""
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

    @property
    def _kind_word(self) -> str:
        return {"map": "dict"}.get(self._kind, self._kind)

    def release(self) -> None:
        """Give the collection's handle back now."""
        self._handle.release()


def _nested_kind(is_list: bool) -> int:
    return L.COLLECTION_LIST if is_list else L.COLLECTION_MAP


def wrap_nested(binding: "ClassBinding", owner: Handle, spec: PropertySpec, ptr: int, is_list: bool) -> LiveCollection:
    """A live fief.List or fief.Dict over the nested collection handle `ptr`."""
    from .dicts import Dict
    from .lists import List
    if is_list:
        return List(binding, owner, spec, Handle(ptr, "list"))
    return Dict(binding, owner, spec, Handle(ptr, "map"))


def holds_slot(value: Any, binding: "ClassBinding", owner: Handle, spec: PropertySpec | None) -> bool:
    """Whether `value` is the live nested collection that `spec` names in
    object `owner` (`spec` None: no slot can be told apart)."""
    if spec is None or not isinstance(value, LiveCollection) or not value._spec.is_nested:
        return False
    if value._spec.name != spec.name or value._binding.schema is not binding.schema or not value.is_valid:
        return False
    try:
        return value._identity() == (binding.schema.path, binding.class_key, binding.object_key(owner), spec.name)
    except errors.FiefError:
        return False


def fill(coll: LiveCollection, value: list[Any] | dict[Any, Any]) -> None:
    """Write the prepared elements of `value` into `coll`, a nested
    collection just made (empty), and the collections nested in them, to
    any depth: a worklist of its own, not recursion."""
    pending: list[tuple[LiveCollection, list[Any] | dict[Any, Any]]] = [(coll, value)]
    while pending:
        target, items = pending.pop()
        if isinstance(items, list):
            if not items:
                continue
            start = target._append_values(items)  # type: ignore[attr-defined]
            pending.extend((target._nested_at(start + i, isinstance(item, list)), item)
                           for i, item in enumerate(items) if is_nested(item))
        else:
            for key, item in items.items():
                target._set_value(key, item)  # type: ignore[attr-defined]
                if is_nested(item):
                    pending.append((target._nested_at(key, isinstance(item, list)), item))


def unadopt(child: Object, values: dict[Any, Any]) -> None:
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
    objects and collections within copied too)."""
    if not isinstance(obj, Object) or not obj.is_managed:
        return obj
    values = {}
    for spec in type(obj).__fief_properties__:
        value = getattr(obj, spec.attr)
        if spec.is_mixed:
            value = set(value) if spec.is_set else plain(value)
        elif spec.is_list:
            value = [unmanaged_copy(v) if _embedded(v) else v for v in value]
        elif spec.is_set:
            value = set(value)
        elif spec.is_dict:
            value = {k: unmanaged_copy(v) if _embedded(v) else v for k, v in value.items()}
        elif _embedded(value):
            value = unmanaged_copy(value)
        values[spec.attr] = value
    return type(obj)(**values)


def _embedded(value: Any) -> bool:
    return isinstance(value, Object) and value.__fief_embedded__
