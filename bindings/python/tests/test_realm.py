"""Realms: opening options, liveness across handles and processes, freeze,
close, read-only, files."""

from __future__ import annotations

import ctypes
import os

import pytest

import fief
from fief import _lib as L
from models import ALL_MODELS, Dog, Person


def test_open_and_context_manager(realm_path):
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        assert not realm.is_closed and not realm.is_frozen and not realm.is_read_only
        assert os.path.samefile(realm.path, realm_path)
        assert not realm.in_transaction
    assert realm.is_closed
    realm.close()  # twice is fine
    assert os.path.exists(realm_path)


def test_constructor_is_open(realm_path):
    realm = fief.Realm(realm_path, schema=[Dog])
    try:
        assert isinstance(realm, fief.Realm)
    finally:
        realm.close()


def test_schema_read_back(realm):
    classes = {c.name: c for c in realm.schema}
    assert set(classes) >= {m.__fief_name__ for m in ALL_MODELS}
    dog = classes["Dog"]
    assert dog.primary_key == "id" and dog.key != 0
    assert list(dog.properties) == ["id", "name", "age", "nickname", "breed"]
    assert dog.properties["id"].primary_key and dog.properties["id"].type_name == "int"
    assert dog.properties["nickname"].nullable
    assert dog.properties["breed"].indexed
    assert all(p.key != 0 for p in dog.properties.values())
    assert classes["AllTypes"].properties["f32"].type == L.TYPE_FLOAT


def test_open_without_schema_uses_the_files(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))
    with fief.Realm.open(realm_path) as realm:
        assert [c.name for c in realm.schema] == ["Dog"]
        assert realm.objects(Dog)[0].name == "Rex"


def test_additive_schema_change(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))
    with fief.Realm.open(realm_path, schema=[Dog, Person]) as realm:
        assert realm.objects(Dog)[0].name == "Rex"
        assert len(realm.objects(Person)) == 0


@pytest.mark.isolated
def test_schema_mismatch_and_version(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))

    class Dog2(fief.Object, name="Dog"):  # 'age' changes type
        id: fief.PrimaryKey[int]
        name: str
        age: str = ""

    with pytest.raises(fief.SchemaMismatchError) as info:
        fief.Realm.open(realm_path, schema=[Dog2])
    assert isinstance(info.value, fief.SchemaError)
    with fief.Realm.open(realm_path, schema=[Dog2], schema_version=2) as realm:
        dog = realm.objects(Dog2)[0]
        assert dog.name == "Rex" and dog.age == ""  # changed property reset
    with pytest.raises(fief.SchemaVersionError):
        fief.Realm.open(realm_path, schema=[Dog2], schema_version=1)


@pytest.mark.isolated
def test_delete_if_migration_needed(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))

    class Dog3(fief.Object, name="Dog"):
        id: fief.PrimaryKey[str]

    with fief.Realm.open(realm_path, schema=[Dog3], delete_if_migration_needed=True) as realm:
        assert len(realm.objects(Dog3)) == 0


@pytest.mark.isolated
def test_invalid_schema(realm_path):
    class FloatKey(fief.Object):
        id: fief.PrimaryKey[float]

    with pytest.raises(fief.InvalidSchemaError):
        fief.Realm.open(realm_path, schema=[FloatKey])

    class IndexedDouble(fief.Object):
        x: float = fief.Property(indexed=True)

    with pytest.raises(fief.InvalidSchemaError):
        fief.Realm.open(realm_path, schema=[IndexedDouble])
    with pytest.raises(fief.InvalidSchemaError):
        fief.Realm.open(realm_path, schema=[Dog, Dog])
    with pytest.raises(TypeError):
        fief.Realm.open(realm_path, schema=[int])


@pytest.mark.isolated
def test_open_needs_path_or_identifier(library):
    with pytest.raises(fief.InvalidArgumentError):
        fief.Realm.open()
    with pytest.raises(fief.InvalidArgumentError):
        fief.Realm.open("x.fief", in_memory_identifier="x")


def test_in_memory_realm_shares_data_by_identifier(library):
    a = fief.Realm.open(in_memory_identifier="mem-test-1", schema=[Dog])
    b = fief.Realm.open(in_memory="mem-test-1", schema=[Dog])
    try:
        with a.write():
            a.add(Dog(id=1, name="Rex"))
        b.refresh()
        assert b.object(Dog, 1).name == "Rex"
    finally:
        a.close()
        b.close()
    with fief.Realm.open(in_memory_identifier="mem-test-1", schema=[Dog]) as c:
        assert len(c.objects(Dog)) == 0  # gone with the last handle
    with fief.Realm.open(in_memory_identifier="mem-test-2", schema=[Dog]) as d:
        assert len(d.objects(Dog)) == 0


