// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/vocab/vocabulary.h"

#include "core/format/gguf_file.h"
#include "core/util/utf8.h"
#include "tokenizer/unicode_text.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gguf {
namespace {

// Decodes one UTF-8 code point at `i`; returns -1 (and advances one byte) on malformed input.
int32_t nextCodePoint(std::string_view s, size_t &i)
{
    const auto c = static_cast<uint8_t>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
        ++i;
        return -1;
    }
    int32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
        const auto cc = static_cast<uint8_t>(s[i + static_cast<size_t>(k)]);
        if ((cc & 0xC0) != 0x80) {
            ++i;
            return -1;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    i += static_cast<size_t>(len);
    return cp;
}

ArrayRef arrayOf(const GgufFile &file, std::string_view key, ValueType elementType)
{
    const Value v = file.value(key);
    if (v.type() != ValueType::Array)
        return {};
    const ArrayRef a = v.array();
    return a.elementType() == elementType ? a : ArrayRef();
}

} // namespace

std::string_view tokenTypeName(int32_t type)
{
    switch (static_cast<TokenType>(type)) {
    case TokenType::Normal: return "normal";
    case TokenType::Unknown: return "unknown";
    case TokenType::Control: return "control";
    case TokenType::UserDefined: return "user_defined";
    case TokenType::Unused: return "unused";
    case TokenType::Byte: return "byte";
    case TokenType::Undefined: break;
    }
    return "undefined";
}

void appendGpt2ByteLevel(std::string_view text, std::string &out)
{
    size_t i = 0;
    while (i < text.size()) {
        const size_t start = i;
        const int32_t cp = nextCodePoint(text, i);
        if (const int byte = cp >= 0 ? unicode::byteOfStandIn(static_cast<uint32_t>(cp)) : -1; byte >= 0)
            out += static_cast<char>(byte);
        else
            out.append(text.substr(start, i - start));
    }
}

std::string decodeGpt2ByteLevel(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    appendGpt2ByteLevel(text, out);
    return out;
}

void appendSentencePiece(std::string_view text, std::string &out)
{
    // a whole-token byte escape such as <0x0A>
    if (text.size() == 6 && text.substr(0, 3) == "<0x" && text[5] == '>') {
        const int hi = hexDigit(text[3]), lo = hexDigit(text[4]);
        if (hi >= 0 && lo >= 0) {
            out += static_cast<char>(hi * 16 + lo);
            return;
        }
    }
    unicode::appendSpaceMarksAsSpaces(text, out);
}

std::string decodeSentencePiece(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    appendSentencePiece(text, out);
    return out;
}

std::shared_ptr<const Vocabulary> Vocabulary::shared(std::shared_ptr<const GgufFile> file)
{
    if (!file)
        return nullptr;
    struct Holder {
        explicit Holder(std::shared_ptr<const GgufFile> f) : file(std::move(f)), vocab(*file) {}
        std::shared_ptr<const GgufFile> file;
        Vocabulary vocab;
    };
    auto holder = std::make_shared<const Holder>(std::move(file));
    if (!holder->vocab.isValid())
        return nullptr;
    return std::shared_ptr<const Vocabulary>(holder, &holder->vocab);
}

Vocabulary::Vocabulary(const GgufFile &file) : m_file(&file)
{
    m_tokens = arrayOf(file, "tokenizer.ggml.tokens", ValueType::String);
    m_scores = arrayOf(file, "tokenizer.ggml.scores", ValueType::Float32);
    m_types = arrayOf(file, "tokenizer.ggml.token_type", ValueType::Int32);
    m_merges = arrayOf(file, "tokenizer.ggml.merges", ValueType::String);
    m_model = file.value("tokenizer.ggml.model").toStringView();
    m_pre = file.value("tokenizer.ggml.pre").toStringView();
    if (m_model == "gpt2")
        m_style = TokenizerStyle::Gpt2ByteLevel;
    else if (m_model == "llama" || m_model == "t5" || m_model == "gemma4")
        m_style = TokenizerStyle::SentencePiece;
    else if (m_model == "bert")
        m_style = TokenizerStyle::WordPiece;

    static constexpr std::string_view kPrefix = "tokenizer.ggml.";
    static constexpr std::string_view kSuffix = "_token_id";
    for (const MetadataEntry &e : file.metadata()) {
        const std::string_view k = e.key;
        if (k.size() <= kPrefix.size() + kSuffix.size() || k.substr(0, kPrefix.size()) != kPrefix ||
            k.substr(k.size() - kSuffix.size()) != kSuffix)
            continue;
        if (const auto id = e.value.toUInt())
            m_special.push_back(
                SpecialToken{k, k.substr(kPrefix.size(), k.size() - kPrefix.size() - kSuffix.size()), *id});
    }
}

