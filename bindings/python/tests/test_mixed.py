"""Mixed values (fief.Mixed): a mixed property and lists, sets and dicts of
mixed values hold None, every scalar type and links to objects of any
class, read and written as plain Python values; Realm's equality across
number types (and not across bool, string and number) through `in`,
`index`, `count`, `remove` and set membership; links read as model objects
(fief.Link for a class without a model class), nulled or removed when the
target is deleted, with backlinks; every bad value refused with the
package's exception before anything is written."""

from __future__ import annotations

import datetime as dt
import decimal
import typing
import uuid
from typing import Optional

import pytest

import fief
from fief import _lib as L


class Dog(fief.Object):
    name: str = ""
    boxes = fief.Backlinks("Box", "value")
    listed_in = fief.Backlinks("Box", "items")


class Cat(fief.Object):
    name: str = ""


class Toy(fief.EmbeddedObject):
    label: str = ""


class Box(fief.Object):
    label: str = ""
    value: fief.Mixed
    items: list[fief.Mixed]
    bag: set[fief.Mixed]
    props: dict[str, fief.Mixed]
    toy: Optional[Toy] = None


class Optionals(fief.Object):
    maybe: Optional[fief.Mixed] = None
    default: fief.Mixed = 7
    elements: list[Optional[fief.Mixed]]


MODELS = [Dog, Cat, Toy, Box, Optionals]

UTC = dt.timezone.utc
OID = fief.ObjectId("5f1d7a3b9c8e4d2a1b0c9d8e")
UID = uuid.UUID("12345678-1234-5678-1234-567812345678")

# (written, read back): plain Python values of every type a mixed value holds.
SAMPLES = [
    (None, None),
    (True, True),
    (False, False),
    (0, 0),
    (-2 ** 63, -2 ** 63),
    (2 ** 63 - 1, 2 ** 63 - 1),
    (2.5, 2.5),
    (float("-inf"), float("-inf")),
    (fief.Float32(0.1), 0.10000000149011612),  # stored in 32 bits
    ("", ""),
    ("héllo ✓", "héllo ✓"),
    (b"", b""),
    (b"\x00\xff", b"\x00\xff"),
    (bytearray(b"ab"), b"ab"),
    (dt.datetime(2024, 2, 29, 12, 30, 5, 123456, tzinfo=UTC), dt.datetime(2024, 2, 29, 12, 30, 5, 123456, tzinfo=UTC)),
    (dt.datetime(1999, 12, 31, 23, 59), dt.datetime(1999, 12, 31, 23, 59, tzinfo=UTC)),  # naive: UTC
    (fief.Decimal128("1.25"), fief.Decimal128("1.25")),
    (decimal.Decimal("-3.5E+10"), fief.Decimal128("-3.5E+10")),
    (OID, OID),
    (UID, UID),
]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def new_box(realm, **values):
    with realm.write():
        return realm.add(Box(**values))


def same(a, b):
    """Equal and of the same type (True is not 1, 1.0 is not 1 here)."""
    return type(a) is type(b) and a == b


# -- declarations and schema ---------------------------------------------------


def test_declarations():
    specs = {s.attr: s for s in Box.__fief_properties__}
    assert specs["value"].fief_type == L.TYPE_MIXED and specs["value"].is_mixed and specs["value"].nullable
    assert not specs["value"].is_collection and specs["value"].link_target is None
    assert specs["items"].is_list and specs["items"].is_mixed and specs["items"].nullable
    assert specs["bag"].is_set and specs["props"].is_dict and specs["props"].fief_type == L.TYPE_MIXED
    assert repr(specs["value"]) == "<fief property value: mixed optional>"
    assert repr(specs["items"]) == "<fief property items: list of optional mixed>"
    optionals = {s.attr: s for s in Optionals.__fief_properties__}
    assert optionals["maybe"].nullable and optionals["default"].nullable and optionals["elements"].nullable
    assert Box().value is None and Box().items == [] and Optionals().default == 7
    with pytest.raises(TypeError, match="annotation"):
        fief.Mixed()


