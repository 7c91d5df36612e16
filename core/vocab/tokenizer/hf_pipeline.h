// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The parts of a tokenizer.json pipeline (docs/TOKENIZER_JSON.md), as the Hugging Face tokenizers
// library defines them (tokenizers/src: normalizers/, pre_tokenizers/, models/, processors/,
// decoders/, tokenizer/added_vocabulary.rs). Text between the steps is code points.

#include "core/vocab/tokenizer.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gguf::json {
struct Value;
}

namespace gguf::hf {

using Text = std::u32string;

/// A regular expression of a tokenizer.json (Oniguruma's syntax there), compiled by PCRE2 with
/// Unicode properties. Thread-safe.
class Regex {
public:
    /// Null with `why` when PCRE2 cannot compile it.
    static std::shared_ptr<const Regex> compile(std::u32string_view pattern, std::string &why);
    ~Regex();
    Regex(const Regex &) = delete;
    Regex &operator=(const Regex &) = delete;
    /// Each successive match [begin, end) of `text`, searched as Oniguruma's find_iter does (an
    /// empty match is reported, and the search goes on one code point later).
    void findAll(std::u32string_view text, std::vector<std::pair<size_t, size_t>> &out) const;

private:
    Regex() = default;
    struct Code;
    std::unique_ptr<Code> m_code;
};

/// A piece of text and whether each of its parts is a match, covering the text (Pattern::find_matches).
struct Segment {
    size_t begin = 0, end = 0;
    bool match = false;
};

/// The pattern of Split and Replace: a literal string or a regex.
struct Pattern {
    Text literal;
    std::shared_ptr<const Regex> regex;
    std::vector<Segment> find(std::u32string_view text) const;
};

/// The segments of `size` code points around successive matches.
std::vector<Segment> segmentsOf(const std::vector<std::pair<size_t, size_t>> &matches, size_t size);
/// Matches of a predicate on single code points, each its own match.
std::vector<Segment> findChars(std::u32string_view text, const std::function<bool(char32_t)> &predicate);

enum class Behavior : uint8_t { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

/// NormalizedString::split: the ranges kept, empty ones dropped.
std::vector<std::pair<size_t, size_t>> splitRanges(std::vector<Segment> segments, Behavior behavior);

// ---- normalizers

struct Normalizer {
    enum class Kind : uint8_t {
        Sequence,
        Nfc,
        Nfd,
        Nfkc,
        Nfkd,
        Lowercase,
        Strip,
        StripAccents,
        Replace,
        Prepend,
        Bert
    };
    Kind kind = Kind::Sequence;
    std::vector<Normalizer> children;
    Pattern pattern;
    Text content;                     ///< Replace's content, Prepend's prefix
    bool left = false, right = false; ///< Strip
    bool cleanText = false, chineseChars = false, stripAccents = false, lowercase = false; ///< Bert
};
/// Text with, for each code point, whether it comes from the original text's first one (1) — what
/// Metaspace's prepend scheme "first" asks of NormalizedString's alignments.
struct Aligned {
    Text text;
    std::vector<uint8_t> first;
};
void normalize(const Normalizer &n, Aligned &text);
void normalize(const Normalizer &n, Text &text);
/// Every match of `pattern` replaced by `content` (a replacement comes from where its match began):
/// the Replace normalizer, and the Replace decoder with no alignment to keep.
void replaceMatches(const Pattern &pattern, const Text &content, Aligned &text);

// ---- pre-tokenizers

struct Piece {
    Text text;
    bool atStart = false; ///< starts at offset 0 of the original text
};

struct PreTokenizer {
    enum class Kind : uint8_t {
        Sequence,
        ByteLevel,
        Split,
        Metaspace,
        Whitespace,
        WhitespaceSplit,
        Digits,
        Punctuation,
        Bert
    };
    enum class Prepend : uint8_t { Always, First, Never };
    Kind kind = Kind::Sequence;
    std::vector<PreTokenizer> children;
    Pattern pattern;                              ///< Split
    Behavior behavior = Behavior::Isolated;       ///< Split, Punctuation
    bool invert = false;                          ///< Split
    bool addPrefixSpace = false, useRegex = true; ///< ByteLevel
    char32_t replacement = U'\u2581';             ///< Metaspace
    Prepend prepend = Prepend::Always;            ///< Metaspace
    bool split = true;                            ///< Metaspace
    bool individualDigits = false;                ///< Digits
};
void preTokenize(const PreTokenizer &p, std::vector<Piece> &pieces);

// ---- models

struct Model {
    enum class Kind : uint8_t { Bpe, WordPiece };
    Kind kind = Kind::Bpe;
    std::string type; ///< as written
    std::unordered_map<std::string, TokenId> vocab;
    std::unordered_map<TokenId, std::string> tokens; ///< id → token (a vocabulary may leave gaps)
    uint64_t size = 0;                               ///< one past the largest id
    struct Merge {
        uint32_t rank;
        TokenId result;
    };
    std::unordered_map<uint64_t, Merge> merges; ///< (left id << 32 | right id) → rank, result
    std::optional<std::string> unk;
    TokenId unkId = kNoToken;           ///< `unk`'s id; kNoToken when there is none or it is not in the vocabulary
    std::array<TokenId, 256> byteIds{}; ///< each byte's <0xNN> token (byte_fallback), kNoToken when absent
    std::string prefix, suffix;         ///< continuing_subword_prefix, end_of_word_suffix
    bool fuseUnk = false, byteFallback = false, ignoreMerges = false;
    uint64_t maxWordChars = 100; ///< WordPiece
};
/// Appends the ids of one pre-token.
void tokenizeWord(const Model &m, std::u32string_view word, std::vector<TokenId> &out);
/// The model's token string of an id ("" when none).
std::string_view modelToken(const Model &m, TokenId id);

// ---- post-processors

/// Ids and the token strings the library's Encoding gives with them.
struct Encoding {
    std::vector<TokenId> ids;
    std::vector<std::string> tokens;
    void add(TokenId id, std::string token)
    {
        ids.push_back(id);
        tokens.push_back(std::move(token));
    }
};

/// Special tokens a post-processor puts in: their ids and token strings, as the file writes them.
struct SpecialTokens {
    bool sequence = false; ///< a template's `$A`: the sequence itself
    std::vector<TokenId> ids;
    std::vector<std::string> tokens;
};

struct PostProcessor {
    enum class Kind : uint8_t { Sequence, Template, ByteLevel, Wrap };
    Kind kind = Kind::Sequence;
    std::vector<PostProcessor> children;
    /// Template: the single-sequence template. Wrap (Bert/Roberta): cls, the sequence, sep.
    std::vector<SpecialTokens> items;
};
/// The post-processor; with addSpecial false only what the library still does then (a template's
/// sequence items).
void postProcess(const PostProcessor &p, Encoding &encoding, bool addSpecial);

// ---- decoders

struct Decoder {
    enum class Kind : uint8_t { Sequence, ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, WordPiece, Bpe };
    Kind kind = Kind::Sequence;
    std::vector<Decoder> children;
    Pattern pattern;     ///< Replace
    std::string content; ///< Replace's content, WordPiece's prefix, BPEDecoder's suffix
    char32_t stripChar = U' ';
    size_t start = 0, stop = 0;       ///< Strip
    bool firstWithoutMark = true;     ///< Metaspace: prepend scheme other than never
    char32_t replacement = U'\u2581'; ///< Metaspace
    bool cleanup = false;             ///< WordPiece
};
void decodeChain(const Decoder &d, std::vector<std::string> &tokens);

// ---- added tokens

struct AddedToken {
    Text content;
    TokenId id = kNoToken;
    std::string decoded; ///< its text in decoding: normalized, when normalized and the normalizer changes it
    bool special = false, lstrip = false, rstrip = false, singleWord = false, normalized = false;
};

/// Leftmost-longest matching of a set of added tokens (the library's Aho-Corasick, match kind
/// LeftmostLongest).
class AddedMatcher {
public:
    void add(std::u32string_view text, size_t token);
    bool empty() const { return m_nodes.size() <= 1; }
    /// The longest token text starting at `at`: its length and token index, or {0, 0}.
    std::pair<size_t, size_t> longestAt(std::u32string_view text, size_t at) const;

private:
    struct Node {
        std::map<char32_t, uint32_t> next;
        std::optional<size_t> token;
    };
    std::vector<Node> m_nodes{Node{}};
};

struct Pipeline {
    std::optional<Normalizer> normalizer;
    std::optional<PreTokenizer> preTokenizer;
    Model model;
    std::optional<PostProcessor> postProcessor;
    std::optional<Decoder> decoder;
    std::vector<AddedToken> added;
    std::unordered_map<TokenId, size_t> addedById;
    AddedMatcher raw, normalized;                 ///< tokens matched before / after normalizing
    std::unordered_set<std::string> specialTexts; ///< the contents of the special added tokens
    uint64_t size = 0;                            ///< one past the largest id of the model and the added tokens
    std::vector<std::string> notes; ///< what loading noticed (an added token's id differing from the file's)
};

/// The pipeline of a parsed tokenizer.json; null with `why` naming what is missing or not supported.
std::unique_ptr<Pipeline> loadPipeline(const json::Value &root, std::string &why);

/// Code points ↔ UTF-8 (ill-formed UTF-8 decodes to U+FFFD, as gguf::decodeUtf8 reads it).
Text toText(std::string_view utf8);
std::string toUtf8(std::u32string_view text);

/// The character classes the library takes from Rust's char methods.
bool isWhite(char32_t c);       ///< char::is_whitespace (White_Space)
bool isWordChar(char32_t c);    ///< Oniguruma's \w
bool isNumeric(char32_t c);     ///< char::is_numeric (N*)
bool isPunctuation(char32_t c); ///< ASCII punctuation or P*

} // namespace gguf::hf
