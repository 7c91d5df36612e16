// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/ggml_types.h"
#include "core/format/ggml_blocks.h"

#include <array>
#include <cctype>

namespace gguf {
namespace {

// Block sizes and byte sizes follow ggml's type_traits table (src/ggml.c; docs/FORMAT.md §3.1), the
// byte size of a quantized block from its struct (ggml_blocks.h); I2_S follows BitNet's fork (one
// f32 scale after n/4 bytes of codes, §3.3).
constexpr TypeTraits row(uint32_t id, std::string_view name, uint32_t block, uint32_t size, bool quantized,
                         std::string_view note)
{
    return TypeTraits{id, name, block, size, SizeRule::Blocks, true, false, quantized, note};
}

constexpr TypeTraits removedRow(uint32_t id, std::string_view name)
{
    return TypeTraits{
        id, name, 0, 0, SizeRule::Unsized, false, true, true, "removed from ggml; files using it cannot be sized"};
}

constexpr std::array<TypeTraits, 43> kTypeTable = {{
    row(0, "F32", 1, 4, false, "IEEE 754 single precision"),
    row(1, "F16", 1, 2, false, "IEEE 754 half precision"),
    row(2, "Q4_0", 32, sizeof(BlockQ4_0), true, "f16 scale d + 32 4-bit values (x = d*(q-8))"),
    row(3, "Q4_1", 32, sizeof(BlockQ4_1), true, "f16 scale d, f16 min m + 32 4-bit values"),
    removedRow(4, "Q4_2"),
    removedRow(5, "Q4_3"),
    row(6, "Q5_0", 32, sizeof(BlockQ5_0), true, "f16 d, 32 high bits, 32 4-bit values"),
    row(7, "Q5_1", 32, sizeof(BlockQ5_1), true, "f16 d, f16 m, 32 high bits, 32 4-bit values"),
    row(8, "Q8_0", 32, sizeof(BlockQ8_0), true, "f16 scale d + 32 int8 values"),
    row(9, "Q8_1", 32, sizeof(BlockQ8_1), true, "f16 d, f16 s + 32 int8 values (activation format)"),
    row(10, "Q2_K", 256, sizeof(BlockQ2_K), true, "k-quant: 16 scales/mins, 2-bit values, f16 d, dmin"),
    row(11, "Q3_K", 256, sizeof(BlockQ3_K), true, "k-quant: high-bit mask, 2-bit values, 6-bit scales, f16 d"),
    row(12, "Q4_K", 256, sizeof(BlockQ4_K), true, "k-quant: f16 d, dmin, 12 bytes of 6-bit scales, 4-bit values"),
    row(13, "Q5_K", 256, sizeof(BlockQ5_K), true, "k-quant: f16 d, dmin, scales, high bits, 4-bit values"),
    row(14, "Q6_K", 256, sizeof(BlockQ6_K), true, "k-quant: 4-bit low, 2-bit high, int8 scales, f16 d"),
    row(15, "Q8_K", 256, sizeof(BlockQ8_K), true, "f32 d + 256 int8 + 16 int16 block sums"),
    row(16, "IQ2_XXS", 256, sizeof(BlockIQ2_XXS), true, "2.06 bpw codebook quant (iq2xxs_grid)"),
    row(17, "IQ2_XS", 256, sizeof(BlockIQ2_XS), true, "2.31 bpw codebook quant (iq2xs_grid)"),
    row(18, "IQ3_XXS", 256, sizeof(BlockIQ3_XXS), true, "3.06 bpw codebook quant (iq3xxs_grid)"),
    row(19, "IQ1_S", 256, sizeof(BlockIQ1_S), true, "1.56 bpw codebook quant (iq1s_grid)"),
    row(20, "IQ4_NL", 32, sizeof(BlockIQ4_NL), true, "f16 d + 32 4-bit indices into a non-linear table"),
    row(21, "IQ3_S", 256, sizeof(BlockIQ3_S), true, "3.44 bpw codebook quant (iq3s_grid)"),
    row(22, "IQ2_S", 256, sizeof(BlockIQ2_S), true, "2.5 bpw codebook quant (iq2s_grid)"),
    row(23, "IQ4_XS", 256, sizeof(BlockIQ4_XS), true, "4.25 bpw non-linear quant with 6-bit scales"),
    row(24, "I8", 1, 1, false, "8-bit signed integer"),
    row(25, "I16", 1, 2, false, "16-bit signed integer"),
    row(26, "I32", 1, 4, false, "32-bit signed integer"),
    row(27, "I64", 1, 8, false, "64-bit signed integer"),
    row(28, "F64", 1, 8, false, "IEEE 754 double precision"),
    row(29, "IQ1_M", 256, sizeof(BlockIQ1_M), true, "1.75 bpw codebook quant; scale packed in scales"),
    row(30, "BF16", 1, 2, false, "bfloat16: upper half of an f32"),
    removedRow(31, "Q4_0_4_4"),
    removedRow(32, "Q4_0_4_8"),
    removedRow(33, "Q4_0_8_8"),
    row(34, "TQ1_0", 256, sizeof(BlockTQ1_0), true, "ternary, base-3 packing (1.69 bpw)"),
    row(35, "TQ2_0", 256, sizeof(BlockTQ2_0), true, "ternary, 2 bits per weight"),
    TypeTraits{36, "I2_S", 128, 32, SizeRule::BitNetI2S, false, false, true,
               "BitNet fork: 2-bit ternary codes + one f32 tensor scale (upstream: removed IQ4_NL_4_4)"},
    removedRow(37, "IQ4_NL_4_8"),
    removedRow(38, "IQ4_NL_8_8"),
    row(39, "MXFP4", 32, sizeof(BlockMXFP4), true, "E8M0 scale + 32 E2M1 4-bit floats"),
    row(40, "NVFP4", 64, sizeof(BlockNVFP4), true, "4 UE4M3 sub-block scales + 64 E2M1 4-bit floats"),
    row(41, "Q1_0", 128, sizeof(BlockQ1_0), true, "f16 d + 1 bit per weight"),
    row(42, "Q2_0", 64, sizeof(BlockQ2_0), true, "f16 d + 2 bits per weight"),
}};

// The safetensors dtypes without a ggml type (ExtendedType): plain elements, not upstream.
constexpr TypeTraits extendedRow(ExtendedType type, std::string_view name, uint32_t size, std::string_view note)
{
    return TypeTraits{extendedTypeId(type), name, 1, size, SizeRule::Blocks, false, false, false, note};
}

constexpr std::array<TypeTraits, kExtendedTypeCount> kExtendedTable = {{
    extendedRow(ExtendedType::U8, "U8", 1, "8-bit unsigned integer (safetensors; not a ggml type)"),
    extendedRow(ExtendedType::U16, "U16", 2, "16-bit unsigned integer (safetensors; not a ggml type)"),
    extendedRow(ExtendedType::U32, "U32", 4, "32-bit unsigned integer (safetensors; not a ggml type)"),
    extendedRow(ExtendedType::U64, "U64", 8, "64-bit unsigned integer (safetensors; not a ggml type)"),
    extendedRow(ExtendedType::Bool, "BOOL", 1, "one byte, 0 false, else true (safetensors; not a ggml type)"),
    extendedRow(ExtendedType::F8_E4M3, "F8_E4M3", 1, "OCP FP8 E4M3, bias 7, no infinities (safetensors)"),
    extendedRow(ExtendedType::F8_E5M2, "F8_E5M2", 1, "OCP FP8 E5M2, bias 15, an f16's upper byte (safetensors)"),
}};

const TypeTraits kUnknown{};

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

} // namespace

const TypeTraits &typeTraits(uint32_t id)
{
    if (id < kTypeTable.size())
        return kTypeTable[id];
    if (id >= kExtendedTypeFirst && id - kExtendedTypeFirst < kExtendedTable.size())
        return kExtendedTable[id - kExtendedTypeFirst];
    return kUnknown;
}

std::string typeName(uint32_t id)
{
    const TypeTraits &t = typeTraits(id);
    if (t.name.empty())
        return "unknown type " + std::to_string(id);
    if (t.removed)
        return std::string(t.name) + " (removed)";
    return std::string(t.name);
}

std::optional<uint32_t> typeIdFromName(std::string_view name)
{
    for (const TypeTraits &t : kTypeTable)
        if (!t.removed && equalsIgnoreCase(t.name, name))
            return t.id;
    return std::nullopt;
}

std::optional<uint64_t> tensorByteSize(uint32_t id, uint64_t ne0, uint64_t elements)
{
    const TypeTraits &t = typeTraits(id);
    switch (t.rule) {
    case SizeRule::Blocks: {
        if (ne0 % t.blockSize != 0 || elements % t.blockSize != 0)
            return std::nullopt;
        const uint64_t blocks = elements / t.blockSize;
        if (blocks != 0 && t.typeSize > UINT64_MAX / blocks)
            return std::nullopt;
        return blocks * t.typeSize;
    }
    case SizeRule::BitNetI2S:
        // n/4 bytes of codes (4 per byte, in blocks of 128) plus the 32-byte trailer holding the f32 scale
        if (ne0 % t.blockSize != 0 || elements % t.blockSize != 0)
            return std::nullopt;
        return elements / 4 + 32;
    case SizeRule::Unsized: break;
    }
    return std::nullopt;
}

double bitsPerWeight(uint32_t id)
{
    const TypeTraits &t = typeTraits(id);
    if (t.rule == SizeRule::BitNetI2S)
        return 2.0;
    if (t.rule != SizeRule::Blocks)
        return 0.0;
    return 8.0 * t.typeSize / t.blockSize;
}

} // namespace gguf
