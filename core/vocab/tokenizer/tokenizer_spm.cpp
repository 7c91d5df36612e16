// SPDX-License-Identifier: GPL-3.0-or-later
// SentencePiece-style merging as llama.cpp's llm_tokenizer_spm_session does it (docs/TOKENIZER.md §2.1).
#include "symbol_merge.h"
#include "tokenizer_data.h"

#include <functional>

namespace gguf {
namespace {

// The token of a byte that formed no token: "<0xXX>", else the byte itself as a token.
TokenId byteToken(const TokenizerData &d, uint8_t byte)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    const char escaped[6] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
    const TokenId id = d.find({escaped, sizeof escaped});
    return id != kNoToken ? id : d.find({reinterpret_cast<const char *>(&byte), 1});
}

} // namespace

void tokenizeSpm(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out)
{
    std::vector<MergeSymbol> symbols = splitIntoChars(text);
    // highest score first
    mergeSymbols<float, std::greater<float>>(
        symbols, [&](const MergeSymbol &l, const MergeSymbol &r) -> std::optional<float> {
            const TokenId id = d.find(text.substr(l.offset, l.length + r.length));
            return id == kNoToken ? std::nullopt : std::optional<float>(d.scores[static_cast<size_t>(id)]);
        });
    for (int i = symbols.empty() ? -1 : 0; i != -1; i = symbols[static_cast<size_t>(i)].next) {
        const MergeSymbol &s = symbols[static_cast<size_t>(i)];
        const std::string_view piece = text.substr(s.offset, s.length);
        if (const TokenId id = d.find(piece); id != kNoToken) {
            out.push_back(id);
            continue;
        }
        // every merge result is a token, so this is a single char that is none: its bytes
        for (char c : piece) {
            const TokenId id = byteToken(d, static_cast<uint8_t>(c));
            if (id != kNoToken || d.unk != kNoToken)
                out.push_back(id != kNoToken ? id : d.unk); // llama.cpp throws here
        }
    }
}

} // namespace gguf
