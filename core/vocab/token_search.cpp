// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/vocab/token_search.h"

#include "core/util/utf8.h"
#include "core/vocab/vocabulary.h"

#include "tokenizer/pcre2_match.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

namespace gguf {

namespace {

// How often a loop over every token asks whether to go on.
constexpr uint64_t kCheckEvery = 8192;

char foldAscii(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool isAscii(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// `needle` is already folded.
bool containsFolded(std::string_view haystack, std::string_view needle)
{
    if (needle.size() > haystack.size())
        return false;
    for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
        size_t k = 0;
        while (k < needle.size() && foldAscii(haystack[i + k]) == needle[k])
            ++k;
        if (k == needle.size())
            return true;
    }
    return false;
}

// The code points of UTF-8 `text` into `out`: each byte that does not begin a well-formed
// sequence (a stray continuation, a cut or overlong sequence, a surrogate, beyond U+10FFFF) is
// one U+FFFD, so the result is always valid for PCRE2 to match unchecked.
void decodeUtf8(std::string_view text, std::vector<uint32_t> &out)
{
    out.clear();
    const auto byte = [&text](size_t i) { return static_cast<uint8_t>(text[i]); };
    for (size_t i = 0; i < text.size();) {
        const uint8_t lead = byte(i);
        if (lead < 0x80) {
            out.push_back(lead);
            ++i;
            continue;
        }
        const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
        uint32_t cp = length == 4 ? lead & 0x07u : length == 3 ? lead & 0x0Fu : lead & 0x1Fu;
        bool ok = length != 0 && i + length <= text.size();
        for (size_t k = 1; ok && k < length; ++k) {
            ok = (byte(i + k) & 0xC0) == 0x80;
            cp = (cp << 6) | (byte(i + k) & 0x3Fu);
        }
        static constexpr std::array<uint32_t, 5> kSmallest{0, 0, 0x80, 0x800, 0x10000};
        ok = ok && cp >= kSmallest[length] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
        out.push_back(ok ? cp : 0xFFFD);
        i += ok ? length : 1;
    }
}

// The parts of `text` between runs of the separators (white space and commas).
std::vector<std::string_view> splitList(std::string_view text)
{
    const auto isSeparator = [](char c) { return c == ',' || c == ' ' || (c >= '\t' && c <= '\r'); };
    std::vector<std::string_view> parts;
    for (size_t i = 0; i < text.size();) {
        while (i < text.size() && isSeparator(text[i]))
            ++i;
        const size_t start = i;
        while (i < text.size() && !isSeparator(text[i]))
            ++i;
        if (i > start)
            parts.push_back(text.substr(start, i - start));
    }
    return parts;
}

bool startsWithNoCase(std::string_view text, std::string_view prefix)
{
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) { return foldAscii(a) == b; });
}

bool continues(const gguf::ProgressFn &progress, uint64_t done, uint64_t total)
{
    return done % kCheckEvery != 0 || !progress || progress(done, total);
}

uint32_t clampedCount(uint64_t n)
{
    return static_cast<uint32_t>(std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
}

} // namespace

// A compiled pattern, shared read-only by every copy of the search and every worker (PCRE2's
// compiled and JIT-compiled code may be matched from several threads at once).
struct TokenSearch::Pattern {
    pcre2_code *code = nullptr;
    Pattern() = default;
    Pattern(const Pattern &) = delete;
    Pattern &operator=(const Pattern &) = delete;
    ~Pattern() { pcre2_code_free(code); }
};

// Buffers one worker reuses for every token, so the search itself allocates nothing per token;
// and the worker's own match data.
struct TokenSearch::Scratch {
    std::string decoded;
    std::string joined;
    std::vector<uint32_t> utf32;
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match{nullptr, &pcre2_match_data_free};
};

void TokenSearch::compile(uint32_t options)
{
    std::vector<uint32_t> pattern;
    decodeUtf8(m_query.text, pattern);
    int code = 0;
    PCRE2_SIZE offset = 0;
    auto compiled = std::make_shared<Pattern>();
    compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options | PCRE2_UTF,
                                   &code, &offset, nullptr);
    if (!compiled->code) {
        m_patternError = detail::pcre2ErrorText(code);
        m_patternErrorOffset = offset;
        m_error = QueryError::BadPattern;
        return;
    }
    pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE); // without JIT, matching still works
    m_regex = std::move(compiled);
}

