#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makes the small Hugging Face checkpoints of tests/data/hf-oracle and runs llama.cpp's own
converter on them, the oracle of #43 (a GGUF measured against the checkpoint it came from).

For each architecture: a checkpoint with random weights and a config.json laid out as the real
model's (safetensors written here, a minimal tokenizer.json), then `convert_hf_to_gguf.py`
(llama.cpp's, from a checkout given with --llama-cpp; never copied into this project) writes a
lossless GGUF (--outtype f32 or bf16, the checkpoint's dtype) and a Q8_0 copy (gguf-py's
quantizer); one Q4_0 copy is made with gguf-py's quants.quantize. golden.json then holds, per
quantized copy and tensor, the six diff measures NumPy computes between gguf-py's dequantization
of the copy and the lossless GGUF's values (which the converter made from the checkpoint).

Needs Debian's python3-numpy and python3-torch. The converter imports `transformers` only for
AutoConfig and tokenizers: a stand-in module is put first on the path, AutoConfig fails (the
converter then reads config.json itself) and the vocabulary is replaced by a minimal one, since
only tensors are compared. The test suite needs none of this: it reads the files written here.

    /usr/bin/python3 scripts/oracle/hf_convert_oracle.py --llama-cpp /tmp/llconv --out tests/data/hf-oracle
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

VOCAB = 64
HIDDEN = 32
FF = 64
LAYERS = 2
HEADS = 4
KV_HEADS = 2
HEAD_DIM = HIDDEN // HEADS
EXPERTS = 4
EXPERT_FF = 32


def common_config(arch_class, model_type, dtype):
    return {
        "architectures": [arch_class], "model_type": model_type, "torch_dtype": dtype,
        "hidden_size": HIDDEN, "intermediate_size": FF, "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS, "vocab_size": VOCAB,
        "max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
        "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False, "hidden_act": "silu",
    }


def attn(p, dims, q_bias=False, qk_norm=False, fused_qkv=False):
    w = {}
    if fused_qkv:
        w[p + "self_attn.qkv_proj.weight"] = (HEADS * HEAD_DIM + 2 * KV_HEADS * HEAD_DIM, HIDDEN)
    else:
        w[p + "self_attn.q_proj.weight"] = (HEADS * HEAD_DIM, HIDDEN)
        w[p + "self_attn.k_proj.weight"] = (KV_HEADS * HEAD_DIM, HIDDEN)
        w[p + "self_attn.v_proj.weight"] = (KV_HEADS * HEAD_DIM, HIDDEN)
    if q_bias:
        w[p + "self_attn.q_proj.bias"] = (HEADS * HEAD_DIM,)
        w[p + "self_attn.k_proj.bias"] = (KV_HEADS * HEAD_DIM,)
        w[p + "self_attn.v_proj.bias"] = (KV_HEADS * HEAD_DIM,)
    if qk_norm:
        w[p + "self_attn.q_norm.weight"] = (HEAD_DIM,)
        w[p + "self_attn.k_norm.weight"] = (HEAD_DIM,)
    w[p + "self_attn.o_proj.weight"] = (HIDDEN, HEADS * HEAD_DIM)
    dims.update(w)


def mlp(p, dims, fused_gate_up=False):
    if fused_gate_up:
        dims[p + "mlp.gate_up_proj.weight"] = (2 * FF, HIDDEN)
    else:
        dims[p + "mlp.gate_proj.weight"] = (FF, HIDDEN)
        dims[p + "mlp.up_proj.weight"] = (FF, HIDDEN)
    dims[p + "mlp.down_proj.weight"] = (HIDDEN, FF)


def experts(p, dims, mixtral):
    if mixtral:
        dims[p + "block_sparse_moe.gate.weight"] = (EXPERTS, HIDDEN)
        for e in range(EXPERTS):
            q = f"{p}block_sparse_moe.experts.{e}."
            dims[q + "w1.weight"] = (EXPERT_FF, HIDDEN)
            dims[q + "w2.weight"] = (HIDDEN, EXPERT_FF)
            dims[q + "w3.weight"] = (EXPERT_FF, HIDDEN)
    else:
        dims[p + "mlp.gate.weight"] = (EXPERTS, HIDDEN)
        for e in range(EXPERTS):
            q = f"{p}mlp.experts.{e}."
            dims[q + "gate_proj.weight"] = (EXPERT_FF, HIDDEN)
            dims[q + "up_proj.weight"] = (EXPERT_FF, HIDDEN)
            dims[q + "down_proj.weight"] = (HIDDEN, EXPERT_FF)


def model_dims(kind):
    """The tensor names and shapes of each architecture's HF checkpoint (transformers' names)."""
    dims = {"model.embed_tokens.weight": (VOCAB, HIDDEN), "model.norm.weight": (HIDDEN,)}
    gemma = kind in ("gemma2", "gemma3")
    if not kind.startswith("gemma"):  # the gemmas tie the output to the embedding
        dims["lm_head.weight"] = (VOCAB, HIDDEN)
    for il in range(LAYERS):
        p = f"model.layers.{il}."
        dims[p + "input_layernorm.weight"] = (HIDDEN,)
        dims[p + "post_attention_layernorm.weight"] = (HIDDEN,)
        if gemma:
            dims[p + "pre_feedforward_layernorm.weight"] = (HIDDEN,)
            dims[p + "post_feedforward_layernorm.weight"] = (HIDDEN,)
        attn(p, dims, q_bias=(kind == "qwen2"), qk_norm=kind in ("qwen3", "qwen3moe", "gemma3"),
             fused_qkv=(kind == "phi3"))
        if kind == "mixtral":
            experts(p, dims, mixtral=True)
        elif kind == "qwen3moe":
            experts(p, dims, mixtral=False)
        else:
            mlp(p, dims, fused_gate_up=(kind == "phi3"))
    return dims


def config_of(kind, dtype):
    if kind == "llama":
        return common_config("LlamaForCausalLM", "llama", dtype) | {"head_dim": HEAD_DIM, "attention_bias": False}
    if kind == "mistral":
        return common_config("MistralForCausalLM", "mistral", dtype) | {"head_dim": HEAD_DIM, "sliding_window": None}
    if kind == "mixtral":
        return common_config("MixtralForCausalLM", "mixtral", dtype) | {
            "num_local_experts": EXPERTS, "num_experts_per_tok": 2, "intermediate_size": EXPERT_FF,
            "router_aux_loss_coef": 0.02, "sliding_window": None}
    if kind == "qwen2":
        return common_config("Qwen2ForCausalLM", "qwen2", dtype) | {"use_sliding_window": False,
                                                                    "sliding_window": 2048}
    if kind == "qwen3":
        return common_config("Qwen3ForCausalLM", "qwen3", dtype) | {"head_dim": HEAD_DIM, "attention_bias": False}
    if kind == "qwen3moe":
        return common_config("Qwen3MoeForCausalLM", "qwen3_moe", dtype) | {
            "head_dim": HEAD_DIM, "num_experts": EXPERTS, "num_experts_per_tok": 2,
            "moe_intermediate_size": EXPERT_FF, "norm_topk_prob": True, "decoder_sparse_step": 1,
            "mlp_only_layers": []}
    if kind == "gemma":  # gemma v1: post_attention_layernorm is the norm before the FFN
        return common_config("GemmaForCausalLM", "gemma", dtype) | {
            "head_dim": HEAD_DIM, "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": True}
    if kind == "gemma2":
        return common_config("Gemma2ForCausalLM", "gemma2", dtype) | {
            "head_dim": HEAD_DIM, "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": HEAD_DIM,
            "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "sliding_window": 4096,
            "tie_word_embeddings": True}
    if kind == "gemma3":
        return common_config("Gemma3ForCausalLM", "gemma3_text", dtype) | {
            "head_dim": HEAD_DIM, "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": HEAD_DIM,
            "sliding_window": 512, "sliding_window_pattern": 6, "rope_local_base_freq": 10000.0,
            "final_logit_softcapping": None, "attn_logit_softcapping": None, "tie_word_embeddings": True}
    if kind == "phi3":
        return common_config("Phi3ForCausalLM", "phi3", dtype) | {
            "rope_scaling": None, "original_max_position_embeddings": 2048, "sliding_window": 2047,
            "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attention_dropout": 0.0}
    raise ValueError(kind)


ST_DTYPE = {torch.float32: "F32", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors):
    """A safetensors file as the reference writer lays it out: tensors in name order, each right
    after the previous one, the header padded with spaces to a multiple of 8."""
    header, blobs, at = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        header[name] = {"dtype": ST_DTYPE[t.dtype], "shape": list(t.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def make_checkpoint(kind, dtype, folder, shards, seed):
    torch.manual_seed(seed)
    tdtype = torch.bfloat16 if dtype == "bfloat16" else torch.float32
    tensors = {}
    for name, shape in model_dims(kind).items():
        if name.endswith("norm.weight"):
            # gemma stores norm − 1 (around 0); the others around 1
            base = 0.0 if kind.startswith("gemma") else 1.0
            t = base + 0.1 * torch.randn(shape)
        else:
            t = 0.05 * torch.randn(shape)
        tensors[name] = t.to(tdtype)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config_of(kind, dtype), indent=2) + "\n")
    vocab = {f"t{i}": i for i in range(VOCAB)}
    (folder / "tokenizer.json").write_text(json.dumps(
        {"version": "1.0", "added_tokens": [], "model": {"type": "BPE", "vocab": vocab, "merges": []}}) + "\n")
    names = sorted(tensors)
    if shards == 1:
        write_safetensors(folder / "model.safetensors", tensors)
        return tensors
    per = math.ceil(len(names) / shards)
    weight_map, total = {}, 0
    for s in range(shards):
        part = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        chunk = {n: tensors[n] for n in names[s * per:(s + 1) * per]}
        write_safetensors(folder / part, chunk)
        for n, t in chunk.items():
            weight_map[n] = part
            total += t.numel() * t.element_size()
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    return tensors


SHIM = '''
class AutoConfig:
    @staticmethod
    def from_pretrained(*a, **k):
        raise OSError("transformers is not installed (oracle run): config.json is read instead")
'''

DRIVER = '''
import sys
import torch
# Debian 12's torch 1.13 predates these dtypes; the converter only names them in tables
for absent in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "uint16", "uint32", "uint64"):
    if not hasattr(torch, absent):
        setattr(torch, absent, "absent-" + absent)
sys.path.insert(0, {llama!r})
import convert_hf_to_gguf as c
real = c.get_model_class
def minimal_vocab(self):
    n = self.hparams["vocab_size"]
    self.gguf_writer.add_tokenizer_model("gpt2")
    self.gguf_writer.add_tokenizer_pre("default")
    self.gguf_writer.add_token_list([f"t{{i}}" for i in range(n)])
    self.gguf_writer.add_token_types([1] * n)
def patched(*a, **k):
    cls = real(*a, **k)
    cls.set_vocab = minimal_vocab
    return cls
c.get_model_class = patched
sys.argv = ["convert_hf_to_gguf.py"] + {args!r}
c.main()
'''


def convert(llama, folder, outfile, outtype):
    with tempfile.TemporaryDirectory() as shim_dir:
        Path(shim_dir, "transformers.py").write_text(SHIM)
        env = dict(os.environ, PYTHONPATH=shim_dir)
        env.pop("NO_LOCAL_GGUF", None)
        args = [str(folder), "--outfile", str(outfile), "--outtype", outtype]
        code = DRIVER.format(llama=str(llama), args=args)
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=llama,
                       stdout=subprocess.DEVNULL)


