// SPDX-License-Identifier: GPL-3.0-or-later
// A tokenizer.json run as the Hugging Face tokenizers library runs it (docs/TOKENIZER_JSON.md):
// added tokens are cut out of the raw text, the rest normalized (piece by piece), added tokens
// marked normalized cut out of that, pre-tokenized, and each piece given to the model; the
// post-processor adds special tokens when asked.
#include "core/vocab/tokenizer_json.h"

#include "hf_pipeline.h"

#include "core/safetensors/json_reader.h"

#include <algorithm>
#include <functional>

namespace gguf {
namespace hf {

void AddedMatcher::add(std::u32string_view text, size_t token)
{
    uint32_t node = 0;
    for (char32_t c : text) {
        const auto it = m_nodes[node].next.find(c);
        if (it != m_nodes[node].next.end()) {
            node = it->second;
            continue;
        }
        const auto fresh = static_cast<uint32_t>(m_nodes.size());
        m_nodes[node].next.emplace(c, fresh);
        m_nodes.emplace_back();
        node = fresh;
    }
    m_nodes[node].token = token;
}

std::pair<size_t, size_t> AddedMatcher::longestAt(std::u32string_view text, size_t at) const
{
    std::pair<size_t, size_t> best{0, 0};
    uint32_t node = 0;
    for (size_t i = at; i < text.size(); ++i) {
        const auto it = m_nodes[node].next.find(text[i]);
        if (it == m_nodes[node].next.end())
            break;
        node = it->second;
        if (m_nodes[node].token)
            best = {i + 1 - at, *m_nodes[node].token};
    }
    return best;
}

namespace {

struct Part {
    Text text;
    std::optional<size_t> added; ///< index into Pipeline::added
    bool atStart = false;
};

// AddedVocabulary::find_matches on one piece: every added token found (leftmost, longest), a
// single_word token only between non-word characters, lstrip/rstrip taking the spaces beside it.
// The search goes on after each match's own end, so a token found in the spaces an rstrip took is
// emitted too, as the library does. `first` marks the code points from the original text's first.
std::vector<Part> splitAdded(const Pipeline &p, const AddedMatcher &matcher, const Text &text,
                             const std::vector<uint8_t> &first, bool parseSpecial)
{
    std::vector<Part> parts;
    auto keep = [&](size_t begin, size_t end, std::optional<size_t> added) {
        if (end > begin)
            parts.push_back(Part{text.substr(begin, end - begin), added, begin < first.size() && first[begin] != 0});
    };
    if (matcher.empty()) {
        keep(0, text.size(), std::nullopt);
        return parts;
    }
    size_t from = 0;
    for (size_t at = 0; at < text.size();) {
        const auto [length, index] = matcher.longestAt(text, at);
        if (length == 0) {
            ++at;
            continue;
        }
        const AddedToken &token = p.added[index];
        const size_t end = at + length;
        size_t start = at, stop = end;
        // a match not taken is still passed over whole, as the library's iterator does
        const bool notWord = token.singleWord && ((start > 0 && isWordChar(text[start - 1])) ||
                                                  (stop < text.size() && isWordChar(text[stop])));
        if (notWord || (token.special && !parseSpecial)) {
            at = end;
            continue;
        }
        if (token.lstrip) {
            while (start > 0 && isWhite(text[start - 1]))
                --start;
            start = std::max(start, from);
        }
        if (token.rstrip)
            while (stop < text.size() && isWhite(text[stop]))
                ++stop;
        at = end;
        if (start >= stop)
            continue; // inside what an earlier token's rstrip took, and lstripped to nothing
        keep(from, start, std::nullopt);
        keep(start, stop, index);
        from = stop; // as the library does, even where an earlier rstrip reached further
    }
    keep(from, text.size(), std::nullopt);
    return parts;
}

// The ids of one part that is not an added token: normalized, cut at normalized added tokens,
// pre-tokenized, modelled. An added token's string is the text it matched (with the spaces lstrip or
// rstrip took), a model token's its vocabulary entry, as in the library's Encoding. `tick` is told
// the share of the part done every 1024 pieces; false from it stops (the function returns false).
bool encodePart(const Pipeline &p, const Part &part, bool parseSpecial, Encoding &out,
                const std::function<bool(double)> &tick)
{
    Aligned normalized{part.text, std::vector<uint8_t>(part.text.size(), 0)};
    if (part.atStart && !normalized.first.empty())
        normalized.first[0] = 1;
    if (p.normalizer)
        normalize(*p.normalizer, normalized);
    std::vector<TokenId> ids;
    for (const Part &sub : splitAdded(p, p.normalized, normalized.text, normalized.first, parseSpecial)) {
        if (sub.added) {
            out.add(p.added[*sub.added].id, toUtf8(sub.text));
            continue;
        }
        std::vector<Piece> pieces{Piece{sub.text, sub.atStart}};
        if (p.preTokenizer)
            preTokenize(*p.preTokenizer, pieces);
        for (size_t i = 0; i < pieces.size(); ++i) {
            ids.clear();
            tokenizeWord(p.model, pieces[i].text, ids);
            for (const TokenId id : ids)
                out.add(id, std::string(modelToken(p.model, id)));
            if (tick && i % 1024 == 1023 && !tick(double(i + 1) / double(pieces.size())))
                return false;
        }
    }
    return true;
}

} // namespace
} // namespace hf

JsonTokenizer::JsonTokenizer(std::unique_ptr<hf::Pipeline> pipeline) : m_pipeline(std::move(pipeline)) {}

JsonTokenizer::~JsonTokenizer() = default;

std::shared_ptr<const JsonTokenizer> JsonTokenizer::create(std::string_view text, std::string &why)
{
    json::ParseError error;
    const std::optional<json::Value> root = json::parse(text, error);
    if (!root) {
        why = "not JSON at offset " + std::to_string(error.offset) + ": " + error.message;
        return nullptr;
    }
    std::unique_ptr<hf::Pipeline> p = hf::loadPipeline(*root, why);
    if (!p)
        return nullptr;
    return std::shared_ptr<const JsonTokenizer>(new JsonTokenizer(std::move(p)));
}

std::string_view JsonTokenizer::modelType() const
{
    return m_pipeline->model.type;
}

const std::vector<std::string> &JsonTokenizer::notes() const
{
    return m_pipeline->notes;
}

uint64_t JsonTokenizer::size() const
{
    return m_pipeline->size;
}

std::string_view JsonTokenizer::tokenText(TokenId id) const
{
    if (const auto it = m_pipeline->addedById.find(id); it != m_pipeline->addedById.end())
        return m_pipeline->added[it->second].decoded;
    return hf::modelToken(m_pipeline->model, id);
}

bool JsonTokenizer::isSpecial(TokenId id) const
{
    const auto it = m_pipeline->addedById.find(id);
    return it != m_pipeline->addedById.end() && m_pipeline->added[it->second].special;
}

std::vector<TokenId> JsonTokenizer::encode(std::string_view text, const TokenizeOptions &options) const
{
    return encodeTokens(text, options, ProgressFn())->ids;
}

std::optional<JsonEncoding> JsonTokenizer::encodeTokens(std::string_view text, const TokenizeOptions &options,
                                                        const ProgressFn &progress) const
{
    const hf::Pipeline &p = *m_pipeline;
    const hf::Text all = hf::toText(text);
    hf::Encoding encoding;
    uint64_t done = 0;
    std::vector<uint8_t> first(all.size(), 0);
    if (!first.empty())
        first[0] = 1;
    for (const hf::Part &part : hf::splitAdded(p, p.raw, all, first, options.parseSpecial)) {
        const auto within = [&](double share) {
            return !progress || progress(done + uint64_t(share * double(part.text.size())), all.size());
        };
        if (part.added)
            encoding.add(p.added[*part.added].id, hf::toUtf8(part.text));
        else if (!hf::encodePart(p, part, options.parseSpecial, encoding, within))
            return std::nullopt;
        done += part.text.size();
        if (progress && !progress(done, all.size()))
            return std::nullopt;
    }
    if (p.postProcessor)
        hf::postProcess(*p.postProcessor, encoding, options.addSpecial);
    return JsonEncoding{std::move(encoding.ids), std::move(encoding.tokens)};
}

std::string JsonTokenizer::decode(std::span<const TokenId> ids, bool skipSpecial) const
{
    const hf::Pipeline &p = *m_pipeline;
    std::vector<std::string> tokens;
    for (const TokenId id : ids) {
        // an added token's decoding text first, else the model's (tokenText); skipped when
        // special by that text, as the library checks
        if (!p.addedById.contains(id) && !p.model.tokens.contains(id))
            continue;
        std::string token(tokenText(id));
        if (skipSpecial && p.specialTexts.contains(token))
            continue;
        tokens.push_back(std::move(token));
    }
    if (p.decoder) {
        hf::decodeChain(*p.decoder, tokens);
        std::string out;
        for (const std::string &t : tokens)
            out += t;
        return out;
    }
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i)
        out += (i ? " " : "") + tokens[i];
    return out;
}

} // namespace gguf
