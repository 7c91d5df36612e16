#!/usr/bin/env python3
"""Generate tiny, complete GGUF models (standard library only) for the memory oracle.

Each model has every tensor llama.cpp (commit de3ff815, the one inside node-llama-cpp 3.22.1)
requires for its architecture, so that llama.cpp loads it and creates a context; the weights are
meaningless (zeros; norm weights 1.0). Matrices are F16, vectors and a few small SSM tensors F32.
The vocabulary is a minimal SentencePiece ("llama") vocabulary of 300 tokens:
<unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, and 41 word pieces.

Usage:  python3 make_models.py [OUTPUT_DIR]        (default: the current directory)
Writes: llama-gqa.gguf qwen2.gguf gemma2-swa.gguf gemma3-swa.gguf deepseek2-mla.gguf bert-embed.gguf
        mamba.gguf deci-perlayer-kv.gguf deci-kv0.gguf
The output is deterministic (same bytes on every run).
"""
import os
import struct
import sys

ALIGN = 32
F32, F16 = 0, 1

# GGUF metadata value types
T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR, T_U64, T_I64, T_F64 = range(13)


def u32(v): return (T_U32, v)
def i32(v): return (T_I32, v)
def f32(v): return (T_F32, v)
def b(v): return (T_BOOL, v)
def s(v): return (T_STR, v)
def arr(et, vals): return (T_ARR, (et, vals))


def enc_str(x):
    bs = x.encode("utf-8")
    return struct.pack("<Q", len(bs)) + bs


def enc_val(t, v):
    if t == T_STR:
        return enc_str(v)
    if t == T_ARR:
        et, vals = v
        out = [struct.pack("<IQ", et, len(vals))]
        out += [enc_val(et, x) for x in vals]
        return b"".join(out)
    fmt = {T_U8: "B", T_I8: "b", T_U16: "H", T_I16: "h", T_U32: "I", T_I32: "i", T_F32: "f",
           T_BOOL: "?", T_U64: "Q", T_I64: "q", T_F64: "d"}[t]
    return struct.pack("<" + fmt, v)


def vocab_kvs():
    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    types = [2, 3, 3] + [6] * 256
    words = ["\u2581"] + ["\u2581" + w for w in (
        "the of and to a in is it you that he was for on are with as I his they be at one "
        "have this from or had by hot word but what some we can out").split()]
    words += ["\u2581t%02d" % i for i in range(41 - len(words))]
    words = words[:41]
    tokens += words
    types += [1] * len(words)
    scores = [0.0] * 259 + [-float(i) for i in range(len(words))]
    assert len(tokens) == 300
    return {
        "tokenizer.ggml.model": s("llama"),
        "tokenizer.ggml.pre": s("default"),
        "tokenizer.ggml.tokens": arr(T_STR, tokens),
        "tokenizer.ggml.scores": arr(T_F32, scores),
        "tokenizer.ggml.token_type": arr(T_I32, types),
        "tokenizer.ggml.bos_token_id": u32(1),
        "tokenizer.ggml.eos_token_id": u32(2),
        "tokenizer.ggml.unknown_token_id": u32(0),
        "tokenizer.ggml.add_bos_token": b(True),
        "tokenizer.ggml.add_eos_token": b(False),
    }


N_VOCAB = 300


def write_gguf(path, arch, name, kvs, tensors):
    """tensors: list of (name, dims ne0-first, ggml type, fill value)."""
    allkv = {"general.architecture": s(arch), "general.name": s(name),
             "general.description": s("synthetic memory-oracle model (zero weights), GGUF Explorer tests"),
             "general.alignment": u32(ALIGN), "general.file_type": u32(1)}
    allkv.update(kvs)
    allkv.update(vocab_kvs())
    head = [b"GGUF", struct.pack("<IQQ", 3, len(tensors), len(allkv))]
    for k, (t, v) in allkv.items():
        head.append(enc_str(k) + struct.pack("<I", t) + enc_val(t, v))
    datas = []
    off = 0
    for tname, dims, ttype, fill in tensors:
        n = 1
        for d in dims:
            n *= d
        if ttype == F32:
            data = struct.pack("<f", fill) * n
        else:
            data = struct.pack("<e", fill) * n
        head.append(enc_str(tname) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
                    + struct.pack("<IQ", ttype, off))
        pad = (-len(data)) % ALIGN
        datas.append(data + b"\0" * pad)
        off += len(data) + pad
    h = b"".join(head)
    h += b"\0" * ((-len(h)) % ALIGN)
    with open(path, "wb") as f:
        f.write(h)
        for d in datas:
            f.write(d)
    return os.path.getsize(path)


