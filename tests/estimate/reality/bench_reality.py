#!/usr/bin/env python3
"""Ground truth for flopfit's predictions: real frameworks on the same silicon.

Installs its peers at run time into a cache folder (nothing of theirs is in the
repository): llama.cpp, from the llama-cpp-python sdist on PyPI, built with CMake
for the CPU (GGML_NATIVE) and for Vulkan; the `gguf` package from PyPI, in a venv,
to write random-weight Llama GGUF models; PyTorch from PyPI, in a venv of its own, for
training steps. Measures llama-bench prefill/decode and PyTorch train steps, asks
`flopfit estimate` for the same cases and prints measured against predicted.

Every stage that fails is recorded and the rest goes on; the exit status is non-zero
only when nothing could be measured.

Internal sub-commands (run under another interpreter): --_make-gguf, --_train.
"""

import argparse
import hashlib
import datetime
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import traceback

LLAMA_CPP_PYTHON_VERSION = "0.3.36"   # the sdist that carries vendor/llama.cpp
GGUF_PY_VERSION = "0.19.0"            # PyPI gguf, to write the random models
TORCH_VERSION = "2.5.1"               # PyPI torch: MKL and AVX-512 kernels, SDPA, fused AdamW
SCHEMA = "flopfit-reality/1"
MODEL_POSITIONS = 2048                 # the random models' context (max_position_embeddings)
CPU_PROMPT, CPU_GEN = 512, 128         # llama-bench -p / -n of the CPU cases

# Llama-architecture shapes. Field names are Hugging Face's LlamaConfig ones.
def _shape(h, ffn, layers, heads, kv, vocab=32000):
    return dict(hidden_size=h, intermediate_size=ffn, num_hidden_layers=layers,
                num_attention_heads=heads, num_key_value_heads=kv, vocab_size=vocab)

SERVE_MODELS = {                       # llama.cpp (GGUF)
    "llama-134m": _shape(768, 2048, 12, 12, 12),
    "llama-1.1b": _shape(2048, 5632, 22, 32, 4),      # TinyLlama
    "llama-2.7b": _shape(2560, 6912, 32, 32, 32),
}
TRAIN_MODELS = {                       # PyTorch
    "llama-35m": _shape(384, 1024, 6, 6, 6),
    "llama-134m": _shape(768, 2048, 12, 12, 12),
    "llama-374m": _shape(1024, 2816, 24, 16, 16),
}
QUICK_SERVE = ["llama-134m"]
QUICK_TRAIN = ["llama-35m"]
FORMAT_TO_PRECISION = {"f16": "fp16", "q8_0": "q8_0", "q4_0": "q4_0", "f32": "fp32"}


def hf_config(shape, dtype="float16"):
    c = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_act": "silu",
        "max_position_embeddings": MODEL_POSITIONS,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "mlp_bias": False,
        "torch_dtype": dtype,
        "bos_token_id": 1,
        "eos_token_id": 2,
    }
    c.update(shape)
    c["head_dim"] = shape["hidden_size"] // shape["num_attention_heads"]
    return c


def param_count(shape):
    h, f, L = shape["hidden_size"], shape["intermediate_size"], shape["num_hidden_layers"]
    nh, kv, v = shape["num_attention_heads"], shape["num_key_value_heads"], shape["vocab_size"]
    hd = h // nh
    attn = h * nh * hd + 2 * h * kv * hd + nh * hd * h
    mlp = 3 * h * f
    return 2 * v * h + L * (attn + mlp + 2 * h) + h


# ----------------------------------------------------------------------------------
# small helpers

def log(msg):
    print(f"[reality {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def nproc():
    try:
        return len(os.sched_getaffinity(0))
    except Exception:
        return os.cpu_count() or 1


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    fl = line.split(":", 1)[1].split()
                    return [x for x in fl if x.startswith(("avx", "amx", "fma", "f16c"))]
    except OSError:
        pass
    return []


def openblas_coretype():
    """The OpenBLAS kernel set this CPU's instruction set supports, for OPENBLAS_CORETYPE.
    OpenBLAS's runtime dispatch (Debian builds DYNAMIC_ARCH) picks by CPU model number; a
    virtual CPU that hides the model ("Intel Xeon Processor") falls back to Prescott's SSE3
    kernels, 2x slower than SKYLAKEX here: a peer not at its best. The user's setting wins."""
    if os.environ.get("OPENBLAS_CORETYPE"):
        return os.environ["OPENBLAS_CORETYPE"]
    fl = set(cpu_flags())
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= fl:
        return "SKYLAKEX"
    if {"avx2", "fma"} <= fl:
        return "HASWELL"
    return None


def run(cmd, log_path=None, timeout=None, env=None, cwd=None, check=True):
    """Runs cmd; its output goes to log_path (appended) and is returned."""
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout, env=env, cwd=cwd)
    if log_path:
        with open(log_path, "a") as f:
            f.write(f"$ {shlex.join(cmd)}\n{p.stdout}\n[rc={p.returncode} {time.time() - t0:.1f}s]\n")
    if check and p.returncode != 0:
        lines = p.stdout.strip().splitlines()
        first_err = [x for x in lines if "error:" in x or "Error" in x][:3]
        tail = "\n".join(first_err + ["..."] + lines[-8:])
        raise RuntimeError(f"`{shlex.join(cmd)}` exited {p.returncode}:\n{tail}")
    return p


class Stages:
    def __init__(self):
        self.items = []
        self.on_done = None     # called after each stage: the partial report is saved

    def do(self, name, fn, *a, **kw):
        t0 = time.time()
        log(f"stage {name} ...")
        try:
            r = fn(*a, **kw)
            self.items.append({"name": name, "ok": True, "seconds": round(time.time() - t0, 1)})
            log(f"stage {name}: ok ({time.time() - t0:.0f}s)")
            return r
        except Exception as e:  # every stage failing is reported, the rest goes on
            msg = f"{type(e).__name__}: {e}"
            self.items.append({"name": name, "ok": False, "seconds": round(time.time() - t0, 1),
                               "error": msg})
            log(f"stage {name}: FAILED: {msg}")
            if os.environ.get("REALITY_DEBUG"):
                traceback.print_exc()
            return None
        finally:
            if self.on_done:
                try:
                    self.on_done()
                except Exception as e:
                    log(f"could not save the partial report: {e}")


# ----------------------------------------------------------------------------------
# llama.cpp from the llama-cpp-python sdist