def measures(a, b):
    """docs/COMPARE.md §3, a the GGUF copy, b the lossless values (both as float64)."""
    d = a - b
    n = d.size
    sq, sa, sb = float(np.sum(d * d)), float(np.sum(a * a)), float(np.sum(b * b))
    return {
        "rmse": math.sqrt(sq / n), "max_abs": float(np.max(np.abs(d))),
        "mean_abs_relative": float(np.sum(np.abs(d)) / np.sum(np.abs(a))),
        "cosine": float(np.sum(a * b) / (math.sqrt(sa) * math.sqrt(sb))),
        "snr_db": (10 * math.log10(sa / sq)) if sq > 0 else None,
        "relative_l2": math.sqrt(sq / sa),
    }


def gguf_values(gguf, path):
    r = gguf.GGUFReader(str(path))
    out = {}
    for t in r.tensors:
        vals = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float64).reshape(-1)
        out[t.name] = (t.tensor_type.name, vals)
    return out


def q4_copy(gguf, src, dst):
    """The lossless GGUF with every 2-D weight whose rows hold whole blocks quantized to Q4_0 by
    gguf-py (quants.quantize); the metadata copied as it is."""
    r = gguf.GGUFReader(str(src))
    arch = r.fields["general.architecture"]
    w = gguf.GGUFWriter(str(dst), bytes(arch.parts[arch.data[0]]).decode())
    for key, field in r.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            w.add_key_value(key, field.contents(), vtype, sub_type=field.types[1])
        else:
            w.add_key_value(key, field.contents(), vtype)
    for t in r.tensors:
        data = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32)
        shape = [int(x) for x in reversed(t.shape)]
        data = data.reshape(shape)
        if len(shape) >= 2 and shape[-1] % 32 == 0 and not t.name.endswith("_norm.weight") \
                and "ffn_gate_inp" not in t.name:
            q = gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q4_0)
            w.add_tensor(t.name, q, raw_dtype=gguf.GGMLQuantizationType.Q4_0)
        else:
            w.add_tensor(t.name, data)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


