// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/quant/dequantize.h"

#include "core/format/block_fields.h"
#include "core/format/ggml_types.h"
#include "core/util/byte_order.h"
#include "dequantize_blocks.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace gguf {
namespace {

using detail::BlockDecoder;

/// Per-type decoding behaviour; block geometry comes from typeTraits() (core/ggml_types.h).
struct Decoder {
    BlockDecoder decode = nullptr;        ///< bytes as stored (little-endian)
    BlockDecoder decodeSwapped = nullptr; ///< plain types: elements of a byte-swapped file
};

/// Plain element types have a decoder that swaps each element. Blocks of a byte-swapped file have
/// their multi-byte members swapped into a scratch copy first (SwappedBlocks below).
constexpr Decoder plain(BlockDecoder decode, BlockDecoder swapped)
{
    return {decode, swapped};
}

constexpr Decoder block(BlockDecoder decode)
{
    return {decode, nullptr};
}

constexpr std::array<Decoder, kGgmlTypeCount> makeDecoderTable()
{
    using namespace detail;
    std::array<Decoder, kGgmlTypeCount> t{};
    auto set = [&t](GgmlType type, Decoder d) { t[static_cast<uint32_t>(type)] = d; };
    set(GgmlType::F32, plain(decodeF32, decodeF32Swapped));
    set(GgmlType::F16, plain(decodeF16, decodeF16Swapped));
    set(GgmlType::BF16, plain(decodeBF16, decodeBF16Swapped));
    set(GgmlType::F64, plain(decodeF64, decodeF64Swapped));
    set(GgmlType::I8, plain(decodeI8, decodeI8));
    set(GgmlType::I16, plain(decodeI16, decodeI16Swapped));
    set(GgmlType::I32, plain(decodeI32, decodeI32Swapped));
    set(GgmlType::I64, plain(decodeI64, decodeI64Swapped));
    set(GgmlType::Q4_0, block(decodeQ4_0));
    set(GgmlType::Q4_1, block(decodeQ4_1));
    set(GgmlType::Q5_0, block(decodeQ5_0));
    set(GgmlType::Q5_1, block(decodeQ5_1));
    set(GgmlType::Q8_0, block(decodeQ8_0));
    set(GgmlType::Q8_1, block(decodeQ8_1));
    set(GgmlType::Q2_K, block(decodeQ2_K));
    set(GgmlType::Q3_K, block(decodeQ3_K));
    set(GgmlType::Q4_K, block(decodeQ4_K));
    set(GgmlType::Q5_K, block(decodeQ5_K));
    set(GgmlType::Q6_K, block(decodeQ6_K));
    set(GgmlType::Q8_K, block(decodeQ8_K));
    set(GgmlType::IQ2_XXS, block(decodeIQ2_XXS));
    set(GgmlType::IQ2_XS, block(decodeIQ2_XS));
    set(GgmlType::IQ3_XXS, block(decodeIQ3_XXS));
    set(GgmlType::IQ1_S, block(decodeIQ1_S));
    set(GgmlType::IQ4_NL, block(decodeIQ4_NL));
    set(GgmlType::IQ3_S, block(decodeIQ3_S));
    set(GgmlType::IQ2_S, block(decodeIQ2_S));
    set(GgmlType::IQ4_XS, block(decodeIQ4_XS));
    set(GgmlType::IQ1_M, block(decodeIQ1_M));
    set(GgmlType::TQ1_0, block(decodeTQ1_0));
    set(GgmlType::TQ2_0, block(decodeTQ2_0));
    set(GgmlType::I2_S, block(decodeI2_S));
    set(GgmlType::MXFP4, block(decodeMXFP4));
    set(GgmlType::NVFP4, block(decodeNVFP4));
    set(GgmlType::Q1_0, block(decodeQ1_0));
    set(GgmlType::Q2_0, block(decodeQ2_0));
    return t;
}

constexpr std::array<Decoder, kGgmlTypeCount> kDecoders = makeDecoderTable();

/// Largest block (k-quant super-block) a partial first or last block is staged in.
constexpr uint32_t kMaxBlockElements = 256;

// The safetensors dtypes without a ggml type, in ExtendedType order.
constexpr std::array<Decoder, kExtendedTypeCount> kExtendedDecoders{{
    plain(detail::decodeU8, detail::decodeU8),
    plain(detail::decodeU16, detail::decodeU16Swapped),
    plain(detail::decodeU32, detail::decodeU32Swapped),
    plain(detail::decodeU64, detail::decodeU64Swapped),
    plain(detail::decodeBool, detail::decodeBool),
    plain(detail::decodeF8E4M3, detail::decodeF8E4M3),
    plain(detail::decodeF8E5M2, detail::decodeF8E5M2),
}};

const Decoder *decoderFor(uint32_t typeId)
{
    if (typeId >= kExtendedTypeFirst && typeId - kExtendedTypeFirst < kExtendedDecoders.size())
        return &kExtendedDecoders[typeId - kExtendedTypeFirst];
    if (typeId >= kDecoders.size() || kDecoders[typeId].decode == nullptr)
        return nullptr;
    return &kDecoders[typeId];
}

/// Where the blocks end and, for I2_S, where the tensor-wide scale sits.
struct Geometry {
    uint64_t blockElements = 0;
    uint64_t blockBytes = 0;
    uint64_t codeBytes = 0;     ///< bytes of the blocks
    uint64_t dataBytes = 0;     ///< bytes the whole tensor must occupy
    bool trailingScale = false; ///< I2_S: one f32 scale right after the code blocks
};

bool tensorGeometry(uint32_t typeId, uint64_t totalElements, Geometry &g)
{
    const TypeTraits &traits = typeTraits(typeId);
    g.blockElements = traits.blockSize;
    g.blockBytes = traits.typeSize;
    if (g.blockElements == 0 || g.blockBytes == 0 || totalElements % g.blockElements != 0)
        return false;
    const uint64_t blocks = totalElements / g.blockElements;
    if (blocks > std::numeric_limits<uint64_t>::max() / g.blockBytes)
        return false;
    g.codeBytes = blocks * g.blockBytes;
    g.dataBytes = g.codeBytes;
    g.trailingScale = traits.rule == SizeRule::BitNetI2S;
    if (g.trailingScale) {
        // the scale trailer (BitNet writes 32 bytes, the f32 scale first) must be present
        const std::optional<uint64_t> size = tensorByteSize(typeId, totalElements, totalElements);
        if (!size || *size < g.codeBytes + sizeof(float))
            return false;
        g.dataBytes = *size;
    }
    return g.blockElements <= kMaxBlockElements;
}

/// The multi-byte members of a block, which a big-endian file stores in its own byte order
/// (docs/FORMAT.md §2.3): `count` words of `width` bytes from `offset`, from blockFields().
struct WordRun {
    uint32_t offset = 0;
    uint32_t width = 0;
    uint32_t count = 0;
};

struct SwapPlan {
    std::array<WordRun, 4> runs{};
    uint32_t size = 0;
};

const SwapPlan &swapPlan(uint32_t typeId)
{
    static const std::array<SwapPlan, kGgmlTypeCount> plans = [] {
        std::array<SwapPlan, kGgmlTypeCount> t{};
        for (uint32_t id = 0; id < kGgmlTypeCount; ++id)
            for (const BlockField &f : blockFields(id))
                if (const uint32_t width = fieldWordBytes(f.format); width > 1 && t[id].size < t[id].runs.size())
                    t[id].runs[t[id].size++] = {f.offset, width, f.size / width};
        return t;
    }();
    return plans[typeId];
}

/// Decodes blocks of a byte-swapped file: each batch is copied to the stack with its multi-byte
/// members swapped, then decoded as a little-endian block, so both byte orders share one decoder.
class SwappedBlocks {
public:
    SwappedBlocks(BlockDecoder decode, const SwapPlan &plan, uint64_t blockBytes, uint64_t blockElements)
        : m_decode(decode), m_plan(plan), m_blockBytes(blockBytes), m_blockElements(blockElements),
          m_perBatch(std::max<uint64_t>(1, sizeof m_scratch / blockBytes))
    {
    }

