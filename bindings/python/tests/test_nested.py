"""Lists and dicts nested in mixed values: a Python list (or tuple) or dict
written where a mixed value goes -- a mixed property, an element of a list
of mixed values, a value of a dict of mixed values, or of another nested
collection -- is stored as a nested collection, filled level by level, and
read back as a live fief.List / fief.Dict that behaves like a
list[fief.Mixed] / dict[str, fief.Mixed]; replacing or removing the value
invalidates the old live collection; links inside are removed or nulled
when their target is deleted; a bad value anywhere inside writes nothing."""

from __future__ import annotations

import decimal
from typing import Optional

import pytest

import fief
from fief._mixed import plain


class Dog(fief.Object):
    name: str = ""
    boxes = fief.Backlinks("Box", "value")


class Box(fief.Object):
    label: str = ""
    value: fief.Mixed
    items: list[fief.Mixed]
    props: dict[str, fief.Mixed]


MODELS = [Dog, Box]

NESTED = [1, "two", None, {"a": [True, 2.5, {"deep": [b"x", []]}], "b": {}}, [[], [[3]]]]


@pytest.fixture
def realm(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as r:
        yield r


def new_box(realm, **values):
    with realm.write():
        return realm.add(Box(**values))


def as_plain(value):
    """A live nested value as Python data, checking every level's type."""
    if isinstance(value, fief.Dict):
        assert value.is_nested
        return {k: as_plain(v) for k, v in value.items()}
    if isinstance(value, fief.List):
        assert value.is_nested
        return [as_plain(v) for v in value]
    assert not isinstance(value, (list, dict, tuple))
    return value


# -- writing and reading ------------------------------------------------------------


def test_nested_values_everywhere_round_trip(realm_path):
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        box = new_box(realm, value=NESTED, items=[NESTED, 5, {"k": NESTED}], props={"n": NESTED, "d": {"e": {}}})
        assert isinstance(box.value, fief.List) and box.value.is_nested
        assert isinstance(box.value[3], fief.Dict) and isinstance(box.value[3]["a"], fief.List)
        assert as_plain(box.value) == NESTED
    with fief.Realm.open(realm_path, schema=MODELS) as realm:
        box = realm.objects(Box)[0]
        assert as_plain(box.value) == NESTED
        assert as_plain(box.items[0]) == NESTED and box.items[1] == 5 and as_plain(box.items[2]) == {"k": NESTED}
        assert as_plain(box.props["n"]) == NESTED and as_plain(box.props["d"]) == {"e": {}}
        assert box.to_dict() == {"label": "", "value": NESTED, "items": [NESTED, 5, {"k": NESTED}],
                                 "props": {"d": {"e": {}}, "n": NESTED}}
        assert realm.objects(Box).values("value") == [(NESTED,)]
        assert realm.values_by_key(Box, box.object_key, "value") == (NESTED,)
        assert "value=[1, 'two', None, {'a':" in repr(box)


def test_tuples_mappings_and_live_collections_are_copied_in(realm):
    source = new_box(realm, value={"x": [1, 2]}, items=[3, 4])
    box = new_box(realm)
    with realm.write():
        box.value = (1, (2, 3))
        assert box.value == [1, [2, 3]]
        box.value = source.value            # a live nested dict: copied
        box.items.append(source.items)      # a live list property: copied as a nested list
        box.props["p"] = source.value["x"]
    assert box.value == {"x": [1, 2]} and box.items[0] == [3, 4] and box.props["p"] == [1, 2]
    with realm.write():
        source.value["x"].append(9)
    assert box.value == {"x": [1, 2]} and source.value == {"x": [1, 2, 9]}


def test_nesting_to_any_depth(realm):
    deep: list = ["bottom"]
    for level in range(40):
        deep = [level, deep] if level % 2 else {"level": level, "next": deep}
    box = new_box(realm, value=deep)
    node, depth = box.value, 0
    while not (isinstance(node, fief.List) and node[0] == "bottom"):
        node = node[1] if isinstance(node, fief.List) else node["next"]
        depth += 1
    assert depth == 40 and as_plain(box.value) == deep
    with realm.write():
        node.append("appended at depth 40")
    assert node == ["bottom", "appended at depth 40"]


DEEP = 20_000  # twenty times Python's recursion limit (1000); the C tests go to 100,000


def deep_value(depth: int, bottom):
    """Dicts ({"k": ...}) and lists alternating, `depth` levels, the deepest
    a list holding `bottom` (built without recursion)."""
    deep = [bottom]
    for level in range(depth - 1):
        deep = [deep] if level % 2 else {"k": deep}
    return deep


def deepest(value, depth: int):
    """The collection `depth` - 1 levels below `value`, checking each level."""
    node = value
    for _ in range(depth - 1):
        if isinstance(node, (fief.Dict, dict)):
            assert len(node) == 1
            node = node["k"]
        else:
            assert len(node) == 1
            node = node[0]
    return node


def test_nesting_deeper_than_pythons_recursion_limit(realm):
    # Writing, copying a live value into another slot and reading to the
    # bottom walk the levels with stacks of their own, not by recursion:
    # Python's recursion limit does not apply.
    box = new_box(realm, value=deep_value(DEEP, "bottom"))
    bottom = deepest(box.value, DEEP)
    assert isinstance(bottom, fief.List) and list(bottom) == ["bottom"]
    assert bottom._spec.name.startswith("value['k'][0]['k'][0]")
    # A plain copy (what popping or replacing a nested value hands back).
    assert deepest(plain(box.value), DEEP) == ["bottom"]
    with realm.write():
        other = realm.add(Box(label="copy"))
        other.items.append(box.value)  # a live collection is copied in, every level
    copied = deepest(other.items[0], DEEP)
    assert list(copied) == ["bottom"]
    # Replacing the value deletes every level (the engine walks them without recursion).
    with realm.write():
        box.value = 1
        other.items.clear()
    assert not bottom.is_valid and not copied.is_valid
    assert box.value == 1 and len(other.items) == 0


def test_a_nested_list_behaves_like_a_list_of_mixed_values(realm):
    box = new_box(realm, value=[])
    lst, model = box.value, []
    with realm.write():
        for op in (lambda s: s.append(1), lambda s: s.extend(["1", True, 2.5, None]), lambda s: s.insert(0, "first"),
                   lambda s: s.insert(-1, [7]), lambda s: s.__setitem__(1, {"k": 1}), lambda s: s.reverse(),
                   lambda s: s.remove("1"), lambda s: s.__delitem__(0), lambda s: s.__delitem__(slice(0, 1))):
            op(lst)
            op(model)
            assert as_plain(lst) == model
        assert lst.pop(1) == model.pop(1) and as_plain(lst) == model
        lst.move(0, 2)
        model.insert(2, model.pop(0))
        lst.swap(0, 1)
        model[0], model[1] = model[1], model[0]
        assert as_plain(lst) == model
    assert len(lst) == len(model) and lst[-1] == model[-1] and [as_plain(v) for v in lst[::-1]] == model[::-1]
    with realm.write():
        with pytest.raises(TypeError, match="one element at a time"):
            lst[0:1] = [1]
        lst.clear()
    assert lst == [] and box.value == []


def test_equality_inside_nested_collections_is_realms(realm):
    box = new_box(realm, value=["1", True, 1, decimal.Decimal("2.5")])
    lst = box.value
    assert lst.index(1.0) == 2 and lst.index(True) == 1 and lst.index("1") == 0 and lst.index(2.5) == 3
    assert lst.count(1) == 1 and 0 not in lst and [1] not in lst
    with realm.write():
        lst.remove(decimal.Decimal("1.0"))
    assert lst == ["1", True, decimal.Decimal("2.5")]


def test_a_nested_dict_behaves_like_a_dict_of_mixed_values(realm):
    box = new_box(realm, props={"outer": {}})
    d, model = box.props["outer"], {}
    with realm.write():
        d["b"] = 1
        d["a"] = [1, {"x": None}]
        d.update({"c": "three"}, e=2.5)
        model.update(b=1, a=[1, {"x": None}], c="three", e=2.5)
        assert as_plain(d) == model and list(d) == ["a", "b", "c", "e"]      # key order
        assert d.setdefault("f", [5]) == [5] and isinstance(d["f"], fief.List)
        model["f"] = [5]
        assert d.pop("a") == [1, {"x": None}] and type(d.pop("b")) is int     # pop: plain copies
        del model["a"], model["b"]
        assert d.popitem() == ("c", "three")
        del model["c"]
        del d["e"]
        del model["e"]
        assert as_plain(d) == model and "f" in d and "a" not in d and d.get("zz", 0) == 0
        with pytest.raises(KeyError):
            d["missing"]
        d |= {"g": {"h": []}}
        d.clear()
    assert d == {} and box.props == {"outer": {}}


def test_nested_dict_keys_follow_the_map_rules(realm):
    box = new_box(realm, value={"keep": 1})
    d = box.value
    with realm.write():
        for key, error in [("a.b", fief.InvalidArgumentError), ("$x", fief.InvalidArgumentError),
                           ("k" * 481, fief.InvalidArgumentError), (3, fief.TypeMismatchError)]:
            with pytest.raises(error):
                d[key] = 1
            with pytest.raises(error):
                d.update({"fine": 1, key: 2})
    assert d == {"keep": 1} and d.is_valid


# -- links inside ----------------------------------------------------------------------


def test_links_inside_nested_collections(realm):
    with realm.write():
        rex, ace = realm.add(Dog(name="Rex")), realm.add(Dog(name="Ace"))
        box = realm.add(Box(value={"pets": [rex, ace, rex], "best": rex, "inner": {"who": ace}}))
        other = realm.add(Box(label="other", value=[1]))
    assert box.value["pets"] == [rex, ace, rex] and box.value["best"] == rex and box.value["inner"]["who"] == ace
    assert box.value["pets"].index(ace) == 1 and box.value["pets"].count(rex) == 2
    assert list(rex.boxes) == [box] and list(ace.boxes) == [box]   # origin: the top mixed property
    with realm.write():
        other.value.append(rex)
    assert len(rex.boxes) == 2
    with realm.write():
        realm.delete(rex)
    assert box.value["pets"] == [ace]                   # removed from nested lists
    assert box.value["best"] is None                    # nulled in nested dicts
    assert box.value["inner"]["who"] == ace and other.value == [1]
    with realm.write():
        with pytest.raises(fief.NoSuchObjectError):
            box.value["pets"].append(rex)
    assert box.value["pets"] == [ace]


# -- replacing invalidates ---------------------------------------------------------------


def test_replacing_a_nested_value_invalidates_the_old_collection(realm):
    box = new_box(realm, value=[1, [2, {"x": [3]}]], items=[[1], {"a": 1}], props={"k": {"n": [1]}})
    old, child, grandchild = box.value, box.value[1], box.value[1][1]["x"]
    in_list, in_dict, in_dict_child = box.items[0], box.props["k"], box.props["k"]["n"]
    assert all(c.is_valid for c in (old, child, grandchild, in_list, in_dict, in_dict_child))
    with realm.write():
        box.value = "replaced"
        box.items[0] = {"new": True}
        box.props["k"] = None
    for gone in (old, child, grandchild, in_list, in_dict, in_dict_child):
        assert not gone.is_valid
        with pytest.raises(fief.InvalidatedObjectError):
            len(gone)
        with pytest.raises(fief.InvalidatedObjectError):
            list(gone)
    with realm.write():
        with pytest.raises(fief.InvalidatedObjectError):
            old.append(1)
        with pytest.raises(fief.InvalidatedObjectError):
            in_dict["x"] = 1
    assert box.value == "replaced" and box.items[0] == {"new": True} and box.props == {"k": None}
    assert "InvalidatedObjectError" in repr(old)


def test_removing_clearing_and_deleting_invalidate(realm):
    box = new_box(realm, value={"a": [1], "b": [2]}, items=[[1], [2], [3]])
    a, b = box.value["a"], box.value["b"]
    first, second, third = box.items[0], box.items[1], box.items[2]
    with realm.write():
        popped = box.value.pop("a")
        assert popped == [1] and type(popped) is list
        assert box.items.pop(0) == [1]
        del box.items[0]
    assert not a.is_valid and b.is_valid and not first.is_valid and not second.is_valid and third == [3]
    with realm.write():
        box.value.clear()
        box.items = []
    assert not b.is_valid and not third.is_valid
    with realm.write():
        box.value = {"c": [1]}
        c = box.value["c"]
        realm.delete(box)
    assert not c.is_valid
    with pytest.raises(fief.InvalidatedObjectError):
        len(c)


def test_writing_a_collection_back_in_its_own_slot_keeps_it(realm):
    box = new_box(realm, value=[1], props={"k": {"a": 1}})
    lst, d = box.value, box.props["k"]
    with realm.write():
        box.value += [2]                    # extends in place, then assigns the list to itself
        box.props["k"] |= {"b": 2}
        box.props["k"] = box.props["k"]
    assert lst.is_valid and lst == [1, 2] and d.is_valid and d == {"a": 1, "b": 2}
    with realm.write():
        box.value = box.value[:]            # a plain copy: a new nested list
    assert not lst.is_valid and box.value == [1, 2]


def test_a_value_taken_from_inside_the_slot_is_copied_first(realm):
    box = new_box(realm, value=[{"keep": [1, 2]}, 3], items=[[[4], 5]])
    with realm.write():
        box.value = box.value[0]            # the old list (and its dict) go; the dict's contents stay
        box.items[0] = box.items[0][0]
    assert box.value == {"keep": [1, 2]} and box.items == [[4]]


# -- bad input writes nothing ---------------------------------------------------------------


@pytest.mark.parametrize("bad,error", [
    (object(), fief.TypeMismatchError),
    ({1, 2}, fief.TypeMismatchError),
    ({3: "int key"}, fief.TypeMismatchError),
    (2 ** 64, fief.InvalidArgumentError),
    (Dog(name="unmanaged"), fief.LogicError),
    (fief.Link(1, 10 ** 9), fief.NoSuchObjectError),
], ids=lambda v: type(v).__name__)
def test_a_bad_value_deep_inside_writes_nothing(realm, bad, error):
    box = new_box(realm, value=[1, {"a": [2]}], items=[[1]], props={"k": {"n": 1}})
    handles = [box.value, box.value[1], box.value[1]["a"], box.items[0], box.props["k"]]
    deep = [1, {"x": [2, {"y": [bad]}]}]
    with realm.write():
        for write in (lambda: setattr(box, "value", deep), lambda: box.value.append(deep),
                      lambda: box.value[1].update({"z": deep}), lambda: box.value[1]["a"].insert(0, deep),
                      lambda: box.items.extend([[1], deep]), lambda: box.items.__setitem__(0, deep),
                      lambda: setattr(box, "items", [deep]), lambda: box.props.__setitem__("k", deep),
                      lambda: setattr(box, "props", {"k": deep}),
                      lambda: realm.add(Box(label="new", value=deep)),
                      lambda: realm.create(Box, label="new", items=[deep])):
            with pytest.raises(error):
                write()
    assert all(h.is_valid for h in handles)          # checked first: nothing was replaced
    assert box.value == [1, {"a": [2]}] and box.items == [[1]] and box.props == {"k": {"n": 1}}
    assert [b.label for b in realm.objects(Box)] == [""]


def test_a_key_the_library_refuses_deep_inside_puts_the_previous_value_back(realm):
    box = new_box(realm, value=[1, {"a": [2]}], items=[0, [1]], props={"k": {"n": [1]}})
    deep = {"fine": [1, {"bad.key": 2}]}
    with realm.write():
        for write in (lambda: setattr(box, "value", deep), lambda: box.value.append(deep),
                      lambda: box.value.insert(0, deep), lambda: box.value[1].update({"z": 1, "w": deep}),
                      lambda: box.items.__setitem__(1, deep), lambda: box.items.extend([5, deep]),
                      lambda: setattr(box, "items", [deep]), lambda: box.props.__setitem__("k", deep),
                      lambda: box.props.update({"new": 1, "k": deep})):
            with pytest.raises(fief.InvalidArgumentError, match="bad.key"):
                write()
            assert box.value == [1, {"a": [2]}] and box.items == [0, [1]] and box.props == {"k": {"n": [1]}}
        with pytest.raises(fief.InvalidArgumentError):
            realm.add(Box(label="new", value=deep))
    assert [b.label for b in realm.objects(Box)] == [""]


def test_a_value_that_contains_itself_is_refused(realm):
    loop: list = [1]
    loop.append(loop)
    box = new_box(realm, value=5)
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError, match="contains itself"):
            box.value = loop
    assert box.value == 5


