"""Model classes: `fief.Object` subclasses declared with type annotations."""

from __future__ import annotations

import ast
import builtins
import datetime as _dt
import decimal
import sys
import threading
import types
import typing
import uuid
from typing import TYPE_CHECKING, Annotated, Any, Callable, ClassVar, Optional, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform

    from ._values import Link
    from .notifications import NotificationToken, ObjectChange
    from .realm import Realm
else:
    def dataclass_transform(**options: Any) -> Any:
        """typing.dataclass_transform (3.11) for type checkers only: nothing at run time."""
        return lambda cls: cls

from . import _lib as L
from . import errors
from ._types import Decimal128, Float32, Mixed, ObjectId

_MISSING: Any = object()

# Optional[X] and, from Python 3.10, X | None.
_UNIONS: tuple[object, ...] = (typing.Union,) + ((getattr(types, "UnionType"),) if sys.version_info >= (3, 10) else ())

# Python annotation -> FIEF_TYPE_*
_TYPE_MAP: dict[object, int] = {
    int: L.TYPE_INT,
    bool: L.TYPE_BOOL,
    float: L.TYPE_DOUBLE,
    Float32: L.TYPE_FLOAT,
    str: L.TYPE_STRING,
    bytes: L.TYPE_BINARY,
    _dt.datetime: L.TYPE_TIMESTAMP,
    decimal.Decimal: L.TYPE_DECIMAL128,
    Decimal128: L.TYPE_DECIMAL128,
    ObjectId: L.TYPE_OBJECT_ID,
    uuid.UUID: L.TYPE_UUID,
    Mixed: L.TYPE_MIXED,
}

# The value a property has when none is given (as the library's defaults).
_ZERO: dict[int, Any] = {
    L.TYPE_INT: 0,
    L.TYPE_BOOL: False,
    L.TYPE_STRING: "",
    L.TYPE_BINARY: b"",
    L.TYPE_TIMESTAMP: _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc),
    L.TYPE_FLOAT: 0.0,
    L.TYPE_DOUBLE: 0.0,
    L.TYPE_DECIMAL128: Decimal128(0),
    L.TYPE_OBJECT_ID: ObjectId(bytes(12)),
    L.TYPE_UUID: uuid.UUID(int=0),
    L.TYPE_MIXED: None,
}


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"fief.{self.name}"


_PRIMARY_KEY = _Marker("PrimaryKey")
_INDEXED = _Marker("Indexed")
_FULL_TEXT = _Marker("FullText")


_T = TypeVar("_T")
_O = TypeVar("_O", bound="Object")

# Generic aliases of Annotated: a type checker sees ``fief.PrimaryKey[int]``
# as ``int``; the binding reads the marker.

#: ``id: fief.PrimaryKey[int]`` declares the primary key (int, str, ObjectId
#: or UUID).
PrimaryKey = Annotated[_T, _PRIMARY_KEY]

#: ``name: fief.Indexed[str]`` declares an indexed property.
Indexed = Annotated[_T, _INDEXED]

#: ``bio: fief.FullText[str]`` declares a full-text-indexed string property,
#: searched with ``TEXT``: ``realm.objects(Person).filter("bio TEXT $0",
#: "dog -cat run*")``.
FullText = Annotated[_T, _FULL_TEXT]


class PropertyOptions:
    """Options of a property, given as its default value in the class body
    with `fief.Property`::

        id: int = fief.Property(primary_key=True)
        name: str = fief.Property(indexed=True, default="")
        ratio: float = fief.Property(type=fief.Float32)
        tags: bytes = fief.Property(default_factory=bytes)
        bio: str = fief.Property(full_text=True, default="")

    `name` stores the property under another name than the attribute's.
    """

    def __init__(self, default: Any = _MISSING, *, primary_key: bool = False,
                 indexed: bool = False, name: str | None = None, type: Any = None,
                 optional: bool | None = None, default_factory: Any = None, full_text: bool = False):
        if default is not _MISSING and default_factory is not None:
            raise TypeError("give default or default_factory, not both")
        self.default = default
        self.default_factory = default_factory
        self.primary_key = primary_key
        self.indexed = indexed
        self.full_text = full_text
        self.name = name
        self.type = type
        self.optional = optional


if TYPE_CHECKING:
    # For type checkers `fief.Property(...)` is the property's value (its
    # default's type), so that ``name: str = fief.Property(indexed=True)``
    # checks; `Object`'s dataclass_transform names it a field specifier.
    @overload
    def Property(default: _T, *, primary_key: bool = False, indexed: bool = False, name: str | None = None,
                 type: Any = None, optional: bool | None = None, full_text: bool = False) -> _T: ...

    @overload
    def Property(*, default_factory: Callable[[], _T], primary_key: bool = False, indexed: bool = False,
                 name: str | None = None, type: Any = None, optional: bool | None = None,
                 full_text: bool = False) -> _T: ...

    @overload
    def Property(*, primary_key: bool = False, indexed: bool = False, name: str | None = None, type: Any = None,
                 optional: bool | None = None, full_text: bool = False) -> Any: ...

    def Property(default: Any = _MISSING, *, primary_key: bool = False, indexed: bool = False,
                 name: str | None = None, type: Any = None, optional: bool | None = None,
                 default_factory: Any = None, full_text: bool = False) -> Any: ...
