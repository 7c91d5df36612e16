// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_value.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf {

class GgufFile;

/// `tokenizer.ggml.token_type` values (llama.cpp's llama_token_type; docs/FORMAT.md §7.2).
enum class TokenType : int32_t {
    Undefined = 0,
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6
};

/// "normal", "unknown", "control", "user_defined", "unused", "byte"; "undefined" for 0 and others.
std::string_view tokenTypeName(int32_t type);

/// How stored token text maps to bytes (docs/FORMAT.md §7.4).
enum class TokenizerStyle : uint8_t {
    Raw,           ///< stored text is the text
    Gpt2ByteLevel, ///< bytes spelled with GPT-2's printable stand-ins (Ġ = space, Ċ = newline)
    SentencePiece, ///< ▁ for space, <0xNN> byte tokens
    WordPiece,     ///< BERT as llama.cpp stores it: ▁ marks a word start
};

/// One special token named by a `tokenizer.ggml.*_token_id` key.
struct SpecialToken {
    std::string_view key;  ///< e.g. "tokenizer.ggml.bos_token_id"
    std::string_view role; ///< e.g. "bos"
    uint64_t id = 0;
};

/// Counts over a whole vocabulary (one pass over the type and score arrays).
struct VocabularyStats {
    /// Tokens per `tokenizer.ggml.token_type` value 1–6; [0] counts 0 and values outside 1–6.
    std::array<uint64_t, 7> typeCounts{};
    uint64_t untyped = 0;                    ///< tokens without a type (no token_type array, or a shorter one)
    std::optional<float> minScore, maxScore; ///< over the finite scores
    uint64_t nonFiniteScores = 0;            ///< NaN and ±inf scores
};

/// The tokenizer vocabulary of a file, indexed in place: token text is a view into the mapping
/// (through the tokens array's lazy offsets index); nothing is copied. Safe to use from several
/// threads at once; valid while its GgufFile lives.
class Vocabulary {
public:
    explicit Vocabulary(const GgufFile &file);
    /// The vocabulary of `file`, holding the file alive for as long as the vocabulary is used;
    /// nullptr when the file is null or has no vocabulary.
    static std::shared_ptr<const Vocabulary> shared(std::shared_ptr<const GgufFile> file);
    Vocabulary(const Vocabulary &) = delete;
    Vocabulary &operator=(const Vocabulary &) = delete;

    bool isValid() const { return m_tokens.isValid(); }
    uint64_t size() const { return m_tokens.size(); }
    std::string_view model() const { return m_model; }
    std::string_view pre() const { return m_pre; }
    TokenizerStyle style() const { return m_style; }

    /// Stored token text (bytes as in the file).
    std::string_view token(uint64_t id) const;
    /// The bytes the token stands for, after undoing the tokenizer's spelling.
    std::string decoded(uint64_t id) const;
    /// decoded(id) into `out` (replacing its content), so a loop over every token reuses one buffer.
    void decodedInto(uint64_t id, std::string &out) const;
    /// Undoes the tokenizer's spelling of any text (a merge result), regardless of token types.
    void decodeTextInto(std::string_view text, std::string &out) const;
    std::optional<float> score(uint64_t id) const;
    std::optional<int32_t> type(uint64_t id) const;

    bool hasScores() const { return m_scores.isValid(); }
    bool hasTypes() const { return m_types.isValid(); }
    uint64_t mergeCount() const { return m_merges.size(); }
    /// Merge rule `rank` as stored ("Ġ t").
    std::string_view merge(uint64_t rank) const;
    /// The two halves of merge rule `rank` ("Ġ", "t"), split at the first space after the first
    /// byte as llama.cpp does (docs/FORMAT.md §7.1); the second half is empty when there is no such
    /// space.
    std::pair<std::string_view, std::string_view> mergeParts(uint64_t rank) const;

    /// Counts per token type and the range of the scores.
    VocabularyStats stats() const;

    /// Every `tokenizer.ggml.*_token_id` key with its id, in file order.
    const std::vector<SpecialToken> &specialTokens() const { return m_special; }

private:
    const std::vector<uint64_t> *tokenIndex() const;

    const GgufFile *m_file;
    ArrayRef m_tokens, m_scores, m_types, m_merges;
    // The tokens array's offsets index, fetched on first use; afterwards token() takes no lock.
    mutable std::atomic<const std::vector<uint64_t> *> m_tokenIndex{nullptr};
    std::string_view m_model, m_pre;
    TokenizerStyle m_style = TokenizerStyle::Raw;
    std::vector<SpecialToken> m_special;
};

/// Undo GPT-2's byte-to-unicode spelling (docs/FORMAT.md §7.4): each code point of `text` that
/// stands for a byte becomes that byte; other code points are kept as UTF-8.
std::string decodeGpt2ByteLevel(std::string_view text);
/// Undo SentencePiece's spelling (docs/FORMAT.md §7.4): "▁" → space; "<0xNN>" → the byte NN.
std::string decodeSentencePiece(std::string_view text);
/// The two functions above, appending to `out`.
void appendGpt2ByteLevel(std::string_view text, std::string &out);
void appendSentencePiece(std::string_view text, std::string &out);

} // namespace gguf
