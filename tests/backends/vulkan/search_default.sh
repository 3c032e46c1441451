#!/usr/bin/env bash
# tests/vulkan/search_default.sh — how the CPU (lavapipe) default of the Vulkan matmul space was
# chosen: every candidate below through bench_matmul (verified against the CPU reference, fp32,
# n=1024), each as a fraction of the fp32 peak measured in the same round (the machine is
# shared: absolute rates drift, the ratio within a round much less), then the best few again
# with more rounds, in turn. Prints "median-ratio min max point" sorted.
#   usage: tests/vulkan/search_default.sh BUILD_DIR [rounds1] [rounds2] [finalists]
set -euo pipefail
b=${1:?usage: search_default.sh BUILD_DIR [rounds1] [rounds2] [finalists]}
r1=${2:-2}; r2=${3:-5}; top=${4:-4}
bench="$b/tests/vulkan/bench_vk_matmul"
cands=()
for sga in 0 1; do
  for tm in 4 6 8 12 16; do
    for tn in 8 16; do
      for wx in 8 16 32; do
        [ "$sga" = 0 ] && [ "$tm" -gt 8 ] && continue
        cands+=("path=1,tm=$tm,tn=$tn,wx=$wx,wy=1,bk=0,sga=$sga")
      done
    done
  done
done
# the storage-buffer register kernel at the texel default's tiles, for comparison
cands+=("path=0,tm=8,tn=16,wx=8,wy=1,bk=0,sga=1" "path=0,tm=8,tn=16,wx=8,wy=1,bk=0,sga=0")
stage() { # rounds, points...
  local rounds=$1; shift
  for p in "$@"; do
    local r
    r=$("$bench" 1024 3 --only fp32 --rounds "$rounds" --point "$p" |
          awk '/^ours fp32 .*x peak/ { for (i = 2; i <= NF; i++) if ($i == "peak") print $(i-1) + 0 }' |
          sort -n | tr '\n' ' ')
    if [ -z "$r" ]; then echo "0 0 0 $p (failed)"; continue; fi
    echo "$r" | awk -v p="$p" '{ print $(int((NF+1)/2)), $1, $NF, p }'
  done
}
echo "stage 1: ${#cands[@]} candidates, $r1 rounds each" >&2
stage "$r1" "${cands[@]}" | sort -rn | tee /dev/stderr | head -n "$top" | awk '{print $4}' > "${TMPDIR:-/tmp}/ff_vk_finalists"
mapfile -t fin < "${TMPDIR:-/tmp}/ff_vk_finalists"
echo "stage 2: ${#fin[@]} finalists, $r2 rounds each" >&2
stage "$r2" "${fin[@]}" | sort -rn
