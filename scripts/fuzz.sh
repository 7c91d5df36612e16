#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer target with clang (+ ASan/UBSan) and fuzzes the whole read path.
#   scripts/fuzz.sh [SECONDS]      default 60 (CI); e.g. scripts/fuzz.sh 1800 for a long run
# New interesting inputs collect in build/fuzz/corpus-work; a crash leaves build/fuzz/crash-*:
# copy it to tests/fuzz/regressions/ so that tst_fuzz_replay checks it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
gguf_ensure_packages clang libclang-rt-14-dev llvm
seconds=${1:-60}
# -O1, as libFuzzer's documentation builds its targets: most of -O2's speed, in less compile time
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DGGUF_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" >/dev/null
cmake --build build/fuzz -j2 --target fuzz_gguf
mkdir -p build/fuzz/corpus-work
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
build/fuzz/tests/fuzz/fuzz_gguf build/fuzz/corpus-work tests/fuzz/corpus tests/fuzz/regressions \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=build/fuzz/ -print_final_stats=1 > build/fuzz/last-run.log 2>&1 || status=$?
# the summary: the final coverage line and the statistics (the whole log: build/fuzz/last-run.log)
grep -E '^#[0-9]+[[:space:]]+DONE|^stat::|ERROR|SUMMARY|crash-|leak-|timeout-' build/fuzz/last-run.log | tail -n 20
exit $status
