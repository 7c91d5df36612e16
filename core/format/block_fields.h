// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace gguf {

/// How the bytes of a block field are encoded, so a view can decode a scalar field.
enum class FieldFormat : uint8_t {
    F16,    ///< one IEEE half
    F32,    ///< one IEEE single
    F64,    ///< one IEEE double
    BF16,   ///< one bfloat16
    I8,     ///< signed bytes
    I16,    ///< signed 16-bit integers
    I32,    ///< signed 32-bit integers
    I64,    ///< signed 64-bit integers
    U16,    ///< unsigned 16-bit words of packed bits
    E8M0,   ///< one power-of-two exponent byte (MXFP4)
    UE4M3,  ///< unsigned 8-bit float scales (NVFP4)
    Packed, ///< bytes of packed bit fields (nibbles, 2-bit codes, sign bits, 6-bit scales)
};

/// Bytes of one word of a field in `format`: 2, 4 or 8 for the multi-byte numbers, which a
/// big-endian file stores in its own byte order, word by word (docs/FORMAT.md §2.3); 1 for bytes
/// and packed bit fields, which every file stores as they are.
constexpr uint32_t fieldWordBytes(FieldFormat format)
{
    switch (format) {
    case FieldFormat::F16:
    case FieldFormat::BF16:
    case FieldFormat::I16:
    case FieldFormat::U16: return 2;
    case FieldFormat::F32:
    case FieldFormat::I32: return 4;
    case FieldFormat::F64:
    case FieldFormat::I64: return 8;
    case FieldFormat::I8:
    case FieldFormat::E8M0:
    case FieldFormat::UE4M3:
    case FieldFormat::Packed: return 1;
    }
    return 1;
}

/// One field of a quantization block (or the element of a plain type): where it sits in the
/// block and what it holds. Layouts follow ggml's `block_*` structs (docs/FORMAT.md §4), the same
/// structs core/dequantize_*.cpp decode.
struct BlockField {
    std::string_view name; ///< the struct member's name: "d", "dmin", "scales", "qs"
    uint32_t offset = 0;   ///< byte offset in the block
    uint32_t size = 0;     ///< bytes
    FieldFormat format = FieldFormat::Packed;
    std::string_view description; ///< one line for tooltips
};

/// The fields of one block of type `typeId`, in byte order; they tile the block exactly
/// (typeTraits(typeId).typeSize bytes). Empty for removed and unknown ids.
std::span<const BlockField> blockFields(uint32_t typeId);

/// Where a byte of a tensor's data falls.
struct TensorDataPosition {
    uint64_t block = 0;                ///< block index in the tensor (element index for plain types)
    uint64_t blockCount = 0;           ///< blocks in the tensor
    uint64_t blockOffset = 0;          ///< offset of the block from the start of the tensor data
    const BlockField *field = nullptr; ///< the field holding the byte (nullptr in a trailer)
    uint32_t fieldIndex = 0;           ///< position of `field` in blockFields()
    /// I2_S only: the byte lies in the per-tensor trailer after the blocks.
    bool trailer = false;
    /// In the trailer: the f32 scale (first 4 bytes) or the writer's padding after it.
    bool trailerScale = false;
};

/// Locates byte `relative` (from the start of the tensor's data) of a tensor of `typeId` with
/// `elements` values. nullopt when the type has no known layout or the byte lies past the blocks
/// (and, for I2_S, past the trailer).
std::optional<TensorDataPosition> locateInTensor(uint32_t typeId, uint64_t elements, uint64_t relative);

} // namespace gguf