def fetch_llama_source(cache, logp):
    src = os.path.join(cache, "src")
    os.makedirs(src, exist_ok=True)
    tarball = os.path.join(src, f"llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}.tar.gz")
    tree = os.path.join(src, f"llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}")
    if not os.path.exists(os.path.join(tree, "vendor", "llama.cpp", "CMakeLists.txt")):
        if not os.path.exists(tarball):
            run([sys.executable, "-m", "pip", "download", "--no-binary", "llama-cpp-python", "--no-deps",
                 "--disable-pip-version-check", "-d", src,
                 f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}"], logp, timeout=900)
        with tarfile.open(tarball) as t:
            if hasattr(tarfile, "data_filter"):
                t.extractall(src, filter="data")
            else:
                t.extractall(src)
    llama = os.path.join(tree, "vendor", "llama.cpp")
    commit = None
    try:  # the sdist's CHANGELOG names the llama.cpp commit of this release
        with open(os.path.join(tree, "CHANGELOG.md")) as f:
            text = f.read()
        sect = text.split(f"## [{LLAMA_CPP_PYTHON_VERSION}]", 1)[1].split("\n## [", 1)[0]
        for tok in sect.replace("@", " @").split():
            if tok.startswith("@") and all(c in "0123456789abcdef" for c in tok[1:].strip(".,)")) \
                    and len(tok) > 7:
                commit = tok[1:].strip(".,)")
                break
    except Exception:
        pass
    return {"tree": tree, "llama_cpp": llama, "llama_cpp_commit": commit,
            "llama_cpp_python": LLAMA_CPP_PYTHON_VERSION,
            "gguf_py": os.path.join(llama, "gguf-py")}


def cmake_build(src, build, flags, targets, logp, jobs):
    bindir = os.path.join(build, "bin")
    if all(os.path.exists(os.path.join(bindir, t)) for t in targets):
        return bindir
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    nice = ["nice", "-n", "10"] if shutil.which("nice") else []
    run(nice + ["cmake", "-S", src, "-B", build] + gen + [
        "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF",
        "-DBUILD_SHARED_LIBS=OFF"] + flags, logp, timeout=900)
    run(nice + ["cmake", "--build", build, "-j", str(jobs), "--target"] + targets,
        logp, timeout=7200)
    return bindir


# AMX compiled out of a -march=native build: explicit -mno-* flags win over -march
NO_AMX_FLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"


def cpu_smoke_rc(bindir, gguf_path, logp):
    """The exit code of one tiny llama-bench run of gguf_path (negative: killed by that
    signal)."""
    _, p = llama_bench_run(os.path.join(bindir, "llama-bench"), gguf_path, 1, 8, 2, 1, [], None,
                           logp, timeout=900)
    return p.returncode


def cpu_build_that_runs(src, cache, cpu_bin, gguf_path, logp, jobs):
    """cpu_bin, or, where its quantized matrix products die on this machine and the CPU has
    AMX, a build with AMX compiled out (the next best path: AVX-512 and the repacked
    quantized kernels), with the reason. llama.cpp's AMX path crashes on some machines with
    AMX (ggml_backend_amx_mul_mat, llama.cpp issue #20824); a peer that dies is no peer."""
    rc = cpu_smoke_rc(cpu_bin, gguf_path, logp)
    if rc == 0:
        return cpu_bin, None
    if rc > 0 or not any(f.startswith("amx") for f in cpu_flags()):
        raise RuntimeError(f"llama-bench exited {rc} on a {os.path.basename(gguf_path)} smoke run")
    bindir = cmake_build(src, os.path.join(cache, "build", f"llama.cpp-{LLAMA_CPP_PYTHON_VERSION}"
                                                           f"-cpu-noamx"),
                         ["-DGGML_NATIVE=ON", f"-DCMAKE_C_FLAGS={NO_AMX_FLAGS}",
                          f"-DCMAKE_CXX_FLAGS={NO_AMX_FLAGS}"], ["llama-bench"], logp, jobs)
    rc2 = cpu_smoke_rc(bindir, gguf_path, logp)
    if rc2 != 0:
        raise RuntimeError(f"llama-bench exited {rc} and, built without AMX, {rc2} on a "
                           f"{os.path.basename(gguf_path)} smoke run")
    return bindir, (f"built without AMX ({NO_AMX_FLAGS}): the -march=native build died with "
                    f"signal {-rc} in its first quantized run (ggml_backend_amx_mul_mat; "
                    f"llama.cpp issue #20824)")


def ensure_packages(checks, purpose, logp):
    """Installs the Debian packages of checks (package -> test) whose test fails, with apt
    when run as root; raises, naming them, when some are still missing."""
    missing = [k for k, ok in checks.items() if not ok()]
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        run(["apt-get", "install", "-y"] + missing, logp, timeout=900, env=env)
        missing = [k for k in missing if not checks[k]()]
    if missing:
        raise RuntimeError(f"missing for {purpose}: " + ", ".join(missing))


def ensure_build_tools(logp):
    """cmake and a C++ compiler for llama.cpp (Debian: cmake, g++; make comes with cmake)."""
    ensure_packages({"cmake": lambda: shutil.which("cmake") is not None,
                     "g++": lambda: shutil.which("g++") is not None or shutil.which("c++") is not None},
                    "the llama.cpp build", logp)
    return True


def ensure_vulkan_tools(logp):
    """glslc, the Vulkan headers and SPIRV-Headers' CMake package (Debian: glslc,
    libvulkan-dev, spirv-headers), installed with apt when missing and run as root."""
    checks = {
        "glslc": lambda: shutil.which("glslc") is not None,
        "libvulkan-dev": lambda: os.path.exists("/usr/include/vulkan/vulkan.h"),
        "spirv-headers": lambda: any(os.path.exists(p) for p in (
            "/usr/share/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake",
            "/usr/lib/x86_64-linux-gnu/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake",
            "/usr/local/share/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake")),
    }
    ensure_packages(checks, "the Vulkan build", logp)


def check_vulkan_headers(llama_src):
    """Fails fast (instead of half an hour into the build) where ggml-vulkan uses a
    Vulkan extension that the installed headers do not declare."""
    core = "/usr/include/vulkan/vulkan_core.h"
    try:
        hdr = open(core, errors="replace").read()
        src = open(os.path.join(llama_src, "ggml", "src", "ggml-vulkan", "ggml-vulkan.cpp"),
                   errors="replace").read()
    except OSError:
        return
    ver = None
    for line in hdr.splitlines():
        if line.startswith("#define VK_HEADER_VERSION "):
            ver = line.split()[-1]
    for sym, ext in (("LayerSettingEXT", "VK_EXT_layer_settings"),):
        if f"vk::{sym}" in src and f"Vk{sym}" not in hdr:
            raise RuntimeError(
                f"ggml-vulkan at this llama.cpp commit uses {ext} (vk::{sym}), which the "
                f"installed Vulkan headers ({core}, VK_HEADER_VERSION {ver}) do not declare "
                f"(Debian 12 ships 1.3.239): it would not compile")


# ----------------------------------------------------------------------------------
# random-weight GGUF models (runs under the venv's interpreter, which has gguf+numpy)

def make_gguf_main(args):
    import numpy as np
    import gguf

    cfg = json.load(open(args.config))
    h, f, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    nh, kv, V = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]
    hd = h // nh
    dtype = np.float16 if args.dtype == "f16" else np.float32
    rng = np.random.default_rng(1234)
    pool = (rng.standard_normal(1 << 22, dtype=np.float32) * 0.02).astype(dtype)

    def rand(shape):
        n = int(np.prod(shape))
        off = int(rng.integers(0, pool.size))
        return np.resize(np.roll(pool, -off), n).reshape(shape)

    tensors = [("token_embd.weight", (V, h), "w")]
    for i in range(L):
        p = f"blk.{i}."
        tensors += [(p + "attn_norm.weight", (h,), "one"),
                    (p + "attn_q.weight", (nh * hd, h), "w"),
                    (p + "attn_k.weight", (kv * hd, h), "w"),
                    (p + "attn_v.weight", (kv * hd, h), "w"),
                    (p + "attn_output.weight", (h, nh * hd), "w"),
                    (p + "ffn_norm.weight", (h,), "one"),
                    (p + "ffn_gate.weight", (f, h), "w"),
                    (p + "ffn_up.weight", (f, h), "w"),
                    (p + "ffn_down.weight", (h, f), "w")]
    tensors += [("output_norm.weight", (h,), "one"), ("output.weight", (V, h), "w")]

    w = gguf.GGUFWriter(args.out + ".part", "llama")
    w.add_name(args.name)
    w.add_context_length(cfg.get("max_position_embeddings", MODEL_POSITIONS))
    w.add_embedding_length(h)
    w.add_block_count(L)
    w.add_feed_forward_length(f)
    w.add_head_count(nh)
    w.add_head_count_kv(kv)
    w.add_rope_dimension_count(hd)
    w.add_rope_freq_base(float(cfg.get("rope_theta", 10000.0)))
    w.add_layer_norm_rms_eps(float(cfg.get("rms_norm_eps", 1e-5)))
    w.add_vocab_size(V)
    w.add_file_type(int(gguf.LlamaFileType.MOSTLY_F16 if args.dtype == "f16"
                        else gguf.LlamaFileType.ALL_F32))
    # A SentencePiece-style vocabulary of the right size: <unk> <s> </s>, the 256
    # byte tokens, then made-up pieces (llama-bench feeds random token ids).
    toks = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] \
        + [gguf.TokenType.BYTE] * 256
    k = 0
    while len(toks) < V:
        toks.append(f"\u2581t{k}")
        types.append(gguf.TokenType.NORMAL)
        k += 1
    w.add_tokenizer_model("llama")
    w.add_token_list(toks)
    w.add_token_scores([0.0] * 3 + [0.0] * 256 + [-float(i) for i in range(V - 259)])
    w.add_token_types([int(t) for t in types])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)

    for name, shape, kind in tensors:
        td = np.float32 if kind == "one" else dtype      # norms stay F32, as convert does
        nbytes = int(np.prod(shape)) * np.dtype(td).itemsize
        w.add_tensor_info(name, shape, np.dtype(td), nbytes)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    for name, shape, kind in tensors:
        if kind == "one":
            w.write_tensor_data(np.ones(shape, dtype=np.float32))
        else:
            w.write_tensor_data(rand(shape))
    w.close()
    os.replace(args.out + ".part", args.out)
    return 0


