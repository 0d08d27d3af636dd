"""Parts of the binding that need no library: value encodings, model
declarations, the error mapping."""

from __future__ import annotations

import datetime as dt
import decimal
import struct
import uuid
from typing import Optional

import pytest

import fief
from fief import _lib as L
from fief._types import bid_to_decimal, decimal_to_bid
from fief._values import datetime_to_timestamp, timestamp_to_datetime

# -- decimal128 BID ---------------------------------------------------------

# (text, high word, low word): reference encodings of IEEE 754-2008 decimal128 BID
BID_VECTORS = [
    ("0", 0x3040000000000000, 0x0),
    ("1", 0x3040000000000000, 0x1),
    ("-1", 0xB040000000000000, 0x1),
    ("0.1", 0x303E000000000000, 0x1),
    ("-1.5", 0xB03E000000000000, 0xF),
    ("12345678901234567890", 0x3040000000000000, 12345678901234567890),
    ("9999999999999999999999999999999999", 0x3041ED09BEAD87C0, 0x378D8E63FFFFFFFF),
    ("1E+6111", 0x5FFE000000000000, 0x1),
    ("1E-6176", 0x0000000000000000, 0x1),
    ("-0", 0xB040000000000000, 0x0),
    ("0E-6176", 0x0000000000000000, 0x0),
    ("Infinity", 0x7800000000000000, 0x0),
    ("-Infinity", 0xF800000000000000, 0x0),
    ("NaN", 0x7C00000000000000, 0x0),
    ("sNaN", 0x7E00000000000000, 0x0),
]


@pytest.mark.parametrize("text,high,low", BID_VECTORS)
def test_decimal128_bid_vectors(text, high, low):
    assert decimal_to_bid(decimal.Decimal(text)) == (low, high)
    back = bid_to_decimal(low, high)
    if back.is_nan():
        assert decimal.Decimal(text).is_nan() and back.is_snan() == decimal.Decimal(text).is_snan()
    else:
        assert str(back) == str(decimal.Decimal(text)) or back == decimal.Decimal(text)
        assert back.is_signed() == decimal.Decimal(text).is_signed()


@pytest.mark.parametrize("text", ["3.14159", "-273.15", "1E+100", "123456789.000000001", "0.000",
                                  "-0E+5", "1234567890123456789012345678901234", "5E-6170"])
def test_decimal128_round_trip_keeps_digits_and_exponent(text):
    d = decimal.Decimal(text)
    back = bid_to_decimal(*decimal_to_bid(d))
    assert back.as_tuple() == d.as_tuple()


def test_decimal128_rounds_to_34_digits_and_overflows():
    d = decimal.Decimal("1.23456789012345678901234567890123456789")
    back = bid_to_decimal(*decimal_to_bid(d))
    assert len(back.as_tuple().digits) == 34
    assert back == decimal.Decimal("1.234567890123456789012345678901235")
    assert bid_to_decimal(*decimal_to_bid(decimal.Decimal("1E+7000"))) == decimal.Decimal("Infinity")
    assert bid_to_decimal(*decimal_to_bid(decimal.Decimal("1E+6144"))) == decimal.Decimal("1E+6144")
    assert bid_to_decimal(*decimal_to_bid(decimal.Decimal("1E-7000"))) == 0


def test_decimal128_non_canonical_reads_as_zero():
    # coefficient above 10**34 - 1 in the first form
    assert bid_to_decimal(0xFFFFFFFFFFFFFFFF, 0x3041FFFFFFFFFFFF) == 0
    # second form (bits 126..125 == 11) is always non-canonical
    assert bid_to_decimal(0x5, 0x6000000000000000) == 0


