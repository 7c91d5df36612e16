// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "byte_trie.h"
#include "core/vocab/tokenizer.h"
#include "pre_tokenizer.h"

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gguf {

class GgufFile;
class Vocabulary;
/// Unigram's normalizer and token tries (tokenizer_ugm.cpp).
struct UgmModel {
    std::vector<uint32_t> xcda;    ///< the charsmap's double-array trie entries
    std::string_view replacements; ///< its NUL-terminated replacement strings
    ByteTrie tokens, userDefined;  ///< normal, user-defined and unused tokens; user-defined ones
    float unknownScore = 0;        ///< the lowest normal score − 10
};

/// WordPiece's trie of every token's text, for the longest match (tokenizer_wpm.cpp).
struct WpmModel {
    ByteTrie tokens;
    /// tokenizer.ggml.normalizer.lowercase (default true) and .strip_accents (default: lowercase),
    /// as newer llama.cpp reads them (docs/TOKENIZER.md §2.3)
    bool lowercase = true;
    bool stripAccents = true;
};

/// RWKV's trie of unescaped token bytes (tokenizer_rwkv.cpp).
struct RwkvModel {
    ByteTrie tokens;
};

/// Everything a tokenizer reads from the file, resolved as llama.cpp's loader resolves it
/// (docs/TOKENIZER.md §1), shared by the algorithms of every kind.
struct TokenizerData {
    TokenizerData();
    ~TokenizerData();
    TokenizerData(const TokenizerData &) = delete;
    TokenizerData &operator=(const TokenizerData &) = delete;

    std::shared_ptr<const Vocabulary> vocab; ///< holds the file, into whose mapping the views point
    TokenizerKind kind = TokenizerKind::None;
    std::string_view pre;
    PreTokenizerSpec preSpec;
    /// Why llama.cpp refuses the vocabulary (quoting its error); no ids are given then
    std::string refusal;

    std::vector<std::string_view> text; ///< token text, views into the mapping (or into `owned`)
    std::deque<std::string> owned;      ///< replacement text of empty tokens
    std::vector<float> scores;
    std::vector<uint16_t> attrs; ///< TokenAttribute bits
    std::unordered_map<std::string_view, TokenId> textToId;
    /// BPE: "left right" (the stored merge rule) → rank; the lowest rank of duplicates
    std::unordered_map<std::string_view, int32_t> mergeRank;
    /// Tokens that partitioning looks for: control, user-defined and unknown ones, longest text first
    std::vector<TokenId> specialCache;
    size_t maxTokenLength = 0;

    TokenId bos = kNoToken, eos = kNoToken, eot = kNoToken, eom = kNoToken, unk = kNoToken, sep = kNoToken,
            pad = kNoToken, mask = kNoToken;
    bool addBos = false, addEos = false, addSpacePrefix = false, removeExtraWhitespaces = false, cleanSpaces = false;

    std::unique_ptr<UgmModel> ugm;
    std::unique_ptr<WpmModel> wpm;
    std::unique_ptr<RwkvModel> rwkv;
    std::vector<std::string> diagnostics;

    TokenId find(std::string_view s) const
    {
        const auto it = textToId.find(s);
        return it == textToId.end() ? kNoToken : it->second;
    }
    bool has(TokenId id, uint16_t attr) const { return (attrs[static_cast<size_t>(id)] & attr) != 0; }
    bool valid(TokenId id) const { return id >= 0 && static_cast<size_t>(id) < text.size(); }
};

/// Loads the definition (tokenizer_load.cpp).
std::unique_ptr<TokenizerData> loadTokenizerData(std::shared_ptr<const GgufFile> file);

// The algorithms, one per kind, each appending the ids of one text fragment (no special tokens).
/// SentencePiece-style (tokenizer_spm.cpp): `text` already has ▁ for spaces.
void tokenizeSpm(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out);
/// Byte-level BPE (tokenizer_bpe.cpp); false when the regex engine gave up on a piece.
bool tokenizeBpe(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out);
/// WordPiece (tokenizer_wpm.cpp).
void tokenizeWpm(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out);
/// Unigram (tokenizer_ugm.cpp), and its set-up from the charsmap and vocabulary.
void tokenizeUgm(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out);
std::unique_ptr<UgmModel> buildUgmModel(const TokenizerData &d, std::span<const uint8_t> charsmap,
                                        std::vector<std::string> &diagnostics);
/// RWKV's greedy longest match (tokenizer_rwkv.cpp), and its trie.
void tokenizeRwkv(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out);
std::unique_ptr<RwkvModel> buildRwkvModel(const TokenizerData &d);
/// The bytes an RWKV token's stored text spells (its backslash escapes undone).
std::string unescapeRwkvToken(std::string_view text);

} // namespace gguf
