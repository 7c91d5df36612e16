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
tour() { # tour NAME SCREEN [arguments…]
  local name=$1 screen=$2; shift 2
  mkdir -p "$work/$name"
  xvfb-run -a -s "-screen 0 ${screen}x24" "$explorer" "$@" --screenshot "$work/$name/shot" "$sample" >/dev/null 2>&1
}
tour light 1600x1000
tour dark 1600x1000 --color-scheme dark
QT_SCALE_FACTOR=2 tour scale2 3200x2000

mkdir -p docs/screenshots
rm -f docs/screenshots/*.png
for page in overview bytes weights-histogram weights-heatmap tokenize; do
  cp "$work/light/shot-$page.png" "docs/screenshots/light-$page.png"
  cp "$work/dark/shot-$page.png" "docs/screenshots/dark-$page.png"
done
for page in overview bytes; do
  cp "$work/scale2/shot-$page.png" "docs/screenshots/scale200-$page.png"
done
ls docs/screenshots
