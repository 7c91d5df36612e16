// SPDX-License-Identifier: GPL-3.0-or-later
// Unigram (T5) as llama.cpp's llm_tokenizer_ugm does it (docs/TOKENIZER.md §2.4): the
// precompiled charsmap normalizes, then Viterbi finds the best-scoring segmentation.
#include "tokenizer_data.h"
#include "unicode_text.h"

#include <algorithm>
#include <cfloat>

namespace gguf {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";

// The normalization of the input's next prefix: (replacement, bytes consumed).
std::pair<std::string_view, size_t> normalizePrefix(const UgmModel &m, std::string_view input, size_t at)
{
    // the longest path through the user-defined tokens passes unchanged (a path, not necessarily a
    // whole token: llama.cpp's trie walk)
    size_t depth = 0;
    for (uint32_t node = 0; at + depth < input.size(); ++depth)
        if ((node = m.userDefined.child(node, input[at + depth])) == ByteTrie::kNone)
            break;
    if (depth > 0)
        return {input.substr(at, depth), depth};

    size_t longest = 0;
    uint32_t replacement = 0;
    if (!m.xcda.empty()) {
        const auto entry = [&](uint32_t i) { return i < m.xcda.size() ? m.xcda[i] : 0u; };
        const auto base = [&](uint32_t i) { return (entry(i) >> 10) << ((entry(i) & (1u << 9)) >> 6); };
        uint32_t node = base(0);
        for (size_t p = at; p < input.size(); ++p) {
            const auto c = static_cast<uint8_t>(input[p]);
            if (c == 0)
                break;
            node ^= c;
            if (node >= m.xcda.size() || (entry(node) & ((1u << 31) | 0xFF)) != c)
                break;
            const bool leaf = (entry(node) >> 8) & 1;
            node ^= base(node);
            if (leaf) {
                longest = p - at + 1;
                replacement = entry(node) & ((1u << 31) - 1);
            }
        }
    }
    if (longest > 0 && replacement < m.replacements.size()) {
        const std::string_view rest = m.replacements.substr(replacement);
        return {rest.substr(0, rest.find('\0')), longest};
    }
    if (const size_t n = unicode::decodableLength(input, at); n > 0)
        return {input.substr(at, n), n};
    return {"\xEF\xBF\xBD", 1};
}

std::string normalize(const TokenizerData &d, const UgmModel &m, std::string_view input)
{
    std::string out;
    out.reserve(input.size() * 3);
    bool spacePrepended = false, inWord = false;
    for (size_t at = 0; at < input.size();) {
        const auto [replacement, consumed] = normalizePrefix(m, input, at);
        for (char c : replacement) {
            if (c != ' ') {
                if (!inWord) {
                    inWord = true;
                    if ((d.addSpacePrefix && !spacePrepended) || d.removeExtraWhitespaces) {
                        out += kSpace;
                        spacePrepended = true;
                    }
                }
                out += c;
            } else {
                inWord = false;
                if (!d.removeExtraWhitespaces)
                    out += kSpace;
            }
        }
        at += consumed;
    }
    return out;
}

struct Best {
    TokenId id;
    size_t from;
    double score; ///< kept in double, as newer llama.cpp does (c392e509 stored it as float)
};

} // namespace

std::unique_ptr<UgmModel> buildUgmModel(const TokenizerData &d, std::span<const uint8_t> charsmap,
                                        std::vector<std::string> &diagnostics)
{
    auto m = std::make_unique<UgmModel>();
    if (charsmap.size() >= 4) {
        const uint32_t blob = charsmap[0] | (charsmap[1] << 8) | (charsmap[2] << 16) | (uint32_t{charsmap[3]} << 24);
        if (uint64_t{blob} + 4 >= charsmap.size()) {
            diagnostics.push_back("tokenizer.ggml.precompiled_charsmap says its trie has " + std::to_string(blob) +
                                  " bytes, more than the " + std::to_string(charsmap.size() - 4) +
                                  " it holds (llama.cpp refuses the file); text is not normalized");
        } else {
            m->xcda.resize(blob / 4);
            for (size_t i = 0; i < m->xcda.size(); ++i) {
                const uint8_t *p = charsmap.data() + 4 + 4 * i;
                m->xcda[i] = p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
            }
            m->replacements = {reinterpret_cast<const char *>(charsmap.data()) + 4 + blob, charsmap.size() - 4 - blob};
        }
    }
    float minScore = FLT_MAX;
    for (size_t id = 0; id < d.text.size(); ++id) {
        const uint16_t a = d.attrs[id];
        if (a & kAttrNormal)
            minScore = std::min(minScore, d.scores[id]);
        if (a & (kAttrNormal | kAttrUserDefined | kAttrUnused))
            m->tokens.insert(d.text[id], static_cast<int32_t>(id));
        if (a & kAttrUserDefined)
            m->userDefined.insert(d.text[id], static_cast<int32_t>(id));
    }
    m->unknownScore = minScore - 10.0f;
    return m;
}

void tokenizeUgm(const TokenizerData &d, std::string_view text, std::vector<TokenId> &out)
{
    const UgmModel &m = *d.ugm;
    const std::string normalized = normalize(d, m, text);
    const size_t n = normalized.size();
    if (n == 0)
        return;
    // best[i]: the best segmentation of the first i bytes, by its last token
    std::vector<Best> best(n + 1, {d.unk, 0, -DBL_MAX});
    best[0] = {d.unk, 0, 0};
    for (size_t at = 0; at < n;) {
        const size_t charLength = std::min(unicode::sequenceLength(static_cast<uint8_t>(normalized[at])), n - at);
        const double here = best[at].score;
        bool wholeChar = false;
        uint32_t node = 0;
        for (size_t end = at; end < n && (node = m.tokens.child(node, normalized[end])) != ByteTrie::kNone;) {
            ++end;
            const int32_t id = m.tokens.value(node);
            if (id < 0)
                continue;
            wholeChar = wholeChar || end - at == charLength;
            // user-defined tokens score 0; the sum in double, as SentencePiece does
            const double score = here + (d.has(id, kAttrUserDefined) ? 0.0 : double{d.scores[static_cast<size_t>(id)]});
            if (score > best[end].score)
                best[end] = {id, at, score};
        }
        if (!wholeChar) {
            const double score = here + double{m.unknownScore};
            if (score > best[at + charLength].score)
                best[at + charLength] = {d.unk, at, score};
        }
        at += charLength;
    }
    // back from the end; runs of unknown tokens become one
    const size_t first = out.size();
    bool previousUnknown = false;
    for (size_t at = n;;) {
        const Best &b = best[at];
        const bool unknown = b.id == d.unk;
        if (!(previousUnknown && unknown) && b.id != kNoToken)
            out.push_back(b.id);
        if (b.from == 0)
            break;
        previousUnknown = unknown;
        at = b.from;
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

} // namespace gguf