def test_lists_and_dicts_are_refused_outside_mixed_values(realm_path):
    class Plain(fief.Object):
        tags: list[str]
        note: str = ""

    with fief.Realm.open(realm_path, schema=[Plain]) as realm:
        with realm.write():
            plain = realm.add(Plain())
            with pytest.raises(fief.TypeMismatchError):
                plain.tags.append(["nested"])
            with pytest.raises(fief.TypeMismatchError):
                plain.note = {"a": 1}
        assert plain.tags == [] and plain.note == ""


# -- versions ------------------------------------------------------------------------------


def test_frozen_nested_collections_keep_their_version(realm):
    box = new_box(realm, value={"list": [1, 2]})
    live = box.value["list"]
    frozen = live.freeze()
    frozen_dict = box.value.freeze()
    assert frozen.is_frozen and frozen.is_nested
    with realm.write():
        live.append(3)
        box.value["more"] = True
    assert frozen == [1, 2] and frozen_dict == {"list": [1, 2]} and live == [1, 2, 3]
    assert frozen.thaw() == [1, 2, 3] and realm.resolve(frozen) == [1, 2, 3]
    with realm.write():
        box.value = None
    assert frozen == [1, 2] and frozen.thaw() is None


class Note(fief.EmbeddedObject):
    text: str = ""
    extra: fief.Mixed


class Folder(fief.Object):
    note: Optional[Note] = None
    notes: list[Note]


def test_embedded_objects_hold_nested_values(realm_path):
    with fief.Realm.open(realm_path, schema=[Note, Folder, Dog]) as realm:
        with realm.write():
            rex = realm.add(Dog(name="Rex"))
            folder = realm.add(Folder(note=Note(text="a", extra={"tags": ["x", rex]}),
                                      notes=[Note(text="b", extra=[1, [2]])]))
        assert folder.note.extra == {"tags": ["x", rex]} and isinstance(folder.note.extra, fief.Dict)
        assert folder.notes[0].extra == [1, [2]]
        with realm.write():
            popped = folder.notes.pop()         # an unmanaged copy, its nested value as plain data
            with pytest.raises(fief.LogicError):
                folder.notes.append(Note(extra=[Dog(name="unmanaged")]))
        assert not popped.is_managed and popped.extra == [1, [2]] and type(popped.extra) is list
        assert len(folder.notes) == 0
