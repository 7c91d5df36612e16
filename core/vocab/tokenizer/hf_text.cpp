// SPDX-License-Identifier: GPL-3.0-or-later
// Text operations of a tokenizer.json pipeline: patterns, splitting by behaviour, character classes
// and the normalizers (docs/TOKENIZER_JSON.md §2–3). Unicode normalization and case mapping are
// ICU's (docs/TOKENIZER_JSON.md §8), the regexes PCRE2's.
#include "hf_pipeline.h"

#include "unicode_text.h"

#include "core/util/text_format.h"

#include "pcre2_match.h"
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <array>
#include <optional>

namespace gguf::hf {

struct Regex::Code {
    pcre2_code *code = nullptr;
    ~Code() { pcre2_code_free(code); }
};

Regex::~Regex() = default;

namespace {

// White_Space, which Oniguruma's and the regex crate's \s match (PCRE2's \s also takes U+180E), and
// Unicode's \w as both define it (PCRE2's is letters, numbers and _).
constexpr std::u32string_view kSpaceSet = U"\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
                                          U"\\x{202F}\\x{205F}\\x{3000}";
constexpr std::u32string_view kWordSet = U"\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";

// The pattern with \s, \S, \w and \W spelled out as sets (inside a set, \s and \w only).
Text spelledOut(std::u32string_view pattern)
{
    Text out;
    bool inSet = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char32_t c = pattern[i];
        if (c == U'\\' && i + 1 < pattern.size()) {
            const char32_t e = pattern[++i];
            const bool space = e == U's' || e == U'S', word = e == U'w' || e == U'W';
            const std::u32string_view set = space ? kSpaceSet : kWordSet;
            if ((space || word) && inSet && (e == U's' || e == U'w'))
                out += set;
            else if ((space || word) && !inSet)
                out += Text(e == U'S' || e == U'W' ? U"[^" : U"[") + Text(set) + U"]";
            else
                out += Text{c, e};
            continue;
        }
        if (c == U'[' && !inSet)
            inSet = true;
        else if (c == U']' && inSet && !(out.size() > 0 && (out.back() == U'[' || out.ends_with(U"[^"))))
            inSet = false;
        out += c;
    }
    return out;
}

} // namespace

std::shared_ptr<const Regex> Regex::compile(std::u32string_view written, std::string &why)
{
    const Text spelled = spelledOut(written);
    const std::u32string_view pattern = spelled;
    int error = 0;
    PCRE2_SIZE errorOffset = 0;
    std::shared_ptr<Regex> regex(new Regex);
    regex->m_code = std::make_unique<Code>();
    regex->m_code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                        PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &errorOffset, nullptr);
    if (regex->m_code->code == nullptr) {
        why = "the regex " + toUtf8(written) + " does not compile at " + std::to_string(errorOffset) + ": " +
              detail::pcre2ErrorText(error);
        return nullptr;
    }
    pcre2_jit_compile(regex->m_code->code, PCRE2_JIT_COMPLETE);
    return regex;
}

void Regex::findAll(std::u32string_view text, std::vector<std::pair<size_t, size_t>> &out) const
{
    using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
    const MatchData match(pcre2_match_data_create_from_pattern(m_code->code, nullptr), &pcre2_match_data_free);
    const auto *subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t at = 0;
    std::optional<size_t> lastEnd;
    while (at <= text.size()) {
        if (detail::pcre2MatchAt(m_code->code, subject, text.size(), at, match.get()) < 0)
            return;
        const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match.get());
        // an empty match where the previous one ended is not one (rust-onig's FindMatches)
        if (ovector[1] > ovector[0] || lastEnd != ovector[1]) {
            out.emplace_back(ovector[0], ovector[1]);
            lastEnd = ovector[1];
        }
        at = ovector[1] > ovector[0] ? ovector[1] : ovector[1] + 1;
    }
}

