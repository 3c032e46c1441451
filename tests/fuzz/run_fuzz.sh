#!/usr/bin/env bash
# tests/fuzz/run_fuzz.sh TARGET CORPUS DICT SECONDS — one time-bounded libFuzzer run.
# New inputs go to a scratch folder (the checked-in corpus is only read); a crash leaves its
# input as crash-* in the test's working folder and fails the test: add it to CORPUS.
set -euo pipefail
target=$1 corpus=$2 dict=$3 seconds=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exec "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$dict" -print_final_stats=1 -artifact_prefix="$PWD/" "$work" "$corpus"
