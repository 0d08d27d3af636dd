from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

import fief  # noqa: E402
from models import ALL_MODELS  # noqa: E402


def _library_or_skip():
    try:
        return fief.load_library()
    except fief.LibraryError as exc:  # pragma: no cover - environment problem
        pytest.exit(f"cannot load libfief: {exc}. Set FIEF_LIBRARY to the built libfief.so", returncode=4)


@pytest.fixture(scope="session")
def library():
    return _library_or_skip()


@pytest.fixture
def realm_path(tmp_path, library):
    return tmp_path / "test.fief"


@pytest.fixture
def realm(realm_path):
    r = fief.Realm.open(realm_path, schema=ALL_MODELS)
    yield r
    if not r.is_closed:
        try:
            if r.in_transaction:
                r.cancel()
        except fief.FiefError:
            pass
        r.close()


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), env.get("PYTHONPATH", "")])
    lib = fief.load_library()
    env["FIEF_LIBRARY"] = lib.path
    return env


def run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter with the package and the test models importable."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=child_env(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def python():
    return run_python
