// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {

/// The `tokenize` section: tokenizes a generated mixed-script text (prose in nine scripts, code,
/// numbers, emoji) with the real vocabularies of `dataDir` (the repository's tests/data/real), one
/// per tokenizer kind and pre-tokenizer path, beside a floor measured in the same run (decoding the
/// same text's UTF-8 into code points), and prints a markdown table.
void benchTokenize(const std::string &dataDir, bool quick);

} // namespace bench
