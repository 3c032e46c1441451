#!/usr/bin/env bash
# Format every tracked C file with the checked-in .clang-format (clang-format 14, Debian 12).
#   scripts/format.sh           rewrite files in place
#   scripts/format.sh --check   list unformatted files and exit 1 (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null; then
    echo "format: $cf not found (Debian: apt install clang-format)" >&2
    exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h')
if [ "${1:-}" = --check ]; then
    bad=0
    for f in "${files[@]}"; do
        if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
            echo "format: $f is not formatted (run scripts/format.sh)" >&2
            bad=1
        fi
    done
    exit $bad
fi
"$cf" -i "${files[@]}"
