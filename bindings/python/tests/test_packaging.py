"""Packaging: the wheel built from the source tree carries its own stripped
libfief, is tagged py3-none-manylinux_<glibc>_<arch> for the highest GLIBC_
symbol version that library needs (and auditwheel agrees), and installs and
runs on every CPython >= 3.9 this machine has, with no environment variable
and no index."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import fief
from fief import _lib as L

BINDING = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BINDING))
from elfinfo import ElfFile  # noqa: E402

# The libraries a manylinux wheel may need from the system (PEP 600: the
# ones every glibc-based distribution has).
ALLOWED_NEEDED = re.compile(r"^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|"
                            r"ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|libpthread\.so\.0|libdl\.so\.2|"
                            r"librt\.so\.1)$")

PROGRAM = """
import sys
from typing import Optional

import fief

class Dog(fief.Object):
    id: fief.PrimaryKey[int]
    name: str
    age: int = 0
    nickname: Optional[str] = None
    tags: list[str]

with fief.Realm.open(sys.argv[1], schema=[Dog]) as realm:
    with realm.write():
        realm.add(Dog(id=1, name="Rex", age=3, tags=["good"]))
        realm.add(Dog(id=2, name="Fido", age=7))
with fief.Realm.open(sys.argv[1], schema=[Dog]) as realm:
    young = realm.objects(Dog).filter("age < $0", 5).sort("name")
    print(len(young), young[0].name, list(young[0].tags), realm.objects(Dog).count())
print(fief.load_library().path)
"""


def _clean_env() -> Dict[str, str]:
    """The environment of an installed program: no FIEF_LIBRARY, no PYTHONPATH."""
    return {k: v for k, v in os.environ.items() if k not in ("FIEF_LIBRARY", "PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory, library: L.Library) -> Path:
    """`pip wheel` of the source tree, bundling the library this suite tests,
    given as an installed library is laid out: libfief.so -> libfief.so.0 ->
    the real file (the wheel must hold the file, not a link)."""
    out = tmp_path_factory.mktemp("wheel")
    links = tmp_path_factory.mktemp("links")
    (links / "libfief.so.0").symlink_to(os.path.realpath(library.path))
    (links / "libfief.so").symlink_to("libfief.so.0")
    env = dict(os.environ, FIEF_LIBRARY=str(links / "libfief.so"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out),
                            str(BINDING)], env=env, cwd=out, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def bundled(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The library inside the wheel, extracted."""
    out = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(wheel) as archive:
        archive.extract("fief/libfief.so", out)
    return out / "fief" / "libfief.so"


def _readelf_glibc(path: Path) -> Tuple[int, int]:
    """The highest GLIBC_ version readelf lists as needed (a cross-check of elfinfo)."""
    text = subprocess.run(["readelf", "--version-info", "--wide", str(path)], capture_output=True, text=True,
                          check=True).stdout
    needs = text[text.index("Version needs section"):] if "Version needs section" in text else ""
    found = [tuple(int(p) for p in m.split(".")[:2]) for m in re.findall(r"Name: GLIBC_(\d+\.\d+(?:\.\d+)?)", needs)]
    assert found, f"readelf lists no GLIBC_ version needed by {path}"
    return max(found)  # type: ignore[return-value]


def expected_tag(library_path: str) -> str:
    elf = ElfFile(os.path.realpath(library_path))
    if shutil.which("readelf"):
        assert elf.glibc() == _readelf_glibc(Path(os.path.realpath(library_path))), "elfinfo and readelf disagree"
    return elf.manylinux_tag()


def test_the_wheel_is_named_for_the_version_and_the_librarys_glibc(wheel: Path, library: L.Library) -> None:
    tag = expected_tag(library.path)
    assert re.fullmatch(r"manylinux_2_\d+_x86_64", tag), tag
    assert wheel.name == f"fief-{fief.__version__}-py3-none-{tag}.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"fief-{fief.__version__}.dist-info"
        wheel_meta = archive.read(f"{info}/WHEEL").decode()
        metadata = archive.read(f"{info}/METADATA").decode()
        license_text = archive.read(f"{info}/licenses/LICENSE").decode()
        lmdb_license_text = archive.read(f"{info}/licenses/LICENSE.lmdb").decode()
        build_info = archive.read("fief/_build_info.py").decode()
    assert f"Tag: py3-none-{tag}" in wheel_meta.splitlines()
    assert "Root-Is-Purelib: false" in wheel_meta.splitlines()
    assert f"Version: {fief.__version__}" in metadata.splitlines()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "OpenLDAP Public License" in lmdb_license_text  # LMDB is compiled into the library
    assert "Requires-Python: >=3.9" in metadata.splitlines()
    assert "Apache License" in license_text and "Version 2.0" in license_text
    assert f"VERSION = {fief.__version__!r}" in build_info
    assert "fief/py.typed" in names and "fief/__main__.py" in names
    assert not [n for n in names if n.endswith(".so") and n != "fief/libfief.so"], names


