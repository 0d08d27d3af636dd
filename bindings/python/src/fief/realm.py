"""Realm, Results, and the binding of model classes to a realm's schema."""

from __future__ import annotations

import ctypes
import os
import threading
import weakref
from dataclasses import dataclass, field
import typing
from types import TracebackType
from typing import Any, Callable, Generic, Literal, Iterable, Iterator, Sequence, TypeVar, overload

from . import _lib as L
from . import errors
from ._handle import Handle
from ._values import Keep, Link, Nested, from_value, make_query_args, make_value, to_value
from ._collection import LiveCollection, fill, holds_slot, wrap_nested
from ._mixed import is_nested, plain, prepare
from .dicts import Dict
from .lists import List
from .model import Object, PropertySpec, collection_elements, nested_spec
from .sets import Set

if typing.TYPE_CHECKING:
    from .notifications import CollectionChanges, NotificationToken, ResultsNotificationToken

T = TypeVar("T", bound=Object)

_POLICIES = {
    None: L.UPDATE_POLICY_ERROR,
    False: L.UPDATE_POLICY_ERROR,
    "error": L.UPDATE_POLICY_ERROR,
    True: L.UPDATE_POLICY_MODIFIED,
    "modified": L.UPDATE_POLICY_MODIFIED,
    "all": L.UPDATE_POLICY_ALL,
}


def _policy(update: object) -> int:
    try:
        return _POLICIES[update]  # type: ignore[index]
    except (KeyError, TypeError):
        raise errors.InvalidArgumentError(
            f"update must be None, 'error', 'modified' or 'all', not {update!r}") from None


# ---------------------------------------------------------------------------
# Schema description (read back from a realm)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PropertyInfo:
    """One property of a class as the realm stores it (`Realm.schema`).

    `type` is a FIEF_TYPE_* number (the element type of a list or set, the
    value type of a map); `collection_type` is FIEF_COLLECTION_NONE (0),
    FIEF_COLLECTION_LIST (1), FIEF_COLLECTION_SET (2), FIEF_COLLECTION_MAP (3)
    or FIEF_COLLECTION_LINKING_OBJECTS (4: computed, not stored: the objects
    of class `link_target` whose property `origin_property` links here; key 0)."""

    name: str
    type: int
    flags: int
    key: int
    link_target: str | None = None
    collection_type: int = L.COLLECTION_NONE
    origin_property: str | None = None

    @property
    def is_linking_objects(self) -> bool:
        """Whether the property is linking objects (declared with fief.Backlinks; never stored)."""
        return self.collection_type == L.COLLECTION_LINKING_OBJECTS

    @property
    def is_list(self) -> bool:
        """Whether the property is a list (of `type_name` elements)."""
        return self.collection_type == L.COLLECTION_LIST

    @property
    def is_set(self) -> bool:
        """Whether the property is a set (of `type_name` elements)."""
        return self.collection_type == L.COLLECTION_SET

    @property
    def is_map(self) -> bool:
        """Whether the property is a map (string keys to `type_name` values: a dict)."""
        return self.collection_type == L.COLLECTION_MAP

    is_dict = is_map

    @property
    def nullable(self) -> bool:
        return bool(self.flags & L.PROPERTY_NULLABLE)

    @property
    def primary_key(self) -> bool:
        return bool(self.flags & L.PROPERTY_PRIMARY_KEY)

    @property
    def indexed(self) -> bool:
        return bool(self.flags & L.PROPERTY_INDEXED)

    @property
    def full_text(self) -> bool:
        """Whether the property has a full-text index (``TEXT`` searches it)."""
        return bool(self.flags & L.PROPERTY_FULLTEXT_INDEXED)

    @property
    def type_name(self) -> str:
        return L.TYPE_NAMES.get(self.type, str(self.type))


@dataclass(frozen=True)
class ClassInfo:
    name: str
    key: int
    primary_key: str | None
    flags: int
    index: int
    properties: dict[str, PropertyInfo] = field(default_factory=dict)


def _decode(raw: bytes | None) -> str | None:
    return raw.decode("utf-8") if raw is not None else None


def read_schema(library: L.Library, schema_ptr: int) -> dict[str, ClassInfo]:
    count = ctypes.c_size_t()
    library.check(library.fief_schema_get_class_count(schema_ptr, ctypes.byref(count)))
    classes: dict[str, ClassInfo] = {}
    for i in range(count.value):
        info = L.fief_class_info_t()
        library.check(library.fief_schema_get_class(schema_ptr, i, ctypes.byref(info)))
        props: dict[str, PropertyInfo] = {}
        for j in range(info.num_properties):
            p = L.fief_property_info_t()
            library.check(library.fief_schema_get_property(schema_ptr, i, j, ctypes.byref(p)))
            name = _decode(p.name) or ""
            props[name] = PropertyInfo(name, int(p.type), int(p.flags), int(p.key), _decode(p.link_target),
                                       int(p.collection_type), _decode(p.link_origin_property))
        name = _decode(info.name) or ""
        classes[name] = ClassInfo(name, int(info.key), _decode(info.primary_key), int(info.flags),
                                  i, props)
    return classes


def _linking_objects_declared(cls: type[Object], classes: Sequence[type[Object]]) -> list[tuple[str, str, str]]:
    """(name, origin class, origin property) of each Backlinks of `cls`
    whose origin class is among `classes` (by stored name), the origin
    property by its stored name.  Backlinks through a mixed property are
    read only (realm-core's linking objects come from links alone)."""
    by_name = {c.__fief_name__: c for c in classes if isinstance(c, type) and issubclass(c, Object)}
    declared = []
    for backlinks in getattr(cls, "__fief_linking_objects__", ()):
        origin = by_name.get(backlinks.origin_name)
        if origin is None or backlinks.name is None:
            continue   # not in this schema: read through fief_object_get_backlinks only
        spec = origin._fief_by_attr.get(backlinks.property) if "_fief_by_attr" in origin.__dict__ else None
        if spec is not None and spec.is_mixed:
            continue
        declared.append((backlinks.name, backlinks.origin_name, spec.name if spec is not None else backlinks.property))
    return declared


def build_schema(library: L.Library, classes: Sequence[type[Object]]) -> Handle:
    """A fief_schema_t handle describing the model classes (with their
    Backlinks as linking-objects properties, see `fief.Backlinks`)."""
    n = len(classes)
    class_infos = (L.fief_class_info_t * max(n, 1))()
    prop_arrays = (ctypes.POINTER(L.fief_property_info_t) * max(n, 1))()
    keep: list[object] = []
    for i, cls in enumerate(classes):
        if not (isinstance(cls, type) and issubclass(cls, Object)) or cls is Object:
            raise TypeError(f"the schema lists fief.Object subclasses, not {cls!r}")
        specs = cls.__fief_properties__
        linking = _linking_objects_declared(cls, classes)
        name = cls.__fief_name__.encode()
        keep.append(name)
        class_infos[i].name = name
        pk = cls.__fief_primary_key__
        class_infos[i].primary_key = pk.name.encode() if pk else None
        class_infos[i].num_properties = len(specs) + len(linking)
        class_infos[i].flags = L.CLASS_EMBEDDED if cls.__fief_embedded__ else 0
        props = (L.fief_property_info_t * max(len(specs) + len(linking), 1))()
        for j, spec in enumerate(specs):
            pname = spec.name.encode()
            keep.append(pname)
            props[j].name = pname
            props[j].type = spec.fief_type
            props[j].collection_type = spec.collection
            if spec.link_target is not None:
                target = spec.link_target.encode()
                keep.append(target)
                props[j].link_target = target
            else:
                props[j].link_target = None
            props[j].link_origin_property = None
            props[j].flags = spec.flags
            props[j].key = 0
        for j, (lname, origin, origin_property) in enumerate(linking, start=len(specs)):
            strings = [lname.encode(), origin.encode(), origin_property.encode()]
            keep.extend(strings)
            props[j].name, props[j].link_target, props[j].link_origin_property = strings
            props[j].type = L.TYPE_LINK
            props[j].collection_type = L.COLLECTION_LINKING_OBJECTS
            props[j].flags = 0
            props[j].key = 0
        keep.append(props)
        prop_arrays[i] = ctypes.cast(props, ctypes.POINTER(L.fief_property_info_t))
    ptr = library.fief_schema_new(class_infos, n, prop_arrays)
    return Handle(library.check_handle(ptr, "fief_schema_new"), "schema")


