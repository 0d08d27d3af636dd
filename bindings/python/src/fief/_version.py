"""The version of this package: the version of the fief.h it was built from.

A built package (wheel, sdist install) carries it in ``_build_info``, which
setup.py writes from the header; a source checkout (the tests import the
package from src/) reads the repository's include/fief.h."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Tuple


def parse_header_version(text: str) -> Tuple[str, int]:
    """(FIEF_VERSION_STRING, FIEF_VERSION_NUMBER) of the text of a fief.h."""
    string = re.search(r'^\s*#\s*define\s+FIEF_VERSION_STRING\s+"([^"]+)"', text, re.M)
    number = re.search(r"^\s*#\s*define\s+FIEF_VERSION_NUMBER\s+(\d+)", text, re.M)
    if not string or not number:
        raise ValueError("no FIEF_VERSION_STRING / FIEF_VERSION_NUMBER in the header")
    return string.group(1), int(number.group(1))


def _find() -> Tuple[str, int]:
    try:
        info = importlib.import_module(__package__ + "._build_info")
    except ImportError:
        pass
    else:
        return str(info.VERSION), int(info.VERSION_NUMBER)
    header = Path(__file__).resolve().parents[4] / "include" / "fief.h"
    try:
        return parse_header_version(header.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ImportError(f"fief is neither a built package (no fief._build_info) nor in the "
                          f"Fief repository ({header} cannot be read: {exc})") from exc


VERSION, VERSION_NUMBER = _find()


def split(number: int) -> Tuple[int, int, int]:
    """MAJOR, MINOR, PATCH of a FIEF_VERSION_NUMBER-style number."""
    return number // 10000, number // 100 % 100, number % 100


def dotted(number: int) -> str:
    return "%d.%d.%d" % split(number)


def incompatibility(library_number: int, built_number: int) -> str | None:
    """Why a library of version `library_number` cannot serve a binding built
    from the header of version `built_number`, or None when it can: the
    library must have the same MAJOR version (the same MAJOR.MINOR while
    MAJOR is 0) and be no older than the header."""
    lib_major, lib_minor, _ = split(library_number)
    major, minor, _ = split(built_number)
    if lib_major != major:
        return f"its major version differs from {major}"
    if major == 0 and lib_minor != minor:
        return f"before 1.0 the minor version must be the same ({major}.{minor}.x)"
    if library_number < built_number:
        return "it is older than the header the binding was built from"
    return None
