#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Reads oracle.txt (llama.cpp's own log lines and memory_breakdown bytes, see README.md) and writes
# figures.tsv: one row per run, the inputs llama.cpp used and what it allocated, for
# tests/tst_memory_oracle.cpp. Standard library only:  python3 extract_figures.py > figures.tsv
import re
import sys

COLUMNS = ["model", "n_ctx", "n_seq", "n_ubatch", "flash_attn", "type_k", "type_v", "swa_full", "embedding",
           "full_cells", "full_layers", "full_k_mib", "full_v_mib", "swa_cells", "swa_layers", "swa_k_mib",
           "swa_v_mib", "rs_cells", "rs_r_mib", "rs_s_mib", "output_mib", "compute_mib", "model_bytes",
           "context_bytes"]


def runs(text):
    run = None
    for line in text.splitlines():
        if line.startswith("$ node llama-memory2.mjs "):
            if run:
                yield run
            args = line.split()[3:]
            path = args[0]
            model = path.split("/")[-1].removesuffix(".gguf")
            run = {"model": model, "type_k": "f16", "type_v": "f16", "swa_full": "0", "embedding": "0",
                   "args": args, "caches": []}
            if "--swa-full" in args:
                run["swa_full"] = "1"
            if "--embedding" in args:
                run["embedding"] = "1"
            for flag, key in (("--ctk", "type_k"), ("--ctv", "type_v")):
                if flag in args:
                    run[key] = args[args.index(flag) + 1]
            continue
        if run is None:
            continue
        m = re.search(r"exact bytes: model memory_breakdown cpuRam=(\d+); context memory_breakdown .* cpuRam=(\d+)", line)
        if m:
            run["model_bytes"], run["context_bytes"] = m.group(1), m.group(2)
        for key, name in (("n_ctx", "n_ctx"), ("n_seq", "n_seq_max"), ("n_ubatch", "n_ubatch")):
            m = re.match(r"llama_context: %s\s+= (\d+)$" % name, line)
            if m:
                run[key] = m.group(1)
        m = re.match(r"llama_context: flash_attn\s+= (\w+)", line)
        if m:
            run["flash_attn"] = "0" if m.group(1) == "disabled" else "1"
        m = re.search(r"llama_kv_cache_iswa: creating\s+(non-SWA|SWA) KV cache", line)
        if m:
            run["next_cache"] = "swa" if m.group(1) == "SWA" else "full"
        m = re.search(r"llama_kv_cache: size =\s+[\d.]+ MiB \(\s*(\d+) cells,\s+(\d+) layers.*K \(\w+\):\s+([\d.]+) MiB"
                      r"(?:, V \(\w+\):\s+([\d.]+) MiB)?", line)
        if m:
            kind = run.pop("next_cache", "full")
            run[kind + "_cells"], run[kind + "_layers"], run[kind + "_k_mib"] = m.group(1), m.group(2), m.group(3)
            run[kind + "_v_mib"] = m.group(4) or "0.00"
        m = re.search(r"llama_memory_recurrent: size =.*\(\s*(\d+) cells.*R \(f32\):\s+([\d.]+) MiB, S \(f32\):\s+([\d.]+) MiB",
                      line)
        if m:
            run["rs_cells"], run["rs_r_mib"], run["rs_s_mib"] = m.groups()
        m = re.search(r"CPU\s+output buffer size =\s+([\d.]+) MiB", line)
        if m:
            run["output_mib"] = m.group(1)
        m = re.search(r"CPU compute buffer size =\s+([\d.]+) MiB", line)
        if m:
            run["compute_mib"] = m.group(1)
    if run:
        yield run


def main():
    text = open(sys.argv[1] if len(sys.argv) > 1 else "oracle.txt", encoding="utf-8").read()
    print("\t".join(COLUMNS))
    for run in runs(text):
        if "compute_mib" not in run:  # the run failed (llama.cpp refused the cache type)
            continue
        print("\t".join(run.get(c, "-") for c in COLUMNS))


if __name__ == "__main__":
    main()