class SchemaBinding:
    """What objects and results of one realm handle share: the file's schema
    (class and property keys) and the model classes bound to it."""

    def __init__(self, library: L.Library, realm_handle: Handle, classes: Iterable[type[Object]],
                 frozen: bool, path: str | None, realm: "Realm"):
        self.library = library
        self.frozen = frozen
        self.path = path
        self.models: dict[str, type[Object]] = {c.__fief_name__: c for c in classes}
        self._realm_ref = weakref.ref(realm)
        self._bindings: dict[type, ClassBinding] = {}
        self._lock = threading.Lock()
        self.classes = self._load(realm_handle)

    def _load(self, realm_handle: Handle) -> dict[str, ClassInfo]:
        library = self.library
        schema = Handle(library.check_handle(library.fief_realm_get_schema(realm_handle.ptr),
                                             "fief_realm_get_schema"), "schema")
        try:
            return read_schema(library, schema.ptr)
        finally:
            schema.release()

    def reload(self, realm_handle: Handle) -> None:
        with self._lock:
            self.classes = self._load(realm_handle)
            self._bindings.clear()

    def bind(self, cls: type[Object] | str) -> "ClassBinding":
        if isinstance(cls, str):
            model = self.models.get(cls)
            if model is None:
                raise errors.NoSuchClassError(f"no model class named {cls!r} is known to this realm")
            cls = model
        binding = self._bindings.get(cls)
        if binding is not None:
            return binding
        if not (isinstance(cls, type) and issubclass(cls, Object)) or cls is Object:
            raise TypeError(f"expected a fief.Object subclass, not {cls!r}")
        info = self.classes.get(cls.__fief_name__)
        if info is None:
            raise errors.NoSuchClassError(f"the realm has no class {cls.__fief_name__!r}")
        with self._lock:
            binding = self._bindings.get(cls)
            if binding is None:
                binding = ClassBinding(self, cls, info)
                self._bindings[cls] = binding
                self.models.setdefault(cls.__fief_name__, cls)
        return binding

    def object_for_link(self, link: Link, realm: "Realm") -> Object:
        """The model object a link points to, in `realm`."""
        name = next((n for n, info in self.classes.items() if info.key == link.class_key), None)
        model = self.models.get(name) if name is not None else None
        if model is None:
            raise errors.NoSuchClassError(
                f"a link points to class {name or link.class_key!r}, which no model class of this realm declares")
        binding = self.bind(model)
        library = self.library
        ptr = library.fief_object_get(realm._handle.ptr, link.class_key, link.object_key)
        return binding.wrap(library.check_handle(ptr, "fief_object_get"))

    def class_by_key(self, class_key: int) -> tuple[ClassInfo, type[Object] | None]:
        """The stored class of `class_key` and its model class (None when
        no model class of this realm declares it)."""
        info = next((i for i in self.classes.values() if i.key == class_key), None)
        if info is None:
            raise errors.NoSuchClassError(f"the realm has no class with key {class_key}")
        return info, self.models.get(info.name)

    def class_key_of(self, cls: "type[Object] | str | int") -> int:
        """The class key of a model class, a stored class name or a class key."""
        if isinstance(cls, int) and not isinstance(cls, bool):
            return cls
        if isinstance(cls, str):
            info = self.classes.get(cls)
            if info is None:
                raise errors.NoSuchClassError(f"the realm has no class {cls!r}")
            return info.key
        return self.bind(typing.cast("type[Object]", cls)).class_key

    def check_link(self, link: Link, where: str) -> None:
        """Raise the library's error (NoSuchObjectError, NoSuchClassError)
        when `link` names no object in the realm's version: one
        fief_object_get_values_by_key call reading nothing, made before a
        write that would fail half-way on it."""
        realm = self._realm_ref()
        if realm is None or realm._handle.released:
            return  # the write itself reports it
        library = self.library
        if not library.fief_object_get_values_by_key(realm._handle.ptr, link.class_key, link.object_key,
                                                     None, 0, None):
            error = library.last_error("fief_object_get_values_by_key")
            raise type(error)(f"{where}: {error.message}", error.code, error.categories, error.path)

    def link_value(self, link: Link, realm: "Realm") -> "Object | Link":
        """A link read from a mixed value: the model object in `realm` when
        its class has a model class, else the fief.Link itself."""
        name = next((n for n, info in self.classes.items() if info.key == link.class_key), None)
        if name is None or name not in self.models:
            return link
        binding = self.bind(self.models[name])
        library = self.library
        ptr = library.fief_object_get(realm._handle.ptr, link.class_key, link.object_key)
        return binding.wrap(library.check_handle(ptr, "fief_object_get"))

    def realm_of_object(self, handle: Handle) -> "Realm":
        realm = self._realm_ref()
        if realm is not None and not realm.is_closed:
            return realm
        library = self.library
        ptr = library.check_handle(library.fief_object_get_realm(handle.ptr), "fief_object_get_realm")
        return Realm._wrap(Handle(ptr, "realm"), list(self.models.values()))

    def realm_of_results(self, handle: Handle) -> "Realm":
        realm = self._realm_ref()
        if realm is not None and not realm.is_closed:
            return realm
        library = self.library
        ptr = library.check_handle(library.fief_results_get_realm(handle.ptr), "fief_results_get_realm")
        return Realm._wrap(Handle(ptr, "realm"), list(self.models.values()))


class ClassBinding:
    """A model class bound to a realm's schema: class key and property keys,
    resolved once."""

    def __init__(self, schema: SchemaBinding, cls: type[Object], info: ClassInfo):
        self.schema = schema
        self.cls = cls
        self.info = info
        self.class_key = info.key
        self.keys: dict[str, int | None] = {}
        for spec in cls.__fief_properties__:
            prop = info.properties.get(spec.name)
            self.keys[spec.attr] = prop.key if prop is not None else None
        self.primary_key = cls.__fief_primary_key__

    def key_of(self, spec: PropertySpec) -> int:
        key = self.keys.get(spec.attr)
        if key is None:
            raise errors.NoSuchPropertyError(
                f"the realm's class {self.info.name!r} has no property {spec.name!r}")
        return key

    # -- objects -------------------------------------------------------------

    def wrap(self, ptr: int) -> Object:
        obj = self.cls.__new__(self.cls)
        state = obj.__dict__
        state["_fief_handle"] = Handle(ptr, "object")
        state["_fief_binding"] = self
        return obj

    def get(self, handle: Handle, spec: PropertySpec) -> Any:
        library = self.schema.library
        out = L.fief_value_t()
        library.check(library.fief_object_get_value(handle.ptr, self.key_of(spec), ctypes.byref(out)),
                      "fief_object_get_value")
        return self._python(from_value(out, spec.py_type), handle, spec)

    def _python(self, value: Any, handle: Handle, spec: PropertySpec) -> Any:
        """A value read from property `spec` of object `handle`: links as
        model objects (in a mixed property, a fief.Link when the class has
        no model class), a nested list or dict as a live fief.List or
        fief.Dict."""
        if isinstance(value, Link):
            realm = self.schema.realm_of_object(handle)
            if spec.is_mixed:
                return self.schema.link_value(value, realm)
            return self.schema.object_for_link(value, realm)
        if isinstance(value, Nested):
            return self.get_nested(handle, spec, value.is_list)
        return value

    def get_nested(self, handle: Handle, spec: PropertySpec, is_list: bool) -> LiveCollection:
        """The live list or dict nested in mixed property `spec` of object
        `handle` (fief_object_get_list / _get_map on the property)."""
        library = self.schema.library
        fn = "fief_object_get_list" if is_list else "fief_object_get_map"
        ptr = library.check_handle(getattr(library, fn)(handle.ptr, self.key_of(spec)), fn)
        kind = L.COLLECTION_LIST if is_list else L.COLLECTION_MAP
        return wrap_nested(self, handle, nested_spec(spec, None, kind), ptr, is_list)

    def get_list(self, handle: Handle, spec: PropertySpec) -> List[Any]:
        """The live list `spec` of object `handle` (fief_object_get_list)."""
        return self.get_collection(handle, spec)  # type: ignore[return-value]

    _COLLECTIONS = {
        L.COLLECTION_LIST: (List, "fief_object_get_list", "list"),
        L.COLLECTION_SET: (Set, "fief_object_get_set", "set"),
        L.COLLECTION_MAP: (Dict, "fief_object_get_map", "map"),
    }

    def get_collection(self, handle: Handle, spec: PropertySpec) -> LiveCollection:
        """The live list, set or dict `spec` of object `handle`
        (fief_object_get_list, _set, _map)."""
        library = self.schema.library
        cls, fn, kind = self._COLLECTIONS[spec.collection]
        ptr = getattr(library, fn)(handle.ptr, self.key_of(spec))
        return cls(self, handle, spec, Handle(library.check_handle(ptr, fn), kind))

    def get_all(self, handle: Handle) -> dict[str, Any]:
        """Every property's value (lists, sets and dicts as Python lists,
        sets and dicts)."""
        library = self.schema.library
        present = [s for s in self.cls.__fief_properties__ if self.keys.get(s.attr) is not None]
        specs = [s for s in present if not s.is_collection]
        n = len(specs)
        values: dict[str, Any] = {}
        if n:
            keys = (L.fief_property_key_t * n)(*[typing.cast(int, self.keys[s.attr]) for s in specs])
            out = (L.fief_value_t * n)()
            library.check(library.fief_object_get_values(handle.ptr, keys, n, out), "fief_object_get_values")
            values = {s.attr: self._python(from_value(out[i], s.py_type), handle, s) for i, s in enumerate(specs)}
        for s in present:
            if s.is_collection:
                coll: Any = self.get_collection(handle, s)
                try:
                    values[s.attr] = dict(coll.items()) if s.is_dict else set(coll) if s.is_set else list(coll)
                finally:
                    coll.release()
            if s.is_mixed:  # nested lists and dicts as plain Python data
                values[s.attr] = plain(values[s.attr])
        return {s.attr: values[s.attr] for s in present}

    def set(self, handle: Handle, spec: PropertySpec, value: Any) -> None:
        library = self.schema.library
        if spec.is_collection:
            coll: Any = self.get_collection(handle, spec)
            try:
                coll._replace(value)
            finally:
                coll.release()
            return
        if spec.is_mixed:
            self._set_mixed(handle, spec, value)
            return
        if spec.fief_type == L.TYPE_LINK and isinstance(value, Object) and value.__fief_embedded__:
            self._set_embedded(handle, spec, value)
            return
        if spec.fief_type == L.TYPE_LINK and isinstance(value, Object):
            # An unmanaged object is added first (as RealmSwift does).
            self.schema.realm_of_object(handle)._linkable(value)
        keep = Keep()
        v = make_value(value, keep, spec.fief_type)
        library.check(library.fief_object_set_value(handle.ptr, self.key_of(spec), v),
                      "fief_object_set_value")

    def _write_mixed(self, handle: Handle, spec: PropertySpec, value: Any) -> None:
        """Write the prepared mixed `value` to property `spec`; a list or
        dict is stored as a new nested collection, then filled."""
        library = self.schema.library
        keep = Keep()
        v = make_value(value, keep, L.TYPE_MIXED)
        library.check(library.fief_object_set_value(handle.ptr, self.key_of(spec), v), "fief_object_set_value")

    def _set_mixed(self, handle: Handle, spec: PropertySpec, value: Any) -> None:
        """obj.prop = value for a mixed property: checked first (nothing is
        written for a value it cannot hold); a list or dict replaces the
        value (and what was nested in it) by a new nested collection, and
        if filling that fails the previous value is written back (a nested
        one as a copy)."""
        if holds_slot(value, self, handle, nested_spec(spec, None, L.COLLECTION_LIST)):
            return  # obj.prop += [...] assigns the nested list to itself
        value = prepare(value, self.schema, f"{self.info.name}.{spec.name}")
        if not is_nested(value):
            self._write_mixed(handle, spec, value)
            return
        library = self.schema.library
        out = L.fief_value_t()
        library.check(library.fief_object_get_value(handle.ptr, self.key_of(spec), ctypes.byref(out)),
                      "fief_object_get_value")
        previous = from_value(out, spec.py_type)
        if isinstance(previous, Nested):
            previous = plain(self.get_nested(handle, spec, previous.is_list))
        self._write_mixed(handle, spec, value)
        try:
            fill(self.get_nested(handle, spec, isinstance(value, list)), value)
        except BaseException:
            try:
                self._write_mixed(handle, spec, previous)
                if is_nested(previous):
                    fill(self.get_nested(handle, spec, isinstance(previous, list)), typing.cast(Any, previous))
            except errors.FiefError:  # pragma: no cover - the original error matters more
                pass
            raise

    def check_mixed(self, spec: PropertySpec, value: Any) -> Any:
        """`value` given for mixed property (or collection) `spec` of a new
        object, checked before the object is written: a prepared value for
        a single mixed property (see fief._mixed.prepare)."""
        where = f"{self.info.name}.{spec.name}"
        if not spec.is_collection:
            return prepare(value, self.schema, where)
        elements = collection_elements(value, spec)
        items = elements.items() if spec.is_dict else enumerate(elements)
        for at, item in items:
            prepare(item, self.schema, f"{where}[{at!r}]", nested=not spec.is_set)
        return value

    def _set_embedded(self, handle: Handle, spec: PropertySpec, child: Object) -> None:
        """Create `child` (unmanaged) in place as the object's embedded `spec`
        (the previous one is deleted); `child` becomes managed."""
        library = self.schema.library
        if child.is_managed:
            current = self.get(handle, spec)
            if current == child:
                return
            raise errors.LogicError("an embedded object belongs to one parent: assign a new (unmanaged) one")
        ptr = library.fief_object_create_embedded(handle.ptr, self.key_of(spec))
        binding = self.schema.bind(type(child))
        binding.adopt_embedded(child, library.check_handle(ptr, "fief_object_create_embedded"))

    def adopt_embedded(self, child: Object, ptr: int) -> None:
        """Make the unmanaged `child` (of this embedded class) the object
        `ptr` names, just created in place, and write its values there:
        values in one fief_object_set_values call, then its links, mixed
        values, embedded objects and collections.  On failure `child` is unmanaged again (with its
        values) and the handle released; the caller takes the object back."""
        library = self.schema.library
        state = child.__dict__
        values = dict(state.get("_fief_values", {}))
        handle = Handle(ptr, "object")
        state["_fief_handle"] = handle
        state["_fief_binding"] = self
        state.pop("_fief_values", None)
        try:
            specs = [s for s in type(child).__fief_properties__ if s.attr in values]
            # Links, mixed values and collections are written one by one, after the plain values.
            later = [s for s in specs if s.is_collection or s.fief_type in (L.TYPE_LINK, L.TYPE_MIXED)]
            scalars = [(s, values[s.attr]) for s in specs if s not in later]
            if scalars:
                keep = Keep()
                keys, vals, n = self.values_for(scalars, keep)
                library.check(library.fief_object_set_values(handle.ptr, keys, vals, n), "fief_object_set_values")
            for s in later:
                if s.is_collection and not values[s.attr]:
                    continue  # a new object's collections are empty
                setattr(child, s.attr, values[s.attr])
        except BaseException:
            state.pop("_fief_handle", None)
            state.pop("_fief_binding", None)
            state["_fief_values"] = values
            handle.release()
            raise

    def backlinks(self, handle: Handle, origin: "type[Object] | str", attr: str) -> "Results[Any]":
        """The objects of `origin` whose link `attr` points to the object."""
        library = self.schema.library
        origin_binding = self.schema.bind(origin)
        spec = origin_binding.cls._fief_by_attr.get(attr) if "_fief_by_attr" in origin_binding.cls.__dict__ else None
        if spec is None:
            raise errors.NoSuchPropertyError(f"{origin_binding.info.name} has no property {attr!r}")
        ptr = library.fief_object_get_backlinks(handle.ptr, origin_binding.class_key, origin_binding.key_of(spec))
        return Results(origin_binding, Handle(library.check_handle(ptr, "fief_object_get_backlinks"), "results"),
                       holds_objects=True)

    def object_key(self, handle: Handle) -> int:
        library = self.schema.library
        out = L.fief_object_key_t()
        library.check(library.fief_object_get_key(handle.ptr, ctypes.byref(out)), "fief_object_get_key")
        return int(out.value)

    def values_for(self, items: Sequence[tuple[PropertySpec, Any]], keep: Keep) -> Any:
        n = len(items)
        keys = (L.fief_property_key_t * max(n, 1))()
        values = (L.fief_value_t * max(n, 1))()
        for i, (spec, value) in enumerate(items):
            keys[i] = self.key_of(spec)
            to_value(value, values[i], keep, spec.fief_type)
        return keys, values, n


