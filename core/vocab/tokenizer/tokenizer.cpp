// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/vocab/tokenizer.h"

#include "tokenizer_data.h"

#include <list>

namespace gguf {
namespace {

// A piece of the input: text still to be tokenized, or a special token found in it.
struct Fragment {
    TokenId token = kNoToken; ///< kNoToken for text
    size_t offset = 0, length = 0;
};

bool isCSpace(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

// Splits the special tokens out of the text, longest first, as llama.cpp's
// tokenizer_st_partition does (docs/TOKENIZER.md §4.2).
std::list<Fragment> partition(const TokenizerData &d, std::string_view text, bool parseSpecial)
{
    std::list<Fragment> fragments;
    if (text.empty())
        return fragments;
    fragments.push_back({kNoToken, 0, text.size()});
    for (const TokenId id : d.specialCache) {
        const uint16_t attr = d.attrs[static_cast<size_t>(id)];
        if (!parseSpecial && (attr & (kAttrControl | kAttrUnknown)))
            continue; // user-defined tokens are split out even then
        const std::string_view special = d.text[static_cast<size_t>(id)];
        for (auto it = fragments.begin(); it != fragments.end(); ++it) {
            if (it->token != kNoToken)
                continue;
            size_t begin = it->offset, length = it->length;
            const auto at = it;
            while (length > 0) {
                const size_t match = text.substr(begin, length).find(special);
                if (match == std::string_view::npos)
                    break;
                size_t leftLength = match;
                if (attr & kAttrLstrip)
                    while (leftLength > 0 && isCSpace(text[begin + leftLength - 1]))
                        --leftLength;
                if (leftLength > 0)
                    fragments.insert(at, {kNoToken, begin, leftLength});
                fragments.insert(at, {id, 0, 0});
                begin += match + special.size();
                length -= match + special.size();
                if (attr & kAttrRstrip)
                    while (length > 0 && isCSpace(text[begin])) {
                        ++begin;
                        --length;
                    }
            }
            if (begin == at->offset)
                continue; // no occurrence
            if (length > 0) {
                at->offset = begin;
                at->length = length;
            } else {
                it = std::prev(fragments.erase(at));
            }
        }
    }
    return fragments;
}

} // namespace

std::string_view tokenizerKindName(TokenizerKind kind)
{
    switch (kind) {
    case TokenizerKind::Spm: return "SPM";
    case TokenizerKind::Bpe: return "BPE";
    case TokenizerKind::Wpm: return "WPM";
    case TokenizerKind::Ugm: return "UGM";
    case TokenizerKind::Rwkv: return "RWKV";
    case TokenizerKind::None: break;
    }
    return "none";
}

Tokenizer::Tokenizer(std::unique_ptr<TokenizerData> data) : m_data(std::move(data)) {}
Tokenizer::~Tokenizer() = default;

std::shared_ptr<const Tokenizer> Tokenizer::create(std::shared_ptr<const GgufFile> file)
{
    return std::shared_ptr<const Tokenizer>(new Tokenizer(loadTokenizerData(std::move(file))));
}

bool Tokenizer::canTokenize() const
{
    return m_data->kind != TokenizerKind::None && m_data->refusal.empty();
}
const std::string &Tokenizer::refusal() const
{
    return m_data->refusal;
}
TokenizerKind Tokenizer::kind() const
{
    return m_data->kind;
}
std::string_view Tokenizer::pre() const
{
    return m_data->pre;
}
std::string_view Tokenizer::preType() const
{
    return m_data->kind == TokenizerKind::Bpe ? m_data->preSpec.type : std::string_view();
}
const std::vector<std::string> &Tokenizer::diagnostics() const
{
    return m_data->diagnostics;
}
uint64_t Tokenizer::size() const
{
    return m_data->text.size();
}
std::string_view Tokenizer::tokenText(TokenId id) const
{
    return m_data->valid(id) ? m_data->text[static_cast<size_t>(id)] : std::string_view();
}
std::optional<float> Tokenizer::score(TokenId id) const
{
    return m_data->valid(id) ? std::optional<float>(m_data->scores[static_cast<size_t>(id)]) : std::nullopt;
}
uint16_t Tokenizer::attributes(TokenId id) const
{
    return m_data->valid(id) ? m_data->attrs[static_cast<size_t>(id)] : 0;
}
TokenId Tokenizer::bos() const
{
    return m_data->bos;
}
TokenId Tokenizer::eos() const
{
    return m_data->eos;
}
TokenId Tokenizer::eot() const
{
    return m_data->eot;
}
TokenId Tokenizer::unk() const
{
    return m_data->unk;
}
TokenId Tokenizer::sep() const
{
    return m_data->sep;
}
TokenId Tokenizer::pad() const
{
    return m_data->pad;
}
bool Tokenizer::addBos() const
{
    return m_data->addBos;
}
bool Tokenizer::addEos() const
{
    return m_data->addEos;
}
bool Tokenizer::addSpacePrefix() const
{
    return m_data->addSpacePrefix;
}

std::vector<TokenId> Tokenizer::tokenize(std::string_view text, const TokenizeOptions &options) const
{
    return *tokenize(text, options, ProgressFn());
}

std::optional<std::vector<TokenId>> Tokenizer::tokenize(std::string_view text, const TokenizeOptions &options,
                                                        const ProgressFn &progress) const
{
    const TokenizerData &d = *m_data;
    std::vector<TokenId> out;
    if (!canTokenize())
        return out;
    // BOS/EOS (CLS/SEP for WordPiece) when asked; a null id is skipped where llama.cpp would abort
    const auto addIf = [&](bool wanted, TokenId id) {
        if (wanted && id != kNoToken)
            out.push_back(id);
    };
    const bool wpm = d.kind == TokenizerKind::Wpm, rwkv = d.kind == TokenizerKind::Rwkv;
    addIf(options.addSpecial && !rwkv && (wpm || d.addBos), d.bos);

    bool previousSpecial = true; // SentencePiece puts a space before text after a special token
    std::string buffer;
    size_t done = 0; // bytes of text before this fragment (a token fragment has no offset of its own)
    for (const Fragment &f : partition(d, text, options.parseSpecial)) {
        if (f.token == kNoToken)
            done = f.offset;
        if (progress && !progress(done, text.size()))
            return std::nullopt;
        if (f.token != kNoToken) {
            out.push_back(f.token);
            previousSpecial = true;
            continue;
        }
        const std::string_view piece = text.substr(f.offset, f.length);
        switch (d.kind) {
        case TokenizerKind::Spm:
            buffer.clear();
            if (d.addSpacePrefix && previousSpecial)
                buffer += "\xE2\x96\x81";
            for (char c : piece)
                c == ' ' ? buffer.append("\xE2\x96\x81") : buffer.append(1, c);
            tokenizeSpm(d, buffer, out);
            break;
        case TokenizerKind::Bpe: tokenizeBpe(d, piece, out); break;
        case TokenizerKind::Wpm: tokenizeWpm(d, piece, out); break;
        case TokenizerKind::Ugm: tokenizeUgm(d, piece, out); break;
        case TokenizerKind::Rwkv: tokenizeRwkv(d, piece, out); break;
        case TokenizerKind::None: break;
        }
        previousSpecial = false;
    }
    addIf(options.addSpecial && !rwkv && (wpm || d.addEos), wpm ? d.sep : d.eos);
    if (progress && !progress(text.size(), text.size()))
        return std::nullopt;
    return out;
}

} // namespace gguf
