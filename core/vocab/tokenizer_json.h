// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The tokenizer a Hugging Face `tokenizer.json` describes, run as the `tokenizers` library runs it
// (#43, docs/TOKENIZER_JSON.md): added tokens, normalizer, pre-tokenizer, model, post-processor
// and decoder, each read from the file. This is the checkpoint's own tokenizer, which llama.cpp's
// (core/vocab/tokenizer.h, for a GGUF's vocabulary) imitates after conversion.

#include "core/vocab/tokenizer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

namespace hf {
struct Pipeline;
}

/// What encoding gives: the ids, and the token strings the library's Encoding holds with them (a
/// model token's vocabulary entry; an added token's matched text, spaces taken by lstrip/rstrip
/// included; a post-processor's special tokens as the file names them).
struct JsonEncoding {
    std::vector<TokenId> ids;
    std::vector<std::string> tokens;
};

class JsonTokenizer {
public:
    /// The tokenizer of a tokenizer.json's text; null with `why` set (a sentence naming the part:
    /// "normalizer Precompiled is not supported") when the file is not one or uses a component this
    /// implementation does not run. Nothing is guessed: an unknown component refuses the file.
    static std::shared_ptr<const JsonTokenizer> create(std::string_view json, std::string &why);
    ~JsonTokenizer();
    JsonTokenizer(const JsonTokenizer &) = delete;
    JsonTokenizer &operator=(const JsonTokenizer &) = delete;

    /// `model.type`: "BPE", "WordPiece".
    std::string_view modelType() const;
    /// What loading noticed: an added token whose id differs from the one the file writes.
    const std::vector<std::string> &notes() const;
    /// One past the largest id of the model's vocabulary and the added tokens.
    uint64_t size() const;
    /// The token of an id (an added token's content first, else the model's; the library's
    /// id_to_token); "" when none.
    std::string_view tokenText(TokenId id) const;
    /// Whether `id` is an added token marked special.
    bool isSpecial(TokenId id) const;

    /// The ids of `text` (valid UTF-8: check with json::firstInvalidUtf8 first), as
    /// `Tokenizer.encode(text, add_special_tokens=addSpecial).ids` with the tokenizer's
    /// `encode_special_tokens` set to !parseSpecial: without parseSpecial the text of a special
    /// added token is text (llama.cpp's default); the library's own default parses it.
    std::vector<TokenId> encode(std::string_view text, const TokenizeOptions &options) const;
    /// The ids and token strings, reporting progress in code points of `text`; nullopt when
    /// `progress` returned false.
    std::optional<JsonEncoding> encodeTokens(std::string_view text, const TokenizeOptions &options,
                                             const ProgressFn &progress = {}) const;
    /// `Tokenizer.decode(ids, skip_special_tokens)`: ids without a token are skipped.
    std::string decode(std::span<const TokenId> ids, bool skipSpecial) const;

private:
    explicit JsonTokenizer(std::unique_ptr<hf::Pipeline> pipeline);
    std::unique_ptr<hf::Pipeline> m_pipeline;
};

} // namespace gguf