else:
    Property = PropertyOptions


class Backlinks:
    """The objects linking to an object through one link property (Realm's
    LinkingObjects, also spelt ``fief.LinkingObjects``), declared in the
    target class::

        class Dog(fief.Object):
            name: str = ""
            owners = fief.Backlinks("Person", "dog")

    The origin property may be a to-one link (``Optional[Dog]``), a list
    (``list[Dog]``), a set (``set[Dog]``) or a dict of links
    (``dict[str, Optional[Dog]]``): an object holding the target once or
    many times counts once.  Reading it on a managed object gives live,
    read-only `Results` of the origin class (filter, sort and count them);
    on an unmanaged one, an empty tuple.  Nothing is stored: the realm
    keeps every link's backlink.

    When the origin class is part of the realm's schema, the property is
    declared to the realm (a linking-objects property, not stored), so
    queries name it like any property: ``realm.objects(Dog).filter("ANY
    owners.name == 'Ann'")``, ``"owners.@count > 1"``, ``"owners.@avg.age
    > 30"``, ``"SUBQUERY(owners, $p, $p.age > 30).@count > 0"`` (the same as
    ``@links.Person.dog``).  `name` stores it under another name than the
    attribute's.  Backlinks through a mixed property (which Realm's linking
    objects cannot be) are only read.
    """

    def __init__(self, origin: "type[Object] | str", property: str, *, name: str | None = None):
        self.origin = origin
        self.property = property
        self.attr = ""
        self.name = name

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr
        if self.name is None:
            self.name = attr

    @property
    def origin_name(self) -> str:
        """The origin class's stored name."""
        return self.origin if isinstance(self.origin, str) else self.origin.__fief_name__

    def __get__(self, instance: "Object | None", owner: type | None = None) -> Any:
        if instance is None:
            return self
        state = instance.__dict__
        handle = state.get("_fief_handle")
        if handle is None:
            return ()
        return state["_fief_binding"].backlinks(handle, self.origin, self.property)

    def __set__(self, instance: "Object", value: Any) -> None:
        raise AttributeError(f"{self.attr!r} lists the objects linking here: it is read-only")

    def __repr__(self) -> str:
        return f"fief.Backlinks({self.origin_name!r}, {self.property!r})"


#: RealmSwift's name for `Backlinks`.
LinkingObjects = Backlinks


class PropertySpec:
    """One property of a model class, as the binding understands it.

    Also the descriptor that implements the attribute on instances: managed
    objects read and write through the library, unmanaged ones hold values
    in a dict.  For a collection (`collection` is FIEF_COLLECTION_LIST,
    _SET or _MAP) `fief_type`, `py_type`, `nullable` and `link_target`
    describe the elements (a map's values; its keys are strings); a managed
    object's attribute is a live `fief.List`, `fief.Set` or `fief.Dict`, an
    unmanaged one's a plain Python list, set or dict."""

    def __init__(self, attr: str, name: str, py_type: type, fief_type: int, nullable: bool,
                 primary_key: bool, indexed: bool, default: Any, default_factory: Any,
                 link_target: str | None = None, collection: int = L.COLLECTION_NONE,
                 full_text: bool = False):
        self.link_target = link_target
        self.full_text = full_text
        self.collection = collection
        self.attr = attr
        self.name = name
        self.py_type = py_type
        self.fief_type = fief_type
        self.nullable = nullable
        self.primary_key = primary_key
        self.indexed = indexed
        self.default = default
        self.default_factory = default_factory
        self.owner: type | None = None

    @property
    def flags(self) -> int:
        flags = 0
        if self.nullable:
            flags |= L.PROPERTY_NULLABLE
        if self.primary_key:
            flags |= L.PROPERTY_PRIMARY_KEY
        if self.indexed:
            flags |= L.PROPERTY_INDEXED
        if self.full_text:
            flags |= L.PROPERTY_FULLTEXT_INDEXED
        return flags

    @property
    def is_list(self) -> bool:
        """Whether the property is a list (``list[X]``)."""
        return self.collection == L.COLLECTION_LIST

    @property
    def is_set(self) -> bool:
        """Whether the property is a set (``set[X]``)."""
        return self.collection == L.COLLECTION_SET

    @property
    def is_dict(self) -> bool:
        """Whether the property is a dict (``dict[str, X]``, a map)."""
        return self.collection == L.COLLECTION_MAP

    @property
    def is_collection(self) -> bool:
        """Whether the property is a list, a set or a dict."""
        return self.collection != L.COLLECTION_NONE

    @property
    def is_mixed(self) -> bool:
        """Whether the property (or its elements) holds mixed values (``fief.Mixed``)."""
        return self.fief_type == L.TYPE_MIXED

    # A nested list or dict inside a mixed value is described by a NestedSpec.
    is_nested = False
    # Whether the collection's path from its object has no list index (which
    # may shift under a live handle): a property, a dict key of one.
    stable = True

    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING or self.default_factory is not None

    def copy(self) -> "PropertySpec":
        """The same property, for a subclass (which gets its own descriptor)."""
        return PropertySpec(self.attr, self.name, self.py_type, self.fief_type, self.nullable,
                            self.primary_key, self.indexed, self.default, self.default_factory,
                            self.link_target, self.collection, self.full_text)

    def make_default(self) -> Any:
        if self.is_collection:  # a new list, set or dict each time, never a shared one
            make = _COLLECTION_TYPES[self.collection]
            if self.default_factory is not None:
                return make(self.default_factory())
            return make(self.default) if self.default is not _MISSING and self.default is not None else make()
        if self.default_factory is not None:
            return self.default_factory()
        if self.default is not _MISSING:
            return self.default
        if self.nullable or self.fief_type == L.TYPE_LINK:
            return None
        return _ZERO[self.fief_type]

    def __repr__(self) -> str:
        type_name = f"link to {self.link_target}" if self.link_target else L.TYPE_NAMES.get(self.fief_type, "?")
        if self.is_collection:
            kind = "dict of str to" if self.is_dict else f"{L.COLLECTION_NAMES[self.collection]} of"
            type_name = f"{kind} {'optional ' if self.nullable else ''}{type_name}"
        extra = "".join([" optional" if self.nullable and not self.is_collection else "",
                         " primary_key" if self.primary_key else "",
                         " indexed" if self.indexed else "",
                         " full_text" if self.full_text else ""])
        return f"<fief property {self.name}: {type_name}{extra}>"

    # -- descriptor protocol ---------------------------------------------

    def __set_name__(self, owner: type, attr: str) -> None:
        pass

    def __get__(self, instance: "Object | None", owner: type | None = None) -> Any:
        if instance is None:
            return self
        state = instance.__dict__
        handle = state.get("_fief_handle")
        if handle is not None:
            if self.is_collection:
                return state["_fief_binding"].get_collection(handle, self)
            return state["_fief_binding"].get(handle, self)
        values = state.setdefault("_fief_values", {})
        if self.attr not in values:
            values[self.attr] = self.make_default()
        return values[self.attr]

    def __set__(self, instance: "Object", value: Any) -> None:
        state = instance.__dict__
        handle = state.get("_fief_handle")
        if handle is not None:
            state["_fief_binding"].set(handle, self, value)
            return
        if self.is_collection:
            value = collection_value(value, self)
        state.setdefault("_fief_values", {})[self.attr] = value

    def __delete__(self, instance: "Object") -> None:
        raise AttributeError(f"cannot delete the property {self.attr!r}")


