#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs clang-tidy with the root .clang-tidy over every C++ source of a configured and built build
# (default build/test, made by scripts/test.sh); fails on any finding. A source whose text,
# included headers and flags are those of a recorded clean pass is not checked again: the records
# are kept beside the compiler cache, in GGUF_CACHE_DIR/clang-tidy (scripts/tidy_cached.py).
#   scripts/tidy.sh [BUILD_DIR]
#   GGUF_TIDY_CACHE=off scripts/tidy.sh     check every source, whatever was recorded
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/test}
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: configure first" >&2; exit 2; }
cache_root=$(sed -n 's/^GGUF_CACHE_DIR:PATH=//p' "$build/CMakeCache.txt")
cache_root=${cache_root:-${XDG_CACHE_HOME:-$HOME/.cache}/gguf-explorer}
cache="$cache_root/clang-tidy"
if [ "${GGUF_TIDY_CACHE:-on}" = "off" ]; then
  cache=$(mktemp -d "${TMPDIR:-/tmp}/gguf-tidy.XXXXXX")
  trap 'rm -rf "$cache"' EXIT
fi
list=$(mktemp "${TMPDIR:-/tmp}/gguf-tidy-files.XXXXXX")
trap 'rm -f "$list"; [ "${GGUF_TIDY_CACHE:-on}" = "off" ] && rm -rf "$cache"' EXIT
git ls-files '*.cpp' | grep -v '^tests/fuzz/' > "$list"
python3 scripts/tidy_cached.py . "$build" "$cache" "$list"
