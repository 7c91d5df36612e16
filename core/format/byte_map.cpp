// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/byte_map.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"

#include <algorithm>
#include <numeric>

namespace gguf {

std::string_view regionKindName(RegionKind kind)
{
    switch (kind) {
    case RegionKind::Magic: return "magic";
    case RegionKind::Version: return "version";
    case RegionKind::TensorCount: return "tensor_count";
    case RegionKind::KvCount: return "kv_count";
    case RegionKind::HeaderAlignment: return "header_alignment";
    case RegionKind::HeaderDataOffset: return "header_data_offset";
    case RegionKind::KeyLength: return "key_length";
    case RegionKind::Key: return "key";
    case RegionKind::ValueType: return "value_type";
    case RegionKind::Value: return "value";
    case RegionKind::ArrayType: return "array_type";
    case RegionKind::ArrayCount: return "array_count";
    case RegionKind::ArrayElements: return "array_elements";
    case RegionKind::TensorNameLength: return "tensor_name_length";
    case RegionKind::TensorName: return "tensor_name";
    case RegionKind::TensorNDims: return "tensor_n_dims";
    case RegionKind::TensorDims: return "tensor_dims";
    case RegionKind::TensorType: return "tensor_type";
    case RegionKind::TensorOffset: return "tensor_offset";
    case RegionKind::Padding: return "padding";
    case RegionKind::TensorData: return "tensor_data";
    case RegionKind::Unused: return "unused";
    case RegionKind::Unparsed: return "unparsed";
    case RegionKind::Broken: return "broken";
    }
    return "unknown";
}

void ByteMap::add(uint64_t offset, uint64_t size, RegionKind kind, uint32_t item)
{
    const uint64_t fileSize = m_file.fileSize();
    const uint64_t covered = m_regions.empty() ? 0 : m_regions.back().end();
    // Clip to what is not covered yet and to the file, so the map never overlaps or overruns.
    if (offset < covered) {
        const uint64_t cut = covered - offset;
        if (cut >= size)
            return;
        offset = covered;
        size -= cut;
    }
    if (offset >= fileSize || size == 0)
        return;
    size = std::min(size, fileSize - offset);
    if (offset > covered) {
        // a gap shorter than the alignment is the writer's padding; a longer one in the data region
        // is bytes no tensor claims
        const bool inData = offset >= m_file.dataOffset() && covered >= m_file.tensorInfoEnd();
        const bool padding = !inData || offset - covered < m_file.alignment();
        m_regions.push_back(Region{covered, offset - covered, padding ? RegionKind::Padding : RegionKind::Unused, 0});
    }
    m_regions.push_back(Region{offset, size, kind, item});
}

ByteMap::ByteMap(const GgufFile &file) : m_file(file)
{
    const uint64_t lenSize = file.v1() ? 4 : 8;
    add(0, 4, RegionKind::Magic);
    // header fields only as far as they were read (a file cut inside the header ends unparsed), and
    // not the one whose value stopped the reading: that is the broken region
    const Breakage *broken = file.breakage();
    const auto header = [&](uint64_t offset, uint64_t size, RegionKind kind) {
        const bool isBroken = broken && broken->section == Breakage::Section::Header && broken->fieldOffset == offset;
        add(offset, size, isBroken ? RegionKind::Broken : kind);
    };
    if (file.version() != 0)
        header(4, 4, RegionKind::Version);
    // the counts are read one after the other: reading can stop between them
    if (file.headerEnd() != 0 || (broken && broken->fieldOffset > file.tensorCountOffset()))
        header(file.tensorCountOffset(), lenSize, RegionKind::TensorCount);
    if (file.headerEnd() != 0)
        header(file.kvCountOffset(), lenSize, RegionKind::KvCount);
    if (file.headerLayout() == HeaderLayout::Extended) {
        const uint64_t at = file.kvCountOffset() + lenSize;
        add(at, 4, RegionKind::HeaderAlignment);
        add(at + 4, 8, RegionKind::HeaderDataOffset);
    }
    for (const MetadataEntry &e : file.metadata()) {
        add(e.offset, lenSize, RegionKind::KeyLength, e.index);
        add(e.keyOffset, e.key.size(), RegionKind::Key, e.index);
        add(e.typeOffset, 4, RegionKind::ValueType, e.index);
        if (e.value.type() == ValueType::Array) {
            const ArrayRef a = e.value.array();
            add(a.headerOffset(), 4, RegionKind::ArrayType, e.index);
            add(a.countOffset(), lenSize, RegionKind::ArrayCount, e.index);
            add(a.elementsOffset(), a.end() - a.elementsOffset(), RegionKind::ArrayElements, e.index);
        } else {
            add(e.value.offset(), e.value.size(), RegionKind::Value, e.index);
        }
    }
    for (const TensorInfo &t : file.tensors()) {
        add(t.infoOffset, lenSize, RegionKind::TensorNameLength, t.index);
        add(t.nameOffset, t.name.size(), RegionKind::TensorName, t.index);
        add(t.nDimsOffset, 4, RegionKind::TensorNDims, t.index);
        add(t.dimsOffset, uint64_t(t.nDims) * lenSize, RegionKind::TensorDims, t.index);
        add(t.typeOffset, 4, RegionKind::TensorType, t.index);
        add(t.offsetFieldOffset, 8, RegionKind::TensorOffset, t.index);
    }
    if (broken)
        addBroken(*broken);
    // What was not parsed (a file cut short, or a peek) is one region up to the data.
    const uint64_t parsedEnd = file.complete() ? file.tensorInfoEnd() : file.fileSize();
    if (!file.complete()) {
        const uint64_t covered = m_regions.empty() ? 0 : m_regions.back().end();
        add(covered, file.fileSize() - covered, RegionKind::Unparsed);
    }
    if (file.complete()) {
        const auto tensors = file.tensors();
        std::vector<uint32_t> order(tensors.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return tensors[a].fileOffset < tensors[b].fileOffset; });
        // the padding between the tensor infos and the data region
        if (file.dataOffset() > parsedEnd)
            add(parsedEnd, file.dataOffset() - parsedEnd, RegionKind::Padding);
        for (uint32_t i : order)
            add(tensors[i].fileOffset, tensors[i].byteSize, RegionKind::TensorData, i);
    }
    const uint64_t covered = m_regions.empty() ? 0 : m_regions.back().end();
    if (covered < file.fileSize()) {
        const uint64_t rest = file.fileSize() - covered;
        const RegionKind kind = !file.complete()          ? RegionKind::Unparsed
                                : rest < file.alignment() ? RegionKind::Padding
                                                          : RegionKind::Unused;
        m_regions.push_back(Region{covered, rest, kind, 0});
    }
}

