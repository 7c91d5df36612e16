// SPDX-License-Identifier: GPL-3.0-or-later
// Byte-level BPE as llama.cpp's llm_tokenizer_bpe_session does it (docs/TOKENIZER.md §2.2, §3).
#include "symbol_merge.h"
#include "tokenizer_data.h"

#include <functional>

namespace gguf {
namespace {

// "<0xXX>", upper-case hex, as llama.cpp spells a byte token.
std::string byteTokenText(char c)
{
    static constexpr std::string_view kHex = "0123456789ABCDEF";
    const auto byte = static_cast<uint8_t>(c);
    return std::string("<0x") + kHex[byte >> 4] + kHex[byte & 15] + '>';
}

void mergeWord(const TokenizerData &d, std::string_view word, std::vector<TokenId> &out, std::string &key)
{
    std::vector<MergeSymbol> symbols;
    // a word that is a token stays whole: with ignore_merges, and for GEMMA4 a run of newlines
    const bool newlines = d.preSpec.type == "GEMMA4" && word.find_first_not_of('\n') == std::string_view::npos;
    if ((d.preSpec.ignoreMerges || newlines) && d.find(word) != kNoToken)
        symbols.push_back({-1, -1, 0, word.size()});
    else
        symbols = splitIntoChars(word);
    // lowest rank first
    mergeSymbols<int32_t, std::less<int32_t>>(
        symbols, [&](const MergeSymbol &l, const MergeSymbol &r) -> std::optional<int32_t> {
            key.assign(word.substr(l.offset, l.length));
            key += ' ';
            key.append(word.substr(r.offset, r.length));
            const auto it = d.mergeRank.find(key);
            return it == d.mergeRank.end() ? std::nullopt : std::optional<int32_t>(it->second);
        });
    for (const MergeSymbol &s : symbols) {
        if (s.length == 0)
            continue;
        const std::string_view piece = word.substr(s.offset, s.length);
        if (const TokenId id = d.find(piece); id != kNoToken) {
            out.push_back(id);
            continue;
        }
        // the piece's bytes that are tokens (as themselves, or as "<0xXX>" without byte encoding);
        // llama.cpp silently drops the others
        for (char c : piece) {
            const TokenId id = d.preSpec.byteEncode ? d.find({&c, 1}) : d.find(byteTokenText(c));
            if (id != kNoToken)
                out.push_back(id);
        }
    }
}

} // namespace

bool tokenizeBpe(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out)
{
    std::string escaped;
    if (d.preSpec.escapeWhitespaces) { // every space becomes "▁" (U+2581) first
        escaped.reserve(text.size());
        for (char c : text)
            escaped += c == ' ' ? std::string_view("\xE2\x96\x81") : std::string_view(&c, 1);
        text = escaped;
    }
    const std::vector<uint32_t> cps = unicode::decodeUtf8(text);
    std::vector<CodePointRange> words;
    const bool complete = RegexSplitter::forSet(d.preSpec.regexes).split(cps, words);
    std::string word, utf8, key;
    for (const auto &[begin, end] : words) {
        utf8.clear();
        for (uint32_t i = begin; i < end; ++i)
            unicode::appendUtf8(cps[i], utf8);
        if (d.preSpec.byteEncode) {
            word.clear();
            unicode::appendByteStandIns(utf8, word);
            mergeWord(d, word, out, key);
        } else {
            mergeWord(d, utf8, out, key);
        }
    }
    return complete;
}

} // namespace gguf
