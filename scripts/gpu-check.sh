#!/usr/bin/env bash
# One prepared run on a bare NVIDIA GPU machine (see the device README in shared/):
# flopfit on both backends, then the cuBLAS reference (PyTorch) at the same sizes in the
# same session, and a table of flopfit / cuBLAS. Everything lands under $OUT (default ./out).
#
#   scripts/gpu-check.sh [build-dir]      (build-dir defaults to build)
#   scripts/gpu-check.sh build-dir ops    a second call, when device time is left: the op
#                                         kernels instead (below)
#
# Expects a build made on Debian 12 and the runtime .debs in .devlibs/ (libvulkan1,
# ocl-icd-libopencl1, libclblast1, libjson-c5): carry both to the machine.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out/results"
log() { echo "== $*" | tee -a "$out/log.txt"; }

for f in .devlibs/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
ldconfig 2>/dev/null || true
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
if [ ! -d /etc/OpenCL/vendors ] || ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    lib=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 \
        /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -1)
    if [ -n "$lib" ]; then mkdir -p /etc/OpenCL/vendors && echo "$lib" >/etc/OpenCL/vendors/nvidia.icd; fi
fi
nvidia-smi >"$out/nvidia-smi.txt" 2>&1 || true

# ops: a model's serving ops on every backend, then decode attention across its parts (work-
# groups per KV head, merged by the last): their default on a GPU is reasoned from its compute
# units, not measured. Each bench prints its read bandwidth beside the op's; the sweep stops
# at its own deadline so the call stays within the device's per-command limit.
if [ "${2:-}" = ops ]; then
    log ops
    timeout 240 "$build/flopfit" bench --model llama-3-8b --serve --quick \
        --output-dir "$out/results" 2>&1 | tee "$out/ops.txt"
    log decode attention across parts
    end=$((SECONDS + 240))
    for p in 1 2 4 8 16 32 64; do
        [ "$SECONDS" -lt "$end" ] || { echo "parts sweep: out of time before parts=$p"; break; }
        echo "-- parts=$p"
        timeout 60 "$build/tests/backends/opencl/bench_ops" --only attn_decode --tune "parts=$p" \
            --cold 1
        timeout 60 "$build/tests/backends/vulkan/bench_vk_ops" --only decode --point "parts=$p" \
            --unpaired
    done 2>&1 | tee "$out/parts.txt"
    exit 0
fi

sizes=1024,2048,4096,8192
log devices
"$build/flopfit" devices 2>&1 | tee "$out/devices.txt"
log bench
timeout 420 "$build/flopfit" bench --sizes $sizes --output-dir "$out/results" \
    --memory-limit 140G 2>&1 | tee "$out/bench.txt"

log cuBLAS reference
python3 - "$sizes" >"$out/cublas.json" 2>"$out/cublas.err" <<'PY'
import json, sys, torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "matmul": {}}
def timeit(fn, reps=20):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    ts.sort(); return ts[len(ts) // 2]
for n in [int(x) for x in sys.argv[1].split(",")]:
    for name, dt in (("fp32", torch.float32), ("fp16", torch.float16)):
        a = torch.rand(n, n, device="cuda", dtype=dt) - 0.5
        b = torch.rand(n, n, device="cuda", dtype=dt) - 0.5
        t = timeit(lambda: torch.matmul(a, b))
        res["matmul"][f"{name}/{n}"] = 2 * n**3 / t
    a = torch.randint(-128, 127, (n, n), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 127, (n, n), device="cuda", dtype=torch.int8)
    try:
        t = timeit(lambda: torch._int_mm(a, b))
        res["matmul"][f"int8/{n}"] = 2 * n**3 / t
    except Exception as e:
        res["matmul"][f"int8/{n}"] = None; res["int8_error"] = str(e)
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
t = timeit(lambda: y.copy_(x))
res["copy_bytes_per_s"] = 2 * x.numel() / t  # bytes read + written
print(json.dumps(res, indent=1))
PY

log ratios
python3 - "$out" <<'PY' | tee "$out/ratios.txt"
import glob, json, os, sys
out = sys.argv[1]
ref = json.load(open(os.path.join(out, "cublas.json")))
print(f"{'backend':8} {'impl':8} {'prec':5} {'n':>5} {'flopfit':>12} {'cuBLAS':>12} {'ratio':>6}")
for f in sorted(glob.glob(os.path.join(out, "results", "*.json"))):
    p = json.load(open(f))
    for t in p["tests"]:
        if t.get("family") != "matmul" or t.get("status") != "ok":
            continue
        key = f"{t['precision']}/{t['shape']['n']}"
        c = ref["matmul"].get(key)
        r = f"{t['value'] / c:.2f}" if c else "-"
        print(f"{p['device']['backend']:8} {t['impl']:8} {t['precision']:5} {t['shape']['n']:>5} "
              f"{t['value'] / 1e12:>9.1f} T {(c or 0) / 1e12:>9.1f} T {r:>6}")
    for t in p["tests"]:
        if t.get("family") == "bandwidth" and t.get("name") == "copy" and t.get("status") == "ok":
            print(f"{p['device']['backend']:8} copy bandwidth {t['value'] / 1e9:.0f} GB/s vs "
                  f"torch copy {ref['copy_bytes_per_s'] / 1e9:.0f} GB/s")
PY