# ---------------------------------------------------------------------------
# Reading property paths without object handles
# ---------------------------------------------------------------------------

@dataclass
class _Column:
    name: str
    key: int
    fief_type: int
    py_type: Any
    spec: PropertySpec | None


class _PathReader:
    """Reads property paths ("name", "dog.name", "dog.owner.age") of objects
    of one class without object handles: the first step of every path in
    one call per object (fief_results_get_values, or
    fief_object_get_values_by_key given a class key and an object key),
    then each link followed with fief_object_get_values_by_key on its
    target (a reader per target class, made once).  Names are a model
    class's attribute names (or stored names), else the stored class's
    property names."""

    def __init__(self, schema: SchemaBinding, class_key: int, paths: Sequence[str]):
        self.schema = schema
        self.class_key = class_key
        self.info, self.model = schema.class_by_key(class_key)
        if not paths:
            if self.model is not None:
                paths = [s.attr for s in self.model.__fief_properties__
                         if not s.is_collection and self.schema.bind(self.model).keys.get(s.attr) is not None]
            else:
                paths = [name for name, p in self.info.properties.items() if p.collection_type == L.COLLECTION_NONE]
        self.paths = list(paths)
        heads: list[str] = []
        self.plan: list[tuple[int, str | None]] = []   # per path: (column, rest of the path)
        self.tails: dict[int, list[str]] = {}          # per followed column: the rests, once each
        for path in self.paths:
            if not isinstance(path, str) or not path:
                raise errors.InvalidArgumentError(f"a property path is a non-empty str, not {path!r}")
            head, _, tail = path.partition(".")
            if head not in heads:
                heads.append(head)
            j = heads.index(head)
            self.plan.append((j, tail or None))
            if tail and tail not in self.tails.setdefault(j, []):
                self.tails[j].append(tail)
        self.columns = [self._column(head) for head in heads]
        n = len(self.columns)
        self.keys = (L.fief_property_key_t * max(n, 1))(*[c.key for c in self.columns])
        self.out = (L.fief_value_t * max(n, 1))()
        self._followers: dict[tuple[int, int], _PathReader] = {}

    def _column(self, name: str) -> _Column:
        where = self.model.__name__ if self.model is not None else self.info.name
        if self.model is not None:
            binding = self.schema.bind(self.model)
            specs = self.model.__fief_properties__
            spec = next((s for s in specs if s.attr == name), None) or next((s for s in specs if s.name == name), None)
            if spec is None or binding.keys.get(spec.attr) is None:
                raise errors.NoSuchPropertyError(f"{where} has no property {name!r}")
            collection = spec.collection
            column = _Column(name, binding.key_of(spec), spec.fief_type, spec.py_type, spec)
        else:
            prop = self.info.properties.get(name)
            if prop is None:
                raise errors.NoSuchPropertyError(f"{where} has no property {name!r}")
            collection, column = prop.collection_type, _Column(name, prop.key, prop.type, None, None)
        if collection != L.COLLECTION_NONE:
            word = {L.COLLECTION_LIST: "list", L.COLLECTION_SET: "set",
                    L.COLLECTION_LINKING_OBJECTS: "linking-objects property"}.get(collection, "dict")
            raise errors.InvalidArgumentError(f"{where}.{name} is a {word}: read it from the objects")
        return column

    def _follower(self, j: int, class_key: int) -> "_PathReader":
        reader = self._followers.get((j, class_key))
        if reader is None:
            reader = self._followers[(j, class_key)] = _PathReader(self.schema, class_key, self.tails[j])
        return reader

    def read(self, realm: "Realm", call: Any, what: str, object_key: Any) -> tuple[Any, ...]:
        """One row: `call(keys, n, out)` reads the first steps (a C call
        returning success); `object_key()` gives the object's key, needed
        only to read a nested collection."""
        library = self.schema.library
        n = len(self.columns)
        library.check(call(self.keys, n, self.out), what)
        heads = [from_value(self.out[j], c.py_type) for j, c in enumerate(self.columns)]
        followed: dict[int, dict[str, Any] | None] = {}
        for j, tails in self.tails.items():
            value = heads[j]
            if value is None:
                followed[j] = None
            elif isinstance(value, Link):
                follower = self._follower(j, value.class_key)
                followed[j] = dict(zip(tails, follower.read_by_key(realm, value.object_key)))
            else:
                raise errors.InvalidArgumentError(
                    f"{self.info.name}.{self.columns[j].name} holds no link here: "
                    f"cannot read {tails[0]!r} through it")
        row = []
        for j, tail in self.plan:
            if tail is not None:
                link_row = followed[j]
                row.append(None if link_row is None else link_row[tail])
            elif isinstance(heads[j], Nested):
                row.append(self._nested(realm, object_key(), self.columns[j]))
            else:
                row.append(heads[j])
        return tuple(row)

    def read_by_key(self, realm: "Realm", object_key: int) -> tuple[Any, ...]:
        library = self.schema.library
        ptr = realm._handle.ptr
        return self.read(realm, lambda keys, n, out: library.fief_object_get_values_by_key(
            ptr, self.class_key, object_key, keys, n, out), "fief_object_get_values_by_key", lambda: object_key)

    def _nested(self, realm: "Realm", object_key: int, column: _Column) -> Any:
        """A mixed value's nested list or dict, as plain Python data (read
        through an object handle of the model class)."""
        if self.model is None or column.spec is None:
            raise errors.InvalidArgumentError(
                f"{self.info.name}.{column.name} holds a nested collection: read it through a model class")
        obj = realm.object_by_key(self.model, object_key)
        try:
            return plain(getattr(obj, column.spec.attr))
        finally:
            obj.release()


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

# Keys read per fief_results_get_keys call when results are iterated.
KEY_BATCH = 1024