ARCHS = [  # kind, dtype, shards
    ("llama", "float32", 1), ("llama", "bfloat16", 1), ("mistral", "bfloat16", 1), ("mixtral", "bfloat16", 2),
    ("qwen2", "float32", 1), ("qwen3", "bfloat16", 1), ("qwen3moe", "bfloat16", 3),
    ("gemma2", "bfloat16", 1), ("gemma3", "float32", 1), ("phi3", "bfloat16", 1),
    ("gemma", "bfloat16", 1),  # added last: the seeds of the others stay as they were
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llama-cpp", required=True, type=Path, help="llama.cpp checkout (converter, gguf-py)")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    args.out = args.out.resolve()
    args.llama_cpp = args.llama_cpp.resolve()
    sys.path.insert(0, str(args.llama_cpp / "gguf-py"))
    import gguf
    golden = {}
    for seed, (kind, dtype, shards) in enumerate(ARCHS, start=43):
        tag = f"{kind}-{'bf16' if dtype == 'bfloat16' else 'f32'}"
        folder = args.out / tag
        make_checkpoint(kind, dtype, folder, shards, seed)
        lossless = args.out / f"{tag}.gguf"
        convert(args.llama_cpp, folder, lossless, "bf16" if dtype == "bfloat16" else "f32")
        q8 = args.out / f"{tag}.q8_0.gguf"
        convert(args.llama_cpp, folder, q8, "q8_0")
        copies = [q8]
        if kind == "llama" and dtype == "float32":
            q4 = args.out / f"{tag}.q4_0.gguf"
            q4_copy(gguf, lossless, q4)
            copies.append(q4)
        exact = gguf_values(gguf, lossless)
        for copy in copies:
            entry = {}
            for name, (qtype, vals) in gguf_values(gguf, copy).items():
                entry[name] = {"type": qtype, **measures(vals, exact[name][1])}
            golden[copy.name] = {"checkpoint": tag, "lossless": lossless.name, "tensors": entry}
        print(tag, "done", file=sys.stderr)
    (args.out / "golden.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
