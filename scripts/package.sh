#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian package gguf-explorer_<version>_<arch>.deb with CPack (docs/PACKAGING.md).
#   scripts/package.sh                       a Release build in build/package with Debian's
#                                            hardening flags (dpkg-buildflags), then the package
#   scripts/package.sh --build-dir DIR       package what DIR already built, as it is (scripts/test.sh
#                                            packages its build/test this way)
#   --output DIR                             where the .deb goes (default: the build folder)
# Prints the path of the package on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
source scripts/deps.sh
gguf_ensure_packages "${GGUF_PACKAGE_TOOLS[@]}"

build_dir=""
output=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    *) echo "scripts/package.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if [ -z "$build_dir" ]; then
  build_dir=build/package
  # every hardening feature dpkg-buildflags knows (Debian 12 gives bindnow only when asked)
  export DEB_BUILD_MAINT_OPTIONS=hardening=+all
  # Debian's standard compiler and linker flags: fortify, stack protector, relro, now
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DGGUF_BUILD_TESTS=OFF \
    -DCMAKE_CXX_FLAGS="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)" \
    -DCMAKE_EXE_LINKER_FLAGS="$(dpkg-buildflags --get LDFLAGS)" >/dev/null
  cmake --build "$build_dir" -j2
fi
[ -f "$build_dir/CPackConfig.cmake" ] || {
  echo "scripts/package.sh: $build_dir is not a build of the explorer (no CPackConfig.cmake)" >&2
  exit 1
}
# cpack installs what the build made without building (CMAKE_SKIP_INSTALL_ALL_DEPENDENCY)
output=${output:-$build_dir}
mkdir -p "$output"
output=$(cd "$output" && pwd)
# the package is assembled in a folder of its own, so that runs in parallel do not meet
staging=$(mktemp -d "${TMPDIR:-/tmp}/gguf-package.XXXXXX")
trap 'rm -rf "$staging"' EXIT
(cd "$build_dir" && cpack -G DEB -B "$staging" >/dev/null)
deb=$(find "$staging" -maxdepth 1 -name 'gguf-explorer_*.deb' | head -n 1)
[ -n "$deb" ] || { echo "scripts/package.sh: cpack made no package" >&2; exit 1; }
mv "$deb" "$output/"
echo "$output/$(basename "$deb")"
