// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/tensor_stats.h"

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace gguf {

/// The header of a NumPy .npy file (format 1.0) for little-endian float32 data of `shape`
/// (outermost dimension first, as NumPy orders it), padded so the data starts on a 64-byte boundary
/// (docs/FORMAT.md §1.9).
std::string npyHeader(std::span<const uint64_t> shape);

enum class ExportFormat : uint8_t { RawFloat32, Npy };

/// Streams the tensor's values as little-endian float32 in file element order to `out`, decoding
/// 1M elements at a time (memory independent of the tensor size). `dims` are the tensor's dims
/// innermost first (GGUF order); NumPy's shape is their reverse (docs/FORMAT.md §1.9). Returns
/// Unsupported for a type that cannot be decoded, NoData when the bytes are missing or a write
/// fails, Cancelled when `progress` returns false.
StatsStatus exportFloat32(const TensorData &data, std::span<const uint64_t> dims, ExportFormat format, std::FILE *out,
                          const ProgressFn &progress = {});

} // namespace gguf
