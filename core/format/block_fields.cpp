// SPDX-License-Identifier: GPL-3.0-or-later
// The fields of every type's block, named from the block structs of core/format/ggml_blocks.h
// (offsets and sizes by offsetof and sizeof), with what each holds (docs/FORMAT.md §4).
#include "core/format/block_fields.h"

#include "core/format/ggml_blocks.h"
#include "core/format/ggml_types.h"

#include <array>
#include <cstddef>
#include <type_traits>

namespace gguf {
namespace {

using F = FieldFormat;

// A field of block struct B (core/format/ggml_blocks.h): name, offset and size come from the struct,
// and the format's word size must be the size of the member's elements, because that is what a
// big-endian file swaps (docs/FORMAT.md §2.3): a u16 array cannot be called Packed, nor bytes F16.
consteval BlockField checkedField(BlockField field, size_t elementBytes)
{
    if (fieldWordBytes(field.format) != elementBytes)
        throw "the field format's word size differs from the member's element size";
    return field;
}

#define GGUF_FIELD(B, member, format, description)                                                                     \
    checkedField(BlockField{#member, offsetof(B, member), sizeof(B::member), format, description},                     \
                 sizeof(std::remove_all_extents_t<decltype(B::member)>))

// Plain element types: the block is one element.
constexpr BlockField kF32[] = {{"value", 0, 4, F::F32, "one IEEE 754 single-precision value"}};
constexpr BlockField kF16[] = {{"value", 0, 2, F::F16, "one IEEE 754 half-precision value"}};
constexpr BlockField kBF16[] = {{"value", 0, 2, F::BF16, "one bfloat16 value (the upper half of an f32)"}};
constexpr BlockField kF64[] = {{"value", 0, 8, F::F64, "one IEEE 754 double-precision value"}};
constexpr BlockField kI8[] = {{"value", 0, 1, F::I8, "one signed 8-bit integer"}};
constexpr BlockField kI16[] = {{"value", 0, 2, F::I16, "one signed 16-bit integer"}};
constexpr BlockField kI32[] = {{"value", 0, 4, F::I32, "one signed 32-bit integer"}};
constexpr BlockField kI64[] = {{"value", 0, 8, F::I64, "one signed 64-bit integer"}};

// 32-element blocks (block_q4_0 … block_q8_1, block_iq4_nl, block_mxfp4; docs/FORMAT.md §4.2).
constexpr BlockField kQ4_0[] = {
    GGUF_FIELD(BlockQ4_0, d, F::F16, "f16 scale: x = d * (q - 8)"),
    GGUF_FIELD(BlockQ4_0, qs, F::Packed,
               "32 4-bit codes: element j in the low nibble of qs[j], j+16 in the high nibble"),
};
constexpr BlockField kQ4_1[] = {
    GGUF_FIELD(BlockQ4_1, d, F::F16, "f16 scale: x = d * q + m"),
    GGUF_FIELD(BlockQ4_1, m, F::F16, "f16 minimum"),
    GGUF_FIELD(BlockQ4_1, qs, F::Packed,
               "32 4-bit codes: element j in the low nibble of qs[j], j+16 in the high nibble"),
};
constexpr BlockField kQ5_0[] = {
    GGUF_FIELD(BlockQ5_0, d, F::F16, "f16 scale: x = d * (q - 16)"),
    GGUF_FIELD(BlockQ5_0, qh, F::Packed, "the fifth bit of each code: bit j of this word belongs to element j"),
    GGUF_FIELD(BlockQ5_0, qs, F::Packed, "low 4 bits of the 32 codes, split halves as in Q4_0"),
};
constexpr BlockField kQ5_1[] = {
    GGUF_FIELD(BlockQ5_1, d, F::F16, "f16 scale: x = d * q + m"),
    GGUF_FIELD(BlockQ5_1, m, F::F16, "f16 minimum"),
    GGUF_FIELD(BlockQ5_1, qh, F::Packed, "the fifth bit of each code: bit j of this word belongs to element j"),
    GGUF_FIELD(BlockQ5_1, qs, F::Packed, "low 4 bits of the 32 codes, split halves as in Q4_0"),
};
constexpr BlockField kQ8_0[] = {
    GGUF_FIELD(BlockQ8_0, d, F::F16, "f16 scale: x = d * q"),
    GGUF_FIELD(BlockQ8_0, qs, F::I8, "32 signed 8-bit codes"),
};
constexpr BlockField kQ8_1[] = {
    GGUF_FIELD(BlockQ8_1, d, F::F16, "f16 scale: x = d * q"),
    GGUF_FIELD(BlockQ8_1, s, F::F16, "f16 d * sum(qs), used by dot products only"),
    GGUF_FIELD(BlockQ8_1, qs, F::I8, "32 signed 8-bit codes"),
};
constexpr BlockField kIQ4_NL[] = {
    GGUF_FIELD(BlockIQ4_NL, d, F::F16, "f16 scale"),
    GGUF_FIELD(BlockIQ4_NL, qs, F::Packed, "32 4-bit indices into the non-linear table kvalues_iq4nl"),
};
constexpr BlockField kMXFP4[] = {
    GGUF_FIELD(BlockMXFP4, e, F::E8M0, "E8M0 shared exponent: scale 2^(e-127)"),
    GGUF_FIELD(BlockMXFP4, qs, F::Packed, "32 E2M1 4-bit floats, split halves as in Q4_0"),
};
constexpr BlockField kNVFP4[] = {
    GGUF_FIELD(BlockNVFP4, d, F::UE4M3, "UE4M3 scale of each 16-element sub-block"),
    GGUF_FIELD(BlockNVFP4, qs, F::Packed, "64 E2M1 4-bit floats: sub-block s in qs[8s..8s+7]"),
};
constexpr BlockField kQ1_0[] = {
    GGUF_FIELD(BlockQ1_0, d, F::F16, "f16 scale"),
    GGUF_FIELD(BlockQ1_0, qs, F::Packed, "128 sign bits: 1 gives +d, 0 gives -d"),
};
constexpr BlockField kQ2_0[] = {
    GGUF_FIELD(BlockQ2_0, d, F::F16, "f16 scale"),
    GGUF_FIELD(BlockQ2_0, qs, F::Packed, "64 2-bit codes: code q gives (q - 1) * d"),
};

// 256-element k-quant super-blocks (block_q2_K … block_q8_K; docs/FORMAT.md §4.3, §4.4).
constexpr BlockField kQ2_K[] = {
    GGUF_FIELD(BlockQ2_K, scales, F::Packed, "per 16 elements: 4-bit scale (low nibble) and 4-bit min (high nibble)"),
    GGUF_FIELD(BlockQ2_K, qs, F::Packed, "256 2-bit codes"),
    GGUF_FIELD(BlockQ2_K, d, F::F16, "f16 super-block scale of the scales"),
    GGUF_FIELD(BlockQ2_K, dmin, F::F16, "f16 super-block scale of the mins"),
};
constexpr BlockField kQ3_K[] = {
    GGUF_FIELD(BlockQ3_K, hmask, F::Packed, "the third bit of each code (set: no -4)"),
    GGUF_FIELD(BlockQ3_K, qs, F::Packed, "low 2 bits of the 256 codes"),
    GGUF_FIELD(BlockQ3_K, scales, F::Packed, "16 6-bit scales"),
    GGUF_FIELD(BlockQ3_K, d, F::F16, "f16 super-block scale"),
};
constexpr BlockField kQ4_K[] = {
    GGUF_FIELD(BlockQ4_K, d, F::F16, "f16 super-block scale of the scales"),
    GGUF_FIELD(BlockQ4_K, dmin, F::F16, "f16 super-block scale of the mins"),
    GGUF_FIELD(BlockQ4_K, scales, F::Packed, "8 6-bit scales and 8 6-bit mins, one pair per 32 elements"),
    GGUF_FIELD(BlockQ4_K, qs, F::Packed, "256 4-bit codes"),
};
constexpr BlockField kQ5_K[] = {
    GGUF_FIELD(BlockQ5_K, d, F::F16, "f16 super-block scale of the scales"),
    GGUF_FIELD(BlockQ5_K, dmin, F::F16, "f16 super-block scale of the mins"),
    GGUF_FIELD(BlockQ5_K, scales, F::Packed, "8 6-bit scales and 8 6-bit mins, one pair per 32 elements"),
    GGUF_FIELD(BlockQ5_K, qh, F::Packed, "the fifth bit of each code"),
    GGUF_FIELD(BlockQ5_K, qs, F::Packed, "low 4 bits of the 256 codes"),
};
constexpr BlockField kQ6_K[] = {
    GGUF_FIELD(BlockQ6_K, ql, F::Packed, "low 4 bits of the 256 codes"),
    GGUF_FIELD(BlockQ6_K, qh, F::Packed, "high 2 bits of the 256 codes"),
    GGUF_FIELD(BlockQ6_K, scales, F::I8, "16 signed 8-bit scales, one per 16 elements"),
    GGUF_FIELD(BlockQ6_K, d, F::F16, "f16 super-block scale"),
};
constexpr BlockField kQ8_K[] = {
    GGUF_FIELD(BlockQ8_K, d, F::F32, "f32 scale"),
    GGUF_FIELD(BlockQ8_K, qs, F::I8, "256 signed 8-bit codes"),
    GGUF_FIELD(BlockQ8_K, bsums, F::I16, "16 int16 sums of groups of 16 codes, for dot products"),
};

// 256-element codebook super-blocks (block_iq*; docs/FORMAT.md §4.5).
constexpr BlockField kIQ2_XXS[] = {
    GGUF_FIELD(BlockIQ2_XXS, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ2_XXS, qs, F::U16, "per 32 elements: 4 grid indices, then 4x7 sign bits and a 4-bit scale"),
};
constexpr BlockField kIQ2_XS[] = {
    GGUF_FIELD(BlockIQ2_XS, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ2_XS, qs, F::U16, "per 8 elements: 9-bit grid index and 7-bit sign index"),
    GGUF_FIELD(BlockIQ2_XS, scales, F::Packed, "two 4-bit scales per 32 elements"),
};
constexpr BlockField kIQ2_S[] = {
    GGUF_FIELD(BlockIQ2_S, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ2_S, qs, F::Packed, "32 low grid-index bytes, then 32 sign bytes"),
    GGUF_FIELD(BlockIQ2_S, qh, F::Packed, "top 2 grid-index bits of each group of 8"),
    GGUF_FIELD(BlockIQ2_S, scales, F::Packed, "two 4-bit scales per 32 elements"),
};
constexpr BlockField kIQ3_XXS[] = {
    GGUF_FIELD(BlockIQ3_XXS, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ3_XXS, qs, F::Packed, "64 grid bytes (one per 4 elements), then 8 words of sign bits and scales"),
};
constexpr BlockField kIQ3_S[] = {
    GGUF_FIELD(BlockIQ3_S, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ3_S, qs, F::Packed, "low 8 bits of the grid index, one per 4 elements"),
    GGUF_FIELD(BlockIQ3_S, qh, F::Packed, "9th grid-index bit, one byte per 32 elements"),
    GGUF_FIELD(BlockIQ3_S, signs, F::Packed, "one sign bit per element"),
    GGUF_FIELD(BlockIQ3_S, scales, F::Packed, "two 4-bit scales per 64 elements"),
};
constexpr BlockField kIQ1_S[] = {
    GGUF_FIELD(BlockIQ1_S, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ1_S, qs, F::Packed, "low 8 bits of the grid index, one per 8 elements"),
    GGUF_FIELD(BlockIQ1_S, qh, F::U16, "per 32 elements: 4x3 high index bits, a 3-bit scale and the delta sign"),
};
constexpr BlockField kIQ1_M[] = {
    GGUF_FIELD(BlockIQ1_M, qs, F::Packed, "low 8 bits of the grid index, one per 8 elements"),
    GGUF_FIELD(BlockIQ1_M, qh, F::Packed, "per 8+8 elements: 3 high index bits and the delta sign, twice"),
    GGUF_FIELD(BlockIQ1_M, scales, F::Packed, "3-bit scales; the f16 block scale hides in their top nibbles"),
};
constexpr BlockField kIQ4_XS[] = {
    GGUF_FIELD(BlockIQ4_XS, d, F::F16, "f16 super-block scale"),
    GGUF_FIELD(BlockIQ4_XS, scales_h, F::U16, "top 2 bits of the 8 6-bit scales"),
    GGUF_FIELD(BlockIQ4_XS, scales_l, F::Packed, "low 4 bits of the 8 scales"),
    GGUF_FIELD(BlockIQ4_XS, qs, F::Packed, "256 4-bit indices into kvalues_iq4nl"),
};

// Ternary types (block_tq1_0, block_tq2_0; BitNet's I2_S; docs/FORMAT.md §3.3, §4.6).
constexpr BlockField kTQ1_0[] = {
    GGUF_FIELD(BlockTQ1_0, qs, F::Packed, "5 trits per byte, a base-3 fraction of 256"),
    GGUF_FIELD(BlockTQ1_0, qh, F::Packed, "4 trits per byte, same encoding"),
    GGUF_FIELD(BlockTQ1_0, d, F::F16, "f16 scale"),
};
constexpr BlockField kTQ2_0[] = {
    GGUF_FIELD(BlockTQ2_0, qs, F::Packed, "256 2-bit codes: code q gives (q - 1) * d"),
    GGUF_FIELD(BlockTQ2_0, d, F::F16, "f16 scale"),
};
constexpr BlockField kI2_S[] = {
    {"qs", 0, 32, F::Packed,
     "128 2-bit codes: byte g holds elements g, 32+g, 64+g, 96+g (codes 0/1/2 = -1/0/+1, times the tensor scale)"},
};
// The I2_S trailer after the blocks: the f32 scale, then the rest of the writer's 32 bytes.
constexpr BlockField kI2_STrailer[] = {
    {"scale", 0, 4, F::F32, "f32 scale of the whole tensor"},
    {"padding", 4, 28, F::Packed, "the rest of the 32-byte trailer BitNet writes"},
};

template <size_t N> constexpr std::span<const BlockField> span(const BlockField (&fields)[N])
{
    return {fields, N};
}

constexpr auto kFieldTable = [] {
    std::array<std::span<const BlockField>, kGgmlTypeCount> t{};
    t[0] = span(kF32), t[1] = span(kF16), t[2] = span(kQ4_0), t[3] = span(kQ4_1);
    t[6] = span(kQ5_0), t[7] = span(kQ5_1), t[8] = span(kQ8_0), t[9] = span(kQ8_1);
    t[10] = span(kQ2_K), t[11] = span(kQ3_K), t[12] = span(kQ4_K), t[13] = span(kQ5_K);
    t[14] = span(kQ6_K), t[15] = span(kQ8_K), t[16] = span(kIQ2_XXS), t[17] = span(kIQ2_XS);
    t[18] = span(kIQ3_XXS), t[19] = span(kIQ1_S), t[20] = span(kIQ4_NL), t[21] = span(kIQ3_S);
    t[22] = span(kIQ2_S), t[23] = span(kIQ4_XS), t[24] = span(kI8), t[25] = span(kI16);
    t[26] = span(kI32), t[27] = span(kI64), t[28] = span(kF64), t[29] = span(kIQ1_M);
    t[30] = span(kBF16), t[34] = span(kTQ1_0), t[35] = span(kTQ2_0), t[36] = span(kI2_S);
    t[39] = span(kMXFP4), t[40] = span(kNVFP4), t[41] = span(kQ1_0), t[42] = span(kQ2_0);
    return t;
}();

// The field of `fields` holding byte `offset` of a block (fields tile the block in order).
uint32_t fieldAt(std::span<const BlockField> fields, uint64_t offset)
{
    uint32_t i = 0;
    while (i + 1 < fields.size() && offset >= fields[i].offset + fields[i].size)
        ++i;
    return i;
}

} // namespace

std::span<const BlockField> blockFields(uint32_t typeId)
{
    return typeId < kFieldTable.size() ? kFieldTable[typeId] : std::span<const BlockField>{};
}

std::optional<TensorDataPosition> locateInTensor(uint32_t typeId, uint64_t elements, uint64_t relative)
{
    const TypeTraits &traits = typeTraits(typeId);
    const std::span<const BlockField> fields = blockFields(typeId);
    if (fields.empty() || traits.blockSize == 0 || traits.typeSize == 0)
        return std::nullopt;
    TensorDataPosition p;
    p.blockCount = elements / traits.blockSize;
    const uint64_t codeBytes = p.blockCount * traits.typeSize;
    if (relative >= codeBytes) {
        // only I2_S has bytes after its blocks: the 32-byte scale trailer
        const uint64_t intoTrailer = relative - codeBytes;
        if (traits.rule != SizeRule::BitNetI2S || intoTrailer >= 32)
            return std::nullopt;
        p.trailer = true;
        p.blockOffset = codeBytes;
        p.fieldIndex = fieldAt(kI2_STrailer, intoTrailer);
        p.field = &kI2_STrailer[p.fieldIndex];
        p.trailerScale = p.fieldIndex == 0;
        return p;
    }
    p.block = relative / traits.typeSize;
    p.blockOffset = p.block * traits.typeSize;
    p.fieldIndex = fieldAt(fields, relative - p.blockOffset);
    p.field = &fields[p.fieldIndex];
    return p;
}

} // namespace gguf
