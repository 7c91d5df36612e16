// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace gguf {

/// Names what a file that is not GGUF looks like, from its first bytes: "starts with 89 50 4E 47
/// ('.PNG'): a PNG image". Used to make "not a GGUF file" messages useful.
std::string describeMagic(const uint8_t *data, uint64_t size);

} // namespace gguf