class _ObjectElements:
    """How results of objects read their elements: objects of one model
    class, made from their keys (fief_results_get_keys)."""

    holds_objects = True
    noun = "results"

    def __init__(self, binding: ClassBinding):
        self.binding = binding

    def at(self, results: "Results[Any]", index: int) -> Any:
        ptr = results._lib.fief_results_get_object(results._handle.ptr, index)
        return self.binding.wrap(results._lib.check_handle(ptr, "fief_results_get_object"))

    def snapshot(self, results: "Results[Any]") -> list[Any]:
        """The keys, read in batches (fief_results_get_keys)."""
        return results.keys()

    def from_snapshot(self, results: "Results[Any]", keys: Iterable[int]) -> Iterator[Any]:
        """Each object by its key when reached; one deleted meanwhile is skipped."""
        return self._objects_by_key(results._lib, results.realm, keys)

    def _objects_by_key(self, library: L.Library, realm: "Realm", keys: Iterable[int]) -> Iterator[Any]:
        class_key = self.binding.class_key
        for key in keys:
            ptr = library.fief_object_get(realm._handle.ptr, class_key, key)
            if not ptr:
                error = library.last_error("fief_object_get")
                if isinstance(error, errors.NoSuchObjectError):
                    continue
                raise error
            yield self.binding.wrap(ptr)

    def find_index(self, results: "Results[Any]", obj: Any) -> int | None:
        handle = obj.__dict__.get("_fief_handle") if isinstance(obj, Object) else None
        if handle is None:
            return None
        out = ctypes.c_size_t()
        found = ctypes.c_bool()
        results._lib.check(results._lib.fief_results_index_of_object(results._handle.ptr, handle.ptr, ctypes.byref(out),
                                                                     ctypes.byref(found)), "fief_results_index_of_object")
        return int(out.value) if found.value else None

    def aggregated(self, results: "Results[Any]", attr: str | PropertySpec | None) -> tuple[int, Any]:
        """The property key and Python type an aggregate of `attr` reads."""
        if attr is None:
            raise TypeError(f"an aggregate of {self.binding.cls.__name__} objects needs a property")
        if isinstance(attr, PropertySpec):
            attr = attr.attr
        spec = next((s for s in self.binding.cls.__fief_properties__ if s.attr == attr), None)
        if spec is None:
            raise errors.NoSuchPropertyError(f"{self.binding.cls.__name__} has no property {attr!r}")
        return self.binding.key_of(spec), spec.py_type

    def describe(self, count: int | None, where: str | None, error: str | None = None) -> str:
        name = self.binding.cls.__name__
        if error is not None:
            return f"<fief.Results of {name} ({error})>"
        return f"<fief.Results of {name} where {where}: {count} objects>"


class _ValueElements:
    """How results of values read their elements: values of a list, set or
    dict property `spec` (fief_results_get_value)."""

    holds_objects = False
    noun = "values"

    def __init__(self, spec: PropertySpec):
        self.spec = spec

    def at(self, results: "Results[Any]", index: int) -> Any:
        out = L.fief_value_t()
        results._lib.check(results._lib.fief_results_get_value(results._handle.ptr, index, ctypes.byref(out)),
                           "fief_results_get_value")
        return from_value(out, self.spec.py_type)

    def snapshot(self, results: "Results[Any]") -> list[Any]:
        """The values themselves, read now."""
        return [self.at(results, i) for i in range(len(results))]

    def from_snapshot(self, results: "Results[Any]", values: Iterable[Any]) -> Iterator[Any]:
        return iter(values)

    def find_index(self, results: "Results[Any]", value: Any) -> int | None:
        keep = Keep()
        v = L.fief_value_t()
        try:
            to_value(value, v, keep, self.spec.fief_type)
        except (errors.FiefError, TypeError, ValueError, OverflowError):
            return None
        index = ctypes.c_size_t()
        found = ctypes.c_bool()
        results._lib.check(results._lib.fief_results_index_of_value(results._handle.ptr, v, ctypes.byref(index),
                                                                    ctypes.byref(found)), "fief_results_index_of_value")
        return int(index.value) if found.value else None

    def aggregated(self, results: "Results[Any]", attr: str | PropertySpec | None) -> tuple[int, Any]:
        if attr is not None:
            raise TypeError(f"an aggregate of the values of {self.spec.name} takes no property (given {attr!r})")
        return 0, self.spec.py_type

    def describe(self, count: int | None, where: str | None, error: str | None = None) -> str:
        if error is not None:
            return f"<fief.ValueResults of {self.spec.name} ({error})>"
        return f"<fief.ValueResults of {self.spec.name} where {where}: {count} values>"


