// SPDX-License-Identifier: GPL-3.0-or-later
#include "unicode_text.h"

#include "unicode_tables.h"

#include "core/util/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 32
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>

namespace gguf::unicode {
namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// GPT-2's bytes_to_unicode(): printable Latin-1 bytes stand for themselves, the other 68 bytes get
// U+0100, U+0101, … in byte order (docs/TOKENIZER.md §2.2).
struct StandIns {
    std::array<std::array<char, 3>, 256> utf8{}; // UTF-8 of each byte's stand-in
    std::array<char32_t, 256> codePoint{};
    std::array<uint8_t, 256> length{};
    std::array<int16_t, 324> byteOf{};
    StandIns()
    {
        byteOf.fill(-1);
        uint32_t next = 256;
        for (uint32_t b = 0; b < 256; ++b) {
            const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            const uint32_t cp = printable ? b : next++;
            byteOf[cp] = static_cast<int16_t>(b);
            codePoint[b] = cp;
            std::string s;
            appendUtf8(cp, s);
            std::copy(s.begin(), s.end(), utf8[b].begin());
            length[b] = static_cast<uint8_t>(s.size());
        }
    }
};

const StandIns &standIns()
{
    static const StandIns table;
    return table;
}

uint32_t lookup(const auto &table, uint32_t cp)
{
    const auto it =
        std::lower_bound(table.begin(), table.end(), cp, [](const CodePointPair &p, uint32_t c) { return p.from < c; });
    return it != table.end() && it->from == cp ? it->to : cp;
}

// The general category of code points, asked of PCRE2 one 256-code-point page at a time.
class CategoryPages {
public:
    CategoryPages()
    {
        static constexpr std::u32string_view kPattern = U"(\\p{L})|(\\p{N})|(\\p{P})|(\\p{S})|(\\p{M})|(\\p{Z})";
        int error = 0;
        PCRE2_SIZE errorOffset = 0;
        m_code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern.data()), kPattern.size(),
                               PCRE2_UTF | PCRE2_ANCHORED, &error, &errorOffset, nullptr);
    }
    ~CategoryPages()
    {
        for (auto &p : m_pages)
            delete[] p.load();
        pcre2_code_free(m_code);
    }
    CategoryPages(const CategoryPages &) = delete;
    CategoryPages &operator=(const CategoryPages &) = delete;

    uint8_t of(uint32_t cp)
    {
        if (cp > kMaxCodePoint)
            return kOther;
        auto &slot = m_pages[cp >> 8];
        const uint8_t *page = slot.load(std::memory_order_acquire);
        if (page == nullptr) {
            auto *fresh = fill(cp & ~0xFFu);
            const uint8_t *expected = nullptr;
            if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel))
                page = fresh;
            else {
                delete[] fresh;
                page = expected;
            }
        }
        return page[cp & 0xFF];
    }

private:
    uint8_t *fill(uint32_t first) const
    {
        auto *page = new uint8_t[256];
        std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
            pcre2_match_data_create_from_pattern(m_code, nullptr), &pcre2_match_data_free);
        for (uint32_t i = 0; i < 256; ++i) {
            const uint32_t cp = first + i;
            page[i] = kOther;
            if (m_code == nullptr || match == nullptr || (cp >= 0xD800 && cp <= 0xDFFF))
                continue;
            const PCRE2_UCHAR32 subject[1] = {cp};
            if (pcre2_match(m_code, subject, 1, 0, 0, match.get(), nullptr) <= 0)
                continue;
            const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match.get());
            static constexpr std::array<uint8_t, 6> kFlags = {kLetter, kNumber, kPunctuation,
                                                              kSymbol, kMark,   kSeparator};
            for (size_t g = 0; g < kFlags.size(); ++g)
                if (ovector[2 * (g + 1)] != PCRE2_UNSET) {
                    page[i] = kFlags[g];
                    break;
                }
        }
        return page;
    }

    pcre2_code *m_code = nullptr;
    std::array<std::atomic<const uint8_t *>, (kMaxCodePoint + 1) / 256> m_pages{};
};

} // namespace

size_t sequenceLength(uint8_t lead)
{
    static constexpr std::array<uint8_t, 16> kLength = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return kLength[lead >> 4];
}

size_t decodableLength(std::string_view text, size_t at)
{
    const auto c = static_cast<uint8_t>(text[at]);
    // a continuation byte as lead, or F8–FF: malformed
    const size_t length = c < 0x80          ? 1
                          : (c & 0x40) == 0 ? 0
                          : (c & 0x20) == 0 ? 2
                          : (c & 0x10) == 0 ? 3
                          : (c & 0x08) == 0 ? 4
                                            : 0;
    for (size_t k = 1; k < length; ++k)
        if (at + k >= text.size() || (static_cast<uint8_t>(text[at + k]) & 0xC0) != 0x80)
            return 0;
    return length;
}

std::vector<uint32_t> decodeUtf8(std::string_view text)
{
    std::vector<uint32_t> out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const size_t length = decodableLength(text, i);
        if (length == 0) {
            out.push_back(kReplacement);
            ++i;
            continue;
        }
        const auto lead = static_cast<uint8_t>(text[i]);
        uint32_t cp = length == 1 ? lead : lead & (0x7Fu >> length);
        for (size_t k = 1; k < length; ++k)
            cp = (cp << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3Fu);
        out.push_back(cp > kMaxCodePoint ? kReplacement : cp);
        i += length;
    }
    return out;
}

std::string encodeUtf8(std::span<const uint32_t> cps)
{
    std::string out;
    out.reserve(cps.size());
    for (uint32_t cp : cps)
        appendUtf8(cp, out);
    return out;
}

bool isWhitespace(uint32_t cp)
{
    if (cp < 0x80)
        return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20;
    switch (cp) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000: return true;
    default: return cp >= 0x2000 && cp <= 0x200A;
    }
}

uint32_t toLower(uint32_t cp)
{
    if (cp >= 'A' && cp <= 'Z')
        return cp + 32;
    return cp < 0x80 ? cp : lookup(kLowercase, cp);
}

uint32_t nfdFirst(uint32_t cp)
{
    if (cp < 0xC0)
        return cp;
    // Hangul syllables decompose by arithmetic: the leading consonant comes first
    if (cp >= 0xAC00 && cp <= 0xD7A3)
        return 0x1100 + (cp - 0xAC00) / 588;
    return lookup(kNfdFirst, cp);
}

std::string_view byteStandIn(uint8_t byte)
{
    const StandIns &t = standIns();
    return {t.utf8[byte].data(), t.length[byte]};
}

char32_t byteStandInCodePoint(uint8_t byte)
{
    return standIns().codePoint[byte];
}

void appendByteStandIns(std::string_view utf8, std::string &out)
{
    const StandIns &t = standIns();
    for (char c : utf8) {
        const auto b = static_cast<uint8_t>(c);
        out.append(t.utf8[b].data(), t.length[b]);
    }
}

int byteOfStandIn(uint32_t cp)
{
    const StandIns &t = standIns();
    return cp < t.byteOf.size() ? t.byteOf[cp] : -1;
}

void appendSpaceMarksAsSpaces(std::string_view text, std::string &out)
{
    static constexpr std::string_view kMark = "\xE2\x96\x81";
    for (size_t at = 0;;) {
        const size_t mark = text.find(kMark, at);
        out.append(text.substr(at, mark - at));
        if (mark == std::string_view::npos)
            return;
        out += ' ';
        at = mark + kMark.size();
    }
}

uint8_t category(uint32_t cp)
{
    static CategoryPages pages;
    return pages.of(cp);
}

} // namespace gguf::unicode