@pytest.mark.parametrize("annotation,message", [
    ("fief.PrimaryKey[fief.Mixed]", "cannot be the primary key"),
    ("fief.Mixed = fief.Property(primary_key=True)", "cannot be the primary key"),
    ("fief.Mixed = fief.Property(optional=False)", "may always hold None"),
    ("list[list[fief.Mixed]]", "element of another list, set or dict"),
    ("dict[str, fief.Indexed[fief.Mixed]]", "neither primary keys nor indexed"),
])
def test_declaration_errors(annotation, message):
    with pytest.raises(TypeError, match=message):
        exec(f"class Bad(fief.Object):\n    value: {annotation}\n", {"__name__": __name__, "fief": fief})


def test_schema_read_back(realm):
    box = next(c for c in realm.schema if c.name == "Box")
    props = box.properties
    assert props["value"].type == L.TYPE_MIXED == 12 and props["value"].type_name == "mixed" and props["value"].nullable
    assert props["items"].is_list and props["bag"].is_set and props["props"].is_map
    assert all(props[name].type_name == "mixed" for name in ("items", "bag", "props"))


def test_unmanaged_objects_hold_what_they_are_given():
    box = Box(value=[1, {"a": 2}], items=[1, "x"], props={"k": None})
    assert box.value == [1, {"a": 2}] and box.items == [1, "x"] and box.props == {"k": None}
    box.value = OID
    assert box.value is OID


# -- every type, both ways ----------------------------------------------------------


