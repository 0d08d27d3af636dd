#!/usr/bin/env bash
# Build libfief (unless FIEF_LIBRARY is set), install the binding in editable
# mode, and run its pytest suite.  Extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ -z "${FIEF_LIBRARY:-}" ]]; then
    scratch="${FIEF_SCRATCH:-$repo/.build-py}"
    (cd "$repo" && swift build --scratch-path "$scratch" --product fiefc)
    export FIEF_LIBRARY="$scratch/debug/libfiefc.so"
fi
python3 -m pip install -q -e "$here" >/dev/null 2>&1 || true
cd "$here"
exec python3 -m pytest -q "$@"