TokenSearch::TokenSearch(const Query &query) : m_query(query)
{
    switch (query.mode) {
    case Mode::Text:
        if (query.caseSensitive || isAscii(query.text)) {
            m_needle = query.text;
            if (!query.caseSensitive)
                std::transform(m_needle.begin(), m_needle.end(), m_needle.begin(), foldAscii);
        } else if (!query.text.empty()) {
            // Unicode case folding is PCRE2's job
            compile(PCRE2_LITERAL | PCRE2_CASELESS);
        }
        break;
    case Mode::RegularExpression:
        if (!query.text.empty())
            compile(PCRE2_UCP | (query.caseSensitive ? 0u : PCRE2_CASELESS));
        break;
    case Mode::Id:
        if (const auto ranges = parseIdRanges(query.text))
            m_ranges = *ranges;
        else
            m_error = QueryError::BadIds;
        break;
    case Mode::Bytes:
        if (const auto bytes = parseHexBytes(query.text))
            m_needle = *bytes;
        else
            m_error = QueryError::BadBytes;
        break;
    }
}

bool TokenSearch::matchesAll() const
{
    return !hasText() && m_query.typeFilter == kAnyType;
}

std::optional<std::string> TokenSearch::parseHexBytes(std::string_view text)
{
    // "\xe2\x96" reads as "e2 96"
    std::string digits(text);
    for (size_t at = 0; at + 1 < digits.size(); ++at)
        if (digits[at] == '\\' && foldAscii(digits[at + 1]) == 'x')
            digits[at] = digits[at + 1] = ' ';
    std::string bytes;
    for (std::string_view part : splitList(digits)) {
        if (startsWithNoCase(part, "0x"))
            part.remove_prefix(2);
        if (part.empty() || part.size() % 2 != 0)
            return std::nullopt;
        for (size_t i = 0; i < part.size(); i += 2) {
            const int hi = hexDigit(part[i]), lo = hexDigit(part[i + 1]);
            if (hi < 0 || lo < 0)
                return std::nullopt;
            bytes += static_cast<char>(hi * 16 + lo);
        }
    }
    return bytes;
}

std::optional<std::vector<std::pair<uint64_t, uint64_t>>> TokenSearch::parseIdRanges(std::string_view text)
{
    // "100 - 200" is one range: the white space around a dash or ".." is not a list separator
    std::string normalized;
    for (size_t i = 0; i < text.size(); ++i) {
        const bool space = text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r');
        if (space) {
            size_t next = i;
            while (next < text.size() && (text[next] == ' ' || (text[next] >= '\t' && text[next] <= '\r')))
                ++next;
            const bool beforeDash = next < text.size() && (text[next] == '-' || text.substr(next, 2) == "..");
            const bool afterDash = !normalized.empty() && (normalized.back() == '-' || normalized.back() == '.');
            if (beforeDash || afterDash) {
                i = next - 1;
                continue;
            }
        }
        normalized += text[i];
    }
    // one number: digits only, no sign
    const auto number = [](std::string_view digits) -> std::optional<uint64_t> {
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || digits[0] == '-')
            return std::nullopt;
        return value;
    };
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const std::string_view part : splitList(normalized)) {
        size_t dash = part.find("..");
        size_t width = 2;
        if (dash == std::string_view::npos) {
            dash = part.find('-');
            width = 1;
        }
        const std::optional<uint64_t> first = number(part.substr(0, dash));
        const std::optional<uint64_t> last = dash == std::string_view::npos ? first : number(part.substr(dash + width));
        if (!first || !last)
            return std::nullopt;
        ranges.emplace_back(std::min(*first, *last), std::max(*first, *last));
    }
    return ranges;
}