def ensure_venv(cache, name, check, packages, logp, timeout):
    """The python of venv CACHE/NAME, made and given PACKAGES from PyPI unless the code
    CHECK already runs there."""
    venv = os.path.join(cache, name)
    py = os.path.join(venv, "bin", "python")
    ok = os.path.exists(py) and subprocess.run(
        [py, "-c", check], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if not ok:
        run([sys.executable, "-m", "venv", venv], logp, timeout=300)
        run([py, "-m", "pip", "install", "--disable-pip-version-check", "-q", *packages], logp,
            timeout=timeout)
    return py


def ensure_gguf(cache, logp):
    return ensure_venv(cache, "venv",
                       f"import gguf, numpy, importlib.metadata as m; "
                       f"assert m.version('gguf') == '{GGUF_PY_VERSION}'",
                       [f"gguf=={GGUF_PY_VERSION}"], logp, 900)


def make_models(cache, names, formats, venv_py, quantize, logp, jobs):
    """Per model: config.json, the F16 GGUF and the quantized ones. Returns
    {model: {"config": path, "gguf": {fmt: path}}}."""
    out = {}
    for name in names:
        d = os.path.join(cache, "models", name)
        os.makedirs(d, exist_ok=True)
        cfg = os.path.join(d, "config.json")
        with open(cfg, "w") as f:
            json.dump(hf_config(SERVE_MODELS[name]), f, indent=2)
        ent = {"config": cfg, "gguf": {}, "errors": {}}
        f16 = os.path.join(d, f"{name}-f16.gguf")
        try:
            if not os.path.exists(f16):
                run([venv_py, os.path.abspath(__file__), "--_make-gguf", "--config", cfg,
                     "--out", f16, "--name", name, "--dtype", "f16"], logp, timeout=3600)
            if "f16" in formats:
                ent["gguf"]["f16"] = f16
        except Exception as e:
            ent["errors"]["f16"] = str(e)
            out[name] = ent
            continue
        for fmt in formats:
            if fmt == "f16":
                continue
            q = os.path.join(d, f"{name}-{fmt}.gguf")
            try:
                if not os.path.exists(q):
                    if not quantize:
                        raise RuntimeError("no llama-quantize (the llama.cpp build failed)")
                    run(["nice", "-n", "10", quantize, f16, q + ".part", fmt.upper(), str(jobs)],
                        logp, timeout=3600)
                    os.replace(q + ".part", q)
                ent["gguf"][fmt] = q
            except Exception as e:
                ent["errors"][fmt] = str(e)
        out[name] = ent
    return out


def llama_bench_run(binary, gguf_path, threads, prompt, gen, reps, extra, env, logp, timeout):
    """One llama-bench invocation (JSON output), logged; returns the command and the finished
    process, whatever its exit code."""
    cmd = [binary, "-m", gguf_path, "-p", str(prompt), "-n", str(gen), "-r", str(reps),
           "-t", str(threads), "-o", "json"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=env)
    with open(logp, "a") as f:
        f.write(f"$ {shlex.join(cmd)}\n{p.stderr[-4000:]}\n{p.stdout}\n[rc={p.returncode}]\n")
    return cmd, p


def llama_bench(binary, gguf_path, threads, prompt, gen, reps, extra, env, logp, timeout):
    cmd, p = llama_bench_run(binary, gguf_path, threads, prompt, gen, reps, extra, env, logp,
                             timeout)
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-10:])
        raise RuntimeError(f"llama-bench exited {p.returncode}: {tail}")
    txt = p.stdout
    return cmd, json.loads(txt[txt.index("["):])


