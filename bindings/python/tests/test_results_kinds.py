"""Results of objects and results of values are one class, fief.Results
(fief.ValueResults names it too): the same operations give the same answers
for the ages of four objects and for a list of the same numbers; iteration
(forward and reversed) reads a snapshot; freeze works for both; a call for
one element kind on the other raises the library's error."""

from __future__ import annotations

import pytest

import fief
from fief import realm as realm_module


class Player(fief.Object):
    id: fief.PrimaryKey[int]
    age: int
    scores: list[int]


NUMBERS = [5, 3, 9, 3]


def _players(realm: fief.Realm) -> Player:
    with realm.write():
        players = [realm.add(Player(id=i, age=n)) for i, n in enumerate(NUMBERS)]
        players[0].scores.extend(NUMBERS)
    return players[0]


def _ints(results: fief.Results) -> list[int]:
    return _plain(results, list(results))


def _plain(results: fief.Results, elements: list) -> list[int]:
    """Elements of `results` as ints: the ages of objects, or the values."""
    return [p.age for p in elements] if results.holds_objects else list(elements)


def _both(realm: fief.Realm) -> tuple[fief.Results, fief.Results, str]:
    first = _players(realm)
    return realm.objects(Player), first.scores.results(), "age"  # objects in key order: as created


def test_one_class_for_both_kinds(realm_path):
    with fief.Realm.open(realm_path, schema=[Player]) as realm:
        objects, values, _ = _both(realm)
        assert type(objects) is type(values) is fief.Results
        assert fief.ValueResults is fief.Results
        assert objects.holds_objects and not values.holds_objects
        assert isinstance(values, fief.ValueResults) and isinstance(objects, fief.ValueResults)


def test_same_operations_same_answers(realm_path):
    with fief.Realm.open(realm_path, schema=[Player]) as realm:
        objects, values, _ = _both(realm)
        for results, key in ((objects, "age"), (values, "self")):
            assert _ints(results) == NUMBERS
            assert len(results) == 4 and results.count() == 4 and bool(results)
            assert _ints(results.filter(f"{key} > $0", 3)) == [5, 9]
            assert _ints(results.sort((key, False))) == [9, 5, 3, 3]
            assert _ints(results.sort((key, False)).sort(key)) == [3, 3, 5, 9]
            assert _ints(results.distinct(key)) == [5, 3, 9]
            assert _ints(results.limit(2).sort(key)) == [3, 5]
            assert _ints(results.sort(key).limit(2)) == [3, 3]
            with pytest.raises(fief.QueryError, match="cannot filter results that have a limit"):
                results.limit(2).filter(f"{key} > 3")
            staged = results.filter(f"{key} >= 3 SORT({key} DESC)").distinct(key).limit(2)
            assert _ints(staged) == [9, 5]
            assert staged.description == f"{key} >= 3 SORT({key} DESC) DISTINCT({key}) LIMIT(2)"
            # Indexing, negative indexing, slicing and reversed().
            assert _plain(results, [results[-1], results[0]]) == [3, 5]
            assert _plain(results, results[1:3]) == [3, 9]
            assert _plain(results, results[::-2]) == [3, 3]
            assert _plain(results, list(reversed(results))) == NUMBERS[::-1]
            assert _plain(results, [results.first(), results.last()]) == [5, 3]
            assert results.is_valid
        # Values sort and are distinct by value with no key too.
        assert list(values.sort(ascending=False)) == [9, 5, 3, 3]
        assert list(values.distinct()) == [5, 3, 9]
        # Aggregates: of a property of the objects, of the values.
        assert objects.sum("age") == values.sum() == 20
        assert objects.filter("age > 3").max("age") == values.filter("self > 3").max() == 9
        assert objects.min(Player.age) == values.min() == 3
        # index() and `in`: an object of the results, a value.
        third = objects[2]
        assert objects.index(third) == 2 and third in objects
        assert values.index(9) == 2 and 9 in values and 4 not in values


def test_reversed_reads_a_snapshot_in_batches(realm_path):
    class Dot(fief.Object):
        n: int

    with fief.Realm.open(realm_path, schema=[Dot]) as realm:
        count = realm_module.KEY_BATCH + 3  # two batches
        with realm.write():
            realm.add_all([Dot(n=i) for i in range(count)])
        dots = realm.objects(Dot).sort("n")
        seen = []
        with realm.write():
            for dot in reversed(dots):
                seen.append(dot.n)
                if dot.n == count - 1:
                    realm.add(Dot(n=-1))  # sorts first: not visited, the snapshot was taken
                    realm.delete(dots.filter("n == 5")[0])  # ahead: skipped
        assert seen == [n for n in range(count - 1, -1, -1) if n != 5]


def test_freeze_both_kinds(realm_path):
    with fief.Realm.open(realm_path, schema=[Player]) as realm:
        objects, values, _ = _both(realm)
        live = [objects.filter("age > 3").sort("age"), values.filter("self > 3").sort()]
        frozen = [results.freeze() for results in live]
        assert all(f.is_frozen for f in frozen) and not any(r.is_frozen for r in live)
        assert not frozen[1].holds_objects
        with realm.write():
            first = realm.objects(Player).filter("id == 0")[0]
            realm.add(Player(id=10, age=7))
            first.scores.append(7)
        assert [_ints(r) for r in live] == [[5, 7, 9], [5, 7, 9]]
        assert [_ints(f) for f in frozen] == [[5, 9], [5, 9]]
        assert [_ints(f.thaw()) for f in frozen] == [[5, 7, 9], [5, 7, 9]]
        assert frozen[1].description == "self > 3 SORT(self ASC)"


def test_calls_for_one_kind_refuse_the_other(realm_path):
    with fief.Realm.open(realm_path, schema=[Player]) as realm:
        objects, values, _ = _both(realm)
        for results in (values, values.filter("self > 3")):
            with pytest.raises(fief.InvalidArgumentError, match="fief_results_get_keys needs results of objects"):
                results.keys()
            with pytest.raises(fief.InvalidArgumentError, match="fief_results_get_values needs results of objects"):
                results.values("age")
            with realm.write():
                with pytest.raises(fief.InvalidArgumentError, match="fief_results_delete_all needs results of objects"):
                    results.delete_all()
            with pytest.raises(fief.QueryError, match="values sort by 'self' alone"):
                results.sort("age")
            with pytest.raises(TypeError, match="takes no property"):
                results.sum("age")
            with pytest.raises(fief.InvalidArgumentError, match="hold the values of scores, not objects"):
                results.object_class
        with pytest.raises(fief.InvalidArgumentError, match="sort needs at least one key"):
            objects.sort()
        with pytest.raises(TypeError, match="needs a property"):
            objects.sum()
        with pytest.raises(fief.QueryError):
            objects.sort("self")
        # find_index of something that is not an element: None, for both kinds.
        assert objects.find_index(5) is None and values.find_index("x") is None
        # Results of values compare equal to lists; results of objects to themselves only.
        assert values == NUMBERS and objects != [objects[i] for i in range(4)] and objects == objects
        assert hash(objects) == hash(objects)
        with pytest.raises(TypeError):
            hash(values)
