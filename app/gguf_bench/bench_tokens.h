// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace bench {

/// The `tokens` section: times gguf::TokenSearch (searches, sort orders, merge rules) and the merge index
/// on a generated GPT-2-style vocabulary of `tokens` tokens written under `dir`, each beside a floor
/// measured in the same run (a plain byte scan of the same stored bytes, or std::sort of as many
/// uint32 keys), and prints them as a markdown table.
void benchTokens(const std::string &dir, uint32_t tokens);

} // namespace bench