class T:
    """tensor list builder: 1-D tensors are F32 ones (norms), matrices F16 zeros."""
    def __init__(self):
        self.l = []

    def norm(self, name, n, fill=1.0):
        self.l.append((name, [n], F32, fill))

    def w(self, name, *dims, ttype=F16, fill=0.0):
        self.l.append((name, list(dims), ttype, fill))


def llama_gqa(out):
    E, H, HKV, L, FF = 128, 8, 2, 4, 32
    D = E // H
    kv = {"llama.context_length": u32(2048), "llama.embedding_length": u32(E), "llama.block_count": u32(L),
          "llama.feed_forward_length": u32(FF), "llama.attention.head_count": u32(H),
          "llama.attention.head_count_kv": u32(HKV), "llama.rope.dimension_count": u32(D),
          "llama.attention.layer_norm_rms_epsilon": f32(1e-5), "llama.rope.freq_base": f32(10000.0),
          "llama.vocab_size": u32(N_VOCAB)}
    t = T()
    t.w("token_embd.weight", E, N_VOCAB)
    t.norm("output_norm.weight", E)
    for i in range(L):
        p = "blk.%d." % i
        t.norm(p + "attn_norm.weight", E)
        t.w(p + "attn_q.weight", E, H * D)
        t.w(p + "attn_k.weight", E, HKV * D)
        t.w(p + "attn_v.weight", E, HKV * D)
        t.w(p + "attn_output.weight", H * D, E)
        t.norm(p + "ffn_norm.weight", E)
        t.w(p + "ffn_gate.weight", E, FF)
        t.w(p + "ffn_up.weight", E, FF)
        t.w(p + "ffn_down.weight", FF, E)
    return write_gguf(os.path.join(out, "llama-gqa.gguf"), "llama", "llama-gqa", kv, t.l)


def qwen2(out):
    # like llama but with Q/K/V biases (required by llama.cpp's qwen2) and an untied output
    E, H, HKV, L, FF = 64, 2, 1, 2, 32
    D = E // H
    kv = {"qwen2.context_length": u32(32768), "qwen2.embedding_length": u32(E), "qwen2.block_count": u32(L),
          "qwen2.feed_forward_length": u32(FF), "qwen2.attention.head_count": u32(H),
          "qwen2.attention.head_count_kv": u32(HKV), "qwen2.rope.freq_base": f32(1000000.0),
          "qwen2.attention.layer_norm_rms_epsilon": f32(1e-6)}
    t = T()
    t.w("token_embd.weight", E, N_VOCAB)
    t.norm("output_norm.weight", E)
    t.w("output.weight", E, N_VOCAB)
    for i in range(L):
        p = "blk.%d." % i
        t.norm(p + "attn_norm.weight", E)
        t.w(p + "attn_q.weight", E, H * D)
        t.norm(p + "attn_q.bias", H * D, 0.0)
        t.w(p + "attn_k.weight", E, HKV * D)
        t.norm(p + "attn_k.bias", HKV * D, 0.0)
        t.w(p + "attn_v.weight", E, HKV * D)
        t.norm(p + "attn_v.bias", HKV * D, 0.0)
        t.w(p + "attn_output.weight", H * D, E)
        t.norm(p + "ffn_norm.weight", E)
        t.w(p + "ffn_gate.weight", E, FF)
        t.w(p + "ffn_up.weight", E, FF)
        t.w(p + "ffn_down.weight", FF, E)
    return write_gguf(os.path.join(out, "qwen2.gguf"), "qwen2", "qwen2-tiny", kv, t.l)


