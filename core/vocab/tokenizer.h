// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class GgufFile;
class Vocabulary;
struct TokenizerData;

using TokenId = int32_t;
inline constexpr TokenId kNoToken = -1;

/// llama.cpp's tokenizer types, from `tokenizer.ggml.model` (docs/TOKENIZER.md §1.1).
enum class TokenizerKind : uint8_t {
    None, ///< "none", "no_vocab", an unknown model, or no vocabulary: cannot tokenize
    Spm,  ///< "llama": SentencePiece-style merges by score, byte fallback
    Bpe,  ///< "gpt2": byte-level BPE with ranked merges and a regex pre-tokenizer
    Wpm,  ///< "bert": WordPiece
    Ugm,  ///< "t5": Unigram
    Rwkv, ///< "rwkv": greedy longest match
};

/// "SPM", "BPE", "WPM", "UGM", "RWKV" or "none".
std::string_view tokenizerKindName(TokenizerKind kind);

/// llama.cpp's token attributes (llama_token_attr), derived from the token types.
enum TokenAttribute : uint16_t {
    kAttrUnknown = 1,
    kAttrUnused = 2,
    kAttrNormal = 4,
    kAttrControl = 8,
    kAttrUserDefined = 16,
    kAttrByte = 32,
    kAttrNormalized = 64,
    kAttrLstrip = 128,
    kAttrRstrip = 256,
    kAttrSingleWord = 512,
};

struct TokenizeOptions {
    bool addSpecial = false;   ///< add BOS/EOS (or CLS/SEP) as the model asks
    bool parseSpecial = false; ///< text of control tokens ("<|im_end|>") becomes those tokens
};

struct DetokenizeOptions {
    bool removeSpecial = false; ///< drop a leading BOS and a trailing EOS the model adds
    bool unparseSpecial = true; ///< render control tokens as their text (else nothing)
};

/// A model's tokenizer, built from the file's vocabulary and tokenizer keys alone, giving the
/// token ids llama.cpp gives (docs/TOKENIZER.md). Immutable after create(); safe to use from
/// several threads at once. Where llama.cpp would crash (a missing byte token, …) it reports a
/// diagnostic and goes on as documented; what llama.cpp refuses (an unknown pre-tokenizer) it refuses.
class Tokenizer {
public:
    /// The tokenizer of `file`; never null (check canTokenize() and diagnostics()).
    static std::shared_ptr<const Tokenizer> create(std::shared_ptr<const GgufFile> file);
    ~Tokenizer();
    Tokenizer(const Tokenizer &) = delete;
    Tokenizer &operator=(const Tokenizer &) = delete;

    bool canTokenize() const;
    /// Why llama.cpp refuses to load this vocabulary, a sentence quoting its error ("unknown
    /// pre-tokenizer type: 'xyz'"); empty when it loads it. A refused vocabulary gives no ids.
    const std::string &refusal() const;
    TokenizerKind kind() const;
    /// `tokenizer.ggml.pre` as stored ("" when absent).
    std::string_view pre() const;
    /// The pre-tokenizer used, by llama.cpp's name ("LLAMA3"; "DEFAULT" for none or an unknown value).
    std::string_view preType() const;
    /// What the loader noticed: an unknown pre value, duplicate tokens, a short scores array, …
    const std::vector<std::string> &diagnostics() const;

    uint64_t size() const;
    /// Stored text of a token ("" out of range).
    std::string_view tokenText(TokenId id) const;
    std::optional<float> score(TokenId id) const;
    /// TokenAttribute bits (0 out of range).
    uint16_t attributes(TokenId id) const;
    TokenId bos() const;
    TokenId eos() const;
    TokenId eot() const;
    TokenId unk() const;
    TokenId sep() const;
    TokenId pad() const;
    bool addBos() const;
    bool addEos() const;
    bool addSpacePrefix() const;

    /// The ids of `text`.
    std::vector<TokenId> tokenize(std::string_view text, const TokenizeOptions &options = {}) const;
    /// The same, reporting progress in bytes of `text`; nullopt when `progress` returned false.
    std::optional<std::vector<TokenId>> tokenize(std::string_view text, const TokenizeOptions &options,
                                                 const ProgressFn &progress) const;

    /// The bytes one token stands for (llama_token_to_piece); control and unknown tokens give ""
    /// unless `special`; `lstrip` leading spaces are removed.
    std::string tokenToPiece(TokenId id, bool special = true, int lstrip = 0) const;
    /// The text of a sequence (llama_detokenize); ids out of range are skipped.
    std::string detokenize(std::span<const TokenId> ids, const DetokenizeOptions &options = {}) const;

private:
    explicit Tokenizer(std::unique_ptr<TokenizerData> data);
    std::unique_ptr<TokenizerData> m_data;
};

} // namespace gguf