bool TokenSearch::matchesId(uint64_t id) const
{
    return std::any_of(m_ranges.begin(), m_ranges.end(),
                       [id](const auto &r) { return id >= r.first && id <= r.second; });
}

bool TokenSearch::matchesBytes(std::string_view text, Scratch &scratch) const
{
    if (m_regex) {
        // the decoder wrote valid code points (U+FFFD for bad bytes): PCRE2 need not check them again
        decodeUtf8(text, scratch.utf32);
        const auto *subject = reinterpret_cast<PCRE2_SPTR>(scratch.utf32.data());
        return detail::pcre2MatchAt(m_regex->code, subject, scratch.utf32.size(), 0, scratch.match.get()) >= 0;
    }
    if (m_query.mode == Mode::Text && !m_query.caseSensitive)
        return containsFolded(text, m_needle);
    return text.find(m_needle) != std::string_view::npos;
}

std::optional<TokenSearch::Ids> TokenSearch::scan(uint64_t count, const gguf::ProgressFn &progress,
                                                  const std::function<bool(uint64_t, Scratch &)> &test) const
{
    // Chunks of positions on every core; each chunk keeps its hits, joined in position order.
    constexpr uint64_t kChunk = 8192;
    const uint64_t chunks = (count + kChunk - 1) / kChunk;
    std::vector<Scratch> scratch(gguf::workerCount(0, chunks));
    if (m_regex)
        for (Scratch &s : scratch)
            s.match.reset(pcre2_match_data_create_from_pattern(m_regex->code, nullptr));
    std::vector<Ids> found(static_cast<size_t>(chunks));
    const auto work = [&](uint64_t chunk, unsigned worker) {
        const uint64_t end = std::min(count, (chunk + 1) * kChunk);
        for (uint64_t pos = chunk * kChunk; pos < end; ++pos)
            if (test(pos, scratch[worker]))
                found[static_cast<size_t>(chunk)].push_back(static_cast<uint32_t>(pos));
    };
    if (!gguf::runChunks(chunks, 0, work, progress))
        return std::nullopt;
    Ids positions;
    for (const Ids &part : found)
        positions.insert(positions.end(), part.begin(), part.end());
    return positions;
}

bool TokenSearch::hasText() const
{
    return m_query.mode == Mode::Id || m_query.mode == Mode::Bytes
               ? m_query.text.find_first_not_of(" \t\n\v\f\r") != std::string::npos
               : !m_query.text.empty();
}

std::optional<TokenSearch::Ids> TokenSearch::tokens(const gguf::Vocabulary &vocab, const Ids *order, bool descending,
                                                    const gguf::ProgressFn &progress) const
{
    if (!isValid())
        return Ids();
    const uint64_t n = order ? order->size() : clampedCount(vocab.size());
    std::vector<uint64_t> special;
    if (m_query.typeFilter == kSpecialTokens) {
        for (const gguf::SpecialToken &s : vocab.specialTokens())
            special.push_back(s.id);
        std::sort(special.begin(), special.end());
    }
    const bool anyText = !hasText();
    const auto idAt = [order, descending, n](uint64_t pos) {
        const uint64_t at = descending ? n - 1 - pos : pos;
        return order ? (*order)[at] : static_cast<uint32_t>(at);
    };
    const auto test = [&](uint64_t pos, Scratch &scratch) {
        const uint32_t id = idAt(pos);
        if (m_query.typeFilter == kSpecialTokens && !std::binary_search(special.begin(), special.end(), id))
            return false;
        if (m_query.typeFilter >= 0 && vocab.type(id) != m_query.typeFilter)
            return false;
        if (anyText)
            return true;
        if (m_query.mode == Mode::Id)
            return matchesId(id);
        const std::string_view stored = vocab.token(id);
        if (m_query.field != Field::Decoded && matchesBytes(stored, scratch))
            return true;
        if (m_query.field == Field::Stored)
            return false;
        vocab.decodedInto(id, scratch.decoded);
        // the decoded text is often the stored text: no need to look twice
        return (m_query.field == Field::Decoded || scratch.decoded != stored) && matchesBytes(scratch.decoded, scratch);
    };
    auto positions = scan(n, progress, test);
    if (positions)
        for (uint32_t &p : *positions)
            p = idAt(p);
    return positions;
}

