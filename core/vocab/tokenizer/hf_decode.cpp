// SPDX-License-Identifier: GPL-3.0-or-later
// The decoders of a tokenizer.json pipeline (docs/TOKENIZER_JSON.md §7): each rewrites the list of
// token strings; decode joins what the last one leaves.
#include "hf_pipeline.h"

#include "unicode_text.h"

namespace gguf::hf {
namespace {

// The length of the UTF-8 sequence at `at` when it is complete and valid, else 0, with `maximal`
// the length of its longest valid prefix (String::from_utf8_lossy replaces that prefix, or the
// single byte, with one U+FFFD).
size_t validSequence(std::string_view s, size_t at, size_t &maximal)
{
    const auto b = static_cast<unsigned char>(s[at]);
    size_t need = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (b < 0x80)
        return maximal = 1;
    if (b >= 0xC2 && b <= 0xDF)
        need = 1;
    else if (b >= 0xE0 && b <= 0xEF) {
        need = 2;
        low = b == 0xE0 ? 0xA0 : 0x80;
        high = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
        need = 3;
        low = b == 0xF0 ? 0x90 : 0x80;
        high = b == 0xF4 ? 0x8F : 0xBF;
    }
    maximal = 1;
    for (size_t k = 1; k <= need; ++k) {
        if (at + k >= s.size())
            return 0;
        const auto c = static_cast<unsigned char>(s[at + k]);
        if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF))
            return 0;
        maximal = k + 1;
    }
    return need == 0 ? 0 : need + 1;
}

std::string lossyUtf8(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    for (size_t at = 0; at < bytes.size();) {
        size_t maximal = 1;
        const size_t length = validSequence(bytes, at, maximal);
        if (length > 0)
            out.append(bytes.substr(at, length));
        else
            out += "\xEF\xBF\xBD";
        at += length > 0 ? length : maximal;
    }
    return out;
}

bool validUtf8(std::string_view bytes)
{
    for (size_t at = 0; at < bytes.size();) {
        size_t maximal = 1;
        const size_t length = validSequence(bytes, at, maximal);
        if (length == 0)
            return false;
        at += length;
    }
    return true;
}

void byteLevel(std::vector<std::string> &tokens)
{
    std::string bytes;
    for (const std::string &token : tokens) {
        std::string spelled;
        bool all = true;
        for (char32_t c : toText(token)) {
            const int b = unicode::byteOfStandIn(c);
            if (b < 0) {
                all = false;
                break;
            }
            spelled += static_cast<char>(b);
        }
        bytes += all ? spelled : token;
    }
    tokens = {lossyUtf8(bytes)};
}

// <0xNN> tokens become their bytes: a run that is valid UTF-8 is one string, else one U+FFFD per byte.
void byteFallback(std::vector<std::string> &tokens)
{
    std::vector<std::string> out;
    std::string run;
    size_t runLength = 0;
    auto flush = [&] {
        if (runLength == 0)
            return;
        if (validUtf8(run))
            out.push_back(run);
        else
            for (size_t i = 0; i < runLength; ++i)
                out.emplace_back("\xEF\xBF\xBD");
        run.clear();
        runLength = 0;
    };
    for (std::string &token : tokens) {
        // u8::from_str_radix of the two characters: a leading '+' is a sign
        const bool shaped = token.size() == 6 && token.starts_with("<0x") && token.back() == '>';
        const int high = !shaped ? -1 : token[3] == '+' ? 0 : hexDigit(token[3]);
        const int low = high >= 0 ? hexDigit(token[4]) : -1;
        if (low >= 0) {
            run += static_cast<char>(high * 16 + low);
            ++runLength;
            continue;
        }
        flush();
        out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
}

void strip(const Decoder &d, std::vector<std::string> &tokens)
{
    for (std::string &token : tokens) {
        const Text chars = toText(token);
        size_t begin = 0, end = chars.size();
        while (begin < d.start && begin < end && chars[begin] == d.stripChar)
            ++begin;
        for (size_t i = 0; i < d.stop && end > begin && chars[end - 1] == d.stripChar; ++i)
            --end;
        token = toUtf8(std::u32string_view(chars).substr(begin, end - begin));
    }
}

// Rust's str::replace: an empty pattern puts `to` before every character and at the end.
void replaceAll(std::string &text, std::string_view from, std::string_view to)
{
    if (from.empty()) {
        std::string out(to);
        for (const char32_t c : toText(text)) {
            out += toUtf8(std::u32string_view(&c, 1));
            out += to;
        }
        text = std::move(out);
        return;
    }
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

void wordPiece(const Decoder &d, std::vector<std::string> &tokens)
{
    for (size_t i = 0; i < tokens.size(); ++i) {
        std::string &token = tokens[i];
        if (i != 0) {
            if (token.starts_with(d.content))
                token.erase(0, d.content.size());
            else
                token.insert(0, 1, ' ');
        }
        if (d.cleanup)
            for (const auto &[from, to] : {std::pair{" .", "."},
                                           {" ?", "?"},
                                           {" !", "!"},
                                           {" ,", ","},
                                           {" ' ", "'"},
                                           {" n't", "n't"},
                                           {" 'm", "'m"},
                                           {" do not", " don't"},
                                           {" 's", "'s"},
                                           {" 've", "'ve"},
                                           {" 're", "'re"}})
                replaceAll(token, from, to);
    }
}

void metaspace(const Decoder &d, std::vector<std::string> &tokens)
{
    for (size_t i = 0; i < tokens.size(); ++i) {
        Text out;
        for (char32_t c : toText(tokens[i]))
            if (c != d.replacement)
                out += c;
            else if (i != 0 || !d.firstWithoutMark)
                out += U' ';
        tokens[i] = toUtf8(out);
    }
}

} // namespace

void decodeChain(const Decoder &d, std::vector<std::string> &tokens)
{
    using Kind = Decoder::Kind;
    switch (d.kind) {
    case Kind::Sequence:
        for (const Decoder &child : d.children)
            decodeChain(child, tokens);
        return;
    case Kind::ByteLevel: byteLevel(tokens); return;
    case Kind::ByteFallback: byteFallback(tokens); return;
    case Kind::Fuse: {
        std::string all;
        for (const std::string &token : tokens)
            all += token;
        tokens = {all};
        return;
    }
    case Kind::Replace:
        for (std::string &token : tokens) {
            const Text text = toText(token);
            Text out;
            for (const Segment &s : d.pattern.find(text))
                out += s.match ? toText(d.content) : text.substr(s.begin, s.end - s.begin);
            token = toUtf8(out);
        }
        return;
    case Kind::Strip: strip(d, tokens); return;
    case Kind::Metaspace: metaspace(d, tokens); return;
    case Kind::WordPiece: wordPiece(d, tokens); return;
    case Kind::Bpe:
        for (size_t i = 0; i < tokens.size(); ++i)
            replaceAll(tokens[i], d.content, i + 1 == tokens.size() ? "" : " ");
        return;
    }
}

} // namespace gguf::hf
