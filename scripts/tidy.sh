#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs clang-tidy with the root .clang-tidy over every C++ source of a configured build
# (default build/test, made by scripts/test.sh); fails on any finding.
#   scripts/tidy.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/test}
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: configure first" >&2; exit 2; }
git ls-files '*.cpp' | grep -v '^tests/fuzz/' |
  xargs -P "$(nproc)" -n 8 clang-tidy -p "$build" --quiet 2> >(grep -v 'warnings generated' >&2)
echo "clang-tidy: no findings"