def spread_of(samples):
    if not samples:
        return None
    med = statistics.median(samples)
    return {"n": len(samples), "min": min(samples), "max": max(samples), "median": med,
            "stdev": statistics.stdev(samples) if len(samples) > 1 else 0.0,
            "rel_range": (max(samples) - min(samples)) / med if med else None}


# ----------------------------------------------------------------------------------
# PyTorch training steps (runs under an interpreter that has torch)

def train_main(args):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    cfg = json.load(open(args.config))
    torch.set_num_threads(int(str(args.threads).split(",")[0]))
    torch.manual_seed(0)
    h, ff, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    nh, kv, V = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]
    hd, eps, theta = h // nh, cfg["rms_norm_eps"], cfg["rope_theta"]

    # The framework at its best: the fused attention kernel (flash attention on the CPU) and
    # the fused AdamW where this torch has them; older ones run the explicit forms.
    sdpa = hasattr(F, "scaled_dot_product_attention")

    class RMSNorm(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(n))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * self.weight

    def rope_tables(seq):
        inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        fr = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
        emb = torch.cat([fr, fr], dim=-1)
        return emb.cos()[None, None], emb.sin()[None, None]

    def rot_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat([-b, a], dim=-1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn_norm, self.mlp_norm = RMSNorm(h), RMSNorm(h)
            self.q = nn.Linear(h, nh * hd, bias=False)
            self.k = nn.Linear(h, kv * hd, bias=False)
            self.v = nn.Linear(h, kv * hd, bias=False)
            self.o = nn.Linear(nh * hd, h, bias=False)
            self.gate = nn.Linear(h, ff, bias=False)
            self.up = nn.Linear(h, ff, bias=False)
            self.down = nn.Linear(ff, h, bias=False)

        def forward(self, x, cos, sin, mask):
            B, S, _ = x.shape
            y = self.attn_norm(x)
            q = self.q(y).view(B, S, nh, hd).transpose(1, 2)
            k = self.k(y).view(B, S, kv, hd).transpose(1, 2)
            v = self.v(y).view(B, S, kv, hd).transpose(1, 2)
            q = q * cos + rot_half(q) * sin
            k = k * cos + rot_half(k) * sin
            if kv != nh:
                k = k.repeat_interleave(nh // kv, dim=1)
                v = v.repeat_interleave(nh // kv, dim=1)
            if sdpa:
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)) + mask
                a = att.softmax(dim=-1) @ v
            x = x + self.o(a.transpose(1, 2).reshape(B, S, nh * hd))
            y = self.mlp_norm(x)
            return x + self.down(F.silu(self.gate(y)) * self.up(y))

    class Llama(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(V, h)
            self.blocks = nn.ModuleList([Block() for _ in range(L)])
            self.norm = RMSNorm(h)
            self.head = nn.Linear(h, V, bias=False)

        def forward(self, ids):
            S = ids.shape[1]
            cos, sin = rope_tables(S)
            mask = None if sdpa else torch.full((S, S), float("-inf")).triu(1)
            x = self.embed(ids)
            for b in self.blocks:
                x = b(x, cos, sin, mask)
            return self.head(self.norm(x))

    model = Llama()
    n_params = sum(p.numel() for p in model.parameters())
    # AdamW's fused CPU kernel arrived in torch 2.4.
    fused = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"fused": True} if fused else {}))
    ids = torch.randint(0, V, (args.batch, args.seq + 1))
    x, y = ids[:, :-1], ids[:, 1:]
    times = []
    for i in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        loss.backward()
        opt.step()
        dt = time.perf_counter() - t0
        if i >= args.warmup:
            times.append(dt)
        print(f"step {i} {'(warm-up) ' if i < args.warmup else ''}{dt:.3f}s loss {loss.item():.3f}",
              file=sys.stderr, flush=True)
    cap = getattr(torch.backends.cpu, "get_cpu_capability", lambda: None)()
    print(json.dumps({"params": n_params, "step_s": times, "torch": torch.__version__,
                      "threads": torch.get_num_threads(), "loss": loss.item(),
                      "attention": "sdpa" if sdpa else "explicit",
                      "adamw": "fused" if fused else "default",
                      "mkl": torch.backends.mkl.is_available(), "cpu_capability": cap}))
    return 0