def test_results_are_live_after_commit(realm):
    dogs = realm.objects(Dog)
    young = dogs.filter("age < 5").sort("name")
    assert len(dogs) == 0 and len(young) == 0
    with realm.write():
        realm.add(Dog(id=1, name="Rex", age=3))
        assert len(dogs) == 1  # the write transaction sees its own changes
    assert len(dogs) == 1 and [d.name for d in young] == ["Rex"]
    with realm.write():
        realm.add(Dog(id=2, name="Ace", age=2))
        realm.object(Dog, 1).age = 9
    assert [d.name for d in young] == ["Ace"]


def test_write_from_another_realm_handle_needs_refresh(realm_path):
    a = fief.Realm.open(realm_path, schema=[Dog])
    b = fief.Realm.open(realm_path, schema=[Dog])
    try:
        results = a.objects(Dog)
        assert len(results) == 0
        v = a.version
        with b.write():
            b.add(Dog(id=1, name="Rex"))
        assert len(results) == 0  # a still reads its snapshot
        assert a.version == v
        assert a.refresh() is True
        assert len(results) == 1 and results[0].name == "Rex"
        assert a.refresh() is False
        assert a.version == b.version == v + 1
        # begin_write moves to the newest version too
        with b.write():
            b.add(Dog(id=2, name="Ace"))
        with a.write():
            assert len(results) == 2
    finally:
        a.close()
        b.close()


def test_object_sees_other_handles_changes_after_refresh(realm_path):
    a = fief.Realm.open(realm_path, schema=[Dog])
    b = fief.Realm.open(realm_path, schema=[Dog])
    try:
        with a.write():
            dog_a = a.add(Dog(id=1, name="Rex"))
        b.refresh()
        with b.write():
            b.object(Dog, 1).name = "Changed"
        assert dog_a.name == "Rex"
        a.refresh()
        assert dog_a.name == "Changed"
        with b.write():
            b.delete(b.object(Dog, 1))
        a.refresh()
        assert not dog_a.is_valid
    finally:
        a.close()
        b.close()


def test_write_from_another_process(realm_path, python):
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        results = realm.objects(Dog)
        with realm.write():
            realm.add(Dog(id=1, name="Parent"))
        proc = python("""
            import sys, fief
            from models import ALL_MODELS, Dog
            with fief.Realm.open(sys.argv[1], schema=ALL_MODELS) as realm:
                assert realm.object(Dog, 1).name == "Parent"
                with realm.write():
                    for i in range(2, 12):
                        realm.add(Dog(id=i, name=f"child{i}", age=i))
            print("ok")
        """, str(realm_path))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "ok"
        assert len(results) == 1
        assert realm.refresh()
        assert len(results) == 11
        assert [d.age for d in results.filter("age > 9")] == [10, 11]


def test_freeze(realm):
    with realm.write():
        realm.add(Dog(id=1, name="Rex", age=1))
    frozen = realm.freeze()
    assert frozen.is_frozen and not realm.is_frozen
    frozen_results = frozen.objects(Dog)
    frozen_dog = frozen.object(Dog, 1)
    live_results = realm.objects(Dog)
    also_frozen = live_results.freeze()
    assert also_frozen.is_frozen
    with realm.write():
        realm.add(Dog(id=2, name="Ace"))
        realm.object(Dog, 1).age = 50
    assert len(live_results) == 2
    assert len(frozen_results) == 1 and len(also_frozen) == 1
    assert frozen_dog.age == 1 and frozen_dog.is_frozen
    assert frozen.refresh() is False  # no-op
    assert len(frozen_results) == 1
    with pytest.raises(fief.FrozenRealmError):
        frozen.begin_write()
    with pytest.raises(fief.LogicError):
        frozen_dog.age = 3
    # freeze and thaw single objects
    live_dog = realm.object(Dog, 1)
    snap = live_dog.freeze()
    assert snap.age == 50 and snap.is_frozen
    thawed = frozen_dog.thaw()
    assert thawed.age == 50 and not thawed.is_frozen
    assert also_frozen.thaw() is not None and len(also_frozen.thaw()) == 2
    live_again = frozen.thaw()
    assert not live_again.is_frozen and len(live_again.objects(Dog)) == 2
    frozen.close()


