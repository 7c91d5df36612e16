// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/kind/control_vector.h"

#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"
#include "core/quant/dequantize.h"

#include <algorithm>
#include <cmath>

namespace gguf {

std::optional<std::vector<DirectionNorm>> directionNorms(const GgufFile &file, const ControlVectorFacts &facts,
                                                         const ProgressFn &progress)
{
    constexpr uint64_t kChunk = 1 << 16;
    std::vector<DirectionNorm> out;
    std::vector<float> values;
    for (const ControlDirection &d : facts.directions) {
        if (progress && !progress(out.size(), facts.directions.size()))
            return std::nullopt;
        DirectionNorm &n = out.emplace_back();
        n.layer = d.layer;
        if (!d.tensor)
            continue;
        n.tensor = std::string(d.tensor->name);
        const ByteLease lease = file.tensorLease(*d.tensor);
        if (!lease)
            n.error = lease.error().message;
        const auto bytes = lease.bytes();
        const uint64_t elements = d.tensor->elements;
        if (bytes.empty() || !canDequantize(d.tensor->typeId))
            continue;
        double squares = 0;
        n.ok = true;
        for (uint64_t first = 0; first < elements && n.ok; first += kChunk) {
            values.resize(static_cast<size_t>(std::min(kChunk, elements - first)));
            n.ok = dequantizeRange(d.tensor->typeId, bytes, elements, first, values, file.byteSwapped());
            for (const float v : values) {
                squares += double(v) * v;
                n.maxAbs = std::max(n.maxAbs, double(std::fabs(v)));
            }
        }
        n.norm = n.ok ? std::sqrt(squares) : 0;
        if (!n.ok)
            n.maxAbs = 0;
    }
    if (progress)
        progress(out.size(), out.size());
    return out;
}

} // namespace gguf
