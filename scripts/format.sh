#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Applies the root .clang-format to every C++ file in the repository.
#   scripts/format.sh                      rewrite the files in place
#   scripts/format.sh --check              change nothing; list the files that differ and fail if any do
#   scripts/format.sh --check-files FILE…  the same for the C++ files among FILE… that exist
#                                          (scripts/test.sh --quick and --changed)
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  --check-files)
    shift
    files=()
    for f in "$@"; do
      case "$f" in *.cpp | *.h) [ -f "$f" ] && files+=("$f") ;; esac
    done
    mode=check
    ;;
  *)
    mapfile -t files < <(git ls-files '*.cpp' '*.h')
    mode=${1:-}
    [ "$mode" = "--check" ] && mode=check
    ;;
esac
if [ "$mode" = "check" ]; then
  # one clang-format a file, on every core
  bad=()
  [ "${#files[@]}" -gt 0 ] && mapfile -t bad < <(printf '%s\0' "${files[@]}" | xargs -0 -r -P "$(nproc)" -n 16 sh -c \
    'for f; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' sh)
  if [ "${#bad[@]}" -gt 0 ]; then
    printf 'not formatted: %s\n' "${bad[@]}" >&2
    echo "run scripts/format.sh to format them" >&2
    exit 1
  fi
  echo "${#files[@]} files formatted"
else
  clang-format -i "${files[@]}"
fi
