// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/token_search.h"

#include "core/vocab/vocabulary.h"

#include <QCoreApplication>
#include <QStringDecoder>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace {

// How often a loop over every token asks whether to go on.
constexpr uint64_t kCheckEvery = 8192;

char foldAscii(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool isAscii(const QString &text)
{
    return std::all_of(text.begin(), text.end(), [](QChar c) { return c.unicode() < 0x80; });
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

int hexValue(QChar c)
{
    const char16_t u = c.unicode();
    if (u >= '0' && u <= '9')
        return u - '0';
    if (u >= 'a' && u <= 'f')
        return u - 'a' + 10;
    if (u >= 'A' && u <= 'F')
        return u - 'A' + 10;
    return -1;
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

// Buffers one worker reuses for every token, so the search itself allocates nothing per token;
// and the worker's own copy of the pattern, so workers never share a compiled expression.
struct TokenSearch::Scratch {
    std::string decoded;
    std::string joined;
    QString utf16;
    QStringDecoder decoder{QStringDecoder::Utf8, QStringDecoder::Flag::Stateless};
    std::optional<QRegularExpression> regex;
};

TokenSearch::TokenSearch(const Query &query) : m_query(query)
{
    switch (query.mode) {
    case Mode::Text:
        if (query.caseSensitive || isAscii(query.text)) {
            m_needle = query.text.toStdString();
            if (!query.caseSensitive)
                std::transform(m_needle.begin(), m_needle.end(), m_needle.begin(), foldAscii);
        } else {
            // Unicode case folding is PCRE's job
            m_regex.emplace(QRegularExpression::escape(query.text), QRegularExpression::CaseInsensitiveOption);
        }
        break;
    case Mode::RegularExpression: {
        QRegularExpression::PatternOptions options = QRegularExpression::UseUnicodePropertiesOption;
        if (!query.caseSensitive)
            options |= QRegularExpression::CaseInsensitiveOption;
        m_regex.emplace(query.text, options);
        if (!m_regex->isValid())
            m_error = QCoreApplication::translate("TokenSearch", "Bad regular expression: %1 (at character %2)")
                          .arg(m_regex->errorString())
                          .arg(m_regex->patternErrorOffset());
        break;
    }
    case Mode::Id:
        if (const auto ranges = parseIdRanges(query.text))
            m_ranges = *ranges;
        else
            m_error = QCoreApplication::translate("TokenSearch", "Not a token id, a range (100-200) or a list of them");
        break;
    case Mode::Bytes:
        if (const auto bytes = parseHexBytes(query.text))
            m_needle = *bytes;
        else
            m_error = QCoreApplication::translate("TokenSearch", "Not a byte sequence in hex (e.g. \"e2 96 81\")");
        break;
    }
}

bool TokenSearch::matchesAll() const
{
    return !hasText() && m_query.typeFilter == kAnyType;
}

std::optional<std::string> TokenSearch::parseHexBytes(const QString &text)
{
    QString digits = text;
    digits.replace(QLatin1String("\\x"), QLatin1String(" "), Qt::CaseInsensitive);
    std::string bytes;
    for (QString part : digits.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts)) {
        if (part.startsWith(QLatin1String("0x"), Qt::CaseInsensitive))
            part = part.mid(2);
        if (part.isEmpty() || part.size() % 2 != 0)
            return std::nullopt;
        for (qsizetype i = 0; i < part.size(); i += 2) {
            const int hi = hexValue(part[i]), lo = hexValue(part[i + 1]);
            if (hi < 0 || lo < 0)
                return std::nullopt;
            bytes += static_cast<char>(hi * 16 + lo);
        }
    }
    return bytes;
}

std::optional<std::vector<std::pair<uint64_t, uint64_t>>> TokenSearch::parseIdRanges(const QString &text)
{
    static const QRegularExpression item(QStringLiteral("^(\\d+)(?:\\s*(?:-|\\.\\.)\\s*(\\d+))?$"));
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    // "100 - 200" is one range: the separators around a dash are not list separators
    QString normalized = text;
    normalized.replace(QRegularExpression(QStringLiteral("\\s*(-|\\.\\.)\\s*")), QStringLiteral("\\1"));
    for (const QString &part : normalized.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch m = item.match(part);
        if (!m.hasMatch())
            return std::nullopt;
        bool ok1 = false, ok2 = true;
        const uint64_t first = m.captured(1).toULongLong(&ok1);
        const uint64_t last = m.hasCaptured(2) ? m.captured(2).toULongLong(&ok2) : first;
        if (!ok1 || !ok2)
            return std::nullopt;
        ranges.emplace_back(std::min(first, last), std::max(first, last));
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
        // UTF-16 never needs more code units than UTF-8 has bytes; resize() keeps the capacity
        scratch.utf16.resize(static_cast<qsizetype>(text.size()));
        const QChar *end = scratch.decoder.appendToBuffer(
            scratch.utf16.data(), QByteArrayView(text.data(), static_cast<qsizetype>(text.size())));
        scratch.utf16.resize(end - scratch.utf16.constData());
        // the decoder wrote well-formed UTF-16 (U+FFFD for bad bytes): PCRE need not check it again
        return scratch.regex
            ->match(QStringView(scratch.utf16), 0, QRegularExpression::NormalMatch,
                    QRegularExpression::DontCheckSubjectStringMatchOption)
            .hasMatch();
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
            s.regex.emplace(m_regex->pattern(), m_regex->patternOptions());
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
    return m_query.mode == Mode::Id || m_query.mode == Mode::Bytes ? !m_query.text.trimmed().isEmpty()
                                                                   : !m_query.text.isEmpty();
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
