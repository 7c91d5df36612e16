// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class GgufFile;

/// One token id present in both vocabularies whose text, type or score differs.
struct TokenChange {
    enum What : uint8_t { Text = 1, Type = 2, Score = 4 };
    uint64_t id = 0;
    uint8_t what = 0;              ///< bits of What
    std::string_view textA, textB; ///< stored token text (views into the files)
    std::optional<int32_t> typeA, typeB;
    std::optional<float> scoreA, scoreB;
};

/// A `tokenizer.ggml.*_token_id` key whose id differs (absent on one side: nullopt).
struct SpecialTokenChange {
    std::string_view key;
    std::optional<uint64_t> a, b;
};

struct TokenizerDiffOptions {
    size_t maxTokenChanges = SIZE_MAX; ///< how many changed ids to list (all are counted)
    size_t maxMerges = SIZE_MAX;       ///< how many added / removed merges to list
};

/// What differs between the tokenizers of two files (the vocabulary arrays, the merges, the
/// special token ids and the tokenizer kind). Views point into the files, which must outlive it.
struct TokenizerDiff {
    bool hasA = false, hasB = false; ///< the file has a `tokenizer.ggml.tokens` array
    std::string_view modelA, modelB, preA, preB;
    uint64_t sizeA = 0, sizeB = 0;
    uint64_t added = 0;   ///< ids only B has (B is longer)
    uint64_t removed = 0; ///< ids only A has
    uint64_t textChanged = 0, typeChanged = 0, scoreChanged = 0;
    std::vector<TokenChange> changes; ///< ids below both sizes, in id order
    uint64_t mergesA = 0, mergesB = 0;
    uint64_t mergesAdded = 0, mergesRemoved = 0;
    uint64_t mergesReranked = 0; ///< merges in both, at another rank (BPE applies them by rank)
    std::vector<std::string_view> firstMergesAdded, firstMergesRemoved;
    std::vector<SpecialTokenChange> special;
    /// One line: "same vocabulary", "same tokens, different scores and merges", "B extends A's
    /// vocabulary by 256 tokens", "different vocabulary: 31,000 of 32,000 tokens differ", …
    std::string verdict;

    bool identical() const;
};

/// Compares the tokenizers of `a` and `b`, token by token by id (scores by their bits).
TokenizerDiff compareTokenizers(const GgufFile &a, const GgufFile &b, const TokenizerDiffOptions &options = {});

} // namespace gguf