def ensure_torch(cache, logp, python=None):
    """The interpreter that runs the training steps: PYTHON when given (--torch-python), else
    a venv in the cache with PyPI's torch TORCH_VERSION, made once. PyPI's x86-64 wheel
    carries MKL and AVX-512 kernels, flash attention and the fused AdamW; Debian 12's
    python3-torch (1.13) has neither the fused kernels nor AVX-512 dispatch and was 1.6x
    slower a step here. PyPI's Linux wheel brings CUDA libraries it imports at start-up
    (about 5 GB in the venv); the CPU runs without using them."""
    if python:
        if subprocess.run([python, "-c", "import torch"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            raise RuntimeError(f"--torch-python {python}: cannot import torch")
        return python
    return ensure_venv(cache, "torch-venv",
                       f"import torch; assert torch.__version__.split('+')[0] == '{TORCH_VERSION}'",
                       [f"torch=={TORCH_VERSION}", "numpy"], logp, 3600)


# ----------------------------------------------------------------------------------
# flopfit's predictions. One small function per figure: the bottom-up block when the
# estimate has one, else the top-down serving / training figures.

def _num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _bottom_up(est, key):
    bu = est.get("bottom_up") if isinstance(est, dict) else None
    return _num(bu.get(key)) if isinstance(bu, dict) else None


def _pick(bu, td):
    return {"bottom_up": bu, "top_down": td,
            "path": "bottom_up" if bu is not None else ("top_down" if td is not None else None)}


def predicted_prefill_tokens_per_s(est):
    """Top-down: plan.prompt / serve.prefill_seconds."""
    s, plan = est.get("serve") or {}, est.get("plan") or {}
    sec, prompt = _num(s.get("prefill_seconds")), _num(plan.get("prompt"))
    td = prompt / sec if sec and prompt else None
    return _pick(_bottom_up(est, "prefill_tokens_per_s"), td)


def predicted_decode_tokens_per_s(est):
    """Top-down: 1 / serve.decode_seconds_per_token (= serve.tokens_per_second_per_user)."""
    s = est.get("serve") or {}
    sec = _num(s.get("decode_seconds_per_token"))
    td = 1.0 / sec if sec else _num(s.get("tokens_per_second_per_user"))
    return _pick(_bottom_up(est, "decode_tokens_per_s"), td)


def predicted_train_step_s(est):
    """Top-down: step.seconds."""
    td = _num((est.get("step") or {}).get("seconds"))
    return _pick(_bottom_up(est, "train_step_s"), td)


def flopfit_estimate(flopfit, case, profile, logp):
    if case["kind"] == "train":
        cmd = [flopfit, "estimate", "--model", case["config"], "--train", "--precision", "fp32",
               "--grad-precision", "fp32", "--optimizer", "adamw", "--batch", str(case["batch"]),
               "--seq", str(case["seq"]), "--accum", "1", "--gpus", "1",
               "--tokens", str(case["batch"] * case["seq"] * 10), "--profile", profile, "--json"]
    else:
        inv = case.get("invocation") or {"prompt": case.get("prompt") or CPU_PROMPT,
                                         "gen": case.get("gen") or CPU_GEN}
        cmd = [flopfit, "estimate", "--model", case["config"], "--serve", "--precision",
               FORMAT_TO_PRECISION[case["format"]], "--batch", "1",
               # the whole llama-bench invocation (-p P -n G): its pp case reads the
               # prefill figure, its tg case the decode one
               # llama-bench's tg test generates from an empty context (n_prompt 0), or with
               # -d from a context of n_depth positions: decode is predicted after a prompt of
               # that many tokens (at least 1)
               "--prompt", str(inv["prompt"] if case["kind"] == "prefill" else
                               max(1, inv.get("depth") or 0)),
               "--generate", str(inv["gen"]),
               "--kv-precision", "fp16",  # llama.cpp's default KV cache type
               "--profile", profile, "--json"]
    p = run(cmd, logp, timeout=300, check=False)
    txt = p.stdout
    try:  # exit 1 with a JSON answer: the plan does not fit; the times are still there
        est = json.loads(txt[txt.index("{"):txt.rindex("}") + 1])
    except ValueError:
        raise RuntimeError(f"flopfit estimate exited {p.returncode}: {txt.strip()[-400:]}")
    if case["kind"] == "train":
        fig = predicted_train_step_s(est)
    elif case["kind"] == "prefill":
        fig = predicted_prefill_tokens_per_s(est)
    else:
        fig = predicted_decode_tokens_per_s(est)
    fig["command"] = shlex.join(cmd)
    fig["profile"] = profile
    fig["exit_status"] = p.returncode
    fig["fits"] = est.get("fits")
    # predicted speed over measured speed (> 1: flopfit is optimistic)
    meas = case.get("tokens_per_s") if case["kind"] != "train" else case.get("step_s")
    for k in ("bottom_up", "top_down"):
        v = fig[k]
        r = None
        if v and meas:
            r = v / meas if case["kind"] != "train" else meas / v
        fig[f"ratio_{k}"] = r
    return fig


def flopfit_build_id(flopfit):
    """A short name of the flopfit build: the SHA-256 of its executable and of the libflopfit
    it loads (the kernels' sources are compiled into the library; --version's git revision is
    fixed at configure time), so that profiles cached by one build are not reused by another."""
    exe = shutil.which(flopfit) or flopfit
    files = [exe]
    try:
        out = subprocess.run(["ldd", exe], capture_output=True, text=True, timeout=60).stdout
        files += [ln.split("=>")[1].split("(")[0].strip() for ln in out.splitlines()
                  if "libflopfit" in ln and "=>" in ln]
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    h = hashlib.sha256()
    try:
        for path in files:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    except OSError:
        return "unknown"
    return h.hexdigest()[:12]


def ensure_model_profile(flopfit, cache, api, case, logp):
    """A profile of the case's model's own ops on the device (flopfit bench --model), made once
    per flopfit build, device, model and task into the cache: the bottom-up estimate's measured
    terms."""
    d = os.path.join(cache, "profiles")
    train = case["kind"] == "train"
    name = f"{api}-{case['model']}-{'train' if train else 'serve'}-{flopfit_build_id(flopfit)}.json"
    out = os.path.join(d, name)
    if os.path.exists(out):
        return out
    os.makedirs(d, exist_ok=True)
    cmd = [flopfit, "bench", "--model", case["config"], "--backend", api, "--device", f"{api}:0",
           "--output", out]
    if train:
        cmd += ["--train", "--weights", "fp32", "--batch", str(case["batch"]),
                "--seq", str(case["seq"])]
    else:
        cmd += ["--serve", "--weights", "q8_0,q4_0,fp16", "--kv", "fp16", "--seq", "512"]
    p = run(cmd, logp, timeout=3600, check=False)
    if not os.path.exists(out):
        raise RuntimeError(f"flopfit bench --model exited {p.returncode}: "
                           f"{(p.stdout or '').strip()[-400:]}")
    return out


def ensure_profiles(flopfit, cache, given, logp):
    """The profiles given, or quick ones made once into the cache."""
    prof = {k: v for k, v in given.items() if v}
    if len(prof) == 2 or not flopfit:
        return prof
    d = os.path.join(cache, "profiles")
    for api in ("opencl", "vulkan"):
        if api in prof:
            continue
        out = os.path.join(d, f"{api}-{flopfit_build_id(flopfit)}.json")
        if not os.path.exists(out):
            os.makedirs(d, exist_ok=True)
            p = run([flopfit, "bench", "--quick", "--backend", api, "--device", f"{api}:0",
                     "--output", out], logp, timeout=900, check=False)
            if p.returncode != 0 or not os.path.exists(out):
                log(f"no {api} profile: flopfit bench exited {p.returncode}")
                continue
        prof[api] = out
    return prof


# ----------------------------------------------------------------------------------
# reporting

def fmt_num(x, unit=""):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}{unit}"
    if abs(x) >= 10:
        return f"{x:.1f}{unit}"
    return f"{x:.3g}{unit}"


def table_rows(cases):
    rows = []
    for c in cases:
        pred = c.get("predicted") or {}
        if c["kind"] == "train":
            meas = fmt_num(c.get("step_s"), " s/step")
            unit = " s/step"
        else:
            meas = fmt_num(c.get("tokens_per_s"), " tok/s")
            unit = " tok/s"
        sp = c.get("spread") or {}
        rows.append([
            c["framework"], c["backend"], c["model"], f"{c['params'] / 1e6:.0f}M", c["format"],
            c["kind"], c.get("shape", ""), meas,
            f"{100 * sp['rel_range']:.0f}%" if sp.get("rel_range") is not None else "-",
            fmt_num(pred.get("bottom_up"), unit), fmt_num(pred.get("top_down"), unit),
            fmt_num(pred.get("ratio_bottom_up")), fmt_num(pred.get("ratio_top_down")),
            pred.get("path") or "-"])
    return rows


HEAD = ["framework", "backend", "model", "params", "format", "kind", "shape", "measured",
        "spread", "pred bottom-up", "pred top-down", "pred/meas BU", "pred/meas TD", "path"]


def print_table(cases):
    rows = [HEAD] + table_rows(cases)
    w = [max(len(str(r[i])) for r in rows) for i in range(len(HEAD))]
    for j, r in enumerate(rows):
        print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)))
        if j == 0:
            print("  ".join("-" * w[i] for i in range(len(HEAD))))


