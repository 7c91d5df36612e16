// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/compare: tensors of two models paired by name (tensor_diff.cpp's GGUF models,
// checkpoint_diff.cpp's checkpoints).

#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gguf::detail {

/// A's `countA` items in order, each with B's item of the same name (-1: none), then B's items left
/// over (A's index -1). A name used more than once (a broken file) pairs its k-th use in A with its
/// k-th in B. `nameA(i)`, `nameB(j)`: the names, as views that live while this runs.
template <typename NameA, typename NameB>
std::vector<std::pair<int, int>> pairByName(size_t countA, const NameA &nameA, size_t countB, const NameB &nameB)
{
    std::unordered_map<std::string_view, std::vector<int>> inB;
    for (size_t j = 0; j < countB; ++j)
        inB[nameB(j)].push_back(static_cast<int>(j));
    std::unordered_map<std::string_view, size_t> usesInA;
    std::vector<bool> matchedB(countB, false);
    std::vector<std::pair<int, int>> pairs;
    pairs.reserve(countA);
    for (size_t i = 0; i < countA; ++i) {
        const std::string_view name = nameA(i);
        const size_t use = usesInA[name]++;
        const auto it = inB.find(name);
        const int j = it != inB.end() && use < it->second.size() ? it->second[use] : -1;
        if (j >= 0)
            matchedB[static_cast<size_t>(j)] = true;
        pairs.emplace_back(static_cast<int>(i), j);
    }
    for (size_t j = 0; j < countB; ++j)
        if (!matchedB[j])
            pairs.emplace_back(-1, static_cast<int>(j));
    return pairs;
}

} // namespace gguf::detail