def test_freeze_inside_a_write_sees_the_version_the_write_began_from(realm):
    with realm.write():
        realm.add(Dog(id=1, name="Rex", age=1))
    with realm.write():
        rex = realm.object(Dog, 1)
        rex.age = 2
        new = realm.add(Dog(id=2, name="New"))
        frozen_rex = rex.freeze()
        frozen_dogs = realm.objects(Dog).freeze()
        with pytest.raises(fief.LogicError, match="same write transaction"):
            new.freeze()
    assert frozen_rex.age == 1 and frozen_rex.is_frozen
    assert len(frozen_dogs) == 1
    assert realm.object(Dog, 1).age == 2


def test_frozen_realm_readable_from_other_threads(realm):
    import threading
    with realm.write():
        realm.add_all([Dog(id=i, name=str(i)) for i in range(5)])
    frozen_results = realm.objects(Dog).freeze()
    seen = []

    def read():
        seen.append(sorted(d.id for d in frozen_results))

    t = threading.Thread(target=read)
    t.start()
    t.join()
    assert seen == [[0, 1, 2, 3, 4]]


def test_closed_realm_errors(realm_path):
    realm = fief.Realm.open(realm_path, schema=[Dog])
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    results = realm.objects(Dog)
    realm.close()
    assert realm.is_closed
    with pytest.raises(fief.RealmClosedError):
        realm.objects(Dog)
    with pytest.raises(fief.RealmClosedError):
        realm.begin_write()
    with pytest.raises(fief.RealmClosedError) as info:
        dog.name
    assert info.value.code == fief.errors.ERR_CLOSED
    with pytest.raises(fief.RealmClosedError):
        len(results)
    assert not dog.is_valid and not results.is_valid


def test_close_cancels_open_transaction(realm_path):
    realm = fief.Realm.open(realm_path, schema=[Dog])
    realm.begin_write()
    realm.add(Dog(id=1, name="Rex"))
    realm.close()
    with fief.Realm.open(realm_path, schema=[Dog]) as again:
        assert len(again.objects(Dog)) == 0


def test_released_handles(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    results = realm.objects(Dog)
    dog.release()
    dog.release()  # idempotent
    with pytest.raises(fief.InvalidHandleError):
        dog.name
    assert not dog.is_valid
    results.release()
    with pytest.raises(fief.InvalidHandleError):
        len(results)
    assert len(realm.objects(Dog)) == 1  # the realm is unaffected


def test_released_handles_in_the_c_layer(realm, library):
    """Handles are generation-counted slots: stale ones fail, never crash."""
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    ptr = dog.__dict__["_fief_handle"].ptr
    assert library.fief_release(ptr)
    dog.__dict__["_fief_handle"]._ptr = None  # the wrapper must not release it again
    assert not library.fief_release(ptr)
    with pytest.raises(fief.InvalidHandleError):
        raise library.last_error()
    out = L.fief_value_t()
    assert not library.fief_object_get_value(ptr, 1, ctypes.byref(out))
    with pytest.raises(fief.InvalidHandleError):
        raise library.last_error()
    assert not library.fief_object_is_valid(ptr)
    assert library.fief_release(None)  # NULL is accepted
    assert not library.fief_realm_begin_write(None)
    with pytest.raises(fief.InvalidHandleError):
        raise library.last_error()
    # a handle of another kind
    results_ptr = realm.objects(Dog)._handle.ptr
    assert not library.fief_realm_begin_write(results_ptr)
    err = library.last_error()
    assert isinstance(err, (fief.WrongHandleTypeError, fief.InvalidHandleError))


@pytest.mark.parametrize("content", ["random", "text", "empty-lmdb-sized"])
def test_not_a_fief_file(tmp_path, python, content):
    """Opening a file that is not a Fief database raises a FileError.

    Run in a child process, so that a library that crashes on such a file
    fails this test instead of killing the test session."""
    path = tmp_path / "not-fief.fief"
    if content == "random":
        path.write_bytes(os.urandom(8192) + b"this is not a database" * 100)
    elif content == "text":
        path.write_text("hello\n")
    else:
        path.write_bytes(bytes(16384))
    proc = python("""
        import sys, fief
        from models import Dog
        try:
            fief.Realm.open(sys.argv[1], schema=[Dog])
        except fief.FiefError as exc:
            print(type(exc).__name__, exc.code, exc.categories, isinstance(exc, fief.FileError))
        else:
            print("opened")
    """, str(path))
    assert proc.returncode == 0, f"the child died ({proc.returncode}): {proc.stderr[-2000:]}"
    name, code, categories, is_file_error = proc.stdout.split()
    assert is_file_error == "True", proc.stdout
    assert name == "NotAFiefFileError" and int(code) == fief.errors.ERR_FILE_NOT_FIEF
    assert int(categories) & fief.errors.CAT_FILE


@pytest.mark.isolated
def test_read_only_missing_file(tmp_path, library):
    with pytest.raises(fief.RealmFileNotFoundError) as info:
        fief.Realm.open(tmp_path / "missing.fief", read_only=True)
    assert isinstance(info.value, fief.FileError)


@pytest.mark.isolated
def test_directory_that_does_not_exist(tmp_path, library):
    with pytest.raises(fief.FileError):
        fief.Realm.open(tmp_path / "no" / "such" / "dir" / "x.fief", schema=[Dog])


@pytest.mark.isolated
def test_read_only_realm_refuses_writes(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))
    with fief.Realm.open(realm_path, schema=[Dog], read_only=True) as ro:
        assert ro.is_read_only
        assert ro.object(Dog, 1).name == "Rex"
        with pytest.raises(fief.ReadOnlyRealmError) as info:
            with ro.write():
                ro.add(Dog(id=2, name="Ace"))
        assert isinstance(info.value, fief.LogicError)
        assert len(ro.objects(Dog)) == 1
    with pytest.raises(fief.ReadOnlyRealmError):
        fief.Realm.open(realm_path, schema=[Dog, Person], read_only=True)  # needs a schema change