std::vector<Segment> Pattern::find(std::u32string_view text) const
{
    // the library's patterns all say "no match" in an empty text, even one that matches nothing
    // (`x*` after a Strip took every character: nothing is replaced)
    if (text.empty())
        return {Segment{0, 0, false}};
    std::vector<std::pair<size_t, size_t>> matches;
    if (regex) {
        regex->findAll(text, matches);
    } else if (literal.empty()) {
        // the library escapes the literal into a regex: an empty one matches at every position
        for (size_t at = 0; at <= text.size(); ++at)
            matches.emplace_back(at, at);
    } else {
        for (size_t at = text.find(literal); at != std::u32string_view::npos;
             at = text.find(literal, at + literal.size()))
            matches.emplace_back(at, at + literal.size());
    }
    return segmentsOf(matches, text.size());
}

std::vector<Segment> segmentsOf(const std::vector<std::pair<size_t, size_t>> &matches, size_t size)
{
    std::vector<Segment> out;
    size_t previous = 0;
    for (const auto &[begin, end] : matches) {
        if (previous != begin)
            out.push_back({previous, begin, false});
        out.push_back({begin, end, true});
        previous = end;
    }
    if (previous != size)
        out.push_back({previous, size, false});
    return out;
}

std::vector<Segment> findChars(std::u32string_view text, const std::function<bool(char32_t)> &predicate)
{
    std::vector<std::pair<size_t, size_t>> matches;
    for (size_t i = 0; i < text.size(); ++i)
        if (predicate(text[i]))
            matches.emplace_back(i, i + 1);
    return segmentsOf(matches, text.size());
}

namespace {

// Joins a match to the piece before it (MergedWithPrevious); `acc` holds (range, remove) pairs.
using Ranges = std::vector<std::pair<std::pair<size_t, size_t>, bool>>;

Ranges mergedWithPrevious(const std::vector<Segment> &segments)
{
    Ranges acc;
    bool previousMatch = false;
    for (const Segment &s : segments) {
        if (s.match && !previousMatch && !acc.empty())
            acc.back().first.second = s.end;
        else
            acc.push_back({{s.begin, s.end}, false});
        previousMatch = s.match;
    }
    return acc;
}

Ranges mergedWithNext(const std::vector<Segment> &segments)
{
    Ranges acc;
    bool previousMatch = false;
    for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
        if (it->match && !previousMatch && !acc.empty())
            acc.back().first.first = it->begin;
        else
            acc.push_back({{it->begin, it->end}, false});
        previousMatch = it->match;
    }
    std::reverse(acc.begin(), acc.end());
    return acc;
}

Ranges contiguous(const std::vector<Segment> &segments)
{
    Ranges acc;
    bool previousMatch = false;
    for (const Segment &s : segments) {
        if (s.match == previousMatch && !acc.empty())
            acc.back().first.second = s.end;
        else
            acc.push_back({{s.begin, s.end}, false});
        previousMatch = s.match;
    }
    return acc;
}

} // namespace

std::vector<std::pair<size_t, size_t>> splitRanges(std::vector<Segment> segments, Behavior behavior)
{
    Ranges ranges;
    switch (behavior) {
    case Behavior::Isolated:
    case Behavior::Removed:
        for (const Segment &s : segments)
            ranges.push_back({{s.begin, s.end}, behavior == Behavior::Removed && s.match});
        break;
    case Behavior::MergedWithPrevious: ranges = mergedWithPrevious(segments); break;
    case Behavior::MergedWithNext: ranges = mergedWithNext(segments); break;
    case Behavior::Contiguous: ranges = contiguous(segments); break;
    }
    std::vector<std::pair<size_t, size_t>> out;
    for (const auto &[range, remove] : ranges)
        if (!remove && range.second > range.first)
            out.push_back(range);
    return out;
}

Text toText(std::string_view utf8)
{
    // gguf::decodeUtf8 never gives a surrogate or a value past U+10FFFF, which PCRE2 must not see
    Text text;
    text.reserve(utf8.size());
    for (size_t at = 0; at < utf8.size();)
        text += gguf::decodeUtf8(utf8, at);
    return text;
}

std::string toUtf8(std::u32string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text)
        unicode::appendUtf8(c, out);
    return out;
}