class Results(Generic[T]):
    """A live, lazily evaluated view of objects (of one class, of a list,
    set or dict of objects, or linking objects) or of values (of a list,
    set or dict of values: ``person.scores.results()``,
    ``person.scores.filter("self >= 90")``).  The handle says which
    (fief_results_get_element_type); everything but reading an element
    is the same for both.

    Supports len(), indexing (negative too) and slicing, iteration,
    reversed(), `in`, `index()`, `filter()`, `sort()`, `distinct()`,
    `limit()`, `min()`, `max()`, `sum()`, `average()`, `freeze()`.  Sorts,
    distincts and limits apply in the order they are chained, as Realm's
    ``SORT(...) DISTINCT(...) LIMIT(n)``: ``dogs.limit(2).sort("name")``
    sorts the first two dogs, ``dogs.sort("name").limit(2)`` takes the two
    first by name.  Values sort and are distinct by value (the key path
    ``self``).  It re-evaluates after every change of its realm's snapshot
    (commit, refresh) and after every write to what it reads; results of
    values fail with InvalidatedObjectError once the collection's owner is
    deleted."""

    def __init__(self, binding: ClassBinding, handle: Handle, spec: PropertySpec | None = None,
                 *, holds_objects: bool | None = None):
        """`binding`: the objects' class, or for values the class of the
        collection's owner, whose property `spec` the values come from.
        Whether the handle holds objects is asked of the library unless
        `holds_objects` says it."""
        self._binding = binding
        self._handle = handle
        if holds_objects is None:
            element_type = ctypes.c_int32()
            binding.schema.library.check(binding.schema.library.fief_results_get_element_type(
                handle.ptr, ctypes.byref(element_type), None), "fief_results_get_element_type")
            holds_objects = element_type.value == L.TYPE_LINK
        if holds_objects:
            self._elements: _ObjectElements | _ValueElements = _ObjectElements(binding)
        else:
            if spec is None:
                raise errors.InvalidArgumentError("results of values need the property their values come from")
            self._elements = _ValueElements(spec)

    def _derived(self, ptr: Any, function: str) -> "Results[T]":
        """Results of the same elements from a new handle."""
        spec = self._elements.spec if isinstance(self._elements, _ValueElements) else None
        return Results(self._binding, Handle(self._lib.check_handle(ptr, function), "results"), spec,
                       holds_objects=self._elements.holds_objects)

    @property
    def _lib(self) -> L.Library:
        return self._binding.schema.library

    @property
    def holds_objects(self) -> bool:
        """Whether the elements are objects (else values)."""
        return self._elements.holds_objects

    @property
    def object_class(self) -> type[T]:
        """The model class of the objects (results of objects only)."""
        if not isinstance(self._elements, _ObjectElements):
            raise errors.InvalidArgumentError(f"these results hold the values of {self._elements.spec.name}, not objects")
        return self._binding.cls  # type: ignore[return-value]

    def __len__(self) -> int:
        out = ctypes.c_size_t()
        self._lib.check(self._lib.fief_results_count(self._handle.ptr, ctypes.byref(out)),
                        "fief_results_count")
        return int(out.value)

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._elements.at(self, i) for i in range(*index.indices(len(self)))]
        try:
            index = index.__index__()
        except AttributeError:
            raise TypeError(f"results indices are integers or slices, not {type(index).__name__}") from None
        if index < 0:
            n = len(self)
            if index < -n:
                raise errors.IndexOutOfBoundsError(f"index {index - n} is out of range for {n} {self._elements.noun}")
            index += n
        element: T = self._elements.at(self, index)
        return element

    def __iter__(self) -> Iterator[T]:
        """The elements that match now, as RealmSwift iterates (fief.h,
        fief_results_get_keys): objects' keys are read when the iteration
        begins, in batches, and each object is fetched by key when the
        iteration reaches it (one deleted meanwhile is skipped); values are
        read when the iteration begins."""
        return self._elements.from_snapshot(self, self._elements.snapshot(self))

    def __reversed__(self) -> Iterator[T]:
        """As iteration, last first: from the same snapshot of keys (or values)."""
        return self._elements.from_snapshot(self, reversed(self._elements.snapshot(self)))

    def first(self) -> T | None:
        return self[0] if len(self) else None

    def last(self) -> T | None:
        return self[-1] if len(self) else None

    def find_index(self, element: Any) -> int | None:
        """The position of `element` (an object of these results, or the
        first value equal to it), or None: found by the library
        (fief_results_index_of_object, fief_results_index_of_value)."""
        return self._elements.find_index(self, element)

    def index(self, element: Any) -> int:
        found = self.find_index(element)
        if found is None:
            raise ValueError(f"{element!r} is not in the results")
        return found

    def __contains__(self, element: object) -> bool:
        return self.find_index(element) is not None

    def __eq__(self, other: object) -> bool:
        """Results of values equal a list or tuple of the same values;
        otherwise results are equal only to themselves."""
        if not self._elements.holds_objects and isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return self is other

    def __hash__(self) -> int:
        if not self._elements.holds_objects:
            raise TypeError("unhashable type: results of values (they compare equal to lists)")
        return object.__hash__(self)

    def keys(self) -> list[int]:
        """The object keys, in order, read KEY_BATCH a call
        (fief_results_get_keys; results of objects)."""
        batch = (L.fief_object_key_t * KEY_BATCH)()
        got = ctypes.c_size_t()
        keys: list[int] = []
        while True:
            self._lib.check(self._lib.fief_results_get_keys(self._handle.ptr, len(keys), KEY_BATCH, batch,
                                                            ctypes.byref(got)), "fief_results_get_keys")
            keys.extend(batch[:got.value])
            if got.value < KEY_BATCH:
                return keys

    def values(self, *paths: str) -> list[tuple[Any, ...]]:
        """Rows of the given properties (all but collections when none are
        named), read without making object handles: one
        fief_results_get_values call per object.  A path may go through
        to-one links (and mixed values holding a link): ``"dog.name"``,
        ``"dog.owner.age"``; each link is followed with
        fief_object_get_values_by_key, and a null link gives None.  Links
        read as fief.Link, a mixed value's nested list or dict as a plain
        Python list or dict."""
        reader = _PathReader(self._binding.schema, self._binding.class_key, paths)
        realm = self.realm
        library = self._lib
        ptr = self._handle.ptr
        key = L.fief_object_key_t()

        def object_key(i: int) -> int:
            library.check(library.fief_results_get_key(ptr, i, ctypes.byref(key)), "fief_results_get_key")
            return int(key.value)

        return [reader.read(realm, lambda keys, n, out, i=i: library.fief_results_get_values(ptr, i, keys, n, out),
                            "fief_results_get_values", lambda i=i: object_key(i))
                for i in range(len(self))]

    def filter(self, predicate: str, *args: Any) -> "Results[T]":
        """Elements matching `predicate` (Realm's query language; ``self``
        for a value: ``"self > 5"``, ``"self BEGINSWITH[c] 'a'"``,
        ``"self == nil"``); `$0`, `$1`,
        ... and `%@` take `args` (lists and tuples become list arguments);
        `$K0` and `%K` take a string holding a key path:
        ``filter("%K == %@", "owner.name", "Ann")``."""
        keep = Keep()
        array, n = make_query_args(args, keep)
        ptr = self._lib.fief_results_filter(self._handle.ptr, predicate.encode("utf-8"), array, n)
        return self._derived(ptr, "fief_results_filter")

    where = filter

    def sort(self, *keys: str | tuple[str, bool] | Sequence[Any], ascending: bool = True) -> "Results[T]":
        """Sorted by one or more keys, the first most significant:
        ``sort("name")``, ``sort("age", ascending=False)``,
        ``sort("age", "name")``, ``sort(("age", False), "name")`` or
        ``sort(["age", "name"])``.  A key may also be written "-age"
        (descending).  A key is a stored property name or a key path through
        to-one links and embedded objects: ``sort("owner.name")``,
        ``sort("-owner.address.city")``, or a map of values and one of its
        keys: ``sort("meta.age")`` orders by the value at key "age", a
        missing key as None, as realm-core sorts by a dictionary key (in a
        query, ``filter("TRUEPREDICATE SORT(meta['age'] ASC)")`` too).
        None comes first ascending; an
        object whose key path crosses a null link (a dog without an owner)
        comes after every value ascending, before every value descending,
        as in Realm.  Sorting sorted results makes the earlier keys
        secondary; ties keep the previous order (fief_results_sort).
        Values sort by value with no key (``sort(ascending=False)``; None
        first ascending, last descending; strings by their UTF-8 bytes)."""
        flat: list[tuple[str, bool]] = []

        def add(key: Any) -> None:
            if isinstance(key, str):
                if key.startswith("-"):
                    flat.append((key[1:], not ascending))
                else:
                    flat.append((key, ascending))
            elif isinstance(key, PropertySpec):
                flat.append((key.name, ascending))
            elif isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], bool):
                name = key[0].name if isinstance(key[0], PropertySpec) else key[0]
                flat.append((name, key[1]))
            elif isinstance(key, (list, tuple)):
                for k in key:
                    add(k)
            else:
                raise TypeError(f"a sort key is a property name or (name, ascending), not {key!r}")

        for key in keys:
            add(key)
        if not flat and not self._elements.holds_objects:
            flat.append(("self", ascending))
        if not flat:
            raise errors.InvalidArgumentError("sort needs at least one key")
        n = len(flat)
        descriptors = (L.fief_sort_descriptor_t * n)()
        names = []
        for i, (name, asc) in enumerate(flat):
            encoded = name.encode("utf-8")
            names.append(encoded)
            descriptors[i].key_path = encoded
            descriptors[i].ascending = asc
        ptr = self._lib.fief_results_sort(self._handle.ptr, descriptors, n)
        return self._derived(ptr, "fief_results_sort")

    def distinct(self, *key_paths: str | PropertySpec | Sequence[Any]) -> "Results[T]":
        """The first object for each distinct tuple of values of the key
        paths, in the order of these results (fief_results_distinct):
        ``distinct("name")``, ``distinct("name", "age")``,
        ``distinct(["owner.name"])``, ``distinct(Dog.name)``.  Values
        compare as Realm's equality: in a mixed property 1 and 1.0 are one
        value (True and "1" are others); strings exactly.  Objects whose key
        path crosses a null link are left out, as in Realm.
        ``dogs.sort("age", ascending=False).distinct("name")`` keeps the
        oldest dog of each name.  Values are distinct by value with no key
        path (None is one value)."""
        paths = _key_paths(key_paths or (() if self._elements.holds_objects else ("self",)), "distinct")
        array = (ctypes.c_char_p * len(paths))(*[p.encode("utf-8") for p in paths])
        ptr = self._lib.fief_results_distinct(self._handle.ptr, array, len(paths))
        return self._derived(ptr, "fief_results_distinct")

    def limit(self, count: int) -> "Results[T]":
        """The first `count` objects (count >= 0), live: after a sort, the
        first ones in that order (fief_results_limit).  Results with a limit
        cannot be filtered (as in Realm): filter first."""
        ptr = self._lib.fief_results_limit(self._handle.ptr, _limit_count(count))
        return self._derived(ptr, "fief_results_limit")

    # -- aggregates -------------------------------------------------------------

    def _aggregate(self, attr: str | PropertySpec | None, op: int) -> Any:
        key, py_type = self._elements.aggregated(self, attr)
        out = L.fief_value_t()
        self._lib.check(self._lib.fief_results_aggregate(self._handle.ptr, key, op, ctypes.byref(out)),
                        "fief_results_aggregate")
        return from_value(out, py_type)

    def min(self, attr: str | PropertySpec | None = None) -> Any:
        """The smallest value of property `attr` over the objects (int,
        float, Decimal128 or datetime properties), or of the values (no
        `attr`), None if there is none; nulls are skipped.  Computed by the
        library in place (fief_results_aggregate)."""
        return self._aggregate(attr, L.AGGREGATE_MIN)

    def max(self, attr: str | PropertySpec | None = None) -> Any:
        """The largest value of property `attr` (of the values without
        `attr`), None if there is none."""
        return self._aggregate(attr, L.AGGREGATE_MAX)

    def sum(self, attr: str | PropertySpec | None = None) -> Any:
        """The sum of numeric property `attr` or of the values (0 when there
        is nothing to add): an int for ints, a float for floats, a decimal
        for decimals."""
        return self._aggregate(attr, L.AGGREGATE_SUM)

    def average(self, attr: str | PropertySpec | None = None) -> Any:
        """The average of numeric property `attr` or of the values (a float,
        or a decimal for decimals), None if there is no value."""
        return self._aggregate(attr, L.AGGREGATE_AVERAGE)

    def delete_all(self) -> None:
        """Delete every object in the results (in a write transaction)."""
        self._lib.check(self._lib.fief_results_delete_all(self._handle.ptr), "fief_results_delete_all")

    def set_all(self, attr: str | PropertySpec, value: Any) -> None:
        """Set property `attr` of every object in the results to `value`, in
        one call (fief_results_set_value; in a write transaction)::

            with realm.write():
                realm.objects(Dog).filter("age > 10").set_all("senior", True)

        `value` is converted and checked once, as ``obj.attr = value`` does
        (an int for a float property, None for an optional one, a model
        object for a link: an unmanaged one is added first), then the
        library writes the property's column without making an object per
        row.  The objects are those in the results when the call begins, so
        results filtered on `attr` may be empty afterwards.  For a mixed
        property a list or dict gives each object its own nested copy.

        Raises NoSuchPropertyError, TypeMismatchError (a value of another
        type; a list, set or dict property), NullNotAllowedError,
        PrimaryKeyChangeError (the primary key is never set this way),
        NotInTransactionError, FrozenRealmError, LogicError (an embedded
        object: it has one parent); nothing is written then."""
        binding = self._binding
        name = attr.attr if isinstance(attr, PropertySpec) else attr
        spec = next((s for s in binding.cls.__fief_properties__ if s.attr == name), None)
        if spec is None:
            raise errors.NoSuchPropertyError(f"{binding.cls.__name__} has no property {name!r}")
        key = binding.key_of(spec)
        library = self._lib
        keep = Keep()
        if spec.is_collection:
            # The library refuses list, set and dict properties whatever the value.
            v = make_value(None, keep)
        elif spec.is_mixed:
            value = prepare(value, binding.schema, f"{binding.info.name}.{spec.name}")
            if is_nested(value) and value:
                self._set_all_nested(spec, key, value)
                return
            v = make_value(value, keep, L.TYPE_MIXED)
        else:
            if spec.fief_type == L.TYPE_LINK and isinstance(value, Object):
                if value.__fief_embedded__:
                    raise errors.LogicError(
                        "an embedded object has one parent: set_all cannot give it to every object; assign each its own")
                self.realm._linkable(value)
            v = make_value(value, keep, spec.fief_type)
        library.check(library.fief_results_set_value(self._handle.ptr, key, v), "fief_results_set_value")

    def _set_all_nested(self, spec: PropertySpec, key: int, value: list[Any] | dict[Any, Any]) -> None:
        """`set_all` of a non-empty list or dict to mixed property `spec`:
        one call gives every object a new, empty nested collection, then
        each is filled with `value`'s copy."""
        objects = list(self)
        keep = Keep()
        self._lib.check(self._lib.fief_results_set_value(self._handle.ptr, key, make_value(value, keep, L.TYPE_MIXED)),
                        "fief_results_set_value")
        for obj in objects:
            handle = obj.__dict__["_fief_handle"]
            fill(self._binding.get_nested(handle, spec, isinstance(value, list)), value)

    @property
    def is_valid(self) -> bool:
        if self._handle.released:
            return False
        return bool(self._lib.fief_results_is_valid(self._handle.ptr))

    @property
    def realm(self) -> "Realm":
        return self._binding.schema.realm_of_results(self._handle)

    @property
    def is_frozen(self) -> bool:
        return self._binding.schema.frozen

    def freeze(self) -> "Results[T]":
        """The same query on a frozen snapshot: it never changes."""
        realm = self.realm
        if realm.is_frozen:
            return self
        return realm.freeze()._resolve_results(self)

    def thaw(self) -> "Results[T]":
        realm = self.realm
        if not realm.is_frozen:
            return self
        return realm.thaw()._resolve_results(self)

    def observe(self, callback: Callable[..., None],
                key_paths: "list[str] | None" = None) -> "ResultsNotificationToken":
        """Call ``callback(changes, results)`` (RealmSwift's ``Results.observe``):
        first with ``changes.is_initial`` at the next delivery (writes made
        before it are part of that state), then whenever a commit changed
        these results, with ``changes.deletions`` (indices before),
        ``insertions`` and ``modifications_new`` (after), ``modifications``
        (before).  ``key_paths`` (``["name"]``, ``["dog.name"]``,
        ``["dogs"]``, ``["*"]``, ``["dogs.*"]``; the model's attribute names,
        mapped to stored names) limit what counts as a
        modification; None: every property of the objects and of the
        objects their links reach, to a depth of 4.  Deliveries run in the
        realm's ``process_notifications()`` (see
        ``fief.notifications.watch``); the results hold the delivered rows
        during the call.  Raises FrozenRealmError on frozen results,
        AlreadyInTransactionError inside a write, NoSuchPropertyError for a
        key path naming no property.  Keep the token: closing it (or losing
        it) stops the callback."""
        from . import notifications
        return notifications.add_results_notification_callback(self, self._handle, callback, key_paths)

    def changes(self, key_paths: "list[str] | None" = None) -> "typing.AsyncIterator[CollectionChanges]":
        """The change sets of these results as an asynchronous iterator on
        the running asyncio loop: ``async for change in results.changes():``
        (the first is the initial one; see ``observe`` for ``key_paths``).
        The realm is watched on the loop while the iteration runs
        (``fief.notifications.watch``); leaving it (``break``, the task
        cancelled) stops the callback."""
        from . import notifications
        return notifications.results_changes(self, key_paths)

    def release(self) -> None:
        """Give the results handle back now."""
        self._handle.release()

    @property
    def description(self) -> str:
        """The query these results answer, as canonical text that
        ``filter`` reads back to the same results (arguments written in as
        literals, then the SORT / DISTINCT / LIMIT stages):
        ``"age < 5 AND name BEGINSWITH 'R' SORT(name ASC)"``;
        ``"TRUEPREDICATE"`` when unfiltered."""
        text = self._lib.fief_results_get_description(self._handle.ptr)
        if text is None:
            raise self._lib.last_error("fief_results_get_description")
        return str(text.decode("utf-8"))

    def __repr__(self) -> str:
        try:
            return self._elements.describe(len(self), self.description)
        except errors.FiefError as exc:
            return self._elements.describe(None, None, exc.__class__.__name__)