def test_delete_realm_files(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]):
        with pytest.raises(fief.FileLockedError):
            fief.delete_realm_files(realm_path)
    assert fief.delete_realm_files(realm_path) is True
    assert not os.path.exists(realm_path)
    assert fief.delete_realm_files(realm_path) is False


def test_invalidate(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    realm.invalidate()
    assert dog.name == "Rex"  # reads the newest version on next use
    realm.begin_write()
    with pytest.raises(fief.AlreadyInTransactionError):
        realm.invalidate()
    realm.cancel()


def test_update_schema(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))
    with fief.Realm.open(realm_path) as realm:
        with pytest.raises(fief.NoSuchClassError):
            realm.objects(Person)
        realm.update_schema([Person])
        assert len(realm.objects(Person)) == 0
        with realm.write():
            realm.add(Person(name="Ann"))
        assert realm.object(Person, "Ann").age == 0
        assert {c.name for c in realm.schema} == {"Dog", "Person"}
        # inside a write transaction, cancel undoes it
        class Cat(fief.Object):
            name: str
        realm.begin_write()
        realm.update_schema([Cat])
        realm.add(Cat(name="Tom"))
        realm.cancel()
        assert "Cat" not in {c.name for c in realm.schema}

        class Dog2(fief.Object, name="Dog"):
            id: fief.PrimaryKey[str]
        with pytest.raises(fief.SchemaMismatchError):
            realm.update_schema([Dog2])


def test_durability_normal_commits_and_survives_reopen(tmp_path):
    """durability="normal" (FIEF_DURABILITY_NORMAL) keeps every commit across a reopen."""
    path = tmp_path / "normal.fief"
    with fief.Realm.open(path, schema=[Dog], durability="normal") as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex", age=3))
    with fief.Realm.open(path, schema=[Dog]) as realm:
        assert realm.object(Dog, 1).name == "Rex"
    with pytest.raises(fief.InvalidArgumentError):
        fief.Realm.open(path, schema=[Dog], durability="sometimes")


def test_schema_version_reads_back(tmp_path):
    """schema_version (fief_realm_get_schema_version) is what the file stores."""
    path = tmp_path / "versioned.fief"
    with fief.Realm.open(path, schema=[Dog], schema_version=3) as realm:
        assert realm.schema_version == 3
    with fief.Realm.open(path) as realm:  # the file's own schema and version
        assert realm.schema_version == 3


def test_max_active_versions(tmp_path):
    """max_active_versions (fief_config_set_max_active_versions): frozen realms
    hold versions; past the limit a write fails with TooManyVersionsError and
    writes nothing; closed, they let the next write go on."""
    path = tmp_path / "limit.fief"
    with fief.Realm.open(path, schema=[Dog], max_active_versions=3) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex", age=1))
        frozen = realm.freeze()
        for age in (2, 3):
            with realm.write():
                realm.object(Dog, 1).age = age
        with pytest.raises(fief.TooManyVersionsError) as raised:
            realm.begin_write()
        assert raised.value.code == fief.errors.ERR_TOO_MANY_VERSIONS
        assert "Number of active versions (4) in the Realm exceeded the limit of 3" in str(raised.value)
        assert isinstance(raised.value, fief.LogicError)
        assert not realm.in_transaction
        assert realm.object(Dog, 1).age == 3
        frozen.close()
        with realm.write():
            realm.object(Dog, 1).age = 5
        assert realm.object(Dog, 1).age == 5
    with pytest.raises(fief.InvalidArgumentError):
        fief.Realm.open(path, schema=[Dog], max_active_versions=0)
