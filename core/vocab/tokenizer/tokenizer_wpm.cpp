// SPDX-License-Identifier: GPL-3.0-or-later
// WordPiece as llama.cpp's llm_tokenizer_wpm_session does it (docs/TOKENIZER.md §2.3).
#include "tokenizer_data.h"
#include "unicode_text.h"

namespace gguf {
namespace {

// CJK ideographs, which are words on their own (HuggingFace's ranges, quirk included).
bool isChineseChar(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
           (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// Normalized words: whitespace separates them, punctuation, ASCII symbols and CJK ideographs are
// words of one character, control characters vanish. With strip_accents (the default) each code
// point is reduced to the first of its canonical decomposition and every combining mark (\p{M}:
// Mn, Mc and Me) is dropped, as newer llama.cpp does ("x\u0301" is "x"; llama.cpp c392e509 kept
// the mark, docs/TOKENIZER.md §2.3); with lowercase (the default), lower-cased.
std::vector<std::string> words(std::string_view text, const WpmModel &model)
{
    std::vector<std::string> words(1);
    for (uint32_t cp : unicode::decodeUtf8(text)) {
        if (model.stripAccents)
            cp = unicode::nfdFirst(cp);
        if (unicode::isWhitespace(cp)) {
            if (!words.back().empty())
                words.emplace_back();
            continue;
        }
        const uint8_t category = unicode::category(cp);
        if (cp == 0 || cp == unicode::kReplacement || category == unicode::kOther)
            continue;
        if (model.stripAccents && category == unicode::kMark)
            continue;
        std::string s;
        unicode::appendUtf8(model.lowercase ? unicode::toLower(cp) : cp, s);
        if (category == unicode::kPunctuation || (cp < 0x7F && category == unicode::kSymbol) || isChineseChar(cp)) {
            if (!words.back().empty())
                words.emplace_back();
            words.back() = std::move(s);
            words.emplace_back();
        } else {
            words.back() += s;
        }
    }
    if (words.back().empty())
        words.pop_back();
    return words;
}

} // namespace

void tokenizeWpm(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out)
{
    for (const std::string &word : words(text, *d.wpm)) {
        if (word.empty())
            continue;
        // the vocabulary marks word starts with ▁ (HuggingFace's "##" continuations lost theirs)
        const std::string marked = "\xE2\x96\x81" + word;
        const size_t before = out.size();
        for (size_t i = 0; i < marked.size();) {
            // the longest token at i, by a walk through the trie of all tokens
            TokenId id = kNoToken;
            size_t end = i;
            uint32_t node = 0;
            for (size_t j = i; j < marked.size() && (node = d.wpm->tokens.child(node, marked[j])) != ByteTrie::kNone;) {
                ++j;
                if (d.wpm->tokens.value(node) >= 0) {
                    id = d.wpm->tokens.value(node);
                    end = j;
                }
            }
            if (id == kNoToken) { // no token starts here: the whole word is unknown
                out.resize(before);
                break;
            }
            out.push_back(id);
            i = end;
        }
        if (out.size() == before && d.unk != kNoToken)
            out.push_back(d.unk);
    }
}

} // namespace gguf