def _key_paths(keys: Sequence[Any], what: str) -> list[str]:
    """Key paths given as strings, PropertySpecs (a model class's
    property: its stored name) or lists of those, flattened."""
    paths: list[str] = []

    def add(key: Any) -> None:
        if isinstance(key, str):
            paths.append(key)
        elif isinstance(key, PropertySpec):
            paths.append(key.name)
        elif isinstance(key, (list, tuple)):
            for k in key:
                add(k)
        else:
            raise TypeError(f"a {what} key path is a property name or key path string, not {key!r}")

    for key in keys:
        add(key)
    if not paths:
        raise errors.InvalidArgumentError(f"{what} needs at least one key path")
    return paths


def _limit_count(count: Any) -> int:
    """`count` as a limit: an int (not a bool) of 0 or more."""
    if isinstance(count, bool) or not hasattr(count, "__index__"):
        raise TypeError(f"a limit is an int, not {type(count).__name__}")
    count = count.__index__()
    if count < 0:
        raise errors.InvalidArgumentError(f"cannot limit results to {count}: a limit is 0 or more")
    return int(count)


# The name results of values had when they were a class of their own: the
# same class now (``isinstance(x, fief.ValueResults)`` holds for every results).
ValueResults = Results


# ---------------------------------------------------------------------------
# Realm
# ---------------------------------------------------------------------------

class WriteTransaction:
    """``with realm.write():`` commits on success, cancels on an exception."""

    def __init__(self, realm: "Realm"):
        self.realm = realm

    def __enter__(self) -> "Realm":
        self.realm.begin_write()
        return self.realm

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        realm = self.realm
        if realm.is_closed or not realm.in_transaction:
            return False  # committed or cancelled inside the block
        if exc_type is None:
            realm.commit()
        else:
            try:
                realm.cancel()
            except errors.FiefError:
                pass  # the original exception matters more
        return False


