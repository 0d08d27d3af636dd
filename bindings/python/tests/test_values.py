"""Every scalar type through the library: round trips, optionals, nulls, defaults."""

from __future__ import annotations

import datetime as dt
import decimal
import math
import uuid

import pytest

import fief
from models import AllTypes, Dog, OptionalTypes

UTC = dt.timezone.utc

VALUES = {
    "i": [0, 1, -1, 2**63 - 1, -(2**63)],
    "b": [True, False],
    "f": [0.0, -0.0, 1.5, -2.25e300, 5e-324, math.inf, -math.inf],
    "f32": [0.0, 1.5, -3.25, 65504.0],
    "s": ["", "hello", "héllo wörld ✓ 😀", "a\x00b", "x" * 10000],
    "data": [b"", b"\x00\x01\xff", bytes(range(256)) * 40],
    "when": [dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC),
             dt.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC), dt.datetime(9999, 12, 31, tzinfo=UTC)],
    "dec": [fief.Decimal128("0"), fief.Decimal128("-1.5"), fief.Decimal128("1234567890123456789012345678901234"),
            fief.Decimal128("1E-6176"), fief.Decimal128("-Infinity")],
    "pydec": [decimal.Decimal("3.14159"), decimal.Decimal("-0.000001")],
    "oid": [fief.ObjectId(), fief.ObjectId("5f1d7a3b9c8e4d2a1b0c9d8e"), fief.ObjectId(bytes(12))],
    "uid": [uuid.uuid4(), uuid.UUID("12345678-1234-5678-1234-567812345678"), uuid.UUID(int=0)],
}


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b) or (math.isnan(a) and math.isnan(b))
    return a == b


@pytest.mark.parametrize("attr", list(VALUES))
def test_round_trip_each_type(realm, attr):
    with realm.write():
        objs = [realm.add(AllTypes(id=n, **{attr: value})) for n, value in enumerate(VALUES[attr])]
    for obj, value in zip(objs, VALUES[attr]):
        got = getattr(obj, attr)
        assert _same(got, value), (attr, got, value)
        assert type(got) is type(value) or (attr == "dec" and isinstance(got, fief.Decimal128))
    # read again through fresh handles after the commit
    for n, value in enumerate(VALUES[attr]):
        assert _same(getattr(realm.object(AllTypes, n), attr), value)


def test_decimal_types_read_back_as_declared(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1, dec=decimal.Decimal("2.5"), pydec=fief.Decimal128("7.25")))
    assert type(obj.dec) is fief.Decimal128 and obj.dec == decimal.Decimal("2.5")
    assert type(obj.pydec) is decimal.Decimal and obj.pydec == decimal.Decimal("7.25")
    assert str(obj.dec) == "2.5"  # exponent kept


def test_decimal_nan_round_trip(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1, dec=fief.Decimal128("NaN")))
    assert obj.dec.is_nan()


def test_float32_is_stored_in_32_bits(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1, f32=0.1, f=0.1))
    assert obj.f == 0.1
    assert obj.f32 != 0.1 and abs(obj.f32 - 0.1) < 1e-7
    import struct
    assert obj.f32 == struct.unpack("f", struct.pack("f", 0.1))[0]


def test_nan_double(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1, f=math.nan))
    assert math.isnan(obj.f)


def test_naive_datetime_is_utc_and_result_is_aware(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1, when=dt.datetime(2020, 1, 2, 3, 4, 5)))
    assert obj.when == dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert obj.when.tzinfo is not None


def test_set_every_type_on_managed_object(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1))
        for attr, values in VALUES.items():
            for value in values:
                setattr(obj, attr, value)
                assert _same(getattr(obj, attr), value), (attr, value)
    for attr, values in VALUES.items():
        assert _same(getattr(obj, attr), values[-1])


def test_int_into_double_and_float_properties(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1, f=3, f32=4))
        assert obj.f == 3.0 and isinstance(obj.f, float)
        assert obj.f32 == 4.0
        obj.f = 7
        obj.dec = 12  # ints convert to decimals on decimal properties
    assert obj.f == 7.0 and obj.dec == 12


def test_defaults_of_the_model(realm):
    with realm.write():
        obj = realm.add(AllTypes(id=1))
        dog = realm.add(Dog(id=1, name="Rex"))
    assert obj.i == 0 and obj.b is False and obj.f == 0.0 and obj.s == "" and obj.data == b""
    assert obj.when == dt.datetime(2000, 1, 1, tzinfo=UTC)
    assert obj.dec == 0 and obj.oid == fief.ObjectId(bytes(12)) and obj.uid == uuid.UUID(int=0)
    assert dog.age == 0 and dog.nickname is None and dog.breed == "mixed"


def test_library_defaults_for_values_not_given(realm):
    with realm.write():
        obj = realm.create(AllTypes, id=5)  # create() fills the model's defaults
        raw = realm.create(Dog, id=9, name="x")
    assert obj.when == dt.datetime(2000, 1, 1, tzinfo=UTC)
    assert raw.breed == "mixed"


def test_optionals_null_and_values(realm):
    with realm.write():
        empty = realm.add(OptionalTypes(id=1))
        full = realm.add(OptionalTypes(id=2, i=5, b=True, f=2.5, f32=1.5, s="s", data=b"d",
                                       when=dt.datetime(2001, 1, 1, tzinfo=UTC), dec=fief.Decimal128("1.1"),
                                       oid=fief.ObjectId(bytes(12)), uid=uuid.UUID(int=7)))
    attrs = ["i", "b", "f", "f32", "s", "data", "when", "dec", "oid", "uid"]
    assert all(getattr(empty, a) is None for a in attrs)
    assert full.i == 5 and full.b is True and full.f == 2.5 and full.f32 == 1.5 and full.s == "s"
    assert full.data == b"d" and full.dec == decimal.Decimal("1.1") and full.uid == uuid.UUID(int=7)
    # empty string / bytes / zero are not null
    with realm.write():
        empty.s = ""
        empty.data = b""
        empty.i = 0
        empty.b = False
    assert empty.s == "" and empty.data == b"" and empty.i == 0 and empty.b is False
    with realm.write():
        for a in attrs:
            setattr(full, a, None)
    assert all(getattr(full, a) is None for a in attrs)


def test_null_for_required_property_fails(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
        with pytest.raises(fief.NullNotAllowedError):
            dog.name = None
        with pytest.raises(fief.NullNotAllowedError):
            realm.add(Dog(id=2, name=None))
    assert dog.name == "Rex"


def test_invalid_utf8_is_rejected(realm):
    with realm.write():
        with pytest.raises(fief.InvalidUTF8Error):
            realm.add(Dog(id=1, name="bad \ud800 surrogate"))


def test_to_dict_reads_a_whole_row(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex", age=3))
    assert dog.to_dict() == {"id": 1, "name": "Rex", "age": 3, "nickname": None, "breed": "mixed"}
    assert "Rex" in repr(dog)
