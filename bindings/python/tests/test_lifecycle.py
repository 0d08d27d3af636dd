"""Handle lifetimes (GC in any order, interpreter shutdown), threads, and
finding and loading the library."""

from __future__ import annotations

import gc
import os
import threading
import weakref

import pytest

import fief
from fief import _lib as L
from models import ALL_MODELS, Counter, Dog


def _live_handles():
    from fief import _handle
    return [h for h in list(_handle._live) if not h.released]


def test_drop_realm_before_objects_and_results(realm_path):
    realm = fief.Realm.open(realm_path, schema=[Dog])
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    results = realm.objects(Dog).filter("age == 0")
    ref = weakref.ref(realm)
    del realm
    gc.collect()
    assert ref() is None  # objects do not keep the Python realm alive...
    assert dog.name == "Rex"  # ...but their handles keep the realm open
    assert len(results) == 1 and results[0].name == "Rex"
    r = dog.realm
    assert isinstance(r, fief.Realm) and r.object(Dog, 1).name == "Rex"
    del r
    del results
    gc.collect()
    assert dog.name == "Rex"
    del dog
    gc.collect()
    # every handle on the file is gone: the file can be deleted
    assert fief.delete_realm_files(realm_path) is True


def test_drop_objects_before_realm(realm_path):
    realm = fief.Realm.open(realm_path, schema=[Dog])
    with realm.write():
        dogs = [realm.add(Dog(id=i, name=str(i))) for i in range(20)]
    results = realm.objects(Dog)
    items = list(results)
    del dogs, items, results
    gc.collect()
    assert len(realm.objects(Dog)) == 20
    realm.close()
    assert fief.delete_realm_files(realm_path) is True


def test_reference_cycles_are_collected(realm_path):
    gc.collect()
    before = len(_live_handles())
    realm = fief.Realm.open(realm_path, schema=[Dog])
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    results = realm.objects(Dog)
    holder = {"realm": realm, "dog": dog, "results": results}
    holder["self"] = holder
    dog.cycle = holder
    del realm, dog, results, holder
    gc.collect()
    assert len(_live_handles()) == before
    assert fief.delete_realm_files(realm_path) is True


def test_objects_after_close_then_gc(realm_path):
    realm = fief.Realm.open(realm_path, schema=[Dog])
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    results = realm.objects(Dog)
    realm.close()
    del realm
    gc.collect()
    with pytest.raises(fief.RealmClosedError):
        dog.name
    del dog, results
    gc.collect()


@pytest.mark.parametrize("order", ["realm-first", "objects-first", "results-first", "never"])
def test_interpreter_shutdown_with_live_handles(tmp_path, python, order):
    """Leaving handles for the interpreter's teardown neither crashes nor warns."""
    proc = python("""
        import sys, fief
        from models import ALL_MODELS, Dog
        order = sys.argv[2]
        realm = fief.Realm.open(sys.argv[1], schema=ALL_MODELS)
        with realm.write():
            dogs = [realm.add(Dog(id=i, name=str(i))) for i in range(10)]
        results = realm.objects(Dog).filter("id > 3").sort("name")
        frozen = realm.freeze()
        frozen_results = frozen.objects(Dog)
        cycle = [realm, dogs, results, frozen, frozen_results]
        cycle.append(cycle)
        if order == "realm-first":
            del realm, frozen
        elif order == "objects-first":
            del dogs
        elif order == "results-first":
            del results, frozen_results
        realm2 = fief.Realm.open(sys.argv[1], schema=ALL_MODELS)
        realm2.begin_write()  # an open transaction at exit is cancelled
        realm2.add(Dog(id=99, name="never committed"))
        print("done")
    """, str(tmp_path / "shutdown.fief"), order)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    assert "Exception ignored" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
    with fief.Realm.open(tmp_path / "shutdown.fief", schema=ALL_MODELS) as realm:
        assert len(realm.objects(Dog)) == 10
        assert realm.object(Dog, 99) is None


def test_threads_with_separate_realms(realm_path):
    with fief.Realm.open(realm_path, schema=ALL_MODELS):
        pass
    errors = []
    per_thread = 25

    def work(tid):
        try:
            with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
                for i in range(per_thread):
                    with realm.write():
                        realm.add(Counter(id=tid * 1000 + i, writer=f"t{tid}", n=i))
                realm.refresh()
                assert len(realm.objects(Counter).filter("writer == $0", f"t{tid}")) == per_thread
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        assert len(realm.objects(Counter)) == 4 * per_thread


