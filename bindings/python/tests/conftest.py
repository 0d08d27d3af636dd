from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

import fief  # noqa: E402
from models import ALL_MODELS  # noqa: E402


def _library_or_skip() -> fief._lib.Library:
    try:
        return fief.load_library()
    except fief.LibraryError as exc:  # pragma: no cover - environment problem
        pytest.exit(f"cannot load libfief: {exc}. Set FIEF_LIBRARY to the built libfief.so", returncode=4)


@pytest.fixture(scope="session")
def library() -> fief._lib.Library:
    return _library_or_skip()


@pytest.fixture
def realm_path(tmp_path: Path, library: fief._lib.Library) -> Path:
    return tmp_path / "test.fief"


@pytest.fixture
def realm(realm_path: Path) -> Iterator[fief.Realm]:
    r = fief.Realm.open(realm_path, schema=ALL_MODELS)
    yield r
    if not r.is_closed:
        try:
            if r.in_transaction:
                r.cancel()
        except fief.FiefError:
            pass
        r.close()


def child_env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), env.get("PYTHONPATH", "")])
    lib = fief.load_library()
    env["FIEF_LIBRARY"] = lib.path
    return env


def run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter with the package and the test models importable."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=child_env(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def python() -> Any:
    return run_python


# -- isolation ---------------------------------------------------------------
#
# A test marked `isolated` runs in a child pytest process: if the library
# crashes (abort, segfault) the test fails with the child's output instead of
# killing the whole session.

def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "isolated: run the test in a child process (crash containment)")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    if pyfuncitem.get_closest_marker("isolated") is None or os.environ.get("FIEF_TEST_CHILD"):
        return None
    env = child_env()
    env["FIEF_TEST_CHILD"] = "1"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                           pyfuncitem.nodeid], cwd=str(pyfuncitem.config.rootpath), env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        how = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
        crashed = "Fatal Python error" in proc.stderr or "crashed" in proc.stderr or proc.returncode < 0
        pytest.fail(f"isolated child {'CRASHED' if crashed else 'failed'} ({how}):\n"
                    f"{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}", pytrace=False)
    return True
