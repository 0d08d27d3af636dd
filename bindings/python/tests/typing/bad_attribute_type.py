# A value of the wrong type for a property: `mypy --strict` must reject it
# (tests/test_typing.py).
import fief


class Dog(fief.Object):
    id: fief.PrimaryKey[int]
    name: str
    age: int = 0


rex = Dog(id=1, name="Rex")
rex.age = "three"  # the error: age is an int
