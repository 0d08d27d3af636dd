"""Indexed mixed properties (fief.Indexed[fief.Mixed]): the index is kept
through adds, changes and deletes, and `value == $0` / `value IN $0` give
exactly what the same query gives on an unindexed mixed property, with
Realm's equality across number types (1, 1.0, Float32(1), Decimal("1.00"))
and never across bool, string and number."""

from __future__ import annotations

import decimal
import random

import pytest

import fief


class Tagged(fief.Object):
    n: int = 0
    value: fief.Indexed[fief.Mixed]


class Plain(fief.Object):
    n: int = 0
    value: fief.Mixed


VALUES = [None, 1, 1.0, fief.Float32(1), decimal.Decimal("1.00"), 2.5, decimal.Decimal("2.5"), fief.Float32(2.5), 0, -0.0,
          True, False, "1", "a", "A", "", b"a", b"", 2 ** 62, 0.1, decimal.Decimal("0.1")]
PROBES = [1, 1.0, decimal.Decimal("1"), 2.5, 0, True, False, "1", "a", "", b"a", None, 0.1, fief.Float32(0.1), 7]


@pytest.fixture
def mixed_realm(tmp_path, library):
    r = fief.Realm.open(tmp_path / "mixed-index.fief", schema=[Tagged, Plain])
    yield r
    r.close()


def keys(results):
    return sorted(obj.n for obj in results)


def compare(realm, when):
    for probe in PROBES:
        tagged = realm.objects(Tagged).filter("value == $0", probe)
        plain = realm.objects(Plain).filter("value == $0", probe)
        assert keys(tagged) == keys(plain), (probe, when)
        assert len(tagged) == len(plain), (probe, when)
    for k in range(4):
        some = PROBES[k::4]
        assert keys(realm.objects(Tagged).filter("value IN $0", some)) == keys(realm.objects(Plain).filter("value IN $0", some)), (some, when)


def test_the_flag_is_accepted_and_read_back(mixed_realm):
    props = next(c for c in mixed_realm.schema if c.name == "Tagged").properties
    assert props["value"].indexed and props["value"].nullable
    assert not next(c for c in mixed_realm.schema if c.name == "Plain").properties["value"].indexed


def test_an_indexed_mixed_property_answers_as_the_scan(mixed_realm):
    rng = random.Random(11)
    n = 0
    for round_ in range(4):
        with mixed_realm.write():
            for _ in range(120):
                op = rng.randrange(10)
                tagged = list(mixed_realm.objects(Tagged))
                if op < 5 or not tagged:
                    value = rng.choice(VALUES)
                    mixed_realm.add(Tagged(n=n, value=value))
                    mixed_realm.add(Plain(n=n, value=value))
                    n += 1
                elif op < 8:
                    target = rng.choice(tagged)
                    value = rng.choice(VALUES)
                    target.value = value
                    mixed_realm.objects(Plain).filter("n == $0", target.n)[0].value = value
                else:
                    target = rng.choice(tagged)
                    other = mixed_realm.objects(Plain).filter("n == $0", target.n)[0]
                    mixed_realm.delete(target)
                    mixed_realm.delete(other)
        compare(mixed_realm, f"round {round_}")
    # Numbers equal across types find the same objects.
    one = keys(mixed_realm.objects(Tagged).filter("value == 1"))
    assert one and one == keys(mixed_realm.objects(Tagged).filter("value == $0", decimal.Decimal("1.000")))
    assert one == keys(mixed_realm.objects(Tagged).filter("value == $0", fief.Float32(1)))
    assert not set(one) & set(keys(mixed_realm.objects(Tagged).filter("value == true")))


def test_a_mixed_primary_key_is_refused():
    with pytest.raises(TypeError, match="cannot be the primary key"):
        exec("class Bad(fief.Object):\n    value: fief.PrimaryKey[fief.Mixed]\n", {"__name__": __name__, "fief": fief})