class NestedSpec(PropertySpec):
    """A list or dict nested in a mixed value, described as the
    ``list[fief.Mixed]`` or ``dict[str, fief.Mixed]`` it behaves like and
    named by its path from the object (``extra``, ``items[2]``,
    ``extra['a'][0]``).  The name is made when asked for, from the parent's
    spec and the position, so reaching a collection n levels deep costs
    O(n), not O(n^2)."""

    is_nested = True

    def __init__(self, parent: PropertySpec, position: Any, collection: int, stable: bool = True):
        super().__init__(attr="", name="", py_type=Mixed, fief_type=L.TYPE_MIXED, nullable=True,
                         primary_key=False, indexed=False, default=_MISSING, default_factory=None,
                         collection=collection)
        self._parent = parent
        self._position = position
        self.stable = stable

    @property
    def name(self) -> str:
        """The path from the object: the top property's name, then each
        position or key (built without recursion, at any depth)."""
        steps: list[str] = []
        spec: PropertySpec = self
        while isinstance(spec, NestedSpec):
            if spec._position is not None:
                steps.append(f"[{spec._position!r}]")
            spec = spec._parent
        return spec.name + "".join(reversed(steps))

    @name.setter
    def name(self, value: str) -> None:
        pass  # PropertySpec.__init__ sets it; the name is always the path

    @property
    def attr(self) -> str:
        return self.name

    @attr.setter
    def attr(self, value: str) -> None:
        pass  # as name


def nested_spec(parent: PropertySpec, position: Any, collection: int) -> NestedSpec:
    """The spec of the collection nested in mixed property `parent` (at
    `position` None) or at `position` (an index or key) of the mixed
    collection `parent` describes."""
    return NestedSpec(parent, position, collection, parent.stable and (position is None or isinstance(position, str)))


def list_elements(value: Any, spec: PropertySpec) -> list[Any]:
    """The elements of a value given for list property `spec`: any iterable
    but a string, bytes, a dict or a model object (a Python list is kept as
    it is, so an unmanaged object holds the caller's list)."""
    if isinstance(value, list):
        return value
    if isinstance(value, (str, bytes, bytearray, memoryview, dict, Object)) or value is None:
        raise TypeError(f"{spec.attr!r} is a list: give a list (or another iterable) of elements, "
                        f"not {type(value).__name__}")
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"{spec.attr!r} is a list: give a list (or another iterable) of elements, "
                        f"not {type(value).__name__}") from None


def set_elements(value: Any, spec: PropertySpec) -> Any:
    """The elements of a value given for set property `spec`: any iterable
    but a string, bytes, a dict or a model object.  Returned as given (a
    list of dicts for new objects of a set of links cannot be a Python
    set); see `collection_value` for what unmanaged objects hold."""
    if isinstance(value, (str, bytes, bytearray, memoryview, dict, Object)) or value is None:
        raise TypeError(f"{spec.attr!r} is a set: give a set (or another iterable) of elements, "
                        f"not {type(value).__name__}")
    try:
        iter(value)
    except TypeError:
        raise TypeError(f"{spec.attr!r} is a set: give a set (or another iterable) of elements, "
                        f"not {type(value).__name__}") from None
    return value