void ByteMap::addBroken(const Breakage &b)
{
    const uint64_t lenSize = m_file.v1() ? 4 : 8;
    const uint64_t stop = b.fieldOffset;
    // a part was read when it lies before the field that broke (and was reached: offset 0 is "not")
    const auto part = [&](uint64_t offset, uint64_t size, RegionKind kind) {
        if (offset != 0 && offset + size <= stop)
            add(offset, size, kind, static_cast<uint32_t>(b.index));
    };
    if (b.section == Breakage::Section::Metadata) {
        const MetadataEntry &e = b.entry;
        part(e.offset, lenSize, RegionKind::KeyLength);
        part(e.keyOffset, e.key.size(), RegionKind::Key);
        part(e.typeOffset, 4, RegionKind::ValueType);
        const uint64_t valueAt = e.typeOffset + 4;
        if (e.typeOffset != 0 && stop > valueAt) {
            if (b.valueType == static_cast<uint32_t>(ValueType::Array)) {
                part(valueAt, 4, RegionKind::ArrayType);
                part(valueAt + 4, lenSize, RegionKind::ArrayCount);
                part(valueAt + 4 + lenSize, stop - std::min(stop, valueAt + 4 + lenSize), RegionKind::ArrayElements);
            } else {
                part(valueAt, stop - valueAt, RegionKind::Value);
            }
        }
    } else if (b.section == Breakage::Section::TensorInfos) {
        const TensorInfo &t = b.tensor;
        part(t.infoOffset, lenSize, RegionKind::TensorNameLength);
        part(t.nameOffset, t.name.size(), RegionKind::TensorName);
        part(t.nDimsOffset, 4, RegionKind::TensorNDims);
        part(t.dimsOffset, uint64_t(t.nDims) * lenSize, RegionKind::TensorDims);
    }
    // the field itself, as far as the file has it (at least one byte, so it can be pointed at),
    // unless it is a header field already mapped in its place
    if (!m_regions.empty() && m_regions.back().end() > stop)
        return;
    const uint64_t size =
        std::max<uint64_t>(1, std::min(b.fieldSize, m_file.fileSize() - std::min(stop, m_file.fileSize())));
    add(stop, size, RegionKind::Broken, static_cast<uint32_t>(b.index));
}