def markdown(report):
    L = [f"# Reality peers: measured on {report['host']['cpu_model']}", "",
         f"Date: {report['date']}  ", f"Host: {report['host']['nproc']} CPUs "
         f"({', '.join(report['host']['cpu_flags'])}), {report['host']['os']}  ",
         "Versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items() if v) + "  ",
         f"Load average at the start: {report['host'].get('loadavg_at_start')}; per case "
         "(before, after) in the JSON (`loadavg_before_after`)", "",
         "Ratios are predicted speed over measured speed (for train steps: measured step time "
         "over predicted); above 1, flopfit is optimistic. Spread: (max-min)/median of the "
         "repetitions.", "",
         "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for r in table_rows(report["cases"]):
        L.append("| " + " | ".join(str(x) for x in r) + " |")
    L += ["", "## Stages", ""]
    def stage_lines(items, ind):
        for s in items or []:
            err = (s.get("error") or "").replace("\n", " / ")
            L.append(f"{ind}- {s['name']}: {'ok' if s['ok'] else 'FAILED: ' + err} "
                     f"({s['seconds']} s)")
            stage_lines(s.get("stages"), ind + "  ")
    stage_lines(report["stages"], "")
    L += ["", "## Commands", ""]
    seen = set()
    for c in report["cases"]:
        for cmd, pre in ((c["command"], "- measured: "),
                         ((c.get("predicted") or {}).get("command"), "  - predicted: ")):
            if cmd and cmd not in seen:
                seen.add(cmd)
                L.append(f"{pre}`{cmd}`")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    ap.add_argument("--cache", default=os.path.join(xdg, "flopfit", "reality"))
    ap.add_argument("--out", help="result JSON (default: CACHE/reality-<date>.json)")
    ap.add_argument("--markdown", help="also write a Markdown table here")
    ap.add_argument("--flopfit", default=os.environ.get("FLOPFIT"))
    ap.add_argument("--profile-opencl", default=os.environ.get("FLOPFIT_PROFILE_OPENCL"),
                    help="profile of the CPU's OpenCL device (PoCL)")
    ap.add_argument("--profile-vulkan", default=os.environ.get("FLOPFIT_PROFILE_VULKAN"),
                    help="profile of the CPU's Vulkan device (lavapipe)")
    ap.add_argument("--model-profiles", action="store_true",
                    help="predict each case from a profile of its own model's ops "
                         "(flopfit bench --model, made once per device, model and task into "
                         "the cache): the bottom-up path")
    ap.add_argument("--no-auto-profiles", action="store_true",
                    help="do not make quick profiles in the cache when none are given")
    ap.add_argument("--measured", metavar="FILE", action="append",
                    help="measure nothing: take the cases of earlier result files (repeatable: "
                         "merged) and ask flopfit again (e.g. once the bottom-up block lands)")
    ap.add_argument("--quick", action="store_true",
                    help="only the 134M llama.cpp model and the 35M PyTorch one, fewer reps")
    ap.add_argument("--models", help="llama.cpp models, comma-separated: " + ",".join(SERVE_MODELS))
    ap.add_argument("--train-models", help="PyTorch models: " + ",".join(TRAIN_MODELS))
    ap.add_argument("--formats", default="q8_0,q4_0", help="GGUF formats (f16,q8_0,q4_0)")
    ap.add_argument("--depth", type=int, default=0,
                    help=f"also decode {CPU_GEN} tokens after a context of DEPTH positions on the "
                         f"CPU (llama-bench -p 0 -n {CPU_GEN} -d DEPTH; DEPTH + {CPU_GEN} at most "
                         f"the models' {MODEL_POSITIONS} positions): decode attention over a long "
                         "KV cache")
    ap.add_argument("--threads", default=str(nproc()),
                    help="CPU threads (nproc); llama.cpp takes a list, e.g. 2,1: on a busy "
                         "machine its spinning threads collapse, one thread shows by how much; "
                         "PyTorch uses the first")
    ap.add_argument("--jobs", type=int, default=min(2, nproc()), help="build jobs")
    ap.add_argument("--reps", type=int, help="llama-bench repetitions (3; Vulkan with --quick 2)")
    ap.add_argument("--skip", default="", help="stages to skip: cpu,vulkan,train,predict")
    ap.add_argument("--vulkan-models", default="llama-134m")
    ap.add_argument("--torch-python", metavar="PY",
                    help="an interpreter with torch for the training steps (default: a venv "
                         f"in the cache with PyPI's torch {TORCH_VERSION})")
    ap.add_argument("--train-batch", type=int, default=4)
    ap.add_argument("--train-seq", type=int, default=256)
    ap.add_argument("--train-steps", type=int, default=5)
    ap.add_argument("--train-warmup", type=int, default=2)
    # internal
    ap.add_argument("--_make-gguf", dest="make_gguf", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--_train", dest="train", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--name", help=argparse.SUPPRESS)
    ap.add_argument("--dtype", default="f16", help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--seq", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--warmup", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make_gguf:
        return make_gguf_main(args)
    if args.train:
        return train_main(args)

    if not 0 <= args.depth <= MODEL_POSITIONS - CPU_GEN:
        ap.error(f"invalid value {args.depth} for --depth: expected 0 to "
                 f"{MODEL_POSITIONS - CPU_GEN} (the context plus the {CPU_GEN} generated tokens "
                 f"within the models' {MODEL_POSITIONS} positions)")
    skip = set(filter(None, args.skip.split(",")))
    cache = os.path.abspath(args.cache)
    os.makedirs(cache, exist_ok=True)
    logp = os.path.join(cache, "reality.log")
    log(f"cache {cache}, log {logp}")
    serve_names = (args.models.split(",") if args.models else
                   QUICK_SERVE if args.quick else list(SERVE_MODELS))
    train_names = (args.train_models.split(",") if args.train_models else
                   QUICK_TRAIN if args.quick else list(TRAIN_MODELS))
    formats = [f.strip().lower() for f in args.formats.split(",") if f.strip()]
    reps = args.reps or 3
    threads = ",".join(str(int(t)) for t in str(args.threads).split(",") if t.strip())
    torch_threads = int(threads.split(",")[0])
    flopfit = os.path.abspath(args.flopfit) if args.flopfit else None

    st = Stages()
    cases = []
    versions = {"llama_cpp_python": LLAMA_CPP_PYTHON_VERSION, "gguf_py": GGUF_PY_VERSION,
                "python": platform.python_version()}
    host = {"cpu_model": cpu_model(), "nproc": nproc(), "cpu_flags": cpu_flags(),
            "kernel": platform.release(), "os": _os_name(),
            "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}

    out = args.out or os.path.join(cache, f"reality-{datetime.date.today().isoformat()}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")

    def save(final=False):
        report = {"schema": SCHEMA, "date": date, "complete": final, "host": host,
                  "versions": versions, "cache": cache, "stages": st.items, "cases": cases}
        with open(out + ".part", "w") as f:
            json.dump(report, f, indent=2)
        os.replace(out + ".part", out)
        return report
    st.on_done = save

    if args.measured:  # measurements of an earlier run: only predict again
        for path in args.measured:
            with open(path) as f:
                prev = json.load(f)
            for c in prev.get("cases", []):
                c.pop("predicted", None)
                c.setdefault("measured_date", prev.get("date"))
                cases.append(c)
            versions.update({k: v for k, v in (prev.get("versions") or {}).items() if v})
            host = prev.get("host") or host
            st.items.append({"name": f"measurements from {path}", "ok": True, "seconds": 0,
                             "measured_date": prev.get("date"), "stages": prev.get("stages")})
    else:
        src = st.do("llama.cpp source", fetch_llama_source, cache, logp)
        if src and not ("cpu" in skip and "vulkan" in skip) and \
                not st.do("build tools", ensure_build_tools, logp):
            skip = skip | {"cpu", "vulkan"}  # reported as a failed stage
        cpu_bin = vk_bin = None
        if src:
            versions["llama_cpp_commit"] = src["llama_cpp_commit"]
            if "cpu" not in skip:
                cpu_bin = st.do("llama.cpp build cpu", cmake_build, src["llama_cpp"],
                                os.path.join(cache, "build", f"llama.cpp-{LLAMA_CPP_PYTHON_VERSION}-cpu"),
                                ["-DGGML_NATIVE=ON"], ["llama-bench", "llama-quantize"], logp, args.jobs)
            if "vulkan" not in skip:
                def vk_build():
                    ensure_vulkan_tools(logp)
                    check_vulkan_headers(src["llama_cpp"])
                    return cmake_build(src["llama_cpp"],
                                       os.path.join(cache, "build",
                                                    f"llama.cpp-{LLAMA_CPP_PYTHON_VERSION}-vulkan"),
                                       ["-DGGML_NATIVE=ON", "-DGGML_VULKAN=ON"], ["llama-bench"],
                                       logp, args.jobs)
                vk_bin = st.do("llama.cpp build vulkan", vk_build)

        quantize = os.path.join(cpu_bin, "llama-quantize") if cpu_bin else None
        need_models = sorted(set((serve_names if cpu_bin else []) +
                                 ([m for m in args.vulkan_models.split(",") if m] if vk_bin else [])),
                             key=list(SERVE_MODELS).index)
        models = {}
        if need_models:
            venv_py = st.do("gguf venv", ensure_gguf, cache, logp)
            if venv_py:
                models = st.do("gguf models", make_models, cache, need_models, formats, venv_py,
                               quantize, logp, args.jobs) or {}
                for m, ent in models.items():
                    for fmt, err in ent["errors"].items():
                        st.items.append({"name": f"model {m} {fmt}", "ok": False, "seconds": 0,
                                         "error": err})

        def bench_cases(binary, backend, names, prompt, gen, reps, extra, envx):
            env = dict(os.environ, **envx) if envx else None
            for name in names:
                ent = models.get(name)
                if not ent:
                    continue
                for fmt in formats:
                    g = ent["gguf"].get(fmt)
                    if not g:
                        continue

                    def one():
                        load0 = os.getloadavg()
                        cmd, res = llama_bench(os.path.join(binary, "llama-bench"), g, threads,
                                               prompt, gen, reps, extra, env, logp, timeout=7200)
                        for r in res:
                            kind = "prefill" if r.get("n_prompt", 0) > 0 else "decode"
                            samples = r.get("samples_ts") or []
                            versions.setdefault("llama_cpp_build",
                                                f"{r.get('build_number')} ({r.get('build_commit')})")
                            cases.append({
                                "framework": "llama.cpp", "backend": backend,
                                "device": r.get("gpu_info") or r.get("cpu_info") or host["cpu_model"],
                                "model": name, "params": r.get("model_n_params") or
                                param_count(SERVE_MODELS[name]),
                                "format": fmt, "kind": kind, "batch": 1,
                                "prompt": r.get("n_prompt", 0), "gen": r.get("n_gen", 0),
                                "seq": None, "depth": r.get("n_depth", 0),
                                "invocation": {"prompt": prompt, "gen": gen,
                                               "depth": r.get("n_depth", 0)},
                                "shape": (f"pp{r['n_prompt']}" if kind == "prefill" else
                                          f"tg{r['n_gen']}") +
                                         (f"@d{r['n_depth']}" if r.get("n_depth") else "") +
                                         f" t{r.get('n_threads')}",
                                "threads": r.get("n_threads"), "tokens_per_s": r.get("avg_ts"),
                                "stddev_tokens_per_s": r.get("stddev_ts"), "step_s": None,
                                "spread": spread_of(samples), "samples": samples, "reps": len(samples),
                                "command": " ".join([f"{k}={v}" for k, v in (envx or {}).items()]
                                                    + [shlex.join(cmd)]),
                                "config": ent["config"], "gguf": g,
                                "versions": {"llama_cpp_python": LLAMA_CPP_PYTHON_VERSION,
                                             "llama_cpp_commit": versions.get("llama_cpp_commit"),
                                             "llama_cpp_cpu_build": versions.get(
                                                 "llama_cpp_cpu_build") if backend == "cpu" else None,
                                             "llama_cpp_build": f"{r.get('build_number')} "
                                                                f"({r.get('build_commit')})",
                                             "cpu": host["cpu_model"], "backends": r.get("backends")},
                                "run_config": {k: r.get(k) for k in (
                                    "n_gpu_layers", "n_batch", "n_ubatch", "type_k", "type_v",
                                    "flash_attn", "model_size", "model_type", "n_threads")},
                                "loadavg_before_after": [round(load0[0], 2),
                                                         round(os.getloadavg()[0], 2)],
                            })
                            c = cases[-1]
                            log(f"  {backend} {name} {fmt} {c['shape']}: {c['tokens_per_s']:.2f} tok/s")
                    st.do(f"llama-bench {backend} {name} {fmt}", one)

        smoke = next((models[m]["gguf"][f] for m in serve_names if m in models
                      for f in formats if f != "f16" and f in models[m]["gguf"]), None)
        if cpu_bin and smoke:
            r = st.do("llama.cpp cpu smoke run", cpu_build_that_runs, src["llama_cpp"], cache,
                      cpu_bin, smoke, logp, args.jobs)
            cpu_bin = r[0] if r else None
            if r and r[1]:
                versions["llama_cpp_cpu_build"] = r[1]
                log(f"llama.cpp cpu: {r[1]}")
        if cpu_bin:
            bench_cases(cpu_bin, "cpu", serve_names, CPU_PROMPT, CPU_GEN, reps, [], None)
            if args.depth:
                bench_cases(cpu_bin, "cpu", serve_names, 0, CPU_GEN, reps,
                            ["-d", str(args.depth)], None)
        if vk_bin:
            # ggml-vulkan skips CPU-type devices (lavapipe) unless they are named
            vkenv = {"GGML_VK_VISIBLE_DEVICES": os.environ.get("GGML_VK_VISIBLE_DEVICES", "0")}
            bench_cases(vk_bin, "vulkan", [m for m in args.vulkan_models.split(",") if m],
                        128, 16, args.reps or (2 if args.quick else 3), ["-ngl", "99"], vkenv)

        if "train" not in skip and train_names:
            tpy = st.do("torch", ensure_torch, cache, logp, args.torch_python)
            if tpy:
                try:
                    versions["torch"] = subprocess.run(
                        [tpy, "-c", "import torch; print(torch.__version__)"],
                        stdout=subprocess.PIPE, text=True).stdout.strip()
                except Exception:
                    pass
                coretype = openblas_coretype()
                for name in train_names:
                    d = os.path.join(cache, "models", "train-" + name)
                    os.makedirs(d, exist_ok=True)
                    cfgp = os.path.join(d, "config.json")
                    with open(cfgp, "w") as f:
                        json.dump(hf_config(TRAIN_MODELS[name], "float32"), f, indent=2)

                    def one(name=name, cfgp=cfgp):
                        load0 = os.getloadavg()
                        cmd = [tpy, os.path.abspath(__file__), "--_train", "--config", cfgp,
                               "--batch", str(args.train_batch), "--seq", str(args.train_seq),
                               "--steps", str(args.train_steps), "--warmup", str(args.train_warmup),
                               "--threads", str(torch_threads)]
                        env = dict(os.environ)
                        if coretype:
                            env["OPENBLAS_CORETYPE"] = coretype
                        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True, timeout=7200, env=env)
                        with open(logp, "a") as f:
                            f.write(f"$ {shlex.join(cmd)}\n{p.stderr}\n{p.stdout}\n[rc={p.returncode}]\n")
                        if p.returncode != 0:
                            raise RuntimeError(f"exited {p.returncode}: "
                                               + "\n".join(p.stderr.strip().splitlines()[-8:]))
                        r = json.loads(p.stdout.strip().splitlines()[-1])
                        med = statistics.median(r["step_s"])
                        tok = args.train_batch * args.train_seq
                        cases.append({
                            "framework": "pytorch", "backend": "cpu", "device": host["cpu_model"],
                            "model": name, "params": r["params"], "format": "fp32", "kind": "train",
                            "batch": args.train_batch, "seq": args.train_seq, "prompt": None,
                            "gen": None, "shape": f"b{args.train_batch}x{args.train_seq}",
                            "threads": r["threads"], "step_s": med, "tokens_per_s": tok / med,
                            "spread": spread_of(r["step_s"]), "samples": r["step_s"],
                            "reps": len(r["step_s"]), "warmup": args.train_warmup,
                            "command": shlex.join(cmd), "config": cfgp,
                            "versions": {"torch": r["torch"], "cpu": host["cpu_model"],
                                         "python": tpy,
                                         "blas": "MKL" if r.get("mkl") else blas_library(),
                                         "openblas_coretype": None if r.get("mkl") else coretype,
                                         "cpu_capability": r.get("cpu_capability"),
                                         "attention": r.get("attention", "explicit"),
                                         "adamw": r.get("adamw", "default")},
                            "loadavg_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
                        })
                        log(f"  pytorch {name} train b{args.train_batch}x{args.train_seq}: "
                            f"{med:.3f} s/step")
                    st.do(f"pytorch train {name}", one)

    # predictions
    if "predict" not in skip and cases:
        if not flopfit or not os.path.exists(flopfit):
            st.items.append({"name": "predictions", "ok": False, "seconds": 0,
                             "error": "no flopfit (--flopfit or FLOPFIT)"})
        else:
            given = {"opencl": args.profile_opencl, "vulkan": args.profile_vulkan}
            profiles = given if args.no_auto_profiles else \
                (st.do("profiles", ensure_profiles, flopfit, cache, given, logp) or given)
            profiles = {k: v for k, v in profiles.items() if v}
            try:
                versions["flopfit"] = run([flopfit, "--version"], None, timeout=30,
                                          check=False).stdout.strip().splitlines()[0]
            except Exception:
                pass
            for c in cases:
                # CPU-backend peers are compared with the CPU's OpenCL device (PoCL),
                # Vulkan ones with lavapipe.
                api = "vulkan" if c["backend"] == "vulkan" else "opencl"
                prof = profiles.get(api) or next(iter(profiles.values()), None)
                if args.model_profiles:
                    prof = st.do(f"bench --model {api} {c['model']} {c['kind']}",
                                 ensure_model_profile, flopfit, cache, api, c, logp) or prof
                if not prof:
                    continue
                c["predicted"] = st.do(
                    f"predict {c['framework']} {c['backend']} {c['model']} {c['format']} {c['kind']}",
                    flopfit_estimate, flopfit, c, prof, logp)

    st.on_done = None
    report = save(final=True)
    print()
    print_table(cases)
    print()
    load = host.get("loadavg_at_start") or [0]
    if load[0] > 0.5 * (host.get("nproc") or 1):
        print(f"WARNING: load average {load[0]} at the start on {host.get('nproc')} CPUs: "
              "the measurements are of a shared, busy machine")
    failed = [s for s in st.items if not s["ok"]]
    for s in failed:
        print(f"FAILED {s['name']}: {s.get('error', '').splitlines()[0] if s.get('error') else ''}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(report))
    log(f"wrote {out}" + (f" and {args.markdown}" if args.markdown else ""))
    return 0 if cases else 1


def blas_library():
    """Which BLAS Debian's torch loads (libblas.so.3 through the alternatives)."""
    for p in ("/usr/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/aarch64-linux-gnu/libblas.so.3"):
        if os.path.exists(p):
            return os.path.realpath(p)
    return None


def _os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


if __name__ == "__main__":
    sys.exit(main())
