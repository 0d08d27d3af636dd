"""Mixed values (``fief.Mixed``): checking what is written before anything
is, plain copies of what was read, and Realm's equality of mixed values."""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import errors
from ._types import ObjectId
from ._values import Link
from .model import Object

if TYPE_CHECKING:  # pragma: no cover
    from .realm import SchemaBinding

# Python values a mixed value holds as they are (bytearray and memoryview are
# copied to bytes).
_SCALARS = (bool, int, float, str, bytes, _dt.datetime, decimal.Decimal, ObjectId, uuid.UUID, Link)
_BYTES_LIKE = (bytearray, memoryview)
_TEXT_LIKE = (str, bytes, bytearray, memoryview)

_KINDS = ("None, bool, int, float, str, bytes, datetime.datetime, decimal.Decimal (fief.Decimal128), "
          "fief.ObjectId, uuid.UUID, a model object in the realm, fief.Link")


def is_nested(value: Any) -> bool:
    """Whether a prepared value is a nested list or dict."""
    return isinstance(value, (list, dict))


def prepare(value: Any, schema: "SchemaBinding", where: str, *, nested: bool = True) -> Any:
    """`value` checked as a mixed value for the realm of `schema`, as the
    write takes it: scalars as they are, a sequence (list, tuple, a live
    fief.List) as a Python list and a mapping (dict, a live fief.Dict) as
    a Python dict of prepared values, copied now (so writing a live nested
    collection into the slot that holds it copies what it held).  Refused,
    before anything is written: types a mixed value cannot hold
    (TypeMismatchError), a list or dict where `nested` is false (a set's
    elements), keys that are not str, ints beyond 64 bits, a value
    containing itself, objects that cannot be linked (see `check_link`)
    and fief.Links that name no object.  Nested values are walked with a
    stack of their own, not by recursion: any depth works (Python's
    recursion limit does not apply)."""
    word = _container_word(value)
    if word is None:
        return _prepare_scalar(value, schema, lambda: where, nested)
    if not nested:
        raise errors.TypeMismatchError(
            f"{where}: a set of mixed values cannot hold a {word} (only lists and dicts of mixed values "
            "nest collections)")
    # Each open container: (its value, its items, the prepared copy); `path`
    # the keys and positions down to the current one, made into the text
    # naming a value only for an error (so a deep value costs O(depth)).
    path: list[Any] = []

    def where_now() -> str:
        return where + "".join(f"[{step!r}]" for step in path)

    def where_at(key: Any) -> Callable[[], str]:
        return lambda: f"{where_now()}[{key!r}]"

    open_ids = {id(value)}
    top: Any = {} if word == "dict" else []
    stack = [(value, _items(value, word), top)]
    while stack:
        source, items, out = stack[-1]
        step = next(items, None)
        if step is None:
            stack.pop()
            if path:
                path.pop()
            open_ids.discard(id(source))
            continue
        key, item = step
        if isinstance(out, dict) and not isinstance(key, str):
            raise errors.TypeMismatchError(
                f"{where_now()}: the keys of a dict in a mixed value are strings, "
                f"not {type(key).__name__} ({key!r})")
        item_word = _container_word(item)
        if item_word is None:
            prepared = _prepare_scalar(item, schema, where_at(key), True)
        else:
            if id(item) in open_ids:
                raise errors.InvalidArgumentError(f"{where_at(key)()}: the {item_word} contains itself")
            open_ids.add(id(item))
            prepared = {} if item_word == "dict" else []
            stack.append((item, _items(item, item_word), prepared))
            path.append(key)
        if isinstance(out, dict):
            out[key] = prepared
        else:
            out.append(prepared)
    return top


def _container_word(value: Any) -> str | None:
    """"dict" for a mapping, "list" for a sequence that is not text or
    bytes, None for anything else (a scalar, an object, a fief.Link)."""
    if isinstance(value, Link) or value is None or isinstance(value, _SCALARS) or isinstance(value, Object):
        return None
    if isinstance(value, Mapping):
        return "dict"
    if isinstance(value, Sequence) and not isinstance(value, _TEXT_LIKE):
        return "list"
    return None