    void operator()(const uint8_t *src, size_t nBlocks, float *dst)
    {
        while (nBlocks > 0) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(nBlocks, m_perBatch));
            std::memcpy(m_scratch, src, n * m_blockBytes);
            for (size_t b = 0; b < n; ++b)
                for (uint32_t r = 0; r < m_plan.size; ++r)
                    swapRun(m_scratch + b * m_blockBytes, m_plan.runs[r]);
            m_decode(m_scratch, n, dst);
            src += n * m_blockBytes;
            dst += n * m_blockElements;
            nBlocks -= n;
        }
    }

private:
    template <typename Word> static void swapWords(uint8_t *p, uint32_t count)
    {
        for (uint32_t i = 0; i < count; ++i, p += sizeof(Word)) {
            Word w;
            std::memcpy(&w, p, sizeof w);
            w = byteSwap(w);
            std::memcpy(p, &w, sizeof w);
        }
    }

    static void swapRun(uint8_t *block, const WordRun &run)
    {
        uint8_t *p = block + run.offset;
        if (run.width == 2)
            swapWords<uint16_t>(p, run.count);
        else if (run.width == 4)
            swapWords<uint32_t>(p, run.count);
        else
            swapWords<uint64_t>(p, run.count);
    }

    BlockDecoder m_decode;
    const SwapPlan &m_plan;
    uint64_t m_blockBytes;
    uint64_t m_blockElements;
    uint64_t m_perBatch;
    alignas(64) uint8_t m_scratch[2048];
};

