#!/usr/bin/env bash
# Format every tracked C file with the checked-in .clang-format. The tree is formatted so that
# clang-format 14 (Debian 12) and 19 (Debian 13) agree on every file: either checks it.
#   scripts/format.sh           rewrite files in place
#   scripts/format.sh --check   list unformatted files and exit 1 (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null; then
    echo "format: $cf not found (Debian: apt install clang-format)" >&2
    exit 2
fi
version=$("$cf" --version)
major=$(sed -nE 's/.*version ([0-9]+)\..*/\1/p' <<<"$version")
if ! list=$(git ls-files '*.c' '*.h') || [ -z "$list" ]; then
    echo "format: no tracked C files (not a git checkout?): nothing was checked" >&2
    exit 2
fi
mapfile -t files <<<"$list"
if [ "${1:-}" = --check ]; then
    # One clang-format for all files: it names each unformatted one in its messages.
    bad=0
    if ! out=$("$cf" --dry-run --Werror "${files[@]}" 2>&1); then
        bad=1
        names=$(sed -nE 's/^(.+):[0-9]+:[0-9]+: (error|warning): code should be clang-formatted.*/\1/p' \
            <<<"$out" | sort -u)
        if [ -n "$names" ]; then
            while read -r f; do
                echo "format: $f is not formatted (run scripts/format.sh)" >&2
            done <<<"$names"
        else
            echo "format: $cf failed:" >&2
            head -n 20 <<<"$out" >&2
        fi
    fi
    if [ "$bad" = 1 ] && [ "$major" != 14 ] && [ "$major" != 19 ]; then
        echo "format: this is clang-format ${major:-of unknown version}; the tree follows 14 and" \
            "19, so the difference may be this version's" >&2
    fi
    echo "format: ${#files[@]} files checked with $version"
    exit $bad
fi
"$cf" -i "${files[@]}"
