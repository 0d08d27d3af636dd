"""Packaging: the wheel carries its own libfief, so `import fief` works with
no environment variable and no system install.

The version is the one include/fief.h declares (FIEF_VERSION_STRING), the
single source of truth; building from an sdist (no repository around it)
takes it from the sdist's PKG-INFO, which setuptools wrote from the header.

The library comes from, in order: $FIEF_LIBRARY (a libfief to bundle; a
symbolic link is followed), the repository's CMake build (build/lib/libfief.so),
or a CMake build made now (cmake -S <repository> -B <repository>/build;
Release).  The wheel holds a copy of it as fief/libfief.so, stripped of
debug information, and is tagged py3-none-manylinux_<glibc>_<arch>, where
<glibc> is the highest GLIBC_ symbol version that library needs: the Python
code is pure and the library does not depend on the interpreter, so any
CPython >= 3.9 on such a Linux installs the one wheel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Tuple

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.install import install

try:  # setuptools >= 70.1 has its own bdist_wheel
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - older setuptools with the wheel package
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent.parent
HEADER = REPOSITORY / "include" / "fief.h"
LIBRARY = "libfief.so"

sys.path.insert(0, str(HERE))
from elfinfo import ElfFile  # noqa: E402


def header_version(header: Path = HEADER) -> Tuple[str, int]:
    """(FIEF_VERSION_STRING, FIEF_VERSION_NUMBER) of fief.h, checked against
    its MAJOR/MINOR/PATCH."""
    text = header.read_text(encoding="utf-8")

    def define(name: str, pattern: str) -> str:
        match = re.search(r"^\s*#\s*define\s+" + name + r"\s+" + pattern + r"\s*(?:/[*/].*)?$", text, re.M)
        if not match:
            raise SystemExit(f"{header}: no #define {name}")
        return match.group(1)

    string = define("FIEF_VERSION_STRING", r'"([^"]+)"')
    major, minor, patch = (int(define("FIEF_VERSION_" + part, r"(\d+)")) for part in ("MAJOR", "MINOR", "PATCH"))
    number = int(define("FIEF_VERSION_NUMBER", r"(\d+)"))
    if string != f"{major}.{minor}.{patch}" or number != major * 10000 + minor * 100 + patch:
        raise SystemExit(f"{header}: FIEF_VERSION_STRING {string!r}, FIEF_VERSION_NUMBER {number} and "
                         f"MAJOR.MINOR.PATCH {major}.{minor}.{patch} disagree")
    return string, number


def package_version() -> Tuple[str, int]:
    if HEADER.is_file():
        return header_version()
    pkg_info = HERE / "PKG-INFO"  # an sdist
    if pkg_info.is_file():
        match = re.search(r"^Version:\s*(\d+)\.(\d+)\.(\d+)\s*$", pkg_info.read_text(encoding="utf-8"), re.M)
        if match:
            major, minor, patch = (int(g) for g in match.groups())
            return f"{major}.{minor}.{patch}", major * 10000 + minor * 100 + patch
    raise SystemExit(f"cannot find the version: neither {HEADER} nor an sdist's PKG-INFO is here")


VERSION, VERSION_NUMBER = package_version()

_library: Optional[Path] = None


def built_library() -> Path:
    """The library to bundle (its real file, symbolic links resolved)."""
    global _library
    if _library is not None:
        return _library
    given = os.environ.get("FIEF_LIBRARY")
    if given:
        path = Path(given)
        if not path.is_file():
            raise SystemExit(f"FIEF_LIBRARY={given} does not exist")
    else:
        build = REPOSITORY / "build"
        path = build / "lib" / LIBRARY
        if not path.is_file():
            if not (REPOSITORY / "CMakeLists.txt").is_file():
                raise SystemExit("libfief is not built and the Fief repository is not here to build it; "
                                 "set FIEF_LIBRARY to a libfief.so")
            print(f"building libfief with CMake in {build}")
            subprocess.run(["cmake", "-S", str(REPOSITORY), "-B", str(build), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release"], check=True)
            subprocess.run(["cmake", "--build", str(build), "--target", "fief_swift"], check=True)
    _library = path.resolve()
    return _library


def bundle_library(target: Path) -> None:
    """Copy the library to `target`, stripped if it carries debug information
    or a static symbol table."""
    source = built_library()
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() or target.is_symlink():
        target.unlink()
    shutil.copyfile(source, target)
    os.chmod(target, 0o755)
    elf = ElfFile(target)
    if elf.has_debug_info() or elf.has_symtab():
        strip = shutil.which(os.environ.get("STRIP", "strip"))
        if strip is None:
            print(f"warning: {source} has debug information and no `strip` is here to remove it",
                  file=sys.stderr)
            return
        subprocess.run([strip, "--strip-unneeded", str(target)], check=True)


class BuildWithLibrary(build_py):
    """build_py, then the library and the build's version next to the modules."""

    def run(self) -> None:
        super().run()
        package = Path(self.build_lib) / "fief"
        bundle_library(package / LIBRARY)
        (package / "_build_info.py").write_text(
            '"""Written by setup.py: the fief.h version this package was built from."""\n\n'
            f"VERSION = {VERSION!r}\nVERSION_NUMBER = {VERSION_NUMBER}\n", encoding="utf-8")


class InstallPlatlib(install):
    """install into platlib (the package carries a native library), though no
    extension module is built."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.install_lib = self.install_platlib


class PlatformWheel(bdist_wheel):
    """A wheel for any Python 3 (the code is pure) on the platform the bundled
    library runs on: py3-none-manylinux_<glibc>_<arch> on Linux."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False  # a native library inside: platlib

    def get_tag(self) -> Tuple[str, str, str]:
        if sys.platform.startswith("linux"):
            return "py3", "none", ElfFile(built_library()).manylinux_tag()
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(version=VERSION, cmdclass={"build_py": BuildWithLibrary, "install": InstallPlatlib, "bdist_wheel": PlatformWheel})
