# What mypy sees of the model API (tests/test_typing.py checks the revealed types).
from typing import Optional

import fief


class Person(fief.Object):
    name: fief.PrimaryKey[str]
    nick: fief.Indexed[str] = ""
    bio: fief.FullText[str] = fief.Property(default="")
    age: int = fief.Property(default=0, indexed=True)
    height: Optional[float] = None


ann = Person(name="Ann", age=30)
reveal_type(ann.name)
reveal_type(ann.nick)
reveal_type(ann.bio)
reveal_type(ann.age)
reveal_type(ann.height)
reveal_type(fief.__version__)