def dict_items(value: Any, spec: PropertySpec) -> dict[Any, Any]:
    """The entries of a value given for dict property `spec`: a mapping (a
    Python dict is kept as it is, so an unmanaged object holds the caller's
    dict) or an iterable of (key, value) pairs."""
    if isinstance(value, dict):
        return value
    if isinstance(value, (str, bytes, bytearray, memoryview, Object)) or value is None:
        raise TypeError(f"{spec.attr!r} is a dict: give a dict (or another mapping) of str keys to values, "
                        f"not {type(value).__name__}")
    try:
        return dict(value)
    except (TypeError, ValueError):
        raise TypeError(f"{spec.attr!r} is a dict: give a dict (or another mapping) of str keys to values, "
                        f"not {type(value).__name__}") from None


def collection_value(value: Any, spec: PropertySpec) -> Any:
    """What an unmanaged object holds for collection property `spec`: a
    Python list, set or dict (a list, set or dict given is kept as it is)."""
    if spec.is_list:
        return list_elements(value, spec)
    if spec.is_dict:
        return dict_items(value, spec)
    value = set_elements(value, spec)
    if isinstance(value, set):
        return value
    try:
        return set(value)
    except TypeError as exc:
        raise TypeError(f"{spec.attr!r} is a set: its elements must be hashable ({exc}); "
                        "new objects given as dicts are accepted by realm.create and by managed sets") from None


def collection_elements(value: Any, spec: PropertySpec) -> Any:
    """A value given for collection property `spec`, checked but not
    converted (for writing it to a managed object)."""
    if spec.is_list:
        return list_elements(value, spec)
    if spec.is_dict:
        return dict_items(value, spec)
    return set_elements(value, spec)


_COLLECTION_TYPES: dict[int, type] = {L.COLLECTION_LIST: list, L.COLLECTION_SET: set, L.COLLECTION_MAP: dict}
_COLLECTION_WORDS = {L.COLLECTION_LIST: "list", L.COLLECTION_SET: "set", L.COLLECTION_MAP: "dict"}


def _collection_of(annotation: Any, where: str) -> tuple[int, Any]:
    """(FIEF_COLLECTION_*, element annotation) of ``list[X]``, ``set[X]``
    or ``dict[str, X]`` (or their typing aliases); (FIEF_COLLECTION_NONE,
    _MISSING) for any other annotation.  A dict's keys must be str."""
    if annotation in (set, typing.Set, frozenset, typing.FrozenSet):
        raise TypeError(f"{where}: give the element type of a set: set[int], set[Optional[str]], set[Dog]")
    if annotation in (dict, typing.Dict):
        raise TypeError(f"{where}: give the key and value types of a dict: dict[str, int], "
                        "dict[str, Optional[Dog]]")
    origin = typing.get_origin(annotation)
    if origin is frozenset:
        raise TypeError(f"{where}: a set property is declared as set[X] (it is mutable), not {annotation!r}")
    if origin is set:
        args = typing.get_args(annotation)
        if len(args) != 1:
            raise TypeError(f"{where}: a set has one element type, not {annotation!r}")
        return L.COLLECTION_SET, args[0]
    if origin is dict:
        args = typing.get_args(annotation)
        if len(args) != 2:
            raise TypeError(f"{where}: a dict has a key and a value type: dict[str, X], not {annotation!r}")
        if args[0] is not str:
            raise TypeError(f"{where}: the keys of a dict property are strings: declare it dict[str, ...], "
                            f"not with {getattr(args[0], '__name__', args[0])!r} keys")
        return L.COLLECTION_MAP, args[1]
    element = _list_element(annotation, where)
    if element is not _MISSING:
        return L.COLLECTION_LIST, element
    return L.COLLECTION_NONE, _MISSING


def _embedded_class(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Object) and annotation.__fief_embedded__


