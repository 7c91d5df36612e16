// SPDX-License-Identifier: GPL-3.0-or-later
// What the programs were built from: the version and the git revision, for --version and
// Help ▸ About. The revision is written at build time by app/build_info/git_revision.cmake.
#pragma once

#include <string>

namespace gguf::build {

/// The project's version, from CMake's project() ("0.1.0").
const char *version();

/// The git revision built: 12 hex digits, with "-dirty" when tracked files differed from it;
/// "unknown" outside a git checkout (a source tarball may pass -DGGUF_REVISION=…).
const char *revision();

/// "0.1.0 (git 1a2b3c4d5e6f)": what --version prints after the program's name.
std::string versionLine();

} // namespace gguf::build
