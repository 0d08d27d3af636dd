"""Objects: primary keys, create/add/upsert, errors, deletion."""

from __future__ import annotations

import uuid

import pytest

import fief
from models import Dog, NoKey, OidKey, Person, StrKey, UuidKey


def test_add_makes_object_managed(realm):
    dog = Dog(id=1, name="Rex", age=3)
    with realm.write():
        same = realm.add(dog)
    assert same is dog and dog.is_managed and dog.is_valid
    assert dog.name == "Rex" and dog.age == 3
    assert dog.object_key is not None
    assert dog.realm is realm
    assert len(realm.objects(Dog)) == 1
    with realm.write():
        assert realm.add(dog) is dog  # adding a managed object again is a no-op
    assert len(realm.objects(Dog)) == 1


def test_set_values_on_managed_object(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
        dog.age = 7
        dog.nickname = "R"
    fresh = realm.object(Dog, 1)
    assert fresh.age == 7 and fresh.nickname == "R"
    assert fresh == dog and hash(fresh) == hash(dog)
    assert fresh is not dog


def test_create(realm):
    with realm.write():
        dog = realm.create(Dog, id=2, name="Fido", age=4)
        person = realm.create(Person, {"name": "Ann"}, age=30)
    assert isinstance(dog, Dog) and dog.name == "Fido" and dog.age == 4 and dog.breed == "mixed"
    assert person.name == "Ann" and person.age == 30 and person.height is None


@pytest.mark.parametrize("cls,keys", [
    (Dog, [1, 2, -5, 2**62]),
    (StrKey, ["a", "b", "", "ünïcode"]),
    (OidKey, [fief.ObjectId(), fief.ObjectId(), fief.ObjectId(bytes(12))]),
    (UuidKey, [uuid.uuid4(), uuid.uuid4(), uuid.UUID(int=0)]),
])
def test_primary_keys(realm, cls, keys):
    pk = cls.__fief_primary_key__.attr
    extra = {"name": "n"} if cls is Dog else {}
    with realm.write():
        for k in keys:
            realm.add(cls(**{pk: k}, **extra))
    for k in keys:
        found = realm.object(cls, k)
        assert found is not None and getattr(found, pk) == k
    missing = {Dog: 999, StrKey: "zzz", OidKey: fief.ObjectId(), UuidKey: uuid.uuid4()}[cls]
    assert realm.object(cls, missing) is None


def test_duplicate_primary_key(realm):
    with realm.write():
        realm.add(Dog(id=1, name="Rex"))
        with pytest.raises(fief.DuplicatePrimaryKeyError) as info:
            realm.add(Dog(id=1, name="Other"))
        assert info.value.code == fief.errors.ERR_DUPLICATE_PRIMARY_KEY
        assert info.value.categories & fief.errors.CAT_INVALID_ARG
        with pytest.raises(fief.DuplicatePrimaryKeyError):
            realm.create(StrKey, key="k")
            realm.create(StrKey, key="k")
    assert realm.object(Dog, 1).name == "Rex"
    assert len(realm.objects(Dog)) == 1


def test_missing_primary_key(realm):
    with realm.write():
        with pytest.raises(fief.MissingPrimaryKeyError):
            realm.add(Dog(name="no id"))


def test_primary_key_change_is_refused(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
        dog.id = 1  # same value: allowed
        with pytest.raises(fief.PrimaryKeyChangeError):
            dog.id = 2
    assert dog.id == 1


def test_upsert_modified_and_all(realm):
    with realm.write():
        realm.add(Dog(id=1, name="Rex", age=3, nickname="R"))
    with realm.write():
        updated = realm.add(Dog(id=1, name="Rex II", age=4), update="modified")
    assert updated.is_managed and updated.name == "Rex II" and updated.age == 4
    assert len(realm.objects(Dog)) == 1
    with realm.write():
        realm.add(Dog(id=1, name="Rex III"), update="all")
    dog = realm.object(Dog, 1)
    assert dog.name == "Rex III" and dog.age == 0 and dog.nickname is None
    with realm.write():
        realm.add(Dog(id=2, name="New"), update="modified")  # inserts when missing
    assert len(realm.objects(Dog)) == 2


def test_create_with_update_sets_only_given_values(realm):
    with realm.write():
        realm.create(Dog, id=1, name="Rex", age=3, nickname="R")
        dog = realm.create(Dog, id=1, age=10, update="modified")
    assert dog.name == "Rex" and dog.age == 10 and dog.nickname == "R"
    with realm.write():
        new = realm.create(Dog, id=2, name="N", update="all")
    assert new.breed == "mixed"


def test_bad_update_policy(realm):
    with realm.write():
        with pytest.raises(fief.InvalidArgumentError):
            realm.add(Dog(id=1, name="x"), update="sometimes")


def test_add_all(realm):
    with realm.write():
        dogs = realm.add_all([Dog(id=i, name=f"d{i}", age=i) for i in range(10)])
    assert all(d.is_managed for d in dogs)
    assert [d.age for d in realm.objects(Dog)] == list(range(10))
    with realm.write():
        with pytest.raises(fief.DuplicatePrimaryKeyError):
            realm.add_all([Dog(id=100, name="a"), Dog(id=5, name="dup")])
    assert realm.object(Dog, 100) is None  # all or nothing


def test_class_without_primary_key(realm):
    with realm.write():
        a = realm.add(NoKey(name="a"))
        realm.add(NoKey(name="a"))
    assert len(realm.objects(NoKey)) == 2
    with pytest.raises(fief.InvalidArgumentError):
        realm.object(NoKey, 1)
    assert realm.object_by_key(NoKey, a.object_key) == a


def test_wrong_type_errors(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
        with pytest.raises(fief.TypeMismatchError):
            dog.age = "old"
        with pytest.raises(fief.TypeMismatchError):
            dog.name = 5
        with pytest.raises(fief.TypeMismatchError):
            realm.add(Dog(id=2, name=b"bytes"))
        with pytest.raises(fief.TypeMismatchError):
            dog.age = [1, 2]  # not a Fief value at all: refused by the binding
        with pytest.raises(TypeError):  # TypeMismatchError is a TypeError too
            dog.nickname = 3.5
    assert dog.age == 0 and dog.name == "Rex"
    with pytest.raises(fief.TypeMismatchError):
        realm.object(Dog, "one")


def test_unknown_class(realm_path):
    class Cat(fief.Object):
        name: str

    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with pytest.raises(fief.NoSuchClassError):
            realm.objects(Cat)
        with pytest.raises(fief.NoSuchClassError):
            realm.objects("Cat")
        with realm.write():
            with pytest.raises(fief.NoSuchClassError):
                realm.add(Cat(name="Tom"))


def test_unknown_property(realm_path):
    with fief.Realm.open(realm_path, schema=[Dog]) as realm:
        with realm.write():
            realm.add(Dog(id=1, name="Rex"))

    # A model whose stored class has fewer properties than the Python class.
    class Dog2(fief.Object, name="Dog"):
        id: fief.PrimaryKey[int]
        name: str
        colour: str = "brown"

    with fief.Realm.open(realm_path) as realm:  # the file's own schema
        dog = realm.object(Dog2, 1)
        assert dog.name == "Rex"
        with pytest.raises(fief.NoSuchPropertyError):
            dog.colour
        with pytest.raises(fief.NoSuchPropertyError):
            realm.create(Dog, id=3, name="x", colour="y")
        with pytest.raises(fief.InvalidQueryError):
            realm.objects(Dog).filter("colour == 'brown'")


def test_unknown_property_key_in_c_call(realm, library):
    """The library itself reports a property key it does not know."""
    import ctypes
    from fief import _lib as L
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    out = L.fief_value_t()
    handle = dog.__dict__["_fief_handle"]
    assert not library.fief_object_get_value(handle.ptr, 999_999, ctypes.byref(out))
    with pytest.raises(fief.NoSuchPropertyError):
        raise library.last_error()


def test_write_outside_transaction(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
    with pytest.raises(fief.NotInTransactionError) as info:
        dog.age = 5
    assert isinstance(info.value, fief.LogicError)
    with pytest.raises(fief.NotInTransactionError):
        realm.add(Dog(id=2, name="x"))
    with pytest.raises(fief.NotInTransactionError):
        realm.delete(dog)
    with pytest.raises(fief.NotInTransactionError):
        realm.delete_all()
    with pytest.raises(fief.NotInTransactionError):
        realm.commit()
    with pytest.raises(fief.NotInTransactionError):
        realm.cancel()
    assert dog.age == 0


def test_nested_write_is_refused(realm):
    with realm.write():
        with pytest.raises(fief.AlreadyInTransactionError):
            realm.begin_write()
        with pytest.raises(fief.AlreadyInTransactionError):
            realm.refresh()


def test_cancel_on_exception(realm):
    with realm.write():
        realm.add(Dog(id=1, name="Rex"))
    with pytest.raises(RuntimeError, match="boom"):
        with realm.write():
            realm.add(Dog(id=2, name="Fido"))
            realm.object(Dog, 1).age = 99
            raise RuntimeError("boom")
    assert not realm.in_transaction
    assert len(realm.objects(Dog)) == 1
    assert realm.object(Dog, 2) is None
    assert realm.object(Dog, 1).age == 0


def test_manual_begin_commit_cancel(realm):
    realm.begin_write()
    assert realm.in_transaction
    obj = realm.add(Dog(id=1, name="a"))
    realm.cancel()
    assert not realm.in_transaction
    assert not obj.is_valid  # created in a cancelled transaction
    v = realm.version
    realm.begin_write()
    realm.add(Dog(id=1, name="a"))
    realm.commit()
    assert realm.version == v + 1
    with realm.write():
        realm.add(Dog(id=2, name="b"))
        realm.commit()  # committing inside the block is allowed
    assert len(realm.objects(Dog)) == 2


def test_delete_object_then_access(realm):
    with realm.write():
        dog = realm.add(Dog(id=1, name="Rex"))
        other = realm.add(Dog(id=2, name="Fido"))
    key = dog.object_key
    with realm.write():
        realm.delete(dog)
    assert not dog.is_valid and other.is_valid
    with pytest.raises(fief.InvalidatedObjectError):
        dog.name
    with realm.write():
        with pytest.raises(fief.InvalidatedObjectError):
            dog.name = "x"
        with pytest.raises(fief.InvalidatedObjectError):
            realm.delete(dog)
    assert dog.object_key == key  # the key is still known
    assert realm.object(Dog, 1) is None
    with pytest.raises(fief.NoSuchObjectError):
        realm.object_by_key(Dog, key)
    assert "InvalidatedObjectError" in repr(dog)


def test_delete_results_and_delete_all(realm):
    with realm.write():
        realm.add_all([Dog(id=i, name=str(i), age=i) for i in range(10)])
        realm.add(Person(name="Ann"))
    with realm.write():
        realm.delete(realm.objects(Dog).filter("age >= 5"))
    assert len(realm.objects(Dog)) == 5
    with realm.write():
        realm.delete([realm.object(Dog, 0), realm.object(Dog, 1)])
    assert len(realm.objects(Dog)) == 3
    with realm.write():
        realm.delete_all(Dog)
    assert len(realm.objects(Dog)) == 0 and len(realm.objects(Person)) == 1
    with realm.write():
        realm.add(Dog(id=1, name="x"))
        realm.delete_all()
    assert len(realm.objects(Dog)) == 0 and len(realm.objects(Person)) == 0


def test_unmanaged_object_operations(realm):
    dog = Dog(id=1, name="x")
    with realm.write():
        with pytest.raises(fief.LogicError):
            realm.delete(dog)
    with pytest.raises(TypeError):
        with realm.write():
            realm.add("not an object")