class Realm:
    """One open realm: a database file (or in-memory database) read at one
    version.

    ``Realm.open(path, schema=[Dog, Person])`` opens or creates it; use it
    as a context manager, or call `close()`, to close it deterministically.
    """

    _handle: Handle
    _schema: SchemaBinding

    def __init__(self, path: str | os.PathLike[Any] | None = None, *, schema: Sequence[type[Object]] | None = None,
                 in_memory_identifier: str | None = None, in_memory: str | None = None,
                 read_only: bool = False, schema_version: int = 0,
                 delete_if_migration_needed: bool = False, durability: str = "full",
                 max_active_versions: int | None = None):
        library = L.lib()
        durabilities = {"full": 0, "normal": 1}
        if durability not in durabilities:
            raise errors.InvalidArgumentError(f"durability must be 'full' or 'normal', not {durability!r}")
        if in_memory is not None:
            if in_memory_identifier is not None:
                raise TypeError("give in_memory or in_memory_identifier, not both")
            in_memory_identifier = in_memory
        if path is None and in_memory_identifier is None:
            raise errors.InvalidArgumentError("Realm.open needs a path or an in_memory_identifier")
        if path is not None and in_memory_identifier is not None:
            raise errors.InvalidArgumentError("give a path or an in_memory_identifier, not both")
        config = Handle(library.check_handle(library.fief_config_new(), "fief_config_new"), "config")
        try:
            if path is not None:
                library.check(library.fief_config_set_path(config.ptr, os.fsencode(os.fspath(path))),
                              "fief_config_set_path")
            else:
                library.check(library.fief_config_set_in_memory_identifier(
                    config.ptr, str(in_memory_identifier).encode("utf-8")),
                    "fief_config_set_in_memory_identifier")
            if read_only:
                library.check(library.fief_config_set_read_only(config.ptr, True), "fief_config_set_read_only")
            if schema is not None:
                schema_handle = build_schema(library, list(schema))
                try:
                    library.check(library.fief_config_set_schema(config.ptr, schema_handle.ptr),
                                  "fief_config_set_schema")
                finally:
                    schema_handle.release()
            if schema_version:
                library.check(library.fief_config_set_schema_version(config.ptr, int(schema_version)),
                              "fief_config_set_schema_version")
            if delete_if_migration_needed:
                library.check(library.fief_config_set_delete_if_migration_needed(config.ptr, True),
                              "fief_config_set_delete_if_migration_needed")
            if durability != "full":
                library.check(library.fief_config_set_durability(config.ptr, durabilities[durability]),
                              "fief_config_set_durability")
            if max_active_versions is not None:
                if isinstance(max_active_versions, bool) or int(max_active_versions) < 1:
                    raise errors.InvalidArgumentError(
                        f"max_active_versions must be a positive integer or None, not {max_active_versions!r}")
                library.check(library.fief_config_set_max_active_versions(config.ptr, int(max_active_versions)),
                              "fief_config_set_max_active_versions")
            ptr = library.check_handle(library.fief_realm_open(config.ptr), "fief_realm_open")
        finally:
            config.release()
        self._setup(Handle(ptr, "realm"), list(schema or ()))

    @classmethod
    def open(cls, path: str | os.PathLike[Any] | None = None, **options: Any) -> "Realm":
        """Open or create a realm; see the class for the options
        (schema, in_memory_identifier, read_only, schema_version,
        delete_if_migration_needed, durability="full" or "normal",
        max_active_versions: the most versions readers may hold before a
        write fails with TooManyVersionsError)."""
        return cls(path, **options)

    @classmethod
    def _wrap(cls, handle: Handle, classes: Sequence[type[Object]]) -> "Realm":
        realm = cls.__new__(cls)
        realm._setup(handle, classes)
        return realm

    def _setup(self, handle: Handle, classes: Sequence[type[Object]]) -> None:
        library = L.lib()
        self._lib = library
        self._handle = handle
        try:
            frozen = ctypes.c_bool()
            library.check(library.fief_realm_is_frozen(handle.ptr, ctypes.byref(frozen)), "fief_realm_is_frozen")
            raw_path = library.fief_realm_get_path(handle.ptr)
            path = os.fsdecode(raw_path) if raw_path else None
            self._schema = SchemaBinding(library, handle, classes, frozen.value, path, self)
        except BaseException:
            handle.release()
            raise

    # -- lifecycle ---------------------------------------------------------

    def close(self) -> None:
        """Close the realm now (cancelling any write transaction) and give
        its handle back.  Objects and results made from it then fail with
        RealmClosedError.  Closing twice is fine."""
        handle = self._handle
        if handle.released:
            return
        try:
            self._lib.check(self._lib.fief_realm_close(handle.ptr), "fief_realm_close")
        finally:
            handle.release()

    def __enter__(self) -> "Realm":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _flag(self, fn_name: str) -> bool:
        out = ctypes.c_bool()
        self._lib.check(getattr(self._lib, fn_name)(self._handle.ptr, ctypes.byref(out)), fn_name)
        return bool(out.value)

    @property
    def is_closed(self) -> bool:
        if self._handle.released:
            return True
        return self._flag("fief_realm_is_closed")

    @property
    def is_frozen(self) -> bool:
        return self._schema.frozen

    @property
    def is_read_only(self) -> bool:
        return self._flag("fief_realm_is_read_only")

    @property
    def in_transaction(self) -> bool:
        return self._flag("fief_realm_is_in_transaction")

    is_in_transaction = in_transaction

    @property
    def version(self) -> int:
        out = ctypes.c_uint64()
        self._lib.check(self._lib.fief_realm_get_version(self._handle.ptr, ctypes.byref(out)),
                        "fief_realm_get_version")
        return int(out.value)

    @property
    def schema_version(self) -> int:
        """The schema version stored in the file (fief_realm_get_schema_version)."""
        out = ctypes.c_uint64()
        self._lib.check(self._lib.fief_realm_get_schema_version(self._handle.ptr, ctypes.byref(out)),
                        "fief_realm_get_schema_version")
        return int(out.value)

    @property
    def path(self) -> str | None:
        return self._schema.path

    @property
    def schema(self) -> list[ClassInfo]:
        """The realm's schema as stored (fresh from the library)."""
        schema = Handle(self._lib.check_handle(self._lib.fief_realm_get_schema(self._handle.ptr),
                                               "fief_realm_get_schema"), "schema")
        try:
            return list(read_schema(self._lib, schema.ptr).values())
        finally:
            schema.release()

    def update_schema(self, classes: Sequence[type[Object]]) -> None:
        """Add the classes (and their new properties) to the realm's schema:
        additive changes only.  Inside a write transaction the change is part
        of it; outside one it commits on its own."""
        schema_handle = build_schema(self._lib, list(classes))
        try:
            self._lib.check(self._lib.fief_realm_update_schema(self._handle.ptr, schema_handle.ptr),
                            "fief_realm_update_schema")
        finally:
            schema_handle.release()
        for cls in classes:
            self._schema.models[cls.__fief_name__] = cls
        self._schema.reload(self._handle)

    # -- transactions ------------------------------------------------------

    def write(self) -> WriteTransaction:
        """``with realm.write(): ...`` -- commit on success, cancel on error."""
        return WriteTransaction(self)

    def begin_write(self) -> None:
        self._lib.check(self._lib.fief_realm_begin_write(self._handle.ptr), "fief_realm_begin_write")

    def commit(self) -> None:
        self._lib.check(self._lib.fief_realm_commit(self._handle.ptr), "fief_realm_commit")

    def cancel(self) -> None:
        self._lib.check(self._lib.fief_realm_cancel(self._handle.ptr), "fief_realm_cancel")

    def refresh(self) -> bool:
        """Move to the newest version; True if it changed."""
        out = ctypes.c_bool()
        self._lib.check(self._lib.fief_realm_refresh(self._handle.ptr, ctypes.byref(out)), "fief_realm_refresh")
        return bool(out.value)

    def invalidate(self) -> None:
        self._lib.check(self._lib.fief_realm_invalidate(self._handle.ptr), "fief_realm_invalidate")

    # -- notifications (fief.notifications) -----------------------------------

    def observe(self, callback: Callable[..., None]) -> "NotificationToken":
        """Call ``callback(notification, realm)`` when this realm changes
        (RealmSwift's ``Realm.observe``): ``RealmNotification.DID_CHANGE``
        when its version moved (at a delivery, and at once after this
        realm's own commit, refresh or begin_write), ``REFRESH_REQUIRED``
        when autorefresh is off and a newer version is ready.  Deliveries
        run in ``process_notifications()`` (see ``notification_fd()`` and
        ``fief.notifications.watch``).  Keep the token: closing it (or
        losing it) stops the callback."""
        from . import notifications
        return notifications.add_realm_notification_callback(self, callback)

    def notification_fd(self) -> int:
        """A file descriptor readable while a delivery is pending (an
        eventfd owned by the realm: poll it, never read or close it)."""
        from . import notifications
        return notifications.notification_fd(self)

    def process_notifications(self) -> bool:
        """Deliver what is pending on this thread (with autorefresh, move to
        the newest version first); True if a callback was called."""
        from . import notifications
        return notifications.process_notifications(self)

    @property
    def autorefresh(self) -> bool:
        """Whether deliveries move the realm to the newest version (default True)."""
        from . import notifications
        return notifications.get_autorefresh(self)

    @autorefresh.setter
    def autorefresh(self, on: bool) -> None:
        from . import notifications
        notifications.set_autorefresh(self, on)

    def write_copy(self, path: str | os.PathLike[Any]) -> "FileReport":
        """Write a compacted copy of this realm's version to `path`, a new file
        (fief_realm_write_copy).  Damaged data is left out and listed in the
        report's `problems`."""
        return _run_report(lambda fn, n: self._lib.fief_realm_write_copy(
            self._handle.ptr, os.fsencode(os.fspath(path)), fn, None, n), "fief_realm_write_copy")

    def freeze(self) -> "Realm":
        """An immutable snapshot of the current version, readable from any thread."""
        ptr = self._lib.check_handle(self._lib.fief_realm_freeze(self._handle.ptr), "fief_realm_freeze")
        return Realm._wrap(Handle(ptr, "realm"), list(self._schema.models.values()))

    def thaw(self) -> "Realm":
        """A live realm on the same file at the newest version."""
        ptr = self._lib.check_handle(self._lib.fief_realm_thaw(self._handle.ptr), "fief_realm_thaw")
        return Realm._wrap(Handle(ptr, "realm"), list(self._schema.models.values()))

    # -- objects -------------------------------------------------------------

    def _bind(self, cls: type[Object] | str) -> ClassBinding:
        self._handle.ptr  # raises RealmClosedError once closed
        return self._schema.bind(cls)

    def add(self, obj: T, update: str | bool | None = None) -> T:
        """Store an unmanaged object; it becomes managed (and is returned).

        update=None/'error' fails on an existing primary key
        (DuplicatePrimaryKeyError); 'modified' updates the values that
        differ, 'all' sets every value of the existing object."""
        if not isinstance(obj, Object):
            raise TypeError(f"Realm.add takes a fief.Object, not {type(obj).__name__}")
        policy = _policy(update)
        state = obj.__dict__
        if state.get("_fief_handle") is not None:
            binding: ClassBinding = state["_fief_binding"]
            if binding.schema is self._schema:
                return obj
            if binding.schema.path == self._schema.path and not binding.schema.frozen and not self.is_frozen:
                return obj  # another handle on the same live file
            raise errors.LogicError("the object is managed by another realm")
        binding = self._bind(type(obj))
        items = self._items_of(obj)
        # Lists, sets and dicts are written once the object exists (a
        # collection is no value of fief_object_create); their objects are
        # added then, once each.
        lists = [(spec, collection_elements(value, spec)) for spec, value in items if spec.is_collection]
        items = [(spec, value) for spec, value in items if not spec.is_collection]
        # Mixed values are checked before anything is written; nested lists
        # and dicts are written once the object exists, as collections are.
        for spec, value in lists:
            if spec.is_mixed:
                binding.check_mixed(spec, value)
        items = [(spec, binding.check_mixed(spec, value) if spec.is_mixed else value) for spec, value in items]
        lists += [(spec, value) for spec, value in items if spec.is_mixed and is_nested(value)]
        items = [(spec, None if spec.is_mixed and is_nested(value) else value) for spec, value in items]
        # Links to objects not yet in a realm are set once this object is in
        # (they may link back to it): the whole graph is added, once each.
        later = [(spec, value) for spec, value in items
                 if spec.fief_type == L.TYPE_LINK and isinstance(value, Object) and not value.is_managed]
        if later:
            items = [(spec, None if any(spec is s for s, _ in later) else value) for spec, value in items]
        for spec, value in items:
            if spec.fief_type == L.TYPE_LINK and isinstance(value, Object):
                self._linkable(value)
        keep = Keep()
        keys, values, n = binding.values_for(items, keep)
        ptr = self._lib.fief_object_create(self._handle.ptr, binding.class_key, keys, values, n, policy)
        self._lib.check_handle(ptr, "fief_object_create")
        given = state.pop("_fief_values", None)
        state["_fief_handle"] = Handle(ptr, "object")
        state["_fief_binding"] = binding
        try:
            for spec, value in later:
                setattr(obj, spec.attr, value)
            for spec, value in lists:
                # A new object's collections are empty (a nested list or dict is made, even empty).
                if value or policy != L.UPDATE_POLICY_ERROR or not spec.is_collection:
                    setattr(obj, spec.attr, value)
        except BaseException:
            if policy == L.UPDATE_POLICY_ERROR:
                # A new object: take it back, so a failed add changes nothing of it.
                self._lib.fief_object_delete(ptr)
                state.pop("_fief_handle").release()
                state.pop("_fief_binding", None)
                state["_fief_values"] = given if given is not None else {}
            raise
        return obj

    def _linkable(self, target: Object) -> None:
        """Make `target` something a link in this realm can point to: add it
        if unmanaged; refuse an object of another realm's file."""
        if not target.is_managed:
            if target.__fief_embedded__:
                raise errors.LogicError("an embedded object is created in place: assign it to its parent's property")
            self.add(target)
            return
        theirs = target.__dict__["_fief_binding"].schema
        if theirs.path != self._schema.path or theirs.path is None and theirs is not self._schema:
            raise errors.LogicError("a link cannot point to an object of another realm file")

    @staticmethod
    def _items_of(obj: Object) -> list[tuple[PropertySpec, Any]]:
        values = obj.__dict__.get("_fief_values", {})
        items = []
        for spec in type(obj).__fief_properties__:
            if spec.attr in values:
                items.append((spec, values[spec.attr]))
            elif spec.primary_key and not spec.has_default:
                continue  # let the library report the missing primary key
            else:
                items.append((spec, spec.make_default()))
        return items

    def add_all(self, objects: Iterable[Object], update: str | bool | None = None) -> list[Object]:
        """Add several objects (all of one class: in one call to the library,
        all or nothing)."""
        objs = list(objects)
        if not objs:
            return objs
        policy = _policy(update)
        classes = {type(o) for o in objs}
        if len(classes) != 1 or any(o.is_managed for o in objs):
            return [self.add(o, update=update) for o in objs]
        cls = classes.pop()
        if any(spec.fief_type in (L.TYPE_LINK, L.TYPE_MIXED) or spec.is_collection for spec in cls.__fief_properties__):
            return [self.add(o, update=update) for o in objs]
        binding = self._bind(cls)
        rows = [self._items_of(o) for o in objs]
        columns = [spec for spec, _ in rows[0]]
        if any([spec for spec, _ in row] != columns for row in rows):
            return [self.add(o, update=update) for o in objs]
        nprops = len(columns)
        keep = Keep()
        keys = (L.fief_property_key_t * max(nprops, 1))(*[binding.key_of(s) for s in columns])
        values = (L.fief_value_t * max(nprops * len(objs), 1))()
        for r, row in enumerate(rows):
            for c, (spec, value) in enumerate(row):
                to_value(value, values[r * nprops + c], keep, spec.fief_type)
        out_keys = (L.fief_object_key_t * len(objs))()
        self._lib.check(self._lib.fief_object_create_many(self._handle.ptr, binding.class_key, keys, nprops,
                                                          values, len(objs), policy, out_keys),
                        "fief_object_create_many")
        for obj, key in zip(objs, out_keys):
            ptr = self._lib.check_handle(self._lib.fief_object_get(self._handle.ptr, binding.class_key, key),
                                         "fief_object_get")
            obj.__dict__["_fief_handle"] = Handle(ptr, "object")
            obj.__dict__["_fief_binding"] = binding
            obj.__dict__.pop("_fief_values", None)
        return objs

    def create(self, cls: type[T], values: dict[str, Any] | None = None, *,
               update: str | bool | None = None, **kwargs: Any) -> T:
        """Create a managed object from property values.

        With update='modified' or 'all' and an existing primary key, only
        the given values are set; otherwise missing values get the model's
        defaults."""
        given = dict(values or {})
        given.update(kwargs)
        binding = self._bind(cls)
        by_attr = {s.attr: s for s in cls.__fief_properties__}
        for name in given:
            if name not in by_attr:
                raise errors.NoSuchPropertyError(f"{cls.__fief_name__} has no property {name!r}")
        policy = _policy(update)
        pk = cls.__fief_primary_key__
        fill_defaults = True
        if policy != L.UPDATE_POLICY_ERROR and pk is not None and pk.attr in given:
            fill_defaults = self.object(cls, given[pk.attr]) is None
        items: list[tuple[PropertySpec, Any]] = []
        later: list[tuple[PropertySpec, Any]] = []
        for spec in cls.__fief_properties__:
            if spec.is_collection:
                if spec.attr in given:  # written once the object exists; a new one's collections are empty
                    later.append((spec, collection_elements(given[spec.attr], spec)))
                    if spec.is_mixed:
                        binding.check_mixed(spec, given[spec.attr])
                continue
            if spec.attr in given and spec.is_mixed:
                value = binding.check_mixed(spec, given[spec.attr])
                if is_nested(value):  # a nested list or dict: made once the object exists
                    later.append((spec, value))
                    value = None
                items.append((spec, value))
            elif spec.attr in given:
                value = given[spec.attr]
                if spec.fief_type == L.TYPE_LINK and isinstance(value, dict):
                    value = self._schema.bind(spec.link_target or "").cls(**value)  # a new object from nested values
                if spec.fief_type == L.TYPE_LINK and isinstance(value, Object) and not value.is_managed:
                    later.append((spec, value))      # set once the object exists
                    value = None
                items.append((spec, value))
                if spec.fief_type == L.TYPE_LINK and isinstance(value, Object):
                    self._linkable(value)
            elif fill_defaults and not (spec.primary_key and not spec.has_default):
                items.append((spec, spec.make_default()))
        keep = Keep()
        keys, vals, n = binding.values_for(items, keep)
        ptr = self._lib.fief_object_create(self._handle.ptr, binding.class_key, keys, vals, n, policy)
        obj = binding.wrap(self._lib.check_handle(ptr, "fief_object_create"))
        try:
            for spec, value in later:
                setattr(obj, spec.attr, value)
        except BaseException:
            if policy == L.UPDATE_POLICY_ERROR:  # a new object: take it back
                self._lib.fief_object_delete(ptr)
                obj.release()
            raise
        return obj  # type: ignore[return-value]

    def object(self, cls: type[T] | str, primary_key: Any) -> T | None:
        """The object with that primary key, or None."""
        binding = self._bind(cls)
        pk = binding.primary_key
        keep = Keep()
        value = make_value(primary_key, keep, pk.fief_type if pk is not None else None)
        found = ctypes.c_bool()
        ptr = self._lib.fief_object_find_by_primary_key(self._handle.ptr, binding.class_key, value, ctypes.byref(found))
        if not ptr:
            if found.value:
                raise self._lib.last_error("fief_object_find_by_primary_key")
            return None
        return binding.wrap(ptr)  # type: ignore[return-value]

    object_for_primary_key = object

    def object_by_key(self, cls: type[T] | str, object_key: int) -> T:
        binding = self._bind(cls)
        ptr = self._lib.fief_object_get(self._handle.ptr, binding.class_key, int(object_key))
        return binding.wrap(self._lib.check_handle(ptr, "fief_object_get"))  # type: ignore[return-value]

    def values_by_key(self, cls: type[Object] | str | int, object_key: int, *paths: str) -> tuple[Any, ...]:
        """The values of the given properties (all but collections when none
        are named) of the object of class `cls` (a model class, a stored
        class name, or a class key) with key `object_key`, read without
        making an object handle (fief_object_get_values_by_key)::

            realm.values_by_key(Dog, dog_key, "name", "age")    # ("Rex", 3)
            realm.values_by_key(Person, key, "dog.name")       # through a link
            realm.values_by_key(link.class_key, link.object_key, "name")   # a fief.Link

        Paths go through to-one links (and mixed values holding a link) as in
        `Results.values`; links read as fief.Link.  NoSuchObjectError when
        there is no such object (or it was deleted)."""
        reader = _PathReader(self._schema, self._schema.class_key_of(cls), paths)
        return reader.read_by_key(self, int(object_key))

    def objects(self, cls: type[T] | str) -> Results[T]:
        """Every object of the class, live, in creation order."""
        binding = self._bind(cls)
        ptr = self._lib.fief_realm_get_objects(self._handle.ptr, binding.class_key)
        return Results(binding, Handle(self._lib.check_handle(ptr, "fief_realm_get_objects"), "results"), holds_objects=True)

    def delete(self, target: Object | Results[Any] | Iterable[Object]) -> None:
        """Delete an object, every object of a Results, or of a List, Set or
        Dict of objects (which is emptied), or each object of an iterable
        (in a write transaction)."""
        if isinstance(target, Object):
            handle = target.__dict__.get("_fief_handle")
            if handle is None:
                raise errors.LogicError("an unmanaged object cannot be deleted")
            self._lib.check(self._lib.fief_object_delete(handle.ptr), "fief_object_delete")
        elif isinstance(target, (Results, List, Set, Dict)):
            target.delete_all()
        else:
            for obj in list(target):
                self.delete(obj)

    def delete_all(self, cls: type[Object] | str | None = None) -> None:
        """Delete every object (of one class if given)."""
        if cls is None:
            self._lib.check(self._lib.fief_realm_delete_all(self._handle.ptr), "fief_realm_delete_all")
        else:
            binding = self._bind(cls)
            self._lib.check(self._lib.fief_realm_delete_all_of_class(self._handle.ptr, binding.class_key),
                            "fief_realm_delete_all_of_class")

    # -- moving between versions ---------------------------------------------

    def _resolve_object(self, obj: Object) -> Object | None:
        handle = obj.__dict__.get("_fief_handle")
        if handle is None:
            raise errors.LogicError("an unmanaged object cannot be resolved in a realm")
        binding = self._bind(type(obj))
        out = ctypes.c_void_p()
        self._lib.check(self._lib.fief_object_resolve_in(handle.ptr, self._handle.ptr, ctypes.byref(out)),
                        "fief_object_resolve_in")
        if not out.value:
            return None
        return binding.wrap(out.value)

    def _resolve_results(self, results: Results[Any]) -> Results[Any]:
        binding = self._bind(results._binding.cls)
        ptr = self._lib.fief_results_resolve_in(results._handle.ptr, self._handle.ptr)
        spec = results._elements.spec if isinstance(results._elements, _ValueElements) else None
        return Results(binding, Handle(self._lib.check_handle(ptr, "fief_results_resolve_in"), "results"), spec,
                       holds_objects=results.holds_objects)

    def _resolve_collection(self, coll: LiveCollection) -> LiveCollection | None:
        owner_binding = self._bind(coll._binding.cls)
        owner = ctypes.c_void_p()
        self._lib.check(self._lib.fief_object_resolve_in(coll._owner.ptr, self._handle.ptr, ctypes.byref(owner)),
                        "fief_object_resolve_in")
        if not owner.value:
            return None
        owner_handle = Handle(owner.value, "object")
        out = ctypes.c_void_p()
        fn = f"fief_{coll._kind}_resolve_in"
        self._lib.check(getattr(self._lib, fn)(coll._handle.ptr, self._handle.ptr, ctypes.byref(out)), fn)
        if not out.value:
            owner_handle.release()
            return None
        return type(coll)(owner_binding, owner_handle, coll._spec, Handle(out.value, coll._kind))

    _resolve_list = _resolve_collection

    def resolve(self, item: Any) -> Any:
        """The same object, results, list, set or dict in this realm (None
        for an object or a collection whose owner does not exist in this
        realm's version)."""
        if isinstance(item, Results):
            return self._resolve_results(item)
        if isinstance(item, LiveCollection):
            return self._resolve_collection(item)
        return self._resolve_object(item)

    def __repr__(self) -> str:
        if self._handle.released:
            return "<fief.Realm (closed)>"
        kind = "frozen " if self.is_frozen else ""
        return f"<fief.Realm {kind}{self.path!r}>"