def gemma_common(t, E, H, HKV, D, FF, L, qk_norm):
    t.w("token_embd.weight", E, N_VOCAB)
    t.norm("output_norm.weight", E)
    for i in range(L):
        p = "blk.%d." % i
        t.norm(p + "attn_norm.weight", E)
        t.w(p + "attn_q.weight", E, H * D)
        t.w(p + "attn_k.weight", E, HKV * D)
        t.w(p + "attn_v.weight", E, HKV * D)
        t.w(p + "attn_output.weight", H * D, E)
        t.norm(p + "post_attention_norm.weight", E)
        if qk_norm:
            t.norm(p + "attn_k_norm.weight", D)
            t.norm(p + "attn_q_norm.weight", D)
        t.norm(p + "ffn_norm.weight", E)
        t.w(p + "ffn_gate.weight", E, FF)
        t.w(p + "ffn_up.weight", E, FF)
        t.w(p + "ffn_down.weight", FF, E)
        t.norm(p + "post_ffw_norm.weight", E)


def gemma2_swa(out):
    E, H, HKV, D, FF, L = 64, 4, 2, 32, 32, 4
    kv = {"gemma2.context_length": u32(8192), "gemma2.embedding_length": u32(E), "gemma2.block_count": u32(L),
          "gemma2.feed_forward_length": u32(FF), "gemma2.attention.head_count": u32(H),
          "gemma2.attention.head_count_kv": u32(HKV), "gemma2.attention.key_length": u32(D),
          "gemma2.attention.value_length": u32(D), "gemma2.attention.layer_norm_rms_epsilon": f32(1e-6),
          "gemma2.attention.sliding_window": u32(256), "gemma2.attn_logit_softcapping": f32(50.0),
          "gemma2.final_logit_softcapping": f32(30.0)}
    t = T()
    gemma_common(t, E, H, HKV, D, FF, L, qk_norm=False)
    return write_gguf(os.path.join(out, "gemma2-swa.gguf"), "gemma2", "gemma2-swa", kv, t.l)


def gemma3_swa(out):
    E, H, HKV, D, FF, L = 64, 4, 2, 32, 32, 7
    kv = {"gemma3.context_length": u32(32768), "gemma3.embedding_length": u32(E), "gemma3.block_count": u32(L),
          "gemma3.feed_forward_length": u32(FF), "gemma3.attention.head_count": u32(H),
          "gemma3.attention.head_count_kv": u32(HKV), "gemma3.attention.key_length": u32(D),
          "gemma3.attention.value_length": u32(D), "gemma3.attention.layer_norm_rms_epsilon": f32(1e-6),
          "gemma3.attention.sliding_window": u32(512), "gemma3.rope.freq_base": f32(1000000.0)}
    t = T()
    gemma_common(t, E, H, HKV, D, FF, L, qk_norm=True)
    return write_gguf(os.path.join(out, "gemma3-swa.gguf"), "gemma3", "gemma3-swa", kv, t.l)


