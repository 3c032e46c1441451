#!/usr/bin/env python3
"""Write the structure-aware seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/).

Run from anywhere: python3 tests/fuzz/make_seeds.py. Seeds are named seed-*; inputs a fuzzer
found are added by hand as found-* and are never overwritten here. Seeds cover every
model_type the config reader knows, attn_config / rope_scaling / MoE / MLA variants, the
legacy Falcon names, and profiles with valid, missing, non-finite and absurd fields.
"""
import copy
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, (dict, list)):
        data = json.dumps(data, indent=1)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def llama_like(mt, **kw):
    c = {
        "model_type": mt, "hidden_size": 4096, "intermediate_size": 11008,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "vocab_size": 32000, "max_position_embeddings": 4096, "tie_word_embeddings": False,
    }
    c.update(kw)
    return c


def hf_config():
    for path in glob.glob(os.path.join(ROOT, "tests/estimate/data/*.json")):
        base = os.path.basename(path)
        if not base.startswith("profile"):
            with open(path, "rb") as f:
                write("hf_config", "data-" + base, f.read())
    for mt in ["llama", "mistral", "qwen", "qwen2", "qwen3", "gemma", "gemma2", "opt", "gpt2",
               "gpt_neox", "bloom", "falcon", "mpt", "mixtral", "qwen2_moe", "deepseek_v2",
               "deepseek_v3", "RefinedWeb", "RefinedWebModel", "unknown_type", ""]:
        write("hf_config", "type-" + (mt or "empty"), llama_like(mt))
    # GPT-2 / OPT / BLOOM / NeoX / Falcon / MPT names
    write("hf_config", "gpt2-names", {"model_type": "gpt2", "n_embd": 768, "n_layer": 12,
                                       "n_head": 12, "n_inner": None, "n_positions": 1024,
                                       "vocab_size": 50257})
    write("hf_config", "opt-names", {"model_type": "opt", "hidden_size": 2048, "ffn_dim": 8192,
                                      "num_hidden_layers": 24, "num_attention_heads": 32,
                                      "word_embed_proj_dim": 2048, "vocab_size": 50272,
                                      "max_position_embeddings": 2048,
                                      "do_layer_norm_before": True})
    write("hf_config", "bloom-names", {"model_type": "bloom", "hidden_size": 1024, "n_layer": 24,
                                        "n_head": 16, "vocab_size": 250880})
    write("hf_config", "falcon-legacy", {"model_type": "RefinedWeb", "hidden_size": 8192,
                                          "n_layer": 60, "n_head": 128, "n_head_kv": 8,
                                          "parallel_attn": True, "bias": False,
                                          "vocab_size": 65024, "new_decoder_architecture": True})
    write("hf_config", "falcon-mq", {"model_type": "falcon", "hidden_size": 4544,
                                      "num_hidden_layers": 32, "num_attention_heads": 71,
                                      "multi_query": True, "vocab_size": 65024})
    mpt = {"model_type": "mpt", "d_model": 4096, "n_layers": 32, "n_heads": 32,
           "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432, "no_bias": True,
           "attn_config": {"attn_type": "multihead_attention"}}
    write("hf_config", "mpt", mpt)
    for i, ac in enumerate([{"attn_type": None}, {"attn_type": "multiquery_attention"},
                            {"attn_type": "grouped_query_attention", "kv_n_heads": 8},
                            {"attn_type": 7}, {}, None, "x"]):
        m = copy.deepcopy(mpt)
        m["attn_config"] = ac
        write("hf_config", "mpt-attn-%d" % i, m)
    m = copy.deepcopy(mpt)
    m["expansion_ratio"] = 4611686018427387904
    write("hf_config", "mpt-expansion-wrap", m)
    for i, rs in enumerate([None, {"type": "linear", "factor": 2.0},
                            {"rope_type": "dynamic", "factor": 4.0},
                            {"rope_type": "yarn", "factor": 4.0,
                             "original_max_position_embeddings": 32768},
                            {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                             "high_freq_factor": 4.0,
                             "original_max_position_embeddings": 8192}, "bad"]):
        write("hf_config", "rope-%d" % i, llama_like("llama", rope_scaling=rs))
    write("hf_config", "sliding", llama_like("mistral", sliding_window=4096,
                                             use_sliding_window=True))
    write("hf_config", "mixtral", llama_like("mixtral", num_local_experts=8,
                                             num_experts_per_tok=2, intermediate_size=14336))
    write("hf_config", "qwen2-moe", llama_like("qwen2_moe", num_experts=60,
                                               num_experts_per_tok=4, moe_intermediate_size=1408,
                                               shared_expert_intermediate_size=5632))
    mla = llama_like("deepseek_v2", kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64,
                     qk_nope_head_dim=128, v_head_dim=128, n_routed_experts=160,
                     n_shared_experts=2, num_experts_per_tok=6, moe_intermediate_size=1536,
                     first_k_dense_replace=1, moe_layer_freq=1, num_hidden_layers=60,
                     hidden_size=5120, num_attention_heads=128, num_key_value_heads=128)
    write("hf_config", "mla", mla)
    lite = dict(mla, q_lora_rank=None)
    write("hf_config", "mla-no-q-lora", lite)
    write("hf_config", "heads-not-dividing", llama_like("llama", num_attention_heads=3))
    write("hf_config", "zero-heads", llama_like("llama", num_attention_heads=0))
    write("hf_config", "huge", llama_like("llama", hidden_size=2**62, num_hidden_layers=2**40))
    write("hf_config", "floats", llama_like("llama", hidden_size=4096.5))
    write("hf_config", "infinity", '{"model_type":"llama","hidden_size":Infinity}')
    write("hf_config", "nan", '{"model_type":"llama","hidden_size":NaN}')
    write("hf_config", "not-object", "[1,2,3]")
    write("hf_config", "truncated", '{"model_type": "llama", "hidden_')


