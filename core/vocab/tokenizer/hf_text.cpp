// SPDX-License-Identifier: GPL-3.0-or-later
// Text operations of a tokenizer.json pipeline: patterns, splitting by behaviour, character classes
// and the normalizers (docs/TOKENIZER_JSON.md §2–3). Unicode normalization and case mapping are
// ICU's (docs/DEPENDENCIES.md), the regexes PCRE2's.
#include "hf_pipeline.h"

#include "unicode_text.h"

#define PCRE2_CODE_UNIT_WIDTH 32
#include <pcre2.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <array>

namespace gguf::hf {

struct Regex::Code {
    pcre2_code *code = nullptr;
    ~Code() { pcre2_code_free(code); }
};

Regex::~Regex() = default;

std::shared_ptr<const Regex> Regex::compile(std::u32string_view pattern, std::string &why)
{
    int error = 0;
    PCRE2_SIZE errorOffset = 0;
    std::shared_ptr<Regex> regex(new Regex);
    regex->m_code = std::make_unique<Code>();
    regex->m_code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                        PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &errorOffset, nullptr);
    if (regex->m_code->code == nullptr) {
        std::array<PCRE2_UCHAR, 256> message{};
        pcre2_get_error_message(error, message.data(), message.size());
        why = "the regex " + toUtf8(pattern) + " does not compile at " + std::to_string(errorOffset) + ": ";
        for (PCRE2_UCHAR c : message) {
            if (c == 0)
                break;
            unicode::appendUtf8(c, why);
        }
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
    while (at <= text.size()) {
        // JIT first; the interpreter (heap, no stack limit) when the JIT stack is too small
        int rc = pcre2_match(m_code->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
        if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
            rc = pcre2_match(m_code->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match.get(),
                             nullptr);
        if (rc < 0)
            return;
        const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match.get());
        out.emplace_back(ovector[0], ovector[1]);
        at = ovector[1] > ovector[0] ? ovector[1] : ovector[1] + 1;
    }
}

std::vector<Segment> Pattern::find(std::u32string_view text) const
{
    if (text.empty())
        return {Segment{0, 0, false}};
    std::vector<std::pair<size_t, size_t>> matches;
    if (regex) {
        regex->findAll(text, matches);
    } else if (!literal.empty()) {
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
    if (text.empty())
        return {Segment{0, 0, false}};
    std::vector<Segment> out;
    size_t last = 0;
    for (size_t i = 0; i < text.size(); ++i)
        if (predicate(text[i])) {
            if (last < i)
                out.push_back({last, i, false});
            out.push_back({i, i + 1, true});
            last = i + 1;
        }
    if (last < text.size())
        out.push_back({last, text.size(), false});
    return out;
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
    const std::vector<uint32_t> cps = unicode::decodeUtf8(utf8);
    return Text(cps.begin(), cps.end());
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
    // Oniguruma's Unicode \w: Alphabetic (letters, letter numbers, and marks), marks, decimal
    // digits, connector punctuation, and the joiners
    const uint8_t category = unicode::category(c);
    return (category & (unicode::kLetter | unicode::kMark)) != 0 ||
           u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER ||
           u_charType(static_cast<UChar32>(c)) == U_LETTER_NUMBER ||
           u_charType(static_cast<UChar32>(c)) == U_CONNECTOR_PUNCTUATION || c == 0x200C || c == 0x200D;
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

void icuNormalize(const icu::Normalizer2 *form, Text &text)
{
    UErrorCode status = U_ZERO_ERROR;
    const icu::UnicodeString in = icu::UnicodeString::fromUTF32(reinterpret_cast<const UChar32 *>(text.data()),
                                                                static_cast<int32_t>(text.size()));
    if (form == nullptr || form->isNormalized(in, status))
        return;
    status = U_ZERO_ERROR;
    const icu::UnicodeString out = form->normalize(in, status);
    if (U_FAILURE(status))
        return;
    Text result(static_cast<size_t>(out.countChar32()), U'\0');
    status = U_ZERO_ERROR;
    out.toUTF32(reinterpret_cast<UChar32 *>(result.data()), static_cast<int32_t>(result.size()), status);
    text = std::move(result);
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

// Rust's char::to_lowercase for each code point alone (full mappings, no context).
void lowercase(Text &text)
{
    Text out;
    out.reserve(text.size());
    for (char32_t c : text) {
        if (c < 0x80) {
            out += (c >= 'A' && c <= 'Z') ? c + 32 : c;
            continue;
        }
        std::array<UChar, 2> in{};
        int32_t length = 0;
        U16_APPEND_UNSAFE(in.data(), length, static_cast<UChar32>(c));
        std::array<UChar, 8> lower{};
        UErrorCode status = U_ZERO_ERROR;
        const int32_t n = u_strToLower(lower.data(), lower.size(), in.data(), length, "", &status);
        if (U_FAILURE(status)) {
            out += c;
            continue;
        }
        for (int32_t i = 0; i < n;) {
            UChar32 cp = 0;
            U16_NEXT(lower.data(), i, n, cp);
            out += static_cast<char32_t>(cp);
        }
    }
    text = std::move(out);
}

void strip(Text &text, bool left, bool right)
{
    size_t begin = 0, end = text.size();
    while (left && begin < end && isWhite(text[begin]))
        ++begin;
    while (right && end > begin && isWhite(text[end - 1]))
        --end;
    text = text.substr(begin, end - begin);
}

void removeIf(Text &text, bool (*predicate)(char32_t))
{
    text.erase(std::remove_if(text.begin(), text.end(), predicate), text.end());
}

bool isMark(char32_t c)
{
    return (unicode::category(c) & unicode::kMark) != 0;
}

bool isNonSpacingMark(char32_t c)
{
    return u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK;
}

void replace(const Pattern &pattern, const Text &content, Text &text)
{
    Text out;
    for (const Segment &s : pattern.find(text))
        out += s.match ? content : text.substr(s.begin, s.end - s.begin);
    text = std::move(out);
}

bool isChinese(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// BertNormalizer: controls out and whitespace to spaces, CJK ideographs spaced, accents, case.
void bertNormalize(const Normalizer &n, Text &text)
{
    if (n.cleanText) {
        Text out;
        for (char32_t c : text) {
            const bool tabOrLine = c == U'\t' || c == U'\n' || c == U'\r';
            if (c == 0 || c == 0xFFFD || (!tabOrLine && (unicode::category(c) & unicode::kOther) != 0))
                continue;
            out += (tabOrLine || isWhite(c)) ? U' ' : c;
        }
        text = std::move(out);
    }
    if (n.chineseChars) {
        Text out;
        for (char32_t c : text)
            if (isChinese(c))
                out += Text{U' ', c, U' '};
            else
                out += c;
        text = std::move(out);
    }
    if (n.stripAccents) {
        icuNormalize(normalizerOf(Normalizer::Kind::Nfd), text);
        removeIf(text, isNonSpacingMark);
    }
    if (n.lowercase)
        lowercase(text);
}

} // namespace

void normalize(const Normalizer &n, Text &text)
{
    switch (n.kind) {
    case Normalizer::Kind::Sequence:
        for (const Normalizer &child : n.children)
            normalize(child, text);
        return;
    case Normalizer::Kind::Nfc:
    case Normalizer::Kind::Nfd:
    case Normalizer::Kind::Nfkc:
    case Normalizer::Kind::Nfkd: icuNormalize(normalizerOf(n.kind), text); return;
    case Normalizer::Kind::Lowercase: lowercase(text); return;
    case Normalizer::Kind::Strip: strip(text, n.left, n.right); return;
    case Normalizer::Kind::StripAccents: removeIf(text, isMark); return;
    case Normalizer::Kind::Replace: replace(n.pattern, n.content, text); return;
    case Normalizer::Kind::Prepend:
        if (!text.empty())
            text.insert(0, n.content);
        return;
    case Normalizer::Kind::Bert: bertNormalize(n, text); return;
    }
}

} // namespace gguf::hf