const std::vector<uint64_t> *Vocabulary::tokenIndex() const
{
    const std::vector<uint64_t> *index = m_tokenIndex.load(std::memory_order_acquire);
    if (!index) {
        // arrayIndex() builds the index once under the file's lock and never moves it afterwards
        index = &m_file->arrayIndex(m_tokens);
        m_tokenIndex.store(index, std::memory_order_release);
    }
    return index;
}

std::string_view Vocabulary::token(uint64_t id) const
{
    if (id >= m_tokens.size())
        return {};
    // element i spans [index[i], index[i+1]); the index stops early at a damaged element
    const std::vector<uint64_t> &index = *tokenIndex();
    if (id + 1 >= index.size())
        return {};
    return Value(m_file, ValueType::String, index[id], index[id + 1] - index[id]).toStringView();
}

std::string Vocabulary::decoded(uint64_t id) const
{
    std::string out;
    decodedInto(id, out);
    return out;
}

void Vocabulary::decodedInto(uint64_t id, std::string &out) const
{
    out.clear();
    const std::string_view t = token(id);
    const auto tt = type(id);
    // control and unknown tokens (<s>, <|endoftext|>) are names, not spelled bytes
    if (tt && (*tt == static_cast<int32_t>(TokenType::Control) || *tt == static_cast<int32_t>(TokenType::Unknown))) {
        out.append(t);
        return;
    }
    // llama.cpp's converter stores user-defined BPE tokens as plain text, not byte-spelled (docs/FORMAT.md §7.4)
    if (m_style == TokenizerStyle::Gpt2ByteLevel && tt && *tt == static_cast<int32_t>(TokenType::UserDefined)) {
        out.append(t);
        return;
    }
    decodeTextInto(t, out);
}

void Vocabulary::decodeTextInto(std::string_view text, std::string &out) const
{
    out.clear();
    switch (m_style) {
    case TokenizerStyle::Gpt2ByteLevel: appendGpt2ByteLevel(text, out); return;
    case TokenizerStyle::SentencePiece:
    // llama.cpp's converter marks BERT word starts with ▁ and drops WordPiece's "##" continuations
    // (docs/FORMAT.md §7.4)
    case TokenizerStyle::WordPiece: appendSentencePiece(text, out); return;
    case TokenizerStyle::Raw: break;
    }
    out.append(text);
}

std::optional<float> Vocabulary::score(uint64_t id) const
{
    if (id >= m_scores.size())
        return std::nullopt;
    const auto d = m_scores.at(id).toDouble();
    return d ? std::optional<float>(static_cast<float>(*d)) : std::nullopt;
}

std::optional<int32_t> Vocabulary::type(uint64_t id) const
{
    if (id >= m_types.size())
        return std::nullopt;
    const auto v = m_types.at(id).toInt();
    return v ? std::optional<int32_t>(static_cast<int32_t>(*v)) : std::nullopt;
}

std::string_view Vocabulary::merge(uint64_t rank) const
{
    return rank < m_merges.size() ? m_merges.stringAt(rank) : std::string_view();
}

std::pair<std::string_view, std::string_view> Vocabulary::mergeParts(uint64_t rank) const
{
    const std::string_view rule = merge(rank);
    // llama.cpp: word.find(' ', 1), so a rule may start with a space (docs/FORMAT.md §7.1)
    const size_t space = rule.empty() ? std::string_view::npos : rule.find(' ', 1);
    if (space == std::string_view::npos)
        return {rule, {}};
    return {rule.substr(0, space), rule.substr(space + 1)};
}

VocabularyStats Vocabulary::stats() const
{
    VocabularyStats s;
    const uint64_t n = size();
    for (uint64_t id = 0; id < n; ++id) {
        const auto t = type(id);
        if (!t)
            ++s.untyped;
        else
            ++s.typeCounts[*t >= 1 && *t <= 6 ? static_cast<size_t>(*t) : 0];
        const auto score = this->score(id);
        if (!score)
            continue;
        if (!std::isfinite(*score)) {
            ++s.nonFiniteScores;
            continue;
        }
        s.minScore = s.minScore ? std::min(*s.minScore, *score) : *score;
        s.maxScore = s.maxScore ? std::max(*s.maxScore, *score) : *score;
    }
    return s;
}

} // namespace gguf
