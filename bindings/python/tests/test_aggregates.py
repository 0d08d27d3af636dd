"""Aggregates (min, max, sum, average) on Results and Lists, and lists of
values as live results (fief.ValueResults: filters over self, sorts by
value, find), checked against Python on random data; errors from the C
layer surface as the package's exceptions and change nothing."""

from __future__ import annotations

import datetime as dt
import decimal
import random
from typing import Optional

import pytest

import fief


class Reading(fief.Object):
    id: fief.PrimaryKey[int]
    value: int = 0
    weight: Optional[float] = None
    ratio: fief.Float32 = 0.0
    price: fief.Decimal128 = fief.Decimal128("0")
    exact: decimal.Decimal = decimal.Decimal("0")
    at: Optional[dt.datetime] = None
    label: str = ""


class Series(fief.Object):
    name: fief.PrimaryKey[str]
    ints: list[Optional[int]]
    words: list[Optional[str]]
    doubles: list[float]
    prices: list[fief.Decimal128]
    times: list[dt.datetime]
    readings: list[Reading]


MODELS = [Reading, Series]
UTC = dt.timezone.utc


@pytest.fixture
def realm(tmp_path, library):
    with fief.Realm.open(tmp_path / "agg.fief", schema=MODELS) as r:
        yield r


def _readings(realm, rng, n):
    made = []
    with realm.write():
        for i in range(n):
            made.append(realm.add(Reading(
                id=i, value=rng.randint(-100, 100),
                weight=None if rng.random() < 0.3 else rng.randint(-80, 80) / 8,
                ratio=rng.randint(-40, 40) / 4,
                price=fief.Decimal128(f"{rng.randint(-999, 999)}.{rng.randint(0, 99):02d}"),
                exact=decimal.Decimal(f"{rng.randint(0, 50)}.5"),
                at=None if rng.random() < 0.5 else dt.datetime(2020, 1, 1 + rng.randint(0, 27), tzinfo=UTC),
                label=rng.choice("abc"))))
    return made


def test_results_aggregates_match_python(realm):
    rng = random.Random(6)
    _readings(realm, rng, 600)
    everything = realm.objects(Reading)
    for predicate in ("value > 0", "label == 'a' OR weight == nil", "value > 1000"):
        results = everything.filter(predicate)
        rows = [(r.value, r.weight, r.ratio, r.price, r.exact, r.at) for r in results]
        values = [v for v, *_ in rows]
        weights = [w for _, w, *_ in rows if w is not None]
        ratios = [r for _, _, r, *_ in rows]
        times = [t for *_, t in rows if t is not None]
        assert results.min("value") == (min(values) if values else None)
        assert results.max("value") == (max(values) if values else None)
        assert results.sum("value") == sum(values) and isinstance(results.sum("value"), int)
        assert results.average("value") == (pytest.approx(sum(values) / len(values)) if values else None)
        assert results.min("weight") == (min(weights) if weights else None)
        assert results.sum("weight") == sum(weights)
        assert results.average("weight") == (pytest.approx(sum(weights) / len(weights)) if weights else None)
        assert results.max(Reading.ratio) == (max(ratios) if ratios else None)
        assert results.sum("ratio") == pytest.approx(sum(ratios))
        assert results.min("at") == (min(times) if times else None)
        assert results.max("at") == (max(times) if times else None)
        prices = [decimal.Decimal(str(p)) for *_, p, _, _ in rows]
        total = results.sum("price")
        assert isinstance(total, fief.Decimal128)
        assert decimal.Decimal(str(total)) == sum(prices, decimal.Decimal(0))
        exact = results.sum("exact")
        assert isinstance(exact, decimal.Decimal)
        assert exact == sum((e for *_, e, _ in rows), decimal.Decimal(0))
        # Sorting changes nothing.
        assert results.sort("label").sum("value") == sum(values)


def test_results_aggregates_are_live_and_refuse_bad_properties(realm):
    _readings(realm, random.Random(1), 10)
    everything = realm.objects(Reading)
    before = everything.sum("value")
    with realm.write():
        everything[0].value += 1000
    assert everything.sum("value") == before + 1000
    assert everything.filter("value > 10000").average("value") is None
    assert everything.filter("value > 10000").sum("weight") == 0
    with pytest.raises(fief.TypeMismatchError, match="Reading.label"):
        everything.sum("label")
    with pytest.raises(fief.TypeMismatchError, match="timestamp"):
        everything.average("at")
    with pytest.raises(fief.NoSuchPropertyError):
        everything.min("nope")
    assert everything.sum("value") == before + 1000


