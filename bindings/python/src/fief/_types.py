"""Value types with no exact Python standard equivalent: Decimal128, ObjectId, Float32;
the Mixed annotation."""

from __future__ import annotations

import binascii
import datetime as _dt
import decimal
import os
import random
import struct
import threading
import time
from typing import Any

# ---------------------------------------------------------------------------
# IEEE 754-2008 decimal128, binary integer decimal (BID) encoding
# ---------------------------------------------------------------------------
#
# 128 bits, most significant first:
#   bit 127            sign
#   bits 126..122      combination field; 11111 = NaN (bit 121: signalling),
#                      11110 = infinity
#   if bits 126..125 != 11:  bits 126..113 biased exponent (14 bits),
#                            bits 112..0 coefficient (113 bits)
#   else:                    bits 124..111 biased exponent,
#                            coefficient = 100b followed by bits 110..0
#                            (always > 10**34 - 1: non-canonical, reads as 0)
# The coefficient has at most 34 decimal digits; exponent bias 6176, so the
# unbiased exponent spans -6176 .. 6111.

_BID_BIAS = 6176
_BID_MAX_BIASED_EXPONENT = 0x2FFF  # 12287: 3 * 2**12 - 1
_BID_MAX_COEFFICIENT = 10 ** 34 - 1
_MASK64 = (1 << 64) - 1
_SIGN = 1 << 63
_INF_HIGH = 0x78 << 56  # 0 11110 ...
_QNAN_HIGH = 0x7C << 56  # 0 11111 0 ...
_SNAN_HIGH = 0x7E << 56  # 0 11111 1 ...

DECIMAL128_CONTEXT = decimal.Context(
    prec=34, rounding=decimal.ROUND_HALF_EVEN, Emin=-6143, Emax=6144, clamp=1, traps=[])


def decimal_to_bid(value: decimal.Decimal | int | str) -> tuple[int, int]:
    """Encode a decimal as decimal128 BID: (low 64 bits, high 64 bits).

    Values with more than 34 significant digits are rounded half-even, as an
    IEEE decimal128 operation would; magnitudes beyond the range become
    infinities, tiny ones round towards zero (subnormals)."""
    if not isinstance(value, decimal.Decimal):
        value = decimal.Decimal(value)
    sign = _SIGN if value.is_signed() else 0
    if value.is_nan():
        high = _SNAN_HIGH if value.is_snan() else _QNAN_HIGH
        payload = value.as_tuple().digits
        coefficient = int("".join(map(str, payload))) if payload else 0
        if coefficient >= 10 ** 33:  # payloads have at most 33 digits
            coefficient = 0
        return coefficient & _MASK64, sign | high | (coefficient >> 64)
    if value.is_infinite():
        return 0, sign | _INF_HIGH
    value = DECIMAL128_CONTEXT.create_decimal(value)
    if value.is_infinite():  # overflowed while rounding
        return 0, sign | _INF_HIGH
    _, digits, exponent = value.as_tuple()
    coefficient = int("".join(map(str, digits))) if digits else 0
    assert isinstance(exponent, int)  # finite: not "n", "N" or "F"
    biased = exponent + _BID_BIAS
    # clamp=1 keeps the exponent within Etop; fold any leftover by scaling.
    while biased > _BID_MAX_BIASED_EXPONENT and coefficient * 10 <= _BID_MAX_COEFFICIENT:
        coefficient *= 10
        biased -= 1
    if biased < 0:
        # Only zero can get here (Etiny == -6176); normalise its exponent.
        if coefficient:
            raise OverflowError(f"{value} is too small for decimal128")
        biased = 0
    if biased > _BID_MAX_BIASED_EXPONENT:
        return 0, sign | _INF_HIGH
    high = sign | (biased << 49) | (coefficient >> 64)
    return coefficient & _MASK64, high


def bid_to_decimal(low: int, high: int) -> decimal.Decimal:
    """Decode decimal128 BID words (low 64 bits, high 64 bits) to a Decimal."""
    low &= _MASK64
    high &= _MASK64
    sign = 1 if high & _SIGN else 0
    combination = (high >> 58) & 0x1F
    if combination == 0x1F:
        coefficient = ((high & ((1 << 46) - 1)) << 64) | low
        if coefficient >= 10 ** 33:
            coefficient = 0
        kind = "N" if (high >> 57) & 1 else "n"
        return decimal.Decimal((sign, tuple(map(int, str(coefficient))) if coefficient else (), kind))  # type: ignore[arg-type]
    if combination == 0x1E:
        return decimal.Decimal((sign, (0,), "F"))  # type: ignore[arg-type]
    if (high >> 61) & 0x3 == 0x3:
        exponent = (high >> 47) & 0x3FFF
        coefficient = 0  # 100b prefix: beyond 10**34 - 1, non-canonical
    else:
        exponent = (high >> 49) & 0x3FFF
        coefficient = ((high & ((1 << 49) - 1)) << 64) | low
        if coefficient > _BID_MAX_COEFFICIENT:
            coefficient = 0
    return decimal.Decimal((sign, tuple(map(int, str(coefficient))), exponent - _BID_BIAS))


