#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes golden.json: NumPy's statistics of three tensors of the sample model, decoded by gguf-py's
# own NumPy dequantizer (llama.cpp gguf-py/gguf/quants.py), not by this project's code. See README.md.
import json
import sys

import gguf
import numpy as np

MODEL = sys.argv[1]
BINS = 64
NAMES = ["output_norm.weight", "blk.0.attn_q.weight", "token_embd.weight"]

reader = gguf.GGUFReader(MODEL)
out = []
for tensor in reader.tensors:
    if tensor.name not in NAMES:
        continue
    values = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float64).ravel()
    finite = values[np.isfinite(values)]
    lo, hi = float(finite.min()), float(finite.max())
    counts, _ = np.histogram(finite, bins=BINS, range=(lo, hi))
    out.append({
        "name": tensor.name,
        "type": tensor.tensor_type.name,
        "count": int(values.size),
        "percentiles": {f"p{p}": float(np.percentile(finite, p)) for p in (1, 5, 25, 50, 75, 95, 99)},
        "histogram": {"lo": lo, "hi": hi, "counts": [int(c) for c in counts]},
    })
json.dump(out, sys.stdout, indent=1)
print()