def profile():
    paths = glob.glob(os.path.join(ROOT, "results/*/*/*.json")) + \
        glob.glob(os.path.join(ROOT, "tests/estimate/data/profile-*.json"))
    base = None
    for path in sorted(paths):
        with open(path, "rb") as f:
            raw = f.read()
        write("profile", "file-" + os.path.basename(path), raw)
        if base is None and path.endswith(".json") and "/results/" in path:
            base = json.loads(raw)
    if base is None:
        return
    write("profile", "non-finite", json.dumps(base).replace(
        '"value": ', '"value": Infinity, "x": ', 1))
    for i, t in enumerate(base.get("tests", [])[:6]):
        for name, v in [("nan", "NaN"), ("huge", "1e308"), ("neg", "-1"), ("str", '"x"'),
                        ("null", "null")]:
            b = copy.deepcopy(base)
            b["tests"] = [t]
            s = json.dumps(b)
            if '"value": ' in s:
                write("profile", "t%d-%s" % (i, name), s.replace(
                    '"value": ', '"value": %s, "_": ' % v, 1))
        b = copy.deepcopy(base)
        t2 = dict(t)
        t2["verified"] = False
        b["tests"] = [t2]
        write("profile", "t%d-unverified" % i, b)
    for key in ["schema", "device", "tests", "host", "flopfit"]:
        b = copy.deepcopy(base)
        b.pop(key, None)
        write("profile", "missing-" + key, b)
    b = copy.deepcopy(base)
    b["schema"] = {"name": "flopfit.profile", "version": "9.0"}
    write("profile", "major-9", b)


def argv(target, lines):
    for i, args in enumerate(lines):
        write(target, "%02d" % i, "\n".join(args))


def options():
    argv("bench_options", [
        ["--backend", "opencl", "--quick"], ["--backend", "vulkan", "--device", "vulkan:1"],
        ["--precision", "fp32,fp16,int8"], ["--precision", "all", "--sizes", "256,1024,4096"],
        ["--only", "matmul,latency"], ["--reps", "10000", "--time-budget", "0.001"],
        ["--memory-limit", "8G"], ["--memory-limit", "1.5GiB"], ["--seed", "18446744073709551615"],
        ["--output", "/tmp/x.json"], ["--output-dir", "/tmp"], ["--no-save", "--json"],
        ["--no-library"], ["--sizes", "16,32768"], ["--device", "opencl:"], ["-h"], ["--bogus"],
        ["--sizes", ",,,"], ["--memory-limit", "0x10"], ["--time-budget", "nan"],
    ])
    argv("estimate_argv", [
        ["--model", "llama-3-8b", "--device", "h100"],
        ["--model", "llama-3-8b", "--serve", "--precision", "int8", "--prompt", "512",
         "--generate", "256", "--device", "h200"],
        ["--model", "llama-3-70b", "--train", "--gpus", "8", "--tp", "8", "--device", "a100-80g"],
        ["--model", "mixtral-8x7b", "--finetune", "qlora", "--lora-rank", "64", "--device", "l4"],
        ["--params", "7e9", "--device", "all"], ["--params", "1e12", "--zero", "3"],
        ["--model", "llama-2-7b", "--device", "h100", "--json"],
        ["--model", "llama-3-8b", "--batch", "64", "--seq", "4096", "--accum", "8"],
        ["--model", "llama-3-8b", "--kv-precision", "fp8", "--serve"],
        ["--list-models"], ["--list-devices"], ["--help"], ["--model"], ["--params", "-1"],
        ["--model", "nope"], ["--model", "llama-3-8b", "--device", "nope"],
        ["--model", "llama-3-8b", "--optimizer", "adamw8bit", "--grad-precision", "bf16"],
        ["--model", "llama-3-8b", "--tokens", "1e12", "--price", "2.5"],
        ["--model", "llama-3-8b", "--overhead-gib", "1e4"],
    ])


