"""Model classes shared by the tests (and by the scripts they run in subprocesses)."""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Optional

import fief


class Dog(fief.Object):
    id: fief.PrimaryKey[int]
    name: str
    age: int = 0
    nickname: Optional[str] = None
    breed: str = fief.Property(indexed=True, default="mixed")


class Person(fief.Object):
    name: str = fief.Property(primary_key=True)
    age: int = 0
    height: Optional[float] = None


class AllTypes(fief.Object):
    id: fief.PrimaryKey[int]
    i: int = 0
    b: bool = False
    f: float = 0.0
    f32: fief.Float32 = 0.0
    s: str = ""
    data: bytes = b""
    when: datetime.datetime = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    dec: fief.Decimal128 = fief.Decimal128("0")
    pydec: decimal.Decimal = decimal.Decimal("0")
    oid: fief.ObjectId = fief.Property(default_factory=lambda: fief.ObjectId(bytes(12)))
    uid: uuid.UUID = uuid.UUID(int=0)


class OptionalTypes(fief.Object):
    id: fief.PrimaryKey[int]
    i: Optional[int] = None
    b: Optional[bool] = None
    f: Optional[float] = None
    f32: Optional[fief.Float32] = None
    s: Optional[str] = None
    data: Optional[bytes] = None
    when: Optional[datetime.datetime] = None
    dec: Optional[fief.Decimal128] = None
    oid: Optional[fief.ObjectId] = None
    uid: Optional[uuid.UUID] = None


class StrKey(fief.Object):
    key: fief.PrimaryKey[str]
    value: int = 0


class OidKey(fief.Object):
    key: fief.PrimaryKey[fief.ObjectId]
    value: int = 0


class UuidKey(fief.Object):
    key: fief.PrimaryKey[uuid.UUID]
    value: int = 0


class NoKey(fief.Object):
    name: str
    value: int = 0


class Counter(fief.Object):
    """Used by the multi-thread and multi-process tests."""
    id: fief.PrimaryKey[int]
    writer: str = ""
    n: int = 0


ALL_MODELS = [Dog, Person, AllTypes, OptionalTypes, StrKey, OidKey, UuidKey, NoKey, Counter]
