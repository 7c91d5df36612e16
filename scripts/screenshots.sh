#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes the screenshots in docs/screenshots/ under Xvfb (xvfb-run): the explorer's screenshot tour
# over the bundled sample, in the light and the dark colour scheme and at 200 % scale
# (QT_SCALE_FACTOR=2), and keeps a few pages of each.
#   scripts/screenshots.sh [BUILD_DIR]     (default build/test; the explorer must be built there)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
gguf_ensure_packages xvfb xauth

explorer=${1:-build/test}/app/gguf-explorer
sample=resources/sample/tiny-llama-tied-q4_k_m.gguf
[ -x "$explorer" ] || { echo "scripts/screenshots.sh: build the explorer first ($explorer)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# a settings folder of its own: nothing of the user's (recent files, a chosen scheme) shows
export XDG_CONFIG_HOME=$work/config
tour() { # tour NAME SCREEN [arguments…] (the sample model, unless the arguments name files)
  local name=$1 screen=$2; shift 2
  mkdir -p "$work/$name"
  local files=("$sample")
  [ $# -gt 0 ] && [ -e "${*: -1}" ] && files=()
  xvfb-run -a -s "-screen 0 ${screen}x24" "$explorer" "$@" --screenshot "$work/$name/shot" "${files[@]}" >/dev/null 2>&1
}
tour light 1600x1000
tour dark 1600x1000 --color-scheme dark
QT_SCALE_FACTOR=2 tour scale2 3200x2000
# a Hugging Face checkpoint (#43): its pages, and the Compare page with its Q8_0 conversion as A
checkpoint=tests/data/hf-oracle/mixtral-bf16
tour checkpoint 1600x1000 "$checkpoint"
tour checkpoint-compare 1600x1000 --compare "$checkpoint.q8_0.gguf" "$checkpoint"
# its Tokenize tab with a real tokenizer.json: qwen3's (trimmed, tests/data/hf-tokenizers) beside
# the qwen3 oracle's weights
qwen=$work/qwen3-checkpoint
mkdir -p "$qwen"
cp tests/data/hf-oracle/qwen3-bf16/config.json tests/data/hf-oracle/qwen3-bf16/model.safetensors "$qwen/"
cp tests/data/hf-tokenizers/qwen3.tokenizer.json "$qwen/tokenizer.json"
tour checkpoint-tokenize 1600x1000 "$qwen"

mkdir -p docs/screenshots
rm -f docs/screenshots/*.png
for page in overview bytes weights-histogram weights-heatmap tokenize; do
  cp "$work/light/shot-$page.png" "docs/screenshots/light-$page.png"
  cp "$work/dark/shot-$page.png" "docs/screenshots/dark-$page.png"
done
for page in overview bytes; do
  cp "$work/scale2/shot-$page.png" "docs/screenshots/scale200-$page.png"
done
for page in overview metadata tensors weights weights-heatmap tokenizer bytes; do
  cp "$work/checkpoint/shot-checkpoint-$page.png" "docs/screenshots/checkpoint-$page.png"
done
cp "$work/checkpoint-tokenize/shot-checkpoint-tokenize.png" docs/screenshots/checkpoint-tokenize.png
cp "$work/checkpoint-compare/shot-compare-checkpoint.png" docs/screenshots/checkpoint-compare.png
cp "$work/checkpoint-compare/shot-compare-checkpoint-heatmap.png" docs/screenshots/checkpoint-compare-heatmap.png
ls docs/screenshots
