// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/tokenizer_diff.h"

#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"

#include <bit>
#include <unordered_map>

namespace gguf {
namespace {

std::string countText(uint64_t n)
{
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string joinAspects(const std::vector<std::string> &aspects)
{
    std::string out;
    for (size_t i = 0; i < aspects.size(); ++i) {
        if (i > 0)
            out += i + 1 == aspects.size() ? " and " : ", ";
        out += aspects[i];
    }
    return out;
}

bool sameScore(std::optional<float> x, std::optional<float> y)
{
    if (x.has_value() != y.has_value())
        return false;
    return !x || std::bit_cast<uint32_t>(*x) == std::bit_cast<uint32_t>(*y);
}

void compareTokens(const Vocabulary &va, const Vocabulary &vb, const TokenizerDiffOptions &options, TokenizerDiff &d)
{
    const uint64_t common = std::min(d.sizeA, d.sizeB);
    for (uint64_t id = 0; id < common; ++id) {
        TokenChange c;
        c.id = id;
        c.textA = va.token(id);
        c.textB = vb.token(id);
        c.typeA = va.type(id);
        c.typeB = vb.type(id);
        c.scoreA = va.score(id);
        c.scoreB = vb.score(id);
        if (c.textA != c.textB)
            c.what |= TokenChange::Text;
        if (c.typeA != c.typeB)
            c.what |= TokenChange::Type;
        if (!sameScore(c.scoreA, c.scoreB))
            c.what |= TokenChange::Score;
        if (c.what == 0)
            continue;
        d.textChanged += (c.what & TokenChange::Text) != 0;
        d.typeChanged += (c.what & TokenChange::Type) != 0;
        d.scoreChanged += (c.what & TokenChange::Score) != 0;
        if (d.changes.size() < options.maxTokenChanges)
            d.changes.push_back(c);
    }
    d.added = d.sizeB > common ? d.sizeB - common : 0;
    d.removed = d.sizeA > common ? d.sizeA - common : 0;
}

void compareMerges(const Vocabulary &va, const Vocabulary &vb, const TokenizerDiffOptions &options, TokenizerDiff &d)
{
    d.mergesA = va.mergeCount();
    d.mergesB = vb.mergeCount();
    std::unordered_map<std::string_view, uint64_t> rankInA;
    rankInA.reserve(static_cast<size_t>(d.mergesA));
    for (uint64_t r = 0; r < d.mergesA; ++r)
        rankInA.emplace(va.merge(r), r);
    std::unordered_map<std::string_view, uint64_t> rankInB;
    rankInB.reserve(static_cast<size_t>(d.mergesB));
    for (uint64_t r = 0; r < d.mergesB; ++r) {
        const std::string_view m = vb.merge(r);
        if (!rankInB.emplace(m, r).second)
            continue; // a repeated rule: only its first rank counts (the one BPE applies)
        const auto it = rankInA.find(m);
        if (it == rankInA.end()) {
            ++d.mergesAdded;
            if (d.firstMergesAdded.size() < options.maxMerges)
                d.firstMergesAdded.push_back(m);
        } else if (it->second != r) {
            ++d.mergesReranked;
        }
    }
    for (uint64_t r = 0; r < d.mergesA; ++r) {
        const std::string_view m = va.merge(r);
        if (rankInB.contains(m) || rankInA.at(m) != r)
            continue;
        ++d.mergesRemoved;
        if (d.firstMergesRemoved.size() < options.maxMerges)
            d.firstMergesRemoved.push_back(m);
    }
}

void compareSpecial(const Vocabulary &va, const Vocabulary &vb, TokenizerDiff &d)
{
    // the first use of each key counts (as it does for the metadata)
    const auto idIn = [](const Vocabulary &v, std::string_view key) -> std::optional<uint64_t> {
        for (const SpecialToken &s : v.specialTokens())
            if (s.key == key)
                return s.id;
        return std::nullopt;
    };
    const auto firstUse = [](const Vocabulary &v, const SpecialToken &s) {
        for (const SpecialToken &t : v.specialTokens())
            if (t.key == s.key)
                return &t == &s;
        return false;
    };
    for (const SpecialToken &s : va.specialTokens())
        if (const auto other = idIn(vb, s.key); firstUse(va, s) && other != s.id)
            d.special.push_back({s.key, s.id, other});
    for (const SpecialToken &s : vb.specialTokens())
        if (firstUse(vb, s) && !idIn(va, s.key))
            d.special.push_back({s.key, std::nullopt, s.id});
}

std::string verdictOf(const TokenizerDiff &d)
{
    if (!d.hasA && !d.hasB)
        return "neither file has a tokenizer";
    if (!d.hasB)
        return "only A has a tokenizer";
    if (!d.hasA)
        return "only B has a tokenizer";
    std::vector<std::string> aspects;
    if (d.modelA != d.modelB)
        aspects.emplace_back("tokenizer model");
    if (d.preA != d.preB)
        aspects.emplace_back("pre-tokenizer");
    if (d.typeChanged > 0)
        aspects.emplace_back("token types");
    if (d.scoreChanged > 0)
        aspects.emplace_back("scores");
    if (d.mergesAdded + d.mergesRemoved + d.mergesReranked > 0)
        aspects.emplace_back("merges");
    if (!d.special.empty())
        aspects.emplace_back("special tokens");
    const std::string also = aspects.empty() ? std::string() : "; different " + joinAspects(aspects);
    if (d.textChanged > 0)
        return "different vocabulary: " + countText(d.textChanged + d.added + d.removed) + " of " +
               countText(std::max(d.sizeA, d.sizeB)) + " tokens differ" + also;
    if (d.added > 0)
        return "B extends A's vocabulary by " + countText(d.added) + (d.added == 1 ? " token" : " tokens") + also;
    if (d.removed > 0)
        return "B drops the last " + countText(d.removed) + (d.removed == 1 ? " token" : " tokens") + " of A" + also;
    if (aspects.empty())
        return "same vocabulary";
    return "same tokens, different " + joinAspects(aspects);
}

} // namespace

bool TokenizerDiff::identical() const
{
    return hasA == hasB && modelA == modelB && preA == preB && added == 0 && removed == 0 && textChanged == 0 &&
           typeChanged == 0 && scoreChanged == 0 && mergesAdded == 0 && mergesRemoved == 0 && mergesReranked == 0 &&
           special.empty();
}

TokenizerDiff compareTokenizers(const GgufFile &a, const GgufFile &b, const TokenizerDiffOptions &options)
{
    TokenizerDiff d;
    const Vocabulary va(a), vb(b);
    d.hasA = va.isValid();
    d.hasB = vb.isValid();
    d.modelA = va.model();
    d.modelB = vb.model();
    d.preA = va.pre();
    d.preB = vb.pre();
    d.sizeA = va.size();
    d.sizeB = vb.size();
    compareTokens(va, vb, options, d);
    compareMerges(va, vb, options, d);
    compareSpecial(va, vb, d);
    d.verdict = verdictOf(d);
    return d;
}

} // namespace gguf
