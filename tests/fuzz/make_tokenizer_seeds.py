#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes small GGUF files with tokenizers (each kind, several pre-tokenizers, byte tokens, user-defined
and control tokens, a Unigram charsmap, RWKV escapes) and chat templates into corpus/, named by
their SHA-1 as libFuzzer names its inputs, so the fuzzer starts from the tokenizer paths."""
import hashlib
import os
import struct

T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR, T_U8 = 4, 5, 6, 7, 8, 9, 0


def s(x):
    b = x.encode() if isinstance(x, str) else x
    return struct.pack("<Q", len(b)) + b


def kv(key, typ, payload):
    return s(key) + struct.pack("<I", typ) + payload


def arr(typ, items):
    out = struct.pack("<IQ", typ, len(items))
    for it in items:
        out += {T_STR: s, T_F32: lambda v: struct.pack("<f", v), T_I32: lambda v: struct.pack("<i", v),
                T_U8: lambda v: struct.pack("<B", v)}[typ](it)
    return out


def gguf(pairs):
    body = b"".join(pairs)
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs)) + body


def vocab(model, tokens, types=None, scores=None, extra=()):
    pairs = [kv("tokenizer.ggml.model", T_STR, s(model)), kv("tokenizer.ggml.tokens", T_ARR, arr(T_STR, tokens))]
    if types:
        pairs.append(kv("tokenizer.ggml.token_type", T_ARR, arr(T_I32, types)))
    if scores:
        pairs.append(kv("tokenizer.ggml.scores", T_ARR, arr(T_F32, scores)))
    return gguf(pairs + list(extra))


sp = "\u2581"
seeds = []
byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
seeds.append(vocab("llama", ["<unk>", "<s>", "</s>"] + byte_tokens + [sp, sp + "H", "el", "lo", sp + "Hello"],
                   [2, 3, 3] + [6] * 256 + [1] * 5, [0, 0, 0] + [0] * 256 + [-1, -2, -3, -4, -0.5],
                   [kv("tokenizer.ggml.add_bos_token", T_BOOL, b"\x01"),
                    kv("tokenizer.chat_template", T_STR, s("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content | trim }}{% if not loop.last %}\n{% endif %}{% endfor %}"))]))
gpt2_tokens = [chr(c) for c in range(33, 127)] + ["\u0120", "\u010a", "He", "ll", "llo", "\u0120w", "<|endoftext|>", "<|im_end|>"]
merges = ["H e", "l l", "ll o", "\u0120 w"]
for pre in ["qwen2", "llama3", "deepseek-coder", "deepseek-llm", "deepseek-v3", "tekken", "chameleon", "falcon", "poro-chat", "no-such-pre", ""]:
    extra = [kv("tokenizer.ggml.merges", T_ARR, arr(T_STR, merges))]
    if pre:
        extra.append(kv("tokenizer.ggml.pre", T_STR, s(pre)))
    types = [1] * (len(gpt2_tokens) - 2) + [3, 4]
    seeds.append(vocab("gpt2", gpt2_tokens, types, None, extra))
seeds.append(vocab("bert", ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]", sp + "hello", "lo", sp + "w", "orld"],
                   [3] + [1] * 99 + [3, 3, 3, 3, 1, 1, 1, 1]))
charsmap = struct.pack("<I", 16) + struct.pack("<4I", 0x400, 0x4141, 0x80000001, 7) + b"a\0bb\0"
seeds.append(vocab("t5", ["<pad>", "</s>", "<unk>", sp, sp + "a", "b", "<x>"], [3, 3, 2, 1, 1, 1, 4], [0, 0, 0, -3, -1, -1, 0],
                   [kv("tokenizer.ggml.precompiled_charsmap", T_ARR, arr(T_U8, list(charsmap))),
                    kv("tokenizer.ggml.add_space_prefix", T_BOOL, b"\x01"),
                    kv("tokenizer.ggml.remove_extra_whitespaces", T_BOOL, b"\x01")]))
seeds.append(vocab("rwkv", ["a", "ab", "\\n", "\\x41", "\\\\", "\\xff", "\\x"]))
seeds.append(vocab("no_vocab", ["a"]))

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
for data in seeds:
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)
print(len(seeds), "seeds")
