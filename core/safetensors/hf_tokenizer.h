// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The vocabulary of a Hugging Face `tokenizer.json` (the `tokenizers` library's file) beside a
// checkpoint (#43, docs/SAFETENSORS.md §8): each id's token, its score (Unigram), whether it is an
// added token and a special one, and the number of merges. Read to be shown, not to tokenize.

#include "core/format/errors.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::st {

class Checkpoint;

struct HfToken {
    std::string text;
    std::optional<double> score; ///< Unigram's log probability
    bool added = false;          ///< listed in `added_tokens`
    bool special = false;        ///< an added token marked special
    bool named = false;          ///< some entry gives this id (false: a gap in the ids)
};

struct HfTokenizer {
    std::string path;
    std::string model;           ///< `model.type`: "BPE", "Unigram", "WordPiece", "WordLevel"…
    std::vector<HfToken> tokens; ///< by id, up to the largest id named
    uint64_t merges = 0;         ///< BPE's merge rules
    uint64_t gaps = 0;           ///< ids below the largest that no entry names
};

/// The ids of a vocabulary larger than this are refused as not a vocabulary.
inline constexpr uint64_t kMaxTokenizerIds = uint64_t(1) << 24;

/// Reads `text` as a tokenizer.json; nullopt with `error` (Malformed, at the byte offset) when it is
/// not JSON or not a tokenizer's.
std::optional<HfTokenizer> parseHfTokenizer(std::string_view text, const std::string &path, Error &error);

/// The tokenizer.json beside `checkpoint`; nullopt with `error` NotFound when there is none.
std::optional<HfTokenizer> readHfTokenizer(const Checkpoint &checkpoint, Error &error);

} // namespace gguf::st