def test_list_of_values_as_live_results(realm):
    rng = random.Random(42)
    with realm.write():
        series = realm.add(Series(name="s"))
    model: list[Optional[int]] = []
    results = series.ints.results()
    assert isinstance(results, fief.ValueResults)
    for _ in range(30):
        with realm.write():
            fresh = [None if rng.random() < 0.15 else rng.randint(-10, 10) for _ in range(rng.randint(0, 20))]
            series.ints.extend(fresh)
            model.extend(fresh)
            if model and rng.random() < 0.5:
                i = rng.randrange(len(model))
                del series.ints[i]
                del model[i]
        assert list(results) == model
        k = rng.randint(-10, 10)
        matching = series.ints.filter("self > $0", k)
        expected = [v for v in model if v is not None and v > k]
        assert list(matching) == expected
        assert len(series.ints.filter("self == nil")) == model.count(None)
        assert list(matching.filter("self != %@", k + 1)) == [v for v in expected if v != k + 1]
        ascending = sorted(model, key=lambda v: (v is not None, v if v is not None else 0))
        assert list(results.sort()) == ascending
        descending = results.sort(ascending=False)
        assert list(descending) == sorted([v for v in model if v is not None], reverse=True) + [None] * model.count(None)
        present = [v for v in model if v is not None]
        assert series.ints.min() == (min(present) if present else None)
        assert series.ints.max() == (max(present) if present else None)
        assert series.ints.sum() == sum(present)
        assert matching.sum() == sum(expected)
        assert results.average() == (pytest.approx(sum(present) / len(present)) if present else None)
        if present:
            wanted = rng.choice(present)
            assert results.index(wanted) == model.index(wanted)
            assert wanted in results
        assert "x" not in results
        assert results.find_index(1000) is None
    if model:
        assert results[-1] == model[-1]
        assert results[1:4] == model[1:4]


def test_lists_of_strings_decimals_and_times(realm):
    with realm.write():
        series = realm.add(Series(
            name="s", words=["beta", "Alpha", None, "alpha", "été"], doubles=[0.5, -1.25, 4.0],
            prices=[fief.Decimal128("1.5"), fief.Decimal128("2.25")],
            times=[dt.datetime(2021, 5, 1, tzinfo=UTC), dt.datetime(2020, 5, 1, tzinfo=UTC)]))
    assert list(series.words.filter("self BEGINSWITH[c] 'a'")) == ["Alpha", "alpha"]
    assert list(series.words.results().sort()) == [None, "Alpha", "alpha", "beta", "été"]
    assert series.words.results().sort(ascending=False)[0] == "été"
    with pytest.raises(fief.TypeMismatchError, match="Series.words"):
        series.words.min()
    assert series.doubles.sum() == 3.25
    assert series.doubles.average() == pytest.approx(3.25 / 3)
    assert series.prices.sum() == fief.Decimal128("3.75")
    assert series.prices.average() == fief.Decimal128("1.875")
    assert series.times.min() == dt.datetime(2020, 5, 1, tzinfo=UTC)
    with pytest.raises(fief.TypeMismatchError):
        series.times.sum()
    with pytest.raises(fief.QuerySyntaxError):
        series.words.filter("self ==")
    with pytest.raises(fief.InvalidQueryError, match="self"):
        series.words.filter("name == 'a'")
    with pytest.raises(TypeError):
        series.words.min("name")
    assert list(series.words) == ["beta", "Alpha", None, "alpha", "été"]


def test_list_of_objects_aggregates(realm):
    with realm.write():
        a, b = realm.add(Reading(id=1, value=3, weight=1.5)), realm.add(Reading(id=2, value=10))
        series = realm.add(Series(name="s", readings=[a, b, b]))
    assert series.readings.sum("value") == 23                  # b counts twice
    assert series.readings.max(Reading.value) == 10
    assert series.readings.average("weight") == 1.5
    assert series.readings.filter("value > 5").sum("value") == 20
    with pytest.raises(TypeError, match="property name"):
        series.readings.sum()
    with pytest.raises(fief.NoSuchPropertyError):
        series.readings.sum("nope")
    with realm.write():
        realm.delete(series)
    with pytest.raises(fief.InvalidatedObjectError):
        series.readings.sum("value")
