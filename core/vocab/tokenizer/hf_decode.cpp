// SPDX-License-Identifier: GPL-3.0-or-later
// The decoders of a tokenizer.json pipeline (docs/TOKENIZER_JSON.md §7): each rewrites the list of
// token strings; decode joins what the last one leaves.
#include "hf_pipeline.h"

#include "unicode_text.h"

#include "core/safetensors/json_reader.h"

namespace gguf::hf {
namespace {

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
    tokens = {toUtf8(toText(bytes))}; // each maximal ill-formed part one U+FFFD (Rust's from_utf8_lossy)
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
        if (!json::firstInvalidUtf8(run))
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
    case Kind::Replace: {
        const Text content = toText(d.content);
        for (std::string &token : tokens) {
            Aligned text{toText(token), {}};
            text.first.resize(text.text.size());
            replaceMatches(d.pattern, content, text);
            token = toUtf8(text.text);
        }
        return;
    }
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
