#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by run.sh and test.sh: installs the Debian 12 packages the build needs, when missing.
# Sourced, not run.

GGUF_PACKAGES=(
  cmake g++ make pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev
  qt6-tools-dev qt6-l10n-tools
  libqcustomplot-dev libqcustomplot2.1-qt6
  libpcre2-dev libicu-dev
  libcurl4-openssl-dev
  libssl-dev libxxhash-dev
  fonts-dejavu-core
  librsvg2-bin gzip
  ccache mold
)

# What scripts/test.sh needs besides: the formatting and lint checks, python3 for its helper
# scripts. (ccache and mold above keep every build fast: cmake/build_speed.cmake, docs/BUILDING.md.)
GGUF_BUILD_TOOLS=(clang-format clang-tidy python3)

# What the report tests read the reports with (docs/REPORT.md §4): cmark-gfm, the parser GitHub's own
# Markdown comes from, and Chromium, headless, a real browser engine for the HTML.
GGUF_REPORT_TOOLS=(cmark-gfm chromium)

# What scripts/package.sh needs to make the Debian package, and scripts/test.sh to check it and
# the files it ships (docs/PACKAGING.md).
GGUF_PACKAGE_TOOLS=(
  dpkg-dev file lintian appstream desktop-file-utils shared-mime-info
  groff-base man-db bash-completion zsh
)

gguf_missing_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]}"
}

# gguf_ensure_packages [extra packages…]: installs what is missing with apt-get when root or
# password-less sudo is available; otherwise prints the one apt-get line to run and fails.
gguf_ensure_packages() {
  local missing
  missing=$(gguf_missing_packages "${GGUF_PACKAGES[@]}" "$@")
  [ -z "$missing" ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo"
    else
      echo "Missing packages: $missing" >&2
      echo "Install them with:" >&2
      echo "  sudo apt-get update && sudo apt-get install -y $missing" >&2
      return 1
    fi
  fi
  echo "Installing: $missing"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}
