"""verify_file, copy_file and Realm.write_copy: damage is found and named,
copies hold everything readable and are sound, and files shrink by copying."""

from __future__ import annotations

import os

import pytest

import fief
from models import ALL_MODELS, Dog


def _fill(realm, n=600):
    with realm.write():
        for i in range(n):
            realm.add(Dog(id=i, name=f"dog-{i:05d}", age=i % 20, nickname=None if i % 3 else f"nick{i}"))


def test_sound_file_verifies_and_copies(realm_path, tmp_path):
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        _fill(realm)
        report = fief.verify_file(realm_path)
        assert report.ok, report
        assert any("class 'Dog': 600 objects" in line for line in report.lines)
        copy = tmp_path / "copy.fief"
        assert realm.write_copy(copy).ok
        with pytest.raises(fief.InvalidArgumentError, match="already exists"):
            realm.write_copy(copy)
    with fief.Realm.open(copy, schema=ALL_MODELS, read_only=True) as copied:
        assert len(copied.objects(Dog)) == 600
        assert copied.object(Dog, 599).name == "dog-00599"
        assert len(copied.objects(Dog).filter("breed == 'mixed'")) == 600   # the index was rebuilt
    assert fief.verify_file(copy).ok


def test_copy_shrinks_a_file_that_grew(realm_path, tmp_path):
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        _fill(realm, 5000)
        with realm.write():
            realm.delete(realm.objects(Dog).filter("id >= 100"))
    copy = tmp_path / "small.fief"
    assert fief.copy_file(realm_path, copy).ok
    assert os.path.getsize(copy) < os.path.getsize(realm_path) / 2
    with fief.Realm.open(copy, schema=ALL_MODELS) as realm:
        assert len(realm.objects(Dog)) == 100


def test_damage_is_named_and_the_rest_stays_readable(realm_path, tmp_path):
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        _fill(realm)
    data = bytearray(realm_path.read_bytes())
    at = data.find(b"dog-00300")
    assert at > 0
    data[at + 4] ^= 0x01
    damaged = tmp_path / "damaged.fief"
    damaged.write_bytes(bytes(data))

    report = fief.verify_file(damaged)
    assert not report.ok
    assert len(report.problems) == 1 and "property 'name'" in report.problems[0], report
    with fief.Realm.open(damaged, schema=ALL_MODELS) as realm:
        with pytest.raises(fief.FileCorruptError, match="'name' of class 'Dog'"):
            [d.name for d in realm.objects(Dog)]
        # Other properties, and other objects' names, still read.
        assert sum(d.age for d in realm.objects(Dog)) == sum(i % 20 for i in range(600))
        assert realm.object(Dog, 5).name == "dog-00005"
    salvaged = tmp_path / "salvaged.fief"
    copied = fief.copy_file(damaged, salvaged)
    assert len(copied.problems) == 1
    assert fief.verify_file(salvaged).ok
    with fief.Realm.open(salvaged, schema=ALL_MODELS) as realm:
        assert len(realm.objects(Dog)) == 600
        assert realm.object(Dog, 5).name == "dog-00005"


def test_files_that_cannot_be_read(tmp_path, library):
    with pytest.raises(fief.RealmFileNotFoundError):
        fief.verify_file(tmp_path / "missing.fief")
    junk = tmp_path / "junk.fief"
    junk.write_bytes(b"not a realm" * 1000)
    with pytest.raises(fief.NotAFiefFileError):
        fief.copy_file(junk, tmp_path / "out.fief")
    assert not (tmp_path / "out.fief").exists()


def test_paths_that_are_not_regular_files(tmp_path, library):
    # A FIFO blocked verify_file and copy_file forever; a directory was a
    # FilePermissionError: both are refused as Realm(...) refuses them.
    fifo = tmp_path / "fifo.fief"
    os.mkfifo(fifo)
    directory = tmp_path / "adir"
    directory.mkdir()
    for path, what in [(fifo, "is a FIFO"), (directory, "is a directory"),
                       ("/proc/self/status", "is a file of the kernel's proc file system")]:
        with pytest.raises(fief.NotAFiefFileError, match=what):
            fief.verify_file(path)
        with pytest.raises(fief.NotAFiefFileError, match="not a regular file"):
            fief.copy_file(path, tmp_path / "out.fief")
        assert not (tmp_path / "out.fief").exists()
