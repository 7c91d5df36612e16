#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing, checks the formatting, builds every target and runs every test with
# CTest under the offscreen Qt platform: first the normal configuration (then clang-tidy's checks
# over it), then the core and gguf-inspect alone (-DGGUF_BUILD_GUI=OFF, with every GUI package
# made unfindable), then the AddressSanitizer + UBSan configuration and 60 seconds of the monkey
# test in it (tests/monkey), then a 60-second libFuzzer run over the read path (scripts/fuzz.sh).
# After the normal configuration the Debian package is built from it (scripts/package.sh) and
# checked with lintian.
#   scripts/test.sh            all of it
#   scripts/test.sh --quick    the formatting and the normal configuration only
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
gguf_ensure_packages clang-format clang-tidy "${GGUF_PACKAGE_TOOLS[@]}"

quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=2
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
export QT_QPA_PLATFORM=offscreen

run_config() {
  local dir=$1; shift
  echo "== configure $dir ($*)"
  cmake -S . -B "$dir" -DGGUF_WERROR="$werror" "$@" >/dev/null
  echo "== build $dir"
  cmake --build "$dir" -j"$jobs"
  echo "== test $dir"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout 900
}

echo "== format (clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -n 1))"
bash scripts/format.sh --check

run_config build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== package (scripts/package.sh, then lintian)"
deb=$(bash scripts/package.sh --build-dir build/test --output build/test/package | tail -n 1)
# errors fail the run; warnings and notes are printed for whoever reads the log
lintian --fail-on error --display-info --tag-display-limit 0 "$deb"
echo "lintian: no errors in $(basename "$deb")"
if [ "$quick" -eq 0 ]; then
  echo "== clang-tidy (.clang-tidy checks over build/test)"
  bash scripts/tidy.sh build/test
  # Without the explorer nothing may look for Qt Gui, Widgets, PrintSupport, Svg, Concurrent or
  # QCustomPlot: each is made unfindable, so a find_package of one fails the configuration.
  nogui=(--no-warn-unused-cli -DGGUF_BUILD_GUI=OFF)
  for p in Qt6Gui Qt6Widgets Qt6PrintSupport Qt6Svg Qt6Concurrent QCustomPlotQt6; do
    nogui+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON")
  done
  run_config build/nogui -DCMAKE_BUILD_TYPE=RelWithDebInfo "${nogui[@]}"
  # Qt's own allocations are not ours to chase; leaks are checked on core targets by the fuzzer.
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  run_config build/asan -DCMAKE_BUILD_TYPE=Debug -DGGUF_SANITIZE=ON
  # seeded random walks of user actions on the window under the sanitizers (tests/monkey), with
  # LeakSanitizer on: whatever the walk leaves allocated at exit fails the run
  echo "== monkey (60 s)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 build/asan/tests/monkey/gguf-monkey --seconds 60
  echo "== fuzz (60 s)"
  bash scripts/fuzz.sh 60
fi
echo "All tests passed."
