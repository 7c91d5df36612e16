#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing, checks the formatting, builds every target and runs every test with
# CTest under the offscreen Qt platform (docs/BUILDING.md):
#   1. the normal configuration (build/test): built, packaged as a .deb (scripts/package.sh) that
#      lintian and tst_package both check, then its tests, then clang-tidy's checks over it;
#   2. the core and gguf-inspect alone (build/nogui, -DGGUF_BUILD_GUI=OFF, with every GUI package
#      made unfindable): configuring and building it proves they need no GUI package, and the tests
#      labelled `nogui` (the ones that link only the core and the CLI) run there, not in build/test;
#   3. the AddressSanitizer + UBSan configuration (build/asan, -O1 -g, libraries compiled in unity
#      batches): every test again, then
#      60 seconds of the monkey test (tests/monkey) under LeakSanitizer;
#   4. a 60-second libFuzzer run over the read path (scripts/fuzz.sh).
# Compilations go through ccache (cmake/build_speed.cmake) and clang-tidy skips the sources it
# passed before unchanged (scripts/tidy.sh); both caches live in ~/.cache/gguf-explorer. The run
# ends with a table: the minutes of each stage, the ten slowest tests and the cache's hit rate.
#
#   scripts/test.sh             all of it (CI)
#   scripts/test.sh --quick     build/test only: the formatting of the changed files, the build, and
#                               the tests whose programs or data changed since they last passed
#   scripts/test.sh --changed [BASE]
#                               build/test and build/asan: the tests built from a file changed since
#                               BASE (default origin/main when there is one, else HEAD), committed
#                               or not, in both
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
gguf_ensure_packages "${GGUF_BUILD_TOOLS[@]}" "${GGUF_PACKAGE_TOOLS[@]}" "${GGUF_REPORT_TOOLS[@]}"

mode=full
base=""
case "${1:-}" in
  "") ;;
  --quick) mode=quick ;;
  --changed)
    mode=changed
    base=${2:-}
    if [ -z "$base" ]; then
      if git rev-parse -q --verify origin/main >/dev/null; then base=$(git merge-base HEAD origin/main); else base=HEAD; fi
    fi
    ;;
  *) echo "usage: scripts/test.sh [--quick | --changed [BASE]]" >&2; exit 2 ;;
esac
jobs=2
# warnings are errors in every mode, as in CI, so that a loop's build is the one CI makes (and the
# caches are shared); GGUF_WERROR=OFF scripts/test.sh … for a build that only warns
werror=${GGUF_WERROR:-ON}
export QT_QPA_PLATFORM=offscreen
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# What the run writes for its closing table (scripts/test_report.py).
run_dir=build/test-run
rm -rf "$run_dir"
mkdir -p "$run_dir"
: > "$run_dir/stages.tsv"
cache_dir=${GGUF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gguf-explorer}
ccache_stats() { CCACHE_DIR="$cache_dir/ccache" ccache --print-stats > "$1" 2>/dev/null || true; }
ccache_stats "$run_dir/ccache-before.tsv"
current_stage=""
report() {
  local status=$?
  if [ -n "$current_stage" ]; then
    printf '%s\t%s\tfailed\n' "$current_stage" "$((SECONDS - stage_start))" >> "$run_dir/stages.tsv"
  fi
  ccache_stats "$run_dir/ccache-after.tsv"
  python3 scripts/test_report.py "$run_dir" || true
  exit $status
}
trap report EXIT

# stage NAME COMMAND…: runs the command as one timed stage of the table
stage() {
  current_stage=$1
  stage_start=$SECONDS
  echo "== $1"
  shift
  local rc=0
  "$@" || rc=$?
  printf '%s\t%s\t%s\n' "$current_stage" "$((SECONDS - stage_start))" "$([ $rc -eq 0 ] && echo ok || echo failed)" >> "$run_dir/stages.tsv"
  current_stage=""
  return $rc
}

# (the functions a stage runs chain their steps with &&: `set -e` does not reach into them there)
configure_and_build() {
  local dir=$1; shift
  cmake -S . -B "$dir" -DGGUF_WERROR="$werror" -DGGUF_CACHE_DIR="$cache_dir" "$@" >/dev/null &&
    cmake --build "$dir" -j"$jobs"
}

# run_tests DIR NAME [ctest options…]: CTest with a JUnit record for the closing table. When every
# failure is a test program the dynamic loader could not start (scripts/loader_failures.py: the
# machine short of memory for a moment, before any test code ran), those programs run once more,
# one at a time, after the memory figures are printed; any other failure stands as it is.
run_tests() {
  local dir=$1 name=$2; shift 2
  local junit="$PWD/$run_dir/junit-$name.xml" unstarted
  # the build's output written out first (gigabytes of dirty pages just after a cached build), so
  # that the tests do not start while the kernel is still flushing them
  sync
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" --timeout 900 --output-junit "$junit" "$@" && return 0
  unstarted=$(python3 scripts/loader_failures.py "$junit") || return 1
  echo "== not started by the dynamic loader: ${unstarted//|/ }; memory now:"
  free -m || true
  ctest --test-dir "$dir" --output-on-failure -j1 --timeout 900 \
    --output-junit "$PWD/$run_dir/junit-$name-again.xml" -R "^($unstarted)\$"
}