def _items(value: Any, word: str) -> Iterator[tuple[Any, Any]]:
    return iter(value.items()) if word == "dict" else enumerate(value)


def _prepare_scalar(value: Any, schema: "SchemaBinding", where: Callable[[], str], nested: bool) -> Any:
    """A value that is not a list or dict, checked; `where` makes the text
    naming it (for errors only)."""
    if isinstance(value, Link):
        schema.check_link(value, where())  # one that names no object fails here, before any write
        return value
    if value is None or isinstance(value, _SCALARS):
        if isinstance(value, int) and not isinstance(value, bool) and not -(1 << 63) <= value < (1 << 63):
            raise errors.InvalidArgumentError(f"{where()}: {value} does not fit in 64 bits")
        return value
    if isinstance(value, _BYTES_LIKE):
        return bytes(value)
    if isinstance(value, Object):
        check_link(value, schema, where())
        return value
    raise errors.TypeMismatchError(f"{where()}: a value of type {type(value).__name__!r} cannot be a mixed value; "
                                   f"give {_KINDS}" + (", or a list or dict of them" if nested else ""))


def check_link(obj: Object, schema: "SchemaBinding", where: str) -> None:
    """Refuse a model object a mixed value cannot link to: one not in a
    realm yet (LogicError: add it first), an embedded one
    (InvalidArgumentError), one of another realm file (LogicError), a
    deleted one (NoSuchObjectError)."""
    name = type(obj).__fief_name__
    if not obj.is_managed:
        raise errors.LogicError(f"{where}: this {name} is not in the realm: add it before a mixed value "
                                "links to it")
    if obj.__fief_embedded__:
        raise errors.InvalidArgumentError(f"{where}: a mixed value cannot link to an embedded object "
                                          f"({name} lives only in its parent)")
    theirs = obj.__dict__["_fief_binding"].schema
    if theirs is not schema and (theirs.path is None or theirs.path != schema.path):
        raise errors.LogicError(f"{where}: a link cannot point to an object of another realm file")
    if not obj.is_valid:
        raise errors.NoSuchObjectError(f"{where}: the {name} was deleted (or its realm closed): "
                                       "a mixed value cannot link to it")


def plain(value: Any) -> Any:
    """A value read from a mixed slot as plain Python data: a live nested
    fief.List as a list and a fief.Dict as a dict, to any depth (walked
    with a stack of its own, not by recursion); anything else as it is."""
    word = _plain_word(value)
    if word is None:
        return value
    top: Any = {} if word == "dict" else []
    stack = [(_items(value, word), top)]
    while stack:
        items, out = stack[-1]
        step = next(items, None)
        if step is None:
            stack.pop()
            continue
        key, item = step
        item_word = _plain_word(item)
        if item_word is None:
            copied = item
        else:
            copied = {} if item_word == "dict" else []
            stack.append((_items(item, item_word), copied))
        if isinstance(out, dict):
            out[key] = copied
        else:
            out.append(copied)
    return top


def _plain_word(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return "dict"
    if isinstance(value, Sequence) and not isinstance(value, _TEXT_LIKE):
        return "list"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def _is_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, decimal.Decimal) and value.is_nan()


def _link_of(value: Any) -> Link | None:
    if isinstance(value, Link):
        return value
    if isinstance(value, Object) and value.is_managed:
        try:
            return value._fief_link()
        except errors.FiefError:
            return None
    return None


def mixed_equal(a: Any, b: Any) -> bool:
    """Whether two mixed values are equal as the library compares them
    (Realm's rules): numbers by value across int, float and decimal (1,
    1.0 and Decimal(1) are equal; every NaN is one NaN), a bool only to a
    bool (True is not 1), a string only to a string ("1" is not 1), an
    object to itself (a model object and its fief.Link too)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        if _is_nan(a) or _is_nan(b):
            return _is_nan(a) and _is_nan(b)
        return bool(a == b)
    link_a, link_b = _link_of(a), _link_of(b)
    if link_a is not None or link_b is not None:
        return link_a == link_b
    return bool(a == b)
