"""datetime <-> timestamp conversion is exact at microsecond precision, either side of 1970."""

from __future__ import annotations

import datetime as dt
import random

import fief
from fief._values import datetime_to_timestamp, timestamp_to_datetime
from models import AllTypes

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


def _random_datetimes(count: int) -> list[dt.datetime]:
    rng = random.Random(20261128)
    lowest = int((dt.datetime(1, 1, 1, tzinfo=UTC) - EPOCH).total_seconds()) * 1_000_000
    highest = int((dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - EPOCH).total_seconds()) * 1_000_000
    values = [EPOCH + dt.timedelta(microseconds=rng.randint(lowest, highest)) for _ in range(count)]
    # Near 1970: negative times with fractions, on both sides of whole seconds.
    values += [EPOCH + dt.timedelta(microseconds=rng.randint(-5_000_000, 5_000_000)) for _ in range(count // 4)]
    return values


EDGES = [
    dt.datetime(1, 1, 1, tzinfo=UTC),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    EPOCH,
    EPOCH - dt.timedelta(microseconds=1),
    EPOCH + dt.timedelta(microseconds=1),
    EPOCH - dt.timedelta(seconds=1, microseconds=500000),
    EPOCH - dt.timedelta(microseconds=999999),
    dt.datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC),
    dt.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
    dt.datetime(2001, 1, 1, tzinfo=UTC) - dt.timedelta(microseconds=1),
]


def test_conversion_is_exact_and_signs_agree():
    for value in EDGES + _random_datetimes(4000):
        seconds, nanoseconds = datetime_to_timestamp(value)
        assert abs(nanoseconds) < 1_000_000_000 and nanoseconds % 1000 == 0
        assert seconds == 0 or nanoseconds == 0 or (seconds < 0) == (nanoseconds < 0), value
        assert timestamp_to_datetime(seconds, nanoseconds) == value, value


def test_known_timestamps():
    assert datetime_to_timestamp(EPOCH - dt.timedelta(seconds=1, microseconds=500000)) == (-1, -500_000_000)
    assert datetime_to_timestamp(EPOCH + dt.timedelta(seconds=1, microseconds=500000)) == (1, 500_000_000)
    assert datetime_to_timestamp(EPOCH - dt.timedelta(microseconds=1)) == (0, -1000)
    # Nanoseconds below a microsecond truncate toward zero on either side.
    assert timestamp_to_datetime(0, -1999) == EPOCH - dt.timedelta(microseconds=1)
    assert timestamp_to_datetime(0, 999_999_999) == EPOCH + dt.timedelta(microseconds=999999)
    assert timestamp_to_datetime(-3, -999_999_999) == EPOCH - dt.timedelta(seconds=3, microseconds=999999)


def test_dates_round_trip_through_the_library(realm: fief.Realm):
    values = EDGES + _random_datetimes(2000)
    with realm.write():
        for n, value in enumerate(values):
            realm.add(AllTypes(id=n, when=value))
    for n, value in enumerate(values):
        assert realm.object(AllTypes, n).when == value, value
