// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/stats/tensor_export.h"

#include "core/quant/dequantize.h"

#include <algorithm>
#include <vector>

namespace gguf {

std::string npyHeader(std::span<const uint64_t> shape)
{
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i)
        dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "") +
                (i + 1 < shape.size() ? " " : "");
    dict += "), }";
    // magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64
    const size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string header("\x93NUMPY\x01\x00", 8);
    header += static_cast<char>(dict.size() & 0xff);
    header += static_cast<char>(dict.size() >> 8);
    return header + dict;
}

StatsStatus exportFloat32(const TensorData &data, std::span<const uint64_t> dims, ExportFormat format, std::FILE *out,
                          const ProgressFn &progress)
{
    if (!canDequantize(data.typeId))
        return StatsStatus::Unsupported;
    if (data.bytes.empty() && data.elements > 0)
        return StatsStatus::NoData;
    if (format == ExportFormat::Npy) {
        std::vector<uint64_t> shape(dims.rbegin(), dims.rend());
        const std::string header = npyHeader(shape);
        if (std::fwrite(header.data(), 1, header.size(), out) != header.size())
            return StatsStatus::NoData;
    }
    const ProgressFn watched = watchedProgress(data, progress);
    constexpr uint64_t kPiece = uint64_t(1) << 20;
    std::vector<float> buffer(static_cast<size_t>(std::min<uint64_t>(kPiece, std::max<uint64_t>(data.elements, 1))));
    const uint64_t pieces = (data.elements + kPiece - 1) / kPiece;
    for (uint64_t p = 0; p < pieces; ++p) {
        const uint64_t first = p * kPiece;
        const size_t n = static_cast<size_t>(std::min(kPiece, data.elements - first));
        const ElementHold hold(data, first, first + n); // a remote piece is fetched here
        if (!hold)
            return fetchStatus(data).value_or(StatsStatus::NoData);
        if (!dequantizeRange(data.typeId, data.bytes, data.elements, first, std::span<float>(buffer.data(), n),
                             data.swapBytes))
            return StatsStatus::NoData;
        if (std::fwrite(buffer.data(), sizeof(float), n, out) != n)
            return StatsStatus::NoData;
        if (watched && !watched(p + 1, pieces))
            return fetchStatus(data).value_or(StatsStatus::Cancelled);
    }
    return StatsStatus::Ok;
}

} // namespace gguf