def delete_realm_files(path: str | os.PathLike[Any]) -> bool:
    """Delete a closed realm's files; True if the data file existed."""
    library = L.lib()
    out = ctypes.c_bool()
    library.check(library.fief_file_delete(os.fsencode(os.fspath(path)), ctypes.byref(out)), "fief_file_delete")
    return bool(out.value)


class FileReport:
    """What fief_file_verify or fief_file_copy reported: `lines` (every line,
    in order), `problems` (the damage found or data left out) and `ok`."""

    def __init__(self, lines: list[tuple[int, str]]):
        self.lines = [text for _, text in lines]
        self.problems = [text for kind, text in lines if kind == 1]

    @property
    def ok(self) -> bool:
        return not self.problems

    def __repr__(self) -> str:
        return f"FileReport(ok={self.ok}, problems={self.problems!r})"


def _run_report(call: Callable[[Any, Any], bool], what: str) -> FileReport:
    library = L.lib()
    lines: list[tuple[int, str]] = []

    def on_line(_userdata: Any, kind: int, text: bytes) -> None:
        lines.append((int(kind), text.decode("utf-8", "replace")))

    callback = L.fief_report_fn(on_line)
    count = ctypes.c_size_t()
    library.check(call(callback, ctypes.byref(count)), what)
    return FileReport(lines)


def verify_file(path: str | os.PathLike[Any]) -> FileReport:
    """Check a realm file for damage without changing it (fief_file_verify):
    every page, tree and chunk.  Raises for a file that cannot be read at all."""
    library = L.lib()
    return _run_report(lambda fn, n: library.fief_file_verify(os.fsencode(os.fspath(path)), fn, None, n),
                       "fief_file_verify")


def copy_file(source: str | os.PathLike[Any], destination: str | os.PathLike[Any]) -> FileReport:
    """Write a compacted copy of a realm file to a new file (fief_file_copy),
    holding everything readable; also converts format-1 files and shrinks
    files that grew."""
    library = L.lib()
    return _run_report(lambda fn, n: library.fief_file_copy(os.fsencode(os.fspath(source)),
                                                            os.fsencode(os.fspath(destination)), fn, None, n),
                       "fief_file_copy")

