"""Files of format 1 (the foundation's) are upgraded in place by a writable open,
refused with directions by a read-only one, and lose nothing on the way."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import fief

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
import format1_data  # noqa: E402
from format1_data import Item, Tag  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "data" / "format1.fief"


@pytest.fixture
def old_file(tmp_path, library):
    path = tmp_path / "old.fief"
    shutil.copyfile(FIXTURE, path)
    return path


def _check_contents(realm):
    expected = format1_data.expected_items()
    items = realm.objects(Item)
    assert len(items) == len(expected)
    for obj in items:
        want = expected[obj.id]
        for name, value in want.items():
            assert getattr(obj, name) == value, (obj.id, name)
    tags = {t.name: t.count for t in realm.objects(Tag)}
    assert tags == format1_data.expected_tags()
    # The primary keys, the index and the query engine read the upgraded chunks.
    assert realm.object(Item, 1).name == "item-0001"
    assert realm.object(Item, 3) is None
    assert realm.object(Tag, "tag5").count == -15
    assert len(realm.objects(Tag).filter("count == $0", 24)) == 1
    negative = sum(1 for v in expected.values() if v["n"] < 0)
    assert len(realm.objects(Item).filter("n < 0")) == negative
    long_notes = sum(1 for v in expected.values() if v["note"] and v["note"].startswith("long"))
    assert len(realm.objects(Item).filter("note BEGINSWITH 'long'")) == long_notes


def test_read_only_open_of_format_1_says_how_to_upgrade(old_file):
    before = old_file.read_bytes()
    with pytest.raises(fief.FileFormatError) as info:
        fief.Realm.open(old_file, read_only=True)
    assert "format 1" in str(info.value) and "fief copy" in str(info.value)
    assert old_file.read_bytes() == before


def test_writable_open_upgrades_format_1_in_place(old_file):
    with fief.Realm.open(old_file, schema=[Item, Tag]) as realm:
        _check_contents(realm)
        with realm.write():
            realm.add(Item(**format1_data.item(5000)))
            realm.delete(realm.object(Item, 1))
    # Now format 2: a read-only open works, and sees the write.
    with fief.Realm.open(old_file, read_only=True) as realm:
        assert realm.object(Item, 5000).note == "note 5000"
        assert realm.object(Item, 1) is None
        assert len(realm.objects(Item)) == len(format1_data.expected_items())


def test_upgrade_without_a_schema_keeps_the_stored_one(old_file):
    with fief.Realm.open(old_file) as realm:
        assert sorted(c.name for c in realm.schema) == ["Item", "Tag"]
    with fief.Realm.open(old_file, schema=[Item, Tag], read_only=True) as realm:
        _check_contents(realm)
