// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp's hand-written splitters that no regular expression reproduces (src/unicode.cpp at
// de3ff815: unicode_regex_split_custom_kimi_k2 lines 777-946, unicode_cpt_is_han 1184-1214 and
// unicode_regex_split_custom_afmoe 948-1020), written again from their description in
// docs/TOKENIZER.md §3.3, quirks included.
#include "pre_tokenizer_custom.h"

#include "unicode_text.h"

namespace gguf {
namespace {

using Range = std::pair<uint32_t, uint32_t>;

// The code points Kimi K2's splitter calls Han (CJK ideographs and their extensions).
bool isHan(uint32_t cp)
{
    static constexpr std::pair<uint32_t, uint32_t> kRanges[] = {
        {0x4E00, 0x9FFF},   {0x3400, 0x4DBF},   {0x20000, 0x2A6DF}, {0x2A700, 0x2B73F}, {0x2B740, 0x2B81F},
        {0x2B820, 0x2CEAF}, {0x2CEB0, 0x2EBEF}, {0xF900, 0xFAFF},   {0x2F800, 0x2FA1F},
    };
    for (const auto &[first, last] : kRanges)
        if (cp >= first && cp <= last)
            return true;
    return false;
}

// A piece seen through llama.cpp's eyes: positions outside it have no code point and no flags.
class PieceView {
public:
    PieceView(std::span<const uint32_t> cps, Range piece) : m_cps(cps), m_begin(piece.first), m_end(piece.second) {}
    static constexpr uint32_t kOutside = 0xFFFFFFFF;

    uint32_t end() const { return m_end; }
    bool inside(size_t at) const { return at >= m_begin && at < m_end; }
    uint32_t cp(size_t at) const { return inside(at) ? m_cps[at] : kOutside; }
    bool letter(size_t at) const { return inside(at) && (unicode::category(m_cps[at]) & unicode::kLetter) != 0; }
    bool number(size_t at) const { return inside(at) && (unicode::category(m_cps[at]) & unicode::kNumber) != 0; }
    bool space(size_t at) const { return inside(at) && unicode::isWhitespace(m_cps[at]); }
    bool newline(size_t at) const { return cp(at) == '\r' || cp(at) == '\n'; }
    bool wordLetter(size_t at) const { return letter(at) && !isHan(m_cps[at]); }

private:
    std::span<const uint32_t> m_cps;
    uint32_t m_begin, m_end;
};

// Emits [previous end, end) when it is not empty.
class Emitter {
public:
    Emitter(uint32_t begin, std::vector<Range> &out) : m_previous(begin), m_out(out) {}
    void upTo(size_t end)
    {
        if (end > m_previous)
            m_out.emplace_back(m_previous, static_cast<uint32_t>(end));
        m_previous = static_cast<uint32_t>(end);
    }
    uint32_t previous() const { return m_previous; }

private:
    uint32_t m_previous;
    std::vector<Range> &m_out;
};

// The length of an English contraction ('s 't 'm 'd: 2; 're 've 'll: 3) starting at `at`, compared
// in lower case, or 0.
size_t contractionAt(const PieceView &v, size_t at)
{
    if (v.cp(at) != '\'' || at + 1 >= v.end())
        return 0;
    const uint32_t next = unicode::toLower(v.cp(at + 1));
    if (next == 's' || next == 't' || next == 'm' || next == 'd')
        return 2;
    if (at + 2 >= v.end())
        return 0;
    const uint32_t third = unicode::toLower(v.cp(at + 2));
    const bool two = (next == 'r' && third == 'e') || (next == 'v' && third == 'e') || (next == 'l' && third == 'l');
    return two ? 3 : 0;
}

// Kimi K2's letter word: an optional leading character that is no letter, number or newline, then
// letters that are not Han, then an optional contraction. Returns the end, or 0 when none starts here.
size_t kimiWordEnd(const PieceView &v, size_t at)
{
    const bool plain = !(v.newline(at) || v.letter(at) || v.number(at));
    if (!(v.wordLetter(at) || (plain && v.wordLetter(at + 1))))
        return 0;
    size_t pos = at + (plain ? 1 : 0);
    while (v.wordLetter(pos))
        ++pos;
    return pos + contractionAt(v, pos);
}

// The whitespace rules shared by the scanners: a run ending in \r or \n is taken up to its last
// one; a longer run followed by more text leaves its last character to what follows.
size_t whitespaceEnd(const PieceView &v, size_t at)
{
    size_t count = 0, lastNewline = 0;
    while (v.space(at + count)) {
        if (v.newline(at + count))
            lastNewline = at + count + 1;
        ++count;
    }
    if (lastNewline > 0)
        return lastNewline;
    if (count > 1 && v.inside(at + count))
        return at + count - 1;
    return at + count;
}

void splitKimiK2(const PieceView &v, Emitter &emit, uint32_t begin)
{
    for (size_t pos = begin; pos < v.end();) {
        if (isHan(v.cp(pos))) {
            while (isHan(v.cp(pos)))
                ++pos;
            emit.upTo(pos);
            continue;
        }
        if (const size_t end = kimiWordEnd(v, pos); end != 0) {
            emit.upTo(pos = end);
            continue;
        }
        if (v.number(pos)) { // at most three digits at a time
            size_t start = pos;
            while (v.number(pos))
                if (++pos - start >= 3) {
                    emit.upTo(pos);
                    start = pos;
                }
            emit.upTo(pos);
            continue;
        }
        // an optional space, then characters that are no whitespace, letter or number, then newlines
        const size_t first = v.cp(pos) == ' ' ? pos + 1 : pos;
        const auto other = [&](size_t at) { return v.inside(at) && !(v.space(at) || v.letter(at) || v.number(at)); };
        if (other(first)) {
            pos = first;
            while (other(pos))
                ++pos;
            while (v.newline(pos))
                ++pos;
            emit.upTo(pos);
            continue;
        }
        const size_t end = whitespaceEnd(v, pos);
        emit.upTo(pos = end > pos ? end : pos + 1);
    }
}

// Each run of numbers is cut into its first (length mod 3) digits, when that is not 0, and then
// threes. Text before a run joins its first group; text after the last run is one piece.
void splitDigitGroups(const PieceView &v, Emitter &emit, uint32_t begin)
{
    for (size_t pos = begin; pos < v.end();) {
        if (!v.number(pos)) {
            ++pos;
            continue;
        }
        const size_t start = pos;
        while (v.number(pos))
            ++pos;
        size_t at = start + (pos - start) % 3;
        if (at > start)
            emit.upTo(at);
        for (; at < pos; at += 3)
            emit.upTo(at + 3);
    }
    emit.upTo(v.end());
}

} // namespace

CustomSplit customSplitOf(std::string_view pattern)
{
    if (pattern == "\\p{Han}+")
        return CustomSplit::KimiK2;
    if (pattern == "\\p{AFMoE_digits}" || pattern == "\\d{1,3}(?=(?:\\d{3})*\\b)")
        return CustomSplit::DigitGroups;
    return CustomSplit::None;
}

void splitCustom(CustomSplit kind, std::span<const uint32_t> cps, Range piece, std::vector<Range> &out)
{
    const PieceView view(cps, piece);
    Emitter emit(piece.first, out);
    if (kind == CustomSplit::KimiK2)
        splitKimiK2(view, emit, piece.first);
    else if (kind == CustomSplit::DigitGroups)
        splitDigitGroups(view, emit, piece.first);
}

} // namespace gguf
