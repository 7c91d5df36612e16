// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "unicode_text.h"

#include <optional>
#include <queue>
#include <string_view>
#include <vector>

namespace gguf {

/// A run of bytes of the text being merged, linked to its neighbours (-1: none).
struct MergeSymbol {
    int prev, next;
    size_t offset, length;
};

/// The text cut into UTF-8 chars by their lead bytes, as llama.cpp's SPM and BPE sessions do.
inline std::vector<MergeSymbol> splitIntoChars(std::string_view text)
{
    std::vector<MergeSymbol> symbols;
    for (size_t at = 0; at < text.size();) {
        const size_t length = std::min(unicode::sequenceLength(static_cast<uint8_t>(text[at])), text.size() - at);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({index - 1, at + length == text.size() ? -1 : index + 1, at, length});
        at += length;
    }
    return symbols;
}

/// Merges neighbouring symbols, best pair first, until no pair merges: `priority(left, right)`
/// gives a pair's priority (nullopt: it does not merge); `Better(a, b)` is true when priority a
/// goes first. Among equal priorities the leftmost pair goes first. A queued pair whose sides
/// changed since is skipped (symbols stay contiguous, so their joined length tells).
template <typename Priority, typename Better, typename PriorityOf>
void mergeSymbols(std::vector<MergeSymbol> &symbols, PriorityOf priority)
{
    struct Pair {
        int left, right;
        Priority priority;
        size_t length;
    };
    const auto later = [](const Pair &a, const Pair &b) {
        return Better()(b.priority, a.priority) || (!Better()(a.priority, b.priority) && a.left > b.left);
    };
    std::priority_queue<Pair, std::vector<Pair>, decltype(later)> queue(later);
    const auto tryPair = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const MergeSymbol &l = symbols[static_cast<size_t>(left)], &r = symbols[static_cast<size_t>(right)];
        if (const std::optional<Priority> p = priority(l, r))
            queue.push({left, right, *p, l.length + r.length});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i)
        tryPair(i - 1, i);
    while (!queue.empty()) {
        const Pair p = queue.top();
        queue.pop();
        MergeSymbol &l = symbols[static_cast<size_t>(p.left)];
        MergeSymbol &r = symbols[static_cast<size_t>(p.right)];
        if (l.length == 0 || r.length == 0 || l.length + r.length != p.length)
            continue;
        l.length += r.length;
        r.length = 0;
        l.next = r.next;
        if (r.next >= 0)
            symbols[static_cast<size_t>(r.next)].prev = p.left;
        tryPair(l.prev, p.left);
        tryPair(p.left, l.next);
    }
}

} // namespace gguf
