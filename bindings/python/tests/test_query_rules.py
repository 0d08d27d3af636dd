"""Five rules of Realm's query language as realm-core 14 has them, through
filter(): a property named `self` starting a key path, SORT/DISTINCT by a
dict key, B64"..." as a string, two lists compared element by element, and
`!=` against a list (lengths differ, or every position differs)."""

from __future__ import annotations

from typing import Optional

import pytest

import fief


class RuleItem(fief.Object):
    name: str = ""
    price: float = 0.0
    link: Optional["RuleItem"] = fief.Property(name="self", default=None)


class RuleShopper(fief.Object):
    name: fief.PrimaryKey[str]
    items: list[RuleItem]
    others: list[RuleItem]
    meta: dict[str, Optional[int]]


class RuleBlob(fief.Object):
    s: Optional[str] = None
    b: Optional[bytes] = None
    m: fief.Mixed = None


@pytest.fixture
def shop(realm_path):
    realm = fief.Realm.open(realm_path, schema=[RuleItem, RuleShopper, RuleBlob])
    with realm.write():
        milk, oranges, pizza, cereal = (realm.add(RuleItem(name=n, price=p))
                                        for n, p in [("milk", 5.5), ("oranges", 4.0), ("pizza", 9.5), ("cereal", 6.5)])
        for item in (milk, oranges, pizza):
            item.link = item
        # p2's lists share one position (pizza at 1) and differ at the others; p3's are both empty.
        for name, items, others, meta in [
            ("p0", [milk, oranges, pizza, cereal], [milk, oranges, pizza, cereal], {"age": 6}),
            ("p1", [milk] * 10, [milk], {"age": 4}),
            ("p2", [pizza, pizza, cereal], [cereal, pizza, pizza], {"age": 6}),
            ("p3", [], [], {}),
        ]:
            realm.add(RuleShopper(name=name, items=items, others=others, meta=meta))
        realm.add(RuleBlob(s="Rex", b=b"Rex", m="Rex"))
        realm.add(RuleBlob(s="Bo", b=b"Bo", m=b"Rex"))
    yield realm
    realm.close()


def names(results):
    return [o.name for o in results]


@pytest.mark.parametrize("predicate, expected", [
    ("self.price > 5.0", ["milk", "pizza"]),
    ("self.self.name == 'oranges'", ["oranges"]),
    ("self.@count == 0", ["cereal"]),
    ("@links.RuleItem.self.@count == 1", ["milk", "oranges", "pizza"]),
    ("self == nil", ["cereal"]),
    ("TRUEPREDICATE SORT(self.price DESC)", ["cereal", "pizza", "milk", "oranges"]),
])
def test_property_named_self_starts_a_key_path(shop, predicate, expected):
    assert names(shop.objects(RuleItem).filter(predicate)) == expected


def test_self_without_such_a_property_is_refused(shop):
    with pytest.raises(fief.InvalidQueryError, match="'self'"):
        shop.objects(RuleShopper).filter("self.name == 'p0'")


@pytest.mark.parametrize("predicate, expected", [
    ("TRUEPREDICATE SORT(meta['age'] ASC, name ASC)", ["p3", "p1", "p0", "p2"]),
    ("TRUEPREDICATE SORT(meta.age DESC) DISTINCT(meta[\"age\"])", ["p0", "p1", "p3"]),
    ("TRUEPREDICATE DISTINCT(meta.age)", ["p0", "p1", "p3"]),
])
def test_sort_and_distinct_by_dict_key(shop, predicate, expected):
    assert names(shop.objects(RuleShopper).filter(predicate)) == expected


def test_sort_method_by_dict_key(shop):
    """Results.sort takes a map and a key as its docstring says ("meta.age")."""
    shoppers = shop.objects(RuleShopper)
    assert names(shoppers.sort("meta.age", "name")) == ["p3", "p1", "p0", "p2"]
    assert names(shoppers.filter("TRUEPREDICATE SORT(meta['age'] ASC, name ASC)")) == names(shoppers.sort("meta.age", "name"))


@pytest.mark.parametrize("predicate, expected", [
    ('s == B64"UmV4"', ["Rex"]),           # "UmV4" is base64 for "Rex"
    ('m == B64"UmV4"', ["Rex"]),           # a string: not the binary
    ('m == bin(B64"UmV4")', ["Bo"]),       # only bin(...) makes a binary
    ('b == bin(B64"UmV4")', ["Rex"]),
])
def test_base64_alone_is_a_string(shop, predicate, expected):
    assert [o.s for o in shop.objects(RuleBlob).filter(predicate)] == expected


def test_base64_against_a_binary_property_is_refused(shop):
    with pytest.raises(fief.InvalidQueryError):
        shop.objects(RuleBlob).filter('b == B64"UmV4"')


@pytest.mark.parametrize("predicate, expected", [
    ("items.price == others.price", ["p0", "p3"]),
    ("items.price != others.price", ["p1", "p3"]),
    ("items.price != items.price", ["p3"]),
    ("ANY items.price == others.price", ["p0", "p1", "p2"]),
    ("items.name != {'cereal', 'pizza', 'cereal'}", ["p0", "p1", "p3"]),
    ("NOT items.name == {'cereal', 'pizza', 'cereal'}", ["p0", "p1", "p2", "p3"]),
    ("items.name != {'milk', 'milk', 'milk'}", ["p0", "p1", "p2", "p3"]),
    ("items.price != {}", ["p0", "p1", "p2", "p3"]),
])
def test_lists_compared_element_by_element(shop, predicate, expected):
    assert names(shop.objects(RuleShopper).filter(predicate)) == expected


def test_list_argument_not_equal(shop):
    shoppers = shop.objects(RuleShopper)
    assert names(shoppers.filter("items.price != $0", [4.0, 9.5, 5.5])) == ["p0", "p1", "p3"]
    assert names(shoppers.filter("items.price != $0", [4.0, 1.0, 1.0])) == ["p0", "p1", "p2", "p3"]