def _collection_spec(attr: str, options: PropertyOptions, kind: int, element: Any, where: str) -> PropertySpec:
    """The spec of a set or dict property ``attr: set[element]`` /
    ``attr: dict[str, element]`` (lists: `_list_spec`)."""
    word = _COLLECTION_WORDS[kind]
    if options.primary_key or options.indexed or options.full_text:
        raise TypeError(f"{where}: a {word} is neither a primary key nor indexed")
    if options.optional is not None:
        raise TypeError(f"{where}: a {word} is never null (it is empty instead); "
                        f"for null {'values' if kind == L.COLLECTION_MAP else 'elements'} declare it "
                        + ("dict[str, Optional[X]]" if kind == L.COLLECTION_MAP else "set[Optional[X]]"))
    base, nullable, markers = _unwrap(element, where)
    if markers:
        raise TypeError(f"{where}: {word} {'values' if kind == L.COLLECTION_MAP else 'elements'} "
                        "are neither primary keys nor indexed")
    target = _link_target(base)
    if kind == L.COLLECTION_SET and target is not None:
        if nullable:
            raise TypeError(f"{where}: a set of links holds objects, never None: declare it set[{target}]")
        if _embedded_class(base):
            raise TypeError(f"{where}: a set cannot hold embedded objects ({target} is a fief.EmbeddedObject): "
                            f"use list[{target}] or dict[str, Optional[{target}]]")
    if kind == L.COLLECTION_MAP and target is not None and not nullable:
        raise TypeError(f"{where}: a dict of objects maps keys to objects or None (a deleted object leaves "
                        f"its key with None): declare it dict[str, Optional[{target}]]")
    nullable = nullable or base is Mixed  # mixed elements may always be None
    default, default_factory = options.default, options.default_factory
    if default is _MISSING and default_factory is None:
        default_factory = _COLLECTION_TYPES[kind]
    return PropertySpec(
        attr=attr,
        name=options.name or attr,
        py_type=base if target is None else object,
        fief_type=_TYPE_MAP[base] if target is None else L.TYPE_LINK,
        link_target=target,
        nullable=nullable,
        primary_key=False,
        indexed=False,
        default=default,
        default_factory=default_factory,
        collection=kind,
    )


def _list_element(annotation: Any, where: str) -> Any:
    """The element annotation of ``list[X]`` (or ``typing.List[X]``), or
    _MISSING when the annotation is not a list."""
    if annotation is list or annotation is typing.List:
        raise TypeError(f"{where}: give the element type of a list: list[int], list[Optional[str]], list[Dog]")
    if typing.get_origin(annotation) is not list:
        return _MISSING
    args = typing.get_args(annotation)
    if len(args) != 1:
        raise TypeError(f"{where}: a list has one element type, not {annotation!r}")
    return args[0]


def _list_spec(attr: str, options: PropertyOptions, element: Any, where: str) -> PropertySpec:
    """The spec of a list property ``attr: list[element]``."""
    if options.primary_key or options.indexed or options.full_text:
        raise TypeError(f"{where}: a list is neither a primary key nor indexed")
    if options.optional is not None:
        raise TypeError(f"{where}: a list is never null (it is empty instead); "
                        "for null elements declare list[Optional[X]]")
    base, nullable, markers = _unwrap(element, where)
    if markers:
        raise TypeError(f"{where}: list elements are neither primary keys nor indexed")
    target = _link_target(base)
    if target is not None and nullable:
        raise TypeError(f"{where}: a list of links holds objects, never None: declare it list[{target}]")
    nullable = nullable or base is Mixed  # mixed elements may always be None
    default, default_factory = options.default, options.default_factory
    if default is _MISSING and default_factory is None:
        default_factory = list
    return PropertySpec(
        attr=attr,
        name=options.name or attr,
        py_type=base if target is None else object,
        fief_type=_TYPE_MAP[base] if target is None else L.TYPE_LINK,
        link_target=target,
        nullable=nullable,
        primary_key=False,
        indexed=False,
        default=default,
        default_factory=default_factory,
        collection=L.COLLECTION_LIST,
    )


class _ForwardLink:
    """A model class named in an annotation before it exists (``friend:
    Optional["Person"]``): a link to the class of that name."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: Any) -> None:  # typing accepts callables as types
        raise TypeError(f"{self.name} is a forward reference")

    def __or__(self, other: Any) -> Any:
        return typing.Optional[self]

    def __ror__(self, other: Any) -> Any:
        return typing.Optional[self]

    def __repr__(self) -> str:
        return f"{self.name!r}"


class _Names(dict[Any, Any]):
    """Names for evaluating a string annotation: an unknown name is a model
    class declared later (a forward link)."""

    def __init__(self, globalns: dict[Any, Any], localns: dict[Any, Any]):
        super().__init__(localns)
        self.globalns = globalns

    def __missing__(self, name: str) -> Any:
        if name in self.globalns or hasattr(builtins, name) or name.startswith("__"):
            raise KeyError(name)
        return _ForwardLink(name)


class _PEP604(ast.NodeTransformer):
    """``A | B`` -> ``Union[A, B]``: PEP 604 unions in (string) annotations
    on Python 3.9, whose types have no ``|``."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.BitOr):
            return node
        union = ast.Subscript(value=ast.Name(id=_UNION_NAME, ctx=ast.Load()),
                              slice=ast.Tuple(elts=[node.left, node.right], ctx=ast.Load()), ctx=ast.Load())
        return ast.copy_location(union, node)


_UNION_NAME = "_fief_Union_"


def _eval_annotation(text: str, globalns: dict[str, Any], localns: dict[str, Any]) -> Any:
    try:
        return eval(text, globalns, localns)  # noqa: S307
    except TypeError:
        if sys.version_info >= (3, 10) or "|" not in text:
            raise
    tree = ast.fix_missing_locations(_PEP604().visit(ast.parse(text.strip(), mode="eval")))
    localns[_UNION_NAME] = typing.Union
    return eval(compile(tree, "<annotation>", "eval"), globalns, localns)  # noqa: S307