bool isWhite(char32_t c)
{
    return unicode::isWhitespace(c);
}

bool isWordChar(char32_t c)
{
    // Unicode's \w (the regex crate's, which the library's single_word check uses): Alphabetic,
    // marks, decimal digits, connector punctuation, Join_Control
    const auto cp = static_cast<UChar32>(c);
    const int8_t type = u_charType(cp);
    return u_hasBinaryProperty(cp, UCHAR_ALPHABETIC) || (unicode::category(c) & unicode::kMark) != 0 ||
           type == U_DECIMAL_DIGIT_NUMBER || type == U_CONNECTOR_PUNCTUATION ||
           u_hasBinaryProperty(cp, UCHAR_JOIN_CONTROL);
}

bool isNumeric(char32_t c)
{
    return (unicode::category(c) & unicode::kNumber) != 0;
}

bool isPunctuation(char32_t c)
{
    if (c < 0x80)
        return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
    return (unicode::category(c) & unicode::kPunctuation) != 0;
}

namespace {

// An ICU normal form of the text; of the alignment only the first code point's is kept.
void icuNormalize(const icu::Normalizer2 *form, Aligned &a)
{
    UErrorCode status = U_ZERO_ERROR;
    const icu::UnicodeString in = icu::UnicodeString::fromUTF32(reinterpret_cast<const UChar32 *>(a.text.data()),
                                                                static_cast<int32_t>(a.text.size()));
    if (form == nullptr || form->isNormalized(in, status))
        return;
    status = U_ZERO_ERROR;
    const icu::UnicodeString out = form->normalize(in, status);
    if (U_FAILURE(status))
        return;
    Text result(static_cast<size_t>(out.countChar32()), U'\0');
    status = U_ZERO_ERROR;
    out.toUTF32(reinterpret_cast<UChar32 *>(result.data()), static_cast<int32_t>(result.size()), status);
    // the first code point still comes from the first; what else does is not tracked
    std::vector<uint8_t> first(result.size(), 0);
    if (!first.empty() && !a.first.empty())
        first[0] = a.first[0];
    a.text = std::move(result);
    a.first = std::move(first);
}

const icu::Normalizer2 *normalizerOf(Normalizer::Kind kind)
{
    UErrorCode status = U_ZERO_ERROR;
    switch (kind) {
    case Normalizer::Kind::Nfc: return icu::Normalizer2::getNFCInstance(status);
    case Normalizer::Kind::Nfd: return icu::Normalizer2::getNFDInstance(status);
    case Normalizer::Kind::Nfkc: return icu::Normalizer2::getNFKCInstance(status);
    default: return icu::Normalizer2::getNFKDInstance(status);
    }
}

// Appends the lowercase form of `c` (Rust's char::to_lowercase: the full mapping, no context).
void appendLower(char32_t c, Text &out)
{
    if (c < 0x80) {
        out += (c >= 'A' && c <= 'Z') ? c + 32 : c;
        return;
    }
    std::array<UChar, 2> in{};
    int32_t length = 0;
    U16_APPEND_UNSAFE(in.data(), length, static_cast<UChar32>(c));
    std::array<UChar, 8> lower{};
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = u_strToLower(lower.data(), lower.size(), in.data(), length, "", &status);
    if (U_FAILURE(status)) {
        out += c;
        return;
    }
    for (int32_t i = 0; i < n;) {
        UChar32 cp = 0;
        U16_NEXT(lower.data(), i, n, cp);
        out += static_cast<char32_t>(cp);
    }
}

// Rewrites each code point as `map` says (nothing, itself, or several), each written one keeping
// where its source came from.
template <typename Map> void rewrite(Aligned &a, Map map)
{
    Aligned out;
    out.text.reserve(a.text.size());
    Text piece;
    for (size_t i = 0; i < a.text.size(); ++i) {
        piece.clear();
        map(a.text[i], piece);
        out.text += piece;
        out.first.insert(out.first.end(), piece.size(), a.first[i]);
    }
    a = std::move(out);
}

void strip(Aligned &a, bool left, bool right)
{
    size_t begin = 0, end = a.text.size();
    while (left && begin < end && isWhite(a.text[begin]))
        ++begin;
    while (right && end > begin && isWhite(a.text[end - 1]))
        --end;
    a.text = a.text.substr(begin, end - begin);
    a.first = std::vector<uint8_t>(a.first.begin() + std::ptrdiff_t(begin), a.first.begin() + std::ptrdiff_t(end));
}

bool isMark(char32_t c)
{
    return (unicode::category(c) & unicode::kMark) != 0;
}

bool isNonSpacingMark(char32_t c)
{
    return u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK;
}

void removeIf(Aligned &a, bool (*predicate)(char32_t))
{
    rewrite(a, [predicate](char32_t c, Text &out) {
        if (!predicate(c))
            out += c;
    });
}

} // namespace

