#!/usr/bin/env bash
# tests/install/test_install.sh BUILD_DIR SOURCE_DIR SANITIZE
# `meson install` into a fresh prefix gives a flopfit that runs from there, a libflopfit with
# its soname, the headers, a .pc that needs nothing the public headers do not, a man page; and a
# program outside the tree builds against it with pkg-config alone.
set -euo pipefail
build=$1 src=$2 sanitize=${3:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

DESTDIR="$tmp/stage" meson install -C "$build" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
libdir=$(meson introspect "$build" --buildoptions |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"))')
# Move the installed tree somewhere else: it must not depend on where it was staged.
P="$tmp/moved"
mv "$tmp/stage$prefix" "$P"
case "$libdir" in /*) libdir=${libdir#"$prefix"/} ;; esac

export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
"$P/bin/flopfit" --version >"$tmp/version" || fail "P/bin/flopfit --version exited $?"
grep -q '^flopfit ' "$tmp/version" || fail "unexpected --version output: $(cat "$tmp/version")"
"$P/bin/flopfit" estimate --model llama-3-8b --device h100 --serve >/dev/null ||
    fail "P/bin/flopfit estimate exited $?"
ls "$P/$libdir"/libflopfit.so.* >/dev/null 2>&1 || fail "no libflopfit.so.N in $P/$libdir"
soname=$(objdump -p "$P/$libdir/libflopfit.so" | awk '/SONAME/ {print $2}')
[[ $soname == libflopfit.so.* ]] || fail "libflopfit has soname '$soname'"
# doc/abi.md: libflopfit.so.0.MINOR before 1.0, libflopfit.so.MAJOR after.
version=$("$P/bin/flopfit" --version | awk '{print $2}')
IFS=. read -r major minor _ <<<"$version"
if [ "$major" = 0 ]; then want=libflopfit.so.0.$minor; else want=libflopfit.so.$major; fi
[ "$soname" = "$want" ] || fail "libflopfit $version has soname '$soname', doc/abi.md says '$want'"
for h in flopfit.h version.h spec.h status.h; do
    [ -f "$P/include/flopfit/$h" ] || fail "header flopfit/$h not installed"
done
[ -f "$P/share/man/man1/flopfit.1" ] || fail "man page not installed"
[ -f "$P/share/bash-completion/completions/flopfit" ] || fail "bash completion not installed"

pc="$P/$libdir/pkgconfig"
[ -f "$pc/flopfit.pc" ] || fail "flopfit.pc not installed"
# An empty PKG_CONFIG_LIBDIR: only flopfit.pc is visible, so a requirement on json-c (or
# anything else) makes the query fail.
export PKG_CONFIG_LIBDIR="$pc" PKG_CONFIG_PATH=
cflags=$(pkg-config --define-variable=prefix="$P" --cflags flopfit) ||
    fail "pkg-config --cflags flopfit failed"
libs=$(pkg-config --define-variable=prefix="$P" --libs flopfit) || fail "pkg-config --libs failed"
san=()
[ "$sanitize" = none ] || san=("-fsanitize=$sanitize")
# shellcheck disable=SC2086
cc -std=c17 -Wall -Wextra -Werror "${san[@]}" $cflags "$src/tests/install/external.c" \
    -o "$tmp/external" $libs -Wl,-rpath,"$P/$libdir" || fail "external program did not build"
"$tmp/external" || fail "external program exited $?"
echo "install test: ok ($P)"
