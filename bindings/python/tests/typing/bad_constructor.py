# A constructor typo: `mypy --strict` must reject it (tests/test_typing.py).
import fief


class Dog(fief.Object):
    id: fief.PrimaryKey[int]
    name: str
    age: int = 0


rex = Dog(id=1, nme="Rex")  # the error: no property "nme"