void replaceMatches(const Pattern &pattern, const Text &content, Aligned &a)
{
    Aligned out;
    for (const Segment &s : pattern.find(a.text)) {
        if (s.match) {
            out.text += content;
            out.first.insert(out.first.end(), content.size(), s.begin < a.first.size() ? a.first[s.begin] : 0);
        } else {
            out.text += a.text.substr(s.begin, s.end - s.begin);
            out.first.insert(out.first.end(), a.first.begin() + std::ptrdiff_t(s.begin),
                             a.first.begin() + std::ptrdiff_t(s.end));
        }
    }
    a = std::move(out);
}

namespace {

bool isChinese(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// BertNormalizer: controls (Cc, Cf, Co: the library's is_other) out and whitespace to spaces, CJK
// ideographs spaced, accents, case.
void bertNormalize(const Normalizer &n, Aligned &a)
{
    if (n.cleanText)
        rewrite(a, [](char32_t c, Text &out) {
            const bool tabOrLine = c == U'\t' || c == U'\n' || c == U'\r';
            const int8_t type = u_charType(static_cast<UChar32>(c));
            const bool other = type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || type == U_PRIVATE_USE_CHAR;
            if (c == 0 || c == 0xFFFD || (!tabOrLine && other))
                return;
            out += (tabOrLine || isWhite(c)) ? U' ' : c;
        });
    if (n.chineseChars)
        rewrite(a, [](char32_t c, Text &out) {
            if (isChinese(c))
                out += Text{U' ', c, U' '};
            else
                out += c;
        });
    if (n.stripAccents) {
        icuNormalize(normalizerOf(Normalizer::Kind::Nfd), a);
        removeIf(a, isNonSpacingMark);
    }
    if (n.lowercase)
        rewrite(a, appendLower);
}

} // namespace

void normalize(const Normalizer &n, Aligned &a)
{
    switch (n.kind) {
    case Normalizer::Kind::Sequence:
        for (const Normalizer &child : n.children)
            normalize(child, a);
        return;
    case Normalizer::Kind::Nfc:
    case Normalizer::Kind::Nfd:
    case Normalizer::Kind::Nfkc:
    case Normalizer::Kind::Nfkd: icuNormalize(normalizerOf(n.kind), a); return;
    case Normalizer::Kind::Lowercase: rewrite(a, appendLower); return;
    case Normalizer::Kind::Strip: strip(a, n.left, n.right); return;
    case Normalizer::Kind::StripAccents: removeIf(a, isMark); return;
    case Normalizer::Kind::Replace: replaceMatches(n.pattern, n.content, a); return;
    case Normalizer::Kind::Prepend:
        // the prefix comes from where the first code point did
        if (!a.text.empty()) {
            a.text.insert(0, n.content);
            a.first.insert(a.first.begin(), n.content.size(), a.first.front());
        }
        return;
    case Normalizer::Kind::Bert: bertNormalize(n, a); return;
    }
}

void normalize(const Normalizer &n, Text &text)
{
    const size_t size = text.size();
    Aligned a{std::move(text), std::vector<uint8_t>(size, 0)};
    normalize(n, a);
    text = std::move(a.text);
}

} // namespace gguf::hf
