// SPDX-License-Identifier: GPL-3.0-or-later
// RWKV's "world" tokenizer as llama.cpp does it (docs/TOKENIZER.md §2.5): the longest token at
// each position, over the unescaped bytes of the tokens.
#include "tokenizer_data.h"

namespace gguf {

std::string unescapeRwkvToken(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    bool escaping = false;
    int hexLeft = 0;
    uint8_t hex = 0;
    for (const char c : text) {
        if (hexLeft > 0) {
            // llama.cpp reads lowercase hex digits only (anything at or above 'a' counts from 'a')
            hex = static_cast<uint8_t>((hex << 4) + (c >= 'a' ? c - 'a' + 10 : c - '0'));
            if (--hexLeft == 0) {
                out += static_cast<char>(hex);
                hex = 0;
            }
        } else if (escaping) {
            escaping = false;
            if (c == 'x')
                hexLeft = 2;
            else
                out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
        } else if (c == '\\') {
            escaping = true;
        } else {
            out += c;
        }
    }
    return out;
}

std::unique_ptr<RwkvModel> buildRwkvModel(const TokenizerData &d)
{
    auto m = std::make_unique<RwkvModel>();
    for (size_t id = 0; id < d.text.size(); ++id)
        m->tokens.insert(unescapeRwkvToken(d.text[id]), static_cast<int32_t>(id));
    return m;
}

void tokenizeRwkv(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out)
{
    const ByteTrie &trie = d.rwkv->tokens;
    for (size_t at = 0; at < text.size();) {
        TokenId id = kNoToken;
        size_t length = 1;
        uint32_t node = 0;
        for (size_t end = at; end < text.size() && (node = trie.child(node, text[end])) != ByteTrie::kNone;) {
            ++end;
            if (trie.value(node) >= 0) {
                id = trie.value(node);
                length = end - at;
            }
        }
        // no token starts here: llama.cpp emits its (null) unknown id, or loops forever when a
        // path leads to no token; one byte is skipped instead
        if (id == kNoToken)
            id = d.unk;
        if (id != kNoToken)
            out.push_back(id);
        at += length;
    }
}

} // namespace gguf