# run_selected DIR NAME TEST…: only the named tests (none: says so)
run_selected() {
  local dir=$1 name=$2; shift 2
  if [ $# -eq 0 ]; then
    echo "no test is affected"
    return 0
  fi
  echo "$# test(s): $*"
  local regex
  regex="^($(printf '%s|' "$@" | sed 's/|$//'))\$"
  run_tests "$dir" "$name" -R "$regex"
}

# The package of build/test, made once: lintian checks it and tst_package unpacks the same file.
package_build_test() {
  local deb
  deb=$(bash scripts/package.sh --build-dir build/test --output build/test/package | tail -n 1) &&
    echo "$deb" > "$run_dir/package-path" &&
    # errors fail the run; warnings and notes are printed for whoever reads the log
    lintian --fail-on error --display-info --tag-display-limit 0 "$deb" &&
    echo "lintian: no errors in $(basename "$deb")"
}

# build/test and build/nogui keep line tables only (-g1: enough for a backtrace, and it compiles in
# about two thirds of the time of -g, with objects a seventh the size); build/asan has full debug
# information. The two share their flags, so build/nogui compiles from the cache of build/test.
release_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
test_config=("${release_flags[@]}")
asan_config=(-DCMAKE_BUILD_TYPE=Debug -DGGUF_SANITIZE=ON -DGGUF_UNITY=ON)

if [ "$mode" = "quick" ]; then
  mapfile -t touched < <({ git diff --name-only HEAD; git ls-files --others --exclude-standard; } | sort -u)
  stage "format (changed files)" bash scripts/format.sh --check-files "${touched[@]}"
  stage "build build/test" configure_and_build build/test "${test_config[@]}"
  mapfile -t selected < <(python3 scripts/affected_tests.py quick build/test)
  status=0
  stage "test build/test" run_selected build/test test "${selected[@]}" || status=$?
  [ -f "$run_dir/junit-test.xml" ] && python3 scripts/affected_tests.py record build/test "$run_dir/junit-test.xml"
  [ "$status" -eq 0 ] || exit "$status"
  echo "All tests passed."
  exit 0
fi

if [ "$mode" = "changed" ]; then
  mapfile -t files < <({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  echo "${#files[@]} file(s) changed since $(git rev-parse --short "$base")"
  stage "format (changed files)" bash scripts/format.sh --check-files "${files[@]}"
  stage "build build/test" configure_and_build build/test "${test_config[@]}"
  mapfile -t selected < <(python3 scripts/affected_tests.py changed build/test "${files[@]}")
  stage "test build/test" run_selected build/test test "${selected[@]}"
  stage "build build/asan" configure_and_build build/asan "${asan_config[@]}"
  mapfile -t selected < <(python3 scripts/affected_tests.py changed build/asan "${files[@]}")
  stage "test build/asan" run_selected build/asan asan "${selected[@]}"
  echo "All tests passed."
  exit 0
fi

stage "format" bash scripts/format.sh --check
# no more than 10 functions over 80 lines outside tests and data tables (#39)
stage "function lengths" python3 scripts/long_functions.py --max 10
stage "build build/test" configure_and_build build/test "${test_config[@]}"
stage "package and lintian" package_build_test
GGUF_PACKAGE_DEB=$(cat "$run_dir/package-path")
export GGUF_PACKAGE_DEB
stage "test build/test (all but nogui)" run_tests build/test test -LE nogui
# what passed here, so that a later --quick does not run it again unchanged
python3 scripts/affected_tests.py record build/test "$run_dir/junit-test.xml" || true
stage "clang-tidy" bash scripts/tidy.sh build/test
# Without the explorer nothing may look for Qt Gui, Widgets, PrintSupport, Svg, Concurrent or
# QCustomPlot: each is made unfindable, so a find_package of one fails the configuration.
nogui=(--no-warn-unused-cli -DGGUF_BUILD_GUI=OFF)
for p in Qt6Gui Qt6Widgets Qt6PrintSupport Qt6Svg Qt6Concurrent QCustomPlotQt6; do
  nogui+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON")
done
stage "build build/nogui" configure_and_build build/nogui "${release_flags[@]}" "${nogui[@]}"
stage "test build/nogui (nogui)" run_tests build/nogui nogui -L nogui
stage "build build/asan" configure_and_build build/asan "${asan_config[@]}"
stage "test build/asan (all)" run_tests build/asan asan
# seeded random walks of user actions on the window under the sanitizers (tests/monkey), with
# LeakSanitizer on: whatever the walk leaves allocated at exit fails the run
stage "monkey (60 s)" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 build/asan/tests/monkey/gguf-monkey --seconds 60
stage "fuzz (60 s)" bash scripts/fuzz.sh 60
echo "All tests passed."
