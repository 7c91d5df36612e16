// SPDX-License-Identifier: GPL-3.0-or-later
// The models (BPE, WordPiece) and post-processors of a tokenizer.json pipeline
// (docs/TOKENIZER_JSON.md §5–6).
#include "hf_pipeline.h"

#include <functional>
#include <queue>

namespace gguf::hf {
namespace {

struct Symbol {
    TokenId id;
    int prev, next;
    bool gone = false;
};

struct Candidate {
    uint32_t rank;
    int pos;
    TokenId result;
    bool operator>(const Candidate &o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

uint64_t pairKey(TokenId a, TokenId b)
{
    return (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
}

// Word::merge_all: the lowest-ranked pair first, the leftmost among equals; a queued pair that no
// longer exists (a neighbour merged first) is skipped.
void mergeAll(const Model &m, std::vector<Symbol> &symbols)
{
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto push = [&](int pos) {
        const int next = symbols[pos].next;
        if (next < 0)
            return;
        const auto it = m.merges.find(pairKey(symbols[pos].id, symbols[next].id));
        if (it != m.merges.end())
            queue.push({it->second.rank, pos, it->second.result});
    };
    for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i)
        push(i);
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol &left = symbols[top.pos];
        if (left.gone || left.next < 0)
            continue;
        Symbol &right = symbols[left.next];
        const auto it = m.merges.find(pairKey(left.id, right.id));
        if (it == m.merges.end() || it->second.result != top.result)
            continue;
        left.id = top.result;
        right.gone = true;
        left.next = right.next;
        if (right.next >= 0)
            symbols[right.next].prev = top.pos;
        if (left.prev >= 0)
            push(left.prev);
        push(top.pos);
    }
}

// The id of a token, kNoToken when the vocabulary has none.
TokenId lookup(const Model &m, const std::string &token)
{
    const auto it = m.vocab.find(token);
    return it == m.vocab.end() ? kNoToken : it->second;
}

// BPE::merge_word: each character its token (continuing prefix and end-of-word suffix added), its
// bytes' <0xNN> tokens when absent and byte_fallback is set, else the unknown token (runs fused
// when fuse_unk); a character with neither is dropped.
std::vector<Symbol> initialSymbols(const Model &m, std::u32string_view word)
{
    std::vector<Symbol> symbols;
    TokenId pendingUnk = kNoToken;
    auto add = [&](TokenId id) { symbols.push_back({id, static_cast<int>(symbols.size()) - 1, -1}); };
    for (size_t i = 0; i < word.size(); ++i) {
        std::string s = toUtf8(word.substr(i, 1));
        if (i > 0 && !m.prefix.empty())
            s = m.prefix + s;
        if (i + 1 == word.size() && !m.suffix.empty())
            s += m.suffix;
        if (const TokenId id = lookup(m, s); id != kNoToken) {
            if (pendingUnk != kNoToken)
                add(pendingUnk);
            pendingUnk = kNoToken;
            add(id);
            continue;
        }
        if (m.byteFallback) {
            std::vector<TokenId> ids;
            for (unsigned char b : s)
                if (m.byteIds[b] != kNoToken)
                    ids.push_back(m.byteIds[b]);
            if (ids.size() == s.size()) { // every byte has its token, or none is used
                for (TokenId id : ids)
                    add(id);
                continue;
            }
        }
        // no unknown token (or one missing from the vocabulary, where the library fails to
        // encode): the character is dropped
        const TokenId unk = m.unkId;
        if (unk == kNoToken)
            continue;
        if (pendingUnk != kNoToken && !m.fuseUnk)
            add(pendingUnk);
        pendingUnk = unk;
    }
    if (pendingUnk != kNoToken)
        add(pendingUnk);
    for (size_t i = 0; i < symbols.size(); ++i)
        symbols[i].next = i + 1 < symbols.size() ? static_cast<int>(i + 1) : -1;
    return symbols;
}

void tokenizeBpe(const Model &m, std::u32string_view word, std::vector<TokenId> &out)
{
    if (word.empty())
        return;
    if (m.ignoreMerges)
        if (const TokenId id = lookup(m, toUtf8(word)); id != kNoToken) {
            out.push_back(id);
            return;
        }
    std::vector<Symbol> symbols = initialSymbols(m, word);
    mergeAll(m, symbols);
    for (const Symbol &s : symbols)
        if (!s.gone)
            out.push_back(s.id);
}

// WordPiece: greedy longest match from the left, later pieces with the continuing prefix; a word
// with a part that matches nothing, or longer than max_input_chars_per_word, is the unknown token.
void tokenizeWordPiece(const Model &m, std::u32string_view word, std::vector<TokenId> &out)
{
    if (word.size() > m.maxWordChars) {
        if (m.unkId != kNoToken)
            out.push_back(m.unkId);
        return;
    }
    std::vector<TokenId> pieces;
    for (size_t start = 0; start < word.size();) {
        // the longest piece from `start` that is a token, shortening it a code point at a time
        size_t end = word.size();
        TokenId found = kNoToken;
        while (end > start && (found = lookup(m, (start > 0 ? m.prefix : std::string()) +
                                                     toUtf8(word.substr(start, end - start)))) == kNoToken)
            --end;
        if (found == kNoToken) {
            if (m.unkId != kNoToken)
                out.push_back(m.unkId);
            return;
        }
        pieces.push_back(found);
        start = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
}

} // namespace

void tokenizeWord(const Model &m, std::u32string_view word, std::vector<TokenId> &out)
{
    if (m.kind == Model::Kind::WordPiece)
        tokenizeWordPiece(m, word, out);
    else
        tokenizeBpe(m, word, out);
}

std::string_view modelToken(const Model &m, TokenId id)
{
    const auto it = m.tokens.find(id);
    return it == m.tokens.end() ? std::string_view() : std::string_view(it->second);
}

void postProcess(const PostProcessor &p, Encoding &encoding, bool addSpecial)
{
    switch (p.kind) {
    case PostProcessor::Kind::Sequence:
        for (const PostProcessor &child : p.children)
            postProcess(child, encoding, addSpecial);
        return;
    case PostProcessor::Kind::ByteLevel: return;
    case PostProcessor::Kind::Template:
    case PostProcessor::Kind::Wrap: {
        if (!addSpecial && p.kind == PostProcessor::Kind::Wrap)
            return;
        // without special tokens a template still gives each of its sequence items (one, in
        // every real file)
        Encoding out;
        for (const SpecialTokens &item : p.items) {
            if (!addSpecial && !item.sequence)
                continue;
            const Encoding &from = encoding;
            const std::vector<TokenId> &ids = item.sequence ? from.ids : item.ids;
            const std::vector<std::string> &tokens = item.sequence ? from.tokens : item.tokens;
            out.ids.insert(out.ids.end(), ids.begin(), ids.end());
            out.tokens.insert(out.tokens.end(), tokens.begin(), tokens.end());
        }
        encoding = std::move(out);
        return;
    }
    }
}

} // namespace gguf::hf
