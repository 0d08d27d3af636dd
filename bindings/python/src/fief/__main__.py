"""``python -m fief --version``: the package's version and the library's.

Prints ``fief <package version> (libfief <library version>, <library path>)``;
exits with status 1 and the reason when the library cannot be loaded or is
of a version this package refuses."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from . import _version, errors


def version_line() -> str:
    from . import _lib

    library = _lib.load()
    return (f"fief {_version.VERSION} (libfief {library.version_string or _version.dotted(library.version_number)}, "
            f"{library.path})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fief",
                                     description="Fief, an embedded live-object database: the Python binding.")
    parser.add_argument("--version", action="store_true",
                        help="print the package's version and the version and path of the libfief it loads")
    options = parser.parse_args(argv)
    if not options.version:
        parser.print_help()
        return 0
    try:
        print(version_line())
    except errors.LibraryError as exc:
        print(f"fief {_version.VERSION}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
