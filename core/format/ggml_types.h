// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguf {

/// Well-known ggml tensor type ids (ggml `enum ggml_type`; docs/FORMAT.md §3.1), plus BitNet's fork id
/// for I2_S (§3.3).
enum class GgmlType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    I2_S = 36,
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
    Q2_0 = 42,
};

/// Element types of other formats that the decoders read as they read a plain ggml type (#43): the
/// safetensors dtypes without a ggml counterpart (docs/SAFETENSORS.md §5). Their ids lie far outside
/// ggml's; a GGUF that names one is refused by the validation as for any id ggml does not know.
enum class ExtendedType : uint32_t {
    U8 = 0x40000000,
    U16,
    U32,
    U64,
    Bool,
    F8_E4M3, ///< OCP FP8 E4M3 ("FN": no infinities, S.1111.111 is NaN), bias 7
    F8_E5M2, ///< OCP FP8 E5M2 (IEEE-like, the upper byte of an f16), bias 15
};
inline constexpr uint32_t kExtendedTypeFirst = 0x40000000;
inline constexpr uint32_t kExtendedTypeCount = 7;

constexpr uint32_t extendedTypeId(ExtendedType type)
{
    return static_cast<uint32_t>(type);
}

/// The id a tensor info stores for a type.
constexpr uint32_t ggmlTypeId(GgmlType type)
{
    return static_cast<uint32_t>(type);
}

/// How a type's byte size is computed.
enum class SizeRule : uint8_t {
    Blocks,    ///< elements / blockSize * typeSize; ne[0] must be a multiple of blockSize
    BitNetI2S, ///< n/4 bytes of 2-bit codes followed by one float32 scale (BitNet fork, id 36; docs/FORMAT.md §3.3)
    Unsized,   ///< removed or unknown id: size cannot be computed from the shape
};

/// One row of the type table: everything the reader and the views need to know about a type id.
struct TypeTraits {
    uint32_t id = 0;
    std::string_view name;  ///< ggml's upper-case spelling (docs/FORMAT.md §3.1), e.g. "Q4_K"; empty for unknown ids
    uint32_t blockSize = 0; ///< elements per block (0 when unsized)
    uint32_t typeSize = 0;  ///< bytes per block (0 when unsized)
    SizeRule rule = SizeRule::Unsized;
    bool upstream = false;  ///< true when current upstream ggml accepts this id in a GGUF file (docs/FORMAT.md §3.2)
    bool removed = false;   ///< a retired upstream id (Q4_2, Q4_0_4_4, ...; docs/FORMAT.md §3.2)
    bool quantized = false; ///< block-quantized (not a plain float/int element type)
    std::string_view note;  ///< one-line description for tooltips
};

/// Number of ids upstream ggml knows (GGML_TYPE_COUNT; docs/FORMAT.md §3.1).
inline constexpr uint32_t kGgmlTypeCount = 43;

/// Traits for any id; unknown ids get a row with rule Unsized and an empty name.
const TypeTraits &typeTraits(uint32_t id);

/// Display name: "Q4_K", "I2_S", "Q4_2 (removed)" or "unknown type 77".
std::string typeName(uint32_t id);

/// Look up an id by its name (case-insensitive, "q4_k" or "Q4_K"); nullopt when unknown.
std::optional<uint32_t> typeIdFromName(std::string_view name);

/// Byte size of `elements` values of type `id` stored as a tensor whose first dimension is `ne0`.
/// nullopt when the size is unknown (unsized type), when ne0 is not a multiple of the block size,
/// or when it would overflow 64 bits.
std::optional<uint64_t> tensorByteSize(uint32_t id, uint64_t ne0, uint64_t elements);

/// Bits per weight of a type (typeSize*8/blockSize); 0 when unsized. I2_S counts as 2.
double bitsPerWeight(uint32_t id);

} // namespace gguf