def test_decimal128_class():
    d = fief.Decimal128("2.50")
    assert isinstance(d, decimal.Decimal)
    assert d == decimal.Decimal("2.5")
    assert fief.Decimal128.from_bid(*d.to_bid()) == d
    assert fief.Decimal128.from_bytes(d.to_bytes()) == d
    assert struct.unpack("<QQ", d.to_bytes()) == d.to_bid()
    assert fief.Decimal128(0.1) == decimal.Decimal("0.1")
    assert repr(d) == "Decimal128('2.50')"


# -- ObjectId -------------------------------------------------------------------

def test_object_id_generation_is_unique_and_ordered():
    ids = [fief.ObjectId() for _ in range(1000)]
    assert len(set(ids)) == 1000
    assert all(len(i.binary) == 12 for i in ids)
    now = dt.datetime.now(dt.timezone.utc)
    assert abs((ids[0].generation_time - now).total_seconds()) < 5
    # same process: same 5 random bytes, counter increments
    assert ids[0].binary[4:9] == ids[1].binary[4:9]
    c0 = int.from_bytes(ids[0].binary[9:], "big")
    c1 = int.from_bytes(ids[1].binary[9:], "big")
    assert c1 == (c0 + 1) & 0xFFFFFF


def test_object_id_parsing():
    text = "5f1d7a3b9c8e4d2a1b0c9d8e"
    oid = fief.ObjectId(text)
    assert str(oid) == text
    assert fief.ObjectId(oid.binary) == oid
    assert fief.ObjectId(oid) == oid
    assert hash(fief.ObjectId(text)) == hash(oid)
    assert oid.generation_time == dt.datetime.fromtimestamp(0x5F1D7A3B, dt.timezone.utc)
    assert fief.ObjectId.is_valid(text) and not fief.ObjectId.is_valid("xyz")
    with pytest.raises(ValueError):
        fief.ObjectId("zz" * 12)
    with pytest.raises(ValueError):
        fief.ObjectId(b"short")
    with pytest.raises(TypeError):
        fief.ObjectId(12)
    assert fief.ObjectId(bytes(12)) < fief.ObjectId(b"\x00" * 11 + b"\x01")
    start = fief.ObjectId.from_datetime(dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc))
    assert start.generation_time == dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)


# -- timestamps -------------------------------------------------------------------

@pytest.mark.parametrize("when,seconds,nanos", [
    (dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc), 0, 0),
    (dt.datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=dt.timezone.utc), 1, 500_000_000),
    (dt.datetime(1969, 12, 31, 23, 59, 58, 500000, tzinfo=dt.timezone.utc), -1, -500_000_000),
    (dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc), 0, -1000),
    (dt.datetime(2024, 2, 29, 12, 0, 0, 123456, tzinfo=dt.timezone.utc), 1709208000, 123_456_000),
])
def test_timestamp_conversion(when, seconds, nanos):
    assert datetime_to_timestamp(when) == (seconds, nanos)
    assert timestamp_to_datetime(seconds, nanos) == when