def test_the_bundled_library_is_stripped_and_needs_only_the_system(bundled: Path, library: L.Library) -> None:
    elf = ElfFile(bundled)
    assert not elf.has_debug_info(), [s for s in elf.section_names() if "debug" in s]
    assert not elf.has_symtab()
    foreign = [n for n in elf.needed() if not ALLOWED_NEEDED.match(n)]
    assert not foreign, f"the bundled library needs libraries outside the manylinux set: {foreign}"
    assert elf.glibc() == ElfFile(os.path.realpath(library.path)).glibc()
    # the real file was bundled, not a symbolic link
    assert not bundled.is_symlink() and bundled.stat().st_size > 100_000


def test_auditwheel_agrees_with_the_tag(wheel: Path, library: L.Library) -> None:
    tag = expected_tag(library.path)
    show = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True,
                          timeout=300)
    assert show.returncode == 0, show.stdout + show.stderr
    text = " ".join(show.stdout.split())
    assert f'is consistent with the following platform tag: "{tag}"' in text, show.stdout
    assert f'This constrains the platform tag to "{tag}"' in text, show.stdout


def cpythons() -> List[Tuple[str, Tuple[int, int]]]:
    """Every distinct CPython >= 3.9 here: this one, /usr/bin/python3, pyenv's
    versions and python3.N on PATH."""
    candidates = [sys.executable, "/usr/bin/python3"]
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates += sorted(glob.glob(os.path.join(pyenv, "versions", "*", "bin", "python3")))
    candidates += [p for p in (shutil.which(f"python3.{n}") for n in range(9, 40)) if p]
    found: Dict[str, Tuple[str, Tuple[int, int]]] = {}
    for exe in candidates:
        if not os.access(exe, os.X_OK):
            continue
        probe = subprocess.run([exe, "-c", "import sys, platform; print(platform.python_implementation(), "
                                "sys.version_info[0], sys.version_info[1], "
                                "getattr(sys, '_base_executable', sys.executable))"],
                               capture_output=True, text=True, timeout=60)
        if probe.returncode != 0:
            continue
        impl, major, minor, base = probe.stdout.split()
        version = (int(major), int(minor))
        if impl != "CPython" or version < (3, 9):
            continue
        found.setdefault(os.path.realpath(base), (exe, version))
    return sorted(found.values(), key=lambda item: item[1])


def _install_and_run(index: int, exe: str, version: Tuple[int, int], wheel: Path, root: Path) -> str:
    """'' if the wheel installs and runs under `exe`, else what went wrong."""
    where = root / f"{index}-py{version[0]}.{version[1]}"
    venv = where / "venv"
    env = _clean_env()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), env=env, cwd=str(where), capture_output=True, text=True, timeout=180)

    where.mkdir(parents=True)
    steps = [
        (exe, "-m", "venv", str(venv)),
        (str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
         "--disable-pip-version-check", str(wheel)),
    ]
    for step in steps:
        done = run(*step)
        if done.returncode != 0:
            return f"{' '.join(step)}: {done.stdout}{done.stderr}"
    python = str(venv / "bin" / "python")
    version_line = run(python, "-m", "fief", "--version")
    library = re.escape(str(venv))
    pattern = (rf"fief {re.escape(fief.__version__)} \(libfief {re.escape(fief.library_version())}, "
               rf"{library}/lib/python{version[0]}\.{version[1]}/site-packages/fief/libfief\.so\)\n")
    if version_line.returncode != 0 or not re.fullmatch(pattern, version_line.stdout):
        return f"python -m fief --version: {version_line.stdout!r} {version_line.stderr}"
    program = run(python, "-c", PROGRAM, str(where / "dogs.fief"))
    lines = program.stdout.splitlines()
    if program.returncode != 0 or lines[:1] != ["1 Rex ['good'] 2"] or not lines[1].startswith(str(venv)):
        return f"the program: {program.stdout!r} {program.stderr}"
    return ""


def test_the_wheel_installs_and_runs_on_every_cpython(wheel: Path, tmp_path: Path) -> None:
    interpreters = cpythons()
    versions = [version for _, version in interpreters]
    assert (sys.version_info[0], sys.version_info[1]) in versions
    with ThreadPoolExecutor(max_workers=3) as pool:
        def attempt(index: int) -> Tuple[Tuple[str, Tuple[int, int]], str]:
            exe, version = interpreters[index]
            return (exe, version), _install_and_run(index, exe, version, wheel, tmp_path)

        outcomes = list(pool.map(attempt, range(len(interpreters))))
    failures = [f"{exe} ({version[0]}.{version[1]}): {problem}" for (exe, version), problem in outcomes if problem]
    assert not failures, "\n".join(failures)
    print("installed and ran on", ", ".join(f"{exe} ({v[0]}.{v[1]})" for exe, v in interpreters))
