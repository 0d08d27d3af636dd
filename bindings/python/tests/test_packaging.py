"""Packaging: `pip install ./bindings/python` into a fresh virtual environment
gives a package that carries its own libfief.so, so `import fief` works with
no environment variable and no system install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BINDING = Path(__file__).resolve().parent.parent

PROGRAM = """
import fief

class Note(fief.Object):
    text: str = ""

with fief.Realm.open(in_memory="packaging", schema=[Note]) as realm:
    with realm.write():
        realm.add(Note(text="carried along"))
    print(realm.objects(Note)[0].text)
print(fief.load_library().path)
"""


def test_pip_install_in_a_fresh_venv_carries_the_library(tmp_path, library):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The wheel bundles the library this suite tests (FIEF_LIBRARY), as a
    # build from the repository bundles the repository's CMake build.
    build_env = dict(os.environ, FIEF_LIBRARY=library.path)
    built = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(BINDING)],
                           env=build_env, cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    env = {k: v for k, v in os.environ.items() if k != "FIEF_LIBRARY"}
    run = subprocess.run([str(python), "-c", PROGRAM], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text, path = run.stdout.split("\n")[:2]
    assert text == "carried along"
    assert path.startswith(str(venv)) and path.endswith("fief/libfief.so"), path
