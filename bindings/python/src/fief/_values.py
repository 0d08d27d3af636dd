"""Conversion between Python values and fief_value_t."""

from __future__ import annotations

import ctypes
from typing import Any
import datetime as _dt
import decimal
import uuid

from . import _lib as L
from . import errors
from ._types import Decimal128, Float32, ObjectId, bid_to_decimal, decimal_to_bid
from .geo import GeoShape, fill_shape_value

EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_US = 1_000_000


def datetime_to_timestamp(value: _dt.datetime) -> tuple[int, int]:
    """(seconds, nanoseconds) since the epoch, both of the same sign.
    A naive datetime is taken as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    delta = value - EPOCH
    total_us = (delta.days * 86400 + delta.seconds) * _US + delta.microseconds
    sign = -1 if total_us < 0 else 1
    seconds = sign * (abs(total_us) // _US)
    micros = total_us - seconds * _US  # same sign as seconds (or 0)
    return seconds, micros * 1000


def timestamp_to_datetime(seconds: int, nanoseconds: int) -> _dt.datetime:
    """An aware UTC datetime (microsecond precision: nanoseconds truncate)."""
    # Towards zero, like the nanoseconds' sign, in integers (no float division).
    micros = abs(nanoseconds) // 1000 * (-1 if nanoseconds < 0 else 1)
    return EPOCH + _dt.timedelta(seconds=seconds, microseconds=micros)


class Link:
    """A link to an object as the library gives it: class key and object key
    (`fief.Object` attributes turn it into the model object)."""

    __slots__ = ("class_key", "object_key")

    def __init__(self, class_key: int, object_key: int) -> None:
        self.class_key = class_key
        self.object_key = object_key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Link) and (self.class_key, self.object_key) == (other.class_key, other.object_key)

    def __hash__(self) -> int:
        return hash((self.class_key, self.object_key))

    def __repr__(self) -> str:
        return f"fief.Link({self.class_key}, {self.object_key})"


class Nested:
    """What a mixed value holding a nested list or dictionary reads as at
    first (FIEF_TYPE_LIST / FIEF_TYPE_MAP carry no payload): the
    collection holding it turns it into a live fief.List or fief.Dict."""

    __slots__ = ("type",)

    def __init__(self, fief_type: int) -> None:
        self.type = fief_type

    @property
    def is_list(self) -> bool:
        return self.type == L.TYPE_LIST

    def __repr__(self) -> str:
        return "<nested list>" if self.is_list else "<nested dict>"


NESTED_LIST = Nested(L.TYPE_LIST)
NESTED_DICT = Nested(L.TYPE_MAP)


class Keep:
    """Keeps the buffers that values passed in point to alive for one call."""

    __slots__ = ("buffers",)

    def __init__(self) -> None:
        self.buffers: list[object] = []

    def view(self, data: bytes) -> tuple[int | None, int]:
        if not data:
            return None, 0
        buf = (ctypes.c_char * len(data)).from_buffer_copy(data)
        self.buffers.append(buf)
        return ctypes.addressof(buf), len(data)


def encode_string(value: str) -> bytes:
    # surrogatepass lets a lone surrogate through as (invalid) UTF-8, for the
    # library to reject with FIEF_ERR_INVALID_UTF8 rather than failing here.
    return value.encode("utf-8", "surrogatepass")


def to_value(value: object, out: L.fief_value_t, keep: Keep, prop_type: int | None = None) -> None:
    """Fill `out` from a Python value.  `prop_type` (the target property's
    FIEF_TYPE_*) only refines the choice (float vs double, int to decimal);
    the library checks that the type fits.  Where a mixed value goes
    (`prop_type` FIEF_TYPE_MIXED) a fief.Float32 is a 32-bit float, and a
    Python list or dict (already checked: see fief._mixed.prepare) is a new
    nested collection, filled by the caller after the write."""
    if value is None:
        out.type = L.TYPE_NULL
    elif isinstance(value, bool):
        out.type = L.TYPE_BOOL
        out.u.boolean = value
    elif isinstance(value, int):
        if prop_type == L.TYPE_DECIMAL128:
            out.type = L.TYPE_DECIMAL128
            low, high = decimal_to_bid(decimal.Decimal(value))
            out.u.decimal128.w[0] = low
            out.u.decimal128.w[1] = high
        else:
            if not -(1 << 63) <= value < (1 << 63):
                raise errors.InvalidArgumentError(f"{value} does not fit in 64 bits")
            out.type = L.TYPE_INT
            out.u.integer = value
    elif isinstance(value, float):
        if prop_type == L.TYPE_FLOAT or (prop_type == L.TYPE_MIXED and isinstance(value, Float32)):
            out.type = L.TYPE_FLOAT
            out.u.float_value = value
        else:
            out.type = L.TYPE_DOUBLE
            out.u.double_value = value
    elif isinstance(value, str):
        out.type = L.TYPE_STRING
        data, size = keep.view(encode_string(value))
        out.u.string.data = data
        out.u.string.size = size
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out.type = L.TYPE_BINARY
        data, size = keep.view(bytes(value))
        out.u.binary.data = data
        out.u.binary.size = size
    elif isinstance(value, _dt.datetime):
        out.type = L.TYPE_TIMESTAMP
        seconds, nanoseconds = datetime_to_timestamp(value)
        out.u.timestamp.seconds = seconds
        out.u.timestamp.nanoseconds = nanoseconds
    elif isinstance(value, decimal.Decimal):
        out.type = L.TYPE_DECIMAL128
        low, high = decimal_to_bid(value)
        out.u.decimal128.w[0] = low
        out.u.decimal128.w[1] = high
    elif isinstance(value, ObjectId):
        out.type = L.TYPE_OBJECT_ID
        ctypes.memmove(out.u.object_id.bytes, value.binary, 12)
    elif isinstance(value, uuid.UUID):
        out.type = L.TYPE_UUID
        ctypes.memmove(out.u.uuid.bytes, value.bytes, 16)
    elif isinstance(value, Link):
        out.type = L.TYPE_LINK
        out.u.link.class_key = value.class_key
        out.u.link.object_key = value.object_key
    elif prop_type == L.TYPE_MIXED and isinstance(value, list):
        out.type = L.TYPE_LIST
    elif prop_type == L.TYPE_MIXED and isinstance(value, dict):
        out.type = L.TYPE_MAP
    elif hasattr(value, "_fief_link"):
        link = value._fief_link()
        out.type = L.TYPE_LINK
        out.u.link.class_key = link.class_key
        out.u.link.object_key = link.object_key
    else:
        raise errors.TypeMismatchError(
            f"a {type(value).__name__} cannot be stored in Fief"
            + (f" (the property holds {L.TYPE_NAMES.get(prop_type, prop_type)})" if prop_type else ""))


def make_value(value: object, keep: Keep, prop_type: int | None = None) -> L.fief_value_t:
    out = L.fief_value_t()
    to_value(value, out, keep, prop_type)
    return out


def from_value(v: L.fief_value_t, py_type: type | None = None) -> object:
    """A Python value copied out of `v` (views are copied, never kept)."""
    t = v.type
    if t == L.TYPE_NULL:
        return None
    if t == L.TYPE_INT:
        return int(v.u.integer)
    if t == L.TYPE_BOOL:
        return bool(v.u.boolean)
    if t == L.TYPE_STRING:
        size = v.u.string.size
        if not size:
            return ""
        return ctypes.string_at(v.u.string.data, size).decode("utf-8", "surrogateescape")
    if t == L.TYPE_BINARY:
        size = v.u.binary.size
        if not size:
            return b""
        return ctypes.string_at(v.u.binary.data, size)
    if t == L.TYPE_TIMESTAMP:
        return timestamp_to_datetime(int(v.u.timestamp.seconds), int(v.u.timestamp.nanoseconds))
    if t == L.TYPE_FLOAT:
        return float(v.u.float_value)
    if t == L.TYPE_DOUBLE:
        return float(v.u.double_value)
    if t == L.TYPE_DECIMAL128:
        value = bid_to_decimal(int(v.u.decimal128.w[0]), int(v.u.decimal128.w[1]))
        if py_type is decimal.Decimal:
            return value
        return Decimal128(value)
    if t == L.TYPE_OBJECT_ID:
        return ObjectId(bytes(v.u.object_id.bytes))
    if t == L.TYPE_UUID:
        return uuid.UUID(bytes=bytes(v.u.uuid.bytes))
    if t == L.TYPE_LINK:
        return Link(int(v.u.link.class_key), int(v.u.link.object_key))
    if t == L.TYPE_LIST:
        return NESTED_LIST
    if t == L.TYPE_MAP:
        return NESTED_DICT
    raise errors.FiefError(f"the library returned a value of unknown type {t}")


def make_query_args(args: tuple[Any, ...], keep: Keep) -> tuple[object, int]:
    """A fief_query_arg_t array for `args` (lists/tuples/sets become lists)."""
    n = len(args)
    if not n:
        return None, 0
    array = (L.fief_query_arg_t * n)()
    for i, arg in enumerate(args):
        if isinstance(arg, GeoShape):
            values = (L.fief_value_t * 1)()
            fill_shape_value(arg, values[0], keep.buffers)
            keep.buffers.append(values)
            array[i].count = 1
            array[i].is_list = False
            array[i].values = ctypes.cast(values, ctypes.POINTER(L.fief_value_t))
        elif isinstance(arg, (list, tuple, set, frozenset)):
            items = list(arg)
            values = (L.fief_value_t * max(len(items), 1))()
            for j, item in enumerate(items):
                if isinstance(item, GeoShape):
                    fill_shape_value(item, values[j], keep.buffers)  # refused by the library, with its message
                else:
                    to_value(item, values[j], keep)
            keep.buffers.append(values)
            array[i].count = len(items)
            array[i].is_list = True
            array[i].values = ctypes.cast(values, ctypes.POINTER(L.fief_value_t))
        else:
            values = (L.fief_value_t * 1)()
            to_value(arg, values[0], keep)
            keep.buffers.append(values)
            array[i].count = 1
            array[i].is_list = False
            array[i].values = ctypes.cast(values, ctypes.POINTER(L.fief_value_t))
    keep.buffers.append(array)
    return array, n
