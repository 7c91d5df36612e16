// SPDX-License-Identifier: GPL-3.0-or-later
// GgufBuilder: the writer, its own table of tensor sizes and the layout it records (the values, the
// layout lookups and the corruptions of a built file are in gguf_built_file.cpp).
#include "tests/support/gguf_builder.h"

#include "core/format/gguf_file.h"

#include <algorithm>

namespace gguf::test {
namespace {

// Tensors whose data would end beyond this are described but their bytes are not written.
constexpr uint64_t kMaxMaterialized = uint64_t(64) << 20;

constexpr uint32_t kI2S = 36;

struct BlockRow {
    uint32_t block;
    uint32_t bytes;
};

// ggml type sizes (docs/FORMAT.md §3.1), kept apart from core's table so tests check one against the other.
constexpr std::array<BlockRow, 43> kBlocks = {{
    {1, 4},    {1, 2},    {32, 18},   {32, 20},   {0, 0},     {0, 0},     {32, 22},   {32, 24},  {32, 34},
    {32, 36},  {256, 84}, {256, 110}, {256, 144}, {256, 176}, {256, 210}, {256, 292}, {256, 66}, {256, 74},
    {256, 98}, {256, 50}, {32, 18},   {256, 110}, {256, 82},  {256, 136}, {1, 1},     {1, 2},    {1, 4},
    {1, 8},    {1, 8},    {256, 56},  {1, 2},     {0, 0},     {0, 0},     {0, 0},     {256, 54}, {256, 66},
    {0, 0},    {0, 0},    {0, 0},     {32, 17},   {64, 36},   {128, 18},  {64, 18},
}};

uint64_t saturatingAdd(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t alignUp(uint64_t v, uint64_t a)
{
    if (a <= 1)
        return v;
    const uint64_t r = v % a;
    return r == 0 ? v : saturatingAdd(v, a - r);
}

// Appends integers in the chosen byte order; counts are u32 in v1.
class Writer {
public:
    Writer(std::vector<uint8_t> &out, bool swap, bool v1) : m_out(out), m_swap(swap), m_v1(v1) {}

    uint64_t pos() const { return m_out.size(); }
    void uint(uint64_t value, unsigned size)
    {
        for (unsigned i = 0; i < size; ++i) {
            const unsigned shift = 8 * (m_swap ? size - 1 - i : i);
            m_out.push_back(static_cast<uint8_t>(value >> shift));
        }
    }
    void u32(uint32_t v) { uint(v, 4); }
    void u64(uint64_t v) { uint(v, 8); }
    void length(uint64_t v) { uint(v, m_v1 ? 4 : 8); }
    void bytes(const void *data, size_t n)
    {
        const auto *p = static_cast<const uint8_t *>(data);
        m_out.insert(m_out.end(), p, p + n);
    }
    void text(const std::string &s) { bytes(s.data(), s.size()); }

private:
    std::vector<uint8_t> &m_out;
    bool m_swap;
    bool m_v1;
};

void writeValue(Writer &w, const BuildValue &v, KvLayout *record)
{
    const uint32_t fixed = BuildValue::fixedSize(v.type);
    if (fixed != 0) {
        w.uint(v.bits, fixed);
    } else if (v.isString()) {
        w.length(v.writtenLength.value_or(v.text.size()));
        w.text(v.text);
    } else if (v.isArray()) {
        w.u32(v.elementType);
        if (record)
            record->countOffset = w.pos();
        w.length(v.writtenCount.value_or(v.elementCount()));
        if (record) {
            record->elementsOffset = w.pos();
            record->elementOffsets.reserve(static_cast<size_t>(v.elementCount()));
        }
        for (const std::string &s : v.strings) {
            if (record)
                record->elementOffsets.push_back(w.pos());
            w.length(s.size());
            w.text(s);
        }
        for (const BuildValue &e : v.elements) {
            if (record)
                record->elementOffsets.push_back(w.pos());
            writeValue(w, e, nullptr);
        }
    }
    w.bytes(v.payload.data(), v.payload.size());
}

} // namespace

// --- GgufBuilder

GgufBuilder &GgufBuilder::version(uint32_t version)
{
    m_version = version;
    return *this;
}

GgufBuilder &GgufBuilder::byteOrder(Endian order)
{
    m_order = order;
    return *this;
}

GgufBuilder &GgufBuilder::magic(std::string_view fourChars)
{
    for (size_t i = 0; i < 4; ++i)
        m_magic[i] = i < fourChars.size() ? fourChars[i] : '\0';
    return *this;
}

GgufBuilder &GgufBuilder::extendedHeader(std::optional<uint64_t> dataOffset)
{
    m_extended = true;
    m_extendedDataOffset = dataOffset;
    return *this;
}

GgufBuilder &GgufBuilder::alignment(uint32_t alignment)
{
    m_alignment = alignment;
    return kv("general.alignment", BuildValue::u32(alignment));
}

GgufBuilder &GgufBuilder::layoutAlignment(uint64_t alignment)
{
    m_alignment = alignment;
    return *this;
}

GgufBuilder &GgufBuilder::kv(std::string key, BuildValue value)
{
    m_kvs.emplace_back(std::move(key), std::move(value));
    return *this;
}

GgufBuilder &GgufBuilder::tensor(TensorSpec spec)
{
    m_tensors.push_back(std::move(spec));
    return *this;
}

GgufBuilder &GgufBuilder::tensor(std::string name, std::vector<uint64_t> dims, uint32_t type)
{
    return tensor(TensorSpec{std::move(name), std::move(dims), type, std::nullopt, std::nullopt});
}

GgufBuilder &GgufBuilder::tensor(std::string name, std::vector<uint64_t> dims, uint32_t type, std::vector<uint8_t> data)
{
    return tensor(TensorSpec{std::move(name), std::move(dims), type, std::move(data), std::nullopt});
}

GgufBuilder &GgufBuilder::writtenTensorCount(uint64_t count)
{
    m_writtenTensorCount = count;
    return *this;
}

GgufBuilder &GgufBuilder::writtenKvCount(uint64_t count)
{
    m_writtenKvCount = count;
    return *this;
}

GgufBuilder &GgufBuilder::padLastTensor(bool pad)
{
    m_padLastTensor = pad;
    return *this;
}

GgufBuilder &GgufBuilder::trailingBytes(uint64_t count)
{
    m_trailing = count;
    return *this;
}

uint32_t GgufBuilder::blockSize(uint32_t type)
{
    return type < kBlocks.size() ? kBlocks[type].block : 0;
}

std::optional<uint64_t> GgufBuilder::tensorSize(uint32_t type, const std::vector<uint64_t> &dims)
{
    uint64_t elements = 1;
    for (uint64_t d : dims) {
        if (d != 0 && elements > UINT64_MAX / d)
            return std::nullopt;
        elements *= d;
    }
    // BitNet's I2_S: four 2-bit codes per byte, then a 32-byte block holding the f32 scale
    if (type == kI2S)
        return elements % 4 == 0 ? std::optional<uint64_t>(elements / 4 + 32) : std::nullopt;
    if (type >= kBlocks.size() || kBlocks[type].block == 0)
        return std::nullopt;
    const BlockRow row = kBlocks[type];
    const uint64_t ne0 = dims.empty() ? 1 : dims[0];
    if (ne0 % row.block != 0)
        return std::nullopt;
    const uint64_t blocks = elements / row.block;
    if (blocks != 0 && row.bytes > UINT64_MAX / blocks)
        return std::nullopt;
    return blocks * row.bytes;
}

BuiltFile GgufBuilder::build() const
{
    Layout L;
    L.version = m_version;
    L.byteOrder = m_order;
    L.lenSize = m_version == 1 ? 4 : 8;
    L.alignment = m_alignment;

    std::vector<uint8_t> out;
    Writer w(out, m_order == Endian::Big, m_version == 1);

    // header
    w.bytes(m_magic.data(), 4);
    L.versionOffset = w.pos();
    w.u32(m_version);
    L.tensorCountOffset = w.pos();
    w.length(m_writtenTensorCount.value_or(m_tensors.size()));
    L.kvCountOffset = w.pos();
    w.length(m_writtenKvCount.value_or(m_kvs.size()));
    if (m_extended) {
        L.extendedHeader = true;
        L.headerAlignmentOffset = w.pos();
        w.u32(static_cast<uint32_t>(m_alignment));
        L.headerDataOffsetOffset = w.pos();
        w.u64(0); // patched once the data offset is known
    }
    L.headerEnd = w.pos();

    // key/value pairs
    for (const auto &[key, value] : m_kvs) {
        KvLayout k;
        k.key = key;
        k.type = value.type;
        k.offset = w.pos();
        w.length(key.size());
        k.keyOffset = w.pos();
        w.text(key);
        k.typeOffset = w.pos();
        w.u32(value.type);
        k.valueOffset = w.pos();
        writeValue(w, value, &k);
        k.end = w.pos();
        L.kvs.push_back(std::move(k));
    }
    L.metadataEnd = w.pos();

    // tensor infos, with ggml's automatic offsets (docs/FORMAT.md §1.8)
    uint64_t running = 0;
    for (const TensorSpec &spec : m_tensors) {
        TensorLayout t;
        t.name = spec.name;
        t.typeSize = tensorSize(spec.type, spec.dims);
        t.dataSize = spec.data ? spec.data->size() : t.typeSize.value_or(0);
        t.relativeOffset = spec.offset.value_or(running);
        running = alignUp(saturatingAdd(t.relativeOffset, t.dataSize), m_alignment);
        t.elements = 1;
        for (uint64_t d : spec.dims)
            t.elements = (d != 0 && t.elements > UINT64_MAX / d) ? UINT64_MAX : t.elements * d;
        t.infoOffset = w.pos();
        w.length(spec.name.size());
        t.nameOffset = w.pos();
        w.text(spec.name);
        t.nDimsOffset = w.pos();
        w.u32(static_cast<uint32_t>(spec.dims.size()));
        t.dimsOffset = w.pos();
        for (uint64_t d : spec.dims)
            w.length(d);
        t.typeOffset = w.pos();
        w.u32(spec.type);
        t.offsetFieldOffset = w.pos();
        w.u64(t.relativeOffset);
        t.infoEnd = w.pos();
        L.tensors.push_back(std::move(t));
    }
    L.tensorInfoEnd = w.pos();

    // data region
    L.dataOffset = m_tensors.empty() ? L.tensorInfoEnd : alignUp(L.tensorInfoEnd, m_alignment);
    if (m_extendedDataOffset && *m_extendedDataOffset >= L.tensorInfoEnd)
        L.dataOffset = *m_extendedDataOffset;
    if (out.size() < L.dataOffset)
        out.resize(static_cast<size_t>(L.dataOffset), 0);
    L.dataEnd = L.dataOffset;
    for (size_t i = 0; i < m_tensors.size(); ++i) {
        TensorLayout &t = L.tensors[i];
        const TensorSpec &spec = m_tensors[i];
        t.dataOffset = saturatingAdd(L.dataOffset, t.relativeOffset);
        const uint64_t end = saturatingAdd(t.dataOffset, t.dataSize);
        if ((!spec.data && !t.typeSize) || end > kMaxMaterialized)
            continue;
        t.materialized = true;
        if (out.size() < end)
            out.resize(static_cast<size_t>(end), 0);
        if (spec.data)
            std::copy(spec.data->begin(), spec.data->end(), out.begin() + static_cast<std::ptrdiff_t>(t.dataOffset));
        L.dataEnd = std::max(L.dataEnd, end);
    }
    if (m_padLastTensor && !m_tensors.empty())
        out.resize(static_cast<size_t>(std::max<uint64_t>(out.size(), alignUp(L.dataEnd, m_alignment))), 0);
    out.resize(out.size() + static_cast<size_t>(m_trailing), 0);
    L.fileSize = out.size();
    BuiltFile built(std::move(out), std::move(L));
    if (m_extended)
        built.patchU64(built.layout().headerDataOffsetOffset, built.layout().dataOffset);
    return built;
}

OpenedBuilt buildAndOpen(const GgufBuilder &builder)
{
    OpenedBuilt o{builder.build(), nullptr};
    o.file = GgufFile::openBuffer(o.built.bytes(), "<built>").file;
    return o;
}

std::vector<uint8_t> twoFileSplitShard(uint16_t number)
{
    GgufBuilder builder;
    if (number == 1)
        builder.kv("general.architecture", V::str("llama"));
    builder.kv("split.no", V::u16(static_cast<uint16_t>(number - 1)))
        .kv("split.count", V::u16(2))
        .kv("split.tensors.count", V::i32(2))
        .tensor("blk." + std::to_string(number) + ".w", {32}, 0);
    return builder.build().bytes();
}

} // namespace gguf::test