def _type_hints(cls: type) -> dict[str, Any]:
    """The class's annotations, evaluated; names of model classes not yet
    defined become forward links."""
    try:
        evaluated = typing.get_type_hints(cls, include_extras=True)
    except NameError:
        pass
    except TypeError:  # `X | Y` in a string annotation before Python 3.10
        if sys.version_info >= (3, 10):
            raise
    else:
        # Python 3.9 leaves a quoted annotation under `from __future__ import
        # annotations` ("'str | None'") as a string: evaluate it below.
        if not any(isinstance(h, str) and not h.isidentifier() for h in evaluated.values()):
            return evaluated
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        module = sys.modules.get(klass.__module__)
        globalns = dict(vars(module)) if module else {}
        for attr, annotation in klass.__dict__.get("__annotations__", {}).items():
            if isinstance(annotation, str):
                text = annotation.strip()
                if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
                    annotation = text[1:-1].strip()  # quoted under `from __future__ import annotations`
                annotation = _eval_annotation(annotation, globalns, _Names(globalns, dict(vars(klass))))
            elif isinstance(annotation, typing.ForwardRef):
                annotation = _eval_annotation(annotation.__forward_arg__, globalns,
                                              _Names(globalns, dict(vars(klass))))
            hints[attr] = annotation
    return hints


def _link_target(annotation: Any) -> str | None:
    """The class name an annotation links to, if it names a model class."""
    if isinstance(annotation, _ForwardLink):
        return annotation.name
    if isinstance(annotation, typing.ForwardRef):
        return annotation.__forward_arg__
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, Object) and annotation is not Object:
        return annotation.__fief_name__ or annotation.__name__
    return None


def _unwrap(annotation: Any, where: str) -> tuple[Any, bool, set[Any]]:
    """(base type, nullable, markers) of an annotation."""
    markers: set[Any] = set()
    nullable = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            args = typing.get_args(annotation)
            markers.update(m for m in args[1:] if isinstance(m, _Marker))
            annotation = args[0]
            continue
        if origin in _UNIONS:
            args = tuple(a for a in typing.get_args(annotation) if a is not type(None))
            if len(args) != 1 or len(args) == len(typing.get_args(annotation)):
                raise TypeError(f"{where}: only Optional[X] unions are supported, not {annotation!r}")
            nullable = True
            annotation = args[0]
            continue
        break
    if typing.get_origin(annotation) is list or annotation is list:
        raise TypeError(f"{where}: a list property is declared as list[X] on its own: "
                        "it is never optional, a primary key, indexed, or an element of another list, set or dict")
    if typing.get_origin(annotation) in (set, frozenset, dict) or annotation in (set, frozenset, dict):
        word = "dict" if typing.get_origin(annotation) is dict or annotation is dict else "set"
        shape = "dict[str, X]" if word == "dict" else "set[X]"
        raise TypeError(f"{where}: a {word} property is declared as {shape} on its own: "
                        "it is never optional, a primary key, indexed, or an element of another list, set or dict")
    if _link_target(annotation) is not None:
        return annotation, nullable, markers
    if annotation not in _TYPE_MAP:
        raise TypeError(f"{where}: unsupported property type {annotation!r}; use one of "
                        "int, bool, float, fief.Float32, str, bytes, datetime.datetime, "
                        "decimal.Decimal, fief.Decimal128, fief.ObjectId, uuid.UUID, "
                        "or Optional[...] of one of them, or Optional[Model] for a link")
    return annotation, nullable, markers