/// Decodes elements [firstElement, firstElement + out.size()) of the blocks at `base` with
/// `decode` (a BlockDecoder or SwappedBlocks); a range that starts or ends inside a block decodes
/// that block into a stack buffer.
template <typename Decode>
void decodeBlocksOfRange(Decode &&decode, const uint8_t *base, const Geometry &g, uint64_t firstElement,
                         std::span<float> out)
{
    float *dst = out.data();
    uint64_t block = firstElement / g.blockElements;
    uint64_t offsetInBlock = firstElement % g.blockElements;
    uint64_t remaining = out.size();
    auto decodePartial = [&](uint64_t count) {
        std::array<float, kMaxBlockElements> staging;
        decode(base + block * g.blockBytes, 1, staging.data());
        std::copy_n(staging.data() + offsetInBlock, count, dst);
        dst += count;
        remaining -= count;
        ++block;
        offsetInBlock = 0;
    };
    if (offsetInBlock != 0 || remaining < g.blockElements)
        decodePartial(std::min<uint64_t>(remaining, g.blockElements - offsetInBlock));
    if (const uint64_t whole = remaining / g.blockElements; whole > 0) {
        decode(base + block * g.blockBytes, static_cast<size_t>(whole), dst);
        dst += whole * g.blockElements;
        remaining -= whole * g.blockElements;
        block += whole;
    }
    if (remaining > 0)
        decodePartial(remaining);
}

} // namespace

bool canDequantize(uint32_t typeId)
{
    return decoderFor(typeId) != nullptr;
}

bool dequantizeRange(uint32_t typeId, std::span<const uint8_t> tensorData, uint64_t totalElements,
                     uint64_t firstElement, std::span<float> out, bool swapBytes)
{
    const Decoder *decoder = decoderFor(typeId);
    Geometry g;
    if (decoder == nullptr || !tensorGeometry(typeId, totalElements, g))
        return false;
    if (tensorData.size() != g.dataBytes || firstElement > totalElements || out.size() > totalElements - firstElement)
        return false;
    if (out.empty())
        return true;

    // a byte-swapped file: plain types swap each element, blocks their multi-byte members (the
    // swapping decoder and its 2 KiB scratch exist only then: a std::optional of it was zeroed
    // on every call, most of the cost of a short range)
    if (swapBytes && decoder->decodeSwapped == nullptr && swapPlan(typeId).size > 0) {
        SwappedBlocks swapped(decoder->decode, swapPlan(typeId), g.blockBytes, g.blockElements);
        decodeBlocksOfRange(swapped, tensorData.data(), g, firstElement, out);
    } else {
        decodeBlocksOfRange(swapBytes && decoder->decodeSwapped != nullptr ? decoder->decodeSwapped : decoder->decode,
                            tensorData.data(), g, firstElement, out);
    }
    const uint8_t *base = tensorData.data();

    if (g.trailingScale) {
        // I2_S decodes to -1/0/+1; one multiply per element gives exactly code * scale
        const float scale = loadAs<float>(base + g.codeBytes, swapBytes);
        for (float &v : out)
            v *= scale;
    }
    return true;
}

} // namespace gguf
