// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/text_diff.h"

#include <algorithm>

namespace gguf {
namespace {

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

} // namespace

std::vector<DiffLine> diffLines(std::string_view a, std::string_view b, uint64_t maxCells)
{
    const std::vector<std::string_view> la = splitLines(a), lb = splitLines(b);
    size_t head = 0;
    while (head < la.size() && head < lb.size() && la[head] == lb[head])
        ++head;
    size_t tail = 0;
    while (tail < la.size() - head && tail < lb.size() - head && la[la.size() - 1 - tail] == lb[lb.size() - 1 - tail])
        ++tail;
    const size_t n = la.size() - head - tail, m = lb.size() - head - tail;

    std::vector<DiffLine> out;
    out.reserve(head + tail + n + m);
    for (size_t i = 0; i < head; ++i)
        out.push_back({DiffLine::Kind::Same, la[i], uint32_t(i + 1), uint32_t(i + 1)});
    const auto removed = [&](size_t i) { out.push_back({DiffLine::Kind::Removed, la[i], uint32_t(i + 1), 0}); };
    const auto added = [&](size_t j) { out.push_back({DiffLine::Kind::Added, lb[j], 0, uint32_t(j + 1)}); };

    if (uint64_t(n) * uint64_t(m) > maxCells) {
        for (size_t i = head; i < head + n; ++i)
            removed(i);
        for (size_t j = head; j < head + m; ++j)
            added(j);
    } else {
        // lcs[i][j]: the longest common subsequence of the middle lines from i and from j on
        std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
        const auto at = [&](size_t i, size_t j) -> uint32_t & { return lcs[i * (m + 1) + j]; };
        for (size_t i = n; i-- > 0;)
            for (size_t j = m; j-- > 0;)
                at(i, j) = la[head + i] == lb[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && la[head + i] == lb[head + j]) {
                out.push_back({DiffLine::Kind::Same, la[head + i], uint32_t(head + i + 1), uint32_t(head + j + 1)});
                ++i;
                ++j;
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                removed(head + i++);
            } else {
                added(head + j++);
            }
        }
    }
    for (size_t k = tail; k-- > 0;)
        out.push_back({DiffLine::Kind::Same, la[la.size() - 1 - k], uint32_t(la.size() - k), uint32_t(lb.size() - k)});
    return out;
}

} // namespace gguf
