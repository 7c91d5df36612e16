// SPDX-License-Identifier: GPL-3.0-or-later
// From token ids back to text, as llama.cpp's token_to_piece and detokenize do
// (docs/TOKENIZER.md §5).
#include "core/vocab/tokenizer.h"
#include "tokenizer_data.h"
#include "unicode_text.h"

#include <algorithm>
#include <cstdlib>

namespace gguf {
namespace {

// A byte token's value: the two hex digits of "<0xXX>", read as llama.cpp reads them (strtol).
char byteOfToken(std::string_view text)
{
    const std::string digits(text.substr(std::min<size_t>(3, text.size()), 2));
    return static_cast<char>(std::strtol(digits.c_str(), nullptr, 16));
}

// GPT-2 stand-ins back to bytes; a code point that stands for no byte is spelled out as llama.cpp
// does ("[UNK_BYTE_0x…" + the token + "]").
void appendBpeDecoded(std::string_view text, std::string &out)
{
    static constexpr char kHex[] = "0123456789abcdef";
    for (const uint32_t cp : unicode::decodeUtf8(text)) {
        const int byte = unicode::byteOfStandIn(cp);
        if (byte >= 0) {
            out += static_cast<char>(byte);
            continue;
        }
        std::string utf8;
        unicode::appendUtf8(cp, utf8);
        out += "[UNK_BYTE_0x";
        for (char c : utf8) {
            out += kHex[static_cast<uint8_t>(c) >> 4];
            out += kHex[static_cast<uint8_t>(c) & 15];
        }
        out.append(text);
        out += ']';
    }
}

// llama.cpp's three passes that undo the spaces a BPE tokenizer put before punctuation.
void cleanSpaces(std::string &s)
{
    const auto pass = [&s](auto &&step) {
        if (s.size() < 2)
            return;
        std::string out(1, s[0]);
        for (size_t i = 1; i < s.size(); ++i)
            step(i, out);
        s.swap(out);
    };
    // " ?", " !", " .", " ," lose the space
    pass([&s](size_t i, std::string &out) {
        if (s[i - 1] == ' ' && (s[i] == '?' || s[i] == '!' || s[i] == '.' || s[i] == ','))
            out.pop_back();
        out += s[i];
    });
    // " ' " becomes "'"; the space consumed after it no longer counts as a space before what follows
    bool consumed = false;
    pass([&s, &consumed](size_t &i, std::string &out) {
        const bool spaceBefore = s[i - 1] == ' ' && !consumed;
        consumed = false;
        if (s[i] == '\'' && i + 1 < s.size() && spaceBefore && s[i + 1] == ' ') {
            out.pop_back();
            out += s[i++];
            consumed = true;
            return;
        }
        out += s[i];
    });
    // " 's", " 'm", " 're", " 've" lose the space; " 't", " 'd", " 'll" keep it
    pass([&s](size_t i, std::string &out) {
        if (s[i - 1] == ' ' && s[i] == '\'' && i + 1 < s.size()) {
            const char c1 = s[i + 1], c2 = i + 2 < s.size() ? s[i + 2] : '\0';
            if (c1 == 's' || c1 == 'm' || ((c1 == 'r' || c1 == 'v') && c2 == 'e' && i + 2 < s.size()))
                out.pop_back();
        }
        out += s[i];
    });
}

} // namespace

std::string Tokenizer::tokenToPiece(TokenId id, bool special, int lstrip) const
{
    const TokenizerData &d = *m_data;
    std::string piece;
    if (!d.valid(id) || d.kind == TokenizerKind::None)
        return piece;
    const uint16_t attr = d.attrs[static_cast<size_t>(id)];
    if (!special && (attr & (kAttrUnknown | kAttrControl)))
        return piece;
    const std::string_view text = d.text[static_cast<size_t>(id)];
    const bool verbatim = (attr & (kAttrUnknown | kAttrControl | kAttrUserDefined)) != 0;
    switch (d.kind) {
    case TokenizerKind::Spm:
    case TokenizerKind::Wpm:
    case TokenizerKind::Ugm:
        if (verbatim)
            piece = text;
        else if (attr & kAttrNormal)
            unicode::appendSpaceMarksAsSpaces(text, piece);
        else if (attr & kAttrByte)
            piece = std::string(1, byteOfToken(text));
        break;
    case TokenizerKind::Bpe:
        if (verbatim)
            piece = text;
        else if ((attr & kAttrNormal) && d.preSpec.escapeWhitespaces)
            unicode::appendSpaceMarksAsSpaces(text, piece);
        else if (attr & kAttrNormal)
            appendBpeDecoded(text, piece);
        else if (attr & kAttrByte) // newer llama.cpp renders BPE byte tokens too
            piece = std::string(1, byteOfToken(text));
        break;
    case TokenizerKind::Rwkv: return unescapeRwkvToken(text); // no strip, as in llama.cpp
    case TokenizerKind::None: break;
    }
    size_t strip = 0;
    while (static_cast<int>(strip) < lstrip && strip < piece.size() && piece[strip] == ' ')
        ++strip;
    return piece.substr(strip);
}

std::string Tokenizer::detokenize(std::span<const TokenId> ids, const DetokenizeOptions &options) const
{
    const TokenizerData &d = *m_data;
    std::string text;
    if (d.kind == TokenizerKind::None)
        return text;
    bool removeSpace = d.addSpacePrefix;
    if (options.removeSpecial && d.addBos && !ids.empty() && ids.front() == d.bos) {
        removeSpace = false;
        ids = ids.subspan(1);
    }
    if (options.removeSpecial && d.addEos && !ids.empty() && ids.back() == d.eos)
        ids = ids.first(ids.size() - 1);
    for (const TokenId id : ids) {
        text += tokenToPiece(id, options.unparseSpecial, removeSpace ? 1 : 0);
        removeSpace = false;
    }
    if (d.cleanSpaces)
        cleanSpaces(text);
    return text;
}

} // namespace gguf