def test_a_mixed_property_holds_every_type(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        box = new_box(realm)
        assert box.value is None
        for written, expected in SAMPLES:
            with realm.write():
                box.value = written
            assert same(box.value, expected), (written, box.value)
        with realm.write():  # one object per sample, to read back after reopening
            for written, _ in SAMPLES:
                realm.add(Box(label="sample", value=written))
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        got = [box.value for box in realm.objects(Box).filter("label == 'sample'")]
        assert len(got) == len(SAMPLES)
        for value, (_, expected) in zip(got, SAMPLES):
            assert same(value, expected), (value, expected)
        assert [row[0] for row in realm.objects(Box).filter("label == 'sample'").values("value")][1] is True


def test_decimal_reads_as_decimal128_and_float32_as_float(realm):
    box = new_box(realm, value=decimal.Decimal("2.50"))
    assert isinstance(box.value, fief.Decimal128) and box.value == decimal.Decimal("2.5")
    with realm.write():
        box.value = fief.Float32(1.5)
    assert type(box.value) is float and box.value == 1.5


def test_collections_of_mixed_values_hold_every_type(realm_path):
    values = [written for written, _ in SAMPLES]
    expected = [read for _, read in SAMPLES]
    keys = [f"k{i:02}" for i in range(len(values))]
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        box = new_box(realm, items=values, props=dict(zip(keys, values)))
        with realm.write():
            box.bag.update([OID, "text", b"bytes", UID, None, 2.5, dt.datetime(2001, 1, 1, tzinfo=UTC)])
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        box = realm.objects(Box)[0]
        assert len(box.items) == len(values)
        assert all(same(a, b) for a, b in zip(box.items, expected))
        assert all(same(box.items[i], expected[i]) for i in range(len(values)))
        assert list(box.props.keys()) == keys
        assert all(same(box.props[k], e) for k, e in zip(keys, expected))
        assert all(same(v, e) for v, e in zip(box.props.values(), expected))
        assert set(box.bag) == {OID, "text", b"bytes", UID, None, 2.5, dt.datetime(2001, 1, 1, tzinfo=UTC)}
        assert list(box.bag)[0] is None  # null first, in the set's order
        assert box.to_dict()["items"] == expected and box.to_dict()["props"] == dict(zip(keys, expected))


def test_a_value_changes_type_in_place(realm):
    box = new_box(realm, value="text", items=[1, 2, 3], props={"a": 1})
    with realm.write():
        box.value = 3
        box.items[1] = "two"
        box.items.insert(0, None)
        box.props["a"] = b"\x01"
    assert same(box.value, 3) and box.items == [None, 1, "two", 3] and box.props == {"a": b"\x01"}
    with realm.write():
        box.items = [True, 0.5]
        box.props = {"z": OID}
    assert box.items == [True, 0.5] and same(box.items[0], True) and box.props == {"z": OID}


# -- Realm's equality -------------------------------------------------------------


def test_numbers_are_equal_across_types_but_not_bools_or_strings(realm):
    box = new_box(realm, items=["1", True, 1, 2.5, None])
    items = box.items
    assert items.index(1) == 2
    assert items.index(1.0) == 2 and items.index(decimal.Decimal("1.00")) == 2 and items.index(fief.Float32(1)) == 2
    assert items.index(True) == 1 and items.index("1") == 0 and items.index(None) == 4
    assert items.index(decimal.Decimal("2.5")) == 3
    assert items.count(1) == 1 and items.count(1.0) == 1 and items.count(True) == 1 and items.count("1") == 1
    assert 2.5 in items and False not in items and 0 not in items and "2.5" not in items
    assert items.index(1, 2, 4) == 2 and items.index(1.0, 2) == 2
    with pytest.raises(ValueError):
        items.index(True, 2)                        # True only at 1
    with pytest.raises(ValueError):
        items.index(2)
    with realm.write():
        items.remove(1.0)                           # removes the int 1, not True or "1"
    assert items == ["1", True, 2.5, None] and same(items[1], True)


def test_a_set_of_mixed_values_keeps_one_element_per_number(realm):
    box = new_box(realm)
    bag = box.bag
    with realm.write():
        bag.add(1)
        for same_number in (1.0, fief.Float32(1.0), decimal.Decimal("1.0"), fief.Decimal128("1")):
            bag.add(same_number)
        assert len(bag) == 1
        bag.add(True)
        bag.add("1")
        bag.add(0.5)
        bag.add(decimal.Decimal("0.5"))             # the double 0.5
        bag.add(decimal.Decimal("0.1"))             # not a double: an element of its own
        bag.add(0.1)
    assert len(bag) == 6
    assert 1 in bag and 1.0 in bag and decimal.Decimal(1) in bag and True in bag and "1" in bag
    assert 2 not in bag and False not in bag and "0.5" not in bag and b"1" not in bag
    assert same(list(bag)[0], True)                 # bools before numbers, in the set's order
    with realm.write():
        bag.discard(1.0)                            # the 1, not True
        bag.remove(decimal.Decimal("0.50"))
    assert True in bag and 1 not in bag and 0.5 not in bag and len(bag) == 4
    assert bag == {True, "1", decimal.Decimal("0.1"), 0.1}
    assert bag.issuperset([True, 0.1]) and not bag.issuperset([1])


def test_equality_of_links(realm):
    with realm.write():
        rex, ace = realm.add(Dog(name="Rex")), realm.add(Dog(name="Ace"))
        box = realm.add(Box(items=[rex, ace, rex], bag={rex}))
    link = rex._fief_link()
    assert box.items.index(ace) == 1 and box.items.count(rex) == 2 and box.items.count(link) == 2
    assert link in box.items and link in box.bag and rex in box.bag and ace not in box.bag
    assert Dog(name="unmanaged") not in box.items and Dog(name="unmanaged") not in box.bag


# -- links ---------------------------------------------------------------------------


def test_links_to_objects_of_any_class(realm):
    with realm.write():
        rex, tom = realm.add(Dog(name="Rex")), realm.add(Cat(name="Tom"))
        box = realm.add(Box(value=rex, items=[rex, tom, 1], bag={rex, tom}, props={"dog": rex, "cat": tom}))
    assert isinstance(box.value, Dog) and box.value == rex and box.value.name == "Rex"
    assert box.items == [rex, tom, 1] and isinstance(box.items[1], Cat)
    assert set(box.bag) == {rex, tom} and box.props == {"cat": tom, "dog": rex}
    assert list(rex.boxes) == [box] and list(rex.listed_in) == [box] and len(tom.name) == 3
    with realm.write():
        box.value = tom
    assert box.value == tom and len(rex.boxes) == 0
    with realm.write():                              # a fief.Link writes the same link
        box.value = rex._fief_link()
    assert box.value == rex and list(rex.boxes) == [box]
    assert realm.objects(Box).values("value") == [(rex._fief_link(),)]


def test_a_class_without_a_model_class_reads_as_a_link(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        with realm.write():
            tom = realm.add(Cat(name="Tom"))
            realm.add(Box(value=tom, items=[tom], props={"t": tom}))
        link = tom._fief_link()
    with fief.Realm.open(realm_path, schema=[Box, Toy, Dog]) as realm:  # no Cat model here
        box = realm.objects(Box)[0]
        assert box.value == link and isinstance(box.value, fief.Link)
        assert box.items == [link] and box.props == {"t": link}
        assert realm.values_by_key(link.class_key, link.object_key, "name") == ("Tom",)
        with realm.write():
            box.items.append(link)
            box.value = None
        assert box.items == [link, link] and box.value is None


def test_deleting_a_target_nulls_or_removes_it(realm):
    with realm.write():
        rex, ace = realm.add(Dog(name="Rex")), realm.add(Dog(name="Ace"))
        box = realm.add(Box(value=rex, items=[rex, 1, ace, rex], bag={rex, ace, 2}, props={"r": rex, "a": ace}))
    with realm.write():
        realm.delete(rex)
    assert box.value is None
    assert box.items == [1, ace]
    assert set(box.bag) == {ace, 2}
    assert box.props == {"a": ace, "r": None}      # the key stays, with None
    assert box.is_valid


# -- bad input writes nothing ------------------------------------------------------------


BAD_VALUES = [
    (object(), fief.TypeMismatchError, "a value of type 'object' cannot be a mixed value"),
    ({1, 2}, fief.TypeMismatchError, "'set' cannot be a mixed value"),
    (frozenset(), fief.TypeMismatchError, "'frozenset' cannot"),
    (1j, fief.TypeMismatchError, "'complex' cannot"),
    (dt.date(2020, 1, 1), fief.TypeMismatchError, "'date' cannot"),
    (Dog, fief.TypeMismatchError, "'type' cannot"),
    (2 ** 63, fief.InvalidArgumentError, "does not fit in 64 bits"),
    (Dog(name="unmanaged"), fief.LogicError, "not in the realm: add it"),
    (Toy(label="unmanaged"), fief.LogicError, "not in the realm"),
    (fief.Link(1, 10 ** 9), fief.NoSuchObjectError, "no object with key"),
    (fief.Link(999, 0), fief.NoSuchClassError, "no class with key 999"),
]


@pytest.mark.parametrize("bad,error,message", BAD_VALUES, ids=lambda v: type(v).__name__)
def test_bad_values_are_refused_everywhere_and_write_nothing(realm, bad, error, message):
    box = new_box(realm, value="keep", items=[1, 2], bag={1}, props={"a": 1})
    with realm.write():
        with pytest.raises(error, match=message):
            box.value = bad
        with pytest.raises(error, match=message):
            box.items.append(bad)
        with pytest.raises(error, match=message):
            box.items.extend([3, 4, bad])          # all or nothing
        with pytest.raises(error, match=message):
            box.items.insert(0, bad)
        with pytest.raises(error, match=message):
            box.items[0] = bad
        with pytest.raises(error, match=message):
            box.items = [5, bad]
        with pytest.raises(error, match=message):
            box.bag.add(bad)
        with pytest.raises(error, match=message):
            box.bag.update([7, bad])
        with pytest.raises(error, match=message):
            box.props["b"] = bad
        with pytest.raises(error, match=message):
            box.props.update({"c": 3, "d": bad})
        with pytest.raises(error, match=message):
            box.props = {"e": bad}
        with pytest.raises(error, match=message):
            realm.add(Box(label="new", value=bad))
        with pytest.raises(error, match=message):
            realm.add(Box(label="new", items=[1, bad]))
        with pytest.raises(error, match=message):
            realm.create(Box, label="new", props={"x": bad})
    assert box.value == "keep" and box.items == [1, 2] and set(box.bag) == {1} and box.props == {"a": 1}
    assert [b.label for b in realm.objects(Box)] == [""]
    assert bad not in box.items and bad not in box.bag


def test_a_deleted_object_is_refused(realm):
    with realm.write():
        rex = realm.add(Dog(name="Rex"))
        box = realm.add(Box(value=1))
        realm.delete(rex)
        for write in (lambda: setattr(box, "value", rex), lambda: box.items.append(rex),
                      lambda: box.bag.add(rex), lambda: box.props.__setitem__("r", rex)):
            with pytest.raises(fief.NoSuchObjectError, match="deleted"):
                write()
    assert box.value == 1 and box.items == [] and len(box.bag) == 0 and box.props == {}
    assert rex not in box.items and rex not in box.bag


def test_an_embedded_object_is_refused(realm):
    box = new_box(realm, value=1, toy=Toy(label="t"))
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="cannot link to an embedded object"):
            box.value = box.toy
        with pytest.raises(fief.InvalidArgumentError, match="cannot link to an embedded object"):
            box.items.append(box.toy)
        with pytest.raises(fief.InvalidArgumentError, match="cannot link to an embedded object"):
            box.bag.add(box.toy)
    assert box.value == 1 and box.items == [] and len(box.bag) == 0


def test_an_object_of_another_file_is_refused(realm, tmp_path):
    with fief.Realm.open(tmp_path / "other.fief", schema=MODELS) as other:
        with other.write():
            stranger = other.add(Dog(name="Stranger"))
        box = new_box(realm, value=1)
        with realm.write():
            with pytest.raises(fief.LogicError, match="another realm file"):
                box.value = stranger
            with pytest.raises(fief.LogicError, match="another realm file"):
                box.props["s"] = stranger
        assert box.value == 1 and box.props == {}
        assert stranger not in box.bag and stranger not in box.items


def test_a_set_refuses_lists_and_dicts(realm):
    box = new_box(realm, bag={1})
    with realm.write():
        for nested in ([1], (1, 2), {"a": 1}):
            with pytest.raises(fief.TypeMismatchError, match="a set of mixed values cannot hold a"):
                box.bag.add(nested)
    assert set(box.bag) == {1} and [1] not in box.bag


def test_a_dict_key_must_be_a_string(realm):
    box = new_box(realm)
    with realm.write():
        with pytest.raises(fief.TypeMismatchError, match="keys of Box.props are strings"):
            box.props[1] = "x"
    assert box.props == {}


def test_writes_outside_a_transaction_are_refused(realm):
    box = new_box(realm, value=1)
    with pytest.raises(fief.NotInTransactionError):
        box.value = 2
    with pytest.raises(fief.NotInTransactionError):
        box.items.append(2)
    with pytest.raises(fief.NotInTransactionError):
        box.bag.add(2)
    assert box.value == 1 and box.items == [] and len(box.bag) == 0


def test_nested_lists_give_value_results(realm):
    box = new_box(realm, value=[5, 6, 7])
    assert list(box.value.filter("self >= 6")) == [6, 7]


def test_value_results_of_mixed_values_follow_realm(realm):
    # Filters over self compare within a type group, sorts follow Realm's
    # mixed order, aggregates follow realm-core (sums as decimal128).
    box = new_box(realm, items=[1, 2, "x", 2.5, None, True, 1.0])
    assert list(box.items.filter("self > 1")) == [2, 2.5]
    assert list(box.items.filter("self == 1")) == [1, 1.0]
    assert list(box.items.filter("self == 'x'")) == ["x"]
    assert list(box.items.results().sort()) == [None, True, 1, 1.0, 2, 2.5, "x"]
    assert box.items.results().find_index(True) == 5
    assert box.items.min() is True and box.items.max() == "x"
    assert str(box.items.sum()) == "6.5"
    with pytest.raises(fief.QueryError):
        box.items.filter("self BEGINSWITH 1")


def test_queries_on_mixed_properties_follow_realms_rules(realm):
    new_box(realm, value=1)
    new_box(realm, value="1")
    assert [box.value for box in realm.objects(Box).filter("value == 1.0")] == [1]
    with pytest.raises(fief.QueryError, match="=="):
        realm.objects(Box).filter("value > true")


# -- add, create, freeze ----------------------------------------------------------------


def test_add_and_create_write_mixed_values(realm):
    with realm.write():
        rex = realm.add(Dog(name="Rex"))
        made = realm.create(Box, label="c", value=rex, items=[None, "x"], bag=[1, 1.0, "1"], props={"n": 2})
        added = realm.add(Box(label="a", value=OID, items=[rex]))
        many = realm.add_all([Optionals(maybe=1), Optionals(elements=[None, 2.5])])
    assert made.value == rex and made.items == [None, "x"] and len(made.bag) == 2 and made.props == {"n": 2}
    assert added.value == OID and added.items == [rex]
    assert [o.maybe for o in many] == [1, None] and many[1].elements == [None, 2.5] and many[0].default == 7


def test_frozen_mixed_values_keep_their_version(realm):
    box = new_box(realm, value=1, items=[1, "a"], props={"k": True})
    frozen_items = box.items.freeze()
    frozen_box = box.freeze()
    with realm.write():
        box.value = "changed"
        box.items.append(3)
        box.props["k"] = None
    assert frozen_box.value == 1 and frozen_items == [1, "a"] and frozen_box.props == {"k": True}
    assert box.items.freeze() == [1, "a", 3] and frozen_items.thaw() == [1, "a", 3]


def test_pop_and_repr(realm):
    box = new_box(realm, items=[1, "x"], props={"a": 2.5})
    assert repr(box.items) == "fief.List([1, 'x'])" and repr(box.props) == "fief.Dict({'a': 2.5})"
    assert "value=None" in repr(box)
    with realm.write():
        assert box.items.pop() == "x" and box.props.pop("a") == 2.5
    assert box.items == [1] and box.props == {}


def test_typing_aliases(realm_path):
    class Holder(fief.Object):
        items: typing.List[fief.Mixed]
        props: typing.Dict[str, fief.Mixed]

    with fief.Realm.open(realm_path, schema=[Holder]) as realm:
        with realm.write():
            holder = realm.add(Holder(items=[1, "a"], props={"x": None}))
        assert holder.items == [1, "a"] and holder.props == {"x": None}


def test_a_mixed_property_filters_by_realms_rules(realm):
    with realm.write():
        rex = realm.add(Dog(name="Rex"))
        for label, value in [("int", 1), ("float", 1.0), ("decimal", decimal.Decimal("1")), ("string", "1"),
                             ("bool", True), ("none", None), ("apple", "apple"), ("bytes", b"apple"), ("dog", rex)]:
            realm.add(Box(label=label, value=value))

    def labels(predicate, *args):
        return sorted(box.label for box in realm.objects(Box).filter(predicate, *args))

    assert labels("value == 1") == ["decimal", "float", "int"]
    assert labels("value == '1'") == ["string"]
    assert labels("value == true") == ["bool"]
    assert labels("value == nil") == ["none"]
    assert labels("value BEGINSWITH 'app'") == ["apple"]
    assert labels("value == $0", b"apple") == ["bytes"]
    assert labels("value == $0", rex) == ["dog"]
    with pytest.raises(fief.QueryError):
        realm.objects(Box).filter("value > true")
