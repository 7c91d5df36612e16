// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gguf {

/// One line of a line-by-line difference of two texts.
struct DiffLine {
    enum class Kind : uint8_t { Same, Removed, Added };
    Kind kind = Kind::Same;
    std::string_view text; ///< the line without its '\n' (a view into A or B)
    uint32_t lineA = 0;    ///< 1-based line in A (0 for Added)
    uint32_t lineB = 0;    ///< 1-based line in B (0 for Removed)
};

/// The lines of `a` and `b` as a shortest edit: the longest common subsequence of lines kept as
/// Same, the rest Removed (from A) before Added (from B) at each place. The common first and last
/// lines are matched directly; when what remains would need more than `maxCells` comparisons, the
/// remaining middle is reported as all removed, then all added (still a correct difference).
std::vector<DiffLine> diffLines(std::string_view a, std::string_view b, uint64_t maxCells = 16'000'000);

} // namespace gguf