@dataclass_transform(kw_only_default=True, field_specifiers=(Property,))
class Object:
    """Base class of model classes::

        class Dog(fief.Object):
            id: fief.PrimaryKey[int]
            name: str
            age: int = 0
            nickname: Optional[str] = None

    The stored class name is the Python class name, unless given with
    ``class Dog(fief.Object, name="Doggo")``.  Instances are unmanaged (plain
    values) until `Realm.add`; managed instances read and write the realm.
    """

    __fief_name__: ClassVar[str] = ""
    __fief_properties__: ClassVar[tuple[PropertySpec, ...]] = ()
    __fief_primary_key__: ClassVar[Optional[PropertySpec]] = None  # evaluated at run time: no X | None (3.9)
    __fief_embedded__: ClassVar[bool] = False
    __fief_linking_objects__: ClassVar[tuple[Backlinks, ...]] = ()
    _fief_by_attr: ClassVar[dict[str, PropertySpec]]

    def __init_subclass__(cls, name: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__fief_name__ = name or cls.__name__
        try:
            hints = _type_hints(cls)
        except Exception as exc:
            raise TypeError(f"cannot resolve the annotations of {cls.__qualname__}: {exc}") from exc
        specs: list[PropertySpec] = []
        for attr in _annotation_order(cls):
            hint = hints[attr]
            if attr.startswith("_") or typing.get_origin(hint) is ClassVar or hint is ClassVar:
                continue
            where = f"{cls.__qualname__}.{attr}"
            raw_default = _MISSING
            for klass in cls.__mro__:
                if attr in klass.__dict__:
                    raw_default = klass.__dict__[attr]
                    break
            if isinstance(raw_default, Backlinks):  # computed: not stored
                continue
            if isinstance(raw_default, PropertySpec):  # inherited descriptor
                specs.append(raw_default.copy())
                continue
            options = raw_default if isinstance(raw_default, PropertyOptions) else PropertyOptions(raw_default)
            kind, element = _collection_of(options.type if options.type is not None else hint, where)
            if kind == L.COLLECTION_LIST:
                specs.append(_list_spec(attr, options, element, where))
                continue
            if kind != L.COLLECTION_NONE:
                specs.append(_collection_spec(attr, options, kind, element, where))
                continue
            base, nullable, markers = _unwrap(options.type if options.type is not None else hint, where)
            if options.type is not None:
                _, hint_nullable, hint_markers = _unwrap(hint, where)
                nullable = nullable or hint_nullable
                markers |= hint_markers
            if options.optional is not None:
                nullable = options.optional
            target = _link_target(base)
            if target is not None and not nullable:
                raise TypeError(f"{where}: a link is always optional: declare it Optional[{target}] = None")
            if base is Mixed:
                if options.primary_key or _PRIMARY_KEY in markers:
                    raise TypeError(f"{where}: a mixed property cannot be the primary key (it can be indexed)")
                if options.full_text:
                    raise TypeError(f"{where}: a mixed property cannot be full-text indexed (only strings can)")
                if options.optional is False:
                    raise TypeError(f"{where}: a mixed property may always hold None")
                nullable = True
            spec = PropertySpec(
                attr=attr,
                name=options.name or attr,
                py_type=base if target is None else object,
                fief_type=_TYPE_MAP[base] if target is None else L.TYPE_LINK,
                link_target=target,
                nullable=nullable,
                primary_key=options.primary_key or _PRIMARY_KEY in markers,
                indexed=options.indexed or _INDEXED in markers,
                full_text=options.full_text or _FULL_TEXT in markers,
                default=options.default,
                default_factory=options.default_factory,
            )
            specs.append(spec)
        primary = [s for s in specs if s.primary_key]
        if len(primary) > 1:
            raise TypeError(f"{cls.__qualname__} declares more than one primary key: "
                            + ", ".join(s.attr for s in primary))
        names = [s.name for s in specs]
        if len(set(names)) != len(names):
            raise TypeError(f"{cls.__qualname__} stores two properties under one name")
        for spec in specs:
            spec.owner = cls
            setattr(cls, spec.attr, spec)
        cls.__fief_properties__ = tuple(specs)
        cls.__fief_linking_objects__ = _linking_objects(cls, names)
        cls.__fief_primary_key__ = primary[0] if primary else None
        cls._fief_by_attr = {s.attr: s for s in specs}

    def __init__(self, **values: Any) -> None:
        by_attr = type(self)._fief_by_attr if "_fief_by_attr" in type(self).__dict__ else {}
        state = self.__dict__
        state["_fief_values"] = {}
        for key, value in values.items():
            if key not in by_attr:
                if isinstance(getattr(type(self), key, None), Backlinks):
                    raise errors.NoSuchPropertyError(
                        f"{type(self).__fief_name__}.{key} lists the objects linking here: it takes no value")
                raise errors.NoSuchPropertyError(
                    f"{type(self).__fief_name__} has no property {key!r}")
            if by_attr[key].is_collection:
                value = collection_value(value, by_attr[key])
            state["_fief_values"][key] = value
        for spec in type(self).__fief_properties__:
            if spec.attr not in state["_fief_values"] and spec.has_default:
                state["_fief_values"][spec.attr] = spec.make_default()

    # -- state -------------------------------------------------------------

    @property
    def is_managed(self) -> bool:
        """Whether the object lives in a realm (see `Realm.add`)."""
        return self.__dict__.get("_fief_handle") is not None

    @property
    def is_valid(self) -> bool:
        """False once a managed object was deleted (or its realm closed);
        True for unmanaged objects."""
        handle = self.__dict__.get("_fief_handle")
        if handle is None:
            return True
        if handle.released:
            return False
        library = L.loaded()
        return bool(library and library.fief_object_is_valid(handle.ptr))

    @property
    def object_key(self) -> int | None:
        """The object's key in its class (None when unmanaged)."""
        handle = self.__dict__.get("_fief_handle")
        if handle is None:
            return None
        key: int = self.__dict__["_fief_binding"].object_key(handle)
        return key

    @property
    def realm(self) -> Realm | None:
        """The realm of a managed object (None when unmanaged)."""
        handle = self.__dict__.get("_fief_handle")
        if handle is None:
            return None
        realm: Realm = self.__dict__["_fief_binding"].schema.realm_of_object(handle)
        return realm

    @property
    def is_frozen(self) -> bool:
        handle = self.__dict__.get("_fief_handle")
        return handle is not None and self.__dict__["_fief_binding"].schema.frozen

    def freeze(self: _O) -> _O:
        """The object in a frozen snapshot of its realm's current version
        (inside a write transaction: as the transaction began; an object
        created in it cannot be frozen)."""
        realm = self.realm
        if realm is None:
            raise errors.LogicError("an unmanaged object cannot be frozen")
        if realm.is_frozen:
            return self
        frozen = realm.freeze()._resolve_object(self)
        if frozen is None:
            raise errors.LogicError("cannot freeze an object in the same write transaction as it was created in")
        return typing.cast(_O, frozen)

    def thaw(self: _O) -> _O | None:
        """The object in a live realm at the newest version (None if deleted)."""
        realm = self.realm
        if realm is None:
            raise errors.LogicError("an unmanaged object cannot be thawed")
        if not realm.is_frozen:
            return self
        return typing.cast("_O | None", realm.thaw()._resolve_object(self))

    def observe(self, callback: "Callable[[ObjectChange], None]",
                key_paths: "list[str] | None" = None) -> "NotificationToken":
        """Call ``callback(change)`` when this managed object changes
        (RealmSwift's ``Object.observe``): ``change.deleted`` once when it
        is deleted, else ``change.changed`` (attribute names) with
        ``change.old_values`` and ``change.new_values``; several commits
        between two deliveries make one call.  Without ``key_paths``, the
        object's own properties; with them (``["name"]``, ``["dog.name"]``,
        ``["dogs"]``, ``["*"]``, ``["dogs.*"]``: the model's attribute names,
        given to the library as the stored names they map to), only the
        properties they name, also through links and lists (``"dogs.name"``
        reports ``dogs`` when a dog's name changes).  Callbacks run in the
        realm's ``process_notifications()``, also for its own commits (never
        inside them).  A key path naming nothing raises NoSuchPropertyError; a
        deleted object, one of a frozen realm, or a call inside a write
        transaction raise too."""
        from .notifications import add_object_notification_callback
        return add_object_notification_callback(self, callback, key_paths)

    def _fief_link(self) -> Link:
        """The link to this (managed) object, for link values and query arguments."""
        from ._values import Link
        handle = self.__dict__.get("_fief_handle")
        if handle is None:
            raise errors.LogicError(f"this {type(self).__fief_name__} is not in a realm yet: add it before linking to it")
        binding = self.__dict__["_fief_binding"]
        return Link(binding.class_key, binding.object_key(handle))

    def release(self) -> None:
        """Give the object's handle back now (it becomes unusable)."""
        handle = self.__dict__.get("_fief_handle")
        if handle is not None:
            handle.release()

    def to_dict(self) -> dict[str, Any]:
        """The property values, by attribute name."""
        state = self.__dict__
        handle = state.get("_fief_handle")
        if handle is not None:
            values: dict[str, Any] = state["_fief_binding"].get_all(handle)
            return values
        return {spec.attr: getattr(self, spec.attr) for spec in type(self).__fief_properties__}

    # -- comparison ---------------------------------------------------------

    def _identity(self) -> tuple[Any, ...] | None:
        handle = self.__dict__.get("_fief_handle")
        if handle is None:
            return None
        binding = self.__dict__["_fief_binding"]
        try:
            return (binding.schema.path, binding.class_key, binding.object_key(handle))
        except errors.FiefError:
            return None

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Object):
            return NotImplemented
        mine, theirs = self._identity(), other._identity()
        return mine is not None and mine == theirs

    def __hash__(self) -> int:
        identity = self._identity()
        return hash(identity) if identity is not None else id(self)

    def __repr__(self) -> str:
        cls = type(self)
        state = self.__dict__
        # Graphs have cycles (a friend's friends list this object): an object
        # met again while it is being shown is shown by name only.
        seen = _repr_seen()
        me = self._identity() or id(self)
        if me in seen:
            return f"{cls.__name__}(...)"
        seen.add(me)
        try:
            handle = state.get("_fief_handle")
            if handle is not None:
                try:
                    values = state["_fief_binding"].get_all(handle)
                except errors.FiefError as exc:
                    return f"<{cls.__name__} (managed, {exc.__class__.__name__})>"
            else:
                values = {spec.attr: getattr(self, spec.attr) for spec in cls.__fief_properties__}
            body = ", ".join(f"{k}={v!r}" for k, v in values.items())
            return f"{cls.__name__}({body})"
        finally:
            seen.discard(me)


