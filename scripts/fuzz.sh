#!/usr/bin/env bash
# Fuzz flopfit's parsers with libFuzzer (clang, ASan+UBSan).
#   scripts/fuzz.sh [SECONDS] [TARGET...]   each target SECONDS (default 600); targets:
#                                           hf_config profile bench_options estimate_argv
#                                           results_writers jschema
# Builds build-fuzz (CC=clang, -Dfuzz=enabled) and runs the targets two at a time on the
# checked-in corpus (tests/fuzz/corpus/<target>/, read only). A crash leaves crash-* in
# build-fuzz/fuzz-findings/: once fixed, copy it into the corpus as found-<what> so every build
# replays it (the fuzz-regress-* tests).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hf_config profile bench_options estimate_argv results_writers jschema gguf)
dir=build-fuzz
if ! command -v clang >/dev/null; then
    echo "fuzz: clang not found (Debian: apt install clang libclang-rt-N-dev, N the major version of clang:" \
        "14 on Debian 12, 19 on Debian 13)" >&2
    exit 2
fi
[ -f "$dir/build.ninja" ] ||
    CC=clang meson setup "$dir" -Dfuzz=enabled -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized >/dev/null
ninja -C "$dir" >/dev/null
mkdir -p "$dir/fuzz-findings"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
rc=0
run() {
    local t=$1
    (cd "$dir/fuzz-findings" &&
        ../../tests/fuzz/run_fuzz.sh "../tests/fuzz/fuzz_$t" "../../tests/fuzz/corpus/$t" \
            "../../tests/fuzz/$t.dict" "$seconds" >"$t.log" 2>&1) &&
        echo "fuzz: $t: $(grep -E 'stat::number_of_executed_units' "$dir/fuzz-findings/$t.log" |
            awk '{print $2}') runs, no crash" ||
        { echo "fuzz: $t FAILED, see $dir/fuzz-findings/$t.log" >&2; return 1; }
}
pids=()
for t in "${targets[@]}"; do
    run "$t" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}" || rc=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
