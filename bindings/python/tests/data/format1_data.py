"""The data set of the old-format fixtures: format1.fief, format2.fief and
format3.fief, realms written by Fief's file formats 1 (the foundation
release), 2 and 3.

Each was made once, by running this file as a script against a libfief.so
of that format, then compacted with `fief copy` of the same release:

    FIEF_LIBRARY=/path/to/old/libfief.so python3 format1_data.py formatN.fief

test_format_upgrade.py opens them with the current library and compares
every object with `expected_items()` and `expected_tags()`.
"""

from __future__ import annotations

import datetime
import sys
import uuid
from typing import Optional

import fief

UTC = datetime.timezone.utc


class Item(fief.Object):
    id: fief.PrimaryKey[int]
    name: str = ""
    note: Optional[str] = None
    n: int = 0
    flag: bool = False
    ratio: Optional[float] = None
    f32: fief.Float32 = 0.0
    when: datetime.datetime = datetime.datetime(2000, 1, 1, tzinfo=UTC)
    blob: Optional[bytes] = None
    dec: fief.Decimal128 = fief.Decimal128("0")
    oid: fief.ObjectId = fief.Property(default_factory=lambda: fief.ObjectId(bytes(12)))
    uid: uuid.UUID = uuid.UUID(int=0)


class Tag(fief.Object):
    name: fief.PrimaryKey[str]
    count: int = fief.Property(indexed=True, default=0)


COUNT = 700          # three clusters of 256 and part of a fourth


def item(i: int) -> dict:
    return dict(
        id=i,
        name=f"item-{i:04d}",
        note=None if i % 3 == 0 else ("long " * 700 if i % 50 == 1 else f"note {i}"),
        n=(i * 7919) % 100003 - 50000 if i % 11 else 2**62 + i,
        flag=i % 2 == 0,
        ratio=None if i % 5 == 0 else i / 8,
        f32=float(i) / 4,
        when=datetime.datetime(1969, 12, 31, tzinfo=UTC) + datetime.timedelta(seconds=i * 3601, microseconds=i),
        blob=None if i % 4 == 0 else bytes((i + k) % 256 for k in range(i % 40)),
        dec=fief.Decimal128(f"{i}.{i % 100:02d}"),
        oid=fief.ObjectId(i.to_bytes(12, "big")),
        uid=uuid.UUID(int=i * 1000003),
    )


def deleted(i: int) -> bool:
    return i % 7 == 3


def expected_items() -> dict[int, dict]:
    return {i: item(i) for i in range(COUNT) if not deleted(i)}


def expected_tags() -> dict[str, int]:
    return {f"tag{k}": k * k - 40 for k in range(30)}


def main(path: str) -> None:
    with fief.Realm.open(path, schema=[Item, Tag]) as realm:
        with realm.write():
            for i in range(COUNT):
                realm.add(Item(**item(i)))
            for name, count in expected_tags().items():
                realm.add(Tag(name=name, count=count))
        with realm.write():
            for i in range(COUNT):
                if deleted(i):
                    realm.delete(realm.object(Item, i))


if __name__ == "__main__":
    main(sys.argv[1])
