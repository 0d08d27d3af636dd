"""Typing: `mypy --strict` accepts the package, the README's Python tour
(tests/typing/readme_tour.py, checked to be the README's text), the tests'
model file and the typed test modules, and rejects a constructor typo and a
value of the wrong type for a property.

The package, the tour and the models are checked for Python 3.9, the oldest
the package supports, when the installed mypy can (mypy 2 dropped 3.9 as a
target: then for the oldest target it accepts, which it names in its
refusal).  The typed test modules import pytest, whose sources use newer
syntax: they are checked for the running interpreter's version, the one they
run on."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import fief

TESTS = Path(__file__).resolve().parent
BINDING = TESTS.parent
SRC = BINDING / "src"
README = BINDING.parents[1] / "README.md"
TYPING = TESTS / "typing"

# What users write: checked for the oldest Python the package supports.
STRICT_FILES = [
    TYPING / "readme_tour.py",
    TYPING / "reveal.py",
    TESTS / "models.py",
]

# The test modules written to pass --strict (the other test modules are not).
STRICT_TESTS = [
    TESTS / "conftest.py",
    TESTS / "test_header.py",
    TESTS / "test_version.py",
    TESTS / "test_packaging.py",
    TESTS / "test_typing.py",
]


@pytest.fixture(scope="module")
def target() -> str:
    """The Python version mypy checks for: 3.9 if this mypy can."""
    probe = subprocess.run([sys.executable, "-m", "mypy", "--python-version", "3.9", "--version"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode == 0:
        return "3.9"
    refused = re.search(r"Python 3\.9 is not supported \(must be (3\.\d+) or higher\)", probe.stderr)
    assert refused, f"mypy cannot run: {probe.stdout}{probe.stderr}"
    return str(refused.group(1))


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(target: str, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """mypy --strict on the source tree's package (not an installed copy)."""
    env = dict(os.environ, MYPYPATH=os.pathsep.join([str(SRC), str(TESTS)]))
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--python-version", target,
                           "--cache-dir", str(cache), "--no-error-summary", "--show-error-codes", *args],
                          env=env, cwd=str(BINDING), capture_output=True, text=True, timeout=600)


def test_the_package_passes_strict(target: str, cache: Path) -> None:
    run = mypy(target, cache, "-p", "fief")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_typed_tests_pass_strict(cache: Path) -> None:
    run = mypy("%d.%d" % sys.version_info[:2], cache, *[str(p) for p in STRICT_TESTS])
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_tour_and_models_pass_strict(target: str, cache: Path) -> None:
    run = mypy(target, cache, *[str(p) for p in STRICT_FILES])
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert run.returncode == 0 and not errors, run.stdout + run.stderr
    # What mypy sees of the model API: plain types through PrimaryKey,
    # Indexed, FullText and Property.
    revealed = [re.sub(r"^Union\[(.*), None\]$", r"\1 | None", t.replace("builtins.", ""))
                for t in re.findall(r"reveal\.py:\d+: note: Revealed type is \"([^\"]+)\"", run.stdout)]
    assert revealed == ["str", "str", "str", "int", "float | None", "str"], run.stdout


def readme_python_tour() -> str:
    text = README.read_text(encoding="utf-8")
    blocks: List[str] = re.findall(r"```python\n(.*?)```", text, re.S)
    tours = [b for b in blocks if "class Dog(fief.Object)" in b and "fief.Realm.open" in b]
    assert tours, "README.md has no Python tour (a ```python block declaring Dog and opening a realm)"
    return tours[0]


def test_the_tour_copy_is_the_readmes() -> None:
    copy = (TYPING / "readme_tour.py").read_text(encoding="utf-8")
    code = "".join(line for line in copy.splitlines(keepends=True) if not line.startswith("#"))
    assert code.strip() == readme_python_tour().strip(), \
        "tests/typing/readme_tour.py differs from README.md's Python tour: copy the README's block again"


@pytest.mark.parametrize("name, expected", [
    ("bad_constructor.py", r'bad_constructor\.py:11: error: Unexpected keyword argument "nme" for "Dog"'),
    ("bad_attribute_type.py", r'bad_attribute_type\.py:13: error: Incompatible types in assignment '
                              r'\(expression has type "str", variable has type "int"\)'),
])
def test_mistakes_are_type_errors(target: str, cache: Path, name: str, expected: str) -> None:
    run = mypy(target, cache, str(TYPING / name))
    assert run.returncode == 1, run.stdout + run.stderr
    errors: List[str] = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and re.search(expected, errors[0]), run.stdout


def test_all_is_static_and_complete() -> None:
    source = (SRC / "fief" / "__init__.py").read_text(encoding="utf-8")
    assert re.search(r"^__all__ = \[$", source, re.M), "fief.__all__ is a literal list"
    for name in fief.__all__:
        assert hasattr(fief, name), name
    assert set(fief.errors.__all__) <= set(fief.__all__)
    for name in ("Object", "Realm", "PrimaryKey", "Property", "Results", "List", "Set", "Dict", "__version__"):
        assert name in fief.__all__


def test_the_package_is_typed() -> None:
    assert (SRC / "fief" / "py.typed").is_file()


def test_nothing_is_needed_at_run_time() -> None:
    """typing_extensions (dataclass_transform) is for type checkers only."""
    code = ("import sys, builtins\n"
            "real = builtins.__import__\n"
            "def guard(name, *a, **k):\n"
            "    if name.split('.')[0] == 'typing_extensions':\n"
            "        raise ImportError('typing_extensions imported at run time')\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = guard\n"
            "import fief\n"
            "class Dog(fief.Object):\n"
            "    id: fief.PrimaryKey[int]\n"
            "    name: str = fief.Property(default='x', indexed=True)\n"
            "print(Dog(id=1).name, 'typing_extensions' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(SRC)),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["x", "False"]
