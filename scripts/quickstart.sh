#!/usr/bin/env bash
# flopfit quick start on Debian 12 (bookworm) or Debian 13 (trixie).
#   scripts/quickstart.sh         install what is missing, build, benchmark every device
#                                 found (--quick), estimate an example model on the result
#   scripts/quickstart.sh test    same set-up, then the whole test suite (ASan/UBSan build,
#                                 Vulkan validation layer on)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
case "$mode" in
run | test) ;;
*) echo "usage: scripts/quickstart.sh [test]" >&2; exit 2 ;;
esac

. /etc/os-release 2>/dev/null || true
case "${ID:-}:${VERSION_ID:-}" in
debian:12 | debian:13) ;;
*)
    echo "quickstart: this script installs Debian 12 (bookworm) or Debian 13 (trixie) packages;" \
        "this machine is ${PRETTY_NAME:-of an unknown release (no /etc/os-release)}." >&2
    echo "quickstart: install the equivalents of the packages listed in scripts/quickstart.sh," \
        "then build: meson setup build -Dbuildtype=release && ninja -C build" >&2
    exit 2
    ;;
esac

packages=(
    meson ninja-build pkg-config gcc python3 git
    libjson-c-dev                                   # JSON (profiles, configs)
    libssl-dev                                      # SHA-256 of a profile's content hash
    libsqlite3-dev                                  # results --format sqlite
    ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-headers pocl-opencl-icd clinfo
    libclblast-dev                                  # library reference on OpenCL
    libvulkan-dev mesa-vulkan-drivers vulkan-tools  # Vulkan loader + lavapipe
    glslc glslang-tools spirv-tools vulkan-validationlayers
    libcriterion-dev                                # tests
    python3-jsonschema                              # cross-check of results/profile.schema.json
    libopenblas-dev                                 # CPU peer in the matmul benchmark
    openmpi-bin libopenmpi-dev                      # `flopfit bench --mpi` and its tests
    clang-format                                    # the format check in the test suite
    chromium fonts-dejavu-core                      # the results page test (headless)
    clang                                           # libFuzzer for the fuzz stage of `test`
)                                                   # (its runtime is added below)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
updated=false
update() {
    $updated || $sudo apt-get update -qq
    updated=true
}
# The sanitizer and libFuzzer runtime of the release's clang, libclang-rt-N-dev for clang-N:
# read from what the clang package depends on (installed, else the candidate apt would install).
clang_major() {
    local deps
    if installed clang; then
        deps=$(dpkg-query -W -f='${Depends}' clang)
    else
        deps=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: //p')
    fi
    grep -oE '(^|[ ,])clang-[0-9]+' <<<"$deps" | head -n1 | grep -oE '[0-9]+$' || true
}
installed clang || apt-cache show clang >/dev/null 2>&1 || update
major=$(clang_major)
if [ -z "$major" ]; then
    case "$VERSION_ID" in
    12) major=14 ;;
    13) major=19 ;;
    esac
    echo "quickstart: could not read clang's version from apt; Debian $VERSION_ID ships clang $major"
fi
packages+=("libclang-rt-$major-dev")
missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}"
    update
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$mode" = test ]; then
    # Sanitizers on; b_lundef=false because the sanitizer runtime resolves at load.
    dir=build-test
    [ -f "$dir/build.ninja" ] ||
        meson setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
    ninja -C "$dir"
    # Device tests take the machine's devices in turn; the rest run in parallel.
    meson test -C "$dir" --print-errorlogs --num-processes 2
    # Then every parser under libFuzzer for a short fixed time (scripts/fuzz.sh runs longer).
    exec scripts/fuzz.sh "${FF_FUZZ_SECONDS:-60}"
fi

dir=build
[ -f "$dir/build.ninja" ] || meson setup "$dir" -Dbuildtype=release
ninja -C "$dir"
"$dir/flopfit" devices || true
# Profiles go to the per-user data folder, never into the repository (results/ holds only
# curated profiles). Names there are never reused, so what is new after the run is its own.
profiles="${XDG_DATA_HOME:-$HOME/.local/share}/flopfit/profiles"
[[ "$profiles" = /* ]] || profiles="$HOME/.local/share/flopfit/profiles"
mkdir -p "$profiles"
before=$(mktemp)
ls "$profiles"/*.json 2>/dev/null >"$before" || true
rc=0
"$dir/flopfit" bench --quick --output-dir "$profiles" || rc=$?
# An example model on each profile just written. int8 weights: every device runs our int8
# kernel, while fp16/bf16 rates exist only where the device has fp16 (not on PoCL).
ls "$profiles"/*.json 2>/dev/null | grep -vxF -f "$before" | while read -r profile; do
    echo
    echo "quickstart: Llama 3 8B served in int8 on $profile"
    "$dir/flopfit" estimate --model llama-3-8b --serve --precision int8 --prompt 512 \
        --generate 256 --profile "$profile" || echo "quickstart: estimate exited $?"
done
rm -f "$before"
exit $rc
