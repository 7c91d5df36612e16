// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/vocab/merge_index.h"

#include "core/vocab/vocabulary.h"

#include <algorithm>
#include <limits>

namespace gguf {
namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

// FNV-1a continued over `bytes`, so hashing "Ġt" then "he" equals hashing "Ġthe".
uint64_t fnv1a(uint64_t hash, std::string_view bytes)
{
    for (const char c : bytes) {
        hash ^= static_cast<uint8_t>(c);
        hash *= kFnvPrime;
    }
    return hash;
}

} // namespace

std::optional<MergeIndex> MergeIndex::build(const Vocabulary &vocab, const ProgressFn &progress)
{
    MergeIndex index;
    // ranks are stored as u32: a rule list longer than that is not indexed past it
    const uint64_t count = std::min<uint64_t>(vocab.mergeCount(), std::numeric_limits<uint32_t>::max());
    index.m_entries.reserve(static_cast<size_t>(count));
    constexpr uint64_t kReportEvery = 16384;
    for (uint64_t rank = 0; rank < count; ++rank) {
        if (rank % kReportEvery == 0 && progress && !progress(rank, count))
            return std::nullopt;
        const auto [left, right] = vocab.mergeParts(rank);
        index.m_entries.emplace_back(fnv1a(fnv1a(kFnvOffset, left), right), static_cast<uint32_t>(rank));
    }
    std::sort(index.m_entries.begin(), index.m_entries.end());
    if (progress && !progress(count, count))
        return std::nullopt;
    return index;
}

std::vector<uint64_t> MergeIndex::producing(const Vocabulary &vocab, std::string_view text) const
{
    std::vector<uint64_t> ranks;
    const uint64_t hash = fnv1a(kFnvOffset, text);
    auto it = std::lower_bound(m_entries.begin(), m_entries.end(), std::pair<uint64_t, uint32_t>(hash, 0));
    // equal hashes are confirmed against the text: a collision is not a producer
    for (; it != m_entries.end() && it->first == hash; ++it) {
        const auto [left, right] = vocab.mergeParts(it->second);
        if (left.size() + right.size() == text.size() && text.substr(0, left.size()) == left &&
            text.substr(left.size()) == right)
            ranks.push_back(it->second);
    }
    return ranks;
}

} // namespace gguf
