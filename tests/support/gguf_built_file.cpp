// SPDX-License-Identifier: GPL-3.0-or-later
// The builder's values and results: BuildValue's factories, Layout's lookups and the named
// corruptions of a BuiltFile (the writer itself is in gguf_builder.cpp).
#include "tests/support/gguf_builder.h"

#include <algorithm>
#include <bit>

namespace gguf::test {
namespace {

void storeUint(std::vector<uint8_t> &bytes, uint64_t offset, uint64_t value, unsigned size, bool swap)
{
    if (offset + size > bytes.size())
        bytes.resize(static_cast<size_t>(offset + size), 0);
    for (unsigned i = 0; i < size; ++i) {
        const unsigned shift = 8 * (swap ? size - 1 - i : i);
        bytes[static_cast<size_t>(offset + i)] = static_cast<uint8_t>(value >> shift);
    }
}

BuildValue scalar(ValueType type, uint64_t bits)
{
    BuildValue v;
    v.type = static_cast<uint32_t>(type);
    v.bits = bits;
    return v;
}

} // namespace

// --- BuildValue

BuildValue BuildValue::u8(uint8_t v)
{
    return scalar(ValueType::Uint8, v);
}
BuildValue BuildValue::i8(int8_t v)
{
    return scalar(ValueType::Int8, static_cast<uint8_t>(v));
}
BuildValue BuildValue::u16(uint16_t v)
{
    return scalar(ValueType::Uint16, v);
}
BuildValue BuildValue::i16(int16_t v)
{
    return scalar(ValueType::Int16, static_cast<uint16_t>(v));
}
BuildValue BuildValue::u32(uint32_t v)
{
    return scalar(ValueType::Uint32, v);
}
BuildValue BuildValue::i32(int32_t v)
{
    return scalar(ValueType::Int32, static_cast<uint32_t>(v));
}
BuildValue BuildValue::f32(float v)
{
    return scalar(ValueType::Float32, std::bit_cast<uint32_t>(v));
}
BuildValue BuildValue::f32Bits(uint32_t bits)
{
    return scalar(ValueType::Float32, bits);
}
BuildValue BuildValue::boolean(bool v)
{
    return scalar(ValueType::Bool, v ? 1 : 0);
}
BuildValue BuildValue::u64(uint64_t v)
{
    return scalar(ValueType::Uint64, v);
}
BuildValue BuildValue::i64(int64_t v)
{
    return scalar(ValueType::Int64, static_cast<uint64_t>(v));
}
BuildValue BuildValue::f64(double v)
{
    return scalar(ValueType::Float64, std::bit_cast<uint64_t>(v));
}
BuildValue BuildValue::f64Bits(uint64_t bits)
{
    return scalar(ValueType::Float64, bits);
}

BuildValue BuildValue::str(std::string v)
{
    BuildValue b;
    b.type = static_cast<uint32_t>(ValueType::String);
    b.text = std::move(v);
    return b;
}

BuildValue BuildValue::array(ValueType elementType, std::vector<BuildValue> elements)
{
    BuildValue b;
    b.type = static_cast<uint32_t>(ValueType::Array);
    b.elementType = static_cast<uint32_t>(elementType);
    b.elements = std::move(elements);
    return b;
}

BuildValue BuildValue::stringArray(std::vector<std::string> strings)
{
    BuildValue b;
    b.type = static_cast<uint32_t>(ValueType::Array);
    b.elementType = static_cast<uint32_t>(ValueType::String);
    b.strings = std::move(strings);
    return b;
}

BuildValue BuildValue::raw(uint32_t typeId, std::vector<uint8_t> payload)
{
    BuildValue b;
    b.type = typeId;
    b.payload = std::move(payload);
    return b;
}

BuildValue BuildValue::element(uint64_t i) const
{
    if (!strings.empty())
        return i < strings.size() ? str(strings[static_cast<size_t>(i)]) : BuildValue();
    return i < elements.size() ? elements[static_cast<size_t>(i)] : BuildValue();
}

uint32_t BuildValue::fixedSize(uint32_t typeId)
{
    switch (typeId) {
    case 0:
    case 1:
    case 7: return 1; // u8, i8, bool
    case 2:
    case 3: return 2; // u16, i16
    case 4:
    case 5:
    case 6: return 4; // u32, i32, f32
    case 10:
    case 11:
    case 12: return 8; // u64, i64, f64
    default: return 0; // string, array, invalid
    }
}

// --- Layout

const KvLayout *Layout::kv(std::string_view key) const
{
    for (const KvLayout &k : kvs)
        if (k.key == key)
            return &k;
    return nullptr;
}

const TensorLayout *Layout::tensor(std::string_view name) const
{
    for (const TensorLayout &t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

// --- BuiltFile corruptions

BuiltFile &BuiltFile::truncate(uint64_t size)
{
    if (size < m_bytes.size())
        m_bytes.resize(static_cast<size_t>(size));
    return *this;
}

BuiltFile &BuiltFile::padTo(uint64_t size)
{
    if (size > m_bytes.size())
        m_bytes.resize(static_cast<size_t>(size), 0);
    return *this;
}

BuiltFile &BuiltFile::overwrite(uint64_t offset, const std::vector<uint8_t> &bytes)
{
    if (offset + bytes.size() > m_bytes.size())
        m_bytes.resize(static_cast<size_t>(offset + bytes.size()), 0);
    std::copy(bytes.begin(), bytes.end(), m_bytes.begin() + static_cast<std::ptrdiff_t>(offset));
    return *this;
}

BuiltFile &BuiltFile::patchU32(uint64_t offset, uint32_t value)
{
    storeUint(m_bytes, offset, value, 4, m_layout.byteOrder == Endian::Big);
    return *this;
}

BuiltFile &BuiltFile::patchU64(uint64_t offset, uint64_t value)
{
    storeUint(m_bytes, offset, value, 8, m_layout.byteOrder == Endian::Big);
    return *this;
}

BuiltFile &BuiltFile::patchLength(uint64_t offset, uint64_t value)
{
    storeUint(m_bytes, offset, value, static_cast<unsigned>(m_layout.lenSize), m_layout.byteOrder == Endian::Big);
    return *this;
}

BuiltFile &BuiltFile::setMagic(std::string_view fourChars)
{
    return overwrite(0, std::vector<uint8_t>(fourChars.begin(), fourChars.begin() + 4));
}

BuiltFile &BuiltFile::setVersion(uint32_t version)
{
    return patchU32(m_layout.versionOffset, version);
}
BuiltFile &BuiltFile::setTensorCount(uint64_t count)
{
    return patchLength(m_layout.tensorCountOffset, count);
}
BuiltFile &BuiltFile::setKvCount(uint64_t count)
{
    return patchLength(m_layout.kvCountOffset, count);
}
BuiltFile &BuiltFile::setKeyLength(size_t kv, uint64_t length)
{
    return patchLength(m_layout.kvs.at(kv).offset, length);
}
BuiltFile &BuiltFile::setValueType(size_t kv, uint32_t typeId)
{
    return patchU32(m_layout.kvs.at(kv).typeOffset, typeId);
}
BuiltFile &BuiltFile::setStringLength(size_t kv, uint64_t length)
{
    return patchLength(m_layout.kvs.at(kv).valueOffset, length);
}
BuiltFile &BuiltFile::setArrayElementType(size_t kv, uint32_t typeId)
{
    return patchU32(m_layout.kvs.at(kv).valueOffset, typeId);
}
BuiltFile &BuiltFile::setArrayCount(size_t kv, uint64_t count)
{
    return patchLength(m_layout.kvs.at(kv).countOffset, count);
}

BuiltFile &BuiltFile::duplicateKey(size_t from, size_t to)
{
    const KvLayout &a = m_layout.kvs.at(from);
    const KvLayout &b = m_layout.kvs.at(to);
    if (a.key.size() == b.key.size())
        overwrite(b.keyOffset, std::vector<uint8_t>(a.key.begin(), a.key.end()));
    return *this;
}

BuiltFile &BuiltFile::setTensorNameLength(size_t tensor, uint64_t length)
{
    return patchLength(m_layout.tensors.at(tensor).infoOffset, length);
}

BuiltFile &BuiltFile::setTensorNDims(size_t tensor, uint32_t nDims)
{
    return patchU32(m_layout.tensors.at(tensor).nDimsOffset, nDims);
}

BuiltFile &BuiltFile::setTensorDim(size_t tensor, size_t dim, uint64_t value)
{
    return patchLength(m_layout.tensors.at(tensor).dimsOffset + dim * m_layout.lenSize, value);
}

BuiltFile &BuiltFile::setTensorType(size_t tensor, uint32_t typeId)
{
    return patchU32(m_layout.tensors.at(tensor).typeOffset, typeId);
}

BuiltFile &BuiltFile::setTensorOffset(size_t tensor, uint64_t relativeOffset)
{
    return patchU64(m_layout.tensors.at(tensor).offsetFieldOffset, relativeOffset);
}

BuiltFile &BuiltFile::duplicateTensorName(size_t from, size_t to)
{
    const TensorLayout &a = m_layout.tensors.at(from);
    const TensorLayout &b = m_layout.tensors.at(to);
    if (a.name.size() == b.name.size())
        overwrite(b.nameOffset, std::vector<uint8_t>(a.name.begin(), a.name.end()));
    return *this;
}

} // namespace gguf::test