def test_concurrent_writers_are_serialised(realm_path):
    """Read-modify-write of one counter from several threads loses no update."""
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        with realm.write():
            realm.add(Counter(id=1))
    errors = []

    def bump():
        try:
            with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
                for _ in range(20):
                    with realm.write():
                        c = realm.object(Counter, 1)
                        c.n = c.n + 1
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=bump) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    with fief.Realm.open(realm_path, schema=ALL_MODELS) as realm:
        assert realm.object(Counter, 1).n == 60


def test_write_transaction_belongs_to_its_thread(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    realm.begin_write()
    try:
        caught = []

        def other():
            try:
                dog.name
            except fief.FiefError as exc:
                caught.append(exc)
            try:
                realm.commit()
            except fief.FiefError as exc:
                caught.append(exc)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert len(caught) == 2
        assert all(isinstance(e, fief.WrongThreadError) for e in caught), caught
    finally:
        realm.cancel()
    # without a transaction, another thread may use the same realm
    names = []
    t = threading.Thread(target=lambda: names.append(dog.name))
    t.start()
    t.join()
    assert names == ["Rex"]


def test_errors_are_per_thread(realm):
    """The last-error slot is per thread: a failure on one thread is reported
    with its own details even while another thread fails differently."""
    results = []

    def fail_query():
        try:
            realm.objects(Dog).filter("age ==")
        except fief.FiefError as exc:
            results.append(type(exc))

    t = threading.Thread(target=fail_query)
    t.start()
    with pytest.raises(fief.NotInTransactionError):
        realm.add(Dog(id=5, name="x"))
    t.join()
    assert results == [fief.QuerySyntaxError]


# -- the library ------------------------------------------------------------

def test_version_check(library):
    assert library.version_number == fief.EXPECTED_VERSION_NUMBER
    assert fief.library_version() == fief.__version__


def test_version_mismatch_is_refused(library, monkeypatch):
    monkeypatch.setattr(L, "EXPECTED_VERSION_NUMBER", library.version_number + 100)  # built for the next minor
    with pytest.raises(fief.LibraryVersionError) as refused:
        L.Library(library.path)
    message = str(refused.value)
    assert fief.library_version() in message and library.path in message


def test_missing_library_path(monkeypatch, tmp_path):
    monkeypatch.setenv("FIEF_LIBRARY", str(tmp_path / "nope.so"))
    with pytest.raises(fief.LibraryNotFoundError):
        L.find_library()
    bad = tmp_path / "libbad.so"
    bad.write_bytes(b"not an ELF file")
    with pytest.raises(fief.LibraryNotFoundError):
        L.Library(str(bad))


def test_library_lookup_order(monkeypatch, library):
    monkeypatch.setenv("FIEF_LIBRARY", library.path)
    assert L.find_library() == library.path
    monkeypatch.delenv("FIEF_LIBRARY")
    # without the variable: the build outputs found walking up from the package
    for path in L.candidate_paths():
        assert os.path.basename(path).startswith("libfief") or path == L.ctypes.util.find_library("fief")


def test_library_lookup_walks_up(monkeypatch, tmp_path):
    import shutil
    pkg = tmp_path / "repo" / "bindings" / "python" / "src" / "fief"
    pkg.mkdir(parents=True)
    for parts in [("build",), (".build", "release"), (".build", "debug")]:
        d = tmp_path / "repo" / os.path.join(*parts)
        d.mkdir(parents=True)
        (d / ("libfief" + L._SUFFIX)).write_bytes(b"")
    monkeypatch.setattr(L, "__file__", str(pkg / "_lib.py"))
    found = L.candidate_paths()
    root = str(tmp_path / "repo")
    assert found[:3] == [os.path.join(root, "build", "libfief" + L._SUFFIX),
                         os.path.join(root, ".build", "release", "libfief" + L._SUFFIX),
                         os.path.join(root, ".build", "debug", "libfief" + L._SUFFIX)]
    shutil.rmtree(tmp_path / "repo" / "build")
    monkeypatch.delenv("FIEF_LIBRARY", raising=False)
    assert L.find_library() == os.path.join(root, ".build", "release", "libfief" + L._SUFFIX)


def test_missing_symbol_raises_unsupported():
    stub = L._Missing("fief_nothing", "/x/libfief.so")
    with pytest.raises(fief.UnsupportedOperationError):
        stub()


def test_import_without_library_is_possible(python, tmp_path):
    proc = python("""
        import os, fief
        os.environ["FIEF_LIBRARY"] = "/nonexistent/libfief.so"
        class Dog(fief.Object):
            id: fief.PrimaryKey[int]
        try:
            fief.Realm.open("x.fief", schema=[Dog])
        except fief.LibraryNotFoundError as exc:
            print("not found")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "not found"