def deepseek2_mla(out):
    E, H, L, FF, FF_EXP = 64, 4, 2, 64, 32
    KV_LORA, Q_LORA, ROT = 64, 32, 32
    K_MLA, V_MLA = 64, 32          # per-head q/k = nope 32 + rope 32; v 32 (after decompression)
    NOPE = K_MLA - ROT
    N_EXP, N_EXP_USED, N_SHARED = 2, 1, 1
    kv = {"deepseek2.context_length": u32(4096), "deepseek2.embedding_length": u32(E),
          "deepseek2.block_count": u32(L), "deepseek2.feed_forward_length": u32(FF),
          "deepseek2.attention.head_count": u32(H), "deepseek2.attention.head_count_kv": u32(1),
          "deepseek2.attention.key_length": u32(KV_LORA + ROT), "deepseek2.attention.value_length": u32(KV_LORA),
          "deepseek2.attention.key_length_mla": u32(K_MLA), "deepseek2.attention.value_length_mla": u32(V_MLA),
          "deepseek2.attention.q_lora_rank": u32(Q_LORA), "deepseek2.attention.kv_lora_rank": u32(KV_LORA),
          "deepseek2.rope.dimension_count": u32(ROT), "deepseek2.rope.freq_base": f32(10000.0),
          "deepseek2.attention.layer_norm_rms_epsilon": f32(1e-6),
          "deepseek2.leading_dense_block_count": u32(1), "deepseek2.expert_count": u32(N_EXP),
          "deepseek2.expert_used_count": u32(N_EXP_USED), "deepseek2.expert_shared_count": u32(N_SHARED),
          "deepseek2.expert_feed_forward_length": u32(FF_EXP), "deepseek2.expert_weights_scale": f32(1.0),
          "deepseek2.expert_weights_norm": b(False), "deepseek2.expert_gating_func": u32(1),
          "deepseek2.vocab_size": u32(N_VOCAB)}
    t = T()
    t.w("token_embd.weight", E, N_VOCAB)
    t.norm("output_norm.weight", E)
    t.w("output.weight", E, N_VOCAB)
    for i in range(L):
        p = "blk.%d." % i
        t.norm(p + "attn_norm.weight", E)
        t.norm(p + "attn_q_a_norm.weight", Q_LORA)
        t.norm(p + "attn_kv_a_norm.weight", KV_LORA)
        t.w(p + "attn_q_a.weight", E, Q_LORA)
        t.w(p + "attn_q_b.weight", Q_LORA, H * K_MLA)
        t.w(p + "attn_kv_a_mqa.weight", E, KV_LORA + ROT)
        t.w(p + "attn_k_b.weight", NOPE, KV_LORA, H)
        t.w(p + "attn_v_b.weight", KV_LORA, V_MLA, H)
        t.w(p + "attn_output.weight", H * V_MLA, E)
        t.norm(p + "ffn_norm.weight", E)
        if i < 1:
            t.w(p + "ffn_gate.weight", E, FF)
            t.w(p + "ffn_up.weight", E, FF)
            t.w(p + "ffn_down.weight", FF, E)
        else:
            t.w(p + "ffn_gate_inp.weight", E, N_EXP, ttype=F32)
            t.w(p + "ffn_gate_exps.weight", E, FF_EXP, N_EXP)
            t.w(p + "ffn_up_exps.weight", E, FF_EXP, N_EXP)
            t.w(p + "ffn_down_exps.weight", FF_EXP, E, N_EXP)
            t.w(p + "ffn_gate_shexp.weight", E, FF_EXP * N_SHARED)
            t.w(p + "ffn_up_shexp.weight", E, FF_EXP * N_SHARED)
            t.w(p + "ffn_down_shexp.weight", FF_EXP * N_SHARED, E)
    return write_gguf(os.path.join(out, "deepseek2-mla.gguf"), "deepseek2", "deepseek2-mla", kv, t.l)


def bert_embed(out):
    E, H, L, FF, CTX = 64, 2, 2, 128, 512
    kv = {"bert.context_length": u32(CTX), "bert.embedding_length": u32(E), "bert.block_count": u32(L),
          "bert.feed_forward_length": u32(FF), "bert.attention.head_count": u32(H),
          "bert.attention.layer_norm_epsilon": f32(1e-12), "bert.attention.causal": b(False),
          "bert.pooling_type": u32(1), "tokenizer.ggml.token_type_count": u32(2)}
    t = T()
    t.w("token_embd.weight", E, N_VOCAB)
    t.w("token_types.weight", E, 2, ttype=F32)
    t.w("position_embd.weight", E, CTX)
    t.norm("token_embd_norm.weight", E)
    t.norm("token_embd_norm.bias", E, 0.0)
    for i in range(L):
        p = "blk.%d." % i
        for n in ("attn_q", "attn_k", "attn_v"):
            t.w(p + n + ".weight", E, E)
            t.norm(p + n + ".bias", E, 0.0)
        t.w(p + "attn_output.weight", E, E)
        t.norm(p + "attn_output.bias", E, 0.0)
        t.norm(p + "attn_output_norm.weight", E)
        t.norm(p + "attn_output_norm.bias", E, 0.0)
        t.w(p + "ffn_up.weight", E, FF)
        t.norm(p + "ffn_up.bias", FF, 0.0)
        t.w(p + "ffn_down.weight", FF, E)
        t.norm(p + "ffn_down.bias", E, 0.0)
        t.norm(p + "layer_output_norm.weight", E)
        t.norm(p + "layer_output_norm.bias", E, 0.0)
    return write_gguf(os.path.join(out, "bert-embed.gguf"), "bert", "bert-embed", kv, t.l)