def test_timestamp_naive_is_utc_and_other_zones_convert():
    naive = dt.datetime(2001, 2, 3, 4, 5, 6)
    assert datetime_to_timestamp(naive) == datetime_to_timestamp(naive.replace(tzinfo=dt.timezone.utc))
    plus2 = dt.datetime(2001, 2, 3, 6, 5, 6, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert datetime_to_timestamp(plus2) == datetime_to_timestamp(naive)
    assert timestamp_to_datetime(1, 999_999_999).microsecond == 999_999


# -- model declarations --------------------------------------------------------------

def test_model_declaration():
    class Pet(fief.Object):
        id: fief.PrimaryKey[int]
        name: str
        age: int = 3
        nick: Optional[str] = None
        nick2: "str | None" = None
        tag: str = fief.Property(indexed=True)
        tag2: fief.Indexed[str] = "x"
        ratio: fief.Float32 = 0.5
        ratio2: float = fief.Property(type=fief.Float32, default=1.0)
        stored: int = fief.Property(name="storedName", default=7)

    props = {p.attr: p for p in Pet.__fief_properties__}
    assert list(props) == ["id", "name", "age", "nick", "nick2", "tag", "tag2", "ratio", "ratio2", "stored"]
    assert Pet.__fief_name__ == "Pet"
    assert Pet.__fief_primary_key__ is props["id"]
    assert props["id"].flags == L.PROPERTY_PRIMARY_KEY and props["id"].fief_type == L.TYPE_INT
    assert props["nick"].nullable and props["nick2"].nullable and not props["name"].nullable
    assert props["tag"].indexed and props["tag2"].indexed
    assert props["ratio"].fief_type == L.TYPE_FLOAT and props["ratio2"].fief_type == L.TYPE_FLOAT
    assert props["stored"].name == "storedName"
    p = Pet(id=1)
    assert (p.name, p.age, p.nick, p.tag, p.ratio, p.stored) == ("", 3, None, "", 0.5, 7)
    assert not p.is_managed and p.is_valid and p.realm is None and p.object_key is None
    p.age = 4
    assert p.age == 4
    assert p.to_dict()["age"] == 4
    with pytest.raises(fief.NoSuchPropertyError):
        Pet(id=2, colour="red")


def test_model_types_and_custom_name():
    class Everything(fief.Object, name="Things"):
        a: int
        b: bool
        c: float
        d: fief.Float32
        e: str
        f: bytes
        g: dt.datetime
        h: decimal.Decimal
        i: fief.Decimal128
        j: fief.ObjectId
        k: uuid.UUID
        _private: int = 0

    assert Everything.__fief_name__ == "Things"
    types = [p.fief_type for p in Everything.__fief_properties__]
    assert types == [L.TYPE_INT, L.TYPE_BOOL, L.TYPE_DOUBLE, L.TYPE_FLOAT, L.TYPE_STRING, L.TYPE_BINARY,
                     L.TYPE_TIMESTAMP, L.TYPE_DECIMAL128, L.TYPE_DECIMAL128, L.TYPE_OBJECT_ID, L.TYPE_UUID]
    e = Everything()
    assert e.g == dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) and e.k == uuid.UUID(int=0)


def test_model_declaration_errors():
    with pytest.raises(TypeError):
        class Bad(fief.Object):
            x: list
    with pytest.raises(TypeError):
        class Bad2(fief.Object):
            x: "int | str"
    with pytest.raises(TypeError):
        class Bad3(fief.Object):
            a: fief.PrimaryKey[int]
            b: fief.PrimaryKey[str]


# -- errors -------------------------------------------------------------------------

def test_error_mapping():
    E = fief.errors
    assert E.error_class_for(2008, E.CAT_INVALID_ARG) is fief.DuplicatePrimaryKeyError
    assert E.error_class_for(1003, E.CAT_LOGIC) is fief.NotInTransactionError
    assert E.error_class_for(5003, E.CAT_FILE) is fief.NotAFiefFileError
    assert E.error_class_for(4001, E.CAT_QUERY) is fief.QuerySyntaxError
    assert E.error_class_for(2999, E.CAT_INVALID_ARG) is fief.InvalidArgumentError
    assert E.error_class_for(9999, E.CAT_FILE) is fief.FileError
    assert E.error_class_for(9999, 0) is fief.FiefError
    assert E.error_class_for(3999, 0) is fief.SchemaError  # category from the code's thousand
    err = E.make_error(2005, E.CAT_INVALID_ARG, "bad type", "/x")
    assert isinstance(err, fief.TypeMismatchError) and isinstance(err, TypeError)
    assert isinstance(err, fief.InvalidArgumentError) and isinstance(err, ValueError)
    assert err.code == 2005 and err.path == "/x" and "bad type" in str(err)
    assert issubclass(fief.IndexOutOfBoundsError, IndexError)
    assert issubclass(fief.RealmFileNotFoundError, fief.FileError)
    assert issubclass(fief.UnsupportedOperationError, NotImplementedError)
    assert fief.RealmClosedError().code == 1008