class Decimal128(decimal.Decimal):
    """A decimal.Decimal stored as IEEE 754-2008 decimal128 (BID).

    Annotate a property with ``fief.Decimal128`` (or ``decimal.Decimal``) to
    store decimals; values read back are Decimal128 (or decimal.Decimal)."""

    def __new__(cls, value: Any = "0", context: decimal.Context | None = None) -> Decimal128:
        if isinstance(value, float):
            value = repr(value)  # the shortest round-tripping digits, as users expect
        return super().__new__(cls, value, context)

    @classmethod
    def from_bid(cls, low: int, high: int) -> "Decimal128":
        return cls(bid_to_decimal(low, high))

    @classmethod
    def from_bytes(cls, data: bytes) -> "Decimal128":
        """From the 16-byte little-endian in-memory form of the BID value."""
        low, high = struct.unpack("<QQ", bytes(data))
        return cls.from_bid(low, high)

    def to_bid(self) -> tuple[int, int]:
        return decimal_to_bid(self)

    def to_bytes(self) -> bytes:
        return struct.pack("<QQ", *self.to_bid())

    def __repr__(self) -> str:
        return f"Decimal128('{self}')"


# ---------------------------------------------------------------------------
# ObjectId
# ---------------------------------------------------------------------------

class ObjectId:
    """A 12-byte object id, as BSON's: 4 bytes of big-endian seconds since the
    epoch, 5 bytes random per process, 3 bytes of an incrementing counter."""

    __slots__ = ("_bytes",)

    _lock = threading.Lock()
    _pid: int | None = None
    _process_random = b""
    _counter = 0

    def __init__(self, value: "ObjectId | bytes | bytearray | str | None" = None):
        if value is None:
            self._bytes = ObjectId._generate()
        elif isinstance(value, ObjectId):
            self._bytes = value._bytes
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            if len(data) != 12:
                raise ValueError(f"an ObjectId has 12 bytes, not {len(data)}")
            self._bytes = data
        elif isinstance(value, str):
            if len(value) != 24:
                raise ValueError(f"an ObjectId string has 24 hex digits: {value!r}")
            try:
                self._bytes = binascii.unhexlify(value)
            except (binascii.Error, ValueError):
                raise ValueError(f"not a hex ObjectId: {value!r}") from None
        else:
            raise TypeError(f"cannot make an ObjectId from {type(value).__name__}")

    @classmethod
    def _generate(cls) -> bytes:
        with cls._lock:
            pid = os.getpid()
            if cls._pid != pid:  # new process (or fork): new random part
                cls._pid = pid
                cls._process_random = os.urandom(5)
                cls._counter = random.SystemRandom().randrange(1 << 24)
            cls._counter = (cls._counter + 1) & 0xFFFFFF
            counter = cls._counter
            process_random = cls._process_random
        seconds = int(time.time()) & 0xFFFFFFFF
        return struct.pack(">I", seconds) + process_random + counter.to_bytes(3, "big")

    @classmethod
    def from_datetime(cls, when: _dt.datetime) -> "ObjectId":
        """An id whose time part is `when` and whose other bytes are zero
        (for range queries on generation time)."""
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.timezone.utc)
        seconds = int(when.timestamp()) & 0xFFFFFFFF
        return cls(struct.pack(">I", seconds) + bytes(8))

    @staticmethod
    def is_valid(value: object) -> bool:
        try:
            ObjectId(value)  # type: ignore[arg-type]
            return True
        except (TypeError, ValueError):
            return False

    @property
    def binary(self) -> bytes:
        return self._bytes

    def __bytes__(self) -> bytes:
        return self._bytes

    @property
    def generation_time(self) -> _dt.datetime:
        seconds = struct.unpack(">I", self._bytes[:4])[0]
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc)

    def __str__(self) -> str:
        return self._bytes.hex()

    def __repr__(self) -> str:
        return f"ObjectId('{self}')"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ObjectId):
            return self._bytes == other._bytes
        return NotImplemented

    def __lt__(self, other: "ObjectId") -> bool:
        if isinstance(other, ObjectId):
            return self._bytes < other._bytes
        return NotImplemented

    def __le__(self, other: "ObjectId") -> bool:
        if isinstance(other, ObjectId):
            return self._bytes <= other._bytes
        return NotImplemented

    def __gt__(self, other: "ObjectId") -> bool:
        if isinstance(other, ObjectId):
            return self._bytes > other._bytes
        return NotImplemented

    def __ge__(self, other: "ObjectId") -> bool:
        if isinstance(other, ObjectId):
            return self._bytes >= other._bytes
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ObjectId, (self._bytes,))


class Float32(float):
    """Annotation marker: a float stored as a 32-bit IEEE float.

    ``ratio: fief.Float32`` declares a FIEF_TYPE_FLOAT property; values read
    back are plain floats (widened from 32 bits)."""


class Mixed:
    """Annotation marker: a mixed value (Realm's AnyRealmValue).

    ``extra: fief.Mixed`` declares a property that holds None or a value of
    any type the package stores -- bool, int, float, str, bytes, datetime,
    Decimal128 (or decimal.Decimal), ObjectId, UUID --, a link to an object
    of any (non-embedded) class, or a nested list or dict of mixed values;
    ``list[fief.Mixed]``, ``set[fief.Mixed]`` and ``dict[str, fief.Mixed]``
    declare collections of them.  Values are plain Python values both ways;
    it is never instantiated."""

    def __new__(cls, *args: object, **kwargs: object) -> "Mixed":
        raise TypeError("fief.Mixed is an annotation (x: fief.Mixed), not a value: "
                        "store plain Python values in a mixed property")
