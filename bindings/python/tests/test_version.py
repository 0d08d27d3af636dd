"""The package's version is fief.h's; the library must be no older than
that header and of the same MAJOR (MAJOR.MINOR while MAJOR is 0)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import fief
from fief import _lib as L
from fief import _version

from conftest import child_env

HEADER = Path(__file__).resolve().parents[3] / "include" / "fief.h"


def header_defines() -> dict[str, str]:
    text = HEADER.read_text(encoding="utf-8")
    return dict(re.findall(r"^\s*#\s*define\s+(FIEF_VERSION_\w+)\s+\"?([^\s\"]+)\"?", text, re.M))


def test_the_package_version_is_the_headers() -> None:
    defines = header_defines()
    assert fief.__version__ == defines["FIEF_VERSION_STRING"]
    assert fief.EXPECTED_VERSION_NUMBER == int(defines["FIEF_VERSION_NUMBER"])
    major, minor, patch = (int(defines["FIEF_VERSION_" + p]) for p in ("MAJOR", "MINOR", "PATCH"))
    assert fief.__version__ == f"{major}.{minor}.{patch}"
    assert _version.split(fief.EXPECTED_VERSION_NUMBER) == (major, minor, patch)


@pytest.mark.parametrize("library, built, accepted", [
    (200, 200, True),       # the same version
    (201, 200, True),       # a newer patch
    (299, 200, True),
    (199, 200, False),      # older
    (100, 200, False),      # an older minor (0.x: minors differ)
    (300, 200, False),      # a newer minor while MAJOR is 0
    (10200, 200, False),    # another major
    (0, 200, False),
    (10200, 10200, True),   # from 1.0 on: a newer minor or patch is fine
    (10301, 10200, True),
    (10199, 10200, False),  # older
    (10201, 10202, False),  # an older patch
    (20000, 10200, False),  # another major
    (10200, 20000, False),
])
def test_the_version_decision(library: int, built: int, accepted: bool) -> None:
    why = _version.incompatibility(library, built)
    assert (why is None) == accepted, why


def test_the_real_library_is_accepted(library: L.Library) -> None:
    assert _version.incompatibility(library.version_number, fief.EXPECTED_VERSION_NUMBER) is None
    again = L.Library(library.path)
    assert again.version_number == library.version_number
    assert again.version_string == fief.library_version()


@pytest.mark.parametrize("built_offset, reason", [(1, "older"), (100, "minor"), (10000, "major")])
def test_a_refused_library_is_named(library: L.Library, monkeypatch: pytest.MonkeyPatch,
                                    built_offset: int, reason: str) -> None:
    """As if this binding had been built from a newer header than the library."""
    built = library.version_number + built_offset
    monkeypatch.setattr(L, "EXPECTED_VERSION_NUMBER", built)
    with pytest.raises(fief.LibraryVersionError) as refused:
        L.Library(library.path)
    message = str(refused.value)
    assert _version.dotted(library.version_number) in message   # the library's version
    assert _version.dotted(built) in message                    # the one the binding was built for
    assert library.path in message
    assert reason in message


def test_python_dash_m_fief_version(library: L.Library) -> None:
    run = subprocess.run([sys.executable, "-m", "fief", "--version"], env=child_env(),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"fief {fief.__version__} (libfief {library.version_string}, {library.path})\n"