const Region *ByteMap::regionAt(uint64_t offset) const
{
    auto it = std::upper_bound(m_regions.begin(), m_regions.end(), offset,
                               [](uint64_t o, const Region &r) { return o < r.offset; });
    if (it == m_regions.begin())
        return nullptr;
    --it;
    return offset < it->end() ? &*it : nullptr;
}

std::string ByteMap::label(const Region &r) const
{
    // the item being read when a damaged file's reading stopped comes after the last one read
    const Breakage *broken = m_file.breakage();
    const auto keyName = [&](uint32_t i) {
        const auto md = m_file.metadata();
        if (i < md.size())
            return "key " + std::to_string(i) + " '" + std::string(md[i].key) + "'";
        if (broken && broken->section == Breakage::Section::Metadata && broken->index == i)
            return "key " + std::to_string(i) +
                   (broken->nameRead() ? " '" + std::string(broken->entry.key) + "'" : "") + " (broken)";
        return std::string("key ?");
    };
    const auto tensorName = [&](uint32_t i) {
        const auto ts = m_file.tensors();
        if (i < ts.size())
            return "tensor " + std::to_string(i) + " '" + std::string(ts[i].name) + "'";
        if (broken && broken->section == Breakage::Section::TensorInfos && broken->index == i)
            return "tensor " + std::to_string(i) +
                   (broken->nameRead() ? " '" + std::string(broken->tensor.name) + "'" : "") + " (broken)";
        return std::string("tensor ?");
    };
    switch (r.kind) {
    case RegionKind::Magic: return "magic 'GGUF'";
    case RegionKind::Version: return "version " + std::to_string(m_file.version());
    case RegionKind::TensorCount: return "tensor count " + std::to_string(m_file.declaredTensorCount());
    case RegionKind::KvCount: return "key/value count " + std::to_string(m_file.declaredKvCount());
    case RegionKind::HeaderAlignment: return "extended header: alignment " + std::to_string(m_file.alignment());
    case RegionKind::HeaderDataOffset: return "extended header: data offset " + std::to_string(m_file.dataOffset());
    case RegionKind::KeyLength: return keyName(r.item) + ": key length";
    case RegionKind::Key: return keyName(r.item) + ": key";
    case RegionKind::ValueType: {
        const auto md = m_file.metadata();
        if (r.item >= md.size())
            return keyName(r.item) + ": value type " + (broken ? valueTypeName(broken->valueType) : "");
        return keyName(r.item) + ": value type " + valueTypeName(md[r.item].value.type());
    }
    case RegionKind::Value: {
        const auto md = m_file.metadata();
        return keyName(r.item) + ": value" + (r.item < md.size() ? " = " + md[r.item].value.toDisplayString(60) : "");
    }
    case RegionKind::ArrayType: return keyName(r.item) + ": array element type";
    case RegionKind::ArrayCount: return keyName(r.item) + ": array count";
    case RegionKind::ArrayElements: return keyName(r.item) + ": array elements";
    case RegionKind::TensorNameLength: return "tensor info " + tensorName(r.item).substr(7) + ": name length";
    case RegionKind::TensorName: return "tensor info " + tensorName(r.item).substr(7) + ": name";
    case RegionKind::TensorNDims: return "tensor info " + tensorName(r.item).substr(7) + ": n_dims";
    case RegionKind::TensorDims: return "tensor info " + tensorName(r.item).substr(7) + ": dims";
    case RegionKind::TensorType: {
        const auto ts = m_file.tensors();
        return "tensor info " + tensorName(r.item).substr(7) + ": type " +
               (r.item < ts.size() ? typeName(ts[r.item].typeId) : "");
    }
    case RegionKind::TensorOffset: return "tensor info " + tensorName(r.item).substr(7) + ": data offset";
    case RegionKind::Padding: return "alignment padding";
    case RegionKind::TensorData: {
        const auto ts = m_file.tensors();
        return tensorName(r.item) + ": data" + (r.item < ts.size() ? " (" + typeName(ts[r.item].typeId) + ")" : "");
    }
    case RegionKind::Unused: return "bytes no tensor claims";
    case RegionKind::Unparsed: return "not parsed (the file could not be read past this point)";
    case RegionKind::Broken: {
        const Breakage *b = m_file.breakage();
        return b ? "broken: " + b->expected : std::string("broken");
    }
    }
    return {};
}

} // namespace gguf
