// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/gguf_value.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class GgufFile;

/// `tokenizer.ggml.token_type` values (llama.cpp's llama_token_type).
enum class TokenType : int32_t { Undefined = 0, Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

/// "normal", "unknown", "control", "user_defined", "unused", "byte"; "undefined" for 0 and others.
std::string_view tokenTypeName(int32_t type);

/// How stored token text maps to bytes.
enum class TokenizerStyle : uint8_t {
    Raw,           ///< stored text is the text
    Gpt2ByteLevel, ///< bytes spelled with GPT-2's printable stand-ins (Ġ = space, Ċ = newline)
    SentencePiece, ///< ▁ for space, <0xNN> byte tokens
    WordPiece,     ///< BERT as llama.cpp stores it: ▁ marks a word start
};

/// One special token named by a `tokenizer.ggml.*_token_id` key.
struct SpecialToken {
    std::string_view key; ///< e.g. "tokenizer.ggml.bos_token_id"
    std::string_view role;///< e.g. "bos"
    uint64_t id = 0;
};

/// The tokenizer vocabulary of a file, indexed in place: token text is a view into the mapping
/// (through the tokens array's lazy offsets index); nothing is copied.
class Vocabulary {
public:
    explicit Vocabulary(const GgufFile &file);

    bool isValid() const { return m_tokens.isValid(); }
    uint64_t size() const { return m_tokens.size(); }
    std::string_view model() const { return m_model; }
    std::string_view pre() const { return m_pre; }
    TokenizerStyle style() const { return m_style; }

    /// Stored token text (bytes as in the file).
    std::string_view token(uint64_t id) const;
    /// The bytes the token stands for, after undoing the tokenizer's spelling.
    std::string decoded(uint64_t id) const;
    std::optional<float> score(uint64_t id) const;
    std::optional<int32_t> type(uint64_t id) const;

    bool hasScores() const { return m_scores.isValid(); }
    bool hasTypes() const { return m_types.isValid(); }
    uint64_t mergeCount() const { return m_merges.size(); }
    /// Merge rule `rank` as stored ("Ġ t").
    std::string_view merge(uint64_t rank) const;

    /// Every `tokenizer.ggml.*_token_id` key with its id, in file order.
    const std::vector<SpecialToken> &specialTokens() const { return m_special; }

private:
    ArrayRef m_tokens, m_scores, m_types, m_merges;
    std::string_view m_model, m_pre;
    TokenizerStyle m_style = TokenizerStyle::Raw;
    std::vector<SpecialToken> m_special;
};

/// Undo GPT-2's byte-to-unicode spelling: each code point of `text` that stands for a byte
/// becomes that byte; other code points are kept as UTF-8.
std::string decodeGpt2ByteLevel(std::string_view text);
/// Undo SentencePiece's spelling: "▁" → space; "<0xNN>" → the byte NN.
std::string decodeSentencePiece(std::string_view text);

} // namespace gguf
