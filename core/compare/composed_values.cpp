// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/composed_values.h"

#include "core/quant/dequantize.h"

#include <algorithm>
#include <array>

namespace gguf {

ComposedValues ComposedValues::of(const TensorData &data)
{
    ComposedValues v;
    v.cols = std::max<uint64_t>(data.elements, 1);
    v.pieces.push_back({data, 0, data.elements > 0 ? 1u : 0u, 0});
    return v;
}

uint64_t ComposedValues::elements() const
{
    uint64_t n = 0;
    for (const ComposedPiece &p : pieces)
        n += p.rows * cols;
    return n;
}

uint64_t ropeSourceRow(uint64_t row, uint64_t rows, uint32_t heads)
{
    const uint64_t perHead = rows / heads, half = perHead / 2;
    const uint64_t head = row / perHead, within = row % perHead;
    return head * perHead + (within % 2) * half + within / 2;
}

bool ComposedValues::decode(uint64_t at, std::span<float> out) const
{
    uint64_t pieceStart = 0; // composed element where the piece begins
    size_t piece = 0;
    size_t done = 0;
    while (done < out.size()) {
        while (piece < pieces.size() && at >= pieceStart + pieces[piece].rows * cols) {
            pieceStart += pieces[piece].rows * cols;
            ++piece;
        }
        if (piece == pieces.size())
            return false;
        const ComposedPiece &p = pieces[piece];
        const uint64_t local = at - pieceStart;
        uint64_t source = 0, run = 0;
        if (p.ropeHeads == 0) { // the rest of the piece is one run of the source
            source = p.firstRow * cols + local;
            run = p.rows * cols - local;
        } else { // to the end of the row
            const uint64_t row = local / cols, col = local % cols;
            source = (p.firstRow + ropeSourceRow(row, p.rows, p.ropeHeads)) * cols + col;
            run = cols - col;
        }
        const size_t n = static_cast<size_t>(std::min<uint64_t>(run, out.size() - done));
        const std::span<float> into = out.subspan(done, n);
        if (!dequantizeRange(p.data.typeId, p.data.bytes, p.data.elements, source, into, p.data.swapBytes))
            return false;
        if (shift != 0)
            for (float &x : into)
                x += shift;
        done += n;
        at += n;
    }
    return true;
}

std::vector<std::pair<uint64_t, uint64_t>> ComposedValues::sourceRanges(size_t piece, uint64_t at, uint64_t end) const
{
    uint64_t pieceStart = 0;
    for (size_t i = 0; i < piece; ++i)
        pieceStart += pieces[i].rows * cols;
    const ComposedPiece &p = pieces[piece];
    const uint64_t first = std::max(at, pieceStart), last = std::min(end, pieceStart + p.rows * cols);
    if (first >= last)
        return {};
    const uint64_t base = p.firstRow * cols, lo = first - pieceStart, hi = last - pieceStart;
    if (p.ropeHeads == 0)
        return {{base + lo, base + hi}};
    // composed rows [r0, r1): in each head h they touch, rows 2i + j read source rows i and D/2 + i
    const uint64_t perHead = p.rows / p.ropeHeads, half = perHead / 2;
    const uint64_t r0 = lo / cols, r1 = (hi + cols - 1) / cols;
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (uint64_t h = r0 / perHead; h * perHead < r1; ++h) {
        const uint64_t from = std::max(r0, h * perHead) - h * perHead,
                       to = std::min(r1, (h + 1) * perHead) - h * perHead;
        // even rows 2i (j = 0) and odd rows 2i + 1 (j = 1) in [from, to)
        const std::array<std::pair<uint64_t, uint64_t>, 2> is{{{(from + 1) / 2, (to + 1) / 2}, {from / 2, to / 2}}};
        for (uint64_t j = 0; j < 2; ++j)
            if (is[j].first < is[j].second)
                out.emplace_back(base + (h * perHead + j * half + is[j].first) * cols,
                                 base + (h * perHead + j * half + is[j].second) * cols);
    }
    return out;
}

} // namespace gguf