def model_folder():
    """fuzz_model_folder: a flags byte (bit k+1: write section k+1), then config.json, the
    safetensors index, model.safetensors and one shard, separated by "\n%%\n"."""
    # 16 wide, 1 layer, 10 tokens: 2,912 parameters, 5,824 bytes in bf16
    cfg = json.dumps(llama_like("llama", hidden_size=16, intermediate_size=32,
                                num_hidden_layers=1, num_attention_heads=2,
                                num_key_value_heads=2, vocab_size=10, torch_dtype="bfloat16"))
    shard = "model-00001-of-00002.safetensors"

    def safetensors(tensor_bytes, header='{"__metadata__":{}}'):
        h = header.encode()
        return len(h).to_bytes(8, "little") + h + bytes(tensor_bytes)

    def folder(name, sections, flags):
        parts = [p.encode() if isinstance(p, str) else p for p in sections]
        write("model_folder", name, bytes([flags]) + b"\n%%\n".join(parts))

    def index(meta, weight_map):
        return json.dumps({"metadata": meta, "weight_map": weight_map})

    folder("config-only", [cfg], 0)
    folder("index-total-size", [cfg, index({"total_size": 5824}, {"a": shard})], 0b10)
    folder("index-one-byte", [cfg, index({"total_size": 1}, {"a": shard})], 0b10)
    folder("index-one-pib", [cfg, index({"total_size": 2 ** 50}, {"a": shard})], 0b10)
    folder("index-summed-shards", [cfg, index({}, {"a": shard, "b": shard}), b"",
                                   safetensors(5824)], 0b1010)
    folder("index-shard-missing", [cfg, index({}, {"a": shard, "b": "model-2.safetensors"})],
           0b10)
    folder("index-shard-traversal", [cfg, index({"total_size": 5824},
                                                {"a": "../model.safetensors"})], 0b10)
    folder("index-shard-is-config", [cfg, index({}, {"a": "config.json"})], 0b10)
    folder("index-not-json", [cfg, "{\"metadata\": "], 0b10)
    folder("safetensors-bf16", [cfg, b"", safetensors(5824)], 0b100)
    folder("safetensors-too-small", [cfg, b"", safetensors(8)], 0b100)
    folder("safetensors-header-past-end",
           [cfg, b"", (1 << 40).to_bytes(8, "little") + b"{}"], 0b100)
    folder("safetensors-short", [cfg, b"", b"\x01\x02"], 0b100)
    folder("both-index-and-single", [cfg, index({"total_size": 5824}, {}),
                                     safetensors(100)], 0b110)


def results_writers():
    """Profiles for the writers of `flopfit results`: the published ones, and copies with the
    hostile strings of tests/results/hostile.py in their text fields (a few, each field)."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tests", "results"))
    import hostile
    for name in ("pocl.json", "pocl-ops.json", "lavapipe.json", "h200-a.json"):
        with open(os.path.join(ROOT, "tests/results/data", name), "rb") as f:
            write("results_writers", "data-" + name, f.read())
    with open(os.path.join(ROOT, "tests/results/data/pocl.json"), encoding="utf-8") as f:
        base = json.load(f)
    for i in range(0, len(hostile.STRINGS), 6):
        write("results_writers", f"hostile-{i:02d}.json", hostile.profile_bytes(base, i))


def jschema():
    """The validator of `flopfit results submit`: a 1.0 and a 1.1 profile, the schema itself,
    a schema that refers to itself, and one of every keyword it implements."""
    with open(os.path.join(ROOT, "tests/results/data/pocl.json"), "rb") as f:
        write("jschema", "pocl.json", f.read())
    with open(os.path.join(ROOT, "tests/results/submit/pocl-standard.json"), "rb") as f:
        write("jschema", "pocl-standard.json", f.read())
    with open(os.path.join(ROOT, "results/profile.schema.json"), "rb") as f:
        write("jschema", "schema.json", f.read())
    write("jschema", "selfref.json", {"$ref": "#"})
    write("jschema", "keywords.json", {
        "type": ["object", "null"], "required": ["a"], "additionalProperties": False,
        "properties": {"a": {"const": {"b": [1]}}, "c~/d": {"$ref": "#/$defs/x"}},
        "$defs": {"x": {"type": "array", "minItems": 2, "items": {"enum": [1, "a", None]}}},
        "pattern": "^[a-z]+$", "minimum": 0, "maximum": 9})


if __name__ == "__main__":
    hf_config()
    profile()
    options()
    model_folder()
    results_writers()
    jschema()
