"""Results: indexing, iteration, filter (every operator of fief.h), sort."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Optional

import pytest

import fief
from models import AllTypes, Dog, OptionalTypes

UTC = dt.timezone.utc

DOGS = [
    # id, name, age, nickname, breed
    (1, "Rex", 3, None, "Collie"),
    (2, "fido", 7, "Fi", "beagle"),
    (3, "Ace", 1, "A", "Collie"),
    (4, "Bella", 10, None, "poodle"),
    (5, "rexa", 3, "Rx", "collie"),
    (6, "Zed", 5, "", "Beagle"),
]


@pytest.fixture
def dogs(realm):
    with realm.write():
        for id_, name, age, nick, breed in DOGS:
            realm.add(Dog(id=id_, name=name, age=age, nickname=nick, breed=breed))
    return realm.objects(Dog)


def ids(results):
    return sorted(d.id for d in results)


def test_len_index_iterate(dogs):
    assert len(dogs) == 6 and dogs.count() == 6 and bool(dogs)
    assert [d.id for d in dogs] == [1, 2, 3, 4, 5, 6]  # creation order
    assert dogs[0].name == "Rex" and dogs[-1].name == "Zed" and dogs[-6].id == 1
    assert [d.id for d in dogs[1:3]] == [2, 3]
    assert [d.id for d in dogs[::-2]] == [6, 4, 2]
    assert [d.id for d in reversed(dogs)] == [6, 5, 4, 3, 2, 1]
    assert dogs.first().id == 1 and dogs.last().id == 6
    with pytest.raises(IndexError):
        dogs[6]
    with pytest.raises(fief.IndexOutOfBoundsError):
        dogs[100]
    with pytest.raises(IndexError):
        dogs[-7]
    with pytest.raises(TypeError):
        dogs["x"]
    assert dogs[2] in dogs
    assert dogs.index(dogs[4]) == 4
    assert dogs.keys() == [d.object_key for d in dogs]
    assert dogs.values("id", "name")[:2] == [(1, "Rex"), (2, "fido")]


def test_empty_results(realm):
    results = realm.objects(Dog)
    assert len(results) == 0 and not results and list(results) == []
    assert results.first() is None and results.last() is None
    with pytest.raises(IndexError):
        results[0]


@pytest.mark.parametrize("predicate,expected", [
    ("age == 3", [1, 5]),
    ("age = 3", [1, 5]),
    ("age != 3", [2, 3, 4, 6]),
    ("age <> 3", [2, 3, 4, 6]),
    ("age < 3", [3]),
    ("age <= 3", [1, 3, 5]),
    ("age =< 3", [1, 3, 5]),
    ("age > 5", [2, 4]),
    ("age >= 5", [2, 4, 6]),
    ("age => 5", [2, 4, 6]),
    ("name BEGINSWITH 'Re'", [1]),
    ("name BEGINSWITH[c] 're'", [1, 5]),
    ("name ENDSWITH 'a'", [4, 5]),
    ("name ENDSWITH[c] 'X'", [1]),
    ("name CONTAINS 'e'", [1, 3, 4, 5, 6]),
    ("name CONTAINS 'A'", [3]),
    ("name CONTAINS[c] 'A'", [3, 4, 5]),
    ("name LIKE 'R?x'", [1]),
    ("name LIKE '*e*'", [1, 3, 4, 5, 6]),
    ("name LIKE[c] 'r*'", [1, 5]),
    ("breed == 'Collie'", [1, 3]),
    ("breed ==[c] 'collie'", [1, 3, 5]),
    ("age == 3 AND breed == 'Collie'", [1]),
    ("age == 3 && breed == 'Collie'", [1]),
    ("age == 1 OR age == 10", [3, 4]),
    ("age == 1 || age == 10", [3, 4]),
    ("NOT age == 3", [2, 3, 4, 6]),
    ("!(age == 3)", [2, 3, 4, 6]),
    ("(age == 3 OR age == 1) AND NOT (name == 'Rex')", [3, 5]),
    ("age > 2 AND (breed BEGINSWITH[c] 'b' OR nickname == 'Rx')", [2, 5, 6]),
    ("nickname == null", [1, 4]),
    ("nickname == nil", [1, 4]),
    ("nickname != null", [2, 3, 5, 6]),
    ("nickname == ''", [6]),
    ('name == "Ace"', [3]),
    ("id == 4", [4]),
    ("age > -1", [1, 2, 3, 4, 5, 6]),
    ("age < 3.5", [1, 3, 5]),
])
def test_filter_operators(dogs, predicate, expected):
    assert ids(dogs.filter(predicate)) == expected


def test_filter_bool_literals(realm):
    with realm.write():
        realm.add(AllTypes(id=1, b=True, f=1.5))
        realm.add(AllTypes(id=2, b=False, f=-2.0))
    r = realm.objects(AllTypes)
    assert ids(r.filter("b == true")) == [1]
    assert ids(r.filter("b == false")) == [2]
    assert ids(r.filter("b == TRUE")) == [1]
    assert ids(r.filter("f > 0.5")) == [1]
    assert ids(r.filter("f == -2.0")) == [2]
    assert ids(r.filter("f < 10.0")) == [1, 2]


def test_filter_with_positional_args(dogs):
    assert ids(dogs.filter("age < $0", 5)) == [1, 3, 5]
    assert ids(dogs.filter("age >= $0 AND name BEGINSWITH[c] $1", 3, "r")) == [1, 5]
    assert ids(dogs.filter("name == $1 OR name == $0", "Ace", "Zed")) == [3, 6]
    assert ids(dogs.filter("nickname == $0", None)) == [1, 4]
    assert ids(dogs.filter("age == $0 OR age == $0", 3)) == [1, 5]


def test_filter_with_percent_args(dogs):
    assert ids(dogs.filter("age < %@", 5)) == [1, 3, 5]
    assert ids(dogs.filter("age > %@ AND breed ==[c] %@", 2, "collie")) == [1, 5]
    assert ids(dogs.filter("name CONTAINS %@", "A")) == [3]


def test_filter_with_printf_number_args(dogs):
    # NSPredicate's %d, %ld, %u ... take an integer, %f, %lf ... a double;
    # each takes the next argument, as %@ does.
    assert ids(dogs.filter("age < %d", 5)) == [1, 3, 5]
    assert ids(dogs.filter("age < %ld", 5.9)) == [1, 3, 5]  # truncated toward zero
    assert ids(dogs.filter("age >= %lld AND name BEGINSWITH[c] %@", 3, "r")) == [1, 5]
    assert ids(dogs.filter("age < %f", 5)) == [1, 3, 5]
    assert ids(dogs.filter("%K < %u", "age", 5)) == [1, 3, 5]
    with pytest.raises(fief.QueryArgumentError, match="'%d' takes a whole number"):
        dogs.filter("age == %d", "three")
    with pytest.raises(fief.QuerySyntaxError, match="'%s' is not supported"):
        dogs.filter("name == %s", "Rex")


def test_filter_args_of_every_type(realm):
    when = dt.datetime(2020, 5, 5, tzinfo=UTC)
    oid = fief.ObjectId()
    uid = uuid.uuid4()
    with realm.write():
        realm.add(AllTypes(id=1, i=5, b=True, f=2.5, f32=1.5, s="x", data=b"\x01\x02", when=when,
                           dec=fief.Decimal128("1.25"), oid=oid, uid=uid))
        realm.add(AllTypes(id=2))
        realm.add(OptionalTypes(id=1, i=None, s="y"))
        realm.add(OptionalTypes(id=2, i=3))
    r = realm.objects(AllTypes)
    assert ids(r.filter("i == $0", 5)) == [1]
    assert ids(r.filter("b == $0", True)) == [1]
    assert ids(r.filter("f == $0", 2.5)) == [1]
    assert ids(r.filter("f32 == $0", 1.5)) == [1]
    assert ids(r.filter("s == $0", "x")) == [1]
    assert ids(r.filter("data == $0", b"\x01\x02")) == [1]
    assert ids(r.filter("when == $0", when)) == [1]
    assert ids(r.filter("when > $0", dt.datetime(2010, 1, 1))) == [1]
    assert ids(r.filter("dec == $0", fief.Decimal128("1.25"))) == [1]
    assert ids(r.filter("oid == $0", oid)) == [1]
    assert ids(r.filter("uid == $0", uid)) == [1]
    o = realm.objects(OptionalTypes)
    assert ids(o.filter("i == $0", None)) == [1]
    assert ids(o.filter("i == nil")) == [1]
    assert ids(o.filter("s != nil")) == [1]


def test_filter_decimal_arithmetic_and_lists_with_properties(realm):
    # Decimal128 products and quotients as IEEE 754-2008 decimal128 (realm-core's):
    # 34 digits, half to even, x / 0 an infinity; a list applied to a property element-wise.
    with realm.write():
        for i, d in enumerate(["10", "0.1", "-7.5"]):
            realm.add(AllTypes(id=i, i=i, dec=fief.Decimal128(d)))
    r = realm.objects(AllTypes)
    assert ids(r.filter("dec * 1.2 > 10")) == [0]
    assert ids(r.filter("dec / 3 == $0", fief.Decimal128("3.333333333333333333333333333333333"))) == [0]
    assert ids(r.filter("dec / 3 == $0", fief.Decimal128("3.333333333333333333333333333333334"))) == []
    assert ids(r.filter("dec / 0 < 0")) == [2]
    assert ids(r.filter("dec * 3 == 0.3")) == [1]
    assert ids(r.filter("-dec / i == 3.75")) == [2]
    assert ids(r.filter("{1, 2} * dec == 20")) == [0]
    assert ids(r.filter("ALL $0 * dec > 0", [1, 2])) == [0, 1]
    with pytest.raises(fief.QueryError, match="Realm's query language does not allow arithmetic combining two lists"):
        r.filter("{1, 2} * dec * {3} == 1")


def test_filter_chains(dogs):
    r = dogs.filter("age >= 3").filter("breed BEGINSWITH[c] 'c'")
    assert ids(r) == [1, 5]


def test_query_errors(dogs):
    with pytest.raises(fief.QuerySyntaxError) as info:
        dogs.filter("age ==")
    assert isinstance(info.value, fief.QueryError)
    with pytest.raises(fief.QuerySyntaxError):
        dogs.filter("age == 3 AND (")
    with pytest.raises(fief.InvalidQueryError):
        dogs.filter("nosuch == 3")
    with pytest.raises(fief.InvalidQueryError):
        dogs.filter("age == 'three'")
    with pytest.raises(fief.QueryArgumentError):
        dogs.filter("age == $0")  # missing argument
    with pytest.raises(fief.QueryArgumentError):
        dogs.filter("age == $1", 1)
    with pytest.raises(fief.InvalidQueryError):
        dogs.sort("nosuch")


def test_ill_typed_query_argument(dogs):
    # fief.h: FIEF_ERR_QUERY_ARGUMENT is "a missing or ill-typed $n / %@ argument"
    with pytest.raises(fief.QueryArgumentError):
        dogs.filter("age == $0", "a string")


def test_sort(dogs):
    assert [d.name for d in dogs.sort("name")] == ["Ace", "Bella", "Rex", "Zed", "fido", "rexa"]  # code points
    assert [d.id for d in dogs.sort("age", ascending=False)] == [4, 2, 6, 1, 5, 3]
    assert [d.id for d in dogs.sort("age", "name")] == [3, 1, 5, 6, 2, 4]
    assert [d.id for d in dogs.sort(("age", True), ("name", False))] == [3, 5, 1, 6, 2, 4]
    assert [d.id for d in dogs.sort(["breed", "-age"])] == [6, 1, 3, 2, 5, 4]
    assert [d.id for d in dogs.sort(Dog.age, Dog.id)] == [3, 1, 5, 6, 2, 4]
    # ties keep the order of the results
    assert [d.id for d in dogs.sort("age")] == [3, 1, 5, 6, 2, 4]
    # nulls first
    assert [d.id for d in dogs.sort("nickname")][:2] == [1, 4]


def test_sort_then_filter_and_filter_then_sort(dogs):
    assert [d.id for d in dogs.sort("age", ascending=False).filter("age < 6")] == [6, 1, 5, 3]
    assert [d.id for d in dogs.filter("age < 6").sort("name")] == [3, 1, 6, 5]


def test_sort_needs_keys(dogs):
    with pytest.raises(fief.InvalidArgumentError):
        dogs.sort()


@pytest.mark.parametrize("predicate,expected", [
    ("TRUEPREDICATE", [1, 2, 3, 4, 5, 6]),
    ("FALSEPREDICATE", []),
    ("truepredicate", [1, 2, 3, 4, 5, 6]),  # keywords are case-insensitive
    ("age == 3 and breed == 'Collie'", [1]),
    ("not (age == 3) or name beginswith 'R'", [1, 2, 3, 4, 6]),
    ("name !=[c] 'REX'", [2, 3, 4, 5, 6]),
    ("name CONTAINS[cd] 'E'", [1, 3, 4, 5, 6]),
])
def test_filter_more_syntax(dogs, predicate, expected):
    assert ids(dogs.filter(predicate)) == expected


def test_filter_diacritic_insensitive(realm):
    with realm.write():
        realm.add(Dog(id=1, name="Café"))
        realm.add(Dog(id=2, name="cafe"))
        realm.add(Dog(id=3, name="CAFÉ"))
    r = realm.objects(Dog)
    assert ids(r.filter("name == 'cafe'")) == [2]
    assert ids(r.filter("name ==[d] 'cafe'")) == [2]
    assert ids(r.filter("name ==[d] 'Cafe'")) == [1]
    assert ids(r.filter("name ==[cd] 'cafe'")) == [1, 2, 3]
    assert ids(r.filter("name BEGINSWITH[cd] 'CAFE'")) == [1, 2, 3]


def test_filter_typed_literals(realm):
    oid = fief.ObjectId("5f1d7a3b9c8e4d2a1b0c9d8e")
    uid = uuid.UUID("12345678-1234-5678-1234-567812345678")
    with realm.write():
        realm.add(AllTypes(id=1, when=dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC), oid=oid, uid=uid,
                           data=b"hello"))
        realm.add(AllTypes(id=2))
    r = realm.objects(AllTypes)
    seconds = int(dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp())
    assert ids(r.filter(f"when == T{seconds}:0")) == [1]
    assert ids(r.filter("when == 2020-01-02@03:04:05")) == [1]
    assert ids(r.filter("when > 2010-01-01@00:00:00")) == [1]
    assert ids(r.filter(f"oid == oid({oid})")) == [1]
    assert ids(r.filter(f"uid == uuid({uid})")) == [1]
    assert ids(r.filter('data == bin(B64"aGVsbG8=")')) == [1]


def test_sort_nulls_last_when_descending(dogs):
    order = [d.id for d in dogs.sort("nickname", ascending=False)]
    assert order[-2:] == [1, 4]


def test_sorting_sorted_results_makes_earlier_keys_secondary(dogs):
    assert [d.id for d in dogs.sort("name").sort("age")] == [3, 1, 5, 6, 2, 4]


def test_strings_and_binaries_are_distinct_types(realm):
    # `data == $0` accepted a str argument while `s == $0` refused a bytes one.
    with realm.write():
        realm.add(AllTypes(id=1, s="ab", data=b"ab"))
    r = realm.objects(AllTypes)
    assert ids(r.filter("s == $0", "ab")) == [1]
    assert ids(r.filter("data == $0", b"ab")) == [1]
    with pytest.raises(fief.QueryArgumentError, match="distinct types"):
        r.filter("data == $0", "ab")
    with pytest.raises(fief.QueryArgumentError, match="distinct types"):
        r.filter("s == $0", b"ab")
    with pytest.raises(fief.InvalidQueryError, match="distinct types"):
        r.filter("data BEGINSWITH 'a'")


@pytest.mark.isolated
def test_huge_counts_raise_instead_of_crashing(realm, library):
    # A count of 2^63 or more crashed the interpreter (SIGILL) in fief_object_get_values.
    import ctypes
    from fief import _lib as L
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    obj = dog.__dict__["_fief_handle"].ptr
    results = realm.objects(Dog)._handle.ptr
    keys = (L.fief_property_key_t * 1)(1)
    out = (L.fief_value_t * 1)()
    for count in (2**64 - 1, 2**63):
        assert not library.fief_object_get_values(obj, keys, count, out)
        err = library.last_error()
        assert isinstance(err, fief.InvalidArgumentError) and f"num_values is {count}" in str(err)
        assert not library.fief_results_get_values(results, 0, keys, count, out)
        assert "num_values is" in str(library.last_error())
        assert not library.fief_results_filter(results, b"TRUEPREDICATE", None, count)
        err = library.last_error()
        assert isinstance(err, fief.InvalidArgumentError) and f"num_args is {count}" in str(err)
    assert not library.fief_results_get_object(results, 2**64 - 1)
    assert isinstance(library.last_error(), fief.IndexOutOfBoundsError)
    assert realm.objects(Dog)[0].name == "Rex"


class Walker(fief.Object):
    name: str = ""
    age: int = 0
    scores: list[int]
    hounds: list["Hound"]


class Hound(fief.Object):
    name: str = ""
    age: int = 0
    walker: Optional[Walker] = None


@pytest.fixture
def graph(realm_path):
    """Ann walks Rex (10) and Spot (3), Bob walks Fido (1), Cy nobody;
    Rex and Fido belong to Ann, Spot to Bob."""
    with fief.Realm.open(realm_path, schema=[Walker, Hound]) as r:
        with r.write():
            ann = r.add(Walker(name="Ann", age=30, scores=[7, 9, 2]))
            bob = r.add(Walker(name="Bob", age=40))
            r.add(Walker(name="Cy", age=50))
            rex = r.add(Hound(name="Rex", age=10, walker=ann))
            spot = r.add(Hound(name="Spot", age=3, walker=bob))
            fido = r.add(Hound(name="Fido", age=1, walker=ann))
            ann.hounds.extend([rex, spot])
            bob.hounds.append(fido)
        yield r


def names(results):
    return sorted(x.name for x in results)


@pytest.mark.parametrize("cls,predicate,expected", [
    ("Hound", "walker.name == 'Ann'", ["Fido", "Rex"]),
    ("Hound", "walker.age > 35 OR walker == nil", ["Spot"]),
    ("Hound", "age < walker.age", ["Fido", "Rex", "Spot"]),
    ("Walker", "hounds.age > 5", ["Ann"]),
    ("Walker", "ALL hounds.age > 2", ["Ann", "Cy"]),
    ("Walker", "NONE hounds.name == 'Fido'", ["Ann", "Cy"]),
    ("Walker", "hounds.@count == 0", ["Cy"]),
    ("Walker", "hounds.@avg.age > 5", ["Ann"]),
    ("Walker", "2 IN scores AND scores.@sum == 18", ["Ann"]),
    ("Walker", "@links.Hound.walker.@count == 2", ["Ann"]),
    ("Walker", "@links.Hound.walker.name BEGINSWITH 'S'", ["Bob"]),
    ("Walker", "name IN {'Cy', 'Ann'} AND age BETWEEN {25, 45}", ["Ann"]),
])
def test_filter_through_links_and_collections(graph, cls, predicate, expected):
    assert names(graph.objects(Walker if cls == "Walker" else Hound).filter(predicate)) == expected


def test_filter_through_links_with_arguments_and_liveness(graph):
    walkers, hounds = graph.objects(Walker), graph.objects(Hound)
    rex = hounds.filter("name == 'Rex'")[0]
    assert names(walkers.filter("$0 IN hounds", rex)) == ["Ann"]
    assert names(walkers.filter("age IN $0", [40, 50])) == ["Bob", "Cy"]
    assert names(walkers.filter("age != ALL $0", [40, 50])) == ["Ann"]
    anns = hounds.filter("walker.name == $0", "Ann")
    assert len(anns) == 2
    with graph.write():
        walkers.filter("name == 'Bob'")[0].name = "Ann"
    assert len(anns) == 3
    with pytest.raises(fief.InvalidQueryError, match="has no property 'nope'"):
        walkers.filter("hounds.nope > 1")
    with pytest.raises(fief.InvalidQueryError, match="IN takes a list"):
        walkers.filter("age IN 3")


def test_description_is_canonical_text_that_filters_the_same(dogs):
    assert dogs.description == "TRUEPREDICATE"
    r = dogs.filter("age>2&&name beginswith[c] $0 || nickname = nil", "r")
    assert r.description == "age > 2 AND name BEGINSWITH[c] 'r' OR nickname == null"
    assert ids(dogs.filter(r.description)) == ids(r) == [1, 4, 5]
    # Arguments are written in as literals (lists as {...}); stages follow the filters.
    staged = dogs.filter("age IN %@", [3, 7, 10]).sort("name").filter("breed != $0", "poodle").limit(2)
    assert staged.description == "age IN {3, 7, 10} AND breed != 'poodle' SORT(name ASC) LIMIT(2)"
    assert [d.id for d in dogs.filter(staged.description)] == [d.id for d in staged] == [1, 2]
    assert dogs.distinct("breed").description == "TRUEPREDICATE DISTINCT(breed)"
    assert dogs.filter("name == %@", "it's\n").description == "name == 'it\\'s\\n'"
    assert repr(staged) == ("<fief.Results of Dog where age IN {3, 7, 10} AND breed != 'poodle' "
                            "SORT(name ASC) LIMIT(2): 2 objects>")


def test_value_results_description(graph):
    ann = graph.objects(Walker).filter("name == 'Ann'")[0]
    scores = ann.scores.filter("self > $0", 2).sort(ascending=False)
    assert scores.description == "self > 2 SORT(self DESC)"
    assert list(scores) == [9, 7]
    assert repr(scores).endswith("where self > 2 SORT(self DESC): 2 values>")


def test_key_path_arguments(graph):
    walkers, hounds = graph.objects(Walker), graph.objects(Hound)
    # RealmSwift's filter("%K == %@", "name", "Ann"): %K and %@ each take the next argument.
    assert names(walkers.filter("%K == %@", "name", "Ann")) == ["Ann"]
    assert names(hounds.filter("%K == %@", "walker.name", "Ann")) == ["Fido", "Rex"]
    assert names(hounds.filter("$K0 > $1", "age", 2)) == ["Rex", "Spot"]
    assert names(hounds.filter("%K.@count == 1", "@links.Walker.hounds")) == ["Fido", "Rex", "Spot"]


def test_key_path_arguments_through_lists_and_their_errors(graph):
    walkers = graph.objects(Walker)
    assert names(walkers.filter("ANY %K > %@", "hounds.age", 5)) == ["Ann"]
    assert names(walkers.filter("%K.@max > 8", "scores")) == ["Ann"]
    assert walkers.filter("%K == %@", "name", "Ann").description == "name == 'Ann'"
    with pytest.raises(fief.QueryArgumentError, match=r"argument 0 \(a key-path argument, \$K0 or the matching %K\) is an int"):
        walkers.filter("%K == 1", 5)
    with pytest.raises(fief.QueryArgumentError, match="class 'Walker' has no property 'nope'"):
        walkers.filter("%K == 1", "nope")
    with pytest.raises(fief.QueryArgumentError, match="class 'Hound' has no property 'nope'"):
        walkers.filter("ANY %K == 1", "hounds.nope")
    with pytest.raises(fief.QueryArgumentError, match="is a list"):
        walkers.filter("%K == 1", ["name"])
    with pytest.raises(fief.QuerySyntaxError):
        walkers.filter("%K.name == 1", "hounds")


# -- lists and dicts nested in mixed values -------------------------------------------

class Crate(fief.Object):
    name: str = ""
    value: fief.Mixed
    items: list[fief.Mixed]
    props: dict[str, fief.Mixed]


class Keeper(fief.Object):
    name: str = ""
    crates: list[Crate]
    pets: dict[str, Optional[Hound]]
    hounds: list[Hound]


@pytest.fixture
def crates(realm_path):
    """Mixed values holding lists and dicts, nested; lists and dicts of them."""
    with fief.Realm.open(realm_path, schema=[Crate, Keeper, Walker, Hound]) as r:
        with r.write():
            lst = r.add(Crate(name="list", value=[5, 7, "x", [1, 2]], items=[{"k": 1}, [1, 2, 3]]))
            dct = r.add(Crate(name="dict", value={"key": "x", "n": 3, "inner": {"b": [1, 9, 2]}},
                              props={"a": {"x": 2}}))
            scalar = r.add(Crate(name="scalar", value=5))
            r.add(Crate(name="none"))
            rex, fido = r.add(Hound(name="Rex")), r.add(Hound(name="Fido"))
            r.add(Keeper(name="Ann", crates=[lst, scalar], pets={"a": rex, "b": None}, hounds=[rex]))
            r.add(Keeper(name="Bob", crates=[dct], pets={"a": fido}))
            r.add(Keeper(name="Cy"))
        yield r


@pytest.mark.parametrize("predicate,expected", [
    ("value[0] == 5", ["list"]),
    ("value[FIRST] == 5", ["list"]),
    ("value[LAST][1] == 2", ["list"]),
    ("value['key'] == 'x'", ["dict"]),
    ("value.key == 'x'", ["dict"]),
    ("value['inner']['b'][1] > 3", ["dict"]),
    ("value[*] == 'x'", ["dict", "list"]),
    ("ANY value[*] == 7", ["list"]),
    ("ALL value[*] == 5", ["none", "scalar"]),
    ("NONE value[*] == 5", ["dict", "none", "scalar"]),
    ("value.@keys == 'inner'", ["dict"]),
    ("value.@allKeys == 'inner'", ["dict"]),  # NSPredicate's (RealmSwift's) name for @keys
    ("value[0][0] == 1", []),                      # a path meeting a scalar reaches nothing
    ("value['missing'] == nil", ["dict"]),         # a missing key at the end reads null
    ("value.missing.deeper == nil", []),
    ("value[9] == nil", []),
    ("value[SIZE] == 4", ["list"]),
    ("value.@size == 3", ["dict"]),
    ("value.@count == nil", ["none", "scalar"]),
    ("value[3].@size == 2", ["list"]),
    ("value.@type == 'list'", ["list"]),
    ("value.@type == 'dictionary'", ["dict"]),
    ("value[*].@type == 'collection'", ["dict", "list"]),
    ("value['inner']['b'][*] == {1, 9, 2}", ["dict"]),
    ("value[0] IN {4, 5}", ["list"]),
    ("value[0] * 2 == 10", ["list"]),
    ("items[0].k == 1", ["list"]),
    ("2 IN items[1][*]", ["list"]),
    ("props.a.x == 2", ["dict"]),
])
def test_filter_into_nested_mixed_values(crates, predicate, expected):
    results = crates.objects(Crate).filter(predicate)
    assert names(results) == expected
    assert names(crates.objects(Crate).filter(results.description)) == expected


def test_filter_into_nested_mixed_values_with_arguments_links_and_liveness(crates):
    all_crates, keepers = crates.objects(Crate), crates.objects(Keeper)
    assert names(all_crates.filter("value[$0] == $1", "n", 3)) == ["dict"]
    assert names(all_crates.filter("value[%@] == %@", 1, 7)) == ["list"]
    assert all_crates.filter("value[$0] == $1", "n", 3).description == "value['n'] == 3"
    assert names(keepers.filter("crates.value.key == 'x'")) == ["Bob"]
    assert names(keepers.filter("ALL crates.value[*] == 5")) == ["Ann", "Cy"]
    deep = all_crates.filter("value.inner.b[*] == 42")
    assert len(deep) == 0
    with crates.write():
        all_crates.filter("name == 'dict'")[0].value["inner"]["b"].append(42)
    assert len(deep) == 1
    with pytest.raises(fief.InvalidQueryError, match=r"ANY value\[\*\] == x"):
        all_crates.filter("5 IN value[*]")
    with pytest.raises(fief.InvalidQueryError, match="does not allow '@max'"):
        all_crates.filter("value['a'].@max > 1")
    with pytest.raises(fief.InvalidQueryError, match="only mixed values hold nested"):
        crates.objects(Walker).filter("scores[0][1] == 1")
    with pytest.raises(fief.QueryArgumentError, match="argument 0 is a bool"):
        all_crates.filter("value[$0] == 1", True)
    with pytest.raises(fief.InvalidQueryError) as err:
        all_crates.filter("ALL value.@size > 1")
    assert "not supported" not in str(err.value)


def test_maps_and_lists_of_links_count_and_compare(crates):
    keepers, hounds = crates.objects(Keeper), crates.objects(Hound)
    rex, fido = hounds.filter("name == 'Rex'")[0], hounds.filter("name == 'Fido'")[0]
    # '@count' after a key of a map of links counts the map, as realm-core does.
    assert names(keepers.filter("pets['a'].@count == 2")) == ["Ann"]
    assert names(keepers.filter("pets.b.@count == 1")) == ["Bob"]
    # A map of links against a list: its values in key order, null ones included.
    assert names(keepers.filter("pets == {$0, nil}", rex)) == ["Ann"]
    assert names(keepers.filter("pets == $0", [fido])) == ["Bob"]
    assert names(keepers.filter("pets == {}")) == ["Cy"]
    with pytest.raises(fief.InvalidQueryError, match=r"does not support index '\[0\]'"):
        keepers.filter("hounds[0].@count == 1")
