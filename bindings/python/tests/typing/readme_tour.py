# The Python tour of the repository's README, verbatim: `mypy --strict`
# must accept it (tests/test_typing.py).
import fief

class Dog(fief.Object):
    id: fief.PrimaryKey[int]
    name: str
    age: int = 0

with fief.Realm.open("dogs.fief", schema=[Dog]) as realm:
    with realm.write():
        realm.add(Dog(id=1, name="Rex", age=3))
    for dog in realm.objects(Dog).filter("age < $0", 5).sort("name"):
        print(dog.name)
