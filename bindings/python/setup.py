"""Packaging: the wheel carries its own libfief.so, so `import fief` works
with no environment variable and no system install.

The library comes from, in order: $FIEF_LIBRARY (a libfief.so to bundle),
the repository's CMake build (build/lib/libfief.so), or a CMake build made
now (cmake -S <repository> -B <repository>/build; Release)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent.parent
LIBRARY = "libfief.so"


def built_library() -> Path:
    given = os.environ.get("FIEF_LIBRARY")
    if given:
        path = Path(given)
        if not path.is_file():
            raise SystemExit(f"FIEF_LIBRARY={given} does not exist")
        return path
    build = REPOSITORY / "build"
    library = build / "lib" / LIBRARY
    if library.is_file():
        return library
    if not (REPOSITORY / "CMakeLists.txt").is_file():
        raise SystemExit("libfief.so is not built and the Fief repository is not here to build it; "
                         "set FIEF_LIBRARY to a libfief.so")
    print(f"building libfief with CMake in {build}")
    subprocess.run(["cmake", "-S", str(REPOSITORY), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True)
    subprocess.run(["cmake", "--build", str(build), "--target", "fief_swift"], check=True)
    return library


class BuildWithLibrary(build_py):
    """build_py, then the library next to the package's modules."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "fief" / LIBRARY
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built_library(), target)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