def mamba(out):
    E, L, D_CONV, D_STATE, DT_RANK = 64, 2, 4, 16, 4
    D_INNER = 2 * E
    kv = {"mamba.context_length": u32(1048576), "mamba.embedding_length": u32(E), "mamba.block_count": u32(L),
          "mamba.feed_forward_length": u32(0), "mamba.attention.head_count": u32(0),
          "mamba.attention.layer_norm_rms_epsilon": f32(1e-5),
          "mamba.ssm.conv_kernel": u32(D_CONV), "mamba.ssm.inner_size": u32(D_INNER),
          "mamba.ssm.state_size": u32(D_STATE), "mamba.ssm.time_step_rank": u32(DT_RANK),
          "mamba.ssm.group_count": u32(0)}
    t = T()
    t.w("token_embd.weight", E, N_VOCAB)
    t.norm("output_norm.weight", E)
    for i in range(L):
        p = "blk.%d." % i
        t.norm(p + "attn_norm.weight", E)
        t.w(p + "ssm_in.weight", E, 2 * D_INNER)
        t.w(p + "ssm_conv1d.weight", D_CONV, D_INNER, ttype=F32)
        t.norm(p + "ssm_conv1d.bias", D_INNER, 0.0)
        t.w(p + "ssm_x.weight", D_INNER, DT_RANK + 2 * D_STATE)
        t.w(p + "ssm_dt.weight", DT_RANK, D_INNER, ttype=F32)
        t.norm(p + "ssm_dt.bias", D_INNER, 0.0)
        t.w(p + "ssm_a", D_STATE, D_INNER, ttype=F32, fill=-1.0)
        t.norm(p + "ssm_d", D_INNER)
        t.w(p + "ssm_out.weight", D_INNER, E)
    return write_gguf(os.path.join(out, "mamba.gguf"), "mamba", "mamba-tiny", kv, t.l)


def deci_perlayer_kv(out, HKV=(2, 4, 1, 2), fname="deci-perlayer-kv"):
    # DeciLM / Nemotron-NAS: llama.cpp's "deci" reads head_count_kv (and head_count, feed_forward_length)
    # per layer and sizes attn_k/attn_v with n_embd_k_gqa(il); the KV cache follows per layer.
    E, H, L, FF = 128, 4, 4, 32
    D = E // H
    kv = {"deci.context_length": u32(4096), "deci.embedding_length": u32(E), "deci.block_count": u32(L),
          "deci.feed_forward_length": arr(T_I32, [FF] * L), "deci.attention.head_count": arr(T_I32, [H] * L),
          "deci.attention.head_count_kv": arr(T_I32, list(HKV)), "deci.rope.dimension_count": u32(D),
          "deci.attention.layer_norm_rms_epsilon": f32(1e-5), "deci.rope.freq_base": f32(10000.0),
          "deci.vocab_size": u32(N_VOCAB)}
    t = T()
    t.w("token_embd.weight", E, N_VOCAB)
    t.norm("output_norm.weight", E)
    for i in range(L):
        p = "blk.%d." % i
        t.norm(p + "attn_norm.weight", E)
        if HKV[i] == 0:   # "linear attention" layer of DeciLM: only attn_output {n_embd, n_embd}
            t.w(p + "attn_output.weight", E, E)
        else:
            t.w(p + "attn_q.weight", E, H * D)
            t.w(p + "attn_k.weight", E, HKV[i] * D)
            t.w(p + "attn_v.weight", E, HKV[i] * D)
            t.w(p + "attn_output.weight", H * D, E)
        t.norm(p + "ffn_norm.weight", E)
        t.w(p + "ffn_gate.weight", E, FF)
        t.w(p + "ffn_up.weight", E, FF)
        t.w(p + "ffn_down.weight", FF, E)
    return write_gguf(os.path.join(out, fname + ".gguf"), "deci", fname, kv, t.l)


def deci_kv0(out):
    # same, with a layer whose head_count_kv is 0 (DeciLM "linear attention" layer: no K/V projections)
    return deci_perlayer_kv(out, HKV=(2, 0, 4, 1), fname="deci-kv0")


MODELS = [llama_gqa, qwen2, gemma2_swa, gemma3_swa, deepseek2_mla, bert_embed, mamba, deci_perlayer_kv, deci_kv0]

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for fn in MODELS:
        size = fn(out)
        print("%-24s %8d bytes" % (fn.__name__, size))
