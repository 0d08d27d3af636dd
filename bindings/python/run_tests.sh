#!/usr/bin/env bash
# Build libfief with CMake (unless FIEF_LIBRARY is set) and run the binding's
# pytest suite with the current python3 (which needs pytest, mypy and
# auditwheel).  Extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ -z "${FIEF_LIBRARY:-}" ]]; then
    cmake -S "$repo" -B "$repo/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$repo/build" --target fief_swift
    export FIEF_LIBRARY="$repo/build/lib/libfief.so"
fi
cd "$here"
exec python3 -m pytest -q -p no:cacheprovider "$@"