std::optional<TokenSearch::Ids> TokenSearch::merges(const gguf::Vocabulary &vocab,
                                                    const gguf::ProgressFn &progress) const
{
    if (!isValid())
        return Ids();
    const uint32_t n = clampedCount(vocab.mergeCount());
    if (!hasText()) {
        Ids ranks(n);
        std::iota(ranks.begin(), ranks.end(), 0u);
        return ranks;
    }
    return scan(n, progress, [&](uint64_t rank, Scratch &scratch) {
        if (m_query.mode == Mode::Id)
            return matchesId(rank);
        const auto [left, right] = vocab.mergeParts(rank);
        scratch.joined.assign(left);
        scratch.joined.append(right);
        // plain text without a space found in the rule ("Ġt he") is found in its result ("Ġthe")
        const bool ruleNeeded = m_regex || m_needle.find(' ') != std::string::npos;
        if (m_query.field != Field::Decoded &&
            ((ruleNeeded && matchesBytes(vocab.merge(rank), scratch)) || matchesBytes(scratch.joined, scratch)))
            return true;
        if (m_query.field == Field::Stored)
            return false;
        vocab.decodeTextInto(scratch.joined, scratch.decoded);
        return matchesBytes(scratch.decoded, scratch);
    });
}

std::optional<TokenSearch::Ids> TokenSearch::sortOrder(const gguf::Vocabulary &vocab, SortKey key,
                                                       const gguf::ProgressFn &progress)
{
    const uint32_t n = clampedCount(vocab.size());
    // (key, id) pairs read once, then sorted in place: comparisons touch neither the file nor a
    // second array, and equal keys fall back to the id.
    const auto sortBy = [&](auto keyOf) -> std::optional<Ids> {
        using Key = decltype(keyOf(uint32_t{}));
        std::vector<std::pair<Key, uint32_t>> keyed;
        keyed.reserve(n);
        for (uint32_t id = 0; id < n; ++id) {
            if (!continues(progress, id, n))
                return std::nullopt;
            keyed.emplace_back(keyOf(id), id);
        }
        std::sort(keyed.begin(), keyed.end());
        Ids ids;
        ids.reserve(n);
        for (const auto &k : keyed)
            ids.push_back(k.second);
        return ids;
    };
    switch (key) {
    case SortKey::Id: break;
    case SortKey::Token:
        // the first 8 bytes as a number settle most comparisons without reading the text
        return sortBy([&vocab](uint32_t id) {
            const std::string_view text = vocab.token(id);
            uint64_t prefix = 0;
            for (size_t i = 0; i < 8; ++i)
                prefix = (prefix << 8) | (i < text.size() ? static_cast<uint8_t>(text[i]) : 0u);
            return std::pair<uint64_t, std::string_view>(prefix, text);
        });
    case SortKey::Type:
        return sortBy([&vocab](uint32_t id) { return vocab.type(id).value_or(std::numeric_limits<int32_t>::min()); });
    case SortKey::Score:
        return sortBy([&vocab](uint32_t id) {
            const auto score = vocab.score(id);
            // missing and NaN first (below -inf), so the order is total
            const bool known = score && !std::isnan(*score);
            return std::pair<bool, float>(known, known ? *score : 0.0f);
        });
    case SortKey::Length: {
        std::string scratch;
        return sortBy([&vocab, &scratch](uint32_t id) {
            vocab.decodedInto(id, scratch);
            return static_cast<uint64_t>(scratch.size());
        });
    }
    }
    Ids ids(n);
    std::iota(ids.begin(), ids.end(), 0u);
    return ids;
}

} // namespace gguf
