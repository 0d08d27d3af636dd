"""Files of formats 1 (the foundation's), 2 (checksums, before string chunks
were stored in parts) and 3 (before links) are upgraded in place by a
writable open, refused with directions by a read-only one (format 3, stored
as formats 4 and 5 do, is read as it is), copied into the current format by
copy_file, and lose nothing on the way."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import fief

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
import format1_data  # noqa: E402
from format1_data import Item, Tag  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(params=[1, 2, 3], ids=["format1", "format2", "format3"])
def old_format(request):
    return request.param


@pytest.fixture
def old_file(old_format, tmp_path, library):
    path = tmp_path / "old.fief"
    shutil.copyfile(DATA / f"format{old_format}.fief", path)
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


def test_read_only_open_of_an_old_format_says_how_to_upgrade(old_file, old_format):
    before = old_file.read_bytes()
    if old_format == 3:
        # Format 3 stores everything as formats 4 and 5 do: read as it is.
        with fief.Realm.open(old_file, schema=[Item, Tag], read_only=True) as realm:
            _check_contents(realm)
    else:
        with pytest.raises(fief.FileFormatError) as info:
            fief.Realm.open(old_file, read_only=True)
        assert f"format {old_format}" in str(info.value) and "fief copy" in str(info.value)
    assert old_file.read_bytes() == before


def test_writable_open_upgrades_in_place(old_file):
    with fief.Realm.open(old_file, schema=[Item, Tag]) as realm:
        _check_contents(realm)
        with realm.write():
            realm.add(Item(**format1_data.item(5000)))
            realm.delete(realm.object(Item, 1))
    # Now the current format: a read-only open works, and sees the write.
    with fief.Realm.open(old_file, read_only=True) as realm:
        assert realm.object(Item, 5000).note == "note 5000"
        assert realm.object(Item, 1) is None
        assert len(realm.objects(Item)) == len(format1_data.expected_items())
        _ = [item.name for item in realm.objects(Item)]
    report = fief.verify_file(old_file)
    assert report.ok, report.problems


def test_upgrade_without_a_schema_keeps_the_stored_one(old_file):
    with fief.Realm.open(old_file) as realm:
        assert sorted(c.name for c in realm.schema) == ["Item", "Tag"]
    with fief.Realm.open(old_file, schema=[Item, Tag], read_only=True) as realm:
        _check_contents(realm)


def test_old_files_verify_and_copy_into_the_current_format(old_file, tmp_path):
    assert fief.verify_file(old_file).ok
    copy = tmp_path / "copy.fief"
    assert fief.copy_file(old_file, copy).ok
    assert fief.verify_file(copy).ok
    with fief.Realm.open(copy, schema=[Item, Tag], read_only=True) as realm:
        _check_contents(realm)