_repr_state = threading.local()


def _repr_seen() -> set[Any]:
    seen = getattr(_repr_state, "seen", None)
    if seen is None:
        seen = _repr_state.seen = set()
    return seen


def _linking_objects(cls: type, stored: list[str]) -> tuple[Backlinks, ...]:
    """The Backlinks of `cls` (its own and inherited, base classes first)."""
    found: dict[str, Backlinks] = {}
    for klass in reversed(cls.__mro__):
        for attr, value in klass.__dict__.items():
            if isinstance(value, Backlinks):
                found[attr] = value
    result = tuple(found.values())
    for backlinks in result:
        if backlinks.name in stored:
            raise TypeError(f"{cls.__qualname__}.{backlinks.attr}: a property named {backlinks.name!r} is stored too")
    return result


def _annotation_order(cls: type) -> list[str]:
    """Annotated attribute names, base classes first, in declaration order."""
    order: list[str] = []
    for klass in reversed(cls.__mro__):
        for attr in klass.__dict__.get("__annotations__", {}):
            if attr not in order:
                order.append(attr)
    return order


class EmbeddedObject(Object):
    """Base class of embedded model classes: objects owned by one parent's
    link, created in place when assigned to it (or when the parent is
    added), deleted with their parent or when replaced::

        class Address(fief.EmbeddedObject):
            street: str = ""

        class Person(fief.Object):
            name: str = ""
            address: Optional[Address] = None

    They are never added, listed (`Realm.objects`) or linked on their own.
    """

    __fief_embedded__: ClassVar[bool] = True
