// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf {

class Vocabulary;

/// One search over a vocabulary or its merge rules, compiled once and run off the GUI thread. It
/// walks the vocabulary's in-place index in chunks on every core and hands back the matching ids;
/// it builds no string per token (text is compared as UTF-8 bytes; a regular expression, PCRE2's,
/// sees each token through one reused UTF-32 buffer per worker, bytes that are not UTF-8 as
/// U+FFFD). Orders are permutations of the ids, computed once per sort key. A search may be copied
/// to workers: the compiled pattern is shared, read-only.
class TokenSearch {
public:
    enum class Mode {
        Text,              ///< substring (letters A–Z folded unless case-sensitive)
        RegularExpression, ///< PCRE2, Unicode-aware (\w, \d and the classes know every script)
        Id,                ///< "42", "100-200", "1, 2, 7" (ranks for merge rules)
        Bytes,             ///< a byte sequence in hex: "0a", "e2 96 81", "\xe2\x96\x81"
    };
    /// Which text of a token is searched (Text, RegularExpression and Bytes).
    enum class Field {
        StoredOrDecoded, ///< either the stored spelling ("Ġthe") or the decoded bytes (" the")
        Stored,
        Decoded,
    };
    enum class SortKey { Id, Token, Type, Score, Length };
    /// Query::typeFilter values besides a gguf::TokenType value.
    static constexpr int kAnyType = -1;
    static constexpr int kSpecialTokens = -2; ///< tokens named by a tokenizer.ggml.*_token_id key

    struct Query {
        Mode mode = Mode::Text;
        std::string text; ///< UTF-8
        Field field = Field::StoredOrDecoded;
        bool caseSensitive = false;
        int typeFilter = kAnyType;
        bool operator==(const Query &) const = default;
    };
    using Ids = std::vector<uint32_t>;
    /// Why a query cannot be run.
    enum class QueryError : uint8_t {
        None,
        BadPattern, ///< patternError() says what, at code point patternErrorOffset()
        BadIds,     ///< not ids, ranges or lists of them
        BadBytes,   ///< not whole bytes in hex
    };

    explicit TokenSearch(const Query &query);

    /// False when the query text cannot be understood (a bad pattern, an odd number of hex digits).
    bool isValid() const { return m_error == QueryError::None; }
    QueryError error() const { return m_error; }
    /// PCRE2's message for a bad pattern ("missing closing parenthesis"), and where it found it.
    const std::string &patternError() const { return m_patternError; }
    size_t patternErrorOffset() const { return m_patternErrorOffset; }
    /// True when every token matches (no text and any type): no search is needed.
    bool matchesAll() const;

    /// The ids of the matching tokens, in `order` (ascending ids when null), reversed when
    /// `descending`. nullopt when `progress` returned false.
    std::optional<Ids> tokens(const gguf::Vocabulary &vocab, const Ids *order, bool descending,
                              const gguf::ProgressFn &progress = {}) const;
    /// The ranks of the matching merge rules, ascending. Text, patterns and bytes are looked for in
    /// the rule as stored ("Ġ t") and its result ("Ġt") or in the decoded result (" t"); Id means rank.
    std::optional<Ids> merges(const gguf::Vocabulary &vocab, const gguf::ProgressFn &progress = {}) const;

    /// The ids of `vocab` ordered by `key`, ascending, ties by id. Type and score missing from the
    /// file (and NaN scores) sort first; Length is the decoded length in bytes.
    static std::optional<Ids> sortOrder(const gguf::Vocabulary &vocab, SortKey key,
                                        const gguf::ProgressFn &progress = {});

    /// Parses "e2 96 81", "E29681" or "\xe2\x96\x81"; nullopt when it is not whole hex bytes.
    static std::optional<std::string> parseHexBytes(std::string_view text);
    /// Parses ids and inclusive ranges ("7", "100-200", "3..5") separated by commas or spaces.
    static std::optional<std::vector<std::pair<uint64_t, uint64_t>>> parseIdRanges(std::string_view text);

private:
    struct Scratch;
    /// The positions in [0, count) for which `test` holds, ascending, tested on every core.
    std::optional<Ids> scan(uint64_t count, const gguf::ProgressFn &progress,
                            const std::function<bool(uint64_t, Scratch &)> &test) const;
    bool hasText() const;
    bool matchesBytes(std::string_view text, Scratch &scratch) const;
    bool matchesId(uint64_t id) const;

    struct Pattern;
    void compile(uint32_t options);

    Query m_query;
    QueryError m_error = QueryError::None;
    std::string m_patternError;
    size_t m_patternErrorOffset = 0;
    std::string m_needle;                                ///< Text (ASCII-folded unless case-sensitive) and Bytes
    std::shared_ptr<const Pattern> m_regex;              ///< patterns, and case-insensitive non-ASCII text
    std::vector<std::pair<uint64_t, uint64_t>> m_ranges; ///< Id
};

} // namespace gguf
