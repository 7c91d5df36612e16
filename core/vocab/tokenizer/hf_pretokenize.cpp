// SPDX-License-Identifier: GPL-3.0-or-later
// The pre-tokenizers of a tokenizer.json pipeline (docs/TOKENIZER_JSON.md §4): each cuts every
// piece into smaller ones; the model then tokenizes each piece alone.
#include "hf_pipeline.h"

#include "unicode_text.h"

namespace gguf::hf {
namespace {

// A pattern of this file's own (it compiles).
std::shared_ptr<const Regex> compiled(std::u32string_view pattern)
{
    std::string why;
    return Regex::compile(pattern, why);
}

// GPT-2's pattern, which ByteLevel applies when use_regex is set (pre_tokenizers/byte_level.rs).
const Regex &gpt2Regex()
{
    static const std::shared_ptr<const Regex> regex =
        compiled(U"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
    return *regex;
}

// Whitespace's `\w+|[^\w\s]+` (Regex::compile spells \w and \s as the library's engines read them).
const Regex &wordRegex()
{
    static const std::shared_ptr<const Regex> regex = compiled(U"\\w+|[^\\w\\s]+");
    return *regex;
}

// Cuts each piece into the kept ranges `cut` gives; a piece's first part keeps its start mark.
template <typename Cut> void splitEach(std::vector<Piece> &pieces, Cut cut)
{
    std::vector<Piece> out;
    out.reserve(pieces.size());
    for (Piece &piece : pieces)
        for (const auto &[begin, end] : cut(piece.text))
            out.push_back(Piece{piece.text.substr(begin, end - begin), piece.atStart && begin == 0});
    pieces = std::move(out);
}

std::vector<Segment> inverted(std::vector<Segment> segments)
{
    for (Segment &s : segments)
        s.match = !s.match;
    return segments;
}

void byteLevel(const PreTokenizer &p, std::vector<Piece> &pieces)
{
    for (Piece &piece : pieces)
        if (p.addPrefixSpace && !piece.text.empty() && piece.text.front() != U' ')
            piece.text.insert(0, 1, U' ');
    if (p.useRegex)
        splitEach(pieces, [](const Text &t) {
            std::vector<std::pair<size_t, size_t>> matches;
            gpt2Regex().findAll(t, matches);
            return splitRanges(segmentsOf(matches, t.size()), Behavior::Isolated);
        });
    for (Piece &piece : pieces) { // each UTF-8 byte as its stand-in code point
        const std::string bytes = toUtf8(piece.text);
        Text spelled;
        spelled.reserve(bytes.size());
        for (const char c : bytes)
            spelled.push_back(unicode::byteStandInCodePoint(static_cast<uint8_t>(c)));
        piece.text = std::move(spelled);
    }
}

void metaspace(const PreTokenizer &p, std::vector<Piece> &pieces)
{
    for (Piece &piece : pieces) {
        for (char32_t &c : piece.text)
            if (c == U' ')
                c = p.replacement;
        const bool marked = !piece.text.empty() && piece.text.front() == p.replacement;
        if (!piece.text.empty() && !marked &&
            (p.prepend == PreTokenizer::Prepend::Always ||
             (p.prepend == PreTokenizer::Prepend::First && piece.atStart)))
            piece.text.insert(0, 1, p.replacement);
    }
    if (p.split) {
        const char32_t mark = p.replacement;
        splitEach(pieces, [mark](const Text &t) {
            return splitRanges(findChars(t, [mark](char32_t c) { return c == mark; }), Behavior::MergedWithNext);
        });
    }
}

} // namespace

void preTokenize(const PreTokenizer &p, std::vector<Piece> &pieces)
{
    using Kind = PreTokenizer::Kind;
    switch (p.kind) {
    case Kind::Sequence:
        for (const PreTokenizer &child : p.children)
            preTokenize(child, pieces);
        return;
    case Kind::ByteLevel: byteLevel(p, pieces); return;
    case Kind::Metaspace: metaspace(p, pieces); return;
    case Kind::Split:
        splitEach(pieces, [&p](const Text &t) {
            std::vector<Segment> segments = p.pattern.find(t);
            return splitRanges(p.invert ? inverted(std::move(segments)) : std::move(segments), p.behavior);
        });
        return;
    case Kind::Whitespace:
        splitEach(pieces, [](const Text &t) {
            std::vector<std::pair<size_t, size_t>> matches;
            wordRegex().findAll(t, matches);
            return splitRanges(inverted(segmentsOf(matches, t.size())), Behavior::Removed);
        });
        return;
    case Kind::WhitespaceSplit:
        splitEach(pieces, [](const Text &t) { return splitRanges(findChars(t, isWhite), Behavior::Removed); });
        return;
    case Kind::Digits:
        splitEach(pieces, [&p](const Text &t) {
            return splitRanges(findChars(t, isNumeric), p.individualDigits ? Behavior::Isolated : Behavior::Contiguous);
        });
        return;
    case Kind::Punctuation:
        splitEach(pieces, [&p](const Text &t) { return splitRanges(findChars(t, isPunctuation), p.behavior); });
        return;
    case Kind::Bert:
        splitEach(pieces, [](const Text &t) { return splitRanges(findChars(t, isWhite), Behavior::Removed); });
        splitEach(pieces, [](const Text &t) { return splitRanges(findChars(t, isPunctuation), Behavior::Isolated); });
        return;
    }
}

} // namespace gguf::hf
