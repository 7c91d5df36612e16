// SPDX-License-Identifier: GPL-3.0-or-later
// Byte-level BPE as llama.cpp's llm_tokenizer_bpe_session does it (docs/TOKENIZER.md §2.2, §3).
#include "symbol_merge.h"
#include "tokenizer_data.h"

#include <functional>

namespace gguf {
namespace {

void mergeWord(const TokenizerData &d, std::string_view word, std::vector<TokenId> &out, std::string &key)
{
    std::vector<MergeSymbol> symbols;
    if (d.preSpec.ignoreMerges && d.find(word) != kNoToken)
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
        // the piece's single bytes that are tokens; llama.cpp silently drops the others
        for (char c : piece)
            if (const TokenId id = d.find({&c, 1}); id != kNoToken)
                out.push_back(id);
    }
}

} // namespace

bool tokenizeBpe(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out)
{
    const std::vector<uint32_t> cps = unicode::decodeUtf8(text);
    std::vector<CodePointRange> words;
    const bool complete = RegexSplitter::forSet(d.preSpec.regexes).split(cps, words);
    std::string word, utf8, key;
    for (const auto &[begin, end] : words) {
        utf8.clear();
        for (uint32_t i = begin; i < end; ++i)
            unicode::appendUtf8(cps[i], utf8);
        word.clear();
        unicode::appendByteStandIns(utf8, word);
        mergeWord(d, word, out, key);
    }
    return complete;
}

} // namespace gguf
