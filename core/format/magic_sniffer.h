// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace gguf {

/// Names what a file that is not GGUF looks like, from its first bytes: "starts with 89 50 4E 47
/// ('.PNG'): a PNG image". Used to make "not a GGUF file" messages useful.
std::string describeMagic(const uint8_t *data, uint64_t size);

/// What a download that went wrong leaves instead of a GGUF file: nothing, a Git LFS pointer (the
/// text `version https://git-lfs.github.com/spec/v1` / `oid …` / `size …` of a clone without LFS),
/// or a web page (an error page saved; `<!DOCTYPE html` or `<html` after any blanks, in any case).
enum class ForeignFile : uint8_t { Empty, GitLfsPointer, HtmlPage, Other };
ForeignFile classifyForeign(const uint8_t *data, uint64_t size);

} // namespace gguf
